"""PyG's ``to_networkit`` / ``from_networkit``: an ``(edge_index, edge_weight)`` pair to
and from a ``networkit.Graph`` (the optional ``networkit`` package, imported when called).

>>> import numpy as np
>>> g = to_networkit(np.array([[0, 1], [1, 2]]))  # doctest: +SKIP
>>> from_networkit(g)[0].tolist()  # doctest: +SKIP
[[0, 1], [1, 2]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.utils._checks import bool_arg, edge_attr_arg, edge_index_arg, num_nodes_arg

__all__ = ["from_networkit", "to_networkit"]


def _networkit(where: str) -> Any:
    try:
        import networkit
    except ImportError:
        raise ImportError(
            f"{where} needs the optional 'networkit' package (pip install networkit)"
        ) from None
    return networkit


def to_networkit(
    edge_index: Any,
    edge_weight: Any = None,
    num_nodes: int | None = None,
    directed: bool = True,
) -> Any:
    """A ``networkit.Graph`` with ``num_nodes`` nodes (default ``edge_index.max() + 1``),
    weighted when ``edge_weight`` [E] is given, and an edge per column in order (parallel
    edges stay parallel). ``directed=False`` adds only the edges ``row <= col``, as PyG.
    """
    where = "to_networkit"
    edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    if edge_weight is not None:
        edge_attr_arg(where, "edge_weight", edge_weight, int(edge_index.shape[1]))
    if edge_weight is not None and edge_weight.ndim != 1:
        raise ValueError(f"{where}: edge_weight must be [E], got {tuple(edge_weight.shape)}")
    directed = bool_arg(where, "directed", directed)
    nk = _networkit(where)
    g = nk.graph.Graph(n, weighted=edge_weight is not None, directed=directed)
    ei = to_numpy(edge_index).astype(np.int64)
    w = np.ones(ei.shape[1]) if edge_weight is None else to_numpy(edge_weight).astype(np.float64)
    if not directed:
        keep = ei[0] <= ei[1]
        ei, w = ei[:, keep], w[keep]
    for u, v, weight in zip(ei[0].tolist(), ei[1].tolist(), w.tolist()):
        g.addEdge(u, v, weight)
    return g


def from_networkit(g: Any) -> tuple[Any, Any]:
    """``(edge_index [2, E] int64, edge_weight [E] float32 or None)`` in the graph's edge
    order; an undirected edge comes out in both directions, one after the other (PyG's
    layout). ``edge_weight`` is ``None`` for an unweighted graph."""
    nk = _networkit("from_networkit")
    if not isinstance(g, nk.graph.Graph):
        raise TypeError(f"from_networkit: g must be a networkit.Graph, got {type(g).__name__}")
    directed = g.isDirected()
    pairs: list[tuple[int, int]] = []
    weights: list[float] = []
    for u, v, w in g.iterEdgesWeights():
        pairs.append((u, v))
        weights.append(w)
        if not directed:
            pairs.append((v, u))
            weights.append(w)
    edge_index = np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()
    weight = np.array(weights, dtype=np.float32) if g.isWeighted() else None
    return edge_index, weight
