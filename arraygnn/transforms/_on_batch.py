"""What a transform leaves of a :class:`~arraygnn.batch.Batch`: its pointers recomputed and
its slice / increment records either brought up to date or dropped (never left stale).

During the transform (:func:`arraygnn.transforms.attrs.attribute_levels`) ``batch`` moves
with the nodes and a ``follow_batch`` vector ``<key>_batch`` with ``<key>``. Afterwards
(:func:`finish_batch`, run by :class:`~arraygnn.transforms.base.BaseTransform` when it
is called on a ``Batch``):

RULE: a ``follow_batch`` vector the transform changed is recomputed: ``batch`` itself
      for a node-level ``<key>``, the graph of each edge's source for ``edge_index`` or an
      edge-level ``<key>`` where every edge stays inside one graph (a transform that merges
      parallel edges would sum their graph ids; GridSampling would average them), else left
      as the transform made it (PyG's fill: ``VirtualNode``'s edges across graphs). The
      vectors stay known to the next transform where the records are dropped.
RULE: ``ptr`` is ``[0, cumsum(counts)]`` of the new ``batch`` (nodes per graph), and
      ``<key>_ptr`` likewise of ``<key>_batch``; a pointer whose vector the transform
      dropped is dropped too; a negative graph id (``Pad(node_pad_value=-1)``) is a
      ``ValueError`` naming the transform.
RULE: the records (``to_data_list`` / ``get_example``) are kept for what the transform
      left alone, and rebuilt where the batch says how: a node attribute's slices are the
      new ``ptr`` (when ``batch`` is sorted), ``edge_index``'s (and every edge
      attribute's) come from the graph of each edge (when every edge joins two nodes of
      one graph and the edges are grouped by graph), with ``edge_index`` increased by the
      new ``ptr``; an array of no said level left alone while only the edges changed
      (``KNNGraph`` on labelled clouds) keeps its records unless they split it as the
      old edges (it may be per edge, now stale). The levels are those the transform was
      told (``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``, else ``x`` / ``pos`` and
      ``edge_attr`` / ``edge_weight``) and those it states of its outputs (a
      ``node_outputs`` / ``edge_outputs`` attribute: ``AddRandomWalkPE``'s
      ``attr_name``, ``SIGN``'s ``x1 .. xK``, the self-loop transforms' ``attr``).
      Otherwise (a new node in no graph's node range, edges appended after every graph's,
      an array of unknown level that changed, a new key of no stated level, ids to
      renumber, an ``edge_index`` left as it was while the nodes changed (``FixedPoints``:
      its ids name the old nodes), ids past the nodes) all records are dropped:
      ``to_data_list()`` then raises instead of returning wrong graphs. PyG's transforms
      leave ``_slice_dict`` and ``ptr`` stale instead.
RULE: on a :class:`~arraygnn.hetero_batch.HeteroBatch` (no vectors are placed or
      recomputed) the records are kept while every node store's ``batch`` and every edge
      store's ``edge_index`` stay as collated (changed arrays with the same rows; new
      per-node / per-edge arrays get their store's rows); otherwise, or for a new node /
      edge type or graph-level key, they are dropped.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.batch import Batch
>>> from arraygnn.transforms import RemoveIsolatedNodes
>>> g = Data(x=np.arange(3.0)[:, None], edge_index=np.array([[0], [2]]))
>>> out = RemoveIsolatedNodes()(Batch.from_data_list([g, g]))
>>> out.batch.tolist(), out.ptr.tolist(), out.edge_index.tolist()
([0, 0, 1, 1], [0, 2, 4], [[0, 2], [1, 3]])
>>> out.get_example(1).x.ravel().tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.batch import Batch
from arraygnn.data import Data, _is_index_key
from arraygnn.hetero_batch import HeteroBatch
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms.attrs import DEFAULT_EDGE_ATTRS, DEFAULT_NODE_ATTRS, batch_vectors

__all__ = ["finish_batch", "pointer", "refuse_batch"]


def refuse_batch(where: str, data: Any, why: str) -> None:
    """``TypeError`` for a transform that cannot run on a ``Batch`` (``why``: the reason)."""
    if isinstance(data, Batch):
        raise TypeError(
            f"{where}: takes no Batch ({why}); apply it to each graph before batching "
            "(e.g. as the dataset's transform)"
        )


def pointer(vector: Any, num_graphs: int) -> Any:
    """``[0, cumsum(bincount(vector))]`` int64, at least ``num_graphs + 1`` long."""
    xp = get_namespace(vector)
    counts = xp.bincount(vector.astype(np.int64, copy=False), minlength=num_graphs)
    out = xp.zeros(counts.shape[0] + 1, dtype=np.int64)
    out[1:] = xp.cumsum(counts)
    return out


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if not (is_array(a) and is_array(b)) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    try:
        xp = get_namespace(a, b)
    except TypeError:  # moved between host and device (ToDevice): compare on the host
        return bool(np.array_equal(to_numpy(a), to_numpy(b)))
    return bool(xp.array_equal(a, b))


def _sorted(v: Any) -> bool:
    return v.shape[0] < 2 or bool((v[1:] >= v[:-1]).all())


def _said(transform: Any, name: str, default: tuple[str, ...]) -> list[str]:
    said = getattr(transform, name, None)
    if said is None:
        return list(default)
    return [said] if isinstance(said, str) else [k for k in said if isinstance(k, str)]


def finish_batch(transform: Any, before: Any, out: Any) -> Any:
    """``out`` (what ``transform`` made of the ``Batch`` ``before``; a tuple / list of
    them for split transforms) with its vectors and pointers recomputed and records
    updated or dropped (module docs)."""
    if isinstance(out, (tuple, list)):
        return type(out)(finish_batch(transform, before, o) for o in out)
    if isinstance(before, HeteroBatch) and isinstance(out, HeteroBatch):
        return _finish_hetero(before, out)
    if not isinstance(out, Batch) or not isinstance(before, Batch):
        return out
    g = before.num_graphs or 0
    vectors, pointers = batch_vectors(before)
    node, edge, graph = _levels(transform, vectors)
    shape = _Shape(before, out, vectors, g)
    for v, key in vectors.items():  # a follow vector is the graph of each row, recomputed
        value = out._store.get(v)
        if key is None or not is_array(value) or value is before._store.get(v):
            continue
        ids = shape.new_b if key in node else shape.edge_graph
        if key not in node and key != "edge_index" and key not in edge:
            ids = None
        if ids is not None and value.shape == ids.shape:
            out._store[v] = ids.astype(before._store[v].dtype)
    for p, v in pointers.items():
        if p not in out:
            continue
        if v not in out or not is_array(out[v]):
            del out[p]
        elif out[v] is not before[v]:
            if out[v].shape[0] and int(out[v].min()) < 0:
                raise ValueError(
                    f"{type(transform).__name__}: after the transform {v!r} holds graph id "
                    f"{int(out[v].min())} (< 0): {p!r} cannot be recomputed"
                )
            out[p] = pointer(out[v], g)
    if before._kind_dict:
        records = _records(before, out, vectors, set(pointers), g, shape, node, edge, graph)
        if records is None:
            records = ({}, {}, {}, {})
        for name, value in zip(
            ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict"), records
        ):
            object.__setattr__(out, name, value)
    # the follow vectors stay known to the next transform, records or not
    follow = {v: k for v, k in vectors.items() if k is not None and v in out._store}
    object.__setattr__(out, "_follow_vectors", follow)
    return out


def _levels(transform: Any, vectors: dict) -> tuple[set, set, set]:
    """The keys ``transform`` was told (or states it makes) per node / edge / graph, with
    the batch's own vectors at the level of what they follow."""
    node = set(_said(transform, "node_attrs", DEFAULT_NODE_ATTRS))
    node |= set(getattr(transform, "node_outputs", ()))
    edge = set(_said(transform, "edge_attrs", DEFAULT_EDGE_ATTRS))
    edge |= set(getattr(transform, "edge_outputs", ()))
    graph = set(_said(transform, "graph_attrs", ()))
    for v, key in vectors.items():
        (node if key is None or key in node else edge if key in edge else graph).add(v)
    return node, edge, graph


def _edge_graphs(new_b: Any, ei: Any) -> Any:
    """The graph of every edge of ``ei`` (ids checked against ``new_b`` first), or ``None``
    where an id lies outside the nodes or an edge joins two graphs."""
    if ei.shape[1] == 0:
        return new_b[:0]
    if int(ei.min()) < 0 or int(ei.max()) >= new_b.shape[0]:
        return None
    src, dst = new_b[ei[0]], new_b[ei[1]]
    return src if bool((src == dst).all()) else None


class _Shape:
    """How the transform left the batch's nodes and edges: ``nodes_same`` / ``edges_same``
    (unchanged), ``node_ptr`` (node boundaries of the graphs, host int64, when ``batch`` is
    sorted), ``edge_graph`` (the graph of each edge, when each edge stays in one graph) and
    ``edge_ptr`` (edge boundaries, when moreover the edges are grouped by graph)."""

    def __init__(self, before: Batch, out: Batch, vectors: dict, g: int) -> None:
        old_b, new_b = before._store.get("batch"), out._store.get("batch")
        self.new_b = new_b if "batch" in vectors and is_array(new_b) else None
        self.node_ptr = None
        if self.new_b is not None:
            self.nodes_same = _same(new_b, old_b)
            if _sorted(new_b):
                node_ptr = to_numpy(pointer(new_b, g))
                self.node_ptr = node_ptr if node_ptr.shape[0] == g + 1 else None
        else:
            self.nodes_same = out.num_nodes == before.num_nodes and "batch" not in vectors
        old_ei, new_ei = before._store.get("edge_index"), out._store.get("edge_index")
        self.edges_same = self.nodes_same and _same(new_ei, old_ei)
        self._edges = None
        if (
            self.new_b is not None
            and is_array(new_ei)
            and new_ei.ndim == 2
            and new_ei.shape[0] == 2
            # ids left as they were while the nodes changed (FixedPoints) name old nodes
            and (self.nodes_same or new_ei is not old_ei or new_ei.shape[1] == 0)
        ):
            self._edges = new_ei
        self.edge_ptr = None
        if self.edges_same and "edge_index" in before._slice_dict:
            self.edge_ptr = before._slice_dict["edge_index"]
        elif self.node_ptr is not None and self.edge_graph is not None:
            if _sorted(self.edge_graph):
                edge_ptr = to_numpy(pointer(self.edge_graph, g))
                self.edge_ptr = edge_ptr if edge_ptr.shape[0] == g + 1 else None

    @cached_property
    def edge_graph(self) -> Any:
        """The graph of each edge (computed when asked: one gather over the edges)."""
        return None if self._edges is None else _edge_graphs(self.new_b, self._edges)


def _records(
    before: Batch,
    out: Batch,
    vectors: dict,
    pointers: set,
    g: int,
    shape: _Shape,
    node: set,
    edge: set,
    graph: set,
) -> tuple | None:
    """The updated ``(slices, incs, cat_dims, kinds)``, or ``None`` when they cannot be."""
    slices, incs = dict(before._slice_dict), dict(before._inc_dict)
    cats, kinds = dict(before._cat_dim_dict), dict(before._kind_dict)
    default_hooks = (
        before._data_cls.__inc__ is Data.__inc__
        and before._data_cls.__cat_dim__ is Data.__cat_dim__
    )
    nodes_same, node_ptr = shape.nodes_same, shape.node_ptr
    edges_same, edge_ptr = shape.edges_same, shape.edge_ptr

    def place(key: str, value: Any) -> bool:
        """Records of a changed / new array ``key`` at its said level; False: unknown."""
        if key in node or key in edge:
            ptr = node_ptr if key in node else edge_ptr
            if ptr is None or value.ndim == 0 or value.shape[0] != int(ptr[-1]):
                return False
            if _is_index_key(key) or np.any(incs.get(key, 0)) or cats.get(key, 0) != 0:
                return False  # ids to increase, or not concatenated along the rows
            if key not in incs and not default_hooks:
                return False  # a new key: its increments come from hooks not run here
            slices[key], cats[key], kinds[key] = ptr, 0, "cat"
            incs[key] = np.zeros(g, np.int64)
            return True
        return False

    for key in [k for k in kinds if k not in out._store]:
        for d in (slices, incs, cats, kinds):
            d.pop(key, None)  # removed by the transform
    for key, value in out._store.items():
        if key in pointers or key in vectors:
            continue
        unchanged = key in before._store and value is before._store[key]
        kind = kinds.get(key)
        if kind is None and unchanged:
            continue  # a batch-level value stays one
        if key == "edge_index" and not (kind == "cat" and edges_same):
            # new or changed edges: grouped by graph, increased by the new ptr
            if edge_ptr is None or node_ptr is None or not default_hooks:
                return None
            slices[key], incs[key] = edge_ptr, node_ptr[:-1].copy()
            cats[key], kinds[key] = 1, "cat"
        elif kind is None:
            if not is_array(value) or not place(key, value):
                return None
        elif kind == "num_nodes":
            if not nodes_same:
                if node_ptr is None:
                    return None
                slices[key] = node_ptr
        elif kind == "cat":
            if (unchanged or key in graph) and nodes_same and edges_same:
                continue
            elif unchanged and key in graph:
                continue
            elif (
                unchanged
                and nodes_same
                and key not in node
                and key not in edge
                and not _split_like_old_edges(before, slices[key])
            ):
                continue  # only edges changed (KNNGraph): a label / normal left alone
            elif not (unchanged or key in node or key in edge) and nodes_same and edges_same:
                c = cats[key]  # changed in place (features): same rows along the cat dim
                if not is_array(value) or value.ndim <= c:
                    return None
                if value.shape[c] != int(slices[key][-1]):
                    return None
            elif not is_array(value) or not place(key, value):
                return None
        elif not unchanged:  # stacked / scalar / list: one entry per graph
            rows = value.shape[0] if is_array(value) and value.ndim else None
            if rows is None and isinstance(value, list):
                rows = len(value)
            if rows != g:
                return None
    return slices, incs, cats, kinds


def _split_like_old_edges(before: Batch, key_slices: Any) -> bool:
    """Whether an attribute's slices are those of the batch's old edges: it may be per
    edge, so new edges leave it stale (records must go)."""
    old = before._slice_dict.get("edge_index")
    return old is not None and bool(np.array_equal(to_numpy(old), to_numpy(key_slices)))


def _finish_hetero(before: HeteroBatch, out: HeteroBatch) -> HeteroBatch:
    """``out`` with the records of ``before`` where they still split it right, else none
    (``to_data_list`` then raises): a ``HeteroBatch``'s node and edge sets must stay as
    collated; changed per-node / per-edge arrays keep their rows (module docs)."""
    if before._kind_dict:
        records = _hetero_records(before, out)
        for name, value in zip(
            ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict"),
            records or ({}, {}, {}, {}),
        ):
            object.__setattr__(out, name, value)
    return out


def _hetero_records(before: HeteroBatch, out: HeteroBatch) -> tuple | None:
    def stores(b: HeteroBatch) -> dict:
        found: dict = {None: b._global}
        found.update({t: s._mapping for t, s in b._nodes.items()})
        found.update({t: s._mapping for t, s in b._edges.items()})
        return found

    old, new = stores(before), stores(out)
    if set(old) != set(new):
        return None  # a node / edge type added or removed
    default_hooks = (
        before._data_cls.__inc__ is HeteroData.__inc__
        and before._data_cls.__cat_dim__ is HeteroData.__cat_dim__
    )
    records = tuple(
        {s: dict(d) for s, d in r.items()}
        for r in (before._slice_dict, before._inc_dict, before._cat_dim_dict, before._kind_dict)
    )
    slices, incs, cats, kinds = records
    g = before._num_graphs or 0
    for skey, now in new.items():
        was = old[skey]
        recorded = kinds.get(skey, {})
        for key in [k for k in recorded if k not in now]:
            if key == "edge_index":
                return None
            for r in records:
                r.get(skey, {}).pop(key, None)  # removed by the transform
        for key, value in now.items():
            if key in was and value is was[key]:
                continue
            kind = recorded.get(key)
            if key in was and kind is None:
                if _same(value, was[key]):
                    continue  # the same values anew (ToDevice)
                return None  # batch / ptr / a follow vector changed: the nodes or edges did
            if kind is None:  # a new array: per node of a node store, per edge of an edge one
                sl = _store_rows(skey, was, now, slices.get(skey, {}))
                if (
                    sl is None
                    or not default_hooks
                    or not is_array(value)
                    or value.ndim == 0
                    or _is_index_key(key)
                    or value.shape[0] != int(sl[-1])
                ):
                    return None
                for r, v in zip(records, (sl, np.zeros(g, np.int64), 0, "cat")):
                    r.setdefault(skey, {})[key] = v
            elif kind == "cat":
                c = cats[skey][key]
                if _same(value, was.get(key)):
                    continue
                if key == "edge_index" or _is_index_key(key) or np.any(incs[skey][key]):
                    return None  # ids changed
                if not is_array(value) or value.ndim <= c:
                    return None
                if value.shape[c] != int(slices[skey][key][-1]):
                    return None
            elif kind == "num_nodes":
                if value != was.get(key):
                    return None
            else:  # stacked / scalar / list: one entry per graph
                rows = value.shape[0] if is_array(value) and value.ndim else None
                if rows is None and isinstance(value, list):
                    rows = len(value)
                if rows != g:
                    return None
    return records


def _store_rows(skey: Any, was: dict, now: dict, slices: dict) -> Any:
    """The row boundaries of the graphs in a node store (its ``ptr``) or an edge store
    (its ``edge_index``'s slices), where the transform left them alone; else ``None``."""
    if isinstance(skey, str):
        ptr = now.get("ptr")
        if ptr is None or not _same(ptr, was.get("ptr")):
            return None
        if not _same(now.get("batch"), was.get("batch")):
            return None
        return np.asarray(to_numpy(ptr), dtype=np.int64)
    if isinstance(skey, tuple) and "edge_index" in slices:
        if _same(now.get("edge_index"), was.get("edge_index")):
            return slices["edge_index"]
    return None
