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

``Batch.from_data_list`` (and ``DataLoader``) collate event streams into a
:class:`TemporalDataBatch`, PyG's ``TemporalDataBatch``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_device, to_numpy
from arraygnn.batch import Batch
from arraygnn.data import _describe
from arraygnn.ops._common import check_index

__all__ = ["TemporalData", "TemporalDataBatch"]


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
          float32 first, so events a few seconds apart can land in the same part.
        RULE: ``val_ratio``, ``test_ratio`` and their sum must lie in ``[0, 1]``
          (``TypeError`` / ``ValueError`` naming them; PyG's silently overlaps the parts
          for a negative ratio). An empty stream gives three empty parts (PyG's raises)."""
        t = self._store.get("t")
        if t is None:
            raise ValueError("TemporalData.train_val_test_split needs t")
        from arraygnn.utils.random_graphs import probability_arg

        where = "TemporalData.train_val_test_split"
        val_ratio = probability_arg(where, "val_ratio", val_ratio)
        test_ratio = probability_arg(where, "test_ratio", test_ratio)
        if val_ratio + test_ratio > 1.0:
            raise ValueError(
                "TemporalData.train_val_test_split: val_ratio + test_ratio must be <= 1, got "
                f"{val_ratio} + {test_ratio}"
            )
        if t.shape[0] == 0:
            return self[0:0], self[0:0], self[0:0]
        # clipped: 1 - 0.07 - 0.93 is -1e-16 in floats, which numpy.quantile refuses
        val_time, test_time = np.quantile(
            to_numpy(t), [max(1.0 - val_ratio - test_ratio, 0.0), 1.0 - test_ratio]
        )
        cast = np.dtype(t.dtype if t.dtype.kind == "f" else np.float32)
        t_cmp = t.astype(cast, copy=False)
        val_idx = int((t_cmp <= cast.type(val_time)).sum())
        test_idx = int((t_cmp <= cast.type(test_time)).sum())
        return self[:val_idx], self[val_idx:test_idx], self[test_idx:]

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={_describe(v)}" for k, v in self._store.items())
        return f"{type(self).__name__}({body})"


class TemporalDataBatch(TemporalData):
    """Event streams collated into one, with the records to split them back: what
    ``Batch.from_data_list`` / ``DataLoader`` make of :class:`TemporalData` objects
    (PyG's ``TemporalDataBatch``). It is itself a ``TemporalData`` (``num_events``,
    ``num_nodes``, ``edge_index``, ... of the whole).

    RULE: collation follows the streams' hooks, PyG's for ``TemporalData``: every key is
      concatenated along dimension 0; ``src`` / ``dst`` are increased by the
      ``num_nodes`` (``max(src.max(), dst.max()) + 1``) of the streams before, a key
      containing ``'batch'`` by ``value.max() + 1``. No ``batch`` / ``ptr`` vector is
      added (PyG adds none); ``follow_batch`` / ``exclude_keys`` as for a ``Data``.
    RULE: ``b[i]`` / ``b.get_example(i)`` is stream ``i`` as it was collated (negative
      ``i`` counts from the end); ``b[slice | ids | mask]`` a list of streams;
      ``len(b)`` and iteration go over the streams (PyG's ``len``; its iteration runs
      over the events and fails past ``num_graphs``). Records as :class:`~arraygnn.Batch`.

    Difference: it is not an ``arraygnn.Batch`` (PyG's is a ``Batch`` subclass; here a
    ``Batch`` is a ``Data``, which a ``TemporalData`` is not).

    >>> import numpy as np
    >>> from arraygnn.batch import Batch
    >>> a = TemporalData(src=np.array([0, 1]), dst=np.array([2, 3]), t=np.array([1, 2]))
    >>> b = TemporalData(src=np.array([1]), dst=np.array([0]), t=np.array([5]))
    >>> batch = Batch.from_data_list([a, b])
    >>> batch, batch.num_graphs, batch.src.tolist(), batch.dst.tolist()
    (TemporalDataBatch(src=[3], dst=[3], t=[3]), 2, [0, 1, 5], [2, 3, 4])
    >>> batch[1].src.tolist(), batch[1].dst.tolist()
    ([1], [0])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_data_cls", TemporalData)
        object.__setattr__(self, "_num_graphs", None)
        for name in ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict"):
            object.__setattr__(self, name, {})

    @classmethod
    def from_data_list(
        cls,
        data_list: Any,
        follow_batch: Any = None,
        exclude_keys: Any = None,
    ) -> TemporalDataBatch:
        """Collate ``TemporalData`` objects (all with the same keys); ``ValueError`` /
        ``TypeError`` name the key and stream at fault, as ``Batch.from_data_list``."""
        from arraygnn.batch import _check_keys, _collate

        data_list = list(data_list)
        if not data_list:
            raise ValueError("Batch.from_data_list: data_list is empty (need at least one graph)")
        for i, d in enumerate(data_list):
            if not isinstance(d, TemporalData):
                raise TypeError(
                    f"Batch.from_data_list: graph {i} is a {type(d).__name__}, graph 0 a "
                    "TemporalData (event streams and graphs cannot be mixed)"
                )
        exclude = set(exclude_keys or ())
        follow = list(follow_batch or ())
        stores = [d._store for d in data_list]
        keys = [k for k in stores[0] if k not in exclude]
        for k in follow:
            if k not in keys:
                raise ValueError(f"Batch.from_data_list: follow_batch key {k!r} is not a key")
        try:
            columns = [[store[k] for store in stores] for k in keys]
        except KeyError:
            _check_keys(data_list, exclude)
            raise
        # the streams' own hooks, called per stream (TemporalData's, or a subclass's)
        return _collate(
            cls, type(data_list[0]), data_list, stores, keys, columns, set(follow), False, None
        )

    @classmethod
    def _new(cls, store: dict, data_cls: type, num_graphs: int, records: tuple) -> Any:
        out = cls.__new__(cls)
        object.__setattr__(out, "_store", store)
        object.__setattr__(out, "_data_cls", data_cls)
        object.__setattr__(out, "_num_graphs", int(num_graphs))
        names = ("_slice_dict", "_inc_dict", "_cat_dim_dict", "_kind_dict")
        for name, record in zip(names, records):
            object.__setattr__(out, name, record)
        return out

    # the splitting is Batch's own code, on the same records (arraygnn.batch)
    num_graphs = Batch.num_graphs
    batch_size = Batch.batch_size
    get_example = Batch.get_example
    index_select = Batch.index_select  # type: ignore[assignment]
    to_data_list = Batch.to_data_list
    _splits = Batch._splits

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, str):
            return self._store[idx]
        if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
            return self.get_example(idx)
        if is_array(idx) and idx.ndim == 0 and idx.dtype.kind in "iu":
            return self.get_example(int(idx))
        return self.index_select(idx)

    def __len__(self) -> int:
        return self.num_graphs or 0

    def __iter__(self) -> Iterator[TemporalData]:
        for i in range(len(self)):
            yield self.get_example(i)

    def __copy__(self) -> TemporalDataBatch:
        out = super().__copy__()
        for key, value in self.__dict__.items():  # the records (shared, as PyG's copy)
            if key != "_store":
                object.__setattr__(out, key, value)
        return out

    copy = __copy__
