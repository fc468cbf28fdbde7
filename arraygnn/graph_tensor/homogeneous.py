"""``homogeneous``: a scalar GraphTensor with one node set and one edge set (TF-GNN's
``tfgnn.homogeneous``).

RULE: ``node_features`` / ``edge_features`` / ``context_features`` are an array (stored as
      ``"hidden_state"``) or a dict of features; without ``node_set_sizes`` the node set is one
      component of as many nodes as the first node feature has rows, and without
      ``edge_set_sizes`` the edge set is one component of ``len(source)`` edges.
RULE: ``node_set_sizes`` is required when there are no node features; sizes for several
      components need both ``node_set_sizes`` and ``edge_set_sizes`` of the same length (else
      ``GraphTensor.from_pieces`` reports the disagreeing number of components).
RULE: ``source`` / ``target`` must be 1-D (TF-GNN's "rank-1 dense tensors"); they index the
      single node set and are range-checked by ``GraphTensor.from_pieces``.

>>> import numpy as np
>>> g = homogeneous(np.array([0, 1]), np.array([1, 2]), node_features=np.eye(3))
>>> g.node_sets["nodes"]["hidden_state"].shape, g.edge_sets["edges"].sizes.tolist()
((3, 3), [2])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.pieces import (
    EDGES,
    HIDDEN_STATE,
    NODES,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor.ragged import Ragged

__all__ = ["homogeneous"]


def _fields_and_size(features: Any, xp: Any) -> tuple[dict[str, Any], Any]:
    """TF-GNN's ``_fields_and_size_from_fieldorfields``: ``(features dict, [num items])``."""
    if features is None:
        return {}, None
    if isinstance(features, Mapping):
        if not features:
            raise ValueError("homogeneous(): a features dict must not be empty")
        first = next(iter(features.values()))  # TF-GNN's indicative feature
    else:
        first, features = features, {HIDDEN_STATE: features}
    if isinstance(first, Ragged):
        n = first.nrows
    elif is_array(first) and first.ndim >= 1:
        n = first.shape[0]
    else:
        raise TypeError(
            "homogeneous(): a feature must be an array with an item dimension or a Ragged, "
            f"got {type(first).__name__}"
        )
    return dict(features), xp.asarray([n], dtype=np.int64)


def homogeneous(
    source: Any,
    target: Any,
    *,
    node_features: Any = None,
    edge_features: Any = None,
    context_features: Any = None,
    node_set_name: str = NODES,
    edge_set_name: str = EDGES,
    node_set_sizes: Any = None,
    edge_set_sizes: Any = None,
) -> GraphTensor:
    """A scalar GraphTensor with the single node set ``node_set_name`` and the single edge set
    ``edge_set_name`` from ``source`` to ``target`` (indices into that node set)."""
    if node_features is None and node_set_sizes is None:
        raise ValueError("node_set_sizes must be provided if node_features is not")
    if isinstance(source, (list, tuple)):
        source = np.asarray(source, dtype=np.int64)
    if isinstance(target, (list, tuple)):
        target = np.asarray(target, dtype=np.int64)
    if not (is_array(source) and is_array(target)) or source.ndim != 1 or target.ndim != 1:
        raise ValueError("source and target must be rank-1 dense tensors")
    xp = get_namespace(source, target)
    node_features, num_nodes = _fields_and_size(node_features, xp)
    edge_features, _ = _fields_and_size(edge_features, xp)
    context_features, _ = _fields_and_size(context_features, xp)
    node_sizes = num_nodes if node_set_sizes is None else _sizes(node_set_sizes, xp)
    edge_sizes = (
        xp.asarray([source.shape[0]], dtype=np.int64)
        if edge_set_sizes is None
        else _sizes(edge_set_sizes, xp)
    )
    return GraphTensor.from_pieces(
        node_sets={node_set_name: NodeSet.from_fields(sizes=node_sizes, features=node_features)},
        edge_sets={
            edge_set_name: EdgeSet.from_fields(
                sizes=edge_sizes,
                adjacency=Adjacency.from_indices(
                    source=(node_set_name, source), target=(node_set_name, target)
                ),
                features=edge_features,
            )
        },
        context=Context.from_fields(
            features=context_features,
            sizes=xp.ones_like(node_sizes),  # TF-GNN: same dtype
        ),
    )


def _sizes(sizes: Any, xp: Any) -> Any:
    return xp.asarray(sizes, dtype=np.int64) if isinstance(sizes, (list, tuple, int)) else sizes
