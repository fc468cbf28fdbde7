"""CPU COO scatter without atomics: ``out[r] = reduce over edges e with index[e] == r of x[e]``.

Four paths, chosen by ``scatter_coo``; all reduce each output row in edge order (the
first edge's row is copied, the others folded in one by one), so they give the same bits
on every run, thread count and path:

- **sorted index** (any size, tried first): an index that never decreases (a PyG
  ``batch`` vector, a readout's graph ids, edges already sorted by target) is already a
  CSR. One serial pass checks the order and writes the row pointer (it stops at the first
  descent, so an unsorted index costs a few reads), then the row-parallel ``segment_csr``
  reads ``x`` and writes ``out`` once, in order. Measured on the 2-core box, 1M rows / 10M
  edges, F = 64: see benchmarks/RESULTS.md.

- **owner** (small outputs, up to ``OWNER_MAX_THREADS`` threads): one worker streams the
  edges in order and does a read-modify-write of ``out[index[e]]`` for each; ``x`` is read
  sequentially, the output row of the edge ``PREFETCH_DISTANCE`` ahead is prefetched. Best
  while the output fits in the last-level cache.
- **tiled** (outputs of ``TILED_MIN_OUT_BYTES`` or more): the output rows are cut into
  tiles of ``TILE_BYTES`` (a power of two rows, so a tile fits in L2). A counting pass
  and a placing pass (parallel over edge chunks) list each tile's edges in edge order
  (edge id and row within the tile); then the workers take whole tiles (cost-balanced
  groups of them) and fold each tile's edges into it while it stays in cache, prefetching
  the ``x`` rows ahead. The random read-modify-writes of DRAM rows become cache hits, and
  the price is reading ``x`` in a forward-skipping order and 6 bytes per edge of lists.
  Measured through ``ops.scatter`` on the 2-core box (L3 32 MiB), 1M rows / 10M edges:
  F = 64 sum / mean / max 349 / 433 / 349 ms vs 507 / 512 / 531 ms on the owner path,
  F = 16 sum 192 vs 304 ms; at 100k rows (25.6 MB output, in L3) the owner path wins
  (22 vs 31 ms), hence the threshold (benchmarks/RESULTS.md).
  With one value per row (a 1-D scatter: degrees, softmax denominators) the output
  starts at the reduction's identity instead (``_owner_flat_kernel``: no per-edge branch
  or counter read, same bits), on any thread count and, up to ``OWNER_MAX_THREADS``
  threads, before the sorted-index check too: 4-8x faster than the general owner loop,
  500k values into 500k rows in 1.6 vs 8-16 ms (torch ``index_add_`` 1.5 ms).
- **sorted** (small outputs, more threads): a counting sort of the index into a CSR,
  then the row-parallel ``segment_csr``.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import MAX, MEAN, MIN, PROD, REDUCE_CODES, block_rows
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = [
    "OWNER_MAX_THREADS",
    "SORTED_INDEX_PATH",
    "TILE_BYTES",
    "TILED_MIN_OUT_BYTES",
    "scatter_coo",
]

#: try the sorted-index path first (tests switch it off to reach the other paths)
SORTED_INDEX_PATH = True

#: above this many Numba threads, small outputs go through a counting sort + segment_csr
OWNER_MAX_THREADS = 2
#: outputs of at least this many bytes take the tiled path (about the size of a server's
#: last-level cache: below it the owner path's read-modify-writes mostly hit the cache)
TILED_MIN_OUT_BYTES = 32 << 20
#: bytes of output rows per tile (a power of two rows, at most 65536: the row within a
#: tile is kept as uint16)
TILE_BYTES = 256 << 10


@njit(cache=True, nogil=True, inline="always")
def _fold_row(out, r, x, e, k, code, width):  # pragma: no cover - compiled
    """Fold edge row ``x[e]`` into ``out[r]``; ``k`` edges were folded into it before."""
    if k == 0:
        for f in range(width):
            out[r, f] = x[e, f]
    elif code == MAX:
        for f in range(width):
            out[r, f] = np.maximum(out[r, f], x[e, f])
    elif code == MIN:
        for f in range(width):
            out[r, f] = np.minimum(out[r, f], x[e, f])
    elif code == PROD:
        for f in range(width):
            out[r, f] *= x[e, f]
    else:
        for f in range(width):
            out[r, f] += x[e, f]


@njit(cache=True, nogil=True, inline="always")
def _finish_row(out, r, k, code, width):  # pragma: no cover - compiled
    """Row ``r`` received ``k`` edges: 0 when none, the mean's division."""
    if k == 0:
        for f in range(width):
            out[r, f] = 0
    elif code == MEAN:
        for f in range(width):
            out[r, f] /= k


@njit(cache=True, nogil=True)
def _owner_kernel(index, x, out, code):  # pragma: no cover - compiled
    """The owner path: stream the edges in order, fold each into its output row."""
    rows = out.shape[0]
    width = out.shape[1]
    num = index.shape[0]
    ahead = PREFETCH_DISTANCE
    count = np.zeros(rows, dtype=np.int64)
    for e in range(num):
        if e + ahead < num:
            prefetch_row(out, index[e + ahead])
        r = index[e]
        k = count[r]
        count[r] = k + 1
        _fold_row(out, r, x, e, k, code, width)
    for r in range(rows):
        _finish_row(out, r, count[r], code, width)


#: a 1-D mean keeps each row's sum and count side by side in the value dtype (one cache
#: line per edge instead of two) while every count stays exact in float32 (2**24)
FLAT_PAIRED_MEAN_MAX_EDGES = 1 << 24


@njit(cache=True, nogil=True)
def _owner_flat_kernel(index, x, out, code, paired_mean):  # pragma: no cover - compiled
    """The owner path for one value per row (``x`` [E], ``out`` [R]).

    ``out`` starts at the reduction's identity (-0.0 for sum and mean, -inf for max, +inf
    for min, 1 for prod), which gives the first value back exactly (``-0.0 + v == v`` for
    every v, -0.0 included), so the bits equal the copy-then-fold of the other paths with
    no per-edge branch and no counter read; rows that received nothing are set to 0 from
    a bit mark (one bit per row: a byte per row next to a 4-byte output row doubled the
    cache misses, 1M edges into 100k rows 1.7 -> 1.1 ms). The mean keeps each row's sum
    and count side by side when ``paired_mean`` (a count in the value dtype: the caller
    passes it below ``FLAT_PAIRED_MEAN_MAX_EDGES`` edges, where counts are exact; an int64
    count array past it).
    """
    rows = out.shape[0]
    num = index.shape[0]
    if code == MAX:
        ident = -np.inf
    elif code == MIN:
        ident = np.inf
    elif code == PROD:
        ident = 1.0
    else:
        ident = -0.0
    if code == MEAN and paired_mean:
        acc = np.empty((rows, 2), dtype=out.dtype)
        for r in range(rows):
            acc[r, 0] = ident
            acc[r, 1] = 0
        for e in range(num):
            r = index[e]
            acc[r, 0] += x[e]
            acc[r, 1] += 1
        for r in range(rows):
            k = np.int64(acc[r, 1])
            if k == 0:
                out[r] = 0
            else:
                out[r] = acc[r, 0] / k
        return
    for r in range(rows):
        out[r] = ident
    if code == MEAN:
        count = np.zeros(rows, dtype=np.int64)
        for e in range(num):
            r = index[e]
            out[r] += x[e]
            count[r] += 1
        for r in range(rows):
            k = count[r]
            if k == 0:
                out[r] = 0
            else:
                out[r] /= k
        return
    seen = np.zeros((rows + 7) >> 3, dtype=np.uint8)
    if code == MAX:
        for e in range(num):
            r = index[e]
            out[r] = np.maximum(out[r], x[e])
            seen[r >> 3] |= np.uint8(1 << (r & 7))
    elif code == MIN:
        for e in range(num):
            r = index[e]
            out[r] = np.minimum(out[r], x[e])
            seen[r >> 3] |= np.uint8(1 << (r & 7))
    elif code == PROD:
        for e in range(num):
            r = index[e]
            out[r] *= x[e]
            seen[r >> 3] |= np.uint8(1 << (r & 7))
    else:
        for e in range(num):
            r = index[e]
            out[r] += x[e]
            seen[r >> 3] |= np.uint8(1 << (r & 7))
    for r in range(rows):
        if (seen[r >> 3] >> (r & 7)) & 1 == 0:
            out[r] = 0


@njit(cache=True, nogil=True, parallel=True)
def _tile_lists(index, shift, ntiles, nchunks, order, local):  # pragma: no cover - compiled
    """Each tile's edges in edge order: ``order[start[t]:start[t+1]]`` (edge ids) and
    ``local`` (row within the tile). Returns ``start`` [ntiles + 1]. Edge chunks are
    counted and placed in parallel; chunk c's edges of a tile follow chunk c-1's."""
    num = index.shape[0]
    pos = np.zeros((nchunks, ntiles), np.int64)
    for c in prange(nchunks):
        e0 = (num * c) // nchunks
        e1 = (num * (c + 1)) // nchunks
        for e in range(e0, e1):
            pos[c, index[e] >> shift] += 1
    start = np.empty(ntiles + 1, np.int64)
    total = 0
    for t in range(ntiles):
        start[t] = total
        for c in range(nchunks):
            n = pos[c, t]
            pos[c, t] = total
            total += n
    start[ntiles] = total
    mask = (1 << shift) - 1
    for c in prange(nchunks):
        e0 = (num * c) // nchunks
        e1 = (num * (c + 1)) // nchunks
        for e in range(e0, e1):
            r = index[e]
            t = r >> shift
            p = pos[c, t]
            order[p] = e
            local[p] = r & mask
            pos[c, t] = p + 1
    return start


@njit(cache=True, nogil=True, parallel=True)
def _tiled_kernel(start, order, local, x, out, code, shift, ngroups):  # pragma: no cover
    rows = out.shape[0]
    width = out.shape[1]
    ahead = PREFETCH_DISTANCE
    for g in prange(ngroups):
        t0 = block_rows(start, g, ngroups)
        t1 = block_rows(start, g + 1, ngroups)
        for t in range(t0, t1):
            r0 = t << shift
            r1 = min(rows, r0 + (1 << shift))
            count = np.zeros(r1 - r0, dtype=np.int64)
            j1 = start[t + 1]
            for j in range(start[t], j1):
                if j + ahead < j1:
                    prefetch_row(x, order[j + ahead])
                r = np.int64(local[j])
                k = count[r]
                count[r] = k + 1
                _fold_row(out, r0 + r, x, order[j], k, code, width)
            for r in range(r0, r1):
                _finish_row(out, r, count[r - r0], code, width)


@njit(cache=True, nogil=True)
def _sorted_row_pointer(index, indptr):  # pragma: no cover - compiled
    """If ``index`` never decreases, fill ``indptr`` [R+1] with its CSR row pointer and
    return True; return False at the first descent (``indptr`` is then garbage)."""
    rows = indptr.shape[0] - 1
    num = index.shape[0]
    filled = 0  # indptr[0:filled] written
    prev = 0
    for e in range(num):
        r = index[e]
        if r < prev:
            return False
        while filled <= r:
            indptr[filled] = e
            filled += 1
        prev = r
    while filled <= rows:
        indptr[filled] = num
        filled += 1
    return True


def _tile_shift(row_bytes: int) -> int:
    """log2 of the rows per tile: ``TILE_BYTES`` of rows, 1 to 65536 rows."""
    rows = max(1, TILE_BYTES // max(row_bytes, 1))
    return min(16, rows.bit_length() - 1)


def scatter_coo(index: Any, x: Any, out: Any, reduce: str) -> Any:
    """Fill ``out`` [R, H, F] with the reduction of ``x`` [E, H, F] rows by ``index`` [E]
    (validated, in [0, R)). Deterministic, same bits on every path (module docstring).
    Returns ``out``.

    Owner path with up to ``OWNER_MAX_THREADS`` threads: one worker streams the edges (the
    hardware prefetcher pulls every line of ``x`` into each worker that scans it, so more
    owners multiply the memory traffic; measured on 2 cores: 38 ms with one owner, 49 ms
    with two, for 1M edges x 64 features).
    """
    rows = out.shape[0]
    if rows == 0:
        return out
    width = out.shape[1] * out.shape[2]
    num = index.shape[0]
    x2 = x.reshape(num, width)
    out2 = out.reshape(rows, width)
    code = REDUCE_CODES[reduce]
    threads = numba.get_num_threads()
    # one value per row on up to OWNER_MAX_THREADS threads: the flat owner kernel beats the
    # sorted path's serial check + segment even on a sorted index (1M values into 100k rows,
    # one or two threads: 1.1-1.3 vs 3.1-4.1 ms; 10M into 1M: 30-38 vs 38-51 ms)
    flat_first = width == 1 and threads <= OWNER_MAX_THREADS and out.nbytes < TILED_MIN_OUT_BYTES
    if SORTED_INDEX_PATH and num > 0 and not flat_first:
        from arraygnn.kernels.cpu.segment import segment_csr

        indptr = np.empty(rows + 1, dtype=np.int64 if num >= 2**31 - 1 else index.dtype)
        if _sorted_row_pointer(index, indptr):
            return segment_csr(indptr, None, x, out, reduce)
    if out.nbytes >= TILED_MIN_OUT_BYTES and num > 0:
        shift = _tile_shift(width * out.itemsize)
        ntiles = ((rows - 1) >> shift) + 1
        order = np.empty(num, dtype=np.int32 if num < 2**31 - 1 else np.int64)
        local = np.empty(num, dtype=np.uint16)
        start = _tile_lists(index, shift, ntiles, threads, order, local)
        ngroups = max(1, min(ntiles, 4 * threads))
        _tiled_kernel(start, order, local, x2, out2, code, shift, ngroups)
        return out
    if width == 1:
        # one value per row: the flat owner kernel costs a few ns per edge, less than
        # the counting sort of the sorted path on any thread count
        paired = num < FLAT_PAIRED_MEAN_MAX_EDGES
        _owner_flat_kernel(index, x2.reshape(num), out2.reshape(rows), code, paired)
        return out
    if threads > OWNER_MAX_THREADS:
        from arraygnn.kernels.cpu.csr import csr_from_keys
        from arraygnn.kernels.cpu.segment import segment_csr

        indptr = np.empty(rows + 1, dtype=index.dtype)
        perm = np.empty(num, dtype=index.dtype)
        csr_from_keys(index, indptr, perm)
        return segment_csr(indptr, perm, x, out, reduce)
    _owner_kernel(index, x2, out2, code)
    return out
