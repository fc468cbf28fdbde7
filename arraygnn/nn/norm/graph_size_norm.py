"""PyG's ``GraphSizeNorm``: each row divided by the square root of its graph's size.

``y_i = x_i / sqrt(|V_g(i)|)``; the graph sizes are counted once (``bincount``), spread to
the rows by :func:`arraygnn.ops.gather`. No weights.

>>> import numpy as np
>>> from arraygnn.nn.norm import GraphSizeNorm
>>> GraphSizeNorm()(np.ones((5, 1)), np.array([0, 0, 0, 0, 1])).ravel().tolist()
[0.5, 0.5, 0.5, 0.5, 1.0]
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace, torch_rsqrt
from arraygnn.nn._module import Module
from arraygnn.nn.norm._graphs import check_input, graph_ids, per_row

__all__ = ["GraphSizeNorm"]


class GraphSizeNorm(Module):
    """PyG's ``torch_geometric.nn.norm.GraphSizeNorm``: call as
    ``norm(x, batch=None, batch_size=None)``.

    Shapes:
        - input / output: ``(N, *)``
    """

    def __call__(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        check_input("GraphSizeNorm", x)
        xp = get_namespace(x)
        tail = (1,) * (x.ndim - 1)
        if batch is None:
            return x * torch_rsqrt(x.dtype.type(max(x.shape[0], 1)))
        batch, size = graph_ids("GraphSizeNorm", x, batch, batch_size)
        counts = xp.bincount(batch, minlength=size).astype(x.dtype)
        inv_sqrt = torch_rsqrt(xp.maximum(counts, 1))  # an empty graph has no row to scale
        return x * per_row(inv_sqrt, batch).reshape((-1,) + tail)
