"""PyG's positional encodings: :class:`AddLaplacianEigenvectorPE` and
:class:`AddRandomWalkPE`.

The Laplacian eigenvectors come from NumPy / SciPy on the host (a copy of the Laplacian to
the CPU on CuPy, as PyG's own code); the random-walk landing probabilities are matrix
powers on the graph's device (dense up to 2,000 nodes, sparse above, as PyG).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
>>> AddRandomWalkPE(walk_length=3)(d).random_walk_pe.tolist()
[[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.interop.scipy import _sparse_module
from arraygnn.transforms._draws import seed_arg
from arraygnn.transforms._graph import int_arg
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.transforms.features import cat_or_set
from arraygnn.utils.laplacian import get_laplacian

__all__ = ["AddLaplacianEigenvectorPE", "AddRandomWalkPE", "add_node_attr"]


def add_node_attr(data: Any, value: Any, attr_name: str | None) -> Any:
    """PyG's helper: ``data[attr_name] = value``, or with ``attr_name=None`` concatenated
    to ``x`` (in ``x``'s dtype) or made ``x``."""
    if attr_name is None:
        cat_or_set(data, "x", value)
    else:
        data[attr_name] = value
    return data


class AddLaplacianEigenvectorPE(BaseTransform):
    """Add the ``k`` eigenvectors of the symmetric normalised Laplacian with the smallest
    eigenvalues after the first (PyG's ``AddLaplacianEigenvectorPE``) as ``attr_name``
    [N, k] (``None``: concatenated to ``x``).

    Below 100 nodes ``numpy.linalg.eig`` (``eigh`` with ``is_undirected=True``) on the
    dense Laplacian, else ``scipy.sparse.linalg.eigs`` / ``eigsh`` for ``k + 1`` vectors
    (``**kwargs`` passed on), as PyG. Each vector gets a random sign (PyG's augmentation)
    from ``seed`` (an int, a ``numpy.random.Generator`` or ``None``, as every random
    transform here; PyG uses torch's global generator): compare results up to sign.
    ``k`` must be below ``num_nodes``. ``Data`` only.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
    >>> AddLaplacianEigenvectorPE(1, is_undirected=True, seed=0)(d).laplacian_eigenvector_pe.shape
    (3, 1)
    """

    SPARSE_THRESHOLD: int = 100

    def __init__(
        self,
        k: int,
        attr_name: str | None = "laplacian_eigenvector_pe",
        is_undirected: bool = False,
        *,
        seed: Any = None,
        **kwargs: Any,
    ) -> None:
        self.k = int_arg("AddLaplacianEigenvectorPE", "k", k, 1)
        self.attr_name = attr_name
        self.is_undirected = is_undirected
        self.rng = seed_arg("AddLaplacianEigenvectorPE", seed)
        self.kwargs = kwargs

    @property
    def node_outputs(self) -> tuple[str, ...]:
        """The per-node array it adds (a ``Batch`` keeps records for it)."""
        return () if self.attr_name is None else (self.attr_name,)

    def forward(self, data: Any) -> Any:
        where = "AddLaplacianEigenvectorPE"
        ei, n = checked_graph(where, data)
        if self.k >= n:
            raise ValueError(f"{where}: k={self.k} must be smaller than num_nodes={n}")
        weight = data.edge_weight if "edge_weight" in data else None
        lap_index, lap_weight = get_laplacian(ei, weight, normalization="sym", num_nodes=n)
        import scipy.sparse as sp

        lap_index, lap_weight = to_numpy(lap_index), to_numpy(lap_weight)
        lap = sp.coo_matrix((lap_weight, (lap_index[0], lap_index[1])), shape=(n, n))
        if n < self.SPARSE_THRESHOLD:
            eig = np.linalg.eigh if self.is_undirected else np.linalg.eig
            vals, vecs = eig(lap.todense())
        else:
            from scipy.sparse.linalg import eigs, eigsh

            fn = eigsh if self.is_undirected else eigs
            which = "SA" if self.is_undirected else "SR"
            vals, vecs = fn(lap, k=self.k + 1, which=which, return_eigenvectors=True, **self.kwargs)
        vecs = np.real(np.asarray(vecs)[:, np.argsort(vals)])
        pe = vecs[:, 1 : self.k + 1]
        pe = pe * (2 * self.rng.integers(0, 2, self.k) - 1).astype(pe.dtype)
        return add_node_attr(data, get_namespace(ei).asarray(pe), self.attr_name)


class AddRandomWalkPE(BaseTransform):
    """Add the random-walk positional encoding (PyG's ``AddRandomWalkPE``) as
    ``attr_name`` [N, walk_length] (``None``: concatenated to ``x``): column ``t`` is the
    diagonal of ``P^(t+1)``, ``P[i, j] = 1 / max(d_i, 1)`` for each edge ``(i, j)``, ``d``
    the weighted out-degree (float32 ones without ``edge_weight``).

    As PyG: up to 2,000 nodes parallel edges set one entry of ``P`` (PyG's dense path),
    above they add up (PyG's sparse CSR path). Above 128 nodes the powers are sparse
    products while they stay sparse; once one would fill more than 1/16 of the matrix (PyG's
    products then take minutes and gigabytes on graphs of 10^4 nodes), the rows of the
    last power for blocks of nodes advance one fused SpMM per step and each node's return
    probability is read off (``E * N`` work per step). The result has the weights' dtype
    (PyG's dense path refuses float64 weights).
    ``Data`` only.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1, 1], [1, 0, 1]]), num_nodes=2)
    >>> AddRandomWalkPE(2)(d).random_walk_pe.tolist()
    [[0.0, 0.5], [0.5, 0.75]]
    """

    def __init__(self, walk_length: int, attr_name: str | None = "random_walk_pe") -> None:
        self.walk_length = int_arg("AddRandomWalkPE", "walk_length", walk_length, 1)
        self.attr_name = attr_name

    @property
    def node_outputs(self) -> tuple[str, ...]:
        """The per-node array it adds (a ``Batch`` keeps records for it)."""
        return () if self.attr_name is None else (self.attr_name,)

    def forward(self, data: Any) -> Any:
        where = "AddRandomWalkPE"
        ei, n = checked_graph(where, data)
        xp = get_namespace(ei)
        row, col = ei[0], ei[1]
        w = data.edge_weight if "edge_weight" in data else xp.ones(ei.shape[1], np.float32)
        deg = ops.scatter(w, row, n, "sum")
        # PyG's 1.0 / degree: float32 for integer weights, else the weights' dtype
        dtype = w.dtype if w.dtype.kind == "f" else np.dtype(np.float32)
        inv_deg = 1.0 / xp.maximum(deg, deg.dtype.type(1))
        value = inv_deg[row].astype(dtype, copy=False)
        if n <= _DENSE_NODES:  # tiny graphs: dense powers (PyG's dense path)
            adj = xp.zeros((n, n), dtype=value.dtype)
            adj[row, col] = value
            out = adj
            pes = [xp.diagonal(out).copy()]
            for _ in range(self.walk_length - 1):
                out = out @ adj
                pes.append(xp.diagonal(out).copy())
            pe = xp.stack(pes, axis=-1)
        else:
            if n <= 2000:  # PyG's dense P: parallel edges set one entry (same value)
                key = xp.unique(row.astype(np.int64) * n + col)
                ei = xp.stack([key // n, key % n])
                value = inv_deg[ei[0]].astype(dtype, copy=False)
            pe = _return_probabilities(ei, value, n, self.walk_length, xp)
        return add_node_attr(data, pe, self.attr_name)


#: up to this many nodes the powers of ``P`` are dense matrix products
_DENSE_NODES = 128
#: the rows of ``P^t`` propagated at once are about this many bytes
_BLOCK_BYTES = 32 << 20
#: sparse powers stop once the next would fill more than 1 / this of the n x n matrix
_SWITCH_DENSITY = 16


def _return_probabilities(ei: Any, value: Any, n: int, steps: int, xp: Any) -> Any:
    """``[diag(P^1), ..., diag(P^steps)]`` as an ``(n, steps)`` array. Sparse powers of
    ``P`` (PyG's way) while they stay sparse; once the next one would fill more than
    1 / ``_SWITCH_DENSITY`` of the matrix (where PyG's products take minutes and gigabytes),
    the rows of the last power for blocks of nodes are carried as dense columns ``X`` and
    advanced with one fused SpMM per step, ``X <- P^T X`` (``ops.spmm`` over the edges
    ``i -> j`` weighted ``P[i, j]``; work ``E * n`` per step, memory ``n * block``), each
    node's own entry read off."""
    if value.dtype.itemsize < 4:  # float16: SciPy / cupyx sparse refuse it; float32 inside
        wide = _return_probabilities(ei, value.astype(np.float32), n, steps, xp)
        return wide.astype(value.dtype)
    sparse = _sparse_module(xp)
    adj = sparse.coo_matrix((value, (ei[0], ei[1])), shape=(n, n)).tocsr()
    pe = xp.empty((n, steps), dtype=value.dtype)
    out, t = adj, 1
    pe[:, 0] = xp.asarray(out.diagonal())
    degree = max(1.0, adj.nnz / max(n, 1))
    while t < steps and min(float(n) * n, out.nnz * degree) * _SWITCH_DENSITY <= float(n) * n:
        out = out @ adj
        pe[:, t] = xp.asarray(out.diagonal())
        t += 1
    if t == steps:
        return pe
    csr = ops.to_csr(ei, n, n)
    block = max(1, min(n, _BLOCK_BYTES // max(1, n * value.dtype.itemsize)))
    for start in range(0, n, block):
        stop = min(n, start + block)
        nodes, cols = xp.arange(start, stop), xp.arange(stop - start)
        x = xp.ascontiguousarray(out[start:stop].toarray().T.astype(value.dtype, copy=False))
        for s in range(t, steps):
            x = ops.spmm(csr, x, value, "sum", n)
            pe[start:stop, s] = x[nodes, cols]
    return pe
