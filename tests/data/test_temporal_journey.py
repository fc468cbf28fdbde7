"""A PyG temporal-graph user porting the data side of PyG's TGN example: TemporalData
round trips with PyG, the copies / checks a training script calls, and the loader."""

import numpy as np
import pytest

from arraygnn import TemporalData, TemporalDataLoader


def _events(num=9, seed=0):
    rng = np.random.default_rng(seed)
    return TemporalData(
        src=rng.integers(0, 4, num),
        dst=rng.integers(4, 8, num),
        t=np.sort(rng.integers(0, 100, num)),
        msg=rng.random((num, 3)).astype(np.float32),
        y=rng.integers(0, 2, num),
    )


def test_from_pyg_and_to_pyg_take_a_temporal_data():
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    from arraygnn.interop import from_pyg, to_pyg

    ours = _events()
    theirs = to_pyg(ours)  # what PyG's JODIEDataset holds
    assert type(theirs) is tg.data.TemporalData
    assert theirs.num_nodes == ours.num_nodes and len(theirs) == len(ours)
    for key in ours.keys():
        assert isinstance(theirs[key], torch.Tensor)
        np.testing.assert_array_equal(theirs[key].numpy(), ours[key])
    back = from_pyg(theirs)
    assert type(back) is TemporalData and back.keys() == ours.keys()
    for key in ours.keys():
        assert back[key].dtype == ours[key].dtype
        assert np.shares_memory(back[key], ours[key])  # zero-copy both ways
    split = [len(part) for part in back.train_val_test_split(0.2, 0.2)]
    assert split == [len(part) for part in theirs.train_val_test_split(0.2, 0.2)]


def test_clone_cpu_apply_and_get_as_on_data():
    ev = _events()
    twin = ev.clone()
    assert type(twin) is TemporalData and twin.keys() == ev.keys()
    assert not np.shares_memory(twin.msg, ev.msg)
    np.testing.assert_array_equal(twin.msg, ev.msg)
    assert np.shares_memory(ev.cpu().msg, ev.msg)
    doubled = ev.apply(lambda a: a * 2)
    np.testing.assert_array_equal(doubled.t, ev.t * 2)
    assert doubled.t is not ev.t and ev.t.max() < 100  # the input is left alone
    assert ev.get("msg") is ev.msg and ev.get("missing", 3) == 3


def test_validate_rechecks_values_set_after_construction():
    ev = _events()
    assert ev.validate() is True
    ev.msg = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="msg has 2 rows"):
        ev.validate()
    ev = _events()
    ev.dst = -ev.dst
    with pytest.raises(ValueError, match="dst holds a negative node id"):
        ev.validate()


def test_loader_batches_carry_every_event_attribute_and_the_last_short_batch():
    ev = _events()
    batches = list(TemporalDataLoader(ev, batch_size=4, neg_sampling_ratio=0.5, seed=0))
    assert [len(b) for b in batches] == [4, 4, 1]
    np.testing.assert_array_equal(np.concatenate([b.y for b in batches]), ev.y)
    # round(0.5 * 1) == 0 (Python's round, as PyG's): the last batch has no negatives
    assert [b.neg_dst.shape[0] for b in batches] == [2, 2, 0]
    for b in batches:
        expected = np.unique(np.concatenate([b.src, b.dst, b.neg_dst]))
        np.testing.assert_array_equal(b.n_id, expected)
