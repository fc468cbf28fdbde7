"""PyG's ``KarateClub``: Zachary's karate club, 34 members and their 78 friendships.

The graph is fixed (shipped here, no download): ``edge_index`` [2, 156] int64 holding both
directions of each friendship, sorted by ``(row, col)``; ``x`` the [34, 34] float32 identity
(one feature per member); ``y`` [34] int64, PyG's four communities (from modularity-based
clustering, as in Kipf and Welling's GCN paper); ``train_mask`` [34] bool, the first member
of each community.

>>> ds = KarateClub()
>>> ds, ds[0], ds.num_classes
(KarateClub(), Data(x=[34, 34], edge_index=[2, 156], y=[34], train_mask=[34]), 4)
>>> ds[0].train_mask.nonzero()[0].tolist()
[0, 4, 8, 24]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.data import Data
from arraygnn.datasets.in_memory import InMemoryDataset

__all__ = ["KarateClub"]

# The friends of member i with a larger id, for i = 0 .. 33 (Zachary, 1977).
_HIGHER_FRIENDS = (
    "1 2 3 4 5 6 7 8 10 11 12 13 17 19 21 31",
    "2 3 7 13 17 19 21 30",
    "3 7 8 9 13 27 28 32",
    "7 12 13",
    "6 10",
    "6 10 16",
    "16",
    "",
    "30 32 33",
    "33",
    "",
    "",
    "",
    "33",
    "32 33",
    "32 33",
    "",
    "",
    "32 33",
    "33",
    "32 33",
    "",
    "32 33",
    "25 27 29 32 33",
    "25 27 31",
    "31",
    "29 33",
    "33",
    "31 33",
    "32 33",
    "32 33",
    "32 33",
    "33",
    "",
)
# PyG's community of each member.
_COMMUNITIES = "1111333101311100310101002200200200"


def karate_club_edges() -> np.ndarray:
    """The 156 directed edges of the karate club, [2, 156] int64 sorted by (row, col)."""
    src, dst = [], []
    for i, friends in enumerate(_HIGHER_FRIENDS):
        for j in friends.split():
            src.append(i)
            dst.append(int(j))
    row = np.array(src + dst, dtype=np.int64)
    col = np.array(dst + src, dtype=np.int64)
    order = np.lexsort((col, row))
    return np.stack([row[order], col[order]])


class KarateClub(InMemoryDataset):
    """Zachary's karate club network, as PyG's ``KarateClub`` (34 nodes, 156 directed
    edges, 34 features, 4 classes, one training node per class)."""

    def __init__(self, transform: Callable[[Any], Any] | None = None) -> None:
        super().__init__(None, transform)
        y = np.frombuffer(_COMMUNITIES.encode(), dtype=np.uint8).astype(np.int64) - ord("0")
        train_mask = np.zeros(y.shape[0], dtype=bool)
        for c in range(int(y.max()) + 1):
            train_mask[np.flatnonzero(y == c)[0]] = True
        data = Data(
            x=np.eye(y.shape[0], dtype=np.float32),
            edge_index=karate_club_edges(),
            y=y,
            train_mask=train_mask,
        )
        self.data, self.slices = self.collate([data])
