"""PyG's :class:`ToDense`: the graph as a dense adjacency ``adj`` [N, N, ...] and a node
``mask``, node arrays padded to ``num_nodes`` rows.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> out = ToDense(3)(Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]])))
>>> out.adj.tolist(), out.mask.tolist()
([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [True, True, False])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace
from arraygnn.transforms._graph import int_arg, refuse_other_edge_attrs
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph

__all__ = ["ToDense"]


class ToDense(SaidLevels, BaseTransform):
    """Densify (PyG's ``ToDense``): ``adj[i, j]`` sums the ``edge_attr`` rows of the edges
    ``(i, j)`` (float32 ones without ``edge_attr``; a boolean ``edge_attr`` is or-ed; one
    ``arraygnn.ops.scatter`` over ``i * N + j``), ``edge_index`` and ``edge_attr`` go,
    ``mask`` [N] marks the real nodes.
    ``num_nodes``: the padded size (at least the graph's; default the graph's). Node
    attributes (``node_attrs=``, default ``x`` / ``pos``; PyG also pads a ``y`` of
    ``num_nodes`` rows, guessed by its length: name it here) get zero rows; an explicit
    ``num_nodes`` becomes the padded size. Edge attributes other than ``edge_attr`` are
    refused (they would outlive ``edge_index``). ``Data`` only.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 0], [1, 1]]), edge_attr=np.ones((2, 2)), num_nodes=2)
    >>> ToDense()(d).adj[0, 1].tolist()
    [2.0, 2.0]
    """

    def __init__(
        self,
        num_nodes: int | None = None,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.num_nodes = None if num_nodes is None else int_arg("ToDense", "num_nodes", num_nodes)
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        where = "ToDense"
        ei, orig = checked_graph(where, data)
        levels = self.levels(where, data)
        refuse_other_edge_attrs(where, levels.edge, ["edge_attr"], "edge_index is removed")
        n = orig if self.num_nodes is None else self.num_nodes
        if n < orig:
            raise ValueError(f"{where}: num_nodes={n} is smaller than the graph's {orig} nodes")
        xp = get_namespace(ei)
        attr = data.edge_attr if "edge_attr" in data else xp.ones(ei.shape[1], np.float32)
        flat = ei[0].astype(np.int64) * n + ei[1].astype(np.int64)
        flags = attr.dtype.kind == "b"  # summed as counts: a logical or, as torch's sparse sum
        adj = ops.scatter(attr.astype(np.int64) if flags else attr, flat, n * n, "sum")
        adj = adj > 0 if flags else adj
        data.adj = adj.reshape((n, n) + attr.shape[1:])
        data.edge_index = None
        data.edge_attr = None
        mask = xp.zeros(n, dtype=bool)
        mask[:orig] = True
        data.mask = mask
        for k in levels.node:
            v = data[k]
            data[k] = xp.concatenate([v, xp.zeros((n - orig,) + v.shape[1:], v.dtype)])
        if "num_nodes" in data:
            data.num_nodes = n
        return data

    def __repr__(self) -> str:
        return "ToDense()" if self.num_nodes is None else f"ToDense(num_nodes={self.num_nodes})"
