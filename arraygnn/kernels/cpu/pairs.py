"""CPU parallel-edge grouping for ``to_simple``: the runs of equal ``(src, dst)`` pairs.

``to_simple`` lists the distinct pairs sorted by ``(src, dst)``, as DGL's C++
``COOToSimple`` (``COOSort``, then coalesce). The edges come sorted by two stable counting
sorts (``arraygnn.graph.query.pair_order``: by destination, then by source, on int32 ids
when they fit), so parallel edges are adjacent and in edge-id order; one pass over that
order numbers the runs 0, 1, 2, ..., writes each edge's run (DGL's write-back mapping),
each run's first edge and its size. O(E), serial; the random reads of the ids are
prefetched a few edges ahead. This replaced a kernel that numbered the pairs by first
appearance, which then had to be sorted a second time (1M edges over 100k nodes on the
2-core box, best of 25: 78 -> 48 ms for the grouping; see benchmarks/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

from numba import njit

from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["pair_runs"]


@njit(cache=True, nogil=True)
def _pair_runs(order, src, dst, mapping, first, counts):  # pragma: no cover
    num = order.shape[0]
    ahead = PREFETCH_DISTANCE
    k = -1
    last_u = 0
    last_v = 0
    for j in range(num):
        if j + ahead < num:  # the edge a few places on: its ids and mapping entry
            later = order[j + ahead]
            prefetch_row(src, later)
            prefetch_row(dst, later)
            prefetch_row(mapping, later)
        e = order[j]
        u = src[e]
        v = dst[e]
        if k < 0 or u != last_u or v != last_v:
            k += 1
            first[k] = e
            counts[k] = 0
            last_u = u
            last_v = v
        counts[k] += 1
        mapping[e] = k
    return k + 1


def pair_runs(order: Any, src: Any, dst: Any, mapping: Any, first: Any, counts: Any) -> int:
    """See ``arraygnn.kernels`` (``pairs.pair_runs``); returns the number of pairs."""
    return int(_pair_runs(order, src, dst, mapping, first, counts))
