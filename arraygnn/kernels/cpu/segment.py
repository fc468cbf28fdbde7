"""CPU CSR segment reduction: ``out[r] = reduce over j in row r of x[perm[j] (or j)]``.

Deterministic: one worker per row block (see ``_blocks``), each row accumulated in slot
order directly in its output row (float32/float64; the op upcasts float16), no atomics.
An empty row gives 0 for every reduction; mean divides by the row length; max / min
propagate NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import (
    MAX,
    MEAN,
    MIN,
    PROD,
    REDUCE_CODES,
    SERIAL_WORK,
    block_rows,
    num_blocks,
)
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["segment_csr"]


@njit(cache=True, nogil=True)
def _segment_rows(indptr, perm, x, out, code, r0, r1):  # pragma: no cover - compiled
    """Serial body: rows (or edges) [r0, r1) of the parallel kernel."""
    heads = out.shape[1]
    feats = out.shape[2]
    for r in range(r0, r1):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi <= lo:
            for h in range(heads):
                for f in range(feats):
                    out[r, h, f] = 0
            continue
        e = lo if perm is None else perm[lo]
        for h in range(heads):
            for f in range(feats):
                out[r, h, f] = x[e, h, f]
        for j in range(lo + 1, hi):
            if perm is not None and j + PREFETCH_DISTANCE < hi:
                prefetch_row(x, perm[j + PREFETCH_DISTANCE])
            e = j if perm is None else perm[j]
            for h in range(heads):
                if code == MAX:
                    for f in range(feats):
                        out[r, h, f] = np.maximum(out[r, h, f], x[e, h, f])
                elif code == MIN:
                    for f in range(feats):
                        out[r, h, f] = np.minimum(out[r, h, f], x[e, h, f])
                elif code == PROD:
                    for f in range(feats):
                        out[r, h, f] *= x[e, h, f]
                else:
                    for f in range(feats):
                        out[r, h, f] += x[e, h, f]
        if code == MEAN:
            deg = hi - lo
            for h in range(heads):
                for f in range(feats):
                    out[r, h, f] /= deg


@njit(cache=True, nogil=True)
def _segment_flat_rows(indptr, perm, x, out, code, r0, r1):  # pragma: no cover - compiled
    """``_segment_rows`` for one value per row (``x`` [M], ``out`` [R]): the row is
    accumulated in a register, same order, same bits (1.5-4x faster on one core)."""
    for r in range(r0, r1):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi <= lo:
            out[r] = 0
            continue
        acc = x[lo if perm is None else perm[lo]]
        if code == MAX:
            for j in range(lo + 1, hi):
                acc = np.maximum(acc, x[j if perm is None else perm[j]])
        elif code == MIN:
            for j in range(lo + 1, hi):
                acc = np.minimum(acc, x[j if perm is None else perm[j]])
        elif code == PROD:
            for j in range(lo + 1, hi):
                acc *= x[j if perm is None else perm[j]]
        else:
            for j in range(lo + 1, hi):
                acc += x[j if perm is None else perm[j]]
        if code == MEAN:
            out[r] = acc / (hi - lo)
        else:
            out[r] = acc


@njit(cache=True, nogil=True, parallel=True)
def _segment_flat_kernel(indptr, perm, x, out, code, nblocks):  # pragma: no cover - compiled
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _segment_flat_rows(indptr, perm, x, out, code, r0, r1)


@njit(cache=True, nogil=True, parallel=True)
def _segment_kernel(indptr, perm, x, out, code, nblocks):  # pragma: no cover - compiled
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _segment_rows(indptr, perm, x, out, code, r0, r1)


def segment_csr(indptr: Any, perm: Any, x: Any, out: Any, reduce: str) -> Any:
    """Fill ``out`` [R, H, F] with the row reduction of ``x`` [M, H, F]; see the module
    docstring. ``indptr`` [R+1] and ``perm`` [nnz] (or None) share an int dtype."""
    rows = out.shape[0]
    if rows == 0:
        return out
    code = REDUCE_CODES[reduce]
    if out.shape[1] * out.shape[2] == 1 and x.dtype == out.dtype:  # same rounding per step
        flat_x, flat_out = x.reshape(x.shape[0]), out.reshape(rows)
        if (indptr[rows] - indptr[0]) + rows <= SERIAL_WORK:
            _segment_flat_rows(indptr, perm, flat_x, flat_out, code, 0, rows)
        else:
            _segment_flat_kernel(indptr, perm, flat_x, flat_out, code, num_blocks(rows))
        return out
    if (indptr[rows] - indptr[0]) * out.shape[1] * out.shape[2] + rows <= SERIAL_WORK:
        _segment_rows(indptr, perm, x, out, code, 0, rows)
    else:
        _segment_kernel(indptr, perm, x, out, code, num_blocks(rows))
    return out
