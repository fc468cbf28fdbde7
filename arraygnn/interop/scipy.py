"""SciPy sparse matrices <-> edge lists, ``Data``-style arrays and :class:`~arraygnn.graph.Graph`.

Two faces, with the names and meanings their users know:

- PyG: :func:`to_scipy_sparse_matrix` (``edge_index`` [2, E] -> ``coo_matrix``) and
  :func:`from_scipy_sparse_matrix` (any sparse matrix -> ``(edge_index, edge_weight)``).
- DGL: :func:`from_scipy` (square matrix -> homogeneous ``Graph``),
  :func:`bipartite_from_scipy` (``N x M`` matrix -> one-relation bipartite ``Graph``) and
  :func:`adj_external` (``Graph`` -> ``coo`` / ``csr`` matrix; also the method
  ``Graph.adj_external``).

RULE: rows are sources, columns destinations (``A[u, v]`` is the edge ``u -> v``), in both
      faces; ``transpose=True`` of :func:`adj_external` swaps them, as in DGL.
RULE: every stored entry is an edge: explicit zeros stay edges and duplicate entries stay
      parallel edges (nothing is summed or dropped), in the matrix's storage order
      (``A.tocoo()``'s order: row-major for CSR, column-major for CSC).
RULE: arrays stay on their device: NumPy arrays give ``scipy.sparse`` matrices, CuPy arrays
      ``cupyx.scipy.sparse`` matrices, and the ``from_*`` functions take both (CuPy results
      for cupyx input). cupyx holds only bool / float32 / float64 / complex values and
      int32 indices.
RULE: results own their arrays (copies); editing them never changes the input.

>>> import numpy as np
>>> from arraygnn.interop.scipy import from_scipy_sparse_matrix, to_scipy_sparse_matrix
>>> edge_index = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
>>> A = to_scipy_sparse_matrix(edge_index, num_nodes=4)
>>> A.shape, A.nnz, A.dtype
((4, 4), 4, dtype('float32'))
>>> ei, w = from_scipy_sparse_matrix(A)
>>> ei.tolist(), w.tolist()
([[0, 1, 1, 2], [1, 0, 2, 1]], [1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy, torch_hint
from arraygnn.ops._common import check_size

__all__ = [
    "to_scipy_sparse_matrix",
    "from_scipy_sparse_matrix",
    "from_scipy",
    "bipartite_from_scipy",
    "adj_external",
]

_INT32_MAX = int(np.iinfo(np.int32).max)
#: value dtypes a cupyx.scipy.sparse matrix can hold
_CUPYX_DTYPES = (np.bool_, np.float32, np.float64, np.complex64, np.complex128)


# ---------------------------------------------------------------------- helpers
def _sparse_module(xp: ModuleType) -> ModuleType:
    """``scipy.sparse`` for NumPy, ``cupyx.scipy.sparse`` for CuPy."""
    if xp is np:
        import scipy.sparse

        return scipy.sparse
    import cupyx.scipy.sparse  # CuPy is imported already: xp is cupy

    return cupyx.scipy.sparse


def _input_matrix(A: Any, where: str) -> tuple[ModuleType, Any]:
    """``(xp, A.tocoo())`` for a 2-D SciPy or cupyx sparse matrix / array, else raise."""
    cupyx_sparse = sys.modules.get("cupyx.scipy.sparse")
    if cupyx_sparse is not None and cupyx_sparse.issparse(A):
        xp = sys.modules["cupy"]
    else:
        import scipy.sparse

        if not scipy.sparse.issparse(A):
            hint = "; for a dense array use scipy.sparse.coo_matrix(a)" if is_array(A) else ""
            raise TypeError(
                f"{where} must be a scipy.sparse (or cupyx.scipy.sparse) matrix or array, "
                f"got {type(A).__name__}{hint}{torch_hint(A)}"
            )
        xp = np
    if len(A.shape) != 2:
        raise ValueError(f"{where} must be 2-D, got shape {tuple(A.shape)}")
    return xp, A.tocoo()


def _coo_rows_cols(coo: Any) -> tuple[Any, Any]:
    # SciPy's sparse arrays name them ``coords``; ``row`` / ``col`` exist for 2-D ones too
    return coo.row, coo.col


def _check_idtype(idtype: Any, where: str) -> np.dtype:
    """``idtype`` as ``np.dtype`` int32 / int64 (``None``: int64, DGL's default).

    Accepts NumPy dtypes, their names and ``torch.int32`` / ``torch.int64`` (by name; torch is
    not imported)."""
    if idtype is None:
        return np.dtype(np.int64)
    key = idtype
    if type(idtype).__module__.partition(".")[0] == "torch":
        key = str(idtype).removeprefix("torch.")
    try:
        dt = np.dtype(key)
    except TypeError:
        raise TypeError(f"{where}: idtype must be int32 or int64, got {idtype!r}") from None
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(f"{where}: idtype must be int32 or int64, got {idtype!r}")
    return dt


def _check_fits(idtype: np.dtype, counts: tuple[int, ...], where: str) -> None:
    if idtype == np.int32 and max(counts, default=0) > _INT32_MAX:
        raise ValueError(
            f"{where}: idtype int32 cannot hold {max(counts)} nodes or edges; use int64"
        )


def _check_eweight_name(name: Any, where: str) -> None:
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{where}: eweight_name must be a str or None, got {name!r}")


# ---------------------------------------------------------------------- PyG face
def to_scipy_sparse_matrix(
    edge_index: Any, edge_attr: Any = None, num_nodes: int | None = None
) -> Any:
    """The ``num_nodes x num_nodes`` COO matrix with ``A[edge_index[0], edge_index[1]] =
    edge_attr`` (PyG's function).

    ``edge_attr`` is one value per edge (shape ``[E]`` or ``[E, 1]``); ``None`` gives
    float32 ones, as PyG. Parallel edges stay duplicate entries (SciPy sums them only when
    converting, e.g. ``.tocsr()``). ``num_nodes=None`` uses PyG's rule, the largest id + 1
    (``0`` without edges): pass ``num_nodes`` to keep trailing isolated nodes (and, on
    CuPy, to save the device sync that learns the maximum).

    NumPy arrays give a ``scipy.sparse.coo_matrix``, CuPy arrays a
    ``cupyx.scipy.sparse.coo_matrix`` on the same device (float32 / float64 / bool /
    complex values only; cast an integer ``edge_attr`` first). The matrix owns its arrays.

    >>> import numpy as np
    >>> A = to_scipy_sparse_matrix(np.array([[0, 0], [1, 1]]), np.array([2.0, 3.0]), 3)
    >>> A.toarray()
    array([[0., 5., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    """
    where = "to_scipy_sparse_matrix"
    if not is_array(edge_index):
        raise TypeError(
            f"{where}: edge_index must be a NumPy or CuPy integer array of shape [2, E], "
            f"got {type(edge_index).__name__}{torch_hint(edge_index)}"
        )
    if edge_index.dtype.kind not in "iu":
        raise TypeError(f"{where}: edge_index must hold integers, got dtype {edge_index.dtype}")
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(
            f"{where}: edge_index must have shape [2, E], got {list(edge_index.shape)}"
        )
    if edge_attr is not None and not is_array(edge_attr):
        raise TypeError(
            f"{where}: edge_attr must be a NumPy or CuPy array or None, "
            f"got {type(edge_attr).__name__}{torch_hint(edge_attr)}"
        )
    try:
        xp = get_namespace(edge_index, edge_attr)
    except TypeError:
        raise TypeError(
            f"{where}: edge_index and edge_attr mix NumPy and CuPy arrays; move them to one "
            "device first"
        ) from None
    if num_nodes is not None:
        num_nodes = check_size(f"{where}: num_nodes", num_nodes)
    num_edges = int(edge_index.shape[1])
    hi = -1
    if num_edges:
        lo, hi = (int(v) for v in to_numpy(xp.stack([edge_index.min(), edge_index.max()])))
        if lo < 0:
            raise ValueError(f"{where}: edge_index holds a negative node id ({lo})")
        if num_nodes is not None and hi >= num_nodes:
            raise ValueError(
                f"{where}: edge_index holds node id {hi}, outside [0, {num_nodes}) "
                f"(num_nodes={num_nodes})"
            )
    n = hi + 1 if num_nodes is None else num_nodes
    if edge_attr is None:
        data = xp.ones(num_edges, dtype=np.float32)
    else:
        if edge_attr.ndim == 0 or edge_attr.shape[0] != num_edges or edge_attr.size != num_edges:
            raise ValueError(
                f"{where}: edge_attr must hold one value per edge (shape [E] or [E, 1] with "
                f"E={num_edges}), got shape {list(edge_attr.shape)}"
            )
        data = edge_attr.reshape(-1)
    if xp is not np:
        if data.dtype not in _CUPYX_DTYPES:
            raise TypeError(
                f"{where}: cupyx.scipy.sparse holds bool, float32, float64, complex64 or "
                f"complex128 values; edge_attr has dtype {data.dtype} (cast it first)"
            )
        if n > _INT32_MAX:
            raise ValueError(
                f"{where}: cupyx.scipy.sparse indexes with int32; {n} nodes is too many"
            )
    sparse = _sparse_module(xp)
    return sparse.coo_matrix((data, (edge_index[0], edge_index[1])), shape=(n, n), copy=True)


def from_scipy_sparse_matrix(A: Any) -> tuple[Any, Any]:
    """``(edge_index, edge_weight)`` of a sparse matrix (PyG's function).

    ``A`` is any ``scipy.sparse`` matrix or sparse array (or a ``cupyx.scipy.sparse``
    matrix: CuPy results). As PyG, it goes through ``A.tocoo()``: every stored entry is an
    edge ``row -> col``, explicit zeros and duplicate entries included (call
    ``A.eliminate_zeros()`` / ``A.sum_duplicates()`` first to drop them), in the storage
    order. ``edge_index`` is int64 ``[2, nnz]``; ``edge_weight`` is a copy of the stored
    values, of their dtype. A non-square matrix is accepted (a bipartite edge list).

    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix(([5.0, 0.0], ([1, 0], [0, 2])), shape=(3, 3))  # explicit 0 kept
    >>> ei, w = from_scipy_sparse_matrix(A)
    >>> ei.tolist(), w.tolist(), ei.dtype
    ([[0, 1], [2, 0]], [0.0, 5.0], dtype('int64'))
    """
    xp, coo = _input_matrix(A, "from_scipy_sparse_matrix: A")
    row, col = _coo_rows_cols(coo)
    edge_index = xp.stack([row.astype(np.int64), col.astype(np.int64)])
    return edge_index, coo.data.copy()


# ---------------------------------------------------------------------- DGL face
def from_scipy(sp_mat: Any, eweight_name: str | None = None, idtype: Any = None) -> Any:
    """A homogeneous :class:`~arraygnn.graph.Graph` from a square sparse matrix (DGL's
    ``dgl.from_scipy``).

    Each stored entry ``sp_mat[i, j]`` is an edge ``i -> j`` (rows are sources), edge ids
    in the storage order (``sp_mat.tocoo()``); explicit zeros and duplicates stay edges.
    ``eweight_name`` stores a copy of the values as ``g.edata[eweight_name]``. ``idtype``
    is ``int32`` / ``int64`` (NumPy dtypes, their names, or ``torch.int32`` / ``torch.int64``);
    ``None`` is int64, DGL's default. A non-square matrix is a ``ValueError`` (use
    :func:`bipartite_from_scipy`). cupyx input gives a graph on CuPy arrays.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> A = sp.coo_matrix(([0.2, 0.3, 0.5], ([2, 3, 4], [1, 2, 3])), shape=(5, 5))
    >>> g = from_scipy(A, eweight_name="w")
    >>> g.num_nodes(), g.edges()[0].tolist(), g.edata["w"].tolist(), g.idtype
    (5, [2, 3, 4], [0.2, 0.3, 0.5], dtype('int64'))
    """
    from arraygnn.graph.core import DEFAULT_ETYPE, DEFAULT_NTYPE, Graph

    where = "from_scipy"
    _check_eweight_name(eweight_name, where)
    dt = _check_idtype(idtype, where)
    _, coo = _input_matrix(sp_mat, f"{where}: sp_mat")
    n, m = (int(s) for s in sp_mat.shape)
    if n != m:
        raise ValueError(
            f"{where}: sp_mat must be square (rows are source and columns destination nodes "
            f"of one node set), got shape ({n}, {m}); use bipartite_from_scipy for two sets"
        )
    row, col = _coo_rows_cols(coo)
    _check_fits(dt, (n, int(row.shape[0])), where)
    canonical = (DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE)
    g = Graph({canonical: (row.astype(dt), col.astype(dt))}, {DEFAULT_NTYPE: n})
    if eweight_name is not None:
        g.edata[eweight_name] = coo.data.copy()
    return g


def bipartite_from_scipy(
    sp_mat: Any,
    utype: str,
    etype: str,
    vtype: str,
    eweight_name: str | None = None,
    idtype: Any = None,
) -> Any:
    """A uni-bipartite :class:`~arraygnn.graph.Graph` from an ``N x M`` sparse matrix (DGL's
    ``dgl.bipartite_from_scipy``): ``N`` nodes of ``utype``, ``M`` of ``vtype`` and one edge
    type ``(utype, etype, vtype)`` with an edge ``i -> j`` per stored entry ``sp_mat[i, j]``.

    Edge order, ``eweight_name`` and ``idtype`` as in :func:`from_scipy`. ``utype == vtype``
    needs a square matrix (one node set).

    >>> import scipy.sparse as sp
    >>> A = sp.coo_matrix(([1.0, 1.0], ([0, 1], [2, 0])), shape=(2, 3))
    >>> g = bipartite_from_scipy(A, "user", "plays", "game")
    >>> g.canonical_etypes, g.num_nodes("user"), g.num_nodes("game")
    ([('user', 'plays', 'game')], 2, 3)
    """
    from arraygnn.graph.core import Graph

    where = "bipartite_from_scipy"
    for name, value in (("utype", utype), ("etype", etype), ("vtype", vtype)):
        if not isinstance(value, str):
            raise TypeError(f"{where}: {name} must be a str, got {value!r}")
    _check_eweight_name(eweight_name, where)
    dt = _check_idtype(idtype, where)
    _, coo = _input_matrix(sp_mat, f"{where}: sp_mat")
    n, m = (int(s) for s in sp_mat.shape)
    if utype == vtype and n != m:
        raise ValueError(
            f"{where}: utype == vtype ({utype!r}) is one node set, so sp_mat must be square; "
            f"got shape ({n}, {m})"
        )
    row, col = _coo_rows_cols(coo)
    _check_fits(dt, (n, m, int(row.shape[0])), where)
    counts = {utype: n} if utype == vtype else {utype: n, vtype: m}
    g = Graph({(utype, etype, vtype): (row.astype(dt), col.astype(dt))}, counts)
    if eweight_name is not None:
        g.edata[eweight_name] = coo.data.copy()
    return g


def adj_external(
    g: Any, transpose: bool = False, *, scipy_fmt: str | None = "coo", etype: Any = None
) -> Any:
    """The adjacency matrix of edge type ``etype`` as a sparse matrix (DGL's
    ``g.adj_external(transpose, scipy_fmt=..., etype=...)``; also the method
    ``Graph.adj_external``).

    Rows are the source nodes of ``etype``'s source type and columns its destination nodes
    (shape ``(num_src_nodes, num_dst_nodes)``); ``transpose=True`` swaps them. Values are
    ones of the graph's idtype, as DGL (float32 on CuPy: cupyx holds no integers); parallel
    edges stay duplicate entries. ``scipy_fmt`` is ``"coo"`` (entries in edge-id order) or
    ``"csr"`` (rows in order, edge-id order within a row); ``None`` means ``"coo"`` (DGL
    returns a framework tensor there). A NumPy graph gives ``scipy.sparse`` matrices, a CuPy
    graph ``cupyx.scipy.sparse`` matrices on its device.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 0, 2]), np.array([1, 2, 1])), num_nodes=3)
    >>> g.adj_external(scipy_fmt="csr").toarray()
    array([[0, 1, 1],
           [0, 0, 0],
           [0, 1, 0]])
    >>> g.adj_external(transpose=True).toarray()[1].tolist()
    [1, 0, 1]
    """
    from arraygnn.graph.core import check_graph
    from arraygnn.ops.csr import sorted_segments

    check_graph("adj_external", g)
    if not isinstance(transpose, (bool, np.bool_)):
        raise TypeError(f"adj_external: transpose must be a bool, got {transpose!r}")
    fmt = "coo" if scipy_fmt is None else scipy_fmt
    if fmt not in ("coo", "csr"):
        raise ValueError(f"adj_external: scipy_fmt must be 'coo' or 'csr', got {scipy_fmt!r}")
    rel = g._rel(etype)
    s, _, d = rel.canonical
    n_src, n_dst = g._num_src[s], g._num_dst[d]
    xp = g._xp()
    row, col = (rel.dst, rel.src) if transpose else (rel.src, rel.dst)
    shape = (n_dst, n_src) if transpose else (n_src, n_dst)
    dtype = g.idtype if xp is np else np.float32
    if xp is not np and max(shape, default=0) > _INT32_MAX:
        raise ValueError("adj_external: cupyx.scipy.sparse indexes with int32; the graph is larger")
    sparse = _sparse_module(xp)
    data = xp.ones(rel.num_edges, dtype=dtype)
    if fmt == "coo":
        return sparse.coo_matrix((data, (row, col)), shape=shape, copy=True)
    indptr, perm = sorted_segments(xp, row, shape[0])  # stable: edge-id order in a row
    return sparse.csr_matrix((data, col[perm], indptr), shape=shape, copy=True)
