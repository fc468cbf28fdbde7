"""DGL's random graph generators: :func:`rand_graph` and :func:`rand_bipartite`.

Each draws ``num_edges`` distinct cells of the ``N x M`` adjacency grid without
replacement (DGL's ``random.choice(N * M, num_edges, replace=False)``): edge ``e`` is
``(cell // M, cell % M)``, so there are no multi-edges (self-loops may occur).

>>> g = rand_graph(5, 7, seed=0)
>>> g.num_nodes(), g.num_edges(), len(set(zip(*map(list, g.edges()))))
(5, 7, 7)
>>> b = rand_bipartite("user", "buys", "item", 3, 4, 5, seed=0)
>>> b.canonical_etypes, b.num_nodes("item")
([('user', 'buys', 'item')], 4)

RULE: ``seed`` (an int or a ``numpy.random.Generator``) makes the draw repeatable; edges
      come in the order drawn (not sorted), as DGL's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import DEFAULT_ETYPE, DEFAULT_NTYPE, Graph

__all__ = ["rand_graph", "rand_bipartite"]


def _count(where: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value}")
    return int(value)


def _idtype(where: str, idtype: Any) -> np.dtype:
    try:
        dt = np.dtype(idtype)
    except TypeError:
        dt = None
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"{where}: idtype must be int32 or int64, got {idtype!r}")
    return dt


def _draw(where: str, n_src: int, n_dst: int, num_edges: int, idtype: Any, seed: Any) -> tuple:
    cells = n_src * n_dst
    if num_edges > cells:
        raise ValueError(
            f"{where}: num_edges={num_edges} is more than the {cells} possible edges "
            f"({n_src} x {n_dst} nodes)"
        )
    dt = _idtype(where, idtype)
    if dt == np.int32 and max(n_src, n_dst, num_edges) > np.iinfo(np.int32).max:
        raise ValueError(f"{where}: the sizes do not fit idtype int32")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    eids = rng.choice(cells, num_edges, replace=False) if num_edges else np.zeros(0, np.int64)
    eids = np.asarray(eids, dtype=np.int64)
    return (eids // max(n_dst, 1)).astype(dt), (eids % max(n_dst, 1)).astype(dt)


def rand_graph(
    num_nodes: int, num_edges: int, idtype: Any = np.int64, device: str = "cpu", *, seed: Any = None
) -> Graph:
    """A homogeneous graph with ``num_edges`` distinct random edges over ``num_nodes``."""
    where = "rand_graph"
    n = _count(where, "num_nodes", num_nodes)
    m = _count(where, "num_edges", num_edges)
    rows, cols = _draw(where, n, n, m, idtype, seed)
    c = (DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE)
    return Graph({c: (rows, cols)}, {DEFAULT_NTYPE: n}, validate=False).to(device)


def rand_bipartite(
    utype: str,
    etype: str,
    vtype: str,
    num_src_nodes: int,
    num_dst_nodes: int,
    num_edges: int,
    idtype: Any = np.int64,
    device: str = "cpu",
    *,
    seed: Any = None,
) -> Graph:
    """A one-relation ``(utype, etype, vtype)`` graph with ``num_edges`` distinct random
    edges (``utype == vtype`` gives a homogeneous-typed graph, as DGL)."""
    where = "rand_bipartite"
    for name, v in (("utype", utype), ("etype", etype), ("vtype", vtype)):
        if not isinstance(v, str):
            raise TypeError(f"{where}: {name} must be a str, got {v!r}")
    ns = _count(where, "num_src_nodes", num_src_nodes)
    nd = _count(where, "num_dst_nodes", num_dst_nodes)
    m = _count(where, "num_edges", num_edges)
    if utype == vtype and ns != nd:
        raise ValueError(f"{where}: utype == vtype needs num_src_nodes == num_dst_nodes")
    rows, cols = _draw(where, ns, nd, m, idtype, seed)
    g = Graph({(utype, etype, vtype): (rows, cols)}, {utype: ns, vtype: nd}, validate=False)
    return g.to(device)
