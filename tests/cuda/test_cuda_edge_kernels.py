"""CUDA ``gather_rows``, ``sddmm_coo``, ``edge_softmax_csr``, ``gatv2_scores_csr`` and the
opt-in atomic scatter vs :mod:`arraygnn.kernels.reference`."""

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
from arraygnn.kernels.cuda import _atomic, _launch, edge_softmax, gather, gatv2, sddmm

pytestmark = CUDA_TEST_MARKS


@pytest.mark.parametrize("dtype,index_dtype", [(np.float16, np.int64), (np.float64, np.int32)])
def test_gather_rows(dtype, index_dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(dtype)
    index = np.array([5, 0, 0, 2, 5, 1, 3], dtype=index_dtype)
    out = poisoned((7, 3), dtype)
    gather.gather_rows(to_dev(x), to_dev(index), out)
    assert np.array_equal(to_host(out), reference.gather_rows(x, index, np.empty((7, 3), dtype)))
    empty = poisoned((0, 3), dtype)
    gather.gather_rows(to_dev(x), to_dev(index[:0]), empty)
    assert to_host(empty).shape == (0, 3)


OPS = ["add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", CASES)
def test_sddmm_u_v(case, op):
    case, _ = case_csr(*case)
    rng = np.random.default_rng(1)
    lhs = rng.uniform(0.5, 1.5, (case.num_src_nodes, 2, 3)).astype(np.float32)
    rhs = rng.uniform(0.5, 1.5, (case.num_dst_nodes, 2, 3)).astype(np.float32)
    shape = (case.num_edges, 2, 1 if op == "dot" else 3)
    args = (case.src, case.dst, lhs, rhs)
    expected = reference.sddmm_coo(*args, np.empty(shape, np.float32), op, "u", "v")
    out = poisoned(shape, np.float32)
    sddmm.sddmm_coo(*(to_dev(a) for a in args), out, op, "u", "v")
    assert_close(out, expected, np.float32)


@pytest.mark.parametrize("op", ["add", "dot"])
@pytest.mark.parametrize("case", CASES)
def test_sddmm_csr_slots(case, op):
    """The CPU module's ``sddmm_csr`` mirrored: edge order through ``perm``, slot order
    with ``perm=None``; each value the edge's ``sddmm_coo`` value bit for bit."""
    case, csr = case_csr(*case)
    rng = np.random.default_rng(2)
    lhs = rng.uniform(0.5, 1.5, (case.num_dst_nodes, 2, 3)).astype(np.float32)
    rhs = rng.uniform(0.5, 1.5, (case.num_src_nodes, 1, 3)).astype(np.float32)
    shape = (case.num_edges, 2, 1 if op == "dot" else 3)
    edges = poisoned(shape, np.float32)
    sddmm.sddmm_coo(
        to_dev(case.src), to_dev(case.dst), to_dev(lhs), to_dev(rhs), edges, op, "v", "u"
    )
    args = (to_dev(csr.indptr), to_dev(csr.indices))
    by_edge = poisoned(shape, np.float32)
    sddmm.sddmm_csr(*args, to_dev(csr.perm), to_dev(lhs), to_dev(rhs), by_edge, op, "v", "u")
    by_slot = poisoned(shape, np.float32)
    sddmm.sddmm_csr(*args, None, to_dev(lhs), to_dev(rhs), by_slot, op, "v", "u")
    assert np.array_equal(to_host(by_edge), to_host(edges))
    assert np.array_equal(to_host(by_slot), to_host(edges)[csr.perm])


@pytest.mark.parametrize(
    "lhs_target,rhs_target,lhs_gk,rhs_gk",
    [
        ("v", "u", (1, 4), (3, 4)),  # broadcast over groups
        ("e", "u", (3, 1), (3, 4)),  # edge values broadcast over features
        ("u", "e", (3, 4), (1, 1)),
        ("e", "e", (1, 4), (3, 1)),
    ],
)
@pytest.mark.parametrize("op", ["add", "sub", "div", "dot", "copy_rhs"])
def test_sddmm_targets_broadcasting_float16(lhs_target, rhs_target, lhs_gk, rhs_gk, op):
    case, _ = case_csr("bipartite", np.int32)
    rows = {"u": case.num_src_nodes, "v": case.num_dst_nodes, "e": case.num_edges}
    rng = np.random.default_rng(2)
    lhs = rng.uniform(0.5, 1.5, (rows[lhs_target],) + lhs_gk).astype(np.float16)
    rhs = rng.uniform(0.5, 1.5, (rows[rhs_target],) + rhs_gk).astype(np.float16)
    shape = (case.num_edges, 3, 1 if op == "dot" else 4)
    args = (case.src, case.dst, lhs, rhs)
    expected = reference.sddmm_coo(*args, np.empty(shape, np.float16), op, lhs_target, rhs_target)
    out = poisoned(shape, np.float16)
    sddmm.sddmm_coo(*(to_dev(a) for a in args), out, op, lhs_target, rhs_target)
    assert_close(out, expected, np.float16)


def _launched_kernels(monkeypatch):
    """The kernels each ``_launch.launch`` call starts, recorded in a list."""
    started = []
    real = _launch.launch

    def spy(kernel, work, *args):
        started.append(kernel)
        return real(kernel, work, *args)

    monkeypatch.setattr(_launch, "launch", spy)
    return started


# the simulator's block barrier costs ~30 ms per loop step of this kernel: tiny graphs only
@pytest.mark.parametrize("depth", [3, 8, 37])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "case", [("empty", np.int64), ("multi-edges", np.int32), ("bipartite", np.int64)]
)
def test_sddmm_dot_groups(monkeypatch, case, dtype, depth):
    """The experimental group-per-output dot (``_launch.SDDMM_DOT_GROUPS``) against the
    reference, with heads, over u -> v and e -> u; it really runs the group kernel."""
    monkeypatch.setattr(_launch, "SDDMM_DOT_GROUPS", True)
    monkeypatch.setattr(_launch, "SDDMM_DOT_GROUPS_MIN_DEPTH", 1)
    started = _launched_kernels(monkeypatch)
    case, _ = case_csr(*case)
    rng = np.random.default_rng(5)
    rows = {"u": case.num_src_nodes, "v": case.num_dst_nodes, "e": case.num_edges}
    for lt, rt in (("u", "v"), ("e", "u")):
        lhs = rng.uniform(-1.5, 1.5, (rows[lt], 2, depth)).astype(dtype)
        rhs = rng.uniform(-1.5, 1.5, (rows[rt], 2, depth)).astype(dtype)
        args = (case.src, case.dst, lhs, rhs)
        shape = (case.num_edges, 2, 1)
        expected = reference.sddmm_coo(*args, np.empty(shape, dtype), "dot", lt, rt)
        out = poisoned(shape, dtype)
        sddmm.sddmm_coo(*(to_dev(a) for a in args), out, "dot", lt, rt)
        assert_close(out, expected, dtype)
    if case.num_edges:
        assert sddmm._dot_groups_kernel in started


def test_sddmm_dot_groups_same_bits_for_launch_sizes(monkeypatch):
    """The group kernel's tree depends on the lanes only: blocks of 8, 16 or 32 threads and
    1 or 3 blocks give the same bits for a depth of 8 (8 lanes)."""
    from arraygnn._config import settings

    monkeypatch.setattr(_launch, "SDDMM_DOT_GROUPS", True)
    monkeypatch.setattr(_launch, "SDDMM_DOT_GROUPS_MIN_DEPTH", 1)
    case, _ = case_csr("unsorted", np.int64)
    rng = np.random.default_rng(6)
    lhs = rng.standard_normal((case.num_src_nodes, 1, 8)).astype(np.float32)
    rhs = rng.standard_normal((case.num_dst_nodes, 1, 8)).astype(np.float32)
    results = []
    for threads, blocks in ((8, 2), (16, 3), (32, 1)):
        monkeypatch.setattr(settings, "cuda_threads_per_block", threads)
        monkeypatch.setattr(settings, "cuda_max_blocks", blocks)
        assert sddmm.dot_group_lanes(8, threads) == 8
        out = poisoned((case.num_edges, 1, 1), np.float32)
        sddmm.sddmm_coo(
            to_dev(case.src), to_dev(case.dst), to_dev(lhs), to_dev(rhs), out, "dot", "u", "v"
        )
        results.append(to_host(out).tobytes())
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize("depth,grouped", [(16, False), (31, False), (32, True), (40, True)])
def test_sddmm_dot_default_kernel_by_depth(monkeypatch, depth, grouped):
    """By default (H200 timings of 2026-11-27) dots of depth 32 and more run the lane-group
    kernel, shallower ones one thread per edge."""
    started = _launched_kernels(monkeypatch)
    case, _ = case_csr("multi-edges", np.int32)
    rng = np.random.default_rng(7)
    lhs = rng.standard_normal((case.num_src_nodes, 1, depth)).astype(np.float32)
    rhs = rng.standard_normal((case.num_dst_nodes, 1, depth)).astype(np.float32)
    args = (case.src, case.dst, lhs, rhs)
    expected = reference.sddmm_coo(
        *args, np.empty((case.num_edges, 1, 1), np.float32), "dot", "u", "v"
    )
    out = poisoned((case.num_edges, 1, 1), np.float32)
    sddmm.sddmm_coo(*(to_dev(a) for a in args), out, "dot", "u", "v")
    assert_close(out, expected, np.float32)
    assert (sddmm._dot_groups_kernel in started) is grouped


def test_sddmm_dot_group_lanes():
    assert sddmm.dot_group_lanes(1, 128) == 1
    assert sddmm.dot_group_lanes(3, 128) == 4
    assert sddmm.dot_group_lanes(64, 128) == 32
    assert sddmm.dot_group_lanes(64, 4) == 4  # a group never spans two blocks
    assert sddmm.dot_group_lanes(64, 96) == 32
    assert sddmm.dot_group_lanes(64, 6) == 2


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_edge_softmax(case, dtype):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(3)
    logits = (rng.standard_normal((case.num_edges, 2)) * 4).astype(dtype)
    logits[:1] = 60  # large logits must not overflow
    expected = reference.edge_softmax_csr(csr.indptr, csr.perm, logits, np.empty_like(logits))
    out = poisoned(logits.shape, dtype)
    edge_softmax.edge_softmax_csr(to_dev(csr.indptr), to_dev(csr.perm), to_dev(logits), out)
    assert_close(out, expected, dtype)


def test_edge_softmax_without_perm():
    """Edges already sorted by target: perm None means slot j is edge j."""
    ptr = np.array([0, 3, 3, 7], dtype=np.int32)
    logits = np.random.default_rng(4).standard_normal((7, 1)).astype(np.float32)
    perm = np.arange(7, dtype=np.int32)
    expected = reference.edge_softmax_csr(ptr, perm, logits, np.empty_like(logits))
    out = poisoned(logits.shape, np.float32)
    edge_softmax.edge_softmax_csr(to_dev(ptr), None, to_dev(logits), out)
    assert_close(out, expected, np.float32)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("case", CASES[:9])
def test_atomic_scatter(case, reduce):
    case, csr = case_csr(*case)
    rng = np.random.default_rng(5)
    values = rng.standard_normal((case.num_edges, 3))
    expected = reference.naive_scatter(values, case.dst, case.num_dst_nodes, reduce)
    out = poisoned((case.num_dst_nodes, 3), np.float64)
    _atomic.scatter_atomic(to_dev(case.dst), to_dev(values), out, reduce)
    assert_close(out, expected, np.float64)


def test_atomic_scatter_rejects_float16_and_prod():
    with pytest.raises(TypeError, match="float16"):
        _atomic.scatter_atomic(
            to_dev(np.array([0])),
            to_dev(np.ones((1, 1), np.float16)),
            poisoned((2, 1), np.float16),
            "sum",
        )
    with pytest.raises(ValueError, match="prod"):
        _atomic.scatter_atomic(
            to_dev(np.array([0])), to_dev(np.ones((1, 1))), poisoned((2, 1), np.float64), "prod"
        )


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_atomic_scatter_propagates_nan(reduce):
    # CUDA's atomic max / min skip a NaN operand (also on a real card); the deterministic
    # kernels, the CPU and the reference give NaN, the documented rule
    index = np.array([0, 0, 1, 1, 2])
    values = np.array([[1.0, 1.0], [np.nan, 2.0], [np.nan, -1.0], [-2.0, 0.5], [3.0, np.nan]])
    expected = reference.naive_scatter(values, index, 3, reduce)
    out = to_dev(np.zeros((3, 2)))
    _atomic.scatter_atomic(to_dev(index), to_dev(values), out, reduce)
    got = to_host(out)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got[~np.isnan(got)], expected[~np.isnan(expected)])


def test_ops_scatter_opt_in_route_is_the_atomic_kernel():
    import types

    from arraygnn.kernels.cuda import scatter
    from arraygnn.ops._common import kernel_function
    from arraygnn.ops.scatter import _atomic_route

    # there used to be no kernels.cuda.scatter: the opt-in route fell back to the reference
    fake_cupy = types.ModuleType("cupy")
    assert kernel_function(fake_cupy, "scatter", "scatter_coo") is scatter.scatter_coo
    assert _atomic_route("max", np.float32) and not _atomic_route("prod", np.float32)
    assert not _atomic_route("sum", np.float16)
    rng = np.random.default_rng(3)
    index = np.array([2, 0, 2, 2, 1, 0])
    values = rng.standard_normal((6, 2, 3))
    for reduce in ("sum", "mean", "max", "min"):
        out = to_dev(np.full((4, 2, 3), np.nan))
        scatter.scatter_coo(to_dev(index), to_dev(values), out, reduce)
        expected = reference.naive_scatter(values, index, 4, reduce)
        np.testing.assert_allclose(to_host(out), expected, rtol=1e-12, atol=1e-12)


def test_negative_zero_survives_the_accumulator_widening():
    # values were widened as x + 0.0, which turns -0.0 into +0.0 (1 / x: +inf, not -inf)
    from arraygnn.kernels.cuda import segment

    ptr = np.array([0, 2])
    for reduce, pair in (("min", [-0.0, 2.0]), ("prod", [-0.0, 2.0]), ("max", [-0.0, -0.0])):
        for dtype in (np.float16, np.float32):
            x = np.array(pair, dtype).reshape(2, 1, 1)
            out = poisoned((1, 1, 1), dtype)
            segment.segment_csr(to_dev(ptr), None, to_dev(x), out, reduce)
            got = to_host(out)[0, 0, 0]
            assert got == 0 and np.signbit(got), (reduce, dtype)
    src, dst = np.array([0]), np.array([0])
    lhs = np.array([[[-0.0]]], np.float32)
    rhs = np.array([[[2.0]]], np.float32)
    for op in ("mul", "div"):
        out = poisoned((1, 1, 1), np.float32)
        sddmm.sddmm_coo(*(to_dev(a) for a in (src, dst, lhs, rhs)), out, op, "u", "v")
        assert np.signbit(to_host(out)[0, 0, 0]), op


@pytest.mark.parametrize("depth", [0, 3])
@pytest.mark.parametrize("case", CASES)
def test_gatv2_scores(case, depth):
    """Fused GATv2 scores in slot order, edge features read through perm (or in slot
    order with perm=None), with and without the edge term; float64 and float16 (summed in
    float32)."""
    case, csr = case_csr(*case)
    rng = np.random.default_rng(7)
    for dtype in (np.float64, np.float16) if depth else (np.float32,):
        h_src = rng.standard_normal((case.num_src_nodes, 2, 3)).astype(dtype)
        h_dst = rng.standard_normal((case.num_dst_nodes, 2, 3)).astype(dtype)
        att = rng.standard_normal((2, 3)).astype(dtype)
        ea = rng.standard_normal((case.num_edges, depth)).astype(dtype)
        w = rng.standard_normal((depth, 2, 3)).astype(dtype)
        for perm in (csr.perm, None):
            args = (csr.indptr, csr.indices, perm, h_src, h_dst, att, ea, w, 0.2)
            expected = reference.gatv2_scores_csr(*args, np.empty((case.num_edges, 2), dtype))
            out = poisoned((case.num_edges, 2), dtype)
            gatv2.gatv2_scores_csr(*(to_dev(a) for a in args[:-1]), 0.2, out)
            assert_close(out, expected, dtype)
