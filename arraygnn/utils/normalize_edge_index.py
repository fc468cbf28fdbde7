"""PyG's ``normalize_edge_index``: optional self-loops, then symmetric
(``D^-1/2 A D^-1/2``) or row (``D^-1 A``) edge weights from the out-degrees.

>>> import numpy as np
>>> ei, w = normalize_edge_index(np.array([[0, 1], [1, 0]]), add_self_loops=False)
>>> ei.tolist(), w.tolist()
([[0, 1], [1, 0]], [1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, torch_rsqrt
from arraygnn.utils._checks import bool_arg, edge_index_arg, num_nodes_arg
from arraygnn.utils.degree import degree
from arraygnn.utils.loops import add_self_loops as add_loops

__all__ = ["normalize_edge_index"]


def normalize_edge_index(
    edge_index: Any,
    num_nodes: int | None = None,
    add_self_loops: bool = True,
    symmetric: bool = True,
) -> tuple[Any, Any]:
    """``(edge_index, edge_weight float32)``: with ``add_self_loops`` a loop per node is
    appended (:func:`~arraygnn.utils.add_self_loops`); ``d`` is the out-degree (count of
    ``edge_index[0]``, loops included); the weight of ``(s, t)`` is ``d_s^-1/2 d_t^-1/2``
    (``symmetric``) or ``d_s^-1`` (0 for a zero degree). ``num_nodes`` defaults to
    ``edge_index.max() + 1`` (PyG takes the degree's length from row 0 alone, which fails
    when a target id exceeds every source id; the values agree otherwise).

    >>> import numpy as np
    >>> normalize_edge_index(np.array([[0, 0], [1, 2]]), symmetric=False)[1].tolist()
    [0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 1.0, 1.0]
    """
    where = "normalize_edge_index"
    edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    add_self_loops = bool_arg(where, "add_self_loops", add_self_loops)
    symmetric = bool_arg(where, "symmetric", symmetric)
    if add_self_loops:
        edge_index, _ = add_loops(edge_index, num_nodes=n)
    xp = get_namespace(edge_index)
    row, col = edge_index[0], edge_index[1]
    deg = degree(row, n, dtype=np.float32)
    safe = xp.where(deg > 0, deg, np.float32(1))
    if symmetric:
        inv = xp.where(deg > 0, torch_rsqrt(safe), np.float32(0))
        weight = inv[row] * inv[col]
    else:
        inv = xp.where(deg > 0, np.float32(1) / safe, np.float32(0))
        weight = inv[row]
    return edge_index, weight.astype(np.float32, copy=False)
