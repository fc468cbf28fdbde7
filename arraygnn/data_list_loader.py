"""``DataListLoader``: PyG's loader whose batches are plain Python lists of graphs (for a
caller that collates itself, e.g. one list per device).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> graphs = [Data(x=np.ones((i + 1, 1))) for i in range(5)]
>>> [[g.num_nodes for g in b] for b in DataListLoader(graphs, batch_size=2)]
[[1, 2], [3, 4], [5]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.loader import DataLoader

__all__ = ["DataListLoader"]


class DataListLoader(DataLoader):
    """Batches as lists of the dataset's graphs (``Data`` or ``HeteroData``), uncollated.

    Args: as :class:`~arraygnn.loader.DataLoader` (``dataset``, ``batch_size``,
    ``shuffle``, ``drop_last``, ``seed``, ``prefetch``, ``sampler``, ``batch_sampler``).

    RULE: a batch holds the dataset's own objects (``dataset[i]``), not copies.
    """

    def _make(self, idx: np.ndarray) -> list[Any]:  # type: ignore[override]
        return [self.dataset[int(i)] for i in idx]

    def __repr__(self) -> str:
        return f"DataListLoader({len(self.dataset)} graphs, batch_size={self.batch_size})"
