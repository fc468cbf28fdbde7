"""PyG's ``MultiAggregation``: several aggregations of the same groups, combined.

The aggregations share one :class:`~arraygnn.nn.aggr.base.Groups`, so reductions they have
in common run once per call (sum, mean, the mean of squares of var / std: PyG's
``FusedAggregation``). Their results are combined as ``mode`` says: ``'cat'`` along the last
dimension, ``'proj'`` by a ``Linear`` of the concatenation (PyG's ``lin``), or ``'sum'``,
``'mean'``, ``'max'``, ``'min'``, ``'logsumexp'``, ``'std'``, ``'var'`` across the
aggregations (torch's reductions over a stacked first dimension: ``std`` / ``var`` are the
unbiased ones), or ``'attn'``: a ``Linear`` per aggregation to ``out_channels`` (PyG's
``lin_heads``, a ``HeteroDictLinear``), a multi-head self-attention across the aggregations
of each group (``multihead_attn``, torch's ``MultiheadAttention``) and the mean over them.

>>> import numpy as np
>>> from arraygnn.nn.aggr import MultiAggregation
>>> x = np.array([[1.0], [3.0], [8.0]])
>>> MultiAggregation(["min", "max"])(x, np.array([0, 0, 1])).tolist()
[[1.0, 3.0], [8.0, 8.0]]
>>> MultiAggregation(["min", "max"], mode="sum")(x, np.array([0, 0, 1])).tolist()
[[4.0], [16.0]]
>>> kwargs = {"in_channels": 1, "out_channels": 4, "num_heads": 2}
>>> MultiAggregation(["min", "max"], mode="attn", mode_kwargs=kwargs, rng=0)(
...     x, np.array([0, 0, 1])).shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.nn.aggr.base import Aggregation, Groups
from arraygnn.nn.linear import Linear, _ModuleList

__all__ = ["MODES", "MultiAggregation"]

MODES = ("cat", "proj", "attn", "sum", "mean", "max", "min", "logsumexp", "std", "var")


class MultiAggregation(Aggregation):
    """PyG's ``MultiAggregation(aggrs, aggrs_kwargs=None, mode='cat', mode_kwargs=None)``.

    Args:
        aggrs: aggregations or their names (resolved by
            :func:`~arraygnn.nn.aggr.aggregation_resolver` with ``aggrs_kwargs``).
        mode: how to combine (see the module docstring).
        mode_kwargs: for ``'proj'`` and ``'attn'``: ``in_channels`` (an int per
            aggregation, or one for all) and ``out_channels``; ``'proj'`` also takes
            ``bias``, ``'attn'`` ``num_heads`` (1) and the other arguments of
            :class:`~arraygnn.nn.MultiheadAttention` (``add_bias_kv``, ``batch_first``, ...).

    Names (PyG): ``aggrs.<i>.*`` (learnt ``t`` / ``p``), ``lin.weight``, ``lin.bias``,
    ``lin_heads.lins.<i>.*``, ``multihead_attn.*``.
    """

    _child_names = ("aggrs", "lin", "lin_heads", "multihead_attn")
    _takes_dtype = True

    def __init__(
        self,
        aggrs: Sequence[Any],
        aggrs_kwargs: Sequence[dict[str, Any]] | None = None,
        mode: str = "cat",
        mode_kwargs: dict[str, Any] | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        from arraygnn.nn.aggr.resolver import aggregation_resolver

        where = "MultiAggregation"
        if not isinstance(aggrs, (list, tuple)):
            raise ValueError(f"{where}: aggrs must be a list or tuple, got {type(aggrs).__name__}")
        if not aggrs:
            raise ValueError(f"{where}: aggrs must not be empty")
        if aggrs_kwargs is None:
            aggrs_kwargs = [{}] * len(aggrs)
        elif len(aggrs_kwargs) != len(aggrs):
            raise ValueError(
                f"{where}: aggrs_kwargs has {len(aggrs_kwargs)} entries for {len(aggrs)} "
                "aggregations; they must match"
            )
        if mode not in MODES:
            raise ValueError(f"{where}: mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.aggrs = _ModuleList(
            [
                aggregation_resolver(a, dtype=dtype, **(kw or {}))
                for a, kw in zip(aggrs, aggrs_kwargs)
            ]
        )
        self.mode = mode
        options = dict(mode_kwargs or {})
        self.in_channels = options.pop("in_channels", None)
        self.out_channels = options.pop("out_channels", None)
        self.lin = self.lin_heads = self.multihead_attn = None
        if mode in ("proj", "attn"):
            if len(aggrs) == 1:
                raise ValueError(f"{where}: mode={mode!r} needs several aggregations")
            if self.in_channels is None or self.out_channels is None:
                raise ValueError(
                    f"{where}: mode={mode!r} needs mode_kwargs in_channels and out_channels"
                )
            if isinstance(self.in_channels, (int, np.integer)):
                self.in_channels = [int(self.in_channels)] * len(aggrs)
            if len(self.in_channels) != len(aggrs):
                raise ValueError(
                    f"{where}: mode_kwargs in_channels has {len(self.in_channels)} entries "
                    f"for {len(aggrs)} aggregations"
                )
        if mode == "attn":
            from arraygnn.nn.hetero_linear import HeteroDictLinear
            from arraygnn.nn.linear import _rng
            from arraygnn.nn.multihead_attention import MultiheadAttention

            gen = _rng(rng)  # one stream for both (a seed twice would draw the same numbers)
            channels = {str(i): int(c) for i, c in enumerate(self.in_channels)}
            self.lin_heads = HeteroDictLinear(
                channels, int(self.out_channels), dtype=dtype, rng=gen
            )
            num_heads = options.pop("num_heads", 1)
            self.multihead_attn = MultiheadAttention(
                int(self.out_channels), num_heads, **options, dtype=dtype, rng=gen
            )
        if mode == "proj":
            bias = bool(options.pop("bias", True))
            if options:
                raise ValueError(f"{where}: unknown mode_kwargs {sorted(options)}")
            self.lin = Linear(
                sum(self.in_channels), int(self.out_channels), bias, dtype=dtype, rng=rng
            )

    def get_out_channels(self, in_channels: int) -> int:
        """PyG's: ``out_channels`` when given, else ``len(aggrs) * in_channels`` for
        ``'cat'`` and ``in_channels`` otherwise."""
        if self.out_channels is not None:
            return int(self.out_channels)
        return in_channels * len(self.aggrs) if self.mode == "cat" else in_channels

    def _forward(self, groups: Groups) -> Any:
        return self.combine([_run(a, groups) for a in self.aggrs])

    def combine(self, inputs: list[Any]) -> Any:
        """PyG's ``combine`` of the aggregations' results (each in ``x``'s layout)."""
        if len(inputs) == 1:
            return inputs[0]
        from arraygnn._namespace import get_namespace

        xp = get_namespace(*inputs)
        inputs = torch_promoted(inputs)
        if self.mode == "cat":
            return xp.concatenate(inputs, axis=-1)
        if self.lin is not None:
            joined = xp.concatenate(inputs, axis=-1)
            if joined.shape[-1] != self.lin.in_features:
                raise ValueError(
                    f"MultiAggregation: mode='proj' maps {self.lin.in_features} features "
                    f"(mode_kwargs in_channels {self.in_channels}), but the aggregations give "
                    f"{joined.shape[-1]}"
                )
            return self.lin(joined)
        if self.multihead_attn is not None:  # one "sequence" of aggregations per group
            heads = self.lin_heads({str(i): v for i, v in enumerate(inputs)})
            stacked = xp.stack([heads[str(i)] for i in range(len(inputs))], axis=0)
            if stacked.ndim != 3:
                raise ValueError(
                    "MultiAggregation: mode='attn' needs two-dimensional aggregation "
                    f"results (groups, features), got {tuple(inputs[0].shape)}"
                )
            out, _ = self.multihead_attn(stacked, stacked, stacked, need_weights=False)
            return out.mean(axis=0)
        stacked = xp.stack(inputs, axis=0)
        if self.mode in ("sum", "mean", "max", "min"):
            return getattr(xp, self.mode)(stacked, axis=0)
        if self.mode in ("std", "var"):  # torch's default: the unbiased estimate
            return getattr(xp, self.mode)(stacked, axis=0, ddof=1)
        top = stacked.max(axis=0)  # logsumexp, stable as torch's
        shift = xp.where(xp.isfinite(top), top, xp.zeros((), top.dtype))
        return xp.log(xp.exp(stacked - shift).sum(axis=0)) + shift

    def extra_repr(self) -> str:
        return f"[{', '.join(repr(a) for a in self.aggrs)}], mode={self.mode}"


def torch_promoted(arrays: list[Any]) -> list[Any]:
    """``arrays`` in the dtype torch's ``cat`` / ``stack`` give them: floating ones win over
    integer ones (an int max beside a float32 mean is float32, not NumPy's float64)."""
    floats = [a.dtype for a in arrays if a.dtype.kind == "f"]
    dtype = np.result_type(*(floats or [a.dtype for a in arrays]))
    return [a.astype(dtype, copy=False) for a in arrays]


def _run(aggr: Any, groups: Groups) -> Any:
    """One aggregation of the call: ours share ``groups``; another callable (a readout such
    as ``AttentionalAggregation``) gets PyG's arguments."""
    if isinstance(aggr, Aggregation):
        return aggr._forward(groups)
    return aggr(groups.x, groups.index, groups.ptr, groups.size)
