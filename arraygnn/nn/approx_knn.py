"""PyG's approximate k-nearest-neighbour search ``approx_knn`` / ``approx_knn_graph``
(``torch_geometric.nn.pool``), by pynndescent's ``NNDescent``.

Same arguments and index layout as the exact :func:`arraygnn.utils.knn` /
:func:`arraygnn.utils.knn_graph`: ``approx_knn(x, y, k)[0]`` indexes ``y`` (the centres),
``[1]`` indexes ``x``; ``approx_knn_graph`` gives ``[neighbour, centre]`` for
``flow='source_to_target'``. As PyG, ``x`` and ``y`` are shifted and scaled together into
``[0, 1]`` and the example id is appended as one more coordinate spaced ``2 F`` apart
(``F`` channels), farther than any two points of one example, so one ``NNDescent`` index
serves every example; ``cosine=True`` (not in PyG's version) scales the rows to unit length
first, as :func:`arraygnn.utils.knn` does.

RULE: differences from PyG, all in the direction of the exact functions: a neighbour from
another example (PyG returns them for an example with fewer than ``k`` points) is dropped;
each centre's neighbours are sorted by distance (recomputed in float64), then index;
``approx_knn_graph(loop=False)`` keeps at most ``k`` neighbours per point (PyG searches
``k + 1`` and drops the point itself, which can leave ``k + 1`` where it was not found).
RULE: the search is approximate and randomised (pynndescent's), so results can differ
between runs and from the exact functions; on small inputs it is usually exact.
RULE: pynndescent runs on the host: CuPy input is copied to the host and the index back
(one round trip per call). int64 ``[2, E]``; NumPy in, NumPy out; CuPy in, CuPy out.
Needs pynndescent: ``pip install 'arraygnn[pynndescent]'`` (its first call compiles Numba
code, which takes a while once).

>>> import numpy as np
>>> x = np.array([[0.0], [1.0], [3.0], [7.0]])
>>> approx_knn_graph(x, k=1).tolist()  # doctest: +SKIP
[[1, 0, 1, 2], [0, 1, 2, 3]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.utils.knn import (
    _batch,
    _coords,
    _flag,
    _flow,
    _give_back,
    _point_pair,
    _positive_int,
    _unit_rows,
)

__all__ = ["approx_knn", "approx_knn_graph"]


def _import_nndescent(where: str) -> Any:
    try:
        from pynndescent import NNDescent
    except ImportError as err:
        raise ImportError(
            f"{where} needs pynndescent: pip install 'arraygnn[pynndescent]'"
        ) from err
    return NNDescent


def _example_ids(where: str, name: str, batch: Any, n: int) -> np.ndarray:
    """``batch`` checked as :func:`arraygnn.utils.knn` checks it (sorted, non-negative
    ints, one per point), as an int64 host vector; zeros for None."""
    host = _batch(where, name, batch, n)
    return np.zeros(n, np.int64) if host is None else host


def _search(
    where: str,
    xh: np.ndarray,
    yh: np.ndarray,
    k: int,
    bx: np.ndarray,
    by: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows into y, cols into x)`` int64, grouped by row, each row by distance then
    column: up to ``k`` approximate nearest points of ``x`` of the row's example."""
    NNDescent = _import_nndescent(where)
    if xh.shape[0] <= k:  # every point of x is a neighbour: no search (NNDescent needs 2+)
        rows = np.repeat(np.arange(yh.shape[0]), xh.shape[0])
        cols = np.tile(np.arange(xh.shape[0]), yh.shape[0])
        return _ranked(xh, yh, rows, cols, bx[cols] == by[rows])
    low = min(xh.min(), yh.min())
    span = max(xh.max(), yh.max()) - low
    span = span if span > 0 else 1.0  # all coordinates equal: PyG divides by 0 here
    f = xh.shape[1]
    xa = np.concatenate([(xh - low) / span, (2.0 * f * bx)[:, None]], axis=1)
    ya = np.concatenate([(yh - low) / span, (2.0 * f * by)[:, None]], axis=1)
    cols, dist = NNDescent(xa).query(ya, k=min(k, xa.shape[0]))
    cols = cols.astype(np.int64)
    rows = np.broadcast_to(np.arange(ya.shape[0])[:, None], cols.shape)
    ok = np.isfinite(dist) & (cols >= 0)
    ok &= bx[np.where(ok, cols, 0)] == by[:, None]  # no neighbour from another example
    return _ranked(xh, yh, rows, cols, ok)


def _ranked(
    xh: np.ndarray, yh: np.ndarray, rows: np.ndarray, cols: np.ndarray, ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``ok`` keeps, sorted by row, float64 distance (pynndescent's float32 ones
    round ties apart), column."""
    rows, cols = rows[ok].astype(np.int64), cols[ok]
    diff = xh[cols] - yh[rows]
    order = np.lexsort((cols, np.einsum("ij,ij->i", diff, diff), rows))
    return rows[order], cols[order]


def approx_knn(
    x: Any,
    y: Any,
    k: int,
    batch_x: Any = None,
    batch_y: Any = None,
    cosine: bool = False,
) -> Any:
    """For every point of ``y``, about its ``k`` nearest points of ``x`` (PyG's
    ``approx_knn``; ``cosine`` as :func:`arraygnn.utils.knn`).

    Returns ``[2, E]`` int64: row 0 indexes ``y``, row 1 ``x``, grouped by ``y`` index and
    sorted by distance, then index; at most ``k`` per point, only from its example
    (``batch_x`` / ``batch_y``: sorted example ids, as :func:`arraygnn.utils.knn`
    requires; None is one example). 1-D ``x`` /
    ``y`` are one coordinate per point. See the module notes.
    """
    where = "approx_knn"
    xp = get_namespace(x, y, batch_x, batch_y)
    xh, yh = _point_pair(where, x, y)
    k = _positive_int(where, "k", k)
    cosine = _flag(where, "cosine", cosine)
    bx = _example_ids(where, "batch_x", batch_x, xh.shape[0])
    by = _example_ids(where, "batch_y", batch_y, yh.shape[0])
    if xh.shape[0] == 0 or yh.shape[0] == 0:
        _import_nndescent(where)
        return _give_back(xp, np.zeros((2, 0), np.int64))
    if cosine:
        xh, yh = _unit_rows(xh), _unit_rows(yh)
    rows, cols = _search(where, xh, yh, k, bx, by)
    return _give_back(xp, np.stack([rows, cols]))


def approx_knn_graph(
    x: Any,
    k: int,
    batch: Any = None,
    loop: bool = False,
    flow: str = "source_to_target",
    cosine: bool = False,
) -> Any:
    """About the ``k``-nearest-neighbour graph of ``x`` (PyG's ``approx_knn_graph``).

    Edges from each point's ``k`` approximate nearest points of its example (``batch``);
    ``loop=False`` leaves the point itself out (``k + 1`` searched, itself dropped, at
    most ``k`` kept). ``flow='source_to_target'``: ``[neighbour, centre]``;
    ``'target_to_source'``: rows swapped. int64 ``[2, E]`` grouped by centre. See the
    module notes.
    """
    where = "approx_knn_graph"
    xp = get_namespace(x, batch)
    xh = _coords(where, "x", x)
    k = _positive_int(where, "k", k)
    loop = _flag(where, "loop", loop)
    flow = _flow(where, flow)
    cosine = _flag(where, "cosine", cosine)
    b = _example_ids(where, "batch", batch, xh.shape[0])
    if xh.shape[0] == 0:
        _import_nndescent(where)
        return _give_back(xp, np.zeros((2, 0), np.int64))
    if cosine:
        xh = _unit_rows(xh)
    centre, nbr = _search(where, xh, xh, k if loop else k + 1, b, b)
    if not loop:
        other = centre != nbr
        centre, nbr = centre[other], nbr[other]
        per = np.bincount(centre, minlength=xh.shape[0])
        pos = np.arange(centre.shape[0]) - (np.cumsum(per) - per)[centre]
        keep = pos < k
        centre, nbr = centre[keep], nbr[keep]
    pair = (nbr, centre) if flow == "source_to_target" else (centre, nbr)
    return _give_back(xp, np.stack(pair))
