"""64-byte aligned allocation: collated batches and hand-off copies land on aligned addresses.

JAX aliases host memory only when its data pointer is 64-byte aligned, and NumPy's large
allocations sit at offset 16, so arraygnn allocates its outputs through :func:`aligned_empty`.

>>> import numpy as np
>>> aligned_empty((1000, 3), np.float32).ctypes.data % 64
0
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["ALIGNMENT", "aligned_empty"]

#: Byte alignment of arraygnn's host allocations (JAX's requirement for zero-copy).
ALIGNMENT = 64


def _index(value: Any, name: str, whole: Any) -> int:
    """``value`` as an int: Python and numpy ints (``__index__``), not bools or floats."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"aligned_empty: {name} must hold ints, got {whole!r}")


def aligned_empty(
    shape: Sequence[int] | int, dtype: Any, xp: ModuleType = np, alignment: int = ALIGNMENT
) -> Any:
    """An uninitialised C-contiguous array whose data pointer is a multiple of ``alignment``.

    ``shape`` holds ints (numpy ints too; a float or bool size is a ``TypeError``, as
    ``np.empty``'s, never truncated); ``alignment`` is a power-of-two int (``ValueError``).

    CuPy allocations are already 256-byte aligned; NumPy's are not (large ones sit at
    offset 16), which makes JAX copy on hand-off.

    >>> a = aligned_empty((1000, 3), np.float32)
    >>> a.ctypes.data % 64, a.shape
    (0, (1000, 3))
    """
    if xp is np and type(alignment) is int and alignment == ALIGNMENT and type(shape) is tuple:
        # fast path (the common call: a tuple of positive ints, a plain dtype): the same
        # result as below with fewer Python steps (it runs once per output array)
        kind = np.dtype(dtype)
        if not kind.hasobject and kind.itemsize and all(type(s) is int and s > 0 for s in shape):
            nbytes = math.prod(shape) * kind.itemsize
            buf = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
            start = (-buf.__array_interface__["data"][0]) % ALIGNMENT
            return buf[start : start + nbytes].view(kind).reshape(shape)
    shape = tuple(_index(s, "shape", shape) for s in ((shape,) if np.ndim(shape) == 0 else shape))
    if any(s < 0 for s in shape):  # (the byte count below would come out wrong, not fail)
        raise ValueError(f"aligned_empty: negative dimensions are not allowed: {shape}")
    try:
        align = _index(alignment, "alignment", alignment)
    except TypeError:
        align = 0  # (a float / bool alignment: the ValueError below)
    if align < 1 or align & (align - 1):
        raise ValueError(
            f"aligned_empty: alignment must be a positive int (a power of two), got {alignment!r}"
        )
    alignment = align
    if xp is not np:
        return xp.empty(shape, dtype=dtype)
    dtype = np.dtype(dtype)
    if dtype.hasobject or dtype.itemsize == 0:
        return np.empty(shape, dtype=dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes == 0:  # an empty slice keeps the base pointer: slice a one-item view instead
        buf = np.empty(dtype.itemsize + alignment, dtype=np.uint8)
        start = (-buf.ctypes.data) % alignment
        one = buf[start : start + dtype.itemsize].view(dtype)
        return one[:0].reshape(shape)
    buf = np.empty(nbytes + alignment, dtype=np.uint8)
    start = (-buf.ctypes.data) % alignment
    return buf[start : start + nbytes].view(dtype).reshape(shape)
