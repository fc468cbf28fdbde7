"""PyG's ``contains_isolated_nodes`` and ``remove_isolated_nodes``.

As in PyG, a node whose only edges are self-loops counts as isolated.

>>> import numpy as np
>>> contains_isolated_nodes(np.array([[0, 1, 0], [1, 0, 0]]))
False
>>> contains_isolated_nodes(np.array([[0, 1, 0], [1, 0, 0]]), num_nodes=3)
True
>>> remove_isolated_nodes(np.array([[0, 2], [2, 0]]))[0].tolist()
[[0, 1], [1, 0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.utils._checks import edge_index_arg, num_nodes_arg, optional_edge_attr
from arraygnn.utils.loops import last_self_loops

__all__ = ["contains_isolated_nodes", "remove_isolated_nodes"]


def contains_isolated_nodes(edge_index: Any, num_nodes: int | None = None) -> bool:
    """Whether some node ``i < num_nodes`` touches no edge other than self-loops (PyG: a node
    whose only edge is a loop counts as isolated).

    ``num_nodes`` defaults to ``edge_index.max() + 1`` (PyG's rule; then only a node below the
    largest id can be isolated). A sync on CuPy (the answer is a Python bool).

    >>> import numpy as np
    >>> contains_isolated_nodes(np.array([[0, 1, 2], [1, 0, 2]]))
    True
    """
    where = "contains_isolated_nodes"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    touched = xp.zeros(n, dtype=bool)
    keep = edge_index[0] != edge_index[1]
    touched[edge_index[0][keep]] = True
    touched[edge_index[1][keep]] = True
    return not bool(touched.all())


def remove_isolated_nodes(
    edge_index: Any, edge_attr: Any = None, num_nodes: int | None = None
) -> tuple[Any, Any, Any]:
    """Drop the isolated nodes (no edge but self-loops) and renumber the others ``0, 1, ...``
    in node order.

    Returns PyG's ``(edge_index, edge_attr, mask)``: ``mask`` [N] bool marks the kept nodes
    (filter node features with ``x[mask]``). The edges between distinct nodes come first, in
    order; then one self-loop per kept node that has any, in node order (the last of a
    node's loops, as PyG on CPU; the other loops of that node are dropped, as PyG). The loops
    of isolated nodes go. ``edge_attr`` [E, ...] or ``None`` follows the edges. ``num_nodes``
    defaults to ``edge_index.max() + 1``. Ids keep their dtype (PyG: int64).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 0, 3], [1, 0, 0, 3]])
    >>> ei, attr, mask = remove_isolated_nodes(ei, np.array([1.0, 2.0, 3.0, 4.0]), 5)
    >>> ei.tolist(), attr.tolist(), mask.tolist()
    ([[0, 1, 0], [1, 0, 0]], [1.0, 2.0, 3.0], [True, True, False, False, False])
    """
    where = "remove_isolated_nodes"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    optional_edge_attr(where, edge_index, edge_attr)
    keep = edge_index[0] != edge_index[1]
    mask = xp.zeros(n, dtype=bool)
    mask[edge_index[0][keep]] = True
    mask[edge_index[1][keep]] = True
    last = last_self_loops(edge_index, n)  # node order: one loop per node that has any
    loops = last[mask & (last > 0)] - 1
    chosen = xp.concatenate([xp.nonzero(keep)[0].astype(np.int64, copy=False), loops])
    new_id = (xp.cumsum(mask) - 1).astype(edge_index.dtype, copy=False)  # ids only shrink
    out = new_id[edge_index[:, chosen]]
    return out, None if edge_attr is None else edge_attr[chosen], mask
