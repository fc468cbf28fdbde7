"""CUDA CSR row reduction (the core of SpMM and segment/scatter) vs a NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_oracle import segment_ref, spmm_ref
from _cuda_support import (
    GRAPH_CASES,
    empty_dev,
    small_launch,  # noqa: F401 - fixture
    to_csr,
    to_dev,
    to_host,
    tolerance,
)

from arraygnn.kernels.cuda import _row_reduce

REDUCES = ["sum", "mean", "max", "min"]


def _check(out, ref, dtype):
    got = to_host(out).astype(np.float64)
    assert not np.isnan(got).any(), "an output element was never written"
    scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
    np.testing.assert_allclose(got, ref, rtol=tolerance(dtype), atol=tolerance(dtype) * scale)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("graph", GRAPH_CASES)
@pytest.mark.parametrize("reduce", REDUCES)
def test_spmm_rows_match_reference(graph, reduce):
    src, dst, num_src, num_dst = graph
    rng = np.random.default_rng(7)
    x = rng.standard_normal((num_src, 1, 3)).astype(np.float32)
    w = rng.standard_normal((src.shape[0], 1)).astype(np.float32)
    indptr, indices, perm = to_csr(src, dst, num_dst, np.int64)
    out = empty_dev((num_dst, 1, 3), np.float32)
    _row_reduce.reduce_rows(
        to_dev(indptr),
        to_dev(x),
        out,
        reduce,
        gather=to_dev(indices),
        perm=to_dev(perm),
        weights=to_dev(w),
    )
    _check(out, spmm_ref(src, dst, x, w, reduce, num_dst), np.float32)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize(
    "value_dtype,index_dtype",
    [(np.float16, np.int32), (np.float32, np.int64), (np.float64, np.int32)],
)
@pytest.mark.parametrize("reduce", REDUCES)
def test_spmm_rows_heads_dtypes(value_dtype, index_dtype, reduce):
    """[N, H, F] features with [E, H] weights, every value / index dtype, a hub row."""
    rng = np.random.default_rng(11)
    num_src, num_dst, num_edges, heads, feats = 5, 4, 17, 2, 3
    dst = rng.integers(0, num_dst - 1, num_edges)  # last destination isolated
    dst[:9] = 1  # a row longer than the patched heavy-row limit
    src = rng.integers(0, num_src, num_edges)
    x = rng.standard_normal((num_src, heads, feats)).astype(value_dtype)
    w = rng.uniform(0.5, 1.5, (num_edges, heads)).astype(value_dtype)
    indptr, indices, perm = to_csr(src, dst, num_dst, index_dtype)
    out = empty_dev((num_dst, heads, feats), value_dtype)
    _row_reduce.reduce_rows(
        to_dev(indptr),
        to_dev(x),
        out,
        reduce,
        gather=to_dev(indices),
        perm=to_dev(perm),
        weights=to_dev(w),
    )
    assert out.dtype == value_dtype
    _check(out, spmm_ref(src, dst, x, w, reduce, num_dst), value_dtype)


@pytest.mark.usefixtures("small_launch")
def test_spmm_rows_broadcast_weight_heads_and_no_weights():
    rng = np.random.default_rng(5)
    src, dst, num_src, num_dst = GRAPH_CASES[-1].values[0]
    x = rng.standard_normal((num_src, 3, 2)).astype(np.float32)
    indptr, indices, perm = to_csr(src, dst, num_dst, np.int32)
    for w in (None, rng.standard_normal((src.shape[0], 1)).astype(np.float32)):
        out = empty_dev((num_dst, 3, 2), np.float32)
        _row_reduce.reduce_rows(
            to_dev(indptr),
            to_dev(x),
            out,
            "sum",
            gather=to_dev(indices),
            perm=to_dev(perm),
            weights=to_dev(w),
        )
        _check(out, spmm_ref(src, dst, x, w, "sum", num_dst), np.float32)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("graph", GRAPH_CASES)
@pytest.mark.parametrize("reduce", REDUCES + ["prod"])
def test_segment_rows_match_reference(graph, reduce):
    """Segment reduction of edge rows: perm picks the values, no gather."""
    src, dst, num_src, num_dst = graph
    rng = np.random.default_rng(9)
    values = rng.uniform(0.5, 1.5, (dst.shape[0], 1, 2)).astype(np.float64)
    indptr, _, perm = to_csr(src, dst, num_dst, np.int32)
    out = empty_dev((num_dst, 1, 2), np.float64)
    _row_reduce.reduce_rows(to_dev(indptr), to_dev(values), out, reduce, perm=to_dev(perm))
    _check(out, segment_ref(dst, values, reduce, num_dst), np.float64)


@pytest.mark.usefixtures("small_launch")
def test_sorted_segments_without_perm():
    """CSR-pointer segments (``segment(src, ptr)``): no perm, values already in order."""
    rng = np.random.default_rng(2)
    ptr = np.array([0, 0, 5, 6, 6, 13], dtype=np.int64)
    values = rng.standard_normal((13, 1, 4)).astype(np.float32)
    index = np.repeat(np.arange(5), np.diff(ptr))
    for reduce in REDUCES:
        out = empty_dev((5, 1, 4), np.float32)
        _row_reduce.reduce_rows(to_dev(ptr), to_dev(values), out, reduce)
        _check(out, segment_ref(index, values, reduce, 5), np.float32)


@pytest.mark.usefixtures("small_launch")
def test_inputs_unchanged_and_launch_size_independent(monkeypatch):
    """Same bits for any launch size and heavy-row split is not promised, but for any launch
    size with the same split: the order of additions depends on the graph only."""
    from arraygnn._config import settings

    rng = np.random.default_rng(4)
    src, dst, num_src, num_dst = GRAPH_CASES[-1].values[0]
    x = rng.standard_normal((num_src, 1, 5)).astype(np.float32)
    w = rng.standard_normal((src.shape[0], 1)).astype(np.float32)
    indptr, indices, perm = to_csr(src, dst, num_dst, np.int64)
    args = [to_dev(a) for a in (indptr, x, indices, perm, w)]
    before = [to_host(a).copy() for a in args]
    results = []
    for threads, blocks in [(4, 2), (3, 1), (32, 4)]:
        monkeypatch.setattr(settings, "cuda_threads_per_block", threads)
        monkeypatch.setattr(settings, "cuda_max_blocks", blocks)
        out = empty_dev((num_dst, 1, 5), np.float32)
        _row_reduce.reduce_rows(
            args[0], args[1], out, "sum", gather=args[2], perm=args[3], weights=args[4]
        )
        results.append(to_host(out))
    for r in results[1:]:
        assert np.array_equal(r, results[0])
    for a, b in zip(args, before):
        assert np.array_equal(to_host(a), b)
