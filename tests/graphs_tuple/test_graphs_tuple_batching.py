"""Batching and padding of GraphsTuples: round trips on random graphs, jraph parity, errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import (
    GraphsTuple,
    batch,
    batch_np,
    dynamically_batch,
    get_edge_padding_mask,
    get_fully_connected_graph,
    get_graph_padding_mask,
    get_node_padding_mask,
    pad_with_graphs,
    unbatch,
    unbatch_np,
    unpad_with_graphs,
    with_zero_out_padding_outputs,
    zero_out_padding,
)
from tests.graphs_tuple._gtup_cases import (
    assert_graphs_equal,
    assert_tree_equal,
    random_graph,
    single_graphs,
)

INDEX_DTYPES = [np.int32, np.int64]


def _jraph():
    return pytest.importorskip("jraph")


def _to_numpy(tree):
    from arraygnn.graphs_tuple._tree import tree_map

    return tree_map(np.asarray, tree)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("seed", range(6))
def test_batch_unbatch_round_trip(seed, index_dtype):
    rng = np.random.default_rng(seed)
    graphs = single_graphs(
        rng, int(rng.integers(1, 7)), index_dtype=index_dtype, nested=bool(seed % 2)
    )
    before = copy.deepcopy(graphs)
    batched = batch(graphs)
    assert batched.n_node.tolist() == [int(g.n_node[0]) for g in graphs]
    back = unbatch(batched)
    assert len(back) == len(graphs)
    for original, again in zip(graphs, back):
        assert_graphs_equal(original, again)
        assert again.senders.dtype == original.senders.dtype
    for original, kept in zip(graphs, before):  # inputs untouched
        assert_graphs_equal(original, kept)


@pytest.mark.parametrize("seed", range(6))
def test_batch_of_multi_graph_tuples_matches_jraph(seed):
    jraph = _jraph()
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng, nested=bool(seed % 2)) for _ in range(4)]
    graphs = [g for g in graphs if g.n_node.shape[0]] or [random_graph(rng, num_graphs=2)]
    ours = batch(graphs)
    theirs = jraph.batch_np([jraph.GraphsTuple(*g) for g in graphs])
    assert_graphs_equal(ours, _to_numpy(theirs))
    for a, b in zip(unbatch(ours), jraph.unbatch_np(theirs)):
        assert_graphs_equal(a, _to_numpy(b))


def test_batch_drops_tuples_without_graphs_and_keeps_none_fields():
    empty = GraphsTuple(None, None, None, None, None, np.zeros(0, np.int64), np.zeros(0, np.int64))
    one = GraphsTuple(None, None, np.array([0]), np.array([1]), None, np.array([2]), np.array([1]))
    out = batch([empty, one, empty, one])
    assert out.n_node.tolist() == [2, 2]
    assert out.senders.tolist() == [1, 3] and out.receivers.tolist() == [0, 2]
    assert out.nodes is None and out.edges is None and out.globals is None
    assert batch_np is batch and unbatch_np is unbatch


def test_batch_widens_ids_that_would_overflow():
    g = GraphsTuple(
        None,
        None,
        np.array([99], np.int8),
        np.array([0], np.int8),
        None,
        np.array([100], np.int8),
        np.array([1], np.int8),
    )
    out = batch([g, g])
    assert out.senders.dtype == np.int64 and out.senders.tolist() == [0, 100]
    assert out.receivers.tolist() == [99, 199]
    padded = pad_with_graphs(out, 300, 4, 3)
    # the dtype follows the target (300 nodes overflow int8), not the padding count
    assert padded.n_node.tolist() == [100, 100, 100] and padded.n_node.dtype == np.int64
    assert padded.n_edge.tolist() == [1, 1, 2] and padded.n_edge.dtype == np.int8
    padded = pad_with_graphs(out, 400, 4, 3)
    assert padded.n_node.dtype == np.int64 and padded.n_node.tolist() == [100, 100, 200]


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("seed", range(8))
def test_padding_matches_jraph(seed, index_dtype):
    jraph = _jraph()
    rng = np.random.default_rng(seed)
    graph = batch(single_graphs(rng, int(rng.integers(1, 5)), index_dtype=index_dtype))
    n_node = int(graph.n_node.sum()) + int(rng.integers(1, 4))
    n_edge = int(graph.n_edge.sum()) + int(rng.integers(0, 4))
    n_graph = int(graph.n_node.shape[0]) + int(rng.integers(1, 4))
    ours = pad_with_graphs(graph, n_node, n_edge, n_graph)
    theirs = jraph.pad_with_graphs(jraph.GraphsTuple(*graph), n_node, n_edge, n_graph)
    assert_graphs_equal(ours, _to_numpy(theirs))
    for fn in ("get_node_padding_mask", "get_edge_padding_mask", "get_graph_padding_mask"):
        np.testing.assert_array_equal(getattr(gt, fn)(ours), np.asarray(getattr(jraph, fn)(theirs)))
    for fn in ("graphs", "nodes", "edges"):
        name = f"get_number_of_padding_with_graphs_{fn}"
        assert getattr(gt, name)(ours) == int(getattr(jraph, name)(theirs))
    assert_graphs_equal(unpad_with_graphs(ours), graph)
    assert_graphs_equal(unpad_with_graphs(ours), _to_numpy(jraph.unpad_with_graphs(theirs)))


def test_padding_edges_join_the_first_padding_node():
    g = GraphsTuple(
        np.ones((3, 1)),
        np.ones((1, 2)),
        np.array([2]),
        np.array([0]),
        np.ones((1, 1)),
        np.array([3]),
        np.array([1]),
    )
    p = pad_with_graphs(g, n_node=6, n_edge=4, n_graph=4)
    assert p.senders.tolist() == [0, 3, 3, 3] and p.receivers.tolist() == [2, 3, 3, 3]
    assert p.n_node.tolist() == [3, 3, 0, 0] and p.n_edge.tolist() == [1, 3, 0, 0]
    assert p.nodes[3:].sum() == 0 and p.edges[1:].sum() == 0 and p.globals[1:].sum() == 0
    assert get_node_padding_mask(p).tolist() == [True] * 3 + [False] * 3
    assert get_graph_padding_mask(p).tolist() == [True, False, False, False]
    assert get_edge_padding_mask(p).tolist() == [True, False, False, False]


def test_padding_errors():
    g = GraphsTuple(
        np.ones(3), None, np.array([2]), np.array([0]), None, np.array([3]), np.array([1])
    )
    with pytest.raises(ValueError, match="n_graph is 1"):
        pad_with_graphs(g, 5, 1, 1)
    with pytest.raises(RuntimeError, match="too large for the padding"):
        pad_with_graphs(g, 3, 1, 2)  # no room for a padding node
    with pytest.raises(RuntimeError, match="n_edge 1 of 0"):
        pad_with_graphs(g, 5, 0, 2)
    with pytest.raises(ValueError, match="n_node must be a whole number"):
        pad_with_graphs(g, 5.5, 1, 2)  # 5.0 is taken, as jraph
    with pytest.raises(TypeError, match="n_node must be an int"):
        pad_with_graphs(g, "5", 1, 2)


def test_zero_out_padding_zeroes_padding_rows_including_nan():
    g = GraphsTuple(
        {"a": np.ones((2, 2))},
        np.ones(1),
        np.array([1]),
        np.array([0]),
        np.ones((1, 3)),
        np.array([2]),
        np.array([1]),
    )
    p = pad_with_graphs(g, 4, 3, 3)
    p = p._replace(nodes={"a": np.where((np.arange(4) >= 2)[:, None], np.nan, p.nodes["a"])})
    z = zero_out_padding(p)
    assert z.nodes["a"].tolist() == [[1, 1], [1, 1], [0, 0], [0, 0]]
    assert z.edges.tolist() == [1, 0, 0] and z.globals.sum() == 3
    wrapped = with_zero_out_padding_outputs(lambda x: x._replace(edges=x.edges + 5))
    assert wrapped(p).edges.tolist() == [6, 0, 0]


def test_zero_out_padding_matches_jraphs_product_on_finite_values():
    # jraph's own zero_out_padding calls jax.tree_map, gone from current JAX: its formula
    # (mask * x) is written out here
    rng = np.random.default_rng(3)
    p = pad_with_graphs(batch(single_graphs(rng, 3)), 30, 40, 6)
    p = p._replace(nodes=p.nodes + 1, edges=p.edges + 1, globals=p.globals + 1)
    z = zero_out_padding(p)
    np.testing.assert_array_equal(z.nodes, p.nodes * get_node_padding_mask(p)[:, None])
    np.testing.assert_array_equal(z.edges, p.edges * get_edge_padding_mask(p)[:, None])
    np.testing.assert_array_equal(z.globals, p.globals * get_graph_padding_mask(p)[:, None])
    assert z.nodes.dtype == p.nodes.dtype


@pytest.mark.parametrize(
    "n,g,loops", [(3, 2, True), (3, 2, False), (1, 3, False), (4, 0, True), (0, 2, True)]
)
def test_fully_connected_graph_matches_jraph(n, g, loops):
    jraph = _jraph()
    ours = get_fully_connected_graph(n, g, add_self_edges=loops)
    theirs = jraph.get_fully_connected_graph(n, g, add_self_edges=loops)
    assert ours.senders.tolist() == np.asarray(theirs.senders).tolist()
    assert ours.receivers.tolist() == np.asarray(theirs.receivers).tolist()
    assert ours.n_node.tolist() == np.asarray(theirs.n_node).tolist()
    if g:  # jraph gives n_edge [0] for no graphs; here one entry per graph: none
        assert ours.n_edge.tolist() == np.asarray(theirs.n_edge).tolist()
    else:
        assert ours.n_edge.tolist() == []


def test_fully_connected_graph_feature_checks():
    with pytest.raises(ValueError, match="node_features have 5 rows"):
        get_fully_connected_graph(2, 2, node_features=np.ones(5))
    with pytest.raises(ValueError, match="global_features have 1 rows"):
        get_fully_connected_graph(2, 2, global_features=np.ones(1))


@pytest.mark.parametrize("seed", range(4))
def test_dynamically_batch_matches_jraph(seed):
    jraph = _jraph()
    rng = np.random.default_rng(seed)
    graphs = single_graphs(rng, 12)
    sizes = (12, 16, 4)
    ours = list(dynamically_batch(iter(graphs), *sizes))
    theirs = list(jraph.dynamically_batch(iter([jraph.GraphsTuple(*g) for g in graphs]), *sizes))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert_graphs_equal(a, _to_numpy(b))
    # every real graph comes back, in order
    real = [u for b in ours for u in unbatch(unpad_with_graphs(b))]
    for a, b in zip(real, graphs):
        assert_graphs_equal(a, b)


def test_dynamically_batch_too_large_graph():
    small = GraphsTuple(np.ones(1), None, None, None, None, np.array([1]), np.array([0]))
    big = GraphsTuple(np.ones(9), None, None, None, None, np.array([9]), np.array([0]))
    gen = dynamically_batch([small, big], 5, 2, 3)
    assert next(gen).n_node.tolist() == [1, 4, 0]
    with pytest.raises(RuntimeError, match="bigger than the batch"):
        next(gen)
    with pytest.raises(ValueError, match="at least 2"):
        next(dynamically_batch([small], 5, 2, 1))


def test_batch_errors_name_the_graph_and_field():
    good = GraphsTuple(
        np.ones(2), None, np.array([1]), np.array([0]), None, np.array([2]), np.array([1])
    )
    with pytest.raises(ValueError, match="needs at least one"):
        batch([])
    bad_id = good._replace(receivers=np.array([2]))
    with pytest.raises(ValueError, match="graph 1's receivers has entry 2, out of range for its 2"):
        batch([good, bad_id])
    bad_rows = good._replace(nodes=np.ones(3))
    with pytest.raises(ValueError, match="graph 2: nodes has shape"):
        batch([good, good, bad_rows])
    with pytest.raises(ValueError, match="graph 1 has nodes of another structure"):
        batch([good, good._replace(nodes={"a": np.ones(2)})])
    with pytest.raises(ValueError, match="graph 1 has no nodes \\(None\\) but graph 0 has"):
        batch([good, good._replace(nodes=None)])
    with pytest.raises(ValueError, match="graph 1 has nodes but graph 0 has none"):
        batch([good._replace(nodes=None), good])
    with pytest.raises(ValueError, match="senders / receivers are None but sum"):
        batch([good._replace(senders=None, receivers=None)])
    with pytest.raises(ValueError, match="both be arrays or both None"):
        batch([good._replace(senders=None)])
    with pytest.raises(TypeError, match="n_node must be an integer array"):
        batch([good._replace(n_node=np.array([2.0]))])
    with pytest.raises(TypeError, match="expected a GraphsTuple"):
        batch([(1, 2)])
    with pytest.raises(ValueError, match="non-negative"):
        batch(
            [
                good._replace(
                    n_node=np.array([-1]),
                    nodes=None,
                    senders=None,
                    receivers=None,
                    n_edge=np.array([0]),
                )
            ]
        )


def test_unbatch_checks_ids():
    g = GraphsTuple(None, None, np.array([5]), np.array([0]), None, np.array([2]), np.array([1]))
    with pytest.raises(ValueError, match="unbatch: receivers has entry 5"):
        unbatch(g)


def test_unbatch_views_share_feature_memory():
    rng = np.random.default_rng(0)
    b = batch(single_graphs(rng, 3))
    parts = unbatch(b)
    assert all(np.shares_memory(p.nodes, b.nodes) for p in parts if p.nodes.size)
    assert_tree_equal(parts[0].globals, b.globals[:1])
