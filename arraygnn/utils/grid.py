"""PyG's ``grid``: the 8-neighbour (plus self-loop) graph of a ``height x width`` grid.

Deterministic and identical to PyG 2.8, positions included: node ``i`` is at row
``i // width``, column ``i % width``; its position is ``(column, height - 1 - row)``.
Each node links to itself and the nodes at flat offsets ``±1``, ``±width``,
``±width ± 1`` that exist, except that PyG drops the three left offsets of a row's first
node and the three right offsets of its last node only (so for ``width > 1`` nothing
wraps around a row; a 1-wide grid keeps its vertical edges and loses nothing else).

>>> ei, pos = grid(2, 2)
>>> ei.tolist()
[[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3], [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]]
>>> pos.tolist()
[[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import _check_device, import_cupy
from arraygnn.ops._common import check_size
from arraygnn.utils.arrays import dtype_arg
from arraygnn.utils.coalesce import coalesce

__all__ = ["grid"]


def grid(height: int, width: int, dtype: Any = None, device: str | None = None) -> tuple[Any, Any]:
    """``(edge_index [2, E] int64, pos [height * width, 2])`` of the grid graph, PyG's.

    ``dtype`` of ``pos``: a NumPy float dtype (default float32, PyG's); ``device``:
    ``None`` / ``'cpu'`` for NumPy arrays, ``'cuda'`` (``'cuda:N'``) for CuPy arrays.
    ``edge_index`` is coalesced (sorted by ``(row, col)``) and holds a self-loop per node.

    >>> ei, pos = grid(1, 3, dtype="float64")
    >>> ei.tolist(), pos.dtype
    ([[0, 0, 1, 1, 1, 2, 2], [0, 1, 0, 1, 2, 1, 2]], dtype('float64'))
    """
    where = "grid"
    h = check_size(f"{where}: height", height)
    w = check_size(f"{where}: width", width)
    pos_dtype = dtype_arg(where, dtype, np.float32)
    xp = _device_namespace(where, device)
    return grid_index(xp, h, w), grid_pos(xp, h, w, pos_dtype)


def _device_namespace(where: str, device: Any) -> ModuleType:
    if device is None:
        return np
    try:
        device = _check_device(device)
    except (TypeError, ValueError) as err:
        raise type(err)(f"{where}: {err}") from None
    if device == "cpu":
        return np
    cp = import_cupy()
    index = device.partition(":")[2]
    if index:
        cp.cuda.Device(int(index)).use()
    return cp


def grid_index(xp: ModuleType, height: int, width: int) -> Any:
    """PyG's ``grid_index``: the offsets of the 3 x 3 stencil, clipped to the grid."""
    w = width
    kernel = xp.asarray([-w - 1, -1, w - 1, -w, 0, w, -w + 1, 1, w + 1], dtype=np.int64)
    n = height * width
    if n == 0:  # PyG cannot reshape an empty grid
        return xp.zeros((2, 0), dtype=np.int64)
    row = xp.repeat(xp.arange(n, dtype=np.int64), 9).reshape(height, -1)
    col = (xp.arange(n, dtype=np.int64)[:, None] + kernel[None, :]).reshape(height, -1)
    row, col = row[:, 3 : row.shape[1] - 3].reshape(-1), col[:, 3 : col.shape[1] - 3].reshape(-1)
    mask = (col >= 0) & (col < n)
    return coalesce(xp.stack([row[mask], col[mask]]), num_nodes=n)


def grid_pos(xp: ModuleType, height: int, width: int, dtype: Any) -> Any:
    """PyG's ``grid_pos``: ``(column, height - 1 - row)`` per node, row-major."""
    x = xp.tile(xp.arange(width, dtype=dtype), height)
    y = xp.repeat(height - 1 - xp.arange(height, dtype=dtype), width).astype(dtype)
    return xp.stack([x, y], axis=-1)
