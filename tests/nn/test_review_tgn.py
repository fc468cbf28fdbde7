"""Review of TemporalData / TemporalDataLoader / TGN (arraygnn/temporal_data.py,
arraygnn/temporal_data_loader.py, arraygnn/nn/tgn.py) against PyG 2.8.1: the cases the
first tests left out."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import TemporalData
from arraygnn.nn import (
    IdentityMessage,
    LastAggregator,
    MeanAggregator,
    TGNMemory,
)


def _pyg_split(src, dst, t, ratios):
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    ref = pyg.TemporalData(
        src=torch.from_numpy(src), dst=torch.from_numpy(dst), t=torch.from_numpy(t)
    )
    return [part.t.numpy() for part in ref.train_val_test_split(*ratios)]


@pytest.mark.parametrize(
    "case",
    [
        "unix_seconds",  # int64 timestamps beyond float32's exact integers
        "jodie_scale",  # dense int64 seconds near 1e7: a fractional quantile rounds up
        "float32_near_tie",  # float32 t: the float64 quantile rounds onto the next t
        "int32",
        "float16",
    ],
)
@pytest.mark.parametrize("ratios", [(0.15, 0.15), (0.1, 0.3), (0.33, 0.17), (0.05, 0.3)])
def test_split_compares_times_as_pyg(case, ratios):
    # PyG compares the tensor t with the numpy quantile as torch does: an integer t with a
    # float in float32 (torch's default dtype), a float t in its own dtype
    rng = np.random.default_rng(sum(map(ord, case)))
    n = 60
    if case == "unix_seconds":
        t = np.sort(1_600_000_000 + rng.integers(0, 5_000, n))
    elif case == "jodie_scale":
        t = np.sort(rng.integers(9_000_000, 9_000_150, n))
    elif case == "float32_near_tie":
        t = (1e7 + np.arange(n)).astype(np.float32)
    elif case == "int32":
        t = np.sort(rng.integers(12_000_000, 12_000_040, n)).astype(np.int32)
    else:
        t = np.sort(rng.uniform(1000, 2000, n)).astype(np.float16)
    src, dst = rng.integers(0, 9, n), rng.integers(0, 9, n)
    expect = _pyg_split(src, dst, t, ratios)
    got = TemporalData(src=src, dst=dst, t=t).train_val_test_split(*ratios)
    assert [len(p) for p in got] == [len(p) for p in expect]
    for a, b in zip(got, expect):
        np.testing.assert_array_equal(a.t, b)


# ---------------------------------------------------------------- aggregators
@pytest.mark.parametrize("cls", [LastAggregator, MeanAggregator])
def test_aggregators_check_their_inputs(cls):
    name = cls.__name__
    msg, t = np.ones((3, 2), np.float32), np.array([1, 2, 3])
    with pytest.raises(ValueError, match=f"{name}: index has entry 5, out of range for size 3"):
        cls()(msg, np.array([0, 5, 1]), t, 3)
    with pytest.raises(ValueError, match=f"{name}: index has a negative entry"):
        cls()(msg, np.array([0, -1, 1]), t, 3)
    with pytest.raises(TypeError, match=f"{name}: index must be an integer array"):
        cls()(msg, np.array([0.0, 1.0, 1.0]), t, 3)
    with pytest.raises(ValueError, match=f"{name}: index has 2 entries but msg has 3 rows"):
        cls()(msg, np.array([0, 1]), t, 3)


def test_last_aggregator_checks_t():
    msg, index = np.ones((3, 2), np.float32), np.array([0, 1, 1])
    with pytest.raises(ValueError, match=r"LastAggregator: t must be \[3\]"):
        LastAggregator()(msg, index, np.array([1, 2]), 3)


def test_update_state_names_a_bool_t():
    mem = TGNMemory(5, 2, 3, 2, IdentityMessage(2, 3, 2), LastAggregator())
    with pytest.raises(ValueError, match=r"t must be \[1\] .* got \[1\] bool"):
        mem.update_state(np.array([0]), np.array([1]), np.array([True]), np.ones((1, 2)))


@pytest.mark.parametrize("base", [LastAggregator, MeanAggregator])
def test_subclassed_aggregator_is_called(base):
    # the built-in shortcuts serve LastAggregator / MeanAggregator themselves; a subclass
    # that overrides the call is called, as PyG calls its aggregator module
    class Zero(base):
        def __call__(self, msg, index, t, dim_size):
            return np.zeros((dim_size, msg.shape[-1]), msg.dtype)

    mem = TGNMemory(6, 2, 3, 2, IdentityMessage(2, 3, 2), Zero(), rng=0).eval()
    start = mem.memory.copy()
    src, dst = np.array([0, 1, 1]), np.array([2, 3, 2])
    mem.update_state(src, dst, np.array([4, 5, 6]), np.ones((3, 2), np.float32))
    n_id = np.array([0, 1, 2, 3])
    expect = mem.gru(np.zeros((4, mem.gru.input_size), np.float32), start[n_id])
    np.testing.assert_allclose(mem.memory[n_id], expect, rtol=1e-6, atol=1e-6)


def test_call_yields_keys_in_the_order_asked():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    arrays = dict(
        src=np.array([0, 1]), dst=np.array([1, 2]), t=np.array([3, 4]), msg=np.ones((2, 1))
    )
    ours = TemporalData(**arrays)
    ref = pyg.TemporalData(**{k: torch.from_numpy(v) for k, v in arrays.items()})
    for args in [("msg", "src"), ("t", "nope", "dst", "t"), ()]:
        assert [k for k, _ in ours(*args)] == [k for k, _ in ref(*args)]


def test_time_encoder_names_a_non_array():
    from arraygnn.nn import TimeEncoder

    with pytest.raises(TypeError, match="TimeEncoder: t must be an array"):
        TimeEncoder(3, rng=0)([1.0, 2.0])


def test_from_pyg_converts_the_tgn_parts():
    # PyG's TGN example shares memory.time_enc with its embedding module: the parts
    # convert on their own too
    torch = pytest.importorskip("torch")
    tgn = pytest.importorskip("torch_geometric.nn.models.tgn")
    from arraygnn.nn import TimeEncoder, from_pyg

    torch.manual_seed(0)
    ref = tgn.TimeEncoder(4).double()
    ours = from_pyg(ref)
    assert isinstance(ours, TimeEncoder) and ours.out_channels == 4
    t = np.array([0.0, 1.5, -3.0, 1e3])
    with torch.no_grad():
        expect = ref(torch.from_numpy(t)).numpy()
    np.testing.assert_allclose(ours(t), expect, rtol=1e-12, atol=1e-12)
    msg = from_pyg(tgn.IdentityMessage(2, 3, 4))
    assert isinstance(msg, IdentityMessage) and msg.out_channels == 12
    assert isinstance(from_pyg(tgn.LastAggregator()), LastAggregator)
    assert isinstance(from_pyg(tgn.MeanAggregator()), MeanAggregator)


def test_loader_takes_the_remaining_dataloader_keywords():
    # PyG's loader hands these to torch's DataLoader, where they change nothing here
    from arraygnn import TemporalDataLoader

    ev = TemporalData(src=np.arange(5), dst=np.arange(5) + 1, t=np.arange(5))
    loader = TemporalDataLoader(
        ev,
        2,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        pin_memory_device="",
        in_order=True,
    )
    assert [b.src.tolist() for b in loader] == [[0, 1], [2, 3], [4]]
