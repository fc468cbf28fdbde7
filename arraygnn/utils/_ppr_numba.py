"""The Numba push kernel behind :func:`arraygnn.utils.get_ppr` (private; compiled on first
use, cached on disk with ``cache=True``).

One source at a time, PyG's push order exactly: a LIFO stack of nodes whose residual passed
``alpha * eps * out_degree``, a node pushed when it is not on the stack, its residual split
evenly over its out-edges in CSR order. PyG keeps ``p`` / ``r`` in Numba dicts; here they
are dense scratch arrays of length ``N`` (one set per chunk of sources, reset through the
list of touched nodes), which changes no arithmetic: a missing dict key reads 0 and
``0.0 + v`` is ``v``. The touched nodes come out in the order PyG's dict iterates them
(first pop). ``nogil=True``: chunks of sources run on Python threads in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ppr_chunk"]


@njit(cache=True, nogil=True)
def ppr_chunk(indptr, indices, sources, alpha, eps):  # pragma: no cover - compiled
    """PPR vectors of ``sources``: ``(counts [S], nodes [K], values [K] float64)``."""
    n = indptr.shape[0] - 1
    p = np.zeros(n, dtype=np.float64)
    r = np.zeros(n, dtype=np.float64)
    in_p = np.zeros(n, dtype=np.bool_)
    in_q = np.zeros(n, dtype=np.bool_)
    in_r = np.zeros(n, dtype=np.bool_)
    stack = np.empty(max(n, 1), dtype=np.int64)
    order = np.empty(max(n, 1), dtype=np.int64)
    touched = np.empty(max(n, 1), dtype=np.int64)
    counts = np.zeros(sources.shape[0], dtype=np.int64)
    cap = max(16, 4 * sources.shape[0])
    out_nodes = np.empty(cap, dtype=np.int64)
    out_vals = np.empty(cap, dtype=np.float64)
    total = 0
    alpha_eps = alpha * eps
    for s in range(sources.shape[0]):
        inode = np.int64(sources[s])
        num_p = 0
        num_r = 0
        # p = {inode: 0.0}
        order[num_p] = inode
        num_p += 1
        in_p[inode] = True
        p[inode] = 0.0
        r[inode] = alpha
        touched[num_r] = inode
        num_r += 1
        in_r[inode] = True
        top = 0
        stack[top] = inode
        top += 1
        in_q[inode] = True
        while top > 0:
            top -= 1
            unode = stack[top]
            in_q[unode] = False
            res = r[unode]
            if in_p[unode]:
                p[unode] += res
            else:
                p[unode] = res
                in_p[unode] = True
                order[num_p] = unode
                num_p += 1
            r[unode] = 0.0
            start = indptr[unode]
            end = indptr[unode + 1]
            ucount = end - start
            for j in range(start, end):
                vnode = indices[j]
                val = (1 - alpha) * res / ucount
                if not in_r[vnode]:
                    touched[num_r] = vnode
                    num_r += 1
                    in_r[vnode] = True
                r[vnode] += val
                vcount = indptr[vnode + 1] - indptr[vnode]
                if r[vnode] >= alpha_eps * vcount:
                    if not in_q[vnode]:
                        stack[top] = vnode
                        top += 1
                        in_q[vnode] = True
        if total + num_p > cap:
            while total + num_p > cap:
                cap *= 2
            grown_n = np.empty(cap, dtype=np.int64)
            grown_v = np.empty(cap, dtype=np.float64)
            grown_n[:total] = out_nodes[:total]
            grown_v[:total] = out_vals[:total]
            out_nodes = grown_n
            out_vals = grown_v
        for k in range(num_p):
            node = order[k]
            out_nodes[total + k] = node
            out_vals[total + k] = p[node]
            p[node] = 0.0
            in_p[node] = False
        total += num_p
        counts[s] = num_p
        for k in range(num_r):
            r[touched[k]] = 0.0
            in_r[touched[k]] = False
    return counts, out_nodes[:total], out_vals[:total]
