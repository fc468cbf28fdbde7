"""CPU layer normalisation: each row of ``x`` (``torch.nn.LayerNorm``) or each graph's rows
together (PyG's ``LayerNorm(mode='graph')``), affine fused, no ``[N, F]`` temporaries.

``layer_norm_rows(x, eps, weight, bias)`` is ``(x - mean) / sqrt(var + eps) * weight +
bias`` over each row's last dimension (biased variance). ``layer_norm_graphs(x, batch,
size, eps, weight, bias)`` takes the mean and variance over all rows and channels of each
graph (``batch[i]`` the graph of row ``i``, graphs need not be sorted); with
``batch=None`` the whole input is one graph and, as PyG, the scale is
``1 / (std + eps)``.

How it runs: rows: one Numba visit per row while it sits in cache (sum, centred sum of
squares, the scaled and shifted row written once), ``parallel`` over row blocks, the
reductions reassociated into SIMD partial sums in the input's dtype (torch also
accumulates float32 rows in float32). Graphs: each row's sum and centred sum of squares
in float64 (Numba), per-graph totals by ``np.bincount`` (sequential: the same bits on every
run and thread count), then one pass writing the output. NumPy's version makes four to
six passes over ``[N, F]`` with as many temporaries; ``benchmarks/bench_norm.py``
measures both modes against torch and PyG (numbers in ``benchmarks/RESULTS.md``).

``column_affine(x, scale, shift)`` is ``x * scale + shift`` with one scale and shift per
column (batch norm at inference): one pass. NumPy broadcasts a ``(F,)`` vector over
``(N, F)`` by calling its inner loop once per row, which at F = 64 costs several times the
memory traffic itself.

Float32 and float64 with weights of the same dtype (or none); anything else (float16,
mixed dtypes that NumPy would promote) is for the caller's array code.

>>> import numpy as np
>>> x = np.array([[1.0, 2.0, 3.0]])
>>> layer_norm_rows(x, 1e-5, None, None).round(3).tolist()
[[-1.225, 0.0, 1.225]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, num_blocks
from arraygnn.kernels.cpu._threads import serialised, start_threads

__all__ = ["column_affine", "fits", "layer_norm_graphs", "layer_norm_rows"]


def fits(x: Any, *params: Any) -> bool:
    """Can these kernels take ``x`` (and the non-``None`` ``params``) without changing the
    result dtype NumPy's array code would give?"""
    if not isinstance(x, np.ndarray) or x.dtype not in (np.float32, np.float64):
        return False
    if not x.dtype.isnative:
        return False
    return all(p is None or (isinstance(p, np.ndarray) and p.dtype == x.dtype) for p in params)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _rows(x, eps, one, weight, bias, out, r0, r1):  # pragma: no cover - compiled
    """Rows ``r0:r1``: mean, biased variance and the normalised (affine) row in one visit."""
    n = x.shape[1]
    nf = one * n
    for r in range(r0, r1):
        row = x[r]
        acc = one - one
        for j in range(n):
            acc += row[j]
        mean = acc / nf
        sq = one - one
        for j in range(n):
            d = row[j] - mean
            sq += d * d
        inv = one / np.sqrt(sq / nf + eps)
        o = out[r]
        if weight.shape[0] > 0 and bias.shape[0] > 0:
            for j in range(n):
                o[j] = (row[j] - mean) * inv * weight[j] + bias[j]
        elif weight.shape[0] > 0:
            for j in range(n):
                o[j] = (row[j] - mean) * inv * weight[j]
        elif bias.shape[0] > 0:
            for j in range(n):
                o[j] = (row[j] - mean) * inv + bias[j]
        else:
            for j in range(n):
                o[j] = (row[j] - mean) * inv


@njit(cache=True, nogil=True, parallel=True)
def _rows_kernel(x, eps, one, weight, bias, out, nblocks):  # pragma: no cover - compiled
    rows = x.shape[0]
    for b in prange(nblocks):
        _rows(x, eps, one, weight, bias, out, (rows * b) // nblocks, (rows * (b + 1)) // nblocks)


def _as_rows(x: np.ndarray) -> np.ndarray:
    """``x`` ``(*, F)`` as a C-contiguous ``(rows, F)`` array (``F`` may be 0, where
    ``reshape(-1, F)`` fails; a 0-d ``x`` is one row of one)."""
    x = np.ascontiguousarray(x)
    if x.ndim == 2:
        return x
    if x.ndim == 0:
        return x.reshape(1, 1)
    return x.reshape(math.prod(x.shape[:-1]), x.shape[-1])


def _empty_like_param(x: np.ndarray, p: Any) -> np.ndarray:
    return np.empty(0, dtype=x.dtype) if p is None else np.ascontiguousarray(p)


def layer_norm_rows(x: np.ndarray, eps: float, weight: Any, bias: Any) -> np.ndarray:
    """Row-wise layer norm of ``x`` ``(*, F)`` over its last dimension (see the module)."""
    shape = x.shape
    x2 = _as_rows(x)
    f = x2.shape[1]
    out = np.empty(x2.shape, dtype=x.dtype)
    one = x.dtype.type(1)
    w, b = _empty_like_param(x, weight), _empty_like_param(x, bias)
    e = x.dtype.type(eps)
    rows = x2.shape[0]
    if rows and f:
        if x2.size <= SERIAL_WORK:
            _rows(x2, e, one, w, b, out, 0, rows)
        else:
            start_threads()
            serialised(_rows_kernel)(x2, e, one, w, b, out, num_blocks(rows))
    return out.reshape(shape)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _row_moment(x, centre, batch, power, res, r0, r1):  # pragma: no cover - compiled
    """``res[r]`` = sum over row r of ``x`` (``power`` 1) or of ``(x - centre[graph])**2``
    (``power`` 2), in float64."""
    n = x.shape[1]
    for r in range(r0, r1):
        row = x[r]
        acc = 0.0
        if power == 1:
            for j in range(n):
                acc += np.float64(row[j])
        else:
            c = centre[batch[r]] if batch.shape[0] > 0 else centre[0]
            for j in range(n):
                d = np.float64(row[j]) - c
                acc += d * d
        res[r] = acc


@njit(cache=True, nogil=True, parallel=True)
def _row_moment_kernel(x, centre, batch, power, res, nblocks):  # pragma: no cover - compiled
    rows = x.shape[0]
    for b in prange(nblocks):
        r0, r1 = (rows * b) // nblocks, (rows * (b + 1)) // nblocks
        _row_moment(x, centre, batch, power, res, r0, r1)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _graph_out(x, batch, mean, inv, weight, bias, out, r0, r1):  # pragma: no cover
    """Rows ``r0:r1``: ``(x - mean[g]) * inv[g]``, then the affine, ``g`` the row's graph."""
    n = x.shape[1]
    for r in range(r0, r1):
        g = batch[r] if batch.shape[0] > 0 else 0
        m, s = mean[g], inv[g]
        row, o = x[r], out[r]
        if weight.shape[0] > 0 and bias.shape[0] > 0:
            for j in range(n):
                o[j] = (row[j] - m) * s * weight[j] + bias[j]
        else:
            for j in range(n):
                o[j] = (row[j] - m) * s


@njit(cache=True, nogil=True, parallel=True)
def _graph_out_kernel(x, batch, mean, inv, weight, bias, out, nblocks):  # pragma: no cover
    rows = x.shape[0]
    for b in prange(nblocks):
        r0, r1 = (rows * b) // nblocks, (rows * (b + 1)) // nblocks
        _graph_out(x, batch, mean, inv, weight, bias, out, r0, r1)


def _run(serial_body: Any, kernel: Any, work: int, rows: int, *args: Any) -> None:
    if rows == 0:
        return
    if work <= SERIAL_WORK:
        serial_body(*args, 0, rows)
    else:
        start_threads()
        serialised(kernel)(*args, num_blocks(rows))


def layer_norm_graphs(
    x: np.ndarray, batch: Any, size: int, eps: float, weight: Any, bias: Any
) -> np.ndarray:
    """PyG's graph-mode layer norm of ``x`` ``(N, F)`` (see the module). ``batch`` is a
    checked integer array (any integer dtype and byte order) of graph ids below ``size``,
    or ``None`` (one graph)."""
    x = np.ascontiguousarray(x)
    rows, f = x.shape
    ids = np.empty(0, dtype=np.int64) if batch is None else np.ascontiguousarray(batch)
    if ids.dtype not in (np.int32, np.int64) or not ids.dtype.isnative:
        # Numba takes native arrays only, and unifies uint64 with int64 to a float index
        ids = ids.astype(np.int64)
    graphs = 1 if batch is None else int(size)
    work = x.size
    sums = np.empty(rows, dtype=np.float64)
    _run(_row_moment, _row_moment_kernel, work, rows, x, np.zeros(1), ids, 1, sums)
    if batch is None:
        counts = np.array([max(rows, 1) * f], dtype=np.float64)
        totals = np.array([sums.sum()])
    else:
        counts = np.maximum(np.bincount(ids, minlength=graphs), 1).astype(np.float64) * f
        totals = np.bincount(ids, weights=sums, minlength=graphs)
    # PyG: the graph's mean over rows (sum / max(rows, 1)), then over the F channels
    mean = (totals / counts).astype(x.dtype)
    squares = np.empty(rows, dtype=np.float64)
    _run(_row_moment, _row_moment_kernel, work, rows, x, mean.astype(np.float64), ids, 2, squares)
    if batch is None:
        sq_totals = np.array([squares.sum()])
    else:
        sq_totals = np.bincount(ids, weights=squares, minlength=graphs)
    with np.errstate(divide="ignore", invalid="ignore"):  # F = 0: nothing to write
        var = (sq_totals / counts).astype(x.dtype)
        if batch is None:
            inv = (1 / (np.sqrt(var) + x.dtype.type(eps))).astype(x.dtype)
        else:
            inv = (1 / np.sqrt(var + x.dtype.type(eps))).astype(x.dtype)
    out = np.empty_like(x)
    w, b = _empty_like_param(x, weight), _empty_like_param(x, bias)
    if (w.shape[0] > 0) != (b.shape[0] > 0):
        raise ValueError("layer_norm_graphs: give both weight and bias, or neither")
    _run(_graph_out, _graph_out_kernel, work, rows, x, ids, mean, inv, w, b, out)
    return out


@njit(cache=True, nogil=True, fastmath={"contract"})
def _affine(x, scale, shift, out, r0, r1):  # pragma: no cover - compiled
    n = x.shape[1]
    for r in range(r0, r1):
        row, o = x[r], out[r]
        for j in range(n):
            o[j] = row[j] * scale[j] + shift[j]


@njit(cache=True, nogil=True, parallel=True)
def _affine_kernel(x, scale, shift, out, nblocks):  # pragma: no cover - compiled
    rows = x.shape[0]
    for b in prange(nblocks):
        _affine(x, scale, shift, out, (rows * b) // nblocks, (rows * (b + 1)) // nblocks)


def column_affine(x: np.ndarray, scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``x * scale + shift`` for ``x`` ``(*, F)`` and ``(F,)`` parameters of ``x``'s dtype
    (see the module; a fused multiply-add where the CPU has one)."""
    shape = x.shape
    x2 = _as_rows(x)
    out = np.empty(x2.shape, dtype=x.dtype)
    args = (x2, np.ascontiguousarray(scale), np.ascontiguousarray(shift), out)
    _run(_affine, _affine_kernel, x2.size, x2.shape[0], *args)
    return out.reshape(shape)
