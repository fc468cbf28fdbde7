"""``HeteroData`` <-> the DGL-style heterograph and the TF-GNN-style ``GraphTensor``,
sharing arrays.

- :func:`hetero_data_to_graph` / :func:`graph_to_hetero_data`: one node type per node
  store, one canonical edge type ``(src, rel, dst)`` per edge store (the same triple).
- :func:`hetero_data_to_graph_tensor` / :func:`graph_tensor_to_hetero_data`: one node set
  per node type (same name), one edge set per edge type. Edge set names: the relation
  name ``rel`` when no other edge type uses it, else ``"src__rel__dst"`` (e.g. two
  ``'cites'`` relations give ``'paper__cites__paper'`` and ``'author__cites__paper'``);
  back from a GraphTensor, an edge set becomes ``(source set, set name, target set)``
  unless its name is such ``"src__rel__dst"`` with those end sets, which gives
  ``(src, rel, dst)`` back.

Where each attribute goes is stated, never guessed from array lengths: every array of a
node store is a node feature of its type, every array of an edge store other than
``edge_index`` an edge feature of its type (``exclude_keys`` leaves keys out of every
store; a ``HeteroBatch``'s ``batch`` / ``ptr`` and ``follow_batch``'s ``<key>_batch`` /
``<key>_ptr`` are always left out). Graph-level
attributes go to the GraphTensor's context only when named in ``context_features``; a
graph has no graph-level features, so :func:`hetero_data_to_graph` drops them.

RULE: feature arrays are shared, never copied; ``edge_index`` rows become (src, dst)
      views, and the way back stacks them into one new ``[2, E]`` array.

>>> import numpy as np
>>> from arraygnn.hetero_data import HeteroData
>>> d = HeteroData(author={"x": np.ones((2, 3))}, paper={"x": np.zeros((3, 3))})
>>> d["author", "writes", "paper"].edge_index = np.array([[0, 1, 1], [0, 0, 2]])
>>> g = hetero_data_to_graph(d)
>>> g.canonical_etypes, g.num_nodes("paper"), g.nodes["author"].data["x"] is d["author"].x
([('author', 'writes', 'paper')], 3, True)
>>> gt = hetero_data_to_graph_tensor(d)
>>> sorted(gt.node_sets), list(gt.edge_sets), gt.edge_sets["writes"].adjacency.source_name
(['author', 'paper'], ['writes'], 'author')
>>> graph_tensor_to_hetero_data(gt).edge_types
[('author', 'writes', 'paper')]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.hetero_data import EdgeType, HeteroData

__all__ = [
    "hetero_data_to_graph",
    "graph_to_hetero_data",
    "hetero_data_to_graph_tensor",
    "graph_tensor_to_hetero_data",
    "edge_set_names",
]

_BATCH_KEYS = ("batch", "ptr")


def _check_data(data: Any, where: str) -> None:
    if not isinstance(data, HeteroData):
        raise TypeError(f"{where} expects an arraygnn HeteroData, got {type(data).__name__}")


def _counts(data: HeteroData, where: str) -> dict[str, int]:
    return data._node_counts(
        where, "give x, pos or num_nodes=; it is never guessed from edge_index.max() + 1"
    )


def _edge_index(data: HeteroData, et: EdgeType, where: str) -> Any:
    for end in (et[0], et[2]):
        if end not in data._nodes:
            raise ValueError(
                f"{where}: edge type {et!r} uses node type {end!r}, which the graph does not "
                f"have (node types: {data.node_types})"
            )
    ei = data._edges[et]._mapping.get("edge_index")
    if ei is None:
        raise ValueError(f"{where}: edge type {et!r} has no edge_index")
    if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"{where}: edge type {et!r}: edge_index must be an integer [2, E] array")
    if ei.dtype.kind not in "iu" or ei.dtype == np.bool_:
        raise TypeError(
            f"{where}: edge type {et!r}: edge_index must hold integers, got dtype {ei.dtype}"
        )
    return ei


def _batch_store_keys(data: HeteroData) -> tuple[str, ...]:
    from arraygnn.hetero_batch import HeteroBatch

    return _BATCH_KEYS if isinstance(data, HeteroBatch) else ()


def _features(mapping: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k not in skip and is_array(v)}


def _collated(data: HeteroData, skey: Any, mapping: dict[str, Any]) -> dict[str, Any]:
    """A ``HeteroBatch``'s keys that were collated (its slice records), not the ``batch`` /
    ``ptr`` / ``follow_batch`` ``<key>_batch`` / ``<key>_ptr`` vectors collation added;
    every key of anything else."""
    if not (_batch_store_keys(data) and data._kind_dict):
        return mapping
    records = data._slice_dict.get(skey, {})
    return {k: v for k, v in mapping.items() if k in records}


def hetero_data_to_graph(data: HeteroData, *, exclude_keys: Iterable[str] = ()) -> Any:
    """A heterogeneous :class:`arraygnn.graph.Graph` with the same node and edge types.

    Node store arrays go to ``g.nodes[ntype].data``, edge store arrays (but
    ``edge_index``) to ``g.edges[etype].data``; graph-level attributes and non-array values
    are not carried. Node counts come from each type's ``num_nodes``; a ``HeteroBatch``
    gives a batched graph (``batch_num_nodes`` / ``batch_num_edges`` from its ``ptr`` and
    slice records; its ``batch`` / ``ptr`` / ``follow_batch`` vectors are not features).

    >>> import numpy as np
    >>> d = HeteroData(a={"num_nodes": 2}, b={"num_nodes": 1, "h": np.ones((1, 2))})
    >>> d["a", "r", "b"].edge_index = np.array([[0, 1], [0, 0]])
    >>> d["a", "r", "b"].w = np.array([1.0, 2.0])
    >>> g = hetero_data_to_graph(d)
    >>> g.num_nodes("a"), g.edges["r"].data["w"].tolist()
    (2, [1.0, 2.0])
    """
    from arraygnn.graph.core import Graph

    where = "hetero_data_to_graph"
    _check_data(data, where)
    counts = _counts(data, where)
    rels = {}
    for et in data._edges:
        ei = _edge_index(data, et, where)
        rels[et] = (ei[0], ei[1])
    if not rels:
        raise ValueError(f"{where}: the graph has no edge type (a Graph needs at least one)")
    g = Graph(rels, counts)
    skip = set(exclude_keys) | {"num_nodes"} | set(_batch_store_keys(data))
    for t, s in data._nodes.items():
        for k, v in _features(_collated(data, t, s._mapping), skip).items():
            g.nodes[t].data[k] = v
    for et, s in data._edges.items():
        for k, v in _features(_collated(data, et, s._mapping), skip | {"edge_index"}).items():
            g.edges[et].data[k] = v
    if _batch_store_keys(data) and data._kind_dict:  # a HeteroBatch: a batched Graph
        ptrs = {t: s._mapping.get("ptr") for t, s in data._nodes.items()}
        if all(p is not None for p in ptrs.values()):
            g.set_batch_num_nodes({t: np.diff(np.asarray(to_numpy(p))) for t, p in ptrs.items()})
            g.set_batch_num_edges(
                {et: np.diff(np.asarray(data._slice_dict[et]["edge_index"])) for et in rels}
            )
    return g


def graph_to_hetero_data(g: Any) -> HeteroData:
    """A ``HeteroData`` from a (heterogeneous) Graph: node types in ``g.ntypes`` order
    with an explicit ``num_nodes`` and their features, edge types in
    ``g.canonical_etypes`` order with ``edge_index`` ``[2, E]`` and their features.

    >>> import numpy as np, arraygnn
    >>> g = arraygnn.heterograph({("u", "plays", "v"): (np.array([0, 1]), np.array([0, 0]))})
    >>> d = graph_to_hetero_data(g)
    >>> d["u"].num_nodes, d["plays"].edge_index.tolist()
    (2, [[0, 1], [0, 0]])
    """
    from arraygnn.graph.core import Graph, check_graph

    if not isinstance(g, Graph):
        raise TypeError(f"graph_to_hetero_data expects an arraygnn Graph, got {type(g).__name__}")
    check_graph("graph_to_hetero_data", g)
    if g.is_block:
        raise ValueError("graph_to_hetero_data: blocks are not supported; convert the graph")
    out = HeteroData()
    for t in g.ntypes:
        store = out.get_node_store(t)
        store.num_nodes = g.num_nodes(t)
        for k, v in g.nodes[t].data.items():
            store[k] = v
    for c in g.canonical_etypes:
        store = out.get_edge_store(*c)
        rel = g._rels[c]
        store.edge_index = get_namespace(rel.src).stack([rel.src, rel.dst])
        for k, v in rel.frame._data.items():
            store[k] = v
    return out


def edge_set_names(edge_types: Iterable[EdgeType]) -> dict[EdgeType, str]:
    """The GraphTensor edge set name of each edge type: ``rel`` when unique among the
    edge types, else ``"src__rel__dst"`` (with ``_2``, ``_3``, ... appended if that
    still collides).

    >>> edge_set_names([("a", "cites", "b"), ("b", "cites", "b"), ("a", "to", "b")])
    {('a', 'cites', 'b'): 'a__cites__b', ('b', 'cites', 'b'): 'b__cites__b', ('a', 'to', 'b'): 'to'}
    """
    edge_types = list(edge_types)
    rels = [et[1] for et in edge_types]
    names: dict[EdgeType, str] = {}
    used: set[str] = set()
    for et in edge_types:
        name = et[1] if rels.count(et[1]) == 1 else "__".join(et)
        base, k = name, 2
        while name in used:
            name = f"{base}_{k}"
            k += 1
        used.add(name)
        names[et] = name
    return names


def hetero_data_to_graph_tensor(
    data: HeteroData,
    *,
    context_features: Iterable[str] = (),
    exclude_keys: Iterable[str] = (),
) -> Any:
    """A GraphTensor with one node set per node type and one edge set per edge type.

    A ``HeteroData`` gives one component; a ``HeteroBatch`` one component per graph (node
    sizes from each type's ``ptr``, edge sizes from the batch's records). Edge set names
    follow :func:`edge_set_names`. Graph-level attributes must be named in
    ``context_features`` (``[num_components, ...]`` arrays) or ``exclude_keys``
    (``ValueError`` listing them otherwise).

    >>> import numpy as np
    >>> d = HeteroData(a={"x": np.ones((2, 1))}, y=np.array([3.0]))
    >>> d["a", "to", "a"].edge_index = np.array([[0], [1]])
    >>> gt = hetero_data_to_graph_tensor(d, context_features=["y"])
    >>> gt.context.features["y"].tolist(), gt.edge_sets["to"].sizes.tolist()
    ([3.0], [1])
    """
    from arraygnn.graph_tensor.pieces import Adjacency, Context, EdgeSet, GraphTensor, NodeSet
    from arraygnn.hetero_batch import HeteroBatch

    where = "hetero_data_to_graph_tensor"
    _check_data(data, where)
    exclude = set(exclude_keys)
    ctx_keys = list(context_features)
    for k in ctx_keys:
        if k not in data._global:
            raise ValueError(
                f"{where}: context feature {k!r} is not a graph-level attribute "
                f"(graph-level attributes: {list(data._global)})"
            )
    unplaced = [k for k in data._global if k not in exclude and k not in ctx_keys]
    if unplaced:
        raise ValueError(
            f"{where}: graph-level attribute(s) {unplaced} have no place in the GraphTensor: "
            "name them in context_features= or exclude_keys="
        )
    counts = _counts(data, where)
    arrays = [v for s in data.node_stores + data.edge_stores for v in s.values() if is_array(v)]
    xp = get_namespace(*arrays)
    is_batch = isinstance(data, HeteroBatch) and data._kind_dict
    g = int(data.num_graphs) if is_batch else 1

    def node_sizes(t: str) -> Any:
        if not is_batch:
            return xp.asarray(np.array([counts[t]], dtype=np.int64))
        ptr = data._nodes[t]._mapping.get("ptr")
        if ptr is None:
            raise ValueError(f"{where}: node type {t!r} of the batch has no ptr")
        return ptr[1:] - ptr[:-1]

    def edge_sizes(et: EdgeType, num_edges: int) -> Any:
        if not is_batch:
            return xp.asarray(np.array([num_edges], dtype=np.int64))
        sl = np.asarray(data._slice_dict[et]["edge_index"], dtype=np.int64)
        return xp.asarray(np.diff(sl))

    skip = exclude | {"num_nodes"} | set(_batch_store_keys(data))
    node_sets = {
        t: NodeSet.from_fields(
            sizes=node_sizes(t), features=_features(_collated(data, t, s._mapping), skip)
        )
        for t, s in data._nodes.items()
    }
    names = edge_set_names(data._edges)
    edge_sets = {}
    for et, s in data._edges.items():
        ei = _edge_index(data, et, where)
        edge_sets[names[et]] = EdgeSet.from_fields(
            sizes=edge_sizes(et, int(ei.shape[1])),
            adjacency=Adjacency.from_indices(source=(et[0], ei[0]), target=(et[2], ei[1])),
            features=_features(_collated(data, et, s._mapping), skip | {"edge_index"}),
        )
    context = Context.from_fields(
        features={k: data._global[k] for k in ctx_keys}, sizes=xp.ones(g, dtype=np.int64)
    )
    return GraphTensor.from_pieces(context, node_sets, edge_sets)


def graph_tensor_to_hetero_data(gt: Any) -> HeteroData:
    """One ``HeteroData`` holding every component of a (rank-0) GraphTensor.

    Node sets become node types (explicit ``num_nodes``, features), edge sets edge types
    (see the module's naming rule) with ``edge_index`` ``[2, E]``, context features
    graph-level attributes.

    >>> import numpy as np
    >>> from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet
    >>> gt = GraphTensor.from_pieces(
    ...     node_sets={"a": NodeSet.from_fields(sizes=np.array([2]))},
    ...     edge_sets={"r": EdgeSet.from_fields(sizes=np.array([1]),
    ...         adjacency=Adjacency.from_indices(("a", np.array([0])), ("a", np.array([1]))))})
    >>> graph_tensor_to_hetero_data(gt)["a", "r", "a"].edge_index.tolist()
    [[0], [1]]
    """
    from arraygnn.graph_tensor.pieces import GraphTensor
    from arraygnn.graph_tensor.ragged import Ragged

    if not isinstance(gt, GraphTensor):
        raise TypeError(f"expected a GraphTensor, got {type(gt).__name__}")
    if gt.rank != 0:
        raise ValueError(
            "graph_tensor_to_hetero_data: merge the batch first (merge_batch_to_components)"
        )
    out = HeteroData()
    for k, v in gt.context.features.items():
        if isinstance(v, Ragged):
            raise ValueError(f"context feature {k!r} is ragged; a HeteroData needs arrays")
        out[k] = v
    for t, ns in gt.node_sets.items():
        store = out.get_node_store(t)
        store.num_nodes = int(ns.total_size)
        for k, v in ns.features.items():
            if isinstance(v, Ragged):
                raise ValueError(
                    f"node set {t!r} feature {k!r} is ragged; a HeteroData needs arrays"
                )
            store[k] = v
    for name, es in gt.edge_sets.items():
        a = es.adjacency
        src, dst = a.source_name, a.target_name
        head, tail = f"{src}__", f"__{dst}"
        if name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail):
            et = (src, name[len(head) : -len(tail)], dst)  # "src__rel__dst", rel may hold "__"
        else:
            et = (src, name, dst)
        if et in out._edges:
            et = (src, name, dst)
        store = out.get_edge_store(*et)
        s_ids, t_ids = a.source, a.target
        if s_ids.dtype != t_ids.dtype:
            s_ids, t_ids = s_ids.astype(np.int64), t_ids.astype(np.int64)
        store.edge_index = get_namespace(s_ids).stack([s_ids, t_ids])
        for k, v in es.features.items():
            if isinstance(v, Ragged):
                raise ValueError(
                    f"edge set {name!r} feature {k!r} is ragged; a HeteroData needs arrays"
                )
            store[k] = v
    return out
