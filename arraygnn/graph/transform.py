"""DGL's graph transforms on the DGL face: :func:`add_self_loop`, :func:`remove_self_loop`,
:func:`reverse`, :func:`add_reverse_edges`, :func:`to_simple`, :func:`to_bidirected`,
:func:`to_homogeneous`.

Each returns a new graph; the input is never changed.

>>> import numpy as np
>>> from arraygnn.graph import graph, add_self_loop, remove_self_loop, to_bidirected
>>> g = graph((np.array([0, 1, 1]), np.array([1, 1, 2])))
>>> g.edata["w"] = np.array([0.5, 2.0, 3.0])
>>> h = add_self_loop(remove_self_loop(g))
>>> h.edges(), h.edata["w"]
((array([0, 1, 0, 1, 2]), array([1, 2, 0, 1, 2])), array([0.5, 3. , 1. , 1. , 1. ]))
>>> to_bidirected(g).edges()  # sorted, as DGL's C++ to_simple
(array([0, 1, 1, 1, 2]), array([1, 0, 1, 2, 1]))

RULE: edge order is kept: new edges go after the old ones (``add_self_loop``: one loop per
      node in node order; ``add_reverse_edges``: the reversed edges in edge-id order);
      ``remove_self_loop`` keeps the other edges in edge-id order; ``to_simple`` (and so
      ``to_bidirected``) lists the distinct ``(u, v)`` pairs sorted (DGL's C++
      ``COOToSimple``).
RULE: node features are shared with the input (same arrays, as DGL's ``copy_ndata``); edge
      features of kept edges are gathered into new arrays; ``edata[EID]`` is not added
      (DGL's ``store_ids=False``). Batch information is dropped, except by
      ``remove_self_loop``, which recounts it (DGL's ``remove_edges``).
RULE: blocks are refused, and so are transforms needing one node type at both ends of an
      edge type that joins two (``add_self_loop``, ``remove_self_loop``, ``to_bidirected``),
      naming the edge type.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph.core import Canonical, Graph, check_graph

__all__ = [
    "add_self_loop",
    "remove_self_loop",
    "reverse",
    "add_reverse_edges",
    "to_simple",
    "to_bidirected",
    "to_homogeneous",
    "NTYPE",
    "ETYPE",
]

_LOOP_REDUCES = ("sum", "mean", "max", "min")
_SIMPLE_AGGREGATORS = ("arbitrary", "sum", "mean")


def _ops() -> Any:
    from arraygnn import ops

    return ops


def _check_input(where: str, g: Any) -> None:
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: blocks are not supported; transform the graph first")


def _check_flag(where: str, name: str, value: Any) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r}")


def _one_node_type(where: str, c: Canonical) -> None:
    if c[0] != c[2]:
        raise ValueError(
            f"{where}: edge type {c!r} joins node type {c[0]!r} to {c[2]!r}; "
            "it needs the same node type at both ends"
        )


def _build(
    g: Graph,
    relations: dict[Canonical, tuple[Any, Any]],
    edge_data: dict[Canonical, dict[str, Any]],
    copy_ndata: bool,
) -> Graph:
    """A graph with ``g``'s node types and counts, ``relations`` and the given features."""
    new = Graph(relations, g._num_src, validate=False)
    if copy_ndata:
        for t, f in g._src_frames.items():
            new._src_frames[t]._data.update(f._data)
    for c, data in edge_data.items():
        new._rels[c].frame._data.update(data)
    return new


def add_self_loop(
    g: Graph,
    edge_feat_names: Iterable[str] | None = None,
    fill_data: float | str = 1.0,
    etype: Any = None,
) -> Graph:
    """``g`` with one more edge ``(i, i)`` for every node ``i`` of ``etype``'s node type
    (added whether or not a loop exists; :func:`remove_self_loop` first for exactly one).

    The new edges' features named in ``edge_feat_names`` (default: all) are ``fill_data``
    (a number or bool, cast to each feature's dtype) or the ``'sum'`` / ``'mean'`` /
    ``'max'`` / ``'min'`` of the node's incoming edges' features (0 for a node with none);
    other features get zeros, as DGL. ``'mean'`` needs floating-point features (DGL's
    reductions refuse integer ones; ``'sum'`` / ``'max'`` / ``'min'`` are exact on them).
    """
    where = "add_self_loop"
    _check_input(where, g)
    rel = g._rel(etype)
    c = rel.canonical
    _one_node_type(where, c)
    names = list(rel.frame._data) if edge_feat_names is None else list(edge_feat_names)
    for name in names:
        if name not in rel.frame._data:
            raise KeyError(
                f"{where}: edge feature {name!r} not found in edge type {c!r}; "
                f"available: {sorted(rel.frame._data)}"
            )
    if isinstance(fill_data, str):
        if fill_data not in _LOOP_REDUCES:
            raise ValueError(
                f"{where}: fill_data must be a number or one of {_LOOP_REDUCES}, got {fill_data!r}"
            )
    elif not isinstance(fill_data, (int, float, np.integer, np.floating, np.bool_)):
        raise TypeError(f"{where}: fill_data must be a number or a reduction name")
    xp = g._xp()
    n = g._num_src[c[0]]
    loops = xp.arange(n, dtype=g.idtype)
    data = {}
    for k, v in rel.frame._data.items():
        if k not in names:
            loop_values = xp.zeros((n, *v.shape[1:]), dtype=v.dtype)
        elif isinstance(fill_data, str):
            if v.dtype.kind not in "iuf" or (fill_data == "mean" and v.dtype.kind != "f"):
                raise TypeError(
                    f"{where}: fill_data={fill_data!r} reduces edge feature {k!r}, which is "
                    f"{v.dtype}; name only {'floating' if fill_data == 'mean' else 'numeric'} "
                    "features in edge_feat_names"
                )
            loop_values = _ops().scatter(v, rel.dst, n, fill_data)
        else:
            loop_values = xp.full((n, *v.shape[1:]), fill_data, dtype=v.dtype)
        data[k] = xp.concatenate([v, loop_values])
    relations = {k: (r.src, r.dst) for k, r in g._rels.items()}
    relations[c] = (xp.concatenate([rel.src, loops]), xp.concatenate([rel.dst, loops]))
    edge_data = {k: dict(r.frame._data) for k, r in g._rels.items()}
    edge_data[c] = data
    return _build(g, relations, edge_data, copy_ndata=True)


def remove_self_loop(g: Graph, etype: Any = None) -> Graph:
    """``g`` without the edges ``(i, i)`` of ``etype`` (every one of them, parallel loops
    too); the other edges keep their order and features. As DGL's (which calls
    ``remove_edges``), a batched graph keeps its batch information, edges recounted."""
    from arraygnn.graph.structure import remove_edges

    where = "remove_self_loop"
    _check_input(where, g)
    rel = g._rel(etype)
    c = rel.canonical
    _one_node_type(where, c)
    loops = g._xp().nonzero(rel.src == rel.dst)[0].astype(g.idtype)
    return remove_edges(g, loops, c)


def _deprecated(where: str, old: str, new: str, value: Any, default: Any) -> Any:
    """DGL's renamed keywords: ``old`` (when given) wins over ``new``, with a warning."""
    if value is None:
        return default
    warnings.warn(
        f"{where}: {old} has been renamed to {new} (as in DGL)", DeprecationWarning, stacklevel=3
    )
    return value


def reverse(
    g: Graph,
    copy_ndata: bool = True,
    copy_edata: bool = False,
    *,
    share_ndata: bool | None = None,
    share_edata: bool | None = None,
) -> Graph:
    """``g`` with every edge turned around: edge type ``(s, e, d)`` becomes ``(d, e, s)``
    with the same edge ids. ``copy_ndata`` / ``copy_edata`` share the features (DGL's
    defaults: node features yes, edge features no); ``share_ndata`` / ``share_edata`` are
    DGL's old names (they win, with a ``DeprecationWarning``)."""
    where = "reverse"
    copy_ndata = _deprecated(where, "share_ndata", "copy_ndata", share_ndata, copy_ndata)
    copy_edata = _deprecated(where, "share_edata", "copy_edata", share_edata, copy_edata)
    _check_input(where, g)
    _check_flag(where, "copy_ndata", copy_ndata)
    _check_flag(where, "copy_edata", copy_edata)
    relations = {(d, e, s): (r.dst, r.src) for (s, e, d), r in g._rels.items()}
    edge_data = {}
    if copy_edata:
        edge_data = {(d, e, s): dict(r.frame._data) for (s, e, d), r in g._rels.items()}
    return _build(g, relations, edge_data, copy_ndata)


def add_reverse_edges(
    g: Graph,
    copy_ndata: bool = True,
    copy_edata: bool = False,
    ignore_bipartite: bool = False,
    exclude_self: bool = True,
    *,
    readonly: Any = None,
) -> Graph:
    """``g`` plus the edge ``(v, u)`` for every edge ``(u, v)`` of each edge type with one
    node type at both ends, after the original edges in edge-id order.

    ``exclude_self`` adds no reverse of a self-loop. ``copy_edata`` gives each reverse edge
    its original's features (else the result has no edge features, as DGL). An edge type
    joining two node types raises unless ``ignore_bipartite`` (then it is kept as it is).
    ``readonly`` is DGL's deprecated argument (ignored, with a ``DeprecationWarning``; DGL
    takes it second, so pass the flags by name).
    """
    where = "add_reverse_edges"
    _readonly(where, readonly)
    _check_input(where, g)
    for name, flag in (
        ("copy_ndata", copy_ndata),
        ("copy_edata", copy_edata),
        ("ignore_bipartite", ignore_bipartite),
        ("exclude_self", exclude_self),
    ):
        _check_flag(where, name, flag)
    xp = g._xp()
    relations, edge_data = {}, {}
    for c, rel in g._rels.items():
        if c[0] != c[2]:
            if not ignore_bipartite:
                _one_node_type(where + " (pass ignore_bipartite=True to keep it)", c)
            relations[c] = (rel.src, rel.dst)
            if copy_edata:
                edge_data[c] = dict(rel.frame._data)
            continue
        back = xp.arange(rel.num_edges, dtype=g.idtype)
        if exclude_self:
            back = back[rel.src != rel.dst]
        relations[c] = (
            xp.concatenate([rel.src, rel.dst[back]]),
            xp.concatenate([rel.dst, rel.src[back]]),
        )
        if copy_edata:
            edge_data[c] = {
                k: xp.concatenate([v, _ops().gather(v, back)]) for k, v in rel.frame._data.items()
            }
    return _build(g, relations, edge_data, copy_ndata)


def _distinct_pairs(g: Graph, c: Canonical, src: Any, dst: Any) -> tuple[Any, Any, Any]:
    """For the distinct ``(src, dst)`` pairs sorted by ``(src, dst)`` (DGL's
    ``COOToSimple``: ``COOSort`` then ``COOCoalesce``): the edge id of each pair's first
    edge, each edge's pair index (DGL's write-back mapping) and each pair's edge count.
    O(E + nodes): two stable counting sorts (:func:`arraygnn.graph.query.pair_order`),
    then one pass numbering the runs of equal pairs (the ``pairs`` kernel)."""
    from arraygnn.graph.query import pair_order
    from arraygnn.ops._common import kernel_function, kernel_index

    xp = g._xp()
    e = int(src.shape[0])
    if e == 0:
        empty = xp.zeros(0, dtype=g.idtype)
        return empty, empty, empty
    order = pair_order(src, dst, g._num_src[c[0]], g._num_dst[c[2]])
    mapping, first, counts = (xp.empty(e, dtype=order.dtype) for _ in range(3))
    k = kernel_function(xp, "pairs", "pair_runs")(
        order, kernel_index(xp, src), kernel_index(xp, dst), mapping, first, counts
    )
    return (
        first[:k].astype(g.idtype, copy=False),
        mapping.astype(g.idtype, copy=False),
        counts[:k].astype(g.idtype, copy=False),
    )


def to_simple(
    g: Graph,
    return_counts: str | None = "count",
    writeback_mapping: bool = False,
    copy_ndata: bool = True,
    copy_edata: bool = False,
    aggregator: str = "arbitrary",
) -> Any:
    """``g`` with parallel edges (same edge type and endpoints) merged into one; the
    distinct pairs come sorted by ``(u, v)``, as DGL's C++ ``COOToSimple`` gives them (its
    docstring's heterograph example shows an older, first-appearance order).

    ``return_counts`` names the edge feature receiving each pair's edge count (``None``:
    none). ``writeback_mapping=True`` also returns, for each old edge, its new edge id (a
    dict by canonical edge type when ``g`` has several). ``copy_edata`` merges the edge
    features of parallel edges with ``aggregator``: ``'arbitrary'`` (the pair's first
    edge's, as DGL's ``np.unique(return_index=True)``), ``'sum'`` or ``'mean'`` (floating-point
    features only: DGL's in-place division refuses integer ones).

    >>> from arraygnn.graph import graph
    >>> g = graph(([2, 0, 2, 1], [0, 1, 0, 2]))
    >>> h, wb = to_simple(g, writeback_mapping=True)
    >>> h.edges(), h.edata["count"], wb
    ((array([0, 1, 2]), array([1, 2, 0])), array([1, 1, 2]), array([2, 0, 2, 1]))
    """
    where = "to_simple"
    _check_input(where, g)
    for name, flag in (
        ("writeback_mapping", writeback_mapping),
        ("copy_ndata", copy_ndata),
        ("copy_edata", copy_edata),
    ):
        _check_flag(where, name, flag)
    if return_counts is not None and not isinstance(return_counts, str):
        raise TypeError(f"{where}: return_counts must be a feature name or None")
    if aggregator not in _SIMPLE_AGGREGATORS:
        raise ValueError(
            f"{where}: aggregator must be one of {_SIMPLE_AGGREGATORS}, got {aggregator!r}"
        )
    relations, edge_data, mapping = {}, {}, {}
    for c, rel in g._rels.items():
        first, wb, counts = _distinct_pairs(g, c, rel.src, rel.dst)
        relations[c] = (rel.src[first], rel.dst[first])
        mapping[c] = wb
        data = {}
        if copy_edata:
            for k, v in rel.frame._data.items():
                if aggregator == "mean" and v.dtype.kind != "f":
                    raise TypeError(
                        f"{where}: aggregator='mean' needs floating-point edge features; "
                        f"{k!r} of edge type {c!r} is {v.dtype} (as DGL, which refuses it)"
                    )
                if aggregator == "arbitrary":
                    data[k] = _ops().gather(v, first)
                else:
                    data[k] = _ops().scatter(v, wb, int(first.shape[0]), aggregator)
        if return_counts is not None:
            data[return_counts] = counts
        edge_data[c] = data
    new = _build(g, relations, edge_data, copy_ndata)
    if not writeback_mapping:
        return new
    return new, (next(iter(mapping.values())) if len(mapping) == 1 else mapping)


def _readonly(where: str, readonly: Any) -> None:
    if readonly is not None:
        warnings.warn(
            f"{where}: readonly is deprecated and ignored (as in DGL)",
            DeprecationWarning,
            stacklevel=3,
        )


def to_bidirected(g: Graph, copy_ndata: bool = False, readonly: Any = None) -> Graph:
    """The simple graph with an edge ``(v, u)`` wherever ``g`` has ``(u, v)`` or ``(v, u)``:
    :func:`add_reverse_edges` (self-loops once) then :func:`to_simple` without counts, so
    the edges come sorted by ``(u, v)`` (DGL's). Edge features are dropped (as DGL); every
    edge type needs one node type at both ends. ``readonly``: DGL's deprecated argument."""
    where = "to_bidirected"
    _readonly(where, readonly)
    _check_input(where, g)
    _check_flag(where, "copy_ndata", copy_ndata)
    for c in g._rels:
        _one_node_type(where, c)
    both = add_reverse_edges(g, copy_ndata=copy_ndata, copy_edata=False)
    return to_simple(both, return_counts=None, copy_ndata=copy_ndata)


#: the feature names ``to_homogeneous`` stores the node / edge type ids under (DGL's)
NTYPE = "_TYPE"
ETYPE = "_TYPE"


def _combined(where: str, frames: list[tuple[Any, Any]], names: Any, what: str) -> dict:
    """``{name: concatenation over the typed frames}``; every frame with rows must hold
    ``name`` with one trailing shape and dtype (frames without rows are skipped, as DGL's
    ``combine_frames``; when every frame is empty, those holding ``name`` are used)."""
    if names is None:
        return {}
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise TypeError(f"{where}: {what} must be a list of feature names, got {names!r}")
    out = {}
    for name in names:
        parts = []
        used = [(k, f) for k, f in frames if f.num_rows > 0]
        if not used:
            used = [(k, f) for k, f in frames if name in f._data] or frames[:1]
        for key, frame in used:
            if name not in frame._data:
                raise KeyError(f"{where}: {what} feature {name!r} is missing on {key!r}")
            parts.append(frame._data[name])
        shapes = {tuple(p.shape[1:]) for p in parts}
        dtypes = {p.dtype for p in parts}
        if len(shapes) > 1 or len(dtypes) > 1:
            raise ValueError(
                f"{where}: {what} feature {name!r} differs in shape or dtype between types "
                f"({sorted(map(str, shapes))}, {sorted(map(str, dtypes))})"
            )
        xp = get_namespace(*parts)
        out[name] = xp.concatenate(parts) if parts else parts
    return out


def to_homogeneous(
    g: Graph,
    ndata: Iterable[str] | None = None,
    edata: Iterable[str] | None = None,
    store_type: bool = True,
    return_count: bool = False,
) -> Any:
    """DGL's ``to_homogeneous``: one node id space (node types in ``g.ntypes`` order, each
    type's nodes contiguous) and one edge list (edge types in ``canonical_etypes`` order).

    ``ndata[NID]`` / ``edata[EID]`` hold each node's / edge's id within its type,
    ``ndata[NTYPE]`` / ``edata[ETYPE]`` (``"_TYPE"``, int64) its type's index unless
    ``store_type=False``; the features named in ``ndata`` / ``edata`` are concatenated over
    the types (each type must have them, with one trailing shape and dtype). With
    ``return_count=True`` also the per-type node and edge counts. The edge types are what a
    relational layer takes: ``RelGraphConv(...)(hg, feat, hg.edata[ETYPE])``.

    >>> import numpy as np
    >>> from arraygnn.graph import heterograph
    >>> hg = heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([0, 0])),
    ...                   ("user", "follows", "user"): (np.array([0]), np.array([1]))})
    >>> h = to_homogeneous(hg)
    >>> h.edges()[0].tolist(), h.edges()[1].tolist(), h.edata[ETYPE].tolist()
    ([1, 1, 2], [2, 0, 0], [0, 1, 1])
    """
    from arraygnn.graph.core import EID, NID

    where = "to_homogeneous"
    _check_input(where, g)
    _check_flag(where, "store_type", store_type)
    _check_flag(where, "return_count", return_count)
    xp = g._xp()
    idtype = g.idtype
    ntypes = g.ntypes
    counts = [g.num_nodes(t) for t in ntypes]
    offsets = dict(zip(ntypes, np.concatenate([[0], np.cumsum(counts)[:-1]]).tolist()))
    srcs, dsts, eids, etype_ids, ecounts = [], [], [], [], []
    for k, (c, rel) in enumerate(g._rels.items()):
        s, _, d = c
        srcs.append(rel.src.astype(idtype, copy=False) + offsets[s])
        dsts.append(rel.dst.astype(idtype, copy=False) + offsets[d])
        eids.append(xp.arange(rel.num_edges, dtype=idtype))
        etype_ids.append(xp.full(rel.num_edges, k, dtype=np.int64))
        ecounts.append(rel.num_edges)
    empty = xp.zeros(0, dtype=idtype)
    src = xp.concatenate(srcs) if srcs else empty
    dst = xp.concatenate(dsts) if dsts else empty
    out = Graph({("_N", "_E", "_N"): (src, dst)}, {"_N": int(sum(counts))}, validate=False)
    node_frames = [(t, g._src_frames[t]) for t in ntypes]
    edge_frames = [(c, rel.frame) for c, rel in g._rels.items()]
    out.ndata.update(_combined(where, node_frames, ndata, "node"))
    out.edata.update(_combined(where, edge_frames, edata, "edge"))
    out.ndata[NID] = (
        xp.concatenate([xp.arange(n, dtype=idtype) for n in counts]) if counts else empty
    )
    out.edata[EID] = xp.concatenate(eids) if eids else empty
    if store_type:
        out.ndata[NTYPE] = (
            xp.concatenate([xp.full(n, k, dtype=np.int64) for k, n in enumerate(counts)])
            if counts
            else xp.zeros(0, dtype=np.int64)
        )
        out.edata[ETYPE] = xp.concatenate(etype_ids) if etype_ids else xp.zeros(0, dtype=np.int64)
    if return_count:
        return out, counts, ecounts
    return out


def _common_features(frames: list[Any], where: str) -> dict:
    """DGL's ``combine_frames``: the features every non-empty frame holds (one trailing
    shape and dtype each, ``ValueError`` otherwise), concatenated; empty frames are
    skipped."""
    frames = [f for f in frames if f.num_rows > 0]
    if not frames:
        return {}
    names = [k for k in frames[0]._data if all(k in f._data for f in frames[1:])]
    out = {}
    for name in names:
        parts = [f._data[name] for f in frames]
        if len({(tuple(p.shape[1:]), p.dtype) for p in parts}) > 1:
            raise ValueError(
                f"{where}: feature {name!r} differs in shape or dtype between the combined "
                "types; it cannot be concatenated"
            )
        out[name] = get_namespace(*parts).concatenate(parts)
    return out


def _flatten_relations(g: Graph, cets: list[Canonical]) -> Graph:
    """DGL's ``g[src, :, dst]`` over several edge types (``FlattenImpl``): the source
    (destination) types of ``cets``, sorted, become one type named by ``'+'``-joining
    their sorted names, their nodes concatenated type by type; the edges follow the edge
    types in order, in one edge type named ``'+'.join(sorted(etype names))``. ``NTYPE`` /
    ``NID`` and ``ETYPE`` / ``EID`` hold the original type ids (``ntypes`` /
    ``canonical_etypes`` order) and per-type ids (as DGL's: ``NTYPE`` / ``NID`` int64,
    ``ETYPE`` / ``EID`` the graph's idtype); common features are concatenated."""
    from arraygnn.graph.core import EID, NID

    xp, idtype = g._xp(), g.idtype
    all_ntypes, all_cets = g.ntypes, g.canonical_etypes
    stypes = sorted({c[0] for c in cets}, key=all_ntypes.index)
    dtypes = sorted({c[2] for c in cets}, key=all_ntypes.index)
    one_type = stypes == dtypes
    s_name, d_name = "+".join(sorted(stypes)), "+".join(sorted(dtypes))
    e_name = "+".join(sorted(c[1] for c in cets))

    def offsets(types: list[str]) -> dict[str, int]:
        counts = [g.num_nodes(t) for t in types]
        return dict(zip(types, np.concatenate([[0], np.cumsum(counts)]).tolist()))

    s_off, d_off = offsets(stypes), offsets(dtypes)
    src = [g._rels[c].src.astype(idtype, copy=False) + s_off[c[0]] for c in cets]
    dst = [g._rels[c].dst.astype(idtype, copy=False) + d_off[c[2]] for c in cets]
    n_src, n_dst = sum(g.num_nodes(t) for t in stypes), sum(g.num_nodes(t) for t in dtypes)
    c_new = (s_name, e_name, s_name if one_type else d_name)
    edges = {c_new: (xp.concatenate(src), xp.concatenate(dst))}
    out = Graph(edges, {s_name: n_src} if one_type else {s_name: n_src, d_name: n_dst})
    where = f"g[{cets}]"
    for name, types in ((s_name, stypes), (c_new[2], dtypes)):
        frame = out.nodes[name].data
        frame.update(_common_features([g._src_frames[t] for t in types], where))
        frame[NTYPE] = xp.concatenate(
            [xp.full(g.num_nodes(t), all_ntypes.index(t), dtype=np.int64) for t in types]
        )
        # DGL's dtypes: NTYPE / NID int64, ETYPE / EID the graph's idtype (FlattenImpl)
        frame[NID] = xp.concatenate([xp.arange(g.num_nodes(t), dtype=np.int64) for t in types])
    out.edata.update(_common_features([g._rels[c].frame for c in cets], where))
    out.edata[ETYPE] = xp.concatenate(
        [xp.full(g._rels[c].num_edges, all_cets.index(c), dtype=idtype) for c in cets]
    )
    out.edata[EID] = xp.concatenate([xp.arange(g._rels[c].num_edges, dtype=idtype) for c in cets])
    return out
