"""The general GNN layer of the design space (You et al., 2020): PyG's ``GeneralConv``.

``x_i' = mean_h(aggr_{j in N(i)} alpha_jih m_jih) + x_i W_self`` (``W_self`` the identity
when the sizes allow and ``skip_linear=False``), L2-normalised when asked, with the
message per head ``m_ji = x_j W_msg (+ x_i W_msg_i when not directed_msg) (+ e_ji W_e)``
and ``alpha`` 1, or a softmax over each target's edges of ``LeakyReLU_0.2`` of an additive
score ``m_ji . a`` or a dot product ``m_ij . m_ji / sqrt(C)``
(``m_ij`` the message with ``i`` and ``j`` swapped).

How it runs (each message is a per-node term plus a per-edge one, so the sums factor):

- no attention, ``aggr`` sum / mean: one SpMM of ``x W_msg``, plus ``deg_i x_i W_msg_i``,
  plus the segment sum of the raw edge features times ``W_e`` (and ``deg_i b_e``): the
  only per-edge array is the ``[E, edge_dim]`` input itself, in slot order.
- no attention, ``aggr`` max / min, no edge features: an SpMM max of ``x W_msg`` plus
  ``x_i W_msg_i`` (the same bits as the per-edge max: the target term is one constant
  per row and rounding is monotone).
- attention, ``aggr`` sum / mean: the scores come from per-node pieces (additive:
  ``s_j + s_i + e_ji (W_e a)``; dot product without edge features: SDDMM ``dot`` of the
  node products, two of them and two per-node dots for ``directed_msg=False``), one
  ``[E, heads]`` edge softmax, then the weighted SpMM of ``x W_msg``, the softmax mass
  times ``x_i W_msg_i`` and the softmax-weighted sum of the raw edge features (one SpMM
  over the slots, ``[N, heads, edge_dim]`` out) times ``W_e``: per edge only the
  ``[E, heads]`` scores and weights.
- anything else (max / min with edge features or attention, the dot product with edge
  features): the ``[E, heads, C]`` messages are formed, over pieces of the CSR rows
  holding about :data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` each (NumPy), the
  softmax taken within each piece (a piece holds whole rows), and reduced right away.

The factored sums regroup PyG's additions: equal to rounding (the tests hold float32 to
1e-5 and float64 to 1e-12 relative), not bit for bit.

>>> import numpy as np
>>> conv = GeneralConv(4, 4, heads=2, attention=True, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_edge_attr, csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._row_chunks import map_row_chunks
from arraygnn.nn.edge_conv import _AGGRS
from arraygnn.nn.linear import Linear, _check_features, _leaky_relu, _rng, glorot, matmul

__all__ = ["GeneralConv"]

_ATTENTION_TYPES = ("additive", "dot_product")


class GeneralConv(Module):
    """PyG's ``GeneralConv``.

    Args:
        in_channels: an int, or ``(in_src, in_dst)`` for a bipartite graph.
        out_channels: the message size ``C`` per head and the output size.
        in_edge_channels: the edge feature size (``None``: no edge features).
        aggr: ``'add'`` (PyG's default), ``'mean'``, ``'max'`` or ``'min'``.
        skip_linear: a ``Linear`` for the skip term even when the sizes match.
        directed_msg: ``False`` adds ``x_i W_msg_i`` to every message (then the targets'
            features have ``in_src`` columns, as PyG applies ``lin_msg_i`` to them).
        heads: messages per edge, averaged at the end.
        attention: weigh the messages by a softmax over each target's edges.
        attention_type: ``'additive'`` (a learnt ``att_msg`` ``(1, heads, C)``) or
            ``'dot_product'`` (``scaler`` = ``sqrt(C)``, a float32 value as PyG's buffer;
            the targets' features have ``in_src`` columns).
        l2_normalize: L2-normalise each output row.
        bias: biases in the linear layers.

    Call as ``conv(x, edge_index, edge_attr=None)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` or ``conv(graph, feat, edge_feat)``. Names (PyG): ``lin_msg.*``,
    ``lin_msg_i.*``, ``lin_self.*``, ``lin_edge.*``, ``att_msg``, ``scaler``.

    Shapes:
        input:  x (N, F) or ((N_src, in_src), (N_dst, in_dst)), edge_index (2, E),
                edge_attr (E, in_edge_channels)
        output: (N_dst, out_channels)
    """

    _param_names = ("att_msg",)
    _buffer_names = ("scaler",)
    _child_names = ("lin_msg", "lin_msg_i", "lin_self", "lin_edge")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        in_edge_channels: int | None = None,
        aggr: str = "add",
        skip_linear: bool = False,
        directed_msg: bool = True,
        heads: int = 1,
        attention: bool = False,
        attention_type: str = "additive",
        l2_normalize: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "GeneralConv"
        self.in_channels, in_src, in_dst = channels_pair(name, in_channels)
        self.in_src, self.in_dst = in_src, in_dst
        self.out_channels = out = layer_size(name, "out_channels", out_channels, minimum=1)
        self.heads = heads = layer_size(name, "heads", heads, minimum=1)
        if aggr not in _AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        if attention_type not in _ATTENTION_TYPES:
            raise ValueError(
                f"{name}: attention_type must be 'additive' or 'dot_product', got "
                f"{attention_type!r}"
            )
        self.aggr = _AGGRS[aggr]
        self.skip_linear = bool(skip_linear)
        self.directed_msg = bool(directed_msg)
        self.attention = bool(attention)
        self.attention_type = attention_type
        self.l2_normalize = bool(l2_normalize)
        self.in_edge_channels = (
            None
            if in_edge_channels is None
            else layer_size(name, "in_edge_channels", in_edge_channels, minimum=1)
        )
        gen = _rng(rng)
        self.lin_msg = Linear(in_src, out * heads, bias, dtype=dtype, rng=gen)
        self.lin_msg_i = (
            None if self.directed_msg else Linear(in_src, out * heads, bias, dtype=dtype, rng=gen)
        )
        # PyG compares in_channels as given: a pair is never equal to out_channels
        identity = not self.skip_linear and self.in_channels == out
        self.lin_self = None if identity else Linear(in_dst, out, bias, dtype=dtype, rng=gen)
        self.lin_edge = (
            None
            if self.in_edge_channels is None
            else Linear(self.in_edge_channels, out * heads, bias, dtype=dtype, rng=gen)
        )
        self.att_msg = None
        self.scaler = None
        if self.attention and attention_type == "additive":
            self.att_msg = glorot((1, heads, out), gen, dtype)
        elif self.attention:
            self.scaler = np.asarray(np.sqrt(np.float32(out)), dtype=np.float32).astype(dtype)

    # ---- the call ------------------------------------------------------------------
    def __call__(self, x: Any, edge_index: Any, edge_attr: Any = None, size: Any = None) -> Any:
        from arraygnn.ops.slot_order import to_slot_order

        layer = "GeneralConv"
        inp = parse_input(layer, x, edge_index, size)
        if inp.x_dst is None:
            raise ValueError(f"{layer}: needs destination features (x[1]) for the skip term")
        weight = self.lin_msg.weight
        _check_features(inp.x_src, self.in_src, f"{layer} x_src", weight)
        # lin_msg_i and the dot product's swapped message read the targets with in_src
        if not self.directed_msg or (self.attention and self.attention_type == "dot_product"):
            _check_features(inp.x_dst, self.in_src, f"{layer} x_dst", weight)
        if self.lin_self is not None:
            _check_features(inp.x_dst, self.in_dst, f"{layer} x_dst", weight)
        elif inp.x_dst.shape[-1] != self.out_channels:
            raise ValueError(
                f"{layer}: the identity skip needs x_dst with {self.out_channels} columns, "
                f"got {inp.x_dst.shape[-1]}"
            )
        if inp.x_src.ndim != 2 or inp.x_dst.ndim != 2:
            raise ValueError(f"{layer}: node features must be (N, F)")
        csr = csr_of(inp)
        e_slots = None
        if edge_attr is not None:
            if self.lin_edge is None:
                raise ValueError(
                    f"{layer}: edge_attr given but the layer has no edge weights (build it "
                    "with in_edge_channels=D)"
                )
            e = check_edge_attr(layer, edge_attr, inp.num_edges, self.in_edge_channels, inp.x_src)
            e_slots = to_slot_order(csr, e)
        agg = self._aggregate(csr, inp.x_src, inp.x_dst, e_slots)  # [N_dst, H, C]
        out = agg.mean(axis=1)
        skip = inp.x_dst if self.lin_self is None else self.lin_self(inp.x_dst)
        out = out + skip
        if self.l2_normalize:
            xp = get_namespace(out)
            norm = xp.sqrt((out * out).sum(axis=-1, keepdims=True))
            out = out / xp.maximum(norm, out.dtype.type(1e-12))
        return out

    # ---- pieces --------------------------------------------------------------------
    def _heads(self, h: Any) -> Any:
        return h.reshape(h.shape[0], self.heads, self.out_channels)

    def _edge_weight(self) -> Any:
        """``W_e`` as ``[H, C, D]``."""
        return self.lin_edge.weight.reshape(self.heads, self.out_channels, -1)

    def _aggregate(self, csr: Any, x_src: Any, x_dst: Any, e_slots: Any) -> Any:
        p = self._heads(self.lin_msg(x_src))
        q = None if self.lin_msg_i is None else self._heads(self.lin_msg_i(x_dst))
        aggr = self.aggr
        if not self.attention and aggr in ("sum", "mean"):
            return self._plain_sum(csr, p, q, e_slots)
        if not self.attention and e_slots is None:
            return self._plain_extreme(csr, p, q)
        if self.attention and aggr in ("sum", "mean"):
            if self.attention_type == "additive":
                return self._attention_sum(
                    csr, p, q, e_slots, self._additive_logits(csr, p, q, e_slots)
                )
            if e_slots is None:
                logits = self._dot_logits(csr, p, q, x_src, x_dst)
                return self._attention_sum(csr, p, q, None, logits)
        return self._per_edge(csr, p, q, x_src, x_dst, e_slots)

    def _plain_sum(self, csr: Any, p: Any, q: Any, e_slots: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import spmm_slots

        out = spmm_slots(csr, p, None, self.aggr)
        deg = csr.in_degrees()
        count = (deg if self.aggr == "sum" else deg > 0).astype(out.dtype)[:, None, None]
        if q is not None:
            out += count * q
        if e_slots is not None:
            pooled = ops.segment(e_slots, csr.indptr, reduce=self.aggr)
            term = self._heads(matmul(pooled, self.lin_edge.weight.T))
            if self.lin_edge.bias is not None:
                term = term + count * self._heads(self.lin_edge.bias[None])
            out += term.astype(out.dtype, copy=False)
        return out

    def _plain_extreme(self, csr: Any, p: Any, q: Any) -> Any:
        from arraygnn.ops.slot_order import spmm_slots

        out = spmm_slots(csr, p, None, self.aggr)
        if q is not None:
            xp = get_namespace(out)
            has = (csr.in_degrees() > 0)[:, None, None]
            out = xp.where(has, out + q, 0).astype(out.dtype, copy=False)
        return out

    def _additive_logits(self, csr: Any, p: Any, q: Any, e_slots: Any) -> Any:
        """``(m_ji . a)`` ``[E, H]`` in slot order from per-node pieces."""
        from arraygnn.ops.slot_order import sddmm_slots

        att = self.att_msg[0]  # [H, C]
        s_src = (p * att).sum(axis=-1)
        if q is None:
            logits = sddmm_slots(csr, s_src, None, op="copy_lhs")
        else:
            logits = sddmm_slots(csr, s_src, (q * att).sum(axis=-1), op="add")
        if e_slots is not None:
            w_att = (self._edge_weight() * att[:, :, None]).sum(axis=1)  # [H, D]
            term = matmul(e_slots, w_att.T)
            if self.lin_edge.bias is not None:
                term = term + (self._heads(self.lin_edge.bias[None])[0] * att).sum(axis=-1)
            logits = logits + term
        return logits

    def _dot_logits(self, csr: Any, p: Any, q: Any, x_src: Any, x_dst: Any) -> Any:
        """``m_ij . m_ji`` ``[E, H]`` in slot order (no edge features): SDDMM dots of the
        node products."""
        from arraygnn.ops.slot_order import sddmm_slots

        p_dst = self._heads(self.lin_msg(x_dst))  # m_ij's x_i W_msg
        logits = sddmm_slots(csr, p, p_dst, op="dot")[..., 0]
        if q is not None:  # (P_i + Q'_j) . (P_j + Q_i), Q'_j = x_j W_msg_i
            q_src = self._heads(self.lin_msg_i(x_src))
            logits = logits + sddmm_slots(csr, q_src, q, op="dot")[..., 0]
            logits = logits + sddmm_slots(
                csr, (q_src * p).sum(axis=-1), (p_dst * q).sum(axis=-1), op="add"
            )
        return logits

    def _softmax(self, csr: Any, logits: Any) -> Any:
        from arraygnn.ops.slot_order import edge_softmax_slots

        if self.scaler is not None:
            logits = logits / self.scaler.astype(logits.dtype)
        return edge_softmax_slots(csr, _leaky_relu(logits, 0.2))

    def _attention_sum(self, csr: Any, p: Any, q: Any, e_slots: Any, logits: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import slots_as_sources, spmm_slots

        alpha = self._softmax(csr, logits)  # [E, H]
        out = spmm_slots(csr, p, alpha, "sum")
        if q is not None or (e_slots is not None and self.lin_edge.bias is not None):
            mass = ops.segment(alpha, csr.indptr, "sum")[:, :, None]  # ~1 per target
        if q is not None:
            out += mass * q
        if e_slots is not None:
            pooled = spmm_slots(slots_as_sources(csr), e_slots[:, None, :], alpha, "sum")
            xp = get_namespace(pooled)  # per head: [N, D] @ [D, C], one batched product
            w = self._edge_weight().transpose(0, 2, 1).astype(pooled.dtype, copy=False)
            term = xp.matmul(pooled.transpose(1, 0, 2), w).transpose(1, 0, 2)  # [N, H, C]
            if self.lin_edge.bias is not None:
                term = term + mass * self._heads(self.lin_edge.bias[None])
            out += term.astype(out.dtype, copy=False)
        if self.aggr == "mean":
            out /= xp_max1(csr.in_degrees(), out.dtype)[:, None, None]
        return out

    def _per_edge(self, csr: Any, p: Any, q: Any, x_src: Any, x_dst: Any, e_slots: Any) -> Any:
        """The ``[E, H, C]`` messages formed over pieces of rows, reduced right away."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import edge_softmax_slots, to_slot_order

        dot = self.attention and self.attention_type == "dot_product"
        p_dst = self._heads(self.lin_msg(x_dst)) if dot else None
        q_src = self._heads(self.lin_msg_i(x_src)) if dot and q is not None else None

        def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
            src = part.indices
            dst = start + to_slot_order(part, part.dst)  # each slot's target row
            edge = None
            if e_slots is not None:
                edge = self._heads(self.lin_edge(e_slots[first:last]))
            m_j = p[src] if q is None else p[src] + q[dst]
            if edge is not None:
                m_j = m_j + edge
            if self.attention:
                if dot:
                    m_i = p_dst[dst] if q_src is None else p_dst[dst] + q_src[src]
                    if edge is not None:
                        m_i = m_i + edge
                    logits = (m_i * m_j).sum(axis=-1) / self.scaler.astype(m_j.dtype)
                else:
                    logits = (m_j * self.att_msg).sum(axis=-1)
                alpha = edge_softmax_slots(part, _leaky_relu(logits, 0.2))
                m_j = m_j * alpha[:, :, None]
            return ops.segment(m_j, part.indptr, reduce=self.aggr)

        width = 3 * self.heads * self.out_channels * p.dtype.itemsize
        return map_row_chunks(csr, width, rows)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, heads={self.heads}, aggr={self.aggr!r}, "
            f"attention={self.attention}"
        )


def xp_max1(deg: Any, dtype: Any) -> Any:
    """``max(deg, 1)`` as ``dtype``."""
    return get_namespace(deg).maximum(deg, 1).astype(dtype)
