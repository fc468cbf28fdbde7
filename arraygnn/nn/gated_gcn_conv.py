"""DGL's ``GatedGCNConv`` (Bresson and Laurent; "Benchmarking GNNs", Dwivedi et al.).

Per edge ``e = (j -> i)``: ``e' = D h_j + E h_i + C e``, the new edge features (DGL's
code: ``u_add_v`` of ``D h`` and ``E h``, the source's first; its docstring's formula has
them the other way round), gates ``s = sigmoid(e')``; per node
``h'_i = A h_i + (sum_j s_e * B h_j) / (sum_j s_e + 1e-6)``; then batch norm (running
statistics), the activation and the residual, on nodes and edges alike. Dropout is the
identity at inference.

How it runs: ``D h`` and ``E h`` are projected per node and added per edge by one SDDMM
(``u_add_v``): the ``[E, F]`` array is the layer's edge output itself. The gated sum is
one SpMM whose ``[E, F]`` weights scale each feature of ``B h_j`` (no ``[E, F]``
messages), the gate total one scatter.

>>> import numpy as np
>>> conv = GatedGCNConv(4, 3, 4, rng=0)
>>> h, e = conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]]),
...             np.ones((3, 3), np.float32))
>>> h.shape, e.shape
((3, 4), (3, 4))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.nn._dgl_common import DGLModule, check_edge_feat, homogeneous_input
from arraygnn.nn._graph_input import csr_of
from arraygnn.nn._module import layer_size, probability
from arraygnn.nn.linear import BatchNorm, Linear, _check_features, _rng, _sigmoid, get_activation

__all__ = ["GatedGCNConv"]


class GatedGCNConv(DGLModule):
    r"""DGL's ``GatedGCNConv`` (inference), DGL's parameter names.

    .. math::
        e'_{ij} = D h_j + E h_i + C e_{ij},\quad
        h'_i = A h_i + \frac{\sum_j \sigma(e'_{ij}) \odot B h_j}{\sum_j \sigma(e'_{ij})
        + 10^{-6}}

    Args:
        input_feats, edge_feats, output_feats: sizes.
        dropout: a probability in ``[0, 1]``, ignored (the identity at inference).
        batch_norm: batch norm (running statistics) on the new node and edge features.
        residual: add the inputs (dropped, as DGL, unless both input sizes equal
            ``output_feats``).
        activation: applied to nodes and edges after the norm (DGL's default ``F.relu``:
            ``'relu'``); ``None`` for none.

    Call as ``conv(graph, feat, edge_feat)`` or ``conv(x, edge_index, edge_feat)`` (one
    node set, as DGL's). A node without in-edges gets ``A h_i`` before the norm.

    Returns ``(h, e)``: ``(N, output_feats)`` and ``(E, output_feats)`` (edge order).

    Names (DGL's): ``A`` ... ``E`` Linears (``A.weight`` ``(out, in)``, ``C.weight``
    ``(out, edge_feats)``, with biases), ``bn_node.*`` / ``bn_edge.*`` (always present).
    """

    _child_names = ("A", "B", "C", "D", "E", "bn_node", "bn_edge")

    def __init__(
        self,
        input_feats: int,
        edge_feats: int,
        output_feats: int,
        dropout: float = 0.0,
        batch_norm: bool = True,
        residual: bool = True,
        activation: Any = "relu",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "GatedGCNConv"
        self.input_feats = layer_size(layer, "input_feats", input_feats)
        self.edge_feats = layer_size(layer, "edge_feats", edge_feats)
        self.output_feats = layer_size(layer, "output_feats", output_feats)
        self.dropout = probability(layer, "dropout", dropout)
        self.batch_norm = bool(batch_norm)
        self.residual = bool(residual) and self.input_feats == self.output_feats == self.edge_feats
        self.activation = get_activation(activation)
        gen = _rng(rng)
        fin, fout = self.input_feats, self.output_feats
        self.A = Linear(fin, fout, dtype=dtype, rng=gen)
        self.B = Linear(fin, fout, dtype=dtype, rng=gen)
        self.D = Linear(fin, fout, dtype=dtype, rng=gen)
        self.E = Linear(fin, fout, dtype=dtype, rng=gen)
        self.C = Linear(self.edge_feats, fout, dtype=dtype, rng=gen)
        self.bn_node = BatchNorm(fout, dtype=dtype)
        self.bn_edge = BatchNorm(fout, dtype=dtype)

    def __call__(self, graph_or_x: Any, feat_or_edge_index: Any, edge_feat: Any = None) -> Any:
        from arraygnn import ops

        layer = "GatedGCNConv"
        inp = homogeneous_input(layer, graph_or_x, feat_or_edge_index)
        x = inp.x_src
        _check_features(x, self.input_feats, f"{layer} node features", self.A.weight)
        if x.ndim != 2:
            raise ValueError(f"{layer}: feat must be [num_nodes, input_feats], got {x.shape}")
        edge_feat = check_edge_feat(
            layer, "edge_feat", edge_feat, inp.num_edges, self.edge_feats, x
        )
        csr = csr_of(inp)
        e = ops.sddmm(csr, self.D(x), self.E(x), op="add")  # [E, F]: D h_src + E h_dst
        e += self.C(edge_feat).astype(e.dtype, copy=False)
        sigma = _sigmoid(e)
        bh = self.B(x)
        gated = ops.spmm(csr, bh[:, :, None], edge_weight=sigma)[:, :, 0]  # [N, F]
        total = ops.scatter(sigma, inp.dst, inp.num_dst, reduce="sum")
        h = self.A(x) + gated / (total + total.dtype.type(1e-6))
        if self.batch_norm:
            h, e = self.bn_node(h), self.bn_edge(e)
        if self.activation is not None:
            h, e = self.activation(h), self.activation(e)
        if self.residual:
            h, e = x + h, edge_feat + e
        return h, e

    def extra_repr(self) -> str:
        return f"{self.input_feats}, {self.edge_feats}, {self.output_feats}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> GatedGCNConv:
    """DGL's ``GatedGCNConv`` -> :class:`GatedGCNConv` with its weights (and the norms'
    ``eps``)."""
    from arraygnn.nn.weights import _activation, _load

    layer = GatedGCNConv(
        module.A.in_features,
        module.C.in_features,
        module.A.out_features,
        batch_norm=bool(module.batch_norm),
        residual=bool(module.residual),
        activation=_activation(module.activation, "from_dgl: GatedGCNConv"),
        dtype=dtype,
    )
    for ours, theirs in ((layer.bn_node, module.bn_node), (layer.bn_edge, module.bn_edge)):
        if not theirs.track_running_stats or not theirs.affine:
            raise ValueError(
                "from_dgl: GatedGCNConv needs its batch norms' running statistics and affine "
                "weights (the defaults)"
            )
        ours.eps = float(theirs.eps)
    return _load(layer, module, "dgl")
