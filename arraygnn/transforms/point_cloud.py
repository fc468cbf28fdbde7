"""PyG's point-cloud graph and resampling transforms: ``KNNGraph``, ``RadiusGraph``,
``FixedPoints`` and ``GridSampling``.

Same arguments and results as ``torch_geometric.transforms`` (PyG 2.8):

- ``KNNGraph`` / ``RadiusGraph``: ``edge_index`` from :func:`arraygnn.utils.knn_graph` /
  :func:`arraygnn.utils.radius_graph` over ``pos`` (per example of ``batch`` when present;
  ``force_undirected`` adds the reverse edges and coalesces); the old edges' attributes are
  dropped (``edge_attrs=``, default ``'edge_attr'`` / ``'edge_weight'`` where present; PyG
  drops ``edge_attr``).
- ``FixedPoints``: ``num`` nodes drawn with replacement (``replace=True``), without
  (``replace=False``: at most all of them), or as concatenated permutations
  (``allow_duplicates=True``); every per-node array is indexed by the draw.
- ``GridSampling``: points in one voxel of side ``size`` (from ``start``, default the
  minimum, to ``end``) merged into one node: per-node arrays averaged (``scatter`` mean),
  ``y`` by majority vote (ties to the smaller label), ``batch`` kept; the voxels in the order
  of their linear id (first coordinate fastest), as ``torch_cluster.grid_cluster`` and
  ``consecutive_cluster`` give them.

RULE: which arrays are per node is said by ``node_attrs=`` (default ``'x'`` / ``'pos'``
where present), never guessed from lengths (PyG's ``FixedPoints`` / ``GridSampling`` guess:
an array of ``num_nodes`` rows); other arrays must be named in ``graph_attrs=`` (kept), or
``edge_attrs=`` for ``FixedPoints`` (kept as they are, as PyG leaves keys containing
``'edge'``); ``GridSampling`` refuses edges, as PyG. A ``ValueError`` names any other array.
RULE: ``FixedPoints`` draws from ``seed`` (an int, a ``numpy.random.Generator`` or
``None``), taken when the transform is built; PyG's from NumPy's / torch's global ones.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(pos=np.array([[0.0], [0.4], [1.2]]))
>>> GridSampling(1.0)(d).pos.tolist()
[[0.2], [1.2]]
>>> KNNGraph(k=1)(d).edge_index.tolist()
[[1, 0, 1], [0, 1, 2]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids_with
from arraygnn._namespace import get_namespace, is_array
from arraygnn.transforms._draws import device_generator, permutation, seed_arg
from arraygnn.transforms._graph import check_data, int_arg
from arraygnn.transforms._points import point_array
from arraygnn.transforms.attrs import DEFAULT_EDGE_ATTRS, attribute_levels
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.knn import knn_graph, radius_graph
from arraygnn.utils.scatter import scatter
from arraygnn.utils.undirected import to_undirected

__all__ = ["FixedPoints", "GridSampling", "KNNGraph", "RadiusGraph"]


def _batch(data: Any) -> Any:
    return data["batch"] if "batch" in data else None


def _levels(where: str, data: Any, node: Any, edge: Any, graph: Any) -> tuple[Any, int]:
    """:func:`attribute_levels` and the node count: ``num_nodes``, else the rows of ``pos``
    when ``pos`` is a said node attribute (a point cloud of positions only)."""
    check_data(where, data, hetero=False)
    n = data.num_nodes
    probe = data
    if n is None and "pos" in data and is_array(data["pos"]) and data["pos"].ndim >= 1:
        probe = data.copy()
        probe.num_nodes = n = int(data["pos"].shape[0])
    levels = attribute_levels(where, probe, node, edge, graph)
    if probe is not data and "pos" not in levels.node:
        levels = attribute_levels(where, data, node, edge, graph)  # raises: count unknown
    return levels, int(n)


def _drop_edge_attrs(data: Any, edge_attrs: Any) -> None:
    names = DEFAULT_EDGE_ATTRS if edge_attrs is None else edge_attrs
    for name in [names] if isinstance(names, str) else names:
        if name in data:
            del data[name]


class KNNGraph(BaseTransform):
    """``edge_index`` of the ``k`` nearest neighbours of every point (PyG's ``KNNGraph``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0], [1.0], [3.0]]))
    >>> KNNGraph(k=1, force_undirected=True)(d).edge_index.tolist()
    [[0, 1, 1, 2], [1, 0, 2, 1]]
    """

    def __init__(
        self,
        k: int = 6,
        loop: bool = False,
        force_undirected: bool = False,
        flow: str = "source_to_target",
        cosine: bool = False,
        num_workers: int = 1,
        *,
        edge_attrs: Any = None,
    ) -> None:
        self.k = int_arg("KNNGraph", "k", k, 1)
        self.loop = loop
        self.force_undirected = force_undirected
        self.flow = flow
        self.cosine = cosine
        self.num_workers = num_workers
        self.edge_attrs = edge_attrs

    def forward(self, data: Any) -> Any:
        pos = point_array("KNNGraph", data, "pos")
        edge_index = knn_graph(
            pos,
            self.k,
            _batch(data),
            loop=self.loop,
            flow=self.flow,
            cosine=self.cosine,
            num_workers=self.num_workers,
        )
        if self.force_undirected:
            edge_index = to_undirected(edge_index, num_nodes=int(pos.shape[0]))
        _drop_edge_attrs(data, self.edge_attrs)
        data.edge_index = edge_index
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k})"


class RadiusGraph(BaseTransform):
    """``edge_index`` joining points closer than ``r`` (PyG's ``RadiusGraph``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> RadiusGraph(1.5)(Data(pos=np.array([[0.0], [1.0], [3.0]]))).edge_index.tolist()
    [[1, 0], [0, 1]]
    """

    def __init__(
        self,
        r: float,
        loop: bool = False,
        max_num_neighbors: int = 32,
        flow: str = "source_to_target",
        num_workers: int = 1,
        *,
        edge_attrs: Any = None,
    ) -> None:
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, float, np.number)) or r < 0:
            raise ValueError(f"RadiusGraph: r must be a number >= 0, got {r!r}")
        self.r = r
        self.loop = loop
        self.max_num_neighbors = max_num_neighbors
        self.flow = flow
        self.num_workers = num_workers
        self.edge_attrs = edge_attrs

    def forward(self, data: Any) -> Any:
        pos = point_array("RadiusGraph", data, "pos")
        edge_index = radius_graph(
            pos,
            self.r,
            _batch(data),
            self.loop,
            max_num_neighbors=self.max_num_neighbors,
            flow=self.flow,
            num_workers=self.num_workers,
        )
        _drop_edge_attrs(data, self.edge_attrs)
        data.edge_index = edge_index
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(r={self.r})"


class FixedPoints(BaseTransform):
    """Keep ``num`` nodes drawn at random (PyG's ``FixedPoints``); see the module notes.
    ``num_nodes``, when stored, becomes the number drawn.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> out = FixedPoints(5, seed=0)(Data(pos=np.arange(3.0).reshape(3, 1)))
    >>> out.pos.shape, set(out.pos.ravel().tolist()) <= {0.0, 1.0, 2.0}
    ((5, 1), True)
    """

    def __init__(
        self,
        num: int,
        replace: bool = True,
        allow_duplicates: bool = False,
        *,
        node_attrs: Any = None,
        edge_attrs: Any = None,
        graph_attrs: Any = (),
        seed: Any = None,
    ) -> None:
        self.num = int_arg("FixedPoints", "num", num)
        self.replace = bool_arg("FixedPoints", "replace", replace)
        self.allow_duplicates = bool_arg("FixedPoints", "allow_duplicates", allow_duplicates)
        self.node_attrs = node_attrs
        self.edge_attrs = edge_attrs
        self.graph_attrs = graph_attrs
        self._rng = seed_arg("FixedPoints", seed)

    def forward(self, data: Any) -> Any:
        where = "FixedPoints"
        levels, n = _levels(where, data, self.node_attrs, self.edge_attrs, self.graph_attrs)
        arrays = [data[k] for k in levels.node]
        xp = get_namespace(*arrays)
        if n == 0 and self.num:
            raise ValueError(f"{where}: the graph has no nodes to draw {self.num} from")
        gen = device_generator(xp, self._rng, where)
        if self.replace:
            choice = (gen.random(self.num) * n).astype(np.int64) if n else xp.zeros(0, np.int64)
            choice = xp.minimum(choice, max(n - 1, 0))
        elif not self.allow_duplicates:
            choice = permutation(xp, gen, n)[: self.num]
        else:
            rounds = math.ceil(self.num / n) if n else 0
            choice = xp.concatenate(
                [permutation(xp, gen, n) for _ in range(rounds)] or [xp.zeros(0, np.int64)]
            )[: self.num]
        for name in levels.node:
            data[name] = data[name][choice]
        if "num_nodes" in data:
            data.num_nodes = int(choice.shape[0])
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.num}, replace={self.replace})"


def _per_dim(where: str, name: str, value: Any, dim: int, dtype: Any) -> np.ndarray:
    """PyG's ``repeat``: a number for every dimension, or a list padded with its last entry."""
    out = np.asarray(value.get() if hasattr(value, "get") else value, dtype=dtype).reshape(-1)
    if out.size == 0 or out.size > dim:
        raise ValueError(f"{where}: {name} must be a number or up to {dim} numbers, got {value!r}")
    return np.concatenate([out, np.repeat(out[-1:], dim - out.size)])


def voxel_clusters(pos: Any, size: Any, batch: Any, start: Any, end: Any) -> Any:
    """``torch_cluster.grid_cluster``'s linear voxel id of every point (the batch id as the
    last, slowest coordinate), as int64."""
    xp = get_namespace(pos)
    n, dim = int(pos.shape[0]), int(pos.shape[1])
    if batch is None:
        batch = xp.zeros(n, dtype=np.int64)
    full = xp.concatenate([pos, batch.reshape(-1, 1).astype(pos.dtype)], axis=1)
    size = np.concatenate([_per_dim("GridSampling", "size", size, dim, pos.dtype), [1]])
    lo = (
        full.min(axis=0)
        if start is None
        else xp.asarray(
            np.concatenate([_per_dim("GridSampling", "start", start, dim, pos.dtype), [0]])
        ).astype(pos.dtype)
    )
    if end is None:
        hi = full.max(axis=0)
    else:
        tail = batch.max().reshape(1).astype(pos.dtype)
        hi = xp.concatenate(
            [xp.asarray(_per_dim("GridSampling", "end", end, dim, pos.dtype)), tail]
        )
    size = xp.asarray(size.astype(pos.dtype))
    num_voxels = ((hi - lo) / size).astype(np.int64) + 1
    strides = xp.concatenate([xp.ones(1, np.int64), xp.cumprod(num_voxels)[:-1]])
    cells = ((full - lo) / size).astype(np.int64)
    return (cells * strides).sum(axis=1)


class GridSampling(BaseTransform):
    """Merge the points of each voxel (PyG's ``GridSampling``); see the module notes.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.1, 0.1], [0.2, 0.3], [1.5, 0.1]]), y=np.array([2, 2, 0]))
    >>> out = GridSampling(1.0, node_attrs=["pos", "y"])(d)
    >>> out.pos.round(2).tolist(), out.y.tolist()
    ([[0.15, 0.2], [1.5, 0.1]], [2, 0])
    """

    def __init__(
        self,
        size: Any,
        start: Any = None,
        end: Any = None,
        *,
        node_attrs: Any = None,
        graph_attrs: Any = (),
    ) -> None:
        self.size = size
        self.start = start
        self.end = end
        self.node_attrs = node_attrs
        self.graph_attrs = graph_attrs

    def forward(self, data: Any) -> Any:
        where = "GridSampling"
        check_data(where, data, hetero=False)
        edges = [k for k in data.keys() if "edge" in k]
        if edges:
            raise ValueError(f"{where}: coarsening of edges is not supported (data has {edges})")
        levels, _ = _levels(where, data, self.node_attrs, [], self.graph_attrs)
        pos = point_array(where, data, "pos", ndim=(1, 2))
        pos = pos.reshape(-1, 1) if pos.ndim == 1 else pos
        xp = get_namespace(pos)
        batch = _batch(data)
        if batch is not None and (not is_array(batch) or batch.dtype.kind not in "iu"):
            raise TypeError(f"{where}: batch must be an integer array")
        if pos.shape[0] == 0:
            return data
        c = voxel_clusters(pos, self.size, batch, self.start, self.end)
        uniq, inv = unique_ids_with(xp, c, return_inverse=True)
        inv = inv.reshape(-1)
        k = int(uniq.shape[0])
        for name in levels.node:
            item = data[name]
            if name == "y":
                if item.dtype.kind not in "iub" or item.ndim != 1:
                    raise ValueError(f"{where}: y must hold one integer label per node")
                y = item.astype(np.int64)
                if int(y.min()) < 0:
                    raise ValueError(f"{where}: y must hold labels >= 0")
                ncls = int(y.max()) + 1
                counts = xp.bincount(inv * ncls + y, minlength=k * ncls).reshape(k, ncls)
                data[name] = counts.argmax(axis=-1).astype(np.int64)  # PyG: argmax, int64
            elif name == "batch":
                last = xp.zeros(k, dtype=np.int64)
                last[inv] = xp.arange(inv.shape[0])
                data[name] = item[last]
            else:
                data[name] = scatter(item, inv, 0, k, reduce="mean")
        if "num_nodes" in data:
            data.num_nodes = k
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(size={self.size})"
