"""``DynamicBatchSampler``: PyG's batch sampler that fills each batch with graphs up to a
total of ``max_num`` nodes (``mode='node'``) or edges (``mode='edge'``).

Graphs are taken in dataset order (a fresh random order each epoch with ``shuffle``); a
graph that would push the batch past ``max_num`` starts the next batch. A graph bigger than
``max_num`` on its own makes a batch by itself, or is left out with ``skip_too_big``.
``num_steps`` caps the batches per epoch (and is then ``len(sampler)``; without it the
length is undefined, as PyG's). Pass it as ``batch_sampler=`` to
:class:`~arraygnn.loader.DataLoader`.

RULE: every batch totals at most ``max_num`` (unless it is one too-big graph, with any
      graphs of size 0 just before it, as PyG's); each graph is in at most one batch per
      epoch (exactly one without ``skip_too_big`` / ``num_steps``).
RULE: sizes come from a ``PackedDataset``'s ``num_nodes`` / ``num_edges`` arrays (no graph
      is built; with a dataset ``transform``, graph by graph), else from ``dataset[i]``.
Difference from PyG 2.8.1: with ``skip_too_big``, PyG miscounts the skipped graphs and
yields some graphs twice (and, when only too-big graphs remain, empty batches); here a
skipped graph is skipped once and no batch is empty.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> graphs = [Data(num_nodes=n) for n in [3, 4, 2, 6, 1]]
>>> [batch for batch in DynamicBatchSampler(graphs, max_num=7)]
[[0, 1], [2], [3, 4]]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["DynamicBatchSampler"]

_WHERE = "DynamicBatchSampler"


class DynamicBatchSampler:
    """Lists of graph positions whose node (or edge) counts total at most ``max_num``.

    Args:
        dataset: a ``PackedDataset`` or a sequence of graphs.
        max_num: the batch budget (> 0).
        mode: ``'node'`` or ``'edge'``.
        shuffle: a new random order every epoch.
        skip_too_big: leave out graphs bigger than ``max_num``.
        num_steps: at most this many batches per epoch (``None``: until the data ends).
        seed: seed of the ``numpy.random.Generator`` used for shuffling.
    """

    def __init__(
        self,
        dataset: Any,
        max_num: int,
        mode: str = "node",
        shuffle: bool = False,
        skip_too_big: bool = False,
        num_steps: int | None = None,
        seed: int | None = None,
    ) -> None:
        from arraygnn.neighbor_loader import _check_int

        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(
                f"{_WHERE}: dataset must be a PackedDataset or a sequence of graphs, got "
                f"{type(dataset).__name__}"
            )
        self.max_num = _check_int(_WHERE, "max_num", max_num, 1)
        if mode not in ("node", "edge"):
            raise ValueError(f"{_WHERE}: mode must be 'node' or 'edge', got {mode!r}")
        self.num_steps = (
            None if num_steps is None else _check_int(_WHERE, "num_steps", num_steps, 1)
        )
        self.dataset, self.mode = dataset, mode
        self.shuffle, self.skip_too_big = bool(shuffle), bool(skip_too_big)
        self.max_steps = len(dataset) if num_steps is None else self.num_steps
        self._rng = np.random.default_rng(seed)

    def _sizes(self) -> Any:
        from arraygnn.dataset import PackedDataset

        ds = self.dataset
        if isinstance(ds, PackedDataset) and ds.transform is None:
            return ds.num_nodes if self.mode == "node" else ds.num_edges
        return None

    def _size(self, i: int) -> int:
        data = self.dataset[i]
        num = data.num_nodes if self.mode == "node" else data.num_edges
        if num is None:
            raise ValueError(f"{_WHERE}: graph {i} has no known num_nodes")
        return int(num)

    def __iter__(self) -> Iterator[list[int]]:
        n = len(self.dataset)
        order = self._rng.permutation(n).tolist() if self.shuffle else range(n)
        sizes = self._sizes()
        samples: list[int] = []
        current = steps = 0
        for i in order:
            if steps >= self.max_steps:
                return
            num = int(sizes[i]) if sizes is not None else self._size(i)
            # PyG's test is on the running total, not on the batch being empty: graphs of
            # size 0 do not start a batch of their own, a too-big graph joins them
            if current > 0 and current + num > self.max_num:  # the batch is full
                yield samples
                steps += 1
                samples, current = [], 0
                if steps >= self.max_steps:
                    return
            if current == 0 and num > self.max_num and self.skip_too_big:
                continue
            samples.append(i)
            current += num
        if samples and steps < self.max_steps:
            yield samples

    def __len__(self) -> int:
        if self.num_steps is None:
            raise ValueError(
                f"{_WHERE}: the length is undefined since the number of steps per epoch is "
                "ambiguous; give num_steps or use a static batch size"
            )
        return self.num_steps

    def __repr__(self) -> str:
        return f"DynamicBatchSampler(max_num={self.max_num}, mode={self.mode!r})"
