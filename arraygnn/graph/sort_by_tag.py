"""DGL's ``sort_csr_by_tag`` / ``sort_csc_by_tag``: group each node's out- (in-) edges by a
tag and record where each tag's run starts (what ``sample_neighbors_biased`` reads).

DGL keeps edge ids and reorders only its internal CSR; an arraygnn graph stores one edge
order, so the returned graph has its edges in the sorted CSR (CSC) order: by source
(destination), then tag, then edge id. ``edata[EID]`` holds each edge's id in ``g`` (DGL's
CSR data array) and edge features are gathered; node features are shared.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 0, 0, 1]), np.array([1, 2, 3, 2])), num_nodes=4)
>>> s = sort_csr_by_tag(g, np.array([0, 1, 1, 0]))
>>> s.edges()[1].tolist(), s.edata["_ID"].tolist()
([3, 1, 2, 2], [2, 0, 1, 3])
>>> s.srcdata["_TAG_OFFSET"][:2].tolist()
[[0, 1, 3], [0, 0, 1]]

RULE: ``tag_offset[u, t]`` is the offset, from the start of ``u``'s row, of its first edge
      with tag ``t``; ``tag_offset[u, num_tags]`` is ``u``'s degree; ``num_tags`` is
      the largest *edge* tag + 1 (with ``tag_type='node'``: over the tags of the nodes at
      the edges' other ends, as DGL), 0 for a graph without edges (DGL raises there).
      ``tag_type='node'`` tags each edge with the tag of its other end; ``'edge'`` gives
      one tag per edge.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph.core import EID, Graph, check_graph

__all__ = ["sort_csr_by_tag", "sort_csc_by_tag"]


def _sort(where: str, g: Any, tag: Any, name: str, tag_type: str, by_src: bool) -> Graph:
    check_graph(where, g)
    if g.is_block or len(g.canonical_etypes) != 1:
        raise ValueError(f"{where}: g must have one edge type (homogeneous or bipartite)")
    if tag_type not in ("node", "edge"):
        raise ValueError(f"{where}: tag_type must be 'node' or 'edge', got {tag_type!r}")
    if not isinstance(name, str):
        raise TypeError(f"{where}: tag_offset_name must be a str, got {name!r}")
    xp = g._xp()
    if not is_array(tag) or get_namespace(tag) is not xp:
        raise TypeError(f"{where}: tag must be an integer array on the graph's device")
    if tag.ndim != 1 or tag.dtype.kind not in "iu":
        raise TypeError(f"{where}: tag must be a 1-D integer array, got {tag.dtype} {tag.shape}")
    rel = g._rel()
    s, _, d = rel.canonical
    row, other = (rel.src, rel.dst) if by_src else (rel.dst, rel.src)
    n_rows = g.num_nodes(s) if by_src else g.num_nodes(d)
    n_other = g.num_nodes(d) if by_src else g.num_nodes(s)
    want = n_other if tag_type == "node" else rel.num_edges
    if tag.shape[0] != want:
        raise ValueError(
            f"{where}: tag has {tag.shape[0]} entries; tag_type={tag_type!r} needs {want}"
        )
    if tag.size and int(tag.min()) < 0:
        raise ValueError(f"{where}: tag holds negative value {int(tag.min())}")
    etag = (tag[other] if tag_type == "node" else tag).astype(np.int64)
    num_tags = int(etag.max()) + 1 if etag.size else 0  # DGL: max of the edges' tags
    order = xp.lexsort(xp.stack([etag, row.astype(np.int64)])) if rel.num_edges else row[:0]
    idtype = g.idtype
    counts = xp.zeros(n_rows * num_tags, dtype=np.int64)
    if rel.num_edges:
        counts += xp.bincount(row.astype(np.int64) * num_tags + etag, minlength=n_rows * num_tags)
    offsets = xp.zeros((n_rows, num_tags + 1), dtype=idtype)
    offsets[:, 1:] = xp.cumsum(counts.reshape(n_rows, num_tags), axis=1)
    order = order.astype(idtype)
    new = Graph({rel.canonical: (rel.src[order], rel.dst[order])}, g._num_src, validate=False)
    for t, f in g._src_frames.items():
        new._src_frames[t]._data.update(f._data)
    frame = new._rels[rel.canonical].frame._data
    frame.update({k: v[order] for k, v in rel.frame._data.items()})
    frame[EID] = order
    new._src_frames[s if by_src else d]._data[name] = offsets
    return new


def sort_csr_by_tag(
    g: Graph, tag: Any, tag_offset_name: str = "_TAG_OFFSET", tag_type: str = "node"
) -> Graph:
    """Out-edges of each source grouped by tag; ``srcdata[tag_offset_name]`` the offsets."""
    return _sort("sort_csr_by_tag", g, tag, tag_offset_name, tag_type, True)


def sort_csc_by_tag(
    g: Graph, tag: Any, tag_offset_name: str = "_TAG_OFFSET", tag_type: str = "node"
) -> Graph:
    """In-edges of each destination grouped by tag; ``dstdata[tag_offset_name]`` the offsets."""
    return _sort("sort_csc_by_tag", g, tag, tag_offset_name, tag_type, False)
