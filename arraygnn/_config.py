"""Library settings: determinism, extra validation, CUDA launch sizes.

Settings are plain attributes of one :data:`settings` object; :func:`config`
changes some of them for the duration of a ``with`` block. They are process-wide, not
per thread (unlike NumPy's ``errstate``): a block restores the values it found on entry,
so blocks entered in several threads must exit in the reverse order.

>>> from arraygnn._config import config, settings
>>> with config(deterministic=False):
...     settings.deterministic
False
>>> settings.deterministic
True
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator
from dataclasses import dataclass, fields

__all__ = ["Settings", "settings", "config"]


@dataclass
class Settings:
    """Process-wide arraygnn settings.

    - ``deterministic``: reductions run over a destination-sorted CSR, one output
      row per worker, no atomics (same bits every run). ``False`` allows atomic
      COO paths where they exist.
    - ``validate``: also run the plain-array reference kernel and compare
      (TF-GNN's fast-path check); slow, for debugging.
    - ``cuda_threads_per_block`` / ``cuda_max_blocks``: CUDA launch sizes; tests
      patch them small so multi-block paths run on tiny inputs.
    """

    deterministic: bool = True
    validate: bool = False
    cuda_threads_per_block: int = 128
    cuda_max_blocks: int = 65535


settings = Settings()


@contextlib.contextmanager
def config(**changes: object) -> Iterator[Settings]:
    """Temporarily change :data:`settings`; unknown names raise ``TypeError``."""
    known = {f.name for f in fields(Settings)}
    unknown = set(changes) - known
    if unknown:
        raise TypeError(f"unknown arraygnn setting(s): {sorted(unknown)}; known: {sorted(known)}")
    for k, v in changes.items():
        if isinstance(getattr(settings, k), bool):
            numpy_bool = getattr(getattr(v, "dtype", None), "kind", "") == "b" and not getattr(
                v, "ndim", 0
            )
            if not (isinstance(v, bool) or numpy_bool):
                raise TypeError(f"arraygnn setting {k} must be True or False, got {v!r}")
        elif isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"arraygnn setting {k} must be a positive int, got {v!r}")
    old = {k: getattr(settings, k) for k in changes}
    try:
        for k, v in changes.items():
            setattr(settings, k, v)
        yield settings
    finally:
        for k, v in old.items():
            setattr(settings, k, v)
