"""DGL's ``merge``: one graph holding every node, edge and feature of several graphs.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g1 = graph((np.array([0, 1]), np.array([1, 2])))
>>> g2 = graph((np.array([3]), np.array([0])), num_nodes=5)
>>> m = merge([g1, g2])
>>> m.num_nodes(), m.edges()[0].tolist()
(5, [0, 1, 3])

RULE: node and edge types are the first graph's; every graph must have them. Node ids are
      shared (node ``i`` of every graph is node ``i`` of the result); a type has the largest
      node count over the graphs. Edges are concatenated per type in graph order.
RULE: edge features are the first graph's names, concatenated (every graph must have
      them); node feature rows are written graph by graph (a later graph overwrites an
      earlier one's rows), rows no graph sets are zero, as DGL's frame initialiser.
"""

from __future__ import annotations

from collections.abc import Sequence

from arraygnn.graph.core import Graph, check_graph

__all__ = ["merge"]


def merge(graphs: Sequence[Graph]) -> Graph:
    """Merge ``graphs`` (same node and edge types) into one graph (DGL's ``dgl.merge``)."""
    where = "merge"
    if isinstance(graphs, Graph) or not isinstance(graphs, Sequence):
        raise TypeError(f"{where}: graphs must be a list of graphs, got {type(graphs).__name__}")
    if len(graphs) == 0:
        raise ValueError(f"{where}: graphs must not be empty")
    for i, g in enumerate(graphs):
        check_graph(f"{where}: graphs[{i}]", g)
        if g.is_block:
            raise ValueError(f"{where}: graphs[{i}] is a block; merge graphs")
    ref = graphs[0]
    xp, idtype = ref._xp(), ref.idtype
    for i, g in enumerate(graphs):
        if g.device != ref.device:
            raise TypeError(f"{where}: graphs[{i}] is on {g.device!r}, graphs[0] on {ref.device!r}")
        missing = [c for c in ref.canonical_etypes if c not in g._rels]
        missing += [t for t in ref.ntypes if t not in g._num_src]
        if missing:
            raise ValueError(f"{where}: graphs[{i}] lacks type(s) {missing} of graphs[0]")
    counts = {t: max(g._num_src[t] for g in graphs) for t in ref.ntypes}
    rels, edata = {}, {}
    for c in ref.canonical_etypes:
        parts = [g._rels[c] for g in graphs]
        rels[c] = (
            xp.concatenate([r.src.astype(idtype) for r in parts]),
            xp.concatenate([r.dst.astype(idtype) for r in parts]),
        )
        feats = {}
        for k in ref._rels[c].frame._data:
            for i, r in enumerate(parts):
                if k not in r.frame._data:
                    raise KeyError(f"{where}: graphs[{i}] lacks edge feature {k!r} of {c!r}")
            feats[k] = xp.concatenate([r.frame._data[k] for r in parts])
        edata[c] = feats
    out = Graph(rels, counts, validate=False)
    for c, feats in edata.items():
        out._rels[c].frame._data.update(feats)
    for t in ref.ntypes:
        frame = out._src_frames[t]._data
        for i, g in enumerate(graphs):
            n = g._num_src[t]
            for k, v in g._src_frames[t]._data.items():
                if k not in frame:
                    frame[k] = xp.zeros((counts[t], *v.shape[1:]), dtype=v.dtype)
                elif frame[k].shape[1:] != v.shape[1:] or frame[k].dtype != v.dtype:
                    raise ValueError(
                        f"{where}: node feature {k!r} of type {t!r} in graphs[{i}] is "
                        f"{v.dtype} {tuple(v.shape[1:])}, earlier {frame[k].dtype} "
                        f"{tuple(frame[k].shape[1:])}"
                    )
                frame[k][:n] = v
    return out
