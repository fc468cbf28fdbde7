"""PyG's :class:`VirtualNode`: one extra node joined to every node in both directions.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> out = VirtualNode()(Data(edge_index=np.array([[0], [1]]), num_nodes=2))
>>> out.edge_index.tolist(), out.edge_type.tolist(), out.num_nodes
([[0, 0, 1, 2, 2], [1, 2, 2, 0, 1]], [0, 1, 1, 2, 2], 3)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph

__all__ = ["VirtualNode"]


class VirtualNode(SaidLevels, BaseTransform):
    """Append a virtual node ``N`` with edges ``i -> N`` and ``N -> i`` for every node
    (PyG's ``VirtualNode``), after the existing edges.

    ``edge_type`` (existing, else zeros in ``edge_index``'s dtype) gets ``T + 1`` for the
    edges into the virtual node and ``T + 2`` for those out of it, ``T`` the largest
    existing type (0 without edges). Node attributes (``node_attrs=``) get one zero row
    (``batch``, if named a node attribute, repeats its first entry); edge attributes
    (``edge_attrs=``) get ``2N`` zero rows, ``edge_weight`` ones; graph attributes are
    kept. ``edge_type`` is part of the structure here, not an edge attribute. An explicit
    ``num_nodes`` grows by one. ``Data`` only, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]), edge_weight=np.array([5.0]))
    >>> out = VirtualNode()(d)
    >>> out.x.ravel().tolist(), out.edge_weight.tolist()
    ([1.0, 1.0, 0.0], [5.0, 1.0, 1.0, 1.0, 1.0])
    """

    def forward(self, data: Any) -> Any:
        where = "VirtualNode"
        ei, n = checked_graph(where, data)
        structure = data.copy()
        edge_type = structure["edge_type"] if "edge_type" in structure else None
        if edge_type is not None:
            del structure["edge_type"]
            if edge_type.ndim != 1 or edge_type.shape[0] != ei.shape[1]:
                raise ValueError(
                    f"{where}: edge_type must have shape [{ei.shape[1]}], got "
                    f"{tuple(edge_type.shape)}"
                )
        levels = self.levels(where, structure)
        xp = get_namespace(ei)
        row, col = ei[0], ei[1]
        if edge_type is None:
            edge_type = xp.zeros_like(row)
        arange = xp.arange(n, dtype=ei.dtype)
        full = xp.full((n,), n, dtype=ei.dtype)
        top = int(to_numpy(edge_type.max())) if edge_type.size else 0
        new_type = xp.full((n,), top + 1, dtype=edge_type.dtype)
        for k in levels.node:
            value = data[k]
            if k == "batch" and value.shape[0]:
                pad = value[:1].copy()  # PyG: the graph of node 0 (no node: graph 0)
            else:
                pad = xp.zeros((1,) + value.shape[1:], dtype=value.dtype)
            data[k] = xp.concatenate([value, pad])
        for k in levels.edge:
            value = data[k]
            fill = xp.ones if k == "edge_weight" else xp.zeros
            data[k] = xp.concatenate([value, fill((2 * n,) + value.shape[1:], dtype=value.dtype)])
        data.edge_index = xp.stack(
            [xp.concatenate([row, arange, full]), xp.concatenate([col, full, arange])]
        )
        data.edge_type = xp.concatenate([edge_type, new_type, new_type + 1])
        if "num_nodes" in data:
            data.num_nodes = n + 1
        return data
