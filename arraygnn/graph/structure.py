"""DGL's graph-structure functions on the DGL face: :func:`in_subgraph`,
:func:`out_subgraph`, :func:`khop_in_subgraph`, :func:`khop_out_subgraph`,
:func:`line_graph`, :func:`khop_graph`, :func:`metapath_reachable_graph`,
:func:`compact_graphs` and the functional :func:`add_nodes`, :func:`add_edges`,
:func:`remove_nodes`, :func:`remove_edges`.

Each returns new graphs; the input graphs and arrays are never changed.

>>> import numpy as np
>>> from arraygnn.graph import graph, in_subgraph, line_graph, remove_nodes, EID, NID
>>> g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])))
>>> sg = in_subgraph(g, [2, 0])
>>> sg.edges(), sg.edata[EID]
((array([1, 4]), array([2, 0])), array([1, 4]))
>>> sg = in_subgraph(g, [2, 0], relabel_nodes=True)  # nodes in order of first appearance
>>> sg.edges(), sg.ndata[NID]
((array([0, 1]), array([2, 3])), array([1, 4, 2, 0]))
>>> line_graph(graph((np.array([0, 1]), np.array([1, 2])))).edges()
(array([0]), array([1]))
>>> remove_nodes(g, [1]).edges()
(array([1, 2, 3]), array([2, 3, 0]))

RULE: orders follow DGL's C++ / Python source: ``in_subgraph`` / ``out_subgraph`` list
      the edges grouped by the given node, in the order given, each node's edges in
      edge-id order (DGL's CSC / CSR lookup); relabelled nodes are numbered in order of
      first appearance (DGL's ``Relabel_`` / hash map: per edge type in turn, its sources
      then its destinations; ``compact_graphs`` puts ``always_preserve`` first), except
      the k-hop subgraphs, whose nodes are sorted (DGL's ``unique``); ``remove_nodes``
      and the k-hop subgraphs are DGL's node subgraph, whose edges come grouped by
      (new) source, each source's in edge-id order (its out-CSR slice); ``line_graph``
      lists its edges ``(i, j)`` sorted by ``i`` then ``j``; ``khop_graph`` /
      ``metapath_reachable_graph`` take their edges from SciPy's sparse product (cupyx
      on CuPy), as DGL.
RULE: ids: ``ndata[NID]`` / ``edata[EID]`` only where DGL writes them (relabelled nodes;
      ``store_ids``); every id has the graph's idtype (int32 / int64).
RULE: features: node features are shared with the input when every node is kept and
      gathered (new arrays) otherwise; edge features of kept edges are gathered; new
      nodes / edges get zeros in every feature ``data`` does not give, and existing ones
      zeros in a feature only ``data`` gives (DGL).
RULE: batch information is dropped, except by ``remove_nodes`` / ``remove_edges``, which
      recount it per graph (DGL). Blocks are refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph.core import (
    DEFAULT_ETYPE,
    DEFAULT_NTYPE,
    EID,
    NID,
    Canonical,
    Graph,
    _as_ids,
)
from arraygnn.graph.subgraph import _first_appearance_nodes, _keep_edges, node_subgraph
from arraygnn.graph.transform import _check_flag, _check_input

__all__ = [
    "in_subgraph",
    "out_subgraph",
    "khop_in_subgraph",
    "khop_out_subgraph",
    "line_graph",
    "khop_graph",
    "khop_adj",
    "norm_by_dst",
    "metapath_reachable_graph",
    "compact_graphs",
    "add_nodes",
    "add_edges",
    "remove_nodes",
    "remove_edges",
]

_INT32_MAX = int(np.iinfo(np.int32).max)


def _ops() -> Any:
    from arraygnn import ops

    return ops


# ---------------------------------------------------------------------- helpers
def _check_count(where: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value}")
    return int(value)


def _named_rel(where: str, name: str, g: Graph, etype: Any) -> Any:
    """``g._rel(etype)``, its error prefixed with the function and the argument."""
    try:
        return g._rel(etype)
    except (KeyError, ValueError) as e:
        raise type(e)(f"{where}: {name}: {e.args[0]}") from None


def _named_ntype(where: str, name: str, g: Graph, ntype: Any) -> str:
    """``g._ntype(ntype, 'src')``, its error prefixed with the function and the argument."""
    try:
        return g._ntype(ntype, "src")
    except (KeyError, ValueError) as e:
        raise type(e)(f"{where}: {name}: {e.args[0]}") from None


def _ids(where: str, name: str, g: Graph, ids: Any, n: int) -> Any:
    """``ids`` (an int, a list or an integer array) checked against ``[0, n)``, on the
    graph's device, in its idtype."""
    if isinstance(ids, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be integer ids, got {ids!r}")
    if isinstance(ids, (int, np.integer)):
        ids = [int(ids)]
    ids = _as_ids(ids, f"{where}: {name}")
    xp = g._xp()
    if get_namespace(ids) is not xp:
        raise TypeError(f"{where}: {name} is on another device than the graph ({g.device!r})")
    if ids.size:
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= n:
            raise ValueError(
                f"{where}: {name} contains id {lo if lo < 0 else hi}, outside [0, {n})"
            )
    return ids.astype(g.idtype, copy=False)


def _nodes_per_type(where: str, name: str, g: Graph, nodes: Any) -> dict[str, Any]:
    """``nodes`` (ids, or ``{ntype: ids}``) as checked ids per given node type."""
    if isinstance(nodes, Mapping):
        out = {}
        for t, ids in nodes.items():
            if t not in g._num_src:
                raise KeyError(f"{where}: node type {t!r} does not exist; node types: {g.ntypes}")
            out[t] = _ids(where, f"{name}[{t!r}]", g, ids, g._num_src[t])
        return out
    if len(g.ntypes) != 1:
        raise ValueError(
            f"{where}: the graph has node types {g.ntypes}; pass {name} as {{ntype: ids}}"
        )
    t = g.ntypes[0]
    return {t: _ids(where, name, g, nodes, g._num_src[t])}


def _mask(xp: Any, ids: Any, n: int) -> Any:
    m = xp.zeros(n, dtype=bool)
    m[ids] = True
    return m


def _edge_ids(xp: Any, mask: Any, idtype: Any) -> Any:
    return xp.nonzero(mask)[0].astype(idtype)


def _to_device(g: Graph, output_device: Any) -> Graph:
    return g if output_device is None else g.to(output_device)


# ---------------------------------------------------------------------- in / out subgraphs
def _edge_side_subgraph(
    where: str, side: int, g: Any, nodes: Any, relabel_nodes: Any, store_ids: Any, device: Any
) -> Graph:
    _check_input(where, g)
    _check_flag(where, "relabel_nodes", relabel_nodes)
    _check_flag(where, "store_ids", store_ids)
    given = _nodes_per_type(where, "nodes", g, nodes)
    xp = g._xp()
    for t, ids in given.items():
        if ids.shape[0] and unique_ids(xp, ids).shape[0] != ids.shape[0]:
            raise ValueError(f"{where}: nodes of type {t!r} must be unique (DGL)")
    from arraygnn.graph.query import in_edges, out_edges

    lookup = in_edges if side == 2 else out_edges
    chosen = {}
    for c in g._rels:
        if c[side] in given:  # grouped by node in the order given (DGL's CSC / CSR path)
            chosen[c] = lookup(g, given[c[side]], "eid", c).astype(g.idtype, copy=False)
        else:
            chosen[c] = xp.zeros(0, dtype=g.idtype)
    if relabel_nodes:
        induced = _first_appearance_nodes(g, [(c, g._rels[c], e) for c, e in chosen.items()])
        sub = _relabelled(
            g, chosen, induced, copy_ndata=True, store_nids=store_ids, store_eids=store_ids
        )
    else:
        sub = _keep_edges(g, chosen, store_ids)
    return _to_device(sub, device)


def in_subgraph(
    g: Graph,
    nodes: Any,
    *,
    relabel_nodes: bool = False,
    store_ids: bool = True,
    output_device: Any = None,
) -> Graph:
    """The subgraph of every edge into ``nodes`` (ids, or ``{ntype: ids}``), per edge type,
    grouped by node in the order given, each node's edges in edge-id order.
    ``relabel_nodes=False`` keeps every node (features shared, no ``NID``); ``True`` keeps
    only the edges' endpoints, numbered in order of first appearance (per edge type, the
    sources, then the destinations: DGL's ``Relabel_``), with ``ndata[NID]``.
    ``store_ids`` writes ``edata[EID]`` (and ``NID`` when relabelling)."""
    return _edge_side_subgraph("in_subgraph", 2, g, nodes, relabel_nodes, store_ids, output_device)


def out_subgraph(
    g: Graph,
    nodes: Any,
    *,
    relabel_nodes: bool = False,
    store_ids: bool = True,
    output_device: Any = None,
) -> Graph:
    """The subgraph of every edge out of ``nodes``, as :func:`in_subgraph`."""
    return _edge_side_subgraph("out_subgraph", 0, g, nodes, relabel_nodes, store_ids, output_device)


def _khop(
    where: str,
    inward: bool,
    g: Any,
    nodes: Any,
    k: Any,
    relabel_nodes: Any,
    store_ids: Any,
    output_device: Any,
) -> Any:
    _check_input(where, g)
    k = _check_count(where, "k", k)
    _check_flag(where, "relabel_nodes", relabel_nodes)
    _check_flag(where, "store_ids", store_ids)
    seeds = _nodes_per_type(where, "nodes", g, nodes)
    xp = g._xp()
    reached = {t: xp.zeros(n, dtype=bool) for t, n in g._num_src.items()}
    for t, ids in seeds.items():
        reached[t][ids] = True
    frontier = {t: m.copy() for t, m in reached.items()}
    for _ in range(k):  # DGL: the neighbours of the previous hop's nodes, k times
        nxt = {t: xp.zeros(n, dtype=bool) for t, n in g._num_src.items()}
        for c, r in g._rels.items():
            near, far = (r.dst, r.src) if inward else (r.src, r.dst)
            t_near, t_far = (c[2], c[0]) if inward else (c[0], c[2])
            nxt[t_far][far[frontier[t_near][near]]] = True
        for t in reached:
            reached[t] |= nxt[t]
        frontier = nxt
    keep = {t: _edge_ids(xp, m, g.idtype) for t, m in reached.items()}
    # DGL: node_subgraph(relabel_nodes=...) of the sorted nodes, both ways in its order
    sub = node_subgraph(g, keep, relabel_nodes=relabel_nodes, store_ids=store_ids)
    sub = _to_device(sub, output_device)
    if not relabel_nodes:
        return sub
    # each seed's position among the kept nodes (sorted): DGL's inverse indices (int64)
    inverse = {t: xp.searchsorted(keep[t], ids).astype(np.int64) for t, ids in seeds.items()}
    if output_device is not None:
        from arraygnn._namespace import to_device

        inverse = {t: to_device(v, output_device) for t, v in inverse.items()}
    if isinstance(nodes, Mapping):
        return sub, inverse
    return sub, next(iter(inverse.values()))


def khop_in_subgraph(
    g: Graph,
    nodes: Any,
    k: int,
    *,
    relabel_nodes: bool = True,
    store_ids: bool = True,
    output_device: Any = None,
) -> Any:
    """The subgraph induced by ``nodes`` and every node with a path of at most ``k``
    edges into them (all edge types). ``relabel_nodes=True`` returns ``(subgraph,
    inverse)``: the kept nodes in increasing id order with ``ndata[NID]``, and each seed's
    new id (int64; a dict for dict ``nodes``). ``False`` returns the subgraph over all
    nodes (features shared, no ``NID``). Either way the edges come grouped by source,
    each source's in edge-id order (DGL's node subgraph); ``store_ids`` writes
    ``edata[EID]``."""
    return _khop("khop_in_subgraph", True, g, nodes, k, relabel_nodes, store_ids, output_device)


def khop_out_subgraph(
    g: Graph,
    nodes: Any,
    k: int,
    *,
    relabel_nodes: bool = True,
    store_ids: bool = True,
    output_device: Any = None,
) -> Any:
    """As :func:`khop_in_subgraph` with paths of at most ``k`` edges out of ``nodes``."""
    return _khop("khop_out_subgraph", False, g, nodes, k, relabel_nodes, store_ids, output_device)


# ---------------------------------------------------------------------- derived graphs
def _homogeneous(where: str, g: Any) -> Any:
    _check_input(where, g)
    if len(g.ntypes) != 1 or len(g._rels) != 1:
        raise ValueError(
            f"{where}: only homogeneous graphs are supported (DGL); this one has node types "
            f"{g.ntypes} and edge types {g.canonical_etypes}"
        )
    return next(iter(g._rels.values()))


def line_graph(g: Graph, backtracking: bool = True, shared: bool = False) -> Graph:
    """The line graph: node ``i`` is edge ``i`` of ``g``; an edge ``(i, j)`` for every pair
    of distinct edges with ``dst(i) == src(j)`` (and ``src(i) != dst(j)`` unless
    ``backtracking``), sorted by ``i`` then ``j`` (DGL's loop). ``shared=True`` gives the
    nodes ``g``'s edge features (the same arrays). Homogeneous graphs only; the result has
    DGL's default types ``'_N'`` / ``'_E'`` whatever ``g``'s type names."""
    where = "line_graph"
    rel = _homogeneous(where, g)
    _check_flag(where, "backtracking", backtracking)
    _check_flag(where, "shared", shared)
    from arraygnn.graph.query import _reverse_csr, _rows_slots

    xp = g._xp()
    rev = _reverse_csr(g, rel)  # source-sorted, stable: out-edges in edge-id order
    slots, first = _rows_slots(xp, rev.indptr, rel.dst)
    second = rev.perm[slots]
    keep = first != second
    if not backtracking:
        keep &= rel.src[first] != rel.dst[second]
    idtype = g.idtype
    # DGL builds DGLGraph(gidx): node type '_N', edge type '_E', whatever g's names are
    lg_type = (DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE)
    new = Graph(
        {lg_type: (first[keep].astype(idtype), second[keep].astype(idtype))},
        {DEFAULT_NTYPE: rel.num_edges},
        validate=False,
    )
    if shared:
        new._src_frames[DEFAULT_NTYPE]._data.update(rel.frame._data)
    return new


def _sparse_ids(g: Graph, row: Any, col: Any) -> tuple[Any, Any]:
    """SciPy / cupyx index arrays as graph ids (the graph's idtype and device)."""
    xp = g._xp()
    return xp.asarray(row).astype(g.idtype), xp.asarray(col).astype(g.idtype)


def khop_graph(g: Graph, k: int, copy_ndata: bool = True) -> Graph:
    """The graph with one edge ``(u, v)`` per walk of exactly ``k`` edges from ``u`` to ``v``
    (``A ** k`` of the adjacency, entries repeated by their count, as DGL). Node features
    are shared when ``copy_ndata``. Homogeneous graphs only."""
    where = "khop_graph"
    rel = _homogeneous(where, g)
    k = _check_count(where, "k", k)
    _check_flag(where, "copy_ndata", copy_ndata)
    adj = (g.adj_external(transpose=False, scipy_fmt="coo") ** k).tocoo()
    xp = g._xp()
    counts = xp.asarray(adj.data).astype(np.int64)
    from arraygnn._namespace import repeat_counts

    row, col = _sparse_ids(g, adj.row, adj.col)
    row, col = repeat_counts(xp, row, counts), repeat_counts(xp, col, counts)
    t = rel.canonical[0]
    new = Graph({rel.canonical: (row, col)}, {t: g._num_src[t]}, validate=False)
    if copy_ndata:
        new._src_frames[t]._data.update(g._src_frames[t]._data)
    return new


def khop_adj(g: Graph, k: int) -> Any:
    """``A ** k`` as a dense float32 ``[N, N]`` array (``A[u, v]``: the number of edges
    ``u -> v``; entry ``(u, v)`` of the result counts the walks of ``k`` edges), DGL's
    ``khop_adj``; ``k = 0`` gives the identity. On the graph's device (DGL: on the CPU).
    Homogeneous graphs only.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> khop_adj(graph(([0, 1, 1], [1, 2, 2])), 2).tolist()
    [[0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    where = "khop_adj"
    rel = _homogeneous(where, g)
    k = _check_count(where, "k", k)
    xp = g._xp()
    n = g._num_src[rel.canonical[0]]
    adj = xp.zeros(n * n, dtype=np.int64)
    if rel.num_edges:
        flat = rel.src.astype(np.int64) * n + rel.dst.astype(np.int64)
        adj += xp.bincount(flat, minlength=n * n)
    return xp.linalg.matrix_power(adj.reshape(n, n), k).astype(np.float32)


def norm_by_dst(g: Graph, etype: Any = None) -> Any:
    """``1 / in-degree`` of each edge's destination (in-edges of ``etype`` only), float32
    per edge in edge-id order, DGL's ``norm_by_dst``.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> norm_by_dst(graph(([0, 1, 1], [1, 1, 2]))).tolist()
    [0.5, 0.5, 1.0]
    """
    where = "norm_by_dst"
    _check_input(where, g)
    if etype is None and len(g._rels) != 1:
        raise ValueError(f"{where}: the graph has edge types {g.canonical_etypes}; pass etype=")
    rel = _named_rel(where, "etype", g, etype)
    xp = g._xp()
    if not rel.num_edges:
        return xp.zeros(0, dtype=np.float32)
    deg = xp.bincount(rel.dst.astype(np.int64), minlength=g._num_dst[rel.canonical[2]])
    return (1.0 / deg[rel.dst]).astype(np.float32)


def metapath_reachable_graph(g: Graph, metapath: Sequence[Any]) -> Graph:
    """The graph with an edge ``(u, v)`` (edge type ``(first src type, '_E', last dst
    type)``) wherever a path following the edge types ``metapath`` joins ``u`` to ``v``;
    edges in row-major order of the reachability matrix (SciPy's, as DGL). The two end
    node types keep their features (shared)."""
    where = "metapath_reachable_graph"
    _check_input(where, g)
    if isinstance(metapath, (str, tuple)) or not isinstance(metapath, Sequence) or not metapath:
        raise TypeError(f"{where}: metapath must be a non-empty list of edge types")
    cans = [_named_rel(where, f"metapath[{i}]", g, e).canonical for i, e in enumerate(metapath)]
    for a, b in zip(cans, cans[1:]):
        if a[2] != b[0]:
            raise ValueError(
                f"{where}: edge type {a!r} ends at node type {a[2]!r} but the next edge type "
                f"{b!r} starts at {b[0]!r}"
            )
    adj = g.adj_external(transpose=False, scipy_fmt="csr", etype=cans[0])
    for c in cans[1:]:
        adj = adj @ g.adj_external(transpose=False, scipy_fmt="csr", etype=c)
    row, col = (adj != 0).tocsr().nonzero()
    s, d = cans[0][0], cans[-1][2]
    new = Graph(
        {(s, "_E", d): _sparse_ids(g, row, col)},
        {s: g._num_src[s], d: g._num_src[d]},
        validate=False,
    )
    for t in {s, d}:
        new._src_frames[t]._data.update(g._src_frames[t]._data)
    return new


def _relabelled(
    g: Graph,
    chosen: Mapping[Canonical, Any] | None,
    induced: Mapping[str, Any],
    *,
    copy_ndata: bool,
    store_nids: bool,
    store_eids: bool,
    share_edata: bool = False,
) -> Graph:
    """The edges ``chosen`` (all edges for ``None``) of ``g`` over the nodes ``induced``
    (relabelled in that order): node features gathered when ``copy_ndata``, ``ndata[NID]``
    when ``store_nids``; edge features gathered (shared when ``share_edata``)."""
    from arraygnn.graph.subgraph import _relabel_map

    xp = g._xp()
    ops = _ops()
    maps = {t: _relabel_map(xp, ids, g._num_src[t]) for t, ids in induced.items()}
    rels = {}
    for c, r in g._rels.items():
        src, dst = (r.src, r.dst) if chosen is None else (r.src[chosen[c]], r.dst[chosen[c]])
        rels[c] = (maps[c[0]][src].astype(g.idtype), maps[c[2]][dst].astype(g.idtype))
    new = Graph(rels, {t: int(ids.shape[0]) for t, ids in induced.items()}, validate=False)
    for t, ids in induced.items():
        frame = new._src_frames[t]._data
        if copy_ndata:
            frame.update({k: ops.gather(v, ids) for k, v in g._src_frames[t]._data.items()})
        if store_nids:
            frame[NID] = ids
    for c, r in g._rels.items():
        frame = new._rels[c].frame._data
        if chosen is None:
            if share_edata:
                frame.update(r.frame._data)
            continue
        frame.update({k: ops.gather(v, chosen[c]) for k, v in r.frame._data.items()})
        if store_eids:
            frame[EID] = chosen[c]
    return new


def compact_graphs(
    graphs: Any, always_preserve: Any = None, copy_ndata: bool = True, copy_edata: bool = True
) -> Any:
    """Drop the nodes that have no edge in any of ``graphs`` (same node types and counts)
    and relabel the rest, in order of first appearance: ``always_preserve`` (ids or
    ``{ntype: ids}``) first, then per graph and edge type the sources, then the
    destinations, in edge-id order (DGL's hash-map order). ``copy_ndata`` gathers node
    features and writes ``ndata[NID]``; ``copy_edata`` shares edge features. A graph
    in gives a graph out, a list gives a list."""
    where = "compact_graphs"
    single = isinstance(graphs, Graph)
    glist = [graphs] if single else list(graphs)
    if not glist:
        return []
    for g in glist:
        _check_input(where, g)
    _check_flag(where, "copy_ndata", copy_ndata)
    _check_flag(where, "copy_edata", copy_edata)
    g0 = glist[0]
    for i, g in enumerate(glist[1:], 1):
        if g._num_src != g0._num_src or g.idtype != g0.idtype or g.device != g0.device:
            raise ValueError(
                f"{where}: graphs[{i}] has nodes {g._num_src}, idtype {g.idtype}, device "
                f"{g.device!r}; graphs[0] has {g0._num_src}, {g0.idtype}, {g0.device!r} "
                "(the graphs must share one node space)"
            )
    preserve = None
    if always_preserve is not None:
        preserve = _nodes_per_type(where, "always_preserve", g0, always_preserve)
    edges = [(c, r, None) for g in glist for c, r in g._rels.items()]
    induced = _first_appearance_nodes(g0, edges, preserve)
    out = [
        _relabelled(
            g,
            None,
            induced,
            copy_ndata=copy_ndata,
            store_nids=copy_ndata,  # DGL writes NID with the node features
            store_eids=False,
            share_edata=copy_edata,
        )
        for g in glist
    ]
    return out[0] if single else out


# ---------------------------------------------------------------------- add / remove
def _append_rows(
    where: str, frame: Mapping[str, Any], n_old: int, num: int, data: Any, xp: Any
) -> dict[str, Any]:
    """``frame``'s features with ``num`` rows appended: ``data``'s rows where given, zeros
    elsewhere (zeros for the old rows of a feature only ``data`` has)."""
    data = {} if data is None else data
    if not isinstance(data, Mapping):
        raise TypeError(f"{where}: data must be a dict {{name: array}}, got {type(data).__name__}")
    for k, v in data.items():
        if not is_array(v) or get_namespace(v) is not xp:
            raise TypeError(f"{where}: data[{k!r}] must be an array on the graph's device")
        if v.ndim == 0 or v.shape[0] != num:
            raise ValueError(
                f"{where}: data[{k!r}] has {0 if v.ndim == 0 else v.shape[0]} rows; {num} are added"
            )
        old = frame.get(k)
        if old is not None and (old.dtype != v.dtype or old.shape[1:] != v.shape[1:]):
            raise TypeError(
                f"{where}: data[{k!r}] is {v.dtype} {tuple(v.shape[1:])} per row but the "
                f"graph's feature is {old.dtype} {tuple(old.shape[1:])}"
            )
    out = {}
    for k, v in frame.items():
        new = data[k] if k in data else xp.zeros((num, *v.shape[1:]), dtype=v.dtype)
        out[k] = xp.concatenate([v, new])
    for k, v in data.items():
        if k not in frame:
            out[k] = xp.concatenate([xp.zeros((n_old, *v.shape[1:]), dtype=v.dtype), v])
    return out


def _rebuild(
    g: Graph,
    rels: Mapping[Canonical, tuple[Any, Any]],
    counts: Mapping[str, int],
    node_data: Mapping[str, Mapping[str, Any]],
    edge_data: Mapping[Canonical, Mapping[str, Any]],
) -> Graph:
    new = Graph(rels, counts, validate=False)
    for t, d in node_data.items():
        new._src_frames[t]._data.update(d)
    for c, d in edge_data.items():
        new._rels[c].frame._data.update(d)
    return new


def _same(g: Graph) -> Graph:
    """A new graph with ``g``'s ids, features (shared) and batch information."""
    new = _rebuild(
        g,
        {c: (r.src, r.dst) for c, r in g._rels.items()},
        g._num_src,
        {t: f._data for t, f in g._src_frames.items()},
        {c: r.frame._data for c, r in g._rels.items()},
    )
    new._batch_nodes = None if g._batch_nodes is None else dict(g._batch_nodes)
    new._batch_edges = None if g._batch_edges is None else dict(g._batch_edges)
    return new


def _grow(g: Graph, counts: dict[str, int], where: str) -> dict[str, dict[str, Any]]:
    """Node features of ``g`` padded with zero rows up to ``counts`` (shared where a
    type's count is unchanged)."""
    xp = g._xp()
    return {
        t: _append_rows(where, f._data, g._num_src[t], counts[t] - g._num_src[t], None, xp)
        if counts[t] != g._num_src[t]
        else dict(f._data)
        for t, f in g._src_frames.items()
    }


def add_nodes(g: Graph, num: int, data: Any = None, ntype: str | None = None) -> Graph:
    """``g`` with ``num`` more nodes of ``ntype`` (ids from ``g.num_nodes(ntype)``);
    ``data`` gives their features (zeros otherwise). Batch information is dropped."""
    where = "add_nodes"
    _check_input(where, g)
    if ntype is None and len(g.ntypes) != 1:
        raise ValueError(f"{where}: the graph has node types {g.ntypes}; pass ntype=")
    t = _named_ntype(where, "ntype", g, ntype)
    num = _check_count(where, "num", num)
    if num == 0:
        return _same(g)
    counts = dict(g._num_src)
    counts[t] += num
    if g.idtype == np.int32 and counts[t] > _INT32_MAX:
        raise ValueError(f"{where}: {counts[t]} nodes do not fit the graph's int32 ids")
    node_data = {u: dict(f._data) for u, f in g._src_frames.items()}
    node_data[t] = _append_rows(where, node_data[t], g._num_src[t], num, data, g._xp())
    rels = {c: (r.src, r.dst) for c, r in g._rels.items()}
    return _rebuild(g, rels, counts, node_data, {c: r.frame._data for c, r in g._rels.items()})


def add_edges(g: Graph, u: Any, v: Any, data: Any = None, etype: Any = None) -> Graph:
    """``g`` with the edges ``(u[i], v[i])`` appended to ``etype`` (ids from
    ``g.num_edges(etype)``; a single ``u`` or ``v`` is repeated). End nodes beyond the
    graph are added (zero features); ``data`` gives the new edges' features (zeros
    otherwise). Batch information is dropped."""
    where = "add_edges"
    _check_input(where, g)
    if etype is None and len(g._rels) != 1:
        raise ValueError(f"{where}: the graph has edge types {g.canonical_etypes}; pass etype=")
    rel = _named_rel(where, "etype", g, etype)
    s, _, d = rel.canonical
    u = _ids(where, "u", g, u, _INT32_MAX + 1 if g.idtype == np.int32 else 2**63)
    v = _ids(where, "v", g, v, _INT32_MAX + 1 if g.idtype == np.int32 else 2**63)
    if u.shape[0] == 0 or v.shape[0] == 0:
        return _same(g)
    xp = g._xp()
    if u.shape[0] != v.shape[0]:
        if u.shape[0] == 1:
            u = xp.full(v.shape[0], int(u[0]), dtype=u.dtype)
        elif v.shape[0] == 1:
            v = xp.full(u.shape[0], int(v[0]), dtype=v.dtype)
        else:
            raise ValueError(
                f"{where}: u has {u.shape[0]} ids and v {v.shape[0]}; they must match "
                "(or one of them be a single id)"
            )
    counts = dict(g._num_src)
    counts[s] = max(counts[s], int(u.max()) + 1)
    counts[d] = max(counts[d], int(v.max()) + 1)
    node_data = _grow(g, counts, where)
    rels = {c: (r.src, r.dst) for c, r in g._rels.items()}
    rels[rel.canonical] = (xp.concatenate([rel.src, u]), xp.concatenate([rel.dst, v]))
    edge_data = {c: dict(r.frame._data) for c, r in g._rels.items()}
    edge_data[rel.canonical] = _append_rows(
        where, rel.frame._data, rel.num_edges, int(u.shape[0]), data, xp
    )
    return _rebuild(g, rels, counts, node_data, edge_data)


def _removed_per_graph(counts: np.ndarray, removed: Any) -> np.ndarray:
    """How many of the (distinct) ids ``removed`` fall in each graph of a batch whose
    graphs hold ``counts`` consecutive ids."""
    from arraygnn._namespace import to_numpy

    ids = unique_ids(np, to_numpy(removed))
    owner = np.searchsorted(np.cumsum(counts), ids, side="right")
    return np.bincount(owner, minlength=counts.shape[0]).astype(np.int64)


def remove_edges(g: Graph, eids: Any, etype: Any = None, store_ids: bool = False) -> Graph:
    """``g`` without the edges ``eids`` of ``etype`` (repeats allowed); the other edges keep
    their order and every node is kept (features shared). ``store_ids`` writes
    ``edata[EID]`` on every edge type. Batch information is recounted."""
    where = "remove_edges"
    _check_input(where, g)
    _check_flag(where, "store_ids", store_ids)
    if etype is None and len(g._rels) != 1:
        raise ValueError(f"{where}: the graph has edge types {g.canonical_etypes}; pass etype=")
    rel = _named_rel(where, "etype", g, etype)
    eids = _ids(where, "eids", g, eids, rel.num_edges)
    if eids.shape[0] == 0:
        return _same(g)
    xp = g._xp()
    chosen = {c: xp.arange(r.num_edges, dtype=g.idtype) for c, r in g._rels.items()}
    chosen[rel.canonical] = _edge_ids(xp, ~_mask(xp, eids, rel.num_edges), g.idtype)
    new = _keep_edges(g, chosen, store_ids)
    new._batch_nodes = None if g._batch_nodes is None else dict(g._batch_nodes)
    if g._batch_edges is not None:
        new._batch_edges = dict(g._batch_edges)
        before = g._batch_edges[rel.canonical]
        new._batch_edges[rel.canonical] = before - _removed_per_graph(before, eids)
    return new


def remove_nodes(g: Graph, nids: Any, ntype: str | None = None, store_ids: bool = False) -> Graph:
    """``g`` without the nodes ``nids`` of ``ntype`` (repeats allowed) and their edges; the
    rest are relabelled in id order (DGL's node subgraph: features gathered; on every
    edge type, even one whose nodes all stay, the edges come grouped by source, each
    source's in edge-id order). ``store_ids`` writes ``ndata[NID]`` / ``edata[EID]`` on
    every type. Batch information is recounted."""
    where = "remove_nodes"
    _check_input(where, g)
    _check_flag(where, "store_ids", store_ids)
    if ntype is None and len(g.ntypes) != 1:
        raise ValueError(f"{where}: the graph has node types {g.ntypes}; pass ntype=")
    t = _named_ntype(where, "ntype", g, ntype)
    nids = _ids(where, "nids", g, nids, g._num_src[t])
    if nids.shape[0] == 0:
        return _same(g)
    xp = g._xp()
    keep = {u: xp.arange(n, dtype=g.idtype) for u, n in g._num_src.items()}
    keep[t] = _edge_ids(xp, ~_mask(xp, nids, g._num_src[t]), g.idtype)
    batched = g._batch_nodes is not None
    new = node_subgraph(g, keep, store_ids=store_ids or batched)
    if batched:
        from arraygnn._namespace import to_numpy

        new._batch_nodes = dict(g._batch_nodes)
        new._batch_nodes[t] = g._batch_nodes[t] - _removed_per_graph(g._batch_nodes[t], nids)
        if g._batch_edges is not None:
            new._batch_edges = dict(g._batch_edges)
            for c, r in new._rels.items():
                before = g._batch_edges[c]
                if r.num_edges == g._rels[c].num_edges:
                    continue
                left = to_numpy(r.frame._data[EID])
                owner = np.searchsorted(np.cumsum(before), left, side="right")
                new._batch_edges[c] = np.bincount(owner, minlength=before.shape[0]).astype(np.int64)
        if not store_ids:
            for f in new._src_frames.values():
                f._data.pop(NID, None)
            for r in new._rels.values():
                r.frame._data.pop(EID, None)
    return new
