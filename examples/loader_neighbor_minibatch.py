"""Mini-batch inference on one large graph, in PyG's and in DGL's style.

A power-law graph (20k nodes) and a 2-layer SAGE model run three ways:

1. full-graph: one pass over every edge;
2. PyG's ``NeighborLoader`` with every neighbour (``[-1, -1]``): batches of seed nodes and
   their 2-hop in-neighbourhoods, the seeds' rows equal to the full-graph rows; then with
   sampled neighbourhoods (``[10, 5]``), which is cheaper and approximate;
3. DGL's ``NodeDataLoader`` with ``MultiLayerFullNeighborSampler(2)``: blocks, one per layer;
4. PyG's temporal, disjoint sampling: every seed its own tree of neighbours no later than
   its time (``time_attr``, ``temporal_strategy='last'``), ``batch`` naming each node's seed.

    python examples/loader_neighbor_minibatch.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn
import arraygnn.nn as nn
from arraygnn.data import Data
from arraygnn.loader import NeighborLoader
from arraygnn.sampling import MultiLayerFullNeighborSampler, NodeDataLoader

src, dst, x = arraygnn.powerlaw_graph(20_000, 120_000, seed=0, num_features=16)
data = Data(x=x, edge_index=np.stack([src, dst]), y=np.arange(20_000) % 5)
conv1, conv2 = nn.SAGEConv(16, 32, rng=0), nn.SAGEConv(32, 5, rng=1)


def model(x, edges):
    return conv2(np.maximum(conv1(x, edges), 0), edges)


model(data.x, data.edge_index)  # warm-up: the kernels load from Numba's cache
t0 = time.perf_counter()
full = model(data.x, data.edge_index)
print(f"full graph: {full.shape} in {time.perf_counter() - t0:.3f} s")

seeds = np.arange(0, 20_000, 7)  # every seventh node
# 2. PyG's NeighborLoader: y is per node (said, not guessed from its length)
loader = NeighborLoader(data, [-1, -1], input_nodes=seeds, batch_size=512, node_attrs=["x", "y"])
t0 = time.perf_counter()
rows = [model(b.x, b.edge_index)[: b.batch_size] for b in loader]
exact = np.concatenate(rows)
print(
    f"NeighborLoader [-1, -1]: {len(loader)} batches in {time.perf_counter() - t0:.3f} s, "
    f"max |difference| to the full graph {np.abs(exact - full[seeds]).max():.1e}"
)
assert np.allclose(exact, full[seeds], rtol=1e-5, atol=1e-5)
sampled = NeighborLoader(data, [10, 5], input_nodes=seeds, batch_size=512, seed=0,
                         node_attrs=["x", "y"])  # fmt: skip
batch = next(iter(sampled))
print(
    f"NeighborLoader [10, 5]: first batch {batch.num_nodes} nodes / "
    f"{batch.edge_index.shape[1]} edges, per hop {batch.num_sampled_nodes} nodes"
)

# 3. DGL's loader: blocks from the DGL-face graph
g = arraygnn.graph((src, dst), num_nodes=20_000)
blocks_out, order = [], []
for input_nodes, output_nodes, blocks in NodeDataLoader(
    g, seeds, MultiLayerFullNeighborSampler(2), batch_size=512
):
    h = np.maximum(conv1(blocks[0], x[input_nodes]), 0)
    blocks_out.append(conv2(blocks[1], h))
    order.append(output_nodes)
assert np.array_equal(np.concatenate(order), seeds)
assert np.allclose(np.concatenate(blocks_out), full[seeds], rtol=1e-5, atol=1e-5)
print("NodeDataLoader + MultiLayerFullNeighborSampler(2): equal to the full graph too")

# 4. temporal + disjoint: node times, each seed's tree holds only neighbours no later than it
timed = Data(x=x, edge_index=data.edge_index, time=np.arange(20_000) % 100)
temporal = NeighborLoader(
    timed, [5, 5], input_nodes=seeds, batch_size=512, seed=0,
    time_attr="time", temporal_strategy="last", node_attrs=["x", "time"],
)  # fmt: skip
batch = next(iter(temporal))
seed_time = batch.time[: batch.batch_size][batch.batch]  # each node's seed's time
assert (batch.time <= seed_time).all()  # no node later than its tree's seed
assert np.array_equal(batch.batch[batch.edge_index[0]], batch.batch[batch.edge_index[1]])
tree_sizes = np.bincount(batch.batch, minlength=batch.batch_size)
print(
    f"temporal NeighborLoader [5, 5] ('last'): {batch.num_nodes} nodes in "
    f"{batch.batch_size} disjoint trees (largest {tree_sizes.max()}), all no later than "
    "their seed"
)
