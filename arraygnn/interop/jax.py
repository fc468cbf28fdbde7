"""Hand-off between arraygnn (NumPy / CuPy) and JAX, sharing memory where it can.

``to_jax`` turns every array inside an object into a ``jax.Array`` through DLPack. JAX
adopts a host buffer without copying only when all of these hold, and otherwise copies
*silently*; arraygnn checks them first, makes the one unavoidable copy itself (into a
64-byte aligned buffer, so JAX adopts that copy instead of copying again) and reports it:

- the data pointer is 64-byte aligned (NumPy puts large arrays at offset 16; arraygnn's
  collated batches are aligned, see :func:`aligned_copy` for your own arrays);
- the dtype survives: with ``jax_enable_x64`` off (JAX's default) int64 / uint64 / float64 /
  complex128 are narrowed to 32 bits (a copy; integers outside the int32 range raise
  ``ValueError`` rather than wrap);
- the array is writable (DLPack cannot export read-only arrays to JAX);
- the layout is compact: C order or a transposition of it (no gaps, no negative or zero
  strides) and native byte order.

``from_jax`` goes back: CPU arrays become read-only NumPy views of the JAX buffer (JAX
arrays are immutable), GPU arrays become CuPy arrays on the same device.

>>> import numpy as np
>>> from arraygnn.interop import aligned_copy, to_jax
>>> x = aligned_copy(np.arange(8, dtype=np.float32))
>>> j, report = to_jax(x, report=True)
>>> report.zero_copy, j.unsafe_buffer_pointer() == x.ctypes.data
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import import_cupy, is_cupy_array, is_ml_float
from arraygnn.interop._handoff import (
    JAX_ALIGNMENT,
    HandoffReport,
    aligned_copy,
    aligned_empty,
    check_shared,
    convert_structure,
    finish,
    host_record,
    need_copy,
    record_to_numpy,
)

__all__ = ["to_jax", "from_jax", "import_jax", "jax_x64_enabled"]

_NARROW = {"i": np.int32, "u": np.uint32, "f": np.float32, "c": np.complex64}


def import_jax():
    """Import JAX or raise an ImportError naming the extra to install."""
    try:
        import jax
        import jax.numpy  # noqa: F401
    except ImportError as err:
        raise ImportError("JAX is required for this hand-off: pip install 'arraygnn[jax]'") from err
    return jax


def jax_x64_enabled() -> bool:
    """True when JAX keeps 64-bit dtypes (``jax_enable_x64``), here and now."""
    jax = import_jax()
    return jax.dtypes.canonicalize_dtype(np.int64) == np.dtype(np.int64)


def _is_compact(a: Any) -> bool:
    """C-contiguous up to a permutation of the axes (what XLA accepts): no gaps, no reuse."""
    if a.flags.c_contiguous:
        return True
    dims = [(s, n) for s, n in zip(a.strides, a.shape) if n != 1]
    expected = a.dtype.itemsize
    for stride, n in sorted(dims):
        if stride != expected:
            return False
        expected *= n
    return True


def _tidy_unit_strides(a: np.ndarray) -> np.ndarray:
    """The same memory with canonical C (or Fortran) strides, length-1 axes included.

    NumPy lets a length-1 axis carry any stride (``a[::-1]`` of one row has a negative one)
    and still calls the array contiguous. XLA adopts such a buffer, but reads it back to
    NumPy through a stale copy. A view with canonical strides avoids that; no data moves.
    """
    if a.size == 0 or a.ndim == 0:
        return a
    for flag, order in ((a.flags.c_contiguous, "C"), (a.flags.f_contiguous, "F")):
        if flag:
            canonical = _canonical_strides(a.shape, a.dtype.itemsize, order)
            if canonical == a.strides:
                return a
            return np.lib.stride_tricks.as_strided(a, a.shape, canonical, writeable=True)
    return a


def _canonical_strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    out = [0] * len(shape)
    step = itemsize
    for d in dims:
        out[d] = step
        step *= shape[d]
    return tuple(out)


#: the ml_dtypes floats JAX takes (its float6 types fail in XLA): bfloat16 and the float8s
_JAX_ML_FLOATS = (
    "bfloat16",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
)


def _is_ml_dtype(dtype: np.dtype) -> bool:
    """bfloat16 / float8 from ml_dtypes that JAX takes (NumPy kind "V")."""
    return is_ml_float(dtype) and dtype.name in _JAX_ML_FLOATS


def _jax_supports(dtype: np.dtype) -> bool:
    if _is_ml_dtype(dtype):
        return True
    if dtype.kind in "biu":
        return dtype.itemsize <= 8
    if dtype.kind == "f":
        return dtype.itemsize in (2, 4, 8)
    return dtype.kind == "c" and dtype.itemsize in (8, 16)


def to_jax(obj: Any, *, strict: bool = False, report: bool = False) -> Any:
    """Convert every NumPy / CuPy array inside ``obj`` to a ``jax.Array``.

    ``obj`` may be an array, a ``Data`` / ``Batch`` (a new object of the same class comes
    back, a batch keeps its slice records), or a dict / list / tuple of those. Arrays that
    JAX can adopt are shared (checked by data pointer afterwards); the others are copied
    once, with the reason in the report, or ``strict=True`` raises
    :class:`HandoffCopyError`. With ``report=True`` the result is
    ``(converted, HandoffReport)``. Note that JAX treats its arrays as immutable: writing to
    the NumPy array afterwards changes what the shared JAX array holds.

    >>> import numpy as np
    >>> from arraygnn.interop import to_jax
    >>> j, report = to_jax(np.arange(3), report=True)  # int64, x64 off: narrowed copy
    >>> str(j.dtype), list(report.copied)
    ('int32', ['<array>'])
    """
    jax = import_jax()
    x64 = jax_x64_enabled()
    rep = HandoffReport("jax")

    def leaf(a: Any, path: str) -> Any:
        if not _jax_supports(a.dtype):
            rep.kept[path] = f"dtype {a.dtype} has no JAX equivalent"
            return a
        target = a.dtype.newbyteorder("=")
        reasons = []
        if a.dtype.itemsize == 8 * (2 if a.dtype.kind == "c" else 1) and a.dtype.kind != "b":
            if not x64:
                target = np.dtype(_NARROW[a.dtype.kind])
                reasons.append(f"{a.dtype} narrowed to {target} (jax_enable_x64 is off)")
                if a.dtype.kind in "iu" and a.size:
                    info = np.iinfo(target)
                    lo, hi = a.min(), a.max()
                    if lo < info.min or hi > info.max:
                        raise ValueError(
                            f"{path!r}: {a.dtype} values in [{lo}, {hi}] do not fit {target}, "
                            "and JAX narrows 64-bit integers unless x64 is on: "
                            "jax.config.update('jax_enable_x64', True)"
                        )
        if is_cupy_array(a):
            if not _is_compact(a):
                reasons.append("not compact (gaps, broadcast or negative strides)")
            if reasons:
                need_copy(rep, path, "; ".join(reasons), strict)
                src = import_cupy().ascontiguousarray(a.astype(target))
            else:
                src = a
            out = jax.dlpack.from_dlpack(src)
            check_shared(rep, path, a, out, strict, expect_copy=bool(reasons))
            return out
        if _is_ml_dtype(a.dtype):  # bfloat16 / float8 (ml_dtypes): NumPy has no DLPack
            if a.size:  # (an empty one has no memory to copy: it counts as shared)
                need_copy(rep, path, f"{a.dtype} (ml_dtypes) cannot travel by DLPack", strict)
            else:
                rep.shared.append(path)
            return jax.numpy.array(a, dtype=a.dtype, copy=True)
        if not a.flags.writeable:
            reasons.append("read-only array (DLPack cannot export it to JAX)")
        if not a.dtype.isnative:
            reasons.append(f"non-native byte order ({a.dtype.str})")
        if not _is_compact(a):
            reasons.append("not compact (gaps, broadcast or negative strides)")
        offset = a.__array_interface__["data"][0] % JAX_ALIGNMENT
        if offset and a.size:
            reasons.append(
                f"data pointer {offset} bytes past a {JAX_ALIGNMENT}-byte boundary "
                "(JAX copies unaligned buffers)"
            )
        if a.size == 0:  # no memory to share or copy: only a narrowed dtype is reported
            reasons = reasons[:1] if target.itemsize < a.dtype.itemsize else []
            src = aligned_empty(a.shape, target)
            if reasons:
                need_copy(rep, path, reasons[0], strict)
        elif reasons:
            need_copy(rep, path, "; ".join(reasons), strict)
            src = aligned_copy(a.astype(target, copy=False))
        else:
            src = _tidy_unit_strides(a)
        out = jax.dlpack.from_dlpack(src)
        check_shared(rep, path, a, out, strict, expect_copy=bool(reasons))
        return out

    def is_leaf(v: Any) -> bool:
        return isinstance(v, np.ndarray) or is_cupy_array(v)

    def record(rec: Any, value: Any) -> Any:
        # a Batch's increments follow its values: same framework, dtype and device
        if not isinstance(value, jax.Array) or len(value.devices()) != 1:
            return rec
        host = host_record(rec).astype(value.dtype)
        return jax.device_put(host, next(iter(value.devices())))

    out = convert_structure(obj, is_leaf, leaf, report=rep, convert_record=record)
    return finish(out, rep, report)


def from_jax(obj: Any, *, strict: bool = False, report: bool = False) -> Any:
    """Convert every ``jax.Array`` inside ``obj`` back to NumPy (CPU) or CuPy (GPU).

    CPU arrays become **read-only** NumPy views of the JAX buffers (no copy; JAX arrays are
    immutable, so the view must not be written). GPU arrays become CuPy arrays on the same
    device through DLPack. Arrays spread over several devices are gathered with
    ``np.asarray`` (a copy, reported). Typed PRNG key arrays (``jax.random.key``) are
    kept, listed under ``kept`` (``jax.random.key_data(key)`` converts their bits).
    ``strict`` and ``report`` as in :func:`to_jax`.

    >>> import jax.numpy as jnp
    >>> from arraygnn.interop import from_jax
    >>> a = from_jax(jnp.ones(3))
    >>> type(a).__name__, a.flags.writeable
    ('ndarray', False)
    """
    jax = import_jax()
    rep = HandoffReport("numpy")

    def leaf(j: Any, path: str) -> Any:
        if isinstance(j, jax.core.Tracer):
            raise TypeError(
                f"{path!r} is a traced JAX value (inside jit / grad); "
                "convert concrete arrays outside the transformed function"
            )
        if jax.dtypes.issubdtype(j.dtype, jax.dtypes.prng_key):
            rep.kept[path] = (
                f"typed PRNG key array ({j.dtype}): NumPy has no such dtype; "
                "convert its bits, jax.random.key_data(key)"
            )
            return j
        devices = j.devices()
        if len(devices) != 1:
            need_copy(rep, path, f"array spread over {len(devices)} devices", strict)
            return np.asarray(j)
        platform = next(iter(devices)).platform
        if platform == "cpu":
            try:
                out = np.from_dlpack(j)
            except (BufferError, TypeError, RuntimeError):
                out = np.asarray(j)  # dtypes DLPack lacks (bfloat16): NumPy's buffer view
        elif platform in ("gpu", "cuda", "rocm"):
            out = import_cupy().from_dlpack(j)
        else:
            rep.kept[path] = f"device platform {platform!r} (only cpu and gpu are converted)"
            return j
        check_shared(rep, path, j, out, strict, expect_copy=False)
        return out

    def is_leaf(v: Any) -> bool:
        return isinstance(v, jax.Array)

    out = convert_structure(obj, is_leaf, leaf, report=rep, convert_record=record_to_numpy)
    return finish(out, rep, report)
