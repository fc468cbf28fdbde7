"""``CachedLoader``: PyG's loader wrapper that keeps the batches of its first epoch (after
``transform`` and the move to ``device``) and replays them on every later epoch.

``device=None`` keeps the batches where the loader makes them (NumPy batches stay NumPy:
no hidden copy); ``'cuda'`` / ``'cuda:N'`` / ``'cpu'`` moves them once, with
:func:`arraygnn.to_device`, before they are cached. ``clear()`` empties the cache (the next
epoch reads the loader again).

RULE: a cache is used only once complete: an epoch stopped early leaves no partial cache.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.loader import DataLoader
>>> graphs = [Data(x=np.ones((2, 1)) * i) for i in range(3)]
>>> cached = CachedLoader(DataLoader(graphs, batch_size=2, shuffle=True, seed=0))
>>> first = [b.x.ravel().tolist() for b in cached]
>>> first == [b.x.ravel().tolist() for b in cached], len(cached)
(True, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from arraygnn._namespace import _check_device, to_device

__all__ = ["CachedLoader"]


class CachedLoader:
    """Replays the first epoch of ``loader`` (its batches transformed and moved once).

    Args:
        loader: any iterable of batches (a :class:`~arraygnn.loader.DataLoader`,
            :class:`~arraygnn.neighbor_loader.NeighborLoader`, ...).
        device: where to move the batches (``None``: leave them).
        transform: applied to each batch before it is moved and cached.
    """

    def __init__(
        self,
        loader: Iterable[Any],
        device: str | None = None,
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        if not isinstance(loader, Iterable):
            raise TypeError(f"CachedLoader: loader must be iterable, got {type(loader).__name__}")
        if transform is not None and not callable(transform):
            raise TypeError(f"CachedLoader: transform must be callable, got {transform!r}")
        self.loader = loader
        self.device = None if device is None else _check_device(device)
        self.transform = transform
        self._cache: list[Any] = []
        self._complete = False

    def clear(self) -> None:
        """Empty the cache."""
        self._cache, self._complete = [], False

    def __iter__(self) -> Iterator[Any]:
        if self._complete:
            yield from self._cache
            return
        cache: list[Any] = []
        for batch in self.loader:
            if self.transform is not None:
                batch = self.transform(batch)
            if self.device is not None:
                batch = to_device(batch, self.device)
            cache.append(batch)
            yield batch
        self._cache, self._complete = cache, True

    def __len__(self) -> int:
        return len(self.loader)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"CachedLoader({self.loader})"
