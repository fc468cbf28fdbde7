"""``BidirectionalNeighborSampler``: PyG 2.7's neighbour sampling along in- and out-edges.

Hop ``h`` samples, for every node of the frontier (the seeds at hop 0),
``num_neighbors[h]`` in-edges (a forward :class:`~arraygnn.sampler.NeighborSampler`) and
``num_neighbors[h]`` out-edges (the same sampler over the reversed graph); the nodes this
hop reached that no earlier hop had are the next frontier. The hops' outputs are merged as
PyG's ``SamplerOutput.merge_with`` / ``collate`` merge them: the nodes in order of first
appearance (hop by hop: frontier, forward nodes, backward nodes), each edge once (an edge
both directions reached, or drawn again with ``replace=True``, is kept where it came first:
PyG's ``unique_unsorted`` of the ``(row, col, edge)`` uids), ``row`` / ``col`` positions in
``node``, every edge in its graph direction (``node[row]`` its source). Within a hop and
direction the edges come grouped by frontier node, in edge-id order per node (pyg-lib's
order for full fan-outs), so full fan-outs give PyG's output exactly.

RULE: ``num_sampled_nodes`` holds four entries per hop (frontier, forward, backward
      frontier (0), backward: the nodes first seen there; the first entry is the number of
      seeds) and ``num_sampled_edges`` two (forward, backward: the edges first seen there;
      the first counts every forward edge of hop 0), as PyG's merge counts them.
RULE: ``disjoint=True`` gives each seed its own subgraph: a node or edge is one per seed
      it was reached from, ``batch`` is that seed's position (PyG's intent; its own
      disjoint bookkeeping mixes up frontier and seed positions after the first hop).
Differences from PyG: ``edge`` holds the graph's edge ids in both directions (PyG's
backward edges are positions in the reversed CSC, which its ``edge_permutation``, the
forward one, does not map), so an edge found both ways is merged; a repeated seed is
sampled once (its other copies only count in ``num_sampled_nodes[0]``; PyG's counts then go
wrong, even negative); with ``replace=True`` the edge counts are of the edges kept (PyG's
merge assumes no edge is drawn twice: its first count includes the repeats, the next one
subtracts them, so they stop matching its edges); ``sample_from_edges`` runs (PyG 2.8's
reads a ``num_nodes`` it never sets); no message is printed for more than one hop. As
PyG's, dicts of fan-outs (per edge type), heterogeneous graphs, temporal sampling and
negative sampling are refused.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.sampler.base import NodeSamplerInput
>>> path = Data(edge_index=np.array([[0, 1, 2, 3], [1, 2, 3, 4]]), num_nodes=5)
>>> out = BidirectionalNeighborSampler(path, [-1, -1]).sample_from_nodes(
...     NodeSamplerInput(None, np.array([2])))
>>> out.node.tolist(), out.global_row.tolist(), out.global_col.tolist()
([2, 1, 3, 0, 4], [1, 2, 0, 3], [2, 3, 1, 4])
>>> out.num_sampled_nodes, out.num_sampled_edges
([1, 1, 0, 1, 0, 1, 0, 1], [1, 1, 1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.neighbor_loader import _first_occurrences, number_new
from arraygnn.sampler.base import (
    BaseSampler,
    EdgeSamplerInput,
    NegativeSampling,
    NodeSamplerInput,
    SamplerOutput,
    _checked_ids,
    _named,
)
from arraygnn.sampler.neighbor_sampler import NeighborSampler
from arraygnn.sampler.num_neighbors import NumNeighbors

__all__ = ["BidirectionalNeighborSampler"]

_WHERE = "BidirectionalNeighborSampler"


def _positions(xp: Any, keys: Any, queries: Any) -> Any:
    """Where each of ``queries`` stands in ``keys`` (distinct; every query present)."""
    order = xp.argsort(keys)
    return order[xp.searchsorted(keys[order], queries)]


class BidirectionalNeighborSampler(BaseSampler):
    """PyG's ``BidirectionalNeighborSampler`` (``torch_geometric.sampler``) on arrays.

    Args:
        data: a homogeneous :class:`~arraygnn.data.Data` (``edge_index``, ``num_nodes``).
        num_neighbors: edges sampled per node, hop and direction (``-1``: all), a list or
            a list :class:`~arraygnn.sampler.NumNeighbors`; at least one hop.
        subgraph_type: ``'directional'`` or ``'bidirectional'`` (the merged output made
            bidirectional at the end, as PyG's ``sample_from_nodes``); ``'induced'``
            (also ``directed=False``) is not provided.
        replace / disjoint: as :class:`~arraygnn.sampler.NeighborSampler`.
        temporal_strategy / time_attr / weight_attr: PyG's; a ``time_attr`` is refused
            (as PyG's backward sampler); ``weight_attr`` weighs both directions' draws by
            the same per-edge weights (as PyG's; rules of
            :class:`~arraygnn.sampler.NeighborSampler`).
        is_sorted / share_memory / directed: as ``NeighborSampler``.
        seed: the sampling streams' seed (keyword only).
    """

    def __init__(
        self,
        data: Any,
        num_neighbors: Sequence[int] | NumNeighbors,
        subgraph_type: str = "directional",
        replace: bool = False,
        disjoint: bool = False,
        temporal_strategy: str = "uniform",
        time_attr: str | None = None,
        weight_attr: str | None = None,
        is_sorted: bool = False,
        share_memory: bool = False,
        directed: bool = True,
        *,
        seed: Any = None,
    ) -> None:
        from arraygnn.data import Data
        from arraygnn.hetero_data import HeteroData
        from arraygnn.sampler.num_neighbors import as_fanouts

        values = num_neighbors.values if isinstance(num_neighbors, NumNeighbors) else None
        if isinstance(num_neighbors, dict) or isinstance(values, dict):
            raise RuntimeError(
                "BidirectionalNeighborSampler does not yet support edge delimited sampling."
            )
        if isinstance(data, HeteroData):
            raise NotImplementedError(
                "BidirectionalNeighborSampler does not yet support heterogeneous sampling."
            )
        if time_attr is not None:
            raise NotImplementedError("Temporal Sampling not yet supported for backward sampling")
        if getattr(data, "edge_index", None) is None:
            raise ValueError(f"{_WHERE}: data must be a Data with an edge_index")
        fanouts = as_fanouts(_WHERE, num_neighbors)
        if isinstance(fanouts, (str, bytes)) or not isinstance(fanouts, Sequence):
            raise TypeError(f"{_WHERE}: num_neighbors must be a list of ints, got {fanouts!r}")
        if len(fanouts) == 0:  # PyG: "Cannot collate an empty list" on the first batch
            raise ValueError(f"{_WHERE}: num_neighbors needs at least one hop, got []")
        from arraygnn._subgraph_types import check_subgraph_type

        subgraph_type = check_subgraph_type(_WHERE, subgraph_type if directed else "induced")
        if subgraph_type == "induced":
            raise ValueError(
                f"{_WHERE}: subgraph_type='induced' (or directed=False) is not provided; "
                "'directional' or 'bidirectional'"
            )
        edge_index = data.edge_index
        n = data.num_nodes
        weights = {}  # PyG's: both directions weighted by the same per-edge weights
        if isinstance(weight_attr, str):
            keys = list(data.keys())
            if weight_attr not in keys:
                raise ValueError(
                    f"{_WHERE}: weight_attr={weight_attr!r}: data has no such attribute "
                    f"(has {sorted(keys)})"
                )
            weights = {weight_attr: data[weight_attr]}
        streams = np.random.default_rng(seed).integers(2**63 - 1, size=2)
        # the two directions' hops stay directional: subgraph_type acts on the merged output
        args = ("directional", replace, disjoint, temporal_strategy, None, weight_attr,
                is_sorted, share_memory)  # fmt: skip
        try:
            self.forward_sampler = NeighborSampler(
                Data(edge_index=edge_index, num_nodes=n, **weights), fanouts, *args,
                seed=int(streams[0]),
            )  # fmt: skip
            self.backward_sampler = NeighborSampler(
                Data(edge_index=edge_index[[1, 0]], num_nodes=n, **weights), fanouts, *args,
                seed=int(streams[1]),
            )  # fmt: skip
        except (TypeError, ValueError) as err:  # the checks are NeighborSampler's: name this
            head, _, rest = str(err).partition(": ")
            if head != "NeighborSampler":
                raise
            raise type(err)(f"{_WHERE}: {rest}") from None
        core = self.forward_sampler._core
        self.num_neighbors = NumNeighbors(list(core.num_neighbors))
        self.subgraph_type = subgraph_type
        self.num_nodes = int(core.num_nodes)
        self.disjoint = bool(core.disjoint)
        self.is_hetero = False
        self.is_temporal = False

    @property
    def edge_permutation(self) -> Any:
        return None

    def sample_from_nodes(self, index: NodeSamplerInput, **kwargs: Any) -> SamplerOutput:
        if index.time is not None:
            raise NotImplementedError(
                "BidirectionalNeighborSampler does not yet support temporal sampling."
            )
        xp = self.forward_sampler._core.graph._xp()
        seeds = _checked_ids(xp, f"{_WHERE}: index.node", index.node, self.num_nodes)
        with _named(_WHERE):
            out = self._sample(xp, seeds)
        out.metadata = (index.input_id, index.time)
        return out.to_bidirectional() if self.subgraph_type == "bidirectional" else out

    def sample_from_edges(
        self, index: EdgeSamplerInput, neg_sampling: NegativeSampling | None = None
    ) -> SamplerOutput:
        if neg_sampling is not None:
            raise RuntimeError(
                "BidirectionalNeighborSampler does not yet support negative sampling."
            )
        if index.time is not None:
            raise NotImplementedError(
                "BidirectionalNeighborSampler does not yet support temporal sampling."
            )
        xp = self.forward_sampler._core.graph._xp()
        n = self.num_nodes
        row = _checked_ids(xp, f"{_WHERE}: index.row", index.row, n)
        col = _checked_ids(xp, f"{_WHERE}: index.col", index.col, n, len(row), "link")
        num_pos = int(row.shape[0])
        seeds = xp.concatenate([row, col])
        if self.disjoint:  # one subgraph per endpoint, as PyG's edge_sample
            with _named(_WHERE):
                out = self._sample(xp, seeds)
            out.batch = out.batch % max(num_pos, 1)
            label_index = xp.arange(2 * num_pos, dtype=np.int64).reshape(2, -1)
        else:
            seeds, inverse = xp.unique(seeds, return_inverse=True)
            with _named(_WHERE):
                out = self._sample(xp, seeds)
            label_index = inverse.reshape(2, -1).astype(np.int64)
        out.metadata = (index.input_id, label_index, index.label, index.time)
        return out.to_bidirectional() if self.subgraph_type == "bidirectional" else out

    def _sample(self, xp: Any, seeds: Any) -> SamplerOutput:
        """The hops around ``seeds`` merged (see the module's rules). Disjoint: nodes and
        edges are keyed ``root * N + node`` / ``root * E + edge`` (``root``: the seed's
        position), kept in order of first appearance by sorting (the keys span ``seeds x
        N``); else :meth:`_sample_shared`."""
        if not self.disjoint:
            return self._sample_shared(xp, seeds)
        n = max(self.num_nodes, 1)
        n_edges = int(self.forward_sampler._core.graph.num_edges())
        cores = (self.forward_sampler._core, self.backward_sampler._core)
        count = int(seeds.shape[0])
        roots = xp.arange(count, dtype=np.int64)
        nodes, edges = _Seen(xp), _Seen(xp)
        ends: list[tuple[Any, Any]] = []  # the kept edges' (source key, target key)
        first = _first_occurrences(xp, roots * n + seeds)  # one tree per seed position
        frontier, roots = seeds[first], roots[first]
        for fanout in self.num_neighbors.values:
            hop_start = nodes.total
            for backward, core in enumerate(cores):
                size = int(frontier.shape[0])
                if size == 0:
                    nodes.skip(2)
                    edges.skip(1)
                    continue
                core.num_neighbors = [int(fanout)]  # one hop at a time (PyG's loop)
                out = core._subgraph(frontier)
                tree = roots[out.batch]
                keys = tree * n + out.node
                # pyg-lib's order, as the sampler gives it: edges grouped by frontier
                # node, new nodes numbered as they first appear there
                row, col, edge = out.row, out.col, out.edge
                nodes.add(keys[:size])  # new only for the seeds, at hop 0
                if not backward:
                    hop_start = nodes.total
                nodes.add(keys[row[row >= size]])
                src, dst = (col, row) if backward else (row, col)
                kept = edges.add(tree[col] * n_edges + edge)
                ends.append((keys[src][kept], keys[dst][kept]))
            fresh = nodes.since(hop_start)  # the nodes first seen in this hop
            frontier, roots = fresh % n, fresh // n
        node_keys, edge_keys = nodes.keys(), edges.keys()
        src = xp.concatenate([e[0] for e in ends]) if ends else edge_keys
        dst = xp.concatenate([e[1] for e in ends]) if ends else edge_keys
        row, col = nodes.positions(src), nodes.positions(dst)
        num_sampled_nodes = nodes.counts
        num_sampled_nodes[0] = count
        num_sampled_edges = edges.counts
        return SamplerOutput(
            node_keys % n, row, col, edge_keys % max(n_edges, 1),
            node_keys // n, num_sampled_nodes, num_sampled_edges,
        )  # fmt: skip

    def _sample_shared(self, xp: Any, seeds: Any) -> SamplerOutput:
        """:meth:`_sample` without disjoint trees, in one pass per hop and direction: the
        draws are the directions' own hops' (:func:`~arraygnn.sampling._sample_grouped`
        on their CSRs, their streams, in the same order), numbered straight into the
        node and edge maps (no per-direction batch built, deduplicated and renumbered)."""
        from arraygnn._namespace import repeat_counts
        from arraygnn.sampling import _rng, _sample_grouped

        n_edges = int(self.forward_sampler._core.graph.num_edges())
        node_map = self._scratch(xp, "_node_map", max(self.num_nodes, 1))
        edge_map = self._scratch(xp, "_edge_map", n_edges)
        cores = (self.forward_sampler._core, self.backward_sampler._core)
        empty = xp.zeros(0, dtype=np.int64)
        count = int(seeds.shape[0])
        frontier = seeds[_first_occurrences(xp, seeds)]  # a repeated seed counts once
        nodes: list[Any] = []  # the nodes in order of first appearance, part by part
        edges: list[Any] = []
        rows: list[Any] = []
        cols: list[Any] = []
        num_sampled_nodes: list[int] = []
        num_sampled_edges: list[int] = []
        total = 0
        num_edges = 0

        def add(ids: Any) -> None:
            nonlocal total
            fresh = number_new(xp, node_map, ids, total)
            nodes.append(fresh)
            num_sampled_nodes.append(int(fresh.shape[0]))
            total += int(fresh.shape[0])

        try:
            for fanout in self.num_neighbors.values:
                hop_start = len(nodes)
                for backward, core in enumerate(cores):
                    if int(frontier.shape[0]) == 0:
                        num_sampled_nodes += [0, 0]
                        num_sampled_edges.append(0)
                        continue
                    core.num_neighbors = [int(fanout)]  # one hop at a time (PyG's loop)
                    if core._sample_rng is None:
                        core._sample_rng = _rng(core.graph, core._sample_seed)
                    add(frontier)  # new only for the seeds, at hop 0
                    if not backward:
                        hop_start = len(nodes)
                    if int(fanout) == 0:
                        eid = src = empty
                        per_node = xp.zeros(int(frontier.shape[0]), dtype=np.int64)
                    else:  # pyg-lib's order: grouped by frontier node
                        (rel,) = core.graph._rels
                        eid, src, per_node = _sample_grouped(
                            core.graph, rel, frontier, int(fanout), core.replace,
                            core._sample_rng, core._weight,
                        )  # fmt: skip
                    add(src)  # numbered as they first appear
                    eid = eid.astype(np.int64, copy=False)
                    first_seen = edge_map[eid] < 0  # an edge both ways: kept where first
                    if core.replace:  # an edge drawn again in this part: its first draw
                        once = xp.zeros(eid.shape[0], dtype=bool)
                        once[_first_occurrences(xp, eid)] = True
                        first_seen &= once
                    kept = number_new(xp, edge_map, eid, num_edges)
                    edges.append(kept)
                    num_sampled_edges.append(int(kept.shape[0]))
                    num_edges += int(kept.shape[0])
                    src_pos = node_map[src]
                    dst_pos = repeat_counts(xp, node_map[frontier], per_node)
                    if backward:  # every edge in its graph direction
                        src_pos, dst_pos = dst_pos, src_pos
                    rows.append(src_pos[first_seen])
                    cols.append(dst_pos[first_seen])
                fresh_parts = nodes[hop_start:]  # the nodes first seen in this hop
                frontier = xp.concatenate(fresh_parts) if fresh_parts else empty
            node = xp.concatenate(nodes) if nodes else empty
            edge = xp.concatenate(edges) if edges else empty
            row = xp.concatenate(rows) if rows else empty
            col = xp.concatenate(cols) if cols else empty
        finally:  # only the entries this batch set (no [N] fill per batch)
            for part in nodes:
                node_map[part] = -1
            for part in edges:
                edge_map[part] = -1
        num_sampled_nodes[0] = count
        return SamplerOutput(node, row, col, edge, None, num_sampled_nodes, num_sampled_edges)

    def _scratch(self, xp: Any, name: str, size: int) -> Any:
        """A ``[size]`` map key -> position, ``-1`` between calls (made once)."""
        value = self.__dict__.get(name)
        if value is None:
            value = xp.full(size, -1, dtype=np.int64)
            setattr(self, name, value)
        return value


class _Seen:
    """Keys in order of first appearance, added part by part, with the number each part
    adds, by sorting (disjoint keys span ``seeds x N``)."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self.parts: list[Any] = []
        self.counts: list[int] = []
        self.total = 0

    def skip(self, parts: int) -> None:
        self.counts += [0] * parts

    def add(self, keys: Any) -> Any:
        """Keep the keys not seen yet, each once in order of first appearance; the mask
        of the entries kept (a key repeated in ``keys``: its first entry only)."""
        xp = self.xp
        fresh = xp.flatnonzero(~xp.isin(keys, self.keys()))
        fresh = fresh[_first_occurrences(xp, keys[fresh])]
        kept = keys[fresh]
        self.parts.append(kept)
        self.counts.append(int(kept.shape[0]))
        self.total += int(kept.shape[0])
        mask = xp.zeros(keys.shape[0], dtype=bool)
        mask[fresh] = True
        return mask

    def since(self, start: int) -> Any:
        return self.keys()[start:]

    def keys(self) -> Any:
        xp = self.xp
        return xp.concatenate(self.parts) if self.parts else xp.zeros(0, dtype=np.int64)

    def positions(self, keys: Any) -> Any:
        return _positions(self.xp, self.keys(), keys)
