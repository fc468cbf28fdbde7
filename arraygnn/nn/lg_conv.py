"""LightGCN's light graph convolution (He et al., 2020): PyG's ``LGConv``.

``x_i' = sum_{j -> i} e_ji / sqrt(deg(i) deg(j)) x_j``: no weights, no self-loops, no
nonlinearity. ``deg`` is the weighted in-degree (PyG's ``gcn_norm`` without self-loops,
``deg^-1/2 := 0`` for a node without in-edges); ``normalize=False`` sums ``e_ji x_j`` over
the graph as given. One CSR, one SpMM with the weights in the CSR's slot order: no
per-edge feature array is formed.

>>> import numpy as np
>>> conv = LGConv()
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 3)
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn._module import Module
from arraygnn.nn.sgc import _propagation, propagation_input

__all__ = ["LGConv"]


class LGConv(Module):
    r"""PyG's ``LGConv``: :math:`x_i' = \sum_{j \in N(i)} \frac{e_{ji}}{\sqrt{\deg(i)
    \deg(j)}} x_j`.

    Args:
        normalize: symmetric normalisation by the weighted in-degrees (default ``True``;
            PyG's ``gcn_norm`` with ``add_self_loops=False``); ``False`` propagates
            ``edge_weight * x_j`` (or ``x_j``) as given.

    Call as ``conv(x, edge_index, edge_weight=None)`` or ``conv(graph, feat,
    edge_weight=None)`` (a homogeneous graph).

    Shapes:
        - input: x ``(N, F)``, edge_index ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N, F)``

    No parameters (an empty state dict, as PyG's).
    """

    def __init__(self, normalize: bool = True) -> None:
        self.normalize = bool(normalize)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        inp = propagation_input("LGConv", x_or_graph, edge_index_or_feat, edge_weight)
        csr, w = _propagation(inp, edge_weight, self.normalize, False, inp.x_src.dtype)
        return spmm_slots(csr, inp.x_src, w)

    def extra_repr(self) -> str:
        return f"normalize={self.normalize}"
