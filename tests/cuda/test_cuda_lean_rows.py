"""The lean row kernels (``_launch.LEAN_ROWS``) give the general kernel's bits.

They are a speed choice only: same slots, same order of operations, same accumulator type
(:mod:`arraygnn.kernels.cuda._row_reduce_lean`).
"""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_support import (
    CASES,
    CUDA_TEST_MARKS,
    case_csr,
    poisoned,
    small_launch,  # noqa: F401 - fixture used through CUDA_TEST_MARKS
    to_dev,
    to_host,
)

from arraygnn.kernels import reference
from arraygnn.kernels.cuda import _launch, _row_reduce_lean, segment, spmm

pytestmark = CUDA_TEST_MARKS

REDUCES = ["sum", "mean", "max", "min", "prod"]
#: the labelled cases but the 400-edge power-law graph (the simulator runs every thread in
#: Python: these tests run each call twice); the power-law graph is in the dtype test
SMALL_CASES = [c for c in CASES if not c.id.startswith("power-law")]


def _both(monkeypatch, run):
    """``run()`` with the general kernel, then with the lean one."""
    monkeypatch.setattr(_launch, "LEAN_ROWS", False)
    general = to_host(run())
    monkeypatch.setattr(_launch, "LEAN_ROWS", True)
    lean = to_host(run())
    return general, lean


def _same_bits(a, b):
    """The same bits, NaN payloads aside: on the card the general kernel's ``x - 0.0``
    canonicalises a NaN and the lean kernel passes it through (both NaN; the H200 run of
    2026-11-27 showed exactly this difference and no other)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    assert np.array_equal(nan_a, nan_b)
    ok = ~nan_a
    assert np.array_equal(a[ok].view(np.uint8), b[ok].view(np.uint8)), np.nanmax(np.abs(a - b))


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("case", SMALL_CASES)
def test_spmm_lean_same_bits(monkeypatch, case, reduce):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((case.num_src_nodes, 1, 5)).astype(np.float32)
    w = rng.standard_normal((case.num_edges, 1)).astype(np.float32)
    w_slots = w[csr.perm]
    args = [to_dev(a) for a in (csr.indptr, csr.indices, x, w_slots)]
    shape = (case.num_dst_nodes, 1, 5)
    for weights in (None, args[3]):

        def run(weights=weights):
            out = poisoned(shape, np.float32)
            return spmm.spmm_csr(args[0], args[1], None, args[2], weights, out, reduce)

        general, lean = _both(monkeypatch, run)
        _same_bits(general, lean)
    expected = reference.spmm_csr(
        csr.indptr, csr.indices, None, x, w_slots, np.empty(shape, np.float32), reduce
    )
    np.testing.assert_allclose(lean, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("case", SMALL_CASES)
def test_segment_lean_same_bits(monkeypatch, case, reduce):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 1.5, (case.num_edges, 2, 3)).astype(np.float32)
    shape = (case.num_dst_nodes, 2, 3)
    indptr, perm, xd = to_dev(csr.indptr), to_dev(csr.kernel_perm), to_dev(x)
    for p in (perm, None):

        def run(p=p):
            return segment.segment_csr(indptr, p, xd, poisoned(shape, np.float32), reduce)

        general, lean = _both(monkeypatch, run)
        _same_bits(general, lean)


@pytest.mark.parametrize(
    "name,index_dtype,dtype,feats,reduce",
    [
        ("power-law", np.int64, np.float16, 3, "sum"),
        ("unsorted", np.int32, np.float16, 33, "mean"),
        ("power-law", np.int32, np.float64, 2, "max"),
        ("unsorted", np.int64, np.float64, 1, "prod"),
        ("multi-edges", np.int64, np.float32, 130, "sum"),  # two chunks of 4 x 32 lanes
        ("unsorted", np.int64, np.float32, 40, "min"),
        ("power-law", np.int32, np.float32, 2, "sum"),
        ("multi-edges", np.int32, np.float16, 130, "max"),
        ("multi-edges", np.int64, np.float32, 70, "sum"),  # three accumulators per lane
        ("multi-edges", np.int32, np.float64, 100, "mean"),  # four, one chunk
    ],
)
def test_lean_dtypes_and_feature_chunks(monkeypatch, name, index_dtype, dtype, feats, reduce):
    case, csr = case_csr(name, index_dtype)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((case.num_src_nodes, 1, feats)).astype(dtype)
    x[::7] *= -0.0  # signed zeros keep their sign through the widening
    w = rng.standard_normal((case.num_edges, 1)).astype(dtype)
    args = [to_dev(a) for a in (csr.indptr, csr.indices, x, w[csr.perm])]
    shape = (case.num_dst_nodes, 1, feats)
    for weights in (None, args[3]):

        def run(weights=weights):
            out = poisoned(shape, dtype)
            return spmm.spmm_csr(args[0], args[1], None, args[2], weights, out, reduce)

        general, lean = _both(monkeypatch, run)
        _same_bits(general, lean)


def test_lean_heavy_rows_and_nan(monkeypatch):
    """Heavy rows split into pieces (light rows of up to 3 edges here, longer rows in
    pieces), NaN propagating through max, rows of every length mod 4 (the unrolled loop's
    tail)."""
    monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", 6)
    rng = np.random.default_rng(6)
    degrees = np.array([0, 1, 2, 3, 4, 5, 6, 7, 13, 29, 0, 9], dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(degrees)])
    nnz = int(indptr[-1])
    indices = rng.integers(0, 10, nnz)
    x = rng.standard_normal((10, 1, 9)).astype(np.float32)
    x[3, 0, 4] = np.nan
    w = rng.standard_normal((nnz, 1)).astype(np.float32)
    args = [to_dev(a) for a in (indptr, indices, x, w)]
    for reduce in REDUCES:
        for weights in (None, args[3]):

            def run(weights=weights, reduce=reduce):
                out = poisoned((degrees.size, 1, 9), np.float32)
                return spmm.spmm_csr(args[0], args[1], None, args[2], weights, out, reduce)

            general, lean = _both(monkeypatch, run)
            _same_bits(general, lean)


def test_lean_covers_only_what_it_computes():
    x = np.zeros((4, 2, 3), np.float32)
    out = np.zeros((5, 2, 3), np.float32)
    idx = np.zeros(6, np.int64)
    assert _row_reduce_lean.covers(x, out, idx, None, None)
    assert _row_reduce_lean.covers(x, out, idx, None, np.zeros((6, 1), np.float32))
    assert not _row_reduce_lean.covers(x, out, idx, None, np.zeros((6, 2), np.float32))
    assert not _row_reduce_lean.covers(x, out, idx, idx, np.zeros((6, 1), np.float32))
    assert not _row_reduce_lean.covers(x, out, None, idx, np.zeros((6, 1), np.float32))
    assert not _row_reduce_lean.covers(x[:, :1], out, idx, None, None)  # heads broadcast
    assert not _row_reduce_lean.covers(x, out[:, :, ::2], idx, None, None)  # strided output


@pytest.mark.parametrize("feats", [5, 40])  # 40: 16 lanes x 3 accumulators
def test_lean_with_narrow_groups(monkeypatch, feats):
    """Narrow row groups (``_launch.NARROW_GROUPS``) change the lanes per row, not the bits."""
    monkeypatch.setattr(_launch, "NARROW_GROUPS", True)
    case, csr = case_csr("unsorted", np.int64)
    x = np.random.default_rng(7).standard_normal((case.num_src_nodes, 1, feats))
    args = [to_dev(a) for a in (csr.indptr, csr.indices, x.astype(np.float32))]

    def run():
        out = poisoned((case.num_dst_nodes, 1, feats), np.float32)
        return spmm.spmm_csr(args[0], args[1], None, args[2], None, out, "sum")

    general, lean = _both(monkeypatch, run)
    _same_bits(general, lean)
