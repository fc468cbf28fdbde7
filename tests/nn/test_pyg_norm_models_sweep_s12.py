"""Parity sweep (session 12): ``arraygnn.nn.norm``, ``MLP``, the BasicGNN models and
``JumpingKnowledge`` against PyG 2.8.1 in eval mode, over argument combinations the other
tests leave out (bias lists, keyword channel forms, ``act=None``, norm_kwargs per norm, GAT
``v2`` / ``concat`` / ``residual`` with ``jk``, PNA's ``train_norm``, norms built natively
with PyG's positional arguments, float16 norm layers), each through ``from_pyg`` and natively
(PyG's state dict loaded by name); then bad input."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
pyg_norm = pytest.importorskip("torch_geometric.nn.norm")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.nn import norm as agnn_norm  # noqa: E402

TOL = {np.float32: 1e-5, np.float64: 1e-12}
TDTYPE = {np.float32: torch.float32, np.float64: torch.float64}
IN, HID, F = 5, 8, 6
DEG = [1, 3, 4, 2, 1]


def _seed(tag: str) -> int:
    return zlib.crc32(tag.encode())


def _randomise(module, seed):
    """Every floating parameter / buffer random (variances and scales positive), eval."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, t in list(module.named_parameters()) + list(module.named_buffers()):
            if t is None or not t.is_floating_point():
                continue
            if name.endswith(("running_var", "scale")):
                t.copy_(0.3 + torch.rand(t.shape, generator=gen, dtype=t.dtype))
            else:
                t.copy_(torch.randn(t.shape, generator=gen, dtype=t.dtype) * 0.6)
    return module.eval()


def _rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.abs(got - want).max() / max(1.0, np.abs(want).max())) if want.size else 0.0


def _check(got, want, dtype, tol=None):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert _rel_err(got, want) <= (tol or TOL[dtype]), _rel_err(got, want)


def _t(a):
    return None if a is None else torch.as_tensor(a)


# ---- MLP -------------------------------------------------------------------------------
MLP_CASES = [
    {"channel_list": [IN, 8, 7, 3], "bias": [True, False, True], "norm": None},
    {"channel_list": [IN, 8, 7, 3], "bias": False, "norm": "batch_norm", "plain_last": False},
    {"in_channels": IN, "hidden_channels": 6, "out_channels": 3, "num_layers": 1, "norm": None},
    {"in_channels": IN, "out_channels": 3, "num_layers": 1, "norm": "graph_norm"},
    {
        "in_channels": IN,
        "hidden_channels": 6,
        "out_channels": 3,
        "num_layers": 3,
        "act": None,
        "norm": "graph_norm",
        "bias": [False, True, False],
    },  # fmt: skip
    {
        "channel_list": [IN, 8, 3],
        "act": "tanh",
        "norm": "diff_group_norm",
        "norm_kwargs": {"groups": 2, "lamda": 0.2, "affine": False},
    },  # fmt: skip
    {
        "channel_list": [IN, 8, 3],
        "act": "sigmoid",
        "norm": "InstanceNorm",
        "norm_kwargs": {"affine": True, "eps": 1e-3},
        "plain_last": False,
        "act_first": True,
    },  # fmt: skip
    {
        "channel_list": [IN, 8, 3],
        "act": "LeakyReLU",
        "act_kwargs": {"negative_slope": 0.3},
        "norm": "layernorm",
        "norm_kwargs": {"mode": "node", "affine": False},
    },  # fmt: skip
    {
        "channel_list": [IN, 8, 8, 3],
        "act": "elu",
        "act_kwargs": {"alpha": 0.5},
        "norm": "batch_norm",
        "norm_kwargs": {"affine": False, "eps": 0.1},
        "dropout": [0.1, 0.2, 0.3],
    },  # fmt: skip
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", MLP_CASES, ids=range(len(MLP_CASES)))
def test_mlp_matches_pyg(kw, dtype):
    seed = _seed(f"mlp{kw}")
    model = _randomise(pyg_nn.MLP(**kw).to(TDTYPE[dtype]), seed)
    native = agnn.MLP(**kw, dtype=dtype)
    native.load_state_dict(model.state_dict())
    gen = np.random.default_rng(seed)
    x = gen.normal(size=(9, IN)).astype(dtype)
    batch = np.array([2, 0, 0, 1, 2, 1, 0, 2, 2])
    for b, size in ((None, None), (batch, 4)):
        with torch.no_grad():
            want = model(_t(x), _t(b), size).numpy()
        for ours in (from_pyg(model), native):
            _check(ours(x, b, size), want, dtype)


# ---- BasicGNN models -------------------------------------------------------------------
MODEL_CASES = [
    ("GCN", {"num_layers": 2, "jk": "cat", "norm": "layer_norm", "norm_kwargs": {"mode": "node"}}),
    ("GCN", {"num_layers": 1, "out_channels": 4, "jk": "lstm"}),
    ("GCN", {"num_layers": 3, "out_channels": 4, "jk": "last", "norm": "graph_norm", "act": None}),
    (
        "GCN",
        {
            "num_layers": 2,
            "out_channels": 4,
            "jk": "max",
            "norm": "instance_norm",
            "norm_kwargs": {"affine": True, "track_running_stats": True},
            "act_first": True,
        },
    ),  # fmt: skip
    (
        "GCN",
        {
            "num_layers": 2,
            "out_channels": 4,
            "norm": "diff_group_norm",
            "norm_kwargs": {"groups": 2, "lamda": 0.1, "affine": False},
        },
    ),  # fmt: skip
    (
        "GCN",
        {
            "num_layers": 2,
            "out_channels": 4,
            "norm": "pair_norm",
            "norm_kwargs": {"scale_individually": True},
        },
    ),  # fmt: skip
    (
        "GCN",
        {
            "num_layers": 2,
            "out_channels": 4,
            "norm": "batch_norm",
            "norm_kwargs": {"affine": False, "eps": 0.1},
            "add_self_loops": False,
        },
    ),  # fmt: skip
    (
        "GAT",
        {
            "num_layers": 2,
            "out_channels": 4,
            "jk": "cat",
            "v2": True,
            "heads": 2,
            "edge_dim": 3,
            "concat": False,
        },
    ),  # fmt: skip
    ("GAT", {"num_layers": 2, "heads": 2}),  # out_channels None: the last layer concatenates
    (
        "GAT",
        {"num_layers": 2, "jk": "last", "heads": 2, "add_self_loops": False, "negative_slope": 0.1},
    ),  # fmt: skip
    (
        "GAT",
        {
            "num_layers": 2,
            "out_channels": 4,
            "jk": "lstm",
            "heads": 4,
            "edge_dim": 3,
            "fill_value": 0.5,
        },
    ),  # fmt: skip
    (
        "GAT",
        {
            "num_layers": 2,
            "out_channels": 4,
            "heads": 2,
            "residual": True,
            "v2": True,
            "edge_dim": 3,
            "share_weights": True,
        },
    ),  # fmt: skip
    ("GraphSAGE", {"num_layers": 2, "out_channels": 3, "normalize": True, "root_weight": False}),
    (
        "GraphSAGE",
        {"num_layers": 2, "out_channels": 3, "aggr": "add", "project": True, "norm": "graph_norm"},
    ),  # fmt: skip
    ("GraphSAGE", {"num_layers": 2, "out_channels": 3, "aggr": "max", "bias": False, "jk": "lstm"}),
    (
        "GIN",
        {
            "num_layers": 2,
            "out_channels": 3,
            "norm": "diff_group_norm",
            "norm_kwargs": {"groups": 2},
        },
    ),  # fmt: skip
    (
        "GIN",
        {
            "num_layers": 2,
            "out_channels": 3,
            "act": "tanh",
            "act_first": True,
            "norm": "batch_norm",
            "jk": "max",
        },
    ),  # fmt: skip
    (
        "EdgeCNN",
        {
            "num_layers": 2,
            "out_channels": 3,
            "aggr": "add",
            "norm": "instance_norm",
            "act": "sigmoid",
        },
    ),  # fmt: skip
    (
        "PNA",
        {
            "num_layers": 2,
            "out_channels": 4,
            "aggregators": ["mean", "min"],
            "scalers": ["identity", "attenuation"],
            "deg": DEG,
            "train_norm": True,
            "edge_dim": 3,
        },
    ),  # fmt: skip
]


def _graph(gen, dtype):
    x = gen.normal(size=(9, IN)).astype(dtype)
    ei = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 4], [1, 2, 3, 4, 5, 6, 7, 8, 0, 5, 4]])
    ew = gen.uniform(0.2, 1.5, ei.shape[1]).astype(dtype)
    ea = gen.normal(size=(ei.shape[1], 3)).astype(dtype)
    return x, ei, ew, ea


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name,kw", MODEL_CASES, ids=[f"{n}{i}" for i, (n, _) in enumerate(MODEL_CASES)]
)
def test_model_matches_pyg(name, kw, dtype):
    seed = _seed(f"{name}{kw}")
    pyg_kw = dict(kw, deg=torch.tensor(kw["deg"])) if "deg" in kw else kw
    model = _randomise(getattr(pyg_models, name)(IN, HID, **pyg_kw).to(TDTYPE[dtype]), seed)
    native_kw = dict(kw, deg=np.array(kw["deg"])) if "deg" in kw else kw
    native = getattr(agnn, name)(IN, HID, **native_kw, dtype=dtype)
    assert set(native.state_dict()) == {
        k for k in model.state_dict() if not k.endswith("num_batches_tracked")
    }
    native.load_state_dict(model.state_dict())
    x, ei, ew, ea = _graph(np.random.default_rng(seed), dtype)
    batch = np.array([2, 0, 0, 1, 2, 1, 0, 2, 2])
    inputs = [a.copy() for a in (x, ei, ew, ea, batch)]
    tol = 1e-4 if name == "PNA" and dtype == np.float32 else None
    for b, size in ((None, None), (batch, 3)):
        with torch.no_grad():
            want = model(_t(x), _t(ei), _t(ew), _t(ea), batch=_t(b), batch_size=size).numpy()
        for ours in (from_pyg(model), native):
            _check(ours(x, ei, ew, ea, batch=b, batch_size=size), want, dtype, tol)
    for a, before in zip((x, ei, ew, ea, batch), inputs):
        np.testing.assert_array_equal(a, before)


# ---- norms built natively with PyG's positional arguments -------------------------------
NORM_CASES = [
    ("BatchNorm", (F, 1e-3, 0.2, False), "rows"),
    ("InstanceNorm", (F, 1e-3, 0.1, False, True), "graph"),
    ("LayerNorm", (F, 1e-3, False, "node"), "graph"),
    ("GraphNorm", (F, 1e-3), "graph"),
    ("PairNorm", (0.5, True, 1e-3), "graph"),
    ("DiffGroupNorm", (F, 1), "rows"),
    ("DiffGroupNorm", (F, 3, 0.5, 1e-3, 0.1, False, False), "rows"),
    ("HeteroBatchNorm", (F, 3, 1e-3, 0.1, False), "types"),
    ("HeteroLayerNorm", (F, 3, 1e-3, False), "types"),
]


def _call(layer, kind, x, batch, size, torch_in=False):
    conv = _t if torch_in else (lambda a: a)
    if kind == "rows":
        return layer(conv(x))
    if kind == "types":
        return layer(conv(x), conv(batch % 3))
    return layer(conv(x), conv(batch), size)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(
    "name,args,kind", NORM_CASES, ids=[f"{c[0]}{len(c[1])}" for c in NORM_CASES]
)
def test_norm_built_with_pyg_arguments(name, args, kind, dtype):
    """``arraygnn.nn.norm.X(*args)`` with PyG's positional arguments, PyG's state dict loaded:
    PyG's numbers and dtype (float16 too), with ``batch_size`` above ``batch.max() + 1``
    and with ``batch_size`` given without ``batch`` (PyG ignores it then)."""
    module = _randomise(getattr(pyg_norm, name)(*args), _seed(name + str(args)))
    if dtype == np.float16:
        module = module.half()
    elif dtype == np.float64:
        module = module.double()
    ours = getattr(agnn_norm, name)(*args, **({} if name == "PairNorm" else {"dtype": dtype}))
    ours.load_state_dict(module.state_dict())
    gen = np.random.default_rng(4)
    x = (gen.normal(size=(11, F)) * 2 + 1).astype(dtype)
    batch = np.array([0, 0, 0, 0, 1, 3, 3, 3, 3, 3, 3])
    tol = 5e-3 if dtype == np.float16 else None
    for b, size in ((batch, 6), (None, 3)):
        if b is None and kind != "graph":
            continue
        with torch.no_grad():
            want = _call(module, kind, x, b, size, torch_in=True).numpy()
        _check(_call(ours, kind, x, b, size), want, dtype, tol)


# ---- bad input -------------------------------------------------------------------------
def test_model_dropout_must_be_a_probability_as_torch():
    with pytest.raises(ValueError):
        pyg_models.GCN(IN, HID, 2, dropout=2.0)  # torch's Dropout refuses it
    with pytest.raises(ValueError, match="GCN: dropout must be a probability"):
        agnn.GCN(IN, HID, 2, dropout=2.0)
    with pytest.raises(TypeError, match="GAT: dropout must be a real number"):
        agnn.GAT(IN, HID, 2, dropout="0.5")
    assert agnn.GraphSAGE(IN, HID, 2, dropout=1, rng=0).dropout == 1.0


def test_jumping_knowledge_names_mismatched_inputs():
    jk = agnn.JumpingKnowledge
    with pytest.raises(ValueError, match="JumpingKnowledge: xs must agree"):
        jk("cat")([np.ones((3, 2)), np.ones((4, 2))])
    with pytest.raises(ValueError, match="JumpingKnowledge: mode='max' needs xs of one shape"):
        jk("max")([np.ones((3, 2)), np.ones((3, 4))])
    with pytest.raises(ValueError, match="JumpingKnowledge: xs have 2 features.*channels=4"):
        jk("lstm", 4, 2, rng=0)([np.ones((3, 2)), np.ones((3, 2))])
    with pytest.raises(ValueError, match="JumpingKnowledge: xs must agree"):
        jk("lstm", 4, 2, rng=0)([np.ones((3, 1, 4)), np.ones((3, 1, 4))])
    # widths may differ for 'cat' (PyG concatenates them)
    assert jk("cat")([np.ones((3, 2)), np.ones((3, 4))]).shape == (3, 6)
