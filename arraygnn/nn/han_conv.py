"""The heterogeneous graph attention layer (Wang et al., 2019), PyG's ``HANConv``.

Per node type, ``h = proj[type](x)`` (``heads`` heads of ``D = out / heads``). Per edge type
``r = (s, rel, d)`` (a metapath), GAT-style node-level attention with the relation's own
vectors: ``alpha_e = softmax_{edges of r into i}(LeakyReLU(<h_j, a_src[r]> + <h_i, a_dst[r]>))``,
``z_i^r = ReLU(sum_e alpha_e h_j)``. Per destination type, semantic attention over its
relations: ``w_r = q . mean_i tanh(k_lin(z_i^r))``, ``beta = softmax_r(w)``,
``out_i = sum_r beta_r z_i^r``.

How it runs: the scores ``<h, a>`` are one ``einsum`` per relation and side, over nodes;
each relation's attention is three engine ops on one CSR, with every ``[E, heads]`` array in
slot order (``arraygnn.ops.slot_order``): an SDDMM ``add`` of the two node scores, an edge
softmax, a weighted SpMM. No ``[E, heads, D]`` message array is formed (PyG's ``message``
builds one per relation). The semantic attention is one dense ``k_lin`` product per relation.

>>> import numpy as np
>>> meta = (["paper", "author"], [("author", "writes", "paper"), ("paper", "cites", "paper")])
>>> conv = HANConv({"paper": 8, "author": 4}, 8, meta, heads=2, rng=0)
>>> x = {"paper": np.ones((3, 8), np.float32), "author": np.ones((2, 4), np.float32)}
>>> ei = {meta[1][0]: np.array([[0, 1], [2, 2]]), meta[1][1]: np.array([[0], [1]])}
>>> out = conv(x, ei)
>>> out["paper"].shape, out["author"] is None
((3, 8), True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._graph_input import check_metadata, csr_of, parse_input
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.hetero_conv import _ModuleDict
from arraygnn.nn.hgt_conv import _ArrayDict, _edge_key
from arraygnn.nn.linear import Linear, _relu, _rng, _tanh, glorot

__all__ = ["HANConv", "semantic_attention"]


def semantic_attention(outs: list[Any], q: Any, k_lin: Linear) -> tuple[Any, Any]:
    """PyG's ``group``: ``(sum_r beta_r outs[r], beta)`` with
    ``beta = softmax_r(sum_f q_f mean_i tanh(k_lin(outs[r]))_if)``; ``(None, None)`` for no
    relations, ``((0, F), None)`` for no rows."""
    if not outs:
        return None, None
    xp = get_namespace(*outs)
    if outs[0].size == 0:
        return xp.zeros((0, outs[0].shape[-1]), dtype=outs[0].dtype), None
    # per relation (no [R, N, F] stack): the mean key, then one weighted sum
    score = xp.stack([(q[0] * _tanh(k_lin(z)).mean(axis=0)).sum() for z in outs])  # [R]
    score = xp.exp(score - score.max())
    beta = score / score.sum()
    out = outs[0] * beta[0]
    for r in range(1, len(outs)):
        out += outs[r] * beta[r]
    return out, beta


class HANConv(Module):
    """PyG's ``HANConv``: node-level attention per edge type, semantic attention per node type.

    Args:
        in_channels: one input size for every node type, or ``{node_type: size}``.
        out_channels: output size (divisible by ``heads``).
        metadata: ``(node_types, edge_types)``, edge types as ``(src, rel, dst)`` triples
            (PyG's ``data.metadata()``).
        heads: attention heads.
        negative_slope: the LeakyReLU slope of the node-level scores.
        dropout: accepted for PyG's signature; inference only, so never applied.

    Call as ``conv(x_dict, edge_index_dict, return_semantic_attention_weights=False)``:
    ``x_dict[type]`` ``(N_type, in)``, ``edge_index_dict[(s, rel, d)]`` ``(2, E)`` integer
    ids (or an ``arraygnn.ops.CSR``), edge types from ``metadata``; a type left out simply
    adds no relation. Returns ``{node_type: (N_type, out) or None}`` for every type in
    ``x_dict`` (``None`` where no given edge type points at it, as PyG); with
    ``return_semantic_attention_weights=True`` also ``{node_type: beta}``, ``beta``
    ``(num_relations_into_type,)`` in ``edge_index_dict``'s order (``None`` where there is
    no relation or no row).

    Names (PyG): ``proj.<type>.weight`` / ``.bias``, ``lin_src.<src__rel__dst>`` /
    ``lin_dst.<...>`` ``(1, heads, D)``, ``k_lin.weight`` / ``.bias`` ``(out, out)``,
    ``q`` ``(1, out)``.
    """

    _param_names = ("q",)
    _child_names = ("proj", "lin_src", "lin_dst", "k_lin")

    def __init__(
        self,
        in_channels: int | Mapping[str, int],
        out_channels: int,
        metadata: tuple[Sequence[str], Sequence[tuple[str, str, str]]],
        heads: int = 1,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HANConv"
        self.node_types, self.edge_types = check_metadata(layer, metadata)
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        self.heads = layer_size(layer, "heads", heads, minimum=1)
        if self.out_channels % self.heads:
            raise ValueError(
                f"{layer}: out_channels ({self.out_channels}) must be divisible by heads "
                f"({self.heads})"
            )
        self.negative_slope = float(negative_slope)
        self.dropout = probability(layer, "dropout", dropout)
        if not isinstance(in_channels, Mapping):
            in_channels = {t: in_channels for t in self.node_types}
        gen = _rng(rng)
        f, h = self.out_channels, self.heads
        d = f // h
        self.proj = _ModuleDict(
            {
                t: Linear(layer_size(layer, f"in_channels[{t!r}]", n), f, dtype=dtype, rng=gen)
                for t, n in in_channels.items()
            },
            f"{layer}.load_state_dict",
        )
        self.lin_src = _ArrayDict(
            {_edge_key(et): glorot((1, h, d), gen, dtype) for et in self.edge_types}
        )
        self.lin_dst = _ArrayDict(
            {_edge_key(et): glorot((1, h, d), gen, dtype) for et in self.edge_types}
        )
        self.k_lin = Linear(f, f, dtype=dtype, rng=gen)
        self.q = glorot((1, f), gen, dtype)

    def __call__(
        self,
        x_dict: Mapping[str, Any],
        edge_index_dict: Mapping[Any, Any],
        return_semantic_attention_weights: bool = False,
    ) -> Any:
        from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

        layer = "HANConv"
        if not isinstance(x_dict, Mapping) or not isinstance(edge_index_dict, Mapping):
            raise TypeError(f"{layer}: call as conv(x_dict, edge_index_dict) with two dicts")
        f, h = self.out_channels, self.heads
        d = f // h
        projected, outs = {}, {}
        for t, x in x_dict.items():
            if t not in self.proj._items:
                raise ValueError(
                    f"{layer}: x_dict has node type {t!r}, which has no projection (node "
                    f"types: {list(self.proj._items)})"
                )
            projected[t] = self.proj._items[t](x).reshape(-1, h, d)
            outs[t] = []
        for et, ei in edge_index_dict.items():
            et = tuple(et)
            key = _edge_key(et) if len(et) == 3 else None
            if key is None or key not in self.lin_src._items:
                raise ValueError(f"{layer}: edge type {et!r} is not in metadata")
            s, _, t = et
            if s not in projected or t not in projected:
                missing = s if s not in projected else t
                raise ValueError(f"{layer}: edge type {et!r} needs x_dict[{missing!r}]")
            where = f"{layer} (edge type {et!r})"
            inp = parse_input(where, (projected[s], projected[t]), ei)
            xp = get_namespace(projected[s])
            a_src = xp.einsum("nhd,hd->nh", projected[s], self.lin_src[key][0])  # [N_src, H]
            a_dst = xp.einsum("nhd,hd->nh", projected[t], self.lin_dst[key][0])  # [N_dst, H]
            csr = csr_of(inp)
            logits = sddmm_slots(csr, a_src, a_dst, op="add", lhs_target="u", rhs_target="v")
            alpha = edge_softmax_slots(csr, leaky_relu_(logits, self.negative_slope))
            out = spmm_slots(csr, projected[s], alpha)  # [N_dst, H, D]
            outs[t].append(_relu(out.reshape(inp.num_dst, f)))
        out_dict, beta_dict = {}, {}
        for t, rel_outs in outs.items():
            out_dict[t], beta_dict[t] = semantic_attention(rel_outs, self.q, self.k_lin)
        if return_semantic_attention_weights:
            return out_dict, beta_dict
        return out_dict

    def extra_repr(self) -> str:
        return f"{self.out_channels}, heads={self.heads}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> HANConv:
    """PyG's ``HANConv`` with its weights (lazy ``-1`` sizes from the materialised
    projections)."""
    from arraygnn.nn.weights import _lazy_sizes, _load

    sizes = {t: _lazy_sizes("HANConv", lin.in_channels, lin) for t, lin in module.proj.items()}
    layer = HANConv(
        sizes,
        module.out_channels,
        (list(module.metadata[0]), [tuple(et) for et in module.metadata[1]]),
        heads=module.heads,
        negative_slope=module.negative_slope,
        dropout=module.dropout,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
