"""Batches built on Dask workers: from a packed dataset or from sharded TFRecord files.

Two sources, each equal to a single-process loader:

- :func:`distributed_batches` over a :class:`~arraygnn.dataset.PackedDataset`: the
  dataset goes to every worker once; each batch is collated (and optionally
  transformed: padded, written to disk, ...) on a worker. The batches are *exactly*
  those of ``DataLoader(dataset, batch_size, shuffle=..., seed=...)`` in the same
  order, and with ``num_replicas`` / ``replica_id`` those of the input pipeline's
  per-replica split (indices dealt round-robin, then shuffled per replica).
- :func:`distributed_tfrecord_batches` over TFRecord files: the files are dealt to
  replicas round-robin (as :func:`arraygnn.pipeline.shard` does), each file is read,
  parsed and batched by one worker with
  :class:`~arraygnn.pipeline.GraphBatchLoader`, and the client receives the batches
  file by file. Batches never straddle two files (like ``tf.data``'s per-file
  ``interleave``), so they equal ``GraphBatchLoader`` run on each file in turn.

At most ``max_in_flight`` batches are being built or waiting at any time, so a long
epoch never floods the client's memory.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arraygnn.distributed.cluster import worker_addresses

__all__ = ["batch_index_plan", "distributed_batches", "distributed_tfrecord_batches"]


def batch_index_plan(
    num_graphs: int,
    batch_size: int,
    shuffle: bool = False,
    seed: int | None = None,
    drop_last: bool = False,
    num_replicas: int = 1,
    replica_id: int = 0,
    epoch: int = 0,
) -> list[np.ndarray]:
    """The graph indices of every batch of one epoch of one replica.

    RULE: with ``num_replicas=1`` this is the order of
    ``DataLoader(dataset, batch_size, shuffle, seed=seed, drop_last=drop_last)``'s
    epoch number ``epoch`` (0 for its first pass).

    >>> [b.tolist() for b in batch_index_plan(5, 2)]
    [[0, 1], [2, 3], [4]]
    >>> [b.tolist() for b in batch_index_plan(5, 2, num_replicas=2, replica_id=1)]
    [[1, 3]]
    """
    from arraygnn.ops._common import check_size
    from arraygnn.pipeline.batching import shard

    # (a float num_graphs made np.arange invent graphs; a negative epoch read as epoch 0)
    num_graphs = check_size("batch_index_plan: num_graphs", num_graphs)
    epoch = check_size("batch_index_plan: epoch", epoch)
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise TypeError(f"batch_size must be an int, got {batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    mine = np.asarray(
        shard(np.arange(num_graphs), num_replicas=num_replicas, replica_id=replica_id),
        dtype=np.int64,
    )
    if shuffle:
        rng = np.random.default_rng(seed)
        for _ in range(epoch):  # the DataLoader draws one permutation per epoch
            rng.permutation(mine.shape[0])
        mine = mine[rng.permutation(mine.shape[0])]
    n = mine.shape[0]
    stop = (n // batch_size) * batch_size if drop_last else n
    return [mine[i : i + batch_size] for i in range(0, stop, batch_size)]


def _collate_on_worker(
    dataset: Any,
    idx: np.ndarray,
    follow_batch: list[str],
    exclude_keys: list[str],
    transform: Callable[[Any], Any] | None,
) -> Any:
    batch = dataset.collate(idx, follow_batch, exclude_keys)
    return batch if transform is None else transform(batch)


def _ordered_results(client: Any, submit: Callable[[Any], Any], items: Iterable[Any], depth: int):
    """Submit ``items`` lazily, keep ``depth`` in flight, yield results in order."""
    from arraygnn.distributed.propagate import PartitionLostError, _is_lost

    pending: deque = deque()
    it = iter(items)
    for item in it:
        pending.append(submit(item))
        if len(pending) >= depth:
            break
    while pending:
        fut = pending.popleft()
        try:
            result = fut.result()
        except Exception as err:
            for f in pending:
                f.cancel()
            if _is_lost(err):
                raise PartitionLostError(
                    f"a batch could not be built: {type(err).__name__}: {err}"
                ) from err
            raise
        for item in it:
            pending.append(submit(item))
            break
        yield result


def distributed_batches(
    client: Any,
    dataset: Any,
    batch_size: int,
    *,
    shuffle: bool = False,
    seed: int | None = None,
    drop_last: bool = False,
    follow_batch: Sequence[str] | None = None,
    exclude_keys: Sequence[str] | None = None,
    transform: Callable[[Any], Any] | None = None,
    num_replicas: int = 1,
    replica_id: int = 0,
    epoch: int = 0,
    max_in_flight: int | None = None,
) -> Iterator[Any]:
    """Yield the batches of one epoch, each collated on a Dask worker.

    ``transform`` runs on the worker after collation (e.g. padding to fixed sizes,
    or writing the batch to disk and returning its path). See the module docstring
    for the equality with ``DataLoader``.
    """
    from arraygnn.dataset import PackedDataset

    if not isinstance(dataset, PackedDataset):
        raise TypeError(
            f"distributed_batches needs a PackedDataset, got {type(dataset).__name__}; "
            "PackedDataset.from_data_list(graphs) packs a list"
        )
    plan = batch_index_plan(
        len(dataset), batch_size, shuffle, seed, drop_last, num_replicas, replica_id, epoch
    )
    n_workers = max(1, len(worker_addresses(client, wait=0)))
    depth = max_in_flight or 2 * n_workers
    [ds_future] = client.scatter([dataset], broadcast=True, hash=False)
    fb, ex = list(follow_batch or ()), list(exclude_keys or ())

    def submit(idx: np.ndarray) -> Any:
        return client.submit(_collate_on_worker, ds_future, idx, fb, ex, transform, pure=False)

    yield from _ordered_results(client, submit, plan, depth)


def _batches_of_file(path: str, kwargs: dict) -> list:
    from arraygnn.pipeline.batching import GraphBatchLoader

    return list(GraphBatchLoader(path, **kwargs))


def distributed_tfrecord_batches(
    client: Any,
    paths: Sequence[str | os.PathLike],
    batch_size: int,
    *,
    spec: Any,
    num_replicas: int = 1,
    replica_id: int = 0,
    max_in_flight: int | None = None,
    **loader_kwargs: Any,
) -> Iterator[Any]:
    """Yield batches of GraphTensors parsed from TFRecord ``paths`` on Dask workers.

    This replica's files are ``paths[replica_id::num_replicas]``; each is turned into
    batches by ``GraphBatchLoader(path, batch_size, spec=spec, **loader_kwargs)`` on a
    worker (``prefix``, ``map_fn``, ``constraints``, ``drop_remainder``, ... pass
    through; ``map_fn`` must be picklable). Files are processed in parallel and their
    batches yielded in file order.
    """
    from arraygnn.pipeline.batching import shard

    if "shuffle" in loader_kwargs and loader_kwargs["shuffle"]:
        raise ValueError(
            "distributed_tfrecord_batches reads files in a fixed order; shuffle the list of "
            "paths (seeded) before calling it instead of shuffle=True"
        )
    files = [
        os.fspath(p) for p in shard(list(paths), num_replicas=num_replicas, replica_id=replica_id)
    ]
    kwargs = dict(loader_kwargs, batch_size=batch_size, spec=spec)
    n_workers = max(1, len(worker_addresses(client, wait=0)))
    depth = max_in_flight or 2 * n_workers

    def submit(path: str) -> Any:
        return client.submit(_batches_of_file, path, kwargs, pure=False)

    for batches in _ordered_results(client, submit, files, depth):
        yield from batches
