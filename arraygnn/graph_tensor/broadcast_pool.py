"""Broadcast and pool across a GraphTensor, with TF-GNN's names and tags.

*Broadcast* copies a value per node (or per component) onto each incident edge (or each node
/ edge of the component). *Pool* aggregates the values of a node's incident edges (or of a
component's nodes / edges) into one value. All arithmetic runs in :mod:`arraygnn.ops`
(``gather``, ``scatter``, ``segment``), so NumPy inputs use the Numba CPU kernels and CuPy
inputs the CUDA kernels.

Reductions (``reduce_type``): ``"sum"``, ``"mean"``, ``"max"``, ``"min"``, ``"prod"``,
``"max_no_inf"``, ``"min_no_inf"``; several joined with ``"|"`` (``"sum|max"``) are computed
each and concatenated along the last axis (features need at least one feature axis).

RULE: a node with no incident edges, a component with no items, and every node of an empty
      edge set get 0 from ``"sum"``, ``"mean"``, ``"max_no_inf"`` / ``"min_no_inf"`` (the
      seed's rule: "They all produce 0 in case of zero edges") and 1 from ``"prod"`` (the
      empty product, as TF-GNN). Unlike TF-GNN, plain ``"max"`` / ``"min"`` also give 0
      there, not the dtype's lowest / highest finite value.
RULE: ``"max_no_inf"`` / ``"min_no_inf"`` turn a result at or beyond the dtype's lowest
      (max) / highest (min) value into 0, as TF-GNN's: ``-inf`` from a max, ``+inf`` from a
      min; a real ``+inf`` maximum is kept.
RULE: ``"mean"`` of integer values is the exact mean as float64 (TF-GNN), not the floor
      division of ``arraygnn.ops``.
RULE: the graph must be scalar (rank 0); merge a batch first.
RULE: a ``Ragged`` value (one ragged dimension) is broadcast row by row, and pooled from one
      set as TF's ragged segment ops: an output row is as long as the longest row pooled
      into it (empty if none), each position reduces the values there. Pooling from
      several sets takes dense values only (as TF-GNN).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, SOURCE, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                                         features={"x": np.array([[1.0], [2.0], [4.0]])})},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1])), target=("n", np.array([2, 2]))))})
>>> on_edges = broadcast_node_to_edges(g, "e", SOURCE, feature_name="x")
>>> pool_edges_to_node(g, "e", TARGET, "sum|max", feature_value=on_edges).tolist()
[[0.0, 0.0], [0.0, 0.0], [3.0, 2.0]]
>>> from arraygnn.graph_tensor import Ragged
>>> words = Ragged.from_list([[1.0, 2.0], [10.0]])
>>> pool_edges_to_node(g, "e", TARGET, "sum", feature_value=words).to_list()
[[], [], [11.0, 2.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.graph_tensor.pieces import CONTEXT, GraphTensor
from arraygnn.graph_tensor.ragged import Ragged

__all__ = [
    "REDUCE_TYPES",
    "broadcast_node_to_edges",
    "broadcast_context_to_nodes",
    "broadcast_context_to_edges",
    "pool_edges_to_node",
    "pool_nodes_to_context",
    "pool_edges_to_context",
    "broadcast",
    "pool",
]

REDUCE_TYPES = ("sum", "mean", "max", "min", "prod", "max_no_inf", "min_no_inf")
_OPS_REDUCE = {
    "sum": "sum",
    "mean": "mean",
    "max": "max",
    "min": "min",
    "prod": "prod",
    "max_no_inf": "max",
    "min_no_inf": "min",
}


def _ops() -> Any:
    from arraygnn import ops

    return ops


def _check_graph(graph: Any, op: str) -> None:
    if not isinstance(graph, GraphTensor):
        raise TypeError(f"{op}: graph must be a GraphTensor, got {type(graph).__name__}")
    if graph.rank != 0:
        raise ValueError(
            f"{op}: needs a scalar GraphTensor (rank 0), got rank {graph.rank}; "
            "call graph.merge_batch_to_components() first"
        )


def _edge_set(graph: GraphTensor, name: Any, op: str) -> Any:
    if not isinstance(name, str):
        raise TypeError(f"{op}: edge_set_name must be a str, got {name!r}")
    if name not in graph.edge_sets:
        raise ValueError(f"{op}: no edge set {name!r} (edge sets: {sorted(graph.edge_sets)})")
    return graph.edge_sets[name]


def _node_set(graph: GraphTensor, name: Any, op: str) -> Any:
    if not isinstance(name, str):
        raise TypeError(f"{op}: node_set_name must be a str, got {name!r}")
    if name not in graph.node_sets:
        raise ValueError(f"{op}: no node set {name!r} (node sets: {sorted(graph.node_sets)})")
    return graph.node_sets[name]


def _check_tag(tag: Any, op: str) -> None:
    """A node tag is an int >= 0 (TF-GNN's ``IncidentNodeTag``): ``SOURCE``, ``TARGET`` or,
    for a ``HyperAdjacency``, any other tag it has (the edge set's adjacency says which)."""
    if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)) or tag < 0:
        raise ValueError(
            f"{op}: node tag must be SOURCE (0) or TARGET (1) (or another int >= 0 of a "
            f"HyperAdjacency), got {tag!r}"
        )


def _incident(es: Any, edge_set_name: str, tag: Any, op: str) -> tuple[str, Any]:
    """``(node set name, indices)`` of ``edge_set_name`` at node tag ``tag``; a tag its
    adjacency lacks is a ``ValueError`` naming ``op``, the edge set and the tag."""
    ends = es.adjacency.get_indices_dict()
    if tag not in ends:
        raise ValueError(
            f"{op}: edge set {edge_set_name!r} has no node tag {tag!r} (tags: {sorted(ends)}); "
            "a node tag must be SOURCE (0) or TARGET (1), or another tag of a HyperAdjacency"
        )
    return ends[tag]


def _value(
    piece: Any, where: str, feature_value: Any, feature_name: Any, op: str, ragged_ok: bool = False
) -> Any:
    """The value to move: exactly one of ``feature_value`` / ``feature_name``; a ``Ragged``
    only with ``ragged_ok`` (broadcast, and pooling from one set, as TF-GNN)."""
    if (feature_value is None) == (feature_name is None):
        raise ValueError(f"{op}: pass exactly one of feature_value= or feature_name=")
    if feature_name is not None:
        if feature_name not in piece.features:
            raise ValueError(
                f"{op}: {where} has no feature {feature_name!r} "
                f"(features: {sorted(piece.features)})"
            )
        value = piece.features[feature_name]
        label = f"feature {feature_name!r} of {where}"
    else:
        value = feature_value
        label = f"feature_value for {where}"
    if isinstance(value, Ragged):
        if not ragged_ok:
            raise TypeError(
                f"{op}: {label} is ragged; only broadcast and pooling from one set take ragged "
                "values (as TF-GNN), this needs dense arrays"
            )
        if value.nrows != piece.total_size:
            raise ValueError(
                f"{op}: {label} has {value.nrows} (ragged) rows, expected {piece.total_size}"
            )
        return value
    if not is_array(value):
        raise TypeError(f"{op}: {label} must be a NumPy/CuPy array, got {type(value).__name__}")
    if value.ndim == 0 or value.shape[0] != piece.total_size:
        raise ValueError(
            f"{op}: {label} has shape {tuple(value.shape)}, expected {piece.total_size} items "
            "in its first dimension"
        )
    return value


def _gather(value: Any, index: Any) -> Any:
    """Rows ``value[index]``: numbers through ``ops.gather``; strings / bools / objects by
    plain indexing (a copy, no arithmetic)."""
    if value.dtype.kind in "iuf":
        return _ops().gather(value, index)
    return value[index]


def _take_rows(value: Any, index: Any) -> Any:
    """Rows ``value[index]`` of a dense array or a ``Ragged`` (rows keep their lengths)."""
    if not isinstance(value, Ragged):
        return _gather(value, index)
    xp = get_namespace(value.row_splits)
    splits = value.row_splits
    lengths = (splits[1:] - splits[:-1])[index]
    starts = splits[:-1][index]
    new_splits = xp.concatenate([xp.zeros(1, dtype=splits.dtype), xp.cumsum(lengths)]).astype(
        splits.dtype, copy=False
    )
    total = int(to_numpy(new_splits[-1]))
    positions = xp.arange(total, dtype=splits.dtype)
    rows = xp.searchsorted(new_splits[1:], positions, side="right")
    flat = positions - new_splits[rows] + starts[rows]
    return Ragged(_take_rows(value.values, flat), new_splits, validate=False)


def _reduce_types(reduce_type: Any, value: Any, op: str) -> list[str]:
    if not isinstance(reduce_type, str):
        raise TypeError(f"{op}: reduce_type must be a str like 'sum' or 'sum|max'")
    names = reduce_type.split("|")
    for n in names:
        if n not in _OPS_REDUCE:
            raise ValueError(
                f"{op}: unknown reduce_type {n!r} in {reduce_type!r}; known: {list(REDUCE_TYPES)}"
            )
    if value.dtype.kind not in "iuf":
        raise TypeError(f"{op}: cannot pool values of dtype {value.dtype} (need int or float)")
    if len(names) > 1 and value.ndim < 2:
        raise ValueError(
            f"{op}: several reductions {reduce_type!r} are concatenated along the last axis, "
            f"which needs a feature axis; got shape {tuple(value.shape)} "
            "(use value[:, None])"
        )
    return names


def _pooled(value: Any, names: list[str], reduce_one: Any, counts: Any) -> Any:
    """Each reduction of ``names`` by ``reduce_one(value, ops_reduce)``, with TF-GNN's
    finishing (see the module RULEs), concatenated along the last axis when several.
    ``counts()`` gives the number of items per output row (for ``prod``)."""
    out = []
    for n in names:
        v = value
        if n == "mean" and v.dtype.kind in "iu":
            v = v.astype(np.float64)  # TF-GNN: the exact mean, as float64
        r = reduce_one(v, _OPS_REDUCE[n])
        xp = get_namespace(r)
        if n == "prod":  # the empty product is 1 (TF-GNN); ops give 0 for empty rows
            empty = (counts() == 0).reshape((-1,) + (1,) * (r.ndim - 1))
            r = xp.where(empty, xp.ones((), dtype=r.dtype), r)
        elif n.endswith("_no_inf"):
            info = np.finfo(r.dtype) if r.dtype.kind == "f" else np.iinfo(r.dtype)
            # TF-GNN drops only the empty-set sentinel: a max at or below the dtype's lowest
            # value (-inf included), a min at or above its highest; a real +inf max stays
            bad = r <= info.min if n == "max_no_inf" else r >= info.max
            r = xp.where(bad, xp.zeros((), dtype=r.dtype), r)
        out.append(r)
    if len(out) == 1:
        return out[0]
    dtype = np.result_type(*[r.dtype for r in out])
    return get_namespace(out[0]).concatenate([r.astype(dtype, copy=False) for r in out], axis=-1)


def _pooled_ragged(value: Ragged, names: list[str], index: Any, size: int, op: str) -> Ragged:
    """Pooling of ragged rows, as TF's ragged ``unsorted_segment_*`` (TF-GNN's pool of one
    set): output row ``i`` is as long as the longest row pooled into it (empty if none), and
    each of its positions reduces the values at that position of those rows; ``"mean"``
    divides by their number there (by the number of rows with ``"sum|mean"``, as TF-GNN).
    Several reductions are concatenated along the last axis: the feature axis of the values,
    or the ragged axis itself (each row then holds the results one after the other)."""
    if isinstance(value.values, Ragged):
        raise TypeError(f"{op}: pooling a value with two ragged dimensions is not supported")
    from arraygnn.graph_tensor.pieces import _row_ids

    ops = _ops()
    splits, flat = value.row_splits, value.values
    xp = get_namespace(flat, splits)
    index = index.astype(np.int64, copy=False)
    lengths = (splits[1:] - splits[:-1]).astype(np.int64, copy=False)
    out_len = ops.scatter(lengths, index, size, reduce="max")  # 0 for an empty row
    out_splits = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(out_len)])
    total = int(to_numpy(out_splits[-1]))
    rows = _row_ids(splits, int(flat.shape[0]))
    target = out_splits[index[rows]] + (xp.arange(int(flat.shape[0])) - splits[rows])
    out = {}
    for n in dict.fromkeys(names):
        out[n] = _pooled(
            flat,
            [n],
            lambda v, r: ops.scatter(v, target, total, reduce=r),
            lambda: xp.bincount(target, minlength=total),
        )
    out_rows = _row_ids(out_splits, total)
    if "mean" in out and "sum" in out:  # TF-GNN: sum / number of rows, per output row
        count = ops.scatter(xp.ones(int(index.shape[0])), index, size, reduce="sum")[out_rows]
        count = count.reshape((-1,) + (1,) * (flat.ndim - 1))
        summed = out["sum"].astype(out["mean"].dtype, copy=False)
        out["mean"] = (summed / xp.maximum(count, 1)).astype(out["mean"].dtype, copy=False)
    results = [out[n] for n in names]
    if len(results) == 1:
        return Ragged(results[0], out_splits, validate=False)
    dtype = np.result_type(*[r.dtype for r in results])
    results = [r.astype(dtype, copy=False) for r in results]
    if flat.ndim > 1:
        return Ragged(xp.concatenate(results, axis=-1), out_splits, validate=False)
    k = len(results)  # one value per position: each row holds the k results in turn
    joined = xp.empty(total * k, dtype=dtype)
    at = k * out_splits[out_rows] + (xp.arange(total) - out_splits[out_rows])
    for i, r in enumerate(results):
        joined[at + i * out_len[out_rows]] = r
    return Ragged(joined, k * out_splits, validate=False)


# ---------------------------------------------------------------------------------------------
# node <-> edge
# ---------------------------------------------------------------------------------------------


def broadcast_node_to_edges(
    graph: GraphTensor,
    edge_set_name: str,
    node_tag: int,
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each edge, the value of its ``node_tag`` (``SOURCE`` / ``TARGET``) node.

    Returns ``[num_edges, ...]``.
    """
    op = "broadcast_node_to_edges()"
    _check_graph(graph, op)
    _check_tag(node_tag, op)
    es = _edge_set(graph, edge_set_name, op)
    ns_name, index = _incident(es, edge_set_name, node_tag, op)
    value = _value(
        graph.node_sets[ns_name], f"node set {ns_name!r}", feature_value, feature_name, op, True
    )
    return _take_rows(value, index)


def pool_edges_to_node(
    graph: GraphTensor,
    edge_set_name: str,
    node_tag: int,
    reduce_type: str = "sum",
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each node of the ``node_tag`` end, reduce the values of its incident edges.

    Returns ``[num_nodes, ...]`` (the last axis times the number of ``|``-joined reductions).
    """
    op = "pool_edges_to_node()"
    _check_graph(graph, op)
    _check_tag(node_tag, op)
    es = _edge_set(graph, edge_set_name, op)
    ns_name, index = _incident(es, edge_set_name, node_tag, op)
    value = _value(es, f"edge set {edge_set_name!r}", feature_value, feature_name, op, True)
    names = _reduce_types(reduce_type, value, op)
    num_nodes = graph.node_sets[ns_name].total_size
    if isinstance(value, Ragged):
        return _pooled_ragged(value, names, index, num_nodes, op)
    return _pooled(
        value,
        names,
        lambda v, r: _ops().scatter(v, index, num_nodes, reduce=r),
        lambda: get_namespace(index).bincount(index, minlength=num_nodes),
    )


# ---------------------------------------------------------------------------------------------
# context <-> nodes / edges
# ---------------------------------------------------------------------------------------------


def _broadcast_from_context(
    graph: GraphTensor, piece: Any, feature_value: Any, feature_name: Any, op: str
) -> Any:
    value = _value(graph.context, "the context", feature_value, feature_name, op, True)
    return _take_rows(value, piece.component_ids())


def _pool_to_context(
    graph: GraphTensor,
    piece: Any,
    where: str,
    reduce_type: str,
    feature_value: Any,
    feature_name: Any,
    op: str,
) -> Any:
    value = _value(piece, where, feature_value, feature_name, op, True)
    names = _reduce_types(reduce_type, value, op)
    if isinstance(value, Ragged):
        return _pooled_ragged(value, names, piece.component_ids(), graph.num_components, op)
    ptr = piece.row_splits
    return _pooled(
        value,
        names,
        lambda v, r: _ops().segment(v, ptr, reduce=r),
        lambda: ptr[1:] - ptr[:-1],
    )


def broadcast_context_to_nodes(
    graph: GraphTensor,
    node_set_name: str,
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each node, the context value of its component. Returns ``[num_nodes, ...]``."""
    op = "broadcast_context_to_nodes()"
    _check_graph(graph, op)
    ns = _node_set(graph, node_set_name, op)
    return _broadcast_from_context(graph, ns, feature_value, feature_name, op)


def broadcast_context_to_edges(
    graph: GraphTensor,
    edge_set_name: str,
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each edge, the context value of its component. Returns ``[num_edges, ...]``."""
    op = "broadcast_context_to_edges()"
    _check_graph(graph, op)
    es = _edge_set(graph, edge_set_name, op)
    return _broadcast_from_context(graph, es, feature_value, feature_name, op)


def pool_nodes_to_context(
    graph: GraphTensor,
    node_set_name: str,
    reduce_type: str = "sum",
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each component, reduce the values of its nodes. Returns ``[num_components, ...]``."""
    op = "pool_nodes_to_context()"
    _check_graph(graph, op)
    ns = _node_set(graph, node_set_name, op)
    return _pool_to_context(
        graph, ns, f"node set {node_set_name!r}", reduce_type, feature_value, feature_name, op
    )


def pool_edges_to_context(
    graph: GraphTensor,
    edge_set_name: str,
    reduce_type: str = "sum",
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """For each component, reduce the values of its edges. Returns ``[num_components, ...]``."""
    op = "pool_edges_to_context()"
    _check_graph(graph, op)
    es = _edge_set(graph, edge_set_name, op)
    return _pool_to_context(
        graph, es, f"edge set {edge_set_name!r}", reduce_type, feature_value, feature_name, op
    )


# ---------------------------------------------------------------------------------------------
# generic forms
# ---------------------------------------------------------------------------------------------


def _context_target(edge_set_name: Any, node_set_name: Any, op: str) -> None:
    if (edge_set_name is None) == (node_set_name is None):
        raise ValueError(f"{op}: with CONTEXT pass exactly one of edge_set_name= or node_set_name=")


def broadcast(
    graph: GraphTensor,
    from_tag: Any,
    *,
    edge_set_name: str | None = None,
    node_set_name: str | None = None,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """Broadcast from ``SOURCE`` / ``TARGET`` nodes onto an edge set, or from ``CONTEXT`` onto
    a node set or an edge set.

    >>> import numpy as np
    >>> from arraygnn.graph_tensor import GraphTensor, NodeSet, Context
    >>> g = GraphTensor.from_pieces(context=Context.from_fields(features={"c": np.array([5, 7])}),
    ...     node_sets={"n": NodeSet.from_fields(sizes=np.array([1, 2]))})
    >>> broadcast(g, CONTEXT, node_set_name="n", feature_name="c").tolist()
    [5, 7, 7]
    """
    op = "broadcast()"
    many = edge_set_name if edge_set_name is not None else node_set_name
    if isinstance(many, (list, tuple)):  # TF-GNN: one result per named set
        if isinstance(feature_value, (list, tuple)):
            values = _values_for(many, feature_value, op)  # one value per set (ours)
        else:
            # TF-GNN's form: ONE value of the side the sets share (the context, or the
            # common node set at from_tag), broadcast onto each named set
            values = _values_for(many, None, op)
            values = [feature_value] * len(values)
        if from_tag != CONTEXT and edge_set_name is not None:
            _check_tag(from_tag, op)
            ends = {}
            for name in many:
                ends[name] = _incident(_edge_set(graph, name, op), name, from_tag, op)[0]
            if len(set(ends.values())) > 1:
                raise ValueError(
                    f"{op}: edge sets {list(many)} must share one endpoint at tag {from_tag}, "
                    f"got node sets {ends}"
                )
        return [
            broadcast(
                graph,
                from_tag,
                edge_set_name=name if edge_set_name is not None else None,
                node_set_name=name if node_set_name is not None else None,
                feature_value=value,
                feature_name=feature_name,
            )
            for name, value in zip(many, values)
        ]
    if from_tag == CONTEXT:
        _context_target(edge_set_name, node_set_name, op)
        if node_set_name is not None:
            return broadcast_context_to_nodes(
                graph, node_set_name, feature_value=feature_value, feature_name=feature_name
            )
        return broadcast_context_to_edges(
            graph, edge_set_name, feature_value=feature_value, feature_name=feature_name
        )
    _check_tag(from_tag, op)
    if node_set_name is not None or edge_set_name is None:
        raise ValueError(f"{op}: from SOURCE/TARGET pass edge_set_name= (and no node_set_name=)")
    return broadcast_node_to_edges(
        graph, edge_set_name, from_tag, feature_value=feature_value, feature_name=feature_name
    )


def pool(
    graph: GraphTensor,
    to_tag: Any,
    *,
    edge_set_name: str | None = None,
    node_set_name: str | None = None,
    reduce_type: str = "sum",
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """Pool an edge set to its ``SOURCE`` / ``TARGET`` nodes, or a node set or an edge set to
    the ``CONTEXT``.

    ``edge_set_name`` (``node_set_name`` to the context) may be a list of names, with
    ``feature_value`` a list of the same length (or one ``feature_name`` for all): pooled as
    if the sets were one concatenated set (TF-GNN's ``pool``), e.g. ``"mean"`` weighs every
    edge of every set equally. Edge sets must share the node set at ``to_tag``.
    """
    op = "pool()"
    many = edge_set_name if edge_set_name is not None else node_set_name
    if isinstance(many, (list, tuple)):
        return _pool_many(
            graph,
            to_tag,
            edge_set_name,
            node_set_name,
            many,
            reduce_type,
            feature_value,
            feature_name,
            op,
        )
    if isinstance(feature_value, (list, tuple)):
        raise ValueError(f"{op}: a list of feature values needs a list of set names")
    if to_tag == CONTEXT:
        _context_target(edge_set_name, node_set_name, op)
        if node_set_name is not None:
            return pool_nodes_to_context(
                graph,
                node_set_name,
                reduce_type,
                feature_value=feature_value,
                feature_name=feature_name,
            )
        return pool_edges_to_context(
            graph,
            edge_set_name,
            reduce_type,
            feature_value=feature_value,
            feature_name=feature_name,
        )
    _check_tag(to_tag, op)
    if node_set_name is not None or edge_set_name is None:
        raise ValueError(f"{op}: to SOURCE/TARGET pass edge_set_name= (and no node_set_name=)")
    return pool_edges_to_node(
        graph,
        edge_set_name,
        to_tag,
        reduce_type,
        feature_value=feature_value,
        feature_name=feature_name,
    )


def _values_for(names: Any, feature_value: Any, op: str) -> list[Any]:
    """``feature_value`` per set of a list of set names (``None`` each with a feature name)."""
    if not names:
        raise ValueError(f"{op}: the list of set names is empty")
    if feature_value is None:
        return [None] * len(names)
    if not isinstance(feature_value, (list, tuple)):
        raise ValueError(
            f"{op}: with a list of set names, feature_value must be a list of the same length"
        )
    if len(feature_value) != len(names):
        raise ValueError(f"{op}: {len(names)} set names but {len(feature_value)} feature values")
    return list(feature_value)


def grouped_items(
    graph: GraphTensor,
    tag: Any,
    edge_set_name: Any,
    node_set_name: Any,
    names: Sequence[str],
    values: Sequence[Any],
    feature_name: Any,
    op: str,
) -> tuple[str, list[Any], list[Any], int]:
    """The items of the sets ``names`` grouped at ``tag`` (``CONTEXT``: by component, of
    the node or the edge sets; ``SOURCE`` / ``TARGET``: by that end of the edge sets, which
    must share one node set): ``(kind, values per set, group ids per set, number of
    groups)``; the values must agree in dtype and per-item shape."""
    if tag == CONTEXT:
        kind = "edge set" if edge_set_name is not None else "node set"
        pieces = [
            _edge_set(graph, n, op) if edge_set_name is not None else _node_set(graph, n, op)
            for n in names
        ]
        index = [p.component_ids() for p in pieces]
        size = graph.num_components
    else:
        _check_tag(tag, op)
        if node_set_name is not None:
            raise ValueError(f"{op}: at SOURCE/TARGET pass edge_set_name= (and no node_set_name=)")
        kind = "edge set"
        pieces = [_edge_set(graph, n, op) for n in names]
        incident = [_incident(p, n, tag, op) for p, n in zip(pieces, names)]
        ends = {ns for ns, _ in incident}
        if len(ends) > 1:
            raise ValueError(
                f"{op}: edge sets {list(names)} end in different node sets {sorted(ends)} at "
                f"tag {tag}; they must share one"
            )
        index = [i for _, i in incident]
        size = graph.node_sets[ends.pop()].total_size
    got = [
        _value(p, f"{kind} {n!r}", v, feature_name, op) for p, n, v in zip(pieces, names, values)
    ]
    for n, v in zip(names[1:], got[1:]):
        if v.shape[1:] != got[0].shape[1:] or v.dtype != got[0].dtype:
            raise ValueError(
                f"{op}: the value for {kind} {n!r} is {v.dtype} {tuple(v.shape[1:])} per item, "
                f"for {names[0]!r} {got[0].dtype} {tuple(got[0].shape[1:])}; they are taken "
                "together and must agree"
            )
    return kind, got, index, size


def _pool_many(
    graph: GraphTensor,
    to_tag: Any,
    edge_set_name: Any,
    node_set_name: Any,
    names: Any,
    reduce_type: str,
    feature_value: Any,
    feature_name: Any,
    op: str,
) -> Any:
    """``pool`` from several sets: their items concatenated, then one reduction."""
    _check_graph(graph, op)
    values = _values_for(names, feature_value, op)
    if to_tag == CONTEXT:
        _context_target(edge_set_name, node_set_name, op)
    _, got, index, size = grouped_items(
        graph, to_tag, edge_set_name, node_set_name, names, values, feature_name, op
    )
    xp = get_namespace(*got)
    value = xp.concatenate(got)
    idx = xp.concatenate([i.astype(np.int64) for i in index])
    kinds = _reduce_types(reduce_type, value, op)
    return _pooled(
        value,
        kinds,
        lambda v, r: _ops().scatter(v, idx, size, reduce=r),
        lambda: xp.bincount(idx, minlength=size),
    )
