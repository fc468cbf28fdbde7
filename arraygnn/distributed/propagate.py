"""SpMM and k-hop feature propagation over Dask futures, one graph block per task.

Each block of a :class:`~arraygnn.distributed.partition.PartitionedGraph` and its
feature rows live on one worker. A hop sends every block only the halo rows it
needs from the others (``_take_rows`` runs on the owner's worker, Dask moves the
slice), then the block computes its rows with :func:`arraygnn.ops.spmm` on its
local CSR. Results stay on the workers as :class:`DistributedFeatures` until you
:meth:`~DistributedFeatures.gather` them or write them per partition.

Numbers equal single-machine ``ops.spmm`` bit for bit: each block visits its rows'
edges in the global CSR order (see ``partition.py``) and the kernel sums a row in
edge order.

If a worker dies, Dask recomputes what it can; data that only existed on the dead
worker cannot be recomputed and the call raises :class:`PartitionLostError` naming
the hop and block, never returning partial results.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, is_cupy_array
from arraygnn.distributed.partition import GraphBlock, PartitionedGraph

__all__ = [
    "DistributedFeatures",
    "PartitionLostError",
    "ExchangeStats",
    "scatter_features",
    "distributed_spmm",
    "propagate",
]


class PartitionLostError(RuntimeError):
    """A partition's data was lost (its worker died) and could not be recomputed."""


@dataclass
class ExchangeStats:
    """Bytes moved by one hop.

    ``halo_bytes``: the halo rows every block needs from other blocks (the
    minimum any row-block scheme must move); ``cross_worker_bytes``: the part of
    it whose owner block sits on another worker (what crosses the network).
    """

    halo_rows: int = 0
    halo_bytes: int = 0
    cross_worker_bytes: int = 0


@dataclass
class DistributedFeatures:
    """Row blocks of a feature matrix held on Dask workers.

    ``futures[k]`` holds rows ``boundaries[k]:boundaries[k+1]`` as a NumPy (or
    CuPy, on GPU workers) array on worker ``workers[k]``.
    """

    client: Any
    boundaries: np.ndarray
    futures: list
    workers: list[str]
    dtype: np.dtype
    row_shape: tuple[int, ...]
    on_gpu: bool = False
    stats: ExchangeStats = field(default_factory=ExchangeStats)

    @property
    def row_bytes(self) -> int:
        """Bytes of one feature row."""
        return int(np.dtype(self.dtype).itemsize * int(np.prod(self.row_shape, dtype=np.int64)))

    @property
    def num_parts(self) -> int:
        return len(self.futures)

    def gather(self) -> np.ndarray:
        """Bring all blocks to the client and concatenate them in row order."""
        parts = _gather_checked(self.client, self.futures, "gather")
        xp = _namespace_of(parts)
        return xp.concatenate(parts, axis=0)

    def write(self, directory: str | os.PathLike, prefix: str = "part") -> list[str]:
        """Each worker writes its block to ``<directory>/<prefix>-<k>.npy``; returns the paths.

        The directory must be reachable from the workers (a shared file system,
        or the local disk for a local cluster).
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        futs = [
            self.client.submit(
                _save_block, f, str(directory / f"{prefix}-{k}.npy"), workers=[w], pure=False
            )
            for k, (f, w) in enumerate(zip(self.futures, self.workers))
        ]
        return _gather_checked(self.client, futs, "write")


def _namespace_of(parts: Sequence[Any]) -> Any:
    from arraygnn._namespace import get_namespace

    return get_namespace(*parts)


def _save_block(x: Any, path: str) -> str:
    from arraygnn._namespace import to_numpy

    np.save(path, to_numpy(x))
    return path


_LOST_ERRORS = ("FutureCancelledError", "FuturesCancelledError", "CancelledError", "KilledWorker")


def _is_lost(err: BaseException) -> bool:
    """A Dask error meaning a worker (and the data only it held) is gone."""
    return type(err).__name__ in _LOST_ERRORS or "lost dependencies" in str(err)


def _gather_checked(client: Any, futures: list, what: str) -> list:
    try:
        return client.gather(futures)
    except Exception as err:
        if _is_lost(err):
            raise PartitionLostError(
                f"distributed {what} failed: {type(err).__name__}: {err}. A worker holding a "
                "partition died and its data could not be recomputed; no partial result is "
                "returned."
            ) from err
        raise


def _worker_plan(client: Any, num_parts: int) -> list[str]:
    from arraygnn.distributed.cluster import worker_addresses

    workers = worker_addresses(client)
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    return [workers[k % len(workers)] for k in range(num_parts)]


def _take_rows(x: Any, rows: np.ndarray) -> Any:
    from arraygnn._namespace import get_namespace

    xp = get_namespace(x)
    return x[xp.asarray(rows)]


def _prepare_block(block: GraphBlock, to_gpu: bool) -> tuple:
    """Build the block's local CSR once, on its worker (on the GPU for CuPy workers)."""
    from arraygnn import ops

    rows = block.num_rows
    dst = np.repeat(np.arange(rows, dtype=np.int64), np.diff(block.indptr))
    edge_index = np.stack([block.src.astype(np.int64), dst])
    weight = block.edge_weight
    if to_gpu:
        from arraygnn._namespace import import_cupy

        cp = import_cupy()
        edge_index = cp.asarray(edge_index)
        weight = None if weight is None else cp.asarray(weight)
    num_buffer_rows = rows + int(block.halo_ids.shape[0])
    return ops.to_csr(edge_index, num_buffer_rows, rows), weight


def _block_spmm(prepared: tuple, reduce: str, x_own: Any, *halo_parts: Any) -> Any:
    from arraygnn import ops
    from arraygnn._namespace import get_namespace

    csr, weight = prepared
    xp = get_namespace(x_own)
    buf = xp.concatenate((x_own, *halo_parts), axis=0) if halo_parts else x_own
    return ops.spmm(csr, buf, edge_weight=weight, reduce=reduce, num_dst_nodes=csr.num_dst_nodes)


def scatter_features(
    client: Any, pgraph: PartitionedGraph, x: Any, workers: list[str] | None = None
) -> DistributedFeatures:
    """Split ``x`` [num_nodes, ...] into the partition's row blocks, one per worker
    (``workers``: one address per block; default: the cluster's workers in turn)."""
    if not is_array(x):
        raise TypeError(f"x must be a NumPy or CuPy array, got {type(x).__name__}")
    if x.ndim == 0 or x.shape[0] != pgraph.num_nodes:
        raise ValueError(
            f"x has shape {list(x.shape)} but the partitioned graph has "
            f"{pgraph.num_nodes} nodes (x needs one of its rows per node)"
        )
    workers = workers or _worker_plan(client, pgraph.num_parts)
    if isinstance(workers, str) or len(workers) != pgraph.num_parts:
        raise ValueError(
            f"workers must name one worker per block ({pgraph.num_parts}), got {workers!r}"
        )
    b = pgraph.boundaries
    futures = [
        client.scatter(x[int(b[k]) : int(b[k + 1])], workers=[workers[k]], hash=False)
        for k in range(pgraph.num_parts)
    ]
    return DistributedFeatures(
        client, b, futures, workers, x.dtype, tuple(x.shape[1:]), is_cupy_array(x)
    )


class _BlockCache:
    """Prepared blocks per (partition, client, device kind), so repeated hops reuse them.

    Entries are keyed by ``id(pgraph)`` but hold weak references to the graph and the
    client, checked on every lookup: a new graph that CPython placed at a freed graph's
    address never sees the old graph's blocks. A ``weakref.finalize`` drops a graph's
    entries (and so releases their futures on the workers) when the graph is freed.
    """

    def __init__(self) -> None:
        # id(pgraph) -> (weakref(pgraph), {(id(client), gpu): (weakref(client), futs, workers)})
        self._by_graph: dict[int, tuple[weakref.ref, dict[tuple[int, bool], tuple]]] = {}

    def __len__(self) -> int:
        """Number of partitioned graphs with prepared blocks held."""
        return len(self._by_graph)

    def _evict(self, key: int, ref: weakref.ref) -> None:
        entry = self._by_graph.get(key)
        if entry is not None and entry[0] is ref:
            del self._by_graph[key]

    def get(self, client: Any, pgraph: PartitionedGraph, workers: list[str], gpu: bool) -> list:
        key = id(pgraph)
        entry = self._by_graph.get(key)
        if entry is None or entry[0]() is not pgraph:  # none, or a dead graph's leftover
            ref = weakref.ref(pgraph)
            entry = (ref, {})
            self._by_graph[key] = entry
            weakref.finalize(pgraph, self._evict, key, ref)
        per_client = entry[1]
        for k in [k for k, v in per_client.items() if v[0]() is None]:
            del per_client[k]  # entries of clients that are gone
        hit = per_client.get((id(client), gpu))
        if hit is not None and hit[0]() is client and hit[2] == workers:
            return hit[1]
        futs = [
            client.submit(_prepare_block, blk, gpu, workers=[w], pure=False)
            for blk, w in zip(pgraph.blocks, workers)
        ]
        per_client[(id(client), gpu)] = (weakref.ref(client), futs, list(workers))
        return futs


_blocks = _BlockCache()


def distributed_spmm(
    client: Any,
    pgraph: PartitionedGraph,
    x: DistributedFeatures | np.ndarray,
    reduce: str = "sum",
) -> DistributedFeatures:
    """``ops.spmm`` over the partitioned graph: ``out[t] = reduce_{s->t} w_e * x[s]``.

    ``x`` may be a full array (scattered first) or :class:`DistributedFeatures`
    from an earlier call. The result stays distributed.

    >>> from arraygnn.distributed import local_cluster, partition_graph  # doctest: +SKIP
    >>> with local_cluster() as client:  # doctest: +SKIP
    ...     out = distributed_spmm(client, partition_graph(ei, n, 4), x).gather()
    """
    from arraygnn.ops._common import check_reduce, check_values

    reduce = check_reduce(reduce)  # before any task is sent (ops.spmm's reductions)
    if not isinstance(x, DistributedFeatures) and is_array(x):
        check_values("x", x)
    if not isinstance(x, DistributedFeatures):
        x = scatter_features(client, pgraph, x)
    if not np.array_equal(x.boundaries, pgraph.boundaries):
        raise ValueError("x is distributed over different row blocks than the partitioned graph")
    prepared = _blocks.get(client, pgraph, x.workers, x.on_gpu)
    row_bytes = x.row_bytes
    stats = ExchangeStats()
    out = []
    for k, blk in enumerate(pgraph.blocks):
        halo_parts = []
        for owner in np.unique(blk.halo_owner):
            owner = int(owner)
            rows = blk.halo_from(owner) - pgraph.boundaries[owner]
            halo_parts.append(
                client.submit(
                    _take_rows, x.futures[owner], rows, workers=[x.workers[owner]], pure=False
                )
            )
            stats.halo_rows += rows.shape[0]
            stats.halo_bytes += rows.shape[0] * row_bytes
            if x.workers[owner] != x.workers[k]:
                stats.cross_worker_bytes += rows.shape[0] * row_bytes
        out.append(
            client.submit(
                _block_spmm,
                prepared[k],
                reduce,
                x.futures[k],
                *halo_parts,
                workers=[x.workers[k]],
                pure=False,
            )
        )
    weights = [b.edge_weight for b in pgraph.blocks if b.edge_weight is not None]
    dtype = np.result_type(x.dtype, weights[0].dtype) if weights else np.dtype(x.dtype)
    return DistributedFeatures(
        client, pgraph.boundaries, out, list(x.workers), dtype, x.row_shape, x.on_gpu, stats
    )


def propagate(
    client: Any,
    pgraph: PartitionedGraph,
    x: DistributedFeatures | np.ndarray,
    hops: int,
    reduce: str = "sum",
) -> list[DistributedFeatures]:
    """k-hop propagation ``[x, A x, A^2 x, ..., A^hops x]`` kept per hop (SGC / SIGN).

    Give the partition normalised edge weights (e.g. GCN's symmetric
    normalisation) to get SGC's features. Every hop waits for the previous one
    and raises :class:`PartitionLostError` if a worker's data was lost.
    """
    if isinstance(hops, (bool, np.bool_)) or not isinstance(hops, (int, np.integer)) or hops < 0:
        raise ValueError(f"hops must be a non-negative integer, got {hops!r}")
    if not isinstance(x, DistributedFeatures):
        x = scatter_features(client, pgraph, x)
    results = [x]
    for hop in range(1, hops + 1):
        nxt = distributed_spmm(client, pgraph, results[-1], reduce=reduce)
        try:
            _wait_checked(client, nxt.futures)
        except PartitionLostError as err:
            raise PartitionLostError(f"hop {hop} of {hops}: {err}") from err
        results.append(nxt)
    return results


def _wait_checked(client: Any, futures: list) -> None:
    from distributed import wait

    try:
        wait(futures)
    except Exception as err:
        if _is_lost(err):
            raise PartitionLostError(
                f"{type(err).__name__}: {err}. A worker holding a partition died; "
                "no partial result is returned"
            ) from err
        raise
    for k, f in enumerate(futures):
        if f.status != "finished":
            try:
                f.result()
            except Exception as err:
                if _is_lost(err):
                    raise PartitionLostError(
                        f"block {k} lost ({type(err).__name__}: {err}); "
                        "no partial result is returned"
                    ) from err
                raise
