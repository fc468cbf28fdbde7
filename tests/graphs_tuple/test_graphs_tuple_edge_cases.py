"""Edge cases of the jraph face found in review: inputs holding no graphs, ids without
senders, narrow id dtypes with self edges, bool data, keyword normalisers, uint64 counts,
zero-node graphs."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from arraygnn.graphs_tuple import (
    GAT,
    GraphConvolution,
    GraphNetwork,
    GraphsTuple,
    batch,
    dynamically_batch,
    partition_softmax,
    segment_max,
    segment_mean,
    segment_softmax,
    segment_sum,
    unbatch,
    zero_out_padding,
)

E0 = np.zeros(0, np.int64)


def test_batch_with_inputs_holding_no_graphs_matches_jraph():
    g0 = GraphsTuple(None, None, E0, E0, None, E0, E0)
    g1 = GraphsTuple(
        None, None, np.array([1]), np.array([2]), None, np.array([2, 3]), np.array([0, 1])
    )
    out = batch([g0, g1, g0, g1])
    assert out.senders.tolist() == [2, 7] and out.receivers.tolist() == [1, 6]
    jraph = pytest.importorskip("jraph")
    theirs = jraph.batch_np([jraph.GraphsTuple(*g) for g in (g0, g1, g0, g1)])
    assert np.asarray(theirs.senders).tolist() == out.senders.tolist()


def test_a_graph_without_ids_must_have_no_edges():
    no_ids = GraphsTuple(None, None, None, None, None, np.array([2]), np.array([2]))
    with_ids = GraphsTuple(
        None, None, np.array([1]), np.array([0]), None, np.array([2]), np.array([1])
    )
    with pytest.raises(ValueError, match="graph 0: senders / receivers are None but sum"):
        batch([no_ids, with_ids])
    with pytest.raises(ValueError, match="senders / receivers are None but sum"):
        list(dynamically_batch([no_ids, with_ids], 10, 10, 4))


@pytest.mark.parametrize("dtype,n", [(np.uint8, 300), (np.int8, 200)])
def test_self_edges_widen_narrow_ids(dtype, n):
    rng = np.random.default_rng(0)
    s = rng.integers(0, 100, 50).astype(dtype)
    r = rng.integers(0, 100, 50).astype(dtype)
    x = rng.normal(size=(n, 3))
    g = GraphsTuple(x, None, r, s, None, np.array([n]), np.array([50]))
    wide = GraphsTuple(
        x, None, r.astype(np.int64), s.astype(np.int64), None, np.array([n]), np.array([50])
    )
    conv = GraphConvolution(lambda h: h, add_self_edges=True)
    np.testing.assert_allclose(conv(g).nodes, conv(wide).nodes, rtol=1e-12)


def test_bool_data_max_min_only():
    flags, ids = np.ones(256, bool), np.zeros(256, np.int64)
    assert segment_max(flags, ids, 1).tolist() == [True]
    with pytest.raises(TypeError, match="segment_sum: data is bool"):
        segment_sum(flags, ids, 1)
    with pytest.raises(TypeError, match="segment_mean: data is bool"):
        segment_mean(flags, ids, 1)


def test_attention_normaliser_is_called_with_keywords():
    g = GraphsTuple(
        np.ones((3, 2)),
        np.ones((2, 2)),
        np.array([2, 2]),
        np.array([0, 1]),
        None,
        np.array([3]),
        np.array([2]),
    )
    net = GraphNetwork(
        None,
        lambda n, s, r, u: n + r,
        attention_logit_fn=lambda e, s, r, u: e[:, :1],
        attention_normalize_fn=functools.partial(segment_softmax, num_segments=3),
        attention_reduce_fn=lambda e, w: e * w,
    )
    assert net(g).nodes.tolist() == [[1.0, 1.0], [1.0, 1.0], [2.0, 2.0]]


def test_uint64_counts():
    g = GraphsTuple(
        np.ones((3, 1)),
        None,
        np.array([1, 2], np.uint64),
        np.array([0, 2], np.uint64),
        np.ones((2, 1)),
        np.array([2, 1], np.uint64),
        np.array([1, 1], np.uint64),
    )
    assert [p.n_node.tolist() for p in unbatch(g)] == [[2], [1]]
    out = GraphNetwork(None, None, lambda n, e, u: n)(g)
    assert out.globals.tolist() == [[2.0], [1.0]]
    np.testing.assert_allclose(
        partition_softmax(np.zeros(3), np.array([2, 1], np.uint64)), [0.5, 0.5, 1.0]
    )


def test_gat_default_update_on_a_graph_without_nodes():
    g = GraphsTuple(np.zeros((0, 2, 3)), None, E0, E0, None, np.array([0]), np.array([0]))
    out = GAT(lambda n: n, lambda s, r, e: s[..., :1])(g)
    assert out.nodes.shape == (0, 6)


def test_zero_out_padding_checks_the_rows():
    g = GraphsTuple(np.ones(3), None, None, None, None, np.array([1, 1]), np.array([0, 0]))
    with pytest.raises(ValueError, match="zero_out_padding: nodes has shape"):
        zero_out_padding(g)


def test_feature_trees_are_checked_and_named_by_path():
    from collections import namedtuple

    Pair = namedtuple("Pair", "a b")

    def graph(nodes):
        return GraphsTuple(
            nodes, None, np.array([1]), np.array([0]), None, np.array([2]), np.array([1])
        )

    good = {"h": np.ones((2, 3)), "m": [np.zeros(2), Pair(np.ones(2), np.ones((2, 1)))]}
    out = batch([graph(good), graph(good)])
    assert out.nodes["h"].shape == (4, 3) and isinstance(out.nodes["m"][1], Pair)
    assert out.nodes["m"][1].b.shape == (4, 1) and list(out.nodes) == ["h", "m"]
    short = {"h": np.ones((2, 3)), "m": [np.zeros(2)]}
    with pytest.raises(ValueError, match=r"graph 1 has nodes\['m'\] of another structure"):
        batch([graph(good), graph(short)])
    rows = {"h": np.ones((3, 3)), "m": good["m"]}
    with pytest.raises(ValueError, match=r"graph 1: nodes\['h'\] has shape \(3, 3\); its first"):
        batch([graph(good), graph(rows)])
    keys = {"h": np.ones((2, 3)), "x": good["m"]}
    with pytest.raises(ValueError, match="graph 1 has nodes of another structure"):
        batch([graph(good), graph(keys)])
    with pytest.raises(TypeError, match=r"nodes\['h'\] must be a NumPy or CuPy array"):
        batch([graph({"h": 3}), graph({"h": 3})])
