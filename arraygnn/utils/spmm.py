"""PyG's ``torch_geometric.utils.spmm``: a sparse matrix times a dense one, with a
reduction, on SciPy / cupyx sparse matrices or an :class:`arraygnn.ops.CSR`.

``out[i] = reduce over the stored entries (i, j) of A[i, j] * other[j]``, by the fused
:func:`arraygnn.ops.spmm` kernel (no [nnz, F] products formed). A row without entries gives
0 for every reduction (as PyG); ``'mean'`` divides by the number of stored entries.

>>> import numpy as np, scipy.sparse as sp
>>> a = sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0]]))
>>> spmm(a, np.array([[1.0], [10.0]])).ravel().tolist()
[20.0, 1.0]
"""

from __future__ import annotations

import sys
from typing import Any

from arraygnn import ops
from arraygnn.ops.csr import CSR
from arraygnn.utils._checks import check_numeric, same_device

__all__ = ["spmm"]

_REDUCES = ("sum", "mean", "min", "max")


def spmm(src: Any, other: Any, reduce: str = "sum") -> Any:
    """``src @ other`` with ``reduce`` ``'sum'`` (or ``'add'``), ``'mean'``, ``'min'`` or
    ``'max'`` (PyG's ``spmm``; any other is a ``ValueError``, as PyG).

    ``src``: a 2-D SciPy (or cupyx) sparse matrix / array [M, N] (explicitly stored zeros
    take part, as in PyG; a COO matrix's repeated entries are summed into one first, as
    PyG coalesces a COO tensor, while a CSR / CSC's count apart, as torch's), or a
    :class:`~arraygnn.ops.CSR` of edges ``s -> t`` read as the 0/1 matrix ``A[t, s]``
    ([num_dst_nodes, num_src_nodes], a GNN's aggregation); ``other`` [N, ...] numeric on
    ``src``'s device. Returns [M, ...] in ``result_type(A, other)``.

    >>> import numpy as np
    >>> from arraygnn.ops import to_csr
    >>> csr = to_csr(np.array([[0, 1], [1, 1]]), 2, 2)
    >>> spmm(csr, np.array([[3.0], [5.0]]), reduce="max").ravel().tolist()
    [0.0, 5.0]
    """
    where = "spmm"
    reduce = "sum" if reduce == "add" else reduce
    if reduce not in _REDUCES:
        raise ValueError(
            f"{where}: reduce {reduce!r} not supported (one of 'sum', 'add', 'mean', 'min', 'max')"
        )
    check_numeric(where, "other", other)
    if other.ndim == 0:
        raise ValueError(f"{where}: other must have at least one dimension")
    if isinstance(src, CSR):
        if int(other.shape[0]) != src.num_src_nodes:
            raise ValueError(
                f"{where}: other has {int(other.shape[0])} rows, src has "
                f"{src.num_src_nodes} columns (sources)"
            )
        return ops.spmm(src, other, reduce=reduce)
    coo = _coo(where, src)
    if reduce != "sum" and src.format == "coo" and not coo.has_canonical_format:
        # PyG coalesces a COO tensor first: repeated (i, j) entries are one, their sum
        coo = coo.copy()  # (sum_duplicates works in place: the input stays as it is)
        coo.sum_duplicates()
    if coo.data.dtype.kind not in "fiu":
        raise TypeError(
            f"{where}: src must hold numbers (float or int), got dtype {coo.data.dtype}"
        )
    m, n = (int(s) for s in src.shape)
    if int(other.shape[0]) != n:
        raise ValueError(f"{where}: other has {int(other.shape[0])} rows, src has {n} columns")
    xp = same_device(where, src=coo.data, other=other)
    edge_index = xp.stack([coo.col.astype("int64"), coo.row.astype("int64")])
    return ops.spmm(edge_index, other, coo.data, reduce=reduce, num_dst_nodes=m)


def _coo(where: str, src: Any) -> Any:
    cupyx_sparse = sys.modules.get("cupyx.scipy.sparse")
    import scipy.sparse

    if not (
        scipy.sparse.issparse(src) or (cupyx_sparse is not None and cupyx_sparse.issparse(src))
    ):
        raise TypeError(
            f"{where}: src must be a scipy.sparse (or cupyx.scipy.sparse) matrix or an "
            f"arraygnn.ops.CSR, got {type(src).__name__}"
        )
    if len(src.shape) != 2:
        raise ValueError(f"{where}: src must be 2-D, got shape {tuple(src.shape)}")
    return src.tocoo()
