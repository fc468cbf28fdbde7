"""Batching GraphTensors, both ways the seed describes, and splitting them back.

- :func:`merge_graphs_to_components`: a list of scalar graphs -> ONE scalar graph whose
  components are the inputs' components in order. Features are concatenated, sizes are
  concatenated (not added), adjacency indices are shifted by the nodes before them in their
  node set.
- :func:`batch_graph_tensors`: a list of scalar graphs -> a batched graph (rank 1) whose every
  field is a :class:`Ragged` over the batch (TF-GNN's ``dataset.batch()``); its
  :func:`merge_batch_to_components` gives exactly the merged graph above.
- :func:`split_components` / :func:`unbatch_graph_tensor`: the way back, exact.

RULE: all graphs must have the same spec (same sets, features, dtypes, per-item shapes,
      adjacency names); a graph lacking a set is an error naming the graph and the set, never
      a silent drop. Give absent sets to a graph as empty sets (sizes 0).
RULE: the work is vectorised per field: one concatenate per feature, one repeat-and-add per
      adjacency; the only per-graph Python work is collecting the arrays and their sizes.

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency
>>> def g(n):
...     return GraphTensor.from_pieces(
...         node_sets={"v": NodeSet.from_fields(sizes=np.array([n]))},
...         edge_sets={"e": EdgeSet.from_fields(sizes=np.array([1]), adjacency=
...             Adjacency.from_indices(source=("v", np.array([0])),
...                                    target=("v", np.array([n - 1]))))})
>>> m = merge_graphs_to_components([g(4), g(5), g(6)])
>>> m.node_sets["v"].sizes.tolist(), m.edge_sets["e"].adjacency.target.tolist()
([4, 5, 6], [3, 8, 14])
>>> [h.node_sets["v"].total_size for h in split_components(m)]
[4, 5, 6]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, to_numpy
from arraygnn.graph_tensor.pieces import (
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    _row_ids,
    _splits_from_lengths,
)
from arraygnn.graph_tensor.ragged import Ragged

__all__ = [
    "merge_graphs_to_components",
    "split_components",
    "batch_graph_tensors",
    "unbatch_graph_tensor",
    "merge_batch_to_components",
]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _concat(parts: list[Any]) -> Any:
    """Concatenate arrays, or Ragged values level by level (row lengths concatenated)."""
    first = parts[0]
    if isinstance(first, Ragged):
        values = _concat([p.values for p in parts])
        lengths = _concat([p.row_lengths() for p in parts])
        return Ragged(values, _splits_from_lengths(lengths), validate=False)
    if len(parts) == 1:
        return first
    return get_namespace(first).concatenate(parts, axis=0)


def _features_signature(features: Any) -> tuple:
    """(name, dtype char, per-item shape) per feature; ``dtype.char`` ignores string length."""
    return tuple(
        [
            (k, v.dtype.char, v.shape[1:])
            if not isinstance(v, Ragged)
            else (k, "ragged", _features_signature({"": v.values}))
            for k, v in features.items()
        ]
    )


def _signature(g: GraphTensor) -> tuple:
    """Cheap structural key: equal keys imply equal specs (the converse may fail, e.g. when
    sets are listed in another order; then the full specs are compared). Reads the pieces'
    slots directly: this runs once per graph in every merge."""
    return (
        _features_signature(g._context._features),
        tuple([(n, _features_signature(ns._features)) for n, ns in g._node_sets.items()]),
        tuple(
            [
                (
                    n,
                    type(es._adjacency),  # a two-tag HyperAdjacency is no plain Adjacency
                    es._adjacency._source_name,  # a HyperAdjacency: ((tag, name), ...)
                    es._adjacency._target_name,
                    _features_signature(es._features),
                )
                for n, es in g._edge_sets.items()
            ]
        ),
    )


def _check_same_spec(graphs: Sequence[GraphTensor], op: str) -> None:
    if len(graphs) == 0:
        raise ValueError(f"{op}: needs at least one graph")
    for i, g in enumerate(graphs):
        if not isinstance(g, GraphTensor):
            raise TypeError(f"{op}: graphs[{i}] is a {type(g).__name__}, not a GraphTensor")
        if g.rank != 0:
            raise ValueError(f"{op}: graphs[{i}] has rank {g.rank}; only scalar graphs")
    ref_sig = _signature(graphs[0])
    ref = None
    for i, g in enumerate(graphs[1:], start=1):
        if _signature(g) == ref_sig:
            continue
        ref = graphs[0].spec if ref is None else ref
        spec = g.spec
        if spec != ref:
            diffs = "; ".join(spec.differences(ref))
            raise ValueError(
                f"{op}: graph {i} does not match graph 0 ({diffs.replace('other spec', 'graph 0')})"
            )


def _item_offsets(totals: list[int]) -> np.ndarray:
    """Exclusive cumulative sum: items before each graph."""
    out = np.zeros(len(totals), dtype=np.int64)
    if len(totals) > 1:
        np.cumsum(totals[:-1], out=out[1:])
    return out


def _shift(indices: list[Any], node_totals: list[int], edge_totals: list[int]) -> Any:
    """Concatenate per-graph indices and add the nodes before each graph (one repeat-add).

    On CuPy only the per-graph offsets ([num_graphs]) travel to the device; the per-edge
    offsets are formed there.
    """
    if len({i.dtype for i in indices}) > 1:
        # e.g. int32 and uint64 (equal specs): NumPy would promote them to float64
        indices = [i.astype(np.int64) for i in indices]
    idx = _concat(indices)
    if len(indices) == 1:
        return idx
    offsets = _item_offsets(node_totals)
    xp = get_namespace(idx)
    idx = idx.astype(ids_dtype_holding(idx.dtype, sum(node_totals) - 1), copy=False)
    if xp is np:
        return idx + np.repeat(offsets, edge_totals).astype(idx.dtype, copy=False)
    esplits = xp.asarray(np.concatenate([[0], np.cumsum(edge_totals)]))
    gid = _row_ids(esplits, int(idx.shape[0]))
    return idx + xp.asarray(offsets)[gid].astype(idx.dtype)


# ---------------------------------------------------------------------------------------------
# list <-> merged scalar graph
# ---------------------------------------------------------------------------------------------


def merge_graphs_to_components(graphs: Sequence[GraphTensor]) -> GraphTensor:
    """Merge scalar graphs into one graph whose components are the graphs' components.

    The result equals ``merge_batch_to_components(batch_graph_tensors(graphs))``.
    """
    if isinstance(graphs, GraphTensor) or not hasattr(graphs, "__iter__"):
        raise TypeError(
            "merge_graphs_to_components(): graphs must be a list of GraphTensors, got "
            f"{type(graphs).__name__}"
        )
    graphs = list(graphs)
    _check_same_spec(graphs, "merge_graphs_to_components()")
    g0 = graphs[0]
    node_totals = {n: [g.node_sets[n].total_size for g in graphs] for n in g0.node_sets}

    context = Context.from_fields(
        features={f: _concat([g.context.features[f] for g in graphs]) for f in g0.context.features},
        sizes=_concat([g.context.sizes for g in graphs]),
    )
    node_sets = {
        name: NodeSet.from_fields(
            sizes=_concat([g.node_sets[name].sizes for g in graphs]),
            features={
                f: _concat([g.node_sets[name].features[f] for g in graphs]) for f in ns.features
            },
        )
        for name, ns in g0.node_sets.items()
    }
    edge_sets = {}
    for name, es in g0.edge_sets.items():
        pieces = [g.edge_sets[name] for g in graphs]
        edge_totals = [p.total_size for p in pieces]
        adj = es.adjacency
        ends = {  # every node tag (a HyperAdjacency may have more than SOURCE / TARGET)
            tag: (ns, _shift([p.adjacency[tag] for p in pieces], node_totals[ns], edge_totals))
            for tag, (ns, _) in adj.get_indices_dict().items()
        }
        edge_sets[name] = EdgeSet.from_fields(
            sizes=_concat([p.sizes for p in pieces]),
            adjacency=adj._with_indices(ends),
            features={f: _concat([p.features[f] for p in pieces]) for f in es.features},
        )
    return GraphTensor.from_pieces(context, node_sets, edge_sets, validate=False)


def _slice_field(value: Any, lo: int, hi: int) -> Any:
    if isinstance(value, Ragged):
        return value.slice_rows(lo, hi)
    return value[lo:hi]


def split_components(
    graph: GraphTensor, num_components: Sequence[int] | Any | None = None
) -> list[GraphTensor]:
    """Split a scalar graph into consecutive groups of components, one graph per group.

    ``num_components`` gives the components of each output graph (default: one each), e.g.
    ``[g.num_components for g in graphs]`` undoes :func:`merge_graphs_to_components` exactly.
    Raises ``ValueError`` if an edge joins nodes outside its own group.
    """
    op = "split_components()"
    if not isinstance(graph, GraphTensor):
        raise TypeError(f"{op}: expected a GraphTensor, got {type(graph).__name__}")
    if graph.rank != 0:
        raise ValueError(f"{op}: needs a scalar graph; use unbatch_graph_tensor() for a batch")
    total_c = graph.num_components
    if num_components is None:
        groups = np.ones(total_c, dtype=np.int64)
    else:
        groups = np.asarray(to_numpy(num_components))
        if groups.ndim != 1 or (groups.size and groups.dtype.kind not in "iu"):
            raise TypeError(
                f"{op}: num_components must be a 1-D sequence of integers, got "
                f"{groups.dtype} of shape {groups.shape}"
            )
        groups = groups.astype(np.int64)
        if groups.size and groups.min() < 0:
            raise ValueError(f"{op}: num_components must be >= 0")
        if int(groups.sum()) != total_c:
            raise ValueError(
                f"{op}: num_components sum to {int(groups.sum())}, graph has {total_c} components"
            )
    group_splits = np.zeros(len(groups) + 1, dtype=np.int64)
    np.cumsum(groups, out=group_splits[1:])

    def item_splits(piece: Any) -> np.ndarray:
        """Item offsets of each group (host)."""
        return to_numpy(piece.row_splits)[group_splits]

    ctx_splits = group_splits
    node_splits = {n: item_splits(p) for n, p in graph.node_sets.items()}
    local_adj: dict[str, dict[int, tuple[str, Any]]] = {}
    for name, es in graph.edge_sets.items():
        esplits = item_splits(es)
        ends = {}
        for tag, (tag_name, idx) in es.adjacency.get_indices_dict().items():
            xp = get_namespace(idx)
            nsplits = xp.asarray(node_splits[tag_name])
            gid = _row_ids(xp.asarray(esplits), es.total_size)
            local = idx - nsplits[gid].astype(idx.dtype)
            limit = (nsplits[1:] - nsplits[:-1])[gid]
            bad = (local < 0) | (local >= limit)
            if es.total_size and bool(xp.any(bad)):
                e = int(to_numpy(xp.argmax(bad)))
                raise ValueError(
                    f"{op}: edge set {name!r}: edge {e} joins node {int(to_numpy(idx[e]))} of "
                    f"node set {tag_name!r}, outside its own graph {int(to_numpy(gid[e]))}"
                )
            ends[tag] = (tag_name, local)
        local_adj[name] = ends

    # every part below is a slice of a validated graph: build the pieces without re-checking
    edge_splits = {n: item_splits(es) for n, es in graph.edge_sets.items()}
    out = []
    for k in range(len(groups)):
        c0, c1 = int(ctx_splits[k]), int(ctx_splits[k + 1])
        ctx = graph.context
        context = Context._trusted(
            ctx.sizes[c0:c1], {f: _slice_field(v, c0, c1) for f, v in ctx.features.items()}, c1 - c0
        )
        node_sets = {}
        for n, ns in graph.node_sets.items():
            lo, hi = int(node_splits[n][k]), int(node_splits[n][k + 1])
            node_sets[n] = NodeSet._trusted(
                ns.sizes[c0:c1],
                {f: _slice_field(v, lo, hi) for f, v in ns.features.items()},
                hi - lo,
            )
        edge_sets = {}
        for n, es in graph.edge_sets.items():
            lo, hi = int(edge_splits[n][k]), int(edge_splits[n][k + 1])
            adjacency = es.adjacency._trusted_with(
                {t: (ns, idx[lo:hi]) for t, (ns, idx) in local_adj[n].items()}
            )
            edge_sets[n] = EdgeSet._trusted(
                es.sizes[c0:c1],
                {f: _slice_field(v, lo, hi) for f, v in es.features.items()},
                hi - lo,
                _adjacency=adjacency,
            )
        out.append(GraphTensor._trusted(context, node_sets, edge_sets))
    return out


# ---------------------------------------------------------------------------------------------
# batched (rank 1) graphs
# ---------------------------------------------------------------------------------------------


def batch_graph_tensors(graphs: Sequence[GraphTensor]) -> GraphTensor:
    """Stack scalar graphs into a batched graph of shape ``[len(graphs)]``.

    Every field becomes a :class:`Ragged` over the batch (row ``b`` holds graph ``b``'s items);
    adjacency indices stay local to each graph, as in TF-GNN.
    """
    if not hasattr(graphs, "__iter__") or isinstance(graphs, GraphTensor):
        raise TypeError(
            f"batch_graph_tensors expects a list of GraphTensors, got {type(graphs).__name__}"
        )
    graphs = list(graphs)
    merged = merge_graphs_to_components(graphs)
    ncomp = np.asarray([g.num_components for g in graphs], dtype=np.int64)
    return _batched_from_merged(merged, ncomp)


def _batched_from_merged(merged: GraphTensor, ncomp: np.ndarray) -> GraphTensor:
    xp = get_namespace(merged.context.sizes)
    comp_splits = np.zeros(len(ncomp) + 1, dtype=np.int64)
    np.cumsum(ncomp, out=comp_splits[1:])
    comp_splits_x = xp.asarray(comp_splits)

    def batched(piece: Any) -> tuple[Ragged, Any]:
        sizes = Ragged(piece.sizes, comp_splits_x, validate=False)
        item_splits = piece.row_splits[comp_splits_x]
        return sizes, item_splits

    def rag(value: Any, splits: Any) -> Ragged:
        return Ragged(value, splits)

    ctx_sizes, ctx_splits = batched(merged.context)
    context = Context.from_fields(
        features={f: rag(v, ctx_splits) for f, v in merged.context.features.items()},
        sizes=ctx_sizes,
    )
    node_sets, node_item_splits = {}, {}
    for n, ns in merged.node_sets.items():
        sizes, splits = batched(ns)
        node_item_splits[n] = splits
        node_sets[n] = NodeSet.from_fields(
            sizes=sizes, features={f: rag(v, splits) for f, v in ns.features.items()}
        )
    edge_sets = {}
    for n, es in merged.edge_sets.items():
        sizes, splits = batched(es)
        gid = _row_ids(splits, es.total_size)
        a = es.adjacency
        ends = {}
        for tag, (name, idx) in a.get_indices_dict().items():
            local = idx - node_item_splits[name][gid].astype(idx.dtype)
            ends[tag] = (name, Ragged(local, splits))
        edge_sets[n] = EdgeSet.from_fields(
            sizes=sizes,
            adjacency=a._with_indices(ends),
            features={f: rag(v, splits) for f, v in es.features.items()},
        )
    return GraphTensor.from_pieces(context, node_sets, edge_sets, validate=False)


def merge_batch_to_components(graph: GraphTensor) -> GraphTensor:
    """Merge a batched graph (rank 1) into one scalar graph (TF-GNN's method of that name).

    Features lose the batch dimension (``[total_items, ...]``), sizes are concatenated,
    adjacency indices are shifted by the nodes of earlier graphs in their node set.
    A scalar graph is returned unchanged.
    """
    if not isinstance(graph, GraphTensor):
        raise TypeError(f"merge_batch_to_components(): expected a GraphTensor, got {type(graph)}")
    if graph.rank == 0:
        return graph
    ctx = graph.context
    context = Context.from_fields(
        features={f: v.values for f, v in ctx.features.items()}, sizes=ctx.sizes.values
    )
    node_sets, node_offsets = {}, {}
    for n, ns in graph.node_sets.items():
        totals = ns._totals_per_graph()
        node_offsets[n] = _splits_from_lengths(totals)
        node_sets[n] = NodeSet.from_fields(
            sizes=ns.sizes.values, features={f: v.values for f, v in ns.features.items()}
        )
    edge_sets = {}
    for n, es in graph.edge_sets.items():
        a = es.adjacency
        splits = a._source.row_splits  # any tag's (a HyperAdjacency may lack SOURCE)
        gid = _row_ids(splits, len(a))
        ends = {}
        for tag, (name, idx) in a.get_indices_dict().items():
            offsets = node_offsets[name]
            top = graph.node_sets[name].total_size - 1  # known on the host: no device sync
            vals = idx.values.astype(ids_dtype_holding(idx.values.dtype, top), copy=False)
            ends[tag] = (name, vals + offsets[gid].astype(vals.dtype))
        edge_sets[n] = EdgeSet.from_fields(
            sizes=es.sizes.values,
            adjacency=a._with_indices(ends),
            features={f: v.values for f, v in es.features.items()},
        )
    return GraphTensor.from_pieces(context, node_sets, edge_sets, validate=False)


def unbatch_graph_tensor(graph: GraphTensor) -> list[GraphTensor]:
    """The scalar graphs of a batched graph, in order (inverse of
    :func:`batch_graph_tensors`)."""
    if not isinstance(graph, GraphTensor) or graph.rank != 1:
        raise ValueError("unbatch_graph_tensor(): expected a batched GraphTensor (rank 1)")
    return split_components(merge_batch_to_components(graph), to_numpy(graph.num_components))
