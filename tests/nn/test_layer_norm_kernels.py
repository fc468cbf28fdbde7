"""The fused layer-norm kernels (arraygnn.kernels.cpu.layer_norm) against plain NumPy and
torch / PyG: rows and graphs, affine or not, empty inputs, NaN / inf rows, unsorted batches
with empty graphs, non-contiguous inputs, float32 / float64, and the same bits at 1 and 2
threads."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from arraygnn.kernels.cpu.layer_norm import fits, layer_norm_graphs, layer_norm_rows
from arraygnn.nn.linear import LayerNorm as TorchStyleLayerNorm
from arraygnn.nn.norm import LayerNorm


def _rows_reference(x, eps, w, b):
    x = x.astype(np.float64)
    c = x - x.mean(axis=-1, keepdims=True)
    out = c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps)
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out


def _graphs_reference(x, batch, size, eps, w, b):
    x = x.astype(np.float64)
    f = x.shape[1]
    if batch is None:
        c = x - x.mean() if x.size else x
        out = c / (np.sqrt((c * c).mean() if x.size else 0.0) + eps)
    else:
        cnt = np.maximum(np.bincount(batch, minlength=size), 1) * f
        mean = np.bincount(batch, weights=x.sum(1), minlength=size) / cnt
        c = x - mean[batch][:, None]
        var = np.bincount(batch, weights=(c * c).sum(1), minlength=size) / cnt
        out = c / np.sqrt(var + eps)[batch][:, None]
    if w is not None:
        out = out * w + b
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,f", [(0, 4), (1, 1), (7, 3), (300, 64), (2000, 40)])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_rows_match_reference(dtype, rows, f, affine):
    rng = np.random.default_rng(rows + f)
    x = (rng.standard_normal((rows, f)) * 5 + 2).astype(dtype)
    w = rng.uniform(0.5, 2, f).astype(dtype) if affine in ("both", "weight") else None
    b = rng.standard_normal(f).astype(dtype) if affine in ("both", "bias") else None
    before = x.copy()
    got = layer_norm_rows(x, 1e-5, w, b)
    assert got.dtype == dtype and got.shape == x.shape
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, _rows_reference(x, 1e-5, w, b), atol=tol, rtol=tol)
    np.testing.assert_array_equal(x, before)


def test_rows_nan_inf_and_constant_rows():
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 0.0, 1.0], [3.0, 3.0, 3.0]], np.float32)
    got = layer_norm_rows(x, 1e-5, None, None)
    assert np.isnan(got[0]).all() and np.isnan(got[1]).all()
    assert got[2].tolist() == [0.0, 0.0, 0.0]


def test_rows_non_contiguous_and_higher_dims():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 6, 16)).astype(np.float32)
    ln = TorchStyleLayerNorm(16)
    ln.weight = rng.uniform(0.5, 2, 16).astype(np.float32)
    ln.bias = rng.standard_normal(16).astype(np.float32)
    want = _rows_reference(x, 1e-5, ln.weight, ln.bias)
    np.testing.assert_allclose(ln(x), want, atol=2e-5)
    xt = np.ascontiguousarray(x.transpose(1, 0, 2)).transpose(1, 0, 2)  # strided view
    assert not xt.flags.c_contiguous
    np.testing.assert_allclose(ln(xt), want, atol=2e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 9, 3000])
@pytest.mark.parametrize("with_batch", [True, False])
def test_graphs_match_reference(dtype, rows, with_batch):
    rng = np.random.default_rng(rows)
    f = 24
    x = (rng.standard_normal((rows, f)) * 3 - 1).astype(dtype)
    size = 7
    # unsorted ids, graphs 0 and 6 empty, int32 ids
    batch = rng.integers(1, 6, rows).astype(np.int32) if with_batch else None
    w = rng.uniform(0.5, 2, f).astype(dtype)
    b = rng.standard_normal(f).astype(dtype)
    got = layer_norm_graphs(x, batch, size, 1e-5, w, b)
    tol = 5e-5 if dtype == np.float32 else 1e-12
    want = _graphs_reference(x, batch, size, 1e-5, w, b)
    np.testing.assert_allclose(got, want, atol=tol, rtol=tol)


def test_same_bits_at_one_and_two_threads():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((40000, 33)).astype(np.float32)
    batch = rng.integers(0, 50, 40000)
    w, b = rng.standard_normal(33).astype(np.float32), rng.standard_normal(33).astype(np.float32)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        r1, g1 = layer_norm_rows(x, 1e-5, w, b), layer_norm_graphs(x, batch, 50, 1e-5, w, b)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        r2, g2 = layer_norm_rows(x, 1e-5, w, b), layer_norm_graphs(x, batch, 50, 1e-5, w, b)
    finally:
        numba.set_num_threads(old)
    assert r1.tobytes() == r2.tobytes() and g1.tobytes() == g2.tobytes()


def test_fits_only_native_float32_float64_with_same_dtype_params():
    x = np.zeros((2, 3), np.float32)
    assert fits(x, None, np.ones(3, np.float32))
    assert not fits(x, np.ones(3, np.float64))  # NumPy would promote to float64
    assert not fits(x.astype(np.float16))
    assert not fits(x.astype(">f4"))
    assert not fits([[0.0]])


@pytest.mark.parametrize("mode", ["graph", "node"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_pyg_layer_norm_same_as_pyg(mode, dtype):
    torch = pytest.importorskip("torch")
    pnn = pytest.importorskip("torch_geometric.nn")
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((500, 16)) * 2 + 1).astype(dtype)
    batch = np.sort(rng.integers(0, 5, 500))
    theirs = pnn.LayerNorm(16, mode=mode).double().eval()
    with torch.no_grad():
        theirs.weight.uniform_(0.5, 2)
        theirs.bias.uniform_(-1, 1)
    ours = LayerNorm(16, mode=mode, dtype=dtype)
    ours.weight = theirs.weight.detach().numpy().astype(dtype)
    ours.bias = theirs.bias.detach().numpy().astype(dtype)
    tol = {np.float16: 2e-2, np.float32: 2e-5, np.float64: 1e-10}[dtype]
    for bb in (batch, None):
        want = theirs(
            torch.as_tensor(x.astype(np.float64)), None if bb is None else torch.as_tensor(bb)
        )
        got = ours(x, bb)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.astype(np.float64), want.detach().numpy(), atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(0, 4), (1, 1), (3000, 64), (7, 5, 3)])
def test_column_affine_matches_numpy(dtype, shape):
    from arraygnn.kernels.cpu.layer_norm import column_affine

    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(dtype)
    scale = rng.standard_normal(shape[-1]).astype(dtype)
    shift = rng.standard_normal(shape[-1]).astype(dtype)
    got = column_affine(x, scale, shift)
    assert got.dtype == dtype and got.shape == x.shape
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(got, x * scale + shift, rtol=tol, atol=tol)


def test_batch_norm_eval_same_as_torch():
    torch = pytest.importorskip("torch")
    from arraygnn.nn import from_torch

    bn = torch.nn.BatchNorm1d(16).eval()
    with torch.no_grad():
        for t in (bn.weight, bn.bias, bn.running_mean):
            t.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    x = np.random.default_rng(0).standard_normal((5000, 16)).astype(np.float32)
    with torch.no_grad():
        want = bn(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(from_torch(bn)(x), want, atol=2e-6)
