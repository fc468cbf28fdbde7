"""GNN-FiLM (Brockschmidt, 2020): PyG's ``FiLMConv``.

``x_i' = act(gamma_i * x_i W_skip + beta_i) + sum_r aggr_{j in N_r(i)} act(gamma_{r,i} *
x_j W_r + beta_{r,i})`` with ``[beta, gamma] = film(x_i)`` (a ``Linear`` to ``2 C`` per
relation, or a copy of ``nn``), ``act`` ReLU and ``aggr`` mean by default.

How it runs (the modulation comes from the *target*, so it factors out of the neighbour
sum): each relation's ``x W_r`` is one product per source node, and the edges are grouped
by (relation, target) once (:func:`arraygnn.nn.relation_groups.relation_rows`; one plain
CSR for a single relation). Then, per relation:

- ``act=None``, ``aggr`` sum / mean: ``gamma_i * (A_r x W_r)_i + deg_r(i) beta_i`` (mean:
  ``gamma_i * mean_j (x W_r)_j + beta_i``): one SpMM, nothing per edge.
- ``aggr`` max / min with ``act`` None or monotone (ReLU, LeakyReLU with a non-negative
  slope, ELU with a non-negative alpha, sigmoid, tanh): ``y -> act(gamma y + beta)`` is
  non-decreasing where ``gamma >= 0`` and non-increasing where ``gamma < 0``, so the max
  over the edges is ``act(gamma * ext_j y_j + beta)`` with ``ext`` the max of ``y`` on
  channels where ``gamma >= 0`` and the min elsewhere (the sign trick): two SpMMs (max and
  min), nothing per edge, the same bits as the per-edge max (rounding is monotone).
- otherwise (the default ReLU with mean or sum, GELU, any other callable): the messages
  ``act(gamma_i * y_j + beta_i)`` are formed per edge, but only over pieces of the rows
  holding about :data:`arraygnn.nn._row_chunks.EDGE_CHUNK_BYTES` each (NumPy), each piece
  reduced by a segment reduction right away.

A target without edges of a relation gets 0 from it (PyG's empty aggregation).

>>> import numpy as np
>>> conv = FiLMConv(4, 3, num_relations=2, rng=0)
>>> ei, et = np.array([[0, 1, 2], [1, 2, 0]]), np.array([0, 1, 1])
>>> conv(np.ones((3, 4), np.float32), ei, et).shape
(3, 3)
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import csr_of, parse_input
from arraygnn.nn._module import Module, channels_pair, layer_size
from arraygnn.nn._row_chunks import map_row_chunks
from arraygnn.nn.edge_conv import _AGGRS
from arraygnn.nn.linear import (
    Linear,
    _check_features,
    _elu,
    _leaky_relu,
    _ModuleList,
    _relu,
    _rng,
    _sigmoid,
    _tanh,
    get_activation,
)

__all__ = ["FiLMConv"]


def is_monotone(act: Any) -> bool:
    """True for an activation known to be non-decreasing (None counts as the identity)."""
    if act is None or act in (_relu, _sigmoid, _tanh):
        return True
    if isinstance(act, partial) and act.func in (_leaky_relu, _elu) and not act.args:
        value = act.keywords.get("negative_slope", act.keywords.get("alpha", 1.0))
        return float(value) >= 0
    return act in (_leaky_relu, _elu)


class FiLMConv(Module):
    """PyG's ``FiLMConv``.

    Args:
        in_channels: an int, or ``(in_src, in_dst)`` for a bipartite graph.
        out_channels: the output size ``C``.
        num_relations: the number of edge types (with 1, ``edge_type`` is not read).
        nn: an arraygnn module mapping ``(N, in_dst)`` to ``(N, 2 C)`` (``[beta, gamma]``);
            each relation and the skip get a deep copy. ``None``: a ``Linear`` per
            relation (with bias) and a ``Linear`` without bias for the skip, as PyG.
        act: the activation (``'relu'`` default, a name, a callable on arrays, or None).
        aggr: ``'mean'`` (PyG's default), ``'add'`` / ``'sum'``, ``'max'``, ``'min'``.

    Call as ``conv(x, edge_index, edge_type=None)``, ``conv((x_src, x_dst), edge_index,
    edge_type)`` or ``conv(graph, feat, edge_type)``; a CSR (one relation) or
    :class:`~arraygnn.nn.RelationGroups` (``conv(x, groups)``) may stand in for
    ``edge_index``. Names (PyG): ``lins.<r>.weight``, ``films.<r>.*``,
    ``lin_skip.weight``, ``film_skip.*``.

    Shapes:
        input:  x (N, F) or ((N_src, in_src), (N_dst, in_dst)), edge_index (2, E),
                edge_type (E,) ints in [0, num_relations)
        output: (N_dst, out_channels)
    """

    _child_names = ("lins", "films", "lin_skip", "film_skip")

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        num_relations: int = 1,
        nn: Module | None = None,
        act: Any = "relu",
        aggr: str = "mean",
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        name = "FiLMConv"
        self.in_channels, in_src, in_dst = channels_pair(name, in_channels)
        self.in_src, self.in_dst = in_src, in_dst
        self.out_channels = out = layer_size(name, "out_channels", out_channels, minimum=1)
        self.num_relations = layer_size(name, "num_relations", num_relations, minimum=1)
        if nn is not None and not isinstance(nn, Module):
            raise TypeError(
                f"{name}: nn must be an arraygnn.nn Module or None, got {type(nn).__name__}"
            )
        if aggr not in _AGGRS:
            raise ValueError(f"{name}: aggr must be one of {sorted(_AGGRS)}, got {aggr!r}")
        self.aggr = _AGGRS[aggr]
        self.act = get_activation(act)
        gen = _rng(rng)
        lins, films = [], []
        for _ in range(self.num_relations):
            lins.append(Linear(in_src, out, False, dtype=dtype, rng=gen))
            films.append(
                Linear(in_dst, 2 * out, dtype=dtype, rng=gen) if nn is None else copy.deepcopy(nn)
            )
        self.lins = _ModuleList(lins)
        self.films = _ModuleList(films)
        self.lin_skip = Linear(in_dst, out, False, dtype=dtype, rng=gen)
        self.film_skip = (
            Linear(in_dst, 2 * out, False, dtype=dtype, rng=gen)
            if nn is None
            else copy.deepcopy(nn)
        )

    def _film(self, film: Module, x: Any) -> tuple[Any, Any]:
        """``(beta, gamma)`` of ``film(x)``, checked to be ``(N, 2 C)``."""
        out = film(x)
        if out.ndim != 2 or out.shape[1] != 2 * self.out_channels:
            raise ValueError(
                f"FiLMConv: nn must map (N, {self.in_dst}) to (N, {2 * self.out_channels}), "
                f"gave shape {tuple(out.shape)}"
            )
        return out[:, : self.out_channels], out[:, self.out_channels :]

    def __call__(self, x: Any, edge_index: Any, edge_type: Any = None) -> Any:
        from arraygnn.nn.relation_groups import _check_edge_type, relation_rows
        from arraygnn.nn.rgcn_conv import _edges, _relation_groups, _row_range
        from arraygnn.ops.gather import add_rows

        layer = "FiLMConv"
        groups = _relation_groups(layer, x, edge_index, edge_type, self.num_relations)
        inp = parse_input(layer, x, groups.csr if groups is not None else edge_index)
        weight = self.lin_skip.weight
        _check_features(inp.x_src, self.in_src, f"{layer} x_src", weight)
        _check_features(inp.x_dst, self.in_dst, f"{layer} x_dst", weight)
        if inp.x_src.ndim != 2 or inp.x_dst.ndim != 2:
            raise ValueError(f"{layer}: node features must be (N, F)")
        x_dst = inp.x_dst
        beta, gamma = self._film(self.film_skip, x_dst)
        out = gamma * self.lin_skip(x_dst) + beta
        if self.act is not None:
            out = self.act(out)
        if self.num_relations == 1:
            csr = csr_of(inp)
            beta, gamma = self._film(self.films[0], x_dst)
            return out + self._relation(csr, self.lins[0](inp.x_src), gamma, beta)
        if groups is not None:
            rows = groups.rows()
        else:
            etype = _check_edge_type(layer, edge_type, inp.num_edges, self.num_relations)
            rows = relation_rows(_edges(inp), etype, self.num_relations, inp.num_src, inp.num_dst)
        for r in range(self.num_relations):
            a, b = int(rows.rel_ptr[r]), int(rows.rel_ptr[r + 1])
            if a == b:
                continue
            targets = rows.row_dst[a:b]
            beta, gamma = self._film(self.films[r], x_dst[targets])
            part = _row_range(rows.csr, a, b)
            h = self._relation(part, self.lins[r](inp.x_src), gamma, beta)
            if h.dtype != out.dtype:
                out = out.astype(np.result_type(out.dtype, h.dtype))
            add_rows(out, targets, h.astype(out.dtype, copy=False))
        return out

    def _relation(self, csr: Any, y: Any, gamma: Any, beta: Any) -> Any:
        """``aggr_j act(gamma_i * y_j + beta_i)`` for every CSR row ``i`` (``gamma`` /
        ``beta`` one row per CSR row); 0 for a row without edges."""
        from arraygnn import ops
        from arraygnn.ops.slot_order import sddmm_slots, spmm_slots

        xp = get_namespace(y)
        deg = csr.in_degrees()
        act, aggr = self.act, self.aggr
        if act is None and aggr in ("sum", "mean"):
            agg = spmm_slots(csr, y, None, aggr)
            scale = deg if aggr == "sum" else (deg > 0)
            return gamma * agg + scale.astype(agg.dtype)[:, None] * beta
        if aggr in ("max", "min") and is_monotone(act):
            high = spmm_slots(csr, y, None, "max")
            low = spmm_slots(csr, y, None, "min")
            up = gamma >= 0 if aggr == "max" else gamma < 0
            h = gamma * xp.where(up, high, low) + beta
            if act is not None:
                h = act(h)
            return xp.where((deg > 0)[:, None], h, 0).astype(h.dtype, copy=False)

        def rows(part: Any, start: int, stop: int, first: int, last: int) -> Any:
            msg = sddmm_slots(part, y, gamma[start:stop], op="mul")
            msg += sddmm_slots(part, None, beta[start:stop], op="copy_rhs")
            if act is not None:
                msg = act(msg)
            return ops.segment(msg, part.indptr, reduce=aggr)

        return map_row_chunks(csr, 3 * y.shape[1] * y.dtype.itemsize, rows)

    def extra_repr(self) -> str:
        return (
            f"{self.in_channels}, {self.out_channels}, num_relations={self.num_relations}, "
            f"aggr={self.aggr!r}"
        )
