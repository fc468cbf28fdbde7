"""PyG's ``BatchNorm`` and ``HeteroBatchNorm`` at inference (eval mode).

``BatchNorm`` wraps a torch-style :class:`arraygnn.nn.BatchNorm` as ``module`` (PyG's
state-dict names ``module.weight``, ``module.running_mean``, ...): with running statistics
``y = (x - running_mean) / sqrt(running_var + eps) * weight + bias``; without them
(``track_running_stats=False``) the batch's own mean and biased variance, as torch in eval
mode. ``HeteroBatchNorm`` keeps one set of statistics and affine weights per type:
``y = (x - mean[t]) / sqrt(max(var[t], eps)) * weight[t] + bias[t]`` (PyG clamps the
variance rather than adding ``eps``); without running statistics the per-type mean and
biased variance come from :func:`arraygnn.ops.scatter`.

>>> import numpy as np
>>> from arraygnn.nn.norm import BatchNorm
>>> bn = BatchNorm(2, dtype=np.float64)
>>> bn.module.running_mean[:] = [1.0, 2.0]
>>> bn(np.array([[1.0, 4.0]])).round(3).tolist()
[[0.0, 2.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import BatchNorm as _TorchBatchNorm
from arraygnn.nn.norm._graphs import check_input, graph_ids, graph_mean, number, per_row, rows_mean

__all__ = ["BatchNorm", "HeteroBatchNorm", "batch_statistics_norm"]


def _momentum(where: str, momentum: Any) -> float | None:
    return None if momentum is None else number(where, "momentum", momentum)


def batch_statistics_norm(where: str, x: Any, bn: _TorchBatchNorm) -> Any:
    """``bn`` applied with the batch's own per-column mean and biased variance (torch's
    batch norm without running statistics); one row is a ``ValueError``, as in torch."""
    if x.shape[0] == 1:
        raise ValueError(
            f"{where}: without running statistics (track_running_stats=False) the input "
            "needs more than 1 row per channel, got x of shape (1, ...)"
        )
    xp = get_namespace(x)
    centred = x - rows_mean(x)
    out = centred / xp.sqrt(rows_mean(centred * centred) + bn.eps)
    if bn.weight is not None:
        out = out * bn.weight + bn.bias
    return out


class BatchNorm(Module):
    """PyG's ``torch_geometric.nn.norm.BatchNorm`` in eval mode.

    Args:
        in_channels: size of each input row.
        eps: added to the variance (default ``1e-5``).
        momentum: kept for PyG parity (training only).
        affine: learnt ``weight`` / ``bias`` (default ``True``).
        track_running_stats: use ``running_mean`` / ``running_var`` (default ``True``);
            ``False`` normalises with the input's own statistics (more than one row).
        allow_single_element: PyG's flag (needs ``track_running_stats``); in eval mode the
            running statistics are used anyway.

    Shapes:
        - input / output: ``(N, in_channels)``
    """

    _child_names = ("module",)

    def __init__(
        self,
        in_channels: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        allow_single_element: bool = False,
        *,
        dtype: Any = np.float32,
    ) -> None:
        self.in_channels = layer_size("BatchNorm", "in_channels", in_channels)
        if allow_single_element and not track_running_stats:
            raise ValueError(
                "BatchNorm: allow_single_element=True requires track_running_stats=True"
            )
        self.momentum = _momentum("BatchNorm", momentum)
        self.track_running_stats = bool(track_running_stats)
        self.allow_single_element = bool(allow_single_element)
        self.module = _TorchBatchNorm(
            self.in_channels, number("BatchNorm", "eps", eps), affine, dtype=dtype
        )
        if not self.track_running_stats:
            self.module.running_mean = self.module.running_var = None

    @property
    def eps(self) -> float:
        return self.module.eps

    def __call__(self, x: Any) -> Any:
        mod = self.module
        check_input("BatchNorm", x, self.in_channels, mod.running_mean)
        if self.track_running_stats:
            return mod(x)
        return batch_statistics_norm("BatchNorm", x, mod)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, eps={self.eps}, affine={self.module.weight is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class HeteroBatchNorm(Module):
    """PyG's ``HeteroBatchNorm`` in eval mode: batch norm per node / edge type.

    Call as ``norm(x, type_vec)`` with ``type_vec`` ``(N,)`` integer ids in
    ``[0, num_types)``.

    Shapes:
        - input / output: ``(N, in_channels)``; ``weight`` / ``running_*``
          ``(num_types, in_channels)``
    """

    _param_names = ("weight", "bias")
    _buffer_names = ("running_mean", "running_var")

    def __init__(
        self,
        in_channels: int,
        num_types: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        *,
        dtype: Any = np.float32,
    ) -> None:
        where = "HeteroBatchNorm"
        self.in_channels = c = layer_size(where, "in_channels", in_channels)
        self.num_types = t = layer_size(where, "num_types", num_types)
        self.eps = number(where, "eps", eps)
        self.momentum = _momentum(where, momentum)
        self.affine = bool(affine)
        self.track_running_stats = bool(track_running_stats)
        self.weight = np.ones((t, c), dtype=dtype) if affine else None
        self.bias = np.zeros((t, c), dtype=dtype) if affine else None
        self.running_mean = np.zeros((t, c), dtype=dtype) if track_running_stats else None
        self.running_var = np.ones((t, c), dtype=dtype) if track_running_stats else None

    def __call__(self, x: Any, type_vec: Any) -> Any:
        where = "HeteroBatchNorm"
        check_input(where, x, self.in_channels, self.weight)
        if type_vec is None:
            raise TypeError(f"{where}: type_vec (a type id per row of x) is required")
        types, _ = graph_ids(where, x, type_vec, self.num_types, "num_types", "type_vec")
        xp = get_namespace(x)
        if self.track_running_stats:
            mean, var = self.running_mean, self.running_var
        else:
            mean = graph_mean(x, types, self.num_types)
            centred = x - per_row(mean, types)
            var = graph_mean(centred * centred, types, self.num_types)
        inv = 1 / xp.sqrt(xp.maximum(var, self.eps))
        out = (x - per_row(mean, types)) * per_row(inv, types)
        if self.weight is not None:
            out = out * per_row(self.weight, types) + per_row(self.bias, types)
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, num_types={self.num_types}"
