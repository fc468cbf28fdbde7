"""DGL's ``reorder_graph``: renumber the nodes (reverse Cuthill-McKee or a given
permutation) and then order the edges (by source, by destination or a given permutation)
for better memory locality.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([2, 0, 1]), np.array([0, 1, 2])))
>>> r = reorder_graph(g, edge_permute_algo="src")
>>> r.edges()[0].tolist(), r.edata["_ID"].tolist()
([0, 1, 2], [1, 2, 0])
>>> r = reorder_graph(g, "custom", permute_config={"nodes_perm": [2, 1, 0]})
>>> r.ndata["_ID"].tolist(), r.edges()[0].tolist()
([2, 1, 0], [0, 1, 2])

RULE: new node ``i`` is old node ``nodes_perm[i]`` (DGL's ``node_subgraph``, whose edges
      come grouped by new source, each source's in edge-id order; with no node
      permutation DGL clones ``g``: edge-id order); the edges then follow
      ``edge_permute_algo``: ``'src'`` / ``'dst'`` sort that order by the new source /
      destination id, ties kept in that order (a stable sort: DGL's ``np.argsort`` leaves
      ties unspecified; so ``'dst'`` after a node permutation breaks ties by new source,
      then edge id); ``'custom'`` takes ``permute_config['edges_perm']`` as ids of
      ``g``'s edges (DGL maps them back through ``'__orig__'``). ``edata[EID]`` holds
      each edge's id in ``g``. ``store_ids`` gives ``ndata[NID]`` / ``edata[EID]`` (old
      ids); without it no id field is added (DGL leaves a stray ``'__orig__'`` field).
RULE: ``'rcmk'`` is ``scipy.sparse.csgraph.reverse_cuthill_mckee`` of the source-row
      adjacency (DGL's ``rcmk_perm``); ``'metis'`` needs METIS, which arraygnn lacks: it
      raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_device
from arraygnn.graph.core import EID, NID, Graph, _as_ids, check_graph

__all__ = ["reorder_graph", "rcmk_perm"]

_NODE_ALGOS = ("rcmk", "metis", "custom")
_EDGE_ALGOS = ("src", "dst", "custom")


def rcmk_perm(g: Graph) -> np.ndarray:
    """Reverse Cuthill-McKee node order of a homogeneous graph (SciPy; host NumPy ids)."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    check_graph("rcmk_perm", g)
    if g.num_nodes() == 0:
        return np.zeros(0, dtype=np.int64)
    adj = g.cpu().adj_external(scipy_fmt="csr")
    return reverse_cuthill_mckee(adj.tocsr()).copy()


def _perm(where: str, name: str, value: Any, n: int, what: str) -> np.ndarray:
    try:
        ids = _as_ids(value if is_array(value) else list(value), f"{where}: {name}")
    except TypeError:
        raise TypeError(f"{where}: {name} must be a list or an integer array") from None
    ids = np.asarray(ids.get() if hasattr(ids, "get") else ids)
    if ids.shape[0] != n:
        raise ValueError(f"{where}: {name} has {ids.shape[0]} entries; the graph has {n} {what}")
    if n and not np.array_equal(np.sort(ids), np.arange(n)):
        raise ValueError(f"{where}: {name} is not a permutation of 0..{n - 1}")
    return ids.astype(np.int64)


def _stable_order(xp: Any, keys: Any, n: int) -> Any:
    """The stable sort of ``keys`` (ids in ``[0, n)``): a counting sort on NumPy / CuPy."""
    if keys.shape[0] < 2:
        return xp.arange(keys.shape[0])
    from arraygnn.ops.csr import sorted_segments

    return sorted_segments(xp, keys, n)[1]


def reorder_graph(
    g: Graph,
    node_permute_algo: str | None = None,
    edge_permute_algo: str = "src",
    store_ids: bool = True,
    permute_config: Mapping[str, Any] | None = None,
) -> Graph:
    """``g`` with nodes and edges renumbered (DGL's ``reorder_graph``); features follow."""
    where = "reorder_graph"
    check_graph(where, g)
    if g.is_block or len(g.ntypes) != 1 or len(g.canonical_etypes) != 1:
        raise ValueError(f"{where}: only homogeneous graphs are supported")
    if node_permute_algo is not None and node_permute_algo not in _NODE_ALGOS:
        raise ValueError(
            f"{where}: node_permute_algo must be None or one of {list(_NODE_ALGOS)}, "
            f"got {node_permute_algo!r}"
        )
    if edge_permute_algo not in _EDGE_ALGOS:
        raise ValueError(
            f"{where}: edge_permute_algo must be one of {list(_EDGE_ALGOS)}, "
            f"got {edge_permute_algo!r}"
        )
    if permute_config is not None and not isinstance(permute_config, Mapping):
        raise TypeError(f"{where}: permute_config must be a dict, got {permute_config!r}")
    config = dict(permute_config or {})
    if node_permute_algo == "metis":
        raise ValueError(
            f"{where}: node_permute_algo='metis' needs METIS, which arraygnn does not ship; "
            "use 'rcmk' or pass your own order as 'custom'"
        )
    n, rel = g.num_nodes(), g._rel()
    xp, idtype = g._xp(), g.idtype
    if node_permute_algo == "rcmk":
        nodes_perm = rcmk_perm(g).astype(np.int64)
    elif node_permute_algo == "custom":
        if "nodes_perm" not in config:
            raise ValueError(
                f"{where}: node_permute_algo='custom' needs permute_config['nodes_perm']"
            )
        nodes_perm = _perm(where, "permute_config['nodes_perm']", config["nodes_perm"], n, "nodes")
    else:
        nodes_perm = np.arange(n, dtype=np.int64)
    perm_x = to_device(nodes_perm, g.device)
    inverse = xp.empty(n, dtype=np.int64)
    inverse[perm_x] = xp.arange(n, dtype=np.int64)
    src, dst = inverse[rel.src], inverse[rel.dst]  # every edge kept, in edge-id order
    if edge_permute_algo == "src":  # node_subgraph's order, or g's sorted by source
        edges_perm = _stable_order(xp, src, n)
    elif edge_permute_algo == "dst":
        if node_permute_algo is None:  # DGL sorts a clone of g
            edges_perm = _stable_order(xp, dst, n)
        else:  # DGL sorts node_subgraph's edges (grouped by new source)
            base = _stable_order(xp, src, n)
            edges_perm = base[_stable_order(xp, dst[base], n)]
    else:
        if "edges_perm" not in config:
            raise ValueError(
                f"{where}: edge_permute_algo='custom' needs permute_config['edges_perm']"
            )
        edges_perm = to_device(
            _perm(
                where, "permute_config['edges_perm']", config["edges_perm"], rel.num_edges, "edges"
            ),
            g.device,
        )
    edges_perm = edges_perm.astype(idtype)
    perm_x = perm_x.astype(idtype)
    new = Graph(
        {rel.canonical: (src[edges_perm].astype(idtype), dst[edges_perm].astype(idtype))},
        g._num_src,
        validate=False,
    )
    nframe = new._src_frames[g.ntypes[0]]._data
    nframe.update({k: v[perm_x] for k, v in g._src_frames[g.ntypes[0]]._data.items()})
    eframe = new._rels[rel.canonical].frame._data
    eframe.update({k: v[edges_perm] for k, v in rel.frame._data.items()})
    if store_ids:
        nframe[NID] = perm_x
        eframe[EID] = edges_perm
    return new
