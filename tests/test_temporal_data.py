"""TemporalData and TemporalDataLoader against PyG's (torch_geometric.data.TemporalData,
torch_geometric.loader.TemporalDataLoader) on random event streams."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import TemporalData, TemporalDataLoader


def _stream(n: int, num_nodes: int = 20, dtype=np.int64, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        src=rng.integers(0, num_nodes, n).astype(dtype),
        dst=rng.integers(0, num_nodes, n).astype(dtype),
        t=np.sort(rng.integers(0, 50, n)),
        msg=rng.standard_normal((n, 3)).astype(np.float32),
        y=rng.integers(0, 2, n),
    )


def _pyg(arrays: dict):
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    return pyg.TemporalData(**{k: torch.from_numpy(v) for k, v in arrays.items()})


def _same(ours: TemporalData, ref) -> None:
    assert sorted(ours.keys()) == sorted(ref.keys())  # PyG's order after indexing varies
    for key in ours.keys():
        np.testing.assert_array_equal(ours[key], ref[key].numpy())


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sizes_and_keys_match_pyg(dtype):
    arrays = _stream(17, dtype=dtype)
    ours, ref = TemporalData(**arrays), _pyg(arrays)
    assert (ours.num_nodes, ours.num_events, ours.num_edges, len(ours)) == (
        ref.num_nodes,
        ref.num_events,
        ref.num_edges,
        len(ref),
    )
    assert ours.size() == ref.size() and ours.size(1) == ref.size(1)
    np.testing.assert_array_equal(ours.edge_index, ref.edge_index.numpy())
    assert list(ours.to_dict()) == list(ref.to_dict())
    assert ours.to_namedtuple()._fields == ref.to_namedtuple()._fields
    assert [k for k, _ in ours("t", "msg")] == [k for k, _ in ref("t", "msg")]
    assert repr(ours) == repr(ref)


@pytest.mark.parametrize(
    "idx",
    [3, 0, -1, slice(2, 9), slice(None, None, 3), slice(5, 2), [4, 1, 1], (0, 16), "mask", "arr"],
)
def test_indexing_matches_pyg(idx):
    torch = pytest.importorskip("torch")
    arrays = _stream(17)
    ours, ref = TemporalData(**arrays), _pyg(arrays)
    rng = np.random.default_rng(1)
    if idx == "mask":
        ours_idx = rng.random(17) < 0.5
        ref_idx = torch.from_numpy(ours_idx)
    elif idx == "arr":
        ours_idx = rng.integers(0, 17, 6)
        ref_idx = torch.from_numpy(ours_idx)
    else:
        ours_idx = ref_idx = idx
    _same(ours[ours_idx], ref[ref_idx])


def test_indexing_keeps_other_values_and_the_input():
    arrays = _stream(6)
    keep = dict(arrays)
    ev = TemporalData(**arrays, tag="stream", table=np.ones((2, 2)))
    part = ev[np.array([0, 2])]
    assert part.tag == "stream" and part.table.shape == (2, 2) and part.num_events == 2
    assert [len(e) for e in ev] == [1] * 6
    for key, value in keep.items():
        assert value is arrays[key]
        np.testing.assert_array_equal(ev[key], value)


@pytest.mark.parametrize("ratios", [(0.15, 0.15), (0.1, 0.3), (0.0, 0.5), (0.25, 0.25)])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_train_val_test_split_matches_pyg(ratios, n):
    arrays = _stream(n, seed=n)
    ours = TemporalData(**arrays).train_val_test_split(*ratios)
    ref = _pyg(arrays).train_val_test_split(*ratios)
    for a, b in zip(ours, ref):
        _same(a, b)


def test_collation_hooks_match_pyg():
    arrays = _stream(9)
    arrays["batch"] = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2])
    ours, ref = TemporalData(**arrays), _pyg(arrays)
    for key in ours.keys():
        assert ours.__inc__(key, ours[key]) == ref.__inc__(key, ref[key])
        assert ours.__cat_dim__(key, ours[key]) == ref.__cat_dim__(key, ref[key]) == 0


def test_from_dict_copy_and_none_values():
    ev = TemporalData.from_dict(_stream(4))
    assert ev.msg is not None
    with pytest.raises(AttributeError, match="'msg'"):  # PyG's: unset keys are not None
        _ = TemporalData(src=np.array([0]), dst=np.array([1])).msg
    assert "msg" not in TemporalData(src=np.array([0]), dst=np.array([1]), msg=None)
    twin = ev.copy()
    twin.extra = np.ones(4)
    assert "extra" not in ev and twin.src is ev.src


def test_bad_input_errors():
    with pytest.raises(TypeError, match="src must be an integer array"):
        TemporalData(src=np.array([0.0, 1.0]), dst=np.array([1, 2]))
    with pytest.raises(ValueError, match="src has 2 events but dst has 3"):
        TemporalData(src=np.array([0, 1]), dst=np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="negative node id"):
        TemporalData(src=np.array([0, -1]), dst=np.array([1, 2]))
    with pytest.raises(ValueError, match="t has 3 rows"):
        TemporalData(src=np.array([0, 1]), dst=np.array([1, 2]), t=np.arange(3))
    with pytest.raises(ValueError, match="msg has 1 rows"):
        TemporalData(src=np.array([0, 1]), dst=np.array([1, 2]), msg=np.ones((1, 2)))
    ev = TemporalData(src=np.array([0, 1]), dst=np.array([1, 2]))
    with pytest.raises(IndexError, match="valid indices"):
        ev[1.5]
    with pytest.raises(IndexError, match="bool mask has 3"):
        ev[np.array([True, False, True])]
    with pytest.raises(IndexError, match="out of range"):
        ev[np.array([5])]
    with pytest.raises(ValueError, match="at least one event"):
        _ = ev[0:0].num_nodes


# ---------------------------------------------------------------- the loader
def _pyg_loader(arrays: dict, **kwargs):
    loader = pytest.importorskip("torch_geometric.loader")
    return loader.TemporalDataLoader(_pyg(arrays), **kwargs)


@pytest.mark.parametrize("batch_size", [1, 4, 10, 30])
@pytest.mark.parametrize("drop_last", [False, True])
def test_loader_batches_match_pyg(batch_size, drop_last):
    arrays = _stream(10)
    ours = list(TemporalDataLoader(TemporalData(**arrays), batch_size, drop_last=drop_last))
    ref = list(_pyg_loader(arrays, batch_size=batch_size, drop_last=drop_last))
    assert (
        len(ours)
        == len(ref)
        == len(TemporalDataLoader(TemporalData(**arrays), batch_size, drop_last=drop_last))
    )
    for a, b in zip(ours, ref):
        _same(a, b)


@pytest.mark.parametrize("ratio", [0.5, 1.0, 2.5])
def test_loader_negative_destinations(ratio):
    arrays = _stream(23)
    arrays["dst"] = arrays["dst"].astype(np.int32) + 5
    data = TemporalData(**arrays)
    ours = list(TemporalDataLoader(data, 5, neg_sampling_ratio=ratio, seed=3))
    again = list(TemporalDataLoader(data, 5, neg_sampling_ratio=ratio, seed=3))
    ref = list(_pyg_loader(arrays, batch_size=5, neg_sampling_ratio=ratio))
    low, high = int(arrays["dst"].min()), int(arrays["dst"].max())
    for a, b, c in zip(ours, ref, again):
        assert sorted(a.keys()) == sorted(b.keys())
        assert a.neg_dst.shape == tuple(b.neg_dst.shape) and a.neg_dst.dtype == np.int32
        assert a.neg_dst.min() >= low and a.neg_dst.max() <= high
        np.testing.assert_array_equal(a.neg_dst, c.neg_dst)
        expect = np.unique(np.concatenate([a.src, a.dst, a.neg_dst]))
        np.testing.assert_array_equal(a.n_id, expect)


def test_loader_errors():
    data = TemporalData(**_stream(5))
    with pytest.raises(TypeError, match="TemporalData"):
        TemporalDataLoader(_stream(5))
    with pytest.raises(ValueError, match="batch_size"):
        TemporalDataLoader(data, 0)
    with pytest.raises(ValueError, match="neg_sampling_ratio"):
        TemporalDataLoader(data, 2, neg_sampling_ratio=-1.0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        TemporalDataLoader(data, 2, sampler=None)
    assert len(TemporalDataLoader(data, 2, shuffle=True, num_workers=2)) == 3
