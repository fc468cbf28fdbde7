"""arraygnn.nn.MLP with PyG's norms (``norm`` / ``norm_kwargs``, ``batch`` / ``batch_size`` /
``return_emb`` in the call) against torch_geometric.nn.MLP, through from_pyg and natively."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from arraygnn.nn import MLP, from_pyg
from tests.nn._nn_cases import TOL, rel_err

torch = pytest.importorskip("torch")
PygMLP = pytest.importorskip("torch_geometric.nn").MLP

CHANNELS = [5, 8, 7, 3]
NORMS = [
    ("batch_norm", None),
    ("layer_norm", None),  # graph mode
    ("layer_norm", {"mode": "node"}),
    ("graph_norm", None),
    ("instance_norm", None),
    ("instance_norm", {"affine": True, "track_running_stats": True}),
    ("pair_norm", {"scale_individually": True}),
    ("pair_norm", None),
]


def _pyg(norm, norm_kwargs, plain_last, act_first, tdtype, gen, channels=CHANNELS):
    model = PygMLP(
        channels,
        norm=norm,
        norm_kwargs=norm_kwargs,
        plain_last=plain_last,
        act_first=act_first,
        act="leaky_relu",
        act_kwargs={"negative_slope": 0.2},
    ).to(tdtype)
    with torch.no_grad():  # random weights and running statistics, so every norm matters
        for p in model.parameters():
            p.copy_(torch.as_tensor(gen.normal(0, 0.7, tuple(p.shape))))
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.as_tensor(gen.normal(0, 0.5, tuple(b.shape))))
            elif name.endswith("running_var"):
                b.copy_(torch.as_tensor(gen.uniform(0.5, 2.0, tuple(b.shape))))
    return model.eval()


def _ref(model, x, batch, batch_size, return_emb=None):
    b = None if batch is None else torch.as_tensor(batch.astype(np.int64))
    with torch.no_grad():
        out = model(torch.as_tensor(x), b, batch_size, return_emb=return_emb)
    if isinstance(out, tuple):
        return tuple(None if o is None else o.numpy() for o in out)
    return out.numpy()


@pytest.mark.parametrize("norm,norm_kwargs", NORMS)
@pytest.mark.parametrize("plain_last", [True, False])
@pytest.mark.parametrize("act_first", [False, True])
def test_from_pyg_mlp_with_norm_matches(norm, norm_kwargs, plain_last, act_first):
    gen = np.random.default_rng(zlib.crc32(f"{norm}{norm_kwargs}{plain_last}{act_first}".encode()))
    for dtype, tdtype in ((np.float32, torch.float32), (np.float64, torch.float64)):
        model = _pyg(norm, norm_kwargs, plain_last, act_first, tdtype, gen)
        ours = from_pyg(model)
        assert set(ours.state_dict()) == {
            k for k in model.state_dict() if not k.endswith("num_batches_tracked")
        }
        x = gen.normal(size=(11, CHANNELS[0])).astype(dtype)
        batch = np.array([0, 0, 0, 2, 2, 1, 1, 1, 1, 2, 0], dtype=np.int32)  # unsorted
        x_before, batch_before = x.copy(), batch.copy()
        for b, size in ((None, None), (batch, None), (batch, 3), (batch.astype(np.int64), 4)):
            expected = _ref(model, x, b, size)
            got = ours(x, b, size)
            assert got.dtype == dtype
            assert rel_err(got, expected) < 10 * TOL[dtype], (dtype, b is None, size)
            # return_emb: (out, emb) with a bool, emb None for False (PyG's forward)
            out, emb = ours(x, batch=b, batch_size=size, return_emb=True)
            ref_out, ref_emb = _ref(model, x, b, size, return_emb=True)
            assert rel_err(out, ref_out) < 10 * TOL[dtype]
            assert rel_err(emb, ref_emb) < 10 * TOL[dtype]
            assert ours(x, b, size, return_emb=False)[1] is None
        np.testing.assert_array_equal(x, x_before)
        np.testing.assert_array_equal(batch, batch_before)


@pytest.mark.parametrize("norm,norm_kwargs", NORMS)
def test_native_mlp_with_norm_loads_pyg_state_dict(norm, norm_kwargs):
    """An MLP built with PyG's norm name / norm_kwargs has PyG's names and, with PyG's
    weights loaded by name, PyG's numbers."""
    gen = np.random.default_rng(zlib.crc32(f"native-{norm}-{norm_kwargs}".encode()))
    model = _pyg(norm, norm_kwargs, False, False, torch.float64, gen)
    ours = MLP(
        CHANNELS,
        act=lambda h: np.where(h > 0, h, 0.2 * h),
        norm=norm,
        norm_kwargs=norm_kwargs,
        plain_last=False,
        dtype=np.float64,
    )
    theirs = {k for k in model.state_dict() if not k.endswith("num_batches_tracked")}
    assert set(ours.state_dict(format="pyg")) == theirs
    ours.load_state_dict(model.state_dict())
    x = gen.normal(size=(9, CHANNELS[0]))
    batch = np.repeat(np.arange(3), 3)
    for b, size in ((None, None), (batch, 3)):
        assert rel_err(ours(x, b, size), _ref(model, x, b, size)) < 1e-12


@pytest.mark.parametrize("norm", ["LayerNorm", "graph", "Instance-Norm", "pairnorm"])
def test_norm_names_spelled_as_pyg_resolver_takes_them(norm):
    gen = np.random.default_rng(5)
    model = _pyg(norm, None, True, False, torch.float32, gen)
    ours = MLP(CHANNELS, act=lambda h: np.where(h > 0, h, 0.2 * h), norm=norm)
    ours.load_state_dict(model.state_dict())
    x = gen.normal(size=(7, CHANNELS[0])).astype(np.float32)
    batch = np.array([0, 0, 1, 1, 1, 0, 1])
    assert rel_err(ours(x, batch), _ref(model, x, batch, None)) < 1e-5


def test_batch_norm_default_and_plain_call_unchanged():
    """``mlp(x)`` and batch_norm keep PyG's ``norms.0.module.weight`` names (PyG's other
    norms keep theirs, ``norms.0.weight``); ``batch`` changes nothing for a norm that does
    not take it."""
    ours = MLP([4, 6, 2], norm="batch_norm", rng=0)
    assert ours.norm == "batch_norm"
    assert "norms.0.module.weight" in ours.state_dict()
    assert "norms.0.weight" not in ours.state_dict()
    assert "norms.0.weight" in MLP([4, 6, 2], norm="layer_norm", rng=0).state_dict()
    x = np.random.default_rng(1).normal(size=(5, 4)).astype(np.float32)
    np.testing.assert_array_equal(ours(x), ours(x, np.array([0, 0, 1, 1, 1]), 2))
    plain = MLP([4, 6, 2], rng=0)
    assert plain.norms is None and plain.norm is None
    assert plain(x).shape == (5, 2)
    # a single layer with plain_last: no norm ran, so PyG's emb is None
    out, emb = MLP([4, 2], norm="layer_norm", rng=0)(x, return_emb=True)
    assert out.shape == (5, 2) and emb is None


def test_empty_input_matches_pyg():
    gen = np.random.default_rng(9)
    for norm in ("batch_norm", "graph_norm", "pair_norm"):
        model = _pyg(norm, None, True, False, torch.float32, gen)
        x = np.zeros((0, CHANNELS[0]), np.float32)
        got = from_pyg(model)(x, np.zeros(0, np.int64), 0)
        assert got.shape == (0, CHANNELS[-1])
        assert got.shape == _ref(model, x, np.zeros(0, np.int64), 0).shape


def test_errors_name_mlp_and_argument():
    with pytest.raises(ValueError, match="MLP: norm must be None or one of"):
        MLP([4, 6, 2], norm="message_norm")
    with pytest.raises(ValueError, match="MLP: norm_kwargs .* need a norm"):
        MLP([4, 6, 2], norm_kwargs={"mode": "node"})
    with pytest.raises(ValueError, match="MLP: norm_kwargs .*bad"):
        MLP([4, 6, 2], norm="graph_norm", norm_kwargs={"bad": 1})
    with pytest.raises(ValueError, match="MLP: norm_kwargs .* batch_norm"):
        MLP([4, 6, 2], norm="batch_norm", norm_kwargs={"mode": "node"})
    # a torch norm module (not one of PyG's norm layers) inside PyG's MLP
    model = PygMLP([4, 6, 2], norm=torch.nn.LayerNorm(6))
    with pytest.raises(ValueError, match="from_pyg: MLP norm"):
        from_pyg(model)
    mlp = MLP([4, 6, 2], norm="graph_norm", rng=0)
    with pytest.raises(ValueError, match="GraphNorm"):  # the norm names a bad batch
        mlp(np.ones((3, 4), np.float32), np.array([0, 1]))
