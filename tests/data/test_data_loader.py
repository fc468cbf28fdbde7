"""DataLoader: lengths, reproducible shuffling, per-epoch reshuffle, prefetch, bad arguments."""

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.dataset import PackedDataset
from arraygnn.loader import DataLoader
from arraygnn.testing.asserts import assert_batch_equal


def graphs(n=11):
    rng = np.random.default_rng(0)
    return [
        Data(
            x=rng.standard_normal((k % 4, 2)),
            edge_index=rng.integers(0, max(k % 4, 1), (2, 2 * (k % 4))),
            y=np.array([float(k)]),
        )
        for k in range(n)
    ]


def ids(loader):
    return [b.y.astype(int).tolist() for b in loader]


@pytest.mark.parametrize("packed", [False, True])
def test_order_len_and_drop_last(packed):
    gs = graphs()
    ds = PackedDataset.from_data_list(gs) if packed else gs
    loader = DataLoader(ds, batch_size=4)
    assert len(loader) == 3 and ids(loader) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]
    loader = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(loader) == 2 and ids(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    for got, i in zip(DataLoader(ds, batch_size=3), range(0, 11, 3)):
        assert_batch_equal(got, Batch.from_data_list(gs[i : i + 3]))


@pytest.mark.parametrize("packed", [False, True])
def test_shuffle_reproducible_and_reshuffled(packed):
    gs = graphs()
    ds = PackedDataset.from_data_list(gs) if packed else gs
    a = DataLoader(ds, batch_size=4, shuffle=True, seed=7)
    b = DataLoader(ds, batch_size=4, shuffle=True, seed=7)
    e1, e2 = ids(a), ids(a)
    assert e1 == ids(b) and e2 == ids(b)  # same seed, same sequence of epochs
    assert e1 != e2  # a new order every epoch
    for epoch in (e1, e2):
        assert sorted(sum(epoch, [])) == list(range(11))
    perm = np.random.default_rng(7).permutation(11)
    assert sum(e1, []) == perm.tolist()


def test_prefetch_same_batches_and_errors_propagate():
    gs = graphs()
    ds = PackedDataset.from_data_list(gs)
    plain = list(DataLoader(ds, batch_size=2, shuffle=True, seed=3))
    pre = list(DataLoader(ds, batch_size=2, shuffle=True, seed=3, prefetch=2))
    assert len(plain) == len(pre) == 6
    for x, y in zip(plain, pre):
        assert_batch_equal(x, y)
    it = iter(DataLoader(ds, batch_size=1, prefetch=1))
    next(it)
    it.close()  # stops the worker thread
    bad = gs[:3] + [
        Data(x=np.ones((1, 3)), edge_index=np.zeros((2, 0), np.int64), y=np.array([0.0]))
    ]
    with pytest.raises(ValueError, match="key 'x' in graph 1"):
        list(DataLoader(bad, batch_size=2, prefetch=2))


def test_follow_batch_and_exclude_keys():
    gs = graphs(4)
    for ds in (gs, PackedDataset.from_data_list(gs)):
        b = next(iter(DataLoader(ds, batch_size=4, follow_batch=["y"], exclude_keys=["x"])))
        assert "x" not in b and b.y_batch.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "kwargs, exc, pattern",
    [
        (dict(batch_size=-1), ValueError, "batch_size must be >= 1, got -1"),
        (dict(batch_size=0), ValueError, "batch_size must be >= 1"),
        (dict(batch_size=2.5), TypeError, "batch_size must be an int"),
        (dict(prefetch=-2), ValueError, "prefetch must be >= 0"),
    ],
)
def test_bad_arguments(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        DataLoader(graphs(2), **kwargs)


def test_bad_dataset():
    with pytest.raises(TypeError, match="dataset must be"):
        DataLoader(42)
