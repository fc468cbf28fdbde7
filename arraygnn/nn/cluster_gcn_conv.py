"""Cluster-GCN's graph convolution (Chiang et al., 2019): PyG's ``ClusterGCNConv``.

``X' = (Â + lambda diag(Â)) X W_out + X W_root`` with ``Â = (D + I)^-1 (A + I)``: every
edge into ``i`` weighs ``1 / deg(i)`` (``deg`` the in-degree counted over the graph with
its loops, clamped at 1) and a self-loop ``i -> i`` weighs ``(1 + lambda) / deg(i)``.

How it runs: those weights are a row scaling, so no per-edge weight is formed:
``Â X + lambda diag(Â) X = deg^-1 (A X) + lambda deg^-1 c X`` with ``c_i`` the number of
loops on ``i`` (1 each after ``add_self_loops``): one unweighted SpMM over the
destination-sorted CSR plus per-node scalings. The SpMM runs on the narrower side of
``W_out`` (``(Â X) W_out`` or ``Â (X W_out)``, the same numbers up to rounding).
``1 / deg`` and the loop weight ``1 / deg + lambda / deg`` are rounded to float32 for
every feature dtype, as PyG's (its ``degree()`` counts in torch's default dtype).

RULE: with ``add_self_loops=False`` every loop edge ``i -> i`` of the graph gets
``lambda / deg(i)`` on top (the diagonal of ``Â`` as the formula has it). PyG 2.8 pairs
the loop edges with the nodes by position there and raises unless the graph holds
exactly ``N`` loops; where it runs with one loop per node listed in node order, the
numbers are the same.

>>> import numpy as np
>>> conv = ClusterGCNConv(4, 2, diag_lambda=0.5, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, matmul
from arraygnn.nn.sgc import propagation_input
from arraygnn.utils.loops import remaining_self_loops_pairs

__all__ = ["ClusterGCNConv"]


class ClusterGCNConv(Module):
    r"""PyG's ``ClusterGCNConv``:
    :math:`X' = (\hat A + \lambda\, \mathrm{diag}(\hat A)) X W_{out} + X W_{root}`,
    :math:`\hat A = (D + I)^{-1} (A + I)`.

    Args:
        in_channels / out_channels: sizes.
        diag_lambda: the diagonal enhancement ``lambda`` (default 0).
        add_self_loops: drop the graph's self-loops and add one per node (default ``True``).
        bias: a bias in ``lin_out``.

    Call as ``conv(x, edge_index)`` or ``conv(graph, feat)`` (a homogeneous graph; PyG's
    forward takes no edge weights).

    Shapes:
        - input: x ``(N, in_channels)``, edge_index ``(2, E)``
        - output: ``(N, out_channels)``

    Names (PyG): ``lin_out.weight`` ``(out, in)``, ``lin_out.bias``, ``lin_root.weight``.
    """

    _child_names = ("lin_out", "lin_root")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        diag_lambda: float = 0.0,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("ClusterGCNConv", "in_channels", in_channels)
        self.out_channels = layer_size("ClusterGCNConv", "out_channels", out_channels)
        self.diag_lambda = float(diag_lambda)
        self.add_self_loops = bool(add_self_loops)
        gen = _rng(rng)
        self.lin_out = Linear(self.in_channels, self.out_channels, bias, dtype=dtype, rng=gen)
        self.lin_root = Linear(self.in_channels, self.out_channels, False, dtype=dtype, rng=gen)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import spmm_slots

        layer = "ClusterGCNConv"
        inp = propagation_input(layer, x_or_graph, edge_index_or_feat)
        x = inp.x_src
        _check_features(x, self.in_channels, f"{layer} x", self.lin_out.weight)
        n = inp.num_src
        src, dst = inp.src, inp.dst
        if self.add_self_loops:
            src, dst, _ = remaining_self_loops_pairs(src, dst, None, n)
        csr = ops.to_csr((src, dst), n, n)
        narrow = self.out_channels < self.in_channels
        h = matmul(x, self.lin_out.weight.T) if narrow else x  # propagate the narrower side
        agg = spmm_slots(csr, h, None)
        xp = get_namespace(agg)
        # PyG's 1 / deg and loop weight 1 / deg + lambda / deg are float32 (degree()'s dtype)
        inv32 = np.float32(1) / xp.maximum(csr.in_degrees(), 1).astype(np.float32)
        agg *= inv32.astype(agg.dtype)[:, None]
        if self.diag_lambda != 0.0:
            extra = (inv32 + np.float32(self.diag_lambda) * inv32).astype(agg.dtype) - inv32
            if not self.add_self_loops:  # each loop edge i -> i adds to row i
                count = ops.scatter((src == dst).astype(agg.dtype), dst, n)
                extra = extra * count
            agg += extra.astype(agg.dtype)[:, None] * h
        out = agg if narrow else matmul(agg, self.lin_out.weight.T)
        if self.lin_out.bias is not None:
            out = add_bias(out, self.lin_out.bias)
        return add_bias(out, self.lin_root(x))

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, diag_lambda={self.diag_lambda}"
