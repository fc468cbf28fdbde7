"""CPU row gather: ``out[i] = x[index[i]]``.

Parallel over contiguous blocks of output rows; each row is a plain copy. The op passes
byte-compatible unsigned-word views of any dtype, so a handful of specialisations serve
every value type. Deterministic trivially (no reduction).
"""

from __future__ import annotations

from typing import Any

from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, num_blocks
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["gather_rows"]


@njit(cache=True, nogil=True)
def _gather_rows(x, index, out, i0, i1):  # pragma: no cover - compiled
    """Serial body: rows (or edges) [i0, i1) of the parallel kernel."""
    rows = out.shape[0]
    feats = out.shape[1]
    for i in range(i0, i1):
        if i + PREFETCH_DISTANCE < rows:
            prefetch_row(x, index[i + PREFETCH_DISTANCE])
        s = index[i]
        for f in range(feats):
            out[i, f] = x[s, f]


@njit(cache=True, nogil=True, parallel=True)
def _gather_kernel(x, index, out, nblocks):  # pragma: no cover - compiled
    rows = out.shape[0]
    for b in prange(nblocks):
        i0 = (rows * b) // nblocks
        i1 = (rows * (b + 1)) // nblocks
        _gather_rows(x, index, out, i0, i1)


def gather_rows(x: Any, index: Any, out: Any) -> Any:
    """Fill ``out`` [E, F] with ``x[index]`` (``x`` [N, F], ``index`` [E] validated)."""
    rows = out.shape[0]
    if rows == 0 or out.shape[1] == 0:
        return out
    if rows * out.shape[1] <= SERIAL_WORK:
        _gather_rows(x, index, out, 0, rows)
    else:
        _gather_kernel(x, index, out, num_blocks(rows))
    return out
