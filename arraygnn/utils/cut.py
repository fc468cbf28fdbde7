"""PyG's ``normalized_cut``: the normalized-cut weight of each edge (Graclus' input).

``cut(i, j) = w(i, j) * (1 / deg(i) + 1 / deg(j))`` with ``deg`` the summed count of
incoming edges (PyG's ``degree(col)``, one per edge, in ``edge_attr``'s dtype). A node
without incoming edges has ``1 / 0 = inf``, as PyG.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> normalized_cut(ei, np.array([1.0, 1.0, 2.0, 2.0])).tolist()
[1.5, 1.5, 3.0, 3.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import (
    check_array_arg,
    edge_attr_arg,
    edge_index_arg,
    num_nodes_arg,
    same_device,
)

__all__ = ["normalized_cut"]


def normalized_cut(edge_index: Any, edge_attr: Any, num_nodes: int | None = None) -> Any:
    """``edge_attr * (1 / deg[row] + 1 / deg[col])`` per edge of ``edge_index`` [2, E].

    ``edge_attr`` [E] float (the result has its dtype); ``num_nodes`` defaults to
    ``edge_index.max() + 1`` (a sync on CuPy). ``deg`` counts each node's incoming edges.

    >>> import numpy as np
    >>> normalized_cut(np.array([[0], [1]]), np.array([1.0]), num_nodes=2).tolist()
    [inf]
    """
    where = "normalized_cut"
    xp = edge_index_arg(where, edge_index)
    check_array_arg(where, "edge_attr", edge_attr)
    if edge_attr.dtype.kind != "f":
        raise TypeError(f"{where}: edge_attr must be a float array, got dtype {edge_attr.dtype}")
    edge_attr_arg(where, "edge_attr", edge_attr, int(edge_index.shape[1]))
    if edge_attr.ndim != 1:
        raise ValueError(
            f"{where}: edge_attr must be one-dimensional [E], got shape {edge_attr.shape}"
        )
    same_device(where, edge_index=edge_index, edge_attr=edge_attr)
    n = num_nodes_arg(where, edge_index, num_nodes)
    col = kernel_index(xp, edge_index[1])
    deg = xp.bincount(col, minlength=n)[:n].astype(edge_attr.dtype)
    with np.errstate(divide="ignore"):
        inv = (1 / deg).astype(edge_attr.dtype)
    return edge_attr * (inv[kernel_index(xp, edge_index[0])] + inv[col])
