"""PyG's ``sort_edge_index``: the edges in ``(row, col)`` (or ``(col, row)``) order.

The sort is :func:`coalesce`'s (two stable O(E + N) counting sorts; a stable comparison sort
for ids much sparser than the edge count), so parallel edges keep their order. PyG promises
nothing for them (its sort is not stable): the edges come out the same, the features of
parallel edges may be in another order there.

RULE: what comes back follows PyG: ``sort_edge_index(edge_index)`` (no ``edge_attr``
argument) returns the edge index alone; with ``edge_attr`` (``None``, an array or a list of
arrays) it returns ``(edge_index, edge_attr)``.
RULE: ids keep ``edge_index``'s dtype; ``num_nodes`` left out is ``edge_index.max() + 1``.

>>> import numpy as np
>>> ei = np.array([[2, 1, 1, 0], [1, 2, 0, 1]])
>>> sort_edge_index(ei).tolist()
[[0, 1, 1, 2], [1, 0, 2, 1]]
>>> sort_edge_index(ei, sort_by_row=False).tolist()
[[1, 0, 2, 1], [0, 1, 1, 2]]
"""

from __future__ import annotations

from typing import Any

from arraygnn.utils._checks import (
    MISSING,
    attr_list,
    bool_arg,
    edge_index_arg,
    int_attr_as_num_nodes,
    num_nodes_arg,
    same_device,
)
from arraygnn.utils.coalesce import sort_perm

__all__ = ["sort_edge_index"]


def sort_edge_index(
    edge_index: Any,
    edge_attr: Any = MISSING,
    num_nodes: int | None = None,
    sort_by_row: bool = True,
) -> Any:
    """Sort the edges of ``edge_index`` [2, E] by ``(row, col)``, or by ``(col, row)`` with
    ``sort_by_row=False``; ``edge_attr`` is permuted alike. Parallel edges keep their order.

    ``edge_attr``: an array [E, ...] (any dtype), a list of such arrays, ``None``, or left
    out (then the edge index alone is returned, as PyG); an int there is taken as
    ``num_nodes`` when that is left out (PyG ignores it). ``num_nodes`` defaults to
    ``edge_index.max() + 1``. Returns fresh arrays; a list (or tuple) of features comes back
    as a list.

    >>> import numpy as np
    >>> ei, attr = sort_edge_index(np.array([[2, 1, 1, 0], [1, 2, 0, 1]]), np.arange(4))
    >>> ei.tolist(), attr.tolist()
    ([[0, 1, 1, 2], [1, 0, 2, 1]], [3, 2, 1, 0])
    """
    where = "sort_edge_index"
    xp = edge_index_arg(where, edge_index)
    edge_attr, num_nodes = int_attr_as_num_nodes(edge_attr, num_nodes, MISSING)
    n = num_nodes_arg(where, edge_index, num_nodes)
    sort_by_row = bool_arg(where, "sort_by_row", sort_by_row)
    num_edges = int(edge_index.shape[1])
    attrs = None if edge_attr is MISSING else attr_list(where, edge_attr, num_edges)
    listed = isinstance(edge_attr, (list, tuple))
    for i, a in enumerate(attrs or []):
        same_device(
            where, edge_index=edge_index, **{f"edge_attr[{i}]" if listed else "edge_attr": a}
        )
    first, second = (
        (edge_index[0], edge_index[1]) if sort_by_row else (edge_index[1], edge_index[0])
    )
    perm = sort_perm(xp, first, second, n)
    out = edge_index[:, perm]
    if edge_attr is MISSING:
        return out
    if edge_attr is None:
        return out, None
    if listed:
        return out, [a[perm] for a in attrs]
    return out, attrs[0][perm]
