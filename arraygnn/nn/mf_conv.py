"""Molecular-fingerprint convolution (Duvenaud et al., 2015): PyG's ``MFConv``.

``x_i' = W_1^(deg i) x_i + W_2^(deg i) sum_{j in N(i)} x_j``, one pair of weights per
in-degree ``0 .. max_degree`` (degrees above ``max_degree`` share the last pair).

How it runs: one SpMM aggregates the sources (no per-edge array), the in-degrees are the
CSR's row lengths, and the targets are grouped by clamped degree with one stable sort;
each group is then two BLAS products with its own weights (``max_degree + 1`` groups at
most, nothing per node in Python).

>>> import numpy as np
>>> conv = MFConv(4, 3, max_degree=2, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 2]])).shape
(3, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn.edge_conv import _AGGRS
from arraygnn.nn.linear import Linear, _check_features, _ModuleList, _rng, matmul

__all__ = ["MFConv"]


class MFConv(Module):
    """PyG's ``MFConv``.

    Args:
        in_channels: an int, or ``(in_src, in_dst)`` for a bipartite graph.
        out_channels: the output size.
        max_degree: degrees ``0 .. max_degree`` get their own weights (PyG's default 10).
        bias: a bias in each ``lins_l`` layer (``lins_r`` have none, as PyG).
        aggr: ``'add'`` (PyG's default), ``'mean'``, ``'max'`` or ``'min'`` (PyG's
            ``aggr=`` keyword; a node without in-edges aggregates to 0).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)``,
    ``conv((x_src, None), edge_index, size=(N_src, N_dst))`` (no root term, as PyG),
    ``conv(graph, feat)``; a CSR from ``arraygnn.ops.to_csr`` may stand in for
    ``edge_index``. Names (PyG): ``lins_l.<d>.weight`` / ``.bias``, ``lins_r.<d>.weight``.

    Shapes:
        input:  x (N_src, in_src) or ((N_src, in_src), (N_dst, in_dst)), edge_index (2, E)
        output: (N_dst, out_channels)
    """

    _child_names = ("lins_l", "lins_r")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        max_degree: int = 10,
        bias: bool = True,
        aggr: str = "add",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "MFConv"
        self.in_channels, in_src, in_dst = channels_pair(name, in_channels)
        self.out_channels = layer_size(name, "out_channels", out_channels)
        self.max_degree = layer_size(name, "max_degree", max_degree)
        if aggr not in _AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.aggr = _AGGRS[aggr]
        self.in_src, self.in_dst = in_src, in_dst
        gen = _rng(rng)
        count = self.max_degree + 1
        out = self.out_channels
        self.lins_l = _ModuleList(
            [Linear(in_src, out, bias, dtype=dtype, rng=gen) for _ in range(count)]
        )
        self.lins_r = _ModuleList(
            [Linear(in_dst, out, False, dtype=dtype, rng=gen) for _ in range(count)]
        )

    def __call__(self, x: Any, edge_index: Any, size: Any = None) -> Any:
        from arraygnn import ops

        layer = "MFConv"
        inp = parse_input(layer, x, edge_index, size)
        weight = self.lins_l[0].weight
        _check_features(inp.x_src, self.in_src, f"{layer} x_src", weight)
        if inp.x_dst is not None:
            _check_features(inp.x_dst, self.in_dst, f"{layer} x_dst", weight)
        if any(v is not None and v.ndim != 2 for v in (inp.x_src, inp.x_dst)):
            raise ValueError(f"{layer}: node features must be (N, F)")
        csr = csr_of(inp)
        h = ops.spmm(csr, inp.x_src, reduce=self.aggr)
        xp = get_namespace(h)
        deg = xp.minimum(csr.in_degrees(), self.max_degree)
        order = xp.argsort(deg)  # the order within a degree does not matter
        counts = xp.bincount(deg, minlength=self.max_degree + 1)
        ptr = np.concatenate([[0], np.cumsum(np.asarray(counts.tolist(), dtype=np.int64))])
        dtype = np.result_type(h.dtype, weight.dtype)
        out = xp.empty((inp.num_dst, self.out_channels), dtype=dtype)
        for d in range(self.max_degree + 1):
            if ptr[d] == ptr[d + 1]:
                continue
            idx = order[int(ptr[d]) : int(ptr[d + 1])]
            rows = self.lins_l[d](h[idx])
            if inp.x_dst is not None:
                rows = rows + matmul(inp.x_dst[idx], self.lins_r[d].weight.T)
            out[idx] = rows
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, max_degree={self.max_degree}"
