"""DGL's k-nearest-neighbour graph builders: ``knn_graph`` and ``segmented_knn_graph``.

The nodes are the points (in the order of ``x``); the predecessors of each node are its
``k`` nearest points, the point itself included unless ``exclude_self=True`` (DGL's
default keeps it). Every ``algorithm`` name of DGL is accepted and all give the exact
neighbours, found with the k-d tree search of :func:`arraygnn.utils.knn` (DGL's
``'nn-descent'`` is approximate; here it is exact).

RULE: edges go from a neighbour (``src``) to its centre (``dst``), sorted by centre, then by
distance, then by neighbour id (a tie goes to the lower id).
RULE: as DGL, when a point set has fewer than ``k`` points, ``k`` is lowered to the smallest
set's size for every set, with a warning; a batched result (3-D ``x`` or
``segmented_knn_graph``) records ``batch_num_nodes`` / ``batch_num_edges``.
RULE: ``dist='cosine'`` scales rows to exactly unit length (DGL divides by ``norm +
1e-5``: rows of norm near 1e-5 or below rank by length there); ``k >= 1`` always (DGL lets
``k=0`` through with ``exclude_self=True``); ``[N, 0]`` points are all at distance 0.
RULE: on CuPy points the search is a host round trip (:mod:`arraygnn.utils.knn`); the graph
is built on the points' device.

>>> import numpy as np
>>> x = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0]])
>>> g = knn_graph(x, 2)
>>> [a.tolist() for a in g.edges()]
[[0, 1, 1, 0, 2, 1], [0, 0, 1, 1, 2, 2]]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph.core import Graph, graph
from arraygnn.utils.knn import _coords, _flag, _positive_int, _search, _unit_rows

__all__ = ["knn_graph", "segmented_knn_graph"]

#: DGL's algorithm names; every one runs the same exact k-d tree search here
ALGORITHMS = ("bruteforce-blas", "bruteforce", "bruteforce-sharemem", "kd-tree", "nn-descent")
DISTANCES = ("euclidean", "cosine")


def _options(where: str, algorithm: Any, dist: Any, exclude_self: Any) -> bool:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"{where}: algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    if dist not in DISTANCES:
        raise ValueError(f"{where}: dist must be one of {DISTANCES}, got {dist!r}")
    return _flag(where, "exclude_self", exclude_self)


def _build(
    where: str,
    points: np.ndarray,
    k: int,
    segs: np.ndarray,
    dist: str,
    exclude_self: bool,
    xp: Any,
    batched: bool,
) -> Graph:
    """The graph of ``points`` (float64 host [N, D]) cut into point sets of ``segs`` sizes."""
    want = k + 1 if exclude_self else k  # DGL: k + 1 with the point itself, which then goes
    smallest = int(segs.min())
    if want > smallest:
        warnings.warn(
            f"{where}: k={k}{' (+1 for the point itself)' if exclude_self else ''} is more "
            f"than the smallest point set ({smallest} points); k={smallest - exclude_self} is "
            "used for every set (DGL's rule)",
            UserWarning,
            stacklevel=3,
        )
        want = smallest
    if points.shape[1] == 0:  # no coordinates: every distance is 0 (DGL's too), ties by id
        points = np.zeros((points.shape[0], 1))
    if dist == "cosine":
        points = _unit_rows(points)
    ptr = np.concatenate([[0], np.cumsum(segs)]).astype(np.int64)
    neighbours = want - exclude_self
    if neighbours == 0:  # one-point sets without the point itself: no edges
        centre = nbr = np.zeros(0, np.int64)
    else:
        centre, nbr = _search(points, points, ptr, ptr, neighbours, math.inf, exclude_self, 1)
    n = int(points.shape[0])
    g = graph((xp.asarray(nbr), xp.asarray(centre)), num_nodes=n)
    if batched:
        g.set_batch_num_nodes(xp.asarray(segs.astype(np.int64)))
        g.set_batch_num_edges(xp.asarray(segs.astype(np.int64) * neighbours))
    return g


def knn_graph(
    x: Any,
    k: int,
    algorithm: str = "bruteforce-blas",
    dist: str = "euclidean",
    exclude_self: bool = False,
) -> Graph:
    """DGL's ``dgl.knn_graph``: the k-NN graph of the points ``x``.

    ``x`` is ``[N, D]`` (one point set) or ``[B, M, D]`` (``B`` sets of ``M`` points, node
    ``i * M + j`` is point ``j`` of set ``i``; the result is batched). Each node gets edges
    from its ``k`` nearest points of its set (itself included unless ``exclude_self``).
    ``dist``: ``'euclidean'`` or ``'cosine'`` (``1 - cos``: the rows are scaled to unit
    length, a zero row stays zero, and ranked by Euclidean distance, the same order).
    ``algorithm``: any of DGL's names; all are exact here. Edge order: see the module notes.

    >>> import numpy as np
    >>> x = np.array([[[0.0], [1.0], [3.0]], [[0.0], [5.0], [6.0]]])
    >>> g = knn_graph(x, 1, exclude_self=True)
    >>> [a.tolist() for a in g.edges()], g.batch_num_nodes().tolist()
    ([[1, 0, 1, 4, 5, 4], [0, 1, 2, 3, 4, 5]], [3, 3])
    """
    where = "knn_graph"
    exclude_self = _options(where, algorithm, dist, exclude_self)
    k = _positive_int(where, "k", k)
    xp = get_namespace(x)
    if getattr(x, "ndim", None) == 3:
        sets, per_set, width = (int(s) for s in x.shape)
        points = _coords(where, "x", x.reshape(sets * per_set, width))
        segs = np.full(sets, per_set, np.int64)
        batched = True
    else:
        points = _coords(where, "x", x)
        segs = np.array([points.shape[0]], np.int64)
        batched = False
    if points.shape[0] == 0:
        raise ValueError(f"{where}: x is an empty point set (DGL refuses one too)")
    return _build(where, points, k, segs, dist, exclude_self, xp, batched)


def segmented_knn_graph(
    x: Any,
    k: int,
    segs: Sequence[int] | Any,
    algorithm: str = "bruteforce-blas",
    dist: str = "euclidean",
    exclude_self: bool = False,
) -> Graph:
    """DGL's ``dgl.segmented_knn_graph``: the k-NN graphs of point sets of different sizes,
    stored one after another in ``x`` [N, D], batched into one graph.

    ``segs``: the number of points in each set (ints >= 1 adding up to ``N``; a list or a
    1-D integer array). Arguments and edge order otherwise as :func:`knn_graph`.

    >>> import numpy as np
    >>> x = np.array([[0.0], [1.0], [3.0], [10.0], [12.0]])
    >>> g = segmented_knn_graph(x, 2, [3, 2])
    >>> [a.tolist() for a in g.edges()], g.batch_num_edges().tolist()
    ([[0, 1, 1, 0, 2, 1, 3, 4, 4, 3], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]], [6, 4])
    """
    where = "segmented_knn_graph"
    exclude_self = _options(where, algorithm, dist, exclude_self)
    k = _positive_int(where, "k", k)
    xp = get_namespace(x)
    if getattr(x, "ndim", None) != 2:
        shape = tuple(x.shape) if hasattr(x, "shape") else type(x).__name__
        raise ValueError(f"{where}: x must be [N, D] (points of all sets), got {shape}")
    points = _coords(where, "x", x)
    if points.shape[0] == 0:
        raise ValueError(f"{where}: x is an empty point set (DGL refuses one too)")
    sizes = _segs(where, segs, int(points.shape[0]))
    return _build(where, points, k, sizes, dist, exclude_self, xp, True)


def _segs(where: str, segs: Any, n: int) -> np.ndarray:
    """``segs`` as an int64 host vector of sizes >= 1 adding up to ``n``."""
    try:
        arr = np.asarray(segs.get() if hasattr(segs, "get") else segs)
    except (TypeError, ValueError):
        arr = np.asarray([None])
    if arr.ndim != 1 or arr.shape[0] == 0 or arr.dtype.kind not in "iu":
        raise TypeError(
            f"{where}: segs must be a non-empty list (or 1-D array) of ints, got {segs!r}"
        )
    arr = arr.astype(np.int64)
    if int(arr.min()) < 1:
        i = int(np.argmin(arr))
        raise ValueError(f"{where}: segs[{i}] is {int(arr[i])}; every point set needs a point")
    if int(arr.sum()) != n:
        raise ValueError(f"{where}: segs add up to {int(arr.sum())} but x has {n} points")
    return arr
