"""What the lean CUDA row kernels compile to (PTX for sm_90), where a CUDA toolchain is present.

Runs wherever numba-cuda can compile PTX (libnvvm found: a CUDA toolkit, the
``nvidia-cuda-nvcc`` wheel, or a GPU machine); skips elsewhere, e.g. on CI, which has none.
The simulator cannot show these properties: NumPy never fuses a multiply into an add.
"""

from __future__ import annotations

import re

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
    # stricter: no FMA of any kind, no multiply ptxas may contract (mul.f32 without .rn:
    # ptxas fuses it with the add at its default --fmad=true), no flush-to-zero, and each
    # rounded product added once (the add itself may stay bare: ptxas only fuses a mul
    # without a rounding modifier)
    ops = re.findall(rf"\b(fma|mul|add|sub)((?:\.[a-z0-9]+)*)\.{suffix}\b", ptx)
    assert not [o for o in ops if o[0] == "fma"]
    assert not [o for o in ops if o[0] == "mul" and ".rn" not in o[1]]
    assert ".ftz" not in ptx
    muls = sum(o[0] == "mul" for o in ops)
    assert muls > 0 and sum(o[0] == "add" for o in ops) == muls


def _sass(ptx: str, tmp_path) -> str:
    """sm_90 machine code of ``ptx`` via ``ptxas`` and ``nvdisasm`` (on PATH, under
    CUDA_HOME/bin or in an ``nvidia-cuda-nvdisasm`` wheel); skips without them."""
    import glob
    import importlib.util
    import os
    import shutil
    import subprocess

    def tool(name: str) -> str | None:
        spec = importlib.util.find_spec("nvidia")
        roots = list(spec.submodule_search_locations or []) if spec else []
        places = [os.path.join(os.environ.get("CUDA_HOME", ""), "bin", name)]
        places += [p for r in roots for p in glob.glob(os.path.join(r, "*", "bin", name))]
        return shutil.which(name) or next((p for p in places if os.path.isfile(p)), None)

    ptxas, nvdisasm = tool("ptxas"), tool("nvdisasm")
    if ptxas is None or nvdisasm is None:
        pytest.skip("ptxas / nvdisasm not found: cannot read the SASS here")
    (tmp_path / "k.ptx").write_text(ptx)
    cubin = str(tmp_path / "k.cubin")
    subprocess.run([ptxas, "-arch=sm_90", "-o", cubin, str(tmp_path / "k.ptx")], check=True)
    return subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True).stdout.decode()


@pytest.mark.parametrize("acc", ["float32", "float64"])
def test_gather_mm_machine_code_has_no_fused_multiply_add(acc, tmp_path):
    """What the card runs (ptxas's SASS for sm_90): FMUL / DMUL then FADD / DADD, no FFMA /
    DFMA; a plain ``acc += x * y`` kernel, compiled the same way, shows the FFMA (control)."""
    from arraygnn.kernels.cuda import gather_mm

    _toolchain()

    def plain(x, y, out):  # pragma: no cover - compiled only
        total = out[0]
        for k in range(x.shape[0]):
            total += x[k] * y[k]
        out[0] = total

    vec = f"{acc}[::1]"
    control, _ = cuda.compile_ptx(plain, f"void({vec}, {vec}, {vec})", cc=(9, 0))
    fused = "DFMA" if acc == "float64" else "FFMA"
    assert fused in _sass(control, tmp_path)
    kernel = gather_mm._kernel(acc == "float64")
    sig = f"void({acc}[:, ::1], {acc}[:, :, ::1], int64[::1], {acc}, {acc}[:, ::1])"
    sass = _sass(cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))[0], tmp_path)
    prefix = "D" if acc == "float64" else "F"
    assert fused not in sass
    assert re.search(rf"\b{prefix}MUL\b", sass) and re.search(rf"\b{prefix}ADD\b", sass)
