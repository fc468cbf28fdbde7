"""Reading values out of a GraphTensor and splitting training labels off it.

Three conventions, as TF-GNN uses them:

- **``_readout`` node set**: an auxiliary node set with one node per prediction, whose
  features hold the labels (``readout(graph, node_set_name="_readout", feature_name=...)``).
- **structured readout**: auxiliary edge sets ``"_readout/<key>"`` (or
  ``"_readout/<key>/<suffix>"`` when seeds come from several node sets) point from the seed
  nodes to the ``"_readout"`` node set; :func:`structured_readout` returns the seeds' values in
  the order of the ``_readout`` nodes.
- **first node**: the older convention of reading the first node of each component of a node
  set (:func:`readout_first_node`).

:func:`split_labels` does the readout and removes the label feature, returning
``(graph, labels)``; at serving time (no label feature) it returns ``(graph, None)`` when
called with ``required=False``.

RULE: readouts index rows only; their output length comes from the graph's sizes (number of
      components, or of ``_readout`` nodes), never from the index values.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.pieces import HIDDEN_STATE

__all__ = [
    "Readout",
    "ReadoutFirstNode",
    "StructuredReadout",
    "readout",
    "readout_first_node",
    "structured_readout",
    "split_labels",
]

READOUT = "_readout"


def _check_scalar(graph: Any, where: str) -> None:
    """TF-GNN's ``check_scalar_graph_tensor`` for the readouts (a batched graph's features
    are ragged over the batch, and its indices local per graph)."""
    if getattr(graph, "rank", 0) != 0:
        from arraygnn.graph_tensor.checks import check_scalar_graph_tensor

        check_scalar_graph_tensor(graph, where)


def _feature(piece: Any, feature_name: str, where: str) -> Any:
    if feature_name not in piece.features:
        raise ValueError(f"{where} has no feature {feature_name!r} (has {sorted(piece.features)})")
    value = piece.features[feature_name]
    if not is_array(value):
        raise TypeError(f"{where}: feature {feature_name!r} is not a dense array (ragged?)")
    return value


def readout(
    graph: Any,
    *,
    feature_name: str,
    node_set_name: str | None = None,
    edge_set_name: str | None = None,
    from_context: bool = False,
) -> Any:
    """A feature of one node set, edge set or the context, as is (TF-GNN ``Readout``).

    Exactly one of ``node_set_name``, ``edge_set_name``, ``from_context=True``.
    """
    chosen = [node_set_name is not None, edge_set_name is not None, bool(from_context)]
    if sum(chosen) != 1:
        raise ValueError("readout: pass exactly one of node_set_name, edge_set_name, from_context")
    if node_set_name is not None:
        if node_set_name not in graph.node_sets:
            raise ValueError(f"readout: no node set {node_set_name!r}")
        return _feature(graph.node_sets[node_set_name], feature_name, f"node set {node_set_name!r}")
    if edge_set_name is not None:
        if edge_set_name not in graph.edge_sets:
            raise ValueError(f"readout: no edge set {edge_set_name!r}")
        return _feature(graph.edge_sets[edge_set_name], feature_name, f"edge set {edge_set_name!r}")
    return _feature(graph.context, feature_name, "context")


def readout_first_node(
    graph: Any, node_set_name: str, *, feature_name: str | None = None, feature_value: Any = None
) -> Any:
    """Value of the first node of ``node_set_name`` in each component: [num_components, ...].

    Every component must have at least one node in that set (pad with
    ``min_nodes_per_component={node_set_name: 1}``); otherwise ``ValueError`` names the
    components without one.
    """
    _check_scalar(graph, "readout_first_node()")
    if node_set_name not in graph.node_sets:
        raise ValueError(f"readout_first_node: no node set {node_set_name!r}")
    ns = graph.node_sets[node_set_name]
    if (feature_name is None) == (feature_value is None):
        raise ValueError("readout_first_node: pass exactly one of feature_name, feature_value")
    value = (
        _feature(ns, feature_name, f"node set {node_set_name!r}")
        if feature_name is not None
        else feature_value
    )
    sizes = ns.sizes
    xp = get_namespace(sizes)
    empty = xp.flatnonzero(sizes == 0)
    if int(empty.size):
        raise ValueError(
            f"readout_first_node: components {to_list(empty)[:10]} have no node in node set "
            f"{node_set_name!r}"
        )
    first = xp.cumsum(sizes) - sizes
    if value.shape[0] != int(sizes.sum()):
        raise ValueError(
            f"readout_first_node: feature_value has {value.shape[0]} rows for "
            f"{int(sizes.sum())} nodes in node set {node_set_name!r}"
        )
    return value[first]


def to_list(x: Any) -> list:
    return x.tolist() if hasattr(x, "tolist") else list(x)


SHADOW = "_shadow/"
_READOUT_NAME = re.compile(r"_readout(:[a-zA-Z0-9_]+)?")


class _ReadoutKeyError(KeyError, ValueError):
    """A readout key without edge sets (or ``structured_readout_into_feature`` without its
    readout node set): a ``KeyError`` as TF-GNN raises, and a ``ValueError`` as arraygnn's
    other readout errors."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _readout_edge_sets(graph: Any, key: str, readout_node_set: str) -> list[str]:
    if not _READOUT_NAME.fullmatch(readout_node_set):
        raise ValueError(
            "structured_readout: readout_node_set must be '_readout' or '_readout:' + a tag of "
            f"letters, digits and underscores (TF-GNN's rule), got {readout_node_set!r}"
        )
    prefix = f"{readout_node_set}/{key}"
    names = [n for n in graph.edge_sets if n == prefix or n.startswith(prefix + "/")]
    if not names:
        raise _ReadoutKeyError(
            f"structured_readout: no edge set '{prefix}' (or '{prefix}/...'); "
            f"edge sets: {sorted(graph.edge_sets)}"
        )
    for n in names:
        tgt = graph.edge_sets[n].adjacency.target_name
        if tgt != readout_node_set:
            raise ValueError(
                f"structured_readout: edge set {n!r} must point at node set "
                f"{readout_node_set!r}, points at {tgt!r}"
            )
    return sorted(names)


def _check_readout_structure(graph: Any, key: str, readout_node_set: str) -> None:
    """TF-GNN's structure check over all ``<readout_node_set>/...`` edge sets (names only)."""
    from arraygnn.pipeline.readout_features import readout_edge_set_map

    prefix = f"{readout_node_set}/"
    ends = {
        n: (es.adjacency.source_name, es.adjacency.target_name)
        for n, es in graph.edge_sets.items()
        if n.startswith(prefix)
    }
    try:
        readout_edge_set_map(
            readout_node_set, list(graph.node_sets), list(graph.edge_sets), ends, [key]
        )
    except KeyError as err:  # e.g. key "a/b": TF-GNN reads "_readout/a/b" as key "a"
        raise _ReadoutKeyError(*err.args) from None


def _readout_source(graph: Any, src_set: str, feature_name: str, via: str) -> Any:
    """The feature read out from ``src_set``: a node set, or for ``"_shadow/<edge set>"``
    that edge set (TF-GNN's readout from edges; the shadow set must match its sizes)."""
    if not src_set.startswith(SHADOW):
        return _feature(graph.node_sets[src_set], feature_name, f"node set {src_set!r}")
    name = src_set[len(SHADOW) :]
    if name not in graph.edge_sets:
        raise ValueError(
            f"structured_readout: edge set {via!r} reads from {src_set!r}, but there is no "
            f"edge set {name!r}; edge sets: {sorted(graph.edge_sets)}"
        )
    es = graph.edge_sets[name]
    shadow = graph.node_sets[src_set]
    if to_list(shadow.sizes) != to_list(es.sizes):
        raise ValueError(
            f"structured_readout: shadow node set {src_set!r} has sizes "
            f"{to_list(shadow.sizes)}, edge set {name!r} {to_list(es.sizes)}; they must match"
        )
    return _feature(es, feature_name, f"edge set {name!r}")


def structured_readout(
    graph: Any,
    key: str,
    *,
    feature_name: str,
    readout_node_set: str = READOUT,
    validate: bool = True,
) -> Any:
    """Values of ``feature_name`` at the seed nodes named by the ``<readout_node_set>/<key>``
    edge sets (``readout_node_set``: ``"_readout"`` or ``"_readout:<tag>"``).

    Output row ``i`` belongs to node ``i`` of ``readout_node_set``; every readout node must
    receive exactly one edge from those edge sets. A source node set ``"_shadow/<name>"``
    reads the feature of edge set ``<name>`` instead (TF-GNN's readout from edges).

    As TF-GNN, the whole readout structure is checked (every ``<readout_node_set>/...``
    edge set, any key: ``ValueError``), a key without edge sets raises ``KeyError`` (also a
    ``ValueError``), and several source sets must give one dtype. ``validate`` is accepted
    for TF-GNN's signature: the readout is always checked. Unlike TF-GNN, the targets of an
    edge set need not be sorted (``validate_graph_tensor_for_readout`` still requires it).
    """
    _check_scalar(graph, "structured_readout()")
    del validate  # always validated (a cheap count per readout node)
    if readout_node_set not in graph.node_sets:
        raise ValueError(f"structured_readout: no node set {readout_node_set!r}")
    num_out = int(graph.node_sets[readout_node_set].sizes.sum())
    names = _readout_edge_sets(graph, key, readout_node_set)
    _check_readout_structure(graph, key, readout_node_set)
    parts_t, parts_v = [], []
    for n in names:
        adj = graph.edge_sets[n].adjacency
        value = _readout_source(graph, adj.source_name, feature_name, n)
        parts_t.append(adj.target)
        parts_v.append(value[adj.source])
    if len({(v.dtype, v.shape[1:]) for v in parts_v}) > 1:
        found = {n: f"{v.dtype}{list(v.shape[1:])}" for n, v in zip(names, parts_v)}
        raise ValueError(
            f"structured_readout(..., {key!r}, feature_name={feature_name!r}): the source "
            f"sets give different dtypes or feature shapes {found}; expected one (TF-GNN "
            "raises for conflicting dtypes)"
        )
    xp = get_namespace(*parts_t)
    targets = xp.concatenate(parts_t)
    values = xp.concatenate(parts_v, axis=0) if len(parts_v) > 1 else parts_v[0]
    counts = (
        xp.bincount(targets, minlength=num_out)
        if int(targets.size)
        else xp.zeros(num_out, dtype=np.int64)
    )
    bad = xp.flatnonzero(counts != 1)
    if int(bad.size):
        raise ValueError(
            f"structured_readout: {readout_node_set!r} nodes {to_list(bad)[:10]} receive "
            f"{to_list(counts[bad])[:10]} edges from {names}; each needs exactly one"
        )
    out = xp.empty((num_out, *values.shape[1:]), dtype=values.dtype)
    out[targets] = values
    return out


def split_labels(
    graph: Any,
    feature_name: str,
    *,
    node_set_name: str | None = READOUT,
    from_context: bool = False,
    first_node: bool = False,
    structured_key: str | None = None,
    remove: bool = True,
    required: bool = True,
) -> tuple[Any, Any]:
    """Read labels off a graph and remove the label feature: ``(graph, labels)``.

    - default: ``feature_name`` of the ``"_readout"`` node set (``node_set_name``).
    - ``first_node=True``: of the first ``node_set_name`` node of each component.
    - ``structured_key="seed"``: of the seeds named by ``_readout/seed`` edge sets, the
      feature living on ``node_set_name`` (and any other seed node set).
    - ``from_context=True``: a context feature (one label per component).

    With ``required=False`` a graph without the label feature (serving time) gives
    ``(graph, None)``.
    """
    _check_scalar(graph, "split_labels()")
    if from_context:
        piece, where = graph.context, "context"
    else:
        if node_set_name not in graph.node_sets:
            if required:
                raise ValueError(f"split_labels: no node set {node_set_name!r}")
            return graph, None
        piece, where = graph.node_sets[node_set_name], f"node set {node_set_name!r}"
    if feature_name not in piece.features:
        if required:
            raise ValueError(f"split_labels: {where} has no feature {feature_name!r}")
        return graph, None
    if from_context:
        labels = readout(graph, feature_name=feature_name, from_context=True)
    elif structured_key is not None:
        labels = structured_readout(graph, structured_key, feature_name=feature_name)
    elif first_node:
        labels = readout_first_node(graph, node_set_name, feature_name=feature_name)
    else:
        labels = readout(graph, feature_name=feature_name, node_set_name=node_set_name)
    if not remove:
        return graph, labels
    if from_context:
        return graph.remove_features(context=[feature_name]), labels
    sets = [node_set_name]
    if structured_key is not None:
        for n in _readout_edge_sets(graph, structured_key, READOUT):
            src = graph.edge_sets[n].adjacency.source_name
            if src not in sets and feature_name in graph.node_sets[src].features:
                sets.append(src)
    return graph.remove_features(node_sets={s: [feature_name] for s in sets}), labels


def _init_or_call(layer: str, name: str, init_value: Any, call_value: Any) -> Any:
    """TF-GNN's rule for a layer argument given at init, at call time or both (then equal)."""
    if init_value is not None and call_value is not None and init_value != call_value:
        raise ValueError(
            f"{layer}: initialized with {name}={init_value!r} but called with {name}={call_value!r}"
        )
    return call_value if call_value is not None else init_value


def _readout_location(
    node_set_name: str | None, edge_set_name: str | None, from_context: bool
) -> dict[str, Any]:
    loc: dict[str, Any] = {}
    if node_set_name is not None:
        loc["node_set_name"] = node_set_name
    if edge_set_name is not None:
        loc["edge_set_name"] = edge_set_name
    if from_context:
        loc["from_context"] = True
    if len(loc) > 1:
        shown = ", ".join(f"{k}={v!r}" for k, v in loc.items())
        raise ValueError(
            f"Readout: at most one of node_set_name, edge_set_name, from_context, got {shown}"
        )
    return loc


class Readout:
    """Callable :func:`readout` (TF-GNN's ``Readout`` layer): the location
    (``node_set_name=`` / ``edge_set_name=`` / ``from_context=True``) and ``feature_name``
    (default ``"hidden_state"``) at init, at call time, or both (then they must agree)."""

    def __init__(
        self,
        *,
        feature_name: str | None = None,
        node_set_name: str | None = None,
        edge_set_name: str | None = None,
        from_context: bool = False,
    ) -> None:
        self.location = _readout_location(node_set_name, edge_set_name, from_context)
        self.feature_name = feature_name

    def __call__(
        self,
        graph: Any,
        *,
        feature_name: str | None = None,
        node_set_name: str | None = None,
        edge_set_name: str | None = None,
        from_context: bool = False,
    ) -> Any:
        location = _readout_location(node_set_name, edge_set_name, from_context)
        if location and self.location and location != self.location:
            raise ValueError(
                f"Readout: initialized with {self.location} but called with {location} "
                "(node_set_name / edge_set_name / from_context)"
            )
        location = location or self.location
        if not location:
            raise ValueError(
                "Readout: one of node_set_name, edge_set_name or from_context must be set at "
                "init or call time"
            )
        name = _init_or_call("Readout", "feature_name", self.feature_name, feature_name)
        return readout(graph, feature_name=name or HIDDEN_STATE, **location)


class ReadoutFirstNode:
    """Callable :func:`readout_first_node` (TF-GNN's ``ReadoutFirstNode`` layer):
    ``node_set_name`` and ``feature_name`` (default ``"hidden_state"``) at init, at call
    time, or both (then they must agree)."""

    def __init__(self, *, node_set_name: str | None = None, feature_name: str | None = None):
        self.node_set_name = node_set_name
        self.feature_name = feature_name

    @property
    def location(self) -> dict[str, Any]:
        """``{"node_set_name": ...}`` as given at init, or ``{}`` (TF-GNN's property)."""
        return {} if self.node_set_name is None else {"node_set_name": self.node_set_name}

    def __call__(
        self, graph: Any, *, node_set_name: str | None = None, feature_name: str | None = None
    ) -> Any:
        where = "ReadoutFirstNode"
        node_set_name = _init_or_call(where, "node_set_name", self.node_set_name, node_set_name)
        if node_set_name is None:
            raise ValueError(f"{where}: node_set_name must be set at init or call time")
        name = _init_or_call(where, "feature_name", self.feature_name, feature_name)
        return readout_first_node(graph, node_set_name, feature_name=name or HIDDEN_STATE)


class StructuredReadout:
    """Callable :func:`structured_readout` (TF-GNN's ``StructuredReadout`` layer): ``key``
    at init, at call time, or both (then they must agree); ``feature_name`` defaults to
    ``"hidden_state"``.

    ``StructuredReadout("seed", feature_name="class_id")(graph)``.
    """

    def __init__(
        self,
        key: str | None = None,
        *,
        feature_name: str = HIDDEN_STATE,
        readout_node_set: str = READOUT,
        validate: bool = True,
    ) -> None:
        self.key = key
        self.feature_name = feature_name
        self.readout_node_set = readout_node_set
        self.validate = validate  # accepted for TF-GNN; the readout is always checked

    def __call__(self, graph: Any, *, key: str | None = None) -> Any:
        key = _init_or_call("StructuredReadout", "key", self.key, key)
        if key is None:
            raise ValueError("StructuredReadout: a readout key must be set at init or call time")
        return structured_readout(
            graph,
            key,
            feature_name=self.feature_name,
            readout_node_set=self.readout_node_set,
            validate=self.validate,
        )
