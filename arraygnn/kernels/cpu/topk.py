"""CPU row-wise top-k (``torch.topk(scores, k, dim=-1).indices`` with ``sorted=True``):
the column ids of each row's ``k`` largest values, largest first.

Each row is scanned once in column order, keeping its best ``k`` in a small sorted buffer:
a value enters only when it beats the current ``k``-th (so on a tie the smaller column id
stays ahead) and is placed after every kept value it does not beat. NaN counts as larger
than every number (``torch.topk``'s order), NaNs among themselves by column. ``O(cols)``
per row plus ``O(k)`` per insertion; rows run in parallel (``prange``), deterministic.
"""

from __future__ import annotations

from numba import njit, prange

__all__ = ["row_top_k"]


@njit(cache=True, nogil=True, inline="always")
def _beats(a, b):  # pragma: no cover - compiled
    """``a`` ranks strictly above ``b`` (NaN above numbers)."""
    if a != a:
        return b == b
    return a > b


@njit(cache=True, nogil=True, parallel=True)
def row_top_k(scores, k, out):  # pragma: no cover - compiled
    """``out[r, :k]``: the columns of row ``r``'s ``k`` best ``scores``, best first."""
    rows, cols = scores.shape
    for r in prange(rows):
        vals = scores[r, :k].copy()
        ids = out[r]
        for j in range(k):  # the first k columns, insertion-sorted
            ids[j] = j
            i = j
            while i > 0 and _beats(scores[r, j], vals[i - 1]):
                vals[i] = vals[i - 1]
                ids[i] = ids[i - 1]
                i -= 1
            vals[i] = scores[r, j]
            ids[i] = j
        for j in range(k, cols):
            v = scores[r, j]
            if not _beats(v, vals[k - 1]):
                continue
            i = k - 1
            while i > 0 and _beats(v, vals[i - 1]):
                vals[i] = vals[i - 1]
                ids[i] = ids[i - 1]
                i -= 1
            vals[i] = v
            ids[i] = j
