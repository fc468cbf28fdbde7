"""Per-row matrix products with gathered weights: DGL's ``gather_mm`` and ``segment_mm``.

- :func:`gather_mm` ``(a, b, *, idx_b)``: ``out[i] = a[i] @ b[idx_b[i]]`` — a different
  ``[K, M]`` matrix per row, picked by index, without gathering ``b`` into an ``[N, K, M]``
  array (Numba kernels on CPU and GPU; deterministic: one worker per output row, ``k``
  summed in ascending order, products rounded before they are added).
- :func:`segment_mm` ``(a, b, seglen_a)``: consecutive row segments times their own
  matrix, ``out[s_r:s_r+1] = a[s_r:s_r+1] @ b[r]`` (one BLAS product per segment).

Typical uses: a relation's weight per edge (DGL's ``TypedLinear``), and the
edge-conditioned convolution (``arraygnn.nn.NNConv`` contracts each edge's hidden vector
with a per-source matrix).

>>> import numpy as np
>>> a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> b = np.stack([np.eye(2), 10 * np.eye(2)])
>>> gather_mm(a, b, idx_b=np.array([1, 0, 1])).tolist()
[[10.0, 20.0], [3.0, 4.0], [50.0, 60.0]]
>>> segment_mm(a, b, np.array([1, 2])).tolist()
[[1.0, 2.0], [30.0, 40.0], [50.0, 60.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.ops._common import (
    check_index,
    check_values,
    kernel_function,
    kernel_index,
    namespace,
)

__all__ = ["gather_mm", "segment_mm"]


def _check_operands(where: str, a: Any, b: Any) -> np.dtype:
    check_values("a", a, floats_only=True)
    check_values("b", b, floats_only=True)
    if a.ndim != 2:
        raise ValueError(f"{where}: a must be [N, K], got shape {tuple(a.shape)}")
    if b.ndim != 3:
        raise ValueError(f"{where}: b must be [R, K, M], got shape {tuple(b.shape)}")
    if int(a.shape[1]) != int(b.shape[1]):
        raise ValueError(
            f"{where}: a has {a.shape[1]} columns but b's matrices have {b.shape[1]} rows "
            f"(a {tuple(a.shape)}, b {tuple(b.shape)})"
        )
    return np.result_type(a.dtype, b.dtype)


def gather_mm(a: Any, b: Any, *, idx_b: Any) -> Any:
    """``out[i] = a[i] @ b[idx_b[i]]``.

    Shapes: ``a`` [N, K] float, ``b`` [R, K, M] float, ``idx_b`` [N] int32 / int64 in
    ``[0, R)`` -> [N, M] in ``result_type(a, b)`` on the inputs' device (float16 summed in
    float32). Each output element sums its ``K`` products in ascending ``k``: the same bits
    on every run, thread count and device (CUDA rounds each product on its own, as the CPU
    does; an H200 run agreed bit for bit). Rows that share an index reuse ``b[idx]`` from
    cache when they are adjacent.
    """
    dtype = _check_operands("gather_mm", a, b)
    xp = namespace(a=a, b=b, idx_b=idx_b)
    check_index("idx_b", idx_b, int(b.shape[0]))
    num = int(a.shape[0])
    if int(idx_b.shape[0]) != num:
        raise ValueError(
            f"gather_mm: idx_b has {idx_b.shape[0]} entries but a has {num} rows (one index "
            "per row of a)"
        )
    work = np.dtype(np.float32) if dtype == np.float16 else dtype
    out = xp.empty((num, int(b.shape[2])), dtype=work)
    if out.size == 0 or int(a.shape[1]) == 0:
        out[...] = 0  # no entries, or K == 0: every sum is empty
        return out.astype(dtype, copy=False)
    on_kernel = work in (np.dtype(np.float32), np.dtype(np.float64))
    kernel = kernel_function(xp, "gather_mm", "gather_mm_rows", on_kernel)
    kernel(
        xp.ascontiguousarray(a, dtype=work),
        xp.ascontiguousarray(b, dtype=work),
        kernel_index(xp, idx_b),
        out,
    )
    return out.astype(dtype, copy=False)


def segment_mm(a: Any, b: Any, seglen_a: Any) -> Any:
    """``out[s_r:s_r + n_r] = a[s_r:s_r + n_r] @ b[r]`` for consecutive segments of
    ``n_r = seglen_a[r]`` rows (DGL's ``segment_mm``).

    Shapes: ``a`` [N, K], ``b`` [R, K, M], ``seglen_a`` [R] non-negative integers summing to
    ``N`` (a host read of ``R`` numbers) -> [N, M] in ``result_type(a, b)``. One matrix
    product per non-empty segment (NumPy's / CuPy's BLAS; NumPy sums float16 in float32).
    """
    dtype = _check_operands("segment_mm", a, b)
    xp = namespace(a=a, b=b, seglen_a=seglen_a)
    if getattr(seglen_a, "dtype", np.dtype(np.float64)).kind not in "iu":
        raise TypeError(f"segment_mm: seglen_a must hold integers, got {seglen_a!r:.60}")
    if seglen_a.ndim != 1:
        raise ValueError(f"segment_mm: seglen_a must be 1-D, got shape {tuple(seglen_a.shape)}")
    lengths = np.asarray(to_numpy(seglen_a)).tolist()  # Python ints: no wrap, no overflow
    if len(lengths) != int(b.shape[0]):
        raise ValueError(
            f"segment_mm: seglen_a has {len(lengths)} entries but b has {b.shape[0]} "
            "matrices (one segment per matrix)"
        )
    if lengths and min(lengths) < 0:
        raise ValueError(f"segment_mm: seglen_a has a negative length {min(lengths)}")
    if sum(lengths) != int(a.shape[0]):
        raise ValueError(f"segment_mm: seglen_a sums to {sum(lengths)} but a has {a.shape[0]} rows")
    out = xp.zeros((int(a.shape[0]), int(b.shape[2])), dtype=dtype)
    start = 0
    for r, n in enumerate(lengths):
        if n:
            out[start : start + n] = xp.matmul(a[start : start + n], b[r])
        start += n
    return out
