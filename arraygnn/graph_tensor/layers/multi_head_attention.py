"""TF-GNN's ``multi_head_attention`` model on a GraphTensor: ``MultiHeadAttentionConv``
(transformer-style dot-product attention over the edges), ``MultiHeadAttentionEdgePool``,
``MultiHeadAttentionHomGraphUpdate`` and ``MultiHeadAttentionMPNNGraphUpdate``, at
inference.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> conv = MultiHeadAttentionConv(num_heads=2, per_head_channels=4, receiver_tag=TARGET,
...                               receiver_dim=3, rng=0)
>>> conv(g, edge_set_name="e").shape
(3, 8)
>>> [w.shape for w in conv.get_weights()]  # key_node, value_node, query: kernel, bias each
[(3, 8), (8,), (3, 8), (8,), (3, 8), (8,)]
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.layers._keras import (
    KerasSlot,
    _concat_slots,
    _elu,
    _identity,
    keras_activation,
)
from arraygnn.graph_tensor.layers.builders import (
    conv_gnn_graph_update,
    homogeneous_graph_update,
    keras_dense_dropout,
)
from arraygnn.graph_tensor.layers.convolutions import AnyToAnyConvolutionBase, ConvolutionCall
from arraygnn.graph_tensor.layers.graph_update import deferred_update
from arraygnn.graph_tensor.layers.models import _check_inputs, _used_inputs
from arraygnn.graph_tensor.layers.next_state import NextStateFromConcat
from arraygnn.graph_tensor.pieces import HIDDEN_STATE
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import Linear, _rng, glorot

__all__ = [
    "MultiHeadAttentionConv",
    "MultiHeadAttentionEdgePool",
    "MultiHeadAttentionHomGraphUpdate",
    "MultiHeadAttentionMPNNGraphUpdate",
]

SCORE_SCALINGS = ("none", "rsqrt_dim", "trainable_elup1")


class MultiHeadAttentionConv(AnyToAnyConvolutionBase):
    r"""TF-GNN's ``multi_head_attention.MultiHeadAttentionConv``: transformer-style
    dot-product attention of each receiver over its edges.

    Per head :math:`k`, query :math:`q_v = \sigma_{att}(W_Q h_v)`, key
    :math:`k_{uv} = \sigma_{att}(W_K [h_u \| e_{uv}])` (``transform_keys=False``: the raw
    :math:`[h_u \| e_{uv}]`, with a query of that width), value
    :math:`W_V [h_u \| e_{uv}]`:

    .. math::
        \alpha_{uv} = \mathrm{softmax}_u(s \cdot q_v^\top k_{uv}), \quad
        h_v' = \sigma\big(\|_k \textstyle\sum_u \alpha_{uv} W_V [h_u \| e_{uv}]\big)

    with :math:`s = 1/\sqrt{d_{key}}` (``score_scaling="rsqrt_dim"``), ``1`` (``"none"``)
    or a trained ``1 + elu(w_k)`` per head (``"trainable_elup1"``). A receiver without
    edges gets ``activation(0)`` (``activation(bias)`` with
    ``transform_values_after_pooling``). ``receiver_tag=CONTEXT`` attends over a node
    set's nodes or an edge set's edges per component; as TF-GNN, the input such a call
    does not have (the sender node feature when pooling edges, the edge feature for a node
    set) is ignored, and its projections get no Keras weights (see below).

    The scores are SDDMM dot products over the receiver-sorted CSR, the softmax and the
    weighted sums run in its slot order (``arraygnn.ops``), and edge features are pooled
    before their projection: no ``[E, heads, channels]`` array is formed, except for the
    keys of an edge input (with or without a sender node input) under a non-linear
    ``attention_activation``, which TF-GNN computes per edge before the activation.

    Args:
        num_heads, per_head_channels: as TF-GNN (output ``[N, num_heads *
            per_head_channels]``).
        receiver_tag: ``SOURCE``, ``TARGET``, ``CONTEXT``, or ``None`` (given at call).
        receiver_feature, sender_node_feature, sender_edge_feature: as TF-GNN.
        use_bias: biases on the query, key and value projections (an edge projection has
            one only without a sender node input, as TF-GNN).
        edge_dropout, inputs_dropout: accepted and checked; inference ignores them.
        attention_activation: on the projected queries (and keys); Keras name, callable
            or ``None`` (default).
        activation: applied to the pooled values (default ``"relu"``).
        kernel_initializer, kernel_regularizer: accepted and ignored (training only).
        transform_keys, score_scaling, transform_values_after_pooling: as TF-GNN.
        share_key_transform: one key projection (``per_head_channels`` wide) shared by all
            heads instead of one per head (TF-GNN after 1.0.3; with ``transform_keys``).
        receiver_dim: size of the receiver feature.
        sender_node_dim: size of the sender node feature (default ``receiver_dim``).
        sender_edge_dim: size of the edge feature (needed with ``sender_edge_feature``).

    Keras weights (``get_weights()`` order): ``score_scaling`` ``[H, 1]`` (own weight,
    so first; ``"trainable_elup1"`` only), ``key_node``, ``key_edge`` (``transform_keys``),
    ``value_node``, ``value_edge`` (kernel, bias each as configured) or ``value_pooled``
    (kernel ``[H, key width, C]``, bias ``[H, C]``), and last ``query`` (TF-GNN creates it
    on the first call). Keras builds the node / edge projections on the first call that
    uses them: after ``receiver_tag=CONTEXT`` calls that never had one of the inputs, it
    has no weights, and the key width (of ``value_pooled``, and of ``query`` with
    ``transform_keys=False``) is that of the inputs used; the first such call resizes
    them. So call the layer once before ``set_weights`` (as Keras does before
    ``get_weights()``); before any call, every configured projection is listed.
    """

    _param_names = ("score_scaling", "value_pooled_kernel", "value_pooled_bias")
    _child_names = ("key_node", "key_edge", "value_node", "value_edge", "query")
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
        inputs_dropout: float = 0.0,
        attention_activation: Any = None,
        activation: Any = "relu",
        kernel_initializer: Any = None,
        kernel_regularizer: Any = None,
        transform_keys: bool = True,
        share_key_transform: bool = False,
        score_scaling: str = "rsqrt_dim",
        transform_values_after_pooling: bool = False,
        receiver_dim: int,
        sender_node_dim: int | None = None,
        sender_edge_dim: int | None = None,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "MultiHeadAttentionConv"
        self._init_base(receiver_tag, receiver_feature, sender_node_feature, sender_edge_feature)
        if self.receiver_feature is None:
            raise ValueError(f"{where}: receiver_feature cannot be None")
        self.num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
        self.per_head_channels = layer_size(where, "per_head_channels", per_head_channels, 1)
        for arg, rate in (("edge_dropout", edge_dropout), ("inputs_dropout", inputs_dropout)):
            if not 0 <= float(rate) < 1:
                raise ValueError(f"{where}: {arg} {rate} must be in [0, 1)")
        self.edge_dropout = float(edge_dropout)
        self.inputs_dropout = float(inputs_dropout)
        if score_scaling not in SCORE_SCALINGS:
            raise ValueError(
                f"{where}: score_scaling must be one of {SCORE_SCALINGS}, got {score_scaling!r}"
            )
        self.score_scaling_type = score_scaling
        self.transform_keys = bool(transform_keys)
        self.share_key_transform = bool(share_key_transform)
        self.transform_values_after_pooling = bool(transform_values_after_pooling)
        self.attention_activation = keras_activation(attention_activation, where)
        self.activation = keras_activation(activation, where)
        self.use_bias = bool(use_bias)
        if self.sender_node_feature is None and self.sender_edge_feature is None:
            raise ValueError(
                f"{where}: initialized with no inputs (no sender node or edge feature)"
            )
        gen = _rng(rng)
        H, C = self.num_heads, self.per_head_channels
        hc = H * C
        self.receiver_dim = layer_size(where, "receiver_dim", receiver_dim, minimum=1)
        self.sender_node_dim = self.sender_edge_dim = None
        if self.sender_node_feature is not None:
            dim = self.receiver_dim if sender_node_dim is None else sender_node_dim
            self.sender_node_dim = layer_size(where, "sender_node_dim", dim, minimum=1)
        if self.sender_edge_feature is not None:
            if sender_edge_dim is None:
                raise ValueError(
                    f"{where}: sender_edge_feature={self.sender_edge_feature!r} needs "
                    "sender_edge_dim= (the edge feature's size)"
                )
            self.sender_edge_dim = layer_size(where, "sender_edge_dim", sender_edge_dim, 1)
        has_node = self.sender_node_dim is not None
        self.key_width = (self.sender_node_dim or 0) + (self.sender_edge_dim or 0)

        def lin(n_in: int | None, bias: bool, width: int = hc) -> Linear | None:
            return None if n_in is None else Linear(n_in, width, bias, dtype=dtype, rng=gen)

        self.score_scaling = None
        if score_scaling == "trainable_elup1":
            self.score_scaling = np.zeros((H, 1), dtype=dtype)
        self.key_node = self.key_edge = None
        if self.transform_keys:  # one key per head, or one for all (share_key_transform)
            k_width = C if self.share_key_transform else hc
            self.key_node = lin(self.sender_node_dim, self.use_bias, k_width)
            self.key_edge = lin(self.sender_edge_dim, self.use_bias and not has_node, k_width)
        self.value_node = self.value_edge = None
        self.value_pooled_kernel = self.value_pooled_bias = None
        if not self.transform_values_after_pooling:
            self.value_node = lin(self.sender_node_dim, self.use_bias)
            self.value_edge = lin(self.sender_edge_dim, self.use_bias and not has_node)
        else:
            self.value_pooled_kernel = glorot((H, self.key_width, C), gen, dtype)
            if self.use_bias:
                self.value_pooled_bias = np.zeros((H, C), dtype=dtype)
        q_width = C if self.transform_keys else self.key_width
        self.query = Linear(self.receiver_dim, H * q_width, self.use_bias, dtype=dtype, rng=gen)
        self._dtype = dtype
        self._gen = gen

    def _use(self, used: frozenset[str], where: str) -> None:
        """A call using only some of the configured sender inputs (a CONTEXT call): Keras
        builds ``query`` (``transform_keys=False``) and ``value_pooled`` for that call's key
        width; resize them (new random weights) on the first such call."""
        width = (self.sender_node_dim or 0) * ("node" in used) + (self.sender_edge_dim or 0) * (
            "edge" in used
        )
        if width == self.key_width or (self.transform_keys and self.value_pooled_kernel is None):
            return
        if self._used is not None and self._used != used:
            raise ValueError(
                f"{where}: this layer was built for a key width {self.key_width}, this call "
                f"has {width} (TF-GNN cannot change it either)"
            )
        H, C = self.num_heads, self.per_head_channels
        self.key_width = width
        if not self.transform_keys:
            self.query = Linear(
                self.receiver_dim, H * width, self.use_bias, dtype=self._dtype, rng=self._gen
            )
        if self.value_pooled_kernel is not None:
            self.value_pooled_kernel = glorot((H, width, C), self._gen, self._dtype)

    def _keras_slots(
        self, prefix: str, frozen: bool = False
    ) -> tuple[list[KerasSlot], list[KerasSlot]]:
        own = []
        if self.score_scaling is not None:  # add_weight on the layer itself: listed first
            own.append(KerasSlot(self, "score_scaling", False, f"{prefix}score_scaling"))
        used = _used_inputs(self)
        node, edge = "node" in used, "edge" in used
        train, fixed = _concat_slots(
            [
                (f"{prefix}key_node/", self.key_node if node else None),
                (f"{prefix}key_edge/", self.key_edge if edge else None),
                (f"{prefix}value_node/", self.value_node if node else None),
                (f"{prefix}value_edge/", self.value_edge if edge else None),
            ],
            frozen,
        )
        pooled = []
        if self.value_pooled_kernel is not None:
            name = f"{prefix}value_pooled/kernel"
            pooled.append(KerasSlot(self, "value_pooled_kernel", False, name))
            if self.value_pooled_bias is not None:
                pooled.append(
                    KerasSlot(self, "value_pooled_bias", False, f"{prefix}value_pooled/bias")
                )
        q_train, q_fixed = _concat_slots([(f"{prefix}query/", self.query)], frozen)
        if frozen:
            return [], own + fixed + pooled + q_fixed
        return own + train + pooled + q_train, fixed + q_fixed

    @property
    def out_size(self) -> int:
        return self.num_heads * self.per_head_channels

    def convolve(self, call: ConvolutionCall) -> Any:
        from arraygnn import ops
        from arraygnn.ops.slot_order import (
            edge_softmax_slots,
            sddmm_slots,
            slots_as_sources,
            spmm_slots,
            to_slot_order,
        )

        H, C = self.num_heads, self.per_head_channels
        rcv, snd, edge = call.receiver_input, call.sender_node_input, call.sender_edge_input
        used = _check_inputs(self, call)
        self._use(used, call.where)
        self._used = used | (self._used or frozenset())
        xp = get_namespace(rcv)
        dtype = rcv.dtype
        # the items (edges, or the nodes / edges pooled to the context) as a CSR over the
        # receivers; its sources are the sender nodes (or the items themselves)
        n_items = call.num_items
        rcv_index = call.receiver_index
        if call.sender_index is not None and snd is not None:
            snd_index, n_src = call.sender_index, int(snd.shape[0])
        else:  # the items are the senders (nodes to context) or have no sender node input
            snd_index, n_src = xp.arange(n_items, dtype=rcv_index.dtype), n_items
        csr = ops.to_csr((snd_index, rcv_index), n_src, call.num_receivers)
        e_src = None  # the CSR whose sources are the slots: per-edge rows in slot order
        e_slots = None
        if edge is not None:
            e_src = slots_as_sources(csr)
            e_slots = to_slot_order(csr, edge)[:, None, :]  # [E, 1, De]

        def dot_node(node_rows: Any, q: Any) -> Any:  # [N_src, 1|H, D] . [N_r, H, D] -> [E, H]
            return sddmm_slots(csr, node_rows, q, "dot")[..., 0]

        def dot_edge(q: Any) -> Any:  # e_slots . q at the receiver -> [E, H]
            return sddmm_slots(e_src, e_slots, q, "dot")[..., 0]

        act = self.attention_activation
        query = act(self.query(rcv))
        if self.transform_keys:
            query = query.reshape(-1, H, C)
            hk = 1 if self.share_key_transform else H  # key heads: one key serves all heads
            if edge is None:
                keys = act(self.key_node(snd)).reshape(-1, hk, C)
                scores = dot_node(keys, query)
            elif act is _identity:
                # q . (W_e e [+ b]) = e . (W_e^T q) [+ q . b]: no per-edge keys
                w_e = self.key_edge.weight.T.reshape(self.sender_edge_dim, hk, C)
                w_e = xp.broadcast_to(w_e.astype(dtype), (self.sender_edge_dim, H, C))
                q_e = xp.einsum("nhc,dhc->nhd", query, w_e)
                scores = dot_edge(q_e)
                if snd is not None:
                    scores = dot_node(self.key_node(snd).reshape(-1, hk, C), query) + scores
                elif self.key_edge.bias is not None:
                    b_e = xp.broadcast_to(self.key_edge.bias.reshape(hk, C), (H, C))
                    qb = xp.einsum("nhc,hc->nh", query, b_e)
                    scores = scores + ops.gather(qb, to_slot_order(csr, csr.dst))
            else:  # the activation of a sum per edge: [E, H, C] keys, as TF-GNN
                keys = self.key_edge(edge)
                if snd is not None:
                    keys = ops.gather(self.key_node(snd), snd_index) + keys
                keys = xp.broadcast_to(act(keys).reshape(-1, hk, C), (n_items, H, C))
                q_items = ops.gather(query, rcv_index)
                scores = to_slot_order(csr, xp.einsum("ehc,ehc->eh", q_items, keys))
            key_dim = C
        else:
            query = query.reshape(-1, H, self.key_width)
            d_node = self.sender_node_dim if snd is not None else 0
            scores = None
            if snd is not None:
                scores = dot_node(snd[:, None, :], xp.ascontiguousarray(query[:, :, :d_node]))
            if edge is not None:
                part = dot_edge(xp.ascontiguousarray(query[:, :, d_node:]))
                scores = part if scores is None else scores + part
            key_dim = self.key_width
        if self.score_scaling_type == "rsqrt_dim":
            scores = scores * dtype.type(1.0 / np.sqrt(key_dim))
        elif self.score_scaling_type == "trainable_elup1":
            scale = 1 + _elu(self.score_scaling.reshape(H).astype(dtype))
            scores = scores * scale
        alpha = edge_softmax_slots(csr, scores.astype(dtype, copy=False))  # [E, H], slots
        if not self.transform_values_after_pooling:
            out = None
            if snd is not None:
                out = spmm_slots(csr, self.value_node(snd).reshape(-1, H, C), alpha)
            if edge is not None:  # sum_u alpha e, then the projection: [N, H, De] @ W
                pooled_e = spmm_slots(e_src, e_slots, alpha)
                w_v = self.value_edge.weight.T.reshape(self.sender_edge_dim, H, C)
                part = xp.einsum("nhd,dhc->nhc", pooled_e, w_v.astype(pooled_e.dtype))
                if self.value_edge.bias is not None:  # the weights of a receiver sum to 1
                    has = (csr.in_degrees() > 0).astype(part.dtype)
                    part = part + has[:, None, None] * self.value_edge.bias.reshape(H, C)
                out = part if out is None else out + part
        else:
            parts = []
            if snd is not None:
                parts.append(spmm_slots(csr, snd[:, None, :], alpha))
            if edge is not None:
                parts.append(spmm_slots(e_src, e_slots, alpha))
            pooled = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=-1)
            kernel = self.value_pooled_kernel.astype(pooled.dtype, copy=False)
            out = xp.einsum("nhv,hvc->nhc", pooled, kernel)
            if self.value_pooled_bias is not None:
                out = out + self.value_pooled_bias
        out = out.astype(dtype, copy=False)
        return self.activation(out).reshape(out.shape[0], H * C)

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, per_head_channels={self.per_head_channels}, "
            f"receiver_tag={self.receiver_tag!r}, transform_keys={self.transform_keys}, "
            f"share_key_transform={self.share_key_transform}, "
            f"score_scaling={self.score_scaling_type!r}"
        )


def MultiHeadAttentionEdgePool(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    num_heads: int,
    per_head_channels: int,
    receiver_tag: Any = None,
    receiver_feature: str = HIDDEN_STATE,
    sender_feature: str = HIDDEN_STATE,
    **kwargs: Any,
) -> MultiHeadAttentionConv:
    """TF-GNN's ``multi_head_attention.MultiHeadAttentionEdgePool``: a
    :class:`MultiHeadAttentionConv` attending over edge states
    (``sender_node_feature=None``, ``sender_edge_feature=sender_feature``); pass
    ``receiver_dim=`` and ``sender_edge_dim=``."""
    if kwargs.pop("sender_node_feature", None) is not None:
        raise TypeError(
            "MultiHeadAttentionEdgePool() takes no sender_node_feature; did you mean "
            "MultiHeadAttentionConv()?"
        )
    return MultiHeadAttentionConv(
        num_heads=num_heads,
        per_head_channels=per_head_channels,
        receiver_tag=receiver_tag,
        receiver_feature=receiver_feature,
        sender_node_feature=None,
        sender_edge_feature=sender_feature,
        **kwargs,
    )


def MultiHeadAttentionHomGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    num_heads: int,
    per_head_channels: int,
    receiver_tag: int,
    feature_name: str = HIDDEN_STATE,
    name: str = "multi_head_attention",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
    **kwargs: Any,
) -> Any:
    """TF-GNN's ``multi_head_attention.MultiHeadAttentionHomGraphUpdate``: on a graph with
    one node set and one edge set (aux sets aside), the node states become the
    :class:`MultiHeadAttentionConv` result (``SingleInputNextState``). Sized from
    ``graph_spec`` or on the first call; ``kwargs`` go to the convolution; ``name`` (the
    Keras layer name) is accepted and ignored. Keras weights: the convolution's."""
    args = dict(locals())  # for a picklable deferred update
    gen = _rng(rng)

    def conv(dims: dict[str, Any]) -> MultiHeadAttentionConv:
        return MultiHeadAttentionConv(
            num_heads=num_heads,
            per_head_channels=per_head_channels,
            receiver_tag=receiver_tag,
            receiver_feature=feature_name,
            sender_node_feature=feature_name,
            receiver_dim=dims["receiver"],
            sender_node_dim=dims["sender"],
            dtype=dtype,
            rng=gen,
            **kwargs,
        )

    update = homogeneous_graph_update(
        "MultiHeadAttentionHomGraphUpdate", conv, receiver_tag, feature_name, graph_spec
    )
    return (
        update
        if graph_spec is not None
        else deferred_update(MultiHeadAttentionHomGraphUpdate, args)
    )


def MultiHeadAttentionMPNNGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    message_dim: int,
    num_heads: int,
    receiver_tag: int,
    node_set_names: Collection[str] | None = None,
    edge_feature: str | None = None,
    l2_regularization: float = 0.0,
    edge_dropout_rate: float = 0.0,
    state_dropout_rate: float = 0.0,
    attention_activation: Any = None,
    conv_activation: Any = "relu",
    activation: Any = "relu",
    kernel_initializer: Any = "glorot_uniform",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
) -> Any:
    """TF-GNN's ``multi_head_attention.MultiHeadAttentionMPNNGraphUpdate``: per receiving
    node set, a :class:`MultiHeadAttentionConv` per edge set (``message_dim /
    num_heads`` channels per head) and ``NextStateFromConcat(Dense(units, activation))``
    (TF-GNN's ``ConvGNNBuilder``). Sized from ``graph_spec`` or on the first call; the
    regularisation, dropout and initializer arguments are ignored.

    Keras weights: per updated node set (sorted), its convolutions (sorted by edge set),
    then the next state's kernel and bias.
    """
    args = dict(locals())  # for a picklable deferred update
    where = "MultiHeadAttentionMPNNGraphUpdate"
    units = layer_size(where, "units", units, minimum=1)
    message_dim = layer_size(where, "message_dim", message_dim, minimum=1)
    num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
    if message_dim % num_heads:
        raise ValueError(
            f"{where}: message_dim must be divisible by num_heads, got {message_dim} and "
            f"{num_heads}"
        )
    gen = _rng(rng)

    def conv(edge_set_name: str, dims: dict[str, Any]) -> tuple[Any, int]:
        layer = MultiHeadAttentionConv(
            num_heads=num_heads,
            per_head_channels=message_dim // num_heads,
            receiver_tag=receiver_tag,
            sender_edge_feature=edge_feature,
            edge_dropout=edge_dropout_rate,
            attention_activation=attention_activation,
            activation=conv_activation,
            receiver_dim=dims["receiver"],
            sender_node_dim=dims["sender"],
            sender_edge_dim=dims.get("edge"),
            dtype=dtype,
            rng=gen,
        )
        return layer, message_dim

    def next_state(node_set_name: str, width: int, widths: list[int]) -> Any:
        return NextStateFromConcat(
            keras_dense_dropout(width + sum(widths), units, activation, dtype=dtype, rng=gen)
        )

    update = conv_gnn_graph_update(
        where, conv, next_state, receiver_tag, node_set_names, edge_feature, graph_spec
    )
    return (
        update
        if graph_spec is not None
        else deferred_update(MultiHeadAttentionMPNNGraphUpdate, args)
    )
