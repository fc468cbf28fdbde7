"""Review of the dense-attention softmax kernels (arraygnn.kernels.cpu.dense_softmax) and
the layers that call them (MultiheadAttention, TransformerEncoderLayer, the Set
Transformer blocks, PointTransformerConv): NaN scores beside masked keys (torch: NaN),
float16 (Numba has no float16), a user ``attn_nn`` whose output has the wrong number of
rows (the kernel does not bounds-check) or is read-only, the float32 exponential over
every float32 input it can see, bit-identical results across runs and thread counts
(subprocesses), ``cache=True`` without eager signatures, non-contiguous inputs and
nothing the caller passed modified; against torch / PyG where they exist."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from arraygnn.kernels.cpu import dense_softmax as ds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(fn, scores, bias, group, safe, normalise):
    s = scores.copy()
    total = fn(s, bias, group, safe=safe, normalise=normalise)
    return s, total


# ---- the row kernel ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("safe", [True, False])
@pytest.mark.parametrize("normalise", [True, False])
def test_nan_beside_masked_keys_makes_the_row_nan(dtype, safe, normalise):
    """A row whose only non-``-inf`` entries are NaN: its maximum is ``-inf`` when the NaN
    is not first, and the safe (SDPA) rule must not turn the NaN into zero attention."""
    scores = np.array(
        [
            [-np.inf, np.nan, -np.inf, -np.inf],  # NaN after -inf
            [np.nan, -np.inf, -np.inf, -np.inf],  # NaN first
            [-np.inf, -np.inf, -np.inf, np.nan],  # NaN in the tail
            [-np.inf] * 4,  # fully masked
            [0.0, 1.0, np.nan, -np.inf],
        ],
        dtype,
    )
    for big in (False, True):  # serial and parallel (one row of many) paths
        s = np.repeat(scores, 20000 if big else 1, axis=0)
        got, total = _run(ds.softmax_rows_, s, None, 1, safe, normalise)
        want, want_total = _run(ds.softmax_rows_reference, s, None, 1, safe, normalise)
        if not normalise:  # the caller divides (a NaN sum makes the whole row NaN)
            with np.errstate(invalid="ignore"):
                got, want = got / total, want / want_total
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isnan(total), np.isnan(want_total))
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("need_weights", [False, True])
def test_multihead_attention_nan_score_beside_masked_keys_as_torch(dtype, need_weights):
    torch = pytest.importorskip("torch")
    from arraygnn.nn.weights import from_torch

    torch.manual_seed(0)
    tdtype = torch.float64 if dtype == np.float64 else torch.float32
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval().to(tdtype)
    layer = from_torch(ref)
    x = np.random.default_rng(0).standard_normal((2, 4, 8)).astype(dtype)
    mask = np.zeros((4, 4), dtype)
    mask[1] = -np.inf
    mask[1, 2] = np.nan  # query 1: keys masked but one NaN score
    mask[2] = -np.inf
    mask[2, 0] = np.nan
    mask[3, 1] = -np.inf
    with torch.no_grad():
        want, want_w = ref(
            *(torch.from_numpy(x),) * 3, need_weights=need_weights, attn_mask=torch.from_numpy(mask)
        )
    got, got_w = layer(x, x, x, need_weights=need_weights, attn_mask=mask)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)  # NaN where torch's
    if need_weights:
        np.testing.assert_allclose(got_w, want_w.numpy(), rtol=1e-5, atol=1e-6)


def test_float16_and_other_dtypes_take_a_path_without_numba():
    """Numba has no float16 (nor longdouble): float16 runs in float32 and is rounded once
    (torch's half softmax), other floats take the NumPy reference."""
    rng = np.random.default_rng(3)
    scores = (rng.standard_normal((300, 50)) * 4).astype(np.float16).astype(np.float32)
    scores[rng.random(scores.shape) < 0.2] = -np.inf
    scores[5] = -np.inf
    bias = np.where(rng.random((30, 50)) < 0.1, -np.inf, 0).astype(np.float32)
    for safe in (True, False):
        for normalise in (True, False):
            want, want_total = _run(ds.softmax_rows_, scores, bias, 10, safe, normalise)
            half, half_total = _run(
                ds.softmax_rows_, scores.astype(np.float16), bias.astype(np.float16), 10, safe,
                normalise,
            )  # fmt: skip
            assert half.dtype == np.float16 and half_total.dtype == np.float16
            np.testing.assert_allclose(half, want.astype(np.float16), rtol=1e-3, atol=1e-4)
            np.testing.assert_allclose(half_total, want_total.astype(np.float16), rtol=1e-3)
            ld = np.longdouble
            got, total = _run(
                ds.softmax_rows_, scores.astype(ld), bias.astype(ld), 10, safe, normalise
            )
            assert got.dtype == ld and total.dtype == ld
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("need_weights", [False, True])
def test_multihead_attention_float16_as_torch_half(need_weights):
    torch = pytest.importorskip("torch")
    from arraygnn.nn.weights import from_torch

    torch.manual_seed(1)
    ref = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval().half()
    layer = from_torch(ref)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((3, 5, 8)).astype(np.float16)
    kv = rng.standard_normal((3, 6, 8)).astype(np.float16)
    padding = np.zeros((3, 6), bool)
    padding[0, 2:] = True
    padding[2] = True  # no key at all: zero attention or NaN
    args = (torch.from_numpy(q), torch.from_numpy(kv), torch.from_numpy(kv))
    with torch.no_grad():
        want, want_w = ref(*args, torch.from_numpy(padding), need_weights=need_weights)
    got, got_w = layer(q, kv, kv, padding, need_weights=need_weights)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, want.numpy(), rtol=2e-2, atol=2e-2)
    if need_weights:
        assert got_w.dtype == np.float16
        np.testing.assert_allclose(got_w, want_w.numpy(), rtol=2e-2, atol=2e-3)


def test_float32_exponential_on_every_input_it_sees():
    """``_exp_f32`` on every float32 in ``[-87.34, 0]`` (the only finite values ``x - max``
    takes; sampled every 64th bit pattern): within 1.5 ulp of ``exp``; 0 below, for
    ``-inf`` and subnormal results; NaN for NaN; tiny and subnormal inputs give 1."""
    low = np.float32(-87.33654).view(np.uint32)
    bits = np.arange(0x80000000, int(low) + 1, 64, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32), [np.float32(-87.33654)]])
    got = x[None].copy()
    ds.softmax_rows_(got, None, 1, safe=True)  # max 0 (x[0] is -0.0): exp(x) itself
    want = np.exp(x.astype(np.float64))
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    assert (np.abs(got[0].astype(np.float64) - want) / ulp).max() <= 1.5
    edge = np.array([[0.0, -1e-45, -1e-40, -87.3366, -100.0, -1e30, -np.inf]], np.float32)
    ds.softmax_rows_(edge, None, 1, safe=True)
    assert edge[0].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    nan = np.array([[0.0, np.nan]], np.float32)
    ds.softmax_rows_(nan, None, 1, safe=True)
    assert np.isnan(nan[0, 1])


# ---- the kernels are compiled once, cached, and give the same bits ----------------------
def test_kernels_cached_without_eager_signatures():
    from numba.core.caching import NullCache

    for name in (
        "_row_max",
        "_exp_f32",
        "_row_sum",
        "_softmax_rows_f32",
        "_softmax_kernel_f32",
        "_shift_rows",
        "_shift_kernel",
        "_segment_rows_f32",
        "_segment_kernel_f32",
    ):
        dispatcher = getattr(ds, name)
        assert not isinstance(dispatcher._cache, NullCache), name  # cache=True
        assert dispatcher._can_compile, name  # no eager signature list


_DETERMINISM = textwrap.dedent(
    """
    import hashlib, numpy as np
    from arraygnn.kernels.cpu.dense_softmax import softmax_rows_, segment_softmax_f32_
    rng = np.random.default_rng(0)
    h = hashlib.sha256()
    for dtype in (np.float32, np.float64):
        s = (rng.standard_normal((6000, 77)) * 6).astype(dtype)  # parallel sizes
        s[rng.random(s.shape) < 0.2] = -np.inf
        bias = np.where(rng.random((60, 77)) < 0.1, -np.inf, 0).astype(dtype)
        for safe, norm in ((True, False), (False, True)):
            a = s.copy()
            t = softmax_rows_(a, bias, 100, safe=safe, normalise=norm)
            h.update(a.tobytes()); h.update(t.tobytes())
    deg = rng.integers(0, 30, 5000)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    e = (rng.standard_normal((int(indptr[-1]), 16)) * 5).astype(np.float32)
    h.update(segment_softmax_f32_(indptr, e).tobytes())
    print(h.hexdigest())
    """
)


def test_same_bits_across_runs_and_thread_counts():
    digests = set()
    for threads in ("1", "2", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads)
        env["PYTHONPATH"] = ROOT
        run = subprocess.run(
            [sys.executable, "-c", _DETERMINISM],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        digests.add(run.stdout.strip())
    assert len(digests) == 1


# ---- the layers -------------------------------------------------------------------------
def test_multihead_attention_non_contiguous_inputs_untouched_and_as_torch():
    torch = pytest.importorskip("torch")
    from arraygnn.nn.weights import from_torch

    torch.manual_seed(2)
    ref = torch.nn.MultiheadAttention(8, 4, kdim=6, vdim=6).eval()  # [L, B, E]
    layer = from_torch(ref)
    rng = np.random.default_rng(2)
    q = np.asfortranarray(rng.standard_normal((5, 300, 8)).astype(np.float32))[:, ::2]
    kv = rng.standard_normal((300, 7, 12)).astype(np.float32).transpose(1, 0, 2)[:, ::2, ::2]
    padding = (rng.random((300, 7)) < 0.3)[::2]
    padding[3] = True
    float_pad = np.where(padding, -np.inf, -0.5).astype(np.float32).T.copy().T  # F-order
    saved = [a.copy() for a in (q, kv, padding, float_pad)]
    targs = [torch.from_numpy(np.ascontiguousarray(a)) for a in (q, kv, kv)]
    for mask in (padding, float_pad):
        for need_weights, average in ((True, True), (True, False), (False, True)):
            opts = {"need_weights": need_weights, "average_attn_weights": average}
            with torch.no_grad():
                want, want_w = ref(
                    *targs, key_padding_mask=torch.from_numpy(np.ascontiguousarray(mask)), **opts
                )
            got, got_w = layer(q, kv, kv, key_padding_mask=mask, **opts)
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
            if need_weights:
                np.testing.assert_allclose(got_w, want_w.numpy(), rtol=1e-4, atol=1e-6)
    for a, b in zip((q, kv, padding, float_pad), saved):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_layer_as_torch_and_src_untouched(dtype, norm_first, activation):
    torch = pytest.importorskip("torch")
    from arraygnn.nn.lap_pos_encoder import TransformerEncoderLayer

    torch.manual_seed(3)
    tdtype = torch.float64 if dtype == np.float64 else torch.float32
    ref = torch.nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    )
    ref = ref.eval().to(tdtype)
    layer = TransformerEncoderLayer(8, 2, 16, activation, norm_first=norm_first, dtype=dtype)
    layer.load_state_dict(ref.state_dict(), format="pyg")
    rng = np.random.default_rng(3)
    src = rng.standard_normal((4, 6, 8)).astype(dtype)
    padding = rng.random((4, 6)) < 0.3
    padding[:, 0] = False
    saved = src.copy(), padding.copy()
    for mask in (None, padding):
        with torch.no_grad():
            want = ref(
                torch.from_numpy(src),
                src_key_padding_mask=None if mask is None else torch.from_numpy(mask),
            ).numpy()
        got = layer(src, mask)
        assert got.dtype == dtype
        tol = 1e-4 if dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_array_equal(src, saved[0])
    np.testing.assert_array_equal(padding, saved[1])


def _point_transformer(torch, dtype):
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn.weights import from_pyg

    torch.manual_seed(4)
    attn = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh())
    ref = pyg_nn.PointTransformerConv(4, 8, attn_nn=attn).eval()
    ref = ref.to(torch.float64 if dtype == np.float64 else torch.float32)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((30, 4)).astype(dtype)
    pos = rng.standard_normal((30, 3)).astype(dtype)
    edge_index = rng.integers(0, 30, (2, 120))
    return ref, from_pyg(ref), x, pos, edge_index


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_point_transformer_attn_nn_with_wrong_rows_is_an_error(dtype):
    """``attn_nn`` is the user's: one row short must be an error naming the layer, never a
    kernel reading past the scores."""
    torch = pytest.importorskip("torch")
    _, conv, x, pos, edge_index = _point_transformer(torch, dtype)
    inner = conv.attn_nn
    for cut in (lambda s: s[:-1], lambda s: np.concatenate([s, s[:3]]), lambda s: s[0]):
        conv.attn_nn = lambda s, inner=inner, cut=cut: cut(inner(s))
        with pytest.raises(ValueError, match="PointTransformerConv: attn_nn"):
            conv(x, pos, edge_index)


def test_point_transformer_read_only_attn_nn_output_as_pyg():
    torch = pytest.importorskip("torch")
    ref, conv, x, pos, edge_index = _point_transformer(torch, np.float32)
    inner = conv.attn_nn
    kept = []

    def frozen(s):
        out = inner(s)
        out.flags.writeable = False
        kept.append((out, out.copy()))
        return out

    conv.attn_nn = frozen
    got = conv(x, pos, edge_index)
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(pos), torch.from_numpy(edge_index)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for out, copy in kept:  # what attn_nn returned is left as it was
        np.testing.assert_array_equal(out, copy)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layer_norm", [False, True])
def test_multihead_attention_block_as_pyg_and_inputs_untouched(dtype, layer_norm):
    """The residual ``out + relu(lin(out))`` is now added in place: into the layer's own
    arrays only, never ``x`` / ``y`` / the masks."""
    torch = pytest.importorskip("torch")
    utils = pytest.importorskip("torch_geometric.nn.aggr.utils")
    from arraygnn.nn.aggr.set_transformer import MultiheadAttentionBlock

    torch.manual_seed(5)
    tdtype = torch.float64 if dtype == np.float64 else torch.float32
    ref = utils.MultiheadAttentionBlock(8, heads=2, layer_norm=layer_norm).eval().to(tdtype)
    block = MultiheadAttentionBlock(8, heads=2, layer_norm=layer_norm, dtype=dtype)
    block.load_state_dict(ref.state_dict(), format="pyg")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 8)).astype(dtype)
    y = rng.standard_normal((3, 5, 8)).astype(dtype)
    x_mask = rng.random((3, 4)) < 0.8
    y_mask = rng.random((3, 5)) < 0.7
    y_mask[:, 0] = True
    saved = [a.copy() for a in (x, y, x_mask, y_mask)]
    for same in (False, True):  # cross- and self-attention (one projection product)
        yy, ym = (x, x_mask) if same else (y, y_mask)
        got = block(x, yy, x_mask, ym)
        with torch.no_grad():
            want = ref(*(torch.from_numpy(a) for a in (x, yy, x_mask, ym))).numpy()
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    for a, b in zip((x, y, x_mask, y_mask), saved):
        np.testing.assert_array_equal(a, b)
