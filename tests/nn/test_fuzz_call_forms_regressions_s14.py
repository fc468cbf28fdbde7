"""Regressions from the s14 call-form fuzz: one layer, several call forms, one answer (or a
clear error naming the layer)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
import arraygnn.nn as nn

EI = np.array([[0, 1, 2, 3, 0], [1, 2, 3, 0, 0]])


def _x(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((4, 3)).astype(np.float32)


HOMOGENEOUS_ONLY = [
    lambda: nn.SGConv(3, 2, rng=0),
    lambda: nn.APPNP(2, 0.1),
    lambda: nn.TAGConv(3, 2, rng=0),
    lambda: nn.ChebConv(3, 2, K=2, rng=0),
    lambda: nn.ARMAConv(3, 2, rng=0),
    lambda: nn.LGConv(),
    lambda: nn.SSGConv(3, 2, alpha=0.1, rng=0),
    lambda: nn.ClusterGCNConv(3, 2, rng=0),
    lambda: nn.MixHopConv(3, 2, rng=0),
    lambda: nn.GatedGraphConv(3, num_layers=1, rng=0),
]


@pytest.mark.parametrize("make", HOMOGENEOUS_ONLY)
def test_homogeneous_layers_refuse_an_equal_size_feature_pair(make):
    """x_dst was silently dropped when it had as many rows as x_src (PyG and DGL raise)."""
    conv = make()
    name = type(conv).__name__
    g = arraygnn.graph((EI[0], EI[1]), num_nodes=4)
    with pytest.raises(ValueError, match=f"{name} needs a homogeneous graph"):
        conv((_x(0), _x(1)), EI)
    with pytest.raises(ValueError, match=f"{name} needs a homogeneous graph"):
        conv(g, (_x(0), _x(1)))


def test_gcn_pdn_gcn2_refuse_a_pair_in_every_form():
    g = arraygnn.graph((EI[0], EI[1]), num_nodes=4)
    pair = (_x(0), _x(1))
    with pytest.raises(ValueError, match="GCNConv received a pair"):
        nn.GCNConv(3, 2, rng=0)(g, pair)
    ea = np.ones((5, 2), np.float32)
    with pytest.raises(ValueError, match="PDNConv needs a homogeneous graph"):
        nn.PDNConv(3, 2, edge_dim=2, hidden_channels=4, rng=0)(g, pair, ea)
    with pytest.raises(ValueError, match="GCN2Conv: x must be one feature array"):
        nn.GCN2Conv(3, alpha=0.1, rng=0)(pair, _x(2), EI)


def test_block_with_equal_sizes_still_matches_the_edge_list_form():
    g = arraygnn.graph((EI[0], EI[1]), num_nodes=4)
    block = arraygnn.to_block(g, np.arange(4))
    conv = nn.SGConv(3, 2, rng=0)
    np.testing.assert_array_equal(conv(block, _x()), conv(_x(), EI))


def test_sage_gcn_aggregator_without_x_dst_is_a_clear_error():
    with pytest.raises(ValueError, match="SAGEConv: the 'gcn' aggregator"):
        nn.SAGEConv(3, 2, "gcn", rng=0)((_x(), None), EI, size=(4, 4))


def test_integer_features_name_the_layer():
    xi = np.ones((4, 3), np.int64)
    with pytest.raises(TypeError, match="SGConv: node features must be floating point"):
        nn.SGConv(3, 2, rng=0)(xi, EI)
    with pytest.raises(TypeError, match="GCN2Conv: node features must be floating point"):
        nn.GCN2Conv(3, alpha=0.1, rng=0)(xi, _x(), EI)
    with pytest.raises(TypeError, match="GCN2Conv: x_0 must be floating point"):
        nn.GCN2Conv(3, alpha=0.1, rng=0)(_x(), xi, EI)


@pytest.mark.parametrize(
    "make", [lambda: nn.GCN2Conv(3, alpha=0.1, rng=0), lambda: nn.FAConv(3, rng=0)]
)
def test_x_x0_layers_refuse_a_graph_first(make):
    """conv(g, feat, feat_0) (DGL's GCN2Conv order) used to run with x and x_0 swapped."""
    conv = make()
    g = arraygnn.graph((EI[0], EI[1]), num_nodes=4)
    with pytest.raises(TypeError, match=rf"{type(conv).__name__}: call as conv\(x, x_0"):
        conv(g, _x(0), _x(1))
    out = conv(_x(0), _x(1), EI)
    assert np.array_equal(
        conv(_x(0), _x(1), np.stack(g.edges())), out[0] if isinstance(out, tuple) else out
    )
