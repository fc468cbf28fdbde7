"""PyG's :class:`SIGN`: precomputed diffusions ``x1 .. xK`` of the node features.

Each step is one ``arraygnn.ops.spmm`` over the symmetric-normalised edge weights (no
per-edge [E, F] messages).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.array([[1.0], [2.0]]), edge_index=np.array([[0, 1], [1, 0]]))
>>> out = SIGN(2)(d)
>>> out.x1.ravel().tolist(), out.x2.ravel().tolist()
([2.0, 1.0], [1.0, 2.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, torch_rsqrt
from arraygnn.transforms._graph import int_arg
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph

__all__ = ["SIGN"]


class SIGN(BaseTransform):
    """Add ``x1 .. xK`` with ``x_i = A_hat^T x_(i-1)`` (PyG's ``SIGN``): ``A_hat`` weighs
    edge ``(s, t)`` by ``d_s^-1/2 w_st d_t^-1/2`` with ``w`` the ``edge_weight`` (float32
    ones without one) and ``d`` the weighted in-degree (``0^-1/2 := 0``); row ``t`` of
    ``x_i`` sums the weighted rows of its sources. No self-loops are added. ``Data`` only.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 1], [1, 2]]))
    >>> SIGN(1)(d).x1.ravel().tolist()  # node 0 has in-degree 0: d_0^-1/2 := 0
    [0.0, 0.0, 1.0]
    """

    def __init__(self, K: int) -> None:
        self.K = int_arg("SIGN", "K", K)

    @property
    def node_outputs(self) -> tuple[str, ...]:
        """The per-node arrays it adds (a ``Batch`` keeps records for them)."""
        return tuple(f"x{i}" for i in range(1, self.K + 1))

    def forward(self, data: Any) -> Any:
        where = "SIGN"
        ei, n = checked_graph(where, data)
        if "x" not in data:
            raise ValueError(f"{where}: data has no x")
        xp = get_namespace(ei)
        row, col = ei[0], ei[1]
        w = data.edge_weight if "edge_weight" in data else xp.ones(ei.shape[1], np.float32)
        if w.dtype.kind != "f":  # PyG's deg.pow_(-0.5) fails on integers too
            raise TypeError(f"{where}: edge_weight must hold floats, got dtype {w.dtype}")
        deg = ops.scatter(w, col, n, "sum")
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = torch_rsqrt(deg)
        inv = xp.where(xp.isinf(inv), w.dtype.type(0), inv)
        w = inv[row] * w * inv[col]
        x = data.x
        for i in range(1, self.K + 1):
            x = ops.spmm(ei, x, edge_weight=w, num_dst_nodes=n)
            data[f"x{i}"] = x
        return data

    def __repr__(self) -> str:
        return f"SIGN(K={self.K})"
