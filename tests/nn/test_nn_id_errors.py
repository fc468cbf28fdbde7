"""An out-of-range id in an edge_index names the layer it was given to."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn

X = np.ones((3, 4), np.float32)
BAD_SRC = np.array([[0, 7], [1, 0]])
BAD_DST = np.array([[0, 1], [1, -1]])


@pytest.mark.parametrize(
    "layer",
    [agnn.GATConv(4, 2), agnn.SAGEConv(4, 2), agnn.GCNConv(4, 2), agnn.GINConv(agnn.Linear(4, 2))],
)
def test_edge_index_ids_are_checked_with_the_layer_name(layer):
    name = type(layer).__name__
    with pytest.raises(ValueError, match=rf"{name}: edge_index\[0\] \(sources\) has entry 7"):
        layer(X, BAD_SRC)
    with pytest.raises(ValueError, match=rf"{name}: edge_index\[1\] \(targets\) has entry -1"):
        layer(X, BAD_DST)


def test_dgl_layers_on_an_edge_index_name_themselves():
    conv = agnn.DotGatConv(4, 2, 1)
    with pytest.raises(ValueError, match=r"DotGatConv: edge_index\[0\] \(sources\) has entry 7"):
        conv(X, BAD_SRC)  # the edge_index form takes (x, edge_index)
