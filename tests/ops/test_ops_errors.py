"""Bad input raises TypeError / ValueError naming the argument, before any kernel runs,
and nothing the caller passed is modified."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from arraygnn import config, ops

EI = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
X = np.arange(8.0).reshape(4, 2)


def _frozen(*arrays):
    for a in arrays:
        a.setflags(write=False)
    return arrays


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ops.gather(X, np.array([0, 4])), "index has entry 4, out of range"),
        (lambda: ops.gather(X, np.array([-1, 0])), "index has a negative entry"),
        (lambda: ops.scatter(X, np.array([0, 1, 5, 1]), 3), "index has entry 5"),
        (lambda: ops.scatter(X, np.array([0, 1, -2, 1]), 3), "negative"),
        (lambda: ops.spmm(np.array([[0, 9], [1, 1]]), X), r"edge_index\[0\] \(sources\)"),
        (lambda: ops.spmm(np.array([[0, 1], [1, 4]]), X), r"edge_index\[1\] \(targets\)"),
        (lambda: ops.spmm(EI, X, num_dst_nodes=3), r"edge_index\[1\].*out of range for size 3"),
        (lambda: ops.to_csr(np.array([[0, -1], [1, 1]]), 4, 4), "negative"),
        (lambda: ops.edge_softmax(EI, np.ones(4), num_dst_nodes=2), r"edge_index\[1\]"),
        (lambda: ops.sddmm(np.array([[0, 7], [1, 1]]), X, X), "indexing lhs"),
        (lambda: ops.sddmm(np.array([[0, 1], [1, 7]]), X, X), "indexing rhs"),
    ],
)
def test_out_of_range_and_negative_indices(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ops.spmm(EI, X, edge_weight=np.ones(3)), "edge_weight has 3 entries"),
        (lambda: ops.spmm(EI, X, edge_weight=np.ones((5, 2))), "edge_weight must be"),
        (
            lambda: ops.spmm(EI, np.ones((4, 3, 2)), edge_weight=np.ones((4, 2))),
            "edge_weight has 2 heads but x has 3",
        ),
        (lambda: ops.scatter(X, np.array([0, 1]), 3), "index has 2 entries but src has 4 rows"),
        (lambda: ops.segment(X, np.array([0, 2, 1, 4])), "non-decreasing"),
        (lambda: ops.segment(X, np.array([0, 5])), "ptr"),
        (lambda: ops.edge_softmax(EI, np.ones(3)), "logits must be"),
        (lambda: ops.sddmm(EI, X, np.ones((3, 2))), "rhs"),
        (lambda: ops.sddmm(EI, X, np.ones((4, 3)), "add"), "do not broadcast"),
        (lambda: ops.sddmm(ops.to_csr(EI, 4, 4), np.ones((5, 2)), X), "lhs.*5 rows"),
        (lambda: ops.spmm(ops.to_csr(EI, 4, 4), np.ones((5, 2))), "num_src_nodes=4"),
        (lambda: ops.spmm(ops.to_csr(EI, 4, 4), X, num_dst_nodes=6), "num_dst_nodes=4"),
        (lambda: ops.to_csr(np.zeros((3, 2), dtype=np.int64), 2, 2), r"\[2, E\]"),
        (lambda: ops.scatter(X, np.array([0, 1, 1, 0]), -1), "dim_size must be >= 0"),
    ],
)
def test_mismatched_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ops.gather(X, np.array([0.0, 1.0])), "index must be an integer array"),
        (lambda: ops.scatter(X, np.array([0, 1, 1, 0.5]), 2), "index must be an integer"),
        (lambda: ops.spmm(EI.astype(float), X), r"edge_index\[0\].*integer"),
        (lambda: ops.segment(X, np.array([0.0, 4.0])), "ptr must be an integer"),
        (lambda: ops.scatter(X, np.array([0, 1, 1, 0]), 2.0), "dim_size must be"),
        (lambda: ops.scatter(X.astype(bool), np.array([0, 1, 1, 0]), 2), "src must be"),
        (lambda: ops.spmm(EI, [[1.0]] * 4), "x must be a NumPy or CuPy array"),
        (lambda: ops.edge_softmax(EI, np.ones(4, dtype=np.int64)), "logits must be a floating"),
        (lambda: ops.gather(X, [0, 1]), "index must be a NumPy or CuPy array"),
    ],
)
def test_wrong_types(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ops.scatter(X, np.array([0, 1, 1, 0]), 2, reduce="median"), "reduce must be"),
        (lambda: ops.spmm(EI, X, reduce="avg"), "reduce must be one of sum, mean"),
        (lambda: ops.segment(X, np.array([0, 4]), reduce=None), "reduce must be"),
        (lambda: ops.sddmm(EI, X, X, op="pow"), "op must be one of"),
        (lambda: ops.sddmm(EI, X, X, lhs_target="w"), "lhs_target must be"),
        (lambda: ops.sddmm(EI, X, X, rhs_target="src"), "rhs_target must be"),
    ],
)
def test_unknown_reduce_op_target(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_mixed_numpy_and_cupy_names_the_arguments(monkeypatch):
    """A CuPy stand-in registered as ``cupy`` makes the namespace check see two devices."""

    class FakeCupyArray:
        def __init__(self, a):
            self.dtype, self.shape, self.ndim = a.dtype, a.shape, a.ndim

    fake = types.ModuleType("cupy")
    fake.ndarray = FakeCupyArray
    monkeypatch.setitem(sys.modules, "cupy", fake)
    with pytest.raises(TypeError, match=r"NumPy \(x\) and CuPy \(index\)"):
        ops.gather(X, FakeCupyArray(np.array([0, 1])))
    with pytest.raises(TypeError, match=r"CuPy \(edge_weight\)"):
        ops.spmm(EI, X, edge_weight=FakeCupyArray(np.ones(4)))
    with pytest.raises(TypeError, match=r"CuPy \(index\)"):
        ops.scatter(X, FakeCupyArray(np.array([0, 1, 1, 0])), 2)
    with pytest.raises(TypeError, match=r"CuPy \(rhs\)"):
        ops.sddmm(EI, X, FakeCupyArray(X))


def test_nothing_is_modified():
    ei, x, w = _frozen(EI.copy(), X.copy(), np.ones(4))
    src = _frozen(np.arange(8.0).reshape(4, 2))[0]
    logits = _frozen(np.arange(4.0))[0]
    ptr = _frozen(np.array([0, 2, 4]))[0]
    idx = _frozen(np.array([3, 1, 1, 0]))[0]
    copies = [a.copy() for a in (ei, x, w, src, logits, ptr, idx)]
    csr = ops.to_csr(ei, 4, 4)
    for reduce in ("sum", "mean", "max", "min", "prod"):
        ops.spmm(ei, x, w, reduce=reduce)
        ops.spmm(csr, x, w, reduce=reduce)
        ops.scatter(src, idx, 4, reduce)
        ops.segment(src, ptr, reduce)
    ops.sddmm(ei, x, x, "dot")
    ops.edge_softmax(ei, logits)
    ops.gather(x, idx)
    for a, b in zip((ei, x, w, src, logits, ptr, idx), copies, strict=True):
        np.testing.assert_array_equal(a, b)


def test_validation_happens_before_any_kernel(monkeypatch):
    """A bad call never reaches a kernel (the kernel lookup would fail loudly)."""
    from arraygnn.ops import _common

    def boom(*args, **kwargs):
        raise AssertionError("a kernel was looked up for invalid input")

    for mod in ("gather", "scatter", "spmm", "sddmm", "edge_softmax", "csr"):
        monkeypatch.setattr(f"arraygnn.ops.{mod}.kernel_function", boom, raising=False)
    monkeypatch.setattr(_common, "kernel_function", boom)
    with pytest.raises(ValueError):
        ops.spmm(np.array([[0, 9], [1, 1]]), X)
    with pytest.raises(ValueError):
        ops.scatter(X, np.array([0, 1, 9, 1]), 3)
    with pytest.raises(ValueError):
        ops.gather(X, np.array([0, 9]))


def test_validate_setting_compares_with_the_reference():
    x = np.random.default_rng(0).standard_normal((4, 3))
    with config(validate=True):
        np.testing.assert_allclose(ops.spmm(EI, x, reduce="max"), ops.spmm(EI, x, reduce="max"))
        ops.scatter(x, np.array([1, 1, 0, 3]), 4, "mean")
        ops.edge_softmax(EI, x)
        ops.sddmm(ops.to_csr(EI, 4, 4), x, x, "dot")  # the CSR-slot kernel and its reference


def test_validate_setting_accepts_summation_order_differences():
    """A long float32 dot with cancellation rounds differently in any order: the kernel's
    result (closer to the exact value here) was flagged against the reference's."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(4096) * 100).astype(np.float32)
    b = rng.standard_normal(4096) * 100
    a64 = a.astype(np.float64)
    b = (b - a64 * (a64 @ b) / (a64 @ a64)).astype(np.float32)  # nearly orthogonal to a
    ei = np.array([[0], [0]])
    with config(validate=True):
        got = ops.sddmm(ei, a[None], b[None], "dot")
    exact = a64 @ b.astype(np.float64)
    assert abs(float(got[0, 0]) - exact) <= abs(float((a * b).sum()) - exact) + 1e-2


def test_csr_size_mismatch_messages_name_their_source():
    csr = ops.to_csr(EI, 4, 4)
    with pytest.raises(ValueError, match="num_src_nodes=4, but num_src_nodes=5 was given"):
        ops.to_csr(csr, 5, 4)
    with pytest.raises(ValueError, match="the source features x have 3 rows"):
        ops.spmm(csr, np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"num_dst_nodes defaults to x.shape\[0\] = 3"):
        ops.spmm(np.array([[0, 1], [1, 3]]), np.ones((3, 2)))  # bipartite, no num_dst_nodes


def _csr_parts():
    """A valid CSR's parts as fresh writable int64 arrays (3 sources, 2 targets, 4 edges)."""
    src = np.array([2, 0, 1, 0])
    dst = np.array([1, 0, 1, 1])
    perm = np.argsort(dst, kind="stable")
    indptr = np.array([0, 1, 4])
    return [indptr, src[perm], perm, src, dst]


@pytest.mark.parametrize(
    "part, value, match",
    [
        (0, np.array([0, 1]), "indptr must have num_dst_nodes \\+ 1 = 3 entries"),
        (0, np.array([1, 1, 4]), "indptr must start at 0 and end at the number of edges"),
        (0, np.array([0, 1, 3]), "indptr must start at 0 and end at the number of edges"),
        (0, np.array([0, 0, 4]), "dst\\[perm\\] must be each slot's row"),
        (0, np.array([0, 5, 4]), "indptr must be non-decreasing"),
        (
            1,
            np.array([0, 1, 10**9, 2]),
            "CSR indices has entry 1000000000, out of range",
        ),
        (1, np.array([0, 2, 1, -1]), "CSR indices has a negative entry"),
        (1, np.array([0, 2, 1]), "CSR perm has 4 entries but indices has 3"),
        (2, np.array([0, 0, 2, 3]), "perm must be a permutation"),
        (2, np.array([0, 1, 2, 7]), "CSR perm has entry 7, out of range for size 4"),
        (1, np.array([0, 2, 0, 1]), "indices must be the sources of the slots"),
        (4, np.array([1, 0, 1, 0]), "dst\\[perm\\] must be each slot's row"),
        (3, np.array([2, 0, 1, 3]), "CSR src has entry 3, out of range for size 3"),
        (1, np.array([0.0, 2.0, 1.0, 0.0]), "CSR indices must be a 1-D integer array"),
        (0, np.array([[0, 1, 4]]), "CSR indptr must be a 1-D integer array"),
        (4, [1, 0, 1, 1], "CSR dst must be a NumPy or CuPy array"),
    ],
)
def test_csr_built_from_parts_is_checked(part, value, match):
    """A CSR built directly (e.g. from another library's arrays) is checked before any
    kernel can read it: an out-of-range slot once crashed the process in ``spmm``."""
    parts = _csr_parts()
    parts[part] = value
    with pytest.raises((TypeError, ValueError), match=match):
        ops.CSR(*parts, 3, 2)


def test_csr_built_from_parts_works_and_owns_its_arrays():
    parts = _csr_parts()
    csr = ops.CSR(*parts, 3, 2)
    x = np.arange(6.0).reshape(3, 2)
    ref = ops.to_csr(np.stack([parts[3], parts[4]]), 3, 2)
    np.testing.assert_array_equal(ops.spmm(csr, x), ops.spmm(ref, x))
    assert all(p.flags.writeable for p in parts)  # the caller's arrays are not frozen
    parts[1][0] = 10**9  # ... and changing them later cannot reach the kernels
    np.testing.assert_array_equal(ops.spmm(csr, x), ops.spmm(ref, x))
    with pytest.raises(AttributeError):
        csr.indices = parts[1]
    with pytest.raises(ValueError, match="perm_is_identity=True but perm is not"):
        ops.CSR(*_csr_parts(), 3, 2, perm_is_identity=True)
    with pytest.raises(ValueError, match="num_dst_nodes must be >= 0"):
        ops.CSR(*_csr_parts(), 3, -1)
    int32 = ops.CSR(*(p.astype(np.int32) for p in _csr_parts()), 3, 2)
    assert int32.index_dtype == np.int32 and csr.index_dtype == np.int64


def test_sddmm_div_by_zero_gives_inf_and_nan_like_numpy():
    # the CPU kernels ran Numba's Python error model: ZeroDivisionError (SystemError when
    # parallel) where NumPy, the CUDA kernel and the reference give inf / nan
    ei = np.array([[0, 1], [1, 0]])
    lhs = np.array([[1.0], [0.0]], np.float32)
    got = ops.sddmm(ei, lhs, np.zeros((2, 1), np.float32), op="div")
    assert np.isposinf(got[0, 0]) and np.isnan(got[1, 0])
    big = np.stack([np.arange(200_000) % 7, np.arange(200_000) % 5])
    out = ops.sddmm(big, np.ones((7, 2)), np.zeros((5, 2)), op="div")
    assert np.isposinf(out).all()


def test_validate_mode_takes_slot_order():
    import arraygnn
    from arraygnn.ops import slot_order

    csr = ops.to_csr(np.array([[0, 1, 2], [1, 0, 1]]), 3, 2)
    h = np.array([[1.0], [2.0], [3.0]])
    with arraygnn.config(validate=True):
        assert slot_order.edge_softmax_slots(csr, np.zeros(3)).tolist() == [1.0, 0.5, 0.5]
        assert slot_order.sddmm_slots(csr, h, np.zeros((2, 1)), "add").ravel().tolist() == [
            2.0,
            1.0,
            3.0,
        ]


def test_edge_softmax_of_longdouble_logits_takes_the_reference():
    ei = np.array([[0, 1, 2], [1, 0, 1]])
    got = ops.edge_softmax(ei, np.zeros(3, np.longdouble))
    assert got.dtype == np.longdouble
    np.testing.assert_allclose(got.astype(np.float64), [0.5, 1.0, 0.5], rtol=1e-15)


def test_reference_reductions_for_a_device_namespace_run_on_the_host():
    # CuPy's ufunc.at lacks multiply, narrow integers and (before 14.1) int64 add: the
    # reference (integer values, validate mode) reduces on the host for any non-NumPy xp
    from arraygnn.kernels import reference

    device = types.SimpleNamespace(asarray=lambda a: ("on device", a))
    rows = np.array([0, 2, 0])
    vals = np.array([[2], [3], [4]], np.int8)
    for reduce, want in (("prod", [[8], [0], [3]]), ("sum", [[6], [0], [3]])):
        tag, host = reference._ufunc_reduce_rows(device, vals, rows, 3, reduce)
        assert tag == "on device" and host.tolist() == want


def test_edge_softmax_still_refuses_negative_sources():
    with pytest.raises(ValueError, match="sources.*negative"):
        ops.edge_softmax(np.array([[-1, 0], [0, 0]]), np.zeros(2))
