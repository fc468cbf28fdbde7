"""``DenseDataLoader``: PyG's loader for fixed-size (dense) graphs, every attribute stacked
along a new first dimension.

Each batch is a :class:`~arraygnn.batch.Batch` holding, for every key of the first graph,
the graphs' values stacked as ``default_collate`` does: arrays ``[B, ...]``
(``xp.stack``), Python / NumPy numbers a 1-D array of them, strings a list; no ``batch``,
``ptr`` or increments (``edge_index`` is not offset: dense graphs carry ``adj``).

RULE: every graph holds the same keys, and each array key the same shape in every graph
      (a ``ValueError`` names the key otherwise).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> graphs = [Data(x=np.full((3, 2), float(i)), adj=np.eye(3), y=i) for i in range(3)]
>>> batch = next(iter(DenseDataLoader(graphs, batch_size=2)))
>>> batch.x.shape, batch.adj.shape, batch.y.tolist()
((2, 3, 2), (2, 3, 3), [0, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.batch import Batch
from arraygnn.loader import DataLoader

__all__ = ["DenseDataLoader", "dense_collate"]


def _stack(key: str, values: list[Any]) -> Any:
    first = values[0]
    if is_array(first):
        if all(type(v) is np.ndarray for v in values):  # the common case: one C-level stack
            try:
                return np.stack(values)
            except ValueError:
                pass  # different shapes: said below
        shapes = {tuple(v.shape) for v in values if is_array(v)}
        if len(shapes) != 1 or not all(is_array(v) for v in values):
            raise ValueError(
                f"DenseDataLoader: attribute {key!r} must be an array of one shape in every "
                f"graph, got shapes {sorted(shapes)}"
            )
        return get_namespace(*values).stack(values)
    if isinstance(first, str):
        return list(values)
    if isinstance(first, (bool, int, float, complex, np.generic)):
        return np.asarray(values)
    return list(values)  # anything else: the values as a list (what a batch can hold)


def dense_collate(data_list: list[Any]) -> Batch:
    """PyG's ``DenseDataLoader`` collate: a ``Batch`` of every key of ``data_list[0]``
    stacked along a new first dimension."""
    if not data_list:
        raise ValueError("DenseDataLoader: cannot collate an empty list of graphs")
    keys = list(data_list[0].keys())
    stores = [dict(data.items()) for data in data_list]
    for i, store in enumerate(stores):
        if store.keys() != stores[0].keys():
            raise ValueError(
                f"DenseDataLoader: graph {i} has keys {sorted(store)}, graph 0 has {sorted(keys)}"
            )
    return Batch(**{key: _stack(key, [store[key] for store in stores]) for key in keys})


class DenseDataLoader(DataLoader):
    """Batches of dense graphs stacked along a new dimension (PyG's ``DenseDataLoader``).

    Args: as :class:`~arraygnn.loader.DataLoader` (``dataset``, ``batch_size``,
    ``shuffle``, ``drop_last``, ``seed``, ``prefetch``, ``sampler``, ``batch_sampler``);
    ``follow_batch`` / ``exclude_keys`` do not apply.
    """

    def _make(self, idx: np.ndarray) -> Batch:  # type: ignore[override]
        return dense_collate([self.dataset[int(i)] for i in idx])

    def __repr__(self) -> str:
        return f"DenseDataLoader({len(self.dataset)} graphs, batch_size={self.batch_size})"
