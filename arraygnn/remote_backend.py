"""A graph as a ``(FeatureStore, GraphStore)`` pair and back: :func:`to_stores`,
:func:`from_stores`, and :func:`num_nodes` (PyG's rule for a remote backend's sizes).

PyG's ``Data`` / ``HeteroData`` *are* a feature store and a graph store; arraygnn's keep
one job each, and these functions move a graph between the two forms: the in-memory
stores of :mod:`arraygnn.feature_store` / :mod:`arraygnn.graph_store` hold the same
arrays (no copy), and :class:`~arraygnn.neighbor_loader.NeighborLoader` samples either.

RULE: group names say the level: a node attribute lives under its node type (``None``
      for a homogeneous graph), an edge attribute under its edge type tuple
      (``('_', '_', '_')``, :data:`HOMOGENEOUS_EDGES`, for a homogeneous graph, whose
      graph-store edge type is ``None`` as in PyG).
RULE: which attributes are per node and per edge is said, never guessed from lengths:
      ``x`` / ``pos`` are node and ``edge_attr`` / ``edge_weight`` edge attributes by
      default; every other array must be named in ``node_attrs`` / ``edge_attrs`` or left
      out with ``exclude_keys`` (``ValueError`` lists them). Non-array values are dropped.
RULE: every edge index is stored with its ``size`` ``(num_src_nodes, num_dst_nodes)``,
      which is how the stores carry ``num_nodes``; a node type with neither features nor
      edges does not survive the round trip (PyG's remote backends cannot size it either).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> data = Data(x=np.arange(3.0)[:, None], edge_index=np.array([[0, 1], [1, 2]]))
>>> fs, gs = to_stores(data)
>>> [(a.group_name, a.attr_name) for a in fs.get_all_tensor_attrs()]
[(None, 'x')]
>>> gs.get_all_edge_attrs()[0].size
(3, 3)
>>> back = from_stores(fs, gs)
>>> back.num_nodes, back.edge_index.tolist(), back.x[:, 0].tolist()
(3, [[0, 1], [1, 2]], [0.0, 1.0, 2.0])
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from arraygnn._namespace import get_namespace, is_array, is_torch_tensor
from arraygnn.feature_store import FeatureStore, InMemoryFeatureStore
from arraygnn.graph_store import EdgeLayout, GraphStore, InMemoryGraphStore

__all__ = ["HOMOGENEOUS_EDGES", "from_stores", "num_nodes", "to_stores"]

#: the group name of a homogeneous graph's edge attributes in a feature store
HOMOGENEOUS_EDGES = ("_", "_", "_")
_DEFAULT_NODE = ("x", "pos")
_DEFAULT_EDGE = ("edge_attr", "edge_weight")
_LAYOUTS = ("coo", "csr", "csc")


def as_array(value: Any) -> Any:
    """A store's output as a NumPy / CuPy array (a torch tensor, e.g. from one of PyG's
    stores, becomes a NumPy array)."""
    if is_torch_tensor(value):
        return value.detach().cpu().numpy()
    return value


def _placed(
    where: str,
    stores: list[tuple[Any, dict[str, Any]]],
    node_attrs: Iterable[str] | None,
    edge_attrs: Iterable[str] | None,
    exclude_keys: Iterable[str],
) -> list[tuple[Any, str, str]]:
    """``(group, kind, name)`` of every array to store; ``stores`` = ``(store, {kind:
    group})`` (a ``Data`` is both a node and an edge store); ``ValueError`` for arrays
    neither named nor excluded."""
    named = {
        "node": list(_DEFAULT_NODE if node_attrs is None else node_attrs),
        "edge": list(_DEFAULT_EDGE if edge_attrs is None else edge_attrs),
    }
    own = {"num_nodes", "edge_index"}
    excluded = set(exclude_keys)
    out, loose = [], []
    for store, groups in stores:
        for name in store.keys():
            if name in own or name in excluded:
                continue
            kinds = [kind for kind in groups if name in named[kind]]
            if kinds:
                group, value = groups[kinds[0]], store[name]
                if not is_array(value):
                    raise TypeError(
                        f"{where}: {kinds[0]} attribute {name!r} of {group!r} must be an "
                        f"array, got {type(value).__name__}"
                    )
                out.append((group, kinds[0], name))
            elif is_array(store[name]):
                loose.append(name if len(groups) > 1 else f"{next(iter(groups.values()))}: {name}")
    if loose:
        raise ValueError(
            f"{where}: array attribute(s) {loose} are neither node nor edge attributes: name "
            "them in node_attrs= or edge_attrs=, or leave them out with exclude_keys="
        )
    return out


def _put_edges(gs: GraphStore, et: Any, edge_index: Any, size: tuple[int, int], layout: str) -> Any:
    """Store ``edge_index`` in ``layout``; the permutation applied to the edges (or None)."""
    row, col = edge_index[0], edge_index[1]
    gs.put_edge_index((row, col), edge_type=et, layout="coo", size=size)
    if layout == "coo":
        return None
    ptr_first, ptr_second, perm = gs._edge_to_layout(
        gs._edge_attr_cls(et, "coo", size=size), EdgeLayout(layout)
    )
    gs.remove_edge_index(edge_type=et, layout="coo")
    gs.put_edge_index((ptr_first, ptr_second), edge_type=et, layout=layout, size=size)
    return perm


def to_stores(
    data: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    exclude_keys: Iterable[str] = (),
    layout: str = "coo",
) -> tuple[InMemoryFeatureStore, InMemoryGraphStore]:
    """``(feature_store, graph_store)`` holding a ``Data`` or ``HeteroData``.

    Args:
        data: a ``Data`` (known ``num_nodes``, ``edge_index`` ``[2, E]``) or ``HeteroData``
            (every node type with a known ``num_nodes``).
        node_attrs / edge_attrs: the node / edge attributes to store (defaults: ``x`` /
            ``pos`` and ``edge_attr`` / ``edge_weight`` where present).
        exclude_keys: array attributes left out.
        layout: ``'coo'`` (edges in their order), ``'csc'`` (sorted by destination, stable)
            or ``'csr'`` (by source); edge attributes are stored in the same edge order.

    Node features are the graph's arrays (no copy); in CSR / CSC the edge attributes are
    permuted copies.
    """
    from arraygnn.hetero_data import HeteroData

    where = "to_stores"
    if layout not in _LAYOUTS:
        raise ValueError(f"{where}: layout must be one of {_LAYOUTS}, got {layout!r}")
    fs, gs = InMemoryFeatureStore(), InMemoryGraphStore()
    if isinstance(data, HeteroData):
        counts = {}
        for t, store in data.node_items():
            if store.num_nodes is None:
                raise ValueError(f"{where}: num_nodes of node type {t!r} is unknown")
            counts[t] = int(store.num_nodes)
        loose = [k for k, v in data._global.items() if is_array(v) and k not in exclude_keys]
        if loose:
            raise ValueError(
                f"{where}: graph-level array(s) {loose} have no place in a feature store; "
                "leave them out with exclude_keys="
            )
        stores = [(s, {"node": t}) for t, s in data.node_items()]
        stores += [(s, {"edge": et}) for et, s in data.edge_items()]
        edges = {
            et: (s["edge_index"], (counts[et[0]], counts[et[2]])) for et, s in data.edge_items()
        }
        node_stores = dict(data.node_items())
        edge_stores = dict(data.edge_items())
    else:
        if data.num_nodes is None or "edge_index" not in data.keys():
            raise ValueError(f"{where}: the Data needs an edge_index and a known num_nodes")
        n = int(data.num_nodes)
        stores = [(data, {"node": None, "edge": HOMOGENEOUS_EDGES})]
        edges = {None: (data.edge_index, (n, n))}
        node_stores, edge_stores = {None: data}, {HOMOGENEOUS_EDGES: data}
    placed = _placed(where, stores, node_attrs, edge_attrs, exclude_keys)
    perms = {}
    for et, (edge_index, size) in edges.items():
        if not is_array(edge_index) or edge_index.ndim != 2 or edge_index.shape[0] != 2:
            raise ValueError(f"{where}: edge_index of {et!r} must be an integer [2, E] array")
        perms[HOMOGENEOUS_EDGES if et is None else et] = _put_edges(
            gs, et, edge_index, size, layout
        )
    for group, kind, name in placed:
        if kind == "node":
            fs.put_tensor(node_stores[group][name], group, name, None)
        else:
            value, perm = edge_stores[group][name], perms[group]
            fs.put_tensor(value if perm is None else value[perm], group, name, None)
    return fs, gs


def num_nodes(feature_store: FeatureStore, graph_store: GraphStore, node_type: Any) -> int:
    """The number of nodes of ``node_type`` (``None``: a homogeneous graph) in a remote
    backend, PyG's rule: the ``size`` of an edge index touching it (a homogeneous graph:
    the larger side, PyG's ``max(size)``), else the rows of one of its features;
    ``ValueError`` when neither tells."""
    for attr in graph_store.get_all_edge_attrs():
        if attr.size is None:
            continue
        et = attr.edge_type
        if et is None and node_type is None:
            return max(int(s) for s in attr.size)
        if isinstance(et, tuple) and et[0] == node_type:
            return int(attr.size[0])
        if isinstance(et, tuple) and et[-1] == node_type:
            return int(attr.size[-1])
    for attr in feature_store.get_all_tensor_attrs():
        if attr.group_name == node_type:
            size = feature_store.get_tensor_size(with_index([attr], None)[0])
            if size is not None:
                return int(size[0])
    raise ValueError(
        f"Unable to infer the number of nodes of {node_type!r} from feature store "
        f"{feature_store} and graph store {graph_store}: store an edge index with size= "
        "touching it, or a feature of it"
    )


def split_attrs(feature_store: FeatureStore, hetero: bool) -> tuple[list, list]:
    """The store's ``(node attrs, edge attrs)``: a tuple group name is an edge type, any
    other a node type (a heterogeneous store: ``None`` is none; a homogeneous one: every
    group is its nodes', as PyG's ``filter_custom_store`` reads them all)."""
    nodes, edges = [], []
    for attr in feature_store.get_all_tensor_attrs():
        group = attr.group_name
        if isinstance(group, tuple):
            edges.append(attr)
        elif not hetero or group is not None:
            nodes.append(attr)
    return nodes, edges


def with_index(attrs: list[Any], index: Any) -> list[Any]:
    """Copies of the store's own attribute objects with ``index`` set (PyG's way: the
    store's ``TensorAttr`` class, whatever its fields)."""
    out = []
    for attr in attrs:
        attr = copy.copy(attr)
        attr.index = index
        out.append(attr)
    return out


def is_hetero(graph_store: GraphStore) -> bool:
    """Whether the store's edge types are ``(src, rel, dst)`` tuples (PyG's test)."""
    attrs = graph_store.get_all_edge_attrs()
    return bool(attrs) and all(attr.edge_type is not None for attr in attrs)


def edge_types(graph_store: GraphStore) -> list[Any]:
    """The store's edge types, in the order it lists them."""
    return list(dict.fromkeys(attr.edge_type for attr in graph_store.get_all_edge_attrs()))


def coo(graph_store: GraphStore, et: Any) -> Any:
    """The ``[2, E]`` edge index of edge type ``et`` (``None``: homogeneous), from the
    store's COO (or its CSC / CSR converted)."""
    if et is None:
        row, col, _ = graph_store.coo()
    else:
        rows, cols, _ = graph_store.coo([et])
        row, col = rows[et], cols[et]
    row, col = as_array(row), as_array(col)
    return get_namespace(row, col).stack([row, col])


def from_stores(feature_store: FeatureStore, graph_store: GraphStore) -> Any:
    """The ``Data`` (graph store edge type ``None``) or ``HeteroData`` held by the stores:
    ``edge_index`` per edge type from :meth:`GraphStore.coo`, every feature in full.
    Arrays come back as stored (torch tensors of PyG's stores become NumPy arrays)."""
    from arraygnn.data import Data
    from arraygnn.hetero_data import HeteroData

    hetero = is_hetero(graph_store)
    node_attrs, edge_attrs = split_attrs(feature_store, hetero)
    attrs = node_attrs + edge_attrs
    values = [as_array(v) for v in feature_store.multi_get_tensor(with_index(attrs, None))]
    if not hetero:
        n = num_nodes(feature_store, graph_store, None)
        out = Data(edge_index=coo(graph_store, None), num_nodes=n)
        for attr, value in zip(attrs, values):
            out[attr.attr_name] = value
        return out
    out = HeteroData()
    types = edge_types(graph_store)
    for t in dict.fromkeys(
        [a.group_name for a in node_attrs] + [e for et in types for e in et[::2]]
    ):
        out.get_node_store(t).num_nodes = num_nodes(feature_store, graph_store, t)
    for et in types:
        out.get_edge_store(*et).edge_index = coo(graph_store, et)
    for attr, value in zip(attrs, values):
        group = attr.group_name
        store = (
            out.get_edge_store(*group) if isinstance(group, tuple) else out.get_node_store(group)
        )
        store[attr.attr_name] = value
    return out
