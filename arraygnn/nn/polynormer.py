"""PyG's ``Polynormer`` (Deng et al., "Polynormer: Polynomial-Expressive Graph Transformer in
Linear Time") and its ``PolynormerAttention``, at inference.

``PolynormerAttention``: ``k = sigmoid(x W_k)`` (``q`` the same, or its own projection
without ``qk_shared``), ``v = x W_v``, laid out ``[B, N, head_channels, heads]`` as PyG's;
per head ``out = q (k^T v) / (q sum_n k + 1e-6)`` (linear attention: one ``[D, D]`` matrix
per graph and head), then ``relu(lin_out(layer_norm(out) * (h_lins(x) + beta)))``. A
``mask`` ``[B, N]`` zeroes the padded rows' values only, as PyG's.

``Polynormer`` runs ``local_layers`` local layers (``GCNConv``, or ``GATConv`` with
``local_attn=True``; ``x = conv(x) + lins(x)``, optional pre layer norm and post batch norm,
ReLU, ``x = (1 - beta) * lns(relu(h_lins(x)) * x) + beta * x``) and sums their outputs. Its
training schedule has two stages: the local stage predicts with ``pred_local``; after PyG's
example switches ``model._global = True`` (at epoch ``local_epochs``) the summed local output
goes through a layer norm, ``global_layers`` ``PolynormerAttention`` layers over each graph's
nodes (PyG's ``to_dense_batch`` layout) and ``pred_global``. Both end in ``log_softmax``.
Here the stage is ``model.use_global`` (``False`` / ``True``; PyG's attribute
``model._global`` is the same flag, and :func:`from_pyg` copies it). The local layers share
one CSR / GCN normalisation built once per call. Inference: dropout is the identity, batch
norm uses the running statistics (PyG's ``eval()``).

RULE: the global stage needs ``heads == 1``: PyG builds its attention for
      ``hidden_channels`` inputs but feeds ``heads * hidden_channels`` (a shape error in PyG,
      a ``ValueError`` here). The local stage takes any ``heads``.
RULE: ``batch`` matters in the global stage only; it may be in any order (PyG sorts it) and
      ``None`` means one graph (PyG needs it). A graph's output depends on the largest graph
      of its batch (PyG pads to it; the padded rows' keys enter the normaliser).

>>> import numpy as np
>>> model = Polynormer(4, 8, 3, local_layers=2, global_layers=1, rng=0)
>>> x, ei = np.ones((5, 4), np.float32), np.array([[0, 1, 3], [1, 2, 4]])
>>> model(x, ei).shape
(5, 3)
>>> model.use_global = True
>>> model(x, ei, np.array([0, 0, 0, 1, 1])).shape
(5, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dense_graphs import DenseGraphs
from arraygnn.nn._dense_input import check_float_array, node_mask
from arraygnn.nn._linear_attention import linear_attention
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn._shared_graph import SharedGraph
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.graph_conv import GCNConv
from arraygnn.nn.linear import (
    BatchNorm,
    LayerNorm,
    Linear,
    _check_features,
    _ModuleList,
    _relu,
    _rng,
    _sigmoid,
)
from arraygnn.nn.signed_gcn import _log_softmax

__all__ = ["PolynormerAttention", "Polynormer", "attention_from_pyg_module", "from_pyg_module"]

_ATTN = "PolynormerAttention"
_WHERE = "Polynormer"


class PolynormerAttention(Module):
    """PyG's ``PolynormerAttention(channels, heads, head_channels=64, beta=0.9,
    qkv_bias=False, qk_shared=True, dropout=0.0)``; call as ``attn(x, mask=None)``.

    Names (PyG): ``h_lins.*``, ``q.*`` (without ``qk_shared`` only), ``k.*``, ``v.*``,
    ``lns.*`` (layer norm), ``lin_out.*``; all project to ``heads * head_channels``.

    Shapes:
        - input: ``x`` ``(B, N, channels)``, ``mask`` ``(B, N)`` bool (True: a real row)
        - output: ``(B, N, heads * head_channels)``
    """

    _child_names = ("h_lins", "q", "k", "v", "lns", "lin_out")

    def __init__(
        self,
        channels: int,
        heads: int,
        head_channels: int = 64,
        beta: float = 0.9,
        qkv_bias: bool = False,
        qk_shared: bool = True,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c = self.channels = layer_size(_ATTN, "channels", channels, minimum=1)
        h = self.heads = layer_size(_ATTN, "heads", heads, minimum=1)
        d = self.head_channels = layer_size(_ATTN, "head_channels", head_channels, minimum=1)
        self.beta = float(beta)
        self.qk_shared = bool(qk_shared)
        self.dropout = probability(_ATTN, "dropout", dropout)
        gen = _rng(rng)
        inner = h * d
        self.h_lins = Linear(c, inner, dtype=dtype, rng=gen)
        self.q = None if self.qk_shared else Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.k = Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.v = Linear(c, inner, qkv_bias, dtype=dtype, rng=gen)
        self.lns = LayerNorm(inner, dtype=dtype)
        self.lin_out = Linear(inner, inner, dtype=dtype, rng=gen)

    def __call__(self, x: Any, mask: Any = None) -> Any:
        check_float_array(_ATTN, "x", x, (3,))
        _check_features(x, self.channels, f"{_ATTN} x", self.k.weight)
        b, n, _ = x.shape
        h, d = self.heads, self.head_channels

        def heads_first(z: Any) -> Any:  # PyG's view [B, N, D, H] -> [B, H, N, D]
            return z.reshape(b, n, d, h).transpose(0, 3, 1, 2)

        k = heads_first(_sigmoid(self.k(x)))
        q = k if self.q is None else heads_first(_sigmoid(self.q(x)))
        v = self.v(x)
        m = node_mask(_ATTN, mask, b, n, v.dtype)
        if m is not None:
            v *= m
        num, den = linear_attention(q, k, heads_first(v))  # q (k^T v), q sum_n k
        den += den.dtype.type(1e-6)
        num /= den
        out = self.lns(num.transpose(0, 2, 3, 1).reshape(b, n, d * h))
        gate = self.h_lins(x)
        gate += gate.dtype.type(self.beta)
        out *= gate
        return _relu(self.lin_out(out))

    def extra_repr(self) -> str:
        return f"heads={self.heads}, head_channels={self.head_channels}"


class Polynormer(Module):
    """PyG's ``Polynormer(in_channels, hidden_channels, out_channels, local_layers=7,
    global_layers=2, in_dropout=0.15, dropout=0.5, global_dropout=0.5, heads=1, beta=0.9,
    qk_shared=False, pre_ln=False, post_bn=True, local_attn=False)``; call as
    ``model(x, edge_index, batch=None)``.

    ``use_global`` (keyword here, also settable later; PyG's ``_global``) picks the stage:
    ``False`` predicts from the local layers (``pred_local``), ``True`` adds the global
    attention (``pred_global``). ``local_layers`` is at least 1 (PyG builds one layer for 0).
    Dropout rates are kept for the record (inference).

    Names (PyG): ``h_lins.{i}.*``, ``local_convs.{i}.*`` (``GCNConv`` or ``GATConv``),
    ``lins.{i}.*``, ``lns.{i}.*``, ``pre_lns.{i}.*``, ``post_bns.{i}.*``, ``lin_in.*`` (kept,
    unused as in PyG), ``ln.*``, ``global_attn.{j}.*``, ``pred_local.*``, ``pred_global.*``.

    Shapes:
        - input: ``x`` ``(N, in_channels)``, ``edge_index`` ``(2, E)``, ``batch`` ``(N,)``
        - output: ``(N, out_channels)`` log-probabilities
    """

    _child_names = (
        "h_lins",
        "local_convs",
        "lins",
        "lns",
        "pre_lns",
        "post_bns",
        "lin_in",
        "ln",
        "global_attn",
        "pred_local",
        "pred_global",
    )

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int,
        out_channels: int,
        local_layers: int = 7,
        global_layers: int = 2,
        in_dropout: float = 0.15,
        dropout: float = 0.5,
        global_dropout: float = 0.5,
        heads: int = 1,
        beta: float = 0.9,
        qk_shared: bool = False,
        pre_ln: bool = False,
        post_bn: bool = True,
        local_attn: bool = False,
        *,
        use_global: bool = False,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        c_in = self.in_channels = layer_size(_WHERE, "in_channels", in_channels, minimum=1)
        hidden = self.hidden_channels = layer_size(_WHERE, "hidden_channels", hidden_channels, 1)
        self.out_channels = layer_size(_WHERE, "out_channels", out_channels, minimum=1)
        n_local = layer_size(_WHERE, "local_layers", local_layers, minimum=1)
        n_global = layer_size(_WHERE, "global_layers", global_layers)
        h = self.heads = layer_size(_WHERE, "heads", heads, minimum=1)
        self.beta = float(beta)
        self.pre_ln, self.post_bn = bool(pre_ln), bool(post_bn)
        self.local_attn = bool(local_attn)
        self.in_dropout = probability(_WHERE, "in_dropout", in_dropout)
        self.dropout = probability(_WHERE, "dropout", dropout)
        global_dropout = probability(_WHERE, "global_dropout", global_dropout)
        self.use_global = use_global
        gen = _rng(rng)
        inner = h * hidden
        widths = [c_in] + [inner] * (n_local - 1)

        def local_conv(width: int) -> Any:
            if self.local_attn:
                return GATConv(
                    width, hidden, h, True, add_self_loops=False, bias=False,
                    allow_zero_in_degree=True, dtype=dtype, rng=gen,
                )  # fmt: skip
            return GCNConv(width, inner, dtype=dtype, rng=gen)

        self.h_lins = _ModuleList([Linear(w, inner, dtype=dtype, rng=gen) for w in widths])
        self.local_convs = _ModuleList([local_conv(w) for w in widths])
        self.lins = _ModuleList([Linear(w, inner, dtype=dtype, rng=gen) for w in widths])
        self.lns = _ModuleList([LayerNorm(inner, dtype=dtype) for _ in widths])
        self.pre_lns = (
            _ModuleList([LayerNorm(w, dtype=dtype) for w in widths]) if self.pre_ln else None
        )
        self.post_bns = (
            _ModuleList([BatchNorm(inner, dtype=dtype) for _ in widths]) if self.post_bn else None
        )
        self.lin_in = Linear(c_in, inner, dtype=dtype, rng=gen)
        self.ln = LayerNorm(inner, dtype=dtype)
        self.global_attn = _ModuleList(
            [
                PolynormerAttention(
                    hidden,
                    h,
                    hidden,
                    self.beta,
                    qk_shared=qk_shared,
                    dropout=global_dropout,
                    dtype=dtype,
                    rng=gen,
                )  # fmt: skip
                for _ in range(n_global)
            ]
        )
        self.pred_local = Linear(inner, self.out_channels, dtype=dtype, rng=gen)
        self.pred_global = Linear(inner, self.out_channels, dtype=dtype, rng=gen)

    @property
    def use_global(self) -> bool:
        """The training stage: ``False`` local only, ``True`` with global attention."""
        return self._global

    @use_global.setter
    def use_global(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{_WHERE}: use_global must be True or False, got {value!r}")
        self._global = bool(value)

    def _local(self, x: Any, graph: SharedGraph) -> Any:
        beta = x.dtype.type(self.beta)
        total = None
        for i, conv in enumerate(self.local_convs):
            if self.pre_lns is not None:
                x = self.pre_lns[i](x)
            gate = _relu(self.h_lins[i](x))
            out = graph.propagate(conv, x)
            out += self.lins[i](x)
            if self.post_bns is not None:
                out = self.post_bns[i](out)
            x = _relu(out)
            gate *= x
            mixed = self.lns[i](gate)
            mixed *= x.dtype.type(1 - self.beta)
            mixed += beta * x
            x = mixed
            total = x if total is None else total + x  # x is never written in place
        return total

    def __call__(self, x: Any, edge_index: Any, batch: Any = None) -> Any:
        check_float_array(_WHERE, "x", x, (2,))
        _check_features(x, self.in_channels, f"{_WHERE} x", self.lin_in.weight)
        use_global = bool(self._global)  # PyG's attribute may have been set directly
        if use_global and self.heads != 1 and len(self.global_attn):
            raise ValueError(
                f"{_WHERE}: the global stage needs heads=1 (PyG builds PolynormerAttention for "
                f"{self.hidden_channels} inputs but feeds heads * hidden_channels = "
                f"{self.heads * self.hidden_channels}; PyG fails with a shape error too); "
                "use the local stage (use_global=False) or heads=1"
            )
        graph = SharedGraph(_WHERE, x, edge_index)
        layout = DenseGraphs(_WHERE, batch, x) if use_global else None
        x_local = self._local(x, graph)
        if layout is None:
            return _log_softmax(self.pred_local(x_local))
        dense, mask = layout.pack(self.ln(x_local))
        for attn in self.global_attn:
            dense = attn(dense, mask)
        return _log_softmax(self.pred_global(layout.unpack(dense)))

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.hidden_channels}, {self.out_channels}, "
            f"heads={self.heads}, use_global={self._global}"
        )


def attention_from_pyg_module(module: Any, dtype: Any, convert: Any) -> PolynormerAttention:
    """PyG's ``PolynormerAttention`` -> ours, weights and layer-norm ``eps`` loaded."""
    layer = PolynormerAttention(
        module.k.in_features,
        module.heads,
        module.head_channels,
        module.beta,
        module.k.bias is not None,
        module.qk_shared,
        float(module.dropout.p),
        dtype=dtype,
    )
    layer.load_state_dict(module.state_dict(), format="pyg")
    layer.lns.eps = float(module.lns.eps)
    return layer


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> Polynormer:
    """PyG's ``Polynormer`` -> ours: sizes read from its layers, every sub-layer converted
    through ``convert`` (norm ``eps`` values included), the stage flag ``_global`` copied."""
    first = module.local_convs[0]
    local_attn = type(first).__name__ == "GATConv"
    inner = module.pred_local.in_features
    if len(module.global_attn):
        heads, hidden = module.global_attn[0].heads, module.global_attn[0].head_channels
    elif local_attn:
        heads, hidden = first.heads, first.out_channels
    else:  # only products heads * hidden appear: one head of the full width
        heads, hidden = 1, inner
    attn = module.global_attn[0] if len(module.global_attn) else None
    model = Polynormer(
        module.h_lins[0].in_features,
        hidden,
        module.pred_local.out_features,
        len(module.local_convs),
        len(module.global_attn),
        module.in_drop,
        module.dropout,
        0.0 if attn is None else float(attn.dropout.p),
        heads,
        module.beta,
        True if attn is None else attn.qk_shared,
        module.pre_ln,
        module.post_bn,
        local_attn,
        use_global=bool(module._global),
        dtype=dtype,
    )
    for name in model._child_names:
        theirs = getattr(module, name, None)
        if isinstance(theirs, (list, tuple)) or type(theirs).__name__ == "ModuleList":
            setattr(model, name, _ModuleList([convert(m) for m in theirs]))
        elif theirs is not None:
            setattr(model, name, convert(theirs))
    return model
