"""Transform a GraphTensor's features with one callback per graph piece (TF-GNN ``MapFeatures``).

Each callback receives a graph piece and its set name and returns the piece's NEW feature
dict (a single array is stored as ``"hidden_state"``); ``None`` as a callback, or ``None``
returned by one, leaves those pieces unchanged (TF-GNN's rule). The callbacks see plain
arrays of the merged graph, shaped ``[num_items, ...]``, so any NumPy / CuPy / framework
code works in them.

RULE: auxiliary sets (names starting with ``_``, like ``"_readout"``, or with one of
      ``# ! % . ^ ~``, as in TF-GNN) are passed through untouched unless their name fully
      matches ``allowed_aux_node_sets_pattern`` / ``allowed_aux_edge_sets_pattern``.
RULE: the graph passed in is not changed; a new GraphTensor is returned that shares every
      array the callbacks did not replace.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={
...     "docs": NodeSet.from_fields(sizes=np.array([2]), features={"id": np.array([7, 9])}),
...     "_readout": NodeSet.from_fields(sizes=np.array([1]), features={"y": np.array([1])})})
>>> def node_sets_fn(node_set, *, node_set_name):
...     features = dict(node_set.features)
...     features["hashed_id"] = features.pop("id") % 5
...     return features
>>> h = map_features(g, node_sets_fn=node_sets_fn)
>>> h.node_sets["docs"].features["hashed_id"].tolist(), sorted(h.node_sets["_readout"].features)
([2, 4], ['y'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from arraygnn._namespace import is_array

__all__ = ["MapFeatures", "map_features"]

HIDDEN_STATE = "hidden_state"


_AUX_PREFIXES = ("_", "#", "!", "%", ".", "^", "~")


def _is_aux(name: str) -> bool:
    """An auxiliary set (``_readout``, ...): TF-GNN's ``get_aux_type_prefix`` rule, a name
    starting with ``_`` or one of ``# ! % . ^ ~`` (reserved there for future use)."""
    return name.startswith(_AUX_PREFIXES)


def _allowed(name: str, pattern: str | re.Pattern | None) -> bool:
    if not _is_aux(name):
        return True
    if pattern is None:
        return False
    return re.fullmatch(pattern, name) is not None


def _as_features(result: Any, where: str) -> dict[str, Any] | None:
    """The callback's result as a feature dict; ``None`` (leave the piece alone) stays ``None``."""
    if result is None:
        return None
    if isinstance(result, Mapping):
        for k in result:
            if not isinstance(k, str):
                raise TypeError(f"{where}: feature names must be str, got {k!r}")
        return dict(result)
    if is_array(result) or hasattr(result, "row_splits") or hasattr(result, "__dlpack__"):
        return {HIDDEN_STATE: result}
    raise TypeError(
        f"{where}: callback must return a dict of features, one array or None, got "
        f"{type(result).__name__}"
    )


def map_features(
    graph: Any,
    *,
    context_fn: Callable[..., Any] | None = None,
    node_sets_fn: Callable[..., Any] | None = None,
    edge_sets_fn: Callable[..., Any] | None = None,
    allowed_aux_node_sets_pattern: str | re.Pattern | None = None,
    allowed_aux_edge_sets_pattern: str | re.Pattern | None = None,
) -> Any:
    """Return a new GraphTensor with features replaced by the callbacks' results.

    - ``context_fn(context)`` -> features of the context.
    - ``node_sets_fn(node_set, *, node_set_name)`` -> features of that node set.
    - ``edge_sets_fn(edge_set, *, edge_set_name)`` -> features of that edge set.

    One function may serve all three (``fn(piece, **kwargs)``): it is called with
    ``node_set_name=`` / ``edge_set_name=`` or with no keyword for the context.
    """
    ctx_features = None
    if context_fn is not None:
        ctx_features = _as_features(context_fn(graph.context), "context_fn (context)")
    node_features: dict[str, dict[str, Any]] = {}
    if node_sets_fn is not None:
        for name, ns in graph.node_sets.items():
            if _allowed(name, allowed_aux_node_sets_pattern):
                features = _as_features(
                    node_sets_fn(ns, node_set_name=name), f"node_sets_fn (node set {name!r})"
                )
                if features is not None:
                    node_features[name] = features
    edge_features: dict[str, dict[str, Any]] = {}
    if edge_sets_fn is not None:
        for name, es in graph.edge_sets.items():
            if _allowed(name, allowed_aux_edge_sets_pattern):
                features = _as_features(
                    edge_sets_fn(es, edge_set_name=name), f"edge_sets_fn (edge set {name!r})"
                )
                if features is not None:
                    edge_features[name] = features
    kwargs: dict[str, Any] = {}
    if ctx_features is not None:
        kwargs["context"] = ctx_features
    if node_features:
        kwargs["node_sets"] = node_features
    if edge_features:
        kwargs["edge_sets"] = edge_features
    if not kwargs:
        return graph
    return graph.replace_features(**kwargs)


class MapFeatures:
    """Callable form of :func:`map_features` (TF-GNN's ``MapFeatures`` layer), built once and
    applied to every graph of a pipeline.

    >>> mapper = MapFeatures(context_fn=lambda c: {})
    >>> callable(mapper)
    True
    """

    def __init__(
        self,
        context_fn: Callable[..., Any] | None = None,
        node_sets_fn: Callable[..., Any] | None = None,
        edge_sets_fn: Callable[..., Any] | None = None,
        *,
        allowed_aux_node_sets_pattern: str | re.Pattern | None = None,
        allowed_aux_edge_sets_pattern: str | re.Pattern | None = None,
    ) -> None:
        for name, fn in (
            ("context_fn", context_fn),
            ("node_sets_fn", node_sets_fn),
            ("edge_sets_fn", edge_sets_fn),
        ):
            if fn is not None and not callable(fn):
                raise TypeError(f"MapFeatures: {name} must be callable, got {type(fn).__name__}")
        self.context_fn = context_fn
        self.node_sets_fn = node_sets_fn
        self.edge_sets_fn = edge_sets_fn
        self.allowed_aux_node_sets_pattern = allowed_aux_node_sets_pattern
        self.allowed_aux_edge_sets_pattern = allowed_aux_edge_sets_pattern

    def __call__(self, graph: Any) -> Any:
        return map_features(
            graph,
            context_fn=self.context_fn,
            node_sets_fn=self.node_sets_fn,
            edge_sets_fn=self.edge_sets_fn,
            allowed_aux_node_sets_pattern=self.allowed_aux_node_sets_pattern,
            allowed_aux_edge_sets_pattern=self.allowed_aux_edge_sets_pattern,
        )
