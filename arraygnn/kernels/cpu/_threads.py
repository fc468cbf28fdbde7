"""Parallel CPU kernels called from several Python threads at once.

Numba's ``workqueue`` threading layer (its fallback where neither TBB nor OpenMP is found,
e.g. macOS without libomp) is not thread-safe: two threads launching ``parallel=True``
kernels at the same time abort the whole process ("Concurrent access has been
detected"). A loader's prefetch thread and the main thread both run kernels, so under that
layer every kernel call here takes one process-wide lock; under TBB / OpenMP nothing is
added. Until the first parallel launch the layer is unknown and calls are serialised.

>>> serialised(len)([1, 2])
2
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["serialised"]

_LOCK = threading.Lock()
_LAYER: str | None = None


def _threading_layer() -> str | None:
    """The layer Numba chose, or ``None`` before its first parallel launch."""
    global _LAYER
    if _LAYER is None:
        import numba

        try:
            _LAYER = numba.threading_layer()
        except ValueError:  # not initialised yet
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
