"""A weight-free message-passing layer: PyG's ``SimpleConv``.

``x_i' = aggr_{j -> i} e_ji x_j``, then optionally combined with the target's own features:
``'sum'`` (``x_i + out_i``), ``'cat'`` (``[x_i, out_i]``) or ``'self_loop'`` (a loop of
weight 1 added at every node before aggregating, as PyG's ``add_self_loops``). One CSR, one
SpMM with the weights in the CSR's slot order (``sum`` / ``mean`` / ``max`` / ``min`` /
``mul``; a target without in-edges gets zeros, ones for ``mul``, as PyG): no per-edge feature
array is formed. PyG's other aggregations (a list of names, ``'std'``, ``'softmax'``, an
:mod:`arraygnn.nn.aggr` object, kept as ``aggr_module``) form the ``[E, F]`` messages and
group them by target, each target's in edge-id order (the added self-loops last).

>>> import numpy as np
>>> conv = SimpleConv(aggr="mean", combine_root="cat")
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_edge_weight, check_float_features, csr_of, parse_input
from arraygnn.nn._module import Module
from arraygnn.nn.sage_conv import _aggregation, _edge_id_order, module_aggregate

__all__ = ["SimpleConv"]

_AGGRS = {"sum": "sum", "add": "sum", "mean": "mean", "max": "max", "min": "min", "mul": "prod"}
_COMBINE = ("sum", "cat", "self_loop", None)


class SimpleConv(Module):
    r"""PyG's ``SimpleConv``: :math:`x_i' = \bigoplus_{j \in N(i)} e_{ji} x_j`.

    Args:
        aggr: ``'sum'`` (PyG's ``'add'`` too, default), ``'mean'``, ``'max'``, ``'min'`` or
            ``'mul'`` (the product; 1 for a target without in-edges, as PyG): one SpMM.
            PyG's others: a list of names (a ``MultiAggregation``, its ``'cat'`` output
            ``k`` times wider), another name (``'std'``, ``'softmax'``, ...) or an
            :mod:`arraygnn.nn.aggr` object (``aggr_module``; forms the ``[E, F]`` messages).
        combine_root: ``None`` (default), ``'sum'`` (add ``x_dst``), ``'cat'``
            (``[x_dst, out]``) or ``'self_loop'`` (aggregate over ``A + I``; homogeneous
            input only).

    Call as ``conv(x, edge_index, edge_weight=None, size=None)`` (``x`` may be a bipartite
    pair ``(x_src, x_dst)``, ``x_dst`` ``None`` with ``size``) or ``conv(graph, feat,
    edge_weight=None)``.

    Shapes:
        - input: x ``(N, F)`` or ``((N_src, F), (N_dst, F))``, edge_index ``(2, E)``,
          edge_weight ``(E,)`` (optional)
        - output: ``(N_dst, F)`` (``(N_dst, 2F)`` with ``'cat'``)

    No parameters (an empty state dict, as PyG's), but a learnt aggregation's
    (``aggr_module.*``, PyG's names).
    """

    _child_names = ("aggr_module",)

    def __init__(self, aggr: Any = "sum", combine_root: str | None = None) -> None:
        self.aggr_module = _aggregation(aggr, np.float32, "SimpleConv: aggr", tuple(_AGGRS))
        if combine_root not in _COMBINE:
            raise ValueError(
                "SimpleConv: combine_root must be 'sum', 'cat', 'self_loop' or None, got "
                f"{combine_root!r}"
            )
        self.aggr = aggr
        self.combine_root = combine_root

    def __call__(
        self,
        x_or_graph: Any,
        edge_index_or_feat: Any,
        edge_weight: Any = None,
        size: tuple[int, int] | None = None,
    ) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import spmm_slots, to_slot_order

        inp = parse_input("SimpleConv", x_or_graph, edge_index_or_feat, size)
        x = inp.x_src
        check_float_features("SimpleConv", x, what="node features (x_src)")
        check_float_features("SimpleConv", inp.x_dst, what="node features (x_dst)")
        check_edge_weight("SimpleConv", edge_weight, inp.num_edges)
        src, dst, w = inp.src, inp.dst, edge_weight
        order = None  # the general path's (indptr, perm, indices), edge-id order per target
        if self.combine_root == "self_loop":
            if not inp.homogeneous or inp.num_src != inp.num_dst:
                raise ValueError(
                    "SimpleConv: combine_root='self_loop' needs a homogeneous graph (not a "
                    "bipartite input)"
                )
            xp = get_namespace(x)
            idt = ids_dtype_holding(src.dtype, inp.num_src - 1)  # uint8 ids, 300 nodes
            loops = xp.arange(inp.num_src, dtype=idt)
            src = xp.concatenate([src.astype(idt, copy=False), loops])
            dst = xp.concatenate([dst.astype(idt, copy=False), loops])
            if w is not None:
                w = xp.concatenate([w, xp.ones(inp.num_src, dtype=w.dtype)])
            csr = ops.to_csr((src, dst), inp.num_src, inp.num_dst)  # stable: loops last
            order = (csr.indptr, csr.perm, csr.indices)
        elif self.aggr_module is not None:
            order = _edge_id_order(inp, get_namespace(x))
        else:  # the caller's CSR, the graph's cached one, or built once
            csr = csr_of(inp)
        if self.aggr_module is not None:
            out = module_aggregate(self.aggr_module, x, order, w, inp.num_dst)
        else:
            if w is not None:
                w = to_slot_order(csr, w)
            out = spmm_slots(csr, x, w, reduce=_AGGRS[self.aggr])
            if self.aggr == "mul":  # PyG's product of no messages is 1 (the kernel gives 0)
                out[csr.in_degrees() == 0] = 1
        x_dst = inp.x_dst
        if x_dst is not None and self.combine_root == "sum":
            if out.shape[-1] != x_dst.shape[-1]:  # PyG fails on the sum as well
                raise ValueError(
                    f"SimpleConv: the aggregation gives {out.shape[-1]} features per node but "
                    f"x_dst has {x_dst.shape[-1]} (a list of aggregations concatenates them): "
                    "combine_root='sum' cannot add them; use combine_root='cat'"
                )
            out = out + x_dst
        elif x_dst is not None and self.combine_root == "cat":
            # promoted as torch.cat does (float64 x_dst next to float32 messages: float64)
            out = get_namespace(out).concatenate([x_dst, out], axis=-1)
        return out

    def extra_repr(self) -> str:
        return f"aggr={self.aggr!r}, combine_root={self.combine_root!r}"
