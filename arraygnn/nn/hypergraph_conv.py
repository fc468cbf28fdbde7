"""The hypergraph convolution (Bai et al., 2019), PyG's ``HypergraphConv``.

``X' = D^-1 H W B^-1 H^T X Theta`` for the incidence matrix ``H`` (``hyperedge_index``: row 0
node ids, row 1 hyperedge ids), ``D`` the node degrees weighted by ``hyperedge_weight``
(``W``), ``B`` the hyperedge sizes; ``1 / 0`` is taken as 0 (PyG's rule). As in PyG,
``hyperedge_weight`` enters through ``D`` only. With ``use_attention``, each incidence
``(v, e)`` gets ``alpha = softmax(LeakyReLU(<[x_v, h_e], att>))`` per head (``h_e`` the
projected ``hyperedge_attr``), normalised over each hyperedge's nodes
(``attention_mode='node'``) or each node's hyperedges (``'edge'``), and scales both passes.

How it runs: the incidences are sorted once each way (``ops.to_csr`` by hyperedge and by
node); node -> hyperedge and hyperedge -> node are two fused SpMMs (the attention weights as
``[incidences, heads]`` edge weights), ``B`` and ``D`` a row pointer difference and one
SpMM of the weights; the scores are per-node and per-hyperedge dot products joined by one
SDDMM ``add`` and normalised by an edge softmax. No ``[incidences, heads, F]`` array (PyG's
``message`` builds one in each pass).

>>> import numpy as np
>>> conv = HypergraphConv(4, 3, rng=0)
>>> hyperedge_index = np.array([[0, 1, 2, 1, 3], [0, 0, 0, 1, 1]])  # two hyperedges
>>> conv(np.ones((4, 4), np.float32), hyperedge_index).shape
(4, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._attention import leaky_relu_
from arraygnn.nn._graph_input import check_edge_weight
from arraygnn.nn._module import Module, layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, glorot
from arraygnn.ops._common import check_index, check_size

__all__ = ["HypergraphConv"]


def _inverse(values: Any) -> Any:
    """``1 / values`` with ``+inf`` (a zero) replaced by 0, as PyG."""
    xp = get_namespace(values)
    with np.errstate(divide="ignore"):
        inv = 1.0 / values
    return xp.where(inv == np.inf, inv.dtype.type(0), inv)


class HypergraphConv(Module):
    """PyG's ``HypergraphConv``, with or without attention.

    Args:
        in_channels: input size.
        out_channels: output size (per head with attention).
        use_attention: attention over the incidences (needs ``hyperedge_attr`` in the call).
        attention_mode: ``'node'`` (softmax over each hyperedge's nodes, default) or
            ``'edge'`` (over each node's hyperedges).
        heads: attention heads (``use_attention`` only; otherwise 1, as PyG).
        concat: concatenate the heads or average them (``use_attention`` only).
        negative_slope: the LeakyReLU slope of the scores.
        dropout: accepted for PyG's signature; inference only, so never applied.
        bias: an output bias (``heads * out`` with ``concat``, as PyG sizes it).

    Call as ``conv(x, hyperedge_index, hyperedge_weight=None, hyperedge_attr=None,
    num_edges=None)``. The hyperedge count ``M`` is ``num_edges``, else the length of
    ``hyperedge_weight``, else the rows of ``hyperedge_attr``, else PyG's
    ``hyperedge_index[1].max() + 1``; hyperedges beyond the largest id are empty and change
    nothing.

    Shapes:
        - input: x ``(N, in)``, hyperedge_index ``(2, I)``, hyperedge_weight ``(M,)``,
          hyperedge_attr ``(M, in)``
        - output: ``(N, heads * out)`` (attention with ``concat``) or ``(N, out)``

    Names (PyG): ``lin.weight`` ``(heads * out, in)``, ``att`` ``(1, heads, 2 * out)``
    (attention only), ``bias``.
    """

    _param_names = ("att", "bias")
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        use_attention: bool = False,
        attention_mode: str = "node",
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "HypergraphConv"
        if attention_mode not in ("node", "edge"):
            raise ValueError(
                f"{layer}: attention_mode must be 'node' or 'edge', got {attention_mode!r}"
            )
        self.in_channels = layer_size(layer, "in_channels", in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels, minimum=1)
        heads = layer_size(layer, "heads", heads, minimum=1)
        self.use_attention = bool(use_attention)
        self.attention_mode = attention_mode
        self.negative_slope = float(negative_slope)
        self.dropout = probability(layer, "dropout", dropout)
        self.heads = heads if self.use_attention else 1
        self.concat = bool(concat) if self.use_attention else True
        gen = _rng(rng)
        self.lin = Linear(
            self.in_channels, self.heads * self.out_channels, False, dtype=dtype, rng=gen
        )
        self.att = None
        if self.use_attention:
            self.att = glorot((1, self.heads, 2 * self.out_channels), gen, dtype)
        bias_size = heads * self.out_channels if concat else self.out_channels  # PyG's sizes
        if bias and bias_size != self.out_size:
            raise ValueError(
                f"{layer}: use_attention=False with heads={heads} and concat=True gives a "
                f"bias of {bias_size} for {self.out_size} outputs (PyG cannot add it either); "
                "pass heads=1"
            )
        self.bias = np.zeros(bias_size, dtype) if bias else None

    @property
    def out_size(self) -> int:
        """Output features per node."""
        return self.heads * self.out_channels if self.concat else self.out_channels

    def __call__(
        self,
        x: Any,
        hyperedge_index: Any,
        hyperedge_weight: Any = None,
        hyperedge_attr: Any = None,
        num_edges: int | None = None,
    ) -> Any:
        from arraygnn import ops

        layer = "HypergraphConv"
        _check_features(x, self.in_channels, f"{layer} x", self.lin.weight)
        if x.ndim != 2:
            raise ValueError(f"{layer}: x must be (N, {self.in_channels}), got {x.shape}")
        xp = get_namespace(x)
        if not is_array(hyperedge_index) or get_namespace(hyperedge_index) is not xp:
            raise TypeError(
                f"{layer}: hyperedge_index must be an array on x's device, got "
                f"{type(hyperedge_index).__name__}"
            )
        if hyperedge_index.ndim != 2 or hyperedge_index.shape[0] != 2:
            raise ValueError(
                f"{layer}: hyperedge_index must have shape (2, num_incidences), got "
                f"{tuple(hyperedge_index.shape)}"
            )
        nodes, hedges = hyperedge_index[0], hyperedge_index[1]
        n = int(x.shape[0])
        check_index(f"{layer}: hyperedge_index[0] (node ids)", nodes, n)
        if self.use_attention and hyperedge_attr is None:
            raise ValueError(f"{layer}(use_attention=True) needs hyperedge_attr")
        if num_edges is not None:
            m = check_size(f"{layer}: num_edges", num_edges)
        elif hyperedge_weight is not None and is_array(hyperedge_weight):
            m = int(hyperedge_weight.shape[0])
        elif self.use_attention and is_array(hyperedge_attr):
            m = int(hyperedge_attr.shape[0])
        else:  # PyG's rule
            m = int(hedges.max()) + 1 if hedges.shape[0] else 0
        check_index(f"{layer}: hyperedge_index[1] (hyperedge ids)", hedges, m)
        check_edge_weight(f"{layer} (hyperedge_weight)", hyperedge_weight, m)
        h, f = self.heads, self.out_channels
        out = self.lin(x)
        by_edge = ops.to_csr((nodes, hedges), n, m)  # incidences sorted by hyperedge
        by_node = ops.to_csr((hedges, nodes), m, n)  # ... and by node
        alpha = None
        if self.use_attention:
            _check_features(hyperedge_attr, self.in_channels, f"{layer} hyperedge_attr")
            if hyperedge_attr.ndim != 2 or int(hyperedge_attr.shape[0]) != m:
                raise ValueError(
                    f"{layer}: hyperedge_attr must be ({m}, {self.in_channels}) for {m} "
                    f"hyperedges, got {tuple(hyperedge_attr.shape)}"
                )
            out = out.reshape(n, h, f)
            he = self.lin(hyperedge_attr).reshape(m, h, f)
            s_node = xp.einsum("nhf,hf->nh", out, self.att[0, :, :f])
            s_edge = xp.einsum("mhf,hf->mh", he, self.att[0, :, f:])
            logits = ops.sddmm(by_edge, s_node, s_edge, op="add")  # [I, H], incidence order
            logits = leaky_relu_(logits, self.negative_slope)
            alpha = ops.edge_softmax(by_edge if self.attention_mode == "node" else by_node, logits)
        if hyperedge_weight is None:
            hyperedge_weight = xp.ones(m, dtype=x.dtype)
        deg_node = _inverse(ops.spmm(by_node, hyperedge_weight, num_dst_nodes=n))  # D^-1
        size_edge = _inverse(by_edge.in_degrees().astype(out.dtype))  # B^-1
        shape = (-1,) + (1,) * (out.ndim - 1)
        out = ops.spmm(by_edge, out, alpha) * size_edge.reshape(shape)  # nodes -> hyperedges
        out = ops.spmm(by_node, out, alpha)  # hyperedges -> nodes
        out *= deg_node.astype(out.dtype, copy=False).reshape(shape)
        if self.use_attention:
            out = out.reshape(n, h * f) if self.concat else out.mean(axis=1)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, use_attention={self.use_attention}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> HypergraphConv:
    """PyG's ``HypergraphConv`` with its weights."""
    from arraygnn.nn.weights import _lazy_sizes, _load, _pyg_aggr

    _pyg_aggr(module, "HypergraphConv", ("sum",))
    heads = module.heads
    concat = module.concat
    if not module.use_attention and module.bias is not None:  # PyG's bias size: the args'
        concat = module.bias.numel() != module.out_channels
    layer = HypergraphConv(
        _lazy_sizes("HypergraphConv", module.in_channels, module.lin),
        module.out_channels,
        use_attention=module.use_attention,
        attention_mode=getattr(module, "attention_mode", "node"),
        heads=heads,
        concat=concat,
        negative_slope=getattr(module, "negative_slope", 0.2),
        dropout=getattr(module, "dropout", 0.0),
        bias=module.bias is not None,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
