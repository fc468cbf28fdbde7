"""A DGL user's graph-classification pipeline on arraygnn's DGL face (session 10).

DGL's "Training a GNN for Graph Classification" tutorial batches small graphs with
``dgl.batch`` (through ``GraphDataLoader``), reads them out per graph and splits them back.
Every expected value comes from DGL's code or docstrings (dmlc/dgl: python/dgl/batch.py
``batch`` / ``unbatch`` / ``slice_batch``, python/dgl/readout.py, python/dgl/heterograph.py
``set_batch_num_nodes``, python/dgl/dataloading/dataloader.py ``GraphCollator.collate``,
python/dgl/transforms/functional.py ``add_self_loop`` (discards the batch information, as
its Notes say), python/dgl/subgraph.py ``node_subgraph`` (likewise)).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    NID,
    GraphDataLoader,
    add_self_loop,
    batch,
    broadcast_edges,
    broadcast_nodes,
    graph,
    max_nodes,
    mean_nodes,
    node_subgraph,
    readout_edges,
    readout_nodes,
    slice_batch,
    softmax_edges,
    softmax_nodes,
    sum_nodes,
    topk_edges,
    topk_nodes,
    unbatch,
)

E0 = np.array([], dtype=np.int64)


def _three() -> list:
    """A path of 3 nodes with 2 edges, a graph with no nodes, 2 nodes without edges."""
    g1 = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g1.ndata["h"] = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g1.edata["w"] = np.array([1.0, 2.0])
    g2 = graph((E0, E0), num_nodes=0)
    g2.ndata["h"] = np.zeros((0, 2))
    g3 = graph((E0, E0), num_nodes=2)
    g3.ndata["h"] = np.array([[-1.0, -2.0], [0.0, 7.0]])  # no edata: it has no edges
    return [g1, g2, g3]


# ---------------------------------------------------------------- batch / unbatch
def test_batch_with_empty_graphs_counts_ids_features_and_unbatch():
    graphs = _three()
    bg = batch(graphs)
    assert bg.batch_size == 3
    assert bg.batch_num_nodes().tolist() == [3, 0, 2]
    assert bg.batch_num_edges().tolist() == [2, 0, 0]
    assert bg.batch_num_nodes().dtype == bg.idtype
    assert bg.num_nodes() == 5 and bg.num_edges() == 2
    np.testing.assert_array_equal(bg.ndata["h"][3:], graphs[2].ndata["h"])
    assert bg.edata["w"].tolist() == [1.0, 2.0]
    parts = unbatch(bg)
    assert [(p.num_nodes(), p.num_edges()) for p in parts] == [(3, 2), (0, 0), (2, 0)]
    np.testing.assert_array_equal(parts[0].edges()[1], [1, 2])
    np.testing.assert_array_equal(parts[2].ndata["h"], graphs[2].ndata["h"])
    assert parts[1].ndata["h"].shape == (0, 2)
    # a batched batch adds its counts (DGL: torch.cat of the batch_num_nodes)
    assert batch([bg, graphs[0]]).batch_num_nodes().tolist() == [3, 0, 2, 3]


def test_batch_needs_features_on_graphs_with_rows():
    g1, _, g3 = _three()
    del g3.ndata["h"]
    with pytest.raises(ValueError, match="'h'"):
        batch([g1, g3])
    assert "h" not in batch([g1, g3], ndata=None).ndata


def test_set_batch_num_nodes_then_edges_may_change_the_batch_size():
    # DGL's docstring protocol: set_batch_num_nodes, then set_batch_num_edges; a batched
    # graph regrouped into fewer graphs passes through a state of mismatched sizes
    g1 = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g2 = graph((np.array([0]), np.array([1])), num_nodes=2)
    bg = batch([g1, g2, g2])
    bg.set_batch_num_nodes(np.array([5, 2]))
    bg.set_batch_num_edges(np.array([3, 1]))
    assert bg.batch_size == 2
    assert bg.batch_num_edges().tolist() == [3, 1]
    assert [p.num_edges() for p in unbatch(bg)] == [3, 1]
    with pytest.raises(ValueError, match="add up to"):
        bg.set_batch_num_nodes(np.array([5, 1]))


def test_slice_batch_dgl_docstring_and_store_ids():
    # DGL: g1 = dgl.graph(([0, 1], [1, 2])); g2 = dgl.graph(([0, 1], [1, 0])); ...
    # dgl.slice_batch(bg, 1) -> the graph of 3 nodes and 1 edge (g3 = ([0], [2]))
    gs = [
        graph((np.array([0, 1]), np.array([1, 2]))),
        graph((np.array([0]), np.array([2]))),
        graph((E0, E0), num_nodes=0),
    ]
    for i, g in enumerate(gs):
        g.ndata["x"] = np.full((g.num_nodes(), 1), float(i))
        g.edata["e"] = np.full((g.num_edges(),), 10.0 + i)
    bg = batch(gs)
    sg = slice_batch(bg, 1)
    assert (sg.num_nodes(), sg.num_edges()) == (3, 1)
    assert [a.tolist() for a in sg.edges()] == [[0], [2]]
    assert sg.ndata["x"].ravel().tolist() == [1.0] * 3 and sg.edata["e"].tolist() == [11.0]
    assert NID not in sg.ndata and sg.batch_size == 1
    sg = slice_batch(bg, 1, store_ids=True)
    assert sg.ndata[NID].tolist() == [3, 4, 5] and sg.edata[EID].tolist() == [2]
    assert sg.ndata[NID].dtype == bg.idtype
    empty = slice_batch(bg, 2)
    assert (empty.num_nodes(), empty.num_edges()) == (0, 0)
    with pytest.raises(ValueError, match="gid"):
        slice_batch(bg, 3)


# ---------------------------------------------------------------- GraphDataLoader
def test_graph_data_loader_collates_graph_label_pairs():
    graphs = _three()
    dataset = [(g, i % 2) for i, g in enumerate(graphs)] + [(graphs[0], 1)]
    loader = GraphDataLoader(dataset, batch_size=3, drop_last=False)
    assert len(loader) == 2
    batches = list(loader)
    bg, labels = batches[0]  # DGL's collate: a list [batched graph, stacked labels]
    assert isinstance(batches[0], list)
    assert bg.batch_size == 3 and bg.batch_num_nodes().tolist() == [3, 0, 2]
    assert labels.tolist() == [0, 1, 0] and labels.dtype == np.int64
    bg2, labels2 = batches[1]
    assert bg2.batch_size == 1 and labels2.tolist() == [1]
    # arrays stack, dicts collate per key, floats become float64
    items = [{"g": g, "y": np.array([1.0, 2.0]), "w": 0.5} for g in graphs[:2]]
    out = next(iter(GraphDataLoader(items, batch_size=2)))
    assert out["g"].batch_size == 2 and out["y"].shape == (2, 2)
    assert out["w"].dtype == np.float64
    shuffled = [
        labels.tolist()
        for _, labels in GraphDataLoader(dataset, batch_size=4, shuffle=True, seed=0)
    ]
    assert sorted(shuffled[0]) == [0, 0, 1, 1]
    assert len(GraphDataLoader(dataset, batch_size=3, drop_last=True)) == 1
    custom = GraphDataLoader(dataset, collate_fn=len, batch_size=2)
    assert list(custom) == [2, 2]
    with pytest.raises(TypeError, match="collate"):
        next(iter(GraphDataLoader([object(), object()], batch_size=2)))


# ---------------------------------------------------------------- transforms on a batch
def test_add_self_loop_on_batched_graph_discards_batch_info_as_dgl_then_set_back():
    bg = batch(_three())
    lg = add_self_loop(bg)
    assert lg.batch_size == 1 and lg.num_edges() == 2 + 5  # DGL's Notes: batch info dropped
    assert bg.batch_size == 3  # the input keeps its own
    lg.set_batch_num_nodes(bg.batch_num_nodes())
    lg.set_batch_num_edges(bg.batch_num_edges() + bg.batch_num_nodes())
    assert lg.batch_size == 3
    lg.ndata["deg"] = lg.in_degrees().astype(np.float64)
    assert sum_nodes(lg, "deg").tolist() == [5.0, 0.0, 2.0]


def test_node_subgraph_of_batched_graph_then_set_batch_counts():
    bg = batch(_three())
    sg = node_subgraph(bg, np.array([1, 2, 3, 4]))
    assert sg.batch_size == 1  # DGL: node_subgraph discards the batch information
    assert sg.ndata[NID].tolist() == [1, 2, 3, 4] and sg.edata[EID].tolist() == [1]
    sg.set_batch_num_nodes(np.array([2, 0, 2]))
    sg.set_batch_num_edges(np.array([1, 0, 0]))
    parts = unbatch(sg)
    assert [(p.num_nodes(), p.num_edges()) for p in parts] == [(2, 1), (0, 0), (2, 0)]
    assert mean_nodes(sg, "h").tolist() == [[4.0, 5.0], [0.0, 0.0], [-0.5, 2.5]]


# ---------------------------------------------------------------- readouts
def test_readout_nodes_dgl_docstring():
    g1 = graph((np.array([0, 1]), np.array([1, 0])))
    g1.ndata["h"] = np.array([1.0, 2.0])
    g2 = graph((np.array([0, 1]), np.array([1, 2])))
    g2.ndata["h"] = np.array([1.0, 2.0, 3.0])
    assert readout_nodes(g1, "h").tolist() == [3.0]
    bg = batch([g1, g2])
    assert readout_nodes(bg, "h").tolist() == [3.0, 6.0]
    bg.ndata["w"] = np.array([0.1, 0.2, 0.1, 0.5, 0.2])
    np.testing.assert_allclose(readout_nodes(bg, "h", "w"), [0.5, 1.7])
    assert readout_nodes(bg, "h", op="max").tolist() == [2.0, 3.0]


def test_readouts_on_batch_with_empty_graphs_match_numpy():
    bg = batch(_three())
    h, ptr = bg.ndata["h"], [0, 3, 3, 5]
    bg.ndata["a"] = np.array([1.0, 0.5, 2.0, 3.0, -1.0])[:, None]
    for op, f in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)):
        want = [f(h[a:b], axis=0) if b > a else np.zeros(2) for a, b in zip(ptr, ptr[1:])]
        np.testing.assert_allclose(readout_nodes(bg, "h", op=op), want)
        hw = h * bg.ndata["a"]
        want = [f(hw[a:b], axis=0) if b > a else np.zeros(2) for a, b in zip(ptr, ptr[1:])]
        np.testing.assert_allclose(readout_nodes(bg, "h", "a", op=op), want)
    assert max_nodes(bg, "h").tolist() == [[5.0, 6.0], [0.0, 0.0], [0.0, 7.0]]
    for op, want in (("sum", 3.0), ("mean", 1.5), ("max", 2.0), ("min", 1.0)):
        assert readout_edges(bg, "w", op=op).tolist() == [want, 0.0, 0.0]
    sm = softmax_nodes(bg, "h")
    e = np.exp(h - h.max(axis=0))
    want = np.concatenate([e[:3] / e[:3].sum(0), e[3:] / e[3:].sum(0)])
    np.testing.assert_allclose(sm, want)
    assert broadcast_nodes(bg, np.array([[1.0], [2.0], [3.0]])).ravel().tolist() == [
        1.0, 1.0, 1.0, 3.0, 3.0
    ]  # fmt: skip
    assert broadcast_edges(bg, np.array([1.0, 2.0, 3.0])).tolist() == [1.0, 1.0]


def test_softmax_edges_and_broadcast_dgl_docstrings():
    g1 = graph((np.array([0, 1]), np.array([1, 0])))
    g1.edata["h"] = np.array([1.0, 1.0])
    g2 = graph((np.array([0, 1, 0]), np.array([1, 2, 2])))
    g2.edata["h"] = np.array([1.0, 1.0, 1.0])
    bg = batch([g1, g2])
    np.testing.assert_allclose(softmax_edges(bg, "h"), [0.5, 0.5, 1 / 3, 1 / 3, 1 / 3])
    feat = np.arange(10.0).reshape(2, 5)
    np.testing.assert_array_equal(broadcast_edges(bg, feat), feat[[0, 0, 1, 1, 1]])
    # one graph with a feature of shape (*): DGL unsqueezes it (with a deprecation warning)
    with pytest.warns(UserWarning, match=r"\(1, \*\)"):
        out = broadcast_nodes(g1, feat[0])
    np.testing.assert_array_equal(out, feat[[0, 0]])
    with pytest.raises(ValueError, match="one row per graph"):
        broadcast_nodes(bg, feat[:1])


# DGL's topk_nodes / topk_edges docstring: g1 4 nodes, g2 5 nodes, h of 5 features
_H1 = np.array(
    [
        [0.0297, 0.8307, 0.9140, 0.6702, 0.3346],
        [0.5901, 0.3030, 0.9280, 0.6893, 0.7997],
        [0.0880, 0.6515, 0.4451, 0.7507, 0.5297],
        [0.5171, 0.6379, 0.2695, 0.8954, 0.5197],
    ]
)
_H2 = np.array(
    [
        [0.3168, 0.3174, 0.5303, 0.0804, 0.3808],
        [0.1323, 0.2766, 0.4318, 0.6114, 0.1458],
        [0.1752, 0.9105, 0.5692, 0.8489, 0.0539],
        [0.1931, 0.4954, 0.3455, 0.3934, 0.0857],
        [0.5065, 0.5182, 0.5418, 0.1520, 0.3872],
    ]
)


def test_topk_nodes_and_edges_dgl_docstring():
    g1 = graph((np.array([0, 1]), np.array([2, 3])))
    g2 = graph((np.array([0, 1, 2]), np.array([2, 3, 4])))
    g1.ndata["h"], g2.ndata["h"] = _H1, _H2
    bg = batch([g1, g2], ndata=["h"])
    values, idx = topk_nodes(bg, "h", 3)
    assert idx.tolist() == [
        [[1, 0, 1, 3, 1], [3, 2, 0, 2, 2], [2, 3, 2, 1, 3]],
        [[4, 2, 2, 2, 4], [0, 4, 4, 1, 0], [3, 3, 0, 3, 1]],
    ]
    np.testing.assert_array_equal(values[0], np.take_along_axis(_H1, idx[0], axis=0))
    np.testing.assert_array_equal(values[1], np.take_along_axis(_H2, idx[1], axis=0))
    values, idx = topk_nodes(bg, "h", 3, sortby=-1)
    assert idx.tolist() == [[1, 2, 3], [4, 0, 1]]
    np.testing.assert_array_equal(values[0], _H1[[1, 2, 3]])
    np.testing.assert_array_equal(values[1], _H2[[4, 0, 1]])
    values, idx = topk_nodes(g1, "h", 3)
    assert values.shape == (1, 3, 5) and idx[0, 0].tolist() == [1, 0, 1, 3, 1]
    # edges: the same numbers on the edges of two cycles
    c1 = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])))
    c2 = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])))
    c1.edata["h"], c2.edata["h"] = _H1, _H2
    values, idx = topk_edges(batch([c1, c2], edata=["h"]), "h", 3, sortby=-1)
    assert idx.tolist() == [[1, 2, 3], [4, 0, 1]]
    np.testing.assert_array_equal(values[1], _H2[[4, 0, 1]])


def test_topk_nodes_pads_short_and_empty_graphs_with_zeros_ascending_too():
    bg = batch(_three())  # h rows: graph 0 [[1,2],[3,4],[5,6]], graph 1 none, graph 2 two
    values, idx = topk_nodes(bg, "h", 3, sortby=0)
    np.testing.assert_array_equal(
        values, [[[5, 6], [3, 4], [1, 2]], [[0, 0]] * 3, [[0, 7], [-1, -2], [0, 0]]]
    )
    assert idx.shape == (3, 3) and idx[0].tolist() == [2, 1, 0] and idx[2, :2].tolist() == [1, 0]
    values, idx = topk_nodes(bg, "h", 2, descending=False)
    np.testing.assert_array_equal(values, [[[1, 2], [3, 4]], [[0, 0]] * 2, [[-1, -2], [0, 7]]])
    assert idx.shape == (3, 2, 2)
    bg.ndata["big"] = np.zeros((5, 1, 2))
    with pytest.raises(ValueError, match="dimension"):
        topk_nodes(bg, "big", 1)
    with pytest.raises(ValueError, match="sortby"):
        topk_nodes(bg, "h", 1, sortby=2)
