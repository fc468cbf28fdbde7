"""PyG's basic aggregations: sum, mean, max, min, mul, var, std, and DeeperGCN's softmax and
power mean (Li et al.), with learnt ``t`` / ``p`` loaded as weights.

Each is one or two :mod:`arraygnn.ops` segment reductions of ``x`` (``scatter`` over an
index, ``segment`` over a ``ptr``): no loop over groups. ``var = mean(x * x) - mean(x)^2``
(one ``[E, ...]`` square), ``std = sqrt(max(var, 1e-5))`` zeroed at or below
``sqrt(1e-5)``; softmax weights come from ``ops.edge_softmax`` (one ``[E, ...]`` array of
weights, one of products); the power mean clamps and raises ``x`` once (``[E, ...]``).

>>> import numpy as np
>>> from arraygnn.nn.aggr import MeanAggregation, SoftmaxAggregation
>>> x = np.array([[1.0], [3.0], [4.0]])
>>> MeanAggregation()(x, np.array([0, 0, 1])).ravel().tolist()
[2.0, 4.0]
>>> SoftmaxAggregation(t=0.0)(x, np.array([0, 0, 1])).ravel().tolist()
[2.0, 4.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.nn._module import layer_size
from arraygnn.nn.aggr.base import Aggregation, Groups

__all__ = [
    "SumAggregation",
    "MeanAggregation",
    "MaxAggregation",
    "MinAggregation",
    "MulAggregation",
    "VarAggregation",
    "StdAggregation",
    "SoftmaxAggregation",
    "PowerMeanAggregation",
]


class _Reduction(Aggregation):
    """One ``arraygnn.ops`` reduction of ``x`` over the groups."""

    reduce = "sum"

    def _aggregate(self, groups: Groups) -> Any:
        return groups.reduce(self.reduce)


class SumAggregation(_Reduction):
    """PyG's ``SumAggregation``: the sum of each group (0 when empty)."""

    reduce = "sum"


class MeanAggregation(_Reduction):
    """PyG's ``MeanAggregation``: the mean of each group (0 when empty; integer ``x``
    gives float32, torch's true division)."""

    reduce = "mean"


class MaxAggregation(_Reduction):
    """PyG's ``MaxAggregation``: the feature-wise maximum (0 when empty; NaN propagates)."""

    reduce = "max"


class MinAggregation(_Reduction):
    """PyG's ``MinAggregation``: the feature-wise minimum (0 when empty; NaN propagates)."""

    reduce = "min"


class MulAggregation(_Reduction):
    """PyG's ``MulAggregation``: the feature-wise product (1 when empty, as PyG's product
    starts from 1). PyG needs ``index``; a ``ptr`` works here too."""

    reduce = "prod"


def _variance(groups: Groups) -> Any:
    """``mean(x * x) - mean(x) ** 2`` per group, once per call."""

    def compute() -> Any:
        mean = groups.reduce("mean")
        mean_sq = groups.reduce("mean", groups.x0 * groups.x0)
        return mean_sq - mean * mean

    return groups.cached("var", compute)


class VarAggregation(Aggregation):
    """PyG's ``VarAggregation``: ``mean(x^2) - mean(x)^2`` per group (the biased variance,
    0 when empty). ``semi_grad`` only concerns gradients and is recorded."""

    def __init__(self, semi_grad: bool = False) -> None:
        self.semi_grad = bool(semi_grad)

    def _aggregate(self, groups: Groups) -> Any:
        return _variance(groups)

    def extra_repr(self) -> str:
        return f"semi_grad={self.semi_grad}"


class StdAggregation(Aggregation):
    """PyG's ``StdAggregation``: ``sqrt(max(var, 1e-5))``, set to 0 where that is at most
    ``sqrt(1e-5)`` (so an empty or constant group gives 0)."""

    def __init__(self, semi_grad: bool = False) -> None:
        self.semi_grad = bool(semi_grad)

    def _aggregate(self, groups: Groups) -> Any:
        xp = groups.xp
        std = xp.sqrt(xp.maximum(_variance(groups), 1e-5))
        return xp.where(std <= math.sqrt(1e-5), xp.zeros((), std.dtype), std)

    def extra_repr(self) -> str:
        return f"semi_grad={self.semi_grad}"


def _learnt(
    where: str, name: str, value: float, learn: bool, channels: Any, dtype: Any
) -> tuple[Any, int]:
    """A learnable scalar as PyG keeps it: a ``(channels,)`` weight when ``learn``, else the
    float (``channels`` must then be 1)."""
    channels = layer_size(where, "channels", channels, minimum=1)
    if not learn and channels != 1:
        raise ValueError(
            f"{where}: channels > 1 needs a learnt {name} (learn=True), as PyG "
            f"(got channels={channels})"
        )
    if learn:
        return np.full(channels, float(value), dtype=dtype), channels
    return float(value), channels


def _per_channel(groups: Groups, name: str, value: Any, channels: int) -> Any:
    """A learnt ``(channels,)`` ``t`` / ``p`` as a ``(1, channels)`` row: ``x`` must be 2-D,
    aggregated along dim 0, with one feature per channel."""
    groups.require_matrix(f"a per-channel {name} (channels > 1)")
    width = int(groups.x.shape[1])
    if width != channels:
        raise ValueError(
            f"{groups.where}: {name} has {channels} channels but x has {width} features (one "
            f"{name} per feature)"
        )
    return value.reshape(1, channels)


class SoftmaxAggregation(Aggregation):
    """PyG's ``SoftmaxAggregation`` (DeeperGCN): ``sum_i softmax_i(t * x_i) * x_i`` per group
    and feature.

    Args:
        t: the inverse temperature; ``learn=True`` makes it a weight ``t`` ``(channels,)``
            (per feature with ``channels = F``, then ``x`` must be ``(E, F)``).
        learn, channels: as PyG (``channels > 1`` needs ``learn``).
        semi_grad: only concerns gradients (refused with ``learn``, as PyG).

    An empty group gives 0. Computed as PyG: ``x * t`` (skipped for a fixed ``t = 1``),
    ``ops.edge_softmax`` over each group, then one segment sum of ``x * alpha``; a learnt
    ``t`` of a wider dtype widens the result, as torch's promotion does.
    """

    _takes_dtype = True

    def __init__(
        self,
        t: float = 1.0,
        learn: bool = False,
        semi_grad: bool = False,
        channels: int = 1,
        *,
        dtype: Any = np.float32,
    ) -> None:
        where = "SoftmaxAggregation"
        if learn and semi_grad:
            raise ValueError(f"{where}: semi_grad cannot be used with a learnt t (learn=True)")
        self.learn = bool(learn)
        self.semi_grad = bool(semi_grad)
        self.t, self.channels = _learnt(where, "t", t, self.learn, channels, dtype)
        self._param_names = ("t",) if self.learn else ()

    def _aggregate(self, groups: Groups) -> Any:
        x0 = groups.float_x0()
        t = self.t
        if self.channels != 1:
            t = _per_channel(groups, "t", t, self.channels)
        scores = x0 if (not self.learn and t == 1) else x0 * t
        alpha = groups.softmax(scores)
        del scores
        return groups.reduce("sum", x0 * alpha)

    def extra_repr(self) -> str:
        return f"learn={self.learn}"


class PowerMeanAggregation(Aggregation):
    """PyG's ``PowerMeanAggregation`` (DeeperGCN):
    ``clamp(mean_i clamp(x_i)^p)^(1/p)`` per group and feature.

    Args:
        p: the power; ``learn=True`` makes it a weight ``p`` ``(channels,)``.
        learn, channels: as PyG.
        clamp_min, clamp_max: the clamp bounds (PyG's ``min_value`` / ``max_value``;
            ``None`` for none).

    A fixed ``p = 1`` is the plain mean (no clamp), as PyG. An empty group gives
    ``clamp_min ** (1 / p)`` (the mean 0 is clamped before the root), as PyG.
    """

    _takes_dtype = True

    def __init__(
        self,
        p: float = 1.0,
        learn: bool = False,
        channels: int = 1,
        clamp_min: float | None = 1e-4,
        clamp_max: float | None = 100.0,
        *,
        dtype: Any = np.float32,
    ) -> None:
        where = "PowerMeanAggregation"
        self.learn = bool(learn)
        self.p, self.channels = _learnt(where, "p", p, self.learn, channels, dtype)
        self._param_names = ("p",) if self.learn else ()
        self.min_value = None if clamp_min is None else float(clamp_min)
        self.max_value = None if clamp_max is None else float(clamp_max)

    def _clamp(self, xp: Any, x: Any) -> Any:
        if self.min_value is None and self.max_value is None:
            return x
        return xp.clip(x, self.min_value, self.max_value)

    def _aggregate(self, groups: Groups) -> Any:
        xp = groups.xp
        p = self.p
        if self.channels != 1:
            p = _per_channel(groups, "p", p, self.channels)
        if not self.learn and p == 1:
            return groups.reduce("mean")
        out = groups.reduce("mean", self._clamp(xp, groups.float_x0()) ** p)
        return self._clamp(xp, out) ** (1.0 / p)

    def extra_repr(self) -> str:
        return f"learn={self.learn}"
