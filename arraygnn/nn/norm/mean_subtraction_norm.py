"""PyG's ``MeanSubtractionNorm``: each graph's mean row subtracted from its rows.

The per-graph means run in :func:`arraygnn.ops.scatter` (no loop over graphs). No weights.

>>> import numpy as np
>>> from arraygnn.nn.norm import MeanSubtractionNorm
>>> MeanSubtractionNorm()(np.array([[1.0], [3.0], [5.0]]), np.array([0, 0, 1])).ravel().tolist()
[-1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn._module import Module
from arraygnn.nn.norm._graphs import check_input, graph_ids, graph_mean, per_row, rows_mean

__all__ = ["MeanSubtractionNorm"]


class MeanSubtractionNorm(Module):
    """PyG's ``torch_geometric.nn.norm.MeanSubtractionNorm``: call as
    ``norm(x, batch=None, dim_size=None)`` (``dim_size`` the number of graphs, left out:
    ``batch.max() + 1``).

    Shapes:
        - input / output: ``(N, *)``
    """

    def __call__(self, x: Any, batch: Any = None, dim_size: int | None = None) -> Any:
        check_input("MeanSubtractionNorm", x)
        if batch is None:
            return x - rows_mean(x)
        batch, size = graph_ids("MeanSubtractionNorm", x, batch, dim_size, "dim_size")
        return x - per_row(graph_mean(x, batch, size), batch)
