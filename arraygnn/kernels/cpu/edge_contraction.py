"""CPU greedy edge contraction (PyG's ``EdgePooling._merge_edges``) and the descending sort
that orders it exactly as ``torch.argsort(score, descending=True)`` does on the CPU.

PyG visits the edges by ``torch.argsort(edge_score, descending=True)``, an *unstable* sort:
on the CPU PyTorch runs ``std::sort`` (libstdc++'s introsort: median-of-three quicksort,
heapsort past ``2 floor(log2 n)`` levels, a final insertion sort over runs of 16) on
``(value, index)`` pairs with the comparator ``isnan(a) && !isnan(b) || a > b``. Ties
therefore come out in an order that is neither stable nor reversed for more than 16
edges; :func:`torch_sort_desc` replays that algorithm step by step, so tied scores give
PyG's merges. The contraction is then PyG's loop: an edge is taken when neither end is
taken yet (a self-loop takes its one node); the remaining nodes keep their order.
Serial by nature (each choice depends on the earlier ones), O(E log E + N).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["torch_sort_desc", "greedy_contract"]

_THRESHOLD = 16  # libstdc++'s _S_threshold


@njit(cache=True, nogil=True, inline="always")
def _before(a, b):  # pragma: no cover - compiled
    """PyTorch's ``KeyValueCompDesc``: NaN first, then larger first."""
    return (np.isnan(a) and not np.isnan(b)) or a > b


@njit(cache=True, nogil=True)
def _adjust_heap(key, idx, first, hole, length, vkey, vidx):  # pragma: no cover
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(key[first + child], key[first + child - 1]):
            child -= 1
        key[first + hole] = key[first + child]
        idx[first + hole] = idx[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        key[first + hole] = key[first + child - 1]
        idx[first + hole] = idx[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(key[first + parent], vkey):
        key[first + hole] = key[first + parent]
        idx[first + hole] = idx[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    key[first + hole] = vkey
    idx[first + hole] = vidx


@njit(cache=True, nogil=True)
def _heap_sort(key, idx, first, last):  # pragma: no cover
    """``std::__partial_sort(first, last, last)``: make_heap, then sort_heap."""
    length = last - first
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(key, idx, first, parent, length, key[first + parent], idx[first + parent])
            if parent == 0:
                break
            parent -= 1
    end = last
    while end - first > 1:
        end -= 1
        vkey, vidx = key[end], idx[end]
        key[end], idx[end] = key[first], idx[first]
        _adjust_heap(key, idx, first, 0, end - first, vkey, vidx)


@njit(cache=True, nogil=True, inline="always")
def _swap(key, idx, i, j):  # pragma: no cover
    key[i], key[j] = key[j], key[i]
    idx[i], idx[j] = idx[j], idx[i]


@njit(cache=True, nogil=True)
def _partition_pivot(key, idx, first, last):  # pragma: no cover
    """``std::__unguarded_partition_pivot``: median of three moved to ``first``."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if _before(key[a], key[b]):
        if _before(key[b], key[c]):
            _swap(key, idx, first, b)
        elif _before(key[a], key[c]):
            _swap(key, idx, first, c)
        else:
            _swap(key, idx, first, a)
    elif _before(key[a], key[c]):
        _swap(key, idx, first, a)
    elif _before(key[b], key[c]):
        _swap(key, idx, first, c)
    else:
        _swap(key, idx, first, b)
    lo, hi = first + 1, last
    pivot = key[first]
    while True:
        while _before(key[lo], pivot):
            lo += 1
        hi -= 1
        while _before(pivot, key[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        _swap(key, idx, lo, hi)
        lo += 1


@njit(cache=True, nogil=True)
def _linear_insert(key, idx, last):  # pragma: no cover
    vkey, vidx = key[last], idx[last]
    nxt = last - 1
    while _before(vkey, key[nxt]):
        key[last], idx[last] = key[nxt], idx[nxt]
        last = nxt
        nxt -= 1
    key[last], idx[last] = vkey, vidx


@njit(cache=True, nogil=True)
def _insertion_sort(key, idx, first, last):  # pragma: no cover
    for i in range(first + 1, last):
        if _before(key[i], key[first]):
            vkey, vidx = key[i], idx[i]
            for j in range(i, first, -1):
                key[j], idx[j] = key[j - 1], idx[j - 1]
            key[first], idx[first] = vkey, vidx
        else:
            _linear_insert(key, idx, i)


@njit(cache=True, nogil=True)
def torch_sort_desc(values):  # pragma: no cover - compiled
    """``torch.argsort(values, descending=True)`` on the CPU (libstdc++'s ``std::sort``),
    ties in the same order; int64 positions."""
    n = values.shape[0]
    key = values.copy()
    idx = np.arange(n)
    if n < 2:
        return idx
    depth = 0
    m = n
    while m > 1:
        m >>= 1
        depth += 1
    # introsort loop with an explicit stack (ranges are disjoint: order does not matter)
    stack = np.empty((2 * depth + 64, 3), dtype=np.int64)
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, n, 2 * depth
    top = 1
    while top > 0:
        top -= 1
        first, last, limit = stack[top, 0], stack[top, 1], stack[top, 2]
        while last - first > _THRESHOLD:
            if limit == 0:
                _heap_sort(key, idx, first, last)
                break
            limit -= 1
            cut = _partition_pivot(key, idx, first, last)
            if top == stack.shape[0]:  # pragma: no cover - bounded by the depth limit
                grown = np.empty((2 * stack.shape[0], 3), dtype=np.int64)
                grown[:top] = stack[:top]
                stack = grown
            stack[top, 0], stack[top, 1], stack[top, 2] = cut, last, limit
            top += 1
            last = cut
    if n > _THRESHOLD:
        _insertion_sort(key, idx, 0, _THRESHOLD)
        for i in range(_THRESHOLD, n):
            _linear_insert(key, idx, i)
    else:
        _insertion_sort(key, idx, 0, n)
    return idx


@njit(cache=True, nogil=True)
def greedy_contract(order, src, dst, num_nodes, cluster, chosen):  # pragma: no cover
    """Visit the edges in ``order``; take one when both ends are free. Writes each node's
    cluster id into ``cluster`` (merged pairs first, in visiting order, then the free nodes
    in node order) and the taken edges into ``chosen``; returns how many were taken."""
    free = np.ones(num_nodes, dtype=np.bool_)
    taken = 0
    for k in range(order.shape[0]):
        e = order[k]
        s = src[e]
        if not free[s]:
            continue
        t = dst[e]
        if not free[t]:
            continue
        chosen[taken] = e
        cluster[s] = taken
        free[s] = False
        cluster[t] = taken
        free[t] = False
        taken += 1
    nxt = taken
    for v in range(num_nodes):
        if free[v]:
            cluster[v] = nxt
            nxt += 1
    return taken
