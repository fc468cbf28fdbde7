"""Every layer's dropout-like argument is one checked probability (``probability`` in
``arraygnn.nn._module``): torch's ``Dropout(p)`` / ``F.dropout``, which PyG's and DGL's
layers build or call, refuse a number outside ``[0, 1]``; a string or ``None`` was NumPy's
unnamed error or a bare ``TypeError``, and 1.5 / -0.1 were kept silently.
Construction only (no forward): the layers are tiny."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.nn import aggr
from arraygnn.nn._module import probability
from arraygnn.nn.aggr.set_transformer import (
    MultiheadAttentionBlock,
    PoolingByMultiheadAttention,
    SetAttentionBlock,
)

_META = (["a"], [("a", "to", "a")])

# (layer: argument, build(p), attribute keeping the float or None, upper bound included)
CASES = [
    ("APPNPConv: edge_drop", lambda p: agnn.APPNPConv(1, 0.1, edge_drop=p), "edge_drop", True),
    ("ARLinkPredictor: dropout", lambda p: agnn.ARLinkPredictor(2, 2, dropout=p), "dropout", True),
    ("ARMAConv: dropout", lambda p: agnn.ARMAConv(2, 2, dropout=p), "dropout", True),
    ("ASAPooling: dropout", lambda p: agnn.ASAPooling(2, dropout=p), "dropout", False),
    ("AttentiveFP: dropout", lambda p: agnn.AttentiveFP(2, 2, 2, 2, 1, 1, p), "dropout", True),
    ("BiasedMHA: attn_drop", lambda p: agnn.BiasedMHA(2, 1, attn_drop=p), "attn_drop", True),
    ("ClusterPooling: dropout", lambda p: agnn.ClusterPooling(2, dropout=p), "dropout", False),
    ("DenseGATConv: dropout", lambda p: agnn.DenseGATConv(2, 2, dropout=p), "dropout", True),
    ("DMoNPooling: dropout", lambda p: agnn.DMoNPooling(2, 2, dropout=p), "dropout", True),
    ("DGLHGTConv: dropout", lambda p: agnn.DGLHGTConv(2, 2, 1, 1, 1, dropout=p), "dropout", True),
    (
        "SetTransformerEncoder: dropouth",
        lambda p: agnn.SetTransformerEncoder(2, 1, 2, 2, dropouth=p),
        "dropouth",
        True,
    ),
    (
        "SetTransformerDecoder: dropouta",
        lambda p: agnn.SetTransformerDecoder(2, 1, 2, 2, 1, 1, dropouta=p),
        "dropouta",
        True,
    ),
    (
        "DGLPNAConv: dropout",
        lambda p: agnn.DGLPNAConv(2, 2, ["mean"], ["identity"], 1.0, p),
        "dropout",
        True,
    ),
    (
        "EdgeGATConv: feat_drop",
        lambda p: agnn.EdgeGATConv(2, 2, 2, 1, feat_drop=p),
        "feat_drop",
        True,
    ),
    ("GatedGCNConv: dropout", lambda p: agnn.GatedGCNConv(2, 2, 2, dropout=p), "dropout", True),
    ("DNAConv: dropout", lambda p: agnn.DNAConv(2, dropout=p), "dropout", True),
    ("EdgePooling: dropout", lambda p: agnn.EdgePooling(2, dropout=p), "dropout", False),
    ("EGTLayer: dropout", lambda p: agnn.EGTLayer(2, 2, 1, 0, dropout=p), "dropout", True),
    (
        "EGTLayer: attn_dropout",
        lambda p: agnn.EGTLayer(2, 2, 1, 0, attn_dropout=p),
        "attn_dropout",
        True,
    ),
    ("FAConv: dropout", lambda p: agnn.FAConv(2, dropout=p), "dropout", True),
    ("GPSConv: dropout", lambda p: agnn.GPSConv(2, None, dropout=p), "dropout", True),
    (
        "GPSE: dropout",
        lambda p: agnn.GPSE(
            2, 2, 2, layers_mp=1, num_node_targets=1, num_graph_targets=1, dropout=p
        ),
        None,
        True,
    ),
    (
        "GPSENodeEncoder: dropout_be",
        lambda p: agnn.GPSENodeEncoder(4, 2, 2, dropout_be=p),
        None,
        True,
    ),
    (
        "GPSENodeEncoder: dropout_ae",
        lambda p: agnn.GPSENodeEncoder(4, 2, 2, dropout_ae=p),
        None,
        True,
    ),
    (
        "GraphormerLayer: dropout",
        lambda p: agnn.GraphormerLayer(2, 2, 1, dropout=p),
        "dropout",
        True,
    ),
    (
        "GraphormerLayer: attn_dropout",
        lambda p: agnn.GraphormerLayer(2, 2, 1, attn_dropout=p),
        None,
        True,
    ),
    ("HANConv: dropout", lambda p: agnn.HANConv(2, 2, _META, dropout=p), "dropout", True),
    ("HEATConv: dropout", lambda p: agnn.HEATConv(2, 2, 1, 1, 1, 1, 1, dropout=p), "dropout", True),
    ("HypergraphConv: dropout", lambda p: agnn.HypergraphConv(2, 2, dropout=p), "dropout", True),
    ("LINKX: dropout", lambda p: agnn.LINKX(2, 2, 2, 2, 1, dropout=p), "dropout", True),
    ("LPFormer: gnn_dropout", lambda p: agnn.LPFormer(2, 2, gnn_dropout=p), "gnn_dropout", True),
    (
        "LPFormer: transformer_dropout",
        lambda p: agnn.LPFormer(2, 2, transformer_dropout=p),
        "transformer_dropout",
        True,
    ),
    (
        "DeepGCNLayer: dropout",
        lambda p: agnn.DeepGCNLayer(agnn.GCNConv(2, 2), dropout=p),
        "dropout",
        True,
    ),
    ("GCN: dropout", lambda p: agnn.GCN(2, 2, 1, dropout=p), "dropout", True),
    ("MLP: dropout", lambda p: agnn.MLP([2, 2], dropout=p, plain_last=False), None, True),
    ("MLP: dropout\\[1\\]", lambda p: agnn.MLP([2, 2, 2], dropout=[0.0, p]), None, True),
    (
        "MultiheadAttention: dropout",
        lambda p: agnn.MultiheadAttention(2, 1, dropout=p),
        "dropout",
        True,
    ),
    (
        "PerformerAttention: dropout",
        lambda p: agnn.PerformerAttention(2, 1, 2, dropout=p),
        "dropout",
        True,
    ),
    ("PMLP: dropout", lambda p: agnn.PMLP(2, 2, 2, 1, dropout=p), "dropout", True),
    (
        "PolynormerAttention: dropout",
        lambda p: agnn.PolynormerAttention(2, 1, 2, dropout=p),
        "dropout",
        True,
    ),
    (
        "Polynormer: in_dropout",
        lambda p: agnn.Polynormer(2, 2, 2, 1, 1, in_dropout=p),
        "in_dropout",
        True,
    ),
    ("Polynormer: dropout", lambda p: agnn.Polynormer(2, 2, 2, 1, 1, dropout=p), "dropout", True),
    (
        "Polynormer: global_dropout",
        lambda p: agnn.Polynormer(2, 2, 2, 1, 0, global_dropout=p),
        None,
        True,
    ),
    ("QFormer: dropout", lambda p: agnn.QFormer(2, 2, 2, 1, 1, dropout=p), "dropout", True),
    ("RENet: dropout", lambda p: agnn.RENet(2, 2, 2, 1, dropout=p), "dropout", True),
    ("RECT_L: dropout", lambda p: agnn.RECT_L(2, 2, dropout=p), "dropout", True),
    ("RGATConv: dropout", lambda p: agnn.RGATConv(2, 2, 1, dropout=p), "dropout", True),
    ("RelGraphConv: dropout", lambda p: agnn.RelGraphConv(2, 2, 1, dropout=p), None, True),
    (
        "SGFormer: trans_dropout",
        lambda p: agnn.SGFormer(2, 2, 2, 1, gnn_num_layers=1, trans_dropout=p),
        "trans_dropout",
        True,
    ),
    (
        "SGFormer: gnn_dropout",
        lambda p: agnn.SGFormer(2, 2, 2, 1, gnn_num_layers=1, gnn_dropout=p),
        "gnn_dropout",
        True,
    ),
    ("SuperGATConv: dropout", lambda p: agnn.SuperGATConv(2, 2, dropout=p), "dropout", True),
    ("TWIRLSConv: dropout", lambda p: agnn.TWIRLSConv(2, 2, 2, 1, dropout=p), "dropout", True),
    (
        "TWIRLSConv: attn_dropout",
        lambda p: agnn.TWIRLSConv(2, 2, 2, 1, attn_dropout=p),
        "attn_dropout",
        True,
    ),
    (
        "TWIRLSConv: inp_dropout",
        lambda p: agnn.TWIRLSConv(2, 2, 2, 1, inp_dropout=p),
        "inp_dropout",
        True,
    ),
    (
        "MultiheadAttentionBlock: dropout",
        lambda p: MultiheadAttentionBlock(2, dropout=p),
        "dropout",
        True,
    ),
    ("SetAttentionBlock: dropout", lambda p: SetAttentionBlock(2, dropout=p), None, True),
    (
        "PoolingByMultiheadAttention: dropout",
        lambda p: PoolingByMultiheadAttention(2, dropout=p),
        None,
        True,
    ),
    (
        "SetTransformerAggregation: dropout",
        lambda p: aggr.SetTransformerAggregation(2, dropout=p),
        "dropout",
        True,
    ),
    (
        "GraphMultisetTransformer: dropout",
        lambda p: aggr.GraphMultisetTransformer(2, 1, dropout=p),
        "dropout",
        True,
    ),
    (
        "PatchTransformerAggregation: dropout",
        lambda p: aggr.PatchTransformerAggregation(2, 2, 1, 2, 0, dropout=p),
        None,
        True,
    ),
]


@pytest.mark.parametrize(
    "what,make,attr,closed", CASES, ids=[c[0].replace("\\", "") for c in CASES]
)
def test_dropout_is_a_probability(what, make, attr, closed):
    for bad in (1.5, -0.1) + (() if closed else (1.0,)):
        with pytest.raises(ValueError, match=f"{what} must be a probability in \\[0, 1"):
            make(bad)
    for bad in ("0.5", None):  # models.BasicGNN keeps its wording: "must be a float"
        with pytest.raises(TypeError, match=f"{what} must be a (real number|float)"):
            make(bad)
    for good in (0.0, 1.0) if closed else (0.0,):
        make(good)
    layer = make(np.float32(0.5))
    if attr is not None:
        value = getattr(layer, attr)
        assert type(value) is float and value == 0.5


def test_probability_helper():
    assert probability("L", "p", np.array([0.25])) == 0.25
    with pytest.raises(ValueError, match=r"L: p must be a probability in \[0, 1\], got nan"):
        probability("L", "p", float("nan"))
    with pytest.raises(ValueError, match=r"L: p must be a probability in \[0, 1\), got 1"):
        probability("L", "p", 1, below_one=True)
    with pytest.raises(TypeError, match="L: p must be a real number, got True"):
        probability("L", "p", True)
