"""Review of PyG's ``weight_attr`` (5ed09ec): the bidirectional sampler takes the weights
too, as PyG's (both directions weighted by the same per-edge weights)."""

import numpy as np
import pytest

from arraygnn import Data
from arraygnn.sampler import NodeSamplerInput
from arraygnn.sampler.bidirectional_neighbor_sampler import BidirectionalNeighborSampler

# 1..6 -> 0 and 0 -> 1..6: node 0's in- and out-edges weigh 0 where odd
SRC = np.array([1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0])
DST = np.array([0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6])
W = np.array([0.0, 3.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 1.0, 0.0, 2.0])


def test_bidirectional_sampler_weighs_both_directions():
    data = Data(edge_index=np.stack([SRC, DST]), w=W.copy(), num_nodes=7)
    s = BidirectionalNeighborSampler(data, [3], weight_attr="w", seed=0)
    for _ in range(4):  # three positive edges each way: never a zero-weight one
        out = s.sample_from_nodes(NodeSamplerInput(None, np.array([0])))
        assert sorted(out.edge.tolist()) == [1, 3, 5, 7, 9, 11]
    np.testing.assert_array_equal(data.w, W)  # read, never changed


def test_bidirectional_sampler_names_a_missing_weight_attr():
    data = Data(edge_index=np.stack([SRC, DST]), num_nodes=7)
    with pytest.raises(
        ValueError, match=r"BidirectionalNeighborSampler: weight_attr='w'.*edge_index"
    ):
        BidirectionalNeighborSampler(data, [1], weight_attr="w")
