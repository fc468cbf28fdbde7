"""DGL's ``dgl.shortest_dist``: unweighted, directed shortest distances (and paths as edge
ids) of a homogeneous :class:`Graph`, from one root or between all node pairs: what
Graphormer's ``SpatialEncoder`` and ``PathEncoder`` read.

How it runs: SciPy's ``csgraph.shortest_path`` (all pairs) or ``csgraph.dijkstra`` (one
root) with ``unweighted=True`` and their predecessors, as DGL's; the paths are then walked
back from every target at once (one vectorised step per edge of the longest path, not a
Python loop per pair) and the ``(u, v)`` steps become edge ids with one ``edge_ids``.

RULE: unreachable pairs have distance ``-1`` and a path of ``-1`` s; a node's path to
      itself is all ``-1``; paths are padded with ``-1`` to the longest distance ``L``.
RULE: between parallel edges the smallest edge id is used (``Graph.edge_ids``); ties
      between equally short paths follow SciPy's predecessors on DGL's own adjacency
      layout (rows in edge-id order, parallel edges kept), as DGL's.
RULE: the graph must be on the CPU (SciPy); results are ``int64`` NumPy arrays.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 1, 2]), np.array([2, 0, 3, 3])))
>>> shortest_dist(g, root=0)
array([ 0, -1,  1,  2])
>>> dist, paths = shortest_dist(g, return_paths=True)
>>> paths[1].tolist()
[[1, -1], [-1, -1], [1, 0], [2, -1]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph
from arraygnn.graph.positional_encoding import _edges, _homogeneous

__all__ = ["shortest_dist"]

_WHERE = "shortest_dist"


def _root(g: Graph, root: Any) -> int | None:
    if root is None:
        return None
    if isinstance(root, (bool, np.bool_)) or not isinstance(root, (int, np.integer)):
        raise TypeError(f"{_WHERE}: root must be a node id (int) or None, got {root!r}")
    n = g.num_nodes()
    if not 0 <= int(root) < n:
        raise ValueError(f"{_WHERE}: root must be in [0, {n}), got {int(root)}")
    return int(root)


def _dgl_adjacency(g: Graph) -> Any:
    """DGL's ``adj_external(scipy_fmt='csr')``: its out-CSR built from the COO by a stable
    sort on the sources (each row in edge-id order, parallel edges kept, data all ones).
    SciPy's predecessors between equally short paths depend on this layout."""
    from scipy import sparse

    n = g.num_nodes()
    src, dst = _edges(g)
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return sparse.csr_matrix(
        (np.ones(src.shape[0]), dst[order].astype(np.int64), indptr), shape=(n, n)
    )


def shortest_dist(g: Graph, root: int | None = None, return_paths: bool = False) -> Any:
    """DGL's ``shortest_dist(g, root=None, return_paths=False)``.

    Returns ``dist`` (``[N, N]``, or ``[N]`` from ``root``; ``-1`` where unreachable) and,
    with ``return_paths``, ``paths`` (``[N, N, L]`` or ``[N, L]``): the edge ids along each
    shortest path, padded with ``-1``.
    """
    _homogeneous(g, _WHERE)
    root = _root(g, root)
    n = g.num_nodes()
    if n == 0:
        dist = np.zeros((0, 0), np.int64)
        return (dist, np.zeros((0, 0, 0), np.int64)) if return_paths else dist
    from scipy.sparse import csgraph

    adj = _dgl_adjacency(g)
    if root is None:
        dist, pred = csgraph.shortest_path(
            adj, return_predecessors=True, unweighted=True, directed=True
        )
    else:
        dist, pred = csgraph.dijkstra(
            adj, directed=True, indices=root, return_predecessors=True, unweighted=True
        )
        dist, pred = dist[None], pred[None]
    dist[np.isinf(dist)] = -1
    dist = dist.astype(np.int64)
    if not return_paths:
        return dist if root is None else dist[0]
    max_len = int(dist.max())
    paths = np.full(dist.shape + (max_len,), -1, dtype=np.int64)
    rows, cols = np.nonzero(dist > 0)  # pairs with a path of at least one edge
    steps = dist[rows, cols]
    cur = cols.astype(np.int64)
    us, vs, where = [], [], []
    for s in range(max_len):  # walk back: the edge ending the path's (d - s)-th node
        live = steps > s
        if not live.any():
            break
        r, c, v = rows[live], cols[live], cur[live]
        u = pred[r, v].astype(np.int64)
        us.append(u)
        vs.append(v)
        where.append((r, c, steps[live] - 1 - s))
        cur[live] = u
    if us:
        eids = np.asarray(g.edge_ids(np.concatenate(us), np.concatenate(vs)), dtype=np.int64)
        r = np.concatenate([w[0] for w in where])
        c = np.concatenate([w[1] for w in where])
        k = np.concatenate([w[2] for w in where])
        paths[r, c, k] = eids
    return (dist, paths) if root is None else (dist[0], paths[0])
