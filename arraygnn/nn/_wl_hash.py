"""The Numba kernel behind :class:`arraygnn.nn.WLConv` (private; compiled on first use,
cached on disk with ``cache=True``).

PyG keys each node's colour by Python's ``hash(tuple([colour] + sorted(neighbour
colours)))``. CPython (3.8 and later, 64-bit) hashes a tuple of ints with its xxHash-based
``tuplehash`` over the items' ``long_hash`` values (``|v| mod (2**61 - 1)`` with the sign,
``-1`` mapped to ``-2``); this kernel computes the same 64-bit values in parallel over the
nodes, so the keys are PyG's bit for bit. :func:`kernel_matches_python` checks that on the
running interpreter (the layer falls back to ``hash(tuple(...))`` per node where it does not).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["wl_keys", "kernel_matches_python"]

_XXPRIME_1 = np.uint64(11400714785074694791)
_XXPRIME_2 = np.uint64(14029467366897019727)
_XXPRIME_5 = np.uint64(2870177450012600261)
_LEN_MIX = np.uint64(2870177450012600261 ^ 3527539)
_MODULUS = np.int64((1 << 61) - 1)
_MINUS_ONE = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True)
def _int_hash(v):  # pragma: no cover - compiled
    """CPython's ``hash(int(v))`` for an int64 ``v``, as uint64 bits."""
    if v >= 0:
        h = v % _MODULUS
    else:
        magnitude = np.uint64(-(v + 1)) + np.uint64(1)  # |v| without int64 overflow
        h = -np.int64(magnitude % np.uint64(_MODULUS))
        if h == -1:
            h = -2
    return np.uint64(h)


@njit(cache=True, nogil=True)
def _lane(acc, v):  # pragma: no cover - compiled
    acc = acc + _int_hash(v) * _XXPRIME_2
    acc = (acc << np.uint64(31)) | (acc >> np.uint64(33))
    return acc * _XXPRIME_1


@njit(cache=True, nogil=True)
def _finish(acc, length):  # pragma: no cover - compiled
    acc = acc + (np.uint64(length) ^ _LEN_MIX)
    if acc == _MINUS_ONE:
        acc = np.uint64(1546275796)
    return acc


@njit(cache=True, nogil=True, parallel=True)
def wl_keys(indptr, indices, colours, out):  # pragma: no cover - compiled
    """``out[i]`` (uint64 bits) = ``hash((colours[i], *sorted(neighbour colours)))``, the
    neighbours being ``indices[indptr[i]:indptr[i + 1]]``."""
    for i in prange(indptr.shape[0] - 1):
        lo, hi = indptr[i], indptr[i + 1]
        neighbours = np.empty(hi - lo, dtype=np.int64)
        for j in range(lo, hi):
            neighbours[j - lo] = colours[indices[j]]
        neighbours.sort()
        acc = _lane(_XXPRIME_5, colours[i])
        for k in range(neighbours.shape[0]):
            acc = _lane(acc, neighbours[k])
        out[i] = _finish(acc, hi - lo + 1)
    return out


@njit(cache=True, nogil=True)
def _tuple_hash(values):  # pragma: no cover - compiled
    acc = _XXPRIME_5
    for k in range(values.shape[0]):
        acc = _lane(acc, values[k])
    return _finish(acc, values.shape[0])


_MATCHES: list[bool] = []


def kernel_matches_python() -> bool:
    """Whether the kernel's hashes equal this interpreter's ``hash(tuple)`` (checked once)."""
    if not _MATCHES:
        cases = [
            [0],
            [5, 3, 3, 7],
            [-1, 2],
            [-(2**63), 2**63 - 1, 2**61 - 1, 2**61, -(2**61) + 1],
            list(range(40)),
        ]
        ok = all(
            int(np.array([_tuple_hash(np.array(c, np.int64))], np.uint64).view(np.int64)[0])
            == hash(tuple(c))
            for c in cases
        )
        _MATCHES.append(ok)
    return _MATCHES[0]
