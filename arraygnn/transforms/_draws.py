"""Random draws of the random transforms: one ``numpy.random.Generator`` per transform, made
from its ``seed`` argument when the transform is built, advanced by every call.

On CuPy arrays a device generator is seeded from that host generator (one draw), so the
same seed gives the same results on each device (not the same numbers across devices).

>>> import numpy as np
>>> rng = seed_arg("Demo", 0)
>>> permutation(np, device_generator(np, rng, "Demo"), 4).shape
(4,)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arraygnn.utils.negative_sampling import generator

__all__ = ["seed_arg", "device_generator", "permutation", "uniform"]


def seed_arg(where: str, seed: Any) -> np.random.Generator:
    """``seed`` (an int, a ``numpy.random.Generator`` - used as it is - or ``None``) as a
    host generator; ``TypeError`` naming ``where`` otherwise."""
    if isinstance(seed, (bool, np.bool_)) or not (
        seed is None or isinstance(seed, (int, np.integer, np.random.Generator))
    ):
        raise TypeError(
            f"{where}: seed must be an int, a numpy.random.Generator or None, got "
            f"{type(seed).__name__}"
        )
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def device_generator(xp: ModuleType, rng: np.random.Generator, where: str) -> Any:
    """``rng`` itself for NumPy, a CuPy generator seeded from it for CuPy."""
    return generator(xp, rng, where)


def permutation(xp: ModuleType, gen: Any, n: int) -> Any:
    """A uniform random permutation of ``0 .. n - 1`` (int64) on ``xp``'s device."""
    if xp is np:
        return gen.permutation(n).astype(np.int64, copy=False)
    return xp.argsort(gen.random(n)).astype(np.int64)


def uniform(xp: ModuleType, gen: Any, low: Any, high: Any, size: Any) -> Any:
    """Uniform floats in ``[low, high)`` (float64; ``low`` / ``high`` broadcast), drawn as
    ``low + (high - low) * random`` on both devices (NumPy's ``uniform`` formula)."""
    return low + (high - low) * gen.random(size)
