"""Hand-off between arraygnn (NumPy / CuPy) and PyTorch, sharing memory where it can.

``to_torch`` turns every array inside an object into a ``torch.Tensor``: NumPy arrays via
``torch.from_numpy`` (CPU, zero-copy), CuPy arrays via DLPack (same GPU, zero-copy).
``from_torch`` goes back: CPU tensors via ``Tensor.numpy()`` (zero-copy), CUDA tensors to CuPy
via DLPack (zero-copy; arrays stay on their device).

Copies happen only where sharing would be unsafe, and are reported (or raise with
``strict=True``):

- negative strides (``a[::-1]``): PyTorch has no negative strides (older releases abort);
- read-only arrays (``np.load(mmap_mode="r")``, broadcast views, JAX exports): PyTorch
  would hand out a *writable* tensor over memory that must not be written, and a write to a
  read-only memory map kills the process with a segmentation fault;
- non-native byte order, or strides that are not a multiple of the item size (fields of
  structured arrays): PyTorch cannot describe them;
- (``from_torch``) tensors with the lazy conjugate / negative bit set.

Arrays PyTorch has no dtype for (strings, bytes, objects) are kept as they are and listed
under ``kept``; non-array values (Python scalars, strings) pass through unchanged.
ml_dtypes' ``bfloat16`` / float8 arrays become torch tensors of that dtype sharing their
memory, and ``from_torch`` gives such tensors back as ml_dtypes arrays (shared) when
ml_dtypes is installed.

>>> import numpy as np
>>> from arraygnn.interop import to_torch
>>> x = np.arange(6.0).reshape(2, 3)
>>> t, report = to_torch(x, report=True)
>>> report.zero_copy, t.data_ptr() == x.ctypes.data
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import import_cupy, is_cupy_array, is_ml_float
from arraygnn.interop._handoff import (
    HandoffReport,
    check_shared,
    convert_structure,
    finish,
    host_record,
    need_copy,
    record_to_numpy,
)

__all__ = ["to_torch", "from_torch", "import_torch", "numpy_can_hold"]


def import_torch():
    """Import PyTorch or raise an ImportError naming the extra to install."""
    try:
        import torch
    except ImportError as err:
        raise ImportError(
            "PyTorch is required for this hand-off: pip install 'arraygnn[torch]'"
        ) from err
    return torch


def _numpy_copy_reason(a: np.ndarray) -> str | None:
    """Why ``torch.from_numpy(a)`` would be unsafe or impossible, or None."""
    if any(s < 0 for s in a.strides):
        return "negative strides (PyTorch has none)"
    if not a.flags.writeable:
        return "read-only array (PyTorch tensors are always writable)"
    if not a.dtype.isnative:
        return f"non-native byte order ({a.dtype.str})"
    if any(s % a.dtype.itemsize for s in a.strides):
        return "strides not a multiple of the item size"
    return None


#: ml_dtypes floats with a torch dtype of the same name and bits: they cross as raw bits
#: (a same-size unsigned view on each side), so memory is shared both ways
_ML_FLOATS = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


def _torch_ml_dtype(torch: Any, dtype: np.dtype) -> Any:
    """The torch dtype of an ml_dtypes float (bfloat16, float8), or None."""
    if is_ml_float(dtype) and dtype.name in _ML_FLOATS:
        return getattr(torch, dtype.name, None)
    return None


def _ml_dtypes_module() -> Any:
    """ml_dtypes when installed (it comes with JAX), else None."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes


def _torch_supports(dtype: np.dtype) -> bool:
    if dtype.kind in "biu":
        return dtype.itemsize <= 8
    if dtype.kind == "f":
        return dtype.itemsize in (2, 4, 8)
    return dtype.kind == "c" and dtype.itemsize in (8, 16)


def to_torch(obj: Any, *, strict: bool = False, report: bool = False) -> Any:
    """Convert every NumPy / CuPy array inside ``obj`` to a ``torch.Tensor``.

    ``obj`` may be an array, a ``Data`` / ``Batch`` (a new object of the same class comes
    back, a batch keeps its slice records), or a dict / list / tuple of those. NumPy arrays
    become CPU tensors sharing their memory; CuPy arrays become CUDA tensors on the same
    device via DLPack. An array that cannot be shared safely is copied and the copy listed
    in the report (``strict=True`` raises :class:`HandoffCopyError` instead). With
    ``report=True`` the result is ``(converted, HandoffReport)``.

    >>> import numpy as np
    >>> from arraygnn.interop import to_torch
    >>> t = to_torch({"x": np.ones((2, 2), np.float32)})["x"]
    >>> t.dtype, tuple(t.shape)
    (torch.float32, (2, 2))
    """
    torch = import_torch()
    rep = HandoffReport("torch")

    def leaf(a: Any, path: str) -> Any:
        if isinstance(a, np.ndarray):
            ml = _torch_ml_dtype(torch, a.dtype)
            if ml is None and not _torch_supports(a.dtype):
                rep.kept[path] = f"dtype {a.dtype} has no torch equivalent"
                return a
            reason = _numpy_copy_reason(a)
            if a.size == 0:  # no memory to share or copy: a fresh empty tensor
                reason, src = None, np.empty(a.shape, a.dtype.newbyteorder("="))
            elif reason is not None:
                need_copy(rep, path, reason, strict)
                src = np.array(a, dtype=a.dtype.newbyteorder("="), order="C", copy=True)
            else:
                src = a
            if ml is not None:  # bfloat16 / float8: the same bits, seen as unsigned ints
                out = torch.from_numpy(src.view(f"u{a.dtype.itemsize}")).view(ml)
            else:
                out = torch.from_numpy(src)
            check_shared(rep, path, a, out, strict, expect_copy=reason is not None)
            return out
        # CuPy array: DLPack keeps it on its GPU without a copy
        if a.dtype.kind not in "biufc":
            rep.kept[path] = f"dtype {a.dtype} has no torch equivalent"
            return a
        src = a
        reason = None
        if any(s < 0 for s in a.strides):
            reason = "negative strides (PyTorch has none)"
            need_copy(rep, path, reason, strict)
            src = a.copy()
        out = torch.from_dlpack(src)
        check_shared(rep, path, a, out, strict, expect_copy=reason is not None)
        return out

    def is_leaf(v: Any) -> bool:
        return isinstance(v, np.ndarray) or is_cupy_array(v)

    def record(rec: Any, value: Any) -> Any:
        # a Batch's increments follow its values: same framework, dtype and device
        if not isinstance(value, torch.Tensor):
            return rec
        if not isinstance(rec, torch.Tensor):
            rec = torch.from_numpy(np.ascontiguousarray(host_record(rec)))
        return rec.to(device=value.device, dtype=value.dtype)

    out = convert_structure(obj, is_leaf, leaf, report=rep, convert_record=record)
    return finish(out, rep, report)


#: names of the torch dtypes with a NumPy equivalent (others are kept as tensors)
_NUMPY_DTYPE_NAMES = (
    "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip


def _kept_reason(torch: Any, t: Any) -> str | None:
    """Why :func:`from_torch` keeps tensor ``t`` as it is (NumPy / CuPy cannot hold it),
    or None when it converts it."""
    if t.is_nested:
        return "nested tensor (only dense tensors are converted)"
    if t.layout != torch.strided:
        return f"layout {t.layout} (only dense tensors are converted)"
    name = str(t.dtype).removeprefix("torch.")
    ml = name in _ML_FLOATS and t.device.type == "cpu"
    if name not in _NUMPY_DTYPE_NAMES and not (ml and hasattr(_ml_dtypes_module(), name)):
        # complex32, quantized, bits (bfloat16 / float8 without ml_dtypes, or on the
        # GPU: CuPy has no such dtype): NumPy cannot hold them
        return f"dtype {t.dtype} has no NumPy equivalent"
    if t.device.type not in ("cpu", "cuda"):
        return f"device {t.device} (only cpu and cuda are converted)"
    return None


def numpy_can_hold(t: Any) -> bool:
    """Whether :func:`from_torch` converts tensor ``t`` (rather than keep it)."""
    return _kept_reason(import_torch(), t) is None


def from_torch(obj: Any, *, strict: bool = False, report: bool = False) -> Any:
    """Convert every ``torch.Tensor`` inside ``obj`` back to NumPy (CPU) or CuPy (CUDA).

    CPU tensors become NumPy arrays sharing their memory (``tensor.detach().numpy()``),
    CUDA tensors become CuPy arrays on the same device via DLPack. Tensors with a lazy
    conjugate / negation bit are resolved (a copy, reported); CPU ``bfloat16`` / float8
    tensors become ml_dtypes arrays (shared) when ml_dtypes is installed; tensors NumPy
    cannot hold (complex32, quantized, bfloat16 without ml_dtypes or on CUDA; sparse
    layouts, nested tensors, other devices) are kept and listed under ``kept``.
    Gradient tracking is dropped (``detach``). ``strict`` and ``report`` as in
    :func:`to_torch`.

    >>> import torch
    >>> from arraygnn.interop import from_torch
    >>> t = torch.arange(4)
    >>> a = from_torch(t)
    >>> type(a).__name__, a.ctypes.data == t.data_ptr()
    ('ndarray', True)
    """
    torch = import_torch()
    rep = HandoffReport("numpy")

    def leaf(t: Any, path: str) -> Any:
        why = _kept_reason(torch, t)
        if why is not None:
            rep.kept[path] = why
            return t
        name = str(t.dtype).removeprefix("torch.")
        ml = None
        if name in _ML_FLOATS and t.device.type == "cpu":
            ml = getattr(_ml_dtypes_module(), name, None)  # bfloat16 / float8 as ml_dtypes
        # detach() also unwraps tensor subclasses that wrap a plain tensor (PyG's
        # EdgeIndex / Index report data_ptr() 0). Pointers are compared with t's own
        # memory (a subclass's detach() may copy): a wrapper's data_ptr() reads 0, so its
        # wrapped tensor (PyG's as_tensor(), a view) stands in, else the detached one
        src = t.detach()
        ref = t
        if t.numel() and t.data_ptr() == 0:
            as_tensor = getattr(t, "as_tensor", None)
            ref = as_tensor() if callable(as_tensor) else src
        if ml is not None:  # the same bits, seen as unsigned ints, then as ml_dtypes
            bits = {1: torch.uint8, 2: torch.uint16}[t.element_size()]
            out = src.view(bits).numpy().view(ml)
            check_shared(rep, path, ref, out, strict, expect_copy=False)
            return out
        reason = None
        if src.is_conj() or src.is_neg():
            reason = "lazy conjugate / negation bit had to be resolved"
            need_copy(rep, path, reason, strict)
            src = src.resolve_conj().resolve_neg()
        if src.device.type == "cpu":
            out = src.numpy()
        else:  # cuda (_kept_reason keeps other devices)
            out = import_cupy().from_dlpack(src)
        check_shared(rep, path, ref, out, strict, expect_copy=reason is not None)
        return out

    def is_leaf(v: Any) -> bool:
        return isinstance(v, torch.Tensor)

    out = convert_structure(obj, is_leaf, leaf, report=rep, convert_record=record_to_numpy)
    return finish(out, rep, report)
