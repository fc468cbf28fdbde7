"""TF-GNN face: the heterogeneous ``GraphTensor``, broadcast / pool, batching and merging.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(sizes=np.array([2]))})
>>> g.node_sets["a"].total_size
2
"""

from arraygnn.graph_tensor.pieces import (
    CONTEXT,
    EDGES,
    HIDDEN_STATE,
    NODES,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.graph_tensor.spec import (
    ContextSpec,
    EdgeSetSpec,
    FeatureSpec,
    GraphTensorSpec,
    NodeSetSpec,
)

__all__ = [
    "CONTEXT",
    "EDGES",
    "HIDDEN_STATE",
    "NODES",
    "SOURCE",
    "TARGET",
    "Adjacency",
    "Context",
    "EdgeSet",
    "GraphTensor",
    "NodeSet",
    "Ragged",
    "ContextSpec",
    "EdgeSetSpec",
    "FeatureSpec",
    "GraphTensorSpec",
    "NodeSetSpec",
]
