"""Parity sweep of the temporal-graph pieces against PyG 2.8.1 (torch_geometric.data.TemporalData,
torch_geometric.loader.TemporalDataLoader, torch_geometric.nn.models.tgn): the options and
inputs the earlier temporal tests leave out (int32 ids, ties in t, a node seen only as dst,
empty batches and queries, mode switches and resets mid-stream, odd split ratios), and the
errors for bad options."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import TemporalData, TemporalDataLoader
from arraygnn.nn import (
    IdentityMessage,
    LastAggregator,
    LastNeighborLoader,
    MeanAggregator,
    TGNMemory,
    from_pyg,
)

torch = pytest.importorskip("torch")
pyg_data = pytest.importorskip("torch_geometric.data")
pyg_loader = pytest.importorskip("torch_geometric.loader")
tgn = pytest.importorskip("torch_geometric.nn.models.tgn")


def _events(id_dtype=np.int32, n=9, seed=0):
    """Events with ties in t; node 8 appears only as a destination."""
    rng = np.random.default_rng(seed)
    return dict(
        src=rng.integers(0, 5, n).astype(id_dtype),
        dst=np.r_[rng.integers(2, 8, n - 1), 8].astype(id_dtype),
        t=np.sort(rng.integers(0, 4, n)),
        msg=rng.standard_normal((n, 2)).astype(np.float32),
    )


def _pyg(arrays):
    return pyg_data.TemporalData(**{k: torch.from_numpy(v) for k, v in arrays.items()})


def _same(ours, ref):
    assert sorted(ours.keys()) == sorted(ref.keys())
    for key in ours.keys():
        got, want = ours[key], ref[key].numpy()
        assert got.dtype == want.dtype, key
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- TemporalData
@pytest.mark.parametrize(
    "idx", [[True, False] * 4 + [True], (-1, -3), np.array([4, 0, 4], np.int32), np.int64(2)]
)
def test_indexing_int32_ids_matches_pyg(idx):
    arrays = _events()
    ours, ref = TemporalData(**arrays), _pyg(arrays)
    assert ours.num_nodes == ref.num_nodes == 9 and ours.size() == ref.size()
    ref_idx = idx
    if isinstance(idx, np.ndarray):  # PyG takes long index tensors only
        ref_idx = torch.from_numpy(idx.astype(np.int64))
    elif isinstance(idx, np.integer):  # PyG's prepare_idx takes a Python int only
        ref_idx = int(idx)
    _same(ours[idx], ref[ref_idx])


@pytest.mark.parametrize("t_dtype", [np.float16, np.uint8, np.int32])
@pytest.mark.parametrize("ratios", [(0.2, 0.0), (0.0, 0.0), (0.5, 0.5), (1.0, 0.0)])
def test_split_edge_ratios_match_pyg(t_dtype, ratios):
    arrays = _events(np.int64, n=13, seed=1)
    arrays["t"] = arrays["t"].astype(t_dtype)
    ours = TemporalData(**arrays).train_val_test_split(*ratios)
    ref = _pyg(arrays).train_val_test_split(*ratios)
    for a, b in zip(ours, ref):
        _same(a, b)


@pytest.mark.parametrize(
    "ratios, error, match",
    [
        ((-0.1, 0.2), ValueError, "val_ratio"),  # PyG: overlapping train and test parts
        ((0.2, -0.1), ValueError, "test_ratio"),
        ((0.7, 0.7), ValueError, "val_ratio \\+ test_ratio"),
        ((float("nan"), 0.2), ValueError, "val_ratio"),
        (("0.2", 0.2), TypeError, "val_ratio"),
    ],
)
def test_split_names_a_bad_ratio(ratios, error, match):
    with pytest.raises(error, match=match):
        TemporalData(**_events()).train_val_test_split(*ratios)


def test_split_of_an_empty_stream_is_three_empty_parts():
    # PyG's numpy.quantile fails with an IndexError on an empty t
    empty = TemporalData(**_events())[0:0]
    parts = empty.train_val_test_split()
    assert [len(p) for p in parts] == [0, 0, 0]
    assert all(p.msg.shape == (0, 2) and p.src.dtype == np.int32 for p in parts)


def test_supersets_of_pygs_indexing():
    ev = TemporalData(**_events())
    assert len(ev[[]]) == 0  # PyG: torch.tensor([]) is a float tensor, an IndexError
    np.testing.assert_array_equal(ev[::-1].t, ev.t[::-1])  # PyG: "step must be > 0"


# ---------------------------------------------------------------- TemporalDataLoader
@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (4, False), (4, True), (9, True)])
def test_loader_int32_ids_match_pyg(batch_size, drop_last):
    arrays = _events()
    ours = list(TemporalDataLoader(TemporalData(**arrays), batch_size, drop_last=drop_last))
    ref = list(pyg_loader.TemporalDataLoader(_pyg(arrays), batch_size, drop_last=drop_last))
    assert len(ours) == len(ref)
    for a, b in zip(ours, ref):
        _same(a, b)  # n_id int32 as PyG's (unique of int32 tensors)


@pytest.mark.parametrize("ratio", [0.5, 1.5])
def test_loader_negatives_on_the_short_last_batch(ratio):
    arrays = _events()
    ours = list(TemporalDataLoader(TemporalData(**arrays), 4, ratio, seed=0))
    ref = list(pyg_loader.TemporalDataLoader(_pyg(arrays), 4, ratio))
    assert [len(b.neg_dst) for b in ours] == [len(b.neg_dst) for b in ref]  # round(): 2, 2, 0
    for a, b in zip(ours, ref):
        assert a.neg_dst.dtype == b.neg_dst.numpy().dtype == np.int32
        assert a.neg_dst.size == 0 or (a.neg_dst.min() >= 2 and a.neg_dst.max() <= 8)
        np.testing.assert_array_equal(a.n_id, np.unique(np.r_[a.src, a.dst, a.neg_dst]))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(neg_sampling_ratio="1"), TypeError, "neg_sampling_ratio"),
        (dict(neg_sampling_ratio=float("inf")), ValueError, "neg_sampling_ratio"),
        (dict(neg_sampling_ratio=-1.0), ValueError, "neg_sampling_ratio"),  # PyG: none drawn
        (dict(neg_sampling_ratio=1.0, seed="x"), TypeError, "seed"),
    ],
)
def test_loader_names_a_bad_option(kwargs, error, match):
    with pytest.raises(error, match=match):
        TemporalDataLoader(TemporalData(**_events()), 2, **kwargs)


def test_loader_needs_src_and_dst():
    with pytest.raises(ValueError, match="data needs src and dst"):
        TemporalDataLoader(TemporalData(src=np.array([0, 1])), 1)


# ---------------------------------------------------------------- TGN pieces
def _marker_argmax(src, index, dim=0, dim_size=None):
    """torch-scatter's empty-group marker (see tests/nn/test_tgn.py)."""
    res = src.new_empty(dim_size)
    res.scatter_reduce_(0, index, src.detach(), reduce="amax", include_self=False)
    out = index.new_full((dim_size,), fill_value=src.numel())
    hit = (src == res[index]).nonzero().view(-1)
    out[index[hit]] = hit
    return out


@pytest.mark.parametrize("aggr", ["last", "mean"])
def test_memory_mode_switches_and_reset_midstream_match_pyg(aggr, monkeypatch):
    monkeypatch.setattr(tgn, "scatter_argmax", _marker_argmax)
    n, rng = 8, np.random.default_rng(5)
    torch.manual_seed(1)
    agg = tgn.LastAggregator() if aggr == "last" else tgn.MeanAggregator()
    ref = tgn.TGNMemory(n, 3, 4, 2, tgn.IdentityMessage(3, 4, 2), agg)
    ours, t0 = from_pyg(ref), 0
    for act in "TTEETRTEE":
        if act == "R":
            ref.reset_state()
            ours.reset_state()
            continue
        ref.train(act == "T")
        ours.train(act == "T")
        e = int(rng.integers(1, 6))
        src, dst = rng.integers(0, n, e).astype(np.int32), rng.integers(0, n, e)
        t = t0 + np.sort(rng.integers(0, 3, e))  # ties
        t0, msg = int(t[-1]), rng.standard_normal((e, 3)).astype(np.float32)
        ref.update_state(*(torch.from_numpy(a) for a in (src.astype(np.int64), dst, t, msg)))
        ours.update_state(src, dst, t, msg)
        np.testing.assert_allclose(ours.memory, ref.memory.detach().numpy(), atol=1e-6)
        np.testing.assert_array_equal(ours.last_update, ref.last_update.numpy())
        q = np.unique(rng.integers(0, n, 4)).astype(np.int32)
        with torch.no_grad():
            ref_mem, ref_last = ref(torch.from_numpy(q))
        mem, last = ours(q)
        np.testing.assert_allclose(mem, ref_mem.numpy(), atol=1e-6)
        np.testing.assert_array_equal(last, ref_last.numpy())
        assert mem.dtype == np.float32 and last.dtype == np.int64


@pytest.mark.parametrize("training", [True, False])
def test_memory_of_no_nodes_is_empty(training):
    # PyG raises (its message gathering unpacks an empty list) in training mode
    mem = TGNMemory(4, 2, 3, 2, IdentityMessage(2, 3, 2), LastAggregator(), rng=0)
    mem.update_state(np.array([0]), np.array([1]), np.array([1]), np.ones((1, 2), np.float32))
    mem.train(training)
    m, last = mem(np.zeros(0, np.int32))
    assert m.shape == (0, 3) and m.dtype == np.float32 and last.shape == (0,)


def test_message_module_of_the_wrong_width_is_named():
    mem = TGNMemory(4, 2, 3, 2, IdentityMessage(2, 3, 3), MeanAggregator(), rng=0)  # 11 != 10
    mem.update_state(np.array([0]), np.array([1]), np.array([1]), np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match=r"message_module gave \[1, 10\].*out_channels=11"):
        mem(np.array([0]))


@pytest.mark.parametrize(
    "index, t, dim_size",
    [
        ([0, 0, 2, 2, 2, 1], [1, 1, 3, 5, 5, 0], 3),  # ties, every node has a message
        ([3, 1, 3, 2, 0, 0], [2, 2, 2, 2, 2, 2], 4),  # all tied, unsorted index
        ([], [], 2),
    ],
)
def test_aggregators_int32_index_and_ties_match_pyg(index, t, dim_size):
    msg = np.arange(2 * len(index), dtype=np.float32).reshape(-1, 2)
    index64, t64 = np.array(index, np.int64), np.array(t, np.int64)
    for ours, ref in (
        (LastAggregator(), tgn.LastAggregator()),
        (MeanAggregator(), tgn.MeanAggregator()),
    ):
        # PyG's LastAggregator takes long indices only; ours any integer dtype
        want = ref(*(torch.from_numpy(a) for a in (msg, index64, t64)), dim_size).numpy()
        got = ours(msg, index64.astype(np.int32), t64.astype(np.int32), dim_size)
        np.testing.assert_array_equal(got, want)


def test_last_aggregator_needs_t():
    with pytest.raises(ValueError, match="LastAggregator: t must be"):
        LastAggregator()(np.ones((1, 2)), np.array([0]), None, 1)


@pytest.mark.parametrize("shape", [(2, 3), (0,)])
def test_time_encoder_flattens_t_as_pyg(shape):
    torch.manual_seed(0)
    ref = tgn.TimeEncoder(4)
    t = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    with torch.no_grad():
        want = ref(torch.from_numpy(t)).numpy()
    got = from_pyg(ref)(t)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("size", [1, 3])
def test_neighbor_loader_reset_empty_inserts_and_queries_match_pyg(size):
    rng = np.random.default_rng(size)
    ref, ours = tgn.LastNeighborLoader(8, size), LastNeighborLoader(8, size)
    batches = [
        ([0, 1, 1], [1, 1, 2]),
        ([], []),
        ([5, 5], [0, 0]),
        "reset",
        ([2], [2]),
        ([3, 4], [7, 3]),
    ]
    for batch in batches:
        if batch == "reset":
            ref.reset_state()
            ours.reset_state()
            continue
        src, dst = (np.array(a, np.int32) for a in batch)
        ref.insert(torch.from_numpy(src.astype(np.int64)), torch.from_numpy(dst.astype(np.int64)))
        ours.insert(src, dst)
        assert ours.cur_e_id == ref.cur_e_id
        for q in (np.array([1, 1, 0]), np.zeros(0, np.int64), rng.integers(0, 8, 4)):
            got = ours(q.astype(np.int32))
            for a, b in zip(got, ref(torch.from_numpy(q))):
                assert a.dtype == np.int64
                np.testing.assert_array_equal(a, b.numpy())
