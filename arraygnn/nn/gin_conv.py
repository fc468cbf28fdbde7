"""Graph isomorphism network layers (Xu et al.): ``GINConv`` and ``GINEConv``.

``GINConv``: ``h_i' = nn((1 + eps) h_i + aggr_{j in N(i)} h_j)`` with ``aggr`` sum (default),
mean or max, one fused SpMM. PyG's other aggregations (a list of names, ``'std'``, an
:mod:`arraygnn.nn.aggr` object, kept as ``aggr_module``) take the general path: the
``[E, F]`` messages are formed and grouped by target, each group in edge-id order.

``GINEConv`` (Hu et al., edge features): ``h_i' = nn((1 + eps) h_i + aggr_j ReLU(h_j +
e_ji))``, ``e_ji`` the edge's features (through ``lin`` when ``edge_dim`` is set). The ReLU
sits between the edge term and the reduction, so one ``[E, F]`` message array is formed,
in the CSR's slot order: the gathered source rows plus the edge features, rectified in
place, then a row-parallel ``segment`` (each row read and written once, in order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn._graph_input import (
    check_edge_attr,
    check_edge_weight,
    csr_of,
    parse_input,
    spmm_edges,
)
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import MLP, Linear, Sequential, _check_features, get_activation
from arraygnn.nn.sage_conv import _aggregation, _edge_id_order, module_aggregate

__all__ = ["GINConv", "GINEConv"]


def _init_gin(layer: Module, name: str, nn: Any, eps: float, aggregator: Any, dtype: Any) -> None:
    """The checks and settings GIN and GINE share: ``nn``, ``eps``, ``aggregator_type``
    (a fused name, or PyG's other aggregations as ``aggr_module``)."""
    aggregators = ("sum", "mean", "max")
    # eps first: with DGL's order GINConv(apply_func, 'max', 0.1) the aggregator slot holds
    # DGL's init_eps, and the error should name the swapped arguments
    if eps is None or isinstance(eps, (str, bytes, bool, np.bool_)):
        hint = ""
        if eps in aggregators:  # DGL's order: GINConv(apply_func, aggregator_type, init_eps)
            hint = f" (DGL's second argument is the aggregator: pass aggregator_type={eps!r})"
        raise TypeError(f"{name} eps must be a number, got {eps!r}{hint}")
    if isinstance(aggregator, str) and aggregator == "add":  # PyG's spelling: the fused sum
        aggregator = "sum"
    aggr_module = _aggregation(aggregator, dtype, f"{name} aggregator_type", aggregators)
    if nn is not None and not isinstance(nn, Module):
        raise TypeError(f"{name} nn must be an arraygnn.nn Module or None, got {type(nn)}")
    layer.nn = nn
    layer.aggregator_type = aggregator
    layer.aggr_module = aggr_module
    layer.eps = np.full(1, eps, dtype=dtype)


def _root_and_update(layer: Any, name: str, out: Any, inp: Any) -> Any:
    """``nn(out + (1 + eps) * x_dst)`` (no root term when there are no destination
    features), the end GIN and GINE share."""
    if inp.x_dst is not None:
        if inp.x_dst.shape[1:] != inp.x_src.shape[1:]:
            raise ValueError(
                f"{name}: source and destination features differ in shape "
                f"({tuple(inp.x_src.shape)} vs {tuple(inp.x_dst.shape)})"
            )
        if out.shape[-1] != inp.x_dst.shape[-1]:  # PyG fails on the sum as well
            raise ValueError(
                f"{name}: the aggregation gives {out.shape[-1]} features per node but x_dst "
                f"has {inp.x_dst.shape[-1]} (a list of aggregations concatenates them): the "
                "root term cannot be added; use a MultiAggregation mode other than 'cat', "
                "or call with (x_src, None)"
            )
        out = out + (1 + layer.eps.astype(out.dtype)[0]) * inp.x_dst
    out = layer.nn(out) if layer.nn is not None else out
    activation = getattr(layer, "activation", None)
    return activation(out) if activation is not None else out


def _apply_func_to_nn(values: dict[str, Any]) -> dict[str, Any]:
    """DGL's ``apply_func.*`` names as PyG's ``nn.*``."""
    prefix = "apply_func."
    return {("nn." + k[len(prefix) :] if k.startswith(prefix) else k): v for k, v in values.items()}


def _nn_to_apply_func(values: dict[str, Any]) -> dict[str, Any]:
    return {("apply_func." + k[3:] if k.startswith("nn.") else k): v for k, v in values.items()}


class GINConv(Module):
    """GIN layer: PyG names (``nn.*``, ``eps``) and DGL names (``apply_func.*``, ``eps``).

    Args:
        nn: the update network (``Linear``, ``MLP``, ``Sequential`` or any arraygnn
            ``Module``), or ``None`` for none (DGL's ``apply_func=None``).
        eps: the ``eps`` value (stored as a ``(1,)`` array like PyG / DGL).
        aggregator_type: ``'sum'`` (default), ``'mean'`` or ``'max'`` (one fused SpMM), or
            PyG's others: a list of names (a ``MultiAggregation``; ``'cat'`` widens the
            aggregate, so only with ``(x_src, None)``), a name such as ``'std'`` or an
            :mod:`arraygnn.nn.aggr` object (``aggr_module``; forms the ``[E, F]`` messages).
        activation: applied after ``nn`` (DGL's ``activation``; a name or a callable).

    Call as ``conv(x, edge_index)``, ``conv((x_src, x_dst), edge_index)``, ``conv(graph,
    feat, edge_weight=None)`` or ``conv(block, feat)``.

    Shapes:
        - input: ``(N_src, F)`` (and ``(N_dst, F)`` in the pair form)
        - output: ``(N_dst, nn's output size)``

    >>> import numpy as np
    >>> from arraygnn.nn import GINConv, MLP
    >>> conv = GINConv(MLP([4, 8, 2], rng=0), eps=0.1)
    >>> conv(np.ones((3, 4), np.float32), np.array([[0, 1], [1, 2]])).shape
    (3, 2)
    """

    _buffer_names = ("eps",)
    _child_names = ("nn", "aggr_module")
    _dgl_supported = True

    def __init__(
        self,
        nn: Module | None,
        eps: float = 0.0,
        aggregator_type: Any = "sum",
        *,
        activation: Any = None,
        dtype: Any = np.float32,
    ) -> None:
        _init_gin(self, "GINConv", nn, eps, aggregator_type, dtype)
        self.activation = get_activation(activation)

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_weight: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops

        inp = parse_input("GINConv", graph_or_x, feat_or_edge_index, size)
        check_edge_weight("GINConv", edge_weight, inp.num_edges)
        if self.aggr_module is not None:  # PyG's other aggregations: [E, F] messages
            order = _edge_id_order(inp, get_namespace(inp.x_src))
            out = module_aggregate(self.aggr_module, inp.x_src, order, edge_weight, inp.num_dst)
            return _root_and_update(self, "GINConv", out, inp)
        out = ops.spmm(
            spmm_edges(inp),
            inp.x_src,
            edge_weight=edge_weight,
            reduce=self.aggregator_type,
            num_dst_nodes=inp.num_dst,
        )
        return _root_and_update(self, "GINConv", out, inp)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return _apply_func_to_nn(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        return _nn_to_apply_func(values)

    def extra_repr(self) -> str:
        return f"nn={self.nn!r}, aggregator_type={self.aggregator_type!r}"


def _first_in_features(nn: Any) -> int | None:
    """The input size of ``nn``'s first ``Linear`` (PyG's way of sizing GINE's ``lin``)."""
    while nn is not None:
        if isinstance(nn, Linear):
            return nn.in_features
        if isinstance(nn, Sequential):
            nn = next((step for step in nn.steps if isinstance(step, Module)), None)
        elif isinstance(nn, MLP):
            nn = nn.lins[0] if len(nn.lins) else None
        else:
            return None
    return None


class GINEConv(Module):
    """GIN with edge features (PyG's ``GINEConv``; DGL's ``GINEConv`` when ``edge_dim`` is
    ``None``): ``h_i' = nn((1 + eps) h_i + aggr_j ReLU(h_j + lin(e_ji)))``.

    Args:
        nn: the update network (an arraygnn ``Module``) or ``None``.
        eps: the ``eps`` value (a ``(1,)`` array like PyG / DGL).
        edge_dim: size of the edge features; ``lin`` (``Linear(edge_dim, in_feats)`` with a
            bias, PyG's) maps them to the node feature size. ``None``: the edge features
            must already have the node features' size (no ``lin``; DGL's layer).
        in_feats: node feature size for ``lin``; by default the input size of ``nn``'s
            first ``Linear`` (PyG infers it the same way).
        aggregator_type: ``'sum'`` (default), ``'mean'`` or ``'max'``, or PyG's others as
            :class:`GINConv` (``aggr_module``).

    Call as ``conv(x, edge_index, edge_attr)`` (PyG), ``conv((x_src, x_dst), edge_index,
    edge_attr)``, ``conv(graph, feat, edge_feat)`` or ``conv(block, feat, edge_feat)`` (DGL).
    ``edge_attr`` is ``(E, edge_dim)`` (or ``(E, F)`` without ``edge_dim``), in edge order.

    Shapes:
        - input: ``(N_src, F)`` (and ``(N_dst, F)`` in the pair form), ``edge_attr (E, D)``
        - output: ``(N_dst, nn's output size)``
        - edge memory: one ``(E, F)`` message array (the ReLU needs it)

    Names: ``nn.*``, ``eps``, ``lin.weight`` ``(F, D)``, ``lin.bias`` (PyG); DGL's
    ``apply_func.*``, ``eps``.

    >>> import numpy as np
    >>> from arraygnn.nn import GINEConv, MLP
    >>> conv = GINEConv(MLP([4, 8, 2], rng=0), edge_dim=3)
    >>> ei = np.array([[0, 1], [1, 2]])
    >>> conv(np.ones((3, 4), np.float32), ei, np.ones((2, 3), np.float32)).shape
    (3, 2)
    """

    _buffer_names = ("eps",)
    _child_names = ("nn", "lin", "aggr_module")
    _dgl_supported = True

    def __init__(
        self,
        nn: Module | None,
        eps: float = 0.0,
        edge_dim: int | None = None,
        *,
        in_feats: int | None = None,
        aggregator_type: Any = "sum",
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        _init_gin(self, "GINEConv", nn, eps, aggregator_type, dtype)
        self.edge_dim = None
        self.lin = None
        if edge_dim is not None:
            self.edge_dim = layer_size("GINEConv", "edge_dim", edge_dim, minimum=1)
            size = in_feats if in_feats is not None else _first_in_features(nn)
            if size is None:
                raise ValueError(
                    "GINEConv(edge_dim=...): cannot tell the node feature size from nn; "
                    "pass in_feats="
                )
            size = layer_size("GINEConv", "in_feats", size, minimum=1)
            self.lin = Linear(self.edge_dim, size, True, dtype=dtype, rng=rng)

    def _edge_features(self, edge_attr: Any, num_edges: int, x: Any) -> Any:
        """``edge_attr`` checked: ``(E, edge_dim)``, or ``(E, F)`` without ``lin``."""
        if edge_attr is None:
            raise ValueError("GINEConv needs edge features: conv(x, edge_index, edge_attr)")
        want = self.edge_dim if self.lin is not None else int(x.shape[1])
        hint = (
            ""
            if self.lin is not None
            else " (the node feature size: build GINEConv(..., edge_dim=D) to project "
            "edge features of another size)"
        )
        return check_edge_attr("GINEConv", edge_attr, num_edges, want, x, hint)

    def __call__(
        self, graph_or_x: Any, feat_or_edge_index: Any, edge_attr: Any = None, size: Any = None
    ) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import to_slot_order

        inp = parse_input("GINEConv", graph_or_x, feat_or_edge_index, size)
        x = inp.x_src
        if x.ndim != 2:
            raise ValueError(f"GINEConv: node features must be (N, F), got {tuple(x.shape)}")
        if self.lin is not None:
            _check_features(x, self.lin.out_features, "GINEConv source features")
        e = self._edge_features(edge_attr, inp.num_edges, x)
        xp = get_namespace(x)
        # the messages in the CSR's slot order: source rows, plus edge rows, rectified.
        # The raw edge features go to slot order before lin (D columns, not F). PyG's
        # other aggregations see each target's messages in edge-id order
        if self.aggr_module is None:
            csr = csr_of(inp)
            indptr, indices = csr.indptr, csr.indices
            e = to_slot_order(csr, e)
        else:
            indptr, perm, indices = _edge_id_order(inp, xp)
            e = ops.gather(e, perm)
        if self.lin is not None:
            e = self.lin(e)
        msg = ops.gather(x, indices)
        msg = msg.astype(xp.result_type(msg.dtype, e.dtype), copy=False)
        msg += e
        del e
        xp.maximum(msg, 0, out=msg)
        if self.aggr_module is None:
            out = ops.segment(msg, indptr, self.aggregator_type)
        else:
            out = self.aggr_module(msg, ptr=indptr, dim_size=inp.num_dst, dim=0)
        del msg
        return _root_and_update(self, "GINEConv", out, inp)

    def _dgl_to_native(self, values: dict[str, Any]) -> dict[str, Any]:
        return _apply_func_to_nn(values)

    def _native_to_dgl(self, values: dict[str, Any]) -> dict[str, Any]:
        if self.lin is not None:
            raise ValueError("GINEConv with edge_dim (a lin) has no DGL parameter naming")
        return _nn_to_apply_func(values)

    def extra_repr(self) -> str:
        extra = "" if self.edge_dim is None else f", edge_dim={self.edge_dim}"
        return f"nn={self.nn!r}, aggregator_type={self.aggregator_type!r}{extra}"
