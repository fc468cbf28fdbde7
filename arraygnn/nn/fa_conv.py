"""Frequency adaptive graph convolution (FAGCN, Bo et al., 2021): PyG's ``FAConv``.

``x_i' = eps x0_i + sum_{j -> i} tanh(a_l . x_j + a_r . x_i) w_ji x_j`` with ``w`` the GCN
normalisation of the graph (PyG's ``gcn_norm``, self-loops added unless
``add_self_loops=False``) or, with ``normalize=False``, the given ``edge_weight``.

How it runs (no ``[E, F]`` message array is formed): one product gives both attention
halves per node (``[N, 2]``), one SDDMM ``add`` gives each edge's scalar score in the CSR's
slot order, ``tanh`` and the edge weight scale it in place, and one weighted SpMM sums the
sources.

>>> import numpy as np
>>> conv = FAConv(4, eps=0.2, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> conv(x, x, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._graph_input import csr_of, refuse_graph_in_x_x0_call
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.graph_conv import normalized_slots
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, matmul
from arraygnn.nn.sgc import propagation_input

__all__ = ["FAConv"]


class FAConv(Module):
    r"""PyG's ``FAConv``:
    :math:`x_i' = \epsilon x^{(0)}_i + \sum_{j \in N(i)} \frac{\alpha_{ij}}{\sqrt{d_i d_j}}
    x_j`, :math:`\alpha_{ij} = \tanh(a^\top [x_i, x_j])`.

    Args:
        channels: feature size (input = output).
        eps: weight of the initial features ``x_0`` (default 0.1; 0 leaves ``x_0`` unread).
        dropout: accepted and ignored (dropout is the identity at inference).
        cached: keep the normalised graph from the first call (transductive use, as PyG).
        add_self_loops: add the remaining self-loops while normalising (default ``True``).
        normalize: GCN-normalise the graph (default ``True``; ``edge_weight`` must then be
            ``None``, as PyG); ``False`` needs ``edge_weight``.

    Call as ``conv(x, x_0, edge_index, edge_weight=None, return_attention_weights=None)``.
    With ``return_attention_weights`` ``True`` or ``False`` (PyG's rule: any bool) the
    result is ``(out, (edge_index, alpha))``: the edges propagated over (self-loops
    appended when they were added), ``(2, E')``, and their ``tanh`` scores ``(E',)`` in
    that order.

    Shapes:
        - input: x ``(N, channels)``, x_0 ``(N, channels)``, edge_index ``(2, E)``,
          edge_weight ``(E,)`` (``normalize=False`` only)
        - output: ``(N, channels)``

    Names (PyG): ``att_l.weight`` ``(1, channels)`` (the source half), ``att_r.weight``.
    """

    _child_names = ("att_l", "att_r")

    def __init__(
        self,
        channels: int,
        eps: float = 0.1,
        dropout: float = 0.0,
        cached: bool = False,
        add_self_loops: bool = True,
        normalize: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.channels = layer_size("FAConv", "channels", channels)
        self.eps = float(eps)
        self.dropout = probability("FAConv", "dropout", dropout)
        self.cached = bool(cached)
        self.add_self_loops = bool(add_self_loops)
        self.normalize = bool(normalize)
        gen = _rng(rng)
        self.att_l = Linear(self.channels, 1, False, dtype=dtype, rng=gen)
        self.att_r = Linear(self.channels, 1, False, dtype=dtype, rng=gen)
        self._cache: Any = None

    def _clear_cache(self) -> None:
        self._cache = None

    def _graph(self, inp: Any, edge_weight: Any, dtype: Any) -> tuple[Any, Any]:
        """``(csr, weights in slot order)`` propagated over."""
        from arraygnn.ops.slot_order import to_slot_order

        if not self.normalize:
            if edge_weight is None:
                raise ValueError(
                    "FAConv: normalize=False needs edge_weight (the weights propagated over, "
                    "as PyG)"
                )
            csr = csr_of(inp)
            return csr, to_slot_order(csr, edge_weight)
        if edge_weight is not None:
            raise ValueError(
                "FAConv: normalize=True computes the edge weights itself; pass "
                "edge_weight=None (as PyG) or build the layer with normalize=False"
            )
        if self.cached and self._cache is not None:
            return self._cache
        csr, w = normalized_slots(
            inp.edge_index, None, inp.num_src, False, self.add_self_loops, dtype
        )
        if self.cached:
            self._cache = (csr, w)
        return csr, w

    def __call__(
        self,
        x: Any,
        x_0: Any,
        edge_index: Any,
        edge_weight: Any = None,
        return_attention_weights: bool | None = None,
    ) -> Any:
        from arraygnn.ops.slot_order import sddmm_slots, spmm_slots, to_edge_order

        layer = "FAConv"
        refuse_graph_in_x_x0_call(layer, x, edge_index)
        inp = propagation_input(layer, x, edge_index, edge_weight)
        x = inp.x_src
        _check_features(x, self.channels, f"{layer} x", self.att_l.weight)
        if self.eps != 0.0:
            if not is_array(x_0):
                raise TypeError(
                    f"{layer}: x_0 must be a NumPy or CuPy array, got "
                    f"{type(x_0).__name__}{torch_hint(x_0)}"
                )
            if x_0.dtype.kind != "f":
                raise TypeError(f"{layer}: x_0 must hold floating-point values, got {x_0.dtype}")
            if tuple(x_0.shape) != tuple(x.shape):
                raise ValueError(
                    f"{layer}: x_0 must have the shape of x {tuple(x.shape)}, got "
                    f"{tuple(x_0.shape)}"
                )
            get_namespace(x, x_0)
        csr, w = self._graph(inp, edge_weight, x.dtype)
        xp = get_namespace(x)
        att = xp.concatenate([self.att_l.weight, self.att_r.weight], axis=0)
        halves = matmul(x, att.T)  # [N, 2]: source half | target half
        score = sddmm_slots(csr, halves[:, :1], halves[:, 1:], "add")  # [E', 1], slot order
        alpha = xp.tanh(score[:, 0])
        out = spmm_slots(csr, x, alpha * w)
        if self.eps != 0.0:
            out = add_bias(out, x_0 * x_0.dtype.type(self.eps))
        if isinstance(return_attention_weights, (bool, np.bool_)):
            edges = xp.stack([csr.src, csr.dst])
            return out, (edges, to_edge_order(csr, alpha))
        return out

    def extra_repr(self) -> str:
        return f"{self.channels}, eps={self.eps}"
