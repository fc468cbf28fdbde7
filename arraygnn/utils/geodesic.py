"""PyG's ``geodesic_distance`` of a triangle mesh, along the mesh's edges.

PyG calls the optional ``gdist`` package (exact polyhedral geodesics: paths may cross the
faces). Here the distance is the shortest path **along the mesh edges** (Euclidean edge
lengths, SciPy's Dijkstra, float64): equal to ``gdist``'s where a shortest surface path
runs along edges, otherwise an upper bound of it (in PyG's own docstring example, the two
corners 1 and 2 of the square are ``2`` apart here, ``sqrt(2)`` in ``gdist``, whose path
crosses the diagonal edge). No compiled extra is needed (``gdist`` 2.1's wheels do not load
with NumPy 2).

Normalisation (``norm=True``, as PyG): distances are divided by ``sqrt(area)`` of the
mesh (``max_distance`` is in normalised units too). With neither ``src`` nor ``dst`` the
result is the full [N, N] matrix with 0 beyond ``max_distance`` (PyG's sparse
``local_gdist_matrix`` densified); with ``src`` the rows of those sources ([S, N], ``inf``
beyond ``max_distance``); with ``src`` and ``dst`` the distance of each pair ([S]); with
``dst`` alone (one id per node) the distance of each ``(i, dst[i])``, as PyG's
``src = arange(N)``.

>>> import numpy as np
>>> pos = np.array([[0.0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0]])
>>> face = np.array([[0, 0], [1, 2], [3, 3]])
>>> geodesic_distance(pos, face).round(4).tolist()[0]
[0.0, 1.0, 1.0, 1.4142]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.utils._checks import bool_arg, check_array_arg, check_ids, check_int_array

__all__ = ["geodesic_distance"]


def _ids(where: str, name: str, value: Any, n: int) -> np.ndarray:
    check_int_array(where, name, value)
    if value.ndim != 1:
        raise ValueError(f"{where}: {name} must be one-dimensional, got {tuple(value.shape)}")
    check_ids(where, name, value, n)
    return to_numpy(value).astype(np.int64)


def geodesic_distance(
    pos: Any,
    face: Any,
    src: Any = None,
    dst: Any = None,
    norm: bool = True,
    max_distance: float | None = None,
    num_workers: int = 0,
    **kwargs: Any,
) -> Any:
    """Mesh distances along edges (module docs). ``pos`` [N, 3] float, ``face`` [3, F]
    int; ``src`` / ``dst`` 1-D node ids (``dest=`` is PyG's deprecated name of ``dst``);
    ``num_workers`` is accepted for PyG's signature (one Dijkstra call serves all sources).
    Result in ``pos``'s dtype, on its device (computed on the host).

    >>> import numpy as np
    >>> pos = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    >>> face = np.array([[0], [1], [2]])
    >>> geodesic_distance(pos, face, src=np.array([1]), dst=np.array([2]), norm=False)
    array([1.41421356])
    """
    where = "geodesic_distance"
    if "dest" in kwargs:
        dst = kwargs.pop("dest")
        warnings.warn(
            "'dest' attribute in 'geodesic_distance' is deprecated and will be removed in a "
            "future release. Use the 'dst' argument instead.",
            stacklevel=2,
        )
    if kwargs:
        raise TypeError(f"{where}: unexpected arguments {sorted(kwargs)}")
    check_array_arg(where, "pos", pos)
    if pos.dtype.kind != "f" or pos.ndim != 2 or pos.shape[1] != 3:
        raise ValueError(
            f"{where}: pos must be a float [N, 3] array, got {pos.dtype} {tuple(pos.shape)}"
        )
    check_int_array(where, "face", face)
    if face.ndim != 2 or face.shape[0] != 3:
        raise ValueError(f"{where}: face must be [3, F], got {tuple(face.shape)}")
    n = int(pos.shape[0])
    check_ids(where, "face", face, n)
    norm = bool_arg(where, "norm", norm)
    if max_distance is not None and (
        isinstance(max_distance, (bool, np.bool_))
        or not isinstance(max_distance, (int, float, np.number))
        or not max_distance > 0
    ):
        raise ValueError(f"{where}: max_distance must be a positive number, got {max_distance!r}")
    if dst is not None and src is None:  # PyG: src = arange(N), pairs (i, dst[i])
        check_int_array(where, "dst", dst)
        if dst.ndim != 1 or int(dst.shape[0]) != n:
            raise ValueError(
                f"{where}: dst without src must hold one id per node ([{n}]; distance i is "
                f"that of (i, dst[i])), got {tuple(dst.shape)}"
            )
        src = np.arange(n, dtype=np.int64)
    xp = get_namespace(pos)
    p = to_numpy(pos).astype(np.float64)
    f = to_numpy(face).astype(np.int64)
    if norm:
        area = np.cross(p[f[1]] - p[f[0]], p[f[2]] - p[f[0]])
        scale = math.sqrt(float((np.linalg.norm(area, axis=1) / 2).sum()))
    else:
        scale = 1.0
    limit = math.inf if max_distance is None else float(max_distance) * scale
    graph = _edge_graph(p, f, n)
    from scipy.sparse.csgraph import dijkstra

    if src is None:
        out = dijkstra(graph, directed=False, limit=limit)
        out[np.isinf(out)] = 0.0  # beyond max_distance: absent from PyG's sparse matrix
    else:
        s = _ids(where, "src", src, n)
        if dst is None:
            out = dijkstra(graph, directed=False, indices=s, limit=limit).reshape(len(s), n)
        else:
            d = _ids(where, "dst", dst, n)
            if d.shape != s.shape:
                raise ValueError(f"{where}: src and dst must have the same length")
            uniq, inverse = np.unique(s, return_inverse=True)
            rows = dijkstra(graph, directed=False, indices=uniq, limit=limit).reshape(len(uniq), n)
            out = rows[inverse, d]
    out = (out / scale).astype(pos.dtype)
    return out if xp is np else xp.asarray(out)


def _edge_graph(pos: np.ndarray, face: np.ndarray, n: int) -> Any:
    """The symmetric [N, N] CSR of the mesh edges' Euclidean lengths (each edge once)."""
    import scipy.sparse as sp

    a = np.concatenate([face[0], face[1], face[2]])
    b = np.concatenate([face[1], face[2], face[0]])
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    pairs = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0).reshape(-1, 2)
    length = np.linalg.norm(pos[pairs[:, 0]] - pos[pairs[:, 1]], axis=1)
    return sp.csr_matrix((length, (pairs[:, 0], pairs[:, 1])), shape=(n, n))
