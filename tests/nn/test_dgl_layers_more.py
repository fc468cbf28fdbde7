"""DGL-only layers (EGATConv, GatedGCNConv, EGNNConv, CFConv, EdgeWeightNorm, APPNPConv,
PNAConv / DGNConv, DenseChebConv, AtomicConv, WeightAndSum) against plain-torch
transcriptions of DGL's forward passes (dgl/python/dgl/nn/pytorch/conv/*.py, glob.py).

DGL does not install here, so each reference below is a ``torch.nn.Module`` with DGL's class
name, attributes and parameter names; its forward is DGL's with the graph ops written out
(``u_add_v`` as ``x[src] + y[dst]``, ``update_all(..., fn.sum)`` as ``index_add_``, DGL's
``edge_softmax`` with a scatter max). It is converted by ``arraygnn.nn.from_dgl`` and both
run on random multigraphs (self-loops, repeated edges, nodes without in-edges), empty
graphs, int32 / int64 ids, float32 (1e-5 relative) and float64 (1e-10), through the edge
index, a graph, a bipartite pair and a block where DGL takes them; plus bad-input errors.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from _nn_cases import FakeBlock, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.graph import batch as batch_graphs
from arraygnn.graph import graph as make_graph
from arraygnn.graph import heterograph

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

DTYPES = [np.float32, np.float64]
TOLS = {np.float32: 1e-5, np.float64: 1e-10}
N = 14


# ---- the graph ops of DGL's forwards, on torch tensors ------------------------------------
class G:
    """``src`` / ``dst`` (long tensors) and the node counts: what the references read."""

    def __init__(self, ei, num_src, num_dst=None):
        self.src = torch.from_numpy(np.asarray(ei[0], np.int64))
        self.dst = torch.from_numpy(np.asarray(ei[1], np.int64))
        self.ns, self.nd = num_src, num_src if num_dst is None else num_dst
        self.batch_num_nodes = [num_src]

    def in_degrees(self):
        return torch.bincount(self.dst, minlength=self.nd)

    def out_degrees(self):
        return torch.bincount(self.src, minlength=self.ns)


def t_sum(g, values, n=None):
    n = g.nd if n is None else n
    return torch.zeros((n,) + values.shape[1:], dtype=values.dtype).index_add_(0, g.dst, values)


def t_mean(g, values):
    deg = g.in_degrees().clamp(min=1).to(values.dtype)
    return t_sum(g, values) / deg.view((-1,) + (1,) * (values.dim() - 1))


def t_edge_softmax(g, logits):
    shape = (g.nd,) + logits.shape[1:]
    idx = g.dst.view((-1,) + (1,) * (logits.dim() - 1)).expand_as(logits)
    top = torch.full(shape, -math.inf, dtype=logits.dtype).scatter_reduce(
        0, idx, logits, "amax", include_self=True
    )
    e = torch.exp(logits - top[g.dst])
    return e / t_sum(g, e)[g.dst]


def randomize(module, seed=0):
    """Every parameter normal(0, 0.5) (biases included: DGL initialises them to 0)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return module


def to_t(a):
    if isinstance(a, tuple):
        return tuple(to_t(v) for v in a)
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


def close(ours, ref, dtype):
    ref = ref.detach().numpy() if hasattr(ref, "detach") else ref
    assert ours.dtype == np.dtype(dtype), (ours.dtype, dtype)
    assert rel_err(ours, ref) < TOLS[dtype], rel_err(ours, ref)


def graphs(rng, index_dtype, n=N, isolated=2, num_edges=None):
    """``(edge_index, name)`` cases: a multigraph and an empty edge set."""
    yield random_graph(rng, n, num_edges=num_edges, index_dtype=index_dtype, isolated=isolated)
    yield np.zeros((2, 0), index_dtype)


def as_forms(ei, x):
    """The same homogeneous input as ``(x, edge_index)`` and ``(graph, feat)``."""
    n = x.shape[0]
    return [(x, ei), (make_graph((ei[0], ei[1]), num_nodes=n), x)]


# ---- 1. EGATConv --------------------------------------------------------------------------
class EGATConv(nn.Module):
    def __init__(self, in_node, in_edge, out_node, out_edge, num_heads, bias=True):
        super().__init__()
        self._num_heads = num_heads
        pair = isinstance(in_node, tuple)
        self._in_src_node_feats, self._in_dst_node_feats = in_node if pair else (in_node,) * 2
        self._out_node_feats, self._out_edge_feats = out_node, out_edge
        s, d = self._in_src_node_feats, self._in_dst_node_feats
        self.fc_node_src = nn.Linear(s, out_node * num_heads, bias=False)
        self.fc_ni = nn.Linear(s, out_edge * num_heads, bias=False)
        self.fc_nj = nn.Linear(d, out_edge * num_heads, bias=False)
        self.fc_fij = nn.Linear(in_edge, out_edge * num_heads, bias=False)
        self.attn = nn.Parameter(torch.zeros(1, num_heads, out_edge))
        if bias:
            self.bias = nn.Parameter(torch.zeros(num_heads * out_edge))
        else:
            self.register_buffer("bias", None)

    def forward(self, g, nfeats, efeats, edge_weight=None, get_attention=False):
        if (g.in_degrees() == 0).any():
            raise RuntimeError("0-in-degree")
        src_f, dst_f = nfeats if isinstance(nfeats, tuple) else (nfeats, nfeats)
        f_out = self.fc_ni(src_f)[g.src] + self.fc_nj(dst_f)[g.dst] + self.fc_fij(efeats)
        if self.bias is not None:
            f_out = f_out + self.bias
        f_out = F.leaky_relu(f_out).view(-1, self._num_heads, self._out_edge_feats)
        a = t_edge_softmax(g, (f_out * self.attn).sum(dim=-1).unsqueeze(-1))
        if edge_weight is not None:
            a = a * edge_weight.tile(1, self._num_heads, 1).transpose(0, 2)
        h = self.fc_node_src(src_f).view(-1, self._num_heads, self._out_node_feats)
        h_out = t_sum(g, h[g.src] * a)
        return (h_out, f_out, a) if get_attention else (h_out, f_out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_egat_conv(dtype, index_dtype):
    rng = np.random.default_rng(1)
    ref = randomize(EGATConv(5, 3, 4, 2, 3)).to(
        torch.float64 if dtype == np.float64 else torch.float32
    )
    conv = agnn.from_dgl(ref)
    assert isinstance(conv, agnn.EGATConv) and conv.dtype == dtype
    ei = random_graph(rng, N, num_edges=50, index_dtype=index_dtype, isolated=0)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ef = rng.standard_normal((50, 3)).astype(dtype)
    w = rng.uniform(0.2, 2.0, 50).astype(dtype)
    with torch.no_grad():
        h_ref, f_ref, a_ref = ref(G(ei, N), to_t(x), to_t(ef), to_t(w), get_attention=True)
    for first, second in as_forms(ei, x):
        h, f, a = conv(first, second, ef, w, get_attention=True)
        close(h, h_ref, dtype)
        close(f, f_ref, dtype)
        close(a, a_ref, dtype)
    h, f = conv(x, ei, ef)
    with torch.no_grad():
        close(h, ref(G(ei, N), to_t(x), to_t(ef))[0], dtype)
    # zero in-degree: DGL raises (no allow_zero_in_degree on this layer)
    with pytest.raises(ValueError, match="EGATConv: .*zero in-degree"):
        conv(x, ei[:, ei[1] != 3], ef[ei[1] != 3])
    # empty graph without nodes is fine; nodes without edges are not
    out = conv(np.zeros((0, 5), dtype), np.zeros((2, 0), index_dtype), np.zeros((0, 3), dtype))
    assert out[0].shape == (0, 3, 4) and out[1].shape == (0, 3, 2)
    with pytest.raises(ValueError, match="zero in-degree"):
        conv(x, np.zeros((2, 0), index_dtype), np.zeros((0, 3), dtype))


def test_egat_conv_bipartite_and_block():
    rng = np.random.default_rng(2)
    ref = randomize(EGATConv((5, 4), 3, 2, 3, 2, bias=False), seed=3)
    conv = agnn.from_dgl(ref)
    assert (conv.in_src, conv.in_dst) == (5, 4) and conv.bias is None
    ns, nd = 9, 6
    ei = random_graph(rng, ns, nd, 30, isolated=0)
    xs = rng.standard_normal((ns, 5)).astype(np.float32)
    xd = rng.standard_normal((nd, 4)).astype(np.float32)
    ef = rng.standard_normal((30, 3)).astype(np.float32)
    with torch.no_grad():
        h_ref, f_ref = ref(G(ei, ns, nd), to_t((xs, xd)), to_t(ef))
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": ns, "B": nd})
    for first, second in (((xs, xd), ei), (g, (xs, xd))):
        h, f = conv(first, second, ef)
        close(h, h_ref, np.float32)
        close(f, f_ref, np.float32)
    # a block: the destination rows are the first rows of the source features
    ref = randomize(EGATConv(5, 3, 2, 3, 2), seed=4)
    conv = agnn.from_dgl(ref)
    ei = random_graph(rng, ns, nd, 30, isolated=0)
    with torch.no_grad():
        h_ref, _ = ref(G(ei, ns, nd), to_t((xs, xs[:nd])), to_t(ef))
    close(conv(FakeBlock(ei, ns, nd), xs, ef)[0], h_ref, np.float32)


def test_egat_conv_errors():
    conv = agnn.EGATConv(4, 3, 2, 2, 2, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(ValueError, match="EGATConv: efeats is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match=r"EGATConv: efeats must have shape \(3, 3\)"):
        conv(x, ei, np.ones((3, 2), np.float32))
    with pytest.raises(TypeError, match="EGATConv: efeats must hold floating"):
        conv(x, ei, np.ones((3, 3), np.int64))
    with pytest.raises(ValueError, match="EGATConv: edge_weight must have shape"):
        conv(x, ei, np.ones((3, 3), np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="EGATConv.*out of range"):
        conv(x, np.array([[0, 1, 5], [1, 2, 0]]), np.ones((3, 3), np.float32))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        conv(np.ones((3, 5), np.float32), ei, np.ones((3, 3), np.float32))


# ---- 2. GatedGCNConv ----------------------------------------------------------------------
class GatedGCNConv(nn.Module):
    def __init__(self, fin, fedge, fout, dropout=0, batch_norm=True, residual=True,
                 activation=F.relu):  # fmt: skip
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.batch_norm = batch_norm
        self.residual = residual and fin == fout == fedge
        self.A, self.B = nn.Linear(fin, fout), nn.Linear(fin, fout)
        self.D, self.E = nn.Linear(fin, fout), nn.Linear(fin, fout)
        self.C = nn.Linear(fedge, fout)
        self.bn_node, self.bn_edge = nn.BatchNorm1d(fout), nn.BatchNorm1d(fout)
        self.activation = activation

    def forward(self, g, feat, edge_feat):
        h_in, e_in = feat, edge_feat
        e = self.D(feat)[g.src] + self.E(feat)[g.dst] + self.C(edge_feat)  # u_add_v
        sigma = torch.sigmoid(e)
        h = self.A(feat) + t_sum(g, self.B(feat)[g.src] * sigma) / (t_sum(g, sigma) + 1e-6)
        if self.batch_norm:
            h, e = self.bn_node(h), self.bn_edge(e)
        if self.activation:
            h, e = self.activation(h), self.activation(e)
        if self.residual:
            h, e = h_in + h, e_in + e
        return self.dropout(h), self.dropout(e)


def _with_stats(module, seed):
    randomize(module, seed)
    gen = torch.Generator().manual_seed(seed + 1)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen))
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
    return module.eval()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "sizes,kwargs",
    [
        ((6, 6, 6), {}),  # residual
        ((5, 3, 4), {"activation": None}),  # sizes differ: no residual
        ((6, 6, 6), {"batch_norm": False, "activation": nn.Sigmoid(), "dropout": 0.3}),
    ],
)
def test_gated_gcn_conv(dtype, sizes, kwargs):
    rng = np.random.default_rng(5)
    ref = _with_stats(GatedGCNConv(*sizes, **kwargs), 6)
    ref.bn_node.eps = 1e-3
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    assert conv.residual == ref.residual and conv.bn_node.eps == 1e-3
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            x = rng.standard_normal((N, sizes[0])).astype(dtype)
            ef = rng.standard_normal((ei.shape[1], sizes[1])).astype(dtype)
            with torch.no_grad():
                h_ref, e_ref = ref(G(ei, N), to_t(x), to_t(ef))
            for first, second in as_forms(ei, x):
                h, e = conv(first, second, ef)
                close(h, h_ref, dtype)
                close(e, e_ref, dtype)


def test_gated_gcn_conv_errors():
    conv = agnn.GatedGCNConv(4, 3, 4, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="GatedGCNConv works on one node set"):
        conv((x, x[:2]), np.array([[0, 2], [1, 0]]), np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="GatedGCNConv: edge_feat must have shape"):
        conv(x, ei, np.ones((3, 3), np.float32))
    with pytest.raises(ValueError, match="GatedGCNConv: edge_feat is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match="from_dgl: GatedGCNConv: cannot convert"):
        agnn.from_dgl(GatedGCNConv(4, 3, 4, activation=nn.RReLU()))


# ---- 3. EGNNConv --------------------------------------------------------------------------
class EGNNConv(nn.Module):
    def __init__(self, in_size, hidden_size, out_size, edge_feat_size=0):
        super().__init__()
        self.in_size, self.hidden_size, self.out_size = in_size, hidden_size, out_size
        self.edge_feat_size = edge_feat_size
        act = nn.SiLU()
        self.edge_mlp = nn.Sequential(
            nn.Linear(in_size * 2 + edge_feat_size + 1, hidden_size), act,
            nn.Linear(hidden_size, hidden_size), act,
        )  # fmt: skip
        self.node_mlp = nn.Sequential(
            nn.Linear(in_size + hidden_size, hidden_size), act, nn.Linear(hidden_size, out_size)
        )
        self.coord_mlp = nn.Sequential(
            nn.Linear(hidden_size, hidden_size), act, nn.Linear(hidden_size, 1, bias=False)
        )

    def forward(self, g, node_feat, coord_feat, edge_feat=None):
        x_diff = coord_feat[g.src] - coord_feat[g.dst]
        radial = x_diff.square().sum(dim=1).unsqueeze(-1)
        x_diff = x_diff / (radial.sqrt() + 1e-30)
        parts = [node_feat[g.src], node_feat[g.dst], radial]
        if self.edge_feat_size > 0:
            parts.append(edge_feat)
        msg_h = self.edge_mlp(torch.cat(parts, dim=-1))
        msg_x = self.coord_mlp(msg_h) * x_diff
        h = self.node_mlp(torch.cat([node_feat, t_sum(g, msg_h)], dim=-1))
        return h, coord_feat + t_mean(g, msg_x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("edge_feat_size", [0, 3])
def test_egnn_conv(dtype, edge_feat_size):
    rng = np.random.default_rng(7)
    ref = randomize(EGNNConv(5, 8, 4, edge_feat_size), 8)
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            x = rng.standard_normal((N, 5)).astype(dtype)
            coord = rng.standard_normal((N, 3)).astype(dtype)
            ef = rng.standard_normal((ei.shape[1], 3)).astype(dtype) if edge_feat_size else None
            with torch.no_grad():
                h_ref, x_ref = ref(G(ei, N), to_t(x), to_t(coord), to_t(ef))
            for first, second in as_forms(ei, x):
                h, c = conv(first, second, coord, ef)
                close(h, h_ref, dtype)
                close(c, x_ref, dtype)


def test_egnn_conv_errors():
    conv = agnn.EGNNConv(4, 6, 2, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="EGNNConv: coord_feat must be"):
        conv(x, ei)
    with pytest.raises(ValueError, match="EGNNConv: coord_feat must be a floating-point"):
        conv(x, ei, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="EGNNConv: edge_feat was given"):
        conv(x, ei, np.ones((3, 3), np.float32), np.ones((2, 1), np.float32))
    with pytest.raises(ValueError, match="EGNNConv: edge_feat is required"):
        agnn.EGNNConv(4, 6, 2, 2, rng=0)(x, ei, np.ones((3, 3), np.float32))


# ---- 4. CFConv ----------------------------------------------------------------------------
class ShiftedSoftplus(nn.Module):
    def __init__(self, beta=1, shift=2, threshold=20):
        super().__init__()
        self.shift = shift
        self.softplus = nn.Softplus(beta=beta, threshold=threshold)

    def forward(self, inputs):
        return self.softplus(inputs) - np.log(float(self.shift))


class CFConv(nn.Module):
    def __init__(self, node_in, edge_in, hidden, out):
        super().__init__()
        self.project_edge = nn.Sequential(
            nn.Linear(edge_in, hidden), ShiftedSoftplus(), nn.Linear(hidden, hidden),
            ShiftedSoftplus(),
        )  # fmt: skip
        self.project_node = nn.Linear(node_in, hidden)
        self.project_out = nn.Sequential(nn.Linear(hidden, out), ShiftedSoftplus())

    def forward(self, g, node_feats, edge_feats):
        src = node_feats[0] if isinstance(node_feats, tuple) else node_feats
        hv, he = self.project_node(src), self.project_edge(edge_feats)
        return self.project_out(t_sum(g, hv[g.src] * he))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cf_conv(dtype):
    rng = np.random.default_rng(9)
    ref = randomize(CFConv(5, 4, 6, 3), 10)
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    assert isinstance(conv, agnn.DGLCFConv)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            x = rng.standard_normal((N, 5)).astype(dtype)
            # large edge values reach softplus's threshold branch (beta * x > 20)
            ef = (rng.standard_normal((ei.shape[1], 4)) * 20).astype(dtype)
            with torch.no_grad():
                expected = ref(G(ei, N), to_t(x), to_t(ef))
            for first, second in as_forms(ei, x):
                close(conv(first, second, ef), expected, dtype)
    # bipartite: only the source features are read
    ns, nd = 8, 5
    ei = random_graph(rng, ns, nd, 20)
    xs, xd = rng.standard_normal((ns, 5)).astype(dtype), np.zeros((nd, 7), dtype)
    ef = rng.standard_normal((20, 4)).astype(dtype)
    with torch.no_grad():
        expected = ref(G(ei, ns, nd), to_t((xs, xd)), to_t(ef))
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": ns, "B": nd})
    close(conv(g, (xs, xd), ef), expected, dtype)
    close(conv(FakeBlock(ei, ns, nd), xs, ef), expected, dtype)


def test_cf_conv_errors():
    conv = agnn.DGLCFConv(4, 2, 5, 3, rng=0)
    with pytest.raises(ValueError, match=r"DGLCFConv: edge_feats must have shape \(2, 2\)"):
        conv(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]]), np.ones((2, 3), np.float32))
    ref = CFConv(4, 2, 5, 3)
    ref.project_out[1] = ShiftedSoftplus(beta=2)
    with pytest.raises(ValueError, match="different shifted softplus"):
        agnn.from_dgl(ref)


# ---- 5. EdgeWeightNorm and APPNPConv ------------------------------------------------------
class EdgeWeightNorm(nn.Module):
    def __init__(self, norm="both", eps=0.0):
        super().__init__()
        self._norm, self._eps = norm, eps

    def forward(self, g, w):
        src_w = torch.ones(g.ns, dtype=w.dtype)
        dst_w = torch.ones(g.nd, dtype=w.dtype)
        if self._norm == "both":
            out_w = torch.zeros(g.ns, dtype=w.dtype).index_add_(0, g.src, w) + self._eps
            src_w = torch.pow(out_w, -0.5)
        if self._norm != "none":
            degs = t_sum(g, w) + self._eps
            dst_w = torch.pow(degs, -0.5) if self._norm == "both" else 1.0 / degs
        return src_w[g.src] * dst_w[g.dst] * w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", ["both", "right", "left", "none"])
@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_edge_weight_norm(dtype, norm, eps):
    rng = np.random.default_rng(11)
    ref = EdgeWeightNorm(norm, eps)
    ours = agnn.from_dgl(ref)
    assert isinstance(ours, agnn.EdgeWeightNorm) and (ours.norm, ours.eps) == (norm, eps)
    for index_dtype in (np.int32, np.int64):
        for ns, nd in ((N, N), (N, 6)):
            for ei in graphs(rng, index_dtype, ns) if ns == nd else [random_graph(rng, ns, nd)]:
                w = rng.uniform(0.1, 2.0, ei.shape[1]).astype(dtype)
                expected = ref(G(ei, ns, nd), to_t(w))
                if ns == nd:
                    close(ours(make_graph((ei[0], ei[1]), num_nodes=ns), w), expected, dtype)
                else:
                    g = heterograph({("A", "r", "B"): (ei[0], ei[1])},
                                    num_nodes_dict={"A": ns, "B": nd})  # fmt: skip
                    close(ours(g, w), expected, dtype)
                    close(ours(FakeBlock(ei, ns, nd), w), expected, dtype)
                close(ours(ei, w, num_nodes=(ns, nd)), expected, dtype)


def test_edge_weight_norm_errors():
    ei = np.array([[0, 1], [1, 0]])
    g = make_graph((ei[0], ei[1]))
    with pytest.raises(ValueError, match="EdgeWeightNorm: non-positive edge_weight"):
        agnn.EdgeWeightNorm()(g, np.array([1.0, 0.0]))
    agnn.EdgeWeightNorm("right")(g, np.array([1.0, 0.0]))  # allowed there, as DGL
    with pytest.raises(ValueError, match="EdgeWeightNorm: edge_weight must be one scalar"):
        agnn.EdgeWeightNorm()(g, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"EdgeWeightNorm: edge_weight must have shape \(2,\)"):
        agnn.EdgeWeightNorm()(g, np.ones(3))
    with pytest.raises(TypeError, match="EdgeWeightNorm: edge_weight must hold floating"):
        agnn.EdgeWeightNorm()(g, np.ones(2, np.int64))
    with pytest.raises(ValueError, match="EdgeWeightNorm: norm must be one of"):
        agnn.EdgeWeightNorm("sym")
    with pytest.raises(TypeError, match="num_nodes"):
        agnn.EdgeWeightNorm()(ei, np.ones(2))
    with pytest.raises(ValueError, match=r"EdgeWeightNorm: edge_index\[1\] has entry 1"):
        agnn.EdgeWeightNorm()(ei, np.ones(2), num_nodes=(2, 1))


class APPNPConv(nn.Module):
    def __init__(self, k, alpha, edge_drop=0.0):
        super().__init__()
        self._k, self._alpha = k, alpha
        self.edge_drop = nn.Dropout(edge_drop)

    def forward(self, g, feat, edge_weight=None):
        shp = (-1,) + (1,) * (feat.dim() - 1)
        if edge_weight is None:
            src_norm = g.out_degrees().to(feat).clamp(min=1).pow(-0.5).view(shp)
            dst_norm = g.in_degrees().to(feat).clamp(min=1).pow(-0.5).view(shp)
        else:
            edge_weight = EdgeWeightNorm("both")(g, edge_weight)
        feat_0 = feat
        for _ in range(self._k):
            if edge_weight is None:
                feat = feat * src_norm
            w = torch.ones(len(g.src), dtype=feat.dtype) if edge_weight is None else edge_weight
            feat = t_sum(g, feat[g.src] * w.view((-1,) + (1,) * (feat.dim() - 1)))
            if edge_weight is None:
                feat = feat * dst_norm
            feat = (1 - self._alpha) * feat + self._alpha * feat_0
        return feat


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weighted", [False, True])
def test_appnp_conv(dtype, weighted):
    from arraygnn.nn.appnp_conv import from_dgl_module

    rng = np.random.default_rng(12)
    ref = APPNPConv(4, 0.15, edge_drop=0.5).eval()
    conv = from_dgl_module(ref, dtype, agnn.from_dgl)
    assert isinstance(conv, agnn.APPNPConv) and conv.edge_drop == 0.5
    also = agnn.from_dgl(ref)  # through the converter registry
    assert isinstance(also, agnn.APPNPConv)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            x = rng.standard_normal((N, 3, 2)).astype(dtype)  # DGL takes (N, *) features
            w = rng.uniform(0.1, 2.0, ei.shape[1]).astype(dtype) if weighted else None
            expected = ref(G(ei, N), to_t(x), to_t(w))
            for first, second in as_forms(ei, x):
                close(conv(first, second, w), expected, dtype)
            close(also(x, ei, w), expected, dtype)
    with pytest.raises(ValueError, match="APPNPConv needs a homogeneous graph"):
        conv((x, x[:3]), ei)


# ---- 6. PNAConv / DGNConv -----------------------------------------------------------------
def _moment(h, n):
    m = torch.mean(torch.pow(h - torch.mean(h, dim=1, keepdim=True), n), dim=1)
    return torch.sign(m) * torch.pow(torch.abs(m) + 1e-30, 1.0 / n)


def _var(h):
    return torch.relu(torch.mean(h * h, dim=1) - torch.mean(h, dim=1) ** 2)


AGG = {
    "mean": lambda h: h.mean(1), "sum": lambda h: h.sum(1), "max": lambda h: h.max(1)[0],
    "min": lambda h: h.min(1)[0], "var": _var, "std": lambda h: torch.sqrt(_var(h) + 1e-30),
    "moment3": lambda h: _moment(h, 3), "moment4": lambda h: _moment(h, 4),
    "moment5": lambda h: _moment(h, 5),
}  # fmt: skip


def _dir(h, eig_s, eig_d, h_in, k, kind):
    diff = eig_s[:, :, k] - eig_d[:, :, k]
    denom = torch.sum(torch.abs(diff), keepdim=True, dim=1) + 1e-30
    if kind == "av":
        return torch.sum(h * (torch.abs(diff) / denom).unsqueeze(-1), dim=1)
    w = (diff / denom).unsqueeze(-1)
    return torch.abs(torch.sum(h * w, dim=1) - torch.sum(w, dim=1) * h_in)


class Tower(nn.Module):
    def __init__(self, fin, fout, aggregators, scalers, delta, edge_feat_size):
        super().__init__()
        self.aggregators, self.scalers, self.delta = aggregators, scalers, delta
        self.edge_feat_size = edge_feat_size
        self.M = nn.Linear(2 * fin + edge_feat_size, fin)
        self.U = nn.Linear((len(aggregators) * len(scalers) + 1) * fin, fout)
        self.batchnorm = nn.BatchNorm1d(fout)

    def forward(self, g, h, e, eig):
        parts = [h[g.src], h[g.dst]] + ([e] if self.edge_feat_size else [])
        msg = self.M(torch.cat(parts, dim=-1))
        neigh = torch.zeros(g.nd, len(self.aggregators) * len(self.scalers) * h.shape[1],
                            dtype=h.dtype)  # fmt: skip
        # DGL's reduce UDF: once per in-degree bucket on the mailbox [nodes, degree, F] of
        # in-edges in edge-id order; nodes without in-edges are skipped (they keep 0)
        deg = g.in_degrees()
        order = torch.argsort(g.dst, stable=True)
        ptr = torch.cumsum(deg, 0) - deg
        for d in deg.unique().tolist():
            if d == 0:
                continue
            nodes = torch.nonzero(deg == d)[:, 0]
            eids = order[ptr[nodes][:, None] + torch.arange(d)]  # [nodes, d]
            m = msg[eids]
            out = []
            for agg in self.aggregators:
                if agg.startswith("dir"):
                    es, ed = eig[g.src[eids]], eig[g.dst[eids]]
                    out.append(_dir(m, es, ed, h[nodes], int(agg[3]) - 1, agg[-2:]))
                else:
                    out.append(AGG[agg](m))
            out = torch.cat(out, dim=1)
            scaled = []
            for s in self.scalers:
                if s == "identity":
                    scaled.append(out)
                elif s == "amplification":
                    scaled.append(out * (np.log(d + 1) / self.delta))
                else:
                    scaled.append(out * (self.delta / np.log(d + 1)))
            neigh[nodes] = torch.cat(scaled, dim=1)
        snorm = torch.cat([torch.ones(n, 1).to(h) / n for n in g.batch_num_nodes]).sqrt()
        return self.batchnorm(self.U(torch.cat([h, neigh], dim=-1)) * snorm)


class PNAConv(nn.Module):
    def __init__(self, in_size, out_size, aggregators, scalers, delta, dropout=0.0,
                 num_towers=1, edge_feat_size=0, residual=True):  # fmt: skip
        super().__init__()
        self.in_size, self.out_size = in_size, out_size
        self.tower_in_size = in_size // num_towers
        self.edge_feat_size = edge_feat_size
        self.residual = residual and in_size == out_size
        self.towers = nn.ModuleList(
            [Tower(self.tower_in_size, out_size // num_towers, aggregators, scalers, delta,
                   edge_feat_size) for _ in range(num_towers)]
        )  # fmt: skip
        self.mixing_layer = nn.Sequential(nn.Linear(out_size, out_size), nn.LeakyReLU())

    def forward(self, g, node_feat, edge_feat=None, eig_vec=None):
        t = self.tower_in_size
        h = torch.cat(
            [tower(g, node_feat[:, i * t : (i + 1) * t], edge_feat, eig_vec)
             for i, tower in enumerate(self.towers)], dim=1,
        )  # fmt: skip
        out = self.mixing_layer(h)
        return out + node_feat if self.residual else out


class DGNConv(PNAConv):
    pass


def _no_two_in_edges(rng, index_dtype, num_edges):
    """A multigraph whose nodes have 0, 1, 3 or 4 in-edges (self-loops and repeats
    possible). An odd moment of two messages is 0 in exact arithmetic, so its computed
    value is rounding noise raised to the power 1/3 or 1/5: two correct implementations
    that round the messages differently disagree there, DGL on CPU and GPU too."""
    if num_edges == 0:
        return np.zeros((2, 0), index_dtype)
    deg = rng.choice([0, 1, 3, 4], N)
    dst = np.repeat(np.arange(N), deg)
    src = rng.integers(0, N, dst.size)
    src[:2] = dst[:2]
    return np.stack([src, dst]).astype(index_dtype)


DGN_CASES = [
    (PNAConv, 6, 6, ["mean", "max", "min", "std"], ["identity", "amplification"], 1, 0),
    (PNAConv, 6, 4, ["sum", "var", "moment3", "moment4", "moment5"], ["attenuation"], 2, 3),
    (DGNConv, 4, 4, ["dir1-av", "dir1-dx", "dir2-av", "mean"], ["identity", "attenuation"], 2, 0),
    (DGNConv, 6, 3, ["dir2-dx", "dir3-av", "sum"], ["amplification"], 3, 2),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(DGN_CASES)))
def test_pna_dgn_conv(dtype, case):
    cls, fin, fout, aggs, scalers, towers, edge = DGN_CASES[case]
    rng = np.random.default_rng(13 + case)
    ref = _with_stats(cls(fin, fout, aggs, scalers, 1.7, 0.2, towers, edge), 14)
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    assert type(conv) is (agnn.DGNConv if cls is DGNConv else agnn.DGLPNAConv)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype, num_edges=45):
            if any(a in ("moment3", "moment5") for a in aggs):
                ei = _no_two_in_edges(rng, index_dtype, ei.shape[1])
            x = rng.standard_normal((N, fin)).astype(dtype)
            ef = rng.standard_normal((ei.shape[1], edge)).astype(dtype) if edge else None
            eig = rng.standard_normal((N, 3)).astype(dtype) if cls is DGNConv else None
            with torch.no_grad():
                expected = ref(G(ei, N), to_t(x), to_t(ef), to_t(eig))
            extra = {"eig_vec": eig} if cls is DGNConv else {}
            for first, second in as_forms(ei, x):
                close(conv(first, second, ef, **extra), expected, dtype)


def test_pna_batched_graph_norm():
    """A batched graph's ``batch_num_nodes`` gives each graph its own ``1/sqrt(N)``."""
    rng = np.random.default_rng(15)
    ref = _with_stats(PNAConv(4, 4, ["mean", "max"], ["identity"], 1.0), 16)
    conv = agnn.from_dgl(ref)
    e1, e2 = random_graph(rng, 5, num_edges=12), random_graph(rng, 7, num_edges=15)
    g = batch_graphs(
        [make_graph((e1[0], e1[1]), num_nodes=5), make_graph((e2[0], e2[1]), num_nodes=7)]
    )
    ei = np.concatenate([e1, e2 + 5], axis=1)
    x = rng.standard_normal((12, 4)).astype(np.float32)
    tg = G(ei, 12)
    tg.batch_num_nodes = [5, 7]
    with torch.no_grad():
        expected = ref(tg, to_t(x))
    close(conv(g, x), expected, np.float32)


def test_dgn_conv_errors():
    conv = agnn.DGNConv(4, 4, ["dir2-av"], ["identity"], 1.0, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="DGNConv: aggregators .* need eig_vec"):
        conv(x, ei)
    with pytest.raises(ValueError, match="DGNConv: dir2 needs eig_vec with at least 2"):
        conv(x, ei, eig_vec=np.ones((3, 1), np.float32))
    with pytest.raises(ValueError, match=r"DGNConv: eig_vec must be a floating-point \(3, K\)"):
        conv(x, ei, eig_vec=np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="DGLPNAConv: aggregators must be a non-empty list"):
        agnn.DGLPNAConv(4, 4, ["dir1-av"], ["identity"], 1.0)
    with pytest.raises(ValueError, match="divisible by num_towers"):
        agnn.DGNConv(4, 4, ["mean"], ["identity"], 1.0, num_towers=3)
    with pytest.raises(ValueError, match="DGLPNAConv: edge_feat was given"):
        agnn.DGLPNAConv(4, 4, ["mean"], ["identity"], 1.0)(x, ei, np.ones((2, 1), np.float32))


# ---- DenseChebConv, AtomicConv, WeightAndSum ----------------------------------------------
class DenseChebConv(nn.Module):
    def __init__(self, in_feats, out_feats, k, bias=True):
        super().__init__()
        self._in_feats, self._out_feats, self._k = in_feats, out_feats, k
        self.W = nn.Parameter(torch.zeros(k, in_feats, out_feats))
        if bias:
            self.bias = nn.Parameter(torch.zeros(out_feats))
        else:
            self.register_buffer("bias", None)

    def forward(self, adj, feat, lambda_max=None):
        A = adj.to(feat)
        n = A.shape[0]
        d = 1 / A.sum(dim=1).clamp(min=1).sqrt()
        I = torch.eye(n).to(A)  # noqa: E741
        L = I - torch.diag(d) @ A @ torch.diag(d)
        if lambda_max is None:  # th.eig(L)[0][:, 0] in DGL (removed from torch)
            lambda_max = torch.linalg.eigvals(L).real.max()
        L_hat = 2 * L / lambda_max - I
        Z = [torch.eye(n).to(A)]
        for i in range(1, self._k):
            Z.append(L_hat if i == 1 else 2 * L_hat @ Z[-1] - Z[-2])
        Zh = (torch.stack(Z, 0) @ feat.unsqueeze(0) @ self.W).sum(0)
        return Zh + self.bias if self.bias is not None else Zh


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k,bias,lam", [(1, True, None), (3, False, 1.5), (5, True, None)])
def test_dense_cheb_conv(dtype, k, bias, lam):
    rng = np.random.default_rng(17)
    ref = randomize(DenseChebConv(4, 3, k, bias), 18)
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    adj = (rng.random((9, 9)) < 0.3).astype(dtype)
    adj = np.maximum(adj, adj.T) if lam is None else adj  # any direction with lambda_max
    adj[7] = adj[:, 7] = 0  # a node without edges
    x = rng.standard_normal((9, 4)).astype(dtype)
    with torch.no_grad():
        expected = ref(to_t(adj), to_t(x), lam)
    close(conv(adj, x, lam), expected, dtype)
    close(conv(adj.astype(bool), x, lam), expected, dtype)  # numbers of any kind
    if lam is None:  # the same lambda_max given as a one-element array
        d = 1 / np.sqrt(np.maximum(adj.sum(1), 1))
        top = np.linalg.eigvals(np.eye(9) - d[:, None] * adj * d[None]).real.max()
        close(conv(adj, x, np.array([top])), expected, dtype)
    with pytest.raises(ValueError, match="DenseChebConv: adj must be one"):
        conv(adj[None], x)
    with pytest.raises(ValueError, match="DenseChebConv: x has 9 nodes"):
        conv(adj[:5, :5], x)


class RadialPooling(nn.Module):
    def __init__(self, cutoffs, means, scaling):
        super().__init__()
        self.interaction_cutoffs = nn.Parameter(cutoffs.reshape(-1, 1, 1))
        self.rbf_kernel_means = nn.Parameter(means.reshape(-1, 1, 1))
        self.rbf_kernel_scaling = nn.Parameter(scaling.reshape(-1, 1, 1))

    def forward(self, distances):
        scaled = -self.rbf_kernel_scaling * (distances - self.rbf_kernel_means) ** 2
        cos = 0.5 * (torch.cos(np.pi * distances / self.interaction_cutoffs) + 1)
        cut = torch.where(distances <= self.interaction_cutoffs, cos, torch.zeros_like(cos))
        return torch.exp(scaled) * cut


class AtomicConv(nn.Module):
    def __init__(self, cutoffs, means, scaling, features_to_use=None):
        super().__init__()
        self.radial_pooling = RadialPooling(cutoffs, means, scaling)
        if features_to_use is None:
            self.num_channels, self.features_to_use = 1, None
        else:
            self.num_channels = len(features_to_use)
            self.features_to_use = nn.Parameter(features_to_use, requires_grad=False)

    def forward(self, g, feat, distances):
        he = self.radial_pooling(distances).to(feat).transpose(1, 0).squeeze(-1)
        if self.features_to_use is not None:
            feat = (feat == self.features_to_use).to(feat)
        m = torch.einsum("ij,ik->ijk", feat[g.src], he)
        m = m.reshape(len(g.src), m.shape[1] * m.shape[2])  # DGL: view(len(edges), -1)
        return t_sum(g, m).view(g.nd, -1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("types", [False, True])
def test_atomic_conv(dtype, types):
    rng = np.random.default_rng(19)
    tdt = torch.float64 if dtype == np.float64 else torch.float32
    ref = AtomicConv(
        torch.tensor([2.0, 3.0, 1.5], dtype=tdt), torch.tensor([0.5, 1.0, 1.5], dtype=tdt),
        torch.tensor([1.0, 0.7, 2.0], dtype=tdt),
        torch.tensor([1.0, 6.0, 8.0], dtype=tdt) if types else None,
    )  # fmt: skip
    conv = agnn.from_dgl(ref)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            if types:
                x = rng.choice([1.0, 6.0, 8.0, 7.0], (N, 1)).astype(dtype)
            else:
                x = rng.standard_normal((N, 2)).astype(dtype)
            dist = rng.uniform(0, 3.5, (ei.shape[1], 1)).astype(dtype)
            with torch.no_grad():
                expected = ref(G(ei, N), to_t(x), to_t(dist))
            close(conv(make_graph((ei[0], ei[1]), num_nodes=N), x, dist), expected, dtype)
            close(conv(ei, x, dist[:, 0]), expected, dtype)
    with pytest.raises(ValueError, match=r"AtomicConv: distances must have shape"):
        conv(ei, x, np.ones((ei.shape[1] + 1, 1), dtype))
    with pytest.raises(ValueError, match="AtomicConv: interaction_cutoffs"):
        agnn.AtomicConv(np.ones(2), np.ones(3), np.ones(3))


class WeightAndSum(nn.Module):
    def __init__(self, in_feats):
        super().__init__()
        self.in_feats = in_feats
        self.atom_weighting = nn.Sequential(nn.Linear(in_feats, 1), nn.Sigmoid())

    def forward(self, counts, feats):
        w = self.atom_weighting(feats)
        return (
            torch.stack([s.sum(0) for s in torch.split(feats * w, counts)])
            if counts
            else (torch.zeros(0, feats.shape[1]))
        )


@pytest.mark.parametrize("dtype", DTYPES)
def test_weight_and_sum(dtype):
    rng = np.random.default_rng(21)
    ref = randomize(WeightAndSum(4), 22)
    ref = ref.double() if dtype == np.float64 else ref
    ours = agnn.from_dgl(ref)
    sizes = [3, 0, 5]  # an empty graph in the batch gives zeros
    gs = []
    for n in sizes:
        ei = random_graph(rng, max(n, 1), num_edges=4)[:, : 4 if n else 0]
        gs.append(make_graph((ei[0], ei[1]), num_nodes=n))
    x = rng.standard_normal((sum(sizes), 4)).astype(dtype)
    with torch.no_grad():
        expected = ref(sizes, to_t(x))
    close(ours(batch_graphs(gs), x), expected, dtype)
    with pytest.raises(ValueError, match="expected last dimension 4"):
        ours(batch_graphs(gs), x[:, :3])


# ---- names, inputs left alone, a real block ----------------------------------------------
NAMED = [
    lambda: EGATConv((5, 4), 3, 2, 3, 2),
    lambda: GatedGCNConv(4, 3, 4),
    lambda: EGNNConv(4, 6, 2, 3),
    lambda: CFConv(4, 2, 5, 3),
    lambda: PNAConv(4, 4, ["mean"], ["identity"], 1.0, num_towers=2, edge_feat_size=2),
    lambda: DGNConv(4, 2, ["dir1-av"], ["identity"], 1.0),
    lambda: DenseChebConv(4, 3, 2),
    lambda: AtomicConv(torch.ones(2), torch.ones(2), torch.ones(2), torch.ones(3)),
    lambda: WeightAndSum(4),
    lambda: TWIRLSConv(4, 2, 3, 2, 2, 2, "batch", use_eta=True),
]


@pytest.mark.parametrize("make", NAMED)
def test_dgl_state_dict_names(make):
    """The converted layer exports DGL's names and a state dict loads back by them."""
    ref = randomize(make(), 23)
    conv = agnn.from_dgl(ref)
    theirs = {k: v for k, v in ref.state_dict().items() if not k.endswith("num_batches_tracked")}
    ours = conv.state_dict(format="dgl")
    assert sorted(ours) == sorted(theirs)
    for k, v in theirs.items():
        np.testing.assert_array_equal(ours[k], v.numpy().reshape(ours[k].shape))
    again = copy.deepcopy(conv).load_state_dict(ref.state_dict(), format="dgl")  # strict
    assert sorted(again.state_dict(format="dgl")) == sorted(theirs)


def test_inputs_left_alone_and_real_block():
    from arraygnn.graph import to_block

    rng = np.random.default_rng(24)
    ei = random_graph(rng, N, num_edges=40, isolated=0)
    x = rng.standard_normal((N, 4)).astype(np.float32)
    ef = rng.standard_normal((40, 3)).astype(np.float32)
    coord = rng.standard_normal((N, 3)).astype(np.float32)
    saved = [a.copy() for a in (ei, x, ef, coord)]
    agnn.EGATConv(4, 3, 2, 2, 2, rng=0)(x, ei, ef, ef[:, 0] ** 2)
    agnn.GatedGCNConv(4, 3, 4, rng=0)(x, ei, ef)
    agnn.EGNNConv(4, 5, 2, 3, rng=0)(x, ei, coord, ef)
    agnn.DGLCFConv(4, 3, 5, 2, rng=0)(x, ei, ef)
    agnn.DGNConv(4, 4, ["dir1-dx", "std"], ["attenuation"], 1.0, rng=0)(x, ei, eig_vec=coord)
    agnn.EdgeWeightNorm()(ei, ef[:, 0] ** 2, num_nodes=N)
    for before, after in zip(saved, (ei, x, ef, coord)):
        np.testing.assert_array_equal(before, after)
    # a block made by to_block: the first rows of the source features are the targets
    seeds = np.unique(ei[1])[:5]
    keep = np.isin(ei[1], seeds)  # the in-edges of the seeds
    block = to_block(make_graph((ei[0][keep], ei[1][keep]), num_nodes=N), seeds)
    src, dst = block.edges()
    ns, nd = block.number_of_src_nodes(), block.number_of_dst_nodes()
    xs = rng.standard_normal((ns, 4)).astype(np.float32)
    efb = rng.standard_normal((src.shape[0], 3)).astype(np.float32)
    conv = agnn.EGATConv(4, 3, 2, 2, 2, rng=1)
    h, f = conv(block, xs, efb)
    h2, f2 = conv((xs, xs[:nd]), np.stack([src, dst]), efb)
    np.testing.assert_array_equal(h, h2)
    np.testing.assert_array_equal(f, f2)


# ---- TWIRLSConv ---------------------------------------------------------------------------
class TwirlsMLP(nn.Module):
    def __init__(self, input_d, hidden_d, output_d, num_layers, norm, init_activate):
        super().__init__()
        self.init_activate, self.norm = init_activate, norm
        self.layers = nn.ModuleList([])
        if num_layers == 1:
            self.layers.append(nn.Linear(input_d, output_d))
        elif num_layers > 1:
            self.layers.append(nn.Linear(input_d, hidden_d))
            for _ in range(num_layers - 2):
                self.layers.append(nn.Linear(hidden_d, hidden_d))
            self.layers.append(nn.Linear(hidden_d, output_d))
        cnt = num_layers - 1 + int(init_activate)
        if norm == "batch":
            self.norms = nn.ModuleList([nn.BatchNorm1d(hidden_d) for _ in range(cnt)])
        elif norm == "layer":
            self.norms = nn.ModuleList([nn.LayerNorm(hidden_d) for _ in range(cnt)])

    def activate(self, x):
        if self.norm != "none":
            x = self.norms[self.cur_norm_idx](x)
            self.cur_norm_idx += 1
        return F.relu(x)

    def forward(self, x):
        self.cur_norm_idx = 0
        if self.init_activate:
            x = self.activate(x)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i != len(self.layers) - 1:
                x = self.activate(x)
        return x


class TwirlsUnfolding(nn.Module):
    def __init__(self, d, alp, lam, prop_step, attn_aft, tau, T, p, use_eta, init_att,
                 precond):  # fmt: skip
        super().__init__()
        self.alp = alp if alp > 0 else 1 / (lam + 1)
        self.lam, self.tau, self.T, self.p = lam, tau, T, p
        self.prop_step, self.attn_aft, self.init_att, self.precond = (
            prop_step, attn_aft, init_att, precond,
        )  # fmt: skip
        self.etas = nn.Parameter(torch.ones(d)) if use_eta else None

    def attention(self, g, Y, st):  # DGL's Attention.forward + reweighting
        if self.etas is not None:
            Y = Y * self.etas.view(-1)
        h_norm = (Y**2).sum(-1)
        w = (h_norm[g.src] + h_norm[g.dst]) - 2 * (Y[g.src] * Y[g.dst]).sum(-1)
        w = F.relu(w) + 1e-07
        w = torch.pow(w, 1 - 0.5 * self.p)
        w[w < self.tau] = self.tau
        if self.T > 0:
            w[w > self.T] = float("inf")
        st["w"] = 1 / w + 1e-09
        st["deg"] = t_sum(g, st["w"])

    def forward(self, g, X):
        st = {"w": torch.ones(len(g.src), 1, dtype=X.dtype), "deg": g.in_degrees().to(X)}
        ax = lambda y: t_sum(g, y[g.src] * st["w"].view(-1, 1))  # noqa: E731
        bias_pow = lambda y, pw: y * (self.lam * st["deg"] + 1 - self.lam).pow(pw).view(-1, 1)  # noqa: E731
        pow_ = lambda y, pw: y * st["deg"].pow(pw).view(-1, 1)  # noqa: E731
        Y = X
        if self.init_att:
            self.attention(g, Y, st)
        a, lam = self.alp, self.lam
        for k in range(self.prop_step):
            if self.precond:
                prop = bias_pow(ax(bias_pow(Y, -0.5)), -0.5)
                Y = (1 - a) * Y + a * lam * prop + a * bias_pow(X, -1)
            else:
                Y = (1 - a * lam - a) * Y + a * lam * pow_(ax(pow_(Y, -0.5)), -0.5) + a * X
            if k == self.attn_aft - 1:
                self.attention(g, Y, st)
        return Y


class TWIRLSConv(nn.Module):
    def __init__(self, input_d, output_d, hidden_d, prop_step, num_mlp_before=1,
                 num_mlp_after=1, norm="none", precond=True, alp=0, lam=1, attention=False,
                 tau=0.2, T=-1, p=1, use_eta=False, attn_bef=False, dropout=0.0,
                 attn_dropout=0.0, inp_dropout=0.0):  # fmt: skip
        super().__init__()
        self.input_d, self.output_d, self.hidden_d = input_d, output_d, hidden_d
        self.prop_step, self.num_mlp_before, self.num_mlp_after = (
            prop_step, num_mlp_before, num_mlp_after,
        )  # fmt: skip
        self.norm, self.precond, self.attention = norm, precond, attention
        self.alp, self.lam, self.tau, self.T, self.p = alp, lam, tau, T, p
        self.use_eta, self.init_att = use_eta, attn_bef
        self.dropout, self.attn_dropout, self.inp_dropout = dropout, attn_dropout, inp_dropout
        self.attn_aft = prop_step // 2 if attention else -1
        self.cacheable = not attention and num_mlp_before == 0 and inp_dropout <= 0
        if self.cacheable:
            self.cached_unfolding = None
        size_bef = output_d if num_mlp_after == 0 else hidden_d
        size_aft = input_d if num_mlp_before == 0 else hidden_d
        self.mlp_bef = TwirlsMLP(input_d, hidden_d, size_bef, num_mlp_before, norm, False)
        self.unfolding = TwirlsUnfolding(
            hidden_d, alp, lam, prop_step, self.attn_aft, tau, T, p, use_eta, attn_bef, precond
        )
        self.mlp_aft = TwirlsMLP(size_aft, hidden_d, output_d, num_mlp_after, norm,
                                 num_mlp_before > 0 and num_mlp_after > 0)  # fmt: skip

    def forward(self, g, feat):
        keep = g.src != g.dst  # remove_self_loop, then add_self_loop
        loops = torch.arange(g.ns)
        g = G(np.stack([torch.cat([g.src[keep], loops]).numpy(),
                        torch.cat([g.dst[keep], loops]).numpy()]), g.ns)  # fmt: skip
        if self.cacheable:
            if self.cached_unfolding is None:
                self.cached_unfolding = self.unfolding(g, feat)
            x = self.cached_unfolding
        else:
            x = self.unfolding(g, self.mlp_bef(feat))
        return self.mlp_aft(x)


TWIRLS_CASES = [
    {},
    {"num_mlp_before": 2, "num_mlp_after": 2, "norm": "batch", "precond": False, "lam": 0.5},
    {"attention": True, "prop_step": 5, "norm": "layer", "use_eta": True, "T": 3.0, "p": 0.5},
    {"attn_bef": True, "alp": 0.3, "tau": 0.5, "num_mlp_after": 0},
    {"num_mlp_before": 0, "num_mlp_after": 3, "norm": "batch"},  # cacheable
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(TWIRLS_CASES)))
def test_twirls_conv(dtype, case):
    rng = np.random.default_rng(30 + case)
    kwargs = {"prop_step": 4, **TWIRLS_CASES[case]}
    ref = _with_stats(TWIRLSConv(5, 3, 6, **kwargs), 31)
    if ref.unfolding.etas is not None:
        with torch.no_grad():
            ref.unfolding.etas.copy_(torch.rand(6) + 0.5)
    for m in ref.modules():
        if isinstance(m, nn.LayerNorm):
            m.eps = 1e-3
    ref = ref.double() if dtype == np.float64 else ref
    conv = agnn.from_dgl(ref)
    for index_dtype in (np.int32, np.int64):
        for ei in graphs(rng, index_dtype):
            x = rng.standard_normal((N, 5)).astype(dtype)
            if ref.cacheable:  # DGL keeps the first call's unfolding: start both afresh
                ref.cached_unfolding = conv.cached_unfolding = None
            with torch.no_grad():
                expected = ref(G(ei, N), to_t(x))
            for first, second in as_forms(ei, x):
                close(conv(first, second), expected, dtype)
    if ref.cacheable:  # the same objects reuse the cache; other features recompute it
        # (DGL would return its first call's unfolding here: that reuse is not copied)
        conv(x, ei)
        kept = conv.cached_unfolding
        conv(x, ei)
        assert conv.cached_unfolding is kept
        x2 = x + 1
        ref.cached_unfolding = None
        with torch.no_grad():
            close(conv(x2, ei), ref(G(ei, N), to_t(x2)), dtype)
        assert conv.cached_unfolding is not kept


def test_twirls_conv_errors():
    with pytest.raises(ValueError, match="TWIRLSConv: norm must be one of"):
        agnn.TWIRLSConv(4, 2, 3, 2, norm="group")
    conv = agnn.TWIRLSConv(4, 2, 3, 2, rng=0)
    with pytest.raises(ValueError, match="TWIRLSConv works on one node set"):
        conv((np.ones((3, 4)), np.ones((2, 4))), np.array([[0], [1]]))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        conv(np.ones((3, 5), np.float32), np.array([[0], [1]]))
