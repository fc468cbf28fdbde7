"""CUDA fused SpMM over the destination-sorted CSR (no [E, F] message array).

``out[r, h, f] = reduce over slots j of row r of weight[perm[j], h] * x[indices[j], h, f]``
Same contract as :func:`arraygnn.kernels.cpu.spmm.spmm_csr`. One thread per output
element, consecutive threads on consecutive features (a warp reads 32 consecutive
features of one source row: coalesced for F >= 32), accumulators in registers (float32
for float16), rows longer than ``_launch.HEAVY_ROW_EDGES`` split into pieces reduced in
parallel and combined in a fixed order. No atomics: the same bits on every run and for
every launch size. Empty rows give 0; mean divides by the row length.
"""

from __future__ import annotations

from typing import Any

from arraygnn.kernels.cuda._row_reduce import reduce_rows

__all__ = ["spmm_csr"]


def spmm_csr(
    indptr: Any, indices: Any, perm: Any, x: Any, weight: Any, out: Any, reduce: str
) -> Any:
    """Fill ``out`` [R, H, F] (CuPy arrays; NumPy under the simulator).

    ``indptr`` [R+1], ``indices`` [nnz] (source of each slot), ``perm`` [nnz] (edge id of
    each slot) or None, all one int dtype; ``x`` [N, 1 or H, F]; ``weight`` [E, 1 or H] or
    None; ``reduce`` in sum / mean / max / min (prod also works). Returns ``out``.
    """
    return reduce_rows(indptr, x, out, reduce, gather=indices, perm=perm, weights=weight)
