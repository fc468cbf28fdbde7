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

from arraygnn._namespace import get_namespace
from arraygnn.nn.graph_conv import gcn_norm
from arraygnn.transforms._graph import check_data, edge_keys, refuse_other_edge_attrs
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.transforms.to_sparse_tensor import adj_t_edges, adj_t_like
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.coalesce import coalesce

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

    A ``Data`` without ``edge_index`` but with ``adj_t`` (:class:`ToSparseTensor`'s, rows
    the targets) gets ``adj_t`` normalised instead, in its layout, as PyG's ``gcn_norm`` of
    a torch sparse ``adj_t``: with ``add_self_loops=True`` every node gets a loop of weight 1
    *added* to any loop it has (the ``edge_index`` path keeps an existing loop's weight);
    degrees are ``adj_t``'s row sums. (PyG 2.8.1's ``GCNNorm`` stores ``gcn_norm``'s
    ``(adj_t, None)`` pair there; arraygnn stores the matrix.) With both, ``edge_index``
    is used and ``adj_t`` left as it was, as PyG.

    >>> from arraygnn.transforms import ToSparseTensor
    >>> d = ToSparseTensor()(Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2))
    >>> GCNNorm()(d).adj_t.toarray().round(4).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
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
        check_data(where, data, hetero=False)
        if "edge_index" not in data and "adj_t" in data:
            data.adj_t = _normalized_adj_t(where, data.adj_t, data.num_nodes, self.add_self_loops)
            return data
        if "edge_index" not in data:
            raise ValueError(f"{where}: data has no edge_index or adj_t")
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


def _normalized_adj_t(where: str, adj_t: Any, num_nodes: int | None, loops: bool) -> Any:
    """``D^-1/2 (A_t [+ I]) D^-1/2`` of a square ``adj_t`` (``D``: its row sums), in its
    layout; an added loop is summed with an existing one (torch's coalesce)."""
    ei, values = adj_t_edges(where, adj_t, num_nodes)
    n = int(adj_t.shape[0])
    if loops:
        xp = get_namespace(ei)
        ids = xp.arange(n, dtype=ei.dtype)
        ei = xp.concatenate([ei, xp.stack([ids, ids])], axis=1)
        values = xp.concatenate([values, xp.ones(n, dtype=values.dtype)])
        ei, values = coalesce(ei, values, n)
    ei, values = gcn_norm(ei, values, n, add_self_loops=False)
    return adj_t_like(adj_t, ei, values)
