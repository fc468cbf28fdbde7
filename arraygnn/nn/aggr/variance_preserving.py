"""PyG's ``VariancePreservingAggregation``: each group's sum divided by the square root of
its size, ``sum(x) / max(sqrt(count), 1)`` (Schneckenreiter et al., "GNN-VPA"), so that
the variance of independent inputs is kept. One segment sum (:mod:`arraygnn.ops`), any index
order, ``ptr`` too; an empty group gives 0.

>>> import numpy as np
>>> from arraygnn.nn.aggr import VariancePreservingAggregation
>>> x = np.array([[1.0], [3.0], [4.0]])
>>> VariancePreservingAggregation()(x, np.array([0, 0, 2]), dim_size=4).ravel().tolist()
[2.82842712474619, 0.0, 4.0, 0.0]
"""

from __future__ import annotations

from typing import Any

from arraygnn.nn.aggr.base import Aggregation, Groups

__all__ = ["VariancePreservingAggregation"]


class VariancePreservingAggregation(Aggregation):
    """PyG's ``VariancePreservingAggregation()``: ``sum / clamp(sqrt(count), min=1)``.

    Shapes:
        - input: ``x`` ``(*, E, *)``, ``index`` ``(E,)`` or ``ptr`` ``(G + 1,)``
        - output: ``x``'s shape with ``E`` replaced by ``G``
    """

    def _aggregate(self, groups: Groups) -> Any:
        values = groups.float_x0()
        out = groups.reduce("sum", values)
        xp = groups.xp
        scale = xp.maximum(xp.sqrt(groups.counts().astype(out.dtype)), out.dtype.type(1))
        return out / scale.reshape((-1,) + (1,) * (out.ndim - 1))
