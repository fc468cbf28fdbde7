"""CPU kernel of the GCN normalisation ``deg(s)^-1/2 * w * deg(t)^-1/2`` over a CSR.

The caller sums each row's edge weights in slot order with ``segment.segment_csr`` (as
``scatter`` / ``spmm`` sum them), takes ``deg^-1/2`` as ``1 / sqrt(deg)`` with NumPy
(torch's ``pow(-0.5)``, PyG's bits), and ``gcn_slot_weights`` writes the normalised
weights in the CSR's slot order in one pass, reading the edge weights through ``perm``.
The array code this replaces (a gather into slot order, a degree SpMM, a ``repeat`` and
two gathers) cost ~30 us of dispatch on a 100-node graph, for the same bits, except
that a NaN made where two NaNs meet (``0 * inf`` times a NaN ``deg^-1/2``) may carry the
other sign bit (which operand a product passes on is the compiler's choice). Deterministic:
rows are split between workers in whole blocks, so the bits do not depend on the thread
count.
"""

from __future__ import annotations

from typing import Any

from numba import njit, prange

from arraygnn.kernels.cpu._blocks import SERIAL_WORK, block_rows, num_blocks

__all__ = ["gcn_slot_weights"]


@njit(cache=True, nogil=True)
def _slot_range(indptr, indices, perm, weight, inv, out, r0, r1):  # pragma: no cover
    for r in range(r0, r1):
        at_target = inv[r]
        for j in range(indptr[r], indptr[r + 1]):
            out[j] = inv[indices[j]] * weight[j if perm is None else perm[j]] * at_target


@njit(cache=True, nogil=True, parallel=True)
def _slot_blocks(indptr, indices, perm, weight, inv, out, nblocks):  # pragma: no cover
    for b in prange(nblocks):
        r0 = block_rows(indptr, b, nblocks)
        r1 = block_rows(indptr, b + 1, nblocks)
        _slot_range(indptr, indices, perm, weight, inv, out, r0, r1)


def gcn_slot_weights(indptr: Any, indices: Any, perm: Any, weight: Any, inv: Any, out: Any) -> Any:
    """Fill ``out`` [E] (slot order) with ``inv[indices[j]] * weight[perm[j]] * inv[r]``
    for slot ``j`` of row ``r``: a square CSR, ``inv`` [R] the rows' ``deg^-1/2``,
    ``weight`` [E] in edge order, all one float dtype; ``perm`` None when the slots are
    the edges."""
    rows = indptr.shape[0] - 1
    if indices.shape[0] + rows <= SERIAL_WORK:
        _slot_range(indptr, indices, perm, weight, inv, out, 0, rows)
    else:
        _slot_blocks(indptr, indices, perm, weight, inv, out, num_blocks(rows))
    return out
