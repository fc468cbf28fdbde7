"""CPU edge softmax over the edges sharing a destination, deterministic.

Per row (one worker per cost-balanced row block): the row maximum per head, then
``exp(l - max)`` written to the edges' output slots while summing, then one division.
Rows are visited in CSR slot order (stable, so edge order), the same bits every run.
"""

from __future__ import annotations

import math
from typing import Any

from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["edge_softmax_csr"]


@njit(cache=True, nogil=True)
def _softmax_rows(indptr, perm, logits, out, r0, r1):  # pragma: no cover - compiled
    """Serial body: rows (or edges) [r0, r1) of the parallel kernel."""
    heads = logits.shape[1]
    for r in range(r0, r1):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi <= lo:
            continue
        for j in range(lo, min(hi, lo + PREFETCH_DISTANCE)):
            prefetch_row(logits, perm[j])
        for h in range(heads):
            m = logits[perm[lo], h]
            for j in range(lo + 1, hi):
                if h == 0 and j + PREFETCH_DISTANCE < hi:
                    prefetch_row(logits, perm[j + PREFETCH_DISTANCE])
                v = logits[perm[j], h]
                if v > m or v != v:
                    m = v
            total = logits[0, 0] * 0
            for j in range(lo, hi):
                e = perm[j]
                ex = math.exp(logits[e, h] - m)
                out[e, h] = ex
                total += ex
            for j in range(lo, hi):
                out[perm[j], h] /= total


@njit(cache=True, nogil=True, parallel=True)
def _softmax_kernel(indptr, perm, logits, out, nblocks):  # pragma: no cover - compiled
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _softmax_rows(indptr, perm, logits, out, r0, r1)


def edge_softmax_csr(indptr: Any, perm: Any, logits: Any, out: Any) -> Any:
    """Fill ``out`` [E, H] with the softmax of ``logits`` [E, H] over each CSR row."""
    rows = indptr.shape[0] - 1
    if rows == 0 or out.size == 0:
        return out
    if out.size + rows <= SERIAL_WORK:
        _softmax_rows(indptr, perm, logits, out, 0, rows)
    else:
        _softmax_kernel(indptr, perm, logits, out, num_blocks(rows))
    return out
