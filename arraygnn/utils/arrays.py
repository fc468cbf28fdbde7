"""PyG's small array helpers: ``one_hot``, ``cumsum``, sorts, selections and ``segment``.

``index_sort``, ``lexsort``, ``group_argsort`` and ``group_cat`` sort; ``select``,
``narrow`` and ``mask_select`` pick slices; ``segment`` reduces consecutive row ranges given
by a pointer vector (``arraygnn.ops.segment``, the Numba / CUDA kernel). NumPy in, NumPy
out; CuPy in, CuPy out; the results are fresh arrays.

RULE: every sort here is stable (PyG's ``stable=False`` default leaves the order of equal
keys unspecified; ours keeps input order, one of PyG's allowed answers). ``group_argsort``
sorts exactly (PyG folds the group id into a float key ``src / max + 2 * index``, which
loses ties and order once groups or values are many; ours never does).
RULE: sizes PyG infers (``num_classes = index.max() + 1``, the groups of
``group_argsort``) are inferred the same way, a sync on CuPy.

>>> import numpy as np
>>> cumsum(np.array([1, 2, 3])).tolist()
[0, 1, 3, 6]
>>> one_hot(np.array([0, 2]), 3).tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
>>> src, index = np.array([0, 1, 5, 4, 3, 2, 6, 7, 8]), np.array([0, 0, 1, 1, 1, 1, 2, 2, 2])
>>> group_argsort(src, index).tolist()
[0, 1, 3, 2, 1, 0, 0, 1, 2]
>>> segment(np.arange(5.0), np.array([0, 2, 2, 5]), reduce="max").tolist()
[1.0, 0.0, 4.0]
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.ops._common import check_size, kernel_index
from arraygnn.utils._checks import (
    bool_arg,
    check_array_arg,
    check_bool_array,
    check_ids,
    check_int_array,
    check_numeric,
    check_pyg_reduce,
    same_device,
)
from arraygnn.utils.scatter import _axis

__all__ = [
    "cumsum",
    "group_argsort",
    "group_cat",
    "index_sort",
    "lexsort",
    "mask_select",
    "narrow",
    "one_hot",
    "segment",
    "select",
]


def one_hot(index: Any, num_classes: int | None = None, dtype: Any = None) -> Any:
    """PyG's ``one_hot``: ``[len(index), num_classes]`` with a 1 at ``(i, index[i])``.

    ``index`` [N] ints in ``[0, num_classes)``; ``num_classes`` defaults to
    ``index.max() + 1`` (a sync on CuPy); ``dtype`` a NumPy dtype, default float32 (PyG's
    torch default).

    >>> import numpy as np
    >>> one_hot(np.array([1, 0]), dtype=np.int64).tolist()
    [[0, 1], [1, 0]]
    """
    where = "one_hot"
    check_int_array(where, "index", index)
    if index.ndim != 1:
        raise ValueError(f"{where}: index must be one-dimensional, got shape {tuple(index.shape)}")
    out_dtype = dtype_arg(where, dtype, np.float32)
    if num_classes is None:
        check_ids(where, "index", index, None)
        num_classes = int(index.max()) + 1 if index.size else 0
    else:
        num_classes = check_size(f"{where}: num_classes", num_classes)
        check_ids(where, "index", index, num_classes)
    xp = get_namespace(index)
    out = xp.zeros((int(index.shape[0]), num_classes), dtype=out_dtype)
    out[xp.arange(index.shape[0]), kernel_index(xp, index)] = 1
    return out


def cumsum(x: Any, dim: int = 0) -> Any:
    """PyG's ``cumsum``: the running sum along ``dim`` with a leading 0, so ``dim`` grows by
    one (``out[0] = 0``, ``out[i + 1] = x[0] + ... + x[i]``). Keeps ``x``'s dtype (as
    torch; NumPy alone would widen int32 to int64).

    >>> import numpy as np
    >>> cumsum(np.array([[1, 2], [3, 4]], dtype=np.int32), dim=1).tolist()
    [[0, 1, 3], [0, 3, 7]]
    """
    where = "cumsum"
    check_numeric(where, "x", x)
    axis = _axis(where, dim, x.ndim)
    xp = get_namespace(x)
    shape = list(x.shape)
    shape[axis] += 1
    out = xp.zeros(shape, dtype=x.dtype)
    body = [slice(None)] * x.ndim
    body[axis] = slice(1, None)
    xp.cumsum(x, axis=axis, dtype=x.dtype, out=out[tuple(body)])
    return out


def index_sort(inputs: Any, max_value: int | None = None, stable: bool = False) -> tuple[Any, Any]:
    """PyG's ``index_sort``: ``(sorted inputs, perm)`` of a 1-D array of non-negative ints.

    Always stable (``stable`` is accepted for PyG's signature). With ``max_value`` (at
    least ``inputs.max()``, checked) and not much larger than the length, an O(N +
    max_value) counting sort (the CSR kernel); else a stable comparison sort. ``perm`` is
    int64.

    >>> import numpy as np
    >>> values, perm = index_sort(np.array([2, 0, 2, 1]), max_value=2)
    >>> values.tolist(), perm.tolist()
    ([0, 1, 2, 2], [1, 3, 0, 2])
    """
    where = "index_sort"
    check_int_array(where, "inputs", inputs)
    bool_arg(where, "stable", stable)
    if inputs.ndim != 1:
        raise ValueError(
            f"{where}: inputs must be one-dimensional, got shape {tuple(inputs.shape)}"
        )
    xp = get_namespace(inputs)
    num = int(inputs.shape[0])
    if max_value is not None:
        bound = check_size(f"{where}: max_value", max_value)
        check_ids(where, "inputs", inputs, bound + 1)
        if bound <= 2 * num + 1024:
            from arraygnn.ops.csr import sorted_segments

            _, perm = sorted_segments(xp, kernel_index(xp, inputs), bound + 1)
            perm = perm.astype(np.int64)
            return inputs[perm], perm
    else:
        check_ids(where, "inputs", inputs, None)
    perm = xp.argsort(inputs, kind="stable").astype(np.int64)
    return inputs[perm], perm


def lexsort(keys: Any, dim: int = -1, descending: bool = False) -> Any:
    """PyG's ``lexsort``: the stable permutation sorting by several keys along ``dim``, the
    **last** key primary (as ``numpy.lexsort``), each ascending or all descending.

    ``keys``: a non-empty list / tuple of arrays of one shape. Returns int64 indices of
    that shape.

    >>> import numpy as np
    >>> lexsort([np.array([3, 1, 2, 0]), np.array([1, 0, 1, 0])]).tolist()
    [3, 1, 2, 0]
    """
    where = "lexsort"
    if not isinstance(keys, (list, tuple)) or not keys:
        raise TypeError(f"{where}: keys must be a non-empty list of arrays, got {keys!r:.60}")
    for i, k in enumerate(keys):
        check_array_arg(where, f"keys[{i}]", k)
        if k.shape != keys[0].shape:
            raise ValueError(
                f"{where}: keys[{i}] has shape {tuple(k.shape)}, keys[0] has "
                f"{tuple(keys[0].shape)}; they must match"
            )
    xp = same_device(where, **{f"keys[{i}]": k for i, k in enumerate(keys)})
    if keys[0].ndim == 0:
        raise ValueError(f"{where}: keys must have at least one dimension")
    axis = _axis(where, dim, keys[0].ndim)
    descending = bool_arg(where, "descending", descending)
    if keys[0].ndim == 1:
        out = _counting_lexsort(xp, keys, descending)
        if out is not None:
            return out
    out = _stable_argsort(xp, keys[0], axis, descending)
    for k in keys[1:]:
        order = _stable_argsort(xp, xp.take_along_axis(k, out, axis=axis), axis, descending)
        out = xp.take_along_axis(out, order, axis=axis)
    return out.astype(np.int64, copy=False)


def _counting_lexsort(xp: ModuleType, keys: Any, descending: bool) -> Any:
    """``lexsort`` of 1-D integer / bool keys whose ranges are at most about their length:
    one stable O(n + range) counting sort per key, least significant first (NumPy's
    comparison sorts took 4x torch's radix sort on 500k int64 keys). ``None`` when a key
    is not integer or spans too wide a range."""
    from arraygnn.ops.csr import sorted_segments

    size = int(keys[0].shape[0])
    if size < 2 or any(k.dtype.kind not in "iub" or k.dtype == np.uint64 for k in keys):
        return None  # (uint64 - its minimum may not fit int64)
    bounds = []
    for k in keys:
        lo, hi = int(k.min()), int(k.max())
        if hi - lo > 2 * size + 1024:
            return None
        bounds.append((lo, hi))
    out = None
    for k, (lo, hi) in zip(keys, bounds):
        key = k if out is None else k[out]
        # descending: ascending in hi - k, ties kept in input order as ascending ones are
        key = (hi - key.astype(np.int64)) if descending else (key.astype(np.int64) - lo)
        _, perm = sorted_segments(xp, key, hi - lo + 1)
        out = perm.astype(np.int64) if out is None else out[perm]
    return out.astype(np.int64, copy=False)


def _stable_argsort(xp: ModuleType, a: Any, axis: int, descending: bool) -> Any:
    """A stable argsort along ``axis``; descending keeps equal keys in input order."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    size = a.shape[axis]
    flipped = xp.argsort(xp.flip(a, axis=axis), axis=axis, kind="stable")
    return size - 1 - xp.flip(flipped, axis=axis)


def group_argsort(
    src: Any,
    index: Any,
    dim: int = 0,
    num_groups: int | None = None,
    descending: bool = False,
    return_consecutive: bool = False,
    stable: bool = False,
) -> Any:
    """PyG's ``group_argsort``: each entry's rank within its group (``index``) by value.

    ``src`` [N] numbers, ``index`` [N] group ids; ``dim`` 0 or -1 (1-D only, as PyG).
    Ranks start at 0 in every group; ``return_consecutive=True`` gives the position in the
    whole order (groups in increasing id, then by value) instead. ``num_groups`` (at least
    ``index.max() + 1``) only sizes the group counts. Always stable: equal values keep
    input order (PyG's ``stable=False`` leaves it open). ``index``'s dtype; an empty input
    gives an empty array of ``index``'s dtype (PyG: ``src``'s dtype).

    >>> import numpy as np
    >>> src, index = np.array([1.0, 5.0, 5.0, 2.0]), np.array([0, 0, 1, 1])
    >>> group_argsort(src, index, descending=True).tolist()
    [1, 0, 0, 1]
    """
    where = "group_argsort"
    check_numeric(where, "src", src)
    check_int_array(where, "index", index)
    xp = same_device(where, src=src, index=index)
    if src.ndim != 1 or index.ndim != 1:
        raise ValueError(
            f"{where}: src and index must be one-dimensional (as PyG), got shapes "
            f"{tuple(src.shape)} and {tuple(index.shape)}"
        )
    if src.shape[0] != index.shape[0]:
        raise ValueError(
            f"{where}: src has {src.shape[0]} entries but index has {index.shape[0]}; they "
            "must match"
        )
    if dim not in (0, -1) or isinstance(dim, bool):
        raise ValueError(f"{where}: dim must be 0 or -1 (1-D input), got {dim!r}")
    descending = bool_arg(where, "descending", descending)
    return_consecutive = bool_arg(where, "return_consecutive", return_consecutive)
    bool_arg(where, "stable", stable)
    num = int(index.shape[0])
    if num_groups is None:
        check_ids(where, "index", index, None)
        groups = int(index.max()) + 1 if num else 0
    else:
        groups = check_size(f"{where}: num_groups", num_groups)
        check_ids(where, "index", index, groups)
    if num == 0:
        return xp.zeros(0, dtype=index.dtype)
    from arraygnn.ops.csr import sorted_segments

    by_value = _stable_argsort(xp, src, 0, descending)
    indptr, by_group = sorted_segments(xp, kernel_index(xp, index[by_value]), groups)
    perm = by_value[by_group]
    out = xp.empty(num, dtype=index.dtype)
    out[perm] = xp.arange(num, dtype=index.dtype)
    if return_consecutive:
        return out
    return out - indptr[:-1][kernel_index(xp, index)].astype(index.dtype)


def group_cat(tensors: Any, indices: Any, dim: int = 0, return_index: bool = False) -> Any:
    """PyG's ``group_cat``: concatenate ``tensors`` along ``dim`` with the slices grouped
    by their ids in ``indices`` (a stable sort of the concatenated ids: within a group,
    the first array's slices come first).

    ``tensors``: a list / tuple of arrays with equal shapes except along ``dim``;
    ``indices``: one 1-D int array per tensor, one id per slice. ``return_index=True``
    also returns the sorted ids.

    >>> import numpy as np
    >>> xs, ids = [np.array([1, 2, 3]), np.array([4, 5])], [np.array([0, 0, 1]), np.array([0, 1])]
    >>> group_cat(xs, ids).tolist()
    [1, 2, 4, 3, 5]
    """
    where = "group_cat"
    if not isinstance(tensors, (list, tuple)) or not isinstance(indices, (list, tuple)):
        raise TypeError(f"{where}: tensors and indices must be lists (or tuples) of arrays")
    if len(tensors) != len(indices) or not tensors:
        raise ValueError(
            f"{where}: tensors and indices must be non-empty and of one length, got "
            f"{len(tensors)} and {len(indices)}"
        )
    arrays = {f"tensors[{i}]": t for i, t in enumerate(tensors)}
    arrays.update({f"indices[{i}]": t for i, t in enumerate(indices)})
    for name, value in arrays.items():
        check_array_arg(where, name, value)
    xp = same_device(where, **arrays)
    axis = _axis(where, dim, tensors[0].ndim)
    for i, (t, idx) in enumerate(zip(tensors, indices)):
        check_int_array(where, f"indices[{i}]", idx)
        if idx.ndim != 1 or t.ndim != tensors[0].ndim or idx.shape[0] != t.shape[axis]:
            raise ValueError(
                f"{where}: indices[{i}] must be 1-D with one id per slice of tensors[{i}] "
                f"along dim {dim} ({t.shape[axis] if t.ndim > axis else '?'}), got shape "
                f"{tuple(idx.shape)}"
            )
    index = xp.concatenate(list(indices))
    perm = xp.argsort(index, kind="stable")
    out = xp.take(xp.concatenate(list(tensors), axis=axis), perm, axis=axis)
    return (out, index[perm]) if return_index else out


def select(src: Any, index_or_mask: Any, dim: int) -> Any:
    """PyG's ``select``: the slices of ``src`` along ``dim`` picked by an int array of
    positions or a bool mask (one entry per slice). ``src`` an array (a fresh array comes
    back) or a list / tuple (``dim`` must be 0; a list comes back).

    >>> import numpy as np
    >>> select(["a", "b", "c"], np.array([True, False, True]), 0)
    ['a', 'c']
    """
    where = "select"
    check_array_arg(where, "index_or_mask", index_or_mask)
    if index_or_mask.dtype != np.bool_:
        check_int_array(where, "index_or_mask", index_or_mask)
    if index_or_mask.ndim != 1:
        raise ValueError(
            f"{where}: index_or_mask must be one-dimensional, got shape "
            f"{tuple(index_or_mask.shape)}"
        )
    if isinstance(src, (list, tuple)):
        if dim != 0:
            raise ValueError(f"{where}: a list src can only be selected along dim 0, got {dim}")
        host = np.asarray(index_or_mask.get() if hasattr(index_or_mask, "get") else index_or_mask)
        if host.dtype == np.bool_:
            _check_mask_len(where, "index_or_mask", host, len(src))
            return [item for item, keep in zip(src, host.tolist()) if keep]
        check_ids(where, "index_or_mask", host, len(src))
        return [src[i] for i in host.tolist()]
    if not is_array(src):
        raise TypeError(
            f"{where}: src must be a NumPy / CuPy array or a list, got {type(src).__name__}"
        )
    if index_or_mask.dtype == np.bool_:
        return mask_select(src, dim, index_or_mask)
    xp = same_device(where, src=src, index_or_mask=index_or_mask)
    axis = _axis(where, dim, src.ndim)
    check_ids(where, "index_or_mask", index_or_mask, int(src.shape[axis]))
    return xp.take(src, kernel_index(xp, index_or_mask), axis=axis)


def narrow(src: Any, dim: int, start: int, length: int) -> Any:
    """PyG's ``narrow``: ``length`` slices of ``src`` along ``dim`` from ``start`` (a fresh
    array; torch returns a view), or ``src[start:start + length]`` of a list (``dim`` 0).

    >>> import numpy as np
    >>> narrow(np.arange(6).reshape(2, 3), 1, 1, 2).tolist()
    [[1, 2], [4, 5]]
    """
    where = "narrow"
    if isinstance(src, list):
        if dim != 0:
            raise ValueError(f"{where}: a list src can only be narrowed along dim 0, got {dim}")
        size = len(src)
    elif is_array(src):
        axis = _axis(where, dim, src.ndim)
        size = int(src.shape[axis])
    else:
        raise TypeError(
            f"{where}: src must be a NumPy / CuPy array or a list, got {type(src).__name__}"
        )
    start = _int_arg(where, "start", start)
    length = check_size(f"{where}: length", length)
    if start < 0:
        start += size
    if not 0 <= start <= size or start + length > size:
        raise ValueError(
            f"{where}: start {start} and length {length} run past the {size} slices of src "
            f"along dim {dim}"
        )
    if isinstance(src, list):
        return src[start : start + length]
    body = [slice(None)] * src.ndim
    body[axis] = slice(start, start + length)
    return src[tuple(body)].copy()


def mask_select(src: Any, dim: int, mask: Any) -> Any:
    """PyG's ``mask_select``: the slices of ``src`` along ``dim`` where the 1-D bool
    ``mask`` (one entry per slice) is True; a fresh array.

    >>> import numpy as np
    >>> mask_select(np.arange(6).reshape(2, 3), 1, np.array([True, False, True])).tolist()
    [[0, 2], [3, 5]]
    """
    where = "mask_select"
    check_array_arg(where, "src", src)
    check_bool_array(where, "mask", mask)
    xp = same_device(where, src=src, mask=mask)
    if mask.ndim != 1:
        raise ValueError(f"{where}: mask must be one-dimensional, got shape {tuple(mask.shape)}")
    axis = _axis(where, dim, src.ndim)
    _check_mask_len(where, "mask", mask, int(src.shape[axis]))
    return xp.compress(mask, src, axis=axis)


def segment(src: Any, ptr: Any, reduce: str = "sum") -> Any:
    """PyG's ``segment``: reduce ``src[ptr[i]:ptr[i + 1]]`` (along dim 0) for each of the
    ``len(ptr) - 1`` segments, with ``arraygnn.ops.segment`` (one kernel pass, no index
    vector formed). ``reduce``: ``'sum'`` / ``'add'``, ``'mean'``, ``'min'``, ``'max'``.
    ``ptr`` [S+1] non-decreasing with ``0 <= ptr[0]`` and ``ptr[-1] <= len(src)``.

    An empty segment gives 0 for every reduction (PyG's result); an infinite value stays
    infinite under ``'min'`` / ``'max'`` (torch_scatter's result; PyG's fallback without
    torch_scatter turns every infinite ``min`` / ``max`` into 0). Integer ``src`` works
    (``'mean'`` floors, as ``arraygnn.ops``; PyG's fallback refuses integers).

    >>> import numpy as np
    >>> src = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> segment(src, np.array([0, 1, 3]), "mean").tolist()
    [[1.0, 2.0], [4.0, 5.0]]
    """
    from arraygnn import ops

    where = "segment"
    check_numeric(where, "src", src)
    check_int_array(where, "ptr", ptr)
    same_device(where, src=src, ptr=ptr)
    op = check_pyg_reduce(where, reduce)
    if op == "prod":
        raise ValueError(f"{where}: reduce must be 'sum', 'add', 'mean', 'min' or 'max'")
    if src.ndim == 0:
        raise ValueError(f"{where}: src must have at least one dimension")
    if ptr.ndim != 1 or ptr.shape[0] < 1:
        raise ValueError(
            f"{where}: ptr must be one-dimensional with at least one entry, got shape "
            f"{tuple(ptr.shape)}"
        )
    num = int(src.shape[0])
    if ptr.shape[0] > 1 and not bool((ptr[1:] >= ptr[:-1]).all()):
        raise ValueError(f"{where}: ptr must be non-decreasing")
    lo, hi = int(ptr[0]), int(ptr[-1])
    if lo < 0 or hi > num:
        raise ValueError(
            f"{where}: ptr must run within [0, {num}] (the rows of src), got {lo} .. {hi}"
        )
    return ops.segment(src, ptr, op)


def _check_mask_len(where: str, name: str, mask: Any, size: int) -> None:
    if mask.shape[0] != size:
        raise ValueError(f"{where}: {name} has {mask.shape[0]} entries but src has {size}")


def dtype_arg(where: str, dtype: Any, default: Any) -> np.dtype:
    """``dtype`` as a NumPy dtype (``default`` for ``None``); ``TypeError`` naming
    ``where`` otherwise."""
    try:
        return np.dtype(default if dtype is None else dtype)
    except TypeError:
        raise TypeError(f"{where}: dtype must be a NumPy dtype, got {dtype!r}") from None


def _int_arg(where: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    return int(value)
