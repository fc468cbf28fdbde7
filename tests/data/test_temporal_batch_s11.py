"""``TemporalData`` against PyG's (pure torch, runs without pyg-lib): batching with
``Batch.from_data_list`` (PyG's ``TemporalDataBatch``), event selection,
``train_val_test_split``, ``__inc__`` and ``TemporalDataLoader``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.loader import DataLoader
from arraygnn.temporal_data import TemporalData, TemporalDataBatch
from arraygnn.temporal_data_loader import TemporalDataLoader


def _events(seed, n):
    rng = np.random.default_rng(seed)
    return dict(
        src=rng.integers(0, 6, n), dst=rng.integers(0, 9, n), t=np.sort(rng.integers(0, 50, n)),
        msg=rng.standard_normal((n, 2)).astype(np.float32), y=rng.integers(0, 2, n),
    )  # fmt: skip


def _pair(fields):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import TemporalData as PygTemporal

    return TemporalData(**fields), PygTemporal(**{k: torch.as_tensor(v) for k, v in fields.items()})


def _same(ours, theirs):
    assert sorted(ours.keys()) == sorted(theirs.keys())
    for key in ours.keys():
        np.testing.assert_array_equal(ours[key], theirs[key].numpy(), err_msg=key)


def test_batch_from_data_list_is_pygs_temporal_data_batch():
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import Batch as PygBatch

    pairs = [_pair(_events(s, n)) for s, n in ((0, 4), (1, 3), (2, 5))]
    ours = Batch.from_data_list([p[0] for p in pairs], follow_batch=["t"], exclude_keys=["y"])
    theirs = PygBatch.from_data_list([p[1] for p in pairs], ["t"], ["y"])
    assert isinstance(ours, TemporalDataBatch) and isinstance(ours, TemporalData)
    _same(ours, theirs)  # src / dst increased by each event stream's num_nodes; no batch / ptr
    assert "batch" not in ours and "ptr" not in ours
    for key, value in theirs._slice_dict.items():
        np.testing.assert_array_equal(ours._slice_dict[key], value.numpy(), err_msg=key)
        np.testing.assert_array_equal(ours._inc_dict[key], theirs._inc_dict[key].numpy())
    assert ours.num_graphs == len(ours) == 3 and ours.num_events == theirs.num_events
    assert ours.num_nodes == theirs.num_nodes
    assert repr(ours) == repr(theirs)
    for i, j in ((0, 0), (2, 2), (-1, 2)):  # (PyG's get_example(-1) fails)
        _same(ours[i], theirs[j])
        assert type(ours.get_example(i)) is TemporalData
    for a, b in zip(ours.to_data_list(), theirs.to_data_list()):
        _same(a, b)
    assert [len(g) for g in ours] == [4, 3, 5]
    assert [len(g) for g in ours[np.array([2, 0])]] == [5, 4]
    assert ours.to("cpu").get_example(1).src.tolist() == ours.get_example(1).src.tolist()
    # the DataLoader batches event streams the same way
    loader = DataLoader([p[0] for p in pairs], batch_size=2)
    first = next(iter(loader))
    assert isinstance(first, TemporalDataBatch) and first.num_graphs == 2
    np.testing.assert_array_equal(first.dst, theirs.dst.numpy()[:7])


def test_batch_honours_overridden_hooks_and_names_bad_input():
    class Events(TemporalData):  # PyG's TemporalData with src / dst kept as they are
        def __inc__(self, key, value, *args, **kwargs):
            return 0 if key in ("src", "dst") else super().__inc__(key, value)

    graphs = [Events(**_events(s, 3)) for s in range(2)]
    batch = Batch.from_data_list(graphs)
    assert batch.src.tolist() == graphs[0].src.tolist() + graphs[1].src.tolist()
    assert type(batch[1]) is Events and batch[1].dst.tolist() == graphs[1].dst.tolist()
    assert repr(graphs[0]).startswith("Events(")
    with pytest.raises(TypeError, match="graph 1 is a Data"):
        from arraygnn.data import Data

        Batch.from_data_list([graphs[0], Data(x=np.ones((2, 1)))])
    with pytest.raises(ValueError, match="num_nodes needs src and dst"):
        Batch.from_data_list([TemporalData(src=np.zeros(0, np.int64), dst=np.zeros(0, np.int64))])


@pytest.mark.parametrize(
    "idx", [1, -1, slice(1, 4), slice(None, None, 2), [0, 2], (1, 3), [True, False] * 3]
)
def test_event_selection_matches_pyg(idx):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(_events(0, 6))
    pyg_idx = torch.tensor(idx) if isinstance(idx, list) and isinstance(idx[0], bool) else idx
    _same(ours[idx], theirs[pyg_idx])
    _same(ours[np.array([5, 0])], theirs[torch.tensor([5, 0])])
    for key in ("src", "dst", "t", "msg", "y_batch"):
        value = np.array([0, 3, 1])
        assert ours.__inc__(key, value) == theirs.__inc__(key, torch.as_tensor(value)), key


@pytest.mark.parametrize("times", ["int", "unix", "float"])
def test_train_val_test_split_matches_pyg(times):
    fields = _events(1, 40)
    if times == "unix":  # beyond 2**24: PyG compares in float32 (rounded)
        fields["t"] = 1_600_000_000 + np.arange(40) * 3
    elif times == "float":
        fields["t"] = np.sort(np.random.default_rng(2).random(40))
    ours, theirs = _pair(fields)
    for ratios in ((0.15, 0.15), (0.1, 0.3), (0.25, 0.25)):
        got = [part.t.tolist() for part in ours.train_val_test_split(*ratios)]
        want = [part.t.tolist() for part in theirs.train_val_test_split(*ratios)]
        assert got == want, ratios


@pytest.mark.parametrize("batch_size, drop_last", [(3, False), (3, True), (4, True), (7, False)])
def test_temporal_data_loader_matches_pyg(batch_size, drop_last):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import TemporalDataLoader as PygLoader

    ours, theirs = _pair(_events(3, 12))
    mine = list(TemporalDataLoader(ours, batch_size, drop_last=drop_last))
    pyg = list(PygLoader(theirs, batch_size, drop_last=drop_last))
    assert len(mine) == len(pyg) == len(TemporalDataLoader(ours, batch_size, drop_last=drop_last))
    for a, b in zip(mine, pyg):
        _same(a, b)
    torch.manual_seed(0)
    for ratio in (1.0, 0.5, 2.0):
        mine = list(TemporalDataLoader(ours, batch_size, neg_sampling_ratio=ratio, seed=0))
        pyg = list(PygLoader(theirs, batch_size, neg_sampling_ratio=ratio))
        for a, b in zip(mine, pyg):
            assert a.neg_dst.shape == tuple(b.neg_dst.shape)
            assert a.neg_dst.dtype == b.neg_dst.numpy().dtype
            lo, hi = int(ours.dst.min()), int(ours.dst.max())
            assert ((a.neg_dst >= lo) & (a.neg_dst <= hi)).all()
            want = np.unique(np.concatenate([a.src, a.dst, a.neg_dst]))
            np.testing.assert_array_equal(a.n_id, want)
