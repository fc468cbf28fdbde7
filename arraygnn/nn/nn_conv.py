"""Edge-conditioned convolution (Gilmer et al.'s MPNN edge network): PyG's ``NNConv`` and
DGL's ``NNConv``.

``x_i' = x_i Theta_root + b + aggr_{j in N(i)} x_j h_Theta(e_ji)``, where ``h_Theta`` maps
each edge's features to an ``[in, out]`` matrix. Two ways to the ``[E, out]`` messages,
which then reduce on their targets (one ``ops.scatter``):

- **factored** (when ``h_Theta`` ends in a ``Linear``, ``W_e = z_e A + c`` with ``z_e`` the
  ``hid``-wide input of that layer, and it does fewer products): ``x_j W_e = z_e (x_j A) +
  x_j c``, so each *source* gets one ``[hid + 1, out]`` matrix ``Q_j`` (one BLAS product
  over the nodes) and each edge one ``[1, hid + 1] x [hid + 1, out]`` product
  (``ops.gather_mm``, edges in source order so ``Q_j`` is read once): ``(N in + E)(hid +
  1) out`` multiply-adds instead of ``E in out (hid + 1)``. ``Q`` is made ``CHUNK_BYTES``
  of sources at a time. Same maths, other rounding (the sums are reassociated).
- **direct** otherwise: the per-edge matrices are made and used a chunk of edges at a time
  (``CHUNK_BYTES``), so the ``[E, in, out]`` array PyG and DGL form is never whole.

PyG's other aggregations (``aggr_module``: a list of names, ``'std'``, an
:mod:`arraygnn.nn.aggr` object) take the same ``[E, out]`` messages, grouped by target with
each target's in edge-id order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.kernels.cpu._threads import small_product
from arraygnn.nn._graph_input import check_edge_attr, parse_input
from arraygnn.nn._module import Module, _pair, is_size, layer_size
from arraygnn.nn.gin_conv import _first_in_features
from arraygnn.nn.linear import MLP, Linear, Sequential, _check_features, add_bias, matmul
from arraygnn.nn.sage_conv import _aggregation, aggregate_edge_messages

__all__ = ["NNConv"]

#: bytes of per-edge ``[in, out]`` matrices (direct) or per-source ``Q`` (factored) made
#: at once
CHUNK_BYTES = 32 * 2**20

#: False: always the direct path (tests run both on the same cases)
FACTORED = True
#: the factored path runs when its multiply-adds are at most this share of the direct
#: path's (it also sorts the edges by source, and gather_mm runs below BLAS speed).
#: Measured on the 2-core box, 20k nodes / 200k edges, 32 -> 32, edge MLP 4 -> 64 -> 1024
#: (share 0.13): see benchmarks/RESULTS.md
FACTORED_MAX_SHARE = 0.5

_AGGRS = {"add": "sum", "sum": "sum", "mean": "mean", "max": "max", "min": "min"}


class NNConv(Module):
    r"""Edge-conditioned convolution, PyG's ``NNConv`` names.

    .. math:: x_i' = \Theta_{root} x_i + b + \mathrm{aggr}_{j \in N(i)} x_j \cdot
              h_\Theta(e_{ji})

    Args:
        in_channels: input size, or ``(src, dst)`` sizes.
        out_channels: output size.
        nn: an arraygnn module (``MLP``, ``Sequential``, ``Linear``, ...) mapping edge
            features ``(E, D)`` to ``(E, in_src * out)``, each edge's row on its own (as
            PyG and DGL assume: it runs on chunks of edges, in any order).
        aggr: ``'add'`` (PyG's default) / ``'sum'``, ``'mean'`` (DGL's default), ``'max'``,
            ``'min'`` over each target's messages ``x_j h(e_ji)`` (a target without edges: 0),
            or PyG's others: a list of names (a ``MultiAggregation``; its ``'cat'`` output
            is ``k`` times wider, so only without root weight and bias, as in PyG), another
            name (``'std'``, ``'softmax'``, ...) or an :mod:`arraygnn.nn.aggr` object
            (``aggr_module``).
        root_weight: add ``lin(x_i)`` (PyG's ``lin``, DGL's ``res_fc`` Linear);
            ``'identity'`` adds ``x_i`` itself (DGL's residual when sizes match).
        bias: additive bias.

    Call as ``conv(x, edge_index, edge_attr)``, ``conv((x_src, x_dst), edge_index,
    edge_attr)`` or DGL's ``conv(graph, feat, efeat)``.

    Shapes:
        - input: ``(N_src, in_src)``, edge_attr ``(E, D)`` (``nn``'s input)
        - output: ``(N_dst, out_channels)``
        - memory: ``(E, out)`` messages, and per chunk ``(sources, hid + 1, out)`` and
          ``(edges, hid + 1)`` (factored) or ``(edges, in, out)`` (direct)

    Names: ``nn.*``, ``lin.weight`` ``(out, in_dst)``, ``bias`` (PyG); DGL's
    ``edge_func.*``, ``res_fc.weight``, ``bias`` load too.

    >>> import numpy as np
    >>> from arraygnn.nn import Linear
    >>> conv = NNConv(3, 2, Linear(4, 3 * 2, rng=0), rng=1)
    >>> ei = np.array([[0, 1, 2], [1, 2, 0]])
    >>> conv(np.ones((3, 3), np.float32), ei, np.ones((3, 4), np.float32)).shape
    (3, 2)
    """

    _param_names = ("bias",)
    _child_names = ("nn", "lin", "aggr_module")
    _dgl_supported = True

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        nn: Module,
        aggr: Any = "add",
        root_weight: bool | str = True,
        bias: bool = True,
        *,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        layer = "NNConv"
        if is_size(in_channels):
            self.in_src = self.in_dst = layer_size(layer, "in_channels", in_channels)
        else:
            self.in_src, self.in_dst = _pair(layer, in_channels)
        self.out_channels = layer_size(layer, "out_channels", out_channels)
        if not isinstance(nn, Module):
            raise TypeError(
                f"{layer}: nn must be an arraygnn.nn Module mapping edge features (MLP, "
                f"Sequential, Linear, ...), got {type(nn).__name__}"
            )
        self.aggr_module = _aggregation(aggr, dtype, f"{layer}: aggr", tuple(_AGGRS))
        if root_weight not in (True, False, "identity"):
            raise ValueError(f"{layer}: root_weight must be True, False or 'identity'")
        if root_weight == "identity" and self.in_dst != self.out_channels:
            raise ValueError(
                f"{layer}: an identity root needs in_dst == out_channels "
                f"({self.in_dst} != {self.out_channels})"
            )
        self.nn = nn
        self.aggr = _AGGRS[aggr] if self.aggr_module is None else aggr
        self.root_weight = root_weight
        self.lin = (
            Linear(self.in_dst, self.out_channels, False, dtype=dtype, rng=rng)
            if root_weight is True
            else None
        )
        self.bias = np.zeros(self.out_channels, dtype=dtype) if bias else None

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_attr: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("NNConv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "NNConv source features")
        if edge_attr is None:
            raise TypeError("NNConv: edge_attr (the edge features nn maps) is required")
        width = _first_in_features(self.nn)  # the edge feature size nn takes, when known
        if width is None:
            width = edge_attr.shape[1] if getattr(edge_attr, "ndim", 0) == 2 else 1
        edge_attr = check_edge_attr(
            "NNConv", edge_attr, inp.num_edges, width, inp.x_src, " (the input of nn)"
        )
        num_edges, n_in = inp.num_edges, self.in_src
        split = _last_linear(self.nn) if FACTORED else None
        share = (inp.num_src * n_in + num_edges) / max(num_edges * n_in, 1)
        rows = None  # the edge of each message row, when not edge order
        if split is not None and num_edges and share <= FACTORED_MAX_SHARE:
            messages, targets, rows = self._factored_messages(inp, edge_attr, *split)
        else:
            messages, targets = self._direct_messages(inp, edge_attr), inp.dst
        if self.aggr_module is not None:
            out = aggregate_edge_messages(self.aggr_module, inp, messages, rows)
            adds_root = self.root_weight is not False and inp.x_dst is not None
            if out.shape[-1] != self.out_channels and (adds_root or self.bias is not None):
                raise ValueError(  # PyG fails on the sum as well
                    f"NNConv: the aggregation gives {out.shape[-1]} features per node, not "
                    f"out_channels={self.out_channels} (a list of aggregations concatenates "
                    "them): the root weight and bias cannot be added; use root_weight=False, "
                    "bias=False or a MultiAggregation mode other than 'cat'"
                )
        else:
            out = ops.scatter(messages, targets, inp.num_dst, reduce=self.aggr)
        if self.root_weight is not False and inp.x_dst is not None:
            _check_features(inp.x_dst, self.in_dst, "NNConv destination features")
            out = out + (self.lin(inp.x_dst) if self.lin is not None else inp.x_dst)
        if self.bias is not None:
            out = add_bias(out, self.bias)
        return out

    def _check_width(self, got: Any) -> None:
        n_in, n_out = self.in_src, self.out_channels
        if got != n_in * n_out:
            raise ValueError(
                f"NNConv: nn must map edge features to (E, {n_in} * {n_out}) = "
                f"(E, {n_in * n_out}), got (E, {got})"
            )

    def _factored_messages(
        self, inp: Any, edge_attr: Any, prefix: Any, last: Linear
    ) -> tuple[Any, Any, Any]:
        """``[E, out]`` messages in source order, their targets and their edge ids (see the
        module docstring): ``m_e = [z_e, 1] @ Q_src`` with ``Q_j = x_j @ [A | c]``."""
        from arraygnn import ops
        from arraygnn.kernels.reference import rows_of_slots

        self._check_width(last.out_features)
        n_in, n_out = self.in_src, self.out_channels
        xp = get_namespace(inp.x_src)
        by_src = ops.to_csr((inp.dst, inp.src), inp.num_dst, inp.num_src)  # rows: sources
        # the edge network maps each edge on its own: run it on the edges in source order
        attr = ops.gather(edge_attr, by_src.perm)
        hid = last.in_features
        # A[i, k, o] = weight[i * out + o, k]; the bias row c[i, o] rides as depth k = hid
        coef = last.weight.reshape(n_in, n_out, hid).transpose(0, 2, 1)
        if last.bias is not None:
            coef = xp.concatenate([coef, last.bias.reshape(n_in, 1, n_out)], axis=1)
        depth = int(coef.shape[1])
        # Q in the dtype the direct path's products would have (edge features included)
        coef_dtype = np.result_type(coef.dtype, inp.x_src.dtype, edge_attr.dtype)
        coef = xp.ascontiguousarray(coef.reshape(n_in, depth * n_out), dtype=coef_dtype)
        src = rows_of_slots(xp, by_src.indptr).astype(by_src.index_dtype, copy=False)
        dtype = np.result_type(inp.x_src.dtype, coef.dtype)
        messages = None
        row_bytes = max(depth * n_out * np.dtype(dtype).itemsize, 1)
        sources_step = max(1, CHUNK_BYTES // row_bytes)  # rows of Q at once
        edges_step = max(1, CHUNK_BYTES // (depth * np.dtype(dtype).itemsize))  # rows of z
        indptr = to_numpy(by_src.indptr)  # N + 1 numbers (one copy on a GPU)
        for s0 in range(0, inp.num_src, sources_step):
            s1 = min(inp.num_src, s0 + sources_step)
            first, stop = int(indptr[s0]), int(indptr[s1])
            if first == stop:
                continue
            q = matmul(inp.x_src[s0:s1], coef).reshape(s1 - s0, depth, n_out)
            for e0 in range(first, stop, edges_step):
                e1 = min(stop, e0 + edges_step)
                z = prefix(attr[e0:e1])  # the last Linear's input
                _check_features(z, hid, "NNConv nn's last Linear input")
                if last.bias is not None:
                    z = xp.concatenate([z, xp.ones((e1 - e0, 1), dtype=z.dtype)], axis=1)
                part = ops.gather_mm(z, q, idx_b=src[e0:e1] - s0)
                if messages is None:
                    messages = xp.empty((inp.num_edges, n_out), dtype=part.dtype)
                messages[e0:e1] = part
        return messages, by_src.indices, by_src.perm

    def _direct_messages(self, inp: Any, edge_attr: Any) -> Any:
        from arraygnn import ops

        xp = get_namespace(inp.x_src)
        num_edges, n_in, n_out = inp.num_edges, self.in_src, self.out_channels
        messages = None
        per_edge = max(n_in * n_out * edge_attr.dtype.itemsize, 1)
        step = max(1, CHUNK_BYTES // per_edge)
        for start in range(0, num_edges, step):
            stop = min(num_edges, start + step)
            weights = self.nn(edge_attr[start:stop])
            if weights.ndim != 2:
                raise ValueError(
                    f"NNConv: nn must map edge features to (E, {n_in} * {n_out}) = "
                    f"(E, {n_in * n_out}), got {tuple(weights.shape)}"
                )
            self._check_width(int(weights.shape[1]))
            x_j = ops.gather(inp.x_src, inp.src[start:stop])
            with small_product(2.0 * weights.size):  # a batch of [1, in] x [in, out]
                part = xp.matmul(x_j[:, None, :], weights.reshape(-1, n_in, n_out))[:, 0, :]
            if messages is None:
                messages = xp.empty((num_edges, n_out), dtype=part.dtype)
            messages[start:stop] = part
        if messages is None:  # no edges
            dtype = np.result_type(inp.x_src.dtype, edge_attr.dtype)
            messages = xp.empty((0, n_out), dtype=dtype)
        return messages

    _DGL_NAMES = (("edge_func.", "nn."), ("res_fc.", "lin."))

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in values.items():
            for dgl, ours in self._DGL_NAMES:
                if key.startswith(dgl):
                    key = ours + key[len(dgl) :]
                    break
            out[key] = value
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in values.items():
            for dgl, ours in self._DGL_NAMES:
                if key.startswith(ours):
                    key = dgl + key[len(ours) :]
                    break
            out[key] = value
        return out

    def extra_repr(self) -> str:
        return f"({self.in_src}, {self.in_dst}), {self.out_channels}, aggr={self.aggr!r}"


def _last_linear(nn: Any) -> tuple[Any, Linear] | None:
    """``(prefix, last)`` when ``nn(e) == last(prefix(e))`` with ``last`` a plain
    :class:`Linear` (a ``Linear``, a ``Sequential`` ending in one, an ``MLP`` with
    ``plain_last``), else None."""
    if type(nn) is Linear:
        return (lambda e: e), nn
    if type(nn) is Sequential and len(nn) and type(nn[len(nn) - 1]) is Linear:
        steps = nn.steps[:-1]

        def prefix(e: Any) -> Any:
            for step in steps:
                e = step(e)
            return e

        return prefix, nn[len(nn) - 1]
    if type(nn) is MLP and nn.plain_last and type(nn.lins[len(nn.lins) - 1]) is Linear:
        return nn.before_last, nn.lins[len(nn.lins) - 1]
    return None
