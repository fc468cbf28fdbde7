"""Review (session 9): readouts given a ``Batch`` built directly (no ``ptr``), as PyG allows."""

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.nn.readout import (
    AttentionalAggregation,
    SortAggregation,
    SumPooling,
    global_add_pool,
    global_max_pool,
    global_mean_pool,
)


def test_batch_with_batch_vector_but_no_ptr_pools_like_pyg():
    # PyG: Batch(x=..., batch=...).num_graphs is batch.max() + 1 and the pools use the vector
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    b = np.array([0, 1, 1, 2], np.int32)
    data = Batch(x=x, batch=b)
    for pool in (global_add_pool, global_mean_pool, global_max_pool):
        np.testing.assert_allclose(pool(x, data), pool(x, b))
    np.testing.assert_allclose(SumPooling()(data, x), global_add_pool(x, b))
    np.testing.assert_allclose(SortAggregation(1)(x, data), SortAggregation(1)(x, b))
    gate = AttentionalAggregation(lambda h: h[:, :1])
    np.testing.assert_allclose(gate(x, data), gate(x, b), rtol=1e-6)


def test_batch_with_neither_ptr_nor_batch_is_a_clear_value_error():
    data = Batch(x=np.ones((3, 2)))
    with pytest.raises(ValueError, match="neither ptr nor a batch vector"):
        global_add_pool(data.x, data)
