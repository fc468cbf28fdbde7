"""PyG's ``TUDataset`` over the TU Dortmund raw text files (``read_tu_data``), without torch.

A folder ``root/<name>/raw/`` holding the TU files of one dataset (comma-separated text,
1-based ids) gives the same graphs as ``torch_geometric.datasets.TUDataset(root, name)``:

- ``<name>_A.txt`` (edges ``i, j``) and ``<name>_graph_indicator.txt`` (the graph of each
  node, sorted) are required;
- ``<name>_node_labels.txt`` / ``_edge_labels.txt`` (ints, one column or several) become
  one-hot columns (each column shifted to start at 0, one block per column);
- ``<name>_node_attributes.txt`` / ``_edge_attributes.txt`` (floats) are kept as they are;
- ``x = [node attributes, one-hot node labels]``, ``edge_attr`` the same for edges;
- ``<name>_graph_attributes.txt`` (floats, regression) wins over ``_graph_labels.txt``
  (ints, re-numbered ``0 .. C - 1`` in sorted order) for ``y``;
- self-loops are dropped and the edges coalesced (sorted by ``(row, col)``, duplicates
  merged with their ``edge_attr`` summed), node ids made local to each graph.

``use_node_attr=False`` (the default, as PyG) drops the attribute columns from ``x`` and
keeps the one-hot labels (likewise ``use_edge_attr``); ``num_node_labels``,
``num_node_attributes``, ``num_edge_labels``, ``num_edge_attributes`` give the widths.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> raw = os.path.join(root, "TOY", "raw")
>>> os.makedirs(raw)
>>> files = {"A": "1, 2\\n2, 1\\n3, 4\\n4, 3\\n4, 5\\n5, 4\\n",
...          "graph_indicator": "1\\n1\\n2\\n2\\n2\\n", "graph_labels": "1\\n-1\\n",
...          "node_labels": "0\\n1\\n1\\n2\\n0\\n"}
>>> for key, text in files.items():
...     with open(os.path.join(raw, f"TOY_{key}.txt"), "w") as f:
...         _ = f.write(text)
>>> ds = TUDataset(root, "TOY")
>>> ds, ds[1], ds.num_node_labels, ds.num_classes
(TOY(2), Data(x=[3, 3], edge_index=[2, 4], y=[1]), 3, 2)
>>> ds[1].edge_index.tolist(), ds[1].y.tolist(), ds[0].x.tolist()
([[0, 1, 1, 2], [1, 0, 2, 1]], [0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
"""

from __future__ import annotations

import json
import os
import os.path as osp
import shutil
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn.data import Data
from arraygnn.datasets.download import download_url, extract_zip
from arraygnn.datasets.in_memory import InMemoryDataset, _write

__all__ = ["TUDataset", "read_tu_data"]

_OPTIONAL = (
    "graph_labels",
    "graph_attributes",
    "node_labels",
    "node_attributes",
    "edge_labels",
    "edge_attributes",
)


def _read_txt(path: str, dtype: Any, where: str) -> np.ndarray:
    """A comma-separated text file as a [rows, columns] array (blank lines skipped)."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "loadtxt: input contained no data")
            out = np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)
    except ValueError as err:
        raise ValueError(f"{where}: cannot read {path}: {err}") from None
    return out


def _one_hot_columns(labels: np.ndarray) -> np.ndarray:
    """Each column shifted to start at 0, one-hot encoded (``max + 1`` classes), the blocks
    side by side (float32): PyG's encoding of TU node and edge labels."""
    labels = labels - labels.min(axis=0)
    blocks = []
    for column in labels.T:
        block = np.zeros((column.shape[0], int(column.max()) + 1), dtype=np.float32)
        block[np.arange(column.shape[0]), column] = 1.0
        blocks.append(block)
    return np.concatenate(blocks, axis=1)


def _features(attributes: np.ndarray | None, labels: np.ndarray | None) -> np.ndarray | None:
    parts = [p for p in (attributes, labels) if p is not None and p.size > 0]
    return np.concatenate(parts, axis=1) if parts else None


def read_tu_data(
    folder: str | os.PathLike, prefix: str
) -> tuple[Data, dict[str, np.ndarray], dict[str, int]]:
    """Read the TU files ``folder/<prefix>_*.txt`` as PyG's ``read_tu_data``:
    ``(data, slices, sizes)``, ``data`` every graph collated (local node ids), ``slices``
    the [G + 1] boundaries of each key, ``sizes`` the widths ``num_node_attributes``,
    ``num_node_labels``, ``num_edge_attributes``, ``num_edge_labels``.

    Raises ``FileNotFoundError`` naming a missing required file and ``ValueError`` for
    files that disagree (an unsorted graph indicator, an edge to a missing node or across
    graphs, feature rows that do not match the nodes / edges, a label count that is
    neither the number of graphs nor of nodes); PyG assumes these instead.
    """
    where = "read_tu_data"
    folder = os.fspath(folder)

    def path(name: str) -> str:
        return osp.join(folder, f"{prefix}_{name}.txt")

    for name in ("A", "graph_indicator"):
        if not osp.isfile(path(name)):
            raise FileNotFoundError(f"{where}: {path(name)} is missing (a required TU file)")
    present = {name for name in _OPTIONAL if osp.isfile(path(name))}

    pairs = _read_txt(path("A"), np.int64, where)
    if pairs.size == 0:
        pairs = pairs.reshape(0, 2)
    if pairs.shape[1] != 2:
        raise ValueError(f"{where}: {path('A')} must hold two ids per line, got {pairs.shape[1]}")
    edge_index = np.ascontiguousarray(pairs.T) - 1
    batch = _read_txt(path("graph_indicator"), np.int64, where).reshape(-1) - 1
    n = int(batch.shape[0])
    if n == 0:
        raise ValueError(f"{where}: {path('graph_indicator')} lists no nodes")
    if int(batch.min()) < 0 or bool((np.diff(batch) < 0).any()):
        raise ValueError(
            f"{where}: {path('graph_indicator')} must list graph ids >= 1 in non-decreasing "
            "order (the nodes of each graph consecutive)"
        )
    num_graphs = int(batch[-1]) + 1
    num_edges = int(edge_index.shape[1])
    if num_edges and (int(edge_index.min()) < 0 or int(edge_index.max()) >= n):
        raise ValueError(f"{where}: {path('A')} names node ids outside 1 .. {n}")
    if num_edges and bool((batch[edge_index[0]] != batch[edge_index[1]]).any()):
        raise ValueError(f"{where}: {path('A')} holds edges between nodes of different graphs")

    def rows(name: str, dtype: Any, count: int) -> np.ndarray:
        out = _read_txt(path(name), dtype, where)
        if out.shape[0] != count:
            raise ValueError(f"{where}: {path(name)} has {out.shape[0]} rows, expected {count}")
        return out

    node_attribute = (
        rows("node_attributes", np.float64, n) if "node_attributes" in present else None
    )
    node_label = rows("node_labels", np.int64, n) if "node_labels" in present else None
    edge_attribute = (
        rows("edge_attributes", np.float64, num_edges) if "edge_attributes" in present else None
    )
    edge_label = rows("edge_labels", np.int64, num_edges) if "edge_labels" in present else None
    if node_attribute is not None:
        node_attribute = node_attribute.astype(np.float32)
    if edge_attribute is not None:
        edge_attribute = edge_attribute.astype(np.float32)
    if node_label is not None:
        node_label = _one_hot_columns(node_label)
    if edge_label is not None:
        edge_label = _one_hot_columns(edge_label)
    x = _features(node_attribute, node_label)
    edge_attr = _features(edge_attribute, edge_label)

    y = None
    if "graph_attributes" in present:  # regression
        y = _read_txt(path("graph_attributes"), np.float64, where).astype(np.float32)
        y = y.reshape(-1) if y.shape[1] == 1 else y
    elif "graph_labels" in present:  # classification: labels renumbered in sorted order
        labels = _read_txt(path("graph_labels"), np.int64, where)
        labels = labels.reshape(-1) if labels.shape[1] == 1 else labels
        _, inverse = np.unique(labels, return_inverse=True)
        y = inverse.reshape(labels.shape).astype(np.int64)
    if y is not None and y.shape[0] not in (num_graphs, n):
        raise ValueError(
            f"{where}: the graph labels / attributes have {y.shape[0]} rows for {num_graphs} "
            f"graphs ({n} nodes)"
        )

    from arraygnn.utils.coalesce import coalesce
    from arraygnn.utils.loops import remove_self_loops

    edge_index, edge_attr = remove_self_loops(edge_index, edge_attr)
    edge_index, edge_attr = coalesce(edge_index, edge_attr, n)

    counts = np.bincount(batch, minlength=num_graphs)
    node_slice = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    row_graph = batch[edge_index[0]]
    edge_slice = np.concatenate(
        [[0], np.cumsum(np.bincount(row_graph, minlength=num_graphs))]
    ).astype(np.int64)
    edge_index = edge_index - node_slice[row_graph][None, :]

    store: dict[str, Any] = {}
    slices: dict[str, np.ndarray] = {}
    layout: dict[str, tuple[str, int | None]] = {}
    if x is not None:
        store["x"], slices["x"], layout["x"] = x, node_slice, ("cat", 0)
    store["edge_index"], slices["edge_index"] = edge_index, edge_slice
    layout["edge_index"] = ("cat", 1)
    if edge_attr is not None:
        store["edge_attr"], slices["edge_attr"] = edge_attr, edge_slice
        layout["edge_attr"] = ("cat", 0)
    if y is not None:
        by_node = y.shape[0] == n
        store["y"] = y
        slices["y"] = node_slice if by_node else np.arange(num_graphs + 1, dtype=np.int64)
        layout["y"] = ("cat", 0)
    if x is None:  # the node counts, as PyG's collate keeps them
        store["num_nodes"], slices["num_nodes"] = n, node_slice
        layout["num_nodes"] = ("num_nodes", 0)
    data = Data(**store)
    data._layout = layout
    sizes = {
        "num_node_attributes": 0 if node_attribute is None else int(node_attribute.shape[1]),
        "num_node_labels": 0 if node_label is None else int(node_label.shape[1]),
        "num_edge_attributes": 0 if edge_attribute is None else int(edge_attribute.shape[1]),
        "num_edge_labels": 0 if edge_label is None else int(edge_label.shape[1]),
    }
    return data, slices, sizes


class TUDataset(InMemoryDataset):
    """The TU Dortmund graph kernel benchmarks (``MUTAG``, ``PROTEINS``, ``ENZYMES``,
    ``IMDB-BINARY``, ...), as PyG's ``TUDataset`` (2.8.1).

    Args:
        root: the folder holding ``<name>/raw/`` (``<name>/raw_cleaned/`` when
            ``cleaned``) with the TU files ``<name>_A.txt``, ``<name>_graph_indicator.txt``
            and whichever of ``_graph_labels``, ``_graph_attributes``, ``_node_labels``,
            ``_node_attributes``, ``_edge_labels``, ``_edge_attributes`` the dataset has.
            The processed graphs go to ``<name>/processed/`` (``data.agnn`` and
            ``sizes.json``; PyG's ``data.pt`` may sit beside them).
        name: the dataset's name, the prefix of its files.
        transform / pre_transform / pre_filter / force_reload: as ``InMemoryDataset``.
        use_node_attr / use_edge_attr: keep the continuous attribute columns in ``x`` /
            ``edge_attr`` (else only the one-hot labels).
        cleaned: the non-isomorphic versions (``raw_cleaned/``, ``processed_cleaned/``).

    When the raw files are missing they are downloaded (``<url>/<name>.zip``, PyG's
    source; the network is needed only then); a failed download raises
    ``FileNotFoundError`` saying which files to place where.

    Differs from PyG: processed files are arraygnn arrays files; a last text line without
    a newline is read (PyG drops it); inconsistent raw files raise ``ValueError`` (see
    :func:`read_tu_data`); graphs after the last graph with an edge are kept (PyG's edge
    slices stop at that graph, so its dataset drops them).
    """

    url = "https://www.chrsmrrs.com/graphkerneldatasets"
    cleaned_url = "https://raw.githubusercontent.com/nd7141/graph_datasets/master/datasets"

    def __init__(
        self,
        root: str | os.PathLike,
        name: str,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        pre_filter: Callable[[Any], Any] | None = None,
        force_reload: bool = False,
        use_node_attr: bool = False,
        use_edge_attr: bool = False,
        cleaned: bool = False,
    ) -> None:
        if not isinstance(name, str) or not name or osp.sep in name or name in (".", ".."):
            raise ValueError(
                f"TUDataset: name must be a dataset name (a file prefix), got {name!r}"
            )
        if root is None:
            raise ValueError("TUDataset: root is required (the folder holding <name>/raw/)")
        self.name = name
        self.cleaned = bool(cleaned)
        super().__init__(root, transform, pre_transform, pre_filter, force_reload=force_reload)
        self.load(self.processed_paths[0])
        with open(self.processed_paths[1], encoding="utf-8") as f:
            self.sizes = {k: int(v) for k, v in json.load(f).items()}
        data = self._data
        changed = False
        if "x" in data and not use_node_attr:
            data.x = data.x[:, self.num_node_attributes :]
            changed = True
        if "edge_attr" in data and not use_edge_attr:
            data.edge_attr = data.edge_attr[:, self.num_edge_attributes :]
            changed = True
        if changed:
            self.data = data  # the cut of each graph follows the new arrays

    @property
    def raw_dir(self) -> str:
        return osp.join(self.root, self.name, "raw_cleaned" if self.cleaned else "raw")

    @property
    def processed_dir(self) -> str:
        return osp.join(self.root, self.name, "processed_cleaned" if self.cleaned else "processed")

    @property
    def num_node_labels(self) -> int:
        return self.sizes["num_node_labels"]

    @property
    def num_node_attributes(self) -> int:
        return self.sizes["num_node_attributes"]

    @property
    def num_edge_labels(self) -> int:
        return self.sizes["num_edge_labels"]

    @property
    def num_edge_attributes(self) -> int:
        return self.sizes["num_edge_attributes"]

    @property
    def raw_file_names(self) -> list[str]:
        return [f"{self.name}_A.txt", f"{self.name}_graph_indicator.txt"]

    @property
    def processed_file_names(self) -> list[str]:
        return ["data.agnn", "sizes.json"]

    def download(self) -> None:
        url = f"{self.cleaned_url if self.cleaned else self.url}/{self.name}.zip"
        try:
            path = download_url(url, self.raw_dir, log=self.log)
        except OSError as err:
            optional = ", ".join(f"{self.name}_{o}.txt" for o in _OPTIONAL)
            raise FileNotFoundError(
                f"TUDataset: the raw files of {self.name!r} are not in {self.raw_dir}. Place "
                f"{self.name}_A.txt and {self.name}_graph_indicator.txt there, with "
                f"whichever of {optional} the dataset has (the contents of {url}). "
                f"Downloading them needs network access, and it failed: {err}"
            ) from err
        extract_zip(path, self.raw_dir, log=self.log)
        os.remove(path)
        inner = osp.join(self.raw_dir, self.name)
        if osp.isdir(inner):  # the archive holds a folder <name>/
            for entry in os.listdir(inner):
                os.replace(osp.join(inner, entry), osp.join(self.raw_dir, entry))
            shutil.rmtree(inner)

    def process(self) -> None:
        data, slices, sizes = read_tu_data(self.raw_dir, self.name)
        if self.pre_filter is None and self.pre_transform is None:
            _write(self.processed_paths[0], data, slices)
        else:
            self.data, self.slices = data, slices
            data_list = [self.get(i) for i in range(self.len())]
            if self.pre_filter is not None:
                data_list = [d for d in data_list if self.pre_filter(d)]
            if self.pre_transform is not None:
                data_list = [self.pre_transform(d) for d in data_list]
            self.save(data_list, self.processed_paths[0])
        with open(self.processed_paths[1], "w", encoding="utf-8") as f:
            json.dump(sizes, f)

    def __repr__(self) -> str:
        return f"{self.name}({len(self)})"
