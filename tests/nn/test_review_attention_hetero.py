"""Review of SuperGATConv, RGATConv, EGConv, GMMConv / DGLGMMConv, HANConv, HEATConv,
HypergraphConv, WLConv and WLConvContinuous: the cases the first tests missed, each against
PyG where PyG runs it (graphs without nodes, a cached layer given a new graph, colours that
are negative or near the int64 limits), and errors that name the layer and the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

DTYPES = [np.float32, np.float64]


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _converted(make, dtype):
    torch.manual_seed(0)
    ref = make().to(torch.float64 if dtype == np.float64 else torch.float32).eval()
    for p in ref.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    return ref, agnn.from_pyg(ref)


def _pyg(module, *args):
    with torch.no_grad():
        return module(*[_t(a) for a in args]).numpy()


# ---- graphs without nodes -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("aggregators", [None, ["sum", "std"], ["symnorm", "max", "var"]])
def test_eg_graph_without_nodes_matches_pyg(aggregators, dtype):
    ref, conv = _converted(
        lambda: pyg_nn.EGConv(6, 8, aggregators, num_heads=2, num_bases=3), dtype
    )
    x, ei = np.zeros((0, 6), dtype), np.zeros((2, 0), np.int32)
    exp = _pyg(ref, x, ei)
    out = conv(x, ei)
    assert out.shape == exp.shape == (0, 8) and out.dtype == dtype


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("concat", [True, False])
def test_heat_graph_without_nodes_matches_pyg(concat, dtype):
    ref, conv = _converted(
        lambda: pyg_nn.HEATConv(4, 6, 2, 3, 5, 2, 3, heads=2, concat=concat), dtype
    )
    args = (
        np.zeros((0, 4), dtype),
        np.zeros((2, 0), np.int64),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros((0, 2), dtype),
    )
    exp = _pyg(ref, *args)
    out = conv(*args)
    assert out.shape == exp.shape and out.dtype == dtype


# ---- EGConv(cached=True) without symnorm or self-loops ------------------------------------
def test_eg_cached_without_loops_or_symnorm_uses_each_new_graph():
    """PyG caches nothing in that case: a second graph must be used, not the first."""
    ref, conv = _converted(
        lambda: pyg_nn.EGConv(
            6, 8, ["sum", "max"], num_heads=2, num_bases=3, cached=True, add_self_loops=False
        ),
        np.float64,
    )
    rng = np.random.default_rng(0)
    x = rng.standard_normal((12, 6))
    for ei in (random_graph(rng, 12, num_edges=30), random_graph(rng, 12, num_edges=40)):
        assert rel_err(conv(x, ei), _pyg(ref, x, ei)) <= TOL[np.float64]
    # with self-loops PyG does keep the first graph: the same here
    ref, conv = _converted(
        lambda: pyg_nn.EGConv(6, 8, ["sum"], num_heads=2, num_bases=3, cached=True), np.float64
    )
    for ei in (random_graph(rng, 12, num_edges=30), random_graph(rng, 12, num_edges=40)):
        assert rel_err(conv(x, ei), _pyg(ref, x, ei)) <= TOL[np.float64]


# ---- HEATConv: its own arguments named in its errors ---------------------------------------
def test_heat_node_type_and_x_errors_name_heat():
    conv = agnn.HEATConv(4, 6, 2, 3, 5, 2, 3, heads=2, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    et, ea = np.array([0, 1, 2]), np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match="HEATConv: node_type.*entry 5, out of range"):
        conv(x, ei, np.array([0, 1, 5, 0, 1]), et, ea)
    with pytest.raises(ValueError, match=r"HEATConv: node_type.*shape \(5,\)"):
        conv(x, ei, np.array([0, 1, 1]), et, ea)
    with pytest.raises(TypeError, match="HEATConv: node_type"):
        conv(x, ei, np.zeros(5), et, ea)
    with pytest.raises(ValueError, match=r"HEATConv: x must be \(N, 4\)"):
        conv(np.ones((5, 1, 4), np.float32), ei, np.zeros(5, np.int64), et, ea)


# ---- WLConvContinuous: integer features ---------------------------------------------------
def test_wl_continuous_integer_features_are_refused():
    """Integer rows used to be averaged in integer arithmetic (1 / deg cast to int: all
    zeros, where PyG gives float averages): now a TypeError naming the layer."""
    conv = agnn.WLConvContinuous()
    x = np.arange(12).reshape(4, 3)
    ei = np.array([[0, 1, 2, 3], [1, 1, 1, 0]])
    with pytest.raises(TypeError, match="WLConvContinuous: node features must be floating"):
        conv(x, ei)
    with pytest.raises(TypeError, match="WLConvContinuous: node features must be floating"):
        conv((x.astype(np.float32), x), ei)
    # the float version of the same rows is PyG's answer
    exp = pyg_nn.WLConvContinuous()(_t(x), _t(ei)).numpy()
    np.testing.assert_allclose(conv(x.astype(np.float32), ei), exp, rtol=1e-6)


# ---- GMMConv / DGLGMMConv: shapes and names -----------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: agnn.GMMConv(4, 3, 2, 2, rng=0),
    lambda: agnn.GMMConv(4, 3, 2, 2, separate_gaussians=True, aggr="max", rng=0),
    lambda: agnn.DGLGMMConv(4, 3, 2, 2, allow_zero_in_degree=True, rng=0),
])  # fmt: skip
def test_gmm_refuses_features_that_are_not_rows(make):
    """A (N, 1, in) array used to run and broadcast to an (N, M, M) answer."""
    conv = make()
    name = type(conv).__name__
    ei, pseudo = np.array([[0, 1], [1, 2]]), np.ones((2, 2), np.float32)
    with pytest.raises(ValueError, match=rf"{name}: source features must be \[num_nodes"):
        conv(np.ones((3, 1, 4), np.float32), ei, pseudo)
    with pytest.raises(ValueError, match=rf"{name}: destination features must be \[num"):
        conv((np.ones((3, 4), np.float32), np.ones((3, 1, 4), np.float32)), ei, pseudo)
    with pytest.raises(TypeError, match=f"{name}: node features must be floating"):
        conv(np.ones((3, 4), np.int64), ei, pseudo)


def test_dgl_gmm_errors_name_pseudo():
    conv = agnn.DGLGMMConv(4, 3, 2, 2, allow_zero_in_degree=True, rng=0)
    x, ei = np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"DGLGMMConv: pseudo must have shape \(2, 2\)"):
        conv(x, ei, np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="DGLGMMConv: pseudo must hold floating"):
        conv(x, ei, np.ones((2, 2), np.int64))
    with pytest.raises(ValueError, match="DGLGMMConv: pseudo .*is required"):
        conv(x, ei)
    # the PyG face keeps PyG's name
    with pytest.raises(ValueError, match=r"GMMConv: edge_attr must have shape \(2, 2\)"):
        agnn.GMMConv(4, 3, 2, 2, rng=0)(x, ei, np.ones((2, 3), np.float32))


# ---- WLConv: colours anywhere in int64 ----------------------------------------------------
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_wl_negative_and_extreme_colours_match_pyg(index_dtype):
    """Negative colours, colours beyond 2**61 (CPython's hash modulus) and both int64 ends:
    the kernel's keys are Python's, so PyG's colours and hashmap come out."""
    rng = np.random.default_rng(3)
    palette = np.array(
        [-(2**63), -(2**61) + 1, -1, -2, 0, 1, 2**61 - 1, 2**61, 2**62 + 7, 2**63 - 1],
        dtype=np.int64,
    )
    ref, conv = pyg_nn.WLConv(), agnn.WLConv()
    for _ in range(3):
        x = palette[rng.integers(0, palette.size, 30)]
        ei = random_graph(rng, 30, num_edges=90, index_dtype=index_dtype)
        exp = ref(_t(x), _t(ei)).numpy()
        np.testing.assert_array_equal(conv(x, ei), exp)
        assert conv.hashmap == ref.hashmap


def test_wl_python_fallback_on_extreme_colours(monkeypatch):
    """The per-node ``hash(tuple)`` path (another interpreter's hash) gives the same keys."""
    import arraygnn.nn._wl_hash as wl_hash

    rng = np.random.default_rng(4)
    x = rng.integers(-(2**63), 2**63 - 1, 25, dtype=np.int64, endpoint=True)
    x[:5] = -1
    ei = random_graph(rng, 25, num_edges=80)
    fast = agnn.WLConv()
    expected = fast(x, ei)
    monkeypatch.setattr(wl_hash, "kernel_matches_python", lambda: False)
    slow = agnn.WLConv()
    np.testing.assert_array_equal(slow(x, ei), expected)
    assert slow.hashmap == fast.hashmap


def test_wl_uint64_colours_beyond_int64_are_refused():
    with pytest.raises(ValueError, match="WLConv: colours must fit in int64"):
        agnn.WLConv()(np.array([2**63, 1], np.uint64), np.array([[0], [1]]))
