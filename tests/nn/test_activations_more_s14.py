"""More activations, each against torch 2.13 live: softplus, selu, celu, relu6, hardtanh,
mish, hardswish, hardsigmoid, softsign, tanhshrink, logsigmoid, gelu(approximate='tanh')
and PReLU (a learned weight), through every way in: ``get_activation`` names, PyG's
resolver names with ``act_kwargs``, torch modules / functions, converted PyG ``MLP`` /
``GCN`` models, torch ``Sequential``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import MLP, from_pyg, from_torch  # noqa: E402
from arraygnn.nn.linear import PReLU, get_activation, resolve_act  # noqa: E402
from arraygnn.nn.weights import _activation  # noqa: E402

F = torch.nn.functional
nn = torch.nn

#: (PyG resolver name, act_kwargs, the torch module)
CASES = [
    ("softplus", {}, nn.Softplus()),
    ("Softplus", {"beta": 2.0, "threshold": 5.0}, nn.Softplus(beta=2.0, threshold=5.0)),
    ("softplus", {"beta": 0.5}, nn.Softplus(beta=0.5)),
    ("selu", {}, nn.SELU()),
    ("celu", {}, nn.CELU()),
    ("CELU", {"alpha": 0.3}, nn.CELU(alpha=0.3)),
    ("relu6", {}, nn.ReLU6()),
    ("hardtanh", {}, nn.Hardtanh()),
    ("hard_tanh", {"min_val": -0.5, "max_val": 2.0}, nn.Hardtanh(-0.5, 2.0)),
    ("mish", {}, nn.Mish()),
    ("hardswish", {}, nn.Hardswish()),
    ("HardSigmoid", {}, nn.Hardsigmoid()),
    ("softsign", {}, nn.Softsign()),
    ("tanhshrink", {}, nn.Tanhshrink()),
    ("log_sigmoid", {}, nn.LogSigmoid()),
    ("gelu", {"approximate": "tanh"}, nn.GELU(approximate="tanh")),
]
IDS = [f"{name}{sorted(kw.items())}" for name, kw, _ in CASES]


def _values(dtype: type) -> np.ndarray:
    """Random values (odd length: torch's vector kernel and its scalar tail) and the
    edges: 0, -0, thresholds, overflow, +-inf, NaN, the largest finite values."""
    info = np.finfo(dtype)
    edges = [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 2.5, -2.5, 3.0, -3.0, 6.0, -6.0]
    edges += [5.0, 10.0, 20.0, 20.5, -20.5, 40.0, 50.0, -50.0, 88.0, 89.0, -89.0, 100.0]
    edges += [-100.0, 710.0, -750.0, 1e4, -1e4, 1e12, -1e12, 1e20, -1e20]
    edges += [float(info.max), float(-info.max), float(info.tiny), np.inf, -np.inf, np.nan]
    rand = np.random.default_rng(0).normal(0.0, 6.0, 257)
    return np.concatenate([rand, np.array(edges)]).astype(dtype)


#: torch's own formula subtracts nearly equal values (``1 + tanh(inner)`` far left,
#: ``x - tanh(x)`` near 0): one ulp of ``tanh`` (torch's vector maths vs libm) is many
#: ulps of the result, so these are held to a few ulps of ``x`` instead
CANCELS = {"tanhshrink", "gelu"}


def _check(ours: np.ndarray, ref: np.ndarray, x: np.ndarray, cancels: bool = False) -> None:
    """NaN / inf exactly where torch has them; finite values within 2 ulps of torch's
    (or of ``x`` where the formula cancels)."""
    assert ours.dtype == x.dtype and ours.shape == x.shape
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_array_equal(ours[np.isinf(ref)], ref[np.isinf(ref)])
    near = np.isfinite(ref)
    a, b = ours[near], ref[near]
    with np.errstate(over="ignore"):  # the spacing of the largest finite value
        size = np.maximum(np.abs(a), np.abs(b))
        if cancels:
            size = np.maximum(size, np.abs(x[near]))
        scale = np.maximum(np.spacing(size), np.finfo(x.dtype).tiny)  # subnormals: absolute
    assert np.all(np.abs(a - b) <= 2 * scale), np.abs(a - b).max()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("name", "kwargs", "module"), CASES, ids=IDS)
def test_each_activation_matches_torch(name, kwargs, module, dtype):
    x = _values(dtype)
    ref = module(torch.from_numpy(x)).numpy()
    by_name = resolve_act("MLP", name, kwargs)
    by_module = get_activation(module)  # torch's module, its parameters read
    for fn in (by_name, by_module):
        _check(fn(x), ref, x, name.lower() in CANCELS)
    if not kwargs:  # the plain names, and torch's functions with their default parameters
        np.testing.assert_array_equal(get_activation(name.replace("_", "").lower())(x), by_name(x))
    np.testing.assert_array_equal(x, _values(dtype))  # the input is never written


def test_torch_functions_map_with_their_defaults():
    x = _values(np.float32)
    fns = [F.softplus, F.selu, torch.selu, F.celu, torch.celu, F.relu6, F.hardtanh, F.mish]
    fns += [F.hardswish, F.hardsigmoid, F.softsign, F.tanhshrink, F.logsigmoid]
    for fn in fns:
        _check(get_activation(fn)(x), fn(torch.from_numpy(x)).numpy(), x, fn is F.tanhshrink)


def test_prelu_layer_and_refusals():
    torch.manual_seed(0)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    x[0, 0], x[1, 1] = np.nan, -np.inf
    for num in (1, 3):
        ref = nn.PReLU(num)
        nn.init.uniform_(ref.weight, -1.0, 1.0)
        ours = from_torch(ref)
        assert isinstance(ours, PReLU) and sorted(ours.state_dict()) == ["weight"]
        np.testing.assert_array_equal(ours(x), ref(torch.from_numpy(x)).detach().numpy())
    x64 = x.astype(np.float64)  # a float32 weight meets float64 features in their dtype
    assert ours(x64).dtype == np.float64
    with pytest.raises(ValueError, match="PReLU: 3 parameters but the input has 4 channels"):
        ours(np.ones((2, 4), np.float32))
    seq = nn.Sequential(nn.Linear(3, 4), nn.PReLU(4), nn.Linear(4, 2), nn.Softplus(beta=3.0))
    nn.init.uniform_(seq[1].weight, -1.0, 1.0)
    conv = from_torch(seq)
    assert sorted(conv.state_dict()) == sorted(seq.state_dict())
    x = np.nan_to_num(x, neginf=-3.0)
    want = seq(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(conv(x), want, rtol=1e-5, atol=1e-6)
    # a plain function slot has no place for the weight: a clear error, never dropped
    with pytest.raises(ValueError, match="PReLU has a learned weight"):
        get_activation(nn.PReLU())
    with pytest.raises(ValueError, match="GCN: act=.prelu.*PReLU has a learned weight"):
        from arraygnn.nn import GCN

        GCN(3, 4, 2, act="prelu")
    with pytest.raises(ValueError, match="from_pyg: GCN act.*PReLU has a learned weight"):
        from_pyg(pyg_nn.models.GCN(3, 4, 2, act="prelu"))


def test_prelu_in_mlp_loads_its_weight():
    torch.manual_seed(0)
    x = np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32)
    ref = pyg_nn.MLP([4, 8, 8, 3], act="prelu", act_kwargs={"num_parameters": 8}, norm=None)
    nn.init.uniform_(ref.act.weight, -1.0, 1.0)
    ref.eval()
    want = ref(torch.from_numpy(x)).detach().numpy()
    conv = from_pyg(ref)
    np.testing.assert_allclose(conv(x), want, rtol=1e-5, atol=1e-6)
    ours = MLP([4, 8, 8, 3], act="PReLU", act_kwargs={"num_parameters": 8}, rng=0)
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    np.testing.assert_allclose(
        ours.load_state_dict(ref.state_dict())(x), want, rtol=1e-5, atol=1e-6
    )
    assert MLP([4, 3], act="prelu", dtype=np.float64).act.weight.dtype == np.float64


@pytest.mark.parametrize("model", ["MLP", "GCN"])
def test_converted_pyg_models_with_each_activation(model):
    torch.manual_seed(0)
    x = np.random.default_rng(3).normal(0.0, 3.0, size=(5, 4)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3, 4, 1], [1, 2, 3, 4, 0, 0]])
    for name, kwargs, module in CASES[1::2] + [CASES[-1], CASES[4]]:
        for act in (name, module):  # PyG's resolver name (with act_kwargs), torch's module
            kw = kwargs if isinstance(act, str) else None
            if model == "MLP":
                ref = pyg_nn.MLP([4, 8, 3], act=act, act_kwargs=kw, norm=None).eval()
                want = ref(torch.from_numpy(x))
                got = from_pyg(ref)(x)
            else:
                ref = pyg_nn.models.GCN(4, 8, 2, out_channels=3, act=act, act_kwargs=kw).eval()
                want = ref(torch.from_numpy(x), torch.from_numpy(ei))
                got = from_pyg(ref)(x, ei)
            np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_resolver_kwargs_and_errors():
    x = _values(np.float64)
    fn = resolve_act("GCN", "leaky-relu", {"negative_slope": 0.3})
    np.testing.assert_array_equal(fn(x), F.leaky_relu(torch.from_numpy(x), 0.3).numpy())
    with pytest.raises(ValueError, match=r"act='softplus' with act_kwargs=\{'alpha': 1\}"):
        resolve_act("GCN", "softplus", {"alpha": 1})
    with pytest.raises(ValueError, match="hardtanh needs min_val < max_val"):
        resolve_act("MLP", "hardtanh", {"min_val": 1.0, "max_val": 1.0})
    with pytest.raises(ValueError, match="celu alpha must not be 0"):
        resolve_act("MLP", "celu", {"alpha": 0.0})
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        resolve_act("MLP", "gelu", {"approximate": "erf"})
    with pytest.raises(TypeError, match="softplus beta must be a real number"):
        resolve_act("MLP", "softplus", {"beta": "2"})
    with pytest.raises(ValueError, match="rrelu.*not supported; use relu.*softplus.*prelu"):
        resolve_act("GCN", "rrelu", None)
    with pytest.raises(ValueError, match="cannot convert activation RReLU.*Softplus"):
        get_activation(nn.RReLU())  # still refused: random in training, its own slope
    with pytest.raises(ValueError, match="cannot convert activation Threshold"):
        _activation(nn.Threshold(0.1, 2.0), "here")
