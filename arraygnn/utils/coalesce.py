"""PyG's ``coalesce``: sort the edges and merge duplicates.

The edges are sorted by ``(row, col)`` (``sort_by_row=True``) or ``(col, row)``, with two
stable O(E + N) counting sorts (the ``csr_from_keys`` kernel that builds every CSR; sparse
ids, ``N > 2E + 1024``, take one stable comparison sort instead). Parallel edges become one,
their features reduced in edge order by ``arraygnn.ops.segment`` over the runs of equal
sorted edges: deterministic, the same bits on every run.

RULE: what comes back follows PyG: ``coalesce(edge_index)`` (no ``edge_attr`` argument)
returns the edge index alone; with ``edge_attr`` (``None``, an array or a list of arrays)
it returns ``(edge_index, edge_attr)``.
RULE: ids keep ``edge_index``'s dtype; ``num_nodes`` left out is ``edge_index.max() + 1``.

>>> import numpy as np
>>> ei = np.array([[1, 0, 1, 0], [0, 1, 0, 2]])
>>> coalesce(ei).tolist()
[[0, 0, 1], [1, 2, 0]]
>>> coalesce(ei, np.array([1.0, 2.0, 3.0, 4.0]), reduce="max")[1].tolist()
[2.0, 4.0, 3.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.utils._checks import (
    MISSING,
    attr_list,
    bool_arg,
    check_numeric,
    check_pyg_reduce,
    edge_index_arg,
    int_attr_as_num_nodes,
    num_nodes_arg,
    same_device,
)
from arraygnn.utils.scatter import segment_rows

__all__ = ["coalesce"]


def coalesce(
    edge_index: Any,
    edge_attr: Any = MISSING,
    num_nodes: int | None = None,
    reduce: str = "sum",
    is_sorted: bool = False,
    sort_by_row: bool = True,
) -> Any:
    """Sort ``edge_index`` [2, E] and merge parallel edges, reducing their ``edge_attr``.

    ``edge_attr``: an array [E, ...], a list of such arrays, ``None``, or left out (then the
    edge index alone is returned, as PyG). ``reduce``: PyG's ``'sum'`` / ``'add'``,
    ``'mean'``, ``'min'``, ``'max'``, ``'mul'``, ``'any'`` (each group's last value in edge
    order; PyG's unstable sort may pick another) (``'mean'`` of integer features is float32,
    as PyG's scatter; features are reduced only when duplicates exist, so without
    duplicates they keep their dtype, as in PyG). ``sort_by_row=False`` sorts by column
    first. ``is_sorted=True`` promises the input is already sorted that way (checked here,
    ``ValueError`` if not; PyG trusts it). ``num_nodes`` defaults to
    ``edge_index.max() + 1``; an int in ``edge_attr``'s place is taken as ``num_nodes`` when
    that is left out (PyG ignores it and returns the edges alone, as here). Returns fresh
    arrays; a list of features comes back as a list.

    >>> import numpy as np
    >>> ei = np.array([[0, 0], [1, 1]])
    >>> ei, (w, c) = coalesce(ei, [np.ones(2), np.arange(2)], reduce="mean")
    >>> ei.tolist(), w.tolist(), c.tolist()
    ([[0], [1]], [1.0], [0.5])
    """
    where = "coalesce"
    xp = edge_index_arg(where, edge_index)
    edge_attr, num_nodes = int_attr_as_num_nodes(edge_attr, num_nodes, MISSING)
    n = num_nodes_arg(where, edge_index, num_nodes)
    op = check_pyg_reduce(where, reduce, allow_any=True)
    is_sorted = bool_arg(where, "is_sorted", is_sorted)
    sort_by_row = bool_arg(where, "sort_by_row", sort_by_row)
    num_edges = int(edge_index.shape[1])
    attrs = None if edge_attr is MISSING else attr_list(where, edge_attr, num_edges)
    check_attrs(where, edge_index, edge_attr, attrs)
    first, second = (
        (edge_index[0], edge_index[1]) if sort_by_row else (edge_index[1], edge_index[0])
    )
    if is_sorted:
        if not bool(sorted_pairs(xp, first, second)):
            order = "(row, col)" if sort_by_row else "(col, row)"
            raise ValueError(f"{where}: is_sorted=True but edge_index is not sorted by {order}")
        perm = None
        a, b = first, second
    else:
        perm = sort_perm(xp, first, second, n)
        a, b = first[perm], second[perm]
    keep = perm  # the edges kept, in sorted order (None: all, as given)
    starts = None
    if num_edges > 1:
        new = xp.empty(num_edges, dtype=bool)
        new[0] = True
        new[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
        if not bool(new.all()):  # duplicates: keep each group's first, reduce the features
            starts = xp.flatnonzero(new)
            keep = starts if perm is None else perm[starts]
    out = edge_index.copy() if keep is None else _columns(xp, edge_index, keep)
    if attrs is not None:
        # the rows in sorted order (the gather kernel), then the runs of equal edges
        # reduced as segments (no sort of group ids)
        from arraygnn import ops

        attrs = [v.copy() if perm is None else ops.gather(v, perm) for v in attrs]
        if starts is not None:
            ptr = xp.concatenate([starts, xp.full(1, num_edges, dtype=starts.dtype)])
            attrs = [segment_rows(xp, v, ptr, op) for v in attrs]
    if edge_attr is MISSING:
        return out
    if edge_attr is None:
        return out, None
    if isinstance(edge_attr, (list, tuple)):
        return out, attrs
    return out, attrs[0]


def _columns(xp: Any, edge_index: Any, cols: Any) -> Any:
    """``edge_index[:, cols]`` as a fresh C-contiguous [2, k] array (row by row: faster than
    fancy indexing along the second axis)."""
    out = xp.empty((2, int(cols.shape[0])), dtype=edge_index.dtype)
    out[0] = edge_index[0][cols]
    out[1] = edge_index[1][cols]
    return out


def check_attrs(where: str, edge_index: Any, edge_attr: Any, attrs: list[Any] | None) -> None:
    """Each feature array numeric and on ``edge_index``'s device."""
    listed = isinstance(edge_attr, (list, tuple))
    for i, a in enumerate(attrs or []):
        name = f"edge_attr[{i}]" if listed else "edge_attr"
        check_numeric(where, name, a)
        same_device(where, edge_index=edge_index, **{name: a})


def sorted_pairs(xp: Any, first: Any, second: Any) -> Any:
    """Whether the pairs ``(first[e], second[e])`` are in lexicographic order (an array
    scalar; ``True`` for fewer than two)."""
    if first.shape[0] < 2:
        return True
    up = first[1:] > first[:-1]
    same = first[1:] == first[:-1]
    return (up | (same & (second[1:] >= second[:-1]))).all()


def sort_perm(xp: Any, first: Any, second: Any, num_nodes: int) -> Any:
    """The stable permutation sorting the edges by ``(first, second)`` (ids validated, in
    ``[0, num_nodes)``): ties keep edge order."""
    from arraygnn.ops.csr import sorted_segments

    num_edges = int(first.shape[0])
    if num_edges < 2:
        return xp.arange(num_edges)
    if num_nodes <= 2 * num_edges + 1024:
        # least significant key first: two stable O(E + N) counting sorts
        _, by_second = sorted_segments(xp, second, num_nodes)
        _, by_first = sorted_segments(xp, first[by_second], num_nodes)
        return by_second[by_first]
    if num_nodes <= 3_037_000_499:  # num_nodes**2 fits in int64
        key = first.astype(np.int64) * num_nodes + second.astype(np.int64)
        return xp.argsort(key, kind="stable")
    return xp.lexsort(xp.stack([second, first]))
