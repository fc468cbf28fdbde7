"""Plain NumPy references (float64 loops) for the CUDA kernel tests."""

from __future__ import annotations

import numpy as np

_REDUCERS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


def spmm_ref(src, dst, x, weights, reduce, num_dst):
    """out[t] = reduce over edges s->t of w[e] * x[s]; x [N, H, F], w [E, H] or None."""
    x64 = x.astype(np.float64)
    heads = x.shape[1] if weights is None else max(x.shape[1], weights.shape[1])
    out = np.zeros((num_dst, heads, x.shape[2]))
    for t in range(num_dst):
        edges = np.flatnonzero(dst == t)
        if edges.size == 0:
            continue
        msg = np.broadcast_to(x64[src[edges]], (edges.size, heads, x.shape[2]))
        if weights is not None:
            msg = msg * weights[edges].astype(np.float64)[:, :, None]
        out[t] = _REDUCERS[reduce](msg, axis=0)
    return out


def segment_ref(index, values, reduce, num_segments):
    """out[s] = reduce of values[e] with index[e] == s; values [E, H, F]."""
    out = np.zeros((num_segments,) + values.shape[1:])
    for s in range(num_segments):
        rows = values[index == s].astype(np.float64)
        if rows.shape[0]:
            out[s] = _REDUCERS[reduce](rows, axis=0)
    return out


def edge_softmax_ref(dst, logits, num_dst):
    out = np.zeros(logits.shape)
    lg = logits.astype(np.float64)
    for t in range(num_dst):
        edges = np.flatnonzero(dst == t)
        if edges.size:
            z = np.exp(lg[edges] - lg[edges].max(axis=0))
            out[edges] = z / z.sum(axis=0)
    return out


def sddmm_ref(src, dst, lhs, rhs, op, lhs_target, rhs_target):
    """lhs / rhs [rows, G, K] (size-1 dims broadcast); result [E, G, K] or [E, G, 1] (dot)."""
    pick = {"u": src, "v": dst, "e": np.arange(src.shape[0])}
    a = lhs.astype(np.float64)[pick[lhs_target]]
    b = rhs.astype(np.float64)[pick[rhs_target]]
    if op == "dot":
        return (a * b).sum(axis=-1, keepdims=True)
    if op == "copy_lhs":
        return np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)).copy()
    if op == "copy_rhs":
        return np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)).copy()
    return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](a, b)
