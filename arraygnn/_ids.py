"""The rule for id dtypes that must hold new ids: merging and padding GraphTensors, GCN /
GAT self-loops; and :func:`unique_ids`, the distinct ids of an id array.

A small index dtype (``int8``, ``uint16``, ...) widens to int64 when the ids made from it
would not fit, instead of wrapping around silently. The PyG face keeps the caller's dtype
and raises ``OverflowError`` instead (``Batch.from_data_list``, ``pad_batch``: see
docs/collation.md); the DGL face converts every id dtype but int32 / int64 to int64 when a
graph is built (docs/coming_from_dgl.md).

>>> import numpy as np
>>> ids_dtype_holding(np.int8, 127), ids_dtype_holding(np.int8, 128)
(dtype('int8'), dtype('int64'))
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ids_dtype_holding", "unique_ids", "unique_ids_with"]


def ids_dtype_holding(dtype: Any, top: int) -> np.dtype:
    """``dtype`` when it is an integer dtype holding every id up to ``top``, else int64."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and int(top) <= int(np.iinfo(dtype).max):
        return dtype
    return np.dtype(np.int64)


def _mask_span(ids: Any, num_ids: int | None) -> tuple[int, int] | None:
    """``(low, span)`` when a mask over ``[low, low + span)`` holding every id of the (flat,
    non-empty) ``ids`` is cheap (``span`` at most ``4 * ids.size + 65536``), else None.
    The span is ``[0, num_ids)`` when every id lies there (no offset to subtract), else the
    ids' own range: ``num_ids`` is never trusted to index the mask (a negative id would
    wrap around). One min / max pass (0.07 ms for 300k ids)."""
    size = int(ids.shape[0])
    limit = 4 * size + 65536
    from arraygnn.ops._common import index_bounds

    low, high = index_bounds(ids)
    if num_ids is not None and 0 <= low and high < int(num_ids) <= limit:
        return 0, int(num_ids)
    return (low, high - low + 1) if high - low < limit else None


def _shifted(found: Any, dtype: Any, low: int) -> Any:
    """The mask positions ``found`` as ids of ``dtype`` (byte order kept, as ``np.unique``):
    ``found + low``, added in ``dtype`` itself (wraps back into range for a small dtype)."""
    if not low:
        return found.astype(dtype, copy=False)
    values = found.astype(dtype)  # a new array: ``found`` is read again by the caller
    values += np.dtype(dtype).type(low)
    return values


def _offsets(ids: Any, low: int) -> Any:
    """``ids - low`` as intp positions into a mask (``ids`` all in ``[low, low + span)``)."""
    if low == 0:
        return ids if ids.dtype == np.intp else ids.astype(np.intp)
    if ids.dtype.kind == "u":  # ids - low fits the unsigned dtype itself
        return (ids - ids.dtype.type(low)).astype(np.intp, copy=False)
    return ids.astype(np.int64) - low  # no wrap-around of a small signed dtype


def unique_ids(xp: Any, ids: Any, num_ids: int | None = None) -> Any:
    """``xp.unique(ids)`` (the sorted distinct values, ``ids``' dtype) for integer ids.

    NumPy 2.4's ``np.unique`` hashes first and sorts after: 170-340 ms for 300k ids of
    100k nodes on the 2-core box, where a sort and a neighbour comparison take 27-39 ms
    and, when every id lies in a range not much wider than the number of ids (``[0,
    num_ids)`` when ``num_ids`` is given and holds every id, else the ids' own min / max),
    a mask over that range 0.35 ms. Same values either way, for any ids (``num_ids`` is a
    hint, checked); other dtypes and CuPy go to ``xp.unique``.

    >>> unique_ids(np, np.array([3, 1, 3, 0]), num_ids=4).tolist()
    [0, 1, 3]
    """
    if xp is not np or ids.dtype.kind not in "iu":
        return xp.unique(ids)
    ids = ids.ravel()
    size = int(ids.shape[0])
    if size == 0:
        return ids.copy()
    span = _mask_span(ids, num_ids)
    if span is not None:
        low, width = span
        mask = np.zeros(width, dtype=bool)
        mask[_offsets(ids, low)] = True
        return _shifted(np.flatnonzero(mask), ids.dtype, low)
    ordered = np.sort(ids)
    keep = np.empty(size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def unique_ids_with(
    xp: Any,
    ids: Any,
    num_ids: int | None = None,
    *,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[Any, ...]:
    """``xp.unique(ids, return_index=..., return_inverse=..., return_counts=...)`` for
    integer ids: the same tuple, values and dtypes (``index`` the first occurrence,
    ``inverse`` shaped as ``ids``, both int64 / intp like ``counts``).

    When every id lies in a range not much wider than the number of ids (``[0, num_ids)``
    when ``num_ids`` is given and holds every id, else the ids' own min / max) a mask over
    that range gives the values, a running count of it the inverse, ``np.minimum.at`` the
    first occurrences and ``np.bincount`` the counts: 0.8 ms for 300k int64 ids of 100k values
    on the 2-core box where ``np.unique(..., return_inverse=True)`` takes 23-28 ms and
    ``return_index=True`` 37-56 ms. Wider ranges, other dtypes and CuPy go to
    ``xp.unique``.

    >>> values, inverse = unique_ids_with(np, np.array([3, 1, 3, 0]), return_inverse=True)
    >>> values.tolist(), inverse.tolist()
    ([0, 1, 3], [2, 1, 2, 0])
    """
    if not (return_index or return_inverse or return_counts):
        return (unique_ids(xp, ids, num_ids),)
    flat = ids.ravel() if xp is np else None
    span = None
    if flat is not None and ids.dtype.kind in "iu" and flat.shape[0]:
        span = _mask_span(flat, num_ids)
    if span is None:
        out = xp.unique(
            ids,
            return_index=return_index,
            return_inverse=return_inverse,
            return_counts=return_counts,
        )
        return tuple(out)
    low, width = span
    size = int(flat.shape[0])
    at = _offsets(flat, low)
    counts = np.bincount(at, minlength=width)
    present = counts > 0
    found = np.flatnonzero(present)
    out = [_shifted(found, ids.dtype, low)]
    if return_index:
        first = np.full(width, size, dtype=np.intp)
        np.minimum.at(first, at, np.arange(size, dtype=np.intp))
        out.append(first[found].astype(np.int64, copy=False))
    if return_inverse:
        relabel = present.astype(np.intp)  # a bool cumsum into intp casts per element: 10x
        np.cumsum(relabel, out=relabel)
        relabel -= 1
        out.append(relabel[at].astype(np.int64, copy=False).reshape(ids.shape))
    if return_counts:
        out.append(counts[found].astype(np.int64, copy=False))
    return tuple(out)
