"""jraph's segment operations on NumPy / CuPy arrays, computed by :mod:`arraygnn.ops`.

Signatures and results are jraph's (``jax.ops``' for ``segment_sum`` / ``max`` / ``min``):

RULE: ``segment_ids`` [E] integer, need not be sorted; ids outside ``[0, num_segments)``
      are dropped (as in ``jax.ops``), except in ``segment_normalize`` and
      ``segment_softmax``, whose output has a row per input row: there they are a
      ``ValueError``.
RULE: ``num_segments=None`` means ``max(segment_ids) + 1`` (as jraph; negative when every
      id is below -1: ``ValueError``, as ``jax.ops``; on CuPy that reads
      the maximum back to the host: pass it). Otherwise an int, a NumPy integer or a 0-d
      integer array (as ``jax.ops``); bools and floats are a ``TypeError``.
RULE: empty segments: ``segment_max`` gives ``-inf`` (integers: their minimum, bools:
      False), ``segment_min`` ``+inf`` (integers: their maximum, bools: True), as
      ``jax.ops``; ``segment_max_or_constant`` / ``segment_min_or_constant`` give
      ``constant``; ``segment_sum`` 0, ``segment_mean`` 0 (sum / max(count, 1)).
RULE: ``segment_mean`` / ``segment_variance`` / ``segment_normalize`` /
      ``segment_softmax`` of integer data give float32, as jraph (JAX's default float with
      x64 off), computed in float64 so an integer sum cannot overflow; float data keeps
      its dtype; bool data is a ``TypeError`` (as ``jax.ops`` and ``segment_sum``).
RULE: ``indices_are_sorted`` / ``unique_indices`` are accepted for compatibility; the
      kernels find a sorted index themselves (a sorted index runs as a CSR reduction).
RULE: deterministic: the same bits on every run (the ops' sorted / owner kernels, no
      atomics).

>>> import numpy as np
>>> segment_max(np.array([1.0, 5.0, 2.0]), np.array([0, 0, 2]), 3).tolist()
[5.0, -inf, 2.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.graphs_tuple.container import _array_hint

__all__ = [
    "partition_softmax",
    "segment_max",
    "segment_max_or_constant",
    "segment_mean",
    "segment_min",
    "segment_min_or_constant",
    "segment_normalize",
    "segment_softmax",
    "segment_sum",
    "segment_variance",
]


def _prepare(
    where: str,
    data: Any,
    segment_ids: Any,
    num_segments: Any,
    *,
    drop: bool = True,
    data_name: str = "data",
) -> tuple[Any, Any, Any, int]:
    """Checked ``(xp, data, ids, n)``; out-of-range rows dropped when ``drop``."""
    convert = "arraygnn.interop.from_jax(x)"
    if not is_array(data):
        raise TypeError(
            f"{where}: {data_name} must be a NumPy or CuPy array, got "
            f"{type(data).__name__}{_array_hint(data, convert)}"
        )
    if not is_array(segment_ids):
        raise TypeError(
            f"{where}: segment_ids must be a NumPy or CuPy integer array, got "
            f"{type(segment_ids).__name__}{_array_hint(segment_ids, convert)}"
        )
    xp = get_namespace(data, segment_ids)
    if segment_ids.dtype.kind not in "iu" or segment_ids.dtype == np.bool_:
        raise TypeError(
            f"{where}: segment_ids must be an integer array, got dtype {segment_ids.dtype}"
        )
    if segment_ids.ndim != 1:
        raise ValueError(f"{where}: segment_ids must be 1-D, got shape {segment_ids.shape}")
    if data.ndim == 0 or data.shape[0] != segment_ids.shape[0]:
        raise ValueError(
            f"{where}: {data_name} has shape {tuple(data.shape)} but segment_ids has "
            f"{segment_ids.shape[0]} entries; {data_name}'s first dimension must match"
        )
    size = int(segment_ids.shape[0])
    lo, hi = (
        (0, -1)
        if not size
        else (int(v) for v in xp.stack([segment_ids.min(), segment_ids.max()]).tolist())
    )
    if num_segments is None:
        if size and hi < -1:  # as jax.ops: max(ids) + 1 is negative (-1 gives 0 segments)
            raise ValueError(
                f"{where}: segment_ids has max {hi}, so num_segments=None "
                f"(max(segment_ids) + 1 = {hi + 1}) is negative; pass num_segments"
            )
        n = max(hi + 1, 0)
    else:
        n = _static_int(where, num_segments)
        if n < 0:
            raise ValueError(f"{where}: num_segments must be >= 0, got {n}")
    if size and (lo < 0 or hi >= n):
        if not drop:
            bad = lo if lo < 0 else hi
            raise ValueError(
                f"{where}: segment_ids has entry {bad}, out of range for num_segments = {n}; "
                "this function returns a row per input row, so it cannot drop it"
            )
        keep = (segment_ids >= 0) & (segment_ids < n)
        data, segment_ids = data[keep], segment_ids[keep]
    return xp, data, segment_ids, n


def _static_int(where: str, value: Any) -> int:
    """``num_segments`` as an ``int``: an int, NumPy integer or 0-d integer array (NumPy,
    CuPy, JAX), as ``jax.ops`` takes it; bools and floats are a ``TypeError``."""
    item = value
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        item = value.item()  # a 0-d array or NumPy scalar (one read-back on CuPy)
    if isinstance(item, int) and not isinstance(item, bool):
        return int(item)
    raise TypeError(f"{where}: num_segments must be an int or None, got {value!r}")


def _floating(where: str, data: Any, data_name: str = "data") -> tuple[Any, Any]:
    """``(data as floats, result dtype or None)``: integers computed in float64, returned
    as float32 (jraph's dtype: JAX promotes integers to its default float); bools refused."""
    if data.dtype == np.bool_:  # as jax.ops: arithmetic on bools is a TypeError
        raise TypeError(f"{where}: {data_name} is bool; this needs numbers (cast it first)")
    if data.dtype.kind in "iu":
        return data.astype(np.float64), np.dtype(np.float32)
    return data, None


def _result(out: Any, dtype: Any) -> Any:
    return out if dtype is None else out.astype(dtype)


def _scatter(data: Any, ids: Any, n: int, reduce: str) -> Any:
    from arraygnn.ops import scatter

    if data.dtype == np.bool_:
        if reduce not in ("max", "min"):  # as jax.ops: a sum of bools is a TypeError
            raise TypeError(
                f"segment_{reduce}: data is bool; sum / mean need numbers (cast it first)"
            )
        return scatter(data.view(np.uint8), ids, n, reduce).astype(np.bool_)  # max / min
    return scatter(data, ids, n, reduce)


def _counts(xp: Any, ids: Any, n: int) -> Any:
    return xp.bincount(ids, minlength=n)[:n] if ids.shape[0] else xp.zeros(n, dtype=np.int64)


def _expand(values: Any, like: Any) -> Any:
    """``values`` [S] reshaped to broadcast against ``like`` [S, ...]."""
    return values.reshape(values.shape + (1,) * (like.ndim - 1))


def _identity(dtype: np.dtype, largest: bool) -> Any:
    if dtype.kind == "f":
        return np.inf if largest else -np.inf
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    if dtype == np.bool_:
        return largest
    raise TypeError(f"segment_max / segment_min: unsupported dtype {dtype}")


def segment_sum(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Sum of the rows of ``data`` in each segment: [num_segments, ...], ``data``'s dtype.

    >>> import numpy as np
    >>> segment_sum(np.arange(5), np.array([0, 0, 1, 1, 2])).tolist()
    [1, 5, 4]
    """
    _, data, ids, n = _prepare("segment_sum", data, segment_ids, num_segments)
    return _scatter(data, ids, n, "sum")


def segment_mean(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Mean of each segment (sum / max(count, 1); integer data gives float32, as jraph).

    >>> import numpy as np
    >>> segment_mean(np.array([1, 2, 6]), np.array([0, 0, 2]), 3).tolist()
    [1.5, 0.0, 6.0]
    """
    _, data, ids, n = _prepare("segment_mean", data, segment_ids, num_segments)
    data, dtype = _floating("segment_mean", data)
    return _result(_scatter(data, ids, n, "mean"), dtype)


def segment_variance(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Population variance of each segment (0 for an empty one), two passes as jraph.

    >>> import numpy as np
    >>> segment_variance(np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1])).tolist()
    [1.0, 0.0]
    """
    xp, data, ids, n = _prepare("segment_variance", data, segment_ids, num_segments)
    data, dtype = _floating("segment_variance", data)
    means = _scatter(data, ids, n, "mean")
    centred = data - means[ids]
    sums = _scatter(centred * centred, ids, n, "sum")
    counts = xp.maximum(_counts(xp, ids, n), 1).astype(sums.dtype)
    return _result(sums / _expand(counts, sums), dtype)


def segment_normalize(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    eps: float = 1e-8,
) -> Any:
    """``(data - mean) / sqrt(max(variance, eps))`` within each segment, row by row.

    >>> import numpy as np
    >>> segment_normalize(np.array([1.0, 3.0]), np.array([0, 0])).tolist()
    [-1.0, 1.0]
    """
    xp, data, ids, n = _prepare("segment_normalize", data, segment_ids, num_segments, drop=False)
    data, dtype = _floating("segment_normalize", data)
    means = _scatter(data, ids, n, "mean")
    centred = data - means[ids]
    sums = _scatter(centred * centred, ids, n, "sum")
    variances = sums / _expand(xp.maximum(_counts(xp, ids, n), 1).astype(sums.dtype), sums)
    floor = xp.asarray(eps, dtype=variances.dtype)
    return _result(centred / xp.sqrt(xp.maximum(variances, floor))[ids], dtype)


def segment_max(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Maximum of each segment; an empty segment gives ``-inf`` (``jax.ops.segment_max``).

    >>> import numpy as np
    >>> segment_max(np.array([3, 1]), np.array([1, 1]), 2).tolist()[1]
    3
    """
    return _extreme("segment_max", data, segment_ids, num_segments, "max", None)


def segment_min(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Minimum of each segment; an empty segment gives ``+inf`` (``jax.ops.segment_min``).

    >>> import numpy as np
    >>> segment_min(np.array([3.0, 1.0]), np.array([1, 1]), 3).tolist()
    [inf, 1.0, inf]
    """
    return _extreme("segment_min", data, segment_ids, num_segments, "min", None)


def segment_max_or_constant(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    constant: float = 0.0,
) -> Any:
    """:func:`segment_max` with ``constant`` for empty segments.

    >>> import numpy as np
    >>> segment_max_or_constant(np.array([2.0]), np.array([1]), 2, constant=-1.0).tolist()
    [-1.0, 2.0]
    """
    return _extreme("segment_max_or_constant", data, segment_ids, num_segments, "max", constant)


def segment_min_or_constant(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    constant: float = 0.0,
) -> Any:
    """:func:`segment_min` with ``constant`` for empty segments.

    >>> import numpy as np
    >>> segment_min_or_constant(np.array([2.0]), np.array([1]), 2).tolist()
    [0.0, 2.0]
    """
    return _extreme("segment_min_or_constant", data, segment_ids, num_segments, "min", constant)


def _extreme(
    where: str, data: Any, segment_ids: Any, num_segments: Any, reduce: str, constant: Any
) -> Any:
    xp, data, ids, n = _prepare(where, data, segment_ids, num_segments)
    out = _scatter(data, ids, n, reduce)
    fill = _identity(out.dtype, reduce == "min") if constant is None else constant
    if constant is None and out.dtype.kind in "iu":
        fill = np.asarray(fill, dtype=out.dtype)
    empty = _counts(xp, ids, n) == 0
    if not n or not bool(empty.any()):
        return out
    return xp.where(_expand(empty, out), xp.asarray(fill, dtype=out.dtype), out)


def segment_softmax(
    logits: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> Any:
    """Softmax of ``logits`` [E, ...] over the rows of each segment (per trailing entry).

    >>> import numpy as np
    >>> segment_softmax(np.log(np.array([1.0, 3.0, 2.0])), np.array([0, 0, 1])).tolist()
    [0.25, 0.75, 1.0]
    """
    from arraygnn.ops import edge_softmax

    xp, logits, ids, n = _prepare(
        "segment_softmax", logits, segment_ids, num_segments, drop=False, data_name="logits"
    )
    logits, dtype = _floating("segment_softmax", logits, "logits")
    if logits.dtype.kind != "f":
        raise TypeError(
            f"segment_softmax: logits must be real numbers (integer or floating point), "
            f"got {logits.dtype}"
        )
    # the sources of this "edge list" are never read: only the targets group the rows
    pairs = xp.stack([xp.zeros_like(ids), ids])
    return _result(edge_softmax(pairs, logits, n), dtype)


def partition_softmax(logits: Any, partitions: Any, sum_partitions: int | None = None) -> Any:
    """Softmax over consecutive partitions of ``logits``: partition ``i`` holds the next
    ``partitions[i]`` rows (for example nodes per graph, ``graph.n_node``).

    >>> import numpy as np
    >>> partition_softmax(np.log(np.array([1.0, 3.0, 2.0])), np.array([2, 1])).tolist()
    [0.25, 0.75, 1.0]
    """
    if not is_array(partitions) or partitions.ndim != 1 or partitions.dtype.kind not in "iu":
        raise TypeError("partition_softmax: partitions must be a 1-D integer array")
    xp = get_namespace(logits, partitions)
    total = int(partitions.sum()) if partitions.shape[0] else 0
    if sum_partitions is not None and int(sum_partitions) != total:
        raise ValueError(
            f"partition_softmax: sum_partitions={sum_partitions} but partitions sum to {total}"
        )
    ids = repeat_counts(xp, xp.arange(partitions.shape[0]), partitions)
    return segment_softmax(logits, ids, int(partitions.shape[0]))
