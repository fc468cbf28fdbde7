"""Cluster pooling by a given assignment: torch_cluster's ``graclus`` matching and PyG's
``max_pool`` / ``avg_pool`` (``Data`` / ``Batch`` in, ``Batch`` out), ``max_pool_x`` /
``avg_pool_x`` (plain arrays) and ``max_pool_neighbor_x`` / ``avg_pool_neighbor_x``.

``cluster`` ``[N]`` assigns each node a cluster id; the ids are made consecutive in sorted
order (PyG's ``consecutive_cluster``), each cluster's batch entry is that of its last node,
features are reduced per cluster with ``arraygnn.ops.scatter`` (``max`` / ``mean``; an
empty cluster gives 0, as PyG), positions averaged, and edges renumbered, self-loops
dropped and coalesced (``edge_attr`` summed). The neighbour variants replace each node's
features by the max / mean over itself and its in-neighbours: one fused ``ops.spmm``
over the edges plus self-loops. Unlike PyG, nothing passed in is modified: the neighbour
variants return a shallow copy of ``data`` with the new ``x``.

>>> import numpy as np
>>> from arraygnn import Data
>>> data = Data(x=np.array([[1.0], [2.0], [3.0]]), edge_index=np.array([[0, 1], [1, 2]]))
>>> out = max_pool(np.array([0, 0, 1]), data)
>>> out.x.ravel().tolist(), out.edge_index.tolist()
([2.0, 3.0], [[0], [1]])
>>> graclus(np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), seed=0).shape
(3,)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids_with
from arraygnn._namespace import device_of, get_namespace, is_array, to_device, to_numpy
from arraygnn.nn._module import layer_size
from arraygnn.ops._common import check_index, check_size

__all__ = [
    "graclus",
    "consecutive_cluster",
    "max_pool",
    "avg_pool",
    "max_pool_x",
    "avg_pool_x",
    "max_pool_neighbor_x",
    "avg_pool_neighbor_x",
]


def _edge_index(where: str, edge_index: Any, num_nodes: int | None) -> Any:
    if not is_array(edge_index) or edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"{where}: edge_index must be an integer array [2, E]")
    check_index(f"{where}: edge_index", edge_index.reshape(-1), num_nodes)
    return get_namespace(edge_index)


def graclus(
    edge_index: Any, weight: Any = None, num_nodes: int | None = None, seed: Any = None
) -> Any:
    """torch_cluster's greedy matching (``graclus_cluster``): ``cluster`` ``[N]`` int64.

    Self-loops are dropped; without ``weight`` the edges are shuffled; nodes are visited
    in a random order (``seed``: an int or a ``numpy.random.Generator``), each unmatched
    node matched to an unmatched neighbour (with ``weight`` ``[E]``: the heaviest, among
    weights ``>= 0``). A matched pair's cluster id is the smaller node id, an unmatched
    node keeps its own. ``num_nodes`` defaults to ``edge_index.max() + 1``. Runs on the
    host (a Numba kernel); the result comes back on ``edge_index``'s device.
    """
    from arraygnn.kernels.cpu.graclus import graclus_match

    where = "graclus"
    xp = _edge_index(where, edge_index, None)
    if num_nodes is None:
        num_nodes = int(edge_index.max()) + 1 if edge_index.size else 0
    n = check_size(f"{where}: num_nodes", num_nodes)
    check_index(f"{where}: edge_index", edge_index.reshape(-1), n)
    if weight is not None:
        if not is_array(weight) or tuple(weight.shape) != (edge_index.shape[1],):
            raise ValueError(f"{where}: weight must be an array of shape ({edge_index.shape[1]},)")
        if weight.dtype.kind not in "fiu":
            raise TypeError(f"{where}: weight must hold numbers, got dtype {weight.dtype}")
        get_namespace(edge_index, weight)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    row = to_numpy(edge_index[0]).astype(np.int64)
    col = to_numpy(edge_index[1]).astype(np.int64)
    keep = row != col
    row, col = row[keep], col[keep]
    w = None if weight is None else to_numpy(weight)[keep].astype(np.float64)
    if w is None:
        shuffle = rng.permutation(row.shape[0])
        row, col = row[shuffle], col[shuffle]
    order = np.argsort(row, kind="stable")
    col = col[order]
    w = np.zeros(0) if w is None else w[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(row, minlength=n))
    out = np.full(n, -1, dtype=np.int64)
    graclus_match(indptr, col, w, weight is not None, rng.permutation(n), out)
    return to_device(out, device_of(edge_index)) if xp is not np else out


def consecutive_cluster(cluster: Any) -> tuple[Any, Any]:
    """PyG's ``consecutive_cluster``: ``(ids renumbered 0..C-1 in sorted order, the last
    node of each cluster)``, both int64."""
    from arraygnn import ops

    xp = get_namespace(cluster)
    unique, inv = unique_ids_with(xp, cluster, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int64)
    last = ops.scatter(xp.arange(inv.shape[0], dtype=np.int64), inv, int(unique.shape[0]), "max")
    return inv, last


def _check_cluster(where: str, cluster: Any, n: int) -> Any:
    check_index(f"{where}: cluster", cluster, None)
    if tuple(cluster.shape) != (n,):
        raise ValueError(f"{where}: cluster must have shape ({n},), got {tuple(cluster.shape)}")
    if n and int(cluster.min()) < 0:
        raise ValueError(f"{where}: cluster has a negative entry ({int(cluster.min())})")
    return get_namespace(cluster)


def _check_rows(where: str, name: str, value: Any, rows: int) -> None:
    """``data.<name>`` (when set) must be an array with ``rows`` rows."""
    if value is not None and (not is_array(value) or value.ndim < 1 or value.shape[0] != rows):
        raise ValueError(
            f"{where}: data.{name} must have {rows} rows, got shape "
            f"{tuple(getattr(value, 'shape', ()))}"
        )


def _pool_x(
    where: str, reduce: str, cluster: Any, x: Any, batch: Any, batch_size: Any, size: Any
) -> tuple[Any, Any]:
    from arraygnn import ops

    if not is_array(x) or x.ndim < 1:
        raise TypeError(f"{where}: x must be an array [N, ...]")
    n = int(x.shape[0])
    _check_cluster(where, cluster, n)
    get_namespace(cluster, x)
    if batch is not None:
        check_index(f"{where}: batch", batch, None)
        if tuple(batch.shape) != (n,):
            raise ValueError(f"{where}: batch must have shape ({n},), got {tuple(batch.shape)}")
    if size is not None:
        size = layer_size(where, "size", size, minimum=1)
        if batch_size is not None:
            batch_size = layer_size(where, "batch_size", batch_size)
        elif batch is None:
            raise ValueError(f"{where}: give batch or batch_size with size")
        else:
            batch_size = int(batch.max()) + 1 if n else 0
        total = int(batch_size) * int(size)
        check_index(f"{where}: cluster", cluster, total)
        return ops.scatter(x, cluster, total, reduce), None
    inv, last = consecutive_cluster(cluster)
    out = ops.scatter(x, inv, int(last.shape[0]), reduce)
    return out, (None if batch is None else batch[last])


def max_pool_x(
    cluster: Any, x: Any, batch: Any, batch_size: int | None = None, size: int | None = None
) -> tuple[Any, Any]:
    """PyG's ``max_pool_x``: ``(x max-pooled per cluster, batch per cluster)``; with
    ``size`` (clusters per graph) ``(x [batch_size * size, ...], None)`` over ``cluster``
    as given."""
    return _pool_x("max_pool_x", "max", cluster, x, batch, batch_size, size)


def avg_pool_x(
    cluster: Any, x: Any, batch: Any, batch_size: int | None = None, size: int | None = None
) -> tuple[Any, Any]:
    """PyG's ``avg_pool_x``: as :func:`max_pool_x` with the mean."""
    return _pool_x("avg_pool_x", "mean", cluster, x, batch, batch_size, size)


def _pool_edge(cluster: Any, edge_index: Any, edge_attr: Any) -> tuple[Any, Any]:
    from arraygnn.utils.coalesce import coalesce
    from arraygnn.utils.loops import remove_self_loops

    n = int(cluster.shape[0])
    index = cluster[edge_index.reshape(-1)].reshape(2, -1)
    index, edge_attr = remove_self_loops(index, edge_attr)
    if index.size:
        index, edge_attr = coalesce(index, edge_attr, n, reduce="sum")
    return index, edge_attr


def _pool_data(where: str, reduce: str, cluster: Any, data: Any, transform: Any) -> Any:
    from arraygnn import ops
    from arraygnn.batch import Batch

    n = data.num_nodes
    if n is None:
        raise ValueError(f"{where}: data has no num_nodes (and no x)")
    _check_cluster(where, cluster, int(n))
    edge_index = getattr(data, "edge_index", None)
    if edge_index is None:
        raise ValueError(f"{where}: data has no edge_index")
    _edge_index(where, edge_index, int(n))
    x, pos, batch = (getattr(data, k, None) for k in ("x", "pos", "batch"))
    edge_attr = getattr(data, "edge_attr", None)
    for name, value, rows in (("x", x, n), ("pos", pos, n), ("batch", batch, n)):
        _check_rows(where, name, value, int(rows))
    _check_rows(where, "edge_attr", edge_attr, int(edge_index.shape[1]))
    if batch is not None:
        check_index(f"{where}: data.batch", batch, None)
    inv, last = consecutive_cluster(cluster)
    size = int(last.shape[0])
    x = None if x is None else ops.scatter(x, inv, size, reduce)
    index, attr = _pool_edge(inv, edge_index, edge_attr)
    batch = None if batch is None else batch[last]
    pos = None if pos is None else ops.scatter(pos, inv, size, "mean")
    attrs = {"batch": batch, "x": x, "edge_index": index, "edge_attr": attr, "pos": pos}
    out = Batch(**{k: v for k, v in attrs.items() if v is not None})
    return out if transform is None else transform(out)


def max_pool(cluster: Any, data: Any, transform: Callable[[Any], Any] | None = None) -> Any:
    """PyG's ``max_pool``: a coarsened ``Batch`` (``x`` max per cluster, ``pos`` mean,
    edges pooled and coalesced with ``edge_attr`` summed, ``batch`` per cluster)."""
    return _pool_data("max_pool", "max", cluster, data, transform)


def avg_pool(cluster: Any, data: Any, transform: Callable[[Any], Any] | None = None) -> Any:
    """PyG's ``avg_pool``: as :func:`max_pool` with the mean of ``x``."""
    return _pool_data("avg_pool", "mean", cluster, data, transform)


def _pool_neighbor(where: str, reduce: str, data: Any, flow: str) -> Any:
    from arraygnn import ops

    if flow not in ("source_to_target", "target_to_source"):
        raise ValueError(
            f"{where}: flow must be 'source_to_target' or 'target_to_source', got {flow!r}"
        )
    x, edge_index, n = data.x, data.edge_index, int(data.num_nodes)
    xp = _edge_index(where, edge_index, n)
    _check_rows(where, "x", x, n)
    loops = xp.arange(n, dtype=edge_index.dtype)
    row = xp.concatenate([edge_index[0], loops])
    col = xp.concatenate([edge_index[1], loops])
    if flow != "source_to_target":
        row, col = col, row
    out = data.copy()
    out.x = ops.spmm((row, col), x, reduce=reduce, num_dst_nodes=n)
    return out


def max_pool_neighbor_x(data: Any, flow: str = "source_to_target") -> Any:
    """PyG's ``max_pool_neighbor_x``: each node's ``x`` becomes the max over itself and
    its neighbours (a copy of ``data``; ``data`` itself is not changed)."""
    return _pool_neighbor("max_pool_neighbor_x", "max", data, flow)


def avg_pool_neighbor_x(data: Any, flow: str = "source_to_target") -> Any:
    """PyG's ``avg_pool_neighbor_x``: as :func:`max_pool_neighbor_x` with the mean."""
    return _pool_neighbor("avg_pool_neighbor_x", "mean", data, flow)
