"""PyG's ``to_trimesh`` / ``from_trimesh``: a mesh ``Data`` (``pos`` [N, 3], ``face``
[3, F]) to and from a ``trimesh.Trimesh`` (the optional ``trimesh`` package, imported
when called).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(pos=np.zeros((3, 3), np.float32), face=np.array([[0], [1], [2]]))
>>> from_trimesh(to_trimesh(d)).face.tolist()  # doctest: +SKIP
[[0], [1], [2]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.data import Data

__all__ = ["from_trimesh", "to_trimesh"]


def _trimesh(where: str) -> Any:
    try:
        import trimesh
    except ImportError:
        raise ImportError(
            f"{where} needs the optional 'trimesh' package (pip install trimesh)"
        ) from None
    return trimesh


def to_trimesh(data: Any) -> Any:
    """``trimesh.Trimesh(vertices=pos, faces=face.T, process=False)`` (host copies; the
    mesh is not merged or cleaned, as PyG)."""
    where = "to_trimesh"
    if not isinstance(data, Data):
        raise TypeError(f"{where}: data must be a Data, got {type(data).__name__}")
    for key in ("pos", "face"):
        if key not in data:
            raise ValueError(f"{where}: data has no {key!r}")
    pos, face = to_numpy(data.pos), to_numpy(data.face)
    if pos.ndim != 2 or pos.shape[1] != 3 or face.ndim != 2 or face.shape[0] != 3:
        raise ValueError(
            f"{where}: pos must be [N, 3] and face [3, F], got {pos.shape} and {face.shape}"
        )
    return _trimesh(where).Trimesh(vertices=pos, faces=face.T, process=False)


def from_trimesh(mesh: Any) -> Data:
    """A ``Data`` with ``pos`` (float32 vertices) and ``face`` ([3, F] int64), as PyG."""
    trimesh = _trimesh("from_trimesh")
    if not isinstance(mesh, trimesh.Trimesh):
        raise TypeError(f"from_trimesh: mesh must be a trimesh.Trimesh, got {type(mesh).__name__}")
    pos = np.asarray(mesh.vertices).astype(np.float32)
    face = np.ascontiguousarray(np.asarray(mesh.faces).T).astype(np.int64)
    return Data(pos=pos, face=face)
