"""DGL's ``EdgeWeightNorm``: GCN-style normalisation of scalar edge weights.

``norm='both'``: ``w_e / sqrt((W_out(src) + eps) (W_in(dst) + eps))`` with ``W_out`` /
``W_in`` the weighted out- and in-degrees; ``'right'`` (and ``'left'``, which DGL's code
computes the same way, whatever its docstring says): ``w_e / (W_in(dst) + eps)``;
``'none'``: the weights unchanged (a copy). A non-positive weight with ``'both'`` is a
``ValueError``, as DGL's error. Two scatters (weighted degrees) and two gathers; no
parameters.

>>> import numpy as np
>>> import arraygnn
>>> g = arraygnn.graph((np.array([0, 1, 1]), np.array([1, 0, 0])))
>>> EdgeWeightNorm("right")(g, np.array([1.0, 1.0, 3.0])).tolist()
[1.0, 0.25, 0.75]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_rsqrt
from arraygnn.nn._graph_input import check_edge_weight, is_graph

__all__ = ["EdgeWeightNorm"]

_NORMS = ("both", "right", "left", "none")


class EdgeWeightNorm:
    """DGL's ``EdgeWeightNorm(norm='both', eps=0.0)``; no weights.

    Call as ``norm(graph, edge_weight)`` with a homogeneous graph, a bipartite graph or a
    block (DGL's), or ``norm(edge_index, edge_weight, num_nodes=(N_src, N_dst))`` (an int
    for one node set). ``edge_weight`` ``(E,)`` floating point; the result ``(E,)`` in its
    dtype, in edge order, to pass as ``edge_weight`` to ``GraphConv(norm='none')`` and the
    like.
    """

    def __init__(self, norm: str = "both", eps: float = 0.0) -> None:
        if norm not in _NORMS:
            raise ValueError(f"EdgeWeightNorm: norm must be one of {_NORMS}, got {norm!r}")
        self.norm = norm
        self.eps = float(eps)

    def __call__(self, graph: Any, edge_weight: Any, num_nodes: Any = None) -> Any:
        from arraygnn import ops

        layer = "EdgeWeightNorm"
        src, dst, num_src, num_dst = _edges(layer, graph, num_nodes)
        if getattr(edge_weight, "ndim", 1) > 1:
            raise ValueError(
                f"{layer}: edge_weight must be one scalar per edge (E,), got shape "
                f"{tuple(edge_weight.shape)}; normalise higher-dimensional weights yourself"
            )
        if edge_weight is None:
            raise TypeError(f"{layer}: edge_weight is required, shape ({int(src.shape[0])},)")
        check_edge_weight(layer, edge_weight, int(src.shape[0]))
        get_namespace(edge_weight, src)  # refuses a NumPy / CuPy mix
        if self.norm == "none":
            return edge_weight.copy()
        dtype = edge_weight.dtype
        eps = dtype.type(self.eps)
        if self.norm == "both" and src.shape[0] and bool((edge_weight <= 0).any()):
            raise ValueError(
                f"{layer}: non-positive edge_weight with norm='both' (the square root of a "
                "zero or negative degree)"
            )
        w_in = ops.scatter(edge_weight, dst, num_dst, reduce="sum") + eps
        with _quiet():
            if self.norm == "both":
                w_out = ops.scatter(edge_weight, src, num_src, reduce="sum") + eps
                src_norm = torch_rsqrt(w_out)
                dst_norm = torch_rsqrt(w_in)
                return src_norm[src] * dst_norm[dst] * edge_weight
            return dtype.type(1) / w_in[dst] * edge_weight

    def __repr__(self) -> str:
        return f"EdgeWeightNorm(norm={self.norm!r}, eps={self.eps})"


def _quiet() -> Any:
    return np.errstate(divide="ignore", invalid="ignore")  # DGL's inf / nan, unwarned


def _edges(layer: str, graph: Any, num_nodes: Any) -> tuple[Any, Any, int, int]:
    """``(src, dst, N_src, N_dst)`` of a DGL-face graph or an ``edge_index`` with sizes."""
    if is_graph(graph):
        src, dst = graph.edges()
        n_src = graph.number_of_src_nodes() if hasattr(graph, "number_of_src_nodes") else None
        n_dst = int(graph.number_of_dst_nodes())
        return src, dst, int(n_dst if n_src is None else n_src), n_dst
    if num_nodes is None:
        raise TypeError(
            f"{layer}: call as norm(graph, edge_weight), or norm(edge_index, edge_weight, "
            "num_nodes=...) with the node count(s)"
        )
    from arraygnn.ops._common import check_index, check_size

    if not is_array(graph) or graph.ndim != 2 or graph.shape[0] != 2:
        raise TypeError(f"{layer}: the first argument must be a graph or an edge_index (2, E)")
    sizes = num_nodes if isinstance(num_nodes, (tuple, list)) else (num_nodes, num_nodes)
    if len(sizes) != 2:
        raise ValueError(
            f"{layer}: num_nodes must be one count or a pair (N_src, N_dst), got {num_nodes!r}"
        )
    n_src = check_size(f"{layer}: num_nodes", sizes[0])
    n_dst = check_size(f"{layer}: num_nodes", sizes[1])
    check_index(f"{layer}: edge_index[0]", graph[0], n_src)
    check_index(f"{layer}: edge_index[1]", graph[1], n_dst)
    return graph[0], graph[1], n_src, n_dst


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EdgeWeightNorm:
    """DGL's ``EdgeWeightNorm`` -> :class:`EdgeWeightNorm` (``norm`` and ``eps``)."""
    return EdgeWeightNorm(module._norm, module._eps)
