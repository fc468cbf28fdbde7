"""``FeatureStore`` / ``TensorAttr``: PyG's remote-backend interface for node (and edge)
features, and :class:`InMemoryFeatureStore`, a dict of NumPy / CuPy arrays implementing it.

A feature store holds tensors keyed by a :class:`TensorAttr` ``(group_name, attr_name,
index)``: ``group_name`` is a node type (``None`` for a homogeneous graph) or an edge type
tuple (edge-level attributes), ``attr_name`` the attribute (``'x'``), ``index`` the rows
wanted (``None``: all of them). Users subclass :class:`FeatureStore` over their own storage
(a database, a key-value store, memory-mapped files) by writing five methods:
``_put_tensor``, ``_get_tensor``, ``_remove_tensor``, ``_get_tensor_size`` and
``get_all_tensor_attrs`` (and may override ``_multi_get_tensor`` to fetch many at once);
the public API (``put_tensor``, ``get_tensor``, ``multi_get_tensor``, views, item access)
is PyG's. :class:`~arraygnn.neighbor_loader.NeighborLoader` takes
``data=(feature_store, graph_store)`` and fetches, per batch, only the sampled rows with
one ``multi_get_tensor`` call.

RULE: a partly given ``TensorAttr`` (a field left unset) is a *view*: ``store['paper']``,
      ``store['paper'].x``, ``store['paper', 'x']``; giving the last field (``[index]``)
      or calling the view (``()``, unset fields become ``None``) reads the tensor.
RULE: reading an attribute the store does not hold raises ``KeyError`` naming it (PyG's
      stores raise ``KeyError`` too; ``Data``'s own store returns ``None``).
RULE: ``index=None`` means every row; an integer array or a slice picks rows.

>>> import numpy as np
>>> store = InMemoryFeatureStore()
>>> store.put_tensor(np.arange(6.0).reshape(3, 2), group_name="paper", attr_name="x", index=None)
True
>>> store["paper", "x", np.array([2, 0])].tolist()
[[4.0, 5.0], [0.0, 1.0]]
>>> store["paper"].x[np.array([1])].tolist(), store.get_tensor_size("paper", "x")
([[2.0, 3.0]], (3, 2))
>>> [(a.group_name, a.attr_name) for a in store.get_all_tensor_attrs()]
[('paper', 'x')]
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from arraygnn._namespace import get_namespace, is_array, is_cupy_array, is_torch_tensor

__all__ = ["AttrView", "FeatureStore", "InMemoryFeatureStore", "TensorAttr"]


class _FieldStatus(Enum):
    """The marker of a ``TensorAttr`` field that was not given (PyG's ``UNSET``)."""

    UNSET = None


UNSET = _FieldStatus.UNSET


class CastMixin:
    """PyG's ``cast``: an instance stays itself, a tuple gives the fields in order, a dict
    gives them by name, ``None`` stays ``None``, anything else goes to the constructor."""

    @classmethod
    def cast(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            elem = args[0]
            if elem is None:
                return None
            if isinstance(elem, CastMixin):
                return elem
            if isinstance(elem, tuple):
                return cls(*elem)
            if isinstance(elem, dict):
                return cls(**elem)
        return cls(*args, **kwargs)

    def __iter__(self) -> Any:
        return iter(self.__dict__.values())


@dataclass
class TensorAttr(CastMixin):
    """What identifies a tensor in a :class:`FeatureStore` (PyG's ``TensorAttr``).

    Args:
        group_name: a node type (``None`` for a homogeneous graph) or an edge type tuple.
        attr_name: the attribute's name (``'x'``).
        index: the rows: ``None`` (all), an integer array or a slice.

    Fields not given are unset (``is_set`` is False); the order of the fields is the
    order in which views and tuples fill them.
    """

    group_name: Any = UNSET
    attr_name: Any = UNSET
    index: Any = UNSET

    def is_set(self, key: str) -> bool:
        """Whether field ``key`` was given (``ValueError`` for a field the class lacks)."""
        if key not in self.__dataclass_fields__:
            raise ValueError(
                f"{type(self).__name__} has no field {key!r} (fields: "
                f"{list(self.__dataclass_fields__)})"
            )
        return getattr(self, key) is not UNSET

    def is_fully_specified(self) -> bool:
        """Whether every field was given."""
        return all(self.is_set(key) for key in self.__dataclass_fields__)

    def fully_specify(self) -> TensorAttr:
        """Set every unset field to ``None`` (in place; returns ``self``)."""
        for key in self.__dataclass_fields__:
            if not self.is_set(key):
                setattr(self, key, None)
        return self

    def update(self, attr: TensorAttr) -> TensorAttr:
        """Copy the fields set in ``attr`` onto ``self`` (in place; returns ``self``)."""
        for key in self.__dataclass_fields__:
            if attr.is_set(key):
                setattr(self, key, getattr(attr, key))
        return self


def _not_specified(attr: Any) -> str:
    return (
        f"The input TensorAttr '{attr}' is not fully specified. Please fully-specify the "
        "input by specifying all 'UNSET' fields"
    )


class AttrView(CastMixin):
    """A view of a :class:`FeatureStore` with some ``TensorAttr`` fields given (PyG's
    ``AttrView``): attribute access or indexing gives the next unset field; once all are
    given the tensor is read; calling the view reads it with unset fields as ``None``."""

    def __init__(self, store: FeatureStore, attr: TensorAttr) -> None:
        self.__dict__["_store"] = store
        self.__dict__["_attr"] = attr

    def __getattr__(self, key: Any) -> Any:
        if isinstance(key, str) and key.startswith("__") and key.endswith("__"):
            raise AttributeError(key)  # (copy, pickle and numpy probe dunders)
        out = copy.copy(self)
        attr = out._attr
        unset = [f.name for f in fields(attr) if not attr.is_set(f.name)]
        if not unset:
            raise AttributeError(
                f"Cannot access attribute '{key}' on view '{out}' as all attributes have "
                "already been set in this view"
            )
        setattr(attr, unset[0], key)
        if attr.is_fully_specified():
            return out._store.get_tensor(attr)
        return out

    def __getitem__(self, key: Any) -> Any:
        return self.__getattr__(key)

    def __setattr__(self, key: str, value: Any) -> None:
        if key not in self._attr.__dataclass_fields__:
            raise ValueError(
                f"Attempted to set nonexistent attribute '{key}' (acceptable attributes are "
                f"{list(self._attr.__dataclass_fields__)})"
            )
        setattr(self._attr, key, value)

    def __setitem__(self, key: str, value: Any) -> None:
        self.__setattr__(key, value)

    def __call__(self) -> Any:
        attr = copy.copy(self._attr).fully_specify()
        return self._store.get_tensor(attr)

    def __copy__(self) -> AttrView:
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out.__dict__["_attr"] = copy.copy(self.__dict__["_attr"])
        return out

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, AttrView):
            return False
        return self._store == other._store and self._attr == other._attr

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(store={self._store}, attr={self._attr})"


class FeatureStore(ABC):
    """PyG's abstract feature store: subclass it and write ``_put_tensor``,
    ``_get_tensor`` (``None`` when absent), ``_remove_tensor``, ``_get_tensor_size`` and
    ``get_all_tensor_attrs``; override ``_multi_get_tensor`` to batch reads.

    Args:
        tensor_attr_cls: a ``TensorAttr`` subclass with other fields or another field order
            (default: :class:`TensorAttr`).
    """

    _tensor_attr_cls: Any = TensorAttr  # (also when a subclass skips super().__init__())

    def __init__(self, tensor_attr_cls: Any = None) -> None:
        super().__init__()
        self.__dict__["_tensor_attr_cls"] = tensor_attr_cls or TensorAttr

    # --- to be written by subclasses ---------------------------------------------------
    @abstractmethod
    def _put_tensor(self, tensor: Any, attr: TensorAttr) -> bool:
        """Store ``tensor`` under the fully specified ``attr``; whether it worked."""

    @abstractmethod
    def _get_tensor(self, attr: TensorAttr) -> Any:
        """The tensor of ``attr`` (rows ``attr.index``), or ``None`` when absent."""

    def _multi_get_tensor(self, attrs: list[TensorAttr]) -> list[Any]:
        """The tensors of ``attrs`` (default: one ``_get_tensor`` call each)."""
        return [self._get_tensor(attr) for attr in attrs]

    @abstractmethod
    def _remove_tensor(self, attr: TensorAttr) -> bool:
        """Remove the tensor of ``attr``; whether it was there."""

    @abstractmethod
    def _get_tensor_size(self, attr: TensorAttr) -> tuple[int, ...] | None:
        """The shape of the tensor of ``attr``, or ``None`` when absent."""

    @abstractmethod
    def get_all_tensor_attrs(self) -> list[TensorAttr]:
        """Every stored attribute (``index`` unset or ``None``)."""

    # --- PyG's public API -------------------------------------------------------------
    def _specified(self, *args: Any, **kwargs: Any) -> TensorAttr:
        attr = self._tensor_attr_cls.cast(*args, **kwargs)
        if not attr.is_fully_specified():
            raise ValueError(_not_specified(attr))
        return attr

    def put_tensor(self, tensor: Any, *args: Any, **kwargs: Any) -> bool:
        """Store ``tensor`` under a fully specified ``TensorAttr(*args, **kwargs)``."""
        return self._put_tensor(tensor, self._specified(*args, **kwargs))

    def get_tensor(self, *args: Any, convert_type: bool = False, **kwargs: Any) -> Any:
        """The tensor of a fully specified ``TensorAttr(*args, **kwargs)``; ``KeyError``
        when the store lacks it. ``convert_type``: a torch index gives a torch tensor, a
        NumPy index a NumPy array (PyG's ``_to_type``)."""
        attr = self._specified(*args, **kwargs)
        tensor = self._get_tensor(attr)
        if tensor is None:
            raise KeyError(f"Could not find tensor for '{attr}'")
        return self._to_type(attr, tensor) if convert_type else tensor

    def multi_get_tensor(self, attrs: list[Any], convert_type: bool = False) -> list[Any]:
        """The tensors of ``attrs`` (each fully specified), in one ``_multi_get_tensor``
        call, which stores may override to fetch them together."""
        attrs = [self._tensor_attr_cls.cast(attr) for attr in attrs]
        bad = [attr for attr in attrs if not attr.is_fully_specified()]
        if bad:
            raise ValueError(
                f"The input TensorAttr(s) '{bad}' are not fully specified. Please "
                "fully-specify them by specifying all 'UNSET' fields"
            )
        tensors = self._multi_get_tensor(attrs)
        for attr, tensor in zip(attrs, tensors):
            if tensor is None:
                raise KeyError(f"Could not find tensor for '{attr}'")
        if convert_type:
            tensors = [self._to_type(a, t) for a, t in zip(attrs, tensors)]
        return list(tensors)

    def remove_tensor(self, *args: Any, **kwargs: Any) -> bool:
        """Remove the tensor of a fully specified ``TensorAttr``; whether it was there."""
        return self._remove_tensor(self._specified(*args, **kwargs))

    def update_tensor(self, tensor: Any, *args: Any, **kwargs: Any) -> bool:
        """Replace a tensor (default: remove, then put)."""
        attr = self._tensor_attr_cls.cast(*args, **kwargs)
        self.remove_tensor(attr)
        return self.put_tensor(tensor, attr)

    def get_tensor_size(self, *args: Any, **kwargs: Any) -> tuple[int, ...] | None:
        """The shape of a stored tensor (an unset ``index`` means all rows), or ``None``."""
        attr = self._tensor_attr_cls.cast(*args, **kwargs)
        if not attr.is_set("index"):
            attr = copy.copy(attr)  # (PyG writes index=None into the caller's attr)
            attr.index = None
        return self._get_tensor_size(attr)

    def view(self, *args: Any, **kwargs: Any) -> AttrView:
        """A view with the given fields set (``store.view('paper').x[index]``)."""
        return AttrView(self, self._tensor_attr_cls.cast(*args, **kwargs))

    @staticmethod
    def _to_type(attr: TensorAttr, tensor: Any) -> Any:
        if is_torch_tensor(attr.index) and is_array(tensor):
            import torch

            return torch.from_numpy(tensor) if type(tensor).__module__ == "numpy" else tensor
        if type(attr.index).__module__ == "numpy" and is_torch_tensor(tensor):
            return tensor.detach().cpu().numpy()
        return tensor

    def __setitem__(self, key: Any, value: Any) -> None:
        self.put_tensor(value, self._specified(key))

    def __getitem__(self, key: Any) -> Any:
        attr = self._tensor_attr_cls.cast(key)
        if attr.is_fully_specified():
            return self.get_tensor(attr)
        return self.view(attr)

    def __delitem__(self, key: Any) -> None:
        attr = copy.copy(self._tensor_attr_cls.cast(key)).fully_specify()
        self.remove_tensor(attr)

    def __contains__(self, key: Any) -> bool:
        """Whether the store holds ``key``'s ``(group_name, attr_name)`` (not in PyG 2.8;
        from its earlier releases)."""
        attr = copy.copy(self._tensor_attr_cls.cast(key)).fully_specify()
        return any(
            a.group_name == attr.group_name and a.attr_name == attr.attr_name
            for a in self.get_all_tensor_attrs()
        )

    def __len__(self) -> int:
        """The number of stored attributes (not in PyG 2.8; from its earlier releases)."""
        return len(self.get_all_tensor_attrs())

    def __iter__(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} is not iterable")

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class InMemoryFeatureStore(FeatureStore):
    """A :class:`FeatureStore` over a dict ``{(group_name, attr_name): array}`` of NumPy
    or CuPy arrays (the arrays are kept, not copied). ``index`` picks rows: an integer
    array of either width through :func:`arraygnn.ops.gather` (ids outside ``[0, N)``
    raise ``ValueError``), a slice or anything else through ``array[index]``, ``None``
    for all rows; putting with an ``index`` writes those rows of a stored array (as PyG's
    ``Data``), and so does ``update_tensor`` with an ``index`` (PyG's default removes the
    whole tensor first). A list or a torch tensor index is read as an integer array; an
    array index of another dtype than integer or bool raises ``TypeError``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[Any, Any], Any] = {}

    @staticmethod
    def key(attr: TensorAttr) -> tuple[Any, Any]:
        return (attr.group_name, attr.attr_name)

    def _put_tensor(self, tensor: Any, attr: TensorAttr) -> bool:
        key = self.key(attr)
        if attr.index is None:
            if not is_array(tensor):
                raise TypeError(
                    f"InMemoryFeatureStore: {key} must be a NumPy or CuPy array, got "
                    f"{type(tensor).__name__}"
                )
            self.store[key] = tensor
            return True
        if key not in self.store:
            raise KeyError(f"Could not find tensor for '{attr}' (to write rows of)")
        stored = self.store[key]
        index = self._index(attr, stored)
        if is_array(index) and index.dtype.kind in "iu" and index.size and stored.ndim:
            from arraygnn.ops._common import index_bounds  # (lazy: import stays light)

            lo, hi = index_bounds(index.reshape(-1))
            if lo < 0 or hi >= stored.shape[0]:
                raise ValueError(
                    f"InMemoryFeatureStore: {key}: index has ids in [{lo}, {hi}], outside "
                    f"[0, {stored.shape[0]})"
                )
        stored[index] = tensor
        return True

    def update_tensor(self, tensor: Any, *args: Any, **kwargs: Any) -> bool:
        """Replace a tensor (``index=None``), or write rows of it (an ``index``: as
        ``put_tensor``, nothing is removed)."""
        attr = self._tensor_attr_cls.cast(*args, **kwargs)
        if attr.is_set("index") and attr.index is not None:
            return self.put_tensor(tensor, attr)
        return super().update_tensor(tensor, attr)

    def _index(self, attr: TensorAttr, tensor: Any) -> Any:
        """``attr.index`` as an array on ``tensor``'s device when it is a list or a torch
        tensor; ``TypeError`` for an array index that is neither integer nor bool."""
        index = attr.index
        if isinstance(index, list) or is_torch_tensor(index):
            xp = get_namespace(tensor)
            if not is_torch_tensor(index):
                index = xp.asarray(index)
            elif is_cupy_array(tensor) and index.device.type == "cuda":  # (CUDA array
                index = xp.asarray(index.detach())  # interface: no trip through the host)
            else:
                index = xp.asarray(index.detach().cpu().numpy())
            if index.size == 0:
                index = index.astype("int64")
        if is_array(index) and index.dtype.kind not in "iub":
            raise TypeError(
                f"InMemoryFeatureStore: {self.key(attr)}: index must hold integers or bools, "
                f"got dtype {index.dtype}"
            )
        return index

    def _get_tensor(self, attr: TensorAttr) -> Any:
        tensor = self.store.get(self.key(attr))
        if tensor is None or attr.index is None:
            return tensor
        index = self._index(attr, tensor)
        if is_array(index) and index.ndim == 1 and index.dtype.kind in "iu" and tensor.ndim:
            from arraygnn import ops  # (lazy: import stays light)

            try:  # the rows, range-checked, on the tensor's device
                return ops.gather(tensor, index)
            except ValueError as err:  # name the attribute, keep the reason
                raise ValueError(f"InMemoryFeatureStore: {self.key(attr)}: {err}") from None
        return tensor[index]

    def _remove_tensor(self, attr: TensorAttr) -> bool:
        return self.store.pop(self.key(attr), None) is not None

    def _get_tensor_size(self, attr: TensorAttr) -> tuple[int, ...] | None:
        tensor = self._get_tensor(attr)
        return None if tensor is None else tuple(int(s) for s in tensor.shape)

    def get_all_tensor_attrs(self) -> list[TensorAttr]:
        cls = self._tensor_attr_cls  # (by name: a subclass may order its fields otherwise)
        return [cls(group_name=g, attr_name=a) for g, a in self.store]
