"""DGL's ``svd_pe``: the SVD positional encoding ``[U_k sqrt(S_k), V_k sqrt(S_k)]`` of a
graph's adjacency (``A[u, v]`` = number of edges ``u -> v``), float32 ``[N, 2k]``.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
>>> svd_pe(g, 2, random_flip=False).shape
(3, 4)
>>> svd_pe(g, 5, padding=True, seed=0)[:, 6:].any()
np.False_

RULE: ``k > N`` raises unless ``padding``, which zero-fills the last ``2 (k - N)``
      columns; ``random_flip`` multiplies each row by a random sign (``seed``: an int or a
      NumPy ``Generator``; DGL draws from NumPy's global state).
Path: dense ``scipy.linalg.svd`` of the N x N adjacency (as DGL), host only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.graph.core import Graph
from arraygnn.graph.positional_encoding import _adjacency, _check_k, _homogeneous

__all__ = ["svd_pe"]


def svd_pe(
    g: Graph, k: int, padding: bool = False, random_flip: bool = True, *, seed: Any = None
) -> np.ndarray:
    """SVD positional encoding of ``g`` (homogeneous, on the CPU): float32 ``[N, 2k]``."""
    import scipy.linalg

    where = "svd_pe"
    _homogeneous(g, where)
    k = _check_k(k, where)
    for name, v in (("padding", padding), ("random_flip", random_flip)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{where}: {name} must be True or False, got {v!r}")
    n = g.num_nodes()
    if not padding and n < k:
        raise ValueError(
            f"{where}: k must be no greater than the number of nodes, got k={k} and {n} "
            "nodes (pass padding=True)"
        )
    m = min(n, k)
    if n:
        u, d, vh = scipy.linalg.svd(_adjacency(g).toarray())
        root = np.sqrt(d[:m])
        enc = np.concatenate([u[:, :m] * root, vh.T[:, :m] * root], axis=1)
    else:
        enc = np.zeros((0, 0))
    if random_flip:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        enc = (2 * (rng.random(n) > 0.5) - 1)[:, None] * enc
    enc = enc.astype(np.float32)
    if n < k:
        enc = np.concatenate([enc, np.zeros((n, 2 * (k - n)), np.float32)], axis=1)
    return enc
