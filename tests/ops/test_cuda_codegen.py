"""What the lean CUDA row kernels compile to (PTX for sm_90), where a CUDA toolchain is present.

Runs wherever numba-cuda can compile PTX (libnvvm found: a CUDA toolkit, the
``nvidia-cuda-nvcc`` wheel, or a GPU machine); skips elsewhere, e.g. on CI, which has none.
The simulator cannot show these properties: NumPy never fuses a multiply into an add.
"""

from __future__ import annotations

import pytest

cuda = pytest.importorskip("numba.cuda")


def _toolchain() -> None:
    """Skip unless a trivial kernel compiles to PTX (libnvvm / nvrtc found)."""
    if cuda.config.ENABLE_CUDASIM:
        pytest.skip("the simulator compiles nothing")

    def probe(a):  # pragma: no cover - compiled only
        a[0] = 1.0

    try:
        cuda.compile_ptx(probe, "void(float32[::1])", cc=(9, 0))
    except Exception as err:  # noqa: BLE001 - whichever piece of the toolchain is missing
        pytest.skip(f"no CUDA toolchain to compile PTX here: {type(err).__name__}: {err}")


@pytest.mark.parametrize("acc", ["float32", "float64"])
@pytest.mark.parametrize("code", [0, 1])  # sum, mean
def test_lean_weight_product_is_not_fused(acc, code):
    """``acc + x * w`` must round the product on its own, as the general kernel does (its
    multiply and add sit in different blocks): a fused multiply-add gives other bits."""
    from arraygnn.kernels.cuda import _row_reduce_lean

    _toolchain()
    pieces, rows = _row_reduce_lean._kernels(code, True, True, 2, False, False, acc == "float64")
    tail = f"int64, int64, int64, int64, int64, {acc}, {acc})"
    rows_sig = (
        f"void(int64[::1], int64[::1], {acc}[::1], {acc}[::1], {acc}[::1], {acc}[::1], {tail}"
    )
    pieces_sig = (
        f"void(int64[::1], int64[::1], int64[::1], {acc}[::1], {acc}[::1], {acc}[::1], {tail}"
    )
    suffix = "f64" if acc == "float64" else "f32"
    for kernel, sig in ((rows, rows_sig), (pieces, pieces_sig)):
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        assert f"mul.rn.{suffix}" in ptx
        assert f"fma.rn.{suffix}" not in ptx


@pytest.mark.parametrize("acc", ["float32", "float64"])
def test_gather_mm_products_are_not_fused(acc):
    """``gather_mm_rows`` adds each ``a[i, k] * b[j, k, m]`` rounded on its own, as the CPU
    kernel and the reference do (an FMA would give other bits)."""
    from arraygnn.kernels.cuda import gather_mm

    _toolchain()
    kernel = gather_mm._kernel(acc == "float64")
    sig = f"void({acc}[:, ::1], {acc}[:, :, ::1], int64[::1], {acc}, {acc}[:, ::1])"
    ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
    suffix = "f64" if acc == "float64" else "f32"
    assert f"mul.rn.{suffix}" in ptx
    assert f"fma.rn.{suffix}" not in ptx
