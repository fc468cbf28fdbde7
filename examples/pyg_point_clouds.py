"""Point clouds the PyG way on arrays: ``Data(pos=...)``, transforms, batching and a small
PointNet++-style classifier (set abstraction = farthest point sampling + radius grouping +
``PointNetConv``, then a global max pool), with no deep-learning framework.

1. Sample points on the surfaces of a few random boxes and spheres: each cloud is a
   ``Data(pos=..., y=...)`` (``num_nodes`` comes from ``pos``, as PyG's).
2. Normalise them and build k-NN graphs with ``arraygnn.transforms`` (``Compose``,
   ``NormalizeScale``, ``KNNGraph``).
3. Batch them with ``DataLoader`` and run the classifier on each batch.
4. Check that batching changes nothing: every cloud's scores equal those of the same cloud
   run alone (``fps`` with ``random_start=False`` and ``radius`` never mix graphs).

Weights are random here; a model trained in PyG converts with ``arraygnn.nn.from_pyg``
(``PointNetConv``, ``MLP``, ``Linear``: see docs/layers.md).
"""

from __future__ import annotations

import numpy as np

import arraygnn.nn as nn
import arraygnn.transforms as T
from arraygnn import Batch, Data
from arraygnn.loader import DataLoader


def sample_cloud(rng: np.random.Generator, label: int, n: int) -> Data:
    """``n`` points on a sphere (label 0) or a box surface (label 1), shifted and scaled."""
    v = rng.normal(size=(n, 3))
    if label == 0:
        pos = v / np.linalg.norm(v, axis=1, keepdims=True)
    else:  # push each point onto the face of the cube it points to
        pos = v / np.abs(v).max(axis=1, keepdims=True)
    pos = pos * rng.uniform(0.5, 3.0) + rng.normal(size=3)
    return Data(pos=pos.astype(np.float32), y=np.array([label]))


class PointNet2:
    """Two set-abstraction levels and a global one, then a classifier head."""

    def __init__(self, num_classes: int, rng: np.random.Generator) -> None:
        # local_nn([x_j, pos_j - pos_i]), max over the neighbours. add_self_loops=False as in
        # PyG's pointnet2 example: in the bipartite form PyG's self-loops join sampled
        # point i to input point i, which is another point (and, batched, another cloud).
        self.sa1 = nn.PointNetConv(nn.MLP([3, 16, 32], rng=rng), add_self_loops=False)
        self.sa2 = nn.PointNetConv(nn.MLP([32 + 3, 32, 64], rng=rng), add_self_loops=False)
        self.sa3 = nn.MLP([64 + 3, 64, 128], rng=rng)
        self.head = nn.MLP([128, 64, num_classes], rng=rng)

    @staticmethod
    def set_abstraction(conv, ratio, r, x, pos, batch):
        idx = nn.fps(pos, batch, ratio=ratio, random_start=False)
        row, col = nn.radius(pos, pos[idx], r, batch, batch[idx], max_num_neighbors=32)
        x_dst = None if x is None else x[idx]
        out = conv((x, x_dst), (pos, pos[idx]), np.stack([col, row]))
        return out, pos[idx], batch[idx]

    def __call__(self, pos: np.ndarray, batch: np.ndarray) -> np.ndarray:
        x, pos, batch = self.set_abstraction(self.sa1, 0.5, 0.3, None, pos, batch)
        x, pos, batch = self.set_abstraction(self.sa2, 0.25, 0.6, x, pos, batch)
        h = nn.global_max_pool(self.sa3(np.concatenate([x, pos], axis=1)), batch)
        return self.head(h)


def main() -> None:
    rng = np.random.default_rng(0)
    transform = T.Compose([T.NormalizeScale(), T.KNNGraph(k=6)])
    clouds = [transform(sample_cloud(rng, i % 2, int(rng.integers(48, 80)))) for i in range(6)]
    first = clouds[0]
    print(f"one cloud: {first}, num_nodes={first.num_nodes}")
    assert first.num_nodes == first.pos.shape[0]
    assert np.abs(first.pos).max() <= 1.0 + 1e-6  # NormalizeScale: inside the unit ball

    model = PointNet2(num_classes=2, rng=np.random.default_rng(1))
    scores = []
    for batch in DataLoader(clouds, batch_size=4):
        print(f"batch: {batch}")
        assert batch.num_graphs == len(batch.y)
        scores.append(model(batch.pos, batch.batch))
    scores = np.concatenate(scores)
    print(f"scores: {scores.shape}, predicted {scores.argmax(1).tolist()} (random weights)")

    alone = np.concatenate(
        [model(c.pos, np.zeros(c.num_nodes, np.int64)) for c in clouds]
    )  # the same clouds, one at a time
    np.testing.assert_allclose(scores, alone, rtol=1e-5, atol=1e-6)
    back = Batch.from_data_list(clouds).to_data_list()
    assert all(np.array_equal(a.edge_index, b.edge_index) for a, b in zip(clouds, back))
    print("batched scores equal per-cloud scores; the batch splits back exactly")


if __name__ == "__main__":
    main()
