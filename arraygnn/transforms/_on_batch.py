"""What a transform leaves of a :class:`~arraygnn.batch.Batch`: its pointers recomputed and
its slice / increment records either brought up to date or dropped (never left stale).

During the transform (:func:`arraygnn.transforms.attrs.attribute_levels`) ``batch`` moves
with the nodes and a ``follow_batch`` vector ``<key>_batch`` with ``<key>``. Afterwards
(:func:`finish_batch`, run by :class:`~arraygnn.transforms.base.BaseTransform` when it
is called on a ``Batch``):

RULE: ``ptr`` is ``[0, cumsum(counts)]`` of the new ``batch`` (nodes per graph), and
      ``<key>_ptr`` likewise of ``<key>_batch``; a pointer whose vector the transform
      dropped is dropped too.
RULE: the records (``to_data_list`` / ``get_example``) are kept for what the transform
      left alone, and rebuilt where the batch says how: a node attribute's slices are the
      new ``ptr`` (when ``batch`` is sorted), ``edge_index``'s (and every edge
      attribute's) come from the graph of each edge (when every edge joins two nodes of
      one graph and the edges are grouped by graph), with ``edge_index`` increased by the
      new ``ptr``. The levels are those the transform was told (``node_attrs=`` /
      ``edge_attrs=`` / ``graph_attrs=``, else ``x`` / ``pos`` and ``edge_attr`` /
      ``edge_weight``) and those it states of its outputs (a ``node_outputs`` /
      ``edge_outputs`` attribute: ``AddRandomWalkPE``'s ``attr_name``, ``SIGN``'s
      ``x1 .. xK``, the self-loop transforms' ``attr``). Otherwise (a new node in no
      graph's node range, edges appended after every graph's, an array of unknown level
      that changed, a new key of no stated level, ids to renumber) all records are
      dropped: ``to_data_list()`` then raises instead of returning wrong graphs. PyG's
      transforms leave ``_slice_dict`` and ``ptr`` stale instead.

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

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.batch import Batch
from arraygnn.data import Data, _is_index_key
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
    return bool(get_namespace(a).array_equal(a, b))


def _sorted(v: Any) -> bool:
    return v.shape[0] < 2 or bool((v[1:] >= v[:-1]).all())


def _said(transform: Any, name: str, default: tuple[str, ...]) -> list[str]:
    said = getattr(transform, name, None)
    if said is None:
        return list(default)
    return [said] if isinstance(said, str) else [k for k in said if isinstance(k, str)]


def finish_batch(transform: Any, before: Any, out: Any) -> Any:
    """``out`` (what ``transform`` made of the ``Batch`` ``before``; a tuple / list of
    them for split transforms) with its pointers recomputed and records updated or
    dropped (module docs)."""
    if isinstance(out, (tuple, list)):
        return type(out)(finish_batch(transform, before, o) for o in out)
    if not isinstance(out, Batch) or not isinstance(before, Batch):
        return out
    g = before.num_graphs or 0
    vectors, pointers = batch_vectors(before)
    for p, v in pointers.items():
        if p not in out:
            continue
        if v not in out or not is_array(out[v]):
            del out[p]
        elif out[v] is not before[v]:
            out[p] = pointer(out[v], g)
    if before._kind_dict:
        records = _records(transform, before, out, vectors, set(pointers), g)
        if records is None:
            records = ({}, {}, {}, {})
        for name, value in zip(
            ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict"), records
        ):
            object.__setattr__(out, name, value)
    return out


def _records(
    transform: Any, before: Batch, out: Batch, vectors: dict, pointers: set, g: int
) -> tuple | None:
    """The updated ``(slices, incs, cat_dims, kinds)``, or ``None`` when they cannot be."""
    slices, incs = dict(before._slice_dict), dict(before._inc_dict)
    cats, kinds = dict(before._cat_dim_dict), dict(before._kind_dict)
    default_hooks = (
        before._data_cls.__inc__ is Data.__inc__
        and before._data_cls.__cat_dim__ is Data.__cat_dim__
    )
    # nodes: per-graph ranges from the new ``batch`` (sorted), else unknown
    old_b, new_b = before._store.get("batch"), out._store.get("batch")
    if "batch" in vectors and is_array(new_b):
        nodes_same = _same(new_b, old_b)
        node_ptr = to_numpy(pointer(new_b, g)) if _sorted(new_b) else None
        if node_ptr is not None and node_ptr.shape[0] != g + 1:
            node_ptr = None
    else:
        nodes_same = out.num_nodes == before.num_nodes and "batch" not in vectors
        node_ptr = None
    old_ei, new_ei = before._store.get("edge_index"), out._store.get("edge_index")
    edges_same = nodes_same and _same(new_ei, old_ei)
    edge_ptr = None
    if edges_same and "edge_index" in slices:
        edge_ptr = slices["edge_index"]
    elif node_ptr is not None and is_array(new_ei) and new_ei.ndim == 2 and new_ei.shape[0] == 2:
        src, dst = new_b[new_ei[0]], new_b[new_ei[1]]
        if bool((src == dst).all()) and _sorted(src):
            edge_ptr = to_numpy(pointer(src, g))
            edge_ptr = edge_ptr if edge_ptr.shape[0] == g + 1 else None
    node = set(_said(transform, "node_attrs", DEFAULT_NODE_ATTRS))
    node |= set(getattr(transform, "node_outputs", ()))
    edge = set(_said(transform, "edge_attrs", DEFAULT_EDGE_ATTRS))
    edge |= set(getattr(transform, "edge_outputs", ()))
    graph = set(_said(transform, "graph_attrs", ()))
    for v, key in vectors.items():
        (node if key is None or key in node else edge if key in edge else graph).add(v)

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
