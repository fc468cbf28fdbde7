"""DGL's ``CFConv``: SchNet's continuous-filter convolution (Schütt et al.).

``h'_i = ssp(W_out (sum_j (W_node h_j + b) * filter(e_ji)) + b_out)`` with the filter
``ssp(W_2 ssp(W_1 e + b_1) + b_2)`` and ``ssp(x) = softplus(x) - log 2`` (the shifted
softplus). Named ``DGLCFConv``: PyG's SchNet has a ``CFConv`` with other inputs and
weights (a cosine cutoff on distances, ``lin1`` / ``lin2``).

How it runs: the filters ``[E, hidden]`` are the edge network's output (formed once); the
aggregation is one SpMM whose ``[E, hidden]`` weights scale each feature of the projected
sources (DGL's ``u_mul_e`` + ``sum``): no ``[E, hidden]`` messages.

>>> import numpy as np
>>> conv = DGLCFConv(4, 3, 8, 2, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]]),
...      np.ones((3, 3), np.float32)).shape
(3, 2)
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.nn._dgl_common import DGLModule, check_edge_feat, shifted_softplus
from arraygnn.nn._graph_input import check_float_features, csr_of, is_graph, parse_input
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, Sequential, _check_features, _rng

__all__ = ["DGLCFConv"]


class DGLCFConv(DGLModule):
    r"""DGL's ``CFConv`` (inference), DGL's parameter names.

    .. math::
        h_i' = \mathrm{ssp}\Big(W_{out} \sum_j (W_{node} h_j + b) \odot
        \mathrm{ssp}(W_2\, \mathrm{ssp}(W_1 e_{ji} + b_1) + b_2) + b_{out}\Big)

    Args:
        node_in_feats, edge_in_feats, hidden_feats, out_feats: sizes.
        softplus: ``(beta, shift, threshold)`` of the shifted softplus (DGL's
            ``ShiftedSoftplus()`` defaults ``(1, 2, 20)``).

    Call as ``conv(graph, node_feats, edge_feats)`` with a homogeneous graph, a bipartite
    graph and ``(feat_src, feat_dst)`` or ``feat_src`` alone (only the sources are read, as
    DGL), or a block; or
    ``conv(x, edge_index, edge_feats)``. A node without in-edges gets ``ssp(b_out)``.

    Shapes:
        - input: node_feats ``(N_src, node_in_feats)``, edge_feats ``(E, edge_in_feats)``
        - output: ``(N_dst, out_feats)``

    Names (DGL's): ``project_edge.0`` / ``project_edge.2``, ``project_node``,
    ``project_out.0`` (Linears, with biases).
    """

    _child_names = ("project_edge", "project_node", "project_out")

    def __init__(
        self,
        node_in_feats: int,
        edge_in_feats: int,
        hidden_feats: int,
        out_feats: int,
        *,
        softplus: tuple[float, float, float] = (1.0, 2.0, 20.0),
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "DGLCFConv"
        self.node_in_feats = layer_size(layer, "node_in_feats", node_in_feats)
        self.edge_in_feats = layer_size(layer, "edge_in_feats", edge_in_feats)
        self.hidden_feats = layer_size(layer, "hidden_feats", hidden_feats)
        self.out_feats = layer_size(layer, "out_feats", out_feats)
        beta, shift, threshold = (float(v) for v in softplus)
        if not (beta > 0 and shift > 0):
            raise ValueError(f"{layer}: softplus beta and shift must be > 0, got {softplus}")
        self.softplus = (beta, shift, threshold)
        ssp = partial(shifted_softplus, beta=beta, shift=shift, threshold=threshold)
        gen = _rng(rng)
        hid = self.hidden_feats
        self.project_edge = Sequential(
            Linear(self.edge_in_feats, hid, dtype=dtype, rng=gen),
            ssp,
            Linear(hid, hid, dtype=dtype, rng=gen),
            ssp,
        )
        self.project_node = Linear(self.node_in_feats, hid, dtype=dtype, rng=gen)
        self.project_out = Sequential(Linear(hid, self.out_feats, dtype=dtype, rng=gen), ssp)

    def __call__(self, graph_or_x: Any, node_feats_or_edge_index: Any, edge_feats: Any) -> Any:
        from arraygnn import ops

        layer = "DGLCFConv"
        feats = node_feats_or_edge_index
        if is_graph(graph_or_x) and is_array(feats) and not getattr(graph_or_x, "is_block", 0):
            g = graph_or_x
            n_dst = int(g.number_of_dst_nodes())
            if hasattr(g, "number_of_src_nodes") and int(g.number_of_src_nodes()) != n_dst:
                # DGL reads g.srcdata only: one array on a bipartite graph is the sources;
                # the destination side is an unused zero-copy placeholder
                xp = get_namespace(feats)
                pad = xp.zeros((1,) + tuple(feats.shape[1:]), feats.dtype)
                feats = (feats, xp.broadcast_to(pad, (n_dst,) + tuple(feats.shape[1:])))
        inp = parse_input(layer, graph_or_x, feats)
        x = inp.x_src
        _check_features(x, self.node_in_feats, f"{layer} node_feats", self.project_node.weight)
        check_float_features(layer, x)  # DGL's Linears refuse integers
        if x.ndim != 2:
            raise ValueError(f"{layer}: node_feats must be [num_nodes, features], got {x.shape}")
        edge_feats = check_edge_feat(
            layer, "edge_feats", edge_feats, inp.num_edges, self.edge_in_feats, x
        )
        hv = self.project_node(x)  # [N_src, hidden]
        he = self.project_edge(edge_feats)  # [E, hidden] filters, edge order
        h = ops.spmm(csr_of(inp), hv[:, :, None], edge_weight=he)[:, :, 0]
        return self.project_out(h)

    def extra_repr(self) -> str:
        return f"{self.node_in_feats}, {self.edge_in_feats}, {self.hidden_feats}, {self.out_feats}"


def from_dgl_module(module: Any, dtype: Any, convert: Any) -> DGLCFConv:
    """DGL's ``CFConv`` -> :class:`DGLCFConv` with its weights (the shifted softplus's
    settings read from its three ``ShiftedSoftplus`` steps, which must agree)."""
    from arraygnn.nn.weights import _load

    ssps = [module.project_edge[1], module.project_edge[3], module.project_out[1]]
    settings = {(float(s.softplus.beta), float(s.shift), float(s.softplus.threshold)) for s in ssps}
    if len(settings) != 1:
        raise ValueError("from_dgl: CFConv with different shifted softplus settings per step")
    layer = DGLCFConv(
        module.project_node.in_features,
        module.project_edge[0].in_features,
        module.project_node.out_features,
        module.project_out[0].out_features,
        softplus=settings.pop(),
        dtype=dtype,
    )
    return _load(layer, module, "dgl")
