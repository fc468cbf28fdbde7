"""The public API surface: fails when a public name appears or disappears.

Update the lists here deliberately, together with the docs, when the API changes.
"""

import importlib
import subprocess
import sys

import pytest

PUBLIC = {
    "arraygnn": [
        "Adjacency",
        "Batch",
        "CONTEXT",
        "Context",
        "Data",
        "DataLoader",
        "EID",
        "EdgeSet",
        "Graph",
        "GraphTensor",
        "GraphTensorSpec",
        "HIDDEN_STATE",
        "NID",
        "NeighborSampler",
        "NodeSet",
        "PackedDataset",
        "Ragged",
        "SOURCE",
        "SizeConstraints",
        "TARGET",
        "__version__",
        "broadcast",
        "broadcast_context_to_edges",
        "broadcast_context_to_nodes",
        "broadcast_node_to_edges",
        "config",
        "create_graph_spec_from_schema",
        "device_of",
        "edge_subgraph",
        "find_tight_size_constraints",
        "from_jax",
        "from_pyg",
        "from_torch",
        "get_namespace",
        "graph",
        "heterograph",
        "learn_fit_or_skip_size_constraints",
        "load_molecules",
        "merge_batch_to_components",
        "merge_graphs_to_components",
        "node_subgraph",
        "ops",
        "pad_to_total_sizes",
        "parse_example",
        "parse_schema",
        "parse_single_example",
        "pool",
        "pool_edges_to_context",
        "pool_edges_to_node",
        "pool_nodes_to_context",
        "powerlaw_graph",
        "read_schema",
        "read_tfrecord",
        "sample_blocks",
        "sample_neighbors",
        "satisfies_total_sizes",
        "settings",
        "split_components",
        "to_block",
        "to_device",
        "to_jax",
        "to_numpy",
        "to_pyg",
        "to_torch",
        "write_example",
        "write_schema",
        "write_tfrecord",
    ],
    "arraygnn.ops": [
        "CSR",
        "edge_softmax",
        "gather",
        "gather_mm",
        "scatter",
        "sddmm",
        "segment",
        "segment_mm",
        "spmm",
        "to_csr",
    ],
    "arraygnn.nn": [
        "APPNP",
        "AttentionalAggregation",
        "AvgPooling",
        "BatchNorm",
        "ChebConv",
        "GATConv",
        "GATv2Conv",
        "GCNConv",
        "GINConv",
        "GINEConv",
        "GRU",
        "GlobalAttentionPooling",
        "GraphConv",
        "HeteroConv",
        "HeteroGraphConv",
        "LSTM",
        "LayerNorm",
        "Linear",
        "MLP",
        "MaxPooling",
        "NNConv",
        "PNAConv",
        "RGCNConv",
        "RelGraphConv",
        "RelationGroups",
        "SAGEConv",
        "SGConv",
        "Sequential",
        "Set2Set",
        "SumPooling",
        "TAGConv",
        "TransformerConv",
        "TypedLinear",
        "add_remaining_self_loops",
        "from_dgl",
        "from_pyg",
        "from_torch",
        "gcn_norm",
        "global_add_pool",
        "global_max_pool",
        "global_mean_pool",
        "group_relations",
        "propagate_hops",
    ],
    "arraygnn.pipeline": [
        "FilterWithSummary",
        "GraphBatchLoader",
        "MapFeatures",
        "PadBatches",
        "Readout",
        "ReadoutFirstNode",
        "StructuredReadout",
        "batch_graphs",
        "dynamic_batch",
        "fit_or_skip",
        "map_features",
        "merge_graphs",
        "per_replica_batch_size",
        "readout",
        "readout_first_node",
        "shard",
        "shard_dataset",
        "split_labels",
        "structured_readout",
    ],
    "arraygnn.interop": [
        "HandoffCopyError",
        "HandoffReport",
        "JAX_ALIGNMENT",
        "aligned_copy",
        "aligned_empty",
        "data_pointer",
        "from_jax",
        "from_networkx",
        "from_pyg",
        "from_scipy_sparse_matrix",
        "from_torch",
        "to_jax",
        "to_networkx",
        "to_pyg",
        "to_scipy_sparse_matrix",
        "to_torch",
    ],
    "arraygnn.graph": [
        "EID",
        "ETYPE",
        "EdgeBatch",
        "Graph",
        "NID",
        "NTYPE",
        "NodeBatch",
        "add_reverse_edges",
        "add_self_loop",
        "batch",
        "bipartite_from_scipy",
        "broadcast_edges",
        "broadcast_nodes",
        "data_to_graph",
        "edge_subgraph",
        "from_networkx",
        "from_scipy",
        "graph",
        "graph_tensor_to_graph",
        "graph_to_data",
        "graph_to_graph_tensor",
        "heterograph",
        "max_edges",
        "max_nodes",
        "mean_edges",
        "mean_nodes",
        "node_subgraph",
        "readout_edges",
        "readout_nodes",
        "remove_self_loop",
        "reverse",
        "softmax_edges",
        "softmax_nodes",
        "sum_edges",
        "sum_nodes",
        "to_bidirected",
        "to_block",
        "to_homogeneous",
        "to_networkx",
        "to_simple",
        "unbatch",
    ],
    "arraygnn.distributed": [
        "DistributedFeatures",
        "ExchangeStats",
        "GraphBlock",
        "PartitionLostError",
        "PartitionedGraph",
        "batch_index_plan",
        "distributed_batches",
        "distributed_spmm",
        "distributed_tfrecord_batches",
        "local_cluster",
        "partition_graph",
        "propagate",
        "scatter_features",
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == PUBLIC[module]
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert not missing, f"{module}.__all__ lists names it does not define: {missing}"


def test_function_builtins_are_plain_functions():
    import arraygnn.function as fn

    ops = ("add", "sub", "mul", "div", "dot")
    names = [f"{a}_{op}_{b}" for a in "uve" for op in ops for b in "uve"]
    names += ["copy_u", "copy_e", "sum", "mean", "max", "min", "prod"]
    for name in names:
        assert callable(getattr(fn, name)), name
    # Written in the source, not generated at import.
    src = open(fn.__file__).read()
    assert "setattr(" not in src and "globals()[" not in src


def test_import_is_light_and_writes_nothing(tmp_path):
    code = (
        "import sys, arraygnn\n"
        "heavy = [m for m in ('numba', 'scipy', 'cupy', 'torch', 'jax', 'dask', 'distributed',"
        " 'torch_geometric') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert proc.stdout.strip() == "", f"import arraygnn pulled in: {proc.stdout.strip()}"
    assert list(tmp_path.iterdir()) == []
