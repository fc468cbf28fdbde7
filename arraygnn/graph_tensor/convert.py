"""PyG-style ``Data`` / ``Batch`` <-> GraphTensor with one node set and one edge set.

Names: the node set is ``"nodes"`` and the edge set ``"edges"`` (both endpoints in
``"nodes"``) unless ``node_set_name=`` / ``edge_set_name=`` say otherwise. ``edge_index[0]``
becomes ``adjacency.source``, ``edge_index[1]`` ``adjacency.target``. A ``Batch`` becomes
one graph whose components are its graphs (node sizes from ``batch.ptr``).

Where each attribute goes is stated, never guessed from array lengths:
``node_features`` (default: ``x`` and ``pos`` when present), ``edge_features`` (default:
``edge_attr`` and ``edge_weight`` when present), ``context_features`` (default: none; e.g.
``("y",)`` for graph labels). Any other array attribute raises ``ValueError`` naming it,
unless listed in ``exclude_keys``. A ``Batch``'s own vectors (``batch``, ``ptr`` and
``follow_batch``'s ``<key>_batch`` / ``<key>_ptr``) are left out: they are not collated keys.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]]))
>>> g = data_to_graph_tensor(d)
>>> g.node_sets["nodes"].total_size, g.edge_sets["edges"].adjacency.target.tolist()
(3, [1, 2])
>>> graph_tensor_to_data(g).edge_index.tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.pieces import Adjacency, Context, EdgeSet, GraphTensor, NodeSet

__all__ = [
    "NODE_SET_NAME",
    "EDGE_SET_NAME",
    "data_to_graph_tensor",
    "graph_tensor_to_data",
    "graph_tensor_to_batch",
]

NODE_SET_NAME = "nodes"
EDGE_SET_NAME = "edges"
_STRUCTURAL = ("edge_index", "batch", "ptr", "num_nodes")


def _present(data: Any, names: Iterable[str]) -> list[str]:
    keys = set(data.keys())
    return [n for n in names if n in keys]


def data_to_graph_tensor(
    data: Any,
    *,
    node_features: Iterable[str] | None = None,
    edge_features: Iterable[str] | None = None,
    context_features: Iterable[str] = (),
    exclude_keys: Iterable[str] = (),
    node_set_name: str = NODE_SET_NAME,
    edge_set_name: str = EDGE_SET_NAME,
) -> GraphTensor:
    """A ``Data`` (one component) or a ``Batch`` (one component per graph) as a GraphTensor.

    Arrays are shared, not copied (except ``edge_index`` rows, which are views).
    """

    from arraygnn.interop._handoff import is_data_like

    if not is_data_like(data):
        raise TypeError(
            f"data_to_graph_tensor expects a Data (keys and items), got {type(data).__name__}"
        )
    keys = list(data.keys())
    node_keys = _present(data, ("x", "pos")) if node_features is None else list(node_features)
    edge_keys = (
        _present(data, ("edge_attr", "edge_weight"))
        if edge_features is None
        else list(edge_features)
    )
    ctx_keys = list(context_features)
    placed = set(node_keys) | set(edge_keys) | set(ctx_keys) | set(exclude_keys) | set(_STRUCTURAL)
    for k in node_keys + edge_keys + ctx_keys:
        if k not in keys:
            raise ValueError(f"data has no attribute {k!r} (attributes: {sorted(keys)})")
    is_batch = hasattr(data, "num_graphs") and getattr(data, "ptr", None) is not None
    # a Batch's own vectors (``batch``, ``ptr``, follow_batch's ``x_batch`` / ``x_ptr``) are
    # not in its slice records: only the collated keys need a place
    records = (getattr(data, "_slice_dict", None) or None) if is_batch else None
    unplaced = [k for k in keys if k not in placed and (records is None or k in records)]
    if unplaced:
        raise ValueError(
            f"data attribute(s) {unplaced} have no place in the GraphTensor: name them in "
            "node_features=, edge_features= or context_features=, or in exclude_keys="
        )
    if "edge_index" not in keys:
        raise ValueError("data has no 'edge_index'")
    edge_index = data["edge_index"]
    if not is_array(edge_index) or edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError("data.edge_index must be an integer array of shape [2, num_edges]")
    xp = get_namespace(edge_index)
    num_edges = int(edge_index.shape[1])
    num_nodes = None if is_batch else data.num_nodes
    if num_nodes is None and not is_batch:
        raise ValueError("data.num_nodes is unknown; set data.num_nodes or data.x")
    if is_batch:
        ptr = data.ptr
        node_sizes = ptr[1:] - ptr[:-1]
        num_graphs = int(node_sizes.shape[0])
        slices = getattr(data, "_slice_dict", {}).get("edge_index")
        if slices is not None:  # the batch's own record of edges per graph
            edge_sizes = xp.asarray(np.diff(np.asarray(slices, dtype=np.int64)))
        else:  # edges of a Batch are stored graph after graph: find each graph's first edge
            gid = xp.searchsorted(ptr[1:], edge_index[0], side="right")
            if num_edges > 1 and bool(xp.any(gid[1:] < gid[:-1])):
                raise ValueError("batch.edge_index is not ordered graph by graph")
            esplits = xp.searchsorted(gid, xp.arange(num_graphs + 1), side="left")
            edge_sizes = esplits[1:] - esplits[:-1]
    else:
        node_sizes = xp.asarray(np.array([int(num_nodes)], dtype=np.int64))
        edge_sizes = xp.asarray(np.array([num_edges], dtype=np.int64))
        num_graphs = 1

    def feats(names: list[str]) -> dict[str, Any]:
        return {k: data[k] for k in names}

    context = Context.from_fields(
        features=feats(ctx_keys), sizes=xp.ones(num_graphs, dtype=np.int64)
    )
    nodes = NodeSet.from_fields(sizes=node_sizes, features=feats(node_keys))
    edges = EdgeSet.from_fields(
        sizes=edge_sizes,
        adjacency=Adjacency.from_indices(
            source=(node_set_name, edge_index[0]), target=(node_set_name, edge_index[1])
        ),
        features=feats(edge_keys),
    )
    return GraphTensor.from_pieces(context, {node_set_name: nodes}, {edge_set_name: edges})


def _single_sets(graph: GraphTensor, node_set_name: str | None, edge_set_name: str | None):
    if not isinstance(graph, GraphTensor):
        raise TypeError(f"expected a GraphTensor, got {type(graph).__name__}")
    if graph.rank != 0:
        raise ValueError("expected a scalar GraphTensor; merge the batch first")
    ns_name = node_set_name or (next(iter(graph.node_sets)) if len(graph.node_sets) == 1 else None)
    es_name = edge_set_name or (next(iter(graph.edge_sets)) if len(graph.edge_sets) == 1 else None)
    if ns_name is None or ns_name not in graph.node_sets:
        raise ValueError(
            f"pass node_set_name= (node sets: {sorted(graph.node_sets)}); a Data holds one"
        )
    if es_name is None or es_name not in graph.edge_sets:
        raise ValueError(
            f"pass edge_set_name= (edge sets: {sorted(graph.edge_sets)}); a Data holds one"
        )
    es = graph.edge_sets[es_name]
    a = es.adjacency
    if a.source_name != ns_name or a.target_name != ns_name:
        raise ValueError(
            f"edge set {es_name!r} joins {a.source_name!r} -> {a.target_name!r}, not "
            f"node set {ns_name!r} to itself"
        )
    return graph.node_sets[ns_name], es


def _to_data_fields(graph: GraphTensor, ns: Any, es: Any) -> dict[str, Any]:
    from arraygnn.graph_tensor.ragged import Ragged

    fields: dict[str, Any] = {}
    for where, piece in (("context", graph.context), ("node set", ns), ("edge set", es)):
        for k, v in piece.features.items():
            if isinstance(v, Ragged):
                raise ValueError(f"{where} feature {k!r} is ragged; a Data cannot hold it")
            if k in fields or k in _STRUCTURAL:
                raise ValueError(f"feature name {k!r} is used twice (or is reserved)")
            fields[k] = v
    a = es.adjacency
    xp = get_namespace(a.source)
    src, tgt = a.source, a.target
    if src.dtype != tgt.dtype:  # e.g. uint64 and int64: NumPy would stack them as float64
        src, tgt = src.astype(np.int64), tgt.astype(np.int64)
    fields["edge_index"] = xp.stack([src, tgt])
    fields["num_nodes"] = ns.total_size
    return fields


def graph_tensor_to_data(
    graph: GraphTensor, *, node_set_name: str | None = None, edge_set_name: str | None = None
) -> Any:
    """One ``Data`` holding all components of ``graph`` (features keep their names)."""
    from arraygnn.data import Data

    ns, es = _single_sets(graph, node_set_name, edge_set_name)
    return Data(**_to_data_fields(graph, ns, es))


def graph_tensor_to_batch(
    graph: GraphTensor, *, node_set_name: str | None = None, edge_set_name: str | None = None
) -> Any:
    """A ``Batch`` with one graph per component (context features become graph attributes).

    Splits the graph with :func:`split_components` and collates with
    ``Batch.from_data_list``.
    """
    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.graph_tensor.batching import split_components

    ns, es = _single_sets(graph, node_set_name, edge_set_name)
    ns_name = es.adjacency.source_name
    es_name = next(n for n, e in graph.edge_sets.items() if e is es)
    data_list = []
    for part in split_components(graph):
        pns, pes = part.node_sets[ns_name], part.edge_sets[es_name]
        data_list.append(Data(**_to_data_fields(part, pns, pes)))
    return Batch.from_data_list(data_list)
