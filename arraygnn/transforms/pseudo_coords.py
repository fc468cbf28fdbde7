"""PyG's edge pseudo-coordinates from node positions: ``Cartesian``, ``LocalCartesian``,
``Distance``, ``Polar``, ``Spherical`` and ``PointPairFeatures``.

Same arguments and formulas as ``torch_geometric.transforms`` (PyG 2.8): each computes one
row of features per edge ``(row, col) = edge_index`` from ``pos`` (and ``norm`` for
``PointPairFeatures``) and sets ``edge_attr`` to it, or, with ``cat=True`` and an existing
``edge_attr``, to ``[edge_attr, features]`` (a 1-D ``edge_attr`` read as [E, 1]; the
features cast to ``edge_attr``'s dtype, or for ``Polar`` / ``Spherical`` to ``pos``'s, as
PyG). One gather per endpoint and array arithmetic over the [E, D] differences: there is
no smaller path, the result itself is per edge. ``LocalCartesian``'s per-node maximum is a
``scatter`` max (the ``arraygnn.ops`` kernel).

RULE: the global maximum of ``norm=True`` with ``max_value=None`` is read back to the host
(``float(max)``), as PyG does: a sync on CuPy; give ``max_value`` to avoid it.
RULE: new arrays only; ``edge_attr`` is replaced, never written into.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(pos=np.array([[0.0, 0.0], [3.0, 4.0]]), edge_index=np.array([[0, 1], [1, 0]]))
>>> Distance(norm=False)(d).edge_attr.tolist()
[[5.0], [5.0]]
>>> Cartesian()(d).edge_attr.tolist()
[[0.125, 0.0], [0.875, 1.0]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.transforms._points import float_arg, point_array
from arraygnn.transforms.base import BaseTransform
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.scatter import scatter

__all__ = ["Cartesian", "Distance", "LocalCartesian", "PointPairFeatures", "Polar", "Spherical"]


def _interval(where: str, interval: Any) -> tuple[float, float]:
    if not isinstance(interval, (tuple, list)) or len(interval) != 2:
        raise ValueError(f"{where}: interval must be a pair (low, high), got {interval!r}")
    return float(interval[0]), float(interval[1])


def _edges(where: str, data: Any, *, ndim: tuple[int, ...] = (1, 2)) -> tuple[Any, Any, Any]:
    """``(row, col, pos)`` checked: integer [2, E] ids inside ``pos``'s rows."""
    pos = point_array(where, data, "pos", ndim=ndim)
    if "edge_index" not in data:
        raise ValueError(f"{where}: data has no edge_index")
    ei = data["edge_index"]
    get_namespace(ei, pos)
    if getattr(ei, "ndim", 0) != 2 or ei.shape[0] != 2 or ei.dtype.kind not in "iu":
        raise ValueError(
            f"{where}: edge_index must be an integer [2, E] array, got "
            f"{getattr(ei, 'dtype', type(ei).__name__)} {tuple(getattr(ei, 'shape', ()))}"
        )
    if ei.size:
        lo, hi = int(ei.min()), int(ei.max())
        if lo < 0 or hi >= pos.shape[0]:
            raise ValueError(
                f"{where}: edge_index holds node id {lo if lo < 0 else hi}, outside the "
                f"{pos.shape[0]} rows of pos"
            )
    return ei[0], ei[1], pos


def _set(data: Any, values: Any, cat: bool, like: str = "edge_attr") -> Any:
    """``edge_attr = [edge_attr, values]`` (``cat`` and one exists) or ``values``."""
    pseudo = data["edge_attr"] if "edge_attr" in data else None
    if pseudo is not None and cat:
        xp = get_namespace(pseudo, values)
        pseudo = pseudo.reshape(-1, 1) if pseudo.ndim == 1 else pseudo
        dtype = pseudo.dtype if like == "edge_attr" else data["pos"].dtype
        data.edge_attr = xp.concatenate([pseudo, values.astype(dtype, copy=False)], axis=-1)
    else:
        data.edge_attr = values
    return data


def _norm(xp: Any, v: Any) -> Any:
    return xp.sqrt(_dot(v, v))


def _dot(a: Any, b: Any) -> Any:
    """``(a * b).sum(axis=-1)``; for up to 4 components added column by column in order
    (the same bits as NumPy's short-axis reduction, which costs 10x: one inner-loop call
    per row). Other dtypes keep the reduction (NumPy accumulates half precision in
    float32 and widens small integers)."""
    wide_float = all(x.dtype.kind == "f" and x.dtype.itemsize >= 4 for x in (a, b))
    if not wide_float or a.shape[-1] > 4 or a.shape[-1] == 0:
        return (a * b).sum(axis=-1)
    out = a[..., 0] * b[..., 0]
    for k in range(1, a.shape[-1]):
        out = out + a[..., k] * b[..., k]
    return out


def _cross3(a: Any, b: Any) -> tuple[Any, Any, Any]:
    """The components of ``cross(a, b)`` for [..., 3] arrays (NumPy's own arithmetic)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


class _Normed(BaseTransform):
    """The arguments shared by the pseudo-coordinate transforms: ``norm``, ``max_value``,
    ``cat`` (checked, the transform's name in every message)."""

    def __init__(self, norm: bool = True, max_value: float | None = None, cat: bool = True):
        where = type(self).__name__
        self.norm = bool_arg(where, "norm", norm)
        self.max = float_arg(where, "max_value", max_value, optional=True)
        self.cat = bool_arg(where, "cat", cat)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(norm={self.norm}, max_value={self.max})"


class _NormedInterval(_Normed):
    """:class:`_Normed` and the ``interval`` the normalised values are mapped into."""

    def __init__(
        self,
        norm: bool = True,
        max_value: float | None = None,
        cat: bool = True,
        interval: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        super().__init__(norm, max_value, cat)
        self.interval = _interval(type(self).__name__, interval)


class Cartesian(_NormedInterval):
    """Relative positions ``pos[row] - pos[col]``; with ``norm=True`` mapped into
    ``interval``: ``length * cart / (2 * max) + center`` with ``max = max |cart|`` (or
    ``max_value``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0], [2.0]]), edge_index=np.array([[0], [1]]))
    >>> Cartesian(norm=False)(d).edge_attr.tolist()
    [[-2.0]]
    """

    def forward(self, data: Any) -> Any:
        row, col, pos = _edges("Cartesian", data)
        cart = pos[row] - pos[col]
        cart = cart.reshape(-1, 1) if cart.ndim == 1 else cart
        if self.norm and cart.size > 0:
            max_val = float(abs(cart).max()) if self.max is None else self.max
            low, high = self.interval
            cart = (high - low) * cart / (2 * max_val) + (low + high) / 2
        return _set(data, cart, self.cat)


class LocalCartesian(BaseTransform):
    """As :class:`Cartesian` with ``norm=True``, but each edge is scaled by the largest
    coordinate of the edges into its target ``col`` (a scatter max over the edges).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0], [2.0], [1.0]]), edge_index=np.array([[0, 2], [1, 1]]))
    >>> LocalCartesian()(d).edge_attr.tolist()
    [[0.0], [0.25]]
    """

    def __init__(
        self, norm: bool = True, cat: bool = True, interval: tuple[float, float] = (0.0, 1.0)
    ) -> None:
        self.norm = bool_arg("LocalCartesian", "norm", norm)
        self.cat = bool_arg("LocalCartesian", "cat", cat)
        self.interval = _interval("LocalCartesian", interval)

    def forward(self, data: Any) -> Any:
        row, col, pos = _edges("LocalCartesian", data)
        cart = pos[row] - pos[col]
        cart = cart.reshape(-1, 1) if cart.ndim == 1 else cart
        if self.norm:
            most = scatter(abs(cart), col, 0, int(pos.shape[0]), reduce="max")
            most = most.max(axis=-1, keepdims=True) if most.shape[-1] else most
            low, high = self.interval
            with np.errstate(divide="ignore", invalid="ignore"):
                cart = (high - low) * cart / (2 * most[col]) + (low + high) / 2
            cart = cart.astype(pos.dtype, copy=False)
        return _set(data, cart, self.cat)


class Distance(_NormedInterval):
    """Euclidean edge lengths ``||pos[col] - pos[row]||`` as [E, 1]; with ``norm=True``
    mapped into ``interval``: ``length * (dist / max) + low``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0, 0.0], [3.0, 4.0]]), edge_index=np.array([[0], [1]]))
    >>> Distance(max_value=10.0)(d).edge_attr.tolist()
    [[0.5]]
    """

    def forward(self, data: Any) -> Any:
        row, col, pos = _edges("Distance", data, ndim=(2,))
        xp = get_namespace(pos)
        dist = _norm(xp, pos[col] - pos[row]).reshape(-1, 1)
        if self.norm and dist.size > 0:
            max_val = float(dist.max()) if self.max is None else self.max
            low, high = self.interval
            dist = (high - low) * (dist / max_val) + low
        return _set(data, dist, self.cat)


def _angle(xp: Any, cart: Any) -> Any:
    theta = xp.arctan2(cart[..., 1], cart[..., 0]).reshape(-1, 1)
    return theta + (theta < 0).astype(theta.dtype) * (2 * math.pi)


class _Angular(_Normed):
    """Shared steps of :class:`Polar` and :class:`Spherical` (``pos`` [N, ``_dim``])."""

    _dim = 2

    def _rho_theta(self, data: Any) -> tuple[Any, Any, Any, Any]:
        """``(xp, cart, rho, theta)`` of ``cart = pos[col] - pos[row]``, not yet normed."""
        where = type(self).__name__
        row, col, pos = _edges(where, data, ndim=(2,))
        if pos.shape[1] != self._dim:
            raise ValueError(f"{where}: pos must be [N, {self._dim}], got {tuple(pos.shape)}")
        xp = get_namespace(pos)
        cart = pos[col] - pos[row]
        return xp, cart, _norm(xp, cart).reshape(-1, 1), _angle(xp, cart)

    def _normed(self, rho: Any, theta: Any) -> tuple[Any, Any]:
        """``norm=True``: ``rho / max`` (``max_value``, else the largest ``rho``) and
        ``theta / (2 pi)``."""
        if self.norm:
            if self.max is not None:
                rho = rho / self.max
            elif rho.size:
                rho = rho / rho.max()
            theta = theta / (2 * math.pi)
        return rho, theta


class Polar(_Angular):
    """2-D polar coordinates ``(rho, theta)`` of ``pos[col] - pos[row]`` (``theta`` in
    ``[0, 2 pi)``); with ``norm=True`` ``rho / max`` and ``theta / (2 pi)``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0, 0.0], [0.0, 2.0]]), edge_index=np.array([[0], [1]]))
    >>> Polar()(d).edge_attr.tolist()
    [[1.0, 0.25]]
    """

    def forward(self, data: Any) -> Any:
        xp, _, rho, theta = self._rho_theta(data)
        rho, theta = self._normed(rho, theta)
        return _set(data, xp.concatenate([rho, theta], axis=-1), self.cat, like="pos")


class Spherical(_Angular):
    """3-D spherical coordinates ``(rho, theta, phi)`` of ``pos[col] - pos[row]``
    (``theta`` in ``[0, 2 pi)``, ``phi = acos(z / rho)``); with ``norm=True`` ``rho / max``,
    ``theta / (2 pi)``, ``phi / pi``. A zero-length edge gives ``phi = nan``, as PyG.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0, 0, 0], [0, 0, 2.0]]), edge_index=np.array([[0], [1]]))
    >>> Spherical()(d).edge_attr.tolist()
    [[1.0, 0.0, 0.0]]
    """

    _dim = 3

    def forward(self, data: Any) -> Any:
        xp, cart, rho, theta = self._rho_theta(data)
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = xp.arccos(cart[..., 2] / rho.reshape(-1)).reshape(-1, 1)
        rho, theta = self._normed(rho, theta)
        if self.norm:
            phi = phi / math.pi
        return _set(data, xp.concatenate([rho, theta, phi], axis=-1), self.cat, like="pos")


def point_pair_features(xp: Any, pos_i: Any, pos_j: Any, normal_i: Any, normal_j: Any) -> Any:
    """PPFNet's ``[||d||, angle(n_i, d), angle(n_j, d), angle(n_i, n_j)]`` with
    ``d = pos_j - pos_i`` and ``angle(a, b) = atan2(||a x b||, a . b)`` ([E, 4])."""

    def angle(a: Any, b: Any) -> Any:
        c0, c1, c2 = _cross3(a, b)
        return xp.arctan2(xp.sqrt(c0 * c0 + c1 * c1 + c2 * c2), _dot(a, b))

    d = pos_j - pos_i
    return xp.stack(
        [_norm(xp, d), angle(normal_i, d), angle(normal_j, d), angle(normal_i, normal_j)],
        axis=1,
    )


class PointPairFeatures(BaseTransform):
    """Point pair features of each edge from ``pos`` and the normals ``norm`` (both [N, 3]),
    with ``i = row``, ``j = col`` (PyG's ``PointPairFeatures``).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(pos=np.array([[0.0, 0, 0], [1.0, 0, 0]]), edge_index=np.array([[0], [1]]),
    ...          norm=np.array([[1.0, 0, 0], [0, 1.0, 0]]))
    >>> PointPairFeatures()(d).edge_attr.round(4).tolist()
    [[1.0, 0.0, 1.5708, 1.5708]]
    """

    def __init__(self, cat: bool = True) -> None:
        self.cat = bool_arg("PointPairFeatures", "cat", cat)

    def forward(self, data: Any) -> Any:
        where = "PointPairFeatures"
        row, col, pos = _edges(where, data, ndim=(2,))
        norm = point_array(where, data, "norm")
        if pos.shape[-1] != 3 or norm.shape != pos.shape:
            raise ValueError(
                f"{where}: pos and norm must both be [N, 3], got {tuple(pos.shape)} and "
                f"{tuple(norm.shape)}"
            )
        xp = get_namespace(pos, norm)
        ppf = point_pair_features(xp, pos[row], pos[col], norm[row], norm[col])
        return _set(data, ppf, self.cat)
