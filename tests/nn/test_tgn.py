"""TGNMemory, its modules and LastNeighborLoader against PyG's (torch_geometric.nn.models.tgn):
the same update_state / forward sequence on both, memory and last_update compared after
every step (weights and state through ``from_pyg``).

PyG 2.8.1 without torch-scatter marks an empty group of ``scatter_argmax`` with
``dim_size - 1`` instead of ``src.size(0)``, so its ``LastAggregator`` gives a node without
messages another node's message (training mode meets such nodes on every first update).
The comparisons in training mode run PyG with ``scatter_argmax`` using torch-scatter's
marker (what ``LastAggregator`` is written for; ties unchanged: the last tied position);
``test_eval_mode_matches_unpatched_pyg`` runs the installed code as it is.

PyG stores a batch's messages in ``torch.sort`` order, which is not stable beyond 16
entries; batches longer than 16 events therefore get distinct timestamps so that
``LastAggregator`` has no tie whose winner PyG leaves open.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tgn = pytest.importorskip("torch_geometric.nn.models.tgn")

from arraygnn.nn import (  # noqa: E402
    IdentityMessage,
    LastAggregator,
    LastNeighborLoader,
    MeanAggregator,
    TGNMemory,
    from_pyg,
)

N, RAW, MEM, TIME = 25, 4, 6, 5


def _argmax_torch_scatter_marker(src, index, dim=0, dim_size=None):
    res = src.new_empty(dim_size)
    res.scatter_reduce_(0, index, src.detach(), reduce="amax", include_self=False)
    out = index.new_full((dim_size,), fill_value=src.numel())
    hit = (src == res[index]).nonzero().view(-1)
    out[index[hit]] = hit
    return out


@pytest.fixture
def marker(monkeypatch):
    monkeypatch.setattr(tgn, "scatter_argmax", _argmax_torch_scatter_marker)


def _pyg_memory(aggr: str, dtype, training: bool):
    torch.manual_seed(0)
    agg = tgn.LastAggregator() if aggr == "last" else tgn.MeanAggregator()
    ref = tgn.TGNMemory(N, RAW, MEM, TIME, tgn.IdentityMessage(RAW, MEM, TIME), agg)
    if dtype == np.float64:
        ref = ref.double()
        ref.reset_state()  # PyG's empty message stores were made float32 at construction
    ref.train(training)  # PyG's TGNMemory.train returns None
    return ref


def _batches(rng, steps, id_dtype, t_dtype, dtype, long_batches=True):
    t0 = 0
    for step in range(steps):
        if long_batches and step % 3 == 2:
            e = int(rng.integers(17, 60))
            t = t0 + 1 + 2 * np.arange(e)  # distinct: no open tie in PyG
        else:
            e = int(rng.integers(1, 17))
            t = t0 + np.sort(rng.integers(0, 3, e))  # ties, repeated nodes
        t0 = int(t[-1])
        yield (
            rng.integers(0, N, e).astype(id_dtype),
            rng.integers(0, N, e).astype(id_dtype),
            t.astype(t_dtype),
            rng.standard_normal((e, RAW)).astype(dtype),
        )


def _check_state(ours, ref, tol):
    np.testing.assert_allclose(ours.memory, ref.memory.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_array_equal(ours.last_update, ref.last_update.numpy())


def _run(ours, ref, rng, steps, id_dtype, t_dtype, dtype, tol):
    for src, dst, t, msg in _batches(rng, steps, id_dtype, t_dtype, dtype):
        given = [a.copy() for a in (src, dst, t, msg)]
        # PyG takes int64 timestamps only (its long last_update buffer refuses others);
        # ours widens int32 and truncates float ones into it (integral here: same result)
        ref.update_state(*(torch.from_numpy(a) for a in (src, dst, t.astype(np.int64), msg)))
        ours.update_state(src, dst, t, msg)
        for a, b in zip(given, (src, dst, t, msg)):
            np.testing.assert_array_equal(a, b)  # nothing the caller passed is changed
        _check_state(ours, ref, tol)
        n_id = np.unique(rng.integers(0, N, 9)).astype(id_dtype)
        with torch.no_grad():
            ref_mem, ref_last = ref(torch.from_numpy(n_id))
        mem, last = ours(n_id)
        np.testing.assert_allclose(mem, ref_mem.numpy(), rtol=tol, atol=tol)
        np.testing.assert_array_equal(last, ref_last.numpy())


@pytest.mark.usefixtures("marker")
@pytest.mark.parametrize("aggr", ["last", "mean"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize(
    "dtype,id_dtype,t_dtype",
    [
        (np.float32, np.int64, np.int64),
        (np.float32, np.int32, np.int32),
        (np.float64, np.int64, np.int64),
        (np.float64, np.int32, np.float64),
        (np.float32, np.int64, np.float32),
    ],
)
def test_update_sequence_matches_pyg(aggr, training, dtype, id_dtype, t_dtype):
    ref = _pyg_memory(aggr, dtype, training)
    ours = from_pyg(ref)
    assert isinstance(ours, TGNMemory) and ours.training == training
    assert ours.memory.dtype == dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    rng = np.random.default_rng(hash((aggr, training, str(dtype), str(t_dtype))) % 2**32)
    _run(ours, ref, rng, 12, id_dtype, t_dtype, dtype, tol)
    if training:  # leaving training mode flushes the stores, on both
        ref.eval()
        ours.eval()
        _check_state(ours, ref, tol)
        _run(ours, ref, rng, 6, id_dtype, t_dtype, dtype, tol)


@pytest.mark.usefixtures("marker")
@pytest.mark.parametrize("aggr,training", [("last", True), ("mean", False)])
def test_long_stream_grows_and_compacts_the_stores(aggr, training):
    # ~1,300 stored rows for 25 nodes: the logs grow past their first 1,024 rows and
    # drop dead rows several times
    ref = _pyg_memory(aggr, np.float32, training)
    ours = from_pyg(ref)
    _run(ours, ref, np.random.default_rng(8), 70, np.int64, np.int64, np.float32, 5e-5)
    # far more than 1,024 events went through a log that never had to grow
    assert ours._s_store.key.shape[0] == 1024 and ours._s_store.size < 1024


def test_message_store_grows_and_keeps_each_nodes_last_batch():
    from arraygnn.nn.tgn import _MessageStore

    rng = np.random.default_rng(0)
    store = _MessageStore(np, 3000, 2, np.float32)
    expect = {}
    for step in range(12):
        key = rng.choice(3000, 700, replace=True)
        other = rng.integers(0, 3000, 700)
        t = np.full(700, step)
        msg = rng.standard_normal((700, 2)).astype(np.float32)
        store.put(key, other, t, msg)
        for k in np.unique(key):
            sel = np.nonzero(key == k)[0]
            expect[int(k)] = (other[sel], msg[sel])
    assert store.key.shape[0] > 1024  # grown
    n_id = np.array(sorted(expect))
    rows, counts = store.rows(n_id)
    assert counts.tolist() == [len(expect[k][0]) for k in n_id]
    np.testing.assert_array_equal(store.key[rows], np.repeat(n_id, counts))
    np.testing.assert_array_equal(store.other[rows], np.concatenate([expect[k][0] for k in n_id]))
    np.testing.assert_array_equal(store.msg[rows], np.concatenate([expect[k][1] for k in n_id]))


@pytest.mark.parametrize("aggr", ["last", "mean"])
def test_eval_mode_matches_unpatched_pyg(aggr):
    ref = _pyg_memory(aggr, np.float32, training=False)
    ours = from_pyg(ref)
    _run(ours, ref, np.random.default_rng(5), 12, np.int64, np.int64, np.float32, 2e-5)


@pytest.mark.usefixtures("marker")
def test_conversion_mid_stream_carries_the_state():
    ref = _pyg_memory("last", np.float32, training=True)
    rng = np.random.default_rng(2)
    for src, dst, t, msg in _batches(rng, 5, np.int64, np.int64, np.float32):
        ref.update_state(*(torch.from_numpy(a) for a in (src, dst, t, msg)))
    ours = from_pyg(ref)
    _check_state(ours, ref, 1e-6)
    _run(ours, ref, rng, 6, np.int64, np.int64, np.float32, 2e-5)


@pytest.mark.usefixtures("marker")
def test_training_forward_with_repeated_and_unsorted_ids():
    ref = _pyg_memory("mean", np.float32, training=True)
    ours = from_pyg(ref)
    rng = np.random.default_rng(4)
    _run(ours, ref, rng, 4, np.int64, np.int64, np.float32, 2e-5)
    n_id = np.array([7, 3, 7, 0, 3])
    uniq = np.unique(n_id)
    with torch.no_grad():
        ref_mem, ref_last = ref(torch.from_numpy(uniq))
    mem, last = ours(n_id)
    pos = np.searchsorted(uniq, n_id)
    np.testing.assert_allclose(mem, ref_mem.numpy()[pos], rtol=2e-5, atol=2e-5)
    np.testing.assert_array_equal(last, ref_last.numpy()[pos])


def test_single_event_empty_batch_and_reset():
    mem = TGNMemory(4, 2, 3, 2, IdentityMessage(2, 3, 2), LastAggregator(), rng=0).eval()
    mem.update_state(np.array([1]), np.array([2]), np.array([7]), np.ones((1, 2), np.float32))
    before = mem.memory.copy()
    mem.update_state(
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros((0, 2), np.float32),
    )  # a no-op (PyG's raises)
    np.testing.assert_array_equal(mem.memory, before)
    assert mem.last_update.tolist() == [0, 7, 7, 0]
    # eval() from the fresh (training) module flushed every node once: gru(0, 0) (PyG's)
    flushed = before[0]
    np.testing.assert_array_equal(before[3], flushed)
    assert not np.allclose(before[1], flushed) and not np.allclose(before[2], flushed)
    mem.reset_state()
    assert not mem.memory.any() and not mem.last_update.any()
    mem.detach()


@pytest.mark.usefixtures("marker")
@pytest.mark.parametrize("cls", ["LastAggregator", "MeanAggregator"])
def test_aggregators_match_pyg(cls):
    rng = np.random.default_rng(0)
    msg = rng.standard_normal((30, 4)).astype(np.float32)
    index = rng.integers(0, 8, 30)  # some of the 10 groups stay empty
    t = rng.integers(0, 4, 30)  # ties: the last one wins
    ref = getattr(tgn, cls)()(*(torch.from_numpy(a) for a in (msg, index, t)), 10)
    ours = {"LastAggregator": LastAggregator, "MeanAggregator": MeanAggregator}[cls]()
    np.testing.assert_allclose(ours(msg, index, t, 10), ref.numpy(), rtol=1e-6, atol=1e-6)


def test_time_encoder_and_identity_message_match_pyg():
    ref = _pyg_memory("last", np.float32, True)
    ours = from_pyg(ref)
    t = np.array([0.0, 3.0, 1e4], np.float32)
    with torch.no_grad():
        expect = ref.time_enc(torch.from_numpy(t))
    got = ours.time_enc(t)
    np.testing.assert_allclose(got[:2], expect.numpy()[:2], rtol=1e-5, atol=1e-5)
    # at t = 1e4 the float32 argument w * t + b carries ~1e4 * 2^-24 of rounding, which
    # depends on the matmul's order of operations (ours and torch's): compare to that
    np.testing.assert_allclose(got[2], expect.numpy()[2], atol=2e-3)
    w = ref.time_enc.lin.weight.detach().double().numpy()[:, 0]
    b = ref.time_enc.lin.bias.detach().double().numpy()
    np.testing.assert_allclose(got[2], np.cos(w * 1e4 + b), atol=2e-3)
    assert got.shape == (3, TIME)
    parts = [np.ones((2, 3)), np.zeros((2, 3)), np.full((2, 1), 2.0), np.ones((2, 2))]
    out = IdentityMessage(1, 3, 2)(*parts)
    expect = tgn.IdentityMessage(1, 3, 2)(*(torch.from_numpy(p) for p in parts))
    np.testing.assert_array_equal(out, expect.numpy())
    assert IdentityMessage(1, 3, 2).out_channels == 9


def test_update_state_errors():
    mem = TGNMemory(5, 2, 3, 2, IdentityMessage(2, 3, 2), MeanAggregator())
    ok = dict(
        src=np.array([0, 1]),
        dst=np.array([1, 2]),
        t=np.array([1, 2]),
        raw_msg=np.ones((2, 2), np.float32),
    )
    with pytest.raises(ValueError, match="update_state: src has entry 5, out of range for size 5"):
        mem.update_state(**{**ok, "src": np.array([0, 5])})
    with pytest.raises(ValueError, match="dst has a negative entry"):
        mem.update_state(**{**ok, "dst": np.array([-1, 2])})
    with pytest.raises(TypeError, match="src must be an integer array"):
        mem.update_state(**{**ok, "src": np.array([0.0, 1.0])})
    with pytest.raises(ValueError, match="src has 2 events but dst has 1"):
        mem.update_state(**{**ok, "dst": np.array([1])})
    with pytest.raises(ValueError, match=r"t must be \[2\]"):
        mem.update_state(**{**ok, "t": np.array([1, 2, 3])})
    with pytest.raises(ValueError, match=r"raw_msg must be \[2, 2\]"):
        mem.update_state(**{**ok, "raw_msg": np.ones((2, 3), np.float32)})
    with pytest.raises(ValueError, match="n_id has entry 9"):
        mem(np.array([9]))
    with pytest.raises(TypeError, match="out_channels"):
        TGNMemory(5, 2, 3, 2, lambda *a: a[0], MeanAggregator())


def test_converter_refuses_unknown_modules():
    class Doubling(torch.nn.Module):
        out_channels = 2 * MEM + RAW + TIME

        def forward(self, a, b, c, d):  # pragma: no cover - never called
            return torch.cat([a, b, c, d], -1)

    ref = tgn.TGNMemory(N, RAW, MEM, TIME, Doubling(), tgn.LastAggregator())
    with pytest.raises(ValueError, match="message module Doubling"):
        from_pyg(ref)


# ---------------------------------------------------------------- LastNeighborLoader
def _compare_loader(size, batches, queries, id_dtype):
    ref = tgn.LastNeighborLoader(N, size)
    ours = LastNeighborLoader(N, size)
    for (src, dst), n_id in zip(batches, queries):
        ref.insert(torch.from_numpy(src.astype(np.int64)), torch.from_numpy(dst.astype(np.int64)))
        ours.insert(src.astype(id_dtype), dst.astype(id_dtype))
        for a, b in zip(ours(n_id.astype(id_dtype)), ref(torch.from_numpy(n_id))):
            np.testing.assert_array_equal(a, b.numpy())


@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("size", [1, 2, 5])
def test_neighbor_loader_short_batches_match_pyg(size, id_dtype):
    # up to 8 events: a node may get more than `size` new interactions (self-loops too)
    rng = np.random.default_rng(size)
    batches = [
        tuple(rng.integers(0, 6, int(rng.integers(0, 9))) for _ in range(2)) for _ in range(12)
    ]
    batches = [(s, d[: len(s)]) if len(d) >= len(s) else (s[: len(d)], d) for s, d in batches]
    queries = [rng.integers(0, N, int(rng.integers(1, 7))) for _ in batches]  # repeats too
    _compare_loader(size, batches, queries, id_dtype)


@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_neighbor_loader_long_batches_match_pyg(id_dtype):
    rng = np.random.default_rng(9)
    batches, queries = [], []
    while len(batches) < 10:
        src, dst = rng.integers(0, N, 40), rng.integers(0, N, 40)
        if np.bincount(np.concatenate([src, dst]), minlength=N).max() <= 10:
            batches.append((src, dst))
            queries.append(np.unique(rng.integers(0, N, 8)))
        elif len(batches) == 0 and rng.random() < 0.01:  # pragma: no cover
            break
    assert batches
    _compare_loader(10, batches, queries, id_dtype)


def test_neighbor_loader_reset_and_errors():
    loader = LastNeighborLoader(4, 2)
    loader.insert(np.array([0]), np.array([1]))
    loader.reset_state()
    n_id, edge_index, e_id = loader(np.array([0, 1]))
    assert n_id.tolist() == [0, 1] and edge_index.shape == (2, 0) and e_id.size == 0
    with pytest.raises(ValueError, match="src has entry 4"):
        loader.insert(np.array([4]), np.array([0]))
    with pytest.raises(ValueError, match="src has 1 events but dst has 2"):
        loader.insert(np.array([1]), np.array([0, 1]))
    with pytest.raises(TypeError, match="n_id must be an integer array"):
        loader(np.array([0.5]))
    with pytest.raises(ValueError, match="size must be in"):
        LastNeighborLoader(4, 0)
