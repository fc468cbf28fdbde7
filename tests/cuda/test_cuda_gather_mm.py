"""CUDA ``gather_mm_rows`` vs :mod:`arraygnn.kernels.reference`: the same bits (one thread
per output element, ``k`` ascending, products rounded before the add), float16 summed in
float32, int32 / int64 indices, empty and one-column shapes, on a grid far smaller than
the work (grid-stride)."""

from __future__ import annotations

import numpy as np
import pytest
from _cuda_support import (
    CUDA_TEST_MARKS,
    poisoned,
    small_launch,  # noqa: F401 - fixture used through CUDA_TEST_MARKS
    to_dev,
    to_host,
)

from arraygnn.kernels import reference
from arraygnn.kernels.cuda import gather_mm

pytestmark = CUDA_TEST_MARKS


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gather_mm_rows(dtype, index_dtype):
    rng = np.random.default_rng(0)
    for n, k, m, r in [(9, 3, 4, 3), (5, 1, 1, 1), (0, 2, 3, 2)]:
        a = rng.standard_normal((n, k)).astype(dtype)
        b = rng.standard_normal((r, k, m)).astype(dtype)
        idx = rng.integers(0, r, n).astype(index_dtype)
        work = np.float32 if dtype == np.float16 else dtype
        expected = reference.gather_mm_rows(
            a.astype(work), b.astype(work), idx, np.empty((n, m), work)
        ).astype(dtype)
        out = poisoned((n, m), dtype)
        gather_mm.gather_mm_rows(to_dev(a), to_dev(b), to_dev(idx), out)
        got = to_host(out)
        assert got.dtype == np.dtype(dtype) and got.shape == (n, m)
        np.testing.assert_array_equal(got, expected)
