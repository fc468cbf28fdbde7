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

from typing import TYPE_CHECKING

from arraygnn._lazy import attach

if TYPE_CHECKING:  # what the lazy table below provides, for type checkers and editors
    from arraygnn.nn import aggr, functional, norm
    from arraygnn.nn.aggr import (  # PyG exports its aggregations from torch_geometric.nn too
        Aggregation,
        DeepSetsAggregation,
        DegreeScalerAggregation,
        EquilibriumAggregation,
        GraphMultisetTransformer,
        GRUAggregation,
        LCMAggregation,
        LSTMAggregation,
        MaxAggregation,
        MeanAggregation,
        MedianAggregation,
        MinAggregation,
        MLPAggregation,
        MulAggregation,
        MultiAggregation,
        PatchTransformerAggregation,
        PowerMeanAggregation,
        QuantileAggregation,
        SetTransformerAggregation,
        SoftmaxAggregation,
        StdAggregation,
        SumAggregation,
        VarAggregation,
        VariancePreservingAggregation,
    )
    from arraygnn.nn.antisymmetric_conv import AntiSymmetricConv
    from arraygnn.nn.appnp_conv import APPNPConv
    from arraygnn.nn.approx_knn import approx_knn, approx_knn_graph
    from arraygnn.nn.ar_link_predictor import ARLinkPredictor
    from arraygnn.nn.arma_conv import ARMAConv
    from arraygnn.nn.asap_pool import ASAPooling
    from arraygnn.nn.atomic_conv import AtomicConv
    from arraygnn.nn.attentive_fp import AttentiveFP
    from arraygnn.nn.autoencoders import ARGA, ARGVA, GAE, VGAE, InnerProductDecoder
    from arraygnn.nn.biased_mha import BiasedMHA
    from arraygnn.nn.cg_conv import CGConv
    from arraygnn.nn.cluster_gcn_conv import ClusterGCNConv
    from arraygnn.nn.cluster_pool import ClusterPooling
    from arraygnn.nn.deep_graph_infomax import DeepGraphInfomax
    from arraygnn.nn.deepwalk import DeepWalk
    from arraygnn.nn.degree_encoder import DegreeEncoder
    from arraygnn.nn.dense_cheb_conv import DenseChebConv
    from arraygnn.nn.dense_conv import (
        DenseGATConv,
        DenseGCNConv,
        DenseGINConv,
        DenseGraphConv,
        DenseSAGEConv,
    )
    from arraygnn.nn.dense_pool import DMoNPooling, dense_diff_pool, dense_mincut_pool
    from arraygnn.nn.dgl_cf_conv import DGLCFConv
    from arraygnn.nn.dgl_hetero_linear import DGLHeteroLinear, HeteroEmbedding
    from arraygnn.nn.dgl_hgt_conv import DGLHGTConv
    from arraygnn.nn.dgl_jumping_knowledge import DGLJumpingKnowledge
    from arraygnn.nn.dgl_sequential import DGLSequential
    from arraygnn.nn.dgl_set_transformer import SetTransformerDecoder, SetTransformerEncoder
    from arraygnn.nn.dgn_conv import DGLPNAConv, DGNConv
    from arraygnn.nn.dimenet import DimeNet, DimeNetPlusPlus
    from arraygnn.nn.dir_gnn_conv import DirGNNConv
    from arraygnn.nn.dna_conv import DNAConv
    from arraygnn.nn.dot_gat_conv import AGNNConv, DotGatConv
    from arraygnn.nn.edge_conv import DynamicEdgeConv, EdgeConv
    from arraygnn.nn.edge_gat_conv import EdgeGATConv
    from arraygnn.nn.edge_pool import EdgePooling
    from arraygnn.nn.edge_predictor import EdgePredictor
    from arraygnn.nn.edge_weight_norm import EdgeWeightNorm
    from arraygnn.nn.eg_conv import EGConv
    from arraygnn.nn.egat_conv import EGATConv
    from arraygnn.nn.egnn_conv import EGNNConv
    from arraygnn.nn.egt_layer import EGTLayer
    from arraygnn.nn.embedding import Embedding, EmbeddingBag
    from arraygnn.nn.encoding import PositionalEncoding, TemporalEncoding
    from arraygnn.nn.fa_conv import FAConv
    from arraygnn.nn.feast_conv import FeaStConv
    from arraygnn.nn.film_conv import FiLMConv
    from arraygnn.nn.functional import bro, gini
    from arraygnn.nn.gat_conv import GATConv
    from arraygnn.nn.gated_gcn_conv import GatedGCNConv
    from arraygnn.nn.gated_graph_conv import GatedGraphConv, ResGatedGraphConv
    from arraygnn.nn.gatv2_conv import GATv2Conv
    from arraygnn.nn.gcn2_conv import GCN2Conv
    from arraygnn.nn.gen_conv import GENConv
    from arraygnn.nn.general_conv import GeneralConv
    from arraygnn.nn.gin_conv import GINConv, GINEConv
    from arraygnn.nn.gmm_conv import DGLGMMConv, GMMConv
    from arraygnn.nn.gnnff import GNNFF
    from arraygnn.nn.gps_conv import GPSConv
    from arraygnn.nn.gpse import GPSE, GPSENodeEncoder
    from arraygnn.nn.graph_conv import GCNConv, GraphConv, add_remaining_self_loops, gcn_norm
    from arraygnn.nn.graph_unet import GraphUNet
    from arraygnn.nn.graphormer_layer import GraphormerLayer
    from arraygnn.nn.grav_net_conv import GravNetConv
    from arraygnn.nn.han_conv import HANConv
    from arraygnn.nn.heat_conv import HEATConv
    from arraygnn.nn.hetero_conv import HeteroConv, HeteroGraphConv
    from arraygnn.nn.hetero_jumping_knowledge import HeteroJumpingKnowledge
    from arraygnn.nn.hetero_linear import HeteroDictLinear, HeteroLinear
    from arraygnn.nn.hgt_conv import HGTConv
    from arraygnn.nn.hypergraph_conv import HypergraphConv
    from arraygnn.nn.kge import ComplEx, DistMult, KGEModel, RotatE, TransE
    from arraygnn.nn.knn_graph_module import KNNGraph, SegmentedKNNGraph
    from arraygnn.nn.knn_index import (
        ApproxL2KNNIndex,
        ApproxMIPSKNNIndex,
        KNNIndex,
        KNNOutput,
        L2KNNIndex,
        MIPSKNNIndex,
    )
    from arraygnn.nn.label_propagation import CorrectAndSmooth, LabelPropagation
    from arraygnn.nn.lap_pos_encoder import LapPosEncoder
    from arraygnn.nn.le_conv import LEConv
    from arraygnn.nn.lg_conv import LGConv
    from arraygnn.nn.lightgcn import LightGCN
    from arraygnn.nn.linear import (
        GRU,
        LSTM,
        MLP,
        BatchNorm,
        GRUCell,
        LayerNorm,
        Linear,
        PReLU,
        Sequential,
    )
    from arraygnn.nn.linkx import LINKX
    from arraygnn.nn.lpformer import LPFormer
    from arraygnn.nn.mask_label import MaskLabel
    from arraygnn.nn.mem_pool import MemPooling
    from arraygnn.nn.mesh_cnn_conv import MeshCNNConv
    from arraygnn.nn.message_passing import MessagePassing
    from arraygnn.nn.metapath2vec import MetaPath2Vec
    from arraygnn.nn.mf_conv import MFConv
    from arraygnn.nn.mix_hop_conv import MixHopConv
    from arraygnn.nn.model_blocks import DeepGCNLayer, MetaLayer
    from arraygnn.nn.models import GAT, GCN, GIN, PNA, EdgeCNN, GraphSAGE, JumpingKnowledge
    from arraygnn.nn.multihead_attention import MultiheadAttention
    from arraygnn.nn.neural_fingerprint import NeuralFingerprint
    from arraygnn.nn.nn_conv import NNConv
    from arraygnn.nn.node2vec import Node2Vec
    from arraygnn.nn.norm import (
        DiffGroupNorm,
        GraphNorm,
        GraphSizeNorm,
        HeteroBatchNorm,
        HeteroLayerNorm,
        InstanceNorm,
        MeanSubtractionNorm,
        MessageNorm,
        PairNorm,
    )
    from arraygnn.nn.pan import PANConv, PANPooling
    from arraygnn.nn.path_encoder import PathEncoder
    from arraygnn.nn.pdn_conv import PDNConv
    from arraygnn.nn.performer_attention import PerformerAttention
    from arraygnn.nn.pmlp import PMLP
    from arraygnn.nn.pna_conv import PNAConv
    from arraygnn.nn.point_gnn_conv import PointGNNConv
    from arraygnn.nn.point_net_conv import PointNetConv
    from arraygnn.nn.point_transformer_conv import PointTransformerConv
    from arraygnn.nn.polynormer import Polynormer, PolynormerAttention
    from arraygnn.nn.pool import SAGPooling, TopKPooling
    from arraygnn.nn.pool_cluster import (
        avg_pool,
        avg_pool_neighbor_x,
        avg_pool_x,
        graclus,
        max_pool,
        max_pool_neighbor_x,
        max_pool_x,
    )
    from arraygnn.nn.pool_points import fps, nearest, voxel_grid
    from arraygnn.nn.ppf_conv import PPFConv
    from arraygnn.nn.qformer import QFormer
    from arraygnn.nn.radius_graph_module import RadiusGraph
    from arraygnn.nn.re_net import RENet
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
    from arraygnn.nn.rect import RECT_L
    from arraygnn.nn.relation_groups import RelationGroups, group_relations
    from arraygnn.nn.reshape import Reshape
    from arraygnn.nn.rev_gnn import GroupAddRev, GroupRevRes
    from arraygnn.nn.rgat_conv import RGATConv
    from arraygnn.nn.rgcn_conv import RelGraphConv, RGCNConv, TypedLinear
    from arraygnn.nn.rgcn_conv import RGCNConv as FastRGCNConv  # PyG's name, same layer
    from arraygnn.nn.sage_conv import SAGEConv
    from arraygnn.nn.schnet import SchNet
    from arraygnn.nn.sgc import APPNP, ChebConv, SGConv, TAGConv, propagate_hops
    from arraygnn.nn.sgformer import SGFormer, SGFormerAttention
    from arraygnn.nn.signed_conv import SignedConv
    from arraygnn.nn.signed_gcn import SignedGCN
    from arraygnn.nn.simple_conv import SimpleConv
    from arraygnn.nn.spatial_encoder import SpatialEncoder, SpatialEncoder3d
    from arraygnn.nn.spline_conv import SplineConv, spline_basis
    from arraygnn.nn.ssg_conv import SSGConv
    from arraygnn.nn.summary import summary
    from arraygnn.nn.super_gat_conv import SuperGATConv
    from arraygnn.nn.tgn import (
        IdentityMessage,
        LastAggregator,
        LastNeighborLoader,
        MeanAggregator,
        TGNMemory,
        TimeEncoder,
    )
    from arraygnn.nn.to_hetero import to_hetero
    from arraygnn.nn.to_hetero_with_bases import to_hetero_with_bases
    from arraygnn.nn.transformer_conv import TransformerConv
    from arraygnn.nn.transr import TransR
    from arraygnn.nn.twirls_conv import TWIRLSConv
    from arraygnn.nn.unpool import knn_interpolate
    from arraygnn.nn.visnet import ViSNet
    from arraygnn.nn.weight_and_sum import WeightAndSum
    from arraygnn.nn.weight_basis import WeightBasis
    from arraygnn.nn.weights import from_dgl, from_pyg, from_torch
    from arraygnn.nn.wl_conv import WLConv
    from arraygnn.nn.wl_conv_continuous import WLConvContinuous
    from arraygnn.nn.x_conv import XConv
    from arraygnn.utils.knn import knn, knn_graph, radius, radius_graph  # PyG's nn exports them

#: module -> the public names it provides, imported on first use (arraygnn._lazy): importing
#: one layer loads that layer's modules, not all of arraygnn.nn.
#: tests/test_api_surface.py checks this table against the imports above.
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "arraygnn.nn.aggr": (
        "Aggregation",
        "DeepSetsAggregation",
        "DegreeScalerAggregation",
        "EquilibriumAggregation",
        "GraphMultisetTransformer",
        "GRUAggregation",
        "LCMAggregation",
        "LSTMAggregation",
        "MaxAggregation",
        "MeanAggregation",
        "MedianAggregation",
        "MinAggregation",
        "MLPAggregation",
        "MulAggregation",
        "MultiAggregation",
        "PatchTransformerAggregation",
        "PowerMeanAggregation",
        "QuantileAggregation",
        "SetTransformerAggregation",
        "SoftmaxAggregation",
        "StdAggregation",
        "SumAggregation",
        "VarAggregation",
        "VariancePreservingAggregation",
    ),
    "arraygnn.nn.antisymmetric_conv": ("AntiSymmetricConv",),
    "arraygnn.nn.appnp_conv": ("APPNPConv",),
    "arraygnn.nn.approx_knn": ("approx_knn", "approx_knn_graph"),
    "arraygnn.nn.ar_link_predictor": ("ARLinkPredictor",),
    "arraygnn.nn.arma_conv": ("ARMAConv",),
    "arraygnn.nn.asap_pool": ("ASAPooling",),
    "arraygnn.nn.atomic_conv": ("AtomicConv",),
    "arraygnn.nn.attentive_fp": ("AttentiveFP",),
    "arraygnn.nn.autoencoders": ("ARGA", "ARGVA", "GAE", "VGAE", "InnerProductDecoder"),
    "arraygnn.nn.biased_mha": ("BiasedMHA",),
    "arraygnn.nn.cg_conv": ("CGConv",),
    "arraygnn.nn.cluster_gcn_conv": ("ClusterGCNConv",),
    "arraygnn.nn.cluster_pool": ("ClusterPooling",),
    "arraygnn.nn.deep_graph_infomax": ("DeepGraphInfomax",),
    "arraygnn.nn.deepwalk": ("DeepWalk",),
    "arraygnn.nn.degree_encoder": ("DegreeEncoder",),
    "arraygnn.nn.dense_cheb_conv": ("DenseChebConv",),
    "arraygnn.nn.dense_conv": (
        "DenseGATConv",
        "DenseGCNConv",
        "DenseGINConv",
        "DenseGraphConv",
        "DenseSAGEConv",
    ),
    "arraygnn.nn.dense_pool": ("DMoNPooling", "dense_diff_pool", "dense_mincut_pool"),
    "arraygnn.nn.dgl_cf_conv": ("DGLCFConv",),
    "arraygnn.nn.dgl_hetero_linear": ("DGLHeteroLinear", "HeteroEmbedding"),
    "arraygnn.nn.dgl_hgt_conv": ("DGLHGTConv",),
    "arraygnn.nn.dgl_jumping_knowledge": ("DGLJumpingKnowledge",),
    "arraygnn.nn.dgl_sequential": ("DGLSequential",),
    "arraygnn.nn.dgl_set_transformer": ("SetTransformerDecoder", "SetTransformerEncoder"),
    "arraygnn.nn.dgn_conv": ("DGLPNAConv", "DGNConv"),
    "arraygnn.nn.dimenet": ("DimeNet", "DimeNetPlusPlus"),
    "arraygnn.nn.dir_gnn_conv": ("DirGNNConv",),
    "arraygnn.nn.dna_conv": ("DNAConv",),
    "arraygnn.nn.dot_gat_conv": ("AGNNConv", "DotGatConv"),
    "arraygnn.nn.edge_conv": ("DynamicEdgeConv", "EdgeConv"),
    "arraygnn.nn.edge_gat_conv": ("EdgeGATConv",),
    "arraygnn.nn.edge_pool": ("EdgePooling",),
    "arraygnn.nn.edge_predictor": ("EdgePredictor",),
    "arraygnn.nn.edge_weight_norm": ("EdgeWeightNorm",),
    "arraygnn.nn.eg_conv": ("EGConv",),
    "arraygnn.nn.egat_conv": ("EGATConv",),
    "arraygnn.nn.egnn_conv": ("EGNNConv",),
    "arraygnn.nn.egt_layer": ("EGTLayer",),
    "arraygnn.nn.embedding": ("Embedding", "EmbeddingBag"),
    "arraygnn.nn.encoding": ("PositionalEncoding", "TemporalEncoding"),
    "arraygnn.nn.fa_conv": ("FAConv",),
    "arraygnn.nn.feast_conv": ("FeaStConv",),
    "arraygnn.nn.film_conv": ("FiLMConv",),
    "arraygnn.nn.functional": ("bro", "gini"),
    "arraygnn.nn.gat_conv": ("GATConv",),
    "arraygnn.nn.gated_gcn_conv": ("GatedGCNConv",),
    "arraygnn.nn.gated_graph_conv": ("GatedGraphConv", "ResGatedGraphConv"),
    "arraygnn.nn.gatv2_conv": ("GATv2Conv",),
    "arraygnn.nn.gcn2_conv": ("GCN2Conv",),
    "arraygnn.nn.gen_conv": ("GENConv",),
    "arraygnn.nn.general_conv": ("GeneralConv",),
    "arraygnn.nn.gin_conv": ("GINConv", "GINEConv"),
    "arraygnn.nn.gmm_conv": ("DGLGMMConv", "GMMConv"),
    "arraygnn.nn.gnnff": ("GNNFF",),
    "arraygnn.nn.gps_conv": ("GPSConv",),
    "arraygnn.nn.gpse": ("GPSE", "GPSENodeEncoder"),
    "arraygnn.nn.graph_conv": ("GCNConv", "GraphConv", "add_remaining_self_loops", "gcn_norm"),
    "arraygnn.nn.graph_unet": ("GraphUNet",),
    "arraygnn.nn.graphormer_layer": ("GraphormerLayer",),
    "arraygnn.nn.grav_net_conv": ("GravNetConv",),
    "arraygnn.nn.han_conv": ("HANConv",),
    "arraygnn.nn.heat_conv": ("HEATConv",),
    "arraygnn.nn.hetero_conv": ("HeteroConv", "HeteroGraphConv"),
    "arraygnn.nn.hetero_jumping_knowledge": ("HeteroJumpingKnowledge",),
    "arraygnn.nn.hetero_linear": ("HeteroDictLinear", "HeteroLinear"),
    "arraygnn.nn.hgt_conv": ("HGTConv",),
    "arraygnn.nn.hypergraph_conv": ("HypergraphConv",),
    "arraygnn.nn.kge": ("ComplEx", "DistMult", "KGEModel", "RotatE", "TransE"),
    "arraygnn.nn.knn_graph_module": ("KNNGraph", "SegmentedKNNGraph"),
    "arraygnn.nn.knn_index": (
        "ApproxL2KNNIndex",
        "ApproxMIPSKNNIndex",
        "KNNIndex",
        "KNNOutput",
        "L2KNNIndex",
        "MIPSKNNIndex",
    ),
    "arraygnn.nn.label_propagation": ("CorrectAndSmooth", "LabelPropagation"),
    "arraygnn.nn.lap_pos_encoder": ("LapPosEncoder",),
    "arraygnn.nn.le_conv": ("LEConv",),
    "arraygnn.nn.lg_conv": ("LGConv",),
    "arraygnn.nn.lightgcn": ("LightGCN",),
    "arraygnn.nn.linear": (
        "GRU",
        "LSTM",
        "MLP",
        "BatchNorm",
        "GRUCell",
        "LayerNorm",
        "Linear",
        "PReLU",
        "Sequential",
    ),
    "arraygnn.nn.linkx": ("LINKX",),
    "arraygnn.nn.lpformer": ("LPFormer",),
    "arraygnn.nn.mask_label": ("MaskLabel",),
    "arraygnn.nn.mem_pool": ("MemPooling",),
    "arraygnn.nn.mesh_cnn_conv": ("MeshCNNConv",),
    "arraygnn.nn.message_passing": ("MessagePassing",),
    "arraygnn.nn.metapath2vec": ("MetaPath2Vec",),
    "arraygnn.nn.mf_conv": ("MFConv",),
    "arraygnn.nn.mix_hop_conv": ("MixHopConv",),
    "arraygnn.nn.model_blocks": ("DeepGCNLayer", "MetaLayer"),
    "arraygnn.nn.models": ("GAT", "GCN", "GIN", "PNA", "EdgeCNN", "GraphSAGE", "JumpingKnowledge"),
    "arraygnn.nn.multihead_attention": ("MultiheadAttention",),
    "arraygnn.nn.neural_fingerprint": ("NeuralFingerprint",),
    "arraygnn.nn.nn_conv": ("NNConv",),
    "arraygnn.nn.node2vec": ("Node2Vec",),
    "arraygnn.nn.norm": (
        "DiffGroupNorm",
        "GraphNorm",
        "GraphSizeNorm",
        "HeteroBatchNorm",
        "HeteroLayerNorm",
        "InstanceNorm",
        "MeanSubtractionNorm",
        "MessageNorm",
        "PairNorm",
    ),
    "arraygnn.nn.pan": ("PANConv", "PANPooling"),
    "arraygnn.nn.path_encoder": ("PathEncoder",),
    "arraygnn.nn.pdn_conv": ("PDNConv",),
    "arraygnn.nn.performer_attention": ("PerformerAttention",),
    "arraygnn.nn.pmlp": ("PMLP",),
    "arraygnn.nn.pna_conv": ("PNAConv",),
    "arraygnn.nn.point_gnn_conv": ("PointGNNConv",),
    "arraygnn.nn.point_net_conv": ("PointNetConv",),
    "arraygnn.nn.point_transformer_conv": ("PointTransformerConv",),
    "arraygnn.nn.polynormer": ("Polynormer", "PolynormerAttention"),
    "arraygnn.nn.pool": ("SAGPooling", "TopKPooling"),
    "arraygnn.nn.pool_cluster": (
        "avg_pool",
        "avg_pool_neighbor_x",
        "avg_pool_x",
        "graclus",
        "max_pool",
        "max_pool_neighbor_x",
        "max_pool_x",
    ),
    "arraygnn.nn.pool_points": ("fps", "nearest", "voxel_grid"),
    "arraygnn.nn.ppf_conv": ("PPFConv",),
    "arraygnn.nn.qformer": ("QFormer",),
    "arraygnn.nn.radius_graph_module": ("RadiusGraph",),
    "arraygnn.nn.re_net": ("RENet",),
    "arraygnn.nn.readout": (
        "AttentionalAggregation",
        "AvgPooling",
        "GlobalAttentionPooling",
        "MaxPooling",
        "Set2Set",
        "SortAggregation",
        "SortPooling",
        "SumPooling",
        "global_add_pool",
        "global_max_pool",
        "global_mean_pool",
    ),
    "arraygnn.nn.rect": ("RECT_L",),
    "arraygnn.nn.relation_groups": ("RelationGroups", "group_relations"),
    "arraygnn.nn.reshape": ("Reshape",),
    "arraygnn.nn.rev_gnn": ("GroupAddRev", "GroupRevRes"),
    "arraygnn.nn.rgat_conv": ("RGATConv",),
    "arraygnn.nn.rgcn_conv": ("RelGraphConv", "RGCNConv", "TypedLinear"),
    "arraygnn.nn.sage_conv": ("SAGEConv",),
    "arraygnn.nn.schnet": ("SchNet",),
    "arraygnn.nn.sgc": ("APPNP", "ChebConv", "SGConv", "TAGConv", "propagate_hops"),
    "arraygnn.nn.sgformer": ("SGFormer", "SGFormerAttention"),
    "arraygnn.nn.signed_conv": ("SignedConv",),
    "arraygnn.nn.signed_gcn": ("SignedGCN",),
    "arraygnn.nn.simple_conv": ("SimpleConv",),
    "arraygnn.nn.spatial_encoder": ("SpatialEncoder", "SpatialEncoder3d"),
    "arraygnn.nn.spline_conv": ("SplineConv", "spline_basis"),
    "arraygnn.nn.ssg_conv": ("SSGConv",),
    "arraygnn.nn.summary": ("summary",),
    "arraygnn.nn.super_gat_conv": ("SuperGATConv",),
    "arraygnn.nn.tgn": (
        "IdentityMessage",
        "LastAggregator",
        "LastNeighborLoader",
        "MeanAggregator",
        "TGNMemory",
        "TimeEncoder",
    ),
    "arraygnn.nn.to_hetero": ("to_hetero",),
    "arraygnn.nn.to_hetero_with_bases": ("to_hetero_with_bases",),
    "arraygnn.nn.transformer_conv": ("TransformerConv",),
    "arraygnn.nn.transr": ("TransR",),
    "arraygnn.nn.twirls_conv": ("TWIRLSConv",),
    "arraygnn.nn.unpool": ("knn_interpolate",),
    "arraygnn.nn.visnet": ("ViSNet",),
    "arraygnn.nn.weight_and_sum": ("WeightAndSum",),
    "arraygnn.nn.weight_basis": ("WeightBasis",),
    "arraygnn.nn.weights": ("from_dgl", "from_pyg", "from_torch"),
    "arraygnn.nn.wl_conv": ("WLConv",),
    "arraygnn.nn.wl_conv_continuous": ("WLConvContinuous",),
    "arraygnn.nn.x_conv": ("XConv",),
    "arraygnn.utils.knn": ("knn", "knn_graph", "radius", "radius_graph"),
}
_LAZY: dict[str, str] = {name: module for module, names in _LAZY_MODULES.items() for name in names}
_LAZY.update(
    {
        "FastRGCNConv": "arraygnn.nn.rgcn_conv:RGCNConv",
    }
)

__all__ = [
    "aggr",
    "Embedding",
    "EmbeddingBag",
    "Aggregation",
    "DeepSetsAggregation",
    "DegreeScalerAggregation",
    "EquilibriumAggregation",
    "GRUAggregation",
    "GraphMultisetTransformer",
    "LCMAggregation",
    "LSTMAggregation",
    "MLPAggregation",
    "MaxAggregation",
    "MeanAggregation",
    "MedianAggregation",
    "MinAggregation",
    "MulAggregation",
    "MultiAggregation",
    "PatchTransformerAggregation",
    "PowerMeanAggregation",
    "QuantileAggregation",
    "SetTransformerAggregation",
    "SoftmaxAggregation",
    "StdAggregation",
    "SumAggregation",
    "VarAggregation",
    "VariancePreservingAggregation",
    "HeteroBatchNorm",
    "HeteroLayerNorm",
    "knn",
    "knn_graph",
    "radius",
    "radius_graph",
    "norm",
    "functional",
    "DeepGraphInfomax",
    "FastRGCNConv",
    "bro",
    "gini",
    "knn_interpolate",
    "Linear",
    "PReLU",
    "MessagePassing",
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
    "MultiheadAttention",
    "PerformerAttention",
    "SGFormerAttention",
    "PolynormerAttention",
    "QFormer",
    "SGFormer",
    "Polynormer",
    "Sequential",
    "MLP",
    "GCN",
    "GraphSAGE",
    "GIN",
    "GAT",
    "PNA",
    "EdgeCNN",
    "JumpingKnowledge",
    "HeteroJumpingKnowledge",
    "InnerProductDecoder",
    "GAE",
    "VGAE",
    "ARGA",
    "ARGVA",
    "LabelPropagation",
    "CorrectAndSmooth",
    "LightGCN",
    "LINKX",
    "ARLinkPredictor",
    "LPFormer",
    "DeepGCNLayer",
    "MetaLayer",
    "MaskLabel",
    "PMLP",
    "RECT_L",
    "NeuralFingerprint",
    "SignedGCN",
    "GraphUNet",
    "AttentiveFP",
    "GCNConv",
    "GCN2Conv",
    "GraphConv",
    "SAGEConv",
    "GATConv",
    "GATv2Conv",
    "SuperGATConv",
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
    "PointTransformerConv",
    "PPFConv",
    "PointGNNConv",
    "XConv",
    "fps",
    "nearest",
    "voxel_grid",
    "MFConv",
    "FiLMConv",
    "GeneralConv",
    "CGConv",
    "GravNetConv",
    "PDNConv",
    "KNNGraph",
    "SegmentedKNNGraph",
    "KNNIndex",
    "KNNOutput",
    "L2KNNIndex",
    "MIPSKNNIndex",
    "ApproxL2KNNIndex",
    "ApproxMIPSKNNIndex",
    "approx_knn",
    "approx_knn_graph",
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
    "GPSConv",
    "GPSE",
    "GPSENodeEncoder",
    "DNAConv",
    "AntiSymmetricConv",
    "SignedConv",
    "FeaStConv",
    "EGConv",
    "GMMConv",
    "DGLGMMConv",
    "SplineConv",
    "spline_basis",
    "MeshCNNConv",
    "FAConv",
    "ARMAConv",
    "TransformerConv",
    "NNConv",
    "PNAConv",
    "RGCNConv",
    "RelGraphConv",
    "RGATConv",
    "TypedLinear",
    "group_relations",
    "RelationGroups",
    "HeteroConv",
    "HeteroGraphConv",
    "to_hetero",
    "to_hetero_with_bases",
    "HeteroLinear",
    "HeteroDictLinear",
    "DGLHeteroLinear",
    "HeteroEmbedding",
    "HGTConv",
    "DGLHGTConv",
    "EGATConv",
    "EdgeGATConv",
    "EdgePredictor",
    "TransR",
    "DeepWalk",
    "RadiusGraph",
    "GatedGCNConv",
    "EGNNConv",
    "DGLCFConv",
    "EdgeWeightNorm",
    "APPNPConv",
    "DGNConv",
    "DGLPNAConv",
    "DenseChebConv",
    "AtomicConv",
    "WeightAndSum",
    "BiasedMHA",
    "DegreeEncoder",
    "DGLJumpingKnowledge",
    "DGLSequential",
    "SetTransformerEncoder",
    "SetTransformerDecoder",
    "EGTLayer",
    "GraphormerLayer",
    "LapPosEncoder",
    "PathEncoder",
    "SpatialEncoder",
    "SpatialEncoder3d",
    "WeightBasis",
    "TWIRLSConv",
    "HANConv",
    "HEATConv",
    "HypergraphConv",
    "WLConv",
    "WLConvContinuous",
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
    "EdgePooling",
    "ASAPooling",
    "PANConv",
    "PANPooling",
    "MemPooling",
    "ClusterPooling",
    "graclus",
    "max_pool",
    "avg_pool",
    "max_pool_x",
    "avg_pool_x",
    "max_pool_neighbor_x",
    "avg_pool_neighbor_x",
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
    "KGEModel",
    "TransE",
    "DistMult",
    "ComplEx",
    "RotatE",
    "Node2Vec",
    "MetaPath2Vec",
    "PositionalEncoding",
    "TemporalEncoding",
    "TGNMemory",
    "IdentityMessage",
    "LastAggregator",
    "MeanAggregator",
    "TimeEncoder",
    "LastNeighborLoader",
    "SchNet",
    "ViSNet",
    "DimeNet",
    "DimeNetPlusPlus",
    "GroupAddRev",
    "GroupRevRes",
    "RENet",
    "GNNFF",
    "Reshape",
    "summary",
    "from_pyg",
    "from_dgl",
    "from_torch",
]

__getattr__, __dir__ = attach(__name__, _LAZY)
