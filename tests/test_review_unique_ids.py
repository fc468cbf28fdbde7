"""Review of ``unique_ids`` / ``unique_ids_with``: ids outside ``[0, num_ids)`` (the size is
a hint, never trusted to index a mask: a negative id would wrap around), big-endian
dtypes on the offset route, sparse and huge ranges, and a device namespace that must go to
its own ``unique`` without NumPy touching the array."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arraygnn._ids import _mask_span, unique_ids, unique_ids_with

FLAGS = list(itertools.product([False, True], repeat=3))


def _want(ids, index, inverse, counts):
    out = np.unique(ids, return_index=index, return_inverse=inverse, return_counts=counts)
    return out if isinstance(out, tuple) else (out,)


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


OUT_OF_RANGE = [
    (np.array([-1, 0, 2, -1], np.int64), 4),  # a negative id must not wrap to id 3
    (np.array([-3, 1], np.int8), 4),
    (np.array([0, 5, 2, 5], np.int64), 4),  # an id past num_ids
    (np.array([7, 9], np.uint16), 4),
    (np.array([2, 0], np.int32), 0),
]


@pytest.mark.parametrize("ids,num_ids", OUT_OF_RANGE)
def test_unique_ids_ids_outside_num_ids_match_np_unique(ids, num_ids):
    _check((unique_ids(np, ids, num_ids),), (np.unique(ids),))


@pytest.mark.parametrize("ids,num_ids", OUT_OF_RANGE)
@pytest.mark.parametrize("flags", FLAGS)
def test_unique_ids_with_ids_outside_num_ids_match_np_unique(ids, num_ids, flags):
    kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags))
    _check(unique_ids_with(np, ids, num_ids, **kw), _want(ids, *flags))


@pytest.mark.parametrize("dtype", [">i8", ">i4", ">i2", ">u2", ">u4", ">u8"])
@pytest.mark.parametrize("flags", FLAGS)
def test_big_endian_keeps_its_dtype_on_every_route(dtype, flags):
    kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags))
    cases = [
        np.array([5, 3, 5, 9, 3, 7], dtype),  # mask route with an offset (low = 3)
        np.array([0, 3, 0, 2], dtype),  # mask route from 0
        np.array([[9, 4], [4, 6]], dtype),  # 2-D
    ]
    if np.dtype(dtype).itemsize == 8:
        cases.append(np.array([7, 2**40, 7, 3], dtype))  # sort route
    for ids in cases:
        _check((unique_ids(np, ids),), (np.unique(ids),))
        _check(unique_ids_with(np, ids, **kw), _want(ids, *flags))
        _check(unique_ids_with(np, ids, 64, **kw), _want(ids, *flags))


def test_num_ids_holding_every_id_keeps_the_mask_from_zero():
    ids = np.array([4, 1, 4, 0], np.int32)
    assert _mask_span(ids, 6) == (0, 6)  # no offset to subtract
    assert _mask_span(ids, 4) == (0, 5)  # id 4 is not below num_ids=4: its own range
    assert _mask_span(np.array([2, 3]), 6) == (0, 6)
    assert _mask_span(np.array([-2, 3]), 6) == (-2, 6)


def test_sparse_and_huge_ranges_allocate_no_mask_of_the_range():
    # [0, 2**40] and the whole uint64 range: the sort / np.unique route, no 2**40 mask
    assert _mask_span(np.array([0, 2**40]), None) is None
    assert _mask_span(np.array([0, 2**40]), 2**41) is None
    top = np.array([0, 2**64 - 1, 5], np.uint64)
    assert _mask_span(top, None) is None
    _check((unique_ids(np, np.array([0, 2**40, 0])),), (np.unique([0, 2**40]),))
    _check((unique_ids(np, top),), (np.unique(top),))
    for flags in FLAGS:
        kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags))
        _check(unique_ids_with(np, top, **kw), _want(top, *flags))
    # a narrow cluster of ids far from 0 masks its own range, whatever num_ids says
    far = np.array([10**12 + 3, 10**12, 10**12 + 3])
    assert _mask_span(far, None) == (10**12, 4)
    _check((unique_ids(np, far, 10**13),), (np.unique(far),))


def test_empty_and_zero_dimensional_inputs():
    for ids in (np.zeros(0, np.uint8), np.zeros((0, 3), np.int64), np.array(4, np.int16)):
        _check((unique_ids(np, ids),), (np.unique(ids),))
        _check((unique_ids(np, ids, 8),), (np.unique(ids),))
        for flags in FLAGS:
            kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags))
            _check(unique_ids_with(np, ids, **kw), _want(ids, *flags))


class _DeviceArray:
    """Stands for a CuPy array: NumPy may not read it."""

    def __init__(self, data):
        self.data, self.dtype, self.shape = data, data.dtype, data.shape

    def __array__(self, *a, **k):
        raise TypeError("implicit conversion of a device array")

    def ravel(self):
        raise AssertionError("the device path flattened the array on its own")

    def min(self):
        raise AssertionError("the device path read a min (a host sync)")

    max = min


class _DeviceNamespace:
    def __init__(self):
        self.calls = []

    def unique(self, ids, **kw):
        self.calls.append(kw)
        return np.unique(ids.data, **kw)


def test_device_namespace_goes_to_its_own_unique():
    xp = _DeviceNamespace()
    ids = _DeviceArray(np.array([3, 1, 3], np.int64))
    np.testing.assert_array_equal(unique_ids(xp, ids, 4), [1, 3])
    got = unique_ids_with(xp, ids, 4, return_index=True, return_counts=True)
    np.testing.assert_array_equal(got[1], [1, 0])
    np.testing.assert_array_equal(got[2], [1, 2])
    assert xp.calls == [{}, dict(return_index=True, return_inverse=False, return_counts=True)]
