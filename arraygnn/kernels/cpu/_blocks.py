"""Shared pieces of the CPU kernels: reduction codes and cost-balanced row blocks.

Rows of a power-law graph differ wildly in length, so the parallel loops do not split
rows evenly: they split the CSR into ``num_blocks`` contiguous row blocks of about equal
cost (``edges + rows``), and each worker takes whole blocks. A row is always reduced by
exactly one worker, in slot order, so the block split changes the speed, never the bits.
"""

from __future__ import annotations

import numba
from numba import njit

__all__ = [
    "SERIAL_WORK",
    "REDUCE_CODES",
    "SUM",
    "MEAN",
    "MAX",
    "MIN",
    "PROD",
    "block_rows",
    "num_blocks",
]

SUM = 0
MEAN = 1
MAX = 2
MIN = 3
PROD = 4

#: below this many element operations a kernel runs its serial body on the calling thread:
#: waking the thread pool costs more than the work (and much more on a loaded machine).
#: The serial body is the same compiled function each parallel worker runs on its block,
#: so the results are the same bits either way.
SERIAL_WORK = 1 << 16

#: reduction name -> integer code (same codes as the CUDA kernels)
REDUCE_CODES = {"sum": SUM, "mean": MEAN, "max": MAX, "min": MIN, "prod": PROD}


def num_blocks(work: int) -> int:
    """How many row blocks a parallel loop gets: a few per thread, at most ``work``."""
    threads = numba.get_num_threads()
    return max(1, min(int(work), 4 * threads))


@njit(cache=True, nogil=True)
def block_rows(indptr, block, nblocks):  # pragma: no cover - compiled
    """First row of ``block`` (of ``nblocks``): smallest r with cost(r) >= block share,
    where cost(r) = indptr[r] - indptr[0] + r (edges and rows before row r)."""
    rows = indptr.shape[0] - 1
    if block <= 0:
        return 0
    if block >= nblocks:
        return rows
    total = (indptr[rows] - indptr[0]) + rows
    target = (total * block) // nblocks
    lo = 0
    hi = rows
    while lo < hi:
        mid = (lo + hi) // 2
        if (indptr[mid] - indptr[0]) + mid < target:
            lo = mid + 1
        else:
            hi = mid
    return lo
