"""PyG's ``torch_geometric.nn.functional``: the regularisers ``gini`` and ``bro`` of
"Improving Molecular Graph Neural Network Explainability with Orthonormalization and Induced
Sparsity" (Henderson et al., 2021), on NumPy / CuPy arrays.

``gini(w)``: the mean over the rows of ``w`` of the Gini coefficient
``sum_jj' |w_j - w_j'| / (2 (n^2 - n) mean|w| + eps)`` (``eps`` torch's float32 machine
epsilon, as PyG). The pairwise sum is formed from the sorted row,
``2 sum_j (2j - n + 1) w_(j)``: O(n log n) per row instead of PyG's ``[n, n]`` matrix.

``bro(x, batch, p=2)``: the mean over the graphs of a batch of ``||H_g H_g^T - I||_p``
(``H_g`` the rows of ``x`` of graph ``g``): one batched product of the zero-padded
``[G, N_max, F]`` features, as PyG (``[G, N_max, N_max]`` Gram matrices; padding adds
only zeros to every norm). ``p``: a number (the vector ``p``-norm of the matrix entries,
torch's ``norm(p=p, dim=(1, 2))``; ``inf`` / ``-inf`` the largest / smallest absolute
entry, 0 the count of non-zero entries), ``'fro'`` or ``'nuc'`` (the sum of singular
values).

RULE: ``batch`` is sorted (PyG splits ``x`` into consecutive runs by the counts of
``unique(batch)``, which assumes it); ids may skip values (by any amount: the runs are
renumbered ``0 .. G - 1`` first), and graphs without nodes do not count in the mean (PyG
averages over the ids present).
RULE: both return a 0-d result in the input's floating dtype, on its device.

>>> import numpy as np
>>> gini(np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])).round(6).item()
0.5
>>> bro(np.eye(2), np.array([0, 0])).item()
0.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace
from arraygnn.nn.linear import matmul
from arraygnn.utils._checks import check_array_arg, check_int_array, same_device
from arraygnn.utils.dense import to_dense_batch

__all__ = ["bro", "gini"]

#: ``torch.finfo().eps``: torch's default dtype (float32) epsilon, which PyG adds whatever
#: the dtype of ``w``
_TORCH_EPS = float(np.finfo(np.float32).eps)


def _float_matrix(where: str, name: str, value: Any) -> None:
    check_array_arg(where, name, value)
    if value.dtype.kind != "f":
        raise TypeError(f"{where}: {name} must hold floating-point values, got dtype {value.dtype}")
    if value.ndim != 2:
        raise ValueError(f"{where}: {name} must be two-dimensional, got shape {tuple(value.shape)}")


def gini(w: Any) -> Any:
    """The mean Gini coefficient of the rows of ``w`` ``[R, n]`` (PyG's ``gini``): 0 for a
    row of equal entries, close to 1 for a row with one non-zero entry.

    >>> import numpy as np
    >>> float(gini(np.array([[0.0, 0.0, 3.0]])))
    0.9999...
    """
    where = "gini"
    _float_matrix(where, "w", w)
    rows, n = int(w.shape[0]), int(w.shape[1])
    if rows == 0:
        raise ValueError(f"{where}: w has no rows (the mean over rows is undefined)")
    xp = get_namespace(w)
    ranks = (2 * xp.arange(n, dtype=w.dtype) - (n - 1)).astype(w.dtype)
    pairs = 2 * (xp.sort(w, axis=1) * ranks).sum(axis=1)  # sum_jj' |w_j - w_j'|
    with np.errstate(invalid="ignore"):  # n = 0: the mean of nothing is NaN, as torch's
        mean_abs = xp.abs(w).mean(axis=1) if n else xp.full(rows, np.nan, w.dtype)
    scale = w.dtype.type(2 * (n * n - n))
    return (pairs / (scale * mean_abs + w.dtype.type(_TORCH_EPS))).mean()


def _norms(where: str, m: Any, p: Any) -> Any:
    """torch's ``norm(m, p=p, dim=(1, 2))`` of a stack of matrices ``[G, A, B]``."""
    xp = get_namespace(m)
    if isinstance(p, str):
        if p == "fro":
            return xp.sqrt((m * m).sum(axis=(1, 2)))
        if p == "nuc":
            return xp.linalg.svd(m, compute_uv=False).sum(axis=-1)
        raise ValueError(f"{where}: p must be a number, 'fro' or 'nuc', got {p!r}")
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: p must be a number, 'fro' or 'nuc', got {p!r}")
    p = float(p)
    a = xp.abs(m).reshape(m.shape[0], -1)
    if p == np.inf:
        return a.max(axis=1)
    if p == -np.inf:
        return a.min(axis=1)
    if p == 0:
        return (a != 0).sum(axis=1).astype(m.dtype)
    if p == 2:
        return xp.sqrt((a * a).sum(axis=1))
    if p == 1:
        return a.sum(axis=1)
    with np.errstate(divide="ignore"):  # |0| ** -p = inf, as torch's
        return (a ** m.dtype.type(p)).sum(axis=1) ** m.dtype.type(1 / p)


def bro(x: Any, batch: Any, p: int | float | str = 2) -> Any:
    """The mean over the graphs of ``||H_g H_g^T - I||_p`` (PyG's ``bro``, the Batch
    Representation Orthogonality penalty).

    Args:
        x: node features ``[N, F]`` (floating point).
        batch: sorted graph ids ``[N]`` (integers).
        p: the norm: a number, ``'fro'`` or ``'nuc'`` (default 2).

    >>> import numpy as np
    >>> x = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    >>> float(bro(x, np.array([0, 0, 1]), p=1))
    13.5
    """
    where = "bro"
    _float_matrix(where, "x", x)
    check_int_array(where, "batch", batch)
    same_device(where, x=x, batch=batch)
    if batch.ndim != 1 or int(batch.shape[0]) != int(x.shape[0]):
        raise ValueError(
            f"{where}: batch must have shape ({int(x.shape[0])},) (one graph id per row of "
            f"x), got {tuple(batch.shape)}"
        )
    if int(x.shape[0]) == 0:
        raise ValueError(f"{where}: x has no rows (no graphs to average over)")
    if int(batch.min()) < 0:
        raise ValueError(f"{where}: batch has a negative graph id ({int(batch.min())})")
    if bool((batch[1:] < batch[:-1]).any()):
        raise ValueError(
            f"{where}: batch must be sorted (non-decreasing), as PyG assumes: it splits x into "
            "consecutive runs"
        )
    xp = get_namespace(x)
    # the runs of equal ids numbered 0 .. G - 1 (PyG's unique counts): ids that skip
    # values, however large, size nothing
    starts = xp.zeros(int(batch.shape[0]), dtype=np.int64)
    starts[1:] = batch[1:] != batch[:-1]
    graph = xp.cumsum(starts)
    num_graphs = int(graph[-1]) + 1
    dense, mask = to_dense_batch(x, graph, batch_size=num_graphs)  # [G, N_max, F]
    gram = matmul(dense, xp.swapaxes(dense, 1, 2))  # [G, N_max, N_max]
    diag = xp.arange(int(gram.shape[1]))
    gram[:, diag, diag] -= mask.astype(gram.dtype)
    norms = _norms(where, gram, p)
    return norms.sum() / x.dtype.type(num_graphs)
