"""Masked NumPy arrays are refused by name: the kernels read the raw data, so a masked-out
id out of range would reach a kernel (range checks saw only the unmasked entries) and
masked feature values would be summed."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import ops


def test_masked_ids_and_values_are_refused_by_name():
    ids = np.ma.array(np.array([0, 1, 99]), mask=[False, False, True])
    x = np.ones((3, 2), dtype=np.float32)
    with pytest.raises(TypeError, match=r"index is a masked array.*filled"):
        ops.gather(x, ids)
    with pytest.raises(TypeError, match=r"edge_index is a masked array"):
        ops.to_csr(np.ma.array(np.array([[0, 1], [1, 2]])), 3, 3)
    with pytest.raises(TypeError, match=r"masked array"):
        ops.spmm(np.array([[0, 1], [1, 2]]), np.ma.array(x, mask=np.zeros_like(x, bool)))
    with pytest.raises(TypeError, match=r"masked array"):
        ops.scatter(np.ma.array(x), np.array([0, 0, 1]), 2)


def test_plain_arrays_still_pass_after_numpy_ma_is_imported():
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(ops.gather(x, np.array([2, 0])), x[[2, 0]])
    np.testing.assert_array_equal(ops.gather(x, np.ma.array(np.array([2, 0])).filled(0)), x[[2, 0]])
