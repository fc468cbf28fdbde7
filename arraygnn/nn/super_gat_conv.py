"""Self-supervised graph attention (Kim & Oh, SuperGAT): PyG's ``SuperGATConv`` at inference.

The attention of an edge ``j -> i`` is GAT's with a dot-product term:

- ``'MX'``: ``e_ij = (a_l . h_j + a_r . h_i) * sigmoid(h_i . h_j)``;
- ``'SD'``: ``e_ij = h_i . h_j / sqrt(F)``;

then ``LeakyReLU``, a softmax over each target's incoming edges (self-loops replaced by one
per node when ``add_self_loops``) and ``h_i' = sum_j alpha_ij h_j``. The path that runs, as
``GATConv``'s (the scores, the softmax and the weights stay in the CSR's slot order):
``h = x W`` (``[N, H, F]``), per-node scores ``a_l . h`` / ``a_r . h`` (``[N, H]``), one SDDMM
``u_add_v`` and one SDDMM ``dot`` (``[E, H]`` each), ``edge_softmax``, one weighted SpMM.
Edge memory ``O(E * H)``; PyG gathers ``[E, H, F]`` twice.

Inference only: PyG's training-time self-supervision (negative sampling, ``att_x`` /
``att_y`` and ``get_attention_loss()``) is not provided; in eval mode PyG does none of it.

>>> import numpy as np
>>> conv = SuperGATConv(4, 2, heads=3, attention_type="SD", rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._attention import GraphAttention, leaky_relu_
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import Linear, _check_features, _rng, _sigmoid, glorot
from arraygnn.nn.sgc import propagation_input

__all__ = ["SuperGATConv"]

_TYPES = ("MX", "SD")


def one_node_set_input(layer: str, first: Any, second: Any) -> Any:
    """The parsed input of a PyG layer that takes one node feature matrix (``(x,
    edge_index)`` or ``(graph, feat)``): a bipartite pair is a ``ValueError`` naming
    ``layer``; the rest as :func:`arraygnn.nn.sgc.propagation_input` (one node set,
    floating-point ``[N, F]`` features, ids in range)."""
    if isinstance(first, (tuple, list)) or isinstance(second, (tuple, list)):
        raise ValueError(
            f"{layer}: bipartite inputs (x_src, x_dst) are not supported (PyG's {layer} "
            "takes one node feature matrix)"
        )
    return propagation_input(layer, first, second)


class SuperGATConv(GraphAttention):
    r"""SuperGAT's attention layer (PyG's ``SuperGATConv``), evaluated as in ``model.eval()``.

    .. math::
        e_{ij}^{MX} = (a_l^\top W x_j + a_r^\top W x_i)\,\sigma\big((W x_i)^\top W x_j\big),
        \quad e_{ij}^{SD} = \frac{(W x_i)^\top W x_j}{\sqrt{F}},
        \quad h_i' = \Vert_{k=1}^{H} \sum_j \mathrm{softmax}_j(\mathrm{LeakyReLU}(e_{ij}))
            W^k x_j + b

    Args:
        in_channels: input size.
        out_channels: output size ``F`` per head.
        heads: number of attention heads.
        concat: ``True`` -> ``[N, H * F]``; ``False`` -> mean over heads ``[N, F]``.
        negative_slope: leaky-ReLU slope (0.2).
        dropout: PyG's attention dropout; kept for the signature, no effect at inference.
        add_self_loops: drop existing self-loops and add one per node (default ``True``).
        bias: additive bias (``H * F`` with ``concat``, else ``F``).
        attention_type: ``'MX'`` (default) or ``'SD'``.
        neg_sample_ratio, edge_sample_ratio, is_undirected: PyG's self-supervision
            settings, checked as PyG does and kept; unused at inference.

    Call as ``conv(x, edge_index)`` or ``conv(graph, feat)`` (a homogeneous graph: PyG's layer
    takes one node feature matrix). PyG's ``neg_edge_index`` / ``batch`` arguments are
    accepted and ignored (they only feed the training loss).
    ``return_attention_weights=True`` also returns ``(edge_index, alpha)`` as ``GATConv``:
    the ``(2, E')`` edges attended over (self-loops replaced when the layer adds them) and
    their ``(E', heads)`` attention (PyG computes the same values but does not return them).

    Shapes:
        - input: ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, heads * out_channels)`` or ``(N, out_channels)``
        - edge memory: ``(E, heads)`` floats

    Parameter names (PyG): ``lin.weight`` ``(H*F, in)``, ``att_l`` / ``att_r`` ``(1, H, F)``
    (``'MX'`` only), ``bias``.
    """

    _param_names = ("att_l", "att_r", "bias")
    _child_names = ("lin",)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        add_self_loops: bool = True,
        bias: bool = True,
        attention_type: str = "MX",
        neg_sample_ratio: float = 0.5,
        edge_sample_ratio: float = 1.0,
        is_undirected: bool = False,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "SuperGATConv"
        if attention_type not in _TYPES:
            raise ValueError(f"{name}: attention_type must be 'MX' or 'SD', got {attention_type!r}")
        if not isinstance(concat, (bool, np.bool_)):
            raise TypeError(f"{name}: concat must be True or False, got {concat!r}")
        if not (0.0 < neg_sample_ratio and 0.0 < edge_sample_ratio <= 1.0):
            raise ValueError(
                f"{name}: neg_sample_ratio must be > 0 and edge_sample_ratio in (0, 1], got "
                f"{neg_sample_ratio!r} and {edge_sample_ratio!r}"
            )
        gen = _rng(rng)
        self._setup(
            heads, out_channels, bool(concat), negative_slope, add_self_loops, None, "mean",
            False, None, True,
        )  # fmt: skip
        self.in_src = self.in_dst = layer_size(name, "in_channels", in_channels)
        self.attention_type = attention_type
        self.dropout = probability(name, "dropout", dropout)
        self.neg_sample_ratio = float(neg_sample_ratio)
        self.edge_sample_ratio = float(edge_sample_ratio)
        self.is_undirected = bool(is_undirected)
        H, F = self.heads, self.out_feats
        self.lin = Linear(self.in_src, H * F, False, dtype=dtype, rng=gen)
        self.att_l = self.att_r = None
        if attention_type == "MX":
            self.att_l = glorot((1, H, F), gen, dtype)
            self.att_r = glorot((1, H, F), gen, dtype)
        self._setup_output(self.in_dst, bias, gen, dtype)

    def __call__(
        self,
        graph_or_x: Any,
        feat_or_edge_index: Any,
        neg_edge_index: Any = None,
        batch: Any = None,
        *,
        return_attention_weights: bool = False,
    ) -> Any:
        """The layer's output (and ``(edge_index, alpha)`` when asked for); see the class
        docstring. ``neg_edge_index`` and ``batch`` are PyG's training-only inputs."""
        from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

        name = "SuperGATConv"
        inp = one_node_set_input(name, graph_or_x, feat_or_edge_index)
        _check_features(inp.x_src, self.in_src, f"{name} node features", self.lin.weight)
        xp = get_namespace(inp.x_src)
        H, F = self.heads, self.out_feats
        h = self.lin(inp.x_src).reshape(inp.num_src, H, F)
        edge_index, _, csr = self._attention_graph(inp, None)
        # h_i . h_j per head, in slot order ([E, H, 1] -> [E, H])
        dot = sddmm_slots(csr, h, h, op="dot", lhs_target="v", rhs_target="u")
        dot = dot.reshape(csr.num_edges, H)
        if self.attention_type == "MX":
            el = xp.einsum("nhf,hf->nh", h, self.att_l[0])  # a_l . h_j (sources)
            er = xp.einsum("nhf,hf->nh", h, self.att_r[0])  # a_r . h_i (targets)
            logits = sddmm_slots(csr, el, er, op="add", lhs_target="u", rhs_target="v")
            logits *= _sigmoid(dot)
        else:
            logits = dot / dot.dtype.type(np.sqrt(F))
        logits = leaky_relu_(logits, self.negative_slope)
        alpha = edge_softmax_slots(csr, logits)  # [E, H]
        out = spmm_slots(csr, h, alpha)  # [N, H, F]
        return self._finish(out, inp, None, csr, alpha, edge_index, return_attention_weights, False)

    def extra_repr(self) -> str:
        return (
            f"{self.in_src}, {self.out_feats}, heads={self.heads}, concat={self.concat}, "
            f"type={self.attention_type}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> SuperGATConv:
    """PyG ``SuperGATConv`` -> :class:`SuperGATConv`, weights copied (its ``aggr`` must be
    ``'add'``, its ``flow`` ``'source_to_target'``)."""
    from arraygnn.nn.weights import _lazy_sizes, _load, _pyg_aggr

    kind = "SuperGATConv"
    _pyg_aggr(module, kind, ("sum",))
    layer = SuperGATConv(
        _lazy_sizes(kind, module.in_channels, module.lin),
        module.out_channels,
        module.heads,
        bool(module.concat),
        module.negative_slope,
        module.dropout,
        module.add_self_loops,
        module.bias is not None,
        module.attention_type,
        module.neg_sample_ratio,
        module.edge_sample_ratio,
        module.is_undirected,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
