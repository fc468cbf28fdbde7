"""CUDA gather, SDDMM, edge softmax and the opt-in atomic scatter vs NumPy references."""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_oracle import edge_softmax_ref, sddmm_ref, segment_ref
from _cuda_support import (
    GRAPH_CASES,
    empty_dev,
    small_launch,  # noqa: F401 - fixture
    to_csr,
    to_dev,
    to_host,
    tolerance,
)

from arraygnn.kernels.cuda import _atomic, edge_softmax, gather, sddmm


def _close(out, ref, dtype):
    got = to_host(out).astype(np.float64)
    assert not np.isnan(got).any(), "an output element was never written"
    np.testing.assert_allclose(got, ref, rtol=tolerance(dtype), atol=tolerance(dtype))


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("dtype,index_dtype", [(np.float16, np.int64), (np.float64, np.int32)])
def test_gather_rows(dtype, index_dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(dtype)
    index = np.array([5, 0, 0, 2, 5, 1, 3], dtype=index_dtype)
    out = empty_dev((7, 3), dtype)
    gather.gather_rows(to_dev(x), to_dev(index), out)
    assert np.array_equal(to_host(out), x[index])
    empty = empty_dev((0, 3), dtype)
    gather.gather_rows(to_dev(x), to_dev(index[:0]), empty)
    assert to_host(empty).shape == (0, 3)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("graph", GRAPH_CASES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "dot", "copy_lhs", "copy_rhs"])
def test_sddmm_ops(graph, op):
    src, dst, num_src, num_dst = graph
    rng = np.random.default_rng(1)
    lhs = rng.uniform(0.5, 1.5, (num_src, 2, 3)).astype(np.float32)
    rhs = rng.uniform(0.5, 1.5, (num_dst, 2, 3)).astype(np.float32)
    k = 1 if op == "dot" else 3
    out = empty_dev((src.shape[0], 2, k), np.float32)
    sddmm.sddmm_coo(to_dev(src), to_dev(dst), to_dev(lhs), to_dev(rhs), out, op, "u", "v")
    _close(out, sddmm_ref(src, dst, lhs, rhs, op, "u", "v"), np.float32)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize(
    "lhs_target,rhs_target,lhs_shape,rhs_shape",
    [
        ("v", "u", (1, 4), (3, 4)),  # broadcast over groups
        ("e", "u", (3, 1), (3, 4)),  # edge values, broadcast over features
        ("u", "e", (3, 4), (1, 1)),
        ("e", "e", (1, 4), (3, 1)),
    ],
)
@pytest.mark.parametrize("op", ["add", "mul", "div", "dot"])
def test_sddmm_targets_and_broadcasting(lhs_target, rhs_target, lhs_shape, rhs_shape, op):
    src, dst, num_src, num_dst = GRAPH_CASES[6].values[0]  # bipartite
    rows = {"u": num_src, "v": num_dst, "e": src.shape[0]}
    rng = np.random.default_rng(2)
    lhs = rng.uniform(0.5, 1.5, (rows[lhs_target],) + lhs_shape).astype(np.float16)
    rhs = rng.uniform(0.5, 1.5, (rows[rhs_target],) + rhs_shape).astype(np.float16)
    ref = sddmm_ref(src, dst, lhs, rhs, op, lhs_target, rhs_target)
    out = empty_dev(ref.shape, np.float16)
    sddmm.sddmm_coo(
        to_dev(src.astype(np.int32)),
        to_dev(dst.astype(np.int32)),
        to_dev(lhs),
        to_dev(rhs),
        out,
        op,
        lhs_target,
        rhs_target,
    )
    _close(out, ref, np.float16)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("graph", GRAPH_CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_edge_softmax(graph, dtype):
    src, dst, num_src, num_dst = graph
    rng = np.random.default_rng(3)
    logits = (rng.standard_normal((src.shape[0], 2)) * 4).astype(dtype)
    logits[:1] = 60  # large logits: must not overflow
    indptr, _, perm = to_csr(src, dst, num_dst, np.int64)
    out = empty_dev(logits.shape, dtype)
    edge_softmax.edge_softmax_csr(to_dev(indptr), to_dev(perm), to_dev(logits), out)
    ref = edge_softmax_ref(dst, logits, num_dst)
    _close(out, ref, dtype)
    if src.shape[0]:
        sums = segment_ref(dst, to_host(out)[:, None, :].astype(np.float64), "sum", num_dst)
        has_edges = np.bincount(dst, minlength=num_dst) > 0
        np.testing.assert_allclose(sums[has_edges], 1.0, rtol=tolerance(dtype) * 4)


@pytest.mark.usefixtures("small_launch")
@pytest.mark.parametrize("graph", GRAPH_CASES)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_atomic_scatter(graph, reduce):
    src, dst, num_src, num_dst = graph
    rng = np.random.default_rng(4)
    values = rng.standard_normal((dst.shape[0], 3)).astype(np.float64)
    out = empty_dev((num_dst, 3), np.float64)
    _atomic.scatter_atomic(to_dev(dst), to_dev(values), out, reduce)
    _close(out, segment_ref(dst, values[:, None, :], reduce, num_dst)[:, 0, :], np.float64)


def test_atomic_scatter_rejects_float16_and_prod():
    out = empty_dev((2, 1), np.float16)
    with pytest.raises(TypeError, match="float16"):
        _atomic.scatter_atomic(
            to_dev(np.array([0])), to_dev(np.ones((1, 1), np.float16)), out, "sum"
        )
    with pytest.raises(ValueError, match="prod"):
        _atomic.scatter_atomic(
            to_dev(np.array([0])), to_dev(np.ones((1, 1))), empty_dev((2, 1), np.float64), "prod"
        )
