"""DGL's ``EGATConv``: graph attention that reads and writes edge features
(Rossmann-Toolbox, Kaminski et al.).

Per edge ``e = (j -> i)`` and head ``h``:
``f'_e = LeakyReLU(W_ni h_j + W_nj h_i + W_fij f_e + b)`` (the new edge features, slope
0.01), ``a_e = softmax_i(attn_h . f'_e)`` and ``h'_i = sum_j a_e W_node h_j``.

How it runs: ``W_ni h`` and ``W_nj h`` are projected once per node and added per edge by
one SDDMM (``u_add_v``), so the ``[E, H, F_edge]`` array formed is the layer's edge
output itself; the scores are ``[E, H]``, the softmax is the engine's ``edge_softmax``
and the node output is one weighted SpMM over the source projections (no
``[E, H, F_node]`` messages).

>>> import numpy as np
>>> conv = EGATConv(4, 3, 5, 2, num_heads=2, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> h, f = conv(np.ones((3, 4), np.float32), ei, np.ones((3, 3), np.float32))
>>> h.shape, f.shape
((3, 2, 5), (3, 2, 2))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._dgl_common import DGLModule, check_edge_feat
from arraygnn.nn._graph_input import (
    check_edge_weight,
    check_float_features,
    check_zero_in_degree,
    csr_of,
    parse_input,
)
from arraygnn.nn._module import _pair, is_size, layer_size
from arraygnn.nn.linear import Linear, _check_features, _leaky_relu, _rng, add_bias, glorot

__all__ = ["EGATConv"]


class EGATConv(DGLModule):
    r"""DGL's ``EGATConv`` (inference), DGL's parameter names.

    .. math::
        f'_{ij} = \mathrm{LeakyReLU}(A [h_i \Vert f_{ij} \Vert h_j]),\quad
        \alpha_{ij} = \mathrm{softmax}_i(F \cdot f'_{ij}),\quad
        h'_i = \sum_j \alpha_{ij} W h_j

    Args:
        in_node_feats: node feature size, or ``(src_size, dst_size)`` for a bipartite graph.
        in_edge_feats: edge feature size.
        out_node_feats, out_edge_feats: output sizes per head.
        num_heads: attention heads ``H``.
        bias: the edge bias ``b`` (DGL's ``bias``).

    Call as ``conv(graph, nfeats, efeats, edge_weight=None, get_attention=False)`` with a
    homogeneous graph, a bipartite graph and a pair ``(feat_src, feat_dst)``, or a block;
    or ``conv(x, edge_index, efeats)`` / ``conv((x_src, x_dst), edge_index, efeats)``.
    ``edge_weight`` ``(E,)`` multiplies each edge's attention after the softmax (DGL's).
    A destination node without in-edges is a ``ValueError``, as DGL's (the layer has no
    ``allow_zero_in_degree``).

    Returns ``(h, f)``: ``h`` ``(N_dst, H, out_node_feats)``, ``f`` ``(E, H, out_edge_feats)``
    in edge order; with ``get_attention=True`` also the attention ``(E, H, 1)``.

    Names (DGL's): ``fc_node_src.weight`` ``(H*out_node, in_src)``, ``fc_ni.weight``
    ``(H*out_edge, in_src)``, ``fc_nj.weight`` ``(H*out_edge, in_dst)``, ``fc_fij.weight``
    ``(H*out_edge, in_edge)``, ``attn`` ``(1, H, out_edge)``, ``bias`` ``(H*out_edge,)``.
    """

    _param_names = ("attn", "bias")
    _child_names = ("fc_node_src", "fc_ni", "fc_nj", "fc_fij")

    def __init__(
        self,
        in_node_feats: int | tuple[int, int],
        in_edge_feats: int,
        out_node_feats: int,
        out_edge_feats: int,
        num_heads: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "EGATConv"
        if is_size(in_node_feats):
            self.in_src = self.in_dst = layer_size(layer, "in_node_feats", in_node_feats)
        else:
            self.in_src, self.in_dst = _pair(layer, in_node_feats)
        self.in_edge_feats = layer_size(layer, "in_edge_feats", in_edge_feats)
        self.out_node_feats = layer_size(layer, "out_node_feats", out_node_feats)
        self.out_edge_feats = layer_size(layer, "out_edge_feats", out_edge_feats)
        self.num_heads = layer_size(layer, "num_heads", num_heads, minimum=1)
        gen = _rng(rng)
        h, fn, fe = self.num_heads, self.out_node_feats, self.out_edge_feats
        self.fc_node_src = Linear(self.in_src, h * fn, False, dtype=dtype, rng=gen)
        self.fc_ni = Linear(self.in_src, h * fe, False, dtype=dtype, rng=gen)
        self.fc_nj = Linear(self.in_dst, h * fe, False, dtype=dtype, rng=gen)
        self.fc_fij = Linear(self.in_edge_feats, h * fe, False, dtype=dtype, rng=gen)
        self.attn = glorot((1, h, fe), gen, dtype)
        self.bias = np.zeros(h * fe, dtype=dtype) if bias else None

    def __call__(
        self,
        graph_or_x: Any,
        nfeats_or_edge_index: Any,
        efeats: Any = None,
        edge_weight: Any = None,
        get_attention: bool = False,
    ) -> Any:
        from arraygnn import ops

        layer = "EGATConv"
        inp = parse_input(layer, graph_or_x, nfeats_or_edge_index)
        if inp.x_dst is None:
            raise ValueError(f"{layer}: destination features are needed (fc_nj reads them)")
        _check_features(inp.x_src, self.in_src, f"{layer} source features", self.attn)
        _check_features(inp.x_dst, self.in_dst, f"{layer} destination features", self.attn)
        check_float_features(layer, inp.x_src, inp.x_dst)  # DGL's Linears refuse integers
        efeats = check_edge_feat(
            layer, "efeats", efeats, inp.num_edges, self.in_edge_feats, inp.x_src
        )
        check_edge_weight(layer, edge_weight, inp.num_edges)
        if edge_weight is not None:
            get_namespace(inp.x_src, edge_weight)  # TypeError on a NumPy / CuPy mix
        csr = csr_of(inp)
        check_zero_in_degree(layer, csr.in_degrees())
        xp = get_namespace(inp.x_src)
        h, fe = self.num_heads, self.out_edge_feats
        f_out = ops.sddmm(csr, self.fc_ni(inp.x_src), self.fc_nj(inp.x_dst), op="add")
        f_out += self.fc_fij(efeats).astype(f_out.dtype, copy=False)
        if self.bias is not None:
            f_out = add_bias(f_out, self.bias)
        f_out = _leaky_relu(f_out, 0.01).reshape(inp.num_edges, h, fe)  # [E, H, F_edge]
        scores = xp.einsum("ehf,hf->eh", f_out, self.attn[0].astype(f_out.dtype))
        alpha = ops.edge_softmax(csr, scores)  # [E, H], edge order
        if edge_weight is not None:
            alpha = alpha * edge_weight.astype(alpha.dtype, copy=False)[:, None]
        h_src = self.fc_node_src(inp.x_src).reshape(inp.num_src, h, self.out_node_feats)
        out = ops.spmm(csr, h_src, edge_weight=alpha)  # [N_dst, H, F_node], no messages
        if get_attention:
            return out, f_out, alpha[:, :, None]
        return out, f_out

    def extra_repr(self) -> str:
        return (
            f"({self.in_src}, {self.in_dst}), {self.in_edge_feats}, {self.out_node_feats}, "
            f"{self.out_edge_feats}, num_heads={self.num_heads}"
        )


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> EGATConv:
    """DGL's ``EGATConv`` -> :class:`EGATConv` with its weights."""
    from arraygnn.nn.weights import _load

    src, dst = module._in_src_node_feats, module._in_dst_node_feats
    layer = EGATConv(
        src if src == dst and module.fc_nj.in_features == src else (src, dst),
        module.fc_fij.in_features,
        module._out_node_feats,
        module._out_edge_feats,
        module._num_heads,
        bias=module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "dgl")
