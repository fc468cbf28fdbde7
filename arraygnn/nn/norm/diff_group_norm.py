"""PyG's ``DiffGroupNorm`` at inference (eval mode): differentiable group normalisation.

Each row is softly assigned to ``groups`` clusters, ``s = softmax(x @ lin.weight.T)``
``(N, G)``; the group-weighted copies ``s[:, g] * x`` are batch-normalised per group and
channel (``norm``, a batch norm over ``G * F`` features) and summed over the groups:
``y = x + lamda * sum_g norm(s[:, g] * x)``.

With running statistics (the default) the batch norm is affine per feature, so the sum
folds into ``y = x + lamda * (x * (s @ A) + c)`` with ``A = weight / sqrt(running_var +
eps)`` ``(G, F)`` and ``c = sum_g (bias - running_mean * A)``: two small products, never
the ``(N, G, F)`` tensor. Without running statistics (``track_running_stats=False``) the
batch statistics need the ``(N, G * F)`` copies, which are then materialised.

>>> import numpy as np
>>> from arraygnn.nn.norm import DiffGroupNorm
>>> DiffGroupNorm(3, groups=2, rng=0)(np.ones((4, 3), np.float32)).shape
(4, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_input import softmax
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import BatchNorm as _TorchBatchNorm
from arraygnn.nn.linear import Linear, matmul
from arraygnn.nn.norm._graphs import check_input, number
from arraygnn.nn.norm.batch_norm import batch_statistics_norm

__all__ = ["DiffGroupNorm"]


class DiffGroupNorm(Module):
    """PyG's ``torch_geometric.nn.norm.DiffGroupNorm`` in eval mode: call as ``norm(x)``.

    Args:
        in_channels: size of each input row ``F``.
        groups: number of groups ``G``.
        lamda: weight of the normalised sum (default ``0.01``).
        eps, momentum, affine, track_running_stats: of the inner batch norm ``norm``
            over ``G * F`` features (``momentum`` kept for PyG parity).
        rng: seed for the initial ``lin`` weights.

    Shapes:
        - input / output: ``(N, in_channels)``; ``lin.weight`` ``(groups, in_channels)``
    """

    _child_names = ("lin", "norm")

    def __init__(
        self,
        in_channels: int,
        groups: int,
        lamda: float = 0.01,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "DiffGroupNorm"
        self.in_channels = f = layer_size(where, "in_channels", in_channels)
        self.groups = g = layer_size(where, "groups", groups, minimum=1)
        self.lamda = number(where, "lamda", lamda, None)
        self.momentum = None if momentum is None else number(where, "momentum", momentum)
        self.track_running_stats = bool(track_running_stats)
        self.lin = Linear(f, g, bias=False, dtype=dtype, rng=rng)
        self.norm = _TorchBatchNorm(g * f, number(where, "eps", eps), affine, dtype=dtype)
        if not self.track_running_stats:
            self.norm.running_mean = self.norm.running_var = None

    def __call__(self, x: Any) -> Any:
        where = "DiffGroupNorm"
        check_input(where, x, self.in_channels, self.lin.weight)
        xp = get_namespace(x)
        g, f, bn = self.groups, self.in_channels, self.norm
        s = softmax(matmul(x, self.lin.weight.T))  # (N, G)
        if self.track_running_stats:
            a = 1 / xp.sqrt(bn.running_var + bn.eps)
            shift = -bn.running_mean * a
            if bn.weight is not None:
                a = a * bn.weight
                shift = shift * bn.weight + bn.bias
            out = x * matmul(s, a.reshape(g, f)) + shift.reshape(g, f).sum(axis=0)
            return x + self.lamda * out
        copies = (s[:, :, None] * x[:, None, :]).reshape(x.shape[0], g * f)
        normed = batch_statistics_norm(where, copies, bn)
        return x + self.lamda * normed.reshape(-1, g, f).sum(axis=1)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, groups={self.groups}"
