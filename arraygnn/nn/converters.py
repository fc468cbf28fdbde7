"""Converters that live beside their layers, found by ``from_pyg`` / ``from_dgl`` by name.

Each table maps a reference class name (``type(module).__name__``) to
``"arraygnn.nn.some_module:function"``. The function is called as
``function(module, dtype, convert)`` where ``dtype`` is the module's NumPy dtype and
``convert`` is ``from_pyg`` / ``from_dgl`` itself (for nested modules), and returns the
arraygnn layer with the weights loaded. The layer module is imported only when one of
its classes is converted, so ``import arraygnn.nn`` does not grow with the table.

>>> from arraygnn.nn.converters import converter
>>> converter("pyg", "NoSuchConv") is None
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["PYG", "DGL", "TORCH", "converter"]

#: PyG class name -> "module:function"
PYG: dict[str, str] = {
    "EdgePooling": "arraygnn.nn.edge_pool:from_pyg_module",
    "ASAPooling": "arraygnn.nn.asap_pool:from_pyg_module",
    "PANConv": "arraygnn.nn.pan:conv_from_pyg_module",
    "PANPooling": "arraygnn.nn.pan:pool_from_pyg_module",
    "MemPooling": "arraygnn.nn.mem_pool:from_pyg_module",
    "ClusterPooling": "arraygnn.nn.cluster_pool:from_pyg_module",
    "GPSConv": "arraygnn.nn.gps_conv:from_pyg_module",
    "GPSE": "arraygnn.nn.gpse:from_pyg_module",
    "GPSENodeEncoder": "arraygnn.nn.gpse:encoder_from_pyg_module",
    "DNAConv": "arraygnn.nn.dna_conv:from_pyg_module",
    "PerformerAttention": "arraygnn.nn.performer_attention:from_pyg_module",
    "SGFormerAttention": "arraygnn.nn.sgformer:attention_from_pyg_module",
    "SGFormer": "arraygnn.nn.sgformer:from_pyg_module",
    "PolynormerAttention": "arraygnn.nn.polynormer:attention_from_pyg_module",
    "Polynormer": "arraygnn.nn.polynormer:from_pyg_module",
    "QFormer": "arraygnn.nn.qformer:from_pyg_module",
    "HANConv": "arraygnn.nn.han_conv:from_pyg_module",
    "HEATConv": "arraygnn.nn.heat_conv:from_pyg_module",
    "HypergraphConv": "arraygnn.nn.hypergraph_conv:from_pyg_module",
    "AGNNConv": "arraygnn.nn.dot_gat_conv:agnn_from_pyg_module",
    "WLConv": "arraygnn.nn.wl_conv:from_pyg_module",
    "WLConvContinuous": "arraygnn.nn.wl_conv_continuous:from_pyg_module",
    "InnerProductDecoder": "arraygnn.nn.autoencoders:from_pyg_module",
    "GAE": "arraygnn.nn.autoencoders:from_pyg_module",
    "VGAE": "arraygnn.nn.autoencoders:from_pyg_module",
    "ARGA": "arraygnn.nn.autoencoders:from_pyg_module",
    "ARGVA": "arraygnn.nn.autoencoders:from_pyg_module",
    "LabelPropagation": "arraygnn.nn.label_propagation:from_pyg_module",
    "CorrectAndSmooth": "arraygnn.nn.label_propagation:from_pyg_module",
    "LightGCN": "arraygnn.nn.lightgcn:from_pyg_module",
    "LINKX": "arraygnn.nn.linkx:from_pyg_module",
    "DeepGCNLayer": "arraygnn.nn.model_blocks:from_pyg_module",
    "MetaLayer": "arraygnn.nn.model_blocks:from_pyg_module",
    "HeteroJumpingKnowledge": "arraygnn.nn.hetero_jumping_knowledge:from_pyg_module",
    "MaskLabel": "arraygnn.nn.mask_label:from_pyg_module",
    "PMLP": "arraygnn.nn.pmlp:from_pyg_module",
    "RECT_L": "arraygnn.nn.rect:from_pyg_module",
    "NeuralFingerprint": "arraygnn.nn.neural_fingerprint:from_pyg_module",
    "SignedGCN": "arraygnn.nn.signed_gcn:from_pyg_module",
    "ARLinkPredictor": "arraygnn.nn.ar_link_predictor:from_pyg_module",
    "LPFormer": "arraygnn.nn.lpformer:from_pyg_module",
    "GraphUNet": "arraygnn.nn.graph_unet:from_pyg_module",
    "AttentiveFP": "arraygnn.nn.attentive_fp:from_pyg_module",
    "PointTransformerConv": "arraygnn.nn.point_transformer_conv:from_pyg_module",
    "PPFConv": "arraygnn.nn.ppf_conv:from_pyg_module",
    "PointGNNConv": "arraygnn.nn.point_gnn_conv:from_pyg_module",
    "XConv": "arraygnn.nn.x_conv:from_pyg_module",
    "SuperGATConv": "arraygnn.nn.super_gat_conv:from_pyg_module",
    "RGATConv": "arraygnn.nn.rgat_conv:from_pyg_module",
    "EGConv": "arraygnn.nn.eg_conv:from_pyg_module",
    "GMMConv": "arraygnn.nn.gmm_conv:from_pyg_module",
    "SplineConv": "arraygnn.nn.spline_conv:from_pyg_module",
    "MeshCNNConv": "arraygnn.nn.mesh_cnn_conv:from_pyg_module",
    "TransE": "arraygnn.nn.kge.transe:from_pyg_module",
    "DistMult": "arraygnn.nn.kge.distmult:from_pyg_module",
    "ComplEx": "arraygnn.nn.kge.complex:from_pyg_module",
    "RotatE": "arraygnn.nn.kge.rotate:from_pyg_module",
    "Node2Vec": "arraygnn.nn.node2vec:from_pyg_module",
    "MetaPath2Vec": "arraygnn.nn.metapath2vec:from_pyg_module",
    "PositionalEncoding": "arraygnn.nn.encoding:from_pyg_module",
    "TemporalEncoding": "arraygnn.nn.encoding:from_pyg_module",
    "SchNet": "arraygnn.nn.schnet:from_pyg_module",
    "DimeNet": "arraygnn.nn.dimenet:from_pyg_module",
    "DimeNetPlusPlus": "arraygnn.nn.dimenet:from_pyg_module",
    "DeepGraphInfomax": "arraygnn.nn.deep_graph_infomax:from_pyg_module",
    "ViSNet": "arraygnn.nn.visnet:from_pyg_module",
    "ViSNetBlock": "arraygnn.nn.visnet:from_pyg_module",
    "TGNMemory": "arraygnn.nn.tgn:from_pyg_module",
    "TimeEncoder": "arraygnn.nn.tgn:from_pyg_module",
    "IdentityMessage": "arraygnn.nn.tgn:from_pyg_module",
    "LastAggregator": "arraygnn.nn.tgn:from_pyg_module",
    "MeanAggregator": "arraygnn.nn.tgn:from_pyg_module",
    "GroupAddRev": "arraygnn.nn.rev_gnn:from_pyg_module",
    "RENet": "arraygnn.nn.re_net:from_pyg_module",
    "GNNFF": "arraygnn.nn.gnnff:from_pyg_module",
    "EquilibriumAggregation": "arraygnn.nn.aggr.equilibrium:from_pyg_module",
    "Reshape": "arraygnn.nn.reshape:from_pyg_module",
    "Sequential": "arraygnn.nn.graph_sequential:from_pyg_module",
    "GraphModule": "arraygnn.nn.fx_program:from_pyg_graph_module",
    "TrimToLayer": "arraygnn.nn.fx_program:trim_from_pyg_module",
    "HeteroBasisConv": "arraygnn.nn.to_hetero_with_bases:basis_conv_from_pyg",
    "LinearAlign": "arraygnn.nn.to_hetero_with_bases:linear_align_from_pyg",
}

#: torch.nn class name (``from_torch``) -> "module:function"
TORCH: dict[str, str] = {
    "MultiheadAttention": "arraygnn.nn.multihead_attention:from_torch_module",
}

#: DGL class name (PyTorch backend) -> "module:function"
DGL: dict[str, str] = {
    "GMMConv": "arraygnn.nn.gmm_conv:from_dgl_module",
    "EGATConv": "arraygnn.nn.egat_conv:from_dgl_module",
    "GatedGCNConv": "arraygnn.nn.gated_gcn_conv:from_dgl_module",
    "EGNNConv": "arraygnn.nn.egnn_conv:from_dgl_module",
    "CFConv": "arraygnn.nn.dgl_cf_conv:from_dgl_module",
    "APPNPConv": "arraygnn.nn.appnp_conv:from_dgl_module",
    "LabelPropagation": "arraygnn.nn.label_propagation:from_dgl_module",
    "DGNConv": "arraygnn.nn.dgn_conv:from_dgl_module",
    "PNAConv": "arraygnn.nn.dgn_conv:from_dgl_pna",
    "DenseChebConv": "arraygnn.nn.dense_cheb_conv:from_dgl_module",
    "AtomicConv": "arraygnn.nn.atomic_conv:from_dgl_module",
    "WeightAndSum": "arraygnn.nn.weight_and_sum:from_dgl_module",
    "EdgeWeightNorm": "arraygnn.nn.edge_weight_norm:from_dgl_module",
    "TWIRLSConv": "arraygnn.nn.twirls_conv:from_dgl_module",
    "DegreeEncoder": "arraygnn.nn.degree_encoder:from_dgl_module",
    "SpatialEncoder": "arraygnn.nn.spatial_encoder:from_dgl_module",
    "SpatialEncoder3d": "arraygnn.nn.spatial_encoder:from_dgl_module",
    "PathEncoder": "arraygnn.nn.path_encoder:from_dgl_module",
    "BiasedMHA": "arraygnn.nn.biased_mha:from_dgl_module",
    "GraphormerLayer": "arraygnn.nn.graphormer_layer:from_dgl_module",
    "EGTLayer": "arraygnn.nn.egt_layer:from_dgl_module",
    "SetTransformerEncoder": "arraygnn.nn.dgl_set_transformer:from_dgl_module",
    "SetTransformerDecoder": "arraygnn.nn.dgl_set_transformer:from_dgl_module",
    "JumpingKnowledge": "arraygnn.nn.dgl_jumping_knowledge:from_dgl_module",
    "WeightBasis": "arraygnn.nn.weight_basis:from_dgl_module",
    "Sequential": "arraygnn.nn.dgl_sequential:from_dgl_module",
    "LapPosEncoder": "arraygnn.nn.lap_pos_encoder:from_dgl_module",
    "EdgeGATConv": "arraygnn.nn.edge_gat_conv:from_dgl_module",
    "EdgePredictor": "arraygnn.nn.edge_predictor:from_dgl_module",
    "TransR": "arraygnn.nn.transr:from_dgl_module",
    "DeepWalk": "arraygnn.nn.deepwalk:from_dgl_module",
    "RadiusGraph": "arraygnn.nn.radius_graph_module:from_dgl_module",
    "GroupRevRes": "arraygnn.nn.rev_gnn:from_dgl_module",
}


def converter(source: str, kind: str) -> Callable[[Any, Any, Any], Any] | None:
    """The registered converter for ``kind`` from ``source`` (``"pyg"``, ``"dgl"`` or
    ``"torch"``), or ``None`` when there is none."""
    table = {"pyg": PYG, "dgl": DGL, "torch": TORCH}[source]
    target = table.get(kind)
    if target is None:
        return None
    module_name, _, function = target.partition(":")
    return getattr(importlib.import_module(module_name), function)
