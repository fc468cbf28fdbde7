"""Shared pieces of the learned / cluster poolings (EdgePooling, ClusterPooling, ASAPooling,
PANPooling): the boundary checks of ``(x, edge_index, batch)``, the per-edge score
``lin([x_src || x_dst])`` without an ``[E, 2F]`` array, and sparse products that keep
PyTorch's symbolic structure.

>>> import numpy as np
>>> from arraygnn.nn.linear import Linear
>>> lin = Linear(4, 1, rng=0)
>>> pair_scores(lin, np.ones((3, 2), np.float32), np.array([0, 1]), np.array([1, 2])).shape
(2,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.nn.linear import _check_features, matmul
from arraygnn.ops._common import check_index

__all__ = ["check_pool_input", "check_batch", "pair_scores", "torch_spgemm"]


def check_pool_input(
    layer: str, x: Any, edge_index: Any, batch: Any, in_channels: int, weight: Any
) -> tuple[Any, Any]:
    """``x`` ``[N, in_channels]`` floating point, ``edge_index`` ``[2, E]`` integers in
    ``[0, N)``, ``batch`` ``[N]`` integers (``None``: one graph, int64). Returns
    ``(xp, batch)``; errors name ``layer`` and the argument."""
    _check_features(x, in_channels, f"{layer}: x", weight)
    if x.ndim != 2:
        raise ValueError(f"{layer}: x must be [num_nodes, {in_channels}], got {tuple(x.shape)}")
    if x.dtype.kind != "f":
        raise TypeError(f"{layer}: x must hold floating-point values, got dtype {x.dtype}")
    n = int(x.shape[0])
    if not is_array(edge_index):
        raise TypeError(
            f"{layer}: edge_index must be a NumPy or CuPy array, got {type(edge_index)}"
        )
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(
            f"{layer}: edge_index must have shape [2, E], got {tuple(edge_index.shape)}"
        )
    check_index(f"{layer}: edge_index", edge_index.reshape(-1), n)
    xp = get_namespace(x, edge_index)
    if batch is None:
        return xp, xp.zeros(n, dtype=np.int64)
    if not is_array(batch):
        raise TypeError(f"{layer}: batch must be a NumPy or CuPy array, got {type(batch)}")
    check_index(f"{layer}: batch", batch, None)
    if tuple(batch.shape) != (n,):
        raise ValueError(f"{layer}: batch must have shape ({n},), got {tuple(batch.shape)}")
    if n and int(batch.min()) < 0:
        raise ValueError(f"{layer}: batch has a negative entry ({int(batch.min())})")
    get_namespace(x, batch)
    return xp, batch


def check_batch(layer: str, batch: Any, batch_size: Any, num_nodes: int) -> int:
    """A ``batch`` array (a graph id per node) of shape ``(num_nodes,)`` with ids in
    ``[0, batch_size)``, for a model read out per graph with ``global_*_pool(x, batch,
    batch_size)``; returns ``batch_size``, which left out is ``batch.max() + 1`` as PyG's
    models (the readouts' rule: trailing empty graphs are then dropped; one device sync on
    CuPy: pass it to skip that)."""
    from arraygnn.ops._common import check_size

    if batch_size is None:
        from arraygnn.utils._checks import check_ids

        check_index(f"{layer}: batch", batch, None)  # an integer array of 1 dimension
        check_ids(layer, "batch", batch, None)
        batch_size = int(batch.max()) + 1 if batch.size else 0  # ids in range by construction
    else:
        check_index(f"{layer}: batch", batch, check_size(f"{layer}: batch_size", batch_size))
    if tuple(batch.shape) != (num_nodes,):
        raise ValueError(
            f"{layer}: batch must have shape ({num_nodes},) (a graph id per node), got "
            f"{tuple(batch.shape)}"
        )
    return int(batch_size)


def pair_scores(lin: Any, x: Any, src: Any, dst: Any) -> Any:
    """``lin(cat([x[src], x[dst]], -1))[:, 0]`` for a ``Linear(2F, 1)``: two per-node
    products gathered per edge (no ``[E, 2F]`` array)."""
    f = int(x.shape[1])
    w = lin.weight.reshape(-1)
    both = matmul(x, lin.weight.reshape(2, f).T)  # [N, 2]: source half | target half
    out = both[src, 0] + both[dst, 1]
    if lin.bias is not None:
        out = out + lin.bias.reshape(-1)[0]
    return out.astype(np.result_type(x.dtype, w.dtype), copy=False)


def torch_spgemm(
    a: tuple[Any, Any, Any], b: tuple[Any, Any, Any], num_rows: int, num_cols: int
) -> tuple[Any, Any, Any]:
    """``a @ b`` of two CSR matrices given as ``(indptr, indices, data)``, as PyTorch's
    CPU sparse CSR product returns it: every entry of the symbolic product kept (a value
    that cancels to 0 stays stored), each row's columns in order of first appearance
    (``a``'s entries in storage order, each expanding ``b``'s row in storage order), values
    summed in that order. NumPy: a Numba kernel (``arraygnn.kernels.cpu.spgemm``; float16
    accumulated in float32, PyTorch's CPU product has none); CuPy:
    vectorised over all products (one stable sort of their keys, one ``ops.segment`` sum).
    Returns ``(indptr, indices int64, data)``."""
    from arraygnn import ops

    a_ptr, a_col, a_val = a
    b_ptr, b_col, b_val = b
    xp = get_namespace(a_ptr, b_ptr)
    dtype = np.result_type(a_val.dtype, b_val.dtype)
    if xp is np:  # the Numba kernel (two passes, no sort); float16 through float32
        from arraygnn.kernels.cpu.spgemm import spgemm_first_seen

        work = np.float32 if dtype == np.float16 else dtype  # Numba has no float16
        ptr, col, val = spgemm_first_seen(
            a_ptr.astype(np.int64), a_col.astype(np.int64), a_val.astype(work),
            b_ptr.astype(np.int64), b_col.astype(np.int64), b_val.astype(work), int(num_cols),
        )  # fmt: skip
        return ptr, col, val.astype(dtype, copy=False)
    a_ptr, b_ptr = a_ptr.astype(np.int64), b_ptr.astype(np.int64)
    a_len, b_len = xp.diff(a_ptr), xp.diff(b_ptr)
    count = b_len[a_col]  # products per entry of a
    total = int(count.sum()) if count.shape[0] else 0
    indptr = xp.zeros(num_rows + 1, dtype=np.int64)
    if total == 0:
        return indptr, xp.zeros(0, dtype=np.int64), xp.zeros(0, dtype=dtype)
    a_row = repeat_counts(xp, xp.arange(num_rows, dtype=np.int64), a_len)
    owner = repeat_counts(xp, xp.arange(a_col.shape[0], dtype=np.int64), count)
    start = xp.cumsum(count) - count
    slot = b_ptr[a_col][owner] + (xp.arange(total, dtype=np.int64) - start[owner])
    row = a_row[owner]
    key = row * num_cols + b_col[slot].astype(np.int64)
    val = a_val[owner].astype(dtype, copy=False) * b_val[slot].astype(dtype, copy=False)
    order = xp.argsort(key, kind="stable")
    sorted_key = key[order]
    new = xp.ones(total, dtype=bool)
    new[1:] = sorted_key[1:] != sorted_key[:-1]
    starts = xp.flatnonzero(new)
    ptr = xp.concatenate([starts, xp.full(1, total, dtype=starts.dtype)])
    sums = ops.segment(val[order], ptr, reduce="sum")
    first = order[starts]  # each entry's first product (the sort is stable)
    out = xp.argsort(first, kind="stable")  # row-major, then first appearance
    rows = row[first[out]]
    indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=num_rows))
    return indptr, (key[first[out]] % num_cols), sums[out]
