"""DimeNet's distance and angle bases (PyG's ``Envelope``, ``BesselBasisLayer`` and
``SphericalBasisLayer`` from ``torch_geometric.nn.models.dimenet``).

- ``Envelope(exponent)``: ``u(x) = 1/x + a x^(p-1) + b x^p + c x^(p+1)`` for ``x < 1``
  (0 beyond), ``p = exponent + 1``, the smooth cutoff.
- ``BesselBasisLayer``: ``u(d / cutoff) sin(freq_n d / cutoff)`` per edge, ``freq``
  (learned, initially ``n pi``).
- ``SphericalBasisLayer``: per triplet ``(k -> j -> i)``, the products
  ``u(d_kj / c) N_ln j_l(z_ln d_kj / c) * Y_l^0(angle)`` for ``l < num_spherical``,
  ``n < num_radial``, laid out ``[T, num_spherical * num_radial]`` (``l`` major), as PyG.

How the bases are computed (PyG builds them as ``sympy`` expressions): ``z_ln`` is the
``n``-th positive zero of the spherical Bessel function ``j_l``, found with SciPy's
``brentq`` between consecutive zeros of ``j_(l-1)`` and rounded to float32 exactly as PyG
keeps them (so the coefficients agree with PyG's); ``N_ln = sqrt(2) / |j_(l+1)(z_ln)|``;
``j_l(t) = f_l(1/t) sin t + g_l(1/t) cos t`` with integer polynomials ``f_l``, ``g_l``
from the recurrence ``j_(l+1) = (2l + 1) j_l / t - j_(l-1)`` (Rayleigh's closed form,
the same functions as PyG's expressions); ``Y_l^0 = sqrt((2l + 1) / (4 pi)) P_l(cos
angle)`` with Legendre's ``P_l``. No sympy, no per-function Python callables: the radial
functions, the envelope and the products run in the input's dtype, term by term as PyG's
generated code; the angular ones in float64, cast to the input's dtype. Any
``num_spherical`` / ``num_radial`` (the tables are computed, not stored). In float32
the closed forms lose digits to cancellation for small ``t`` (a high order at a short
distance), in PyG as here: there the two agree to float32 noise, not to the last bit.

>>> import numpy as np
>>> sbf = SphericalBasisLayer(num_spherical=3, num_radial=2, cutoff=5.0)
>>> dist = np.array([1.0, 1.5], np.float32)
>>> sbf(dist, np.array([0.5, 2.0, 1.0], np.float32), np.array([0, 1, 1])).shape
(3, 6)
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size

__all__ = ["Envelope", "BesselBasisLayer", "SphericalBasisLayer"]

#: PyG asserts ``num_radial <= 64`` in ``SphericalBasisLayer``
MAX_NUM_RADIAL = 64


class Envelope(Module):
    """PyG's DimeNet ``Envelope(exponent)``: ``(1/x + a x^(p-1) + b x^p + c x^(p+1)) *
    (x < 1)`` with ``p = exponent + 1``, ``a = -(p+1)(p+2)/2``, ``b = p(p+2)``, ``c =
    -p(p+1)/2`` (``x = 0`` gives ``inf`` / ``nan``, as PyG's)."""

    def __init__(self, exponent: int) -> None:
        self.p = layer_size("Envelope", "exponent", exponent) + 1
        self.a = -(self.p + 1) * (self.p + 2) / 2
        self.b = self.p * (self.p + 2)
        self.c = -self.p * (self.p + 1) / 2

    def __call__(self, x: Any) -> Any:
        x0 = x ** (self.p - 1)
        x1 = x0 * x
        x2 = x1 * x
        with np.errstate(divide="ignore"):
            out = 1.0 / x + self.a * x0 + self.b * x1 + self.c * x2
        return out * (x < 1.0).astype(x.dtype)

    def extra_repr(self) -> str:
        return f"exponent={self.p - 1}"


class BesselBasisLayer(Module):
    """PyG's ``BesselBasisLayer(num_radial, cutoff=5.0, envelope_exponent=5)``:
    ``envelope(d / cutoff) * sin(freq * d / cutoff)``.

    Shapes: ``(E,)`` distances -> ``(E, num_radial)``. Names: ``freq`` ``(num_radial,)``.
    """

    _param_names = ("freq",)

    def __init__(
        self,
        num_radial: int,
        cutoff: float = 5.0,
        envelope_exponent: int = 5,
        *,
        dtype: Any = np.float32,
    ) -> None:
        n = layer_size("BesselBasisLayer", "num_radial", num_radial, minimum=1)
        self.cutoff = float(cutoff)
        self.envelope = Envelope(envelope_exponent)
        self.freq = (np.arange(1, n + 1, dtype=np.float64) * math.pi).astype(dtype)

    def __call__(self, dist: Any) -> Any:
        xp = get_namespace(dist, self.freq)
        d = dist.reshape(-1, 1) / dist.dtype.type(self.cutoff)
        return self.envelope(d) * xp.sin(self.freq.reshape(1, -1) * d)

    def extra_repr(self) -> str:
        return f"num_radial={self.freq.shape[0]}, cutoff={self.cutoff:g}"


class SphericalBasisLayer(Module):
    """PyG's ``SphericalBasisLayer(num_spherical, num_radial, cutoff=5.0,
    envelope_exponent=5)``, no weights.

    Call as ``sbf(dist, angle, idx_kj)``: ``dist`` ``(E,)`` edge lengths, ``angle``
    ``(T,)`` triplet angles, ``idx_kj`` ``(T,)`` each triplet's ``k -> j`` edge ->
    ``(T, num_spherical * num_radial)``. ``radial(dist)`` ``(E, num_spherical,
    num_radial)`` and ``angular(angle)`` ``(T, num_spherical)`` are the two factors.
    """

    def __init__(
        self,
        num_spherical: int,
        num_radial: int,
        cutoff: float = 5.0,
        envelope_exponent: int = 5,
    ) -> None:
        name = "SphericalBasisLayer"
        self.num_spherical = layer_size(name, "num_spherical", num_spherical, minimum=1)
        self.num_radial = layer_size(name, "num_radial", num_radial, minimum=1)
        if self.num_radial > MAX_NUM_RADIAL:
            raise ValueError(f"{name}: num_radial must be at most {MAX_NUM_RADIAL} (as PyG)")
        self.cutoff = float(cutoff)
        self.envelope = Envelope(envelope_exponent)
        self._terms = _radial_terms(self.num_spherical, self.num_radial)

    def radial(self, dist: Any) -> Any:
        """``envelope(d / c) * N_ln j_l(z_ln d / c)``: ``(E,)`` -> ``(E, n_sph, n_rad)``."""
        xp = get_namespace(dist)
        dt = dist.dtype
        d = dist / dt.type(self.cutoff)
        out = xp.empty((d.shape[0], self.num_spherical, self.num_radial), dt)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for order, (zeros, terms) in enumerate(self._terms):
                t = d.reshape(-1, 1) * xp.asarray(zeros.astype(dt))
                trig = {"sin": xp.sin(t), "cos": xp.cos(t)}
                acc = None
                for power, fn, coeff in terms:  # PyG's term order: descending power
                    c = xp.asarray(coeff.astype(dt))
                    term = (c * d.reshape(-1, 1) ** power if power else c) * trig[fn]
                    acc = term if acc is None else acc + term
                out[:, order] = acc / (d ** (order + 1)).reshape(-1, 1)
        return out * self.envelope(d).reshape(-1, 1, 1)

    def angular(self, angle: Any) -> Any:
        """``Y_l^0(angle)``: ``(T,)`` -> ``(T, num_spherical)``."""
        xp = get_namespace(angle)
        c = xp.cos(angle.astype(np.float64))
        out = xp.empty((c.shape[0], self.num_spherical), np.float64)
        prev, cur = xp.ones_like(c), c
        out[:, 0] = 1.0
        for order in range(1, self.num_spherical):
            out[:, order] = cur
            prev, cur = cur, ((2 * order + 1) * c * cur - order * prev) / (order + 1)
        pre = np.sqrt((2 * np.arange(self.num_spherical) + 1) / (4 * np.pi))
        return (out * xp.asarray(pre)).astype(angle.dtype)

    def __call__(self, dist: Any, angle: Any, idx_kj: Any) -> Any:
        from arraygnn import ops
        from arraygnn.nn._gt_input import check_floats
        from arraygnn.ops._common import check_index

        layer = "SphericalBasisLayer"
        check_floats(layer, "dist", dist, (None,))
        check_floats(layer, "angle", angle, (None,))
        check_index(f"{layer}: idx_kj", idx_kj, int(dist.shape[0]))
        if idx_kj.shape != angle.shape:
            raise ValueError(
                f"{layer}: idx_kj must have angle's shape {tuple(angle.shape)} (one edge k -> j "
                f"per triplet), got {tuple(idx_kj.shape)}"
            )
        rbf = self.radial(dist)
        cbf = self.angular(angle)
        n, k = self.num_spherical, self.num_radial
        out = ops.gather(rbf, idx_kj) * cbf.reshape(-1, n, 1)
        return out.reshape(-1, n * k)

    def extra_repr(self) -> str:
        return (
            f"num_spherical={self.num_spherical}, num_radial={self.num_radial}, "
            f"cutoff={self.cutoff:g}"
        )


def _literal(value: float) -> float:
    """``value`` as PyG's generated code spells it: sympy prints 15 significant digits."""
    return float(f"{value:.15g}")


@cache
def _radial_terms(num_spherical: int, num_radial: int) -> tuple[Any, ...]:
    """Per order ``l``: ``(zeros, terms)``, ``zeros`` ``(num_radial,)`` and ``terms`` a
    tuple of ``(power, 'sin' | 'cos', coeffs (num_radial,))`` such that ``N_ln j_l(z_ln
    x) = sum coeffs x^power trig(z_ln x) / x^(l + 1)`` -- the expression PyG's sympy code
    generates, term for term, with its coefficients (``N a_m / z^m`` from float32 ``N``
    and ``z``, printed to 15 digits)."""
    zeros, norm = _bessel_zeros(num_spherical, num_radial)
    z64, n64 = zeros.astype(np.float64), norm.astype(np.float64)
    out = []
    for order in range(num_spherical):
        f, g = _rayleigh(order)
        terms = []
        for m in range(1, order + 2):  # u^m -> x^(order + 1 - m): descending powers
            for fn, poly in (("sin", f), ("cos", g)):
                a = poly[m] if m < len(poly) else 0
                if a:
                    coeff = n64[order] * a / z64[order] ** m
                    terms.append((order + 1 - m, fn, np.array([_literal(c) for c in coeff])))
        out.append((np.array([_literal(z) for z in z64[order]]), tuple(terms)))
    return tuple(out)


@cache
def _rayleigh(order: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Integer coefficients ``(f, g)`` of ``j_order(t) = f(1/t) sin t + g(1/t) cos t``
    (lowest power first): ``j_0 = sin t / t``, ``j_1 = sin t / t^2 - cos t / t`` and
    ``j_(l+1) = (2l + 1) j_l / t - j_(l-1)``."""
    pairs = [((0, 1), ()), ((0, 0, 1), (0, -1))]
    for n in range(1, order):
        (f1, g1), (f0, g0) = pairs[n], pairs[n - 1]
        pairs.append((_step(f1, f0, 2 * n + 1), _step(g1, g0, 2 * n + 1)))
    return pairs[order]


def _step(cur: tuple[int, ...], prev: tuple[int, ...], factor: int) -> tuple[int, ...]:
    size = max(len(cur) + 1, len(prev))
    out = [0] * size
    for m, a in enumerate(cur):
        out[m + 1] += factor * a
    for m, a in enumerate(prev):
        out[m] -= a
    return tuple(out)


def _jn(r: float, order: int) -> float:
    from scipy.special import spherical_jn

    return float(spherical_jn(order, r))


@cache
def _bessel_zeros(num_spherical: int, num_radial: int) -> tuple[np.ndarray, np.ndarray]:
    """``(zeros, norm)``, both float32 ``(num_spherical, num_radial)``, as PyG's tables:
    the first positive zeros of ``j_l`` (each found between two consecutive zeros of
    ``j_(l-1)``) and ``N_ln = 1 / sqrt(j_(l+1)(z_ln)^2 / 2)``, computed -- as PyG does --
    in float32 from ``sqrt(pi / (2 z)) J_(l+3/2)(z)``. Read-only."""
    from scipy.optimize import brentq
    from scipy.special import jv

    n, k = num_spherical, num_radial
    zeros = np.zeros((n, k), np.float32)
    zeros[0] = np.arange(1, k + 1) * np.pi
    points = np.arange(1, k + n) * np.pi  # float64 at first, then float32 roots (PyG's)
    for order in range(1, n):
        roots = np.zeros(k + n - 1, np.float32)
        for m in range(k + n - 1 - order):
            roots[m] = brentq(_jn, points[m], points[m + 1], args=(order,))
        points = roots
        zeros[order] = roots[:k]
    norm = np.zeros((n, k), np.float32)
    for order in range(n):
        for m in range(k):
            z = zeros[order, m]  # a float32 scalar: the arithmetic below stays float32
            j_next = np.sqrt(np.float32(np.pi) / (np.float32(2) * z)) * jv(
                np.float32(order + 1.5), z
            )
            norm[order, m] = np.float32(1) / (np.float32(0.5) * j_next**2) ** np.float32(0.5)
    zeros.setflags(write=False)
    norm.setflags(write=False)
    return zeros, norm
