"""PyG's ``degree``: how often each node id occurs in an index.

>>> import numpy as np
>>> degree(np.array([0, 1, 0, 2, 0])).tolist()
[3.0, 1.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import check_int_array
from arraygnn.utils.scatter import _size_from

__all__ = ["degree"]


def degree(index: Any, num_nodes: int | None = None, dtype: Any = None) -> Any:
    """The number of occurrences of each id ``0 .. num_nodes - 1`` in ``index`` [E].

    ``num_nodes`` defaults to ``index.max() + 1`` (0 for an empty index), as PyG (a
    device-to-host sync on CuPy). ``dtype`` defaults to float32, PyG's (torch's default
    float dtype); any NumPy dtype-like works. On ``index``'s device; ``index`` must be
    one-dimensional with ids in ``[0, num_nodes)``.

    For in-degrees pass ``edge_index[1]``, for out-degrees ``edge_index[0]``.

    >>> import numpy as np
    >>> degree(np.array([1, 1, 3], dtype=np.int32), num_nodes=5, dtype=np.int64).tolist()
    [0, 2, 0, 1, 0]
    """
    where = "degree"
    check_int_array(where, "index", index)
    if index.ndim != 1:
        raise ValueError(f"{where}: index must be one-dimensional, got shape {tuple(index.shape)}")
    try:
        out_dtype = np.dtype(np.float32 if dtype is None else dtype)
    except TypeError:
        raise TypeError(f"{where}: dtype must be a NumPy dtype, got {dtype!r}") from None
    size = _size_from(where, "num_nodes", num_nodes, index)
    xp = get_namespace(index)
    counts = xp.bincount(kernel_index(xp, index), minlength=size)
    return counts.astype(out_dtype, copy=False)
