"""Regressions found by the s14 differential fuzz of the PyG containers (Data, Batch,
HeteroData, HeteroBatch) against PyG 2.8."""

import numpy as np

from arraygnn import HeteroData


def _hetero_with_graph_y() -> HeteroData:
    h = HeteroData()
    h["a"].x = np.arange(6.0).reshape(3, 2)
    h["b"].num_nodes = 2
    h["a", "r", "b"].edge_index = np.array([[0, 2, 1], [1, 0, 0]])
    h.y = np.array([1])  # graph-level
    return h


def test_to_homogeneous_round_trip_keeps_graph_level_arrays():
    # PyG: HeteroData.to_homogeneous().to_heterogeneous() gives the graph-level y back;
    # it used to be a ValueError asking to name y
    h = _hetero_with_graph_y()
    back = h.to_homogeneous().to_heterogeneous()
    assert back.y.tolist() == [1]
    assert back.node_types == ["a", "b"]
    assert back["a"].x.tolist() == h["a"].x.tolist()
    assert back["a", "r", "b"].edge_index.tolist() == [[0, 2, 1], [1, 0, 0]]


def test_batch_of_batches_with_python_int_index_key():
    # a Python int under the index rule (PyG increments it, no range check) collated twice:
    # the inner batch holds 5 for the empty graph 1 (= graph 0's 5 nodes), which is no
    # node id; PyG gives [0, 5, 5, 15], this used to raise "holds node id 5, outside [0, 5)"
    from arraygnn import Batch, Data

    sizes, vals = [5, 0, 9, 2], [0, 0, 0, 1]
    graphs = [Data(x=np.zeros((n, 1)), my_index=v) for n, v in zip(sizes, vals)]
    outer = Batch.from_data_list(
        [Batch.from_data_list(graphs[:2]), Batch.from_data_list(graphs[2:])]
    )
    assert outer.my_index.tolist() == [0, 5, 5, 15]
    assert outer.get_example(1).my_index.tolist() == [0, 10]


def test_hetero_follow_batch_num_nodes_is_ignored_as_pyg():
    # PyG (and Batch on Data graphs) add no vectors for follow_batch=['num_nodes'];
    # HeteroBatch used to raise "'num_nodes' is not a key of any store"
    from arraygnn import Batch

    h = HeteroData()
    h["a"].num_nodes = 2
    h["b"].x = np.ones((3, 1))
    batch = Batch.from_data_list([h, h], follow_batch=["num_nodes", "x"])
    assert batch["a"].num_nodes == 4 and "num_nodes_batch" not in batch["a"]
    assert batch["b"].x_batch.tolist() == [0, 0, 0, 1, 1, 1]


def test_repr_of_0d_array_is_its_value_as_pyg():
    # PyG prints a 0-d tensor's value (Data(y=2.5)); the repr used to show y=[]
    from arraygnn import Data

    assert repr(Data(y=np.array(2.5), t=np.array(3), x=np.zeros((2, 1)))) == (
        "Data(y=2.5, t=3, x=[2, 1])"
    )


def test_num_edges_reads_pyg_edge_keys_without_edge_index():
    # PyG's num_edges reads the first of edge_index / edge_weight / edge_attr / edge_type /
    # e_id present; it used to be 0 for a graph holding only edge_weight
    from arraygnn import Data

    assert Data(edge_weight=np.ones(3), num_nodes=2).num_edges == 3
    assert Data(e_id=np.arange(4), edge_attr=np.ones((4, 2))).num_edges == 4
    assert Data(edge_index=np.zeros((2, 5), np.int64), edge_weight=np.ones(5)).num_edges == 5
    h = HeteroData()
    h["a", "r", "a"].edge_type = np.zeros(6, np.int64)
    assert h["a", "r", "a"].num_edges == 6


def test_batch_of_batches_keeps_numpy_int_index_key_unincreased():
    # NumPy integers are never increased (flat batch: [2, 1, 0]; PyG keeps them in lists);
    # a batch of batches used to increase the inner arrays by num_nodes: [2, 1, 5]
    from arraygnn import Batch, Data

    graphs = [
        Data(x=np.zeros((n, 1)), center_index=np.int64(c)) for n, c in [(3, 2), (2, 1), (4, 0)]
    ]
    outer = Batch.from_data_list(
        [Batch.from_data_list(graphs[:2]), Batch.from_data_list(graphs[2:])]
    )
    assert outer.center_index.tolist() == [2, 1, 0]
    assert outer.get_example(1).center_index.tolist() == [0]
