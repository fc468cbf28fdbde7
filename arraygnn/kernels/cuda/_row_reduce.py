"""The one deterministic CSR row reduction every CUDA segment/SpMM launcher uses.

``out[r, h, f] = reduce over j in [indptr[r], indptr[r+1]) of  w[e_j, h] * x[s_j, h, f]``

where ``e_j = perm[j]`` (edge id of CSR slot ``j``; ``j`` when there is no ``perm``) and
``s_j = gather[j]`` (the source row; ``e_j`` when there is no ``gather``: plain segment
reduction of edge rows). ``reduce`` is sum, mean, max, min or prod; an empty row gives 0
for every reduction; mean is sum / degree.

Mapping (DGL's CSR SpMM layout): one thread per output element ``(r, h, f)``, consecutive
threads take consecutive features, so a warp reads 32 consecutive features of one source
row (coalesced when F >= 32) and the row's ``indptr``/``gather`` reads are broadcast. The
accumulator lives in a register (float32 for float16 values) and is written once: no
atomics, the same bits on every run and for every launch size.

Power-law graphs have rows with tens of thousands of edges, and one thread walking such a
row would dominate the kernel. Rows with more than ``chunk`` edges are therefore split at
global multiples of ``chunk``: a first kernel reduces each piece into a scratch array
(``2 * ceil(E / chunk)`` slots: a block of ``chunk`` CSR slots meets at most two rows
longer than ``chunk``, the one holding its first slot and the one holding its last), and
the row kernel combines a heavy row's pieces in order. The order of operations depends only
on the graph and ``chunk``, never on the launch size or timing.
"""

from __future__ import annotations

import math
from typing import Any

from numba import cuda

from arraygnn.kernels.cuda import _launch

__all__ = ["REDUCE_CODES", "reduce_rows"]

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


@cuda.jit(device=True, inline=True, cache=True)
def _combine(acc, v, reduce):  # pragma: no cover - runs on the device
    if reduce == MAX:
        return v if v > acc or v != v else acc
    if reduce == MIN:
        return v if v < acc or v != v else acc
    if reduce == PROD:
        return acc * v
    return acc + v


@cuda.jit(device=True, inline=True, cache=True)
def _load(
    j, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero
):  # pragma: no cover - runs on the device
    """The (weighted) value of CSR slot ``j``, in the accumulator dtype."""
    if has_gather:
        v = x[gather[j], xh, f] + zero  # upcast float16 to the accumulator
        if has_weights:
            e = perm[j] if has_perm else j
            v = v * weights[e, wh]
        return v
    e = perm[j] if has_perm else j
    v = x[e, xh, f] + zero
    if has_weights:
        v = v * weights[e, wh]
    return v


@cuda.jit(device=True, inline=True, cache=True)
def _accumulate(
    acc,
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
    f,
    reduce,
    zero,
):  # pragma: no cover - runs on the device
    """Combine slots lo..hi-1 into ``acc`` strictly in slot order.

    Four slots are loaded before they are combined (more loads in flight per thread);
    the combination order is still slot order, so the bits equal a plain loop's.
    """
    j = lo
    while j + 4 <= hi:
        v0 = _load(j, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero)
        v1 = _load(
            j + 1, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero
        )
        v2 = _load(
            j + 2, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero
        )
        v3 = _load(
            j + 3, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero
        )
        acc = _combine(acc, v0, reduce)
        acc = _combine(acc, v1, reduce)
        acc = _combine(acc, v2, reduce)
        acc = _combine(acc, v3, reduce)
        j += 4
    while j < hi:
        v = _load(j, gather, has_gather, perm, has_perm, weights, has_weights, wh, x, xh, f, zero)
        acc = _combine(acc, v, reduce)
        j += 1
    return acc


@cuda.jit(device=True, inline=True, cache=True)
def _row_of(indptr, p):  # pragma: no cover - runs on the device
    """Largest r with indptr[r] <= p (the row holding CSR slot p when p < nnz)."""
    lo = 0
    hi = indptr.shape[0] - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if indptr[mid] <= p:
            lo = mid
        else:
            hi = mid - 1
    return lo


@cuda.jit(cache=True)
def _pieces_kernel(
    indptr,
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
    num_slots,
    acc_zero,
    acc_init,
):  # pragma: no cover - runs on the device
    num_pieces = partials.shape[0]
    heads = partials.shape[1]
    feats = partials.shape[2]
    total = num_pieces * heads * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        f = t % feats
        q = t // feats
        h = q % heads
        piece = q // heads
        block = piece // 2
        side = piece % 2
        bstart = block * chunk
        if bstart >= num_slots:
            continue
        bend = min(bstart + chunk, num_slots)
        p = bstart if side == 0 else bend - 1
        r = _row_of(indptr, p)
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi - lo <= chunk:
            continue
        if side == 1 and lo <= bstart:
            continue  # the same row is the block's side-0 piece
        xh = h if x.shape[1] > 1 else 0
        wh = h if weights.shape[1] > 1 else 0
        acc = acc_init
        acc = _accumulate(
            acc,
            max(lo, bstart),
            min(hi, bend),
            gather,
            has_gather,
            perm,
            has_perm,
            weights,
            has_weights,
            wh,
            x,
            xh,
            f,
            reduce,
            acc_zero,
        )
        partials[piece, h, f] = acc


@cuda.jit(cache=True)
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
    acc_zero,
    acc_init,
):  # pragma: no cover - runs on the device
    rows = out.shape[0]
    heads = out.shape[1]
    feats = out.shape[2]
    total = rows * heads * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        f = t % feats
        q = t // feats
        h = q % heads
        r = q // heads
        lo = indptr[r]
        hi = indptr[r + 1]
        deg = hi - lo
        if deg == 0:
            out[r, h, f] = acc_zero
            continue
        acc = acc_init
        if deg <= chunk:
            xh = h if x.shape[1] > 1 else 0
            wh = h if weights.shape[1] > 1 else 0
            acc = _accumulate(
                acc,
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
                f,
                reduce,
                acc_zero,
            )
        else:
            for block in range(lo // chunk, (hi - 1) // chunk + 1):
                piece = 2 * block if lo <= block * chunk else 2 * block + 1
                acc = _combine(acc, partials[piece, h, f], reduce)
        if reduce == MEAN:
            acc = acc / deg
        out[r, h, f] = acc


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
    init = acc_dtype.type(_IDENTITY[code])
    idx_dtype = indptr.dtype
    has_gather = gather is not None
    has_perm = perm is not None
    has_weights = weights is not None
    gather_arr = gather if has_gather else _launch.placeholder(xp, idx_dtype, 1)
    perm_arr = perm if has_perm else _launch.placeholder(xp, idx_dtype, 1)
    weights_arr = weights if has_weights else _launch.placeholder(xp, x.dtype, 2)
    rows, heads, feats = out.shape
    num_pieces = 2 * (-(-num_slots // chunk)) if num_slots > chunk else 0
    partials = xp.empty((max(num_pieces, 1), heads, feats), dtype=acc_dtype)
    if num_pieces:
        _launch.launch(
            _pieces_kernel,
            num_pieces * heads * feats,
            indptr,
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
            num_slots,
            zero,
            init,
        )
    _launch.launch(
        _rows_kernel,
        rows * heads * feats,
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
        zero,
        init,
    )
    return out
