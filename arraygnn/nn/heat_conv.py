"""The heterogeneous edge-enhanced graph attention layer (Mo et al., 2021), PyG's ``HEATConv``.

``h = hetero_lin(x, node_type)`` (a weight per node type, ``C`` outputs). Each edge
``j -> i`` carries an embedded type ``t_e = LeakyReLU(emb[edge_type_e])`` and embedded
features ``a_e = LeakyReLU(edge_attr_e @ W_a)``; its attention per head is
``alpha = softmax_{edges into i}(LeakyReLU([h_i, h_j, t_e, a_e] @ att))``, its message
``lin([h_j, a_e])``; ``out_i = sum_e alpha_e lin([h_j, a_e])`` (heads concatenated, or
averaged), plus ``h_i`` with ``root_weight``.

How it runs: ``att`` splits into four blocks, so the score is per-node terms
(``h @ att_i``, ``h @ att_j``: one SDDMM ``add``) plus per-edge terms (a ``[num_edge_types,
heads]`` table gathered by type, and ``a_e @ att_a``); edge softmax over one CSR, every
``[E, heads]`` array in slot order. ``lin`` splits likewise, and the sum moves inside:
``sum_e alpha_e h_j @ L_x`` is a weighted SpMM of the ``[N, C]`` node rows and
``sum_e alpha_e a_e @ L_a`` a weighted SpMM of the ``[E, edge_attr_emb_dim]`` edge rows
(``ops.slot_order.slots_as_sources``), each multiplied by its block after the sum; the bias
is added once per node with edges. No ``[E, 2C + ...]`` concatenation and no
``[E, heads, C]`` message array (PyG builds both).

>>> import numpy as np
>>> conv = HEATConv(4, 6, num_node_types=2, num_edge_types=3, edge_type_emb_dim=5,
...                 edge_dim=2, edge_attr_emb_dim=3, heads=2, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> out = conv(x, ei, np.array([0, 1, 1]), np.array([2, 0, 1]), np.ones((3, 2), np.float32))
>>> out.shape
(3, 12)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._graph_input import check_edge_attr, csr_of, parse_input
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.dgl_hetero_linear import _Embedding
from arraygnn.nn.hetero_linear import HeteroLinear, check_types
from arraygnn.nn.linear import Linear, _leaky_relu, _rng, matmul

__all__ = ["HEATConv"]


class HEATConv(Module):
    """PyG's ``HEATConv``: GAT with node-type weights and edge types and features in the score.

    Args:
        in_channels: input size.
        out_channels: output size ``C`` per head.
        num_node_types, num_edge_types: type counts (ids in ``[0, count)``).
        edge_type_emb_dim: size of the edge-type embedding.
        edge_dim: size of ``edge_attr``.
        edge_attr_emb_dim: size of the embedded edge features.
        heads: attention heads.
        concat: concatenate the heads (``heads * C`` outputs) or average them (``C``).
        negative_slope: the LeakyReLU slope (embeddings and scores).
        dropout: accepted for PyG's signature; inference only, so never applied.
        root_weight: add the node's own ``hetero_lin`` output.
        bias: biases in ``hetero_lin`` and ``lin``.

    Call as ``conv(x, edge_index, node_type, edge_type, edge_attr)`` (PyG's forward; a CSR
    from ``arraygnn.ops.to_csr`` may stand in for ``edge_index``, with ``edge_type`` /
    ``edge_attr`` still in edge order). ``edge_attr`` is required: PyG embeds it in every
    message.

    Shapes:
        - input: x ``(N, in)``, edge_index ``(2, E)``, node_type ``(N,)``, edge_type
          ``(E,)``, edge_attr ``(E, edge_dim)``
        - output: ``(N, heads * C)`` (``concat``) or ``(N, C)``

    Names (PyG): ``hetero_lin.weight`` ``(num_node_types, in, C)`` / ``.bias``,
    ``edge_type_emb.weight`` ``(num_edge_types, edge_type_emb_dim)``,
    ``edge_attr_emb.weight`` ``(edge_attr_emb_dim, edge_dim)``, ``att.weight``
    ``(heads, 2C + edge_type_emb_dim + edge_attr_emb_dim)``, ``lin.weight``
    ``(C, C + edge_attr_emb_dim)`` / ``.bias``.
    """

    _child_names = ("hetero_lin", "edge_type_emb", "edge_attr_emb", "att", "lin")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_node_types: int,
        num_edge_types: int,
        edge_type_emb_dim: int,
        edge_dim: int,
        edge_attr_emb_dim: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        root_weight: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HEATConv"
        self.in_channels = layer_size(layer, "in_channels", in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        self.num_node_types = layer_size(layer, "num_node_types", num_node_types, minimum=1)
        self.num_edge_types = layer_size(layer, "num_edge_types", num_edge_types, minimum=1)
        self.edge_type_emb_dim = layer_size(layer, "edge_type_emb_dim", edge_type_emb_dim)
        self.edge_dim = layer_size(layer, "edge_dim", edge_dim)
        self.edge_attr_emb_dim = layer_size(layer, "edge_attr_emb_dim", edge_attr_emb_dim)
        self.heads = layer_size(layer, "heads", heads, minimum=1)
        self.concat = bool(concat)
        self.negative_slope = float(negative_slope)
        self.dropout = probability(layer, "dropout", dropout)
        self.root_weight = bool(root_weight)
        gen = _rng(rng)
        c, dt, da = self.out_channels, self.edge_type_emb_dim, self.edge_attr_emb_dim
        self.hetero_lin = HeteroLinear(
            self.in_channels, c, self.num_node_types, bias=bias, dtype=dtype, rng=gen
        )
        self.edge_type_emb = _Embedding(self.num_edge_types, dt, gen, dtype)
        self.edge_attr_emb = Linear(self.edge_dim, da, bias=False, dtype=dtype, rng=gen)
        self.att = Linear(2 * c + dt + da, self.heads, bias=False, dtype=dtype, rng=gen)
        self.lin = Linear(c + da, c, bias=bias, dtype=dtype, rng=gen)

    @property
    def out_size(self) -> int:
        """Output features per node: ``heads * out_channels`` or ``out_channels``."""
        return self.heads * self.out_channels if self.concat else self.out_channels

    def __call__(
        self,
        x: Any,
        edge_index: Any,
        node_type: Any,
        edge_type: Any,
        edge_attr: Any = None,
    ) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            slots_as_sources,
            spmm_slots,
            to_slot_order,
        )

        layer = "HEATConv"
        if isinstance(x, (tuple, list)):
            raise TypeError(f"{layer}: x must be one (N, in_channels) array (no bipartite pair)")
        inp = parse_input(layer, x, edge_index)
        if inp.x_src.ndim != 2:
            raise ValueError(
                f"{layer}: x must be (N, {self.in_channels}), got shape {tuple(inp.x_src.shape)}"
            )
        xp = get_namespace(inp.x_src)
        n, e = inp.num_src, inp.num_edges
        c, dt, h = self.out_channels, self.edge_type_emb_dim, self.heads
        if edge_attr is None:
            raise ValueError(
                f"{layer}: edge_attr of shape ({e}, {self.edge_dim}) is required (PyG embeds "
                "it in every message)"
            )
        edge_attr = check_edge_attr(layer, edge_attr, e, self.edge_dim, inp.x_src)
        edge_type = check_types(f"{layer}: edge_type", edge_type, e, self.num_edge_types, xp)
        node_type = check_types(f"{layer}: node_type", node_type, n, self.num_node_types, xp)
        hx = self.hetero_lin(inp.x_src, node_type)  # [N, C]
        att = self.att.weight  # [H, 2C + Dt + Da], blocks: x_i, x_j, type, edge features
        att_i, att_j = att[:, :c], att[:, c : 2 * c]
        att_t, att_a = att[:, 2 * c : 2 * c + dt], att[:, 2 * c + dt :]
        emb_a = _leaky_relu(self.edge_attr_emb(edge_attr), self.negative_slope)  # [E, Da]
        type_scores = matmul(_leaky_relu(self.edge_type_emb.weight, self.negative_slope), att_t.T)
        edge_scores = ops.gather(type_scores, edge_type) + matmul(emb_a, att_a.T)  # [E, H]
        csr = csr_of(inp)
        logits = sddmm_slots(
            csr,
            matmul(hx, att_j.T),
            matmul(hx, att_i.T),
            op="add",
            lhs_target="u",
            rhs_target="v",
        )
        logits += to_slot_order(csr, edge_scores).astype(logits.dtype, copy=False)
        alpha = edge_softmax_slots(csr, leaky_relu_(logits, self.negative_slope))  # [E, H]
        lin_w = self.lin.weight  # [C, C + Da]: blocks for h_j and a_e
        node_part = matmul(hx, lin_w[:, :c].T)[:, None, :]  # [N, 1, C]
        out = spmm_slots(csr, node_part, alpha)  # [N, H, C]
        if self.edge_attr_emb_dim:
            edge_rows = to_slot_order(csr, emb_a)[:, None, :]  # [E, 1, Da], slot order
            agg = spmm_slots(slots_as_sources(csr), edge_rows, alpha)  # [N, H, Da]
            rows = agg.reshape(n * h, self.edge_attr_emb_dim)  # explicit: n may be 0
            out += matmul(rows, lin_w[:, c:].T).reshape(n, h, c)
        if self.lin.bias is not None:  # sum_e alpha_e b = b on every node with edges
            has_edges = (csr.in_degrees() > 0).astype(out.dtype)
            out += has_edges[:, None, None] * self.lin.bias
        if self.concat:
            if self.root_weight:
                out += hx[:, None, :]
            return out.reshape(n, h * c)
        out = out.mean(axis=1)
        if self.root_weight:
            out += hx
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, heads={self.heads}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> HEATConv:
    """PyG's ``HEATConv`` with its weights (a lazy ``-1`` input size from ``hetero_lin``)."""
    from arraygnn.nn.weights import _lazy_sizes, _load, _pyg_aggr

    _pyg_aggr(module, "HEATConv", ("sum",))
    layer = HEATConv(
        _lazy_sizes("HEATConv", module.in_channels, module.hetero_lin),
        module.out_channels,
        module.hetero_lin.num_types,
        module.edge_type_emb.num_embeddings,
        module.edge_type_emb.embedding_dim,
        _lazy_sizes("HEATConv", module.edge_attr_emb.in_channels, module.edge_attr_emb),
        module.edge_attr_emb.out_channels,
        heads=module.heads,
        concat=module.concat,
        negative_slope=module.negative_slope,
        dropout=module.dropout,
        root_weight=module.root_weight,
        bias=module.lin.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
