"""Sampled mini-batches of one large heterogeneous graph: PyG's ``NeighborLoader`` on a
``HeteroData``.

An author / paper graph (authors write papers, papers are written by authors, papers cite
papers) with a paper label is held as ``arraygnn.HeteroData``. ``NeighborLoader`` takes
``input_nodes=('paper', ids)``: every batch is a ``HeteroData`` over the sampled papers and
authors, the seed papers first, the sampled edges of every edge type relabelled to the
batch's per-type ids. A 2-layer ``HeteroConv`` of ``SAGEConv`` runs on ``batch.x_dict`` /
``batch.edge_index_dict`` and its first ``batch_size`` paper rows are the seeds' outputs.

With sampled fan-outs (``[10, 5]`` per edge type, or a dict per edge type) those rows are
an approximation; with every neighbour (``[-1, -1]``) they equal the full-graph outputs
exactly, which is checked for every seed.

    python examples/loader_hetero_neighbor.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn
from arraygnn.loader import NeighborLoader
from arraygnn.nn import HeteroConv, SAGEConv

rng = np.random.default_rng(0)
N_PAPER, N_AUTHOR, DIM, HIDDEN, CLASSES = 6_000, 4_000, 16, 32, 4
WRITES = ("author", "writes", "paper")
EDGE_TYPES = [WRITES, ("paper", "rev_writes", "author"), ("paper", "cites", "paper")]

data = arraygnn.HeteroData()
data["paper"].x = rng.standard_normal((N_PAPER, DIM)).astype(np.float32)
data["paper"].y = rng.integers(0, CLASSES, N_PAPER)
data["paper"].train_mask = rng.random(N_PAPER) < 0.3
data["author"].x = rng.standard_normal((N_AUTHOR, DIM)).astype(np.float32)
writes = np.stack([rng.integers(0, N_AUTHOR, 15_000), rng.integers(0, N_PAPER, 15_000)])
data[WRITES].edge_index = writes
data["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
data["paper", "cites", "paper"].edge_index = rng.integers(0, N_PAPER, (2, 30_000))
print(data)


def layer(in_dim: int, out_dim: int, seed: int) -> HeteroConv:
    return HeteroConv(
        {et: SAGEConv((in_dim, in_dim), out_dim, rng=seed + k) for k, et in enumerate(EDGE_TYPES)},
        aggr="mean",
    )


conv1, conv2 = layer(DIM, HIDDEN, 0), layer(HIDDEN, CLASSES, 10)


def model(x_dict: dict, edge_index_dict: dict) -> dict:
    h = {t: np.maximum(v, 0) for t, v in conv1(x_dict, edge_index_dict).items()}
    return conv2(h, edge_index_dict)


# y and train_mask are per paper node: said, never guessed from their lengths
attrs = dict(node_attrs=["x", "y", "train_mask"])
train = ("paper", data["paper"].train_mask)

# 1. sampled mini-batches; a dict gives each edge type its own fan-outs (every edge type
#    named, by its triple or by a shorthand HeteroData accepts, such as the relation alone)
fanouts = {WRITES: [10, 5], ("paper", "rev_writes", "author"): [10, 5], "cites": [5, 5]}
loader = NeighborLoader(
    data, fanouts, input_nodes=train, batch_size=512, shuffle=True, seed=0, **attrs
)
t0 = time.perf_counter()
correct = total = 0
for batch in loader:
    bs = batch["paper"].batch_size
    logits = model(batch.x_dict, batch.edge_index_dict)["paper"][:bs]
    correct += int((logits.argmax(1) == batch["paper"].y[:bs]).sum())
    total += bs
elapsed = time.perf_counter() - t0
papers, authors = batch["paper"].num_nodes, batch["author"].num_nodes
print(
    f"sampled {list(fanouts.values())}: {len(loader)} batches in {elapsed:.3f} s; last batch "
    f"{papers} papers / {authors} authors, papers per hop {batch['paper'].num_sampled_nodes}, "
    f"untrained accuracy {correct / total:.2f}"
)
assert total == int(data["paper"].train_mask.sum())

# 2. every neighbour: the seeds' rows are the full-graph rows, exactly
full = model(data.x_dict, data.edge_index_dict)["paper"]
exact = NeighborLoader(data, [-1, -1], input_nodes=train, batch_size=512, **attrs)
t0 = time.perf_counter()
rows, ids = [], []
for batch in exact:
    bs = batch["paper"].batch_size
    rows.append(model(batch.x_dict, batch.edge_index_dict)["paper"][:bs])
    ids.append(batch["paper"].n_id[:bs])
rows_all, ids_all = np.concatenate(rows), np.concatenate(ids)
diff = float(np.abs(rows_all - full[ids_all]).max())
print(
    f"full fan-out [-1, -1]: {len(exact)} batches in {time.perf_counter() - t0:.3f} s, "
    f"max |difference| to the full graph {diff:.1e}"
)
assert np.array_equal(ids_all, np.flatnonzero(data["paper"].train_mask))
assert np.allclose(rows_all, full[ids_all], rtol=1e-5, atol=1e-5)
print("every seed's output equals its full-graph output")
