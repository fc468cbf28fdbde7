"""``gather(x, index)``: rows ``x[index]`` (node -> edge broadcast).

>>> import numpy as np
>>> gather(np.array([[1.0], [2.0], [3.0]]), np.array([2, 0, 2])).ravel().tolist()
[3.0, 1.0, 3.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.ops._common import (
    check_array,
    check_index,
    kernel_function,
    kernel_index,
    namespace,
    native,
)

__all__ = ["gather"]


def _row_view(x2: np.ndarray) -> np.ndarray:
    """View the rows of a C-contiguous [N, F] array as the widest unsigned words that tile
    them, so one compiled CPU copy kernel serves every dtype."""
    row_bytes = x2.shape[1] * x2.dtype.itemsize
    for word in (np.uint64, np.uint32, np.uint16):
        size = np.dtype(word).itemsize
        if row_bytes % size == 0:
            return x2.view(word).reshape(x2.shape[0], row_bytes // size)
    return x2.view(np.uint8).reshape(x2.shape[0], row_bytes)


def gather(x: Any, index: Any) -> Any:
    """Rows of ``x`` picked by ``index``: ``out[i] = x[index[i]]``.

    Shapes: ``x`` [N, ...] (any dtype), ``index`` [E] int32/int64 with entries in
    ``[0, N)`` -> [E, ...] on the device of ``x``, same dtype. Indices out of range raise
    ``ValueError`` (nothing is wrapped around, negative ids are errors).
    """
    check_array("x", x)
    xp = namespace(x=x, index=index)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension (rows), got a 0-d array")
    check_index("index", index, int(x.shape[0]))
    tail = tuple(x.shape[1:])
    num = int(index.shape[0])
    out = xp.empty((num,) + tail, dtype=x.dtype)
    if num == 0 or out.size == 0:
        return out
    width = out.size // num
    x2 = xp.ascontiguousarray(x).reshape(x.shape[0], width)
    out2 = out.reshape(num, width)
    idx = kernel_index(xp, index)
    if xp is np:
        if x2.dtype.kind not in "fiub":
            return x[index]  # object / string rows: plain NumPy indexing
        kernel = kernel_function(xp, "gather", "gather_rows")
        kernel(_row_view(x2), idx, _row_view(out2))
        return out
    values_ok = x2.dtype.kind == "f"
    kernel_function(xp, "gather", "gather_rows", values_ok)(x2, idx, out2)
    return out


def add_rows(out: Any, index: Any, values: Any) -> Any:
    """``out[index[i]] += values[i]`` in place for **distinct** ``index`` entries (the
    inverse of :func:`gather` for a one-to-one index; engine-internal, not exported).

    ``out`` [N, ...] float, writeable, ``values`` [n, ...] with ``out``'s dtype (either byte
    order) and row shape, ``index`` [n] int in ``[0, N)`` (checked). Distinctness is the
    caller's promise (a repeated row would add only once on the reference path): each
    output row is updated by one worker, so results are the same bits on every run and
    thread count. Returns ``out``.

    >>> import numpy as np
    >>> add_rows(np.zeros((3, 1)), np.array([2, 0]), np.array([[5.0], [7.0]])).ravel().tolist()
    [7.0, 0.0, 5.0]
    """
    check_array("out", out)
    check_array("values", values)
    xp = namespace(out=out, index=index, values=values)
    check_index("index", index, int(out.shape[0]) if out.ndim else 0)
    if not getattr(out.flags, "writeable", True):
        raise ValueError("add_rows: out is read-only (it is updated in place)")
    if out.dtype.kind != "f" or native(values.dtype) != native(out.dtype):
        raise TypeError(
            f"add_rows: out and values must share one float dtype, got {out.dtype} and "
            f"{values.dtype}"
        )
    if tuple(values.shape) != (int(index.shape[0]),) + tuple(out.shape[1:]):
        raise ValueError(
            f"add_rows: values must have shape {(int(index.shape[0]),) + tuple(out.shape[1:])}, "
            f"got {tuple(values.shape)}"
        )
    num = int(index.shape[0])
    width = math.prod(out.shape[1:])
    if num == 0 or width == 0:
        return out
    if not out.flags.c_contiguous:
        raise ValueError("add_rows: out must be C-contiguous (it is updated in place)")
    vals = xp.ascontiguousarray(values).astype(out.dtype, copy=False).reshape(num, width)
    values_ok = out.dtype in (np.dtype(np.float32), np.dtype(np.float64))
    kernel = kernel_function(xp, "gather", "add_rows", values_ok)
    kernel(out.reshape(out.shape[0], width), kernel_index(xp, index), vals)
    return out
