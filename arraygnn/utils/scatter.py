"""PyG's ``scatter`` and ``softmax`` (``torch_geometric.utils``) over ``arraygnn.ops``.

``scatter`` reduces rows of ``src`` along ``dim`` into ``dim_size`` groups chosen by
``index``; ``softmax`` normalises ``src`` over each group (PyG's attention softmax). Both run
the ``arraygnn.ops`` kernels (``ops.scatter``, ``ops.edge_softmax``): deterministic, on the
inputs' device.

RULE: results are PyG 2.8's: an empty group gives 0 for ``sum`` / ``mean`` / ``min`` /
``max`` / ``any`` and **1 for ``mul``** (PyG starts a product from 1); ``mean`` of integers
is a float32 true division (torch's ``int / int``).
RULE: ``'any'`` gives each group's **last** value in index order, on every device (PyG:
whichever write lands last, which is the last in order on the CPU, unspecified on a GPU).
RULE: ``dim_size`` / ``num_nodes`` left out is ``index.max() + 1``, as PyG (a
device-to-host sync on CuPy).

>>> import numpy as np
>>> scatter(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 2]), reduce="mul").tolist()
[2.0, 1.0, 4.0]
>>> softmax(np.array([0.0, 0.0, 3.0]), np.array([0, 0, 1])).tolist()
[0.5, 0.5, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn.ops._common import check_size, kernel_index
from arraygnn.utils._checks import (
    check_array_arg,
    check_ids,
    check_int_array,
    check_numeric,
    check_pyg_reduce,
    same_device,
)

__all__ = ["scatter", "softmax"]


def scatter(
    src: Any, index: Any, dim: int = 0, dim_size: int | None = None, reduce: str = "sum"
) -> Any:
    """PyG's ``scatter``: reduce the slices of ``src`` along ``dim`` into ``dim_size`` groups.

    ``src`` [..., E, ...] float or int, ``index`` [E] int with ``E = src.shape[dim]``;
    result: ``src``'s shape with ``dim`` resized to ``dim_size`` (``index.max() + 1`` when
    left out, as PyG; 0 for an empty index). ``reduce``: ``'sum'`` / ``'add'``, ``'mean'``,
    ``'mul'``, ``'min'`` / ``'amin'``, ``'max'`` / ``'amax'``, ``'any'`` (one value of the
    group: the last in index order, which PyG's CPU path gives too). Empty groups give 0
    (``mul``: 1, as PyG); ``mean`` of an integer ``src`` is float32. Dtype otherwise that
    of ``src``.

    >>> import numpy as np
    >>> scatter(np.arange(6.0).reshape(2, 3), np.array([1, 0, 1]), dim=1, reduce="max")
    array([[1., 2.],
           [4., 5.]])
    """
    where = "scatter"
    check_numeric(where, "src", src)
    check_int_array(where, "index", index)
    xp = same_device(where, src=src, index=index)
    op = check_pyg_reduce(where, reduce, allow_any=True)
    if index.ndim != 1:
        raise ValueError(f"{where}: index must be one-dimensional, got shape {tuple(index.shape)}")
    axis = _axis(where, dim, src.ndim)
    if index.shape[0] != src.shape[axis]:
        raise ValueError(
            f"{where}: index has {index.shape[0]} entries but src has {src.shape[axis]} "
            f"along dim {dim}; they must match"
        )
    size = _size_from(where, "dim_size", dim_size, index)
    moved = src if axis == 0 else xp.moveaxis(src, axis, 0)
    out = scatter_rows(xp, moved, index, size, op)
    return out if axis == 0 else xp.moveaxis(out, 0, axis)


def scatter_rows(xp: Any, src: Any, index: Any, dim_size: int, op: str) -> Any:
    """PyG's scatter along dim 0 of validated arguments (``op`` an ``arraygnn.ops`` name)."""
    from arraygnn import ops

    if op == "any":
        # each group's last row: the largest position per group (ops.scatter 'max')
        positions = xp.arange(int(src.shape[0]), dtype=np.int64)
        last = ops.scatter(positions, index, dim_size, "max")
        return _pick_rows(xp, src, last, _counts(xp, index, dim_size) > 0, dim_size)
    if op == "mean" and src.dtype.kind in "iu":
        # torch: int sum / int count is a true division in the default float dtype
        total = ops.scatter(src, index, dim_size, "sum").astype(np.float32)
        count = _counts(xp, index, dim_size).astype(np.float32)
        count = xp.maximum(count, 1).reshape((dim_size,) + (1,) * (src.ndim - 1))
        return total / count
    out = ops.scatter(src, index, dim_size, op)
    if op == "prod" and dim_size:
        # PyG's product starts from 1, so an empty group gives 1 (ours gives 0)
        empty = (_counts(xp, index, dim_size) == 0).reshape((dim_size,) + (1,) * (src.ndim - 1))
        out = xp.where(empty, out.dtype.type(1), out)
    return out


def checked_ptr(where: str, ptr: Any, length: int, values: str = "src") -> Any:
    """PyG's ``ptr`` (group ``i`` is rows ``ptr[i]:ptr[i + 1]``) checked: a 1-D integer
    array with at least one entry, running from 0 to ``length`` (the rows of ``values``
    along ``dim``), non-decreasing; ``TypeError`` / ``ValueError`` naming ``where``."""
    check_int_array(where, "ptr", ptr)
    if ptr.ndim != 1 or ptr.shape[0] < 1:
        raise ValueError(
            f"{where}: ptr must be one-dimensional with at least one entry (groups + 1), got "
            f"shape {tuple(ptr.shape)}"
        )
    first, last = int(ptr[0]), int(ptr[-1])
    if first != 0 or last != length:
        raise ValueError(
            f"{where}: ptr must run from 0 to {values}.shape[dim] = {length}, got "
            f"ptr[0]={first}, ptr[-1]={last}"
        )
    if ptr.shape[0] > 1 and not bool((ptr[1:] >= ptr[:-1]).all()):
        raise ValueError(f"{where}: ptr must be non-decreasing")
    return ptr


def segment_rows(xp: Any, src: Any, ptr: Any, op: str) -> Any:
    """:func:`scatter_rows` for rows already grouped: group ``i`` is rows
    ``ptr[i]:ptr[i + 1]`` (validated, non-decreasing), one sorted segment reduction (no
    sort of the group ids); the same values and dtypes as :func:`scatter_rows`."""
    from arraygnn import ops

    size = int(ptr.shape[0]) - 1
    if op == "any":
        return _pick_rows(xp, src, ptr[1:] - 1, xp.diff(ptr) > 0, size)
    if op == "mean" and src.dtype.kind in "iu":
        total = ops.segment(src, ptr, "sum").astype(np.float32)
        count = xp.maximum(xp.diff(ptr), 1).astype(np.float32)
        return total / count.reshape((size,) + (1,) * (src.ndim - 1))
    out = ops.segment(src, ptr, op)
    if op == "prod" and size:
        empty = (xp.diff(ptr) == 0).reshape((size,) + (1,) * (src.ndim - 1))
        out = xp.where(empty, out.dtype.type(1), out)
    return out


def _pick_rows(xp: Any, src: Any, rows: Any, nonempty: Any, size: int) -> Any:
    """``src[rows[g]]`` for every group ``g`` with rows, 0 for the others (``rows[g]`` of an
    empty group may be anything in ``[-1, len(src))``; no boolean indexing, so no sync)."""
    if int(src.shape[0]) == 0:
        return xp.zeros((size,) + tuple(src.shape[1:]), dtype=src.dtype)
    picked = src[xp.clip(rows, 0, int(src.shape[0]) - 1)]
    keep = nonempty.reshape((size,) + (1,) * (src.ndim - 1))
    return xp.where(keep, picked, src.dtype.type(0))


def _counts(xp: Any, index: Any, size: int) -> Any:
    return xp.bincount(kernel_index(xp, index).reshape(-1), minlength=size)[:size]


def _axis(where: str, dim: Any, ndim: int) -> int:
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{where}: dim must be an int, got {dim!r}")
    axis = int(dim) + ndim if dim < 0 else int(dim)
    if not 0 <= axis < ndim:
        raise ValueError(f"{where}: dim must lie between {-ndim} and {ndim - 1}, got {dim}")
    return axis


def _size_from(where: str, name: str, size: Any, index: Any) -> int:
    """``size`` checked (every index below it), or ``index.max() + 1`` when None."""
    if size is None:
        check_ids(where, "index", index, None)
        return int(index.max()) + 1 if index.size else 0
    size = check_size(f"{where}: {name}", size)
    check_ids(where, "index", index, size)
    return size


def softmax(
    src: Any,
    index: Any = None,
    ptr: Any = None,
    num_nodes: int | None = None,
    dim: int = 0,
) -> Any:
    """PyG's ``softmax``: normalise ``src`` over the groups given by ``index`` or ``ptr``.

    ``src`` float [..., E, ...]; ``index`` [E] int group of each slice along ``dim``, or
    ``ptr`` [S+1] (groups ``ptr[i]:ptr[i+1]``, from 0 to ``src.shape[dim]``; used when both
    are given, as PyG). ``num_nodes`` (groups) defaults to ``index.max() + 1``; it does not
    change the result. Same shape and dtype as ``src``. ``exp(src - max) / sum`` per group,
    computed by ``ops.edge_softmax`` (PyG adds ``1e-16`` to the sum, which changes nothing
    representable since every sum is at least 1). A NaN or ``+inf`` in a group makes the
    group NaN, a ``-inf`` gets weight 0 next to a finite value (a group of only ``-inf`` is
    NaN), as in PyG.

    >>> import numpy as np
    >>> softmax(np.log(np.array([1.0, 3.0, 2.0])), ptr=np.array([0, 2, 3])).tolist()
    [0.25, 0.75, 1.0]
    """
    from arraygnn import ops
    from arraygnn.ops.edge_softmax import _softmax

    where = "softmax"
    check_array_arg(where, "src", src)
    if src.dtype.kind != "f":
        raise TypeError(f"{where}: src must be a floating-point array, got dtype {src.dtype}")
    axis = _axis(where, dim, src.ndim)
    length = int(src.shape[axis])
    if ptr is not None:
        xp = same_device(where, src=src, ptr=ptr, index=index)
        checked_ptr(where, ptr, length, "src")
        moved = src if axis == 0 else xp.moveaxis(src, axis, 0)
        out = _softmax(xp, kernel_index(xp, ptr), None, moved)
    elif index is not None:
        check_int_array(where, "index", index)
        xp = same_device(where, src=src, index=index)
        if index.ndim != 1 or index.shape[0] != length:
            raise ValueError(
                f"{where}: index must be one-dimensional with src.shape[dim] = {length} "
                f"entries, got shape {tuple(index.shape)}"
            )
        size = _size_from(where, "num_nodes", num_nodes, index)
        moved = src if axis == 0 else xp.moveaxis(src, axis, 0)
        out = ops.edge_softmax((index, index), moved, num_dst_nodes=size)
    else:
        raise ValueError(f"{where}: give index (a group per slice) or ptr (group bounds)")
    return out if axis == 0 else xp.moveaxis(out, 0, axis)
