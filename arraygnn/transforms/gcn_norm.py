"""PyG's :class:`GCNNorm`: the GCN edge weights ``d_s^-1/2 w_st d_t^-1/2`` stored as
``edge_weight``, by :func:`arraygnn.nn.graph_conv.gcn_norm` (the layers' own function).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0], [1]]), num_nodes=2)
>>> GCNNorm()(d).edge_weight.astype(float).round(4).tolist()
[0.7071, 1.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arraygnn.nn.graph_conv import gcn_norm
from arraygnn.transforms._graph import edge_keys, refuse_other_edge_attrs
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils._checks import bool_arg

__all__ = ["GCNNorm"]


class GCNNorm(BaseTransform):
    """Replace ``edge_weight`` by its GCN normalisation (PyG's ``GCNNorm``): with
    ``add_self_loops=True`` every node gets one self-loop (weight 1, an existing loop keeps
    its weight, as ``add_remaining_self_loops``), so the edges are reordered and any other
    per-edge array (``edge_attrs=``) is refused. Without ``edge_weight`` the weights start
    as float32 ones. ``Data`` only, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    >>> GCNNorm(add_self_loops=False)(d).edge_weight.tolist()
    [1.0, 1.0]
    """

    def __init__(
        self,
        add_self_loops: bool = True,
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        self.add_self_loops = bool_arg("GCNNorm", "add_self_loops", add_self_loops)
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        where = "GCNNorm"
        ei, n = checked_graph(where, data)
        keys = edge_keys(where, data, data, self.node_attrs, self.edge_attrs, self.graph_attrs)
        if self.add_self_loops:
            refuse_other_edge_attrs(where, keys, ["edge_weight"], "self-loops are added")
        weight = data.edge_weight if "edge_weight" in data else None
        data.edge_index, data.edge_weight = gcn_norm(
            ei, weight, n, add_self_loops=self.add_self_loops
        )
        return data

    def __repr__(self) -> str:
        return f"GCNNorm(add_self_loops={self.add_self_loops})"
