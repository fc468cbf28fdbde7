"""The local extremum operator of ASAP (Ranjan et al., 2020): PyG's ``LEConv``.

``x_i' = sum_{j -> i} e_ji (a_j - b_i) + lin3(x_i)`` with ``a = lin1(x_src)`` (bias
included) and ``b = lin2(x_dst)`` (no bias); ``e_ji`` is the edge weight (1 without one).

How it runs (no ``[E, F]`` message array is formed): the sum splits into
``(A_e a)_i - deg_e(i) b_i``, one SpMM of ``a`` over the destination-sorted CSR (weights in
its slot order) and the weighted in-degree ``deg_e(i) = sum_{j -> i} e_ji`` (the CSR's row
lengths without weights). ``lin2`` and ``lin3`` read the same rows: one product with their
stacked weights.

>>> import numpy as np
>>> conv = LEConv(4, 2, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_edge_weight, csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn.linear import Linear, _check_features, _rng, add_bias, matmul

__all__ = ["LEConv"]


class LEConv(Module):
    r"""PyG's ``LEConv``:
    :math:`x_i' = x_i \Theta_1' + \sum_{j \in N(i)} e_{ji} (\Theta_1 x_j - \Theta_2 x_i)`
    (PyG's ``lin1`` on the sources, ``lin2`` and ``lin3`` on the targets).

    Args:
        in_channels: input size, or a pair ``(in_src, in_dst)`` for bipartite inputs.
        out_channels: output size.
        bias: biases in ``lin1`` and ``lin3`` (``lin2`` has none, as PyG).

    Call as ``conv(x, edge_index, edge_weight=None)``, bipartite
    ``conv((x_src, x_dst), edge_index, edge_weight=None)`` (``x_dst`` required), or DGL's
    ``conv(graph, feat)`` / ``conv(graph, (feat_src, feat_dst))`` / ``conv(block, feat)``.

    Shapes:
        - input: x ``(N, in)`` or ``((N_src, in_src), (N_dst, in_dst))``, edge_index
          ``(2, E)``, edge_weight ``(E,)`` (optional)
        - output: ``(N_dst, out_channels)``

    Names (PyG): ``lin1.weight`` ``(out, in_src)``, ``lin1.bias``, ``lin2.weight``
    ``(out, in_dst)``, ``lin3.weight`` ``(out, in_dst)``, ``lin3.bias``.
    """

    _child_names = ("lin1", "lin2", "lin3")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels, in_src, in_dst = channels_pair("LEConv", in_channels)
        self.out_channels = layer_size("LEConv", "out_channels", out_channels)
        gen = _rng(rng)
        self.lin1 = Linear(in_src, self.out_channels, bias, dtype=dtype, rng=gen)
        self.lin2 = Linear(in_dst, self.out_channels, False, dtype=dtype, rng=gen)
        self.lin3 = Linear(in_dst, self.out_channels, bias, dtype=dtype, rng=gen)

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any, edge_weight: Any = None) -> Any:
        from arraygnn.ops.slot_order import spmm_slots, to_slot_order

        layer = "LEConv"
        inp = parse_input(layer, x_or_graph, edge_index_or_feat)
        for what, feat, lin in (("x_src", inp.x_src, self.lin1), ("x_dst", inp.x_dst, self.lin2)):
            if feat.ndim != 2:
                raise ValueError(
                    f"{layer}: {what} must be [num_nodes, channels], got shape {list(feat.shape)}"
                )
            _check_features(feat, lin.in_features, f"{layer} {what}", lin.weight)
        check_edge_weight(layer, edge_weight, inp.num_edges)
        a = self.lin1(inp.x_src)
        xp = get_namespace(a)
        out_ch = self.out_channels
        stacked = xp.concatenate([self.lin3.weight, self.lin2.weight], axis=0)
        h = matmul(inp.x_dst, stacked.T)  # [N_dst, 2 out]: lin3 (no bias yet) | lin2
        csr = csr_of(inp)
        w = to_slot_order(csr, edge_weight)
        out = spmm_slots(csr, a, w)
        if w is None:
            deg = csr.in_degrees().astype(h.dtype)
        else:
            deg = spmm_slots(csr, xp.ones(inp.num_src, dtype=w.dtype), w).astype(h.dtype)
        h[:, out_ch:] *= -deg[:, None]  # h is an array made here: in place
        h[:, :out_ch] += h[:, out_ch:]  # lin3(x_i) - deg_e(i) b_i
        out = add_bias(out, h[:, :out_ch])
        return out if self.lin3.bias is None else add_bias(out, self.lin3.bias)

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}"
