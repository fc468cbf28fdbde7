"""CPU GATv2 scores: one fused pass per CSR slot, no ``[E, H, F]`` array.

``out[j, h] = sum_f att[h, f] * LeakyReLU(h_src[u, h, f] + h_dst[r, h, f] + t[h, f])`` with
``t[h, f] = sum_d edge_attr[e, d] * w_edge[d, h, f]`` (no edge term when ``edge_attr`` has
no columns), for slot ``j`` of row ``r``, source ``u = indices[j]``, edge ``e = perm[j]``
(``j`` when ``perm`` is None). Row-parallel over cost-balanced row blocks; each score is
summed by one worker in feature order, so the bits are the same on every run and thread
count. The destination row is read in order, the source row prefetched a few slots ahead.
"""

from __future__ import annotations

from typing import Any

from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["gatv2_scores_csr"]


@njit(cache=True, nogil=True, error_model="numpy")
def _score_rows(
    indptr, indices, perm, h_src, h_dst, att, edge_attr, w_edge, slope, zero, out, r0, r1
):  # pragma: no cover - compiled
    """Serial body: the slots of rows [r0, r1)."""
    heads = att.shape[0]
    feats = att.shape[1]
    depth = edge_attr.shape[1]
    nnz = indices.shape[0]
    for r in range(r0, r1):
        for j in range(indptr[r], indptr[r + 1]):
            q = j + PREFETCH_DISTANCE
            if q < nnz:
                prefetch_row(h_src, indices[q])
                if depth > 0 and perm is not None:
                    prefetch_row(edge_attr, perm[q])
            u = indices[j]
            e = j if perm is None else perm[j]
            for h in range(heads):
                acc = zero
                for f in range(feats):
                    z = h_src[u, h, f] + h_dst[r, h, f]
                    if depth > 0:
                        t = edge_attr[e, 0] * w_edge[0, h, f]
                        for d in range(1, depth):
                            t += edge_attr[e, d] * w_edge[d, h, f]
                        z += t
                    if z < zero:  # NaN stays NaN, as torch's leaky_relu
                        z = z * slope
                    acc += att[h, f] * z
                out[j, h] = acc


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _score_kernel(
    indptr, indices, perm, h_src, h_dst, att, edge_attr, w_edge, slope, zero, out, nblocks
):  # pragma: no cover - compiled
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _score_rows(indptr, indices, perm, h_src, h_dst, att, edge_attr, w_edge, slope, zero,
                    out, r0, r1)  # fmt: skip


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
    """Fill ``out`` [E, H] (slot order) with GATv2 scores; see the module docstring.
    ``h_src`` [N_src, H, F], ``h_dst`` [N_dst, H, F], ``att`` [H, F], ``edge_attr`` [E, D]
    (edge order, ``D`` may be 0), ``w_edge`` [D, H, F], all of ``out``'s dtype."""
    if out.size == 0:
        return out
    dtype = out.dtype.type
    slope, zero = dtype(negative_slope), dtype(0)
    rows = indptr.shape[0] - 1
    args = (indptr, indices, perm, h_src, h_dst, att, edge_attr, w_edge, slope, zero, out)
    if out.size * att.shape[1] * (1 + edge_attr.shape[1]) <= SERIAL_WORK:
        _score_rows(*args, 0, rows)
    else:
        _score_kernel(*args, num_blocks(rows))
    return out
