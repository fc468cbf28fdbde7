"""PyG's ``to_undirected`` and ``is_undirected``.

>>> import numpy as np
>>> ei = np.array([[0, 1, 1], [1, 0, 2]])
>>> to_undirected(ei).tolist()
[[0, 1, 1, 2], [1, 0, 2, 1]]
>>> is_undirected(ei), is_undirected(to_undirected(ei))
(False, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.utils._checks import (
    MISSING,
    attr_list,
    check_pyg_reduce,
    edge_index_arg,
    int_attr_as_num_nodes,
    num_nodes_arg,
    same_device,
)
from arraygnn.utils.coalesce import check_attrs, coalesce, sort_perm

__all__ = ["to_undirected", "is_undirected"]


def to_undirected(
    edge_index: Any,
    edge_attr: Any = MISSING,
    num_nodes: int | None = None,
    reduce: str = "add",
) -> Any:
    """Add every reverse edge ``(j, i)``, then :func:`coalesce`: sorted by row, each
    undirected pair once per direction, the features of edges that became parallel reduced
    with ``reduce`` (``'add'`` default, PyG's).

    ``edge_attr``: an array [E, ...], a list of arrays, ``None``, or left out (then the edge
    index alone is returned, as PyG). As PyG, an int in ``edge_attr``'s place is taken as
    ``num_nodes`` (``to_undirected(edge_index, 5)``). ``num_nodes`` defaults to
    ``edge_index.max() + 1``. Ids keep their dtype.

    >>> import numpy as np
    >>> ei, w = to_undirected(np.array([[0, 1], [1, 0]]), np.array([1.0, 2.0]))
    >>> ei.tolist(), w.tolist()
    ([[0, 1], [1, 0]], [3.0, 3.0])
    """
    where = "to_undirected"
    xp = edge_index_arg(where, edge_index)
    check_pyg_reduce(where, reduce, allow_any=True)  # named here, before coalesce sees it
    if isinstance(edge_attr, (int, np.integer)) and not isinstance(edge_attr, (bool, np.bool_)):
        num_nodes, edge_attr = edge_attr, MISSING
    n = num_nodes_arg(where, edge_index, num_nodes)
    num_edges = int(edge_index.shape[1])
    attrs = None if edge_attr is MISSING else attr_list(where, edge_attr, num_edges)
    check_attrs(where, edge_index, edge_attr, attrs)
    both = xp.concatenate([edge_index, edge_index[::-1]], axis=1)
    if edge_attr is MISSING:
        return coalesce(both, num_nodes=n, reduce=reduce)
    if edge_attr is None:
        return coalesce(both, None, n, reduce)
    doubled = [xp.concatenate([a, a]) for a in attrs]
    if isinstance(edge_attr, (list, tuple)):
        return coalesce(both, doubled, n, reduce)
    return coalesce(both, doubled[0], n, reduce)


def is_undirected(edge_index: Any, edge_attr: Any = None, num_nodes: int | None = None) -> bool:
    """Whether every edge ``(i, j)`` has its reverse ``(j, i)`` (as many times), with equal
    features when ``edge_attr`` (an array or a list of arrays) is given.

    PyG's test: the edges sorted by ``(row, col)`` equal the edges sorted by ``(col, row)``
    with rows and columns swapped, features included. Both sorts are stable here, so among
    parallel edges the features are compared in edge order (PyG's sort is not stable there).
    ``num_nodes`` defaults to ``edge_index.max() + 1`` (an int in ``edge_attr``'s place is
    taken as ``num_nodes`` when that is left out; PyG ignores it). A sync on CuPy (a Python
    bool).

    >>> import numpy as np
    >>> ei = np.array([[0, 1], [1, 0]])
    >>> is_undirected(ei, np.array([1.0, 1.0])), is_undirected(ei, np.array([1.0, 2.0]))
    (True, False)
    """
    where = "is_undirected"
    xp = edge_index_arg(where, edge_index)
    edge_attr, num_nodes = int_attr_as_num_nodes(edge_attr, num_nodes, None)
    n = num_nodes_arg(where, edge_index, num_nodes)
    attrs = attr_list(where, edge_attr, int(edge_index.shape[1])) or []
    for i, a in enumerate(attrs):
        same_device(where, edge_index=edge_index, **{f"edge_attr[{i}]": a})
    row, col = edge_index[0], edge_index[1]
    by_row = sort_perm(xp, row, col, n)
    by_col = sort_perm(xp, col, row, n)
    if not bool((row[by_row] == col[by_col]).all() & (col[by_row] == row[by_col]).all()):
        return False
    return all(bool(xp.array_equal(a[by_row], a[by_col])) for a in attrs)
