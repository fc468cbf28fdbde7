"""jraph's models on NumPy / CuPy ``GraphsTuple`` s: each function returns a callable
``graph -> graph`` built from the update functions you pass (plain array functions, or
layers of :mod:`arraygnn.nn`).

RULE: arguments, argument order of the update functions, defaults and results are
      jraph's (``GraphNetwork`` follows Battaglia et al. 2018, Algorithm 1, aggregating
      sent and received edges separately).
RULE: the graph is validated before the first update (ids in range, feature rows).
RULE: nothing per edge is built that the update functions do not see: ``GraphNetwork``
      gathers sender / receiver / global rows only when an edge or attention function
      takes them; ``GraphConvolution`` with the default ``segment_sum`` is one fused SpMM
      (no [E, F] gather); ``GAT`` weights the sender rows inside the SpMM when the weights
      are per edge ([E, 1] against [N, F] queries) or per edge and head ([E, H, 1]
      against [N, H, F] queries).

>>> import numpy as np
>>> from arraygnn.graphs_tuple import GraphsTuple
>>> g = GraphsTuple(np.eye(3), None, np.array([1, 2, 2]), np.array([0, 0, 1]), None,
...                 np.array([3]), np.array([3]))
>>> gcn = GraphConvolution(lambda x: x, add_self_edges=False, symmetric_normalization=False)
>>> gcn(g).nodes.tolist()
[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.graphs_tuple._tree import tree_leaves, tree_map
from arraygnn.graphs_tuple.container import GraphsTuple, check_graphs_tuple
from arraygnn.graphs_tuple.segments import segment_softmax, segment_sum

__all__ = [
    "GAT",
    "DeepSets",
    "GraphConvolution",
    "GraphMapFeatures",
    "GraphNetGAT",
    "GraphNetwork",
    "InteractionNetwork",
    "RelationNetwork",
    "concatenated_args",
]


def _gather(leaf: Any, index: Any) -> Any:
    """``leaf[index]`` through the parallel gather kernel (arrays; anything else indexes
    itself)."""
    if is_array(leaf) and leaf.ndim:
        from arraygnn import ops

        return ops.gather(leaf, index)
    return leaf[index]


def _rows(xp: Any, tree: Any, index: Any) -> Any:
    return tree_map(lambda leaf: _gather(leaf, index), tree)


def _repeat_rows(xp: Any, tree: Any, counts: Any) -> Any:
    """Row ``i`` of every leaf repeated ``counts[i]`` times."""
    if tree is None:
        return None
    index = repeat_counts(xp, xp.arange(counts.shape[0]), counts)
    return _rows(xp, tree, index)


def _check(graph: Any, where: str, need_nodes: bool) -> tuple[GraphsTuple, Any, Any, Any, int]:
    """``(graph, xp, senders, receivers, num_nodes)``; ``senders`` / ``receivers`` are
    empty arrays when the graph has none (the graph itself keeps its ``None``)."""
    shape = check_graphs_tuple(graph, where)
    graph = GraphsTuple(*graph)
    if need_nodes and not tree_leaves(graph.nodes):
        raise ValueError(f"{where}: the graph has no node features (nodes is None)")
    senders, receivers = graph.senders, graph.receivers
    if senders is None:
        senders = receivers = shape.xp.zeros(0, dtype=np.int64)
    return graph, shape.xp, senders, receivers, shape.num_nodes


def GraphNetwork(  # noqa: N802 (jraph's name)
    update_edge_fn: Callable[..., Any] | None,
    update_node_fn: Callable[..., Any] | None,
    update_global_fn: Callable[..., Any] | None = None,
    aggregate_edges_for_nodes_fn: Callable[..., Any] = segment_sum,
    aggregate_nodes_for_globals_fn: Callable[..., Any] = segment_sum,
    aggregate_edges_for_globals_fn: Callable[..., Any] = segment_sum,
    attention_logit_fn: Callable[..., Any] | None = None,
    attention_normalize_fn: Callable[..., Any] | None = segment_softmax,
    attention_reduce_fn: Callable[..., Any] | None = None,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """A full Graph Network block, jraph's ``GraphNetwork``.

    ``update_edge_fn(edges, sent_node_features, received_node_features, globals_per_edge)``;
    ``update_node_fn(nodes, aggregated_sent_edges, aggregated_received_edges,
    globals_per_node)``; ``update_global_fn(aggregated_nodes, aggregated_edges, globals)``;
    ``None`` skips that update. ``attention_logit_fn`` (same arguments as the edge update)
    and ``attention_reduce_fn(edges, weights)`` come together: the logits are normalised
    over each receiver's edges by ``attention_normalize_fn``.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones((2, 1)), np.array([[2.0]]), np.array([1]), np.array([0]),
    ...                 np.zeros((1, 1)), np.array([2]), np.array([1]))
    >>> net = GraphNetwork(update_edge_fn=lambda e, s, r, u: e + s,
    ...                    update_node_fn=lambda n, s, r, u: n + r)
    >>> net(g).nodes.tolist()
    [[1.0], [4.0]]
    """
    if (attention_logit_fn is None) != (attention_reduce_fn is None):
        raise ValueError(
            "GraphNetwork: attention_logit_fn and attention_reduce_fn must both be supplied"
        )

    def apply(graph: GraphsTuple) -> GraphsTuple:
        graph, xp, senders, receivers, num_nodes = _check(graph, "GraphNetwork", need_nodes=False)
        nodes, edges, _, _, globals_, n_node, n_edge = graph
        if update_edge_fn is not None or attention_logit_fn is not None:
            sent = _rows(xp, nodes, senders)
            received = _rows(xp, nodes, receivers)
            globals_per_edge = _repeat_rows(xp, globals_, n_edge)
            if update_edge_fn is not None:
                edges = update_edge_fn(edges, sent, received, globals_per_edge)
            if attention_logit_fn is not None:
                logits = attention_logit_fn(edges, sent, received, globals_per_edge)
                weights = tree_map(  # by keyword, as jraph calls it
                    lambda x: attention_normalize_fn(
                        x, segment_ids=receivers, num_segments=num_nodes
                    ),
                    logits,
                )
                edges = attention_reduce_fn(edges, weights)
        if update_node_fn is not None:
            sent_agg = tree_map(
                lambda e: aggregate_edges_for_nodes_fn(e, senders, num_nodes), edges
            )
            received_agg = tree_map(
                lambda e: aggregate_edges_for_nodes_fn(e, receivers, num_nodes), edges
            )
            globals_per_node = _repeat_rows(xp, globals_, n_node)
            nodes = update_node_fn(nodes, sent_agg, received_agg, globals_per_node)
        if update_global_fn is not None:
            num_graphs = int(n_node.shape[0])
            graph_ids = xp.arange(num_graphs)
            node_graph = repeat_counts(xp, graph_ids, n_node)
            edge_graph = repeat_counts(xp, graph_ids, n_edge)
            pooled_nodes = tree_map(
                lambda n: aggregate_nodes_for_globals_fn(n, node_graph, num_graphs), nodes
            )
            pooled_edges = tree_map(
                lambda e: aggregate_edges_for_globals_fn(e, edge_graph, num_graphs), edges
            )
            globals_ = update_global_fn(pooled_nodes, pooled_edges, globals_)
        return GraphsTuple(nodes, edges, graph.receivers, graph.senders, globals_, n_node, n_edge)

    return apply


def InteractionNetwork(  # noqa: N802
    update_edge_fn: Callable[..., Any],
    update_node_fn: Callable[..., Any],
    aggregate_edges_for_nodes_fn: Callable[..., Any] = segment_sum,
    include_sent_messages_in_node_update: bool = False,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``InteractionNetwork``: ``update_edge_fn(edges, sent, received)``, then
    ``update_node_fn(nodes, received_messages)`` (``(nodes, sent, received)`` with
    ``include_sent_messages_in_node_update``); no globals.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones(2), np.zeros(1), np.array([1]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> InteractionNetwork(lambda e, s, r: s + r, lambda n, r: n + r)(g).nodes.tolist()
    [1.0, 3.0]
    """
    if include_sent_messages_in_node_update:
        node_fn = lambda n, s, r, g: update_node_fn(n, s, r)  # noqa: E731
    else:
        node_fn = lambda n, s, r, g: update_node_fn(n, r)  # noqa: E731
    return GraphNetwork(
        update_edge_fn=lambda e, s, r, g: update_edge_fn(e, s, r),
        update_node_fn=node_fn,
        aggregate_edges_for_nodes_fn=aggregate_edges_for_nodes_fn,
    )


def GraphMapFeatures(  # noqa: N802
    embed_edge_fn: Callable[[Any], Any] | None = None,
    embed_node_fn: Callable[[Any], Any] | None = None,
    embed_global_fn: Callable[[Any], Any] | None = None,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``GraphMapFeatures``: embed edges, nodes and globals independently.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones(2), None, None, None, None, np.array([2]), np.array([0]))
    >>> GraphMapFeatures(embed_node_fn=lambda n: 2 * n)(g).nodes.tolist()
    [2.0, 2.0]
    """

    def same(x: Any) -> Any:
        return x

    edge_fn, node_fn, global_fn = (
        fn if fn is not None else same for fn in (embed_edge_fn, embed_node_fn, embed_global_fn)
    )

    def apply(graph: GraphsTuple) -> GraphsTuple:
        return graph._replace(
            nodes=node_fn(graph.nodes), edges=edge_fn(graph.edges), globals=global_fn(graph.globals)
        )

    return apply


def RelationNetwork(  # noqa: N802
    update_edge_fn: Callable[[Any, Any], Any],
    update_global_fn: Callable[[Any], Any],
    aggregate_edges_for_globals_fn: Callable[..., Any] = segment_sum,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``RelationNetwork``: ``update_edge_fn(sent, received)`` per edge, summed per
    graph into ``update_global_fn``.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple, get_fully_connected_graph
    >>> g = get_fully_connected_graph(2, 1, node_features=np.array([1.0, 2.0]))
    >>> RelationNetwork(lambda s, r: s * r, lambda e: e)(g).globals.tolist()
    [9.0]
    """
    return GraphNetwork(
        update_edge_fn=lambda e, s, r, g: update_edge_fn(s, r),
        update_node_fn=None,
        update_global_fn=lambda n, e, g: update_global_fn(e),
        aggregate_edges_for_globals_fn=aggregate_edges_for_globals_fn,
    )


def DeepSets(  # noqa: N802
    update_node_fn: Callable[[Any, Any], Any],
    update_global_fn: Callable[[Any], Any],
    aggregate_nodes_for_globals_fn: Callable[..., Any] = segment_sum,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``DeepSets``: ``update_node_fn(nodes, globals_per_node)``, then
    ``update_global_fn(pooled nodes)``.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones(3), None, None, None, np.array([1.0]), np.array([3]),
    ...                 np.array([0]))
    >>> DeepSets(lambda n, u: n + u, lambda n: n)(g).globals.tolist()
    [6.0]
    """
    return GraphNetwork(
        update_edge_fn=None,
        update_node_fn=lambda n, s, r, g: update_node_fn(n, g),
        update_global_fn=lambda n, e, g: update_global_fn(n),
        aggregate_nodes_for_globals_fn=aggregate_nodes_for_globals_fn,
    )


def GraphNetGAT(  # noqa: N802
    update_edge_fn: Callable[..., Any],
    update_node_fn: Callable[..., Any],
    attention_logit_fn: Callable[..., Any],
    attention_reduce_fn: Callable[..., Any],
    update_global_fn: Callable[..., Any] | None = None,
    aggregate_edges_for_nodes_fn: Callable[..., Any] = segment_sum,
    aggregate_nodes_for_globals_fn: Callable[..., Any] = segment_sum,
    aggregate_edges_for_globals_fn: Callable[..., Any] = segment_sum,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``GraphNetGAT``: a :func:`GraphNetwork` whose attention functions are
    required.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones(3), np.array([1.0, 3.0]), np.array([2, 2]), np.array([0, 1]),
    ...                 None, np.array([3]), np.array([2]))
    >>> net = GraphNetGAT(lambda e, s, r, u: e, lambda n, s, r, u: r,
    ...                   lambda e, s, r, u: np.zeros_like(e), lambda e, w: e * w)
    >>> net(g).nodes.tolist()
    [0.0, 0.0, 2.0]
    """
    if attention_logit_fn is None or attention_reduce_fn is None:
        raise ValueError(
            "GraphNetGAT: attention_logit_fn and attention_reduce_fn are required (not None)"
        )
    return GraphNetwork(
        update_edge_fn=update_edge_fn,
        update_node_fn=update_node_fn,
        update_global_fn=update_global_fn,
        attention_logit_fn=attention_logit_fn,
        attention_reduce_fn=attention_reduce_fn,
        aggregate_edges_for_nodes_fn=aggregate_edges_for_nodes_fn,
        aggregate_nodes_for_globals_fn=aggregate_nodes_for_globals_fn,
        aggregate_edges_for_globals_fn=aggregate_edges_for_globals_fn,
    )


def _leaky_relu_concat(x: Any) -> Any:
    xp = get_namespace(x)
    # jax.nn.leaky_relu (slope 0.01): max(x, 0.01 x) is the same for a slope below 1
    width = int(np.prod(x.shape[1:], dtype=np.int64))  # (not -1: a graph may have no nodes)
    return xp.maximum(x, x * x.dtype.type(0.01)).reshape(x.shape[0], width)


def _spmm_weights(weights: Any, queries: Any, num_edges: int) -> Any | None:
    """``weights`` as ``ops.spmm``'s ``edge_weight`` ([E] or [E, H]) when the per-edge
    product ``queries[senders] * weights`` broadcasts as a row or per-head scale, else
    ``None`` (then the product is built per edge, as jraph does)."""
    w = weights
    if w.ndim != queries.ndim or w.shape[0] != num_edges:
        return None
    if all(d == 1 for d in w.shape[1:]):
        return w.reshape(num_edges)
    if w.ndim == 2 and w.shape[1] == queries.shape[1]:
        return w
    if w.ndim == 3 and w.shape[1] == queries.shape[1] and w.shape[2] == 1:
        return w.reshape(num_edges, w.shape[1])
    return None


def GAT(  # noqa: N802
    attention_query_fn: Callable[[Any], Any],
    attention_logit_fn: Callable[[Any, Any, Any], Any],
    node_update_fn: Callable[[Any], Any] | None = None,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``GAT``: ``q = attention_query_fn(nodes)``, logits
    ``attention_logit_fn(q[senders], q[receivers], edges)`` softmaxed over each receiver's
    edges, ``node_update_fn(sum of weights * q[senders])`` (default: leaky ReLU, heads
    concatenated). As in jraph, add self edges yourself to get the paper's layer.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.array([[1.0], [3.0]]), None, np.array([1, 1]), np.array([0, 1]),
    ...                 None, np.array([2]), np.array([2]))
    >>> gat = GAT(lambda n: n, lambda s, r, e: np.zeros((s.shape[0], 1)))
    >>> gat(g).nodes.tolist()
    [[0.0], [2.0]]
    """
    update = node_update_fn if node_update_fn is not None else _leaky_relu_concat

    def apply(graph: GraphsTuple) -> GraphsTuple:
        from arraygnn import ops

        graph, xp, senders, receivers, num_nodes = _check(graph, "GAT", need_nodes=True)
        queries = attention_query_fn(graph.nodes)
        sent = _gather(queries, senders)
        received = _gather(queries, receivers)
        logits = attention_logit_fn(sent, received, graph.edges)
        edge_index = xp.stack([senders, receivers])
        csr = ops.to_csr(edge_index, num_nodes, num_nodes)
        weights = ops.edge_softmax(csr, logits)
        fused = _spmm_weights(weights, queries, int(senders.shape[0]))
        if fused is not None and queries.dtype.kind == "f":
            nodes = ops.spmm(csr, queries, edge_weight=fused)
        else:
            nodes = segment_sum(sent * weights, receivers, num_nodes)
        return graph._replace(nodes=update(nodes))

    return apply


def GraphConvolution(  # noqa: N802
    update_node_fn: Callable[[Any], Any],
    aggregate_nodes_fn: Callable[..., Any] = segment_sum,
    add_self_edges: bool = False,
    symmetric_normalization: bool = True,
) -> Callable[[GraphsTuple], GraphsTuple]:
    """jraph's ``GraphConvolution``: ``update_node_fn`` first, then sum over in-edges
    (optionally with a self edge per node), scaled by ``1 / sqrt(max(out-degree, 1))`` of
    the sender and ``1 / sqrt(max(in-degree, 1))`` of the receiver when
    ``symmetric_normalization`` (integer features then give float32, as jraph). No
    activation afterwards, as in jraph.

    >>> import numpy as np
    >>> from arraygnn.graphs_tuple import GraphsTuple
    >>> g = GraphsTuple(np.ones((2, 1)), None, np.array([1]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> GraphConvolution(lambda x: x, add_self_edges=True)(g).nodes.round(4).tolist()
    [[0.7071], [1.2071]]
    """

    def apply(graph: GraphsTuple) -> GraphsTuple:
        from arraygnn import ops

        graph, xp, senders, receivers, num_nodes = _check(
            graph, "GraphConvolution", need_nodes=True
        )
        nodes = update_node_fn(graph.nodes)
        leaves = tree_leaves(nodes)
        total = int(leaves[0].shape[0]) if leaves else num_nodes
        if add_self_edges:
            dtype = ids_dtype_holding(np.result_type(senders.dtype, receivers.dtype), total - 1)
            loops = xp.arange(total, dtype=dtype)
            senders = xp.concatenate([senders.astype(dtype, copy=False), loops])
            receivers = xp.concatenate([receivers.astype(dtype, copy=False), loops])
        fused = aggregate_nodes_fn is segment_sum
        csr = ops.to_csr(xp.stack([senders, receivers]), total, total) if fused else None

        def aggregate(x: Any) -> Any:
            if fused and x.dtype.kind == "f":
                return ops.spmm(csr, x)
            return aggregate_nodes_fn(_gather(x, senders), receivers, total)

        if not symmetric_normalization:
            return graph._replace(nodes=tree_map(aggregate, nodes))

        def scale(degree: Any) -> Callable[[Any], Any]:
            def apply_scale(x: Any) -> Any:
                factor = 1.0 / xp.sqrt(xp.maximum(degree, 1).astype(np.float64))
                factor = factor.astype(x.dtype if x.dtype.kind == "f" else np.float64)
                return x * factor.reshape((total,) + (1,) * (x.ndim - 1))

            return apply_scale

        out_degree = xp.bincount(senders, minlength=total)[:total]
        in_degree = xp.bincount(receivers, minlength=total)[:total]

        def normalised(x: Any) -> Any:
            out = scale(in_degree)(aggregate(scale(out_degree)(x)))
            # integer / bool features: float32 as jraph (JAX's default float), computed
            # in float64
            return out.astype(np.float32) if x.dtype.kind in "biu" else out

        return graph._replace(nodes=tree_map(normalised, nodes))

    return apply


def concatenated_args(
    update: Callable[..., Any] | None = None, *, axis: int = -1
) -> Callable[..., Any]:
    """Decorator: call ``update`` with every array argument (positional then keyword,
    leaves in tree order) concatenated along ``axis`` (jraph's ``concatenated_args``).

    >>> import numpy as np
    >>> f = concatenated_args(lambda x: x.shape)
    >>> f(np.ones((2, 1)), {"a": np.ones((2, 3))}, None)
    (2, 4)
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            leaves = tree_leaves(list(args)) + tree_leaves(kwargs)
            if not leaves:
                raise ValueError("concatenated_args: no array arguments to concatenate")
            xp = get_namespace(*leaves)
            return fn(xp.concatenate(leaves, axis=axis))

        return wrapper

    if update is not None:
        return decorate(update)
    return decorate
