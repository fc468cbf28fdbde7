"""PyG's ``InstanceNorm`` at inference (eval mode): normalisation per graph and channel.

Without running statistics (the default, ``track_running_stats=False``) each graph's rows
are centred by the graph's mean and scaled by ``sqrt(biased var + eps)``, per channel; the
statistics are per-graph means from :func:`arraygnn.ops.scatter` (no loop over graphs).
With ``track_running_stats=True`` eval mode uses ``running_mean`` / ``running_var`` for
every graph. ``affine=True`` then applies ``weight`` / ``bias``.

>>> import numpy as np
>>> from arraygnn.nn.norm import InstanceNorm
>>> x = np.array([[1.0], [3.0], [5.0]])
>>> InstanceNorm(1)(x, np.array([0, 0, 1])).round(3).ravel().tolist()
[-1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.norm._graphs import check_input, graph_ids, graph_mean, number, per_row, rows_mean

__all__ = ["InstanceNorm"]


class InstanceNorm(Module):
    """PyG's ``torch_geometric.nn.norm.InstanceNorm`` in eval mode.

    Call as ``norm(x, batch=None, batch_size=None)``; ``batch`` ``(N,)`` gives each row's
    graph (``None``: one graph), ``batch_size`` the number of graphs (left out:
    ``batch.max() + 1``).

    Args:
        in_channels: size of each input row.
        eps: added to the variance (default ``1e-5``).
        momentum: kept for PyG parity (training only).
        affine: learnt ``weight`` / ``bias`` (default ``False``).
        track_running_stats: use ``running_mean`` / ``running_var`` (default ``False``).

    Shapes:
        - input / output: ``(N, in_channels)``
    """

    _param_names = ("weight", "bias")
    _buffer_names = ("running_mean", "running_var")

    def __init__(
        self,
        in_channels: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        *,
        dtype: Any = np.float32,
    ) -> None:
        where = "InstanceNorm"
        self.in_channels = c = layer_size(where, "in_channels", in_channels)
        self.eps = number(where, "eps", eps)
        self.momentum = number(where, "momentum", momentum)
        self.affine = bool(affine)
        self.track_running_stats = bool(track_running_stats)
        self.weight = np.ones(c, dtype=dtype) if affine else None
        self.bias = np.zeros(c, dtype=dtype) if affine else None
        self.running_mean = np.zeros(c, dtype=dtype) if track_running_stats else None
        self.running_var = np.ones(c, dtype=dtype) if track_running_stats else None

    @property
    def num_features(self) -> int:
        return self.in_channels

    def __call__(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        where = "InstanceNorm"
        check_input(where, x, self.in_channels, self.weight)
        xp = get_namespace(x)
        if batch is not None:
            batch, size = graph_ids(where, x, batch, batch_size)
        if self.track_running_stats:
            out = (x - self.running_mean) / xp.sqrt(self.running_var + self.eps)
        elif batch is None:
            if x.shape[0] == 1:
                raise ValueError(
                    f"{where}: a single graph of one row (x of shape (1, ...)) has no "
                    "instance statistics (track_running_stats=False); torch refuses it too"
                )
            centred = x - rows_mean(x)
            out = centred / xp.sqrt(rows_mean(centred * centred) + self.eps)
        else:
            centred = x - per_row(graph_mean(x, batch, size), batch)
            var = graph_mean(centred * centred, batch, size)
            out = centred * per_row(1 / xp.sqrt(var + self.eps), batch)
        if self.weight is not None and self.bias is not None:
            out = out * self.weight + self.bias
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}"
