"""``Graph`` <-> PyG-style ``Data`` and ``Graph`` <-> ``GraphTensor``, sharing arrays.

- :func:`graph_to_graph_tensor` / :func:`graph_tensor_to_graph`: one node set per node type,
  one edge set per edge type (named by its etype), one component. A homogeneous graph's
  ``_N`` / ``_E`` become ``"nodes"`` / ``"edges"`` (the TF-GNN face's default names) and back.
- :func:`graph_to_data` / :func:`data_to_graph`: homogeneous graphs. Which ``Data``
  attribute is a node or an edge feature is stated, never guessed from lengths:
  ``node_features`` (default ``x`` and ``pos`` when present), ``edge_features`` (default
  ``edge_attr`` and ``edge_weight``); any other array attribute raises ``ValueError`` unless
  listed in ``exclude_keys`` (the rule of :mod:`arraygnn.graph_tensor.convert`).

RULE: feature arrays are shared, never copied; ``edge_index`` rows become (src, dst) views,
      and ``graph_to_data`` stacks ``(src, dst)`` into one new ``[2, E]`` array.
RULE: context (graph-level) features of a GraphTensor are not carried: a Graph has none.
RULE: a batched Graph's per-graph counts (``batch_num_nodes`` / ``batch_num_edges``) are a
      GraphTensor's components (``sizes``), both ways, and ``data_to_graph`` of a ``Batch``
      sets them from ``ptr`` and its slice records (its ``batch`` / ``ptr`` vectors are not
      features). ``graph_to_data`` gives one ``Data`` of all the graphs; for a ``Batch``, go
      through the GraphTensor: ``graph_tensor_to_batch(graph_to_graph_tensor(g))``.

>>> import numpy as np
>>> from arraygnn.graph import graph
>>> g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
>>> g.ndata["x"] = np.ones((3, 2))
>>> gt = graph_to_graph_tensor(g)
>>> sorted(gt.node_sets), gt.edge_sets["edges"].adjacency.target.tolist()
(['nodes'], [1, 2])
>>> graph_tensor_to_graph(gt).ndata["x"] is g.ndata["x"]
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, to_numpy
from arraygnn.graph.core import DEFAULT_ETYPE, DEFAULT_NTYPE, Graph, check_graph

__all__ = ["graph_to_graph_tensor", "graph_tensor_to_graph", "graph_to_data", "data_to_graph"]

_GT_NODES, _GT_EDGES = "nodes", "edges"


def graph_to_graph_tensor(g: Graph) -> Any:
    """A GraphTensor with the graph's node / edge types as sets: one component, or one per
    graph of a batched graph."""
    from arraygnn.graph.batching import host_batch_counts
    from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet

    check_graph("graph_to_graph_tensor", g)
    if g.is_block:
        raise ValueError("graph_to_graph_tensor: blocks are not supported; convert the graph")
    names = [c[1] for c in g.canonical_etypes]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(
            f"graph_to_graph_tensor: edge type name(s) {dupes} are used by several canonical "
            "edge types; a GraphTensor needs unique edge set names"
        )
    xp = g._xp()
    homogeneous = g.ntypes == [DEFAULT_NTYPE] and names in ([DEFAULT_ETYPE], [])

    def nname(t: str) -> str:
        return _GT_NODES if homogeneous else t

    def ename(e: str) -> str:
        return _GT_EDGES if homogeneous else e

    def sizes(kind: str, typ: Any) -> Any:  # one component per batched graph
        return xp.asarray(host_batch_counts(g, kind, typ).astype(np.int64))

    graphs = {
        kind: {int(host_batch_counts(g, kind, t).shape[0]) for t in types}
        for kind, types in (("nodes", g.ntypes), ("edges", g.canonical_etypes))
    }
    if len(graphs["nodes"] | graphs["edges"]) > 1:  # e.g. set_batch_num_nodes alone
        nodes, edges = ("/".join(map(str, sorted(graphs[k]))) for k in ("nodes", "edges"))
        raise ValueError(
            f"graph_to_graph_tensor: the graph's batch_num_nodes give {nodes} graphs but its "
            f"batch_num_edges give {edges}; set both (g.set_batch_num_nodes, then "
            "g.set_batch_num_edges)"
        )
    node_sets = {
        nname(t): NodeSet.from_fields(sizes=sizes("nodes", t), features=dict(f._data))
        for t, f in g._src_frames.items()
    }
    edge_sets = {
        ename(c[1]): EdgeSet.from_fields(
            sizes=sizes("edges", c),
            adjacency=Adjacency.from_indices(
                source=(nname(c[0]), r.src), target=(nname(c[2]), r.dst)
            ),
            features=dict(r.frame._data),
        )
        for c, r in g._rels.items()
    }
    return GraphTensor.from_pieces(node_sets=node_sets, edge_sets=edge_sets, validate=False)


def graph_tensor_to_graph(gt: Any) -> Graph:
    """A Graph with one node type per node set and one edge type per edge set (rank 0)."""
    from arraygnn.graph_tensor import GraphTensor, Ragged

    if not isinstance(gt, GraphTensor):
        raise TypeError(f"expected a GraphTensor, got {type(gt).__name__}")
    if gt.rank != 0:
        raise ValueError("graph_tensor_to_graph: merge the batch first (merge_batch_to_components)")
    homogeneous = set(gt.node_sets) == {_GT_NODES} and set(gt.edge_sets) in ({_GT_EDGES}, set())

    def nname(t: str) -> str:
        return DEFAULT_NTYPE if homogeneous else t

    def ename(e: str) -> str:
        return DEFAULT_ETYPE if homogeneous else e

    rels = {}
    for name, es in gt.edge_sets.items():
        adj = es.adjacency
        rels[(nname(adj.source_name), ename(name), nname(adj.target_name))] = (
            adj.source,
            adj.target,
        )
    counts = {nname(t): int(ns.total_size) for t, ns in gt.node_sets.items()}
    if not rels:
        raise ValueError("graph_tensor_to_graph: the GraphTensor has no edge set")
    g = Graph(rels, counts, validate=False)
    for t, ns in gt.node_sets.items():
        for k, v in ns.features.items():
            if isinstance(v, Ragged):
                raise ValueError(f"node set {t!r} feature {k!r} is ragged; a Graph needs arrays")
            g._src_frames[nname(t)][k] = v
    for name, es in gt.edge_sets.items():
        c = (nname(es.adjacency.source_name), ename(name), nname(es.adjacency.target_name))
        for k, v in es.features.items():
            if isinstance(v, Ragged):
                raise ValueError(f"edge set {name!r} feature {k!r} is ragged; a Graph needs arrays")
            g._rels[c].frame[k] = v
    if gt.num_components != 1:  # components are the batched graphs
        g.set_batch_num_nodes({nname(t): ns.sizes for t, ns in gt.node_sets.items()})
        g.set_batch_num_edges(
            {
                (nname(es.adjacency.source_name), ename(n), nname(es.adjacency.target_name)): (
                    es.sizes
                )
                for n, es in gt.edge_sets.items()
            }
        )
    return g


def graph_to_data(g: Graph) -> Any:
    """A ``Data`` with ``edge_index`` [2, E], ``num_nodes`` and every node / edge feature."""
    from arraygnn.data import Data

    check_graph("graph_to_data", g)
    if g.is_block or len(g.ntypes) != 1 or len(g.canonical_etypes) != 1:
        raise ValueError("graph_to_data: only homogeneous graphs (one node and one edge type)")
    nfeat, efeat = dict(g.ndata), dict(g.edata)
    clash = sorted(set(nfeat) & set(efeat))
    if clash:
        raise ValueError(f"graph_to_data: feature name(s) {clash} are on both nodes and edges")
    reserved = sorted({"edge_index", "num_nodes"} & (set(nfeat) | set(efeat)))
    if reserved:
        raise ValueError(
            f"graph_to_data: feature name(s) {reserved} are Data's own fields; rename them "
            "(g.ndata / g.edata) before converting"
        )
    rel = g._rel()
    return Data(edge_index=rel.edge_index(), num_nodes=g.num_nodes(), **nfeat, **efeat)


def data_to_graph(
    data: Any,
    *,
    node_features: Iterable[str] | None = None,
    edge_features: Iterable[str] | None = None,
    exclude_keys: Iterable[str] = (),
) -> Graph:
    """A homogeneous Graph from a ``Data`` (``edge_index[0]`` -> ``edge_index[1]``)."""

    from arraygnn.interop._handoff import is_data_like

    if not is_data_like(data):
        raise TypeError(f"data_to_graph expects a Data (keys and items), got {type(data).__name__}")
    keys = list(data.keys())
    node_keys = (
        [k for k in ("x", "pos") if k in keys] if node_features is None else list(node_features)
    )
    edge_keys = (
        [k for k in ("edge_attr", "edge_weight") if k in keys]
        if edge_features is None
        else list(edge_features)
    )
    for k in node_keys + edge_keys:
        if k not in keys:
            raise ValueError(f"data has no attribute {k!r} (attributes: {sorted(keys)})")
    placed = set(node_keys) | set(edge_keys) | set(exclude_keys) | {"edge_index", "num_nodes"}
    is_batch = hasattr(data, "num_graphs") and getattr(data, "ptr", None) is not None
    records = (getattr(data, "_slice_dict", None) or None) if is_batch else None
    # a Batch's ``batch`` / ``ptr`` / ``<key>_batch`` vectors are not collated keys
    unplaced = [
        k
        for k in keys
        if k not in placed and is_array(data[k]) and (records is None or k in records)
    ]
    if unplaced:
        raise ValueError(
            f"data attribute(s) {unplaced} have no place in the Graph: name them in "
            "node_features= or edge_features=, or in exclude_keys="
        )
    if "edge_index" not in keys:
        raise ValueError("data has no 'edge_index'")
    ei = data["edge_index"]
    if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError("data.edge_index must be an integer array of shape [2, num_edges]")
    n = data.num_nodes
    if n is None:
        raise ValueError("data.num_nodes is unknown; set data.num_nodes or data.x")
    g = Graph(
        {(DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE): (ei[0], ei[1])}, {DEFAULT_NTYPE: int(n)}
    )
    for k in node_keys:
        g.ndata[k] = data[k]
    for k in edge_keys:
        g.edata[k] = data[k]
    if records is not None and "edge_index" in records:  # a Batch: a batched Graph
        g.set_batch_num_nodes(np.diff(np.asarray(to_numpy(data.ptr), dtype=np.int64)))
        g.set_batch_num_edges(np.diff(np.asarray(records["edge_index"], dtype=np.int64)))
    return g
