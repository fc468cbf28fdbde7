"""DGL's ``ChebConv.forward(graph, feat, lambda_max)``: called with a graph, the third
positional argument is ``lambda_max`` (PyG's form keeps ``edge_weight`` there)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph
from arraygnn.nn import ChebConv


def test_third_positional_argument_is_lambda_max_with_a_graph():
    src, dst = np.array([0, 1, 2, 3, 1, 2]), np.array([1, 2, 3, 0, 0, 1])
    g = graph((np.concatenate([src, dst]), np.concatenate([dst, src])), num_nodes=4)
    feat = np.random.default_rng(0).random((4, 3)).astype(np.float32)
    conv = ChebConv(3, 2, K=3, rng=0)
    lam = np.array([1.5], np.float32)
    np.testing.assert_array_equal(conv(g, feat, lam), conv(g, feat, lambda_max=lam))
    assert not np.allclose(conv(g, feat, lam), conv(g, feat))
    with pytest.raises(TypeError, match="the third argument is lambda_max"):
        conv(g, feat, lam, lambda_max=lam)
