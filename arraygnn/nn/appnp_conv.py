"""DGL's ``APPNPConv``: personalised-PageRank propagation under DGL's name and arguments.

The maths is :class:`arraygnn.nn.APPNP` with ``degree_norm='dgl'`` (checked against a
transcription of DGL's forward): no self-loops; without ``edge_weight`` each step is
``(1 - alpha) D_in^-1/2 A D_out^-1/2 X + alpha X_0`` with edge-count degrees clamped at 1;
with ``edge_weight`` the weights first go through ``EdgeWeightNorm('both')`` (DGL's). Each
step is one SpMM over the CSR with the weights in slot order. ``edge_drop`` is DGL's
dropout on the edge weights: the identity at inference.

>>> import numpy as np
>>> import arraygnn
>>> g = arraygnn.graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
>>> APPNPConv(k=3, alpha=0.1)(g, np.eye(3, dtype=np.float32)).shape
(3, 3)
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn._dgl_common import one_node_set
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.sgc import APPNP, _homogeneous

__all__ = ["APPNPConv"]


class APPNPConv(APPNP):
    """DGL's ``APPNPConv(k, alpha, edge_drop=0.0)`` (inference; no weights).

    Call as ``conv(graph, feat, edge_weight=None)`` or ``conv(x, edge_index, edge_weight)``
    (one node set, as DGL's). ``feat`` ``(N, *)``; ``edge_weight`` ``(E,)`` positive
    (normalised by ``EdgeWeightNorm('both')``; a non-positive one is a ``ValueError``).

    Shapes:
        - input / output: ``(N, *)``

    No weights: ``state_dict(format='dgl')`` is ``{}``, as DGL's.
    """

    _dgl_supported = True  # DGL's (empty) state dict, by DGL's names

    def __init__(self, k: int, alpha: float, edge_drop: float = 0.0) -> None:
        k = layer_size("APPNPConv", "k", k)  # errors in DGL's names, not APPNP's K
        if not 0.0 <= float(alpha) <= 1.0:
            raise ValueError(f"APPNPConv: alpha must be in [0, 1], got {alpha}")
        super().__init__(k, alpha, add_self_loops=False, degree_norm="dgl")
        self.edge_drop = probability("APPNPConv", "edge_drop", edge_drop)

    def __call__(self, graph_or_x: Any, feat_or_edge_index: Any, edge_weight: Any = None) -> Any:
        inp = _homogeneous("APPNPConv", graph_or_x, feat_or_edge_index, edge_weight)
        if not one_node_set(inp):  # a pair or a bipartite graph of equal sizes too
            raise ValueError(
                "APPNPConv needs a homogeneous graph (one node set: DGL reads graph.ndata), "
                "not a bipartite pair, a bipartite graph or a block"
            )
        if edge_weight is not None and inp.num_edges and bool((edge_weight <= 0).any()):
            raise ValueError(  # DGL's EdgeWeightNorm('both') error, naming the layer
                "APPNPConv: non-positive edge weight in edge_weight (DGL normalises it by "
                "EdgeWeightNorm('both'): the square root of a zero or negative degree)"
            )
        return super().__call__(graph_or_x, feat_or_edge_index, edge_weight)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return dict(values)

    def extra_repr(self) -> str:
        return f"k={self.K}, alpha={self.alpha}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> APPNPConv:
    """DGL's ``APPNPConv`` -> :class:`APPNPConv` (``edge_drop`` kept, unused at inference)."""
    return APPNPConv(module._k, module._alpha, float(module.edge_drop.p))
