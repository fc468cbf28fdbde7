"""``convert_to_line_graph``: every edge becomes a node; edges that meet at a node connect
(TF-GNN's ``tfgnn.convert_to_line_graph``, same names, order and options).

The node sets of the result are the (non-auxiliary) edge sets of the input, with their
features and sizes. For each pair of edge sets ``e1``, ``e2`` whose ``connect_from`` /
``connect_to`` ends lie in one node set, edge set ``"e1=>e2"`` joins edge ``u`` of ``e1`` to
edge ``v`` of ``e2`` when ``u[connect_from] == v[connect_to]``; its edges are ordered by that
node, then by ``u``, then by ``v`` (TF-GNN's order). The pairs come from the per-node degrees
and two stable sorts, with no per-edge Python.

RULE: ``non_backtracking=True`` drops the pairs whose outer ends agree
      (``u[1 - connect_from] == v[1 - connect_to]``), as TF-GNN, through :func:`mask_edges`.
RULE: every edge set needs exactly the node tags SOURCE and TARGET (a ``HyperAdjacency``
      with other tags raises ``ValueError``, as TF-GNN).
RULE: auxiliary sets: ``_readout`` ones need ``connect_with_original_nodes=True`` (they are
      kept, pointing at the ``"original/<set>"`` node sets); any other auxiliary set raises.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency
>>> tri = GraphTensor.from_pieces(
...     node_sets={"points": NodeSet.from_fields(sizes=np.array([3]))},
...     edge_sets={"lines": EdgeSet.from_fields(sizes=np.array([3]),
...         adjacency=Adjacency.from_indices(source=("points", np.array([0, 1, 2])),
...                                          target=("points", np.array([1, 2, 0]))))})
>>> lg = convert_to_line_graph(tri)
>>> adj = lg.edge_sets["lines=>lines"].adjacency
>>> adj.source.tolist(), adj.target.tolist()
([2, 0, 1], [0, 1, 2])
"""

from __future__ import annotations

from arraygnn._namespace import get_namespace, repeat_counts
from arraygnn.graph_tensor.broadcast_pool import _check_graph, _check_tag
from arraygnn.graph_tensor.graph_ops import _take_rows, get_aux_type_prefix, mask_edges
from arraygnn.graph_tensor.pieces import (
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
)

__all__ = ["convert_to_line_graph"]

_OP = "convert_to_line_graph()"


def _check_adjacencies(graph: GraphTensor) -> None:
    for name, es in graph.edge_sets.items():  # TF-GNN: no hypergraphs
        tags = sorted(es.adjacency.get_indices_dict())
        if tags != [SOURCE, TARGET]:
            raise ValueError(
                f"{_OP}: edge set {name!r} has node tags {tags}; line graphs need an adjacency "
                "with exactly one SOURCE (0) and one TARGET (1) end"
            )


def _check_aux(graph: GraphTensor, connect_with_original_nodes: bool) -> None:
    for kind, names in (("node", graph.node_sets), ("edge", graph.edge_sets)):
        for name in names:
            aux = get_aux_type_prefix(name)
            if aux is None:
                continue
            if aux != "_readout":
                raise ValueError(
                    f"{_OP}: the graph has an auxiliary {kind} set {name!r} that cannot be "
                    "converted; remove it first"
                )
            if not connect_with_original_nodes:
                raise ValueError(
                    f"{_OP}: the graph has an auxiliary {kind} set {name!r}; pass "
                    "connect_with_original_nodes=True to keep readout sets, or remove them"
                )


def _original(name: str) -> str:
    return name if get_aux_type_prefix(name) else f"original/{name}"


def _with_original(graph: GraphTensor) -> tuple[dict[str, NodeSet], dict[str, EdgeSet]]:
    nodes = {_original(n): ns for n, ns in graph.node_sets.items()}
    edges = {}
    for name, es in graph.edge_sets.items():
        adj = es.adjacency
        if get_aux_type_prefix(name):
            edges[name] = EdgeSet.from_fields(
                sizes=es.sizes,
                adjacency=Adjacency.from_indices(
                    source=(_original(adj.source_name), adj.source),
                    target=(_original(adj.target_name), adj.target),
                ),
                features=es.features,
            )
            continue
        own = get_namespace(adj.source).arange(es.total_size, dtype=adj.source.dtype)
        edges[f"original/from/{name}"] = EdgeSet.from_fields(
            sizes=es.sizes,
            adjacency=Adjacency.from_indices(
                source=(name, own), target=(f"original/{adj.target_name}", adj.target)
            ),
        )
        edges[f"original/to/{name}"] = EdgeSet.from_fields(
            sizes=es.sizes,
            adjacency=Adjacency.from_indices(
                source=(f"original/{adj.source_name}", adj.source), target=(name, own)
            ),
        )
    return nodes, edges


def _line_edges(
    graph: GraphTensor, connect_from: int, connect_to: int, node_features: bool
) -> dict[str, EdgeSet]:
    out = {}
    for name_s, es in graph.edge_sets.items():
        if get_aux_type_prefix(name_s):
            continue
        via = es.adjacency.node_set_name(connect_from)
        ns = graph.node_sets[via]
        n = ns.total_size
        idx_s = es.adjacency[connect_from]
        xp = get_namespace(idx_s)
        dtype = idx_s.dtype
        order_s = xp.argsort(idx_s, kind="stable")
        deg_s = xp.bincount(idx_s, minlength=n)
        for name_t, et in graph.edge_sets.items():
            if get_aux_type_prefix(name_t) or et.adjacency.node_set_name(connect_to) != via:
                continue
            idx_t = et.adjacency[connect_to]
            order_t = xp.argsort(idx_t, kind="stable")
            deg_t = xp.bincount(idx_t, minlength=n)
            start_t = xp.cumsum(deg_t) - deg_t
            # one block per source edge (in node order): the target edges of its node
            node_k = idx_s[order_s]
            block = deg_t[node_k]
            source = repeat_counts(xp, order_s, block)
            k_of_p = repeat_counts(xp, xp.arange(es.total_size), block)
            block_start = xp.cumsum(block) - block
            offset = xp.arange(source.shape[0]) - block_start[k_of_p]
            target = order_t[start_t[node_k[k_of_p]] + offset]
            pairs = deg_s * deg_t  # line edges at each node
            cum = xp.concatenate([xp.zeros(1, dtype=pairs.dtype), xp.cumsum(pairs)])
            splits = ns.row_splits
            sizes = (cum[splits[1:]] - cum[splits[:-1]]).astype(es.sizes.dtype)
            features = None
            if node_features:
                at = repeat_counts(xp, xp.arange(n), pairs)
                features = {k: _take_rows(v, at) for k, v in ns.features.items()}
            out[f"{name_s}=>{name_t}"] = EdgeSet.from_fields(
                sizes=sizes,
                adjacency=Adjacency.from_indices(
                    source=(name_s, source.astype(dtype, copy=False)),
                    target=(name_t, target.astype(dtype, copy=False)),
                ),
                features=features,
            )
    return out


def convert_to_line_graph(
    graph: GraphTensor,
    *,
    connect_from: int = TARGET,
    connect_to: int = SOURCE,
    connect_with_original_nodes: bool = False,
    non_backtracking: bool = False,
    use_node_features_as_line_graph_edge_features: bool = False,
) -> GraphTensor:
    """The line graph of ``graph`` (see the module docstring); the context is kept.

    ``connect_with_original_nodes=True`` also keeps the node sets as ``"original/<set>"``
    with edge sets ``"original/to/<e>"`` (source node -> line node) and
    ``"original/from/<e>"`` (line node -> target node).
    ``use_node_features_as_line_graph_edge_features=True`` gives each line edge the features
    of the node it passes through.
    """
    _check_graph(graph, _OP)
    for tag in (connect_from, connect_to):  # line graphs join source / target pairs only
        _check_tag(tag, _OP)
        if tag not in (SOURCE, TARGET):
            raise ValueError(f"{_OP}: node tag must be SOURCE (0) or TARGET (1), got {tag!r}")
    _check_adjacencies(graph)
    _check_aux(graph, connect_with_original_nodes)
    nodes: dict[str, NodeSet] = {}
    edges: dict[str, EdgeSet] = {}
    if connect_with_original_nodes:
        nodes, edges = _with_original(graph)
    for name, es in graph.edge_sets.items():
        if not get_aux_type_prefix(name):
            nodes[name] = NodeSet.from_fields(sizes=es.sizes, features=es.features)
    edges.update(
        _line_edges(graph, connect_from, connect_to, use_node_features_as_line_graph_edge_features)
    )
    line = GraphTensor._trusted(graph.context, nodes, edges)
    if not non_backtracking:
        return line
    outer_in, outer_out = 1 - connect_from, 1 - connect_to
    for name, es in list(line.edge_sets.items()):
        if get_aux_type_prefix(name) or name.startswith("original/"):
            continue
        e_in = graph.edge_sets[es.adjacency.source_name]
        e_out = graph.edge_sets[es.adjacency.target_name]
        if e_in.adjacency.node_set_name(outer_in) != e_out.adjacency.node_set_name(outer_out):
            continue
        node_in = e_in.adjacency[outer_in][es.adjacency.source]
        node_out = e_out.adjacency[outer_out][es.adjacency.target]
        line = mask_edges(line, name, node_in != node_out)
    return line
