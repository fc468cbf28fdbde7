"""The Point Transformer layer (Zhao et al., 2021): PyG's ``PointTransformerConv``.

``x_i' = sum_{j in N(i)} alpha_ij * (W_3 x_j + delta_ij)`` with ``delta_ij =
pos_nn(pos_i - pos_j)`` and ``alpha_ij = softmax_j(attn_nn(W_1 x_i - W_2 x_j +
delta_ij))``, the softmax taken per channel over each target's in-edges (a target without
in-edges gets 0). ``pos_nn`` defaults to a ``Linear(3, out_channels)``, ``attn_nn`` to none.

How it runs: ``W_1 x``, ``W_2 x`` and ``W_3 x`` are node products. The attention is a
vector per edge (``out_channels`` scores, one softmax per channel), and ``pos_nn`` /
``attn_nn`` are applied to every edge, so per-edge ``[E, out_channels]`` arrays must be
formed: they are, but only over pieces of the CSR's rows holding about
:data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` of them each
(:func:`~arraygnn.nn._row_chunks.map_row_chunks`; one piece on CuPy). In each piece
``pos_i - pos_j`` and ``W_1 x_i - W_2 x_j`` come from SDDMM ``sub`` (no gathered
``[E, F]`` copies), the softmax runs over the piece's CSR rows in slot order, in place
(float32 on NumPy: :func:`arraygnn.kernels.cpu.dense_softmax.segment_softmax_f32_`, whose
vectorised exponential took the layer from 0.86x to 1.06x PyG on one thread; others:
``edge_softmax_slots``), and the output is ``spmm(alpha, W_3 x) + segment_sum(alpha *
delta)``: ``W_3 x_j`` is never gathered per edge.

>>> import numpy as np
>>> conv = PointTransformerConv(4, 8, rng=0)
>>> x = np.ones((3, 4), np.float32)
>>> pos = np.arange(9, dtype=np.float32).reshape(3, 3)
>>> conv(x, pos, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 8)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._point_cloud import (
    check_loops_flag,
    check_nets,
    point_csr,
    point_pair,
    rows_of,
    split_net,
)
from arraygnn.nn.linear import Linear, _rng

__all__ = ["PointTransformerConv"]


class PointTransformerConv(Module):
    """PyG's ``PointTransformerConv``.

    Args:
        in_channels: input width, or ``(in_src, in_dst)`` for bipartite inputs.
        out_channels: output width.
        pos_nn: an arraygnn module mapping ``pos_i - pos_j`` ``(E, D)`` to
            ``(E, out_channels)``; ``None``: ``Linear(3, out_channels)`` (PyG's).
        attn_nn: an arraygnn module mapping the ``(E, out_channels)`` scores to
            ``(E, out_channels)`` before the softmax; ``None``: none.
        add_self_loops: drop the graph's self-loops and add one on each of the first
            ``min(N_src, N_dst)`` nodes (PyG's default ``True``).
        dtype, rng: weight dtype and seed of the initial weights.

    Call as ``conv(x, pos, edge_index)`` or bipartite ``conv((x_src, x_dst), (pos_src,
    pos_dst), edge_index)``; ``edge_index`` an integer ``(2, E)`` array, or a CSR from
    ``arraygnn.ops.to_csr`` with ``add_self_loops=False``. Names (PyG): ``pos_nn.*``,
    ``attn_nn.*``, ``lin.weight``, ``lin_src.weight``, ``lin_dst.weight``; ``from_pyg``
    converts a PyG ``PointTransformerConv`` (``pos_nn`` / ``attn_nn`` torch ``Sequential``
    / ``Linear`` / PyG ``MLP``). Nets must work row by row (every converted net in eval
    mode does): they see one piece of edges at a time.

    Shapes:
        input:  x (N, F) or ((N_src, F_src), (N_dst, F_dst)), pos (N, D) or
                ((N_src, D), (N_dst, D)), edge_index (2, E)
        output: (N_dst, out_channels)
    """

    _child_names = ("pos_nn", "attn_nn", "lin", "lin_src", "lin_dst")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        pos_nn: Module | None = None,
        attn_nn: Module | None = None,
        add_self_loops: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = type(self).__name__
        self.in_channels, in_src, in_dst = channels_pair(layer, in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        check_nets(layer, True, pos_nn=pos_nn, attn_nn=attn_nn)
        self.add_self_loops = check_loops_flag(layer, add_self_loops)
        gen = _rng(rng)
        out = self.out_channels
        self.pos_nn = pos_nn if pos_nn is not None else Linear(3, out, dtype=dtype, rng=gen)
        self.attn_nn = attn_nn
        self.lin = Linear(in_src, out, bias=False, dtype=dtype, rng=gen)
        self.lin_src = Linear(in_src, out, bias=False, dtype=dtype, rng=gen)
        self.lin_dst = Linear(in_dst, out, bias=False, dtype=dtype, rng=gen)

    def __call__(self, x: Any, pos: Any, edge_index: Any) -> Any:
        from arraygnn import ops
        from arraygnn.kernels.cpu.dense_softmax import segment_softmax_f32_
        from arraygnn.nn._row_chunks import map_row_chunks
        from arraygnn.ops.slot_order import edge_softmax_slots, sddmm_slots, spmm_slots

        layer = "PointTransformerConv"
        x_src, x_dst = point_pair(layer, "x", x, allow_none=False)
        pos_src, pos_dst = point_pair(layer, "pos", pos, allow_none=False)
        if pos_src.shape[1] != pos_dst.shape[1]:
            raise ValueError(
                f"{layer}: pos_src and pos_dst must have one width, got {pos_src.shape[1]} "
                f"and {pos_dst.shape[1]}"
            )
        num_src, num_dst = int(pos_src.shape[0]), int(pos_dst.shape[0])
        rows_of(layer, "x_src", x_src, num_src, "pos_src")
        rows_of(layer, "x_dst", x_dst, num_dst, "pos_dst")
        get_namespace(x_src, x_dst, pos_src, pos_dst)  # one device
        loops = min(num_src, num_dst) if self.add_self_loops else None
        csr = point_csr(layer, edge_index, num_src, num_dst, loops)
        split_net(layer, "lin", self.lin, int(x_src.shape[1]), "x_src")
        split_net(layer, "lin_dst", self.lin_dst, int(x_dst.shape[1]), "x_dst")
        split_net(layer, "pos_nn", self.pos_nn, int(pos_src.shape[1]), "pos_i - pos_j")
        value = self.lin(x_src)  # W_3 x
        a_src, a_dst = self.lin_src(x_src), self.lin_dst(x_dst)  # W_2 x, W_1 x
        pos_nn, attn_nn = self.pos_nn, self.attn_nn

        def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
            delta = pos_nn(sddmm_slots(part, pos_dst[start:stop], pos_src, "sub", "v", "u"))
            score = sddmm_slots(part, a_dst[start:stop], a_src, "sub", "v", "u")
            score = score + delta
            if attn_nn is not None:
                score = attn_nn(score)
                if getattr(score, "ndim", 0) == 0 or score.shape[0] != part.num_edges:
                    raise ValueError(
                        f"{layer}: attn_nn must give one row per edge ({part.num_edges} "
                        f"here), got shape {tuple(getattr(score, 'shape', ()))}"
                    )
            if isinstance(score, np.ndarray) and score.dtype == np.float32 and score.ndim == 2:
                # in place: score + delta or attn_nn's output (copied when read-only)
                score = np.require(score, requirements=("C", "W"))
                alpha = segment_softmax_f32_(part.indptr, score)
            else:
                alpha = edge_softmax_slots(part, score)
            out = spmm_slots(part, value, alpha)
            return out + ops.segment(alpha * delta, part.indptr, reduce="sum")

        width = self.out_channels * np.dtype(value.dtype).itemsize
        return map_row_chunks(csr, 4 * width, rows)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, pos_nn={self.pos_nn!r}, "
            f"attn_nn={self.attn_nn!r}, add_self_loops={self.add_self_loops}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> PointTransformerConv:
    """PyG's ``PointTransformerConv`` as the arraygnn layer, weights included."""
    from arraygnn.nn.weights import _lazy_sizes, _load, _pyg_aggr

    kind = "PointTransformerConv"
    _pyg_aggr(module, kind, ("sum",))
    sizes = module.in_channels
    if isinstance(sizes, (tuple, list)):
        sizes = _lazy_sizes(kind, tuple(sizes), module.lin_src, module.lin_dst)
    else:
        sizes = _lazy_sizes(kind, sizes, module.lin)
    attn_nn = None if module.attn_nn is None else convert(module.attn_nn)
    layer = PointTransformerConv(
        sizes,
        module.out_channels,
        pos_nn=convert(module.pos_nn),
        attn_nn=attn_nn,
        add_self_loops=module.add_self_loops,
        dtype=dtype,
    )
    return _load(layer, module, "pyg")
