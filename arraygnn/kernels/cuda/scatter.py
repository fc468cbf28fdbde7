"""CUDA COO scatter for ``arraygnn.config(deterministic=False)``: the atomic kernel.

The default (deterministic) CuPy route of ``ops.scatter`` sorts the index into a CSR and
runs ``segment_csr``; this module is the opt-in route without the sort (see
:mod:`arraygnn.kernels.cuda._atomic`): sum / mean / max / min on float32 / float64. The op
layer sends every other reduction or dtype down the deterministic route.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.kernels.cuda._atomic import scatter_atomic

__all__ = ["ATOMIC_REDUCES", "ATOMIC_DTYPES", "scatter_coo"]

#: what the atomic kernel computes; anything else takes the deterministic route
ATOMIC_REDUCES = ("sum", "mean", "max", "min")
ATOMIC_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def scatter_coo(index: Any, x: Any, out: Any, reduce: str) -> Any:
    """Fill ``out`` [R, H, F] with the reduction of ``x`` [E, H, F] rows by ``index`` [E]
    (validated, in [0, R)) with atomics: NOT deterministic for sum / mean. Returns ``out``."""
    rows = out.shape[0]
    if rows == 0:
        return out
    width = out.shape[1] * out.shape[2]
    scatter_atomic(index, x.reshape(x.shape[0], width), out.reshape(rows, width), reduce)
    return out
