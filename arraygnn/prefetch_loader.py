"""``PrefetchLoader``: PyG's loader wrapper that moves each batch to the GPU one step ahead,
so the copy of batch ``i + 1`` is under way while batch ``i`` is used.

With ``device=None`` or ``'cpu'`` it passes the batches through unchanged (NumPy stays
NumPy: no hidden copy; PyG picks CUDA when present, here the device is said). With
``'cuda'`` / ``'cuda:N'`` every array of a batch (a ``Data``, ``HeteroData``, ``Batch``,
or a list / tuple / dict of them) is copied with :func:`arraygnn.to_device` on a CuPy
stream of its own, issued before the previous batch is handed over; the consumer's stream
waits for that copy before it gets the batch.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.loader import DataLoader
>>> graphs = [Data(x=np.ones((2, 1)) * i) for i in range(3)]
>>> [b.x.sum() for b in PrefetchLoader(DataLoader(graphs, batch_size=1))]
[np.float64(0.0), np.float64(2.0), np.float64(4.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from arraygnn._namespace import _check_device, import_cupy, to_device

__all__ = ["PrefetchLoader"]


class PrefetchLoader:
    """Batches of ``loader`` moved to ``device`` one step ahead (pass-through on the CPU).

    Args:
        loader: any iterable of batches.
        device: ``None`` / ``'cpu'`` (pass-through) or ``'cuda'`` / ``'cuda:N'``.
    """

    def __init__(self, loader: Iterable[Any], device: str | None = None) -> None:
        if not isinstance(loader, Iterable):
            raise TypeError(f"PrefetchLoader: loader must be iterable, got {type(loader).__name__}")
        self.loader = loader
        self.device = "cpu" if device is None else _check_device(device)
        self.is_gpu = self.device != "cpu"

    def __iter__(self) -> Iterator[Any]:
        if not self.is_gpu:
            yield from self.loader
            return
        cupy = import_cupy()
        stream = cupy.cuda.Stream(non_blocking=True)
        pending = None  # (batch on the device, its copy's event)
        for batch in self.loader:
            with stream:
                moved = to_device(batch, self.device)
                done = stream.record()
            if pending is not None:
                yield self._ready(cupy, *pending)
            pending = (moved, done)
        if pending is not None:
            yield self._ready(cupy, *pending)

    @staticmethod
    def _ready(cupy: Any, batch: Any, done: Any) -> Any:
        cupy.cuda.get_current_stream().wait_event(done)
        return batch

    def __len__(self) -> int:
        return len(self.loader)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"PrefetchLoader({self.loader}, device={self.device!r})"
