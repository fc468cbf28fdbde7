"""Dense forms: PyG's ``to_dense_batch``, ``to_dense_adj`` and ``dense_to_sparse``.

A batch of graphs (nodes grouped by a sorted ``batch`` vector, PyG's layout) becomes padded
``[B, N_max, ...]`` node features with a mask, or ``[B, N_max, N_max, ...]`` adjacency
matrices; ``dense_to_sparse`` goes back. Vectorised: one scatter for all graphs, no loop
over graphs.

RULE: sizes left out come from the data, as PyG (``batch.max() + 1`` graphs, the largest
graph's node count): each is a device-to-host sync on CuPy. Give ``batch_size`` and
``max_num_nodes`` for fixed shapes (nodes beyond ``max_num_nodes`` are dropped, as PyG); the
argument checks still read ``batch``'s range and order once.
RULE: ``batch`` must be sorted (non-decreasing), PyG's layout; ``ValueError`` otherwise.

>>> import numpy as np
>>> out, mask = to_dense_batch(np.arange(3.0)[:, None], np.array([0, 0, 1]))
>>> out[..., 0].tolist(), mask.tolist()
([[0.0, 1.0], [2.0, 0.0]], [[True, True], [True, False]])
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, repeat_counts
from arraygnn.ops._common import check_size
from arraygnn.utils._checks import (
    batch_counts,
    check_array_arg,
    check_bool_array,
    check_ids,
    check_int_array,
    check_numeric,
    edge_attr_arg,
    edge_index_arg,
    same_device,
)

__all__ = ["to_dense_batch", "to_dense_adj", "dense_to_sparse"]


def _batch_layout(
    where: str, xp: Any, batch: Any, num_rows: int, batch_size: Any
) -> tuple[int, Any, Any]:
    """``(B, counts [B], starts [B])`` of a checked, sorted ``batch`` vector ([num_rows])."""
    counts = batch_counts(where, xp, batch, num_rows, batch_size, empty=1)
    starts = xp.cumsum(counts) - counts
    return int(counts.shape[0]), counts, starts


def _max_nodes(where: str, counts: Any, max_num_nodes: Any) -> int:
    if max_num_nodes is not None:
        return check_size(f"{where}: max_num_nodes", max_num_nodes)
    return int(counts.max()) if counts.shape[0] else 0


def to_dense_batch(
    x: Any,
    batch: Any = None,
    fill_value: Any = 0.0,
    max_num_nodes: int | None = None,
    batch_size: int | None = None,
) -> tuple[Any, Any]:
    """Node features [N, ...] of a batch -> ``(out [B, N_max, ...], mask [B, N_max] bool)``.

    Node ``k`` of graph ``b`` lands at ``out[b, k]`` (``mask[b, k]`` True); the padding holds
    ``fill_value`` (cast to ``x``'s dtype, which ``out`` keeps). ``batch`` [N] sorted graph
    ids; ``None`` means one graph. ``batch_size`` defaults to ``batch.max() + 1`` (1 for an
    empty or missing ``batch``; PyG raises on an empty one), ``max_num_nodes`` to the largest
    graph's node count; nodes beyond it are dropped. Without ``batch`` and
    ``max_num_nodes``: ``(x[None], all-True mask)`` (a copy here; PyG returns a view).

    >>> import numpy as np
    >>> out, mask = to_dense_batch(np.array([1, 2, 3]), np.array([0, 1, 1]), fill_value=-1)
    >>> out.tolist(), mask.tolist()
    ([[1, -1], [2, 3]], [[True, False], [True, True]])
    """
    where = "to_dense_batch"
    check_array_arg(where, "x", x)
    if x.ndim == 0:
        raise ValueError(f"{where}: x must have at least one dimension (nodes)")
    xp = same_device(where, x=x, batch=batch)
    scalar = isinstance(fill_value, (int, float, np.number, np.bool_))
    if not (scalar or (is_array(fill_value) and fill_value.ndim == 0)):
        raise TypeError(f"{where}: fill_value must be a scalar, got {type(fill_value).__name__}")
    if x.dtype.kind in "iu":  # as torch's new_full: a value the dtype cannot hold is an error
        value = float(fill_value)
        info = np.iinfo(x.dtype)
        if not (np.isfinite(value) and info.min <= value <= info.max):
            raise ValueError(f"{where}: fill_value {fill_value!r} does not fit x's dtype {x.dtype}")
    n = int(x.shape[0])
    tail = tuple(x.shape[1:])
    if batch is None and max_num_nodes is None:
        return x[None].copy(), xp.ones((1, n), dtype=bool)
    if batch is None:
        batch = xp.zeros(n, dtype=np.int64)
    size, counts, starts = _batch_layout(where, xp, batch, n, batch_size)
    width = _max_nodes(where, counts, max_num_nodes)
    slots = size * width
    position = xp.arange(n) - starts[batch]
    flat = batch.astype(np.int64) * width + position
    flat = xp.where(position < width, flat, slots)  # overflow nodes go to a spare slot
    out = xp.full((slots + 1,) + tail, fill_value, dtype=x.dtype)
    out[flat] = x
    mask = xp.zeros(slots + 1, dtype=bool)
    mask[flat] = True
    return out[:slots].reshape((size, width) + tail), mask[:slots].reshape(size, width)


def to_dense_adj(
    edge_index: Any,
    batch: Any = None,
    edge_attr: Any = None,
    max_num_nodes: int | None = None,
    batch_size: int | None = None,
) -> Any:
    """Edges of a batch -> dense adjacency ``[B, N_max, N_max, ...]``.

    ``adj[b, i, j]`` sums the features (``edge_attr`` [E, ...]; ones, float32, when
    ``None``, as PyG) of the edges from local node ``i`` to local node ``j`` of graph ``b``:
    parallel edges add up. ``batch`` [N] sorted graph ids (``None``: one graph of
    ``edge_index.max() + 1`` nodes); ``batch_size`` defaults to ``batch.max() + 1`` (1 when
    ``batch`` is empty), ``max_num_nodes`` to the largest graph's node count; edges touching
    a node beyond it are dropped. An edge between two graphs lands in its source's graph at
    its target's local index (PyG's formula; PyG's own example has one). The scatter is
    ``arraygnn.ops.scatter`` (deterministic).

    >>> import numpy as np
    >>> ei = np.array([[0, 0, 1, 2, 3], [0, 1, 0, 3, 0]])
    >>> to_dense_adj(ei, np.array([0, 0, 1, 1])).tolist()
    [[[1.0, 1.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]]]
    """
    from arraygnn import ops

    where = "to_dense_adj"
    xp = edge_index_arg(where, edge_index)
    same_device(where, edge_index=edge_index, batch=batch, edge_attr=edge_attr)
    check_ids(where, "edge_index", edge_index, None)
    num_edges = int(edge_index.shape[1])
    if batch is None:
        n = int(edge_index.max()) + 1 if num_edges else 0
        batch = xp.zeros(n, dtype=np.int64)
    else:
        check_int_array(where, "batch", batch)
        if batch.ndim != 1:
            raise ValueError(f"{where}: batch must be one-dimensional, got {tuple(batch.shape)}")
        n = int(batch.shape[0])
        check_ids(where, "edge_index", edge_index, n)
    size, counts, starts = _batch_layout(where, xp, batch, n, batch_size)
    if edge_attr is None:
        edge_attr = xp.ones(num_edges, dtype=np.float32)
    else:
        edge_attr_arg(where, "edge_attr", edge_attr, num_edges)
        check_numeric(where, "edge_attr", edge_attr)
    if edge_index.dtype == np.uint64:  # uint64 - int64 would be float64 in NumPy
        edge_index = edge_index.astype(np.int64)
    src, dst = edge_index[0], edge_index[1]
    graph = batch[src]
    width = _max_nodes(where, counts, max_num_nodes)
    i = src - starts[graph]
    j = dst - starts[batch[dst]]  # PyG's formula: the target's index in its own graph
    cells = size * width * width
    flat = (graph.astype(np.int64) * width + i) * width + j
    flat = xp.where((i < width) & (j < width), flat, cells)  # dropped edges: a spare cell
    if cells > _SPARSE_CELLS * num_edges:
        # mostly empty (a 3,000-node graph of 30k edges, a batch of small graphs): sum the
        # edges of each occupied cell (same order, same bits), then place them in zeros;
        # a scatter over all the cells would visit every one of them
        occupied, slot = xp.unique(flat, return_inverse=True)
        summed = ops.scatter(edge_attr, slot.reshape(-1), int(occupied.shape[0]), "sum")
        adj = xp.zeros((cells + 1,) + tuple(edge_attr.shape[1:]), dtype=summed.dtype)
        adj[occupied] = summed
        adj = adj[:cells]
    else:
        adj = ops.scatter(edge_attr, flat, cells + 1, "sum")[:cells]
    return adj.reshape((size, width, width) + tuple(edge_attr.shape[1:]))


#: ``to_dense_adj`` sums per occupied cell when there are more than this many cells per edge
_SPARSE_CELLS = 8


def dense_to_sparse(adj: Any, mask: Any = None) -> tuple[Any, Any]:
    """Dense adjacency -> ``(edge_index [2, E] int64, edge_attr [E])``, the nonzero entries.

    ``adj`` [N, M] or [B, N, M] (a batch: node ids of graph ``b`` are offset by the nodes of
    the graphs before it, rows in order). ``mask`` [B, N] bool marks the real nodes of each
    graph in a padded batch (square ``adj`` only; padding nodes must come last, as
    PyG's offsets assume); with a 2-D ``adj`` it is ignored with a warning, as PyG.
    ``edge_attr`` has ``adj``'s dtype; edges in row-major order.

    >>> import numpy as np
    >>> ei, w = dense_to_sparse(np.array([[[3, 1], [2, 0]], [[0, 1], [0, 2]]]))
    >>> ei.tolist(), w.tolist()
    ([[0, 0, 1, 2, 3], [0, 1, 0, 3, 3]], [3, 1, 2, 1, 2])
    """
    where = "dense_to_sparse"
    check_array_arg(where, "adj", adj)
    if adj.ndim not in (2, 3):
        raise ValueError(
            f"{where}: adj must be two- or three-dimensional, got shape {tuple(adj.shape)}"
        )
    xp = same_device(where, adj=adj, mask=mask)
    if mask is not None and adj.ndim == 2:
        warnings.warn(
            f"{where}: mask is ignored for a two-dimensional adj (PyG's behaviour)",
            UserWarning,
            stacklevel=2,
        )
        mask = None
    if mask is not None:
        check_bool_array(where, "mask", mask)
        if adj.shape[1] != adj.shape[2]:
            raise ValueError(
                f"{where}: mask needs a square adj, got [*, {adj.shape[1]}, {adj.shape[2]}]"
            )
        if tuple(mask.shape) != tuple(adj.shape[:2]):
            raise ValueError(
                f"{where}: mask must have shape {tuple(adj.shape[:2])} ([B, N]), got "
                f"{tuple(mask.shape)}"
            )
    if adj.ndim == 2:
        row, col, attr = _nonzero_entries(xp, adj)
        return _index_pair(xp, row, col), attr
    rows = adj.reshape(adj.shape[0] * adj.shape[1], adj.shape[2])
    if mask is None:
        row, col, attr = _nonzero_entries(xp, rows)
        offset = (row // adj.shape[1]) * adj.shape[2]
    else:
        rows = rows[mask.reshape(-1)]
        row, col, attr = _nonzero_entries(xp, rows)
        count = mask.sum(axis=1)
        starts = xp.cumsum(count) - count
        offset = repeat_counts(xp, starts, count)[row]
    return _index_pair(xp, row, col + offset), attr


def _nonzero_entries(xp: Any, a: Any) -> tuple[Any, Any, Any]:
    """``(row, col, a[row, col])`` of the nonzero entries of a 2-D ``a``, row-major: one
    flat pass (``nonzero`` of a 2-D array and the 2-D gather cost 1.5x as much)."""
    flat = xp.reshape(a, -1)
    at = xp.flatnonzero(flat)
    return at // a.shape[1], at % a.shape[1], flat[at]


def _index_pair(xp: Any, row: Any, col: Any) -> Any:
    return xp.stack([row.astype(np.int64, copy=False), col.astype(np.int64, copy=False)])
