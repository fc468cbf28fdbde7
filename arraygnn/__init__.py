"""arraygnn: array-native graph neural networks for NumPy and CuPy.

Three familiar faces over one engine: PyG-style ``Data`` / ``Batch``, a TF-GNN-style
heterogeneous ``GraphTensor`` and DGL-style message passing, all computing through
:mod:`arraygnn.ops` (Numba CPU kernels for NumPy arrays, Numba CUDA kernels for CuPy).

Importing arraygnn needs only numpy (scipy and numba load when first used), compiles
nothing and writes nothing; kernels compile on first use and are cached.

Subpackages reached by name: :mod:`arraygnn.ops` (the engine), :mod:`arraygnn.nn`
(layers), :mod:`arraygnn.function` (DGL built-ins, ``import arraygnn.function as fn``),
:mod:`arraygnn.io`, :mod:`arraygnn.pipeline`, :mod:`arraygnn.interop`,
:mod:`arraygnn.datasets`, :mod:`arraygnn.distributed` (Dask, optional).

Note: ``arraygnn.graph`` is the DGL-style constructor function; its implementation
package is imported with ``from arraygnn.graph import Graph, ...``.

>>> import numpy as np, arraygnn
>>> g = arraygnn.graph((np.array([0, 1]), np.array([1, 2])))
>>> g.num_nodes(), g.num_edges()
(3, 2)
"""

from typing import TYPE_CHECKING

from arraygnn._config import config, settings
from arraygnn._lazy import attach
from arraygnn._namespace import device_of, get_namespace, to_device, to_numpy

if TYPE_CHECKING:  # what the lazy table below provides, for type checkers and editors
    from arraygnn import ops
    from arraygnn.batch import Batch
    from arraygnn.cluster_data import ClusterData
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.data import Data
    from arraygnn.dataset import PackedDataset
    from arraygnn.datasets import (
        Dataset,
        InMemoryDataset,
        OnDiskDataset,
        load_molecules,
        powerlaw_graph,
    )
    from arraygnn.edge_data_loader import EdgeDataLoader
    from arraygnn.edge_prediction import EdgePredictionSampler, as_edge_prediction_sampler
    from arraygnn.feature_store import FeatureStore, TensorAttr
    from arraygnn.graph import EID, NID, Graph, edge_subgraph, heterograph, node_subgraph, to_block
    from arraygnn.graph import graph as graph  # the constructor shadows the package name
    from arraygnn.graph_store import EdgeAttr, EdgeLayout, GraphStore
    from arraygnn.graph_tensor import (
        CONTEXT,
        HIDDEN_STATE,
        SOURCE,
        TARGET,
        Adjacency,
        Context,
        EdgeSet,
        GraphTensor,
        GraphTensorSpec,
        HyperAdjacency,
        NodeSet,
        Ragged,
        broadcast,
        broadcast_context_to_edges,
        broadcast_context_to_nodes,
        broadcast_node_to_edges,
        merge_batch_to_components,
        merge_graphs_to_components,
        pool,
        pool_edges_to_context,
        pool_edges_to_node,
        pool_nodes_to_context,
        split_components,
    )
    from arraygnn.hetero_batch import HeteroBatch
    from arraygnn.hetero_data import HeteroData
    from arraygnn.interop import from_jax, from_pyg, from_torch, to_jax, to_pyg, to_torch
    from arraygnn.io.example import parse_example, parse_single_example, write_example
    from arraygnn.io.schema import (
        create_graph_spec_from_schema,
        parse_schema,
        read_schema,
        write_schema,
    )
    from arraygnn.io.tfrecord import read_tfrecord, write_tfrecord
    from arraygnn.labor_sampler import LaborSampler, sample_labors
    from arraygnn.link_loader import LinkLoader
    from arraygnn.loader import (
        CachedLoader,
        ClusterLoader,
        DataListLoader,
        DataLoader,
        DenseDataLoader,
        DynamicBatchSampler,
        GraphSAINTEdgeSampler,
        GraphSAINTNodeSampler,
        GraphSAINTRandomWalkSampler,
        GraphSAINTSampler,
        HGTLoader,
        ImbalancedSampler,
        LinkNeighborLoader,
        NeighborLoader,
        PrefetchLoader,
        RandomNodeLoader,
        ShaDowKHopSampler,
        ZipLoader,
    )
    from arraygnn.node_loader import NodeLoader
    from arraygnn.padding import (
        SizeConstraints,
        find_tight_size_constraints,
        learn_fit_or_skip_size_constraints,
        pad_to_total_sizes,
        satisfies_total_sizes,
    )
    from arraygnn.saint_sampler import SAINTSampler
    from arraygnn.sampling import (
        MultiLayerFullNeighborSampler,
        NeighborSampler,
        NodeDataLoader,
        global_uniform_negative_sampling,
        node2vec_random_walk,
        pack_traces,
        random_walk,
        sample_blocks,
        sample_neighbors,
        select_topk,
    )
    from arraygnn.temporal_data import TemporalData
    from arraygnn.temporal_data_loader import TemporalDataLoader

#: module -> the public names it provides, imported on first use (arraygnn._lazy). Importing
#: arraygnn loads only the settings and the array-namespace helpers; each face loads when
#: first used. tests/test_api_surface.py checks this table against the imports above.
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "arraygnn.batch": ("Batch",),
    "arraygnn.cluster_data": ("ClusterData",),
    "arraygnn.cluster_gcn_sampler": ("ClusterGCNSampler",),
    "arraygnn.data": ("Data",),
    "arraygnn.dataset": ("PackedDataset",),
    "arraygnn.datasets": (
        "Dataset",
        "InMemoryDataset",
        "OnDiskDataset",
        "load_molecules",
        "powerlaw_graph",
    ),
    "arraygnn.edge_data_loader": ("EdgeDataLoader",),
    "arraygnn.edge_prediction": ("EdgePredictionSampler", "as_edge_prediction_sampler"),
    "arraygnn.feature_store": ("FeatureStore", "TensorAttr"),
    "arraygnn.graph": (
        "EID",
        "NID",
        "Graph",
        "edge_subgraph",
        "heterograph",
        "node_subgraph",
        "to_block",
        "graph",
    ),
    "arraygnn.graph_store": ("EdgeAttr", "EdgeLayout", "GraphStore"),
    "arraygnn.graph_tensor": (
        "CONTEXT",
        "HIDDEN_STATE",
        "SOURCE",
        "TARGET",
        "Adjacency",
        "Context",
        "EdgeSet",
        "GraphTensor",
        "GraphTensorSpec",
        "HyperAdjacency",
        "NodeSet",
        "Ragged",
        "broadcast",
        "broadcast_context_to_edges",
        "broadcast_context_to_nodes",
        "broadcast_node_to_edges",
        "merge_batch_to_components",
        "merge_graphs_to_components",
        "pool",
        "pool_edges_to_context",
        "pool_edges_to_node",
        "pool_nodes_to_context",
        "split_components",
    ),
    "arraygnn.hetero_batch": ("HeteroBatch",),
    "arraygnn.hetero_data": ("HeteroData",),
    "arraygnn.interop": ("from_jax", "from_pyg", "from_torch", "to_jax", "to_pyg", "to_torch"),
    "arraygnn.io.example": ("parse_example", "parse_single_example", "write_example"),
    "arraygnn.io.schema": (
        "create_graph_spec_from_schema",
        "parse_schema",
        "read_schema",
        "write_schema",
    ),
    "arraygnn.io.tfrecord": ("read_tfrecord", "write_tfrecord"),
    "arraygnn.labor_sampler": ("LaborSampler", "sample_labors"),
    "arraygnn.link_loader": ("LinkLoader",),
    "arraygnn.loader": (
        "CachedLoader",
        "ClusterLoader",
        "DataListLoader",
        "DataLoader",
        "DenseDataLoader",
        "DynamicBatchSampler",
        "GraphSAINTEdgeSampler",
        "GraphSAINTNodeSampler",
        "GraphSAINTRandomWalkSampler",
        "GraphSAINTSampler",
        "HGTLoader",
        "ImbalancedSampler",
        "LinkNeighborLoader",
        "NeighborLoader",
        "PrefetchLoader",
        "RandomNodeLoader",
        "ShaDowKHopSampler",
        "ZipLoader",
    ),
    "arraygnn.node_loader": ("NodeLoader",),
    "arraygnn.padding": (
        "SizeConstraints",
        "find_tight_size_constraints",
        "learn_fit_or_skip_size_constraints",
        "pad_to_total_sizes",
        "satisfies_total_sizes",
    ),
    "arraygnn.saint_sampler": ("SAINTSampler",),
    "arraygnn.sampling": (
        "MultiLayerFullNeighborSampler",
        "NeighborSampler",
        "NodeDataLoader",
        "global_uniform_negative_sampling",
        "node2vec_random_walk",
        "pack_traces",
        "random_walk",
        "sample_blocks",
        "sample_neighbors",
        "select_topk",
    ),
    "arraygnn.temporal_data": ("TemporalData",),
    "arraygnn.temporal_data_loader": ("TemporalDataLoader",),
}
_LAZY: dict[str, str] = {name: module for module, names in _LAZY_MODULES.items() for name in names}

__version__ = "0.1.0"

__all__ = [
    "__version__",
    # engine and settings
    "ops",
    "config",
    "settings",
    "device_of",
    "get_namespace",
    "to_device",
    "to_numpy",
    # PyG face
    "Data",
    "Batch",
    "HeteroData",
    "HeteroBatch",
    "PackedDataset",
    "Dataset",
    "InMemoryDataset",
    "OnDiskDataset",
    "DataLoader",
    "NeighborLoader",
    "LinkNeighborLoader",
    "NodeLoader",
    "LinkLoader",
    "RandomNodeLoader",
    "DenseDataLoader",
    "DataListLoader",
    "ZipLoader",
    "TemporalData",
    "TemporalDataLoader",
    "ImbalancedSampler",
    "DynamicBatchSampler",
    "GraphSAINTSampler",
    "GraphSAINTNodeSampler",
    "GraphSAINTEdgeSampler",
    "GraphSAINTRandomWalkSampler",
    "ShaDowKHopSampler",
    "HGTLoader",
    "CachedLoader",
    "PrefetchLoader",
    "ClusterData",
    "ClusterLoader",
    "FeatureStore",
    "TensorAttr",
    "GraphStore",
    "EdgeAttr",
    "EdgeLayout",
    # TF-GNN face
    "GraphTensor",
    "GraphTensorSpec",
    "NodeSet",
    "EdgeSet",
    "Context",
    "Adjacency",
    "HyperAdjacency",
    "Ragged",
    "SOURCE",
    "TARGET",
    "CONTEXT",
    "HIDDEN_STATE",
    "broadcast",
    "pool",
    "broadcast_node_to_edges",
    "pool_edges_to_node",
    "broadcast_context_to_nodes",
    "broadcast_context_to_edges",
    "pool_nodes_to_context",
    "pool_edges_to_context",
    "merge_batch_to_components",
    "merge_graphs_to_components",
    "split_components",
    "read_schema",
    "parse_schema",
    "write_schema",
    "create_graph_spec_from_schema",
    # DGL face
    "Graph",
    "graph",
    "heterograph",
    "node_subgraph",
    "edge_subgraph",
    "to_block",
    "sample_neighbors",
    "sample_blocks",
    "select_topk",
    "global_uniform_negative_sampling",
    "random_walk",
    "pack_traces",
    "node2vec_random_walk",
    "NeighborSampler",
    "MultiLayerFullNeighborSampler",
    "LaborSampler",
    "sample_labors",
    "SAINTSampler",
    "ClusterGCNSampler",
    "NodeDataLoader",
    "EdgeDataLoader",
    "EdgePredictionSampler",
    "as_edge_prediction_sampler",
    "NID",
    "EID",
    # input pipeline
    "read_tfrecord",
    "write_tfrecord",
    "parse_example",
    "parse_single_example",
    "write_example",
    "SizeConstraints",
    "pad_to_total_sizes",
    "satisfies_total_sizes",
    "find_tight_size_constraints",
    "learn_fit_or_skip_size_constraints",
    # data and hand-off
    "load_molecules",
    "powerlaw_graph",
    "to_torch",
    "from_torch",
    "to_jax",
    "from_jax",
    "to_pyg",
    "from_pyg",
]

__getattr__, __dir__ = attach(__name__, _LAZY)
