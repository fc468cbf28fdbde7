"""Models from ``tensorflow_gnn.models`` on a GraphTensor: ``GATv2Conv`` (``gat_v2``),
``GCNConv`` (``gcn``) and ``VanillaMPNNGraphUpdate`` (``vanilla_mpnn``), at inference.

Keras infers input sizes on the first call; these layers take them up front
(``receiver_dim=``, ``in_features=``), except ``VanillaMPNNGraphUpdate``, which sizes itself
from the first graph it sees (or from ``graph_spec=``), like Keras. Weights load from the
list Keras' ``layer.get_weights()`` returns for the TF-GNN layer
(``layer.set_weights(list)``; each class lists its order).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> conv = GATv2Conv(num_heads=2, per_head_channels=4, receiver_tag=TARGET, receiver_dim=3,
...                  rng=0)
>>> conv(g, edge_set_name="e").shape
(3, 8)
>>> [w.shape for w in conv.get_weights()]
[(3, 8), (8,), (3, 8), (8,), (4, 2)]
>>> GCNConv(5, in_features=3, rng=0)(g, edge_set_name="e").shape
(3, 5)
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.layers._base import (
    GraphLayer,
    check_graph,
    edge_set,
    feature,
    is_aux,
    name_set,
)
from arraygnn.graph_tensor.layers._keras import (
    KerasSlot,
    _concat_slots,
    _leaky_relu,
    dense,
    keras_activation,
)
from arraygnn.graph_tensor.layers.convolutions import (
    AnyToAnyConvolutionBase,
    ConvolutionCall,
    SimpleConv,
    check_reduce_type,
    check_tag,
)
from arraygnn.graph_tensor.layers.graph_update import GraphUpdate, NodeSetUpdate, deferred_update
from arraygnn.graph_tensor.layers.next_state import NextStateFromConcat
from arraygnn.graph_tensor.pieces import HIDDEN_STATE, SOURCE, TARGET, GraphTensor
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import LayerNorm, Linear, Sequential, _rng, glorot

__all__ = ["GATv2Conv", "GATv2EdgePool", "GCNConv", "VanillaMPNNGraphUpdate"]

DEGREE_NORMALIZATIONS = ("none", "in", "out", "in_out", "in_in")


def _check_2d(value: Any, dim: int, what: str, where: str) -> None:
    """``value`` a float ``[items, dim]`` array: else a ``TypeError`` (not float) or
    ``ValueError`` (shape) naming ``what`` (e.g. ``"feature 'h' of node set 'paper'"``)."""
    if value.dtype.kind != "f":
        raise TypeError(
            f"{where}: {what} must be a float [num_items, {dim}] array, got dtype {value.dtype}"
        )
    if value.ndim != 2:
        raise ValueError(
            f"{where}: {what} must be a float [num_items, {dim}] array, got "
            f"{value.dtype} {tuple(value.shape)} (features with more axes are not supported)"
        )
    if value.shape[1] != dim:
        raise ValueError(f"{where}: {what} has {value.shape[1]} features, the layer takes {dim}")


def _used_inputs(conv: Any) -> frozenset[str]:
    """The sender inputs whose projections Keras has built: those the calls so far used
    (before the first call: every configured one)."""
    if conv._used is not None:
        return conv._used
    out = set()
    if conv.sender_node_feature is not None:
        out.add("node")
    if conv.sender_edge_feature is not None:
        out.add("edge")
    return frozenset(out)


def _check_inputs(conv: Any, call: ConvolutionCall) -> frozenset[str]:
    """Check a call's inputs of a GATv2 / MHA convolution (widths, dtypes); returns the
    sender inputs it uses (TF-GNN ignores the one a context call does not have: its
    projection is never built, so it has no Keras weights)."""
    _check_2d(call.receiver_input, conv.receiver_dim, call.receiver_what, call.where)
    used = set()
    if call.sender_node_input is not None:
        _check_2d(call.sender_node_input, conv.sender_node_dim, call.sender_node_what, call.where)
        used.add("node")
    if call.sender_edge_input is not None:
        _check_2d(call.sender_edge_input, conv.sender_edge_dim, call.sender_edge_what, call.where)
        used.add("edge")
    if not used:
        raise ValueError(f"{call.where}: no sender input (node or edge) for this call")
    return frozenset(used)


class GATv2Conv(AnyToAnyConvolutionBase):
    r"""TF-GNN's ``gat_v2.GATv2Conv``: multi-head GATv2 attention over the explicit edges.

    Per head :math:`k`, with query :math:`q_i = W_q h_i (+ b_q)` from the receiver and value
    :math:`v_j = W_n h_j (+ b_n) + W_e e_{ij}` from the sender node and / or edge:

    .. math::
        \alpha_{ij} = \mathrm{softmax}_j\big(a_k^\top \sigma_{att}(q_i + v_j)\big), \quad
        h_i' = \sigma\big(\mathrm{merge}_k \textstyle\sum_j \alpha_{ij} v_j\big)

    No self-loops are added (store them in the edge set, as TF-GNN says). A receiver
    without edges gets ``activation(0)``. ``receiver_tag=CONTEXT`` attends over a node
    set's nodes or an edge set's edges per component; as TF-GNN, the input such a call
    does not have (the sender node feature when pooling edges, the edge feature for a node
    set) is ignored, and its projection gets no Keras weights (see below).

    With the default ``attention_activation="leaky_relu"``, a node receiver and a sender
    node input, the scores come from one fused kernel over the receiver-sorted CSR, the
    softmax and the weighted sum run in its slot order, and an edge input is aggregated
    before its projection: no ``[E, heads, channels]`` array is formed. Everything else
    (other activations, the context receiver, and edge states alone as in
    :func:`GATv2EdgePool`) computes ``[E, heads, channels]`` per item as TF-GNN does.

    Args:
        num_heads, per_head_channels: as TF-GNN.
        receiver_tag: ``SOURCE``, ``TARGET``, ``CONTEXT``, or ``None`` (given at call).
        receiver_feature, sender_node_feature, sender_edge_feature: as TF-GNN.
        use_bias: biases on the query and value projections (the edge projection has one
            only without a sender node input, as TF-GNN).
        edge_dropout: accepted and checked (``0 <= p < 1``); inference ignores it.
        attention_activation: Keras name (default ``"leaky_relu"``, slope 0.2) or callable.
        heads_merge_type: ``"concat"`` (``[N, H * C]``) or ``"mean"`` (``[N, C]``).
        activation: applied last (default ``"relu"``).
        kernel_initializer, kernel_regularizer: accepted and ignored (training only).
        receiver_dim: size of the receiver feature.
        sender_node_dim: size of the sender node feature (default ``receiver_dim``).
        sender_edge_dim: size of the edge feature (needed with ``sender_edge_feature``).

    Keras weights (``get_weights()`` order): ``query/kernel`` ``[receiver_dim, H*C]``,
    ``query/bias``, ``value_node/kernel``, ``value_node/bias``, ``value_edge/kernel``,
    ``value_edge/bias`` (each present as configured), ``attn_logits/kernel`` ``[C, H]``.
    Keras builds ``value_node`` / ``value_edge`` on the first call that uses them: after
    ``receiver_tag=CONTEXT`` calls that never had one of the inputs, it has no weights
    (so call the layer once before ``set_weights``, as Keras does before
    ``get_weights()``); before any call, every configured one is listed.
    """

    _param_names = ("attn_logits",)
    _child_names = ("query", "value_node", "value_edge")
    _used: frozenset[str] | None = None  # the sender inputs (node, edge) calls have used

    def __init__(
        self,
        *,
        num_heads: int,
        per_head_channels: int,
        receiver_tag: Any = None,
        receiver_feature: str = HIDDEN_STATE,
        sender_node_feature: str | None = HIDDEN_STATE,
        sender_edge_feature: str | None = None,
        use_bias: bool = True,
        edge_dropout: float = 0.0,
        attention_activation: Any = "leaky_relu",
        heads_merge_type: str = "concat",
        activation: Any = "relu",
        kernel_initializer: Any = None,
        kernel_regularizer: Any = None,
        receiver_dim: int,
        sender_node_dim: int | None = None,
        sender_edge_dim: int | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GATv2Conv"
        self._init_base(receiver_tag, receiver_feature, sender_node_feature, sender_edge_feature)
        if self.receiver_feature is None:
            raise ValueError(f"{where}: receiver_feature cannot be None")
        self.num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
        self.per_head_channels = layer_size(where, "per_head_channels", per_head_channels, 1)
        if not 0 <= float(edge_dropout) < 1:
            raise ValueError(f"{where}: edge_dropout {edge_dropout} must be in [0, 1)")
        self.edge_dropout = float(edge_dropout)
        if heads_merge_type not in ("concat", "mean"):
            raise ValueError(
                f"{where}: heads_merge_type must be 'concat' or 'mean', got {heads_merge_type!r}"
            )
        self.heads_merge_type = heads_merge_type
        self.attention_activation = keras_activation(attention_activation, where)
        self.activation = keras_activation(activation, where)
        self.use_bias = bool(use_bias)
        gen = _rng(rng)
        hc = self.num_heads * self.per_head_channels
        self.receiver_dim = layer_size(where, "receiver_dim", receiver_dim, minimum=1)
        self.query = Linear(self.receiver_dim, hc, self.use_bias, dtype=dtype, rng=gen)
        self.value_node = self.value_edge = None
        self.sender_node_dim = self.sender_edge_dim = None
        if self.sender_node_feature is not None:
            dim = self.receiver_dim if sender_node_dim is None else sender_node_dim
            self.sender_node_dim = layer_size(where, "sender_node_dim", dim, minimum=1)
            self.value_node = Linear(self.sender_node_dim, hc, self.use_bias, dtype=dtype, rng=gen)
        if self.sender_edge_feature is not None:
            if sender_edge_dim is None:
                raise ValueError(
                    f"{where}: sender_edge_feature={self.sender_edge_feature!r} needs "
                    "sender_edge_dim= (the edge feature's size)"
                )
            self.sender_edge_dim = layer_size(where, "sender_edge_dim", sender_edge_dim, 1)
            edge_bias = self.use_bias and self.value_node is None
            self.value_edge = Linear(self.sender_edge_dim, hc, edge_bias, dtype=dtype, rng=gen)
        if self.value_node is None and self.value_edge is None:
            raise ValueError(
                f"{where}: initialized with no inputs (no sender node or edge feature)"
            )
        self.attn_logits = glorot((self.per_head_channels, self.num_heads), gen, dtype)

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        used = _used_inputs(self)
        train, fixed = _concat_slots(
            [
                (f"{prefix}query/", self.query),
                (f"{prefix}value_node/", self.value_node if "node" in used else None),
                (f"{prefix}value_edge/", self.value_edge if "edge" in used else None),
            ],
            frozen,
        )  # then Keras' EinsumDense "attn_logits", the last sub-layer
        attn = KerasSlot(self, "attn_logits", False, f"{prefix}attn_logits/kernel")
        (fixed if frozen else train).append(attn)
        return train, fixed

    @property
    def out_size(self) -> int:
        if self.heads_merge_type == "mean":
            return self.per_head_channels
        return self.num_heads * self.per_head_channels

    def convolve(self, call: ConvolutionCall) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            gatv2_scores_slots,
            slots_as_sources,
            spmm_slots,
            to_slot_order,
        )

        H, C = self.num_heads, self.per_head_channels
        rcv, snd, edge = call.receiver_input, call.sender_node_input, call.sender_edge_input
        used = _check_inputs(self, call)
        self._used = used | (self._used or frozenset())
        query = self.query(rcv).reshape(-1, H, C)
        att = self.attn_logits.T  # [H, C]
        fused = (
            self.attention_activation is _leaky_relu
            and call.sender_index is not None
            and snd is not None
        )
        if fused:
            value_node = self.value_node(snd).reshape(-1, H, C)
            csr = ops.to_csr(
                (call.sender_index, call.receiver_index), value_node.shape[0], query.shape[0]
            )
            w_edge = None
            if edge is not None:  # value_edge has no bias next to a sender node input
                w_edge = self.value_edge.weight.T.reshape(self.sender_edge_dim, H, C)
            logits = gatv2_scores_slots(csr, value_node, query, att, 0.2, edge, w_edge)
            alpha = edge_softmax_slots(csr, logits)  # [E, H], slot order
            out = spmm_slots(csr, value_node, alpha)  # [N_receiver, H, C]
            if edge is not None:  # sum_j alpha_jh e_j first, then project: [N, H, D] @ W
                e_slots = to_slot_order(csr, edge)[:, None, :]
                pooled_e = spmm_slots(slots_as_sources(csr), e_slots, alpha)
                xp = get_namespace(pooled_e)
                out = out + xp.einsum("nhd,dhc->nhc", pooled_e, w_edge.astype(pooled_e.dtype))
        else:
            terms = []
            if snd is not None:
                projected = self.value_node(snd)
                terms.append(call.broadcast_from_sender_node(projected).reshape(-1, H, C))
            if edge is not None:
                terms.append(self.value_edge(edge).reshape(-1, H, C))
            value = terms[0] if len(terms) == 1 else terms[0] + terms[1]
            q_items = call.broadcast_from_receiver(query.reshape(-1, H * C)).reshape(-1, H, C)
            features = self.attention_activation(q_items + value)
            xp = get_namespace(features)
            logits = xp.einsum("mhc,hc->mh", features, att.astype(features.dtype))
            alpha = call.softmax(logits)
            messages = (value * alpha[:, :, None]).reshape(-1, H * C)
            out = call.pool_to_receiver(messages, "sum").reshape(-1, H, C)
        if self.heads_merge_type == "concat":
            out = out.reshape(out.shape[0], H * C)
        else:
            out = out.mean(axis=1)
        return self.activation(out)

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, per_head_channels={self.per_head_channels}, "
            f"receiver_tag={self.receiver_tag!r}, heads_merge_type={self.heads_merge_type!r}"
        )


def GATv2EdgePool(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    num_heads: int,
    per_head_channels: int,
    receiver_tag: Any = None,
    receiver_feature: str = HIDDEN_STATE,
    sender_feature: str = HIDDEN_STATE,
    **kwargs: Any,
) -> GATv2Conv:
    """TF-GNN's ``gat_v2.GATv2EdgePool``: a :class:`GATv2Conv` attending over edge states
    (``sender_node_feature=None``, ``sender_edge_feature=sender_feature``); pass
    ``receiver_dim=`` and ``sender_edge_dim=``."""
    if kwargs.pop("sender_node_feature", None) is not None:
        raise TypeError("GATv2EdgePool() takes no sender_node_feature; did you mean GATv2Conv()?")
    return GATv2Conv(
        num_heads=num_heads,
        per_head_channels=per_head_channels,
        receiver_tag=receiver_tag,
        receiver_feature=receiver_feature,
        sender_node_feature=None,
        sender_edge_feature=sender_feature,
        **kwargs,
    )


class GCNConv(GraphLayer):
    r"""TF-GNN's ``gcn.GCNConv`` (Kipf & Welling), called as ``conv(graph,
    edge_set_name=...)`` on an edge set whose two ends are one node set.

    With edge weights :math:`w_{ij}` (``edge_weight_feature_name``, rank 1; default 1) and
    degrees :math:`d^{in}`, :math:`d^{out}` summed from them at the receiver / sender end
    (``+ 1`` with ``add_self_loops``, else at least 1), ``degree_normalization`` gives
    :math:`v_{ij}` = ``"none"``: :math:`w_{ij}`; ``"in"``: :math:`w_{ij}/d^{in}_j`;
    ``"out"``: :math:`w_{ij}/d^{out}_i`; ``"in_out"`` (default):
    :math:`w_{ij}/\sqrt{d^{out}_i d^{in}_j}`; ``"in_in"``: :math:`w_{ij}/\sqrt{d^{in}_i
    d^{in}_j}`. Then ``activation(Dense(sum_i v_ij h_i [+ self-loop term]))``; the
    aggregation is one ``ops.spmm``.

    Args:
        units: output size.
        receiver_tag: ``TARGET`` (default) or ``SOURCE``.
        activation: Keras name or callable (default ``"relu"``).
        use_bias: bias of the Dense layer.
        add_self_loops: as if a loop of weight 1 joined every node to itself.
        kernel_initializer, kernel_regularizer: accepted and ignored (training only).
        node_feature: the node feature (default ``HIDDEN_STATE``).
        edge_weight_feature_name: a rank-1 edge feature of weights, or ``None``.
        degree_normalization: one of ``"none", "in", "out", "in_out", "in_in"``.
        normalize: TF-GNN's older flag: ``True`` is ``"in_in"``, ``False`` ``"none"``
            (leave ``None`` to use ``degree_normalization``).
        in_features: size of the node feature.

    Keras weights: ``kernel`` ``[in_features, units]``, ``bias``.
    """

    _child_names = ("filter",)

    def __init__(
        self,
        units: int,
        *,
        receiver_tag: int = TARGET,
        activation: Any = "relu",
        use_bias: bool = True,
        add_self_loops: bool = False,
        kernel_initializer: Any = None,
        node_feature: str = HIDDEN_STATE,
        kernel_regularizer: Any = None,
        edge_weight_feature_name: str | None = None,
        degree_normalization: str = "in_out",
        normalize: bool | None = None,
        in_features: int,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "GCNConv"
        self.receiver_tag = check_tag(receiver_tag, where, allow_context=False)
        self.sender_tag = SOURCE if self.receiver_tag == TARGET else TARGET
        if normalize is not None:
            mapped = "in_in" if normalize else "none"
            if degree_normalization not in ("in_out", mapped):
                raise ValueError(
                    f"{where}: normalize={normalize} contradicts "
                    f"degree_normalization={degree_normalization!r}"
                )
            degree_normalization = mapped
        if degree_normalization not in DEGREE_NORMALIZATIONS:
            raise ValueError(
                f"{where}: degree_normalization must be one of {DEGREE_NORMALIZATIONS}, got "
                f"{degree_normalization!r}"
            )
        self.degree_normalization = degree_normalization
        self.add_self_loops = bool(add_self_loops)
        if not isinstance(node_feature, str):
            raise TypeError(f"{where}: node_feature must be a str, got {node_feature!r}")
        self.node_feature = node_feature
        self.edge_weight_feature_name = edge_weight_feature_name
        self.activation = keras_activation(activation, where)
        self.units = layer_size(where, "units", units, minimum=1)
        self.in_features = layer_size(where, "in_features", in_features, minimum=1)
        self.filter = Linear(self.in_features, self.units, bool(use_bias), dtype=dtype, rng=rng)

    def __call__(self, graph: GraphTensor, *, edge_set_name: str) -> Any:
        from arraygnn import ops
        from arraygnn.graph_tensor.broadcast_pool import pool_edges_to_node

        check_graph(graph, "GCNConv")
        where = f"GCNConv on edge set {edge_set_name!r}"
        es = edge_set(graph, edge_set_name, where)
        sender_name = es.adjacency.node_set_name(self.sender_tag)
        if es.adjacency.node_set_name(self.receiver_tag) != sender_name:
            raise ValueError(
                f"{where}: source and target node sets must be the same, got "
                f"{es.adjacency.source_name!r} and {es.adjacency.target_name!r}"
            )
        ns = graph.node_sets[sender_name]
        x = feature(ns, self.node_feature, f"node set {sender_name!r}", where)
        what = f"feature {self.node_feature!r} of node set {sender_name!r}"
        _check_2d(x, self.in_features, what, where)
        xp = get_namespace(x)
        if x.dtype.itemsize < 4:  # half precision accumulates in float32
            x = x.astype(xp.float32)
        weights = None
        if self.edge_weight_feature_name is not None:
            weights = feature(
                es, self.edge_weight_feature_name, f"edge set {edge_set_name!r}", where
            )
            if weights.ndim != 1:
                raise ValueError(
                    f"{where}: edge weight feature {self.edge_weight_feature_name!r} must be "
                    f"rank 1 [num_edges], got shape {tuple(weights.shape)}"
                )
            weights = weights.astype(x.dtype, copy=False)
        ones = weights if weights is not None else xp.ones(es.total_size, dtype=x.dtype)

        def degree(tag: int) -> Any:
            d = pool_edges_to_node(graph, edge_set_name, tag, "sum", feature_value=ones)
            return d + 1 if self.add_self_loops else xp.maximum(d, 1)

        norm = self.degree_normalization
        sender_scale = receiver_scale = None
        if norm == "in":
            receiver_scale = 1 / degree(self.receiver_tag)
        elif norm == "out":
            sender_scale = 1 / degree(self.sender_tag)
        elif norm == "in_out":
            sender_scale = 1 / xp.sqrt(degree(self.sender_tag))
            receiver_scale = 1 / xp.sqrt(degree(self.receiver_tag))
        elif norm == "in_in":
            sender_scale = receiver_scale = 1 / xp.sqrt(degree(self.receiver_tag))
        values = x if sender_scale is None else sender_scale[:, None] * x
        pooled = ops.spmm(
            (es.adjacency[self.sender_tag], es.adjacency[self.receiver_tag]),
            values,
            edge_weight=weights,
            num_dst_nodes=ns.total_size,
        )
        if receiver_scale is not None:
            pooled = receiver_scale[:, None] * pooled
        if self.add_self_loops:
            pooled = pooled + (
                values if receiver_scale is None else receiver_scale[:, None] * values
            )
        return self.activation(self.filter(pooled.astype(x.dtype, copy=False)))

    def extra_repr(self) -> str:
        return (
            f"{self.in_features}, {self.units}, receiver_tag={self.receiver_tag}, "
            f"degree_normalization={self.degree_normalization!r}"
        )


def VanillaMPNNGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    message_dim: int,
    receiver_tag: int,
    node_set_names: Collection[str] | None = None,
    edge_feature: str | None = None,
    reduce_type: str = "sum",
    l2_regularization: float = 0.0,
    dropout_rate: float = 0.0,
    kernel_initializer: Any = None,
    use_layer_normalization: bool = False,
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
) -> GraphUpdate:
    """TF-GNN's ``vanilla_mpnn.VanillaMPNNGraphUpdate``: one round of node updates, a
    :class:`SimpleConv` per edge set with ``Dense(message_dim, "relu")`` messages (inputs
    ``[edge_feature, sender, receiver]``: TF-GNN's ``SimpleConv`` order) pooled with
    ``reduce_type``, and ``NextStateFromConcat(Dense(units, "relu")
    [+ LayerNormalization(epsilon=1e-3)])`` per receiving node set.

    Node sets updated: ``node_set_names``, or every node set at the ``receiver_tag`` end of
    a non-auxiliary edge set (aux sets start with ``_`` and the like). The layers are sized
    from ``graph_spec`` (a ``GraphTensorSpec``) when given, else on the first call.
    ``l2_regularization``, ``dropout_rate`` and ``kernel_initializer`` only matter for
    training and are ignored.

    Keras weights: per updated node set (sorted): per edge set (sorted) the message
    ``kernel``, ``bias``; then the next-state ``kernel``, ``bias`` (and ``gamma``,
    ``beta``).
    """
    args = dict(locals())  # for a picklable deferred update
    where = "VanillaMPNNGraphUpdate"
    tag = check_tag(receiver_tag, where, allow_context=False)
    units = layer_size(where, "units", units, minimum=1)
    message_dim = layer_size(where, "message_dim", message_dim, minimum=1)
    reduce_type = check_reduce_type(reduce_type, where)
    factor = len(reduce_type.split("|"))
    wanted = name_set(node_set_names, "node_set_names", where)
    for name in wanted or ():
        if is_aux(name):
            raise ValueError(f"{where}: convolution requested towards aux node set {name!r}")
    gen = _rng(rng)

    def size(features: Any, name: str, what: str) -> int:
        if name not in features:
            raise ValueError(f"{where}: {what} has no feature {name!r}")
        shape = features[name].shape
        if len(shape) != 1 or shape[0] is None:
            raise ValueError(f"{where}: feature {name!r} of {what} must be [num_items, size]")
        return int(shape[0])

    def init(spec: Any) -> dict[str, Any]:
        inputs: dict[str, dict[str, Any]] = {}
        for es_name in sorted(spec.edge_sets):
            if is_aux(es_name):
                continue
            es = spec.edge_sets[es_name]
            receiver = es.target_name if tag == TARGET else es.source_name
            sender = es.source_name if tag == TARGET else es.target_name
            if wanted is not None and receiver not in wanted:
                continue
            if is_aux(receiver):
                raise ValueError(
                    f"{where}: node set {receiver!r} is auxiliary but the incident edge set "
                    f"{es_name!r} is not"
                )
            width = size(spec.node_sets[sender].features, HIDDEN_STATE, f"node set {sender!r}")
            width += size(spec.node_sets[receiver].features, HIDDEN_STATE, f"node set {receiver!r}")
            if edge_feature is not None:
                width += size(es.features, edge_feature, f"edge set {es_name!r}")
            message = dense(width, message_dim, "relu", dtype=dtype, rng=gen)
            inputs.setdefault(receiver, {})[es_name] = SimpleConv(
                message, reduce_type, receiver_tag=tag, sender_edge_feature=edge_feature
            )
        missing = sorted((wanted or set()) - set(inputs))
        if missing:
            raise ValueError(
                f"{where}: node sets {missing} receive from no edge set at receiver_tag {tag}"
            )
        node_sets = {}
        for ns_name, convs in inputs.items():
            width = size(spec.node_sets[ns_name].features, HIDDEN_STATE, f"node set {ns_name!r}")
            width += factor * message_dim * len(convs)
            lin = Linear(width, units, True, dtype=dtype, rng=gen)
            steps: list[Any] = [lin, keras_activation("relu", where)]
            if use_layer_normalization:
                steps.append(LayerNorm(units, eps=1e-3, dtype=dtype))
            node_sets[ns_name] = NodeSetUpdate(convs, NextStateFromConcat(Sequential(*steps)))
        return {"node_sets": node_sets}

    if graph_spec is not None:
        return GraphUpdate(**init(graph_spec))
    return deferred_update(VanillaMPNNGraphUpdate, args)
