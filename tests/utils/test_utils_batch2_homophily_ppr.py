"""``homophily``, ``assortativity`` and ``get_ppr``: parity with ``torch_geometric.utils``
on the labelled graph cases and random graphs (int32 / int64 ids), hand-computed values,
the exact PPR as an oracle, and errors naming the function and the argument."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _utils_cases import GRAPHS, pyg_utils, t

import arraygnn.utils as U


def _close(ours, ref, tol=2e-6):
    ref = ref.numpy() if hasattr(ref, "numpy") else ref
    if isinstance(ours, float):
        assert isinstance(ref, float)
        assert (math.isnan(ours) and math.isnan(ref)) or abs(ours - ref) <= tol, (ours, ref)
        return
    assert ours.dtype == np.float32 and ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)


# ------------------------------------------------------------------------------ homophily


def test_homophily_hand_values():
    ei = np.array([[0, 1, 2, 3], [1, 2, 0, 4]])
    y = np.array([0, 0, 0, 0, 1])
    assert U.homophily(ei, y, method="edge") == 0.75
    assert abs(U.homophily(ei, y, method="node") - 0.6) < 1e-7
    assert abs(U.homophily(ei, y, method="edge_insensitive") - 0.2) < 1e-7
    # node 4's only in-edge comes from another class; nodes without in-edges give 0
    assert U.homophily(ei, y[:, None], method="edge") == 0.75  # [N, 1] labels


@pytest.mark.parametrize("method", ["edge", "node", "edge_insensitive"])
@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_homophily_matches_pyg(method, dt, ei, n):
    P = pyg_utils()
    if n == 0:  # no nodes, no edges: NaN / an empty per-graph array (PyG: NaN or a failure)
        y0 = np.zeros(0, dtype=dt)
        if method == "edge_insensitive":
            with pytest.raises(ValueError, match="needs at least 2 classes"):
                U.homophily(ei, y0, method=method)
        else:
            assert math.isnan(U.homophily(ei, y0, method=method))
            assert U.homophily(ei, y0, y0, method=method).shape == (0,)
        return
    rng = np.random.default_rng(n)
    y = rng.integers(0, 3, n).astype(dt)
    y[:2] = [0, 2][: min(n, 2)]  # at least two classes where possible
    if method == "edge_insensitive" and int(y.max()) < 1:
        with pytest.raises(ValueError, match="homophily: method='edge_insensitive' needs"):
            U.homophily(ei, y, method=method)
        return
    ours = U.homophily(ei, y, method=method)
    ref = P.homophily(t(ei), t(y), method=method)
    _close(ours, ref)
    # with a batch: three graphs (sorted ids); the top class in the last graph, which
    # PyG's 'edge_insensitive' needs to reshape its result
    batch = np.sort(rng.integers(0, 3, n)).astype(dt)
    batch[-1] = 2
    y_b = y.copy()
    y_b[-1] = y.max()
    ours = U.homophily(ei, y_b, batch, method=method)
    ref = P.homophily(t(ei), t(y_b), t(batch), method=method)
    if isinstance(ref, float):
        _close(ours, ref)
    else:
        _close(ours, ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_homophily_float_labels_and_inputs_kept(dtype):
    P = pyg_utils()
    ei = np.array([[0, 1, 2, 2, 3, 3], [1, 2, 2, 0, 3, 1]])  # a self-loop, then a loop
    y = np.array([0.5, 0.5, 1.5, 1.5], dtype=dtype)
    before = (ei.copy(), y.copy())
    for method in ("edge", "node"):
        _close(U.homophily(ei, y, method=method), P.homophily(t(ei), t(y), method=method))
    np.testing.assert_array_equal(ei, before[0])
    np.testing.assert_array_equal(y, before[1])


def test_homophily_no_edges_is_nan():
    P = pyg_utils()
    ei = np.zeros((2, 0), dtype=np.int64)
    y = np.array([0, 1, 1])
    ours = U.homophily(ei, y)
    assert math.isnan(ours) and math.isnan(P.homophily(t(ei), t(y)))
    assert U.homophily(ei, y, method="node") == P.homophily(t(ei), t(y), method="node") == 0.0


def test_homophily_errors():
    ei = np.array([[0, 1], [1, 2]])
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match="homophily: method must be one of"):
        U.homophily(ei, y, method="nodes")
    with pytest.raises(ValueError, match="homophily: edge_index has entry 2, out of range"):
        U.homophily(ei, y[:2])
    with pytest.raises(ValueError, match=r"homophily: y must have shape \[N\]"):
        U.homophily(ei, np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"homophily: batch must have shape \(3,\)"):
        U.homophily(ei, y, np.array([0, 0]))
    with pytest.raises(TypeError, match="homophily: batch must be an integer array"):
        U.homophily(ei, y, np.zeros(3))
    with pytest.raises(TypeError, match="homophily: edge_index must be an integer array"):
        U.homophily(ei.astype(float), y)
    with pytest.raises(TypeError, match="homophily: method='edge_insensitive' needs integer"):
        U.homophily(ei, y.astype(float), method="edge_insensitive")
    with pytest.raises(ValueError, match="needs at least 2 classes"):
        U.homophily(ei, np.zeros(3, dtype=np.int64), method="edge_insensitive")


# -------------------------------------------------------------------------- assortativity


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_assortativity_matches_pyg(dt, ei, n):
    P = pyg_utils()
    if ei.shape[1] == 0:
        with pytest.raises(ValueError, match="assortativity: edge_index has no edges"):
            U.assortativity(ei)
        return
    ours = U.assortativity(ei)
    ref = P.assortativity(t(ei))
    assert isinstance(ours, float)
    if math.isnan(ref):
        assert math.isnan(ours)
    else:
        assert abs(ours - ref) < 2e-5, (ours, ref)


def test_assortativity_hand_values():
    star = np.array([[0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0]])
    assert U.assortativity(star) == pytest.approx(-1.0)
    ei = np.array([[0, 1, 2, 3, 2], [1, 2, 0, 1, 3]])
    assert U.assortativity(ei) == pytest.approx(-2 / 3)
    with pytest.raises(TypeError, match="assortativity: edge_index must be"):
        U.assortativity([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="assortativity: edge_index has a negative entry"):
        U.assortativity(np.array([[0, -1], [1, 0]]))


# -------------------------------------------------------------------------------- get_ppr


@pytest.fixture(scope="module")
def pyg_ppr_kernel():
    """PyG's own push kernel, compiled the way ``get_ppr`` compiles it."""
    pytest.importorskip("torch_geometric")
    numba = pytest.importorskip("numba")
    import torch_geometric.utils.ppr as ppr_module

    return numba.jit(nopython=True, parallel=True)(ppr_module._get_ppr)


def _flatten(lists):
    return list(itertools.chain.from_iterable(lists))


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_get_ppr_kernel_is_pygs_bit_for_bit(pyg_ppr_kernel, dt, ei, n):
    """On one CSR (our stable sort by source), PyG's kernel and ours give the same nodes in
    the same order and the same float32 weights."""
    from arraygnn.utils.ppr import _csr

    for eps, target in [(1e-5, None), (1e-3, np.arange(n)[::-2].copy())]:
        out_ei, out_w = U.get_ppr(ei, 0.15, eps, None if target is None else target.astype(dt), n)
        indptr, indices = _csr(ei, n)
        js, vals = pyg_ppr_kernel(indptr, indices, 0.15, eps, target)
        sources = np.arange(n) if target is None else target
        counts = [len(j) for j in js] if n else []
        np.testing.assert_array_equal(out_ei[0], np.repeat(sources, counts))
        np.testing.assert_array_equal(out_ei[1], np.array(_flatten(js), dtype=np.int64))
        np.testing.assert_array_equal(out_w, np.array(_flatten(vals), dtype=np.float32))
        assert out_ei.dtype == np.int64 and out_w.dtype == np.float32


def _dense(ei, w, n):
    out = np.zeros((n, n))
    np.add.at(out, (ei[0], ei[1]), w)
    return out


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_get_ppr_matches_pyg_within_push_tolerance(dt, ei, n):
    """PyG sorts the edges with torch's unstable sort, so its push order (and last digits)
    can differ from ours: the vectors agree within the push tolerance, and both are
    within it of the exact PPR (solved densely)."""
    P = pyg_utils()
    eps, alpha = 1e-4, 0.2
    ours_ei, ours_w = U.get_ppr(ei, alpha, eps, num_nodes=n)
    if n == 0:  # PyG fails on an empty graph (its empty float list cannot be repeated)
        assert ours_ei.shape == (2, 0) and ours_w.shape == (0,)
        return
    ref_ei, ref_w = P.get_ppr(t(ei), alpha, eps, num_nodes=n)
    assert ours_ei.dtype == np.int64 and ours_w.dtype == np.float32
    ours = _dense(ours_ei, ours_w, n)
    ref = _dense(ref_ei.numpy(), ref_w.numpy(), n)
    deg = np.bincount(ei[0], minlength=n)
    tol = 4 * eps * max(int(deg.max()), 1)
    np.testing.assert_allclose(ours, ref, atol=tol)
    # the exact PPR (rows of sources with out-edges; a dangling source keeps alpha)
    walk = _dense(ei, np.ones(ei.shape[1]), n) / np.maximum(deg, 1)[:, None]
    exact = alpha * np.linalg.inv(np.eye(n) - (1 - alpha) * walk)
    np.testing.assert_allclose(ours[deg > 0], exact[deg > 0], atol=tol)
    # every source's vector starts with the source itself, as PyG's
    first = np.concatenate([[0], np.cumsum(np.bincount(ours_ei[0], minlength=n))[:-1]])
    np.testing.assert_array_equal(ours_ei[1][first], np.arange(n))


def test_get_ppr_target_and_threads():
    """Many sources (several chunks on threads) give the chunks' results in order: the same
    as one source at a time."""
    rng = np.random.default_rng(3)
    n = 1200
    ei = rng.integers(0, n, (2, 6000))
    full_ei, full_w = U.get_ppr(ei, eps=1e-3, num_nodes=n)
    parts = [U.get_ppr(ei, eps=1e-3, target=np.array([s]), num_nodes=n) for s in (0, 517, n - 1)]
    for s, (pe, pw) in zip((0, 517, n - 1), parts):
        sel = full_ei[0] == s
        np.testing.assert_array_equal(pe, full_ei[:, sel])
        np.testing.assert_array_equal(pw, full_w[sel])
    # a target listed twice is computed twice; int32 target ids
    te, tw = U.get_ppr(ei, eps=1e-3, target=np.array([5, 5], dtype=np.int32), num_nodes=n)
    half = te.shape[1] // 2
    np.testing.assert_array_equal(te[:, :half], te[:, half:])
    assert te.dtype == np.int64


def test_get_ppr_push_order_changes_only_last_digits():
    """The push order (each node's out-edge order) changes the result, in PyG too; the
    vectors stay within the push tolerance of each other. Inputs are not modified."""
    rng = np.random.default_rng(7)
    n = 80
    ei = rng.integers(0, n, (2, 600))
    before = ei.copy()
    shuffled = ei[:, rng.permutation(600)]
    a_ei, a_w = U.get_ppr(ei, eps=1e-4, num_nodes=n)
    b_ei, b_w = U.get_ppr(shuffled, eps=1e-4, num_nodes=n)
    assert not (a_ei.shape == b_ei.shape and (a_ei == b_ei).all() and (a_w == b_w).all())
    tol = 4 * 1e-4 * np.bincount(ei[0]).max()
    np.testing.assert_allclose(_dense(a_ei, a_w, n), _dense(b_ei, b_w, n), atol=tol)
    np.testing.assert_array_equal(ei, before)


def test_get_ppr_dangling_and_errors():
    ei = np.array([[0, 1], [1, 2]])  # node 2 has no out-edges
    out_ei, w = U.get_ppr(ei, alpha=0.3, target=np.array([2]))
    assert out_ei.tolist() == [[2], [2]] and w.tolist() == [pytest.approx(0.3)]
    with pytest.raises(ValueError, match="get_ppr: alpha must be between 0 and 1"):
        U.get_ppr(ei, alpha=1.5)
    with pytest.raises(ValueError, match="get_ppr: alpha must be in"):
        U.get_ppr(ei, alpha=0)
    with pytest.raises(ValueError, match="get_ppr: eps must be a positive"):
        U.get_ppr(ei, eps=0.0)
    with pytest.raises(TypeError, match="get_ppr: eps must be a number"):
        U.get_ppr(ei, eps="small")
    with pytest.raises(ValueError, match="get_ppr: target has entry 3, out of range"):
        U.get_ppr(ei, target=np.array([3]))
    with pytest.raises(TypeError, match="get_ppr: target must be an integer array"):
        U.get_ppr(ei, target=np.array([0.0]))
    with pytest.raises(ValueError, match="get_ppr: target must be one-dimensional"):
        U.get_ppr(ei, target=np.array([[0]]))
    with pytest.raises(ValueError, match=r"get_ppr: edge_index must have shape \[2, E\]"):
        U.get_ppr(np.array([[0, 1], [1, 2], [2, 0]]))
    with pytest.raises(ValueError, match="get_ppr: edge_index has entry 2, out of range"):
        U.get_ppr(ei, num_nodes=2)
