"""dgl.batch / dgl.unbatch and DGL's readouts on the DGL face, against per-graph NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    batch,
    broadcast_edges,
    broadcast_nodes,
    graph,
    heterograph,
    max_nodes,
    mean_edges,
    mean_nodes,
    readout_nodes,
    softmax_edges,
    softmax_nodes,
    sum_nodes,
    to_block,
    unbatch,
)


def _random_graphs(rng, count, dtype=np.int64, empty_every=3):
    graphs = []
    for i in range(count):
        n = 0 if i % empty_every == 2 else int(rng.integers(1, 6))
        e = int(rng.integers(0, 8)) if n else 0
        g = graph(
            (
                rng.integers(0, max(n, 1), e).astype(dtype),
                rng.integers(0, max(n, 1), e).astype(dtype),
            ),
            num_nodes=n,
        )
        g.ndata["h"] = rng.standard_normal((n, 3)).astype(np.float32)
        g.edata["w"] = rng.random(e)
        graphs.append(g)
    return graphs


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_batch_and_unbatch_round_trip(dtype):
    rng = np.random.default_rng(0)
    graphs = _random_graphs(rng, 7, dtype)
    bg = batch(graphs)
    assert bg.idtype == dtype and bg.batch_size == 7
    assert bg.batch_num_nodes().tolist() == [g.num_nodes() for g in graphs]
    assert bg.batch_num_edges().tolist() == [g.num_edges() for g in graphs]
    offsets = np.cumsum([0] + [g.num_nodes() for g in graphs])
    want_u = np.concatenate([g.edges()[0] + o for g, o in zip(graphs, offsets)])
    assert bg.edges()[0].tolist() == want_u.tolist()
    np.testing.assert_array_equal(bg.ndata["h"], np.concatenate([g.ndata["h"] for g in graphs]))
    back = unbatch(bg)
    assert len(back) == 7
    for a, b in zip(graphs, back):
        assert a.num_nodes() == b.num_nodes() and b.idtype == dtype
        assert [x.tolist() for x in a.edges()] == [x.tolist() for x in b.edges()]
        np.testing.assert_array_equal(a.ndata["h"], b.ndata["h"])
        np.testing.assert_array_equal(a.edata["w"], b.edata["w"])
    # a batch of batches adds up the counts (DGL)
    bb = batch([bg, batch(graphs[:2])])
    assert bb.batch_size == 9 and bb.batch_num_nodes()[7:].tolist() == [
        g.num_nodes() for g in graphs[:2]
    ]
    # the batch survives a device round trip
    assert bg.to("cpu").batch_num_nodes().tolist() == bg.batch_num_nodes().tolist()


def test_readouts_match_per_graph_numpy():
    rng = np.random.default_rng(1)
    graphs = _random_graphs(rng, 8)
    bg = batch(graphs)
    bg.ndata["a"] = rng.random((bg.num_nodes(), 1)).astype(np.float32)
    hs = [g.ndata["h"] for g in graphs]
    z = np.zeros(3, np.float32)
    np.testing.assert_allclose(sum_nodes(bg, "h"), [h.sum(0) for h in hs], rtol=1e-6)
    np.testing.assert_allclose(
        mean_nodes(bg, "h"), [h.mean(0) if len(h) else z for h in hs], rtol=1e-6
    )
    np.testing.assert_allclose(
        max_nodes(bg, "h"), [h.max(0) if len(h) else z for h in hs], rtol=1e-6
    )
    np.testing.assert_allclose(
        readout_nodes(bg, "h", op="min"), [h.min(0) if len(h) else z for h in hs], rtol=1e-6
    )
    split = np.split(bg.ndata["a"], np.cumsum(bg.batch_num_nodes())[:-1])
    np.testing.assert_allclose(
        sum_nodes(bg, "h", "a"), [(h * a).sum(0) for h, a in zip(hs, split)], rtol=1e-5
    )
    ws = [g.edata["w"] for g in graphs]
    np.testing.assert_allclose(mean_edges(bg, "w"), [w.mean() if len(w) else 0 for w in ws])
    soft = softmax_nodes(bg, "h")
    want = [np.exp(h - h.max(0)) / np.exp(h - h.max(0)).sum(0) for h in hs if len(h)]
    np.testing.assert_allclose(soft, np.concatenate(want), rtol=1e-5)
    np.testing.assert_allclose(
        softmax_edges(bg, "w"),
        np.concatenate([np.exp(w - w.max()) / np.exp(w - w.max()).sum() for w in ws if len(w)]),
    )
    feats = rng.random((8, 2))
    want = np.concatenate(
        [np.repeat(feats[i : i + 1], g.num_nodes(), 0) for i, g in enumerate(graphs)]
    )
    np.testing.assert_array_equal(broadcast_nodes(bg, feats), want)
    assert broadcast_edges(bg, feats).shape == (bg.num_edges(), 2)
    # an unbatched graph is a batch of one
    g = graphs[0]
    np.testing.assert_allclose(sum_nodes(g, "h"), g.ndata["h"].sum(0, keepdims=True), rtol=1e-6)
    # the nn poolings read batch_num_nodes
    from arraygnn.nn import AvgPooling

    np.testing.assert_allclose(AvgPooling()(bg, bg.ndata["h"]), mean_nodes(bg, "h"), rtol=1e-6)


def test_dgl_examples():
    # dgl.batch's doc: two graphs, batch_num_nodes / batch_num_edges, unbatch
    g1 = graph(([0, 1], [1, 2]))
    g2 = graph(([0, 2], [2, 3]))
    bg = batch([g1, g2])
    assert bg.batch_size == 2 and bg.batch_num_nodes().tolist() == [3, 4]
    assert bg.batch_num_edges().tolist() == [2, 2]
    assert [x.tolist() for x in bg.edges()] == [[0, 1, 3, 5], [1, 2, 5, 6]]
    # dgl.readout_nodes' doc
    g1 = graph(([0, 1], [1, 0]))
    g1.ndata["h"] = np.array([1.0, 2.0])
    g2 = graph(([0, 1], [1, 2]))
    g2.ndata["h"] = np.array([1.0, 2.0, 3.0])
    assert sum_nodes(g1, "h").tolist() == [3.0]
    bg = batch([g1, g2])
    assert sum_nodes(bg, "h").tolist() == [3.0, 6.0]
    bg.ndata["w"] = np.array([0.1, 0.2, 0.1, 0.5, 0.2])
    np.testing.assert_allclose(sum_nodes(bg, "h", "w"), [0.5, 1.7])
    assert max_nodes(bg, "h").tolist() == [2.0, 3.0]
    # heterographs batch type by type
    h1 = heterograph({("user", "plays", "game"): ([0, 1], [0, 0])})
    h2 = heterograph({("user", "plays", "game"): ([0], [1])}, {"user": 1, "game": 2})
    hb = batch([h1, h2])
    assert hb.batch_num_nodes("game").tolist() == [1, 2]
    assert [x.tolist() for x in hb.edges()] == [[0, 1, 2], [0, 0, 2]]
    assert [g.num_nodes("game") for g in unbatch(hb)] == [1, 2]


def test_set_batch_num_and_custom_splits():
    g = graph(([0, 1, 3], [1, 2, 4]), num_nodes=5)
    g.set_batch_num_nodes(np.array([3, 2]))
    g.set_batch_num_edges([2, 1])
    parts = unbatch(g)
    assert [p.num_nodes() for p in parts] == [3, 2] and parts[1].edges()[0].tolist() == [0]
    with pytest.raises(ValueError, match="add up to 4, the graph has 5"):
        g.set_batch_num_nodes([2, 2])
    # counts for another batch size drop the stale node counts (DGL's nodes-then-edges
    # protocol regroups a batch); a split is refused until the node counts are set again
    g.set_batch_num_edges([1, 1, 1])
    with pytest.raises(ValueError, match="different numbers of graphs"):
        unbatch(g)
    with pytest.raises(ValueError, match="edge type .* of graph 0 has a destination node outside"):
        unbatch(g, node_split=[2, 3], edge_split=[2, 1])
    with pytest.raises(ValueError, match="edge_split of .* adds up to 2"):
        unbatch(g, edge_split=[1, 1])


def test_batch_names_bad_input():
    a = graph(([0], [1]))
    a.ndata["h"] = np.ones((2, 2))
    b = graph(([0], [1]))
    b.ndata["h"] = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"feature 'h' of g.nodes\['_N'\].data is float64 \(3,\)"):
        batch([a, b])
    c = graph(([0], [1]))
    with pytest.raises(ValueError, match="graph 1 has features"):
        batch([a, c])
    assert "h" not in batch([a, c], ndata=None).ndata
    empty = graph(([], []), num_nodes=0)  # no rows: may lack the feature (DGL)
    assert batch([a, empty]).ndata["h"].shape == (2, 2)
    with pytest.raises(ValueError, match="the list of graphs is empty"):
        batch([])
    with pytest.raises(ValueError, match="graph 1 has node types"):
        batch([a, heterograph({("x", "r", "x"): ([0], [0])})])
    with pytest.raises(ValueError, match="is a block"):
        batch([to_block(a, np.array([1]))])
    with pytest.raises(TypeError, match="ndata must be a list"):
        batch([a], ndata="h")
    with pytest.raises(ValueError, match="op must be one of"):
        readout_nodes(a, "h", op="prod")
    with pytest.raises(KeyError, match="'z' not found"):
        sum_nodes(a, "z")
    with pytest.raises(ValueError, match=r"one row per graph \(2\)"):
        broadcast_nodes(batch([a, a]), np.ones((3, 2)))  # one graph: DGL unsqueezes (*)


def test_cupy_batches_and_readouts_stay_on_device():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - cupy without a device
        pytest.skip("no CUDA device")
    g1 = graph((cp.array([0, 1]), cp.array([1, 1])), num_nodes=2)
    g2 = graph((cp.array([0]), cp.array([0])), num_nodes=3)
    g1.ndata["h"], g2.ndata["h"] = cp.array([1.0, 2.0]), cp.array([3.0, 4.0, 5.0])
    bg = batch([g1, g2])
    assert isinstance(bg.batch_num_nodes(), cp.ndarray)
    assert sum_nodes(bg, "h").get().tolist() == [3.0, 12.0]
    assert broadcast_nodes(bg, cp.array([1.0, 2.0])).get().tolist() == [1, 1, 2, 2, 2]
    assert softmax_nodes(bg, "h").shape == (5,)
    assert [p.num_nodes() for p in unbatch(bg)] == [2, 3]
