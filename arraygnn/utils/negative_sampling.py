"""PyG's negative sampling: node pairs that are not edges.

``negative_sampling`` and ``batched_negative_sampling`` draw distinct non-edges uniformly
(no self-loops unless bipartite), ``structured_negative_sampling`` one non-neighbour ``k``
per edge ``(i, j)``; ``structured_negative_sampling_feasible`` says whether that can work.

How: every candidate pair has a linear id (``row * num_cols + col`` with the self-loops
left out of the id space, or the upper triangle for ``force_undirected``). The graph's ids
are sorted once; a uniform *rank among the non-edges* ``r`` is mapped to its pair id
``r + #{edge ids e_t with e_t - t <= r}`` by one ``searchsorted`` over the sorted ids. So no
candidate is ever rejected for being an edge: each answer is exactly
``min(asked, number of non-edges)`` pairs (PyG tries three rounds of rejection sampling and
may return fewer). Draws are distinct (rejected duplicates are redrawn) and in random order.

RULE: random numbers come from ``seed`` (an int, a ``numpy.random.Generator`` - advanced in
place - or ``None`` for fresh entropy); the same seed gives the same pairs. PyG draws from
torch's and Python's global generators, so its pairs differ from these for any seed.
RULE: ``num_nodes`` left out is ``edge_index.max() + 1``, as PyG (a sync on CuPy).
RULE: the pairs are int64 arrays made from scratch, as PyG's; nothing passed in is modified.

>>> import numpy as np
>>> ei = np.array([[0, 0, 1, 2], [1, 2, 2, 0]])
>>> neg = negative_sampling(ei, num_nodes=3, seed=0)
>>> sorted(zip(*neg.tolist()))
[(1, 0), (2, 1)]
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts
from arraygnn.ops._common import check_size
from arraygnn.utils._checks import (
    bool_arg,
    check_ids,
    check_int_array,
    edge_index_arg,
    num_nodes_arg,
    same_device,
)

__all__ = [
    "batched_negative_sampling",
    "negative_sampling",
    "structured_negative_sampling",
    "structured_negative_sampling_feasible",
]

_METHODS = ("sparse", "dense")
#: a graph asked for at least this fraction of its non-edges draws a permutation of them all
_DENSE_FRACTION = 0.25
_MAX_IDS = 2**62


# ----------------------------------------------------------------------------- shared pieces


def generator(xp: ModuleType, seed: Any, where: str) -> Any:
    """A random generator on ``xp``'s device from ``seed``: an int, ``None``, or a
    ``numpy.random.Generator`` (used as it is on NumPy; on CuPy a device generator is
    seeded from it), or on CuPy a CuPy generator."""
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"{where}: seed must be an int, a numpy.random.Generator or None")
    if xp is np:
        if isinstance(seed, np.random.Generator):
            return seed
        if seed is None or isinstance(seed, (int, np.integer)):
            return np.random.default_rng(seed)
        raise TypeError(
            f"{where}: seed must be an int, a numpy.random.Generator or None, got "
            f"{type(seed).__name__}"
        )
    if isinstance(seed, np.random.Generator):
        return xp.random.default_rng(int(seed.integers(2**63 - 1)))
    if seed is None or isinstance(seed, (int, np.integer)):
        return xp.random.default_rng(seed)
    return seed  # a CuPy generator


def uniform_below(xp: ModuleType, gen: Any, high: Any) -> Any:
    """One uniform int64 in ``[0, high[i])`` per entry of ``high`` (every entry > 0)."""
    if xp is np:
        return gen.integers(0, high, dtype=np.int64) if high.shape[0] else high.copy()
    # 62 random bits from two float draws (a float carries 53): a product ``random * high``
    # alone could not reach most values once ``high`` passes 2**53; the modulo's bias is
    # below high / 2**62
    size = int(high.shape[0])
    hi31 = (gen.random(size) * 2.0**31).astype(np.int64)
    lo31 = (gen.random(size) * 2.0**31).astype(np.int64)
    return ((hi31 << 31) | lo31) % high


def free_to_id(sorted_ids: Any, ranks: Any) -> Any:
    """The id of rank ``ranks`` among the ids *not* in ``sorted_ids`` (sorted, distinct
    int64): ``r + #{t: sorted_ids[t] - t <= r}``."""
    xp = _xp_of(sorted_ids)
    shifted = sorted_ids - xp.arange(sorted_ids.shape[0], dtype=np.int64)
    order = xp.argsort(ranks)  # sorted queries search much faster (cache-friendly)
    ordered = ranks[order]
    out = xp.empty_like(ordered)
    out[order] = ordered + xp.searchsorted(shifted, ordered, side="right")
    return out


def sorted_unique(xp: ModuleType, values: Any) -> Any:
    """The distinct values, sorted (a sort and a mask: NumPy 2's hashing ``unique`` is
    several times slower on large int64 arrays)."""
    out = xp.sort(values)
    if out.shape[0] > 1:
        out = out[xp.concatenate([xp.ones(1, dtype=bool), out[1:] != out[:-1]])]
    return out


def _first_occurrences(xp: ModuleType, values: Any) -> Any:
    """Positions of the first occurrence of each distinct value, in increasing order."""
    order = xp.argsort(values, kind="stable")
    ordered = values[order]
    first = xp.ones(ordered.shape[0], dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return xp.sort(order[first])


def _xp_of(array: Any) -> ModuleType:
    from arraygnn._namespace import get_namespace

    return get_namespace(array)


def directed_ids(row: Any, col: Any, n: Any) -> Any:
    """Linear ids of pairs ``row != col`` among ``n * (n - 1)`` (self-loops skipped)."""
    return row * (n - 1) + col - (col > row)


def directed_pairs(ids: Any, n: Any) -> tuple[Any, Any]:
    """Inverse of :func:`directed_ids`."""
    xp = _xp_of(ids)
    m = xp.maximum(n - 1, 1)
    row, col = ids // m, ids % m
    return row, col + (col >= row)


def _tri_start(a: Any, n: Any) -> Any:
    """The id of pair ``(a, a + 1)`` in the upper triangle of ``n`` nodes."""
    return a * (2 * n - a - 1) // 2


def _undirected_ids(a: Any, b: Any, n: Any) -> Any:
    """Linear ids of pairs ``a < b`` among ``n * (n - 1) / 2``."""
    return _tri_start(a, n) + b - a - 1


def _undirected_pairs(ids: Any, n: Any) -> tuple[Any, Any]:
    xp = _xp_of(ids)
    m = (2 * n - 1).astype(np.float64)
    disc = xp.maximum(m * m - 8.0 * ids.astype(np.float64), 0.0)
    a = xp.floor((m - xp.sqrt(disc)) / 2.0).astype(np.int64)
    a = xp.clip(a, 0, xp.maximum(n - 2, 0))
    # float rounding: step ``a`` in integers until the row holds the id (a few steps even
    # near n ~ 2**31, where the float guess can be off by more than one row)
    while True:
        down = _tri_start(a, n) > ids
        up = (a + 1 < n - 1) & (_tri_start(a + 1, n) <= ids)
        if not bool((down | up).any()):
            break
        a = a - down + up
    return a, ids - _tri_start(a, n) + a + 1


def _distinct_ranks(xp: ModuleType, gen: Any, free: Any, want: Any) -> tuple[Any, Any]:
    """``want[g]`` distinct uniform ranks in ``[0, free[g])`` for each group ``g``
    (``want <= free``), in random order: ``(group, rank)``, grouped by group."""
    groups = xp.arange(free.shape[0], dtype=np.int64)
    dense = want > 0
    dense &= want >= _DENSE_FRACTION * free
    chunks_g: list[Any] = []
    chunks_r: list[Any] = []
    # dense groups: a random permutation of all their ranks, cut to ``want``
    dg = groups[dense]
    if dg.shape[0]:
        sizes = free[dg]
        g = repeat_counts(xp, dg, sizes)
        starts = repeat_counts(xp, xp.cumsum(sizes) - sizes, sizes)
        rank = xp.arange(int(g.shape[0]), dtype=np.int64) - starts
        order = xp.lexsort(xp.stack([gen.random(int(g.shape[0])), g.astype(np.float64)]))
        g, rank = g[order], rank[order]
        keep = xp.arange(int(g.shape[0])) - starts < want[g]  # the first want[g]
        chunks_g.append(g[keep])
        chunks_r.append(rank[keep])
    # sparse groups: draws with replacement, duplicates redrawn
    need = xp.where(dense, 0, want)
    base = xp.cumsum(free) - free  # group-major global ranks: unique across groups
    taken = xp.zeros(0, dtype=np.int64)  # sorted global ranks drawn so far
    while int(need.sum()):
        draw = need + need // 16 + xp.where(need > 0, 8, 0)
        g = repeat_counts(xp, groups, draw)
        cand = base[g] + uniform_below(xp, gen, free[g])
        first = _first_occurrences(xp, cand)  # in draw order (grouped)
        g, cand = g[first], cand[first]
        if taken.shape[0]:
            pos = xp.minimum(xp.searchsorted(taken, cand), taken.shape[0] - 1)
            fresh = taken[pos] != cand
            g, cand = g[fresh], cand[fresh]
        counts = xp.bincount(g, minlength=int(free.shape[0]))
        starts = repeat_counts(xp, xp.cumsum(counts) - counts, counts)
        keep = xp.arange(int(g.shape[0])) - starts < need[g]
        g, cand = g[keep], cand[keep]
        chunks_g.append(g)
        chunks_r.append(cand - base[g])
        taken = xp.sort(xp.concatenate([taken, cand]))
        need = need - xp.bincount(g, minlength=int(free.shape[0]))
    if not chunks_g:
        empty = xp.zeros(0, dtype=np.int64)
        return empty, empty
    g = xp.concatenate(chunks_g)
    r = xp.concatenate(chunks_r)
    order = xp.argsort(g, kind="stable")
    return g[order], r[order]


def _num_neg_arg(where: str, num_neg_samples: Any) -> Any:
    if num_neg_samples is None:
        return None
    if isinstance(num_neg_samples, (bool, np.bool_)):
        raise TypeError(f"{where}: num_neg_samples must be an int, a float or None")
    if isinstance(num_neg_samples, (int, np.integer)):
        return check_size(f"{where}: num_neg_samples", num_neg_samples)
    if isinstance(num_neg_samples, (float, np.floating)):
        if not math.isfinite(num_neg_samples) or num_neg_samples < 0:
            raise ValueError(
                f"{where}: num_neg_samples must be a finite ratio >= 0, got {num_neg_samples}"
            )
        return float(num_neg_samples)
    raise TypeError(
        f"{where}: num_neg_samples must be an int, a float or None, got "
        f"{type(num_neg_samples).__name__}"
    )


def _method_arg(where: str, method: Any) -> None:
    if method not in _METHODS:
        raise ValueError(f"{where}: method must be 'sparse' or 'dense', got {method!r}")


def _sample(
    where: str,
    xp: ModuleType,
    gen: Any,
    row: Any,
    col: Any,
    graph: Any,
    nsrc: Any,
    ndst: Any,
    sptr: Any,
    dptr: Any,
    num_edges: Any,
    num_neg: Any,
    bipartite: bool,
    undirected: bool,
) -> Any:
    """The negatives of each graph ``g`` (``nsrc[g]`` x ``ndst[g]`` nodes from ``sptr[g]``
    / ``dptr[g]``); ``row`` / ``col`` are the edges' global ids, ``graph`` their graphs."""
    num_graphs = int(nsrc.shape[0])
    nf = nsrc.astype(np.float64)  # the pair count in floats first: int64 could wrap
    if num_graphs and float((nf * (ndst if bipartite else nsrc - 1)).sum()) >= _MAX_IDS:
        raise ValueError(f"{where}: too many node pairs for int64 pair ids (num_nodes too large)")
    if bipartite:
        pop = nsrc * ndst
    elif undirected:
        pop = nsrc * (nsrc - 1) // 2
    else:
        pop = nsrc * (nsrc - 1)
    pop_base = xp.cumsum(pop) - pop

    def per_edge(values: Any) -> Any:  # one graph: a scalar, no [E] gather
        return int(values[0]) if num_graphs == 1 else values[graph]

    r, c = row - per_edge(sptr), col - per_edge(dptr)
    n = per_edge(nsrc)
    if bipartite:
        local = r * per_edge(ndst) + c
    elif undirected:
        local = _undirected_ids(xp.minimum(r, c), xp.maximum(r, c), n)
    else:
        local = directed_ids(r, c, n)
    local += per_edge(pop_base)
    if not bipartite:
        local[r == c] = -1  # self-loops are outside the id space
    ids = sorted_unique(xp, local)
    ids = ids[int((ids < 0).sum()) :]  # the loops' -1 sort first
    ends = xp.searchsorted(ids, pop_base + pop)
    free = pop - (ends - xp.concatenate([xp.zeros(1, dtype=ends.dtype), ends[:-1]]))
    if num_neg is None:
        want = num_edges
    elif isinstance(num_neg, float):
        want = (num_neg * num_edges.astype(np.float64)).astype(np.int64)
    else:
        want = xp.full(num_graphs, num_neg, dtype=np.int64)
    if undirected:
        want = want // 2
    want = xp.minimum(want, free)
    g, rank = _distinct_ranks(xp, gen, free, want)
    free_base = xp.cumsum(free) - free
    local = free_to_id(ids, free_base[g] + rank) - pop_base[g]
    if bipartite:
        a, b = local // ndst[g], local % ndst[g]
        return xp.stack([a + sptr[g], b + dptr[g]])
    if undirected:
        a, b = _undirected_pairs(local, nsrc[g])
        a, b = a + sptr[g], b + sptr[g]
        # per graph: its pairs, then the same pairs reversed (PyG's layout)
        both_g = xp.concatenate([2 * g, 2 * g + 1])
        order = xp.argsort(both_g, kind="stable")
        return xp.stack([xp.concatenate([a, b])[order], xp.concatenate([b, a])[order]])
    a, b = directed_pairs(local, nsrc[g])
    return xp.stack([a + sptr[g], b + sptr[g]])


# ----------------------------------------------------------------------------- public


def negative_sampling(
    edge_index: Any,
    num_nodes: int | tuple[int, int] | None = None,
    num_neg_samples: int | float | None = None,
    method: str = "sparse",
    force_undirected: bool = False,
    *,
    seed: Any = None,
) -> Any:
    """Distinct random node pairs that are not edges of ``edge_index`` [2, E].

    ``num_nodes``: an int, or ``(num_src, num_dst)`` for a bipartite graph; ``None`` is
    ``edge_index.max() + 1`` (PyG's rule). ``num_neg_samples``: a count, a ratio of ``E``
    (a float: ``int(ratio * E)``), or ``None`` (``E``). ``force_undirected=True`` (not
    bipartite) returns ``num_neg_samples // 2`` pairs ``i < j`` followed by the same pairs
    reversed; an edge in either direction excludes the pair. No self-loops unless bipartite.
    ``method`` is checked (``'sparse'`` / ``'dense'``) and both give the same pairs (see the
    module notes: no membership test is needed). Returns int64 ``[2, M]`` with ``M = min(
    asked, non-edges)`` (times two for ``force_undirected``), in random order.

    ``seed``: an int, a ``numpy.random.Generator`` or ``None`` (PyG uses torch's global
    generator instead; the pairs differ from PyG's for any seed).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 2], [1, 2, 3]])
    >>> neg = negative_sampling(ei, num_nodes=4, num_neg_samples=5, seed=1)
    >>> neg.shape, set(zip(*neg.tolist())) & {(0, 1), (1, 2), (2, 3)}
    ((2, 5), set())
    """
    where = "negative_sampling"
    xp = edge_index_arg(where, edge_index)
    _method_arg(where, method)
    force_undirected = bool_arg(where, "force_undirected", force_undirected)
    num_neg = _num_neg_arg(where, num_neg_samples)
    if isinstance(num_nodes, (tuple, list)):
        if len(num_nodes) != 2:
            raise ValueError(f"{where}: num_nodes as a tuple must be (num_src, num_dst)")
        ns = check_size(f"{where}: num_nodes[0]", num_nodes[0])
        nd = check_size(f"{where}: num_nodes[1]", num_nodes[1])
        check_ids(where, "edge_index[0]", edge_index[0], ns)
        check_ids(where, "edge_index[1]", edge_index[1], nd)
        bipartite, force_undirected = True, False  # PyG ignores it for bipartite graphs
    else:
        ns = nd = num_nodes_arg(where, edge_index, num_nodes)
        bipartite = False
    gen = generator(xp, seed, where)
    row = edge_index[0].astype(np.int64, copy=False)
    col = edge_index[1].astype(np.int64, copy=False)
    zero = xp.zeros(1, dtype=np.int64)
    return _sample(
        where, xp, gen, row, col, xp.zeros(row.shape[0], dtype=np.int64),
        xp.full(1, ns, dtype=np.int64), xp.full(1, nd, dtype=np.int64), zero, zero,
        xp.full(1, int(row.shape[0]), dtype=np.int64), num_neg, bipartite, force_undirected,
    )  # fmt: skip


def _batch_vector(where: str, name: str, batch: Any, edge_index: Any) -> Any:
    check_int_array(where, name, batch)
    same_device(where, edge_index=edge_index, **{name: batch})
    if batch.ndim != 1:
        raise ValueError(f"{where}: {name} must be one-dimensional, got {tuple(batch.shape)}")
    check_ids(where, name, batch, None)
    if batch.shape[0] > 1 and not bool((batch[1:] >= batch[:-1]).all()):
        raise ValueError(f"{where}: {name} must be sorted (non-decreasing), PyG's layout")
    return batch.astype(np.int64)


def batched_negative_sampling(
    edge_index: Any,
    batch: Any,
    num_neg_samples: int | float | None = None,
    method: str = "sparse",
    force_undirected: bool = False,
    *,
    seed: Any = None,
) -> Any:
    """:func:`negative_sampling` inside each example of a batch: pairs never cross examples.

    ``batch`` [N] assigns each node to its example (sorted, PyG's layout), or is a pair
    ``(src_batch, dst_batch)`` for a bipartite graph. Every edge must join two nodes of the
    same example. Each example gets ``num_neg_samples`` pairs (``None``: its edge count; a
    float: that ratio of its edge count), at most its number of non-edges; examples come in
    order (``force_undirected``: each example's pairs, then the same pairs reversed, as
    PyG). The examples are ``0 .. batch.max()`` (PyG skips trailing examples without edges).
    All examples are sampled together (no Python loop over them).

    >>> import numpy as np
    >>> ei = np.array([[0, 1, 3, 4], [1, 2, 4, 5]])
    >>> neg = batched_negative_sampling(ei, np.array([0, 0, 0, 1, 1, 1]), seed=0)
    >>> bool(((neg < 3).all(axis=0) | (neg >= 3).all(axis=0)).all()), neg.shape
    (True, (2, 4))
    """
    where = "batched_negative_sampling"
    xp = edge_index_arg(where, edge_index)
    _method_arg(where, method)
    force_undirected = bool_arg(where, "force_undirected", force_undirected)
    num_neg = _num_neg_arg(where, num_neg_samples)
    if isinstance(batch, (tuple, list)):
        if len(batch) != 2:
            raise ValueError(f"{where}: batch as a tuple must be (src_batch, dst_batch)")
        sb = _batch_vector(where, "batch[0]", batch[0], edge_index)
        db = _batch_vector(where, "batch[1]", batch[1], edge_index)
        bipartite, force_undirected = True, False
    else:
        sb = db = _batch_vector(where, "batch", batch, edge_index)
        bipartite = False
    num_graphs = max(int(b.max()) + 1 if b.shape[0] else 0 for b in (sb, db))
    check_ids(where, "edge_index[0]", edge_index[0], int(sb.shape[0]))
    check_ids(where, "edge_index[1]", edge_index[1], int(db.shape[0]))
    row = edge_index[0].astype(np.int64)
    col = edge_index[1].astype(np.int64)
    graph = sb[row]
    if row.shape[0] and not bool((db[col] == graph).all()):
        bad = int(xp.flatnonzero(db[col] != graph)[0])
        raise ValueError(
            f"{where}: edge {bad} ({int(row[bad])} -> {int(col[bad])}) joins two examples; "
            "every edge must stay inside its example"
        )
    nsrc = xp.bincount(sb, minlength=num_graphs)[:num_graphs].astype(np.int64)
    ndst = xp.bincount(db, minlength=num_graphs)[:num_graphs].astype(np.int64)
    sptr, dptr = xp.cumsum(nsrc) - nsrc, xp.cumsum(ndst) - ndst
    num_edges = xp.bincount(graph, minlength=num_graphs)[:num_graphs].astype(np.int64)
    gen = generator(xp, seed, where)
    return _sample(
        where, xp, gen, row, col, graph, nsrc, ndst, sptr, dptr, num_edges, num_neg, bipartite,
        force_undirected,
    )  # fmt: skip


def _row_ids(xp: ModuleType, edge_index: Any, n: int, loops: bool) -> Any:
    """Sorted distinct ids ``row * n + col`` of the edges (plus each source's self-loop
    when ``loops``)."""
    row = edge_index[0].astype(np.int64)
    ids = row * n + edge_index[1].astype(np.int64)
    if loops:
        ids = xp.concatenate([ids, row * (n + 1)])
    return sorted_unique(xp, ids)


def structured_negative_sampling(
    edge_index: Any,
    num_nodes: int | None = None,
    contains_neg_self_loops: bool = True,
    *,
    seed: Any = None,
) -> tuple[Any, Any, Any]:
    """For every edge ``(i, j)`` a node ``k`` with ``(i, k)`` not an edge: ``(i, j, k)``.

    ``k`` is uniform among ``i``'s non-neighbours (``i`` itself included unless
    ``contains_neg_self_loops=False``), drawn directly (PyG redraws until every ``k``
    fits, forever when some ``i`` is adjacent to every node; here that is a
    ``ValueError``, see :func:`structured_negative_sampling_feasible`). ``num_nodes``
    defaults to ``edge_index.max() + 1``. ``i`` and ``j`` are copies of ``edge_index``'s
    rows (their dtype), ``k`` is int64. ``seed`` as in :func:`negative_sampling`.

    >>> import numpy as np
    >>> i, j, k = structured_negative_sampling(np.array([[0, 1, 2], [1, 2, 0]]), seed=0)
    >>> i.tolist(), j.tolist(), [(a, b) in {(0, 1), (1, 2), (2, 0)} for a, b in zip(i, k)]
    ([0, 1, 2], [1, 2, 0], [False, False, False])
    """
    where = "structured_negative_sampling"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    loops = not bool_arg(where, "contains_neg_self_loops", contains_neg_self_loops)
    if n * n >= _MAX_IDS:
        raise ValueError(f"{where}: num_nodes={n} is too large for int64 pair ids")
    gen = generator(xp, seed, where)
    ids = _row_ids(xp, edge_index, n, loops)
    used = xp.bincount(ids // max(n, 1), minlength=n)
    free = n - used
    row = edge_index[0].astype(np.int64)
    if row.shape[0]:
        full = free[row] == 0
        if bool(full.any()):
            node = int(row[xp.flatnonzero(full)[0]])
            raise ValueError(
                f"{where}: node {node} is adjacent to every node"
                + ("" if not loops else " but itself")
                + ", so it has no negative; check structured_negative_sampling_feasible first"
            )
    before = xp.cumsum(used) - used
    rank = row * n - before[row] + uniform_below(xp, gen, free[row])
    k = free_to_id(ids, rank) - row * n
    return edge_index[0].copy(), edge_index[1].copy(), k


def structured_negative_sampling_feasible(
    edge_index: Any, num_nodes: int | None = None, contains_neg_self_loops: bool = True
) -> bool:
    """Whether no node is adjacent to every node (every other node when
    ``contains_neg_self_loops=False``), PyG's test: then
    :func:`structured_negative_sampling` finds a negative for every edge. Parallel edges
    count once; ``num_nodes`` defaults to ``edge_index.max() + 1``. A sync on CuPy.

    >>> import numpy as np
    >>> ei = np.array([[0, 0, 1, 1, 2, 2, 2], [1, 2, 0, 2, 0, 1, 1]])
    >>> structured_negative_sampling_feasible(ei, 3, contains_neg_self_loops=False)
    False
    >>> structured_negative_sampling_feasible(ei, 3)
    True
    """
    where = "structured_negative_sampling_feasible"
    xp = edge_index_arg(where, edge_index)
    n = num_nodes_arg(where, edge_index, num_nodes)
    with_loops = bool_arg(where, "contains_neg_self_loops", contains_neg_self_loops)
    if n * n >= _MAX_IDS:
        raise ValueError(f"{where}: num_nodes={n} is too large for int64 pair ids")
    keep = edge_index[0] != edge_index[1]
    ei = edge_index if with_loops else edge_index[:, keep]
    ids = _row_ids(xp, ei, n, False)
    deg = xp.bincount(ids // max(n, 1), minlength=n)
    return bool((deg < (n if with_loops else n - 1)).all())
