"""PyG's ready-made models (``torch_geometric.nn.models``' BasicGNN family) at inference.

``GCN``, ``GraphSAGE``, ``GIN``, ``GAT`` (``v2``, ``heads``, ``concat``), ``PNA`` and
``EdgeCNN`` stack ``num_layers`` arraygnn convolutions (``GCNConv``, ``SAGEConv``,
``GINConv`` over an ``MLP``, ``GATConv`` / ``GATv2Conv``, ``PNAConv``, ``EdgeConv`` over an
``MLP``) with PyG's constructor arguments and PyG's order per layer: conv, then (except after
the last conv when ``jk`` is None) activation / norm (``act_first`` swaps them), and an
optional ``JumpingKnowledge`` (``'cat'``, ``'max'``, ``'lstm'``) plus a final ``lin``. The
weights carry PyG's state-dict names (``convs.0.lin.weight``, ``norms.0.module.weight``,
``jk.lstm.weight_ih_l0_reverse``, ``lin.weight``), so ``arraygnn.nn.from_pyg`` converts a
trained PyG model. No message passing lives here: each layer runs its own kernels (see the
conv layers' docstrings for the SpMM / SDDMM paths they take); dropout is the identity.

``model(x, edge_index, edge_weight=None, edge_attr=None, batch=None, batch_size=None)``
passes ``edge_weight`` to the convolutions only for ``GCN`` and ``edge_attr`` only for
``GAT`` / ``PNA`` (PyG's ``supports_edge_weight`` / ``supports_edge_attr``; the other is
ignored, as PyG does, and so is ``edge_attr`` for a ``GATConv`` without ``edge_dim``).
``batch`` / ``batch_size`` reach the norms that take them (``graph_norm``, ``layer_norm``,
...); as in PyG 2.8.1 the output is not trimmed to ``batch_size`` rows.
``num_sampled_nodes_per_hop`` / ``num_sampled_edges_per_hop`` (a ``NeighborLoader``
mini-batch's counts, nodes and edges ordered by hop) trim each layer's input as PyG's
``trim_to_layer`` (``edge_weight`` or ``edge_attr`` with it, not both; ``batch`` is not
trimmed), so the output has only the rows the last layer still needs. ``norm``: ``None``,
``'batch_norm'``, ``'layer_norm'``, ``'graph_norm'``, ``'instance_norm'``, ``'pair_norm'``,
``'diff_group_norm'`` (spelled any way PyG's resolver takes: ``'BatchNorm'``, ``'batch'``)
when building (GIN / EdgeCNN: in their MLP too, run without ``batch`` as PyG's); ``from_pyg``
converts every PyG norm ``arraygnn.nn.norm`` has. ``jk='lstm'`` runs PyG's bidirectional
LSTM as two ``arraygnn.nn.LSTM`` s.

>>> import numpy as np
>>> model = GraphSAGE(4, 8, num_layers=2, out_channels=3, jk="cat", rng=0)
>>> model(np.ones((5, 4), np.float32), np.array([[0, 1, 2], [1, 2, 3]])).shape
(5, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._dense_input import softmax
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.edge_conv import EdgeConv
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.gatv2_conv import GATv2Conv
from arraygnn.nn.gin_conv import GINConv
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.linear import (
    LSTM,
    MLP,
    BatchNorm,
    Linear,
    _ModuleList,
    _rng,
    get_activation,
    resolve_act,
)
from arraygnn.nn.norm.resolver import NORMS as _NORMS
from arraygnn.nn.norm.resolver import make_norm
from arraygnn.nn.norm.resolver import norm_key as _norm_key
from arraygnn.nn.norm.resolver import takes_batch as _takes_batch
from arraygnn.nn.pna_conv import PNAConv
from arraygnn.nn.sage_conv import SAGEConv

__all__ = ["GCN", "GraphSAGE", "GIN", "GAT", "PNA", "EdgeCNN", "JumpingKnowledge"]

_JK_MODES = (None, "last", "cat", "max", "lstm")


class _BiLSTM(Module):
    """A one-layer bidirectional, batch-first ``torch.nn.LSTM`` (torch's names, ``_reverse``
    for the backward direction) built from two arraygnn ``LSTM`` s."""

    _names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")

    def __init__(self, input_size: int, hidden_size: int, *, dtype: Any, rng: Any) -> None:
        self.fwd = LSTM(input_size, hidden_size, dtype=dtype, rng=rng)
        self.bwd = LSTM(input_size, hidden_size, dtype=dtype, rng=rng)
        self.hidden_size = hidden_size

    def _named_arrays(self) -> list[tuple[str, Any]]:
        return [(n, getattr(self.fwd, n)) for n in self._names] + [
            (f"{n}_reverse", getattr(self.bwd, n)) for n in self._names
        ]

    def _set_array(self, dotted: str, value: Any) -> None:
        if dotted.endswith("_reverse"):
            setattr(self.bwd, dotted[: -len("_reverse")], value)
        else:
            setattr(self.fwd, dotted, value)

    def __call__(self, x: Any) -> Any:
        """``x`` ``(B, T, F)`` -> ``(B, T, 2 H)`` (forward then backward outputs)."""
        seq = x.transpose(1, 0, 2)  # (T, B, F)
        out_f, _ = self.fwd(seq)
        out_b, _ = self.bwd(seq[::-1])
        xp = get_namespace(x)
        return xp.concatenate([out_f, out_b[::-1]], axis=-1).transpose(1, 0, 2)


class JumpingKnowledge(Module):
    """PyG's ``JumpingKnowledge``: ``'cat'`` (concatenate the layers' outputs), ``'max'``
    (element-wise maximum) or ``'lstm'`` (a bidirectional LSTM and ``att`` score each
    layer per node; the softmax-weighted sum of the layers).

    Args:
        mode: ``'cat'``, ``'max'`` or ``'lstm'``.
        channels, num_layers: the width and number of the representations (``'lstm'``).

    >>> import numpy as np
    >>> JumpingKnowledge("max")([np.zeros((2, 3)), np.ones((2, 3))]).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """

    def __init__(
        self,
        mode: str,
        channels: int | None = None,
        num_layers: int | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.mode = mode.lower() if isinstance(mode, str) else mode
        if self.mode not in ("cat", "max", "lstm"):
            raise ValueError(f"JumpingKnowledge: mode must be 'cat', 'max' or 'lstm', got {mode!r}")
        self.lstm: _BiLSTM | None = None
        self.att: Linear | None = None
        if self.mode == "lstm":
            if channels is None or num_layers is None:
                raise ValueError("JumpingKnowledge: mode='lstm' needs channels and num_layers")
            channels = layer_size("JumpingKnowledge", "channels", channels, minimum=1)
            num_layers = layer_size("JumpingKnowledge", "num_layers", num_layers, minimum=1)
            hidden = (num_layers * channels) // 2
            if hidden < 1:
                raise ValueError(
                    "JumpingKnowledge: mode='lstm' needs num_layers * channels >= 2, got "
                    f"{num_layers} * {channels}"
                )
            gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
            self.lstm = _BiLSTM(channels, hidden, dtype=dtype, rng=gen)
            self.att = Linear(2 * hidden, 1, dtype=dtype, rng=gen)
        self.channels, self.num_layers = channels, num_layers
        self._child_names = ("lstm", "att")

    def __call__(self, xs: Any) -> Any:
        if not isinstance(xs, (list, tuple)) or not xs or not all(is_array(x) for x in xs):
            raise TypeError("JumpingKnowledge: xs must be a non-empty list of arrays")
        xp = get_namespace(*xs)
        shapes = [tuple(x.shape) for x in xs]
        if len({s[:-1] for s in shapes}) > 1 or (self.mode == "lstm" and len(shapes[0]) != 2):
            raise ValueError(
                "JumpingKnowledge: xs must agree in every dimension but the last (mode='lstm': "
                f"2-D, (N, channels)), got shapes {shapes}"
            )
        if self.mode != "cat" and len(set(shapes)) > 1:
            raise ValueError(
                f"JumpingKnowledge: mode={self.mode!r} needs xs of one shape, got shapes {shapes}"
            )
        if self.mode == "lstm" and shapes[0][1] != self.channels:
            raise ValueError(
                f"JumpingKnowledge: xs have {shapes[0][1]} features, expected "
                f"channels={self.channels}"
            )
        if self.mode == "cat":
            return xp.concatenate(xs, axis=-1)
        if self.mode == "max":
            return xp.stack(xs, axis=-1).max(axis=-1)
        x = xp.stack(xs, axis=1)  # (N, L, C)
        alpha = self.att(self.lstm(x).reshape(-1, 2 * self.lstm.hidden_size))
        alpha = softmax(alpha.reshape(x.shape[0], x.shape[1]), axis=-1)
        return (x * alpha[..., None]).sum(axis=1)

    def extra_repr(self) -> str:
        if self.mode == "lstm":
            return f"lstm, channels={self.channels}, layers={self.num_layers}"
        return self.mode


class BasicGNN(Module):
    """The shared body of PyG's ``BasicGNN`` models; subclasses give ``init_conv``."""

    supports_edge_weight = False
    supports_edge_attr = False

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        num_layers: int,
        out_channels: int | None = None,
        dropout: float = 0.0,
        act: str | Callable[[Any], Any] | None = "relu",
        act_first: bool = False,
        act_kwargs: dict[str, Any] | None = None,
        norm: str | None = None,
        norm_kwargs: dict[str, Any] | None = None,
        jk: str | None = None,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
        **kwargs: Any,
    ) -> None:
        name = type(self).__name__
        if isinstance(in_channels, (tuple, list)):
            raise ValueError(f"{name}: bipartite in_channels (a pair) is not supported")
        self.in_channels = layer_size(name, "in_channels", in_channels, minimum=1)
        self.hidden_channels = hid = layer_size(name, "hidden_channels", hidden_channels, 1)
        self.num_layers = layer_size(name, "num_layers", num_layers, minimum=1)
        if out_channels is not None:
            out_channels = layer_size(name, "out_channels", out_channels, minimum=1)
        self.out_channels = hid if out_channels is None else out_channels
        if jk not in _JK_MODES:
            raise ValueError(f"{name}: jk must be one of {list(_JK_MODES)}, got {jk!r}")
        if norm is not None and _norm_key(norm) is None:
            raise ValueError(
                f"{name}: norm={norm!r} is not supported when building the model; use None or "
                f"one of {sorted(_NORMS)} (from_pyg converts every PyG norm arraygnn.nn.norm has)"
            )
        self.dropout = probability(name, "dropout", dropout)  # inference: the identity
        self.act = resolve_act(name, act, act_kwargs)
        self.act_first = bool(act_first)
        self.jk_mode = jk
        self.norm = _norm_key(norm)
        self.norm_kwargs = dict(norm_kwargs or {})
        self._dtype = dtype
        self._rng = _rng(rng)
        self._is_conv_to_out = out_channels is not None and jk is None
        convs = []
        size = self.in_channels
        self._last = False
        for _ in range(self.num_layers - 1):
            convs.append(self.init_conv(size, hid, **kwargs))
            size = hid
        self._last = True  # PyG's `_is_conv_to_out` holds from here on
        convs.append(self.init_conv(size, out_channels if self._is_conv_to_out else hid, **kwargs))
        n_norm = self.num_layers if jk is not None else self.num_layers - 1
        norms: list[Any] = [self._make_norm() for _ in range(n_norm)]
        norms += [None] * (self.num_layers - n_norm)
        jk_layer = None
        if jk is not None and jk != "last":
            jk_layer = JumpingKnowledge(jk, hid, self.num_layers, dtype=dtype, rng=self._rng)
        lin = None
        if jk is not None:
            width = self.num_layers * hid if jk == "cat" else hid
            lin = Linear(width, self.out_channels, dtype=dtype, rng=self._rng)
        self._assemble(convs, norms, jk_layer, lin)

    def _make_norm(self) -> Any:
        return make_norm(
            type(self).__name__,
            self.norm,
            self.hidden_channels,
            self.norm_kwargs,
            self._dtype,
            self._rng,
        )

    def _assemble(
        self, convs: list[Any], norms: list[Any], jk: Any, lin: Any, wrapped: Any = None
    ) -> None:
        """``wrapped[i]``: ``norms[i]`` stands for PyG's ``BatchNorm`` (names
        ``norms.i.module.*``) rather than a torch norm given as a module (default: every
        ``BatchNorm``)."""
        self.convs = _ModuleList(convs)
        self.norms = _ModuleList(norms)
        self._wrapped = [isinstance(n, BatchNorm) for n in norms] if wrapped is None else wrapped
        self.jk = jk
        self.lin = lin
        self._norm_batch = [_takes_batch(n) for n in norms]
        self._child_names = ("convs", "norms", "jk", "lin")

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        raise NotImplementedError

    def _conv_kwargs(self, kwargs: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        return {"dtype": self._dtype, **extra, **kwargs}

    def __call__(
        self,
        x: Any,
        edge_index: Any,
        edge_weight: Any = None,
        edge_attr: Any = None,
        batch: Any = None,
        batch_size: int | None = None,
        num_sampled_nodes_per_hop: list[int] | None = None,
        num_sampled_edges_per_hop: list[int] | None = None,
    ) -> Any:
        name = type(self).__name__
        if not is_array(x) or x.ndim != 2:
            raise TypeError(f"{name}: x must be a 2-D NumPy or CuPy array (N, in_channels)")
        if self.in_channels is not None and x.shape[1] != self.in_channels:
            raise ValueError(
                f"{name}: x has {x.shape[1]} features, expected in_channels={self.in_channels}"
            )
        trim = num_sampled_nodes_per_hop is not None  # PyG ignores the edge counts alone
        if trim and edge_weight is not None and edge_attr is not None:
            raise NotImplementedError(
                f"{name}: trimming (num_sampled_nodes_per_hop) does not support both "
                "edge_weight and edge_attr, as PyG's"
            )
        if trim and num_sampled_edges_per_hop is None:
            raise ValueError(
                f"{name}: num_sampled_edges_per_hop must be given with num_sampled_nodes_per_hop"
            )
        xs = []
        for i, (conv, norm) in enumerate(zip(self.convs, self.norms)):
            if trim:  # PyG's trim_to_layer: drop the hops this layer no longer needs
                from arraygnn.utils.trim_to_layer import trim_to_layer

                value = edge_weight if edge_weight is not None else edge_attr
                x, edge_index, value = trim_to_layer(
                    i, num_sampled_nodes_per_hop, num_sampled_edges_per_hop, x, edge_index, value
                )
                if edge_weight is not None:
                    edge_weight = value
                else:
                    edge_attr = value
            if self.supports_edge_weight:
                x = conv(x, edge_index, edge_weight)
            elif self.supports_edge_attr:  # PyG's GATConv without edge_dim ignores edge_attr
                ignored = type(conv) is GATConv and conv.edge_dim is None
                x = conv(x, edge_index, None if ignored else edge_attr)
            else:
                x = conv(x, edge_index)
            if i < self.num_layers - 1 or self.jk_mode is not None:
                if self.act is not None and self.act_first:
                    x = self.act(x)
                if norm is not None:
                    x = norm(x, batch, batch_size) if self._norm_batch[i] else norm(x)
                if self.act is not None and not self.act_first:
                    x = self.act(x)
                xs.append(x)
        if self.jk is not None:
            if len({h.shape[0] for h in xs}) > 1:  # PyG fails inside its JumpingKnowledge
                raise ValueError(
                    f"{name}: jk={self.jk_mode!r} combines every layer's output node by node, "
                    "but trimming (num_sampled_nodes_per_hop) left them "
                    f"{[int(h.shape[0]) for h in xs]} rows; use jk=None or 'last' with trimming"
                )
            x = self.jk(xs)
        return self.lin(x) if self.lin is not None else x

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        """PyG's ``BatchNorm`` wraps torch's: the model's ``norms.0.weight`` is
        ``norms.0.module.weight``."""
        out = super()._export_pyg(native)
        renamed = {}
        for key, value in out.items():
            parts = key.split(".")
            if parts[0] == "norms" and self._wrapped[int(parts[1])]:
                key = ".".join(parts[:2] + ["module"] + parts[2:])
            renamed[key] = value
        return renamed

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, num_layers={self.num_layers}"


def _mlp(model: BasicGNN, channels: list[int]) -> MLP:
    """PyG's ``MLP([...], act=model.act, act_first, norm=model.norm, norm_kwargs)`` of GIN /
    EdgeCNN (the MLP's norms run without ``batch``, as PyG's conv calls its ``nn(x)``)."""
    try:
        return MLP(
            channels,
            act=model.act,
            norm=model.norm,
            norm_kwargs=model.norm_kwargs,
            act_first=model.act_first,
            dtype=model._dtype,
            rng=model._rng,
        )
    except ValueError as err:
        raise ValueError(f"{type(model).__name__}: {err}") from None


class GCN(BasicGNN):
    """PyG's ``GCN``: ``GCNConv`` layers (``edge_weight`` reaches them). ``**kwargs`` go to
    ``GCNConv`` (``improved``, ``cached``, ``add_self_loops``, ``normalize``, ``bias``)."""

    supports_edge_weight = True

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        extra = {"allow_zero_in_degree": True, "rng": self._rng}
        return GCNConv(in_channels, out_channels, **self._conv_kwargs(kwargs, extra))


class GraphSAGE(BasicGNN):
    """PyG's ``GraphSAGE``: ``SAGEConv`` layers; ``aggr`` (``'mean'``, ``'sum'`` /
    ``'add'``, ``'max'``), ``project``, ``normalize``, ``root_weight``, ``bias``."""

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        kw = self._conv_kwargs(kwargs, {"rng": self._rng})
        aggr = kw.pop("aggr", "mean")
        aggr = "sum" if aggr == "add" else aggr
        if kw.get("project") and aggr == "max":
            aggr = "pool"
        return SAGEConv(in_channels, out_channels, aggr, **kw)


class GIN(BasicGNN):
    """PyG's ``GIN``: ``GINConv`` over ``MLP([in, out, out])`` (the model's act / norm);
    ``eps``, ``train_eps`` (ignored at inference), ``aggr``."""

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        mlp = _mlp(self, [in_channels, out_channels, out_channels])
        kw = self._conv_kwargs(kwargs, {})
        kw.pop("train_eps", None)
        aggr = kw.pop("aggr", "sum")
        return GINConv(mlp, kw.pop("eps", 0.0), "sum" if aggr == "add" else aggr, **kw)


class GAT(BasicGNN):
    """PyG's ``GAT``: ``GATConv`` (``v2=True``: ``GATv2Conv``) layers with ``heads``;
    ``concat=True`` splits each layer's width over the heads (it must divide), except for a
    last layer that maps to ``out_channels`` (``jk=None``), which averages its heads.
    ``edge_attr`` reaches the layers (``edge_dim``)."""

    supports_edge_attr = True

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        kw = self._conv_kwargs(kwargs, {"allow_zero_in_degree": True, "rng": self._rng})
        v2 = kw.pop("v2", False)
        heads = kw.pop("heads", 1)
        concat = kw.pop("concat", True)
        if self._is_conv_to_out and self._last:  # PyG: the layer mapping to out_channels
            concat = False
        if concat and out_channels % heads != 0:
            raise ValueError(
                f"GAT: the output channels of GATConv (got {out_channels}) must be divisible by "
                f"heads (got {heads})"
            )
        if concat:
            out_channels //= heads
        conv = GATv2Conv if v2 else GATConv
        return conv(in_channels, out_channels, heads, concat, **kw)


class PNA(BasicGNN):
    """PyG's ``PNA``: ``PNAConv`` layers (``aggregators``, ``scalers``, ``deg``,
    ``edge_dim``, ``towers``, ``pre_layers``, ``post_layers``, ``divide_input``,
    ``train_norm``: the same numbers at inference); ``edge_attr`` reaches them."""

    supports_edge_attr = True

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        kw = self._conv_kwargs(kwargs, {"rng": self._rng})
        return PNAConv(in_channels, out_channels, **kw)


class EdgeCNN(BasicGNN):
    """PyG's ``EdgeCNN``: ``EdgeConv`` over ``MLP([2 in, out, out])`` (the model's act /
    norm); ``aggr`` (default ``'max'``)."""

    def init_conv(self, in_channels: int, out_channels: int, **kwargs: Any) -> Module:
        mlp = _mlp(self, [2 * in_channels, out_channels, out_channels])
        return EdgeConv(mlp, **kwargs)


MODELS = {m.__name__: m for m in (GCN, GraphSAGE, GIN, GAT, PNA, EdgeCNN)}


def jumping_knowledge_from_pyg(module: Any, dtype: Any) -> JumpingKnowledge:
    """PyG's ``JumpingKnowledge`` (``'lstm'``: its LSTM and ``att`` weights loaded)."""
    if module.mode == "lstm" and getattr(module, "lstm", None) is None:  # built for 'lstm' only
        raise ValueError(
            "from_pyg: this PyG JumpingKnowledge was built with mode='LSTM' (PyG lowercases the "
            "mode but builds its LSTM only for 'lstm', so it fails when called); build it with "
            "mode='lstm'"
        )
    jk = JumpingKnowledge(module.mode, module.channels, module.num_layers, dtype=dtype)
    jk.load_state_dict(module.state_dict(), format="pyg")
    return jk


def from_pyg_model(module: Any, convert: Callable[[Any], Module]) -> BasicGNN:
    """The arraygnn model matching a PyG ``BasicGNN`` model, weights included; ``convert``
    is ``arraygnn.nn.from_pyg`` (used for each conv, norm and ``lin``)."""
    import torch

    from arraygnn.nn.weights import _activation, _dtype_of

    kind = type(module).__name__
    model = MODELS[kind].__new__(MODELS[kind])
    in_channels = module.in_channels
    if isinstance(in_channels, (tuple, list)):
        raise ValueError(f"from_pyg: {kind} with bipartite in_channels is not supported")
    # PyG's Linear is lazy for any in_channels <= 0 (-1 by convention)
    model.in_channels = None if in_channels <= 0 else int(in_channels)
    model.hidden_channels = module.hidden_channels
    model.num_layers = module.num_layers
    model.out_channels = module.out_channels
    model.dropout = float(module.dropout.p)
    model.jk_mode = module.jk_mode
    if model.jk_mode not in _JK_MODES:
        raise ValueError(f"from_pyg: {kind}(jk={model.jk_mode!r}) is not supported")
    model.act_first = bool(module.act_first)
    model.act = get_activation(_activation(module.act, f"from_pyg: {kind} act"))
    model.norm = module.norm
    model.norm_kwargs = dict(module.norm_kwargs or {})
    model._dtype = dtype = _dtype_of(module)
    model._rng = None
    convs = []
    for i, conv in enumerate(module.convs):
        try:
            convs.append(convert(conv))
        except (TypeError, ValueError) as err:
            raise ValueError(f"from_pyg: {kind} convs.{i}: {err}") from None
    norms = []
    for i, norm in enumerate(module.norms):
        if isinstance(norm, torch.nn.Identity):
            norms.append(None)
            continue
        inner = getattr(norm, "module", None)
        if type(norm).__name__ == "BatchNorm" and isinstance(inner, torch.nn.BatchNorm1d):
            # without running statistics: PyG's wrapper as arraygnn.nn.norm.BatchNorm
            # (batch statistics, as torch's eval mode), its names already `module.*`
            norms.append(convert(inner if inner.track_running_stats else norm))
            continue
        try:
            norms.append(convert(norm))
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"from_pyg: {kind} norm {type(norm).__name__} (norms.{i}) is not supported ({err})"
            ) from None
    jk = jumping_knowledge_from_pyg(module.jk, dtype) if hasattr(module, "jk") else None
    lin = convert(module.lin) if hasattr(module, "lin") else None
    # PyG's BatchNorm wrapper run by torch's (arraygnn.nn.BatchNorm): names `module.*`
    wrapped = [
        type(n).__name__ == "BatchNorm" and isinstance(ours, BatchNorm)
        for n, ours in zip(module.norms, norms)
    ]
    model._assemble(convs, norms, jk, lin, wrapped)
    model.load_state_dict(module.state_dict(), format="pyg")  # every name must match PyG's
    return model
