"""DGL's ``GraphormerLayer``: :class:`~arraygnn.nn.BiasedMHA` and a feed-forward network,
each with a residual connection and a layer norm (after, or before with ``norm_first``).

How it runs: the dense attention of :class:`~arraygnn.nn.BiasedMHA` over ``[B, N, F]``
and two linear layers; dropout is the identity (inference).

>>> import numpy as np
>>> layer = GraphormerLayer(8, 16, 2, rng=0)
>>> layer(np.ones((3, 5, 8), np.float32), np.zeros((3, 5, 5, 2), np.float32)).shape
(3, 5, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._gt_input import identity
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.biased_mha import BiasedMHA, check_pair_inputs
from arraygnn.nn.linear import LayerNorm, Linear, Sequential, _rng, get_activation

__all__ = ["GraphormerLayer", "from_dgl_module"]

_WHERE = "GraphormerLayer"


class GraphormerLayer(DGLModule):
    """DGL's ``GraphormerLayer(feat_size, hidden_size, num_heads, attn_bias_type='add',
    norm_first=False, dropout=0.1, attn_dropout=0.1, activation=relu)``:
    ``layer(nfeat, attn_bias=None, attn_mask=None)`` as :class:`~arraygnn.nn.BiasedMHA`.

    Shapes:
        - output: ``(B, N, feat_size)``

    Names (DGL): ``attn.*`` (BiasedMHA), ``ffn.0.*``, ``ffn.3.*``, ``attn_layer_norm.*``,
    ``ffn_layer_norm.*``.
    """

    _child_names = ("attn", "ffn", "attn_layer_norm", "ffn_layer_norm")

    def __init__(
        self,
        feat_size: int,
        hidden_size: int,
        num_heads: int,
        attn_bias_type: str = "add",
        norm_first: bool = False,
        dropout: float = 0.1,
        attn_dropout: float = 0.1,
        activation: Any = "relu",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        f = layer_size(_WHERE, "feat_size", feat_size, minimum=1)
        hid = layer_size(_WHERE, "hidden_size", hidden_size, minimum=1)
        gen = _rng(rng)
        self.norm_first = bool(norm_first)
        self.dropout = probability(_WHERE, "dropout", dropout)
        attn_dropout = probability(_WHERE, "attn_dropout", attn_dropout)
        self.attn = BiasedMHA(
            f, num_heads, True, attn_bias_type, attn_dropout, dtype=dtype, rng=gen
        )
        act = get_activation(activation) or identity
        self.ffn = Sequential(
            Linear(f, hid, dtype=dtype, rng=gen),
            act,
            identity,
            Linear(hid, f, dtype=dtype, rng=gen),
            identity,
        )
        self.attn_layer_norm = LayerNorm(f, dtype=dtype)
        self.ffn_layer_norm = LayerNorm(f, dtype=dtype)

    def __call__(self, nfeat: Any, attn_bias: Any = None, attn_mask: Any = None) -> Any:
        check_pair_inputs(
            _WHERE, nfeat, attn_bias, attn_mask, self.attn.feat_size, self.attn.num_heads
        )
        residual = nfeat
        h = self.attn_layer_norm(nfeat) if self.norm_first else nfeat
        h = residual + self.attn(h, attn_bias, attn_mask)
        if not self.norm_first:
            h = self.attn_layer_norm(h)
        residual = h
        if self.norm_first:
            h = self.ffn_layer_norm(h)
        h = residual + self.ffn(h)
        return h if self.norm_first else self.ffn_layer_norm(h)

    def extra_repr(self) -> str:
        return (
            f"{self.attn.feat_size}, num_heads={self.attn.num_heads}, norm_first={self.norm_first}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> GraphormerLayer:
    """DGL's ``GraphormerLayer`` -> :class:`GraphormerLayer`, weights loaded."""
    from arraygnn.nn.weights import _activation, _load

    lin1 = module.ffn[0]
    layer = GraphormerLayer(
        lin1.in_features,
        lin1.out_features,
        module.attn.num_heads,
        module.attn.attn_bias_type,
        module.norm_first,
        module.dropout.p,
        module.attn.dropout.p,
        _activation(module.ffn[1], "from_dgl: GraphormerLayer activation"),
        dtype=dtype,
    )
    for ours, theirs in (
        (layer.attn_layer_norm, module.attn_layer_norm),
        (layer.ffn_layer_norm, module.ffn_layer_norm),
    ):
        ours.eps = float(theirs.eps)
    return _load(layer, module, "dgl")
