"""DGL's ``EGTLayer`` (Edge-augmented Graph Transformer, Hussain et al.): dense attention
over ``[B, N, F]`` nodes whose scores are biased and gated per head by ``[B, N, N, E]``
edge channels, scaled by the log of each node's gated degree, and (``edge_update``) new
edge channels from the scores.

How it runs: ``[B, H, N, N]`` scores from one batched product (DGL's head-last layout:
``qkv`` is read as ``[B, N, 3 d, H]``), clipped to ``[-5, 5]``, the edge bias added, a
masked softmax times the sigmoid gates, a second batched product; then the node and edge
feed-forward networks. Dropout is the identity (inference).

RULE: ``mask`` is additive (``0`` allowed, ``-inf`` not), ``[B, N, N]``; a row that is
      ``-inf`` everywhere gives NaN, as DGL's softmax. The first ``num_virtual_nodes`` rows
      are not degree-scaled.

>>> import numpy as np
>>> layer = EGTLayer(8, 4, 2, num_virtual_nodes=1, rng=0)
>>> h, e = layer(np.ones((3, 5, 8), np.float32), np.ones((3, 5, 5, 4), np.float32))
>>> h.shape, e.shape
((3, 5, 8), (3, 5, 5, 4))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dense_input import bmm, softmax
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import check_floats, identity
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import LayerNorm, Linear, Sequential, _rng, _sigmoid, get_activation

__all__ = ["EGTLayer", "from_dgl_module"]

_WHERE = "EGTLayer"


def _ffn(width: int, act: Any, dtype: Any, gen: Any) -> Sequential:
    """DGL's ``Sequential(LayerNorm, Linear, act, Linear, Dropout)``."""
    return Sequential(
        LayerNorm(width, dtype=dtype),
        Linear(width, width, dtype=dtype, rng=gen),
        act,
        Linear(width, width, dtype=dtype, rng=gen),
        identity,
    )


class EGTLayer(DGLModule):
    """DGL's ``EGTLayer(feat_size, edge_feat_size, num_heads, num_virtual_nodes,
    dropout=0, attn_dropout=0, activation=elu, edge_update=True)``.

    Call as ``layer(nfeat, efeat, mask=None)``: ``nfeat`` ``(B, N, feat_size)``, ``efeat``
    ``(B, N, N, edge_feat_size)``, ``mask`` ``(B, N, N)`` additive. Returns ``(nfeat,
    efeat)`` with ``edge_update``, else ``nfeat``.

    Names (DGL): ``mha_ln_h``, ``mha_ln_e``, ``edge_input``, ``qkv_proj``, ``gate``,
    ``node_output``, ``node_ffn.{0,1,3}``, and with ``edge_update`` ``edge_output``,
    ``edge_ffn.{0,1,3}``.
    """

    _child_names = (
        "mha_ln_h",
        "mha_ln_e",
        "edge_input",
        "qkv_proj",
        "gate",
        "node_output",
        "node_ffn",
        "edge_output",
        "edge_ffn",
    )

    def __init__(
        self,
        feat_size: int,
        edge_feat_size: int,
        num_heads: int,
        num_virtual_nodes: int,
        dropout: float = 0.0,
        attn_dropout: float = 0.0,
        activation: Any = "elu",
        edge_update: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        f = self.feat_size = layer_size(_WHERE, "feat_size", feat_size, minimum=1)
        e = self.edge_feat_size = layer_size(_WHERE, "edge_feat_size", edge_feat_size, minimum=1)
        h = self.num_heads = layer_size(_WHERE, "num_heads", num_heads, minimum=1)
        self.num_virtual_nodes = layer_size(_WHERE, "num_virtual_nodes", num_virtual_nodes)
        if f % h:
            raise ValueError(f"{_WHERE}: feat_size={f} must be divisible by num_heads={h}")
        self.dot_dim = f // h
        self.dropout = probability(_WHERE, "dropout", dropout)
        self.attn_dropout = probability(_WHERE, "attn_dropout", attn_dropout)
        self.edge_update = bool(edge_update)
        gen = _rng(rng)
        act = get_activation(activation) or identity
        self.mha_ln_h = LayerNorm(f, dtype=dtype)
        self.mha_ln_e = LayerNorm(e, dtype=dtype)
        self.edge_input = Linear(e, h, dtype=dtype, rng=gen)
        self.qkv_proj = Linear(f, 3 * f, dtype=dtype, rng=gen)
        self.gate = Linear(e, h, dtype=dtype, rng=gen)
        self.node_output = Linear(f, f, dtype=dtype, rng=gen)
        self.node_ffn = _ffn(f, act, dtype, gen)
        self.edge_output = Linear(h, e, dtype=dtype, rng=gen) if edge_update else None
        self.edge_ffn = _ffn(e, act, dtype, gen) if edge_update else None

    def __call__(self, nfeat: Any, efeat: Any, mask: Any = None) -> Any:
        check_floats(_WHERE, "nfeat", nfeat, (None, None, self.feat_size))
        b, n = int(nfeat.shape[0]), int(nfeat.shape[1])
        check_floats(_WHERE, "efeat", efeat, (b, n, n, self.edge_feat_size))
        if mask is not None:
            check_floats(_WHERE, "mask", mask, (b, n, n))
        xp = get_namespace(nfeat, efeat, mask, self.qkv_proj.weight)
        dtype = np.result_type(nfeat.dtype, efeat.dtype, self.qkv_proj.weight.dtype)
        nfeat, efeat = nfeat.astype(dtype, copy=False), efeat.astype(dtype, copy=False)
        h, d = self.num_heads, self.dot_dim
        efeat_ln = self.mha_ln_e(efeat)
        qkv = self.qkv_proj(self.mha_ln_h(nfeat)).reshape(b, n, 3 * d, h).transpose(0, 3, 1, 2)
        q, k, v = qkv[..., :d], qkv[..., d : 2 * d], qkv[..., 2 * d :]  # [B, H, N, d]
        scores = bmm(q, xp.swapaxes(k, -1, -2))  # [B, H, L, M]
        xp.clip(scores, -5, 5, out=scores)
        scores += self.edge_input(efeat_ln).transpose(0, 3, 1, 2)
        gates = self.gate(efeat_ln).transpose(0, 3, 1, 2)
        if mask is None:
            attn = softmax(scores, -1)
        else:
            extra = mask.astype(dtype, copy=False)[:, None]
            gates = gates + extra
            attn = softmax(scores + extra, -1, inplace=True)
        gates = _sigmoid(gates)
        attn *= gates
        out = bmm(attn, v)  # [B, H, L, d]
        scale = xp.log1p(gates.sum(axis=-1, keepdims=True))  # [B, H, L, 1]
        scale[:, :, : self.num_virtual_nodes] = 1
        out *= scale
        out = out.transpose(0, 2, 3, 1).reshape(b, n, d * h)  # DGL's [.., d, H] layout
        hn = self.node_output(out) + nfeat
        hn = self.node_ffn(hn) + hn
        if not self.edge_update:
            return hn
        he = self.edge_output(scores.transpose(0, 2, 3, 1)) + efeat
        he = self.edge_ffn(he) + he
        return hn, he

    def extra_repr(self) -> str:
        return (
            f"{self.feat_size}, {self.edge_feat_size}, num_heads={self.num_heads}, "
            f"num_virtual_nodes={self.num_virtual_nodes}, edge_update={self.edge_update}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EGTLayer:
    """DGL's ``EGTLayer`` -> :class:`EGTLayer`, weights loaded."""
    from arraygnn.nn.weights import _activation, _load

    layer = EGTLayer(
        module.qkv_proj.in_features,
        module.edge_input.in_features,
        module.num_heads,
        module.num_virtual_nodes,
        module.mha_dropout_h.p,
        module.attn_dropout.p,
        _activation(module.node_ffn[2], "from_dgl: EGTLayer activation"),
        module.edge_update,
        dtype=dtype,
    )
    norms = [(layer.mha_ln_h, module.mha_ln_h), (layer.mha_ln_e, module.mha_ln_e)]
    norms.append((layer.node_ffn[0], module.node_ffn[0]))
    if module.edge_update:
        norms.append((layer.edge_ffn[0], module.edge_ffn[0]))
    for ours, theirs in norms:
        ours.eps = float(theirs.eps)
    return _load(layer, module, "dgl")
