"""CPU random-walk kernels: metapath walks (uniform / weighted, with restarts) and node2vec.

Each walk owns a SplitMix64 stream seeded from ``(seed, walk index)``, so the walks run in
parallel (``prange``) and the same seed gives the same walks whatever the thread count.
The graph comes as out-edge CSRs (rows = source nodes) of the relations the metapath uses,
concatenated: relation ``r``'s row ``u`` spans ``indptr[row_base[r] + u]`` to
``indptr[row_base[r] + u + 1]`` of ``indices`` (destinations), ``eids`` (edge ids within
the relation) and ``cum`` (per-row inclusive prefix sums of the edge probabilities, used
where ``has_prob[r]``). A weighted draw is one uniform number and a binary search of the
row's prefix sums: ``O(log deg)`` per step.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["metapath_walks", "node2vec_walks", "row_prefix_sums", "sort_rows", "CHUNK"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2 ** -53


@njit(cache=True, inline="always")
def _mix(z):  # pragma: no cover - compiled
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def _uniform(state):  # pragma: no cover - compiled
    """(new state, a double in [0, 1)): one SplitMix64 step."""
    state = state + _GOLDEN
    return state, float(_mix(state) >> _S11) * _INV53


@njit(cache=True, inline="always")
def _randint(state, n):  # pragma: no cover - compiled
    state, u = _uniform(state)
    k = np.int64(u * n)
    return state, (k if k < n else n - 1)


@njit(cache=True, inline="always")
def _stream(seed, i):  # pragma: no cover - compiled
    return _mix(seed ^ _mix(np.uint64(i) * _GOLDEN + _GOLDEN))


@njit(cache=True, inline="always")
def _weighted(state, cum, a, b):  # pragma: no cover - compiled
    """(state, position in [a, b)) drawn with probability proportional to the row's
    weights (``cum`` holds their inclusive prefix sums); -1 when they sum to zero."""
    total = cum[b - 1]
    if not total > 0.0:
        return state, np.int64(-1)
    state, u = _uniform(state)
    x = u * total
    lo, hi = a, b  # the first j with cum[j] > x
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    j = lo if lo < b else b - 1
    while j > a and cum[j] == cum[j - 1]:  # rounding landed on a zero weight: step back
        j -= 1
    return state, np.int64(j)


@njit(cache=True, inline="always")
def _take(w, i, j, indices, eids, curr, traces, out_eids, want_eids):  # pragma: no cover
    """Step ``i`` of walk ``w`` along CSR slot ``j`` (``-1``: the walk stops here)."""
    if j < 0:
        curr[w] = -1
        traces[w, i + 1] = -1
        if want_eids:
            out_eids[w, i] = -1
    else:
        curr[w] = indices[j]
        traces[w, i + 1] = indices[j]
        if want_eids:
            out_eids[w, i] = eids[j]


#: walks per parallel chunk: each chunk advances its walks one step at a time
CHUNK = 1024


@njit(cache=True, parallel=True)
def metapath_walks(
    seeds, metapath, row_base, indptr, indices, eids, cum, has_prob, restart, seed, traces, out_eids
):  # pragma: no cover - compiled
    """Fill ``traces`` [n, L + 1] and ``out_eids`` [n, L] (``-1`` after a walk stops;
    ``out_eids`` of shape [0, 0]: not wanted, the edge ids are not read).

    Step ``i`` leaves the current node along relation ``metapath[i]``: no out-edge (or
    all of them weight 0) stops the walk; else an edge is drawn, and then with
    probability ``restart[i]`` the walk stops before taking it (DGL's order). Chunks of
    :data:`CHUNK` walks run in parallel; inside a chunk the walks advance one step at a
    time, so their independent memory reads overlap (one walk after another, each
    walk's chain of dependent reads is latency bound).
    """
    n = seeds.shape[0]
    length = metapath.shape[0]
    use_restart = restart.shape[0] > 0
    want_eids = out_eids.shape[0] > 0
    states = np.empty(n, dtype=np.uint64)
    curr = np.empty(n, dtype=np.int64)
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        lo = chunk * CHUNK
        hi = min(n, lo + CHUNK)
        for w in range(lo, hi):
            states[w] = _stream(seed, w)
            curr[w] = seeds[w]
            traces[w, 0] = seeds[w]
        for i in range(length):
            r = metapath[i]
            base = row_base[r]
            weighted = has_prob[r]
            for w in range(lo, hi):
                c = curr[w]
                j = np.int64(-1)
                if c >= 0:
                    a = indptr[base + c]
                    b = indptr[base + c + 1]
                    if b > a:
                        state = states[w]
                        if weighted:
                            state, j = _weighted(state, cum, a, b)
                        else:
                            state, k = _randint(state, b - a)
                            j = a + k
                        if j >= 0 and use_restart:
                            state, u = _uniform(state)
                            if u < restart[i]:
                                j = -1
                        states[w] = state
                _take(w, i, j, indices, eids, curr, traces, out_eids, want_eids)


@njit(cache=True, inline="always")
def _has_edge(indptr, sorted_indices, u, v):  # pragma: no cover - compiled
    lo, hi = indptr[u], indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[u + 1] and sorted_indices[lo] == v


@njit(cache=True, parallel=True)
def node2vec_walks(
    seeds,
    length,
    indptr,
    indices,
    sorted_indices,
    eids,
    cum,
    has_prob,
    p,
    q,
    seed,
    traces,
    out_eids,
):  # pragma: no cover - compiled
    """node2vec walks by rejection (DGL's sampler): draw an out-edge ``curr -> x`` (by
    weight, or uniformly), accept it with probability ``(1/p, 1, 1/q) / max(1/p, 1, 1/q)``
    for ``x`` equal to the previous node / ``x`` with an edge ``x -> previous`` / any
    other ``x``; the first step has no previous node and is a plain draw. Chunked and
    step-major, as :func:`metapath_walks`."""
    n = seeds.shape[0]
    top = max(max(1.0 / p, 1.0), 1.0 / q)
    acc0, acc1, acc2 = 1.0 / p / top, 1.0 / top, 1.0 / q / top
    want_eids = out_eids.shape[0] > 0
    states = np.empty(n, dtype=np.uint64)
    curr = np.empty(n, dtype=np.int64)
    prev = np.empty(n, dtype=np.int64)
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        lo = chunk * CHUNK
        hi = min(n, lo + CHUNK)
        for w in range(lo, hi):
            states[w] = _stream(seed, w)
            curr[w] = seeds[w]
            prev[w] = seeds[w]
            traces[w, 0] = seeds[w]
        for i in range(length):
            for w in range(lo, hi):
                c = curr[w]
                j = np.int64(-1)
                if c >= 0 and indptr[c + 1] > indptr[c]:
                    a = indptr[c]
                    b = indptr[c + 1]
                    state = states[w]
                    pv = prev[w]
                    while True:
                        if has_prob:
                            state, j = _weighted(state, cum, a, b)
                            if j < 0:
                                break
                        else:
                            state, k = _randint(state, b - a)
                            j = a + k
                        if i == 0:
                            break
                        state, r = _uniform(state)
                        x = indices[j]
                        if x == pv:
                            if r < acc0:
                                break
                        elif _has_edge(indptr, sorted_indices, x, pv):
                            if r < acc1:
                                break
                        elif r < acc2:
                            break
                    states[w] = state
                if j >= 0:
                    prev[w] = c
                _take(w, i, j, indices, eids, curr, traces, out_eids, want_eids)


@njit(cache=True, parallel=True)
def row_prefix_sums(indptr, perm, weights, out):  # pragma: no cover - compiled
    """``out[j]`` = the sum of the slot weights ``weights[perm]`` from the start of slot
    ``j``'s row up to ``j`` (float64)."""
    for u in prange(indptr.shape[0] - 1):
        acc = 0.0
        for j in range(indptr[u], indptr[u + 1]):
            acc += weights[perm[j]]
            out[j] = acc


@njit(cache=True, parallel=True)
def sort_rows(indptr, indices, out):  # pragma: no cover - compiled
    """``out`` = ``indices`` with each CSR row sorted (for the node2vec edge checks)."""
    for u in prange(indptr.shape[0] - 1):
        a, b = indptr[u], indptr[u + 1]
        if b > a:
            out[a:b] = np.sort(indices[a:b])
