"""Numba CRC-32C (Castagnoli) kernel: the fallback when the ``crc32c`` package is missing.

Imported lazily by :mod:`arraygnn.io.tfrecord` (``import arraygnn`` never imports numba).
Slicing-by-8 over a table built once with NumPy; compiled on first use and cached.
"""

from __future__ import annotations

import numba
import numpy as np

_POLY = np.uint32(0x82F63B78)  # reflected Castagnoli polynomial


def _make_tables() -> np.ndarray:
    tables = np.zeros((8, 256), dtype=np.uint32)
    crc = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        crc = np.where(crc & 1, (crc >> 1) ^ _POLY, crc >> 1).astype(np.uint32)
    tables[0] = crc
    for k in range(1, 8):
        prev = tables[k - 1]
        tables[k] = (prev >> 8) ^ tables[0][prev & 0xFF]
    return tables


TABLES = _make_tables()


@numba.njit(cache=True, nogil=True)
def crc32c_update(tables, data, crc):
    """CRC-32C of ``data`` (uint8 array) continuing from ``crc`` (un-inverted register)."""
    c = crc ^ np.uint32(0xFFFFFFFF)
    n = data.shape[0]
    i = 0
    t0 = tables[0]
    t1 = tables[1]
    t2 = tables[2]
    t3 = tables[3]
    t4 = tables[4]
    t5 = tables[5]
    t6 = tables[6]
    t7 = tables[7]
    while i + 8 <= n:
        lo = c ^ (
            np.uint32(data[i])
            | (np.uint32(data[i + 1]) << np.uint32(8))
            | (np.uint32(data[i + 2]) << np.uint32(16))
            | (np.uint32(data[i + 3]) << np.uint32(24))
        )
        c = (
            t7[lo & 0xFF]
            ^ t6[(lo >> np.uint32(8)) & 0xFF]
            ^ t5[(lo >> np.uint32(16)) & 0xFF]
            ^ t4[lo >> np.uint32(24)]
            ^ t3[data[i + 4]]
            ^ t2[data[i + 5]]
            ^ t1[data[i + 6]]
            ^ t0[data[i + 7]]
        )
        i += 8
    while i < n:
        c = t0[(c ^ np.uint32(data[i])) & 0xFF] ^ (c >> np.uint32(8))
        i += 1
    return c ^ np.uint32(0xFFFFFFFF)
