"""Parity sweep (s13) of PyG's graph-transformer / attention pieces against PyG 2.8.1: the
options the journey tests leave out. PerformerAttention's kernels, bias switches, head sizes
(one random block, several blocks, a partial block), ``head_channels=None``; padded batches
with an empty graph (all-False mask row) and no rows at all; SGFormer / Polynormer attention
on an empty graph; GPSConv's performer branch with every norm family and the multihead
branch's ``add_bias_kv`` / ``add_zero_attn``; PositionalEncoding's ``base_freq`` /
``granularity`` and TemporalEncoding on 2-D / integer inputs. Weights through ``from_pyg``,
eval mode, seeded torch; float32 within 1e-5 relative, float64 within 1e-12."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
pyg_attention = pytest.importorskip("torch_geometric.nn.attention")
pyg_encoding = pytest.importorskip("torch_geometric.nn.encoding")

import arraygnn.nn as agnn  # noqa: E402

DTYPES = [np.float32, np.float64]
C = 8


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _converted(make, dtype):
    torch.manual_seed(0)
    ref = make().to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
        for name, b in ref.named_buffers():
            if b.is_floating_point() and name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
            elif b.is_floating_point() and name.endswith("running_mean"):
                b.uniform_(-0.5, 0.5)
    ref.eval()
    layer = agnn.from_pyg(ref)
    names = sorted(k for k in ref.state_dict() if not k.endswith("num_batches_tracked"))
    assert sorted(layer.state_dict()) == names
    return ref, layer


def _pyg(ref, *args, **kwargs):
    default = torch.get_default_dtype()
    float64 = any(p.dtype == torch.float64 for p in ref.parameters())
    torch.set_default_dtype(torch.float64 if float64 else torch.float32)
    try:
        with torch.no_grad():
            out = ref(*[_t(a) for a in args], **{k: _t(v) for k, v in kwargs.items()})
        return out.numpy()
    finally:
        torch.set_default_dtype(default)


def _check(got, want, dtype):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype == dtype, (got.dtype, want.dtype)
    assert np.isfinite(got).all()
    assert rel_err(got, want) <= TOL[dtype]


def _padded(dtype, sizes=(5, 0, 2), channels=C, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((len(sizes), max(sizes, default=0), channels)).astype(dtype)
    mask = np.arange(max(sizes, default=0))[None, :] < np.array(sizes)[:, None]
    return x, mask


# ---- PerformerAttention options ------------------------------------------------------------
PERFORMER = {
    "1head-relu-nobias": lambda: pyg_attention.PerformerAttention(
        C, 1, head_channels=8, attn_out_bias=False
    ),
    "2heads-d3-elu-qkvbias": lambda: pyg_attention.PerformerAttention(
        C, 2, head_channels=3, kernel=torch.nn.ELU(), qkv_bias=True
    ),
    "4heads-d5-sigmoid": lambda: pyg_attention.PerformerAttention(
        C, 4, head_channels=5, kernel=torch.nn.Sigmoid()
    ),  # 8 random rows over 5 columns: one full block and a partial one
    "2heads-none-gelu": lambda: pyg_attention.PerformerAttention(
        C, 2, head_channels=None, kernel=torch.nn.GELU(), qkv_bias=True, attn_out_bias=False
    ),
    "2heads-d12-leaky": lambda: pyg_attention.PerformerAttention(
        C, 2, head_channels=12, kernel=torch.nn.LeakyReLU(0.2)
    ),
    "1head-d2-one-feature": lambda: pyg_attention.PerformerAttention(C, 1, head_channels=2),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(PERFORMER))
def test_performer_options_match_pyg(name, dtype):
    ref, layer = _converted(PERFORMER[name], dtype)
    assert layer.head_channels == ref.head_channels
    x, mask = _padded(dtype)
    before = x.copy()
    _check(layer(x), _pyg(ref, x), dtype)
    _check(layer(x, mask), _pyg(ref, x, mask=mask), dtype)
    np.testing.assert_array_equal(x, before)


def test_performer_unconvertible_kernel_is_named():
    ref = pyg_attention.PerformerAttention(C, 1, head_channels=4, kernel=torch.nn.RReLU())
    with pytest.raises(ValueError, match="PerformerAttention kernel: cannot convert"):
        agnn.from_pyg(ref)


@pytest.mark.parametrize("shape", [(2, 0, C), (0, 3, C)])
def test_performer_no_rows_is_empty_where_pyg_fails(shape):
    """Documented difference: PyG's ``reshape(B, N, -1)`` fails on no rows; ours is empty."""
    ref, layer = _converted(PERFORMER["2heads-d3-elu-qkvbias"], np.float64)
    x = np.zeros(shape)
    with pytest.raises(RuntimeError, match="reshape"):
        _pyg(ref, x)
    out = layer(x)
    assert out.shape == shape and out.dtype == np.float64


def test_performer_fresh_projection_shape_and_orthogonal_blocks():
    layer = agnn.PerformerAttention(C, 4, head_channels=5, rng=0)
    ref = pyg_attention.PerformerAttention(C, 4, head_channels=5)
    p = layer.fast_attn.projection_matrix
    assert p.shape == tuple(ref.fast_attn.projection_matrix.shape) == (8, 5)
    np.testing.assert_allclose(p[:5] @ p[:5].T, np.eye(5), atol=1e-5)
    np.testing.assert_allclose(p[5:] @ p[5:].T, np.eye(3), atol=1e-5)


# ---- SGFormer / Polynormer attention with an empty graph -------------------------------------
ATTENTIONS = {
    "sg-2": lambda: pyg_attention.SGFormerAttention(C, 2, 4, qkv_bias=True),
    "poly-2": lambda: pyg_attention.PolynormerAttention(C, 2, 4, 0.3, True, True),
    "poly-1-q": lambda: pyg_attention.PolynormerAttention(C, 1, 6, 0.7, False, False),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(ATTENTIONS))
def test_linear_attention_with_empty_graph(name, dtype):
    ref, layer = _converted(ATTENTIONS[name], dtype)
    x, mask = _padded(dtype, sizes=(0, 4, 1))
    _check(layer(x, mask), _pyg(ref, x, mask), dtype)


# ---- GPSConv: performer with every norm family, multihead keyword options ------------------
GPS = {
    "performer-graphnorm": lambda: pyg_nn.GPSConv(
        C, pyg_nn.GCNConv(C, C), heads=2, norm="graph_norm", attn_type="performer"
    ),
    "performer-instancenorm-nobias": lambda: pyg_nn.GPSConv(
        C,
        None,
        heads=1,
        norm="instance_norm",
        norm_kwargs={"affine": True},
        attn_type="performer",
        attn_kwargs={"head_channels": 3, "attn_out_bias": False},
    ),
    "performer-none-sigmoid": lambda: pyg_nn.GPSConv(
        C,
        pyg_nn.SAGEConv(C, C),
        heads=4,
        norm=None,
        act="tanh",
        attn_type="performer",
        attn_kwargs={"kernel": torch.nn.Sigmoid()},
    ),
    "multihead-bias-kv-zero-attn": lambda: pyg_nn.GPSConv(
        C,
        pyg_nn.GCNConv(C, C),
        heads=2,
        norm="layer_norm",
        norm_kwargs={"mode": "node"},
        attn_kwargs={"add_bias_kv": True, "add_zero_attn": True},
    ),
    "multihead-batchnorm-eps": lambda: pyg_nn.GPSConv(
        C, None, heads=4, norm="batch_norm", norm_kwargs={"eps": 1e-3}
    ),
}


def _gps_inputs(dtype, sizes=(4, 0, 1, 6)):
    rng = np.random.default_rng(3)
    n = sum(sizes)
    x = rng.standard_normal((n, C)).astype(dtype)
    parts, start = [], 0
    for size in sizes:
        if size:
            parts.append(random_graph(rng, size, num_edges=2 * size, isolated=1) + start)
        start += size
    batch = np.repeat(np.arange(len(sizes)), sizes)
    return x, np.concatenate(parts, axis=1), batch


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(GPS))
def test_gps_options_match_pyg(name, dtype):
    ref, layer = _converted(GPS[name], dtype)
    x, edge_index, batch = _gps_inputs(dtype)
    with torch.enable_grad():  # torch's documented attention path (see test_gps_dna_conv)
        want = ref(_t(x), _t(edge_index), _t(batch)).detach().numpy()
    _check(layer(x, edge_index, batch), want, dtype)


# ---- encodings -----------------------------------------------------------------------------
ENCODINGS = {
    "pos-base-0.01-gran-0.25": lambda: pyg_encoding.PositionalEncoding(
        6, base_freq=0.01, granularity=0.25
    ),
    "pos-base-0.5": lambda: pyg_encoding.PositionalEncoding(4, base_freq=0.5),
    "pos-2": lambda: pyg_encoding.PositionalEncoding(2, granularity=3.0),
    "temporal-1": lambda: pyg_encoding.TemporalEncoding(1),
    "temporal-7": lambda: pyg_encoding.TemporalEncoding(7),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(ENCODINGS))
def test_encoding_options_match_pyg(name, dtype):
    module = ENCODINGS[name]().to(torch.float64 if dtype == np.float64 else torch.float32)
    layer = agnn.from_pyg(module)
    x = np.linspace(-5.0, 50.0, 12).reshape(3, 4).astype(dtype)  # 2-D: flattened, as PyG
    _check(layer(x), module(_t(x)).numpy(), dtype)
    assert layer(x[:0]).shape == (0, module.out_channels)


@pytest.mark.parametrize("name", ["pos-base-0.01-gran-0.25", "pos-base-0.5"])
def test_positional_encoding_integer_positions(name):
    module = ENCODINGS[name]()
    layer = agnn.from_pyg(module)
    pos = np.arange(9, dtype=np.int64).reshape(3, 3)
    _check(layer(pos), module(_t(pos)).numpy(), np.float32)


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_fresh_encoding_buffers_match_pyg(name):
    module = ENCODINGS[name]()
    kwargs = {}
    if hasattr(module, "base_freq"):
        kwargs = {"base_freq": module.base_freq, "granularity": module.granularity}
    layer = getattr(agnn, type(module).__name__)(module.out_channels, **kwargs)
    (buffer,) = module.buffers()
    ours = layer.frequency if hasattr(layer, "frequency") else layer.weight
    np.testing.assert_allclose(ours, buffer.numpy(), rtol=1e-6)


# ---- bad input: clear errors naming the layer and argument ---------------------------------
def test_performer_bad_input_is_named():
    layer = agnn.PerformerAttention(C, 2, head_channels=4, rng=0)
    with pytest.raises(ValueError, match="PerformerAttention x: expected last dimension 8"):
        layer(np.ones((2, 3, 7), np.float32))
    with pytest.raises(ValueError, match="PerformerAttention: kernel: activation must be"):
        agnn.PerformerAttention(C, 2, kernel="nope")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"granularity": 0.0}, "granularity must be a finite nonzero"),
        ({"base_freq": -0.5}, "base_freq must be a finite number >= 0"),
        ({"base_freq": float("nan")}, "base_freq must be a finite number >= 0"),
    ],
)
def test_positional_encoding_settings_pyg_turns_into_nan(kwargs, match):
    """PyG builds these and returns inf / NaN encodings; ours refuses them."""
    module = pyg_encoding.PositionalEncoding(6, **kwargs)
    assert not torch.isfinite(module(torch.arange(3.0))).all()
    with pytest.raises(ValueError, match=f"PositionalEncoding: {match}"):
        agnn.PositionalEncoding(6, **kwargs)


@pytest.mark.parametrize("cls", ["PositionalEncoding", "TemporalEncoding"])
def test_encoding_non_array_and_non_real_inputs(cls):
    layer = getattr(agnn, cls)(4)
    with pytest.raises(TypeError, match=f"{cls}: x must be a NumPy or CuPy array"):
        layer([1.0, 2.0])
    with pytest.raises(TypeError, match=f"{cls}: x must hold real numbers"):
        layer(np.array([1 + 2j]))
    with pytest.raises(TypeError, match=f"{cls}: x must be a NumPy or CuPy array.*from_torch"):
        layer(torch.arange(3.0))
