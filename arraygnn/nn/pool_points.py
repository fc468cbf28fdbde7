"""PyG's point-cloud pooling helpers: ``fps``, ``nearest``, ``voxel_grid``.

Same names, arguments and results as ``torch_geometric.nn.fps`` / ``nearest`` /
``voxel_grid`` (which call torch_cluster's / pyg-lib's ``fps``, ``nearest`` and
``grid_cluster``), on NumPy arrays; CuPy arrays take a host round trip (the points are
copied to the host, the int64 result back; stated here). ``batch`` vectors hold the
example id of every point and must be sorted, as PyG requires; ids may skip values (an
example with no points).

RULE: ``fps`` with ``random_start=False`` gives torch_cluster's picks exactly for points
of up to 4 coordinates (same start, same ``argmax`` tie rule, distances summed in order
in the points' dtype; float16 points in float64). Longer rows torch sums in a blocked,
vectorised order that depends on the CPU, so a near tie (an ulp apart) can go either
way there. With ``random_start=True`` the start of every example is drawn from
``numpy.random.default_rng(seed)`` (``seed`` keyword only; torch_cluster uses C's
``rand()``): the same seed gives the same picks.

>>> import numpy as np
>>> pos = np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, -1.0]])
>>> fps(pos, ratio=0.5, random_start=False).tolist()
[0, 2]
>>> nearest(pos, np.array([[-1.0, 0.0], [1.0, 0.0]])).tolist()
[0, 0, 1, 1]
>>> voxel_grid(pos, size=1.5).tolist()
[0, 2, 3, 1]
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from arraygnn._ids import unique_ids
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.utils._checks import check_array_arg

__all__ = ["fps", "nearest", "voxel_grid"]


def _points(where: str, name: str, x: Any, flatten: bool = False) -> np.ndarray:
    """``x`` as a contiguous float host array ``[N, D]`` (1-D: one column; with
    ``flatten`` more dimensions are flattened per point, PyG's ``x.view(N, -1)``), finite."""
    check_array_arg(where, name, x)
    if x.dtype.kind != "f":
        raise TypeError(f"{where}: {name} must hold floating-point values, got {x.dtype}")
    if x.ndim == 1 or (flatten and x.ndim > 2):
        x = x.reshape(int(x.shape[0]), int(np.prod(x.shape[1:])))
    if x.ndim != 2:
        raise ValueError(f"{where}: {name} must be [N, D] (or 1-D), got shape {tuple(x.shape)}")
    host = np.ascontiguousarray(to_numpy(x))
    if host.dtype not in (np.float32, np.float64):
        host = host.astype(np.float64)
    if host.size and not np.isfinite(host).all():
        row = int(np.flatnonzero(~np.isfinite(host).all(axis=1))[0])
        raise ValueError(f"{where}: {name} has non-finite coordinates (first in row {row})")
    return host


def _example_ptr(
    where: str, name: str, batch: Any, n: int, batch_size: Any = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Start of every example (``B + 1`` int64 entries; ``B`` from the largest id, or
    ``batch_size``, which must exceed it) and the checked host batch (None when ``batch``
    is None; ``batch_size`` is then not read, as in PyG)."""
    from arraygnn.utils.knn import _batch

    b = _batch(where, name, batch, n)
    if b is None:
        return np.array([0, n], np.int64), None
    size = int(b[-1]) + 1 if n else 0
    if batch_size is not None:
        if isinstance(batch_size, (bool, np.bool_)) or not isinstance(
            batch_size, (int, np.integer)
        ):
            raise TypeError(f"{where}: batch_size must be an int or None, got {batch_size!r}")
        if int(batch_size) < size:
            # PyG's index2ptr would drop the points of the examples from batch_size on
            raise ValueError(
                f"{where}: batch_size={int(batch_size)} but {name} holds example id "
                f"{size - 1}; batch_size must exceed every id"
            )
        size = int(batch_size)
    return np.searchsorted(b, np.arange(size + 1)).astype(np.int64), b


def fps(
    x: Any,
    batch: Any = None,
    ratio: float = 0.5,
    random_start: bool = True,
    batch_size: int | None = None,
    *,
    seed: Any = None,
) -> Any:
    """Farthest point sampling (PointNet++; torch_cluster's ``fps``).

    Every example with ``n`` points gives ``ceil(n * ratio)`` picks (computed in float32,
    as torch_cluster): its start point (the first, or a random one with
    ``random_start``), then repeatedly the point farthest (squared Euclidean distance in
    the points' dtype; float16 points in float64) from all picked so far, the lowest
    index on a tie. Points with more than two dimensions are flattened per point (PyG's
    ``x.view(N, -1)``). ``batch_size`` is the number of examples (PyG's; it must exceed
    every id in ``batch``, where PyG would drop the points beyond it). Returns the
    global int64 indices of the picks, example by example, each example's in pick order;
    an empty example gives none. ``seed`` (keyword only: an int or a
    ``numpy.random.Generator``) makes random starts repeatable. Runs a Numba kernel,
    examples in parallel.

    >>> import numpy as np
    >>> pos = np.array([[0.0], [1.0], [5.0], [10.0], [0.0], [2.0]])
    >>> fps(pos, np.array([0, 0, 0, 0, 1, 1]), ratio=0.5, random_start=False).tolist()
    [0, 3, 4]
    """
    from arraygnn.kernels.cpu._threads import serialised
    from arraygnn.kernels.cpu.fps import fps_csr
    from arraygnn.nn.linear import _rng

    where = "fps"
    xp = get_namespace(x, batch)
    src = _points(where, "x", x, flatten=True)
    if isinstance(ratio, (bool, np.bool_)) or not isinstance(ratio, numbers.Real):
        raise TypeError(f"{where}: ratio must be a real number in (0, 1], got {ratio!r}")
    if not 0.0 < float(ratio) <= 1.0:
        raise ValueError(f"{where}: ratio must be in (0, 1], got {ratio}")
    if not isinstance(random_start, (bool, np.bool_)):
        raise TypeError(f"{where}: random_start must be True or False, got {random_start!r}")
    n = int(src.shape[0])
    ptr, _ = _example_ptr(where, "batch", batch, n, batch_size)
    deg = np.diff(ptr)
    take = np.ceil(deg.astype(np.float32) * np.float32(ratio)).astype(np.int64)
    out_ptr = np.concatenate([[0], np.cumsum(take)]).astype(np.int64)
    if random_start:
        start = _rng(seed).integers(0, np.maximum(deg, 1)).astype(np.int64)
    else:
        start = np.zeros(deg.shape[0], np.int64)
    out = np.empty(int(out_ptr[-1]), np.int64)
    if out.size:
        if src.shape[1] == 0:
            src = np.zeros((n, 1), src.dtype)  # no coordinates: every distance is 0
        serialised(fps_csr)(src, ptr, out_ptr, start, out)
    return out if xp is np else xp.asarray(out)


def nearest(x: Any, y: Any, batch_x: Any = None, batch_y: Any = None) -> Any:
    """For every point of ``x``, the index of its nearest point of ``y`` in the same
    example (torch_cluster's ``nearest``: a cluster id per point of ``x``).

    int64 ``[N_x]``. Points with more than two dimensions are flattened per point (as
    pyg-lib's ``nearest``). Distances are Euclidean, computed in float64 (a k-d tree search,
    :func:`arraygnn.utils.knn`); a tie goes to the lower index of ``y`` (PyG 2.8.1's
    pyg-lib kernel compares squared distances in the points' dtype and torch_cluster's CPU
    path ranks after rescaling the points to ``[0, 1]``: a near tie can round either
    way there). The examples holding points must be the same in ``x`` and ``y``
    (torch_cluster's ``ValueError`` otherwise); a missing batch vector means example 0.

    >>> import numpy as np
    >>> x = np.array([[0.0], [1.0], [9.0], [10.0]])
    >>> nearest(x, np.array([[0.5], [9.5]]), np.array([0, 0, 1, 1]), np.array([0, 1])).tolist()
    [0, 0, 1, 1]
    """
    from arraygnn.utils.knn import knn

    where = "nearest"
    xp = get_namespace(x, y, batch_x, batch_y)
    xh, yh = _points(where, "x", x, flatten=True), _points(where, "y", y, flatten=True)
    if xh.shape[1] != yh.shape[1]:
        raise ValueError(
            f"{where}: x and y must have one number of columns, got {xh.shape[1]} and {yh.shape[1]}"
        )
    nx, ny = int(xh.shape[0]), int(yh.shape[0])
    ptr_x, bx = _example_ptr(where, "batch_x", batch_x, nx)
    ptr_y, by = _example_ptr(where, "batch_y", batch_y, ny)
    if bx is not None or by is not None:
        used_x = unique_ids(np, bx) if bx is not None else np.zeros(min(nx, 1), np.int64)
        used_y = unique_ids(np, by) if by is not None else np.zeros(min(ny, 1), np.int64)
        if not np.array_equal(used_x, used_y):
            raise ValueError(
                f"{where}: the examples holding points differ between x ({used_x.tolist()}) "
                f"and y ({used_y.tolist()}); every example needs points in both"
            )
    elif nx and not ny:
        raise ValueError(f"{where}: y has no points, so the {nx} points of x have no nearest")
    if nx == 0:
        out = np.zeros(0, np.int64)
    else:
        out = np.asarray(knn(yh, xh, 1, by, bx))[1]
    return out if xp is np else xp.asarray(out)


def _per_dim(where: str, name: str, value: Any, dim: int, dtype: Any) -> np.ndarray:
    """PyG's ``repeat(value, dim)``: a number repeated, a longer sequence cut, a shorter
    one padded with its last entry; as a float host vector of ``dtype``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be a number or a sequence of numbers")
    if hasattr(value, "ndim") and value.ndim > 1:
        raise ValueError(f"{where}: {name} must be a number or 1-D, got shape {value.shape}")
    try:
        arr = np.asarray(to_numpy(value) if hasattr(value, "ndim") else value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: {name} must be a number or a sequence of numbers") from None
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise ValueError(f"{where}: {name} is empty")
    if arr.size == 1:
        arr = np.repeat(arr, dim)
    elif arr.size > dim:
        arr = arr[:dim]
    elif arr.size < dim:
        arr = np.concatenate([arr, np.repeat(arr[-1:], dim - arr.size)])
    if not np.isfinite(arr).all():
        raise ValueError(f"{where}: {name} must be finite, got {arr.tolist()}")
    return arr.astype(dtype)


def voxel_grid(pos: Any, size: Any, batch: Any = None, start: Any = None, end: Any = None) -> Any:
    """The voxel of every point on a regular grid of cell ``size`` (PyG's ``voxel_grid``).

    The batch id is one more grid coordinate (cell size 1), so points of different
    examples never share a voxel. ``start`` / ``end`` (a number or one per dimension, as
    PyG's ``repeat``) default to the smallest / largest coordinates; the cell of a point
    is ``trunc((pos - start) / size)`` per dimension (truncation toward zero, in ``pos``'s
    dtype, as torch_cluster's ``grid``), numbered with ``trunc((end - start) / size) + 1``
    cells per dimension. Returns int64 ``[N]`` voxel ids (not consecutive: relabel with
    ``numpy.unique(..., return_inverse=True)``). An empty ``pos`` gives an empty result
    (PyG raises).

    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0], [11.0, 9.0], [2.0, 8.0], [2.0, 2.0], [8.0, 3.0]])
    >>> voxel_grid(pos, size=5.0).tolist()
    [0, 5, 3, 0, 1]
    """
    where = "voxel_grid"
    xp = get_namespace(pos, batch)
    p = _points(where, "pos", pos)
    n, dim = int(p.shape[0]), int(p.shape[1])
    dtype = p.dtype
    sizes = _per_dim(where, "size", size, dim, dtype)
    if not (sizes > 0).all():
        raise ValueError(f"{where}: size must be > 0 in every dimension, got {sizes.tolist()}")
    _, b = _example_ptr(where, "batch", batch, n)
    if n == 0:
        out = np.zeros(0, np.int64)
        return out if xp is np else xp.asarray(out)
    b = np.zeros(n, np.int64) if b is None else b
    grid = np.concatenate([p, b.astype(dtype)[:, None]], axis=1)
    cell = np.concatenate([sizes, np.ones(1, dtype)])
    if start is None:
        lo = grid.min(axis=0)
    else:
        lo = np.concatenate([_per_dim(where, "start", start, dim, dtype), np.zeros(1, dtype)])
    if end is None:
        hi = grid.max(axis=0)
    else:
        top = np.asarray([b.max()], dtype)
        hi = np.concatenate([_per_dim(where, "end", end, dim, dtype), top])
    counts = np.trunc((hi - lo) / cell).astype(np.int64) + 1
    stride = np.concatenate([[1], np.cumprod(counts)[:-1]]).astype(np.int64)
    out = np.trunc((grid - lo) / cell).astype(np.int64) @ stride
    return out if xp is np else xp.asarray(out)
