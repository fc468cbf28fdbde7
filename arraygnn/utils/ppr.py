"""PyG's ``get_ppr``: sparse approximate personalized PageRank vectors by local push.

The Andersen-Chung-Lang push, one source at a time, in PyG's order exactly: the residual
of a node is pushed while it is at least ``alpha * eps * out_degree``, taken from a LIFO
stack, and split evenly over the node's out-edges in CSR order. Given the same CSR, PyG's
kernel and this one give the same entries in the same order with the same float32 weights
(tested against PyG's own kernel).

RULE: the CSR here is a **stable** sort of the edges by source, so each node's out-edges
keep their ``edge_index`` order. PyG sorts with torch's unstable sort, which reorders a
node's out-edges (even of already sorted input): the push order, and so the last digits,
the settling order and which borderline entries pass ``eps``, then differ from PyG's. The
vectors agree within the push tolerance (each entry within about ``eps * max out-degree``
of PyG's and of the exact PPR; tested).

How: a Numba kernel (:mod:`arraygnn.utils._ppr_numba`, compiled on first use and cached on
disk) keeps PyG's dicts as dense scratch arrays, one set per chunk of sources; the chunks
run on ``numba.get_num_threads()`` Python threads (the kernel releases the GIL), and the
results are concatenated in source order. CuPy input is copied to the host and the result
back (a push is a sequential graph walk; PyG does the same).

>>> import numpy as np
>>> ei, w = get_ppr(np.array([[0, 1, 1, 2], [1, 0, 2, 0]]), alpha=0.2, eps=1e-5)
>>> ei[:, :3].tolist(), w.dtype
([[0, 0, 0], [0, 1, 2]], dtype('float32'))
>>> [round(float(v), 4) for v in w[:3]]
[0.4717, 0.3774, 0.1509]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts, to_numpy
from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import (
    check_ids,
    check_int_array,
    edge_index_arg,
    num_nodes_arg,
    same_device,
)
from arraygnn.utils.random_graphs import probability_arg

__all__ = ["get_ppr"]

#: sources per chunk at least (each chunk allocates a few arrays of ``num_nodes`` entries)
_MIN_CHUNK = 256


def get_ppr(
    edge_index: Any,
    alpha: float = 0.2,
    eps: float = 1e-5,
    target: Any = None,
    num_nodes: int | None = None,
) -> tuple[Any, Any]:
    """The sparse personalized PageRank vectors of all nodes, or of the ``target`` nodes.

    ``edge_index`` [2, E] int (edges ``row -> col``; parallel edges count twice, as PyG);
    ``alpha`` the teleport probability in ``(0, 1]``; ``eps`` > 0 the push threshold
    (a residual is pushed while ``>= alpha * eps * out_degree``); ``target`` [T] int node
    ids (default: every node, in order); ``num_nodes`` defaults to ``edge_index.max() + 1``
    (a sync on CuPy). Returns ``(edge_index [2, K], edge_weight [K] float32)``: row 0 the
    source, row 1 the nodes of its PPR vector (int64, as PyG's) in the
    order the push first settled them (the source first), as PyG. On ``edge_index``'s
    device (computed on the host).

    >>> import numpy as np
    >>> ei, w = get_ppr(np.array([[0, 1], [1, 0]]), target=np.array([1]))
    >>> ei.tolist()
    [[1, 1], [1, 0]]
    """
    where = "get_ppr"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    alpha = probability_arg(where, "alpha", alpha)
    if alpha == 0.0:
        raise ValueError(f"{where}: alpha must be in (0, 1], got 0 (the push never ends)")
    eps = _positive(where, "eps", eps)
    if target is not None:
        check_int_array(where, "target", target)
        same_device(where, edge_index=edge_index, target=target)
        if target.ndim != 1:
            raise ValueError(
                f"{where}: target must be one-dimensional, got shape {tuple(target.shape)}"
            )
        check_ids(where, "target", target, n)
    host_ei = to_numpy(edge_index)
    indptr, indices = _csr(host_ei, n)
    sources = (
        np.arange(n, dtype=np.int64)
        if target is None
        else np.ascontiguousarray(to_numpy(target)).astype(np.int64)
    )
    counts, nodes, values = _run(indptr, indices, sources, alpha, eps)
    rows = repeat_counts(np, sources, counts)
    out_ei = np.stack([rows, nodes])
    weight = values.astype(np.float32)
    if xp is np:
        return out_ei, weight
    return xp.asarray(out_ei), xp.asarray(weight)


def _csr(edge_index: Any, n: int) -> tuple[Any, Any]:
    """``(indptr, indices)`` of the edges stably sorted by source (int64, host)."""
    from arraygnn.ops.csr import sorted_segments

    row = kernel_index(np, edge_index[0])
    col = kernel_index(np, edge_index[1])
    indptr, perm = sorted_segments(np, row, n)
    return indptr.astype(np.int64), col[perm].astype(np.int64)


def _run(indptr: Any, indices: Any, sources: Any, alpha: float, eps: float) -> tuple:
    """The kernel over chunks of ``sources``, on threads when there are several chunks."""
    import numba

    from arraygnn.kernels.cpu._threads import start_threads
    from arraygnn.utils._ppr_numba import ppr_chunk

    num = int(sources.shape[0])
    start_threads()  # Numba's threads with the library's wait policy, before they are counted
    threads = max(1, numba.get_num_threads())  # NUMBA_NUM_THREADS / numba.set_num_threads
    per = max(_MIN_CHUNK, math.ceil(num / (4 * threads)))
    bounds = list(range(0, num, per)) + [num]
    if len(bounds) <= 2:
        return ppr_chunk(indptr, indices, sources, alpha, eps)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        parts = list(
            pool.map(
                lambda lo_hi: ppr_chunk(indptr, indices, sources[lo_hi[0] : lo_hi[1]], alpha, eps),
                zip(bounds[:-1], bounds[1:]),
            )
        )
    return tuple(np.concatenate([part[i] for part in parts]) for i in range(3))


def _positive(where: str, name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{where}: {name} must be a number, got {value!r}")
    value = float(value)
    if not (value > 0.0 and math.isfinite(value)):
        raise ValueError(f"{where}: {name} must be a positive finite number, got {value}")
    return value
