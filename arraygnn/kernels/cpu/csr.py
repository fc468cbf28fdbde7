"""CPU CSR construction: a stable counting sort of edges by key (target), in O(E).

``indptr`` gets the exclusive prefix sum of the key counts; ``perm[j]`` is the edge in
slot ``j``; edges with equal keys keep their order (stable), so every reduction over the
CSR visits a row's edges in edge order. Two passes over the keys, no ``argsort``
(O(E log E)). Large inputs are sorted by all threads: each counts and then places one
contiguous chunk of the keys, chunk ``c``'s edges of a key going after chunk ``c - 1``'s,
which is exactly the serial order (the same ``perm``). Measured on the 2-core box, 10M
keys into 1M rows: 80-87 ms serial, 49-55 ms with two chunks (benchmarks/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK

__all__ = ["csr_from_keys", "small_csr"]


@njit(cache=True, nogil=True)
def _counting_sort(keys, indptr, perm):  # pragma: no cover - compiled
    rows = indptr.shape[0] - 1
    for r in range(rows + 1):
        indptr[r] = 0
    for e in range(keys.shape[0]):
        indptr[keys[e] + 1] += 1
    for r in range(rows):
        indptr[r + 1] += indptr[r]
    cursor = indptr[:-1].copy()
    for e in range(keys.shape[0]):
        k = keys[e]
        perm[cursor[k]] = e
        cursor[k] += 1


@njit(cache=True, nogil=True, parallel=True)
def _chunked_counting_sort(keys, indptr, perm, nchunks):  # pragma: no cover - compiled
    """:func:`_counting_sort` with ``nchunks`` contiguous key chunks counted and placed in
    parallel; chunk ``c``'s edges of a key follow chunk ``c - 1``'s (same ``perm``)."""
    rows = indptr.shape[0] - 1
    num = keys.shape[0]
    cursor = np.zeros((nchunks, rows), dtype=indptr.dtype)
    for c in prange(nchunks):
        for e in range((num * c) // nchunks, (num * (c + 1)) // nchunks):
            cursor[c, keys[e]] += 1
    total = 0
    for r in range(rows):
        indptr[r] = total
        for c in range(nchunks):
            n = cursor[c, r]
            cursor[c, r] = total
            total += n
    indptr[rows] = total
    for c in prange(nchunks):
        for e in range((num * c) // nchunks, (num * (c + 1)) // nchunks):
            k = keys[e]
            p = cursor[c, k]
            perm[p] = e
            cursor[c, k] = p + 1


def csr_from_keys(keys: Any, indptr: Any, perm: Any) -> Any:
    """Fill ``indptr`` [R+1] and ``perm`` [E] (stable sort of ``keys`` [E] in [0, R)).

    All three share an int dtype; keys are validated. Returns ``perm``. More than
    ``SERIAL_WORK`` keys take the chunked parallel sort, with one chunk per thread but at
    most ``E // R`` chunks, so its per-chunk counters (``chunks x R``) never outgrow
    ``perm``."""
    num = keys.shape[0]
    rows = indptr.shape[0] - 1
    chunks = min(numba.get_num_threads(), num // max(rows, 1))
    if chunks > 1 and num > SERIAL_WORK:
        _chunked_counting_sort(keys, indptr, perm, chunks)
    else:
        _counting_sort(keys, indptr, perm)
    return perm


@njit(cache=True, nogil=True)
def _small_csr(src, dst, indptr, indices, perm, src_out, dst_out):  # pragma: no cover
    _counting_sort(dst, indptr, perm)
    in_order = 1
    for e in range(src.shape[0]):
        src_out[e] = src[e]
        dst_out[e] = dst[e]
        if e and dst[e] < dst[e - 1]:
            in_order = 0
    for j in range(perm.shape[0]):
        indices[j] = src[perm[j]]
    return in_order


def small_csr(
    src: Any, dst: Any, indptr: Any, indices: Any, perm: Any, src_out: Any, dst_out: Any
) -> int:
    """The whole CSR of a small, validated edge list in one serial call: ``indptr`` and
    ``perm`` (the stable counting sort of ``dst``), ``indices = src[perm]`` and copies of
    ``src`` / ``dst``; returns 1 when ``dst`` was already sorted (``perm`` is the
    identity), else 0. One index dtype for all. The caller keeps it to small inputs, where
    the separate steps (``csr_from_keys``, a gather, copies) cost more in dispatch than in
    work; large ones are sorted by every thread (``csr_from_keys``)."""
    return _small_csr(src, dst, indptr, indices, perm, src_out, dst_out)
