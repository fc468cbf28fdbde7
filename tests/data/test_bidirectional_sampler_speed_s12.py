"""BidirectionalNeighborSampler's outputs pinned bit for bit (node, row, col, edge, batch,
their dtypes and the per-hop counts) on seeded graphs, so that speed work on its merge
cannot change what a seed gives: int32 / int64 ids, an empty fan-out hop, full fan-outs,
isolated and repeated seeds, no seeds, both subgraph types, disjoint, weighted and
replacement sampling, and link seeds. (HeteroData is refused by the sampler, as PyG's.)"""

import hashlib

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.sampler import BidirectionalNeighborSampler
from arraygnn.sampler.base import EdgeSamplerInput, NodeSamplerInput
from arraygnn.testing.cases import powerlaw_edges

SEEDS = np.array([0, 7, 201, 7, 150, 204, 33, 99, 12, 180])  # 7 twice, 201 / 204 isolated

CASES = {
    "int64": (np.int64, [4, 3], {}),
    "int32": (np.int32, [4, 3], {}),
    "empty_hop": (np.int64, [3, 0, 2], {}),
    "full": (np.int32, [-1, 2], {}),
    "bidirectional": (np.int64, [4, 3], {"subgraph_type": "bidirectional"}),
    "disjoint": (np.int64, [3, 2], {"disjoint": True}),
    "replace": (np.int64, [4, 3], {"replace": True}),
}

# the outputs before the merge was sped up, per case: five batches from one sampler ('replace':
# after its repeated draws were made one edge, as PyG's merge_with).
# Weighted sampling is not pinned: its keys go through NumPy's SIMD log, whose last bit may
# differ on another CPU (see test_weighted_outputs_are_the_graphs_edges)
PINNED = {
    "int64": "b3a0ca90588091a7 1a0fc05517bb7780 889b195198044142"
    " 443bf5db19087487 883f6fba8d361017",
    "int32": "b3a0ca90588091a7 1a0fc05517bb7780 889b195198044142"
    " 443bf5db19087487 883f6fba8d361017",
    "empty_hop": "fecae423b7d61a97 88646c49d4757263 8c2548528c6b1f8d"
    " edcf16793a84fd4e 8dae093a54e8b2a4",
    "full": "b960d777600ea95c 0f51b39402e5614d 889b195198044142"
    " 443bf5db19087487 5c7e300fd9155987",
    "bidirectional": "8e54a47644872a04 caf113b955f92c59 233cd2ace335cd36"
    " b4f69f0f25510dd8 2ffeffff4467bca1",
    "disjoint": "8895e52d36faf051 66daae654272a1e8 2468fc47b954b5db"
    " 15b215ae1ede2dce b547cdb33fa793b6",
    "replace": "c5ac41da61ba258b c8eac9bc55cb031b 889b195198044142"
    " 443bf5db19087487 e52c0a18086c792d",
}  # fmt: skip


def _graph(dtype):
    ei = powerlaw_edges(200, 1500, seed=3, dtype=dtype)
    w = np.random.default_rng(4).random(ei.shape[1])
    return Data(edge_index=ei, num_nodes=205, w=w)  # nodes 200..204 have no edges


def _digest(out):
    h = hashlib.sha256()
    for name in ("node", "row", "col", "edge", "batch"):
        v = getattr(out, name)
        blob = b"None" if v is None else str(v.dtype).encode() + np.ascontiguousarray(v).tobytes()
        h.update(name.encode() + b"|" + blob)
    h.update(repr((out.num_sampled_nodes, out.num_sampled_edges)).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case", list(CASES))
def test_outputs_pinned(case):
    dtype, fanouts, kwargs = CASES[case]
    sampler = BidirectionalNeighborSampler(_graph(dtype), fanouts, seed=5, **kwargs)
    outs = [
        sampler.sample_from_nodes(NodeSamplerInput(None, SEEDS)),
        sampler.sample_from_nodes(NodeSamplerInput(None, SEEDS[::-1][:4])),
        sampler.sample_from_nodes(NodeSamplerInput(None, np.zeros(0, np.int64))),
        sampler.sample_from_nodes(NodeSamplerInput(None, np.array([203, 200, 203]))),
        sampler.sample_from_edges(
            EdgeSamplerInput(None, np.array([1, 201, 5]), np.array([2, 3, 1]))
        ),
    ]
    assert [_digest(o) for o in outs] == PINNED[case].split()


@pytest.mark.parametrize("high", [50, 2**40, 2**62])  # the last: too big to pack
def test_stable_sort_is_stable_argsort(high):
    from arraygnn._subgraph_types import _stable_sort

    key = np.random.default_rng(0).integers(0, high, 3000)
    key[::7] = key[0]  # many ties
    order, sorted_key = _stable_sort(np, key)
    expected = np.argsort(key, kind="stable")
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(sorted_key, key[expected])
    assert order.dtype == expected.dtype and sorted_key.dtype == key.dtype


def test_weighted_outputs_are_the_graphs_edges():
    """Weighted draws (not pinned: they depend on the CPU's log): every sampled edge is the
    graph's edge between the nodes its row / col name, each edge once, on both sides of
    the seeds."""
    data = _graph(np.int64)
    ei = data.edge_index
    sampler = BidirectionalNeighborSampler(data, [4, 3], seed=5, weight_attr="w")
    out = sampler.sample_from_nodes(NodeSamplerInput(None, SEEDS))
    assert out.row.shape == out.col.shape == out.edge.shape
    np.testing.assert_array_equal(ei[0, out.edge], out.node[out.row])
    np.testing.assert_array_equal(ei[1, out.edge], out.node[out.col])
    assert np.unique(out.edge).shape == out.edge.shape
    assert set(SEEDS.tolist()) <= set(out.node.tolist())
    w = data.w[out.edge]
    assert (w > 0).all()
