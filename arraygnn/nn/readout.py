"""Graph-level readouts: ``global_add_pool`` / ``global_mean_pool`` / ``global_max_pool``
(PyG names), ``SumPooling`` / ``AvgPooling`` / ``MaxPooling`` (DGL names), and global
attention pooling (Li et al., gated graph networks): PyG's ``AttentionalAggregation`` and
DGL's ``GlobalAttentionPooling``.

The number of graphs is ``size``, the length of a CSR ``ptr`` minus one, a ``Batch``'s
``num_graphs`` (its ``batch`` / ``ptr`` are used), or, left out with a ``batch`` array,
``batch.max() + 1`` as PyG (trailing empty graphs are then dropped; on CuPy that is one
device sync: pass ``size`` to skip it). With ``ptr`` the
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

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.nn._dgl_common import DGLModule
from arraygnn.nn._module import Module, layer_size
from arraygnn.nn.linear import LSTM, MLP, _check_features

__all__ = [
    "global_add_pool",
    "global_mean_pool",
    "global_max_pool",
    "SumPooling",
    "AvgPooling",
    "MaxPooling",
    "AttentionalAggregation",
    "GlobalAttentionPooling",
    "Set2Set",
]


def _pool(x: Any, batch: Any, size: int | None, ptr: Any, reduce: str, name: str) -> Any:
    from arraygnn import ops

    batch, size, ptr = _segments(x, batch, size, ptr, name)
    if ptr is not None:
        return ops.segment(x, ptr, reduce=reduce)
    try:
        return ops.scatter(x, batch, size, reduce=reduce)
    except ValueError as err:  # validated before the kernel: name the caller's arguments
        raise ValueError(f"{name}: {err} (the index is batch, the size the graph count)") from None


def _segments(
    x: Any, batch: Any, size: int | None, ptr: Any, name: str, size_name: str = "size"
) -> tuple[Any, Any, Any]:
    """The graphs of ``x``'s rows as ``(None, None, ptr)`` (a checked CSR pointer) or
    ``(batch, size, None)`` (a graph id per row and the number of graphs); ``size_name`` is
    the caller's keyword for the number of graphs (``dim_size`` for the attention readout)."""
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
        if size is None and data.num_graphs is not None:  # None: a Batch built directly
            size = int(data.num_graphs)  # without ptr (then batch.max() + 1, as PyG's)
        if ptr is None and batch is None and size != 1:
            graphs = "" if size is None else f" of {size} graphs"
            raise ValueError(
                f"{name}: the {type(data).__name__}{graphs} has neither ptr nor a "
                "batch vector (its graphs had no num_nodes when collated: give them x or "
                "num_nodes=); pass batch= / ptr= explicitly"
            )
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
        if bool((ptr[1:] < ptr[:-1]).any()):
            raise ValueError(f"{name}: ptr must be non-decreasing")
        return None, None, ptr
    if batch is None:
        xp = get_namespace(x)
        return None, None, xp.asarray([0, x.shape[0]], dtype=xp.int64)
    if not is_array(batch):
        raise TypeError(
            f"{name}: batch must be a NumPy or CuPy integer array (a graph id per row), got "
            f"{type(batch).__name__}{torch_hint(batch)}"
        )
    if batch.shape != (x.shape[0],):
        raise ValueError(f"{name}: batch must have shape ({x.shape[0]},), got {tuple(batch.shape)}")
    if size is None:  # PyG's rule (one device sync on CuPy: pass the size to skip it)
        from arraygnn.utils._checks import check_ids, check_int_array

        check_int_array(name, "batch", batch)
        check_ids(name, "batch", batch, None)
        size = int(batch.max()) + 1 if batch.shape[0] else 0
    return batch, int(size), None


def _global_pool(x: Any, batch: Any, size: Any, ptr: Any, reduce: str, name: str) -> Any:
    """PyG's global pools: the nodes along dimension -2 (-1 for a 1-D ``x``); without
    ``batch`` / ``ptr`` a 3-D or wider ``x`` loses that dimension, as PyG's
    ``x.sum(dim=-2, keepdim=x.dim() <= 2)``."""
    if not is_array(x) or x.ndim <= 2:
        return _pool(x, batch, size, ptr, reduce, name)
    xp = get_namespace(x)
    out = _pool(xp.moveaxis(x, -2, 0), batch, size, ptr, reduce, name)
    if batch is None and ptr is None:
        return out[0]
    return xp.moveaxis(out, 0, -2)


def global_add_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Sum of node rows per graph.

    Shapes:
        - input: x ``(N, F)`` or ``(N,)``, batch ``(N,)`` graph id per node (or ``ptr``
          ``(B + 1,)``, or a ``Batch``; ``None``: one graph); ``ptr`` must run from 0 to
          ``N`` (``ValueError`` otherwise). A wider ``x`` ``(*, N, F)`` holds its nodes
          along dimension -2, as PyG's.
        - output: ``(B, F)`` (``(B,)``; ``(*, B, F)``, or ``(*, F)`` without ``batch``, as
          PyG's)
    """
    return _global_pool(x, batch, size, ptr, "sum", "global_add_pool")


def global_mean_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Mean of node rows per graph (0 for an empty graph). Shapes as :func:`global_add_pool`."""
    return _global_pool(x, batch, size, ptr, "mean", "global_mean_pool")


def global_max_pool(x: Any, batch: Any = None, size: int | None = None, *, ptr: Any = None) -> Any:
    """Feature-wise max per graph (0 for an empty graph). Shapes as :func:`global_add_pool`."""
    return _global_pool(x, batch, size, ptr, "max", "global_max_pool")


def _graph_segments(graph: Any, feat: Any, name: str) -> tuple[Any, Any]:
    """``(batch, ptr)`` for :func:`_pool` from a DGL batched graph (``batch_num_nodes()``)
    or a ``Batch`` (``num_graphs``)."""
    if hasattr(graph, "batch_num_nodes"):
        xp = get_namespace(feat)
        counts = graph.batch_num_nodes()
        ptr = xp.concatenate(
            [xp.zeros(1, dtype=xp.int64), xp.cumsum(xp.asarray(counts, dtype=xp.int64))]
        )
        return None, ptr
    if hasattr(graph, "num_graphs"):
        return graph, None
    raise TypeError(
        f"{name}: graph needs batch_num_nodes() (a batched graph) or num_graphs (a Batch)"
    )


class _GraphPooling(DGLModule):
    """DGL-style readout over a batched graph: ``pool(graph, feat)``.

    The graph supplies the per-graph node counts through ``batch_num_nodes()`` (DGL) or a
    ``ptr`` / ``num_graphs`` pair (a ``Batch``). A weightless ``Module`` (an empty state
    dict, ``format='dgl'`` too), as DGL's are torch modules.
    """

    _reduce = "sum"

    def __call__(self, graph: Any, feat: Any) -> Any:
        name = type(self).__name__
        batch, ptr = _graph_segments(graph, feat, name)
        if is_array(feat) and feat.dtype.kind != "f":  # DGL's segment reduce: floats only
            raise TypeError(
                f"{name}: feat must be floating point (float16, float32 or float64, as "
                f"DGL's readouts), got {feat.dtype}"
            )
        out = _pool(feat, batch, None, ptr, self._reduce, name)
        if self._reduce == "max":  # DGL's max_nodes: every infinity becomes 0
            from arraygnn.graph.ops import replace_inf_with_zero

            out = replace_inf_with_zero(out)
        return out


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
    """Feature-wise max per graph (DGL's ``MaxPooling``); shapes as ``SumPooling``.
    Infinities of the result become 0, as DGL's ``max_nodes`` (a graph whose rows are
    all ``-inf`` reads out 0)."""

    _reduce = "max"


def _rows_into_graphs(x: Any, batch: Any, size: int | None, ptr: Any, name: str) -> Any:
    """The CSR with one "edge" per row of ``x`` into its graph (from checked segments):
    per-graph softmaxes and sums are then graph ops on it."""
    from arraygnn import ops

    xp = get_namespace(x)
    rows = xp.arange(x.shape[0], dtype=xp.int64)
    if ptr is not None:  # the graph of each row, from the pointer
        index, num_graphs = xp.searchsorted(ptr[1:], rows, side="right"), int(ptr.shape[0] - 1)
    else:
        if not is_array(batch) or batch.dtype.kind not in "iu":
            raise TypeError(
                f"{name}: the graph ids must be an integer array, got "
                f"{getattr(batch, 'dtype', type(batch).__name__)}"
            )
        if batch.shape[0] and (int(batch.min()) < 0 or int(batch.max()) >= size):
            raise ValueError(f"{name}: graph ids must lie in [0, {size}) (the number of graphs)")
        index, num_graphs = batch, size
    return ops.to_csr((rows, index.astype(xp.int64, copy=False)), x.shape[0], num_graphs)


def _attention_pool(
    x: Any, gate: Any, batch: Any, size: int | None, ptr: Any, name: str, size_name: str = "size"
) -> tuple[Any, Any]:
    """``(sum over each graph's rows of softmax(gate) * x, softmax(gate))``; the softmax
    runs over the rows of each graph, per gate column (``gate`` ``[N, 1]`` or ``[N, C]``)."""
    from arraygnn import ops

    batch, size, ptr = _segments(x, batch, size, ptr, name, size_name)
    if not is_array(gate) or gate.ndim != 2 or gate.shape[0] != x.shape[0]:
        raise ValueError(
            f"{name}: the gate network must give (N, 1) or (N, C) for N = {x.shape[0]} rows, "
            f"got {getattr(gate, 'shape', type(gate).__name__)}"
        )
    if gate.shape[1] not in (1, x.shape[-1]) or x.ndim != 2:
        raise ValueError(
            f"{name}: gate {tuple(gate.shape)} does not broadcast with features "
            f"{tuple(x.shape)} (one gate column, or one per feature)"
        )
    csr = _rows_into_graphs(x, batch, size, ptr, name)
    weights = ops.edge_softmax(csr, gate)
    if gate.shape[1] == 1:  # fused weighted sum: no (N, C) product array
        return ops.spmm(csr, x, weights[:, 0]), weights
    if ptr is not None:  # a gate per feature: weigh, then sum
        return ops.segment(weights * x, ptr, reduce="sum"), weights
    return ops.scatter(weights * x, batch, size, reduce="sum"), weights


class _GatedPooling(Module):
    """Shared by the attention readouts: sub-modules that may be plain functions."""

    def _named_arrays(self) -> list[tuple[str, Any]]:
        # a plain function (no weights) as a sub-module holds nothing
        out = []
        for child in self._child_names:
            sub = getattr(self, child)
            if isinstance(sub, Module):
                out += [(f"{child}.{k}", v) for k, v in sub._named_arrays()]
        return out

    def _check_modules(self, **modules: Any) -> None:
        for what, module in modules.items():
            if (module is not None or what.startswith("gate")) and not callable(module):
                raise TypeError(f"{type(self).__name__}: {what} must be callable, got {module!r}")

    def _check_input(self, x: Any, what: str) -> None:
        if not is_array(x):
            raise TypeError(
                f"{type(self).__name__}: {what} must be a NumPy or CuPy array, got "
                f"{type(x)}{torch_hint(x)}"
            )


class AttentionalAggregation(_GatedPooling):
    r"""PyG's ``AttentionalAggregation`` (global attention pooling):
    :math:`r_b = \sum_{i \in b} \mathrm{softmax}_b(h_{gate}(x))_i \cdot h(x)_i`.

    Args:
        gate_nn: module giving the gate logits ``(N, 1)`` (or ``(N, C)``, one per feature);
            an arraygnn ``MLP`` is stored as ``gate_mlp`` (PyG's names), anything else as
            ``gate_nn``.
        nn: optional module applied to ``x`` first (``mlp`` / ``nn`` likewise).

    Call as ``aggr(x, index=None, ptr=None, dim_size=None, dim=-2)``: ``index`` the graph
    of each row (with ``dim_size`` graphs; left out, ``index.max() + 1`` as PyG), or a CSR
    ``ptr``, or a ``Batch`` for ``index``; neither: one graph. The softmax runs over each
    graph's rows; an empty graph gives 0. ``dim`` is PyG's: the dimension of ``x`` holding
    the rows (``gate_nn`` / ``nn`` act on the last one). An arraygnn ``MLP`` gate / ``nn``
    gets ``batch=index, batch_size=dim_size``, as PyG's (for graph-wise norms).

    Shapes:
        - input: ``(N, F)`` (or ``(*, N, F)`` with ``dim=-2``)
        - output: ``(B, C)``, ``C`` the width of ``nn(x)`` (``F`` without ``nn``)

    >>> import numpy as np
    >>> from arraygnn.nn import Linear
    >>> pool = AttentionalAggregation(Linear(3, 1, rng=0))
    >>> pool(np.ones((4, 3), np.float32), np.array([0, 0, 1, 1]), dim_size=3).tolist()
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    """

    _child_names = ("gate_nn", "gate_mlp", "nn", "mlp")

    def __init__(self, gate_nn: Any, nn: Any = None) -> None:
        self._check_modules(gate_nn=gate_nn, nn=nn)
        gate_is_mlp, nn_is_mlp = isinstance(gate_nn, MLP), isinstance(nn, MLP)
        self.gate_mlp = gate_nn if gate_is_mlp else None
        self.gate_nn = None if gate_is_mlp else gate_nn
        self.mlp = nn if nn_is_mlp else None
        self.nn = None if nn_is_mlp else nn

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
    ) -> Any:
        self._check_input(x, "x")
        batch = getattr(index, "batch", None) if _is_batch(index) else index
        if self.gate_mlp is not None:  # PyG: gate_mlp(x, batch=index, batch_size=dim_size)
            gate = self.gate_mlp(x, batch=batch, batch_size=dim_size)
        else:
            gate = self.gate_nn(x)
        if self.mlp is not None:
            feat = self.mlp(x, batch=batch, batch_size=dim_size)
        else:
            feat = self.nn(x) if self.nn is not None else x
        if x.ndim == 2 and _first_dim("AttentionalAggregation", dim, 2):
            out, _ = _attention_pool(
                feat, gate, index, dim_size, ptr, "AttentionalAggregation", "dim_size"
            )
            return out
        return _attention_pool_along(feat, gate, index, ptr, dim_size, dim)

    def extra_repr(self) -> str:
        gate = self.gate_mlp if self.gate_mlp is not None else self.gate_nn
        return f"gate_nn={gate}, nn={self.mlp if self.mlp is not None else self.nn}"


def _is_batch(index: Any) -> bool:
    """Whether ``index`` is a ``Batch`` (taken for the graph ids) rather than an array."""
    return index is not None and not is_array(index) and hasattr(index, "num_graphs")


def _first_dim(name: str, dim: Any, ndim: int) -> bool:
    """Whether PyG's ``dim`` (an int in range) names the first dimension of an
    ``ndim``-dimensional ``x``."""
    if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    if not -ndim <= dim < ndim:
        raise ValueError(f"{name}: dim={dim} is out of range for a {ndim}-D x")
    return dim % ndim == 0


def _check_two_dimensional_dim(name: str, dim: Any) -> None:
    """PyG's ``assert_two_dimensional_input``: ``dim`` must name the rows of a 2-D ``x``."""
    if not _first_dim(name, dim, 2):
        raise ValueError(
            f"{name}: aggregates along the first dimension of a two-dimensional x "
            f"(dim=0 or dim=-2, as PyG's), got dim={dim}"
        )


def _attention_pool_along(
    feat: Any, gate: Any, index: Any, ptr: Any, dim_size: Any, dim: int
) -> Any:
    """PyG's ``reduce(softmax(gate, index, ptr, dim_size, dim) * feat, ...)`` along any
    ``dim`` (the rows of ``feat`` / ``gate`` there; the gate broadcasts over the rest)."""
    from arraygnn.nn.aggr.base import Groups

    name = "AttentionalAggregation"
    if _is_batch(index):
        raise TypeError(f"{name}: a Batch as index needs a 2-D x (dim=-2); pass its batch")
    if not is_array(gate) or gate.ndim != feat.ndim:
        raise ValueError(
            f"{name}: the gate network must keep x's {feat.ndim} dimensions, got "
            f"{getattr(gate, 'shape', type(gate).__name__)}"
        )
    groups = Groups(name, feat, index, ptr, dim_size, dim)
    xp = groups.xp
    gate0 = gate if groups.axis == 0 else xp.moveaxis(gate, groups.axis, 0)
    try:
        weighted = groups.softmax(gate0) * groups.x0
    except ValueError as exc:  # shapes that do not broadcast
        raise ValueError(
            f"{name}: gate {tuple(gate.shape)} does not broadcast with features {tuple(feat.shape)}"
        ) from exc
    return groups.restore(groups.reduce("sum", weighted))


class GlobalAttentionPooling(_GatedPooling, DGLModule):  # DGL's names are its own
    """DGL's ``GlobalAttentionPooling``: ``pool(graph, feat, get_attention=False)`` over a
    batched graph (``batch_num_nodes()``) or a ``Batch``: the sum of
    :class:`AttentionalAggregation` with DGL's names ``gate_nn`` / ``feat_nn``. The gate
    must have one column (DGL's check). ``get_attention=True`` also returns the softmaxed
    gate ``(N, 1)`` (``(N, *, 1)``). As DGL's, features ``(N, *, F)`` take a gate ``(N, *, 1)``,
    softmaxed over each graph's nodes for every leading feature position.

    Shapes:
        - input: ``(N, F)`` (or ``(N, *, F)``)
        - output: ``(B, C)`` (or ``(B, *, C)``)
    """

    _child_names = ("gate_nn", "feat_nn")

    def __init__(self, gate_nn: Any, feat_nn: Any = None) -> None:
        self._check_modules(gate_nn=gate_nn, feat_nn=feat_nn)
        self.gate_nn = gate_nn
        self.feat_nn = feat_nn

    def __call__(self, graph: Any, feat: Any, get_attention: bool = False) -> Any:
        name = type(self).__name__
        self._check_input(feat, "feat")
        gate = self.gate_nn(feat)
        n = feat.shape[0] if feat.ndim else 0
        if not is_array(gate) or gate.ndim < 2 or gate.shape[-1] != 1 or gate.shape[0] != n:
            raise ValueError(
                f"{name}: gate_nn must give (N, 1) gate logits (or (N, *, 1) for features "
                f"(N, *, F)), got {getattr(gate, 'shape', type(gate).__name__)}"
            )
        inner = self.feat_nn(feat) if self.feat_nn is not None else feat
        batch, ptr = _graph_segments(graph, feat, name)
        if gate.ndim == 2 and getattr(inner, "ndim", 0) == 2:
            out, weights = _attention_pool(inner, gate, batch, None, ptr, name)
            return (out, weights) if get_attention else out
        # (N, *, 1) gates: DGL's softmax_nodes per gate column, then sum_nodes(feat * gate)
        from arraygnn import ops

        csr = _rows_into_graphs(inner, *_segments(inner, batch, None, ptr, name), name)
        flat = gate.reshape(n, int(np.prod(gate.shape[1:])))
        weights = ops.edge_softmax(csr, flat).reshape(gate.shape)
        try:
            weighted = inner * weights
        except ValueError:
            raise ValueError(
                f"{name}: gate {tuple(gate.shape)} does not broadcast with features "
                f"{tuple(inner.shape)}"
            ) from None
        out = _pool(weighted, batch, None, ptr, "sum", name)
        return (out, weights) if get_attention else out

    def extra_repr(self) -> str:
        return f"gate_nn={self.gate_nn}, feat_nn={self.feat_nn}"


def group_bounds(xp: Any, grouped: Any) -> tuple[Any, Any]:
    """For group ids in sorted order: the first and one-past-the-last position of each
    entry's group (two searches, no loop over groups)."""
    return (
        xp.searchsorted(grouped, grouped, side="left"),
        xp.searchsorted(grouped, grouped, side="right"),
    )


def _sort_pool(x: Any, batch: Any, size: Any, ptr: Any, k: int, name: str, size_name: str) -> Any:
    """Each graph's ``k`` rows of ``x`` [N, D] with the largest last feature, descending
    (ties: row order), zero-padded: ``[B, k * D]``. One lexsort, no loop over graphs."""
    batch, size, ptr = _segments(x, batch, size, ptr, name, size_name)
    xp = get_namespace(x)
    if x.ndim != 2:
        raise ValueError(f"{name}: x must be (N, D), got shape {tuple(x.shape)}")
    n, d = int(x.shape[0]), int(x.shape[1])
    if ptr is not None:
        graphs = int(ptr.shape[0] - 1)
        graph = xp.searchsorted(ptr[1:], xp.arange(n), side="right")
    else:
        if batch.dtype.kind not in "iu":
            raise TypeError(f"{name}: batch must hold integers, got {batch.dtype}")
        if n and (int(batch.min()) < 0 or int(batch.max()) >= size):
            raise ValueError(f"{name}: graph ids must lie in [0, {size}) (the number of graphs)")
        graphs, graph = size, batch.astype(xp.int64)
    out = xp.zeros((graphs, k, d), dtype=x.dtype)
    if n == 0 or d == 0 or k == 0:
        return out.reshape(graphs, k * d)
    # graph, then the last feature descending (ties: node order): sort ascending with ties
    # in reverse node order, then reverse each graph's run (no negation: unsigned / bool
    # features sort right; a NaN comes first, as in PyG)
    rows = xp.arange(n)
    ascending = xp.lexsort(xp.stack([rows[::-1].copy(), x[:, -1], graph]))
    first, last = group_bounds(xp, graph[ascending])
    order = ascending[first + last - 1 - rows]
    graph_sorted = graph[order]
    rank = rows - first
    keep = rank < k
    out[graph_sorted[keep], rank[keep]] = x[order[keep]]
    return out.reshape(graphs, k * d)


class SortAggregation(Module):
    """PyG's ``SortAggregation(k)`` (DGCNN's sort pooling): per graph, the ``k`` nodes with
    the largest last feature, in descending order of it, concatenated; graphs with fewer
    than ``k`` nodes are padded with zeros. Ties keep the node order (PyG's sort leaves
    their order open). A weightless ``Module`` (an empty state dict), as PyG's, so it sits
    in a ``MultiAggregation`` and in ``summary``.

    Call as ``aggr(x, index=None, ptr=None, dim_size=None, dim=-2)`` (``index`` a graph id
    per row with ``dim_size`` graphs, or ``ptr``; neither: one graph; ``dim``: PyG's, the
    first dimension of the two-dimensional ``x``, ``0`` or ``-2``).

    Shapes:
        - input: ``(N, D)``
        - output: ``(B, k * D)``

    >>> import numpy as np
    >>> x = np.array([[1.0, 0.5], [2.0, 3.0], [0.0, 1.0]])
    >>> SortAggregation(2)(x, np.array([0, 0, 1]), dim_size=2).tolist()
    [[2.0, 3.0, 1.0, 0.5], [0.0, 1.0, 0.0, 0.0]]
    """

    def __init__(self, k: int) -> None:
        from arraygnn.nn._module import layer_size

        self.k = layer_size("SortAggregation", "k", k, minimum=1)

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
    ) -> Any:
        _check_two_dimensional_dim("SortAggregation", dim)
        return _sort_pool(x, index, dim_size, ptr, self.k, "SortAggregation", "dim_size")

    def extra_repr(self) -> str:
        return f"k={self.k}"


class SortPooling(DGLModule):
    """DGL's ``SortPooling(k)``: each node's features sorted ascending first, then per graph
    the ``k`` nodes with the largest (last, so largest) feature, descending, zero-padded;
    infinities of the result become 0, as DGL's ``topk_nodes``.
    Call as ``pool(graph, feat)`` on a batched graph (or a ``Batch``). A weightless
    ``Module``, as DGL's is a torch module.

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([0]), np.array([1])), num_nodes=3)
    >>> SortPooling(2)(g, np.array([[3.0, 1.0], [0.0, 5.0], [2.0, 2.0]])).tolist()
    [[0.0, 5.0, 1.0, 3.0]]
    """

    def __init__(self, k: int) -> None:
        from arraygnn.nn._module import layer_size

        self.k = layer_size("SortPooling", "k", k, minimum=1)

    def __call__(self, graph: Any, feat: Any) -> Any:
        batch, ptr = _graph_segments(graph, feat, "SortPooling")
        if not is_array(feat):
            raise TypeError(f"SortPooling: feat must be a NumPy or CuPy array, got {type(feat)}")
        feat = get_namespace(feat).sort(feat, axis=-1)
        out = _sort_pool(feat, batch, None, ptr, self.k, "SortPooling", "size")
        # DGL's topk masks every infinity of the result to 0
        from arraygnn.graph.ops import replace_inf_with_zero

        return replace_inf_with_zero(out) if out.dtype.kind == "f" else out

    def extra_repr(self) -> str:
        return f"k={self.k}"


class Set2Set(DGLModule):  # PyG's and DGL's names are the same
    r"""Set2Set readout (Vinyals et al.): PyG's ``nn.aggr.Set2Set`` and DGL's ``Set2Set``.

    .. math:: q_t = \mathrm{LSTM}(q^*_{t-1}),\quad \alpha_{i,t} = \mathrm{softmax}_b(x_i
              \cdot q_t),\quad r_t = \sum_{i \in b} \alpha_{i,t} x_i,\quad
              q^*_t = q_t \Vert r_t

    ``processing_steps`` iterations from ``q^*_0 = 0``; the output is ``q^*_T`` (twice the
    input width). Per step, the dot products are one SDDMM, the per-graph softmax one edge
    softmax and the weighted sum one fused SpMM over the rows-into-graphs CSR (no ``(N, F)``
    product array). An empty graph reads out ``r = 0``.

    Args:
        in_channels: node feature size ``F``.
        processing_steps: ``T`` (DGL's ``n_iters``).
        num_layers: LSTM layers (DGL's ``n_layers``); ``bias``: LSTM biases.

    Call as PyG ``aggr(x, index=None, ptr=None, dim_size=None, dim=-2)`` (``index`` with
    ``dim_size`` graphs, a ``ptr``, or a ``Batch``; neither: one graph; ``dim`` must name
    the rows of the two-dimensional ``x``, ``0`` or ``-2``, as PyG's) or DGL
    ``readout(graph, feat)`` over a batched graph.

    Shapes:
        - input: ``(N, F)``
        - output: ``(B, 2F)``

    Names: ``lstm.weight_ih_l{k}``, ``lstm.weight_hh_l{k}``, ``lstm.bias_ih_l{k}``,
    ``lstm.bias_hh_l{k}`` (PyG and DGL alike).

    >>> import numpy as np
    >>> s2s = Set2Set(3, processing_steps=2, rng=0)
    >>> s2s(np.ones((5, 3), np.float32), np.array([0, 0, 1, 1, 1]), dim_size=3).shape
    (3, 6)
    """

    _child_names = ("lstm",)

    def __init__(
        self,
        in_channels: int,
        processing_steps: int,
        num_layers: int = 1,
        *,
        bias: bool = True,
        dtype: Any = np.float32,
        rng: Any = None,
    ) -> None:
        self.in_channels = layer_size("Set2Set", "in_channels", in_channels, minimum=1)
        self.processing_steps = layer_size("Set2Set", "processing_steps", processing_steps)
        self.lstm = LSTM(
            2 * self.in_channels, self.in_channels, num_layers, bias, dtype=dtype, rng=rng
        )

    def __call__(
        self,
        x: Any,
        index: Any = None,
        ptr: Any = None,
        dim_size: int | None = None,
        dim: int = -2,
    ) -> Any:
        from arraygnn import ops

        name = "Set2Set"
        _check_two_dimensional_dim(name, dim)
        if not is_array(x) and hasattr(x, "batch_num_nodes"):  # DGL: readout(graph, feat)
            graph, x = x, index
            if not is_array(x):
                raise TypeError(f"{name}: feat must be a NumPy or CuPy array, got {type(x)}")
            index, ptr = _graph_segments(graph, x, name)
        if not is_array(x):
            raise TypeError(
                f"{name}: x must be a NumPy or CuPy array, got {type(x)}{torch_hint(x)}"
            )
        _check_features(x, self.in_channels, f"{name} input", self.lstm.weight_ih_l0)
        if x.ndim != 2:
            raise ValueError(f"{name}: x must be (N, in_channels), got {tuple(x.shape)}")
        batch, size, ptr = _segments(x, index, dim_size, ptr, name, "dim_size")
        csr = _rows_into_graphs(x, batch, size, ptr, name)
        xp = get_namespace(x)
        graphs = csr.num_dst_nodes
        dtype = np.result_type(x.dtype, self.lstm.weight_ih_l0.dtype)
        q_star = xp.zeros((1, graphs, 2 * self.in_channels), dtype=dtype)
        state = None
        for _ in range(self.processing_steps):
            q, state = self.lstm(q_star, state)
            q = q[0]
            e = ops.sddmm(csr, x, q, op="dot")  # x_i . q_{graph(i)}, [N, 1]
            weights = ops.edge_softmax(csr, e[:, 0])
            r = ops.spmm(csr, x, weights)
            q_star = xp.concatenate([q, r.astype(dtype, copy=False)], axis=-1)[None]
        return q_star[0]

    def extra_repr(self) -> str:
        return f"{self.in_channels}, processing_steps={self.processing_steps}"
