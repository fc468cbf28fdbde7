"""Edge-prediction mini-batches from a node-wise block sampler (DGL's
``dgl.dataloading.as_edge_prediction_sampler`` / ``EdgePredictionSampler``).

>>> import numpy as np
>>> from arraygnn.graph import graph, NID, EID
>>> from arraygnn.sampling import NeighborSampler
>>> from arraygnn.negative_sampler import Uniform
>>> g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])), num_nodes=5)
>>> sampler = as_edge_prediction_sampler(
...     NeighborSampler([2], seed=0), exclude="self", negative_sampler=Uniform(1, seed=0))
>>> input_nodes, pair, neg, blocks = sampler.sample(g, np.array([3, 1]))
>>> pair.ndata[NID], pair.edges(), pair.edata[EID]
(array([3, 1, 4, 2]), (array([0, 1]), array([2, 3])), array([3, 1]))
>>> neg.num_nodes() == pair.num_nodes(), blocks[0].num_dst_nodes()
(True, 4)

RULE: the positive pair graph holds the seed edges in the given order (per edge type in
      ``canonical_etypes`` order), ``edata[EID]`` their ids and their edge features; its
      nodes are the nodes the seed edges (then the negative pairs) touch, numbered as
      DGL's ``compact_graphs([pair_graph, neg_pair_graph])``: per node type in order of
      first appearance, each edge type's sources then destinations; ``ndata[NID]`` their
      ids in ``g`` and their node features. The negative pair graph shares those nodes
      (``ndata[NID]`` only) and has every edge type of ``g``.
RULE: the blocks are the node-wise sampler's, sampled from the pair graph's nodes with the
      edges of ``exclude`` removed on every layer: ``'self'`` the seed edges,
      ``'reverse_id'`` also ``reverse_eids[seed edges]`` (same edge type),
      ``'reverse_types'`` also the same ids in ``reverse_etypes[etype]``, a callable
      ``exclude(seed_edges)``'s ids, or fixed edge ids (an array or ``{etype: ids}``).
RULE: ``sample`` returns ``(input_nodes, pair_graph, blocks)``, or ``(input_nodes,
      pair_graph, neg_pair_graph, blocks)`` with a ``negative_sampler``, as DGL.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from arraygnn.graph.core import EID, NID, Graph, _as_ids, _check_range, check_graph
from arraygnn.graph.structure import _named_rel, compact_graphs
from arraygnn.graph.subgraph import _gather_frame, _ids_for

__all__ = ["EdgePredictionSampler", "as_edge_prediction_sampler", "find_exclude_eids"]

_MODES = ("self", "reverse_id", "reverse_types")


def _takes_exclude(fn: Any) -> bool:
    """Whether ``fn(g, seeds, exclude_eids)`` is a valid call (DGL's argspec check)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True  # cannot tell: let the call decide
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params) or "exclude_eids" in sig.parameters:
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


def _canonical(g: Graph, key: Any, where: str, name: str) -> Any:
    return _named_rel(where, name, g, key).canonical


def _keyed(g: Graph, given: Mapping[Any, Any], where: str, name: str) -> dict[Any, Any]:
    """``given`` with its edge-type keys made canonical (DGL's ``to_canonical_etype``)."""
    return {_canonical(g, k, where, name): v for k, v in given.items()}


def _edge_ids(g: Graph, ids: Any, c: Any, what: str) -> Any:
    """Edge ids of relation ``c`` (array, list or boolean mask), checked, on ``g``'s device;
    an id may repeat (DGL's ``edge_subgraph(relabel_nodes=False)`` keeps it twice)."""
    return _ids_for(g, ids, g._rels[c].num_edges, what, "edges", unique=False)


def find_exclude_eids(
    g: Graph,
    seed_edges: Any,
    exclude: Any,
    reverse_eids: Any = None,
    reverse_etypes: Mapping[Any, Any] | None = None,
) -> Any:
    """The edge ids to hide from the blocks of the seed edges ``seed_edges`` (ids, or
    ``{canonical etype: ids}``), DGL's ``find_exclude_eids``: ``None`` for
    ``exclude=None``; the modes as :func:`as_edge_prediction_sampler`."""
    where = "find_exclude_eids"
    if exclude is None:
        return None
    if callable(exclude):
        return exclude(seed_edges)
    if isinstance(exclude, str):
        if exclude == "self":
            return seed_edges
        if exclude == "reverse_id":
            return _with_reverse_ids(g, seed_edges, reverse_eids, where)
        if exclude == "reverse_types":
            return _with_reverse_types(g, seed_edges, reverse_etypes, where)
        raise ValueError(f"{where}: exclude: unsupported mode {exclude!r}; use one of {_MODES}")
    return exclude  # fixed edge ids (an array or {etype: ids})


def _reverse_of(g: Graph, table: Any, eids: Any, c: Any, where: str, what: str) -> Any:
    xp = g._xp()
    table = _as_ids(table if not isinstance(table, range) else list(table), f"{where}: {what}")
    n = g._rels[c].num_edges
    if table.shape[0] != n:
        raise ValueError(
            f"{where}: {what} must map each of the {n} edges of {c!r} to its reverse, "
            f"got {table.shape[0]} ids"
        )
    rev = xp.asarray(table)[eids]
    _check_range(rev, n, f"{where}: {what}", "edges")  # only the rows used: O(batch)
    return xp.concatenate([eids, rev.astype(eids.dtype)])


def _with_reverse_ids(g: Graph, seed_edges: Any, reverse_eids: Any, where: str) -> Any:
    if reverse_eids is None:
        raise ValueError(f"{where}: exclude='reverse_id' needs reverse_eids")
    if not isinstance(seed_edges, Mapping):
        return _reverse_of(
            g, reverse_eids, seed_edges, g.canonical_etypes[0], where, "reverse_eids"
        )
    if not isinstance(reverse_eids, Mapping):
        raise TypeError(f"{where}: reverse_eids must be {{etype: ids}} for {{etype: ids}} seeds")
    table = _keyed(g, reverse_eids, where, "reverse_eids")
    out = {}
    for c, eids in _keyed(g, seed_edges, where, "seed_edges").items():
        if c not in table:
            raise KeyError(f"{where}: reverse_eids has no entry for the seed edge type {c!r}")
        out[c] = _reverse_of(g, table[c], eids, c, where, f"reverse_eids[{c!r}]")
    return out


def _with_reverse_types(g: Graph, seed_edges: Any, reverse_etypes: Any, where: str) -> Any:
    if not isinstance(reverse_etypes, Mapping):
        raise ValueError(f"{where}: exclude='reverse_types' needs reverse_etypes={{etype: etype}}")
    if not isinstance(seed_edges, Mapping):
        seed_edges = {g.canonical_etypes[0]: seed_edges}
    xp = g._xp()
    out = _keyed(g, seed_edges, where, "seed_edges")
    for k, v in reverse_etypes.items():  # in place, as DGL: a later pair sees earlier ones
        ck = _canonical(g, k, where, "reverse_etypes")
        cv = _canonical(g, v, where, "reverse_etypes")
        if ck not in out:
            continue
        eids = out[ck]
        _check_range(eids, g._rels[cv].num_edges, f"{where}: reverse_etypes[{k!r}] ids", "edges")
        out[cv] = xp.unique(xp.concatenate([eids, out[cv]])) if cv in out else eids
    return out


class EdgePredictionSampler:
    """A node-wise block sampler turned into an edge-wise one (DGL's
    ``EdgePredictionSampler``); build it with :func:`as_edge_prediction_sampler`."""

    def __init__(
        self,
        sampler: Any,
        exclude: Any = None,
        reverse_eids: Any = None,
        reverse_etypes: Mapping[Any, Any] | None = None,
        negative_sampler: Any = None,
        prefetch_labels: Any = None,
    ) -> None:
        where = "as_edge_prediction_sampler"
        # DGL calls sampler.sample(g, seed_nodes, exclude_eids); sample_blocks when a
        # sampler has no sample (NeighborSampler's sample is its sample_blocks)
        method = getattr(sampler, "sample", None)
        if not callable(method):
            method = getattr(sampler, "sample_blocks", None)
        if not callable(method):
            raise TypeError(
                f"{where}: sampler must have sample(g, seed_nodes, exclude_eids) or "
                f"sample_blocks (a NeighborSampler), got {type(sampler).__name__}"
            )
        if not _takes_exclude(method):
            raise TypeError(
                f"{where}: sampler {type(sampler).__name__} does not support edge or link "
                "prediction; its sample (or sample_blocks) method needs a third argument "
                "exclude_eids (edge ids to exclude), as DGL requires"
            )
        if isinstance(exclude, str):
            if exclude not in _MODES:
                raise ValueError(f"{where}: exclude: unsupported mode {exclude!r}; use {_MODES}")
            if exclude == "reverse_id" and reverse_eids is None:
                raise ValueError(f"{where}: exclude='reverse_id' needs reverse_eids")
            if exclude == "reverse_types" and not isinstance(reverse_etypes, Mapping):
                raise ValueError(
                    f"{where}: exclude='reverse_types' needs reverse_etypes={{etype: etype}}"
                )
        elif exclude is not None and not callable(exclude):
            ok = isinstance(exclude, Mapping) or hasattr(exclude, "dtype")
            if not ok:
                raise TypeError(
                    f"{where}: exclude must be None, 'self', 'reverse_id', 'reverse_types', a "
                    f"callable or edge ids, got {type(exclude).__name__}"
                )
        if negative_sampler is not None and not callable(negative_sampler):
            raise TypeError(
                f"{where}: negative_sampler must be callable as negative_sampler(g, eids), got "
                f"{type(negative_sampler).__name__}"
            )
        if isinstance(prefetch_labels, str):
            raise TypeError(f"{where}: prefetch_labels must be a list of edge feature names")
        self.sampler = sampler
        self.exclude = exclude
        self.reverse_eids = reverse_eids
        self.reverse_etypes = reverse_etypes
        self.negative_sampler = negative_sampler
        self.prefetch_labels = prefetch_labels or []
        self._method = method

    def _seed_edges(self, g: Graph, seed_edges: Any, where: str) -> tuple[dict[Any, Any], bool]:
        if isinstance(seed_edges, Mapping):
            out = {}
            for key, ids in seed_edges.items():
                c = _canonical(g, key, where, "seed_edges")
                if c in out:
                    raise ValueError(f"{where}: seed_edges names edge type {c!r} twice")
                out[c] = _edge_ids(g, ids, c, f"{where}: seed_edges[{key!r}]")
            return out, True
        if len(g.canonical_etypes) != 1:
            raise ValueError(
                f"{where}: the graph has edge types {g.canonical_etypes}; pass seed_edges as "
                "{etype: ids}"
            )
        c = g.canonical_etypes[0]
        return {c: _edge_ids(g, seed_edges, c, f"{where}: seed_edges")}, False

    def _negative_pairs(self, g: Graph, given: Any, where: str) -> dict[Any, tuple[Any, Any]]:
        pairs = self.negative_sampler(g, given)
        if not isinstance(pairs, Mapping):
            if len(g.canonical_etypes) != 1:
                raise ValueError(
                    f"{where}: the graph has several edge types; the negative sampler must "
                    "return {etype: (src, dst)}"
                )
            pairs = {g.canonical_etypes[0]: pairs}
        xp = g._xp()
        out = {}
        for key, pair in pairs.items():
            c = _canonical(g, key, where, "negative_sampler's output")
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"{where}: negative_sampler must return (src, dst) pairs for {c!r}")
            what = f"{where}: negative_sampler's {{}} ids of {c!r}"
            src = _as_ids(pair[0], what.format("source"))
            dst = _as_ids(pair[1], what.format("destination"))
            if src.shape != dst.shape:
                raise ValueError(
                    f"{where}: negative_sampler returned {src.shape[0]} sources but "
                    f"{dst.shape[0]} destinations for {c!r}"
                )
            _check_range(src, g._num_src[c[0]], what.format("source"))
            _check_range(dst, g._num_dst[c[2]], what.format("destination"))
            out[c] = (xp.asarray(src).astype(g.idtype), xp.asarray(dst).astype(g.idtype))
        return out

    def sample(self, g: Graph, seed_edges: Any) -> tuple[Any, ...]:
        """``(input_nodes, pair_graph, [neg_pair_graph,] blocks)`` of the seed edges."""
        where = "EdgePredictionSampler.sample"
        check_graph(where, g)
        if g.is_block:
            raise ValueError(f"{where}: sample from the original graph, not a block")
        seeds, typed = self._seed_edges(g, seed_edges, where)
        given = seeds if typed else seeds[g.canonical_etypes[0]]
        xp = g._xp()
        empty = xp.zeros(0, dtype=g.idtype)
        pos = {c: (r.src[seeds[c]], r.dst[seeds[c]]) if c in seeds else (empty, empty)
               for c, r in g._rels.items()}  # fmt: skip
        pos_graph = Graph(pos, g._num_src, validate=False)
        if self.negative_sampler is not None:
            neg = self._negative_pairs(g, given, where)
            neg_graph = Graph(
                {c: neg.get(c, (empty, empty)) for c in g._rels}, g._num_src, validate=False
            )
            pair_graph, neg_graph = compact_graphs([pos_graph, neg_graph])
        else:
            pair_graph = compact_graphs(pos_graph)
        # DGL's pair graph is g.edge_subgraph(seeds, relabel_nodes=False) compacted: g's
        # node features of the kept nodes, the seed edges' features and ids
        for t, frame in pair_graph._src_frames.items():
            nid = frame._data[NID]
            _gather_frame(g._src_frames[t], frame, nid)
            frame._data[NID] = nid
        for c, rel in pair_graph._rels.items():
            eids = seeds.get(c, empty)
            _gather_frame(g._rels[c].frame, rel.frame, eids)
            rel.frame._data[EID] = eids
        self._check_labels(g, where)
        if len(g.ntypes) == 1:
            seed_nodes: Any = pair_graph._src_frames[g.ntypes[0]]._data[NID]
        else:
            seed_nodes = {t: f._data[NID] for t, f in pair_graph._src_frames.items()}
        exclude_eids = find_exclude_eids(
            g, given, self.exclude, self.reverse_eids, self.reverse_etypes
        )
        input_nodes, _, blocks = self._method(g, seed_nodes, exclude_eids)
        if self.negative_sampler is None:
            return input_nodes, pair_graph, blocks
        return input_nodes, pair_graph, neg_graph, blocks

    def _check_labels(self, g: Graph, where: str) -> None:
        """``prefetch_labels``: edge features the pair graph must carry (it carries every
        edge feature of the seed edges, so this only checks that they exist)."""
        labels = self.prefetch_labels
        items = (
            [(_canonical(g, k, where, "prefetch_labels"), v) for k, v in labels.items()]
            if isinstance(labels, Mapping)
            else [(c, labels) for c in g.canonical_etypes]
        )
        for c, names in items:
            for name in names:
                if name not in g._rels[c].frame._data:
                    raise KeyError(
                        f"{where}: prefetch_labels: edge type {c!r} has no feature {name!r}"
                    )


def as_edge_prediction_sampler(
    sampler: Any,
    exclude: Any = None,
    reverse_eids: Any = None,
    reverse_etypes: Mapping[Any, Any] | None = None,
    negative_sampler: Any = None,
    prefetch_labels: Any = None,
) -> EdgePredictionSampler:
    """An edge-wise sampler from the node-wise ``sampler`` (DGL's
    ``dgl.dataloading.as_edge_prediction_sampler``).

    Args:
        sampler: a block sampler whose ``sample(g, seed_nodes, exclude_eids)`` (as DGL;
            ``sample_blocks`` when it has no ``sample``) returns ``(input_nodes,
            output_nodes, blocks)``:
            :class:`arraygnn.sampling.NeighborSampler`, ``MultiLayerFullNeighborSampler``.
        exclude: which edges the blocks must not contain: ``None``, ``'self'`` (the seed
            edges), ``'reverse_id'`` (also ``reverse_eids[e]``), ``'reverse_types'``
            (also edge ``e`` of ``reverse_etypes[etype]``), a callable
            ``exclude(seed_edges)`` returning edge ids (or ``{etype: ids}``), or fixed
            edge ids.
        reverse_eids: each edge's reverse edge id (an array of ``num_edges``, or
            ``{etype: array}``) for ``'reverse_id'``.
        reverse_etypes: ``{etype: reverse etype}`` for ``'reverse_types'``.
        negative_sampler: ``negative_sampler(g, seed_edges) -> (src, dst)`` (or
            ``{etype: (src, dst)}``), e.g. :class:`arraygnn.negative_sampler.Uniform`.
        prefetch_labels: edge feature names the pair graph must carry (a list, or
            ``{etype: list}``); every feature of the seed edges is on it already.

    ``sample(g, seed_edges)`` gives ``(input_nodes, pair_graph, blocks)``, with a negative
    sampler ``(input_nodes, pair_graph, neg_pair_graph, blocks)``; feed it to
    :class:`arraygnn.edge_data_loader.EdgeDataLoader` for mini-batches over edge ids.
    """
    return EdgePredictionSampler(
        sampler,
        exclude=exclude,
        reverse_eids=reverse_eids,
        reverse_etypes=reverse_etypes,
        negative_sampler=negative_sampler,
        prefetch_labels=prefetch_labels,
    )
