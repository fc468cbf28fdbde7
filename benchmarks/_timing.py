"""The timing loop the benchmark scripts share (imported as ``from _timing import times``:
the scripts run as ``python benchmarks/<name>.py``, so this folder is on ``sys.path``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def times(fns: Sequence[Callable[[], object]], repeat: int) -> list[tuple[float, float]]:
    """``(best, median)`` ms of each function after one warm-up call each, the functions run
    in turn within every repeat (a shared, noisy box then loads every side alike)."""
    for fn in fns:
        fn()
    out: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, samples in zip(fns, out):
            t0 = time.perf_counter()
            fn()
            samples.append(1e3 * (time.perf_counter() - t0))
    return [(min(t), statistics.median(t)) for t in out]


def limit_threads(threads: int) -> None:
    """Run Numba, torch (when installed) and NumPy's BLAS (through threadpoolctl, when
    installed) on ``threads`` threads each: a BLAS left on its default beside one-thread
    torch skews a one-thread ratio (seen up to 30x on the loaded 2-core box)."""
    import numba

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("threadpoolctl missing: NumPy's BLAS keeps its default threads")
        return
    threadpool_limits(threads)  # process-wide until restored: nothing else to keep
