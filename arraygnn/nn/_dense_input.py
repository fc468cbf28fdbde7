"""Checks and small pieces shared by the dense layers and dense poolings (private).

PyG's dense family takes node features ``x`` ``[B, N, F]`` (or ``[N, F]``, one graph), a
dense adjacency ``adj`` ``[B, N, N]`` (or ``[N, N]``, broadcast over the batch) and an
optional node mask ``[B, N]`` marking the real (not padded) nodes, as
:func:`arraygnn.utils.to_dense_batch` / :func:`arraygnn.utils.to_dense_adj` produce them.

RULE: ``x`` is a floating-point NumPy / CuPy array; ``adj`` is square in its last two
dimensions with ``x``'s node count, and holds numbers (bool too): it is read in ``x``'s
dtype. Batch sizes of ``x`` and ``adj`` are equal or one of them is 1 (broadcast).
RULE: nothing passed in is modified: a layer that writes into ``adj`` (self-loops) copies it.

>>> import numpy as np
>>> inp = dense_inputs("Layer", np.ones((3, 2)), np.eye(3, dtype=bool))
>>> inp.x.shape, inp.adj.dtype.name, inp.batch, inp.num_nodes, inp.mask
((1, 3, 2), 'float64', 1, 3, None)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint

__all__ = [
    "DenseInput",
    "bmm",
    "check_float_array",
    "dense_inputs",
    "node_mask",
    "row_sums",
    "softmax",
    "with_self_loops",
]


class DenseInput(NamedTuple):
    """Checked inputs, batched: ``x`` ``[B_x, N, F]``, ``adj`` ``[B_adj, N, N]`` in ``x``'s
    dtype, ``mask`` ``[B, N, 1]`` in ``x``'s dtype (or ``None``); ``batch`` is the
    broadcast batch size ``B``."""

    x: Any
    adj: Any
    mask: Any
    batch: int
    num_nodes: int
    xp: ModuleType


def check_float_array(layer: str, name: str, value: Any, ndims: tuple[int, ...]) -> None:
    """``TypeError`` unless ``value`` is a floating NumPy / CuPy array; ``ValueError``
    unless its number of dimensions is one of ``ndims``."""
    if not is_array(value):
        raise TypeError(
            f"{layer}: {name} must be a NumPy or CuPy array, got {type(value).__name__}"
            + torch_hint(value)
        )
    if value.dtype.kind != "f":
        raise TypeError(f"{layer}: {name} must be a floating-point array, got dtype {value.dtype}")
    if value.ndim not in ndims:
        shapes = " or ".join(
            {2: "[N, F]", 3: "[B, N, F]"}.get(d, f"{d}-d") for d in sorted(ndims, reverse=True)
        )
        raise ValueError(f"{layer}: {name} must be {shapes}, got shape {tuple(value.shape)}")


def dense_inputs(layer: str, x: Any, adj: Any, mask: Any = None) -> DenseInput:
    """Check ``x``, ``adj`` and ``mask`` (errors name ``layer`` and the argument) and give
    them batched, as PyG's ``unsqueeze(0)`` does for the unbatched forms."""
    check_float_array(layer, "x", x, (2, 3))
    if not is_array(adj):
        raise TypeError(
            f"{layer}: adj must be a NumPy or CuPy array, got {type(adj).__name__}"
            + torch_hint(adj)
        )
    xp = get_namespace(x, adj, mask)
    if adj.dtype.kind not in "biuf":
        raise TypeError(f"{layer}: adj must hold numbers, got dtype {adj.dtype}")
    if adj.ndim not in (2, 3) or adj.shape[-1] != adj.shape[-2]:
        raise ValueError(
            f"{layer}: adj must be a square [B, N, N] or [N, N] array, got shape {tuple(adj.shape)}"
        )
    x3 = x[None] if x.ndim == 2 else x
    adj3 = adj[None] if adj.ndim == 2 else adj
    n = int(x3.shape[1])
    if adj3.shape[-1] != n:
        raise ValueError(
            f"{layer}: x has {n} nodes per graph (shape {tuple(x.shape)}) but adj is "
            f"{adj3.shape[-1]} x {adj3.shape[-1]}"
        )
    bx, ba = int(x3.shape[0]), int(adj3.shape[0])
    if bx != ba and 1 not in (bx, ba):
        raise ValueError(
            f"{layer}: batch sizes differ: x has {bx} graphs, adj {ba} (equal, or 1 to share)"
        )
    batch = max(bx, ba)
    return DenseInput(
        x3,
        adj3.astype(x.dtype, copy=False),
        node_mask(layer, mask, batch, n, x.dtype),
        batch,
        n,
        xp,
    )


def node_mask(layer: str, mask: Any, batch: int, num_nodes: int, dtype: Any) -> Any:
    """``mask`` ``[B, N]`` (``[N]`` too when ``B`` is 1) as ``[B, N, 1]`` in ``dtype``."""
    if mask is None:
        return None
    if not is_array(mask):
        raise TypeError(
            f"{layer}: mask must be a NumPy or CuPy array, got {type(mask).__name__}"
            + torch_hint(mask)
        )
    if mask.dtype.kind not in "biuf":
        raise TypeError(f"{layer}: mask must be boolean or numeric, got dtype {mask.dtype}")
    ok = tuple(mask.shape) == (batch, num_nodes) or (
        batch == 1 and tuple(mask.shape) == (num_nodes,)
    )
    if not ok:
        raise ValueError(
            f"{layer}: mask must be [B, N] = [{batch}, {num_nodes}], got shape {tuple(mask.shape)}"
        )
    return mask.reshape(batch, num_nodes, 1).astype(dtype)


def bmm(a: Any, b: Any) -> Any:
    """Batched ``a @ b`` (``xp.matmul``, batch dimensions broadcast); a small NumPy product
    runs on one BLAS thread next to another library's spinning OpenMP runtime (see
    :func:`arraygnn.nn.linear.matmul`)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        from arraygnn.kernels.cpu._threads import small_product

        batch = max(
            a.size // max(a.shape[-2] * a.shape[-1], 1),
            b.size // max(b.shape[-2] * b.shape[-1], 1),
            1,
        )
        with small_product(2.0 * batch * a.shape[-2] * a.shape[-1] * b.shape[-1]):
            return np.matmul(a, b)
    return get_namespace(a, b).matmul(a, b)


def with_self_loops(adj: Any, value: float) -> Any:
    """A copy of ``adj`` ``[B, N, N]`` with its diagonal set to ``value`` (PyG's
    ``adj[:, idx, idx] = value``)."""
    xp = get_namespace(adj)
    out = adj.copy()
    idx = xp.arange(adj.shape[-1])
    out[:, idx, idx] = value
    return out


def softmax(x: Any, axis: int = -1, *, inplace: bool = False) -> Any:
    """Softmax along ``axis``: a new array, or ``x`` overwritten when ``inplace`` (an
    array the caller made). A slice that is all ``-inf`` gives NaN, as ``torch.softmax``."""
    xp = get_namespace(x)
    if x.shape[axis] == 0:  # nothing to normalise (and no max to take)
        return x if inplace else x.copy()
    if not inplace and x.ndim >= 2 and axis in (-1, x.ndim - 1):
        # along a short last axis (cluster logits): reduce across rows of a transposed copy
        xt = xp.ascontiguousarray(xp.moveaxis(x, -1, 0))
        return xp.ascontiguousarray(xp.moveaxis(softmax(xt, 0, inplace=True), 0, -1))
    with np.errstate(invalid="ignore"):
        if inplace:
            x -= x.max(axis=axis, keepdims=True)
            e = xp.exp(x, out=x)
        else:
            e = xp.exp(x - x.max(axis=axis, keepdims=True))
        e /= e.sum(axis=axis, keepdims=True)
    return e


def row_sums(a: Any) -> Any:
    """``a.sum(axis=-1)`` as one matrix-vector product (NumPy's reduction along a short
    last axis is several times slower)."""
    xp = get_namespace(a)
    n = a.shape[-1]
    rows = int(np.prod(a.shape[:-1]))
    return (a.reshape(rows, n) @ xp.ones(n, dtype=a.dtype)).reshape(a.shape[:-1])
