"""A PyG user's everyday calls that arraygnn lacked (session 9, PyG journey).

Each test states the PyG 2.8.1 behaviour it follows and, where PyG is installed, runs PyG's
own call on the same data.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import HeteroData
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.dataset import PackedDataset


def _graphs(n: int = 6) -> list[Data]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        k = 2 + i % 3
        out.append(
            Data(
                x=rng.random((k, 3)).astype(np.float32),
                edge_index=np.array([[0, 1], [1, k - 1]]),
                edge_attr=rng.random((2, 2)).astype(np.float32),
                y=np.array([i % 4]),
            )
        )
    return out


# ---------------------------------------------------------------- Data.clone


def test_data_clone_is_a_deep_copy_like_pyg():
    d = Data(x=np.ones((3, 2), np.float32), edge_index=np.array([[0, 1], [1, 2]]), tags=["a"])
    c = d.clone()
    assert type(c) is Data and sorted(c.keys()) == sorted(d.keys())
    assert not np.shares_memory(c.x, d.x) and not np.shares_memory(c.edge_index, d.edge_index)
    c.x[0, 0] = 5.0
    c.tags.append("b")
    c.z = np.zeros(3)
    assert d.x[0, 0] == 1.0 and d.tags == ["a"] and "z" not in d


def test_batch_clone_keeps_class_and_splits_back():
    b = Batch.from_data_list(_graphs(3))
    c = b.clone()
    assert type(c) is Batch and c.num_graphs == 3
    assert not np.shares_memory(c.x, b.x)
    np.testing.assert_array_equal(c.get_example(2).edge_index, b.get_example(2).edge_index)


def test_hetero_data_clone_is_a_deep_copy():
    h = HeteroData()
    h["paper"].x = np.ones((2, 3), np.float32)
    h["paper", "cites", "paper"].edge_index = np.array([[0], [1]])
    c = h.clone()
    assert type(c) is HeteroData and c.metadata() == h.metadata()
    c["paper"].x[0, 0] = 7.0
    assert h["paper"].x[0, 0] == 1.0
    assert c["paper"].num_nodes == 2  # the stores belong to the copy
    assert c.x_dict["paper"] is c["paper"].x


def test_data_clone_matches_pyg():
    torch = pytest.importorskip("torch")
    pyg_data = pytest.importorskip("torch_geometric.data")
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    p = pyg_data.Data(x=torch.from_numpy(x.copy()), name="g").clone()
    a = Data(x=x, name="g").clone()
    np.testing.assert_array_equal(a.x, p.x.numpy())
    assert a.name == p.name and sorted(a.keys()) == sorted(p.keys())


# ---------------------------------------------------------------- PackedDataset


def test_packed_dataset_float_slices_are_fractions_as_pyg():
    ds = PackedDataset.from_data_list(_graphs(10))
    assert len(ds[:0.8]) == 8 and len(ds[0.8:]) == 2
    np.testing.assert_array_equal(ds[0.5:][0].x, ds[5].x)


def test_packed_dataset_shuffle():
    ds = PackedDataset.from_data_list(_graphs(6))
    sh, perm = ds.shuffle(return_perm=True, seed=0)
    assert isinstance(sh, PackedDataset) and len(sh) == 6
    assert sorted(perm.tolist()) == list(range(6))
    for i, j in enumerate(perm):
        np.testing.assert_array_equal(sh[i].x, ds[int(j)].x)
    again = ds.shuffle(seed=0)
    np.testing.assert_array_equal(again.num_nodes, sh.num_nodes)


def test_packed_dataset_feature_counts_and_classes_match_pyg():
    graphs = _graphs(6)
    ds = PackedDataset.from_data_list(graphs)
    assert ds.num_node_features == 3 and ds.num_features == 3
    assert ds.num_edge_features == 2
    assert ds.num_classes == 4  # integer labels: max + 1
    torch = pytest.importorskip("torch")
    pyg_data = pytest.importorskip("torch_geometric.data")

    class Mem(pyg_data.InMemoryDataset):
        def __init__(self, data_list):
            super().__init__(None)
            self.data, self.slices = self.collate(data_list)

    pyg = Mem(
        [
            pyg_data.Data(**{k: torch.from_numpy(np.asarray(v)) for k, v in g.items()})
            for g in graphs
        ]
    )
    assert (ds.num_node_features, ds.num_edge_features, ds.num_classes) == (
        pyg.num_node_features,
        pyg.num_edge_features,
        pyg.num_classes,
    )


def test_packed_dataset_without_features_or_labels():
    ds = PackedDataset.from_data_list(
        [Data(edge_index=np.array([[0], [1]]), num_nodes=2) for _ in range(3)]
    )
    assert ds.num_node_features == 0 and ds.num_edge_features == 0 and ds.num_classes == 0
