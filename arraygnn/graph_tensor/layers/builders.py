"""Graph updates built from a graph's spec: TF-GNN's ``ConvGNNBuilder`` pattern (one
convolution per edge set into each receiving node set, then a next state) and the
``*HomGraphUpdate`` / ``*MPNNGraphUpdate`` builders of ``gat_v2`` and ``gcn``.

Keras sizes these layers on their first call; so do these builders (or at once from
``graph_spec=``, an arraygnn ``GraphTensorSpec``). Auxiliary sets (names starting with
``_`` and the like) are skipped, as TF-GNN.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> update = GATv2MPNNGraphUpdate(units=4, message_dim=6, num_heads=2, receiver_tag=TARGET,
...                               rng=0)
>>> update(g).node_sets["n"]["hidden_state"].shape
(3, 4)
>>> [w.shape for w in update.get_weights()]  # GATv2Conv, then the next state's Dense
[(3, 6), (6,), (3, 6), (6,), (3, 2), (9, 4), (4,)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from arraygnn.graph_tensor.layers._base import is_aux, name_set
from arraygnn.graph_tensor.layers._keras import dense
from arraygnn.graph_tensor.layers.convolutions import check_tag
from arraygnn.graph_tensor.layers.graph_update import GraphUpdate, NodeSetUpdate, deferred_update
from arraygnn.graph_tensor.layers.models import GATv2Conv, GCNConv
from arraygnn.graph_tensor.layers.next_state import NextStateFromConcat, SingleInputNextState
from arraygnn.graph_tensor.pieces import HIDDEN_STATE, TARGET
from arraygnn.nn._module import layer_size
from arraygnn.nn.linear import _rng

__all__ = [
    "conv_gnn_graph_update",
    "homogeneous_graph_update",
    "GATv2HomGraphUpdate",
    "GATv2MPNNGraphUpdate",
    "GCNHomGraphUpdate",
]


def feature_width(features: Any, name: str, what: str, where: str) -> int:
    """The size of a ``[num_items, size]`` feature in a spec, or an error naming it."""
    if name not in features:
        raise ValueError(f"{where}: {what} has no feature {name!r}")
    shape = features[name].shape
    if len(shape) != 1 or shape[0] is None:
        raise ValueError(f"{where}: feature {name!r} of {what} must be [num_items, size]")
    return int(shape[0])


def keras_dense_dropout(
    in_features: int, units: int, activation: Any, *, dtype: Any = np.float32, rng: Any = None
) -> Any:
    """``tf.keras.Sequential([Dense(units, activation), Dropout(rate)])`` at inference: a
    :func:`dense` (Keras weights: kernel, bias)."""
    return dense(in_features, units, activation, dtype=dtype, rng=rng)


_gen = _rng  # a seed, a Generator or None -> a Generator (arraygnn.nn.linear's)


def _deferred(init: Callable[[Any], dict[str, Any]], graph_spec: Any) -> GraphUpdate:
    if graph_spec is not None:
        return GraphUpdate(**init(graph_spec))
    return GraphUpdate(deferred_init_callback=init)


def conv_gnn_graph_update(
    where: str,
    conv_factory: Callable[[str, dict[str, Any]], tuple[Any, int]],
    next_state_factory: Callable[..., Any],
    receiver_tag: Any,
    node_set_names: Collection[str] | None,
    edge_feature: str | None,
    graph_spec: Any = None,
    feature_name: str = HIDDEN_STATE,
) -> GraphUpdate:
    """TF-GNN's ``ConvGNNBuilder(...).Convolve(node_set_names)``: a :class:`GraphUpdate`
    with, per receiving node set, ``NodeSetUpdate({edge_set: conv}, next_state)`` on the
    node feature ``feature_name``.

    ``conv_factory(edge_set_name, dims)`` returns ``(conv, output width)`` with ``dims``
    the ``feature_name`` sizes ``{"receiver": ..., "sender": ...}`` (and ``"edge"``, the
    size of ``edge_feature``); ``next_state_factory(node_set_name, node_width,
    input_widths)`` the next state (``input_widths`` by sorted edge set name).
    """
    tag = check_tag(receiver_tag, where, allow_context=False)
    wanted = name_set(node_set_names, "node_set_names", where)
    for name in wanted or ():
        if is_aux(name):
            raise ValueError(f"{where}: convolution requested towards aux node set {name!r}")

    def init(spec: Any) -> dict[str, Any]:
        inputs: dict[str, dict[str, tuple[Any, int]]] = {}
        for es_name, es in spec.edge_sets.items():
            if is_aux(es_name):
                continue
            receiver = es.target_name if tag == TARGET else es.source_name
            sender = es.source_name if tag == TARGET else es.target_name
            if wanted is not None and receiver not in wanted:
                continue
            if is_aux(receiver):
                raise ValueError(
                    f"{where}: node set {receiver!r} is auxiliary but the incident edge set "
                    f"{es_name!r} is not"
                )
            dims = {
                "receiver": feature_width(
                    spec.node_sets[receiver].features, feature_name, f"node set {receiver!r}", where
                ),
                "sender": feature_width(
                    spec.node_sets[sender].features, feature_name, f"node set {sender!r}", where
                ),
            }
            if edge_feature is not None:
                dims["edge"] = feature_width(
                    es.features, edge_feature, f"edge set {es_name!r}", where
                )
            inputs.setdefault(receiver, {})[es_name] = conv_factory(es_name, dims)
        missing = sorted((wanted or set()) - set(inputs))
        if missing:
            raise ValueError(
                f"{where}: node sets {missing} receive from no edge set at receiver_tag {tag}"
            )
        node_sets = {}
        for ns_name, convs in inputs.items():
            width = feature_width(
                spec.node_sets[ns_name].features, feature_name, f"node set {ns_name!r}", where
            )
            widths = [convs[k][1] for k in sorted(convs)]
            node_sets[ns_name] = NodeSetUpdate(
                {k: c for k, (c, _) in convs.items()},
                next_state_factory(ns_name, width, widths),
                node_input_feature=feature_name,
            )
        return {"node_sets": node_sets}

    return _deferred(init, graph_spec)


def homogeneous_graph_update(
    where: str,
    conv_factory: Callable[[dict[str, Any]], Any],
    receiver_tag: Any,
    feature_name: str,
    graph_spec: Any = None,
) -> GraphUpdate:
    """A :class:`GraphUpdate` of the one node set of a homogeneous graph (one node set and
    one edge set, aux sets aside) by ``conv_factory({"receiver": size, "sender": size})``
    through ``SingleInputNextState``, as TF-GNN's ``*HomGraphUpdate``."""
    check_tag(receiver_tag, where, allow_context=False)

    def init(spec: Any) -> dict[str, Any]:
        nodes = [n for n in spec.node_sets if not is_aux(n)]
        edges = [e for e in spec.edge_sets if not is_aux(e)]
        if len(nodes) != 1 or len(edges) != 1:
            raise ValueError(
                f"{where} requires a graph with 1 node set and 1 edge set but got "
                f"{len(nodes)} node sets and {len(edges)} edge sets"
            )
        (ns_name,), (es_name,) = nodes, edges
        width = feature_width(
            spec.node_sets[ns_name].features, feature_name, f"node set {ns_name!r}", where
        )
        conv = conv_factory({"receiver": width, "sender": width})
        update = NodeSetUpdate(
            {es_name: conv}, SingleInputNextState(), node_input_feature=feature_name
        )
        return {"node_sets": {ns_name: update}}

    return _deferred(init, graph_spec)


def GATv2HomGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    num_heads: int,
    per_head_channels: int,
    receiver_tag: int,
    feature_name: str = HIDDEN_STATE,
    heads_merge_type: str = "concat",
    name: str = "gat_v2",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
    **kwargs: Any,
) -> GraphUpdate:
    """TF-GNN's ``gat_v2.GATv2HomGraphUpdate``: the one node set's states become the
    :class:`~arraygnn.graph_tensor.layers.GATv2Conv` result. ``kwargs`` go to the
    convolution; ``name`` (the Keras layer name) is accepted and ignored. Keras weights:
    the convolution's."""
    args = dict(locals())  # for a picklable deferred update
    gen = _gen(rng)

    def conv(dims: dict[str, Any]) -> GATv2Conv:
        return GATv2Conv(
            num_heads=num_heads,
            per_head_channels=per_head_channels,
            receiver_tag=receiver_tag,
            sender_node_feature=feature_name,
            receiver_feature=feature_name,
            heads_merge_type=heads_merge_type,
            receiver_dim=dims["receiver"],
            sender_node_dim=dims["sender"],
            dtype=dtype,
            rng=gen,
            **kwargs,
        )

    update = homogeneous_graph_update(
        "GATv2HomGraphUpdate", conv, receiver_tag, feature_name, graph_spec
    )
    return update if graph_spec is not None else deferred_update(GATv2HomGraphUpdate, args)


def GATv2MPNNGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    message_dim: int,
    num_heads: int,
    heads_merge_type: str = "concat",
    receiver_tag: int,
    node_set_names: Collection[str] | None = None,
    edge_feature: str | None = None,
    l2_regularization: float = 0.0,
    edge_dropout_rate: float = 0.0,
    state_dropout_rate: float = 0.0,
    attention_activation: Any = "leaky_relu",
    conv_activation: Any = "relu",
    activation: Any = "relu",
    kernel_initializer: Any = "glorot_uniform",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
) -> GraphUpdate:
    """TF-GNN's ``gat_v2.GATv2MPNNGraphUpdate``: per receiving node set, a
    :class:`~arraygnn.graph_tensor.layers.GATv2Conv` per edge set (``message_dim /
    num_heads`` channels per head) and ``NextStateFromConcat(Dense(units, activation))``.
    Regularisation, dropout and initializer arguments are ignored (training only).

    Keras weights: per updated node set (sorted), its convolutions (sorted by edge set),
    then the next state's kernel and bias.
    """
    args = dict(locals())  # for a picklable deferred update
    where = "GATv2MPNNGraphUpdate"
    units = layer_size(where, "units", units, minimum=1)
    message_dim = layer_size(where, "message_dim", message_dim, minimum=1)
    num_heads = layer_size(where, "num_heads", num_heads, minimum=1)
    if message_dim % num_heads:
        raise ValueError(
            f"{where}: message_dim must be divisible by num_heads, got {message_dim} and "
            f"{num_heads}"
        )
    gen = _gen(rng)

    def conv(edge_set_name: str, dims: dict[str, Any]) -> tuple[Any, int]:
        layer = GATv2Conv(
            num_heads=num_heads,
            per_head_channels=message_dim // num_heads,
            heads_merge_type=heads_merge_type,
            edge_dropout=edge_dropout_rate,
            receiver_tag=receiver_tag,
            sender_edge_feature=edge_feature,
            attention_activation=attention_activation,
            activation=conv_activation,
            receiver_dim=dims["receiver"],
            sender_node_dim=dims["sender"],
            sender_edge_dim=dims.get("edge"),
            dtype=dtype,
            rng=gen,
        )
        return layer, layer.out_size

    def next_state(node_set_name: str, width: int, widths: list[int]) -> Any:
        return NextStateFromConcat(
            keras_dense_dropout(width + sum(widths), units, activation, dtype=dtype, rng=gen)
        )

    update = conv_gnn_graph_update(
        where, conv, next_state, receiver_tag, node_set_names, edge_feature, graph_spec
    )
    return update if graph_spec is not None else deferred_update(GATv2MPNNGraphUpdate, args)


def GCNHomGraphUpdate(  # noqa: N802 - called like a class, as TF-GNN's
    *,
    units: int,
    receiver_tag: int = TARGET,
    add_self_loops: bool = False,
    feature_name: str = HIDDEN_STATE,
    name: str = "gcn",
    graph_spec: Any = None,
    dtype: Any = np.float32,
    rng: Any = None,
    **kwargs: Any,
) -> GraphUpdate:
    """TF-GNN's ``gcn.GCNHomGraphUpdate``: the one node set's states become the
    :class:`~arraygnn.graph_tensor.layers.GCNConv` result. ``kwargs`` go to the
    convolution; ``name`` (the Keras layer name) is accepted and ignored. Keras weights:
    kernel, bias."""
    args = dict(locals())  # for a picklable deferred update
    gen = _gen(rng)

    def conv(dims: dict[str, Any]) -> GCNConv:
        return GCNConv(
            units,
            receiver_tag=receiver_tag,
            add_self_loops=add_self_loops,
            node_feature=feature_name,
            in_features=dims["sender"],
            dtype=dtype,
            rng=gen,
            **kwargs,
        )

    update = homogeneous_graph_update(
        "GCNHomGraphUpdate", conv, receiver_tag, feature_name, graph_spec
    )
    return update if graph_spec is not None else deferred_update(GCNHomGraphUpdate, args)
