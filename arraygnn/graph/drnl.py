"""DGL's ``double_radius_node_labeling`` (SEAL's DRNL): a structural label per node from its
shortest-path distances to the two ends of a target link.

``z = 1 + min(ds, dt) + (d // 2) * (d // 2 + d % 2 - 1)`` with ``d = ds + dt``, where ``ds``
is the distance to ``src`` on the graph without ``dst`` and ``dt`` the distance to ``dst``
without ``src`` (edges taken as undirected, unweighted); the two ends get 1, nodes that
cannot reach either end 0.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 0, 0, 0, 1, 1, 2, 4]), np.array([1, 2, 3, 6, 3, 4, 4, 5])))
>>> double_radius_node_labeling(g, 0, 1).tolist()
[1, 1, 3, 2, 3, 7, 0]

RULE: int64 labels [N] on the host (as DGL); ``src`` and ``dst`` may come in either order.
Path: ``scipy.sparse.csgraph.shortest_path`` (BFS) twice, as DGL.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph
from arraygnn.graph.positional_encoding import _adjacency, _homogeneous

__all__ = ["double_radius_node_labeling"]


def _node(where: str, name: str, v: Any, n: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int node id, got {v!r}")
    if not 0 <= v < n:
        raise ValueError(f"{where}: {name}={v} is outside [0, {n})")
    return int(v)


def double_radius_node_labeling(g: Graph, src: int, dst: int) -> np.ndarray:
    """DRNL labels of every node of ``g`` for the link ``(src, dst)``: int64 ``[N]``."""
    from scipy.sparse.csgraph import shortest_path

    where = "double_radius_node_labeling"
    _homogeneous(g, where)
    n = g.num_nodes()
    src, dst = _node(where, "src", src, n), _node(where, "dst", dst, n)
    if src == dst:
        raise ValueError(f"{where}: src and dst must differ, both are {src}")
    src, dst = (dst, src) if src > dst else (src, dst)
    adj = _adjacency(g)
    keep_src = np.delete(np.arange(n), src)
    keep_dst = np.delete(np.arange(n), dst)
    wo_src = adj[keep_src][:, keep_src]
    wo_dst = adj[keep_dst][:, keep_dst]
    ds = shortest_path(wo_dst, directed=False, unweighted=True, indices=src)
    ds = np.insert(ds, dst, 0, axis=0)
    dt = shortest_path(wo_src, directed=False, unweighted=True, indices=dst - 1)
    dt = np.insert(dt, src, 0, axis=0)
    d = ds + dt
    with np.errstate(invalid="ignore"):
        z = 1 + np.stack([ds, dt]).min(axis=0) + d // 2 * (d // 2 + d % 2 - 1)
    z[src] = 1
    z[dst] = 1
    z[np.isnan(z)] = 0
    return z.astype(np.int64)
