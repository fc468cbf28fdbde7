"""PyG's :class:`Pad`: node and edge arrays padded to fixed sizes (static shapes for
compiled consumers), with PyG's padding-value classes :class:`UniformPadding`,
:class:`AttrNamePadding`, :class:`NodeTypePadding`, :class:`EdgeTypePadding`.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]))
>>> out = Pad(4, 3, add_pad_mask=True)(d)
>>> out.x.ravel().tolist(), out.edge_index.tolist(), out.pad_edge_mask.tolist()
([1.0, 1.0, 0.0, 0.0], [[0, 2, 2], [1, 2, 2]], [True, False, False])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arraygnn._namespace import is_array
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms._graph import check_data, hetero_edge_keys, namespace_of, node_count
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform

__all__ = ["AttrNamePadding", "EdgeTypePadding", "NodeTypePadding", "Pad", "UniformPadding"]

_MASKS = ("train_mask", "val_mask", "test_mask")


class UniformPadding:
    """One padding value for every attribute (PyG's ``UniformPadding``)."""

    def __init__(self, value: int | float = 0.0) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"UniformPadding: value must be an int or float, got {value!r}")
        self.value = value

    def get_value(self, store_type: Any = None, attr_name: str | None = None) -> int | float:
        return self.value

    def __repr__(self) -> str:
        return f"{type(self).__name__}(value={self.value})"


class _MappingPadding(UniformPadding):
    _key_kind = ""

    def __init__(self, values: dict[Any, Any], default: int | float = 0.0) -> None:
        where = type(self).__name__
        if not isinstance(values, dict):
            raise ValueError(f"{where}: values must be a dict, got {type(values).__name__}")
        self.values = {
            k: UniformPadding(v) if isinstance(v, (int, float)) else v for k, v in values.items()
        }
        for key, value in self.values.items():
            self._check_key(where, key)
            if type(value) not in self._allowed():
                raise ValueError(f"{where}: the padding of {key!r} has the wrong type: {value!r}")
        self.default = UniformPadding(default)

    def _check_key(self, where: str, key: Any) -> None:
        if not isinstance(key, str):
            raise ValueError(f"{where}: {self._key_kind} {key!r} must be a string")

    @staticmethod
    def _allowed() -> tuple[type, ...]:
        return (UniformPadding,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(values={self.values}, default={self.default.value})"


class AttrNamePadding(_MappingPadding):
    """Padding values by attribute name, ``default`` for the others (PyG's)."""

    _key_kind = "attribute name"

    def get_value(self, store_type: Any = None, attr_name: str | None = None) -> int | float:
        return self.values.get(attr_name, self.default).get_value()


class NodeTypePadding(_MappingPadding):
    """Padding by node type (a number or an :class:`AttrNamePadding` each), PyG's."""

    _key_kind = "node type"

    @staticmethod
    def _allowed() -> tuple[type, ...]:
        return (UniformPadding, AttrNamePadding)

    def get_value(self, store_type: Any = None, attr_name: str | None = None) -> int | float:
        return self.values.get(store_type, self.default).get_value(attr_name=attr_name)


class EdgeTypePadding(NodeTypePadding):
    """Padding by edge type (a number or an :class:`AttrNamePadding` each), PyG's."""

    _key_kind = "edge type"

    def _check_key(self, where: str, key: Any) -> None:
        if not isinstance(key, tuple) or len(key) != 3:
            raise ValueError(f"{where}: edge type {key!r} must be a (src, rel, dst) tuple")


def _padding(where: str, name: str, value: Any) -> UniformPadding:
    if isinstance(value, UniformPadding):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where}: {name} must be a number or a padding object, got {value!r}")
    return UniformPadding(value)


def _kind(where: str, name: str, pad: UniformPadding, typed: type | None) -> None:
    """``ValueError`` unless ``pad`` is uniform, by attribute name, or ``typed``."""
    allowed = (UniformPadding, AttrNamePadding) + (() if typed is None else (typed,))
    if type(pad) not in allowed:
        raise ValueError(f"{where}: {name} cannot be a {type(pad).__name__} here")


def _pad_rows(xp: Any, value: Any, target: int, fill: Any, where: str, what: str) -> Any:
    have = int(value.shape[0])
    if target < have:
        raise ValueError(f"{where}: {what}: {have} rows cannot be padded to {target}")
    pad = xp.full((target - have,) + value.shape[1:], fill, dtype=value.dtype)
    return xp.concatenate([value, pad])


class Pad(SaidLevels, BaseTransform):
    """Pad node arrays to ``max_num_nodes`` rows and edge arrays to ``max_num_edges``
    (PyG's ``Pad``; an int, or a dict by node / edge type for a ``HeteroData``;
    ``max_num_edges`` defaults to the square / product of the node counts).

    Node arrays get ``node_pad_value`` (``train_mask`` / ``val_mask`` / ``test_mask``:
    ``mask_pad_value``), edge arrays ``edge_pad_value``, padded edges join the first
    padding node(s) (``edge_index`` padded with the old source / destination counts).
    ``add_pad_mask=True`` adds ``pad_node_mask`` / ``pad_edge_mask`` (``True`` for real
    entries). ``exclude_keys`` are dropped. ``num_nodes`` becomes ``max_num_nodes``. A
    ``Data`` says its levels with ``node_attrs=`` / ``edge_attrs=`` / ``graph_attrs=``
    (PyG guesses by length); in a ``HeteroData`` node stores hold per-node arrays and edge
    stores per-edge arrays. Too small a target is a ``ValueError``.

    >>> import numpy as np
    >>> from arraygnn.hetero_data import HeteroData
    >>> h = HeteroData(a={"x": np.ones((1, 2))}, b={"num_nodes": 2})
    >>> h["a", "to", "b"].edge_index = np.array([[0], [1]])
    >>> out = Pad({"a": 2, "b": 3}, node_pad_value=NodeTypePadding({"a": -1.0}))(h)
    >>> out["a"].x.tolist(), out["a", "to", "b"].edge_index.tolist()
    ([[1.0, 1.0], [-1.0, -1.0]], [[0, 1, 1, 1, 1, 1], [1, 2, 2, 2, 2, 2]])
    """

    def __init__(
        self,
        max_num_nodes: int | dict[str, int],
        max_num_edges: int | dict[tuple[str, str, str], int] | None = None,
        node_pad_value: int | float | UniformPadding = 0.0,
        edge_pad_value: int | float | UniformPadding = 0.0,
        mask_pad_value: bool = False,
        add_pad_mask: bool = False,
        exclude_keys: list[str] | None = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        where = "Pad"
        self.max_num_nodes = max_num_nodes
        if max_num_edges is None and isinstance(max_num_nodes, int):
            max_num_edges = max_num_nodes * max_num_nodes
        self.max_num_edges = max_num_edges
        self.node_pad = _padding(where, "node_pad_value", node_pad_value)
        self.edge_pad = _padding(where, "edge_pad_value", edge_pad_value)
        self.mask_pad_value = mask_pad_value
        self.add_pad_mask = add_pad_mask
        self.exclude_keys = set(exclude_keys or [])
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def _nodes(self, node_type: Any) -> int:
        m = self.max_num_nodes
        if isinstance(m, dict):
            if node_type not in m:
                raise ValueError(f"Pad: max_num_nodes has no entry for node type {node_type!r}")
            return int(m[node_type])
        return int(m)

    def _edges(self, edge_type: Any) -> int:
        m = self.max_num_edges
        if isinstance(m, dict) and edge_type in m:
            return int(m[edge_type])
        if m is None or isinstance(m, dict):
            return self._nodes(edge_type[0]) * self._nodes(edge_type[-1])
        return int(m)

    def _node_fill(self, key: str, node_type: Any) -> Any:
        if key in _MASKS:
            return self.mask_pad_value
        return self.node_pad.get_value(node_type, key)

    def _pad_edges(self, xp, store, keys, sizes, edge_type) -> None:  # noqa: ANN001
        where = "Pad"
        what = "edges" if edge_type is None else f"edge type {edge_type!r}"
        target = self._edges(edge_type)
        ei = store["edge_index"]
        have = int(ei.shape[1])
        if target < have:
            raise ValueError(f"Pad: {what}: {have} edges cannot be padded to {target}")
        pad = xp.empty((2, target - have), dtype=ei.dtype)
        pad[0], pad[1] = sizes
        store["edge_index"] = xp.concatenate([ei, pad], axis=1)
        for k in keys:
            fill = self.edge_pad.get_value(edge_type, k)
            store[k] = _pad_rows(xp, store[k], target, fill, where, f"{what} {k!r}")
        if self.add_pad_mask:
            store["pad_edge_mask"] = xp.arange(target) < have

    def _pad_nodes(self, xp, store, keys, have, node_type) -> None:  # noqa: ANN001
        target = self._nodes(node_type)
        what = "nodes" if node_type is None else f"node type {node_type!r}"
        if target < have:
            raise ValueError(f"Pad: {what}: {have} nodes cannot be padded to {target}")
        for k in keys:
            store[k] = _pad_rows(xp, store[k], target, self._node_fill(k, node_type), "Pad", k)
        if self.add_pad_mask and keys:  # PyG: only a store with node arrays
            store["pad_node_mask"] = xp.arange(target) < have
        store["num_nodes"] = target

    def forward(self, data: Any) -> Any:
        where = "Pad"
        hetero = check_data(where, data)
        xp = namespace_of(data)
        if not hetero:
            for k in self.exclude_keys:
                data[k] = None
            levels = self.levels(where, data)
            _kind(where, "node_pad_value", self.node_pad, None)
            _kind(where, "edge_pad_value", self.edge_pad, None)
            n = node_count(where, data)
            if "edge_index" in data:
                self._pad_edges(xp, data, levels.edge, (n, n), None)
            self._pad_nodes(xp, data, levels.node, n, None)
            return data
        return self._hetero(xp, data)

    def _hetero(self, xp: Any, data: HeteroData) -> HeteroData:
        where = "Pad"
        _kind(where, "node_pad_value", self.node_pad, NodeTypePadding)
        _kind(where, "edge_pad_value", self.edge_pad, EdgeTypePadding)
        counts = {t: node_count(where, s, f"node type {t!r}") for t, s in data.node_items()}
        for et, store in data.edge_items():
            for k in self.exclude_keys:
                store[k] = None
            if "edge_index" in store:
                sizes = (counts[et[0]], counts[et[-1]])
                self._pad_edges(xp, store, hetero_edge_keys(where, store), sizes, et)
        for t, store in data.node_items():
            for k in self.exclude_keys:
                store[k] = None
            keys = [k for k, v in store.items() if is_array(v)]
            self._pad_nodes(xp, store, keys, counts[t], t)
        return data

    def __repr__(self) -> str:
        return (
            f"Pad(max_num_nodes={self.max_num_nodes}, max_num_edges={self.max_num_edges}, "
            f"node_pad_value={self.node_pad}, edge_pad_value={self.edge_pad})"
        )
