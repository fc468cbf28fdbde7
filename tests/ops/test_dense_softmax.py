"""The dense-attention row softmax kernel (arraygnn.kernels.cpu.dense_softmax) against its
NumPy reference and torch: float32 (fused Numba exponential) and float64 (NumPy's), serial
and parallel sizes, additive masks with -inf, fully masked rows (safe: zero attention;
unsafe: NaN as torch.softmax), NaN scores, no rows, no columns, one column."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.kernels.cpu.dense_softmax import softmax_rows_, softmax_rows_reference


def _run(fn, scores, bias, group, safe, normalise):
    s = scores.copy()
    total = fn(s, bias, group, safe=safe, normalise=normalise)
    return s, total


def _tol(dtype):
    return dict(rtol=2e-6, atol=1e-7) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [0, 1, 7, 3000])  # 3000 x 37: the parallel path
@pytest.mark.parametrize("cols", [0, 1, 37])
@pytest.mark.parametrize("safe", [True, False])
@pytest.mark.parametrize("normalise", [True, False])
def test_matches_reference(dtype, rows, cols, safe, normalise):
    rng = np.random.default_rng(rows * 100 + cols)
    scores = (rng.standard_normal((rows, cols)) * 5).astype(dtype)
    groups = max(rows, 1)
    bias = np.where(rng.random((groups, cols)) < 0.3, -np.inf, 0.0).astype(dtype)
    if rows > 2 and cols:
        scores[1] = -np.inf  # a fully masked row from the scores themselves
        bias[2] = -np.inf  # and one from the mask
    for b in (None, bias if rows else None):
        got, total = _run(softmax_rows_, scores, b, 1, safe, normalise)
        want, want_total = _run(softmax_rows_reference, scores, b, 1, safe, normalise)
        assert total.shape == (rows, 1) and total.dtype == dtype and got.dtype == dtype
        np.testing.assert_allclose(total, want_total, **_tol(dtype))
        np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grouped_bias_and_masked_rows(dtype):
    rng = np.random.default_rng(1)
    b, h, length, s = 5, 3, 40, 30
    scores = rng.standard_normal((b * h * length, s)).astype(dtype)
    pad = np.zeros((b, s), dtype)
    pad[0, 10:] = -np.inf
    pad[3] = -np.inf  # every key of batch entry 3 is padding
    safe_s, safe_t = _run(softmax_rows_, scores, pad, h * length, True, False)
    rows3 = slice(3 * h * length, 4 * h * length)
    assert (safe_s[rows3] == 0).all() and (safe_t[rows3] == 1).all()
    unsafe_s, _ = _run(softmax_rows_, scores, pad, h * length, False, True)
    assert np.isnan(unsafe_s[rows3]).all()
    assert not np.isnan(np.delete(unsafe_s, np.s_[rows3], 0)).any()
    assert (unsafe_s[: h * length, 10:] == 0).all()
    want, _ = _run(softmax_rows_reference, scores, pad, h * length, False, True)
    np.testing.assert_allclose(unsafe_s, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_score_makes_its_row_nan(dtype):
    scores = np.array([[0.0, np.nan, 1.0], [np.nan, 0.0, 0.0], [1.0, 2.0, 3.0]], dtype)
    got, total = _run(softmax_rows_, scores, None, 1, True, True)
    assert np.isnan(got[:2]).all() and np.isnan(total[:2]).all()
    assert np.isfinite(got[2]).all()


def test_exponential_accuracy_and_underflow():
    """The float32 polynomial exp: within 2 ulp of float64's exp, 0 far below the max."""
    x = np.concatenate([-np.linspace(0, 87, 20001), [-87.5, -100.0, -1e30]]).astype(np.float32)
    scores = x[None].copy()
    softmax_rows_(scores, None, 1, safe=True)
    want = np.exp(x.astype(np.float64))
    normal = want > np.finfo(np.float32).tiny
    np.testing.assert_allclose(scores[0][normal], want[normal], rtol=2.5e-7)
    assert (scores[0][-3:] == 0).all()


def test_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    scores = (rng.standard_normal((500, 64)) * 8).astype(np.float32)
    scores[rng.random(scores.shape) < 0.2] = -np.inf
    scores[3] = -np.inf
    got, _ = _run(softmax_rows_, scores, None, 1, False, True)
    want = torch.softmax(torch.from_numpy(scores), -1).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)  # NaN row 3 on both sides


@pytest.mark.parametrize("rows", [0, 1, 9, 4000])  # 4000 rows: the parallel path
@pytest.mark.parametrize("channels", [1, 32])
def test_segment_softmax_matches_reference_and_edge_softmax(rows, channels):
    from arraygnn.kernels.cpu.dense_softmax import (
        segment_softmax_f32_,
        segment_softmax_reference,
    )
    from arraygnn.ops import to_csr
    from arraygnn.ops.edge_softmax import edge_softmax_slots

    rng = np.random.default_rng(rows + channels)
    deg = rng.integers(0, 12, rows)  # rows without edges included
    dst = np.repeat(np.arange(rows), deg)
    src = rng.integers(0, max(rows, 1), dst.shape[0])
    scores = (rng.standard_normal((dst.shape[0], channels)) * 6).astype(np.float32)
    scores[rng.random(scores.shape) < 0.2] = -np.inf
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    if rows > 5 and deg[5]:
        scores[indptr[5] : indptr[6], 0] = -np.inf  # a fully masked channel: NaN
    got = segment_softmax_f32_(indptr, scores.copy())
    want = segment_softmax_reference(indptr, scores)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    csr = to_csr(np.stack([src, dst]), max(rows, 1), rows)
    np.testing.assert_allclose(got, edge_softmax_slots(csr, scores), rtol=2e-6, atol=1e-7)
