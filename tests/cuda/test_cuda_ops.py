"""The public ``arraygnn.ops`` on CuPy arrays (real GPU only): results vs the naive NumPy
oracles, CuPy in -> CuPy out, and bit-identical results across repeated runs.

Skipped unless ``ARRAYGNN_REAL_GPU=1`` and CuPy is importable (the simulator takes NumPy
arrays, which ``arraygnn.ops`` sends to the CPU kernels).
"""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_support import REAL_GPU, TOLERANCE, small_launch  # noqa: F401 - fixture

from arraygnn.kernels import reference
from arraygnn.testing.cases import get_case, powerlaw_edges

if not REAL_GPU:
    pytest.skip("needs ARRAYGNN_REAL_GPU=1 and CuPy", allow_module_level=True)
cp = pytest.importorskip("cupy")
ops = pytest.importorskip("arraygnn.ops")

pytestmark = pytest.mark.filterwarnings("ignore:Grid size")
NAMES = ["empty", "no-edges", "zero-in-degree", "bipartite", "hub", "power-law", "unsorted"]


def _close(got, expected, dtype):
    assert isinstance(got, cp.ndarray), "CuPy in must give CuPy out"
    assert got.dtype == np.dtype(dtype)
    tol = TOLERANCE[np.dtype(dtype)]
    np.testing.assert_allclose(
        got.get().astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol
    )


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", NAMES)
def test_ops_on_cupy_match_naive(name, index_dtype):
    case = get_case(name, index_dtype)
    rng = np.random.default_rng(0)
    ei = case.edge_index
    n_src, n_dst, e = case.num_src_nodes, case.num_dst_nodes, case.num_edges
    x = rng.standard_normal((n_src, 4)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, e).astype(np.float32)
    d_ei, d_x, d_w = cp.asarray(ei), cp.asarray(x), cp.asarray(w)
    csr = ops.to_csr(d_ei, n_src, n_dst)
    for reduce in ("sum", "mean", "max", "min"):
        expected = reference.naive_spmm(ei, x, w, reduce, n_dst)
        _close(
            ops.spmm(d_ei, d_x, edge_weight=d_w, reduce=reduce, num_dst_nodes=n_dst),
            expected,
            np.float32,
        )
        _close(
            ops.spmm(csr, d_x, edge_weight=d_w, reduce=reduce, num_dst_nodes=n_dst),
            expected,
            np.float32,
        )
    msgs = rng.standard_normal((e, 3))
    for reduce in ("sum", "mean", "max", "min", "prod"):
        _close(
            ops.scatter(cp.asarray(msgs), cp.asarray(case.dst), n_dst, reduce=reduce),
            reference.naive_scatter(msgs, case.dst, n_dst, reduce),
            np.float64,
        )
    _close(ops.gather(d_x, cp.asarray(case.src)), reference.naive_gather(x, case.src), np.float32)
    y = rng.standard_normal((n_dst, 4)).astype(np.float32)
    for op in ("dot", "add", "mul"):
        _close(
            ops.sddmm(d_ei, d_x, cp.asarray(y), op=op),
            reference.naive_sddmm(ei, x, y, op, "u", "v"),
            np.float32,
        )
    logits = rng.standard_normal((e, 2)).astype(np.float16)
    _close(
        ops.edge_softmax(d_ei, cp.asarray(logits), num_dst_nodes=n_dst),
        reference.naive_edge_softmax(ei, logits, n_dst),
        np.float16,
    )


def test_ops_on_cupy_are_bit_identical_across_runs():
    """Default launch sizes, a power-law graph with long rows: same bits every run."""
    n, e = 20_000, 200_000
    ei = cp.asarray(powerlaw_edges(n, e, seed=1))
    csr = ops.to_csr(ei, n, n)
    rng = cp.random.default_rng(1)
    x = rng.standard_normal((n, 48), dtype=cp.float32)
    w = rng.standard_normal(e, dtype=cp.float32)
    msgs = rng.standard_normal((e, 8), dtype=cp.float32)
    logits = rng.standard_normal((e, 4), dtype=cp.float32)
    runs = [
        lambda: ops.spmm(csr, x, edge_weight=w, reduce="sum"),
        lambda: ops.spmm(csr, x.astype(cp.float16), reduce="mean"),
        lambda: ops.scatter(msgs, ei[1], n, reduce="sum"),
        lambda: ops.sddmm(csr, x, x, op="dot"),
        lambda: ops.edge_softmax(csr, logits),
    ]
    for i, run in enumerate(runs):
        first = run()
        for _ in range(3):
            assert bool(cp.array_equal(first, run())), f"run {i} differs between calls"


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("name", NAMES)
def test_slot_order_on_cupy_is_edge_order_permuted(name):
    """``arraygnn.ops.slot_order`` on CuPy: the edge-order results permuted by ``perm``,
    bit for bit (sddmm in edge order then gathered; softmax and spmm without ``perm``)."""
    from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

    case = get_case(name, np.int32)
    rng = np.random.default_rng(3)
    csr = ops.to_csr(cp.asarray(case.edge_index), case.num_src_nodes, case.num_dst_nodes)
    perm = csr.perm
    el = cp.asarray(rng.standard_normal((case.num_src_nodes, 4)).astype(np.float32))
    er = cp.asarray(rng.standard_normal((case.num_dst_nodes, 4)).astype(np.float32))
    got = sddmm_slots(csr, el, er, "add", "u", "v")
    assert bool(cp.array_equal(got, ops.sddmm(csr, el, er, "add", "u", "v")[perm]))
    logits = cp.asarray(rng.standard_normal((case.num_edges, 4)).astype(np.float32))
    want = ops.edge_softmax(csr, logits)[perm]
    assert bool(cp.array_equal(edge_softmax_slots(csr, logits[perm]), want))
    x = cp.asarray(rng.standard_normal((case.num_src_nodes, 4, 3)).astype(np.float32))
    w = cp.asarray(rng.random((case.num_edges, 4)).astype(np.float32))
    assert bool(cp.array_equal(spmm_slots(csr, x, w[perm]), ops.spmm(csr, x, w)))
