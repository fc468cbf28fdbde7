"""Parity sweep of the readout and input-layer API of ``arraygnn.pipeline`` against TF-GNN.

TF-GNN is not installed: the expected behaviour below is written from its sources
(tensorflow/gnn, tensorflow_gnn/graph/readout.py: ``structured_readout``,
``get_validated_edge_set_map_for_readout``; keras/layers/graph_ops.py: ``Readout``,
``ReadoutFirstNode``, ``StructuredReadout``; keras/layers/padding_ops.py:
``PadToTotalSizes``; graph/graph_tensor_ops.py: ``gather_first_node``), as NumPy references.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet
from arraygnn.padding import SizeConstraints, pad_to_total_sizes
from arraygnn.pipeline import (
    AddReadoutFromFirstNode,
    GraphBatchLoader,
    PadToTotalSizes,
    Readout,
    ReadoutFirstNode,
    StructuredReadout,
    add_readout_from_first_node,
    batch_graphs,
    merge_graphs,
    readout_first_node,
    structured_readout,
    structured_readout_into_feature,
    validate_graph_tensor_for_readout,
)


def _es(src_set, src, tgt, tgt_set="_readout", features=None):
    return EdgeSet.from_fields(
        sizes=np.array([len(src)]),
        adjacency=Adjacency.from_indices(
            source=(src_set, np.asarray(src, np.int64)), target=(tgt_set, np.asarray(tgt, np.int64))
        ),
        features=features or {},
    )


def _graph(readout_edge_sets, *, n_readout=3, a_dtype=np.float32, b_dtype=np.float32, dim=2):
    """Node sets "a" (3 nodes), "b" (2), "_readout"; edge set "ab" (2 edges, feature "h")
    with its shadow node set; the given readout edge sets."""
    rng = np.random.default_rng(0)
    return GraphTensor.from_pieces(
        context=Context.from_fields(sizes=np.array([1])),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([3]), features={"h": rng.normal(size=(3, dim)).astype(a_dtype)}
            ),
            "b": NodeSet.from_fields(
                sizes=np.array([2]), features={"h": rng.normal(size=(2, dim)).astype(b_dtype)}
            ),
            "_shadow/ab": NodeSet.from_fields(sizes=np.array([2])),
            "_readout": NodeSet.from_fields(sizes=np.array([n_readout])),
        },
        edge_sets={
            "ab": _es("a", [0, 2], [1, 0], "b", {"h": rng.normal(size=(2, dim)).astype(a_dtype)}),
            **readout_edge_sets,
        },
    )


def _tfgnn_readout(graph, key, feature_name="h"):
    """TF-GNN's structured_readout on a valid structure: broadcast along each readout edge
    set, then sum-pool to the readout nodes (one edge set: the broadcast values as is)."""
    names = [
        n for n in graph.edge_sets if n == f"_readout/{key}" or n.startswith(f"_readout/{key}/")
    ]
    n_out = int(graph.node_sets["_readout"].sizes.sum())
    pooled = None
    for n in names:
        adj = graph.edge_sets[n].adjacency
        src = adj.source_name
        piece = graph.edge_sets[src[8:]] if src.startswith("_shadow/") else graph.node_sets[src]
        vals = piece.features[feature_name][adj.source]
        if len(names) == 1:
            return vals
        out = np.zeros((n_out, *vals.shape[1:]), vals.dtype)
        np.add.at(out, adj.target, vals)
        pooled = out if pooled is None else pooled + out
    return pooled


# several readout edge sets per key, from node sets and from an edge set (shadow)
_STRUCTURES = {
    "one_set": {"_readout/seed": _es("a", [2, 0, 1], [0, 1, 2])},
    "two_node_sets": {
        "_readout/seed/x": _es("a", [1, 0], [0, 2]),
        "_readout/seed/y": _es("b", [1], [1]),
    },
    "nodes_and_shadow": {
        "_readout/seed/n": _es("a", [2], [1]),
        "_readout/seed/e": _es("_shadow/ab", [1, 0], [0, 2]),
    },
    "three_sets_two_keys": {
        "_readout/seed/1": _es("a", [0], [0]),
        "_readout/seed/2": _es("b", [0, 1], [1, 2]),
        "_readout/seed/3": _es("_shadow/ab", [], []),
        "_readout/other": _es("b", [1, 1, 0], [0, 1, 2]),
    },
}


@pytest.mark.parametrize("name", sorted(_STRUCTURES))
@pytest.mark.parametrize("validate", [True, False])
def test_structured_readout_several_edge_sets_matches_tfgnn(name, validate):
    g = _graph(_STRUCTURES[name])
    want = _tfgnn_readout(g, "seed")
    got = structured_readout(g, "seed", feature_name="h", validate=validate)
    assert got.dtype == want.dtype and got.shape == (3, 2)
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
    np.testing.assert_array_equal(
        StructuredReadout("seed", feature_name="h", validate=validate)(g), want
    )
    assert validate_graph_tensor_for_readout(g) is g
    out = structured_readout_into_feature(
        g, "seed", feature_name="h", new_feature_name="y", remove_input_feature=True
    )
    np.testing.assert_array_equal(out.node_sets["_readout"]["y"], want)
    sources = {
        g.edge_sets[n].adjacency.source_name for n in g.edge_sets if n.startswith("_readout/seed")
    }
    for s in sources:  # TF-GNN removes the feature from every set read from
        piece = out.edge_sets[s[8:]] if s.startswith("_shadow/") else out.node_sets[s]
        assert "h" not in piece.features
    assert "h" in g.node_sets["a"].features  # input unchanged


@pytest.mark.parametrize(
    "edge_sets, match",
    [
        # get_validated_edge_set_map_for_readout checks every readout edge set, any key
        (
            {"_readout/seed/1": _es("a", [0, 2], [0, 2]), "_readout/seed/2": _es("a", [1], [1])},
            "Duplicate readout edge set from nodes 'a'",
        ),
        (
            {
                "_readout/seed": _es("a", [0, 1, 2], [0, 1, 2]),
                "_readout/x": _es("a", [0], [0], "b"),
            },
            "Expected target node set '_readout' but found 'b'",
        ),
        (
            {"_readout/seed": _es("a", [0, 1, 2], [0, 1, 2]), "_readout/!x": _es("a", [0], [0])},
            "Malformed auxiliary edge set name: '_readout/!x'",
        ),
    ],
    ids=["duplicate_source", "other_key_bad_target", "other_key_malformed"],
)
def test_structured_readout_checks_the_whole_structure_as_tfgnn(edge_sets, match):
    g = _graph(edge_sets)
    for validate in (True, False):  # TF-GNN builds the edge-set map either way
        with pytest.raises(ValueError, match=match):
            structured_readout(g, "seed", feature_name="h", validate=validate)


def test_structured_readout_missing_key_is_a_key_error_as_tfgnn():
    g = _graph(_STRUCTURES["one_set"])
    with pytest.raises(KeyError, match="no edge set '_readout/zz'"):
        structured_readout(g, "zz", feature_name="h")
    with pytest.raises(ValueError, match="no edge set '_readout/zz'"):  # still a ValueError
        StructuredReadout("zz", feature_name="h")(g)


@pytest.mark.parametrize(
    "b_dtype, dim_b", [(np.int32, 2), (np.float64, 2), (np.float32, 3)], ids=["int", "f64", "shape"]
)
def test_structured_readout_conflicting_sources_raise(b_dtype, dim_b):
    # TF-GNN: ValueError "Conflicing feature dtypes"; NumPy would promote silently
    g = _graph(_STRUCTURES["two_node_sets"], b_dtype=b_dtype)
    if dim_b != 2:
        g = g.replace_features(node_sets={"b": {"h": np.zeros((2, dim_b), np.float32)}})
    with pytest.raises(ValueError, match=r"different dtypes or feature shapes.*'_readout/seed/y'"):
        structured_readout(g, "seed", feature_name="h")


def test_structured_readout_unsorted_targets_documented_difference():
    # TF-GNN's validate=True raises "Not strictly sorted by target"; arraygnn's readout
    # places each value at its readout node (docs/input_pipelines.md), the validator refuses
    g = _graph({"_readout/seed": _es("a", [0, 1, 2], [2, 0, 1])})
    h = g.node_sets["a"]["h"]
    np.testing.assert_array_equal(structured_readout(g, "seed", feature_name="h"), h[[1, 2, 0]])
    with pytest.raises(ValueError, match="Not strictly sorted by target"):
        validate_graph_tensor_for_readout(g)


def _graphs_with_seeds(seed, n):
    """Graphs of one component; some have no "a" node, so no seed (readout size 0)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        na = 0 if i % 3 == 1 else int(rng.integers(1, 4))
        g = GraphTensor.from_pieces(
            node_sets={
                "a": NodeSet.from_fields(
                    sizes=np.array([na]),
                    features={"h": rng.normal(size=(na, 2)).astype(np.float32)},
                ),
                "_readout": NodeSet.from_fields(sizes=np.array([min(na, 1)])),
            },
            edge_sets={"_readout/seed": _es("a", [0] * min(na, 1), [0] * min(na, 1))},
        )
        out.append(g)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_readout_of_merged_and_batched_graphs_with_seedless_components(seed):
    graphs = _graphs_with_seeds(seed, 7)
    want = np.concatenate([g.node_sets["a"]["h"][:1] for g in graphs])
    np.testing.assert_array_equal(
        structured_readout(merge_graphs(graphs), "seed", feature_name="h"), want
    )
    got = [structured_readout(b, "seed", feature_name="h") for b in batch_graphs(graphs, 3)]
    np.testing.assert_array_equal(np.concatenate(got), want)
    # the first-node readout needs a node in every component (TF-GNN's assert_positive)
    with pytest.raises(ValueError, match=r"components \[1, 4\] have no node"):
        readout_first_node(merge_graphs(graphs), "a", feature_name="h")
    with pytest.raises(ValueError, match="no node"):
        add_readout_from_first_node(merge_graphs(graphs), "first", node_set_name="a")


def test_readout_of_padded_graphs_and_loader_batches():
    # TF-GNN pads "_readout" and "_readout/seed" too: padding readout edges come from
    # padding "a" nodes (zero features), one per padding readout node
    graphs = _graphs_with_seeds(3, 6)
    c = SizeConstraints(
        total_num_components=4,
        total_num_nodes={"a": 12, "_readout": 5},
        total_num_edges={"_readout/seed": 5},
    )
    for batch, mask in GraphBatchLoader(graphs, 3, constraints=c):
        real = int(mask.sum())
        n_real = int(batch.node_sets["_readout"].sizes[:real].sum())
        got = structured_readout(batch, "seed", feature_name="h")
        assert got.shape == (5, 2) and got.dtype == np.float32
        np.testing.assert_array_equal(got[n_real:], 0)
        assert validate_graph_tensor_for_readout(batch) is batch
    padded, mask = pad_to_total_sizes(merge_graphs(graphs[:2]), c)
    want = np.concatenate([g.node_sets["a"]["h"][:1] for g in graphs[:2]])
    np.testing.assert_array_equal(
        structured_readout(padded, "seed", feature_name="h")[: len(want)], want
    )


def test_add_readout_from_first_node_layer_equals_readout_first_node():
    g = merge_graphs([g for g in _graphs_with_seeds(5, 6) if int(g.node_sets["a"].sizes[0])])
    base = GraphTensor.from_pieces(node_sets={"a": g.node_sets["a"]})
    out = AddReadoutFromFirstNode("first", node_set_name="a", readout_node_set="_readout:t")(base)
    np.testing.assert_array_equal(
        structured_readout(out, "first", feature_name="h", readout_node_set="_readout:t"),
        ReadoutFirstNode(node_set_name="a", feature_name="h")(base),
    )


def test_layer_locations_and_defaults_as_tfgnn():
    g = _graph(_STRUCTURES["one_set"]).replace_features(
        node_sets={"a": {"hidden_state": np.arange(3.0)}}
    )
    assert ReadoutFirstNode(node_set_name="a").location == {"node_set_name": "a"}
    assert ReadoutFirstNode().location == {} and ReadoutFirstNode().feature_name is None
    assert Readout(from_context=True).location == {"from_context": True}
    np.testing.assert_array_equal(ReadoutFirstNode()(g, node_set_name="a"), [0.0])
    np.testing.assert_array_equal(StructuredReadout("seed")(g), [2.0, 0.0, 1.0])
    np.testing.assert_array_equal(Readout(node_set_name="a")(g), np.arange(3.0))
    with pytest.raises(ValueError, match="at most one"):
        Readout(node_set_name="a")(g, edge_set_name="ab", node_set_name="a")
    with pytest.raises(ValueError, match="initialized with"):
        Readout(node_set_name="a")(g, edge_set_name="ab")
    with pytest.raises(ValueError, match="initialized with node_set_name='a'"):
        ReadoutFirstNode(node_set_name="a")(g, node_set_name="b")


@pytest.mark.parametrize("name, stored", [(None, False), ("", False), ("m", True)])
@pytest.mark.parametrize("return_mask", [True, False])
def test_pad_to_total_sizes_layer_mask_output(name, stored, return_mask):
    g = merge_graphs(_graphs_with_seeds(0, 2))
    c = SizeConstraints(
        total_num_components=3,
        total_num_nodes={"a": 9, "_readout": 3},
        total_num_edges={"_readout/seed": 3},
    )
    out = PadToTotalSizes(c, return_mask=return_mask, mask_output_feature_name=name)(g)
    padded, mask = out if return_mask else (out, None)
    assert isinstance(padded, GraphTensor)
    assert (mask is not None) == return_mask
    want = np.array([True, True, False])
    if return_mask:
        np.testing.assert_array_equal(mask, want)
    # TF-GNN: `if self._mask_output_feature_name:` -- "" stores nothing, as None
    assert sorted(padded.context.features) == (["m"] if stored else [])
    if stored:
        np.testing.assert_array_equal(padded.context["m"], want)
