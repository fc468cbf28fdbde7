"""Crystal graph convolution (Xie and Grossman, 2018): PyG's ``CGConv``.

``x_i' = x_i + BN(sum_{j in N(i)} sigmoid(z_ij W_f + b_f) * softplus(z_ij W_s + b_s))``
with ``z_ij = [x_i, x_j, e_ji]``; BN (``batch_norm=True``) uses its running statistics.

How it runs: the two first layers are split over the pieces of ``z`` (no ``[E, 2 F + D]``
concatenation): ``x_i`` and ``x_j`` are multiplied per node (one ``[N, 2 C]`` product per
side, the gate and the core side by side) and one SDDMM ``add`` gives every edge's
``[z W_f, z W_s]``; the edge features add their product. The gate is nonlinear per edge,
so the ``[E, 2 C]`` pre-activations must exist, but only over pieces of CSR rows holding
about :data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` each (NumPy), each piece reduced
over its rows by one segment reduction right away.

>>> import numpy as np
>>> conv = CGConv(4, dim=2, rng=0)
>>> ei = np.array([[0, 1, 2], [1, 2, 0]])
>>> conv(np.ones((3, 4), np.float32), ei, np.ones((3, 2), np.float32)).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import check_edge_attr, csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._row_chunks import map_row_chunks
from arraygnn.nn.edge_conv import _AGGRS
from arraygnn.nn.linear import BatchNorm, Linear, _check_features, _rng, matmul

__all__ = ["CGConv", "softplus"]


def softplus(x: Any) -> Any:
    """torch's ``F.softplus`` (``beta=1``, ``threshold=20``): ``log1p(exp(x))``, and ``x``
    itself above 20.

    >>> softplus(np.array([0.0, 30.0])).round(4).tolist()
    [0.6931, 30.0]
    """
    xp = get_namespace(x)
    out = xp.minimum(x, 20)
    xp.exp(out, out=out)
    xp.log1p(out, out=out)
    big = x > 20
    if bool(big.any()):
        out[big] = x[big]
    return out


def _gate(hidden: Any, c: int) -> Any:
    """``sigmoid(hidden[:, :c]) * softplus(hidden[:, c:])``, the sigmoid computed in place
    in ``hidden`` (an array the layer made)."""
    xp = get_namespace(hidden)
    gate = hidden[:, :c]
    with np.errstate(over="ignore"):  # exp(-x) = inf for a very negative x: 1 / inf = 0
        xp.negative(gate, out=gate)
        xp.exp(gate, out=gate)
    gate += 1
    core = softplus(hidden[:, c:])
    core /= gate
    return core


class CGConv(Module):
    """PyG's ``CGConv`` at inference.

    Args:
        channels: an int, or ``(in_src, in_dst)`` (the output has ``in_dst`` columns:
            ``x_i`` is added back).
        dim: the edge feature size (0: no edge features).
        aggr: ``'add'`` (PyG's default), ``'mean'``, ``'max'`` or ``'min'``.
        batch_norm: a ``BatchNorm`` on the aggregate (running statistics).
        bias: biases in ``lin_f`` / ``lin_s``.

    Call as ``conv(x, edge_index, edge_attr=None)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` or ``conv(graph, feat, edge_feat)``. Names (PyG): ``lin_f.*``,
    ``lin_s.*``, ``bn.*`` (``weight``, ``bias``, ``running_mean``, ``running_var``).

    Shapes:
        input:  x (N, F) or ((N_src, in_src), (N_dst, in_dst)), edge_index (2, E),
                edge_attr (E, dim)
        output: (N_dst, in_dst)
    """

    _child_names = ("lin_f", "lin_s", "bn")

    def __init__(
        self,
        channels: int | tuple[int, int],
        dim: int = 0,
        aggr: str = "add",
        batch_norm: bool = False,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "CGConv"
        self.channels, in_src, in_dst = channels_pair(name, channels, "channels")
        self.in_src, self.in_dst = in_src, in_dst
        self.dim = layer_size(name, "dim", dim)
        if aggr not in _AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.aggr = _AGGRS[aggr]
        self.batch_norm = bool(batch_norm)
        gen = _rng(rng)
        width = in_src + in_dst + self.dim
        self.lin_f = Linear(width, in_dst, bias, dtype=dtype, rng=gen)
        self.lin_s = Linear(width, in_dst, bias, dtype=dtype, rng=gen)
        self.bn = BatchNorm(in_dst, dtype=dtype) if batch_norm else None

    def __call__(self, x: Any, edge_index: Any, edge_attr: Any = None) -> Any:
        from arraygnn.ops.slot_order import sddmm_slots, to_slot_order

        layer = "CGConv"
        inp = parse_input(layer, x, edge_index)
        weight = self.lin_f.weight
        _check_features(inp.x_src, self.in_src, f"{layer} x_src", weight)
        _check_features(inp.x_dst, self.in_dst, f"{layer} x_dst", weight)
        if inp.x_src.ndim != 2 or inp.x_dst.ndim != 2:
            raise ValueError(f"{layer}: node features must be (N, F)")
        c, a, b = self.in_dst, self.in_dst, self.in_dst + self.in_src  # z = [x_i, x_j, e]
        xp = get_namespace(weight)
        both = xp.concatenate([self.lin_f.weight, self.lin_s.weight])  # [2C, width]
        at_dst = matmul(inp.x_dst, both[:, :a].T)
        if self.lin_f.bias is not None:
            at_dst = at_dst + xp.concatenate([self.lin_f.bias, self.lin_s.bias])
        at_src = matmul(inp.x_src, both[:, a:b].T)
        csr = csr_of(inp)
        e_slots = None
        if self.dim:
            if edge_attr is None:
                raise ValueError(f"{layer}: edge_attr is required (the layer has dim={self.dim})")
            e = check_edge_attr(layer, edge_attr, inp.num_edges, self.dim, inp.x_src)
            e_slots = to_slot_order(csr, e)
            w_edge = both[:, b:].T
        elif edge_attr is not None:
            raise ValueError(f"{layer}: edge_attr given but the layer has dim=0 (no edge weights)")

        def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
            from arraygnn import ops

            hidden = sddmm_slots(part, at_src, at_dst[start:stop], op="add")
            if e_slots is not None:
                hidden += matmul(e_slots[first:last], w_edge).astype(hidden.dtype, copy=False)
            return ops.segment(_gate(hidden, c), part.indptr, reduce=self.aggr)

        out = map_row_chunks(csr, 4 * c * at_src.dtype.itemsize, rows)
        if self.bn is not None:
            out = self.bn(out)
        return out + inp.x_dst

    def extra_repr(self) -> str:
        return f"{self.channels}, dim={self.dim}"
