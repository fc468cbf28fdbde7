"""Lean row kernels: the common cases of :mod:`._row_reduce`, specialised at compile time.

The general row kernel takes every choice as a run-time argument (reduction, weights, source
index, heads, feature chunks) and indexes 3-D arrays in 64-bit signed arithmetic; compiled
for an H100 (numba-cuda 0.30, ptxas 13, sm_90, read off the SASS without a card) it needs
60 registers, or spills to local memory at the 32-register cap the launcher sets, and spends
~35 instructions per edge on index arithmetic (negative-index wraparound, 64-bit multiplies
by the strides). Here one kernel is built per ``(reduction, weighted, indexed, accumulators,
widen, one chunk)``, arrays are flat, offsets unsigned (no wraparound code; 32-bit offsets
were tried and compiled to more instructions: Numba widens uint32 arithmetic to 64 bits).
The light-row loop loads the source ids of four slots, then all their feature values, then
combines them (in the general kernel's order; ptxas interleaves part of the loads with the
adds to stay within 32 registers). Same SASS reading: 32 registers and no spills for sum
and max with up to two accumulators per lane (F <= 64 per chunk), about a third of the
general kernel's instructions (kernels/cuda/NOTES.md, round 3).

Same slots, same order of operations, same accumulator type as the general kernel: the same
bits (tested under the simulator on every labelled case), so which kernel runs is a speed
choice only. One exception, NaN payloads: on a card the general kernel's ``x - 0.0``
returns the canonical NaN, while a lean max / min that needs no widening passes an input
NaN through as it is (NaN either way; the H200 run of 2026-11-27 showed exactly this and
no other difference). On by default (``_launch.LEAN_ROWS``) since that run timed it at
1.5-2.5x the general kernel (kernels/cuda/NOTES.md, benchmarks/RESULTS.md).

Not cached on disk: Numba keys a closure's cache entry by its pickled cells (here the device
functions), which differ between processes (checked with ``@njit`` closures: every process
wrote new entries and read none), so each specialisation compiles once per process.

Covered: ``x`` [N, H, F] with one weight per slot or none (``weights`` [nnz, 1], already in
slot order: what ``ops.spmm`` passes), the source row of slot ``j`` being ``gather[j]``,
``perm[j]`` (segment reduction) or ``j``. Per-head weights, heads broadcast from ``x`` and
weights read through ``perm`` take the general kernel (:func:`covers`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import cuda
from numba.cuda import libdevice

from arraygnn.kernels.cuda import _launch
from arraygnn.kernels.cuda._row_reduce import (
    _KERNEL_OPTIONS,
    MEAN,
    PER_THREAD,
    _combine,
    group_shape,
)

__all__ = ["covers", "reduce_rows_lean"]


def covers(x: Any, out: Any, gather: Any, perm: Any, weights: Any) -> bool:
    """True when the lean kernels compute exactly what the general one would."""
    if x.shape[1] != out.shape[1]:
        return False  # heads broadcast from x
    if not out.flags.c_contiguous:
        return False  # written through a flat view of itself
    if weights is None:
        return True
    return gather is not None and perm is None and weights.shape[1] == 1


@cuda.jit(device=True, inline=True)
def _mul(a, b):  # pragma: no cover - runs on the device (simulator only)
    return a * b


@functools.cache
def _kernels(
    code: int, weighted: bool, indexed: bool, nacc: int, widen: bool, multi: bool, acc64: bool
) -> tuple[Any, Any]:
    """``(pieces kernel, rows kernel)`` for one specialisation (compile-time constants)."""
    ity = np.uint64
    # RULE: the weight product is rounded on its own (``mul.rn``, never fused into an FMA).
    # NVVM contracts ``acc + v * w`` into one fused multiply-add when both sit in one block,
    # as they do here once the reduction is a constant; the general kernel's multiply and
    # add are in different blocks and round twice (FMUL, FADD in its SASS). Fusing would
    # change the bits of weighted sum / mean on a card; the simulator never fuses.
    mul_rn = libdevice.dmul_rn if acc64 else libdevice.fmul_rn
    if _launch._SIMULATOR:  # its libdevice functions are typing stubs; NumPy never fuses
        mul_rn = _mul
    # up to two accumulators per lane the kernels fit the general kernels' 32-register cap
    # (no or a few bytes of spills); four (F > 64 per chunk) need 56-64 registers and
    # spilled 250-320 bytes at that cap, so they get 64 (ptxas -v, sm_90; not yet timed)
    options = dict(_KERNEL_OPTIONS)
    if options and nacc > 2:
        options["max_registers"] = 64

    @cuda.jit(device=True, inline=True)
    def source(src, j):  # pragma: no cover - runs on the device
        if indexed:
            return ity(src[j])
        return j

    @cuda.jit(device=True, inline=True)
    def weight(weights, j, zero):  # pragma: no cover - runs on the device
        if weighted:
            return weights[j] - zero
        return zero  # never used: value() ignores the weight when there is none

    @cuda.jit(device=True, inline=True)
    def value(x, o, w, zero):  # pragma: no cover - runs on the device
        # (x - zero) * w in the general kernel; - 0.0 and * 1.0 are exact, so they are
        # left out where they change nothing (no widening, no weight)
        v = x[o] - zero if widen else x[o]
        if weighted:
            return mul_rn(v, w)
        return v

    @cuda.jit(device=True, inline=True)
    def accumulate(
        a0, a1, a2, a3, lo, hi, src, weights, x, width, fa, fb, fc, fd, zero
    ):  # pragma: no cover - runs on the device
        """Fold slots lo..hi-1 in slot order into the lane's accumulators."""
        j = lo
        while j + ity(4) <= hi:
            b0 = source(src, j) * width
            b1 = source(src, j + ity(1)) * width
            b2 = source(src, j + ity(2)) * width
            b3 = source(src, j + ity(3)) * width
            w0 = weight(weights, j, zero)
            w1 = weight(weights, j + ity(1), zero)
            w2 = weight(weights, j + ity(2), zero)
            w3 = weight(weights, j + ity(3), zero)
            # every load of the four slots first, then the combines in slot order
            v0 = value(x, b0 + fa, w0, zero)
            v1 = value(x, b1 + fa, w1, zero)
            v2 = value(x, b2 + fa, w2, zero)
            v3 = value(x, b3 + fa, w3, zero)
            if nacc > 1:
                u0 = value(x, b0 + fb, w0, zero)
                u1 = value(x, b1 + fb, w1, zero)
                u2 = value(x, b2 + fb, w2, zero)
                u3 = value(x, b3 + fb, w3, zero)
            a0 = _combine(_combine(_combine(_combine(a0, v0, code), v1, code), v2, code), v3, code)
            if nacc > 1:
                a1 = _combine(
                    _combine(_combine(_combine(a1, u0, code), u1, code), u2, code), u3, code
                )
            if nacc > 2:
                a2 = _combine(a2, value(x, b0 + fc, w0, zero), code)
                a2 = _combine(a2, value(x, b1 + fc, w1, zero), code)
                a2 = _combine(a2, value(x, b2 + fc, w2, zero), code)
                a2 = _combine(a2, value(x, b3 + fc, w3, zero), code)
            if nacc > 3:
                a3 = _combine(a3, value(x, b0 + fd, w0, zero), code)
                a3 = _combine(a3, value(x, b1 + fd, w1, zero), code)
                a3 = _combine(a3, value(x, b2 + fd, w2, zero), code)
                a3 = _combine(a3, value(x, b3 + fd, w3, zero), code)
            j += ity(4)
        while j < hi:
            b = source(src, j) * width
            w = weight(weights, j, zero)
            a0 = _combine(a0, value(x, b + fa, w, zero), code)
            if nacc > 1:
                a1 = _combine(a1, value(x, b + fb, w, zero), code)
            if nacc > 2:
                a2 = _combine(a2, value(x, b + fc, w, zero), code)
            if nacc > 3:
                a3 = _combine(a3, value(x, b + fd, w, zero), code)
            j += ity(1)
        return a0, a1, a2, a3

    @cuda.jit(device=True, inline=True)
    def shape(items, width, gshift, chunks, chunk):  # pragma: no cover - runs on the device
        """The launch arguments as unsigned values, the group size and the work items."""
        gs = ity(gshift)
        nch = ity(chunks)
        return ity(width), gs, nch, ity(chunk), ity(1) << gs, (ity(items) * nch) << gs

    @cuda.jit(device=True, inline=True)
    def split(t, gshift, chunks):  # pragma: no cover - runs on the device
        """Work item ``t`` -> (item, first feature); features past the last read the last
        one (a valid address) and are never stored."""
        group = ity(1) << gshift
        lane = t & (group - ity(1))
        q = t >> gshift
        c = ity(0)
        if multi:
            c = q % chunks
            q = q // chunks
        return q, c * (group << ity(2)) + lane

    @cuda.jit(device=True, inline=True)
    def features(fa, group, width):  # pragma: no cover - runs on the device
        last = width - ity(1)
        return min(fa + group, last), min(fa + ity(2) * group, last), min(fa + ity(3) * group, last)

    @cuda.jit(device=True, inline=True)
    def store(dst, base, fa, fb, fc, fd, a0, a1, a2, a3, group, w):  # pragma: no cover
        """Write the lane's results of one row (features past the last are skipped)."""
        dst[base + fa] = a0
        if nacc > 1 and fa + group < w:
            dst[base + fb] = a1
        if nacc > 2 and fa + ity(2) * group < w:
            dst[base + fc] = a2
        if nacc > 3 and fa + ity(3) * group < w:
            dst[base + fd] = a3

    @cuda.jit(**options)
    def rows_kernel(
        indptr, src, weights, x, out, partials, rows, width, chunk, gshift, chunks, zero, init
    ):  # pragma: no cover - runs on the device
        w, gs, nch, k, group, total = shape(rows, width, gshift, chunks, chunk)
        t = ity(cuda.grid(1))
        stride = ity(cuda.gridsize(1))
        while t < total:
            r, fa = split(t, gs, nch)
            if fa < w:
                fb, fc, fd = features(fa, group, w)
                lo = ity(indptr[r])
                hi = ity(indptr[r + ity(1)])
                deg = hi - lo
                a0 = init
                a1 = init
                a2 = init
                a3 = init
                if deg == ity(0):
                    a0 = zero
                    a1 = zero
                    a2 = zero
                    a3 = zero
                elif deg <= k:
                    a0, a1, a2, a3 = accumulate(
                        a0, a1, a2, a3, lo, hi, src, weights, x, w, fa, fb, fc, fd, zero
                    )
                else:  # a heavy row: its pieces' results, in order
                    s = lo
                    while s < hi:
                        pb = (ity(2) * (s // k) + (ity(1) if s > lo else ity(0))) * w
                        a0 = _combine(a0, partials[pb + fa], code)
                        if nacc > 1:
                            a1 = _combine(a1, partials[pb + fb], code)
                        if nacc > 2:
                            a2 = _combine(a2, partials[pb + fc], code)
                        if nacc > 3:
                            a3 = _combine(a3, partials[pb + fd], code)
                        s += k
                if code == MEAN and deg > ity(0):
                    n = np.int64(deg)  # as the general kernel: float / int64
                    a0 = a0 / n
                    a1 = a1 / n
                    a2 = a2 / n
                    a3 = a3 / n
                store(out, r * w, fa, fb, fc, fd, a0, a1, a2, a3, group, w)
            t += stride

    @cuda.jit(**options)
    def pieces_kernel(
        indptr,
        piece_row,
        src,
        weights,
        x,
        partials,
        pieces,
        width,
        chunk,
        gshift,
        chunks,
        zero,
        init,
    ):  # pragma: no cover - runs on the device
        w, gs, nch, k, group, total = shape(pieces, width, gshift, chunks, chunk)
        t = ity(cuda.grid(1))
        stride = ity(cuda.gridsize(1))
        while t < total:
            piece, fa = split(t, gs, nch)
            r = piece_row[piece]
            if r >= 0 and fa < w:
                fb, fc, fd = features(fa, group, w)
                lo = ity(indptr[r])
                if piece % ity(2) == ity(1):  # a later piece: its row's slot in this block
                    lo += (((piece // ity(2)) * k - lo + k - ity(1)) // k) * k
                hi = min(ity(indptr[r + 1]), lo + k)
                a0, a1, a2, a3 = accumulate(
                    init, init, init, init, lo, hi, src, weights, x, w, fa, fb, fc, fd, zero
                )
                store(partials, piece * w, fa, fb, fc, fd, a0, a1, a2, a3, group, w)
            t += stride

    return pieces_kernel, rows_kernel


def reduce_rows_lean(
    indptr: Any,
    x: Any,
    out: Any,
    code: int,
    *,
    gather: Any,
    perm: Any,
    weights: Any,
    chunk: int,
    zero: Any,
    init: Any,
    piece_rows: Any,
) -> Any:
    """The row reduction of ``_row_reduce.reduce_rows`` through the lean kernels (the
    caller checked :func:`covers` and set up the heavy-row pieces)."""
    xp = _launch.namespace(out)
    rows, heads, feats = out.shape
    width = heads * feats
    src = gather if gather is not None else perm
    indexed = src is not None
    if src is None:
        src = _launch.placeholder(xp, indptr.dtype, 1)
    weighted = weights is not None
    w_flat = weights.reshape(-1) if weighted else _launch.placeholder(xp, x.dtype, 1)
    x_flat = x.reshape(-1)
    out_flat = out.reshape(-1)
    num_pieces = 0 if piece_rows is None else int(piece_rows.shape[0])
    partials = xp.empty(max(num_pieces, 1) * width, dtype=zero.dtype)
    group, chunks = group_shape(width)  # heads folded into the features: same bits
    gshift = group.bit_length() - 1
    nacc = min(PER_THREAD, -(-width // group))
    acc = np.dtype(zero.dtype)
    widen = np.dtype(x.dtype) != acc
    pieces_kernel, rows_kernel = _kernels(
        code, weighted, indexed, nacc, widen, chunks > 1, acc == np.dtype(np.float64)
    )
    if num_pieces:
        _launch.launch(
            pieces_kernel,
            (num_pieces * chunks) << gshift,
            indptr,
            piece_rows,
            src,
            w_flat,
            x_flat,
            partials,
            num_pieces,
            width,
            chunk,
            gshift,
            chunks,
            zero,
            init,
        )
    _launch.launch(
        rows_kernel,
        (rows * chunks) << gshift,
        indptr,
        src,
        w_flat,
        x_flat,
        out_flat,
        partials,
        rows,
        width,
        chunk,
        gshift,
        chunks,
        zero,
        init,
    )
    return out
