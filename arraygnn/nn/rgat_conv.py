"""Relational graph attention (Busbridge et al., RGAT): PyG's ``RGATConv`` at inference.

Each edge ``j -> i`` of relation ``r`` projects both ends with that relation's weight
(``g_j = x_j W_r``, ``g_i = x_i W_r``, ``[H * F]``), scores the pair with
``q_i = g_i Q`` and ``k_j = g_j K`` (``[H * D]``, ``D = dim``; additive
``LeakyReLU(q_i + k_j [+ e_ij])`` or multiplicative ``q_i * k_j [* e_ij]``), normalises the
scores over each target's edges (``'across-relation'``) or over each (target, relation)
pair (``'within-relation'``), optionally rescales them (``mod``), and sums ``alpha * g_j``.

The path that runs. PyG gathers every edge's ``[in, H * F]`` weight matrix (an
``[E, in, H * F]`` array) and forms ``[E, H * F]`` projections and messages. Here:

- the projections come from a *table*: with ``N * R <= E`` one BLAS product gives every
  (node, relation) projection ``x W_r`` (``[N * R, H * F]``) and an edge reads row
  ``node * R + r``; otherwise each edge's own ``[H * F]`` projection is made by
  ``ops.gather_mm`` (no ``[E, in, H * F]`` array);
- ``q`` / ``k`` are table rows times ``Q`` / ``K`` (``[rows, H * D]``), gathered per edge
  (``[E, H * D]``), the edge term ``edge_attr @ (W_e^T E)`` (``[E, H * D]``, the projected
  ``[E, H * F]`` edge features are never formed);
- ``ops.edge_softmax`` over the targets, or over ``target * R + relation`` for
  ``'within-relation'`` (one softmax, PyG loops over the relations);
- the aggregation is one weighted ``ops.spmm`` per ``dim`` slice over the CSR whose
  sources are the table rows: no ``[E, H * F]`` message array. ``mod='additive'`` adds
  ``w * spmm(table)``; ``'scaled'`` multiplies each target's sum by its degree MLP
  (the per-edge factor depends on the target only).

Edge memory ``O(E * H * D)`` (plus ``O(E * H * F)`` projections when the table is per edge).

>>> import numpy as np
>>> conv = RGATConv(4, 2, num_relations=3, heads=2, rng=0)
>>> ei, et = np.array([[0, 1, 2], [1, 2, 0]]), np.array([0, 2, 1])
>>> conv(np.ones((3, 4), np.float32), ei, et).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._graph_input import check_edge_attr
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, glorot, matmul
from arraygnn.nn.relation_groups import _check_edge_type
from arraygnn.nn.rgcn_conv import _check_decomposition
from arraygnn.nn.super_gat_conv import one_node_set_input

__all__ = ["RGATConv"]

_MECHANISMS = ("within-relation", "across-relation")
_MODES = ("additive-self-attention", "multiplicative-self-attention")
_MODS = (None, "additive", "scaled", "f-additive", "f-scaled")


class RGATConv(Module):
    r"""Relational graph attention (PyG's ``RGATConv``), evaluated as in ``model.eval()``.

    .. math::
        \alpha_{ij}^{r} = \mathrm{softmax}\big(\mathrm{LeakyReLU}((x_i W_r) Q + (x_j W_r) K)\big),
        \quad x_i' = \Vert_{h} \sum_{r} \sum_{j \in N_r(i)} \alpha_{ij}^{r,h} x_j W_r^h + b

    Args:
        in_channels: input size.
        out_channels: output size ``F`` per head.
        num_relations: number of relations; ``edge_type`` holds ids in ``[0, R)``.
        num_bases: basis decomposition ``W_r = sum_b att[r, b] basis[b]``.
        num_blocks: block-diagonal ``W_r`` (``in_channels`` and ``heads * out_channels``
            divisible by it).
        mod: cardinality preservation: ``None``, ``'additive'`` (``+ w * x_j W_r``),
            ``'scaled'`` (times an MLP of the in-degree), ``'f-additive'`` (``alpha + 1``
            where ``alpha > 0``), ``'f-scaled'`` (``alpha * in-degree``). Any other value is
            a ``ValueError`` (PyG silently treats it as ``None``).
        attention_mechanism: ``'across-relation'`` (softmax over all of a target's edges,
            default) or ``'within-relation'`` (over its edges of one relation).
        attention_mode: ``'additive-self-attention'`` (default) or
            ``'multiplicative-self-attention'``.
        heads: number of heads ``H``.
        dim: ``D``, attention values per head (multiplicative mode only; the output then has
            ``H * D * F`` features with ``concat``).
        concat: ``True`` -> heads concatenated; ``False`` -> their mean.
        negative_slope: leaky-ReLU slope of the additive mode (0.2).
        dropout: PyG's attention dropout; no effect at inference (refused with a ``mod``,
            as PyG).
        edge_dim: size of the edge features (``lin_edge`` and ``e``); ``None``: none.
        bias: additive bias.

    Every combination of these that PyG accepts is computed; the ones PyG refuses (both
    decompositions, additive mode with ``dim > 1``, ``dropout`` with a ``mod``) raise
    ``ValueError`` naming the argument.

    Call as ``conv(x, edge_index, edge_type, edge_attr=None, size=None)`` or ``conv(graph,
    feat, edge_type, edge_attr=None)`` (a homogeneous graph, as PyG; ``size`` may only be
    ``(N, N)``, as PyG's checks). ``return_attention_weights
    =True`` also returns ``(edge_index, alpha)``, ``alpha`` ``(E, heads * dim)`` before the
    ``mod`` rescaling, as PyG.

    Shapes:
        - input: ``(N, in_channels)``, edge_index ``(2, E)``, edge_type ``(E,)``,
          edge_attr ``(E, edge_dim)``
        - output: ``(N, H * D * F)`` (concat) or ``(N, D * F)``

    Parameter names (PyG): ``q`` / ``k`` ``(H*F, H*D)``, ``weight`` ``(R, in, H*F)`` (or
    ``(R, B, in/B, H*F/B)``), ``att`` ``(R, B)`` and ``basis`` ``(B, in, H*F)`` with bases,
    ``lin_edge.weight`` and ``e`` ``(H*F, H*D)`` with ``edge_dim``, ``w`` ``(F,)``, ``l1`` /
    ``b1`` / ``b2`` ``(1, F)``, ``l2`` ``(F, F)``, ``bias``.
    """

    _param_names = ("q", "k", "bias", "e", "att", "basis", "weight", "w", "l1", "b1", "l2", "b2")
    _child_names = ("lin_edge",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        num_relations: int,
        num_bases: int | None = None,
        num_blocks: int | None = None,
        mod: str | None = None,
        attention_mechanism: str = "across-relation",
        attention_mode: str = "additive-self-attention",
        heads: int = 1,
        dim: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        edge_dim: int | None = None,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "RGATConv"
        self.in_channels = layer_size(name, "in_channels", in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.num_relations = layer_size(name, "num_relations", num_relations, minimum=1)
        self.heads = layer_size(name, "heads", heads, minimum=1)
        self.dim = layer_size(name, "dim", dim, minimum=1)
        if attention_mechanism not in _MECHANISMS:
            raise ValueError(
                f"{name}: attention_mechanism must be 'within-relation' or 'across-relation', "
                f"got {attention_mechanism!r}"
            )
        if attention_mode not in _MODES:
            raise ValueError(
                f"{name}: attention_mode must be 'additive-self-attention' or "
                f"'multiplicative-self-attention', got {attention_mode!r}"
            )
        if attention_mode == _MODES[0] and self.dim > 1:
            raise ValueError(
                f"{name}: attention_mode='additive-self-attention' needs dim=1, got "
                f"dim={self.dim}; use 'multiplicative-self-attention'"
            )
        if mod not in _MODS:
            raise ValueError(f"{name}: mod must be one of {_MODS}, got {mod!r}")
        dropout = probability(name, "dropout", dropout)
        if dropout > 0.0 and mod is not None:
            raise ValueError(f"{name}: mod must be None when dropout > 0 (as PyG), got {mod!r}")
        if not isinstance(concat, (bool, np.bool_)):
            raise TypeError(f"{name}: concat must be True or False, got {concat!r}")
        self.num_bases, self.num_blocks = _check_decomposition(name, num_bases, num_blocks)
        self.mod = mod
        self.attention_mechanism = attention_mechanism
        self.attention_mode = attention_mode
        self.concat = bool(concat)
        self.negative_slope = float(negative_slope)
        self.dropout = dropout
        gen = _rng(rng)
        R, i, F = self.num_relations, self.in_channels, self.out_channels
        hf, hd = self.heads * F, self.heads * self.dim
        self.q = glorot((hf, hd), gen, dtype)
        self.k = glorot((hf, hd), gen, dtype)
        out_size = (hd if self.concat else self.dim) * F
        self.bias = np.zeros(out_size, dtype=dtype) if bias else None
        self.edge_dim = self.lin_edge = self.e = None
        if edge_dim is not None:
            self.edge_dim = layer_size(name, "edge_dim", edge_dim, minimum=1)
            self.lin_edge = Linear(self.edge_dim, hf, False, dtype=dtype, rng=gen)
            self.e = glorot((hf, hd), gen, dtype)
        self.att = self.basis = None
        if self.num_bases is not None:
            self.att = glorot((R, self.num_bases), gen, dtype)
            self.basis = glorot((self.num_bases, i, hf), gen, dtype)
            self.weight = None
        elif self.num_blocks is not None:
            nb = self.num_blocks
            if i % nb or hf % nb:
                raise ValueError(
                    f"{name}: in_channels ({i}) and heads * out_channels ({hf}) must be "
                    f"divisible by num_blocks ({nb})"
                )
            self.weight = glorot((R, nb, i // nb, hf // nb), gen, dtype)
        else:
            self.weight = glorot((R, i, hf), gen, dtype)
        self.w = np.ones(F, dtype=dtype)
        self.l1 = np.ones((1, F), dtype=dtype)
        self.b1 = np.zeros((1, F), dtype=dtype)
        self.l2 = np.full((F, F), 1.0 / F, dtype=dtype)
        self.b2 = np.zeros((1, F), dtype=dtype)

    @property
    def out_size(self) -> int:
        """Output features per node."""
        return (self.heads if self.concat else 1) * self.dim * self.out_channels

    def relation_weights(self) -> Any:
        """Every relation's dense ``(R, in, H * F)`` weight (bases combined, blocks placed
        on the diagonal)."""
        xp = get_namespace(self.q)
        R, i, hf = self.num_relations, self.in_channels, self.heads * self.out_channels
        if self.num_bases is not None:
            return matmul(self.att, self.basis.reshape(self.num_bases, -1)).reshape(R, i, hf)
        if self.num_blocks is None:
            return self.weight
        nb, si, so = self.weight.shape[1:]
        dense = xp.zeros((R, i, hf), dtype=self.weight.dtype)
        for b in range(nb):
            dense[:, b * si : (b + 1) * si, b * so : (b + 1) * so] = self.weight[:, b]
        return dense

    def _tables(self, x: Any, src: Any, dst: Any, etype: Any) -> tuple[Any, Any, Any, Any]:
        """``(source table, source row of each edge, target table, target row of each
        edge)``: per (node, relation) projections when ``N * R <= E``, else per edge."""
        from arraygnn import ops

        xp = get_namespace(x)
        R, num_nodes, num_edges = self.num_relations, int(x.shape[0]), int(src.shape[0])
        weight = self.relation_weights()
        dtype = np.result_type(x.dtype, weight.dtype)
        weight = weight.astype(dtype, copy=False)
        if num_nodes * R <= num_edges or num_edges == 0:
            i, hf = weight.shape[1], weight.shape[2]
            stacked = weight.transpose(1, 0, 2).reshape(i, R * hf)
            table = matmul(x.astype(dtype, copy=False), stacked).reshape(num_nodes * R, hf)
            et = etype.astype(np.int64, copy=False)
            return table, src.astype(np.int64) * R + et, table, dst.astype(np.int64) * R + et
        xs = ops.gather(x, src).astype(dtype, copy=False)
        xd = ops.gather(x, dst).astype(dtype, copy=False)
        rows = xp.arange(num_edges, dtype=np.int64)
        return (
            ops.gather_mm(xs, weight, idx_b=etype),
            rows,
            ops.gather_mm(xd, weight, idx_b=etype),
            rows,
        )

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        edge_type: Any = None,
        edge_attr: Any = None,
        size: Any = None,
        *,
        return_attention_weights: bool = False,
    ) -> Any:
        """The layer's output (and ``(edge_index, alpha)`` when asked for); see the class
        docstring. ``size``: PyG's, ``None`` or ``(N, N)``."""
        from arraygnn import ops

        name = "RGATConv"
        inp = one_node_set_input(name, graph_or_x, feat_or_edge_index)
        _check_size(name, size, inp)
        _check_features(inp.x_src, self.in_channels, f"{name} node features", self.q)
        etype = _check_edge_type(name, edge_type, inp.num_edges, self.num_relations)
        xp = get_namespace(inp.x_src)
        etype = xp.asarray(etype)
        if edge_attr is not None:
            if self.lin_edge is None:
                raise ValueError(
                    f"{name}: edge_attr was given but this layer has no edge_dim (build it "
                    f"with {name}(..., edge_dim=D))"
                )
            edge_attr = check_edge_attr(name, edge_attr, inp.num_edges, self.edge_dim, inp.x_src)
        src, dst = inp.src, inp.dst
        N, E, R = inp.num_dst, inp.num_edges, self.num_relations
        H, D, F = self.heads, self.dim, self.out_channels
        t_src, key_src, t_dst, key_dst = self._tables(inp.x_src, src, dst, etype)
        k_rows = matmul(t_src, self.k.astype(t_src.dtype, copy=False))  # [rows, H * D]
        if t_dst is t_src:
            q_rows = matmul(t_src, self.q.astype(t_src.dtype, copy=False))
        else:
            q_rows = matmul(t_dst, self.q.astype(t_dst.dtype, copy=False))
        qi, kj = ops.gather(q_rows, key_dst), ops.gather(k_rows, key_src)  # [E, H * D]
        alpha_edge = None
        if edge_attr is not None:  # lin_edge(edge_attr) @ e, as one [edge_dim, H * D] matrix
            m = matmul(self.lin_edge.weight.T, self.e)
            alpha_edge = matmul(edge_attr.astype(m.dtype, copy=False), m)
        if self.attention_mode == _MODES[0]:
            logits = qi + kj
            if alpha_edge is not None:
                logits += alpha_edge.astype(logits.dtype, copy=False)
            logits = leaky_relu_(logits, self.negative_slope)
        else:
            logits = qi * kj
            if alpha_edge is not None:
                logits *= alpha_edge.astype(logits.dtype, copy=False)
        if self.attention_mechanism == "within-relation":  # one softmax per (target, relation)
            group = dst.astype(np.int64) * R + etype
            alpha = ops.edge_softmax((src, group), logits, num_dst_nodes=N * R)
        else:
            alpha = ops.edge_softmax((src, dst), logits, num_dst_nodes=N)
        weights = alpha
        degree = None
        if self.mod in ("scaled", "f-scaled"):
            ones = xp.ones(E, dtype=alpha.dtype)
            degree = ops.scatter(ones, dst, N, reduce="sum")  # in-degree [N]
        if self.mod == "f-additive":
            weights = xp.where(alpha > 0, alpha + 1, alpha)
        elif self.mod == "f-scaled":
            weights = alpha * ops.gather(degree, dst)[:, None]
        # aggregation over the table rows: sum_e weights[e, h, d] * table[key_src(e), h, :]
        agg_csr = ops.to_csr((key_src, dst), int(t_src.shape[0]), N)
        table = t_src.reshape(-1, H, F)
        per_head = weights.reshape(E, H, D)
        parts = [
            ops.spmm(agg_csr, table, xp.ascontiguousarray(per_head[:, :, d]), num_dst_nodes=N)
            for d in range(D)
        ]
        out = xp.stack(parts, axis=2)  # [N, H, D, F]
        if self.mod == "additive":
            plain = ops.spmm(agg_csr, table, num_dst_nodes=N)  # [N, H, F]
            out += (self.w * plain)[:, :, None, :]
        elif self.mod == "scaled":
            scale = matmul(degree[:, None].astype(self.l1.dtype), self.l1) + self.b1
            scale = matmul(xp.maximum(scale, 0), self.l2) + self.b2  # [N, F]
            out *= scale[:, None, None, :].astype(out.dtype, copy=False)
        out = out.reshape(N, H * D * F) if self.concat else out.mean(axis=1).reshape(N, D * F)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        if not return_attention_weights:
            return out
        return out, (xp.stack([src, dst]), alpha)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, heads={self.heads}, "
            f"num_relations={self.num_relations}, mode={self.attention_mode!r}, "
            f"mechanism={self.attention_mechanism!r}, mod={self.mod!r}"
        )


def _check_size(name: str, size: Any, inp: Any) -> int:
    """PyG's ``size``: ``None`` or ``(N, N)`` (its ``x`` gives both ends of every edge)."""
    if size is None:
        return int(inp.num_dst)
    if (
        not isinstance(size, (tuple, list))
        or len(size) != 2
        or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in size)
    ):
        raise TypeError(f"{name}: size must be a pair of ints (N, M), got {size!r}")
    if (int(size[0]), int(size[1])) != (inp.num_src, inp.num_dst):
        raise ValueError(  # PyG's x is both ends of every edge: size must be (N, N)
            f"{name}: size must be (N, N) = ({inp.num_src}, {inp.num_dst}) for x with "
            f"{inp.num_src} nodes, got {tuple(size)}"
        )
    return int(inp.num_dst)


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> RGATConv:
    """PyG ``RGATConv`` -> :class:`RGATConv`, weights copied (``aggr='add'``,
    ``flow='source_to_target'``)."""
    from arraygnn.nn.weights import _load, _pyg_aggr

    _pyg_aggr(module, "RGATConv", ("sum",))
    layer = RGATConv(
        module.in_channels,
        module.out_channels,
        module.num_relations,
        num_bases=module.num_bases,
        num_blocks=module.num_blocks,
        mod=module.mod,
        attention_mechanism=module.attention_mechanism,
        attention_mode=module.attention_mode,
        heads=module.heads,
        dim=module.dim,
        concat=bool(module.concat),
        negative_slope=module.negative_slope,
        dropout=module.dropout,
        edge_dim=module.edge_dim if module.lin_edge is not None else None,
        bias=module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
