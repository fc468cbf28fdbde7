"""ARMA graph convolution (Bianchi et al., 2021): PyG's ``ARMAConv``.

``X' = 1/K sum_k X_k^(T)`` over ``K`` parallel stacks of ``T`` layers each,
``X_k^(t+1) = act(S X_k^(t) W_k^(t) + X V_k^(t) + b_k^(t))`` with ``X_k^(0) = X``, the
first layer's ``W`` being ``init_weight``, ``S = D^-1/2 A D^-1/2`` (PyG's ``gcn_norm``
without self-loops, edge weights allowed) and ``X`` the layer's input in every skip term.

How it runs: the ``K`` stacks share each propagation: their features sit side by side as
one ``[N, K * out]`` array and each layer is one SpMM over the CSR (weights in slot
order), never an ``[E, F]`` message. The first layer propagates the narrower of ``X`` and
``X W^(0)`` (``S (X W) = (S X) W``, the same numbers up to rounding). Dropout (of the
skip term) is the identity at inference.

>>> import numpy as np
>>> conv = ARMAConv(4, 2, num_stacks=3, num_layers=2, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.graph_conv import normalized_slots
from arraygnn.nn.linear import (
    _check_features,
    _relu,
    _rng,
    add_bias,
    get_activation,
    glorot,
    matmul,
)
from arraygnn.nn.sgc import propagation_input

__all__ = ["ARMAConv"]


class ARMAConv(Module):
    r"""PyG's ``ARMAConv``: :math:`X' = \frac{1}{K} \sum_{k=1}^{K} X_k^{(T)}`,
    :math:`X_k^{(t+1)} = \sigma(\hat L X_k^{(t)} W + X^{(0)} V)`.

    Args:
        in_channels / out_channels: sizes.
        num_stacks: parallel stacks ``K`` (default 1).
        num_layers: layers ``T`` per stack (default 1).
        shared_weights: the layers of a stack share ``W``, ``V`` and the bias.
        act: activation ``sigma`` after every layer: a name (``'relu'``, the default, as
            PyG's ``ReLU()``), a callable on arrays or ``None``.
        dropout: accepted and ignored (dropout is the identity at inference).
        bias: learn a bias per layer and stack.

    Call as ``conv(x, edge_index, edge_weight=None)`` or ``conv(graph, feat,
    edge_weight=None)`` (a homogeneous graph).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, out_channels)``

    Names (PyG), ``T' = 1`` with ``shared_weights`` else ``T``: ``init_weight``
    ``(K, in, out)``, ``weight`` ``(max(1, T' - 1), K, out, out)``, ``root_weight``
    ``(T', K, in, out)``, ``bias`` ``(T', K, 1, out)``.
    """

    _param_names = ("weight", "init_weight", "root_weight", "bias")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_stacks: int = 1,
        num_layers: int = 1,
        shared_weights: bool = False,
        act: Any = "relu",
        dropout: float = 0.0,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "ARMAConv"
        self.in_channels = fin = layer_size(layer, "in_channels", in_channels)
        self.out_channels = fout = layer_size(layer, "out_channels", out_channels)
        self.num_stacks = k = layer_size(layer, "num_stacks", num_stacks, minimum=1)
        self.num_layers = layer_size(layer, "num_layers", num_layers, minimum=1)
        self.shared_weights = bool(shared_weights)
        self.act = get_activation(act)
        self.dropout = probability(layer, "dropout", dropout)
        t = 1 if self.shared_weights else self.num_layers
        gen = _rng(rng)
        self.weight = glorot((max(1, t - 1), k, fout, fout), gen, dtype)
        self.init_weight = glorot((k, fin, fout), gen, dtype)
        self.root_weight = glorot((t, k, fin, fout), gen, dtype)
        self.bias = np.zeros((t, k, 1, fout), dtype=dtype) if bias else None

    def _side_by_side(self, w: Any) -> Any:
        """``(K, A, out)`` per-stack weights as one ``(A, K * out)`` matrix."""
        k, rows, cols = (int(s) for s in w.shape)
        return w.transpose(1, 0, 2).reshape(rows, k * cols)

    def _per_stack(self, h: Any, w: Any) -> Any:
        """Stack ``k``'s block of ``h`` ``(N, K * out)`` times ``w[k]`` ``(out, out)``."""
        if self.num_stacks == 1:
            return matmul(h, w[0])
        xp = get_namespace(h)
        cols = self.out_channels
        res = xp.empty(h.shape, dtype=np.result_type(h.dtype, w.dtype))
        for k in range(self.num_stacks):
            part = slice(k * cols, (k + 1) * cols)
            res[:, part] = matmul(h[:, part], w[k])
        return res

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        layer = "ARMAConv"
        inp = propagation_input(layer, x_or_graph, edge_index_or_feat, edge_weight)
        x = inp.x_src
        _check_features(x, self.in_channels, f"{layer} x", self.init_weight)
        csr, w = normalized_slots(inp.edge_index, edge_weight, inp.num_src, False, False, x.dtype)
        w = w.astype(x.dtype, copy=False)
        k, cols, shared = self.num_stacks, self.out_channels, self.shared_weights
        first = self._side_by_side(self.init_weight)
        if self.in_channels < k * cols:  # propagate the narrower side
            out = matmul(spmm_slots(csr, x, w), first)
        else:
            out = spmm_slots(csr, matmul(x, first), w)
        root = None
        for t in range(self.num_layers):
            if t:
                out = spmm_slots(csr, self._per_stack(out, self.weight[0 if shared else t - 1]), w)
            if root is None or not shared:
                root = matmul(x, self._side_by_side(self.root_weight[0 if shared else t]))
            out = add_bias(out, root)  # in place: out is an array made here
            if self.bias is not None:
                out = add_bias(out, self.bias[0 if shared else t].reshape(k * cols))
            if self.act is _relu:  # in place: out is an array made here
                get_namespace(out).maximum(out, 0, out=out)
            elif self.act is not None:
                out = self.act(out)
        return out.reshape(out.shape[0], k, cols).mean(axis=1)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, num_stacks={self.num_stacks}, "
            f"num_layers={self.num_layers}"
        )
