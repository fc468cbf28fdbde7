"""TF-GNN's remaining GraphTensor ops (``tfgnn.softmax``, ``node_degree``, ``mask_edges``,
``add_self_loops``, ``reorder_nodes`` / ``shuffle_nodes``, ``pool_neighbors_to_node``, ...)
on NumPy / CuPy arrays, with TF-GNN's names, arguments and results.

Paths: :func:`softmax` runs over all named sets together (items grouped by their node at
``per_tag`` or by their component): one ``ops.edge_softmax`` for one value per item, TF-GNN's
formula (``ops.scatter`` max, ``exp``, ``ops.scatter`` sum, ``ops.gather``) for wider items,
where whole-row scatters are faster on the CPU; :func:`pool_neighbors_to_node`
pools neighbour rows with one ``ops.spmm`` per reduction for ``"sum"`` / ``"mean"`` /
``"max"`` / ``"min"`` of float values (no per-edge ``[E, F]`` messages) and otherwise
broadcasts then pools with :mod:`arraygnn.graph_tensor.broadcast_pool`; the graph edits
(:func:`mask_edges`, :func:`add_self_loops`, :func:`reorder_nodes`) are index arithmetic
and row gathers, never per-item Python.

RULE: every op needs a scalar graph (rank 0); errors name the op and the set.
RULE: nothing passed in is modified; the results share unchanged arrays with the input.
RULE: randomness (:func:`shuffle_nodes`, :func:`shuffle_features_globally`) comes from
      ``numpy.random.default_rng(seed)`` on the host: TensorFlow's random streams cannot be
      matched, only the permutation properties (TF-GNN's own contract).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency, TARGET
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]))},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
...         source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))})
>>> node_degree(g, "e", TARGET).tolist()
[1, 0, 2]
>>> softmax(g, TARGET, edge_set_name="e", feature_value=np.array([0.0, 0.0, 3.0])).tolist()
[0.5, 0.5, 1.0]
>>> add_self_loops(g, "e").edge_sets["e"].adjacency.source.tolist()
[0, 1, 2, 0, 1, 2]
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.graph_tensor.broadcast_pool import (
    _check_graph,
    _check_tag,
    _edge_set,
    _incident,
    _node_set,
    _ops,
    _reduce_types,
    _take_rows,
    _value,
    _values_for,
    broadcast,
    grouped_items,
    pool,
)
from arraygnn.graph_tensor.pieces import (
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor.ragged import Ragged

__all__ = [
    "softmax",
    "softmax_edges_per_node",
    "node_degree",
    "gather_first_node",
    "combine_values",
    "mask_edges",
    "add_self_loops",
    "reorder_nodes",
    "shuffle_nodes",
    "shuffle_features_globally",
    "pool_neighbors_to_node",
    "pool_neighbors_to_node_feature",
    "get_registered_reduce_operation_names",
    "get_aux_type_prefix",
]

_AUX_PREFIX = re.compile(r"[_#!%.^~][a-zA-Z0-9_]*")  # TF-GNN's rule: ASCII only


def get_aux_type_prefix(set_name: str) -> str | None:
    """TF-GNN's ``get_aux_type_prefix``: ``"_readout"`` for ``"_readout/seed"``, ``None``
    for an ordinary set name (a leading ``_ # ! % . ^ ~`` and the ASCII letters, digits and
    underscores after it)."""
    match = _AUX_PREFIX.match(set_name)
    return match.group() if match else None


def get_registered_reduce_operation_names() -> list[str]:
    """The reduce types ``pool`` accepts, in TF-GNN's order."""
    return ["max", "max_no_inf", "mean", "min", "min_no_inf", "sum", "prod"]


# ---------------------------------------------------------------------------------------------
# rows of dense or ragged features
# ---------------------------------------------------------------------------------------------


def _mask_rows(value: Any, mask: Any) -> Any:
    """Rows of a dense array or a Ragged where ``mask`` (bool ``[rows]``) is True."""
    xp = get_namespace(mask)
    return _take_rows(value, xp.flatnonzero(mask))


# ---------------------------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------------------------


def softmax(
    graph: GraphTensor,
    per_tag: Any,
    *,
    edge_set_name: str | Sequence[str] | None = None,
    node_set_name: str | Sequence[str] | None = None,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """Softmax of item values over a many-to-one relation (``tfgnn.softmax``).

    ``per_tag`` ``SOURCE`` / ``TARGET``: over the edges sharing that node (``edge_set_name``,
    one name or a list of edge sets sharing the node set at ``per_tag``); ``CONTEXT``: over
    the nodes (``node_set_name``) or edges (``edge_set_name``) of each component. Values
    ``[items, ...]`` are normalised element-wise. A list of names (with a list of
    ``feature_value``) normalises over all named sets together and returns a list.
    """
    op = "softmax()"
    _check_graph(graph, op)
    if (edge_set_name is None) == (node_set_name is None):
        raise ValueError(f"{op}: pass exactly one of edge_set_name= or node_set_name=")
    many = edge_set_name if edge_set_name is not None else node_set_name
    listed = isinstance(many, (list, tuple))
    names = list(many) if listed else [many]
    if listed:
        values = _values_for(names, feature_value, op)
    else:
        if isinstance(feature_value, (list, tuple)):
            raise ValueError(f"{op}: a list of feature values needs a list of set names")
        values = [feature_value]
    kind, got, groups, num_groups = grouped_items(
        graph, per_tag, edge_set_name, node_set_name, names, values, feature_name, op
    )
    for n, v in zip(names, got):
        if v.dtype.kind != "f":
            raise TypeError(f"{op}: the value for {kind} {n!r} is {v.dtype}; softmax needs floats")
    xp = get_namespace(*got)
    value = xp.concatenate(got) if len(got) > 1 else got[0]
    if len(groups) == 1:  # the graph's own index array (ops may reuse its sort)
        group = groups[0]
    else:
        group = xp.concatenate([g.astype(np.int64, copy=False) for g in groups])
    ops = _ops()
    if int(np.prod(value.shape[1:], dtype=np.int64)) <= 1:
        items = xp.arange(group.shape[0], dtype=group.dtype)
        out = ops.edge_softmax((items, group), value, num_groups)
    else:  # TF-GNN's formula; whole-row scatters beat the column-wise edge_softmax here
        peak = ops.gather(ops.scatter(value, group, num_groups, reduce="max"), group)
        exp = xp.exp(value - peak)
        out = exp / ops.gather(ops.scatter(exp, group, num_groups, reduce="sum"), group)
    if not listed:
        return out
    splits = np.cumsum([int(v.shape[0]) for v in got])[:-1]
    return list(xp.split(out, [int(s) for s in splits]))


def softmax_edges_per_node(
    graph: GraphTensor,
    edge_set_name: str,
    node_tag: int,
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """:func:`softmax` of edge values over the edges sharing their ``node_tag`` node."""
    return softmax(
        graph,
        node_tag,
        edge_set_name=edge_set_name,
        feature_value=feature_value,
        feature_name=feature_name,
    )


# ---------------------------------------------------------------------------------------------
# degrees, first nodes, combining
# ---------------------------------------------------------------------------------------------


def node_degree(graph: GraphTensor, edge_set_name: str, node_tag: int) -> Any:
    """Edges of ``edge_set_name`` with each node at their ``node_tag`` end: ``[num_nodes]``,
    in the dtype of the adjacency indices (TF-GNN's ``indices_dtype``)."""
    op = "node_degree()"
    _check_graph(graph, op)
    _check_tag(node_tag, op)
    es = _edge_set(graph, edge_set_name, op)
    ns_name, index = _incident(es, edge_set_name, node_tag, op)
    n = graph.node_sets[ns_name].total_size
    xp = get_namespace(index)
    return xp.bincount(index, minlength=n).astype(index.dtype, copy=False)


def _first_nodes(graph: GraphTensor, node_set_name: str, op: str) -> Any:
    ns = _node_set(graph, node_set_name, op)
    sizes = ns.sizes
    xp = get_namespace(sizes)
    empty = xp.flatnonzero(sizes <= 0)
    if int(empty.size):
        raise ValueError(
            f"{op}: components {to_numpy(empty)[:10].tolist()} have no node in node set "
            f"{node_set_name!r}"
        )
    return xp.cumsum(sizes) - sizes


def gather_first_node(
    graph: GraphTensor,
    node_set_name: str,
    *,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """The value at the first node of ``node_set_name`` in each component:
    ``[num_components, ...]`` (dense or ragged). Every component needs a node there."""
    op = "gather_first_node()"
    _check_graph(graph, op)
    ns = _node_set(graph, node_set_name, op)
    if (feature_value is None) == (feature_name is None):
        raise ValueError(f"{op}: pass exactly one of feature_value= or feature_name=")
    value = _value_any(ns, f"node set {node_set_name!r}", feature_value, feature_name, op)
    return _take_rows(value, _first_nodes(graph, node_set_name, op))


def _value_any(piece: Any, where: str, feature_value: Any, feature_name: Any, op: str) -> Any:
    """Like ``broadcast_pool._value`` but a Ragged is welcome too."""
    value = piece.features.get(feature_name) if feature_name is not None else feature_value
    if isinstance(value, Ragged):
        if value.nrows != piece.total_size:
            raise ValueError(
                f"{op}: the ragged value for {where} has {value.nrows} rows, expected "
                f"{piece.total_size}"
            )
        return value
    return _value(piece, where, feature_value, feature_name, op)


def combine_values(inputs: Sequence[Any], combine_type: str) -> Any:
    """Combine a list of arrays: ``"sum"`` adds them (same shape and numeric dtype, as
    ``tf.math.add_n``: bools and strings raise ``TypeError``), ``"concat"`` joins them along
    the last axis (same dtype, same shape but the last axis)."""
    op = "combine_values()"
    if combine_type not in ("sum", "concat"):
        raise ValueError(f"{op}: unknown combine_type {combine_type!r}; known: ['sum', 'concat']")
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(f"{op}: inputs must be a non-empty list of arrays")
    for i, v in enumerate(inputs):
        if not is_array(v):
            raise TypeError(f"{op}: inputs[{i}] must be a NumPy/CuPy array, got {type(v).__name__}")
    first = inputs[0]
    for i, v in enumerate(inputs[1:], 1):
        same_shape = (
            v.shape == first.shape
            if combine_type == "sum"
            else (v.ndim == first.ndim and v.shape[:-1] == first.shape[:-1])
        )
        if v.dtype != first.dtype or not same_shape or v.ndim == 0:
            raise ValueError(
                f"{op} failed for combine_type={combine_type!r}: inputs[{i}] is {v.dtype} "
                f"{tuple(v.shape)}, inputs[0] {first.dtype} {tuple(first.shape)} (the last "
                'dimension may differ for "concat" but not for "sum")'
            )
    xp = get_namespace(*inputs)
    if combine_type == "concat":
        return xp.concatenate(list(inputs), axis=-1)
    if first.dtype.kind not in "iufc":  # tf.math.add_n: numbers only
        raise TypeError(
            f'{op}: combine_type="sum" adds numbers; the inputs are {first.dtype} (use '
            '"concat", or cast them)'
        )
    out = first.copy()
    for v in inputs[1:]:
        out += v
    return out


# ---------------------------------------------------------------------------------------------
# editing edge sets
# ---------------------------------------------------------------------------------------------


def mask_edges(
    graph: GraphTensor,
    edge_set_name: str,
    boolean_edge_mask: Any,
    masked_info_edge_set_name: str | None = None,
) -> GraphTensor:
    """Keep the edges of ``edge_set_name`` where ``boolean_edge_mask`` (bool ``[num_edges]``)
    is True; with ``masked_info_edge_set_name`` the removed edges (features included) go to a
    new edge set of that name. Node sets and the context are unchanged."""
    op = "mask_edges()"
    _check_graph(graph, op)
    es = _edge_set(graph, edge_set_name, op)
    if masked_info_edge_set_name and masked_info_edge_set_name in graph.edge_sets:
        raise ValueError(
            f"{op}: masked_info_edge_set_name {masked_info_edge_set_name!r} is already an "
            "edge set of the graph"
        )
    mask = boolean_edge_mask
    if isinstance(mask, (list, tuple)) and all(isinstance(m, (bool, np.bool_)) for m in mask):
        # a list of bools, as tf.constant takes it; on the graph's device
        mask = get_namespace(es.sizes).asarray(np.asarray(mask, dtype=np.bool_).reshape(-1))
    if not is_array(mask) or mask.dtype != np.bool_:
        raise TypeError(
            f"{op}: boolean_edge_mask for edge set {edge_set_name!r} must be a bool array, got "
            f"{getattr(mask, 'dtype', type(mask).__name__)}"
        )
    if mask.shape != (es.total_size,):
        raise ValueError(
            f"{op}: boolean_edge_mask has shape {tuple(mask.shape)}, edge set "
            f"{edge_set_name!r} has {es.total_size} edges"
        )
    xp = get_namespace(mask, es.sizes)
    ncomp = graph.num_components
    kept_sizes = xp.bincount(es.component_ids()[mask], minlength=ncomp).astype(es.sizes.dtype)

    def part(keep: Any, sizes: Any) -> EdgeSet:
        adj = es.adjacency  # every node tag (a HyperAdjacency's too), as TF-GNN
        return EdgeSet.from_fields(
            sizes=sizes,
            adjacency=adj._trusted_with(
                {t: (n, i[keep]) for t, (n, i) in adj.get_indices_dict().items()}
            ),
            features={k: _mask_rows(v, keep) for k, v in es.features.items()},
        )

    edges = dict(graph.edge_sets)
    edges[edge_set_name] = part(mask, kept_sizes)
    if masked_info_edge_set_name:
        edges[masked_info_edge_set_name] = part(~mask, es.sizes - kept_sizes)
    return GraphTensor._trusted(graph.context, dict(graph.node_sets), edges)


def _empty_rows(value: Any, n: int) -> Any:
    """``n`` rows of zeros / False / empty strings shaped like the rows of ``value``."""
    xp = get_namespace(value)
    if value.dtype.kind == "O":
        out = np.empty((n, *value.shape[1:]), dtype=object)
        out[...] = ""
        return out
    return xp.zeros((n, *value.shape[1:]), dtype=value.dtype)


def add_self_loops(graph: GraphTensor, edge_set_name: str) -> GraphTensor:
    """A loop at every node of a homogeneous edge set, even where one exists already.

    Within each component the component's edges come first, then its loops (TF-GNN's
    order). The loops' features are zeros (numbers), False (bools), empty strings, or
    empty rows (ragged features).
    """
    op = "add_self_loops()"
    _check_graph(graph, op)
    es = _edge_set(graph, edge_set_name, op)
    adj = es.adjacency
    if adj.source_name != adj.target_name:
        raise ValueError(
            f"{op}: edge set {edge_set_name!r} must connect a node set to itself; it connects "
            f"{adj.source_name!r} to {adj.target_name!r}"
        )
    ns = graph.node_sets[adj.source_name]
    xp = get_namespace(es.sizes, ns.sizes)
    e_sizes = es.sizes.astype(np.int64)
    n_sizes = ns.sizes.astype(np.int64)
    new_sizes = es.sizes + ns.sizes.astype(es.sizes.dtype)
    n_before = xp.cumsum(n_sizes) - n_sizes  # nodes of earlier components
    e_incl = xp.cumsum(e_sizes)  # edges up to and including each component
    edge_pos = xp.arange(es.total_size, dtype=np.int64) + n_before[es.component_ids()]
    node_pos = xp.arange(ns.total_size, dtype=np.int64) + e_incl[ns.component_ids()]
    total = es.total_size + ns.total_size
    loops = xp.arange(ns.total_size, dtype=adj.source.dtype)

    def placed(old: Any, new: Any) -> Any:
        out = get_namespace(old).empty((total, *old.shape[1:]), dtype=old.dtype)
        out[edge_pos] = old
        out[node_pos] = new
        return out

    features = {}
    for k, v in es.features.items():
        if isinstance(v, Ragged):
            lengths = xp.zeros(total, dtype=v.row_splits.dtype)
            lengths[edge_pos] = v.row_lengths()
            splits = xp.concatenate([xp.zeros(1, dtype=lengths.dtype), xp.cumsum(lengths)])
            features[k] = Ragged(v.values, splits.astype(v.row_splits.dtype), validate=False)
        else:
            features[k] = placed(v, _empty_rows(v, ns.total_size))
    edges = dict(graph.edge_sets)
    edges[edge_set_name] = EdgeSet.from_fields(
        sizes=new_sizes,
        adjacency=Adjacency.from_indices(
            source=(adj.source_name, placed(adj.source, loops)),
            target=(adj.target_name, placed(adj.target, loops)),
        ),
        features=features,
    )
    return GraphTensor._trusted(graph.context, dict(graph.node_sets), edges)


# ---------------------------------------------------------------------------------------------
# reordering and shuffling
# ---------------------------------------------------------------------------------------------


def reorder_nodes(
    graph: GraphTensor, node_indices: Mapping[str, Any], *, validate: bool = True
) -> GraphTensor:
    """Put node ``node_indices[set][i]`` at position ``i`` of each named node set: features
    are gathered and every incident adjacency renumbered; edges keep their order.

    Each index array is a permutation of ``range(num_nodes)`` (checked with ``validate``;
    its length always). As TF-GNN, it is not checked to keep nodes in their component.
    """
    op = "reorder_nodes()"
    _check_graph(graph, op)
    if not isinstance(node_indices, Mapping):
        raise TypeError(f"{op}: node_indices must be a dict {{node set: indices}}")
    unknown = sorted(set(node_indices) - set(graph.node_sets))
    if unknown:
        raise ValueError(f"{op}: node_indices names node sets that do not exist: {unknown}")
    nodes = dict(graph.node_sets)
    new_position = {}
    for name, index in node_indices.items():
        ns = graph.node_sets[name]
        n = ns.total_size
        if not is_array(index) or index.dtype not in (np.int32, np.int64) or index.ndim != 1:
            raise ValueError(
                f"{op}: indices for node set {name!r} must be a 1-D int32/int64 array, got "
                f"{getattr(index, 'dtype', type(index).__name__)} "
                f"{tuple(getattr(index, 'shape', ()))}"
            )
        if index.shape[0] != n:
            raise ValueError(
                f"{op}: indices for node set {name!r} must have shape [num_nodes] = [{n}], got "
                f"{tuple(index.shape)}"
            )
        xp = get_namespace(index)
        if validate and n:
            ok = int(to_numpy(index.min())) >= 0 and int(to_numpy(index.max())) < n
            if not ok or bool(xp.any(xp.bincount(index, minlength=n) != 1)):
                raise ValueError(
                    f"{op}: indices for node set {name!r} are not a permutation of range({n})"
                )
        # TF-GNN's new positions: unsorted_segment_sum(range(n), index) (the inverse of a
        # permutation; defined, not garbage, for other indices with validate=False)
        new_position[name] = _ops().scatter(xp.arange(n, dtype=index.dtype), index, n)
        nodes[name] = NodeSet.from_fields(
            sizes=ns.sizes, features={k: _take_rows(v, index) for k, v in ns.features.items()}
        )
    edges = {}
    for name, es in graph.edge_sets.items():
        adj = es.adjacency
        ends = adj.get_indices_dict()  # every node tag (a HyperAdjacency's too), as TF-GNN
        if not any(set_name in new_position for set_name, _ in ends.values()):
            edges[name] = es
            continue
        for tag, (set_name, idx) in ends.items():
            if set_name in new_position:
                idx = new_position[set_name][idx].astype(idx.dtype, copy=False)
            ends[tag] = (set_name, idx)
        edges[name] = EdgeSet.from_fields(
            sizes=es.sizes,
            adjacency=adj._trusted_with(ends),
            features=es.features,
        )
    return GraphTensor._trusted(graph.context, nodes, edges)


def _host_rng(seed: Any) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def shuffle_nodes(
    graph: GraphTensor,
    *,
    node_sets: Collection[str] | None = None,
    seed: Any = None,
) -> GraphTensor:
    """Randomly reorder the nodes of ``node_sets`` (default: every non-auxiliary node set)
    within each component; edges keep their order, their indices follow the nodes.

    ``seed``: an int or a ``numpy.random.Generator``; the permutation is drawn on the host.
    """
    op = "shuffle_nodes()"
    _check_graph(graph, op)
    if node_sets is None:
        names = [n for n in graph.node_sets if get_aux_type_prefix(n) is None]
    else:
        if isinstance(node_sets, str):
            raise TypeError(f"{op}: node_sets must be a collection of names, not a str")
        names = list(node_sets)
        unknown = sorted(set(names) - set(graph.node_sets))
        if unknown:
            raise ValueError(f"{op}: node_sets names node sets that do not exist: {unknown}")
    rng = _host_rng(seed)
    indices = {}
    for name in names:
        ns = graph.node_sets[name]
        comp = to_numpy(ns.component_ids())
        order = np.lexsort((rng.random(ns.total_size), comp))  # within each component
        indices[name] = get_namespace(ns.sizes).asarray(order.astype(ns.sizes.dtype))
    return reorder_nodes(graph, indices, validate=False)


def _shuffled(value: Any, rng: np.random.Generator) -> Any:
    """Rows of a dense feature permuted; a ragged feature keeps its row lengths and has its
    values permuted (TF-GNN's rule for ragged features)."""
    if isinstance(value, Ragged):
        perm = rng.permutation(len(value.values))
        xp = get_namespace(value.row_splits)
        return value.with_values(_take_rows(value.values, xp.asarray(perm)))
    xp = get_namespace(value)
    return _take_rows(value, xp.asarray(rng.permutation(value.shape[0])))


def shuffle_features_globally(graph: GraphTensor, *, seed: Any = None) -> GraphTensor:
    """Every feature of the context, of each node set and of each edge set (auxiliary ones
    included) permuted along its items, each with its own random permutation; the graph's
    structure is unchanged."""
    op = "shuffle_features_globally()"
    _check_graph(graph, op)
    rng = _host_rng(seed)

    def shuffled(piece: Any) -> dict[str, Any]:
        return {k: _shuffled(v, rng) for k, v in piece.features.items()}

    return graph.replace_features(
        context=shuffled(graph.context),
        node_sets={n: shuffled(p) for n, p in graph.node_sets.items()},
        edge_sets={n: shuffled(p) for n, p in graph.edge_sets.items()},
    )


# ---------------------------------------------------------------------------------------------
# pooling from neighbours
# ---------------------------------------------------------------------------------------------

_SPMM_REDUCE = ("sum", "mean", "max", "min")


def _incident_node_set(graph: GraphTensor, names: list[str], tag: Any, what: str, op: str) -> str:
    sets = sorted({_incident(_edge_set(graph, n, op), n, tag, op)[0] for n in names})
    if len(sets) != 1:
        raise ValueError(
            f"{op}: edge sets {names} must share the {what}={tag} node set, got {sets}"
        )
    return sets[0]


def pool_neighbors_to_node(
    graph: GraphTensor,
    edge_set_name: str | Sequence[str],
    to_tag: int,
    *,
    reduce_type: str,
    from_tag: int | None = None,
    feature_value: Any = None,
    feature_name: str | None = None,
) -> Any:
    """Pool the values of each node's neighbours (the ``from_tag`` ends, by default the
    other end) along one edge set or a list of them: :func:`broadcast` then :func:`pool`.

    Float ``"sum"`` / ``"mean"`` / ``"max"`` / ``"min"`` run as one SpMM over all named edge
    sets (no per-edge rows); other reductions broadcast then pool.
    """
    op = "pool_neighbors_to_node()"
    _check_graph(graph, op)
    _check_tag(to_tag, op)
    if from_tag is None:  # TF-GNN: reverse_tag(to_tag), only for SOURCE / TARGET
        if to_tag not in (SOURCE, TARGET):
            raise ValueError(
                f"{op}: from_tag defaults to reverse_tag(to_tag), which needs to_tag SOURCE "
                f"(0) or TARGET (1); pass from_tag= with to_tag={to_tag!r}"
            )
        from_tag = 1 - to_tag
    _check_tag(from_tag, op)
    listed = isinstance(edge_set_name, (list, tuple))
    names = list(edge_set_name) if listed else [edge_set_name]
    if not names:
        raise ValueError(f"{op}: the list of edge set names is empty")
    sender = _incident_node_set(graph, names, from_tag, "from_tag", op)
    receiver = _incident_node_set(graph, names, to_tag, "to_tag", op)
    value = _value(
        graph.node_sets[sender], f"node set {sender!r}", feature_value, feature_name, op, True
    )
    kinds = _reduce_types(reduce_type, value, op)  # checked here, naming this op
    # float16 stays in pool's dtype rule; a Ragged is broadcast, then pooled (one edge set)
    exact = value.dtype in (np.float32, np.float64) and not isinstance(value, Ragged)
    if exact and all(k in _SPMM_REDUCE for k in kinds):
        xp = get_namespace(value)
        adjs = [graph.edge_sets[n].adjacency for n in names]
        if len(adjs) == 1:  # the graph's own index arrays
            src, dst = adjs[0][from_tag], adjs[0][to_tag]
        else:
            src = xp.concatenate([a[from_tag].astype(np.int64, copy=False) for a in adjs])
            dst = xp.concatenate([a[to_tag].astype(np.int64, copy=False) for a in adjs])
        n_dst = graph.node_sets[receiver].total_size
        out = [_ops().spmm((src, dst), value, reduce=k, num_dst_nodes=n_dst) for k in kinds]
        return out[0] if len(out) == 1 else xp.concatenate(out, axis=-1)
    many = names if listed else names[0]
    edge_value = broadcast(
        graph,
        from_tag,
        edge_set_name=many,
        feature_value=[value] * len(names) if listed else value,
    )
    return pool(
        graph, to_tag, edge_set_name=many, reduce_type=reduce_type, feature_value=edge_value
    )


def pool_neighbors_to_node_feature(
    graph: GraphTensor,
    edge_set_name: str | Sequence[str],
    to_tag: int,
    *,
    reduce_type: str,
    feature_name: str,
    to_feature_name: str | None = None,
    from_tag: int | None = None,
) -> GraphTensor:
    """:func:`pool_neighbors_to_node` of ``feature_name``, stored as ``to_feature_name``
    (``None``: ``feature_name``, as TF-GNN; ``""`` is a name) on the receiving node set;
    returns the new graph."""
    op = "pool_neighbors_to_node_feature()"
    value = pool_neighbors_to_node(
        graph,
        edge_set_name,
        to_tag,
        reduce_type=reduce_type,
        from_tag=from_tag,
        feature_name=feature_name,
    )
    names = list(edge_set_name) if isinstance(edge_set_name, (list, tuple)) else [edge_set_name]
    receiver = _incident_node_set(graph, names, to_tag, "to_tag", op)
    features = graph.node_sets[receiver].get_features_dict()
    features[feature_name if to_feature_name is None else to_feature_name] = value
    return graph.replace_features(node_sets={receiver: features})
