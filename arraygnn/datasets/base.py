"""``Dataset``: PyG's dataset base class (``torch_geometric.data.Dataset``) without torch.

A subclass names its raw and processed files and says how to download and process them;
the base class downloads only when a raw file is missing, processes only when a processed
file is missing (or ``force_reload=True``), and indexes graphs by position: an int gives
one graph (through ``transform``), a slice / int array / boolean mask a view sharing the
storage (``index_select``).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.datasets import Dataset
>>> class Squares(Dataset):
...     def len(self):
...         return 4
...     def get(self, idx):
...         return Data(x=np.full((idx + 1, 2), float(idx)), y=np.array([idx % 2]))
>>> ds = Squares()
>>> ds, ds[2], ds.num_features, ds.num_classes
(Squares(4), Data(x=[3, 2], y=[1]), 2, 2)
>>> ds[1::2], ds[1::2].indices().tolist(), len(ds[np.array([True, False, True, True])])
(Squares(2), [1, 3], 3)
"""

from __future__ import annotations

import copy
import os
import os.path as osp
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy
from arraygnn.data import Data

__all__ = ["Dataset", "files_exist", "overrides_method", "to_list"]

MISSING = "???"  # PyG's root when none is given


class Dataset:
    """Dataset base class, as ``torch_geometric.data.Dataset`` (PyG 2.8.1).

    Override ``raw_file_names`` / ``processed_file_names`` (properties: a name or a list of
    names), ``download()`` (fetch into ``self.raw_dir``), ``process()`` (write into
    ``self.processed_dir``), ``len()`` and ``get(idx)``.

    Args:
        root: the folder holding ``raw/`` and ``processed/`` (``~`` is expanded).
        transform: called on every graph on access (``ds[i]``).
        pre_transform / pre_filter: for ``process()`` to apply before saving (PyG leaves
            applying them to ``process()``, and so does this class); their ``repr`` is kept
            in ``processed/pre_transform.txt`` / ``pre_filter.txt``, and a later
            instance made with a different one warns (as PyG, which keeps ``.pt`` files).
        log: print ``Processing...`` / ``Done!`` (and download messages) to stderr;
            never while pytest runs (``PYTEST_CURRENT_TEST``), as PyG.
        force_reload: process again even when the processed files exist.

    RULE: ``download()`` runs only when the class defines it and a raw file is missing;
      ``process()`` only when the class defines it and a processed file is missing (or
      ``force_reload``); an empty file list counts as missing (PyG's rule).
    RULE: ``ds[int]`` is ``transform(get(indices()[int]))``; ``ds[slice | ints | mask]``
      is a shallow copy holding new ``indices()`` (the storage is shared).

    Differs from PyG: local paths only (PyG also takes fsspec URLs); a class that defines
    ``download`` / ``process`` needs a ``root`` (PyG writes into ``./???``); integer
    arrays of any integer dtype index (PyG takes int64 only), a boolean mask must have one
    entry per graph, and a list of bools is a mask too (PyG reads it as the ints 0 / 1);
    ``ds[True]`` is refused (PyG gives graph 1); a 0-d NumPy integer array gives one graph
    as a 0-d tensor does (PyG gives a view of one); ``shuffle`` draws from a NumPy
    generator (``seed=``).
    """

    # ------------------------------------------------------------------ to override
    @property
    def raw_file_names(self) -> str | list[str] | tuple[str, ...]:
        """Files in ``raw_dir`` that must exist to skip :meth:`download`."""
        raise NotImplementedError(f"{type(self).__name__}.raw_file_names is not defined")

    @property
    def processed_file_names(self) -> str | list[str] | tuple[str, ...]:
        """Files in ``processed_dir`` that must exist to skip :meth:`process`."""
        raise NotImplementedError(f"{type(self).__name__}.processed_file_names is not defined")

    def download(self) -> None:
        """Download the raw files into ``self.raw_dir``."""
        raise NotImplementedError

    def process(self) -> None:
        """Process the raw files into ``self.processed_dir``."""
        raise NotImplementedError

    def len(self) -> int:
        """The number of graphs stored (all of them, whatever ``indices()`` holds)."""
        raise NotImplementedError(f"{type(self).__name__}.len() is not defined")

    def get(self, idx: int) -> Any:
        """The graph stored at ``idx`` (no ``transform``)."""
        raise NotImplementedError(f"{type(self).__name__}.get() is not defined")

    # ------------------------------------------------------------------ set-up
    def __init__(
        self,
        root: str | os.PathLike | None = None,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        pre_filter: Callable[[Any], Any] | None = None,
        log: bool = True,
        force_reload: bool = False,
    ) -> None:
        name = type(self).__name__
        for arg, fn in (
            ("transform", transform),
            ("pre_transform", pre_transform),
            ("pre_filter", pre_filter),
        ):
            if fn is not None and not callable(fn):
                raise TypeError(f"{name}: {arg} must be callable, got {type(fn).__name__}")
        if root is not None:
            if not isinstance(root, (str, os.PathLike)):
                raise TypeError(f"{name}: root must be a path, got {type(root).__name__}")
            root = osp.expanduser(osp.normpath(os.fspath(root)))
        self.root = root or MISSING
        self.transform = transform
        self.pre_transform = pre_transform
        self.pre_filter = pre_filter
        self.log = log
        self._indices: np.ndarray | None = None
        self.force_reload = force_reload
        if self.has_download:
            self._download()
        if self.has_process:
            self._process()

    def indices(self) -> Sequence[int]:
        """Positions of this dataset's graphs in the storage (``range(len())`` for all)."""
        return range(self.len()) if self._indices is None else self._indices

    @property
    def raw_dir(self) -> str:
        return osp.join(self.root, "raw")

    @property
    def processed_dir(self) -> str:
        return osp.join(self.root, "processed")

    @property
    def raw_paths(self) -> list[str]:
        """The paths that must exist to skip :meth:`download`."""
        files = self.raw_file_names
        if callable(files):  # file names written as a method, not a property
            files = files()
        return [osp.join(self.raw_dir, f) for f in to_list(files)]

    @property
    def processed_paths(self) -> list[str]:
        """The paths that must exist to skip :meth:`process`."""
        files = self.processed_file_names
        if callable(files):
            files = files()
        return [osp.join(self.processed_dir, f) for f in to_list(files)]

    @property
    def has_download(self) -> bool:
        """Whether the class defines :meth:`download`."""
        return overrides_method(type(self), "download")

    @property
    def has_process(self) -> bool:
        """Whether the class defines :meth:`process`."""
        return overrides_method(type(self), "process")

    def _need_root(self, what: str) -> None:
        if self.root == MISSING:
            raise ValueError(
                f"{type(self).__name__} defines {what}() but has no root: pass root= "
                "(the folder for raw/ and processed/)"
            )

    def _download(self) -> None:
        if files_exist(self.raw_paths):
            return
        self._need_root("download")
        os.makedirs(self.raw_dir, exist_ok=True)
        self.download()

    def _process(self) -> None:
        for what, fn, technique in (
            ("pre_transform", self.pre_transform, "pre-processing technique"),
            ("pre_filter", self.pre_filter, "pre-fitering technique"),  # PyG's words
        ):
            f = osp.join(self.processed_dir, f"{what}.txt")
            if not self.force_reload and osp.exists(f):
                with open(f, encoding="utf-8") as fh:
                    stored = fh.read()
                if stored != _repr(fn):
                    warnings.warn(
                        f"The `{what}` argument differs from the one used in the "
                        "pre-processed version of this dataset. If you want to make use of "
                        f"another {technique}, pass `force_reload=True` explicitly to "
                        "reload the dataset.",
                        stacklevel=3,
                    )
        if not self.force_reload and files_exist(self.processed_paths):
            return
        self._need_root("process")
        _log(self.log, "Processing...")
        os.makedirs(self.processed_dir, exist_ok=True)
        self.process()
        for what, fn in (("pre_transform", self.pre_transform), ("pre_filter", self.pre_filter)):
            with open(osp.join(self.processed_dir, f"{what}.txt"), "w", encoding="utf-8") as fh:
                fh.write(_repr(fn))
        _log(self.log, "Done!")

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        """The number of graphs of this dataset (of ``indices()``)."""
        return len(self.indices())

    def __getitem__(self, idx: Any) -> Any:
        """``ds[int]``: one graph (``transform`` applied); otherwise :meth:`index_select`."""
        if _is_int(idx):
            indices = self.indices()
            n = len(indices)
            i = int(idx)
            if not -n <= i < n:
                raise IndexError(f"{type(self).__name__}: index {i} out of range for {n} graphs")
            data = self.get(int(indices[i]))
            return data if self.transform is None else self.transform(data)
        return self.index_select(idx)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]

    def index_select(self, idx: Any) -> Dataset:
        """A view of the graphs at ``idx``: a slice (float bounds are fractions of the
        length, ``ds[:0.9]``), a sequence / array of ints, or a boolean mask of one entry
        per graph. The storage is shared; only ``indices()`` changes."""
        n = len(self)
        indices = self.indices()
        name = type(self).__name__
        if isinstance(idx, slice):
            start, stop = idx.start, idx.stop
            if isinstance(start, float):
                start = round(start * n)
            if isinstance(stop, float):
                stop = round(stop * n)
            pos = np.arange(n, dtype=np.int64)[slice(start, stop, idx.step)]
        elif isinstance(idx, (str, bytes, dict, set)) or not (
            is_array(idx) or isinstance(idx, (Sequence, range)) or hasattr(idx, "__array__")
        ):
            raise IndexError(
                f"{name}: only slices (':'), lists, tuples and arrays of integers or bools "
                f"are valid indices (got '{type(idx).__name__}')"
            )
        else:
            arr = np.asarray(to_numpy(idx)).reshape(-1)
            if arr.size == 0:
                arr = arr.astype(np.int64)
            if arr.dtype == bool:
                if arr.shape[0] != n:
                    raise IndexError(
                        f"{name}: boolean mask has {arr.shape[0]} entries, the dataset {n} graphs"
                    )
                pos = np.flatnonzero(arr)
            elif arr.dtype.kind in "iu":
                pos = arr.astype(np.int64)
                if pos.size and (pos.min() < -n or pos.max() >= n):
                    bad = int(pos[(pos < -n) | (pos >= n)][0])
                    raise IndexError(f"{name}: index {bad} out of range for {n} graphs")
                pos = np.where(pos < 0, pos + n, pos)
            else:
                raise IndexError(
                    f"{name}: indices must be integers or bools, got dtype {arr.dtype}"
                )
        dataset = copy.copy(self)
        dataset._indices = np.asarray(indices, dtype=np.int64)[pos]
        return dataset

    def shuffle(self, return_perm: bool = False, *, seed: Any = None) -> Any:
        """The dataset in a random order (a view); with ``return_perm`` also the
        permutation (int64 [len]). ``seed``: a ``numpy.random.Generator`` seed."""
        perm = np.random.default_rng(seed).permutation(len(self))
        dataset = self.index_select(perm)
        return (dataset, perm) if return_perm is True else dataset

    def __repr__(self) -> str:
        n = len(self)
        return f"{type(self).__name__}({n if n > 1 else ''})"

    # ------------------------------------------------------------------ statistics
    def get_summary(self) -> Any:
        """PyG's summary statistics of the dataset: a
        :class:`~arraygnn.datasets.summary.Summary` (graphs, nodes and edges per graph)."""
        from arraygnn.datasets.summary import Summary

        return Summary.from_dataset(self)

    def print_summary(self, fmt: str = "psql") -> None:
        """Print :meth:`get_summary` as tables (``fmt``: a ``tabulate`` table format;
        the default ``'psql'`` needs no package)."""
        print(self.get_summary().format(fmt=fmt))

    @property
    def num_node_features(self) -> int:
        """Node feature width of the first graph (``x.shape[-1]``)."""
        data = self[0]
        data = data[0] if isinstance(data, tuple) else data
        if hasattr(data, "num_node_features"):
            return data.num_node_features
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'num_node_features'")

    @property
    def num_features(self) -> int:
        """:attr:`num_node_features` (PyG's alias)."""
        return self.num_node_features

    @property
    def num_edge_features(self) -> int:
        """Edge feature width of the first graph (``edge_attr.shape[-1]``)."""
        data = self[0]
        data = data[0] if isinstance(data, tuple) else data
        if hasattr(data, "num_edge_features"):
            return data.num_edge_features
        raise AttributeError(f"'{type(data).__name__}' object has no attribute 'num_edge_features'")

    @property
    def num_classes(self) -> int:
        """Classes in ``y`` over every graph (``transform`` applied), PyG's rule: integer
        labels [N] give ``max + 1``, float labels [N] the number of distinct values (a
        warning when more than 2), labels [N, C] give ``C``; no ``y`` gives 0."""
        data_list = _flattened([data for data in self])
        with_y = [d.y for d in data_list if "y" in d]
        if data_list and "y" in data_list[0] and is_array(data_list[0].y):
            y = np.concatenate([np.atleast_1d(to_numpy(v)) for v in with_y], axis=0)
        else:
            y = np.asarray([to_numpy(v) for v in with_y])
        return infer_num_classes(y)


def infer_num_classes(y: Any) -> int:
    """The number of classes of labels ``y`` (PyG's ``Dataset._infer_num_classes``)."""
    if y is None:
        return 0
    y = np.asarray(to_numpy(y))
    if y.ndim == 0:
        y = y.reshape(1)
    if y.size == y.shape[0]:
        if y.size == 0:
            return 0
        if y.dtype.kind != "f":
            return int(y.max()) + 1
        num_classes = int(np.unique(y).shape[0])
        if num_classes > 2:
            warnings.warn(
                "Found floating-point labels while calling `dataset.num_classes`. Returning "
                "the number of unique elements. Please make sure that this is expected "
                "before proceeding.",
                stacklevel=3,
            )
        return num_classes
    return int(y.shape[-1])


def overrides_method(cls: type, method_name: str) -> bool:
    """Whether ``cls`` (or a base other than the library's dataset classes) defines
    ``method_name``."""
    if method_name in cls.__dict__:
        return True
    from arraygnn.datasets.in_memory import InMemoryDataset

    return any(
        overrides_method(base, method_name)
        for base in cls.__bases__
        if base not in (Dataset, InMemoryDataset, object)
    )


def to_list(value: Any) -> Sequence[Any]:
    """``value`` if it is a sequence (not a string), else ``[value]``."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return value
    return [value]


def files_exist(files: Sequence[str]) -> bool:
    """All ``files`` exist; ``False`` for no files (then processing runs every time)."""
    return len(files) != 0 and all(osp.exists(f) for f in files)


def _repr(obj: Any) -> str:
    """PyG's ``_repr``: ``str(obj)`` with ``<... at 0x...>`` addresses cut to ``<...>``."""
    if obj is None:
        return "None"
    return re.sub("(<.*?)\\s.*(>)", r"\1\2", str(obj))


def _log(log: bool, message: str) -> None:
    if log and "PYTEST_CURRENT_TEST" not in os.environ:
        print(message, file=sys.stderr)


def _is_int(idx: Any) -> bool:
    if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
        return True
    shape = getattr(idx, "shape", None)  # a 0-d integer array / tensor: one graph
    return shape is not None and len(shape) == 0 and "int" in str(getattr(idx, "dtype", ""))


def _flattened(items: Iterable[Any]) -> list[Any]:
    """Graphs in ``items``, tuples / lists / dicts of graphs opened (PyG's rule)."""
    from arraygnn.hetero_data import HeteroData

    out: list[Any] = []
    for item in items:
        if isinstance(item, (Data, HeteroData)):
            out.append(item)
        elif isinstance(item, (tuple, list)):
            out.extend(_flattened(item))
        elif isinstance(item, dict):
            out.extend(_flattened(item.values()))
    return out
