"""CPU ``GraphNorm`` over graphs whose rows are contiguous (a sorted ``batch``, PyG's
batches): per-graph, per-channel mean and variance and the affine output in one kernel.

``graph_norm_sorted(x, ptr, mean_scale, weight, bias, eps)`` gives PyG's
``weight * (x - mean_scale * mean) / sqrt(var + eps) + bias``, with ``mean`` each graph's
per-channel mean over its rows ``ptr[g]:ptr[g + 1]`` and ``var`` the per-channel mean of
the squared shifted rows (an empty graph has no rows to write).

How it runs: one worker per block of whole graphs (blocks balanced by rows, ``parallel``),
three visits of a graph's rows (sums, centred squares, output), the statistics in float64
registers / a ``[G, F]`` float64 scratch: no ``[N, F]`` temporaries, where the array code
(:func:`arraygnn.ops.scatter` means, gathers, four elementwise passes) makes six. Each
graph is reduced by one worker in row order: the same bits on every run and thread count.
``benchmarks/bench_norm.py`` times it against PyG.

>>> import numpy as np
>>> x = np.array([[1.0], [3.0], [5.0]])
>>> one = np.ones(1)
>>> graph_norm_sorted(x, np.array([0, 2, 3]), one, one, 0 * one, 1e-5).round(3).ravel().tolist()
[-1.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks
from arraygnn.kernels.cpu._threads import serialised, start_threads

__all__ = ["graph_norm_sorted"]


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _graphs(x, ptr, scale, weight, bias, eps, out, shift, inv, g0, g1):  # pragma: no cover
    """Graphs ``g0:g1``: ``shift[g]`` = mean * mean_scale, ``inv[g]`` = 1 / std (float64),
    then the output rows."""
    n = x.shape[1]
    for g in range(g0, g1):
        p0, p1 = ptr[g], ptr[g + 1]
        count = max(p1 - p0, 1)
        s, v = shift[g], inv[g]
        for f in range(n):
            s[f] = 0.0
            v[f] = 0.0
        for r in range(p0, p1):
            row = x[r]
            for f in range(n):
                s[f] += np.float64(row[f])
        for f in range(n):
            s[f] = s[f] / count * np.float64(scale[f])
        for r in range(p0, p1):
            row = x[r]
            for f in range(n):
                d = np.float64(row[f]) - s[f]
                v[f] += d * d
        for f in range(n):
            v[f] = 1.0 / np.sqrt(v[f] / count + eps)
        for r in range(p0, p1):
            row, o = x[r], out[r]
            for f in range(n):
                o[f] = np.float64(weight[f]) * (np.float64(row[f]) - s[f]) * v[f] + bias[f]


@njit(cache=True, nogil=True, parallel=True)
def _kernel(x, ptr, scale, weight, bias, eps, out, shift, inv, nblocks):  # pragma: no cover
    for b in prange(nblocks):
        g0 = block_rows(ptr, b, nblocks)
        g1 = block_rows(ptr, b + 1, nblocks)
        _graphs(x, ptr, scale, weight, bias, eps, out, shift, inv, g0, g1)


def graph_norm_sorted(
    x: np.ndarray, ptr: np.ndarray, mean_scale: Any, weight: Any, bias: Any, eps: float
) -> np.ndarray:
    """GraphNorm of ``x`` ``(N, F)`` (float32 / float64 NumPy) with graph ``g``'s rows at
    ``ptr[g]:ptr[g + 1]`` (``ptr`` int64, non-decreasing from 0 to N; checked by the
    caller); the parameters ``(F,)`` arrays. Output in ``x``'s dtype."""
    x = np.ascontiguousarray(x)
    graphs = ptr.shape[0] - 1
    f = x.shape[1]
    out = np.empty_like(x)
    shift = np.empty((graphs, f), dtype=np.float64)
    inv = np.empty((graphs, f), dtype=np.float64)
    args = (
        x,
        ptr,
        np.ascontiguousarray(mean_scale),
        np.ascontiguousarray(weight),
        np.ascontiguousarray(bias),
        float(eps),
        out,
        shift,
        inv,
    )
    if graphs == 0 or x.size == 0:
        return out
    if x.size <= SERIAL_WORK or graphs == 1:
        _graphs(*args, 0, graphs)
    else:
        start_threads()
        serialised(_kernel)(*args, num_blocks(graphs))
    return out
