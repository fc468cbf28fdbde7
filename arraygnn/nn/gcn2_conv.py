"""GCNII (Chen et al., 2020): PyG's ``GCN2Conv``, GCN propagation with an initial residual
and an identity mapping, for deep GCNs.

``x' = ((1 - alpha) P x + alpha x_0) ((1 - beta) I + beta W)`` with ``P`` the GCN-normalised
adjacency (self-loops added), ``beta = log(theta / layer + 1)`` (1 without ``theta``), and
``W`` shared by both terms unless ``shared_weights=False`` (then ``x_0`` has its own
``weight2``). One fused SpMM over a CSR whose weights are in slot order.

>>> import numpy as np
>>> conv = GCN2Conv(4, alpha=0.1, theta=0.5, layer=1, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> conv(x, x, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.nn._graph_input import (
    check_float_features,
    parse_input,
    refuse_graph_in_x_x0_call,
)
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_conv import gcn_graph
from arraygnn.nn.linear import _check_features, glorot, matmul

__all__ = ["GCN2Conv"]


class GCN2Conv(Module):
    """PyG's ``GCN2Conv``.

    Args:
        channels: feature size (input = output).
        alpha: weight of the initial features ``x_0``.
        theta, layer: ``beta = log(theta / layer + 1)``; both or neither (``beta = 1``).
        shared_weights: one weight for ``x`` and ``x_0`` (``weight1``), else ``weight2`` too.
        cached: keep the normalised graph after the first call.
        add_self_loops, normalize: as PyG's ``GCN2Conv`` (self-loops are added only while
            normalising: ``normalize=False`` ignores ``add_self_loops``).

    Call as ``conv(x, x_0, edge_index, edge_weight=None)``; ``x_0`` may have more rows than
    ``x`` (its first rows are used).

    Shapes:
        - input: ``x`` ``(N, channels)``, ``x_0`` ``(>= N, channels)``
        - output: ``(N, channels)``

    Names (PyG): ``weight1`` ``(channels, channels)``, ``weight2``.
    """

    _param_names = ("weight1", "weight2")

    def __init__(
        self,
        channels: int,
        alpha: float,
        theta: float | None = None,
        layer: int | None = None,
        shared_weights: bool = True,
        cached: bool = False,
        add_self_loops: bool = True,
        normalize: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GCN2Conv"
        self.channels = layer_size(name, "channels", channels)
        self.alpha = float(alpha)
        if (theta is None) != (layer is None):
            raise ValueError(f"{name}: give both theta and layer, or neither")
        self.beta = 1.0 if theta is None else math.log(theta / layer + 1)
        self.cached, self.add_self_loops, self.normalize = (
            bool(cached), bool(add_self_loops), bool(normalize),
        )  # fmt: skip
        self.weight1 = glorot((self.channels, self.channels), rng, dtype)
        self.weight2 = (
            None if shared_weights else glorot((self.channels, self.channels), rng, dtype)
        )
        self._cache: tuple[Any, Any] | None = None

    def _clear_cache(self) -> None:
        self._cache = None

    def _graph(self, inp: Any, edge_weight: Any, dtype: Any) -> tuple[Any, Any]:
        if self.cached and self._cache is not None:
            return self._cache
        graph = gcn_graph(
            "GCN2Conv", inp, edge_weight, self.normalize, False, self.add_self_loops, dtype
        )
        if self.cached:
            self._cache = graph
        return graph

    def __call__(self, x: Any, x_0: Any, edge_index: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        layer = "GCN2Conv"
        refuse_graph_in_x_x0_call(layer, x, edge_index)
        inp = parse_input(layer, x, edge_index)
        if inp.pair:  # PyG's x is one tensor; x_dst would be silently dropped
            raise ValueError("GCN2Conv: x must be one feature array, not a pair (x_src, x_dst)")
        check_float_features("GCN2Conv", inp.x_src)
        _check_features(inp.x_src, self.channels, "GCN2Conv x", self.weight1)
        _check_features(x_0, self.channels, "GCN2Conv x_0", self.weight1)
        check_float_features("GCN2Conv", x_0, what="x_0")
        n = inp.num_dst
        if x_0.shape[0] < n:
            raise ValueError(f"GCN2Conv: x_0 has {x_0.shape[0]} rows, fewer than x ({n})")
        csr, w = self._graph(inp, edge_weight, inp.x_src.dtype)
        h = spmm_slots(csr, inp.x_src, w) * (1 - self.alpha)
        h0 = self.alpha * x_0[:n]
        b = self.beta
        if self.weight2 is None:
            h = h + h0
            return (1 - b) * h + b * matmul(h, self.weight1)
        return (
            (1 - b) * h
            + b * matmul(h, self.weight1)
            + ((1 - b) * h0 + b * matmul(h0, self.weight2))
        )

    def extra_repr(self) -> str:
        return f"{self.channels}, alpha={self.alpha}, beta={self.beta}"
