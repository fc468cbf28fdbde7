"""Numba kernel for protobuf packed varints (imported lazily by ``_example_wire``)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def decode_varints(data, out):
    """Decode packed varints from uint8 ``data`` into int64 ``out``; returns the count, or
    -1 for a truncated last varint, -2 for a varint longer than 10 bytes."""
    n = data.shape[0]
    count = 0
    value = np.uint64(0)
    shift = 0
    for i in range(n):
        b = data[i]
        value |= np.uint64(b & 0x7F) << np.uint64(shift)
        if b < 0x80:
            out[count] = np.int64(value)
            count += 1
            value = np.uint64(0)
            shift = 0
        else:
            shift += 7
            if shift >= 70:
                return -2
    if shift != 0:
        return -1
    return count
