"""DGLHGTConv (DGL's ``HGTConv``) against a per-edge NumPy transcription of DGL's forward
(DGL does not install next to torch here): random weights laid out as DGL's state dict,
loaded by name (``format='dgl'``) and through ``from_dgl`` on a stand-in module with DGL's
attributes; multigraphs with self-loops, repeated edges, nodes without in-edges, missing
edge types, blocks, int32 / int64 ids, float32 / float64; errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, dgl_typed_linear, rel_err

import arraygnn
import arraygnn.nn as agnn


def dgl_hgt_reference(sd, x, src, dst, ntype, etype, heads, head_size, num_dst=None, eps=1e-5):
    """DGL ``HGTConv.forward`` written per edge in float64: typed k / q / v, per-head
    relation matrices and priors, edge softmax per target, typed ``linear_a``, the sigmoid
    skip gate (``residual_w`` when the widths differ), ``LayerNorm`` when ``norm.*`` is
    present."""
    p = {k: np.asarray(v, np.float64) for k, v in sd.items()}
    x = np.asarray(x, np.float64)
    n_dst = x.shape[0] if num_dst is None else num_dst
    h_, d_ = heads, head_size

    def typed(w, a, t):
        return np.einsum("ni,nio->no", a, w[t])

    k = typed(p["linear_k.W"], x, ntype).reshape(-1, h_, d_)
    v = typed(p["linear_v.W"], x, ntype).reshape(-1, h_, d_)
    q = typed(p["linear_q.W"], x[:n_dst], ntype[:n_dst]).reshape(-1, h_, d_)
    num_edges = len(src)
    a = np.zeros((num_edges, h_))
    m = np.zeros((num_edges, h_, d_))
    for e in range(num_edges):
        r = etype[e]
        for i in range(h_):
            kw = k[src[e], i] @ p[f"relation_att.{i}.W"][r]
            a[e, i] = (kw * q[dst[e], i]).sum() * p[f"relation_pri.{i}"][r] / np.sqrt(d_)
            m[e, i] = v[src[e], i] @ p[f"relation_msg.{i}.W"][r]
    agg = np.zeros((n_dst, h_, d_))
    for t in range(n_dst):
        into = np.flatnonzero(dst == t)
        if into.size:
            z = np.exp(a[into] - a[into].max(0))
            agg[t] = ((z / z.sum(0))[:, :, None] * m[into]).sum(0)
    out = typed(p["linear_a.W"], agg.reshape(n_dst, h_ * d_), ntype[:n_dst])
    gate = (1 / (1 + np.exp(-p["skip"][ntype[:n_dst]])))[:, None]
    xd = x[:n_dst]
    res = xd @ p["residual_w"] if "residual_w" in p else xd
    out = out * gate + res * (1 - gate)
    if "norm.weight" in p:
        mu = out.mean(-1, keepdims=True)
        var = ((out - mu) ** 2).mean(-1, keepdims=True)
        out = (out - mu) / np.sqrt(var + eps) * p["norm.weight"] + p["norm.bias"]
    return out


def _dgl_state(rng, in_size, head_size, heads, num_ntypes, num_etypes, use_norm, dtype):
    """A random state dict with DGL HGTConv's names and shapes."""
    hd = head_size * heads
    sd = {
        "linear_k.W": rng.standard_normal((num_ntypes, in_size, hd)),
        "linear_q.W": rng.standard_normal((num_ntypes, in_size, hd)),
        "linear_v.W": rng.standard_normal((num_ntypes, in_size, hd)),
        "linear_a.W": rng.standard_normal((num_ntypes, hd, hd)) / np.sqrt(hd),
        "skip": rng.standard_normal(num_ntypes),
    }
    for i in range(heads):
        sd[f"relation_pri.{i}"] = rng.uniform(0.5, 1.5, num_etypes)
        sd[f"relation_att.{i}.W"] = rng.standard_normal((num_etypes, head_size, head_size))
        sd[f"relation_msg.{i}.W"] = rng.standard_normal((num_etypes, head_size, head_size))
    sd["linear_k.W"] /= np.sqrt(in_size)
    sd["linear_q.W"] /= np.sqrt(in_size)
    if in_size != hd:
        sd["residual_w"] = rng.standard_normal((in_size, hd))
    if use_norm:
        sd["norm.weight"] = rng.uniform(0.5, 1.5, hd)
        sd["norm.bias"] = rng.standard_normal(hd)
    return {k: v.astype(dtype) for k, v in sd.items()}


def _graph(rng, n, num_edges, num_etypes, index_dtype, isolated=2):
    src = rng.integers(0, n, num_edges)
    dst = rng.integers(0, n - isolated, num_edges)
    src[:2] = dst[:2]  # self-loops
    src[2], dst[2] = src[3], dst[3]  # a repeated edge
    etype = rng.integers(0, num_etypes - 1, num_edges)  # the last type has no edges
    return np.stack([src, dst]).astype(index_dtype), etype.astype(index_dtype)


CONFIGS = [  # in_size, head_size, heads, num_ntypes, num_etypes, use_norm
    (6, 3, 2, 3, 4, False),  # in_size == heads * head_size: the skip is x itself
    (5, 3, 2, 3, 4, True),  # residual_w and LayerNorm
    (8, 8, 1, 1, 2, False),  # one head, one node type
    (4, 2, 4, 2, 5, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("config", CONFIGS)
def test_dgl_hgt_conv_matches_dgl_formula(dtype, index_dtype, config):
    in_size, head_size, heads, nt, et, use_norm = config
    rng = np.random.default_rng(0)
    sd = _dgl_state(rng, in_size, head_size, heads, nt, et, use_norm, dtype)
    conv = agnn.DGLHGTConv(in_size, head_size, heads, nt, et, use_norm=use_norm, dtype=dtype)
    conv.load_state_dict(sd, format="dgl")
    assert set(conv.state_dict(format="dgl")) == set(sd)
    n = 16
    ei, etype = _graph(rng, n, 60, et, index_dtype)
    ntype = rng.integers(0, nt, n).astype(index_dtype)
    x = rng.standard_normal((n, in_size)).astype(dtype)
    ref = dgl_hgt_reference(sd, x, ei[0], ei[1], ntype, etype, heads, head_size)
    out = conv(x, ei, ntype, etype)
    assert out.dtype == dtype and out.shape == (n, head_size * heads)
    assert rel_err(out, ref) <= TOL[dtype] * 10
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=n)
    np.testing.assert_array_equal(conv(g, x, ntype, etype, presorted=True), out)
    # a block: targets are the first 10 source nodes, and their rows of x and ntype
    keep = ei[1] < 10
    block = FakeBlock(ei[:, keep], n, 10)
    ref = dgl_hgt_reference(
        sd, x, ei[0][keep], ei[1][keep], ntype, etype[keep], heads, head_size, num_dst=10
    )
    out = conv(block, x, ntype, etype[keep])
    assert out.shape == (10, head_size * heads)
    assert rel_err(out, ref) <= TOL[dtype] * 10


def test_dgl_hgt_conv_sparse_pairs_and_sorted_input():
    """Many nodes and types, few edges: the (source, type) pairs are found by a sort
    instead of a mark per possible pair; a type-sorted graph gives the same numbers."""
    rng = np.random.default_rng(1)
    n, nt, et = 400, 3, 6
    sd = _dgl_state(rng, 5, 2, 2, nt, et, False, np.float64)
    conv = agnn.DGLHGTConv(5, 2, 2, nt, et, dtype=np.float64).load_state_dict(sd)
    ei, etype = _graph(rng, n, 50, et, np.int64, isolated=0)
    ntype = np.sort(rng.integers(0, nt, n))
    x = rng.standard_normal((n, 5))
    ref = dgl_hgt_reference(sd, x, ei[0], ei[1], ntype, etype, 2, 2)
    assert rel_err(conv(x, ei, ntype, etype), ref) <= 1e-12
    order = np.argsort(etype, kind="stable")
    out = conv(x, ei[:, order], ntype, etype[order], presorted=True)
    assert rel_err(out, ref) <= 1e-12
    empty = conv(x, np.zeros((2, 0), np.int64), ntype, np.zeros(0, np.int64))
    gate = 1 / (1 + np.exp(-sd["skip"][ntype]))[:, None]
    assert rel_err(empty, (x @ sd["residual_w"]) * (1 - gate)) <= 1e-12


def test_dgl_hgt_conv_inputs_untouched_and_round_trip():
    rng = np.random.default_rng(2)
    sd = _dgl_state(rng, 6, 3, 2, 2, 3, True, np.float32)
    conv = agnn.DGLHGTConv(6, 3, 2, 2, 3, use_norm=True).load_state_dict(sd, format="dgl")
    ei, etype = _graph(rng, 12, 40, 3, np.int64)
    ntype = rng.integers(0, 2, 12)
    x = rng.standard_normal((12, 6)).astype(np.float32)
    before = [a.copy() for a in (x, ei, ntype, etype)]
    out = conv(x, ei, ntype, etype)
    for a, b in zip(before, (x, ei, ntype, etype)):
        np.testing.assert_array_equal(a, b)
    again = agnn.DGLHGTConv(6, 3, 2, 2, 3, use_norm=True)
    again.load_state_dict(conv.state_dict(format="dgl"), format="dgl")
    np.testing.assert_array_equal(again(x, ei, ntype, etype), out)
    assert "DGLHGTConv(6, 3, 2" in repr(conv)


def test_dgl_hgt_conv_from_dgl():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)

    class HGTConv(torch.nn.Module):  # DGL's attributes and parameter names
        def __init__(self, in_size, head_size, num_heads, num_ntypes, num_etypes, use_norm):
            super().__init__()
            hd = head_size * num_heads
            self.in_size, self.head_size, self.num_heads = in_size, head_size, num_heads
            self.use_norm = use_norm
            self.linear_k = dgl_typed_linear(torch, in_size, hd, num_ntypes)
            self.linear_q = dgl_typed_linear(torch, in_size, hd, num_ntypes)
            self.linear_v = dgl_typed_linear(torch, in_size, hd, num_ntypes)
            self.linear_a = dgl_typed_linear(torch, hd, hd, num_ntypes)
            self.relation_pri = torch.nn.ParameterList(
                [torch.nn.Parameter(torch.rand(num_etypes) + 0.5) for _ in range(num_heads)]
            )
            self.relation_att = torch.nn.ModuleList(
                [
                    dgl_typed_linear(torch, head_size, head_size, num_etypes)
                    for _ in range(num_heads)
                ]
            )
            self.relation_msg = torch.nn.ModuleList(
                [
                    dgl_typed_linear(torch, head_size, head_size, num_etypes)
                    for _ in range(num_heads)
                ]
            )
            self.skip = torch.nn.Parameter(torch.randn(num_ntypes))
            self.drop = torch.nn.Dropout(0.2)
            if use_norm:
                self.norm = torch.nn.LayerNorm(hd, eps=1e-3)
                torch.nn.init.normal_(self.norm.bias)
            if in_size != hd:
                self.residual_w = torch.nn.Parameter(torch.randn(in_size, hd))

    torch.manual_seed(0)
    for use_norm, in_size in ((True, 5), (False, 6)):
        module = HGTConv(in_size, 3, 2, 3, 4, use_norm).double()
        conv = agnn.from_dgl(module)
        assert isinstance(conv, agnn.DGLHGTConv) and conv.dtype == np.float64
        ei, etype = _graph(rng, 14, 50, 4, np.int64)
        ntype = rng.integers(0, 3, 14)
        x = rng.standard_normal((14, in_size))
        sd = {k: v.detach().numpy() for k, v in module.state_dict().items()}
        ref = dgl_hgt_reference(sd, x, ei[0], ei[1], ntype, etype, 2, 3, eps=1e-3)
        assert rel_err(conv(x, ei, ntype, etype), ref) <= 1e-12


def test_dgl_hgt_conv_errors():
    conv = agnn.DGLHGTConv(4, 2, 2, num_ntypes=2, num_etypes=3, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    nt, et = np.array([0, 1, 0, 1, 0]), np.array([0, 2, 1])
    with pytest.raises(ValueError, match="num_heads must be in"):
        agnn.DGLHGTConv(4, 2, 0, 2, 3)
    with pytest.raises(TypeError, match="ntype must hold integers"):
        conv(x, ei, nt.astype(np.float32), et)
    with pytest.raises(ValueError, match=r"ntype must have shape \(5,\)"):
        conv(x, ei, nt[:4], et)
    with pytest.raises(ValueError, match="DGLHGTConv: ntype"):
        conv(x, ei, nt + 1, et)
    with pytest.raises(ValueError, match=r"etype must have shape \(3,\)"):
        conv(x, ei, nt, et[:2])
    with pytest.raises(ValueError, match="DGLHGTConv: etype"):
        conv(x, ei, nt, et + 1)
    with pytest.raises(TypeError, match="etype must be a NumPy or CuPy integer array"):
        conv(x, ei, nt, [0, 2, 1])
    with pytest.raises(ValueError, match="expected last dimension 4"):
        conv(np.ones((5, 3), np.float32), ei, nt, et)
    with pytest.raises(TypeError, match="x must be one feature array"):
        conv((x, x), ei, nt, et)
    bip = FakeBlock(np.array([[0, 1], [0, 1]]), 5, 2)
    bip.is_block = False  # a bipartite graph that is not a block
    with pytest.raises(ValueError, match="destination features have 5 rows"):
        conv(bip, x, nt, np.array([0, 1]))
