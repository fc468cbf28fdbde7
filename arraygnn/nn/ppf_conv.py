"""The PPFNet operator (Deng et al., 2018): PyG's ``PPFConv``.

``x_i' = global_nn(aggr_{j in N(i)} local_nn([x_j, ppf(i, j)]))`` with the point pair
features ``ppf(i, j) = (|d|, angle(n_i, d), angle(n_j, d), angle(n_i, n_j))``, ``d =
pos_j - pos_i``, ``n`` the point normals and ``angle(a, b) = atan2(|a x b|, a . b)``
(PyG's ``point_pair_features``); ``aggr`` ``'max'`` by default, a node without in-edges
getting 0 (PyG's), ``x`` optional.

How it runs: the four features are nonlinear functions of both ends of an edge, so they
are formed per edge (``[E, 4]``), over pieces of the CSR's rows holding about
:data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` of hidden layer each
(:func:`~arraygnn.nn._row_chunks.map_row_chunks`; one piece on CuPy), as
:class:`~arraygnn.nn.PointNetConv` does its per-edge part. When ``local_nn`` starts
with a ``Linear`` its first layer is split, ``W [x_j, f] + b = W_x x_j + (W_f f + b)``:
``W_x x`` is one product per source node and only the ``[E, 4]`` features are multiplied
per edge (no ``[E, F_in + 4]`` concatenation); the rest of ``local_nn`` runs per edge and
a segment reduction over each piece's rows aggregates. Other nets get the concatenated
messages, as in PyG.

>>> import numpy as np
>>> from arraygnn.nn import MLP
>>> conv = PPFConv(MLP([2 + 4, 8, 4], rng=0))
>>> x = np.ones((3, 2), np.float32)
>>> pos = np.arange(9, dtype=np.float32).reshape(3, 3)
>>> normal = np.eye(3, dtype=np.float32)
>>> conv(x, pos, normal, np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._module import Module
from arraygnn.nn._point_cloud import (
    aggr_name,
    check_loops_flag,
    check_nets,
    point_csr,
    point_pair,
    rows_of,
    split_net,
)
from arraygnn.nn.linear import matmul

__all__ = ["PPFConv", "point_pair_features"]


def _angle(xp: Any, a: Any, b: Any) -> Any:
    """``atan2(|a x b|, a . b)`` row by row (3-D rows)."""
    cross = xp.stack(
        [
            a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
            a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
        ],
        axis=1,
    )
    return xp.arctan2(xp.sqrt((cross * cross).sum(axis=1)), (a * b).sum(axis=1))


def point_pair_features(pos_i: Any, pos_j: Any, normal_i: Any, normal_j: Any) -> Any:
    """PyG's ``point_pair_features``: ``(|d|, angle(n_i, d), angle(n_j, d), angle(n_i,
    n_j))`` per row, ``d = pos_j - pos_i``, ``[E, 4]``.

    >>> import numpy as np
    >>> p = np.zeros((1, 3)); q = np.array([[1.0, 0.0, 0.0]]); n = np.array([[0.0, 0.0, 1.0]])
    >>> point_pair_features(p, q, n, n).round(4).tolist()
    [[1.0, 1.5708, 1.5708, 0.0]]
    """
    xp = get_namespace(pos_i, pos_j, normal_i, normal_j)
    d = pos_j - pos_i
    norm = xp.sqrt((d * d).sum(axis=1))
    parts = [norm, _angle(xp, normal_i, d), _angle(xp, normal_j, d), _angle(xp, normal_i, normal_j)]
    return xp.stack(parts, axis=1)


class PPFConv(Module):
    """PyG's ``PPFConv``.

    Args:
        local_nn: an arraygnn module mapping the ``(E, F_in + 4)`` messages
            ``[x_j, ppf(i, j)]`` to ``(E, C)``; ``None`` keeps the messages.
        global_nn: an arraygnn module applied to the aggregated ``(N_dst, C)``; ``None``:
            none.
        add_self_loops: drop the graph's self-loops and add one on each target node
            (PyG's default; a bipartite input then needs ``N_dst <= N_src``, PyG's loops
            ``i -> i`` for every target).
        aggr: ``'max'`` (PyG's default), ``'add'`` / ``'sum'``, ``'mean'``, ``'min'`` (a
            node without in-edges gets 0).

    Call as ``conv(x, pos, normal, edge_index)`` with ``x`` ``(N, F_in)`` or ``None``, or
    bipartite ``conv((x_src, x_dst), (pos_src, pos_dst), (normal_src, normal_dst),
    edge_index)`` (``x_dst`` is not read, as in PyG, and may be ``None``; so may
    ``x_src``). Positions and normals are 3-D. ``edge_index`` an integer ``(2, E)``
    array, or a CSR from ``arraygnn.ops.to_csr`` with ``add_self_loops=False``. Names
    (PyG): ``local_nn.*``, ``global_nn.*``; ``from_pyg`` converts a PyG ``PPFConv``.
    ``local_nn`` must work row by row (every converted net in eval mode does).

    Shapes:
        input:  x (N_src, F_in) or None, pos / normal (N, 3) or ((N_src, 3), (N_dst, 3)),
                edge_index (2, E)
        output: (N_dst, C), C the width of global_nn(local_nn(.)) (F_in + 4 without either)
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

    def __call__(self, x: Any, pos: Any, normal: Any, edge_index: Any) -> Any:
        from arraygnn import ops
        from arraygnn.nn._row_chunks import map_row_chunks
        from arraygnn.ops.slot_order import to_slot_order

        layer = "PPFConv"
        pos_src, pos_dst = point_pair(layer, "pos", pos, allow_none=False)
        n_src, n_dst = point_pair(layer, "normal", normal, allow_none=False)
        x_src, _ = point_pair(layer, "x", x, allow_none=True)
        for name, v in (("pos", pos_src), ("pos", pos_dst), ("normal", n_src), ("normal", n_dst)):
            if int(v.shape[1]) != 3:
                raise ValueError(f"{layer}: {name} must be 3-D points (N, 3), got {v.shape}")
        num_src, num_dst = int(pos_src.shape[0]), int(pos_dst.shape[0])
        rows_of(layer, "normal_src", n_src, num_src, "pos_src")
        rows_of(layer, "normal_dst", n_dst, num_dst, "pos_dst")
        rows_of(layer, "x", x_src, num_src, "pos (source)")
        get_namespace(pos_src, pos_dst, n_src, n_dst, *(() if x_src is None else (x_src,)))
        if self.add_self_loops and num_dst > num_src:
            raise ValueError(
                f"{layer}: add_self_loops=True adds a loop i -> i on each of the {num_dst} "
                f"targets but there are only {num_src} sources (PyG fails here too); pass "
                "add_self_loops=False for this bipartite input"
            )
        loops = num_dst if self.add_self_loops else None
        csr = point_csr(layer, edge_index, num_src, num_dst, loops)
        xp = get_namespace(pos_src)
        width = 0 if x_src is None else int(x_src.shape[1])
        what = f"[x_j, ppf(i, j)] ({width} + 4 columns)"
        split = split_net(layer, "local_nn", self.local_nn, width + 4, what)
        at_src = w_f = bias = None
        if split is not None:
            first, rest = split
            w_f, bias = first.weight[:, width:].T, first.bias
            if x_src is not None:
                at_src = matmul(x_src, first.weight[:, :width].T)
        local_nn, aggr = self.local_nn, self.aggr

        def rows(part: Any, start: int, stop: int, first_slot: int, last: int) -> Any:
            src, dst = part.indices, to_slot_order(part, part.dst)
            feats = point_pair_features(
                ops.gather(pos_dst[start:stop], dst),
                ops.gather(pos_src, src),
                ops.gather(n_dst[start:stop], dst),
                ops.gather(n_src, src),
            )
            if split is not None:
                msg = matmul(feats, w_f)
                if bias is not None:
                    msg = msg + bias
                if at_src is not None:
                    msg = msg + ops.gather(at_src, src)
                msg = rest(msg)
            else:
                msg = feats if x_src is None else xp.concatenate([ops.gather(x_src, src), feats], 1)
                if local_nn is not None:
                    msg = local_nn(msg)
            return ops.segment(msg, part.indptr, reduce=aggr)

        hidden = width + 4 if split is None else int(split[0].out_features)
        row_bytes = max(hidden, width + 4) * np.dtype(pos_src.dtype).itemsize
        out = map_row_chunks(csr, row_bytes, rows)
        if self.global_nn is not None:
            out = self.global_nn(out)
        return out

    def extra_repr(self) -> str:
        return (
            f"local_nn={self.local_nn!r}, global_nn={self.global_nn!r}, "
            f"add_self_loops={self.add_self_loops}, aggr={self.aggr!r}"
        )


def from_pyg_module(module: Any, dtype: Any, convert: Any) -> PPFConv:
    """PyG's ``PPFConv`` as the arraygnn layer (its nets converted by ``convert``)."""
    from arraygnn.nn.weights import _pyg_aggr

    aggr = _pyg_aggr(module, "PPFConv", ("sum", "mean", "max", "min"))
    local_nn = None if module.local_nn is None else convert(module.local_nn)
    global_nn = None if module.global_nn is None else convert(module.global_nn)
    return PPFConv(local_nn, global_nn, module.add_self_loops, aggr)
