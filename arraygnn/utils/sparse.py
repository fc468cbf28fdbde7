"""PyG's ``to_edge_index``: ``(edge_index, edge_weight)`` of a sparse adjacency matrix.

PyG takes torch sparse tensors, and so does this (``sparse_coo`` / ``sparse_csr`` /
``sparse_csc``: NumPy results for a CPU tensor, CuPy for a CUDA one, through
:func:`arraygnn.interop.torch_sparse.from_torch_sparse`); and the sparse matrices of the
array world: any ``scipy.sparse`` matrix or array (NumPy results), or a
``cupyx.scipy.sparse`` matrix (CuPy results). The storage order is kept, as PyG: a COO
matrix's entries as stored (PyG marks a COO tensor coalesced without sorting it), CSR row
by row, CSC column by column. Every stored
entry is an edge ``row -> col``, explicit zeros and duplicates included. It is
:func:`arraygnn.interop.scipy.from_scipy_sparse_matrix` under PyG's newer name.

>>> import scipy.sparse as sp
>>> ei, w = to_edge_index(sp.csc_matrix(([1.0, 2.0], ([1, 0], [0, 1])), shape=(2, 2)))
>>> ei.tolist(), w.tolist()
([[1, 0], [0, 1]], [1.0, 2.0])
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import is_torch_tensor
from arraygnn.interop.scipy import from_scipy_sparse_matrix

__all__ = ["to_edge_index"]


def to_edge_index(adj: Any) -> tuple[Any, Any]:
    """``(edge_index [2, nnz] int64, edge_weight [nnz])`` of the sparse matrix ``adj``: a
    copy of the stored values (their dtype) and their int64 row / column ids, in storage
    order. A torch sparse tensor gives its values and (COO) indices without a copy, as PyG
    (see :func:`~arraygnn.interop.torch_sparse.from_torch_sparse`). A ``TypeError`` names
    anything that is not a SciPy / cupyx sparse matrix or a torch sparse tensor.

    >>> import scipy.sparse as sp
    >>> ei, w = to_edge_index(sp.csr_matrix(([3, 4], ([1, 0], [0, 2])), shape=(2, 3)))
    >>> ei.tolist(), w.tolist()
    ([[0, 1], [2, 0]], [4, 3])
    """
    if is_torch_tensor(adj):
        from arraygnn.interop.torch_sparse import from_torch_sparse

        return from_torch_sparse(adj, where="to_edge_index")
    try:
        return from_scipy_sparse_matrix(adj)
    except (TypeError, ValueError) as err:
        message = str(err).replace("from_scipy_sparse_matrix: A", "to_edge_index: adj")
        raise type(err)(message) from None
