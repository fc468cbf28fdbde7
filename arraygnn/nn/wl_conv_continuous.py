"""Continuous Weisfeiler-Lehman refinement (Togninalli et al., 2019), PyG's
``WLConvContinuous``.

``x_i' = (x_i + (1 / deg_i) sum_{j -> i} e_ji x_j) / 2`` with ``deg_i`` the sum of the
weights into ``i`` (the edge count without weights); ``1 / 0`` is taken as 0, so a node
without in-edges gets ``x_i / 2``. With ``x_dst`` ``None`` (a bipartite call) only the
weighted mean is returned, as PyG.

How it runs: one weighted SpMM (``ops.spmm``, fused, no ``[E, F]`` messages) and one
``ops.scatter`` of the weights for the degrees.

>>> import numpy as np
>>> conv = WLConvContinuous()
>>> x = np.array([[1.0], [3.0], [5.0]])
>>> conv(x, np.array([[0, 1], [2, 2]])).ravel().tolist()
[0.5, 1.5, 3.5]
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import (
    check_edge_weight,
    check_float_features,
    csr_of,
    parse_input,
)
from arraygnn.nn._module import Module
from arraygnn.nn.hypergraph_conv import _inverse

__all__ = ["WLConvContinuous"]


class WLConvContinuous(Module):
    """PyG's ``WLConvContinuous``: the average of a node and its in-neighbours' weighted mean.

    Call as ``conv(x, edge_index, edge_weight=None, size=None)`` (``x`` may be a pair
    ``(x_src, x_dst)``, ``x_dst`` ``None`` with ``size``; a CSR from ``ops.to_csr`` may
    stand in for ``edge_index``) or ``conv(graph, feat, edge_weight=None)``.

    Shapes:
        - input: x ``(N, F)`` or ``((N_src, F), (N_dst, F))``, edge_weight ``(E,)``
        - output: ``(N_dst, F)``

    Features must be floating point (a ``TypeError`` otherwise; PyG turns integer rows
    into float32). No parameters (an empty state dict, as PyG's).
    """

    def __call__(self, x: Any, edge_index: Any, edge_weight: Any = None, size: Any = None) -> Any:
        from arraygnn import ops

        layer = "WLConvContinuous"
        inp = parse_input(layer, x, edge_index, size)
        # integer rows would be averaged in integer arithmetic (PyG promotes to float32)
        check_float_features(layer, inp.x_src, inp.x_dst)
        check_edge_weight(layer, edge_weight, inp.num_edges)
        xp = get_namespace(inp.x_src)
        csr = csr_of(inp)
        out = ops.spmm(csr, inp.x_src, edge_weight, num_dst_nodes=inp.num_dst)
        if edge_weight is None:
            deg = csr.in_degrees().astype(inp.x_src.dtype)
        else:
            deg = ops.scatter(edge_weight, xp.asarray(inp.dst), inp.num_dst, "sum")
        out = (
            _inverse(deg).astype(out.dtype, copy=False).reshape((-1,) + (1,) * (out.ndim - 1)) * out
        )
        if inp.x_dst is not None:
            out = out.dtype.type(0.5) * (inp.x_dst + out)
        return out

    def extra_repr(self) -> str:
        return ""


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> WLConvContinuous:
    """PyG's ``WLConvContinuous`` (no weights; PyG's ``aggr`` must be its ``'add'``)."""
    from arraygnn.nn.weights import _pyg_aggr

    _pyg_aggr(module, "WLConvContinuous", ("sum",))
    return WLConvContinuous()
