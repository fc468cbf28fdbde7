"""SplineConv, FastRGCNConv and MeshCNNConv against torch_geometric (weights via from_pyg).

PyG's ``SplineConv`` calls ``pyg_lib.ops.spline_basis`` / ``spline_weighting``, which are
not installed here: the tests patch in a plain-torch transcription of torch_spline_conv's
C++ CPU code (``csrc/cpu/basis_cpu.cpp``, ``weighting_cpu.cpp``), written below, so PyG's
own ``SplineConv.forward`` runs; a slow per-edge NumPy loop is a second reference.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from tests.nn._nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from arraygnn.nn import MeshCNNConv, RGCNConv, SplineConv, from_pyg, spline_basis  # noqa: E402

DTYPES = [np.float32, np.float64]
TORCH_DTYPES = {np.float32: torch.float32, np.float64: torch.float64}


# ---- plain-torch transcription of torch_spline_conv's CPU code ---------------------------
def _torch_b(v, k, degree):
    v = v.double()  # the C++ code's double literals
    if degree == 1:
        return 1.0 - v - k + 2.0 * v * k
    if degree == 2:
        return [0.5 * v * v - v + 0.5, -v * v + v + 0.5, 0.5 * v * v][k]
    return [
        (1.0 - v) * (1.0 - v) * (1.0 - v) / 6.0,
        (3.0 * v * v * v - 6.0 * v * v + 4.0) / 6.0,
        (-3.0 * v * v * v + 3.0 * v * v + 3.0 * v + 1.0) / 6.0,
        v * v * v / 6.0,
    ][k]


def torch_spline_basis(pseudo, kernel_size, is_open_spline, degree):
    E, D = pseudo.shape
    S = (degree + 1) ** D
    basis = torch.empty(E, S, dtype=pseudo.dtype)
    weight_index = torch.empty(E, S, dtype=torch.long)
    for s in range(S):
        k, wi, offset = s, torch.zeros(E, dtype=torch.long), 1
        b = torch.ones(E, dtype=pseudo.dtype)
        for d in range(D):
            k_mod = k % (degree + 1)
            k //= degree + 1
            v = pseudo[:, d] * (int(kernel_size[d]) - degree * int(is_open_spline[d]))
            wi = wi + ((v.long() + k_mod) % int(kernel_size[d])) * offset
            offset *= int(kernel_size[d])
            v = v - torch.floor(v)
            b = b * _torch_b(v, k_mod, degree).to(pseudo.dtype)
        basis[:, s] = b
        weight_index[:, s] = wi
    return basis, weight_index


def torch_spline_weighting(x, weight, basis, weight_index):
    out = torch.zeros(x.size(0), weight.size(2), dtype=x.dtype)
    for s in range(basis.size(1)):
        w = weight[weight_index[:, s]]  # [E, in, out]
        out = out + (basis[:, s, None, None] * w * x[:, :, None]).sum(1)
    return out


@pytest.fixture
def pyg_spline(monkeypatch):
    module = importlib.import_module("torch_geometric.nn.conv.spline_conv")
    monkeypatch.setattr(module, "spline_basis", torch_spline_basis)
    monkeypatch.setattr(module, "spline_weighting", torch_spline_weighting)
    return module.SplineConv


def _run_pyg(conv, x, ei, pseudo, size=None):
    tx = (
        tuple(None if t is None else torch.from_numpy(t) for t in x)
        if isinstance(x, tuple)
        else torch.from_numpy(x)
    )
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = conv(tx, torch.from_numpy(ei.astype(np.int64)), torch.from_numpy(pseudo), size=size)
    return out.numpy()


def _pseudo(rng, num_edges, dim, dtype):
    p = rng.random((num_edges, dim)).astype(dtype)
    if num_edges >= 3:
        p[0] = 0.0  # boundary knots
        p[1] = 1.0
        p[2, 0] = 1.0
    return p


# ---- slow per-edge NumPy reference (the C++ loops, literally) ----------------------------
def slow_spline(x, ei, pseudo, weight, kernel_size, is_open, degree):
    E, D = pseudo.shape
    S = (degree + 1) ** D
    out = np.zeros((E, weight.shape[2]), dtype=np.float64)
    for e in range(E):
        for s in range(S):
            k, wi, offset, b = s, 0, 1, 1.0
            for d in range(D):
                k_mod = k % (degree + 1)
                k //= degree + 1
                v = float(pseudo[e, d]) * (kernel_size[d] - degree * is_open[d])
                wi += ((int(v) + k_mod) % kernel_size[d]) * offset
                offset *= kernel_size[d]
                v -= np.floor(v)
                b *= float(_torch_b(torch.tensor(v), k_mod, degree))
            out[e] += b * (x[ei[0, e]].astype(np.float64) @ weight[wi].astype(np.float64))
    return out


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("is_open", [True, False, [True, False]])
@pytest.mark.parametrize("dtype", DTYPES)
def test_spline_basis_matches_transcription(degree, is_open, dtype):
    rng = np.random.default_rng(degree)
    pseudo = _pseudo(rng, 40, 2, dtype)
    ks = [5, 3]
    ops = is_open if isinstance(is_open, list) else [is_open] * 2
    basis, index = spline_basis(pseudo, ks, is_open, degree)
    tb, ti = torch_spline_basis(torch.from_numpy(pseudo), ks, ops, degree)
    assert basis.dtype == dtype and index.dtype == np.int64
    np.testing.assert_array_equal(index, ti.numpy())
    assert rel_err(basis, tb.numpy()) <= TOL[dtype]
    np.testing.assert_allclose(basis.sum(1), 1.0, rtol=1e-5)  # partition of unity


@pytest.mark.parametrize("aggr", ["mean", "add", "max", "min"])
@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_spline_conv_matches_pyg(pyg_spline, aggr, degree, dtype, index_dtype):
    rng = np.random.default_rng(degree + len(aggr))
    torch.manual_seed(degree)
    ref = pyg_spline(6, 5, dim=2, kernel_size=[5, 4], is_open_spline=[True, False],
                     degree=degree, aggr=aggr).to(TORCH_DTYPES[dtype])  # fmt: skip
    torch.nn.init.uniform_(ref.bias, -1, 1)
    layer = from_pyg(ref)
    assert isinstance(layer, SplineConv)
    n = 12
    ei = random_graph(rng, n, num_edges=40, index_dtype=index_dtype)
    x = rng.standard_normal((n, 6)).astype(dtype)
    pseudo = _pseudo(rng, ei.shape[1], 2, dtype)
    x_copy, ei_copy, p_copy = x.copy(), ei.copy(), pseudo.copy()
    out = layer(x, ei, pseudo)
    assert out.dtype == dtype and out.shape == (n, 5)
    assert rel_err(out, _run_pyg(ref, x, ei, pseudo)) <= 10 * TOL[dtype]
    np.testing.assert_array_equal(x, x_copy)
    np.testing.assert_array_equal(ei, ei_copy)
    np.testing.assert_array_equal(pseudo, p_copy)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_spline_conv_matches_slow_loop(degree):
    rng = np.random.default_rng(7)
    layer = SplineConv(4, 3, dim=3, kernel_size=[4, 5, 3], is_open_spline=[False, True, True],
                       degree=degree, aggr="add", root_weight=False, bias=False,
                       dtype=np.float64, rng=1)  # fmt: skip
    ei = random_graph(rng, 9, num_edges=30)
    x = rng.standard_normal((9, 4))
    pseudo = _pseudo(rng, 30, 3, np.float64)
    messages = slow_spline(x, ei, pseudo, layer.weight, [4, 5, 3], [0, 1, 1], degree)
    expected = np.zeros((9, 3))
    np.add.at(expected, ei[1], messages)
    assert rel_err(layer(x, ei, pseudo), expected) <= 1e-12
    layer.aggr = "max"  # the per-edge message kernel
    expected = np.zeros((9, 3))
    for i in range(9):
        if (ei[1] == i).any():
            expected[i] = messages[ei[1] == i].max(0)
    assert rel_err(layer(x, ei, pseudo), expected) <= 1e-12


def test_spline_conv_big_chunks_parallel_path(pyg_spline, monkeypatch):
    """Enough work for the parallel kernels and several z chunks."""
    import arraygnn.nn.spline_conv as mod

    monkeypatch.setattr(mod, "CHUNK_BYTES", 25 * 8 * 8 * 20)  # z: 20 rows a chunk
    rng = np.random.default_rng(3)
    torch.manual_seed(3)
    ref = pyg_spline(8, 6, dim=2, kernel_size=5, degree=2, aggr="mean").double()
    layer = from_pyg(ref)
    ei = random_graph(rng, 300, num_edges=3000)
    x = rng.standard_normal((300, 8))
    pseudo = _pseudo(rng, 3000, 2, np.float64)
    assert rel_err(layer(x, ei, pseudo), _run_pyg(ref, x, ei, pseudo)) <= 1e-12


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_spline_array_path_matches_kernels(degree, monkeypatch):
    """The array-code path CuPy inputs take, run here on NumPy arrays (chunked)."""
    import arraygnn.nn.spline_conv as mod
    from arraygnn.nn._graph_input import parse_input

    rng = np.random.default_rng(11)
    monkeypatch.setattr(mod, "CHUNK_BYTES", 4 * 3 * 8 * 7)  # 7 edges a chunk
    layer = SplineConv(4, 3, dim=2, kernel_size=[4, 3], is_open_spline=[True, False],
                       degree=degree, aggr="max", dtype=np.float64, rng=2)  # fmt: skip
    ei = random_graph(rng, 8, num_edges=30)
    x = rng.standard_normal((8, 4))
    pseudo = _pseudo(rng, 30, 2, np.float64)
    basis, index = mod._basis_arrays(pseudo, (4, 3), (True, False), degree)
    kb, ki = spline_basis(pseudo, [4, 3], [True, False], degree)
    np.testing.assert_array_equal(index, ki)
    assert rel_err(basis, kb) <= 1e-15
    inp = parse_input("SplineConv", x, ei)
    messages = layer._array_messages(inp, x, pseudo, layer.weight)
    expected = slow_spline(x, ei, pseudo, layer.weight, [4, 3], [1, 0], degree)
    assert rel_err(messages, expected) <= 1e-12


@pytest.mark.parametrize("dtype", DTYPES)
def test_spline_conv_empty_and_bipartite(pyg_spline, dtype):
    rng = np.random.default_rng(4)
    torch.manual_seed(4)
    ref = pyg_spline((5, 3), 4, dim=1, kernel_size=3, aggr="add").to(TORCH_DTYPES[dtype])
    layer = from_pyg(ref)
    x_src = rng.standard_normal((7, 5)).astype(dtype)
    x_dst = rng.standard_normal((4, 3)).astype(dtype)
    ei = random_graph(rng, 7, num_dst=4, num_edges=15)
    pseudo = _pseudo(rng, 15, 1, dtype)
    out = layer((x_src, x_dst), ei, pseudo)
    expected = _run_pyg(ref, (x_src, x_dst), ei, pseudo)
    assert rel_err(out, expected) <= 10 * TOL[dtype]
    out = layer((x_src, None), ei, pseudo, size=(7, 4))  # no root term
    expected = _run_pyg(ref, (x_src, None), ei, pseudo, size=(7, 4))
    assert rel_err(out, expected) <= 10 * TOL[dtype]
    empty = np.zeros((2, 0), np.int64)
    out = layer((x_src, x_dst), empty, np.zeros((0, 1), dtype))
    expected = _run_pyg(ref, (x_src, x_dst), empty, np.zeros((0, 1), dtype))
    assert rel_err(out, expected) <= 10 * TOL[dtype]
    out = layer((x_src[:0], x_dst[:0]), empty, np.zeros((0, 1), dtype))
    assert out.shape == (0, 4)


def test_spline_conv_errors():
    layer = SplineConv(3, 2, dim=2, kernel_size=4)
    x = np.ones((3, 3), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    good = np.full((2, 2), 0.5, np.float32)
    with pytest.raises(ValueError, match=r"SplineConv: edge_attr .*\[0, 1\]"):
        layer(x, ei, good + 1)
    with pytest.raises(ValueError, match=r"SplineConv: edge_attr .*\[0, 1\]"):
        layer(x, ei, good - 1)
    with pytest.raises(ValueError, match=r"SplineConv: edge_attr .*\[0, 1\]"):
        layer(x, ei, np.full((2, 2), np.nan, np.float32))
    with pytest.raises(ValueError, match="SplineConv: edge_attr must have shape"):
        layer(x, ei, np.full((2, 3), 0.5, np.float32))  # wrong dim
    with pytest.raises(ValueError, match="SplineConv: edge_attr.*required"):
        layer(x, ei)
    with pytest.raises(TypeError, match="SplineConv: edge_attr must hold floating"):
        layer(x, ei, np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError, match="SplineConv"):
        layer(np.ones((3, 4), np.float32), ei, good)
    with pytest.raises(ValueError, match="SplineConv: degree"):
        SplineConv(3, 2, dim=2, kernel_size=4, degree=4)
    with pytest.raises(ValueError, match="SplineConv: kernel_size must have dim=2"):
        SplineConv(3, 2, dim=2, kernel_size=[4, 4, 4])
    with pytest.raises(ValueError, match="SplineConv: an open spline of degree 3"):
        SplineConv(3, 2, dim=1, kernel_size=2, degree=3)
    with pytest.raises(ValueError, match="SplineConv: aggr"):
        SplineConv(3, 2, dim=1, kernel_size=2, aggr="std")
    with pytest.raises(ValueError, match=r"spline_basis: pseudo .*\[0, 1\]"):
        spline_basis(np.full((2, 1), 2.0), 3, True, 1)


def test_spline_conv_lazy_pyg_after_first_call(pyg_spline):
    """PyG sizes a lazy SplineConv (in_channels=-1) on its first call; convert after it."""
    rng = np.random.default_rng(10)
    ref = pyg_spline(-1, 4, dim=2, kernel_size=3, degree=2)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    ei = random_graph(rng, 6, num_edges=18)
    pseudo = _pseudo(rng, 18, 2, np.float32)
    expected = _run_pyg(ref, x, ei, pseudo)
    layer = from_pyg(ref)
    assert (layer.in_src, layer.in_dst) == (5, 5)
    assert rel_err(layer(x, ei, pseudo), expected) <= 1e-5


# ---- FastRGCNConv -----------------------------------------------------------------------
@pytest.mark.parametrize("aggr", ["mean", "add"])
@pytest.mark.parametrize("decomp", [{}, {"num_bases": 2}, {"num_blocks": 2}])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_fast_rgcn_matches_pyg(aggr, decomp, dtype, index_dtype):
    from torch_geometric.nn import FastRGCNConv

    rng = np.random.default_rng(5)
    torch.manual_seed(5)
    ref = FastRGCNConv(6, 4, num_relations=3, aggr=aggr, **decomp).to(TORCH_DTYPES[dtype])
    torch.nn.init.uniform_(ref.bias, -1, 1)
    layer = from_pyg(ref)
    assert isinstance(layer, RGCNConv)
    n = 10
    for ei in (random_graph(rng, n, num_edges=35, index_dtype=index_dtype),
               np.zeros((2, 0), index_dtype)):  # fmt: skip
        x = rng.standard_normal((n, 6)).astype(dtype)
        et = rng.integers(0, 3, ei.shape[1]).astype(index_dtype)
        with torch.no_grad():
            expected = ref(
                torch.from_numpy(x),
                torch.from_numpy(ei.astype(np.int64)),
                torch.from_numpy(et.astype(np.int64)),
            ).numpy()
        out = layer(x, ei, et)
        assert out.dtype == dtype
        assert rel_err(out, expected) <= 10 * TOL[dtype]


def test_fast_rgcn_node_ids_and_bad_aggr():
    from torch_geometric.nn import FastRGCNConv

    rng = np.random.default_rng(6)
    ref = FastRGCNConv(8, 3, num_relations=2, num_bases=2)
    layer = from_pyg(ref)
    ei = random_graph(rng, 8, num_edges=20)
    et = rng.integers(0, 2, 20)
    with torch.no_grad():
        expected = ref(None, torch.from_numpy(ei), torch.from_numpy(et)).numpy()
    assert rel_err(layer(None, ei, et), expected) <= 1e-5
    ref = FastRGCNConv(8, 3, num_relations=2, aggr="max")  # PyG asserts at forward
    with pytest.raises(ValueError, match="FastRGCNConv"):
        from_pyg(ref)


# ---- MeshCNNConv ------------------------------------------------------------------------
def _mesh_adjacency(rng, num_edges, index_dtype=np.int64):
    """``A[:, 4i + k] = (i, n_k(i))`` as PyG documents, plus random pairs."""
    nb = rng.integers(0, num_edges, (num_edges, 4))
    i = np.repeat(np.arange(num_edges), 4)
    return np.stack([i, nb.reshape(-1)]).astype(index_dtype)


def _run_mesh(ref, x, ei):
    with torch.no_grad():
        return ref(torch.from_numpy(x), torch.from_numpy(ei.astype(np.int64))).numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_mesh_cnn_matches_pyg(dtype, index_dtype):
    from torch_geometric.nn import MeshCNNConv as PyGMesh

    rng = np.random.default_rng(8)
    torch.manual_seed(8)
    ref = PyGMesh(5, 4).to(TORCH_DTYPES[dtype])
    layer = from_pyg(ref)
    assert isinstance(layer, MeshCNNConv)
    x = rng.standard_normal((9, 5)).astype(dtype)
    # documented layout, a scrambled one (sources differ within a group), and no edges
    documented = _mesh_adjacency(rng, 9, index_dtype)
    scrambled = np.stack([rng.integers(0, 9, 36), rng.integers(0, 9, 36)]).astype(index_dtype)
    scrambled[:, 5] = scrambled[:, 4]  # a repeated pair
    scrambled[1, 6] = scrambled[0, 6]  # a self-loop
    for ei in (documented, scrambled, np.zeros((2, 0), index_dtype)):
        out = layer(x, ei)
        # PyG builds its messages in float32 (torch.empty default dtype)
        tol = 1e-5 if dtype == np.float64 else 10 * TOL[dtype]
        assert out.dtype == dtype
        assert rel_err(out, _run_mesh(ref, x, ei)) <= tol


def test_mesh_cnn_custom_kernels():
    from torch_geometric.nn import MeshCNNConv as PyGMesh

    rng = np.random.default_rng(9)
    torch.manual_seed(9)
    # (PyG's kernel check reads ``in_features`` eagerly, so a PyG MLP is refused there)
    seq = [
        torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
        for _ in range(4)
    ]
    kernels = torch.nn.ModuleList([torch.nn.Linear(3, 2), *seq])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = PyGMesh(3, 2, kernels)
    layer = from_pyg(ref)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    ei = np.stack([rng.integers(0, 6, 24), rng.integers(0, 6, 24)])
    assert rel_err(layer(x, ei), _run_mesh(ref, x, ei)) <= 1e-5


def test_mesh_cnn_errors():
    layer = MeshCNNConv(3, 2, rng=0)
    x = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match="MeshCNNConv: edge_index .*multiple of 4"):
        layer(x, np.zeros((2, 6), np.int64))
    with pytest.raises(ValueError, match="MeshCNNConv"):
        layer(np.ones((4, 5), np.float32), np.zeros((2, 4), np.int64))
    with pytest.raises(ValueError, match="MeshCNNConv"):
        layer(x, np.full((2, 4), 4, np.int64))
    with pytest.raises(ValueError, match="MeshCNNConv: kernels"):
        MeshCNNConv(3, 2, kernels=[None] * 4)
