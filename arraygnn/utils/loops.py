"""Self-loops: PyG's ``contains_self_loops``, ``remove_self_loops``, ``segregate_self_loops``,
``add_self_loops``, ``add_remaining_self_loops`` and ``get_self_loop_attr``.

The added loops come after the kept edges, one per node ``0 .. N - 1`` in node order (PyG's
layout). Their features follow ``fill_value`` (PyG's rules):

- ``None``: ones; a number: that number; an array: broadcast to ``edge_attr.shape[1:]``
  (cast to ``edge_attr``'s dtype);
- a string ``'add'`` / ``'sum'``, ``'mean'``, ``'min'``, ``'max'``, ``'mul'``: the reduction
  of the features of each node's incoming edges (``edge_index[1] == node``), PyG's
  ``scatter`` (a node without incoming edges gets 0, or 1 for ``'mul'``).

RULE: ids keep ``edge_index``'s dtype (widened to int64 only when it cannot hold
``N - 1``). PyG returns int64 from ``add_self_loops`` / ``add_remaining_self_loops`` for an
int32 ``edge_index`` (``torch.cat`` promotes); here an int32 graph stays int32.
RULE: ``num_nodes`` left out is ``edge_index.max() + 1``, as PyG (a device-to-host sync on
CuPy).

>>> import numpy as np
>>> ei = np.array([[0, 1, 0], [1, 0, 0]])
>>> add_self_loops(ei)[0].tolist()
[[0, 1, 0, 0, 1], [1, 0, 0, 0, 1]]
>>> add_remaining_self_loops(ei, np.array([0.5, 0.5, 0.5]), fill_value="add")[1].tolist()
[0.5, 0.5, 0.5, 0.5]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array
from arraygnn.ops._common import check_size, kernel_index
from arraygnn.utils._checks import (
    check_ids,
    check_pyg_reduce,
    edge_index_arg,
    num_nodes_arg,
    optional_edge_attr,
    same_device,
)
from arraygnn.utils.scatter import scatter_rows

__all__ = [
    "contains_self_loops",
    "remove_self_loops",
    "add_self_loops",
    "add_remaining_self_loops",
    "get_self_loop_attr",
    "last_self_loops",
    "remaining_self_loops_pairs",
    "segregate_self_loops",
]


def contains_self_loops(edge_index: Any) -> bool:
    """Whether any edge ``(i, i)`` is in ``edge_index`` [2, E] (a sync on CuPy).

    >>> import numpy as np
    >>> contains_self_loops(np.array([[0, 1, 0], [1, 0, 0]]))
    True
    """
    edge_index_arg("contains_self_loops", edge_index)
    return bool((edge_index[0] == edge_index[1]).any())


def remove_self_loops(edge_index: Any, edge_attr: Any = None) -> tuple[Any, Any]:
    """``(edge_index, edge_attr)`` without the edges ``(i, i)``, other edges in order.

    ``edge_attr`` [E, ...] or ``None`` (then ``None`` comes back). Ids keep their dtype.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 0], [1, 0, 0]])
    >>> ei, attr = remove_self_loops(ei, np.array([[1, 2], [3, 4], [5, 6]]))
    >>> ei.tolist(), attr.tolist()
    ([[0, 1], [1, 0]], [[1, 2], [3, 4]])
    """
    where = "remove_self_loops"
    edge_index_arg(where, edge_index)
    check_ids(where, "edge_index", edge_index, None)
    optional_edge_attr(where, edge_index, edge_attr)
    keep = edge_index[0] != edge_index[1]
    return edge_index[:, keep], None if edge_attr is None else edge_attr[keep]


def segregate_self_loops(edge_index: Any, edge_attr: Any = None) -> tuple[Any, Any, Any, Any]:
    """Split ``edge_index`` [2, E] into its other edges and its self-loops ``(i, i)``.

    Returns PyG's ``(edge_index, edge_attr, loop_edge_index, loop_edge_attr)``, each part in
    edge order (``edge_attr`` [E, ...] or ``None``; ``None`` parts then). Ids keep their
    dtype.

    >>> import numpy as np
    >>> ei, attr, loops, loop_attr = segregate_self_loops(
    ...     np.array([[0, 0, 1], [0, 1, 0]]), np.array([1.0, 2.0, 3.0]))
    >>> ei.tolist(), attr.tolist(), loops.tolist(), loop_attr.tolist()
    ([[0, 1], [1, 0]], [2.0, 3.0], [[0], [0]], [1.0])
    """
    where = "segregate_self_loops"
    edge_index_arg(where, edge_index)
    check_ids(where, "edge_index", edge_index, None)
    optional_edge_attr(where, edge_index, edge_attr)
    keep = edge_index[0] != edge_index[1]
    loop = ~keep
    if edge_attr is None:
        return edge_index[:, keep], None, edge_index[:, loop], None
    return edge_index[:, keep], edge_attr[keep], edge_index[:, loop], edge_attr[loop]


def last_self_loops(edge_index: Any, num_nodes: int) -> Any:
    """For each node ``i < num_nodes``, ``1 +`` the position in ``edge_index`` (checked,
    ids below ``num_nodes``) of its last self-loop ``(i, i)``, or 0 when it has none; int64.
    One ``ops.scatter`` max, so which loop is the last is fixed on every device."""
    from arraygnn import ops

    xp = get_namespace(edge_index)
    pos = xp.nonzero(edge_index[0] == edge_index[1])[0].astype(np.int64, copy=False)
    nodes = kernel_index(xp, edge_index[0][pos])
    return ops.scatter(pos + 1, nodes, num_nodes, "max")


def get_self_loop_attr(edge_index: Any, edge_attr: Any = None, num_nodes: int | None = None) -> Any:
    """The features of each node's self-loop, ``[N, ...]``: the diagonal of the adjacency.

    Node ``i`` gets the features of its loop ``(i, i)`` (the last one, if several: PyG's
    CPU result), zeros without one. ``edge_attr`` [E, ...] keeps its dtype; ``None`` means
    ones (float32, as PyG). ``num_nodes`` defaults to ``edge_index.max() + 1``.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 0], [1, 0, 0]])
    >>> get_self_loop_attr(ei, np.array([0.2, 0.3, 0.5]), num_nodes=4).tolist()
    [0.5, 0.0, 0.0, 0.0]
    """
    where = "get_self_loop_attr"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    optional_edge_attr(where, edge_index, edge_attr)
    last = last_self_loops(edge_index, n)
    has = last > 0
    if edge_attr is None:
        return has.astype(np.float32)
    out = xp.zeros((n,) + tuple(edge_attr.shape[1:]), dtype=edge_attr.dtype)
    out[has] = edge_attr[last[has] - 1]
    return out


def _check_fill(where: str, fill_value: Any) -> None:
    if fill_value is None or is_array(fill_value):
        return
    if isinstance(fill_value, str):
        check_pyg_reduce(where, fill_value, "fill_value", allow_any=True)
        return
    if not isinstance(fill_value, (int, float, np.number, np.bool_)) or isinstance(
        fill_value, complex
    ):
        raise TypeError(
            f"{where}: fill_value must be None, a number, an array or a reduction name "
            f"('add', 'mean', 'min', 'max', 'mul'), got {type(fill_value).__name__}"
        )


def _loop_attr(
    where: str, dst: Any, edge_attr: Any, num_loops: int, fill_value: Any, num_dst: int
) -> Any:
    """PyG's ``compute_loop_attr``: the features of ``num_loops`` new self-loops."""
    xp = get_namespace(edge_attr)
    shape = (num_loops,) + tuple(edge_attr.shape[1:])
    if fill_value is None:
        return xp.ones(shape, dtype=edge_attr.dtype)
    if isinstance(fill_value, str):
        op = check_pyg_reduce(where, fill_value, "fill_value", allow_any=True)
        if edge_attr.dtype.kind not in "fiu":
            raise TypeError(
                f"{where}: fill_value={fill_value!r} reduces edge_attr, which must be numeric; "
                f"got dtype {edge_attr.dtype}"
            )
        return scatter_rows(xp, edge_attr, dst, num_dst, op)[:num_loops]
    if is_array(fill_value):
        same_device(where, edge_attr=edge_attr, fill_value=fill_value)
        fill = fill_value.astype(edge_attr.dtype, copy=False)
        if fill.ndim != edge_attr.ndim:
            fill = fill[None]
        try:
            return xp.broadcast_to(fill, shape).copy()
        except ValueError:
            raise ValueError(
                f"{where}: fill_value of shape {tuple(fill_value.shape)} does not broadcast to "
                f"the loop features' shape {shape}"
            ) from None
    return xp.full(shape, fill_value, dtype=edge_attr.dtype)


def _cat_attr(xp: Any, kept: Any, loops: Any) -> Any:
    """``torch.cat`` of the two: an integer ``kept`` next to float loop features (a
    ``'mean'`` of integers) becomes that float dtype, not NumPy's wider promotion."""
    if kept.dtype != loops.dtype and loops.dtype.kind == "f" and kept.dtype.kind in "iu":
        kept = kept.astype(loops.dtype)
    return xp.concatenate([kept, loops.astype(kept.dtype, copy=False)])


def add_self_loops(
    edge_index: Any,
    edge_attr: Any = None,
    fill_value: Any = None,
    num_nodes: int | tuple[int, int] | None = None,
) -> tuple[Any, Any]:
    """Append a self-loop ``(i, i)`` for every node ``i < N`` (existing loops are kept).

    ``num_nodes``: an int ``N``, ``(num_src_nodes, num_dst_nodes)`` for a bipartite graph
    (``N`` is the smaller; PyG's rule), or ``None``: ``edge_index.max() + 1``. ``edge_attr``
    [E, ...] or ``None``; the loops' features follow ``fill_value`` (module docs).
    Returns ``(edge_index [2, E + N], edge_attr [E + N, ...] or None)``.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 0], [1, 0, 0]])
    >>> add_self_loops(ei, np.array([0.5, 0.5, 0.5]), fill_value=2.0)[1].tolist()
    [0.5, 0.5, 0.5, 2.0, 2.0]
    """
    where = "add_self_loops"
    xp = edge_index_arg(where, edge_index)
    _check_fill(where, fill_value)
    if isinstance(num_nodes, (tuple, list)):
        if len(num_nodes) != 2:
            raise ValueError(f"{where}: num_nodes as a pair must be (num_src, num_dst)")
        n_src = check_size(f"{where}: num_nodes[0]", num_nodes[0])
        n_dst = check_size(f"{where}: num_nodes[1]", num_nodes[1])
        check_ids(where, "edge_index[0]", edge_index[0], n_src)
        check_ids(where, "edge_index[1]", edge_index[1], n_dst)
        n = min(n_src, n_dst)
    else:
        n = n_dst = num_nodes_arg(where, edge_index, num_nodes)
    optional_edge_attr(where, edge_index, edge_attr)
    idt = ids_dtype_holding(edge_index.dtype, n - 1)
    loops = xp.arange(n, dtype=idt)
    out = xp.concatenate([edge_index.astype(idt, copy=False), xp.stack([loops, loops])], axis=1)
    if edge_attr is None:
        return out, None
    loop_attr = _loop_attr(where, edge_index[1], edge_attr, n, fill_value, n_dst)
    return out, _cat_attr(xp, edge_attr, loop_attr)


def add_remaining_self_loops(
    edge_index: Any,
    edge_attr: Any = None,
    fill_value: Any = None,
    num_nodes: int | None = None,
) -> tuple[Any, Any]:
    """PyG's rule: drop the existing self-loops, then append one loop per node ``i < N``.

    A node that had a self-loop keeps that loop's features (the last one, if several);
    every other loop's features follow ``fill_value`` (module docs; a string reduces over
    all incoming edges, loops included). Non-loop edges keep their order. ``num_nodes``
    defaults to ``edge_index.max() + 1``. Returns ``(edge_index, edge_attr or None)``.

    (``arraygnn.nn.add_remaining_self_loops(edge_index, edge_weight, num_nodes,
    fill_value=1.0)`` is the layers' older helper with that positional order.)

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 1], [1, 1, 0]])
    >>> ei2, w2 = add_remaining_self_loops(ei, np.array([1.0, 5.0, 1.0]), fill_value=0.0)
    >>> ei2.tolist(), w2.tolist()
    ([[0, 1, 0, 1], [1, 0, 0, 1]], [1.0, 1.0, 0.0, 5.0])
    """
    where = "add_remaining_self_loops"
    edge_index_arg(where, edge_index)
    _check_fill(where, fill_value)
    if isinstance(num_nodes, (tuple, list)):
        raise TypeError(f"{where}: num_nodes must be an int (a bipartite pair has no loops)")
    n = num_nodes_arg(where, edge_index, num_nodes)
    optional_edge_attr(where, edge_index, edge_attr)
    src, dst, attr = remaining_self_loops_pairs(
        edge_index[0], edge_index[1], edge_attr, n, fill_value, where=where
    )
    xp = get_namespace(src)
    return xp.stack([src, dst]), attr


def remaining_self_loops_pairs(
    src: Any,
    dst: Any,
    edge_attr: Any,
    num_nodes: int,
    fill_value: Any = 1.0,
    *,
    where: str = "add_remaining_self_loops",
) -> tuple[Any, Any, Any]:
    """:func:`add_remaining_self_loops` on separate, already checked ``src`` / ``dst`` arrays
    (no [2, E] copy): ``(src, dst, edge_attr or None)``. A graph without self-loops skips
    the masking. Ids come back in the given index dtype, or in ``int64`` when that dtype
    cannot hold ``num_nodes - 1`` (a ``uint8`` edge_index on 300 nodes). The GCN layers use
    it (``arraygnn.nn.graph_conv``)."""
    xp = get_namespace(src, dst, edge_attr)
    index_dtype = ids_dtype_holding(src.dtype, num_nodes - 1)
    if src.dtype != index_dtype or dst.dtype != index_dtype:
        src, dst = src.astype(index_dtype), dst.astype(index_dtype)
    loops = xp.arange(num_nodes, dtype=index_dtype)
    is_loop = src == dst
    has_loops = bool(is_loop.any())
    loop_attr = None
    if edge_attr is not None:
        loop_attr = _loop_attr(where, dst, edge_attr, num_nodes, fill_value, num_nodes)
        if has_loops:
            loop_attr[src[is_loop]] = edge_attr[is_loop]
    if has_loops:
        keep = ~is_loop
        src, dst = src[keep], dst[keep]
        edge_attr = None if edge_attr is None else edge_attr[keep]
    return (
        xp.concatenate([src, loops]),
        xp.concatenate([dst, loops]),
        None if edge_attr is None else _cat_attr(xp, edge_attr, loop_attr),
    )
