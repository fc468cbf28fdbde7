"""Writing readout structure into a GraphTensor (TF-GNN's ``structured_readout_into_feature``
and ``add_readout_from_first_node``, and their layers ``StructuredReadoutIntoFeature`` /
``ReadoutNamedIntoFeature`` and ``AddReadoutFromFirstNode``).

- :func:`structured_readout_into_feature` stores :func:`~arraygnn.pipeline.structured_readout`
  as a feature of the ``"_readout"`` node set (e.g. to move labels off the model's input);
- :func:`add_readout_from_first_node` adds a ``"_readout"`` node per component and an edge
  set ``"_readout/<key>"`` from the first node of a node set, so that
  ``structured_readout(graph, key, ...)`` equals ``gather_first_node``.

RULE: the graph must be scalar (rank 0); the input graph is never modified.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={"paper": NodeSet.from_fields(
...     sizes=np.array([2, 1]), features={"y": np.array([7, 8, 9])})})
>>> g = add_readout_from_first_node(g, "seed", node_set_name="paper")
>>> g = structured_readout_into_feature(g, "seed", feature_name="y", remove_input_feature=True)
>>> g.node_sets["_readout"]["y"].tolist(), sorted(g.node_sets["paper"].features)
([7, 9], [])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.broadcast_pool import _check_graph
from arraygnn.graph_tensor.checks import check_scalar_graph_tensor
from arraygnn.graph_tensor.graph_ops import _first_nodes
from arraygnn.graph_tensor.pieces import (
    EDGES,
    NODES,
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.pipeline.readout import (
    _READOUT_NAME,
    READOUT,
    SHADOW,
    StructuredReadout,
    _readout_edge_sets,
    _ReadoutKeyError,
    structured_readout,
    to_list,
)

__all__ = [
    "readout_named",
    "validate_graph_tensor_spec_for_readout",
    "validate_graph_tensor_for_readout",
    "context_readout_into_feature",
    "structured_readout_into_feature",
    "readout_named_into_feature",
    "add_readout_from_first_node",
    "StructuredReadoutIntoFeature",
    "ReadoutNamedIntoFeature",
    "AddReadoutFromFirstNode",
    "ReadoutNamed",
]

#: TF-GNN's older name of :class:`~arraygnn.pipeline.StructuredReadout`.
ReadoutNamed = StructuredReadout

#: TF-GNN's older name of :func:`~arraygnn.pipeline.structured_readout`.
readout_named = structured_readout


def _readout_edge_set_map(
    spec: Any, required_keys: Sequence[str] | None, readout_node_set: str
) -> dict[str, dict[tuple[str, str], str]]:
    """TF-GNN's ``get_validated_edge_set_map_for_readout`` on a scalar ``GraphTensorSpec``
    (:func:`readout_edge_set_map`)."""
    prefix = f"{readout_node_set}/"
    ends = {
        name: (es.adjacency_spec.node_set_name(SOURCE), es.adjacency_spec.node_set_name(TARGET))
        for name, es in spec.edge_sets.items()
        if name.startswith(prefix)
    }
    return readout_edge_set_map(
        readout_node_set, list(spec.node_sets), list(spec.edge_sets), ends, required_keys
    )


def readout_edge_set_map(
    readout_node_set: str,
    node_set_names: Sequence[str],
    edge_set_names: Sequence[str],
    readout_ends: dict[str, tuple[str, str]],
    required_keys: Sequence[str] | None = None,
) -> dict[str, dict[tuple[str, str], str]]:
    """TF-GNN's readout structure check, for a spec or a schema: ``{key: {(NODES or EDGES,
    set name): readout edge set name}}`` from the ``(source, target)`` node sets of the
    edge sets named ``<readout_node_set>/<key>[/...]`` (``readout_ends``). ``ValueError``
    for a malformed structure, ``KeyError`` for a missing required key (TF-GNN's messages
    and exception types); with ``required_keys=None`` at least one key must exist."""
    if not _READOUT_NAME.fullmatch(readout_node_set):
        raise ValueError(
            "Malformed name of readout_node_set. Expected '_readout' or "
            "'_readout:'+tag, where tag consists of letters, digits and "
            f"underscores; got '{readout_node_set}'."
        )
    if readout_node_set not in node_set_names:
        raise ValueError(
            f"GraphTensor lacks auxiliary node set '{readout_node_set}'. "
            f"Existing node sets are: {', '.join(node_set_names)}"
        )
    out: dict[str, dict[tuple[str, str], str]] = {}
    prefix = f"{readout_node_set}/"
    for name, (source, target) in readout_ends.items():
        match = re.fullmatch(r"(?P<key>\w+)(/.+)?", name[len(prefix) :])
        if match is None:
            raise ValueError(f"Malformed auxiliary edge set name: '{name}'")
        key = match["key"]
        if target != readout_node_set:
            raise ValueError(
                f"Malformed auxiliary edge set '{name}': Expected target "
                f"node set '{readout_node_set}' but found '{target}'."
            )
        source = source or ""
        if source.startswith(SHADOW):
            where = (EDGES, source[len(SHADOW) :])
            if where[1] not in edge_set_names:
                raise ValueError(
                    f"GraphTensor lacks edge set '{where[1]}' referenced by "
                    f"auxiliary edge set '{name}'"
                )
        else:
            where = (NODES, source)
        by_set = out.setdefault(key, {})
        if where in by_set:
            raise ValueError(
                f"Duplicate readout edge set from {where[0]} '{where[1]}': "
                f"'{name}' vs '{by_set[where]}'"
            )
        by_set[where] = name
    if required_keys is not None:
        missing = [k for k in required_keys if k not in out]
        if missing:
            raise KeyError(
                f"Unknown readout keys {missing}: No edge sets found with "
                f"name prefix '{readout_node_set}/{missing[0]}' and so on."
            )
    elif not out:
        raise ValueError(
            f"Found node set '{readout_node_set}' but no edge sets for readout into it"
        )
    return out


def validate_graph_tensor_spec_for_readout(
    graph_spec: Any,
    required_keys: Sequence[str] | None = None,
    *,
    readout_node_set: str = READOUT,
) -> None:
    """Check that ``graph_spec`` (a scalar ``GraphTensorSpec``, or a graph for its spec)
    has a well-formed readout structure for :func:`~arraygnn.pipeline.structured_readout`:
    the node set ``readout_node_set``, edge sets ``"<readout_node_set>/<key>[/<suffix>]"``
    into it (at most one per key and source set; a ``"_shadow/<edge set>"`` source names an
    existing edge set) and, if given, every key of ``required_keys`` (TF-GNN's function).

    Raises ``ValueError`` for a malformed structure (or a batched graph), ``KeyError`` for a
    missing required key, as TF-GNN. Only names are checked: for the indices, call
    :func:`validate_graph_tensor_for_readout`.
    """
    spec = getattr(graph_spec, "spec", graph_spec)
    check_scalar_graph_tensor(spec, "validate_graph_tensor_spec_for_readout()")
    _readout_edge_set_map(spec, required_keys, readout_node_set)


def validate_graph_tensor_for_readout(
    graph: GraphTensor,
    required_keys: Sequence[str] | None = None,
    *,
    readout_node_set: str = READOUT,
) -> GraphTensor:
    """All checks of :func:`validate_graph_tensor_spec_for_readout`, then the values, as
    TF-GNN: for each key of ``required_keys`` (default: every key the graph has) the target
    indices of each of its edge sets are strictly increasing and together are exactly
    ``0 .. readout nodes - 1``, and each ``"_shadow/<edge set>"`` node set has the sizes of
    its edge set. Returns ``graph`` unchanged; raises ``ValueError`` (TF-GNN raises
    ``InvalidArgumentError`` for the values) or ``KeyError`` for a missing key.
    """
    op = "validate_graph_tensor_for_readout()"
    _check_graph(graph, op)
    edge_set_map = _readout_edge_set_map(graph.spec, required_keys, readout_node_set)
    readout_size = graph.node_sets[readout_node_set].total_size
    keys = list(required_keys) if required_keys is not None else list(edge_set_map)
    for key in keys:
        targets = []
        for name in edge_set_map[key].values():
            t = graph.edge_sets[name].adjacency.target
            xp = get_namespace(t)
            if int(t.shape[0]) > 1 and not bool(xp.all(t[:-1] < t[1:])):
                raise ValueError(f"{op}: Not strictly sorted by target: '{name}'")
            targets.append(t)
        xp = get_namespace(*targets)
        found = xp.sort(xp.concatenate(targets))
        if int(found.shape[0]) != readout_size or not bool(
            xp.all(found == xp.arange(readout_size, dtype=found.dtype))
        ):
            raise ValueError(
                f"{op}: Target indices not equal to range(readout_size) for readout key "
                f"{key!r}: got {to_list(found)[:100]}, readout_size {readout_size}"
            )
        for kind, set_name in edge_set_map[key]:
            if kind != EDGES:
                continue
            shadow = SHADOW + set_name
            have, want = graph.node_sets[shadow].sizes, graph.edge_sets[set_name].sizes
            if to_list(have) != to_list(want):
                raise ValueError(
                    f"{op}: Shadow node set '{shadow}' does not have the same sizes as "
                    f"shadowed edge set '{set_name}': {to_list(have)} vs {to_list(want)}"
                )
    return graph


def context_readout_into_feature(
    graph: GraphTensor,
    *,
    feature_name: str,
    new_feature_name: str | None = None,
    remove_input_feature: bool = False,
    overwrite: bool = False,
    readout_node_set: str = READOUT,
) -> GraphTensor:
    """Copy the context feature ``feature_name`` to ``readout_node_set`` as
    ``new_feature_name`` (default ``feature_name``): TF-GNN's
    ``tfgnn.experimental.context_readout_into_feature``.

    ``readout_node_set`` is created with one node per component; an existing one must
    have exactly that. An existing feature of that name there raises unless
    ``overwrite=True``; ``remove_input_feature=True`` removes it from the context.
    """
    op = "context_readout_into_feature()"
    _check_graph(graph, op)
    if new_feature_name is None:  # TF-GNN: only None means feature_name
        new_feature_name = feature_name
    context = graph.context.get_features_dict()
    if feature_name not in context:
        raise ValueError(
            f"{op}: the context has no feature {feature_name!r} (has {sorted(context)})"
        )
    value = context.pop(feature_name) if remove_input_feature else context[feature_name]
    sizes = graph.context.sizes
    nodes = dict(graph.node_sets)
    if readout_node_set in nodes:
        have = nodes[readout_node_set].sizes
        if have.shape != sizes.shape or bool(get_namespace(have).any(have != 1)):
            raise ValueError(
                f"{op}: existing node set {readout_node_set!r} must have one node per "
                f"component, has sizes {to_list(have)}"
            )
        out = nodes[readout_node_set].get_features_dict()
    else:
        out = {}
    if not overwrite and new_feature_name in out:
        raise ValueError(
            f"{op}: feature {new_feature_name!r} already exists on node set "
            f"{readout_node_set!r}; pass overwrite=True to discard the old value"
        )
    out[new_feature_name] = value
    nodes[readout_node_set] = NodeSet.from_fields(sizes=sizes, features=out)
    return GraphTensor.from_pieces(
        context=graph.context.replace_features(context),
        node_sets=nodes,
        edge_sets=graph.edge_sets,
    )


def structured_readout_into_feature(
    graph: GraphTensor,
    key: str,
    *,
    feature_name: str,
    new_feature_name: str | None = None,
    remove_input_feature: bool = False,
    overwrite: bool = False,
    readout_node_set: str = READOUT,
    validate: bool = True,
) -> GraphTensor:
    """:func:`~arraygnn.pipeline.structured_readout` of ``feature_name`` stored as
    ``new_feature_name`` (default ``feature_name``) on ``readout_node_set``.

    An existing feature of that name there raises unless ``overwrite=True``;
    ``remove_input_feature=True`` removes ``feature_name`` from the sets read from.
    ``validate`` is accepted for TF-GNN's signature; the readout is always checked.
    No ``readout_node_set`` raises ``KeyError`` as TF-GNN (also a ``ValueError``, as
    :func:`~arraygnn.pipeline.structured_readout` raises there, as TF-GNN's does).
    """
    op = "structured_readout_into_feature()"
    _check_graph(graph, op)
    del validate  # always validated (a cheap count per readout node)
    if new_feature_name is None:  # TF-GNN: only None means feature_name
        new_feature_name = feature_name
    if readout_node_set not in graph.node_sets:  # TF-GNN: KeyError (node_sets[...])
        raise _ReadoutKeyError(f"{op}: no node set {readout_node_set!r}")
    out = graph.node_sets[readout_node_set].get_features_dict()
    if not overwrite and new_feature_name in out:
        raise ValueError(
            f"{op}: feature {new_feature_name!r} already exists on node set "
            f"{readout_node_set!r}; pass overwrite=True to discard the old value"
        )
    out[new_feature_name] = structured_readout(
        graph, key, feature_name=feature_name, readout_node_set=readout_node_set
    )
    node_sets = {readout_node_set: out}
    edge_sets = {}
    if remove_input_feature:
        for n in _readout_edge_sets(graph, key, readout_node_set):
            src = graph.edge_sets[n].adjacency.source_name
            if src.startswith(SHADOW):
                name = src[len(SHADOW) :]
                feats = edge_sets.get(name, graph.edge_sets[name].get_features_dict())
                feats.pop(feature_name, None)
                edge_sets[name] = feats
            else:
                feats = node_sets.get(src, graph.node_sets[src].get_features_dict())
                feats.pop(feature_name, None)
                node_sets[src] = feats
    return graph.replace_features(node_sets=node_sets, edge_sets=edge_sets)


#: TF-GNN's older name of :func:`structured_readout_into_feature`.
readout_named_into_feature = structured_readout_into_feature


def add_readout_from_first_node(
    graph: GraphTensor, key: str, *, node_set_name: str, readout_node_set: str = READOUT
) -> GraphTensor:
    """Add ``readout_node_set`` (one node per component; an existing one must have exactly
    that) and an edge set ``"<readout_node_set>/<key>"`` from the first node of
    ``node_set_name`` in each component to its readout node."""
    op = "add_readout_from_first_node()"
    _check_graph(graph, op)
    if node_set_name not in graph.node_sets:
        raise ValueError(f"{op}: unknown node set name {node_set_name!r}")
    first = _first_nodes(graph, node_set_name, op)
    sizes = graph.node_sets[node_set_name].sizes
    xp = get_namespace(sizes)
    ones = xp.ones_like(sizes)
    nodes = dict(graph.node_sets)
    if readout_node_set in nodes:
        have = nodes[readout_node_set].sizes
        if have.shape != ones.shape or bool(xp.any(have != 1)):
            raise ValueError(
                f"{op}: existing node set {readout_node_set!r} must have one node per component"
            )
    else:
        nodes[readout_node_set] = NodeSet.from_fields(sizes=ones)
    edge_set = f"{readout_node_set}/{key}"
    for name in graph.edge_sets:
        if re.fullmatch(rf"{re.escape(edge_set)}(/.+)?", name):
            raise ValueError(f"{op}: readout key {key!r} already exists: edge set {name!r}")
    edges = dict(graph.edge_sets)
    edges[edge_set] = EdgeSet.from_fields(
        sizes=ones,
        adjacency=Adjacency.from_indices(
            source=(node_set_name, first),
            target=(readout_node_set, xp.arange(ones.shape[0], dtype=first.dtype)),
        ),
    )
    return GraphTensor._trusted(graph.context, nodes, edges)


class StructuredReadoutIntoFeature:
    """Callable :func:`structured_readout_into_feature` (TF-GNN's layer of that name);
    ``key`` at init, at call time, or both (then they must agree)."""

    def __init__(
        self,
        key: str | None = None,
        *,
        feature_name: str,
        new_feature_name: str | None = None,
        remove_input_feature: bool = False,
        overwrite: bool = False,
        readout_node_set: str = READOUT,
        validate: bool = True,
    ) -> None:
        self.key = key
        self.kwargs = dict(
            feature_name=feature_name,
            new_feature_name=new_feature_name,
            remove_input_feature=remove_input_feature,
            overwrite=overwrite,
            readout_node_set=readout_node_set,
            validate=validate,
        )

    def __call__(self, graph: GraphTensor, *, key: str | None = None) -> GraphTensor:
        where = type(self).__name__
        if key is not None and self.key is not None and key != self.key:
            raise ValueError(f"{where}: key={key!r} at call time, {self.key!r} at init")
        key = key if key is not None else self.key
        if key is None:
            raise ValueError(f"{where}: a readout key must be set at init or call time")
        return structured_readout_into_feature(graph, key, **self.kwargs)


class ReadoutNamedIntoFeature(StructuredReadoutIntoFeature):
    """TF-GNN's older name of :class:`StructuredReadoutIntoFeature`."""


class AddReadoutFromFirstNode:
    """Callable :func:`add_readout_from_first_node` (TF-GNN's layer of that name)."""

    def __init__(self, key: str, *, node_set_name: str, readout_node_set: str = READOUT) -> None:
        self.key = key
        self.node_set_name = node_set_name
        self.readout_node_set = readout_node_set

    def __call__(self, graph: GraphTensor) -> GraphTensor:
        return add_readout_from_first_node(
            graph,
            self.key,
            node_set_name=self.node_set_name,
            readout_node_set=self.readout_node_set,
        )
