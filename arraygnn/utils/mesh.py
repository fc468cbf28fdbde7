"""PyG's ``get_mesh_laplacian``: the cotangent Laplacian of a triangle mesh.

Step for step PyG's recipe: for each face and each of its three corners, half the cotangent
of the corner's angle weighs the opposite edge; the edges are made undirected with
:func:`~arraygnn.utils.to_undirected` (weights of shared edges summed), every node gets a
self-loop weighted ``-sum`` of its edges' weights (:func:`~arraygnn.utils.add_self_loops`
order: the edges, then one loop per node). ``normalization='sym'`` / ``'rw'`` rescale by the
Voronoi-style area sums (``|cross| / 12`` per corner, summed over the node's edges, as PyG).
The sums run ``arraygnn.ops.scatter``.

>>> import numpy as np
>>> pos = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
>>> ei, w = get_mesh_laplacian(pos, np.array([[0], [1], [2]]))
>>> ei.shape, [round(float(v), 3) for v in w[:3]]
((2, 9), [0.5, 0.5, 0.5])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import torch_rsqrt
from arraygnn.ops._common import kernel_index
from arraygnn.utils._checks import check_array_arg, check_ids, check_int_array, same_device
from arraygnn.utils.loops import add_self_loops
from arraygnn.utils.scatter import scatter_rows
from arraygnn.utils.undirected import to_undirected

__all__ = ["get_mesh_laplacian"]


def get_mesh_laplacian(pos: Any, face: Any, normalization: str | None = None) -> tuple[Any, Any]:
    """``(edge_index, edge_weight)`` of the cotangent Laplacian of the mesh ``(pos, face)``.

    ``pos`` [N, 3] float, ``face`` [3, F] int node ids in ``[0, N)``; ``normalization``
    ``None``, ``'sym'`` (``D^-1/2 L D^-1/2`` with the area sums ``D``; a zero sum gives 0)
    or ``'rw'`` (``D^-1 L``). ``edge_index`` [2, E + N] (``face``'s dtype), weights in
    ``pos``' dtype. As PyG, the node count of the undirected edges is ``face.max() + 1``
    while the loops cover all ``N`` nodes; a degenerate face (zero area) gives inf / NaN
    weights, as PyG.

    >>> import numpy as np
    >>> pos = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> ei, w = get_mesh_laplacian(pos, np.array([[0], [1], [2]]), normalization="rw")
    >>> ei[:, -3:].tolist()
    [[0, 1, 2], [0, 1, 2]]
    """
    where = "get_mesh_laplacian"
    check_array_arg(where, "pos", pos)
    if pos.dtype.kind != "f":
        raise TypeError(f"{where}: pos must be a float array, got dtype {pos.dtype}")
    check_int_array(where, "face", face)
    xp = same_device(where, pos=pos, face=face)
    if pos.ndim != 2 or pos.shape[1] != 3:
        raise ValueError(f"{where}: pos must have shape [N, 3], got {tuple(pos.shape)}")
    if face.ndim != 2 or face.shape[0] != 3:
        raise ValueError(f"{where}: face must have shape [3, F], got {tuple(face.shape)}")
    if normalization not in (None, "sym", "rw"):
        raise ValueError(
            f"{where}: normalization must be None, 'sym' or 'rw', got {normalization!r}"
        )
    num_nodes = int(pos.shape[0])
    check_ids(where, "face", face, num_nodes)
    f0, f1, f2 = (kernel_index(xp, face[i]) for i in range(3))
    # the edges (face[0], face[1]), (face[1], face[2]), (face[0], face[2]), PyG's order
    index = xp.concatenate([face[:2], face[1:], face[::2]], axis=1)
    corners = ((f0, f2, f1), (f1, f0, f2), (f0, f1, f2))  # (left, centre, right)
    cot = xp.concatenate([_half_cot(xp, pos, *c) for c in corners])
    cot_index, cot_weight = to_undirected(index, cot)
    cot_deg = scatter_rows(xp, cot_weight, cot_index[0], num_nodes, "sum")
    edge_index, _ = add_self_loops(cot_index, num_nodes=num_nodes)
    edge_weight = xp.concatenate([cot_weight, -cot_deg])
    if normalization is None:
        return edge_index, edge_weight
    area = xp.concatenate([_area(xp, pos, *c) for c in corners])
    area_index, area_weight = to_undirected(index, area)
    area_deg = scatter_rows(xp, area_weight, area_index[0], num_nodes, "sum")
    row = kernel_index(xp, edge_index[0])
    with np.errstate(divide="ignore"):
        if normalization == "sym":
            scale = torch_rsqrt(area_deg)
            scale[xp.isinf(scale)] = 0
            return edge_index, scale[row] * edge_weight * scale[kernel_index(xp, edge_index[1])]
        scale = 1 / area_deg
        scale[xp.isinf(scale)] = 0
    return edge_index, scale[row] * edge_weight


def _cross_norm(xp: Any, pos: Any, left: Any, centre: Any, right: Any) -> tuple[Any, Any]:
    """``(left - centre) . (right - centre)`` and ``|(left - centre) x (right - centre)|``."""
    a = pos[left] - pos[centre]
    b = pos[right] - pos[centre]
    return (a * b).sum(axis=1), xp.linalg.norm(xp.cross(a, b, axis=1), axis=1)


def _half_cot(xp: Any, pos: Any, left: Any, centre: Any, right: Any) -> Any:
    dot, cross = _cross_norm(xp, pos, left, centre, right)
    with np.errstate(divide="ignore", invalid="ignore"):
        return dot / cross / 2


def _area(xp: Any, pos: Any, left: Any, centre: Any, right: Any) -> Any:
    return _cross_norm(xp, pos, left, centre, right)[1] / 6 / 2
