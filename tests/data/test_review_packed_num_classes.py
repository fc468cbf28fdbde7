"""Review (session 9): ``PackedDataset.num_classes`` reads an edge-level ``y`` as PyG does."""

import numpy as np

from arraygnn.data import Data
from arraygnn.dataset import PackedDataset


def _edge_y_dataset() -> PackedDataset:
    graphs = [
        Data(x=np.ones((2, 1)), edge_index=np.array([[0, 1], [1, 0]]), y=np.array([0, c]))
        for c in (4, 1, 2)
    ]
    return PackedDataset.from_data_list(graphs, edge_keys=("edge_attr", "y"))


def test_edge_level_y_counts_with_and_without_transform():
    # PyG's InMemoryDataset: _infer_num_classes(data.y) whatever level y is at -> 5 here
    ds = _edge_y_dataset()
    assert ds.num_classes == 5
    ds.transform = lambda d: d
    assert ds.num_classes == 5


def test_edge_level_y_matches_pyg():
    import pytest

    torch = pytest.importorskip("torch")
    pyg_data = pytest.importorskip("torch_geometric.data")

    class DS(pyg_data.InMemoryDataset):
        def __init__(self, graphs):
            super().__init__(None)
            self.data, self.slices = self.collate(graphs)

    ours = _edge_y_dataset()
    theirs = DS(
        [
            pyg_data.Data(
                x=torch.ones(2, 1),
                edge_index=torch.tensor([[0, 1], [1, 0]]),
                y=torch.tensor([0, c]),
            )
            for c in (4, 1, 2)
        ]
    )
    assert ours.num_classes == theirs.num_classes
