"""PyG's :class:`TwoHop`: add the two-hop edges ``(i, k)`` (``i -> j -> k``, ``i != k``).

The two-hop pairs are the nonzero pattern of ``A @ A`` (a SciPy sparse product on NumPy,
``cupyx.scipy.sparse`` on CuPy); :func:`arraygnn.utils.coalesce` merges them with the
graph's edges.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> TwoHop()(Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)).edge_index.tolist()
[[0, 0, 1], [1, 2, 2]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.interop.scipy import _sparse_module
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils.coalesce import coalesce

__all__ = ["TwoHop", "two_hop_pairs"]


def two_hop_pairs(edge_index: Any, num_nodes: int) -> Any:
    """The distinct pairs ``(i, k)``, ``i != k``, joined by a path ``i -> j -> k``, as a
    [2, P] array in ``edge_index``'s dtype (the sparse product's order: coalesce to sort).

    >>> import numpy as np
    >>> coalesce(two_hop_pairs(np.array([[0, 1, 1], [1, 0, 2]]), 3)).tolist()  # 0 -> 1 -> 2
    [[0], [2]]
    """
    xp = get_namespace(edge_index)
    sparse = _sparse_module(xp)
    num_edges = int(edge_index.shape[1])
    ones = xp.ones(num_edges, dtype=np.float32)
    shape = (num_nodes, num_nodes)
    a = sparse.coo_matrix((ones, (edge_index[0], edge_index[1])), shape=shape).tocsr()
    product = (a @ a).tocoo()
    row = product.row.astype(edge_index.dtype)
    col = product.col.astype(edge_index.dtype)
    keep = (row != col) & (product.data != 0)
    return xp.stack([row[keep], col[keep]])  # a sparse product holds each pair once


class TwoHop(SaidLevels, BaseTransform):
    """Add every two-hop edge (PyG's ``TwoHop``), then coalesce: the result is sorted by
    row, parallel edges merged. Edge attributes (``edge_attrs=``, default ``edge_attr`` /
    ``edge_weight``) give the new edges zero rows and are summed over merged edges (PyG
    does this for ``edge_attr``, after sorting ``edge_index`` by row, not stably, without
    moving ``edge_attr``: the two agree when the input is sorted by row and its features
    are equal within a row). ``Data`` only, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [1, 2]]), edge_attr=np.array([1.0, 2.0]),
    ...          num_nodes=3)
    >>> TwoHop()(d).edge_attr.tolist()
    [1.0, 0.0, 2.0]
    """

    def forward(self, data: Any) -> Any:
        where = "TwoHop"
        ei, n = checked_graph(where, data)
        levels = self.levels(where, data)
        xp = get_namespace(ei)
        pairs = two_hop_pairs(ei, n)
        both = xp.concatenate([ei, pairs], axis=1)
        m = int(pairs.shape[1])
        attrs = [
            xp.concatenate([data[k], xp.zeros((m,) + data[k].shape[1:], data[k].dtype)])
            for k in levels.edge
        ]
        data.edge_index, attrs = coalesce(both, attrs, n)
        for k, v in zip(levels.edge, attrs):
            data[k] = v
        return data
