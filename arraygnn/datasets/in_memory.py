"""``InMemoryDataset``: PyG's in-memory dataset (``torch_geometric.data.InMemoryDataset``).

All graphs live collated in one ``Data`` (``data``) whose arrays are every graph's arrays
concatenated, with ``slices[key]`` ([G + 1] int64) the graph boundaries of each key; graph
``i`` is cut out of them on access (views, no copy). ``save`` / ``load`` keep the
collated arrays in the arrays file format of :mod:`arraygnn.datasets._codec` (raw arrays
behind a JSON header, read with one copy into an aligned buffer; no pickle, no torch).

>>> import numpy as np, tempfile
>>> from arraygnn.data import Data
>>> from arraygnn.datasets import InMemoryDataset
>>> class Rings(InMemoryDataset):
...     def __init__(self, root, transform=None, pre_transform=None):
...         super().__init__(root, transform, pre_transform)
...         self.load(self.processed_paths[0])
...     @property
...     def processed_file_names(self):
...         return ["rings.agnn"]
...     def process(self):
...         graphs = []
...         for n in (3, 4, 5):
...             src = np.arange(n)
...             graphs.append(Data(x=np.ones((n, 2), np.float32),
...                                edge_index=np.stack([src, (src + 1) % n]), y=n % 2))
...         if self.pre_transform is not None:
...             graphs = [self.pre_transform(g) for g in graphs]
...         self.save(graphs, self.processed_paths[0])
>>> root = tempfile.mkdtemp()
>>> ds = Rings(root)                      # processes once, then loads
>>> ds, ds[1], ds[1].y, ds.slices["edge_index"].tolist()
(Rings(3), Data(x=[4, 2], edge_index=[2, 4], y=0), 0, [0, 3, 7, 12])
>>> Rings(root)[2].edge_index.tolist()    # a second instance reads the file
[[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]]
"""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from arraygnn._alignment import aligned_empty
from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.batch import (
    _SCALARS,
    Batch,
    _check_keys,
    _diagnose,
    _plan_array,
    _ptr,
    _scalar_array,
)
from arraygnn.data import Data, data_holding
from arraygnn.dataset import _ranges
from arraygnn.datasets import _codec
from arraygnn.datasets.base import Dataset, infer_num_classes

if TYPE_CHECKING:
    from arraygnn.datasets.on_disk import OnDiskDataset

__all__ = ["InMemoryDataset"]

_FORMAT = "arraygnn.InMemoryDataset"
_KINDS = ("cat", "stack", "scalar", "npscalar", "list", "num_nodes")  # see _Layout


class InMemoryDataset(Dataset):
    """Dataset base class for graphs that fit in memory, as PyG's ``InMemoryDataset``.

    A subclass's ``process()`` calls ``self.save(data_list, self.processed_paths[0])``
    and its ``__init__`` calls ``self.load(self.processed_paths[0])`` after
    ``super().__init__(...)`` (PyG's pattern); ``self.data, self.slices =
    self.collate(data_list)`` also works, as in PyG.

    ``ds[i]`` cuts graph ``i`` out of the collated arrays (views); ``len(ds)`` counts the
    graphs of ``indices()``; ``ds.copy(idx)`` gathers a subset into new arrays; iterating
    a :class:`arraygnn.loader.DataLoader` over it gives the batches of the same graphs.

    RULE: ``collate`` concatenates every array key along its ``__cat_dim__`` (the seed's
      rule: dimension 1 for ``index`` / ``face`` keys, else 0; ``None`` stacks), without
      increments (local ids stay local, as PyG's ``increment=False``); numbers become a [G]
      array, strings and other objects a list; ``slices[key]`` holds the boundaries.
    RULE: ``ds[i]`` gives back graph ``i`` as it was collated: same keys, dtypes and
      shapes, a Python / NumPy number as that number, a 0-d array as a 0-d array,
      ``num_nodes`` as given (the rule of ``Batch.get_example``).

    Differs from PyG: PyG gives numbers and 0-d tensors back as [1] tensors (batches of
    either are equal) and loses an explicit ``num_nodes`` after ``save`` / ``load``
    (``slices["num_nodes"]`` keeps it here); files are arraygnn arrays files, not
    ``torch.save`` pickles (``load`` names a torch file it is given); ``data`` and
    ``slices`` built by hand follow PyG's separation rule (``__cat_dim__`` per key,
    numbers coming back as [1] arrays). There is no cache of separated graphs (PyG's
    ``_data_list``): cutting a graph out is a few array views. Several ``HeteroData``
    graphs are not collated (one is kept as is, as in PyG): keep them in an
    :class:`~arraygnn.datasets.OnDiskDataset`, which stores ``HeteroData`` rows.
    ``collate`` refuses graphs whose keys differ, naming the graph and key (PyG collates
    graph 0's keys: a later graph's extra key is dropped, a missing one is a ``KeyError``).
    ``dataset.<key>`` of a view of no graphs is the key's empty value (``x``: ``[0, F]``;
    PyG raises ``IndexError``).
    """

    def __init__(
        self,
        root: str | os.PathLike | None = None,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        pre_filter: Callable[[Any], Any] | None = None,
        log: bool = True,
        force_reload: bool = False,
    ) -> None:
        # set before processing, so process() may already fill them
        self._data: Any = None
        self._slices: dict[str, np.ndarray] | None = None
        self._view: _Layout | None = None
        super().__init__(root, transform, pre_transform, pre_filter, log, force_reload)

    @property
    def raw_file_names(self) -> str | list[str] | tuple[str, ...]:
        raise NotImplementedError(f"{type(self).__name__}.raw_file_names is not defined")

    @property
    def processed_file_names(self) -> str | list[str] | tuple[str, ...]:
        raise NotImplementedError(f"{type(self).__name__}.processed_file_names is not defined")

    # ------------------------------------------------------------------ storage
    @property
    def data(self) -> Any:
        """The collated storage (PyG warns when it is read, and so does this class)."""
        msg = (
            "It is not recommended to directly access the internal storage format `data` "
            "of an 'InMemoryDataset'."
        )
        if self._indices is not None:
            msg += (
                " The given 'InMemoryDataset' only references a subset of examples of the "
                "full dataset, but 'data' will contain information of the full dataset."
            )
        msg += (
            " If you are absolutely certain what you are doing, access the internal storage "
            "via `InMemoryDataset._data` instead to suppress this warning. Alternatively, "
            "you can access stacked individual attributes of every graph via "
            "`dataset.{attr_name}`."
        )
        warnings.warn(msg, stacklevel=2)
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self._data = value
        self._view = None

    @property
    def slices(self) -> dict[str, np.ndarray] | None:
        """``slices[key]``: [G + 1] boundaries of every graph in ``data[key]``."""
        return self._slices

    @slices.setter
    def slices(self, value: dict[str, Any] | None) -> None:
        self._slices = value
        self._view = None

    def len(self) -> int:
        """The number of stored graphs: 1 when ``slices`` is ``None`` (one graph), the
        length of any slice record minus one otherwise, 0 before anything is loaded."""
        if self._view is not None:
            return self._view.g
        if self._data is None:
            return 0
        if self._slices is None:
            return 1
        for value in self._slices.values():
            return int(np.shape(value)[0]) - 1
        return 0

    def get(self, idx: int) -> Any:
        """Graph ``idx`` of the storage (views into the collated arrays)."""
        view = self._view
        if view is None:
            if self._data is None:
                raise RuntimeError(
                    f"{type(self).__name__}: no data loaded (call self.load(path), or set "
                    "self.data, self.slices = self.collate(data_list))"
                )
            if self.len() == 1:
                return copy.copy(self._data)
            view = self._view = _Layout(self._data, self._slices, type(self).__name__)
        return view.take(idx)

    # ------------------------------------------------------------------ collate / files
    @staticmethod
    def collate(data_list: Sequence[Data]) -> tuple[Data, dict[str, np.ndarray] | None]:
        """Collate ``data_list`` into the storage format: ``(data, slices)``.

        One graph gives ``(data_list[0], None)`` (as PyG). Raises ``ValueError`` /
        ``TypeError`` naming the key and graph for an empty list, non-``Data`` items,
        missing keys and mismatched shapes, dtypes or array kinds.
        """
        with _named("InMemoryDataset.collate"):
            return _collate(data_list)

    @classmethod
    def save(cls, data_list: Sequence[Data], path: str | os.PathLike) -> None:
        """Collate ``data_list`` and write it to ``path`` (an arrays file, written to a
        temporary name and moved into place)."""
        data, slices = cls.collate(data_list)
        _write(path, data, slices)

    def load(
        self, path: str | os.PathLike, data_cls: type | None = None, *, mmap: bool = False
    ) -> None:
        """Read ``path`` (written by :meth:`save`) into ``data`` / ``slices``. The stored
        ``Data`` class is looked up among the modules already imported (a file never makes
        the reader import a module); ``data_cls`` stands in when it is not there.

        ``mmap=True`` maps the file instead of reading it (as ``torch.load(mmap=True)``):
        loading costs only the header, pages are read when first touched and shared
        with other processes mapping the same file; the arrays are copy-on-write (writes
        stay in this process)."""
        where = f"{type(self).__name__}.load"
        value = _codec.load(path, where, fallback=data_cls, mmap=mmap)
        where = f"{where} {os.fspath(path)!r}"
        if not (isinstance(value, dict) and value.get("format") == _FORMAT):
            raise ValueError(f"{where}: the file does not hold an InMemoryDataset")
        data, slices, layout = value.get("data"), value.get("slices"), value.get("layout")
        from arraygnn.hetero_data import HeteroData

        ok = isinstance(data, Data) or (slices is None and isinstance(data, HeteroData))
        if not ok or not (slices is None or isinstance(slices, dict)):
            raise ValueError(f"{where}: the file holds no Data and slices")
        if layout is not None:
            if not isinstance(layout, dict) or not all(
                isinstance(v, list) and len(v) == 2 for v in layout.values()
            ):
                raise ValueError(f"{where}: the file holds a malformed layout")
            data._layout = {k: (kind, cat) for k, (kind, cat) in layout.items()}
        if slices is not None:  # checked against the arrays here (vectorised, no lists)
            _Layout(data, slices, where, lists=False)
        self.data = data
        self.slices = slices

    def copy(self, idx: Any = None) -> InMemoryDataset:
        """A new dataset holding its own arrays: all graphs of ``indices()``, or those at
        ``idx`` (as :meth:`index_select` takes it); gathered key by key, no per-graph
        collation."""
        sub = self if idx is None else self.index_select(idx)
        positions = np.asarray(sub.indices(), dtype=np.int64)
        if positions.shape[0] == 0:
            raise ValueError(f"{type(self).__name__}.copy: no graphs selected")
        dataset = copy.copy(self)
        dataset._indices = None
        if self._slices is None:  # one graph, maybe repeated (collated as PyG)
            with _named(f"{type(self).__name__}.copy"):
                dataset.data, dataset.slices = _collate([self.get(0) for _ in positions])
            return dataset
        if self._view is None:
            self._view = _Layout(self._data, self._slices, type(self).__name__)
        data, slices = _gather(self._view, positions)
        if positions.shape[0] == 1:  # one graph is kept as the graph (PyG's collate)
            data, slices = _Layout(data, slices, type(self).__name__).take(0), None
        dataset.data, dataset.slices = data, slices
        return dataset

    def to_on_disk_dataset(
        self,
        root: str | os.PathLike | None = None,
        backend: str = "sqlite",
        log: bool = True,
    ) -> OnDiskDataset:
        """The graphs of this dataset in an :class:`~arraygnn.datasets.OnDiskDataset` at
        ``root`` (default ``<root>/on_disk``), written there unless its database exists;
        PyG's arguments (``backend``: ``"sqlite"``) and repr (``OnDisk<Name>(<len>)``)."""
        from arraygnn.datasets.on_disk import OnDiskDataset

        if root is None and (self.root == "???" or not os.path.exists(self.root)):
            raise ValueError(
                f"The root directory of '{type(self).__name__}' is not specified. Please "
                "pass in 'root' when creating on-disk datasets from it."
            )
        root = root if root is not None else os.path.join(self.root, "on_disk")
        out = OnDiskDataset(root, transform=self.transform, backend=backend, log=log)
        out._repr_name = f"OnDisk{type(self).__name__}"  # PyG's name for the converted set
        if len(out) == 0:
            chunk = 1000
            ids = list(self.indices())
            for start in range(0, len(ids), chunk):
                out.extend([self.get(int(i)) for i in ids[start : start + chunk]])
        return out

    # ------------------------------------------------------------------ PyG's extras
    @property
    def num_classes(self) -> int:
        """Classes of the stored ``y`` (all graphs, as PyG), or of every transformed graph
        when there is a ``transform``."""
        if self.transform is None:
            store = getattr(self._data, "_store", None) or {}
            return infer_num_classes(store.get("y"))
        return super().num_classes

    def __getattr__(self, key: str) -> Any:
        data = self.__dict__.get("_data")
        if isinstance(data, Data) and key in data:
            if self._indices is None and not _increased(data, key):
                return data[key]
            if len(self.indices()) == 0:  # PyG raises IndexError: here the empty value
                return self._empty_value(key)
            graphs = [self.get(int(i)) for i in self.indices()]  # no transform, as PyG
            return Batch.from_data_list(graphs)[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")

    def _empty_value(self, key: str) -> Any:
        """``dataset.<key>`` of a view of no graphs: the key's value over zero graphs (an
        array of no rows along its concatenation dimension, ``[]``, ``0`` nodes)."""
        view = self._view
        if view is None and self._slices is None:  # one graph stored: a storage of two
            with _named(f"{type(self).__name__}.{key}"):
                view = _Layout(*_collate([self.get(0)] * 2), type(self).__name__)
        elif view is None:
            view = self._view = _Layout(self._data, self._slices, type(self).__name__)
        data, _ = _gather(view, np.zeros(0, np.int64))
        if key not in data:
            raise AttributeError(f"'{type(self).__name__}' view of no graphs: no {key!r}")
        return data[key]

    def to(self, device: str) -> InMemoryDataset:
        """Move the whole storage to ``device`` (``'cpu'``, ``'cuda'``), in place."""
        if self._indices is not None:
            raise ValueError(
                "The given 'InMemoryDataset' only references a subset of examples of the "
                "full dataset"
            )
        self.data = self._data.to(device)  # a copy: its layout record comes along
        return self

    def cpu(self) -> InMemoryDataset:
        return self.to("cpu")

    def cuda(self) -> InMemoryDataset:
        return self.to("cuda")


# ---------------------------------------------------------------------- internals
@contextmanager
def _named(where: str) -> Any:
    """Re-word ``Batch.from_data_list`` errors raised by the shared helpers."""
    try:
        yield
    except (ValueError, TypeError) as err:
        text = str(err)
        if text.startswith("Batch.from_data_list"):
            raise type(err)(where + text[len("Batch.from_data_list") :]) from err
        raise


def _collate(data_list: Sequence[Any]) -> tuple[Any, dict[str, np.ndarray] | None]:
    if not isinstance(data_list, (list, tuple)):
        data_list = list(data_list)
    if len(data_list) == 0:
        raise ValueError("InMemoryDataset.collate: data_list is empty (need at least one graph)")
    from arraygnn.hetero_data import HeteroData

    if len(data_list) == 1 and isinstance(data_list[0], (Data, HeteroData)):
        return data_list[0], None
    for i, d in enumerate(data_list):
        if not isinstance(d, Data):
            hint = (
                "; several HeteroData graphs are not collated here: keep them in an "
                "OnDiskDataset, or subclass Dataset and define get()"
                if isinstance(d, HeteroData)
                else ""
            )
            raise TypeError(
                f"InMemoryDataset.collate: graph {i} is a {type(d).__name__}, not an "
                f"arraygnn Data{hint}"
            )
    g = len(data_list)
    first = data_list[0]
    data_cls = type(first)
    types = set(map(type, data_list))
    default_cat = all(t.__cat_dim__ is Data.__cat_dim__ for t in types)
    stores = [d._store for d in data_list]
    _check_keys(data_list, set())
    graph_range = np.arange(g + 1, dtype=np.int64)
    store: dict[str, Any] = {}
    slices: dict[str, np.ndarray] = {}
    layout: dict[str, tuple[str, int | None]] = {}
    xp_seen = None
    for key in first._store:
        values = [s[key] for s in stores]
        v0 = values[0]
        if key == "num_nodes" and (isinstance(v0, _SCALARS) or getattr(v0, "ndim", 1) == 0):
            counts = _scalar_array(key, [v[()] if is_array(v) else v for v in values])
            if counts.dtype.kind not in "iu":
                raise TypeError(
                    f"InMemoryDataset.collate: key 'num_nodes' in graph 0 must be an int, "
                    f"got {v0!r}"
                )
            if counts.size and int(counts.min()) < 0:
                i = int(np.argmin(counts))
                raise ValueError(
                    f"InMemoryDataset.collate: key 'num_nodes' in graph {i} is {counts[i]}"
                )
            sl = _ptr(counts.astype(np.int64))
            store[key], slices[key], layout[key] = int(sl[-1]), sl, ("num_nodes", 0)
        elif is_array(v0):
            xp = get_namespace(v0)
            if xp_seen is not None and xp is not xp_seen:
                raise TypeError(
                    f"InMemoryDataset.collate: key {key!r} is a {xp.__name__} array but "
                    f"earlier keys are {xp_seen.__name__} arrays; move every array to one device"
                )
            xp_seen = xp
            cat, _, sl, shape = _plan_array(key, data_list, values, default_cat, g)
            out = aligned_empty(shape, v0.dtype) if xp is np else xp.empty(shape, v0.dtype)
            try:
                if cat is None:
                    xp.stack(values, axis=0, out=out, casting="equiv")
                else:
                    xp.concatenate(values, axis=cat, out=out, casting="equiv")
            except (ValueError, TypeError, IndexError) as err:
                raise _diagnose(key, values, cat, err) from err
            store[key], slices[key] = out, sl
            layout[key] = ("cat", cat) if cat is not None else ("stack", None)
        elif isinstance(v0, _SCALARS):
            store[key], slices[key] = _scalar_array(key, values), graph_range
            layout[key] = ("npscalar" if isinstance(v0, np.generic) else "scalar", None)
        else:
            for i, v in enumerate(values):
                if is_array(v) or isinstance(v, _SCALARS):
                    raise TypeError(
                        f"InMemoryDataset.collate: key {key!r} in graph {i} is a "
                        f"{type(v).__name__} but graph 0 holds a {type(v0).__name__}"
                    )
            store[key], slices[key], layout[key] = list(values), graph_range, ("list", None)
    data = data_holding(data_cls, store)
    data._layout = layout
    return data, slices


class _Layout:
    """How graph ``i`` is cut out of a storage: one ``(key, kind, value, boundaries,
    leading slices)`` entry per key, the boundaries as Python ints (the cut of a graph is a
    few list reads and array views). ``kind`` is as in ``Batch._kind_dict``.

    RULE: the slices are checked first (integer [G + 1], not decreasing, ending at the
      array's length; known kinds), so a bad storage never cuts the wrong rows;
      ``lists=False`` only checks (what ``load`` runs, before any graph is read)."""

    def __init__(
        self, data: Any, slices: dict[str, Any] | None, name: str, lists: bool = True
    ) -> None:
        if not isinstance(data, Data):
            raise TypeError(f"{name}: data must be an arraygnn Data, got {type(data).__name__}")
        if not isinstance(slices, dict):
            raise TypeError(f"{name}: slices must be a dict of [G + 1] arrays")
        self.name, self.cls = name, type(data)
        self.g = 0
        self.plan: list[tuple[str, str, Any, list[int], np.ndarray, int | None]] = []
        layout = getattr(data, "_layout", None) or {}
        g = None
        for key, sl in slices.items():
            if key not in data:
                continue  # PyG separates the keys present in both
            sl = np.asarray(to_numpy(sl))
            if sl.dtype.kind not in "iu" or sl.ndim != 1 or sl.shape[0] == 0:
                raise ValueError(
                    f"{name}: slices[{key!r}] must be a [G + 1] integer array, got "
                    f"{sl.dtype} of shape {list(sl.shape)}"
                )
            sl = sl.astype(np.int64, copy=False)
            if g is None:
                g = sl.shape[0] - 1
            if sl.shape[0] != g + 1:
                raise ValueError(
                    f"{name}: slices[{key!r}] has shape {list(sl.shape)}, expected [{g + 1}]"
                )
            value = data[key]
            kind, cat = layout.get(key) or _pyg_rule(data, key, value, name)
            if kind not in _KINDS or (kind == "cat" and not (type(cat) is int and cat >= 0)):
                raise ValueError(f"{name}: key {key!r} has an unknown layout {kind!r}, {cat!r}")
            if kind in ("cat", "num_nodes") and sl.shape[0]:
                steps = np.diff(sl)
                if int(sl[0]) < 0:
                    raise ValueError(f"{name}: slices[{key!r}] starts at {int(sl[0])}")
                if steps.size and int(steps.min()) < 0:
                    at = int(np.flatnonzero(steps < 0)[0])
                    raise ValueError(
                        f"{name}: slices[{key!r}] decreases at graph {at} "
                        f"({int(sl[at])} then {int(sl[at + 1])})"
                    )
            if kind == "cat":
                if not is_array(value) or value.ndim == 0:
                    raise ValueError(f"{name}: data.{key} is not an array of graphs")
                cat = cat if cat < value.ndim else 0
                if value.shape[cat] != int(sl[-1]):
                    raise ValueError(
                        f"{name}: slices[{key!r}] ends at {int(sl[-1])} but data.{key} has "
                        f"{value.shape[cat]} entries along dimension {cat}"
                    )
            elif kind != "num_nodes" and (
                not (is_array(value) or isinstance(value, (list, tuple)))
                or getattr(value, "ndim", 1) == 0
                or len(value) != g
            ):
                raise ValueError(f"{name}: data.{key} does not hold one entry per graph ({g})")
            self.plan.append((key, kind, value, sl.tolist() if lists else [], sl, cat))
        self.g = g or 0

    def take(self, i: int) -> Any:
        """Graph ``i``: views of the arrays, numbers and strings as stored."""
        if not 0 <= i < self.g:
            raise IndexError(f"{self.name}: graph {i} out of range for {self.g} graphs")
        store: dict[str, Any] = {}
        for key, kind, value, sl, _, cat in self.plan:
            if kind == "cat":
                cut = slice(sl[i], sl[i + 1])
                store[key] = value[cut] if cat == 0 else value[(slice(None),) * cat + (cut,)]
            elif kind == "stack":
                store[key] = value[i, ...]
            elif kind == "scalar":
                v = value[i]
                store[key] = v.item() if hasattr(v, "item") else v
            elif kind == "num_nodes":
                store[key] = sl[i + 1] - sl[i]
            else:  # npscalar, list
                store[key] = value[i]
        return data_holding(self.cls, store)


def _pyg_rule(data: Data, key: str, value: Any, name: str) -> tuple[str, int | None]:
    """PyG's ``separate`` for one key of a hand-made storage: numbers count nodes for
    ``num_nodes``; arrays are cut along ``__cat_dim__`` (dimension 0 when the hook names a
    dimension the stored array lacks, a stacked 0-d value), ``None`` indexes dimension 0;
    lists are indexed."""
    if key == "num_nodes" and not isinstance(value, (list, tuple)):
        return "num_nodes", 0
    if is_array(value):
        cat = data.__cat_dim__(key, value)
        if cat is None:
            return "stack", None
        return "cat", int(cat) + value.ndim if cat < 0 else int(cat)
    if isinstance(value, (list, tuple)):
        return "list", None
    raise TypeError(
        f"{name}: data.{key} is a {type(value).__name__}; slices apply to arrays and lists"
    )


def _gather(layout: _Layout, positions: np.ndarray) -> tuple[Any, dict[str, np.ndarray]]:
    """The storage of the graphs at ``positions`` (new arrays), key by key."""
    store: dict[str, Any] = {}
    slices: dict[str, np.ndarray] = {}
    kinds: dict[str, tuple[str, int | None]] = {}
    for key, kind, value, _, sl, cat in layout.plan:
        sizes = np.diff(sl)[positions]
        if kind == "cat":
            rows = _ranges(sl[:-1][positions], sizes)
            xp = get_namespace(value)
            store[key] = xp.take(value, xp.asarray(rows), axis=cat)
        elif kind == "num_nodes":
            store[key] = int(sizes.sum())
        elif kind == "list":
            store[key] = [value[int(i)] for i in positions]
        else:
            store[key] = value[positions]
        slices[key] = _ptr(sizes)
        kinds[key] = (kind, cat)
    data = data_holding(layout.cls, store)
    data._layout = kinds
    return data, slices


def _increased(data: Data, key: str) -> bool:
    try:
        inc = data.__inc__(key, data[key])
    except ValueError:
        return True
    return bool(np.any(inc != 0))


def _write(path: str | os.PathLike, data: Any, slices: dict[str, Any] | None) -> None:
    layout = getattr(data, "_layout", None)
    value = {
        "format": _FORMAT,
        "data": data,
        "slices": slices,
        "layout": None if layout is None else {k: list(v) for k, v in layout.items()},
    }
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            _codec.dump(value, f, "InMemoryDataset.save")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
