"""A PyG user's link-prediction data pipeline, side by side with torch_geometric 2.8.1:
``RandomLinkSplit`` on a ``Data`` with ``x`` and ``edge_attr`` (PyG's fields, shapes and
dtypes, and the invariants PyG documents), then ``LinkNeighborLoader`` batches over the
training split (label edges relabelled into the sampled subgraph, true negatives)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.transforms import RandomLinkSplit

N = 10
# an undirected graph (both directions) with a per-edge feature
_HALF = np.array([[0, 1, 2, 3, 4, 5, 6, 0, 2, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]])
EDGES = np.concatenate([_HALF, _HALF[::-1]], axis=1)
EDGE_ATTR = np.arange(2 * EDGES.shape[1], dtype=np.float32).reshape(-1, 2)
X = np.random.default_rng(0).standard_normal((N, 3)).astype(np.float32)

SPLITS = [
    dict(num_val=0.2, num_test=0.2, is_undirected=True),
    dict(num_val=2, num_test=3, split_labels=True, neg_sampling_ratio=2.0),
    dict(num_val=0.1, num_test=0.1, is_undirected=True, disjoint_train_ratio=0.5,
         add_negative_train_samples=False),
]  # fmt: skip


def _pairs(ei):
    return set(map(tuple, np.asarray(ei).T.tolist()))


def _positives(split, key="edge_label"):
    if f"pos_{key}_index" in split:
        return split[f"pos_{key}_index"], split.get(f"neg_{key}_index")
    label, index = split[key], split[f"{key}_index"]
    return index[:, label == 1], index[:, label == 0]


@pytest.mark.parametrize("kw", SPLITS, ids=["undirected", "split_labels", "disjoint"])
def test_random_link_split_matches_pyg_and_keeps_its_invariants(kw):
    data = Data(x=X, edge_index=EDGES, edge_attr=EDGE_ATTR)
    outs = RandomLinkSplit(**kw, seed=0)(data)
    attr_of = {pair: EDGE_ATTR[i] for i, pair in enumerate(map(tuple, EDGES.T.tolist()))}
    edges = _pairs(EDGES)
    train_mp = _pairs(outs[0].edge_index)
    for split in outs:
        # edge_attr travels with its edge (undirected: the i <= j edge's feature, twice)
        for i, (u, v) in enumerate(split.edge_index.T.tolist()):
            key = (min(u, v), max(u, v)) if kw.get("is_undirected") else (u, v)
            np.testing.assert_array_equal(split.edge_attr[i], attr_of[key])
        if kw.get("is_undirected"):
            assert _pairs(split.edge_index) == _pairs(split.edge_index[::-1])
        pos, neg = _positives(split)
        assert _pairs(pos) <= edges
        if neg is not None:
            assert not _pairs(neg) & edges  # negatives are non-edges
    for split in outs[1:]:  # no validation / test positive in the training message graph
        pos, _ = _positives(split)
        assert not _pairs(pos) & train_mp
        assert not _pairs(pos[::-1]) & train_mp or not kw.get("is_undirected")
    assert data.edge_index is EDGES and "edge_label" not in data  # the input is kept

    torch = pytest.importorskip("torch")
    pyg_t = pytest.importorskip("torch_geometric.transforms")
    from torch_geometric.data import Data as PygData

    torch.manual_seed(0)  # PyG's negatives come from torch's global generator: on a graph
    # this small it may find fewer than asked, so the shapes depend on the generator's state
    ref = pyg_t.RandomLinkSplit(**kw)(
        PygData(x=torch.from_numpy(X), edge_index=torch.from_numpy(EDGES),
                edge_attr=torch.from_numpy(EDGE_ATTR))
    )  # fmt: skip
    for ours, theirs in zip(outs, ref):
        assert sorted(ours.keys()) == sorted(theirs.keys())
        for key in theirs.keys():
            a, b = ours[key], theirs[key]
            assert a.shape == tuple(b.shape), key
            assert str(a.dtype) == str(b.dtype).replace("torch.", ""), key


@pytest.mark.parametrize("mode", ["binary", "triplet"])
def test_link_neighbor_loader_over_the_training_split(mode):
    data = Data(x=X, edge_index=EDGES, edge_attr=EDGE_ATTR)
    train, _, _ = RandomLinkSplit(0.2, 0.2, is_undirected=True, seed=0,
                                  add_negative_train_samples=False)(data)  # fmt: skip
    label = train.edge_label if mode == "binary" else None
    loader = LinkNeighborLoader(
        train, [2, 2], edge_label_index=train.edge_label_index, edge_label=label,
        neg_sampling=dict(mode=mode, amount=2), batch_size=4, shuffle=True, seed=0,
    )  # fmt: skip
    taken = _pairs(train.edge_index) | _pairs(train.edge_label_index)
    seen = []
    for batch in loader:
        ids = batch.input_id
        seen.extend(ids.tolist())
        want = train.edge_label_index[:, ids]
        np.testing.assert_array_equal(batch.edge_attr, train.edge_attr[batch.e_id])
        if mode == "binary":
            p = int(ids.shape[0])
            assert batch.edge_label_index.shape == (2, 3 * p)
            np.testing.assert_array_equal(batch.n_id[batch.edge_label_index[:, :p]], want)
            assert batch.edge_label.tolist() == [1.0] * p + [0.0] * (2 * p)
            neg = batch.n_id[batch.edge_label_index[:, p:]]
        else:
            assert "edge_label_index" not in batch and "edge_label" not in batch
            np.testing.assert_array_equal(batch.n_id[batch.src_index], want[0])
            np.testing.assert_array_equal(batch.n_id[batch.dst_pos_index], want[1])
            assert batch.dst_neg_index.shape == (ids.shape[0], 2)
            dst = batch.n_id[batch.dst_neg_index]
            neg = np.stack([np.repeat(want[0], 2), dst.reshape(-1)])
        assert not _pairs(neg) & taken and (neg[0] != neg[1]).all()  # true negatives
    assert sorted(seen) == list(range(train.edge_label_index.shape[1]))


def test_data_get_as_pyg():
    # PyG's ``data.get(key, default)`` (its storage's mapping ``get``), used on split outputs
    data = Data(x=X, edge_index=EDGES)
    assert data.get("x") is X and data.get("edge_label") is None
    assert data.get("edge_label", 7) == 7
    data.edge_label = np.ones(3)
    assert data.get("edge_label", 7) is data.edge_label
