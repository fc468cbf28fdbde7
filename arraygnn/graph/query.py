"""Edge and neighbour lookups of the DGL face: ``g.in_edges``, ``g.out_edges``,
``g.predecessors``, ``g.successors``, ``g.find_edges``, ``g.has_edges_between``,
``g.edge_ids``.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 0, 1, 1, 1]), np.array([1, 0, 2, 3, 2])))
>>> g.in_edges(np.array([2, 0]), form="all")
(array([1, 1, 0]), array([2, 2, 0]), array([2, 4, 1]))
>>> g.successors(1), g.edge_ids(0, 0), g.has_edges_between([1, 3], [3, 1]).tolist()
(array([2, 3, 2]), 1, [True, False])

RULE: results list edges grouped by the queried node (in the order given), each node's edges
      in edge-id order; ids have the graph's idtype.
RULE: every node / edge id is range-checked first; ``edge_ids`` of a pair that is not an
      edge raises ``ValueError`` naming it (``return_uv=True`` lists every parallel edge).
RULE: where a pair has parallel edges, ``edge_ids(..., return_uv=False)`` gives the smallest
      edge id (DGL: "an arbitrary one").
RULE: ``has_edges_between`` / ``edge_ids`` pair ``u[i]`` with ``v[i]``; a single ``u`` (an
      int or one id) goes with every ``v``, and a single ``v`` with every ``u`` (DGL's C++).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import import_cupy, repeat_counts
from arraygnn.graph.core import Graph, _as_ids, _check_range, _Relation

__all__ = [
    "in_edges",
    "out_edges",
    "predecessors",
    "successors",
    "find_edges",
    "has_edges_between",
    "edge_ids",
]

_FORMS = ("uv", "eid", "all")


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _expand(xp: Any, starts: Any, lengths: Any) -> tuple[Any, Any]:
    """Positions ``starts[i] .. starts[i] + lengths[i] - 1`` for every ``i`` in turn, and
    the ``i`` of each position."""
    starts = starts.astype(np.int64)
    lengths = lengths.astype(np.int64)
    which = repeat_counts(xp, xp.arange(starts.shape[0], dtype=np.int64), lengths)
    offsets = xp.cumsum(lengths) - lengths
    return xp.arange(which.shape[0], dtype=np.int64) - offsets[which] + starts[which], which


def _rows_slots(xp: Any, indptr: Any, rows: Any) -> tuple[Any, Any]:
    """The CSR slots of ``rows`` (grouped by row, in row order) and each slot's query index."""
    return _expand(xp, indptr[rows], indptr[rows + 1] - indptr[rows])


def _reverse_csr(g: Graph, rel: _Relation) -> Any:
    """The source-sorted CSR of ``rel`` (its edges reversed), built once."""
    from arraygnn.graph.message_passing import out_degrees

    out_degrees(g, rel)  # builds and caches rel._rev_csr
    return rel._rev_csr


def _form(form: str, u: Any, v: Any, eid: Any) -> Any:
    if form == "uv":
        return u, v
    if form == "eid":
        return eid
    return u, v, eid


def _check_form(where: str, form: Any) -> None:
    if form not in _FORMS:
        raise ValueError(f"{where}: form must be 'uv', 'eid' or 'all', got {form!r}")


def in_edges(g: Graph, v: Any, form: str = "uv", etype: Any = None) -> Any:
    """The edges of ``etype`` into the nodes ``v`` (an id or ids): ``(u, v)``, their edge ids
    (``form='eid'``) or all three (``form='all'``)."""
    _check_form("in_edges", form)
    rel = g._rel(etype)
    ids = g._check_node_ids(v, rel.canonical[2], "dst")
    csr = g.csr(etype)
    slots, which = _rows_slots(g._xp(), csr.indptr, ids)
    eid = csr.perm[slots].astype(g.idtype, copy=False)
    return _form(form, rel.src[eid], ids[which].astype(g.idtype, copy=False), eid)


def out_edges(g: Graph, u: Any, form: str = "uv", etype: Any = None) -> Any:
    """The edges of ``etype`` out of the nodes ``u`` (an id or ids), as :func:`in_edges`."""
    _check_form("out_edges", form)
    rel = g._rel(etype)
    ids = g._check_node_ids(u, rel.canonical[0], "src")
    csr = _reverse_csr(g, rel)
    slots, which = _rows_slots(g._xp(), csr.indptr, ids)
    eid = csr.perm[slots].astype(g.idtype, copy=False)
    return _form(form, ids[which].astype(g.idtype, copy=False), rel.dst[eid], eid)


def _one_node(where: str, v: Any) -> None:
    if not _is_int(v):
        raise TypeError(f"{where}: v must be one node id (an int), got {type(v).__name__}")


def predecessors(g: Graph, v: int, etype: Any = None) -> Any:
    """Sources of the edges of ``etype`` into node ``v`` (repeated for parallel edges)."""
    _one_node("predecessors", v)
    return in_edges(g, v, "uv", etype)[0]


def successors(g: Graph, v: int, etype: Any = None) -> Any:
    """Destinations of the edges of ``etype`` out of node ``v`` (repeated for parallel
    edges)."""
    _one_node("successors", v)
    return out_edges(g, v, "uv", etype)[1]


def find_edges(g: Graph, eid: Any, etype: Any = None) -> tuple[Any, Any]:
    """``(u, v)``: the endpoints of the edges ``eid`` of ``etype``."""
    rel = g._rel(etype)
    if isinstance(eid, (bool, np.bool_)):
        raise TypeError(f"find_edges: edge ids must be integers, got {eid!r}")
    what = f"find_edges: edge ids of type {rel.canonical!r}"
    ids = _as_ids([int(eid)] if _is_int(eid) else eid, what)
    _check_range(ids, rel.num_edges, what, "edges")
    return rel.src[ids], rel.dst[ids]


def _pair_key(g: Graph, rel: _Relation, u: Any, v: Any) -> Any:
    n_dst = g._num_dst[rel.canonical[2]]
    if g._num_src[rel.canonical[0]] * max(n_dst, 1) >= 2**63:
        raise ValueError(
            f"edge type {rel.canonical!r} has too many nodes to look up node pairs "
            "(source count x destination count must be below 2**63)"
        )
    return u.astype(np.int64) * n_dst + v.astype(np.int64)


def pair_order(src: Any, dst: Any, n_src: int, n_dst: int) -> Any:
    """Positions of the edges sorted by ``(src, dst)``, parallel edges by position (stable):
    two stable counting sorts (by ``dst``, then by ``src``), O(E)."""
    from arraygnn.ops.csr import sorted_segments

    xp = np if isinstance(src, np.ndarray) else import_cupy()
    if src.dtype.itemsize > 4 and max(n_src, n_dst, int(src.shape[0])) < 2**31:
        src, dst = src.astype(np.int32), dst.astype(np.int32)  # halves the sorts' traffic
    _, by_dst = sorted_segments(xp, dst, n_dst)
    _, by_src = sorted_segments(xp, src[by_dst], n_src)
    return by_dst[by_src]


def _sorted_pairs(g: Graph, rel: _Relation) -> tuple[Any, Any]:
    """Keys of every edge's (u, v) pair in increasing order, and the edge ids in that
    order (stable: parallel edges by edge id), built once per relation."""
    cached = getattr(rel, "_pair_index", None)
    if cached is None:
        s, _, d = rel.canonical
        order = pair_order(rel.src, rel.dst, g._num_src[s], g._num_dst[d])
        keys = _pair_key(g, rel, rel.src[order], rel.dst[order])
        cached = (keys, order.astype(g.idtype, copy=False))
        rel._pair_index = cached
    return cached


#: NumPy: at least this many queries are sorted before the binary search (see _search)
SORTED_SEARCH_MIN = 4096


def _search(xp: Any, keys: Any, q: Any, sides: tuple[str, ...] = ("left",)) -> list[Any]:
    """``[xp.searchsorted(keys, q, side) for side in sides]``. Many NumPy queries are sorted
    once and searched in that order, then put back: NumPy starts each search from the
    last one's place, and the look-ups walk ``keys`` forward instead of missing the cache
    at every level (1M pair queries into 2M edges: ~3x faster on the 2-core box)."""
    if xp is not np or q.shape[0] < SORTED_SEARCH_MIN:
        return [xp.searchsorted(keys, q, side=side) for side in sides]
    order = np.argsort(q)
    ordered = q[order]
    out = []
    for side in sides:
        pos = np.empty(q.shape[0], dtype=np.intp)
        pos[order] = np.searchsorted(keys, ordered, side=side)
        out.append(pos)
    return out


def _pairs(g: Graph, where: str, u: Any, v: Any, etype: Any) -> tuple[Any, Any, Any, bool]:
    rel = g._rel(etype)
    scalar = _is_int(u) and _is_int(v)
    uu = g._check_node_ids(u, rel.canonical[0], "src")
    vv = g._check_node_ids(v, rel.canonical[2], "dst")
    if uu.shape[0] != vv.shape[0]:
        xp = g._xp()
        if uu.shape[0] == 1:  # DGL's CSRGetData / CSRIsNonZero: one id against many
            uu = xp.repeat(uu, vv.shape[0])
        elif vv.shape[0] == 1:
            vv = xp.repeat(vv, uu.shape[0])
        else:
            raise ValueError(f"{where}: u has {uu.shape[0]} ids but v has {vv.shape[0]}")
    return rel, uu, vv, scalar


def has_edges_between(g: Graph, u: Any, v: Any, etype: Any = None) -> Any:
    """Whether each ``(u[i], v[i])`` is an edge of ``etype`` (a bool for two ints)."""
    rel, uu, vv, scalar = _pairs(g, "has_edges_between", u, v, etype)
    keys, _ = _sorted_pairs(g, rel)
    q = _pair_key(g, rel, uu, vv)
    xp = g._xp()
    [pos] = _search(xp, keys, q)
    found = xp.zeros(q.shape[0], dtype=bool)
    inside = pos < keys.shape[0]
    found[inside] = keys[pos[inside]] == q[inside]
    return bool(found[0]) if scalar else found


def edge_ids(g: Graph, u: Any, v: Any, return_uv: bool = False, etype: Any = None) -> Any:
    """The id of the edge ``(u[i], v[i])`` of ``etype`` for each ``i`` (an int for two ints).

    ``ValueError`` if a pair is not an edge. With parallel edges the smallest id is given;
    ``return_uv=True`` gives every edge of every pair as ``(u, v, eid)``, grouped by pair.
    """
    rel, uu, vv, scalar = _pairs(g, "edge_ids", u, v, etype)
    keys, order = _sorted_pairs(g, rel)
    q = _pair_key(g, rel, uu, vv)
    xp = g._xp()
    lo, hi = _search(xp, keys, q, ("left", "right"))
    if return_uv:
        slots, which = _expand(xp, lo, hi - lo)
        return uu[which].astype(g.idtype), vv[which].astype(g.idtype), order[slots]
    missing = lo == hi
    if q.shape[0] and bool(missing.any()):
        i = int(xp.nonzero(missing)[0][0])
        raise ValueError(
            f"edge_ids: ({int(uu[i])}, {int(vv[i])}) is not an edge of type {rel.canonical!r}"
        )
    eid = order[lo]
    return int(eid[0]) if scalar else eid
