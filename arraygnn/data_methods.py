"""PyG's structural methods of :class:`arraygnn.Data` (the bodies; ``Data`` keeps thin
methods): ``subgraph``, ``edge_subgraph``, ``coalesce``, ``is_coalesced``, ``sort``,
``is_sorted``, ``is_undirected``, ``has_isolated_nodes``, ``has_self_loops`` and
``to_heterogeneous``.

RULE: which arrays are per node, per edge or per graph is said by the caller
(``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``; defaults ``('x', 'pos')`` /
``('edge_attr', 'edge_weight')`` / none, where present: see
:mod:`arraygnn.transforms.attrs`), never guessed from array lengths as PyG does; an array
attribute none of them names is a ``ValueError``. Per-node and per-edge arrays are sliced
along their first dimension (the rows ``attribute_levels`` checks).
RULE: nothing passed in is modified; the results are new objects sharing the arrays they do
not change (PyG's ``copy.copy``).
RULE: errors name the method (``Data.subgraph: ...``) and the argument at fault.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.arange(4.0)[:, None], edge_index=np.array([[0, 1, 2, 3], [1, 2, 3, 0]]))
>>> s = d.subgraph(np.array([2, 1, 3]))
>>> s.x.ravel().tolist(), s.edge_index.tolist()
([2.0, 1.0, 3.0], [[1, 0], [0, 2]])
>>> d.coalesce().edge_index.tolist(), d.is_undirected()
([[0, 1, 2, 3], [1, 2, 3, 0]], False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.utils._checks import (
    bool_arg,
    check_ids,
    check_int_array,
    check_numeric,
    check_pyg_reduce,
    edge_attr_arg,
    edge_index_arg,
    ids_from_python,
)
from arraygnn.utils.coalesce import coalesce as coalesce_edges
from arraygnn.utils.isolated import contains_isolated_nodes
from arraygnn.utils.loops import contains_self_loops
from arraygnn.utils.sort import sort_edge_index
from arraygnn.utils.subgraph import subgraph as subgraph_edges
from arraygnn.utils.undirected import is_undirected as is_undirected_edges

__all__ = [
    "subgraph",
    "edge_subgraph",
    "coalesce",
    "is_coalesced",
    "sort",
    "is_sorted",
    "is_undirected",
    "has_isolated_nodes",
    "has_self_loops",
    "to_heterogeneous",
]

#: keys ``to_heterogeneous`` consumes or drops (PyG's)
_TYPE_KEYS = ("node_type", "edge_type", "ptr")


# ------------------------------------------------------------------ shared checks
def _where(data: Any, method: str) -> str:
    return f"{type(data).__name__}.{method}"


def _levels(
    where: str,
    data: Any,
    node_attrs: Iterable[str] | None,
    edge_attrs: Iterable[str] | None,
    graph_attrs: Iterable[str],
) -> Any:
    from arraygnn.transforms.attrs import attribute_levels

    return attribute_levels(where, data, node_attrs, edge_attrs, graph_attrs)


def _namespace(data: Any) -> ModuleType:
    arrays = [v for v in data._store.values() if is_array(v)]
    return get_namespace(*arrays) if arrays else np


def _known_num_nodes(where: str, data: Any) -> int:
    n = data.num_nodes
    if n is None:
        raise ValueError(
            f"{where}: num_nodes is unknown (give x, pos or num_nodes=; it is never guessed from "
            "edge_index.max() + 1)"
        )
    return n


def _checked_edge_index(where: str, data: Any, num_nodes: int | None, required: bool) -> Any:
    """``edge_index`` checked ([2, E] integers in ``[0, num_nodes)``; only ``>= 0`` when
    ``num_nodes`` is unknown), or ``None`` when absent and not ``required``."""
    ei = data._store.get("edge_index")
    if ei is None:
        if required:
            raise ValueError(f"{where}: the graph has no edge_index")
        return None
    edge_index_arg(where, ei)
    check_ids(where, "edge_index", ei, num_nodes)
    return ei


def _selection(
    where: str, subset: Any, size: int, xp: ModuleType, unit: str, unique: bool
) -> tuple[Any, Any]:
    """``(subset as an array, the selected positions in order)`` of an index array / list or
    a bool mask over ``size`` nodes or edges (``unit``); ``unique`` refuses repeated ids."""
    if isinstance(subset, (list, tuple)):
        listed = np.asarray(subset)
        if listed.dtype == np.bool_:
            subset = xp.asarray(listed)
    arr = ids_from_python(where, "subset", subset, xp)
    if get_namespace(arr) is not xp:
        raise TypeError(
            f"{where}: subset is a {get_namespace(arr).__name__} array but the graph's arrays "
            f"are {xp.__name__} arrays; move it to the graph's device first"
        )
    if arr.ndim != 1:
        raise ValueError(f"{where}: subset must be one-dimensional, got shape {tuple(arr.shape)}")
    if arr.dtype == np.bool_:
        if arr.shape[0] != size:
            raise ValueError(
                f"{where}: subset is a mask of {arr.shape[0]} {unit} but the graph has {size}"
            )
        return arr, xp.nonzero(arr)[0]
    check_int_array(where, "subset", arr)
    check_ids(where, "subset", arr, size)
    if unique and arr.shape[0] > 1:
        seen = xp.zeros(size, dtype=bool)
        seen[arr] = True
        if int(seen.sum()) != arr.shape[0]:
            raise ValueError(f"{where}: subset repeats {unit[:-1]} ids")
    return arr, arr


# ------------------------------------------------------------------ subgraphs
def subgraph(
    data: Any,
    subset: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> Any:
    """The subgraph induced by ``subset`` (node ids, kept in their order, or a bool mask):
    PyG's ``Data.subgraph``. Edges with both ends kept, in edge order, relabelled by
    position in ``subset`` (dtype kept); node attributes take ``subset``'s rows, edge
    attributes the kept edges' rows; ``num_nodes`` follows. Repeated ids are a
    ``ValueError`` (PyG would duplicate node rows and point edges at the last copy)."""
    where = _where(data, "subgraph")
    levels = _levels(where, data, node_attrs, edge_attrs, graph_attrs)
    n = _known_num_nodes(where, data)
    xp = _namespace(data)
    arr, ids = _selection(where, subset, n, xp, "nodes", unique=True)
    store = data._store
    out = data.copy()
    ei = _checked_edge_index(where, data, n, required=False)
    if ei is not None:
        new_ei, _, edge_mask = subgraph_edges(
            arr, ei, relabel_nodes=True, num_nodes=n, return_edge_mask=True
        )
        out._store["edge_index"] = new_ei
        kept = xp.nonzero(edge_mask)[0]
        for key in levels.edge:
            out._store[key] = store[key][kept]
    for key in levels.node:
        out._store[key] = store[key][ids]
    count = int(ids.shape[0])
    if "num_nodes" in store or out.num_nodes != count:
        out.num_nodes = count
    return out


def edge_subgraph(
    data: Any,
    subset: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> Any:
    """The graph with only the edges ``subset`` (edge ids, kept in their order, repeats
    allowed as PyG's ``index_select``, or a bool mask [E]): PyG's ``Data.edge_subgraph``.
    ``edge_index`` and the edge attributes take those rows; every node is kept."""
    where = _where(data, "edge_subgraph")
    levels = _levels(where, data, node_attrs, edge_attrs, graph_attrs)
    xp = _namespace(data)
    ei = _checked_edge_index(where, data, data.num_nodes, required=False)
    _, pos = _selection(where, subset, data.num_edges, xp, "edges", unique=False)
    store = data._store
    out = data.copy()
    if ei is not None:
        out._store["edge_index"] = ei[:, pos]
    for key in levels.edge:
        out._store[key] = store[key][pos]
    return out


# ------------------------------------------------------------------ coalescing
def is_coalesced(data: Any) -> bool:
    """Whether ``edge_index`` is sorted by ``(row, col)`` without duplicates (``True``
    without ``edge_index``, as PyG)."""
    where = _where(data, "is_coalesced")
    ei = _checked_edge_index(where, data, data.num_nodes, required=False)
    return _edge_index_is_coalesced(ei)


def _edge_index_is_coalesced(ei: Any) -> bool:
    """Whether ``ei`` [2, E] is sorted by ``(row, col)`` without parallel edges (True for
    None or fewer than 2 edges); shared by Data and HeteroData."""
    if ei is None or ei.shape[-1] < 2:
        return True
    row, col = ei[0], ei[1]
    up = row[1:] > row[:-1]
    ties = (row[1:] == row[:-1]) & (col[1:] > col[:-1])
    return bool((up | ties).all())


def _edge_index_is_sorted(ei: Any, sort_by_row: bool) -> bool:
    """Whether ``ei`` [2, E] is sorted by its rows (columns with ``sort_by_row=False``);
    True for None or fewer than 2 edges; shared by Data and HeteroData."""
    if ei is None or ei.shape[-1] < 2:
        return True
    index = ei[0] if sort_by_row else ei[1]
    return bool((index[:-1] <= index[1:]).all())


def coalesce(
    data: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
    reduce: str = "sum",
) -> Any:
    """A new graph with ``edge_index`` sorted by ``(row, col)`` and parallel edges merged
    (:func:`arraygnn.utils.coalesce`), every edge attribute moved with its edges and the
    features of merged edges reduced with ``reduce`` (PyG's ``'sum'``). PyG's
    ``Data.coalesce`` reduces ``edge_attr`` only and leaves other per-edge arrays
    (``edge_weight``) out of step; here every edge attribute follows."""
    where = _where(data, "coalesce")
    check_pyg_reduce(where, reduce, allow_any=True)
    levels = _levels(where, data, node_attrs, edge_attrs, graph_attrs)

    def rewrite(ei: Any, feats: list[Any]) -> tuple[Any, list[Any]]:
        for key, value in zip(levels.edge, feats):
            check_numeric(where, f"edge attribute {key!r}", value)
            if get_namespace(value) is not get_namespace(ei):
                raise TypeError(f"{where}: edge attribute {key!r} is not on edge_index's device")
        # num_nodes unknown: coalesce takes edge_index.max() + 1 as a sort bound only; the
        # result does not depend on it and the graph's num_nodes stays unknown
        return coalesce_edges(ei, feats, data.num_nodes, reduce)

    return _edges_rewritten(where, data, levels.edge, rewrite)


def _edges_rewritten(
    where: str, data: Any, edge_keys: list[str], rewrite: Callable[[Any, list[Any]], Any]
) -> Any:
    """A copy of ``data`` whose ``edge_index`` and edge attributes ``edge_keys`` are
    ``rewrite(edge_index, [their values])`` (the copy as is without ``edge_index``)."""
    out = data.copy()
    ei = _checked_edge_index(where, data, data.num_nodes, required=False)
    if ei is None:
        return out
    new_ei, new_feats = rewrite(ei, [data._store[key] for key in edge_keys])
    out._store["edge_index"] = new_ei
    for key, value in zip(edge_keys, new_feats):
        out._store[key] = value
    return out


def is_sorted(data: Any, sort_by_row: bool = True) -> bool:
    """PyG's: whether ``edge_index[0]`` (``edge_index[1]`` with ``sort_by_row=False``)
    never decreases (``True`` without ``edge_index``); ties are not looked at."""
    where = _where(data, "is_sorted")
    sort_by_row = bool_arg(where, "sort_by_row", sort_by_row)
    ei = _checked_edge_index(where, data, data.num_nodes, required=False)
    return _edge_index_is_sorted(ei, sort_by_row)


def sort(
    data: Any,
    sort_by_row: bool = True,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> Any:
    """A new graph with ``edge_index`` sorted by ``(row, col)`` (``(col, row)`` with
    ``sort_by_row=False``; parallel edges keep their order) and every edge attribute
    moved with its edges: PyG's ``Data.sort`` (:func:`arraygnn.utils.sort_edge_index`)."""
    where = _where(data, "sort")
    sort_by_row = bool_arg(where, "sort_by_row", sort_by_row)
    levels = _levels(where, data, node_attrs, edge_attrs, graph_attrs)
    # num_nodes unknown: edge_index.max() + 1 is a sort bound only, as in coalesce
    return _edges_rewritten(
        where,
        data,
        levels.edge,
        lambda ei, feats: sort_edge_index(ei, feats, data.num_nodes, sort_by_row=sort_by_row),
    )


# ------------------------------------------------------------------ structure tests
def is_undirected(data: Any) -> bool:
    """PyG's: every edge ``(i, j)`` has its reverse as many times, with equal ``edge_attr``
    rows when ``edge_attr`` is present (other edge arrays are not compared, as PyG)."""
    where = _where(data, "is_undirected")
    n = data.num_nodes
    ei = _checked_edge_index(where, data, n, required=True)
    attr = data._store.get("edge_attr")
    if attr is not None:
        edge_attr_arg(where, "edge_attr", attr, int(ei.shape[1]))
        if get_namespace(attr) is not get_namespace(ei):
            raise TypeError(f"{where}: edge_attr is not on edge_index's device")
    return is_undirected_edges(ei, attr, num_nodes=n)


def has_isolated_nodes(data: Any) -> bool:
    """PyG's: some node touches no edge other than self-loops (``num_nodes`` must be known:
    it is never guessed)."""
    where = _where(data, "has_isolated_nodes")
    n = _known_num_nodes(where, data)
    ei = _checked_edge_index(where, data, n, required=True)
    return contains_isolated_nodes(ei, n)


def has_self_loops(data: Any) -> bool:
    """PyG's: some edge is ``(i, i)``."""
    where = _where(data, "has_self_loops")
    ei = _checked_edge_index(where, data, data.num_nodes, required=True)
    return contains_self_loops(ei)


# ------------------------------------------------------------------ to_heterogeneous
def _type_vector(where: str, name: str, value: Any, size: int, xp: ModuleType) -> Any:
    if not is_array(value) or get_namespace(value) is not xp:
        raise TypeError(f"{where}: {name} must be a {xp.__name__} integer array")
    check_int_array(where, name, value)
    if value.ndim != 1 or value.shape[0] != size:
        raise ValueError(
            f"{where}: {name} must have shape ({size},), one entry per "
            f"{name.split('_')[0]}, got {tuple(value.shape)}"
        )
    check_ids(where, name, value, None)
    return value


def _type_codes(
    where: str, what: str, types: Any, names: Any, xp: ModuleType
) -> tuple[list[Any], list[int]]:
    """``(names, codes)``: the type names and the ``types`` value each stands for. Default
    names: ``str(v)`` for each distinct value ``v``; given names: ``names[i]`` is value
    ``i`` (every value must be below ``len(names)``)."""
    if names is None:
        codes = [int(v) for v in np.asarray(xp.unique(types).tolist(), dtype=np.int64)]
        return [str(v) for v in codes], codes
    names = list(names)
    if types.shape[0] and int(types.max()) >= len(names):
        raise ValueError(
            f"{where}: {what}_type holds {int(types.max())} but {what}_type_names lists "
            f"{len(names)} names"
        )
    return names, list(range(len(names)))


def _merged_attrs(data: Any, record: str, given: Any, rest: Any) -> Any:
    """``given``, else (on ``HeteroData.to_homogeneous``'s output) the defaults plus the
    attributes it merged at that level that ``rest`` still holds, else ``None``."""
    from arraygnn.transforms.attrs import DEFAULT_EDGE_ATTRS, DEFAULT_NODE_ATTRS

    names = data.__dict__.get(record)
    if given is not None or names is None:
        return given
    default = DEFAULT_NODE_ATTRS if record == "_node_attr_names" else DEFAULT_EDGE_ATTRS
    return [k for k in dict.fromkeys([*default, *names]) if k in rest]


def to_heterogeneous(
    data: Any,
    node_type: Any = None,
    edge_type: Any = None,
    node_type_names: list[str] | None = None,
    edge_type_names: list[tuple[str, str, str]] | None = None,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] = (),
) -> Any:
    """A :class:`arraygnn.HeteroData` split from ``data`` by the per-node ``node_type`` and
    per-edge ``edge_type`` vectors: PyG's ``Data.to_heterogeneous`` (see the method's
    docstring on :class:`arraygnn.Data`)."""
    from arraygnn.data import Data
    from arraygnn.hetero_data import HeteroData

    where = _where(data, "to_heterogeneous")
    store = data._store
    rest = Data(**{k: v for k, v in store.items() if k not in _TYPE_KEYS})
    node_attrs = _merged_attrs(data, "_node_attr_names", node_attrs, rest)
    edge_attrs = _merged_attrs(data, "_edge_attr_names", edge_attrs, rest)
    # on to_homogeneous's output the HeteroData's graph-level keys stay graph-level
    recorded = data.__dict__.get("_graph_attr_names")
    if recorded and not isinstance(graph_attrs, str):
        graph_attrs = list(graph_attrs)
        named = {*(node_attrs or ()), *(edge_attrs or ()), *graph_attrs}
        graph_attrs += [k for k in recorded if k in rest and k not in named]
    levels = _levels(where, rest, node_attrs, edge_attrs, graph_attrs)
    n = _known_num_nodes(where, data)
    e = data.num_edges
    xp = _namespace(data)
    ei = _checked_edge_index(where, data, n, required=False)
    node_type = store.get("node_type") if node_type is None else node_type
    if node_type is None:
        node_type = xp.zeros(n, dtype=np.int64)
    node_type = _type_vector(where, "node_type", node_type, n, xp)
    edge_type = store.get("edge_type") if edge_type is None else edge_type
    if edge_type is None:
        edge_type = xp.zeros(e, dtype=np.int64)
    edge_type = _type_vector(where, "edge_type", edge_type, e, xp)
    if node_type_names is None:
        node_type_names = data.__dict__.get("node_type_names")
    if edge_type_names is None:
        edge_type_names = data.__dict__.get("edge_type_names")
    node_names, node_codes = _type_codes(where, "node", node_type, node_type_names, xp)
    name_of = dict(zip(node_codes, node_names))
    if edge_type_names is None:
        edge_codes = [int(v) for v in np.asarray(xp.unique(edge_type).tolist(), np.int64)]
        if edge_codes and ei is None:
            raise ValueError(f"{where}: edge types cannot be named without edge_index")
        edge_names = []
        for v in edge_codes:
            ends = []
            for row, role in ((0, "source"), (1, "destination")):
                found = xp.unique(node_type[ei[row][edge_type == v]]).tolist()
                if len(found) != 1 or int(found[0]) not in name_of:
                    raise ValueError(
                        f"{where}: the {role} nodes of edge type {v} have node types {found}; "
                        "one edge type must join one node type to one node type (give "
                        "edge_type_names=)"
                    )
                ends.append(name_of[int(found[0])])
            edge_names.append((ends[0], str(v), ends[1]))
    else:
        edge_names, edge_codes = _type_codes(where, "edge", edge_type, edge_type_names, xp)
    local = xp.zeros(n, dtype=np.int64)  # each node's id within its type
    node_ids = {}
    for name, code in zip(node_names, node_codes):
        ids = xp.nonzero(node_type == code)[0]
        local[ids] = xp.arange(ids.shape[0], dtype=np.int64)
        node_ids[name] = ids
    code_of = dict(zip(node_names, node_codes))
    out = HeteroData()
    node_keys = [k for k in store if k in levels.node]
    for name in node_names:
        ns = out[name]
        for key in node_keys:
            ns[key] = store[key][node_ids[name]]
        if "x" not in node_keys:  # the store's count is never guessed from other arrays
            ns.num_nodes = int(node_ids[name].shape[0])
    edge_keys = [k for k in store if k in levels.edge or k == "edge_index"]
    for et, code in zip(edge_names, edge_codes):
        if not (isinstance(et, tuple) and len(et) == 3):
            raise TypeError(f"{where}: edge_type_names must be (src, rel, dst) tuples, got {et!r}")
        if et[0] not in code_of or et[2] not in code_of:
            raise ValueError(f"{where}: edge type {et!r} names a node type not in {node_names}")
        pos = xp.nonzero(edge_type == code)[0]
        if not edge_keys:
            continue
        es = out[et]
        for key in edge_keys:
            if key != "edge_index":
                es[key] = store[key][pos]
                continue
            part = ei[:, pos]
            src_code, dst_code = code_of[et[0]], code_of[et[2]]
            if bool(((node_type[part[0]] != src_code) | (node_type[part[1]] != dst_code)).any()):
                raise ValueError(
                    f"{where}: edges of edge type {et!r} join nodes of other node types"
                )
            es[key] = local[part].astype(ei.dtype, copy=False)
    skip = set(levels.node) | set(levels.edge) | {"edge_index", "num_nodes", *_TYPE_KEYS}
    for key, value in store.items():
        if key not in skip:
            out[key] = value
    return out
