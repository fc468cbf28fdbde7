"""CUDA GATv2 scores: the CPU module's ``gatv2_scores_csr`` (same contract), no
``[E, H, F]`` array.

One thread per (slot, head) output, grid-stride; each score is summed by its thread in
feature order (the edge term's depth sum first, as the CPU kernel), so the bits do not
depend on the launch. The slot's row comes from the row pointer (one search per call).
Float16 accumulates in float32.
"""

from __future__ import annotations

from typing import Any

from numba import cuda

from arraygnn.kernels import reference
from arraygnn.kernels.cuda import _launch

__all__ = ["gatv2_scores_csr"]


@cuda.jit(cache=True)
def _score_kernel(
    rows, indices, perm, has_perm, h_src, h_dst, att, edge_attr, w_edge, slope, acc_zero, out
):  # pragma: no cover - runs on the device
    heads = att.shape[0]
    feats = att.shape[1]
    depth = edge_attr.shape[1]
    total = out.shape[0] * heads
    for t in range(cuda.grid(1), total, cuda.gridsize(1)):
        j = t // heads
        h = t - j * heads
        u = indices[j]
        r = rows[j]
        e = perm[j] if has_perm else j
        acc = acc_zero
        for f in range(feats):
            z = (h_src[u, h, f] - acc_zero) + h_dst[r, h, f]
            if depth > 0:
                s = (edge_attr[e, 0] - acc_zero) * w_edge[0, h, f]
                for d in range(1, depth):
                    s += (edge_attr[e, d] - acc_zero) * w_edge[d, h, f]
                z += s
            if z < acc_zero:
                z = z * slope
            acc += (att[h, f] - acc_zero) * z
        out[j, h] = acc


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
    """Fill ``out`` [E, H] (slot order) with GATv2 scores; see the CPU module."""
    if out.size == 0:
        return out
    xp = _launch.namespace(indptr)
    rows = reference.rows_of_slots(xp, indptr).astype(indices.dtype, copy=False)
    zero = _launch.accumulator_zero(out.dtype)
    has_perm = perm is not None
    perm_arg = perm if has_perm else indices  # never read without a perm
    _launch.launch(
        _score_kernel,
        out.shape[0] * out.shape[1],
        rows,
        indices,
        perm_arg,
        has_perm,
        h_src,
        h_dst,
        att,
        edge_attr,
        w_edge,
        zero.dtype.type(negative_slope),
        zero,
        out,
    )
    return out
