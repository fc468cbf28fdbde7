"""docs/ops.md audit (session 12): "Any integer index dtype works (int8 ... uint64)", so the
error for a non-integer index must not claim that only int32 / int64 are accepted."""

import numpy as np
import pytest

from arraygnn import ops


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.uint64])
def test_any_integer_index_dtype_works(dtype):
    out = ops.scatter(np.ones(3), np.array([0, 0, 1], dtype=dtype), 2)
    assert out.tolist() == [2.0, 1.0]


def test_non_integer_index_error_does_not_claim_int32_or_int64_only():
    with pytest.raises(TypeError, match="index must be an integer array") as info:
        ops.scatter(np.ones(3), np.array([0.0, 1.0, 1.0]), 2)
    assert "int32 or int64" not in str(info.value)
    assert "float64" in str(info.value)
