"""Data / Batch <-> GraphTensor with one node set "nodes" and one edge set "edges"."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("arraygnn.batch")

from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.graph_tensor import (  # noqa: E402
    data_to_graph_tensor,
    graph_tensor_to_batch,
    graph_tensor_to_data,
    split_components,
)


def _data(rng, n, m):
    return Data(
        x=rng.standard_normal((n, 3)),
        edge_index=rng.integers(0, max(n, 1), (2, m)) if n else np.zeros((2, 0), np.int64),
        edge_attr=rng.standard_normal((m, 2)),
        y=np.array([rng.integers(0, 4)]),
    )


def test_data_roundtrip():
    d = _data(np.random.default_rng(0), 5, 7)
    g = data_to_graph_tensor(d, context_features=["y"])
    assert list(g.node_sets) == ["nodes"] and list(g.edge_sets) == ["edges"]
    a = g.edge_sets["edges"].adjacency
    assert (a.source_name, a.target_name) == ("nodes", "nodes")
    np.testing.assert_array_equal(a.source, d.edge_index[0])
    assert g.node_sets["nodes"]["x"] is d.x  # shared, not copied
    assert g.context["y"].tolist() == d.y.tolist()
    back = graph_tensor_to_data(g)
    for k in ("x", "edge_index", "edge_attr", "y"):
        np.testing.assert_array_equal(back[k], d[k])
    assert back.num_nodes == 5


def test_batch_components_are_graphs():
    rng = np.random.default_rng(1)
    datas = [_data(rng, n, m) for n, m in ((3, 4), (0, 0), (5, 2), (2, 0))]
    batch = Batch.from_data_list(datas)
    g = data_to_graph_tensor(batch, context_features=["y"])
    assert g.num_components == 4
    assert g.node_sets["nodes"].sizes.tolist() == [3, 0, 5, 2]
    assert g.edge_sets["edges"].sizes.tolist() == [4, 0, 2, 0]
    assert g.context["y"].tolist() == [int(d.y[0]) for d in datas]
    for d, part in zip(datas, split_components(g)):
        np.testing.assert_array_equal(part.node_sets["nodes"]["x"], d.x)
        a = part.edge_sets["edges"].adjacency
        np.testing.assert_array_equal(np.stack([a.source, a.target]), d.edge_index)
    again = graph_tensor_to_batch(g)
    assert again.num_graphs == 4
    for k in ("x", "edge_index", "edge_attr", "y"):
        np.testing.assert_array_equal(again[k], batch[k])


def test_unplaced_attribute_is_an_error_naming_it():
    d = _data(np.random.default_rng(2), 3, 2)
    with pytest.raises(ValueError, match=r"\['y'\] have no place"):
        data_to_graph_tensor(d)
    g = data_to_graph_tensor(d, exclude_keys=["y"], node_set_name="atoms", edge_set_name="bonds")
    assert list(g.node_sets) == ["atoms"] and "y" not in g.context
    with pytest.raises(ValueError, match="data has no attribute 'pos'"):
        data_to_graph_tensor(d, node_features=["pos"], exclude_keys=["y", "x"])
