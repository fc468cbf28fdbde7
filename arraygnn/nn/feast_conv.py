"""Feature-steered graph convolution (Verma et al., 2018): PyG's ``FeaStConv``.

``x_i' = mean_{j -> i} sum_h q_h(x_i, x_j) W_h x_j + b`` with
``q(x_i, x_j) = softmax_h(u^T (x_j - x_i) + c)``. ``u^T (x_j - x_i) = (x U)_j - (x U)_i``, so
the only per-edge array is the ``[E, heads]`` head weights (gathered from two ``[N, heads]``
products); the messages themselves run as one head-weighted mean SpMM of ``x W`` viewed as
``[N, heads, out]``, summed over the heads: no ``[E, F]`` message array is formed. With
``add_self_loops`` (default) existing loops are dropped and one loop per target added, as PyG.

>>> import numpy as np
>>> conv = FeaStConv(3, 4, heads=2, rng=0)
>>> conv(np.eye(3, dtype=np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_float_features, csr_of, parse_input
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias

__all__ = ["FeaStConv"]


class FeaStConv(Module):
    r"""PyG's ``FeaStConv``: :math:`x_i' = \frac{1}{|N(i)|} \sum_{j \in N(i)} \sum_h
    q_h(x_i, x_j) W_h x_j + b`, :math:`q = \mathrm{softmax}(u^\top (x_j - x_i) + c)`.

    Args:
        in_channels / out_channels: sizes.
        heads: number of attention heads (default 1).
        add_self_loops: replace the graph's loops by one loop per target (default ``True``).
        bias: additive bias.

    Call as ``conv(x, edge_index)``; ``x`` may be a bipartite pair ``(x_src, x_dst)``.

    Shapes:
        - input: x ``(N, in_channels)`` or a pair, edge_index ``(2, E)``
        - output: ``(N_dst, out_channels)``

    Parameter names (PyG): ``lin.weight`` ``(heads * out, in)``, ``u.weight``
    ``(heads, in)``, ``c`` ``(heads,)``, ``bias`` ``(out,)``.
    """

    _param_names = ("c", "bias")
    _child_names = ("lin", "u")

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        heads: int = 1,
        add_self_loops: bool = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("FeaStConv", "in_channels", in_channels)
        self.out_channels = layer_size("FeaStConv", "out_channels", out_channels)
        self.heads = layer_size("FeaStConv", "heads", heads, minimum=1)
        self.add_self_loops = bool(add_self_loops)
        gen = _rng(rng)
        self.lin = Linear(
            self.in_channels, self.heads * self.out_channels, False, dtype=dtype, rng=gen
        )
        self.u = Linear(self.in_channels, self.heads, False, dtype=dtype, rng=gen)
        self.c = (gen.standard_normal(self.heads) * 0.1).astype(dtype)
        self.bias = (gen.standard_normal(self.out_channels) * 0.1).astype(dtype) if bias else None

    def __call__(self, x: Any, edge_index: Any) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import spmm_slots, to_slot_order

        inp = parse_input("FeaStConv", x, edge_index)
        x_src, x_dst = inp.x_src, inp.x_dst
        _check_features(x_src, self.in_channels, "FeaStConv source features")
        _check_features(x_dst, self.in_channels, "FeaStConv destination features")
        check_float_features("FeaStConv", x_src, x_dst)
        for value in (x_src, x_dst):
            if value.ndim != 2:  # the head softmax and the [N, heads, out] view are 2-D maths
                raise ValueError(
                    "FeaStConv: node features must be [num_nodes, in_channels], got shape "
                    f"{list(value.shape)}"
                )
        xp = get_namespace(x_src)
        src, dst = inp.src, inp.dst
        if self.add_self_loops:
            if inp.num_dst > inp.num_src:
                raise ValueError(
                    f"FeaStConv: add_self_loops=True adds a loop (i, i) for each of the "
                    f"{inp.num_dst} targets, but there are only {inp.num_src} sources; pass "
                    "add_self_loops=False for this bipartite input (PyG fails on it too)"
                )
            keep = src != dst
            loops = xp.arange(inp.num_dst, dtype=np.int64)
            src = xp.concatenate([src[keep].astype(np.int64), loops])
            dst = xp.concatenate([dst[keep].astype(np.int64), loops])
            csr = ops.to_csr((src, dst), inp.num_src, inp.num_dst)
        else:  # the caller's CSR, the graph's cached one, or built once
            csr = csr_of(inp)
        u_src, u_dst = self.u(x_src), self.u(x_dst)  # [N, heads]
        q = u_src[src] - u_dst[dst] + self.c  # [E, heads]: u^T (x_j - x_i) + c
        q = xp.exp(q - q.max(axis=1, keepdims=True)) if q.shape[0] else q
        q /= q.sum(axis=1, keepdims=True)
        h = self.lin(x_src).reshape(inp.num_src, self.heads, self.out_channels)
        out = spmm_slots(csr, h, to_slot_order(csr, q.astype(h.dtype, copy=False)), "mean")
        out = out.sum(axis=1)
        return out if self.bias is None else add_bias(out, self.bias)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, heads={self.heads}"
