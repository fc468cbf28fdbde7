"""Numba's worker threads: started once, idle workers soon asleep, safe from several threads.

**Idle workers sleep.** Under Numba's OpenMP layer (GNU libgomp on Linux) each worker
spins for ~3 ms (300,000 rounds) after a parallel kernel returns. A layer's next step is
usually a BLAS matrix product (``x @ W``), whose own threads then fight the spinning
workers for the cores: on the 2-core box a 2708 x 1433 by 1433 x 64 product after a
gather took 9-13 ms instead of 3.5 + 0.2 ms, and 2-layer GCN / SAGE / GAT forwards on a
Cora-sized graph ran 2-4x slower (benchmarks/RESULTS.md). So the first CPU kernel starts
Numba's threading layer itself with ``OMP_WAIT_POLICY=PASSIVE`` and ``GOMP_SPINCOUNT=3000``
in the environment: libgomp reads them once, when Numba's OpenMP runtime loads, and its
workers then spin ~30 us (still catching the next kernel of a quick sequence) before they
sleep; other OpenMP runtimes (LLVM, Intel) sleep at once. The variables are removed again
straight after, so an OpenMP runtime loaded later (PyTorch's own copy, say) does not see
them. Set ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` yourself to keep your own choice;
nothing is changed when Numba's threads were already started by other code, and nothing
reaches a runtime that was loaded before (with torch imported first, Numba runs on
torch's runtime).

**Several Python threads.** Numba's ``workqueue`` threading layer (its fallback where
neither TBB nor OpenMP is found, e.g. macOS without libomp) is not thread-safe: two
threads launching ``parallel=True`` kernels at the same time abort the whole process
("Concurrent access has been detected"). A loader's prefetch thread and the main thread
both run kernels, so under that layer every kernel call here takes one process-wide lock;
under TBB / OpenMP nothing is added.

**Small products next to another library's runtime.** When libgomp was already in the
process before Numba's threads started (PyTorch imported first), Numba runs on that
runtime and the settings above cannot reach it: its workers spin after every kernel, and a
BLAS product that NumPy splits over two threads then waits for the spinning core (2708 x 64
by 64 x 7: 3.8 ms on two threads against 0.08 ms on one), while a kernel right after a
two-thread product waits ~8 ms for OpenBLAS's spinning thread. ``small_product()`` gives a
context that runs a product of under ``SMALL_PRODUCT_FLOPS`` on one BLAS thread (through
``threadpoolctl``, installed with the ``torch`` extra); elsewhere it does nothing.

>>> serialised(len)([1, 2])
2
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["serialised", "start_threads", "small_product", "shared_openmp"]

_LOCK = threading.Lock()
_LAYER: str | None = None
#: libgomp was in the process before Numba's threads started (None: not known yet)
_SHARED: bool | None = None
#: products of fewer floating-point operations run on one BLAS thread next to a shared
#: OpenMP runtime. Measured after a kernel, torch imported first, 2-core box, one vs two
#: threads (ms): 2708 x 64 by 64 x 7 0.08 / 3.8, 20000 x 64 by 64 x 64 2.2 / 1.3,
#: 2708 x 1433 by 1433 x 64 6.4 / 3.5, 100000 x 64 by 64 x 64 11.7 / 13.9, 1M x 32 by
#: 32 x 64 84 / 57; two threads also cost the next kernel ~8 ms, so up to ~1 GFlop one
#: thread is ahead
SMALL_PRODUCT_FLOPS = 1_000_000_000

#: what the runtime reads while it loads: sleep when idle (every OpenMP runtime), after a
#: short spin of 3000 rounds (~30 us; libgomp only)
WAIT_SETTINGS = {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "3000"}


def start_threads() -> bool:
    """Start Numba's threading layer, with idle OpenMP workers soon asleep unless the user
    chose a wait policy (see the module docstring). Returns ``True`` when it set the policy;
    ``False`` when the threads were already running, the user's policy stands, or Numba's
    internals have moved (the threads then start at the first parallel launch)."""
    from numba.np.ufunc import parallel

    global _SHARED
    launch = getattr(parallel, "_launch_threads", None)
    if launch is None or getattr(parallel, "_is_initialized", True):
        return False
    _SHARED = _libgomp_loaded()
    if any(name in os.environ for name in WAIT_SETTINGS):  # the user's choice stands
        _try(launch)
        return False
    os.environ.update(WAIT_SETTINGS)
    try:
        started = _try(launch)
    finally:
        for name in WAIT_SETTINGS:
            os.environ.pop(name, None)
    return started


def _libgomp_loaded() -> bool:
    """Is a GNU OpenMP runtime mapped into the process (Linux; ``False`` elsewhere)?"""
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:
        return False


def shared_openmp() -> bool:
    """True when Numba's OpenMP workers run on a runtime another library loaded first (so
    they spin after each kernel: see the module docstring)."""
    return bool(_SHARED) and _LAYER == "omp"  # no kernel yet: no workers to spin


class _OneBlasThread:
    """Context: NumPy's BLAS on one thread (``threadpoolctl``'s handles, found once)."""

    _controllers: list[Any] | None = None

    def __enter__(self) -> None:
        if _OneBlasThread._controllers is None:
            _OneBlasThread._controllers = _blas_controllers()
        self._saved = [(c, c.num_threads) for c in _OneBlasThread._controllers]
        for c, _ in self._saved:
            c.set_num_threads(1)

    def __exit__(self, *exc: Any) -> None:
        for c, n in self._saved:
            c.set_num_threads(n)
            # threadpoolctl >= 3.6 lets one Python thread at a time set OpenBLAS's limit and
            # makes the first caller that thread until released: release it, or other
            # threads' threadpool_limits() (and this context there) would do nothing
            clear = getattr(type(c), "clear_controlling_thread", None)
            if clear is not None:
                clear()


def _blas_controllers() -> list[Any]:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return []
    return list(ThreadpoolController().select(user_api="blas").lib_controllers)


def small_product(flops: float) -> Any:
    """A context for a matrix product of ``flops`` operations: one BLAS thread when it is
    small and Numba shares another library's spinning OpenMP runtime, else a no-op."""
    if flops < SMALL_PRODUCT_FLOPS and shared_openmp():
        return _OneBlasThread()
    return contextlib.nullcontext()


def _try(launch: Callable[[], Any]) -> bool:
    """Run Numba's launcher; a layer that cannot load (no TBB / OpenMP / workqueue) is
    left to fail where it did before, at the first parallel kernel, with Numba's message."""
    try:
        launch()
    except Exception:  # noqa: BLE001 - Numba raises ValueError / ImportError / OSError here
        return False
    return True


def _threading_layer() -> str | None:
    """The layer Numba chose (its threads are started here first if need be), or
    ``None`` when it cannot be told."""
    global _LAYER
    if _LAYER is None:
        import numba

        with _LOCK:
            start_threads()
        try:
            _LAYER = numba.threading_layer()
        except ValueError:  # not initialised: Numba's internals have moved
            return None
    return _LAYER


def serialised(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` itself, or (under the workqueue layer, or before Numba has picked one) a
    wrapper that runs it under the process-wide lock."""
    layer = _threading_layer()
    if layer is not None and layer != "workqueue":
        return kernel
    return _locked(kernel)


@functools.cache
def _locked(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """One locking wrapper per kernel (made once, not per call)."""

    @functools.wraps(kernel)
    def call(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return kernel(*args, **kwargs)

    return call
