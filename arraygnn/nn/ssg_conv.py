"""Simple spectral graph convolution (Zhu & Koniusz, 2021): PyG's ``SSGConv``.

``X' = (alpha X + (1 - alpha) / K sum_{k=1}^{K} S^k X) W + b`` with ``S`` the GCN
normalisation of ``A + I`` (PyG's ``gcn_norm``; ``A`` without loops added when
``add_self_loops=False``), edge weights allowed.

How it runs: the graph is normalised once into a CSR with its weights in slot order and
each hop is one SpMM (no per-edge feature array). Without ``cached`` the hops run on the
narrower side of ``W`` (``X W`` first when ``out_channels < in_channels``: the same
numbers up to rounding); with ``cached`` they run on ``X``, whose mix is kept as PyG keeps
it.

>>> import numpy as np
>>> conv = SSGConv(4, 2, alpha=0.1, K=3, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.graph_conv import normalized_slots
from arraygnn.nn.linear import Linear, _check_features, add_bias, matmul
from arraygnn.nn.sgc import propagation_input

__all__ = ["SSGConv"]


class SSGConv(Module):
    r"""PyG's ``SSGConv``:
    :math:`X' = \frac{1}{K} \sum_{k=1}^{K} ((1 - \alpha) S^k X + \alpha X)\, \Theta`.

    Args:
        in_channels / out_channels: sizes.
        alpha: teleport probability.
        K: number of hops (default 1; 0 gives ``alpha X W + b``, as PyG).
        cached: keep the propagated mix from the first call (transductive use, as PyG).
        add_self_loops: ``S`` of ``A + I`` (default ``True``).
        bias: a bias in ``lin``.

    Call as ``conv(x, edge_index, edge_weight=None)`` or ``conv(graph, feat,
    edge_weight=None)`` (a homogeneous graph).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Names (PyG): ``lin.weight`` ``(out, in)``, ``lin.bias``.
    """

    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        alpha: float,
        K: int = 1,
        cached: bool = False,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("SSGConv", "in_channels", in_channels)
        self.out_channels = layer_size("SSGConv", "out_channels", out_channels)
        self.alpha = float(alpha)
        self.K = layer_size("SSGConv", "K", K)
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.lin = Linear(self.in_channels, self.out_channels, bias, dtype=dtype, rng=rng)
        self._cache: Any = None

    def _clear_cache(self) -> None:
        self._cache = None

    def _mix(self, inp: Any, x: Any, edge_weight: Any) -> Any:
        """``alpha x + (1 - alpha) / K sum_k S^k x``."""
        from arraygnn.ops.slot_order import spmm_slots

        h = x * x.dtype.type(self.alpha)
        if self.K == 0:
            return h
        csr, w = normalized_slots(
            inp.edge_index, edge_weight, inp.num_src, False, self.add_self_loops, x.dtype
        )
        w = w.astype(x.dtype, copy=False)
        coef = x.dtype.type((1 - self.alpha) / self.K)
        for _ in range(self.K):
            x = spmm_slots(csr, x, w)
            h += coef * x
        return h

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        layer = "SSGConv"
        inp = propagation_input(layer, x_or_graph, edge_index_or_feat, edge_weight)
        x = inp.x_src
        _check_features(x, self.in_channels, f"{layer} x", self.lin.weight)
        if self.cached:
            if self._cache is None:
                self._cache = self._mix(inp, x, edge_weight)
            return self.lin(self._cache)
        if self.out_channels < self.in_channels:  # propagate the narrower side
            out = self._mix(inp, matmul(x, self.lin.weight.T), edge_weight)
            return out if self.lin.bias is None else add_bias(out, self.lin.bias)
        return self.lin(self._mix(inp, x, edge_weight))

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, K={self.K}, alpha={self.alpha}"
