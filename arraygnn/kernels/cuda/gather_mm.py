"""CUDA gather-mm: the CPU module's ``gather_mm_rows`` (same contract and bits).

One thread per output element ``(i, m)``, grid-stride; it sums ``a[i, k] * b[index[i], k,
m]`` over ``k`` in ascending order, each product rounded on its own (``mul.rn``: never
fused into an FMA, so the bits match the CPU kernel and the reference), float16 in
float32. Neighbouring threads read neighbouring ``m`` of one ``b`` row (coalesced).
"""

from __future__ import annotations

import functools
from typing import Any

from numba import cuda
from numba.cuda import libdevice

from arraygnn.kernels.cuda import _launch

__all__ = ["gather_mm_rows"]


@cuda.jit(device=True, inline=True)
def _mul(x, y):  # pragma: no cover - runs on the device (simulator only)
    return x * y


@functools.cache
def _kernel(acc64: bool) -> Any:
    # RULE: products rounded on their own (NVVM would contract acc + x * y into an FMA)
    mul_rn = libdevice.dmul_rn if acc64 else libdevice.fmul_rn
    if _launch._SIMULATOR:  # its libdevice functions are typing stubs; NumPy never fuses
        mul_rn = _mul

    @cuda.jit(cache=True)
    def kernel(a, b, index, acc_zero, out):  # pragma: no cover - runs on the device
        depth = a.shape[1]
        width = out.shape[1]
        total = out.shape[0] * width
        for t in range(cuda.grid(1), total, cuda.gridsize(1)):
            i = t // width
            m = t - i * width
            j = index[i]
            acc = acc_zero
            for k in range(depth):
                acc += mul_rn(a[i, k] - acc_zero, b[j, k, m] - acc_zero)
            out[i, m] = acc

    return kernel


def gather_mm_rows(a: Any, b: Any, index: Any, out: Any) -> Any:
    """Fill ``out`` [N, M] with ``a[i] @ b[index[i]]``; see the module docstring."""
    if out.size == 0:
        return out
    zero = _launch.accumulator_zero(out.dtype)
    kernel = _kernel(zero.dtype.itemsize == 8)
    _launch.launch(kernel, out.shape[0] * out.shape[1], a, b, index, zero, out)
    return out
