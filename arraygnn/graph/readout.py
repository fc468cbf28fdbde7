"""DGL's graph readouts on a batched graph: ``sum_nodes``, ``mean_nodes``, ``max_nodes``,
``readout_nodes`` (and the ``*_edges`` forms), ``softmax_nodes`` / ``softmax_edges``,
``broadcast_nodes`` / ``broadcast_edges``, ``topk_nodes`` / ``topk_edges``.

>>> import numpy as np
>>> from arraygnn.graph import graph, batch, sum_nodes, broadcast_nodes
>>> g1, g2 = graph(([0], [1])), graph(([0, 1], [1, 2]))
>>> g1.ndata["h"], g2.ndata["h"] = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
>>> bg = batch([g1, g2])
>>> sum_nodes(bg, "h").tolist(), broadcast_nodes(bg, np.array([10.0, 20.0])).tolist()
([3.0, 12.0], [10.0, 10.0, 20.0, 20.0, 20.0])

RULE: one row per batched graph (``graph.batch_size``; an unbatched graph is one); every
      reduction runs in ``arraygnn.ops.segment`` over the graphs' node / edge ranges and
      gives 0 for a graph without nodes / edges (``mean`` included), as DGL.
RULE: ``weight`` names a feature multiplied into ``feat`` first (DGL: no normalisation);
      the product must be floating point (``TypeError``; DGL's kernel takes floats only).
RULE: ``max`` / ``min`` turn every infinity of the result into 0, as DGL's
      ``segment_reduce`` (``replace_inf_with_zero``): a graph whose rows are all ``-inf``
      (a masked feature) reads out 0 for ``max``.
RULE: ``topk_*`` pad each graph to ``max(k, largest graph)`` rows with -inf (inf when
      ascending), sort, take ``k`` and turn every infinity of the result into 0 (DGL's
      ``replace_inf_with_zero``): graphs with fewer than ``k`` rows end in zero rows.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts
from arraygnn.graph.core import Graph, check_graph

__all__ = [
    "readout_nodes",
    "readout_edges",
    "sum_nodes",
    "sum_edges",
    "mean_nodes",
    "mean_edges",
    "max_nodes",
    "max_edges",
    "softmax_nodes",
    "softmax_edges",
    "broadcast_nodes",
    "broadcast_edges",
    "topk_nodes",
    "topk_edges",
]

_OPS = ("sum", "mean", "max", "min")


def _ops() -> Any:
    from arraygnn import ops

    return ops


def _segments(graph: Graph, kind: str, typ: Any) -> tuple[Any, Any]:
    """The ``[batch_size + 1]`` pointer over the rows of ``typ`` and their frame."""
    xp = graph._xp()
    if kind == "nodes":
        t = graph._ntype(typ, "src")
        counts, frame = graph.batch_num_nodes(t), graph._src_frames[t]
    else:
        rel = graph._rel(typ)
        counts, frame = graph.batch_num_edges(rel.canonical), rel.frame
    ptr = xp.zeros(counts.shape[0] + 1, dtype=np.int64)
    ptr[1:] = xp.cumsum(counts)
    return ptr, frame


def _readout(where: str, graph: Any, feat: str, weight: str | None, op: str, kind: str, typ: Any):
    check_graph(where, graph)
    if op not in _OPS:
        raise ValueError(f"{where}: op must be one of {_OPS}, got {op!r}")
    ptr, frame = _segments(graph, kind, typ)
    x = frame[feat]
    if weight is not None:
        w = frame[weight]
        try:
            x = x * w
        except ValueError:
            raise ValueError(
                f"{where}: weight {weight!r} of shape {tuple(w.shape)} does not broadcast "
                f"against feature {feat!r} of shape {tuple(x.shape)}"
            ) from None
    if x.dtype.kind != "f":  # DGL's segment reduce kernel takes float features only
        what = f"feature {feat!r}" + ("" if weight is None else f" times weight {weight!r}")
        raise TypeError(
            f"{where}: {what} must be floating point (float16, float32 or float64, as DGL's "
            f"readouts), got {x.dtype}"
        )
    from arraygnn.graph.ops import dgl_segment

    return dgl_segment(x, ptr, op)  # max / min: DGL's replace_inf_with_zero


def readout_nodes(
    graph: Graph, feat: str, weight: str | None = None, *, op: str = "sum", ntype: str | None = None
) -> Any:
    """``op`` (``'sum'``, ``'mean'``, ``'max'``, ``'min'``) of node feature ``feat`` per
    graph, ``[batch_size, *feat_shape]``; float features only, and ``max`` / ``min``
    infinities become 0, as DGL's."""
    return _readout("readout_nodes", graph, feat, weight, op, "nodes", ntype)


def readout_edges(
    graph: Graph, feat: str, weight: str | None = None, *, op: str = "sum", etype: Any = None
) -> Any:
    """``op`` of edge feature ``feat`` per graph (see :func:`readout_nodes`)."""
    return _readout("readout_edges", graph, feat, weight, op, "edges", etype)


def sum_nodes(graph: Graph, feat: str, weight: str | None = None, *, ntype: str | None = None):
    """Sum of node feature ``feat`` per graph."""
    return _readout("sum_nodes", graph, feat, weight, "sum", "nodes", ntype)


def sum_edges(graph: Graph, feat: str, weight: str | None = None, *, etype: Any = None):
    """Sum of edge feature ``feat`` per graph."""
    return _readout("sum_edges", graph, feat, weight, "sum", "edges", etype)


def mean_nodes(graph: Graph, feat: str, weight: str | None = None, *, ntype: str | None = None):
    """Mean of node feature ``feat`` per graph (0 for a graph without nodes)."""
    return _readout("mean_nodes", graph, feat, weight, "mean", "nodes", ntype)


def mean_edges(graph: Graph, feat: str, weight: str | None = None, *, etype: Any = None):
    """Mean of edge feature ``feat`` per graph (0 for a graph without edges)."""
    return _readout("mean_edges", graph, feat, weight, "mean", "edges", etype)


def max_nodes(graph: Graph, feat: str, weight: str | None = None, *, ntype: str | None = None):
    """Feature-wise max of node feature ``feat`` per graph (0 for a graph without nodes;
    infinities become 0, as DGL's)."""
    return _readout("max_nodes", graph, feat, weight, "max", "nodes", ntype)


def max_edges(graph: Graph, feat: str, weight: str | None = None, *, etype: Any = None):
    """Feature-wise max of edge feature ``feat`` per graph (0 for a graph without edges;
    infinities become 0, as DGL's)."""
    return _readout("max_edges", graph, feat, weight, "max", "edges", etype)


def _softmax(where: str, graph: Any, feat: str, kind: str, typ: Any) -> Any:
    check_graph(where, graph)
    ptr, frame = _segments(graph, kind, typ)
    x = frame[feat]
    xp = graph._xp()
    n, b = int(x.shape[0]), int(ptr.shape[0]) - 1
    owner = repeat_counts(xp, xp.arange(b, dtype=np.int64), ptr[1:] - ptr[:-1], total=n)
    rows = xp.stack([xp.arange(n, dtype=np.int64), owner])
    flat = x if x.ndim <= 2 else x.reshape(n, math.prod(x.shape[1:]))  # [E] or [E, H] only
    return _ops().edge_softmax(rows, flat, num_dst_nodes=b).reshape(x.shape)


def softmax_nodes(graph: Graph, feat: str, *, ntype: str | None = None) -> Any:
    """Softmax of node feature ``feat`` over the nodes of each graph (per feature column)."""
    return _softmax("softmax_nodes", graph, feat, "nodes", ntype)


def softmax_edges(graph: Graph, feat: str, *, etype: Any = None) -> Any:
    """Softmax of edge feature ``feat`` over the edges of each graph (per feature column)."""
    return _softmax("softmax_edges", graph, feat, "edges", etype)


def _broadcast(where: str, graph: Any, graph_feat: Any, kind: str, typ: Any) -> Any:
    check_graph(where, graph)
    ptr, _ = _segments(graph, kind, typ)
    xp = graph._xp()
    b = int(ptr.shape[0]) - 1
    if b == 1 and hasattr(graph_feat, "shape") and graph_feat.ndim and graph_feat.shape[0] != 1:
        # DGL's fallback for one graph: a feature of shape (*) is unsqueezed (deprecated)
        warnings.warn(
            f"{where}: for a single graph, use an array of shape (1, *) for graph_feat; "
            "shape (*) is deprecated (as in DGL)",
            UserWarning,
            stacklevel=3,
        )
        graph_feat = graph_feat[None]
    if not hasattr(graph_feat, "shape") or graph_feat.ndim == 0 or graph_feat.shape[0] != b:
        shape = tuple(getattr(graph_feat, "shape", ()))
        raise ValueError(
            f"{where}: graph_feat must have one row per graph ({b}), got shape {shape}"
        )
    from arraygnn.graph.batching import host_batch_counts

    total = int(host_batch_counts(graph, kind, typ).sum())  # rows out, known on the host
    owner = repeat_counts(xp, xp.arange(b, dtype=np.int64), ptr[1:] - ptr[:-1], total=total)
    return _ops().gather(graph_feat, owner)


def broadcast_nodes(graph: Graph, graph_feat: Any, *, ntype: str | None = None) -> Any:
    """Row ``i`` of ``graph_feat`` (``[batch_size, *]``) for every node of graph ``i``."""
    return _broadcast("broadcast_nodes", graph, graph_feat, "nodes", ntype)


def broadcast_edges(graph: Graph, graph_feat: Any, *, etype: Any = None) -> Any:
    """Row ``i`` of ``graph_feat`` (``[batch_size, *]``) for every edge of graph ``i``."""
    return _broadcast("broadcast_edges", graph, graph_feat, "edges", etype)


def _topk(
    where: str, graph: Any, feat: str, k: int, descending: bool, sortby: Any, kind: str, typ: Any
) -> tuple[Any, Any]:
    check_graph(where, graph)
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"{where}: k must be an int >= 0, got {k!r}")
    ptr, frame = _segments(graph, kind, typ)
    x = frame[feat]
    if x.ndim != 2:
        raise ValueError(
            f"{where}: feature {feat!r} must have dimension 2 (rows, features), as DGL's, "
            f"got shape {tuple(x.shape)}"
        )
    if x.dtype.kind != "f":
        raise TypeError(f"{where}: feature {feat!r} must be floating point, got {x.dtype}")
    d = int(x.shape[1])
    if sortby is not None:
        if isinstance(sortby, (bool, np.bool_)) or not isinstance(sortby, (int, np.integer)):
            raise TypeError(f"{where}: sortby must be an int or None, got {sortby!r}")
        if not -d <= sortby < d:
            raise ValueError(f"{where}: sortby={sortby} is outside the {d} features")
    from arraygnn.graph.batching import host_batch_counts

    xp = graph._xp()
    b, n = int(ptr.shape[0]) - 1, int(x.shape[0])
    # the padded length from the counts the graph keeps on the host: no device sync
    host = host_batch_counts(graph, kind, typ)
    length = max(int(host.max()) if b else 0, int(k))
    owner = repeat_counts(xp, xp.arange(b, dtype=np.int64), ptr[1:] - ptr[:-1], total=n)
    slot = xp.arange(n, dtype=np.int64) - ptr[owner]
    padded = xp.full((b, length, d), -np.inf if descending else np.inf, dtype=x.dtype)
    padded[owner, slot] = x
    # stable sorts: ties keep the row order (torch's topk leaves it open)
    if sortby is not None:
        keys = padded[:, :, sortby]
        idx = xp.argsort(-keys if descending else keys, axis=1, kind="stable")[:, :k]
        out = xp.take_along_axis(padded, idx[:, :, None], axis=1)
    else:
        idx = xp.argsort(-padded if descending else padded, axis=1, kind="stable")[:, :k]
        out = xp.take_along_axis(padded, idx, axis=1)
    out[xp.isinf(out)] = 0
    return out, idx.astype(np.int64, copy=False)


def topk_nodes(
    graph: Graph,
    feat: str,
    k: int,
    *,
    descending: bool = True,
    sortby: int | None = None,
    ntype: str | None = None,
) -> tuple[Any, Any]:
    """DGL's ``topk_nodes``: per graph, the ``k`` largest (``descending=False``: smallest)
    rows of node feature ``feat`` ``[N, D]``.

    ``sortby=None`` sorts every feature column on its own: values and indices are
    ``[B, k, D]``; ``sortby=j`` ranks whole rows by column ``j``: values ``[B, k, D]``,
    indices ``[B, k]``. Indices are positions within each graph; a graph with fewer than
    ``k`` nodes gets zero rows (their indices are not meaningful, as DGL).
    """
    return _topk("topk_nodes", graph, feat, k, descending, sortby, "nodes", ntype)


def topk_edges(
    graph: Graph,
    feat: str,
    k: int,
    *,
    descending: bool = True,
    sortby: int | None = None,
    etype: Any = None,
) -> tuple[Any, Any]:
    """DGL's ``topk_edges``: :func:`topk_nodes` over the edges of each graph."""
    return _topk("topk_edges", graph, feat, k, descending, sortby, "edges", etype)
