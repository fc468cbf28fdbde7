"""The base of PyG's aggregation operators: ``aggr(x, index=None, ptr=None, dim_size=None,
dim=-2)``, and the groups of one call.

An aggregation reduces the slices of ``x`` along ``dim`` into ``dim_size`` groups, given by
``index`` (the group of each slice, in any order) or by a CSR ``ptr`` (groups
``ptr[i]:ptr[i+1]`` of consecutive slices); with neither, everything is one group. Every
reduction runs in :mod:`arraygnn.ops` (``scatter`` for an index, ``segment`` for a ``ptr``,
``edge_softmax``), deterministic, on ``x``'s device; ``dim`` is moved to the front as a view.

RULE: arguments are checked as PyG's ``Aggregation.__call__`` does, with the class named in
the error: ``dim`` in range, ``index`` one-dimensional with one entry per slice, ids in
``[0, dim_size)``, ``dim_size == len(ptr) - 1`` when both are given, ``ptr`` from 0 to
``x.shape[dim]`` and non-decreasing.
RULE: ``dim_size`` left out is ``index.max() + 1`` (0 for an empty index), ``len(ptr) - 1``,
or 1 (0 for an empty ``x``) without either, as PyG (on CuPy the first costs a
device-to-host sync; pass ``dim_size``).
RULE: an empty group gives PyG's value: 0 for sum / mean / max / min / var / std /
softmax, 1 for mul, ``clamp_min ** (1 / p)`` for a power mean, ``fill_value`` for quantiles.

>>> import numpy as np
>>> from arraygnn.nn.aggr import MaxAggregation
>>> x = np.array([[1.0], [5.0], [2.0]])
>>> MaxAggregation()(x, np.array([2, 0, 2]), dim_size=4).ravel().tolist()
[5.0, 0.0, 2.0, 0.0]
>>> MaxAggregation()(x, ptr=np.array([0, 2, 3])).ravel().tolist()
[5.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts
from arraygnn.nn._module import Module
from arraygnn.ops._common import check_size, kernel_index
from arraygnn.utils._checks import check_ids, check_int_array, check_numeric, same_device
from arraygnn.utils.scatter import _axis, checked_ptr, scatter_rows

__all__ = ["Aggregation", "Groups"]


class Groups:
    """The groups of one aggregation call: ``x`` with the aggregated dimension moved to the
    front (``x0``, ``[E, ...]``), and either ``index`` ([E] group ids, ``size`` groups) or
    ``ptr`` ([size + 1] CSR bounds). Reductions of ``x0`` itself are computed once per call
    and shared (a ``MultiAggregation`` of mean, var and std reduces ``x`` twice, not five
    times, like PyG's ``FusedAggregation``)."""

    def __init__(self, where: str, x: Any, index: Any, ptr: Any, dim_size: Any, dim: Any) -> None:
        check_numeric(where, "x", x)
        self.where = where
        self.x = x
        self.dim = dim
        self.axis = _axis(where, dim, x.ndim)
        length = int(x.shape[self.axis])
        self.xp = same_device(where, x=x, index=index, ptr=ptr)
        self.index = None
        self.ptr = None
        self._memo: dict[str, Any] = {}
        if ptr is not None:
            self.ptr = checked_ptr(where, ptr, length, "x")
            self.size = int(ptr.shape[0]) - 1
            if dim_size is not None and check_size(f"{where}: dim_size", dim_size) != self.size:
                raise ValueError(
                    f"{where}: dim_size={dim_size} but ptr describes {self.size} groups "
                    "(dim_size must be len(ptr) - 1)"
                )
        if index is not None:
            self.index = index
            self.size = _checked_index(
                where, index, length, self.size if ptr is not None else dim_size
            )
        elif ptr is None:  # one group of everything (PyG: an all-zero index)
            size = (
                (1 if length else 0)
                if dim_size is None
                else check_size(f"{where}: dim_size", dim_size)
            )
            if length and size == 0:
                raise ValueError(
                    f"{where}: dim_size=0 but x has {length} slices along dim {dim} (all in "
                    "group 0 without index or ptr)"
                )
            self.size = size
            self.ptr = self.xp.full(size + 1, length, dtype=np.int64)
            self.ptr[0] = 0
        self.x0 = x if self.axis == 0 else self.xp.moveaxis(x, self.axis, 0)

    # ---- layout ------------------------------------------------------------------------
    def restore(self, out: Any) -> Any:
        """A result ``[size, ...]`` in ``x``'s layout (the groups along ``dim``)."""
        return out if self.axis == 0 else self.xp.moveaxis(out, 0, self.axis)

    def require_matrix(self, what: str) -> None:
        """PyG's ``assert_two_dimensional_input``: ``x`` 2-D, aggregated along dim 0."""
        if self.x.ndim != 2 or self.axis != 0:
            raise ValueError(
                f"{self.where}: {what} needs a two-dimensional x aggregated along dim 0 / -2, "
                f"got shape {tuple(self.x.shape)} with dim={self.dim}"
            )

    def float_x0(self) -> Any:
        """``x0`` as floating point: integer values in torch's default float32, as PyG's
        arithmetic with float scalars (``x * t``, ``exp``, ``clamp``) promotes them."""
        x0 = self.x0
        return x0 if x0.dtype.kind == "f" else self.cached("x0f", lambda: x0.astype(np.float32))

    # ---- reductions --------------------------------------------------------------------
    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per call (shared by the aggregations of one call)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def reduce(self, op: str, values: Any = None) -> Any:
        """``op`` (``sum``, ``mean``, ``max``, ``min``, ``prod``) of ``values`` [E, ...]
        (``x0`` when None, computed once) over the groups: ``[size, ...]``, PyG's empty-group
        values (0; 1 for ``prod``), PyG's dtypes (integer mean: float32)."""
        if values is None:
            return self.cached(op, lambda: self._reduce(self.x0, op))
        return self._reduce(values, op)

    def _reduce(self, values: Any, op: str) -> Any:
        from arraygnn import ops

        if self.index is None and values.dtype.kind == "f" and op != "prod":
            return ops.segment(values, kernel_index(self.xp, self.ptr), op)
        return scatter_rows(self.xp, values, self.group_ids(), self.size, op)

    def counts(self) -> Any:
        """The number of slices in each group, ``[size]`` (int64)."""

        def compute() -> Any:
            xp = self.xp
            if self.index is None:
                return xp.diff(self.ptr.astype(np.int64))
            counts = xp.bincount(kernel_index(xp, self.index), minlength=self.size)
            return counts[: self.size].astype(np.int64, copy=False)

        return self.cached("counts", compute)

    def group_ids(self) -> Any:
        """The group of each slice ``[E]``: ``index``, or made from ``ptr``."""
        if self.index is not None:
            return self.index
        xp = self.xp
        return self.cached(
            "group_ids",
            lambda: repeat_counts(xp, xp.arange(self.size, dtype=np.int64), self.counts()),
        )

    def softmax(self, logits: Any) -> Any:
        """PyG's ``softmax(logits, index, ptr)`` over the groups (``ops.edge_softmax``)."""
        from arraygnn.utils.scatter import softmax

        if self.index is not None:
            return softmax(logits, self.index, None, self.size, 0)
        return softmax(logits, None, self.ptr, self.size, 0)


def _checked_index(where: str, index: Any, length: int, dim_size: Any) -> int:
    """The number of groups (``dim_size``, or ``index.max() + 1``) of a checked index."""
    check_int_array(where, "index", index)
    if index.ndim != 1:
        raise ValueError(f"{where}: index must be one-dimensional, got shape {tuple(index.shape)}")
    if index.shape[0] != length:
        raise ValueError(
            f"{where}: index has {index.shape[0]} entries but x has {length} slices along the "
            "aggregated dim; they must match"
        )
    check_ids(where, "index", index, None)
    top = int(index.max()) + 1 if index.shape[0] else 0
    if dim_size is None:
        return top
    size = check_size(f"{where}: dim_size", dim_size)
    if top > size:
        raise ValueError(
            f"{where}: dim_size={size} is too small: index has entry {top - 1} "
            f"(dim_size must be at least {top})"
        )
    return size


class Aggregation(Module):
    """PyG's ``torch_geometric.nn.aggr.Aggregation``: call as ``aggr(x, index=None,
    ptr=None, dim_size=None, dim=-2)``.

    Shapes:
        - input: ``x`` ``(*, E, *)`` with ``E`` slices along ``dim``; ``index`` ``(E,)``
          (any order) or ``ptr`` ``(G + 1,)``
        - output: ``x``'s shape with ``dim`` resized to ``G = dim_size`` (and the feature
          width changed where the aggregation says so)

    Subclasses implement ``_aggregate(groups) -> [G, ...]`` on ``groups.x0`` (the aggregated
    dimension first) or, to combine results in ``x``'s layout, ``_forward(groups)``.
    """

    #: whether the constructor takes ``dtype`` (learnt weights); the resolver passes it on
    _takes_dtype = False

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
    ) -> Any:
        return self._forward(Groups(type(self).__name__, x, index, ptr, dim_size, dim))

    def _forward(self, groups: Groups) -> Any:
        return groups.restore(self._aggregate(groups))

    def _aggregate(self, groups: Groups) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def reset_parameters(self) -> None:
        """PyG's method; inference weights stay as loaded."""
