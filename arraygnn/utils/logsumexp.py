"""PyG's ``segment_logsumexp`` (``torch_geometric.utils``): ``log(sum(exp(.)))`` of each
run of consecutive slices of ``src`` along ``dim``, the runs given by a pointer vector.

Computed as PyG does, stable against overflow: the run's maximum ``m`` (an
:func:`arraygnn.ops.segment` ``'max'``) is subtracted, ``exp`` summed per run (a second
``ops.segment``), and ``log(sum) + m`` returned, where a ``log`` that is not finite (an
empty run, a run of ``-inf`` or holding ``NaN`` / ``+inf``) is replaced as torch's
``nan_to_num(neginf=0.0)`` does (``-inf`` and NaN by 0, ``+inf`` by the largest finite
value) before ``m`` is added.

RULE: an empty run gives 0 (PyG's result: its maximum is 0 and its ``log`` term is
replaced by 0); a run of only ``-inf`` gives ``-inf``.
RULE: ``ptr`` covers ``src`` exactly along ``dim`` (``ptr[0] == 0``,
``ptr[-1] == src.shape[dim]``), as PyG requires.

>>> import numpy as np
>>> src = np.log(np.array([1.0, 3.0, 2.0, 2.0]))
>>> np.exp(segment_logsumexp(src, np.array([0, 2, 2, 4]), dim=0)).round(6).tolist()
[4.0, 1.0, 4.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn import ops
from arraygnn._namespace import repeat_counts
from arraygnn.utils._checks import check_array_arg, check_int_array, same_device

__all__ = ["segment_logsumexp"]


def segment_logsumexp(src: Any, ptr: Any, dim: int) -> Any:
    """The log-sum-exp of ``src`` over the runs ``ptr[i]:ptr[i + 1]`` along ``dim``.

    ``src`` floating point, any shape; ``ptr`` ``[S + 1]`` non-decreasing integers with
    ``ptr[0] == 0`` and ``ptr[-1] == src.shape[dim]``; ``dim`` the axis reduced (negative
    counts from the end). Returns ``src``'s shape with ``dim`` of size ``S``, in its dtype.

    >>> import numpy as np
    >>> segment_logsumexp(np.zeros((2, 3)), np.array([0, 1, 3]), dim=1).round(4).tolist()
    [[0.0, 0.6931], [0.0, 0.6931]]
    """
    where = "segment_logsumexp"
    check_array_arg(where, "src", src)
    if src.dtype.kind != "f":
        raise TypeError(f"{where}: src must hold floating-point values, got dtype {src.dtype}")
    check_int_array(where, "ptr", ptr)
    xp = same_device(where, src=src, ptr=ptr)
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{where}: dim must be an int, got {dim!r}")
    if src.ndim == 0:
        raise ValueError(f"{where}: src must have at least one dimension")
    if not -src.ndim <= int(dim) < src.ndim:
        raise ValueError(f"{where}: dim={int(dim)} is out of range for {src.ndim}-D src")
    dim = int(dim) % src.ndim
    if ptr.ndim != 1 or ptr.shape[0] < 1:
        raise ValueError(
            f"{where}: ptr must be one-dimensional with at least one entry, got shape "
            f"{tuple(ptr.shape)}"
        )
    length = int(src.shape[dim])
    ptr = ptr.astype(np.int64, copy=False)  # unsigned: a step down must not wrap around
    counts = ptr[1:] - ptr[:-1]
    if bool((counts < 0).any()):
        raise ValueError(f"{where}: ptr must be non-decreasing")
    lo, hi = int(ptr[0]), int(ptr[-1])
    if lo != 0 or hi != length:
        raise ValueError(
            f"{where}: ptr must run from 0 to src.shape[{dim}] = {length} (cover src), got "
            f"{lo} .. {hi}"
        )
    moved = xp.swapaxes(src, 0, dim)
    top = ops.segment(moved, ptr, "max")  # empty runs: 0; infinities and NaN kept
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        index = repeat_counts(xp, xp.arange(int(counts.shape[0])), counts)  # ptr2index
        shifted = xp.exp(moved - ops.gather(top, index))
        logs = xp.log(ops.segment(shifted, ptr, "sum"))
    logs = xp.nan_to_num(logs, nan=0.0, neginf=0.0)
    return xp.swapaxes(logs + top, 0, dim)
