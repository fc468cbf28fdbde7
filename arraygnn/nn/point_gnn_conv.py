"""The Point-GNN layer (Shi and Rajkumar, 2020): PyG's ``PointGNNConv``.

``x_i' = x_i + mlp_g(aggr_{j in N(i)} mlp_f([pos_j - pos_i + mlp_h(x_i), x_j]))``,
``aggr`` ``'max'`` by default (a node without in-edges aggregates to 0, PyG's).

How it runs (no ``[E, D + F]`` concatenation is formed when ``mlp_f`` starts with a
``Linear``): its first layer goes to the nodes, ``W [pos_j - pos_i + h_i, x_j] + b =
(W_p pos_j + W_x x_j) + (W_p (h_i - pos_i) + b)``, one product per source and one per
target, then :class:`~arraygnn.nn.PointNetConv`'s paths: an SDDMM ``add`` gives each
edge's first hidden layer and the rest of ``mlp_f`` runs per edge, over pieces of CSR
rows holding about :data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` each; an ``mlp_f``
that is a single ``Linear`` needs nothing per edge (one SpMM). Any other ``mlp_f`` gets
the concatenated messages per piece, as in PyG. ``mlp_h`` and ``mlp_g`` run per node.
Rounding: ``W_p pos_j - W_p pos_i`` replaces ``W_p (pos_j - pos_i)``; centre large float32
coordinates first.

>>> import numpy as np
>>> from arraygnn.nn import MLP
>>> conv = PointGNNConv(MLP([4, 8, 3], rng=0), MLP([3 + 4, 8, 6], rng=1), MLP([6, 8, 4], rng=2))
>>> x = np.ones((3, 4), np.float32)
>>> pos = np.arange(9, dtype=np.float32).reshape(3, 3)
>>> conv(x, pos, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module
from arraygnn.nn._point_cloud import (
    aggr_name,
    aggregate_split,
    check_nets,
    point_csr,
    point_pair,
    rows_of,
    split_net,
)
from arraygnn.nn.linear import matmul

__all__ = ["PointGNNConv"]


class PointGNNConv(Module):
    """PyG's ``PointGNNConv``.

    Args:
        mlp_h: an arraygnn module mapping ``x`` ``(N, F)`` to offsets ``(N, D)``.
        mlp_f: an arraygnn module mapping the ``(E, D + F)`` messages to ``(E, C)``.
        mlp_g: an arraygnn module mapping the aggregated ``(N, C)`` to ``(N, F)``.
        aggr: ``'max'`` (PyG's default), ``'add'`` / ``'sum'``, ``'mean'``, ``'min'``.

    Call as ``conv(x, pos, edge_index)`` (one node set; PyG's layer takes no bipartite
    input), ``edge_index`` an integer ``(2, E)`` array or a CSR from
    ``arraygnn.ops.to_csr``. No self-loops are added (PyG adds none). Names (PyG):
    ``mlp_h.*``, ``mlp_f.*``, ``mlp_g.*``; ``from_pyg`` converts a PyG ``PointGNNConv``.
    ``mlp_f`` must work row by row (every converted net in eval mode does).

    Shapes:
        input:  x (N, F), pos (N, D), edge_index (2, E)
        output: (N, F)
    """

    _child_names = ("mlp_h", "mlp_f", "mlp_g")

    def __init__(self, mlp_h: Module, mlp_f: Module, mlp_g: Module, aggr: str = "max") -> None:
        layer = type(self).__name__
        check_nets(layer, False, mlp_h=mlp_h, mlp_f=mlp_f, mlp_g=mlp_g)
        self.aggr = aggr_name(layer, aggr)
        self.mlp_h, self.mlp_f, self.mlp_g = mlp_h, mlp_f, mlp_g

    def __call__(self, x: Any, pos: Any, edge_index: Any) -> Any:
        from arraygnn import ops
        from arraygnn.nn._row_chunks import map_row_chunks
        from arraygnn.ops.slot_order import sddmm_slots, to_slot_order

        layer = "PointGNNConv"
        for name, v in (("x", x), ("pos", pos)):
            if isinstance(v, (tuple, list)):
                raise TypeError(f"{layer}: {name} must be one array (PyG's layer is not bipartite)")
        x, _ = point_pair(layer, "x", x, allow_none=False)
        pos, _ = point_pair(layer, "pos", pos, allow_none=False)
        num = int(pos.shape[0])
        rows_of(layer, "x", x, num, "pos")
        xp = get_namespace(x, pos)
        csr = point_csr(layer, edge_index, num, num, None)
        dim, width = int(pos.shape[1]), int(x.shape[1])
        split_net(layer, "mlp_h", self.mlp_h, width, "x")
        delta = self.mlp_h(x)
        if delta.ndim != 2 or int(delta.shape[1]) != dim:
            raise ValueError(
                f"{layer}: mlp_h must map x to offsets of the positions' width {dim}, got "
                f"shape {tuple(delta.shape)}"
            )
        what = f"[pos_j - pos_i + mlp_h(x_i), x_j] ({dim} + {width} columns)"
        split = split_net(layer, "mlp_f", self.mlp_f, dim + width, what)
        if split is not None:
            first, rest = split
            w_p, w_x = first.weight[:, :dim].T, first.weight[:, dim:].T
            at_src = matmul(pos, w_p) + matmul(x, w_x)
            at_dst = matmul(delta - pos, w_p)
            if first.bias is not None:
                at_dst = at_dst + first.bias
            out = aggregate_split(
                csr, at_src, at_dst, None if self.mlp_f is first else rest, self.aggr
            )
        else:
            mlp_f, aggr = self.mlp_f, self.aggr

            def rows(part: Any, start: int, stop: int, first_slot: int, last: int) -> Any:
                off = sddmm_slots(part, pos, pos[start:stop], "sub", "u", "v")
                off = off + ops.gather(delta[start:stop], to_slot_order(part, part.dst))
                msg = mlp_f(xp.concatenate([off, ops.gather(x, part.indices)], axis=1))
                return ops.segment(msg, part.indptr, reduce=aggr)

            row_bytes = (dim + width) * np.dtype(x.dtype).itemsize
            out = map_row_chunks(csr, row_bytes, rows)
        update = self.mlp_g(out)
        try:
            np.broadcast_shapes(tuple(x.shape), tuple(update.shape))  # x + update, as PyG
        except ValueError:
            raise ValueError(
                f"{layer}: mlp_g must map the aggregated messages to x's shape "
                f"{tuple(x.shape)} (x + mlp_g(.)), got {tuple(update.shape)}"
            ) from None
        return x + update

    def extra_repr(self) -> str:
        return f"aggr={self.aggr!r}"


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> PointGNNConv:
    """PyG's ``PointGNNConv`` as the arraygnn layer (its nets converted by ``convert``)."""
    from arraygnn.nn.weights import _pyg_aggr

    aggr = _pyg_aggr(module, "PointGNNConv", ("sum", "mean", "max", "min"))
    return PointGNNConv(
        convert(module.mlp_h), convert(module.mlp_f), convert(module.mlp_g), aggr=aggr
    )
