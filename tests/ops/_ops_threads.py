"""Run a kernel on one thread and on all of Numba's, twice each (not a test module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def bits_on_thread_counts(run: Callable[[], Any]) -> list[bytes]:
    """``run()``'s result bytes, twice on one thread and twice on the default count (the
    thread count is restored afterwards)."""
    import numba

    old = numba.get_num_threads()
    results = []
    try:
        for threads in sorted({1, old}):
            numba.set_num_threads(threads)
            for _ in range(2):
                results.append(run().tobytes())
    finally:
        numba.set_num_threads(old)
    return results
