"""Edge convolution (Wang et al., DGCNN): PyG's ``EdgeConv``,
``x_i' = aggr_{j in N(i)} h([x_i, x_j - x_i])``, ``aggr`` ``'max'`` by default.

When ``h`` starts with a ``Linear`` (a ``Linear``, a ``Sequential`` starting with one, an
``MLP``), its first layer is applied to the nodes, not the edges: ``W [x_i, x_j - x_i] + b =
(W_a - W_b) x_i + b + W_b x_j``, two node products and one SDDMM ``add`` give the first
hidden layer of every edge, and no ``[E, 2 F]`` input is formed. The rest of ``h`` runs
per edge (it is nonlinear), and one scatter reduces the messages on their targets.

>>> import numpy as np
>>> from arraygnn.nn import MLP
>>> conv = EdgeConv(MLP([6, 8, 4], rng=0))
>>> conv(np.ones((3, 3), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import parse_input
from arraygnn.nn._module import Module
from arraygnn.nn.linear import MLP, Linear, Sequential, matmul

__all__ = ["EdgeConv"]

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def _split_first_linear(nn: Any) -> tuple[Linear, Any] | None:
    """``(first, rest)`` with ``nn(z) == rest(first(z))`` and ``first`` a plain Linear."""
    if type(nn) is Linear:
        return nn, (lambda h: h)
    if type(nn) is Sequential and len(nn) and type(nn[0]) is Linear:
        steps = nn.steps[1:]

        def rest(h: Any) -> Any:
            for step in steps:
                h = step(h)
            return h

        return nn[0], rest
    if type(nn) is MLP and type(nn.lins[0]) is Linear:
        return nn.lins[0], nn.after_first
    return None


class EdgeConv(Module):
    """PyG's ``EdgeConv``.

    Args:
        nn: an arraygnn module mapping ``[x_i, x_j - x_i]`` ``(E, 2 F)`` to ``(E, out)``.
        aggr: ``'max'`` (default), ``'add'`` / ``'sum'``, ``'mean'``, ``'min'`` (a node
            without in-edges gets 0).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)`` or
    ``conv(graph, feat)``. Names (PyG): ``nn.*``.
    """

    _child_names = ("nn",)

    def __init__(self, nn: Module, aggr: str = "max") -> None:
        if not isinstance(nn, Module):
            raise TypeError(f"EdgeConv: nn must be an arraygnn.nn Module, got {type(nn).__name__}")
        if aggr not in _AGGRS:
            raise ValueError(f"EdgeConv: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.nn = nn
        self.aggr = _AGGRS[aggr]

    def __call__(self, x_or_graph: Any, edge_index_or_feat: Any) -> Any:
        from arraygnn import ops

        inp = parse_input("EdgeConv", x_or_graph, edge_index_or_feat)
        x_src, x_dst = inp.x_src, inp.x_dst
        if x_dst is None:
            raise ValueError("EdgeConv: needs destination features (x[1])")
        if x_src.shape[-1] != x_dst.shape[-1]:
            raise ValueError(
                f"EdgeConv: source and destination features must have one width, got "
                f"{x_src.shape[-1]} and {x_dst.shape[-1]}"
            )
        width = int(x_src.shape[-1])
        edges = inp.csr if inp.csr is not None else inp.edge_index
        split = _split_first_linear(self.nn)
        if split is not None and split[0].in_features == 2 * width:
            first, rest = split
            w_a, w_b = first.weight[:, :width], first.weight[:, width:]
            at_dst = matmul(x_dst, (w_a - w_b).T)
            if first.bias is not None:
                at_dst = at_dst + first.bias
            at_src = matmul(x_src, w_b.T)
            hidden = ops.sddmm(edges, at_src, at_dst, op="add", lhs_target="u", rhs_target="v")
            messages = rest(hidden)
        else:
            xi = ops.gather(x_dst, inp.dst)
            xj = ops.gather(x_src, inp.src)
            xp = get_namespace(xi)
            messages = self.nn(xp.concatenate([xi, xj - xi], axis=-1))
        return ops.scatter(messages, inp.dst, inp.num_dst, reduce=self.aggr)

    def extra_repr(self) -> str:
        return f"aggr={self.aggr!r}"
