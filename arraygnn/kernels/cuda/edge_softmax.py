"""CUDA edge softmax over the edges sharing a destination, deterministic.

``out[e, h] = exp(l[e, h] - m[t, h]) / sum over edges e' -> t of exp(l[e', h] - m[t, h])``
with ``m[t, h]`` the row maximum (numerically stable). Four launches, each without
atomics: row max (the shared CSR row reduction, heavy rows split), per-slot exponentials,
row sums, per-slot normalisation. float16 logits are handled in float32 scratch.
"""

from __future__ import annotations

import math
from typing import Any

from numba import cuda

from arraygnn.kernels.cuda import _launch
from arraygnn.kernels.cuda._row_reduce import reduce_rows

__all__ = ["edge_softmax_csr"]


@cuda.jit(device=True, inline=True, cache=True)
def _row_of(indptr, p):  # pragma: no cover - runs on the device
    """Largest r with indptr[r] <= p: the row holding CSR slot p (p < nnz)."""
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
def _exp_kernel(indptr, perm, has_perm, logits, rowmax, scratch):  # pragma: no cover - device
    heads = logits.shape[1]
    total = scratch.shape[0] * heads
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        j = t // heads
        h = t - j * heads
        r = _row_of(indptr, j)
        e = perm[j] if has_perm else j
        scratch[e, h, 0] = math.exp(logits[e, h] - rowmax[r, h, 0])


@cuda.jit(cache=True)
def _normalize_kernel(indptr, perm, has_perm, scratch, rowsum, out):  # pragma: no cover - device
    heads = out.shape[1]
    total = scratch.shape[0] * heads
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        j = t // heads
        h = t - j * heads
        r = _row_of(indptr, j)
        e = perm[j] if has_perm else j
        out[e, h] = scratch[e, h, 0] / rowsum[r, h, 0]


def edge_softmax_csr(indptr: Any, perm: Any, logits: Any, out: Any) -> Any:
    """Fill ``out`` [E, H] with the softmax of ``logits`` [E, H] over each CSR row.

    ``indptr`` [R+1] and ``perm`` [E] (edge id of each CSR slot, or None when slot j is
    edge j) from the destination-sorted CSR. Returns ``out``.
    """
    xp = _launch.namespace(out)
    has_perm = perm is not None
    if not has_perm:
        perm = _launch.placeholder(xp, indptr.dtype, 1)
    num_edges, heads = logits.shape
    rows = indptr.shape[0] - 1
    acc = _launch.accumulator_dtype(logits.dtype)
    if num_edges == 0:
        return out
    logits3 = logits.reshape(num_edges, heads, 1)
    rowmax = xp.empty((rows, heads, 1), dtype=acc)
    kperm = perm if has_perm else None
    reduce_rows(indptr, logits3, rowmax, "max", perm=kperm)
    scratch = xp.empty((num_edges, heads, 1), dtype=acc)
    _launch.launch(_exp_kernel, num_edges * heads, indptr, perm, has_perm, logits, rowmax, scratch)
    rowsum = xp.empty((rows, heads, 1), dtype=acc)
    reduce_rows(indptr, scratch, rowsum, "sum", perm=kperm)
    _launch.launch(
        _normalize_kernel, num_edges * heads, indptr, perm, has_perm, scratch, rowsum, out
    )
    return out
