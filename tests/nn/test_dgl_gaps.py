"""DGL pieces: EdgeGATConv, EdgePredictor, TransR, DeepWalk and the RadiusGraph module,
against plain-torch transcriptions of DGL's sources (python/dgl/nn/pytorch/
conv/edgegatconv.py, link/edgepred.py, link/transr.py, network_emb.py, factory.py and
transforms/functional.py's radius_graph).

DGL does not install here, so each reference is a ``torch.nn.Module`` with DGL's class
name, attributes, parameter names and forward (graph ops written out with the helpers of
test_dgl_layers_more.py); it is converted by ``arraygnn.nn.from_dgl``. Cases: random
multigraphs (self-loops, repeated edges, nodes without in-edges), empty graphs, bipartite
pairs, blocks, int32 / int64 ids, float32 (1e-5 relative) and float64 (1e-10); plus the
errors for bad input.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from _nn_cases import FakeBlock, random_graph, rel_err
from test_dgl_layers_more import DTYPES, TOLS, G, close, randomize, t_edge_softmax, t_sum, to_t

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph
from arraygnn.graph import heterograph
from arraygnn.graph import radius_graph as ag_radius_graph

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

N = 12


def tdtype(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def every_node_reached(ei, num_dst):
    """``ei`` plus an edge ``v -> v`` into each node ``v < num_dst`` (no zero in-degree)."""
    loops = np.arange(num_dst, dtype=ei.dtype)
    return np.concatenate([ei, np.stack([loops, loops])], axis=1)


class GBlock(G):
    """A block for the references: the destination nodes are the first source nodes."""

    is_block = True

    def number_of_dst_nodes(self):
        return self.nd


# ---- 1. EdgeGATConv ------------------------------------------------------------------------
class EdgeGATConv(nn.Module):
    """DGL's ``EdgeGATConv`` (``__init__`` and ``forward`` transcribed)."""

    def __init__(self, in_feats, edge_feats, out_feats, num_heads, feat_drop=0.0,
                 attn_drop=0.0, negative_slope=0.2, residual=True, activation=None,
                 allow_zero_in_degree=False, bias=True):  # fmt: skip
        super().__init__()
        self._num_heads = num_heads
        pair = isinstance(in_feats, tuple)
        self._in_src_feats, self._in_dst_feats = in_feats if pair else (in_feats, in_feats)
        self._out_feats = out_feats
        self._allow_zero_in_degree = allow_zero_in_degree
        if pair:
            self.fc_src = nn.Linear(self._in_src_feats, out_feats * num_heads, bias=False)
            self.fc_dst = nn.Linear(self._in_dst_feats, out_feats * num_heads, bias=False)
        else:
            self.fc = nn.Linear(self._in_src_feats, out_feats * num_heads, bias=False)
        self.attn_l = nn.Parameter(torch.zeros(1, num_heads, out_feats))
        self.attn_r = nn.Parameter(torch.zeros(1, num_heads, out_feats))
        self.feat_drop = nn.Dropout(feat_drop)
        self.attn_drop = nn.Dropout(attn_drop)
        self.leaky_relu = nn.LeakyReLU(negative_slope)
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_heads * out_feats))
        else:
            self.register_buffer("bias", None)
        if residual:
            self.res_fc = nn.Linear(self._in_dst_feats, num_heads * out_feats, bias=False)
        else:
            self.register_buffer("res_fc", None)
        self._edge_feats = edge_feats
        self.fc_edge = nn.Linear(edge_feats, out_feats * num_heads, bias=False)
        self.attn_edge = nn.Parameter(torch.zeros(1, num_heads, out_feats))
        self.activation = activation

    def forward(self, graph, feat, edge_feat, get_attention=False):
        H, Fo = self._num_heads, self._out_feats
        if not self._allow_zero_in_degree and (graph.in_degrees() == 0).any():
            raise RuntimeError("There are 0-in-degree nodes in the graph")
        if isinstance(feat, tuple):
            src_prefix_shape, dst_prefix_shape = feat[0].shape[:-1], feat[1].shape[:-1]
            h_src, h_dst = self.feat_drop(feat[0]), self.feat_drop(feat[1])
            if not hasattr(self, "fc_src"):
                feat_src = self.fc(h_src).view(*src_prefix_shape, H, Fo)
                feat_dst = self.fc(h_dst).view(*dst_prefix_shape, H, Fo)
            else:
                feat_src = self.fc_src(h_src).view(*src_prefix_shape, H, Fo)
                feat_dst = self.fc_dst(h_dst).view(*dst_prefix_shape, H, Fo)
        else:
            src_prefix_shape = dst_prefix_shape = feat.shape[:-1]
            h_src = h_dst = self.feat_drop(feat)
            feat_src = feat_dst = self.fc(h_src).view(*src_prefix_shape, H, Fo)
            if getattr(graph, "is_block", False):
                nd = graph.number_of_dst_nodes()
                feat_dst, h_dst = feat_src[:nd], h_dst[:nd]
                dst_prefix_shape = (nd,) + dst_prefix_shape[1:]
        feat_edge = self.fc_edge(edge_feat).view(*edge_feat.shape[:-1], H, Fo)
        el = (feat_src * self.attn_l).sum(dim=-1).unsqueeze(-1)
        er = (feat_dst * self.attn_r).sum(dim=-1).unsqueeze(-1)
        ee = (feat_edge * self.attn_edge).sum(dim=-1).unsqueeze(-1)
        e = el[graph.src] + er[graph.dst] + ee  # u_add_v, then + ee
        ft_combined = feat_src[graph.src] + feat_edge  # u_add_e
        a = self.attn_drop(t_edge_softmax(graph, self.leaky_relu(e)))
        rst = t_sum(graph, ft_combined * a)  # copy_e + sum
        if self.res_fc is not None and h_dst.numel() != 0:
            rst = rst + self.res_fc(h_dst).view(*dst_prefix_shape, -1, Fo)
        if self.bias is not None:
            rst = rst + self.bias.view(*((1,) * len(dst_prefix_shape)), H, Fo)
        if self.activation:
            rst = self.activation(rst)
        return (rst, a) if get_attention else rst


def _edge_gat(dtype, *args, seed=0, **kwargs):
    ref = randomize(EdgeGATConv(*args, **kwargs), seed).to(tdtype(dtype)).eval()
    conv = agnn.from_dgl(ref)
    assert isinstance(conv, agnn.EdgeGATConv) and conv.dtype == dtype
    return ref, conv


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_edge_gat_conv_homogeneous(dtype, index_dtype):
    rng = np.random.default_rng(0)
    ref, conv = _edge_gat(dtype, 5, 3, 4, 3, activation=F.elu, negative_slope=0.1)
    assert conv.negative_slope == 0.1 and conv.res_fc is not None
    ei = every_node_reached(random_graph(rng, N, num_edges=45, index_dtype=index_dtype), N)
    E = ei.shape[1]
    x = rng.standard_normal((N, 5)).astype(dtype)
    ef = rng.standard_normal((E, 3)).astype(dtype)
    x0, ef0 = x.copy(), ef.copy()
    with torch.no_grad():
        out_ref, a_ref = ref(G(ei, N), to_t(x), to_t(ef), get_attention=True)
    for first, second in ((x, ei), (make_graph((ei[0], ei[1]), num_nodes=N), x)):
        out, a = conv(first, second, ef, get_attention=True)
        assert out.shape == (N, 3, 4) and a.shape == (E, 3, 1)
        close(out, out_ref, dtype)
        close(a, a_ref, dtype)
        close(conv(first, second, ef), out_ref, dtype)
    np.testing.assert_array_equal(x, x0)  # nothing the caller passed is changed
    np.testing.assert_array_equal(ef, ef0)
    # DGL's parameter names, both ways
    assert set(conv.state_dict(format="dgl")) == set(ref.state_dict())


@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_gat_conv_zero_in_degree(dtype):
    rng = np.random.default_rng(1)
    ref, conv = _edge_gat(dtype, 4, 2, 3, 2, seed=1)
    ei = random_graph(rng, N, num_edges=30, isolated=3)
    x = rng.standard_normal((N, 4)).astype(dtype)
    ef = rng.standard_normal((30, 2)).astype(dtype)
    with pytest.raises(ValueError, match="EdgeGATConv: .*zero in-degree"):
        conv(x, ei, ef)
    conv.set_allow_zero_in_degree(True)
    ref._allow_zero_in_degree = True
    with torch.no_grad():
        out_ref = ref(G(ei, N), to_t(x), to_t(ef))
    out = conv(x, ei, ef)
    close(out, out_ref, dtype)
    # the nodes without in-edges get the residual plus the bias only
    res = x[-3:] @ conv.res_fc.weight.T + conv.bias
    np.testing.assert_allclose(out[-3:].reshape(3, -1), res, rtol=TOLS[dtype] * 10)
    # converted with allow_zero_in_degree=True
    assert agnn.from_dgl(ref).allow_zero_in_degree
    # no edges at all; and no nodes at all
    empty = np.zeros((2, 0), np.int64)
    with torch.no_grad():
        out_ref = ref(G(empty, N), to_t(x), to_t(np.zeros((0, 2), dtype)))
    close(conv(x, empty, np.zeros((0, 2), dtype)), out_ref, dtype)
    conv.set_allow_zero_in_degree(False)
    with pytest.raises(ValueError, match="zero in-degree"):
        conv(x, empty, np.zeros((0, 2), dtype))
    out, a = conv(np.zeros((0, 4), dtype), empty, np.zeros((0, 2), dtype), get_attention=True)
    assert out.shape == (0, 2, 3) and a.shape == (0, 2, 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pair_weights", [True, False])
def test_edge_gat_conv_bipartite(dtype, pair_weights):
    rng = np.random.default_rng(2)
    ns, nd = 9, 5
    sizes = (5, 4) if pair_weights else 5
    ref, conv = _edge_gat(dtype, sizes, 3, 2, 2, residual=pair_weights, seed=2)
    assert (conv.fc is None) == pair_weights
    ei = every_node_reached(random_graph(rng, ns, nd, 20, isolated=0), nd)
    xs = rng.standard_normal((ns, 5)).astype(dtype)
    xd = rng.standard_normal((nd, 4 if pair_weights else 5)).astype(dtype)
    ef = rng.standard_normal((25, 3)).astype(dtype)  # 20 edges + 5 into each destination
    with torch.no_grad():
        out_ref, a_ref = ref(G(ei, ns, nd), to_t((xs, xd)), to_t(ef), get_attention=True)
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": ns, "B": nd})
    for first, second in (((xs, xd), ei), (g, (xs, xd))):
        out, a = conv(first, second, ef, get_attention=True)
        close(out, out_ref, dtype)
        close(a, a_ref, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_edge_gat_conv_block(dtype):
    rng = np.random.default_rng(3)
    ns, nd = 10, 4
    ref, conv = _edge_gat(dtype, 5, 2, 3, 2, bias=False, seed=3)
    assert conv.bias is None
    ei = every_node_reached(random_graph(rng, ns, nd, 16, isolated=0), nd)
    x = rng.standard_normal((ns, 5)).astype(dtype)
    ef = rng.standard_normal((20, 2)).astype(dtype)
    with torch.no_grad():
        out_ref = ref(GBlock(ei, ns, nd), to_t(x), to_t(ef))
    out = conv(FakeBlock(ei, ns, nd), x, ef)
    assert out.shape == (nd, 2, 3)
    close(out, out_ref, dtype)


def test_edge_gat_conv_defaults_and_errors():
    conv = agnn.EdgeGATConv(4, 3, 2, 2, rng=0)
    assert conv.res_fc is not None and conv.bias is not None  # DGL's defaults
    assert not conv.allow_zero_in_degree
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    ef = np.ones((3, 3), np.float32)
    assert conv(x, ei, ef).shape == (3, 2, 2)
    with pytest.raises(ValueError, match="EdgeGATConv: edge_feat is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"EdgeGATConv: edge_feat must have shape \(3, 3\)"):
        conv(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="EdgeGATConv: edge_feat must hold floating"):
        conv(x, ei, np.ones((3, 3), np.int64))
    with pytest.raises(TypeError, match="EdgeGATConv: node features must be floating"):
        conv(np.ones((3, 4), np.int64), ei, ef)
    with pytest.raises(ValueError, match="EdgeGATConv.*out of range"):
        conv(x, np.array([[0, 1, 5], [1, 2, 0]]), ef)
    with pytest.raises(ValueError, match="expected last dimension 4"):
        conv(np.ones((3, 5), np.float32), ei, ef)
    with pytest.raises(ValueError, match=r"EdgeGATConv: x\[1\] is None"):
        conv((x, None), ei, ef)
    with pytest.raises(TypeError, match="EdgeGATConv: residual must be True or False"):
        agnn.EdgeGATConv(4, 3, 2, 2, residual="identity")
    with pytest.raises(ValueError, match="EdgeGATConv.*num_heads|heads"):
        agnn.EdgeGATConv(4, 3, 2, 0)
    with pytest.raises(ValueError, match="from_dgl: EdgeGATConv"):
        agnn.from_dgl(EdgeGATConv(4, 3, 2, 2, activation=nn.PReLU()))


# ---- 2. EdgePredictor ----------------------------------------------------------------------
class EdgePredictor(nn.Module):
    """DGL's ``EdgePredictor`` (``__init__`` and ``forward`` transcribed)."""

    def __init__(self, op, in_feats=None, out_feats=None, bias=False):
        super().__init__()
        assert op in ["dot", "cos", "ele", "cat"]
        self.op = op
        if (in_feats is not None) and (out_feats is not None):
            if op in ["dot", "cos"]:
                in_feats = 1
            elif op == "cat":
                in_feats = 2 * in_feats
            self.linear = nn.Linear(in_feats, out_feats, bias=bias)
        else:
            self.linear = None

    def forward(self, h_src, h_dst):
        if self.op == "dot":
            n, d = h_src.shape
            h = torch.bmm(h_src.view(n, 1, d), h_dst.view(n, d, 1)).squeeze(-1)
        elif self.op == "cos":
            h = F.cosine_similarity(h_src, h_dst).unsqueeze(-1)
        elif self.op == "ele":
            h = h_src * h_dst
        else:
            h = torch.cat([h_src, h_dst], dim=-1)
        if self.linear is not None:
            h = self.linear(h)
        return h


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["dot", "cos", "ele", "cat"])
@pytest.mark.parametrize("sizes", [(None, None), (5, 3), (5, None)])
@pytest.mark.parametrize("bias", [False, True])
def test_edge_predictor(dtype, op, sizes, bias):
    rng = np.random.default_rng(4)
    ref = randomize(EdgePredictor(op, *sizes, bias=bias)).to(tdtype(dtype))
    pred = agnn.from_dgl(ref)
    assert isinstance(pred, agnn.EdgePredictor) and pred.op == op
    assert (pred.linear is None) == (ref.linear is None)
    a = rng.standard_normal((20, 5)).astype(dtype)
    b = rng.standard_normal((20, 5)).astype(dtype)
    a[3] = 0.0  # a zero row
    a[4], b[4] = 1e-9, 1e-9  # rows shorter than cosine_similarity's eps
    for e in (20, 0):
        with torch.no_grad():
            want = ref(to_t(a[:e]), to_t(b[:e]))
        got = pred(a[:e], b[:e])
        assert got.shape == tuple(want.shape)
        assert got.dtype == np.dtype(dtype)
        if e:
            close(got, want, dtype)
    if pred.linear is not None:
        assert set(pred.state_dict(format="dgl")) == set(ref.state_dict())


def test_edge_predictor_errors():
    with pytest.raises(ValueError, match="EdgePredictor: op must be one of"):
        agnn.EdgePredictor("sum")
    pred = agnn.EdgePredictor("ele", 4, 2, rng=0)
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="EdgePredictor: h_src and h_dst must have one shape"):
        pred(a, np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"EdgePredictor: h_src must be \(E, D\)"):
        pred(np.ones(4, np.float32), np.ones(4, np.float32))
    with pytest.raises(TypeError, match="EdgePredictor: h_src and h_dst must be floating"):
        pred(np.ones((3, 4), np.int64), np.ones((3, 4), np.int64))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        pred(np.ones((3, 5), np.float32), np.ones((3, 5), np.float32))
    # without a linear layer any width goes, as DGL
    assert agnn.EdgePredictor("cat")(a, a).shape == (3, 8)


# ---- 3. TransR -----------------------------------------------------------------------------
class TransR(nn.Module):
    """DGL's ``TransR`` (``__init__`` and ``forward`` transcribed)."""

    def __init__(self, num_rels, rfeats, nfeats, p=1):
        super().__init__()
        self.rel_emb = nn.Embedding(num_rels, rfeats)
        self.rel_project = nn.Embedding(num_rels, nfeats * rfeats)
        self.rfeats, self.nfeats, self.p = rfeats, nfeats, p

    def forward(self, h_head, h_tail, rels):
        h_rel = self.rel_emb(rels)
        proj_rel = self.rel_project(rels).reshape(-1, self.nfeats, self.rfeats)
        h_head = (h_head.unsqueeze(1) @ proj_rel).squeeze(1)
        h_tail = (h_tail.unsqueeze(1) @ proj_rel).squeeze(1)
        return -torch.norm(h_head + h_rel - h_tail, p=self.p, dim=-1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("p", [1, 2])
def test_transr(dtype, index_dtype, p):
    rng = np.random.default_rng(5)
    torch.manual_seed(0)
    ref = TransR(4, 3, 6, p=p).to(tdtype(dtype))
    scorer = agnn.from_dgl(ref)
    assert isinstance(scorer, agnn.TransR) and scorer.p == p and scorer.dtype == dtype
    h = rng.standard_normal((30, 6)).astype(dtype)
    t = rng.standard_normal((30, 6)).astype(dtype)
    t[:3] = h[:3]  # equal head and tail: the score is -||r||_p
    rels = rng.integers(0, 4, 30).astype(index_dtype)
    with torch.no_grad():
        want = ref(to_t(h), to_t(t), torch.from_numpy(rels.astype(np.int64)))
    got = scorer(h, t, rels)
    close(got, want, dtype)
    assert scorer(h[:0], t[:0], rels[:0]).shape == (0,)
    assert set(scorer.state_dict(format="dgl")) == set(ref.state_dict())


def test_transr_errors():
    scorer = agnn.TransR(3, 2, 4, rng=0)
    h = np.ones((5, 4), np.float32)
    rels = np.array([0, 1, 2, 0, 1])
    with pytest.raises(ValueError, match="TransR: rels has entry 3, out of range"):
        scorer(h, h, np.array([0, 1, 3, 0, 1]))
    with pytest.raises(TypeError, match="TransR: rels must be an integer array"):
        scorer(h, h, rels.astype(np.float32))
    with pytest.raises(ValueError, match="TransR: h_head, h_tail and rels must have one length"):
        scorer(h, h, rels[:3])
    with pytest.raises(ValueError, match="expected last dimension 4"):
        scorer(np.ones((5, 3), np.float32), h, rels)
    with pytest.raises(TypeError, match="TransR: h_head and h_tail must be floating"):
        scorer(np.ones((5, 4), np.int64), h, rels)
    with pytest.raises(ValueError, match="TransR: p must be >= 0"):
        agnn.TransR(3, 2, 4, p=-1)


# ---- 4. DeepWalk ---------------------------------------------------------------------------
class FakeDGLGraph:
    """What DGL's DeepWalk reads off its graph: ``num_nodes``, ``out_degrees``, ``edges``."""

    def __init__(self, src, dst, n):
        self.src, self.dst, self.n = torch.as_tensor(src), torch.as_tensor(dst), n

    def num_nodes(self):
        return self.n

    def out_degrees(self):
        return torch.bincount(self.src.long(), minlength=self.n)

    def edges(self):
        return self.src, self.dst


class DeepWalk(nn.Module):
    """DGL's ``DeepWalk`` (``__init__`` and ``forward`` transcribed; the forward takes the
    negative contexts as ``neg`` where DGL draws them with ``random.shuffle`` /
    ``dgl.random.choice``, so the same ones score on both sides)."""

    def __init__(self, g, emb_dim=128, walk_length=40, window_size=5, neg_weight=1,
                 negative_size=5, fast_neg=True, sparse=True):  # fmt: skip
        super().__init__()
        assert walk_length >= window_size + 1
        self.g, self.emb_dim = g, emb_dim
        self.window_size, self.walk_length = window_size, walk_length
        self.neg_weight, self.negative_size, self.fast_neg = neg_weight, negative_size, fast_neg
        num_nodes = g.num_nodes()
        self.node_embed = nn.Embedding(num_nodes, emb_dim, sparse=sparse)
        self.context_embed = nn.Embedding(num_nodes, emb_dim, sparse=sparse)
        init_range = 1.0 / self.emb_dim
        nn.init.uniform_(self.node_embed.weight.data, -init_range, init_range)
        nn.init.constant_(self.context_embed.weight.data, 0)
        if not fast_neg:
            neg_prob = g.out_degrees().pow(0.75)
            self.neg_prob = neg_prob / neg_prob.sum()
        idx_list_src, idx_list_dst = [], []
        for i in range(walk_length):
            for j in range(max(0, i - window_size), i):
                idx_list_src.append(j)
                idx_list_dst.append(i)
            for j in range(i + 1, min(walk_length, i + 1 + window_size)):
                idx_list_src.append(j)
                idx_list_dst.append(i)
        self.idx_list_src = torch.LongTensor(idx_list_src)
        self.idx_list_dst = torch.LongTensor(idx_list_dst)

    def forward(self, batch_walk, neg=None):
        batch_size = len(batch_walk)
        batch_node_embed = self.node_embed(batch_walk).view(-1, self.emb_dim)
        batch_context_embed = self.context_embed(batch_walk).view(-1, self.emb_dim)
        offset = (torch.arange(batch_size) * self.walk_length).unsqueeze(1)
        idx_list_src = (offset + self.idx_list_src.unsqueeze(0)).view(-1)
        idx_list_dst = (offset + self.idx_list_dst.unsqueeze(0)).view(-1)
        pos_src_emb = batch_node_embed[idx_list_src]
        pos_dst_emb = batch_context_embed[idx_list_dst]
        neg_idx_list_src = idx_list_dst.unsqueeze(1) + torch.zeros(self.negative_size).unsqueeze(0)
        neg_idx_list_src = neg_idx_list_src.view(-1)
        neg_src_emb = batch_node_embed[neg_idx_list_src.long()]
        if self.fast_neg:
            if neg is None:
                neg = list(range(batch_size * self.walk_length)) * (
                    self.negative_size * self.window_size * 2
                )
                random.shuffle(neg)
                neg = torch.LongTensor(neg[: len(neg_idx_list_src)])
            neg_dst_emb = batch_context_embed[neg]
        else:
            neg_dst_emb = self.context_embed(neg)
        pos_score = torch.clamp(torch.sum(torch.mul(pos_src_emb, pos_dst_emb), dim=1), -6, 6)
        pos_score = torch.mean(-F.logsigmoid(pos_score))
        neg_score = torch.clamp(torch.sum(torch.mul(neg_src_emb, neg_dst_emb), dim=1), -6, 6)
        neg_score = torch.mean(-F.logsigmoid(-neg_score)) * self.negative_size * self.neg_weight
        return torch.mean(pos_score + neg_score)


def _ring(n, index_dtype=np.int64, dead_end=False):
    """A ring with chords (out-degrees 1-3, self-loops, a repeated edge); with
    ``dead_end`` the last node has no out-edge."""
    src = np.r_[np.arange(n), [0, 0, 2, 3, 5], 4]
    dst = np.r_[(np.arange(n) + 1) % n, [5, 5, 2, 7, 1], 4]
    if dead_end:
        keep = src != n - 1
        src, dst = src[keep], dst[keep]
    return src.astype(index_dtype), dst.astype(index_dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fast_neg", [True, False])
def test_deepwalk_loss(dtype, fast_neg):
    rng = np.random.default_rng(6)
    src, dst = _ring(N)
    torch.manual_seed(1)
    ref = DeepWalk(FakeDGLGraph(src, dst, N), emb_dim=6, walk_length=7, window_size=2,
                   neg_weight=0.7, negative_size=3, fast_neg=fast_neg)  # fmt: skip
    with torch.no_grad():  # trained-looking tables (DGL starts the context at 0); scores
        ref.context_embed.weight.normal_(0, 2)  # beyond DGL's clamp at +-6 occur
        ref.node_embed.weight.normal_(0, 2)
    ref = ref.to(tdtype(dtype))
    model = agnn.from_dgl(ref)
    assert isinstance(model, agnn.DeepWalk) and model.dtype == dtype
    assert (model.walk_length, model.window_size, model.negative_size) == (7, 2, 3)
    np.testing.assert_array_equal(model.idx_list_src, ref.idx_list_src.numpy())
    np.testing.assert_array_equal(model.idx_list_dst, ref.idx_list_dst.numpy())
    if not fast_neg:
        np.testing.assert_allclose(model.neg_prob, ref.neg_prob.double().numpy(), rtol=1e-6)
    walks = model.sample(np.array([0, 3, 5, 5, 11]), seed=0)
    assert walks.shape == (5, 7)
    pairs = len(ref.idx_list_src)
    bound = walks.size if fast_neg else N
    neg = rng.integers(0, bound, 5 * pairs * 3)
    with torch.no_grad():
        want = ref(torch.from_numpy(walks.astype(np.int64)), torch.from_numpy(neg))
    got = model(walks, negatives=neg)
    assert got.shape == () and got.dtype == np.dtype(dtype)
    close(got, want, dtype)
    # int32 walks (the graph's id dtype) score the same
    np.testing.assert_allclose(model(walks.astype(np.int32), negatives=neg), got, rtol=1e-6)
    # drawn negatives: the same seed, the same loss
    assert float(model(walks, seed=3)) == float(model(walks, seed=3))
    # an empty batch: NaN, as torch's mean of nothing
    empty = np.zeros((0, 7), np.int64)
    with torch.no_grad():
        want = ref(torch.from_numpy(empty), torch.zeros(0, dtype=torch.long))
    assert np.isnan(float(model(empty))) and np.isnan(float(want))


def test_deepwalk_negative_sampling():
    src, dst = _ring(N, dead_end=True)
    g = make_graph((src, dst), num_nodes=N)
    fast = agnn.DeepWalk(g, emb_dim=4, walk_length=4, window_size=1, negative_size=2, rng=0)
    walks = np.tile(np.arange(4), (2, 1))  # positions 0..7 hold nodes 0..3, 0..3
    flat = walks.reshape(-1)
    count = 2 * len(fast.idx_list_src) * 2
    picks = fast._negatives(flat, count, 0, None, np)
    # DGL: a shuffled list of negative_size * 2 * window_size copies of every position
    assert picks.shape == (count,) and set(picks.tolist()) <= set(flat.tolist())
    # without fast_neg: nodes by out-degree ** 0.75; the dead end is never drawn
    slow = agnn.DeepWalk(g, emb_dim=4, walk_length=4, window_size=1, fast_neg=False, rng=0)
    picks = slow._negatives(flat, 200_000, 0, None, np)
    freq = np.bincount(picks, minlength=N) / picks.size
    deg = np.bincount(src, minlength=N) ** 0.75
    assert freq[N - 1] == 0
    np.testing.assert_allclose(freq, deg / deg.sum(), atol=0.005)


def test_deepwalk_sample_and_errors():
    src, dst = _ring(N, np.int32, dead_end=True)
    g = make_graph((src, dst), num_nodes=N)
    model = agnn.DeepWalk(g, emb_dim=4, walk_length=5, window_size=2, rng=0)
    walks = model.sample([0, 4, N - 1], seed=1)
    np.testing.assert_array_equal(walks, model.sample(np.array([0, 4, N - 1]), seed=1))
    assert walks.shape == (3, 5) and walks[:, 0].tolist() == [0, 4, N - 1]
    edges = set(zip(src.tolist(), dst.tolist()))
    for w in walks:
        steps = [(int(a), int(b)) for a, b in zip(w[:-1], w[1:]) if b >= 0]
        assert all(s in edges for s in steps)
    assert (walks[2, 1:] == -1).all()  # the dead end: DGL's -1 padding
    with pytest.raises(ValueError, match="DeepWalk: batch_walk holds -1"):
        model(walks)
    with pytest.raises(ValueError, match=r"DeepWalk: batch_walk must be \(B, walk_length=5\)"):
        model(walks[:, :4])
    with pytest.raises(ValueError, match="DeepWalk: batch_walk has entry 12, out of range"):
        model(np.full((1, 5), N))
    with pytest.raises(
        ValueError,
        match="DeepWalk: negatives must hold 140 positions in the flattened walks, got 3",
    ):
        model(walks[:2].clip(0), negatives=np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="DeepWalk.sample: indices has entry 12"):
        model.sample([N])
    with pytest.raises(ValueError, match="DeepWalk: walk_length must be >= window_size \\+ 1"):
        agnn.DeepWalk(g, walk_length=3, window_size=3)
    with pytest.raises(TypeError, match="DeepWalk: g must be an arraygnn Graph"):
        agnn.DeepWalk((src, dst))
    lonely = agnn.DeepWalk(make_graph((src[:0], dst[:0]), num_nodes=3), 4, 2, 1, fast_neg=False)
    with pytest.raises(ValueError, match="no node of g has an out-edge"):
        lonely(np.zeros((1, 2), np.int64))


# ---- 5. RadiusGraph ------------------------------------------------------------------------
class RadiusGraph(nn.Module):
    """DGL's ``RadiusGraph`` with ``dgl.radius_graph`` transcribed (``cdist``, the diagonal
    set to ``r + 1`` without self-loops, ``nonzero(distances <= r)``)."""

    def __init__(self, r, p=2, self_loop=False, compute_mode="donot_use_mm_for_euclid_dist"):
        super().__init__()
        self.r, self.p, self.self_loop, self.compute_mode = r, p, self_loop, compute_mode

    def forward(self, x, get_distances=False):
        distances = torch.cdist(x, x, p=self.p, compute_mode=self.compute_mode)
        if not self.self_loop:
            distances.fill_diagonal_(self.r + 1)
        edges = torch.nonzero(distances <= self.r, as_tuple=True)
        return edges, distances[edges].unsqueeze(-1)


def test_radius_graph_dgl_example():
    x = np.array([[0.0, 0.0, 1.0], [1.0, 0.5, 0.5], [0.5, 0.2, 0.2], [0.3, 0.2, 0.4]])
    g, dist = agnn.RadiusGraph(0.75)(x.astype(np.float32), get_distances=True)
    src, dst = g.edges()
    assert src.tolist() == [0, 1, 2, 2, 3, 3] and dst.tolist() == [3, 2, 1, 3, 0, 2]
    np.testing.assert_allclose(dist.ravel(), [0.7, 0.6557, 0.6557, 0.2828, 0.7, 0.2828], atol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,self_loop", [(2, False), (1, True), (3, False)])
def test_radius_graph_module(dtype, p, self_loop):
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, (40, 3)).astype(dtype)
    x[5] = x[6]  # two points at the same place
    ref = RadiusGraph(0.4, p, self_loop)
    layer = agnn.from_dgl(ref)
    assert isinstance(layer, agnn.RadiusGraph)
    (s_ref, d_ref), dist_ref = ref(torch.from_numpy(x), get_distances=True)
    g, dist = layer(x, get_distances=True)
    src, dst = g.edges()
    np.testing.assert_array_equal(src, s_ref.numpy())
    np.testing.assert_array_equal(dst, d_ref.numpy())
    assert g.num_nodes() == 40 and dist.dtype == np.dtype(dtype)
    assert rel_err(dist, dist_ref.numpy()) < TOLS[dtype] * 10
    # the layer is the graph function with its settings
    g2 = ag_radius_graph(x, 0.4, p, self_loop)
    np.testing.assert_array_equal(g2.edges()[0], src)
    assert len(layer(x).edges()[0]) == len(src)


def test_radius_graph_module_errors():
    with pytest.raises(ValueError, match="RadiusGraph: r must be > 0"):
        agnn.RadiusGraph(0.0)
    with pytest.raises(TypeError, match="RadiusGraph: r must be a real number"):
        agnn.RadiusGraph("1")
    with pytest.raises(ValueError, match="RadiusGraph: p must be >= 1"):
        agnn.RadiusGraph(1.0, p=0.5)
    with pytest.raises(TypeError, match="RadiusGraph: self_loop must be True or False"):
        agnn.RadiusGraph(1.0, self_loop=1)
    with pytest.raises(ValueError, match="RadiusGraph: compute_mode must be one of"):
        agnn.RadiusGraph(1.0, compute_mode="fast")
    layer = agnn.RadiusGraph(1.0)
    with pytest.raises(ValueError, match="empty point set"):
        layer(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="non-finite|NaN"):
        layer(np.array([[0.0, np.nan]]))
    assert "r=1" in repr(layer)
