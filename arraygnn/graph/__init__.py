"""DGL face: :class:`Graph` (homogeneous, heterogeneous, blocks) and its message passing.

>>> import numpy as np
>>> import arraygnn.function as fn
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1]), np.array([2, 2])), num_nodes=3)
>>> g.ndata["x"] = np.array([[1.0], [2.0], [0.0]])
>>> g.update_all(fn.copy_u("x", "m"), fn.mean("m", "x"))
>>> g.ndata["x"].ravel()
array([0. , 0. , 1.5])

Modules: ``frame`` (feature storage), ``core`` (Graph, constructors), ``message_passing``
(apply_edges / update_all / multi_update_all, UDF batches), ``query`` (in_edges,
out_edges, edge_ids, ... as Graph methods), ``subgraph`` (subgraph, edge_subgraph,
to_block), ``blocks`` (create_block, block_to_graph), ``transform`` (add_self_loop,
remove_self_loop, reverse, add_reverse_edges, to_simple, to_bidirected), ``batching``
(batch, unbatch), ``readout`` (sum_nodes, mean_nodes, softmax_nodes, broadcast_nodes,
...), ``convert`` (Data / GraphTensor converters), ``knn`` (knn_graph,
segmented_knn_graph), ``positional_encoding``
(laplacian_pe / lap_pe, random_walk_pe, laplacian_lambda_max), ``shortest_dist``
(DGL's shortest_dist with paths), ``homophily``
(node_homophily, edge_homophily, linkx_homophily), ``transform_modules`` /
``diffusion_transforms`` (DGL's ``dgl.transforms`` classes: AddSelfLoop, AddReverse,
DropNode, GCNNorm, PPR, SIGNDiffusion, LapPE, ...), ``ops`` (DGL's ``dgl.ops``: gspmm,
gsddmm, edge_softmax, segment_reduce, segment_softmax, copy_u_sum, u_mul_e_sum, u_dot_v,
...), ``structure`` (in_subgraph, out_subgraph, khop_in_subgraph, khop_out_subgraph,
line_graph, khop_graph, khop_adj, norm_by_dst, metapath_reachable_graph, compact_graphs,
add_nodes, add_edges, remove_nodes, remove_edges), ``serialize`` (save_graphs, load_graphs,
load_labels, save_info, load_info: safe ``.npz`` files), ``dgl_dataset`` (DGLDataset,
DGLBuiltinDataset, split_dataset, Subset and ``dgl.data.utils``' download helpers). DGL's
``from_scipy``, ``bipartite_from_scipy``, ``from_networkx`` and ``to_networkx`` come from
:mod:`arraygnn.interop.scipy` / :mod:`arraygnn.interop.networkx` (``g.adj_external(...)``
gives the SciPy matrix back).
"""

from arraygnn.graph.adj_graphs import adj_product_graph, adj_sum_graph
from arraygnn.graph.batching import GraphDataLoader, batch, slice_batch, unbatch
from arraygnn.graph.blocks import block_to_graph, create_block
from arraygnn.graph.convert import (
    data_to_graph,
    graph_tensor_to_graph,
    graph_to_data,
    graph_to_graph_tensor,
)
from arraygnn.graph.core import EID, NID, Graph, graph, heterograph
from arraygnn.graph.dgl_dataset import DGLBuiltinDataset, DGLDataset, Subset, split_dataset
from arraygnn.graph.diffusion_transforms import (
    GDC,
    PPR,
    GCNNorm,
    HeatKernel,
    SIGNDiffusion,
)
from arraygnn.graph.drnl import double_radius_node_labeling
from arraygnn.graph.etype_neighbors import sample_etype_neighbors
from arraygnn.graph.generators import rand_bipartite, rand_graph
from arraygnn.graph.homophily import edge_homophily, linkx_homophily, node_homophily
from arraygnn.graph.knn import knn_graph, segmented_knn_graph
from arraygnn.graph.merge import merge
from arraygnn.graph.message_passing import EdgeBatch, NodeBatch
from arraygnn.graph.ops import edge_softmax, gsddmm, gspmm, segment_reduce, segment_softmax
from arraygnn.graph.pinsage import (
    PinSAGESampler,
    RandomWalkNeighborSampler,
    select_pinsage_neighbors,
)
from arraygnn.graph.positional_encoding import (
    lap_pe,
    laplacian_lambda_max,
    laplacian_pe,
    random_walk_pe,
)
from arraygnn.graph.precision import to_double, to_float, to_half
from arraygnn.graph.radius_graph import radius_graph
from arraygnn.graph.readout import (
    broadcast_edges,
    broadcast_nodes,
    max_edges,
    max_nodes,
    mean_edges,
    mean_nodes,
    readout_edges,
    readout_nodes,
    softmax_edges,
    softmax_nodes,
    sum_edges,
    sum_nodes,
    topk_edges,
    topk_nodes,
)
from arraygnn.graph.reorder import reorder_graph
from arraygnn.graph.serialize import load_graphs, load_info, load_labels, save_graphs, save_info
from arraygnn.graph.shortest_dist import shortest_dist
from arraygnn.graph.sort_by_tag import sort_csc_by_tag, sort_csr_by_tag
from arraygnn.graph.structure import (
    add_edges,
    add_nodes,
    compact_graphs,
    in_subgraph,
    khop_adj,
    khop_graph,
    khop_in_subgraph,
    khop_out_subgraph,
    line_graph,
    metapath_reachable_graph,
    norm_by_dst,
    out_subgraph,
    remove_edges,
    remove_nodes,
)
from arraygnn.graph.subgraph import (
    edge_subgraph,
    edge_type_subgraph,
    node_subgraph,
    node_type_subgraph,
    to_block,
)
from arraygnn.graph.svd_pe import svd_pe
from arraygnn.graph.to_heterogeneous import to_heterogeneous
from arraygnn.graph.transform import (
    ETYPE,
    NTYPE,
    add_reverse_edges,
    add_self_loop,
    remove_self_loop,
    reverse,
    to_bidirected,
    to_homogeneous,
    to_simple,
)
from arraygnn.graph.transform_modules import (
    SVDPE,
    AddEdge,
    AddMetaPaths,
    AddReverse,
    AddSelfLoop,
    BaseTransform,
    Compose,
    DropEdge,
    DropNode,
    FeatMask,
    KHopGraph,
    LapPE,
    LineGraph,
    NodeShuffle,
    RandomWalkPE,
    RemoveSelfLoop,
    RowFeatNormalizer,
    ToLevi,
    ToSimple,
)
from arraygnn.interop.networkx import graph_from_networkx as from_networkx
from arraygnn.interop.networkx import graph_to_networkx as to_networkx
from arraygnn.interop.scipy import bipartite_from_scipy, from_scipy

__all__ = [
    "Graph",
    "graph",
    "heterograph",
    "NID",
    "EID",
    "EdgeBatch",
    "NodeBatch",
    "node_subgraph",
    "edge_subgraph",
    "node_type_subgraph",
    "edge_type_subgraph",
    "to_block",
    "create_block",
    "block_to_graph",
    "in_subgraph",
    "out_subgraph",
    "khop_in_subgraph",
    "khop_out_subgraph",
    "line_graph",
    "khop_graph",
    "khop_adj",
    "norm_by_dst",
    "metapath_reachable_graph",
    "compact_graphs",
    "add_nodes",
    "add_edges",
    "remove_nodes",
    "remove_edges",
    "gspmm",
    "gsddmm",
    "edge_softmax",
    "segment_reduce",
    "segment_softmax",
    "add_self_loop",
    "remove_self_loop",
    "reverse",
    "add_reverse_edges",
    "to_simple",
    "to_bidirected",
    "to_homogeneous",
    "to_heterogeneous",
    "merge",
    "adj_product_graph",
    "adj_sum_graph",
    "sort_csr_by_tag",
    "sort_csc_by_tag",
    "reorder_graph",
    "to_half",
    "to_float",
    "to_double",
    "rand_graph",
    "rand_bipartite",
    "radius_graph",
    "svd_pe",
    "double_radius_node_labeling",
    "sample_etype_neighbors",
    "PinSAGESampler",
    "RandomWalkNeighborSampler",
    "select_pinsage_neighbors",
    "knn_graph",
    "segmented_knn_graph",
    "laplacian_pe",
    "lap_pe",
    "random_walk_pe",
    "shortest_dist",
    "laplacian_lambda_max",
    "node_homophily",
    "edge_homophily",
    "linkx_homophily",
    "NTYPE",
    "ETYPE",
    "batch",
    "unbatch",
    "slice_batch",
    "GraphDataLoader",
    "readout_nodes",
    "readout_edges",
    "sum_nodes",
    "sum_edges",
    "mean_nodes",
    "mean_edges",
    "max_nodes",
    "max_edges",
    "softmax_nodes",
    "softmax_edges",
    "broadcast_nodes",
    "topk_nodes",
    "topk_edges",
    "broadcast_edges",
    "graph_to_data",
    "data_to_graph",
    "graph_to_graph_tensor",
    "graph_tensor_to_graph",
    "from_scipy",
    "bipartite_from_scipy",
    "from_networkx",
    "to_networkx",
    "BaseTransform",
    "Compose",
    "AddSelfLoop",
    "RemoveSelfLoop",
    "AddReverse",
    "ToSimple",
    "LineGraph",
    "KHopGraph",
    "AddMetaPaths",
    "NodeShuffle",
    "DropNode",
    "DropEdge",
    "AddEdge",
    "FeatMask",
    "RowFeatNormalizer",
    "ToLevi",
    "SVDPE",
    "RandomWalkPE",
    "LapPE",
    "GCNNorm",
    "PPR",
    "HeatKernel",
    "GDC",
    "SIGNDiffusion",
    "save_graphs",
    "load_graphs",
    "load_labels",
    "save_info",
    "load_info",
    "DGLDataset",
    "DGLBuiltinDataset",
    "Subset",
    "split_dataset",
]
