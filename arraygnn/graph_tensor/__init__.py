"""TF-GNN face: the heterogeneous ``GraphTensor``, broadcast / pool, batching and merging.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet
>>> g = GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(sizes=np.array([2]))})
>>> g.node_sets["a"].total_size
2
"""

from arraygnn.graph_tensor.batching import (
    batch_graph_tensors,
    merge_batch_to_components,
    merge_graphs_to_components,
    split_components,
    unbatch_graph_tensor,
)
from arraygnn.graph_tensor.broadcast_pool import (
    REDUCE_TYPES,
    broadcast,
    broadcast_context_to_edges,
    broadcast_context_to_nodes,
    broadcast_node_to_edges,
    pool,
    pool_edges_to_context,
    pool_edges_to_node,
    pool_nodes_to_context,
)
from arraygnn.graph_tensor.convert import (
    EDGE_SET_NAME,
    NODE_SET_NAME,
    data_to_graph_tensor,
    graph_tensor_to_batch,
    graph_tensor_to_data,
)
from arraygnn.graph_tensor.graph_ops import (
    add_self_loops,
    combine_values,
    gather_first_node,
    get_aux_type_prefix,
    get_registered_reduce_operation_names,
    mask_edges,
    node_degree,
    pool_neighbors_to_node,
    pool_neighbors_to_node_feature,
    reorder_nodes,
    shuffle_features_globally,
    shuffle_nodes,
    softmax,
    softmax_edges_per_node,
)
from arraygnn.graph_tensor.line_graph import convert_to_line_graph
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
    "REDUCE_TYPES",
    "broadcast",
    "broadcast_context_to_edges",
    "broadcast_context_to_nodes",
    "broadcast_node_to_edges",
    "pool",
    "pool_edges_to_context",
    "pool_edges_to_node",
    "pool_nodes_to_context",
    "add_self_loops",
    "combine_values",
    "convert_to_line_graph",
    "gather_first_node",
    "get_aux_type_prefix",
    "get_registered_reduce_operation_names",
    "mask_edges",
    "node_degree",
    "pool_neighbors_to_node",
    "pool_neighbors_to_node_feature",
    "reorder_nodes",
    "shuffle_features_globally",
    "shuffle_nodes",
    "softmax",
    "softmax_edges_per_node",
    "batch_graph_tensors",
    "merge_batch_to_components",
    "merge_graphs_to_components",
    "split_components",
    "unbatch_graph_tensor",
    "EDGE_SET_NAME",
    "NODE_SET_NAME",
    "data_to_graph_tensor",
    "graph_tensor_to_batch",
    "graph_tensor_to_data",
]
