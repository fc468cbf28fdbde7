"""DGL's ShaDow-GNN sampler (``dgl.dataloading.ShaDowKHopSampler``, "Decoupling the Depth
and Scope of Graph Neural Networks"): k hops of neighbour sampling around the seeds, then
the subgraph induced by every sampled node.

(PyG's batched variant with one subgraph per root is
:class:`arraygnn.shadow_k_hop_sampler.ShaDowKHopSampler`, exported as
``arraygnn.ShaDowKHopSampler``; this one is DGL's and lives here.)

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> from arraygnn.shadow_sampler import ShaDowKHopSampler
>>> g = graph((np.array([1, 2, 3, 4]), np.array([0, 1, 2, 3])), num_nodes=5)  # a path
>>> input_nodes, output_nodes, sg = ShaDowKHopSampler([5, 5], seed=0).sample(g, np.array([0]))
>>> input_nodes.tolist(), output_nodes.tolist()
([0, 1, 2], [0])
>>> sg.edges()[0].tolist(), sg.edges()[1].tolist(), sg.ndata["_ID"].tolist()
([1, 2], [0, 1], [0, 1, 2])

RULE: each hop is :func:`arraygnn.sampling.sample_neighbors` of the previous hop's nodes
      (fan-outs innermost last, as DGL); the subgraph is induced by every sampled node,
      the seeds first (``input_nodes[:len(output_nodes)] == output_nodes``), then the
      others in the order the hops found them (``to_block``'s order).
RULE: the subgraph keeps every edge of ``g`` between its nodes (not only the sampled
      ones), grouped by (new) source, each source's in edge-id order (DGL's node
      subgraph), its features, ``ndata[NID]`` / ``edata[EID]``; ``exclude_eids`` are left
      out of both the expansion and the subgraph (the rest keep that order), as DGL.
RULE: the same ``seed`` gives the same subgraphs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn.graph.core import EID, NID, Graph, check_graph
from arraygnn.graph.subgraph import node_subgraph, to_block
from arraygnn.sampling import _excluded_edges, _rng, sample_neighbors

__all__ = ["ShaDowKHopSampler"]


def _check_feature_names(g: Graph, names: Any, what: str, edges: bool, where: str) -> None:
    """DGL's prefetch lists name features that must exist (here they are always carried)."""
    if names is None:
        return
    if isinstance(names, Mapping):
        names = [n for v in names.values() for n in ([v] if isinstance(v, str) else v)]
    elif isinstance(names, str):
        names = [names]
    frames = [r.frame for r in g._rels.values()] if edges else list(g._src_frames.values())
    for name in names:
        if not any(name in f for f in frames):
            raise KeyError(f"{where}: {what} names {name!r}, which the graph does not have")


def _check_output_device(g: Graph, output_device: Any, where: str) -> None:
    if output_device is not None and str(output_device) != g.device:
        raise ValueError(
            f"{where}: output_device={output_device!r} but the graph is on {g.device}; "
            "arrays stay where they are (move the graph first)"
        )


class ShaDowKHopSampler:
    """DGL's ``ShaDowKHopSampler``: ``sample(g, seed_nodes)`` returns
    ``(input_nodes, output_nodes, subgraph)``.

    Args:
        fanouts: one fan-out per hop (int, ``-1`` for all in-edges, or ``{etype: int}``),
            as :class:`~arraygnn.sampling.NeighborSampler`'s.
        replace, prob: as :func:`arraygnn.sampling.sample_neighbors` (``prob`` an edge
            feature of non-negative weights).
        prefetch_node_feats, prefetch_edge_feats: accepted for DGL's signature; the
            subgraph always carries every feature (the names must exist).
        output_device: ``None`` or the graph's own device (no hidden copies).
        seed: seeds the sampler's generator once (ours: the same seed, the same batches).

    ``sample_blocks`` is the same method, so :class:`~arraygnn.sampling.NodeDataLoader`
    yields ``(input_nodes, output_nodes, subgraph)`` per batch.
    """

    def __init__(
        self,
        fanouts: Sequence[int | Mapping[Any, int]],
        replace: bool = False,
        prob: str | None = None,
        prefetch_node_feats: Any = None,
        prefetch_edge_feats: Any = None,
        output_device: Any = None,
        *,
        seed: Any = None,
    ) -> None:
        where = "ShaDowKHopSampler"
        if isinstance(fanouts, (int, np.integer, Mapping)) or not isinstance(fanouts, Sequence):
            raise TypeError(f"{where}: fanouts must be a list (one per hop), got {fanouts!r}")
        if prob is not None and not isinstance(prob, str):
            raise TypeError(f"{where}: prob must name an edge feature, got {prob!r}")
        self.fanouts = list(fanouts)
        self.replace = bool(replace)
        self.prob = prob
        self.prefetch_node_feats = prefetch_node_feats
        self.prefetch_edge_feats = prefetch_edge_feats
        self.output_device = output_device
        self._seed = seed
        self._rng: Any = None

    def sample(self, g: Graph, seed_nodes: Any, exclude_eids: Any = None) -> tuple[Any, Any, Graph]:
        where = "ShaDowKHopSampler"
        check_graph(where, g)
        _check_output_device(g, self.output_device, where)
        _check_feature_names(g, self.prefetch_node_feats, "prefetch_node_feats", False, where)
        _check_feature_names(g, self.prefetch_edge_feats, "prefetch_edge_feats", True, where)
        if self._rng is None:
            self._rng = _rng(g, self._seed)
        current = seed_nodes
        output_nodes = seed_nodes
        for i, fanout in enumerate(reversed(self.fanouts)):
            frontier = sample_neighbors(
                g,
                current,
                fanout,
                prob=self.prob,
                exclude_edges=exclude_eids,
                replace=self.replace,
                seed=self._rng,
                copy_ndata=False,
                copy_edata=False,
            )
            block = to_block(frontier, current)
            if i == 0:  # the seeds as ids (also where a list or a mask was given)
                if isinstance(seed_nodes, Mapping):
                    output_nodes = {t: block._dst_frames[t][NID] for t in seed_nodes}
                else:
                    output_nodes = block.dstdata[NID]
            current = block.srcdata[NID]
        if not self.fanouts:
            from arraygnn.sampling import _seeds

            current = _seeds(g, seed_nodes, "dst", where)
            if not isinstance(seed_nodes, Mapping):
                current = current[g.ntypes[0]]
            output_nodes = current
        subg = node_subgraph(g, current)
        if exclude_eids is not None:
            subg = _drop_edges(g, subg, exclude_eids, where)
        return current, output_nodes, subg

    sample_blocks = sample


def _drop_edges(g: Graph, subg: Graph, exclude_eids: Any, where: str) -> Graph:
    """``subg`` without the edges whose id in ``g`` (``edata[EID]``) is excluded."""
    from arraygnn.graph.structure import remove_edges

    xp = g._xp()
    for c, ids in _excluded_edges(g, exclude_eids, where).items():
        eid = subg._rels[c].frame[EID]
        drop = xp.nonzero(xp.isin(eid, ids))[0]
        if drop.shape[0]:
            subg = remove_edges(subg, drop, etype=c)
    return subg
