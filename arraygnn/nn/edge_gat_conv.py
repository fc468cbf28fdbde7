"""DGL's ``EdgeGATConv`` (SCENE, Monninger et al. 2023): graph attention with edge
features in the scores and in the messages.

Per edge ``e = (j -> i)`` and head ``h``: ``m_e = W_n v_j + W_e e_ji`` and
``a_e = softmax_i(LeakyReLU(a_l . W_n v_j + a_r . W_n v_i + a_e . W_e e_ji))``;
``v'_i = sum_j a_e m_e`` (+ a bias-free residual projection of ``v_i``, + bias).

How it runs (no ``[E, H, F]`` array; DGL forms three):

1. ``W_n v`` ``[N, H, F]`` and the per-node scores ``el`` / ``er`` ``[N, H]``;
2. the edge scores ``e_ji @ M`` with ``M = sum_f W_e[h, f, :] a_e[h, f]`` ``[D, H]``;
3. ``u_add_v`` SDDMM + edge scores, leaky ReLU, edge softmax: ``[E, H]`` in the CSR's
   slot order (``arraygnn.ops.slot_order``);
4. node messages: one weighted SpMM over ``W_n v_j``; edge messages by linearity,
   ``sum_j a_e W_e e_ji = W_e (sum_j a_e e_ji)``: one weighted SpMM over the raw edge
   features (``[N_dst, H, D]``) then one small product with ``W_e``.

>>> import numpy as np
>>> conv = EdgeGATConv(4, 3, 2, num_heads=2, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> out, att = conv(np.ones((3, 4), np.float32), ei, np.ones((3, 3), np.float32),
...                 get_attention=True)
>>> out.shape, att.shape
((3, 2, 2), (3, 2, 1))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import GraphAttention, leaky_relu_
from arraygnn.nn._dgl_common import DGLModule, check_edge_feat
from arraygnn.nn._graph_input import (
    check_float_features,
    check_zero_in_degree,
    csr_of,
    parse_input,
)
from arraygnn.nn._module import _pair, is_size, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _rng, glorot, matmul

__all__ = ["EdgeGATConv"]


class EdgeGATConv(DGLModule, GraphAttention):
    r"""DGL's ``EdgeGATConv`` (inference), DGL's parameter names.

    .. math::
        v_i' = \Theta_s v_i + \sum_j \alpha_{ji} (\Theta_n v_j + \Theta_e e_{ji}),\quad
        \alpha_{ji} = \mathrm{softmax}_i\big(\mathrm{LeakyReLU}(a^\top
            [\Theta_n v_i \Vert \Theta_n v_j \Vert \Theta_e e_{ji}])\big)

    Args:
        in_feats: node feature size, or ``(src_size, dst_size)`` (separate projections
            ``fc_src`` / ``fc_dst``).
        edge_feats: edge feature size ``D``.
        out_feats: output size per head ``F``.
        num_heads: attention heads ``H``.
        feat_drop, attn_drop: probabilities in ``[0, 1]``, ignored (the identity at
            inference).
        negative_slope: leaky-ReLU slope (0.2).
        residual: add ``res_fc(v_i)``, a bias-free ``Linear(in_dst, H * F)`` (DGL's
            default ``True``).
        activation: applied last.
        allow_zero_in_degree: accept destination nodes without in-edges (their output is
            the residual plus the bias); default ``False`` raises, as DGL.
        bias: the output bias ``(H * F,)``.

    Call as ``conv(graph, feat, edge_feat, get_attention=False)`` with a homogeneous graph,
    a bipartite graph and a pair ``(feat_src, feat_dst)``, or a block (one feature array:
    the destination rows are its first rows); or ``conv(x, edge_index, edge_feat)`` /
    ``conv((x_src, x_dst), edge_index, edge_feat)``. Features are 2-D (DGL's extra middle
    dimensions are not taken).

    Shapes:
        - input: ``(N_src, in_src)``, ``(N_dst, in_dst)``; ``edge_feat`` ``(E, D)``
        - output: ``(N_dst, H, F)``; with ``get_attention=True`` also ``(E, H, 1)``
        - edge memory: ``(E, H)`` floats plus the slot-ordered edge features ``(E, D)``

    Names (DGL's): ``fc.weight`` ``(H*F, in)`` (or ``fc_src.weight`` / ``fc_dst.weight``),
    ``attn_l`` / ``attn_r`` / ``attn_edge`` ``(1, H, F)``, ``fc_edge.weight`` ``(H*F, D)``,
    ``bias`` ``(H*F,)``, ``res_fc.weight`` ``(H*F, in_dst)``.
    """

    _param_names = ("attn_l", "attn_r", "attn_edge", "bias")
    _child_names = ("fc", "fc_src", "fc_dst", "fc_edge", "res_fc")

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        edge_feats: int,
        out_feats: int,
        num_heads: int,
        feat_drop: float = 0.0,
        attn_drop: float = 0.0,
        negative_slope: float = 0.2,
        residual: bool = True,
        activation: Any = None,
        allow_zero_in_degree: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "EdgeGATConv"
        if not isinstance(residual, (bool, np.bool_)):
            raise TypeError(f"{name}: residual must be True or False, got {residual!r}")
        self._setup(
            num_heads, out_feats, None, negative_slope, False, None, "mean", bool(residual),
            activation, allow_zero_in_degree,
        )  # fmt: skip
        self.num_heads = self.heads
        self.edge_feats = layer_size(name, "edge_feats", edge_feats)
        self.feat_drop = probability(name, "feat_drop", feat_drop)
        self.attn_drop = probability(name, "attn_drop", attn_drop)
        gen = _rng(rng)
        hf = self.heads * self.out_feats
        self.fc = self.fc_src = self.fc_dst = None
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size(name, "in_feats", in_feats)
            self.fc = Linear(self.in_src, hf, False, dtype=dtype, rng=gen)
        else:
            self.in_src, self.in_dst = _pair(name, in_feats)
            self.fc_src = Linear(self.in_src, hf, False, dtype=dtype, rng=gen)
            self.fc_dst = Linear(self.in_dst, hf, False, dtype=dtype, rng=gen)
        self.attn_l = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.attn_r = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.fc_edge = Linear(self.edge_feats, hf, False, dtype=dtype, rng=gen)
        self.attn_edge = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.res_fc = Linear(self.in_dst, hf, False, dtype=dtype, rng=gen) if residual else None
        self.bias = np.zeros(hf, dtype=dtype) if bias else None

    @property
    def res(self) -> Linear | None:
        """The residual projection (DGL's ``res_fc``), as the attention base reads it."""
        return self.res_fc

    def set_allow_zero_in_degree(self, set_value: bool) -> None:
        """DGL's setter of ``allow_zero_in_degree``."""
        self.allow_zero_in_degree = bool(set_value)

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_feat: Any = None,
        get_attention: bool = False,
    ) -> Any:
        """``(N_dst, H, F)`` outputs; with ``get_attention=True`` also the attention
        ``(E, H, 1)`` in edge order."""
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            slots_as_sources,
            spmm_slots,
            to_slot_order,
        )

        name = "EdgeGATConv"
        inp = parse_input(name, graph_or_x, feat_or_edge_index)
        x_dst, block_feat = self._destination_input(inp, feat_or_edge_index)
        if x_dst is None:
            raise ValueError(f"{name}: destination features are needed (attn_r reads them)")
        like = self.attn_l
        _check_features(inp.x_src, self.in_src, f"{name} source features", like)
        _check_features(x_dst, self.in_dst, f"{name} destination features", like)
        for what, value in (("source", inp.x_src), ("destination", x_dst)):
            if value.ndim != 2:
                raise ValueError(
                    f"{name}: {what} features must be 2-D (N, in_feats); DGL's extra "
                    f"middle dimensions are not taken, got shape {tuple(value.shape)}"
                )
        check_float_features(name, inp.x_src, x_dst)  # DGL's Linears refuse integers
        edge_feat = check_edge_feat(
            name, "edge_feat", edge_feat, inp.num_edges, self.edge_feats, inp.x_src
        )
        csr = csr_of(inp)
        if not self.allow_zero_in_degree:
            check_zero_in_degree(name, csr.in_degrees())
        xp = get_namespace(inp.x_src)
        H, F, D = self.heads, self.out_feats, self.edge_feats
        if self.fc is not None:
            h_src = self.fc(inp.x_src).reshape(inp.num_src, H, F)
            if x_dst is inp.x_src:
                h_dst = h_src
            elif block_feat:
                h_dst = h_src[: inp.num_dst]
            else:
                h_dst = self.fc(x_dst).reshape(inp.num_dst, H, F)
        else:
            h_src = self.fc_src(inp.x_src).reshape(inp.num_src, H, F)
            h_dst = self.fc_dst(x_dst).reshape(inp.num_dst, H, F)
        el = xp.einsum("nhf,hf->nh", h_src, self.attn_l[0])
        er = xp.einsum("nhf,hf->nh", h_dst, self.attn_r[0])
        w_edge = self.fc_edge.weight.reshape(H, F, D)
        m = xp.einsum("hfd,hf->dh", w_edge, self.attn_edge[0])  # [D, H]
        edge_feat = edge_feat.astype(m.dtype, copy=False)
        logits = sddmm_slots(csr, el, er, op="add", lhs_target="u", rhs_target="v")
        ee = to_slot_order(csr, matmul(edge_feat, m))  # [E, H]
        logits += ee.astype(logits.dtype, copy=False)
        alpha = edge_softmax_slots(csr, leaky_relu_(logits, self.negative_slope))  # [E, H]
        out = spmm_slots(csr, h_src, alpha)  # [N_dst, H, F]
        # edge messages: W_e (sum_j a_e e_ji), the raw edge features aggregated per head
        feat_slots = to_slot_order(csr, edge_feat)[:, None, :]  # [E, 1, D]
        agg = spmm_slots(slots_as_sources(csr), feat_slots, alpha)  # [N_dst, H, D]
        out += xp.einsum("nhd,hfd->nhf", agg, w_edge).astype(out.dtype, copy=False)
        edges = (inp.src, inp.dst)
        return self._finish(out, inp, x_dst, csr, alpha, edges, False, get_attention)

    def extra_repr(self) -> str:
        res = ", residual=True" if self.res_fc is not None else ""
        return (
            f"({self.in_src}, {self.in_dst}), {self.edge_feats}, {self.out_feats}, "
            f"num_heads={self.heads}{res}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EdgeGATConv:
    """DGL's ``EdgeGATConv`` -> :class:`EdgeGATConv` with its weights and settings."""
    from arraygnn.nn.weights import _activation, _load

    pair = hasattr(module, "fc_src")
    src, dst = module._in_src_feats, module._in_dst_feats
    layer = EdgeGATConv(
        (src, dst) if pair else src,
        module.fc_edge.in_features,
        module._out_feats,
        module._num_heads,
        feat_drop=float(module.feat_drop.p),
        attn_drop=float(module.attn_drop.p),
        negative_slope=float(module.leaky_relu.negative_slope),
        residual=module.res_fc is not None,
        activation=_activation(module.activation, "from_dgl: EdgeGATConv"),
        allow_zero_in_degree=bool(module._allow_zero_in_degree),
        bias=module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "dgl")
