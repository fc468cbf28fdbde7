"""The edges of a multi-relational graph grouped by relation, once, for every layer.

The relational layers (:class:`~arraygnn.nn.RGCNConv`, :class:`~arraygnn.nn.RelGraphConv`)
aggregate each target's edges per relation. Grouping the edges that way takes two stable
counting sorts and a few gathers: on a 1M-node / 5M-edge graph with 16 relations about as
long as the layer's own arithmetic. :func:`group_relations` does it once and returns a
:class:`RelationGroups` that every layer on the same graph takes in place of
``edge_index`` / ``edge_type`` (``conv(x, groups)``, or ``conv(g, feat, groups)`` in DGL's
form): the second layer and every later call skip the sorts. The same idea as
:func:`arraygnn.ops.to_csr` for the other layers.

Two orders serve the two ways a layer computes (``arraygnn.nn.rgcn_conv`` picks one):

- :func:`relation_csr`: the destination CSR with each row's slots grouped by relation
  (target-major, relation-minor, edge ids ascending) for the fused typed SpMM;
- :func:`relation_rows`: one CSR row per (relation, target) pair that occurs
  (relation-major, target-minor, edge ids ascending) for the aggregate-then-BLAS path;
  derived from the first order by one more stable counting sort of the slots by relation.

RULE: sizes come from the graph, the CSR or ``num_nodes``, never from ``index.max() + 1``.
RULE: every grouped array is read-only; the caller's arrays are never modified.

>>> import numpy as np
>>> from arraygnn.nn import RGCNConv
>>> ei, et = np.array([[0, 1, 2], [1, 2, 0]]), np.array([0, 1, 1])
>>> groups = group_relations(ei, et, num_relations=2, num_nodes=3)
>>> conv = RGCNConv(4, 2, num_relations=2, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> bool(np.array_equal(conv(x, groups), conv(x, ei, et)))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.nn._graph_input import is_graph
from arraygnn.ops._common import check_index, check_size

__all__ = ["RelationGroups", "RelationRows", "group_relations", "relation_csr", "relation_rows"]


@dataclass(frozen=True)
class RelationRows:
    """The edges of a multi-relational graph grouped by (relation, target).

    - ``csr``: an :class:`arraygnn.ops.CSR` whose row ``k`` holds the edges of relation
      ``row_rel[k]`` into target ``row_dst[k]`` (rows relation-major, targets ascending
      within a relation, edges in id order within a row); only pairs that occur are rows.
    - ``rel_ptr``: host ``int64`` ``[R + 1]``; relation ``r`` owns rows
      ``rel_ptr[r]:rel_ptr[r + 1]``.
    - ``row_dst`` / ``row_rel``: ``[K]`` on the edges' device.
    """

    csr: Any
    rel_ptr: np.ndarray
    row_dst: Any
    row_rel: Any


def _check_edge_type(layer: str, edge_type: Any, num_edges: int, num_relations: int) -> Any:
    if edge_type is None:
        raise TypeError(f"{layer}: edge_type is required (the relation id of every edge)")
    if isinstance(edge_type, (list, tuple)):
        edge_type = np.asarray(edge_type, dtype=np.int64)
    if not is_array(edge_type):
        raise TypeError(
            f"{layer}: edge_type must be a NumPy or CuPy integer array, got {type(edge_type)}"
        )
    if edge_type.dtype.kind not in "iu":
        raise TypeError(f"{layer}: edge_type must hold integers, got dtype {edge_type.dtype}")
    if tuple(edge_type.shape) != (num_edges,):
        raise ValueError(
            f"{layer}: edge_type must have shape ({num_edges},) (one relation per edge), "
            f"got {tuple(edge_type.shape)}"
        )
    if num_edges:
        lo, hi = int(edge_type.min()), int(edge_type.max())
        if lo < 0 or hi >= num_relations:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"{layer}: edge_type has relation {bad}, out of range for "
                f"num_relations={num_relations}"
            )
    return edge_type


def _grouping_inputs(
    where: str,
    edge_index: Any,
    edge_type: Any,
    num_relations: int,
    num_src_nodes: int,
    num_dst_nodes: int,
    source_key: Any,
    num_source_keys: int | None,
) -> tuple[Any, Any, Any, Any, Any, int]:
    """What both groupings start from, checked: ``(xp, src, dst, edge_type, source_key,
    num_source_keys)`` (the sources stand in for a missing ``source_key``)."""
    from arraygnn import ops
    from arraygnn.ops.csr import _split_edge_index

    if isinstance(edge_index, ops.CSR):
        ops.csr.as_csr(edge_index, num_src_nodes, num_dst_nodes)
        src, dst = edge_index.src, edge_index.dst
    else:
        src, dst = _split_edge_index(edge_index)
        check_index("edge_index[0] (sources)", src, num_src_nodes)
        check_index("edge_index[1] (targets)", dst, num_dst_nodes)
    xp = get_namespace(src, dst)
    etype = _check_edge_type(where, edge_type, int(src.shape[0]), num_relations)
    if source_key is None:
        source_key, num_source_keys = src, num_src_nodes
    return xp, src, dst, xp.asarray(etype), source_key, int(num_source_keys)


def relation_csr(
    edge_index: Any,
    edge_type: Any,
    num_relations: int,
    num_src_nodes: int,
    num_dst_nodes: int,
    source_key: Any = None,
    num_source_keys: int | None = None,
) -> tuple[Any, Any]:
    """``(csr, rel)``: the destination CSR with each row's slots grouped by relation
    (relation order, edge ids ascending within a relation) and the relation of every slot,
    for :func:`arraygnn.ops.typed.typed_spmm`. Two stable counting sorts.

    ``source_key`` (edge order, values in ``[0, num_source_keys)``) replaces the sources as
    the CSR's column ids (RGCN without features gathers rows of the stacked weights).

    >>> import numpy as np
    >>> csr, rel = relation_csr(np.array([[0, 1, 2], [1, 1, 0]]), np.array([1, 0, 1]), 2, 3, 2)
    >>> csr.indptr.tolist(), csr.indices.tolist(), rel.tolist()
    ([0, 1, 3], [2, 1, 0], [1, 0, 1])
    """
    from arraygnn import ops
    from arraygnn.ops.csr import CSR, _freeze, sorted_segments

    xp, src, dst, etype, source_key, num_source_keys = _grouping_inputs(
        "relation_csr", edge_index, edge_type, num_relations, num_src_nodes, num_dst_nodes,
        source_key, num_source_keys,
    )  # fmt: skip
    num_edges = int(src.shape[0])
    # int32 whenever every id and count fits (half the index bytes of an int64 edge list;
    # the grouping is internal, so the edge list's dtype need not be kept)
    sizes = (num_edges, num_source_keys, num_dst_nodes, num_relations)
    idt = np.dtype(np.int32 if max(sizes) < 2**31 - 1 else np.int64)
    etype = xp.ascontiguousarray(etype).astype(idt, copy=False)
    dst = xp.ascontiguousarray(dst).astype(idt, copy=False)
    take = ops.gather  # the engine's parallel gather (NumPy's fancy indexing is serial)
    _, by_rel = sorted_segments(xp, etype, num_relations)  # stable: edge ids within a type
    indptr, by_dst = sorted_segments(xp, take(dst, by_rel), num_dst_nodes)
    order = take(by_rel, by_dst).astype(idt, copy=False)  # target-major, relation-minor
    keys = xp.ascontiguousarray(source_key).astype(idt, copy=False)
    indices = take(keys, order)
    rel = take(etype, order)
    indptr = indptr.astype(idt, copy=False)
    _freeze(indptr, indices, order, rel)
    csr = CSR._trusted(indptr, indices, order, keys, dst, num_source_keys, num_dst_nodes)
    return csr, rel


@dataclass(frozen=True)
class _RowLayout:
    """Where :func:`relation_csr`'s slots go in :func:`relation_rows`' order: whatever the
    CSR's column ids (sources or keys), the rows are the same."""

    by_rel: Any  # [E] slot of the grouped CSR at each position of the rows' order
    order: Any  # [E] edge id at each position
    indptr: Any  # [K + 1]
    row_of_edge: Any  # [E] row of every edge (edge order)
    rel_ptr: np.ndarray
    row_dst: Any
    row_rel: Any


def _row_layout(csr: Any, rel: Any, num_relations: int) -> _RowLayout:
    """One stable counting sort of the grouped CSR's slots by relation: relation-major,
    then the slots' own order (target ascending, edge ids ascending)."""
    from arraygnn import ops
    from arraygnn.ops.csr import _freeze, sorted_segments

    xp = get_namespace(csr.indptr)
    idt = csr.indptr.dtype
    num_edges = csr.num_edges
    take = ops.gather
    _, by_rel = sorted_segments(xp, rel, num_relations)
    by_rel = by_rel.astype(idt, copy=False)
    order = take(csr.perm, by_rel)
    rel_sorted = take(rel, by_rel)
    dst_sorted = take(csr.dst, order)
    new_row = xp.ones(num_edges, dtype=bool)
    if num_edges > 1:
        new_row[1:] = (rel_sorted[1:] != rel_sorted[:-1]) | (dst_sorted[1:] != dst_sorted[:-1])
    starts = xp.flatnonzero(new_row).astype(idt, copy=False)
    num_rows = int(starts.shape[0])
    indptr = xp.empty(num_rows + 1, dtype=idt)
    indptr[:num_rows] = starts
    indptr[num_rows] = num_edges
    row_of_edge = xp.empty(num_edges, dtype=idt)
    row_of_edge[order] = (xp.cumsum(new_row) - 1).astype(idt, copy=False)
    row_rel = rel_sorted[starts]
    row_dst = dst_sorted[starts]
    rel_ptr = to_numpy(xp.searchsorted(row_rel, xp.arange(num_relations + 1))).astype(np.int64)
    _freeze(by_rel, order, indptr, row_of_edge, row_dst, row_rel)
    return _RowLayout(by_rel, order, indptr, row_of_edge, rel_ptr, row_dst, row_rel)


def _rows(csr: Any, layout: _RowLayout) -> RelationRows:
    """:class:`RelationRows` of a grouped CSR (its column ids become the rows')."""
    from arraygnn import ops
    from arraygnn.ops.csr import CSR, _freeze

    indices = ops.gather(csr.indices, layout.by_rel)
    _freeze(indices)
    rows = CSR._trusted(
        layout.indptr, indices, layout.order, csr.src, layout.row_of_edge,
        csr.num_src_nodes, int(layout.indptr.shape[0]) - 1,
    )  # fmt: skip
    return RelationRows(rows, layout.rel_ptr, layout.row_dst, layout.row_rel)


def relation_rows(
    edge_index: Any,
    edge_type: Any,
    num_relations: int,
    num_src_nodes: int,
    num_dst_nodes: int,
    source_key: Any = None,
    num_source_keys: int | None = None,
) -> RelationRows:
    """Group the edges by (relation, target): :func:`relation_csr`'s two stable counting
    sorts and one more of its slots by relation; no comparison sort.

    ``source_key`` replaces the sources as the CSR's column ids, as in :func:`relation_csr`.

    >>> import numpy as np
    >>> rows = relation_rows(np.array([[0, 1, 2], [1, 1, 0]]), np.array([1, 0, 1]), 2, 3, 2)
    >>> rows.rel_ptr.tolist(), rows.row_dst.tolist(), rows.csr.indptr.tolist()
    ([0, 1, 3], [1, 0, 1], [0, 1, 2, 3])
    """
    csr, rel = relation_csr(
        edge_index, edge_type, num_relations, num_src_nodes, num_dst_nodes, source_key,
        num_source_keys,
    )  # fmt: skip
    return _rows(csr, _row_layout(csr, rel, num_relations))


class RelationGroups:
    """A multi-relational graph's edges grouped by relation once (build it with
    :func:`group_relations`); relational layers take it in place of ``edge_index`` and
    ``edge_type``. Read-only; holds no features.

    Attributes: ``csr`` (:func:`relation_csr`'s grouped destination CSR; its ``src`` /
    ``dst`` are the edge list), ``rel`` (relation of every CSR slot), ``edge_type`` (edge
    order), ``num_relations``, ``num_src_nodes``, ``num_dst_nodes``, ``num_edges`` and
    ``graph`` (the DGL-face graph it was built from, else None).
    """

    __slots__ = ("csr", "rel", "edge_type", "num_relations", "graph", "_layout")

    def __init__(self, csr: Any, rel: Any, edge_type: Any, num_relations: int, graph: Any):
        self.csr = csr
        self.rel = rel
        self.edge_type = edge_type
        self.num_relations = int(num_relations)
        self.graph = graph
        self._layout: _RowLayout | None = None

    num_src_nodes = property(lambda self: self.csr.num_src_nodes)
    num_dst_nodes = property(lambda self: self.csr.num_dst_nodes)
    num_edges = property(lambda self: self.csr.num_edges)

    def keyed(self, source_key: Any, num_source_keys: int) -> Any:
        """The grouped CSR with ``source_key`` (edge order, validated by the caller) as
        its column ids: one gather, no sort."""
        from arraygnn import ops
        from arraygnn.ops.csr import CSR, _freeze

        xp = get_namespace(self.csr.indptr)
        keys = xp.ascontiguousarray(source_key).astype(self.csr.index_dtype, copy=False)
        indices = ops.gather(keys, self.csr.perm)
        _freeze(indices)
        return CSR._trusted(
            self.csr.indptr, indices, self.csr.perm, keys, self.csr.dst,
            int(num_source_keys), self.num_dst_nodes,
        )  # fmt: skip

    def rows(self, csr: Any = None) -> RelationRows:
        """:func:`relation_rows`' grouping of ``csr`` (default :attr:`csr`, or one from
        :meth:`keyed`); the extra sort runs on the first call only."""
        if self._layout is None:
            self._layout = _row_layout(self.csr, self.rel, self.num_relations)
        return _rows(self.csr if csr is None else csr, self._layout)

    def __repr__(self) -> str:
        return (
            f"RelationGroups(num_relations={self.num_relations}, num_src_nodes="
            f"{self.num_src_nodes}, num_dst_nodes={self.num_dst_nodes}, num_edges="
            f"{self.num_edges}{', graph' if self.graph is not None else ''})"
        )


def group_relations(
    edge_index: Any,
    edge_type: Any,
    num_relations: int,
    num_nodes: int | tuple[int, int] | None = None,
) -> RelationGroups:
    """Group a multi-relational graph's edges once for every relational layer on it.

    Args:
        edge_index: ``[2, E]`` integer array (``edge_index[0]`` sources), a CSR from
            :func:`arraygnn.ops.to_csr`, or a DGL-face graph / block (its edges).
        edge_type: ``[E]`` relation ids in ``[0, num_relations)``, edge order.
        num_relations: the layers' ``num_relations`` / ``num_rels``.
        num_nodes: ``N`` or ``(N_src, N_dst)``; required for an edge array (never guessed
            from the largest id), taken from the CSR or graph otherwise (and checked
            against them when given).

    Pass the result as ``conv(x, groups)`` (PyG form, no ``edge_type``) or
    ``conv(g, feat, groups)`` (DGL form, the graph it was built from). Each call then
    only checks the features. Later changes to ``edge_type`` do not reach the groups.

    >>> import numpy as np
    >>> groups = group_relations(np.array([[0, 1, 2], [1, 1, 0]]), np.array([1, 0, 1]), 2, (3, 2))
    >>> groups
    RelationGroups(num_relations=2, num_src_nodes=3, num_dst_nodes=2, num_edges=3)
    >>> groups.csr.indptr.tolist(), groups.csr.indices.tolist(), groups.rel.tolist()
    ([0, 1, 3], [2, 1, 0], [1, 0, 1])
    """
    from arraygnn import ops
    from arraygnn.ops.csr import _freeze

    where = "group_relations"
    if isinstance(num_relations, bool) or not isinstance(num_relations, (int, np.integer)):
        raise TypeError(f"{where}: num_relations must be an int, got {num_relations!r}")
    num_relations = int(num_relations)
    if num_relations < 1:
        raise ValueError(f"{where}: num_relations must be at least 1, got {num_relations}")
    sizes = None
    if num_nodes is not None:
        pair = num_nodes if isinstance(num_nodes, (tuple, list)) else (num_nodes, num_nodes)
        if len(pair) != 2:
            raise ValueError(f"{where}: num_nodes must be N or (N_src, N_dst), got {num_nodes!r}")
        sizes = (
            check_size(f"{where}: num_nodes (sources)", pair[0]),
            check_size(f"{where}: num_nodes (targets)", pair[1]),
        )
    graph = None
    if is_graph(edge_index):
        graph = edge_index
        if len(getattr(graph, "canonical_etypes", [None])) > 1:
            raise ValueError(
                f"{where}: the graph has several edge types; group a homogeneous graph "
                "(arraygnn.graph.to_homogeneous gives one, with the relation of every edge)"
            )
        src, dst = graph.edges()
        edges = (src, dst)
        known = (int(graph.number_of_src_nodes()), int(graph.number_of_dst_nodes()))
    elif isinstance(edge_index, ops.CSR):
        edges = edge_index
        known = (edge_index.num_src_nodes, edge_index.num_dst_nodes)
    else:
        edges = edge_index
        known = None
        if sizes is None:
            raise ValueError(
                f"{where}: num_nodes is required with an edge array (N or (N_src, N_dst)); "
                "it is never guessed from the largest node id"
            )
    if known is not None and sizes is not None and sizes != known:
        raise ValueError(f"{where}: num_nodes={sizes} but the edges connect {known}")
    n_src, n_dst = known if known is not None else sizes
    from arraygnn.ops.csr import CSR

    csr, rel = relation_csr(edges, edge_type, num_relations, n_src, n_dst)
    xp = get_namespace(csr.indptr)
    # copies: the edge list in the CSR may be the caller's own array (same dtype), and the
    # groups outlive this call (the caller's later changes must not reach them)
    src, dst = csr.src.copy(), csr.dst.copy()
    etype = xp.asarray(edge_type).astype(csr.index_dtype)
    _freeze(src, dst, etype)
    csr = CSR._trusted(
        csr.indptr, csr.indices, csr.perm, src, dst, csr.num_src_nodes, csr.num_dst_nodes
    )
    return RelationGroups(csr, rel, etype, num_relations, graph)
