"""Segment reductions: ``scatter`` (COO index) and ``segment`` (CSR pointer).

Reductions: ``sum``, ``mean``, ``max``, ``min``, ``prod``.

RULE: an empty segment gives 0 for every reduction (TF-GNN's ``max_no_inf`` convention),
never ``-inf`` / ``inf`` / 1.
RULE: ``mean`` is sum / max(count, 1) (integer values: floor division).
RULE: deterministic: each segment is reduced by one worker in edge order, so results are
the same bits on every run and thread count (CPU: a non-decreasing index, such as a
PyG ``batch`` vector, runs as a CSR segment reduction; otherwise an owner streams the
edges, or, for large outputs, cache-sized tiles of segments each fold their edges in
edge order; see
``arraygnn.kernels.cpu.scatter``; CUDA: the index is stably sorted into a CSR first, unless
``arraygnn.config(deterministic=False)`` allows the atomic kernel).
RULE: float16 values accumulate in float32; NaN propagates through max / min.

>>> import numpy as np
>>> scatter(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 2]), 4, reduce="mean").tolist()
[1.5, 0.0, 4.0, 0.0]
>>> segment(np.array([1.0, 2.0, 4.0]), np.array([0, 2, 2, 3]), reduce="max").tolist()
[2.0, 0.0, 4.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn._config import settings
from arraygnn.ops._common import (
    check_index,
    check_reduce,
    check_size,
    check_values,
    compute_dtype,
    kernel_function,
    kernel_index,
    namespace,
    native,
    use_kernels,
)
from arraygnn.ops.csr import sorted_segments

__all__ = ["scatter", "segment"]


def _reduce_rows(xp: Any, indptr: Any, perm: Any, src: Any, num_rows: int, reduce: str) -> Any:
    """Run ``segment_csr`` on ``src`` [M, ...] into [num_rows, ...] (src dtype)."""
    tail = tuple(src.shape[1:])
    width = math.prod(tail)
    out_dtype = native(src.dtype)
    if num_rows == 0 or width == 0:
        return xp.zeros((num_rows,) + tail, dtype=out_dtype)
    ok = use_kernels(src)
    work = compute_dtype(xp, out_dtype) if ok else out_dtype
    x3 = xp.ascontiguousarray(src).astype(work, copy=False).reshape(src.shape[0], 1, width)
    out3 = xp.empty((num_rows, 1, width), dtype=work)
    kernel_function(xp, "segment", "segment_csr", ok)(indptr, perm, x3, out3, reduce)
    return out3.astype(out_dtype, copy=False).reshape((num_rows,) + tail)


def scatter(src: Any, index: Any, dim_size: int, reduce: str = "sum") -> Any:
    """Reduce rows of ``src`` into ``dim_size`` segments chosen by ``index``.

    Shapes: ``src`` [E, ...] (float or int), ``index`` [E] int32/int64 with entries in
    ``[0, dim_size)`` -> [dim_size, ...], dtype of ``src``, on its device. ``dim_size`` is
    required (never inferred from ``index.max() + 1``). Empty segments give 0.

    >>> import numpy as np
    >>> scatter(np.ones((3, 2)), np.array([1, 1, 0]), 3).tolist()
    [[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]]
    """
    check_values("src", src)
    xp = namespace(src=src, index=index)
    reduce = check_reduce(reduce)
    dim_size = check_size("dim_size", dim_size)
    if src.ndim == 0:
        raise ValueError("src must have at least one dimension (rows), got a 0-d array")
    check_index("index", index, dim_size)
    if index.shape[0] != src.shape[0]:
        raise ValueError(
            f"index has {index.shape[0]} entries but src has {src.shape[0]} rows; they must match"
        )
    tail = tuple(src.shape[1:])
    width = math.prod(tail)
    out_dtype = native(src.dtype)
    if dim_size == 0 or width == 0:
        return xp.zeros((dim_size,) + tail, dtype=out_dtype)
    ok = use_kernels(src)
    work = compute_dtype(xp, out_dtype) if ok else out_dtype
    if xp is np or (not settings.deterministic and _atomic_route(reduce, work)):
        # CPU: deterministic COO kernels (owner / tiled / sorted); CUDA: atomic kernel,
        # only when the caller allowed non-deterministic results (sum / mean / max / min
        # on float32 / float64; anything else stays on the deterministic route)
        x3 = xp.ascontiguousarray(src).astype(work, copy=False).reshape(src.shape[0], 1, width)
        idx = kernel_index(xp, index)
        out3 = xp.empty((dim_size, 1, width), dtype=work)
        kernel_function(xp, "scatter", "scatter_coo", ok)(idx, x3, out3, reduce)
        return out3.astype(out_dtype, copy=False).reshape((dim_size,) + tail)
    indptr, perm = sorted_segments(xp, index, dim_size)
    return _reduce_rows(xp, indptr, perm, src, dim_size, reduce)


def _atomic_route(reduce: str, dtype: np.dtype) -> bool:
    """Whether the CUDA atomic kernel computes this reduction in this dtype."""
    from arraygnn.kernels.cuda.scatter import ATOMIC_DTYPES, ATOMIC_REDUCES

    return reduce in ATOMIC_REDUCES and np.dtype(dtype) in ATOMIC_DTYPES


def segment(src: Any, ptr: Any, reduce: str = "sum") -> Any:
    """Reduce ``src[ptr[i]:ptr[i+1]]`` for each of the ``S = len(ptr) - 1`` segments.

    Shapes: ``src`` [E, ...], ``ptr`` [S+1] int32/int64, non-decreasing, with
    ``0 <= ptr[0]`` and ``ptr[-1] <= E`` -> [S, ...]. Empty segments give 0.

    >>> import numpy as np
    >>> segment(np.arange(4.0), np.array([0, 1, 4]), reduce="sum").tolist()
    [0.0, 6.0]
    """
    check_values("src", src)
    xp = namespace(src=src, ptr=ptr)
    reduce = check_reduce(reduce)
    if src.ndim == 0:
        raise ValueError("src must have at least one dimension (rows), got a 0-d array")
    check_index("ptr", ptr, None)
    if ptr.shape[0] < 1:
        raise ValueError("ptr must have at least one entry (S + 1 for S segments)")
    num = int(src.shape[0])
    if int(ptr[0]) < 0 or int(ptr[-1]) > num:
        raise ValueError(
            f"ptr must satisfy 0 <= ptr[0] and ptr[-1] <= len(src) = {num}; "
            f"got ptr[0]={int(ptr[0])}, ptr[-1]={int(ptr[-1])}"
        )
    if ptr.shape[0] > 1 and not bool((ptr[1:] >= ptr[:-1]).all()):
        raise ValueError("ptr must be non-decreasing")
    return _reduce_rows(xp, kernel_index(xp, ptr), None, src, int(ptr.shape[0]) - 1, reduce)
