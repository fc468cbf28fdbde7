"""TF-GNN's Model Template "Albis" (``tensorflow_gnn.models.mt_albis``) on a GraphTensor:
``MtAlbisGraphUpdate`` with its ``MtAlbisSimpleConv`` and ``MtAlbisNextNodeState``, at
inference.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> update = MtAlbisGraphUpdate(units=4, message_dim=6, receiver_tag=TARGET, rng=0)
>>> update(g).node_sets["n"]["hidden_state"].shape
(3, 4)
>>> [w.shape for w in update.get_weights()]  # message Dense, next-state Dense, gamma, beta
[(6, 6), (6,), (9, 4), (4,), (4,), (4,)]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import is_array
from arraygnn.graph_tensor.layers._base import GraphLayer, concat_last, name_set
from arraygnn.graph_tensor.layers._keras import dense, keras_activation
from arraygnn.graph_tensor.layers.builders import conv_gnn_graph_update
from arraygnn.graph_tensor.layers.convolutions import SimpleConv, check_reduce_type, check_tag
from arraygnn.graph_tensor.layers.graph_update import deferred_update
from arraygnn.graph_tensor.layers.models import GATv2Conv
from arraygnn.graph_tensor.layers.multi_head_attention import MultiHeadAttentionConv
from arraygnn.graph_tensor.pieces import HIDDEN_STATE
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import BatchNorm, LayerNorm, _rng

__all__ = ["MtAlbisGraphUpdate", "MtAlbisNextNodeState", "MtAlbisSimpleConv"]

ATTENTION_TYPES = ("none", "multi_head", "gat_v2")
NORMALIZATION_TYPES = ("layer", "batch", "none")


def MtAlbisSimpleConv(  # noqa: N802 - called like a class, as TF-GNN's
    units: int,
    *,
    receiver_tag: Any,
    reduce_type: str = "mean",
    activation: Any = "relu",
    edge_dropout_rate: float = 0.0,
    use_receiver_state: bool = True,
    edge_feature_name: str | None = None,
    kernel_initializer: Any = None,
    kernel_regularizer: Any = None,
    name: str | None = None,
    in_features: int,
    dtype: Any = np.float32,
    rng: Any = None,
) -> SimpleConv:
    """TF-GNN's ``mt_albis.MtAlbisSimpleConv``: a :class:`SimpleConv` whose message is
    ``Dense(units, activation)`` (then ``ItemDropout``, a no-op at inference) on
    ``[edge feature, sender, receiver (use_receiver_state)]``; ``in_features`` is the
    width of that concatenation. ``name`` (the Keras layer name) is accepted and ignored.
    Keras weights: kernel, bias."""
    if not 0 <= float(edge_dropout_rate) < 1:
        raise ValueError(
            f"MtAlbisSimpleConv: edge_dropout_rate {edge_dropout_rate} must be in [0, 1)"
        )
    return SimpleConv(
        dense(in_features, units, activation, dtype=dtype, rng=rng),
        reduce_type,
        receiver_tag=receiver_tag,
        receiver_feature=HIDDEN_STATE if use_receiver_state else None,
        sender_edge_feature=edge_feature_name,
    )


class MtAlbisNextNodeState(GraphLayer):
    """TF-GNN's ``mt_albis.MtAlbisNextNodeState``: ``norm(Dense(units, activation)(concat(
    [state, combined edge set inputs, context input])) [+ state])``.

    The edge set inputs (sorted by name) are concatenated (``edge_set_combine_type=
    "concat"``) or summed (``"sum"``); the residual link (``next_state_type="residual"``)
    is left out for an empty ``[N, 0]`` state; ``normalization_type`` is ``"layer"``
    (``LayerNormalization``, epsilon 1e-3), ``"batch"`` (``BatchNormalization`` with its
    moving statistics, epsilon 1e-3) or ``"none"``. Dropout is a no-op at inference.

    Args:
        units: output size.
        in_features: width of the concatenated input.

    Keras weights: ``dense`` kernel, bias; ``gamma``, ``beta``; then (batch norm) the
    non-trainable ``moving_mean``, ``moving_variance``.
    """

    _child_names = ("dense", "normalization")

    def __init__(
        self,
        units: int,
        *,
        next_state_type: str = "dense",
        dropout_rate: float = 0.0,
        normalization_type: str = "layer",
        batch_normalization_momentum: float = 0.99,
        edge_set_combine_type: str = "concat",
        activation: Any = "relu",
        kernel_initializer: Any = None,
        kernel_regularizer: Any = None,
        in_features: int,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        where = "MtAlbisNextNodeState"
        self.units = layer_size(where, "units", units, minimum=1)
        if next_state_type not in ("dense", "residual"):
            raise ValueError(
                f"{where}: next_state_type must be 'dense' or 'residual', got {next_state_type!r}"
            )
        self.next_state_type = next_state_type
        if normalization_type not in NORMALIZATION_TYPES:
            raise ValueError(f"{where}: unknown normalization_type {normalization_type!r}")
        self.normalization_type = normalization_type
        if edge_set_combine_type not in ("concat", "sum"):
            raise ValueError(
                f"{where}: edge_set_combine_type must be 'concat' or 'sum', got "
                f"{edge_set_combine_type!r}"
            )
        self.edge_set_combine_type = edge_set_combine_type
        if not 0 <= float(dropout_rate) < 1:
            raise ValueError(f"{where}: dropout_rate {dropout_rate} must be in [0, 1)")
        self.dropout_rate = float(dropout_rate)
        self.in_features = layer_size(where, "in_features", in_features, minimum=1)
        keras_activation(activation, where)
        self.dense = dense(self.in_features, self.units, activation, dtype=dtype, rng=rng)
        self.normalization = None
        if normalization_type == "layer":
            self.normalization = LayerNorm(self.units, eps=1e-3, dtype=dtype)
        elif normalization_type == "batch":
            self.normalization = BatchNorm(self.units, eps=1e-3, dtype=dtype)

    def __call__(self, inputs: tuple[Any, Any, Any]) -> Any:
        where = "MtAlbisNextNodeState"
        if not isinstance(inputs, tuple) or len(inputs) != 3:
            raise TypeError(f"{where}: expects a tuple of 3 inputs, got {type(inputs).__name__}")
        state, edge_inputs, context = inputs
        state = _single(state, "input state")
        parts = [state]
        if edge_inputs:
            values = [
                _single(v, f"input from edge set {k!r}") for k, v in sorted(edge_inputs.items())
            ]
            if self.edge_set_combine_type == "concat":
                parts.append(concat_last(values, where))
            else:
                total = values[0]
                for v in values[1:]:
                    if tuple(v.shape) != tuple(total.shape):
                        raise ValueError(
                            f"{where}: edge_set_combine_type 'sum' needs inputs of one shape, "
                            f"got {[tuple(x.shape) for x in values]}"
                        )
                    total = total + v
                parts.append(total)
        if not (isinstance(context, Mapping) and not context):
            parts.append(_single(context, "input from context"))
        net = self.dense(concat_last(parts, where))
        if self.next_state_type == "residual" and state.shape[-1] != 0:
            if tuple(state.shape) != tuple(net.shape):
                raise ValueError(
                    f"{where}(next_state_type='residual') requires an input that matches the "
                    f"output shape, got {tuple(state.shape)} vs {tuple(net.shape)}"
                )
            net = net + state
        if self.normalization is not None:
            net = self.normalization(net)
        return net

    def extra_repr(self) -> str:
        return (
            f"{self.in_features}, {self.units}, next_state_type={self.next_state_type!r}, "
            f"normalization_type={self.normalization_type!r}"
        )


def _single(x: Any, what: str) -> Any:
    if isinstance(x, Mapping) or not is_array(x):
        raise ValueError(f"MtAlbisNextNodeState expects a single array as {what}, got {x!r}")
    return x


def MtAlbisGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    message_dim: int,
    receiver_tag: int,
    node_set_names: Collection[str] | None = None,
    edge_feature_name: str | None = None,
    attention_type: str = "none",
    attention_edge_set_names: Collection[str] | None = None,
    attention_num_heads: int = 4,
    simple_conv_reduce_type: str = "mean",
    simple_conv_use_receiver_state: bool = True,
    state_dropout_rate: float = 0.0,
    edge_dropout_rate: float = 0.0,
    l2_regularization: float = 0.0,
    kernel_initializer: Any = "glorot_uniform",
    normalization_type: str = "layer",
    batch_normalization_momentum: float = 0.99,
    next_state_type: str = "dense",
    edge_set_combine_type: str = "concat",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
) -> Any:
    """TF-GNN's ``mt_albis.MtAlbisGraphUpdate``: per receiving node set, one convolution
    per edge set (:func:`MtAlbisSimpleConv`, or with ``attention_type`` ``"multi_head"`` /
    ``"gat_v2"`` a :class:`MultiHeadAttentionConv` / ``GATv2Conv`` of
    ``attention_num_heads`` heads, for the edge sets in ``attention_edge_set_names`` or
    all), then :class:`MtAlbisNextNodeState` (TF-GNN's ``ConvGNNBuilder``). Sized from
    ``graph_spec`` or on the first call; dropout, regularisation and the initializer are
    ignored.

    Keras weights: per updated node set (sorted), its convolutions (sorted by edge set),
    then the next state's (see :class:`MtAlbisNextNodeState`; batch-norm statistics after
    all trainable weights of that node set update).
    """
    args = dict(locals())  # for a picklable deferred update
    where = "MtAlbisGraphUpdate"
    check_tag(receiver_tag, where, allow_context=False)
    units = layer_size(where, "units", units, minimum=1)
    message_dim = layer_size(where, "message_dim", message_dim, minimum=1)
    if attention_type not in ATTENTION_TYPES:
        raise ValueError(f"{where}: unknown attention_type {attention_type!r}")
    heads = layer_size(where, "attention_num_heads", attention_num_heads, minimum=1)
    reduce_type = check_reduce_type(simple_conv_reduce_type, where)
    if next_state_type not in ("dense", "residual"):
        raise ValueError(f"{where}: next_state_type must be 'dense' or 'residual'")
    if normalization_type not in NORMALIZATION_TYPES:
        raise ValueError(f"{where}: unknown normalization_type {normalization_type!r}")
    if edge_set_combine_type not in ("concat", "sum"):
        raise ValueError(f"{where}: edge_set_combine_type must be 'concat' or 'sum'")
    attention_sets = name_set(attention_edge_set_names, "attention_edge_set_names", where)
    gen = _rng(rng)

    def needs_attention(edge_set_name: str) -> bool:
        if attention_type == "none":
            return False
        return attention_sets is None or edge_set_name in attention_sets

    def conv(edge_set_name: str, dims: dict[str, Any]) -> tuple[Any, int]:
        if not needs_attention(edge_set_name):
            width = dims["sender"] + dims.get("edge", 0)
            if simple_conv_use_receiver_state:
                width += dims["receiver"]
            layer = MtAlbisSimpleConv(
                message_dim,
                receiver_tag=receiver_tag,
                reduce_type=reduce_type,
                edge_dropout_rate=edge_dropout_rate,
                use_receiver_state=simple_conv_use_receiver_state,
                edge_feature_name=edge_feature_name,
                in_features=width,
                dtype=dtype,
                rng=gen,
            )
            return layer, message_dim * len(reduce_type.split("|"))
        if message_dim % heads:
            raise ValueError(
                f"{where}: message_dim must be divisible by attention_num_heads, got "
                f"{message_dim} and {heads}"
            )
        cls = MultiHeadAttentionConv if attention_type == "multi_head" else GATv2Conv
        layer = cls(
            num_heads=heads,
            per_head_channels=message_dim // heads,
            receiver_tag=receiver_tag,
            edge_dropout=edge_dropout_rate,
            sender_edge_feature=edge_feature_name,
            receiver_dim=dims["receiver"],
            sender_node_dim=dims["sender"],
            sender_edge_dim=dims.get("edge"),
            dtype=dtype,
            rng=gen,
        )
        return layer, message_dim

    def next_state(node_set_name: str, width: int, widths: list[int]) -> Any:
        if edge_set_combine_type == "sum":
            if len(set(widths)) > 1:
                raise ValueError(
                    f"{where}: edge_set_combine_type 'sum' needs inputs of one size into node "
                    f"set {node_set_name!r}, got {widths}"
                )
            width += widths[0]
        else:
            width += sum(widths)
        return MtAlbisNextNodeState(
            units,
            next_state_type=next_state_type,
            dropout_rate=state_dropout_rate,
            normalization_type=normalization_type,
            batch_normalization_momentum=batch_normalization_momentum,
            edge_set_combine_type=edge_set_combine_type,
            activation="relu",
            in_features=width,
            dtype=dtype,
            rng=gen,
        )

    update = conv_gnn_graph_update(
        where, conv, next_state, receiver_tag, node_set_names, edge_feature_name, graph_spec
    )
    return update if graph_spec is not None else deferred_update(MtAlbisGraphUpdate, args)
