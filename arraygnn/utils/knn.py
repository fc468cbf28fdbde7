"""PyG's point-cloud graph builders: ``knn``, ``knn_graph``, ``radius``, ``radius_graph``.

Same names, arguments and index layout as ``torch_geometric.nn.knn`` / ``knn_graph`` /
``radius`` / ``radius_graph`` (torch_cluster / pyg-lib): ``knn(x, y, k)[0]`` indexes ``y``
(the centres), ``[1]`` indexes ``x`` (their neighbours); the ``*_graph`` functions give an
``edge_index`` whose row 1 is the centre for ``flow='source_to_target'``. Points only match
points of the same batch example; an example with fewer than ``k`` points gives its
centres fewer neighbours. The search is an exact k-d tree search (``scipy.spatial.cKDTree``).

RULE: the output is deterministic: edges sorted by centre, then by distance (as computed in
float64), then by neighbour index; a tie in distance goes to the lower index (torch_cluster's
CUDA kernel breaks ties the same way), including a tie at the k-th place.
RULE: ``batch`` vectors must be sorted (non-decreasing), as PyG requires; ids may skip
values (an example with no points).
RULE: on CuPy arrays the search runs on the host: the coordinates are copied to the host
and the result is copied back to the device (one round trip each call, stated here; there
is no device k-d tree). NumPy in, NumPy out; CuPy in, CuPy out.

>>> import numpy as np
>>> x = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]])
>>> knn_graph(x, k=2).tolist()
[[1, 2, 0, 3, 0, 3, 1, 2], [0, 0, 1, 1, 2, 2, 3, 3]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.utils._checks import check_array_arg

__all__ = ["knn", "knn_graph", "radius", "radius_graph"]

#: examples are searched in chunks of about this many points: one k-d tree per chunk, the
#: example id folded in as an extra coordinate so no neighbour crosses examples. Large
#: examples get a tree each (fastest); many small ones share one (no per-example loop).
CHUNK_POINTS = 1024

_FLOWS = ("source_to_target", "target_to_source")


# ---------------------------------------------------------------------------- arguments
def _coords(where: str, name: str, x: Any) -> np.ndarray:
    """``x`` as a float64 host array [N, D] (1-D is one column); finite entries only."""
    check_array_arg(where, name, x)
    if x.dtype.kind not in "fiu" or x.dtype == np.bool_:
        raise TypeError(f"{where}: {name} must hold real numbers, got dtype {x.dtype}")
    if x.ndim == 1:
        x = x.reshape(-1, 1)
    if x.ndim != 2:
        raise ValueError(f"{where}: {name} must be [N, D] (or 1-D), got shape {tuple(x.shape)}")
    host = np.asarray(to_numpy(x), dtype=np.float64)  # a copy unless already float64
    if host.size and not np.isfinite(host).all():
        bad = ~np.isfinite(host)
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        what = "NaN" if np.isnan(host).any() else "infinite"
        raise ValueError(
            f"{where}: {name} has {what} coordinates (first non-finite entry in row {row}); "
            "neighbour search needs finite coordinates"
        )
    return host


def _batch(where: str, name: str, batch: Any, n: int) -> np.ndarray | None:
    """``batch`` as a sorted, non-negative int64 host vector of length ``n`` (or None)."""
    if batch is None:
        return None
    check_array_arg(where, name, batch)
    if batch.dtype.kind not in "iu":
        raise TypeError(f"{where}: {name} must be an integer array, got dtype {batch.dtype}")
    if batch.ndim != 1 or batch.shape[0] != n:
        raise ValueError(
            f"{where}: {name} must have shape ({n},) (one example id per point), got "
            f"{tuple(batch.shape)}"
        )
    host = np.asarray(to_numpy(batch), dtype=np.int64)
    if n and int(host.min()) < 0:
        raise ValueError(f"{where}: {name} has a negative example id ({int(host.min())})")
    if n > 1:
        down = np.flatnonzero(host[1:] < host[:-1])
        if down.size:
            i = int(down[0]) + 1
            raise ValueError(
                f"{where}: {name} must be sorted (non-decreasing), as PyG requires; entry {i} "
                f"({int(host[i])}) follows {int(host[i - 1])}. Sort the points by example first"
            )
    return host


def _positive_int(where: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    if int(value) < 1:
        raise ValueError(f"{where}: {name} must be >= 1, got {int(value)}")
    return int(value)


def _flag(where: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be True or False, got {value!r}")
    return bool(value)


def _radius(where: str, r: Any) -> float:
    if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: r must be a real number, got {r!r}")
    r = float(r)
    if not r > 0:  # NaN fails too
        raise ValueError(f"{where}: r must be > 0, got {r}")
    return r


def _flow(where: str, flow: Any) -> str:
    if flow not in _FLOWS:
        raise ValueError(f"{where}: flow must be one of {_FLOWS}, got {flow!r}")
    return flow


def _ptrs(
    where: str,
    bx: np.ndarray | None,
    by: np.ndarray | None,
    n: int,
    m: int,
    batch_size: Any,
    names: tuple[str, str],
) -> tuple[np.ndarray, np.ndarray]:
    """Start of every example in ``x`` and in ``y`` (``B + 1`` entries each)."""
    top = max([int(b[-1]) + 1 for b in (bx, by) if b is not None and b.size] or [1])
    if batch_size is not None:
        size = _positive_int(where, "batch_size", batch_size)
        if size < top:
            raise ValueError(
                f"{where}: batch_size={size} but {' / '.join(names)} holds example id {top - 1}"
            )
        top = size
    ids = np.arange(top + 1)
    ptr_x = np.searchsorted(bx, ids) if bx is not None else np.minimum(ids, 1) * n
    ptr_y = np.searchsorted(by, ids) if by is not None else np.minimum(ids, 1) * m
    return ptr_x.astype(np.int64), ptr_y.astype(np.int64)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero, as ``torch.nn.functional.normalize``)."""
    norm = np.sqrt(np.einsum("ij,ij->i", x, x))
    return x / np.where(norm > 0, norm, 1.0)[:, None]


def _point_pair(where: str, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` as checked host coordinates with one number of columns."""
    xh, yh = _coords(where, "x", x), _coords(where, "y", y)
    if xh.shape[1] != yh.shape[1]:
        raise ValueError(
            f"{where}: x and y must have one number of columns, got {xh.shape[1]} and {yh.shape[1]}"
        )
    return xh, yh


def _give_back(xp: Any, index: np.ndarray) -> Any:
    """The [2, E] int64 host result on the caller's device (a host-to-device copy on CuPy)."""
    return index if xp is np else xp.asarray(index)


# ---------------------------------------------------------------------------- the search
def _search(
    x: np.ndarray,
    y: np.ndarray,
    ptr_x: np.ndarray,
    ptr_y: np.ndarray,
    k: int | None,
    r: float,
    exclude_self: bool,
    workers: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows into y, cols into x)``, int64: for every row of ``y`` its ``k`` nearest
    points of ``x`` (all of them when ``k`` is None) among its example's, strictly closer
    than ``r``; sorted by row, distance, column. ``exclude_self`` (``x`` is ``y``, one
    batch): a point is not its own neighbour, and ``k`` counts the others."""
    sizes = np.diff(ptr_x) + np.diff(ptr_y)
    bucket = (np.cumsum(sizes) - sizes) // CHUNK_POINTS
    cuts = np.concatenate([[0], np.flatnonzero(np.diff(bucket)) + 1, [len(sizes)]])
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    for b0, b1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        pieces += _search_chunk(x, y, ptr_x, ptr_y, b0, b1, k, r, exclude_self, workers)
    if not pieces:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    rows = np.concatenate([p[0] for p in pieces]).astype(np.int64, copy=False)
    cols = np.concatenate([p[1] for p in pieces]).astype(np.int64, copy=False)
    return rows, cols


def _search_chunk(
    x: np.ndarray,
    y: np.ndarray,
    ptr_x: np.ndarray,
    ptr_y: np.ndarray,
    b0: int,
    b1: int,
    k: int | None,
    r: float,
    exclude_self: bool,
    workers: int,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The result ``(rows, cols)`` (global ids, sorted) of the examples ``b0 .. b1 - 1``."""
    from scipy.spatial import cKDTree

    x0, y0 = int(ptr_x[b0]), int(ptr_y[b0])
    xs, ys = x[x0 : int(ptr_x[b1])], y[y0 : int(ptr_y[b1])]
    n, m = int(xs.shape[0]), int(ys.shape[0])
    if n == 0 or m == 0:
        return []
    ex_x = np.repeat(np.arange(b1 - b0), np.diff(ptr_x[b0 : b1 + 1]))
    ex_y = np.repeat(np.arange(b1 - b0), np.diff(ptr_y[b0 : b1 + 1]))
    # every distance inside an example is at most the chunk's diameter
    lo = np.minimum(xs.min(axis=0), ys.min(axis=0))
    hi = np.maximum(xs.max(axis=0), ys.max(axis=0))
    extent = hi - lo
    scale = float(extent.max())
    span = scale * float(np.sqrt(np.sum((extent / scale) ** 2))) if scale > 0 else 0.0
    folded = bool(ex_x[0] != ex_x[-1] or ex_y[0] != ex_y[-1] or ex_x[0] != ex_y[0])
    if folded:
        # fold the example id in as one more coordinate, spaced wider than any distance
        # inside an example: a neighbour from another example is always farther than
        # every one from the same example, and is dropped below. Distances inside an
        # example are unchanged (the extra coordinates are equal, 0 is added).
        gap = 2.0 * span + 1.0
        if not math.isfinite(gap * (b1 - b0)):  # huge coordinates: one tree per example
            out = []
            for b in range(b0, b1):
                out += _search_chunk(x, y, ptr_x, ptr_y, b, b + 1, k, r, exclude_self, workers)
            return out
        xs = np.concatenate([xs, (ex_x * gap)[:, None]], axis=1)
        ys = np.concatenate([ys, (ex_y * gap)[:, None]], axis=1)
    tree = cKDTree(xs)
    want = None if k is None else k + exclude_self  # with the point itself, dropped later
    if want is None:  # every point within r: as many columns as the fullest ball holds
        reach = min(r, float(np.nextafter(span * (1.0 + 1e-9), np.inf)))  # no other example
        try:
            ball = tree.query_ball_point(ys, reach, return_length=True, workers=workers)
            columns = int(ball.max())
        except ValueError:  # SciPy's overflow of reach ** 2 (huge coordinates): take all
            columns = n
        if columns == 0:
            return []
    else:
        columns = min(want + 1, n)  # one more than needed: shows a tie at the last place
    query = list(range(1, columns + 1))
    dist, idx = tree.query(ys, k=query, distance_upper_bound=r, workers=workers)
    valid = _same_example(idx, n, ex_x, ex_y) if folded else idx < n
    tie = None
    if want is not None and columns == want + 1:
        tie = valid[:, want] & (dist[:, want] == dist[:, want - 1])
    if want is not None and valid.all() and (tie is None or not tie.any()):
        # every row holds its want (+ 1) nearest: select in [m, want] matrix form
        width = min(want, columns)
        rows, cols = _select_matrix(dist[:, :width], idx[:, :width], want, exclude_self)
        return [(rows + y0, cols + x0)]
    extra = None
    if tie is not None and tie.any():  # all points as close as the last kept one
        rows_t = np.flatnonzero(tie)
        reach = np.nextafter(dist[rows_t, want - 1] * (1.0 + 1e-9), np.inf)
        try:
            ball = tree.query_ball_point(ys[rows_t], reach, return_length=True, workers=workers)
            wide = list(range(1, min(int(ball.max()) + 1, n) + 1))
        except ValueError:  # overflow of reach ** 2 (huge coordinates): take all
            wide = list(range(1, n + 1))
        d2, i2 = tree.query(ys[rows_t], k=wide, distance_upper_bound=r, workers=workers)
        v2 = _same_example(i2, n, ex_x, ex_y[rows_t])
        extra = (np.broadcast_to(rows_t[:, None], v2.shape)[v2], i2[v2], d2[v2])
        valid[rows_t] = False
    rows = np.broadcast_to(np.arange(m)[:, None], valid.shape)[valid]
    cand = (rows, idx[valid], dist[valid])
    if extra is not None:
        cand = tuple(np.concatenate(pair) for pair in zip(cand, extra))
    rows, cols = _select(*cand, m, want, exclude_self)
    return [(rows + y0, cols + x0)]


def _select_matrix(
    dist: np.ndarray, idx: np.ndarray, want: int, exclude_self: bool
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` from full rows of nearest neighbours (``[m, w]``, ascending)."""
    m, width = idx.shape
    if width > 1 and (dist[:, 1:] == dist[:, :-1]).any():  # equal distances: by index
        order = np.lexsort((idx, dist), axis=-1)
        idx = np.take_along_axis(idx, order, axis=1)
    if exclude_self:
        drop = idx == np.arange(m)[:, None]
        if width == want:  # a full row without itself (coincident points): drop the last
            drop[:, -1] |= ~drop.any(axis=1)
        idx = idx[~drop].reshape(m, width - 1)
    return np.repeat(np.arange(m), idx.shape[1]), idx.ravel()


def _select(
    rows: np.ndarray,
    cols: np.ndarray,
    dist: np.ndarray,
    m: int,
    want: int | None,
    exclude_self: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)`` from candidate lists (each row's nearest, all of its ``want``
    first ones present, any order): sorted, cut to ``want`` per row, self dropped."""
    # cKDTree orders equal distances arbitrarily: sort where a row has a tie (or was redone)
    if (rows[1:] < rows[:-1]).any() or ((rows[1:] == rows[:-1]) & (dist[1:] == dist[:-1])).any():
        order = np.lexsort((cols, dist, rows))
        rows, cols = rows[order], cols[order]
    per_row = np.bincount(rows, minlength=m)
    pos = np.arange(rows.shape[0]) - (np.cumsum(per_row) - per_row)[rows]
    if want is not None:
        keep = pos < want
        rows, cols, pos = rows[keep], cols[keep], pos[keep]
    if exclude_self:
        is_self = rows == cols
        if want is None:
            keep = ~is_self
        else:
            kept = np.bincount(rows, minlength=m)
            has_self = np.zeros(m, bool)
            has_self[rows[is_self]] = True
            # a row without itself among its k + 1 nearest (more than k points coincide
            # with it) is full: its k + 1-th neighbour goes instead
            extra = ~has_self[rows] & (kept[rows] == want) & (pos == want - 1)
            keep = ~(is_self | extra)
        rows, cols = rows[keep], cols[keep]
    return rows, cols


def _same_example(idx: np.ndarray, n: int, ex_x: np.ndarray, ex_y: np.ndarray) -> np.ndarray:
    """Found (``idx < n``) and from the query's own example."""
    found = idx < n
    return found & (ex_x[np.where(found, idx, 0)] == ex_y[:, None])


# ---------------------------------------------------------------------------- public
def knn(
    x: Any,
    y: Any,
    k: int,
    batch_x: Any = None,
    batch_y: Any = None,
    cosine: bool = False,
    num_workers: int = 1,
    batch_size: int | None = None,
) -> Any:
    """For every point of ``y``, its ``k`` nearest points of ``x`` (PyG's ``knn``).

    Returns the assignment index ``[2, E]`` (int64): row 0 indexes ``y``, row 1 ``x``;
    ``E = N_y * k`` unless an example of ``x`` has fewer than ``k`` points (then all of its
    points). Points only match within one example (``batch_x`` / ``batch_y``: sorted
    example ids; ``None`` means one example). Sorted by ``y`` index, then distance, then
    ``x`` index (ties go to the lower index). ``cosine=True`` ranks by cosine distance
    ``1 - cos``: the rows are scaled to unit length (a zero row stays zero) and ranked by
    Euclidean distance, the same order since ``|a - b|^2 = 2 (1 - cos)`` for unit vectors.
    ``num_workers`` threads query the tree. 1-D ``x`` / ``y`` are one coordinate per point.
    On CuPy arrays: a host round trip (see the module notes).

    >>> import numpy as np
    >>> x = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]])
    >>> y = np.array([[-1.0, 0.0], [1.0, 0.0]])
    >>> knn(x, y, 2).tolist()
    [[0, 0, 1, 1], [0, 1, 2, 3]]
    """
    where = "knn"
    xp = get_namespace(x, y, batch_x, batch_y)
    xh, yh = _point_pair(where, x, y)
    k = _positive_int(where, "k", k)
    cosine = _flag(where, "cosine", cosine)
    workers = _positive_int(where, "num_workers", num_workers)
    bx = _batch(where, "batch_x", batch_x, xh.shape[0])
    by = _batch(where, "batch_y", batch_y, yh.shape[0])
    if xh.shape[0] == 0 or yh.shape[0] == 0:
        return _give_back(xp, np.zeros((2, 0), np.int64))
    ptr_x, ptr_y = _ptrs(
        where, bx, by, xh.shape[0], yh.shape[0], batch_size, ("batch_x", "batch_y")
    )
    if cosine:
        xh, yh = _unit_rows(xh), _unit_rows(yh)
    rows, cols = _search(xh, yh, ptr_x, ptr_y, k, math.inf, False, workers)
    return _give_back(xp, np.stack([rows, cols]))


def knn_graph(
    x: Any,
    k: int,
    batch: Any = None,
    loop: bool = False,
    flow: str = "source_to_target",
    cosine: bool = False,
    num_workers: int = 1,
    batch_size: int | None = None,
) -> Any:
    """The k-nearest-neighbour graph of the points ``x`` (PyG's ``knn_graph``).

    Each point gets edges from its ``k`` nearest points of the same example (``batch``);
    ``loop=False`` leaves a point out of its own ``k``. ``flow='source_to_target'``:
    ``edge_index[0]`` is the neighbour and ``edge_index[1]`` the centre (messages flow to
    the centre); ``'target_to_source'`` swaps the rows. int64 ``[2, E]``, sorted by centre,
    then distance, then neighbour index. Where more than ``k`` points coincide with a point,
    ``loop=False`` still gives it ``k`` other points (PyG searches ``k + 1`` and drops the
    self-match, which can leave ``k + 1`` there). Other arguments as :func:`knn`.

    >>> import numpy as np
    >>> x = np.array([[0.0], [1.0], [3.0]])
    >>> knn_graph(x, 1).tolist()
    [[1, 0, 1], [0, 1, 2]]
    >>> knn_graph(x, 1, loop=True, flow="target_to_source").tolist()
    [[0, 1, 2], [0, 1, 2]]
    """
    where = "knn_graph"
    xp = get_namespace(x, batch)
    xh = _coords(where, "x", x)
    k = _positive_int(where, "k", k)
    loop = _flag(where, "loop", loop)
    flow = _flow(where, flow)
    cosine = _flag(where, "cosine", cosine)
    workers = _positive_int(where, "num_workers", num_workers)
    b = _batch(where, "batch", batch, xh.shape[0])
    if xh.shape[0] == 0:
        return _give_back(xp, np.zeros((2, 0), np.int64))
    ptr, _ = _ptrs(where, b, b, xh.shape[0], xh.shape[0], batch_size, ("batch", "batch"))
    if cosine:
        xh = _unit_rows(xh)
    centre, nbr = _search(xh, xh, ptr, ptr, k, math.inf, not loop, workers)
    pair = (nbr, centre) if flow == "source_to_target" else (centre, nbr)
    return _give_back(xp, np.stack(pair))


def radius(
    x: Any,
    y: Any,
    r: float,
    batch_x: Any = None,
    batch_y: Any = None,
    max_num_neighbors: int | None = 32,
    num_workers: int = 1,
    batch_size: int | None = None,
) -> Any:
    """For every point of ``y``, the points of ``x`` closer than ``r`` (PyG's ``radius``).

    Distance ``< r`` (strictly, as torch_cluster). At most ``max_num_neighbors`` per point of
    ``y`` (``None``: all): the nearest ones, ties to the lower index (PyG's CPU kernel keeps
    an arbitrary subset, its CUDA kernel the lowest indices). Index layout, batches, order
    and CuPy as :func:`knn`.

    >>> import numpy as np
    >>> x = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]])
    >>> y = np.array([[-1.0, 0.0], [1.0, 0.0]])
    >>> radius(x, y, 1.5).tolist()
    [[0, 0, 1, 1], [0, 1, 2, 3]]
    """
    where = "radius"
    xp = get_namespace(x, y, batch_x, batch_y)
    xh, yh = _point_pair(where, x, y)
    r = _radius(where, r)
    limit = None
    if max_num_neighbors is not None:
        limit = _positive_int(where, "max_num_neighbors", max_num_neighbors)
    workers = _positive_int(where, "num_workers", num_workers)
    bx = _batch(where, "batch_x", batch_x, xh.shape[0])
    by = _batch(where, "batch_y", batch_y, yh.shape[0])
    if xh.shape[0] == 0 or yh.shape[0] == 0:
        return _give_back(xp, np.zeros((2, 0), np.int64))
    ptr_x, ptr_y = _ptrs(
        where, bx, by, xh.shape[0], yh.shape[0], batch_size, ("batch_x", "batch_y")
    )
    rows, cols = _search(xh, yh, ptr_x, ptr_y, limit, r, False, workers)
    return _give_back(xp, np.stack([rows, cols]))


def radius_graph(
    x: Any,
    r: float,
    batch: Any = None,
    loop: bool = False,
    max_num_neighbors: int | None = 32,
    flow: str = "source_to_target",
    num_workers: int = 1,
    batch_size: int | None = None,
) -> Any:
    """Edges between the points ``x`` closer than ``r`` (PyG's ``radius_graph``).

    ``loop=False``: no self-loops, and ``max_num_neighbors`` counts the other points.
    Rows, order and the neighbour limit as :func:`radius`, flow as :func:`knn_graph`.

    >>> import numpy as np
    >>> x = np.array([[0.0], [1.0], [3.0]])
    >>> radius_graph(x, 1.5).tolist()
    [[1, 0], [0, 1]]
    """
    where = "radius_graph"
    xp = get_namespace(x, batch)
    xh = _coords(where, "x", x)
    r = _radius(where, r)
    loop = _flag(where, "loop", loop)
    limit = None
    if max_num_neighbors is not None:
        limit = _positive_int(where, "max_num_neighbors", max_num_neighbors)
    flow = _flow(where, flow)
    workers = _positive_int(where, "num_workers", num_workers)
    b = _batch(where, "batch", batch, xh.shape[0])
    if xh.shape[0] == 0:
        return _give_back(xp, np.zeros((2, 0), np.int64))
    ptr, _ = _ptrs(where, b, b, xh.shape[0], xh.shape[0], batch_size, ("batch", "batch"))
    centre, nbr = _search(xh, xh, ptr, ptr, limit, r, not loop, workers)
    pair = (nbr, centre) if flow == "source_to_target" else (centre, nbr)
    return _give_back(xp, np.stack(pair))
