"""Which array module an array belongs to, and moving arrays between devices.

This is the only module in arraygnn that imports CuPy, and it does so lazily: a
CPU-only install never needs it.

>>> import numpy as np
>>> from arraygnn._namespace import get_namespace
>>> get_namespace(np.zeros(3), np.ones(2)).__name__
'numpy'
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

__all__ = [
    "get_namespace",
    "is_cupy_array",
    "is_array",
    "is_torch_tensor",
    "torch_hint",
    "device_of",
    "to_device",
    "to_numpy",
    "import_cupy",
]


def import_cupy() -> ModuleType:
    """Import CuPy or raise an ImportError naming the extra to install."""
    try:
        import cupy
    except ImportError as err:  # pragma: no cover - depends on the machine
        raise ImportError(
            "CuPy is required for device='cuda': pip install 'arraygnn[cuda12]' "
            "(or 'arraygnn[cuda13]')"
        ) from err
    return cupy


def is_cupy_array(x: Any) -> bool:
    """True for a ``cupy.ndarray``; never imports CuPy when it was not imported already."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(x, cupy.ndarray)


def is_array(x: Any) -> bool:
    """True for a NumPy or CuPy array."""
    return isinstance(x, np.ndarray) or is_cupy_array(x)


def is_torch_tensor(x: Any) -> bool:
    """True for a ``torch.Tensor`` (by its type's module; never imports torch)."""
    return type(x).__module__.split(".")[0] == "torch"


def torch_hint(x: Any) -> str:
    """The tail of an error message for a torch tensor where an array was expected."""
    return "; convert with arraygnn.from_torch(x)" if is_torch_tensor(x) else ""


def get_namespace(*arrays: Any) -> ModuleType:
    """Return ``numpy`` or ``cupy`` for the given arrays.

    Non-array arguments (``None``, Python scalars) are ignored. Mixing NumPy and
    CuPy arrays raises ``TypeError``: arraygnn never copies between host and device
    behind the caller's back.

    >>> import numpy as np
    >>> get_namespace(np.arange(3), None, 2.0) is np
    True
    """
    has_numpy = False
    has_cupy = False
    for a in arrays:
        if a is None:
            continue
        if isinstance(a, np.ndarray):
            has_numpy = True
        elif is_cupy_array(a):
            has_cupy = True
    if has_numpy and has_cupy:
        raise TypeError(
            "arguments mix NumPy and CuPy arrays; move them to one device first "
            "(arraygnn.to_device(x, 'cpu') or 'cuda')"
        )
    if has_cupy:
        return sys.modules["cupy"]
    return np


def device_of(x: Any) -> str:
    """``'cuda'`` for a CuPy array, ``'cpu'`` for anything else."""
    return "cuda" if is_cupy_array(x) else "cpu"


def _check_device(device: str) -> str:
    """``device`` normalised: ``'cpu'`` (also ``'cpu:0'``), ``'cuda'`` or ``'cuda:N'``."""
    if not isinstance(device, str):
        raise TypeError(f"device must be 'cpu' or 'cuda', got {device!r}")
    base, sep, index = device.partition(":")
    if base not in ("cpu", "cuda") or (sep and not index.isdigit()):
        raise ValueError(f"device must be 'cpu' or 'cuda' (optionally 'cuda:N'), got {device!r}")
    if base == "cpu":
        if sep and int(index) != 0:
            raise ValueError(f"there is one CPU device, 'cpu' (or 'cpu:0'); got {device!r}")
        return "cpu"
    return device


def is_ml_float(dtype: Any) -> bool:
    """Whether ``dtype`` is one of ml_dtypes' floating types (``bfloat16``, the float8s,
    float4 / float6; NumPy kind ``"V"``), without importing ml_dtypes.

    >>> is_ml_float(np.float32)
    False
    """
    dtype = np.dtype(dtype)
    return (
        dtype.names is None
        and dtype.type.__module__.partition(".")[0] == "ml_dtypes"
        and dtype.name.startswith(("float", "bfloat"))
    )


def repeat_counts(xp: ModuleType, values: Any, counts: Any, total: int | None = None) -> Any:
    """``values[i]`` repeated ``counts[i]`` times, on ``values``' device (``np.repeat``;
    CuPy's ``repeat`` takes no array of counts, so there it is a search over their ends).
    ``total``: ``counts.sum()`` when the caller knows it on the host (saves CuPy the
    device sync that learns the output size)."""
    if xp is np:
        if getattr(counts, "dtype", None) == np.uint64:  # np.repeat casts counts to intp
            counts = counts.astype(np.int64)
        return np.repeat(values, counts)
    ends = xp.cumsum(counts)
    if total is None:
        total = int(ends[-1]) if ends.shape[0] else 0
    return values[xp.searchsorted(ends, xp.arange(total), side="right")]


def to_numpy(x: Any) -> Any:
    """Return a NumPy view/copy of a NumPy or CuPy array; other objects unchanged."""
    if is_cupy_array(x):
        return x.get()
    return x


def to_device(obj: Any, device: str) -> Any:
    """Move an array, or every array inside a container, to ``device``.

    ``device`` is ``'cpu'`` or ``'cuda'`` / ``'cuda:N'``. Arrays already on the
    requested device are returned as they are (no copy). Containers may be a
    ``dict``, ``list`` or ``tuple`` (recursively), or any object with a
    ``.to(device)`` method (``Data``, ``Batch``, ``GraphTensor``, ``Graph``, ...).
    Other objects (scalars, strings) come back unchanged.

    >>> import numpy as np
    >>> to_device({"x": np.ones(2)}, "cpu")["x"]
    array([1., 1.])
    """
    return _move(obj, _check_device(device))


def _move(obj: Any, device: str) -> Any:
    if isinstance(obj, np.ndarray):
        if device == "cpu":
            return obj
        cupy = import_cupy()
        if ":" in device:
            with cupy.cuda.Device(int(device.split(":")[1])):
                return cupy.asarray(obj)
        return cupy.asarray(obj)
    if is_cupy_array(obj):
        if device == "cpu":
            return obj.get()
        if ":" in device and obj.device.id != int(device.split(":")[1]):
            cupy = import_cupy()
            with cupy.cuda.Device(int(device.split(":")[1])):
                return cupy.asarray(obj)
        return obj
    moved = map_container(obj, lambda _, v: _move(v, device))
    if moved is not NotImplemented:
        return moved
    to = getattr(obj, "to", None)
    if callable(to) and not isinstance(obj, type):
        return to(device)
    return obj


def map_container(obj: Any, fn: Callable[[Any, Any], Any]) -> Any:
    """``obj`` rebuilt with ``fn(key, child)`` in place of each child when it is a dict,
    list or tuple, else ``NotImplemented``. The key is the dict key, the namedtuple field
    name or the list / tuple position. Namedtuples and defaultdicts keep their type; a
    dict subclass whose constructor takes no items comes back as a plain dict.

    >>> map_container({"a": 1, "b": 2}, lambda k, v: v * 10)
    {'a': 10, 'b': 20}
    """
    if isinstance(obj, dict):
        items = [(k, fn(k, v)) for k, v in obj.items()]
        if isinstance(obj, defaultdict):
            return type(obj)(obj.default_factory, items)
        try:
            return type(obj)(items)
        except TypeError:
            return dict(items)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)._make(fn(n, v) for n, v in zip(obj._fields, obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(fn(i, v) for i, v in enumerate(obj))
    return NotImplemented


def torch_rsqrt(a: Any) -> Any:
    """``a ** -0.5`` with torch's ``pow(-0.5)`` bits (its CPU ``rsqrt``): ``1 / sqrt(a)`` for
    float32 / float64 (both steps correctly rounded; NumPy's ``**`` is an ulp off on ~20 %
    of inputs on AVX-512), NumPy's ``**`` for float16 (computed in float32 and rounded once,
    as torch's half ``pow``; ``1 / sqrt`` rounds twice, an ulp off on ~25 %). Integers give
    float64. On ``a``'s device; a NumPy scalar stays a scalar.

    >>> torch_rsqrt(np.array([0.0, 4.0], np.float32))
    array([inf, 0.5], dtype=float32)
    """
    dt = a.dtype
    xp = np if isinstance(a, np.generic) else get_namespace(a)
    if dt.kind != "f":
        a, dt = a.astype(np.float64), np.dtype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 -> inf, negative -> NaN
        return a ** dt.type(-0.5) if dt == np.float16 else dt.type(1) / xp.sqrt(a)
