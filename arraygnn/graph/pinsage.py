"""DGL's ``RandomWalkNeighborSampler`` and ``PinSAGESampler``: each seed's neighbours are
the nodes its random walks visit most often (PinSAGE's importance-based neighbourhoods).

Per seed, ``num_random_walks`` walks of ``num_traversals`` rounds of the metapath (for
PinSAGE: ``ntype -> other_type -> ntype``), each round after the first entered with
probability ``1 - termination_prob``; the node reached at the end of every round is a
visit. The ``num_neighbors`` most visited nodes (ties: the larger id first, DGL's
``std::greater`` sort) become edges ``neighbour -> seed`` with the visit count in
``edata[weight_column]``; a seed may count itself, as in DGL.

>>> import numpy as np
>>> from arraygnn.graph import heterograph
>>> g = heterograph({("item", "bought-by", "user"): (np.array([0, 1, 1]), np.array([0, 0, 1])),
...                  ("user", "bought", "item"): (np.array([0, 0, 1]), np.array([0, 1, 1]))})
>>> s = PinSAGESampler(g, "item", "user", 2, 0.5, 10, 2, seed=0)
>>> ng = s([0])
>>> ng.canonical_etypes, int(ng.edata["weights"].sum()) <= 20
([('item', '_E', 'item')], True)

RULE: the walks run through :func:`arraygnn.random_walks.random_walk` (``seed`` an int or
      a NumPy ``Generator``); counting and top-k are vectorised: each seed's visits
      sorted on their own (as DGL's kernel), then one stable sort of the counts.
RULE: edges are grouped by seed in the order given, each seed's by count (then id)
      descending; counts are in the graph's idtype, as DGL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.graph.core import DEFAULT_ETYPE, Graph, check_graph

__all__ = ["RandomWalkNeighborSampler", "PinSAGESampler", "select_pinsage_neighbors"]


def _count(where: str, name: str, v: Any, minimum: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{where}: {name} must be an int, got {v!r}")
    if v < minimum:
        raise ValueError(f"{where}: {name} must be >= {minimum}, got {v}")
    return int(v)


def select_pinsage_neighbors(src: Any, dst: Any, num_samples_per_node: int, k: int) -> tuple:
    """DGL's ``_select_pinsage_neighbors``: ``src`` / ``dst`` in chunks of
    ``num_samples_per_node`` (one chunk per seed, ``dst`` its seed); per chunk the ``k``
    most frequent non-``-1`` ``src`` values (ties: the larger value first). Returns
    ``(src, dst, counts)`` in ``src``'s integer dtype; the inputs are not changed (DGL's
    kernel sorts ``src`` in place).

    Raises ``ValueError`` when ``src`` and ``dst`` are not 1-D arrays of one length, that
    length is not a multiple of ``num_samples_per_node`` (DGL asserts it), ``src`` holds an
    id below ``-1`` (``-1`` marks a walk that stopped), ``num_samples_per_node < 1`` or
    ``k < 0`` (DGL divides by zero / keeps every value); ``TypeError`` for non-integers.

    >>> s, d, c = select_pinsage_neighbors([3, 1, 3, -1, 2, 2], [0, 0, 0, 5, 5, 5], 3, 1)
    >>> s.tolist(), d.tolist(), c.tolist()
    ([3, 2], [0, 5], [2, 2])
    """
    where = "select_pinsage_neighbors"
    m = _count(where, "num_samples_per_node", num_samples_per_node, 1)
    k = _count(where, "k", k, 0)
    src, dst = np.asarray(src), np.asarray(dst)
    for name, a in (("src", src), ("dst", dst)):
        if a.ndim != 1:
            raise ValueError(f"{where}: {name} must be 1-D, got shape {a.shape}")
        if a.size and (a.dtype.kind not in "iu"):
            raise TypeError(f"{where}: {name} must hold integer ids, got dtype {a.dtype}")
    if src.shape != dst.shape:
        raise ValueError(f"{where}: src has {src.shape[0]} ids, dst {dst.shape[0]}")
    if src.shape[0] % m:
        raise ValueError(
            f"{where}: {src.shape[0]} ids in src are not a multiple of num_samples_per_node={m}"
        )
    dt = src.dtype if src.dtype.kind in "iu" else np.dtype(np.int64)
    if src.size and int(src.min()) < -1:
        raise ValueError(
            f"{where}: src holds id {int(src.min())}; ids are >= 0 and -1 marks a stopped walk"
        )
    # each chunk sorted on its own (a copy; DGL's std::sort per chunk): O(n log m), several
    # times faster than one global sort of (chunk, value) keys on a million walks
    s = np.sort(src.reshape(-1, m), axis=1).reshape(-1)
    first = np.empty(s.shape[0], bool)
    np.not_equal(s[1:], s[:-1], out=first[1:])
    first[::m] = True  # runs of one value within one chunk
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, s.shape[0]))
    uv, uc = s[starts], starts // m
    valid = uv != -1  # stopped walks are no neighbour
    uv, uc, counts = uv[valid], uc[valid], counts[valid]
    # per chunk: count descending, then value descending (DGL's std::greater on pairs): the
    # runs are by (chunk, value) ascending, so reversed and stably sorted by (chunk, -count)
    uv, uc, counts = uv[::-1], uc[::-1], counts[::-1]
    order = np.argsort(uc * (m + 1) + (m - counts), kind="stable")
    uc, uv, counts = uc[order], uv[order], counts[order]
    rank = np.arange(uc.shape[0]) - np.searchsorted(uc, uc, side="left")
    keep = rank < k
    return uv[keep].astype(dt), dst[uc[keep] * m].astype(dt), counts[keep].astype(dt)


class RandomWalkNeighborSampler:
    """Neighbours by random-walk visit counts along ``metapath`` (DGL's class; ``seed=``
    added). ``sampler(seed_nodes)`` returns a graph of ``ntype`` nodes with edges
    ``neighbour -> seed``."""

    def __init__(
        self,
        G: Graph,
        num_traversals: int,
        termination_prob: float,
        num_random_walks: int,
        num_neighbors: int,
        metapath: Sequence[Any] | None = None,
        weight_column: str = "weights",
        *,
        seed: Any = None,
    ) -> None:
        from arraygnn.graph.structure import _named_rel

        where = type(self).__name__
        check_graph(where, G)
        self.G = G
        self.num_traversals = _count(where, "num_traversals", num_traversals, 1)
        self.num_random_walks = _count(where, "num_random_walks", num_random_walks, 1)
        self.num_neighbors = _count(where, "num_neighbors", num_neighbors, 0)
        if isinstance(termination_prob, (bool, np.bool_)) or not isinstance(
            termination_prob, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"{where}: termination_prob must be a float in [0, 1]")
        if not 0.0 <= float(termination_prob) <= 1.0:
            raise ValueError(f"{where}: termination_prob must be in [0, 1], got {termination_prob}")
        if not isinstance(weight_column, str):
            raise TypeError(f"{where}: weight_column must be a str, got {weight_column!r}")
        self.weight_column = weight_column
        if metapath is None:
            if len(G.ntypes) > 1 or len(G.canonical_etypes) > 1:
                raise ValueError(f"{where}: metapath must be given for a heterogeneous graph")
            metapath = [G.canonical_etypes[0]]
        if isinstance(metapath, str) or not isinstance(metapath, (list, tuple)):
            raise TypeError(
                f"{where}: metapath must be a list of edge types, got {type(metapath).__name__}"
            )
        path = [_named_rel(where, "metapath", G, e).canonical for e in metapath]
        if not path or path[0][0] != path[-1][2]:
            raise ValueError(f"{where}: the metapath must start and end at the same node type")
        self.ntype = path[0][0]
        self.metapath_hops = len(path)
        self.metapath = path
        self.full_metapath = path * self.num_traversals
        restart = np.zeros(self.metapath_hops * self.num_traversals)
        restart[self.metapath_hops :: self.metapath_hops] = float(termination_prob)
        self.restart_prob = restart
        try:
            self._rng = (
                seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
            )
        except (TypeError, ValueError) as err:  # NumPy's kind: ValueError for seed=-1
            raise type(err)(
                f"{where}: seed must be a non-negative int, a NumPy Generator or None, got {seed!r}"
            ) from err

    def __call__(self, seed_nodes: Any) -> Graph:
        from arraygnn.random_walks import random_walk

        g = self.G
        idtype = g.idtype
        where = f"{type(self).__name__}: seed_nodes"
        seeds = np.asarray(seed_nodes)
        if seeds.ndim > 1:  # DGL: "Expect a 1-D tensor"; a scalar is one seed, as DGL
            raise ValueError(f"{where} must be 1-D, got shape {seeds.shape}")
        seeds = seeds.reshape(-1)
        if seeds.size:
            if seeds.dtype.kind not in "iu":
                raise TypeError(f"{where} must hold integer ids, got dtype {seeds.dtype}")
            n = g.num_nodes(self.ntype)
            lo, hi = int(seeds.min()), int(seeds.max())
            if lo < 0 or hi >= n:
                bad = lo if lo < 0 else hi
                raise ValueError(
                    f"{where} holds id {bad}, outside [0, {n}) ({n} {self.ntype!r} nodes)"
                )
        seeds = np.repeat(seeds.astype(idtype, copy=False), self.num_random_walks)
        paths, _ = random_walk(
            g, seeds, metapath=self.full_metapath, restart_prob=self.restart_prob, seed=self._rng
        )
        src = paths[:, self.metapath_hops :: self.metapath_hops].reshape(-1)
        dst = np.repeat(paths[:, 0], self.num_traversals)
        src, dst, counts = select_pinsage_neighbors(
            src, dst, self.num_random_walks * self.num_traversals, self.num_neighbors
        )
        c = (self.ntype, DEFAULT_ETYPE, self.ntype)
        out = Graph(
            {c: (src.astype(idtype), dst.astype(idtype))},
            {self.ntype: g.num_nodes(self.ntype)},
            validate=False,
        )
        out.edata[self.weight_column] = counts.astype(idtype)
        return out


class PinSAGESampler(RandomWalkNeighborSampler):
    """PinSAGE's sampler on a bipartite-style graph: walks ``ntype -> other_type -> ntype``
    over the first edge type each way (DGL's ``PinSAGESampler``; ``seed=`` added)."""

    def __init__(
        self,
        G: Graph,
        ntype: str,
        other_type: str,
        num_traversals: int,
        termination_prob: float,
        num_random_walks: int,
        num_neighbors: int,
        weight_column: str = "weights",
        *,
        seed: Any = None,
    ) -> None:
        check_graph("PinSAGESampler", G)
        fw = [c for c in G.canonical_etypes if c[0] == ntype and c[2] == other_type]
        bw = [c for c in G.canonical_etypes if c[0] == other_type and c[2] == ntype]
        if not fw or not bw:
            raise ValueError(
                f"PinSAGESampler: G needs edge types {ntype!r} -> {other_type!r} and back; "
                f"it has {G.canonical_etypes}"
            )
        super().__init__(
            G,
            num_traversals,
            termination_prob,
            num_random_walks,
            num_neighbors,
            metapath=[fw[0], bw[0]],
            weight_column=weight_column,
            seed=seed,
        )
