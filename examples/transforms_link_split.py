"""Link prediction splits with PyG's ``RandomLinkSplit``, then ``LinkNeighborLoader``.

A graph with four communities (most edges inside one, node features carrying a noisy
community signal) is split into train / validation / test graphs (undirected: both
directions of a pair stay in one split). The training graph's supervision edges feed a
``LinkNeighborLoader`` that adds one sampled negative per positive; a 2-layer SAGE model with
random weights (no training) scores pairs by the cosine of their embeddings. Each split is
scored on its own message-passing edges, so no evaluated edge is ever seen by the model:
positives should still outscore negatives (AUC well above 0.5).

    python examples/transforms_link_split.py
"""

from __future__ import annotations

import numpy as np

import arraygnn.nn as nn
from arraygnn.data import Data
from arraygnn.loader import LinkNeighborLoader
from arraygnn.transforms import RandomLinkSplit
from arraygnn.utils import to_undirected

rng = np.random.default_rng(0)
n, communities, e = 1_000, 4, 5_000
group = rng.integers(0, communities, n)
src = rng.integers(0, n, e)
same = rng.random(e) < 0.9  # 90% of the edges stay inside their community
# a uniform member of the source's community (nodes sorted by community, one draw per edge)
members = np.argsort(group, kind="stable")
sizes = np.bincount(group, minlength=communities)
first = np.cumsum(sizes) - sizes
inside = members[first[group[src]] + (rng.random(e) * sizes[group[src]]).astype(np.int64)]
dst = np.where(same, inside, rng.integers(0, n, e))
keep = src != dst
edge_index = to_undirected(np.stack([src[keep], dst[keep]]), num_nodes=n)
x = (np.eye(communities)[group] + 0.5 * rng.standard_normal((n, communities))).astype(np.float32)
data = Data(x=x, edge_index=edge_index)

split = RandomLinkSplit(
    num_val=0.1, num_test=0.1, is_undirected=True, add_negative_train_samples=False, seed=0
)
train, val, test = split(data)
pairs = {name: set(zip(*g.edge_index.tolist())) for name, g in
         (("train", train), ("val", val), ("test", test))}  # fmt: skip
assert pairs["train"] <= pairs["val"] <= pairs["test"]
print(
    f"{edge_index.shape[1]} edges -> message passing: train {train.edge_index.shape[1]}, "
    f"val {val.edge_index.shape[1]}, test {test.edge_index.shape[1]}; supervision: train "
    f"{train.edge_label_index.shape[1]}, val {val.edge_label_index.shape[1]}, "
    f"test {test.edge_label_index.shape[1]} (half of val / test are negatives)"
)

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


# training mini-batches: the train split's supervision edges plus one negative each
loader = LinkNeighborLoader(
    train, num_neighbors=[10, 10], edge_label_index=train.edge_label_index, batch_size=256,
    neg_sampling=dict(mode="binary", amount=1), shuffle=True, seed=0,
)  # fmt: skip
scores, labels = [], []
for batch in loader:
    h = embed(batch.x, batch.edge_index)
    scores.append(cosine(h, batch.edge_label_index))
    labels.append(batch.edge_label)
train_auc = auc(np.concatenate(scores), np.concatenate(labels))
val_auc = auc(cosine(embed(val.x, val.edge_index), val.edge_label_index), val.edge_label)
test_auc = auc(cosine(embed(test.x, test.edge_index), test.edge_label_index), test.edge_label)
print(f"AUC: train batches {train_auc:.3f}, validation {val_auc:.3f}, test {test_auc:.3f}")
assert min(train_auc, val_auc, test_auc) > 0.7, (train_auc, val_auc, test_auc)
