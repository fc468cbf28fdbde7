"""``ops.gather_mm`` / ``ops.segment_mm`` against the plain definition.

Every value dtype x index dtype, serial and parallel kernel bodies, bit-identical to the
reference kernel (same summation order) and close to a float64 einsum; the same bits on
any thread count; empty and degenerate shapes; named errors; inputs not modified.
"""

from __future__ import annotations

import numpy as np
import pytest
from _ops_threads import bits_on_thread_counts

from arraygnn import ops
from arraygnn.kernels import reference

TOL = {np.float16: 5e-3, np.float32: 2e-6, np.float64: 1e-13}


def _naive(a, b, idx):
    return np.einsum("nk,nkm->nm", a.astype(np.float64), b[idx].astype(np.float64))


@pytest.mark.parametrize("serial_work", [1 << 40, 0])  # the serial body / the parallel loop
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gather_mm_against_the_plain_definition(monkeypatch, dtype, index_dtype, serial_work):
    from arraygnn.kernels.cpu import gather_mm as cpu_gather_mm

    monkeypatch.setattr(cpu_gather_mm, "SERIAL_WORK", serial_work)
    rng = np.random.default_rng(0)
    for n, k, m, r in [(40, 5, 3, 4), (7, 1, 9, 1), (33, 16, 1, 6)]:
        a = rng.standard_normal((n, k)).astype(dtype)
        b = rng.standard_normal((r, k, m)).astype(dtype)
        idx = rng.integers(0, r, n).astype(index_dtype)
        idx[:3] = r - 1  # the last matrix, used by neighbouring rows
        before = (a.copy(), b.copy(), idx.copy())
        out = ops.gather_mm(a, b, idx_b=idx)
        assert out.dtype == np.dtype(dtype) and out.shape == (n, m)
        expected = _naive(a, b, idx)
        scale = max(np.abs(expected).max(), 1.0)
        assert np.abs(out.astype(np.float64) - expected).max() / scale <= TOL[dtype] * k
        work = np.float32 if dtype == np.float16 else dtype
        ref = reference.gather_mm_rows(
            a.astype(work), b.astype(work), idx, np.empty((n, m), work)
        ).astype(dtype)
        np.testing.assert_array_equal(out, ref)  # the kernel's order is the reference's
        for x, y in zip(before, (a, b, idx)):
            np.testing.assert_array_equal(x, y)


def test_gather_mm_mixed_dtypes_views_and_degenerate_shapes():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((10, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4, 5))  # float64: the result is float64
    idx = rng.integers(0, 3, 10)
    out = ops.gather_mm(a, b, idx_b=idx)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, _naive(a, b, idx), rtol=1e-12, atol=1e-12)
    # strided views are read as values, not as memory layouts
    wide = rng.standard_normal((10, 8))
    np.testing.assert_allclose(
        ops.gather_mm(wide[:, ::2], b, idx_b=idx), _naive(wide[:, ::2], b, idx), rtol=1e-12
    )
    assert ops.gather_mm(a[:0], b, idx_b=idx[:0]).shape == (0, 5)
    zero_k = ops.gather_mm(np.ones((4, 0)), np.ones((2, 0, 3)), idx_b=np.array([0, 1, 1, 0]))
    np.testing.assert_array_equal(zero_k, np.zeros((4, 3)))
    assert ops.gather_mm(a, b[:, :, :0], idx_b=idx).shape == (10, 0)


def test_gather_mm_same_bits_on_any_thread_count():

    rng = np.random.default_rng(2)
    a = rng.standard_normal((20000, 32)).astype(np.float32)
    b = rng.standard_normal((500, 32, 16)).astype(np.float32)
    idx = rng.integers(0, 500, 20000)
    results = bits_on_thread_counts(lambda: ops.gather_mm(a, b, idx_b=idx))
    assert len(set(results)) == 1


def test_gather_mm_bad_input_is_named():
    a, b, idx = np.ones((3, 2)), np.ones((2, 2, 4)), np.array([0, 1, 1])
    with pytest.raises(ValueError, match=r"a must be \[N, K\]"):
        ops.gather_mm(np.ones(3), b, idx_b=idx)
    with pytest.raises(ValueError, match=r"b must be \[R, K, M\]"):
        ops.gather_mm(a, np.ones((2, 2)), idx_b=idx)
    with pytest.raises(ValueError, match="a has 2 columns but b's matrices have 3 rows"):
        ops.gather_mm(a, np.ones((2, 3, 4)), idx_b=idx)
    with pytest.raises(ValueError, match="idx_b has 2 entries but a has 3 rows"):
        ops.gather_mm(a, b, idx_b=idx[:2])
    with pytest.raises(ValueError, match="idx_b"):
        ops.gather_mm(a, b, idx_b=np.array([0, 2, 1]))  # out of range for R = 2
    with pytest.raises(ValueError, match="idx_b"):
        ops.gather_mm(a, b, idx_b=np.array([0, -1, 1]))
    with pytest.raises(TypeError, match="idx_b"):
        ops.gather_mm(a, b, idx_b=np.array([0.0, 1.0, 1.0]))
    with pytest.raises(TypeError, match="b must be a floating"):
        ops.gather_mm(a, np.ones((2, 2, 4), np.int64), idx_b=idx)
    with pytest.raises(TypeError):
        ops.gather_mm(a, b, np.array([0, 1, 1]))  # idx_b is keyword-only, as in DGL


def test_segment_mm():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((9, 4)).astype(np.float32)
    b = rng.standard_normal((4, 4, 3)).astype(np.float32)
    seglen = np.array([2, 0, 6, 1])
    out = ops.segment_mm(a, b, seglen)
    idx = np.repeat(np.arange(4), seglen)
    np.testing.assert_allclose(out, _naive(a, b, idx), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.gather_mm(a, b, idx_b=idx), out, rtol=1e-5, atol=1e-6)
    assert ops.segment_mm(a[:0], b, np.zeros(4, np.int64)).shape == (0, 3)
    with pytest.raises(ValueError, match="sums to 8 but a has 9 rows"):
        ops.segment_mm(a, b, np.array([2, 0, 5, 1]))
    with pytest.raises(ValueError, match="one segment per matrix"):
        ops.segment_mm(a, b, np.array([9]))
    with pytest.raises(ValueError, match="negative length"):
        ops.segment_mm(a, b, np.array([3, -1, 6, 1]))
    with pytest.raises(TypeError, match="integers"):
        ops.segment_mm(a, b, np.array([2.0, 0, 6, 1]))
