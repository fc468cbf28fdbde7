"""GraphSAGE (Hamilton et al.): ``SAGEConv`` with mean / sum / max / gcn / pool / lstm
aggregators.

Follows the seed's forward (``expand_as_pair``, the aggregators, activation then norm) and
PyG's ``SAGEConv`` (``lin_l`` on the aggregate with bias, ``lin_r`` on the root, optional
``project`` and ``normalize``). The neighbour projection is applied *before* message
passing when it shrinks features and commutes with the aggregator (mean, sum, gcn), as
DGL does, so the SpMM moves fewer columns.

DGL's ``'lstm'`` aggregator runs an LSTM (hidden size = input size, zero initial state)
over each destination node's in-edge messages in increasing edge-id order (DGL's
degree-bucketed mailbox, ``core.invoke_udf_reduce``) and takes its last hidden state; a
node without in-edges aggregates to 0. Here the nodes are sorted by in-degree and step
``t`` advances the LSTM of the nodes with more than ``t`` in-edges (a prefix of that
order): ``max in-degree`` batched steps, ``E`` rows in all (one host copy of the degrees
on CuPy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import (
    check_edge_weight,
    csr_of,
    in_degrees,
    parse_input,
    spmm_edges,
)
from arraygnn.nn._module import Module, _pair, is_size, layer_size
from arraygnn.nn.linear import LSTM, Linear, _check_features, _rng, get_activation, matmul

__all__ = ["SAGEConv"]

_AGGREGATORS = ("mean", "sum", "max", "gcn", "pool", "lstm")


def l2_normalize(x: Any, eps: float = 1e-12) -> Any:
    """Rows divided by ``max(||row||_2, eps)`` (PyTorch's ``F.normalize``)."""
    xp = get_namespace(x)
    norm = xp.sqrt((x * x).sum(axis=-1, keepdims=True))
    return x / xp.maximum(norm, eps)


class SAGEConv(Module):
    r"""GraphSAGE layer.

    .. math:: h_i' = W_r h_i + W_l \,\mathrm{aggr}_{j \in N(i)} h_j + b

    ``aggregator_type``: ``'mean'`` (default), ``'sum'``, ``'max'``, ``'pool'`` (DGL's
    max-pool: ``relu(W_p h_j + b_p)`` then max; PyG's ``aggr='max', project=True``),
    ``'gcn'`` (DGL: ``(sum_j h_j + h_i) / (deg_i + 1)`` and no root weight), or ``'lstm'``
    (DGL's: the last hidden state of an LSTM run over each node's in-edge messages in
    edge-id order, ``h_j * w_ji`` with ``edge_weight``; see the module docstring). Empty
    neighbourhoods aggregate to 0. PyG's other aggregations: a list of names (PyG's
    ``aggr=['mean', 'max']``, a :class:`~arraygnn.nn.aggr.MultiAggregation` whose ``'cat'``
    output widens ``lin_l`` to ``k * in_src``) or an :mod:`arraygnn.nn.aggr` object
    (softmax, power mean, std, PyG's ``LSTMAggregation``, which pads every node to the
    largest in-degree and runs the padding too, ...), kept as ``aggr_module``; each
    node's messages reach it in edge-id order (PyG requires edges sorted by target there).

    Args:
        in_feats: input size, or ``(src_size, dst_size)`` for bipartite inputs.
        out_feats: output size.
        aggregator_type: see above.
        bias: additive bias (PyG's ``lin_l.bias``, DGL's ``bias``).
        root_weight: add ``W_r h_i`` (PyG; forced off for ``'gcn'``).
        project: project neighbours with ``relu(W_p h + b_p)`` first (on for ``'pool'``).
        normalize: L2-normalise output rows (PyG's ``normalize``).
        activation: applied before ``normalize`` / ``norm`` (DGL order).
        norm: a callable applied last (DGL's ``norm``).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)``, ``conv(graph,
    feat, edge_weight=None)``, ``conv(graph, (feat_src, feat_dst))`` or ``conv(block, feat)``.

    Shapes:
        - input: ``(N_src, in_src)`` and ``(N_dst, in_dst)`` (pair form), edge_weight ``(E,)``
        - output: ``(N_dst, out_feats)``

    Parameter names (PyG): ``lin_l.weight`` ``(out, in_src)``, ``lin_l.bias``,
    ``lin_r.weight`` ``(out, in_dst)``, ``lin.weight`` / ``lin.bias`` ``(in_src, in_src)``
    for projection; ``lstm.weight_ih_l0`` ``(4 in_src, in_src)``, ``lstm.weight_hh_l0``,
    ``lstm.bias_ih_l0``, ``lstm.bias_hh_l0`` for ``'lstm'`` (DGL's names too). DGL names
    (``fc_neigh``, ``fc_self`` with its bias, ``fc_pool``, ``bias``) load too.
    """

    _child_names = ("lin", "lin_l", "lin_r", "lstm", "aggr_module")
    _dgl_supported = True

    def __init__(
        self,
        in_feats: int | tuple[int, int],
        out_feats: int,
        aggregator_type: Any = "mean",
        *,
        bias: bool = True,
        root_weight: bool = True,
        project: bool = False,
        normalize: bool = False,
        activation: Any = None,
        norm: Any = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.aggr_module = _aggregation(aggregator_type, dtype)
        if self.aggr_module is None and aggregator_type not in _AGGREGATORS:
            raise ValueError(
                f"SAGEConv aggregator_type must be one of {_AGGREGATORS}, a list of names or an "
                f"arraygnn.nn.aggr aggregation (PyG's), got {aggregator_type!r}"
            )
        if is_size(in_feats):
            self.in_src = self.in_dst = layer_size("SAGEConv", "in_feats", in_feats)
        else:
            self.in_src, self.in_dst = _pair("SAGEConv", in_feats)
        self.out_feats = layer_size("SAGEConv", "out_feats", out_feats)
        self.aggregator_type = aggregator_type
        if aggregator_type == "gcn":
            if self.in_src != self.in_dst:
                raise ValueError(
                    "SAGEConv 'gcn' aggregator needs equal source and destination sizes"
                )
            if project:  # neither DGL's 'gcn' nor PyG has it; the self term would be ambiguous
                raise ValueError(
                    "SAGEConv: project=True is not available with the 'gcn' aggregator "
                    "(DGL's 'gcn' has no projection)"
                )
            root_weight = False
        self.project = bool(project) or aggregator_type == "pool"
        self.root_weight = bool(root_weight)
        self.normalize = bool(normalize)
        self.activation = get_activation(activation)
        self.norm = norm
        gen = _rng(rng)
        self.lin = (
            Linear(self.in_src, self.in_src, True, dtype=dtype, rng=gen) if self.project else None
        )
        aggr_out = self.in_src  # PyG: a MultiAggregation's 'cat' widens lin_l's input
        if hasattr(self.aggr_module, "get_out_channels"):
            aggr_out = int(self.aggr_module.get_out_channels(self.in_src))
        self.lin_l = Linear(aggr_out, self.out_feats, bias, dtype=dtype, rng=gen)
        self.lin_r = (
            Linear(self.in_dst, self.out_feats, False, dtype=dtype, rng=gen)
            if self.root_weight
            else None
        )
        self.lstm = (
            LSTM(self.in_src, self.in_src, dtype=dtype, rng=gen)
            if aggregator_type == "lstm"
            else None
        )

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_weight: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("SAGEConv", graph_or_x, feat_or_edge_index, size)
        _check_features(inp.x_src, self.in_src, "SAGEConv source features")
        if inp.x_dst is not None and (self.root_weight or self.aggregator_type == "gcn"):
            _check_features(inp.x_dst, self.in_dst, "SAGEConv destination features")
        if inp.x_dst is None and self.aggregator_type == "gcn":  # its self term needs them
            raise ValueError(
                "SAGEConv: the 'gcn' aggregator adds each destination's own features; pass "
                "x_dst, not (x_src, None)"
            )
        check_edge_weight("SAGEConv", edge_weight, inp.num_edges)
        aggr = self.aggregator_type
        h = inp.x_src
        if self.lin is not None:
            h = get_namespace(h).maximum(self.lin(h), 0)
        linear_first = aggr in ("mean", "sum", "gcn") and self.in_src > self.out_feats
        lin_l = self.lin_l
        if linear_first:
            h = matmul(h, lin_l.weight.T)
        if aggr == "gcn":
            csr = csr_of(inp)  # for the degrees too
            summed = ops.spmm(
                csr, h, edge_weight=edge_weight, reduce="sum", num_dst_nodes=inp.num_dst
            )
            if inp.homogeneous and inp.x_dst is inp.x_src:
                h_dst = h
            else:
                h_dst = matmul(inp.x_dst, lin_l.weight.T) if linear_first else inp.x_dst
            deg = in_degrees(inp, summed.dtype, csr)
            neigh = (summed + h_dst) / (deg.reshape((-1,) + (1,) * (summed.ndim - 1)) + 1)
        elif self.aggr_module is not None:
            neigh = self._module_aggregate(inp, h, edge_weight)
        elif aggr == "lstm":
            neigh = self._lstm_aggregate(inp, h, edge_weight)
        else:
            reduce = "max" if aggr in ("max", "pool") else aggr
            neigh = ops.spmm(
                spmm_edges(inp),
                h,
                edge_weight=edge_weight,
                reduce=reduce,
                num_dst_nodes=inp.num_dst,
            )
        out = neigh if linear_first else matmul(neigh, lin_l.weight.T)
        if lin_l.bias is not None:
            out = out + lin_l.bias
        if self.root_weight and self.lin_r is not None and inp.x_dst is not None:
            out = out + self.lin_r(inp.x_dst)  # root_weight read here: DirGNNConv clears it
        if self.activation is not None:
            out = self.activation(out)
        if self.normalize:
            out = l2_normalize(out)
        if self.norm is not None:
            out = self.norm(out)
        return out

    def _module_aggregate(self, inp: Any, h: Any, edge_weight: Any) -> Any:
        """``aggr_module`` over each destination's messages ``h_j`` (``* w_ji`` with
        ``edge_weight``), grouped by a CSR ``ptr`` in edge-id order within each group."""
        order = _edge_id_order(inp, get_namespace(h))
        return module_aggregate(self.aggr_module, h, order, edge_weight, inp.num_dst)

    def _lstm_aggregate(self, inp: Any, h: Any, edge_weight: Any) -> Any:
        """DGL's LSTM reducer: per destination node, the LSTM's last hidden state over its
        in-edge messages in edge-id order (0 for a node without in-edges)."""
        from arraygnn import ops
        from arraygnn._namespace import to_numpy

        xp = get_namespace(h)
        if h.ndim != 2:
            raise ValueError(
                f"SAGEConv 'lstm': features must be 2-D (N, in_feats), got {tuple(h.shape)}"
            )
        indptr, perm, indices = _edge_id_order(inp, xp)
        n_dst = inp.num_dst
        dtype = np.result_type(h.dtype, self.lstm.weight_ih_l0.dtype)
        neigh = xp.zeros((n_dst, self.in_src), dtype=dtype)
        if inp.num_edges == 0 or n_dst == 0:
            return neigh
        deg = (indptr[1:] - indptr[:-1]).astype(np.int64)
        order = xp.argsort(-deg)  # the nodes, most in-edges first (ties: any order)
        starts = indptr[:-1].astype(np.int64)[order]
        host_deg = np.sort(to_numpy(deg))[::-1]  # sizes per step: one host copy
        active = np.searchsorted(-host_deg, -np.arange(int(host_deg[0])), side="left")
        state = xp.zeros((1, int(active[0]), self.in_src), dtype=dtype)
        hidden, cell = state, state.copy()
        for t, n in enumerate(active.tolist()):
            slots = starts[:n] + t
            x = ops.gather(h, indices[slots])
            if edge_weight is not None:
                x = x * edge_weight[perm[slots]][:, None]
            _, (h_n, c_n) = self.lstm(x[None], (hidden[:, :n], cell[:, :n]))
            hidden[:, :n], cell[:, :n] = h_n, c_n
        neigh[order[: hidden.shape[1]]] = hidden[0]
        return neigh

    _DGL = {
        "fc_neigh.weight": "lin_l.weight",
        "bias": "lin_l.bias",
        "fc_self.weight": "lin_r.weight",
        "fc_pool.weight": "lin.weight",
        "fc_pool.bias": "lin.bias",
    }
    #: where DGL keeps the one output bias: DGL >= 1.0 in ``fc_self`` (every aggregator but
    #: 'gcn'), DGL 0.8 / 0.9 in ``bias``, DGL < 0.8 in ``fc_neigh``; each is added once
    _DGL_BIASES = ("fc_self.bias", "bias", "fc_neigh.bias")

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in values.items():
            if key not in self._DGL_BIASES:
                out[self._DGL.get(key, key)] = value
        for key in self._DGL_BIASES:
            if key in values:
                extra = values[key]
                out["lin_l.bias"] = out["lin_l.bias"] + extra if "lin_l.bias" in out else extra
        return out

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        """DGL >= 1.0's names: the bias in ``fc_self`` (``bias`` for 'gcn', which has no
        ``fc_self``)."""
        back = {v: k for k, v in self._DGL.items()}
        if self.aggregator_type != "gcn":
            back["lin_l.bias"] = "fc_self.bias"
        return {back.get(k, k): v for k, v in values.items()}  # lstm.*: DGL's names too

    def extra_repr(self) -> str:
        sizes = f"({self.in_src}, {self.in_dst}), {self.out_feats}"
        return f"{sizes}, aggregator_type={self.aggregator_type!r}"


def _aggregation(
    aggregator_type: Any,
    dtype: Any,
    where: str = "SAGEConv: aggregator_type",
    native: tuple[str, ...] | None = None,
) -> Any:
    """PyG's aggregation for a list of names (a ``MultiAggregation``) or an
    ``arraygnn.nn.aggr`` object; None for arraygnn's own names (strings).

    With ``native`` (the names a layer fuses into one SpMM / segment: a ``'sum'`` there
    keeps the fast path), every other name goes to
    :func:`~arraygnn.nn.aggr.aggregation_resolver` (``'std'``, ``'softmax'``, ...) as in
    PyG's ``MessagePassing(aggr=...)``, and anything unknown raises a ``ValueError``
    naming ``where``; None means a native name."""
    from arraygnn.nn.aggr import Aggregation, aggregation_resolver

    if isinstance(aggregator_type, Aggregation):
        return aggregator_type
    is_name = isinstance(aggregator_type, str)
    if native is not None and is_name and aggregator_type in native:
        return None
    if isinstance(aggregator_type, (list, tuple)) or (native is not None and is_name):
        query = aggregator_type if is_name else list(aggregator_type)
        try:
            return aggregation_resolver(query, dtype=dtype)
        except (TypeError, ValueError) as err:
            if native is not None and is_name:
                msg = f"{_choices(where, native)}, got {aggregator_type!r} ({err})"
                raise type(err)(msg) from None
            raise type(err)(f"{where}={aggregator_type!r}: {err}") from None
    if native is not None:
        raise ValueError(f"{_choices(where, native)}, got {aggregator_type!r}")
    return None


def _choices(where: str, native: tuple[str, ...]) -> str:
    return (
        f"{where} must be one of {', '.join(map(repr, native))}, another name of "
        "arraygnn.nn.aggr.aggregation_resolver (PyG's), a list of names or an "
        "arraygnn.nn.aggr aggregation"
    )


def module_aggregate(
    aggr_module: Any, h: Any, order: tuple[Any, Any, Any], edge_weight: Any, num_dst: int
) -> Any:
    """``aggr_module`` over each destination's gathered messages ``h_j`` (``* w_ji`` with
    ``edge_weight``, in edge order), ``order`` the ``(indptr, perm, indices)`` of
    :func:`_edge_id_order` (or of a CSR built with ``to_csr``): the general path, which
    materialises the ``[E, F]`` messages."""
    from arraygnn import ops

    indptr, perm, indices = order
    msg = ops.gather(h, indices)
    if edge_weight is not None:
        msg = msg * edge_weight[perm].reshape((-1,) + (1,) * (msg.ndim - 1))
    return aggr_module(msg, ptr=indptr, dim_size=num_dst, dim=0)


def aggregate_edge_messages(aggr_module: Any, inp: Any, messages: Any, rows: Any = None) -> Any:
    """``aggr_module`` over per-edge ``messages`` ``[E, ...]`` on their destinations, each
    destination's messages in edge-id order; row ``k`` of ``messages`` is edge ``k``, or
    edge ``rows[k]`` when ``rows`` (a permutation of the edges) is given."""
    from arraygnn import ops

    xp = get_namespace(messages)
    indptr, perm, _ = _edge_id_order(inp, xp)
    if rows is not None:  # where each edge's row is: the inverse permutation
        at = xp.empty_like(rows)
        at[rows] = xp.arange(rows.shape[0], dtype=rows.dtype)
        perm = at[perm]
    return aggr_module(ops.gather(messages, perm), ptr=indptr, dim_size=inp.num_dst, dim=0)


def _edge_id_order(inp: Any, xp: Any) -> tuple[Any, Any, Any]:
    """``(indptr, perm, indices)`` grouping the edges by destination, each group's slots in
    edge-id order (``to_csr``'s stable sort; a caller's CSR is sorted again)."""
    from arraygnn.ops.csr import sorted_segments

    if inp.csr is None:
        csr = csr_of(inp)
        return csr.indptr, csr.perm, csr.indices
    indptr, perm = sorted_segments(xp, inp.dst, inp.num_dst)
    return indptr, perm, inp.src[perm]


_GRAPH_CONV_NAMES = (("lin_rel.", "lin_l."), ("lin_root.", "lin_r."))


def rename_prefixes(values: dict, pairs: tuple, reverse: bool = False) -> dict:
    """Keys starting with one prefix of each pair renamed to the other (``reverse``: back)."""
    out = {}
    for key, value in values.items():
        for theirs, ours in pairs:
            old, new = (ours, theirs) if reverse else (theirs, ours)
            if key.startswith(old):
                key = new + key[len(old) :]
                break
        out[key] = value
    return out


class PyGGraphConv(SAGEConv):
    """PyG's ``GraphConv`` (Morris et al.): ``W_root x_i + W_rel aggr_j x_j + b``, which is
    :class:`SAGEConv` with a root weight; PyG's names ``lin_rel.*`` / ``lin_root.weight``
    (``lin_l`` / ``lin_r`` here). ``from_pyg`` builds it from PyG's ``GraphConv``, its
    aggregation included (a list of names, ``'std'``, an aggregation object: see
    :class:`SAGEConv`); PyG's edge weights are ``conv(x, edge_index, edge_weight)``
    (``aggr_j w_ji x_j``, as PyG).

    >>> import numpy as np
    >>> conv = PyGGraphConv(3, 2, "sum", rng=0)
    >>> sorted(conv.state_dict())
    ['lin_rel.bias', 'lin_rel.weight', 'lin_root.weight']
    """

    def _pyg_aliases(self, values: dict[str, Any]) -> dict[str, Any]:
        return rename_prefixes(super()._pyg_aliases(values), _GRAPH_CONV_NAMES)

    def _export_pyg(self, native: dict[str, Any]) -> dict[str, Any]:
        return rename_prefixes(super()._export_pyg(native), _GRAPH_CONV_NAMES, reverse=True)
