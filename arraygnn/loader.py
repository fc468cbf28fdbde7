"""``DataLoader``: mini-batches of graphs from a list of ``Data`` or a ``PackedDataset``
(and PyG's ``NeighborLoader`` / ``LinkNeighborLoader`` for one large graph, from
:mod:`arraygnn.neighbor_loader` / :mod:`arraygnn.link_neighbor_loader`, and the other
``torch_geometric.loader`` loaders and samplers, each from its own module: see
``docs/input_pipelines.md``).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.loader import DataLoader
>>> graphs = [Data(x=np.ones((i + 1, 2)), edge_index=np.zeros((2, 0), np.int64))
...           for i in range(5)]
>>> loader = DataLoader(graphs, batch_size=2, shuffle=True, seed=0)
>>> len(loader), [b.num_graphs for b in loader]
(3, [2, 2, 1])
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from arraygnn._lazy import attach
from arraygnn._loader_args import (
    apply_torch_args,
    epoch_batches,
    epoch_iter,
    num_batches,
)
from arraygnn.batch import Batch
from arraygnn.dataset import PackedDataset
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import (
    NeighborLoader,
)

if TYPE_CHECKING:  # the loaders re-exported lazily at the end of this module
    from arraygnn.cached_loader import CachedLoader
    from arraygnn.cluster_data import ClusterData
    from arraygnn.cluster_loader import ClusterLoader
    from arraygnn.data_list_loader import DataListLoader
    from arraygnn.dense_data_loader import DenseDataLoader
    from arraygnn.dynamic_batch_sampler import DynamicBatchSampler
    from arraygnn.graph_saint import (
        GraphSAINTEdgeSampler,
        GraphSAINTNodeSampler,
        GraphSAINTRandomWalkSampler,
        GraphSAINTSampler,
    )
    from arraygnn.hgt_loader import HGTLoader
    from arraygnn.imbalanced_sampler import ImbalancedSampler
    from arraygnn.link_loader import LinkLoader
    from arraygnn.node_loader import NodeLoader
    from arraygnn.prefetch_loader import PrefetchLoader
    from arraygnn.random_node_loader import RandomNodeLoader
    from arraygnn.shadow_k_hop_sampler import ShaDowKHopSampler
    from arraygnn.temporal_data_loader import TemporalDataLoader
    from arraygnn.zip_loader import ZipLoader

__all__ = [
    "CachedLoader",
    "ClusterData",
    "ClusterLoader",
    "DataListLoader",
    "DataLoader",
    "DenseDataLoader",
    "DynamicBatchSampler",
    "GraphSAINTEdgeSampler",
    "GraphSAINTNodeSampler",
    "GraphSAINTRandomWalkSampler",
    "GraphSAINTSampler",
    "HGTLoader",
    "ImbalancedSampler",
    "LinkLoader",
    "LinkNeighborLoader",
    "NeighborLoader",
    "NodeLoader",
    "PrefetchLoader",
    "RandomNodeLoader",
    "ShaDowKHopSampler",
    "TemporalDataLoader",
    "ZipLoader",
]

_DONE = object()


class DataLoader:
    """Iterate ``Batch`` objects over ``dataset``.

    Args:
        dataset: a ``PackedDataset`` (batches gathered by index arithmetic) or a sequence
            of ``Data`` (collated with ``Batch.from_data_list``).
        batch_size: graphs per batch (>= 1).
        shuffle: draw a new order every epoch (every ``iter(loader)``).
        follow_batch / exclude_keys: as in ``Batch.from_data_list``.
        drop_last: drop the last batch when it has fewer than ``batch_size`` graphs.
        seed: seed of the ``numpy.random.Generator`` used for shuffling; the same seed
            gives the same sequence of epochs.
        prefetch: batches prepared ahead in one background thread (0: none).
        sampler: an iterable of graph positions drawn anew on every epoch (e.g.
            :class:`~arraygnn.imbalanced_sampler.ImbalancedSampler`), cut into batches of
            ``batch_size``; not with ``shuffle`` (torch's rule).
        batch_sampler: an iterable of position lists, one per batch (e.g.
            :class:`~arraygnn.dynamic_batch_sampler.DynamicBatchSampler`); not with
            ``batch_size`` other than 1, ``shuffle``, ``sampler`` or ``drop_last``.
        **kwargs: torch ``DataLoader``'s other keywords, as PyG's loader passes them on:
            ``generator`` (the shuffling stream, instead of ``seed``: a
            ``numpy.random.Generator``, or a ``torch.Generator``, which gives torch's own
            order, the same batches as PyG's ``DataLoader`` with that generator); and,
            checked as torch checks them, the ones that change how batches are made, not
            what they hold: ``num_workers > 0`` turns on the prefetch thread
            (``num_workers * prefetch_factor`` batches ahead, ``prefetch_factor`` 2 by
            default) unless ``prefetch`` is given; ``pin_memory``,
            ``persistent_workers``, ``worker_init_fn`` (never called: no worker
            processes), ``timeout``, ``multiprocessing_context``, ``pin_memory_device``,
            ``in_order`` and ``filter_per_worker`` have no effect. ``collate_fn`` /
            ``dataset`` are dropped, as PyG drops them; any other keyword is a ``TypeError``.

    RULE: every graph appears exactly once per epoch (once at most with ``drop_last``),
          unless a ``sampler`` / ``batch_sampler`` says otherwise.
    """

    def __init__(
        self,
        dataset: PackedDataset | Sequence[Any],
        batch_size: int = 1,
        shuffle: bool = False,
        follow_batch: Iterable[str] | None = None,
        exclude_keys: Iterable[str] | None = None,
        drop_last: bool = False,
        seed: int | None = None,
        prefetch: int = 0,
        sampler: Iterable[Any] | None = None,
        batch_sampler: Iterable[Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"DataLoader: batch_size must be an int, got {batch_size!r}")
        if batch_size < 1:
            raise ValueError(f"DataLoader: batch_size must be >= 1, got {batch_size}")
        if isinstance(prefetch, bool) or not isinstance(prefetch, (int, np.integer)):
            raise TypeError(f"DataLoader: prefetch must be an int, got {prefetch!r}")
        if prefetch < 0:
            raise ValueError(f"DataLoader: prefetch must be >= 0, got {prefetch}")
        if not isinstance(dataset, PackedDataset) and not (
            hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")
        ):
            raise TypeError(
                "DataLoader: dataset must be a PackedDataset or a sequence of Data, "
                f"got {type(dataset).__name__}"
            )
        kwargs.update(sampler=sampler, batch_sampler=batch_sampler)
        self._rng = apply_torch_args(  # torch's keywords, checked, kept as attributes
            self, "DataLoader", kwargs, seed, batch_size, shuffle, drop_last
        )
        if prefetch == 0 and self.num_workers > 0:  # torch's workers: the prefetch thread
            factor = 2 if self.prefetch_factor is None else self.prefetch_factor
            prefetch = self.num_workers * factor
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.follow_batch = list(follow_batch or ())
        self.exclude_keys = list(exclude_keys or ())
        self.drop_last = bool(drop_last)
        self.seed = seed
        self.prefetch = int(prefetch)

    def __len__(self) -> int:
        return num_batches(
            len(self.dataset), self.batch_size, self.drop_last, self.sampler, self.batch_sampler
        )

    def _batches_of_indices(self) -> list[np.ndarray]:
        return epoch_batches(
            type(self).__name__, len(self.dataset), self.batch_size, self.shuffle,
            self.drop_last, self._rng, self.sampler, self.batch_sampler,
        )  # fmt: skip

    def _make(self, idx: np.ndarray) -> Batch:
        if isinstance(self.dataset, PackedDataset):
            return self.dataset.collate(idx, self.follow_batch, self.exclude_keys)
        graphs = [self.dataset[int(i)] for i in idx]
        return Batch.from_data_list(graphs, self.follow_batch, self.exclude_keys)

    def __iter__(self) -> Iterator[Batch]:
        chunks = self._batches_of_indices()  # drawn now: the epoch order is fixed here
        if self.prefetch == 0:
            return epoch_iter(self._rng, (self._make(idx) for idx in chunks))
        return epoch_iter(self._rng, self._prefetching(chunks))

    def _prefetching(self, chunks: list[np.ndarray]) -> Iterator[Batch]:
        q: queue.Queue = queue.Queue(maxsize=self.prefetch)
        stop = threading.Event()

        def put(item: Any) -> bool:
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        def work() -> None:
            try:
                for idx in chunks:
                    if not put(self._make(idx)):
                        return
                put(_DONE)
            except BaseException as err:  # handed to the consumer, raised there
                put(err)

        thread = threading.Thread(target=work, name="arraygnn-prefetch", daemon=True)
        thread.start()
        try:
            while True:
                item = q.get()
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            thread.join(timeout=5)

    def __repr__(self) -> str:
        return (
            f"DataLoader({len(self.dataset)} graphs, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}, drop_last={self.drop_last}, prefetch={self.prefetch})"
        )


# The loaders below subclass DataLoader (their modules import this one), so they are
# re-exported on first use (arraygnn._lazy) rather than imported here: any of them can then be
# imported first in a fresh process without a circular import.
_REEXPORTS: dict[str, str] = {
    "CachedLoader": "arraygnn.cached_loader",
    "ClusterData": "arraygnn.cluster_data",
    "ClusterLoader": "arraygnn.cluster_loader",
    "DataListLoader": "arraygnn.data_list_loader",
    "DenseDataLoader": "arraygnn.dense_data_loader",
    "DynamicBatchSampler": "arraygnn.dynamic_batch_sampler",
    "GraphSAINTEdgeSampler": "arraygnn.graph_saint",
    "GraphSAINTNodeSampler": "arraygnn.graph_saint",
    "GraphSAINTRandomWalkSampler": "arraygnn.graph_saint",
    "GraphSAINTSampler": "arraygnn.graph_saint",
    "HGTLoader": "arraygnn.hgt_loader",
    "ImbalancedSampler": "arraygnn.imbalanced_sampler",
    "LinkLoader": "arraygnn.link_loader",
    "NodeLoader": "arraygnn.node_loader",
    "PrefetchLoader": "arraygnn.prefetch_loader",
    "RandomNodeLoader": "arraygnn.random_node_loader",
    "ShaDowKHopSampler": "arraygnn.shadow_k_hop_sampler",
    "TemporalDataLoader": "arraygnn.temporal_data_loader",
    "ZipLoader": "arraygnn.zip_loader",
}

__getattr__, __dir__ = attach(__name__, _REEXPORTS)
