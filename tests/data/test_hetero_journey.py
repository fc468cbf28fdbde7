"""A PyG user's heterogeneous workflow (OGB-MAG / MovieLens style) on arraygnn (session 10).

Each test states the PyG 2.8.1 behaviour it follows and, where PyG is installed, runs PyG's
own call on the same data.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import HeteroData


def _mag(module=None):
    """paper (x, y) / author (x) / institution (num_nodes only), PyG's or arraygnn's."""
    conv = (lambda a: a) if module is None else module.from_numpy
    h = HeteroData() if module is None else __import__("torch_geometric").data.HeteroData()
    rng = np.random.default_rng(0)
    h["paper"].x = conv(rng.random((4, 3)).astype(np.float32))
    h["paper"].y = conv(np.array([0, 2, 1, 0]))
    h["author"].x = conv(rng.random((3, 3)).astype(np.float32))
    h["institution"].num_nodes = 2
    h["author", "writes", "paper"].edge_index = conv(np.array([[0, 1, 2, 2], [0, 1, 2, 3]]))
    h["author", "writes", "paper"].edge_attr = conv(rng.random((4, 2)).astype(np.float32))
    h["author", "in", "institution"].edge_index = conv(np.array([[0, 1, 2], [0, 0, 1]]))
    h["author", "in", "institution"].edge_attr = conv(np.ones((3, 2), np.float32))
    return h


# ---------------------------------------------------------------- store feature counts


def test_store_num_features_as_pyg_movielens_style():
    # PyG: data['movie'].num_features (the x width, 0 without x; 1 for a 1-D x) and
    # data['user', 'rates', 'movie'].num_edge_features, as in PyG's MovieLens tutorial
    h = _mag()
    h["paper"].pos = np.zeros(4)
    assert h["paper"].num_features == h["paper"].num_node_features == 3
    assert h["institution"].num_features == h["institution"].num_node_features == 0
    writes = h["author", "writes", "paper"]
    assert writes.num_features == writes.num_edge_features == 2
    h["author"].x = np.arange(3.0)  # 1-D x: one feature
    assert h["author"].num_features == 1
    # PyG stores a value set under the property's name (no setter) as a key; the property
    # still answers
    h["paper"].num_features = 7
    assert h["paper"].num_features == 3 and h["paper"]["num_features"] == 7

    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    p = _mag(torch)
    assert p["paper"].num_features == 3 and p["institution"].num_features == 0
    assert p["author", "writes", "paper"].num_features == 2


# ---------------------------------------------------------------- homogeneous round trip


def test_to_homogeneous_then_to_heterogeneous_keeps_labels_like_pyg():
    # PyG: hetero.to_homogeneous().to_heterogeneous() gives every merged node attribute
    # (here y, filled with -1 for types without it) and edge attribute back per type
    h = _mag()
    h["institution"].x = np.zeros((2, 3), np.float32)
    homo = h.to_homogeneous()
    back = homo.to_heterogeneous()
    assert back.metadata() == h.metadata()
    np.testing.assert_array_equal(back["paper"].y, h["paper"].y)
    np.testing.assert_array_equal(back["author"].y, [-1, -1, -1])
    np.testing.assert_array_equal(back["author", "in", "institution"].edge_attr, np.ones((3, 2)))
    np.testing.assert_array_equal(back["paper"].x, h["paper"].x)
    # the caller's homogeneous graph is not changed, and a later key is still named
    assert sorted(homo.keys()) == ["edge_attr", "edge_index", "edge_type", "node_type", "x", "y"]
    homo.score = np.zeros(9)
    with pytest.raises(ValueError, match="score"):
        homo.to_heterogeneous()
    assert homo.to_heterogeneous(node_attrs=["x", "y", "score"])["paper"].score.shape == (4,)

    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    p = _mag(torch)
    p["institution"].x = torch.zeros(2, 3)
    pb = p.to_homogeneous().to_heterogeneous()
    for t in pb.node_types:
        assert sorted(pb[t].keys()) == sorted(back[t].keys())
        np.testing.assert_array_equal(back[t].y, pb[t].y.numpy())


# ---------------------------------------------------------------- edge_subgraph


def test_hetero_edge_subgraph_as_pyg():
    # PyG: HeteroData.edge_subgraph({edge_type: ids or mask}) keeps every node and the
    # other edge types; the named types keep those edges (ids in order, repeats allowed)
    # with their edge attributes
    h = _mag()
    writes, aff = ("author", "writes", "paper"), ("author", "in", "institution")
    sub = h.edge_subgraph({writes: np.array([3, 0, 3]), "in": np.array([True, False, True])})
    assert sub.metadata() == h.metadata() and sub["paper"].x is h["paper"].x
    np.testing.assert_array_equal(sub[writes].edge_index, [[2, 0, 2], [3, 0, 3]])
    np.testing.assert_array_equal(sub[writes].edge_attr, h[writes].edge_attr[[3, 0, 3]])
    np.testing.assert_array_equal(sub[aff].edge_index, [[0, 2], [0, 1]])
    assert sub[aff].edge_attr.shape == (2, 2) and h[writes].num_edges == 4  # input kept
    with pytest.raises(KeyError, match="cites"):
        h.edge_subgraph({("paper", "cites", "paper"): np.array([0])})
    with pytest.raises(ValueError, match="edge"):
        h.edge_subgraph({writes: np.array([True, False])})
    with pytest.raises(ValueError):
        h.edge_subgraph({writes: np.array([4])})

    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    p = _mag(torch)
    ps = p.edge_subgraph({writes: torch.tensor([3, 0, 3]), aff: torch.tensor([True, False, True])})
    for et in p.edge_types:
        for key in ("edge_index", "edge_attr"):
            np.testing.assert_array_equal(sub[et][key], ps[et][key].numpy())
