"""Review (session 9): Python list features follow tf.constant's rules (TensorFlow's
py_seq_tensor.cc: the dtype comes from the first item; ints try int32, then int64, then
float32 when a float is met; any other mix is "Can't convert Python sequence with mixed
types"; an int beyond int64 is out of range). Mixed lists used to be converted silently."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import NodeSet


def _feature(value):
    return NodeSet.from_fields(sizes=[len(value)], features={"f": value})["f"]


@pytest.mark.parametrize(
    "value, dtype",
    [
        ([], np.float32),  # tf.constant([]) is float32
        ([1, 2.5], np.float32),  # int first, then a float: float32
        ([2.5, 1], np.float32),
        ([2.5, True], np.float32),
        ([1, True], np.int32),  # True is a Python int
        ([1, 2**31], np.int64),
        ([[1, 2], [3, 4]], np.int32),
        (["a", b"b"], np.str_),
    ],
)
def test_tf_constant_dtypes(value, dtype):
    got, want = _feature(value).dtype, np.dtype(dtype)
    assert got == want or (got.kind == want.kind == "U")


@pytest.mark.parametrize(
    "value",
    [
        [1, "a"],  # NumPy: '<U21' strings
        ["a", 1],
        [2.5, "a"],
        [True, 1],  # bool first: every item must be a bool (NumPy: int)
        [True, 2.5],
        [1, 1j],
    ],
)
def test_mixed_types_raise_as_tf(value):
    with pytest.raises(ValueError, match=r"'f'.*mixed types"):
        _feature(value)


@pytest.mark.parametrize("value", [[2**63], [-1, 2**63], [1, 2**64], [2**70]])
def test_int_out_of_int64_range_raises_as_tf(value):
    # NumPy: uint64, float64 or object; TF: "out-of-range integer"
    with pytest.raises(ValueError, match=r"'f'.*out of range"):
        _feature(value)


def test_none_in_list_is_not_called_ragged():
    with pytest.raises(ValueError, match=r"'f'.*mixed types") as info:
        _feature([1, None])
    assert "ragged" not in str(info.value)
