"""``spmm``: fused, edge-weighted sparse-dense product with a reduction (g-SpMM).

``out[t] = reduce over edges e = (s -> t) of edge_weight[e] * x[s]`` for ``sum``, ``mean``,
``max``, ``min`` (and ``prod``), computed row by row over the destination-sorted CSR,
without ever forming the [E, F] message array.

RULE: an empty row (zero in-degree) gives 0 for every reduction; mean divides by the
in-degree; float16 accumulates in float32.
RULE: deterministic: each output row is reduced by one worker in edge order.

>>> import numpy as np
>>> ei = np.array([[0, 1, 2], [1, 2, 2]])
>>> spmm(ei, np.array([[1.0], [10.0], [100.0]])).ravel().tolist()
[0.0, 1.0, 110.0]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arraygnn.ops._common import (
    check_reduce,
    check_size,
    check_values,
    compute_dtype,
    index_bounds,
    kernel_function,
    kernel_index,
    namespace,
    native,
    use_kernels,
)
from arraygnn.ops.csr import CSR, _split_edge_index, as_csr
from arraygnn.ops.gather import _row_view

__all__ = ["spmm"]

#: an edge list (no CSR) with at most this many values per node row is aggregated by a
#: gather of the messages and the CPU scatter kernel instead of a CSR built for one call
NARROW_WIDTH = 8

#: ... and so is a small edge list of wider rows, up to this many message values (128 KiB
#: of float32): there the CSR's fixed cost (validation, counting sort, gathers: ~35 us for
#: 400 edges) outweighs the product itself
SMALL_MESSAGES = 1 << 15

#: the reductions whose scatter gives the SpMM's bits (same operations, same edge order)
_NARROW_REDUCES = ("sum", "mean", "max", "min")
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _edge_arrays(edge_index: Any) -> dict[str, Any]:
    if isinstance(edge_index, CSR):
        return {"edge_index": edge_index.indptr}
    if isinstance(edge_index, (tuple, list)):
        return {"edge_index[0]": edge_index[0], "edge_index[1]": edge_index[1]}
    return {"edge_index": edge_index}


def spmm(
    edge_index: Any,
    x: Any,
    edge_weight: Any = None,
    reduce: str = "sum",
    num_dst_nodes: int | None = None,
) -> Any:
    """Aggregate source rows into targets along edges, optionally scaled per edge.

    Shapes:
      - ``edge_index`` [2, E] (row 0 sources, row 1 targets) or a :class:`CSR`;
      - ``x`` [N_src], [N_src, F], [N_src, H, F] or [N_src, ...];
      - ``edge_weight`` ``None``, [E] (scales a whole row) or [E, H] (scales head ``h``:
        ``x`` must be [N_src, H, F], [N_src, 1, F] or [N_src, H]; size-1 heads broadcast);
      - result [num_dst_nodes, ...] (heads broadcast), dtype ``result_type(x, edge_weight)``.

    ``num_dst_nodes`` defaults to ``x.shape[0]`` (or the CSR's); pass it for bipartite
    graphs. Pass a :class:`CSR` from :func:`to_csr` to skip the sort on repeated calls.

    >>> import numpy as np
    >>> ei = np.array([[0, 0], [1, 1]])
    >>> spmm(ei, np.array([2.0, 3.0]), edge_weight=np.array([1.0, 0.5]), reduce="max").tolist()
    [0.0, 2.0]
    """
    return _spmm(edge_index, x, edge_weight, reduce, num_dst_nodes, weight_in_slots=False)


def _spmm(
    edge_index: Any,
    x: Any,
    edge_weight: Any,
    reduce: str,
    num_dst_nodes: int | None,
    weight_in_slots: bool,
) -> Any:
    """:func:`spmm`; with ``weight_in_slots`` (a CSR) ``edge_weight`` row ``j`` belongs to
    CSR slot ``j`` (edge ``perm[j]``), so it is read in order with no reordering pass."""
    if weight_in_slots and not isinstance(edge_index, CSR):
        raise ValueError("weights in slot order need a CSR")
    check_values("x", x)
    if edge_weight is not None:
        check_values("edge_weight", edge_weight)
    xp = namespace(x=x, edge_weight=edge_weight, **_edge_arrays(edge_index))
    reduce = check_reduce(reduce)
    if x.ndim == 0:
        raise ValueError("x must have at least one dimension (nodes), got a 0-d array")
    if num_dst_nodes is not None:
        num_dst_nodes = check_size("num_dst_nodes", num_dst_nodes)
    if xp is np and not isinstance(edge_index, CSR):
        narrow = _narrow_edge_list(edge_index, x, edge_weight, reduce, num_dst_nodes)
        if narrow is not None:
            return narrow
    rows = "the source features x have {} rows"
    if isinstance(edge_index, CSR):
        csr = as_csr(edge_index, int(x.shape[0]), num_dst_nodes, src_from=rows)
    elif num_dst_nodes is None:
        try:
            csr = as_csr(edge_index, int(x.shape[0]), int(x.shape[0]), src_from=rows)
        except ValueError as err:
            if "targets" not in str(err):
                raise
            raise ValueError(
                f"{err} (num_dst_nodes defaults to x.shape[0] = {int(x.shape[0])}; pass "
                "num_dst_nodes for a bipartite graph)"
            ) from None
    else:
        csr = as_csr(edge_index, int(x.shape[0]), num_dst_nodes, src_from=rows)
    n_dst = csr.num_dst_nodes
    num_edges = csr.num_edges

    # ---- shapes: x -> [N, Hx, F], weight -> [E, Hw], out -> [n_dst, H, F]
    if edge_weight is None or edge_weight.ndim == 1:
        if edge_weight is not None and edge_weight.shape[0] != num_edges:
            raise ValueError(
                f"edge_weight has {edge_weight.shape[0]} entries but there are {num_edges} edges"
            )
        tail = tuple(x.shape[1:])
        width = math.prod(tail)
        x3_shape = (int(x.shape[0]), 1, width)
        w2 = None if edge_weight is None else edge_weight.reshape(num_edges, 1)
        heads = 1
    else:
        w = edge_weight
        while w.ndim > 2 and w.shape[-1] == 1:
            w = w.reshape(w.shape[:-1])
        if w.ndim != 2 or w.shape[0] != num_edges:
            raise ValueError(
                f"edge_weight must be [E] or [E, H] with E = {num_edges} edges, "
                f"got shape {tuple(edge_weight.shape)}"
            )
        hw = int(w.shape[1])
        if x.ndim == 2:
            xs = (int(x.shape[0]), int(x.shape[1]), 1)
        elif x.ndim == 3:
            xs = tuple(int(s) for s in x.shape)
        else:
            raise ValueError(
                f"with edge_weight [E, H], x must be [N, H] or [N, H, F]; got {tuple(x.shape)}"
            )
        hx = xs[1]
        if hx != hw and 1 not in (hx, hw):
            raise ValueError(
                f"edge_weight has {hw} heads but x has {hx}; they must match or one must be 1"
            )
        heads = max(hx, hw)
        x3_shape = xs
        width = xs[2]
        w2 = w
        tail = (heads, width) if x.ndim == 3 else (heads,)

    out_dtype = native(
        x.dtype if edge_weight is None else np.result_type(x.dtype, edge_weight.dtype)
    )
    if n_dst == 0 or width == 0 or heads == 0:
        return xp.zeros((n_dst,) + tail, dtype=out_dtype)
    ok = use_kernels(x.astype(out_dtype, copy=False)[:0])
    work = compute_dtype(xp, out_dtype) if ok else np.dtype(out_dtype)
    x3 = xp.ascontiguousarray(x).astype(work, copy=False).reshape(x3_shape)
    if w2 is not None:
        w2 = xp.ascontiguousarray(w2).astype(work, copy=False)
    out3 = xp.empty((n_dst, heads, width), dtype=work)
    perm = None if weight_in_slots else csr.kernel_perm
    if w2 is not None and perm is not None:
        # Weights in slot order: one gather pass instead of a random weight read per slot
        # inside the kernel. Same values, same order, same bits. Measured: CPU (2-core box,
        # 200k / 2M power-law graph, F = 32) 163 -> 60 ms per hop, as fast as unweighted;
        # H100 (1M / 10M, F = 16 / 64 / 256) 4-10% faster, gather included. The gather
        # kernel rather than np.take: no int64 copy of an int32 perm.
        w_slots = xp.empty_like(w2)
        kernel_function(xp, "gather", "gather_rows", ok)(w2, perm, w_slots)
        w2, perm = w_slots, None
    kernel = kernel_function(xp, "spmm", "spmm_csr", ok)
    kernel(csr.indptr, csr.indices, perm, x3, w2, out3, reduce)
    return out3.astype(out_dtype, copy=False).reshape((n_dst,) + tail)


def _narrow_edge_list(
    edge_index: Any, x: Any, edge_weight: Any, reduce: str, num_dst_nodes: int | None
) -> Any:
    """:func:`spmm` of an edge list on the CPU for narrow rows (at most ``NARROW_WIDTH``
    float32 / float64 values per node) or few messages (at most ``SMALL_MESSAGES``
    values), ``edge_weight`` ``None`` or ``[E]`` of ``x``'s dtype: the messages
    ``w * x[src]`` gathered in edge order, then reduced by the scatter kernel, which
    folds each target's messages in edge order from the reduction's identity -- the
    CSR's stable slot order and the same operations, so the SpMM's bits. A CSR built for
    a single call costs more than the product there (100k nodes / 1M edges, one thread:
    F = 1 4.4 vs 14.6 ms, F = 4 13.4 vs 20.7 ms; 100 nodes / 400 edges, F = 16: ~35 us
    of CSR for a product of a few us), and ``[E, F]`` messages of F <= 8 take no more
    memory than the CSR's five index arrays. ``None`` (the CSR path, which also raises
    every input error) for anything else."""
    if reduce not in _NARROW_REDUCES or x.ndim == 0 or x.dtype not in _FLOATS:
        return None
    width = math.prod(x.shape[1:])
    if width == 0:
        return None
    try:
        src, dst = _split_edge_index(edge_index)
    except (TypeError, ValueError):
        return None
    if not (isinstance(src, np.ndarray) and isinstance(dst, np.ndarray)):
        return None
    if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu" or src.ndim != 1:
        return None
    num = int(src.shape[0])
    if width > NARROW_WIDTH and num * width > SMALL_MESSAGES:
        return None
    if edge_weight is not None and (
        not isinstance(edge_weight, np.ndarray)
        or edge_weight.ndim != 1
        or edge_weight.shape[0] != num
        or edge_weight.dtype != x.dtype
    ):
        return None
    n_src = int(x.shape[0])
    n_dst = n_src if num_dst_nodes is None else num_dst_nodes
    if num:
        src_lo, src_hi = index_bounds(src)
        dst_lo, dst_hi = index_bounds(dst)
        if min(src_lo, dst_lo) < 0 or src_hi >= n_src or dst_hi >= n_dst:
            return None
    if n_dst == 0:
        return np.zeros((0,) + tuple(x.shape[1:]), dtype=x.dtype)
    x2 = np.ascontiguousarray(x).reshape(n_src, width)
    msgs = np.empty((num, width), dtype=x.dtype)
    if num:
        gather_rows = kernel_function(np, "gather", "gather_rows")
        gather_rows(_row_view(x2), kernel_index(np, src), _row_view(msgs))
    if edge_weight is not None:
        with np.errstate(all="ignore"):  # inf * 0 is NaN here as in the kernel, unannounced
            np.multiply(edge_weight[:, None], msgs, out=msgs)  # w * x, the SpMM's product
    out3 = np.empty((n_dst, 1, width), dtype=x.dtype)
    kernel_function(np, "scatter", "scatter_coo")(
        kernel_index(np, dst), msgs.reshape(num, 1, width), out3, reduce
    )
    return out3.reshape((n_dst,) + tuple(x.shape[1:]))
