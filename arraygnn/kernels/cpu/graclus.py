"""CPU greedy graph matching (torch_cluster's ``graclus``): visit the nodes in a given
order; an unmatched node is matched to its first unmatched neighbour (without weights) or
to its heaviest unmatched neighbour (weights: ``>=`` so the last of equal weights wins, a
weight must be ``>= 0`` to count, as torch_cluster), both get the smaller id as cluster;
a node left without a partner is its own cluster. Serial, O(N + E).
"""

from __future__ import annotations

from numba import njit

__all__ = ["graclus_match"]


@njit(cache=True, nogil=True)
def graclus_match(indptr, col, weight, use_weight, order, out):  # pragma: no cover
    """Fill ``out`` (int64, -1 at first) with each node's cluster id."""
    for n in range(order.shape[0]):
        u = order[n]
        if out[u] >= 0:
            continue
        if not use_weight:
            out[u] = u
            for e in range(indptr[u], indptr[u + 1]):
                v = col[e]
                if out[v] >= 0:
                    continue
                m = min(u, v)
                out[u] = m
                out[v] = m
                break
        else:
            best = u
            w_max = 0.0
            for e in range(indptr[u], indptr[u + 1]):
                v = col[e]
                if out[v] >= 0:
                    continue
                if weight[e] >= w_max:
                    best = v
                    w_max = weight[e]
            m = min(u, best)
            out[u] = m
            out[best] = m
    return out
