"""Parity sweep (session 12) of the TF-GNN GraphTensor container API against TF-GNN's
sources (TF-GNN is not installed; expectations are written from these files):
tensorflow_gnn/graph/graph_tensor.py (GraphTensor.from_pieces, Context.from_fields,
replace_features / remove_features, get_aux_type_prefix), padding_ops.py (_pad_sizes,
_pad_adjacency_index_with_linspace) and graph_tensor_ops.py (mask_edges)."""

import re

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    get_aux_type_prefix,
    mask_edges,
)
from arraygnn.padding import SizeConstraints, pad_to_total_sizes


def _graph(idx, sz, context="none"):
    rng = np.random.default_rng(0)
    ctx = {
        "none": None,
        "empty": Context.from_fields(),
        "features": Context.from_fields(features={"c": rng.random((2, 3))}),
    }[context]
    return GraphTensor.from_pieces(
        context=ctx,
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2, 1], sz), features={"x": rng.random(3)}),
            "b": NodeSet.from_fields(sizes=np.array([1, 2], sz)),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=np.array([2, 2], sz),
                adjacency=Adjacency.from_indices(
                    ("a", np.array([0, 1, 2, 2], idx)), ("b", np.array([0, 0, 1, 2], idx))
                ),
                features={"w": rng.random(4)},
            )
        },
    )


# graph_tensor.py GraphTensor.from_pieces: context sizes = ones_like(any set's sizes), then
# every piece is cast to the largest indices dtype (get_max_indices_dtype).
@pytest.mark.parametrize("context", ["none", "empty", "features"])
@pytest.mark.parametrize(
    "idx,sz,want",
    [
        (np.int32, np.int32, np.int32),
        (np.int64, np.int64, np.int64),
        (np.int32, np.int64, np.int64),
    ],
)
def test_context_sizes_take_the_sets_dtype(context, idx, sz, want):
    g = _graph(idx, sz, context)
    assert g.context.sizes.tolist() == [1, 1]
    assert g.context.sizes.dtype == want
    assert g.indices_dtype == want
    # replacing features keeps the dtype
    assert g.replace_features(context={}).context.sizes.dtype == want


def test_context_from_fields_indices_dtype_and_shape():
    feats = {"c": np.zeros((2, 1))}
    assert Context.from_fields(features=feats, indices_dtype=np.int32).sizes.dtype == np.int32
    c = Context.from_fields(sizes=np.array([1, 1]), indices_dtype="int32", shape=[])
    assert c.sizes.dtype == np.int32 and c.rank == 0
    assert Context.from_fields(sizes=np.ones((2, 3), np.int64), shape=[2]).rank == 1
    # a context whose dtype was asked for keeps it in the graph
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features=feats, indices_dtype=np.int32),
        node_sets={"a": NodeSet.from_fields(sizes=np.array([1, 1]))},
    )
    assert g.context.sizes.dtype == np.int32 and g.indices_dtype == np.int64
    with pytest.raises(ValueError, match="indices_dtype must be int32 or int64"):
        Context.from_fields(features=feats, indices_dtype=np.int16)
    with pytest.raises(ValueError, match=r"shape \(2,\) does not match"):
        Context.from_fields(sizes=np.array([1]), shape=[2])
    with pytest.raises(ValueError, match="needs sizes or features"):
        Context.from_fields(shape=[3])
    with pytest.raises(TypeError, match="shape must be a tuple"):
        Context.from_fields(features=feats, shape=3)


def _tf_pad_sizes(sizes, num_comp, min_per, target):
    """padding_ops._pad_sizes: the first padding component takes the rest, later ones
    ``min_per``."""
    k = num_comp - len(sizes)
    if k == 0:
        return list(sizes)
    return list(sizes) + [target - sum(sizes) - (k - 1) * min_per] + [min_per] * (k - 1)


def _tf_linspace(first, stop, n):
    """padding_ops._pad_adjacency_index_with_linspace (float32 linspace, cast, clip)."""
    if n == 0:
        return []
    vals = np.linspace(np.float32(first), np.float32(stop), n, dtype=np.float32)
    return np.clip(vals.astype(np.int64), first, stop - 1).tolist()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "comps,nodes_a,nodes_b,edges,min_a",
    [(5, 11, 9, 7, 1), (4, 9, 4, 4, 0), (3, 7, 5, 13, 2), (2, 3, 3, 4, 1)],
)
def test_pad_layout_matches_tfgnn(dtype, comps, nodes_a, nodes_b, edges, min_a):
    g = _graph(dtype, dtype)
    if min_a == 2:  # every real component needs 2 'a' nodes
        g = GraphTensor.from_pieces(
            node_sets={"a": NodeSet.from_fields(sizes=np.array([2, 2], dtype)),
                       "b": g.node_sets["b"]},
            edge_sets={"ab": g.edge_sets["ab"]},
        )  # fmt: skip
    sc = SizeConstraints(
        total_num_components=comps,
        total_num_nodes={"a": nodes_a, "b": nodes_b},
        total_num_edges={"ab": edges},
        min_nodes_per_component={"a": min_a},
    )
    p, mask = pad_to_total_sizes(g, sc)
    ra, rb = g.node_sets["a"].total_size, g.node_sets["b"].total_size
    assert p.node_sets["a"].sizes.tolist() == _tf_pad_sizes(
        g.node_sets["a"].sizes.tolist(), comps, min_a, nodes_a
    )
    assert p.node_sets["b"].sizes.tolist() == _tf_pad_sizes([1, 2], comps, 0, nodes_b)
    assert p.edge_sets["ab"].sizes.tolist() == _tf_pad_sizes([2, 2], comps, 0, edges)
    adj = p.edge_sets["ab"].adjacency
    assert adj.source.tolist() == [0, 1, 2, 2] + _tf_linspace(ra, nodes_a, edges - 4)
    assert adj.target.tolist() == [0, 0, 1, 2] + _tf_linspace(rb, nodes_b, edges - 4)
    assert mask.tolist() == [True, True] + [False] * (comps - 2)
    assert p.context.sizes.tolist() == [1] * comps
    assert p.indices_dtype == dtype  # padding keeps an int32 graph int32


def test_remove_and_replace_features_edge_cases():
    g = _graph(np.int64, np.int64, "features")
    # graph_tensor.py remove_features: names go through set(); an empty context list is a no-op
    assert dict(g.remove_features(node_sets={"a": ["x", "x"]}).node_sets["a"].features) == {}
    assert list(g.remove_features(context=[]).context.features) == ["c"]
    out = g.replace_features(context={})
    assert dict(out.context.features) == {} and out.num_components == 2
    with pytest.raises(ValueError, match="no feature"):
        g.remove_features(edge_sets={"ab": ["w", "nope"]})
    with pytest.raises(ValueError, match="no node set 'zz'"):
        g.remove_features(node_sets={"zz": ["x"]})  # TF-GNN: KeyError
    with pytest.raises(ValueError, match="no edge set 'zz'"):
        g.replace_features(edge_sets={"zz": {}})


def test_mask_edges_takes_a_list_of_bools():
    # graph_tensor_ops.py mask_edges: tf.math.logical_not / tf.boolean_mask take a bool list
    g = _graph(np.int32, np.int32)
    want = mask_edges(g, "ab", np.array([True, False, False, True]))
    got = mask_edges(g, "ab", [True, False, False, True], masked_info_edge_set_name="m")
    assert got.edge_sets["ab"].sizes.tolist() == want.edge_sets["ab"].sizes.tolist() == [1, 1]
    assert got.edge_sets["ab"].adjacency.source.tolist() == [0, 2]
    assert got.edge_sets["m"].adjacency.target.tolist() == [0, 1]
    with pytest.raises(TypeError, match="must be a bool array"):
        mask_edges(g, "ab", [1, 0, 0, 1])
    with pytest.raises(ValueError, match="has shape"):
        mask_edges(g, "ab", [True, False])


def test_get_aux_type_prefix_matches_tfgnn_regex():
    names = ["_readout", "_readout/x", "#x1_y.z", "a_b", "", "_", "~abc-d", "._q", "!%", "^ab"]
    for name in names:
        m = re.match(r"[_#!%.^~][a-zA-Z0-9_]*", name)  # graph_tensor.py get_aux_type_prefix
        assert get_aux_type_prefix(name) == (m.group() if m else None), name
