"""DGL's ``to_heterogeneous``: split a homogeneous graph into node and edge types.

The inverse of :func:`arraygnn.graph.to_homogeneous`: ``g.ndata[ntype_field]`` gives each
node's type (an index into ``ntypes``), ``g.edata[etype_field]`` each edge's type (an index
into ``etypes``); a canonical edge type is one ``(source type, edge type, destination type)``
triple that occurs.

>>> import numpy as np
>>> from arraygnn.graph import heterograph, to_homogeneous
>>> hg = heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([0, 0])),
...                   ("user", "follows", "user"): (np.array([0]), np.array([1]))})
>>> back = to_heterogeneous(to_homogeneous(hg), hg.ntypes, hg.etypes)
>>> back.canonical_etypes == hg.canonical_etypes, back.edges(etype="plays")[0].tolist()
(True, [0, 1])

RULE: nodes of one type are numbered in their homogeneous id order, edges of one canonical
      type stay in edge-id order; ``ndata[NID]`` / ``edata[EID]`` hold the homogeneous ids.
RULE: ``ndata[NID]`` / ``edata[EID]`` are int64 whatever ``G.idtype`` (DGL stores NumPy's
      int64 argsort / nonzero output); the structure keeps ``G.idtype``.
RULE: every other feature is gathered per type (``ntype_field``, ``etype_field`` and an
      existing ``NID`` / ``EID`` are not carried, as in DGL).
RULE: ``metagraph`` (a networkx ``MultiDiGraph`` with keyed edges ``(src, dst, etype)``)
      fixes the canonical edge types; edges of another triple are dropped, as in DGL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn.graph.core import EID, NID, Graph, check_graph
from arraygnn.graph.transform import ETYPE, NTYPE

__all__ = ["to_heterogeneous"]


def _type_ids(where: str, frame: Any, field: str, n_types: int, what: str, xp: Any) -> Any:
    if field not in frame._data:
        raise KeyError(f"{where}: {what}_field {field!r} is not a feature of the graph")
    ids = frame._data[field]
    if ids.ndim != 1 or ids.dtype.kind not in "iu":
        raise TypeError(f"{where}: {what}_field {field!r} must be a 1-D integer array")
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n_types):
        raise ValueError(
            f"{where}: {what}_field {field!r} holds type ids outside [0, {n_types}) "
            f"({n_types} {what}s given)"
        )
    return ids.astype(np.int64)


def _names(where: str, name: str, value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{where}: {name} must be a list of type names, got {value!r}")
    value = list(value)
    if not all(isinstance(v, str) for v in value):
        raise TypeError(f"{where}: {name} must hold str names, got {value!r}")
    return value


def to_heterogeneous(
    G: Graph,
    ntypes: Sequence[str],
    etypes: Sequence[str],
    ntype_field: str = NTYPE,
    etype_field: str = ETYPE,
    metagraph: Any = None,
) -> Graph:
    """A heterogeneous graph from a homogeneous ``G`` whose ``ndata[ntype_field]`` /
    ``edata[etype_field]`` index ``ntypes`` / ``etypes`` (DGL's ``to_heterogeneous``).

    One vectorised pass: a stable argsort of the node types, one gather per feature.
    """
    where = "to_heterogeneous"
    check_graph(where, G)
    if G.is_block or len(G.ntypes) != 1 or len(G.canonical_etypes) != 1:
        raise ValueError(f"{where}: G must be homogeneous (one node type and one edge type)")
    ntypes = _names(where, "ntypes", ntypes)
    etypes = _names(where, "etypes", etypes)
    if len(set(ntypes)) != len(ntypes):
        raise ValueError(f"{where}: ntypes has repeated names {ntypes}")
    xp = G._xp()
    idtype = G.idtype
    rel = G._rel()
    nframe = G._src_frames[G.ntypes[0]]
    ntype_ids = _type_ids(where, nframe, ntype_field, len(ntypes), "ntype", xp)
    etype_ids = _type_ids(where, rel.frame, etype_field, len(etypes), "etype", xp)
    counts = np.bincount(
        np.asarray(ntype_ids.get() if xp is not np else ntype_ids), minlength=len(ntypes)
    )
    order = xp.argsort(ntype_ids, kind="stable").astype(np.int64, copy=False)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    node_groups = [order[offsets[i] : offsets[i + 1]] for i in range(len(ntypes))]  # int64
    local = xp.zeros(ntype_ids.shape[0], dtype=idtype)
    for grp in node_groups:
        local[grp] = xp.arange(grp.shape[0], dtype=idtype)
    src, dst = rel.src, rel.dst
    st, dt = ntype_ids[src], ntype_ids[dst]
    # one integer code per (src type, etype, dst type) triple
    nn_, ne_ = len(ntypes), max(len(etypes), 1)
    code = (st * ne_ + etype_ids) * nn_ + dt
    if metagraph is None:
        triples = [int(c) for c in np.unique(code.get() if xp is not np else code)]
    else:
        try:
            medges = list(metagraph.edges(keys=True))
        except (AttributeError, TypeError):
            raise TypeError(
                f"{where}: metagraph must be a networkx MultiDiGraph with keyed edges"
            ) from None
        nidx = {t: i for i, t in enumerate(ntypes)}
        eidx = {t: i for i, t in enumerate(etypes)}
        triples = []
        for s, d, e in medges:
            if s not in nidx or d not in nidx or e not in eidx:
                raise ValueError(f"{where}: metagraph edge {(s, d, e)!r} names an unknown type")
            triples.append((nidx[s] * ne_ + eidx[e]) * nn_ + nidx[d])
    data, groups = {}, {}
    for t in triples:
        s_id, rest = divmod(t, ne_ * nn_)
        e_id, d_id = divmod(rest, nn_)
        c = (ntypes[s_id], etypes[e_id], ntypes[d_id])
        if c in data:
            raise ValueError(f"{where}: canonical edge type {c!r} appears twice")
        e = xp.nonzero(code == t)[0].astype(np.int64)
        groups[c] = e
        data[c] = (local[src[e]], local[dst[e]])
    hg = Graph(data, {t: int(n) for t, n in zip(ntypes, counts)}, validate=False)
    for i, t in enumerate(ntypes):
        frame = hg._src_frames[t]._data
        for k, v in nframe._data.items():
            if k not in (ntype_field, NID):
                frame[k] = v[node_groups[i]]
        frame[NID] = node_groups[i]
    for c, e in groups.items():
        frame = hg._rels[c].frame._data
        for k, v in rel.frame._data.items():
            if k not in (etype_field, EID):
                frame[k] = v[e]
        frame[EID] = e
    return hg
