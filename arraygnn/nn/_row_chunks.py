"""Per-edge work over a CSR's rows a piece at a time, so per-edge temporaries stay small.

A layer whose messages are nonlinear per edge (a ReLU after a FiLM modulation, CGConv's
gate) must form them, but never for every edge at once: :func:`map_row_chunks` cuts the
CSR's rows into pieces holding about :data:`EDGE_CHUNK_BYTES` of per-edge values each, hands
every piece to the layer's function as a CSR of its own (its slots are its edges, in the
parent's slot order) and stacks the per-row results. On CuPy (one launch is cheaper than
many) and for small graphs the whole CSR is one piece. Where Numba's workers run on an
OpenMP runtime another library loaded first (PyTorch imported before arraygnn: they spin
after every kernel, ``arraygnn.kernels.cpu._threads``), the pieces are
:data:`SHARED_RUNTIME_FACTOR` times larger, since each piece's kernels then pay a wait:
FiLMConv's ReLU path on 20k nodes / 200k edges, 2-core box, torch imported first, took
596 ms in 4 MiB pieces, 276 ms in 64 MiB pieces and 243 ms in one piece (57, 193 and
165 ms without torch).

>>> import numpy as np
>>> from arraygnn import ops
>>> csr = ops.to_csr(np.array([[0, 1, 2, 0], [0, 0, 1, 2]]), 3, 3)
>>> def rows(part, start, stop, first, last):
...     return ops.segment(np.arange(first, last, dtype=float)[:, None], part.indptr)
>>> map_row_chunks(csr, 8, rows, step_bytes=16).ravel().tolist()
[1.0, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace

__all__ = ["EDGE_CHUNK_BYTES", "SHARED_RUNTIME_FACTOR", "map_row_chunks"]

#: bytes of per-edge values formed per piece of CSR rows (NumPy)
EDGE_CHUNK_BYTES = 4 * 2**20
#: pieces this many times larger next to another library's OpenMP runtime
SHARED_RUNTIME_FACTOR = 16


def map_row_chunks(
    csr: Any,
    edge_bytes: int,
    per_rows: Callable[[Any, int, int, int, int], Any],
    step_bytes: int | None = None,
) -> Any:
    """``per_rows(part, start, stop, first, last)`` over pieces of ``csr``'s rows, stacked.

    ``part`` is rows ``start:stop`` as a CSR whose edges are slots ``first:last`` of
    ``csr`` (so a slot-order array ``a`` of ``csr`` is ``a[first:last]`` for ``part``,
    and ``part.indices`` are source ids); ``per_rows`` returns ``stop - start`` rows.
    ``edge_bytes`` is the size of the per-edge values the function forms for one edge;
    a piece holds about ``step_bytes`` (default :data:`EDGE_CHUNK_BYTES`, times
    :data:`SHARED_RUNTIME_FACTOR` next to a shared OpenMP runtime) of them, and at least
    one row.
    """
    from arraygnn.kernels.cpu._threads import shared_openmp
    from arraygnn.nn.rgcn_conv import _row_range

    if step_bytes is None:
        step_bytes = EDGE_CHUNK_BYTES * (SHARED_RUNTIME_FACTOR if shared_openmp() else 1)
    step = max(1, int(step_bytes) // max(edge_bytes, 1))
    num_rows = csr.num_dst_nodes
    if get_namespace(csr.indptr) is not np or csr.num_edges <= step:
        return per_rows(csr, 0, num_rows, 0, csr.num_edges)
    indptr = csr.indptr
    out = None
    start = 0
    while start < num_rows:
        first = int(indptr[start])
        stop = int(np.searchsorted(indptr, first + step, side="right")) - 1
        stop = min(max(stop, start + 1), num_rows)
        rows = per_rows(_row_range(csr, start, stop), start, stop, first, int(indptr[stop]))
        if out is None:
            out = np.empty((num_rows,) + tuple(rows.shape[1:]), dtype=rows.dtype)
        out[start:stop] = rows
        start = stop
    return out
