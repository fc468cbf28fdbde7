"""PyG's ``unbatch`` and ``unbatch_edge_index``: split a batch back into its graphs.

RULE: ``batch`` must be sorted (non-decreasing), PyG's layout (PyG assumes it; ``ValueError``
here otherwise). ``batch_size`` left out is inferred as PyG does: ``batch.max() + 1`` graphs
for ``unbatch`` (none for an empty ``batch``), the graph of the last edge plus one for
``unbatch_edge_index``. The split points are read back to the host (a sync on CuPy, as
PyG's ``.tolist()``).
RULE: the pieces are views of one fresh copy (never of the input); PyG returns views of its
input, as a tuple (``Tensor.split``): here a list.

>>> import numpy as np
>>> [a.tolist() for a in unbatch(np.arange(7), np.array([0, 0, 0, 1, 1, 2, 2]))]
[[0, 1, 2], [3, 4], [5, 6]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import (
    batch_counts,
    check_array_arg,
    check_ids,
    check_int_array,
    edge_index_arg,
    same_device,
)
from arraygnn.utils.scatter import _axis

__all__ = ["unbatch", "unbatch_edge_index"]


def _graph_sizes(where: str, xp: Any, batch: Any, num_rows: int, batch_size: Any) -> Any:
    """The node count of each graph [B] of a checked, sorted ``batch`` ([num_rows])."""
    return batch_counts(where, xp, batch, num_rows, batch_size, empty=0)


def _split(xp: Any, fresh: Any, counts: Any, axis: int) -> list[Any]:
    """``fresh`` cut along ``axis`` into pieces of ``counts`` (one host read)."""
    if counts.shape[0] == 0:
        return []
    return list(xp.split(fresh, xp.cumsum(counts)[:-1].tolist(), axis=axis))


def unbatch(src: Any, batch: Any, dim: int = 0, batch_size: int | None = None) -> list[Any]:
    """Split ``src`` along ``dim`` into one array per graph of the sorted ``batch`` vector.

    ``batch`` [src.shape[dim]] graph ids; ``batch_size`` defaults to ``batch.max() + 1`` (0
    for an empty ``batch``), as PyG; graphs without entries give empty pieces. ``src`` may
    have any dtype. Returns a list of ``batch_size`` arrays.

    >>> import numpy as np
    >>> parts = unbatch(np.arange(6).reshape(2, 3), np.array([0, 2, 2]), dim=1, batch_size=4)
    >>> [p.tolist() for p in parts]
    [[[0], [3]], [[], []], [[1, 2], [4, 5]], [[], []]]
    """
    where = "unbatch"
    check_array_arg(where, "src", src)
    if src.ndim == 0:
        raise ValueError(f"{where}: src must have at least one dimension")
    xp = same_device(where, src=src, batch=batch)
    axis = _axis(where, dim, src.ndim)
    counts = _graph_sizes(where, xp, batch, int(src.shape[axis]), batch_size)
    return _split(xp, src.copy(), counts, axis)


def unbatch_edge_index(edge_index: Any, batch: Any, batch_size: int | None = None) -> list[Any]:
    """Split the edges of a batch into one ``edge_index`` per graph, with local node ids.

    ``batch`` [N] sorted graph ids of the nodes; the edges must come grouped by graph in
    graph order (PyG's layout; ``ValueError`` otherwise), and an edge must not join two
    graphs (``ValueError``; PyG gives wrong ids). Node ``k`` of graph ``b`` becomes ``k``.
    Graphs without edges give ``[2, 0]`` arrays. ``batch_size`` left out: PyG's rule, one
    piece per graph up to the last graph **that has an edge** (the graph of the last edge,
    plus one; none without edges), so trailing graphs without edges get no piece; give
    ``batch_size`` for one piece per graph. Ids keep ``edge_index``'s dtype (PyG: int64).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 1, 2, 2, 3, 4, 5, 5, 6], [1, 0, 2, 1, 3, 2, 5, 4, 6, 5]])
    >>> [e.tolist() for e in unbatch_edge_index(ei, np.array([0, 0, 0, 0, 1, 1, 1]))]
    [[[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]], [[0, 1, 1, 2], [1, 0, 2, 1]]]
    """
    where = "unbatch_edge_index"
    xp = edge_index_arg(where, edge_index)
    same_device(where, edge_index=edge_index, batch=batch)
    check_int_array(where, "batch", batch)
    if batch.ndim != 1:
        raise ValueError(f"{where}: batch must be one-dimensional, got shape {tuple(batch.shape)}")
    num_nodes = int(batch.shape[0])
    check_ids(where, "edge_index", edge_index, num_nodes)
    counts = _graph_sizes(where, xp, batch, num_nodes, batch_size)
    starts = xp.cumsum(counts) - counts
    edge_batch = batch[edge_index[0]]
    if not bool((batch[edge_index[1]] == edge_batch).all()):
        raise ValueError(f"{where}: edge_index has an edge between two graphs of batch")
    if edge_batch.shape[0] > 1 and not bool((edge_batch[1:] >= edge_batch[:-1]).all()):
        raise ValueError(
            f"{where}: edge_index must list the edges grouped by graph, in graph order "
            "(PyG's layout)"
        )
    local = edge_index.astype(np.int64) - starts[edge_batch]
    local = local.astype(edge_index.dtype, copy=False)
    if batch_size is None:  # PyG counts the pieces from the edges: the last edge's graph + 1
        pieces = int(edge_batch[-1]) + 1 if edge_batch.shape[0] else 0
    else:
        pieces = int(counts.shape[0])
    edge_counts = xp.bincount(kernel_index(xp, edge_batch), minlength=pieces)[:pieces]
    return _split(xp, local, edge_counts, 1)
