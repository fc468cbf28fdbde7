"""HeteroData / HeteroBatch edge cases: narrow id dtypes, the non-NumPy id check, partial
ptr keys, to_homogeneous with feature-only edge types, num_nodes values, GraphTensor round
trips of relation names with "__" and of follow_batch vectors."""

from __future__ import annotations

import types

import numpy as np
import pytest

from arraygnn import Batch, HeteroData
from arraygnn.hetero_batch import _check_row
from arraygnn.hetero_convert import graph_tensor_to_hetero_data, hetero_data_to_graph_tensor


def test_node_counts_beyond_the_id_dtype_do_not_reject_valid_ids():
    d = HeteroData()
    d["a"].num_nodes = 256
    d["b"].x = np.ones((2, 1))
    d["a", "r", "b"].edge_index = np.array([[5, 0], [0, 1]], np.uint8)
    out = Batch.from_data_list([d])
    assert out["a", "r", "b"].edge_index.tolist() == [[5, 0], [0, 1]]
    d["a", "r", "b"].edge_index = np.array([[5, 0], [0, 2]], np.uint8)
    with pytest.raises(ValueError, match="row 1 holds destination node id 2, outside"):
        Batch.from_data_list([d])


def _not_numpy() -> types.SimpleNamespace:
    """NumPy under another module object: the id check's device path (CuPy's) on the CPU."""
    return types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("_")})


def test_id_check_device_path_accepts_valid_ids_and_names_bad_ones():
    ids = np.array([0, 1, 4, 0, 2], np.int64)
    counts, sizes, sl = np.array([2, 5]), np.array([2, 3]), np.array([0, 2, 5])
    et = ("a", "r", "b")
    _check_row(et, "edge_index", ids, counts, sizes, sl, "a", "source", 0, _not_numpy())
    bad = np.array([0, 2, 4, 0, 2], np.int64)
    with pytest.raises(ValueError, match="graph 0: row 0 holds source node id 2, outside"):
        _check_row(et, "edge_index", bad, counts, sizes, sl, "a", "source", 0, _not_numpy())


def test_ptr_in_only_some_graphs_is_ignored():
    a = HeteroData()
    a["p"].x = np.ones((2, 1))
    a["p"].ptr = np.array([0, 2])
    b = HeteroData()
    b["p"].x = np.ones((3, 1))
    assert Batch.from_data_list([a, b])["p"].ptr.tolist() == [0, 2, 5]


def test_to_homogeneous_refuses_edge_features_without_edge_index():
    d = HeteroData()
    d["a"].x = np.zeros((3, 1))
    d["a", "r", "a"].edge_index = np.array([[0, 1, 2], [1, 2, 0]])
    d["a", "r", "a"].edge_attr = np.arange(3.0)[:, None]
    d["a", "s", "a"].edge_attr = np.full((2, 1), 7.0)
    with pytest.raises(ValueError, match=r"edge type \('a', 's', 'a'\) has \['edge_attr'\] but no"):
        d.to_homogeneous()


@pytest.mark.parametrize("value,err", [(2.7, TypeError), (-3, ValueError), (True, TypeError)])
def test_num_nodes_must_be_a_non_negative_int(value, err):
    with pytest.raises(err, match="num_nodes of node type 'a'"):
        HeteroData(a={"num_nodes": value})


def test_graph_tensor_round_trip_keeps_relation_names_with_double_underscores():
    d = HeteroData()
    d["a"].num_nodes, d["b"].num_nodes = 2, 3
    d["a", "p__q", "b"].edge_index = np.array([[0, 1], [2, 0]])
    d["b", "p__q", "a"].edge_index = np.array([[1], [0]])
    back = graph_tensor_to_hetero_data(hetero_data_to_graph_tensor(d))
    assert sorted(back.edge_types) == sorted(d.edge_types)


def test_follow_batch_vectors_do_not_become_graph_tensor_features():
    graphs = []
    for n in (2, 3):
        d = HeteroData()
        d["a"].x = np.ones((n, 1))
        d["a"].lab = np.arange(n)
        d["a", "r", "a"].edge_index = np.array([[0], [1]])
        graphs.append(d)
    batch = Batch.from_data_list(graphs, follow_batch=["lab"])
    assert "lab_batch" in batch["a"].keys()
    gt = hetero_data_to_graph_tensor(batch)
    assert sorted(gt.node_sets["a"].features) == ["lab", "x"]


def test_graph_tensor_conversion_names_an_edge_type_with_float_ids():
    d = HeteroData()
    d["a"].num_nodes = 2
    d["a", "r", "a"].edge_index = np.array([[0.0], [1.0]])
    with pytest.raises(TypeError, match=r"edge type \('a', 'r', 'a'\): edge_index must hold"):
        hetero_data_to_graph_tensor(d)
