"""Library settings: determinism, extra validation, CUDA launch sizes.

Settings are plain attributes of one :data:`settings` object; :func:`config`
changes some of them for the duration of a ``with`` block (thread-local is not
attempted: settings are process-wide, like NumPy's ``errstate``).

>>> from arraygnn._config import config, settings
>>> with config(deterministic=False):
...     settings.deterministic
False
>>> settings.deterministic
True
"""

from __future__ import annotations

import contextlib
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
    old = {k: getattr(settings, k) for k in changes}
    try:
        for k, v in changes.items():
            setattr(settings, k, v)
        yield settings
    finally:
        for k, v in old.items():
            setattr(settings, k, v)
