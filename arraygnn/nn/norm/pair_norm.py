"""PyG's ``PairNorm``: centre each graph, then rescale to a fixed mean squared row norm.

``x_c = x - mean_g(x)``; ``y = scale * x_c / sqrt(eps + mean_g(||x_c||^2))`` or, with
``scale_individually=True``, ``y = scale * x_c / (eps + ||x_c||)`` per row. The per-graph
means run in :func:`arraygnn.ops.scatter` (no loop over graphs). No weights.

>>> import numpy as np
>>> from arraygnn.nn.norm import PairNorm
>>> x = np.array([[1.0, 0.0], [3.0, 0.0]])
>>> PairNorm(eps=0.0)(x).tolist()
[[-1.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module
from arraygnn.nn.norm._graphs import check_input, graph_ids, graph_mean, number, per_row, rows_mean

__all__ = ["PairNorm"]


class PairNorm(Module):
    """PyG's ``torch_geometric.nn.norm.PairNorm``: call as
    ``norm(x, batch=None, batch_size=None)``.

    Args:
        scale: the target row norm (default ``1``).
        scale_individually: scale every row to ``scale`` (default ``False``).
        eps: numerical guard (default ``1e-5``).

    Shapes:
        - input / output: ``(N, F)``
    """

    def __init__(
        self, scale: float = 1.0, scale_individually: bool = False, eps: float = 1e-5
    ) -> None:
        self.scale = number("PairNorm", "scale", scale, None)
        self.scale_individually = bool(scale_individually)
        self.eps = number("PairNorm", "eps", eps)

    def __call__(self, x: Any, batch: Any = None, batch_size: int | None = None) -> Any:
        check_input("PairNorm", x)
        if x.ndim != 2:
            raise ValueError(f"PairNorm: x must be (N, F), got shape {tuple(x.shape)}")
        xp = get_namespace(x)
        if batch is None:
            x = x - rows_mean(x)
        else:
            batch, size = graph_ids("PairNorm", x, batch, batch_size)
            x = x - per_row(graph_mean(x, batch, size), batch)
        if self.scale_individually:
            return self.scale * x / (self.eps + xp.sqrt((x * x).sum(axis=-1, keepdims=True)))
        sq = (x * x).sum(axis=-1, keepdims=True)
        if batch is None:
            return self.scale * x / xp.sqrt(self.eps + rows_mean(sq, None))
        return self.scale * x / xp.sqrt(self.eps + per_row(graph_mean(sq, batch, size), batch))

    def extra_repr(self) -> str:
        return f"scale={self.scale}, scale_individually={self.scale_individually}"
