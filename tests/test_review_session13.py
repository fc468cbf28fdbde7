"""Review of session 13's first commits (0bcf2d2..554bd34): the problems found, each pinned
by a test that failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph_tensor import HIDDEN_STATE, TARGET
from arraygnn.graph_tensor import layers as ag
from tests.graph_tensor import _tfgnn_oracle as oracle

_X = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
_EI = np.array([[0, 1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 5, 0, 3]])


# ---------------- cf010e6: real_number takes a one-element array; its callers kept the raw
# value (float(array([0.1])) / int(array([2])) raise a bare TypeError on NumPy 2)
@pytest.mark.parametrize(
    "make",
    [
        lambda r, m: agnn.TopKPooling(4, ratio=r, min_score=m, rng=0),
        lambda r, m: agnn.SAGPooling(4, ratio=r, min_score=m, rng=0),
    ],
    ids=["topk", "sag"],
)
@pytest.mark.parametrize("ratio,min_score", [(2, None), (0.5, None), (0.5, 0.1)])
def test_topk_poolings_take_one_element_array_settings(make, ratio, min_score):
    want = make(ratio, min_score)
    got = make(np.array([ratio]), None if min_score is None else np.array([min_score]))
    assert repr(got) == repr(want)
    for a, b in zip(got(_X, _EI), want(_X, _EI), strict=True):
        if a is not None:
            np.testing.assert_array_equal(a, b)


def test_asap_edge_mem_pooling_take_one_element_array_settings():
    asap = agnn.ASAPooling(4, ratio=np.array([2]), dropout=np.array([0.0]), rng=0)
    want = agnn.ASAPooling(4, ratio=2, rng=0)
    assert asap.dropout == 0.0 and repr(asap) == repr(want)
    np.testing.assert_array_equal(asap(_X, _EI)[4], want(_X, _EI)[4])
    assert agnn.EdgePooling(4, dropout=np.array([0.25]), rng=0).dropout == 0.25
    assert agnn.MemPooling(4, 3, 2, 2, tau=np.array([2.0]), rng=0).tau == 2.0


# ---------------- 554bd34: drop_prob repeated models._dropout's check (np.number lets a
# complex through: float() drops its imaginary part with a warning) instead of real_number
def test_dgl_dropout_probability_is_a_real_number():
    with pytest.raises(TypeError, match="GatedGCNConv: dropout must be a real number"):
        agnn.GatedGCNConv(4, 4, 4, dropout=np.complex128(0.5))
    with pytest.raises(TypeError, match="EdgeGATConv: attn_drop must be a real number"):
        agnn.EdgeGATConv(4, 2, 3, 2, attn_drop=None)
    assert agnn.GatedGCNConv(4, 4, 4, dropout=np.float32(0.5)).dropout == 0.5


# ---------------- 606c86a: name_set read an iterator twice (all() then set()): a generator
# of node set names updated no node set at all, silently; an int was an unnamed TypeError
@pytest.mark.parametrize("bad", [iter(["paper"]), 5], ids=["iterator", "int"])
def test_builders_refuse_node_set_names_that_are_not_a_collection(bad):
    with pytest.raises(TypeError, match="VanillaMPNNGraphUpdate: node_set_names must be"):
        ag.VanillaMPNNGraphUpdate(units=7, message_dim=4, receiver_tag=TARGET, node_set_names=bad)


def test_builders_take_a_tuple_or_set_of_node_set_names():
    graph = oracle.hetero_graph(3)
    for names in (("paper",), {"paper"}):
        update = ag.VanillaMPNNGraphUpdate(
            units=7, message_dim=4, receiver_tag=TARGET, node_set_names=names, rng=0
        )
        assert update(graph).node_sets["paper"].features[HIDDEN_STATE].shape == (6, 7)


def test_mt_albis_refuses_an_iterator_of_attention_edge_set_names():
    with pytest.raises(TypeError, match="attention_edge_set_names must be"):
        ag.MtAlbisGraphUpdate(
            units=4,
            message_dim=4,
            receiver_tag=TARGET,
            attention_type="gat_v2",
            attention_num_heads=2,
            attention_edge_set_names=(n for n in ["cites"]),
        )


# the same one-pass read in GCNGraphSAGENodeSetUpdate (graph_sage.py, touched by 606c86a):
# an iterator of edge set names left only the self-loop input, silently
@pytest.mark.parametrize("bad", [iter(["e"]), None, 3], ids=["iterator", "none", "int"])
def test_gcn_graph_sage_update_refuses_edge_set_names_that_are_not_a_collection(bad):
    with pytest.raises(TypeError, match="GCNGraphSAGENodeSetUpdate: edge_set_names must be"):
        ag.GCNGraphSAGENodeSetUpdate(
            edge_set_names=bad, receiver_tag=TARGET, units=2, in_features=2
        )
