"""pad_batch rebuilds follow_batch's <key>_batch / <key>_ptr for the padded batch: the
padding rows of node / edge keys (and edge_index) in the first padding graph, one row per
padding graph for graph keys; splitting the padded batch gives the real graphs back."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data
from arraygnn.padding import pad_batch


def _batch(follow):
    g1 = Data(
        x=np.ones((3, 2)),
        edge_index=np.array([[0, 1], [1, 2]]),
        edge_attr=np.ones((2, 1)),
        y=np.array([1.0]),
    )
    g2 = Data(
        x=np.ones((2, 2)),
        edge_index=np.array([[0], [1]]),
        edge_attr=np.ones((1, 1)),
        y=np.array([2.0]),
    )
    return Batch.from_data_list([g1, g2], follow_batch=follow)


def test_follow_vectors_are_rebuilt_not_stated():
    b = _batch(["x", "edge_attr", "y", "edge_index"])
    p = pad_batch(b, num_nodes=8, num_edges=5, num_graphs=4, graph_keys=("y",))
    assert p.x_batch.tolist() == p.batch.tolist() == [0, 0, 0, 1, 1, 2, 2, 2]
    assert p.x_ptr.tolist() == p.ptr.tolist() == [0, 3, 5, 8, 8]
    assert p.edge_attr_batch.tolist() == [0, 0, 1, 2, 2]
    assert p.edge_attr_ptr.tolist() == [0, 2, 3, 5, 5]
    assert p.edge_index_batch.tolist() == [0, 0, 1, 2, 2]
    assert p.edge_index_ptr.tolist() == [0, 2, 3, 5, 5]
    assert p.y_batch.tolist() == [0, 1, 2, 3] and p.y_ptr.tolist() == [0, 1, 2, 3, 4]
    for got, want in zip(p.to_data_list()[:2], b.to_data_list()):
        assert got.x.tolist() == want.x.tolist()
        assert got.edge_index.tolist() == want.edge_index.tolist()


def test_each_vector_matches_a_batch_vector_of_its_key():
    b = _batch(["x", "edge_attr"])
    p = pad_batch(b, num_nodes=9, num_edges=7, num_graphs=5, graph_keys=("y",))
    for key in ("x", "edge_attr"):
        ids, ptr = p[key + "_batch"], p[key + "_ptr"]
        assert ids.shape[0] == p[key].shape[0] == ptr[-1]
        assert np.array_equal(np.bincount(ids, minlength=5), np.diff(ptr))


def test_an_unstated_array_key_is_still_refused():
    b = _batch(["x"])
    b.extra = np.zeros(5)
    with pytest.raises(ValueError, match="'extra'"):
        pad_batch(b, num_nodes=8, num_edges=5, num_graphs=4, graph_keys=("y",))
