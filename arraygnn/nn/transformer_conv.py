"""Graph transformer attention (Shi et al., UniMP): PyG's ``TransformerConv``, memory-light.

``alpha_ij = softmax_j(q_i . (k_j + W_e e_ij) / sqrt(C))`` and
``h_i' = sum_j alpha_ij (v_j + W_e e_ij)`` (+ a skip projection of ``x_i``, optionally gated
by ``beta``). PyG projects every edge to ``[E, H, C]`` and gathers ``q`` / ``k`` / ``v`` rows
per edge. Here nothing ``[E, H, C]`` is formed:

- ``q_i . k_j``: one SDDMM ``dot`` over the CSR's slots;
- ``q_i . W_e e_ij = (W_e^T q_i) . e_ij``: ``W_e^T q`` per node (``[N, H, D]``), then one SDDMM
  ``dot`` with the raw ``[E, D]`` edge features;
- ``sum_j alpha_ij v_j``: one SpMM with ``[E, H]`` weights;
- ``sum_j alpha_ij W_e e_ij = W_e (sum_j alpha_ij e_ij)``: one SpMM of the raw edge features
  (``[N, H, D]``), then the projection per node.

Edge memory is ``O(E * H)`` (plus the ``[E, D]`` features put in slot order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import GraphAttention, check_call_keywords
from arraygnn.nn._graph_input import csr_of, parse_input
from arraygnn.nn._module import _pair, is_size, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, matmul

__all__ = ["TransformerConv"]


class TransformerConv(GraphAttention):
    r"""Multi-head graph transformer layer (PyG's ``TransformerConv``).

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j\Big(\frac{(W_q x_i)^\top (W_k x_j + W_e e_{ij})}
            {\sqrt{C}}\Big), \quad
        h_i' = W_s x_i + \Vert_{k=1}^{H} \sum_j \alpha_{ij}^k (W_v^k x_j + W_e^k e_{ij})

    Args:
        in_feats: input size, or ``(src_size, dst_size)``.
        out_feats: output size ``C`` per head.
        heads: number of attention heads.
        concat: ``True`` -> ``[N, H * C]``; ``False`` -> mean over heads ``[N, C]``.
        beta: gate the skip term, ``b = sigmoid(lin_beta([out, skip, out - skip]))``,
            ``out = b * skip + (1 - b) * out`` (needs ``root_weight``).
        edge_dim: size of the edge features ``edge_attr`` (``lin_edge``, no bias), added to
            the keys and the values; ``None``: no edge features.
        bias: biases of ``lin_key`` / ``lin_query`` / ``lin_value`` / ``lin_skip``.
        root_weight: add ``lin_skip(x_dst)`` (PyG's default ``True``).
        dropout: PyG's attention dropout, keyword-only: a probability in ``[0, 1]``, kept and
            never applied (inference).

    Called as the other layers (``conv(x, edge_index[, edge_attr])``, pairs, graphs, blocks,
    a cached CSR); ``return_attention_weights=True`` gives ``(out, (edge_index, alpha))``
    with ``alpha`` ``(E, heads)``. No self-loops are added; a node without incoming edges
    gets the skip term only (as PyG).

    Parameter names (PyG): ``lin_key``, ``lin_query``, ``lin_value``, ``lin_edge``,
    ``lin_skip``, ``lin_beta`` (``.weight`` / ``.bias``).

    >>> import numpy as np
    >>> conv = TransformerConv(4, 2, heads=3, edge_dim=5, beta=True, rng=0)
    >>> ei = np.array([[0, 1, 2], [1, 2, 0]])
    >>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 5), np.float32)).shape
    (3, 6)
    """

    _child_names = ("lin_key", "lin_query", "lin_value", "lin_edge", "lin_skip", "lin_beta")

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        out_feats: int,
        heads: int = 1,
        concat: bool = True,
        beta: bool = False,
        edge_dim: int | None = None,
        bias: bool = True,
        root_weight: bool = True,
        *,
        dropout: float = 0.0,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        gen = _rng(rng)
        self._set_dropouts(dropout)
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size("TransformerConv", "in_feats", in_feats)
        else:
            self.in_src, self.in_dst = _pair("TransformerConv", in_feats)
        self.heads = layer_size("TransformerConv", "heads", heads, minimum=1)
        self.out_feats = layer_size("TransformerConv", "out_feats", out_feats)
        if not isinstance(concat, (bool, np.bool_)):
            raise TypeError(f"TransformerConv: concat must be True or False, got {concat!r}")
        self.concat = bool(concat)
        self.root_weight = bool(root_weight)
        self.beta = bool(beta) and self.root_weight
        hc = self.heads * self.out_feats
        self.lin_key = Linear(self.in_src, hc, bias, dtype=dtype, rng=gen)
        self.lin_query = Linear(self.in_dst, hc, bias, dtype=dtype, rng=gen)
        self.lin_value = Linear(self.in_src, hc, bias, dtype=dtype, rng=gen)
        self.edge_dim = None
        self.lin_edge = None
        if edge_dim is not None:
            self.edge_dim = layer_size("TransformerConv", "edge_dim", edge_dim, minimum=1)
            self.lin_edge = Linear(self.edge_dim, hc, False, dtype=dtype, rng=gen)
        out_size = hc if self.concat else self.out_feats
        self.lin_skip = Linear(self.in_dst, out_size, bias, dtype=dtype, rng=gen)
        self.lin_beta = Linear(3 * out_size, 1, False, dtype=dtype, rng=gen) if self.beta else None

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_attr: Any = None,
        size: Any = None,
        *,
        return_attention_weights: bool = False,
    ) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            slots_as_sources,
            spmm_slots,
            to_edge_order,
            to_slot_order,
        )

        check_call_keywords("TransformerConv", edge_attr, False)
        inp = parse_input("TransformerConv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "TransformerConv source features")
        x_dst, _ = self._destination_input(inp, feat_or_edge_index)
        if x_dst is None:
            raise ValueError(
                "TransformerConv needs destination features (the queries); got (x_src, None)"
            )
        if x_dst is not inp.x_src or self.in_dst != self.in_src:
            _check_features(x_dst, self.in_dst, "TransformerConv destination features")
        edge_attr = self._check_edge_attr(edge_attr, inp.num_edges, inp.x_src)
        H, C = self.heads, self.out_feats
        # one matrix product per input: key and value read x_src, query and skip x_dst
        # (all four x when they are the same rows)
        skip_lin = [self.lin_skip] if self.root_weight else []
        if x_dst is inp.x_src:
            k, v, q, *skip = _fused(
                inp.x_src, self.lin_key, self.lin_value, self.lin_query, *skip_lin
            )
        else:
            k, v = _fused(inp.x_src, self.lin_key, self.lin_value)
            q, *skip = _fused(x_dst, self.lin_query, *skip_lin)
        q = q.reshape(inp.num_dst, H, C)
        k = k.reshape(inp.num_src, H, C)
        v = v.reshape(inp.num_src, H, C)
        csr = csr_of(inp)
        xp = get_namespace(q)
        num_edges = csr.num_edges
        # scores in slot order: q_i . k_j (+ (W_e^T q_i) . e_ij), over sqrt(C)
        scores = sddmm_slots(csr, q, k, op="dot", lhs_target="v", rhs_target="u")
        scores = scores.reshape(num_edges, H)
        w_edge = ea_slots = None
        if edge_attr is not None:
            w_edge = self.lin_edge.weight.reshape(H, C, self.edge_dim)
            qe = _per_head(q, w_edge)  # [N_dst, H, D]: W_e^T q_i, head by head
            ea_slots = to_slot_order(csr, edge_attr).astype(qe.dtype, copy=False)
            # (W_e^T q_i) . e_ij per slot: the slot's row of qe against its edge's features
            by_slot = slots_as_sources(csr)
            term = ops.sddmm(by_slot, qe, ea_slots[:, None, :], "dot", "v", "u")
            scores = scores + term.reshape(num_edges, H).astype(scores.dtype, copy=False)
        scores = scores * scores.dtype.type(1.0 / np.sqrt(C))
        alpha = edge_softmax_slots(csr, scores)  # [E, H], slot order
        out = spmm_slots(csr, v, alpha)  # [N_dst, H, C]
        if edge_attr is not None:
            # sum_j alpha_ij e_ij per head, then W_e per node: no [E, H, C] array
            agg = ops.spmm(by_slot, ea_slots[:, None, :], alpha)  # [N_dst, H, D]
            edge_part = _per_head(agg, w_edge.transpose(0, 2, 1))  # [N_dst, H, C]
            out = out + edge_part.astype(out.dtype, copy=False)
        out = out.reshape(inp.num_dst, H * C) if self.concat else out.mean(axis=1)
        if self.root_weight:
            skip = skip[0]
            if self.lin_beta is not None:
                gate = self.lin_beta(xp.concatenate([out, skip, out - skip], axis=-1))
                gate = 1.0 / (1.0 + xp.exp(-gate))
                out = gate * skip + (1 - gate) * out
            else:
                out = out + skip
        if not return_attention_weights:
            return out
        return out, (xp.stack([csr.src, csr.dst]), to_edge_order(csr, alpha))

    def extra_repr(self) -> str:
        extra = "" if self.edge_dim is None else f", edge_dim={self.edge_dim}"
        return (
            f"({self.in_src}, {self.in_dst}), {self.out_feats}, heads={self.heads}, "
            f"concat={self.concat}, beta={self.beta}{extra}"
        )


def _fused(x: Any, *linears: Linear) -> list[Any]:
    """``[lin(x) for lin in linears]`` as one matrix product (the weights stacked), split;
    the linears share ``x``'s width."""
    if len(linears) == 1:
        return [linears[0](x)]
    _check_features(x, linears[0].in_features, "TransformerConv input", linears[0].weight)
    xp = get_namespace(x)
    out = matmul(x, xp.concatenate([lin.weight for lin in linears]).T)
    parts, start = [], 0
    for lin in linears:
        part = out[:, start : start + lin.out_features]
        if lin.bias is not None:
            part = part + lin.bias
        parts.append(part)
        start += lin.out_features
    return parts


def _per_head(a: Any, w: Any) -> Any:
    """``einsum('nhi,hij->nhj', a, w)`` as H batched matrix products (BLAS, not einsum's
    loops: 5-10x faster for these shapes)."""
    xp = get_namespace(a)
    return xp.matmul(a.transpose(1, 0, 2), w).transpose(1, 0, 2)
