"""The rule for id dtypes that must hold new ids: merging and padding GraphTensors, GCN /
GAT self-loops.

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

__all__ = ["ids_dtype_holding"]


def ids_dtype_holding(dtype: Any, top: int) -> np.dtype:
    """``dtype`` when it is an integer dtype holding every id up to ``top``, else int64."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and int(top) <= int(np.iinfo(dtype).max):
        return dtype
    return np.dtype(np.int64)
