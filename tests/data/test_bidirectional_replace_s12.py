"""BidirectionalNeighborSampler with ``replace=True``: an edge drawn more than once is kept
once, where it was first drawn (PyG's ``SamplerOutput.merge_with(replace=True)`` keeps each
``(row, col, edge)`` uid once via ``unique_unsorted``), so ``row`` / ``col`` / ``edge`` stay
parallel arrays and ``num_sampled_edges`` sums to the number of edges."""

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.sampler import BidirectionalNeighborSampler
from arraygnn.sampler.base import NodeSamplerInput
from arraygnn.testing.cases import powerlaw_edges

SEEDS = np.array([0, 7, 201, 7, 150, 33, 99, 12, 180])


def _check_directional(ei, out, disjoint):
    assert out.row.shape == out.col.shape == out.edge.shape
    np.testing.assert_array_equal(ei[0, out.edge], out.node[out.row])
    np.testing.assert_array_equal(ei[1, out.edge], out.node[out.col])
    # each edge once (per seed's tree when disjoint)
    key = out.edge.astype(np.int64)
    if disjoint:
        np.testing.assert_array_equal(out.batch[out.row], out.batch[out.col])
        key = out.batch[out.col].astype(np.int64) * ei.shape[1] + key
    assert np.unique(key).shape == key.shape
    assert sum(out.num_sampled_edges) == out.edge.shape[0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("disjoint", [False, True])
def test_replace_keeps_each_edge_once(dtype, disjoint):
    ei = powerlaw_edges(200, 1500, seed=3, dtype=dtype)
    data = Data(edge_index=ei, num_nodes=205)
    sampler = BidirectionalNeighborSampler(data, [6, 4], replace=True, disjoint=disjoint, seed=5)
    out = sampler.sample_from_nodes(NodeSamplerInput(None, SEEDS))
    _check_directional(ei, out, disjoint)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_replace_bidirectional_pairs_are_edges(dtype):
    ei = powerlaw_edges(200, 1500, seed=3, dtype=dtype)
    data = Data(edge_index=ei, num_nodes=205)
    kwargs = {"replace": True, "seed": 5}
    both = BidirectionalNeighborSampler(data, [6, 4], subgraph_type="bidirectional", **kwargs)
    directional = BidirectionalNeighborSampler(data, [6, 4], **kwargs)
    out = both.sample_from_nodes(NodeSamplerInput(None, SEEDS))
    ref = directional.sample_from_nodes(NodeSamplerInput(None, SEEDS))
    assert out.row.shape == out.col.shape == out.edge.shape
    pairs = set(zip(out.node[out.row].tolist(), out.node[out.col].tolist()))
    assert len(pairs) == out.row.shape[0]  # each pair once
    src, dst = ei[0, out.edge], ei[1, out.edge]  # an edge's id: it or its reverse
    forward = (src == out.node[out.row]) & (dst == out.node[out.col])
    reverse = (dst == out.node[out.row]) & (src == out.node[out.col])
    assert (forward | reverse).all()
    sampled = set(zip(ref.node[ref.row].tolist(), ref.node[ref.col].tolist()))
    assert pairs == sampled | {(c, r) for r, c in sampled}


@pytest.mark.parametrize("disjoint", [False, True])
def test_one_in_edge_drawn_four_times_is_one_edge(disjoint):
    # node 1's only in-edge is 0 -> 1: four draws with replacement, one edge (PyG's merge
    # deduplicates the (row, col, edge) uids; its counts would say 4, see the module)
    data = Data(edge_index=np.array([[0], [1]]), num_nodes=2)
    sampler = BidirectionalNeighborSampler(data, [4], replace=True, disjoint=disjoint, seed=0)
    out = sampler.sample_from_nodes(NodeSamplerInput(None, np.array([1])))
    assert out.node.tolist() == [1, 0]
    assert (out.row.tolist(), out.col.tolist(), out.edge.tolist()) == ([1], [0], [0])
    assert out.num_sampled_edges == [1, 0]
