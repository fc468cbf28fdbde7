"""Non-deterministic COO scatter with atomics (opt-in: ``settings.deterministic = False``).

One thread per (edge, feature) adds / maxes / mins its value straight into ``out`` with
``cuda.atomic``; no sort, no CSR. The ORDER of floating-point additions depends on thread
timing, so ``sum`` / ``mean`` may differ in the last bits from run to run (max / min are
exact). float16 is not offered (no portable float16 atomic max/min): use the deterministic
path. Empty segments give 0, mean is sum / max(count, 1), as on the deterministic path.
NaN propagates through max / min as there: CUDA's atomic max / min skip a NaN operand, so a
second pass writes NaN into every (row, feature) that received one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import cuda

from arraygnn.kernels.cuda import _launch

__all__ = ["scatter_atomic"]

_REDUCES = ("sum", "mean", "max", "min")


@cuda.jit(cache=True)
def _atomic_kernel(index, src, out, counts, reduce):  # pragma: no cover - runs on the device
    feats = src.shape[1]
    total = src.shape[0] * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        e = t // feats
        f = t - e * feats
        s = index[e]
        if f == 0:
            cuda.atomic.add(counts, s, 1)
        if reduce == 2:
            cuda.atomic.max(out, (s, f), src[e, f])
        elif reduce == 3:
            cuda.atomic.min(out, (s, f), src[e, f])
        else:
            cuda.atomic.add(out, (s, f), src[e, f])


@cuda.jit(cache=True)
def _nan_kernel(index, src, out):  # pragma: no cover - runs on the device
    """max / min: a NaN value makes its output NaN (every writer stores the same NaN)."""
    feats = src.shape[1]
    total = src.shape[0] * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        e = t // feats
        f = t - e * feats
        v = src[e, f]
        if v != v:
            out[index[e], f] = v


@cuda.jit(cache=True)
def _finish_kernel(out, counts, reduce):  # pragma: no cover - runs on the device
    feats = out.shape[1]
    total = out.shape[0] * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        r = t // feats
        f = t - r * feats
        c = counts[r]
        if c == 0:
            out[r, f] = 0
        elif reduce == 1:
            out[r, f] = out[r, f] / c


def scatter_atomic(index: Any, src: Any, out: Any, reduce: str) -> Any:
    """Fill ``out`` [S, F] with the ``reduce`` of rows of ``src`` [E, F] by ``index`` [E].

    ``reduce`` in sum / mean / max / min; float32 / float64 only. NOT deterministic for sum /
    mean (see module docstring). Returns ``out``.
    """
    if reduce not in _REDUCES:
        raise ValueError(f"atomic scatter supports reduce in {_REDUCES}, got {reduce!r}")
    if np.dtype(out.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"atomic scatter takes float32/float64 values, got {out.dtype}")
    xp = _launch.namespace(out)
    init = {"max": -math.inf, "min": math.inf}.get(reduce, 0.0)
    out[...] = init
    counts = xp.zeros(out.shape[0], dtype=np.int32)
    code = {"sum": 0, "mean": 1, "max": 2, "min": 3}[reduce]
    _launch.launch(_atomic_kernel, src.shape[0] * src.shape[1], index, src, out, counts, code)
    if code >= 2:
        _launch.launch(_nan_kernel, src.shape[0] * src.shape[1], index, src, out)
    _launch.launch(_finish_kernel, out.shape[0] * out.shape[1], out, counts, code)
    return out
