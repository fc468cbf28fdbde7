"""The one deterministic CSR row reduction every CUDA segment/SpMM launcher uses.

``out[r, h, f] = reduce over j in [indptr[r], indptr[r+1]) of  w[e_j, h] * x[s_j, h, f]``

where ``e_j = perm[j]`` (edge id of CSR slot ``j``; ``j`` when there is no ``perm``) and
``s_j = gather[j]`` (the source row; ``e_j`` when there is no ``gather``: plain segment
reduction of edge rows). ``reduce`` is sum, mean, max, min or prod; an empty row gives 0
for every reduction; mean is sum / degree; max / min propagate NaN.

Mapping (DGL's CSR SpMM layout, row x feature-chunk): a group of ``G`` threads (a warp,
``G = 32``, when F >= 32; the next power of two >= F below that) owns one row and one
chunk of ``4 * G`` features; lane ``l`` keeps four accumulators in registers, for features
``l, l + G, l + 2G, l + 3G`` of the chunk. Every load of a source row is a coalesced
``G``-wide read, the row's ``indptr`` / ``gather`` / ``perm`` / weight reads are shared by
the group and amortised over four features, and each accumulator (float32 for float16
values) is written once: no atomics, the same bits on every run and for every launch size.

Power-law graphs have rows with tens of thousands of edges, and one group walking such a
row would dominate the kernel. Rows with more than ``chunk`` edges are therefore split into
pieces of ``chunk`` slots counted from the row's own start (piece ``k`` of row ``r`` holds
slots ``indptr[r] + k * chunk`` onwards), so a row's order of operations depends only on its
own edge list and ``chunk``: never on where the row sits in the CSR (a partition of the graph,
a subgraph or a batch gives the same bits for the same row), the launch size or timing. Each
piece is named by the global block of ``chunk`` slots where it starts and whether it is its
row's first piece: a block holds the start of at most one first piece (heavy rows are more
than ``chunk`` slots apart) and of at most one later piece (a later piece of a row starts
``chunk`` or more slots after the row's first slot, past every earlier row's slots), so
``2 * block + (k > 0)`` is unique. A small kernel lists the row of every piece, a second
reduces each piece into a scratch array, and the row kernel combines a heavy row's pieces in
order of ``k``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import cuda

from arraygnn.kernels.cuda import _launch

__all__ = ["REDUCE_CODES", "reduce_rows", "group_shape"]

SUM = 0
MEAN = 1
MAX = 2
MIN = 3
PROD = 4

#: reduction name -> integer code passed to the kernels
REDUCE_CODES = {"sum": SUM, "mean": MEAN, "max": MAX, "min": MIN, "prod": PROD}
# starting value of each reduction's accumulator (made on the host in the accumulator dtype,
# so no float64 literal widens a float32 register)
_IDENTITY = {SUM: 0.0, MEAN: 0.0, MAX: -math.inf, MIN: math.inf, PROD: 1.0}

#: accumulators (features) per thread
PER_THREAD = 4

#: Compile options of the row and piece kernels. Capping registers at 32 lets an SM hold
#: twice the warps (56 registers -> 36 resident warps per SM at 128 threads per block, 32
#: -> 64), and these kernels wait on memory: measured on an H100, 1M / 10M graph, SpMM sum
#: F = 64 3.86 -> 3.21 ms, F = 256 10.7 -> 8.2 ms, despite 80 bytes of local-memory spills
#: (see NOTES.md). The simulator takes no such option.
_KERNEL_OPTIONS: dict[str, Any] = {} if _launch._SIMULATOR else {"max_registers": 32}


def group_shape(feats: int) -> tuple[int, int]:
    """``(G, chunks)``: threads per (row, feature chunk) and chunks per row for F features.

    Wide groups (default): a warp per row for F >= 32, else the next power of two >= F.
    Narrow groups (``_launch.NARROW_GROUPS``): the next power of two >= ceil(F / 4), at most
    a warp, so each lane keeps all four accumulators busy (more loads in flight per lane).
    """
    need = feats if not _launch.NARROW_GROUPS else -(-feats // PER_THREAD)
    group = 1
    while group < need and group < 32:
        group *= 2
    width = group * PER_THREAD
    return group, max(1, -(-feats // width))


@cuda.jit(device=True, inline=True, cache=True)
def _combine(acc, v, reduce):  # pragma: no cover - runs on the device
    if reduce == MAX:
        return v if v > acc or v != v else acc
    if reduce == MIN:
        return v if v < acc or v != v else acc
    if reduce == PROD:
        return acc * v
    return acc + v


# RULE: a value is widened to the accumulator type by SUBTRACTING the accumulator's 0
# (``x - zero``): ``x - 0.0`` is ``x`` for every float, -0.0 included, whereas ``x + 0.0``
# turns -0.0 into +0.0 (a later ``1 / x`` would then give +inf instead of -inf).


@cuda.jit(device=True, inline=True, cache=True)
def _slot(
    j, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one
):  # pragma: no cover - runs on the device
    """(row of ``x``, weight) of CSR slot ``j``."""
    if has_gather:
        s = gather[j]
        w = one
        if has_weights:
            w = weights[perm[j] if has_perm else j, wh] - zero
    else:
        s = perm[j] if has_perm else j
        w = one
        if has_weights:
            w = weights[s, wh] - zero
    return s, w


@cuda.jit(device=True, inline=True, cache=True)
def _accumulate(
    a0,
    a1,
    a2,
    a3,
    lo,
    hi,
    gather,
    has_gather,
    perm,
    has_perm,
    weights,
    has_weights,
    wh,
    x,
    xh,
    f0,
    group,
    nvalid,
    reduce,
    zero,
    one,
):  # pragma: no cover - runs on the device
    """Combine CSR slots lo..hi-1, in slot order, into the lane's (up to) four features
    ``f0 + k * group`` (k < nvalid). Multiplying by the weight 1 when there is none is
    exact, so one code path serves both."""
    for j in range(lo, hi):
        s, w = _slot(j, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one)
        a0 = _combine(a0, (x[s, xh, f0] - zero) * w, reduce)
        if nvalid > 1:
            a1 = _combine(a1, (x[s, xh, f0 + group] - zero) * w, reduce)
            if nvalid > 2:
                a2 = _combine(a2, (x[s, xh, f0 + 2 * group] - zero) * w, reduce)
                if nvalid > 3:
                    a3 = _combine(a3, (x[s, xh, f0 + 3 * group] - zero) * w, reduce)
    return a0, a1, a2, a3


@cuda.jit(device=True, inline=True, cache=True)
def _accumulate_ahead(
    a0,
    a1,
    a2,
    a3,
    lo,
    hi,
    gather,
    has_gather,
    perm,
    has_perm,
    weights,
    has_weights,
    wh,
    x,
    xh,
    f0,
    group,
    nvalid,
    reduce,
    zero,
    one,
):  # pragma: no cover - runs on the device
    """:func:`_accumulate` with the indices of four slots loaded before their rows, so the
    row loads of four edges can be in flight together. Same slot order: same bits."""
    j = lo
    while j + 4 <= hi:
        s0, w0 = _slot(j, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one)
        s1, w1 = _slot(
            j + 1, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one
        )
        s2, w2 = _slot(
            j + 2, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one
        )
        s3, w3 = _slot(
            j + 3, gather, has_gather, perm, has_perm, weights, has_weights, wh, zero, one
        )
        f = f0
        a0 = _combine(a0, (x[s0, xh, f] - zero) * w0, reduce)
        a0 = _combine(a0, (x[s1, xh, f] - zero) * w1, reduce)
        a0 = _combine(a0, (x[s2, xh, f] - zero) * w2, reduce)
        a0 = _combine(a0, (x[s3, xh, f] - zero) * w3, reduce)
        if nvalid > 1:
            f = f0 + group
            a1 = _combine(a1, (x[s0, xh, f] - zero) * w0, reduce)
            a1 = _combine(a1, (x[s1, xh, f] - zero) * w1, reduce)
            a1 = _combine(a1, (x[s2, xh, f] - zero) * w2, reduce)
            a1 = _combine(a1, (x[s3, xh, f] - zero) * w3, reduce)
        if nvalid > 2:
            f = f0 + 2 * group
            a2 = _combine(a2, (x[s0, xh, f] - zero) * w0, reduce)
            a2 = _combine(a2, (x[s1, xh, f] - zero) * w1, reduce)
            a2 = _combine(a2, (x[s2, xh, f] - zero) * w2, reduce)
            a2 = _combine(a2, (x[s3, xh, f] - zero) * w3, reduce)
        if nvalid > 3:
            f = f0 + 3 * group
            a3 = _combine(a3, (x[s0, xh, f] - zero) * w0, reduce)
            a3 = _combine(a3, (x[s1, xh, f] - zero) * w1, reduce)
            a3 = _combine(a3, (x[s2, xh, f] - zero) * w2, reduce)
            a3 = _combine(a3, (x[s3, xh, f] - zero) * w3, reduce)
        j += 4
    return _accumulate(
        a0,
        a1,
        a2,
        a3,
        j,
        hi,
        gather,
        has_gather,
        perm,
        has_perm,
        weights,
        has_weights,
        wh,
        x,
        xh,
        f0,
        group,
        nvalid,
        reduce,
        zero,
        one,
    )


@cuda.jit(device=True, inline=True, cache=True)
def _store(out, r, h, f, acc, reduce, deg):  # pragma: no cover - runs on the device
    """Write one result; mean divides here, so ``acc`` keeps its (float32) type."""
    if reduce == MEAN and deg > 0:
        out[r, h, f] = acc / deg
    else:
        out[r, h, f] = acc


@cuda.jit(device=True, inline=True, cache=True)
def _combine_pieces(
    a0, a1, a2, a3, lo, hi, chunk, partials, h, f0, group, nvalid, reduce
):  # pragma: no cover - runs on the device
    """Fold a heavy row's piece results (rows of ``partials``) in order of ``k``."""
    for s in range(lo, hi, chunk):
        piece = 2 * (s // chunk) + (1 if s > lo else 0)
        a0 = _combine(a0, partials[piece, h, f0], reduce)
        if nvalid > 1:
            a1 = _combine(a1, partials[piece, h, f0 + group], reduce)
        if nvalid > 2:
            a2 = _combine(a2, partials[piece, h, f0 + 2 * group], reduce)
        if nvalid > 3:
            a3 = _combine(a3, partials[piece, h, f0 + 3 * group], reduce)
    return a0, a1, a2, a3


@cuda.jit(device=True, inline=True, cache=True)
def _store_lane(
    out, r, h, f0, group, nvalid, a0, a1, a2, a3, reduce, deg
):  # pragma: no cover - runs on the device
    """Write the lane's (up to) four results of row ``r``."""
    _store(out, r, h, f0, a0, reduce, deg)
    if nvalid > 1:
        _store(out, r, h, f0 + group, a1, reduce, deg)
    if nvalid > 2:
        _store(out, r, h, f0 + 2 * group, a2, reduce, deg)
    if nvalid > 3:
        _store(out, r, h, f0 + 3 * group, a3, reduce, deg)


@cuda.jit(device=True, inline=True, cache=True)
def _lane(t, group, chunks, heads, feats):  # pragma: no cover - runs on the device
    """Split work item ``t`` into (item, h, first feature, valid feature count).

    ``group`` is a power of two: a mask and shifts instead of 64-bit divisions, which are
    skipped too for one chunk or one head (the common case)."""
    lane = t & (group - 1)
    q = t
    g = group
    while g > 1:
        q >>= 1
        g >>= 1
    c = 0
    if chunks > 1:
        c = q % chunks
        q = q // chunks
    h = 0
    if heads > 1:
        h = q % heads
        q = q // heads
    item = q
    f0 = c * group * 4 + lane
    nvalid = 0
    for k in range(4):
        if f0 + k * group < feats:
            nvalid += 1
    return item, h, f0, nvalid


@cuda.jit(cache=True)
def _piece_rows_kernel(indptr, piece_row, chunk):  # pragma: no cover - runs on the device
    """piece_row[2 * block + (k > 0)] = the heavy row owning that piece (others stay -1)."""
    rows = indptr.shape[0] - 1
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for r in range(start, rows, stride):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi - lo <= chunk:
            continue
        for s in range(lo, hi, chunk):
            piece_row[2 * (s // chunk) + (1 if s > lo else 0)] = r


@cuda.jit(cache=True, **_KERNEL_OPTIONS)
def _pieces_kernel(
    indptr,
    piece_row,
    gather,
    has_gather,
    perm,
    has_perm,
    weights,
    has_weights,
    x,
    partials,
    reduce,
    chunk,
    group,
    chunks,
    acc_zero,
    acc_init,
    acc_one,
):  # pragma: no cover - runs on the device
    num_pieces = partials.shape[0]
    heads = partials.shape[1]
    feats = partials.shape[2]
    total = num_pieces * heads * chunks * group
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        piece, h, f0, nvalid = _lane(t, group, chunks, heads, feats)
        r = piece_row[piece]
        if r < 0 or nvalid == 0:
            continue
        lo = indptr[r]
        if piece % 2 == 1:  # a later piece: the first of the row's chunk steps in this block
            lo += (((piece // 2) * chunk - lo + chunk - 1) // chunk) * chunk
        hi = min(indptr[r + 1], lo + chunk)
        xh = h if x.shape[1] > 1 else 0
        wh = h if weights.shape[1] > 1 else 0
        a0, a1, a2, a3 = _accumulate(
            acc_init,
            acc_init,
            acc_init,
            acc_init,
            lo,
            hi,
            gather,
            has_gather,
            perm,
            has_perm,
            weights,
            has_weights,
            wh,
            x,
            xh,
            f0,
            group,
            nvalid,
            reduce,
            acc_zero,
            acc_one,
        )
        partials[piece, h, f0] = a0
        if nvalid > 1:
            partials[piece, h, f0 + group] = a1
        if nvalid > 2:
            partials[piece, h, f0 + 2 * group] = a2
        if nvalid > 3:
            partials[piece, h, f0 + 3 * group] = a3


@cuda.jit(cache=True, **_KERNEL_OPTIONS)
def _rows_kernel(
    indptr,
    gather,
    has_gather,
    perm,
    has_perm,
    weights,
    has_weights,
    x,
    out,
    partials,
    reduce,
    chunk,
    group,
    chunks,
    acc_zero,
    acc_init,
    acc_one,
):  # pragma: no cover - runs on the device
    rows = out.shape[0]
    heads = out.shape[1]
    feats = out.shape[2]
    total = rows * heads * chunks * group
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        r, h, f0, nvalid = _lane(t, group, chunks, heads, feats)
        if nvalid == 0:
            continue
        lo = indptr[r]
        hi = indptr[r + 1]
        deg = hi - lo
        a0 = acc_init
        a1 = acc_init
        a2 = acc_init
        a3 = acc_init
        if deg == 0:
            a0 = acc_zero
            a1 = acc_zero
            a2 = acc_zero
            a3 = acc_zero
        elif deg <= chunk:
            xh = h if x.shape[1] > 1 else 0
            wh = h if weights.shape[1] > 1 else 0
            a0, a1, a2, a3 = _accumulate(
                a0,
                a1,
                a2,
                a3,
                lo,
                hi,
                gather,
                has_gather,
                perm,
                has_perm,
                weights,
                has_weights,
                wh,
                x,
                xh,
                f0,
                group,
                nvalid,
                reduce,
                acc_zero,
                acc_one,
            )
        else:
            a0, a1, a2, a3 = _combine_pieces(
                a0, a1, a2, a3, lo, hi, chunk, partials, h, f0, group, nvalid, reduce
            )
        _store_lane(out, r, h, f0, group, nvalid, a0, a1, a2, a3, reduce, deg)


@cuda.jit(cache=True, **_KERNEL_OPTIONS)
def _rows_kernel_ahead(
    indptr,
    gather,
    has_gather,
    perm,
    has_perm,
    weights,
    has_weights,
    x,
    out,
    partials,
    reduce,
    chunk,
    group,
    chunks,
    acc_zero,
    acc_init,
    acc_one,
):  # pragma: no cover - runs on the device
    """:func:`_rows_kernel` with :func:`_accumulate_ahead` (``_launch.LOAD_AHEAD``)."""
    rows = out.shape[0]
    heads = out.shape[1]
    feats = out.shape[2]
    total = rows * heads * chunks * group
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        r, h, f0, nvalid = _lane(t, group, chunks, heads, feats)
        if nvalid == 0:
            continue
        lo = indptr[r]
        hi = indptr[r + 1]
        deg = hi - lo
        a0 = acc_init
        a1 = acc_init
        a2 = acc_init
        a3 = acc_init
        if deg == 0:
            a0 = acc_zero
            a1 = acc_zero
            a2 = acc_zero
            a3 = acc_zero
        elif deg <= chunk:
            xh = h if x.shape[1] > 1 else 0
            wh = h if weights.shape[1] > 1 else 0
            a0, a1, a2, a3 = _accumulate_ahead(
                a0,
                a1,
                a2,
                a3,
                lo,
                hi,
                gather,
                has_gather,
                perm,
                has_perm,
                weights,
                has_weights,
                wh,
                x,
                xh,
                f0,
                group,
                nvalid,
                reduce,
                acc_zero,
                acc_one,
            )
        else:
            a0, a1, a2, a3 = _combine_pieces(
                a0, a1, a2, a3, lo, hi, chunk, partials, h, f0, group, nvalid, reduce
            )
        _store_lane(out, r, h, f0, group, nvalid, a0, a1, a2, a3, reduce, deg)


#: ``(pieces kernel, rows kernel)`` to launch instead of the defaults (the same Python
#: functions compiled with other options, e.g. ``max_registers``); benchmarks only.
_KERNEL_OVERRIDE: tuple[Any, Any] | None = None


def reduce_rows(
    indptr: Any,
    x: Any,
    out: Any,
    reduce: str,
    *,
    gather: Any = None,
    perm: Any = None,
    weights: Any = None,
) -> Any:
    """Fill ``out`` [R, H, F] with the CSR row reduction described in the module docstring.

    ``indptr`` [R+1]; ``x`` [N, H or 1, F]; ``gather`` / ``perm`` [nnz] int32/int64 or None;
    ``weights`` [E, H or 1] or None. All arrays on one device (CuPy), or NumPy under the
    simulator; inputs assumed valid (the public op validated them). Returns ``out``.
    """
    code = REDUCE_CODES[reduce]
    xp = _launch.namespace(out)
    if gather is not None:
        num_slots = gather.shape[0]
    elif perm is not None:
        num_slots = perm.shape[0]
    else:
        num_slots = x.shape[0]
    chunk = max(1, int(_launch.HEAVY_ROW_EDGES))
    acc_dtype = _launch.accumulator_dtype(out.dtype)
    zero = acc_dtype.type(0)
    one = acc_dtype.type(1)
    init = acc_dtype.type(_IDENTITY[code])
    idx_dtype = indptr.dtype
    has_gather = gather is not None
    has_perm = perm is not None
    has_weights = weights is not None
    gather_arr = gather if has_gather else _launch.placeholder(xp, idx_dtype, 1)
    perm_arr = perm if has_perm else _launch.placeholder(xp, idx_dtype, 1)
    weights_arr = weights if has_weights else _launch.placeholder(xp, x.dtype, 2)
    rows, heads, feats = out.shape
    if rows == 0 or heads == 0 or feats == 0:
        return out
    group, chunks = group_shape(feats)
    num_pieces = 2 * (-(-num_slots // chunk)) if num_slots > chunk else 0
    piece_row = None
    if num_pieces:
        piece_row = xp.full(num_pieces, -1, dtype=np.dtype(idx_dtype))
        _launch.launch(_piece_rows_kernel, rows, indptr, piece_row, chunk)
    if _launch.LEAN_ROWS and _KERNEL_OVERRIDE is None:
        from arraygnn.kernels.cuda import _row_reduce_lean

        if _row_reduce_lean.covers(x, out, gather, perm, weights):
            return _row_reduce_lean.reduce_rows_lean(
                indptr,
                x,
                out,
                code,
                gather=gather,
                perm=perm,
                weights=weights,
                chunk=chunk,
                zero=zero,
                init=init,
                piece_rows=piece_row,
            )
    pieces_kernel = _pieces_kernel if _KERNEL_OVERRIDE is None else _KERNEL_OVERRIDE[0]
    partials = xp.empty((max(num_pieces, 1), heads, feats), dtype=acc_dtype)
    if num_pieces:
        _launch.launch(
            pieces_kernel,
            num_pieces * heads * chunks * group,
            indptr,
            piece_row,
            gather_arr,
            has_gather,
            perm_arr,
            has_perm,
            weights_arr,
            has_weights,
            x,
            partials,
            code,
            chunk,
            group,
            chunks,
            zero,
            init,
            one,
        )
    rows_kernel = _rows_kernel_ahead if _launch.LOAD_AHEAD else _rows_kernel
    if _KERNEL_OVERRIDE is not None:  # tools/gpu_check.py --variants: other compile options
        pieces_kernel, rows_kernel = _KERNEL_OVERRIDE
    _launch.launch(
        rows_kernel,
        rows * heads * chunks * group,
        indptr,
        gather_arr,
        has_gather,
        perm_arr,
        has_perm,
        weights_arr,
        has_weights,
        x,
        out,
        partials,
        code,
        chunk,
        group,
        chunks,
        zero,
        init,
        one,
    )
    return out
