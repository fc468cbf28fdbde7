"""PyG's ``index_to_mask`` and ``mask_to_index``.

>>> import numpy as np
>>> index_to_mask(np.array([1, 3]), size=5).tolist()
[False, True, False, True, False]
>>> mask_to_index(np.array([False, True, False, True])).tolist()
[1, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.utils._checks import check_bool_array, check_int_array
from arraygnn.utils.scatter import _size_from

__all__ = ["index_to_mask", "mask_to_index"]


def index_to_mask(index: Any, size: int | None = None) -> Any:
    """A boolean mask [size], True at the ids in ``index`` (any shape, flattened).

    ``size`` defaults to ``index.max() + 1`` (0 for an empty index; PyG raises there), as
    PyG (a sync on CuPy). Ids must be in ``[0, size)``.

    >>> import numpy as np
    >>> index_to_mask(np.array([[0], [2]])).tolist()
    [True, False, True]
    """
    where = "index_to_mask"
    check_int_array(where, "index", index)
    flat = index.reshape(-1)
    n = _size_from(where, "size", size, flat)
    xp = get_namespace(index)
    mask = xp.zeros(n, dtype=bool)
    mask[flat] = True
    return mask


def mask_to_index(mask: Any) -> Any:
    """The positions of the True entries of a one-dimensional boolean ``mask``, int64
    (PyG's dtype), in increasing order.

    >>> import numpy as np
    >>> mask_to_index(np.zeros(3, dtype=bool)).tolist()
    []
    """
    where = "mask_to_index"
    check_bool_array(where, "mask", mask)
    if mask.ndim != 1:
        raise ValueError(f"{where}: mask must be one-dimensional, got shape {tuple(mask.shape)}")
    xp = get_namespace(mask)
    return xp.nonzero(mask)[0].astype(np.int64, copy=False)
