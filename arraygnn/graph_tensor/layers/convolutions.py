"""TF-GNN's convolution machinery on a GraphTensor: the any-to-any calling convention,
``SimpleConv``, and the ``Pool`` / ``Broadcast`` layers.

A convolution is called as ``conv(graph, edge_set_name=...)`` (receiver ``SOURCE`` or
``TARGET``: the messages of an edge set's edges are pooled at that end) or, with
``receiver_tag=CONTEXT``, as ``conv(graph, node_set_name=...)`` / ``conv(graph,
edge_set_name=...)`` (the items of a node set or an edge set are pooled per component). All
moves go through :func:`arraygnn.graph_tensor.broadcast` / :func:`~arraygnn.graph_tensor.pool`
(``arraygnn.ops`` kernels), never a Python loop over edges.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> from arraygnn.graph_tensor.layers import SimpleConv, dense
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1])), target=("n", np.array([2, 2]))))})
>>> conv = SimpleConv(dense(6, 4, "relu", rng=0), "sum", receiver_tag=TARGET)
>>> conv(g, edge_set_name="e").shape
(3, 4)
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.broadcast_pool import REDUCE_TYPES, broadcast, pool
from arraygnn.graph_tensor.layers._base import (
    GraphLayer,
    check_graph,
    concat_last,
    edge_set,
    feature,
    node_set,
)
from arraygnn.graph_tensor.pieces import CONTEXT, HIDDEN_STATE, SOURCE, TARGET, GraphTensor

__all__ = ["AnyToAnyConvolutionBase", "SimpleConv", "Pool", "Broadcast", "ConvolutionCall"]

COMBINE_TYPES = ("concat", "sum")


def check_tag(tag: Any, where: str, allow_context: bool = True, arg: str = "receiver_tag") -> Any:
    ok = (SOURCE, TARGET, CONTEXT) if allow_context else (SOURCE, TARGET)
    if isinstance(tag, bool) or tag not in ok:
        names = "SOURCE (0), TARGET (1) or CONTEXT" if allow_context else "SOURCE (0) or TARGET (1)"
        raise ValueError(f"{where}: {arg} must be {names}, got {tag!r}")
    return tag


def check_reduce_type(reduce_type: Any, where: str) -> str:
    if not isinstance(reduce_type, str) or not reduce_type:
        raise TypeError(f"{where}: reduce_type must be a str such as 'sum' or 'sum|mean'")
    for part in reduce_type.split("|"):
        if part not in REDUCE_TYPES:
            raise ValueError(
                f"{where}: unknown reduce_type {part!r} in {reduce_type!r}; known: "
                f"{list(REDUCE_TYPES)}"
            )
    return reduce_type


def _optional_name(value: Any, arg: str, where: str) -> Any:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{where}: {arg} must be a feature name (str) or None, got {value!r}")
    return value


def init_or_call_arg(where: str, arg: str, init_value: Any, call_value: Any) -> Any:
    """TF-GNN's rule for args settable at init or call time (they must not contradict)."""
    if call_value is None:
        if init_value is None:
            raise ValueError(f"{where} requires {arg} to be set at init or call time")
        return init_value
    if init_value is not None and init_value != call_value:
        raise ValueError(
            f"{where}({arg}={init_value!r}) was called with contradictory {arg}={call_value!r}"
        )
    return call_value


def _float32_if_half(value: Any) -> Any:
    """float16 features are computed in float32 (half precision accumulates in float32)."""
    if value.dtype.kind == "f" and value.dtype.itemsize < 4:
        return value.astype(get_namespace(value).float32)
    return value


class ConvolutionCall:
    """What one call of a convolution works on (TF-GNN's ``convolve()`` arguments).

    Items are the edges of the edge set (or the nodes of the node set for a node set to
    context). ``receiver_index`` [items] is each item's receiver row, ``sender_index`` each
    edge's sender node (``None`` when the items are the senders themselves).

    As TF-GNN, an input that does not exist for the call is ``None``: pooling an edge set
    to the context has no sender node input, a node set to the context no edge input.
    float16 features come as float32.
    """

    def __init__(
        self,
        graph: GraphTensor,
        where: str,
        receiver_tag: Any,
        edge_set_name: str | None,
        node_set_name: str | None,
        receiver_feature: str | None,
        sender_node_feature: str | None,
        sender_edge_feature: str | None,
    ) -> None:
        self.graph = graph
        self.where = where
        self.receiver_tag = receiver_tag
        self.edge_set_name = edge_set_name
        self.node_set_name = node_set_name
        self.sender_index = None
        if receiver_tag == CONTEXT:
            if (edge_set_name is None) == (node_set_name is None):
                raise ValueError(
                    f"{where}: with receiver_tag CONTEXT pass exactly one of edge_set_name=, "
                    "node_set_name="
                )
            if edge_set_name is not None:
                items = edge_set(graph, edge_set_name, where)
                # TF-GNN ignores a sender node input here (and an edge input for a node set)
                self.sender_name = None
                self.edges = items
            else:
                items = node_set(graph, node_set_name, where)
                self.sender_name = node_set_name
                self.edges = None
            self.receiver_piece = graph.context
            self.receiver_name = "the context"
            self.receiver_index = items.component_ids()
            self.num_receivers = int(graph.num_components)
            self.num_items = items.total_size
            sender_piece = items if node_set_name is not None else None
        else:
            if edge_set_name is None or node_set_name is not None:
                raise ValueError(f"{where}: pass edge_set_name= (and no node_set_name=)")
            es = self.edges = edge_set(graph, edge_set_name, where)
            sender_tag = SOURCE if receiver_tag == TARGET else TARGET
            self.sender_name = es.adjacency.node_set_name(sender_tag)
            rname = es.adjacency.node_set_name(receiver_tag)
            self.receiver_piece = graph.node_sets[rname]
            self.receiver_name = f"node set {rname!r}"
            self.receiver_index = es.adjacency[receiver_tag]
            self.sender_index = es.adjacency[sender_tag]
            self.num_receivers = self.receiver_piece.total_size
            self.num_items = es.total_size
            sender_piece = graph.node_sets[self.sender_name]
        # what each input is, for error messages: "feature 'h' of node set 'paper'"
        self.receiver_what = self.sender_node_what = self.sender_edge_what = None
        self.receiver_input = None
        if receiver_feature is not None:
            self.receiver_input = _float32_if_half(
                feature(self.receiver_piece, receiver_feature, self.receiver_name, where)
            )
            self.receiver_what = f"feature {receiver_feature!r} of {self.receiver_name}"
        self.sender_node_input = None
        if sender_piece is not None and sender_node_feature is not None:
            sender = f"node set {self.sender_name!r}"
            self.sender_node_input = _float32_if_half(
                feature(sender_piece, sender_node_feature, sender, where)
            )
            self.sender_node_what = f"feature {sender_node_feature!r} of {sender}"
        self.sender_edge_input = None
        if self.edges is not None and sender_edge_feature is not None:
            edges = f"edge set {edge_set_name!r}"
            self.sender_edge_input = _float32_if_half(
                feature(self.edges, sender_edge_feature, edges, where)
            )
            self.sender_edge_what = f"feature {sender_edge_feature!r} of {edges}"

    def _names(self) -> dict[str, Any]:
        if self.edge_set_name is not None:
            return {"edge_set_name": self.edge_set_name}
        return {"node_set_name": self.node_set_name}

    def broadcast_from_sender_node(self, value: Any) -> Any:
        """Sender-node rows onto the items."""
        if self.sender_index is None:
            return value  # the items are the sender nodes
        tag = SOURCE if self.receiver_tag == TARGET else TARGET
        return broadcast(self.graph, tag, edge_set_name=self.edge_set_name, feature_value=value)

    def broadcast_from_receiver(self, value: Any) -> Any:
        """Receiver rows onto the items."""
        return broadcast(self.graph, self.receiver_tag, **self._names(), feature_value=value)

    def pool_to_receiver(self, value: Any, reduce_type: str = "sum") -> Any:
        """Item rows pooled at the receivers."""
        return pool(
            self.graph,
            self.receiver_tag,
            **self._names(),
            reduce_type=reduce_type,
            feature_value=value,
        )

    def softmax(self, logits: Any) -> Any:
        """``tfgnn.softmax`` of item logits [items, ...] over each receiver's items."""
        from arraygnn import ops

        xp = get_namespace(logits)
        items = xp.arange(self.num_items, dtype=self.receiver_index.dtype)
        return ops.edge_softmax((items, self.receiver_index), logits, self.num_receivers)


class AnyToAnyConvolutionBase(GraphLayer):
    """TF-GNN's ``AnyToAnyConvolutionBase``: subclasses implement
    ``convolve(call: ConvolutionCall)`` and are called as
    ``conv(graph, edge_set_name=..., node_set_name=..., receiver_tag=...)``.

    Args:
        receiver_tag: ``SOURCE``, ``TARGET`` or ``CONTEXT`` (or ``None``: given at call).
        receiver_feature: the receiver's input feature (``None``: no receiver input).
        sender_node_feature: the sender nodes' input feature (``None``: none).
        sender_edge_feature: the edges' input feature (``None``: none).
    """

    def _init_base(
        self,
        receiver_tag: Any,
        receiver_feature: str | None,
        sender_node_feature: str | None,
        sender_edge_feature: str | None,
    ) -> None:
        where = type(self).__name__
        if receiver_tag is not None:
            check_tag(receiver_tag, where)
        self.receiver_tag = receiver_tag
        self.receiver_feature = _optional_name(receiver_feature, "receiver_feature", where)
        self.sender_node_feature = _optional_name(sender_node_feature, "sender_node_feature", where)
        self.sender_edge_feature = _optional_name(sender_edge_feature, "sender_edge_feature", where)

    def __call__(
        self,
        graph: GraphTensor,
        *,
        edge_set_name: str | None = None,
        node_set_name: str | None = None,
        receiver_tag: Any = None,
    ) -> Any:
        cls = type(self).__name__
        check_graph(graph, cls)
        if receiver_tag is not None:
            check_tag(receiver_tag, cls)
        tag = init_or_call_arg(cls, "receiver_tag", self.receiver_tag, receiver_tag)
        name = edge_set_name if edge_set_name is not None else node_set_name
        kind = "edge set" if edge_set_name is not None else "node set"
        where = f"{cls} on {kind} {name!r}"
        call = ConvolutionCall(
            graph,
            where,
            tag,
            edge_set_name,
            node_set_name,
            self.receiver_feature,
            self.sender_node_feature,
            self.sender_edge_feature,
        )
        return self.convolve(call)

    def convolve(self, call: ConvolutionCall) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


class SimpleConv(AnyToAnyConvolutionBase):
    """TF-GNN's ``SimpleConv``: ``pool(message_fn(combine([edge, sender, receiver])))``.

    The inputs, in this order and each when enabled: the edge feature
    (``sender_edge_feature``), the sender node's feature broadcast onto the edge, the
    receiver's feature broadcast onto the edge; combined by ``"concat"`` (last axis) or
    ``"sum"``; ``message_fn`` maps them to messages, which are pooled at the receiver with
    ``reduce_type`` (``"sum"``, ``"mean"``, ``"max_no_inf"``, ``"sum|mean"``, ... as
    :func:`arraygnn.graph_tensor.pool`; empty neighbourhoods give 0).

    When ``message_fn`` starts with a ``Linear`` (a ``Linear``, a ``Sequential`` starting
    with one, an ``MLP``) and the inputs are concatenated, that first layer is split by
    input and applied per node, and one SDDMM adds the sender and receiver parts on the
    edges (no ``[E, in]`` concatenation is formed); the rest of ``message_fn`` runs per edge.

    Args:
        message_fn: a layer on arrays.
        reduce_type: the pooling.
        combine_type: ``"concat"`` or ``"sum"``.
        receiver_tag, receiver_feature, sender_node_feature, sender_edge_feature: as
            :class:`AnyToAnyConvolutionBase` (defaults: ``TARGET``, ``HIDDEN_STATE``,
            ``HIDDEN_STATE``, ``None``).

    Keras weights: those of ``message_fn``.
    """

    _child_names = ("message_fn",)

    def __init__(
        self,
        message_fn: Any,
        reduce_type: str = "sum",
        *,
        combine_type: str = "concat",
        receiver_tag: Any = TARGET,
        receiver_feature: str | None = HIDDEN_STATE,
        sender_node_feature: str | None = HIDDEN_STATE,
        sender_edge_feature: str | None = None,
    ) -> None:
        if not callable(message_fn):
            raise TypeError(
                f"SimpleConv: message_fn must be a layer on arrays, got {type(message_fn).__name__}"
            )
        self._init_base(receiver_tag, receiver_feature, sender_node_feature, sender_edge_feature)
        self.message_fn = message_fn
        self.reduce_type = check_reduce_type(reduce_type, "SimpleConv")
        if combine_type not in COMBINE_TYPES:
            raise ValueError(
                f"SimpleConv: combine_type must be one of {COMBINE_TYPES}, got {combine_type!r}"
            )
        self.combine_type = combine_type

    def convolve(self, call: ConvolutionCall) -> Any:
        parts = [call.sender_edge_input, call.sender_node_input, call.receiver_input]
        if all(p is None for p in parts):
            raise ValueError(f"{call.where}: no inputs (all input features are None)")
        try:
            messages = self._factored_messages(call)
        except ValueError as err:  # a later layer of message_fn does not fit
            raise _message_fn_error(call, err) from err
        if messages is None:
            inputs = []
            if call.sender_edge_input is not None:
                inputs.append(call.sender_edge_input)
            if call.sender_node_input is not None:
                inputs.append(call.broadcast_from_sender_node(call.sender_node_input))
            if call.receiver_input is not None:
                inputs.append(call.broadcast_from_receiver(call.receiver_input))
            combined = self._combine(inputs, call.where)
            try:
                messages = self.message_fn(combined)
            except ValueError as err:
                raise _message_fn_error(call, err, combined) from err
        return call.pool_to_receiver(messages, reduce_type=self.reduce_type)

    def _combine(self, inputs: list[Any], where: str) -> Any:
        if self.combine_type == "concat":
            return concat_last(inputs, where)
        first = inputs[0]
        for v in inputs[1:]:
            if tuple(v.shape) != tuple(first.shape):
                raise ValueError(
                    f"{where}: combine_type 'sum' needs inputs of one shape, got "
                    f"{[tuple(x.shape) for x in inputs]}"
                )
        out = first
        for v in inputs[1:]:
            out = out + v
        return out

    def _factored_messages(self, call: ConvolutionCall) -> Any:
        """The messages with ``message_fn``'s first Linear applied per node (see the class
        docstring), or ``None`` when that does not apply."""
        from arraygnn import ops
        from arraygnn.nn.edge_conv import _split_first_linear
        from arraygnn.nn.linear import matmul

        if self.combine_type != "concat" or call.sender_index is None:
            return None
        snd, rcv, edge = call.sender_node_input, call.receiver_input, call.sender_edge_input
        if snd is None and rcv is None:
            return None
        split = _split_first_linear(self.message_fn)
        parts = [p for p in (edge, snd, rcv) if p is not None]
        if split is None or any(p.ndim != 2 or p.dtype.kind != "f" for p in parts):
            return None
        first, rest = split
        if first.in_features != sum(int(p.shape[1]) for p in parts):
            return None  # let the layer itself raise its clear error
        weight = first.weight
        blocks, start = [], 0
        for p in (edge, snd, rcv):
            if p is None:
                blocks.append(None)
                continue
            blocks.append(weight[:, start : start + int(p.shape[1])])
            start += int(p.shape[1])
        w_edge, w_snd, w_rcv = blocks
        at_snd = matmul(snd, w_snd.T) if snd is not None else None
        at_rcv = matmul(rcv, w_rcv.T) if rcv is not None else None
        if first.bias is not None:  # on the node side: one add per node, not per edge
            if at_rcv is not None:
                at_rcv = at_rcv + first.bias
            else:
                at_snd = at_snd + first.bias
        if at_snd is not None and at_rcv is not None:
            hidden = ops.sddmm((call.sender_index, call.receiver_index), at_snd, at_rcv, op="add")
        elif at_snd is not None:
            hidden = ops.gather(at_snd, call.sender_index)
        else:
            hidden = ops.gather(at_rcv, call.receiver_index)
        if edge is not None:
            hidden = hidden + matmul(edge, w_edge.T)
        return rest(hidden)

    def extra_repr(self) -> str:
        return (
            f"reduce_type={self.reduce_type!r}, combine_type={self.combine_type!r}, "
            f"receiver_tag={self.receiver_tag!r}"
        )


def _message_fn_error(call: ConvolutionCall, err: ValueError, inputs: Any = None) -> ValueError:
    """``err`` of ``message_fn`` (e.g. a ``Linear`` of the wrong width) restated with the
    convolution and the set it was called on (``call.where``) and the input width."""
    width = "" if inputs is None else f" (combined input of shape {tuple(inputs.shape)})"
    return ValueError(f"{call.where}: message_fn{width} failed: {err}")


def _location(edge_set_name: Any, node_set_name: Any, where: str) -> dict[str, Any]:
    """The non-None set names (a sequence of names becomes a tuple), at most one of them."""

    def clone(x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            for n in x:
                if not isinstance(n, str):
                    raise TypeError(f"{where}: set names must be str, got {n!r}")
            return tuple(x)
        if not isinstance(x, str):
            raise TypeError(f"{where}: a set name must be a str or a list of them, got {x!r}")
        return x

    out = {}
    if node_set_name is not None:
        out["node_set_name"] = clone(node_set_name)
    if edge_set_name is not None:
        out["edge_set_name"] = clone(edge_set_name)
    if len(out) > 1:
        raise ValueError(f"{where}: pass at most one of edge_set_name= and node_set_name=")
    return out


def _same_at_call(where: str, arg: str, init_value: Any, call_value: Any) -> Any:
    """TF-GNN's rule: an argument set at init and at call must agree; the set one wins."""
    if init_value is not None and call_value is not None and init_value != call_value:
        raise ValueError(
            f"{where} was initialized with {arg}={init_value!r} but called with "
            f"{arg}={call_value!r}"
        )
    return init_value if call_value is None else call_value


class _BroadcastPoolBase(GraphLayer):
    """TF-GNN's ``BroadcastPoolBase``: ``tag``, the set name(s) and ``feature_name`` fixed
    at init, given at call time, or both (then they must agree)."""

    def _init_location(
        self, tag: Any, edge_set_name: Any, node_set_name: Any, feature_name: Any
    ) -> None:
        where = type(self).__name__
        self.tag = None if tag is None else check_tag(tag, where, arg="tag")
        self.location = _location(edge_set_name, node_set_name, where)
        self._check_location(self.location, self.tag, required=False)
        self.feature_name = _optional_name(feature_name, "feature_name", where)

    @property
    def edge_set_name(self) -> Any:
        return self.location.get("edge_set_name")

    @property
    def node_set_name(self) -> Any:
        return self.location.get("node_set_name")

    def _check_location(self, location: dict[str, Any], tag: Any, required: bool) -> None:
        where = type(self).__name__
        if tag is None:
            return
        if tag == CONTEXT:
            if required and not location:
                raise ValueError(
                    f"{where} with tag CONTEXT needs one of edge_set_name= and node_set_name="
                )
        elif (required and not location) or "node_set_name" in location:
            raise ValueError(
                f"{where} with tag SOURCE or TARGET needs edge_set_name= (and no node_set_name=)"
            )

    def _call_args(
        self, tag: Any, edge_set_name: Any, node_set_name: Any, feature_name: Any
    ) -> tuple[Any, Any, Any, str]:
        where = type(self).__name__
        if tag is not None:
            check_tag(tag, where, arg="tag")
        tag = _same_at_call(where, "tag", self.tag, tag)
        if tag is None:
            raise ValueError(f"{where} needs tag= at init or call time")
        location = _location(edge_set_name, node_set_name, where)
        if location and self.location and location != self.location:
            raise ValueError(
                f"{where} was initialized with {self.location} but called with {location}"
            )
        location = location or self.location
        self._check_location(location, tag, required=True)
        name = _optional_name(feature_name, "feature_name", where)
        name = _same_at_call(where, "feature_name", self.feature_name, name)
        es, ns = location.get("edge_set_name"), location.get("node_set_name")
        return tag, _as_list(es), _as_list(ns), name or HIDDEN_STATE


def _as_list(names: Any) -> Any:
    return list(names) if isinstance(names, tuple) else names


class Pool(_BroadcastPoolBase):
    """TF-GNN's ``Pool`` layer: :func:`arraygnn.graph_tensor.pool` with arguments fixed at
    init, given at call time, or both (then they must agree), e.g. ``Pool(CONTEXT,
    "mean")`` as a ``ContextUpdate`` input, called as ``layer(graph,
    node_set_name=...)``. No weights.

    Args:
        tag: ``SOURCE`` / ``TARGET`` (from an edge set) or ``CONTEXT``.
        reduce_type: as :func:`arraygnn.graph_tensor.pool`.
        edge_set_name, node_set_name: one name, or a list of names (pooled together).
        feature_name: the pooled feature (default ``HIDDEN_STATE``).
    """

    def __init__(
        self,
        tag: Any = None,
        reduce_type: str | None = None,
        *,
        edge_set_name: Any = None,
        node_set_name: Any = None,
        feature_name: str | None = None,
    ) -> None:
        self._init_location(tag, edge_set_name, node_set_name, feature_name)
        self.reduce_type = None if reduce_type is None else check_reduce_type(reduce_type, "Pool")

    def __call__(
        self,
        graph: GraphTensor,
        *,
        tag: Any = None,
        reduce_type: str | None = None,
        edge_set_name: Any = None,
        node_set_name: Any = None,
        feature_name: str | None = None,
    ) -> Any:
        check_graph(graph, "Pool")
        tag, es, ns, name = self._call_args(tag, edge_set_name, node_set_name, feature_name)
        if reduce_type is not None:
            check_reduce_type(reduce_type, "Pool")
        reduce_type = _same_at_call("Pool", "reduce_type", self.reduce_type, reduce_type)
        if reduce_type is None:
            raise ValueError("Pool needs reduce_type= at init or call time")
        return pool(
            graph,
            tag,
            edge_set_name=es,
            node_set_name=ns,
            reduce_type=reduce_type,
            feature_name=name,
        )

    def extra_repr(self) -> str:
        return f"tag={self.tag!r}, reduce_type={self.reduce_type!r}, {self.location}"


class Broadcast(_BroadcastPoolBase):
    """TF-GNN's ``Broadcast`` layer: :func:`arraygnn.graph_tensor.broadcast` with arguments
    fixed at init, given at call time, or both (then they must agree); a list of set names
    gives a list of results. No weights."""

    def __init__(
        self,
        tag: Any = None,
        *,
        edge_set_name: Any = None,
        node_set_name: Any = None,
        feature_name: str | None = None,
    ) -> None:
        self._init_location(tag, edge_set_name, node_set_name, feature_name)

    def __call__(
        self,
        graph: GraphTensor,
        *,
        tag: Any = None,
        edge_set_name: Any = None,
        node_set_name: Any = None,
        feature_name: str | None = None,
    ) -> Any:
        check_graph(graph, "Broadcast")
        tag, es, ns, name = self._call_args(tag, edge_set_name, node_set_name, feature_name)
        return broadcast(graph, tag, edge_set_name=es, node_set_name=ns, feature_name=name)

    def extra_repr(self) -> str:
        return f"tag={self.tag!r}, {self.location}"
