"""``gather(x, index)``: rows ``x[index]`` (node -> edge broadcast).

>>> import numpy as np
>>> gather(np.array([[1.0], [2.0], [3.0]]), np.array([2, 0, 2])).ravel().tolist()
[3.0, 1.0, 3.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.ops._common import (
    check_array,
    check_index,
    kernel_function,
    kernel_index,
    namespace,
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
