"""Small TF-GNN helpers: shape checks, tag utilities, reserved names, size-constraint aliases
and ``graph_tensor_to_values``.

RULE: ``check_scalar_graph_tensor`` / ``get_homogeneous_node_and_edge_set_name`` /
      ``check_homogeneous_graph_tensor`` take a ``GraphTensor`` or a ``GraphTensorSpec`` and
      raise ``ValueError`` with TF-GNN's messages (``name`` names the caller); auxiliary sets
      (``get_aux_type_prefix(name) is not None``, e.g. ``"_readout"``) are ignored.
RULE: ``reverse_tag`` swaps ``SOURCE`` and ``TARGET``; any other tag is a ``ValueError``.
RULE: ``graph_tensor_to_values`` turns the features into plain Python lists (bytes decoded
      as UTF-8 where they can be, ragged features as nested lists) for ``pprint`` / JSON.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, SOURCE, TARGET
>>> g = GraphTensor.from_pieces(node_sets={"v": NodeSet.from_fields(
...     sizes=np.array([2]), features={"x": np.array([1.5, 2.0])})})
>>> graph_tensor_to_values(g)
{'context': {}, 'node_sets': {'v': {'x': [1.5, 2.0]}}, 'edge_sets': {}}
>>> reverse_tag(SOURCE) == TARGET
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy
from arraygnn.graph_tensor.graph_ops import get_aux_type_prefix
from arraygnn.graph_tensor.pieces import (
    HIDDEN_STATE,
    SOURCE,
    TARGET,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.graph_tensor.spec import GraphTensorSpec
from arraygnn.padding import (  # re-exported: TF-GNN's names (padding.py defines them)
    assert_satisfies_size_constraints,
    assert_satisfies_total_sizes,
    satisfies_size_constraints,
)

__all__ = [
    "DEFAULT_STATE_NAME",
    "SIZE_NAME",
    "SOURCE_NAME",
    "TARGET_NAME",
    "RESERVED_FEATURES",
    "check_scalar_graph_tensor",
    "get_graph_tensor_spec",
    "get_homogeneous_node_and_edge_set_name",
    "check_homogeneous_graph_tensor",
    "reverse_tag",
    "graph_tensor_to_values",
    "satisfies_size_constraints",
    "assert_satisfies_size_constraints",
    "assert_satisfies_total_sizes",
    "is_graph_tensor",
    "is_dense_tensor",
    "is_ragged_tensor",
]

DEFAULT_STATE_NAME = HIDDEN_STATE
"""Deprecated TF-GNN alias of ``HIDDEN_STATE``."""
SIZE_NAME = "#size"
"""Reserved feature name of the sizes in ``tf.Example`` / the schema."""
SOURCE_NAME = "#source"
"""Reserved feature name of the source indices."""
TARGET_NAME = "#target"
"""Reserved feature name of the target indices."""
RESERVED_FEATURES = frozenset({SIZE_NAME, SOURCE_NAME, TARGET_NAME})


def is_graph_tensor(value: Any) -> bool:
    """True for a ``GraphTensor`` (TF-GNN's ``tfgnn.is_graph_tensor``; a spec is not one)."""
    return isinstance(value, GraphTensor)


def is_dense_tensor(value: Any) -> bool:
    """True for a dense feature value: a NumPy or CuPy array (``tfgnn.is_dense_tensor``;
    a Python list is not one)."""
    return is_array(value)


def is_ragged_tensor(value: Any) -> bool:
    """True for a ragged feature value, a ``Ragged`` (``tfgnn.is_ragged_tensor``)."""
    return isinstance(value, Ragged)


def get_graph_tensor_spec(graph: Any) -> GraphTensorSpec:
    """The spec of a GraphTensor, or the spec itself."""
    if isinstance(graph, GraphTensorSpec):
        return graph
    if isinstance(graph, GraphTensor):
        return graph.spec
    raise ValueError(f"Unsupported value type {type(graph).__name__}.")


def check_scalar_graph_tensor(graph: Any, name: str = "This operation") -> None:
    """``ValueError`` unless ``graph`` (a GraphTensor or its spec, or a Context / NodeSet /
    EdgeSet, as TF-GNN's ``check_scalar_graph_piece``) is scalar (rank 0)."""
    if isinstance(graph, GraphTensorSpec):
        kind, rank = "GraphTensor", graph.rank  # TF-GNN names the value type of a spec
    elif isinstance(graph, (GraphTensor, Context, NodeSet, EdgeSet)):
        kind, rank = type(graph).__name__, graph.rank
    else:
        raise ValueError(f"Unsupported value type {type(graph).__name__}.")
    if rank != 0:
        raise ValueError(
            f"{name} requires a scalar {kind}, that is, with `{kind}.rank=0`, but got "
            f"`rank={rank}`. Use GraphTensor.merge_batch_to_components() to merge all "
            "contained graphs into one contiguously indexed graph of the scalar GraphTensor."
        )


def get_homogeneous_node_and_edge_set_name(
    graph: Any, name: str = "This operation"
) -> tuple[str, str]:
    """The sole ``(node_set_name, edge_set_name)`` apart from auxiliary sets, or
    ``ValueError``."""
    spec = get_graph_tensor_spec(graph)
    nodes = [n for n in spec.node_sets if not get_aux_type_prefix(n)]
    edges = [n for n in spec.edge_sets if not get_aux_type_prefix(n)]
    if len(nodes) != 1 or len(edges) != 1:
        raise ValueError(
            f"{name} requires a graph with 1 node set and 1 edge set but got {len(nodes)} "
            f"node sets and {len(edges)} edge sets."
        )
    return nodes[0], edges[0]


def check_homogeneous_graph_tensor(graph: Any, name: str = "This operation") -> None:
    """Raises ``ValueError`` when :func:`get_homogeneous_node_and_edge_set_name` does."""
    get_homogeneous_node_and_edge_set_name(graph, name=name)


def reverse_tag(tag: Any) -> int:
    """``SOURCE`` <-> ``TARGET``."""
    if isinstance(tag, (int, np.integer)) and not isinstance(tag, bool):
        if tag == TARGET:
            return SOURCE
        if tag == SOURCE:
            return TARGET
    raise ValueError(f"Expected tag tfgnn.SOURCE ({SOURCE}) or tfgnn.TARGET ({TARGET}), got: {tag}")


def _plain(value: Any) -> Any:
    """TF-GNN's ``_get_tensor_data``: nested lists of int / float / str (bytes decoded)."""
    if isinstance(value, (int, float, str)):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf8")
        except UnicodeDecodeError:
            return value
    if isinstance(value, list):
        return [_plain(v) for v in value]
    raise TypeError(f"Unsupported type: {value!r}")


def _feature_values(value: Any) -> Any:
    if isinstance(value, Ragged):
        return [_feature_values(value[i]) for i in range(value.nrows)]
    return _plain(to_numpy(value).tolist())


def graph_tensor_to_values(graph: GraphTensor) -> dict[str, Any]:
    """``{"context": {...}, "node_sets": {...}, "edge_sets": {...}}`` of plain Python values,
    for ``pprint.pprint`` or JSON."""
    if not isinstance(graph, GraphTensor):
        raise TypeError(
            f"graph_tensor_to_values(): expected a GraphTensor, got {type(graph).__name__}"
        )

    def feats(piece: Any) -> dict[str, Any]:
        return {k: _feature_values(v) for k, v in piece.features.items()}

    return {
        "context": feats(graph.context),
        "node_sets": {n: feats(p) for n, p in graph.node_sets.items()},
        "edge_sets": {n: feats(p) for n, p in graph.edge_sets.items()},
    }
