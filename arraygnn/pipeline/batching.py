"""Batching for input pipelines: per-replica sharding, fixed, dynamic and fit-or-skip batches.

The pieces of the seed's ``tf.data`` recipes, as plain Python iterators over GraphTensors:

- :func:`shard` / :func:`per_replica_batch_size`: what one replica of a data-parallel job
  reads, like ``distribute_datasets_from_function`` with an input context.
- :func:`batch_graphs`: consecutive graphs merged into one graph with one component each
  (``ds.batch(n)`` followed by ``merge_batch_to_components()``).
- :func:`dynamic_batch`: as many consecutive graphs as fit a :class:`SizeConstraints`.
- :class:`FilterWithSummary` / :func:`dataset_filter_with_summary` / :func:`fit_or_skip`:
  skip batches that do not fit the constraints, counting what was skipped.
- :class:`GraphBatchLoader`: TFRecord files or in-memory graphs -> parsed, merged, optionally
  mapped, filtered and padded batches, per replica.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

__all__ = [
    "FilterWithSummary",
    "PadBatches",
    "shard_dataset",
    "GraphBatchLoader",
    "batch_graphs",
    "dataset_filter_with_summary",
    "dynamic_batch",
    "fit_or_skip",
    "merge_graphs",
    "per_replica_batch_size",
    "shard",
]


def shard(items: Sequence[T], *, num_replicas: int = 1, replica_id: int = 0) -> list[T]:
    """The part of ``items`` (file paths or indices) that replica ``replica_id`` reads.

    Items are dealt round-robin: replica ``r`` gets ``items[r::num_replicas]``.

    >>> shard(["a", "b", "c", "d", "e"], num_replicas=2, replica_id=1)
    ['b', 'd']
    """
    if isinstance(num_replicas, bool) or not isinstance(num_replicas, int) or num_replicas < 1:
        raise ValueError(f"num_replicas must be a positive int, got {num_replicas!r}")
    if (
        isinstance(replica_id, bool)
        or not isinstance(replica_id, int)
        or not 0 <= replica_id < num_replicas
    ):
        raise ValueError(f"replica_id must be in [0, {num_replicas}), got {replica_id!r}")
    return list(items)[replica_id::num_replicas]


def per_replica_batch_size(global_batch_size: int, num_replicas: int) -> int:
    """``global_batch_size // num_replicas``; ``ValueError`` unless it divides evenly.

    >>> per_replica_batch_size(64, 4)
    16
    """
    if global_batch_size < 1 or num_replicas < 1:
        raise ValueError("global_batch_size and num_replicas must be positive")
    if global_batch_size % num_replicas:
        raise ValueError(
            f"global batch size {global_batch_size} is not divisible by {num_replicas} replicas"
        )
    return global_batch_size // num_replicas


def merge_graphs(graphs: Sequence[Any]) -> Any:
    """Merge scalar GraphTensors into one whose components are theirs, in order."""
    from arraygnn.graph_tensor.batching import merge_graphs_to_components

    return merge_graphs_to_components(list(graphs))


def batch_graphs(
    graphs: Iterable[Any], batch_size: int, *, drop_remainder: bool = False
) -> Iterator[Any]:
    """Merge every ``batch_size`` consecutive graphs into one graph."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    buf: list[Any] = []
    for g in graphs:
        buf.append(g)
        if len(buf) == batch_size:
            yield merge_graphs(buf)
            buf = []
    if buf and not drop_remainder:
        yield merge_graphs(buf)


def dynamic_batch(
    graphs: Iterable[Any],
    constraints: Any,
    *,
    on_oversized: Callable[[int, Any], None] | None = None,
) -> Iterator[Any]:
    """Greedily merge as many consecutive graphs as still fit ``constraints`` (with room
    for padding), TF-GNN's ``dynamic_batch``. Each result satisfies
    :func:`arraygnn.padding.satisfies_total_sizes`.

    A single graph that does not fit on its own raises ``ValueError`` naming its index, or,
    with ``on_oversized``, is passed to ``on_oversized(index, graph)`` and left out.
    """
    from arraygnn.padding import (
        _check_constraints_cover,
        _incident_node_sets,
        size_violations,
        small_components,
        total_sizes,
    )

    buf: list[Any] = []
    acc_c = 0
    acc_n: dict[str, int] = {}
    acc_e: dict[str, int] = {}
    incident: dict[str, tuple[str, ...]] | None = None
    for i, g in enumerate(graphs):
        _check_constraints_cover(g, constraints)
        if incident is None:  # every tag's node set (a HyperAdjacency has more than two)
            incident = {k: _incident_node_sets(g, k) for k in g.edge_sets}
        c, n, e = total_sizes(g)
        alone = size_violations(c, n, e, incident, constraints) + small_components(g, constraints)
        if alone:
            if on_oversized is not None:
                on_oversized(i, g)
                continue
            raise ValueError(f"graph {i} does not fit the size constraints: {'; '.join(alone)}")
        if buf:
            nn = {k: acc_n[k] + v for k, v in n.items()}
            ne = {k: acc_e[k] + v for k, v in e.items()}
            if not size_violations(acc_c + c, nn, ne, incident, constraints):
                buf.append(g)
                acc_c, acc_n, acc_e = acc_c + c, nn, ne
                continue
            yield merge_graphs(buf)
        buf, acc_c, acc_n, acc_e = [g], c, dict(n), dict(e)
    if buf:
        yield merge_graphs(buf)


class FilterWithSummary:
    """Iterate ``items`` keeping those where ``predicate(item)`` holds, and count the rest.

    ``num_seen``, ``num_skipped`` and ``skipped_fraction`` report what was filtered so far;
    ``removed_fraction_ema`` is TF-GNN's exponential moving average of it, and with
    ``report`` it is passed on every ``summary_steps`` items (see
    :func:`dataset_filter_with_summary`). All of them restart on every pass (each
    ``iter()``), as TF-GNN's ``tf.data`` filter: they describe the current or last pass.

    >>> f = FilterWithSummary(range(10), lambda x: x % 4 != 0)
    >>> list(f), f.num_skipped, f.skipped_fraction
    ([1, 2, 3, 5, 6, 7, 9], 3, 0.3)
    """

    def __init__(
        self,
        items: Iterable[T],
        predicate: Callable[[T], bool],
        *,
        summary_name: str = "dataset_removed_fraction",
        summary_steps: int = 1000,
        summary_decay: float | None = None,
        report: Callable[[str, float, int], Any] | None = None,
    ) -> None:
        if not summary_steps > 0:
            raise ValueError(f"Expected summary_steps > 0, actual summary_steps={summary_steps}.")
        if summary_decay is None:
            summary_decay = float(np.exp(-1.0 / float(summary_steps)))
        elif not 0.0 < summary_decay < 1.0:
            raise ValueError(
                f"Expected 0 < summary_decay < 1, actual summary_decay={summary_decay}."
            )
        self._items = items
        self._predicate = predicate
        self.summary_name = summary_name
        self.summary_steps = int(summary_steps)
        self.summary_decay = float(summary_decay)
        self._report = report
        self.num_seen = 0
        self.num_skipped = 0
        self.removed_fraction_ema = 0.0

    @property
    def skipped_fraction(self) -> float:
        return self.num_skipped / self.num_seen if self.num_seen else 0.0

    def __iter__(self) -> Iterator[T]:
        # every pass starts afresh, as TF-GNN's (a tf.data scan from its initial state)
        self.num_seen = self.num_skipped = 0
        self.removed_fraction_ema = 0.0
        for item in self._items:
            self.num_seen += 1
            keep = bool(self._predicate(item))
            if not keep:
                self.num_skipped += 1
            # TF-GNN: alpha = max(1 - decay, 1 / seen) (a plain mean while warming up)
            alpha = max(1.0 - self.summary_decay, 1.0 / self.num_seen)
            self.removed_fraction_ema += alpha * (float(not keep) - self.removed_fraction_ema)
            if self._report is not None and self.num_seen % self.summary_steps == 0:
                kept = self.num_seen - self.num_skipped
                self._report(self.summary_name, self.removed_fraction_ema, max(kept - 1, 0))
            if keep:
                yield item


def dataset_filter_with_summary(
    dataset: Iterable[T],
    predicate: Callable[[T], bool],
    *,
    summary_name: str = "dataset_removed_fraction",
    summary_steps: int = 1000,
    summary_decay: float | None = None,
    report: Callable[[str, float, int], Any] | None = None,
) -> FilterWithSummary:
    """TF-GNN's ``dataset_filter_with_summary`` on any iterable: keep the items where
    ``predicate`` holds and track the removed fraction as TF-GNN does (an exponential moving
    average with decay ``summary_decay``, default ``exp(-1 / summary_steps)``, a plain mean
    over the first items).

    Every ``summary_steps`` input items, ``report(summary_name, ema, step)`` is called, with
    ``step`` the index of the last kept item (TF-GNN writes
    ``tf.summary.scalar(summary_name, ema, step=step)``; pass e.g. a TensorBoard writer's
    ``add_scalar``). ``ValueError`` unless ``summary_steps > 0`` and ``0 < summary_decay < 1``.
    Each pass over the result restarts the counts, average and step, as TF-GNN's dataset.

    >>> seen = []
    >>> f = dataset_filter_with_summary(range(6), lambda x: x % 3 != 0, summary_steps=3,
    ...                                 report=lambda name, ema, step: seen.append(step))
    >>> list(f), seen, f.num_skipped
    ([1, 2, 4, 5], [1, 3], 2)
    """
    return FilterWithSummary(
        dataset,
        predicate,
        summary_name=summary_name,
        summary_steps=summary_steps,
        summary_decay=summary_decay,
        report=report,
    )


def fit_or_skip(batches: Iterable[Any], constraints: Any) -> FilterWithSummary:
    """Keep the merged batches that satisfy ``constraints``; count the skipped ones."""
    from arraygnn.padding import satisfies_total_sizes

    return FilterWithSummary(batches, lambda g: satisfies_total_sizes(g, constraints))


class GraphBatchLoader:
    """Batches of GraphTensors from TFRecord files or from memory, per replica.

    Args:
      source: TFRecord path(s) of serialized ``tf.Example`` graphs (needs ``spec``), or a
        sequence of GraphTensors.
      batch_size: graphs per batch on THIS replica (see :func:`per_replica_batch_size`).
      spec: graph spec to parse records with; ``prefix`` for prefixed examples.
      shuffle, seed: shuffle indices (in-memory source) or files and a record buffer of
        ``shuffle_buffer`` (files) every epoch.
      drop_remainder: drop a last, smaller batch.
      map_fn: applied to every merged batch (e.g. :class:`~arraygnn.pipeline.MapFeatures`).
      constraints: pad every batch to these sizes; batches are then ``(graph, mask)``.
      fit_or_skip: skip batches that do not fit ``constraints`` instead of raising;
        ``skipped_fraction`` reports how many were skipped (with ``dynamic``, a graph too
        big on its own counts as one skipped batch).
      dynamic: pack as many graphs as fit ``constraints`` (``batch_size`` ignored, no
        ``drop_remainder``); with ``fit_or_skip`` a graph too big on its own is skipped.
      num_replicas, replica_id: read files (or indices) ``replica_id::num_replicas``.
    """

    def __init__(
        self,
        source: str | os.PathLike | Sequence[Any],
        batch_size: int,
        *,
        spec: Any = None,
        prefix: str | None = None,
        shuffle: bool = False,
        seed: int | None = None,
        shuffle_buffer: int = 10_000,
        drop_remainder: bool = False,
        map_fn: Callable[[Any], Any] | None = None,
        constraints: Any = None,
        fit_or_skip: bool = False,
        dynamic: bool = False,
        num_replicas: int = 1,
        replica_id: int = 0,
        compression: str | None = "auto",
    ) -> None:
        for name, value in (("batch_size", batch_size), ("shuffle_buffer", shuffle_buffer)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"GraphBatchLoader: {name} must be an int, got {value!r}")
            if value < 1:
                raise ValueError(f"GraphBatchLoader: {name} must be positive, got {value}")
        if (fit_or_skip or dynamic) and constraints is None:
            raise ValueError(
                "GraphBatchLoader: fit_or_skip=True and dynamic=True need constraints="
            )
        if dynamic and drop_remainder:
            raise ValueError(
                "GraphBatchLoader: drop_remainder has no meaning with dynamic=True (batches "
                "hold as many graphs as fit the constraints)"
            )
        if isinstance(source, (str, os.PathLike)):
            source = [source]
        source = list(source)
        self._is_files = bool(source) and all(isinstance(s, (str, os.PathLike)) for s in source)
        if self._is_files and spec is None:
            raise ValueError("GraphBatchLoader: reading TFRecord files needs spec=")
        self.source = source
        self.batch_size = int(batch_size)
        self.spec = spec
        self.prefix = prefix
        self.shuffle = shuffle
        self.shuffle_buffer = int(shuffle_buffer)
        self.drop_remainder = drop_remainder
        self.map_fn = map_fn
        self.constraints = constraints
        self.fit_or_skip = fit_or_skip
        self.dynamic = dynamic
        self.num_replicas = num_replicas
        self.replica_id = replica_id
        self.compression = compression
        mine = shard(source, num_replicas=num_replicas, replica_id=replica_id)  # validates
        if self._is_files and not mine:
            # silently empty would train this replica on nothing (tf.distribute's file
            # auto-sharding refuses fewer files than workers too)
            raise ValueError(
                f"GraphBatchLoader: replica {replica_id} of {num_replicas} gets no files: "
                f"{len(source)} file(s) for {num_replicas} replicas (files are dealt "
                "round-robin); write at least one file per replica"
            )
        self._rng = np.random.default_rng(seed)
        self.num_batches_seen = 0
        self.num_batches_skipped = 0

    @property
    def skipped_fraction(self) -> float:
        """Fraction of batches skipped by ``fit_or_skip`` over all epochs so far."""
        return self.num_batches_skipped / self.num_batches_seen if self.num_batches_seen else 0.0

    # -- sources -----------------------------------------------------------------------------
    def _records(self) -> Iterator[bytes]:
        from arraygnn.io.tfrecord import read_tfrecord_file

        files = shard(self.source, num_replicas=self.num_replicas, replica_id=self.replica_id)
        if self.shuffle:
            files = [files[i] for i in self._rng.permutation(len(files))]
        it = (r for f in files for r in read_tfrecord_file(f, compression=self.compression))
        if not self.shuffle:
            yield from it
            return
        buf: list[bytes] = []
        for r in it:
            if len(buf) < self.shuffle_buffer:
                buf.append(r)
                continue
            j = int(self._rng.integers(len(buf)))
            buf[j], r = r, buf[j]
            yield r
        for j in self._rng.permutation(len(buf)):
            yield buf[j]

    def _graphs(self) -> Iterator[Any]:
        if self._is_files:
            from arraygnn.io.example import parse_single_example

            for r in self._records():
                yield parse_single_example(self.spec, r, prefix=self.prefix)
            return
        idx = np.arange(len(self.source))
        idx = np.asarray(shard(idx, num_replicas=self.num_replicas, replica_id=self.replica_id))
        if self.shuffle:
            idx = self._rng.permutation(idx)
        for i in idx:
            yield self.source[int(i)]

    def _skip_oversized(self, index: int, graph: Any) -> None:
        """``fit_or_skip`` with ``dynamic``: a graph too big on its own is a skipped batch."""
        self.num_batches_seen += 1
        self.num_batches_skipped += 1

    def _merged_batches(self) -> Iterator[Any]:
        if self.dynamic:
            skip = self._skip_oversized if self.fit_or_skip else None
            yield from dynamic_batch(self._graphs(), self.constraints, on_oversized=skip)
            return
        if self._is_files:
            from arraygnn.io.example import parse_example

            buf: list[bytes] = []
            for r in self._records():
                buf.append(r)
                if len(buf) == self.batch_size:
                    yield parse_example(self.spec, buf, prefix=self.prefix)
                    buf = []
            if buf and not self.drop_remainder:
                yield parse_example(self.spec, buf, prefix=self.prefix)
            return
        yield from batch_graphs(self._graphs(), self.batch_size, drop_remainder=self.drop_remainder)

    def __iter__(self) -> Iterator[Any]:
        from arraygnn.padding import pad_to_total_sizes, satisfies_total_sizes

        for g in self._merged_batches():
            if self.map_fn is not None:
                g = self.map_fn(g)
            if self.constraints is None:
                yield g
                continue
            self.num_batches_seen += 1
            if self.fit_or_skip and not satisfies_total_sizes(g, self.constraints):
                self.num_batches_skipped += 1
                continue
            yield pad_to_total_sizes(g, self.constraints)


def shard_dataset(dataset: Any, *, num_replicas: int = 1, replica_id: int = 0) -> Any:
    """The graphs of ``dataset`` that replica ``replica_id`` reads (round-robin, as
    :func:`shard`): a ``PackedDataset`` subset (``dataset[indices]``) or a list."""
    idx = np.asarray(
        shard(list(range(len(dataset))), num_replicas=num_replicas, replica_id=replica_id),
        dtype=np.int64,
    )
    if hasattr(dataset, "subset"):
        return dataset[idx]
    return [dataset[int(i)] for i in idx]


class PadBatches:
    """Pad every PyG-style ``Batch`` of ``batches`` (e.g. a ``DataLoader``) with
    :func:`arraygnn.padding.pad_batch`; with ``fit_or_skip=True`` batches that do not fit
    are skipped and counted (``num_seen``, ``num_skipped``, ``skipped_fraction``) over all
    passes so far, as ``GraphBatchLoader.skipped_fraction`` (``FilterWithSummary`` restarts
    per pass, as TF-GNN's filter).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> from arraygnn.batch import Batch
    >>> batches = [Batch.from_data_list([Data(x=np.ones((n, 1)))]) for n in (2, 9, 3)]
    >>> padded = PadBatches(batches, num_nodes=5, num_edges=0, num_graphs=2, fit_or_skip=True)
    >>> [int(b.node_mask.sum()) for b in padded], padded.skipped_fraction
    ([2, 3], 0.3333333333333333)
    """

    def __init__(
        self,
        batches: Iterable[Any],
        *,
        num_nodes: int,
        num_edges: int,
        num_graphs: int,
        fit_or_skip: bool = False,
        **pad_kwargs: Any,
    ) -> None:
        from arraygnn.ops._common import check_size

        self.batches = batches
        # checked here: with fit_or_skip a bad size would otherwise skip every batch silently
        self.sizes = {
            k: check_size(f"PadBatches: {k}", v)
            for k, v in (
                ("num_nodes", num_nodes),
                ("num_edges", num_edges),
                ("num_graphs", num_graphs),
            )
        }
        if self.sizes["num_graphs"] == 0:  # a batch holds >= 1 graph: none would ever fit
            raise ValueError("PadBatches: num_graphs must be >= 1 (a batch holds a graph), got 0")
        self.fit_or_skip = fit_or_skip
        self.pad_kwargs = pad_kwargs
        self.num_seen = 0
        self.num_skipped = 0

    @property
    def skipped_fraction(self) -> float:
        return self.num_skipped / self.num_seen if self.num_seen else 0.0

    def _fits(self, b: Any) -> bool:
        n = int(b["ptr"][-1])
        e = int(b["edge_index"].shape[1]) if "edge_index" in b.keys() else 0
        g = int(b["ptr"].shape[0]) - 1
        pn, pe, pg = (
            self.sizes["num_nodes"] - n,
            self.sizes["num_edges"] - e,
            self.sizes["num_graphs"] - g,
        )
        if min(pn, pe, pg) < 0:
            return False
        if pg == 0:
            return pn == 0 and pe == 0
        return pe == 0 or pn >= 1

    def __iter__(self) -> Iterator[Any]:
        from arraygnn.padding import pad_batch

        for b in self.batches:
            self.num_seen += 1
            if self.fit_or_skip and not self._fits(b):
                self.num_skipped += 1
                continue
            yield pad_batch(b, **self.sizes, **self.pad_kwargs)
