"""Input checks shared by DGL's graph-transformer layers (private): dense batched node
features ``[B, N, F]``, pair arrays ``[B, N, N, ...]`` and integer distance / degree arrays,
each error naming the layer and the argument; plus ``identity`` (DGL's inference-time
``Dropout`` steps inside their ``nn.Sequential`` s).

>>> import numpy as np
>>> check_ints("SpatialEncoder", "dist", np.zeros((1, 2, 2), np.int32), 3).shape
(1, 2, 2)
"""

from __future__ import annotations

from typing import Any

from arraygnn.utils._checks import check_array_arg as check_array
from arraygnn.utils._checks import check_int_array

__all__ = ["check_ints", "check_floats", "check_array", "identity"]


def identity(x: Any) -> Any:
    """``x`` itself (dropout at inference)."""
    return x


def check_ints(layer: str, name: str, value: Any, ndim: int) -> Any:
    """``value`` must be an integer array of ``ndim`` dimensions (returned as is)."""
    check_int_array(layer, name, value)
    if value.ndim != ndim:
        raise ValueError(f"{layer}: {name} must be {ndim}-d, got shape {tuple(value.shape)}")
    return value


def check_floats(layer: str, name: str, value: Any, shape: tuple[int | None, ...]) -> Any:
    """``value`` must be a floating array of ``shape`` (``None`` entries are free)."""
    check_array(layer, name, value)
    if value.dtype.kind != "f":
        raise TypeError(f"{layer}: {name} must be a floating-point array, got dtype {value.dtype}")
    if value.ndim != len(shape) or any(
        s is not None and s != v for s, v in zip(shape, value.shape)
    ):
        want = ", ".join("*" if s is None else str(s) for s in shape)
        raise ValueError(f"{layer}: {name} must have shape [{want}], got {tuple(value.shape)}")
    return value
