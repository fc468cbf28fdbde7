"""PyG's ``SGFormer`` (Wu et al., "SGFormer: Simplifying and Empowering Transformers for
Large-Graph Representations") and its ``SGFormerAttention``, at inference.

``SGFormerAttention`` is linear all-pair attention: per head, ``q`` and ``k`` rows are
L2-normalised (exact zeros first replaced by ``1e-6``, as PyG), then
``out = (q (k^T v) + N v) / (q sum_n k + N)`` averaged over the heads, with ``N`` the
(padded) node count: one ``[D, D]`` matrix per graph and head, never an ``[N, N]`` score
array. A ``mask`` ``[B, N]`` zeroes the padded rows' values only (their keys still enter the
normaliser), as PyG's.

``SGFormer`` adds a global branch (``trans_conv``: input linear layer, layer norm, ReLU, then
per layer attention, the average with the previous layer's output, layer norm, ReLU) and a
GCN branch (``graph_conv``: input linear layer, batch norm, ReLU, then per layer ``GCNConv``,
batch norm, ReLU and the first layer's output added back), combines them (``graph_weight``
mix or concatenation), applies ``fc`` and ``log_softmax``. The global branch runs on each
graph's nodes laid out as PyG's ``to_dense_batch`` (``[B, N_max, C]``); the GCN layers share
one normalised CSR built once per call (one SpMM each). Inference: dropout is the identity,
batch norm uses the running statistics (PyG's ``eval()``).

RULE: ``batch`` may be in any order (PyG sorts it); ``None`` means one graph (PyG's model
      needs ``batch``). A graph's output depends on the largest graph of its batch (PyG pads
      every graph to it and the padded rows enter the attention's normaliser).
RULE: no nodes: an empty ``(0, out_channels)`` result (PyG fails on an empty batch).

>>> import numpy as np
>>> model = SGFormer(4, 8, 3, trans_num_heads=2, rng=0)
>>> x = np.ones((5, 4), np.float32)
>>> out = model(x, np.array([[0, 1, 3], [1, 2, 4]]), np.array([0, 0, 0, 1, 1]))
>>> out.shape, bool(np.allclose(np.exp(out).sum(axis=1), 1.0))
((5, 3), True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_graphs import DenseGraphs
from arraygnn.nn._dense_input import check_float_array, node_mask
from arraygnn.nn._linear_attention import linear_attention
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn._shared_graph import SharedGraph
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.linear import (
    BatchNorm,
    LayerNorm,
    Linear,
    _check_features,
    _ModuleList,
    _relu,
    _rng,
)
from arraygnn.nn.signed_gcn import _log_softmax

__all__ = ["SGFormerAttention", "SGFormer", "attention_from_pyg_module", "from_pyg_module"]

_ATTN = "SGFormerAttention"
_WHERE = "SGFormer"


class SGFormerAttention(Module):
    """PyG's ``SGFormerAttention(channels, heads=1, head_channels=64, qkv_bias=False)``;
    call as ``attn(x, mask=None)``.

    ``channels`` must be divisible by ``heads`` (PyG's assertion, even with
    ``head_channels`` given); ``head_channels=None`` is ``channels // heads``.

    Names (PyG): ``q.*``, ``k.*``, ``v.*`` (``channels -> heads * head_channels``).

    Shapes:
        - input: ``x`` ``(B, N, channels)``, ``mask`` ``(B, N)`` bool (True: a real row)
        - output: ``(B, N, head_channels)`` (the heads' mean)
    """

    _child_names = ("q", "k", "v")

    def __init__(
        self,
        channels: int,
        heads: int = 1,
        head_channels: int | None = 64,
        qkv_bias: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c = self.channels = layer_size(_ATTN, "channels", channels, minimum=1)
        h = self.heads = layer_size(_ATTN, "heads", heads, minimum=1)
        if c % h:
            raise ValueError(f"{_ATTN}: channels={c} must be divisible by heads={h}")
        d = self.head_channels = (
            c // h
            if head_channels is None
            else layer_size(_ATTN, "head_channels", head_channels, 1)
        )
        gen = _rng(rng)
        self.q = Linear(c, h * d, qkv_bias, dtype=dtype, rng=gen)
        self.k = Linear(c, h * d, qkv_bias, dtype=dtype, rng=gen)
        self.v = Linear(c, h * d, qkv_bias, dtype=dtype, rng=gen)

    def _unit_rows(self, lin: Linear, x: Any, b: int, n: int) -> Any:
        """``lin(x)`` as ``[B, H, N, D]``, zeros replaced by 1e-6, rows L2-normalised."""
        xp = get_namespace(x)
        z = lin(x).reshape(b, n, self.heads, self.head_channels)
        z[z == 0] = z.dtype.type(1e-6)
        z /= xp.sqrt((z * z).sum(axis=-1, keepdims=True))
        return z.transpose(0, 2, 1, 3)

    def __call__(self, x: Any, mask: Any = None) -> Any:
        check_float_array(_ATTN, "x", x, (3,))
        _check_features(x, self.channels, f"{_ATTN} x", self.q.weight)
        b, n, _ = x.shape
        h, d = self.heads, self.head_channels
        q, k = self._unit_rows(self.q, x, b, n), self._unit_rows(self.k, x, b, n)
        v = self.v(x).reshape(b, n, h, d)
        m = node_mask(_ATTN, mask, b, n, v.dtype)
        if m is not None:
            v *= m[..., None]
        v = v.transpose(0, 2, 1, 3)  # [B, H, N, D]
        num, den = linear_attention(q, k, v)  # q (k^T v), q sum_n k
        num += v * v.dtype.type(n)
        den += den.dtype.type(n)
        num /= den
        return num.mean(axis=1)

    def extra_repr(self) -> str:
        return f"heads={self.heads}, head_channels={self.head_channels}"


class _TransModule(Module):
    """PyG's ``SGModule``: the global branch, on the dense layout."""

    _child_names = ("attns", "fcs", "bns")

    def __init__(
        self, in_channels: int, hidden: int, layers: int, heads: int, dtype: Any, gen: Any
    ) -> None:
        self.fcs = _ModuleList([Linear(in_channels, hidden, dtype=dtype, rng=gen)])
        self.bns = _ModuleList([LayerNorm(hidden, dtype=dtype) for _ in range(layers + 1)])
        self.attns = _ModuleList(
            [SGFormerAttention(hidden, heads, hidden, dtype=dtype, rng=gen) for _ in range(layers)]
        )

    def __call__(self, x: Any, mask: Any) -> Any:
        x = _relu(self.bns[0](self.fcs[0](x)))
        previous = x
        for attn, norm in zip(self.attns, list(self.bns)[1:]):
            x = attn(x, mask)
            x += previous
            x /= x.dtype.type(2.0)
            x = previous = _relu(norm(x))
        return x


class _GraphModule(Module):
    """PyG's ``GraphModule``: the GCN branch with the first layer's output added back."""

    _child_names = ("convs", "fcs", "bns")

    def __init__(self, in_channels: int, hidden: int, layers: int, dtype: Any, gen: Any) -> None:
        self.fcs = _ModuleList([Linear(in_channels, hidden, dtype=dtype, rng=gen)])
        self.bns = _ModuleList([BatchNorm(hidden, dtype=dtype) for _ in range(layers + 1)])
        self.convs = _ModuleList(
            [GCNConv(hidden, hidden, dtype=dtype, rng=gen) for _ in range(layers)]
        )

    def __call__(self, x: Any, graph: SharedGraph) -> Any:
        x = first = _relu(self.bns[0](self.fcs[0](x)))
        for conv, norm in zip(self.convs, list(self.bns)[1:]):
            x = _relu(norm(graph.propagate(conv, x)))
            x += first
        return x


class SGFormer(Module):
    """PyG's ``SGFormer(in_channels, hidden_channels, out_channels, trans_num_layers=2,
    trans_num_heads=1, trans_dropout=0.5, gnn_num_layers=3, gnn_dropout=0.5,
    graph_weight=0.5, aggregate='add')``; call as ``model(x, edge_index, batch=None)``.

    ``aggregate='add'``: ``graph_weight * gnn + (1 - graph_weight) * global``; ``'cat'``:
    ``[global, gnn]``. The output is ``log_softmax`` over the classes. Dropout rates are
    kept for the record (inference).

    Names (PyG): ``trans_conv.fcs.0.*``, ``trans_conv.bns.{i}.*`` (layer norms),
    ``trans_conv.attns.{i}.{q,k,v}.*``, ``graph_conv.fcs.0.*``, ``graph_conv.bns.{i}.*``
    (batch norms, running statistics), ``graph_conv.convs.{i}.lin.weight`` / ``.bias``,
    ``fc.*``.

    Shapes:
        - input: ``x`` ``(N, in_channels)``, ``edge_index`` ``(2, E)``, ``batch`` ``(N,)``
        - output: ``(N, out_channels)`` log-probabilities
    """

    _child_names = ("trans_conv", "graph_conv", "fc")

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        trans_num_layers: int = 2,
        trans_num_heads: int = 1,
        trans_dropout: float = 0.5,
        gnn_num_layers: int = 3,
        gnn_dropout: float = 0.5,
        graph_weight: float = 0.5,
        aggregate: str = "add",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size(_WHERE, "in_channels", in_channels, minimum=1)
        hidden = self.hidden_channels = layer_size(_WHERE, "hidden_channels", hidden_channels, 1)
        self.out_channels = layer_size(_WHERE, "out_channels", out_channels, minimum=1)
        layers = layer_size(_WHERE, "trans_num_layers", trans_num_layers)
        heads = layer_size(_WHERE, "trans_num_heads", trans_num_heads, minimum=1)
        gnn_layers = layer_size(_WHERE, "gnn_num_layers", gnn_num_layers)
        if aggregate not in ("add", "cat"):
            raise ValueError(f"{_WHERE}: aggregate must be 'add' or 'cat', got {aggregate!r}")
        if layers and hidden % heads:  # PyG's check sits in SGFormerAttention
            raise ValueError(
                f"{_WHERE}: hidden_channels={hidden} must be divisible by trans_num_heads={heads}"
            )
        self.aggregate = aggregate
        self.graph_weight = float(graph_weight)
        self.trans_dropout = probability(_WHERE, "trans_dropout", trans_dropout)
        self.gnn_dropout = probability(_WHERE, "gnn_dropout", gnn_dropout)
        gen = _rng(rng)
        self.trans_conv = _TransModule(self.in_channels, hidden, layers, heads, dtype, gen)
        self.graph_conv = _GraphModule(self.in_channels, hidden, gnn_layers, dtype, gen)
        width = hidden if aggregate == "add" else 2 * hidden
        self.fc = Linear(width, self.out_channels, dtype=dtype, rng=gen)

    def __call__(self, x: Any, edge_index: Any, batch: Any = None) -> Any:
        check_float_array(_WHERE, "x", x, (2,))
        _check_features(x, self.in_channels, f"{_WHERE} x", self.fc.weight)
        graph = SharedGraph(_WHERE, x, edge_index)
        layout = DenseGraphs(_WHERE, batch, x)
        dense, mask = layout.pack(x)
        x1 = layout.unpack(self.trans_conv(dense, mask))
        x2 = self.graph_conv(x, graph)
        if self.aggregate == "add":
            x2 *= x2.dtype.type(self.graph_weight)
            x2 += x1 * x1.dtype.type(1 - self.graph_weight)
            h = x2
        else:
            h = get_namespace(x1, x2).concatenate([x1, x2], axis=1)
        return _log_softmax(self.fc(h))

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.hidden_channels}, {self.out_channels}, "
            f"aggregate={self.aggregate!r}"
        )


def attention_from_pyg_module(module: Any, dtype: Any, convert: Any) -> SGFormerAttention:
    """PyG's ``SGFormerAttention`` -> ours, weights loaded."""
    layer = SGFormerAttention(
        module.q.in_features,
        module.heads,
        module.head_channels,
        module.q.bias is not None,
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    return layer


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> SGFormer:
    """PyG's ``SGFormer`` -> ours: sizes read from its layers, every sub-layer converted
    through ``convert`` (norm ``eps`` values included), the branches' ``activation``
    attributes checked to be ReLU."""
    from arraygnn.nn.weights import _activation

    trans, gnn = module.trans_conv, module.graph_conv
    for name, branch in (("trans_conv", trans), ("graph_conv", gnn)):
        where = f"from_pyg: SGFormer {name}.activation"
        if _activation(branch.activation, where) != "relu":  # forward calls the attribute
            raise ValueError(f"{where}: only ReLU (PyG's F.relu) is supported")
    first = trans.fcs[0]
    heads = trans.attns[0].heads if len(trans.attns) else 1
    model = SGFormer(
        first.in_features,
        first.out_features,
        module.fc.out_features,
        len(trans.attns),
        heads,
        trans.dropout,
        len(gnn.convs),
        gnn.dropout,
        module.graph_weight,
        module.aggregate,
        dtype=dtype,
    )
    for ours, theirs in ((model.trans_conv, trans), (model.graph_conv, gnn)):
        for name in ours._child_names:
            setattr(ours, name, _ModuleList([convert(m) for m in getattr(theirs, name)]))
    model.fc = convert(module.fc)
    return model
