"""SuperGATConv, RGATConv, EGConv and GMMConv against PyG 2.8 in eval mode (weights through
``from_pyg``, every parameter drawn from U(-1, 1); float32 within 1e-5 relative, float64
within 1e-12) on random multigraphs with self-loops, repeated edges and nodes without
in-edges, graphs with isolated nodes and empty edge sets, int32 / int64 ids; bipartite
inputs for GMMConv (the only one of the four PyG runs on them); DGL's GMMConv against its
forward transcribed into torch (DGL does not install here); state dicts; errors naming the
layer and the argument."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _nn_cases import TOL, FakeBlock, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from test_nn_pyg_layers_c import N, _converted, _graph, _t  # noqa: E402

DTYPES = [np.float32, np.float64]
KINDS = ["multi", "isolated", "empty"]


def _pyg(module, *args, **kwargs):
    with torch.no_grad():
        return module.eval()(*[_t(a) for a in args], **kwargs)


def _check(out, expected, dtype):
    expected = expected.numpy() if hasattr(expected, "numpy") else expected
    assert out.dtype == dtype
    assert rel_err(out, expected) <= TOL[dtype]


# ---- SuperGATConv ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loops", [True, False])
@pytest.mark.parametrize("concat", [True, False])
@pytest.mark.parametrize("attention_type", ["MX", "SD"])
def test_super_gat_matches_pyg(attention_type, concat, loops, kind, index_dtype, dtype):
    ref, conv = _converted(
        lambda: pyg_nn.SuperGATConv(
            6,
            4,
            heads=3,
            concat=concat,
            attention_type=attention_type,
            add_self_loops=loops,
            negative_slope=0.3,
        ),  # fmt: skip
        dtype,
    )
    rng = np.random.default_rng(1)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    x_copy, ei_copy = x.copy(), ei.copy()
    out, (att_ei, alpha) = conv(x, ei, return_attention_weights=True)
    _check(out, _pyg(ref, x, ei), dtype)
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_array_equal(ei, ei_copy)
    # the attention is PyG's get_attention on the edges attended over
    h = ref.lin(_t(x)).view(-1, 3, 4)
    att_t = torch.from_numpy(att_ei.astype(np.int64))
    with torch.no_grad():
        expected = ref.get_attention(att_t[1], h[att_t[1]], h[att_t[0]], num_nodes=N)
    assert alpha.shape == (att_ei.shape[1], 3)
    assert rel_err(alpha, expected.numpy()) <= TOL[dtype]
    if loops:  # the loops PyG adds: one per node, existing ones dropped
        assert int((att_ei[0] == att_ei[1]).sum()) == N


def test_super_gat_graph_form_and_state_dict():
    ref, conv = _converted(lambda: pyg_nn.SuperGATConv(6, 4, heads=2), np.float32)
    rng = np.random.default_rng(2)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 6)).astype(np.float32)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    np.testing.assert_allclose(conv(g, x), conv(x, ei), rtol=1e-6, atol=1e-6)
    # neg_edge_index / batch only feed PyG's training loss: accepted, ignored
    np.testing.assert_array_equal(conv(x, ei, ei[:, :3], np.zeros(N, np.int64)), conv(x, ei))
    fresh = agnn.SuperGATConv(6, 4, heads=2).load_state_dict(ref.state_dict())
    np.testing.assert_array_equal(fresh(x, ei), conv(x, ei))
    sd = agnn.SuperGATConv(6, 4, attention_type="SD")
    assert sorted(sd.state_dict()) == ["bias", "lin.weight"]
    assert "type=MX" in repr(conv)


def test_super_gat_errors():
    with pytest.raises(ValueError, match="SuperGATConv: attention_type"):
        agnn.SuperGATConv(4, 2, attention_type="GO")
    with pytest.raises(ValueError, match="SuperGATConv: neg_sample_ratio"):
        agnn.SuperGATConv(4, 2, edge_sample_ratio=1.5)
    with pytest.raises(TypeError, match="SuperGATConv: concat"):
        agnn.SuperGATConv(4, 2, concat=None)
    conv = agnn.SuperGATConv(4, 2, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="SuperGATConv: bipartite"):
        conv((x, x[:3]), ei)
    with pytest.raises(ValueError, match="SuperGATConv node features"):
        conv(np.ones((5, 3), np.float32), ei)
    with pytest.raises(ValueError, match="SuperGATConv.*out of range"):
        conv(x, np.array([[0, 9], [1, 2]]))
    with pytest.raises(ValueError, match="SuperGATConv.*homogeneous"):
        conv(FakeBlock(ei, 5, 3), x)


# ---- RGATConv -------------------------------------------------------------------------
MECHANISMS = ["within-relation", "across-relation"]
MODES = ["additive-self-attention", "multiplicative-self-attention"]
MODS = [None, "additive", "scaled", "f-additive", "f-scaled"]
DECOMPOSITIONS = [{}, {"num_bases": 2}, {"num_blocks": 2}]


def _rgat(mechanism, mode, mod, decomposition, edge_dim, concat=True):
    dim = 1 if mode == MODES[0] else 2
    return lambda: pyg_nn.RGATConv(
        6, 4, 3, mod=mod, attention_mechanism=mechanism, attention_mode=mode, heads=2,
        dim=dim, concat=concat, edge_dim=edge_dim, **decomposition,
    )  # fmt: skip


def _rgat_inputs(rng, kind, index_dtype, dtype, num_edges=None):
    ei = _graph(rng, kind, index_dtype)
    if num_edges is not None and ei.shape[1]:
        ei = ei[:, :num_edges]
    et = rng.integers(0, 3, ei.shape[1]).astype(index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    return x, ei, et, ea


@pytest.mark.parametrize(
    "mechanism,mode,mod,decomposition,edge_dim",
    list(itertools.product(MECHANISMS, MODES, MODS, DECOMPOSITIONS, [None, 3])),
)
def test_rgat_every_combination(mechanism, mode, mod, decomposition, edge_dim):
    """Each setting PyG accepts, float64, on both projection paths (per (node, relation)
    table: 70 edges >= 20 nodes x 3 relations; per edge: 30 edges)."""
    ref, conv = _converted(_rgat(mechanism, mode, mod, decomposition, edge_dim), np.float64)
    for num_edges in (None, 30):
        rng = np.random.default_rng(3)
        x, ei, et, ea = _rgat_inputs(rng, "multi", np.int64, np.float64, num_edges)
        ea = ea if edge_dim else None
        out, (att_ei, alpha) = conv(x, ei, et, ea, return_attention_weights=True)
        expected, (_, expected_alpha) = _pyg(ref, x, ei, et, ea, return_attention_weights=True)
        _check(out, expected, np.float64)
        np.testing.assert_array_equal(att_ei, ei)
        assert rel_err(alpha, expected_alpha.numpy()) <= 1e-12


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "setting",
    [
        ("across-relation", MODES[0], None, {}, 3, True),
        ("within-relation", MODES[1], "scaled", {"num_bases": 2}, None, False),
        ("across-relation", MODES[1], "additive", {"num_blocks": 2}, 3, True),
        ("within-relation", MODES[0], "f-scaled", {}, None, False),
    ],
)
def test_rgat_matches_pyg(setting, kind, index_dtype, dtype):
    ref, conv = _converted(_rgat(*setting), dtype)
    rng = np.random.default_rng(4)
    x, ei, et, ea = _rgat_inputs(rng, kind, index_dtype, dtype)
    ea = ea if setting[4] else None
    copies = [a.copy() for a in (x, ei, et)]
    _check(conv(x, ei, et, ea), _pyg(ref, x, ei, et, ea), dtype)
    for a, b in zip((x, ei, et), copies):
        np.testing.assert_array_equal(a, b)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)  # DGL form: conv(g, feat, etypes)
    np.testing.assert_array_equal(conv(g, x, et, ea), conv(x, ei, et, ea))


def test_rgat_edge_dim_without_edge_attr():
    """With edge_dim but no edge_attr PyG leaves the edge term out; so does RGATConv."""
    ref, conv = _converted(_rgat(MECHANISMS[1], MODES[1], None, {}, 3), np.float64)
    x, ei, et, _ = _rgat_inputs(np.random.default_rng(5), "multi", np.int64, np.float64)
    _check(conv(x, ei, et), _pyg(ref, x, ei, et), np.float64)
    assert sorted(conv.state_dict()) == sorted(ref.state_dict())


def test_rgat_errors():
    with pytest.raises(ValueError, match="RGATConv: attention_mechanism"):
        agnn.RGATConv(4, 2, 3, attention_mechanism="inter-relation")
    with pytest.raises(ValueError, match="RGATConv: attention_mode"):
        agnn.RGATConv(4, 2, 3, attention_mode="dot")
    with pytest.raises(ValueError, match="RGATConv: attention_mode=.*dim=1"):
        agnn.RGATConv(4, 2, 3, dim=2)
    with pytest.raises(ValueError, match="RGATConv: mod"):
        agnn.RGATConv(4, 2, 3, mod="multiplicative")
    with pytest.raises(ValueError, match="RGATConv: mod must be None when dropout"):
        agnn.RGATConv(4, 2, 3, mod="scaled", dropout=0.5)
    with pytest.raises(ValueError, match="RGATConv: num_bases and num_blocks"):
        agnn.RGATConv(4, 2, 3, num_bases=2, num_blocks=2)
    with pytest.raises(ValueError, match="RGATConv: in_channels .* num_blocks"):
        agnn.RGATConv(5, 2, 3, num_blocks=2)
    conv = agnn.RGATConv(4, 2, 3, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(TypeError, match="RGATConv: edge_type is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match="RGATConv: edge_type has relation 3"):
        conv(x, ei, np.array([0, 3]))
    with pytest.raises(ValueError, match="RGATConv: edge_type must have shape"):
        conv(x, ei, np.array([0]))
    with pytest.raises(ValueError, match="RGATConv: edge_attr was given"):
        conv(x, ei, np.array([0, 1]), np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="RGATConv: bipartite"):
        conv((x, x), ei, np.array([0, 1]))
    with pytest.raises(ValueError, match="RGATConv node features"):
        conv(np.ones((5, 3), np.float32), ei, np.array([0, 1]))
    with_edges = agnn.RGATConv(4, 2, 3, edge_dim=3, rng=0)
    with pytest.raises(ValueError, match="RGATConv: edge_attr must have shape"):
        with_edges(x, ei, np.array([0, 1]), np.ones((2, 2), np.float32))


# ---- EGConv ---------------------------------------------------------------------------
AGGREGATOR_SETS = [
    None,
    ["sum"],
    ["mean", "max"],
    ["min", "symnorm", "var", "std"],
    ["std", "sum", "symnorm", "mean", "max", "min", "var"],
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loops", [True, False])
@pytest.mark.parametrize("aggregators", AGGREGATOR_SETS, ids=str)
def test_eg_matches_pyg(aggregators, loops, kind, index_dtype, dtype):
    ref, conv = _converted(
        lambda: pyg_nn.EGConv(6, 8, aggregators, num_heads=2, num_bases=3, add_self_loops=loops),
        dtype,
    )
    rng = np.random.default_rng(6)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    ei_copy = ei.copy()
    _check(conv(x, ei), _pyg(ref, x, ei), dtype)
    np.testing.assert_array_equal(ei, ei_copy)


def test_eg_cached_and_graph_form():
    ref, conv = _converted(
        lambda: pyg_nn.EGConv(6, 8, ["symnorm", "max"], 2, 3, cached=True), np.float64
    )
    rng = np.random.default_rng(7)
    ei = _graph(rng, "multi", np.int64)
    x = rng.standard_normal((N, 6))
    _check(conv(x, ei), _pyg(ref, x, ei), np.float64)
    other = _graph(rng, "isolated", np.int64)  # cached: both keep the first graph, as PyG
    _check(conv(x, other), _pyg(ref, x, other), np.float64)
    conv.clear_cache()
    fresh = agnn.from_pyg(pyg_nn.EGConv(6, 8, ["max"], 2, 3).double())
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    np.testing.assert_array_equal(fresh(g, x), fresh(x, ei))
    assert sorted(fresh.state_dict()) == sorted(
        ["bases_lin.weight", "comb_lin.weight", "comb_lin.bias", "bias"]
    )


def test_eg_errors():
    with pytest.raises(ValueError, match="EGConv: out_channels .* num_heads"):
        agnn.EGConv(4, 6, num_heads=4)
    with pytest.raises(ValueError, match="EGConv: aggregators"):
        agnn.EGConv(4, 8, aggregators=["softmax"])
    conv = agnn.EGConv(4, 8, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="EGConv: bipartite"):
        conv((x, x[:2]), ei)
    with pytest.raises(ValueError, match="EGConv node features"):
        conv(np.ones((5, 2), np.float32), ei)
    with pytest.raises(ValueError, match="EGConv.*out of range"):
        conv(x, np.array([[0, 1], [1, 5]]))
    with pytest.raises(TypeError, match="EGConv: edge_index must hold integers"):
        conv(x, ei.astype(np.float32))


# ---- GMMConv (PyG) ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("aggr", ["mean", "add", "max", "min"])
@pytest.mark.parametrize("separate", [False, True])
def test_gmm_matches_pyg(separate, aggr, kind, index_dtype, dtype):
    ref, conv = _converted(lambda: pyg_nn.GMMConv(6, 4, 3, 5, separate, aggr), dtype)
    rng = np.random.default_rng(8)
    ei = _graph(rng, kind, index_dtype)
    x = rng.standard_normal((N, 6)).astype(dtype)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    copies = [a.copy() for a in (x, ei, ea)]
    _check(conv(x, ei, ea), _pyg(ref, x, ei, ea), dtype)
    for a, b in zip((x, ei, ea), copies):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("aggr", ["mean", "max"])
@pytest.mark.parametrize("separate", [False, True])
def test_gmm_bipartite(separate, aggr):
    ref, conv = _converted(lambda: pyg_nn.GMMConv((6, 5), 4, 2, 3, separate, aggr), np.float64)
    rng = np.random.default_rng(9)
    ei = _graph(rng, "multi", np.int32, num_src=N, num_dst=12)
    x = (rng.standard_normal((N, 6)), rng.standard_normal((12, 5)))
    ea = rng.standard_normal((ei.shape[1], 2))
    _check(conv(x, ei, ea), _pyg(ref, x, ei, ea), np.float64)
    # x_dst None: no root term, size gives the targets (as PyG)
    with torch.no_grad():
        expected = ref((_t(x[0]), None), _t(ei), _t(ea), size=(N, 12))
    _check(conv((x[0], None), ei, ea, size=(N, 12)), expected, np.float64)
    # root_weight=False (PyG 2.8's forward fails then: no `root` attribute): PyG's output
    # without its root term
    plain = agnn.GMMConv((6, 5), 4, 2, 3, separate, aggr, root_weight=False, dtype=np.float64)
    plain.load_state_dict({k: v for k, v in ref.state_dict().items() if k != "root.weight"})
    with torch.no_grad():
        root = ref.root(_t(x[1])).numpy()
    _check(plain(x, ei, ea), _pyg(ref, x, ei, ea).numpy() - root, np.float64)


def test_gmm_errors():
    with pytest.raises(ValueError, match="GMMConv: aggr"):
        agnn.GMMConv(4, 2, 3, 2, aggr="softmax")
    with pytest.raises(ValueError, match="GMMConv: kernel_size"):
        agnn.GMMConv(4, 2, 3, 0)
    conv = agnn.GMMConv(4, 2, 3, 2, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="GMMConv: edge_attr .* is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match="GMMConv: edge_attr must have shape"):
        conv(x, ei, np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="GMMConv: edge_attr must hold floating"):
        conv(x, ei, np.ones((2, 3), np.int64))
    with pytest.raises(ValueError, match="GMMConv source features"):
        conv(np.ones((5, 3), np.float32), ei, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="GMMConv.*out of range"):
        conv(x, np.array([[0, 8], [1, 2]]), np.ones((2, 3), np.float32))


# ---- GMMConv (DGL) ----------------------------------------------------------------------
def _dgl_reducers():
    """Stand-ins for ``dgl.function.sum / mean / max`` (DGL keeps the function; its name
    tells the reduction)."""

    def sum(msg, out):  # noqa: A001
        return None

    def mean(msg, out):
        return None

    def max(msg, out):  # noqa: A001
        return None

    return {"sum": sum, "mean": mean, "max": max}


def _dgl_gmm(in_feats, out_feats, dim, n_kernels, aggregator_type, residual, bias=True):
    """DGL's ``GMMConv`` (dgl/nn/pytorch/conv/gmmconv.py), its parameters and forward
    transcribed into torch with the message passing written out."""

    class GMMConv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            src, dst = in_feats if isinstance(in_feats, tuple) else (in_feats, in_feats)
            self._in_src_feats, self._in_dst_feats = src, dst
            self._out_feats, self._dim, self._n_kernels = out_feats, dim, n_kernels
            self._allow_zero_in_degree = True
            self._reducer = _dgl_reducers()[aggregator_type]
            self.mu = torch.nn.Parameter(torch.randn(n_kernels, dim))
            self.inv_sigma = torch.nn.Parameter(torch.rand(n_kernels, dim) + 0.5)
            self.fc = torch.nn.Linear(src, n_kernels * out_feats, bias=False)
            if residual:
                if dst != out_feats:
                    self.res_fc = torch.nn.Linear(dst, out_feats, bias=False)
                else:
                    self.res_fc = torch.nn.Identity()
            else:
                self.register_buffer("res_fc", None)
            if bias:
                self.bias = torch.nn.Parameter(torch.randn(out_feats))
            else:
                self.register_buffer("bias", None)

        def forward(self, edge_index, num_dst, feat, pseudo):
            feat_src, feat_dst = feat if isinstance(feat, tuple) else (feat, feat[:num_dst])
            h = self.fc(feat_src).view(-1, self._n_kernels, self._out_feats)
            E = edge_index.shape[1]
            gaussian = -0.5 * ((pseudo.view(E, 1, self._dim) - self.mu.view(1, -1, self._dim)) ** 2)
            gaussian = gaussian * (self.inv_sigma.view(1, -1, self._dim) ** 2)
            gaussian = torch.exp(gaussian.sum(dim=-1, keepdim=True))  # (E, K, 1)
            m = h[edge_index[0]] * gaussian  # u_mul_e
            index = edge_index[1].view(-1, 1, 1).expand_as(m)
            reduce = {"sum": "sum", "mean": "mean", "max": "amax"}[aggregator_type]
            out = torch.zeros(num_dst, self._n_kernels, self._out_feats, dtype=m.dtype)
            out = out.scatter_reduce(0, index, m, reduce, include_self=False)
            rst = out.sum(1)
            if self.res_fc is not None:
                rst = rst + self.res_fc(feat_dst)
            if self.bias is not None:
                rst = rst + self.bias
            return rst

    return GMMConv()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("residual", [False, "linear", "identity"])
@pytest.mark.parametrize("aggregator", ["sum", "mean", "max"])
def test_dgl_gmm_matches_dgl(aggregator, residual, kind, dtype):
    torch.manual_seed(10)
    out_feats = 6 if residual == "identity" else 4
    module = _dgl_gmm(6, out_feats, 3, 4, aggregator, bool(residual))
    module = module.to(torch.float64 if dtype == np.float64 else torch.float32)
    conv = agnn.from_dgl(module)
    assert isinstance(conv, agnn.DGLGMMConv)
    assert sorted(conv.state_dict(format="dgl")) == sorted(module.state_dict())
    rng = np.random.default_rng(11)
    ei = _graph(rng, kind, np.int32)
    x = rng.standard_normal((N, 6)).astype(dtype)
    pseudo = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    with torch.no_grad():
        expected = module(_t(ei), N, _t(x), _t(pseudo))
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    _check(conv(g, x, pseudo), expected, dtype)
    _check(conv(x, ei, pseudo), expected, dtype)  # PyG's calling form too


def test_dgl_gmm_bipartite_and_block():
    torch.manual_seed(12)
    module = _dgl_gmm((6, 5), 4, 2, 3, "mean", True).double()
    conv = agnn.from_dgl(module)
    rng = np.random.default_rng(13)
    ei = _graph(rng, "multi", np.int64, num_src=N, num_dst=12)
    feats = (rng.standard_normal((N, 6)), rng.standard_normal((12, 5)))
    pseudo = rng.standard_normal((ei.shape[1], 2))
    with torch.no_grad():
        expected = module(_t(ei), 12, _t(feats), _t(pseudo))
    _check(conv(feats, ei, pseudo), expected, np.float64)
    # a block: the destination features are the first rows of feat
    block_module = _dgl_gmm(6, 4, 2, 3, "max", True).double()
    block_conv = agnn.from_dgl(block_module)
    x = rng.standard_normal((N, 6))
    with torch.no_grad():
        expected = block_module(_t(ei), 12, _t(x), _t(pseudo))
    _check(block_conv(FakeBlock(ei, N, 12), x, pseudo), expected, np.float64)


def test_dgl_gmm_errors():
    conv = agnn.DGLGMMConv(4, 2, 3, 2, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="DGLGMMConv: .*zero in-degree"):
        conv(x, ei, np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="DGLGMMConv: aggregator_type"):
        agnn.DGLGMMConv(4, 2, 3, 2, "min")
    module = _dgl_gmm(4, 2, 3, 2, "sum", False)
    module._reducer = lambda msg, out: None
    with pytest.raises(ValueError, match="from_dgl: GMMConv reducer"):
        agnn.from_dgl(module)
    loose = agnn.DGLGMMConv(4, 2, 3, 2, allow_zero_in_degree=True, rng=0)
    with pytest.raises(ValueError, match="DGLGMMConv: pseudo must have shape"):
        loose(x, ei, np.ones((3, 3), np.float32))
    with_res = agnn.DGLGMMConv(4, 2, 3, 2, residual=True, allow_zero_in_degree=True, rng=0)
    with pytest.raises(ValueError, match="DGLGMMConv.*needs destination features"):
        with_res((x, None), ei, np.ones((2, 3), np.float32), size=(5, 5))
    ring = random_graph(np.random.default_rng(0), 5, isolated=0)
    assert loose(x, ring, np.ones((ring.shape[1], 3), np.float32)).shape == (5, 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: pyg_nn.SuperGATConv(-1, 3),
        lambda: pyg_nn.EGConv(-1, 8, num_heads=2),
        lambda: pyg_nn.GMMConv(-1, 3, 2, 2),
        lambda: pyg_nn.GMMConv((-1, -1), 3, 2, 2),
    ],
    ids=["supergat", "eg", "gmm", "gmm-pair"],
)
def test_lazy_sizes_convert_after_a_forward_pass(make):
    module = make().eval()
    rng = np.random.default_rng(14)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    args = (x, ei) if type(module).__name__ != "GMMConv" else (x, ei, np.ones((4, 2), np.float32))
    if isinstance(module.in_channels, tuple):
        args = ((x, x),) + args[1:]
    if type(module).__name__ != "GMMConv":  # (PyG's GMMConv fails in its state_dict first)
        with pytest.raises(ValueError, match="lazy sizes"):
            agnn.from_pyg(module)
    expected = _pyg(module, *args)
    _check(agnn.from_pyg(module)(*args), expected, np.float32)
