"""``TemporalDataLoader``: consecutive chunks of a :class:`~arraygnn.TemporalData` event
stream, PyG's loader of the same name.

>>> import numpy as np
>>> from arraygnn import TemporalData, TemporalDataLoader
>>> ev = TemporalData(src=np.array([0, 1, 2, 3, 4]), dst=np.array([5, 6, 7, 8, 9]),
...                   t=np.arange(5), msg=np.zeros((5, 1), np.float32))
>>> [b.src.tolist() for b in TemporalDataLoader(ev, batch_size=2)]
[[0, 1], [2, 3], [4]]
>>> b = next(iter(TemporalDataLoader(ev, batch_size=2, neg_sampling_ratio=1.0, seed=0)))
>>> b.neg_dst.shape, bool(((b.neg_dst >= 5) & (b.neg_dst <= 9)).all()), b.n_id.shape[0] >= 4
((2,), True, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from arraygnn._namespace import device_of, get_namespace, to_device
from arraygnn.temporal_data import TemporalData

__all__ = ["TemporalDataLoader"]

# torch DataLoader keywords PyG's loader drops itself (PyTorch Lightning passes them)
_DROPPED = ("dataset", "collate_fn", "shuffle")
# torch DataLoader keywords that change nothing here (single process, no pinning)
_ACCEPTED = (
    "num_workers",
    "pin_memory",
    "persistent_workers",
    "prefetch_factor",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
    "pin_memory_device",
    "in_order",
)


class TemporalDataLoader:
    """Iterate over ``data`` in chunks of ``batch_size`` consecutive events.

    Each batch is ``data[i:i + batch_size]`` (a :class:`TemporalData`; every array with
    ``num_events`` rows is sliced) plus ``n_id``: the sorted distinct node ids of
    ``src``, ``dst`` (and ``neg_dst``).

    RULE: with ``neg_sampling_ratio > 0`` each batch also gets ``neg_dst``:
      ``round(neg_sampling_ratio * batch events)`` ids drawn uniformly from
      ``[data.dst.min(), data.dst.max()]`` (both ends included, PyG's range) in ``dst``'s
      dtype, from one ``numpy.random.Generator`` seeded once with ``seed`` (a seed or a
      Generator), so a seeded loader repeats its draws. PyG draws with ``torch.randint``:
      the same distribution, not the same numbers.
    RULE: ``drop_last=True`` leaves out a last, shorter batch, with PyG's ranges.

    Args:
        data: the event stream.
        batch_size: events per batch.
        neg_sampling_ratio: ``None`` or ``0.0`` for no negatives (PyG's default 0.0); a
            negative or infinite ratio is a ``ValueError`` (PyG's draws none for a
            negative one).
        drop_last: leave out the last batch when it is short.
        seed: seed or ``numpy.random.Generator`` for the negative destinations.
        **kwargs: torch ``DataLoader`` keywords that change nothing here
            (``num_workers``, ``pin_memory``, ...; ``dataset`` / ``collate_fn`` /
            ``shuffle`` are dropped as PyG's loader drops them); others are a ``TypeError``.
    """

    def __init__(
        self,
        data: TemporalData,
        batch_size: int = 1,
        neg_sampling_ratio: float | None = None,
        *,
        drop_last: bool = False,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(data, TemporalData):
            raise TypeError(f"TemporalDataLoader: data must be a TemporalData, got {type(data)}")
        for key in kwargs:
            if key not in _DROPPED + _ACCEPTED:
                raise TypeError(f"TemporalDataLoader got an unexpected keyword argument {key!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"TemporalDataLoader: batch_size must be an int, got {batch_size!r}")
        if batch_size < 1:
            raise ValueError(f"TemporalDataLoader: batch_size must be >= 1, got {batch_size}")
        from arraygnn.nn._module import real_number

        ratio = 0.0
        if neg_sampling_ratio is not None:
            ratio = real_number("TemporalDataLoader", "neg_sampling_ratio", neg_sampling_ratio)
        if not 0.0 <= ratio < float("inf"):
            raise ValueError(
                "TemporalDataLoader: neg_sampling_ratio must be finite and >= 0, got "
                f"{neg_sampling_ratio}"
            )
        if "src" not in data or "dst" not in data:
            raise ValueError("TemporalDataLoader: data needs src and dst")
        self.data = data
        self.events_per_batch = int(batch_size)
        self.neg_sampling_ratio = ratio
        self.drop_last = bool(drop_last)
        try:
            self._rng = (
                seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
            )
        except (TypeError, ValueError) as err:  # ValueError: a negative int
            raise type(err)(
                "TemporalDataLoader: seed must be None, a non-negative int or a numpy "
                f"Generator, got {seed!r}"
            ) from err
        if ratio > 0:
            dst = data._store.get("dst")
            if dst is None or dst.shape[0] == 0:
                raise ValueError("TemporalDataLoader: negative sampling needs a non-empty dst")
            self.min_dst, self.max_dst = int(dst.min()), int(dst.max())
        n = len(data)
        if self.drop_last and n % self.events_per_batch != 0:
            self._starts = range(0, n - self.events_per_batch, self.events_per_batch)
        else:
            self._starts = range(0, n, self.events_per_batch)

    def __len__(self) -> int:
        return len(self._starts)

    def __iter__(self) -> Iterator[TemporalData]:
        for start in self._starts:
            yield self._batch(start)

    def _batch(self, start: int) -> TemporalData:
        batch = self.data[start : start + self.events_per_batch]
        xp = get_namespace(batch.src, batch.dst)
        n_ids = [batch.src, batch.dst]
        if self.neg_sampling_ratio > 0:
            count = round(self.neg_sampling_ratio * batch.dst.shape[0])
            neg = self._rng.integers(self.min_dst, self.max_dst + 1, size=count)
            batch.neg_dst = to_device(neg.astype(batch.dst.dtype), device_of(batch.dst))
            n_ids.append(batch.neg_dst)
        batch.n_id = xp.unique(xp.concatenate(n_ids))
        return batch
