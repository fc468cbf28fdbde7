"""PyG's ``LayerNorm`` (modes ``'graph'`` and ``'node'``) and ``HeteroLayerNorm``.

``mode='graph'`` normalises each graph over all its rows and channels together (the
per-graph mean and biased variance, ``y = (x - mean) / sqrt(var + eps)``); without
``batch`` the whole input is one graph and PyG divides by ``std + eps`` instead.
``mode='node'`` is torch's row-wise layer norm. NumPy float32 / float64 input runs the
fused Numba kernels of :mod:`arraygnn.kernels.cpu.layer_norm` (no ``[N, F]`` temporaries,
deterministic); CuPy and float16 the array code (per-graph sums by
:func:`arraygnn.ops.scatter`).
``HeteroLayerNorm`` is the row-wise norm with one ``weight`` / ``bias`` row per type.

>>> import numpy as np
>>> from arraygnn.nn.norm import LayerNorm
>>> x = np.array([[1.0, 3.0], [5.0, 7.0], [2.0, 4.0]])
>>> LayerNorm(2, dtype=np.float64)(x, np.array([0, 0, 1])).round(3).tolist()
[[-1.342, -0.447], [0.447, 1.342], [-1.0, 1.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.norm._graphs import (
    check_input,
    graph_ids,
    graph_mean,
    number,
    per_row,
    row_norm,
    rows_mean,
)
from arraygnn.utils._checks import check_int_array

__all__ = ["HeteroLayerNorm", "LayerNorm"]


class LayerNorm(Module):
    """PyG's ``torch_geometric.nn.norm.LayerNorm``.

    Call as ``norm(x, batch=None, batch_size=None)`` (``batch`` matters in ``'graph'``
    mode only; ``batch_size`` left out is ``batch.max() + 1``).

    Args:
        in_channels: size of each input row.
        eps: numerical guard (default ``1e-5``).
        affine: learnt ``weight`` / ``bias`` (default ``True``).
        mode: ``'graph'`` (default) or ``'node'``.

    Shapes:
        - input / output: ``(N, in_channels)``
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        in_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        mode: str = "graph",
        *,
        dtype: Any = np.float32,
    ) -> None:
        self.in_channels = c = layer_size("LayerNorm", "in_channels", in_channels)
        self.eps = number("LayerNorm", "eps", eps)
        if mode not in ("graph", "node"):
            raise ValueError(f"LayerNorm: mode must be 'graph' or 'node', got {mode!r}")
        self.mode = mode
        self.affine = bool(affine)
        self.weight = np.ones(c, dtype=dtype) if affine else None
        self.bias = np.zeros(c, dtype=dtype) if affine else None

    def __call__(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        where = "LayerNorm"
        check_input(where, x, self.in_channels, self.weight)
        xp = get_namespace(x)
        if isinstance(x, np.ndarray):  # NumPy float32 / float64: fused Numba kernels
            from arraygnn.kernels.cpu import layer_norm as kernels

            if kernels.fits(x, self.weight, self.bias):
                if self.mode == "node":
                    return kernels.layer_norm_rows(x, self.eps, self.weight, self.bias)
                size = 1
                if batch is not None:
                    batch, size = graph_ids(where, x, batch, batch_size)
                return kernels.layer_norm_graphs(x, batch, size, self.eps, self.weight, self.bias)
        if self.mode == "node":
            out = row_norm(x, self.eps)
        elif batch is None:
            centred = x - rows_mean(x, None)
            std = xp.sqrt(rows_mean(centred * centred, None))
            out = centred / (std + self.eps)
        else:
            batch, size = graph_ids(where, x, batch, batch_size)
            # sum over the graph's rows / max(rows, 1), then over the channels / F
            mean = graph_mean(x, batch, size).mean(axis=-1, keepdims=True)
            centred = x - per_row(mean, batch)
            var = graph_mean(centred * centred, batch, size).mean(axis=-1, keepdims=True)
            out = centred * per_row(1 / xp.sqrt(var + self.eps), batch)
        if self.weight is not None and self.bias is not None:
            out = out * self.weight + self.bias
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, affine={self.affine}, mode={self.mode}"


class HeteroLayerNorm(Module):
    """PyG's ``HeteroLayerNorm`` (``mode='node'``): row-wise layer norm, then the row's
    type's ``weight`` / ``bias``.

    Call as ``norm(x, type_vec=None, type_ptr=None)``: ``type_vec`` ``(N,)`` a type id per
    row, or ``type_ptr`` ``(num_types + 1,)`` the bounds of rows sorted by type.

    Shapes:
        - input / output: ``(N, in_channels)``; ``weight`` ``(num_types, in_channels)``
    """

    _param_names = ("weight", "bias")

    def __init__(
        self,
        in_channels: int,
        num_types: int,
        eps: float = 1e-5,
        affine: bool = True,
        mode: str = "node",
        *,
        dtype: Any = np.float32,
    ) -> None:
        where = "HeteroLayerNorm"
        self.in_channels = c = layer_size(where, "in_channels", in_channels)
        self.num_types = t = layer_size(where, "num_types", num_types)
        self.eps = number(where, "eps", eps)
        if mode != "node":
            raise ValueError(f"{where}: mode must be 'node', got {mode!r}")
        self.mode = mode
        self.affine = bool(affine)
        self.weight = np.ones((t, c), dtype=dtype) if affine else None
        self.bias = np.zeros((t, c), dtype=dtype) if affine else None

    def __call__(self, x: Any, type_vec: Any = None, type_ptr: Any = None) -> Any:
        where = "HeteroLayerNorm"
        check_input(where, x, self.in_channels, self.weight)
        if type_vec is None and type_ptr is None:
            raise ValueError(f"{where}: either type_vec or type_ptr must be given")
        out = row_norm(x, self.eps)
        if not self.affine:
            return out
        xp = get_namespace(x)
        if type_ptr is not None:
            type_vec = self._types_of_ptr(xp, x, type_ptr)
        types, _ = graph_ids(where, x, type_vec, self.num_types, "num_types", "type_vec")
        return out * per_row(self.weight, types) + per_row(self.bias, types)

    def _types_of_ptr(self, xp: Any, x: Any, type_ptr: Any) -> Any:
        where = "HeteroLayerNorm"
        ptr = xp.asarray(type_ptr) if isinstance(type_ptr, (list, tuple)) else type_ptr
        check_int_array(where, "type_ptr", ptr)
        if ptr.ndim != 1 or not 1 <= ptr.shape[0] <= self.num_types + 1:
            raise ValueError(
                f"{where}: type_ptr must be 1-D with at most num_types + 1 = "
                f"{self.num_types + 1} entries, got shape {tuple(ptr.shape)}"
            )
        counts = ptr[1:] - ptr[:-1]
        if int(ptr[0]) != 0 or int(ptr[-1]) != x.shape[0] or bool((counts < 0).any()):
            raise ValueError(
                f"{where}: type_ptr must rise from 0 to the number of rows of x "
                f"({x.shape[0]}), got {ptr.tolist()}"
            )
        return repeat_counts(xp, xp.arange(counts.shape[0], dtype=xp.int64), counts)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, num_types={self.num_types}"
