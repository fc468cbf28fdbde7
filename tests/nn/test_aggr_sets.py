"""The set / sequence aggregations of ``arraygnn.nn.aggr`` (LSTM, GRU, MLP, Deep Sets,
variance-preserving, LCM, Set Transformer, Graph Multiset Transformer, Patch Transformer)
and ``arraygnn.nn.MultiheadAttention`` against PyG / torch, weights through ``from_pyg`` /
``from_torch``: float32 within 1e-5 relative, float64 within 1e-12, on sorted batches with
empty groups (inner and trailing), one-element groups, ``dim_size`` above the largest id,
``max_num_elements`` truncation, int32 / int64 index and ``ptr``; then errors.

PyG's modules run with autograd on (outputs detached): under ``torch.no_grad`` torch's
attention takes its fused "fast path", which differs from its documented path only where a
query has no unmasked key.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
P = pytest.importorskip("torch_geometric.nn.aggr")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import MultiheadAttention, aggr, from_pyg, from_torch  # noqa: E402

TOL = {np.float32: 1e-5, np.float64: 1e-12}
F = 6
DTYPES = [np.float32, np.float64]

# group sizes: empty groups inside and at the end, one-element groups, a long group
SIZES = [3, 0, 1, 5, 0, 2, 1, 4]
DIM_SIZE = len(SIZES) + 2


def _tdtype(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _randomised(make, dtype, seed=0):
    """``make()`` in ``dtype``, parameters from U(-1, 1), running variances in [0.5, 1.5]."""
    torch.manual_seed(seed)
    module = make().to(_tdtype(dtype))
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
        for name, b in module.named_buffers():
            if b.is_floating_point() and name.endswith("running_var"):
                b.uniform_(0.5, 1.5)
            elif b.is_floating_point() and name.endswith("running_mean"):
                b.uniform_(-0.5, 0.5)
    return module.eval()


def _names(module):
    return sorted(k for k in module.state_dict() if not k.endswith("num_batches_tracked"))


def _pyg(module, x, index, dim_size=None, **kwargs):
    out = module(
        torch.from_numpy(x), torch.from_numpy(index.astype(np.int64)), dim_size=dim_size, **kwargs
    )
    return out.detach().numpy()


def _check(got, want, dtype):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert rel_err(np.nan_to_num(got), np.nan_to_num(want)) <= TOL[dtype]


CASES = {
    "lstm": lambda: P.LSTMAggregation(F, 5),
    "lstm-2layers-nobias": lambda: P.LSTMAggregation(F, 4, num_layers=2, bias=False),
    "gru": lambda: P.GRUAggregation(F, 5),
    "gru-2layers": lambda: P.GRUAggregation(F, 3, num_layers=2),
    "mlp": lambda: P.MLPAggregation(F, 4, 5, hidden_channels=7, num_layers=2),
    "mlp-one-layer": lambda: P.MLPAggregation(F, 3, 2, num_layers=1),
    "deepsets-mlp-seq": lambda: P.DeepSetsAggregation(
        pyg_nn.MLP([F, 8, 8]), torch.nn.Sequential(torch.nn.Linear(8, 3), torch.nn.Tanh())
    ),
    "deepsets-linear-mlp": lambda: P.DeepSetsAggregation(
        torch.nn.Linear(F, 5), pyg_nn.MLP([5, 4, 2], norm=None)
    ),
    "deepsets-none": lambda: P.DeepSetsAggregation(),
    "variance-preserving": lambda: P.VariancePreservingAggregation(),
    "lcm": lambda: P.LCMAggregation(F, 4),
    "lcm-noproject": lambda: P.LCMAggregation(F, F, project=False),
    "set-transformer": lambda: P.SetTransformerAggregation(
        F, num_seed_points=2, heads=2, layer_norm=True
    ),
    "set-transformer-mean": lambda: P.SetTransformerAggregation(
        F, 3, num_encoder_blocks=2, num_decoder_blocks=0, heads=3, concat=False
    ),
    "gmt": lambda: P.GraphMultisetTransformer(F, k=3, heads=2, layer_norm=True),
    "gmt-2blocks": lambda: P.GraphMultisetTransformer(F, k=2, num_encoder_blocks=2),
    "patch": lambda: P.PatchTransformerAggregation(F, 5, patch_size=2, hidden_channels=8),
    "patch-all": lambda: P.PatchTransformerAggregation(
        F,
        4,
        3,
        6,
        num_transformer_blocks=2,
        heads=2,
        aggr=["sum", "mean", "min", "max", "var", "std"],
    ),
}
ORDER_FREE = ("deepsets-mlp-seq", "deepsets-linear-mlp", "deepsets-none", "variance-preserving")


def _index(index_dtype, sizes=SIZES):
    return np.repeat(np.arange(len(sizes)), sizes).astype(index_dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_pyg(name, index_dtype, dtype):
    ref = _randomised(CASES[name], dtype)
    layer = from_pyg(ref)
    assert _names(layer) == _names(ref)
    rng = np.random.default_rng(1)
    index = _index(index_dtype)
    x = rng.standard_normal((index.shape[0], F)).astype(dtype)
    before = x.copy()
    got = layer(x, index, dim_size=DIM_SIZE)
    _check(got, _pyg(ref, x, index, DIM_SIZE), dtype)
    np.testing.assert_array_equal(x, before)  # nothing passed in is changed
    # the same groups as a CSR ptr (PyG takes index only: same numbers)
    ptr = np.concatenate([[0], np.cumsum(SIZES + [0, 0])]).astype(index_dtype)
    _check(layer(x, ptr=ptr), _pyg(ref, x, index, DIM_SIZE), dtype)
    # dim_size left out: the largest id + 1
    _check(layer(x, index), _pyg(ref, x, index), dtype)


@pytest.mark.parametrize("name", ["lstm", "gru", "lcm", "set-transformer", "gmt", "patch"])
def test_max_num_elements_truncates_as_pyg(name):
    dtype = np.float64
    ref = _randomised(CASES[name], dtype)
    layer = from_pyg(ref)
    index = _index(np.int64)
    x = np.random.default_rng(2).standard_normal((index.shape[0], F))
    got = layer(x, index, dim_size=DIM_SIZE, max_num_elements=3)
    _check(got, _pyg(ref, x, index, DIM_SIZE, max_num_elements=3), dtype)


@pytest.mark.parametrize("name", list(CASES))
def test_one_element_groups_and_single_group(name):
    dtype = np.float64
    ref = _randomised(CASES[name], dtype, seed=3)
    layer = from_pyg(ref)
    rng = np.random.default_rng(3)
    index = np.arange(4)
    x = rng.standard_normal((4, F))
    if name == "patch-all":  # 1 + 1 elements: no patch of 3 (PyG: NaN or an IndexError)
        with pytest.raises(ValueError, match="holds no patch of patch_size=3"):
            layer(x, index)
    else:
        _check(layer(x, index), _pyg(ref, x, index), dtype)
    index = np.zeros(7, np.int64)  # one group
    x = rng.standard_normal((7, F))
    _check(layer(x, index), _pyg(ref, x, index), dtype)


@pytest.mark.parametrize("name", ORDER_FREE)
def test_unsorted_index_where_pyg_takes_it(name):
    dtype = np.float64
    ref = _randomised(CASES[name], dtype)
    layer = from_pyg(ref)
    rng = np.random.default_rng(4)
    index = rng.permutation(_index(np.int64))
    x = rng.standard_normal((index.shape[0], F))
    _check(layer(x, index, dim_size=DIM_SIZE), _pyg(ref, x, index, DIM_SIZE), dtype)


def test_inside_multi_aggregation():
    dtype = np.float64
    ref = _randomised(lambda: P.MultiAggregation([P.LSTMAggregation(F, 3), "mean"]), dtype)
    layer = from_pyg(ref)
    index = _index(np.int64)
    x = np.random.default_rng(5).standard_normal((index.shape[0], F))
    _check(layer(x, index, dim_size=DIM_SIZE), _pyg(ref, x, index, DIM_SIZE), dtype)


def test_fresh_layers_run_and_round_trip_their_state():
    rng = np.random.default_rng(6)
    index = _index(np.int64)
    x = rng.standard_normal((index.shape[0], 4)).astype(np.float32)
    layers = [
        aggr.LSTMAggregation(4, 3, rng=0),
        aggr.GRUAggregation(4, 3, rng=0),
        aggr.MLPAggregation(4, 3, 2, hidden_channels=5, num_layers=2, rng=0),
        aggr.LCMAggregation(4, 3, rng=0),
        aggr.SetTransformerAggregation(4, 2, heads=2, rng=0),
        aggr.GraphMultisetTransformer(4, 2, rng=0),
        aggr.PatchTransformerAggregation(4, 3, 2, 4, rng=0),
    ]
    for layer in layers:
        out = layer(x, index, dim_size=DIM_SIZE)
        assert out.shape[0] == DIM_SIZE and out.dtype == np.float32
        assert np.isfinite(out).all()
        state = layer.state_dict()
        for key in state:
            state[key] = state[key] * 0.5
        layer.load_state_dict(state)
        assert not np.allclose(layer(x, index, dim_size=DIM_SIZE), out)


# ---- errors ------------------------------------------------------------------------------
DENSE = ["lstm", "gru", "mlp", "lcm", "set-transformer", "gmt", "patch"]


@pytest.mark.parametrize("name", DENSE)
def test_unsorted_index_is_refused_as_pyg(name):
    ref = _randomised(CASES[name], np.float32)
    layer = from_pyg(ref)
    x = np.ones((3, F), np.float32)
    index = np.array([0, 2, 1])
    with pytest.raises(ValueError, match="not sorted"):
        _pyg(ref, x, index)
    with pytest.raises(ValueError, match=f"{type(layer).__name__}: index must be sorted"):
        layer(x, index)


@pytest.mark.parametrize("name", DENSE)
def test_needs_two_dimensional_input(name):
    layer = from_pyg(_randomised(CASES[name], np.float32))
    with pytest.raises(ValueError, match=f"{type(layer).__name__}.*two-dimensional"):
        layer(np.ones((2, 3, F), np.float32), np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="index has 2 entries"):
        layer(np.ones((3, F), np.float32), np.array([0, 1]))


@pytest.mark.parametrize("name", ["lstm", "gru", "lcm"])  # set transformers: s14 file
def test_every_group_empty_is_an_error(name):
    layer = from_pyg(_randomised(CASES[name], np.float32))
    with pytest.raises(ValueError, match="every group is empty"):
        layer(np.zeros((0, F), np.float32), np.zeros(0, np.int64), dim_size=3)


def test_constructor_and_conversion_errors():
    with pytest.raises(ValueError, match="LCMAggregation: inputs must be projected"):
        aggr.LCMAggregation(3, 4, project=False)
    with pytest.raises(ValueError, match="PatchTransformerAggregation: aggr"):
        aggr.PatchTransformerAggregation(3, 4, 2, 4, aggr="median")
    with pytest.raises(ValueError, match="MLPAggregation: num_layers=2 needs hidden_channels"):
        aggr.MLPAggregation(3, 4, 2, num_layers=2)
    with pytest.raises(TypeError, match="DeepSetsAggregation: local_nn must be callable"):
        aggr.DeepSetsAggregation(3)
    with pytest.raises(ValueError, match="LSTMAggregation with a bidirectional"):
        from_pyg(P.LSTMAggregation(3, 4, bidirectional=True))
    with pytest.raises(TypeError, match="LSTMAggregation: in_channels must be an int"):
        aggr.LSTMAggregation("3", 4)


# ---- MultiheadAttention ------------------------------------------------------------------
MHA_CASES = {
    "plain": {},
    "batch-first": {"batch_first": True},
    "kdim-vdim": {"kdim": 3, "vdim": 5, "batch_first": True},
    "bias-kv-zero-attn": {"add_bias_kv": True, "add_zero_attn": True},
    "no-bias": {"bias": False, "batch_first": True},
}


def _mha(kw, dtype):
    return _randomised(lambda: torch.nn.MultiheadAttention(8, 2, **kw), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(MHA_CASES))
def test_multihead_attention_matches_torch(name, dtype):
    kw = MHA_CASES[name]
    ref = _mha(kw, dtype)
    layer = from_torch(ref)
    assert _names(layer) == _names(ref)
    rng = np.random.default_rng(7)
    b, tgt, src = 3, 4, 6
    first = kw.get("batch_first", False)

    def seq(length, width):
        shape = (b, length, width) if first else (length, b, width)
        return rng.standard_normal(shape).astype(dtype)

    q, k, v = seq(tgt, 8), seq(src, kw.get("kdim", 8)), seq(src, kw.get("vdim", 8))
    padding = rng.random((b, src)) < 0.3
    padding[:, 0] = False
    bool_mask = rng.random((tgt, src)) < 0.2
    bool_mask[:, 1] = False
    float_mask = rng.standard_normal((b * 2, tgt, src)).astype(dtype)
    for masks in (
        {},
        {"key_padding_mask": padding},
        {"attn_mask": bool_mask},
        {"key_padding_mask": padding.astype(dtype) * -3.0, "attn_mask": float_mask},
    ):
        for need_weights, average in ((True, True), (True, False), (False, True)):
            options = {"need_weights": need_weights, "average_attn_weights": average}
            want, want_w = ref(
                *(torch.from_numpy(a) for a in (q, k, v)),
                **{key: torch.from_numpy(m) for key, m in masks.items()},
                **options,
            )
            got, got_w = layer(q, k, v, **masks, **options)
            _check(got, want.detach().numpy(), dtype)
            if need_weights:
                _check(got_w, want_w.detach().numpy(), dtype)
            else:
                assert got_w is None and want_w is None


@pytest.mark.parametrize("need_weights", [False, True])
def test_multihead_attention_fully_masked_rows_and_unbatched(need_weights):
    dtype = np.float64
    ref = _mha({"batch_first": True}, dtype)
    layer = from_torch(ref)
    rng = np.random.default_rng(8)
    q = rng.standard_normal((2, 3, 8))
    kv = rng.standard_normal((2, 4, 8))
    padding = np.zeros((2, 4), bool)
    padding[1] = True  # the second sequence has no key
    want = ref(*(torch.from_numpy(a) for a in (q, kv, kv)), torch.from_numpy(padding),
               need_weights=need_weights)[0].detach().numpy()  # fmt: skip
    got = layer(q, kv, kv, padding, need_weights=need_weights)[0]
    _check(got, want, dtype)  # zero attention (out_proj.bias) or NaN, as torch
    self_want, self_w = ref(*(torch.from_numpy(q[0]),) * 3)
    self_got, got_w = layer(q[0], q[0], q[0])
    _check(self_got, self_want.detach().numpy(), dtype)
    _check(got_w, self_w.detach().numpy(), dtype)


def test_multihead_attention_errors():
    layer = MultiheadAttention(8, 2, batch_first=True, rng=0)
    x = np.ones((2, 3, 8), np.float32)
    with pytest.raises(ValueError, match="embed_dim=8 must be divisible by num_heads=3"):
        MultiheadAttention(8, 3)
    with pytest.raises(ValueError, match="MultiheadAttention: query must be"):
        layer(np.ones((2, 3, 7), np.float32), x, x)
    with pytest.raises(TypeError, match="MultiheadAttention: key must be a floating"):
        layer(x, x.astype(np.int64), x)
    with pytest.raises(ValueError, match="key_padding_mask must have shape \\(2, 3\\)"):
        layer(x, x, x, key_padding_mask=np.zeros((2, 4), bool))
    with pytest.raises(ValueError, match="attn_mask must have shape \\(3, 3\\)"):
        layer(x, x, x, attn_mask=np.zeros((3, 4), bool))
    with pytest.raises(TypeError, match="attn_mask must be a bool or float"):
        layer(x, x, x, attn_mask=np.zeros((3, 3), np.int64))
    with pytest.raises(ValueError, match="same batch size"):
        layer(x, np.ones((3, 3, 8), np.float32), np.ones((3, 3, 8), np.float32))
    with pytest.raises(ValueError, match="key and value must agree"):
        layer(x, x, np.ones((2, 4, 8), np.float32))


def test_resolver_names_them_as_pyg():
    from torch_geometric.nn.resolver import aggregation_resolver as pyg_resolver

    for query, args in (
        ("lstm", (3, 4)),
        ("gru", (3, 4)),
        ("set_transformer", (4,)),
        ("GraphMultisetTransformer", (4, 2)),
        ("variance_preserving", ()),
        ("lcm", (3, 4)),
        ("deep_sets", ()),
    ):
        ours = aggr.aggregation_resolver(query, *args)
        assert type(ours).__name__ == type(pyg_resolver(query, *args)).__name__
