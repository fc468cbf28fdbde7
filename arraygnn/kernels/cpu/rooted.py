"""Serial CPU kernels of the rooted-subgraph transforms (``RootedEgoNets`` /
``RootedRWSubgraph``, :mod:`arraygnn.transforms.rooted_subgraph`): a breadth-first search
per root for the ego-net members, and per subgraph the edges whose ends are both members
(each edge listed once, under its endpoint of lower degree). Imported on first use, so
importing the transforms does not load Numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ego_bfs", "inside_edges"]


# Serial kernels: the transform mostly runs per small graph (a dataset's transform), where
# a parallel launch costs more than it saves; no sort inside (Numba's compiles slowly).
@njit(cache=True, nogil=True)
def inside_edges(
    m_ptr, m_idx, a_ptr, a_perm, other, owner_is_src, n, counts, found
):  # pragma: no cover - compiled
    """Per subgraph ``s`` (nodes ``m_idx[m_ptr[s]:m_ptr[s + 1]]``): the edges listed under
    its nodes whose far end is a member. ``found`` None: their number into ``counts``;
    else (edge id, source slot, target slot) into ``found``'s columns, subgraph by
    subgraph (a slot is the position in ``m_idx``)."""
    pos = np.full(n, -1, dtype=np.int64)
    at = 0
    for s in range(m_ptr.shape[0] - 1):
        for k in range(m_ptr[s], m_ptr[s + 1]):
            pos[m_idx[k]] = k
        seen = 0
        for k in range(m_ptr[s], m_ptr[s + 1]):
            w = m_idx[k]
            for j in range(a_ptr[w], a_ptr[w + 1]):
                far = pos[other[j]]
                if far >= 0:
                    seen += 1
                    if found is not None:
                        found[0, at] = a_perm[j]
                        found[1, at] = k if owner_is_src[j] else far
                        found[2, at] = far if owner_is_src[j] else k
                        at += 1
        if found is None:
            counts[s] = seen
        for k in range(m_ptr[s], m_ptr[s + 1]):
            pos[m_idx[k]] = -1


@njit(cache=True, nogil=True)
def ego_bfs(in_ptr, in_src, n, hops, m_ptr, n_id):  # pragma: no cover - compiled
    """Per root: the nodes reaching it in at most ``hops`` edges (``n_id`` None: their
    number into ``m_ptr[root + 1]``; else written, unordered, from ``m_ptr[root]``)."""
    seen = np.full(max(n, 1), -1, dtype=np.int64)
    nodes = np.empty(max(n, 1), dtype=np.int64)
    for root in range(n):
        seen[root] = root
        nodes[0] = root
        size = 1
        lo = 0
        for _ in range(hops):
            hi = size
            for t in range(lo, hi):
                v = nodes[t]
                for j in range(in_ptr[v], in_ptr[v + 1]):
                    u = in_src[j]
                    if seen[u] != root:
                        seen[u] = root
                        nodes[size] = u
                        size += 1
            if size == hi:
                break
            lo = hi
        if n_id is None:
            m_ptr[root + 1] = size
        else:
            at = m_ptr[root]
            for t in range(size):  # (a loop: a slice assignment compiles 5x slower)
                n_id[at + t] = nodes[t]
