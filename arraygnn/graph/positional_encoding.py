"""Positional encodings and spectral helpers of a homogeneous :class:`Graph` (DGL's
``dgl.lap_pe`` / ``laplacian_pe``, ``random_walk_pe`` and ``laplacian_lambda_max``).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.graph.positional_encoding import random_walk_pe
>>> g = graph((np.array([0, 1, 1]), np.array([1, 1, 0])), num_nodes=2)
>>> random_walk_pe(g, 2)
array([[0.  , 0.5 ],
       [0.5 , 0.75]], dtype=float32)

RULE: the Laplacian is DGL's ``L = I - D^-1/2 A D^-1/2`` with ``A[u, v]`` the number of
      edges ``u -> v`` and ``D`` the in-degrees clipped to 1; the graph should be
      bidirected (then ``L`` is symmetric and a symmetric eigensolver runs).
RULE: the random-walk matrix is ``P = A / rowsum(A)`` over out-edges (a row with no
      out-edge stays 0); the encoding is ``diag(P), diag(P^2), ..., diag(P^k)``.
Eigenproblems up to :data:`DENSE_MAX` nodes are solved densely (LAPACK); larger ones by
SciPy's ARPACK to full precision (DGL asks ARPACK for ``tol=1e-2`` only). SciPy is
imported when a function runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph, check_graph

__all__ = ["laplacian_pe", "lap_pe", "random_walk_pe", "laplacian_lambda_max", "DENSE_MAX"]

#: eigenproblems of at most this many nodes use a dense solver
DENSE_MAX = 2000


def _homogeneous(g: Any, where: str) -> None:
    check_graph(where, g)
    if g.is_block or len(g.ntypes) != 1 or len(g.canonical_etypes) > 1:
        raise ValueError(f"{where}: the graph must be homogeneous (one node and one edge type)")
    if g.device != "cpu":
        raise ValueError(f"{where}: the graph is on {g.device}; move it to the CPU first")


def _edges(g: Graph) -> tuple[np.ndarray, np.ndarray]:
    if not g.canonical_etypes:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    src, dst = g.edges()
    return np.asarray(src), np.asarray(dst)


def _adjacency(g: Graph, transpose: bool = False) -> Any:
    """``A`` (CSR, float64, duplicate edges summed): rows the sources, or the
    destinations when ``transpose``."""
    from scipy import sparse

    n = g.num_nodes()
    src, dst = _edges(g)
    rows, cols = (dst, src) if transpose else (src, dst)
    return sparse.csr_matrix((np.ones(src.shape[0]), (rows, cols)), shape=(n, n))


def _in_degrees(g: Graph) -> np.ndarray:
    n = g.num_nodes()
    _, dst = _edges(g)
    return np.bincount(dst, minlength=n).astype(np.float64)


def _normalized_laplacian(g: Graph, transpose: bool = False) -> Any:
    from scipy import sparse

    n = g.num_nodes()
    norm = sparse.diags(np.clip(_in_degrees(g), 1, None) ** -0.5)
    return (sparse.eye(n) - norm @ _adjacency(g, transpose) @ norm).tocsr()


def _is_symmetric(m: Any) -> bool:
    diff = (m - m.T).tocoo()
    return diff.nnz == 0 or bool(np.abs(diff.data).max() <= 1e-12)


def _check_k(k: Any, where: str) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{where}: k must be an int, got {k!r}")
    if k < 1:
        raise ValueError(f"{where}: k must be >= 1, got {k}")
    return int(k)


def _smallest_eigenpairs(lap: Any, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` eigenpairs of smallest (real part of the) eigenvalue, ascending."""
    n = lap.shape[0]
    sym = _is_symmetric(lap)
    if n <= DENSE_MAX or count >= n - 1:
        dense = lap.toarray()
        if sym:
            val, vec = np.linalg.eigh(dense)
        else:
            val, vec = np.linalg.eig(dense)
    else:
        from scipy.sparse import linalg

        if sym:
            val, vec = linalg.eigsh(lap, k=count, which="SA")
        else:
            val, vec = linalg.eigs(lap, k=count, which="SR")
    order = np.argsort(val.real, kind="stable")[:count]
    return val[order].real, vec[:, order].real


def laplacian_pe(
    g: Graph, k: int, padding: bool = False, return_eigval: bool = False, *, seed: Any = None
) -> Any:
    """The eigenvectors of the ``k`` smallest non-trivial eigenvalues of the normalised
    Laplacian (the smallest eigenvalue's vector is dropped), float32 [N, k], each with a
    random sign as DGL (``seed``: an int or a NumPy ``Generator`` for reproducible signs).

    With ``k >= N``: ``padding=True`` appends zero columns (and ``nan`` eigenvalues) to
    the ``N - 1`` vectors, as DGL; ``padding=False`` raises ``ValueError`` (DGL's
    documented rule; its own check never fires). ``return_eigval``: also the eigenvalues,
    float32 [k], ascending.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0, 1, 2, 3, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 0, 1, 2, 3])))
    >>> pe, val = laplacian_pe(g, 5, padding=True, return_eigval=True, seed=0)
    >>> pe.shape, val.round(6).tolist()
    ((4, 5), [1.0, 1.0, 2.0, nan, nan])
    """
    where = "laplacian_pe"
    _homogeneous(g, where)
    k = _check_k(k, where)
    n = g.num_nodes()
    if k >= n and not padding:
        raise ValueError(
            f"{where}: the number of eigenvectors k must be smaller than the number of "
            f"nodes n, got k={k} and n={n} (pass padding=True)"
        )
    freqs = max(min(n - 1, k), 0)  # no nodes: no eigenvector, k padding columns
    if freqs > 0:
        val, vec = _smallest_eigenpairs(_normalized_laplacian(g), freqs + 1)
        val, vec = val[1:], vec[:, 1:]
    else:
        val, vec = np.zeros(0), np.zeros((n, 0))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    sign = 2.0 * (rng.random(freqs) > 0.5) - 1.0
    pe = (sign * vec).astype(np.float32)
    eigval = val.astype(np.float32)
    if n <= k:
        pe = np.concatenate([pe, np.zeros((n, k - freqs), dtype=np.float32)], axis=1)
        eigval = np.concatenate([eigval, np.full(k - freqs, np.nan, dtype=np.float32)])
    return (pe, eigval) if return_eigval else pe


#: DGL's current name for :func:`laplacian_pe`
lap_pe = laplacian_pe


def random_walk_pe(g: Graph, k: int, eweight_name: str | None = None) -> np.ndarray:
    """Landing probabilities of 1..``k``-step random walks back to their start node,
    float32 [N, k] (DGL's ``random_walk_pe``).

    With ``eweight_name``, ``A`` is multiplied entrywise by the edge weights summed per
    node pair (DGL's ``A.multiply(W)``; for a graph without parallel edges, each edge's
    weight). Computed sparse, ``k`` sparse-times-dense products over blocks of start
    nodes: ``O(k * E * N)`` work and ``O(N * block)`` memory, never the dense ``P^k``.
    """
    where = "random_walk_pe"
    _homogeneous(g, where)
    k = _check_k(k, where)
    from scipy import sparse

    n = g.num_nodes()
    a = _adjacency(g)
    if eweight_name is not None:
        if eweight_name not in g.edata:
            raise KeyError(f"{where}: the graph has no edge feature {eweight_name!r}")
        w = np.asarray(g.edata[eweight_name])
        if w.ndim == 2 and w.shape[1] == 1:
            w = w[:, 0]
        if w.ndim != 1:
            raise ValueError(f"{where}: {eweight_name!r} must hold one weight per edge")
        src, dst = _edges(g)
        a = a.multiply(sparse.csr_matrix((w.astype(np.float64), (src, dst)), shape=(n, n)))
        a = sparse.csr_matrix(a)
    rowsum = np.asarray(a.sum(axis=1)).ravel()
    p = sparse.diags(1.0 / (rowsum + 1e-30)) @ a  # DGL's A / (A.sum(1) + 1e-30)
    p = sparse.csr_matrix(p)
    out = np.zeros((n, k), dtype=np.float64)
    block = 256
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        x = np.zeros((n, hi - lo))
        x[np.arange(lo, hi), np.arange(hi - lo)] = 1.0
        for step in range(k):
            x = p @ x  # column j: P^(step+1) e_(lo+j)
            out[lo:hi, step] = x[np.arange(lo, hi), np.arange(hi - lo)]
    return out.astype(np.float32)


def laplacian_lambda_max(g: Graph) -> list[float]:
    """The largest-magnitude eigenvalue (real part) of the normalised Laplacian of each
    graph in the batch ``g``, as a list (DGL's ``laplacian_lambda_max``; ``A`` transposed
    as DGL builds it). ``ValueError`` for a component without nodes.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> ring = np.arange(5)
    >>> g = graph((np.concatenate([ring, ring]), np.concatenate([(ring + 1) % 5, (ring - 1) % 5])))
    >>> [round(x, 12) for x in laplacian_lambda_max(g)]
    [1.809016994375]
    """
    where = "laplacian_lambda_max"
    _homogeneous(g, where)
    from arraygnn.graph.batching import unbatch

    parts = unbatch(g) if g.batch_size > 1 else [g]
    out = []
    for i, part in enumerate(parts):
        n = part.num_nodes()
        if n == 0:
            raise ValueError(f"{where}: graph {i} of the batch has no nodes")
        lap = _normalized_laplacian(part, transpose=True)
        if n <= DENSE_MAX:
            dense = lap.toarray()
            val = np.linalg.eigvalsh(dense) if _is_symmetric(lap) else np.linalg.eigvals(dense)
        else:
            from scipy.sparse import linalg

            if _is_symmetric(lap):
                val = linalg.eigsh(lap, k=1, which="LM", return_eigenvectors=False)
            else:
                val = linalg.eigs(lap, k=1, which="LM", return_eigenvectors=False)
        out.append(float(val[np.argmax(np.abs(val))].real))
    return out
