"""PyG's ``PMLP`` (Yang et al., 2023, "Graph neural networks are inherently good
generalizers") at inference: an MLP whose every layer, at test time, also averages over
each node's neighbourhood.

Per layer ``i``: ``x W_i^T``, then PyG's ``SimpleConv(aggr='mean',
combine_root='self_loop')`` (the mean over the in-neighbours and the node itself: one
self-loop per node added, one SpMM), then ``+ b_i``; between layers batch normalisation
with the statistics of the current batch (PyG builds it without running statistics, so
eval mode uses the batch's too) and ReLU. Dropout is the identity.

>>> import numpy as np
>>> model = PMLP(3, 8, 2, num_layers=2, rng=0)
>>> model(np.ones((4, 3), np.float32), np.array([[0, 1, 2], [1, 2, 3]])).shape
(4, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _ModuleList, _relu, _rng, matmul
from arraygnn.nn.simple_conv import SimpleConv

__all__ = ["PMLP"]

BATCH_NORM_EPS = 1e-5


def _batch_statistics_norm(x: Any) -> Any:
    """``BatchNorm1d(affine=False, track_running_stats=False)``: ``(x - mean) /
    sqrt(var + eps)`` over the rows (biased variance), in place on the layer's array."""
    if x.shape[0] == 0:  # nothing to normalise (NumPy's mean would warn)
        return x
    if x.shape[0] == 1:  # torch: "Expected more than 1 value per channel when training"
        raise ValueError(
            "PMLP: batch normalisation uses the batch's own statistics (PyG builds it "
            "without running statistics) and needs more than one node, got 1"
        )
    xp = get_namespace(x)
    mean = x.mean(axis=0)
    var = ((x - mean) ** 2).mean(axis=0)
    x -= mean
    x /= xp.sqrt(var + x.dtype.type(BATCH_NORM_EPS))
    return x


class PMLP(Module):
    """PyG's ``PMLP``.

    Args:
        in_channels, hidden_channels, out_channels: sizes.
        num_layers: the layers run (at least 1). PyG always builds at least two linear
            layers (``in -> hidden``, ``hidden -> out``); ``num_layers=1`` runs the first
            only, so the output is ``hidden_channels`` wide, as PyG's.
        dropout: ignored (inference).
        norm: batch normalisation between layers (default ``True``).
        bias: biases in the linear layers.

    Call as ``model(x, edge_index)`` (``edge_index`` is required at inference, as PyG's).

    Names: ``lins.i.weight`` ``(out, in)``, ``lins.i.bias``.
    """

    _child_names = ("lins",)

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        num_layers: int,
        dropout: float = 0.0,
        norm: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "PMLP"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.hidden_channels = layer_size(name, "hidden_channels", hidden_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.dropout = probability(name, "dropout", dropout)
        self.norm = bool(norm)
        self.bias = bool(bias)
        gen = _rng(rng)
        sizes = [self.in_channels] + [self.hidden_channels] * (max(self.num_layers, 2) - 1)
        sizes.append(self.out_channels)
        self.lins = _ModuleList(
            [Linear(a, b, self.bias, dtype=dtype, rng=gen) for a, b in zip(sizes, sizes[1:])]
        )
        self.conv = SimpleConv("mean", "self_loop")

    def __call__(self, x: Any, edge_index: Any = None) -> Any:
        if edge_index is None:
            raise ValueError("PMLP: edge_index is required at inference (as PyG's)")
        _check_features(x, self.in_channels, "PMLP node features")
        last = self.num_layers - 1
        for i in range(self.num_layers):
            lin = self.lins[i]
            x = self.conv(matmul(x, lin.weight.T), edge_index)
            if lin.bias is not None:
                x += lin.bias
            if i != last:
                if self.norm:
                    x = _batch_statistics_norm(x)
                x = _relu(x)
        return x

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, num_layers={self.num_layers}"


def from_pyg_module(module: Any, dtype: Any, convert: Callable[[Any], Any]) -> Module:
    """PyG's ``PMLP`` with its linear layers."""
    if module.norm is not None and module.norm.eps != BATCH_NORM_EPS:
        raise ValueError(f"from_pyg: PMLP with norm eps={module.norm.eps} is not supported")
    model = PMLP(
        module.in_channels,
        module.hidden_channels,
        module.out_channels,
        module.num_layers,
        norm=module.norm is not None,
        bias=module.bias,
        dtype=dtype,
    )
    model.load_state_dict(module.state_dict(), format="pyg")
    return model
