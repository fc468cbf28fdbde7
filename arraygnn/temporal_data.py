"""``TemporalData``: a stream of events ``(src, dst, t, msg)``, PyG's temporal container.

>>> import numpy as np
>>> from arraygnn.temporal_data import TemporalData
>>> ev = TemporalData(src=np.array([1, 2, 3, 4]), dst=np.array([2, 3, 4, 5]),
...                   t=np.array([1000, 1010, 1100, 2000]), msg=np.ones((4, 2), np.float32))
>>> ev
TemporalData(src=[4], dst=[4], t=[4], msg=[4, 2])
>>> ev.num_events, ev.num_nodes, len(ev[1:3]), ev[np.array([True, False, True, False])].t.tolist()
(4, 6, 2, [1000, 1100])
>>> [len(part) for part in ev.train_val_test_split(val_ratio=0.25, test_ratio=0.25)]
[2, 1, 1]
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_device, to_numpy
from arraygnn.data import _describe
from arraygnn.ops._common import check_index

__all__ = ["TemporalData"]


def _check_ids(value: Any, name: str) -> None:
    check_index(f"TemporalData: {name}", value, None)
    if value.shape[0] and int(value.min()) < 0:
        raise ValueError(f"TemporalData: {name} holds a negative node id {int(value.min())}")


class TemporalData:
    """A stream of events (temporal edges) with PyG's ``TemporalData`` semantics.

    ``TemporalData(src=None, dst=None, t=None, msg=None, **attrs)``: ``src`` / ``dst``
    [num_events] integer node ids, ``t`` [num_events] timestamps, ``msg``
    [num_events, F] event features, any further per-event (or other) attributes.
    ``None`` values are not stored (as PyG's storage). Values are reached as attributes
    or items; ``keys()``, ``to_dict()``, ``to_namedtuple()``, ``from_dict`` as PyG's.

    RULE: ``num_nodes`` is ``max(src.max(), dst.max()) + 1``. This is PyG's documented
      behaviour for ``TemporalData`` and the one place in arraygnn where a size is
      inferred from the ids (``Data`` never does); it costs a max over both id arrays.
    RULE: ``size()`` is ``(src.max(), dst.max())`` -- PyG's, without the ``+ 1``.
    RULE: indexing by an int ``i`` is ``self[i:i + 1]`` (PyG's: ``ev[-1]`` is empty);
      slices, lists, integer arrays and bool masks select events. Every array whose
      first dimension is ``num_events`` is indexed; every other value is shared.
    RULE: ``__cat_dim__`` is 0 for every key; ``__inc__`` is ``num_nodes`` for ``src``
      and ``dst``, ``value.max() + 1`` for an array key containing ``'batch'``, else 0.

    The constructor checks ``src`` / ``dst`` (1-D, integer, non-negative, one length),
    and that ``t`` and ``msg`` have ``num_events`` rows; ``ValueError`` / ``TypeError``
    name the argument. Nothing passed in is copied or modified.
    """

    def __init__(
        self,
        src: Any = None,
        dst: Any = None,
        t: Any = None,
        msg: Any = None,
        **kwargs: Any,
    ) -> None:
        object.__setattr__(self, "_store", {})
        for key, value in (("src", src), ("dst", dst), ("t", t), ("msg", msg)):
            if value is not None:
                self._store[key] = value
        for key, value in kwargs.items():
            if value is not None:
                self._store[key] = value
        self._check()

    def _check(self) -> None:
        store = self._store
        for name in ("src", "dst"):
            if name in store:
                _check_ids(store[name], name)
        if "src" in store and "dst" in store and store["src"].shape[0] != store["dst"].shape[0]:
            raise ValueError(
                f"TemporalData: src has {store['src'].shape[0]} events but dst has "
                f"{store['dst'].shape[0]}"
            )
        if "src" not in store:
            return
        n = int(store["src"].shape[0])
        for name in ("t", "msg"):
            value = store.get(name)
            if value is None:
                continue
            if not is_array(value) or value.ndim < 1:
                raise TypeError(f"TemporalData: {name} must be an array with {n} rows")
            if value.shape[0] != n:
                raise ValueError(
                    f"TemporalData: {name} has {value.shape[0]} rows, expected num_events={n}"
                )
        t = store.get("t")
        if t is not None and (t.ndim != 1 or t.dtype.kind not in "iuf"):
            raise TypeError(
                f"TemporalData: t must be 1-D integer or float timestamps, got "
                f"{list(t.shape)} {t.dtype}"
            )

    @classmethod
    def from_dict(cls, mapping: Mapping[str, Any]) -> TemporalData:
        """``TemporalData(**mapping)``."""
        return cls(**mapping)

    # ------------------------------------------------------------------ access
    def __getattr__(self, key: str) -> Any:
        store = self.__dict__.get("_store")
        if store is not None and key in store:
            return store[key]
        raise AttributeError(f"'TemporalData' object has no attribute {key!r}")

    def __setattr__(self, key: str, value: Any) -> None:
        if key.startswith("_"):
            object.__setattr__(self, key, value)
        else:
            self[key] = value

    def __delattr__(self, key: str) -> None:
        self._store.pop(key, None)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, str):
            return self._store[idx]
        return self.index_select(idx)

    def __setitem__(self, key: str, value: Any) -> None:
        if value is None:
            self._store.pop(key, None)
        else:
            self._store[key] = value

    def __delitem__(self, key: str) -> None:
        self._store.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._store

    def __iter__(self) -> Iterator[TemporalData]:
        """One ``TemporalData`` per event (PyG's)."""
        for i in range(self.num_events):
            yield self[i]

    def __len__(self) -> int:
        return self.num_events

    def __call__(self, *args: str) -> Iterator[tuple[str, Any]]:
        """``(key, value)`` pairs; with ``args``, those keys that are set, in ``args``
        order (PyG's)."""
        for key in args or list(self._store):
            if key in self._store:
                yield key, self._store[key]

    def keys(self) -> list[str]:
        """The keys, in insertion order."""
        return list(self._store)

    def to_dict(self) -> dict[str, Any]:
        """A new dict of the values (the values themselves are shared)."""
        return dict(self._store)

    def to_namedtuple(self) -> tuple:
        """The values as a namedtuple ``TemporalDataTuple`` with the keys as fields."""
        return namedtuple("TemporalDataTuple", self.keys())(*self._store.values())

    def __copy__(self) -> TemporalData:
        out = type(self).__new__(type(self))
        object.__setattr__(out, "_store", dict(self._store))
        return out

    copy = __copy__

    def clone(self) -> TemporalData:
        """A deep copy (PyG's ``clone``): every array copied, on its device."""
        import copy

        return copy.deepcopy(self)

    def to(self, device: str) -> TemporalData:
        """A shallow copy with every array moved to ``device``."""
        out = self.__copy__()
        for key, value in self._store.items():
            out._store[key] = to_device(value, device)
        return out

    def cpu(self) -> TemporalData:
        """``to('cpu')`` (NumPy arrays are shared)."""
        return self.to("cpu")

    def apply(self, fn: Callable[[Any], Any]) -> TemporalData:
        """A new object with ``fn`` applied to every NumPy / CuPy array (as ``Data.apply``;
        ``self`` is left as it is)."""
        out = self.__copy__()
        for key, value in self._store.items():
            if is_array(value):
                out._store[key] = fn(value)
        return out

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, else ``default``."""
        return self._store.get(key, default)

    def validate(self) -> bool:
        """Re-run the constructor's checks (values set later are not checked when set):
        ``ValueError`` / ``TypeError`` naming the key at fault, else ``True``."""
        get_namespace(*[v for v in self._store.values() if is_array(v)])
        self._check()
        return True

    # ------------------------------------------------------------------ sizes
    @property
    def num_events(self) -> int:
        """``src.shape[0]``."""
        src = self._store.get("src")
        if src is None:
            raise ValueError("TemporalData: num_events needs src")
        return int(src.shape[0])

    @property
    def num_edges(self) -> int:
        """Alias of :attr:`num_events`."""
        return self.num_events

    @property
    def num_nodes(self) -> int:
        """``max(src.max(), dst.max()) + 1`` (PyG's rule; see the class RULE)."""
        src, dst = self._store.get("src"), self._store.get("dst")
        if src is None or dst is None or src.shape[0] == 0:
            raise ValueError("TemporalData: num_nodes needs src and dst with at least one event")
        return max(int(src.max()), int(dst.max())) + 1

    def size(self, dim: int | None = None) -> Any:
        """``(src.max(), dst.max())`` as PyG's (no ``+ 1``), or its ``dim`` entry."""
        src, dst = self._store.get("src"), self._store.get("dst")
        if src is None or dst is None or src.shape[0] == 0:
            raise ValueError("TemporalData: size() needs src and dst with at least one event")
        size = (int(src.max()), int(dst.max()))
        return size if dim is None else size[dim]

    @property
    def edge_index(self) -> Any:
        """A stored ``edge_index``, else ``stack([src, dst])`` [2, num_events]."""
        if "edge_index" in self._store:
            return self._store["edge_index"]
        src, dst = self._store.get("src"), self._store.get("dst")
        if src is None or dst is None:
            raise ValueError("TemporalData does not contain 'edge_index' information")
        return get_namespace(src, dst).stack([src, dst], axis=0)

    # ------------------------------------------------------------------ hooks
    def __cat_dim__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> int:
        return 0

    def __inc__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        if "batch" in key and is_array(value):
            return int(value.max()) + 1
        if key in ("src", "dst"):
            return self.num_nodes
        return 0

    # ------------------------------------------------------------------ selection
    def index_select(self, idx: Any) -> TemporalData:
        """The events ``idx`` (int, slice, list / tuple, integer array or bool mask)."""
        n = self.num_events
        if isinstance(idx, (bool, np.bool_)):
            raise IndexError("TemporalData: a bool is not an event index")
        if isinstance(idx, (int, np.integer)):
            idx = slice(int(idx), int(idx) + 1)
        elif isinstance(idx, (list, tuple)):
            idx = np.asarray(idx) if len(idx) else np.zeros(0, np.int64)
        if isinstance(idx, slice):
            pass
        elif is_array(idx) and idx.ndim == 1 and idx.dtype.kind in "iu":
            if idx.shape[0] and (int(idx.min()) < -n or int(idx.max()) >= n):
                raise IndexError(f"TemporalData: event index out of range for {n} events")
        elif is_array(idx) and idx.ndim == 1 and idx.dtype.kind == "b":
            if idx.shape[0] != n:
                raise IndexError(
                    f"TemporalData: bool mask has {idx.shape[0]} entries, expected {n}"
                )
        else:
            raise IndexError(
                "Only strings, integers, slices (`:`), list, tuples, and integer or bool arrays "
                f"are valid indices (got '{type(idx).__name__}')"
            )
        out = self.__copy__()
        for key, value in self._store.items():
            if is_array(value) and value.ndim >= 1 and value.shape[0] == n:
                out._store[key] = value[idx]
        return out

    def train_val_test_split(
        self, val_ratio: float = 0.15, test_ratio: float = 0.15
    ) -> tuple[TemporalData, TemporalData, TemporalData]:
        """Split by time as PyG's: with ``q = numpy.quantile(t, [1 - val - test, 1 - test])``
        the three parts are ``self[:a]``, ``self[a:b]``, ``self[b:]`` where ``a`` / ``b``
        count the events with ``t <= q`` (events are expected in time order).

        RULE: ``t <= q`` is compared as PyG's torch comparison of the tensor ``t`` with a
          float: in float32 (torch's default dtype) for integer ``t``, in ``t``'s own dtype
          for floating ``t``. Integer seconds beyond 2**24 (Unix times) are rounded to
          float32 first, so events a few seconds apart can land in the same part."""
        t = self._store.get("t")
        if t is None:
            raise ValueError("TemporalData.train_val_test_split needs t")
        val_time, test_time = np.quantile(
            to_numpy(t), [1.0 - val_ratio - test_ratio, 1.0 - test_ratio]
        )
        cast = np.dtype(t.dtype if t.dtype.kind == "f" else np.float32)
        t_cmp = t.astype(cast, copy=False)
        val_idx = int((t_cmp <= cast.type(val_time)).sum())
        test_idx = int((t_cmp <= cast.type(test_time)).sum())
        return self[:val_idx], self[val_idx:test_idx], self[test_idx:]

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={_describe(v)}" for k, v in self._store.items())
        return f"TemporalData({body})"
