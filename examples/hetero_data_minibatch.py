"""Mini-batches of heterogeneous graphs with PyG's ``HeteroData`` API on NumPy arrays.

Many small author / paper graphs (authors write papers, papers cite papers, papers are
written by authors) are held as ``arraygnn.HeteroData``, batched by ``arraygnn.DataLoader``
(one ``HeteroBatch`` per step, itself a ``HeteroData``: per-type ``batch`` / ``ptr``
vectors, edge ids moved by the source and destination types' node offsets) and run through
a 2-layer ``HeteroConv`` of ``SAGEConv`` layers on ``batch.x_dict`` /
``batch.edge_index_dict``, then a per-graph mean over the papers with the paper ``batch``
vector. Because the batch is block-diagonal per edge type, every graph's readout equals
running the model on that graph alone: checked for every graph.

    python examples/hetero_data_minibatch.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn
from arraygnn.nn import HeteroConv, SAGEConv, global_mean_pool

rng = np.random.default_rng(0)
DIM, HIDDEN, OUT = 8, 16, 4
EDGE_TYPES = [
    ("author", "writes", "paper"),
    ("paper", "rev_writes", "author"),
    ("paper", "cites", "paper"),
]


def random_graph(i: int) -> arraygnn.HeteroData:
    n_paper = int(rng.integers(1, 12))
    n_author = int(rng.integers(0, 6))  # some graphs have no authors at all
    d = arraygnn.HeteroData()
    d["paper"].x = rng.standard_normal((n_paper, DIM)).astype(np.float32)
    d["author"].x = rng.standard_normal((n_author, DIM)).astype(np.float32)
    e = int(rng.integers(0, 3 * n_paper)) if n_author else 0
    writes = np.stack([rng.integers(0, max(n_author, 1), e), rng.integers(0, n_paper, e)])
    d["author", "writes", "paper"].edge_index = writes
    d["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
    c = int(rng.integers(0, 2 * n_paper))
    d["paper", "cites", "paper"].edge_index = rng.integers(0, n_paper, (2, c))
    d.y = np.array([i % 2], np.int64)
    return d


def layer(in_dim: int, out_dim: int, seed: int) -> HeteroConv:
    return HeteroConv(
        {et: SAGEConv((in_dim, in_dim), out_dim, rng=seed + k) for k, et in enumerate(EDGE_TYPES)},
        aggr="sum",
    )


conv1, conv2 = layer(DIM, HIDDEN, 0), layer(HIDDEN, OUT, 10)


def model(x_dict: dict, edge_index_dict: dict) -> dict:
    h = conv1(x_dict, edge_index_dict)
    h = {t: np.maximum(v, 0) for t, v in h.items()}  # ReLU
    return conv2(h, edge_index_dict)


graphs = [random_graph(i) for i in range(200)]
print(graphs[0])
loader = arraygnn.DataLoader(graphs, batch_size=32, shuffle=True, seed=0)

start = time.perf_counter()
pooled = [
    (batch, global_mean_pool(out["paper"], batch["paper"].batch, size=batch.num_graphs))
    for batch in loader
    for out in [model(batch.x_dict, batch.edge_index_dict)]
]
elapsed = time.perf_counter() - start
print(f"{len(loader)} batches of up to 32 graphs: collated and run in {elapsed * 1e3:.1f} ms")

# the same model, one graph at a time: get_example gives each graph of a batch back
checked = 0
for batch, readout in pooled:
    for i, g in enumerate(batch.to_data_list()):
        single = model(g.x_dict, g.edge_index_dict)["paper"].mean(axis=0)
        np.testing.assert_allclose(readout[i], single, rtol=1e-4, atol=1e-5)
        checked += 1
assert checked == len(graphs)
print(f"per-graph readouts of {checked} graphs equal running each graph alone")
print(next(iter(arraygnn.DataLoader(graphs, batch_size=4))))
