"""CPU neighbour sampling without replacement: ``k`` of each seed's ``d`` in-edges in
``O(k)`` expected work per seed (Floyd's algorithm), not ``O(d log d)``.

A power-law graph's hubs have tens of thousands of in-edges, and a hop's frontier reaches
them first: ranking every in-edge of the frontier by a random key (the plain-array way)
sorts millions of keys per batch to keep a few thousand. Here a seed with ``d <= k`` keeps
all its edges; otherwise Floyd's algorithm draws ``k`` distinct slots of ``[0, d)``
uniformly (each ``k``-subset equally likely), checking duplicates against the ``k`` slots
drawn so far; fan-outs above :data:`FLOYD_MAX` shuffle the first ``k`` of the seed's slots
instead (partial Fisher-Yates). Serial (the work is the size of the sample); the random
stream is Numba's generator seeded by the caller, so the same seed gives the same sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = [
    "sample_slots",
    "sample_without_replacement",
    "number_new_nodes",
    "induced_in_edges",
    "FLOYD_MAX",
]

#: fan-outs above this use a partial Fisher-Yates shuffle of the seed's slots (O(d) memory
#: and work) instead of Floyd's duplicate checks (O(k^2))
FLOYD_MAX = 64


@njit(cache=True, nogil=True)
def _sample(indptr, seeds, fanout, seed, out):  # pragma: no cover - compiled
    np.random.seed(seed)
    pos = 0
    for i in range(seeds.shape[0]):
        start = indptr[seeds[i]]
        d = indptr[seeds[i] + 1] - start
        if d <= fanout:
            for j in range(d):
                out[pos + j] = start + j
            pos += d
            continue
        if fanout > FLOYD_MAX:  # a partial Fisher-Yates shuffle of the slots, O(d)
            slots = np.arange(d)
            for j in range(fanout):
                t = np.random.randint(j, d)
                slots[j], slots[t] = slots[t], slots[j]
                out[pos + j] = start + slots[j]
            pos += fanout
            continue
        first = pos
        for j in range(d - fanout, d):  # Floyd: j + 1 candidates, one new slot per step
            t = np.random.randint(0, j + 1)
            for q in range(first, pos):
                if out[q] == start + t:
                    t = j  # t was drawn before: take j, which cannot have been
                    break
            out[pos] = start + t
            pos += 1
    return pos


def sample_slots(indptr: Any, seeds: Any, fanout: int, seed: int) -> tuple[np.ndarray, Any]:
    """``(slots, counts)``: CSR slots of ``min(fanout, deg)`` uniformly drawn in-edges per
    seed (seed ``s``'s slots are ``indptr[s]:indptr[s + 1]``), grouped by seed in the order
    of ``seeds`` (a seed taken whole in slot order, a sampled one in draw order: pyg-lib's
    order), and how many each seed got. ``seed`` seeds Numba's generator, which keeps 32
    bits of it."""
    starts = indptr[seeds]
    counts = np.minimum(indptr[seeds + 1] - starts, fanout)
    out = np.empty(int(counts.sum()), dtype=indptr.dtype)
    filled = _sample(indptr, seeds, int(fanout), int(seed), out)
    assert filled == out.shape[0]
    return out, counts


def sample_without_replacement(
    indptr: Any, perm: Any, seeds: Any, fanout: int, seed: int
) -> np.ndarray:
    """Edge ids (sorted) of ``min(fanout, deg)`` uniformly drawn in-edges per seed: seed
    ``s``'s in-edges are ``perm[indptr[s]:indptr[s + 1]]`` (a destination CSR); the draws
    of :func:`sample_slots`. ``seed`` seeds Numba's generator, which keeps 32 bits of it."""
    out = perm[sample_slots(indptr, seeds, fanout, seed)[0]]
    out.sort()
    return out


@njit(cache=True, nogil=True)
def _number_new(ids, local, count, fresh):  # pragma: no cover - compiled
    k = 0
    for i in range(ids.shape[0]):
        v = ids[i]
        if local[v] < 0:
            local[v] = count + k
            fresh[k] = v
            k += 1
    return k


def number_new_nodes(ids: np.ndarray, local: np.ndarray, count: int) -> np.ndarray:
    """The values of ``ids`` not yet numbered in ``local`` (``local[v] < 0``), each once
    in order of first appearance; numbers them ``count, count + 1, ...`` in ``local`` (in
    place) in one pass, instead of a sort-based ``unique``. ``ids`` must be valid indices
    of ``local`` (the sampler's own output)."""
    fresh = np.empty(ids.shape[0], dtype=np.int64)
    k = _number_new(ids, local, int(count), fresh)
    return fresh[:k].astype(ids.dtype, copy=False)


@njit(cache=True, nogil=True)
def _induced(indptr, indices, perm, dst_ids, src_local, row, col, eid):  # pragma: no cover
    k = 0
    for i in range(dst_ids.shape[0]):
        w = dst_ids[i]
        for j in range(indptr[w], indptr[w + 1]):
            p = src_local[indices[j]]
            if p >= 0:
                row[k] = p
                col[k] = i
                eid[k] = perm[j]
                k += 1
    return k


def induced_in_edges(
    indptr: Any, indices: Any, perm: Any, dst_ids: Any, src_local: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row, col, e_id)`` (int64) of the in-edges (a destination CSR: ``indptr`` /
    ``indices`` / ``perm``) of each node of ``dst_ids`` (``col``: its position there) whose
    source ``s`` has ``src_local[s] >= 0`` (``row``), grouped by position, in slot order
    within: one pass over the slots instead of an expand, gathers and three compressions
    (``dst_ids`` must be valid rows of the CSR, ``indices`` valid for ``src_local``)."""
    total = int((indptr[dst_ids + 1] - indptr[dst_ids]).sum()) if dst_ids.shape[0] else 0
    row = np.empty(total, dtype=np.int64)
    col = np.empty(total, dtype=np.int64)
    eid = np.empty(total, dtype=np.int64)
    k = _induced(indptr, indices, perm, dst_ids, src_local, row, col, eid)
    # (a batch keeps e_id: without the unused tail; row / col are stacked, so copied)
    return row[:k], col[:k], eid[:k].copy() if 2 * k < total else eid[:k]
