"""CPU parallel-edge grouping for ``to_simple``: each edge's pair id, by first appearance.

Over the destination-sorted CSR (a stable counting sort, so a row's edges are in edge
order), one pass marks every edge with the first edge of its ``(src, dst)`` pair: a row's
sources are looked up in two ``num_src``-long arrays (the row that last saw the source
and at which edge), so no second sort by source is needed. A second pass in edge order
turns first edges into pair ids 0, 1, 2, ... by first appearance and counts the edges of
each pair. O(E + N), serial; the random reads are prefetched a few edges ahead (20-30 %
on the 2-core box). Measured there, 200k nodes / 2M edges: see benchmarks/RESULTS.md,
DGL-face transforms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["pair_mapping"]


@njit(cache=True, nogil=True)
def _pair_mapping(indptr, perm, src, num_src, mapping, first, counts):  # pragma: no cover
    rows = indptr.shape[0] - 1
    num = perm.shape[0]
    ahead = PREFETCH_DISTANCE
    seen_row = np.full(num_src, -1, dtype=np.int64)
    seen_edge = np.empty(num_src, dtype=np.int64)
    for v in range(rows):
        for j in range(indptr[v], indptr[v + 1]):
            if j + ahead < num:  # the edge a few slots on: its source and mapping entry
                later = perm[j + ahead]
                prefetch_row(src, later)
                prefetch_row(mapping, later)
            e = perm[j]
            u = src[e]
            if seen_row[u] == v:
                mapping[e] = seen_edge[u]
            else:
                seen_row[u] = v
                seen_edge[u] = e
                mapping[e] = e
    k = 0
    for e in range(num):
        if e + ahead < num:
            prefetch_row(mapping, mapping[e + ahead])  # that edge's first edge
        f = mapping[e]
        if f == e:
            mapping[e] = k
            first[k] = e
            counts[k] = 1
            k += 1
        else:  # f < e: the row lists its edges in edge order, so f was numbered already
            m = mapping[f]
            mapping[e] = m
            counts[m] += 1
    return k


def pair_mapping(
    indptr: Any, perm: Any, src: Any, num_src: int, mapping: Any, first: Any, counts: Any
) -> int:
    """See ``arraygnn.kernels`` (``pairs.pair_mapping``); returns the number of pairs."""
    return int(_pair_mapping(indptr, perm, src, num_src, mapping, first, counts))
