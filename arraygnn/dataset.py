"""``PackedDataset``: every graph concatenated once, plus offsets; batches by index arithmetic.

A training batch is gathered straight from the packed arrays (``np.take`` with row ids
built from the offsets), with no per-graph Python work and no collate -> separate ->
collate round trip.

>>> import numpy as np
>>> from arraygnn.dataset import PackedDataset
>>> ds = PackedDataset.from_arrays(
...     num_nodes=np.array([2, 3]), num_edges=np.array([1, 2]),
...     node_features={"x": np.arange(5.0)[:, None]},
...     edge_index=np.array([[0, 0, 1], [1, 1, 2]]),
...     edge_features={}, graph_features={"y": np.array([0.5, 1.5])})
>>> len(ds), ds[1]
(2, Data(x=[3, 1], edge_index=[2, 2], y=[1]))
>>> b = ds.collate([1, 0])
>>> b.edge_index.tolist()
[[0, 1, 3], [1, 2, 4]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from arraygnn.batch import (
    _SCALAR_KINDS,
    Batch,
    _add_increments,
    _Arena,
    _check_local_ids,
    _exclusive_cumsum,
    _ptr,
    add_scalar_increments,
    scalar_increased,
)
from arraygnn.data import Data, _is_index_key, data_holding

__all__ = ["PackedDataset"]


def _as_counts(name: str, a: Any) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise TypeError(
            f"PackedDataset: {name} must be a 1-D integer array, got {arr.dtype} {list(arr.shape)}"
        )
    if arr.size and arr.min() < 0:
        raise ValueError(
            f"PackedDataset: {name} has a negative entry at graph {int(np.argmax(arr < 0))}"
        )
    return arr.astype(np.int64, copy=False)


class PackedDataset:
    """Graphs stored as packed arrays: nodes, edges and graph rows of all graphs back to back.

    - ``num_nodes`` / ``num_edges``: [G] int.
    - node features: [sum(num_nodes), ...]; edge features: [sum(num_edges), ...].
    - ``edge_index``: [2, sum(num_edges)] with LOCAL (per-graph, 0-based) node ids.
    - graph features: [G, ...]; graph ``i`` sees row ``i`` as an array [1, ...] (as PyG's
      ``y``), so a batch holds [B, ...].

    ``ds[i]`` is a ``data_cls`` graph (views into the packed arrays), ``ds[idx]`` with an
    int array / slice a new ``PackedDataset``, ``ds.collate(indices)`` a ``Batch`` equal to
    ``Batch.from_data_list([ds[i] for i in indices])``.

    ``transform`` (PyG's dataset ``transform``, e.g. an :mod:`arraygnn.transforms`
    transform): applied to every graph on access (``ds[i]``, ``ds.get(i)``) and so to every
    graph of ``ds.collate`` / a ``DataLoader`` batch, which then collates graph by graph;
    a subset keeps it. It may be set or cleared later (``ds.transform = ...``). It must not
    write into the arrays it receives (views of the packed arrays); the transforms of
    :mod:`arraygnn.transforms` never do.

    RULE: every ``edge_index`` entry of graph i lies in ``[0, num_nodes[i])`` (checked once).
    RULE: other id keys (``'index'`` / ``'face'`` in the name) hold each graph's own ids; a
      1-D one is range-checked and increased in a batch as ``Batch.from_data_list`` does,
      one of two or more dimensions (which ``Batch`` concatenates along its last dimension)
      makes ``collate`` go graph by graph.
    """

    def __init__(
        self,
        num_nodes: np.ndarray,
        num_edges: np.ndarray,
        node_features: dict[str, np.ndarray],
        edge_index: np.ndarray | None,
        edge_features: dict[str, np.ndarray],
        graph_features: dict[str, Any],
        data_cls: type = Data,
        *,
        graph_scalars: dict[str, str] | None = None,
        validate: bool = True,
        transform: Callable[[Data], Any] | None = None,
    ) -> None:
        if transform is not None and not callable(transform):
            raise TypeError(
                f"PackedDataset: transform must be callable, got {type(transform).__name__}"
            )
        self.transform = transform
        self.num_nodes = _as_counts("num_nodes", num_nodes)
        self.num_edges = _as_counts("num_edges", num_edges)
        g = self.num_nodes.shape[0]
        if self.num_edges.shape[0] != g:
            raise ValueError(
                f"PackedDataset: num_nodes has {g} graphs, num_edges {self.num_edges.shape[0]}"
            )
        if not (isinstance(data_cls, type) and issubclass(data_cls, Data)):
            raise TypeError(f"PackedDataset: data_cls must be a Data subclass, got {data_cls!r}")
        self.node_ptr = _ptr(self.num_nodes)
        self.edge_ptr = _ptr(self.num_edges)
        n_total, e_total = int(self.node_ptr[-1]), int(self.edge_ptr[-1])
        self.node_features = dict(node_features)
        self.edge_features = dict(edge_features)
        self.graph_features = dict(graph_features)
        self.data_cls = data_cls
        # key -> "scalar" (Python scalar per graph) or "npscalar" (NumPy scalar per graph)
        self.graph_scalars = dict(graph_scalars or {})
        names: dict[str, str] = {}
        for group, feats, rows in (
            ("node feature", self.node_features, n_total),
            ("edge feature", self.edge_features, e_total),
            ("graph feature", self.graph_features, g),
        ):
            for key, v in feats.items():
                if key in names or key in ("edge_index", "num_nodes", "batch", "ptr"):
                    raise ValueError(f"PackedDataset: key {key!r} used twice ({group})")
                names[key] = group
                if not isinstance(v, np.ndarray):
                    raise TypeError(
                        f"PackedDataset: {group} {key!r} must be a NumPy array, "
                        f"got {type(v).__name__}"
                    )
                if v.ndim == 0 or v.shape[0] != rows:
                    raise ValueError(
                        f"PackedDataset: {group} {key!r} has shape "
                        f"{list(v.shape)}, expected [{rows}, ...]"
                    )
        self.edge_index = edge_index
        if edge_index is not None:
            if not isinstance(edge_index, np.ndarray):
                raise TypeError("PackedDataset: edge_index must be a NumPy array")
            if edge_index.dtype.kind not in "iu":
                raise TypeError(
                    f"PackedDataset: edge_index must hold integers, got {edge_index.dtype}"
                )
            if edge_index.ndim != 2 or edge_index.shape != (2, e_total):
                raise ValueError(
                    f"PackedDataset: edge_index has shape "
                    f"{list(edge_index.shape)}, expected [2, {e_total}]"
                )
            if validate and e_total:
                limit = np.repeat(self.num_nodes, self.num_edges)
                bad = (edge_index.min(axis=0) < 0) | (edge_index.max(axis=0) >= limit)
                if bad.any():
                    e = int(np.argmax(bad))
                    gi = int(np.searchsorted(self.edge_ptr, e, side="right") - 1)
                    col = edge_index[:, e]
                    node = int(col.min()) if col.min() < 0 else int(col.max())
                    raise ValueError(
                        f"PackedDataset: edge_index of graph {gi} holds node id {node}, "
                        f"outside [0, {int(self.num_nodes[gi])}) (local ids expected)"
                    )
        elif e_total:
            raise ValueError("PackedDataset: num_edges is non-zero but edge_index is None")
        default = data_cls.__inc__ is Data.__inc__ and data_cls.__cat_dim__ is Data.__cat_dim__
        self._default_hooks = default

    @classmethod
    def from_arrays(
        cls,
        num_nodes: Any,
        num_edges: Any,
        node_features: dict[str, np.ndarray],
        edge_index: np.ndarray | None,
        edge_features: dict[str, np.ndarray],
        graph_features: dict[str, Any],
        data_cls: type = Data,
        *,
        transform: Callable[[Data], Any] | None = None,
    ) -> PackedDataset:
        """Build from packed arrays (see the class docstring); arrays are kept, not copied."""
        return cls(
            num_nodes, num_edges, node_features, edge_index, edge_features, graph_features,
            data_cls, transform=transform,
        )  # fmt: skip

    @classmethod
    def from_data_list(
        cls,
        data_list: Sequence[Data],
        node_keys: Iterable[str] = ("x", "pos"),
        edge_keys: Iterable[str] = ("edge_attr", "edge_weight"),
        *,
        transform: Callable[[Data], Any] | None = None,
    ) -> PackedDataset:
        """Pack ``Data`` graphs (default hooks): ``edge_index`` plus named node / edge keys.

        Keys in ``node_keys`` must have ``num_nodes`` rows, keys in ``edge_keys``
        ``num_edges`` rows; every other key is a graph feature: an array with one row
        ([1, ...]) or a Python / NumPy scalar. ``num_nodes`` must be known for every graph.
        """
        if len(data_list) == 0:
            raise ValueError("PackedDataset.from_data_list: data_list is empty")
        narrow: dict[str, np.dtype] = {}
        try:
            batch = Batch.from_data_list(data_list)
        except OverflowError:
            # a narrow index key (int16 edge_index, an int8 center_index) cannot hold the
            # whole dataset's batched ids; the packed store keeps each graph's own ids, which
            # fit it: collate int64 copies, then give the ids their dtype back
            narrow = _index_dtypes(data_list[0])
            batch = Batch.from_data_list([_with_int64_ids(d) for d in data_list])
        index_dtype = narrow.get("edge_index")
        data_cls = batch._data_cls
        if not (data_cls.__inc__ is Data.__inc__ and data_cls.__cat_dim__ is Data.__cat_dim__):
            raise TypeError(
                "PackedDataset.from_data_list: graphs must keep the default "
                "__inc__ / __cat_dim__ hooks"
            )
        g = batch.num_graphs
        if "ptr" not in batch:
            i = next(j for j, d in enumerate(data_list) if d.num_nodes is None)
            raise ValueError(f"PackedDataset.from_data_list: graph {i} has no num_nodes / x")
        num_nodes = np.diff(batch.ptr)
        node_keys, edge_keys = set(node_keys), set(edge_keys)
        if "edge_index" in batch:
            num_edges = np.diff(batch._slice_dict["edge_index"])
            edge_index = batch.edge_index - np.repeat(batch.ptr[:-1], num_edges).astype(
                batch.edge_index.dtype
            )
            if index_dtype is not None:
                edge_index = edge_index.astype(index_dtype)  # local ids came from that dtype
        else:
            num_edges, edge_index = np.zeros(g, np.int64), None
        nodes, edges, graphs, scalars = {}, {}, {}, {}
        for key, kind in batch._kind_dict.items():
            if key in ("edge_index", "num_nodes"):
                continue
            sl = batch._slice_dict[key]
            value = batch[key]
            want = num_nodes if key in node_keys else num_edges if key in edge_keys else None
            if kind == "cat" and _is_index_key(key) and batch._cat_dim_dict[key] == 0:
                # a 1-D id key (PyG's -1 is its dim 0) was increased by the batch: keep
                # each graph's own ids, in their own dtype
                inc = np.asarray(batch._inc_dict[key])
                if inc.any():
                    value = value - np.repeat(inc, np.diff(sl)).astype(value.dtype)
                if key in narrow:
                    value = value.astype(narrow[key])
            if want is not None:
                if (
                    kind != "cat"
                    or batch._cat_dim_dict[key] != 0
                    or not np.array_equal(np.diff(sl), want)
                ):
                    i = int(np.argmax(np.diff(sl) != want)) if kind == "cat" else 0
                    what = "node" if key in node_keys else "edge"
                    raise ValueError(
                        f"PackedDataset.from_data_list: key {key!r} in graph {i} "
                        f"does not have one row per {what}"
                    )
                (nodes if key in node_keys else edges)[key] = value
            elif kind in _SCALAR_KINDS or (kind == "stack" and value.ndim == 1):
                # one number per graph (a 0-d array stacks to [G]); an integer index key
                # was increased by the batch: keep each graph's own value
                inc = np.asarray(batch._inc_dict[key])
                local = value - inc.astype(value.dtype) if inc.any() else value
                graphs[key] = local.astype(narrow[key]) if key in narrow else local
                scalars[key] = kind
            elif (
                kind == "cat"
                and batch._cat_dim_dict[key] == 0
                and np.array_equal(np.diff(sl), np.ones(g, np.int64))
            ):
                graphs[key] = value
            else:
                raise ValueError(
                    f"PackedDataset.from_data_list: key {key!r} is neither a node "
                    f"key {sorted(node_keys)}, an edge key {sorted(edge_keys)}, "
                    "nor a graph feature with one row per graph"
                )
        return cls(
            num_nodes,
            num_edges,
            nodes,
            edge_index,
            edges,
            graphs,
            data_cls,
            graph_scalars=scalars,
            validate=False,
            transform=transform,
        )

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return int(self.num_nodes.shape[0])

    def __repr__(self) -> str:
        return (
            f"PackedDataset({len(self)} graphs, {int(self.node_ptr[-1])} nodes, "
            f"{int(self.edge_ptr[-1])} edges, keys={self.keys()})"
        )

    def keys(self) -> list[str]:
        """Keys of every graph, in the order ``ds[i]`` holds them."""
        out = list(self.node_features)
        if self.edge_index is not None:
            out.append("edge_index")
        out += list(self.edge_features) + list(self.graph_features)
        if not self.node_features:
            out.append("num_nodes")
        return out

    def _indices(self, idx: Any) -> np.ndarray:
        g = len(self)
        if isinstance(idx, slice):
            # float bounds are fractions of the length, as PyG's ``dataset[:0.9]``
            start, stop = idx.start, idx.stop
            start = round(start * g) if isinstance(start, float) else start
            stop = round(stop * g) if isinstance(stop, float) else stop
            return np.arange(g, dtype=np.int64)[slice(start, stop, idx.step)]
        arr = np.asarray(idx)
        if arr.dtype == bool:
            if arr.shape != (g,):
                raise IndexError(
                    f"PackedDataset: boolean mask of shape {list(arr.shape)}, need [{g}]"
                )
            return np.flatnonzero(arr)
        if arr.dtype.kind not in "iu" or arr.ndim != 1:
            if arr.ndim == 1 and arr.size == 0:
                return np.zeros(0, np.int64)
            raise TypeError(
                f"PackedDataset: indices must be a 1-D integer array, got "
                f"{arr.dtype} {list(arr.shape)}"
            )
        arr = arr.astype(np.int64, copy=False)
        if arr.size and (arr.min() < -g or arr.max() >= g):
            bad = int(arr[(arr < -g) | (arr >= g)][0])
            raise IndexError(f"PackedDataset: graph index {bad} out of range for {g} graphs")
        return np.where(arr < 0, arr + g, arr) if arr.size and arr.min() < 0 else arr

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
            return self.get(int(idx))
        return self.subset(self._indices(idx))

    def get(self, i: int) -> Any:
        """Graph ``i`` as a ``data_cls`` (views into the packed arrays), passed through
        ``transform`` when the dataset has one."""
        g = len(self)
        if not -g <= i < g:
            raise IndexError(f"PackedDataset: graph index {i} out of range for {g} graphs")
        i %= g
        a, b = int(self.node_ptr[i]), int(self.node_ptr[i + 1])
        ea, eb = int(self.edge_ptr[i]), int(self.edge_ptr[i + 1])
        store: dict[str, Any] = {}
        data = data_holding(self.data_cls, store)
        for key, v in self.node_features.items():
            store[key] = v[a:b]
        if self.edge_index is not None:
            store["edge_index"] = self.edge_index[:, ea:eb]
        for key, v in self.edge_features.items():
            store[key] = v[ea:eb]
        for key, v in self.graph_features.items():
            kind = self.graph_scalars.get(key)
            if kind == "scalar":
                store[key] = v[i].item()
            elif kind == "npscalar":
                store[key] = v[i]
            elif kind == "stack":
                store[key] = v[i, ...]  # a 0-d array, as given
            else:
                store[key] = v[i : i + 1]
        if not self.node_features:
            store["num_nodes"] = b - a
        return data if self.transform is None else self.transform(data)

    def shuffle(self, return_perm: bool = False, *, seed: Any = None) -> Any:
        """The graphs in a random order (a new ``PackedDataset``, PyG's ``shuffle``); with
        ``return_perm`` also the permutation (int64 [len]). ``seed``: a NumPy generator
        seed (an int, a ``numpy.random.Generator`` or ``None``)."""
        perm = np.random.default_rng(seed).permutation(len(self)).astype(np.int64)
        out = self.subset(perm)
        return (out, perm) if return_perm is True else out

    def get_summary(self) -> Any:
        """PyG's summary statistics (graphs, nodes and edges per graph, ``transform``
        applied): a :class:`~arraygnn.datasets.summary.Summary`."""
        from arraygnn.datasets.summary import Summary

        return Summary.from_dataset(self)

    def print_summary(self, fmt: str = "psql") -> None:
        """Print :meth:`get_summary` as tables (``fmt``: a ``tabulate`` table format;
        the default ``'psql'`` needs no package)."""
        print(self.get_summary().format(fmt=fmt))

    def _first_width(self, key: str, features: dict[str, np.ndarray]) -> int:
        """Last-dim width of ``key`` in the first graph (after ``transform``), PyG's rule:
        0 without it, 1 for a 1-D array."""
        if len(self):
            first = self[0]
            v = first[key] if key in first else None
        else:
            v = features.get(key)
        return 0 if v is None else (1 if v.ndim == 1 else int(v.shape[-1]))

    @property
    def num_node_features(self) -> int:
        """Width of ``x`` (0 without one), PyG's ``dataset.num_node_features``."""
        return self._first_width("x", self.node_features)

    @property
    def num_features(self) -> int:
        """:attr:`num_node_features` (PyG's alias)."""
        return self.num_node_features

    @property
    def num_edge_features(self) -> int:
        """Width of ``edge_attr`` (0 without one), PyG's ``dataset.num_edge_features``."""
        return self._first_width("edge_attr", self.edge_features)

    @property
    def num_classes(self) -> int:
        """Classes in ``y`` (graph, node or edge level) over every graph, PyG's rule (integer
        labels ``max + 1``, float labels the distinct count, ``[N, C]`` labels ``C``; no
        ``y``: 0). With a
        ``transform`` every graph is read through it, as PyG does."""
        from arraygnn._namespace import to_numpy
        from arraygnn.datasets.base import infer_num_classes

        if self.transform is None:
            for feats in (self.graph_features, self.node_features, self.edge_features):
                if "y" in feats:
                    return infer_num_classes(feats["y"])
            return 0
        ys = [d.y for d in (self[i] for i in range(len(self))) if "y" in d]
        if not ys:
            return 0
        return infer_num_classes(np.concatenate([np.atleast_1d(to_numpy(v)) for v in ys]))

    def subset(self, idx: np.ndarray) -> PackedDataset:
        """A new ``PackedDataset`` of the graphs ``idx`` (copied into fresh packed arrays)."""
        idx = self._indices(idx)
        rows, cols, nn, ne = self._rows_cols(idx)
        edge_index = None if self.edge_index is None else np.take(self.edge_index, cols, axis=1)
        out = type(self)(
            nn,
            ne,
            {k: np.take(v, rows, axis=0) for k, v in self.node_features.items()},
            edge_index,
            {k: np.take(v, cols, axis=0) for k, v in self.edge_features.items()},
            {k: np.take(v, idx, axis=0) for k, v in self.graph_features.items()},
            self.data_cls,
            graph_scalars=self.graph_scalars,
            validate=False,
            transform=self.transform,
        )
        return out

    def _rows_cols(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Node rows and edge columns of graphs ``idx`` in the packed arrays (vectorised)."""
        nn = self.num_nodes[idx]
        ne = self.num_edges[idx]
        rows = _ranges(self.node_ptr[idx], nn)
        cols = _ranges(self.edge_ptr[idx], ne)
        return rows, cols, nn, ne

    # ------------------------------------------------------------------ batches
    def collate(
        self,
        indices: Any,
        follow_batch: Iterable[str] | None = None,
        exclude_keys: Iterable[str] | None = None,
    ) -> Batch:
        """The graphs at ``indices`` as one ``Batch``, gathered by index arithmetic.

        Equal to ``Batch.from_data_list([ds[i] for i in indices], follow_batch,
        exclude_keys)``; classes with their own hooks, and datasets with a ``transform``,
        take that route.
        """
        idx = self._indices(indices)
        if idx.size == 0:
            raise ValueError("PackedDataset.collate: no indices (a batch needs a graph)")
        exclude = set(exclude_keys or ())
        follow = list(follow_batch or ())
        # an id key of 2 or more dims besides edge_index is concatenated along its last dim
        # by Batch (PyG's -1), not along the rows gathered here: graph by graph
        wide_ids = any(
            _is_index_key(k) and v.ndim > 1 and k not in exclude and k not in self.graph_scalars
            for feats in (self.node_features, self.edge_features, self.graph_features)
            for k, v in feats.items()
        )
        if not self._default_hooks or self.transform is not None or wide_ids:
            return Batch.from_data_list([self.get(int(i)) for i in idx], follow, exclude)
        for k in follow:
            if k not in self.keys() or k in exclude:
                raise ValueError(f"PackedDataset.collate: follow_batch key {k!r} is not a key")
        b = idx.shape[0]
        rows, cols, nn, ne = self._rows_cols(idx)
        node_ptr, edge_ptr = _ptr(nn, aligned=True), _ptr(ne)
        graph_ptr = np.arange(b + 1, dtype=np.int64)
        zeros = np.zeros(b, np.int64)
        store: dict[str, Any] = {}
        slices: dict[str, np.ndarray] = {}
        incs: dict[str, np.ndarray] = {}
        cat_dims: dict[str, int | None] = {}
        kinds: dict[str, str] = {}

        ones = np.ones(b, np.int64)
        # pass 1: reserve every output in one arena (one allocation per batch)
        arena = _Arena()
        jobs: list[tuple[str, np.ndarray, np.ndarray, int, int, Any]] = []

        def plan(key: str, v: np.ndarray, index: np.ndarray, axis: int, extra: Any) -> None:
            shape = list(v.shape)
            shape[axis] = index.shape[0]
            jobs.append((key, v, index, axis, arena.reserve(shape, v.dtype), extra))

        ids_inc = node_ptr[:-1].copy()  # the increment of an id key, per graph

        def inc_of(key: str) -> np.ndarray:
            # a 1-D id key is increased by Batch (dim 0 is PyG's -1 there)
            return ids_inc if _is_index_key(key) else zeros

        for key, v in self.node_features.items():
            if key not in exclude:
                plan(key, v, rows, 0, (node_ptr, inc_of(key), 0, "cat", nn))
        if self.edge_index is not None and "edge_index" not in exclude:
            plan(
                "edge_index",
                self.edge_index,
                cols,
                1,
                (edge_ptr, node_ptr[:-1].copy(), 1, "cat", ne),
            )
        for key, v in self.edge_features.items():
            if key not in exclude:
                plan(key, v, cols, 0, (edge_ptr, inc_of(key), 0, "cat", ne))
        for key, v in self.graph_features.items():
            if key not in exclude:
                kind = self.graph_scalars.get(key)
                cat = None if kind is not None else 0
                # an integer index key holding one number per graph is increased (as Batch)
                if kind is None:
                    inc = inc_of(key)
                else:
                    inc = ids_inc if _increased_scalar(key, v, kind) else zeros
                plan(key, v, idx, 0, (graph_ptr, inc, cat, kind or "cat", ones))
        follow_handles = {}
        for key, *_ in jobs:
            if key in follow:
                follow_handles[key] = (
                    arena.reserve((jobs_size(jobs, key),), np.int64),
                    arena.reserve((b + 1,), np.int64),
                )
        batch_handle = arena.reserve((rows.shape[0],), np.int64)
        arena.allocate()
        # pass 2: gather
        for key, v, index, axis, handle, (sl, inc, cat, kind, sizes) in jobs:
            out = arena.get(handle)
            np.take(v, index, axis=axis, out=out)
            if key == "edge_index" and out.size:
                # Batch.from_data_list's increment: same values, same overflow error
                _add_increments(key, out, node_ptr[:-1], ne, 1, np, int(node_ptr[-1]) - 1)
            elif key != "edge_index" and cat == 0 and inc is not zeros:
                # a 1-D id key: Batch's range check, increment and overflow check
                _check_local_ids(key, out, sizes, sl, nn, 0, np)
                if node_ptr[-1] != 0:
                    _add_increments(key, out, inc, sizes, 0, np, int(node_ptr[-1]) - 1)
            elif key != "edge_index" and inc is not zeros and inc.any():
                # an increased index key: Batch's increment and overflow check (0-d id
                # arrays were range-checked against their graph; Python numbers were not)
                if kind in _SCALAR_KINDS:
                    add_scalar_increments(key, out, inc)
                else:
                    _add_increments(key, out, inc, ones, None, np, int(node_ptr[-1]) - 1)
            store[key] = out
            slices[key], incs[key], cat_dims[key], kinds[key] = sl, inc, cat, kind
            if key in follow:
                ids, ptr = (arena.get(h) for h in follow_handles[key])
                ids[...] = np.repeat(np.arange(b, dtype=np.int64), sizes)
                ptr[...] = sl
                store[key + "_batch"], store[key + "_ptr"] = ids, ptr
        if not self.node_features and "num_nodes" not in exclude:
            store["num_nodes"] = int(node_ptr[-1])
            slices["num_nodes"], incs["num_nodes"] = node_ptr, zeros
            cat_dims["num_nodes"], kinds["num_nodes"] = 0, "num_nodes"
        vec = arena.get(batch_handle)
        vec[...] = np.repeat(np.arange(b, dtype=np.int64), nn)
        store["batch"] = vec
        store["ptr"] = node_ptr
        return Batch._new(store, self.data_cls, b, (slices, incs, cat_dims, kinds))


def _increased_scalar(key: str, values: np.ndarray, kind: str | None) -> bool:
    """A per-graph number ``Batch.from_data_list`` increases by the nodes before each
    graph: Python ints under PyG's scalar rule (``center_index``), 0-d integer arrays under
    the array rule (``'index'`` / ``'face'`` in the key)."""
    if kind in _SCALAR_KINDS:
        return scalar_increased(key, kind, values.dtype)
    return kind == "stack" and values.dtype.kind in "iu" and _is_index_key(key)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + c)`` for every (start, count), without a Python loop."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    shift = starts - _exclusive_cumsum(counts)
    return np.arange(total, dtype=np.int64) + np.repeat(shift, counts)


def jobs_size(jobs: list, key: str) -> int:
    """Rows gathered for ``key`` (the length of its ``<key>_batch`` vector)."""
    for k, _, index, _, _, _ in jobs:
        if k == key:
            return int(index.shape[0])
    raise KeyError(key)


def _index_dtypes(data: Data) -> dict[str, np.dtype]:
    """The dtype of every integer index key of ``data`` narrower than int64 (or unsigned)."""
    out = {}
    for key, value in data.items():
        dtype = getattr(value, "dtype", None)
        if _is_index_key(key) and dtype is not None and np.dtype(dtype).kind in "iu":
            if np.dtype(dtype) != np.int64:
                out[key] = np.dtype(dtype)
    return out


def _with_int64_ids(data: Data) -> Data:
    """A shallow copy of ``data`` whose integer index keys are int64 (others shared)."""
    narrow = _index_dtypes(data)
    if not narrow:
        return data
    out = data.copy()
    for key in narrow:
        value = data[key]
        out[key] = np.int64(value) if isinstance(value, np.generic) else value.astype(np.int64)
    return out
