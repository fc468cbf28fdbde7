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

__all__ = ["ids_dtype_holding", "unique_ids"]


def ids_dtype_holding(dtype: Any, top: int) -> np.dtype:
    """``dtype`` when it is an integer dtype holding every id up to ``top``, else int64."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and int(top) <= int(np.iinfo(dtype).max):
        return dtype
    return np.dtype(np.int64)


def unique_ids(xp: Any, ids: Any, num_ids: int | None = None) -> Any:
    """``xp.unique(ids)`` (the sorted distinct values, ``ids``' dtype) for integer ids.

    NumPy 2.4's ``np.unique`` hashes first and sorts after: 170-340 ms for 300k ids of
    100k nodes on the 2-core box, where a sort and a neighbour comparison take 27-39 ms
    and, when every id is known to lie in ``[0, num_ids)`` with ``num_ids`` not much above
    the number of ids, a mask over the ids 0.35 ms. Same values either way; other dtypes
    and CuPy go to ``xp.unique``.

    >>> unique_ids(np, np.array([3, 1, 3, 0]), num_ids=4).tolist()
    [0, 1, 3]
    """
    if xp is not np or ids.dtype.kind not in "iu":
        return xp.unique(ids)
    ids = ids.ravel()
    size = int(ids.shape[0])
    if size == 0:
        return ids.copy()
    if num_ids is not None and int(num_ids) <= 4 * size + 65536:
        mask = np.zeros(int(num_ids), dtype=bool)
        mask[ids] = True
        return np.flatnonzero(mask).astype(ids.dtype, copy=False)
    ordered = np.sort(ids)
    keep = np.empty(size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
