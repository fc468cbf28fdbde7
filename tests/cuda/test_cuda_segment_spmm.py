"""CUDA ``segment_csr`` and ``spmm_csr`` vs :mod:`arraygnn.kernels.reference`."""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_support import (
    CASES,
    CUDA_TEST_MARKS,
    assert_close,
    case_csr,
    poisoned,
    small_launch,  # noqa: F401 - fixture used through CUDA_TEST_MARKS
    to_dev,
    to_host,
)

from arraygnn.kernels import reference
from arraygnn.kernels.cuda import segment, spmm

pytestmark = CUDA_TEST_MARKS


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("case", CASES)
def test_segment_csr_matches_reference(case, reduce):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, (case.num_edges, 2, 3)).astype(np.float32)
    shape = (case.num_dst_nodes, 2, 3)
    expected = reference.segment_csr(
        csr.indptr, csr.kernel_perm, x, np.empty(shape, x.dtype), reduce
    )
    out = poisoned(shape, x.dtype)
    got = segment.segment_csr(to_dev(csr.indptr), to_dev(csr.kernel_perm), to_dev(x), out, reduce)
    assert got is out
    assert_close(out, expected, x.dtype)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_csr_pointer_segments_without_perm(reduce):
    """``segment(src, ptr)``: slots are rows of ``x`` in order; empty and long segments."""
    rng = np.random.default_rng(2)
    ptr = np.array([0, 0, 5, 6, 6, 13], dtype=np.int64)
    x = rng.uniform(0.5, 1.5, (13, 1, 4))
    expected = reference.segment_csr(ptr, None, x, np.empty((5, 1, 4)), reduce)
    out = poisoned((5, 1, 4), np.float64)
    segment.segment_csr(to_dev(ptr), None, to_dev(x), out, reduce)
    assert_close(out, expected, np.float64)


def _weights(kind, num_edges, rng):
    if kind == "none":
        return None
    heads = 2 if kind == "per-head" else 1
    return rng.standard_normal((num_edges, heads)).astype(np.float32)


@pytest.mark.parametrize(
    "reduce,weight_kind",
    [
        ("sum", "none"),
        ("sum", "per-head"),
        ("mean", "per-edge"),
        ("max", "per-edge"),
        ("max", "none"),
        ("min", "per-head"),
    ],
)
@pytest.mark.parametrize("case", CASES)
def test_spmm_csr_matches_reference(case, reduce, weight_kind):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((case.num_src_nodes, 1 if weight_kind == "per-head" else 2, 3))
    x = x.astype(np.float32)
    w = _weights(weight_kind, case.num_edges, rng)
    shape = (case.num_dst_nodes, 2, 3)
    args = (csr.indptr, csr.indices, csr.kernel_perm, x, w)
    expected = reference.spmm_csr(*args, np.empty(shape, np.float32), reduce)
    out = poisoned(shape, np.float32)
    spmm.spmm_csr(*(to_dev(a) for a in args), out, reduce)
    assert_close(out, expected, np.float32)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", [("hub", np.int32), ("power-law", np.int64)], ids=str)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max"])
def test_spmm_csr_value_dtypes(case, dtype, reduce):
    """float16 accumulates in float32 (so it matches the float32-accumulating reference)."""
    case, csr = case_csr(*case)
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (case.num_src_nodes, 1, 5)).astype(dtype)
    w = rng.uniform(0, 1, (case.num_edges, 1)).astype(dtype)
    shape = (case.num_dst_nodes, 1, 5)
    args = (csr.indptr, csr.indices, csr.kernel_perm, x, w)
    expected = reference.spmm_csr(*args, np.empty(shape, dtype), reduce)
    out = poisoned(shape, dtype)
    spmm.spmm_csr(*(to_dev(a) for a in args), out, reduce)
    if dtype == np.float16:  # float16 output rounding of sums of up to 200 terms
        expected = expected.astype(np.float64)
        np.testing.assert_allclose(to_host(out).astype(np.float64), expected, rtol=2e-3, atol=2e-2)
    else:
        assert_close(out, expected, dtype)


def test_spmm_same_bits_for_any_launch_size_and_inputs_unchanged(monkeypatch):
    """The order of operations depends on the graph (and the split length), never on the
    grid: the same bits for 4x2, 3x1 and 32x4 launches. Inputs are not modified."""
    from arraygnn._config import settings

    case, csr = case_csr("hub", np.int64)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((case.num_src_nodes, 1, 7)).astype(np.float32)
    w = rng.standard_normal((case.num_edges, 1)).astype(np.float32)
    args = [to_dev(a) for a in (csr.indptr, csr.indices, csr.perm, x, w)]
    before = [to_host(a).copy() for a in args]
    results = []
    for threads, blocks in [(4, 2), (3, 1), (32, 4)]:
        monkeypatch.setattr(settings, "cuda_threads_per_block", threads)
        monkeypatch.setattr(settings, "cuda_max_blocks", blocks)
        out = poisoned((case.num_dst_nodes, 1, 7), np.float32)
        spmm.spmm_csr(*args, out, "sum")
        results.append(to_host(out))
    for r in results[1:]:
        assert np.array_equal(r, results[0])
    for a, b in zip(args, before):
        assert np.array_equal(to_host(a), b)


def test_heavy_row_split_matches_unsplit(monkeypatch):
    """Splitting long rows into pieces changes only the rounding, not the result."""
    from arraygnn.kernels.cuda import _launch

    case, csr = case_csr("hub", np.int64)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((case.num_src_nodes, 1, 2))
    outs = []
    for heavy in (3, 1000):
        monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", heavy)
        out = poisoned((case.num_dst_nodes, 1, 2), np.float64)
        spmm.spmm_csr(
            to_dev(csr.indptr), to_dev(csr.indices), to_dev(csr.perm), to_dev(x), None, out, "max"
        )
        outs.append(to_host(out))
    assert np.array_equal(outs[0], outs[1])  # max is exact in any order


@pytest.mark.parametrize("feats,reduce", [(5, "max"), (33, "sum"), (130, "max")])
def test_spmm_csr_feature_chunks(feats, reduce):
    """Groups narrower than a warp (F < 32), lanes with 2 features (F = 33) and two
    feature chunks per row (F = 130 > 4 x 32), with the heavy-row split."""
    case, csr = case_csr("hub", np.int32)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((case.num_src_nodes, 1, feats)).astype(np.float32)
    w = rng.standard_normal((case.num_edges, 1)).astype(np.float32)
    shape = (case.num_dst_nodes, 1, feats)
    args = (csr.indptr, csr.indices, csr.kernel_perm, x, w)
    expected = reference.spmm_csr(*args, np.empty(shape, np.float32), reduce)
    out = poisoned(shape, np.float32)
    spmm.spmm_csr(*(to_dev(a) for a in args), out, reduce)
    assert_close(out, expected, np.float32)


@pytest.mark.parametrize("feats,reduce", [(3, "sum"), (33, "max"), (8, "mean"), (64, "sum")])
def test_load_ahead_rows_give_the_same_bits(monkeypatch, feats, reduce):
    """The load-ahead row kernel and narrow row groups combine slots in the same order:
    identical results for every combination."""
    from arraygnn.kernels.cuda import _launch

    case, csr = case_csr("power-law", np.int64)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((case.num_src_nodes, 1, feats)).astype(np.float32)
    w = rng.standard_normal((case.num_edges, 1)).astype(np.float32)
    args = [to_dev(a) for a in (csr.indptr, csr.indices, csr.kernel_perm, x, w)]
    outs = []
    for ahead, narrow in ((False, False), (True, False), (False, True), (True, True)):
        monkeypatch.setattr(_launch, "LOAD_AHEAD", ahead)
        monkeypatch.setattr(_launch, "NARROW_GROUPS", narrow)
        monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", 16)  # light rows of 5..16 edges
        out = poisoned((case.num_dst_nodes, 1, feats), np.float32)
        spmm.spmm_csr(*args, out, reduce)
        outs.append(to_host(out))
    for other in outs[1:]:
        assert np.array_equal(outs[0], other)
    expected = reference.spmm_csr(
        csr.indptr, csr.indices, csr.kernel_perm, x, w, np.empty(outs[0].shape, np.float32), reduce
    )
    assert_close(outs[-1], expected, np.float32)


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_row_result_does_not_depend_on_its_csr_position(monkeypatch, reduce):
    """Heavy rows are split from their own first slot, so the same row gives the same bits
    wherever it sits in the CSR (what a partitioned graph or a subgraph relies on)."""
    from arraygnn.kernels.cuda import _launch

    monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", 4)
    rng = np.random.default_rng(9)
    degrees = np.array([9, 0, 13, 4, 5, 17, 1], dtype=np.int64)
    num_src = 11
    indices = rng.integers(0, num_src, int(degrees.sum()))
    x = rng.standard_normal((num_src, 1, 3)).astype(np.float32) * 1e3
    w = rng.standard_normal((int(degrees.sum()), 1)).astype(np.float32)

    def run(lead):
        """The same rows after a leading row of ``lead`` edges."""
        deg = np.concatenate([[lead], degrees])
        indptr = np.concatenate([[0], np.cumsum(deg)])
        idx = np.concatenate([rng.integers(0, num_src, lead), indices])
        ww = np.concatenate([np.ones((lead, 1), np.float32), w])
        out = poisoned((deg.size, 1, 3), np.float32)
        args = (indptr, idx, np.arange(idx.size), x, ww)
        spmm.spmm_csr(*(to_dev(a) for a in args), out, reduce)
        return to_host(out)[1:]

    base = run(0)
    for lead in (1, 2, 3, 5, 6):
        assert np.array_equal(run(lead), base), lead


@pytest.mark.parametrize("reduce", ["sum", "max"])
def test_slot_ordered_weights_give_the_same_bits(reduce):
    """What ``ops.spmm`` does with edge weights: gather them into CSR slot order (the CUDA
    gather kernel) and pass no permutation; the same bits as reading them through ``perm``."""
    from arraygnn.kernels.cuda import gather

    case, csr = case_csr("power-law", np.int32)
    assert not np.array_equal(csr.perm, np.arange(case.num_edges))  # a real permutation
    rng = np.random.default_rng(10)
    x = rng.standard_normal((case.num_src_nodes, 2, 5)).astype(np.float32)
    w = rng.standard_normal((case.num_edges, 2)).astype(np.float32)
    indptr, indices, perm = to_dev(csr.indptr), to_dev(csr.indices), to_dev(csr.perm)
    shape = (case.num_dst_nodes, 2, 5)
    via_perm = poisoned(shape, np.float32)
    spmm.spmm_csr(indptr, indices, perm, to_dev(x), to_dev(w), via_perm, reduce)
    w_slots = poisoned(w.shape, np.float32)
    gather.gather_rows(to_dev(w), perm, w_slots)
    slot_ordered = poisoned(shape, np.float32)
    spmm.spmm_csr(indptr, indices, None, to_dev(x), w_slots, slot_ordered, reduce)
    assert np.array_equal(to_host(via_perm), to_host(slot_ordered))
