"""Review: collation follows the node-count rule of ``Data.num_nodes`` / ``NodeStore.num_nodes``
(the first of ``x``, ``feat``, ``pos``, ... in insertion order), as PyG's ``Batch``."""

from __future__ import annotations

import numpy as np

from arraygnn import Batch, Data, HeteroData
from arraygnn.hetero_batch import HeteroBatch


def test_hetero_batch_counts_a_pos_only_node_store():
    ei = np.array([[0, 1], [1, 2]])
    g = HeteroData(a={"pos": np.zeros((3, 2))}, a__to__a={"edge_index": ei})
    assert g["a"].num_nodes == 3
    b = HeteroBatch.from_data_list([g, g])
    assert b["a", "to", "a"].edge_index.tolist() == [[0, 1, 3, 4], [1, 2, 4, 5]]
    assert b["a"].batch.tolist() == [0, 0, 0, 1, 1, 1]
    assert b["a"].ptr.tolist() == [0, 3, 6]
    back = b.get_example(1)
    assert back["a", "to", "a"].edge_index.tolist() == ei.tolist()


def _pos_first(n_pos, n_x):
    d = Data(pos=np.zeros((n_pos, 2)))  # pos set before x: PyG counts pos's rows
    d.x = np.arange(n_x, dtype=np.float64)[:, None]
    d.edge_index = np.array([[0], [n_pos - 1]])
    return d


def test_batch_counts_nodes_as_num_nodes_when_pos_comes_before_x():
    graphs = [_pos_first(3, 5), _pos_first(2, 4)]
    assert [d.num_nodes for d in graphs] == [3, 2]
    b = Batch.from_data_list(graphs)
    assert b.batch.tolist() == [0, 0, 0, 1, 1]
    assert b.ptr.tolist() == [0, 3, 5]
    assert b.edge_index.tolist() == [[0, 3], [2, 4]]
    assert b.num_nodes == 5
    for i, d in enumerate(graphs):  # x keeps its own rows in the records
        back = b.get_example(i)
        assert back.x.tolist() == d.x.tolist()
        assert back.edge_index.tolist() == d.edge_index.tolist()


def test_batch_pos_before_x_matches_pyg():
    torch = __import__("pytest").importorskip("torch")
    pyg = __import__("pytest").importorskip("torch_geometric.data")
    graphs = [_pos_first(3, 5), _pos_first(2, 4)]
    ref = []
    for d in graphs:
        p = pyg.Data(pos=torch.from_numpy(d.pos))
        p.x = torch.from_numpy(d.x)
        p.edge_index = torch.from_numpy(d.edge_index)
        ref.append(p)
    pb = pyg.Batch.from_data_list(ref)
    b = Batch.from_data_list(graphs)
    assert b.batch.tolist() == pb.batch.tolist()
    assert b.ptr.tolist() == pb.ptr.tolist()
    assert b.edge_index.tolist() == pb.edge_index.tolist()
    assert b.x.tolist() == pb.x.tolist()
