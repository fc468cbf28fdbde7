"""Parity sweep: ``ops.gather_mm`` / ``ops.segment_mm`` against DGL's semantics and torch.

DGL's definitions, read in dmlc/dgl (not installed here):

- ``python/dgl/ops/gather_mm.py`` (current): ``gather_mm(a, b, *, idx_b)``,
  ``c[i] = a[i] @ b[idx_b[i]]``; large inputs go through a sort + ``segment_mm`` (same
  values). DGL 0.8's version also took ``idx_a`` (``c[i] = a[idx_a[i]] @ b[idx_b[i]]``);
  arraygnn follows the current signature (docs/ops.md says how to write ``idx_a``).
- ``python/dgl/backend/pytorch/sparse.py``: on the CPU ``gather_mm`` is
  ``torch.bmm(a.unsqueeze(1), b[idx_b]).squeeze(1)`` and ``segment_mm`` is
  ``torch.cat([a[off:off + seglen[i]] @ b[i] for i in range(R)])``; both need ``a`` and
  ``b`` of one dtype (torch raises on a mix; arraygnn promotes, as documented).

The torch expressions above are the live references here (float32 / float64 tight,
float16 against a float64 einsum within float16 rounding).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ops

torch = pytest.importorskip("torch")

RTOL = {np.float16: 4e-3, np.float32: 1e-5, np.float64: 1e-12}


def _torch_gather_mm(a, b, idx):
    """DGL's CPU backend: ``bmm(a.unsqueeze(1), b[idx_b]).squeeze(1)``."""
    ta, tb = torch.from_numpy(np.array(a, order="C")), torch.from_numpy(np.array(b, order="C"))
    ti = torch.from_numpy(np.ascontiguousarray(idx).astype(np.int64))
    return torch.bmm(ta.unsqueeze(1), tb[ti]).squeeze(1).numpy()


def _torch_segment_mm(a, b, seglen):
    """DGL's CPU backend: a product per segment, concatenated."""
    ta, tb = torch.from_numpy(np.array(a, order="C")), torch.from_numpy(np.array(b, order="C"))
    parts, off = [], 0
    for i in range(b.shape[0]):
        parts.append(ta[off : off + int(seglen[i])] @ tb[i])
        off += int(seglen[i])
    return torch.cat(parts).numpy()


def _f64(a, b, idx):
    return np.einsum("nk,nkm->nm", a.astype(np.float64), b[idx].astype(np.float64))


def _layout(name, rng, n, k, m, r, dtype, index_dtype):
    """Inputs as the named (non-)contiguous views, with equal values for every layout."""
    a = rng.standard_normal((n, k)).astype(dtype)
    b = rng.standard_normal((r, k, m)).astype(dtype)
    idx = rng.integers(0, r, n).astype(index_dtype)  # not sorted
    if name == "a_fortran":
        a = np.asfortranarray(a)
    elif name == "a_sliced":
        wide = np.zeros((n, 2 * k), dtype)
        wide[:, 1::2] = a
        a = wide[:, 1::2]
    elif name == "b_transposed":  # [R, M, K] memory read as [R, K, M]
        b = np.ascontiguousarray(b.transpose(0, 2, 1)).transpose(0, 2, 1)
    elif name == "idx_strided":
        long = np.zeros(2 * n, index_dtype)
        long[::2] = idx
        idx = long[::2]
    elif name == "readonly":
        for x in (a, b, idx):
            x.setflags(write=False)
    return a, b, idx


LAYOUTS = ["contiguous", "a_fortran", "a_sliced", "b_transposed", "idx_strided", "readonly"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gather_mm_matches_dgl_bmm(dtype, index_dtype, layout):
    a, b, idx = _layout(layout, np.random.default_rng(5), 23, 6, 4, 3, dtype, index_dtype)
    base = _layout("contiguous", np.random.default_rng(5), 23, 6, 4, 3, dtype, index_dtype)
    before = [x.copy() for x in (a, b, idx)]
    out = ops.gather_mm(a, b, idx_b=idx)
    assert out.shape == (23, 4) and out.dtype == np.dtype(dtype)
    assert out.flags.c_contiguous and out.flags.writeable
    assert not any(np.shares_memory(out, x) for x in (a, b, idx))
    for x, y in zip(before, (a, b, idx)):
        np.testing.assert_array_equal(x, y)
    # the layout never changes the bits
    np.testing.assert_array_equal(out, ops.gather_mm(*base[:2], idx_b=base[2]))
    expected = _f64(a, b, idx)
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=RTOL[dtype], atol=RTOL[dtype])
    if dtype != np.float16:
        np.testing.assert_allclose(out, _torch_gather_mm(a, b, idx), rtol=RTOL[dtype], atol=1e-6)


@pytest.mark.parametrize("layout", ["contiguous", "a_fortran", "a_sliced", "b_transposed"])
@pytest.mark.parametrize("seglen_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_segment_mm_matches_dgl_loop(dtype, seglen_dtype, layout):
    a, b, _ = _layout(layout, np.random.default_rng(6), 12, 5, 3, 5, dtype, np.int64)
    seglen = np.array([0, 4, 0, 8, 0], seglen_dtype)  # leading, inner and trailing zeros
    before = [x.copy() for x in (a, b, seglen)]
    out = ops.segment_mm(a, b, seglen)
    assert out.shape == (12, 3) and out.dtype == np.dtype(dtype) and out.flags.c_contiguous
    for x, y in zip(before, (a, b, seglen)):
        np.testing.assert_array_equal(x, y)
    idx = np.repeat(np.arange(5), seglen)
    np.testing.assert_allclose(
        out.astype(np.float64), _f64(a, b, idx), rtol=RTOL[dtype], atol=RTOL[dtype]
    )
    if dtype != np.float16:
        np.testing.assert_allclose(
            out, _torch_segment_mm(a, b, seglen), rtol=RTOL[dtype], atol=1e-6
        )
    # the same products as gather_mm with the repeated index
    np.testing.assert_allclose(
        out, ops.gather_mm(a, b, idx_b=idx), rtol=RTOL[dtype], atol=RTOL[dtype]
    )


def test_float16_is_summed_in_float32_by_both():
    """4096 ones: a float16 running sum would stop at 2048 (2048 + 1 rounds to 2048)."""
    a, b = np.ones((2, 4096), np.float16), np.ones((1, 4096, 3), np.float16)
    for out in (
        ops.gather_mm(a, b, idx_b=np.zeros(2, np.int32)),
        ops.segment_mm(a, b, np.array([2])),
    ):
        assert out.dtype == np.float16
        np.testing.assert_array_equal(out, np.full((2, 3), 4096, np.float16))


def test_one_relation_and_zero_rows():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 3))
    b = rng.standard_normal((1, 3, 2))
    np.testing.assert_allclose(
        ops.gather_mm(a, b, idx_b=np.zeros(6, np.int32)), a @ b[0], rtol=1e-12
    )
    np.testing.assert_allclose(ops.segment_mm(a, b, np.array([6], np.int32)), a @ b[0], rtol=1e-12)
    for dtype in (np.float16, np.float32):
        empty = np.zeros((0, 3), dtype)
        g = ops.gather_mm(empty, b.astype(dtype), idx_b=np.zeros(0, np.int32))
        s = ops.segment_mm(empty, b.astype(dtype), np.zeros(1, np.int32))
        for out in (g, s):
            assert out.shape == (0, 2) and out.dtype == np.dtype(dtype)
    # no relations at all: only zero rows are possible
    assert ops.segment_mm(np.zeros((0, 3)), np.zeros((0, 3, 2)), np.zeros(0, np.int64)).shape == (
        0,
        2,
    )
    with pytest.raises(ValueError, match="idx_b has entry 0, out of range for size 0"):
        ops.gather_mm(a, np.zeros((0, 3, 2)), idx_b=np.zeros(6, np.int64))


@pytest.mark.parametrize(
    ("da", "db"),
    [(np.float16, np.float32), (np.float32, np.float64), (np.float64, np.float16)],
)
def test_mixed_dtypes_promote(da, db):
    """torch (DGL's CPU path) raises on a mix; arraygnn computes in ``result_type(a, b)``
    (documented in the docstrings and docs/ops.md)."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((7, 4)).astype(da)
    b = rng.standard_normal((2, 4, 3)).astype(db)
    seglen, want = np.array([3, 4]), np.result_type(da, db)
    idx = np.repeat(np.arange(2), seglen)
    with pytest.raises(RuntimeError):
        _torch_gather_mm(a, b, idx)
    for out in (ops.gather_mm(a, b, idx_b=idx), ops.segment_mm(a, b, seglen)):
        assert out.dtype == want
        np.testing.assert_allclose(
            out,
            _torch_gather_mm(a.astype(want), b.astype(want), idx),
            rtol=RTOL[want.type],
            atol=1e-6,
        )


def test_gather_mm_bad_idx_b_is_named():
    a, b = np.ones((3, 2), np.float32), np.ones((2, 2, 4), np.float32)
    with pytest.raises(ValueError, match="idx_b has entry 5, out of range for size 2"):
        ops.gather_mm(a, b, idx_b=np.array([0, 5, 1], np.int32))
    with pytest.raises(ValueError, match=r"idx_b has a negative entry \(-2\)"):
        ops.gather_mm(a, b, idx_b=np.array([0, -2, 1], np.int32))  # torch would wrap it
    with pytest.raises(ValueError, match="idx_b must have 1 dimension"):
        ops.gather_mm(a, b, idx_b=np.zeros((3, 1), np.int64))
    with pytest.raises(TypeError, match="idx_b must be an integer array"):
        ops.gather_mm(a, b, idx_b=np.array([True, False, True]))
    with pytest.raises(TypeError, match="idx_b must be a NumPy or CuPy array"):
        ops.gather_mm(a, b, idx_b=[0, 1, 1])
    with pytest.raises(TypeError, match="idx_a"):  # DGL 0.8's argument: write a[idx_a]
        ops.gather_mm(a, b, idx_a=np.array([0, 1, 2]), idx_b=np.array([0, 1, 1]))
    # uint / big-endian indices are read by value
    for idx in (np.array([1, 0, 1], np.uint16), np.array([1, 0, 1], ">i8")):
        np.testing.assert_array_equal(
            ops.gather_mm(a, b, idx_b=idx), ops.gather_mm(a, b, idx_b=np.array([1, 0, 1]))
        )


def test_segment_mm_bad_seglen_is_named():
    a, b = np.ones((4, 2), np.float32), np.ones((2, 2, 3), np.float32)
    with pytest.raises(ValueError, match="seglen_a sums to 5 but a has 4 rows"):
        ops.segment_mm(a, b, np.array([2, 3], np.int32))  # DGL's loop would drop/run short
    with pytest.raises(ValueError, match="seglen_a sums to 3 but a has 4 rows"):
        ops.segment_mm(a, b, np.array([3, 0], np.int32))
    with pytest.raises(ValueError, match="seglen_a must be 1-D"):
        ops.segment_mm(a, np.ones((4, 2, 3), np.float32), np.ones((2, 2), np.int64))
    with pytest.raises(ValueError, match="seglen_a sums to 9223372036854775812 but"):
        ops.segment_mm(a, b, np.array([2**63 + 1, 3], np.uint64))
    with pytest.raises(ValueError, match="seglen_a sums to 18446744073709551616 but a has 0 rows"):
        ops.segment_mm(
            np.ones((0, 2)), np.ones((4, 2, 3)), np.full(4, 2**62, np.int64)
        )  # int64 sum wraps to 0
    with pytest.raises(TypeError, match="seglen_a must hold integers"):
        ops.segment_mm(a, b, np.array([True, True]))


def test_typed_linear_end_to_end_matches_numpy():
    """A caller: DGL's ``TypedLinear`` forward, ``out[i] = x[i] @ W[x_type[i]]``, through
    segment_mm (sorted types) and gather_mm (unsorted)."""
    from arraygnn.nn import TypedLinear

    rng = np.random.default_rng(9)
    lin = TypedLinear(5, 3, 4, rng=0)
    x = rng.standard_normal((11, 5)).astype(np.float32)
    unsorted = rng.integers(0, 4, 11)
    for types in (unsorted, np.sort(unsorted)):
        expected = np.einsum("nk,nkm->nm", x.astype(np.float64), lin.W[types].astype(np.float64))
        out = lin(x, types)
        assert out.dtype == np.float32 and out.shape == (11, 3)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
