"""PyG's :class:`LaplacianLambdaMax`: the largest eigenvalue of the graph Laplacian, stored
as ``data.lambda_max`` (a Python float).

The Laplacian is :func:`arraygnn.utils.get_laplacian` (weights from ``edge_attr`` when it
holds one value per edge, as PyG), as a SciPy sparse matrix; its largest-magnitude
eigenvalue comes from ARPACK as in PyG: ``scipy.sparse.linalg.eigsh`` when
``is_undirected=True`` and ``normalization`` is not ``'rw'``, else ``eigs`` (real part).
ARPACK needs ``N >= 3`` (``eigs``) / ``N >= 2`` (``eigsh``); smaller graphs (where PyG's
ARPACK call fails) use the dense eigenvalues, and a graph without nodes, or whose Laplacian
is zero (no edges but self-loops; PyG's ARPACK call fails), gets 0. An ``edge_attr`` of
one value per edge ([E] or [E, 1], PyG's ``numel() == num_edges``) is the weight.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3)
>>> round(LaplacianLambdaMax(is_undirected=True)(d).lambda_max, 4)
3.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import to_numpy
from arraygnn.interop.scipy import to_scipy_sparse_matrix
from arraygnn.transforms.base import BaseTransform
from arraygnn.transforms.degree import checked_graph
from arraygnn.utils._checks import bool_arg
from arraygnn.utils.laplacian import get_laplacian

__all__ = ["LaplacianLambdaMax"]


class LaplacianLambdaMax(BaseTransform):
    """Set ``data.lambda_max`` to the largest eigenvalue of the Laplacian with
    ``normalization`` ``None``, ``'sym'`` or ``'rw'`` (PyG's ``LaplacianLambdaMax``).
    ``Data`` only; computed on the host (a CuPy graph is copied for ARPACK).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(edge_index=np.array([[0, 1], [1, 0]]), num_nodes=2)
    >>> LaplacianLambdaMax("sym")(d).lambda_max
    2.0
    """

    def __init__(self, normalization: str | None = None, is_undirected: bool = False) -> None:
        if normalization not in (None, "sym", "rw"):
            raise ValueError(
                f"LaplacianLambdaMax: normalization must be None, 'sym' or 'rw', got "
                f"{normalization!r}"
            )
        self.normalization = normalization
        self.is_undirected = bool_arg("LaplacianLambdaMax", "is_undirected", is_undirected)

    def forward(self, data: Any) -> Any:
        from scipy.sparse.linalg import eigs, eigsh

        ei, n = checked_graph("LaplacianLambdaMax", data)
        weight = data.edge_attr if "edge_attr" in data else None
        if weight is not None and int(weight.size) != int(ei.shape[1]):
            weight = None  # PyG: only an edge_attr of one value per edge is a weight
        if weight is not None:
            weight = weight.reshape(-1)  # [E, 1] holds one value per edge too (as PyG)
        ei, weight = get_laplacian(
            to_numpy(ei),
            to_numpy(weight) if weight is not None else None,
            self.normalization,
            num_nodes=n,
        )
        # CSR: duplicates summed by a per-row pass (COO's count_nonzero sorts all entries,
        # 6x the eigensolver's time on a 50k-node graph), and a faster ARPACK matvec
        lap = to_scipy_sparse_matrix(ei, weight, n).tocsr()
        symmetric = self.is_undirected and self.normalization != "rw"
        if n == 0 or lap.count_nonzero() == 0:
            value = 0.0  # the zero Laplacian (no edges but loops; ARPACK fails on it)
        elif n < (2 if symmetric else 3):
            dense = lap.toarray()
            vals = np.linalg.eigvalsh(dense) if symmetric else np.linalg.eigvals(dense)
            value = float(vals[np.argmax(np.abs(vals))].real)
        else:
            fn = eigsh if symmetric else eigs
            value = float(fn(lap, k=1, which="LM", return_eigenvectors=False).real.item())
        data.lambda_max = value
        return data

    def __repr__(self) -> str:
        return f"LaplacianLambdaMax(normalization={self.normalization})"
