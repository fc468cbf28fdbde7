"""PyG's most used ``torch_geometric.utils`` functions, on NumPy and CuPy arrays.

Same names, signatures and results as PyG 2.8 (``docs/utils.md`` lists where they differ):
code written against ``torch_geometric.utils`` ports by changing the import. Arrays stay on
their device (NumPy in, NumPy out; CuPy in, CuPy out); the reductions run the
``arraygnn.ops`` kernels. Every function checks its arguments and raises ``TypeError`` /
``ValueError`` naming the function and the argument; nothing passed in is modified.

PyG's converters ``to_scipy_sparse_matrix``, ``from_scipy_sparse_matrix``, ``to_networkx``,
``from_networkx`` and the torch sparse / nested tensor ones (``to_torch_coo_tensor``, ...,
``to_nested_tensor``) are here too (they live in :mod:`arraygnn.interop`).

RULE: where PyG infers a size from the data (``num_nodes = edge_index.max() + 1``, the
number of graphs in a batch, ...), so do these functions, and say so in their docstrings:
that is a device-to-host sync on CuPy. Give the size to avoid it.
RULE: index dtypes are kept (an int32 ``edge_index`` gives int32 ids); index arrays made
from scratch (``mask_to_index``, ``dense_to_sparse``, ``k_hop_subgraph``'s mapping) are
int64, as PyG's.

>>> import numpy as np
>>> from arraygnn.utils import add_self_loops, coalesce, degree, to_undirected
>>> ei = np.array([[0, 1, 1], [1, 2, 2]])
>>> coalesce(ei).tolist()
[[0, 1], [1, 2]]
>>> degree(to_undirected(ei)[0], 3).tolist()
[1.0, 2.0, 1.0]
>>> add_self_loops(ei, num_nodes=3)[0].tolist()
[[0, 1, 1, 0, 1, 2], [1, 2, 2, 0, 1, 2]]
"""

from arraygnn.interop.networkx import from_networkx, to_networkx
from arraygnn.interop.scipy import from_scipy_sparse_matrix, to_scipy_sparse_matrix
from arraygnn.interop.torch_sparse import (
    from_nested_tensor,
    is_sparse,
    is_torch_sparse_tensor,
    to_nested_tensor,
    to_torch_coo_tensor,
    to_torch_csc_tensor,
    to_torch_csr_tensor,
    to_torch_sparse_tensor,
)
from arraygnn.utils.arrays import (
    cumsum,
    group_argsort,
    group_cat,
    index_sort,
    lexsort,
    mask_select,
    narrow,
    one_hot,
    segment,
    select,
)
from arraygnn.utils.augment import (
    add_random_edge,
    dropout_edge,
    dropout_node,
    dropout_path,
    mask_feature,
    shuffle_node,
)
from arraygnn.utils.batch import unbatch, unbatch_edge_index
from arraygnn.utils.coalesce import coalesce
from arraygnn.utils.cut import normalized_cut
from arraygnn.utils.degree import degree
from arraygnn.utils.dense import dense_to_sparse, to_dense_adj, to_dense_batch
from arraygnn.utils.dgl_convert import from_dgl, to_dgl
from arraygnn.utils.dropout_adj import dropout_adj
from arraygnn.utils.geodesic import geodesic_distance
from arraygnn.utils.grid import grid
from arraygnn.utils.homophily import assortativity, homophily
from arraygnn.utils.isolated import contains_isolated_nodes, remove_isolated_nodes
from arraygnn.utils.knn import knn, knn_graph, radius, radius_graph
from arraygnn.utils.laplacian import get_laplacian
from arraygnn.utils.logsumexp import segment_logsumexp
from arraygnn.utils.loops import (
    add_remaining_self_loops,
    add_self_loops,
    contains_self_loops,
    get_self_loop_attr,
    remove_self_loops,
    segregate_self_loops,
)
from arraygnn.utils.mask import index_to_mask, mask_to_index
from arraygnn.utils.mesh import get_mesh_laplacian
from arraygnn.utils.negative_sampling import (
    batched_negative_sampling,
    negative_sampling,
    structured_negative_sampling,
    structured_negative_sampling_feasible,
)
from arraygnn.utils.networkit_convert import from_networkit, to_networkit
from arraygnn.utils.normalize_edge_index import normalize_edge_index
from arraygnn.utils.num_hops import get_num_hops
from arraygnn.utils.ppr import get_ppr
from arraygnn.utils.random_graphs import (
    barabasi_albert_graph,
    erdos_renyi_graph,
    stochastic_blockmodel_graph,
)
from arraygnn.utils.scatter import scatter, softmax
from arraygnn.utils.smiles import from_rdmol, from_smiles, to_rdmol, to_smiles
from arraygnn.utils.sort import sort_edge_index
from arraygnn.utils.sparse import to_edge_index
from arraygnn.utils.spmm import spmm
from arraygnn.utils.subgraph import bipartite_subgraph, k_hop_subgraph, subgraph
from arraygnn.utils.train_test_split_edges import train_test_split_edges
from arraygnn.utils.tree_decomposition import tree_decomposition
from arraygnn.utils.trim_to_layer import trim_to_layer
from arraygnn.utils.trimesh_convert import from_trimesh, to_trimesh
from arraygnn.utils.undirected import is_undirected, to_undirected

__all__ = [
    "add_random_edge",
    "add_remaining_self_loops",
    "add_self_loops",
    "assortativity",
    "barabasi_albert_graph",
    "batched_negative_sampling",
    "bipartite_subgraph",
    "coalesce",
    "contains_isolated_nodes",
    "contains_self_loops",
    "cumsum",
    "degree",
    "dense_to_sparse",
    "dropout_edge",
    "dropout_node",
    "dropout_path",
    "erdos_renyi_graph",
    "from_nested_tensor",
    "from_networkx",
    "from_scipy_sparse_matrix",
    "get_laplacian",
    "get_mesh_laplacian",
    "get_ppr",
    "get_self_loop_attr",
    "grid",
    "group_argsort",
    "group_cat",
    "homophily",
    "index_sort",
    "index_to_mask",
    "is_sparse",
    "is_torch_sparse_tensor",
    "is_undirected",
    "k_hop_subgraph",
    "knn",
    "knn_graph",
    "lexsort",
    "mask_feature",
    "mask_select",
    "mask_to_index",
    "narrow",
    "negative_sampling",
    "normalized_cut",
    "one_hot",
    "radius",
    "radius_graph",
    "remove_isolated_nodes",
    "remove_self_loops",
    "scatter",
    "segment",
    "segment_logsumexp",
    "segregate_self_loops",
    "select",
    "shuffle_node",
    "softmax",
    "sort_edge_index",
    "stochastic_blockmodel_graph",
    "structured_negative_sampling",
    "structured_negative_sampling_feasible",
    "subgraph",
    "to_dense_adj",
    "to_dense_batch",
    "to_edge_index",
    "to_nested_tensor",
    "to_networkx",
    "to_scipy_sparse_matrix",
    "to_torch_coo_tensor",
    "to_torch_csc_tensor",
    "to_torch_csr_tensor",
    "to_torch_sparse_tensor",
    "to_undirected",
    "unbatch",
    "unbatch_edge_index",
    "dropout_adj",
    "from_dgl",
    "from_networkit",
    "from_trimesh",
    "geodesic_distance",
    "get_num_hops",
    "normalize_edge_index",
    "spmm",
    "to_dgl",
    "to_networkit",
    "to_trimesh",
    "train_test_split_edges",
    "trim_to_layer",
    "from_rdmol",
    "from_smiles",
    "to_rdmol",
    "to_smiles",
    "tree_decomposition",
]
