"""CPU farthest point sampling (torch_cluster's ``fps_cpu``), one example per worker.

Example ``b`` holds points ``ptr[b]:ptr[b + 1]`` of ``src`` and takes
``out_ptr[b + 1] - out_ptr[b]`` picks: the first is its point ``start[b]``; every next
one is the point whose squared distance to the picks so far (the minimum over them) is
largest, the first such point on a tie (``torch.argmax``). One pass per pick updates the
distances to the last pick and finds the next maximum together: ``O(n * picks * D)`` per
example, ``O(n)`` scratch. Distances are summed over the coordinates in order, in the
points' dtype: torch_cluster's ``(x - x[i]).pow(2).sum(1)`` bit for bit for up to 4
coordinates (torch sums longer rows in a blocked, vectorised order). Compiled on first
use (``cache=True``); examples run in parallel (``prange``), deterministic.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["fps_csr"]


@njit(cache=True, nogil=True, parallel=True)
def fps_csr(src, ptr, out_ptr, start, out):  # pragma: no cover - compiled
    num_examples = ptr.shape[0] - 1
    dim = src.shape[1]
    for b in prange(num_examples):
        lo = ptr[b]
        n = ptr[b + 1] - lo
        first = out_ptr[b]
        picks = out_ptr[b + 1] - first
        if picks == 0 or n == 0:
            continue
        dist = np.empty(n, dtype=src.dtype)
        p = lo + start[b]
        best = 0
        for j in range(n):  # distances to the start, and their first maximum
            d = src[lo + j, 0] - src[p, 0]
            acc = d * d
            for c in range(1, dim):
                d = src[lo + j, c] - src[p, c]
                acc += d * d
            dist[j] = acc
            if acc > dist[best]:
                best = j
        out[first] = p
        for i in range(1, picks):
            out[first + i] = lo + best
            if i + 1 == picks:
                break
            p = lo + best
            best = 0
            for j in range(n):  # min with the distances to the new pick; next maximum
                d = src[lo + j, 0] - src[p, 0]
                acc = d * d
                for c in range(1, dim):
                    d = src[lo + j, c] - src[p, c]
                    acc += d * d
                if acc < dist[j]:
                    dist[j] = acc
                if dist[j] > dist[best]:
                    best = j
