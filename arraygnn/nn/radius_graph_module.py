"""DGL's graph-building layer ``RadiusGraph`` (``dgl.nn.factory``).

It holds ``r``, ``p``, ``self_loop`` and ``compute_mode`` and nothing else (no weights):
calling one builds the radius graph of the points with :func:`arraygnn.graph.radius_graph`
(an edge between every two points at most ``r`` apart in the Minkowski ``p``-norm, edges
sorted by source then destination, as DGL's). The settings are checked when the layer is
built.

>>> import numpy as np
>>> x = np.array([[0.0, 0.0, 1.0], [1.0, 0.5, 0.5], [0.5, 0.2, 0.2], [0.3, 0.2, 0.4]])
>>> g, dist = RadiusGraph(0.75)(x, get_distances=True)
>>> [a.tolist() for a in g.edges()]
[[0, 1, 2, 2, 3, 3], [3, 2, 1, 3, 0, 2]]
>>> dist.round(4).ravel().tolist()
[0.7, 0.6557, 0.6557, 0.2828, 0.7, 0.2828]
"""

from __future__ import annotations

from typing import Any

from arraygnn.graph.radius_graph import _MODES, radius_graph
from arraygnn.nn._module import Module
from arraygnn.nn.transr import check_p
from arraygnn.utils.knn import _flag, _radius

__all__ = ["RadiusGraph"]


class RadiusGraph(Module):
    """DGL's ``RadiusGraph(r, p=2, self_loop=False,
    compute_mode='donot_use_mm_for_euclid_dist')``: ``rg(x, get_distances=False)`` is
    :func:`arraygnn.graph.radius_graph` ``(x, r, p, self_loop, compute_mode,
    get_distances)`` for points ``x`` ``(N, D)``: a :class:`~arraygnn.graph.Graph` (and the
    edge lengths ``(E, 1)`` with ``get_distances=True``) on ``x``'s device."""

    def __init__(
        self,
        r: float,
        p: float = 2,
        self_loop: bool = False,
        compute_mode: str = "donot_use_mm_for_euclid_dist",
    ) -> None:
        name = "RadiusGraph"
        self.r = _radius(name, r)
        self.p = check_p(name, p)
        if not self.p >= 1:
            raise ValueError(f"{name}: p must be >= 1 (a norm), got {p}")
        self.self_loop = _flag(name, "self_loop", self_loop)
        if compute_mode not in _MODES:
            raise ValueError(f"{name}: compute_mode must be one of {_MODES}, got {compute_mode!r}")
        self.compute_mode = compute_mode

    def __call__(self, x: Any, get_distances: bool = False) -> Any:
        return radius_graph(x, self.r, self.p, self.self_loop, self.compute_mode, get_distances)

    def extra_repr(self) -> str:
        loop = ", self_loop=True" if self.self_loop else ""
        return f"r={self.r:g}, p={self.p:g}{loop}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> RadiusGraph:
    """DGL's ``RadiusGraph`` (settings only: it has no weights)."""
    return RadiusGraph(module.r, module.p, module.self_loop, module.compute_mode)
