"""Homophily of node labels over a homogeneous :class:`Graph` (DGL's ``node_homophily``,
``edge_homophily`` and ``linkx_homophily``).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.graph.homophily import edge_homophily, node_homophily
>>> g = graph((np.array([1, 2, 0, 4]), np.array([0, 1, 2, 3])), num_nodes=5)
>>> y = np.array([0, 0, 0, 0, 1])
>>> edge_homophily(g, y), round(node_homophily(g, y), 6)
(0.75, 0.6)

RULE: ``N(v)`` are ``v``'s predecessors (in-edges), parallel edges counted each time; a
      node without in-edges scores 0 in ``node_homophily`` (DGL's ``fn.mean``).
RULE: ``y`` holds one label per node, shape ``[N]`` or ``[N, 1]`` (DGL's ``node_homophily`` /
      ``edge_homophily`` and PyG's ``homophily`` accept both).
Computed in float64 with segment sums over the edges (DGL computes in float32, so its
values differ in the 7th digit); an empty graph gives ``nan`` where DGL's mean of nothing
does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph, check_graph

__all__ = ["node_homophily", "edge_homophily", "linkx_homophily"]


def _edges_and_labels(graph: Any, y: Any, where: str) -> tuple[Any, Any, Any, Any]:
    """``(xp, src, dst, y)`` with ``y`` checked: 1-D, one label per node."""
    check_graph(where, graph)
    if graph.is_block or len(graph.ntypes) != 1 or len(graph.canonical_etypes) > 1:
        raise ValueError(f"{where}: the graph must be homogeneous (one node and one edge type)")
    xp = graph._xp()
    if not hasattr(y, "shape") or not hasattr(y, "dtype"):
        y = xp.asarray(y)
    n = graph.num_nodes()
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]  # [N, 1] labels, as DGL's tensor ops and PyG's squeeze(-1) accept
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"{where}: y must have shape ({n},) or ({n}, 1) (one label per node), got {y.shape}"
        )
    if graph.canonical_etypes:
        src, dst = graph.edges()
    else:
        src = dst = xp.zeros(0, dtype=xp.int64)
    return xp, src, dst, y


def edge_homophily(graph: Graph, y: Any) -> float:
    """The fraction of edges joining two nodes of the same label."""
    xp, src, dst, y = _edges_and_labels(graph, y, "edge_homophily")
    if src.shape[0] == 0:
        return float("nan")
    return float(xp.mean((y[src] == y[dst]).astype(xp.float64)))


def node_homophily(graph: Graph, y: Any) -> float:
    """The mean over nodes of the fraction of each node's in-edges from its own label."""
    xp, src, dst, y = _edges_and_labels(graph, y, "node_homophily")
    n = graph.num_nodes()
    if n == 0:
        return float("nan")
    same = (y[src] == y[dst]).astype(xp.float64)
    hits = xp.bincount(dst, weights=same, minlength=n)
    deg = xp.bincount(dst, minlength=n)
    return float(xp.mean(hits / xp.maximum(deg, 1)))


def linkx_homophily(graph: Graph, y: Any) -> float:
    """LINKX's class-insensitive homophily: ``1/(C-1) * sum_k max(0, h_k - |C_k| / N)``
    with ``h_k`` the fraction of the in-edges of class-``k`` nodes that come from class
    ``k``, and ``C = max(y) + 1`` (a class without nodes or in-edges adds 0, as DGL's
    ``max(0, nan)``). ``y`` must hold non-negative integers and name two classes at least.
    """
    where = "linkx_homophily"
    xp, src, dst, y = _edges_and_labels(graph, y, where)
    if y.dtype.kind not in "iub":
        raise TypeError(f"{where}: y must hold integer class labels, got {y.dtype}")
    n = graph.num_nodes()
    if n == 0:
        return float("nan")
    y = y.astype(xp.int64)
    if int(y.min()) < 0:
        raise ValueError(f"{where}: class labels must be >= 0, got {int(y.min())}")
    c = int(y.max()) + 1
    if c < 2:
        raise ValueError(f"{where}: needs at least 2 classes (max(y) + 1 >= 2), got {c}")
    same = (y[src] == y[dst]).astype(xp.float64)
    hits = xp.bincount(y[dst], weights=same, minlength=c)  # same-class in-edges per class
    deg = xp.bincount(y[dst], minlength=c).astype(xp.float64)  # in-edges per class
    size = xp.bincount(y, minlength=c).astype(xp.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = hits / deg - size / n
    h = xp.where(deg > 0, xp.maximum(h, 0.0), 0.0)
    return float(h.sum()) / (c - 1)
