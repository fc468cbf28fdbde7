"""Shared checks and kernel dispatch of the public ops (private).

RULE: every public op validates its arguments here BEFORE any kernel runs (Numba does not
bounds-check) and raises ``TypeError`` / ``ValueError`` naming the argument at fault.
RULE: nothing the caller passed is modified; outputs are fresh arrays on the inputs' device.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._config import settings
from arraygnn._namespace import get_namespace, is_cupy_array

REDUCTIONS = ("sum", "mean", "max", "min", "prod")
#: PyG's other names for two of them (``torch_geometric.utils.scatter``)
REDUCE_ALIASES = {"add": "sum", "mul": "prod"}
FLOAT_KERNEL_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def namespace(**arrays: Any) -> ModuleType:
    """``numpy`` or ``cupy`` for the named arrays; mixing raises naming the arguments."""
    try:
        return get_namespace(*arrays.values())
    except TypeError:
        on_gpu = [k for k, v in arrays.items() if is_cupy_array(v)]
        on_cpu = [k for k, v in arrays.items() if isinstance(v, np.ndarray)]
        raise TypeError(
            f"arguments mix NumPy ({', '.join(on_cpu)}) and CuPy ({', '.join(on_gpu)}) arrays; "
            "move them to one device first (arraygnn.to_device)"
        ) from None


def check_array(name: str, value: Any) -> None:
    """``TypeError`` unless ``value`` is a NumPy or CuPy array (not a masked one: the
    kernels read the raw data, masked entries included)."""
    if not (isinstance(value, np.ndarray) or is_cupy_array(value)):
        raise TypeError(f"{name} must be a NumPy or CuPy array, got {type(value).__name__}")
    ma = sys.modules.get("numpy.ma")  # no masked array exists before numpy.ma is imported
    if ma is not None and isinstance(value, ma.MaskedArray):
        raise TypeError(
            f"{name} is a masked array; the ops read every entry, masked ones included: pass "
            f"{name}.filled(value) or drop the masked entries first"
        )


def check_index(name: str, index: Any, size: int | None, *, ndim: int = 1) -> None:
    """An integer array of ``ndim`` dims with every entry in ``[0, size)``."""
    check_array(name, index)
    if index.dtype.kind not in "iu" or index.dtype == np.bool_:
        raise TypeError(
            f"{name} must be an integer array (any int / uint dtype), got dtype {index.dtype}"
        )
    if index.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {tuple(index.shape)}")
    if size is None or index.size == 0:
        return
    lo, hi = index_bounds(index)
    check_bounds(name, lo, hi, size)


def check_bounds(name: str, lo: int, hi: int, size: int) -> None:
    """``ValueError`` naming ``name`` unless its entries' ``[lo, hi]`` lie in ``[0, size)``."""
    if lo < 0:
        raise ValueError(f"{name} has a negative entry ({lo}); indices must be in [0, {size})")
    if hi >= size:
        raise ValueError(f"{name} has entry {hi}, out of range for size {size}")


_BOUNDS_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))
#: shorter arrays take NumPy's two reductions unless Numba is loaded already (a kernel
#: ran): the first check in a process that has run none does not import Numba for it
BOUNDS_KERNEL_MIN_SIZE = 1 << 16


def index_bounds(index: Any) -> tuple[int, int]:
    """``(min, max)`` of a non-empty integer array as Python ints: one pass of a Numba
    kernel on a 1-D int32 / int64 NumPy array (half the reads of ``min()`` then
    ``max()``; ~0.3 us instead of ~1.7 us on 400 ids) when it has at least
    ``BOUNDS_KERNEL_MIN_SIZE`` entries or Numba is imported already, the array
    library's reductions otherwise."""
    if (
        isinstance(index, np.ndarray)
        and index.ndim == 1
        and index.dtype in _BOUNDS_DTYPES
        and (index.shape[0] >= BOUNDS_KERNEL_MIN_SIZE or "numba" in sys.modules)
    ):
        lo, hi = _one_pass_bounds()(index)
        return int(lo), int(hi)
    return int(index.min()), int(index.max())


def _one_pass_bounds() -> Callable[[Any], tuple[Any, Any]]:
    """``kernels.cpu.bounds.index_bounds``, imported on first use (it imports Numba)."""
    global _ONE_PASS_BOUNDS
    if _ONE_PASS_BOUNDS is None:
        from arraygnn.kernels.cpu.bounds import index_bounds as one_pass

        _ONE_PASS_BOUNDS = one_pass
    return _ONE_PASS_BOUNDS


_ONE_PASS_BOUNDS: Callable[[Any], tuple[Any, Any]] | None = None


def check_size(name: str, value: Any) -> int:
    """A non-negative Python int (NumPy integers accepted; bools and floats rejected)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a non-negative int, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def check_reduce(reduce: Any, allowed: tuple[str, ...] = REDUCTIONS) -> str:
    """``reduce`` as one of ``allowed``; PyG's names ``add`` / ``mul`` mean ``sum`` / ``prod``."""
    name = REDUCE_ALIASES.get(reduce, reduce) if isinstance(reduce, str) else reduce
    if name not in allowed:
        aliases = [f"{a!r} = {n!r}" for a, n in REDUCE_ALIASES.items() if n in allowed]
        also = f" (also PyG's {', '.join(aliases)})" if aliases else ""
        raise ValueError(f"reduce must be one of {', '.join(allowed)}{also}; got {reduce!r}")
    return name


class ValuesTypeError(TypeError):
    """A value argument (``x``, ``src``, ``lhs``, ...) that is not a numeric array: callers
    that pass their own features (the DGL face) re-raise it naming those features."""


def check_values(name: str, value: Any, *, floats_only: bool = False) -> None:
    """A numeric array (float, or also int when ``floats_only`` is False);
    :class:`ValuesTypeError` otherwise."""
    try:
        check_array(name, value)
    except TypeError as err:
        raise ValuesTypeError(str(err)) from None
    kinds = "f" if floats_only else "fiu"
    if value.dtype.kind not in kinds:
        what = "a floating" if floats_only else "a numeric (float or int)"
        raise ValuesTypeError(f"{name} must be {what} array, got dtype {value.dtype}")


def index_dtype_for(*sizes: int) -> np.dtype:
    """int32 when every size fits, else int64."""
    return np.dtype(np.int32) if max(sizes, default=0) < 2**31 - 1 else np.dtype(np.int64)


def kernel_index(xp: ModuleType, index: Any) -> Any:
    """``index`` as the kernels take it: C-contiguous int32 / int64 in native byte order
    (any other integer dtype or byte order becomes int64)."""
    idx = xp.ascontiguousarray(index)
    return idx if idx.dtype in (np.int32, np.int64) else idx.astype(np.int64)


def use_kernels(*values: Any) -> bool:
    """True when every value array has a dtype the compiled kernels take (in either byte
    order: :func:`compute_dtype` gives the native one the kernels run in)."""
    return all(v is None or v.dtype.newbyteorder("=") in FLOAT_KERNEL_DTYPES for v in values)


def kernel_module(xp: ModuleType, name: str) -> ModuleType:
    """``arraygnn.kernels.cpu.<name>`` for NumPy, ``arraygnn.kernels.cuda.<name>`` for CuPy.

    Imported lazily: ``import arraygnn.ops`` never imports Numba.
    """
    where = "cpu" if xp is np else "cuda"
    return importlib.import_module(f"arraygnn.kernels.{where}.{name}")


def reference_module() -> ModuleType:
    reference = sys.modules.get("arraygnn.kernels.reference")
    if reference is None or _initializing(reference):
        from arraygnn.kernels import reference
    return reference


def _initializing(module: Any) -> bool:
    """Is ``module`` (a ``sys.modules`` entry) still being imported? The test of CPython's
    ``importlib._bootstrap._find_and_load``: any object, ``__spec__`` missing or None."""
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


def native(dtype: Any) -> np.dtype:
    """``dtype`` in the machine's byte order: the dtype of every computed result (as in
    NumPy's arithmetic), so a big-endian array read from a file is converted once."""
    return np.dtype(dtype).newbyteorder("=")


def compute_dtype(xp: ModuleType, dtype: Any) -> np.dtype:
    """The dtype the kernel computes in: native byte order, and float16 goes through
    float32 on the CPU."""
    dtype = native(dtype)
    if xp is np and dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def check_against_reference(
    name: str, got: Any, expected: Any, exact: Callable[[], Any] | None = None
) -> None:
    """``settings.validate``: compare a kernel result with the reference (debugging aid).

    Floating results may differ by summation order: when they are not close, ``exact()``
    (the reference in float64) decides; the kernel passes when it is no further from it
    than a few times the reference's own rounding (a long float32 dot with cancellation
    rounds differently in any order).
    """
    xp = get_namespace(got)
    tol = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4}.get(np.dtype(got.dtype), 1e-9)
    if got.dtype.kind == "f":
        ok = bool(xp.allclose(got, expected, rtol=tol, atol=tol, equal_nan=True))
        truth = exact() if not ok and exact is not None else None
        if truth is not None:
            slack = 4 * xp.abs(expected - truth) + tol * xp.abs(truth) + tol
            ok = bool(((xp.abs(got - truth) <= slack) | (xp.isnan(got) & xp.isnan(truth))).all())
    else:
        ok = bool(xp.array_equal(got, expected))
    if not ok:
        raise AssertionError(f"arraygnn.ops.{name}: kernel result differs from the reference")


def _float64_run(ref: Callable[..., Any], args: list[Any], out_pos: int) -> Any | None:
    """The reference on float64 copies of the float arguments: its output, or ``None``
    when the output is not a float16 / float32 array."""
    out = args[out_pos]
    if getattr(out, "dtype", None) not in (np.dtype(np.float16), np.dtype(np.float32)):
        return None
    wide = [
        a.astype(np.float64) if getattr(a, "dtype", None) in _NARROW_FLOATS else a for a in args
    ]
    ref(*wide)
    return wide[out_pos]


_NARROW_FLOATS = (np.dtype(np.float16), np.dtype(np.float32))


def _serialised() -> Callable[[Any], Any]:
    """``kernels.cpu._threads.serialised``, imported on first use (it imports Numba); a
    ``from ... import`` inside ``kernel_function`` cost ~1.3 us on every kernel call."""
    global _SERIALISED
    if _SERIALISED is None:
        from arraygnn.kernels.cpu._threads import serialised

        _SERIALISED = serialised
    return _SERIALISED


_SERIALISED: Callable[[Any], Any] | None = None


def validating() -> bool:
    return bool(settings.validate)


def kernel_function(xp: ModuleType, module: str, function: str, values_ok: bool = True) -> Any:
    """The kernel ``function`` of ``module`` for the namespace ``xp``.

    Falls back to :mod:`arraygnn.kernels.reference` when the values are not of a kernel
    dtype (``values_ok`` False) or when no compiled module of that name exists for the
    device. Under ``settings.validate`` the returned callable also runs the reference on
    copies of the outputs and compares.
    """
    ref = getattr(reference_module(), function)
    if not values_ok:
        return ref
    where = "cpu" if xp is np else "cuda"
    qualified = f"arraygnn.kernels.{where}.{module}"
    mod = sys.modules.get(qualified)  # imported already: skip the import machinery,
    if mod is None or _initializing(mod):  # unless still running
        try:
            mod = importlib.import_module(qualified)
        except ModuleNotFoundError as err:
            if err.name != qualified:
                raise
            return ref
    fn = getattr(mod, function)
    if where == "cpu":
        fn = _serialised()(fn)  # one at a time under Numba's workqueue threading layer
    if not validating():
        return fn

    def checked(*args: Any) -> Any:
        out_pos = _OUT_POSITION[function]
        expected = args[out_pos].copy()
        initial = args[out_pos].copy()  # for a float64 rerun of the reference
        ref_args = list(args)
        ref_args[out_pos] = expected
        more = _MORE_OUTPUTS.get(function, ())
        for pos in more:  # the reference writes its own copies of them too
            ref_args[pos] = args[pos].copy()
        ref_result = ref(*ref_args)
        got = fn(*args)
        check_against_reference(
            function,
            args[out_pos],
            expected,
            lambda: _float64_run(ref, [*args[:out_pos], initial, *args[out_pos + 1 :]], out_pos),
        )
        for pos in more:
            check_against_reference(function, args[pos], ref_args[pos])
        if not hasattr(got, "shape") and got != ref_result:  # a count (pair_runs)
            raise AssertionError(
                f"arraygnn.ops.{function}: kernel count differs from the reference"
            )
        return got

    return checked


# position of ``out`` in each kernel's argument list (see arraygnn.kernels)
_OUT_POSITION = {
    "gather_rows": 2,
    "gather_mm_rows": 3,
    "add_rows": 0,
    "typed_spmm_csr": 6,
    "segment_csr": 3,
    "spmm_csr": 5,
    "sddmm_coo": 4,
    "sddmm_csr": 5,
    "edge_softmax_csr": 3,
    "edge_softmax_coo": 2,
    "gatv2_scores_csr": 9,
    "scatter_coo": 2,
    "csr_from_keys": 2,
    "small_csr": 4,
    "gcn_slot_weights": 5,
    "pair_runs": 3,
}
#: the other outputs of kernels that fill several (compared too)
_MORE_OUTPUTS = {"csr_from_keys": (1,), "small_csr": (2, 3, 5, 6)}
