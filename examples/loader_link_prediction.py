"""Link prediction batches with PyG's ``LinkNeighborLoader`` and ``negative_sampling``.

No training: a graph with four communities (most edges inside a community, node features
that carry a noisy community signal) is embedded by a 2-layer SAGE model with random
weights, and each pair is scored by the cosine of its two embeddings. Positives (edges)
should score higher than negatives (non-edges), so the AUC is well above 0.5.

1. ``LinkNeighborLoader`` with ``num_neighbors=[-1, -1]`` and binary negative sampling:
   per batch, the scores of the label edges and of the sampled negatives; the scores equal
   those of the full-graph embeddings (every neighbour is sampled).
2. ``arraygnn.utils.negative_sampling`` on the whole graph gives the same kind of AUC.

    python examples/loader_link_prediction.py
"""

from __future__ import annotations

import time

import numpy as np

import arraygnn.nn as nn
from arraygnn.data import Data
from arraygnn.loader import LinkNeighborLoader
from arraygnn.utils import negative_sampling

rng = np.random.default_rng(0)
n, communities, e = 2_000, 4, 16_000
group = rng.integers(0, communities, n)
src = rng.integers(0, n, e)
inside = rng.random(e) < 0.9  # 90% of the edges stay inside their community
by_group = np.argsort(group, kind="stable")  # nodes grouped by community
size = np.bincount(group, minlength=communities)
start = np.cumsum(size) - size
same = by_group[start[group[src]] + (rng.random(e) * size[group[src]]).astype(np.int64)]
dst = np.where(inside, same, rng.integers(0, n, e))
keep = src != dst
edge_index = np.stack([src[keep], dst[keep]])
x = (np.eye(communities)[group] + 0.5 * rng.standard_normal((n, communities))).astype(np.float32)
data = Data(x=x, edge_index=edge_index)
conv1, conv2 = nn.SAGEConv(communities, 32, rng=0), nn.SAGEConv(32, 16, rng=1)


def embed(x, edges):
    return conv2(np.maximum(conv1(x, edges), 0), edges)


def cosine(h, pairs):
    a, b = h[pairs[0]], h[pairs[1]]
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1) + 1e-9)


def auc(scores, labels):
    """The probability that a random positive outscores a random negative (rank form)."""
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores, kind="stable")] = np.arange(1, len(scores) + 1)
    pos = labels > 0
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


full = embed(data.x, data.edge_index)

# 1. mini-batches around 1,000 label edges, one negative per positive
t0 = time.perf_counter()
label_edges = edge_index[:, rng.permutation(edge_index.shape[1])[:1_000]]
loader = LinkNeighborLoader(
    data, num_neighbors=[-1, -1], edge_label_index=label_edges, batch_size=250,
    neg_sampling=dict(mode="binary", amount=1), shuffle=True, seed=0,
)  # fmt: skip
scores, labels = [], []
for batch in loader:
    h = embed(batch.x, batch.edge_index)
    s = cosine(h, batch.edge_label_index)
    global_pairs = batch.n_id[batch.edge_label_index]
    assert np.allclose(s, cosine(full, global_pairs), atol=1e-5)  # exact neighbourhoods
    scores.append(s)
    labels.append(batch.edge_label)
batch_auc = auc(np.concatenate(scores), np.concatenate(labels))
print(
    f"LinkNeighborLoader: {len(loader)} batches of 250 positives + 250 negatives in "
    f"{time.perf_counter() - t0:.2f} s, AUC {batch_auc:.3f}"
)

# 2. the same with negative_sampling over the whole graph
neg = negative_sampling(edge_index, n, num_neg_samples=5_000, seed=0)
pos = edge_index[:, :5_000]
whole_auc = auc(
    np.concatenate([cosine(full, pos), cosine(full, neg)]),
    np.concatenate([np.ones(5_000), np.zeros(neg.shape[1])]),
)
print(f"negative_sampling: {neg.shape[1]} negatives, full-graph AUC {whole_auc:.3f}")
assert batch_auc > 0.7 and whole_auc > 0.7, (batch_auc, whole_auc)
