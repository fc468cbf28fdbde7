"""``HeteroData``: PyG's heterogeneous graph on NumPy / CuPy arrays.

One store of named arrays per node type (``data['paper']``), one per edge type
(``data['author', 'writes', 'paper']``) and graph-level attributes on the object itself
(``data.y``), with PyG's access rules, ``*_dict`` views, ``metadata()``,
``to_homogeneous()`` and collation hooks (batched by :mod:`arraygnn.hetero_batch`).

>>> import numpy as np
>>> data = HeteroData()
>>> data["paper"].x = np.zeros((3, 4), np.float32)
>>> data["author"].num_nodes = 2
>>> data["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 0, 2]])
>>> data.metadata()
(['paper', 'author'], [('author', 'writes', 'paper')])
>>> data["writes"].num_edges, data.num_nodes
(3, 5)
>>> data
HeteroData(
  paper={ x=[3, 4] },
  author={ num_nodes=2 },
  (author, writes, paper)={ edge_index=[2, 3] }
)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array, to_device, to_numpy
from arraygnn.data import (
    Data,
    _warn_invalid,
    check_index_range,
    check_node_count_rows,
    node_count,
)

__all__ = ["HeteroData", "NodeStore", "EdgeStore", "DEFAULT_REL"]

NodeType = str
EdgeType = tuple[str, str, str]
StoreKey = NodeType | EdgeType

DEFAULT_REL = "to"
"""Relation name PyG gives ``data['src', 'dst']`` when no such edge type exists yet."""

# keys to_homogeneous never merges as features (PyG's list)
_STRUCTURE_KEYS = ("edge_index", "edge_label_index", "adj", "adj_t")


class _MissingKey(KeyError, AttributeError):
    """Raised by ``data.<key>_dict`` when no store holds ``key``: a ``KeyError`` as in PyG,
    and an ``AttributeError`` so that ``hasattr`` and ``getattr(..., default)`` work."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _type_name(key: StoreKey) -> str:
    if key is None:  # the graph-level store of HeteroData.stores
        return "the graph level"
    return f"node type {key!r}" if isinstance(key, str) else f"edge type {key!r}"


class _Store:
    """Named values of one node or edge type; attribute and item access (as PyG's)."""

    def __init__(self, key: StoreKey, parent: HeteroData | None = None) -> None:
        object.__setattr__(self, "_mapping", {})
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_parent_ref", None if parent is None else weakref.ref(parent))

    def _parent(self) -> HeteroData:
        parent = None if self._parent_ref is None else self._parent_ref()
        if parent is None:
            raise RuntimeError(f"the store of {_type_name(self._key)} has no HeteroData any more")
        return parent

    # ---------------------------------------------------------------- access
    def __getattr__(self, key: str) -> Any:
        mapping = self.__dict__.get("_mapping")
        if mapping is not None and key in mapping:
            return mapping[key]
        where = _type_name(self.__dict__.get("_key", "?"))
        raise AttributeError(f"the store of {where} has no attribute {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        prop = getattr(type(self), key, None)
        if key.startswith("_") or (isinstance(prop, property) and prop.fset is not None):
            object.__setattr__(self, key, value)
        elif value is None:  # a read-only property's name is a plain key, as PyG's stores
            self._mapping.pop(key, None)
        else:
            self._mapping[key] = value

    def __delattr__(self, key: str) -> None:
        if key in self._mapping:
            del self._mapping[key]
        else:
            object.__delattr__(self, key)

    def __getitem__(self, key: str) -> Any:
        try:
            return self._mapping[key]
        except KeyError:
            raise KeyError(f"the store of {_type_name(self._key)} has no key {key!r}") from None

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"store keys are strings, got {type(key).__name__}")
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._mapping[key]

    def __contains__(self, key: object) -> bool:
        return key in self._mapping

    def __iter__(self) -> Iterator[str]:
        """Iterate over the keys (a store is a mapping, as in PyG)."""
        return iter(self._mapping)

    def __len__(self) -> int:
        return len(self._mapping)

    def keys(self) -> list[str]:
        """The keys, in insertion order."""
        return list(self._mapping)

    def values(self) -> list[Any]:
        return list(self._mapping.values())

    def items(self) -> list[tuple[str, Any]]:
        return list(self._mapping.items())

    def get(self, key: str, default: Any = None) -> Any:
        return self._mapping.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        """A new dict of the values (the values themselves are shared)."""
        return dict(self._mapping)

    def update(self, mapping: Mapping[str, Any]) -> _Store:
        """Set every ``key: value`` of ``mapping`` (``None`` removes a key)."""
        for key, value in mapping.items():
            self[key] = value
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {"_mapping": self._mapping, "_key": self._key}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "_mapping", state["_mapping"])
        object.__setattr__(self, "_key", state["_key"])
        object.__setattr__(self, "_parent_ref", None)

    def __repr__(self) -> str:
        from arraygnn.data import _describe

        body = ", ".join(f"{k}={_describe(v)}" for k, v in self._mapping.items())
        return (
            f"{type(self).__name__}({self._key!r}, {body})"
            if body
            else (f"{type(self).__name__}({self._key!r})")
        )


class NodeStore(_Store):
    """The arrays of one node type (``data['paper']``).

    RULE: ``num_nodes`` is an explicit ``num_nodes`` value if set, else the length of the
      first of ``x``, ``feat``, ``pos``, ``batch``, ``node_type``, ``n_id`` present, else
      ``None`` (as :class:`arraygnn.Data`; never ``edge_index.max() + 1``).

    >>> import numpy as np
    >>> d = HeteroData(paper={"x": np.zeros((3, 2))})
    >>> d["paper"].num_nodes, d["paper"].keys()
    (3, ['x'])
    """

    @property
    def num_nodes(self) -> int | None:
        """Explicit ``num_nodes`` if set, else the rows of ``x`` / ``pos`` / ... (see
        :func:`arraygnn.data.node_count`), else ``None``."""
        return node_count(self._mapping)

    @num_nodes.setter
    def num_nodes(self, value: int | None) -> None:
        if value is None:
            self._mapping.pop("num_nodes", None)
            return
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"num_nodes of {_type_name(self._key)} must be an int, got {value!r}")
        if value < 0:
            raise ValueError(f"num_nodes of {_type_name(self._key)} must be >= 0, got {value}")
        self._mapping["num_nodes"] = int(value)

    @property
    def num_node_features(self) -> int:
        """The width of ``x`` (1 when 1-D, 0 without ``x``), as PyG's store property."""
        from arraygnn.data import _width

        return _width(self._mapping.get("x"))

    @property
    def num_features(self) -> int:
        """:attr:`num_node_features` (PyG's alias)."""
        return self.num_node_features


class EdgeStore(_Store):
    """The arrays of one edge type (``data['author', 'writes', 'paper']``).

    ``edge_index`` is [2, E]: row 0 holds ids of the source node type, row 1 ids of the
    destination node type.

    >>> import numpy as np
    >>> d = HeteroData()
    >>> d["a"].num_nodes, d["b"].num_nodes = 2, 3
    >>> d["a", "to", "b"].edge_index = np.array([[0, 1], [2, 2]])
    >>> d["a", "to", "b"].num_edges, d["a", "to", "b"].size()
    (2, (2, 3))
    """

    @property
    def num_edges(self) -> int:
        """An explicit integer ``num_edges`` if set (PyG's), else ``edge_index.shape[1]``,
        else the rows of the first of ``edge_weight`` / ``edge_attr`` / ``edge_type`` /
        ``e_id`` present, else PyG's further fallbacks (an ``'edge'`` key, a sparse
        ``adj_t``'s entries), else 0 (:func:`arraygnn.data.edge_count`)."""
        from arraygnn.data import edge_count

        return edge_count(self._mapping)

    def size(self, dim: int | None = None) -> Any:
        """``(num source nodes, num destination nodes)`` (or one of them for ``dim``)."""
        parent = self._parent()
        src, _, dst = self._key
        out = (
            parent._nodes[src].num_nodes if src in parent._nodes else None,
            parent._nodes[dst].num_nodes if dst in parent._nodes else None,
        )
        return out if dim is None else out[dim]

    @property
    def num_edge_features(self) -> int:
        """The width of ``edge_attr`` (1 when 1-D, 0 without it), as PyG's store property."""
        from arraygnn.data import _width

        return _width(self._mapping.get("edge_attr"))

    @property
    def num_features(self) -> int:
        """:attr:`num_edge_features` (PyG's alias)."""
        return self.num_edge_features


def _size_repr(key: Any, value: Any, indent: int = 0) -> str:
    """One ``key=value`` entry of PyG's printout (shapes for arrays)."""
    pad = " " * indent
    if is_array(value) and value.ndim == 0:
        out = str(value.item())
    elif is_array(value) or (hasattr(value, "shape") and not isinstance(value, np.generic)):
        out = str(list(value.shape))
    elif isinstance(value, str):
        out = f"'{value}'"
    elif isinstance(value, (list, tuple, set)):
        out = str([len(value)])
    elif isinstance(value, (Mapping, _Store)) and len(value) == 0:
        out = "{}"
    elif isinstance(value, (Mapping, _Store)):
        items = list(value.items())
        if len(items) == 1 and not isinstance(items[0][1], (Mapping, _Store)):
            out = "{ " + _size_repr(*items[0]) + " }"
        else:
            lines = [_size_repr(k, v, indent + 2) for k, v in items]
            out = "{\n" + ",\n".join(lines) + ",\n" + pad + "}"
    else:
        out = str(value)
    return f"{pad}{str(key).replace(chr(39), '')}={out}"


class HeteroData:
    """A heterogeneous graph: node stores, edge stores and graph-level attributes.

    ``data['paper']`` is the store of node type ``'paper'``, ``data['author', 'writes',
    'paper']`` the store of that edge type (both made on first access, as in PyG);
    ``data['writes']`` and ``data['author', 'paper']`` name an edge type by its relation,
    or by its end types, when exactly one edge type matches (``KeyError`` listing them when
    several do; a pair that matches none names ``(src, 'to', dst)``). Attributes set on the
    object itself (``data.y = ...``) are graph-level. ``data.<key>_dict`` is
    ``data.collect('<key>')``: ``{type: value}`` over the node and edge stores holding it.

    Collation hooks (override them in a subclass, as in PyG); ``store`` is the
    :class:`NodeStore` / :class:`EdgeStore` holding the value, ``None`` for graph-level:

    - ``__cat_dim__(key, value, store)``: ``-1`` for a key containing ``'index'`` in an
      edge store, else ``0``.
    - ``__inc__(key, value, store)``: for a key containing ``'index'`` in an edge store,
      ``[[num source nodes], [num destination nodes]]`` (row 0 is increased by the source
      type's count, row 1 by the destination type's); else ``0``.

    RULE: a node type's ``num_nodes`` is an explicit ``num_nodes`` if set, else the rows
      of its ``x`` / ``feat`` / ``pos`` / ``batch`` / ``node_type`` / ``n_id`` (the first
      present), else ``None`` (never ``edge_index.max() + 1``).
    RULE: nothing the user passed is modified by any method.

    >>> import numpy as np
    >>> d = HeteroData(paper={"x": np.ones((2, 3))}, y=np.array([1.0]))
    >>> d["author"].x = np.ones((4, 3))
    >>> d["author", "writes", "paper"].edge_index = np.array([[0, 3], [1, 1]])
    >>> sorted(d.x_dict), d.y.tolist(), d.num_nodes, d.num_edges
    (['author', 'paper'], [1.0], 6, 2)
    """

    def __init__(self, _mapping: Mapping[Any, Any] | None = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_global", {})
        object.__setattr__(self, "_nodes", {})
        object.__setattr__(self, "_edges", {})
        for key, value in chain((_mapping or {}).items(), kwargs.items()):
            if isinstance(key, str) and "__" in key and isinstance(value, Mapping):
                key = tuple(key.split("__"))
            if isinstance(value, Mapping):
                self[key].update(value)
            else:
                setattr(self, key, value)

    # ---------------------------------------------------------------- stores
    @property
    def node_types(self) -> list[NodeType]:
        """Node types, in the order they were made."""
        return list(self._nodes)

    @property
    def edge_types(self) -> list[EdgeType]:
        """Edge types ``(src, rel, dst)``, in the order they were made."""
        return list(self._edges)

    @property
    def node_stores(self) -> list[NodeStore]:
        return list(self._nodes.values())

    @property
    def edge_stores(self) -> list[EdgeStore]:
        return list(self._edges.values())

    def node_items(self) -> list[tuple[NodeType, NodeStore]]:
        return list(self._nodes.items())

    def edge_items(self) -> list[tuple[EdgeType, EdgeStore]]:
        return list(self._edges.items())

    @property
    def stores(self) -> list[_Store]:
        """PyG's ``stores``: the graph-level store (a live view of the graph-level
        attributes), then the node stores, then the edge stores."""
        glob = _Store(None, self)
        object.__setattr__(glob, "_mapping", self._global)
        return [glob, *self._nodes.values(), *self._edges.values()]

    @property
    def num_node_features(self) -> dict[NodeType, int]:
        """``{node_type: width of x}`` (0 without ``x``), as PyG's."""
        from arraygnn.data import _width

        return {t: _width(s._mapping.get("x")) for t, s in self._nodes.items()}

    @property
    def num_features(self) -> dict[NodeType, int]:
        """:attr:`num_node_features` (PyG's alias)."""
        return self.num_node_features

    @property
    def num_edge_features(self) -> dict[EdgeType, int]:
        """``{edge_type: width of edge_attr}`` (0 without it), as PyG's."""
        from arraygnn.data import _width

        return {t: _width(s._mapping.get("edge_attr")) for t, s in self._edges.items()}

    @property
    def is_cuda(self) -> bool:
        """Whether some value of some store is a CuPy array (or a CUDA torch tensor)."""
        from arraygnn.data import _on_gpu

        return any(_on_gpu(v) for store in self.stores for v in store._mapping.values())

    def to_dict(self) -> dict[Any, Any]:
        """PyG's layout: ``{'_global_store': {...}, node_type: {...}, edge_type: {...}}``
        (new dicts, the values shared); :meth:`from_dict` reads it back."""
        out: dict[Any, Any] = {"_global_store": dict(self._global)}
        for t, store in chain(self._nodes.items(), self._edges.items()):
            out[t] = store.to_dict()
        return out

    @classmethod
    def from_dict(cls, mapping: Mapping[Any, Any]) -> HeteroData:
        """PyG's ``HeteroData.from_dict``: ``'_global_store'`` the graph-level values, a
        string key a node type, a ``(src, rel, dst)`` key an edge type."""
        where = f"{cls.__name__}.from_dict"
        if not isinstance(mapping, Mapping):
            raise TypeError(f"{where}: mapping must be a mapping, got {type(mapping).__name__}")
        out = cls()
        for key, value in mapping.items():
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"{where}: the value of {key!r} must be a mapping of attribute names to "
                    f"values, got {type(value).__name__}"
                )
            if key == "_global_store":
                for name, v in value.items():
                    setattr(out, name, v)
            elif isinstance(key, str):
                out.get_node_store(key).update(value)
            elif isinstance(key, tuple) and len(key) == 3:
                out.get_edge_store(*key).update(value)
            else:
                raise TypeError(
                    f"{where}: key {key!r} is neither '_global_store', a node type (str) nor "
                    "an edge type (src, rel, dst)"
                )
        return out

    def contiguous(self, *args: str) -> HeteroData:
        """A new object whose arrays (those named in ``args``, else all) are C-contiguous,
        in every store (PyG's ``contiguous``; absent names ignored)."""
        from arraygnn.data import _contiguous

        out = self.copy()
        for store in out.stores:
            for key, value in store._mapping.items():
                if is_array(value) and (not args or key in args):
                    store._mapping[key] = _contiguous(value)
        return out

    def metadata(self) -> tuple[list[NodeType], list[EdgeType]]:
        """``(node_types, edge_types)``, as PyG's (the input of HeteroConv-style models)."""
        return self.node_types, self.edge_types

    def get_node_store(self, key: NodeType) -> NodeStore:
        """The store of node type ``key`` (made if missing)."""
        if not isinstance(key, str):
            raise TypeError(f"node types are strings, got {key!r}")
        out = self._nodes.get(key)
        if out is None:
            if key in self._global:
                raise KeyError(f"{key!r} is a graph-level attribute, not a node type")
            out = self._nodes[key] = NodeStore(key, self)
        return out

    def get_edge_store(self, src: str, rel: str, dst: str) -> EdgeStore:
        """The store of edge type ``(src, rel, dst)`` (made if missing)."""
        key = (src, rel, dst)
        if not all(isinstance(s, str) for s in key):
            raise TypeError(f"edge types are (src, rel, dst) strings, got {key!r}")
        out = self._edges.get(key)
        if out is None:
            out = self._edges[key] = EdgeStore(key, self)
        return out

    def _to_canonical(self, *args: Any) -> Any:
        """A node type, a full edge type, or a graph-level key (PyG's shorthand rules)."""
        key = args[0] if len(args) == 1 else args
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, str):
            if key in self._nodes:
                return key
            hits = [e for e in self._edges if e[1] == key]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                raise KeyError(
                    f"relation {key!r} is ambiguous: edge types {hits} use it; give the full "
                    "(src, rel, dst)"
                )
            return key
        if isinstance(key, tuple) and all(isinstance(s, str) for s in key):
            if len(key) == 3:
                return key
            if len(key) == 2:
                hits = [e for e in self._edges if e[0] == key[0] and e[2] == key[1]]
                if len(hits) == 1:
                    return hits[0]
                if len(hits) > 1:
                    raise KeyError(
                        f"({key[0]!r}, {key[1]!r}) is ambiguous: edge types {hits} join "
                        "these node types; give the full (src, rel, dst)"
                    )
                return (key[0], DEFAULT_REL, key[1])
        raise KeyError(
            f"{key!r} is not a node type (a string), an edge type (src, rel, dst) or a "
            "(src, dst) pair"
        )

    def __getitem__(self, *args: Any) -> Any:
        key = self._to_canonical(*args)
        if isinstance(key, tuple):
            return self.get_edge_store(*key)
        if key in self._global:
            return self._global[key]
        return self.get_node_store(key)

    def __setitem__(self, key: str, value: Any) -> None:
        """``data['y'] = value`` sets a graph-level attribute (as PyG's)."""
        if not isinstance(key, str):
            raise TypeError(
                f"data[{key!r}] = ... sets graph-level attributes only; set a store's "
                "attribute instead (data[edge_type].edge_index = ...)"
            )
        setattr(self, key, value)

    def __delitem__(self, *args: Any) -> None:
        key = self._to_canonical(*args)
        if isinstance(key, tuple) and key in self._edges:
            del self._edges[key]
        elif isinstance(key, str) and key in self._nodes:
            del self._nodes[key]
        elif isinstance(key, str) and key in self._global:
            del self._global[key]
        else:
            raise KeyError(f"{key!r} is neither a node type, an edge type nor an attribute")

    def __getattr__(self, key: str) -> Any:
        d = self.__dict__
        glob = d.get("_global")
        if glob is not None and key in glob:
            return glob[key]
        if glob is not None and key.endswith("_dict") and len(key) > 5:
            try:
                return self.collect(key[:-5])
            except _MissingKey:  # name the attribute asked for, not only the collected key
                raise _MissingKey(
                    f"'{type(self).__name__}' object has no attribute {key!r} (and no node or "
                    f"edge type holds {key[:-5]!r} for data.{key})"
                ) from None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        if key.startswith("_") or isinstance(getattr(type(self), key, None), property):
            object.__setattr__(self, key, value)
            return
        if key in self._nodes:
            raise AttributeError(f"{key!r} is already a node type")
        if value is None:
            self._global.pop(key, None)
        else:
            self._global[key] = value

    def __delattr__(self, key: str) -> None:
        if key in self._global:
            del self._global[key]
        else:
            object.__delattr__(self, key)

    def collect(self, key: str, allow_empty: bool = False) -> dict[StoreKey, Any]:
        """``{type: value}`` of ``key`` over the node stores, then the edge stores.

        ``num_nodes`` / ``num_edges`` are collected from the stores' properties. Raises
        ``KeyError`` when no store holds ``key`` (unless ``allow_empty``).
        """
        out: dict[StoreKey, Any] = {}
        for t, store in chain(self._nodes.items(), self._edges.items()):
            if key in store._mapping:
                out[t] = store._mapping[key]
            elif key == "num_nodes" and isinstance(store, NodeStore):
                out[t] = store.num_nodes
            elif key == "num_edges" and isinstance(store, EdgeStore):
                out[t] = store.num_edges
        if not out and not allow_empty:
            raise _MissingKey(f"no node or edge type holds {key!r}")
        return out

    def set_value_dict(self, key: str, value_dict: Mapping[StoreKey, Any] | None) -> HeteroData:
        """``self[t].<key> = value`` for every ``t: value`` of ``value_dict`` (in place, returns
        ``self``, as PyG's; ``None`` sets nothing). Types are named as in ``data[...]``."""
        if value_dict is None:
            return self
        if not isinstance(value_dict, Mapping):
            raise TypeError(
                "set_value_dict: value_dict must map node / edge types to values, got "
                f"{type(value_dict).__name__}"
            )
        for t, v in value_dict.items():
            self[t][key] = v
        return self

    # ---------------------------------------------------------------- keys, sizes
    def keys(self) -> list[str]:
        """Every attribute name (graph-level, node stores, edge stores), each once."""
        seen: dict[str, None] = dict.fromkeys(self._global)
        for store in chain(self._nodes.values(), self._edges.values()):
            seen.update(dict.fromkeys(store._mapping))
        return list(seen)

    def __contains__(self, key: object) -> bool:
        """Whether some store (or the graph level) holds attribute ``key`` (PyG's rule)."""
        return key in self._global or any(
            key in s._mapping for s in chain(self._nodes.values(), self._edges.values())
        )

    def __len__(self) -> int:
        return len(self.keys())

    @property
    def num_nodes(self) -> int | None:
        """Sum of the node types' ``num_nodes`` (``None`` when one is unknown)."""
        counts = [s.num_nodes for s in self._nodes.values()]
        return None if any(c is None for c in counts) else int(sum(counts))

    @property
    def num_edges(self) -> int:
        """Sum of the edge types' ``num_edges``."""
        return int(sum(s.num_edges for s in self._edges.values()))

    @property
    def node_offsets(self) -> dict[NodeType, int]:
        """``{node_type: number of nodes of the types before it}`` in ``node_types`` order,
        where ``to_homogeneous`` places each type (PyG's). ``ValueError`` when a type's
        ``num_nodes`` is unknown.

        >>> HeteroData(a={"num_nodes": 2}, b={"num_nodes": 3}).node_offsets
        {'a': 0, 'b': 2}
        """
        return self._offsets("node_offsets")[0]

    def _offsets(self, where: str) -> tuple[dict[NodeType, int], int]:
        """``({node_type: nodes of the types before it}, total nodes)``; ``ValueError``
        naming ``where`` when a type's ``num_nodes`` is unknown."""
        offsets, total = {}, 0
        for t, n in self._node_counts(where).items():
            offsets[t], total = total, total + n
        return offsets, total

    def _node_counts(
        self, where: str, hint: str = "give x, pos or num_nodes="
    ) -> dict[NodeType, int]:
        """``{node_type: num_nodes}`` in ``node_types`` order; a ``ValueError`` naming
        ``where`` and the type (with ``hint``) when one is unknown."""
        counts = {}
        for t, s in self._nodes.items():
            n = s.num_nodes
            if n is None:
                raise ValueError(f"{where}: num_nodes of node type {t!r} is unknown ({hint})")
            counts[t] = n
        return counts

    def size(self, dim: int | None = None) -> Any:
        """``(num_nodes, num_nodes)`` over all types, or its ``dim`` entry (PyG's)."""
        size = (self.num_nodes, self.num_nodes)
        return size if dim is None else size[dim]

    def to_namedtuple(self) -> tuple:
        """PyG's: a ``DataTuple`` of the graph-level values, then one namedtuple per node
        store and per edge store (fields: the keys), named by the type
        (``'src__rel__dst'`` for an edge type); values shared.

        >>> import numpy as np
        >>> t = HeteroData(a={"num_nodes": 2}, y=1).to_namedtuple()
        >>> t._fields, t.a.num_nodes
        (('y', 'a'), 2)
        """
        from collections import namedtuple

        def store_tuple(store: _Store) -> tuple:
            fields = list(store._mapping)
            return namedtuple(f"{type(store).__name__}Tuple", fields)(**store._mapping)

        names = list(self._global)
        values = list(self._global.values())
        for t, store in chain(self._nodes.items(), self._edges.items()):
            names.append("__".join(t) if isinstance(t, tuple) else t)
            values.append(store_tuple(store))
        return namedtuple("DataTuple", names)(*values)

    def update(self, data: HeteroData) -> HeteroData:
        """Set every value of ``data`` (graph-level, node and edge stores, types made where
        missing) on ``self``, **in place**, and return ``self`` (PyG's; existing keys are
        overwritten).

        >>> d = HeteroData(a={"num_nodes": 2}).update(HeteroData(b={"num_nodes": 1}, y=1))
        >>> d.metadata(), d.y
        ((['a', 'b'], []), 1)
        """
        if not isinstance(data, HeteroData):
            raise TypeError(f"update: data must be a HeteroData, got {type(data).__name__}")
        for key, value in data._global.items():
            setattr(self, key, value)
        for t, store in data._nodes.items():
            self.get_node_store(t).update(store._mapping)
        for t, store in data._edges.items():
            self.get_edge_store(*t).update(store._mapping)
        return self

    def concat(self, data: HeteroData) -> HeteroData:
        """PyG's ``concat``: a new object with every store of ``self`` joined with the same
        type's store of ``data`` (same types and keys): arrays along their
        ``__cat_dim__`` (``edge_index`` NOT increased: this is no batch), lists appended,
        ``num_nodes`` / ``num_edges`` added; graph-level values too. Other values are a
        ``TypeError``, as in PyG.

        >>> d = HeteroData(a={"num_nodes": 2}).concat(HeteroData(a={"num_nodes": 3}))
        >>> d["a"].num_nodes
        5
        """
        from arraygnn.data import _joined

        where = f"{type(self).__name__}.concat"
        if not isinstance(data, HeteroData):
            raise TypeError(f"{where}: data must be a HeteroData, got {type(data).__name__}")
        if self.node_types != data.node_types or self.edge_types != data.edge_types:
            raise ValueError(
                f"{where}: both objects need the same node and edge types; self has "
                f"{self.metadata()}, data has {data.metadata()}"
            )
        out = self.copy()
        for mine, theirs, name, store in zip(
            out.stores, data.stores, ["the graph level", *out.node_types, *out.edge_types],
            [None, *out.node_stores, *out.edge_stores],
        ):  # fmt: skip
            if set(mine._mapping) != set(theirs._mapping):
                raise ValueError(
                    f"{where}: {name!r} needs the same keys in both objects; self has "
                    f"{sorted(mine._mapping)}, data has {sorted(theirs._mapping)}"
                )
            for key, value in mine._mapping.items():

                def cat(k: str, v: Any, _store: Any = store) -> Any:
                    return self.__cat_dim__(k, v, _store)

                mine._mapping[key] = _joined(where, key, value, theirs._mapping[key], cat)
        return out

    def generate_ids(self) -> None:
        """Set ``n_id`` (``arange(num_nodes)``) in every node store and ``e_id``
        (``arange(num_edges)``) in every edge store, int64, **in place** (PyG's).

        >>> d = HeteroData(a={"num_nodes": 2})
        >>> d.generate_ids()
        >>> d["a"].n_id.tolist()
        [0, 1]
        """
        arrays = [v for s in self.stores for v in s._mapping.values() if is_array(v)]
        xp = get_namespace(*arrays) if arrays else np
        for t, n in self._node_counts("generate_ids").items():
            self._nodes[t]._mapping["n_id"] = xp.arange(n, dtype=np.int64)
        for store in self._edges.values():
            store._mapping["e_id"] = xp.arange(store.num_edges, dtype=np.int64)

    # ---------------------------------------------------------------- hooks
    def __cat_dim__(self, key: str, value: Any, store: Any = None, *args: Any, **kw: Any) -> Any:
        """Default: ``-1`` for an ``'index'`` key of an edge store, else ``0``."""
        if isinstance(store, EdgeStore) and "index" in key:
            return -1
        return 0

    def __inc__(self, key: str, value: Any, store: Any = None, *args: Any, **kw: Any) -> Any:
        """Default: ``[[n_src], [n_dst]]`` for an ``'index'`` key of an edge store, else 0."""
        if isinstance(store, EdgeStore) and "index" in key:
            n_src, n_dst = store.size()
            if n_src is None or n_dst is None:
                src, _, dst = store._key
                missing = src if n_src is None else dst
                raise ValueError(
                    f"edge type {store._key!r}: key {key!r} is increased by the node counts, "
                    f"but num_nodes of node type {missing!r} is unknown (give x, pos or "
                    "num_nodes=; it is never guessed from edge_index.max() + 1)"
                )
            return np.array([[n_src], [n_dst]], dtype=np.int64)
        return 0

    # ---------------------------------------------------------------- copies
    def _fresh(self) -> HeteroData:
        out = type(self).__new__(type(self))
        for name, value in self.__dict__.items():
            if name not in ("_global", "_nodes", "_edges"):
                object.__setattr__(out, name, dict(value) if isinstance(value, dict) else value)
        object.__setattr__(out, "_global", dict(self._global))
        object.__setattr__(out, "_nodes", {})
        object.__setattr__(out, "_edges", {})
        return out

    def copy(self) -> HeteroData:
        """A shallow copy of the same class: new stores, the values shared."""
        return self.apply(lambda v: v)

    def __copy__(self) -> HeteroData:
        return self.copy()

    def clone(self) -> HeteroData:
        """A deep copy of the same class (PyG's ``clone``): new stores, every array copied,
        every other value deep-copied."""
        import copy

        return copy.deepcopy(self)

    def apply(self, fn: Callable[[Any], Any], *args: str) -> HeteroData:
        """A new object with ``fn`` applied to every NumPy / CuPy array of every store
        (those named in ``args``, else all). PyG's changes the object in place and returns
        it; this leaves it alone."""

        def f(k: str, v: Any) -> Any:
            return fn(v) if is_array(v) and (not args or k in args) else v

        out = self._fresh()
        for k, v in out._global.items():
            out._global[k] = f(k, v)
        for t, s in self._nodes.items():
            ns = out._nodes[t] = NodeStore(t, out)
            ns._mapping.update({k: f(k, v) for k, v in s._mapping.items()})
        for t, s in self._edges.items():
            es = out._edges[t] = EdgeStore(t, out)
            es._mapping.update({k: f(k, v) for k, v in s._mapping.items()})
        return out

    def to(self, device: str) -> HeteroData:
        """A new object with every array on ``device`` (``'cpu'``, ``'cuda'``, ``'cuda:N'``);
        arrays already there are shared."""
        return self.apply(lambda v: to_device(v, device))

    def cpu(self) -> HeteroData:
        return self.to("cpu")

    def cuda(self) -> HeteroData:
        return self.to("cuda")

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_nodes", "_edges")}
        state["_nodes"] = {t: s._mapping for t, s in self._nodes.items()}
        state["_edges"] = {t: s._mapping for t, s in self._edges.items()}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            if k not in ("_nodes", "_edges"):
                object.__setattr__(self, k, v)
        object.__setattr__(self, "_nodes", {})
        object.__setattr__(self, "_edges", {})
        for t, m in state["_nodes"].items():
            self.get_node_store(t)._mapping.update(m)
        for t, m in state["_edges"].items():
            self.get_edge_store(*t)._mapping.update(m)

    # ---------------------------------------------------------------- checks
    def validate(self, raise_on_error: bool = True) -> bool:
        """Check the graph; raise ``ValueError`` / ``TypeError`` naming the type at fault
        (``raise_on_error=False``, PyG's keyword: warn with the message, return ``False``).

        Checks: arrays of one kind (all NumPy or all CuPy); every edge type's end types
        exist; ``x``, ``pos``, ... have ``num_nodes`` rows; every edge-store key containing
        ``'index'`` (``edge_index``, ``edge_label_index``) is an integer [2, E] array with row 0 in
        ``[0, num source nodes)`` and row 1 in ``[0, num destination nodes)``;
        ``edge_attr`` / ``edge_weight`` have ``num_edges`` rows. Returns ``True``.

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1})
        >>> d["a", "to", "b"].edge_index = np.array([[0, 1], [0, 1]])
        >>> d.validate()
        Traceback (most recent call last):
        ...
        ValueError: edge type ('a', 'to', 'b'): edge_index row 1 (destination 'b') holds node id...
        """
        if not raise_on_error:
            return _warn_invalid(self.validate)
        arrays = [v for v in self._global.values() if is_array(v)]
        for s in chain(self._nodes.values(), self._edges.values()):
            arrays += [v for v in s._mapping.values() if is_array(v)]
        get_namespace(*arrays)
        for t, s in self._nodes.items():
            check_node_count_rows(f"node type {t!r}", s._mapping, s.num_nodes)
        for et, s in self._edges.items():
            src, _, dst = et
            for end, role in ((src, "source"), (dst, "destination")):
                if end not in self._nodes:
                    raise ValueError(
                        f"edge type {et!r}: {role} node type {end!r} is not a node type of "
                        f"the graph (node types: {self.node_types})"
                    )
            for key, value in s._mapping.items():
                if "index" not in key or not is_array(value):
                    continue
                if value.ndim != 2 or value.shape[0] != 2:
                    raise ValueError(
                        f"edge type {et!r}: {key} must have shape [2, E], got {list(value.shape)}"
                    )
                for row, end, role in ((0, src, "source"), (1, dst, "destination")):
                    n = self._nodes[end].num_nodes
                    if n is None:
                        raise ValueError(
                            f"edge type {et!r}: num_nodes of {role} node type {end!r} is "
                            "unknown (give x, pos or num_nodes=)"
                        )
                    check_index_range(
                        value[row], n, f"edge type {et!r}: {key} row {row} ({role} {end!r})"
                    )
            for key in ("edge_attr", "edge_weight"):
                v = s._mapping.get(key)
                if v is not None and is_array(v) and "edge_index" in s._mapping:
                    if v.ndim == 0 or v.shape[0] != s.num_edges:
                        raise ValueError(
                            f"edge type {et!r}: {key} has shape {list(v.shape)} but there are "
                            f"{s.num_edges} edges"
                        )
        return True

    # ---------------------------------------------------------------- subgraphs
    def subgraph(self, subset_dict: Mapping[NodeType, Any]) -> HeteroData:
        """The subgraph induced by ``subset_dict`` (``{node type: index array or bool mask}``),
        as PyG's: a new object; node types not in the dict keep every node.

        For each given node type, node attributes (arrays whose ``__cat_dim__`` length is the
        type's ``num_nodes``) are sliced, an explicit ``num_nodes`` is updated; an index array
        keeps its order (node ``subset[i]`` becomes node ``i``). An edge type with
        ``edge_index`` keeps the edges whose both ends survive, relabelled (dtype kept, int64
        when it cannot hold the new ids), and slices its edge attributes (arrays of
        ``num_edges`` rows, keys holding ``'index'`` aside); edge types touching no given
        node type share their arrays unchanged.
        Raises ``KeyError`` (unknown node type), ``TypeError`` (float ids), ``ValueError``
        (mask of the wrong length, ids out of range or repeated, unknown ``num_nodes``).

        >>> import numpy as np
        >>> d = HeteroData(paper={"x": np.arange(4.0)[:, None]}, author={"num_nodes": 2})
        >>> d["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 3, 2]])
        >>> s = d.subgraph({"paper": np.array([3, 0])})
        >>> s["paper"].x.ravel().tolist(), s["writes"].edge_index.tolist()
        ([3.0, 0.0], [[0, 1], [1, 0]])
        >>> d.subgraph({"author": np.array([True, False])})["writes"].edge_index.tolist()
        [[0], [0]]
        """
        if not isinstance(subset_dict, Mapping):
            raise TypeError(
                f"subgraph: subset_dict must map node types to index arrays or bool masks, "
                f"got {type(subset_dict).__name__}"
            )
        arrays = [v for s in self._nodes.values() for v in s._mapping.values() if is_array(v)]
        arrays += [v for s in self._edges.values() for v in s._mapping.values() if is_array(v)]
        xp = get_namespace(*arrays) if arrays else np
        plans: dict[NodeType, tuple[Any, Any, int]] = {}  # type -> (kept ids, new id map, n)
        for t, subset in subset_dict.items():
            if not isinstance(t, str) or t not in self._nodes:
                raise KeyError(
                    f"subgraph: {t!r} is not a node type of the graph (node types: "
                    f"{self.node_types})"
                )
            plans[t] = _subset_plan(t, subset, self._nodes[t].num_nodes, xp)
        out = self.copy()
        for t, (ids, _, n) in plans.items():
            store, new = self._nodes[t], out._nodes[t]
            for key, value in store._mapping.items():
                if key == "num_nodes":
                    new._mapping[key] = int(ids.shape[0])
                elif is_array(value) and value.ndim >= 1:
                    dim = int(self.__cat_dim__(key, value, store) or 0)
                    if value.shape[dim] == n:
                        new._mapping[key] = xp.take(value, ids, axis=dim)
        for et, store in self._edges.items():
            src, _, dst = et
            ei = store._mapping.get("edge_index")
            if ei is None or (src not in plans and dst not in plans):
                continue
            if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
                raise ValueError(f"subgraph: edge type {et!r}: edge_index must be a [2, E] array")
            num_edges = int(ei.shape[1])
            keep = None
            rows = []
            for row, end, role in ((0, src, "source"), (1, dst, "destination")):
                if end not in plans:
                    rows.append(ei[row])
                    continue
                _, new_id, n = plans[end]
                check_index_range(
                    ei[row], n, f"subgraph: edge type {et!r}: edge_index row {row} ({role} {end!r})"
                )
                mapped = new_id[ei[row]]
                rows.append(mapped)
                keep = mapped >= 0 if keep is None else keep & (mapped >= 0)
            pos = xp.nonzero(keep)[0]
            new = out._edges[et]
            top = max(int(plans[end][0].shape[0]) - 1 for end in (src, dst) if end in plans)
            idt = ids_dtype_holding(ei.dtype, top)  # new ids widen to int64, never wrap
            new._mapping["edge_index"] = xp.stack([r[pos] for r in rows]).astype(idt)
            for key, value in store._mapping.items():
                if key == "edge_index" or "index" in key or not is_array(value) or value.ndim == 0:
                    continue
                dim = int(self.__cat_dim__(key, value, store) or 0)
                if value.shape[dim] == num_edges:
                    new._mapping[key] = xp.take(value, pos, axis=dim)
        return out

    def edge_subgraph(self, subset_dict: Mapping[Any, Any]) -> HeteroData:
        """The graph with only the edges ``subset_dict[edge_type]`` (edge ids in their order,
        repeats allowed, or a bool mask [num_edges]) of each named edge type, as PyG's: a new
        object; ``edge_index`` and the edge attributes (arrays of ``num_edges`` rows, keys
        holding ``'index'`` aside, as :meth:`subgraph`) take those rows; every node and
        every other edge type stay, arrays shared. An edge type is named as in
        ``data[...]`` (full, ``(src, dst)`` or its relation); one the graph lacks is a
        ``KeyError``, a bad subset a ``ValueError`` / ``TypeError``.

        >>> import numpy as np
        >>> d = HeteroData(paper={"num_nodes": 3})
        >>> d["paper", "cites", "paper"].edge_index = np.array([[0, 1, 2], [1, 2, 0]])
        >>> d.edge_subgraph({"cites": np.array([2, 0])})["cites"].edge_index.tolist()
        [[2, 0], [0, 1]]
        """
        from arraygnn.data_methods import _selection

        if not isinstance(subset_dict, Mapping):
            raise TypeError(
                "edge_subgraph: subset_dict must map edge types to edge ids or bool masks, "
                f"got {type(subset_dict).__name__}"
            )
        out = self.copy()
        for key, subset in subset_dict.items():
            et = self._to_canonical(key)
            if not isinstance(et, tuple) or et not in self._edges:
                raise KeyError(
                    f"edge_subgraph: {key!r} is not an edge type of the graph (edge types: "
                    f"{self.edge_types})"
                )
            store = self._edges[et]
            arrays = [v for v in store._mapping.values() if is_array(v)]
            xp = get_namespace(*arrays) if arrays else np
            num_edges = store.num_edges
            where = f"edge_subgraph: edge type {et!r}"
            _, pos = _selection(where, subset, num_edges, xp, "edges", unique=False)
            new = out._edges[et]
            for name, value in store._mapping.items():
                if not is_array(value) or value.ndim == 0:
                    continue
                if name != "edge_index" and "index" in name:
                    continue
                dim = int(self.__cat_dim__(name, value, store) or 0)
                if value.shape[dim] == num_edges:
                    new._mapping[name] = xp.take(value, pos, axis=dim)
        return out

    def node_type_subgraph(self, node_types: Any) -> HeteroData:
        """A new object holding only ``node_types`` and the edge types whose both ends are
        among them (PyG's); type order and graph-level attributes kept, arrays shared.
        ``KeyError`` for a name that is not a node type; a single string is one type.

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1}, c={"num_nodes": 3})
        >>> d["a", "to", "b"].edge_index = np.array([[0], [0]])
        >>> d["a", "to", "a"].edge_index = np.array([[0], [1]])
        >>> d.node_type_subgraph(["a", "c"]).metadata()
        (['a', 'c'], [('a', 'to', 'a')])
        """
        keep = self._type_list(node_types, "node_type_subgraph")
        for t in keep:
            if not isinstance(t, str) or t not in self._nodes:
                raise KeyError(
                    f"node_type_subgraph: {t!r} is not a node type of the graph (node types: "
                    f"{self.node_types})"
                )
        out = self.copy()
        for et in self.edge_types:
            if et[0] not in keep or et[2] not in keep:
                del out._edges[et]
        for t in self.node_types:
            if t not in keep:
                del out._nodes[t]
        return out

    def edge_type_subgraph(self, edge_types: Any) -> HeteroData:
        """A new object holding only ``edge_types`` (full or shorthand names) and the node
        types at their ends (PyG's); type order and graph-level attributes kept, arrays
        shared. ``KeyError`` for a name that is not an edge type of the graph.

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1}, c={"num_nodes": 3})
        >>> d["a", "to", "b"].edge_index = np.array([[0], [0]])
        >>> d["c", "to", "c"].edge_index = np.array([[0], [1]])
        >>> d.edge_type_subgraph([("a", "b")]).metadata()
        (['a', 'b'], [('a', 'to', 'b')])
        """
        given = self._type_list(edge_types, "edge_type_subgraph", edge=True)
        keep = []
        for e in given:
            key = self._to_canonical(e)
            if not isinstance(key, tuple) or key not in self._edges:
                raise KeyError(
                    f"edge_type_subgraph: {e!r} is not an edge type of the graph (edge types: "
                    f"{self.edge_types})"
                )
            keep.append(key)
        ends = {e[0] for e in keep} | {e[2] for e in keep}
        out = self.copy()
        for et in self.edge_types:
            if et not in keep:
                del out._edges[et]
        for t in self.node_types:
            if t not in ends:
                del out._nodes[t]
        return out

    def _type_list(self, types: Any, where: str, edge: bool = False) -> list[Any]:
        if isinstance(types, str) or (
            edge and isinstance(types, tuple) and types and all(isinstance(s, str) for s in types)
        ):
            return [types]
        try:
            return list(types)
        except TypeError:
            raise TypeError(
                f"{where}: give a list of {'edge' if edge else 'node'} types, got "
                f"{type(types).__name__}"
            ) from None

    def rename(self, name: NodeType, new_name: NodeType) -> HeteroData:
        """Rename node type ``name`` to ``new_name`` **in place** and return ``self``, as
        PyG's; edge types with ``name`` at an end are renamed too (relations never are).
        As in PyG the renamed node type and edge types move to the end of ``node_types`` /
        ``edge_types``. Arrays are untouched. ``KeyError`` if ``name`` is not a node type,
        ``ValueError`` if ``new_name`` is one already (or a graph-level attribute),
        ``TypeError`` if it is not a string; on error nothing changes.

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1})
        >>> d["a", "to", "b"].edge_index = np.array([[1], [0]])
        >>> d.rename("a", "z").metadata()
        (['b', 'z'], [('z', 'to', 'b')])
        """
        if not isinstance(name, str) or name not in self._nodes:
            raise KeyError(
                f"rename: {name!r} is not a node type of the graph (node types: {self.node_types})"
            )
        if not isinstance(new_name, str):
            raise TypeError(f"rename: node types are strings, got {new_name!r}")
        if new_name == name:
            return self
        if new_name in self._nodes or new_name in self._global:
            what = "a node type" if new_name in self._nodes else "a graph-level attribute"
            raise ValueError(f"rename: {new_name!r} is already {what}")
        moved = {}
        for et in self.edge_types:
            if name in (et[0], et[2]):
                src, rel, dst = et
                new_et = (new_name if src == name else src, rel, new_name if dst == name else dst)
                if new_et in self._edges:
                    raise ValueError(f"rename: edge type {new_et!r} exists already")
                moved[et] = new_et
        store = self._nodes.pop(name)
        store._key = new_name
        self._nodes[new_name] = store
        for et, new_et in moved.items():
            es = self._edges.pop(et)
            es._key = new_et
            self._edges[new_et] = es
        return self

    # ---------------------------------------------------------------- properties
    def _homogeneous_edges(self, where: str) -> tuple[Any, int, Any]:
        """(rows, cols, total nodes, namespace) over every edge type with edge_index."""
        offsets, total = self._offsets(where)
        parts = []
        for et, s in self._edges.items():
            ei = s._mapping.get("edge_index")
            if ei is None:
                continue
            for end in (et[0], et[2]):
                if end not in offsets:
                    raise ValueError(
                        f"{where}: edge type {et!r} uses node type {end!r}, which the graph "
                        "does not have"
                    )
            for row, end, role in ((0, et[0], "source"), (1, et[2], "destination")):
                check_index_range(
                    ei[row],
                    self._nodes[end].num_nodes,
                    f"{where}: edge type {et!r}: edge_index row {row} ({role} {end!r})",
                )
            parts.append((ei, offsets[et[0]], offsets[et[2]]))
        xp = get_namespace(*[p[0] for p in parts]) if parts else np
        if not parts:
            empty = xp.zeros(0, dtype=np.int64)
            return (empty, empty), total, xp
        rows = xp.concatenate([p[0][0].astype(np.int64) + p[1] for p in parts])
        cols = xp.concatenate([p[0][1].astype(np.int64) + p[2] for p in parts])
        return (rows, cols), total, xp

    def has_isolated_nodes(self) -> bool:
        """Whether some node has no edge other than self-loops, over all types (PyG's:
        every edge type's edges with their types' node offsets, self-loops dropped).

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1})
        >>> d["a", "to", "b"].edge_index = np.array([[0, 1], [0, 0]])
        >>> d.has_isolated_nodes()
        False
        """
        (rows, cols), total, xp = self._homogeneous_edges("has_isolated_nodes")
        seen = xp.zeros(total, dtype=bool)
        keep = rows != cols
        seen[rows[keep]] = True
        seen[cols[keep]] = True
        return bool(total > 0 and not bool(seen.all()))

    def has_self_loops(self) -> bool:
        """Whether an edge type whose ends are the same node type has an edge ``(i, i)``
        (PyG's: edges between two node types are never self-loops).

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2})
        >>> d["a", "to", "a"].edge_index = np.array([[0, 1], [1, 1]])
        >>> d.has_self_loops()
        True
        """
        for et, s in self._edges.items():
            ei = s._mapping.get("edge_index")
            if ei is None or et[0] != et[2] or ei.shape[-1] == 0:
                continue
            if bool((ei[0] == ei[1]).any()):
                return True
        return False

    def is_undirected(self) -> bool:
        """Whether every edge ``(u, v)`` has its reverse ``(v, u)``, the same number of
        times, over all types (PyG's: node ids moved by their types' offsets, so
        ``(a, to, b)`` needs the reverse edges in a ``(b, *, a)`` type; features ignored).

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1})
        >>> d["a", "to", "b"].edge_index = np.array([[0, 1], [0, 0]])
        >>> d.is_undirected()
        False
        >>> d["b", "rev_to", "a"].edge_index = np.array([[0, 0], [1, 0]])
        >>> d.is_undirected()
        True
        """
        (rows, cols), total, xp = self._homogeneous_edges("is_undirected")
        if rows.shape[0] == 0:
            return True
        n = max(total, 1)
        if n <= 3_037_000_499:  # n * n fits int64
            fwd = xp.sort(rows * n + cols)
            bwd = xp.sort(cols * n + rows)
            return bool((fwd == bwd).all())
        a, b = xp.lexsort(xp.stack([cols, rows])), xp.lexsort(xp.stack([rows, cols]))
        return bool(((rows[a] == cols[b]) & (cols[a] == rows[b])).all())

    def is_directed(self) -> bool:
        """``not self.is_undirected()`` (PyG's)."""
        return not self.is_undirected()

    def _edge_rows(self, et: EdgeType, store: EdgeStore) -> list[tuple[str, int]]:
        """``(key, dim)`` of the per-edge arrays of an edge store: arrays whose
        ``__cat_dim__`` length is ``num_edges``, keys holding ``'index'`` aside (the rule
        of :meth:`subgraph`; a store holds one type's values, no level is guessed across
        types)."""
        e = store.num_edges
        out = []
        for key, value in store._mapping.items():
            if "index" in key or not is_array(value) or value.ndim == 0:
                continue
            dim = int(self.__cat_dim__(key, value, store) or 0)
            dim = dim + value.ndim if dim < 0 else dim
            if 0 <= dim < value.ndim and value.shape[dim] == e:
                out.append((key, dim))
        return out

    def _edge_pass(self, where: str, fn: Callable[..., Any]) -> HeteroData:
        """A copy whose every edge type with ``edge_index`` is rewritten by
        ``fn(edge_index, per-edge arrays (rows first), num_nodes bound)``."""
        out = self.copy()
        for et, store in self._edges.items():
            ei = store._mapping.get("edge_index")
            if ei is None:
                continue
            if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
                raise ValueError(f"{where}: edge type {et!r}: edge_index must be a [2, E] array")
            rows = self._edge_rows(et, store)
            xp = get_namespace(ei)
            feats = [xp.moveaxis(store._mapping[k], d, 0) if d else store._mapping[k]
                     for k, d in rows]  # fmt: skip
            sizes = [n for n in store.size() if n is not None]
            try:
                new_ei, new_feats = fn(ei, feats, max(sizes) if sizes else None)
            except (ValueError, TypeError) as err:  # name the edge type at fault
                raise type(err)(f"{where}: edge type {et!r}: {err}") from None
            new = out._edges[et]._mapping
            new["edge_index"] = new_ei
            for (k, d), v in zip(rows, new_feats):
                new[k] = xp.moveaxis(v, 0, d) if d else v
        return out

    def is_sorted(self, sort_by_row: bool = True) -> bool:
        """Whether in every edge type ``edge_index[0]`` (``[1]`` with
        ``sort_by_row=False``) never decreases (PyG's; ties are not looked at).

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 3})
        >>> d["a", "to", "a"].edge_index = np.array([[0, 2, 1], [1, 0, 2]])
        >>> d.is_sorted(), d.sort().is_sorted(), d.sort()["to"].edge_index.tolist()
        (False, True, [[0, 1, 2], [1, 2, 0]])
        """
        from arraygnn.data_methods import _edge_index_is_sorted
        from arraygnn.utils._checks import bool_arg

        sort_by_row = bool_arg("is_sorted", "sort_by_row", sort_by_row)
        return all(
            _edge_index_is_sorted(store._mapping.get("edge_index"), sort_by_row)
            for store in self._edges.values()
        )

    def sort(self, sort_by_row: bool = True) -> HeteroData:
        """A new object whose every edge type has ``edge_index`` sorted by ``(row, col)``
        (``(col, row)`` with ``sort_by_row=False``; parallel edges keep their order), its
        per-edge arrays (``num_edges`` rows, keys holding ``'index'`` aside, as
        :meth:`subgraph`) moved with the edges; PyG's."""
        from arraygnn.utils._checks import bool_arg
        from arraygnn.utils.sort import sort_edge_index

        sort_by_row = bool_arg("sort", "sort_by_row", sort_by_row)
        return self._edge_pass(
            "sort", lambda ei, feats, n: sort_edge_index(ei, feats, n, sort_by_row=sort_by_row)
        )

    def is_coalesced(self) -> bool:
        """Whether every edge type's ``edge_index`` is sorted by ``(row, col)`` without
        parallel edges (PyG's; ``True`` for types without ``edge_index``)."""
        from arraygnn.data_methods import _edge_index_is_coalesced

        return all(
            _edge_index_is_coalesced(store._mapping.get("edge_index"))
            for store in self._edges.values()
        )

    def coalesce(self, reduce: str = "sum") -> HeteroData:
        """A new object whose every edge type has ``edge_index`` sorted by ``(row, col)``
        and parallel edges merged, its per-edge arrays (as :meth:`sort`) reduced with
        ``reduce`` (PyG's ``'sum'``; ``'any'`` too, as :meth:`Data.coalesce`; PyG reduces
        ``edge_attr`` only and leaves other per-edge arrays out of step).

        >>> import numpy as np
        >>> d = HeteroData(a={"num_nodes": 2})
        >>> d["a", "to", "a"].edge_index = np.array([[1, 0, 1], [0, 1, 0]])
        >>> d["a", "to", "a"].edge_attr = np.ones(3)
        >>> c = d.coalesce()
        >>> c["to"].edge_index.tolist(), c["to"].edge_attr.tolist(), c.is_coalesced()
        ([[0, 1], [1, 0]], [1.0, 2.0], True)
        """
        from arraygnn.utils._checks import check_pyg_reduce
        from arraygnn.utils.coalesce import coalesce as coalesce_edges

        check_pyg_reduce("coalesce", reduce, allow_any=True)
        return self._edge_pass(
            "coalesce", lambda ei, feats, n: coalesce_edges(ei, feats, n, reduce)
        )

    # ---------------------------------------------------------------- homogeneous
    def to_homogeneous(
        self,
        node_attrs: list[str] | None = None,
        edge_attrs: list[str] | None = None,
        add_node_type: bool = True,
        add_edge_type: bool = True,
        dummy_values: bool = True,
    ) -> Data:
        """One :class:`arraygnn.Data` holding every type, as PyG's ``to_homogeneous``.

        Node types are laid out one after the other in ``node_types`` order, edges in
        ``edge_types`` order (types without ``edge_index`` are left out);
        ``edge_index`` rows are moved by their types' node offsets. ``node_type`` /
        ``edge_type`` (int64) give each node's / edge's type position; the Data's
        ``node_type_names`` / ``edge_type_names`` attributes (not keys) list the types.
        ``node_attrs`` / ``edge_attrs`` name the features to merge; ``None`` merges those
        every type holds with one row shape (2-D node features of different widths are
        zero-padded to the widest, as PyG). ``dummy_values`` first fills a feature some
        types lack with NaN (floats), False (bools) or -1 (integers), as PyG. Graph-level
        attributes are copied; ``num_nodes`` is set explicitly when no ``x`` is merged.

        >>> import numpy as np
        >>> d = HeteroData(a={"x": np.ones((2, 1))}, b={"x": np.zeros((1, 1))})
        >>> d["a", "to", "b"].edge_index = np.array([[0, 1], [0, 0]])
        >>> h = d.to_homogeneous()
        >>> h.edge_index.tolist(), h.node_type.tolist(), h.node_type_names
        ([[0, 1], [2, 2]], [0, 0, 1], ['a', 'b'])
        """
        src_data = self
        if dummy_values:
            src_data = self.copy()
            _fill_dummy(src_data, list(src_data._nodes.values()), node_attrs, "node")
            _fill_dummy(src_data, list(src_data._edges.values()), edge_attrs, "edge")
        return _to_homogeneous(src_data, node_attrs, edge_attrs, add_node_type, add_edge_type)

    # ---------------------------------------------------------------- repr
    def __repr__(self) -> str:
        parts = [_size_repr(k, v, 2) for k, v in self._global.items()]
        parts += [_size_repr(k, v, 2) for k, v in self._nodes.items()]
        parts += [_size_repr(k, v, 2) for k, v in self._edges.items()]
        body = ",\n".join(parts)
        return f"{self._repr_name()}(\n{body}\n)" if body else f"{self._repr_name()}()"

    def _repr_name(self) -> str:
        return type(self).__name__


# -------------------------------------------------------------------- subgraph
def _subset_plan(t: NodeType, subset: Any, n: int | None, xp: Any) -> tuple[Any, Any, int]:
    """(kept ids in order, old id -> new id map with -1 for dropped, n) of one node type."""
    if n is None:
        raise ValueError(
            f"subgraph: num_nodes of node type {t!r} is unknown (give x, pos or num_nodes=)"
        )
    if is_array(subset):  # on the graph's side (a NumPy subset of a CuPy graph is moved)
        subset = to_numpy(subset) if xp is np else xp.asarray(subset)
    else:
        subset = np.asarray(subset)
        if subset.size == 0:
            subset = subset.astype(np.int64)
        subset = xp.asarray(subset)
    if subset.ndim != 1:
        raise ValueError(
            f"subgraph: the subset of node type {t!r} must be 1-D, got shape {list(subset.shape)}"
        )
    kind = subset.dtype.kind
    if kind == "b":
        if subset.shape[0] != n:
            raise ValueError(
                f"subgraph: the mask of node type {t!r} has length {subset.shape[0]} but "
                f"num_nodes is {n}"
            )
        ids = xp.nonzero(subset)[0]
    elif kind in "iu":
        check_index_range(subset, n, f"subgraph: the subset of node type {t!r}")
        ids = subset.astype(np.int64, copy=False)
    else:
        raise TypeError(
            f"subgraph: the subset of node type {t!r} must hold integer ids or be a bool "
            f"mask, got dtype {subset.dtype}"
        )
    new_id = xp.full(n, -1, dtype=np.int64)
    new_id[ids] = xp.arange(ids.shape[0], dtype=np.int64)
    if kind != "b" and int((new_id >= 0).sum()) != ids.shape[0]:
        raise ValueError(f"subgraph: the subset of node type {t!r} repeats node ids")
    return ids, new_id, n


# -------------------------------------------------------------------- to_homogeneous
def _row_shape(data: HeteroData, key: str, value: Any, store: _Store) -> tuple[int, tuple]:
    dim = data.__cat_dim__(key, value, store)
    dim = 0 if dim is None else int(dim)
    if dim < 0:
        dim += value.ndim
    shape = tuple(value.shape)
    return dim, shape[:dim] + shape[dim + 1 :]


def _sizes(data: HeteroData, stores: list[_Store]) -> dict[str, list[tuple]]:
    sizes: dict[str, list[tuple]] = {}
    for store in stores:
        for key, value in store._mapping.items():
            if key in _STRUCTURE_KEYS or not is_array(value) or value.ndim == 0:
                continue
            sizes.setdefault(key, []).append(_row_shape(data, key, value, store)[1])
    return sizes


def _fill_dummy(data: HeteroData, stores: list[_Store], keys: list[str] | None, kind: str) -> None:
    sizes = _sizes(data, stores)
    if keys is not None:
        sizes = {k: v for k, v in sizes.items() if k in keys}
    for key, shapes in sizes.items():
        if len(set(shapes)) != 1:
            continue
        ref = next(s._mapping[key] for s in stores if key in s._mapping)
        xp = get_namespace(ref)
        for store in stores:
            if key in store._mapping:
                continue
            if kind == "node":
                n = store.num_nodes
                if n is None:
                    raise ValueError(
                        f"to_homogeneous: num_nodes of node type {store._key!r} is unknown "
                        "(give x, pos or num_nodes=)"
                    )
            else:
                n = store.num_edges
            dim, _ = _row_shape(data, key, ref, store)
            row = shapes[0]
            shape = row[:dim] + (int(n),) + row[dim:]
            fill = np.nan if ref.dtype.kind in "fc" else (False if ref.dtype.kind == "b" else -1)
            value = np.array(fill).astype(ref.dtype) if ref.dtype.kind in "iu" else fill
            store._mapping[key] = xp.full(shape, value, dtype=ref.dtype)


def _consistent(data: HeteroData, stores: list[_Store]) -> list[str]:
    keys = []
    for key, shapes in _sizes(data, stores).items():
        if len(shapes) != len(stores):
            continue
        if len({len(s) for s in shapes}) != 1:
            continue
        if len(shapes[0]) != 1 and len(set(shapes)) != 1:
            continue
        keys.append(key)
    return keys


def _check_rows(
    data: HeteroData, key: str, values: list[Any], stores: list[_Store], kind: str
) -> None:
    """A ``ValueError`` naming ``key`` and the types when the values cannot be stacked."""
    shapes = {}
    for v, s in zip(values, stores):
        if not is_array(v) or v.ndim == 0:
            raise ValueError(
                f"to_homogeneous: {kind} type {s._key!r}: {key!r} must be an array with rows, "
                f"got {type(v).__name__}{'' if not is_array(v) else ' of shape []'}"
            )
        shapes[s._key] = _row_shape(data, key, v, s)[1]
    if len(set(shapes.values())) > 1:
        listed = ", ".join(f"{t!r}: {list(r)}" for t, r in shapes.items())
        raise ValueError(
            f"to_homogeneous: {key!r} has rows of different shapes per {kind} type ({listed}); "
            f"give {kind}_attrs= without it"
        )


def _to_homogeneous(
    data: HeteroData,
    node_attrs: list[str] | None,
    edge_attrs: list[str] | None,
    add_node_type: bool,
    add_edge_type: bool,
) -> Data:
    counts = data._node_counts("to_homogeneous")
    offsets, total = data._offsets("to_homogeneous")
    arrays = [v for s in chain(data._nodes.values(), data._edges.values()) for v in s.values()]
    arrays = [v for v in arrays if is_array(v)]
    xp = get_namespace(*arrays)

    def shifted(et: EdgeType, ei: Any, key: str) -> Any:
        src, _, dst = et
        for end in (src, dst):
            if end not in offsets:
                raise ValueError(
                    f"to_homogeneous: edge type {et!r} uses node type {end!r}, which the graph "
                    "does not have"
                )
        if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
            raise ValueError(f"to_homogeneous: edge type {et!r}: {key} must be a [2, E] array")
        dtype = ei.dtype if total <= np.iinfo(ei.dtype).max else np.dtype(np.int64)
        off = xp.asarray(np.array([[offsets[src]], [offsets[dst]]], dtype=dtype))
        return ei.astype(dtype, copy=False) + off

    edge_parts, edge_sizes, edge_names = [], [], []
    for et, s in data._edges.items():
        if "edge_index" in s._mapping:
            ei = shifted(et, s._mapping["edge_index"], "edge_index")
            edge_parts.append(ei)
            edge_sizes.append(int(ei.shape[1]))
            edge_names.append(et)
    out = Data(**data._global)
    if edge_parts:
        out.edge_index = edge_parts[0] if len(edge_parts) == 1 else xp.concatenate(edge_parts, 1)
    node_stores = list(data._nodes.values())
    if node_attrs is None:
        node_attrs = _consistent(data, node_stores)
    for key in node_attrs:
        if key == "ptr":
            continue
        values = []
        for s in node_stores:
            if key not in s._mapping:
                raise KeyError(f"to_homogeneous: node type {s._key!r} has no {key!r}")
            values.append(s._mapping[key])
        dim, _ = _row_shape(data, key, values[0], node_stores[0])
        if values[0].ndim == 2 and dim == 0:
            width = max(v.shape[-1] for v in values)
            values = [
                v
                if v.shape[-1] == width
                else xp.concatenate([v, xp.zeros((v.shape[0], width - v.shape[-1]), v.dtype)], 1)
                for v in values
            ]
        _check_rows(data, key, values, node_stores, "node")
        out[key] = xp.concatenate(values, dim) if len(values) > 1 else values[0]
    if out.num_nodes != total:
        out.num_nodes = total
    edge_stores = list(data._edges.values())
    if edge_parts:  # edge features line up with the merged edge_index: every store needs one
        for et, s in data._edges.items():
            if "edge_index" not in s._mapping and s._mapping:
                raise ValueError(
                    f"to_homogeneous: edge type {et!r} has {sorted(s._mapping)} but no "
                    "edge_index, so its rows cannot be placed among the merged edges"
                )
    if edge_attrs is None:
        edge_attrs = _consistent(data, edge_stores)
    for key in edge_attrs:
        values = []
        for s in edge_stores:
            if key not in s._mapping:
                raise KeyError(f"to_homogeneous: edge type {s._key!r} has no {key!r}")
            values.append(s._mapping[key])
        dim, _ = _row_shape(data, key, values[0], edge_stores[0])
        _check_rows(data, key, values, edge_stores, "edge")
        out[key] = xp.concatenate(values, dim) if len(values) > 1 else values[0]
    labelled = [(et, s) for et, s in data._edges.items() if "edge_label_index" in s._mapping]
    if labelled:
        parts = [
            shifted(et, s._mapping["edge_label_index"], "edge_label_index") for et, s in labelled
        ]
        out.edge_label_index = xp.concatenate(parts, 1)
    if add_node_type:
        out.node_type = xp.asarray(
            np.repeat(np.arange(len(counts), dtype=np.int64), list(counts.values()))
        )
    if add_edge_type and edge_parts:
        out.edge_type = xp.asarray(
            np.repeat(np.arange(len(edge_sizes), dtype=np.int64), edge_sizes)
        )
    object.__setattr__(out, "node_type_names", list(counts))
    object.__setattr__(out, "edge_type_names", edge_names)
    # what was merged per node / per edge: to_heterogeneous splits these back (PyG's round trip)
    object.__setattr__(out, "_node_attr_names", [k for k in node_attrs if k != "ptr"])
    object.__setattr__(out, "_edge_attr_names", list(edge_attrs))
    object.__setattr__(out, "_graph_attr_names", list(data._global))
    return out
