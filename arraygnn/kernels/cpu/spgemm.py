"""CPU sparse-sparse product in PyTorch's CPU CSR order: every symbolic entry kept, each
row's columns in order of first appearance (``a``'s row in storage order, each entry
expanding ``b``'s row in storage order), values summed in that order. Two serial passes
(count, then fill) with a per-column marker: O(products + rows + columns).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["spgemm_first_seen"]


@njit(cache=True, nogil=True)
def spgemm_first_seen(a_ptr, a_col, a_val, b_ptr, b_col, b_val, num_cols):  # pragma: no cover
    """``(indptr, indices, data)`` of ``a @ b`` (data in ``a_val``'s dtype)."""
    rows = a_ptr.shape[0] - 1
    mark = np.full(num_cols, -1, dtype=np.int64)
    indptr = np.zeros(rows + 1, dtype=np.int64)
    for i in range(rows):
        count = 0
        for jj in range(a_ptr[i], a_ptr[i + 1]):
            j = a_col[jj]
            for kk in range(b_ptr[j], b_ptr[j + 1]):
                k = b_col[kk]
                if mark[k] != i:
                    mark[k] = i
                    count += 1
        indptr[i + 1] = indptr[i] + count
    nnz = indptr[rows]
    indices = np.empty(nnz, dtype=np.int64)
    data = np.zeros(nnz, dtype=a_val.dtype)
    slot = np.full(num_cols, -1, dtype=np.int64)
    for i in range(rows):
        pos = indptr[i]
        for jj in range(a_ptr[i], a_ptr[i + 1]):
            j = a_col[jj]
            v = a_val[jj]
            for kk in range(b_ptr[j], b_ptr[j + 1]):
                k = b_col[kk]
                s = slot[k]
                if s < indptr[i]:  # first time in this row
                    s = pos
                    slot[k] = s
                    indices[s] = k
                    pos += 1
                data[s] += v * b_val[kk]
    return indptr, indices, data
