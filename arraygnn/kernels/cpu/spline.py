"""CPU B-spline kernels for ``SplineConv``: the basis and its weighting, fused, no
``[E, in, out]`` weight gathers.

The basis is ``torch_spline_conv``'s (``csrc/cpu/basis_cpu.cpp``): for edge ``e`` and each of
the ``S = (degree + 1) ** D`` products ``s`` (digit ``k_d`` of ``s`` in base ``degree + 1``,
dimension 0 the lowest), ``v_d = pseudo[e, d] * (kernel_size[d] - degree * is_open[d])``
(in the pseudo-coordinates' dtype), ``weight_index = sum_d ((int(v_d) + k_d) % kernel_size[d])
* prod_{d' < d} kernel_size[d']`` and ``basis = prod_d B_{degree, k_d}(v_d - floor(v_d))``
(each ``B`` evaluated in float64 and rounded to the dtype, as the C++ code's double literals
do). Callers guarantee ``0 <= pseudo <= 1`` and ``kernel_size >= degree`` in open dimensions,
so every index is in range.

- ``spline_basis``: ``basis`` / ``weight_index`` ``[E, S]`` (edge-parallel).
- ``spline_accumulate_csr``: for rows ``[r0, r1)`` of a destination CSR,
  ``z[r - r0, k, :] = sum_{slots j of r} sum_{s: wi = k} basis * x[indices[j]]``, so that
  ``z.reshape(rows, K * F) @ weight.reshape(K * F, M)`` is the summed message (the linear
  aggregations). Row-parallel over cost-balanced blocks; each row summed by one worker in
  slot order: the same bits on every run.
- ``spline_messages``: ``out[e] = sum_s basis[e, s] * x[src[e]] @ weight[wi[e, s]]``
  ``[E, M]`` (``max`` / ``min``), edge-parallel, the C++ weighting's order of operations.

Numba compiles each function on first use (``cache=True``); importing this module compiles
nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks

__all__ = ["spline_basis", "spline_accumulate_csr", "spline_messages"]


@njit(cache=True, nogil=True, inline="always")
def _b(v, k, degree):  # pragma: no cover - compiled
    """``B_{degree, k}(v)`` in float64 (the C++ ``Basis::forward``)."""
    if degree == 1:
        return 1.0 - v - k + 2.0 * v * k
    if degree == 2:
        if k == 0:
            return 0.5 * v * v - v + 0.5
        if k == 1:
            return -v * v + v + 0.5
        return 0.5 * v * v
    if k == 0:
        return (1.0 - v) * (1.0 - v) * (1.0 - v) / 6.0
    if k == 1:
        return (3.0 * v * v * v - 6.0 * v * v + 4.0) / 6.0
    if k == 2:
        return (-3.0 * v * v * v + 3.0 * v * v + 3.0 * v + 1.0) / 6.0
    return v * v * v / 6.0


@njit(cache=True, nogil=True)
def _edge_tables(pseudo, e, kernel_size, scale, degree, vals, cols):  # pragma: no cover
    """Fill ``vals[d, k] = B_{degree, k}(frac(v_d))`` (pseudo dtype) and ``cols[d, k]``, the
    weight-index term ``((int(v_d) + k) % kernel_size[d]) * prod_{d' < d} kernel_size[d']``."""
    offset = 1
    for d in range(kernel_size.shape[0]):
        v = pseudo[e, d] * scale[d]
        base = np.int64(v)
        frac = np.float64(v - np.floor(v))
        for k in range(degree + 1):
            vals[d, k] = _b(frac, k, degree)  # rounded to the dtype, as the C++ return
            cols[d, k] = ((base + k) % kernel_size[d]) * offset
        offset *= kernel_size[d]


@njit(cache=True, nogil=True, inline="always")
def _product(vals, cols, s, degree, one):  # pragma: no cover - compiled
    """``(basis, weight_index)`` of product ``s`` from the edge's tables."""
    k = s
    wi = 0
    b = one
    for d in range(vals.shape[0]):
        k_mod = k % (degree + 1)
        k //= degree + 1
        wi += cols[d, k_mod]
        b = b * vals[d, k_mod]
    return b, wi


@njit(cache=True, nogil=True, error_model="numpy")
def _basis_edges(pseudo, kernel_size, scale, degree, basis, index, e0, e1):  # pragma: no cover
    D = kernel_size.shape[0]
    vals = np.empty((D, degree + 1), dtype=basis.dtype)
    cols = np.empty((D, degree + 1), dtype=np.int64)
    one = basis.dtype.type(1)
    for e in range(e0, e1):
        _edge_tables(pseudo, e, kernel_size, scale, degree, vals, cols)
        for s in range(basis.shape[1]):
            b, wi = _product(vals, cols, s, degree, one)
            basis[e, s] = b
            index[e, s] = wi


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _basis_kernel(pseudo, kernel_size, scale, degree, basis, index, nblocks):  # pragma: no cover
    E = pseudo.shape[0]
    for blk in prange(nblocks):
        _basis_edges(pseudo, kernel_size, scale, degree, basis, index,
                     E * blk // nblocks, E * (blk + 1) // nblocks)  # fmt: skip


@njit(cache=True, nogil=True, error_model="numpy")
def _accumulate_rows(indptr, indices, perm, x, pseudo, kernel_size, scale, degree, z, r0, r1):
    # pragma: no cover - compiled
    D = kernel_size.shape[0]
    S = (degree + 1) ** D
    F = x.shape[1]
    vals = np.empty((D, degree + 1), dtype=z.dtype)
    cols = np.empty((D, degree + 1), dtype=np.int64)
    one = z.dtype.type(1)
    for r in range(r0, r1):
        row = z[r]
        row[:] = 0
        for j in range(indptr[r], indptr[r + 1]):
            u = indices[j]
            e = j if perm is None else perm[j]
            _edge_tables(pseudo, e, kernel_size, scale, degree, vals, cols)
            for s in range(S):
                b, wi = _product(vals, cols, s, degree, one)
                for f in range(F):
                    row[wi, f] += b * x[u, f]


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _accumulate_kernel(indptr, indices, perm, x, pseudo, kernel_size, scale, degree, z, nblocks):
    # pragma: no cover - compiled
    for blk in prange(nblocks):
        r0 = block_rows(indptr, blk, nblocks)
        r1 = block_rows(indptr, blk + 1, nblocks)
        _accumulate_rows(indptr, indices, perm, x, pseudo, kernel_size, scale, degree, z, r0, r1)


@njit(cache=True, nogil=True, error_model="numpy")
def _message_edges(src, x, pseudo, weight, kernel_size, scale, degree, out, e0, e1):
    # pragma: no cover - compiled
    D = kernel_size.shape[0]
    S = (degree + 1) ** D
    F = x.shape[1]
    M = weight.shape[2]
    vals = np.empty((D, degree + 1), dtype=out.dtype)
    cols = np.empty((D, degree + 1), dtype=np.int64)
    one = out.dtype.type(1)
    zero = out.dtype.type(0)
    for e in range(e0, e1):
        u = src[e]
        _edge_tables(pseudo, e, kernel_size, scale, degree, vals, cols)
        for m in range(M):
            out[e, m] = zero
        for s in range(S):
            b, wi = _product(vals, cols, s, degree, one)
            for f in range(F):
                xb = b * x[u, f]
                for m in range(M):
                    out[e, m] += weight[wi, f, m] * xb


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _message_kernel(src, x, pseudo, weight, kernel_size, scale, degree, out, nblocks):
    # pragma: no cover - compiled
    E = src.shape[0]
    for blk in prange(nblocks):
        _message_edges(src, x, pseudo, weight, kernel_size, scale, degree, out,
                       E * blk // nblocks, E * (blk + 1) // nblocks)  # fmt: skip


def _scale(kernel_size: Any, is_open: Any, degree: int, dtype: Any) -> Any:
    """``kernel_size - degree * is_open`` in the pseudo-coordinates' dtype (the C++ cast)."""
    ks = np.asarray(kernel_size, dtype=np.int64)
    return (ks - degree * np.asarray(is_open, dtype=np.int64)).astype(dtype)


def spline_basis(
    pseudo: Any, kernel_size: Any, is_open: Any, degree: int, basis: Any, index: Any
) -> tuple[Any, Any]:
    """Fill ``basis`` ``[E, S]`` (pseudo's dtype) and ``index`` ``[E, S]`` (int64); see the
    module docstring. ``kernel_size`` int64 ``[D]``, ``is_open`` ``[D]`` (0 / 1)."""
    ks = np.ascontiguousarray(kernel_size, dtype=np.int64)
    scale = _scale(ks, is_open, degree, pseudo.dtype)
    args = (pseudo, ks, scale, int(degree), basis, index)
    E = pseudo.shape[0]
    if basis.size * ks.shape[0] <= SERIAL_WORK:
        _basis_edges(*args, 0, E)
    elif E:
        _basis_kernel(*args, num_blocks(E))
    return basis, index


def spline_accumulate_csr(
    indptr: Any,
    indices: Any,
    perm: Any,
    x: Any,
    pseudo: Any,
    kernel_size: Any,
    is_open: Any,
    degree: int,
    z: Any,
) -> Any:
    """Fill ``z`` ``[rows, K, F]`` for the rows of ``indptr`` (a slice ``indptr[r0:r1 + 1]``
    of a destination CSR is fine); ``pseudo`` in edge order (``perm[j]`` is slot ``j``'s
    edge, ``None`` for slot order), ``x`` / ``pseudo`` / ``z`` of one dtype."""
    ks = np.ascontiguousarray(kernel_size, dtype=np.int64)
    scale = _scale(ks, is_open, degree, pseudo.dtype)
    rows = indptr.shape[0] - 1
    args = (indptr, indices, perm, x, pseudo, ks, scale, int(degree), z)
    work = (int(indptr[-1]) - int(indptr[0])) * (degree + 1) ** ks.shape[0] * x.shape[1]
    if work <= SERIAL_WORK:
        _accumulate_rows(*args, 0, rows)
    else:
        _accumulate_kernel(*args, num_blocks(rows))
    return z


def spline_messages(
    src: Any,
    x: Any,
    pseudo: Any,
    weight: Any,
    kernel_size: Any,
    is_open: Any,
    degree: int,
    out: Any,
) -> Any:
    """Fill ``out`` ``[E, M]`` with every edge's message (edge order); ``weight``
    ``[K, F, M]``, all arrays of ``out``'s dtype but ``src``."""
    ks = np.ascontiguousarray(kernel_size, dtype=np.int64)
    scale = _scale(ks, is_open, degree, pseudo.dtype)
    args = (src, x, pseudo, weight, ks, scale, int(degree), out)
    E = src.shape[0]
    if out.size * x.shape[1] * (degree + 1) ** ks.shape[0] <= SERIAL_WORK:
        _message_edges(*args, 0, E)
    elif E:
        _message_kernel(*args, num_blocks(E))
    return out
