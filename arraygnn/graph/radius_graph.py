"""DGL's ``radius_graph``: an edge between every two points at most ``r`` apart.

>>> import numpy as np
>>> x = np.array([[0.0, 0.0], [0.0, 1.0], [3.0, 0.0]])
>>> g, dist = radius_graph(x, 1.0, get_distances=True)
>>> g.edges()[0].tolist(), g.edges()[1].tolist(), dist.ravel().tolist()
([0, 1], [1, 0], [1.0, 1.0])

RULE: distance ``<= r`` in the Minkowski ``p``-norm (``p >= 1``), as DGL (PyG's
      :func:`arraygnn.utils.radius_graph` uses ``< r``); edges sorted by source then
      destination (DGL's ``nonzero`` order); ``self_loop=True`` adds every ``(i, i)``.
RULE: the search is an exact k-d tree (``scipy.spatial.cKDTree``) in float64, so
      ``compute_mode`` (DGL's ``torch.cdist`` option) only is checked; distances are
      rounded to ``x``'s floating dtype (float64 for integer points) and compared there
      with ``r`` cast to it, as DGL's ``cdist(x, x) <= r`` (a float32 lattice of spacing
      ``r`` links its neighbours). CuPy points: one host round
      trip, as :mod:`arraygnn.utils.knn`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_device
from arraygnn.graph.core import DEFAULT_ETYPE, DEFAULT_NTYPE, Graph
from arraygnn.utils.knn import _coords, _flag, _radius

__all__ = ["radius_graph"]

_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


def radius_graph(
    x: Any,
    r: float,
    p: float = 2,
    self_loop: bool = False,
    compute_mode: str = "donot_use_mm_for_euclid_dist",
    get_distances: bool = False,
) -> Any:
    """The radius graph of the points ``x`` [N, D] (DGL's ``dgl.radius_graph``);
    with ``get_distances`` also the edge lengths ``[E, 1]``."""
    from scipy.spatial import cKDTree

    where = "radius_graph"
    xh = _coords(where, "x", x)
    r = _radius(where, r)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: p must be a number >= 1, got {p!r}")
    if not 1 <= float(p):
        raise ValueError(f"{where}: p must be >= 1 (a norm), got {p}")
    self_loop = _flag(where, "self_loop", self_loop)
    get_distances = _flag(where, "get_distances", get_distances)
    if compute_mode not in _MODES:
        raise ValueError(f"{where}: compute_mode must be one of {_MODES}, got {compute_mode!r}")
    if xh.shape[0] == 0:
        raise ValueError(f"{where}: x is an empty point set (DGL refuses it too)")
    n = xh.shape[0]
    # DGL compares ``cdist(x, x) <= r`` in x's floating dtype (r cast to it): search a hair
    # wider in float64, then keep the pairs whose distance, rounded to that dtype, is <= r
    dtype = np.dtype(x.dtype) if x.dtype.kind == "f" else np.dtype(np.float64)
    with np.errstate(over="ignore"):  # float16: a huge r is inf, as torch's cast
        r_cast = dtype.type(r)
    wide = float(np.nextafter(r_cast, dtype.type(np.inf)))
    tree = cKDTree(xh)
    pairs = tree.sparse_distance_matrix(tree, max(wide, r), p=float(p), output_type="ndarray")
    i, j, dist = pairs["i"].astype(np.int64), pairs["j"].astype(np.int64), pairs["v"]
    dist = dist.astype(dtype)
    keep = dist <= r_cast
    i, j, dist = i[keep], j[keep], dist[keep]
    if not self_loop:  # the ndarray output holds every pair, zero distances included
        keep = i != j
        i, j, dist = i[keep], j[keep], dist[keep]
    order = np.lexsort((j, i))
    i, j, dist = i[order], j[order], dist[order]
    xp = get_namespace(x)
    device = "cpu" if xp is np else "cuda"
    g = Graph(
        {(DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE): (i, j)}, {DEFAULT_NTYPE: n}, validate=False
    ).to(device)
    if not get_distances:
        return g
    return g, to_device(dist[:, None], device)
