"""CPU gather-mm: ``out[i] = a[i] @ b[index[i]]`` (DGL's ``gather_mm``), no ``[N, K, M]``
gather of ``b``.

Each output row is made by one worker: ``out[i] = 0``, then for ``k`` ascending
``out[i, :] += a[i, k] * b[index[i], k, :]`` (each product rounded, then added; the inner
loop runs over the contiguous ``M`` outputs, so it vectorises without reassociating
anything). Rows are split evenly over the workers, so the bits are the same on every run
and thread count. Consecutive rows that share ``index`` reuse ``b[index]`` from cache:
callers that can, order their rows by ``index`` (``arraygnn.nn.NNConv`` does).
"""

from __future__ import annotations

from typing import Any

from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, num_blocks

__all__ = ["gather_mm_rows"]


@njit(cache=True, nogil=True)
def _rows(a, b, index, out, r0, r1):  # pragma: no cover - compiled
    """Serial body: rows [r0, r1)."""
    depth = a.shape[1]
    width = out.shape[1]
    for i in range(r0, r1):
        j = index[i]
        for m in range(width):
            out[i, m] = 0
        for k in range(depth):
            aik = a[i, k]
            for m in range(width):
                out[i, m] += aik * b[j, k, m]


@njit(cache=True, nogil=True, parallel=True)
def _kernel(a, b, index, out, nblocks):  # pragma: no cover - compiled
    rows = out.shape[0]
    for blk in prange(nblocks):
        _rows(a, b, index, out, (rows * blk) // nblocks, (rows * (blk + 1)) // nblocks)


def gather_mm_rows(a: Any, b: Any, index: Any, out: Any) -> Any:
    """Fill ``out`` [N, M] with ``a[i] @ b[index[i]]``; ``a`` [N, K], ``b`` [R, K, M], all of
    ``out``'s dtype (float32 / float64), C-contiguous; see the module docstring."""
    rows = out.shape[0]
    if out.size == 0:
        return out
    if out.size * max(a.shape[1], 1) <= SERIAL_WORK:
        _rows(a, b, index, out, 0, rows)
    else:
        _kernel(a, b, index, out, num_blocks(rows))
    return out
