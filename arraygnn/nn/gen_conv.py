"""DeeperGCN's generalised graph convolution (Li et al.): PyG's ``GENConv``.

``h_i' = MLP(x_i + MsgNorm(AGG_{j in N(i)} (ReLU(x_j + e_ji) + eps)))``, with ``AGG`` any
aggregation of :mod:`arraygnn.nn.aggr` (PyG's: a name, a list of names for a
``MultiAggregation``, or an aggregation object): by default a softmax of inverse temperature
``t`` (learnable, per channel too), or a power mean of power ``p`` (learnable).

The ReLU sits on each edge, between the edge term and the reduction, so one ``[E, F]``
message array is unavoidable (PyG and DGL form it too). It is built in the CSR's slot order
(gathered source rows, plus the edge features, rectified and shifted in place), then:

- softmax: ``alpha = edge_softmax(t * m)`` per target and channel (``[E, F]``, slot order),
  then one weighted ``spmm`` over the slot-order messages (each slot a source row, so no
  ``m * alpha`` product array): two ``[E, F]`` arrays at most (three with ``t != 1``);
- power mean: the messages clamped and raised to ``p`` in place, a row-parallel ``segment``
  mean, then clamped and raised to ``1 / p`` (PyG's order: an isolated target gets
  ``clamp_min ** (1 / p)``, not 0);
- sum / mean / max / min: one row-parallel ``segment`` over the messages;
- any other aggregation (var, std, median, quantiles, mul, a ``MultiAggregation``, a
  ``DegreeScalerAggregation``, ...): the aggregation itself, called with the CSR's row
  pointer as ``ptr`` (the slot-order messages are grouped by target), then PyG's
  ``lin_aggr_out`` where a ``MultiAggregation`` changes the width.

>>> import numpy as np
>>> conv = GENConv(4, 4, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])).shape
(3, 4)
>>> GENConv(4, 4, aggr=["mean", "max"], rng=0).lin_aggr_out.weight.shape
(4, 8)
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_edge_attr, csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn.aggr import (
    MaxAggregation,
    MeanAggregation,
    MinAggregation,
    MultiAggregation,
    PowerMeanAggregation,
    SoftmaxAggregation,
    SumAggregation,
    aggregation_resolver,
)
from arraygnn.nn.linear import BatchNorm, LayerNorm, Linear, Sequential, _check_features, _rng

__all__ = ["GENConv"]

#: PyG's old names
_ALIASES = {"softmax_sg": "softmax", "power": "powermean"}
#: aggregations that are one segment reduction of the slot-order messages
_SEGMENT = {
    SumAggregation: "sum",
    MeanAggregation: "mean",
    MaxAggregation: "max",
    MinAggregation: "min",
}
_NORMS = ("batch", "layer", "instance", None)


def _identity(x: Any) -> Any:
    """Dropout at inference."""
    return x


def _clamp(agg: PowerMeanAggregation, x: Any) -> Any:
    """The power mean's clamp, in place on our own array."""
    if agg.min_value is None and agg.max_value is None:
        return x
    return get_namespace(x).clip(x, agg.min_value, agg.max_value, out=x)


def _instance_norm(x: Any, eps: float = 1e-5) -> Any:
    """torch's ``InstanceNorm1d(affine=False)`` on a 2-D ``[N, C]`` input: torch reads it
    as one unbatched ``(C=N, L=C)`` sample, so each row is normalised over its own
    features (biased variance), with no weights and no running statistics."""
    xp = get_namespace(x)
    centred = x - x.mean(axis=-1, keepdims=True)
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / xp.sqrt(var + x.dtype.type(eps))


class _MessageNorm(Module):
    """PyG's ``MessageNorm``: ``normalize(m) * ||x|| * scale`` row-wise (L2), ``scale``
    ``(1,)`` (a parameter whether learnt or not, as PyG keeps it)."""

    _param_names = ("scale",)

    def __init__(self, learn_scale: bool, dtype: Any) -> None:
        self.learn_scale = bool(learn_scale)
        self.scale = np.ones(1, dtype=dtype)

    def __call__(self, x: Any, msg: Any) -> Any:
        xp = get_namespace(msg)
        norm = xp.sqrt((msg * msg).sum(axis=-1, keepdims=True))
        msg = msg / xp.maximum(norm, msg.dtype.type(1e-12))  # F.normalize's eps
        x_norm = xp.sqrt((x * x).sum(axis=-1, keepdims=True))
        return msg * x_norm * self.scale.astype(msg.dtype)


def _gen_mlp(channels: list[int], norm: str | None, bias: bool, dtype: Any, rng: Any) -> Sequential:
    """GENConv's MLP with the indices of PyG's ``torch.nn.Sequential``: ``Linear``, then for
    each hidden layer the norm (none for ``norm=None``), ``ReLU`` and ``Dropout`` (the
    identity here), so ``mlp.0.weight``, ``mlp.1.running_mean``, ``mlp.4.weight`` load by
    name."""
    steps: list[Any] = []
    for i in range(1, len(channels)):
        steps.append(Linear(channels[i - 1], channels[i], bias, dtype=dtype, rng=rng))
        if i < len(channels) - 1:
            if norm == "batch":
                steps.append(BatchNorm(channels[i], dtype=dtype))
            elif norm == "layer":
                steps.append(LayerNorm(channels[i], dtype=dtype))
            elif norm == "instance":
                steps.append(partial(_instance_norm, eps=1e-5))
            steps.append("relu")
            steps.append(_identity)
    return Sequential(*steps)


def _resolve_aggr(
    name: str,
    out: int,
    aggr: Any,
    aggr_kwargs: dict[str, Any] | None,
    legacy: dict[str, Any],
    clamp: tuple[float | None, float | None],
    dtype: Any,
) -> Any:
    """PyG's ``GENConv`` aggregation: ``aggr_kwargs`` from ``t`` / ``learn_t`` (softmax) or
    ``p`` / ``learn_p`` (power mean) unless given, then ``aggregation_resolver``."""
    given = aggr
    semi_grad = isinstance(aggr, str) and aggr == "softmax_sg"
    if isinstance(aggr, str):
        aggr = _ALIASES.get(aggr, aggr)
    elif not isinstance(aggr, (list, tuple)) and not callable(aggr):
        raise TypeError(
            f"{name}: aggr must be a name, a list of names or an aggregation, got "
            f"{type(aggr).__name__}"
        )
    if aggr_kwargs is None and aggr in ("softmax", "powermean"):
        channels = layer_size(name, "aggr_channels", legacy["channels"], minimum=1)
        if channels not in (1, out):
            raise ValueError(
                f"{name}: aggr_channels must be 1 or out_channels ({out}), got {channels}"
            )
        learn = bool(legacy["learn_t"] if aggr == "softmax" else legacy["learn_p"])
        if channels != 1 and not learn:
            raise ValueError(
                f"{name}: aggr_channels > 1 needs a learnt t / p (learn_t / learn_p), as PyG"
            )
        if aggr == "softmax":
            aggr_kwargs = dict(t=legacy["t"], learn=learn, semi_grad=semi_grad, channels=channels)
        else:
            if not learn and float(legacy["p"]) == 0:
                raise ValueError(f"{name}: p must be non-zero for the power mean (1 / p)")
            aggr_kwargs = dict(
                p=legacy["p"],
                learn=learn,
                channels=channels,
                clamp_min=clamp[0],
                clamp_max=clamp[1],
            )
    try:
        module = aggregation_resolver(aggr, dtype=dtype, **(aggr_kwargs or {}))
    except (TypeError, ValueError) as err:
        raise type(err)(f"{name}: aggr={given!r}: {err}") from None
    channels = getattr(module, "channels", 1)
    if type(module) in (SoftmaxAggregation, PowerMeanAggregation) and channels not in (1, out):
        raise ValueError(
            f"{name}: aggr={given!r} has {channels} channels; they must be 1 or out_channels "
            f"({out}), one t / p per message feature"
        )
    return module


class GENConv(Module):
    """PyG's ``GENConv`` (DeeperGCN) at inference: BatchNorm with running statistics,
    dropout the identity.

    ``h_i' = MLP(x_i W_dst + MsgNorm(AGG_j (ReLU(x_j W_src + e_ji W_edge) + eps)))``; each
    ``W`` is present only when the sizes differ from ``out_channels`` (PyG's ``lin_src``,
    ``lin_dst``, ``lin_edge``).

    Args:
        in_channels: an int, or ``(in_src, in_dst)`` for a bipartite graph.
        out_channels: the message and output size.
        aggr: ``'softmax'`` (default), ``'powermean'``, any other name
            :func:`~arraygnn.nn.aggr.aggregation_resolver` knows (``'add'`` / ``'sum'``,
            ``'mean'``, ``'max'``, ``'min'``, ``'mul'``, ``'var'``, ``'std'``, ``'median'``,
            ...), a list of names (a ``MultiAggregation``) or an aggregation object of
            :mod:`arraygnn.nn.aggr` (``'softmax_sg'`` and ``'power'``, PyG's old names, are
            accepted).
        t: the softmax's inverse temperature; ``learn_t`` makes it a weight
            ``aggr_module.t`` ``(aggr_channels,)``.
        p: the power mean's power; ``learn_p`` makes it a weight ``aggr_module.p``.
        msg_norm: message normalisation (``msg_norm.scale``; ``learn_msg_scale`` is only
            recorded: the scale is a weight either way, as in PyG's state dict).
        norm: the MLP's hidden norm, ``'batch'`` (default), ``'layer'``, ``'instance'`` or
            ``None``.
        num_layers, expansion: the MLP ``[out, out * expansion, ..., out]`` with
            ``num_layers`` linear layers.
        eps: added to every rectified message.
        bias: biases in ``lin_src`` / ``lin_dst`` / ``lin_edge`` and the MLP (PyG's
            default ``False``).
        edge_dim: the edge feature size; ``None`` means ``out_channels`` (no ``lin_edge``).
        aggr_kwargs: arguments of the aggregation resolved from a name (PyG's; they replace
            ``t`` / ``learn_t`` / ``p`` / ``learn_p``, as in PyG), e.g. ``{'t': 1.0,
            'learn': True, 'channels': out_channels}`` or ``{'mode': 'proj', 'mode_kwargs':
            {...}}`` for a list.
        aggr_channels: size of a learnt ``t`` / ``p`` (PyG's ``aggr_kwargs['channels']``:
            1 or ``out_channels``).
        clamp_min, clamp_max: the power mean's clamp bounds (PyG's ``1e-4`` / ``100``;
            ``None`` for none).

    Call as ``conv(x, edge_index, edge_attr=None)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` (``x_dst`` may be ``None`` with ``size=(N_src, N_dst)``: then no root term),
    ``conv(graph, feat, edge_feat)`` or ``conv(block, feat, edge_feat)``.

    Shapes:
        - input: ``x`` ``(N_src, in_src)`` (and ``(N_dst, in_dst)`` in the pair form),
          ``edge_attr`` ``(E, edge_dim)`` or ``(E, out_channels)`` without ``edge_dim``
        - output: ``(N_dst, out_channels)``
        - edge memory: one ``(E, out_channels)`` message array (the ReLU needs it), plus
          the ``(E, out_channels)`` softmax weights for ``aggr='softmax'``

    Names (PyG): ``lin_src.*``, ``lin_dst.*``, ``lin_edge.*``, ``aggr_module.*``
    (``aggr_module.t`` / ``aggr_module.p``, ``aggr_module.aggrs.<i>.*``,
    ``aggr_module.lin.*``), ``lin_aggr_out.*``, ``msg_norm.scale``, ``mlp.<i>.*``
    (``torch.nn.Sequential`` indices).

    >>> import numpy as np
    >>> from arraygnn.nn import GENConv
    >>> conv = GENConv((3, 5), 4, aggr="powermean", learn_p=True, edge_dim=2, rng=0)
    >>> x = (np.ones((2, 3), np.float32), np.ones((3, 5), np.float32))
    >>> ei = np.array([[0, 1, 1], [0, 0, 2]])
    >>> conv(x, ei, np.ones((3, 2), np.float32)).shape
    (3, 4)
    """

    _child_names = (
        "lin_src",
        "lin_edge",
        "lin_dst",
        "aggr_module",
        "lin_aggr_out",
        "msg_norm",
        "mlp",
    )

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        aggr: Any = "softmax",
        t: float = 1.0,
        learn_t: bool = False,
        p: float = 1.0,
        learn_p: bool = False,
        msg_norm: bool = False,
        learn_msg_scale: bool = False,
        norm: str | None = "batch",
        num_layers: int = 2,
        expansion: int = 2,
        eps: float = 1e-7,
        bias: bool = False,
        edge_dim: int | None = None,
        *,
        aggr_kwargs: dict[str, Any] | None = None,
        aggr_channels: int = 1,
        clamp_min: float | None = 1e-4,
        clamp_max: float | None = 100.0,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GENConv"
        self.in_channels, in_src, in_dst = channels_pair(name, in_channels)
        self.out_channels = out = layer_size(name, "out_channels", out_channels, minimum=1)
        if norm not in _NORMS:
            raise ValueError(
                f"{name}: norm must be 'batch', 'layer', 'instance' or None, got {norm!r}"
            )
        self.norm = norm
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        self.expansion = layer_size(name, "expansion", expansion, minimum=1)
        self.eps = float(eps)
        self.aggr_module = _resolve_aggr(
            name,
            out,
            aggr,
            aggr_kwargs,
            dict(t=t, learn_t=learn_t, p=p, learn_p=learn_p, channels=aggr_channels),
            (clamp_min, clamp_max),
            dtype,
        )
        # PyG's string form of the aggregation (a list for several)
        self.aggr = (
            [str(a) for a in aggr]
            if isinstance(aggr, (list, tuple))
            else _ALIASES.get(aggr, aggr)
            if isinstance(aggr, str)
            else repr(aggr)
        )
        gen = _rng(rng)
        self.lin_src = Linear(in_src, out, bias, dtype=dtype, rng=gen) if in_src != out else None
        self.edge_dim = None if edge_dim is None else layer_size(name, "edge_dim", edge_dim, 1)
        self.lin_edge = (
            Linear(self.edge_dim, out, bias, dtype=dtype, rng=gen)
            if self.edge_dim is not None and self.edge_dim != out
            else None
        )
        self.lin_dst = Linear(in_dst, out, bias, dtype=dtype, rng=gen) if in_dst != out else None
        aggr_out = out
        if isinstance(self.aggr_module, MultiAggregation):
            aggr_out = self.aggr_module.get_out_channels(out)
        self.lin_aggr_out = (
            Linear(aggr_out, out, bias, dtype=dtype, rng=gen) if aggr_out != out else None
        )
        self.msg_norm = _MessageNorm(learn_msg_scale, dtype) if msg_norm else None
        hidden = [out * self.expansion] * (self.num_layers - 1)
        self.mlp = _gen_mlp([out, *hidden, out], norm, bias, dtype, gen)

    # ---- the maths -----------------------------------------------------------------
    def _messages(self, inp: Any, xs: Any, csr: Any, edge_attr: Any) -> Any:
        """``ReLU(x_j + e_ji) + eps`` ``[E, out]`` in the CSR's slot order."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import to_slot_order

        xp = get_namespace(xs)
        msg = ops.gather(xs, csr.indices)
        if edge_attr is not None:
            width = self.edge_dim if self.lin_edge is not None else self.out_channels
            wrong_width = getattr(edge_attr, "ndim", 0) == 2 and edge_attr.shape[1] != width
            hint = (
                " (out_channels: build GENConv(..., edge_dim=D) to project edge "
                "features of another size)"
                if self.lin_edge is None and wrong_width
                else ""
            )
            e = check_edge_attr("GENConv", edge_attr, inp.num_edges, width, xs, hint)
            e = to_slot_order(csr, e)  # the raw D columns move, not the projected ones
            if self.lin_edge is not None:
                e = self.lin_edge(e)
            msg = msg.astype(xp.result_type(msg.dtype, e.dtype), copy=False)
            msg += e
            del e
        xp.maximum(msg, 0, out=msg)
        msg += msg.dtype.type(self.eps)
        return msg

    def _aggregate(self, msg: Any, csr: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import edge_softmax_slots, slots_as_sources, spmm_slots

        agg = self.aggr_module
        kind = type(agg)
        dtype = msg.dtype
        if kind is SoftmaxAggregation:
            t = agg.t
            if agg.learn:
                scores = msg * t.astype(dtype)
            elif t != 1:
                scores = msg * dtype.type(t)
            else:
                scores = msg
            alpha = edge_softmax_slots(csr, scores)
            del scores
            # each slot a source row: the softmax-weighted sum without an m * alpha array
            return spmm_slots(slots_as_sources(csr), msg, alpha, "sum")
        if kind is PowerMeanAggregation:
            if agg.learn:
                p = agg.p.astype(dtype)
                inv = (1 / agg.p).astype(dtype)
            elif agg.p != 1:
                p, inv = dtype.type(agg.p), 1.0 / agg.p
            else:
                return ops.segment(msg, csr.indptr, "mean")
            xp = get_namespace(msg)
            msg = xp.power(_clamp(agg, msg), p, out=msg)
            out = ops.segment(msg, csr.indptr, "mean")
            return xp.power(_clamp(agg, out), inv, out=out)
        if kind in _SEGMENT:
            return ops.segment(msg, csr.indptr, _SEGMENT[kind])
        # any other aggregation: the slot-order messages are grouped by target
        return agg(msg, ptr=csr.indptr, dim_size=csr.num_dst_nodes)

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_attr: Any = None, size: Any = None
    ) -> Any:
        inp = parse_input("GENConv", graph_or_x, feat_or_edge_index, size)
        in_src, in_dst = (
            (self.in_channels, self.in_channels)
            if isinstance(self.in_channels, int)
            else self.in_channels
        )
        weight = self.mlp[0].weight
        for what, x, want in (("x_src", inp.x_src, in_src), ("x_dst", inp.x_dst, in_dst)):
            if x is None:
                continue
            if x.ndim != 2:
                raise ValueError(f"GENConv: {what} must be (N, F), got {tuple(x.shape)}")
            _check_features(x, want, f"GENConv {what}", weight)
        # integer / bool features become the weights' float type, as PyG's (x_j + eps) does
        x_src = inp.x_src if inp.x_src.dtype.kind == "f" else inp.x_src.astype(weight.dtype)
        x_dst = inp.x_dst
        if x_dst is not None and x_dst.dtype.kind != "f":
            x_dst = x_dst.astype(weight.dtype)
        if self.msg_norm is not None and x_dst is None and inp.num_src != inp.num_dst:
            raise ValueError(
                "GENConv: msg_norm scales by the targets' norms; with x_dst None pass the "
                "destination features (x_src, x_dst) when sources and targets differ"
            )
        xs = self.lin_src(x_src) if self.lin_src is not None else x_src
        csr = csr_of(inp)
        msg = self._messages(inp, xs, csr, edge_attr)
        out = self._aggregate(msg, csr)
        del msg
        if self.lin_aggr_out is not None:  # a MultiAggregation's width back to out_channels
            out = self.lin_aggr_out(out)
        if out.shape[-1] != self.out_channels:
            raise ValueError(
                f"GENConv: the aggregation {self.aggr_module!r} gives {out.shape[-1]} features "
                f"per node, but GENConv adds them to out_channels = {self.out_channels} "
                "(lin_aggr_out maps back only a MultiAggregation's width)"
            )
        if self.msg_norm is not None:
            out = self.msg_norm(x_dst if x_dst is not None else xs, out)
        if x_dst is not None:
            out = out + (self.lin_dst(x_dst) if self.lin_dst is not None else x_dst)
        return self.mlp(out)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, aggr={self.aggr!r}, norm={self.norm!r}"
