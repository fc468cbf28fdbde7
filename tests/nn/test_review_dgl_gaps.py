"""Review of the DGL pieces (EdgeGATConv, EdgePredictor, TransR, DeepWalk, RadiusGraph):
the cases test_dgl_gaps.py leaves out, against the same transcriptions of DGL's sources
(block with a feature pair, one-weight layer given a pair, leaky slope above 1, no
residual / bias, zero in-degree on a bipartite graph, more norms, DeepWalk's degenerate
windows, radius graphs with p = inf and coincident points)."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import FakeBlock, random_graph, rel_err
from test_dgl_gaps import (
    DeepWalk,
    EdgeGATConv,
    EdgePredictor,
    FakeDGLGraph,
    GBlock,
    RadiusGraph,
    TransR,
    _edge_gat,
    _ring,
    every_node_reached,
)
from test_dgl_layers_more import DTYPES, TOLS, G, close, randomize, to_t

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph
from arraygnn.graph import heterograph

torch = pytest.importorskip("torch")
F = torch.nn.functional


# ---- EdgeGATConv ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_gat_conv_block_with_feature_pair(dtype):
    """DGL reads ``feat[1]`` for the destination rows of a block given a pair (not the
    first source rows)."""
    rng = np.random.default_rng(10)
    ns, nd = 9, 4
    ref, conv = _edge_gat(dtype, 5, 2, 3, 2, seed=4)
    ei = every_node_reached(random_graph(rng, ns, nd, 14, isolated=0), nd)
    xs = rng.standard_normal((ns, 5)).astype(dtype)
    xd = rng.standard_normal((nd, 5)).astype(dtype)  # not xs[:nd]
    ef = rng.standard_normal((ei.shape[1], 2)).astype(dtype)
    with torch.no_grad():
        out_ref, a_ref = ref(GBlock(ei, ns, nd), to_t((xs, xd)), to_t(ef), get_attention=True)
    out, a = conv(FakeBlock(ei, ns, nd), (xs, xd), ef, get_attention=True)
    close(out, out_ref, dtype)
    close(a, a_ref, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_edge_gat_conv_settings(dtype, index_dtype):
    """One head, no residual, no bias, ReLU, a leaky slope above 1; a one-weight layer
    given a (source, destination) pair on one node set (``fc`` on both)."""
    rng = np.random.default_rng(11)
    n = 10
    ref, conv = _edge_gat(
        dtype, 4, 3, 5, 1, residual=False, bias=False, activation=F.relu,
        negative_slope=1.5, seed=5,
    )  # fmt: skip
    assert conv.res_fc is None and conv.bias is None and conv.negative_slope == 1.5
    ei = every_node_reached(random_graph(rng, n, num_edges=30, index_dtype=index_dtype), n)
    x = rng.standard_normal((n, 4)).astype(dtype)
    x2 = rng.standard_normal((n, 4)).astype(dtype)
    ef = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    with torch.no_grad():
        want, a_ref = ref(G(ei, n), to_t(x), to_t(ef), get_attention=True)
        want_pair = ref(G(ei, n), to_t((x, x2)), to_t(ef))
    out, a = conv(x, ei, ef, get_attention=True)
    close(out, want, dtype)
    close(a, a_ref, dtype)
    close(conv((x, x2), ei, ef), want_pair, dtype)
    close(conv(make_graph((ei[0], ei[1]), num_nodes=n), (x, x2), ef), want_pair, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_gat_conv_bipartite_zero_in_degree(dtype):
    rng = np.random.default_rng(12)
    ns, nd = 6, 5
    ref, conv = _edge_gat(dtype, (4, 3), 2, 3, 2, allow_zero_in_degree=True, seed=6)
    ei = random_graph(rng, ns, nd, 12, isolated=2)  # the last two destinations: no edge
    xs = rng.standard_normal((ns, 4)).astype(dtype)
    xd = rng.standard_normal((nd, 3)).astype(dtype)
    ef = rng.standard_normal((12, 2)).astype(dtype)
    with torch.no_grad():
        want = ref(G(ei, ns, nd), to_t((xs, xd)), to_t(ef))
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": ns, "B": nd})
    close(conv(g, (xs, xd), ef), want, dtype)
    conv.set_allow_zero_in_degree(False)
    with pytest.raises(ValueError, match="EdgeGATConv: .*zero in-degree"):
        conv(g, (xs, xd), ef)


def test_edge_gat_conv_dropout_ignored_and_converted():
    """feat_drop / attn_drop are read from DGL's Dropout modules and have no effect."""
    rng = np.random.default_rng(13)
    ref = randomize(EdgeGATConv(4, 2, 3, 2, feat_drop=0.5, attn_drop=0.3), 7).double().eval()
    conv = agnn.from_dgl(ref)
    assert (conv.feat_drop, conv.attn_drop) == (0.5, 0.3)
    ei = every_node_reached(random_graph(rng, 7, num_edges=15), 7)
    x = rng.standard_normal((7, 4))
    ef = rng.standard_normal((ei.shape[1], 2))
    with torch.no_grad():
        want = ref(G(ei, 7), to_t(x), to_t(ef))
    close(conv(x, ei, ef), want, np.float64)
    np.testing.assert_array_equal(conv(x, ei, ef), conv(x, ei, ef))


# ---- EdgePredictor -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_predictor_cos_scales(dtype):
    """Cosine similarity of small and large rows (torch divides each row by its norm)."""
    ref = EdgePredictor("cos")
    pred = agnn.from_dgl(ref)
    rng = np.random.default_rng(14)
    a = rng.standard_normal((6, 4)).astype(dtype)
    b = rng.standard_normal((6, 4)).astype(dtype)
    for scale in (1e-6, 1.0, 1e6):
        want = ref(torch.from_numpy(a * scale), torch.from_numpy(b * scale))
        close(pred(a * scale, b * scale), want, dtype)


# ---- TransR --------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0, 1.5, 3, float("inf")])
def test_transr_other_norms(p):
    rng = np.random.default_rng(15)
    torch.manual_seed(2)
    ref = TransR(3, 4, 5, p=p).double()
    scorer = agnn.from_dgl(ref)
    h = rng.standard_normal((12, 5))
    t = rng.standard_normal((12, 5))
    rels = rng.integers(0, 3, 12)
    with torch.no_grad():
        want = ref(to_t(h), to_t(t), torch.from_numpy(rels))
    close(scorer(h, t, rels), want, np.float64)
    h0, t0 = h.copy(), t.copy()
    scorer(h, t, rels)
    np.testing.assert_array_equal(h, h0)
    np.testing.assert_array_equal(t, t0)


# ---- DeepWalk ------------------------------------------------------------------------------
@pytest.mark.parametrize("fast_neg", [True, False])
@pytest.mark.parametrize(
    "walk_length,window_size,negative_size", [(3, 2, 2), (4, 0, 2), (5, 1, 0), (1, 0, 1)]
)
def test_deepwalk_degenerate_windows(fast_neg, walk_length, window_size, negative_size):
    """walk_length == window_size + 1, no window (no pairs: NaN as torch's mean), no
    negatives (NaN times 0)."""
    n = 12
    src, dst = _ring(n)
    torch.manual_seed(3)
    ref = DeepWalk(FakeDGLGraph(src, dst, n), emb_dim=5, walk_length=walk_length,
                   window_size=window_size, negative_size=negative_size,
                   fast_neg=fast_neg).double()  # fmt: skip
    with torch.no_grad():
        ref.context_embed.weight.normal_(0, 2)
    model = agnn.from_dgl(ref)
    np.testing.assert_array_equal(model.idx_list_src, ref.idx_list_src.numpy())
    np.testing.assert_array_equal(model.idx_list_dst, ref.idx_list_dst.numpy())
    walks = model.sample(np.array([0, 4, 7]), seed=2)
    count = 3 * len(ref.idx_list_src) * negative_size
    neg = np.random.default_rng(0).integers(0, walks.size if fast_neg else n, count)
    with torch.no_grad():
        want = ref(torch.from_numpy(walks.astype(np.int64)), torch.from_numpy(neg))
    got = model(walks, negatives=neg)
    if np.isnan(float(want)):
        assert np.isnan(float(got))
    else:
        assert rel_err(got, want.numpy()) < TOLS[np.float64]
    # drawn negatives: the right count, and the loss is finite exactly when DGL's is
    drawn = model(walks, seed=1)
    assert np.isnan(float(drawn)) == np.isnan(float(want))


def test_deepwalk_converter_reads_settings():
    src, dst = _ring(8)
    ref = DeepWalk(FakeDGLGraph(src, dst, 8), emb_dim=3, walk_length=6, window_size=2,
                   neg_weight=0.25, negative_size=4, fast_neg=False, sparse=False)  # fmt: skip
    model = agnn.from_dgl(ref)
    assert model.neg_weight == 0.25 and model.negative_size == 4 and not model.fast_neg
    assert model.sparse is False and model.emb_dim == 3 and model.num_nodes == 8
    np.testing.assert_array_equal(model.node_embed.weight, ref.node_embed.weight.detach())
    np.testing.assert_array_equal(model.g.edges()[0], src)
    np.testing.assert_array_equal(model.g.edges()[1], dst)


# ---- RadiusGraph ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,self_loop", [(float("inf"), False), (2, True), (1.5, False)])
def test_radius_graph_module_more(dtype, p, self_loop):
    rng = np.random.default_rng(16)
    x = rng.uniform(0, 1, (30, 2)).astype(dtype)
    x[3] = x[4] = x[9]  # three points at one place
    ref = RadiusGraph(0.3, p, self_loop)
    layer = agnn.from_dgl(ref)
    (s_ref, d_ref), dist_ref = ref(torch.from_numpy(x), get_distances=True)
    g, dist = layer(x, get_distances=True)
    np.testing.assert_array_equal(g.edges()[0], s_ref.numpy())
    np.testing.assert_array_equal(g.edges()[1], d_ref.numpy())
    assert rel_err(dist, dist_ref.numpy()) < TOLS[dtype] * 10
    # one point: no edge, or its self-loop
    (s1, _), _ = ref(torch.from_numpy(x[:1]), get_distances=True)
    assert len(layer(x[:1]).edges()[0]) == len(s1) == int(self_loop)


# ---- features of the wrong rank: a clear error naming the layer ----------------------------
def test_edge_gat_conv_features_must_be_2d():
    """DGL takes ``(N, *, D)`` node features; this port takes 2-D ones only and must say
    so (a middle axis of size 1 used to pass silently with a different output shape, and
    others failed inside NumPy's reshape)."""
    conv = agnn.EdgeGATConv(5, 3, 4, 2, rng=0)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    ef = np.ones((3, 3), np.float32)
    for x in (np.ones((3, 2, 5), np.float32), np.ones((3, 1, 5), np.float32)):
        with pytest.raises(ValueError, match=r"EdgeGATConv: source features must be 2-D"):
            conv(x, ei, ef)
    with pytest.raises(ValueError, match=r"EdgeGATConv: x must be \[num_nodes, in_feats\]"):
        conv(np.ones(5, np.float32), np.array([[0, 1], [1, 0]]), ef[:2])
    pair = agnn.EdgeGATConv((5, 4), 3, 4, 2, rng=0)
    xs = np.ones((3, 5), np.float32)
    with pytest.raises(ValueError, match=r"EdgeGATConv: destination features must be 2-D"):
        pair((xs, np.ones((2, 1, 4), np.float32)), np.array([[0, 1, 2], [1, 0, 0]]), ef)


def test_transr_features_must_be_2d():
    scorer = agnn.TransR(2, 3, 4, rng=0)
    rels = np.array([0, 1])
    with pytest.raises(ValueError, match=r"TransR: h_head must be \(E, nfeats=4\)"):
        scorer(np.ones((2, 3, 4)), np.ones((2, 4)), rels)
    with pytest.raises(ValueError, match=r"TransR: h_tail must be \(E, nfeats=4\)"):
        scorer(np.ones((2, 4)), np.ones(4), rels)


def test_deepwalk_sample_error_names_indices():
    """DGL's argument is ``indices`` (the error named PyG's ``batch``)."""
    src, dst = _ring(8)
    model = agnn.DeepWalk(make_graph((src, dst), num_nodes=8), 4, 3, 1, rng=0)
    with pytest.raises(ValueError, match="DeepWalk.sample: indices has entry 8, out of range"):
        model.sample([0, 8])
    with pytest.raises(TypeError, match="DeepWalk.sample: indices must be an integer array"):
        model.sample(np.array([0.0, 1.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_gat_conv_on_a_real_block(dtype):
    """A block from ``arraygnn.graph``'s ``to_block`` (destination nodes first)."""
    from arraygnn.graph.subgraph import to_block

    rng = np.random.default_rng(17)
    n = 10
    g = make_graph((rng.integers(0, n, 40), rng.choice([1, 3, 7], 40)), num_nodes=n)
    block = to_block(g, np.array([3, 1, 7]))
    ns, nd = block.num_src_nodes(), block.num_dst_nodes()
    ei = np.stack([np.asarray(v) for v in block.edges()])
    ref, conv = _edge_gat(dtype, 5, 2, 3, 2, seed=8)
    x = rng.standard_normal((ns, 5)).astype(dtype)
    ef = rng.standard_normal((ei.shape[1], 2)).astype(dtype)
    with torch.no_grad():
        want, a_ref = ref(GBlock(ei, ns, nd), to_t(x), to_t(ef), get_attention=True)
    out, a = conv(block, x, ef, get_attention=True)
    assert out.shape == (nd, 2, 3)
    close(out, want, dtype)
    close(a, a_ref, dtype)
