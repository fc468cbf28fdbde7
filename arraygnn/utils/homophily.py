"""PyG's ``homophily`` and ``assortativity``: how alike the two ends of an edge are.

``homophily`` measures label agreement along edges (PyG's three methods: ``'edge'``,
``'node'``, ``'edge_insensitive'``), per graph with a ``batch`` vector; ``assortativity``
is the degree assortativity coefficient (Newman's Pearson correlation of the degrees at the
two ends of each edge). Shares of same-label edges per node / graph / class are two exact
``bincount`` counts and one float32 division (PyG's scatter-mean of 0 / 1 values, the same
bits); the per-graph mean of the node values runs ``arraygnn.ops.scatter``.

RULE: values are PyG 2.8's: float32 arithmetic for ``homophily`` (a Python ``float``
without ``batch``, a float32 array with it), so they agree with PyG to float32 rounding
(a mean may be summed in another order). ``assortativity`` is computed in float64 over the
edges (PyG builds a dense degree-by-degree float32 matrix): the same value, more digits.
RULE: sizes PyG infers (graphs ``batch.max() + 1``, classes ``y.max() + 1``) are inferred
the same way, a device-to-host sync on CuPy.

>>> import numpy as np
>>> ei = np.array([[0, 1, 2, 3], [1, 2, 0, 4]])
>>> y = np.array([0, 0, 0, 0, 1])
>>> homophily(ei, y, method="edge")
0.75
>>> round(homophily(ei, y, method="node"), 6)
0.6
>>> round(assortativity(np.array([[0, 1, 2, 3, 2], [1, 2, 0, 1, 3]])), 6)
-0.666667
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import (
    check_array_arg,
    check_ids,
    check_int_array,
    edge_index_arg,
    same_device,
)
from arraygnn.utils.scatter import scatter_rows

__all__ = ["assortativity", "homophily"]

_METHODS = ("edge", "node", "edge_insensitive")


def homophily(edge_index: Any, y: Any, batch: Any = None, method: str = "edge") -> Any:
    """PyG's ``homophily`` of the labels ``y`` [N] (or [N, 1]) over ``edge_index`` [2, E].

    - ``'edge'``: the fraction of edges whose two ends share a label; with ``batch``, per
      graph (each edge counts for its **target**'s graph), ``batch.max() + 1`` graphs.
    - ``'node'``: each node's fraction of same-label incoming edges (0 without incoming
      edges), averaged over the nodes (of each graph with ``batch``).
    - ``'edge_insensitive'``: the class-insensitive edge homophily of Lim et al.
      ``sum_k max(0, h_k - |C_k| / N) / (C - 1)`` with ``C = y.max() + 1 >= 2`` classes.
      With ``batch`` the result has one entry per graph (PyG fails with a shape error
      when the last graph lacks the top class; here every graph has ``C`` slots).

    Returns a Python ``float`` without ``batch`` (NaN without edges, as PyG), else a
    float32 array on ``y``'s device (a single graph's ``'edge_insensitive'`` value is a
    ``float``, as in PyG). Labels may be any dtype for ``'edge'`` / ``'node'`` (compared
    with ``==``); ``'edge_insensitive'`` needs integer labels.

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 2, 3], [1, 2, 0, 4]])
    >>> y, batch = np.array([0, 0, 0, 0, 1]), np.array([0, 0, 0, 1, 1])
    >>> homophily(ei, y, batch, method="edge").tolist()
    [1.0, 0.0]
    """
    where = "homophily"
    xp = edge_index_arg(where, edge_index)
    check_array_arg(where, "y", y)
    if method not in _METHODS:
        raise ValueError(f"{where}: method must be one of {_METHODS}, got {method!r}")
    same_device(where, edge_index=edge_index, y=y)
    if y.ndim > 1 and y.shape[-1] == 1:
        y = y.reshape(y.shape[:-1])
    if y.ndim != 1:
        raise ValueError(f"{where}: y must have shape [N] or [N, 1], got {tuple(y.shape)}")
    num_nodes = int(y.shape[0])
    check_ids(where, "edge_index", edge_index, num_nodes)
    if batch is not None:
        check_int_array(where, "batch", batch)
        same_device(where, edge_index=edge_index, batch=batch)
        if batch.ndim != 1 or batch.shape[0] != num_nodes:
            raise ValueError(
                f"{where}: batch must have shape ({num_nodes},), one graph id per node, got "
                f"{tuple(batch.shape)}"
            )
        check_ids(where, "batch", batch, None)
    col = kernel_index(xp, edge_index[1])
    same = y[kernel_index(xp, edge_index[0])] == y[col]
    if method == "edge":
        if batch is None:  # an exact count, one float32 division (PyG's bits below 2**24)
            if same.shape[0] == 0:
                return math.nan
            return float(np.float32(int(same.sum())) / np.float32(same.shape[0]))
        size = int(batch.max()) + 1 if num_nodes else 0
        return _fraction(xp, same, kernel_index(xp, batch)[col], size)
    if method == "node":
        per_node = _fraction(xp, same, col, num_nodes)
        if batch is None:
            return _mean_float(per_node)
        size = int(batch.max()) + 1 if num_nodes else 0
        return scatter_rows(xp, per_node, batch, size, "mean")
    return _edge_insensitive(where, xp, edge_index, y, batch, same)


def _fraction(xp: Any, same: Any, group: Any, size: int) -> Any:
    """PyG's ``scatter(same.float(), group, reduce='mean')`` [size] float32: the share of
    True per group (0 for an empty group). Both counts are exact integers (below 2**24
    they are exact in PyG's float32 sum too), so the one float32 division gives PyG's bits."""
    hits = xp.bincount(group, weights=same.astype(np.float64), minlength=size)[:size]
    total = xp.bincount(group, minlength=size)[:size]
    return hits.astype(np.float32) / xp.maximum(total, 1).astype(np.float32)


def _mean_float(values: Any) -> float:
    """The float32 mean as a Python float (NaN when empty, as torch's ``mean``)."""
    if values.shape[0] == 0:
        return math.nan
    return float(values.mean(dtype=np.float32))


def _edge_insensitive(where: str, xp: Any, edge_index: Any, y: Any, batch: Any, same: Any) -> Any:
    if y.dtype.kind not in "iu":
        raise TypeError(
            f"{where}: method='edge_insensitive' needs integer class labels y, got dtype {y.dtype}"
        )
    check_ids(where, "y", y, None)
    num_nodes = int(y.shape[0])
    num_classes = int(y.max()) + 1 if num_nodes else 0
    if num_classes < 2:
        raise ValueError(
            f"{where}: method='edge_insensitive' needs at least 2 classes (y.max() + 1), "
            f"got {num_classes}"
        )
    if batch is None:
        batch = xp.zeros(num_nodes, dtype=np.int64)
    batch = kernel_index(xp, batch).astype(np.int64)
    num_graphs = int(batch.max()) + 1
    nodes = xp.bincount(batch, minlength=num_graphs)[:num_graphs]
    group = num_classes * batch + y.astype(np.int64)
    size = num_graphs * num_classes
    h = _fraction(xp, same, group[kernel_index(xp, edge_index[1])], size)
    h = h.reshape(num_graphs, num_classes)
    counts = xp.bincount(group, minlength=size)[:size].reshape(num_graphs, num_classes)
    with np.errstate(invalid="ignore"):  # a graph without nodes: NaN, as PyG
        proportions = counts.astype(np.float32) / nodes.astype(np.float32).reshape(-1, 1)
    out = xp.clip(h - proportions, 0, None).sum(axis=-1, dtype=np.float32)
    out = (out / np.float32(num_classes - 1)).astype(np.float32)
    return float(out[0]) if out.shape[0] == 1 else out


def assortativity(edge_index: Any) -> float:
    """PyG's ``assortativity``: the degree assortativity coefficient in ``[-1, 1]``.

    The Pearson correlation, over the edges ``(u, v)``, of ``u``'s out-degree and ``v``'s
    in-degree (Newman's "Mixing patterns in networks"; PyG computes the same from a dense
    matrix of degree pairs in float32). Computed in float64 in ``O(E)``, returned as a
    Python ``float``. NaN when either degree is constant over the edges (PyG: NaN too);
    a graph without edges is a ``ValueError`` (PyG fails inside torch).

    >>> import numpy as np
    >>> assortativity(np.array([[0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0]]))
    -1.0
    """
    where = "assortativity"
    xp = edge_index_arg(where, edge_index)
    check_ids(where, "edge_index", edge_index, None)
    num_edges = int(edge_index.shape[1])
    if num_edges == 0:
        raise ValueError(f"{where}: edge_index has no edges; the coefficient is undefined")
    row = kernel_index(xp, edge_index[0])
    col = kernel_index(xp, edge_index[1])
    src = xp.bincount(row)[row].astype(np.float64)
    dst = xp.bincount(col)[col].astype(np.float64)
    src_c = src - src.mean()
    dst_c = dst - dst.mean()
    cov = float((src_c * dst_c).mean())
    var = float((src_c * src_c).mean()) * float((dst_c * dst_c).mean())
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(cov) / np.sqrt(np.float64(var)))
