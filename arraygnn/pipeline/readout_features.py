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

from arraygnn._namespace import get_namespace
from arraygnn.graph_tensor.broadcast_pool import _check_graph
from arraygnn.graph_tensor.graph_ops import _first_nodes
from arraygnn.graph_tensor.pieces import Adjacency, EdgeSet, GraphTensor, NodeSet
from arraygnn.pipeline.readout import (
    READOUT,
    SHADOW,
    StructuredReadout,
    _readout_edge_sets,
    structured_readout,
)

__all__ = [
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
    """
    op = "structured_readout_into_feature()"
    _check_graph(graph, op)
    del validate  # always validated (a cheap count per readout node)
    new_feature_name = new_feature_name or feature_name
    if readout_node_set not in graph.node_sets:
        raise ValueError(f"{op}: no node set {readout_node_set!r}")
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
