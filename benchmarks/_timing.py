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
