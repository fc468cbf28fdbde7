"""Disjoint and temporal neighbour sampling: PyG's ``disjoint=True`` / ``time_attr=``.

Every seed grows its own tree: the sampled nodes are ``(subgraph, node)`` pairs, so a node
reached from two seeds appears twice (``batch`` says which seed's tree holds it) and a node
reached twice in one tree appears once. The hops run over all trees at once: per hop and
relation one vectorised range sample over the frontier, then one sorted-key lookup of the
``subgraph * num_nodes + node`` keys (no per-seed Python loop). This is the engine of the
loaders' ``disjoint`` / temporal mode (:mod:`arraygnn.neighbor_loader`,
:mod:`arraygnn.hetero_neighbor_loader` and the link loaders); the semantics are pyg-lib's
``neighbor_sample``:

RULE: a relation's in-edges are kept in CSC order: by destination, then by the neighbour's
      node time (node-level time) or the edge's time (edge-level time), then by edge id.
RULE: a neighbour is eligible only if its time (node- or edge-level) is ``<=`` its tree's
      seed time; relations without a time (a hetero neighbour type or edge type lacking
      the attribute) are sampled without a constraint, as pyg-lib.
RULE: ``'uniform'`` draws uniformly among the eligible in-edges (``k`` of them without
      replacement, ``k`` draws with); ``'last'`` keeps the ``k`` most recent eligible ones
      (the last ``k`` in CSC order); ``k = -1`` keeps every eligible in-edge.
RULE: nodes are numbered seeds first, then hop by hop; within a hop relation by relation,
      by centre (the previous hop's order), and within a centre in CSC order where all
      its eligible in-edges are kept (``-1``, ``'last'``, or ``deg <= k``), in draw order
      otherwise (as pyg-lib); a node is new where its ``(subgraph, node)`` pair is first
      seen. Edges follow the same order: ``row`` the neighbour's batch id, ``col`` the
      centre's.
RULE: without replacement on the CPU the draw is Floyd's ``O(k)`` per centre (the Numba
      kernel of :mod:`arraygnn.sampling`); on CuPy every eligible in-edge gets a random key.

>>> import numpy as np
>>> from arraygnn.disjoint_sampling import csc, sample_trees
>>> src, dst = np.array([1, 2, 2, 0]), np.array([0, 0, 1, 2])   # 1->0, 2->0, 2->1, 0->2
>>> rel = csc(np, src, dst, 3)
>>> out = sample_trees(np, {"n": 3}, {("n", "e", "n"): rel}, {"n": np.array([0, 1])},
...                    {("n", "e", "n"): [-1]}, rng=np.random.default_rng(0))
>>> out.n_id["n"].tolist(), out.batch["n"].tolist()     # node 2 is in both trees
([0, 1, 1, 2, 2], [0, 1, 0, 0, 1])
>>> out.row[("n", "e", "n")].tolist(), out.col[("n", "e", "n")].tolist()
([2, 3, 4], [0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arraygnn._namespace import repeat_counts

__all__ = ["Csc", "csc", "sample_trees", "Trees", "STRATEGIES", "check_times"]

#: PyG's ``temporal_strategy`` values
STRATEGIES = ("uniform", "last")


@dataclass
class Csc:
    """One relation's in-edges by destination (private to the loaders).

    ``indptr`` ``[num_dst + 1]``; ``perm`` the edge ids in CSC order; ``src`` their source
    ids; ``time`` their neighbour / edge times in that order, or ``None`` (no constraint)."""

    indptr: Any
    perm: Any
    src: Any
    time: Any = None


def csc(xp: Any, src: Any, dst: Any, num_dst: int, time: Any = None) -> Csc:
    """The CSC of edges ``src -> dst``; ``time`` (per edge, in edge order) sorts each
    neighbourhood by time (ties by edge id) and constrains the samples."""
    src = xp.asarray(src).astype(np.int64, copy=False)
    dst = xp.asarray(dst).astype(np.int64, copy=False)
    if time is None:
        perm = xp.argsort(dst, kind="stable")
    else:
        if xp is np:
            keys = [time, dst]  # NumPy's lexsort is stable: ties keep the edge order
        else:  # float64 keys: the times by their exact rank (int64 times pass 2**53)
            rank = xp.unique(time, return_inverse=True)[1].reshape(-1)
            keys = [xp.arange(dst.shape[0]), rank, dst]
        perm = _lexsort(xp, keys)
    counts = xp.bincount(dst, minlength=num_dst) if dst.shape[0] else xp.zeros(num_dst, np.int64)
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)]).astype(np.int64)
    perm = perm.astype(np.int64)
    return Csc(
        indptr=indptr,
        perm=perm,
        src=src[perm],
        time=None if time is None else time[perm],
    )


def _lexsort(xp: Any, keys: list[Any]) -> Any:
    """Stable order by the last key, then the one before, ... (NumPy takes a tuple of
    arrays of mixed dtypes; CuPy one stacked array)."""
    if xp is np:
        return np.lexsort(tuple(keys))
    return xp.lexsort(xp.stack([k.astype(np.float64) for k in keys]))


def check_times(xp: Any, where: str, what: str, value: Any, rows: int | None) -> Any:
    """``value`` as a 1-D real array of ``rows`` entries (``rows=None``: any length), or a
    ``TypeError`` / ``ValueError`` naming ``what``."""
    from arraygnn._namespace import get_namespace, is_array

    if not is_array(value):
        value = xp.asarray(value) if isinstance(value, (list, tuple)) else value
    if not is_array(value):
        raise TypeError(f"{where}: {what} must be an array of times, got {type(value).__name__}")
    if get_namespace(value) is not xp:
        raise TypeError(f"{where}: {what} and the graph mix NumPy and CuPy arrays")
    if value.dtype.kind not in "iuf":
        raise TypeError(f"{where}: {what} must hold integer or float times, got {value.dtype}")
    if value.ndim != 1:
        raise ValueError(f"{where}: {what} must be 1-D, got shape {tuple(value.shape)}")
    if rows is not None and int(value.shape[0]) != rows:
        raise ValueError(f"{where}: {what} must have {rows} entries, got {int(value.shape[0])}")
    return value


@dataclass
class Trees:
    """The sampled trees: per node type ``n_id`` / ``batch`` / ``num_sampled_nodes``, per
    relation ``row`` / ``col`` (batch ids) / ``e_id`` / ``num_sampled_edges``."""

    n_id: dict = field(default_factory=dict)
    batch: dict = field(default_factory=dict)
    num_sampled_nodes: dict = field(default_factory=dict)
    row: dict = field(default_factory=dict)
    col: dict = field(default_factory=dict)
    e_id: dict = field(default_factory=dict)
    num_sampled_edges: dict = field(default_factory=dict)


class _KeyMap:
    """One node type's ``(subgraph, node)`` pairs -> batch ids: a sorted key array."""

    def __init__(self, xp: Any, n: int) -> None:
        self.xp, self.n = xp, max(int(n), 1)
        self.keys = xp.zeros(0, dtype=np.int64)
        self.ids = xp.zeros(0, dtype=np.int64)
        self.count = 0

    def lookup(self, keys: Any) -> Any:
        xp = self.xp
        if self.keys.shape[0] == 0:
            return xp.full(keys.shape[0], -1, dtype=np.int64)
        at = xp.minimum(xp.searchsorted(self.keys, keys), self.keys.shape[0] - 1)
        return xp.where(self.keys[at] == keys, self.ids[at], -1)

    def add(self, keys: Any) -> Any:
        """Batch ids for ``keys``: known pairs keep theirs, new ones are numbered in order of
        first appearance. Returns ``(ids, positions of the first sightings of new keys)``."""
        xp = self.xp
        ids = self.lookup(keys)
        new = xp.flatnonzero(ids < 0)
        if new.shape[0] == 0:
            return ids, new
        uniq, first, inverse = xp.unique(keys[new], return_index=True, return_inverse=True)
        order = xp.argsort(first)  # the distinct new keys in order of first appearance
        rank = xp.empty_like(order)
        rank[order] = xp.arange(order.shape[0])
        ids[new] = self.count + rank[inverse.reshape(-1)]
        fresh_ids = self.count + rank
        self.count += int(uniq.shape[0])
        # merge the two sorted key arrays in O(n + m log n) (no sort of the merged array)
        size = self.keys.shape[0] + uniq.shape[0]
        at = xp.searchsorted(self.keys, uniq) + xp.arange(uniq.shape[0])
        old = xp.ones(size, dtype=bool)
        old[at] = False
        keys = xp.empty(size, dtype=np.int64)
        keys[at], keys[old] = uniq, self.keys
        batch_ids = xp.empty(size, dtype=np.int64)
        batch_ids[at], batch_ids[old] = fresh_ids, self.ids
        self.keys, self.ids = keys, batch_ids
        return ids, new[first[order]]


def _upper_bound(xp: Any, values: Any, lo: Any, hi: Any, limit: Any) -> Any:
    """Per range ``[lo, hi)`` of the sorted-per-range ``values``: the first position whose
    value exceeds ``limit`` (a vectorised binary search, ``log2(max range)`` steps)."""
    lo, hi = lo.copy(), hi.copy()
    if lo.shape[0] == 0:
        return hi
    steps = int(xp.max(hi - lo)).bit_length() if lo.shape[0] else 0
    for _ in range(steps + 1):
        active = lo < hi
        if not bool(active.any()):
            break
        mid = (lo + hi) // 2
        ok = values[xp.where(active, mid, 0)] <= limit
        lo = xp.where(active & ok, mid + 1, lo)
        hi = xp.where(active & ~ok, mid, hi)
    return lo


def _ranges(xp: Any, start: Any, deg: Any) -> tuple[Any, Any]:
    """``(owner, position)`` of every slot of the ranges ``[start, start + deg)``."""
    owner = repeat_counts(xp, xp.arange(start.shape[0], dtype=np.int64), deg)
    seg = xp.cumsum(deg) - deg
    local = xp.arange(owner.shape[0], dtype=np.int64) - seg[owner]
    return owner, start[owner] + local


def _draw(
    xp: Any, rel: Csc, start: Any, deg: Any, fanout: int, replace: bool, rng: Any
) -> tuple[Any, Any]:
    """``(owner, position)`` of the sampled slots: per range ``k = fanout`` of its ``deg``
    slots (all of them, in order, when ``fanout < 0`` or, without replacement,
    ``deg <= k``), by owner; a range's drawn slots come in draw order (as pyg-lib's)."""
    if fanout < 0 or (not replace and (deg.shape[0] == 0 or int(deg.max()) <= fanout)):
        return _ranges(xp, start, deg)
    if replace:
        has = xp.flatnonzero(deg > 0)
        owner = xp.repeat(has, fanout)
        offset = xp.floor(rng.random(owner.shape[0]) * deg[owner]).astype(np.int64)
        return owner, start[owner] + xp.minimum(offset, deg[owner] - 1)
    if xp is not np:
        return _draw_by_keys(xp, start, deg, fanout, rng)
    # Floyd's O(k) per range: the Numba kernel of arraygnn.sampling over [start, end) pairs
    # (its "indptr" holds each range's two ends; it returns positions)
    from arraygnn.kernels.cpu.sampling import _sample

    bounds = np.stack([start, start + deg], axis=1).reshape(-1)
    pairs = np.arange(0, 2 * start.shape[0], 2, dtype=np.int64)
    counts = np.minimum(deg, fanout)
    pos = np.empty(int(counts.sum()), dtype=np.int64)
    seed = int(rng.integers(2**32))  # Numba's generator keeps 32 bits of a seed
    _sample(bounds, pairs, int(fanout), seed, pos)
    return np.repeat(np.arange(start.shape[0], dtype=np.int64), counts), pos


def _draw_by_keys(xp: Any, start: Any, deg: Any, fanout: int, rng: Any) -> tuple[Any, Any]:
    """Without replacement on the GPU: one random key per slot, the ``fanout`` smallest
    keys of each range (``O(sum(deg))``; in key order within a range). A range of at most
    ``fanout`` slots is kept whole in CSC order (its slots keyed by position)."""
    owner, pos = _ranges(xp, start, deg)
    keys = xp.where(deg[owner] > fanout, rng.random(owner.shape[0]), pos.astype(np.float64))
    order = _lexsort(xp, [keys, owner])  # by range, then key
    rank = xp.arange(owner.shape[0]) - (xp.cumsum(deg) - deg)[owner]
    picked = order[rank < fanout]
    return owner[picked], pos[picked]


def sample_trees(
    xp: Any,
    num_nodes: Mapping[Any, int],
    rels: Mapping[tuple, Csc],
    seeds: Mapping[Any, Any],
    num_neighbors: Mapping[tuple, Sequence[int]],
    *,
    seed_time: Any = None,
    replace: bool = False,
    strategy: str = "uniform",
    rng: Any = None,
) -> Trees:
    """Sample one tree per seed (PyG's disjoint mode), hop by hop.

    Args:
        num_nodes: ``{node_type: count}`` (the key space of each type).
        rels: ``{(src, rel, dst): Csc}``, sampled in this order within a hop.
        seeds: ``{node_type: ids}``; subgraph ids run over the types in this order.
        num_neighbors: ``{relation: fan-outs per hop}``, the same number of hops each.
        seed_time: one time per subgraph (required when a relation has times).
        replace, strategy, rng: with replacement; ``'uniform'`` or ``'last'``; a NumPy
            or CuPy generator.
    """
    hops = len(next(iter(num_neighbors.values()))) if num_neighbors else 0
    maps = {t: _KeyMap(xp, n) for t, n in num_nodes.items()}
    ids: dict[Any, list[Any]] = {t: [] for t in num_nodes}
    subs: dict[Any, list[Any]] = {t: [] for t in num_nodes}
    out = Trees()
    offset = 0
    for t in num_nodes:
        out.num_sampled_nodes[t] = [0]
    for t, s in seeds.items():  # subgraph ids run over the seed types in this order
        k = int(s.shape[0])
        out.num_sampled_nodes[t] = [k]
        if k:
            b = xp.arange(offset, offset + k, dtype=np.int64)
            maps[t].add(b * maps[t].n + s)
            ids[t].append(s.astype(np.int64, copy=False))
            subs[t].append(b)
            offset += k
    if any(rel.time is not None for rel in rels.values()):
        if seed_time is None:
            raise ValueError("sample_trees: seed_time is required when a relation has times")
        if seed_time.ndim != 1 or int(seed_time.shape[0]) != offset:
            raise ValueError(
                f"sample_trees: seed_time must have {offset} entries (one per tree), got "
                f"shape {tuple(seed_time.shape)}"
            )
    # per type: the previous hop's nodes (global ids, subgraphs, first batch id)
    frontier = {t: (ids[t][0], subs[t][0], 0) for t in num_nodes if ids[t]}
    edges: dict[tuple, tuple[list, list, list]] = {et: ([], [], []) for et in rels}
    for et in rels:
        out.num_sampled_edges[et] = []
    for hop in range(hops):
        added: dict[Any, list[tuple[Any, Any]]] = {t: [] for t in num_nodes}
        for et, rel in rels.items():
            src_t, _, dst_t = et
            fanout = int(num_neighbors[et][hop])
            front = frontier.get(dst_t)
            if front is None or front[0].shape[0] == 0 or fanout == 0:
                out.num_sampled_edges[et].append(0)
                continue
            centre, sub, base = front
            start = rel.indptr[centre]
            end = rel.indptr[centre + 1]
            if rel.time is not None:
                end = _upper_bound(xp, rel.time, start, end, seed_time[sub])
                if strategy == "last" and fanout >= 0:
                    start = xp.maximum(start, end - fanout)
            owner, pos = _draw(xp, rel, start, end - start, fanout, replace, rng)
            nbr = rel.src[pos]
            nbr_sub = sub[owner]
            kmap = maps[src_t]
            local, first = kmap.add(nbr_sub * kmap.n + nbr)
            added[src_t].append((nbr[first], nbr_sub[first]))
            rows, cols, eids = edges[et]
            rows.append(local)
            cols.append(base + owner)
            eids.append(rel.perm[pos])
            out.num_sampled_edges[et].append(int(pos.shape[0]))
        frontier = {}
        for t in num_nodes:
            parts = added[t]
            k = sum(int(p[0].shape[0]) for p in parts)
            out.num_sampled_nodes[t].append(k)
            if parts:
                nodes = xp.concatenate([p[0] for p in parts])
                sub = xp.concatenate([p[1] for p in parts])
                frontier[t] = (nodes, sub, maps[t].count - k)
                ids[t].append(nodes)
                subs[t].append(sub)
    empty = xp.zeros(0, dtype=np.int64)
    for t in num_nodes:
        out.n_id[t] = xp.concatenate(ids[t]).astype(np.int64, copy=False) if ids[t] else empty
        out.batch[t] = xp.concatenate(subs[t]) if subs[t] else empty
    for et, (rows, cols, eids) in edges.items():
        out.row[et] = xp.concatenate(rows) if rows else empty
        out.col[et] = xp.concatenate(cols) if cols else empty
        out.e_id[et] = xp.concatenate(eids).astype(np.int64, copy=False) if eids else empty
    return out
