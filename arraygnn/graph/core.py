"""The DGL face's :class:`Graph`: homogeneous, heterogeneous and bipartite blocks.

A graph holds, per canonical edge type ``(src_type, etype, dst_type)``, the source and
destination node ids of its edges (NumPy or CuPy integer arrays), plus one feature
:class:`~arraygnn.graph.frame.Frame` per node type and per edge type.

>>> import numpy as np
>>> import arraygnn.function as fn
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 2])), num_nodes=4)
>>> g.ndata["h"] = np.arange(4.0)
>>> g.update_all(fn.copy_u("h", "m"), fn.sum("m", "h"))
>>> g.ndata["h"]
array([0., 0., 3., 0.])

RULE: ``num_nodes`` given -> ids are checked against it; ``num_nodes=None`` -> DGL's rule,
      largest id + 1 (one device sync on CuPy; pass ``num_nodes`` to avoid it).
RULE: ids are checked once at construction; kernels trust them afterwards.
RULE: a block has separate source and destination node sets; its first
      ``number_of_dst_nodes()`` source nodes are the destination nodes.
RULE: the CSR of each edge type is built once (``arraygnn.ops.to_csr``) and cached.
"""

from __future__ import annotations

import contextlib
from collections import namedtuple
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

import numpy as np

from arraygnn._namespace import _check_device, get_namespace, is_array, to_device
from arraygnn.graph.frame import Frame, HeteroDataView

__all__ = ["Graph", "graph", "heterograph", "NID", "EID", "DEFAULT_NTYPE", "DEFAULT_ETYPE"]


def check_graph(where: str, g: Any) -> None:
    """``TypeError`` naming ``where`` unless ``g`` is a :class:`Graph`."""
    if not isinstance(g, Graph):
        raise TypeError(f"{where} expects an arraygnn Graph, got {type(g).__name__}")


NID = "_ID"
EID = "_ID"

#: DGL's ``Scheme``: a feature's per-row shape and dtype (``g.node_attr_schemes()``)
Scheme = namedtuple("Scheme", ["shape", "dtype"])
DEFAULT_NTYPE = "_N"
DEFAULT_ETYPE = "_E"

Canonical = tuple[str, str, str]


_INT32_MAX = int(np.iinfo(np.int32).max)
_INT64_MAX = int(np.iinfo(np.int64).max)


def _as_ids(x: Any, what: str) -> Any:
    """A 1-D int32 / int64 NumPy/CuPy array from an array, list or tuple (never mutated).

    int32 and int64 (native byte order) arrays are returned as they are; any other integer
    dtype is converted to int64, so no id created later can wrap (DGL's idtypes).
    """
    if not is_array(x):
        if isinstance(x, (list, tuple, range)):
            try:
                x = np.asarray(x)
            except (ValueError, OverflowError) as e:
                raise ValueError(f"{what}: cannot read the ids as integers ({e})") from None
            if x.dtype == object:
                raise TypeError(f"{what} must hold integers, got {x.dtype} values")
        else:
            raise TypeError(f"{what} must be an integer array or a list, got {type(x).__name__}")
    if x.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {tuple(x.shape)}")
    if x.dtype.kind not in "iu":
        if x.size == 0:
            return x.astype(np.int64)
        raise TypeError(f"{what} must hold integers, got dtype {x.dtype}")
    if x.dtype in (np.int32, np.int64) and x.dtype.isnative:
        return x
    if x.dtype == np.uint64 and x.size and int(x.max()) > _INT64_MAX:
        raise ValueError(f"{what} contains id {int(x.max())}, larger than int64 can hold")
    return x.astype(np.int64)


def _check_range(ids: Any, n: int, what: str, items: str = "nodes") -> None:
    if ids.size == 0:
        return
    from arraygnn.ops._common import index_bounds

    lo, hi = index_bounds(ids)
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise ValueError(f"{what} contains id {bad}, outside [0, {n}) ({n} {items})")


class _Relation:
    """Edges of one canonical edge type plus their features and cached CSR."""

    def __init__(self, canonical: Canonical, src: Any, dst: Any, device: str) -> None:
        self.canonical = canonical
        self.src = src
        self.dst = dst
        self.frame = Frame(src.shape[0], f"g.edges[{canonical!r}].data", device)
        self._csr: Any = None
        self._edge_index: Any = None

    @property
    def num_edges(self) -> int:
        return int(self.src.shape[0])

    def edge_index(self) -> Any:
        if self._edge_index is None:
            self._edge_index = get_namespace(self.src).stack([self.src, self.dst])
        return self._edge_index


class _TypeSpace:
    """``g.nodes`` / ``g.edges``: callable (ids) and subscriptable (``[type].data``)."""

    def __init__(self, g: Graph, kind: str) -> None:
        self._g = g
        self._kind = kind

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._kind == "edges":
            return self._g._edges_call(*args, **kwargs)
        return self._g._nodes_call(self._kind, *args, **kwargs)

    def __getitem__(self, key: Any) -> _TypeItem:
        """DGL's key forms: a type (``g.nodes['user']``, ``g.edges['plays']`` or a
        canonical triple), ``:`` / ``None`` (the only type), or rows: ``g.nodes[ids]``,
        ``g.nodes[ids, ntype]``, ``g.edges[eids]``, ``g.edges[u, v]`` (a pair of id lists)."""
        rows = None
        if isinstance(key, slice):
            if key != slice(None):
                raise TypeError(f"g.{self._kind}[...]: only the full slice ':' is supported")
            key = None
        elif self._kind == "edges":
            if isinstance(key, tuple) and not (
                len(key) == 3 and all(isinstance(k, str) for k in key)
            ):
                if len(key) != 2:
                    raise TypeError(
                        "g.edges[...]: a tuple is a canonical edge type (3 names) or a (u, v) "
                        f"pair of node ids, got {key!r}"
                    )
                rows, key = key, None
            elif key is not None and not isinstance(key, (str, tuple)):
                rows, key = key, None
        elif isinstance(key, tuple):
            if len(key) != 2:
                raise TypeError(f"g.{self._kind}[...]: a tuple is (node ids, ntype), got {key!r}")
            rows, key = key
        elif key is not None and not isinstance(key, str):
            rows, key = key, None
        if self._kind == "edges":
            rel = self._g._rel(key)
            if rows is None:
                return _TypeItem(rel.frame)
            return _TypeItem(_RowView(rel.frame, _edge_rows(self._g, rel, rows)))
        if self._kind == "nodes" and self._g.is_block:
            raise ValueError(
                f"g.nodes[{key!r}] is ambiguous on a block; use g.srcnodes[...] or g.dstnodes[...]"
            )
        side = {"nodes": "src", "srcnodes": "src", "dstnodes": "dst"}[self._kind]
        frame = self._g._node_frame(key, side)
        if rows is None:
            return _TypeItem(frame)
        from arraygnn.graph.subgraph import _ids_for

        if isinstance(rows, (int, np.integer)) and not isinstance(rows, (bool, np.bool_)):
            rows = [int(rows)]
        ids = _ids_for(self._g, rows, frame.num_rows, f"{frame.where} rows", unique=False)
        return _TypeItem(_RowView(frame, ids))


def _edge_rows(g: Graph, rel: _Relation, rows: Any) -> Any:
    """Edge ids of ``rel`` from ids, a boolean mask, one id or a ``(u, v)`` pair."""
    from arraygnn.graph.subgraph import _ids_for

    if isinstance(rows, tuple):
        from arraygnn.graph.query import _is_int, edge_ids

        # two ints are one pair (an id array, as DGL's prepare_tensor), not a scalar id
        u, v = (e if not _is_int(e) else [int(e)] for e in rows)
        return edge_ids(g, u, v, etype=rel.canonical)
    if isinstance(rows, (int, np.integer)) and not isinstance(rows, (bool, np.bool_)):
        rows = [int(rows)]
    return _ids_for(g, rows, rel.num_edges, f"{rel.frame.where} rows", "edges", unique=False)


class _TypeItem:
    def __init__(self, frame: Any) -> None:
        self.data = frame


class _RowView(MutableMapping):
    """DGL's ``g.nodes[ids].data`` / ``g.edges[ids].data``: the features' rows ``ids``.

    Reads gather those rows (new arrays); a write replaces them in a new array (DGL
    updates out of place; a new feature is 0 in the other rows); ``del`` removes the whole
    feature, as DGL."""

    def __init__(self, frame: Frame, rows: Any) -> None:
        self._frame = frame
        self._rows = rows

    def __getitem__(self, key: str) -> Any:
        from arraygnn import ops

        return ops.gather(self._frame[key], self._rows)

    def __setitem__(self, key: str, value: Any) -> None:
        from arraygnn.graph.message_passing import _write_rows

        n = int(self._rows.shape[0])
        where = f"{self._frame.where}[{key!r}] (rows)"
        if not is_array(value):
            raise TypeError(f"{where} must be a NumPy or CuPy array, got {type(value).__name__}")
        if value.ndim == 0 or value.shape[0] != n:
            got = "a scalar" if value.ndim == 0 else f"{value.shape[0]} rows"
            raise ValueError(f"{where}: the value has {got}; {n} rows are selected")
        self._frame[key] = _write_rows(self._frame, key, self._rows, value)

    def __delitem__(self, key: str) -> None:
        del self._frame[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._frame)

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        return f"RowView({self._frame.where}, rows={int(self._rows.shape[0])}, {list(self)})"


class Graph:
    """A DGL-style graph over NumPy or CuPy id arrays. Build it with :func:`graph`,
    :func:`heterograph`, :func:`arraygnn.to_block` or a subgraph method.

    Data views: ``ndata``, ``edata``, ``srcdata``, ``dstdata``, ``nodes[ntype].data``,
    ``edges[etype].data``. Message passing: :meth:`apply_edges`, :meth:`update_all`,
    :meth:`multi_update_all` (see :mod:`arraygnn.graph.message_passing`).
    """

    def __init__(
        self,
        relations: Mapping[Canonical, tuple[Any, Any]],
        num_src_nodes: Mapping[str, int],
        num_dst_nodes: Mapping[str, int] | None = None,
        *,
        is_block: bool = False,
        validate: bool = True,
    ) -> None:
        arrays = [a for pair in relations.values() for a in pair]
        xp = get_namespace(*arrays)
        self._device = "cuda" if xp is not np else "cpu"
        self._is_block = bool(is_block)
        self._num_src = {t: int(num_src_nodes[t]) for t in sorted(num_src_nodes)}
        self._srctypes = list(self._num_src)
        if num_dst_nodes is None:
            if is_block:
                raise ValueError("a block needs num_dst_nodes")
            self._dsttypes = self._srctypes
            self._num_dst = self._num_src
        else:
            self._num_dst = {t: int(num_dst_nodes[t]) for t in sorted(num_dst_nodes)}
            self._dsttypes = list(self._num_dst)
        for t, n in list(self._num_src.items()) + list(self._num_dst.items()):
            if n < 0:
                raise ValueError(f"number of nodes of type {t!r} must be >= 0, got {n}")
        side = "src" if is_block else ""
        self._src_frames = {
            t: Frame(n, self._frame_name(t, side), self._device) for t, n in self._num_src.items()
        }
        if num_dst_nodes is None:
            self._dst_frames = self._src_frames
        else:
            self._dst_frames = {
                t: Frame(n, self._frame_name(t, "dst"), self._device)
                for t, n in self._num_dst.items()
            }
        for c in relations:
            if not (isinstance(c, tuple) and len(c) == 3 and all(isinstance(s, str) for s in c)):
                raise TypeError(f"edge type keys are (src_type, etype, dst_type), got {c!r}")
        ids: dict[Canonical, tuple[Any, Any]] = {}
        for c in sorted(relations):  # DGL orders the relations (and node types) by name
            src, dst = relations[c]
            s, _, d = c
            if s not in self._num_src:
                raise ValueError(f"edge type {c!r}: source node type {s!r} has no node count")
            if d not in self._num_dst:
                raise ValueError(f"edge type {c!r}: destination node type {d!r} has no node count")
            src = _as_ids(src, f"source ids of edge type {c!r}")
            dst = _as_ids(dst, f"destination ids of edge type {c!r}")
            if src.shape[0] != dst.shape[0]:
                raise ValueError(
                    f"edge type {c!r}: {src.shape[0]} source ids but {dst.shape[0]} destination ids"
                )
            if validate:
                _check_range(src, self._num_src[s], f"source ids of edge type {c!r}")
                _check_range(dst, self._num_dst[d], f"destination ids of edge type {c!r}")
            ids[c] = (src, dst)
        # one idtype: int32 only when every relation is int32 and every count fits in it
        counts = [*self._num_src.values(), *self._num_dst.values()]
        counts += [src.shape[0] for src, _ in ids.values()]
        narrow = all(a.dtype == np.int32 for pair in ids.values() for a in pair)
        idtype = np.dtype(np.int32 if narrow and max(counts, default=0) <= _INT32_MAX else np.int64)
        self._rels: dict[Canonical, _Relation] = {
            c: _Relation(
                c, src.astype(idtype, copy=False), dst.astype(idtype, copy=False), self._device
            )
            for c, (src, dst) in ids.items()
        }
        # per-graph node / edge counts of a batched graph (host int64; None: one graph)
        self._batch_nodes: dict[str, np.ndarray] | None = None
        self._batch_edges: dict[Canonical, np.ndarray] | None = None
        self.nodes = _TypeSpace(self, "nodes")
        self.srcnodes = _TypeSpace(self, "srcnodes")
        self.dstnodes = _TypeSpace(self, "dstnodes")
        self.edges = _TypeSpace(self, "edges")

    def _frame_name(self, ntype: str, side: str) -> str:
        prefix = {"src": "g.srcnodes", "dst": "g.dstnodes", "": "g.nodes"}[side]
        return f"{prefix}[{ntype!r}].data"

    # ------------------------------------------------------------------ structure
    @property
    def device(self) -> str:
        """``'cpu'`` (NumPy arrays) or ``'cuda'`` (CuPy arrays)."""
        return self._device

    @property
    def idtype(self) -> Any:
        """The dtype of every id the graph holds or creates: int32 or int64 (as DGL)."""
        rels = list(self._rels.values())
        return rels[0].src.dtype if rels else np.dtype(np.int64)

    @property
    def is_block(self) -> bool:
        """True for a bipartite message-flow block from :func:`arraygnn.to_block`."""
        return self._is_block

    @property
    def ntypes(self) -> list[str]:
        if not self._is_block or self._srctypes == self._dsttypes:
            return list(self._srctypes)
        return sorted(set(self._srctypes) | set(self._dsttypes))

    @property
    def srctypes(self) -> list[str]:
        """Source node types (for a uni-bipartite graph only the types edges leave)."""
        return list(self._side_types("src"))

    @property
    def dsttypes(self) -> list[str]:
        """Destination node types (for a uni-bipartite graph only the types edges enter)."""
        return list(self._side_types("dst"))

    def _side_types(self, side: str) -> list[str]:
        types = self._srctypes if side == "src" else self._dsttypes
        if self._is_block or len(types) == 1 or not self._rels:
            return types
        src = sorted({c[0] for c in self._rels})
        dst = sorted({c[2] for c in self._rels})
        if set(src).isdisjoint(dst) and set(src) | set(dst) == set(types):  # uni-bipartite
            return src if side == "src" else dst
        return types

    @property
    def etypes(self) -> list[str]:
        """Edge type names, in the order of :attr:`canonical_etypes`."""
        return [c[1] for c in self._rels]

    @property
    def canonical_etypes(self) -> list[Canonical]:
        """``(src_type, etype, dst_type)`` triples, sorted (DGL's edge type id order)."""
        return list(self._rels)

    def metagraph(self) -> Any:
        """DGL's ``g.metagraph()``: a ``networkx.MultiDiGraph`` with one edge
        ``(src_type, dst_type, key=etype)`` per canonical edge type, in their order (node
        types without an edge type are absent, as in DGL)."""
        import networkx as nx

        meta = nx.MultiDiGraph()
        for s, e, d in self._rels:
            meta.add_edge(s, d, e)
        return meta

    @property
    def is_homogeneous(self) -> bool:
        return len(self._srctypes) == 1 and len(self._rels) <= 1 and not self._is_block

    def to_canonical_etype(self, etype: Any) -> Canonical:
        """DGL's ``g.to_canonical_etype``: the ``(src_type, etype, dst_type)`` triple of an
        edge type name (``None``: the only edge type). Unlike DGL, a triple is checked to be
        an edge type of the graph (``KeyError``) instead of being returned unchecked."""
        return self._rel(etype).canonical

    def get_etype_id(self, etype: Any = None) -> int:
        """DGL's ``g.get_etype_id``: the position of ``etype`` in :attr:`canonical_etypes`
        (``None``: the only edge type, id 0)."""
        return list(self._rels).index(self._rel(etype).canonical)

    def _is_unibipartite(self) -> bool:
        return self._is_block or self._side_types("src") != self._srctypes

    def get_ntype_id(self, ntype: str | None = None) -> int:
        """DGL's ``g.get_ntype_id``: the id of node type ``ntype`` (``None``: the only one).

        Ids follow :attr:`ntypes` (sorted names). In a block the source types take ids
        ``0 .. S-1`` and the destination types ``S ..``; a name on both sides gives its
        source id, and (as DGL, in a block or a uni-bipartite graph) ``'SRC/<name>'`` /
        ``'DST/<name>'`` pick a side.
        """
        return self._ntype_side_id(ntype)[2]

    def _ntype_side_id(self, ntype: str | None) -> tuple[str, str, int]:
        """``(side, name, id)`` of ``ntype`` by DGL's ``get_ntype_id`` rule."""
        unibipartite = self._is_unibipartite()
        if ntype is None:
            if unibipartite or len(self._srctypes) != 1:
                raise ValueError(f"the graph has node types {self.ntypes}; pass ntype=")
            return "src", self._srctypes[0], 0
        if not isinstance(ntype, str):
            raise TypeError(f"ntype must be a node type name (str), got {ntype!r}")
        src, dst = self._side_type_ids()
        if unibipartite and ntype[:4] in ("SRC/", "DST/"):
            side, table = ("src", src) if ntype[:4] == "SRC/" else ("dst", dst)
            if ntype[4:] in table:
                return side, ntype[4:], table[ntype[4:]]
        if ntype in src:
            return "src", ntype, src[ntype]
        if ntype in dst:
            return "dst", ntype, dst[ntype]
        raise KeyError(f"node type {ntype!r} does not exist; node types: {self.ntypes}")

    def _side_type_ids(self) -> tuple[dict[str, int], dict[str, int]]:
        """DGL's ``_srctypes_invmap`` / ``_dsttypes_invmap``: each source (destination)
        type's node type id (in a block the source types are ``0 .. S-1``, the
        destination types ``S ..``)."""
        if self._is_block:
            src = {t: i for i, t in enumerate(self._srctypes)}
            return src, {t: i + len(src) for i, t in enumerate(self._dsttypes)}
        return (
            {t: self._srctypes.index(t) for t in self._side_types("src")},
            {t: self._srctypes.index(t) for t in self._side_types("dst")},
        )

    def _side_ntype_id(self, ntype: str | None, side: str) -> int:
        table = self._side_type_ids()[0 if side == "src" else 1]
        label = side.upper()
        if ntype is None:
            if len(table) != 1:
                raise ValueError(
                    f"the graph has {label} node types {list(table)}; pass the node type"
                )
            return next(iter(table.values()))
        if ntype not in table:
            raise KeyError(
                f"{label} node type {ntype!r} does not exist; {label} types: {list(table)}"
            )
        return table[ntype]

    def get_ntype_id_from_src(self, ntype: str | None) -> int:
        """DGL's ``g.get_ntype_id_from_src``: the node type id of source type ``ntype``
        (``None``: the only source type); ids as :meth:`get_ntype_id`.

        >>> g = heterograph({("a", "r", "b"): ([0], [1]), ("c", "s", "b"): ([0], [0])})
        >>> g.get_ntype_id_from_src("c"), g.get_ntype_id_from_dst(None)
        (2, 1)
        """
        return self._side_ntype_id(ntype, "src")

    def get_ntype_id_from_dst(self, ntype: str | None) -> int:
        """DGL's ``g.get_ntype_id_from_dst``: as :meth:`get_ntype_id_from_src` for the
        destination types."""
        return self._side_ntype_id(ntype, "dst")

    @property
    def is_unibipartite(self) -> bool:
        """DGL's ``g.is_unibipartite``: every node type is only a source or only a
        destination type of the edge types (always so for a block)."""
        return self._is_unibipartite()

    def _rel(self, etype: Any = None) -> _Relation:
        """Resolve ``None`` / an etype name / a canonical triple to one relation."""
        if etype is None:
            if len(self._rels) != 1:
                raise ValueError(
                    f"the graph has {len(self._rels)} edge types {self.canonical_etypes}; "
                    "pass etype="
                )
            return next(iter(self._rels.values()))
        if isinstance(etype, tuple):
            if etype in self._rels:
                return self._rels[etype]
            raise KeyError(
                f"edge type {etype!r} does not exist; edge types: {self.canonical_etypes}"
            )
        hits = [c for c in self._rels if c[1] == etype]
        if len(hits) == 1:
            return self._rels[hits[0]]
        if not hits:
            raise KeyError(
                f"edge type {etype!r} does not exist; edge types: {self.canonical_etypes}"
            )
        raise KeyError(f"edge type name {etype!r} is ambiguous: {hits}; pass the canonical triple")

    def _ntype(self, ntype: str | None, side: str) -> str:
        types = self._srctypes if side == "src" else self._dsttypes
        if ntype is None:
            side_types = self._side_types(side)
            if len(side_types) != 1:
                raise ValueError(f"the graph has node types {side_types}; pass ntype=")
            return side_types[0]
        if ntype not in types:
            where = {"src": "source ", "dst": "destination "}[side] if self._is_block else ""
            raise KeyError(f"{where}node type {ntype!r} does not exist; node types: {types}")
        return ntype

    def _one_ntype(self) -> None:
        """DGL's rule for ``g.nodes()`` / ``g.batch_num_nodes()`` without a type: a graph
        (not a block) with more than one node type, a uni-bipartite one included, needs
        ``ntype=`` (``srcnodes()`` / ``dstnodes()`` pick their side's single type)."""
        if not self._is_block and len(self.ntypes) != 1:
            raise ValueError(f"the graph has node types {self.ntypes}; pass ntype=")

    def _node_frame(self, ntype: str | None, side: str) -> Frame:
        t = self._ntype(ntype, side)
        return (self._src_frames if side == "src" else self._dst_frames)[t]

    def num_src_nodes(self, ntype: str | None = None) -> int:
        if ntype is None and len(self._side_types("src")) != 1:
            return sum(self._num_src[t] for t in self._side_types("src"))
        return self._num_src[self._ntype(ntype, "src")]

    def num_dst_nodes(self, ntype: str | None = None) -> int:
        if ntype is None and len(self._side_types("dst")) != 1:
            return sum(self._num_dst[t] for t in self._side_types("dst"))
        return self._num_dst[self._ntype(ntype, "dst")]

    def num_nodes(self, ntype: str | None = None) -> int:
        """Nodes of ``ntype`` (all types when ``None``); a block counts src + dst nodes."""
        if self._is_block:
            src = self._num_src.get(ntype, 0) if ntype else sum(self._num_src.values())
            dst = self._num_dst.get(ntype, 0) if ntype else sum(self._num_dst.values())
            if ntype is not None and ntype not in self._num_src and ntype not in self._num_dst:
                raise KeyError(f"node type {ntype!r} does not exist; node types: {self.ntypes}")
            return src + dst
        if ntype is None:
            return sum(self._num_src.values())
        return self._num_src[self._ntype(ntype, "src")]

    def num_edges(self, etype: Any = None) -> int:
        """Edges of ``etype`` (all types when ``None``)."""
        if etype is None:
            return sum(r.num_edges for r in self._rels.values())
        return self._rel(etype).num_edges

    number_of_nodes = num_nodes
    number_of_edges = num_edges
    number_of_src_nodes = num_src_nodes
    number_of_dst_nodes = num_dst_nodes

    def _nodes_call(self, kind: str, ntype: str | None = None) -> Any:
        side = "dst" if kind == "dstnodes" else "src"
        if kind == "nodes" and ntype is None:
            self._one_ntype()
        n = (self._num_dst if side == "dst" else self._num_src)[self._ntype(ntype, side)]
        return self._xp().arange(n, dtype=self.idtype)

    def _edges_call(self, form: str = "uv", order: str = "eid", etype: Any = None) -> Any:
        """``g.edges(form='uv' | 'eid' | 'all', order='eid' | 'srcdst', etype=None)``.

        ``order='srcdst'`` sorts by source, then destination (DGL's ``all_edges``);
        parallel edges keep edge-id order (DGL leaves their order open).
        """
        if order not in ("eid", "srcdst"):
            raise ValueError(f"g.edges: order must be 'eid' or 'srcdst', got {order!r}")
        if form not in ("uv", "eid", "all"):
            raise ValueError(f"g.edges: form must be 'uv', 'eid' or 'all', got {form!r}")
        rel = self._rel(etype)
        src, dst = rel.src, rel.dst
        if order == "eid":
            if form == "uv":
                return src, dst
            eid = self._xp().arange(rel.num_edges, dtype=src.dtype)
        else:
            from arraygnn.graph.query import _sorted_pairs  # the pair look-ups' cached order

            eid = _sorted_pairs(self, rel)[1].astype(src.dtype, copy=False)
            src, dst = src[eid], dst[eid]
        return {"uv": (src, dst), "eid": eid, "all": (src, dst, eid)}[form]

    def all_edges(self, form: str = "uv", order: str = "eid", etype: Any = None) -> Any:
        """DGL's ``g.all_edges``: the same as ``g.edges(form=, order=, etype=)``."""
        return self._edges_call(form, order, etype)

    def _xp(self) -> Any:
        if self._device == "cpu":
            return np
        from arraygnn._namespace import import_cupy

        return import_cupy()

    def csr(self, etype: Any = None) -> Any:
        """Destination-sorted CSR of ``etype`` (built once by ``arraygnn.ops.to_csr``)."""
        rel = self._rel(etype)
        if rel._csr is None:
            from arraygnn import ops

            s, _, d = rel.canonical
            rel._csr = ops.to_csr(rel.edge_index(), self._num_src[s], self._num_dst[d])
        return rel._csr

    def adj_external(
        self, transpose: bool = False, *, scipy_fmt: str | None = "coo", etype: Any = None
    ) -> Any:
        """Adjacency of ``etype`` as a SciPy (cupyx on CuPy) ``coo`` / ``csr`` matrix, rows
        the sources unless ``transpose`` (DGL); see :func:`arraygnn.interop.scipy.adj_external`."""
        from arraygnn.interop.scipy import adj_external

        return adj_external(self, transpose, scipy_fmt=scipy_fmt, etype=etype)

    def adj(self, etype: Any = None, eweight_name: str | None = None) -> Any:
        """DGL's ``g.adj(etype=None, eweight_name=None)`` as a SciPy ``coo_matrix``
        (``cupyx.scipy.sparse`` on CuPy); DGL 1.x returns its own ``dgl.sparse``
        ``SparseMatrix``, which needs torch.

        Rows are the source nodes, columns the destination nodes (shape
        ``(num_src_nodes, num_dst_nodes)``), one entry per edge in edge-id order (parallel
        edges stay separate entries, as DGL's COO): ``A.row`` / ``A.col`` / ``A.data`` are
        DGL's ``A.indices()`` rows and ``A.val``. Values are float32 ones, or the 1-D edge
        feature ``eweight_name`` (copied; on CuPy it must be floating point, as cupyx holds
        no integers). DGL's ``SparseMatrix`` also takes ``[E, k]`` values; a sparse matrix
        cannot, so those raise ``ValueError``. :meth:`adj_external` gives other layouts.

        >>> import numpy as np
        >>> a = graph((np.array([0, 1, 2]), np.array([1, 2, 3]))).adj()
        >>> a.shape, a.row.tolist(), a.col.tolist(), a.data.tolist()
        ((4, 4), [0, 1, 2], [1, 2, 3], [1.0, 1.0, 1.0])
        """
        from arraygnn.interop.scipy import _sparse_module

        rel = self._rel(etype)
        s, _, d = rel.canonical
        xp = self._xp()
        if eweight_name is None:
            val = xp.ones(rel.num_edges, dtype=np.float32)
        else:
            if eweight_name not in rel.frame:
                raise KeyError(
                    f"adj: edge type {rel.canonical!r} has no feature eweight_name="
                    f"{eweight_name!r} (features: {list(rel.frame)})"
                )
            val = rel.frame[eweight_name]
            if val.ndim != 1:
                raise ValueError(
                    f"adj: eweight_name={eweight_name!r} must be one value per edge (shape "
                    f"({rel.num_edges},)), got shape {tuple(val.shape)}; a sparse matrix holds "
                    "scalars"
                )
            if xp is not np and val.dtype.kind not in "fc":
                raise TypeError(
                    f"adj: cupyx sparse matrices hold floating-point values; "
                    f"eweight_name={eweight_name!r} has dtype {val.dtype}"
                )
        shape = (self._num_src[s], self._num_dst[d])
        if xp is not np and max(shape) > _INT32_MAX:
            raise ValueError("adj: cupyx.scipy.sparse indexes with int32; the graph is larger")
        return _sparse_module(xp).coo_matrix((val, (rel.src, rel.dst)), shape=shape, copy=True)

    _FORMATS = ("coo", "csr", "csc")

    def _created_formats(self) -> list[str]:
        rels = list(self._rels.values())
        have = {
            "coo": True,
            "csr": bool(rels) and all(getattr(r, "_rev_csr", None) is not None for r in rels),
            "csc": bool(rels) and all(r._csr is not None for r in rels),
        }
        return [f for f in self._FORMATS if have[f]]

    def formats(self, formats: Any = None) -> Any:
        """DGL's ``g.formats()``: which sparse formats exist, and ``g.formats(names)``: a
        clone of the graph (:meth:`clone`) with those formats created.

        An arraygnn graph always holds its COO edge list (``'coo'``) and builds, once per
        edge type and on first use, the destination-sorted CSR (DGL's ``'csc'``: in-edges,
        used by message passing and ``in_degrees``) and the source-sorted one (DGL's
        ``'csr'``: out-edges, ``out_degrees`` and out-edge sampling). ``formats()`` reports
        them honestly: ``{'created': [...], 'not created': [...]}`` (a format counts as
        created when every edge type has it). Every format stays allowed, so unlike DGL
        ``formats(names)`` never drops one (``g.formats('csc').formats()`` lists ``'coo'``
        too): it is for code that calls it to restrict memory or to create formats before
        forking (``g.formats(['csc'])``, ``g.create_formats_()``), which then runs unchanged.

        >>> import numpy as np
        >>> g = graph((np.array([0, 0, 1]), np.array([2, 3, 2])))
        >>> g.formats()
        {'created': ['coo'], 'not created': ['csr', 'csc']}
        >>> g.formats("csc").formats()
        {'created': ['coo', 'csc'], 'not created': ['csr']}
        """
        if formats is None:
            created = self._created_formats()
            return {
                "created": created,
                "not created": [f for f in self._FORMATS if f not in created],
            }
        names = [formats] if isinstance(formats, str) else formats
        if not isinstance(names, (list, tuple)) or not names:
            raise ValueError(
                f"formats: formats must be 'coo', 'csr', 'csc' or a non-empty list of them, "
                f"got {formats!r}"
            )
        bad = [f for f in names if f not in self._FORMATS]
        if bad:
            raise ValueError(f"formats: unknown sparse formats {bad}; use 'coo', 'csr', 'csc'")
        new = self.clone()
        new._create_formats(names)
        return new

    def create_formats_(self) -> None:
        """DGL's ``g.create_formats_()``: build every sparse format now (in place)."""
        self._create_formats(self._FORMATS)

    def _create_formats(self, names: Any) -> None:
        from arraygnn.graph.message_passing import out_degrees

        for c, rel in self._rels.items():
            if "csc" in names:
                self.csr(c)
            if "csr" in names:
                out_degrees(self, rel)

    def in_degrees(self, v: Any = None, etype: Any = None) -> Any:
        """In-degrees of the destination nodes (all, or the ids ``v``) for ``etype``.

        An int ``v`` gives an int, as in DGL.
        """
        from arraygnn.graph.message_passing import csr_degrees

        deg = csr_degrees(self.csr(etype))
        if v is None:
            return deg
        out = deg[self._check_node_ids(v, self._rel(etype).canonical[2], "dst")]
        return int(out[0]) if isinstance(v, (int, np.integer)) else out

    def out_degrees(self, u: Any = None, etype: Any = None) -> Any:
        """Out-degrees of the source nodes (all, or the ids ``u``) for ``etype``.

        An int ``u`` gives an int, as in DGL.
        """
        from arraygnn.graph.message_passing import out_degrees

        deg = out_degrees(self, self._rel(etype))
        if u is None:
            return deg
        out = deg[self._check_node_ids(u, self._rel(etype).canonical[0], "src")]
        return int(out[0]) if isinstance(u, (int, np.integer)) else out

    @property
    def is_multigraph(self) -> bool:
        """DGL's ``g.is_multigraph``: whether some edge type has parallel edges (two edges
        with the same source and destination), from the sorted pair keys the edge look-ups
        build once per edge type and cache (``arraygnn.graph.query``)."""
        from arraygnn.graph.query import _sorted_pairs

        for rel in self._rels.values():
            if rel.num_edges > 1:
                keys = _sorted_pairs(self, rel)[0]
                if bool((keys[1:] == keys[:-1]).any()):
                    return True
        return False

    def has_nodes(self, vid: Any, ntype: str | None = None) -> Any:
        """DGL's ``g.has_nodes(vid, ntype=None)``: whether each id is a node of ``ntype``
        (``0 <= id < num_nodes(ntype)``): a bool for an int, else a bool array. Negative
        ids raise ``ValueError``, as DGL. In a block ``ntype`` resolves as
        :meth:`get_ntype_id` (source side first)."""
        side, t, _ = self._ntype_side_id(ntype)
        n = (self._num_dst if side == "dst" else self._num_src)[t]
        if isinstance(vid, (bool, np.bool_)):
            raise TypeError(f"has_nodes: vid must hold integer node ids, got {vid!r}")
        scalar = isinstance(vid, (int, np.integer))
        ids = _as_ids([int(vid)] if scalar else vid, "has_nodes: vid")
        if ids.size and int(ids.min()) < 0:
            raise ValueError(f"has_nodes: node ids must be non-negative, got {int(ids.min())}")
        out = ids < n
        return bool(out[0]) if scalar else out

    # ------------------------------------------------------ DGL's in-place structure edits
    def _become(self, new: Graph) -> None:
        """Take ``new``'s structure, features, caches and batch information (DGL's in-place
        edits replace the graph index and the frames); ``g.nodes`` / ``g.edges`` stay
        bound to ``self``. Refused inside :meth:`local_scope` (``RuntimeError``)."""
        if getattr(self, "_scope_depth", 0):
            raise RuntimeError(
                "in-place structure edits (add_nodes / add_edges / remove_nodes / "
                "remove_edges) are not supported inside g.local_scope(): the features saved "
                "on entry could not be restored on exit; edit the graph outside the scope, "
                "or use the functional arraygnn.graph.add_nodes / add_edges / ... there"
            )
        views = {k: self.__dict__[k] for k in ("nodes", "srcnodes", "dstnodes", "edges")}
        self.__dict__.clear()
        self.__dict__.update(new.__dict__)
        self.__dict__.update(views)

    def add_nodes(self, num: int, data: Any = None, ntype: str | None = None) -> None:
        """DGL's ``g.add_nodes(num, data=None, ntype=None)``, in place: ``num`` nodes of
        ``ntype`` with the features ``data`` (zeros in the others; an existing node gets
        zeros in a feature only ``data`` has). Batch information is discarded, as DGL.
        :func:`arraygnn.graph.add_nodes` leaves ``g`` as it is and returns the new graph.

        Features are replaced by new arrays (the old arrays are not changed); a graph that
        shares this one's frames (``g['plays']``, ``node_type_subgraph``) keeps the old
        structure.

        >>> import numpy as np
        >>> g = graph(([0, 1], [1, 2]))
        >>> g.ndata["h"] = np.ones(3)
        >>> g.add_nodes(2, data={"h": np.full(2, 5.0)})
        >>> g.num_nodes(), g.ndata["h"].tolist()
        (5, [1.0, 1.0, 1.0, 5.0, 5.0])
        """
        self._become(_function("graph.structure", "add_nodes")(self, num, data, ntype))

    def add_edges(self, u: Any, v: Any, data: Any = None, etype: Any = None) -> None:
        """DGL's ``g.add_edges(u, v, data=None, etype=None)``, in place: edges
        ``(u[i], v[i])`` after the others (one id is repeated against many); end nodes
        beyond the graph are added first (zero features). Batch information is discarded.
        See :meth:`add_nodes` and :func:`arraygnn.graph.add_edges`.

        >>> g = graph(([0, 1], [1, 2]))
        >>> g.add_edges([1, 3], [0, 1])
        >>> g.num_nodes(), g.edges()[0].tolist()
        (4, [0, 1, 1, 3])
        """
        self._become(_function("graph.structure", "add_edges")(self, u, v, data, etype))

    def remove_edges(self, eids: Any, etype: Any = None, store_ids: bool = False) -> None:
        """DGL's ``g.remove_edges(eids, etype=None, store_ids=False)``, in place: the other
        edges keep their order and are numbered from 0; every node stays. Batch
        information is recounted. See :func:`arraygnn.graph.remove_edges`.

        >>> g = graph(([0, 1, 2], [1, 2, 0]))
        >>> g.remove_edges([0])
        >>> g.edges()[0].tolist(), g.num_nodes()
        ([1, 2], 3)
        """
        self._become(_function("graph.structure", "remove_edges")(self, eids, etype, store_ids))

    def remove_nodes(self, nids: Any, ntype: str | None = None, store_ids: bool = False) -> None:
        """DGL's ``g.remove_nodes(nids, ntype=None, store_ids=False)``, in place: the nodes
        and their edges go, the rest are renumbered in order (DGL's node subgraph). Batch
        information is recounted. See :func:`arraygnn.graph.remove_nodes`.

        >>> g = graph(([0, 0, 2], [0, 1, 2]))
        >>> g.remove_nodes([0, 1])
        >>> g.num_nodes(), g.edges()[0].tolist()
        (1, [0])
        """
        self._become(_function("graph.structure", "remove_nodes")(self, nids, ntype, store_ids))

    # ------------------------------------------------------------------ DGL's small helpers
    def local_var(self) -> Graph:
        """DGL's ``g.local_var()``: a graph sharing the structure and the feature arrays,
        whose feature dicts are its own (features set on it are not seen by ``g``): the same
        as :meth:`clone`. Prefer :meth:`local_scope`."""
        return self.clone()

    def adjacency_matrix(self, etype: Any = None) -> Any:
        """DGL's ``g.adjacency_matrix(etype=None)``: an alias of :meth:`adj`."""
        return self.adj(etype)

    def node_attr_schemes(self, ntype: str | None = None) -> dict[str, Scheme]:
        """DGL's ``g.node_attr_schemes(ntype=None)``: ``{name: Scheme(shape, dtype)}`` of
        the node features of ``ntype``, ``shape`` the per-node shape.

        >>> import numpy as np
        >>> g = graph(([0], [1]))
        >>> g.ndata["h"] = np.zeros((2, 3), np.float32)
        >>> g.node_attr_schemes()
        {'h': Scheme(shape=(3,), dtype=dtype('float32'))}
        """
        side, t, _ = self._ntype_side_id(ntype)
        frame = (self._dst_frames if side == "dst" else self._src_frames)[t]
        return {k: Scheme(tuple(v.shape[1:]), v.dtype) for k, v in frame._data.items()}

    def edge_attr_schemes(self, etype: Any = None) -> dict[str, Scheme]:
        """DGL's ``g.edge_attr_schemes(etype=None)``: as :meth:`node_attr_schemes` for the
        edge features of ``etype``."""
        frame = self._rel(etype).frame
        return {k: Scheme(tuple(v.shape[1:]), v.dtype) for k, v in frame._data.items()}

    _MASK = "__filter_mask__"

    def _mask_of(self, frame: Frame, where: str) -> Any:
        mask = frame._data[self._MASK]
        if mask.ndim != 1 or mask.dtype.kind not in "biu":
            raise TypeError(
                f"{where}: the predicate must return one bool per item, got "
                f"{mask.dtype} of shape {tuple(mask.shape)}"
            )
        return mask.astype(bool, copy=False)

    @staticmethod
    def _predicate(predicate: Any, where: str) -> Any:
        """``predicate`` as the UDF the filter runs, its output checked to be one value per
        item of the batch (an error naming the predicate, not the hidden mask field)."""

        def run(batch: Any) -> dict[str, Any]:
            out = predicate(batch)
            if not is_array(out):
                raise TypeError(
                    f"{where}: the predicate must return a boolean array, got {type(out).__name__}"
                )
            if out.ndim != 1 or out.shape[0] != len(batch):
                raise ValueError(
                    f"{where}: the predicate must return one value per item of the batch "
                    f"(shape ({len(batch)},)), got shape {tuple(out.shape)}"
                )
            return {Graph._MASK: out}

        return run

    def filter_nodes(self, predicate: Any, nodes: Any = None, ntype: str | None = None) -> Any:
        """DGL's ``g.filter_nodes(predicate, nodes=ALL, ntype=None)``: the ids of the nodes
        (all, or ``nodes`` in the order given) for which ``predicate(node_batch)`` (a UDF
        as :meth:`apply_nodes` takes) is true.

        >>> import numpy as np
        >>> g = graph(([0, 1], [1, 2]))
        >>> g.ndata["h"] = np.array([1.0, 5.0, 3.0])
        >>> g.filter_nodes(lambda nodes: nodes.data["h"] > 2).tolist()
        [1, 2]
        """
        where = "filter_nodes"
        frame = self._node_frame(ntype, "dst")
        ids = None
        if nodes is not None:  # ids may repeat (DGL): the predicate runs on a mask of them
            from arraygnn.graph.subgraph import _ids_for

            if isinstance(nodes, (int, np.integer)) and not isinstance(nodes, (bool, np.bool_)):
                nodes = [int(nodes)]
            ids = _ids_for(self, nodes, frame.num_rows, f"{where}: nodes", unique=False)
        with self.local_scope():
            self.apply_nodes(
                self._predicate(predicate, where), self._selection(ids, frame.num_rows), ntype
            )
            mask = self._mask_of(frame, where)
        if ids is None:
            return self._xp().nonzero(mask)[0].astype(self.idtype)
        return ids[mask[ids]]

    def _selection(self, ids: Any, n: int) -> Any:
        """A boolean mask of ``ids`` over ``n`` rows (``None``: every row)."""
        if ids is None:
            return None
        sel = self._xp().zeros(n, dtype=bool)
        sel[ids] = True
        return sel

    def filter_edges(self, predicate: Any, edges: Any = None, etype: Any = None) -> Any:
        """DGL's ``g.filter_edges(predicate, edges=ALL, etype=None)``: the ids of the
        edges (all, or ``edges``: ids, a mask or a ``(u, v)`` pair) for which
        ``predicate(edge_batch)`` (a UDF as :meth:`apply_edges` takes) is true."""
        where = "filter_edges"
        rel = self._rel(etype)
        e = None if edges is None else _edge_rows(self, rel, edges)  # ids may repeat (DGL)
        with self.local_scope():
            self.apply_edges(
                self._predicate(predicate, where),
                self._selection(e, rel.num_edges),
                rel.canonical,
            )
            mask = self._mask_of(rel.frame, where)
        if e is None:
            return self._xp().nonzero(mask)[0].astype(self.idtype)
        return e[mask[e]]

    def to_networkx(self, *args: Any, **kwargs: Any) -> Any:
        """``g.to_networkx(...)``: :func:`arraygnn.graph.to_networkx` on ``g``."""
        return _function("interop.networkx", "graph_to_networkx")(self, *args, **kwargs)

    def reorder_graph(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.reorder_graph(...)``: :func:`arraygnn.graph.reorder_graph` on ``g``."""
        return _function("graph.reorder", "reorder_graph")(self, *args, **kwargs)

    def sample_etype_neighbors(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.sample_etype_neighbors(...)``: :func:`arraygnn.graph.sample_etype_neighbors`."""
        return _function("graph.etype_neighbors", "sample_etype_neighbors")(self, *args, **kwargs)

    # ------------------------------------------------------------------ batches
    @property
    def batch_size(self) -> int:
        """Number of graphs batched into this one (1 unless built by ``batch``)."""
        if self._batch_nodes is None:
            return 1
        return int(next(iter(self._batch_nodes.values())).shape[0])

    def batch_num_nodes(self, ntype: str | None = None) -> Any:
        """Nodes of ``ntype`` in each batched graph (``[num nodes]`` for one graph), in the
        graph's idtype (as DGL)."""
        if ntype is None:
            self._one_ntype()
        t = self._ntype(ntype, "src")
        counts = (
            np.array([self._num_src[t]], np.int64)
            if self._batch_nodes is None
            else self._batch_nodes[t]
        )
        return self._xp().asarray(counts.astype(self.idtype))

    def batch_num_edges(self, etype: Any = None) -> Any:
        """Edges of ``etype`` in each batched graph (``[num edges]`` for one graph), in the
        graph's idtype (as DGL)."""
        rel = self._rel(etype)
        counts = (
            np.array([rel.num_edges], np.int64)
            if self._batch_edges is None
            else self._batch_edges[rel.canonical]
        )
        return self._xp().asarray(counts.astype(self.idtype))

    def set_batch_num_nodes(self, val: Any) -> None:
        """Set the per-graph node counts (an array, or ``{ntype: array}``); they must add up
        to each type's node count, with one batch size for every type."""
        from arraygnn.graph.batching import set_batch_counts

        set_batch_counts(self, val, "nodes")

    def set_batch_num_edges(self, val: Any) -> None:
        """Set the per-graph edge counts (an array, or ``{etype: array}``), as
        :meth:`set_batch_num_nodes`."""
        from arraygnn.graph.batching import set_batch_counts

        set_batch_counts(self, val, "edges")

    # ------------------------------------------------------------------ lookups
    def in_edges(self, v: Any, form: str = "uv", etype: Any = None) -> Any:
        """Edges into the nodes ``v``: ``(u, v)``, ids (``'eid'``) or ``(u, v, eid)``
        (``'all'``); see :mod:`arraygnn.graph.query`."""
        from arraygnn.graph.query import in_edges

        return in_edges(self, v, form, etype)

    def out_edges(self, u: Any, form: str = "uv", etype: Any = None) -> Any:
        """Edges out of the nodes ``u``, in the forms of :meth:`in_edges`."""
        from arraygnn.graph.query import out_edges

        return out_edges(self, u, form, etype)

    def predecessors(self, v: int, etype: Any = None) -> Any:
        """Sources of the edges into node ``v`` (repeated for parallel edges)."""
        from arraygnn.graph.query import predecessors

        return predecessors(self, v, etype)

    def successors(self, v: int, etype: Any = None) -> Any:
        """Destinations of the edges out of node ``v`` (repeated for parallel edges)."""
        from arraygnn.graph.query import successors

        return successors(self, v, etype)

    def find_edges(self, eid: Any, etype: Any = None) -> tuple[Any, Any]:
        """``(u, v)`` of the edges ``eid``."""
        from arraygnn.graph.query import find_edges

        return find_edges(self, eid, etype)

    def has_edges_between(self, u: Any, v: Any, etype: Any = None) -> Any:
        """Whether each ``(u[i], v[i])`` is an edge (a bool for two ints; one ``u`` goes
        with every ``v`` and one ``v`` with every ``u``, as DGL)."""
        from arraygnn.graph.query import has_edges_between

        return has_edges_between(self, u, v, etype)

    def edge_ids(self, u: Any, v: Any, return_uv: bool = False, etype: Any = None) -> Any:
        """Edge id of each ``(u[i], v[i])`` (smallest of parallel edges; ``ValueError`` for
        a pair that is not an edge; one id broadcast as in :meth:`has_edges_between`);
        ``return_uv=True``: every edge as ``(u, v, eid)``."""
        from arraygnn.graph.query import edge_ids

        return edge_ids(self, u, v, return_uv, etype)

    def _check_node_ids(self, ids: Any, ntype: str, side: str) -> Any:
        if isinstance(ids, (bool, np.bool_)):
            raise TypeError(f"node ids of type {ntype!r} must be integers, got {ids!r}")
        if isinstance(ids, (int, np.integer)):
            ids = [int(ids)]
        ids = _as_ids(ids, f"node ids of type {ntype!r}")
        n = (self._num_dst if side == "dst" else self._num_src)[ntype]
        _check_range(ids, n, f"node ids of type {ntype!r}")
        return ids

    # ------------------------------------------------------------------ data views
    @property
    def ndata(self) -> Any:
        """Node features: a frame for one node type, else ``{name: {ntype: array}}``."""
        if self._is_block:
            raise AttributeError("g.ndata is ambiguous on a block; use g.srcdata or g.dstdata")
        if len(self._src_frames) == 1:
            return next(iter(self._src_frames.values()))
        return HeteroDataView(self._src_frames, "g.ndata")

    @property
    def srcdata(self) -> Any:
        """Features of the source nodes (all nodes for a non-block graph)."""
        types = self._side_types("src")
        if len(types) == 1:
            return self._src_frames[types[0]]
        return HeteroDataView({t: self._src_frames[t] for t in types}, "g.srcdata")

    @property
    def dstdata(self) -> Any:
        """Features of the destination nodes (all nodes for a non-block graph)."""
        types = self._side_types("dst")
        if len(types) == 1:
            return self._dst_frames[types[0]]
        return HeteroDataView({t: self._dst_frames[t] for t in types}, "g.dstdata")

    @property
    def edata(self) -> Any:
        """Edge features: a frame for one edge type, else ``{name: {canonical: array}}``."""
        if len(self._rels) == 1:
            return next(iter(self._rels.values())).frame
        return HeteroDataView(
            {c: r.frame for c, r in self._rels.items()},
            "g.edata",
            resolve=lambda key: self._rel(key).canonical,
        )

    def _all_frames(self) -> list[Frame]:
        frames = list(self._src_frames.values()) + [r.frame for r in self._rels.values()]
        if self._dst_frames is not self._src_frames:
            frames += list(self._dst_frames.values())
        return frames

    @contextlib.contextmanager
    def local_scope(self) -> Iterator[Graph]:
        """Features set or removed inside the block are dropped on exit.

        In-place writes into an existing array are not undone (as in DGL). In-place
        structure edits (:meth:`add_nodes`, :meth:`add_edges`, :meth:`remove_nodes`,
        :meth:`remove_edges`) are refused inside the block: the features saved on entry
        belong to the old structure and could not be put back.
        """
        snapshots = [(f, f._snapshot()) for f in self._all_frames()]
        self._scope_depth = getattr(self, "_scope_depth", 0) + 1
        try:
            yield self
        finally:
            self._scope_depth -= 1
            for f, snap in snapshots:
                f._restore(snap)

    # ------------------------------------------------------------------ relation slices
    def __getitem__(self, key: Any) -> Graph:
        """The one-relation graph of edge type ``key``: DGL's ``g['plays']`` or
        ``g['user', 'plays', 'game']``; ``:`` is a wildcard (``g['user', :, 'game']``). A
        key matching several edge types (also a name shared by several, DGL's
        ``g[:, name, :]``) gives DGL's flattened graph (not on a block): the
        matched source / destination types merged into one type each (``'A1+A2'``), one
        edge type (``'AB1+AB2'``), ``NTYPE`` / ``NID`` / ``ETYPE`` / ``EID`` the original
        types and ids, common features concatenated (new arrays, not shared).

        It shares the relation's ids, its cached CSR, its edge features and the node
        features of its two node types with ``g`` (writes through either are seen by
        both, as in DGL). A block slices to a block.

        >>> import numpy as np
        >>> g = heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([0, 0])),
        ...                  ("user", "follows", "user"): (np.array([0]), np.array([1]))})
        >>> rel = g["plays"]
        >>> rel.num_src_nodes(), rel.num_dst_nodes(), rel.canonical_etypes
        (2, 1, [('user', 'plays', 'game')])
        """
        if isinstance(key, str) and sum(c[1] == key for c in self._rels) > 1:
            key = (slice(None), key, slice(None))  # DGL: a name is (':', name, ':')
        if isinstance(key, tuple) and len(key) == 3 and any(isinstance(k, slice) for k in key):
            if any(isinstance(k, slice) and k != slice(None) for k in key):
                raise TypeError(f"g[...]: only the full slice ':' is a wildcard, got {key!r}")
            hits = [
                c
                for c in self._rels
                if all(isinstance(k, slice) or k == part for k, part in zip(key, c))
            ]
            if not hits:
                raise KeyError(
                    f"edge type {key!r} matches none of the edge types {self.canonical_etypes}"
                )
            if len(hits) > 1:
                if self._is_block:
                    raise TypeError(
                        f"g[...]: {key!r} matches several edge types {hits}; a block is "
                        "sliced one edge type at a time"
                    )
                from arraygnn.graph.transform import _flatten_relations

                return _flatten_relations(self, hits)
            key = hits[0]  # one match: the relation slice (DGL)
        rel = self._rel(key)
        c = rel.canonical
        s, _, d = c
        if self._is_block:
            new = Graph(
                {c: (rel.src, rel.dst)},
                {s: self._num_src[s]},
                {d: self._num_dst[d]},
                is_block=True,
                validate=False,
            )
            new._src_frames = {s: self._src_frames[s]}
            new._dst_frames = {d: self._dst_frames[d]}
        else:
            types = {s: self._num_src[s], d: self._num_src[d]}
            new = Graph({c: (rel.src, rel.dst)}, types, validate=False)
            new._src_frames = {t: self._src_frames[t] for t in sorted(types)}
            new._dst_frames = new._src_frames
        new._rels = {c: rel}  # the same ids, CSR cache and edge frame
        if self._batch_nodes is not None:
            new._batch_nodes = {t: v for t, v in self._batch_nodes.items() if t in (s, d)}
        if self._batch_edges is not None:
            new._batch_edges = {c: self._batch_edges[c]}
        return new

    # ------------------------------------------------------------------ devices / copies
    def _like(self, relations: Mapping[Canonical, tuple[Any, Any]]) -> Graph:
        return Graph(
            relations,
            self._num_src,
            None if self._dst_frames is self._src_frames else self._num_dst,
            is_block=self._is_block,
            validate=False,
        )

    def to(self, device: str) -> Graph:
        """The same graph (ids and every feature) on ``device`` (``'cpu'`` / ``'cuda'``).

        Returns ``self`` when nothing has to move.
        """
        device = _check_device(device)
        moved_rels = {
            c: (to_device(r.src, device), to_device(r.dst, device)) for c, r in self._rels.items()
        }
        same = all(
            moved_rels[c][0] is r.src and moved_rels[c][1] is r.dst for c, r in self._rels.items()
        )
        if same and all(
            to_device(v, device) is v for f in self._all_frames() for v in f._data.values()
        ):
            return self
        new = self._like(moved_rels)
        if not self._rels:
            new._device = "cpu" if device == "cpu" else "cuda"
            for f in new._all_frames():
                f.device = new._device
        self._copy_frames_to(new, lambda a: to_device(a, device))
        new._batch_nodes, new._batch_edges = self._batch_nodes, self._batch_edges
        return new

    def _copy_frames_to(self, new: Graph, fn: Any) -> None:
        for t, f in self._src_frames.items():
            for k, v in f._data.items():
                new._src_frames[t]._data[k] = fn(v)
        if self._dst_frames is not self._src_frames:
            for t, f in self._dst_frames.items():
                for k, v in f._data.items():
                    new._dst_frames[t]._data[k] = fn(v)
        for c, r in self._rels.items():
            for k, v in r.frame._data.items():
                new._rels[c].frame._data[k] = fn(v)

    def cpu(self) -> Graph:
        return self.to("cpu")

    def clone(self) -> Graph:
        """DGL's ``g.clone()``: a new graph with the same structure (the id arrays and the
        cached CSRs are shared: they are never written in place) and copied feature
        dictionaries holding the same arrays (DGL's ``Frame.clone``): features added to or
        removed from one graph are not seen by the other, in-place writes into a shared
        array are. Batch information is copied.

        >>> import numpy as np
        >>> g = graph((np.array([0]), np.array([1])))
        >>> g.ndata["h"] = np.zeros(2)
        >>> c = g.clone()
        >>> c.ndata["x"] = np.ones(2)
        >>> sorted(g.ndata), sorted(c.ndata), c.ndata["h"] is g.ndata["h"]
        (['h'], ['h', 'x'], True)
        """
        new = self._like({c: (r.src, r.dst) for c, r in self._rels.items()})
        for c, r in self._rels.items():
            for k, v in vars(r).items():  # cached CSRs, edge index, lookup tables
                if k.startswith("_") and v is not None:
                    setattr(new._rels[c], k, v)
        self._copy_frames_to(new, lambda a: a)
        new._batch_nodes, new._batch_edges = self._batch_nodes, self._batch_edges
        return new

    def astype(self, idtype: Any) -> Graph:
        """DGL's ``g.astype(idtype)``: the graph with int32 or int64 ids (``self`` when it
        has them already); features are shared as in :meth:`clone` (DGL's ``astype`` shares
        the feature frames themselves: a feature set on ``g.int()`` appears on ``g``; here
        it does not), batch information kept. ``idtype``: a NumPy dtype, its name, or
        ``torch.int32`` / ``torch.int64`` (DGL's spelling; torch is not imported).
        ``ValueError`` when a node or edge count does not fit int32."""
        from arraygnn.interop.scipy import _check_idtype

        if idtype is None:
            return self
        dt = _check_idtype(idtype, "astype")
        if dt == self.idtype:
            return self
        if dt == np.int32:
            counts = [*self._num_src.values(), *self._num_dst.values()]
            counts += [r.num_edges for r in self._rels.values()]
            if max(counts, default=0) > _INT32_MAX:
                raise ValueError(
                    f"astype: the graph has {max(counts)} nodes or edges of one type, more "
                    "than int32 ids can number"
                )
        if not self._rels:  # no id arrays to carry the idtype
            raise ValueError("astype: a graph without edge types has no ids to cast")
        new = self._like({c: (r.src.astype(dt), r.dst.astype(dt)) for c, r in self._rels.items()})
        self._copy_frames_to(new, lambda a: a)
        new._batch_nodes, new._batch_edges = self._batch_nodes, self._batch_edges
        return new

    def int(self) -> Graph:
        """DGL's ``g.int()``: :meth:`astype` int32 (``self`` when already int32)."""
        return self.astype(np.int32)

    def long(self) -> Graph:
        """DGL's ``g.long()``: :meth:`astype` int64 (``self`` when already int64)."""
        return self.astype(np.int64)

    def __repr__(self) -> str:
        kind = "Block" if self._is_block else "Graph"
        if self.is_homogeneous:
            return (
                f"{kind}(num_nodes={self.num_nodes()}, num_edges={self.num_edges()}, "
                f"ndata={list(self.ndata)}, edata={list(self.edata)}, device={self._device!r})"
            )
        return (
            f"{kind}(num_src_nodes={self._num_src}, num_dst_nodes={self._num_dst}, "
            f"num_edges={ {c: r.num_edges for c, r in self._rels.items()} }, "
            f"device={self._device!r})"
        )

    # ------------------------------------------------------------------ message passing
    def apply_edges(self, func: Any, edges: Any = None, etype: Any = None) -> None:
        """Compute edge features with a built-in (one ``ops.sddmm``) or an edge UDF."""
        from arraygnn.graph.message_passing import apply_edges

        apply_edges(self, func, edges=edges, etype=etype)

    def apply_nodes(self, func: Any, v: Any = None, ntype: str | None = None) -> None:
        """Update node features with a node UDF ``func(nodes) -> {name: array}``."""
        from arraygnn.graph.message_passing import apply_nodes

        apply_nodes(self, func, v=v, ntype=ntype)

    def update_all(
        self, message_func: Any, reduce_func: Any, apply_node_func: Any = None, etype: Any = None
    ) -> None:
        """Send messages along every edge of ``etype``, reduce them on the destinations."""
        from arraygnn.graph.message_passing import update_all

        update_all(self, message_func, reduce_func, apply_node_func, etype=etype)

    def multi_update_all(
        self, etype_dict: Mapping[Any, tuple], cross_reducer: Any, apply_node_func: Any = None
    ) -> None:
        """``update_all`` per edge type, then merge per destination type with ``cross_reducer``
        (``'sum'``, ``'min'``, ``'max'``, ``'mean'``, ``'stack'`` or, as DGL, a callable
        taking the list of per-edge-type arrays)."""
        from arraygnn.graph.message_passing import multi_update_all

        multi_update_all(self, etype_dict, cross_reducer, apply_node_func)

    def send_and_recv(
        self,
        edges: Any,
        message_func: Any,
        reduce_func: Any,
        apply_node_func: Any = None,
        etype: Any = None,
    ) -> None:
        """Messages along ``edges`` only (ids, a mask or a ``(u, v)`` pair), reduced on their
        destinations; other nodes keep their features."""
        from arraygnn.graph.message_passing import send_and_recv

        send_and_recv(self, edges, message_func, reduce_func, apply_node_func, etype)

    def pull(
        self,
        v: Any,
        message_func: Any,
        reduce_func: Any,
        apply_node_func: Any = None,
        etype: Any = None,
    ) -> None:
        """Nodes ``v`` receive along all their in-edges; other nodes keep their features."""
        from arraygnn.graph.message_passing import pull

        pull(self, v, message_func, reduce_func, apply_node_func, etype)

    def push(
        self,
        u: Any,
        message_func: Any,
        reduce_func: Any,
        apply_node_func: Any = None,
        etype: Any = None,
    ) -> None:
        """Nodes ``u`` send along all their out-edges; their destinations reduce."""
        from arraygnn.graph.message_passing import push

        push(self, u, message_func, reduce_func, apply_node_func, etype)

    # ------------------------------------------------------------------ subgraphs
    def subgraph(
        self,
        nodes: Any,
        *,
        relabel_nodes: bool = True,
        store_ids: bool = True,
        output_device: Any = None,
    ) -> Graph:
        """Node-induced subgraph (see :func:`arraygnn.graph.subgraph.node_subgraph`)."""
        from arraygnn.graph.subgraph import node_subgraph

        return node_subgraph(
            self,
            nodes,
            relabel_nodes=relabel_nodes,
            store_ids=store_ids,
            output_device=output_device,
        )

    def edge_subgraph(
        self,
        edges: Any,
        *,
        relabel_nodes: bool = True,
        store_ids: bool = True,
        output_device: Any = None,
    ) -> Graph:
        """Edge-induced subgraph (see :func:`arraygnn.graph.subgraph.edge_subgraph`)."""
        from arraygnn.graph.subgraph import edge_subgraph

        return edge_subgraph(
            self,
            edges,
            relabel_nodes=relabel_nodes,
            store_ids=store_ids,
            output_device=output_device,
        )

    def node_type_subgraph(self, ntypes: Any, output_device: Any = None) -> Graph:
        """``g.node_type_subgraph(ntypes)``: :func:`arraygnn.graph.node_type_subgraph`."""
        return _function("graph.subgraph", "node_type_subgraph")(self, ntypes, output_device)

    def edge_type_subgraph(self, etypes: Any, output_device: Any = None) -> Graph:
        """``g.edge_type_subgraph(etypes)``: :func:`arraygnn.graph.edge_type_subgraph`."""
        return _function("graph.subgraph", "edge_type_subgraph")(self, etypes, output_device)

    # ------------------------------------------- DGL's method forms of its functions
    # (``DGLGraph.<name> = utils.alias_func(<name>)`` in DGL): ``g.f(...)`` is ``f(g, ...)``
    def add_self_loop(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.add_self_loop(...)``: :func:`arraygnn.graph.add_self_loop` on ``g``."""
        return _function("graph.transform", "add_self_loop")(self, *args, **kwargs)

    def remove_self_loop(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.remove_self_loop(...)``: :func:`arraygnn.graph.remove_self_loop` on ``g``."""
        return _function("graph.transform", "remove_self_loop")(self, *args, **kwargs)

    def reverse(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.reverse(...)``: :func:`arraygnn.graph.reverse` on ``g``."""
        return _function("graph.transform", "reverse")(self, *args, **kwargs)

    def to_simple(self, *args: Any, **kwargs: Any) -> Any:
        """``g.to_simple(...)``: :func:`arraygnn.graph.to_simple` on ``g``."""
        return _function("graph.transform", "to_simple")(self, *args, **kwargs)

    def line_graph(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.line_graph(...)``: :func:`arraygnn.graph.line_graph` on ``g``."""
        return _function("graph.structure", "line_graph")(self, *args, **kwargs)

    def in_subgraph(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.in_subgraph(nodes, ...)``: :func:`arraygnn.graph.in_subgraph` on ``g``."""
        return _function("graph.structure", "in_subgraph")(self, *args, **kwargs)

    def out_subgraph(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.out_subgraph(nodes, ...)``: :func:`arraygnn.graph.out_subgraph` on ``g``."""
        return _function("graph.structure", "out_subgraph")(self, *args, **kwargs)

    def khop_in_subgraph(self, *args: Any, **kwargs: Any) -> Any:
        """``g.khop_in_subgraph(nodes, k, ...)``: :func:`arraygnn.graph.khop_in_subgraph`."""
        return _function("graph.structure", "khop_in_subgraph")(self, *args, **kwargs)

    def khop_out_subgraph(self, *args: Any, **kwargs: Any) -> Any:
        """``g.khop_out_subgraph(nodes, k, ...)``: :func:`arraygnn.graph.khop_out_subgraph`."""
        return _function("graph.structure", "khop_out_subgraph")(self, *args, **kwargs)

    def sample_neighbors(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.sample_neighbors(nodes, fanout, ...)``:
        :func:`arraygnn.sampling.sample_neighbors` on ``g``."""
        return _function("sampling", "sample_neighbors")(self, *args, **kwargs)

    def select_topk(self, *args: Any, **kwargs: Any) -> Graph:
        """``g.select_topk(k, weight, ...)``: :func:`arraygnn.sampling.select_topk` on ``g``."""
        return _function("sampling", "select_topk")(self, *args, **kwargs)

    def global_uniform_negative_sampling(self, *args: Any, **kwargs: Any) -> Any:
        """``g.global_uniform_negative_sampling(num_samples, ...)``:
        :func:`arraygnn.sampling.global_uniform_negative_sampling` on ``g``."""
        return _function("sampling", "global_uniform_negative_sampling")(self, *args, **kwargs)


def _function(module: str, name: str) -> Any:
    """``arraygnn.<module>.<name>``, imported when a method form is first called (those
    modules import this one)."""
    import importlib

    return getattr(importlib.import_module(f"arraygnn.{module}"), name)


# ---------------------------------------------------------------------- constructors
def _max_plus_one(*ids: Any) -> int:
    return max([int(a.max()) + 1 for a in ids if a.size] or [0])


def _graph_data(data: Any, what: str) -> tuple[Any, Any, int, int]:
    """DGL's graph data forms (``utils.graphdata2tensors``) as ``(src, dst, n_src, n_dst)``:
    a tuple ``(src, dst)`` or ``('coo', (src, dst))``; ``('csr', (indptr, indices, eids))``
    (row ``i``'s entries ``indptr[i]:indptr[i+1]``, entry ``j`` is edge ``eids[j]``, or edge
    ``j`` when ``eids`` is empty) or ``'csc'`` (columns: the destinations); a list of
    ``(u, v)`` pairs (DGL's edge list). ``n_src`` / ``n_dst``: the least node counts a
    CSR's / CSC's row count implies (0 otherwise); the ids' largest + 1 is left to the
    caller (:func:`_inferred`), which needs it only when no count is given."""
    if isinstance(data, list):
        pairs = [tuple(p) if isinstance(p, (tuple, list)) else p for p in data]
        if not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
            raise TypeError(
                f"{what}: a list is DGL's edge list of (u, v) pairs; pass a tuple (src, dst) "
                "of id arrays for the other form"
            )
        src = _as_ids([p[0] for p in pairs], f"{what}: sources")
        dst = _as_ids([p[1] for p in pairs], f"{what}: destinations")
        return src, dst, 0, 0
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError(
            f"{what}: data must be a pair (src, dst) of id arrays, ('coo' | 'csr' | 'csc', "
            f"arrays) or a list of (u, v) pairs, got {type(data).__name__}"
        )
    fmt, arrays = ("coo", data) if not isinstance(data[0], str) else data
    if fmt == "coo":
        if not (isinstance(arrays, (tuple, list)) and len(arrays) == 2):
            raise TypeError(f"{what}: 'coo' data must be (src, dst)")
        src = _as_ids(arrays[0], f"{what}: src")
        dst = _as_ids(arrays[1], f"{what}: dst")
        return src, dst, 0, 0
    if fmt not in ("csr", "csc"):
        raise ValueError(f"{what}: unknown sparse format {fmt!r}; use 'coo', 'csr' or 'csc'")
    if not (isinstance(arrays, (tuple, list)) and len(arrays) == 3):
        raise TypeError(f"{what}: {fmt!r} data must be (indptr, indices, edge_ids)")
    indptr = _as_ids(arrays[0], f"{what}: indptr")
    indices = _as_ids(arrays[1], f"{what}: indices")
    eids = _as_ids(arrays[2], f"{what}: edge ids")
    xp = get_namespace(indptr, indices)
    e = int(indices.shape[0])
    if indptr.shape[0] == 0 or int(indptr[0]) != 0 or int(indptr[-1]) != e:
        raise ValueError(f"{what}: indptr must start at 0 and end at len(indices) ({e})")
    lengths = xp.diff(indptr)
    if lengths.size and int(lengths.min()) < 0:
        raise ValueError(f"{what}: indptr must not decrease")
    rows_n = int(indptr.shape[0]) - 1
    from arraygnn._namespace import repeat_counts

    rows = repeat_counts(xp, xp.arange(rows_n, dtype=indices.dtype), lengths, e)
    if eids.shape[0]:
        _check_range(eids, e, f"{what}: eids", "edges")
        hit = xp.zeros(e, dtype=bool)
        hit[eids] = True
        if eids.shape[0] != e or not bool(hit.all()):
            raise ValueError(f"{what}: eids must hold each edge id 0 .. {e - 1} once")
        ordered_rows, ordered_cols = xp.empty_like(rows), xp.empty_like(indices)
        ordered_rows[eids], ordered_cols[eids] = rows, indices
        rows, indices = ordered_rows, ordered_cols
    if fmt == "csr":
        return rows, indices, rows_n, 0
    return indices, rows, 0, rows_n


def _inferred(ids: Any, least: int) -> int:
    """DGL's node count of one side: the largest id + 1, at least ``least`` (a CSR's
    rows); one device sync on CuPy."""
    return max(_max_plus_one(ids), least)


def _finish(g: Graph, idtype: Any, device: Any, where: str) -> Graph:
    """``g`` cast to ``idtype`` (checked to hold) and moved to ``device`` (DGL's
    ``idtype=`` / ``device=`` arguments)."""
    if idtype is not None:
        from arraygnn.interop.scipy import _check_idtype

        dt = _check_idtype(idtype, where)
        if g.idtype != dt:
            g = g.astype(dt)
    return g if device is None else g.to(device)


def graph(
    data: Any,
    num_nodes: int | None = None,
    idtype: Any = None,
    device: Any = None,
    row_sorted: bool = False,
    col_sorted: bool = False,
) -> Graph:
    """DGL's ``dgl.graph``: a homogeneous graph from ``(src, dst)`` id arrays (NumPy, CuPy
    or lists), ``('coo', (src, dst))``, ``('csr', (indptr, indices, edge_ids))``,
    ``('csc', ...)`` or a list of ``(u, v)`` pairs (DGL's forms; a CSR's edges take the
    ids ``edge_ids`` gives, entry order when it is empty).

    ``num_nodes=None`` uses the largest id + 1 (DGL's rule). ``idtype``: int32 / int64
    (NumPy dtype, name or ``torch.int32``; ``None`` keeps int32 arrays int32, else
    int64). ``device``: ``'cpu'`` / ``'cuda'`` to move the graph. ``row_sorted`` /
    ``col_sorted`` are DGL's hints, checked to be bools and otherwise not needed.

    >>> import numpy as np
    >>> g = graph((np.array([0, 0]), np.array([1, 2])))
    >>> g.num_nodes(), g.num_edges(), g.canonical_etypes
    (3, 2, [('_N', '_E', '_N')])
    >>> graph(("csr", ([0, 2, 3], [1, 0, 0], [])), idtype="int32").edges()
    (array([0, 0, 1], dtype=int32), array([1, 0, 0], dtype=int32))
    """
    for name, flag in (("row_sorted", row_sorted), ("col_sorted", col_sorted)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"graph: {name} must be True or False, got {flag!r}")
    src, dst, n_src, n_dst = _graph_data(data, "graph")
    if num_nodes is None:
        num_nodes = max(_inferred(src, n_src), _inferred(dst, n_dst))
    elif not isinstance(num_nodes, (int, np.integer)) or num_nodes < 0:
        raise ValueError(f"graph: num_nodes must be a non-negative int, got {num_nodes!r}")
    elif num_nodes < max(n_src, n_dst):
        raise ValueError(
            f"graph: num_nodes={num_nodes} but the CSR / CSC data has {max(n_src, n_dst)} rows"
        )
    canonical = (DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE)
    g = Graph({canonical: (src, dst)}, {DEFAULT_NTYPE: int(num_nodes)})
    return _finish(g, idtype, device, "graph")


def heterograph(
    data_dict: Mapping[Canonical, Any],
    num_nodes_dict: Mapping[str, int] | None = None,
    idtype: Any = None,
    device: Any = None,
) -> Graph:
    """DGL's ``dgl.heterograph``: a heterogeneous graph from ``{(src_type, etype,
    dst_type): data}``, each ``data`` in one of :func:`graph`'s forms (``(src, dst)``,
    ``('csr', ...)``, a list of pairs, ...).

    Node types missing from ``num_nodes_dict`` get the largest id + 1 over the edge types
    that touch them (DGL's rule). ``idtype`` / ``device`` as in :func:`graph`.

    >>> import numpy as np
    >>> g = heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([0, 0]))})
    >>> g.ntypes, g.num_nodes("user"), g.num_nodes("game")
    (['game', 'user'], 2, 1)
    """
    if not isinstance(data_dict, Mapping) or not data_dict:
        raise TypeError(
            "heterograph: data_dict must be a non-empty dict {(src, etype, dst): (u, v)}"
        )
    num_nodes_dict = dict(num_nodes_dict or {})
    rels: dict[Canonical, tuple[Any, Any]] = {}
    seen: dict[str, int] = {}
    for c, data in data_dict.items():
        if not (isinstance(c, tuple) and len(c) == 3 and all(isinstance(s, str) for s in c)):
            raise TypeError(f"heterograph: keys are (src_type, etype, dst_type), got {c!r}")
        src, dst, n_src, n_dst = _graph_data(data, f"heterograph: edge type {c!r}")
        rels[c] = (src, dst)
        for t, ids, least in ((c[0], src, n_src), (c[2], dst, n_dst)):
            if t not in num_nodes_dict:  # DGL's rule, read only when needed (no CuPy sync)
                seen[t] = max(seen.get(t, 0), _inferred(ids, least))
            elif int(num_nodes_dict[t]) < least:
                raise ValueError(
                    f"heterograph: num_nodes_dict[{t!r}]={num_nodes_dict[t]} but the CSR / CSC "
                    f"data of {c!r} has {least} rows"
                )
    counts = {
        t: int(num_nodes_dict.get(t, seen.get(t, 0))) for t in sorted({*seen, *num_nodes_dict})
    }
    return _finish(Graph(rels, counts), idtype, device, "heterograph")
