"""PyG's quantile aggregations: ``QuantileAggregation(q, interpolation, fill_value)`` and
``MedianAggregation(fill_value)`` (the lower median).

For every feature the values of each group are sorted and the ``q``-quantile is read at
position ``q * (n - 1)`` of the group (``n`` its size), interpolated between its two
neighbours as ``interpolation`` says (``'linear'``, ``'lower'``, ``'higher'``,
``'nearest'`` (ties to even), ``'midpoint'``). Several ``q`` give their results side by
side, PyG's layout.

How: one NumPy / CuPy sort per feature column of a ``complex128`` key whose real part is
the group and whose imaginary part the value (complex numbers sort by real, then imaginary
part), so a single sort orders every column by (group, value) — no loop over groups, and
no second, stable sort by group (PyG sorts twice). NaN sorts last in its group, as
torch's sort. The columns go in blocks of about 4M keys (64 MiB), so the memory beyond
``x`` stays small; the quantile positions are then picked for all groups at once. 64-bit
integers (whose values float64 would round beyond 2**53) take PyG's two sorts instead: by
value, then stably by group.

Positions are computed as PyG does, in the dtype of the buffer ``q`` (float32 unless the
module was cast): ``q * (n - 1) + start`` (so above 2**24 slices float32 positions round,
as PyG's). An empty group gives ``fill_value`` (PyG fails with an ``IndexError`` when the
first group is empty; here it is filled too).

>>> import numpy as np
>>> from arraygnn.nn.aggr import MedianAggregation, QuantileAggregation
>>> x = np.array([[4.0], [1.0], [3.0], [2.0], [7.0]])
>>> MedianAggregation()(x, np.array([0, 0, 0, 0, 1]), dim_size=3).ravel().tolist()
[2.0, 7.0, 0.0]
>>> QuantileAggregation([0.5, 1.0])(x, np.array([0, 0, 0, 0, 1])).tolist()
[[2.5, 4.0], [7.0, 7.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.nn.aggr.base import Aggregation, Groups

__all__ = ["QuantileAggregation", "MedianAggregation"]

_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")
#: keys sorted per block of columns (16 bytes each)
_BLOCK_KEYS = 1 << 22


class QuantileAggregation(Aggregation):
    """PyG's ``QuantileAggregation``: the feature-wise ``q``-quantile of each group.

    Args:
        q: a quantile in ``[0, 1]`` or a list of them (results side by side: ``x`` ``(E, F)``
            gives ``(G, len(q) * F)``, quantile-major within each group as PyG).
        interpolation: ``'linear'`` (default), ``'lower'``, ``'higher'``, ``'nearest'``,
            ``'midpoint'``.
        fill_value: the value of an empty group.

    Names (PyG): ``q`` (a buffer, ``(len(q), 1)`` float32).
    """

    _buffer_names = ("q",)

    def __init__(
        self, q: float | Sequence[float], interpolation: str = "linear", fill_value: float = 0.0
    ) -> None:
        where = type(self).__name__
        qs = list(q) if isinstance(q, (list, tuple)) else [q]
        if not qs:
            raise ValueError(f"{where}: give at least one quantile q")
        if not all(isinstance(v, (int, float, np.number)) and 0.0 <= v <= 1.0 for v in qs):
            raise ValueError(f"{where}: every q must be a number in [0, 1], got {q!r}")
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(
                f"{where}: interpolation must be one of {', '.join(_INTERPOLATIONS)}, got "
                f"{interpolation!r}"
            )
        self._q = q
        self.q = np.asarray(qs, dtype=np.float32).reshape(-1, 1)
        self.interpolation = interpolation
        self.fill_value = float(fill_value)

    def _forward(self, groups: Groups) -> Any:
        out = groups.restore(self._aggregate(groups))
        num_q = int(self.q.shape[0])
        if num_q == 1:
            return out
        # PyG's view: (..., G * len(q), F1, F2, ...) -> (..., G, -1, F2, ...)
        axis = groups.axis
        shape = tuple(out.shape)
        return out.reshape(shape[:axis] + (groups.size, -1) + shape[axis + 2 :])

    def _aggregate(self, groups: Groups) -> Any:
        xp = groups.xp
        x0 = groups.x0
        num = int(x0.shape[0])
        size = groups.size
        rest = tuple(x0.shape[1:])
        num_q = int(self.q.shape[0])
        counts = groups.counts()
        starts = xp.cumsum(counts) - counts
        # PyG's positions: q * (n - 1) + start in q's dtype, group-major, quantile-minor
        q = xp.asarray(self.q)
        point = q * (counts - 1).astype(q.dtype) + xp.minimum(starts, max(num - 1, 0)).astype(
            q.dtype
        )
        point = point.T.reshape(-1)  # [G * len(q)]
        lower = xp.floor(point)
        if self.interpolation == "lower":
            picks = [lower]
        elif self.interpolation == "higher":
            picks = [xp.ceil(point)]
        elif self.interpolation == "nearest":
            picks = [xp.rint(point)]  # ties to even, as torch.round
        else:
            picks = [lower, xp.ceil(point)]
        limit = max(num - 1, 0)
        positions = [xp.clip(p, 0, limit).astype(np.int64) for p in picks]  # empty groups
        values = _sorted_picks(xp, x0, groups.group_ids(), positions)  # each [G*len(q), W]
        # torch's promotion: integer values meet q's float dtype (linear) or a Python float
        # (midpoint) in that float dtype (float32 by default), not in float64 as NumPy's
        if len(values) == 1:
            out = values[0]
        elif self.interpolation == "linear":
            frac = (point - lower).reshape(-1, 1)  # q's dtype, as PyG's q_point.frac()
            work = np.result_type(x0.dtype, frac.dtype) if x0.dtype.kind == "f" else frac.dtype
            left, right = (v.astype(work, copy=False) for v in values)
            out = left + (right - left) * frac.astype(work)
        else:  # midpoint
            if x0.dtype.kind != "f":
                values = [v.astype(np.float32) for v in values]
            out = 0.5 * values[0] + 0.5 * values[1]
        empty = xp.repeat(counts == 0, num_q).reshape(-1, 1)
        out = xp.where(empty, xp.asarray(self.fill_value, dtype=out.dtype), out)
        return out.reshape((size * num_q,) + rest)

    def extra_repr(self) -> str:
        return f"q={self._q}"


def _sorted_picks(xp: Any, x0: Any, group: Any, positions: list[Any]) -> list[Any]:
    """Sort every column of ``x0`` [E, ...] by (group, value) and read it at each array of
    ``positions`` (flat sorted positions): a list of ``[len(positions[i]), W]`` arrays in
    ``x0``'s dtype."""
    num = int(x0.shape[0])
    width = int(np.prod(x0.shape[1:], dtype=np.int64))
    flat = x0.reshape(num, width)
    picked = [xp.empty((int(p.shape[0]), width), dtype=x0.dtype) for p in positions]
    if num == 0 or width == 0:
        return [xp.zeros_like(p) for p in picked]
    real = group.astype(np.float64)
    step = max(1, _BLOCK_KEYS // num)
    wide = x0.dtype.kind in "iu" and x0.dtype.itemsize > 4  # beyond float64's 2**53
    for lo in range(0, width, step):
        block = flat[:, lo : lo + step].T  # [w, E]
        if wide:  # PyG's two sorts: by value, then stably by group (exact for any integer)
            order = _argsort(xp, block)
            by_value = xp.take_along_axis(block, order, axis=1)
            ordered = xp.take_along_axis(by_value, _argsort(xp, group[order]), axis=1)
            for out, pos in zip(picked, positions):
                out[:, lo : lo + step] = ordered[:, pos].T
            continue
        nan = xp.isnan(block) if block.dtype.kind == "f" else None
        keys = xp.empty(block.shape, dtype=np.complex128)
        # NaN goes last within its group (torch's sort): group + 0.5 in the real part
        keys.real = real if nan is None else real + 0.5 * nan
        keys.imag = block if nan is None else xp.where(nan, 0, block)
        del nan
        keys.sort(axis=1)
        for out, pos in zip(picked, positions):
            sel = keys[:, pos]  # [w, P]
            vals = sel.imag
            if block.dtype.kind == "f":
                vals = xp.where(sel.real != xp.floor(sel.real), np.nan, vals)
            out[:, lo : lo + step] = vals.T.astype(x0.dtype)
        del keys
    return picked


def _argsort(xp: Any, keys: Any) -> Any:
    """A stable argsort along the last axis (CuPy's sort is always stable)."""
    return xp.argsort(keys, axis=-1, kind="stable") if xp is np else xp.argsort(keys, axis=-1)


class MedianAggregation(QuantileAggregation):
    """PyG's ``MedianAggregation``: the lower median of each group and feature (the value
    at sorted position ``floor((n - 1) / 2)``); ``fill_value`` for an empty group."""

    def __init__(self, fill_value: float = 0.0) -> None:
        super().__init__(0.5, "lower", fill_value)

    def extra_repr(self) -> str:
        return ""
