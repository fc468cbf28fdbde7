"""CPU softmax over the rows of a dense score matrix (dense attention), in place.

``softmax_rows_(scores, bias, group, safe=..., normalise=False)`` turns ``scores`` ``[R, S]`` into
``exp(scores + bias - row max)`` in place and returns the row sums ``[R, 1]``; the caller
divides the exponentials (attention weights) or the product with the values by them (the
``[L, d]`` output is smaller than the ``[L, S]`` weights). ``bias`` ``[G, S]`` is an
additive mask shared by ``group`` consecutive rows (row ``r`` takes ``bias[r // group]``:
a key-padding mask over ``[B, heads, L, S]`` scores has ``group = heads * L``).

How it runs: one Numba pass per row (``parallel``, row blocks) while the row sits in
cache: the bias added, the maximum taken (eight running maxima), and for float32 the
exponentials (Cephes' ``expf`` polynomial, inlined so the loop vectorises: Numba has no
SIMD ``exp`` without SVML, and its scalar ``expf`` is several times slower than NumPy's),
their sum and, with ``normalise``, the division. Float64 takes NumPy's ``exp`` and one
matrix-vector product for the sums after the Numba pass. On ``[40000, 100]`` float32
scores, one thread, the 2-core box: 1.1 ms against 7 ms for NumPy's ``max`` / broadcast
subtract / ``exp`` / ``sum`` (four passes, two temporaries). The float32 exponential is
within 1.5 ulp of ``exp`` (``8e-8`` relative), and ``exp(x)`` below ``-87.34`` (under
float32's smallest normal number) is 0.

RULE: a row whose entries are all ``-inf`` follows torch: with ``safe`` (torch's
``scaled_dot_product_attention``) it keeps a 0 shift, so its exponentials are 0 and its
sum becomes 1 (zero attention); without (``torch.softmax``) the shift is ``-inf`` and the
row is NaN. A NaN score makes its row's sum NaN either way (also beside ``-inf`` only), so
the row is NaN once divided. ``S = 0``: nothing to do, sums 1. Float16 scores run in
float32 (Numba has no float16).

>>> import numpy as np
>>> s = np.array([[0.0, 0.0], [-np.inf, -np.inf]], np.float32)
>>> total = softmax_rows_(s, None, 1, safe=True)
>>> (s / total).tolist()
[[0.5, 0.5], [0.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks

__all__ = [
    "softmax_rows_",
    "softmax_rows_reference",
    "segment_softmax_f32_",
    "segment_softmax_reference",
]


@njit(cache=True, nogil=True)
def _row_max(row):  # pragma: no cover - compiled
    """Maximum of ``row`` in eight independent running maxima (one chain of compares is
    2.7x slower; NumPy's ``max`` along a short last axis 3.7x). A NaN entry may be
    skipped: it makes its row NaN after the exponential anyway."""
    n = row.shape[0]
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = row[0]
    j = 0
    while j + 8 <= n:
        x0, x1, x2, x3 = row[j], row[j + 1], row[j + 2], row[j + 3]
        x4, x5, x6, x7 = row[j + 4], row[j + 5], row[j + 6], row[j + 7]
        a0 = x0 if x0 > a0 else a0
        a1 = x1 if x1 > a1 else a1
        a2 = x2 if x2 > a2 else a2
        a3 = x3 if x3 > a3 else a3
        a4 = x4 if x4 > a4 else a4
        a5 = x5 if x5 > a5 else a5
        a6 = x6 if x6 > a6 else a6
        a7 = x7 if x7 > a7 else a7
        j += 8
    while j < n:
        x0 = row[j]
        a0 = x0 if x0 > a0 else a0
        j += 1
    a0 = a1 if a1 > a0 else a0
    a2 = a3 if a3 > a2 else a2
    a4 = a5 if a5 > a4 else a4
    a6 = a7 if a7 > a6 else a6
    a0 = a2 if a2 > a0 else a0
    a4 = a6 if a6 > a4 else a4
    return a4 if a4 > a0 else a0


@intrinsic
def _f32_from_bits(typingctx, bits):  # pragma: no cover - compiled
    """The float32 whose bits are the int32 ``bits`` (``2**n`` from ``(n + 127) << 23``)."""
    if bits != types.int32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


#: below this (float32's smallest normal ``exp``) the exponential is 0
_EXP_LOW = np.float32(-87.33654)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _exp_f32(x):  # pragma: no cover - compiled
    """``exp(x)`` for a float32 ``x <= 0`` (Cephes' ``expf``: ``2**n * p(r)``); 0 below
    ``_EXP_LOW`` and for ``-inf``, NaN for NaN."""
    small = x < _EXP_LOW
    c = x if x == x and not small else np.float32(0)
    n = np.floor(c * np.float32(1.44269504088896341) + np.float32(0.5))
    r = c - n * np.float32(0.693359375)
    r = r - n * np.float32(-2.12194440e-4)
    p = np.float32(1.9875691500e-4)
    p = p * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    y = p * r * r + r + np.float32(1.0)
    y = y * _f32_from_bits(np.int32((np.int32(n) + np.int32(127)) << np.int32(23)))
    if small:
        return np.float32(0)
    return y if x == x else x


@njit(cache=True, nogil=True)
def _has_nan(row):  # pragma: no cover - compiled
    """Does ``row`` hold a NaN?"""
    for j in range(row.shape[0]):
        if row[j] != row[j]:
            return True
    return False


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _row_sum(row):  # pragma: no cover - compiled
    """Sum of ``row`` (reassociated into SIMD partial sums)."""
    acc = row.dtype.type(0)
    for j in range(row.shape[0]):
        acc += row[j]
    return acc


@njit(cache=True, nogil=True)
def _softmax_rows_f32(s, bias, group, safe, normalise, total, r0, r1):  # pragma: no cover
    """Rows ``r0:r1`` of float32 scores: bias, maximum, exponentials and sum in one visit
    of each row (``total[r]`` its sum; the row divided by it with ``normalise``)."""
    n = s.shape[1]
    nan = np.float32(np.nan)
    for r in range(r0, r1):
        row = s[r]
        if bias.shape[0] > 0:
            mask = bias[r // group]
            for j in range(n):
                row[j] += mask[j]
        top = _row_max(row)
        if top == -np.inf:  # every entry -inf, or -inf and NaN (the maximum skips a NaN)
            if not safe or _has_nan(row):  # torch.softmax: -inf - -inf, NaN; a NaN score
                row[:] = nan
                total[r] = nan
                continue
            row[:] = 0
            total[r] = 1
            continue
        for j in range(n):
            row[j] = _exp_f32(row[j] - top)
        acc = _row_sum(row)
        total[r] = acc
        if normalise:
            for j in range(n):
                row[j] /= acc


@njit(cache=True, nogil=True, parallel=True)
def _softmax_kernel_f32(s, bias, group, safe, normalise, total, nblocks):  # pragma: no cover
    rows = s.shape[0]
    for b in prange(nblocks):
        r0, r1 = (rows * b) // nblocks, (rows * (b + 1)) // nblocks
        _softmax_rows_f32(s, bias, group, safe, normalise, total, r0, r1)


@njit(cache=True, nogil=True)
def _shift_rows(s, bias, group, safe, zero, r0, r1):  # pragma: no cover - compiled
    """Rows ``r0:r1``: bias added, maximum subtracted; ``zero`` is a 0 of the scores'
    dtype (a literal ``0.0`` would make the shift float64 and the subtraction scalar)."""
    n = s.shape[1]
    for r in range(r0, r1):
        row = s[r]
        if bias.shape[0] > 0:
            mask = bias[r // group]
            for j in range(n):
                row[j] += mask[j]
        top = _row_max(row)
        if top == -np.inf and safe:
            top = zero
        for j in range(n):
            row[j] -= top


@njit(cache=True, nogil=True, parallel=True)
def _shift_kernel(s, bias, group, safe, zero, nblocks):  # pragma: no cover - compiled
    rows = s.shape[0]
    for b in prange(nblocks):
        r0, r1 = (rows * b) // nblocks, (rows * (b + 1)) // nblocks
        _shift_rows(s, bias, group, safe, zero, r0, r1)


def _row_sums(e: np.ndarray) -> np.ndarray:
    """``e.sum(axis=1, keepdims=True)`` as one matrix-vector product (small products on one
    BLAS thread next to a spinning OpenMP runtime, see ``_threads``)."""
    from arraygnn.kernels.cpu._threads import small_product

    with small_product(2.0 * e.size):
        return (e @ np.ones(e.shape[1], dtype=e.dtype))[:, None]


def softmax_rows_(
    scores: np.ndarray, bias: Any, group: int, *, safe: bool, normalise: bool = False
) -> np.ndarray:
    """Exponentiate C-contiguous ``scores`` ``[R, S]`` in place (bias added, row maximum
    subtracted; divided by the row sums with ``normalise``); returns the row sums ``[R,
    1]`` (1 for a fully masked row with ``safe``). ``bias``: ``None`` or a C-contiguous
    ``[R // group, S]`` array of the scores' dtype. Float16 runs in float32 (rounded once
    at the end); floats Numba does not take (longdouble) take the NumPy reference."""
    from arraygnn.kernels.cpu._threads import serialised, start_threads

    rows, n = scores.shape
    if n == 0 or rows == 0:
        return np.ones((rows, 1), dtype=scores.dtype)
    if scores.dtype == np.float16:  # no float16 in Numba: float32, rounded once (torch's half)
        work = scores.astype(np.float32)
        half_bias = None if bias is None else bias.astype(np.float32)
        total = softmax_rows_(work, half_bias, group, safe=safe, normalise=normalise)
        scores[...] = work
        return total.astype(scores.dtype)
    if scores.dtype != np.float32 and scores.dtype != np.float64:  # longdouble, byte-swapped
        return softmax_rows_reference(scores, bias, group, safe=safe, normalise=normalise)
    b = np.empty((0, n), dtype=scores.dtype) if bias is None else bias
    serial = scores.size <= SERIAL_WORK
    if not serial:
        start_threads()
    if scores.dtype == np.float32:
        total = np.empty((rows, 1), dtype=scores.dtype)
        flat = total.reshape(rows)
        if serial:
            _softmax_rows_f32(scores, b, group, safe, normalise, flat, 0, rows)
        else:
            kernel = serialised(_softmax_kernel_f32)
            kernel(scores, b, group, safe, normalise, flat, num_blocks(rows))
        return total
    zero = scores.dtype.type(0)
    with np.errstate(invalid="ignore", over="ignore"):
        if serial:
            _shift_rows(scores, b, group, safe, zero, 0, rows)
        else:
            serialised(_shift_kernel)(scores, b, group, safe, zero, num_blocks(rows))
        np.exp(scores, out=scores)
        total = _row_sums(scores)
        if safe:
            total[total == 0] = 1
        if normalise:
            scores /= total
    return total


def softmax_rows_reference(
    scores: np.ndarray, bias: Any, group: int, *, safe: bool, normalise: bool = False
) -> Any:
    """NumPy reference of :func:`softmax_rows_` (same contract, same in-place result)."""
    rows, n = scores.shape
    if n == 0 or rows == 0:
        return np.ones((rows, 1), dtype=scores.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        if bias is not None:
            scores += np.repeat(bias, group, axis=0)
        top = scores.max(axis=1, keepdims=True)
        if safe:
            top[np.isneginf(top)] = 0
        scores -= top
        np.exp(scores, out=scores)
        total = scores.sum(axis=1, keepdims=True)
        if safe:
            total[total == 0] = 1
        if normalise:
            scores /= total
    return total


@njit(cache=True, nogil=True)
def _segment_rows_f32(indptr, s, r0, r1):  # pragma: no cover - compiled
    """CSR rows ``r0:r1`` of float32 ``s`` ``[E, C]`` in slot order: per channel the
    maximum, the exponentials (``_exp_f32``) and the division by their sum (float64, as
    ``arraygnn.ops.edge_softmax``), the channels innermost so every loop vectorises."""
    c = s.shape[1]
    top = np.empty(c, dtype=s.dtype)
    total = np.empty(c, dtype=np.float64)
    for r in range(r0, r1):
        lo, hi = indptr[r], indptr[r + 1]
        if hi <= lo:
            continue
        top[:] = s[lo]
        for k in range(lo + 1, hi):
            row = s[k]
            for h in range(c):
                v = row[h]
                top[h] = v if v > top[h] or v != v else top[h]
        total[:] = 0.0
        for k in range(lo, hi):
            row = s[k]
            for h in range(c):
                e = _exp_f32(row[h] - top[h])
                row[h] = e
                total[h] += e
        for k in range(lo, hi):
            row = s[k]
            for h in range(c):
                row[h] = row[h] / total[h]


@njit(cache=True, nogil=True, parallel=True)
def _segment_kernel_f32(indptr, s, nblocks):  # pragma: no cover - compiled
    for b in prange(nblocks):
        _segment_rows_f32(
            indptr, s, block_rows(indptr, b, nblocks), block_rows(indptr, b + 1, nblocks)
        )


def segment_softmax_f32_(indptr: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Softmax of C-contiguous float32 ``scores`` ``[E, C]`` (CSR slot order) per channel
    over each row ``indptr[r]:indptr[r + 1]``, in place (``arraygnn.ops.edge_softmax_slots``
    with the fused exponential: a row whose channel is all ``-inf`` is NaN there, as
    there). Returns ``scores``."""
    from arraygnn.kernels.cpu._threads import serialised, start_threads

    rows = indptr.shape[0] - 1
    if rows <= 0 or scores.size == 0:
        return scores
    if scores.size + rows <= SERIAL_WORK:
        _segment_rows_f32(indptr, scores, 0, rows)
    else:
        start_threads()
        serialised(_segment_kernel_f32)(indptr, scores, num_blocks(rows))
    return scores


def segment_softmax_reference(indptr: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """NumPy reference of :func:`segment_softmax_f32_` (a new array)."""
    out = np.empty_like(scores)
    with np.errstate(invalid="ignore"):
        for r in range(indptr.shape[0] - 1):
            part = scores[indptr[r] : indptr[r + 1]]
            if part.shape[0]:
                e = np.exp(part - part.max(axis=0))
                out[indptr[r] : indptr[r + 1]] = e / e.sum(axis=0, dtype=np.float64)
    return out
