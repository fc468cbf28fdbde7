"""PackedDataset: batches by index arithmetic equal Batch.from_data_list of the same graphs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.dataset import PackedDataset
from arraygnn.testing.asserts import assert_batch_equal, assert_data_equal


def packed_arrays(rng, counts, index_dtype=np.int64):
    nn = np.array([n for n, _ in counts], np.int64)
    ne = np.array([e if n else 0 for n, e in counts], np.int64)
    ei = np.concatenate(
        [rng.integers(0, max(n, 1), (2, e)) for n, e in zip(nn, ne)] + [np.zeros((2, 0))], axis=1
    ).astype(index_dtype)
    return dict(
        num_nodes=nn,
        num_edges=ne,
        node_features={"x": rng.integers(0, 9, (nn.sum(), 9)).astype(np.int8)},
        edge_index=ei,
        edge_features={"edge_attr": rng.integers(0, 4, (ne.sum(), 3)).astype(np.int8)},
        graph_features={
            "y": rng.standard_normal(len(nn)).astype(np.float32),
            "z": rng.standard_normal((len(nn), 2)),
        },
    )


@settings(max_examples=30, deadline=None)
@given(
    counts=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), min_size=1, max_size=8),
    seed=st.integers(0, 2**31 - 1),
    index_dtype=st.sampled_from([np.int32, np.int64]),
)
def test_collate_equals_from_data_list(counts, seed, index_dtype):
    rng = np.random.default_rng(seed)
    ds = PackedDataset.from_arrays(**packed_arrays(rng, counts, index_dtype))
    g = len(ds)
    idx = rng.integers(0, g, size=int(rng.integers(1, 2 * g + 1)))  # repeats allowed
    got = ds.collate(idx, follow_batch=["x", "y"])
    want = Batch.from_data_list([ds[int(i)] for i in idx], follow_batch=["x", "y"])
    assert_batch_equal(got, want)
    for key in got.keys():
        assert got[key].ctypes.data % 64 == 0, key
    for j, i in enumerate(idx):
        assert_data_equal(got.get_example(j), ds[int(i)])
    sub = ds[idx]
    assert len(sub) == len(idx)
    assert_batch_equal(sub.collate(np.arange(len(idx))), ds.collate(idx))


def test_graph_access_and_from_data_list_round_trip():
    rng = np.random.default_rng(0)
    graphs = [
        Data(
            x=rng.standard_normal((n, 2)),
            edge_index=rng.integers(0, max(n, 1), (2, 2 * n)),
            edge_attr=rng.standard_normal((2 * n, 1)),
            y=np.array([float(n)]),
            label=n,
            w=np.float32(n),
        )
        for n in (3, 0, 5, 1)
    ]
    ds = PackedDataset.from_data_list(graphs)
    assert len(ds) == 4 and ds.keys() == ["x", "edge_index", "edge_attr", "y", "label", "w"]
    for i, gr in enumerate(graphs):
        assert_data_equal(ds[i], gr)
    assert_data_equal(ds[-1], graphs[-1])
    assert_batch_equal(
        ds.collate([2, 0, 1]), Batch.from_data_list([graphs[2], graphs[0], graphs[1]])
    )
    assert_batch_equal(ds.collate(slice(None)), Batch.from_data_list(graphs))
    assert_batch_equal(ds[1:3].collate([0, 1]), Batch.from_data_list(graphs[1:3]))
    # a graph without node features keeps an explicit num_nodes
    bare = [
        Data(edge_index=np.array([[0], [1]]), num_nodes=2),
        Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=4),
    ]
    ds2 = PackedDataset.from_data_list(bare)
    assert_data_equal(ds2[1], bare[1])
    assert_batch_equal(ds2.collate([1, 0]), Batch.from_data_list([bare[1], bare[0]]))


def test_molecules_match_from_data_list():
    from arraygnn.datasets import load_molecules

    ds = load_molecules()
    idx = np.random.default_rng(1).permutation(len(ds))[:64]
    assert_batch_equal(ds.collate(idx), Batch.from_data_list([ds[int(i)] for i in idx]))


def test_bad_input():
    rng = np.random.default_rng(0)
    arrays = packed_arrays(rng, [(3, 4), (2, 2)])
    bad = dict(arrays, edge_index=arrays["edge_index"].copy())
    bad["edge_index"][1, 5] = 2  # graph 1 has 2 nodes
    with pytest.raises(
        ValueError, match=r"edge_index of graph 1 holds node id 2, outside \[0, 2\)"
    ):
        PackedDataset.from_arrays(**bad)
    with pytest.raises(ValueError, match="node feature 'x' has shape"):
        PackedDataset.from_arrays(**dict(arrays, node_features={"x": np.zeros((4, 1))}))
    with pytest.raises(TypeError, match="edge_index must hold integers"):
        PackedDataset.from_arrays(**dict(arrays, edge_index=arrays["edge_index"] * 1.0))
    with pytest.raises(ValueError, match="negative entry at graph 1"):
        PackedDataset.from_arrays(**dict(arrays, num_nodes=np.array([5, -1])))
    ds = PackedDataset.from_arrays(**arrays)
    with pytest.raises(IndexError, match="graph index 2 out of range"):
        ds.collate([0, 2])
    with pytest.raises(IndexError, match="out of range"):
        ds[5]
    with pytest.raises(ValueError, match="no indices"):
        ds.collate([])
    with pytest.raises(ValueError, match="empty"):
        PackedDataset.from_data_list([])
    graphs = [Data(x=np.ones((2, 1)), edge_index=np.zeros((2, 0), np.int64), v=np.ones(3))]
    with pytest.raises(ValueError, match="key 'v' is neither a node key"):
        PackedDataset.from_data_list(graphs)


def test_narrow_index_dtype_packs_and_never_wraps():
    """int16 edge_index, 80,000 nodes in all: the packed store keeps local ids in int16;
    a batch that fits equals Batch.from_data_list; one that does not raises its error
    (both once wrapped silently)."""
    rng = np.random.default_rng(9)
    graphs = [
        Data(
            x=np.zeros((200, 1), np.float32),
            edge_index=rng.integers(0, 200, (2, 30)).astype(np.int16),
            y=np.array([i]),
        )
        for i in range(400)
    ]
    ds = PackedDataset.from_data_list(graphs)
    assert ds.edge_index.dtype == np.int16
    for i in (0, 163, 399):
        assert_data_equal(ds[i], graphs[i])
    picked = np.array([5, 399, 0, 17])
    assert_batch_equal(ds.collate(picked), Batch.from_data_list([graphs[i] for i in picked]))
    with pytest.raises(OverflowError, match="'edge_index' in graph 163: has dtype int16"):
        ds.collate(np.arange(400))


class _AddDegreeOne:
    """A transform in PyG's style: sets a new array on the copy it gets."""

    def __init__(self):
        self.calls = 0

    def __call__(self, data):
        self.calls += 1
        out = data.copy()
        out.x = np.concatenate([data.x, np.ones((data.x.shape[0], 1), data.x.dtype)], axis=1)
        return out


def _packed_with_transform(transform):
    from arraygnn.datasets import load_molecules

    return load_molecules(transform=transform)[:40]


def test_packed_transform_is_applied_on_access_collate_and_loader():
    from arraygnn.batch import Batch
    from arraygnn.loader import DataLoader

    t = _AddDegreeOne()
    ds = _packed_with_transform(t)
    assert ds.transform is t  # a subset keeps it
    plain = _packed_with_transform(None)
    x_before = plain.node_features["x"].copy()
    g = ds[3]
    assert g.x.shape[1] == plain[3].x.shape[1] + 1
    np.testing.assert_array_equal(g.x[:, :-1], plain[3].x)
    idx = np.array([5, 0, 7])
    b = ds.collate(idx)
    expected = Batch.from_data_list([t(plain[int(i)]) for i in idx])
    for key in ("x", "edge_index", "edge_attr", "y", "batch", "ptr"):
        np.testing.assert_array_equal(b[key], expected[key])
    batches = list(DataLoader(ds, batch_size=16))
    assert all(bt.x.shape[1] == 10 for bt in batches)
    assert sum(bt.num_graphs for bt in batches) == 40
    np.testing.assert_array_equal(plain.node_features["x"], x_before)  # nothing written
    ds.transform = None  # cleared later: the vectorised collate again
    np.testing.assert_array_equal(ds.collate(idx).x, plain.collate(idx).x)


def test_packed_transform_from_data_list_and_errors():
    from arraygnn.data import Data
    from arraygnn.dataset import PackedDataset

    graphs = [
        Data(x=np.full((n, 2), float(n)), edge_index=np.array([[0], [n - 1]]), y=np.array([n]))
        for n in (2, 3, 4)
    ]
    ds = PackedDataset.from_data_list(graphs, transform=_AddDegreeOne())
    assert ds[1].x.shape == (3, 3)
    with pytest.raises(TypeError, match="transform must be callable"):
        PackedDataset.from_data_list(graphs, transform="normalize")
