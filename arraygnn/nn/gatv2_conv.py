"""GATv2 (Brody et al., "How Attentive are Graph Attention Networks?"): ``GATv2Conv``.

GATv2 applies the attention vector after the non-linearity,
``e_ij = a^T LeakyReLU(W_s x_j + W_t x_i [+ W_e e_ij])``, so unlike GAT the score does not
split into per-node terms: each edge needs its own ``[H, F]`` sum before the LeakyReLU.
PyG and DGL build that ``[E, H, F]`` array whole (and PyG also the projected edge
features). Here one fused kernel (``arraygnn.ops.slot_order.gatv2_scores_slots``) walks the
CSR's slots and writes each edge's ``[H]`` scores straight away, edge term included, so
peak edge memory stays ``O(E * H)`` as in ``GATConv``; the softmax and the weighted
aggregation are the same slot-order steps as ``GATConv``'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._attention import GraphAttention, check_call_keywords
from arraygnn.nn._graph_input import parse_input
from arraygnn.nn._module import _pair, is_size, layer_size
from arraygnn.nn.gat_conv import _same_array
from arraygnn.nn.linear import Linear, _check_features, _rng, glorot

__all__ = ["GATv2Conv"]


class GATv2Conv(GraphAttention):
    r"""GATv2 multi-head attention layer (PyG and DGL semantics).

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j\big(a^\top \mathrm{LeakyReLU}
            (W_s h_j + W_t h_i [+ W_e e_{ij}])\big), \quad
        h_i' = \Vert_{k=1}^{H} \sum_j \alpha_{ij}^k W_s^k h_j + b

    Args:
        in_feats: input size, or ``(src_size, dst_size)``.
        out_feats: output size per head.
        heads: number of attention heads.
        concat: ``True`` -> ``[N, H * F]`` (PyG default); ``False`` -> mean over heads
            ``[N, F]``; ``None`` -> ``[N, H, F]`` (DGL's output layout).
        negative_slope: leaky-ReLU slope (0.2).
        add_self_loops: drop existing self-loops and add one per node (PyG; default
            ``True``); bipartite inputs get loops on the first ``min(N_src, N_dst)`` nodes.
        bias: PyG's ``bias``: the projections ``lin_l`` / ``lin_r`` get biases and the
            output gets ``bias`` (size ``H * F``, or ``F`` with ``concat=False``).
        edge_dim: size of the edge features ``edge_attr`` added inside the LeakyReLU
            (``lin_edge`` ``(H*F, edge_dim)``); ``None``: no edge features.
        fill_value: the added self-loops' edge features (PyG's rule, as ``GATConv``).
        share_weights: one projection for sources and targets (``lin_r`` is ``lin_l``).
        residual: ``True`` adds a bias-free projection of the destination input (PyG's
            ``res``; DGL's ``res_fc`` Linear loads into it, its bias into ``bias``);
            ``'identity'`` adds the input itself (DGL, when ``in_dst == heads * out_feats``).
        lin_bias: biases on ``lin_l`` / ``lin_r`` (default: ``bias``); DGL's
            ``GATv2Conv(bias=True)`` has them but no output bias.
        activation: applied last (DGL's ``activation``).
        allow_zero_in_degree: accept destination nodes without incoming edges (output = bias);
            default ``False`` raises, DGL's check.
        dropout, feat_drop, attn_drop: PyG's / DGL's dropouts, keyword-only (PyG's
            positional order differs from this signature's): probabilities in ``[0, 1]``,
            kept and never applied (inference).

    Called as ``GATConv`` is (``conv(x, edge_index[, edge_attr])``, pairs, graphs, blocks,
    a cached CSR), with ``return_attention_weights`` (PyG's ``(out, (edge_index, alpha))``)
    and ``get_attention`` (DGL's ``(out, alpha)``, ``alpha`` ``(E', heads, 1)``).

    Parameter names (PyG): ``lin_l.weight`` / ``.bias``, ``lin_r.weight`` / ``.bias``, ``att``
    ``(1, H, F)``, ``bias``, ``lin_edge.weight``, ``res.weight``. DGL's ``fc_src.*`` /
    ``fc_dst.*``, ``attn`` and ``res_fc.*`` load too.

    >>> import numpy as np
    >>> conv = GATv2Conv(4, 2, heads=3, edge_dim=5, rng=0)
    >>> ei = np.array([[0, 1, 2], [1, 2, 0]])
    >>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 5), np.float32)).shape
    (3, 6)
    """

    _param_names = ("att", "bias")
    _child_names = ("lin_l", "lin_r", "lin_edge", "res")
    _dgl_supported = True

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        out_feats: int,
        heads: int = 1,
        concat: bool | None = True,
        negative_slope: float = 0.2,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        edge_dim: int | None = None,
        fill_value: Any = "mean",
        share_weights: bool = False,
        residual: bool | str = False,
        lin_bias: bool | None = None,
        activation: Any = None,
        allow_zero_in_degree: bool = False,
        dropout: float = 0.0,
        feat_drop: float = 0.0,
        attn_drop: float = 0.0,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self._set_dropouts(dropout, feat_drop, attn_drop)
        self._setup(
            heads, out_feats, concat, negative_slope, add_self_loops, edge_dim, fill_value,
            residual, activation, allow_zero_in_degree,
        )  # fmt: skip
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size("GATv2Conv", "in_feats", in_feats)
        else:
            self.in_src, self.in_dst = _pair("GATv2Conv", in_feats)
        self.share_weights = bool(share_weights)
        if self.share_weights and self.in_src != self.in_dst:
            raise ValueError(
                f"GATv2Conv: share_weights=True needs one input size for sources and "
                f"targets, got {(self.in_src, self.in_dst)}"
            )
        hf = self.heads * self.out_feats
        with_bias = bool(bias) if lin_bias is None else bool(lin_bias)
        self.lin_l = Linear(self.in_src, hf, with_bias, dtype=dtype, rng=gen)
        self.lin_r = (
            self.lin_l
            if self.share_weights
            else Linear(self.in_dst, hf, with_bias, dtype=dtype, rng=gen)
        )
        self.att = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.lin_edge = None
        if self.edge_dim is not None:
            self.lin_edge = Linear(self.edge_dim, hf, False, dtype=dtype, rng=gen)
        self._setup_output(self.in_dst, bias, gen, dtype)

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_attr: Any = None,
        size: Any = None,
        *,
        return_attention_weights: bool = False,
        get_attention: bool = False,
    ) -> Any:
        """The layer's output (with the attention when asked for: see ``GATConv``)."""
        from arraygnn.ops.slot_order import edge_softmax_slots, spmm_slots

        check_call_keywords("GATv2Conv", edge_attr, return_attention_weights and get_attention)
        inp = parse_input("GATv2Conv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "GATv2Conv source features")
        edge_attr = self._check_edge_attr(edge_attr, inp.num_edges, inp.x_src)
        x_dst_in, block_feat = self._destination_input(inp, feat_or_edge_index)
        if x_dst_in is None:
            raise ValueError(
                "GATv2Conv needs destination features (its scores use them); got (x_src, None)"
            )
        if x_dst_in is not inp.x_src:
            _check_features(x_dst_in, self.in_dst, "GATv2Conv destination features")
        H, F = self.heads, self.out_feats
        h_l = self.lin_l(inp.x_src).reshape(inp.num_src, H, F)
        if self.share_weights and (x_dst_in is inp.x_src or block_feat):
            h_r = h_l[: inp.num_dst]  # the same projection of the same rows
        else:
            h_r = self.lin_r(x_dst_in).reshape(inp.num_dst, H, F)
        edge_index, edge_attr, csr = self._attention_graph(inp, edge_attr)
        logits = self._scores(csr, h_l, h_r, edge_attr)  # [E, H], slot order
        alpha = edge_softmax_slots(csr, logits)
        out = spmm_slots(csr, h_l, alpha)  # [N_dst, H, F]
        return self._finish(
            out, inp, x_dst_in, csr, alpha, edge_index, return_attention_weights, get_attention
        )

    def _scores(self, csr: Any, h_l: Any, h_r: Any, edge_attr: Any) -> Any:
        """``[E, H]`` scores in slot order, one fused kernel (no ``[E, H, F]`` array)."""
        from arraygnn.ops.slot_order import gatv2_scores_slots

        w_edge = None
        if edge_attr is not None:  # lin_edge.weight (H*F, D) -> (D, H, F)
            w_edge = self.lin_edge.weight.T.reshape(self.edge_dim, self.heads, self.out_feats)
        return gatv2_scores_slots(
            csr, h_l, h_r, self.att[0], self.negative_slope, edge_attr, w_edge
        )

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        # share_weights: a PyG state dict may carry lin_l only when saved by hand
        if self.share_weights and not any(k.startswith("lin_r.") for k in values):
            values = dict(values)
            for key in [k for k in values if k.startswith("lin_l.")]:
                values["lin_r." + key[len("lin_l.") :]] = values[key]
        elif self.share_weights:  # lin_r is lin_l here: two different weights cannot both load
            for key in [k for k in values if k.startswith("lin_l.")]:
                other = values.get("lin_r." + key[len("lin_l.") :])
                if other is not None and not _same_array(values[key], other):
                    raise ValueError(
                        f"GATv2Conv.load_state_dict: {key!r} and 'lin_r.{key[6:]}' differ "
                        "(weights saved with share_weights=False), but this layer has "
                        "share_weights=True (lin_r is lin_l); build it with "
                        "share_weights=False to load them"
                    )
        return values

    _DGL = {
        "fc_src.weight": "lin_l.weight",
        "fc_src.bias": "lin_l.bias",
        "fc_dst.weight": "lin_r.weight",
        "fc_dst.bias": "lin_r.bias",
        "attn": "att",
        "res_fc.weight": "res.weight",
        "res_fc.bias": "bias",  # DGL's Linear residual carries the layer's only output bias
    }

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return self._pyg_aliases({self._DGL.get(k, k): v for k, v in values.items()})

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        if self.lin_edge is not None or (self.bias is not None and self.res is None):
            raise ValueError(
                "GATv2Conv: DGL's GATv2Conv has no edge features and no output bias outside "
                "its residual Linear; this layer's weights have no DGL names"
            )
        back = {v: k for k, v in self._DGL.items()}
        return {back[k]: v for k, v in values.items()}

    def extra_repr(self) -> str:
        extra = ", share_weights=True" if self.share_weights else ""
        return self._attention_repr() + extra
