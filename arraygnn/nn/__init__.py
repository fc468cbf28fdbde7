"""Autograd-free graph layers on NumPy / CuPy arrays, numerically equal to PyG and DGL.

Layers hold their weights as arrays and are called for inference only. Each accepts
PyG's ``layer(x, edge_index)`` as well as DGL's ``layer(graph, feat)`` with a
homogeneous graph, a bipartite pair ``(feat_src, feat_dst)`` or a block. All graph
arithmetic goes through :mod:`arraygnn.ops`.

>>> import numpy as np
>>> from arraygnn.nn import GCNConv
>>> conv = GCNConv(4, 2, rng=0)
>>> conv(np.ones((3, 4), np.float32), np.array([[0, 1, 2], [1, 2, 0]])).shape
(3, 2)
"""

from arraygnn.nn import aggr, norm
from arraygnn.nn.antisymmetric_conv import AntiSymmetricConv
from arraygnn.nn.arma_conv import ARMAConv
from arraygnn.nn.cg_conv import CGConv
from arraygnn.nn.cluster_gcn_conv import ClusterGCNConv
from arraygnn.nn.dense_conv import (
    DenseGATConv,
    DenseGCNConv,
    DenseGINConv,
    DenseGraphConv,
    DenseSAGEConv,
)
from arraygnn.nn.dense_pool import DMoNPooling, dense_diff_pool, dense_mincut_pool
from arraygnn.nn.dgl_hetero_linear import DGLHeteroLinear, HeteroEmbedding
from arraygnn.nn.dgl_hgt_conv import DGLHGTConv
from arraygnn.nn.dir_gnn_conv import DirGNNConv
from arraygnn.nn.dot_gat_conv import AGNNConv, DotGatConv
from arraygnn.nn.edge_conv import DynamicEdgeConv, EdgeConv
from arraygnn.nn.fa_conv import FAConv
from arraygnn.nn.feast_conv import FeaStConv
from arraygnn.nn.film_conv import FiLMConv
from arraygnn.nn.gat_conv import GATConv
from arraygnn.nn.gated_graph_conv import GatedGraphConv, ResGatedGraphConv
from arraygnn.nn.gatv2_conv import GATv2Conv
from arraygnn.nn.gcn2_conv import GCN2Conv
from arraygnn.nn.gen_conv import GENConv
from arraygnn.nn.general_conv import GeneralConv
from arraygnn.nn.gin_conv import GINConv, GINEConv
from arraygnn.nn.graph_conv import GCNConv, GraphConv, add_remaining_self_loops, gcn_norm
from arraygnn.nn.grav_net_conv import GravNetConv
from arraygnn.nn.hetero_conv import HeteroConv, HeteroGraphConv
from arraygnn.nn.hetero_linear import HeteroDictLinear, HeteroLinear
from arraygnn.nn.hgt_conv import HGTConv
from arraygnn.nn.knn_graph import KNNGraph, SegmentedKNNGraph
from arraygnn.nn.le_conv import LEConv
from arraygnn.nn.lg_conv import LGConv
from arraygnn.nn.linear import GRU, LSTM, MLP, BatchNorm, GRUCell, LayerNorm, Linear, Sequential
from arraygnn.nn.mf_conv import MFConv
from arraygnn.nn.mix_hop_conv import MixHopConv
from arraygnn.nn.models import GAT, GCN, GIN, PNA, EdgeCNN, GraphSAGE, JumpingKnowledge
from arraygnn.nn.nn_conv import NNConv
from arraygnn.nn.norm import (
    DiffGroupNorm,
    GraphNorm,
    GraphSizeNorm,
    InstanceNorm,
    MeanSubtractionNorm,
    MessageNorm,
    PairNorm,
)
from arraygnn.nn.pdn_conv import PDNConv
from arraygnn.nn.pna_conv import PNAConv
from arraygnn.nn.point_net_conv import PointNetConv
from arraygnn.nn.pool import SAGPooling, TopKPooling
from arraygnn.nn.readout import (
    AttentionalAggregation,
    AvgPooling,
    GlobalAttentionPooling,
    MaxPooling,
    Set2Set,
    SortAggregation,
    SortPooling,
    SumPooling,
    global_add_pool,
    global_max_pool,
    global_mean_pool,
)
from arraygnn.nn.relation_groups import RelationGroups, group_relations
from arraygnn.nn.rgcn_conv import RelGraphConv, RGCNConv, TypedLinear
from arraygnn.nn.sage_conv import SAGEConv
from arraygnn.nn.sgc import APPNP, ChebConv, SGConv, TAGConv, propagate_hops
from arraygnn.nn.signed_conv import SignedConv
from arraygnn.nn.simple_conv import SimpleConv
from arraygnn.nn.ssg_conv import SSGConv
from arraygnn.nn.transformer_conv import TransformerConv
from arraygnn.nn.weights import from_dgl, from_pyg, from_torch

__all__ = [
    "aggr",
    "norm",
    "Linear",
    "BatchNorm",
    "LayerNorm",
    "InstanceNorm",
    "GraphNorm",
    "GraphSizeNorm",
    "PairNorm",
    "MessageNorm",
    "DiffGroupNorm",
    "MeanSubtractionNorm",
    "LSTM",
    "GRU",
    "GRUCell",
    "Sequential",
    "MLP",
    "GCN",
    "GraphSAGE",
    "GIN",
    "GAT",
    "PNA",
    "EdgeCNN",
    "JumpingKnowledge",
    "GCNConv",
    "GCN2Conv",
    "GraphConv",
    "SAGEConv",
    "GATConv",
    "GATv2Conv",
    "DotGatConv",
    "AGNNConv",
    "GINConv",
    "GINEConv",
    "GENConv",
    "GatedGraphConv",
    "ResGatedGraphConv",
    "EdgeConv",
    "DynamicEdgeConv",
    "PointNetConv",
    "MFConv",
    "FiLMConv",
    "GeneralConv",
    "CGConv",
    "GravNetConv",
    "PDNConv",
    "KNNGraph",
    "SegmentedKNNGraph",
    "SGConv",
    "APPNP",
    "TAGConv",
    "ChebConv",
    "LEConv",
    "ClusterGCNConv",
    "SSGConv",
    "LGConv",
    "SimpleConv",
    "MixHopConv",
    "DirGNNConv",
    "AntiSymmetricConv",
    "SignedConv",
    "FeaStConv",
    "FAConv",
    "ARMAConv",
    "TransformerConv",
    "NNConv",
    "PNAConv",
    "RGCNConv",
    "RelGraphConv",
    "TypedLinear",
    "group_relations",
    "RelationGroups",
    "HeteroConv",
    "HeteroGraphConv",
    "HeteroLinear",
    "HeteroDictLinear",
    "DGLHeteroLinear",
    "HeteroEmbedding",
    "HGTConv",
    "DGLHGTConv",
    "gcn_norm",
    "add_remaining_self_loops",
    "propagate_hops",
    "global_add_pool",
    "global_mean_pool",
    "global_max_pool",
    "SumPooling",
    "AvgPooling",
    "MaxPooling",
    "AttentionalAggregation",
    "GlobalAttentionPooling",
    "Set2Set",
    "TopKPooling",
    "SAGPooling",
    "DenseGCNConv",
    "DenseSAGEConv",
    "DenseGINConv",
    "DenseGraphConv",
    "DenseGATConv",
    "dense_diff_pool",
    "dense_mincut_pool",
    "DMoNPooling",
    "SortAggregation",
    "SortPooling",
    "from_pyg",
    "from_dgl",
    "from_torch",
]
