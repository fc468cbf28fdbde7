"""Graph-level readouts: ``global_add_pool`` / ``global_mean_pool`` / ``global_max_pool``
(PyG names) and ``SumPooling`` / ``AvgPooling`` / ``MaxPooling`` (DGL names).

The number of graphs is never inferred from ``batch.max() + 1``: pass ``size``, a CSR
``ptr``, or a ``Batch`` (its ``batch`` and ``num_graphs`` are used). With ``ptr`` the
reduction is a deterministic CSR segment reduction (``ptr[0] == 0``, ``ptr[-1] == N``); rows
of one graph must be contiguous (they always are in a ``Batch``). Empty graphs pool to 0
(also for max).

>>> import numpy as np
>>> from arraygnn.nn import global_mean_pool
>>> x = np.arange(6, dtype=np.float32).reshape(3, 2)
>>> global_mean_pool(x, np.array([0, 0, 1]), size=2).tolist()
[[1.0, 2.0], [4.0, 5.0]]
"""

from __future__ import annotations

from typing import Any

from arraygnn._namespace import get_namespace, is_array, torch_hint

__all__ = [
    "global_add_pool",
    "global_mean_pool",
    "global_max_pool",
    "SumPooling",
    "AvgPooling",
    "MaxPooling",
]


def _pool(x: Any, batch: Any, size: int | None, ptr: Any, reduce: str, name: str) -> Any:
    from arraygnn import ops

    if not is_array(x):
        raise TypeError(f"{name}: x must be a NumPy or CuPy array, got {type(x)}{torch_hint(x)}")
    if x.ndim == 0:
        raise ValueError(f"{name}: x must have a node dimension (N, ...), got a 0-d array")
    if size is not None:
        from arraygnn.ops._common import check_size

        size = check_size(f"{name}: size", size)
    if batch is not None and not is_array(batch) and hasattr(batch, "num_graphs"):
        data = batch
        ptr = getattr(data, "ptr", None) if ptr is None else ptr
        batch = getattr(data, "batch", None)
        size = int(data.num_graphs) if size is None else size
    if ptr is not None:
        if not is_array(ptr):
            raise TypeError(f"{name}: ptr must be a NumPy or CuPy array, got {type(ptr)}")
        if ptr.ndim != 1 or ptr.shape[0] < 1:
            raise ValueError(f"{name}: ptr must be a 1-D array of length num_graphs + 1")
        if ptr.dtype.kind not in "iu":
            raise TypeError(f"{name}: ptr must hold integers, got dtype {ptr.dtype}")
        if size is not None and int(size) != ptr.shape[0] - 1:
            raise ValueError(f"{name}: size={size} but ptr describes {ptr.shape[0] - 1} graphs")
        first, last = int(ptr[0]), int(ptr[-1])
        if first != 0 or last != x.shape[0]:
            raise ValueError(
                f"{name}: ptr must run from 0 to the number of rows of x ({x.shape[0]}), "
                f"got ptr[0]={first}, ptr[-1]={last}"
            )
        return ops.segment(x, ptr, reduce=reduce)
    if batch is None:
        xp = get_namespace(x)
        ptr = xp.asarray([0, x.shape[0]], dtype=xp.int64)
        return ops.segment(x, ptr, reduce=reduce)
    if size is None:
        raise ValueError(
            f"{name}: pass size= (the number of graphs), ptr= or a Batch; arraygnn never "
            "infers the number of graphs from batch.max() + 1"
        )
    if batch.shape != (x.shape[0],):
        raise ValueError(f"{name}: batch must have shape ({x.shape[0]},), got {tuple(batch.shape)}")
    return ops.scatter(x, batch, int(size), reduce=reduce)


def global_add_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Sum of node rows per graph.

    Shapes:
        - input: x ``(N, *)``, batch ``(N,)`` graph id per node (or ``ptr`` ``(B + 1,)``,
          or a ``Batch``; ``None``: one graph); ``ptr`` must run from 0 to ``N``
          (``ValueError`` otherwise)
        - output: ``(B, *)``
    """
    return _pool(x, batch, size, ptr, "sum", "global_add_pool")


def global_mean_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Mean of node rows per graph (0 for an empty graph). Shapes as :func:`global_add_pool`."""
    return _pool(x, batch, size, ptr, "mean", "global_mean_pool")


def global_max_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Feature-wise max per graph (0 for an empty graph). Shapes as :func:`global_add_pool`."""
    return _pool(x, batch, size, ptr, "max", "global_max_pool")


class _GraphPooling:
    """DGL-style readout over a batched graph: ``pool(graph, feat)``.

    The graph supplies the per-graph node counts through ``batch_num_nodes()`` (DGL) or a
    ``ptr`` / ``num_graphs`` pair (a ``Batch``).
    """

    _reduce = "sum"

    def __call__(self, graph: Any, feat: Any) -> Any:
        name = type(self).__name__
        xp = get_namespace(feat)
        if hasattr(graph, "batch_num_nodes"):
            counts = graph.batch_num_nodes()
            ptr = xp.concatenate(
                [xp.zeros(1, dtype=xp.int64), xp.cumsum(xp.asarray(counts, dtype=xp.int64))]
            )
            return _pool(feat, None, None, ptr, self._reduce, name)
        if hasattr(graph, "num_graphs"):
            return _pool(feat, graph, None, None, self._reduce, name)
        raise TypeError(
            f"{name}: graph needs batch_num_nodes() (a batched graph) or num_graphs (a Batch)"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SumPooling(_GraphPooling):
    """Sum of node features per graph of a batched graph (DGL's ``SumPooling``).

    Shapes:
        - input: feat ``(N, *)``
        - output: ``(B, *)``
    """

    _reduce = "sum"


class AvgPooling(_GraphPooling):
    """Mean of node features per graph (DGL's ``AvgPooling``); shapes as ``SumPooling``."""

    _reduce = "mean"


class MaxPooling(_GraphPooling):
    """Feature-wise max per graph (DGL's ``MaxPooling``); shapes as ``SumPooling``."""

    _reduce = "max"
