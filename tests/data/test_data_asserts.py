"""arraygnn.testing's equality checks must fail on every difference (or tests cannot fail)."""

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.testing.asserts import assert_data_equal


@pytest.mark.parametrize(
    "a, b",
    [
        (Data(x=np.ones(2)), Data(x=np.ones(2, np.float32))),
        (Data(x=np.ones(2)), Data(x=np.ones((2, 1)))),
        (Data(x=np.ones(2)), Data(x=np.array([1.0, 2.0]))),
        (Data(m={"a": 1}), Data(m={"a": 1.0})),
        (Data(m={"a": np.ones(2)}), Data(m={"a": np.zeros(2)})),
        (Data(m={"a": 1, "b": 2}), Data(m={"b": 2, "c": 1})),
        (Data(s=[1, 2]), Data(s=(1, 2))),
        (Data(s="a"), Data(s="b")),
        (Data(x=np.ones(2), y=1), Data(y=1, x=np.ones(2))),
    ],
)
def test_each_difference_is_caught(a, b):
    with pytest.raises(AssertionError):
        assert_data_equal(a, b)


def test_equal_values_of_every_kind_pass():
    for make in (
        lambda: Data(meta={"a": np.array([1, 2]), "b": [np.ones(1), 2.5]}),
        lambda: Data(s=float("nan"), t=np.array([np.nan])),
        lambda: Data(name="x", n=None, flag=True),
    ):
        assert_data_equal(make(), make())
    assert_data_equal(Data(m={"a": 1, "b": 2}), Data(m={"b": 2, "a": 1}))  # as dict equality


def test_framework_tensors_are_compared_by_dtype_shape_and_values():
    torch = pytest.importorskip("torch")
    from arraygnn.interop import to_torch

    d = Data(x=np.ones((2, 1), np.float32), edge_index=np.array([[0], [1]]))
    assert_data_equal(to_torch(d), to_torch(d))  # used to raise "Boolean value of Tensor"
    for other in (torch.ones(1, 1, dtype=torch.float32), torch.zeros(1), torch.ones(1, 2)):
        with pytest.raises(AssertionError):
            assert_data_equal(Data(t=torch.ones(1)), Data(t=other))
