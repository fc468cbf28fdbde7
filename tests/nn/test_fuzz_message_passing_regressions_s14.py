"""Regressions from the MessagePassing differential fuzz (s14) vs PyG 2.8.1: where PyG's own
paths disagree, arraygnn keeps the generated (jinja) path's answer on every path."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.nn import MessagePassing


class TargetOnly(MessagePassing):
    """No lifted ``*_j`` argument: nothing for ``decomposed_layers`` to split."""

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x=x)

    def message(self, x_i):
        return x_i


class FusedWithDefault(MessagePassing):
    def forward(self, x, adj_t):
        return self.propagate(adj_t, x=x)

    def message_and_aggregate(self, adj_t, x):
        return adj_t @ x

    def update(self, inputs, gamma=2.0):
        return inputs * gamma


EDGE_INDEX = np.array([[0, 1, 2, 2], [1, 2, 0, 1]])
X = np.arange(6.0).reshape(3, 2)


def test_decomposition_without_a_j_argument_runs_the_layer_once():
    # PyG 2.8.1 runs it twice on the whole x and returns [3, 4] (the output concatenated twice)
    want = TargetOnly()(X, EDGE_INDEX)
    got = TargetOnly(decomposed_layers=2)(X, EDGE_INDEX)
    assert got.shape == (3, 2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, [[0.0, 1.0], [4.0, 6.0], [4.0, 5.0]])


def test_fused_update_takes_its_default():
    # PyG 2.8.1's generated fused propagate raises NameError: name 'gamma' is not defined
    adj_t = sp.csr_matrix((np.ones(4), (EDGE_INDEX[1], EDGE_INDEX[0])), shape=(3, 3))
    np.testing.assert_array_equal(FusedWithDefault()(X, adj_t), 2.0 * (adj_t @ X))


class OwnScatter(MessagePassing):
    """A user aggregate written with NumPy: a negative id would wrap around silently."""

    def __init__(self):
        super().__init__(aggr=None)

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x=x)

    def aggregate(self, inputs, index, dim_size):
        out = np.zeros((dim_size, inputs.shape[1]), inputs.dtype)
        np.add.at(out, index, inputs)
        return out


def test_negative_target_id_with_a_user_aggregate_raises():
    # PyG 2.8.1: the same layer in torch fails in index_add_ ("index out of range in self");
    # NumPy's add.at would have added the message into the last node
    bad = np.array([[0, 1], [1, -1]])
    with pytest.raises(IndexError, match="negative"):
        OwnScatter()(X, bad)
    np.testing.assert_array_equal(OwnScatter()(X, EDGE_INDEX), [[4, 5], [4, 6], [2, 3]])
