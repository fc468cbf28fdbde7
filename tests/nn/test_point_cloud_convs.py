"""PointTransformerConv, PPFConv, PointGNNConv and XConv against PyG's (weights through
``from_pyg``, nested torch ``Sequential`` / ``Linear`` / PyG ``MLP`` nets converted by the
registered converters; float32 within 1e-5 relative, float64 within 1e-12) on random point
clouds: multigraphs with self-loops, repeated edges and targets without in-edges, empty
edge sets, one point, duplicate points, bipartite inputs where PyG takes them, batches with
an empty example, int32 / int64 ids, float32 / float64; pieces of CSR rows against one
piece; state-dict names; errors naming the layer. XConv: PyG 2.8.1 calls
``torch.ops.pyg.knn`` (pyg-lib, not installed here): the test puts a torch wrapper of
:func:`arraygnn.utils.knn` there, which is what the arraygnn layer searches with."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn import ops

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]
L, S, R = torch.nn.Linear, torch.nn.Sequential, torch.nn.ReLU


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _run(module, *args):
    with torch.no_grad():
        return module(*[_t(a) for a in args]).numpy()


def _tdtype(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _randomise(module):
    """Every parameter from U(-1, 1), batch-norm statistics random; eval mode."""
    torch.manual_seed(0)
    for p in module.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    for m in module.modules():
        if isinstance(m, torch.nn.BatchNorm1d):
            m.running_mean.normal_()
            m.running_var.uniform_(0.5, 2.0)
    return module.eval()


def _names(module):
    return sorted(k for k in module.state_dict() if not k.endswith("num_batches_tracked"))


def _edges(rng, kind, index_dtype, n_src, n_dst):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    return random_graph(rng, n_src, n_dst, 4 * n_dst, index_dtype, isolated=min(3, n_dst - 1))


def _points(rng, n, dtype, duplicates):
    pos = rng.standard_normal((n, 3)).astype(dtype)
    if duplicates and n >= 4:
        pos[1], pos[3] = pos[0], pos[2]
    return pos


GRAPHS = [("multi", 20, False), ("empty", 20, False), ("one", 1, False), ("dups", 20, True)]


# ------------------------------------------------------------------ PointTransformerConv
def _pt_module(kind, fin, fout):
    if kind == "default":
        return pyg_nn.PointTransformerConv(fin, fout)
    if kind == "nets":
        pos_nn = S(L(3, 16), R(), L(16, fout))
        return pyg_nn.PointTransformerConv(fin, fout, pos_nn, pyg_nn.MLP([fout, 16, fout]))
    return pyg_nn.PointTransformerConv(fin, fout, attn_nn=S(L(fout, fout), torch.nn.Tanh()))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("graph", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("kind", ["default", "nets", "attn"])
@pytest.mark.parametrize("loops", [True, False])
def test_point_transformer_matches_pyg(dtype, graph, kind, loops):
    name, n, dups = graph
    index_dtype = np.int32 if loops else np.int64
    rng = np.random.default_rng(0)
    module = _randomise(_pt_module(kind, 5, 8).to(_tdtype(dtype)))
    module.add_self_loops = loops
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.PointTransformerConv) and conv.add_self_loops is loops
    assert sorted(conv.state_dict()) == _names(module)
    x = rng.standard_normal((n, 5)).astype(dtype)
    pos = _points(rng, n, dtype, dups)
    ei = _edges(rng, "empty" if name == "empty" else "multi", index_dtype, n, n)
    if name == "one":
        ei = np.array([[0, 0], [0, 0]], index_dtype)  # a self-loop, twice
    copies = x.copy(), pos.copy(), ei.copy()
    out = conv(x, pos, ei)
    assert out.dtype == dtype and out.shape == (n, 8)
    assert rel_err(out, _run(module, x, pos, ei)) <= TOL[dtype] * 10
    for before, after in zip(copies, (x, pos, ei)):
        np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("loops", [True, False])
def test_point_transformer_bipartite(dtype, loops):
    rng = np.random.default_rng(1)
    for n_src, n_dst in ((24, 15), (9, 14)):
        module = _randomise(_pt_module("nets", (5, 4), 8).to(_tdtype(dtype)))
        module.add_self_loops = loops
        conv = agnn.from_pyg(module)
        x = (rng.standard_normal((n_src, 5)).astype(dtype), rng.standard_normal((n_dst, 4)))
        x = (x[0], x[1].astype(dtype))
        pos = (_points(rng, n_src, dtype, False), _points(rng, n_dst, dtype, False))
        ei = _edges(rng, "multi", np.int64, n_src, n_dst)
        out = conv(x, pos, ei)
        assert out.shape == (n_dst, 8)
        assert rel_err(out, _run(module, x, pos, ei)) <= TOL[dtype] * 10


def test_point_transformer_pieces_and_csr(monkeypatch):
    """Many small pieces of CSR rows give the one-piece numbers; a CSR stands in for
    edge_index (same bits)."""
    import arraygnn.nn._row_chunks as chunks

    rng = np.random.default_rng(2)
    module = _randomise(_pt_module("nets", 5, 8).double())
    module.add_self_loops = False
    conv = agnn.from_pyg(module)
    x, pos = rng.standard_normal((60, 5)), rng.standard_normal((60, 3))
    ei = _edges(rng, "multi", np.int64, 60, 60)
    whole = conv(x, pos, ei)
    np.testing.assert_array_equal(conv(x, pos, ops.to_csr(ei, 60, 60)), whole)
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 512)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    assert rel_err(conv(x, pos, ei), whole) <= 1e-14
    assert rel_err(whole, _run(module, x, pos, ei)) <= 1e-12


def test_point_transformer_errors():
    conv = agnn.PointTransformerConv(4, 8, rng=0)
    x, pos = np.ones((5, 4), np.float32), np.ones((5, 3), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="PointTransformerConv: x_src has 4 rows"):
        conv(x[:4], pos, ei)
    with pytest.raises(TypeError, match="PointTransformerConv: x must hold floating"):
        conv(x.astype(np.int64), pos, ei)
    with pytest.raises(TypeError, match="PointTransformerConv: pos must be a NumPy"):
        conv(x, torch.ones(5, 3), ei)
    with pytest.raises(ValueError, match="PointTransformerConv: .*out of range|PointTransformer"):
        conv(x, pos, np.array([[0, 7], [1, 2]]))
    with pytest.raises(ValueError, match="PointTransformerConv: a CSR"):
        conv(x, pos, ops.to_csr(ei, 5, 5))
    with pytest.raises(ValueError, match="one width"):
        conv((x, x), (pos, np.ones((5, 2), np.float32)), ei)
    with pytest.raises(TypeError, match="PointTransformerConv: pos_nn"):
        agnn.PointTransformerConv(4, 8, pos_nn=lambda z: z)
    with pytest.raises(TypeError, match="PointTransformerConv: add_self_loops"):
        agnn.PointTransformerConv(4, 8, add_self_loops=1)


# ------------------------------------------------------------------ PPFConv
def _ppf_local(kind, fin):
    if kind == "mlp":
        return pyg_nn.MLP([fin, 16, 8])
    if kind == "sequential":
        return S(L(fin, 16), R(), L(16, 8), torch.nn.Tanh())
    if kind == "linear":
        return L(fin, 8)
    if kind == "relu_first":
        return S(R(), L(fin, 8))
    return None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("graph", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("kind", ["mlp", "sequential", "linear", "relu_first", "none"])
@pytest.mark.parametrize("with_x", [True, False])
def test_ppf_matches_pyg(dtype, graph, kind, with_x):
    name, n, dups = graph
    index_dtype = np.int32 if with_x else np.int64
    rng = np.random.default_rng(3)
    fin = (4 if with_x else 0) + 4
    local = _ppf_local(kind, fin)
    fout = fin if local is None else 8
    glob = None if kind == "linear" else S(L(fout, 6), R(), L(6, 5))
    module = _randomise(pyg_nn.PPFConv(local, glob).to(_tdtype(dtype)))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.PPFConv)
    assert sorted(conv.state_dict()) == _names(module)
    x = rng.standard_normal((n, 4)).astype(dtype) if with_x else None
    pos, normal = _points(rng, n, dtype, dups), _points(rng, n, dtype, dups)
    ei = _edges(rng, "empty" if name == "empty" else "multi", index_dtype, n, n)
    if name == "one":
        ei = np.zeros((2, 0), index_dtype)
    out = conv(x, pos, normal, ei)
    assert out.dtype == dtype
    assert rel_err(out, _run(module, x, pos, normal, ei)) <= TOL[dtype] * 10


@pytest.mark.parametrize("aggr", ["add", "mean", "min", "max"])
@pytest.mark.parametrize("bipartite", [False, True])
def test_ppf_aggregations_and_bipartite(aggr, bipartite):
    rng = np.random.default_rng(4)
    module = _randomise(pyg_nn.PPFConv(_ppf_local("sequential", 8), None, aggr=aggr).double())
    conv = agnn.from_pyg(module)
    n_src, n_dst = (24, 15) if bipartite else (20, 20)
    x = rng.standard_normal((n_src, 4))
    pos = (_points(rng, n_src, np.float64, True), _points(rng, n_dst, np.float64, False))
    normal = (_points(rng, n_src, np.float64, False), _points(rng, n_dst, np.float64, False))
    if not bipartite:
        pos, normal = pos[0], normal[0]
    else:
        x = (x, None)
    ei = _edges(rng, "multi", np.int64, n_src, n_dst)
    out = conv(x, pos, normal, ei)
    assert rel_err(out, _run(module, x, pos, normal, ei)) <= 1e-12
    module.add_self_loops = conv.add_self_loops = False
    assert rel_err(conv(x, pos, normal, ei), _run(module, x, pos, normal, ei)) <= 1e-12


def test_ppf_pieces_and_features(monkeypatch):
    from torch_geometric.nn.conv.ppf_conv import point_pair_features as pyg_ppf

    import arraygnn.nn._row_chunks as chunks
    from arraygnn.nn.ppf_conv import point_pair_features

    rng = np.random.default_rng(5)
    p = [rng.standard_normal((30, 3)) for _ in range(4)]
    p[1][0] = p[0][0]  # a zero offset
    np.testing.assert_allclose(
        point_pair_features(*p), pyg_ppf(*[torch.from_numpy(a) for a in p]).numpy(), 0, 1e-14
    )
    module = _randomise(pyg_nn.PPFConv(_ppf_local("mlp", 8), None).double())
    conv = agnn.from_pyg(module)
    x, pos, normal = rng.standard_normal((60, 4)), p[0].repeat(2, 0), p[1].repeat(2, 0)
    ei = _edges(rng, "multi", np.int64, 60, 60)
    whole = conv(x, pos, normal, ei)
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 512)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    np.testing.assert_array_equal(conv(x, pos, normal, ei), whole)  # row by row: same bits


def test_ppf_errors():
    conv = agnn.PPFConv(None, None)
    pos = np.zeros((5, 3))
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="PPFConv: pos must be 3-D"):
        conv(None, np.zeros((5, 2)), np.zeros((5, 2)), ei)
    with pytest.raises(ValueError, match="PPFConv: normal_src has 4 rows"):
        conv(None, pos, pos[:4], ei)
    with pytest.raises(ValueError, match="PPFConv: x has 3 rows"):
        conv(np.zeros((3, 2)), pos, pos, ei)
    with pytest.raises(ValueError, match="PPFConv: add_self_loops=True"):
        conv(None, (pos[:2], pos), (pos[:2], pos), np.array([[0], [1]]))
    with pytest.raises(TypeError, match="PPFConv: normal must hold"):
        conv(None, pos, np.zeros((5, 3), np.int32), ei)
    with pytest.raises(ValueError, match="PPFConv: aggr"):
        agnn.PPFConv(aggr="median")


# ------------------------------------------------------------------ PointGNNConv
def _gnn_module(kind, aggr="max"):
    mlp_f = {"mlp": pyg_nn.MLP([3 + 5, 16, 6]), "linear": L(8, 6), "relu_first": S(R(), L(8, 6))}
    return pyg_nn.PointGNNConv(
        pyg_nn.MLP([5, 8, 3]), mlp_f[kind], S(L(6, 8), R(), L(8, 5)), aggr=aggr
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("graph", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("kind", ["mlp", "linear", "relu_first"])
def test_point_gnn_matches_pyg(dtype, index_dtype, graph, kind):
    name, n, dups = graph
    rng = np.random.default_rng(6)
    module = _randomise(_gnn_module(kind).to(_tdtype(dtype)))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.PointGNNConv)
    assert sorted(conv.state_dict()) == _names(module)
    x, pos = rng.standard_normal((n, 5)).astype(dtype), _points(rng, n, dtype, dups)
    ei = _edges(rng, "empty" if name == "empty" else "multi", index_dtype, n, n)
    if name == "one":
        ei = np.array([[0], [0]], index_dtype)
    out = conv(x, pos, ei)
    assert out.dtype == dtype
    assert rel_err(out, _run(module, x, pos, ei)) <= TOL[dtype] * 10


@pytest.mark.parametrize("aggr", ["add", "mean", "min"])
@pytest.mark.parametrize("kind", ["mlp", "linear", "relu_first"])
def test_point_gnn_aggregations(aggr, kind, monkeypatch):
    import arraygnn.nn._row_chunks as chunks

    rng = np.random.default_rng(7)
    module = _randomise(_gnn_module(kind, aggr).double())
    conv = agnn.from_pyg(module)
    x, pos = rng.standard_normal((40, 5)), rng.standard_normal((40, 3))
    ei = _edges(rng, "multi", np.int64, 40, 40)
    expected = _run(module, x, pos, ei)
    assert rel_err(conv(x, pos, ei), expected) <= 1e-12
    monkeypatch.setattr(chunks, "EDGE_CHUNK_BYTES", 256)
    monkeypatch.setattr(chunks, "SHARED_RUNTIME_FACTOR", 1)
    assert rel_err(conv(x, pos, ops.to_csr(ei, 40, 40)), expected) <= 1e-12


def test_point_gnn_errors():
    conv = agnn.PointGNNConv(
        agnn.Linear(5, 2), agnn.Linear(8, 6), agnn.Linear(6, 5)
    )  # mlp_h gives 2 offsets for 3-D points
    x, pos, ei = np.ones((4, 5)), np.ones((4, 3)), np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="PointGNNConv: mlp_h must map x"):
        conv(x, pos, ei)
    with pytest.raises(TypeError, match="PointGNNConv: x must be one array"):
        conv((x, x), pos, ei)
    with pytest.raises(ValueError, match="PointGNNConv: x has 3 rows"):
        conv(x[:3], pos, ei)
    with pytest.raises(TypeError, match="PointGNNConv: mlp_f"):
        agnn.PointGNNConv(agnn.Linear(5, 3), None, agnn.Linear(6, 5))


# ------------------------------------------------------------------ XConv
@pytest.fixture
def pyg_knn(monkeypatch):
    """PyG's XConv calls ``torch.ops.pyg.knn`` (pyg-lib): a torch wrapper of arraygnn's."""
    import torch_geometric.typing as typing

    from arraygnn.utils import knn

    def knn_op(x, y, ptr_x, ptr_y, k, cosine, num_workers):
        def batch(ptr):
            if ptr is None:
                return None
            return np.repeat(np.arange(len(ptr) - 1), np.diff(ptr.numpy()))

        out = knn(x.numpy(), y.numpy(), k, batch(ptr_x), batch(ptr_y), cosine, num_workers)
        return torch.from_numpy(out)

    monkeypatch.setattr(typing, "WITH_KNN", True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "knn", knn_op, raising=False)


XCASES = [
    # (in, out, dim, K, hidden, dilation, bias, sizes)
    (8, 16, 3, 4, None, 1, True, [30]),
    (8, 10, 3, 3, 5, 2, False, [12, 0, 9, 7]),
    (6, 24, 2, 5, 2, 1, True, [5, 11]),
    (0, 7, 3, 3, 4, 1, True, [8, 0, 6]),  # no x
    (1, 4, 1, 1, 3, 1, True, [1]),  # 1-D x and pos, one point, K = 1
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("case", range(len(XCASES)))
def test_xconv_matches_pyg(pyg_knn, dtype, index_dtype, case):
    c_in, c_out, dim, k, hidden, dilation, bias, sizes = XCASES[case]
    rng = np.random.default_rng(8 + case)
    module = pyg_nn.XConv(c_in, c_out, dim, k, hidden, dilation, bias)
    module = _randomise(module.to(_tdtype(dtype)))
    conv = agnn.from_pyg(module)
    assert isinstance(conv, agnn.XConv)
    assert sorted(conv.state_dict()) == _names(module)
    n = sum(sizes)
    pos = rng.standard_normal((n, dim)).astype(dtype)
    if n >= 4:
        pos[3] = pos[2]  # a duplicate point
    x = rng.standard_normal((n, c_in)).astype(dtype) if c_in else None
    batch = None if len(sizes) == 1 else np.repeat(np.arange(len(sizes)), sizes)
    if batch is not None:
        batch = batch.astype(index_dtype)
    if dim == 1:
        pos, x = pos[:, 0], x[:, 0]
    out = conv(x, pos, batch)
    assert out.dtype == dtype and out.shape == (n, c_out)
    expected = _run(module, x, pos, batch)
    assert rel_err(out, expected) <= TOL[dtype] * 10


def test_xconv_errors():
    conv = agnn.XConv(8, 16, 3, 4, rng=0)
    pos = np.zeros((10, 3), np.float32)
    with pytest.raises(ValueError, match="XConv: every example needs at least"):
        conv(np.zeros((10, 8), np.float32), pos, np.repeat([0, 1], [7, 3]))
    with pytest.raises(ValueError, match="XConv: x must be"):
        conv(np.zeros((10, 7), np.float32), pos)
    with pytest.raises(ValueError, match="XConv: x is None"):
        conv(None, pos)
    with pytest.raises(ValueError, match="XConv: pos must be"):
        conv(np.zeros((10, 8), np.float32), np.zeros((10, 2), np.float32))
    with pytest.raises(ValueError, match="XConv: .*sorted"):
        conv(np.zeros((10, 8), np.float32), pos, np.repeat([1, 0], 5))
    with pytest.raises(TypeError, match="XConv: pos must hold"):
        conv(np.zeros((10, 8), np.float32), np.zeros((10, 3), np.int64))
    with pytest.raises(ValueError, match="XConv: hidden_channels"):
        agnn.XConv(3, 8, 3, 4)  # 3 // 4 = 0
