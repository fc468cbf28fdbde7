"""PyG's ``contains_isolated_nodes``.

>>> import numpy as np
>>> contains_isolated_nodes(np.array([[0, 1, 0], [1, 0, 0]]))
False
>>> contains_isolated_nodes(np.array([[0, 1, 0], [1, 0, 0]]), num_nodes=3)
True
"""

from __future__ import annotations

from typing import Any

from arraygnn.utils._checks import edge_index_arg, num_nodes_arg

__all__ = ["contains_isolated_nodes"]


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
