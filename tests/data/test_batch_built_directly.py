"""A ``Batch`` built directly (or returned by a pooling op) has no slice records: its
``num_graphs`` comes from ``ptr`` or the ``batch`` vector as PyG's, and ``to_data_list``
raises instead of returning ``[]``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data


def test_num_graphs_from_ptr_then_batch_as_pyg():
    b = Batch(x=np.ones((5, 2)), batch=np.array([0, 0, 1, 1, 2]))
    assert b.num_graphs == 3 and len(b) == 3 and b.batch_size == 3
    assert Batch(x=np.ones((5, 2)), ptr=np.array([0, 2, 5])).num_graphs == 2
    assert Batch(x=np.ones((0, 2)), batch=np.zeros(0, np.int64)).num_graphs == 0
    assert Batch(x=np.ones((5, 2))).num_graphs is None
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    ref = tg.data.Batch(x=torch.ones(5, 2), batch=torch.tensor([0, 0, 1, 1, 2]))
    assert ref.num_graphs == b.num_graphs


def test_to_data_list_without_records_raises():
    b = Batch(x=np.ones((5, 2)), batch=np.array([0, 0, 1, 1, 2]))
    with pytest.raises(ValueError, match="no slice records"):
        b.to_data_list()
    with pytest.raises(ValueError, match="no slice records"):
        Batch(x=np.ones((5, 2))).to_data_list()
    assert Batch(x=np.ones((0, 2)), batch=np.zeros(0, np.int64)).to_data_list() == []
    collated = Batch.from_data_list([Data(x=np.ones((2, 1))), Data(x=np.zeros((1, 1)))])
    assert [d.num_nodes for d in collated.to_data_list()] == [2, 1]


def test_pooled_batch_counts_its_graphs():
    from arraygnn.nn import avg_pool_x

    b = Batch.from_data_list([Data(x=np.ones((3, 2)), pos=np.zeros((3, 2)))] * 2)
    x, batch = avg_pool_x(np.array([0, 0, 1, 2, 2, 3]), b.x, b.batch)
    assert Batch(x=x, batch=batch).num_graphs == 2


def test_graphs_without_keys_split_back_as_pyg():
    b = Batch.from_data_list([Data(), Data()])
    assert b.num_graphs == 2
    assert [len(d.keys()) for d in b.to_data_list()] == [0, 0]
    assert len(b.get_example(1).keys()) == 0
