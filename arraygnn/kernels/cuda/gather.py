"""CUDA gather: ``out[i, :] = x[index[i], :]`` (node -> edge broadcast).

One thread per output element, consecutive threads on consecutive features: reads of a
row of ``x`` and writes of a row of ``out`` are coalesced.
"""

from __future__ import annotations

from typing import Any

from numba import cuda

from arraygnn.kernels.cuda import _launch

__all__ = ["gather_rows"]


@cuda.jit(cache=True)
def _gather_kernel(x, index, out):  # pragma: no cover - runs on the device
    feats = out.shape[1]
    total = out.shape[0] * feats
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for t in range(start, total, stride):
        i = t // feats
        f = t - i * feats
        out[i, f] = x[index[i], f]


def gather_rows(x: Any, index: Any, out: Any) -> Any:
    """Fill ``out`` [E, F] with rows ``x[index]`` (``x`` [N, F], ``index`` [E] int32/int64).

    Indices must already be validated (0 <= index < N). Returns ``out``.
    """
    _launch.launch(_gather_kernel, out.shape[0] * out.shape[1], x, index, out)
    return out
