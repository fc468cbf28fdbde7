"""TF-GNN's GraphSAGE (``tensorflow_gnn.models.graph_sage``) on a GraphTensor, at inference:
``GraphSAGEAggregatorConv``, ``GraphSAGEPoolingConv``, ``GraphSAGENextState``,
``GraphSAGEGraphUpdate`` and ``GCNGraphSAGENodeSetUpdate``.

Hamilton et al., "Inductive Representation Learning on Large Graphs" (2017), as TF-GNN
writes it: per edge set, a convolution pools the sender states at each receiver and
transforms them (:math:`W_{neigh}\\, h_{N(v)}`); the next state adds (or concatenates) the
transformed old state :math:`W_{self} h_v`, a bias, the activation, and L2-normalises.

Which path runs: the sender states (or, for the pooling convolution, ``Dense(hidden_units,
activation)`` of them) are computed once per *sender node* and pooled along the edges by
one fused ``ops.spmm`` per reduction over the receiver-sorted CSR: no ``[E, F]`` message
array is formed (TF-GNN broadcasts to the edges first; dropout, its only per-edge step, is
a no-op at inference). A single ``"sum"`` / ``"mean"`` aggregation that shrinks the
features applies its ``Dense`` before pooling (same result up to rounding).

Keras sizes layers on their first call; these take the input sizes up front
(``sender_node_dim=``, ``in_features=``), except ``GraphSAGEGraphUpdate``, which sizes itself
from the first graph (or ``graph_spec=``). Weights load from Keras' ``get_weights()`` list.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> update = GraphSAGEGraphUpdate(units=4, hidden_units=6, receiver_tag=TARGET, rng=0)
>>> out = update(g).node_sets["n"]["hidden_state"]
>>> out.shape, bool(np.all(np.abs(np.linalg.norm(out, axis=1) - 1) < 1e-5))
((3, 4), True)
>>> [w.shape for w in update.get_weights()]  # pooling conv, then the next state
[(3, 6), (6,), (6, 4), (4,), (3, 4)]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.broadcast_pool import _pooled
from arraygnn.graph_tensor.layers._base import (
    GraphLayer,
    ModuleDict,
    check_graph,
    concat_last,
    edge_set,
    feature,
    flatten,
    is_aux,
    name_set,
    node_set,
)
from arraygnn.graph_tensor.layers._keras import KerasSlot, _concat_slots, keras_activation
from arraygnn.graph_tensor.layers.builders import _gen, conv_gnn_graph_update
from arraygnn.graph_tensor.layers.convolutions import (
    COMBINE_TYPES,
    AnyToAnyConvolutionBase,
    ConvolutionCall,
    _float32_if_half,
    check_reduce_type,
    check_tag,
)
from arraygnn.graph_tensor.layers.graph_update import GraphUpdate, deferred_update
from arraygnn.graph_tensor.layers.models import _check_2d
from arraygnn.graph_tensor.pieces import HIDDEN_STATE, SOURCE, TARGET, GraphTensor
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear
from arraygnn.nn.sage_conv import l2_normalize

__all__ = [
    "GraphSAGEAggregatorConv",
    "GraphSAGEPoolingConv",
    "GraphSAGENextState",
    "GraphSAGEGraphUpdate",
    "GCNGraphSAGENodeSetUpdate",
]

#: ``tf.math.l2_normalize``'s floor on the squared norm (1e-12), as a floor on the norm
_L2_EPS = 1e-6


def _check_rate(rate: Any, where: str) -> float:
    """Keras' ``Dropout`` check (``0 <= rate <= 1``); the rate itself is unused here."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.floating, np.integer)):
        raise TypeError(f"{where}: dropout_rate must be a number, got {rate!r}")
    if not 0 <= float(rate) <= 1:
        raise ValueError(f"{where}: dropout_rate must be in [0, 1], got {rate}")
    return float(rate)


def _pool_senders(call: ConvolutionCall, value: Any, reduce_type: str) -> Any:
    """``pool(broadcast_from_sender_node(value), reduce_type)`` without the ``[E, F]``
    array: one ``ops.spmm`` per reduction over the receiver-sorted CSR, finished as
    :func:`arraygnn.graph_tensor.pool` (``*_no_inf``, ``prod``)."""
    from arraygnn import ops

    if call.sender_index is None:  # a node set to the context: the items are the senders
        return call.pool_to_receiver(value, reduce_type)
    csr = ops.to_csr((call.sender_index, call.receiver_index), value.shape[0], call.num_receivers)
    return _pooled(
        value,
        reduce_type.split("|"),
        lambda v, r: ops.spmm(csr, v, reduce=r),
        csr.in_degrees,
    )


class _GraphSAGEConvBase(AnyToAnyConvolutionBase):
    """What both GraphSAGE convolutions share: only a sender node input, checked."""

    def _init_conv(
        self,
        receiver_tag: Any,
        sender_node_feature: Any,
        receiver_feature: Any,
        sender_edge_feature: Any,
        reduce_type: str,
        dropout_rate: float,
        sender_node_dim: int,
    ) -> None:
        where = type(self).__name__
        if receiver_feature is not None:
            raise ValueError(f"receiver_feature has to be None for {where}.")
        if sender_edge_feature is not None:
            raise ValueError(f"sender_edge_feature has to be None for {where}.")
        if sender_node_feature is None:
            raise ValueError(f"sender_node_feature should be specified for {where}.")
        self._init_base(receiver_tag, None, sender_node_feature, None)
        self.reduce_type = check_reduce_type(reduce_type, where)
        self.dropout_rate = _check_rate(dropout_rate, where)
        self.sender_node_dim = layer_size(where, "sender_node_dim", sender_node_dim, minimum=0)

    def _sender_input(self, call: ConvolutionCall) -> Any:
        x = call.sender_node_input
        if x is None:
            raise ValueError(
                f"{call.where}: no sender node input (an edge set pooled to the context has "
                "none; call it with node_set_name= instead)"
            )
        _check_2d(x, self.sender_node_dim, call.sender_node_what, call.where)
        return x


class GraphSAGEAggregatorConv(_GraphSAGEConvBase):
    """TF-GNN's ``graph_sage.GraphSAGEAggregatorConv``: the sender node states pooled at
    each receiver with ``reduce_type``, then ``Dense(units, use_bias=False)``.

    Use it in a ``NodeSetUpdate`` with :class:`GraphSAGENextState`. Empty neighbourhoods
    pool to 0 (see :func:`arraygnn.graph_tensor.pool`; plain ``"max"`` / ``"min"`` too,
    where TF-GNN gives the dtype's lowest / highest value).

    Args:
        receiver_tag: ``SOURCE``, ``TARGET`` or ``CONTEXT`` (then called with
            ``node_set_name=``), or ``None`` (given at call time).
        reduce_type: ``"mean"`` (default), ``"sum"``, ``"max_no_inf"``, ... or several
            joined with ``"|"`` (concatenated, so the Dense takes ``k * sender_node_dim``).
        sender_node_feature: the sender nodes' feature (default ``HIDDEN_STATE``).
        units: output size.
        dropout_rate: checked (``0 <= p <= 1``) and ignored at inference.
        sender_node_dim: size of the sender node feature.
        receiver_feature, sender_edge_feature: must stay ``None`` (as TF-GNN).

    Keras weights: ``transform_neighbor/kernel`` ``[k * sender_node_dim, units]``.
    """

    _child_names = ("transform_neighbor",)

    def __init__(
        self,
        *,
        receiver_tag: Any,
        reduce_type: str = "mean",
        sender_node_feature: str | None = HIDDEN_STATE,
        units: int,
        dropout_rate: float = 0.0,
        sender_node_dim: int,
        receiver_feature: None = None,
        sender_edge_feature: None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self._init_conv(
            receiver_tag,
            sender_node_feature,
            receiver_feature,
            sender_edge_feature,
            reduce_type,
            dropout_rate,
            sender_node_dim,
        )
        self.units = layer_size("GraphSAGEAggregatorConv", "units", units, minimum=1)
        width = self.sender_node_dim * len(self.reduce_type.split("|"))
        self.transform_neighbor = Linear(width, self.units, False, dtype=dtype, rng=rng)

    def convolve(self, call: ConvolutionCall) -> Any:
        x = self._sender_input(call)
        lin = self.transform_neighbor
        if self.reduce_type in ("sum", "mean") and self.units < self.sender_node_dim:
            # linear pooling commutes with the Dense: transform the fewer columns first
            return _pool_senders(call, lin(x), self.reduce_type)
        return lin(_pool_senders(call, x, self.reduce_type))

    def extra_repr(self) -> str:
        return (
            f"{self.sender_node_dim}, {self.units}, reduce_type={self.reduce_type!r}, "
            f"receiver_tag={self.receiver_tag!r}"
        )


class GraphSAGEPoolingConv(_GraphSAGEConvBase):
    """TF-GNN's ``graph_sage.GraphSAGEPoolingConv``: ``Dense(hidden_units, activation,
    use_bias)`` of each sender node state (Eq. (3) of the paper), pooled at each receiver
    with ``reduce_type`` (default ``"max_no_inf"``), then ``Dense(units, use_bias=False)``.

    The hidden Dense runs once per sender node (TF-GNN runs it per edge, on the same
    values), then one fused SpMM pools it.

    Args:
        receiver_tag, sender_node_feature, dropout_rate, sender_node_dim, receiver_feature,
            sender_edge_feature: as :class:`GraphSAGEAggregatorConv`.
        units: output size.
        hidden_units: size of the hidden Dense.
        reduce_type: the pooling (default ``"max_no_inf"``; ``"|"``-joined ones concatenate).
        use_bias: bias of the hidden Dense.
        activation: of the hidden Dense (Keras name or callable, default ``"relu"``).

    Keras weights: ``pooling_transform/kernel`` ``[sender_node_dim, hidden_units]``,
    ``pooling_transform/bias`` (with ``use_bias``), ``transform_neighbor/kernel``
    ``[k * hidden_units, units]``.
    """

    _child_names = ("pooling_transform", "transform_neighbor")

    def __init__(
        self,
        *,
        receiver_tag: Any,
        sender_node_feature: str | None = HIDDEN_STATE,
        units: int,
        hidden_units: int,
        reduce_type: str = "max_no_inf",
        use_bias: bool = True,
        dropout_rate: float = 0.0,
        activation: Any = "relu",
        sender_node_dim: int,
        receiver_feature: None = None,
        sender_edge_feature: None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GraphSAGEPoolingConv"
        self._init_conv(
            receiver_tag,
            sender_node_feature,
            receiver_feature,
            sender_edge_feature,
            reduce_type,
            dropout_rate,
            sender_node_dim,
        )
        self.units = layer_size(where, "units", units, minimum=1)
        self.hidden_units = layer_size(where, "hidden_units", hidden_units, minimum=1)
        self.use_bias = bool(use_bias)
        self.activation = keras_activation(activation, where)
        gen = _gen(rng)
        self.pooling_transform = Linear(
            self.sender_node_dim, self.hidden_units, self.use_bias, dtype=dtype, rng=gen
        )
        width = self.hidden_units * len(self.reduce_type.split("|"))
        self.transform_neighbor = Linear(width, self.units, False, dtype=dtype, rng=gen)

    def convolve(self, call: ConvolutionCall) -> Any:
        hidden = self.activation(self.pooling_transform(self._sender_input(call)))
        return self.transform_neighbor(_pool_senders(call, hidden, self.reduce_type))

    def extra_repr(self) -> str:
        return (
            f"{self.sender_node_dim}, {self.units}, hidden_units={self.hidden_units}, "
            f"reduce_type={self.reduce_type!r}, receiver_tag={self.receiver_tag!r}"
        )


def _check_combine_type(combine_type: Any, where: str) -> str:
    if combine_type not in COMBINE_TYPES:
        raise ValueError(
            f"{where}: combine_type {combine_type!r} isn't supported; specify 'concat' or 'sum'"
        )
    return combine_type


def _edge_input_width(dims: Any, where: str) -> int:
    """The total width of the edge set inputs: an int, or a sequence of widths."""
    if isinstance(dims, Sequence) and not isinstance(dims, str):
        return sum(layer_size(where, "edge_input_dims", d, minimum=0) for d in dims)
    return layer_size(where, "edge_input_dims", dims, minimum=0)


class GraphSAGENextState(GraphLayer):
    r"""TF-GNN's ``graph_sage.GraphSAGENextState``: the new node state from the old one
    and the GraphSAGE convolutions' results,

    .. math:: h_v' = \mathrm{normalize}\big(\sigma(\mathrm{combine}(W_{self} h_v,
        \{W_{neigh} h_{N(v)}\}_{\text{edge sets}}) + b)\big)

    with ``combine_type`` ``"sum"`` (the paper's GraphSAGE; all inputs ``units`` wide) or
    ``"concat"`` (along the last axis; the edge set inputs in sorted order of their
    names), the bias with ``use_bias`` and the L2 normalisation of each row with
    ``l2_normalize`` (``tf.math.l2_normalize``: ``x / max(||x||, 1e-6)``). Called with
    ``(old state, {edge_set_name: input}, context input)``; a context input raises, as
    TF-GNN. Returns ``{feature_name: new state}``.

    Args:
        units: size of ``W_self``'s output.
        use_bias, dropout_rate, feature_name, l2_normalize, combine_type, activation: as
            TF-GNN (dropout is ignored at inference).
        in_features: size of the old state.
        edge_input_dims: the widths of the edge set inputs (a list, or their sum); needed
            only for the bias of ``combine_type="concat"`` (its size is ``units`` plus them).

    Keras weights: the layer's own ``bias`` (with ``use_bias``; ``[units]``, or ``[units +
    sum(edge_input_dims)]`` for ``"concat"``), then ``self_transform/kernel`` ``[in_features,
    units]``.
    """

    _param_names = ("bias",)
    _child_names = ("self_transform",)

    def __init__(
        self,
        *,
        units: int,
        use_bias: bool = True,
        dropout_rate: float = 0.0,
        feature_name: str = HIDDEN_STATE,
        l2_normalize: bool = True,
        combine_type: str = "sum",
        activation: Any = "relu",
        in_features: int,
        edge_input_dims: Sequence[int] | int | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GraphSAGENextState"
        self.units = layer_size(where, "units", units, minimum=1)
        self.in_features = layer_size(where, "in_features", in_features, minimum=0)
        self.use_bias = bool(use_bias)
        self.dropout_rate = _check_rate(dropout_rate, where)
        if not isinstance(feature_name, str):
            raise TypeError(f"{where}: feature_name must be a str, got {feature_name!r}")
        self.feature_name = feature_name
        self.l2_normalize = bool(l2_normalize)
        self.combine_type = _check_combine_type(combine_type, where)
        self.activation = keras_activation(activation, where)
        self.edge_input_width = (
            None if edge_input_dims is None else _edge_input_width(edge_input_dims, where)
        )
        self.self_transform = Linear(self.in_features, self.units, False, dtype=dtype, rng=rng)
        self.bias = None
        if self.use_bias:
            size = self.units
            if self.combine_type == "concat":
                if self.edge_input_width is None:
                    raise ValueError(
                        f"{where}(combine_type='concat', use_bias=True) needs edge_input_dims= "
                        "(the widths of the edge set inputs: the bias spans the concatenation)"
                    )
                size += self.edge_input_width
            self.bias = np.zeros(size, dtype=dtype)

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        own = [KerasSlot(self, "bias", False, f"{prefix}bias")] if self.bias is not None else []
        train, fixed = _concat_slots([(f"{prefix}self_transform/", self.self_transform)], frozen)
        if frozen:  # add_weight on the layer itself: listed first
            return [], own + fixed
        return own + train, fixed

    def __call__(self, inputs: tuple[Any, Any, Any]) -> dict[str, Any]:
        where = "GraphSAGENextState"
        if not isinstance(inputs, tuple) or len(inputs) != 3:
            raise TypeError(
                f"{where}: expects a tuple of 3 inputs (node state, {{edge set: input}}, "
                f"context input), got {type(inputs).__name__}"
            )
        state, edge_inputs, context = inputs
        if flatten(context):
            raise ValueError("Input from context is not supported by GraphSAGENextState")
        if not is_array(state):
            raise TypeError(
                f"{where}: the node state must be one array (node_input_feature a single "
                f"name), got {type(state).__name__}"
            )
        _check_2d(state, self.in_features, "the node state", where)
        if not isinstance(edge_inputs, Mapping):
            raise TypeError(
                f"{where}: the edge set inputs must be a dict {{edge set: array}}, got "
                f"{type(edge_inputs).__name__}"
            )
        values = [self.self_transform(_float32_if_half(state))]
        for name, value in sorted(edge_inputs.items()):
            if not is_array(value) or value.ndim != 2 or value.shape[0] != state.shape[0]:
                shape = tuple(value.shape) if is_array(value) else type(value).__name__
                raise ValueError(
                    f"{where}: the input from edge set {name!r} has shape {shape}, expected "
                    f"[{state.shape[0]}, width]"
                )
            values.append(value)
        if self.combine_type == "concat":
            result = concat_last(values, where)
        else:
            result = values[0]
            for name, value in zip(sorted(edge_inputs), values[1:]):
                if value.shape[1] != self.units:
                    raise ValueError(
                        f"{where}(combine_type='sum'): the input from edge set {name!r} has "
                        f"{value.shape[1]} features, units is {self.units}; they must match"
                    )
                result = result + value
        if self.bias is not None:
            if result.shape[1] != self.bias.shape[0]:
                raise ValueError(
                    f"{where}: the combined inputs have {result.shape[1]} features, the bias "
                    f"{self.bias.shape[0]} (units + edge_input_dims)"
                )
            result = result + self.bias
        result = self.activation(result)
        if self.l2_normalize:
            result = l2_normalize(result, _L2_EPS)
        return {self.feature_name: result}

    def extra_repr(self) -> str:
        return (
            f"{self.in_features}, {self.units}, combine_type={self.combine_type!r}, "
            f"l2_normalize={self.l2_normalize}"
        )


def GraphSAGEGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    hidden_units: int | None = None,
    receiver_tag: int,
    node_set_names: Collection[str] | None = None,
    reduce_type: str = "mean",
    use_pooling: bool = True,
    use_bias: bool = True,
    dropout_rate: float = 0.0,
    l2_normalize: bool = True,
    combine_type: str = "sum",
    activation: Any = "relu",
    feature_name: str = HIDDEN_STATE,
    name: str = "graph_sage",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
) -> GraphUpdate:
    """TF-GNN's ``graph_sage.GraphSAGEGraphUpdate``: one GraphSAGE round over the node
    sets at the ``receiver_tag`` end of the (non-auxiliary) edge sets, or
    ``node_set_names``: per edge set a :class:`GraphSAGEPoolingConv` (``use_pooling``,
    which needs ``hidden_units``; its hidden activation is ReLU) or a
    :class:`GraphSAGEAggregatorConv` with ``reduce_type``, all ``units`` wide, then a
    :class:`GraphSAGENextState` (``use_bias``, ``l2_normalize``, ``combine_type``,
    ``activation``) on ``feature_name``.

    Sized from ``graph_spec`` or on the first call; ``dropout_rate`` is ignored, ``name``
    (Keras' layer name) too.

    Keras weights: per updated node set (sorted), its convolutions (sorted by edge set),
    then the next state's ``bias`` and ``self_transform/kernel``.
    """
    args = dict(locals())  # for a picklable deferred update
    where = "GraphSAGEGraphUpdate"
    if bool(use_pooling) != (hidden_units is not None):
        raise ValueError(
            f"{where}: either use_pooling or hidden_units has been configured without the "
            "other, please configure them together or disable them both."
        )
    tag = check_tag(receiver_tag, where, allow_context=False)
    units = layer_size(where, "units", units, minimum=1)
    if hidden_units is not None:
        hidden_units = layer_size(where, "hidden_units", hidden_units, minimum=1)
    reduce_type = check_reduce_type(reduce_type, where)
    _check_combine_type(combine_type, where)
    _check_rate(dropout_rate, where)
    keras_activation(activation, where)
    if not isinstance(feature_name, str):
        raise TypeError(f"{where}: feature_name must be a str, got {feature_name!r}")
    wanted = name_set(node_set_names, "node_set_names", where)
    for ns_name in wanted or ():
        if is_aux(ns_name):
            raise ValueError(f"{where}: convolution requested towards aux node set {ns_name!r}")
    if graph_spec is None:
        return deferred_update(GraphSAGEGraphUpdate, args)
    gen = _gen(rng)

    def conv(es_name: str, dims: dict[str, int]) -> tuple[Any, int]:
        common = dict(receiver_tag=tag, sender_node_feature=feature_name, units=units)
        common.update(reduce_type=reduce_type, dropout_rate=dropout_rate)
        common.update(sender_node_dim=dims["sender"], dtype=dtype, rng=gen)
        if use_pooling:
            common.update(hidden_units=hidden_units, use_bias=use_bias)
            return GraphSAGEPoolingConv(**common), units
        return GraphSAGEAggregatorConv(**common), units

    def next_state(ns_name: str, width: int, input_widths: list[int]) -> GraphSAGENextState:
        return GraphSAGENextState(
            units=units,
            use_bias=use_bias,
            dropout_rate=dropout_rate,
            feature_name=feature_name,
            l2_normalize=l2_normalize,
            combine_type=combine_type,
            activation=activation,
            in_features=width,
            edge_input_dims=input_widths,
            dtype=dtype,
            rng=gen,
        )

    return conv_gnn_graph_update(  # TF-GNN's ConvGNNBuilder
        where, conv, next_state, tag, node_set_names, None, graph_spec, feature_name
    )


class GCNGraphSAGENodeSetUpdate(GraphLayer):
    r"""TF-GNN's ``graph_sage.GCNGraphSAGENodeSetUpdate`` (the GCN variant of GraphSAGE's
    mean aggregator, Eq. (2), over several edge sets), called as ``update(graph,
    node_set_name=...)`` (e.g. in ``GraphUpdate(node_sets={...})``):

    .. math:: h_v' = \sigma\Big(\mathrm{reduce}\big(\{W_E h_u\}_{u \in N_E(v),\, E}
        \cup \{W_{self} h_v\}\big) + b\Big)

    ``reduce_type`` ``"mean"`` divides the sum by the number of terms (the in-degrees over
    all edge sets, plus 1 for the self term; 0 where there is none) or ``"sum"``. Each
    edge set's senders are transformed per node and summed by one ``ops.spmm``. With
    ``share_weights`` one matrix ``W`` serves every edge set and the self term (the
    homogeneous case); ``add_self_loop=False`` leaves the self term out. Returns
    ``{self_node_feature: new state}``.

    Args:
        edge_set_names: the edge sets whose ``receiver_tag`` end is the updated node set.
        receiver_tag: ``SOURCE`` or ``TARGET``.
        reduce_type, self_node_feature, sender_node_feature, units, dropout_rate,
            activation, use_bias, share_weights, add_self_loop: as TF-GNN (dropout is
            ignored at inference).
        in_features: size of the updated node set's ``self_node_feature``.
        sender_node_dims: size of each edge set's sender feature, ``{edge set: size}`` or
            one size (default ``in_features``; must equal it with ``share_weights``).

    Keras weights: the layer's own ``bias`` ``[units]`` (with ``use_bias``), then per edge
    set (sorted by name, without ``share_weights``) ``transform_<edge set>/kernel``, then
    ``node_transform/kernel`` (with ``add_self_loop`` or ``share_weights``).
    """

    _param_names = ("bias",)
    _child_names = ("transform_edge", "node_transform")

    def __init__(
        self,
        *,
        edge_set_names: Collection[str],
        receiver_tag: int,
        reduce_type: str = "mean",
        self_node_feature: str = HIDDEN_STATE,
        sender_node_feature: str = HIDDEN_STATE,
        units: int,
        dropout_rate: float = 0.0,
        activation: Any = "relu",
        use_bias: bool = False,
        share_weights: bool = False,
        add_self_loop: bool = True,
        in_features: int,
        sender_node_dims: Mapping[str, int] | int | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GCNGraphSAGENodeSetUpdate"
        if edge_set_names is None:
            raise TypeError(f"{where}: edge_set_names must be a collection of set names, got None")
        self.edge_set_names = sorted(name_set(edge_set_names, "edge_set_names", where))
        self.receiver_tag = check_tag(receiver_tag, where, allow_context=False)
        if reduce_type not in ("sum", "mean"):
            raise ValueError(
                f"{where}: {reduce_type!r} isn't supported, please instead use any of "
                "['sum', 'mean']"
            )
        self.reduce_type = reduce_type
        for arg, value in (
            ("self_node_feature", self_node_feature),
            ("sender_node_feature", sender_node_feature),
        ):
            if not isinstance(value, str):
                raise TypeError(f"{where}: {arg} must be a feature name (str), got {value!r}")
        self.self_node_feature = self_node_feature
        self.sender_node_feature = sender_node_feature
        self.units = layer_size(where, "units", units, minimum=1)
        self.dropout_rate = _check_rate(dropout_rate, where)
        self.activation = keras_activation(activation, where)
        self.share_weights = bool(share_weights)
        self.add_self_loop = bool(add_self_loop)
        if not self.edge_set_names and not self.add_self_loop:
            raise ValueError(f"{where}: no inputs (no edge_set_names and add_self_loop=False)")
        self.in_features = layer_size(where, "in_features", in_features, minimum=0)
        if sender_node_dims is None:
            sender_node_dims = self.in_features
        if isinstance(sender_node_dims, Mapping):
            extra = sorted(set(sender_node_dims) - set(self.edge_set_names))
            lacking = sorted(set(self.edge_set_names) - set(sender_node_dims))
            if extra or lacking:
                raise ValueError(
                    f"{where}: sender_node_dims must have one size per edge set "
                    f"{self.edge_set_names}; extra {extra}, missing {lacking}"
                )
            dims = dict(sender_node_dims)
        else:
            dims = dict.fromkeys(self.edge_set_names, sender_node_dims)
        self.sender_node_dims = {
            k: layer_size(where, f"sender_node_dims[{k!r}]", v, minimum=0) for k, v in dims.items()
        }
        gen = _gen(rng)
        edge_layers = {}
        if self.share_weights:
            wrong = {k: v for k, v in self.sender_node_dims.items() if v != self.in_features}
            if wrong:
                raise ValueError(
                    f"{where}(share_weights=True) needs sender states as wide as the node "
                    f"state ({self.in_features}), got {wrong}"
                )
        else:
            for es_name in self.edge_set_names:
                dim = self.sender_node_dims[es_name]
                edge_layers[es_name] = Linear(dim, self.units, False, dtype=dtype, rng=gen)
        self.transform_edge = ModuleDict(edge_layers)
        self.node_transform = None
        if self.add_self_loop or self.share_weights:
            self.node_transform = Linear(self.in_features, self.units, False, dtype=dtype, rng=gen)
        self.use_bias = bool(use_bias)
        self.bias = np.zeros(self.units, dtype=dtype) if self.use_bias else None

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        own = [KerasSlot(self, "bias", False, f"{prefix}bias")] if self.bias is not None else []
        children = [(f"{prefix}transform_{k}/", v) for k, v in self.transform_edge.items()]
        children.append((f"{prefix}node_transform/", self.node_transform))
        train, fixed = _concat_slots(children, frozen)
        if frozen:  # add_weight on the layer itself: listed first
            return [], own + fixed
        return own + train, fixed

    def __call__(self, graph: GraphTensor, *, node_set_name: str) -> dict[str, Any]:
        from arraygnn import ops

        check_graph(graph, "GCNGraphSAGENodeSetUpdate")
        where = f"GCNGraphSAGENodeSetUpdate on node set {node_set_name!r}"
        ns = node_set(graph, node_set_name, where)
        n = ns.total_size
        sender_tag = SOURCE if self.receiver_tag == TARGET else TARGET
        total = degree = None
        for es_name in self.edge_set_names:
            es = edge_set(graph, es_name, where)
            if es.adjacency.node_set_name(self.receiver_tag) != node_set_name:
                raise ValueError(
                    f"{where}: edge set {es_name!r} has node set "
                    f"{es.adjacency.node_set_name(self.receiver_tag)!r} at receiver_tag "
                    f"{self.receiver_tag}, not {node_set_name!r}"
                )
            sender = es.adjacency.node_set_name(sender_tag)
            what = f"node set {sender!r}"
            x = feature(graph.node_sets[sender], self.sender_node_feature, what, where)
            what = f"feature {self.sender_node_feature!r} of {what}"
            _check_2d(x, self.sender_node_dims[es_name], what, where)
            lin = self.node_transform if self.share_weights else self.transform_edge[es_name]
            receivers = es.adjacency[self.receiver_tag]
            pooled = ops.spmm(
                (es.adjacency[sender_tag], receivers),
                lin(_float32_if_half(x)),
                num_dst_nodes=n,
            )
            total = pooled if total is None else total + pooled
            if self.reduce_type == "mean":
                count = get_namespace(receivers).bincount(receivers, minlength=n)
                degree = count if degree is None else degree + count
        if self.add_self_loop:
            what = f"feature {self.self_node_feature!r} of node set {node_set_name!r}"
            x = feature(ns, self.self_node_feature, f"node set {node_set_name!r}", where)
            _check_2d(x, self.in_features, what, where)
            own = self.node_transform(_float32_if_half(x))
            total = own if total is None else total + own
            if self.reduce_type == "mean":
                degree = 1 if degree is None else degree + 1
        if self.reduce_type == "mean":  # TF-GNN's divide_no_nan: 0 without any term
            xp = get_namespace(total)
            total = total / xp.maximum(xp.asarray(degree), 1).astype(total.dtype)[..., None]
        if self.bias is not None:
            total = total + self.bias
        return {self.self_node_feature: self.activation(total)}

    def extra_repr(self) -> str:
        return (
            f"edge_set_names={self.edge_set_names}, units={self.units}, "
            f"reduce_type={self.reduce_type!r}, share_weights={self.share_weights}"
        )
