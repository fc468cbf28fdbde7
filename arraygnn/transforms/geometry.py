"""PyG's point-position transforms: ``Center``, ``NormalizeScale``, ``NormalizeRotation``,
``LinearTransformation`` and the random augmentations ``RandomJitter``, ``RandomFlip``,
``RandomScale``, ``RandomRotate``, ``RandomShear``.

Same arguments and formulas as ``torch_geometric.transforms`` (PyG 2.8); each sets a new
``pos`` (and ``normal``) on the output and never writes into the caller's arrays.
``Center`` and ``LinearTransformation`` also act on every node type of a ``HeteroData``
holding ``pos`` (as PyG's); the others need a ``Data``. Positions must be float arrays,
[N, D]; the result keeps their dtype (``RandomRotate`` builds its matrix in float32 and casts
it, as PyG does, so float64 positions see a float32-rounded rotation).

RULE: random numbers come from ``seed`` (an int, a ``numpy.random.Generator`` or ``None``),
taken when the transform is built; scalar draws (flip, scale, angle, shear matrix) are made
on the host, per-point draws (jitter) on the positions' device. PyG draws from Python's and
torch's generators, so its values differ.
RULE: ``NormalizeRotation`` diagonalises the D x D covariance with LAPACK's general
eigensolver, as PyG (``numpy.linalg.eig``; on CuPy that small matrix goes to the host and its
eigenvectors come back: one round trip). Eigenvector signs and, without ``sort=True``,
their order are LAPACK's.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(pos=np.array([[0.0, 0.0], [2.0, 4.0]]))
>>> Center()(d).pos.tolist(), d.pos.tolist()
([[-1.0, -2.0], [1.0, 2.0]], [[0.0, 0.0], [2.0, 4.0]])
>>> NormalizeScale()(d).pos.round(6).tolist()
[[-0.5, -0.999999], [0.5, 0.999999]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.transforms._draws import device_generator, permutation, seed_arg, uniform
from arraygnn.transforms._points import node_stores, normalize_rows, point_array
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg

__all__ = [
    "Center",
    "LinearTransformation",
    "NormalizeRotation",
    "NormalizeScale",
    "RandomFlip",
    "RandomJitter",
    "RandomRotate",
    "RandomScale",
    "RandomShear",
]


def _centered(pos: Any) -> Any:
    if pos.shape[0] == 0:
        return pos.copy()
    return pos - pos.mean(axis=-2, keepdims=True)


class Center(BaseTransform):
    """Subtract the mean position from ``pos`` (every node store holding ``pos``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> Center()(Data(pos=np.array([[1.0], [3.0]]))).pos.tolist()
    [[-1.0], [1.0]]
    """

    def forward(self, data: Any) -> Any:
        for store in node_stores(data):
            if "pos" in store:
                store.pos = _centered(point_array("Center", store, "pos"))
        return data


class NormalizeScale(BaseTransform):
    """Center ``pos``, then scale it into ``(-1, 1)``: ``pos * (1 / max|pos|) * 0.999999``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> NormalizeScale()(Data(pos=np.array([[1.0], [5.0]]))).pos.tolist()
    [[-0.999999], [0.999999]]
    """

    def forward(self, data: Any) -> Any:
        pos = _centered(point_array("NormalizeScale", data, "pos"))
        if pos.size:
            with np.errstate(divide="ignore", invalid="ignore"):  # one point: nan, as PyG
                scale = (1.0 / abs(pos).max()) * 0.999999
                pos = pos * scale
        data.pos = pos
        return data


class NormalizeRotation(BaseTransform):
    """Rotate ``pos`` onto its principal axes: ``pos @ V`` with ``V`` the eigenvectors of the
    covariance of the centered points (of ``max_points`` random points when ``max_points >
    0`` and there are more); ``sort=True`` orders them by decreasing eigenvalue. A
    ``normal`` attribute is rotated too and renormalised.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> pos = np.array([[-2.0, -2.0], [2.0, 2.0], [-1.0, 1.0], [1.0, -1.0]])
    >>> out = NormalizeRotation(sort=True)(Data(pos=pos)).pos
    >>> np.abs(out).round(4).tolist()
    [[2.8284, 0.0], [2.8284, 0.0], [0.0, 1.4142], [0.0, 1.4142]]
    """

    def __init__(self, max_points: int = -1, sort: bool = False, *, seed: Any = None) -> None:
        if isinstance(max_points, (bool, np.bool_)) or not isinstance(
            max_points, (int, np.integer)
        ):
            raise TypeError(f"NormalizeRotation: max_points must be an int, got {max_points!r}")
        self.max_points = int(max_points)
        self.sort = bool_arg("NormalizeRotation", "sort", sort)
        self._rng = seed_arg("NormalizeRotation", seed)

    def forward(self, data: Any) -> Any:
        where = "NormalizeRotation"
        full = point_array(where, data, "pos")
        xp = get_namespace(full)
        pos = full
        if self.max_points > 0 and pos.shape[0] > self.max_points:
            gen = device_generator(xp, self._rng, where)
            pos = pos[permutation(xp, gen, int(pos.shape[0]))[: self.max_points]]
        pos = _centered(pos)
        cov = to_numpy(pos.T @ pos)
        e, v = np.linalg.eig(cov)
        v = np.ascontiguousarray(v.real.astype(full.dtype, copy=False))
        if self.sort:
            order = np.argsort(-e.real, kind="stable")
            v = v[:, order]
        v = xp.asarray(v)
        data.pos = full @ v
        if "normal" in data:
            normal = point_array(where, data, "normal")
            data.normal = normalize_rows(xp, normal @ v.astype(normal.dtype, copy=False))
        return data


class LinearTransformation(BaseTransform):
    """``pos @ matrix.T`` for every node store holding ``pos`` (a 1-D ``pos`` is read as
    [N, 1]); ``matrix`` is a square [D, D] array or nested list, cast to ``pos``'s dtype.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> t = LinearTransformation([[0.0, -1.0], [1.0, 0.0]])
    >>> t(Data(pos=np.array([[1.0, 0.0]]))).pos.tolist()
    [[0.0, 1.0]]
    """

    def __init__(self, matrix: Any) -> None:
        m = to_numpy(matrix) if is_array(matrix) else np.asarray(matrix)
        if m.ndim != 2:
            raise ValueError(
                f"LinearTransformation: matrix must be two-dimensional, got shape {m.shape}"
            )
        if m.shape[0] != m.shape[1]:
            raise ValueError(f"LinearTransformation: matrix must be square, got shape {m.shape}")
        if m.dtype.kind not in "iuf":
            raise TypeError(f"LinearTransformation: matrix must be numeric, got {m.dtype}")
        if m.dtype.kind != "f":  # torch.tensor of Python ints / floats: int64 / float32
            m = m.astype(np.float32)
        self.matrix = np.ascontiguousarray(m.T)  # stored transposed, as PyG

    def forward(self, data: Any) -> Any:
        where = "LinearTransformation"
        for store in node_stores(data):
            if "pos" not in store:
                continue
            pos = point_array(where, store, "pos", ndim=(1, 2))
            pos = pos.reshape(-1, 1) if pos.ndim == 1 else pos
            if pos.shape[-1] != self.matrix.shape[-2]:
                raise ValueError(
                    f"{where}: pos has {pos.shape[-1]} columns but matrix is "
                    f"{list(self.matrix.shape)}: incompatible shapes"
                )
            xp = get_namespace(pos)
            store.pos = pos @ xp.asarray(self.matrix.astype(pos.dtype, copy=False))
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(\n{self.matrix}\n)"


class RandomJitter(BaseTransform):
    """Add uniform noise in ``[-|t_d|, |t_d|)`` to coordinate ``d`` of every point;
    ``translate`` is one number or one per dimension.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> out = RandomJitter(0.1, seed=0)(Data(pos=np.zeros((3, 2))))
    >>> bool((np.abs(out.pos) <= 0.1).all())
    True
    """

    def __init__(self, translate: Any, *, seed: Any = None) -> None:
        values = [translate] if isinstance(translate, (int, float, np.number)) else translate
        try:
            values = [float(t) for t in values]
        except (TypeError, ValueError):
            raise TypeError(
                f"RandomJitter: translate must be a number or a list of numbers, got {translate!r}"
            ) from None
        self.translate = translate
        self._values = values
        self._scalar = isinstance(translate, (int, float, np.number))
        self._rng = seed_arg("RandomJitter", seed)

    def forward(self, data: Any) -> Any:
        pos = point_array("RandomJitter", data, "pos")
        xp = get_namespace(pos)
        num, dim = int(pos.shape[0]), int(pos.shape[1])
        t = self._values * dim if self._scalar else self._values
        if len(t) != dim:
            raise ValueError(
                f"RandomJitter: translate has {len(t)} entries but pos has {dim} dimensions"
            )
        t = xp.asarray(np.abs(np.asarray(t, dtype=np.float64)))
        gen = device_generator(xp, self._rng, "RandomJitter")
        jitter = uniform(xp, gen, -t, t, (num, dim)).astype(pos.dtype)
        data.pos = pos + jitter
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.translate})"


class RandomFlip(BaseTransform):
    """Negate coordinate ``axis`` of ``pos`` with probability ``p``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> RandomFlip(0, p=1.0)(Data(pos=np.array([[1.0, 2.0]]))).pos.tolist()
    [[-1.0, 2.0]]
    """

    def __init__(self, axis: int, p: float = 0.5, *, seed: Any = None) -> None:
        if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"RandomFlip: axis must be an int, got {axis!r}")
        if not isinstance(p, (int, float, np.number)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"RandomFlip: p must be a probability in [0, 1], got {p!r}")
        self.axis = int(axis)
        self.p = float(p)
        self._rng = seed_arg("RandomFlip", seed)

    def forward(self, data: Any) -> Any:
        pos = point_array("RandomFlip", data, "pos", ndim=(1, 2, 3))
        if not -pos.shape[-1] <= self.axis < pos.shape[-1]:
            raise ValueError(
                f"RandomFlip: axis {self.axis} is out of range for pos of shape {tuple(pos.shape)}"
            )
        if self._rng.random() < self.p:
            pos = pos.copy()
            pos[..., self.axis] = -pos[..., self.axis]
            data.pos = pos
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(axis={self.axis}, p={self.p})"


class RandomScale(BaseTransform):
    """Multiply ``pos`` by one factor drawn uniformly from ``scales = (a, b)``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> RandomScale((2.0, 2.0), seed=0)(Data(pos=np.ones((1, 2)))).pos.tolist()
    [[2.0, 2.0]]
    """

    def __init__(self, scales: tuple[float, float], *, seed: Any = None) -> None:
        if not isinstance(scales, (tuple, list)) or len(scales) != 2:
            raise ValueError(f"RandomScale: scales must be a pair (low, high), got {scales!r}")
        self.scales = scales
        self._rng = seed_arg("RandomScale", seed)

    def forward(self, data: Any) -> Any:
        pos = point_array("RandomScale", data, "pos", ndim=(1, 2, 3))
        lo, hi = float(self.scales[0]), float(self.scales[1])
        data.pos = pos * (lo + (hi - lo) * self._rng.random())
        return data

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.scales})"


def rotation_matrix(degree: float, dim: int, axis: int) -> np.ndarray:
    """PyG's rotation by ``degree`` (radians) in 2-D, or about ``axis`` in 3-D (float32)."""
    sin, cos = math.sin(degree), math.cos(degree)
    if dim == 2:
        matrix = [[cos, sin], [-sin, cos]]
    elif axis == 0:
        matrix = [[1, 0, 0], [0, cos, sin], [0, -sin, cos]]
    elif axis == 1:
        matrix = [[cos, 0, -sin], [0, 1, 0], [sin, 0, cos]]
    else:
        matrix = [[cos, sin, 0], [-sin, cos, 0], [0, 0, 1]]
    return np.asarray(matrix, dtype=np.float32)


class RandomRotate(BaseTransform):
    """Rotate ``pos`` by an angle drawn uniformly from ``degrees`` (a pair, or ``d`` for
    ``(-|d|, |d|)``), in 2-D or about ``axis`` (0, 1, 2) in 3-D.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> out = RandomRotate((90, 90), seed=0)(Data(pos=np.array([[1.0, 0.0]])))
    >>> out.pos.round(6).tolist()  # PyG's sense of rotation: clockwise in 2-D
    [[0.0, -1.0]]
    """

    def __init__(self, degrees: Any, axis: int = 0, *, seed: Any = None) -> None:
        if isinstance(degrees, (int, float, np.number)) and not isinstance(degrees, bool):
            degrees = (-abs(degrees), abs(degrees))
        if not isinstance(degrees, (tuple, list)) or len(degrees) != 2:
            raise ValueError(
                f"RandomRotate: degrees must be a number or a pair (low, high), got {degrees!r}"
            )
        if axis not in (0, 1, 2):
            raise ValueError(f"RandomRotate: axis must be 0, 1 or 2, got {axis!r}")
        self.degrees = degrees
        self.axis = axis
        self._rng = seed_arg("RandomRotate", seed)

    def forward(self, data: Any) -> Any:
        pos = point_array("RandomRotate", data, "pos")
        if pos.shape[-1] not in (2, 3):
            raise ValueError(
                f"RandomRotate: pos must have 2 or 3 columns, got shape {tuple(pos.shape)}"
            )
        lo, hi = float(self.degrees[0]), float(self.degrees[1])
        degree = math.pi * (lo + (hi - lo) * self._rng.random()) / 180.0
        matrix = rotation_matrix(degree, int(pos.shape[-1]), self.axis)
        return LinearTransformation(matrix).forward(data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.degrees}, axis={self.axis})"


class RandomShear(BaseTransform):
    """Multiply ``pos`` by ``M.T`` with ``M`` a [D, D] matrix of ones on the diagonal and
    uniform draws from ``[-|shear|, |shear|)`` elsewhere.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> RandomShear(0.0, seed=0)(Data(pos=np.array([[1.0, 2.0]]))).pos.tolist()
    [[1.0, 2.0]]
    """

    def __init__(self, shear: float, *, seed: Any = None) -> None:
        if isinstance(shear, bool) or not isinstance(shear, (int, float, np.number)):
            raise TypeError(f"RandomShear: shear must be a number, got {shear!r}")
        self.shear = abs(shear)
        self._rng = seed_arg("RandomShear", seed)

    def forward(self, data: Any) -> Any:
        pos = point_array("RandomShear", data, "pos")
        dim = int(pos.shape[-1])
        s = float(self.shear)
        matrix = uniform(np, self._rng, -s, s, (dim, dim)).astype(pos.dtype)
        matrix[np.arange(dim), np.arange(dim)] = 1
        return LinearTransformation(matrix).forward(data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.shear})"
