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

Weighted sampling (:func:`weighted_pick`) keeps each row's ``picks`` smallest exponential
keys in a bounded heap instead of sorting every slot, with its random numbers drawn by the
caller's NumPy generator, so it matches the array code bit for bit.
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
    "weighted_pick",
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


@njit(cache=True, nogil=True, inline="always")
def _before(key, u, a, b, pyg):  # pragma: no cover - compiled
    """Slot ``a`` is drawn before slot ``b``: the smaller key, then (``pyg``) the smaller
    ``u``, then the earlier slot (the array code's stable ``lexsort``)."""
    if key[a] != key[b]:
        return key[a] < key[b]
    if pyg and u[a] != u[b]:
        return u[a] < u[b]
    return a < b


@njit(cache=True, nogil=True)
def _sift_down(heap, n, key, u, pyg):  # pragma: no cover - compiled
    """Restore the max-heap ``heap[:n]`` (ordered by :func:`_before`) below its root."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and _before(key, u, heap[c], heap[c + 1], pyg):
            c += 1
        if not _before(key, u, heap[i], heap[c], pyg):
            return
        heap[i], heap[c] = heap[c], heap[i]
        i = c


@njit(cache=True, nogil=True)
def _pick_keys(deg, ids, wt, u, neg_log_u, fanout, pyg, picks, out):  # pragma: no cover
    n_slots = ids.shape[0]
    key = np.empty(n_slots, dtype=np.float64)
    for i in range(n_slots):
        key[i] = neg_log_u[i] / wt[i] if wt[i] > 0 else np.inf
    heap = np.empty(0, dtype=np.int64)
    start = 0
    pos = 0
    for r in range(deg.shape[0]):
        d = deg[r]
        p = picks[r]
        if pyg and d <= fanout:  # taken whole, in slot order
            for j in range(d):
                out[pos + j] = ids[start + j]
        elif p > 0:
            if heap.shape[0] < p:
                heap = np.empty(p, dtype=np.int64)
            n = 0
            for i in range(start, start + d):
                if n < p:  # push, sift up
                    c = n
                    heap[c] = i
                    n += 1
                    while c > 0:
                        par = (c - 1) // 2
                        if not _before(key, u, heap[par], heap[c], pyg):
                            break
                        heap[par], heap[c] = heap[c], heap[par]
                        c = par
                elif _before(key, u, i, heap[0], pyg):  # beats the p-th: replace it
                    heap[0] = i
                    _sift_down(heap, n, key, u, pyg)
            while n > 0:  # the latest draw first, written from the back
                n -= 1
                out[pos + n] = ids[heap[0]]
                heap[0] = heap[n]
                _sift_down(heap, n, key, u, pyg)
        start += d
        pos += p


@njit(cache=True, nogil=True)
def _pick_replace(deg, ids, wt, r01, picks, out):  # pragma: no cover - compiled
    c0 = np.empty(ids.shape[0] + 1, dtype=np.float64)  # the array code's global prefix sum
    c0[0] = 0.0
    start = 0
    for r in range(deg.shape[0]):
        d = deg[r]
        total = 0.0
        for i in range(start, start + d):
            total += wt[i]
        for i in range(start, start + d):
            c0[i + 1] = c0[i] + (wt[i] / total if wt[i] > 0 else wt[i] / 1.0)
        start += d
    start = 0
    pos = 0
    for r in range(deg.shape[0]):
        d = deg[r]
        base = c0[start]
        top = c0[start + d]
        lo = start  # the row's last positive slot: its first prefix value >= top
        hi = start + d
        while lo < hi:
            mid = (lo + hi) // 2
            if c0[mid + 1] < top:
                lo = mid + 1
            else:
                hi = mid
        last = lo
        for k in range(picks[r]):
            x = base + r01[pos + k] * (top - base)
            lo = start  # the first slot whose prefix value is > x
            hi = start + d
            while lo < hi:
                mid = (lo + hi) // 2
                if c0[mid + 1] <= x:
                    lo = mid + 1
                else:
                    hi = mid
            out[pos + k] = ids[max(min(lo, last), start)]
        start += d
        pos += picks[r]


def weighted_pick(
    deg: Any, ids: Any, wt: Any, fanout: int, replace: bool, pyg: bool, picks: Any, rng: Any
) -> np.ndarray:
    """The entries of ``ids`` (the slots of some rows, grouped by row: ``deg`` per row,
    ``wt`` each slot's weight) that ``arraygnn.sampling._weighted_pick`` draws, grouped by
    row in draw order (``picks`` per row), bit for bit: the random numbers are drawn from
    ``rng`` in bulk exactly as there (one ``rng.random`` of a number per slot without
    replacement, of one per draw with it), and ``log`` is NumPy's (Numba's may differ in
    the last bit). Per row ``O(deg log picks)`` (a bounded heap) instead of a sort of every
    slot; with replacement a prefix sum per row and a binary search per draw."""
    wt = np.asarray(wt, dtype=np.float64)
    out = np.empty(int(picks.sum()), dtype=ids.dtype)
    if replace:
        _pick_replace(deg, ids, wt, rng.random(out.shape[0]), picks, out)
        return out
    u = 1.0 - rng.random(ids.shape[0])  # (0, 1]
    _pick_keys(deg, ids, wt, u, -np.log(u), int(fanout), bool(pyg), picks, out)
    return out
