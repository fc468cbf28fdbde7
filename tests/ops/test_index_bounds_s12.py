"""The one-pass (min, max) the ops validate index arrays with agrees with NumPy's."""

import numpy as np
import pytest

import arraygnn.ops as ops
from arraygnn.ops._common import check_index, index_bounds

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bounds_match_numpy_on_random_and_extreme_arrays(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    cases = [
        rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
        for n in (1, 2, 3, 17, 1000)
    ]
    cases.append(np.array([info.max, info.min, 0 if info.min < 0 else 1], dtype=dtype))
    cases.append(np.full(5, info.max, dtype=dtype))
    big = rng.integers(0, 50, size=2001, dtype=dtype)
    cases += [big[::3], big[::-1], np.stack([big, big], 1)[:, 0]]  # strided, reversed views
    for a in cases:
        lo, hi = index_bounds(a)
        assert (lo, hi) == (int(a.min()), int(a.max()))
        assert type(lo) is int and type(hi) is int


def test_long_arrays_take_the_kernel_and_agree():
    from arraygnn.ops import _common

    rng = np.random.default_rng(2)
    for dtype in (np.int32, np.int64):
        a = rng.integers(-(2**30), 2**30, size=_common.BOUNDS_KERNEL_MIN_SIZE + 5).astype(dtype)
        for view in (a, a[::-1], np.stack([a, a], 1)[:, 1]):
            assert index_bounds(view) == (int(view.min()), int(view.max()))


def test_kernel_itself_on_int32_and_int64():
    from arraygnn.kernels.cpu.bounds import index_bounds as one_pass

    for dtype in (np.int32, np.int64):
        a = np.random.default_rng(1).integers(-99, 99, size=333).astype(dtype)
        assert one_pass(a) == (a.min(), a.max())
        assert one_pass(a[::2]) == (a[::2].min(), a[::2].max())


def test_out_of_range_and_negative_entries_are_still_named():
    idx = np.arange(10, dtype=np.int64)
    idx[7] = 10
    with pytest.raises(ValueError, match=r"index has entry 10, out of range for size 10"):
        check_index("index", idx, 10)
    idx[7] = -3
    with pytest.raises(ValueError, match=r"index has a negative entry \(-3\)"):
        check_index("index", idx, 10)
    edge_index = np.array([[0, 1, 5], [1, 2, 0]], dtype=np.int32)
    with pytest.raises(ValueError, match="source"):
        ops.spmm(edge_index, np.ones((3, 2), np.float32))


def test_two_dimensional_index_falls_back_to_the_array_reductions():
    a = np.array([[4, -2], [9, 0]])
    assert index_bounds(a) == (-2, 9)
