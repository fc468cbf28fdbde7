"""Every op x reduction x value dtype x index dtype against the naive oracles of
``arraygnn.kernels.reference``, over the labelled graph cases of ``arraygnn.testing.cases``.

Each test item loops over all labelled cases (the failing case is named in the message),
which keeps the number of items, and so the suite's run time, small."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.kernels import reference as ref
from arraygnn.testing.cases import CASE_NAMES, get_case

VALUE_DTYPES = [np.float16, np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]
REDUCES = ["sum", "mean", "max", "min", "prod"]
TOL = {np.float16: 2e-2, np.float32: 2e-5, np.float64: 1e-12}


def _values(rng, shape, dtype, reduce="sum"):
    if reduce == "prod":  # near 1 so long rows neither overflow nor underflow
        v = 1.0 + 0.05 * rng.standard_normal(shape)
    else:
        v = rng.standard_normal(shape)
    return v.astype(dtype)


def _close(got, want, dtype, label=""):
    assert got.shape == want.shape, label
    assert got.dtype == want.dtype, label
    tol = TOL[dtype]
    np.testing.assert_allclose(
        got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol, err_msg=label
    )


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_gather_matches_oracle(value_dtype, index_dtype):
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        rng = np.random.default_rng(0)
        x = _values(rng, (case.num_src_nodes, 3), value_dtype)
        got = ops.gather(x, case.src)
        np.testing.assert_array_equal(got, ref.naive_gather(x, case.src), err_msg=name)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_scatter_and_segment_match_oracle(value_dtype, index_dtype, reduce):
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        rng = np.random.default_rng(1)
        src = _values(rng, (case.num_edges, 2, 3), value_dtype, reduce)
        before = src.copy()
        got = ops.scatter(src, case.dst, case.num_dst_nodes, reduce)
        _close(got, ref.naive_scatter(src, case.dst, case.num_dst_nodes, reduce), value_dtype, name)
        # the same reduction through a CSR pointer over target-sorted rows
        order = np.argsort(case.dst, kind="stable")
        ptr = np.zeros(case.num_dst_nodes + 1, dtype=index_dtype)
        ptr[1:] = np.cumsum(np.bincount(case.dst, minlength=case.num_dst_nodes))
        got_seg = ops.segment(src[order], ptr, reduce)
        _close(got_seg, ref.naive_segment(src[order], ptr, reduce), value_dtype, name)
        np.testing.assert_array_equal(got_seg, got)  # same edge order -> same bits
        np.testing.assert_array_equal(src, before)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_spmm_matches_oracle(value_dtype, index_dtype, reduce, weighted):
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        rng = np.random.default_rng(2)
        x = _values(rng, (case.num_src_nodes, 5), value_dtype, reduce)
        w = _values(rng, (case.num_edges,), value_dtype, reduce) if weighted else None
        want = ref.naive_spmm(case.edge_index, x, w, reduce, case.num_dst_nodes)
        got = ops.spmm(case.edge_index, x, w, reduce=reduce, num_dst_nodes=case.num_dst_nodes)
        _close(got, want, value_dtype, name)
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        np.testing.assert_array_equal(ops.spmm(csr, x, w, reduce=reduce), got)


@pytest.mark.parametrize("reduce", ["sum", "max"])
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_spmm_heads_match_oracle(value_dtype, reduce):
    for name in CASE_NAMES:
        case = get_case(name, np.int64)
        rng = np.random.default_rng(3)
        heads = 3
        x = _values(rng, (case.num_src_nodes, heads, 4), value_dtype)
        w = _values(rng, (case.num_edges, heads), value_dtype)
        n_dst = case.num_dst_nodes
        got = ops.spmm(case.edge_index, x, w, reduce=reduce, num_dst_nodes=n_dst)
        _close(got, ref.naive_spmm(case.edge_index, x, w, reduce, n_dst), value_dtype, name)
        # 1-head x broadcast against 3-head weights
        x1 = x[:, :1]
        got1 = ops.spmm(case.edge_index, x1, w, reduce=reduce, num_dst_nodes=n_dst)
        _close(got1, ref.naive_spmm(case.edge_index, x1, w, reduce, n_dst), value_dtype, name)


SDDMM_CASES = [
    # (op, lhs_target, rhs_target, lhs feature shape, rhs feature shape)
    ("add", "u", "v", (4,), (4,)),
    ("sub", "v", "u", (2, 3), (3,)),
    ("mul", "u", "e", (4,), ()),
    ("div", "e", "v", (2, 1), (2, 5)),
    ("dot", "u", "v", (3, 4), (3, 4)),
    ("dot", "u", "e", (2, 6), (1, 6)),
    ("dot", "v", "u", (2, 8), (2, 8)),  # eight partial sums, no tail
    ("dot", "u", "v", (21,), (21,)),  # eight partial sums and a tail of 5
    ("dot", "e", "v", (2, 19), (2, 1)),  # depth broadcast on one side
    ("copy_lhs", "u", "v", (3,), (3,)),
    ("copy_rhs", "u", "e", (3,), (2, 3)),
    ("mul", "u", "v", (2, 1, 3), (4, 1)),  # no two-level form: reference path
]


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
@pytest.mark.parametrize("spec", SDDMM_CASES, ids=lambda s: f"{s[0]}-{s[1]}{s[2]}-{len(s[3])}")
def test_sddmm_matches_oracle(spec, value_dtype, index_dtype):
    for name in CASE_NAMES:
        op, lt, rt, fl, fr = spec
        case = get_case(name, index_dtype)
        rows = {"u": case.num_src_nodes, "v": case.num_dst_nodes, "e": case.num_edges}
        rng = np.random.default_rng(4)
        lhs = _values(rng, (rows[lt],) + fl, value_dtype)
        rhs = _values(rng, (rows[rt],) + fr, value_dtype)
        if op == "div":
            rhs = (np.abs(rhs) + 0.5).astype(value_dtype)
        got = ops.sddmm(case.edge_index, lhs, rhs, op=op, lhs_target=lt, rhs_target=rt)
        if op in ("copy_lhs", "copy_rhs"):
            src_arr, tgt = (lhs, lt) if op == "copy_lhs" else (rhs, rt)
            pick = {"u": case.src, "v": case.dst, "e": np.arange(case.num_edges)}[tgt]
            np.testing.assert_array_equal(got, src_arr[pick], err_msg=name)
            continue
        _close(got, ref.naive_sddmm(case.edge_index, lhs, rhs, op, lt, rt), value_dtype, name)
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        np.testing.assert_array_equal(
            ops.sddmm(csr, lhs, rhs, op=op, lhs_target=lt, rhs_target=rt), got
        )


@pytest.mark.parametrize("heads", [None, 1, 3])
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("value_dtype", VALUE_DTYPES)
def test_edge_softmax_matches_oracle(value_dtype, index_dtype, heads):
    for name in CASE_NAMES:
        case = get_case(name, index_dtype)
        rng = np.random.default_rng(5)
        shape = (case.num_edges,) if heads is None else (case.num_edges, heads)
        logits = (3 * rng.standard_normal(shape)).astype(value_dtype)
        got = ops.edge_softmax(case.edge_index, logits, num_dst_nodes=case.num_dst_nodes)
        _close(
            got,
            ref.naive_edge_softmax(case.edge_index, logits, case.num_dst_nodes),
            value_dtype,
            name,
        )
        csr = ops.to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)
        np.testing.assert_array_equal(ops.edge_softmax(csr, logits), got)


@pytest.mark.parametrize(
    "index_dtype", ["int8", "uint8", "int16", "uint16", "uint32", ">i8", ">i4"]
)
def test_every_integer_index_dtype_gives_the_int64_results(index_dtype):
    """Narrow, unsigned and non-native byte-order indices (e.g. a big-endian file) work
    in every op and give the int64 results, with more edges than the index dtype can
    count (70,000 > uint16): no row pointer may be built in the index's own dtype."""
    rng = np.random.default_rng(5)
    n, e = 100, 70_000
    ei64 = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)])
    ei = ei64.astype(index_dtype)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    rows = rng.standard_normal((e, 2)).astype(np.float32)
    logits = rng.standard_normal((e, 2)).astype(np.float32)
    ptr = np.array([0, 10, 10, e // 2, e]).astype(np.int64)
    pairs = [
        (lambda i: ops.spmm(i, x, rows[:, 0], reduce="max"), "spmm"),
        (lambda i: ops.gather(x, i[0]), "gather"),
        (lambda i: ops.scatter(rows, i[1], n, "mean"), "scatter"),
        (lambda i: ops.sddmm(i, x, x, "dot"), "sddmm"),
        (lambda i: ops.edge_softmax(i, logits, n), "edge_softmax (edge list)"),
        (lambda i: ops.edge_softmax(ops.to_csr(i, n, n), logits), "edge_softmax (CSR)"),
        (lambda i: ops.to_csr(i, n, n).indptr, "to_csr indptr"),
        (lambda i: ops.to_csr(i, n, n).perm, "to_csr perm"),
    ]
    for call, name in pairs:
        got, want = call(ei), call(ei64)
        assert got.tobytes() == want.tobytes(), name
    got = ops.segment(rows, ptr.astype(index_dtype) if np.dtype(index_dtype).itemsize > 2 else ptr)
    assert got.tobytes() == ops.segment(rows, ptr).tobytes(), "segment"


@pytest.mark.parametrize("value_dtype", [">f4", ">f8", ">f2"])
def test_non_native_byte_order_values_give_the_native_results(value_dtype):
    """Values in the other byte order (a big-endian file read on a little-endian machine)
    are converted once and run the compiled kernels: the native dtype's bits, and the
    computed results in native order (as NumPy's arithmetic); gather, a copy of rows,
    keeps the caller's dtype like ``x[index]``."""
    rng = np.random.default_rng(6)
    n, e = 30, 200
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)])
    native = np.dtype(value_dtype).newbyteorder("=")
    x = rng.standard_normal((n, 4)).astype(native)
    rows = rng.standard_normal((e, 2)).astype(native)
    calls = [
        (lambda x, r: ops.spmm(ei, x, r[:, 0], reduce="mean"), "spmm"),
        (lambda x, r: ops.scatter(r, ei[1], n, "max"), "scatter"),
        (lambda x, r: ops.segment(r, np.array([0, 7, 7, e]), "prod"), "segment"),
        (lambda x, r: ops.gather(x, ei[0]), "gather"),
        (lambda x, r: ops.sddmm(ei, x, x, "dot"), "sddmm"),
        (lambda x, r: ops.edge_softmax(ei, r, n), "edge_softmax"),
    ]
    for call, name in calls:
        got = call(x.astype(value_dtype), rows.astype(value_dtype))
        want = call(x, rows)
        assert got.dtype == (np.dtype(value_dtype) if name == "gather" else native), name
        np.testing.assert_array_equal(got.astype(native), want, err_msg=name)
