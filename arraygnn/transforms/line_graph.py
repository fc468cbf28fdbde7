"""PyG's :class:`LineGraph`: the graph whose nodes are the edges of the input.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)
>>> out = LineGraph()(d)
>>> out.edge_index.tolist(), out.num_nodes
([[0], [1]], 2)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arraygnn import ops
from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.transforms._on_batch import refuse_batch
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.undirected import is_undirected

__all__ = ["LineGraph"]


def _groups(xp: Any, counts: Any) -> tuple[Any, Any]:
    """For segments of ``counts``: ``(segment id, position in segment)`` of each slot."""
    seg = repeat_counts(xp, xp.arange(counts.shape[0]), counts)
    starts = xp.cumsum(counts) - counts
    return seg, xp.arange(seg.shape[0]) - starts[seg]


class LineGraph(SaidLevels, BaseTransform):
    """The line graph (PyG's ``LineGraph``): after coalescing, each edge becomes a node.

    Directed input (or ``force_directed=True``): node ``j`` (edge ``(u, v)``) points to
    every edge leaving ``v``; ``x`` is the coalesced ``edge_attr`` (PyG's is the input's,
    which only lines up with the nodes when the input is coalesced). Undirected input: one
    node per pair ``u < v`` (in ``(u, v)`` order), joined when the pairs share an end; ``x``
    sums ``edge_attr`` over both directions (self-loops have no node). ``edge_attr`` goes;
    ``num_nodes`` is the line graph's. The input's other node attributes and edge
    attributes besides ``edge_attr`` have no meaning there and are refused (PyG keeps them,
    out of step); graph attributes are kept. Ids keep ``edge_index``'s dtype. ``Data``
    only, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
    >>> LineGraph()(d).edge_index.tolist()
    [[0, 1], [1, 0]]
    """

    def __init__(
        self,
        force_directed: bool = False,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.force_directed = force_directed
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        where = "LineGraph"
        refuse_batch(
            where,
            data,
            "its nodes are the edges, which PyG leaves without a graph id ('batch' stale)",
        )
        ei, n = checked_graph(where, data)
        levels = self.levels(where, data)
        others = [k for k in levels.node if k != "x"] + [k for k in levels.edge if k != "edge_attr"]
        if others:
            raise ValueError(
                f"{where}: attribute(s) {others} have no meaning on the line graph (its nodes "
                "are the edges): remove them first"
            )
        xp = get_namespace(ei)
        edge_attr = data.edge_attr if "edge_attr" in data else None
        directed = self.force_directed or not is_undirected(ei, edge_attr, n)
        ei, edge_attr = coalesce(ei, edge_attr, n)
        row, col = ei[0], ei[1]
        count = xp.bincount(row, minlength=n)
        ptr = xp.cumsum(count) - count
        if directed:
            per_edge = count[col]
            new_row, pos = _groups(xp, per_edge)
            new_col = ptr[col][new_row] + pos
            data.edge_index = xp.stack([new_row, new_col]).astype(ei.dtype)
            data.x = edge_attr
            data.num_nodes = int(ei.shape[1])
        else:
            mask = row < col
            r, c = row[mask], col[mask]
            m = int(r.shape[0])
            i = xp.arange(m, dtype=ei.dtype)
            both = xp.stack([xp.concatenate([r, c]), xp.concatenate([c, r])])
            both, i = coalesce(both, xp.concatenate([i, i]), n)
            count = xp.bincount(both[0], minlength=n)
            ptr = xp.cumsum(count) - count
            seg, pos = _groups(xp, count * count)
            a, b = pos // count[seg], pos % count[seg]
            joint = xp.stack([i[ptr[seg] + a], i[ptr[seg] + b]])
            joint = coalesce(joint[:, a != b], num_nodes=m)
            if edge_attr is not None:
                data.x = ops.scatter(edge_attr[row != col], i, m, "sum")
            elif "x" in data:
                del data["x"]
            data.edge_index = joint.astype(ei.dtype)
            data.num_nodes = m
        data.edge_attr = None
        return data
