"""The loaders' door to a remote backend (private): ``data=(feature_store, graph_store)``.

At entry (:func:`resolve`) the neighbour loaders (``NeighborLoader``,
``LinkNeighborLoader``, homogeneous and heterogeneous) get, in place of the pair, a
*structure-only* ``Data`` / ``HeteroData``: ``edge_index`` per edge type from the graph
store (its COO, or its CSC / CSR converted, so edge ids are positions in the stored order)
and ``num_nodes`` per node type (:func:`arraygnn.remote_backend.num_nodes`), plus, with
``time_attr``, the time attribute read in full (PyG reads it in full too). The loader
samples that structure as it samples any graph; at its feature step it hands each batch
to :meth:`RemoteFeatures.fill`, which reads the batch's rows of every wanted attribute
with **one** ``feature_store.multi_get_tensor`` call (``index`` = the batch's ``n_id`` for
node attributes, ``e_id`` for edge attributes): the feature matrices are never read whole.

PyG's rule for what is read: every node attribute in the feature store (``node_attrs``
narrows it, ``exclude_keys`` drops names); arraygnn also reads edge attributes (group name
an edge type tuple) by ``e_id``, which PyG leaves as a TODO.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.remote_backend import to_stores
>>> pair = to_stores(Data(x=np.arange(3.0)[:, None], edge_index=np.array([[0, 1], [1, 2]])))
>>> struct, node_attrs, edge_attrs, remote = resolve("NeighborLoader", pair, None, None, (), None)
>>> sorted(struct.keys()), node_attrs, [a.attr_name for a, _ in remote.attrs]
(['edge_index', 'num_nodes'], [], ['x'])
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn.remote_backend import (
    HOMOGENEOUS_EDGES,
    as_array,
    coo,
    edge_types,
    is_hetero,
    num_nodes,
    split_attrs,
    with_index,
)

__all__ = ["RemoteFeatures", "is_hetero_remote", "is_remote", "resolve", "resolve_hetero"]


def _is_pair_part(obj: Any, methods: tuple[str, ...]) -> bool:
    return all(callable(getattr(obj, m, None)) for m in methods)


def is_remote(data: Any) -> bool:
    """Whether ``data`` is a ``(FeatureStore, GraphStore)`` pair (arraygnn's, PyG's, or
    any objects with their methods)."""
    return (
        isinstance(data, (tuple, list))
        and len(data) == 2
        and _is_pair_part(data[0], ("multi_get_tensor", "get_all_tensor_attrs"))
        and _is_pair_part(data[1], ("get_all_edge_attrs", "coo"))
    )


def is_hetero_remote(data: Any) -> bool:
    """Whether ``data`` is a pair whose graph store holds ``(src, rel, dst)`` edge types."""
    return is_remote(data) and is_hetero(data[1])


def node_types(data: Any) -> list[Any]:
    """A heterogeneous pair's node types: the feature store's, then the edge types' ends
    (the order of :func:`resolve_hetero`'s structure)."""
    fs, gs = data
    nodes, _ = split_attrs(fs, hetero=True)
    ends = [e for et in edge_types(gs) for e in et[::2]]
    return list(dict.fromkeys([a.group_name for a in nodes] + ends))


def _wanted(
    where: str, attrs: list[Any], names: Iterable[str] | None, excluded: set[str], kind: str
) -> list[Any]:
    """The store attributes to read: all (``names=None``) or those named, less excluded."""
    if names is None:
        return [a for a in attrs if a.attr_name not in excluded]
    names = list(names)
    held = {a.attr_name for a in attrs}
    missing = [n for n in names if n not in held]
    if missing:
        raise ValueError(
            f"{where}: the feature store holds no {kind} attribute(s) {missing} (named in "
            f"{kind}_attrs; it holds {sorted(held, key=str)})"
        )
    return [a for a in attrs if a.attr_name in names and a.attr_name not in excluded]


def _time(where: str, fs: Any, attrs: list[Any], time_attr: str) -> list[tuple[Any, Any]]:
    """``[(store attr, full time array)]`` of ``time_attr`` (read in full, as PyG)."""
    found = [a for a in attrs if a.attr_name == time_attr]
    if not found:
        raise ValueError(
            f"{where}: time_attr={time_attr!r} is not in the feature store (temporal sampling "
            "specified but no temporal data found)"
        )
    values = fs.multi_get_tensor(with_index(found, None))
    return [(a, as_array(v)) for a, v in zip(found, values)]


def _coo(where: str, gs: Any, et: Any) -> Any:
    try:
        return coo(gs, et)
    except ValueError as err:  # (a bad CSR / CSC pointer) name the loader, keep the reason
        raise ValueError(f"{where}: {err}") from None


def _num_nodes(where: str, fs: Any, gs: Any, node_type: Any) -> int:
    try:
        return num_nodes(fs, gs, node_type)
    except ValueError as err:  # name the loader, keep the reason
        raise ValueError(f"{where}: {err}") from None


class RemoteFeatures:
    """The attributes a loader reads per batch: ``attrs`` = ``[(store attr, kind)]``,
    ``kind`` ``'node'`` or ``'edge'``. :meth:`fill` writes them into a batch."""

    def __init__(self, feature_store: Any, attrs: list[tuple[Any, str]], hetero: bool) -> None:
        self.feature_store = feature_store
        self.attrs = attrs
        self.hetero = hetero
        pyg = sys.modules.get("torch_geometric.data.feature_store")
        self._torch_index = pyg is not None and isinstance(feature_store, pyg.FeatureStore)

    def _index(self, ids: Any) -> Any:
        if self._torch_index:  # PyG's stores index with torch tensors
            import torch

            return torch.from_numpy(np.ascontiguousarray(ids))
        return ids

    def fill(self, batch: Any, n_ids: Any, e_ids: Any) -> None:
        """Read the batch's rows (``n_ids`` / ``e_ids``: arrays for a homogeneous batch,
        dicts per type for a heterogeneous one) in one ``multi_get_tensor`` call."""
        if not self.attrs:
            return
        requests, wanted = [], []
        for attr, kind in self.attrs:
            ids = n_ids if kind == "node" else e_ids
            if self.hetero:  # (a homogeneous store's node groups all read n_id, as PyG)
                ids = ids[attr.group_name]
            if ids is None:  # an edge type merged with its reverse: no single edge ids
                continue
            wanted.append((attr, kind))
            requests.extend(with_index([attr], self._index(ids)))
        if not requests:
            return
        values = self.feature_store.multi_get_tensor(requests)
        for (attr, kind), value in zip(wanted, values):
            group = attr.group_name
            if not self.hetero:
                store = batch
            elif kind == "node":
                store = batch.get_node_store(group)
            else:
                store = batch.get_edge_store(*group)
            store[attr.attr_name] = as_array(value)


def resolve(
    where: str,
    data: Any,
    node_attrs: Iterable[str] | None,
    edge_attrs: Iterable[str] | None,
    exclude_keys: Iterable[str],
    time_attr: str | None,
) -> tuple[Any, Any, Any, RemoteFeatures | None]:
    """For a homogeneous loader: ``(data, node_attrs, edge_attrs, remote)``, unchanged
    with ``remote=None`` unless ``data`` is a store pair; then the structure-only ``Data``,
    the attributes the loader slices itself (the time only) and the per-batch reader."""
    from arraygnn.data import Data

    if not is_remote(data):
        return data, node_attrs, edge_attrs, None
    fs, gs = data
    if is_hetero(gs):
        raise TypeError(f"{where}: the graph store holds edge types; it is a heterogeneous graph")
    if not gs.get_all_edge_attrs():
        raise ValueError(f"{where}: the graph store holds no edge index")
    struct = Data(edge_index=_coo(where, gs, None), num_nodes=_num_nodes(where, fs, gs, None))
    nodes, edges = split_attrs(fs, hetero=False)
    edges = [a for a in edges if a.group_name == HOMOGENEOUS_EDGES]  # (its edges only)
    excluded = set(exclude_keys)
    own_nodes: list[str] = []
    own_edges: list[str] = []
    if time_attr is not None:
        excluded.add(time_attr)
        found = _time(where, fs, nodes + edges, time_attr)
        if len(found) > 1:  # PyG: 'did not find any temporal data' (len != 1)
            raise ValueError(
                f"{where}: time_attr={time_attr!r} is held both as a node and as an edge "
                "attribute in the feature store; keep one"
            )
        for attr, value in found:
            struct[time_attr] = value
            (own_edges if isinstance(attr.group_name, tuple) else own_nodes).append(time_attr)
    attrs = [(a, "node") for a in _wanted(where, nodes, node_attrs, excluded, "node")]
    attrs += [(a, "edge") for a in _wanted(where, edges, edge_attrs, excluded, "edge")]
    return struct, own_nodes, own_edges, RemoteFeatures(fs, attrs, hetero=False)


def resolve_hetero(
    where: str,
    data: Any,
    node_attrs: Iterable[str] | None,
    edge_attrs: Iterable[str] | None,
    exclude_keys: Iterable[str],
    time_attr: str | None,
) -> tuple[Any, Any, Any, RemoteFeatures | None]:
    """:func:`resolve` for the heterogeneous loader: a structure-only ``HeteroData`` (node
    types: the feature store's, then the edge types' ends, each sized by
    :func:`~arraygnn.remote_backend.num_nodes`)."""
    from arraygnn.hetero_data import HeteroData

    if not is_remote(data):
        return data, node_attrs, edge_attrs, None
    fs, gs = data
    if not is_hetero(gs):
        raise TypeError(f"{where}: the graph store holds no (src, rel, dst) edge types")
    nodes, edges = split_attrs(fs, hetero=True)
    types = edge_types(gs)
    edges = [a for a in edges if a.group_name in types]
    struct = HeteroData()
    for t in node_types(data):
        struct.get_node_store(t).num_nodes = _num_nodes(where, fs, gs, t)
    for et in types:
        struct.get_edge_store(*et).edge_index = _coo(where, gs, et)
    excluded = set(exclude_keys)
    if time_attr is not None:
        excluded.add(time_attr)
        for attr, value in _time(where, fs, nodes + edges, time_attr):
            group = attr.group_name
            is_edge = isinstance(group, tuple)
            store = struct.get_edge_store(*group) if is_edge else struct.get_node_store(group)
            store[time_attr] = value
    attrs = [(a, "node") for a in _wanted(where, nodes, node_attrs, excluded, "node")]
    attrs += [(a, "edge") for a in _wanted(where, edges, edge_attrs, excluded, "edge")]
    return struct, [], [], RemoteFeatures(fs, attrs, hetero=True)
