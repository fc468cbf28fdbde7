"""Graph <-> GraphTensor and Graph <-> Data converters share arrays."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import (
    data_to_graph,
    graph,
    graph_tensor_to_graph,
    graph_to_data,
    graph_to_graph_tensor,
    heterograph,
)


def test_homogeneous_graph_tensor_round_trip_shares_arrays():
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=4)
    g.ndata["x"] = np.arange(8.0).reshape(4, 2)
    g.edata["w"] = np.array([1.0, 2.0, 3.0])
    gt = graph_to_graph_tensor(g)
    assert set(gt.node_sets) == {"nodes"} and set(gt.edge_sets) == {"edges"}
    assert gt.node_sets["nodes"]["x"] is g.ndata["x"]
    assert gt.edge_sets["edges"].adjacency.source is g.edges()[0]
    back = graph_tensor_to_graph(gt)
    assert back.canonical_etypes == [("_N", "_E", "_N")] and back.num_nodes() == 4
    assert back.ndata["x"] is g.ndata["x"] and back.edata["w"] is g.edata["w"]
    back.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    g.update_all(fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    np.testing.assert_allclose(back.ndata["h"], g.ndata["h"])


def test_hetero_graph_tensor_round_trip():
    g = heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
            ("user", "plays", "game"): (np.array([0, 2]), np.array([1, 0])),
        },
        {"user": 3, "game": 2},
    )
    g.nodes["game"].data["y"] = np.ones(2)
    gt = graph_to_graph_tensor(g)
    assert gt.edge_sets["plays"].adjacency.source_name == "user"
    assert gt.edge_sets["plays"].adjacency.target_name == "game"
    back = graph_tensor_to_graph(gt)
    assert sorted(back.canonical_etypes) == sorted(g.canonical_etypes)
    assert back.nodes["game"].data["y"] is g.nodes["game"].data["y"]
    dup = heterograph({("a", "r", "b"): ([0], [0]), ("b", "r", "a"): ([0], [0])}, {"a": 1, "b": 1})
    with pytest.raises(ValueError, match="unique edge set names"):
        graph_to_graph_tensor(dup)


def test_data_round_trip():
    pytest.importorskip("arraygnn.data")
    from arraygnn.data import Data

    ei = np.array([[0, 1, 2], [1, 2, 0]])
    d = Data(x=np.ones((3, 2)), edge_index=ei, edge_attr=np.arange(3.0))
    g = data_to_graph(d)
    assert g.ndata["x"] is d.x and g.edata["edge_attr"] is d.edge_attr
    assert g.num_nodes() == 3 and g.num_edges() == 3
    np.testing.assert_array_equal(g.edges()[0], ei[0])
    back = graph_to_data(g)
    np.testing.assert_array_equal(back.edge_index, ei)
    assert back.x is d.x and back.num_nodes == 3
    with pytest.raises(ValueError, match=r"\['extra'\] have no place"):
        data_to_graph(Data(x=np.ones((3, 1)), edge_index=ei, extra=np.ones(3)))
    g2 = data_to_graph(
        Data(x=np.ones((3, 1)), edge_index=ei, extra=np.ones(3)), exclude_keys=["extra"]
    )
    assert "extra" not in g2.ndata
