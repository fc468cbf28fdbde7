"""The seed behaviours and round trips on CuPy arrays (skipped without CuPy and a GPU)."""

import numpy as np
import pytest

cp = pytest.importorskip("cupy")
try:
    cp.cuda.runtime.getDeviceCount()
except Exception:  # pragma: no cover - depends on the machine
    pytest.skip("CuPy is installed but no GPU is visible", allow_module_level=True)

from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.testing.asserts import assert_batch_invariants, assert_data_equal  # noqa: E402


class PairData(Data):
    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index_s":
            return self.x_s.shape[0]
        if key == "edge_index_t":
            return self.x_t.shape[0]
        return super().__inc__(key, value, *args, **kwargs)


def test_pair_data_on_cupy():
    d = PairData(
        x_s=cp.ones((5, 16)),
        edge_index_s=cp.asarray([[0, 0, 0, 0], [1, 2, 3, 4]]),
        x_t=cp.ones((4, 16)),
        edge_index_t=cp.asarray([[0, 0, 0], [1, 2, 3]]),
    )
    b = Batch.from_data_list([d, d], follow_batch=["x_s"])
    assert isinstance(b.edge_index_s, cp.ndarray) and isinstance(b.x_s_batch, cp.ndarray)
    assert b.edge_index_s.tolist() == [[0, 0, 0, 0, 5, 5, 5, 5], [1, 2, 3, 4, 6, 7, 8, 9]]
    assert b.edge_index_t.tolist() == [[0, 0, 0, 4, 4, 4], [1, 2, 3, 5, 6, 7]]
    for part in b.to_data_list():
        assert_data_equal(part, d)


def test_round_trip_and_device_moves():
    rng = np.random.default_rng(0)
    host = [
        Data(x=rng.standard_normal((n, 3)), edge_index=rng.integers(0, max(n, 1), (2, n)))
        for n in (3, 0, 4)
    ]
    dev = [g.to("cuda") for g in host]
    b = Batch.from_data_list(dev)
    assert isinstance(b.batch, cp.ndarray) and isinstance(b.ptr, cp.ndarray)
    assert_batch_invariants(b)
    for got, g in zip(b.to_data_list(), dev):
        assert_data_equal(got, g)
    back = b.to("cpu")
    np.testing.assert_array_equal(back.edge_index, Batch.from_data_list(host).edge_index)
    with pytest.raises(TypeError, match="graph 1"):
        Batch.from_data_list([dev[0], host[1]])
    with pytest.raises(ValueError, match="key 'edge_index' in graph 0: holds node id"):
        Batch.from_data_list([Data(x=cp.ones((1, 1)), edge_index=cp.asarray([[0], [1]]))])
