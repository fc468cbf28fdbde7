"""CUDA CSR segment reduction: ``out[r] = reduce over j in row r of x[perm[j] (or j)]``.

Same contract as :func:`arraygnn.kernels.cpu.segment.segment_csr`. Deterministic: one
thread per output element over the CSR rows, accumulated in a register (float32 for
float16) in slot order, rows longer than ``_launch.HEAVY_ROW_EDGES`` split into pieces
combined in order; no atomics (see :mod:`arraygnn.kernels.cuda._row_reduce`). An empty
row gives 0 for every reduction; mean divides by the row length; max / min propagate NaN.

``scatter(src, index, dim_size)`` reaches this kernel through the destination-sorted
order of ``index`` (``perm``); the atomic alternative for ``deterministic=False`` is
:func:`arraygnn.kernels.cuda._atomic.scatter_atomic`.
"""

from __future__ import annotations

from typing import Any

from arraygnn.kernels.cuda._row_reduce import reduce_rows

__all__ = ["segment_csr"]


def segment_csr(indptr: Any, perm: Any, x: Any, out: Any, reduce: str) -> Any:
    """Fill ``out`` [R, H, F] with the row reduction of ``x`` [M, H, F] (CuPy arrays).

    ``indptr`` [R+1] and ``perm`` [nnz] (or None: slot j is row j of ``x``) share an int
    dtype; ``reduce`` in sum / mean / max / min / prod. Returns ``out``.

    """
    return reduce_rows(indptr, x, out, reduce, perm=perm)
