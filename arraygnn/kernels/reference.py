"""Plain array code: the test oracle and the fallback, never the fast path.

Two families live here:

- the kernel contract of :mod:`arraygnn.kernels` (``gather_rows``, ``segment_csr``,
  ``spmm_csr``, ``sddmm_coo``, ``edge_softmax_csr``) written with array functions of the
  inputs' namespace (NumPy or CuPy), so ``settings.validate`` can run them beside a kernel;
- ``naive_*`` oracles on the COO edge list (``np.add.at`` / ``np.maximum.at`` / Python
  loops), independent of any CSR construction, which the tests compare every op against.

Every reduction follows the library rules: an empty segment gives 0 for every reduction,
mean is sum / max(count, 1), float16 accumulates in float32.

>>> import numpy as np
>>> naive_scatter(np.array([1.0, 2.0, 4.0]), np.array([0, 0, 2]), 3, "max")
array([2., 0., 4.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, to_numpy

__all__ = [
    "gather_rows",
    "gather_mm_rows",
    "segment_csr",
    "spmm_csr",
    "sddmm_coo",
    "sddmm_csr",
    "edge_softmax_csr",
    "edge_softmax_coo",
    "gatv2_scores_csr",
    "csr_from_keys",
    "small_csr",
    "gcn_slot_weights",
    "scatter_coo",
    "pair_runs",
    "naive_gather",
    "naive_scatter",
    "naive_segment",
    "naive_spmm",
    "naive_sddmm",
    "naive_edge_softmax",
]

REDUCTIONS = ("sum", "mean", "max", "min", "prod")


def _acc_dtype(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


# --------------------------------------------------------------------------- kernel contract
def gather_rows(x: Any, index: Any, out: Any) -> Any:
    """``out[i] = x[index[i]]`` for ``x`` [N, F], ``index`` [E], ``out`` [E, F]."""
    xp = get_namespace(x, out)
    out[...] = xp.take(x, index, axis=0)
    return out


def add_rows(out: Any, index: Any, values: Any) -> Any:
    """``out[index[i]] += values[i]`` for distinct ``index`` entries."""
    out[index] += values
    return out


def gather_mm_rows(a: Any, b: Any, index: Any, out: Any) -> Any:
    """``out[i] = a[i] @ b[index[i]]`` for ``a`` [N, K], ``b`` [R, K, M], ``out`` [N, M],
    summed over ``k`` in ascending order (each product rounded, then added: the kernels'
    order, so float32 / float64 results match them bit for bit). Forms [N, M] per ``k``."""
    xp = get_namespace(a, out)
    acc = xp.zeros(out.shape, dtype=_acc_dtype(out.dtype))
    for k in range(int(a.shape[1])):
        acc += a[:, k, None].astype(acc.dtype) * b[index, k, :].astype(acc.dtype)
    out[...] = acc
    return out


def _ufunc_reduce_rows(xp: Any, values: Any, rows: Any, num_rows: int, reduce: str) -> Any:
    """Reduce ``values`` [nnz, ...] into ``num_rows`` rows by ``rows`` [nnz] (any order).

    On CuPy the reduction runs on the host (one explicit copy each way): CuPy's ``ufunc.at``
    lacks ``multiply``, narrow integers and, before CuPy 14.1, int64 ``add``; this oracle
    and fallback (integer values, ``config(validate=True)``) is never the fast path.
    """
    if xp is not np:
        host = _ufunc_reduce_rows(np, to_numpy(values), to_numpy(rows), num_rows, reduce)
        return xp.asarray(host)
    acc = _acc_dtype(values.dtype)
    vals = values.astype(acc, copy=False)
    shape = (num_rows,) + tuple(values.shape[1:])
    count = xp.zeros(num_rows, dtype=np.int64)
    xp.add.at(count, rows, 1)
    if reduce in ("sum", "mean"):
        res = xp.zeros(shape, dtype=acc)
        xp.add.at(res, rows, vals)
        if reduce == "mean":
            div = xp.maximum(count, 1).reshape((num_rows,) + (1,) * (len(shape) - 1))
            if acc.kind == "f":
                res = res / div.astype(acc)
            else:
                res = res // div.astype(acc)
        return res
    if reduce == "prod":
        res = xp.ones(shape, dtype=acc)
        xp.multiply.at(res, rows, vals)
    elif reduce == "max":
        low = -np.inf if acc.kind == "f" else np.iinfo(acc).min
        res = xp.full(shape, low, dtype=acc)
        xp.maximum.at(res, rows, vals)
    elif reduce == "min":
        high = np.inf if acc.kind == "f" else np.iinfo(acc).max
        res = xp.full(shape, high, dtype=acc)
        xp.minimum.at(res, rows, vals)
    else:  # pragma: no cover - ops validated it
        raise ValueError(f"unknown reduce {reduce!r}")
    empty = (count == 0).reshape((num_rows,) + (1,) * (len(shape) - 1))
    return xp.where(empty, xp.zeros((), dtype=acc), res)


def typed_spmm_csr(
    indptr: Any,
    indices: Any,
    rel: Any,
    weight: Any,
    x: Any,
    blocks: Any,
    out: Any,
    reduce: str,
) -> Any:
    """``out[d] = sum over runs g of equal rel in row d of (reduce over the run's slots of
    weight[j] * x[indices[j]]) @ blockdiag(blocks[rel[g]])`` (``blocks`` None: the reduced
    run itself). Forms the [nnz, F] values and [runs, O] products (an oracle)."""
    xp = get_namespace(x, out)
    nnz = int(indices.shape[0])
    out[...] = 0
    if nnz == 0:
        return out
    row_of = rows_of_slots(xp, indptr)
    new = xp.ones(nnz, dtype=bool)
    new[1:] = (row_of[1:] != row_of[:-1]) | (rel[1:] != rel[:-1])
    starts = xp.flatnonzero(new)
    runs = int(starts.shape[0])
    ptr = xp.concatenate([starts, xp.asarray([nnz], dtype=starts.dtype)])
    vals = xp.take(x, indices, axis=0)
    if weight is not None:
        vals = vals * weight[:, None]
    agg = xp.empty((runs, 1, x.shape[1]), dtype=x.dtype)
    segment_csr(ptr, None, vals[:, None, :], agg, reduce)
    agg = agg[:, 0, :]
    run_rel = rel[starts]
    if blocks is None:
        products = agg
    else:
        nb, si, so = blocks.shape[1:]
        products = xp.zeros((runs, nb * so), dtype=out.dtype)
        for t in to_numpy(xp.unique(run_rel)).tolist():
            sel = xp.flatnonzero(run_rel == t)
            part = agg[sel].reshape(-1, nb, si)
            products[sel] = xp.einsum("kbi,bio->kbo", part, blocks[t]).reshape(-1, nb * so)
    out[...] = _ufunc_reduce_rows(xp, products, row_of[starts], out.shape[0], "sum")
    return out


def rows_of_slots(xp: Any, indptr: Any) -> Any:
    """The row of every CSR slot, [indptr[-1] - indptr[0]] int64 (NumPy: a repeat; CuPy,
    whose repeat takes no array of counts: a search of the row ends)."""
    num_rows = indptr.shape[0] - 1
    if xp is np:
        return np.repeat(np.arange(num_rows, dtype=np.int64), indptr[1:] - indptr[:-1])
    slots = xp.arange(int(indptr[0]), int(indptr[-1]), dtype=indptr.dtype)
    return xp.searchsorted(indptr[1:], slots, side="right").astype(np.int64)


def segment_csr(indptr: Any, perm: Any, x: Any, out: Any, reduce: str) -> Any:
    """``out[r] = reduce(x[perm[j]] for j in indptr[r]:indptr[r+1])``; ``x`` [M, H, F]."""
    xp = get_namespace(x, out)
    start = int(indptr[0])
    stop = int(indptr[-1])
    slots = xp.arange(start, stop)
    ids = slots if perm is None else perm[start:stop]
    rows = rows_of_slots(xp, indptr - indptr[0])
    out[...] = _ufunc_reduce_rows(xp, x[ids], rows, out.shape[0], reduce)
    return out


def spmm_csr(
    indptr: Any, indices: Any, perm: Any, x: Any, weight: Any, out: Any, reduce: str
) -> Any:
    """Weighted CSR SpMM of the kernel contract, by materialising the messages."""
    xp = get_namespace(x, out)
    nnz = indices.shape[0]
    acc = _acc_dtype(out.dtype)
    msg = x[indices].astype(acc)  # [nnz, Hx, F]
    if weight is not None:
        eid = xp.arange(nnz) if perm is None else perm
        msg = msg * weight[eid].astype(acc)[:, :, None]
    msg = xp.broadcast_to(msg, (nnz,) + tuple(out.shape[1:]))
    rows = rows_of_slots(xp, indptr)
    out[...] = _ufunc_reduce_rows(xp, msg, rows, out.shape[0], reduce)
    return out


def gcn_slot_weights(indptr: Any, indices: Any, perm: Any, weight: Any, inv: Any, out: Any) -> Any:
    """``out[j] = inv[indices[j]] * weight[perm[j]] * inv[row(j)]`` (slot order)."""
    xp = get_namespace(weight, out)
    w = weight if perm is None else weight[perm]
    out[...] = inv[indices] * w * inv[rows_of_slots(xp, indptr)]
    return out


def _apply_op(op: str, a: Any, b: Any, xp: Any) -> Any:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b
    if op == "dot":
        return xp.sum(a * b, axis=-1, keepdims=True)
    if op == "copy_lhs":
        return xp.broadcast_to(a, xp.broadcast_shapes(a.shape, b.shape))
    if op == "copy_rhs":
        return xp.broadcast_to(b, xp.broadcast_shapes(a.shape, b.shape))
    raise ValueError(f"unknown op {op!r}")  # pragma: no cover - ops validated it


def _rows_for(target: str, src: Any, dst: Any, xp: Any) -> Any:
    if target == "u":
        return src
    if target == "v":
        return dst
    return xp.arange(src.shape[0])


def sddmm_coo(
    src: Any,
    dst: Any,
    lhs: Any,
    rhs: Any,
    out: Any,
    op: str,
    lhs_target: str,
    rhs_target: str,
) -> Any:
    """Per-edge op of the kernel contract on [rows, G, K] operands."""
    xp = get_namespace(lhs, rhs, out)
    acc = _acc_dtype(out.dtype)
    a = lhs[_rows_for(lhs_target, src, dst, xp)].astype(acc)
    b = rhs[_rows_for(rhs_target, src, dst, xp)].astype(acc)
    res = _apply_op(op, a, b, xp)
    out[...] = xp.broadcast_to(res, out.shape)
    return out


def sddmm_csr(
    indptr: Any,
    indices: Any,
    perm: Any,
    lhs: Any,
    rhs: Any,
    out: Any,
    op: str,
    lhs_target: str,
    rhs_target: str,
) -> Any:
    """``sddmm_coo`` of the edge list the CSR slots describe (targets ``u`` / ``v``);
    ``perm=None``: results in slot order."""
    xp = get_namespace(lhs, rhs, out)
    if perm is None:
        src, dst = indices, rows_of_slots(xp, indptr)
    else:
        src = xp.empty(perm.shape[0], dtype=np.int64)
        dst = xp.empty(perm.shape[0], dtype=np.int64)
        src[perm] = indices
        dst[perm] = rows_of_slots(xp, indptr)
    return sddmm_coo(src, dst, lhs, rhs, out, op, lhs_target, rhs_target)


def gatv2_scores_csr(
    indptr: Any,
    indices: Any,
    perm: Any,
    h_src: Any,
    h_dst: Any,
    att: Any,
    edge_attr: Any,
    w_edge: Any,
    negative_slope: float,
    out: Any,
) -> Any:
    """GATv2 scores in slot order: ``out[j, h] = sum_f att[h, f] * LeakyReLU(h_src[u, h, f]
    + h_dst[r, h, f] + sum_d edge_attr[e, d] * w_edge[d, h, f])`` for slot ``j`` of row
    ``r`` with source ``u = indices[j]`` and edge ``e = perm[j]`` (``j`` when None)."""
    xp = get_namespace(h_src, out)
    acc = _acc_dtype(out.dtype)
    rows = rows_of_slots(xp, indptr)
    z = h_src[indices].astype(acc) + h_dst[rows].astype(acc)
    if edge_attr.shape[1]:
        ea = (edge_attr if perm is None else edge_attr[perm]).astype(acc)
        z = z + xp.einsum("ed,dhf->ehf", ea, w_edge.astype(acc))
    z = xp.where(z < 0, z * acc.type(negative_slope), z)
    out[...] = (z * att.astype(acc)).sum(-1).astype(out.dtype)
    return out


def edge_softmax_csr(indptr: Any, perm: Any, logits: Any, out: Any) -> Any:
    """Softmax of ``logits`` [E, H] over the CSR rows (``perm`` = edge id of each slot;
    ``None``: the logits are in slot order)."""
    xp = get_namespace(logits, out)
    num_rows = indptr.shape[0] - 1
    if perm is None:
        rows = rows_of_slots(xp, indptr)
    else:
        rows = xp.empty(perm.shape[0], dtype=np.int64)
        rows[perm] = rows_of_slots(xp, indptr)
    out[...] = _softmax_by_rows(xp, logits, rows, num_rows)
    return out


def edge_softmax_coo(index: Any, logits: Any, out: Any, num_rows: int) -> Any:
    """Softmax of ``logits`` [E] over the edges sharing a row ``index[e]``."""
    xp = get_namespace(logits, out)
    out[...] = _softmax_by_rows(xp, logits, index, num_rows)
    return out


def _softmax_by_rows(xp: Any, logits: Any, rows: Any, num_rows: int) -> Any:
    acc = _acc_dtype(logits.dtype)
    vals = logits.astype(acc)
    rowmax = _ufunc_reduce_rows(xp, vals, rows, num_rows, "max")
    ex = xp.exp(vals - rowmax[rows])
    rowsum = _ufunc_reduce_rows(xp, ex, rows, num_rows, "sum")
    return (ex / rowsum[rows]).astype(logits.dtype)


def csr_from_keys(keys: Any, indptr: Any, perm: Any) -> Any:
    """Fill ``indptr`` (key counts, prefix-summed) and ``perm`` (stable argsort of keys)."""
    xp = get_namespace(keys, indptr, perm)
    num_rows = indptr.shape[0] - 1
    indptr[0] = 0
    if keys.shape[0] == 0:
        indptr[1:] = 0
        return perm
    if xp is np:
        indptr[1:] = np.cumsum(np.bincount(keys, minlength=num_rows))
        perm[...] = np.argsort(keys, kind="stable")
    else:
        # CuPy: the row pointer from the sorted keys (bincount would read the largest key
        # back to the host to size its output, a device sync)
        perm[...] = xp.argsort(keys)  # CuPy's sort is stable
        bounds = xp.arange(1, num_rows + 1, dtype=keys.dtype)
        indptr[1:] = xp.searchsorted(keys[perm], bounds, side="left")
    return perm


def small_csr(
    src: Any, dst: Any, indptr: Any, indices: Any, perm: Any, src_out: Any, dst_out: Any
) -> int:
    """The one-call CSR build of the kernel contract (validated ids): the stable sort by
    ``dst``, ``indices = src[perm]``, copies of the edge list; 1 when ``dst`` was already
    sorted, else 0."""
    csr_from_keys(dst, indptr, perm)
    src_out[...] = src
    dst_out[...] = dst
    indices[...] = src[perm]
    return int(src.shape[0] < 2 or bool((dst[1:] >= dst[:-1]).all()))


def scatter_coo(index: Any, x: Any, out: Any, reduce: str) -> Any:
    """``out[r] = reduce(x[e] for e with index[e] == r)``; ``x`` [E, H, F], ``out`` [R, H, F]."""
    xp = get_namespace(index, x, out)
    out[...] = _ufunc_reduce_rows(xp, x, index, out.shape[0], reduce)
    return out


def pair_runs(order: Any, src: Any, dst: Any, mapping: Any, first: Any, counts: Any) -> int:
    """Number the runs of equal ``(src, dst)`` pairs along ``order`` (the edges sorted by
    ``(src, dst)``, parallel edges by id): ``mapping[e]`` the run of edge ``e``,
    ``first[k]`` the first edge of run ``k``, ``counts[k]`` its size. Returns ``K``."""
    xp = get_namespace(order, src, mapping)
    e = int(order.shape[0])
    if e == 0:
        return 0
    s, d = src[order], dst[order]
    new = xp.ones(e, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    starts = xp.nonzero(new)[0]
    k = int(starts.shape[0])
    mapping[order] = (xp.cumsum(new) - 1).astype(mapping.dtype)
    first[:k] = order[starts].astype(first.dtype)
    counts[:k] = xp.diff(xp.concatenate([starts, xp.asarray([e], dtype=starts.dtype)])).astype(
        counts.dtype
    )
    return k


# --------------------------------------------------------------------------- naive oracles
def naive_gather(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Rows ``x[index]`` by a Python loop."""
    out = np.empty((len(index),) + x.shape[1:], dtype=x.dtype)
    for i, j in enumerate(index.tolist()):
        out[i] = x[j]
    return out


def naive_scatter(src: np.ndarray, index: np.ndarray, dim_size: int, reduce: str) -> np.ndarray:
    """Reduce rows of ``src`` by COO ``index`` with NumPy ufunc ``.at`` (edge order)."""
    res = _ufunc_reduce_rows(np, src, np.asarray(index, dtype=np.int64), dim_size, reduce)
    return res.astype(src.dtype)


def naive_segment(src: np.ndarray, ptr: np.ndarray, reduce: str) -> np.ndarray:
    """Reduce ``src[ptr[i]:ptr[i+1]]`` for every segment ``i``."""
    ptr = np.asarray(ptr, dtype=np.int64)
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    part = src[ptr[0] : ptr[-1]]
    res = _ufunc_reduce_rows(np, part, rows, len(ptr) - 1, reduce)
    return res.astype(src.dtype)


def naive_spmm(
    edge_index: np.ndarray,
    x: np.ndarray,
    edge_weight: np.ndarray | None,
    reduce: str,
    num_dst_nodes: int,
) -> np.ndarray:
    """``out[t] = reduce_{e: s->t} w[e] * x[s]`` by materialising [E, ...] messages.

    ``edge_weight`` [E] scales whole rows; [E, H] scales head ``h`` of ``x`` [N, H, F]
    (or [N, H] / [N, 1, F], broadcast).
    """
    src = np.asarray(edge_index[0], dtype=np.int64)
    dst = np.asarray(edge_index[1], dtype=np.int64)
    w_dtype = edge_weight.dtype if edge_weight is not None else x.dtype
    acc = _acc_dtype(np.result_type(x.dtype, w_dtype))
    msg = x[src].astype(acc)
    if edge_weight is not None:
        w = edge_weight.astype(acc)
        if w.ndim == 1:
            w = w.reshape((-1,) + (1,) * (msg.ndim - 1))
        else:
            w = w.reshape(w.shape + (1,) * (msg.ndim - w.ndim))
        msg = msg * w
    res = _ufunc_reduce_rows(np, msg, dst, num_dst_nodes, reduce)
    out_dtype = np.result_type(x.dtype, edge_weight.dtype) if edge_weight is not None else x.dtype
    return res.astype(out_dtype)


def naive_sddmm(
    edge_index: np.ndarray,
    lhs: np.ndarray,
    rhs: np.ndarray,
    op: str,
    lhs_target: str,
    rhs_target: str,
) -> np.ndarray:
    """Per-edge ``op`` by a Python loop over edges with NumPy broadcasting per edge."""
    src = np.asarray(edge_index[0], dtype=np.int64)
    dst = np.asarray(edge_index[1], dtype=np.int64)
    out_dtype = np.result_type(lhs.dtype, rhs.dtype)
    acc = _acc_dtype(out_dtype)
    pick = {"u": src, "v": dst, "e": np.arange(len(src))}
    rows = []
    for e in range(len(src)):
        a = lhs[pick[lhs_target][e]].astype(acc)
        b = rhs[pick[rhs_target][e]].astype(acc)
        rows.append(_apply_op(op, a, b, np))
    if rows:
        return np.stack(rows).astype(out_dtype)
    a = np.ones(lhs.shape[1:], acc)
    b = np.ones(rhs.shape[1:], acc)
    return np.zeros((0,) + _apply_op(op, a, b, np).shape, out_dtype)


def naive_edge_softmax(
    edge_index: np.ndarray, logits: np.ndarray, num_dst_nodes: int
) -> np.ndarray:
    """Softmax of ``logits`` [E] or [E, H] over edges with the same target."""
    dst = np.asarray(edge_index[1], dtype=np.int64)
    two_d = logits.reshape(logits.shape[0], int(np.prod(logits.shape[1:], dtype=np.int64)))
    out = np.empty(two_d.shape, dtype=_acc_dtype(logits.dtype))
    for t in range(num_dst_nodes):
        sel = np.flatnonzero(dst == t)
        if len(sel) == 0:
            continue
        v = two_d[sel].astype(out.dtype)
        ex = np.exp(v - v.max(axis=0))
        out[sel] = ex / ex.sum(axis=0)
    return out.reshape(logits.shape).astype(logits.dtype)
