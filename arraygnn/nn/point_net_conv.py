"""PointNet++ set abstraction (Qi et al., 2017): PyG's ``PointNetConv``.

``x_i' = global_nn(aggr_{j in N(i)} local_nn([x_j, pos_j - pos_i]))``, ``aggr`` ``'max'``
by default, a node without in-edges getting 0 (PyG's), ``x`` optional.

How it runs (no ``[E, F_in + D]`` concatenation is formed):

- ``local_nn`` starting with a ``Linear`` (a ``Linear``, a ``Sequential`` starting with
  one, an ``MLP``): its first layer goes to the nodes, ``W [x_j, pos_j - pos_i] + b =
  (W_x x_j + W_p pos_j) + (b - W_p pos_i)``: one product per source, one per target, and
  one SDDMM ``add`` gives every edge's first hidden layer (in the CSR's slot order). The
  rest of ``local_nn`` runs per edge (it is nonlinear); a segment reduction over the CSR
  rows aggregates the messages. On NumPy this runs over pieces of CSR rows holding about
  :data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` of hidden layer each, so the per-edge
  temporaries stay small.
- ``local_nn`` a single ``Linear``, or no ``local_nn``: every message is
  ``A[j] + B[i]``, so the aggregate is one SpMM of ``A`` plus ``B[i]`` (``deg_i B[i]`` for
  the sum): nothing per edge at all.
- any other ``local_nn``: the ``[E, F_in + D]`` messages are gathered as PyG does.

Rounding: ``W_p pos_j - W_p pos_i`` is computed instead of ``W_p (pos_j - pos_i)``; with
large coordinates and close neighbours (float32 positions in the thousands) centre the
positions first to keep the differences' digits.

>>> import numpy as np
>>> from arraygnn.nn import MLP
>>> conv = PointNetConv(MLP([2 + 3, 8, 4], rng=0), add_self_loops=True)
>>> x = np.ones((3, 2), np.float32)
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
    add_into,
    affine_aggregate,
    aggr_name,
    aggregate_split,
    check_loops_flag,
    check_nets,
    point_csr,
    point_pair,
    split_net,
)
from arraygnn.nn.linear import _check_features, matmul

__all__ = ["PointNetConv"]


class PointNetConv(Module):
    """PyG's ``PointNetConv``: the PointNet++ set abstraction layer.

    Args:
        local_nn: an arraygnn module mapping the ``(E, F_in + D)`` messages
            ``[x_j, pos_j - pos_i]`` to ``(E, C)``; ``None`` keeps the messages.
        global_nn: an arraygnn module applied to the aggregated ``(N_dst, C)``; ``None``:
            none.
        add_self_loops: drop the graph's self-loops and add one per node (PyG's default;
            for a bipartite input to the first ``min(N_src, N_dst)`` nodes, as PyG).
        aggr: ``'max'`` (PyG's default), ``'add'`` / ``'sum'``, ``'mean'``, ``'min'`` (a
            node without in-edges gets 0).

    Call as ``conv(x, pos, edge_index)`` with ``x`` ``(N, F_in)`` or ``None``, or
    bipartite ``conv((x_src, x_dst), (pos_src, pos_dst), edge_index)`` (``x_dst`` is
    not read, as in PyG, and may be ``None``; so may ``x_src``). ``edge_index`` is an
    integer ``(2, E)`` array, or a CSR from ``arraygnn.ops.to_csr`` with
    ``add_self_loops=False``. Names (PyG): ``local_nn.*``, ``global_nn.*``; ``from_pyg``
    converts a PyG ``PointNetConv`` (its ``local_nn`` / ``global_nn`` being torch
    ``Sequential`` / ``Linear`` / PyG ``MLP``).

    Shapes:
        input:  x (N_src, F_in) or None, pos (N, D) or ((N_src, D), (N_dst, D)), edge_index (2, E)
        output: (N_dst, C), C the width of global_nn(local_nn(.)) (F_in + D without either)
    """

    _child_names = ("local_nn", "global_nn")

    def __init__(
        self,
        local_nn: Module | None = None,
        global_nn: Module | None = None,
        add_self_loops: bool = True,
        aggr: str = "max",
    ) -> None:
        layer = type(self).__name__
        check_nets(layer, True, local_nn=local_nn, global_nn=global_nn)
        self.add_self_loops = check_loops_flag(layer, add_self_loops)
        self.aggr = aggr_name(layer, aggr)
        self.local_nn = local_nn
        self.global_nn = global_nn

    def __call__(self, x: Any, pos: Any, edge_index: Any) -> Any:
        from arraygnn import ops

        layer = "PointNetConv"
        pos_src, pos_dst = point_pair(layer, "pos", pos, allow_none=False)
        x_src, _ = point_pair(layer, "x", x, allow_none=True)
        if pos_src.shape[1] != pos_dst.shape[1]:
            raise ValueError(
                f"{layer}: pos_src and pos_dst must have one width, got {pos_src.shape[1]} "
                f"and {pos_dst.shape[1]}"
            )
        num_src, num_dst = int(pos_src.shape[0]), int(pos_dst.shape[0])
        if x_src is not None and int(x_src.shape[0]) != num_src:
            raise ValueError(
                f"{layer}: x has {x_src.shape[0]} rows but pos has {num_src} (source) rows"
            )
        get_namespace(pos_src, pos_dst, *(() if x_src is None else (x_src,)))
        loops = min(num_src, num_dst) if self.add_self_loops else None
        csr = point_csr(layer, edge_index, num_src, num_dst, loops)
        xp = get_namespace(pos_src)
        width = 0 if x_src is None else int(x_src.shape[1])
        dim = int(pos_src.shape[1])
        what = f"[x_j, pos_j - pos_i] ({width} + {dim} columns)"
        split = split_net(layer, "local_nn", self.local_nn, width + dim, what)
        if split is not None:
            first, rest = split
            _check_features(pos_src, dim, f"{layer} pos", first.weight)  # one device
            w_x, w_p = first.weight[:, :width], first.weight[:, width:]
            at_src = matmul(pos_src, w_p.T)
            if x_src is not None:
                at_src = add_into(matmul(x_src, w_x.T), at_src)
            at_dst = -matmul(pos_dst, w_p.T)
            if first.bias is not None:
                at_dst = add_into(at_dst, first.bias)
            # local_nn a single Linear: every message is at_src[j] + at_dst[i] (rest None)
            rest = None if self.local_nn is first else rest
            out = aggregate_split(csr, at_src, at_dst, rest, self.aggr)
        elif self.local_nn is None:  # [x_j, pos_j] + [0, -pos_i]
            parts = [pos_src] if x_src is None else [x_src, pos_src]
            dtype = np.result_type(*[p.dtype for p in parts])
            at_src = xp.concatenate([p.astype(dtype, copy=False) for p in parts], axis=1)
            at_dst = xp.zeros((num_dst, width + dim), dtype=dtype)
            at_dst[:, width:] = -pos_dst
            out = affine_aggregate(csr, at_src, at_dst, self.aggr)
        else:
            from arraygnn.ops.slot_order import to_slot_order

            src, dst = to_slot_order(csr, csr.src), to_slot_order(csr, csr.dst)
            diff = ops.gather(pos_src, src) - ops.gather(pos_dst, dst)
            msg = diff if x_src is None else xp.concatenate([ops.gather(x_src, src), diff], 1)
            out = ops.segment(self.local_nn(msg), csr.indptr, reduce=self.aggr)
        if self.global_nn is not None:
            out = self.global_nn(out)
        return out

    def extra_repr(self) -> str:
        return (
            f"local_nn={self.local_nn!r}, global_nn={self.global_nn!r}, "
            f"add_self_loops={self.add_self_loops}, aggr={self.aggr!r}"
        )
