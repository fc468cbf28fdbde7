"""Mini-batches over edge ids (DGL's ``dgl.dataloading.DataLoader(g, eids, sampler, ...)``
with an edge-wise sampler; DGL's older name ``EdgeDataLoader``: ``DataLoader`` is PyG's
loader here).

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.sampling import NeighborSampler
>>> from arraygnn.edge_prediction import as_edge_prediction_sampler
>>> g = graph((np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0])), num_nodes=4)
>>> sampler = as_edge_prediction_sampler(NeighborSampler([1], seed=0), exclude="self")
>>> loader = EdgeDataLoader(g, np.arange(4), sampler, batch_size=3)
>>> len(loader), [pair.num_edges() for _, pair, _ in loader]
(2, [3, 1])

RULE: one epoch visits every entry of ``indices`` once (a repeated id each time;
      ``shuffle``: in a random order drawn from one generator seeded once with ``seed``),
      ``batch_size`` ids per batch, the last batch smaller unless ``drop_last`` (then it
      is dropped), as DGL.
RULE: ``{etype: ids}`` batches mix edge types: positions in the concatenation of the
      types' ids in the dict's order; each batch is ``{canonical etype: ids}`` of the types
      it holds, each type's ids in the drawn order (DGL's stable grouping by type).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn.edge_prediction import EdgePredictionSampler, as_edge_prediction_sampler
from arraygnn.graph.core import Graph, check_graph
from arraygnn.graph.structure import _named_rel
from arraygnn.graph.subgraph import _ids_for
from arraygnn.sampling import _batch_size, _id_batches, _num_batches

__all__ = ["EdgeDataLoader"]


class EdgeDataLoader:
    """Mini-batches of seed edges and what ``graph_sampler.sample(g, seed_edges)`` makes of
    them (DGL's ``DataLoader`` over edge ids).

    Args:
        g: the graph to sample from.
        indices: seed edge ids (or a boolean mask), or ``{etype: ids}`` for a graph with
            several edge types.
        graph_sampler: an edge-wise sampler (``sample(g, seed_edges)``:
            :func:`arraygnn.edge_prediction.as_edge_prediction_sampler`'s), or a
            node-wise block sampler (``sample_blocks``: ``NeighborSampler``), which is
            wrapped with ``as_edge_prediction_sampler(graph_sampler, exclude, reverse_eids,
            reverse_etypes, negative_sampler)`` as DGL 0.8's ``EdgeDataLoader`` does.
        batch_size, shuffle, drop_last: as DGL's.
        seed: seed of the shuffling generator (the same seed, the same epochs).
        exclude, reverse_eids, reverse_etypes, negative_sampler: for a node-wise sampler
            only (see :func:`arraygnn.edge_prediction.as_edge_prediction_sampler`).

    Iterating yields the sampler's result per batch (``(input_nodes, pair_graph, blocks)``
    or ``(input_nodes, pair_graph, neg_pair_graph, blocks)``); ``len(loader)`` is the
    number of batches per epoch.
    """

    def __init__(
        self,
        g: Graph,
        indices: Any,
        graph_sampler: Any,
        *,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        seed: Any = None,
        exclude: Any = None,
        reverse_eids: Any = None,
        reverse_etypes: Mapping[Any, Any] | None = None,
        negative_sampler: Any = None,
    ) -> None:
        where = "EdgeDataLoader"
        check_graph(where, g)
        wrap = (exclude, reverse_eids, reverse_etypes, negative_sampler)
        if isinstance(graph_sampler, EdgePredictionSampler):
            if any(a is not None for a in wrap):
                raise ValueError(
                    f"{where}: exclude / reverse_eids / reverse_etypes / negative_sampler are "
                    "for a node-wise graph_sampler; this one is edge-wise already"
                )
        elif callable(getattr(graph_sampler, "sample_blocks", None)):
            graph_sampler = as_edge_prediction_sampler(graph_sampler, *wrap)
        elif not callable(getattr(graph_sampler, "sample", None)):
            raise TypeError(
                f"{where}: graph_sampler must have sample(g, seed_edges) (see "
                f"as_edge_prediction_sampler), got {type(graph_sampler).__name__}"
            )
        self.g = g
        self.graph_sampler = graph_sampler
        self.batch_size = _batch_size(where, batch_size)
        self.shuffle, self.drop_last = bool(shuffle), bool(drop_last)
        self._rng = np.random.default_rng(seed)
        self._typed = isinstance(indices, Mapping)
        if self._typed:
            given = dict(indices)
        elif len(g.canonical_etypes) == 1:
            given = {g.canonical_etypes[0]: indices}
        else:
            raise ValueError(
                f"{where}: the graph has edge types {g.canonical_etypes}; pass indices as "
                "{etype: ids}"
            )
        self._types: list[Any] = []
        self._ids: list[Any] = []
        for key, ids in given.items():
            c = _named_rel(where, "indices", g, key).canonical
            if c in self._types:
                raise ValueError(f"{where}: indices names edge type {c!r} twice")
            what = f"{where}: indices[{key!r}]" if self._typed else f"{where}: indices"
            self._types.append(c)
            # repeated ids are kept, as DGL's DataLoader
            self._ids.append(_ids_for(g, ids, g._rels[c].num_edges, what, "edges", unique=False))
        self._counts = [int(ids.shape[0]) for ids in self._ids]

    def __len__(self) -> int:
        return _num_batches(self)

    def __iter__(self) -> Any:
        for seeds in _id_batches(self, self._types if self._typed else None):
            yield self.graph_sampler.sample(self.g, seeds)
