"""``ClusterLoader``: PyG's Cluster-GCN mini-batches: ``batch_size`` parts of a
:class:`~arraygnn.cluster_data.ClusterData` per batch, with the edges among them.

A batch of parts ``[p0, p1, ...]`` (in the order drawn) is PyG's ``_collate``: the parts'
nodes back to back (each part's in its permuted order), the edges leaving their rows in
the sorted order of the partition, part after part, of which those whose other end is in
one of the batch's parts are kept and relabelled; node arrays are taken at the nodes,
edge arrays at the kept edges, the rest kept. ``shuffle=True`` draws a new order of the
parts every epoch (``seed=``, a NumPy generator: the same epochs for the same seed, not
torch's draws); ``drop_last``, ``prefetch``, ``sampler`` and ``batch_sampler`` are
:class:`~arraygnn.loader.DataLoader`'s.

RULE: over one epoch (no sampler) every node is in exactly one batch; an edge is in a
      batch exactly when both its ends are, whatever ``keep_inter_cluster_edges`` (it only
      changes ``cluster_data[i]``, as PyG).
RULE: a batch's parts are distinct (a repeated part is a ``ValueError``); ``edge_index``
      keeps the graph's dtype. Vectorised: a few array passes over the batch's edges.

>>> import numpy as np
>>> from arraygnn.cluster_data import ClusterData
>>> from arraygnn.data import Data
>>> ring = np.array([[0, 1, 2, 3, 1, 2, 3, 0], [1, 2, 3, 0, 0, 1, 2, 3]])
>>> cd = ClusterData(Data(num_nodes=4, edge_index=ring), 2, partition=np.array([0, 0, 1, 1]))
>>> [b.edge_index.tolist() for b in ClusterLoader(cd, batch_size=1)]
[[[0, 1], [1, 0]], [[0, 1], [1, 0]]]
>>> batch = next(iter(ClusterLoader(cd, batch_size=2)))
>>> batch.num_nodes, batch.num_edges
(4, 8)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn.cluster_data import ClusterData, _check_part_ids
from arraygnn.loader import DataLoader

__all__ = ["ClusterLoader"]


class ClusterLoader(DataLoader):
    """PyG's ``ClusterLoader(cluster_data, **kwargs)``: batches of ``batch_size`` parts.

    Args:
        cluster_data: a :class:`~arraygnn.cluster_data.ClusterData`.
        batch_size: parts per batch (>= 1).
        shuffle / drop_last / seed / prefetch / sampler / batch_sampler: as
            :class:`~arraygnn.loader.DataLoader` (positions are part ids).
        **kwargs: torch ``DataLoader`` keywords (``num_workers``, ``generator``, ...), as
            :class:`~arraygnn.loader.DataLoader` takes them.
    """

    def __init__(
        self,
        cluster_data: ClusterData,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        *,
        seed: int | None = None,
        prefetch: int = 0,
        sampler: Iterable[Any] | None = None,
        batch_sampler: Iterable[Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(cluster_data, ClusterData):
            raise TypeError(
                f"ClusterLoader: cluster_data must be a ClusterData, got "
                f"{type(cluster_data).__name__}"
            )
        self.cluster_data = cluster_data
        super().__init__(
            range(len(cluster_data)),
            batch_size=batch_size,
            shuffle=shuffle,
            drop_last=drop_last,
            seed=seed,
            prefetch=prefetch,
            **kwargs,
            sampler=sampler,
            batch_sampler=batch_sampler,
        )
        p = cluster_data.partition
        # the part of every (permuted) node, once: maps a batch's far ends
        self._part_of = np.repeat(np.arange(len(cluster_data), dtype=np.int64), np.diff(p.partptr))

    def _make(self, idx: Any) -> Any:  # type: ignore[override]
        return self._collate(idx)

    def _collate(self, batch: Any) -> Any:
        """PyG's ``_collate`` of the part ids ``batch``."""
        from arraygnn.dataset import _exclusive_cumsum, _ranges

        num = len(self.cluster_data)
        parts, seen = _check_part_ids("ClusterLoader", "part ids", batch, num)
        p = self.cluster_data.partition
        start, end = p.partptr[parts], p.partptr[parts + 1]
        sizes = end - start
        nodes = _ranges(start, sizes)
        counts = p.indptr[nodes + 1] - p.indptr[nodes]
        epos = _ranges(p.indptr[start], p.indptr[end] - p.indptr[start])
        idt = p.index.dtype
        major = np.repeat(np.arange(nodes.shape[0], dtype=idt), counts)
        minor = p.index[epos]
        far = self._part_of[minor]
        keep = np.flatnonzero(seen[far])
        shift = np.zeros(num, dtype=np.int64)
        shift[parts] = _exclusive_cumsum(sizes) - start  # global -> batch position
        minor = (minor[keep].astype(np.int64) + shift[far[keep]]).astype(idt, copy=False)
        major = major[keep]
        pair = (major, minor) if p.sparse_format == "csr" else (minor, major)
        return self.cluster_data._part_data(nodes, epos[keep], np.stack(pair))

    def __repr__(self) -> str:
        return f"ClusterLoader({self.cluster_data!r}, batch_size={self.batch_size})"
