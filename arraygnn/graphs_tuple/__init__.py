"""jraph face: ``GraphsTuple`` and jraph's functions on NumPy / CuPy arrays.

The names and behaviour are jraph's (``import arraygnn.graphs_tuple as jraph`` runs most
jraph code written for NumPy inputs), computed by :mod:`arraygnn.ops`: batching and
padding are vectorised (no per-graph loop), segment reductions and softmax are the
deterministic Numba kernels, and ``GraphConvolution`` / ``GAT`` aggregate with one fused
SpMM. :func:`to_jraph` / :func:`from_jraph` hand a graph to JAX and back without copying
where JAX can, and :func:`from_data` / :func:`to_data_list` convert the PyG face.

>>> import numpy as np
>>> from arraygnn.graphs_tuple import GraphsTuple, batch, pad_with_graphs, segment_sum
>>> g = GraphsTuple(nodes=np.ones((3, 2)), edges=None, senders=np.array([0, 1]),
...                 receivers=np.array([1, 2]), globals=None, n_node=np.array([3]),
...                 n_edge=np.array([2]))
>>> padded = pad_with_graphs(batch([g, g]), n_node=8, n_edge=6, n_graph=3)
>>> padded.n_node.tolist(), padded.n_edge.tolist()
([3, 3, 2], [2, 2, 2])
>>> segment_sum(np.ones(6), padded.receivers, 8).tolist()  # in-degrees; padding: node 6
[0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 2.0, 0.0]
"""

from arraygnn.graphs_tuple.batching import (
    batch,
    batch_np,
    dynamically_batch,
    get_edge_padding_mask,
    get_fully_connected_graph,
    get_graph_padding_mask,
    get_node_padding_mask,
    get_number_of_padding_with_graphs_edges,
    get_number_of_padding_with_graphs_graphs,
    get_number_of_padding_with_graphs_nodes,
    pad_with_graphs,
    unbatch,
    unbatch_np,
    unpad_with_graphs,
    with_zero_out_padding_outputs,
    zero_out_padding,
)
from arraygnn.graphs_tuple.container import GraphsTuple, check_graphs_tuple
from arraygnn.graphs_tuple.convert import from_data, from_jraph, to_data_list, to_jraph
from arraygnn.graphs_tuple.models import (
    GAT,
    DeepSets,
    GraphConvolution,
    GraphMapFeatures,
    GraphNetGAT,
    GraphNetwork,
    InteractionNetwork,
    RelationNetwork,
    concatenated_args,
)
from arraygnn.graphs_tuple.segments import (
    partition_softmax,
    segment_max,
    segment_max_or_constant,
    segment_mean,
    segment_min,
    segment_min_or_constant,
    segment_normalize,
    segment_softmax,
    segment_sum,
    segment_variance,
)
from arraygnn.graphs_tuple.type_aliases import (
    AggregateEdgesToGlobalsFn,
    AggregateEdgesToNodesFn,
    AggregateNodesToGlobalsFn,
    ArrayTree,
    AttentionLogitFn,
    AttentionReduceFn,
    EmbedEdgeFn,
    EmbedGlobalFn,
    EmbedNodeFn,
    GATAttentionLogitFn,
    GATAttentionQueryFn,
    GATNodeUpdateFn,
    GNUpdateEdgeFn,
    GNUpdateGlobalFn,
    GNUpdateNodeFn,
    InteractionUpdateEdgeFn,
    InteractionUpdateNodeFn,
    NodeFeatures,
)

__all__ = [
    "AggregateEdgesToGlobalsFn",
    "AggregateEdgesToNodesFn",
    "AggregateNodesToGlobalsFn",
    "ArrayTree",
    "AttentionLogitFn",
    "AttentionReduceFn",
    "DeepSets",
    "EmbedEdgeFn",
    "EmbedGlobalFn",
    "EmbedNodeFn",
    "GAT",
    "GATAttentionLogitFn",
    "GATAttentionQueryFn",
    "GATNodeUpdateFn",
    "GNUpdateEdgeFn",
    "GNUpdateGlobalFn",
    "GNUpdateNodeFn",
    "GraphConvolution",
    "GraphMapFeatures",
    "GraphNetGAT",
    "GraphNetwork",
    "GraphsTuple",
    "InteractionNetwork",
    "InteractionUpdateEdgeFn",
    "InteractionUpdateNodeFn",
    "NodeFeatures",
    "RelationNetwork",
    "batch",
    "batch_np",
    "check_graphs_tuple",
    "concatenated_args",
    "dynamically_batch",
    "from_data",
    "from_jraph",
    "get_edge_padding_mask",
    "get_fully_connected_graph",
    "get_graph_padding_mask",
    "get_node_padding_mask",
    "get_number_of_padding_with_graphs_edges",
    "get_number_of_padding_with_graphs_graphs",
    "get_number_of_padding_with_graphs_nodes",
    "pad_with_graphs",
    "partition_softmax",
    "segment_max",
    "segment_max_or_constant",
    "segment_mean",
    "segment_min",
    "segment_min_or_constant",
    "segment_normalize",
    "segment_softmax",
    "segment_sum",
    "segment_variance",
    "to_data_list",
    "to_jraph",
    "unbatch",
    "unbatch_np",
    "unpad_with_graphs",
    "with_zero_out_padding_outputs",
    "zero_out_padding",
]
