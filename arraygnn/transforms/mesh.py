"""PyG's mesh transforms: ``FaceToEdge``, ``GenerateMeshNormals``, ``SamplePoints`` and
``Delaunay``.

Same arguments and results as ``torch_geometric.transforms`` (PyG 2.8). ``face`` is an
integer [3, F] array of triangles (``FaceToEdge`` also takes [4, F] tetrahedra), ids into
the rows of ``pos``. Ids keep ``face``'s dtype; ``Delaunay`` makes int64 arrays, as PyG.

- ``FaceToEdge``: the faces' sides (every pair of a tetrahedron's corners) as an undirected,
  coalesced ``edge_index`` (:func:`arraygnn.utils.to_undirected`).
- ``GenerateMeshNormals``: per-vertex normals ``norm``: the unit normals of the faces around
  a vertex summed (``arraygnn.ops`` scatter) and normalised.
- ``SamplePoints``: ``num`` points on the surface, faces drawn with probability
  proportional to their area (inverse-CDF over the cumulative areas), points uniform on the
  face; replaces ``pos`` (and ``face`` unless ``remove_faces=False``; ``normal`` with
  ``include_normals=True``).
- ``Delaunay``: ``scipy.spatial.Delaunay(pos, qhull_options='QJ')`` (PyG's fallback when
  ``torch_delaunay`` is not installed) as ``face``; fewer than 4 points as PyG.

RULE: ``SamplePoints`` makes new points, so no other per-node array can follow them: it
refuses data holding ``x`` or other per-node arrays named in ``node_attrs=`` (default
``'x'`` where present) and ``edge_index`` (build edges after sampling). Random numbers come
from ``seed`` (an int, a ``numpy.random.Generator`` or ``None``), taken when the transform
is built; PyG's come from torch's generator.
RULE: ``Delaunay`` runs on the host (qhull): on CuPy, ``pos`` is copied to the host and the
faces back (one round trip per call).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(pos=np.zeros((3, 3)), face=np.array([[0], [1], [2]]))
>>> out = FaceToEdge()(d)
>>> out.edge_index.tolist(), "face" in out, "face" in d
([[0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]], False, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.transforms._draws import device_generator, seed_arg
from arraygnn.transforms._graph import int_arg
from arraygnn.transforms._on_batch import refuse_batch
from arraygnn.transforms._points import normalize_rows, point_array
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.scatter import scatter
from arraygnn.utils.undirected import to_undirected

__all__ = ["Delaunay", "FaceToEdge", "GenerateMeshNormals", "SamplePoints"]


def _face(where: str, data: Any, rows: tuple[int, ...], num: int | None) -> Any:
    if "face" not in data:
        raise ValueError(f"{where}: data has no face")
    face = data["face"]
    if not is_array(face) or face.dtype.kind not in "iu" or face.ndim != 2:
        raise ValueError(
            f"{where}: face must be an integer [{'/'.join(map(str, rows))}, num_faces] "
            f"array, got {getattr(face, 'dtype', type(face).__name__)} "
            f"{tuple(getattr(face, 'shape', ()))}"
        )
    if face.shape[0] not in rows:
        raise ValueError(
            f"{where}: expected face with shape [{' or '.join(map(str, rows))}, num_faces], "
            f"got {list(face.shape)}"
        )
    if num is not None and face.size:
        lo, hi = int(face.min()), int(face.max())
        if lo < 0 or hi >= num:
            raise ValueError(
                f"{where}: face holds node id {lo if lo < 0 else hi}, outside [0, {num})"
            )
    return face


def _cross(xp: Any, a: Any, b: Any) -> Any:
    return xp.cross(a, b) if a.shape[0] else xp.zeros_like(a)


class FaceToEdge(BaseTransform):
    """``edge_index`` from the sides of ``face`` (undirected, coalesced); ``face`` removed
    when ``remove_faces``. Data without ``face`` is returned unchanged, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(num_nodes=4, face=np.array([[0], [1], [2], [3]]))
    >>> FaceToEdge()(d).edge_index.shape
    (2, 12)
    """

    def __init__(self, remove_faces: bool = True) -> None:
        self.remove_faces = bool_arg("FaceToEdge", "remove_faces", remove_faces)

    def forward(self, data: Any) -> Any:
        if "face" not in data:
            return data
        num = data.num_nodes
        face = _face("FaceToEdge", data, (3, 4), num)
        xp = get_namespace(face)
        if face.shape[0] == 3:
            pairs = [face[:2], face[1:], face[::2]]
        else:
            pairs = [face[:2], face[1:3], face[2:4], face[::2], face[1::2], face[::3]]
        edge_index = xp.concatenate(pairs, axis=1)
        data.edge_index = to_undirected(edge_index, num_nodes=num)
        if self.remove_faces:
            data.face = None
        return data


class GenerateMeshNormals(BaseTransform):
    """Per-vertex normals ``norm`` [N, 3] of a triangle mesh (``pos`` [N, 3], ``face``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> pos = np.array([[0.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0]])
    >>> GenerateMeshNormals()(Data(pos=pos, face=np.array([[0], [1], [2]]))).norm.tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    """

    #: the per-node array it adds (a ``Batch`` keeps records for it)
    node_outputs = ("norm",)

    def forward(self, data: Any) -> Any:
        where = "GenerateMeshNormals"
        pos = point_array(where, data, "pos")
        if pos.shape[1] != 3:
            raise ValueError(f"{where}: pos must be [N, 3], got {tuple(pos.shape)}")
        face = _face(where, data, (3,), int(pos.shape[0]))
        xp = get_namespace(pos, face)
        vec1 = pos[face[1]] - pos[face[0]]
        vec2 = pos[face[2]] - pos[face[0]]
        face_norm = normalize_rows(xp, _cross(xp, vec1, vec2))
        summed = scatter(xp.tile(face_norm, (3, 1)), face.reshape(-1), 0, int(pos.shape[0]))
        data.norm = normalize_rows(xp, summed)
        return data


class SamplePoints(BaseTransform):
    """``num`` points sampled on the surface of a triangle mesh (``pos`` [N, 3], ``face``
    [3, F]), faces drawn by area; see the module notes.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> pos = np.array([[0.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0]])
    >>> out = SamplePoints(5, seed=0)(Data(pos=pos, face=np.array([[0], [1], [2]])))
    >>> out.pos.shape, bool((out.pos[:, :2].sum(1) <= 1).all()), "face" in out
    ((5, 3), True, False)
    """

    def __init__(
        self,
        num: int,
        remove_faces: bool = True,
        include_normals: bool = False,
        *,
        node_attrs: Any = None,
        seed: Any = None,
    ) -> None:
        self.num = int_arg("SamplePoints", "num", num)
        self.remove_faces = bool_arg("SamplePoints", "remove_faces", remove_faces)
        self.include_normals = bool_arg("SamplePoints", "include_normals", include_normals)
        self.node_attrs = node_attrs
        self._rng = seed_arg("SamplePoints", seed)

    def forward(self, data: Any) -> Any:
        where = "SamplePoints"
        refuse_batch(where, data, "the sampled points have no graph id: PyG leaves 'batch' stale")
        pos = point_array(where, data, "pos")
        if pos.shape[1] != 3:
            raise ValueError(f"{where}: pos must be [N, 3], got {tuple(pos.shape)}")
        face = _face(where, data, (3,), int(pos.shape[0]))
        names = ["x"] if self.node_attrs is None else list(self.node_attrs)
        stale = [k for k in [*names, "edge_index"] if k != "pos" and k in data]
        if stale:
            raise ValueError(
                f"{where}: data holds {stale}, which cannot follow newly sampled points; "
                "remove them first (build edges after sampling)"
            )
        if face.shape[1] == 0 and self.num:
            raise ValueError(f"{where}: face is empty, there is no surface to sample")
        xp = get_namespace(pos, face)
        pos_max = abs(pos).max() if pos.size else pos.dtype.type(1)
        pos = pos / pos_max
        area = _cross(xp, pos[face[1]] - pos[face[0]], pos[face[2]] - pos[face[0]])
        area = xp.sqrt((area * area).sum(axis=1)) / 2
        cdf = xp.cumsum(area.astype(np.float64))
        gen = device_generator(xp, self._rng, where)
        if self.num and float(cdf[-1]) <= 0:
            raise ValueError(f"{where}: every face has zero area")
        u = gen.random(self.num)
        sample = xp.searchsorted(cdf, u * cdf[-1], side="right") if self.num else u.astype(int)
        sample = xp.minimum(sample, max(int(face.shape[1]) - 1, 0))
        face = face[:, sample]
        frac = gen.random((self.num, 2))
        flip = frac.sum(axis=-1) > 1
        frac = xp.where(flip[:, None], 1 - frac, frac).astype(pos.dtype)
        vec1 = pos[face[1]] - pos[face[0]]
        vec2 = pos[face[2]] - pos[face[0]]
        if self.include_normals:
            data.normal = normalize_rows(xp, _cross(xp, vec1, vec2))
        sampled = pos[face[0]] + frac[:, :1] * vec1 + frac[:, 1:] * vec2
        data.pos = sampled * pos_max
        if self.remove_faces:
            data.face = None
        if "num_nodes" in data:
            data.num_nodes = self.num
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.num})"


class Delaunay(BaseTransform):
    """The Delaunay triangulation of ``pos`` as ``face`` (int64 [3, F] in 2-D); 2 points give
    ``edge_index = [[0, 1], [1, 0]]``, fewer an empty ``edge_index``, 3 points one face.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> Delaunay()(Data(pos=pos)).face.shape
    (3, 2)
    """

    def forward(self, data: Any) -> Any:
        pos = point_array("Delaunay", data, "pos")
        xp = get_namespace(pos)
        n = int(pos.shape[0])
        if n < 2:
            data.edge_index = xp.zeros((2, 0), dtype=np.int64)
        elif n == 2:
            data.edge_index = xp.asarray(np.array([[0, 1], [1, 0]], dtype=np.int64))
        elif n == 3:
            data.face = xp.asarray(np.array([[0], [1], [2]], dtype=np.int64))
        else:
            import scipy.spatial

            tri = scipy.spatial.Delaunay(to_numpy(pos), qhull_options="QJ")
            face = np.ascontiguousarray(tri.simplices.T.astype(np.int64))
            data.face = xp.asarray(face)
        return data
