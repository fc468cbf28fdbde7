"""PyG's ``Planetoid`` (Cora, CiteSeer, PubMed) over the Planetoid raw files, without torch.

A folder ``root/<name>/raw/`` holding the eight files ``ind.<name>.{x, tx, allx, y, ty,
ally, graph, test.index}`` (``<name>`` lower-cased; pickled SciPy sparse matrices, NumPy
arrays and a dict of adjacency lists, plus a text file of test ids) gives the same graph as
``torch_geometric.datasets.Planetoid(root, name)``: ``x`` = ``[allx; tx]`` (float32, dense)
with the test rows put in ``test.index`` order, ``y`` the argmax of ``[ally; ty]``,
``edge_index`` from the adjacency lists without self-loops, coalesced and sorted by
``(col, row)``, and the public split's masks (the ``len(y)`` training nodes first, the 500
nodes after them for validation, the test ids). CiteSeer's isolated test nodes (ids missing
from ``test.index``) get zero rows in ``x`` and label 0, as in PyG.

RULE: the pickles are read by an unpickler that builds only NumPy arrays, SciPy sparse
matrices, dicts / lists / defaultdicts and numbers; a file naming any other class or
function is refused with a ``ValueError`` (PyG unpickles whatever the file holds).

Usage, the raw files placed in ``data/Cora/raw/`` beforehand (no network needed)::

    from arraygnn.datasets import Planetoid
    dataset = Planetoid("data", "Cora")                # as PyG: Cora()
    data = dataset[0]                                  # x [2708, 1433], y, masks
    random = Planetoid("data", "Cora", split="random", seed=0)
"""

from __future__ import annotations

import os
import os.path as osp
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.data import Data
from arraygnn.datasets.download import download_url
from arraygnn.datasets.in_memory import InMemoryDataset

__all__ = ["Planetoid", "read_planetoid_data"]

_NAMES = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")
_NUMPY_MODULES = {
    "numpy",
    "numpy.core.multiarray",
    "numpy._core.multiarray",
    "numpy.core.numeric",
    "numpy._core.numeric",
    "numpy.matrixlib.defmatrix",
}
_NUMPY_NAMES = {"_reconstruct", "scalar", "ndarray", "dtype", "_frombuffer", "matrix"}
_SPARSE_FORMATS = {"csr", "csc", "coo", "lil", "dok", "bsr", "dia"}
_BUILTINS = {
    "object",
    "list",
    "dict",
    "set",
    "frozenset",
    "tuple",
    "int",
    "float",
    "complex",
    "bool",
    "str",
    "bytes",
    "bytearray",
}
_SAFE = {
    ("copy_reg", "_reconstructor"),
    ("copyreg", "_reconstructor"),
    ("_codecs", "encode"),
    ("collections", "defaultdict"),
    ("collections", "OrderedDict"),
}


class _Unpickler(pickle.Unpickler):
    """Builds only arrays, sparse matrices, containers and numbers."""

    def find_class(self, module: str, name: str) -> Any:
        ok = (
            (module, name) in _SAFE
            or (module in ("__builtin__", "builtins") and name in _BUILTINS)
            or (module in _NUMPY_MODULES and name in _NUMPY_NAMES)
            or (module == "numpy.dtypes" and name.endswith("DType"))
            or (
                (module == "scipy.sparse" or module.startswith("scipy.sparse."))
                and name.partition("_")[0] in _SPARSE_FORMATS
                and name.partition("_")[2] in ("matrix", "array")
            )
        )
        if not ok:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        if module.startswith("scipy"):
            try:
                import scipy.sparse  # noqa: F401
            except ImportError:
                raise ImportError(
                    "the Planetoid files x / tx / allx are pickled SciPy sparse matrices: "
                    "install scipy to read them"
                ) from None
        return super().find_class(module, name)


def _load_pickle(path: str, where: str) -> Any:
    with open(path, "rb") as f, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy.core / scipy.sparse.csr
        try:
            return _Unpickler(f, encoding="latin1").load()
        except (
            pickle.UnpicklingError,
            EOFError,
            AttributeError,
            ValueError,
            TypeError,
            KeyError,
            IndexError,
            ModuleNotFoundError,  # a scipy.sparse.* module that does not exist
        ) as err:
            raise ValueError(f"{where}: cannot read {path}: {err}") from None


def _dense(value: Any, path: str, where: str) -> np.ndarray:
    if hasattr(value, "todense"):
        value = _checked_sparse(value, path, where).todense()
    if not isinstance(value, np.ndarray) or value.ndim != 2:
        raise ValueError(f"{where}: {path} must hold a 2-d matrix, got {type(value).__name__}")
    return np.asarray(value, dtype=np.float32)


def _checked_sparse(value: Any, path: str, where: str) -> Any:
    """A SciPy matrix whose index arrays were set by the pickle (no checks on the way) is
    checked before ``todense``, whose C loops would write wherever its indices point."""
    fmt = getattr(value, "format", None)
    try:
        if fmt in ("csr", "csc", "bsr"):
            value.check_format(full_check=True)
            return value
        if fmt == "coo":  # the constructor checks the coordinates against the shape
            return type(value)((value.data, tuple(value.coords)), shape=value.shape)
    except (ValueError, TypeError, AttributeError, IndexError) as err:
        raise ValueError(f"{where}: {path} holds a malformed sparse matrix: {err}") from None
    raise ValueError(
        f"{where}: {path} holds a {fmt!r} sparse matrix; the Planetoid files hold CSR "
        "(csr / csc / bsr / coo are read)"
    )


def read_planetoid_data(folder: str | os.PathLike, prefix: str) -> Data:
    """Read ``folder/ind.<prefix>.*`` as PyG's ``read_planetoid_data``: one ``Data`` with
    ``x``, ``edge_index``, ``y``, ``train_mask``, ``val_mask``, ``test_mask``.

    Raises ``FileNotFoundError`` naming a missing file and ``ValueError`` when the files
    disagree (test ids outside the test rows, an edge to a node that does not exist,
    fewer than ``len(y) + 500`` nodes for the public validation nodes; PyG fails there
    with an ``IndexError``). NELL (``nell.0.001``, a sparse ``x`` in PyG) is not read.
    """
    where = "read_planetoid_data"
    folder = os.fspath(folder)
    if prefix.lower() == "nell.0.001":
        raise ValueError(f"{where}: NELL's sparse features are not supported")
    paths = {name: osp.join(folder, f"ind.{prefix.lower()}.{name}") for name in _NAMES}
    for path in paths.values():
        if not osp.isfile(path):
            raise FileNotFoundError(f"{where}: {path} is missing (one of the 8 Planetoid files)")
    items = {name: _load_pickle(paths[name], where) for name in _NAMES[:-1]}
    x, tx, allx, y, ty, ally = (
        _dense(items[name], paths[name], where) for name in ("x", "tx", "allx", "y", "ty", "ally")
    )
    graph = items["graph"]
    if not isinstance(graph, dict):
        raise ValueError(f"{where}: {paths['graph']} must hold a dict of adjacency lists")
    try:
        test_index = np.loadtxt(paths["test.index"], dtype=np.int64, ndmin=1)
    except ValueError as err:
        raise ValueError(f"{where}: cannot read {paths['test.index']}: {err}") from None
    if test_index.ndim != 1 or test_index.size == 0:
        raise ValueError(f"{where}: {paths['test.index']} must list one test id per line")
    sorted_test_index = np.sort(test_index)
    low = int(sorted_test_index[0])

    if prefix.lower() == "citeseer":
        # isolated test nodes: ids missing from test.index get zero rows
        span = int(sorted_test_index[-1]) - low + 1
        if tx.shape[0] != test_index.shape[0] or ty.shape[0] != test_index.shape[0]:
            raise ValueError(f"{where}: tx / ty must have one row per test id")
        tx_ext = np.zeros((span, tx.shape[1]), dtype=tx.dtype)
        tx_ext[sorted_test_index - low] = tx
        ty_ext = np.zeros((span, ty.shape[1]), dtype=ty.dtype)
        ty_ext[sorted_test_index - low] = ty
        tx, ty = tx_ext, ty_ext

    if allx.shape[1] != tx.shape[1] or ally.shape[1] != ty.shape[1]:
        raise ValueError(f"{where}: allx / tx (or ally / ty) have different widths")
    feats = np.concatenate([allx, tx], axis=0)
    onehot = np.concatenate([ally, ty], axis=0)
    n = int(feats.shape[0])
    if onehot.shape[0] != n:
        raise ValueError(f"{where}: [allx; tx] has {n} rows but [ally; ty] {onehot.shape[0]}")
    if low < 0 or int(sorted_test_index[-1]) >= n:
        raise ValueError(f"{where}: test.index names ids outside 0 .. {n - 1}")
    feats[test_index] = feats[sorted_test_index]
    label = onehot.argmax(axis=1).astype(np.int64)
    label[test_index] = label[sorted_test_index]

    num_train = int(y.shape[0])
    if num_train + 500 > n:
        raise ValueError(
            f"{where}: the public split validates on the 500 nodes after the {num_train} "
            f"training nodes, but the graph has {n} nodes"
        )
    train_mask = np.zeros(n, dtype=bool)
    train_mask[:num_train] = True
    val_mask = np.zeros(n, dtype=bool)
    val_mask[num_train : num_train + 500] = True
    test_mask = np.zeros(n, dtype=bool)
    test_mask[test_index] = True

    edge_index = _edge_index_from_dict(graph, n, paths["graph"], where)
    data = Data(x=feats, edge_index=edge_index, y=label)
    data.train_mask = train_mask
    data.val_mask = val_mask
    data.test_mask = test_mask
    return data


def _edge_index_from_dict(graph: dict, n: int, path: str, where: str) -> np.ndarray:
    """Edges ``(key, v)`` for every ``v`` in ``graph[key]``, self-loops dropped, coalesced
    and sorted by ``(col, row)`` (PyG's ``edge_index_from_dict``)."""
    try:
        counts = [len(v) for v in graph.values()]
        row = np.repeat(np.fromiter(graph.keys(), dtype=np.int64, count=len(graph)), counts)
        col = np.fromiter(
            (int(c) for v in graph.values() for c in v), dtype=np.int64, count=sum(counts)
        )
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: {path} must map node ids to lists of node ids: {err}") from None
    edge_index = np.stack([row, col])
    if edge_index.size and (int(edge_index.min()) < 0 or int(edge_index.max()) >= n):
        raise ValueError(f"{where}: {path} names node ids outside 0 .. {n - 1}")
    from arraygnn.utils.coalesce import coalesce
    from arraygnn.utils.loops import remove_self_loops

    edge_index, _ = remove_self_loops(edge_index)
    return coalesce(edge_index, num_nodes=n, sort_by_row=False)


class Planetoid(InMemoryDataset):
    """The citation graphs Cora, CiteSeer and PubMed, as PyG's ``Planetoid`` (2.8.1).

    Args:
        root: the folder holding ``<name>/raw/`` with the eight raw files
            ``ind.<name lower-cased>.{x, tx, allx, y, ty, ally, graph, test.index}``
            (the processed graph goes to ``<name>/processed/data.agnn``; PyG's ``data.pt``
            may sit beside it).
        name: ``"Cora"``, ``"CiteSeer"`` or ``"PubMed"``.
        split: ``"public"`` (the masks of the raw files), ``"full"`` (every node not
            validated or tested trains), ``"random"`` (``num_train_per_class`` nodes of
            each class train, then ``num_val`` / ``num_test`` of the rest, drawn at random)
            or ``"geom-gcn"`` (ten [N, 10] masks from ``<name>/geom-gcn/raw/
            <name>_split_0.6_0.2_<i>.npz``).
        num_train_per_class, num_val, num_test: the sizes of the ``"random"`` split.
        transform / pre_transform / force_reload: as ``InMemoryDataset``.
        seed: the ``numpy.random.default_rng`` seed of the ``"random"`` split.

    When the raw files are missing they are downloaded (PyG's source; the network is
    needed only then); a failed download raises ``FileNotFoundError`` saying which files
    to place where.

    Differs from PyG: the ``"random"`` split draws from NumPy (``seed=``), not torch, so
    its masks differ from PyG's for any seed; ``split`` is compared lower-cased throughout
    (PyG lower-cases it for the folders only); processed files are arraygnn arrays files.
    """

    url = "https://github.com/kimiyoung/planetoid/raw/master/data"
    geom_gcn_url = "https://raw.githubusercontent.com/graphdml-uiuc-jlu/geom-gcn/master"

    def __init__(
        self,
        root: str | os.PathLike,
        name: str,
        split: str = "public",
        num_train_per_class: int = 20,
        num_val: int = 500,
        num_test: int = 1000,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        force_reload: bool = False,
        *,
        seed: Any = None,
    ) -> None:
        where = "Planetoid"
        if not isinstance(name, str) or not name or osp.sep in name or name in (".", ".."):
            raise ValueError(f"{where}: name must be a dataset name such as 'Cora', got {name!r}")
        if root is None:
            raise ValueError(f"{where}: root is required (the folder holding <name>/raw/)")
        if not isinstance(split, str) or split.lower() not in (
            "public",
            "full",
            "geom-gcn",
            "random",
        ):
            raise ValueError(
                f"{where}: split must be 'public', 'full', 'geom-gcn' or 'random', got {split!r}"
            )
        for arg, value in (
            ("num_train_per_class", num_train_per_class),
            ("num_val", num_val),
            ("num_test", num_test),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{where}: {arg} must be an int >= 0, got {value!r}")
        self.name = name
        self.split = split.lower()
        super().__init__(root, transform, pre_transform, force_reload=force_reload)
        self.load(self.processed_paths[0])

        if self.split == "full":
            data = self.get(0)
            data.train_mask = ~(data.val_mask | data.test_mask)
            self.data, self.slices = self.collate([data])
        elif self.split == "random":
            rng = np.random.default_rng(seed)
            data = self.get(0)
            y = np.asarray(data.y)
            train_mask = np.zeros(y.shape[0], dtype=bool)
            for c in range(self.num_classes):
                idx = np.flatnonzero(y == c)
                train_mask[rng.permutation(idx)[:num_train_per_class]] = True
            remaining = rng.permutation(np.flatnonzero(~train_mask))
            val_mask = np.zeros_like(train_mask)
            val_mask[remaining[:num_val]] = True
            test_mask = np.zeros_like(train_mask)
            test_mask[remaining[num_val : num_val + num_test]] = True
            data.train_mask, data.val_mask, data.test_mask = train_mask, val_mask, test_mask
            self.data, self.slices = self.collate([data])

    @property
    def raw_dir(self) -> str:
        if self.split == "geom-gcn":
            return osp.join(self.root, self.name, "geom-gcn", "raw")
        return osp.join(self.root, self.name, "raw")

    @property
    def processed_dir(self) -> str:
        if self.split == "geom-gcn":
            return osp.join(self.root, self.name, "geom-gcn", "processed")
        return osp.join(self.root, self.name, "processed")

    @property
    def raw_file_names(self) -> list[str]:
        return [f"ind.{self.name.lower()}.{name}" for name in _NAMES]

    @property
    def processed_file_names(self) -> str:
        return "data.agnn"

    def _geom_gcn_names(self) -> list[str]:
        return [f"{self.name.lower()}_split_0.6_0.2_{i}.npz" for i in range(10)]

    def _missing(self, names: list[str], url: str, err: Exception) -> FileNotFoundError:
        return FileNotFoundError(
            f"Planetoid: the raw files of {self.name!r} are not in {self.raw_dir}. Place "
            f"{', '.join(names)} there (from {url}). Downloading them needs network access, "
            f"and it failed: {err}"
        )

    def download(self) -> None:
        names = list(self.raw_file_names)
        try:
            for name in names:
                download_url(f"{self.url}/{name}", self.raw_dir, log=self.log)
        except OSError as err:
            raise self._missing(names, self.url, err) from err
        if self.split == "geom-gcn":
            self._download_geom_gcn()

    def _download_geom_gcn(self) -> None:
        names = self._geom_gcn_names()
        url = f"{self.geom_gcn_url}/splits"
        try:
            for name in names:
                download_url(f"{url}/{name}", self.raw_dir, log=self.log)
        except OSError as err:
            raise self._missing(names, url, err) from err

    def process(self) -> None:
        data = read_planetoid_data(self.raw_dir, self.name)
        if self.split == "geom-gcn":
            names = self._geom_gcn_names()
            if not all(osp.isfile(osp.join(self.raw_dir, n)) for n in names):
                self._download_geom_gcn()
            masks: dict[str, list[np.ndarray]] = {"train_mask": [], "val_mask": [], "test_mask": []}
            for name in names:
                with np.load(osp.join(self.raw_dir, name)) as splits:
                    for key, found in masks.items():
                        found.append(np.asarray(splits[key]))
            for key, found in masks.items():
                setattr(data, key, np.stack(found, axis=1))
        if self.pre_transform is not None:
            data = self.pre_transform(data)
        self.save([data], self.processed_paths[0])

    def __repr__(self) -> str:
        return f"{self.name}()"
