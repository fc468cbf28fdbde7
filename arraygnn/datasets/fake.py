"""PyG's ``FakeDataset`` and ``FakeHeteroDataset``: random graphs for tests and benchmarks.

The same arguments, keys, shapes, dtypes and distributions as PyG 2.8.1: graphs of
``3/4 .. 5/4 * avg_num_nodes`` nodes (uniform), ``int(num_nodes * avg_degree)`` uniformly
drawn edges (self-loops dropped and the graph made undirected for ``FakeDataset``; coalesced
in every case), standard-normal float32 features shifted by the label (``x + y``), float32
uniform ``edge_attr`` (``edge_dim > 1``) or ``edge_weight`` (``edge_dim == 1``), int64 labels
per node (``task="node"``) or one per graph (``task="graph"``; ``"auto"`` picks graph labels
for several graphs), and extra standard-normal keys from ``**kwargs`` (``name=shape``).

RULE: the values are drawn from ``numpy.random.default_rng(seed)``, not from torch's and
Python's global generators as in PyG: the same seed gives the same graphs, never PyG's.

>>> ds = FakeDataset(num_graphs=3, avg_num_nodes=8, avg_degree=2, num_channels=4, seed=0)
>>> ds, ds[0].x.dtype, ds[0].y.shape, ds.num_features
(FakeDataset(3), dtype('float32'), (1,), 4)
>>> h = FakeHeteroDataset(avg_num_nodes=8, avg_degree=2, seed=0)[0]
>>> h.node_types, len(h.edge_types)
(['v0', 'v1', 'v2'], 6)
"""

from __future__ import annotations

import copy
import operator
from collections import defaultdict
from collections.abc import Callable
from itertools import product
from typing import Any

import numpy as np

from arraygnn.data import Data
from arraygnn.datasets.base import infer_num_classes
from arraygnn.datasets.in_memory import InMemoryDataset

__all__ = ["FakeDataset", "FakeHeteroDataset"]


def _int(where: str, name: str, value: Any, low: int = 0) -> int:
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError
        out = operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__}") from None
    if out < low:
        raise ValueError(f"{where}: {name} must be >= {low}, got {out}")
    return out


def _task(where: str, task: Any, num_graphs: int) -> str:
    if task == "auto":
        return "graph" if num_graphs > 1 else "node"
    if task not in ("node", "graph"):
        raise ValueError(f"{where}: task must be 'node', 'graph' or 'auto', got {task!r}")
    return task


def _shapes(where: str, kwargs: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    shapes = {}
    for key, shape in kwargs.items():
        dims = shape if isinstance(shape, (tuple, list)) else (shape,)
        shapes[key] = tuple(_int(where, f"the shape of {key!r}", d) for d in dims)
    return shapes


def _num_nodes(rng: np.random.Generator, avg_num_nodes: int, avg_degree: float) -> int:
    low = max(3 * avg_num_nodes // 4, int(avg_degree))
    high = 5 * avg_num_nodes // 4
    return int(rng.integers(low, high, endpoint=True))


def _edge_index(
    rng: np.random.Generator,
    num_src: int,
    num_dst: int,
    avg_degree: float,
    undirected: bool,
    remove_loops: bool,
) -> np.ndarray:
    from arraygnn.utils.coalesce import coalesce
    from arraygnn.utils.loops import remove_self_loops
    from arraygnn.utils.undirected import to_undirected

    num_edges = int(num_src * avg_degree)
    row = rng.integers(0, num_src, num_edges, dtype=np.int64) if num_src else np.zeros(0, np.int64)
    col = rng.integers(0, num_dst, num_edges, dtype=np.int64) if num_dst else np.zeros(0, np.int64)
    edge_index = np.stack([row, col]) if num_src and num_dst else np.zeros((2, 0), np.int64)
    if remove_loops:
        edge_index, _ = remove_self_loops(edge_index)
    n = max(num_src, num_dst)
    if undirected:
        return to_undirected(edge_index, num_nodes=n)
    return coalesce(edge_index, num_nodes=n)


def _extras(rng: np.random.Generator, shapes: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    return {k: rng.standard_normal(s, dtype=np.float32) for k, s in shapes.items()}


class FakeDataset(InMemoryDataset):
    """Random ``Data`` graphs, as PyG's ``FakeDataset`` (values drawn with NumPy).

    Args:
        num_graphs: graphs to draw (at least one is drawn).
        avg_num_nodes: nodes per graph are uniform in ``[max(3/4 avg, int(avg_degree)),
            5/4 avg]`` (``avg`` raised to ``int(avg_degree)`` first).
        avg_degree: ``int(num_nodes * avg_degree)`` edges are drawn (at least 1 per node).
        num_channels: node feature width (``0``: no ``x``, ``num_nodes`` stored instead).
        edge_dim: ``> 1`` gives ``edge_attr`` [E, edge_dim], ``1`` ``edge_weight`` [E].
        num_classes: label range (``0``: no ``y``).
        task: ``"node"``, ``"graph"`` or ``"auto"`` (graph labels for several graphs).
        is_undirected: return both directions of every edge.
        transform / pre_transform: as ``InMemoryDataset`` (``pre_transform`` is applied
            to every drawn graph; PyG accepts it and ignores it).
        seed: the ``numpy.random.default_rng`` seed (keyword only).
        **kwargs: extra keys and their shapes, e.g. ``global_features=5`` gives a
            standard-normal ``global_features`` [5] on every graph.
    """

    def __init__(
        self,
        num_graphs: int = 1,
        avg_num_nodes: int = 1000,
        avg_degree: float = 10.0,
        num_channels: int = 64,
        edge_dim: int = 0,
        num_classes: int = 10,
        task: str = "auto",
        is_undirected: bool = True,
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        *,
        seed: Any = None,
        **kwargs: int | tuple[int, ...],
    ) -> None:
        where = "FakeDataset"
        num_graphs = _int(where, "num_graphs", num_graphs)
        avg_num_nodes = _int(where, "avg_num_nodes", avg_num_nodes, 1)
        if isinstance(avg_degree, bool) or not isinstance(avg_degree, (int, float, np.number)):
            raise TypeError(f"{where}: avg_degree must be a number, got {avg_degree!r}")
        if pre_transform is not None and not callable(pre_transform):
            raise TypeError(f"{where}: pre_transform must be callable")
        super().__init__(None, transform)
        self.task = _task(where, task, num_graphs)
        self.avg_num_nodes = max(avg_num_nodes, int(avg_degree))
        self.avg_degree = max(float(avg_degree), 1.0)
        self.num_channels = _int(where, "num_channels", num_channels)
        self.edge_dim = _int(where, "edge_dim", edge_dim)
        self._num_classes = _int(where, "num_classes", num_classes)
        self.is_undirected = bool(is_undirected)
        self.kwargs = kwargs
        self._shapes = _shapes(where, kwargs)
        rng = np.random.default_rng(seed)
        data_list = [self.generate_data(rng) for _ in range(max(num_graphs, 1))]
        if pre_transform is not None:
            data_list = [pre_transform(d) for d in data_list]
        self.data, self.slices = self.collate(data_list)

    def generate_data(self, rng: np.random.Generator | None = None) -> Data:
        """One random graph drawn from ``rng`` (a fresh generator when ``None``)."""
        rng = np.random.default_rng() if rng is None else rng
        n = _num_nodes(rng, self.avg_num_nodes, self.avg_degree)
        data = Data()
        if self._num_classes > 0 and self.task == "node":
            data.y = rng.integers(0, self._num_classes, n, dtype=np.int64)
        elif self._num_classes > 0:
            data.y = rng.integers(0, self._num_classes, 1, dtype=np.int64)
        data.edge_index = _edge_index(rng, n, n, self.avg_degree, self.is_undirected, True)
        if self.num_channels > 0:
            x = rng.standard_normal((n, self.num_channels), dtype=np.float32)
            if self._num_classes > 0 and self.task == "node":
                x += data.y[:, None].astype(np.float32)
            elif self._num_classes > 0:
                x += np.float32(data.y[0])
            data.x = x
        else:
            data.num_nodes = n
        num_edges = int(data.edge_index.shape[1])
        if self.edge_dim > 1:
            data.edge_attr = rng.random((num_edges, self.edge_dim), dtype=np.float32)
        elif self.edge_dim == 1:
            data.edge_weight = rng.random(num_edges, dtype=np.float32)
        for key, value in _extras(rng, self._shapes).items():
            data[key] = value
        return data


class FakeHeteroDataset(InMemoryDataset):
    """Random ``HeteroData`` graphs, as PyG's ``FakeHeteroDataset`` (values drawn with
    NumPy).

    Node types ``v0 .. v{num_node_types - 1}``; ``num_edge_types`` edge types
    ``(src, 'e<k>', dst)`` drawn from all ordered pairs of node types (each pair used once
    before any is used twice, ``k`` counting the relations of one pair); per node type a
    feature width uniform in ``[3/4, 5/4] * avg_num_channels`` (``0``: ``num_nodes``
    stored instead); labels on ``v0`` (``task="node"``) or one per graph; directed
    edges, self-loops kept, coalesced. Other arguments as :class:`FakeDataset`.

    Several graphs are kept as a list (``InMemoryDataset`` collates ``Data`` only):
    ``ds[i]``, slicing, ``len`` and ``copy`` work as for any dataset. ``num_classes``
    reads the labels wherever they are (PyG raises ``AttributeError`` for node labels).
    """

    def __init__(
        self,
        num_graphs: int = 1,
        num_node_types: int = 3,
        num_edge_types: int = 6,
        avg_num_nodes: int = 1000,
        avg_degree: float = 10.0,
        avg_num_channels: int = 64,
        edge_dim: int = 0,
        num_classes: int = 10,
        task: str = "auto",
        transform: Callable[[Any], Any] | None = None,
        pre_transform: Callable[[Any], Any] | None = None,
        *,
        seed: Any = None,
        **kwargs: int | tuple[int, ...],
    ) -> None:
        where = "FakeHeteroDataset"
        num_graphs = _int(where, "num_graphs", num_graphs)
        avg_num_nodes = _int(where, "avg_num_nodes", avg_num_nodes, 1)
        num_node_types = _int(where, "num_node_types", num_node_types)
        num_edge_types = _int(where, "num_edge_types", num_edge_types)
        avg_num_channels = _int(where, "avg_num_channels", avg_num_channels)
        if isinstance(avg_degree, bool) or not isinstance(avg_degree, (int, float, np.number)):
            raise TypeError(f"{where}: avg_degree must be a number, got {avg_degree!r}")
        if pre_transform is not None and not callable(pre_transform):
            raise TypeError(f"{where}: pre_transform must be callable")
        self._graphs: list[Any] | None = None
        super().__init__(None, transform)
        self.task = _task(where, task, num_graphs)
        rng = np.random.default_rng(seed)
        self.node_types = [f"v{i}" for i in range(max(num_node_types, 1))]
        pairs = list(product(self.node_types, self.node_types))
        wanted = max(num_edge_types, 1)
        candidates: list[tuple[str, str]] = []
        while len(candidates) < wanted:
            candidates.extend(pairs)
        order = rng.permutation(len(candidates))
        count: dict[tuple[str, str], int] = defaultdict(int)
        self.edge_types: list[tuple[str, str, str]] = []
        for i in order[:wanted]:
            pair = candidates[int(i)]
            self.edge_types.append((pair[0], f"e{count[pair]}", pair[1]))
            count[pair] += 1
        self.avg_num_nodes = max(avg_num_nodes, int(avg_degree))
        self.avg_degree = max(float(avg_degree), 1.0)
        self.num_channels = [
            int(rng.integers(3 * avg_num_channels // 4, 5 * avg_num_channels // 4, endpoint=True))
            for _ in self.node_types
        ]
        self.edge_dim = _int(where, "edge_dim", edge_dim)
        self._num_classes = _int(where, "num_classes", num_classes)
        self.kwargs = kwargs
        self._shapes = _shapes(where, kwargs)
        graphs = [self.generate_data(rng) for _ in range(max(num_graphs, 1))]
        if pre_transform is not None:
            graphs = [pre_transform(g) for g in graphs]
        if len(graphs) == 1:
            self.data, self.slices = self.collate(graphs)
        else:
            self._graphs = graphs

    def generate_data(self, rng: np.random.Generator | None = None) -> Any:
        """One random heterogeneous graph drawn from ``rng``."""
        from arraygnn.hetero_data import HeteroData

        rng = np.random.default_rng() if rng is None else rng
        data = HeteroData()
        sizes = {}
        for i, (node_type, channels) in enumerate(zip(self.node_types, self.num_channels)):
            n = sizes[node_type] = _num_nodes(rng, self.avg_num_nodes, self.avg_degree)
            store = data[node_type]
            if channels > 0:
                store.x = rng.standard_normal((n, channels), dtype=np.float32)
            else:
                store.num_nodes = n
            if self._num_classes > 0 and self.task == "node" and i == 0:
                store.y = rng.integers(0, self._num_classes, n, dtype=np.int64)
        for src, rel, dst in self.edge_types:
            store = data[src, rel, dst]
            store.edge_index = _edge_index(
                rng, sizes[src], sizes[dst], self.avg_degree, False, False
            )
            num_edges = int(store.edge_index.shape[1])
            if self.edge_dim > 1:
                store.edge_attr = rng.random((num_edges, self.edge_dim), dtype=np.float32)
            elif self.edge_dim == 1:
                store.edge_weight = rng.random(num_edges, dtype=np.float32)
        if self._num_classes > 0 and self.task == "graph":
            data.y = rng.integers(0, self._num_classes, 1, dtype=np.int64)
        for key, value in _extras(rng, self._shapes).items():
            data[key] = value
        return data

    def len(self) -> int:
        return len(self._graphs) if self._graphs is not None else super().len()

    def get(self, idx: int) -> Any:
        if self._graphs is not None:
            return copy.copy(self._graphs[idx])
        return super().get(idx)

    def copy(self, idx: Any = None) -> FakeHeteroDataset:
        """A dataset of the graphs of ``indices()`` (or those at ``idx``), its own list."""
        if self._graphs is None:
            return super().copy(idx)  # type: ignore[return-value]
        sub = self if idx is None else self.index_select(idx)
        dataset = copy.copy(self)
        dataset._indices = None
        dataset._graphs = [self._graphs[int(i)] for i in sub.indices()]
        return dataset

    @property
    def num_classes(self) -> int:
        labels = []
        for i in range(self.len()):
            g = self.get(i) if self.transform is None else self.transform(self.get(i))
            y = getattr(g, "y", None)  # graph-level labels
            if y is not None:
                labels.append(np.atleast_1d(y))
            elif "y" in g[self.node_types[0]]:
                labels.append(g[self.node_types[0]].y)
        return infer_num_classes(np.concatenate(labels)) if labels else 0
