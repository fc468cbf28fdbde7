"""CPU typed SpMM: per-type neighbour aggregation and per-type weights in one pass.

``out[d] = sum over type groups g of row d of (reduce over slots j in g of
weight[j] * x[indices[j]]) @ blockdiag(blocks[rel[g]])``

The relational GCN's arithmetic (DGL's ``gather_mm`` / ``segment_mm`` idea, fused with the
aggregation): the slots of each destination row are grouped by type (equal ``rel``
values contiguous), each group is reduced into a small buffer and multiplied by its
type's weight straight into the output row. Nothing of size ``[groups, F]`` or
``[groups, out]`` is formed, and the output is written once, in order. Row-parallel over
cost-balanced row blocks (``_blocks``); each row by one worker in slot order, so the same
bits on every run and thread count.

``blocks`` ``[T, B, si, so]`` is a block-diagonal weight per type (``B = 1``: dense); with
``blocks`` None the reduced group itself is added (``x`` rows are already outputs). The
weight loop runs over ``so`` innermost (vectorised): the op sends only shapes where a
type's weight is small and ``so`` is wide enough to pay (see ``arraygnn.nn.rgcn_conv``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from arraygnn.kernels.cpu._blocks import (
    MAX,
    MEAN,
    MIN,
    PROD,
    REDUCE_CODES,
    SERIAL_WORK,
    block_rows,
    num_blocks,
)
from arraygnn.kernels.cpu._prefetch import PREFETCH_DISTANCE, prefetch_row

__all__ = ["typed_spmm_csr"]


@njit(cache=True, nogil=True)
def _typed_rows(indptr, indices, rel, weight, x, blocks, out, code, r0, r1):  # pragma: no cover
    """Serial body: rows [r0, r1) of the parallel kernel."""
    feats = x.shape[1]
    width = out.shape[1]
    nnz = indices.shape[0]
    ahead = PREFETCH_DISTANCE
    agg = np.empty(feats, dtype=x.dtype)
    for d in range(r0, r1):
        for o in range(width):
            out[d, o] = 0
        j = indptr[d]
        end = indptr[d + 1]
        while j < end:
            t = rel[j]
            count = 0
            while j < end and rel[j] == t:
                if j + ahead < nnz:
                    prefetch_row(x, indices[j + ahead])
                s = indices[j]
                w = 1.0 if weight is None else weight[j]
                if count == 0:
                    for f in range(feats):
                        agg[f] = x[s, f] if weight is None else w * x[s, f]
                elif code == MAX:
                    for f in range(feats):
                        agg[f] = np.maximum(agg[f], x[s, f] if weight is None else w * x[s, f])
                elif code == MIN:
                    for f in range(feats):
                        agg[f] = np.minimum(agg[f], x[s, f] if weight is None else w * x[s, f])
                elif code == PROD:
                    for f in range(feats):
                        agg[f] *= x[s, f] if weight is None else w * x[s, f]
                else:
                    for f in range(feats):
                        agg[f] += x[s, f] if weight is None else w * x[s, f]
                count += 1
                j += 1
            if code == MEAN and count > 1:
                for f in range(feats):
                    agg[f] /= count
            if blocks is None:
                for f in range(feats):
                    out[d, f] += agg[f]
            else:
                nb = blocks.shape[1]
                si = blocks.shape[2]
                so = blocks.shape[3]
                for b in range(nb):
                    for i in range(si):
                        a = agg[b * si + i]
                        for o in range(so):
                            out[d, b * so + o] += a * blocks[t, b, i, o]


@njit(cache=True, nogil=True, parallel=True)
def _typed_kernel(indptr, indices, rel, weight, x, blocks, out, code, nblocks):  # pragma: no cover
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _typed_rows(indptr, indices, rel, weight, x, blocks, out, code, r0, r1)


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
    """Fill ``out`` [R, O] (see the module docstring); ``weight`` [nnz] (slot order) or
    None, ``blocks`` [T, B, si, so] or None (then ``O == F``)."""
    rows = out.shape[0]
    if rows == 0:
        return out
    code = REDUCE_CODES[reduce]
    work = indices.shape[0] * x.shape[1] + rows * out.shape[1]
    if blocks is not None:
        work += indices.shape[0] * blocks.shape[2] * out.shape[1]  # at most one group per slot
    if work <= SERIAL_WORK:
        _typed_rows(indptr, indices, rel, weight, x, blocks, out, code, 0, rows)
    else:
        _typed_kernel(indptr, indices, rel, weight, x, blocks, out, code, num_blocks(rows))
    return out
