"""DotGatConv and AGNNConv (DGL's) against NumPy transcriptions of DGL's formulas (DGL
does not install next to torch here): multigraphs with self-loops, repeated edges and
nodes without in-edges, bipartite pairs and blocks, the graph and edge_index forms,
int32 / int64 ids, float32 / float64; DGL's zero-in-degree check; loading by DGL's names
(NumPy state dicts and ``from_dgl`` on stand-in modules); errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn

DTYPES = [np.float32, np.float64]


def _edge_softmax(dst, logits, num_dst):
    out = np.zeros_like(logits)
    for t in range(num_dst):
        into = np.flatnonzero(dst == t)
        if into.size:
            z = np.exp(logits[into] - logits[into].max(0))
            out[into] = z / z.sum(0)
    return out


def dot_gat_reference(w_src, w_dst, x_src, x_dst, ei, heads, out_feats):
    """DGL DotGatConv: ``ft = fc(x)`` ``[N, H, F]``, ``a = u_dot_v / sqrt(F)``, edge
    softmax, ``sum u_mul_e``; returns ``(out [N_dst, H, F], attention [E, H, 1])``."""
    src, dst = ei[0], ei[1]
    hs = (np.asarray(x_src, np.float64) @ np.asarray(w_src, np.float64).T).reshape(
        -1, heads, out_feats
    )
    hd = (np.asarray(x_dst, np.float64) @ np.asarray(w_dst, np.float64).T).reshape(
        -1, heads, out_feats
    )
    a = (hs[src] * hd[dst]).sum(-1) / out_feats**0.5
    sa = _edge_softmax(dst, a, hd.shape[0])
    out = np.zeros(hd.shape)
    np.add.at(out, dst, hs[src] * sa[:, :, None])
    return out, sa[:, :, None]


def agnn_reference(beta, x_src, x_dst, ei):
    """DGL AGNNConv: cosine of L2-normalised features (last dim), times beta, edge softmax,
    weighted sum of the raw source features."""
    src, dst = ei[0], ei[1]
    xs, xd = np.asarray(x_src, np.float64), np.asarray(x_dst, np.float64)

    def unit(a):
        return a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)

    cos = (unit(xs)[src] * unit(xd)[dst]).sum(-1)  # [E, *]
    p = _edge_softmax(dst, beta * cos, xd.shape[0])
    out = np.zeros(xd.shape)
    np.add.at(out, dst, xs[src] * p[..., None])
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("heads", [1, 3])
def test_dot_gat_conv_matches_dgl_formula(dtype, index_dtype, heads):
    rng = np.random.default_rng(0)
    n = 20
    ei = random_graph(rng, n, index_dtype=index_dtype, isolated=2)
    x = rng.standard_normal((n, 6)).astype(dtype)
    w = rng.standard_normal((heads * 4, 6)).astype(dtype)
    conv = agnn.DotGatConv(6, 4, heads, allow_zero_in_degree=True, dtype=dtype)
    conv.load_state_dict({"fc.weight": w}, format="dgl")
    ref, ref_att = dot_gat_reference(w, w, x, x, ei, heads, 4)
    out, att = conv(x, ei, get_attention=True)
    assert (
        out.dtype == dtype and out.shape == (n, heads, 4) and att.shape == (ei.shape[1], heads, 1)
    )
    assert rel_err(out, ref) <= TOL[dtype] * 10
    assert rel_err(att, ref_att) <= TOL[dtype] * 10
    np.testing.assert_array_equal(out[-2:], 0)  # no in-edges: 0
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=n)
    np.testing.assert_array_equal(conv(g, x), out)
    # a block: the targets are the first 12 rows of the one feature array
    keep = ei[1] < 12
    block = FakeBlock(ei[:, keep], n, 12)
    ref, _ = dot_gat_reference(w, w, x, x[:12], ei[:, keep], heads, 4)
    assert rel_err(conv(block, x), ref) <= TOL[dtype] * 10


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot_gat_conv_bipartite(dtype):
    rng = np.random.default_rng(1)
    ei = random_graph(rng, 15, 9, num_edges=40, isolated=0)
    xs = rng.standard_normal((15, 5)).astype(dtype)
    xd = rng.standard_normal((9, 3)).astype(dtype)
    conv = agnn.DotGatConv((5, 3), 4, 2, dtype=dtype)
    ws = rng.standard_normal((8, 5)).astype(dtype)
    wd = rng.standard_normal((8, 3)).astype(dtype)
    conv.load_state_dict({"fc_src.weight": ws, "fc_dst.weight": wd}, format="dgl")
    ref, ref_att = dot_gat_reference(ws, wd, xs, xd, ei, 2, 4)
    assert rel_err(conv((xs, xd), ei), ref) <= TOL[dtype] * 10
    block = FakeBlock(ei, 15, 9)
    out, att = conv(block, (xs, xd), get_attention=True)
    assert rel_err(out, ref) <= TOL[dtype] * 10 and rel_err(att, ref_att) <= TOL[dtype] * 10
    # shared fc on a pair: both sides through fc (DGL would fail: it has no fc_src)
    shared = agnn.DotGatConv(5, 4, 2, dtype=dtype).load_state_dict({"fc.weight": ws})
    xd5 = rng.standard_normal((9, 5)).astype(dtype)
    ref, _ = dot_gat_reference(ws, ws, xs, xd5, ei, 2, 4)
    assert rel_err(shared((xs, xd5), ei), ref) <= TOL[dtype] * 10


def test_dot_gat_conv_zero_in_degree_check():
    rng = np.random.default_rng(2)
    ei = random_graph(rng, 10, isolated=2)
    x = rng.standard_normal((10, 4)).astype(np.float32)
    conv = agnn.DotGatConv(4, 2, 2, rng=0)
    with pytest.raises(
        ValueError, match=r"DotGatConv: 2 destination node\(s\) have zero in-degree"
    ):
        conv(x, ei)
    with pytest.raises(ValueError, match="allow_zero_in_degree=True"):
        conv(arraygnn.graph((ei[0], ei[1]), num_nodes=10), x)
    loops = np.concatenate([ei, np.stack([np.arange(10)] * 2)], axis=1)
    assert conv(x, loops).shape == (10, 2, 2)  # self-loops added by the caller: no error


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("beta", [1.0, -0.4, 3.0])
def test_agnn_conv_matches_dgl_formula(dtype, index_dtype, beta):
    rng = np.random.default_rng(3)
    n = 18
    ei = random_graph(rng, n, index_dtype=index_dtype, isolated=2)
    x = rng.standard_normal((n, 5)).astype(dtype)
    x[3] = 0  # a zero row: cosine 0 (normalised by max(||x||, 1e-12))
    conv = agnn.AGNNConv(beta, allow_zero_in_degree=True, dtype=dtype)
    out = conv(x, ei)
    assert out.dtype == dtype and out.shape == (n, 5)
    assert rel_err(out, agnn_reference(beta, x, x, ei)) <= TOL[dtype] * 10
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=n)
    np.testing.assert_array_equal(conv(g, x), out)
    # (N, H, F) features: every head attends on its own
    x3 = rng.standard_normal((n, 3, 4)).astype(dtype)
    out3 = conv(x3, ei)
    assert out3.shape == (n, 3, 4)
    assert rel_err(out3, agnn_reference(beta, x3, x3, ei)) <= TOL[dtype] * 10
    # bipartite pair and block
    bi = random_graph(rng, 12, 7, num_edges=30, index_dtype=index_dtype, isolated=0)
    xs = rng.standard_normal((12, 5)).astype(dtype)
    xd = rng.standard_normal((7, 5)).astype(dtype)
    ref = agnn_reference(beta, xs, xd, bi)
    assert rel_err(conv((xs, xd), bi), ref) <= TOL[dtype] * 10
    assert rel_err(conv(FakeBlock(bi, 12, 7), xs), agnn_reference(beta, xs, xs[:7], bi)) <= (
        TOL[dtype] * 10
    )


def test_agnn_conv_zero_in_degree_and_state():
    rng = np.random.default_rng(4)
    ei = random_graph(rng, 8, isolated=1)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    with pytest.raises(ValueError, match=r"AGNNConv: 1 destination node\(s\) have zero in-degree"):
        agnn.AGNNConv()(x, ei)
    conv = agnn.AGNNConv(learn_beta=False, allow_zero_in_degree=True)
    conv.load_state_dict({"beta": np.array([2.5])}, format="dgl")
    assert conv.state_dict(format="dgl")["beta"].tolist() == [2.5]
    before = x.copy()
    out = conv(x, ei)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(out[-1], 0)
    assert rel_err(out, agnn_reference(2.5, x, x, ei)) <= 1e-5
    assert "beta=2.5" in repr(conv)


def test_from_dgl_dot_gat_and_agnn():
    torch = pytest.importorskip("torch")

    class DotGatConv(torch.nn.Module):  # DGL's attributes and names
        def __init__(self, in_feats, out_feats, num_heads):
            super().__init__()
            pair = isinstance(in_feats, tuple)
            self._in_src_feats, self._in_dst_feats = in_feats if pair else (in_feats,) * 2
            self._out_feats, self._num_heads = out_feats, num_heads
            self._allow_zero_in_degree = True
            if pair:
                self.fc_src = torch.nn.Linear(in_feats[0], out_feats * num_heads, bias=False)
                self.fc_dst = torch.nn.Linear(in_feats[1], out_feats * num_heads, bias=False)
            else:
                self.fc = torch.nn.Linear(in_feats, out_feats * num_heads, bias=False)

    class AGNNConv(torch.nn.Module):
        def __init__(self, init_beta, learn_beta):
            super().__init__()
            self._allow_zero_in_degree = False
            if learn_beta:
                self.beta = torch.nn.Parameter(torch.tensor([init_beta]))
            else:
                self.register_buffer("beta", torch.tensor([init_beta]))

    rng = np.random.default_rng(5)
    ei = random_graph(rng, 12, isolated=1)
    x = rng.standard_normal((12, 6))
    module = DotGatConv(6, 3, 2).double()
    conv = agnn.from_dgl(module)
    assert isinstance(conv, agnn.DotGatConv) and conv.allow_zero_in_degree
    w = module.fc.weight.detach().numpy()
    assert rel_err(conv(x, ei), dot_gat_reference(w, w, x, x, ei, 2, 3)[0]) <= 1e-12
    module = DotGatConv((6, 4), 3, 2)
    conv = agnn.from_dgl(module)
    assert conv.fc is None and conv.in_dst == 4
    for learn in (True, False):
        conv = agnn.from_dgl(AGNNConv(0.7, learn))
        assert isinstance(conv, agnn.AGNNConv) and not conv.allow_zero_in_degree
        assert conv.learn_beta is learn and np.isclose(conv.beta[0], 0.7)


def test_dot_gat_and_agnn_errors():
    x = np.ones((4, 3), np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    with pytest.raises(ValueError, match="num_heads must be in"):
        agnn.DotGatConv(3, 2, 0)
    with pytest.raises(TypeError, match="in_feats must be an int or a pair"):
        agnn.DotGatConv("3", 2, 1)
    with pytest.raises(ValueError, match="DotGatConv source features: expected last dimension 5"):
        agnn.DotGatConv(5, 2, 1)(x, ei)
    with pytest.raises(ValueError, match="DotGatConv destination features: expected last"):
        agnn.DotGatConv((3, 5), 2, 1)((x, x), ei)
    with pytest.raises(ValueError, match=r"edge_index must have shape \[2, E\]"):
        agnn.DotGatConv(3, 2, 1)(x, ei[0])
    with pytest.raises(TypeError, match="init_beta must be a number"):
        agnn.AGNNConv("1")
    with pytest.raises(TypeError, match="source features must hold floating-point"):
        agnn.AGNNConv()(x.astype(np.int64), ei)
    with pytest.raises(ValueError, match="one shape per node"):
        agnn.AGNNConv()((x, np.ones((4, 2), np.float32)), ei)
    with pytest.raises(ValueError, match=r"feat_src \(feat\[0\]\)|source features have"):
        agnn.AGNNConv()(arraygnn.graph((ei[0], ei[1]), num_nodes=4), x[:3])
