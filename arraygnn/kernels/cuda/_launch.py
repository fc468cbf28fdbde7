"""Launch sizes, accumulator dtypes and scratch arrays shared by the CUDA launchers.

Every CUDA kernel in this package walks its work with a grid-stride loop
(``for t in range(cuda.grid(1), n, cuda.gridsize(1))``), so any grid covers all the
work; the grid is sized here from :data:`arraygnn._config.settings`, read at call time
so tests can shrink it (e.g. 4 threads x 2 blocks) and exercise the multi-block paths
on tiny graphs.

Launchers accept CuPy arrays (Numba reads them through ``__cuda_array_interface__``,
no copy) and, under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), NumPy arrays.
Scratch arrays are allocated with the array module of the output (:func:`namespace`).

RULE: a launcher never synchronises the device and never copies to the host; sizes come
from array shapes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._config import settings
from arraygnn._namespace import get_namespace

__all__ = [
    "HEAVY_ROW_EDGES",
    "CAI_SYNC",
    "LEAN_ROWS",
    "LOAD_AHEAD",
    "NARROW_GROUPS",
    "SDDMM_DOT_GROUPS",
    "accumulator_dtype",
    "accumulator_zero",
    "blocks_for",
    "launch",
    "namespace",
    "placeholder",
]

#: Rows with more edges than this are split into pieces of this many edges, reduced by
#: several threads into a scratch array, then combined in order (still deterministic).
#: Module attribute, read at call time: tests patch it small to run the split path.
HEAVY_ROW_EDGES = 64

#: Light rows with the indices of four edges loaded ahead of their feature rows (more loads
#: in flight per lane; same order of operations, so the same bits). Off by default until a
#: GPU run shows it is faster: ``tools/gpu_check.py`` times both.
LOAD_AHEAD = False

#: Row groups as narrow as the features allow (``ceil(F / 4)`` lanes rounded up to a power
#: of two, so every lane keeps four accumulators: F = 64 -> 16 lanes, two rows per warp)
#: instead of a full warp per row for F >= 32. Each output element is still reduced by one
#: lane in slot order: the same bits either way. ``tools/gpu_check.py`` times both.
NARROW_GROUPS = False

#: SpMM / segment / scatter rows through the kernels of ``_row_reduce_lean`` (specialised at
#: compile time, flat arrays, unsigned offsets, four slots' loads in flight) where they
#: cover the call; the same bits. On since the H200 run of 2026-11-27 (1M / 10M power-law
#: graph, float32 SpMM sum: F = 16 / 64 / 256 in 0.95 / 1.75 / 2.95 ms against the general
#: kernel's 2.07 / 2.62 / 7.40; benchmarks/RESULTS.md).
LEAN_ROWS = True

#: ``dot`` in SDDMM by a group of lanes per output with coalesced row reads and a fixed
#: tree over the lanes (``sddmm._dot_groups_kernel``) instead of one thread walking each
#: row (other bits than the thread-per-edge kernel). On since the H200 run of 2026-11-27
#: for depths from ``SDDMM_DOT_GROUPS_MIN_DEPTH``: 1M / 10M, float32 u.v, F = 64 / 256 in
#: 6.9 / 9.4 ms against 9.5 / 68.1 ms; at F = 16 it was slower (3.1 against 2.2 ms).
SDDMM_DOT_GROUPS = True
#: the lane groups take ``dot`` from this depth on (H200, 1M / 10M: slower at 16, faster
#: from 64 on); shallower dots keep one thread per edge
SDDMM_DOT_GROUPS_MIN_DEPTH = 32
#: Numba synchronises the stream named in every ``__cuda_array_interface__`` argument
#: before a launch (``NUMBA_CUDA_ARRAY_INTERFACE_SYNC``): a host-side wait for all the
#: work queued so far. Our kernels run on CuPy's current stream (:func:`_current_stream`),
#: the stream that produced their inputs, so that wait orders nothing; it is skipped for
#: our launches when this is False (Numba's global setting is restored right after).
CAI_SYNC = False


def _numba_cuda_numpy_compat() -> None:
    """Let numba-cuda <= 0.30 load its lowering registries under NumPy >= 2.5.

    numba-cuda 0.30 registers ``overload(np.row_stack)`` (and may touch other names NumPy
    2.5 removed) when it loads its registries at the first kernel compile; without the
    name every launch fails with ``AttributeError: module 'numpy' has no attribute
    'row_stack'`` (seen on the GPU image: numba-cuda 0.30.4, NumPy 2.5.2). While those
    modules import, missing NumPy names resolve to placeholders that raise when called;
    NumPy is restored right after. Nothing happens on NumPy < 2.5 or in the simulator.
    """
    from numba import config

    if hasattr(np, "row_stack") or config.ENABLE_CUDASIM:
        return
    import importlib

    original = np.__dict__.get("__getattr__")

    def placeholder_attr(name: str) -> Any:
        try:
            return original(name)
        except AttributeError:

            def removed(*args: Any, **kwargs: Any) -> Any:
                raise AttributeError(f"numpy.{name} was removed from NumPy")

            removed.__name__ = name
            return removed

    np.__getattr__ = placeholder_attr
    try:
        for module in (
            "numba.cuda.np.arrayobj",
            "numba.cuda.np.arraymath",
            "numba.cuda.np.npdatetime",
            "numba.cuda.np.polynomial",
            "numba.cuda.np.npyimpl",
            "numba.cuda.cudaimpl",
        ):
            try:
                importlib.import_module(module)
            except ImportError:
                pass
    finally:
        if original is None:
            del np.__getattr__
        else:
            np.__getattr__ = original


_numba_cuda_numpy_compat()


def _simulating() -> bool:
    from numba import config

    return bool(config.ENABLE_CUDASIM)


_SIMULATOR = _simulating()


def namespace(*arrays: Any) -> ModuleType:
    """``cupy`` for CuPy arrays, ``numpy`` for NumPy arrays (simulator)."""
    return get_namespace(*arrays)


def accumulator_dtype(dtype: Any) -> np.dtype:
    """float32 for float16/float32 values, float64 for float64 (half accumulates in float)."""
    dt = np.dtype(dtype)
    if dt == np.float64:
        return np.dtype(np.float64)
    if dt in (np.dtype(np.float16), np.dtype(np.float32)):
        return np.dtype(np.float32)
    raise TypeError(f"CUDA kernels take float16, float32 or float64 values, got {dt}")


def accumulator_zero(dtype: Any) -> np.floating:
    """A zero scalar of the accumulator dtype; passed to kernels to type their registers."""
    return accumulator_dtype(dtype).type(0)


def blocks_for(work: int) -> tuple[int, int]:
    """``(blocks, threads_per_block)`` for ``work`` items under the current settings."""
    threads = int(settings.cuda_threads_per_block)
    max_blocks = int(settings.cuda_max_blocks)
    if threads < 1 or max_blocks < 1:
        raise ValueError(
            f"cuda_threads_per_block and cuda_max_blocks must be >= 1, got {threads}, {max_blocks}"
        )
    blocks = min(max_blocks, max(1, -(-work // threads)))
    return blocks, threads


def launch(kernel: Any, work: int, *args: Any) -> None:
    """Launch ``kernel`` over ``work`` grid-stride items; nothing happens for ``work == 0``."""
    if work <= 0:
        return
    blocks, threads = blocks_for(work)
    if _SIMULATOR:
        kernel[blocks, threads](*(_simulator_arg(a) for a in args))
        return
    # CuPy arrays go straight to the dispatcher (it reads __cuda_array_interface__). Wrapping
    # them first with cuda.as_cuda_array(sync=False) was measured SLOWER on an H100 (Cora-size
    # gather 0.28 ms vs 0.21 ms per call); switching off the per-argument stream sync is not.
    stream = _current_stream()
    if CAI_SYNC:
        kernel[blocks, threads, stream](*args)
        return
    from numba.cuda.core import config

    before = config.CUDA_ARRAY_INTERFACE_SYNC
    config.CUDA_ARRAY_INTERFACE_SYNC = False
    try:
        kernel[blocks, threads, stream](*args)
    finally:
        config.CUDA_ARRAY_INTERFACE_SYNC = before


def _current_stream() -> Any:
    """CuPy's current stream as a Numba stream (0: the default stream), so kernels are
    ordered after the CuPy work that produced their inputs and before what follows."""
    import sys

    cupy = sys.modules.get("cupy")
    if cupy is None:
        return 0
    ptr = int(cupy.cuda.get_current_stream().ptr)
    if ptr == 0:
        return 0
    stream = _STREAMS.get(ptr)
    if stream is None:
        from numba import cuda

        stream = _STREAMS[ptr] = cuda.external_stream(ptr)
    return stream


_STREAMS: dict[int, Any] = {}


def _simulator_arg(a: Any) -> Any:
    """The simulator copies every NumPy argument back after a launch, which fails for
    read-only inputs (a ``CSR``'s frozen arrays): hand those over as device arrays."""
    if isinstance(a, np.ndarray) and not a.flags.writeable:
        from numba import cuda

        return cuda.to_device(a)
    return a


def placeholder(xp: ModuleType, dtype: Any, ndim: int) -> Any:
    """A one-element array standing in for an absent optional argument (flag says absent).

    Kernels never read it, so one per (device, dtype, ndim) is made and reused: no
    allocation and no fill launch per call."""
    if xp is np:
        return np.zeros((1,) * ndim, dtype=dtype)
    key = (int(xp.cuda.runtime.getDevice()), np.dtype(dtype).str, ndim)
    found = _PLACEHOLDERS.get(key)
    if found is None:
        found = _PLACEHOLDERS[key] = xp.zeros((1,) * ndim, dtype=dtype)
    return found


_PLACEHOLDERS: dict[tuple[int, str, int], Any] = {}
