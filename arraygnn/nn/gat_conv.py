"""Graph attention (Veličković et al.): ``GATConv``, computed the memory-light way.

Never builds an ``[E, heads, F]`` array:

1. ``h = x W`` reshaped to ``[N, H, F]``;
2. per-node scores ``el = (h_src * att_src).sum(-1)`` and ``er = (h_dst * att_dst).sum(-1)``
   (``[N, H]``);
3. ``e = sddmm(u_add_v)(el, er)`` (plus, with ``edge_dim``, the edge scores
   ``edge_attr @ M``, ``M = (W_edge * att_edge).sum(F)`` of shape ``[D, H]``, so the
   projected ``[E, H, F]`` edge features are never formed) then leaky-ReLU (``[E, H]``);
4. ``a = edge_softmax(e)`` over each destination's incoming edges (``[E, H]``);
5. ``out = spmm(a, h_src)`` (``[N_dst, H, F]``), heads concatenated, averaged or kept.

Steps 3-5 keep their ``[E, H]`` arrays in the CSR's slot order (``arraygnn.ops.slot_order``),
so each is read and written in order: the same values, about twice as fast on a 1M-node
graph as going through edge order.

Peak edge memory is ``O(E * H)``, the same as DGL's ``GATConv``; PyG's gathers ``[E, H, F]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.nn._attention import GraphAttention, check_call_keywords, leaky_relu_
from arraygnn.nn._graph_input import (
    check_edge_weight,
    parse_input,
)
from arraygnn.nn._module import _pair, is_size, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, glorot, matmul

__all__ = ["GATConv"]


def _same_array(a: Any, b: Any) -> bool:
    """Whether two loaded weights hold the same values (shape included): how a state dict
    shows one module saved under two names (PyG's shared ``lin_src`` / ``lin_dst``, GATv2's
    ``share_weights``)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    if get_namespace(a) is not get_namespace(b):
        a, b = to_numpy(a), to_numpy(b)
    return bool(get_namespace(a).array_equal(a, b))


class GATConv(GraphAttention):
    r"""Multi-head graph attention layer (PyG and DGL semantics).

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j
            \big(\mathrm{LeakyReLU}(a_s^\top W h_j + a_d^\top W h_i)\big),
        \quad h_i' = \Vert_{k=1}^{H} \sum_j \alpha_{ij}^k W^k h_j + b

    Args:
        in_feats: input size, or ``(src_size, dst_size)`` for separate source/destination
            projections (``lin_src`` / ``lin_dst``).
        out_feats: output size per head.
        heads: number of attention heads.
        concat: ``True`` -> ``[N, H * F]`` (PyG default); ``False`` -> mean over heads
            ``[N, F]``; ``None`` -> ``[N, H, F]`` (DGL's output layout).
        negative_slope: leaky-ReLU slope (0.2).
        add_self_loops: drop existing self-loops and add one per node (PyG; default ``True``).
            For bipartite inputs loops go to the first ``min(N_src, N_dst)`` nodes, as PyG.
        bias: additive bias (size ``H * F`` unless ``concat=False``).
        edge_dim: size of the edge features ``edge_attr`` that join the attention scores
            (PyG's ``edge_dim``: ``lin_edge`` ``(H*F, edge_dim)`` and ``att_edge``); ``None``:
            no edge features.
        fill_value: the added self-loops' edge features when ``edge_dim`` is set (PyG's
            rule): ``'mean'`` (default), ``'add'`` / ``'sum'``, ``'max'``, ``'min'``,
            ``'mul'`` of the node's incoming edges' features (0 for a node with none), a
            number, or an array of ``edge_dim`` values.
        residual: ``True`` adds a bias-free projection of the destination input features
            to the output (PyG's ``res``, ``(H*F or F, in_dst)``; DGL's ``res_fc`` Linear
            loads into it, its bias into ``bias``); ``'identity'`` adds the input itself
            (DGL's residual when ``in_dst == heads * out_feats``).
        activation: applied last (DGL's ``activation``).
        allow_zero_in_degree: accept destination nodes without incoming edges (output = bias);
            default ``False`` raises, the seed's check.
        dropout, feat_drop, attn_drop: PyG's / DGL's dropouts, keyword-only (PyG's
            positional order differs from this signature's): probabilities in ``[0, 1]``,
            kept and never applied (inference).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)``, ``conv(graph, feat)``,
    ``conv(graph, (feat_src, feat_dst))`` or ``conv(block, feat)``; with ``edge_dim``, pass
    ``edge_attr`` (``(E, edge_dim)``, or ``(E,)`` when ``edge_dim=1``) third, as in PyG.
    Keywords: ``edge_weight`` (DGL's, scales the attention), ``return_attention_weights``
    (PyG's ``(out, (edge_index, alpha))``) and ``get_attention`` (DGL's ``(out, alpha)``).

    Shapes:
        - input: ``(N_src, in_src)`` and ``(N_dst, in_dst)`` (pair form)
        - output: ``(N_dst, heads * out_feats)`` (concat), ``(N_dst, out_feats)`` (mean)
          or ``(N_dst, heads, out_feats)`` (``concat=None``)
        - edge memory: ``(E, heads)`` floats, never ``(E, heads, out_feats)``

    Parameter names (PyG): ``lin.weight`` ``(H*F, in)`` (or ``lin_src.weight`` /
    ``lin_dst.weight``), ``att_src`` / ``att_dst`` ``(1, H, F)``, ``bias``; with ``edge_dim``
    ``lin_edge.weight`` ``(H*F, edge_dim)`` and ``att_edge`` ``(1, H, F)``; with ``residual``
    ``res.weight``. DGL's ``fc.weight`` (``fc_src`` / ``fc_dst``), ``attn_l`` / ``attn_r``,
    ``bias`` and ``res_fc.*`` load too.

    >>> import numpy as np
    >>> conv = GATConv(4, 2, heads=3, edge_dim=5, residual=True, rng=0)
    >>> ei = np.array([[0, 1, 2], [1, 2, 0]])
    >>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 5), np.float32)).shape
    (3, 6)
    """

    _param_names = ("att_src", "att_dst", "att_edge", "bias")
    _child_names = ("lin", "lin_src", "lin_dst", "lin_edge", "res")
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
        residual: bool | str = False,
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
        hf = self.heads * self.out_feats
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size("GATConv", "in_feats", in_feats)
            self.lin = Linear(in_feats, hf, False, dtype=dtype, rng=gen)
            self.lin_src = self.lin_dst = None
        else:
            self.in_src, self.in_dst = _pair("GATConv", in_feats)
            self.lin = None
            self.lin_src = Linear(self.in_src, hf, False, dtype=dtype, rng=gen)
            self.lin_dst = Linear(self.in_dst, hf, False, dtype=dtype, rng=gen)
        self.att_src = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.att_dst = glorot((1, self.heads, self.out_feats), gen, dtype)
        self.lin_edge = self.att_edge = None
        if self.edge_dim is not None:
            self.lin_edge = Linear(self.edge_dim, hf, False, dtype=dtype, rng=gen)
            self.att_edge = glorot((1, self.heads, self.out_feats), gen, dtype)
        self._setup_output(self.in_dst, bias, gen, dtype)

    _edge_attr_hint = "; DGL's per-edge weights go in as edge_weight=..."

    def _edge_scores(self, edge_attr: Any) -> Any:
        """``[E, H]`` edge attention terms ``sum_f (edge_attr W_edge^T)[e, h, f] att_edge[h, f]``
        as ``edge_attr @ M`` with ``M`` ``[D, H]``: no ``[E, H, F]`` array."""
        xp = get_namespace(edge_attr)
        H, F = self.heads, self.out_feats
        w = self.lin_edge.weight.reshape(H, F, self.edge_dim)
        m = xp.einsum("hfd,hf->dh", w, self.att_edge[0])
        return matmul(edge_attr.astype(m.dtype, copy=False), m)

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_attr: Any = None,
        size: Any = None,
        *,
        edge_weight: Any = None,
        return_attention_weights: bool = False,
        get_attention: bool = False,
    ) -> Any:
        """The layer's output; see the class docstring for the calling forms.

        ``edge_weight`` (DGL's, ``(E,)``) scales each edge's attention after the softmax
        (needs ``add_self_loops=False``: the added loops would have no weight).
        ``return_attention_weights=True`` returns ``(out, (edge_index, alpha))`` as PyG:
        the ``(2, E')`` edges attended over (self-loops replaced when the layer adds them)
        and their ``(E', heads)`` attention in that order. ``get_attention=True`` returns
        ``(out, alpha)`` with ``alpha`` ``(E', heads, 1)`` as DGL.
        """
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            spmm_slots,
            to_slot_order,
        )

        check_call_keywords("GATConv", edge_attr, return_attention_weights and get_attention)
        inp = parse_input("GATConv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "GATConv source features")
        xp = get_namespace(inp.x_src)
        edge_attr = self._check_edge_attr(edge_attr, inp.num_edges, inp.x_src)
        self._check_edge_weight(edge_weight, inp.num_edges, inp.x_src)
        x_dst_in, block_feat = self._destination_input(inp, feat_or_edge_index)
        H, F = self.heads, self.out_feats
        if self.lin is not None:
            h_src = self.lin(inp.x_src).reshape(inp.num_src, H, F)
            if inp.x_dst is inp.x_src:
                h_dst = h_src
            elif block_feat:
                h_dst = h_src[: inp.num_dst]
            elif inp.x_dst is not None:
                _check_features(inp.x_dst, self.in_dst, "GATConv destination features")
                h_dst = self.lin(inp.x_dst).reshape(inp.num_dst, H, F)
            else:
                h_dst = None
        else:
            h_src = self.lin_src(inp.x_src).reshape(inp.num_src, H, F)
            if inp.x_dst is None:
                h_dst = None
            else:
                _check_features(inp.x_dst, self.in_dst, "GATConv destination features")
                h_dst = self.lin_dst(inp.x_dst).reshape(inp.num_dst, H, F)
        el = xp.einsum("nhf,hf->nh", h_src, self.att_src[0])  # [N_src, H], no [N, H, F] temp
        edge_index, edge_attr, csr = self._attention_graph(inp, edge_attr)
        # logits, softmax and weights stay in the CSR's slot order (ops.slot_order): every
        # [E, H] array is read and written in order; the same values as in edge order
        if h_dst is not None:
            er = xp.einsum("nhf,hf->nh", h_dst, self.att_dst[0])  # [N_dst, H]
            logits = sddmm_slots(csr, el, er, op="add", lhs_target="u", rhs_target="v")
        else:
            logits = sddmm_slots(csr, el, el, op="copy_lhs", lhs_target="u", rhs_target="v")
        if edge_attr is not None:
            scores = to_slot_order(csr, self._edge_scores(edge_attr))  # [E, H]
            logits += scores.astype(logits.dtype, copy=False)
        logits = leaky_relu_(logits, self.negative_slope)
        alpha = edge_softmax_slots(csr, logits)  # [E, H]
        if edge_weight is not None:  # DGL: attention times the edge's weight
            weight = to_slot_order(csr, edge_weight)
            alpha *= weight.astype(alpha.dtype, copy=False)[:, None]
        out = spmm_slots(csr, h_src, alpha)  # [N_dst, H, F]
        return self._finish(
            out, inp, x_dst_in, csr, alpha, edge_index, return_attention_weights, get_attention
        )

    def _check_edge_weight(self, edge_weight: Any, num_edges: int, like: Any) -> None:
        """DGL's ``edge_weight``: ``(E,)`` floats on the features' device, and no added
        self-loops (they would have no weight)."""
        if edge_weight is None:
            return
        check_edge_weight("GATConv", edge_weight, num_edges)
        if get_namespace(edge_weight) is not get_namespace(like):
            raise TypeError("GATConv: edge_weight must be on the same device as the features")
        if self.add_self_loops:
            raise ValueError(
                "GATConv: edge_weight (DGL's) needs add_self_loops=False: the self-loops the "
                "layer adds would have no weight; add them to the graph with their weights"
            )

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        # PyG < 2.5 named the shared projection lin_src (and lin_dst, the same module, so
        # the same values). Separate lin_src / lin_dst weights (PyG's tuple in_channels, even
        # with equal sizes) never go into the one shared lin: refuse instead of loading
        # half of them silently.
        if self.lin is not None and "lin.weight" not in values and "lin_src.weight" in values:
            src, dst = values["lin_src.weight"], values.get("lin_dst.weight")
            if dst is not None and not _same_array(src, dst):
                raise ValueError(
                    "GATConv.load_state_dict: the weights have separate 'lin_src.weight' "
                    f"{tuple(src.shape)} and 'lin_dst.weight' {tuple(dst.shape)} (PyG's GATConv "
                    "with in_channels=(in_src, in_dst), DGL's fc_src / fc_dst), but this layer "
                    f"shares one 'lin' (in_feats={self.in_src}); build it with "
                    f"in_feats=({src.shape[-1]}, {dst.shape[-1]}) to load them"
                )
            values = dict(values)
            values["lin.weight"] = values.pop("lin_src.weight")
            values.pop("lin_dst.weight", None)
        return values

    _DGL = {
        "fc.weight": "lin.weight",
        "fc_src.weight": "lin_src.weight",
        "fc_dst.weight": "lin_dst.weight",
        "attn_l": "att_src",
        "attn_r": "att_dst",
        "bias": "bias",
        "res_fc.weight": "res.weight",
        "res_fc.bias": "bias",  # DGL's Linear residual carries the layer's bias
    }

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        # DGL's fc_src / fc_dst (tuple in_feats) get the same check as PyG's lin_src / lin_dst
        return self._pyg_aliases({self._DGL.get(k, k): v for k, v in values.items()})

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        back = {v: k for k, v in self._DGL.items() if k != "res_fc.bias"}
        if self.res is not None:
            back["bias"] = "res_fc.bias"
        return {back[k]: v for k, v in values.items()}

    def extra_repr(self) -> str:
        return self._attention_repr()
