"""Review of GraphConv's call-time weight= (DGL's external weight)."""

import numpy as np
import pytest

from arraygnn import nn
from arraygnn.graph import graph


def _g():
    return graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)


def test_graph_conv_external_weight_must_be_floating_point():
    x = np.ones((3, 2), np.float32)
    conv = nn.GraphConv(2, 4, weight=False, bias=False)
    # DGL: torch.matmul(float, long) raises; an integer weight used to give float64 silently
    with pytest.raises(TypeError, match="weight"):
        conv(_g(), x, weight=np.ones((2, 4), np.int64))
    out = conv(_g(), x, weight=np.ones((2, 4), np.float32))
    assert out.dtype == np.float32 and out.shape == (3, 4)
