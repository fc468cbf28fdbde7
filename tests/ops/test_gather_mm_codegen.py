"""What the CPU ``gather_mm`` kernel compiles to, and its bits on values where an FMA or a
flush-to-zero would show.

The CUDA kernel is pinned in ``tests/ops/test_cuda_codegen.py`` (PTX and SASS: products
through ``mul.rn``, no FFMA). Its bits equal the CPU's only while the CPU side also rounds
each product before the add: LLVM on an FMA-capable CPU contracts ``out += a * b`` into a
``vfmadd`` once fast-math (``contract``) is allowed, so the assembly is checked here, with a
fast-math control that shows the fused instruction.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

numba = pytest.importorskip("numba")

FUSED = re.compile(r"\bv?f(?:n)?m(?:add|sub)\w*\b")  # vfmadd231ps, vfnmadd..., fmadd
SIGS = [
    "void(float32[:, ::1], float32[:, :, ::1], int64[::1], float32[:, ::1], int64, int64)",
    "void(float64[:, ::1], float64[:, :, ::1], int32[::1], float64[:, ::1], int64, int64)",
]


def _asm(options: dict, sig: str) -> str:
    """x86 / other host assembly of the CPU kernel's serial body, compiled with ``options``
    (never from the cache: Numba cannot show the assembly of cached code)."""
    from arraygnn.kernels.cpu import gather_mm

    opts = {k: v for k, v in options.items() if k not in ("cache", "nopython")}
    fn = numba.njit(sig, **opts)(gather_mm._rows.py_func)
    return next(iter(fn.inspect_asm().values()))


@pytest.mark.parametrize("sig", SIGS)
def test_cpu_kernel_rounds_each_product(sig):
    """No fused multiply-add in the CPU body: each ``a[i, k] * b[j, k, m]`` is rounded, then
    added, the CUDA kernel's order (``mul.rn`` then add)."""
    from arraygnn.kernels.cpu import gather_mm

    asm = _asm(dict(gather_mm._rows.targetoptions), sig)
    assert re.search(r"\bv?mul[sp][sd]\b", asm), "no multiply found: the check reads nothing"
    assert not FUSED.findall(asm)
    if "+fma" in _cpu_features():  # control: the check would see a contraction here
        fast = _asm({**gather_mm._rows.targetoptions, "fastmath": True}, sig)
        assert FUSED.findall(fast), "fast-math control shows no fused multiply-add"


def _cpu_features() -> set[str]:
    import llvmlite.binding as llvm

    try:
        return set(llvm.get_host_cpu_features().flatten().split(","))
    except RuntimeError:  # not every platform reports them
        return set()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cpu_bits_equal_the_cuda_operation_sequence(dtype):
    """The CPU kernel equals, bit for bit, NumPy replaying the CUDA kernel's operations
    (``acc = +0``; for ``k`` ascending ``acc += (a - 0) * (b - 0)``, each step rounded) on
    subnormal products, signed zeros and cancellation: a flush-to-zero or an FMA on either
    side would change these."""
    from arraygnn import ops

    rng = np.random.default_rng(5)
    tiny = np.finfo(dtype).tiny
    n, k, m, r = 64, 9, 17, 5
    a = rng.standard_normal((n, k)).astype(dtype)
    b = rng.standard_normal((r, k, m)).astype(dtype)
    a[::3] *= dtype(np.sqrt(tiny))  # products near and below the smallest normal
    b[1] *= dtype(np.sqrt(tiny) * 0.25)
    a[5], b[2, :, :3] = -0.0, -0.0  # signed zeros
    b[3, 1] = -b[3, 0] * a[7, 0] / a[7, 1]  # cancellation for row 7 with matrix 3
    idx = rng.integers(0, r, n)
    idx[7] = 3
    zero = dtype(0)
    acc = np.zeros((n, m), dtype)
    for kk in range(k):
        acc = acc + (a[:, kk, None] - zero) * (b[idx, kk, :] - zero)
    got = ops.gather_mm(a, b, idx_b=idx)
    assert np.any((acc != 0) & (np.abs(acc) < tiny)), "no subnormal result: nothing tested"
    assert np.array_equal(got.view(np.uint8), acc.view(np.uint8))
