"""PyG's ``LinkNeighborLoader``: batches of sampled neighbourhoods around label edges.

Checked: the batch's label edges map back to the original pairs through ``n_id``; the seeds
are the label edges' endpoints (sorted, once each); the sampled edges are edges of the graph;
with all neighbours (``-1``) a 2-layer model's rows for the label edges' endpoints equal its
full-graph rows; negatives are never edges, label edges or self-loops; labels follow PyG
(given labels + 1 when their minimum is 0, negatives 0); triplet shapes; reproducibility;
argument errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
import arraygnn.nn as agnn
from arraygnn.data import Data
from arraygnn.link_neighbor_loader import LinkNeighborLoader


def _data(n=50, e=300, seed=0, index_dtype=np.int64, y=False):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e)).astype(index_dtype)
    ei[:, :3] = [[5, 5, 7], [5, 6, 6]]  # a self-loop and a parallel edge
    data = Data(
        x=rng.standard_normal((n, 4)).astype(np.float32),
        edge_index=ei,
        edge_attr=rng.standard_normal((e, 2)).astype(np.float32),
        num_nodes=n,
    )
    if y:
        data.y = rng.integers(0, 3, n)
    return data


def _pairs(ei):
    return set(zip(ei[0].tolist(), ei[1].tolist()))


def _check_common(data, batch, label_index, positions):
    n_id, e_id = batch.n_id, batch.e_id
    assert batch.num_nodes == len(n_id) == sum(batch.num_sampled_nodes)
    assert sum(batch.num_sampled_edges) == batch.edge_index.shape[1] == len(e_id)
    assert len(set(n_id.tolist())) == len(n_id)  # every node once
    np.testing.assert_array_equal(batch.input_id, positions)
    ei = data.edge_index
    np.testing.assert_array_equal(n_id[batch.edge_index[0]], ei[0, e_id])
    np.testing.assert_array_equal(n_id[batch.edge_index[1]], ei[1, e_id])
    np.testing.assert_array_equal(batch.x, data.x[n_id])
    np.testing.assert_array_equal(batch.edge_attr, data.edge_attr[e_id])
    seeds = n_id[: batch.num_sampled_nodes[0]]
    assert np.all(np.diff(seeds) > 0)  # sorted unique, as PyG's ``seed.unique()``
    return seeds


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_batches_without_negatives(index_dtype):
    data = _data(index_dtype=index_dtype, y=True)
    before = data.edge_index.copy()
    loader = LinkNeighborLoader(
        data, [3, 2], batch_size=64, shuffle=True, seed=0, node_attrs=["x", "y"]
    )
    assert len(loader) == 5  # 300 label edges (every edge), 64 per batch
    seen = []
    for batch in loader:
        positions = batch.input_id
        seen.extend(positions.tolist())
        seeds = _check_common(data, batch, data.edge_index, positions)
        # label edges back to the original pairs through n_id
        back = batch.n_id[batch.edge_label_index]
        np.testing.assert_array_equal(back, data.edge_index[:, positions])
        assert set(seeds.tolist()) == set(data.edge_index[:, positions].ravel().tolist())
        assert "edge_label" not in batch.keys()
        np.testing.assert_array_equal(batch.y, data.y[batch.n_id])
    assert sorted(seen) == list(range(300))
    np.testing.assert_array_equal(data.edge_index, before)


def test_full_neighbourhood_matches_full_graph():
    data = _data(n=80, e=500)
    conv1 = agnn.SAGEConv(4, 8, rng=0)
    conv2 = agnn.SAGEConv(8, 3, rng=1)

    def model(x, ei):
        return conv2(np.maximum(conv1(x, ei), 0), ei)

    full = model(data.x, data.edge_index)
    rng = np.random.default_rng(1)
    label_index = rng.integers(0, 80, (2, 90))  # not necessarily edges
    loader = LinkNeighborLoader(
        data, [-1, -1], edge_label_index=label_index, batch_size=32,
        neg_sampling_ratio=2.0, seed=3,
    )  # fmt: skip
    count = 0
    for batch in loader:
        out = model(batch.x, batch.edge_index)
        pairs = batch.n_id[batch.edge_label_index]
        np.testing.assert_allclose(out[batch.edge_label_index], full[pairs], rtol=1e-5, atol=1e-5)
        count += batch.edge_label_index.shape[1]
    assert count == 90 * 3


def test_binary_negatives_and_labels():
    data = _data()
    rng = np.random.default_rng(2)
    label_index = rng.integers(0, 50, (2, 40))
    label = rng.integers(0, 4, 40)  # min 0: PyG adds 1 (0 is the negatives' class)
    label_before = label.copy()
    loader = LinkNeighborLoader(
        data, [2], edge_label_index=label_index, edge_label=label, batch_size=16,
        neg_sampling=dict(mode="binary", amount=1.5), seed=0,
    )  # fmt: skip
    forbidden = _pairs(data.edge_index) | _pairs(label_index)
    for batch in loader:
        positions = batch.input_id
        num_pos = len(positions)
        num_neg = int(np.ceil(num_pos * 1.5))
        assert batch.edge_label_index.shape == (2, num_pos + num_neg)
        back = batch.n_id[batch.edge_label_index]
        np.testing.assert_array_equal(back[:, :num_pos], label_index[:, positions])
        negatives = back[:, num_pos:]
        assert not _pairs(negatives) & forbidden  # true negatives
        assert (negatives[0] != negatives[1]).all()
        np.testing.assert_array_equal(batch.edge_label[:num_pos], label[positions] + 1)
        assert (batch.edge_label[num_pos:] == 0).all()
        assert batch.edge_label.dtype == label.dtype
        _check_common(data, batch, label_index, positions)
    np.testing.assert_array_equal(label, label_before)  # not modified


def test_binary_default_labels_are_float_ones_and_zeros():
    data = _data()
    loader = LinkNeighborLoader(data, [1], batch_size=10, neg_sampling="binary", seed=0)
    batch = next(iter(loader))
    assert batch.edge_label.dtype == np.float32
    assert batch.edge_label.tolist() == [1.0] * 10 + [0.0] * 10
    # labels with minimum 1 are kept as they are
    labels = np.arange(1, 301)
    loader = LinkNeighborLoader(data, [1], edge_label=labels, batch_size=4,
                                neg_sampling_ratio=0.5, seed=0)  # fmt: skip
    batch = next(iter(loader))
    assert batch.edge_label.tolist() == [1, 2, 3, 4, 0, 0]


def test_triplet_mode():
    data = _data()
    for amount in [1, 3]:
        loader = LinkNeighborLoader(
            data, [2, 2], batch_size=12, neg_sampling=dict(mode="triplet", amount=amount),
            seed=0,
        )  # fmt: skip
        forbidden = _pairs(data.edge_index)
        for batch in loader:
            positions = batch.input_id
            p = len(positions)
            assert batch.src_index.shape == batch.dst_pos_index.shape == (p,)
            assert batch.dst_neg_index.shape == ((p,) if amount == 1 else (p, amount))
            n_id = batch.n_id
            np.testing.assert_array_equal(n_id[batch.src_index], data.edge_index[0, positions])
            np.testing.assert_array_equal(n_id[batch.dst_pos_index], data.edge_index[1, positions])
            neg = n_id[batch.dst_neg_index].reshape(p, -1)
            src = n_id[batch.src_index]
            for s, row in zip(src.tolist(), neg.tolist()):
                for d in row:
                    assert d != s and (s, d) not in forbidden
            assert "edge_label_index" not in batch.keys() and "edge_label" not in batch.keys()
            _check_common(data, batch, data.edge_index, positions)


def test_reproducible():
    data = _data()

    def epoch(seed):
        loader = LinkNeighborLoader(data, [2, 2], batch_size=50, shuffle=True,
                                    neg_sampling_ratio=1.0, seed=seed)  # fmt: skip
        return [(b.n_id.tolist(), b.edge_label_index.tolist(), b.e_id.tolist()) for b in loader]

    assert epoch(4) == epoch(4)
    assert epoch(4) != epoch(5)
    loader = LinkNeighborLoader(data, [2], batch_size=50, shuffle=True, seed=1)
    first = [b.input_id.tolist() for b in loader]
    second = [b.input_id.tolist() for b in loader]
    assert first != second  # a new order every epoch
    assert sorted(sum(first, [])) == sorted(sum(second, [])) == list(range(300))


def test_drop_last_len_repr_and_top_level_export():
    data = _data()
    loader = arraygnn.LinkNeighborLoader(data, [1], batch_size=64, drop_last=True)
    assert len(loader) == 4 and len(list(loader)) == 4
    assert "LinkNeighborLoader(" in repr(loader)
    from arraygnn.loader import LinkNeighborLoader as L

    assert L is LinkNeighborLoader


def test_data_with_own_edge_label_fields_and_attributes():
    data = _data(y=True)
    data.edge_label_index = data.edge_index[:, :10].copy()
    data.edge_label = np.ones(10)
    loader = LinkNeighborLoader(data, [1], edge_label_index=data.edge_label_index,
                                batch_size=5, node_attrs=["x", "y"])  # fmt: skip
    batch = next(iter(loader))
    assert batch.edge_label_index.shape == (2, 5)
    assert "edge_label" not in batch.keys()
    data.mask = np.ones(50, bool)
    with pytest.raises(ValueError, match=r"\['mask'\] are neither node nor edge attributes"):
        LinkNeighborLoader(data, [1], node_attrs=["x", "y"])


def test_errors():
    data = _data()
    with pytest.raises(TypeError, match="LinkNeighborLoader: data must be a Data"):
        LinkNeighborLoader({"x": 1}, [1])
    with pytest.raises(TypeError, match=r"LinkNeighborLoader: num_neighbors must be a list"):
        LinkNeighborLoader(data, 3)
    with pytest.raises(ValueError, match="LinkNeighborLoader: batch_size must be >= 1"):
        LinkNeighborLoader(data, [1], batch_size=0)
    with pytest.raises(ValueError, match=r"edge_label_index must have shape \[2, L\]"):
        LinkNeighborLoader(data, [1], edge_label_index=np.zeros((3, 2), np.int64))
    with pytest.raises(TypeError, match="edge_label_index must be an integer array"):
        LinkNeighborLoader(data, [1], edge_label_index=np.zeros((2, 2)))
    with pytest.raises(TypeError, match="heterogeneous"):
        LinkNeighborLoader(data, [1], edge_label_index=("a", "to", "b"))
    with pytest.raises(ValueError, match=r"edge_label_index has node 50, outside \[0, 50\)"):
        LinkNeighborLoader(data, [1], edge_label_index=np.array([[0], [50]]))
    with pytest.raises(ValueError, match=r"edge_label must have one row per label edge \(300\)"):
        LinkNeighborLoader(data, [1], edge_label=np.ones(3))
    with pytest.raises(ValueError, match="edge_label must be None for 'triplet'"):
        LinkNeighborLoader(data, [1], edge_label=np.ones(300), neg_sampling="triplet")
    with pytest.raises(ValueError, match="mode must be 'binary' or 'triplet'"):
        LinkNeighborLoader(data, [1], neg_sampling=dict(mode="hard"))
    with pytest.raises(ValueError, match="amount must be positive"):
        LinkNeighborLoader(data, [1], neg_sampling=dict(mode="binary", amount=0))
    with pytest.raises(ValueError, match="amount must be an integer for 'triplet'"):
        LinkNeighborLoader(data, [1], neg_sampling=dict(mode="triplet", amount=1.5))
    with pytest.raises(ValueError, match="unknown key"):
        LinkNeighborLoader(data, [1], neg_sampling=dict(mode="binary", ratio=1))
    with pytest.raises(ValueError, match="not both"):
        LinkNeighborLoader(data, [1], neg_sampling="binary", neg_sampling_ratio=1.0)
    with pytest.raises(TypeError, match="neg_sampling_ratio must be a number"):
        LinkNeighborLoader(data, [1], neg_sampling_ratio="1")
    with pytest.raises(ValueError, match="subgraph_type must be 'directional', 'bidi"):
        LinkNeighborLoader(data, [1], subgraph_type="inducted")
    complete = Data(
        x=np.ones((3, 1)), edge_index=np.array([[0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1]])
    )
    with pytest.raises(ValueError, match="no negative pair"):
        LinkNeighborLoader(complete, [1], neg_sampling="binary")
    star = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 0, 1], [1, 2, 2]]))
    with pytest.raises(ValueError, match="label source node 0 is adjacent to every other node"):
        LinkNeighborLoader(star, [1], neg_sampling="triplet")
    # no negative sampling: ratio 0 means none (PyG)
    loader = LinkNeighborLoader(star, [1], neg_sampling_ratio=0.0)
    assert loader.neg_sampling is None


def test_pyg_negative_sampling_object_is_accepted():
    pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import NegativeSampling

    data = _data()
    loader = LinkNeighborLoader(data, [1], batch_size=8, neg_sampling=NegativeSampling("binary", 2))
    batch = next(iter(loader))
    assert batch.edge_label_index.shape == (2, 24)


@pytest.mark.filterwarnings("ignore:Using 'NeighborSampler' without")
def test_same_batch_layout_as_pyg():
    """Without negatives, PyG's batch and ours share every deterministic piece: the seeds
    (sorted endpoints), ``edge_label_index``, ``input_id`` and, with all neighbours, the
    sampled node set and edge set."""
    pytest.importorskip("torch_geometric")
    import torch
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import LinkNeighborLoader as PygLoader

    data = _data(n=40, e=200)
    ours = next(iter(LinkNeighborLoader(data, [-1, -1], batch_size=20)))
    pyg = PygData(
        x=torch.from_numpy(data.x), edge_index=torch.from_numpy(data.edge_index), num_nodes=40
    )
    try:
        theirs = next(iter(PygLoader(pyg, [-1, -1], batch_size=20)))
    except ImportError as err:  # PyG's neighbour sampling needs pyg-lib or torch-sparse
        pytest.skip(str(err))
    k = ours.num_sampled_nodes[0]
    assert theirs.num_sampled_nodes[0] == k
    np.testing.assert_array_equal(ours.n_id[:k], theirs.n_id[:k].numpy())
    np.testing.assert_array_equal(ours.edge_label_index, theirs.edge_label_index.numpy())
    np.testing.assert_array_equal(ours.input_id, theirs.input_id.numpy())
    assert set(ours.n_id.tolist()) == set(theirs.n_id.tolist())
    assert sorted(ours.e_id.tolist()) == sorted(theirs.e_id.tolist())
