"""Review of Batch.num_graphs / to_data_list (session 10): a key deleted from a collated
batch is left out of its graphs (PyG splits the recorded keys still present), and a batch
whose every key was excluded splits into empty graphs as PyG's."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data


def _graph():
    return Data(x=np.zeros((3, 2)), edge_index=np.array([[0, 1], [1, 2]]), y=np.array([1]))


def test_deleted_key_is_left_out_of_the_graphs():
    b = Batch.from_data_list([_graph(), _graph()])
    del b.y
    graphs = b.to_data_list()
    assert [sorted(d.keys()) for d in graphs] == [["edge_index", "x"]] * 2
    assert graphs[1].edge_index.tolist() == [[0, 1], [1, 2]]
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    g = tg.data.Data(x=torch.zeros(3, 2), edge_index=torch.tensor([[0, 1], [1, 2]]))
    g.y = torch.tensor([1])
    ref = tg.data.Batch.from_data_list([g, g])
    del ref.y
    assert [sorted(d.keys()) for d in ref.to_data_list()] == [["edge_index", "x"]] * 2


def test_every_key_excluded_splits_into_empty_graphs():
    b = Batch.from_data_list([_graph(), _graph()], exclude_keys=["x", "edge_index", "y"])
    assert b.num_graphs == 2
    assert [len(d.keys()) for d in b.to_data_list()] == [0, 0]
    # built directly with the same vectors: no records, still refused
    direct = Batch(batch=np.array([0, 0, 1]), ptr=np.array([0, 2, 3]))
    with pytest.raises(ValueError, match="no slice records"):
        direct.to_data_list()
