"""PyG's :class:`LargestConnectedComponents`: the subgraph of the ``num_components``
largest (weakly or strongly) connected components, found by
``scipy.sparse.csgraph.connected_components``.

On CuPy the component labels are computed on the host (one copy of ``edge_index`` to the
CPU, SciPy's csgraph); the subgraph itself is cut on the device.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.arange(5.0)[:, None], edge_index=np.array([[0, 1, 3], [1, 2, 4]]))
>>> out = LargestConnectedComponents()(d)
>>> out.x.ravel().tolist(), out.edge_index.tolist()
([0.0, 1.0, 2.0], [[0, 1], [1, 2]])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids_with
from arraygnn._namespace import to_numpy
from arraygnn.transforms._graph import (
    check_data,
    edge_index_of,
    int_arg,
    namespace_of,
    node_count,
)
from arraygnn.transforms.attrs import SaidLevels
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils.subgraph import subgraph

__all__ = ["LargestConnectedComponents"]


class LargestConnectedComponents(SaidLevels, BaseTransform):
    """Keep the nodes of the ``num_components`` largest connected components (PyG's
    ``LargestConnectedComponents``); ``connection``: ``'weak'`` (edge directions ignored)
    or ``'strong'``. A graph with at most ``num_components`` components comes back
    unchanged. Otherwise PyG's ``Data.subgraph``: node attributes (``node_attrs=``) keep
    the kept nodes' rows, edge attributes (``edge_attrs=``) the rows of the edges between
    them, ``edge_index`` is renumbered (dtype kept), an explicit ``num_nodes`` updated.
    Components of equal size are ranked as PyG ranks them (NumPy's ``argsort`` of the
    sizes). ``Data`` only, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1, 2], [1, 0, 3]]), num_nodes=4)
    >>> LargestConnectedComponents(connection="strong")(d).num_nodes
    2
    """

    def __init__(
        self,
        num_components: int = 1,
        connection: str = "weak",
        *,
        node_attrs: Iterable[str] | None = None,
        edge_attrs: Iterable[str] | None = None,
        graph_attrs: Iterable[str] = (),
    ) -> None:
        where = "LargestConnectedComponents"
        if connection not in ("strong", "weak"):
            raise ValueError(f"{where}: connection must be 'strong' or 'weak', got {connection!r}")
        self.num_components = int_arg(where, "num_components", num_components, 1)
        self.connection = connection
        self.node_attrs, self.edge_attrs, self.graph_attrs = node_attrs, edge_attrs, graph_attrs

    def forward(self, data: Any) -> Any:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components

        where = "LargestConnectedComponents"
        check_data(where, data, hetero=False)
        levels = self.levels(where, data)
        n = node_count(where, data)
        if "edge_index" not in data:
            raise ValueError(f"{where}: data has no edge_index")
        ei = edge_index_of(where, data, n, n)
        host = to_numpy(ei)
        adj = sp.coo_matrix((np.ones(host.shape[1], np.float32), (host[0], host[1])), shape=(n, n))
        count, component = connected_components(adj, connection=self.connection)
        if count <= self.num_components:
            return data
        _, sizes = unique_ids_with(np, component, count, return_counts=True)
        keep = np.isin(component, sizes.argsort()[-self.num_components :])
        xp = namespace_of(data)
        mask = xp.asarray(keep)
        data.edge_index, _, edge_mask = subgraph(
            mask, ei, relabel_nodes=True, num_nodes=n, return_edge_mask=True
        )
        for k in levels.node:
            data[k] = data[k][mask]
        for k in levels.edge:
            data[k] = data[k][edge_mask]
        if "num_nodes" in data:
            data.num_nodes = int(keep.sum())
        return data

    def __repr__(self) -> str:
        return f"LargestConnectedComponents({self.num_components})"
