"""PyG's :class:`FeaturePropagation` (Rossi et al., 2021): fill missing node features by
propagating the known ones, ``X <- A_sym X`` with the known entries reset after each step.

``A_sym = D^-1/2 A D^-1/2`` (weights from ``edge_weight``, else ``edge_attr``, summed over
parallel edges; without weights parallel edges count once, as PyG's sparse adjacency;
in-degrees; no self-loops), one :func:`arraygnn.ops.spmm` per iteration over a CSR built
once: no [E, F] messages.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> x = np.array([[1.0], [np.nan], [3.0]])
>>> d = Data(x=x, edge_index=np.array([[0, 2, 1, 1], [1, 1, 0, 2]]))
>>> [round(v, 4) for v in FeaturePropagation(np.isnan(x), 1)(d).x.ravel().tolist()]
[1.0, 2.8284, 3.0]
"""

from __future__ import annotations

from typing import Any

from arraygnn import ops
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.nn.graph_conv import gcn_norm
from arraygnn.ops.csr import to_csr
from arraygnn.transforms._graph import check_data, int_arg
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.transforms.to_sparse_tensor import adj_t_edges
from arraygnn.utils._checks import check_bool_array
from arraygnn.utils.coalesce import coalesce

__all__ = ["FeaturePropagation"]


class FeaturePropagation(BaseTransform):
    """Replace ``x`` by its feature propagation (PyG's ``FeaturePropagation``):
    ``missing_mask`` [N, F] bool marks the missing entries (their values in ``x`` are
    ignored, NaN allowed); ``num_iterations`` steps. ``Data`` only. A ``Data`` without
    ``edge_index`` may hold ``adj_t`` (:class:`ToSparseTensor`'s, [N, N], rows the
    targets, floating values as the weights) instead, as in PyG.

    >>> import numpy as np
    >>> FeaturePropagation(np.zeros((2, 2), bool))
    FeaturePropagation(missing_features=0.0%, num_iterations=40)
    """

    def __init__(self, missing_mask: Any, num_iterations: int = 40) -> None:
        check_bool_array("FeaturePropagation", "missing_mask", missing_mask)
        if missing_mask.ndim != 2:
            raise ValueError(
                f"FeaturePropagation: missing_mask must be [N, F], got {tuple(missing_mask.shape)}"
            )
        self.missing_mask = missing_mask
        self.num_iterations = int_arg("FeaturePropagation", "num_iterations", num_iterations)

    def forward(self, data: Any) -> Any:
        where = "FeaturePropagation"
        check_data(where, data, hetero=False)
        if "x" not in data:
            raise ValueError(f"{where}: data has no x")
        if "edge_index" not in data and "adj_t" in data:  # PyG's sparse-adjacency input
            n = int(data.x.shape[0])
            ei, weight = adj_t_edges(where, data.adj_t, n)
        elif "edge_index" not in data:
            raise ValueError(f"{where}: data has no edge_index or adj_t")
        else:
            ei, n = checked_graph(where, data)
            weight = data.edge_attr if "edge_attr" in data else None
            weight = data.edge_weight if "edge_weight" in data else weight
        x = data.x
        if x.dtype.kind != "f" or tuple(x.shape) != tuple(self.missing_mask.shape):
            raise ValueError(
                f"{where}: x must be a float array of missing_mask's shape "
                f"{tuple(self.missing_mask.shape)}, got {x.dtype} {tuple(x.shape)}"
            )
        xp = get_namespace(x, ei)
        missing = xp.asarray(self.missing_mask)
        if weight is not None and (weight.ndim != 1 or weight.shape[0] != ei.shape[1]):
            raise ValueError(f"{where}: the edge weight must be [E], got {tuple(weight.shape)}")
        if weight is None:  # PyG's sparse adjacency: parallel edges merged, weight 1
            ei = coalesce(ei, num_nodes=n)
            weight = xp.ones(int(ei.shape[1]), x.dtype)
        else:  # parallel edges' weights summed
            ei, weight = coalesce(ei, weight.astype(x.dtype), n)
        ei, weight = gcn_norm(ei, weight, n, add_self_loops=False)
        csr = to_csr(ei, n, n)
        known = ~missing
        start = xp.where(missing, xp.zeros((), x.dtype), x)
        out = start
        for _ in range(self.num_iterations):
            out = ops.spmm(csr, out, edge_weight=weight)
            out = xp.where(known, start, out)
        data.x = out
        return data

    def __repr__(self) -> str:
        mask = to_numpy(self.missing_mask)
        share = float(mask.sum()) / mask.size if mask.size else 0.0
        return (
            f"FeaturePropagation(missing_features={100 * share:.1f}%, "
            f"num_iterations={self.num_iterations})"
        )
