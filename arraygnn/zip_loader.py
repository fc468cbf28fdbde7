"""``ZipLoader``: PyG's tuple of batches from several node / link loaders, drawn at the same
input positions.

Every batch is a tuple with one batch per loader, each made by that loader from the same
positions (a chunk of ``range(n)``, ``n`` the smallest loader's number of inputs: seed
nodes of a :class:`~arraygnn.neighbor_loader.NeighborLoader`, label edges of a
:class:`~arraygnn.link_neighbor_loader.LinkNeighborLoader`, their heterogeneous kinds
alike); each loader's ``transform`` is applied to its own batch. As PyG's, the chunks come
from the ``ZipLoader``'s own ``batch_size`` / ``shuffle`` / ``drop_last`` (default
``batch_size=1``), not from the loaders'.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.neighbor_loader import NeighborLoader
>>> data = Data(x=np.arange(4.0)[:, None], edge_index=np.array([[0, 1, 2], [1, 2, 3]]))
>>> one = NeighborLoader(data, num_neighbors=[-1], input_nodes=np.array([1, 3]))
>>> two = NeighborLoader(data, num_neighbors=[-1, -1], input_nodes=np.array([2, 0, 3]))
>>> [(a.n_id.tolist(), b.n_id.tolist()) for a, b in ZipLoader([one, two], batch_size=2)]
[([1, 3, 0, 2], [2, 0, 1])]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.loader import DataLoader

__all__ = ["ZipLoader"]


def _is_generic(loader: Any) -> bool:
    """A :class:`~arraygnn.node_loader.NodeLoader` / :class:`~arraygnn.link_loader.LinkLoader`
    (any sampler): ``loader(positions)`` makes its batch, ``input_data`` holds its inputs."""
    return not callable(getattr(loader, "_batch", None)) and hasattr(loader, "input_data")


def _inputs(loader: Any) -> tuple[int, Any]:
    """(number of inputs, their array namespace) of a node or link loader."""
    if _is_generic(loader):
        data = loader.input_data
        inputs = data.row if hasattr(data, "row") else data.node
        count = inputs.shape[0]
    elif hasattr(loader, "edge_label_index"):
        inputs, count = loader.edge_label_index, loader.edge_label_index.shape[1]
    else:
        inputs, count = loader.input_nodes, loader.input_nodes.shape[0]
    return int(count), get_namespace(inputs)


class ZipLoader(DataLoader):
    """Tuples of batches of several node / link loaders at the same input positions.

    Args:
        loaders: the loaders: every node and link loader of :mod:`arraygnn.loader`
            (``NeighborLoader``, ``LinkNeighborLoader``, their heterogeneous kinds, and
            ``NodeLoader`` / ``LinkLoader`` over any sampler), mixed as PyG's; anything
            else is a ``TypeError`` naming it (PyG: a ``ValueError``).
        batch_size / shuffle / drop_last / seed / prefetch: the positions' chunks, as
            :class:`~arraygnn.loader.DataLoader`.
        **kwargs: torch ``DataLoader`` keywords (``num_workers``, ``generator``, ...), as
            :class:`~arraygnn.loader.DataLoader` takes them.
    """

    def __init__(
        self,
        loaders: Sequence[Any],
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: int | None = None,
        prefetch: int = 0,
        **kwargs: Any,
    ) -> None:
        if isinstance(loaders, (str, bytes)) or not isinstance(loaders, Sequence) or not loaders:
            raise TypeError(
                f"ZipLoader: loaders must be a non-empty list of loaders, got {loaders!r}"
            )
        for i, loader in enumerate(loaders):
            if not (_is_generic(loader) and callable(loader)) and (
                not callable(getattr(loader, "_batch", None))
                or not (hasattr(loader, "input_nodes") or hasattr(loader, "edge_label_index"))
            ):
                raise TypeError(
                    f"ZipLoader: loaders[{i}] ({type(loader).__name__}) is not a node or link "
                    "loader (NeighborLoader, LinkNeighborLoader, ...)"
                )
        self.loaders = list(loaders)
        count = min(_inputs(loader)[0] for loader in self.loaders)
        super().__init__(
            range(count),
            batch_size=batch_size,
            shuffle=shuffle,
            drop_last=drop_last,
            seed=seed,
            prefetch=prefetch,
            **kwargs,
        )

    def __call__(self, index: Any) -> tuple[Any, ...]:
        """The tuple of batches at the input positions ``index`` (PyG's
        ``ZipLoader.__call__``)."""
        return self._make(np.asarray(index, dtype=np.int64).reshape(-1))

    def _make(self, idx: np.ndarray) -> tuple[Any, ...]:  # type: ignore[override]
        out = []
        for loader in self.loaders:
            positions = _inputs(loader)[1].asarray(idx.astype(np.int64))
            if _is_generic(loader):  # NodeLoader / LinkLoader: transform applied by the call
                out.append(loader(positions))
                continue
            batch = loader._batch(positions)
            transform = getattr(loader, "transform", None)
            out.append(batch if transform is None else transform(batch))
        return tuple(out)

    def __repr__(self) -> str:
        return f"ZipLoader(loaders={self.loaders})"
