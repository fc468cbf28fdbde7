"""``unique_ids`` / ``unique_ids_with`` against ``np.unique``: values, dtypes and shapes for
every ``return_*`` combination, integer dtypes, empty / one / all-equal inputs, with and
without ``num_ids`` (mask route) and on wide ranges (``np.unique`` route)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arraygnn._ids import unique_ids, unique_ids_with

DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64]
FLAGS = list(itertools.product([False, True], repeat=3))


def _cases(dtype):
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    top = min(int(info.max), 200)
    yield np.zeros(0, dtype), 1
    yield np.array([5], dtype), 6
    yield np.full(9, 3, dtype), 4
    yield rng.integers(0, top + 1, 300).astype(dtype), top + 1
    yield rng.integers(0, 8, (6, 5)).astype(dtype), 8  # 2-d: inverse keeps the shape
    # the whole range of the dtype (negative lows for signed dtypes, 2**63 + for uint64)
    low, high = int(info.min), int(info.max)
    ends = np.array([low, high, low, high - 1, low + 1, low], dtype=dtype)
    yield ends, None
    yield np.concatenate([ends, rng.integers(low, high, 200, dtype=dtype, endpoint=True)]), None
    # a narrow range at either end of the dtype: the mask route with an offset
    near_low = rng.integers(low, low + 50, 120, dtype=dtype, endpoint=True)
    near_high = rng.integers(high - 50, high, 120, dtype=dtype, endpoint=True)
    yield near_low, None
    yield near_high, None
    if dtype in (np.int8, np.uint8):
        yield np.arange(low, high + 1, dtype=dtype)[::-1].copy(), None


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("flags", FLAGS)
def test_unique_ids_with_matches_np_unique(dtype, flags):
    index, inverse, counts = flags
    for ids, num_ids in _cases(dtype):
        want = np.unique(ids, return_index=index, return_inverse=inverse, return_counts=counts)
        want = want if isinstance(want, tuple) else (want,)
        kw = dict(return_index=index, return_inverse=inverse, return_counts=counts)
        before = ids.copy()
        _check(unique_ids_with(np, ids, **kw), want)
        if num_ids is not None:
            _check(unique_ids_with(np, ids, num_ids, **kw), want)
        np.testing.assert_array_equal(ids, before)  # nothing the caller passed is changed


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_ids_matches_np_unique(dtype):
    for ids, num_ids in _cases(dtype):
        want = np.unique(ids)
        _check((unique_ids(np, ids),), (want,))
        if num_ids is not None:
            _check((unique_ids(np, ids, num_ids),), (want,))


@pytest.mark.parametrize("flags", FLAGS)
def test_wide_range_and_large_num_ids_take_the_np_unique_route(flags):
    index, inverse, counts = flags
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 10**12, 500)  # far wider than 4 * size + 65536
    ids[::7] = ids[0]
    kw = dict(return_index=index, return_inverse=inverse, return_counts=counts)
    want = np.unique(ids, **kw)
    want = want if isinstance(want, tuple) else (want,)
    _check(unique_ids_with(np, ids, **kw), want)
    _check(unique_ids_with(np, ids, 10**12, **kw), want)
    _check((unique_ids(np, ids, 10**12),), (np.unique(ids),))


def test_large_dense_ids_first_occurrence_and_counts():
    rng = np.random.default_rng(11)
    ids = rng.integers(0, 5000, 40000)
    uniq, first, inverse, counts = unique_ids_with(
        np, ids, 5000, return_index=True, return_inverse=True, return_counts=True
    )
    _check(
        (uniq, first, inverse, counts),
        np.unique(ids, return_index=True, return_inverse=True, return_counts=True),
    )
    # first is the FIRST occurrence, inverse rebuilds the ids
    np.testing.assert_array_equal(uniq[inverse], ids)
    for k in rng.integers(0, uniq.shape[0], 20):
        assert int(first[k]) == int(np.flatnonzero(ids == uniq[k])[0])


@pytest.mark.parametrize("values", [np.array([0.5, -1.0, 0.5]), np.array([True, False, True])])
def test_non_integer_ids_go_to_np_unique(values):
    for flags in FLAGS:
        kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags))
        want = np.unique(values, **kw)
        want = want if isinstance(want, tuple) else (want,)
        _check(unique_ids_with(np, values, **kw), want)
    _check((unique_ids(np, values),), (np.unique(values),))
