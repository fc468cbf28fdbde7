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


def test_mixed_index_dtypes_convert_to_an_integer_edge_index():
    import numpy as np

    from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet
    from arraygnn.graph_tensor.convert import graph_tensor_to_data

    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([3]))},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([2]),
                adjacency=Adjacency.from_indices(
                    source=("n", np.array([0, 1], np.uint64)),
                    target=("n", np.array([1, 2], np.int64)),
                ),
            )
        },
    )
    ei = graph_tensor_to_data(g).edge_index  # used to be float64 (NumPy's uint64 + int64)
    assert ei.dtype == np.int64 and ei.tolist() == [[0, 1], [1, 2]]


def test_graph_to_data_refuses_features_named_like_data_fields():
    import numpy as np
    import pytest

    from arraygnn.graph import graph
    from arraygnn.graph.convert import graph_to_data

    g = graph((np.array([0]), np.array([1])), num_nodes=2)
    g.ndata["num_nodes"] = np.zeros(2)
    with pytest.raises(ValueError, match=r"\['num_nodes'\] are Data's own fields"):
        graph_to_data(g)
