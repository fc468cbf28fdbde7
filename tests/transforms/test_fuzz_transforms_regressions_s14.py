"""Differences from PyG 2.8.1 found by the s14 differential fuzz of ``arraygnn.transforms``
(documented in ``docs/transforms.md``): minimal cases pinned."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.transforms as T
from arraygnn.data import Data


def test_undirected_line_graph_does_not_count_self_loops_as_nodes():
    # PyG 2.8.1 sets num_nodes = coalesced edges // 2 = 2 (the loops counted, halved),
    # while its x has one row: the single undirected non-loop edge {0, 1}.
    ei = np.array([[0, 0, 1, 1], [0, 1, 0, 1]])
    out = T.LineGraph()(Data(edge_index=ei, edge_attr=np.ones((4, 2), np.float32), num_nodes=2))
    assert out.num_nodes == 1 and out.x.shape == (1, 2)
    assert out.edge_index.shape == (2, 0)


def test_int32_ids_stay_int32_with_pyg_values():
    torch = pytest.importorskip("torch")
    PT = pytest.importorskip("torch_geometric.transforms")
    from torch_geometric.data import Data as PData

    ei = np.array([[0, 1, 1], [1, 2, 2]], np.int32)
    for ours, theirs in (
        (T.AddSelfLoops(), PT.AddSelfLoops()),
        (T.VirtualNode(), PT.VirtualNode()),
    ):
        out = ours(Data(edge_index=ei, num_nodes=4))
        ref = theirs(PData(edge_index=torch.from_numpy(ei.copy()), num_nodes=4))
        assert out.edge_index.dtype == np.int32  # PyG's: int64
        np.testing.assert_array_equal(out.edge_index, ref.edge_index.numpy())
