"""Shared argument checks of the point-cloud and mesh transforms (private).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> point_array("Demo", Data(pos=np.zeros((2, 3))), "pos").shape
(2, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array, torch_hint
from arraygnn.hetero_data import HeteroData

__all__ = ["point_array", "node_stores", "normalize_rows", "float_arg"]


def point_array(where: str, data: Any, name: str = "pos", *, ndim: tuple[int, ...] = (2,)) -> Any:
    """``data[name]``: a floating array with ``ndim`` dimensions, else an error naming
    ``where`` and ``name``."""
    if isinstance(data, HeteroData):
        raise TypeError(f"{where} takes a Data, not a HeteroData (as PyG's {where})")
    if name not in data:
        raise ValueError(f"{where}: data has no {name!r}")
    value = data[name]
    if not is_array(value):
        raise TypeError(
            f"{where}: data.{name} must be a NumPy or CuPy array, got "
            f"{type(value).__name__}{torch_hint(value)}"
        )
    if value.dtype.kind != "f":
        raise TypeError(f"{where}: data.{name} must hold floats, got dtype {value.dtype}")
    if value.ndim not in ndim:
        want = " or ".join(str(d) for d in ndim)
        raise ValueError(
            f"{where}: data.{name} must have {want} dimensions, got shape {tuple(value.shape)}"
        )
    return value


def node_stores(data: Any) -> list[Any]:
    """The node stores: the ``Data`` itself, or a ``HeteroData``'s node stores."""
    return data.node_stores if isinstance(data, HeteroData) else [data]


def normalize_rows(xp: Any, value: Any) -> Any:
    """``value / max(||row||_2, 1e-12)`` (torch's ``F.normalize``), in ``value``'s dtype."""
    norm = xp.sqrt((value * value).sum(axis=-1, keepdims=True))
    return value / xp.maximum(norm, value.dtype.type(1e-12))


def float_arg(where: str, name: str, value: Any, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{where}: {name} must be a number, got {value!r}")
    return float(value)
