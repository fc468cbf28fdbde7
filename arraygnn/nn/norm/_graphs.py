"""Checks and per-graph statistics shared by the normalization layers.

A layer's rows belong to graphs given by ``batch`` (a graph id per row, any order); the
per-graph means run in :func:`arraygnn.ops.scatter` (deterministic, empty graphs give 0,
mean = sum / max(count, 1) as PyG's ``scatter(reduce='mean')``) and are spread back to the
rows with :func:`arraygnn.ops.gather`: no loop over graphs.

RULE: ``batch_size`` left out is ``batch.max() + 1`` (0 for an empty ``batch``), as PyG (on
CuPy that costs a device-to-host sync; pass ``batch_size``).

>>> import numpy as np
>>> x = np.array([[1.0], [3.0], [5.0]])
>>> batch, size = graph_ids("GraphNorm", x, np.array([0, 0, 2]), None)
>>> size, graph_mean(x, batch, size).ravel().tolist()
(3, [2.0, 0.0, 5.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace
from arraygnn.nn.linear import _check_features
from arraygnn.ops._common import check_size
from arraygnn.utils._checks import check_array_arg, check_ids, check_int_array

__all__ = ["check_input", "graph_ids", "graph_mean", "number", "per_row", "row_norm", "rows_mean"]


def number(where: str, name: str, value: Any, minimum: float | None = 0.0) -> float:
    """``value`` as a float (a NumPy scalar or 0-d array too), ``>= minimum`` when given."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{where}: {name} must be a number, got {value!r}")
    if minimum is not None and not value >= minimum:
        raise ValueError(f"{where}: {name} must be >= {minimum}, got {value}")
    return float(value)


def check_input(where: str, x: Any, channels: int | None = None, weight: Any = None) -> None:
    """``x`` a floating NumPy / CuPy array ``(N, channels)`` (``(N, *)`` without
    ``channels``); errors name ``where``."""
    if channels is not None:
        _check_features(x, channels, f"{where} input", weight)
        if x.ndim != 2:
            raise ValueError(f"{where}: x must be (N, {channels}), got shape {tuple(x.shape)}")
    else:
        check_array_arg(where, "x", x)
        if x.ndim < 1:
            raise ValueError(f"{where}: x must have a row dimension (N, ...), got a 0-d array")
    if x.dtype.kind != "f":
        raise TypeError(f"{where}: x must be a floating-point array, got dtype {x.dtype}")


def graph_ids(
    where: str,
    x: Any,
    batch: Any,
    batch_size: Any,
    size_name: str = "batch_size",
    name: str = "batch",
) -> tuple[Any, int]:
    """``(batch, number of graphs)`` checked against ``x``'s rows: ``batch`` an integer
    array ``(N,)`` of ids in ``[0, batch_size)``; ``batch_size`` (``size_name``) left out is
    ``batch.max() + 1``."""
    check_int_array(where, name, batch)
    if batch.ndim != 1 or batch.shape[0] != x.shape[0]:
        raise ValueError(
            f"{where}: {name} must have shape ({x.shape[0]},) (an id per row of x), got "
            f"{tuple(batch.shape)}"
        )
    check_ids(where, name, batch, None)
    top = int(batch.max()) + 1 if batch.shape[0] else 0
    if batch_size is None:
        return batch, top
    size = check_size(f"{where}: {size_name}", batch_size)
    if top > size:
        raise ValueError(
            f"{where}: {size_name}={size} is too small: {name} has id {top - 1} "
            f"({size_name} must be at least {top})"
        )
    return batch, size


def graph_mean(x: Any, batch: Any, size: int) -> Any:
    """Per-graph mean of ``x``'s rows ``(size, *)``; an empty graph gives 0."""
    return ops.scatter(x, batch, size, reduce="mean")


def per_row(stat: Any, batch: Any) -> Any:
    """A per-graph statistic spread to the rows: ``stat[batch]``."""
    return ops.gather(stat, batch)


def rows_mean(x: Any, axis: int | None = 0) -> Any:
    """``x.mean(axis, keepdims=True)`` that stays quiet (and finite) for an empty ``x``
    (``sum / max(count, 1)``: no rows, nothing to centre)."""
    count = x.size if axis is None else x.shape[axis]
    return x.sum(axis=axis, keepdims=True) / max(count, 1)


def row_norm(x: Any, eps: float) -> Any:
    """Each row centred and scaled by ``sqrt(biased var + eps)`` over its last dimension
    (``torch.nn.functional.layer_norm`` without affine)."""
    xp = get_namespace(x)
    centred = x - x.mean(axis=-1, keepdims=True)
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / xp.sqrt(var + eps)
