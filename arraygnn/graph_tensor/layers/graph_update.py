"""TF-GNN's ``GraphUpdate`` and the piece updates it runs.

RULE: ``GraphUpdate`` runs, as TF-GNN: every edge set update on the input graph; then every
      node set update on the graph *with the new edge states* (node set updates do not see
      each other's results); then the context update on the graph with the new edge and
      node states. Updates of one kind run in sorted order of the set names.
RULE: an update's result (an array, or a dict of arrays) is merged into the piece's
      features (an array becomes ``HIDDEN_STATE``); other features stay; the input graph
      is never modified (a new ``GraphTensor`` shares the unchanged arrays).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> from arraygnn.graph_tensor.layers import (GraphUpdate, NodeSetUpdate, SimpleConv,
...                                           NextStateFromConcat, dense)
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                features={"hidden_state": np.eye(3, dtype=np.float32)})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1])), target=("n", np.array([2, 2]))))})
>>> update = GraphUpdate(node_sets={"n": NodeSetUpdate(
...     {"e": SimpleConv(dense(6, 4, "relu", rng=0), "sum", receiver_tag=TARGET)},
...     NextStateFromConcat(dense(7, 5, rng=1)))})
>>> update(g).node_sets["n"]["hidden_state"].shape
(3, 5)
>>> [w.shape for w in update.get_weights()]
[(6, 4), (4,), (7, 5), (5,)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arraygnn._namespace import is_array
from arraygnn.graph_tensor.broadcast_pool import (
    broadcast_context_to_edges,
    broadcast_context_to_nodes,
    broadcast_node_to_edges,
)
from arraygnn.graph_tensor.layers._base import (
    GraphLayer,
    ModuleDict,
    check_graph,
    copy_names,
    edge_set,
    feature,
    feature_or_features,
    node_set,
)
from arraygnn.graph_tensor.pieces import HIDDEN_STATE, SOURCE, TARGET, GraphTensor

__all__ = ["GraphUpdate", "NodeSetUpdate", "EdgeSetUpdate", "ContextUpdate"]


def _check_callable(obj: Any, description: str) -> Any:
    if not callable(obj):
        raise TypeError(f"{description} must be a layer (callable), got {type(obj).__name__}")
    return obj


def _layer_dict(layers: Any, description: str) -> ModuleDict:
    if layers is None:
        layers = {}
    if not isinstance(layers, Mapping):
        raise TypeError(f"{description} must be a dict {{set name: layer}}, got {layers!r}")
    out = {}
    for key, value in layers.items():
        if not isinstance(key, str):
            raise TypeError(f"{description}: keys must be set names (str), got {key!r}")
        out[key] = _check_callable(value, f"{description}{{{key!r}: ...}}")
    return ModuleDict(out)


def _as_features(result: Any, where: str) -> dict[str, Any]:
    """TF-GNN's ``_ensure_dict``: an array is ``{HIDDEN_STATE: array}``."""
    if isinstance(result, Mapping):
        out = dict(result)
        for k, v in out.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: feature names must be str, got {k!r}")
            if not is_array(v):
                raise TypeError(f"{where}: feature {k!r} is a {type(v).__name__}, not an array")
        return out
    if not is_array(result):
        raise TypeError(f"{where}: the update returned a {type(result).__name__}, not an array")
    return {HIDDEN_STATE: result}


def _merged(piece: Any, result: Any, where: str) -> dict[str, Any]:
    features = piece.get_features_dict()
    features.update(_as_features(result, where))
    return features


class GraphUpdate(GraphLayer):
    """One round of updates to edge sets, node sets and the context (TF-GNN's
    ``GraphUpdate``); see the module RULEs for the order.

    Args:
        edge_sets: ``{edge_set_name: update}``, each called as
            ``update(graph, edge_set_name=name)`` (e.g. :class:`EdgeSetUpdate`).
        node_sets: ``{node_set_name: update}``, each called as
            ``update(graph, node_set_name=name)`` (e.g. :class:`NodeSetUpdate`).
        context: an update called as ``update(graph)`` (e.g. :class:`ContextUpdate`).
        deferred_init_callback: instead of the three above, a function of the input's
            ``GraphTensorSpec`` returning ``dict(edge_sets=..., node_sets=..., context=...)``,
            called on the first call (the weights exist only after it).

    Returns a new GraphTensor. Keras weights: the edge set updates (sorted by name), the
    node set updates (sorted), the context update.
    """

    _child_names = ("edge_sets", "node_sets", "context")

    def __init__(
        self,
        *,
        edge_sets: Mapping[str, Any] | None = None,
        node_sets: Mapping[str, Any] | None = None,
        context: Any = None,
        deferred_init_callback: Callable[[Any], Mapping[str, Any]] | None = None,
    ) -> None:
        self.deferred_init_callback = None
        if deferred_init_callback is not None:
            if (edge_sets, node_sets, context) != (None, None, None):
                raise ValueError(
                    "GraphUpdate(deferred_init_callback=...) excludes edge_sets=, node_sets= "
                    "and context="
                )
            if not callable(deferred_init_callback):
                raise TypeError("GraphUpdate: deferred_init_callback must be callable")
            self.deferred_init_callback = deferred_init_callback
            self.edge_sets = self.node_sets = self.context = None
        else:
            self._init_from_updates(edge_sets, node_sets, context)

    def _init_from_updates(
        self, edge_sets: Any = None, node_sets: Any = None, context: Any = None
    ) -> None:
        self.edge_sets = _layer_dict(edge_sets, "GraphUpdate(edge_sets=...)")
        self.node_sets = _layer_dict(node_sets, "GraphUpdate(node_sets=...)")
        self.context = (
            None if context is None else _check_callable(context, "GraphUpdate(context=...)")
        )

    @property
    def is_initialized(self) -> bool:
        return self.deferred_init_callback is None

    def _keras_slots(self, prefix: str, frozen: bool = False) -> Any:
        if not self.is_initialized:
            raise ValueError(
                "GraphUpdate(deferred_init_callback=...) has no weights before its first call"
            )
        return super()._keras_slots(prefix, frozen)

    def __call__(self, graph: GraphTensor) -> GraphTensor:
        check_graph(graph, "GraphUpdate")
        if not self.is_initialized:
            kwargs = self.deferred_init_callback(graph.spec)
            if not isinstance(kwargs, Mapping) or set(kwargs) - {
                "edge_sets",
                "node_sets",
                "context",
            }:
                raise ValueError(
                    "GraphUpdate: deferred_init_callback must return a dict with keys among "
                    f"edge_sets, node_sets, context; got {kwargs!r}"
                )
            self._init_from_updates(**kwargs)
            self.deferred_init_callback = None
        if len(self.edge_sets):
            new_edges = {}
            for name, update in sorted(self.edge_sets.items()):
                es = edge_set(graph, name, "GraphUpdate(edge_sets=...)")
                where = f"GraphUpdate: update of edge set {name!r}"
                new_edges[name] = _merged(es, update(graph, edge_set_name=name), where)
            graph = graph.replace_features(edge_sets=new_edges)
        if len(self.node_sets):
            new_nodes = {}
            for name, update in sorted(self.node_sets.items()):
                ns = node_set(graph, name, "GraphUpdate(node_sets=...)")
                where = f"GraphUpdate: update of node set {name!r}"
                new_nodes[name] = _merged(ns, update(graph, node_set_name=name), where)
            graph = graph.replace_features(node_sets=new_nodes)
        if self.context is not None:
            where = "GraphUpdate: update of the context"
            graph = graph.replace_features(
                context=_merged(graph.context, self.context(graph), where)
            )
        return graph

    def extra_repr(self) -> str:
        if not self.is_initialized:
            return "deferred"
        return f"edge_sets={sorted(self.edge_sets)}, node_sets={sorted(self.node_sets)}"


class EdgeSetUpdate(GraphLayer):
    """The new state of an edge set (TF-GNN's ``EdgeSetUpdate``), called as
    ``update(graph, edge_set_name=...)``.

    ``next_state`` gets ``(edge input, {tag: node input on the edges}, context input on the
    edges)``.

    Args:
        next_state: a next-state layer (e.g. :class:`NextStateFromConcat`).
        edge_input_feature: the edge set's feature(s) (one name: an array; a list: a dict;
            ``None``: ``{}``); default ``HIDDEN_STATE``.
        node_input_tags: the incident nodes whose ``node_input_feature`` is broadcast
            (default ``(SOURCE, TARGET)``; flattened in sorted tag order, as ``tf.nest``).
        node_input_feature: one node feature name or ``None`` (no node inputs).
        context_input_feature: context feature(s), or ``None`` (default).

    Keras weights: those of ``next_state``.
    """

    _child_names = ("next_state",)

    def __init__(
        self,
        next_state: Any,
        *,
        edge_input_feature: str | Sequence[str] | None = HIDDEN_STATE,
        node_input_tags: Sequence[int] = (SOURCE, TARGET),
        node_input_feature: str | None = HIDDEN_STATE,
        context_input_feature: str | Sequence[str] | None = None,
    ) -> None:
        where = "EdgeSetUpdate"
        self.next_state = _check_callable(next_state, "EdgeSetUpdate(next_state=...)")
        self.edge_input_feature = copy_names(edge_input_feature, where)
        tags = list(node_input_tags)
        for t in tags:
            if isinstance(t, bool) or t not in (SOURCE, TARGET):
                raise ValueError(f"{where}: node_input_tags must be SOURCE / TARGET, got {t!r}")
        self.node_input_tags = tags
        if node_input_feature is not None and not isinstance(node_input_feature, str):
            raise ValueError(
                f"{where} supports a single node_input_feature (or None), "
                f"got {node_input_feature!r}"
            )
        self.node_input_feature = node_input_feature
        self.context_input_feature = copy_names(context_input_feature, where)

    def __call__(self, graph: GraphTensor, *, edge_set_name: str) -> Any:
        check_graph(graph, "EdgeSetUpdate")
        where = f"EdgeSetUpdate on edge set {edge_set_name!r}"
        es = edge_set(graph, edge_set_name, where)
        own = feature_or_features(es, self.edge_input_feature, f"edge set {edge_set_name!r}", where)
        from_nodes = {}
        if self.node_input_feature is not None:
            for tag in self.node_input_tags:
                ns_name = es.adjacency.node_set_name(tag)
                value = feature(
                    graph.node_sets[ns_name],
                    self.node_input_feature,
                    f"node set {ns_name!r}",
                    where,
                )
                from_nodes[tag] = broadcast_node_to_edges(
                    graph, edge_set_name, tag, feature_value=value
                )
        ctx = _context_inputs(graph, self.context_input_feature, where)
        ctx = _map(ctx, lambda v: broadcast_context_to_edges(graph, edge_set_name, feature_value=v))
        return self.next_state((own, from_nodes, ctx))


class NodeSetUpdate(GraphLayer):
    """The new state of a node set from its edge set inputs (TF-GNN's ``NodeSetUpdate``),
    called as ``update(graph, node_set_name=...)``.

    ``next_state`` gets ``(node input, {edge_set_name: input}, context input on the nodes)``;
    each input is ``edge_set_inputs[name](graph, edge_set_name=name)`` (a convolution, or a
    ``Pool`` of edge states), run on the same graph.

    Args:
        edge_set_inputs: ``{edge_set_name: layer}``.
        next_state: a next-state layer.
        node_input_feature: the node set's feature(s) (default ``HIDDEN_STATE``; ``None``:
            ``{}``).
        context_input_feature: context feature(s) broadcast to the nodes, or ``None``.

    Keras weights: the edge set inputs (sorted by edge set name), then ``next_state``.
    """

    _child_names = ("edge_set_inputs", "next_state")

    def __init__(
        self,
        edge_set_inputs: Mapping[str, Any],
        next_state: Any,
        *,
        node_input_feature: str | Sequence[str] | None = HIDDEN_STATE,
        context_input_feature: str | Sequence[str] | None = None,
    ) -> None:
        self.edge_set_inputs = _layer_dict(edge_set_inputs, "NodeSetUpdate(edge_set_inputs=...)")
        self.next_state = _check_callable(next_state, "NodeSetUpdate(next_state=...)")
        self.node_input_feature = copy_names(node_input_feature, "NodeSetUpdate")
        self.context_input_feature = copy_names(context_input_feature, "NodeSetUpdate")

    def __call__(self, graph: GraphTensor, *, node_set_name: str) -> Any:
        check_graph(graph, "NodeSetUpdate")
        where = f"NodeSetUpdate on node set {node_set_name!r}"
        ns = node_set(graph, node_set_name, where)
        own = feature_or_features(ns, self.node_input_feature, f"node set {node_set_name!r}", where)
        inputs = {}
        for name, layer in sorted(self.edge_set_inputs.items()):
            es = edge_set(graph, name, where)
            ends = {es.adjacency.source_name, es.adjacency.target_name}
            if node_set_name not in ends:
                raise ValueError(
                    f"{where}: edge set {name!r} joins {sorted(ends)}, not node set "
                    f"{node_set_name!r}"
                )
            value = layer(graph, edge_set_name=name)
            _check_rows(value, ns.total_size, f"{where}: the input from edge set {name!r}")
            inputs[name] = value
        ctx = _context_inputs(graph, self.context_input_feature, where)
        ctx = _map(ctx, lambda v: broadcast_context_to_nodes(graph, node_set_name, feature_value=v))
        return self.next_state((own, inputs, ctx))


class ContextUpdate(GraphLayer):
    """The new context state (TF-GNN's ``ContextUpdate``), called as ``update(graph)``.

    ``next_state`` gets ``(context input, {node_set_name: input}, {edge_set_name: input})``
    with ``node_set_inputs[name](graph, node_set_name=name)`` (e.g.
    ``Pool(CONTEXT, "mean")``) and likewise for edge sets.

    Args:
        node_set_inputs: ``{node_set_name: layer}``.
        next_state: a next-state layer.
        edge_set_inputs: ``{edge_set_name: layer}`` or ``None``.
        context_input_feature: the context's feature(s) (default ``HIDDEN_STATE``).

    Keras weights: the node set inputs (sorted), ``next_state``, the edge set inputs
    (sorted) — the order TF-GNN assigns them.
    """

    _child_names = ("node_set_inputs", "next_state", "edge_set_inputs")

    def __init__(
        self,
        node_set_inputs: Mapping[str, Any],
        next_state: Any,
        *,
        edge_set_inputs: Mapping[str, Any] | None = None,
        context_input_feature: str | Sequence[str] | None = HIDDEN_STATE,
    ) -> None:
        self.node_set_inputs = _layer_dict(node_set_inputs, "ContextUpdate(node_set_inputs=...)")
        self.next_state = _check_callable(next_state, "ContextUpdate(next_state=...)")
        self.edge_set_inputs = _layer_dict(edge_set_inputs, "ContextUpdate(edge_set_inputs=...)")
        self.context_input_feature = copy_names(context_input_feature, "ContextUpdate")

    def __call__(self, graph: GraphTensor) -> Any:
        check_graph(graph, "ContextUpdate")
        where = "ContextUpdate"
        own = feature_or_features(graph.context, self.context_input_feature, "the context", where)
        n = int(graph.num_components)
        from_nodes = {}
        for name, layer in sorted(self.node_set_inputs.items()):
            node_set(graph, name, where)
            from_nodes[name] = layer(graph, node_set_name=name)
            _check_rows(from_nodes[name], n, f"{where}: the input from node set {name!r}")
        from_edges = {}
        for name, layer in sorted(self.edge_set_inputs.items()):
            edge_set(graph, name, where)
            from_edges[name] = layer(graph, edge_set_name=name)
            _check_rows(from_edges[name], n, f"{where}: the input from edge set {name!r}")
        return self.next_state((own, from_nodes, from_edges))


def _context_inputs(graph: GraphTensor, names: Any, where: str) -> Any:
    return feature_or_features(graph.context, names, "the context", where)


def _map(nest: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(nest, dict):
        return {k: fn(v) for k, v in nest.items()}
    return fn(nest)


def _check_rows(value: Any, rows: int, what: str) -> None:
    for leaf in value.values() if isinstance(value, Mapping) else [value]:
        if not is_array(leaf) or leaf.ndim == 0 or leaf.shape[0] != rows:
            shape = tuple(leaf.shape) if is_array(leaf) else type(leaf).__name__
            raise ValueError(f"{what} has shape {shape}, expected {rows} rows")


class DeferredBuild:
    """A :class:`GraphUpdate`'s ``deferred_init_callback`` that sizes it by calling
    ``builder(**kwargs, graph_spec=spec)`` (a module-level builder such as
    ``GATv2MPNNGraphUpdate``) and taking that update's parts. A module-level callable class,
    unlike a closure, so a deferred update can be pickled before its first call."""

    def __init__(self, builder: Callable[..., Any], kwargs: Mapping[str, Any]) -> None:
        self.builder = builder
        self.kwargs = dict(kwargs)

    def __call__(self, spec: Any) -> dict[str, Any]:
        update = self.builder(**self.kwargs, graph_spec=spec)
        return {
            "edge_sets": dict(update.edge_sets.items()),
            "node_sets": dict(update.node_sets.items()),
            "context": update.context,
        }

    def __repr__(self) -> str:
        return f"DeferredBuild({getattr(self.builder, '__name__', self.builder)!r})"


def deferred_update(builder: Callable[..., Any], args: Mapping[str, Any]) -> GraphUpdate:
    """A picklable deferred ``GraphUpdate`` of ``builder`` called with ``args`` (the
    builder's ``locals()`` on entry: its arguments, ``**kwargs`` as ``kwargs``)."""
    kwargs = {k: v for k, v in args.items() if k not in ("graph_spec", "kwargs")}
    kwargs.update(args.get("kwargs") or {})
    return GraphUpdate(deferred_init_callback=DeferredBuild(builder, kwargs))
