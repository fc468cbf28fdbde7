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

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._module import Module
from arraygnn.nn.edge_conv import _split_first_linear
from arraygnn.nn.linear import _check_features, matmul

__all__ = ["PointNetConv"]

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


def _pair_of(name: str, value: Any, allow_none: bool) -> tuple[Any, Any]:
    """``value`` or ``(src, dst)`` as a pair, each checked to be a float 2-D array (or
    None where allowed)."""
    layer = "PointNetConv"
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{layer}: {name} must be an array or a pair ({name}_src, {name}_dst)")
        pair = (value[0], value[1])
        labels = (f"{name}[0] ({name}_src)", f"{name}[1] ({name}_dst)")
    else:
        pair = (value, value)
        labels = (name, name)
    for label, v in zip(labels, pair):
        if v is None:
            if not allow_none:
                raise TypeError(f"{layer}: {label} must be an array, got None")
            continue
        if not is_array(v):
            raise TypeError(
                f"{layer}: {label} must be a NumPy or CuPy array, got "
                f"{type(v).__name__}{torch_hint(v)}"
            )
        if v.ndim != 2:
            raise ValueError(f"{layer}: {label} must be 2-D [num_nodes, F], got shape {v.shape}")
        if v.dtype.kind != "f":
            raise TypeError(f"{layer}: {label} must hold floating-point values, got {v.dtype}")
    return pair


def _add(out: Any, term: Any) -> Any:
    """``out + term``, in place when ``out`` (an array the layer made) keeps its dtype."""
    if np.result_type(out.dtype, term.dtype) == out.dtype:
        out += term
        return out
    return out + term


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
        for name, nn in (("local_nn", local_nn), ("global_nn", global_nn)):
            if nn is not None and not isinstance(nn, Module):
                raise TypeError(
                    f"{layer}: {name} must be an arraygnn.nn Module or None, got "
                    f"{type(nn).__name__} (wrap a function in arraygnn.nn.Sequential)"
                )
        if not isinstance(add_self_loops, (bool, np.bool_)):
            raise TypeError(
                f"{layer}: add_self_loops must be True or False, got {add_self_loops!r}"
            )
        if aggr not in _AGGRS:
            raise ValueError(f"{layer}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.local_nn = local_nn
        self.global_nn = global_nn
        self.add_self_loops = bool(add_self_loops)
        self.aggr = _AGGRS[aggr]

    def __call__(self, x: Any, pos: Any, edge_index: Any) -> Any:
        from arraygnn import ops

        layer = "PointNetConv"
        pos_src, pos_dst = _pair_of("pos", pos, allow_none=False)
        x_src, _ = _pair_of("x", x, allow_none=True)
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
        csr = self._csr(edge_index, num_src, num_dst)
        xp = get_namespace(pos_src)
        width = 0 if x_src is None else int(x_src.shape[1])
        dim = int(pos_src.shape[1])
        split = None if self.local_nn is None else _split_first_linear(self.local_nn)
        if split is not None and split[0].in_features == width + dim:
            first, rest = split
            _check_features(pos_src, dim, f"{layer} pos", first.weight)  # one device
            w_x, w_p = first.weight[:, :width], first.weight[:, width:]
            at_src = matmul(pos_src, w_p.T)
            if x_src is not None:
                at_src = _add(matmul(x_src, w_x.T), at_src)
            at_dst = -matmul(pos_dst, w_p.T)
            if first.bias is not None:
                at_dst = _add(at_dst, first.bias)
            if self.local_nn is first:  # every message is at_src[j] + at_dst[i]
                out = self._affine_aggregate(csr, at_src, at_dst)
            else:
                out = self._per_edge(csr, at_src, at_dst, rest)
        elif self.local_nn is None:  # [x_j, pos_j] + [0, -pos_i]
            parts = [pos_src] if x_src is None else [x_src, pos_src]
            dtype = np.result_type(*[p.dtype for p in parts])
            at_src = xp.concatenate([p.astype(dtype, copy=False) for p in parts], axis=1)
            at_dst = xp.zeros((num_dst, width + dim), dtype=dtype)
            at_dst[:, width:] = -pos_dst
            out = self._affine_aggregate(csr, at_src, at_dst)
        else:
            from arraygnn.ops.slot_order import to_slot_order

            src, dst = to_slot_order(csr, csr.src), to_slot_order(csr, csr.dst)
            diff = ops.gather(pos_src, src) - ops.gather(pos_dst, dst)
            msg = diff if x_src is None else xp.concatenate([ops.gather(x_src, src), diff], 1)
            out = ops.segment(self.local_nn(msg), csr.indptr, reduce=self.aggr)
        if self.global_nn is not None:
            out = self.global_nn(out)
        return out

    def _csr(self, edge_index: Any, num_src: int, num_dst: int) -> Any:
        """The destination-sorted CSR of the edges attended over (self-loops replaced when
        the layer adds them)."""
        from arraygnn import ops
        from arraygnn.nn._graph_input import _check_edge_index, _is_csr

        layer = "PointNetConv"
        if _is_csr(edge_index):
            if self.add_self_loops:
                raise ValueError(
                    f"{layer}: a CSR stands in for edge_index only with add_self_loops=False "
                    "(the layer would rebuild it); pass the (2, E) edge_index"
                )
            if (edge_index.num_src_nodes, edge_index.num_dst_nodes) != (num_src, num_dst):
                raise ValueError(
                    f"{layer}: the CSR connects {edge_index.num_src_nodes} sources to "
                    f"{edge_index.num_dst_nodes} targets but pos has ({num_src}, {num_dst}) rows"
                )
            return edge_index
        _check_edge_index(layer, edge_index)
        src, dst = edge_index[0], edge_index[1]
        if self.add_self_loops:
            xp = get_namespace(src)
            num_loops = min(num_src, num_dst)
            index_dtype = ids_dtype_holding(src.dtype, num_loops - 1)
            keep = src != dst
            src = src[keep].astype(index_dtype, copy=False)
            dst = dst[keep].astype(index_dtype, copy=False)
            loops = xp.arange(num_loops, dtype=index_dtype)
            src, dst = xp.concatenate([src, loops]), xp.concatenate([dst, loops])
        try:
            return ops.to_csr((src, dst), num_src, num_dst)
        except ValueError as err:
            raise ValueError(f"{layer}: {err}") from None

    def _per_edge(self, csr: Any, at_src: Any, at_dst: Any, rest: Any) -> Any:
        """``aggr_{j -> i} rest(at_src[j] + at_dst[i])``, the CSR's rows taken about
        :data:`~arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` of first hidden layer at a time
        on NumPy (the per-edge temporaries stay small and warm in cache; one piece on
        CuPy): :func:`~arraygnn.nn._row_chunks.map_row_chunks`."""
        from arraygnn import ops
        from arraygnn.nn._row_chunks import map_row_chunks
        from arraygnn.ops.slot_order import sddmm_slots

        def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
            hidden = sddmm_slots(part, at_src, at_dst[start:stop], op="add")
            return ops.segment(rest(hidden), part.indptr, reduce=self.aggr)

        row_bytes = int(at_src.shape[1]) * at_src.dtype.itemsize
        return map_row_chunks(csr, row_bytes, rows)

    def _affine_aggregate(self, csr: Any, at_src: Any, at_dst: Any) -> Any:
        """``aggr_{j -> i}(at_src[j] + at_dst[i])`` without per-edge arrays: one SpMM of
        ``at_src`` plus ``at_dst[i]`` (``deg_i at_dst[i]`` for the sum; 0 without edges).
        For max / min the result is the per-edge one bit for bit (rounding is monotone)."""
        from arraygnn.ops.slot_order import spmm_slots

        out = spmm_slots(csr, at_src, None, self.aggr)
        deg = csr.in_degrees()
        if self.aggr == "sum":
            scale = deg.astype(out.dtype)
        else:
            scale = (deg > 0).astype(out.dtype)
        return _add(out, scale[:, None] * at_dst)

    def extra_repr(self) -> str:
        return (
            f"local_nn={self.local_nn!r}, global_nn={self.global_nn!r}, "
            f"add_self_loops={self.add_self_loops}, aggr={self.aggr!r}"
        )
