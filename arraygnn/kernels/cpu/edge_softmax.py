"""CPU edge softmax over the edges sharing a destination, deterministic.

Per row (one worker per cost-balanced row block): the row's logits are copied in CSR slot
order into a small scratch block (the only random read of each edge's row, prefetched
``PREFETCH_DISTANCE`` slots ahead across row ends, so rows of a few edges are in flight
too), the maximum, ``exp(l - max)`` and the sum run on that contiguous block with the
heads innermost, and each edge's output row is written once. Rows are visited in CSR slot
order (stable, so edge order) and the sum is accumulated in float64: the same bits every
run and thread count (the same bits as the previous kernel, which walked each row once
per head and read and wrote the random output rows twice). Measured against it on the
2-core box, 1M targets / 10M edges, float32, old and new alternating in one process (four
processes): 8 heads 849-961 -> 568-646 ms, 4 heads 513-572 -> 285-306 ms, 1 head 220-238
-> 190-218 ms (benchmarks/RESULTS.md). One head (``[E]`` / ``[E, 1]`` logits, GAT's last
layer) has its own loop with the maximum and the sum in registers, same operations and
bits: 1.4x at 2.7k / 10.5k, 1.1-1.7x at 100k / 1M, float32 1.2-1.3x at 1M / 10M (float64
0.95x and 1.13x: memory-bound there) (A/B, two processes).

One value per edge given as an edge list (``edge_softmax_coo``: PyG's ``softmax``, DGL's
``edge_softmax`` of ``[E]`` / ``[E, 1]`` logits, ``softmax_nodes``) skips the CSR on up to
``EDGE_ORDER_MAX_THREADS`` threads: three passes over the edges in their own order (row
maxima, ``exp`` and the float64 row sums, the division) with the per-row maximum and sum
in ``[R]`` arrays. A row's edges are met in edge order, which is the CSR's stable slot
order, and each value goes through the same operations: the same bits as the row kernel,
without the counting sort and the random reads (100k targets / 1M edges, one thread:
8.3-9.4 ms against 21-28 ms for sort + row kernel; 1M / 10M: 234-244 against 607-811 ms).
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["edge_softmax_csr", "edge_softmax_coo", "edge_order_first"]

#: up to this many Numba threads, one value per edge takes the serial edge-order kernel
#: (``edge_softmax_coo``); above it, larger inputs sort and run the parallel row kernel
EDGE_ORDER_MAX_THREADS = 2

#: rows of the per-worker scratch block to start with (grown for longer rows)
_SCRATCH_ROWS = 64


@njit(cache=True, nogil=True, error_model="numpy")
def _one_head_rows(indptr, perm, logits, out, r0, r1):  # pragma: no cover - compiled
    """``_softmax_rows`` for one head: the same operations in the same order (so the same
    bits), with the maximum and the sum in registers instead of per-head arrays and no
    one-trip head loops (rows average a few edges, so those loops' set-up dominated)."""
    end = indptr[r1]
    ahead = PREFETCH_DISTANCE
    block = np.empty(_SCRATCH_ROWS, dtype=logits.dtype)
    for r in range(r0, r1):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi <= lo:
            continue
        deg = hi - lo
        if deg > block.shape[0]:
            block = np.empty(deg, dtype=logits.dtype)
        for j in range(lo, hi):
            if perm is not None and j + ahead < end:
                prefetch_row(logits, perm[j + ahead])
            block[j - lo] = logits[j if perm is None else perm[j], 0]
        top = block[0]
        for k in range(1, deg):
            v = block[k]
            if v > top or v != v:
                top = v
        total = 0.0
        for k in range(deg):
            ex = math.exp(block[k] - top)
            block[k] = ex
            total += ex
        for j in range(lo, hi):
            out[j if perm is None else perm[j], 0] = block[j - lo] / total


@njit(cache=True, nogil=True, error_model="numpy")
def _softmax_rows(indptr, perm, logits, out, r0, r1):  # pragma: no cover - compiled
    """Serial body: rows [r0, r1) of the parallel kernel."""
    heads = logits.shape[1]
    if heads == 1:
        _one_head_rows(indptr, perm, logits, out, r0, r1)
        return
    end = indptr[r1]
    ahead = PREFETCH_DISTANCE
    top = np.empty(heads, dtype=logits.dtype)
    total = np.empty(heads, dtype=np.float64)
    block = np.empty((_SCRATCH_ROWS, heads), dtype=logits.dtype)
    for r in range(r0, r1):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi <= lo:
            continue
        deg = hi - lo
        if deg > block.shape[0]:
            block = np.empty((deg, heads), dtype=logits.dtype)
        for j in range(lo, hi):
            if perm is not None and j + ahead < end:
                prefetch_row(logits, perm[j + ahead])
            e = j if perm is None else perm[j]
            for h in range(heads):
                block[j - lo, h] = logits[e, h]
        for h in range(heads):
            top[h] = block[0, h]
            total[h] = 0.0
        for k in range(1, deg):
            for h in range(heads):
                v = block[k, h]
                if v > top[h] or v != v:
                    top[h] = v
        for k in range(deg):
            for h in range(heads):
                ex = math.exp(block[k, h] - top[h])
                block[k, h] = ex
                total[h] += ex
        for j in range(lo, hi):
            e = j if perm is None else perm[j]
            for h in range(heads):
                out[e, h] = block[j - lo, h] / total[h]


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _softmax_kernel(indptr, perm, logits, out, nblocks):  # pragma: no cover - compiled
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _softmax_rows(indptr, perm, logits, out, r0, r1)


def edge_softmax_csr(indptr: Any, perm: Any, logits: Any, out: Any) -> Any:
    """Fill ``out`` [E, H] with the softmax of ``logits`` [E, H] over each CSR row;
    ``perm`` [E] gives each slot's edge, or None when ``logits`` / ``out`` are in slot
    order (then every access is in order)."""
    rows = indptr.shape[0] - 1
    if rows == 0 or out.size == 0:
        return out
    if out.size + rows <= SERIAL_WORK:
        _softmax_rows(indptr, perm, logits, out, 0, rows)
    else:
        _softmax_kernel(indptr, perm, logits, out, num_blocks(rows))
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def _edge_order_softmax(index, logits, out, num_rows):  # pragma: no cover - compiled
    """``_one_head_rows`` over the rows given by ``index`` [E] (in ``[0, num_rows)``),
    walking the edges in their order instead of the CSR: the same comparisons, ``exp``,
    float64 sums and divisions, each row's edges in the same (edge) order."""
    num = index.shape[0]
    # -inf stands for "no value yet": the row kernel starts from the row's first logit,
    # and comparing that logit with -inf keeps it (a -inf stays -inf, a NaN sticks)
    top = np.full(num_rows, -np.inf, dtype=logits.dtype)
    for e in range(num):
        r = index[e]
        v = logits[e]
        if v > top[r] or v != v:
            top[r] = v
    total = np.zeros(num_rows, dtype=np.float64)
    for e in range(num):
        r = index[e]
        ex = math.exp(logits[e] - top[r])
        out[e] = ex
        total[r] += ex
    for e in range(num):
        out[e] = out[e] / total[index[e]]


def edge_order_first(num_edges: int, num_rows: int) -> bool:
    """Whether one value per edge should take :func:`edge_softmax_coo` instead of a sort
    and the row kernel: on up to ``EDGE_ORDER_MAX_THREADS`` threads, or when the work is
    small enough for the row kernel's serial body anyway."""
    return numba.get_num_threads() <= EDGE_ORDER_MAX_THREADS or num_edges + num_rows <= SERIAL_WORK


def edge_softmax_coo(index: Any, logits: Any, out: Any, num_rows: int) -> Any:
    """Fill ``out`` [E] with the softmax of ``logits`` [E] over the edges sharing a row
    ``index[e]`` (validated, in ``[0, num_rows)``), in edge order: the bits of
    :func:`edge_softmax_csr` over the stable CSR of ``index``. Serial."""
    if out.shape[0]:
        _edge_order_softmax(index, logits, out, num_rows)
    return out
