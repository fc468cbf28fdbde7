"""jraph's batching and padding of ``GraphsTuple`` s, vectorised.

RULE: ``batch`` concatenates every field along axis 0 and shifts ``senders`` /
      ``receivers`` of each input by the nodes before it: one concatenate per field and
      one repeat-and-add for the ids; features are checked over the whole list at once
      (a tree is walked once, each level comparing every graph's keys / lengths in one
      pass). A ``GraphsTuple`` with no graphs adds nothing. Ids that would overflow their
      dtype widen to int64.
RULE: ``pad_with_graphs(graph, n_node, n_edge, n_graph)`` appends one padding graph that
      holds every padding node and edge, then empty graphs, as jraph: every padding edge
      joins the first padding node to itself; padded features are zeros. The padding
      graph needs at least one node: ``sum(graph.n_node) < n_node``.
RULE: padded ids and counts keep their dtype unless the padding targets overflow it
      (ids up to ``n_node - 1``, counts up to ``n_node`` / ``n_edge``), then int64: the
      choice depends on the targets only, so every batch of ``dynamically_batch`` / every
      graph padded to the same sizes has the same dtypes (a jit-compiled model traces once).
RULE: ``unpad_with_graphs`` / the masks / ``get_number_of_padding_with_graphs_*`` read
      the padding back from ``n_node`` as jraph does (the trailing graphs without nodes
      plus the one before them), so they apply only to graphs padded this way.
RULE: ``zero_out_padding`` selects zeros (``where``), so a NaN or inf in a padding row
      becomes 0 (jraph multiplies by the mask, which keeps NaN).

>>> import numpy as np
>>> from arraygnn.graphs_tuple import GraphsTuple
>>> g = GraphsTuple(np.ones((2, 1)), None, np.array([1]), np.array([0]), None,
...                 np.array([2]), np.array([1]))
>>> b = batch([g, g])
>>> b.senders.tolist(), b.n_node.tolist()
([0, 2], [2, 2])
>>> p = pad_with_graphs(b, n_node=6, n_edge=3, n_graph=3)
>>> p.n_node.tolist(), p.senders.tolist(), get_node_padding_mask(p).tolist()
([2, 2, 2], [0, 2, 4], [True, True, True, True, False, False])
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arraygnn._alignment import aligned_empty
from arraygnn._namespace import get_namespace, is_array, repeat_counts
from arraygnn.graphs_tuple._tree import rebuild, tree_leaves, tree_map
from arraygnn.graphs_tuple.container import (
    GraphShape,
    GraphsTuple,
    _array_hint,
    check_counts,
    check_fields,
    check_graphs_tuple,
)

__all__ = [
    "batch",
    "batch_np",
    "dynamically_batch",
    "get_edge_padding_mask",
    "get_fully_connected_graph",
    "get_graph_padding_mask",
    "get_node_padding_mask",
    "get_number_of_padding_with_graphs_edges",
    "get_number_of_padding_with_graphs_graphs",
    "get_number_of_padding_with_graphs_nodes",
    "pad_with_graphs",
    "unbatch",
    "unbatch_np",
    "unpad_with_graphs",
    "with_zero_out_padding_outputs",
    "zero_out_padding",
]


def _size(where: str, name: str, value: Any) -> int:
    """``value`` as an ``int``: an int, or a float with a whole value (``20.0``, as jraph
    takes it); ``ValueError`` for ``20.5`` / NaN / inf, ``TypeError`` for anything else
    (bools included). A 0-d array (NumPy, CuPy, JAX) counts as its value, as in jraph.
    The one check of every padding size, budget and count here."""
    if getattr(value, "shape", None) == () and hasattr(value, "item"):
        value = value.item()  # 0-d arrays and NumPy scalars: a Python int / float / bool
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where}: {name} must be an int, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value) or not float(value).is_integer():
            raise ValueError(f"{where}: {name} must be a whole number, got {value!r}")
        return int(value)
    raise TypeError(f"{where}: {name} must be an int, got {value!r}")


def _fits(dtype: np.dtype, value: int) -> bool:
    return value <= np.iinfo(dtype).max


def _concat(
    xp: Any,
    parts: Sequence[Any],
    rows: int | None = None,
    pad: int = 0,
    fill: Any = 0,
    dtype: Any = None,
) -> Any:
    """``parts`` concatenated along axis 0, then ``pad`` rows of ``fill``: one allocation,
    on the CPU 64-byte aligned, so JAX adopts the result without a copy
    (:func:`arraygnn.interop.to_jax`). ``rows``: the parts' total rows when known."""
    first = parts[0]
    if rows is None:
        rows = sum(int(p.shape[0]) for p in parts)
    if dtype is None:
        dtype = np.result_type(*parts)
    shape = (rows + pad,) + tuple(first.shape[1:])
    out = aligned_empty(shape, dtype) if xp is np else xp.empty(shape, dtype=dtype)
    if len(parts) == 1:
        if first.shape[0] != rows:
            raise ValueError(f"expected {rows} rows, got {first.shape[0]}")
        out[:rows] = first
    else:
        xp.concatenate(parts, out=out[:rows])
    if pad:
        out[rows:] = fill
    return out


def _shifted(xp: Any, local: Any, offsets: Any, dtype: Any, pad: int, fill: int) -> Any:
    """``local + offsets`` in ``dtype``, then ``pad`` entries ``fill`` (as :func:`_concat`)."""
    rows = int(local.shape[0])
    if xp is np:
        out = aligned_empty((rows + pad,), dtype)
        np.add(local, offsets, out=out[:rows], casting="unsafe")
    else:
        out = xp.empty(rows + pad, dtype=dtype)
        out[:rows] = local.astype(dtype, copy=False) + offsets.astype(dtype)
    if pad:
        out[rows:] = fill
    return out


def _counts_padded(xp: Any, values: Any, pad_graphs: int, first: int, total: int = 0) -> Any:
    """Counts ``values`` [G] then ``first`` and ``pad_graphs - 1`` zeros (widened to int64
    when ``total``, the padded total they sum to, or ``first`` does not fit their dtype:
    the dtype depends on the padding target, not on the data, so every batch padded to
    the same sizes has the same dtypes and a jit-compiled model traces once)."""
    fits = _fits(values.dtype, max(first, total))
    dtype = values.dtype if fits else np.dtype(np.int64)
    out = _concat(xp, [values], int(values.shape[0]), pad_graphs, 0, dtype)
    if pad_graphs:
        out[values.shape[0]] = first
    return out


def _concat_field(xp: Any, values: tuple, what: str, counts: list[int], noun: str, pad: int) -> Any:
    """The graphs' ``what`` (``None``, arrays or trees of arrays, one structure for all)
    concatenated, then ``pad`` zero rows; each graph's rows checked against ``counts``.
    A tree is walked once for all graphs: each container level compares every graph's
    keys / lengths in one pass, then recurses per child over the whole list."""
    first = values[0]
    if first is None:
        if any(v is not None for v in values):
            i = next(i for i, v in enumerate(values) if v is not None)
            raise ValueError(f"batch: graph {i} has {what} but graph 0 has none (None)")
        return None
    if is_array(first):
        if not all(is_array(v) for v in values):
            i = next(i for i, v in enumerate(values) if not is_array(v))
            if values[i] is None:
                raise ValueError(f"batch: graph {i} has no {what} (None) but graph 0 has")
            if _array_hint(values[i]):  # a JAX array / torch tensor, not another structure
                raise TypeError(
                    f"batch: graph {i}: {what} must be a NumPy or CuPy array, got "
                    f"{type(values[i]).__name__}{_array_hint(values[i])}"
                )
            raise ValueError(f"batch: graph {i} has {what} of another structure than graph 0")
        rows = [v.shape[0] if v.ndim else -1 for v in values]
        if rows != counts:
            i = next(i for i, (r, c) in enumerate(zip(rows, counts)) if r != c)
            raise ValueError(
                f"batch: graph {i}: {what} has shape {tuple(values[i].shape)}; its first "
                f"dimension must be {noun} = {counts[i]}"
            )
        try:
            return _concat(xp, values, sum(counts), pad)
        except ValueError as err:
            raise ValueError(f"batch: cannot concatenate the graphs' {what}: {err}") from None
    kind = type(first)
    if isinstance(first, dict):
        keys = first.keys()
        for i, value in enumerate(values):
            if type(value) is not kind or value.keys() != keys:
                raise ValueError(f"batch: graph {i} has {what} of another structure than graph 0")
        children = [
            _concat_field(xp, tuple(v[k] for v in values), f"{what}[{k!r}]", counts, noun, pad)
            for k in keys
        ]
        return rebuild(first, children)
    if isinstance(first, (list, tuple)):
        size = len(first)
        for i, value in enumerate(values):
            if type(value) is not kind or len(value) != size:
                raise ValueError(f"batch: graph {i} has {what} of another structure than graph 0")
        children = [
            _concat_field(xp, tuple(v[j] for v in values), f"{what}[{j}]", counts, noun, pad)
            for j in range(size)
        ]
        return rebuild(first, children)
    raise TypeError(
        f"batch: graph 0: {what} must be a NumPy or CuPy array, got {kind.__name__}"
        f"{_array_hint(first)}"
    )


def _check_count_arrays(values: tuple, name: str) -> None:
    """Integer 1-D arrays (the per-graph checks of :func:`check_fields`, as one pass)."""
    if all(type(v) is np.ndarray and v.ndim == 1 and v.dtype.kind in "iu" for v in values):
        return
    for i, value in enumerate(values):
        check_counts(f"batch: graph {i}", name, value)


def batch(graphs: Sequence[GraphsTuple]) -> GraphsTuple:
    """One ``GraphsTuple`` holding every graph of ``graphs``, in order (jraph's ``batch``).

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.array([0]), np.array([1]), None,
    ...                 np.array([2]), np.array([1]))
    >>> batch([g, g, g]).receivers.tolist()
    [0, 2, 4]
    """
    return _batch(graphs, None)


def _batch(graphs: Sequence[GraphsTuple], sizes: tuple[int, int, int] | None) -> GraphsTuple:
    """:func:`batch`, padded straight to ``sizes`` = (n_node, n_edge, n_graph) as
    :func:`pad_with_graphs` pads (one allocation per field instead of two) when given."""
    graphs = list(graphs)
    if not graphs:
        raise ValueError("batch: needs at least one GraphsTuple")
    if not all(type(g) is GraphsTuple for g in graphs):
        graphs = [check_fields(g, f"batch: graph {i}") for i, g in enumerate(graphs)]
    nodes, edges, receivers, senders, globals_, n_node, n_edge = zip(*graphs)
    _check_count_arrays(n_node, "n_node")
    _check_count_arrays(n_edge, "n_edge")
    lengths = [v.shape[0] for v in n_node]
    if lengths != [v.shape[0] for v in n_edge]:
        i = next(i for i, g in enumerate(graphs) if g.n_node.shape[0] != g.n_edge.shape[0])
        check_fields(graphs[i], f"batch: graph {i}")  # raises, naming the graph
    with_edges = [i for i, s in enumerate(senders) if s is not None]
    if len(with_edges) != len(graphs) or any(r is None for r in receivers):
        for i in range(len(graphs)):
            check_fields(graphs[i], f"batch: graph {i}")  # senders / receivers pairs
    if with_edges:
        _check_count_arrays(tuple(senders[i] for i in with_edges), "senders")
        _check_count_arrays(tuple(receivers[i] for i in with_edges), "receivers")
    xp = get_namespace(*n_node)
    all_n_node = xp.concatenate(n_node)
    all_n_edge = xp.concatenate(n_edge)
    # per-input totals in one pass (one read-back on CuPy, not one per graph)
    node_counts, edge_counts = [0] * len(graphs), [0] * len(graphs)
    if xp is np and all(n == 1 for n in lengths):  # one graph per input: no sums
        node_counts, edge_counts = all_n_node.tolist(), all_n_edge.tolist()
        if min(node_counts) < 0 or min(edge_counts) < 0:
            raise ValueError("batch: n_node and n_edge must be non-negative")
    elif all_n_node.shape[0]:
        if int(xp.minimum(all_n_node.min(), all_n_edge.min())) < 0:
            raise ValueError("batch: n_node and n_edge must be non-negative")
        zero = xp.zeros(1, dtype=np.int64)
        running = xp.stack(
            [
                xp.concatenate([zero, xp.cumsum(all_n_node, dtype=np.int64)]),
                xp.concatenate([zero, xp.cumsum(all_n_edge, dtype=np.int64)]),
            ]
        )
        cuts = xp.asarray(np.concatenate([[0], np.cumsum(lengths)]))
        node_counts, edge_counts = xp.diff(running[:, cuts], axis=1).tolist()
    for i, s_ in enumerate(senders):
        if s_ is None and edge_counts[i]:
            raise ValueError(
                f"batch: graph {i}: senders / receivers are None but sum(n_edge) = {edge_counts[i]}"
            )
    total_nodes, total_edges, total_graphs = sum(node_counts), sum(edge_counts), sum(lengths)
    pad_nodes = pad_edges = pad_graphs = 0
    if sizes is not None:
        pad_nodes, pad_edges, pad_graphs = (
            sizes[0] - total_nodes,
            sizes[1] - total_edges,
            sizes[2] - total_graphs,
        )
    out_ids: list[Any] = [None, None]
    if with_edges:
        counts = [edge_counts[i] for i in with_edges]
        for name, values in (("senders", senders), ("receivers", receivers)):
            lengths_e = [values[i].shape[0] for i in with_edges]
            if lengths_e != counts:
                j = next(j for j, (a, b) in enumerate(zip(lengths_e, counts)) if a != b)
                raise ValueError(
                    f"batch: graph {with_edges[j]}: {name} has {lengths_e[j]} entries but "
                    f"sum(n_edge) = {counts[j]}"
                )
        per_input = xp.asarray(np.array(counts, dtype=np.int64))
        first_node = np.concatenate([[0], np.cumsum(node_counts)[:-1]]).astype(np.int64)
        offsets = repeat_counts(xp, xp.asarray(first_node[with_edges]), per_input)
        bounds = repeat_counts(
            xp, xp.asarray(np.array(node_counts, dtype=np.int64)[with_edges]), per_input
        )
        # padded: any id of a graph padded to sizes[0] nodes fits (dtype from the target)
        largest = sizes[0] - 1 if sizes is not None else max(total_nodes - 1, 0)
        for k, (name, values) in enumerate((("senders", senders), ("receivers", receivers))):
            local = xp.concatenate([values[i] for i in with_edges])
            if local.shape[0]:
                bad = (local < 0) | (local >= bounds)
                if bool(bad.any()):
                    at = int(xp.argmax(bad))
                    graph_at = with_edges[int(np.searchsorted(np.cumsum(counts), at, "right"))]
                    raise ValueError(
                        f"batch: graph {graph_at}'s {name} has entry {int(local[at])}, out of "
                        f"range for its {node_counts[graph_at]} nodes"
                    )
            dtype = local.dtype if _fits(local.dtype, largest) else np.dtype(np.int64)
            out_ids[k] = _shifted(xp, local, offsets, dtype, pad_edges, total_nodes)
    elif pad_edges:
        largest = sizes[0] - 1 if sizes is not None else total_nodes
        dtype = np.dtype(np.int32) if _fits(np.dtype(np.int32), largest) else np.int64
        out_ids = [_concat(xp, [xp.zeros(0, dtype)], 0, pad_edges, total_nodes) for _ in range(2)]
    return GraphsTuple(
        nodes=_concat_field(xp, nodes, "nodes", node_counts, "sum(n_node)", pad_nodes),
        edges=_concat_field(xp, edges, "edges", edge_counts, "sum(n_edge)", pad_edges),
        receivers=out_ids[1],
        senders=out_ids[0],
        globals=_concat_field(xp, globals_, "globals", lengths, "the number of graphs", pad_graphs),
        n_node=_counts_padded(
            xp, all_n_node, pad_graphs, pad_nodes, 0 if sizes is None else sizes[0]
        ),
        n_edge=_counts_padded(
            xp, all_n_edge, pad_graphs, pad_edges, 0 if sizes is None else sizes[1]
        ),
    )


def unbatch(graph: GraphsTuple) -> list[GraphsTuple]:
    """The graphs of ``graph``, one ``GraphsTuple`` each (features are views; ids
    renumbered from 0), jraph's ``unbatch``.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.array([0, 2]), np.array([1, 3]), None,
    ...                 np.array([2, 2]), np.array([1, 1]))
    >>> [u.senders.tolist() for u in unbatch(g)]
    [[1], [1]]
    """
    shape = check_graphs_tuple(graph, "unbatch")
    xp = shape.xp
    n_node = [int(v) for v in graph.n_node.tolist()]
    n_edge = [int(v) for v in graph.n_edge.tolist()]
    node_cuts = np.cumsum(n_node)[:-1]
    edge_cuts = np.cumsum(n_edge)[:-1]

    def split(tree: Any, cuts: Any, count: int) -> list:
        if tree is None:
            return [None] * count
        pieces = {id(leaf): xp.split(leaf, cuts.tolist()) for leaf in tree_leaves(tree)}
        return [tree_map(lambda leaf, i=i: pieces[id(leaf)][i], tree) for i in range(count)]

    g = shape.num_graphs
    senders = receivers = [None] * g
    if graph.senders is not None:
        # each graph's first node (no graphs: none; [0] would not match n_edge's length)
        starts = xp.asarray(np.cumsum([0] + n_node[:-1], dtype=np.int64)[: len(n_node)])
        shift = repeat_counts(xp, starts, graph.n_edge)
        local = {name: getattr(graph, name) - shift for name in ("senders", "receivers")}
        if shape.num_edges:  # an edge joining two graphs would get an id outside its graph
            bounds = repeat_counts(xp, graph.n_node.astype(np.int64), graph.n_edge)
            for name, ids in local.items():
                bad = (ids < 0) | (ids >= bounds)
                if bool(bad.any()):
                    at = int(xp.argmax(bad))
                    owner = int(np.searchsorted(np.cumsum(n_edge), at, "right"))
                    first = int(sum(n_node[:owner]))
                    raise ValueError(
                        f"unbatch: graph {owner}'s {name} has entry "
                        f"{int(getattr(graph, name)[at])}, outside its nodes [{first}, "
                        f"{first + n_node[owner]}) (edge {at} joins two graphs)"
                    )
        senders = xp.split(local["senders"].astype(graph.senders.dtype), edge_cuts.tolist())
        receivers = xp.split(local["receivers"].astype(graph.receivers.dtype), edge_cuts.tolist())
    nodes = split(graph.nodes, node_cuts, g)
    edges = split(graph.edges, edge_cuts, g)
    globals_ = split(graph.globals, np.arange(1, g), g)
    return [
        GraphsTuple(
            nodes[i],
            edges[i],
            receivers[i],
            senders[i],
            globals_[i],
            graph.n_node[i : i + 1],
            graph.n_edge[i : i + 1],
        )
        for i in range(g)
    ]


batch_np = batch
"""jraph's NumPy ``batch``: the same function here (the arrays are NumPy or CuPy already)."""
unbatch_np = unbatch
"""jraph's NumPy ``unbatch``: the same function here."""


def pad_with_graphs(graph: GraphsTuple, n_node: int, n_edge: int, n_graph: int = 2) -> GraphsTuple:
    """``graph`` padded to exactly ``n_node`` nodes, ``n_edge`` edges and ``n_graph``
    graphs (see the RULE lines). ``ValueError`` for ``n_graph < 2``; ``RuntimeError``, as
    jraph, when the graph does not leave room for the padding.

    >>> import numpy as np
    >>> g = GraphsTuple(np.ones(2), None, np.array([1]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> pad_with_graphs(g, 3, 2).nodes.tolist()
    [1.0, 1.0, 0.0]
    """
    n_node, n_edge, n_graph = (
        _size("pad_with_graphs", name, value)
        for name, value in (("n_node", n_node), ("n_edge", n_edge), ("n_graph", n_graph))
    )
    if n_graph < 2:
        raise ValueError(
            f"pad_with_graphs: n_graph is {n_graph}, which is smaller than 2 "
            "(one graph for the data, one for the padding)"
        )
    return _pad(check_graphs_tuple(graph, "pad_with_graphs"), graph, n_node, n_edge, n_graph)


def _pad(shape: GraphShape, graph: GraphsTuple, n_node: int, n_edge: int, n_graph: int) -> Any:
    """:func:`pad_with_graphs` of a graph already checked (``shape`` its totals)."""
    xp = shape.xp
    pad_nodes = int(n_node) - shape.num_nodes
    pad_edges = int(n_edge) - shape.num_edges
    pad_graphs = int(n_graph) - shape.num_graphs
    if pad_nodes <= 0 or pad_edges < 0 or pad_graphs <= 0:
        raise RuntimeError(
            "pad_with_graphs: the graph is too large for the padding (it needs at least one "
            f"padding node and one padding graph): n_node {shape.num_nodes} of {n_node}, "
            f"n_edge {shape.num_edges} of {n_edge}, n_graph {shape.num_graphs} of {n_graph}"
        )

    def padded(rows: int, pad: int) -> Callable[[Any], Any]:
        return lambda leaf: _concat(xp, [leaf], rows, pad)

    senders = receivers = None
    if graph.senders is not None or pad_edges:

        def padded_ids(ids: Any) -> Any:
            # each its own dtype (as _batch for dynamically_batch), from the target
            dtype = ids.dtype if ids is not None else np.dtype(np.int32)
            if not _fits(dtype, int(n_node) - 1):  # one dtype for all batches
                dtype = np.dtype(np.int64)
            ids = xp.zeros(0, dtype=dtype) if ids is None else ids
            return _concat(xp, [ids], shape.num_edges, pad_edges, shape.num_nodes, dtype)

        senders, receivers = padded_ids(graph.senders), padded_ids(graph.receivers)
    return GraphsTuple(
        nodes=tree_map(padded(shape.num_nodes, pad_nodes), graph.nodes),
        edges=tree_map(padded(shape.num_edges, pad_edges), graph.edges),
        receivers=receivers,
        senders=senders,
        globals=tree_map(padded(shape.num_graphs, pad_graphs), graph.globals),
        n_node=_counts_padded(xp, graph.n_node, pad_graphs, pad_nodes, int(n_node)),
        n_edge=_counts_padded(xp, graph.n_edge, pad_graphs, pad_edges, int(n_edge)),
    )


def get_number_of_padding_with_graphs_graphs(padded_graph: GraphsTuple) -> int:
    """Padding graphs of a graph padded by :func:`pad_with_graphs`: the trailing graphs
    without nodes plus the padding graph before them.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, None, None, None, np.array([2, 1, 0]), np.array([0, 0, 0]))
    >>> get_number_of_padding_with_graphs_graphs(g)
    2
    """
    n_node = padded_graph.n_node
    if n_node.shape[0] == 0:
        raise ValueError("get_number_of_padding_with_graphs_graphs: the graph has no graphs")
    xp = get_namespace(n_node)
    # trailing graphs without nodes: the first non-zero count from the end (int8: CuPy's
    # argmax is not defined on bools everywhere)
    return int(xp.argmax((n_node[::-1] != 0).astype(np.int8))) + 1


def get_number_of_padding_with_graphs_nodes(padded_graph: GraphsTuple) -> int:
    """Padding nodes of a graph padded by :func:`pad_with_graphs`.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, None, None, None, np.array([2, 1, 0]), np.array([0, 0, 0]))
    >>> get_number_of_padding_with_graphs_nodes(g)
    1
    """
    return int(padded_graph.n_node[-get_number_of_padding_with_graphs_graphs(padded_graph)])


def get_number_of_padding_with_graphs_edges(padded_graph: GraphsTuple) -> int:
    """Padding edges of a graph padded by :func:`pad_with_graphs`.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, None, None, None, np.array([2, 1, 0]), np.array([3, 4, 0]))
    >>> get_number_of_padding_with_graphs_edges(g)
    4
    """
    return int(padded_graph.n_edge[-get_number_of_padding_with_graphs_graphs(padded_graph)])


def unpad_with_graphs(padded_graph: GraphsTuple) -> GraphsTuple:
    """``padded_graph`` without the padding :func:`pad_with_graphs` added (views).

    >>> import numpy as np
    >>> g = GraphsTuple(np.ones(2), None, np.array([1]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> unpad_with_graphs(pad_with_graphs(g, 5, 4, 3)).n_node.tolist()
    [2]
    """
    shape = check_graphs_tuple(padded_graph, "unpad_with_graphs", ids=False)
    graphs = get_number_of_padding_with_graphs_graphs(padded_graph)
    nodes = shape.num_nodes - get_number_of_padding_with_graphs_nodes(padded_graph)
    edges = shape.num_edges - get_number_of_padding_with_graphs_edges(padded_graph)
    keep = shape.num_graphs - graphs
    return GraphsTuple(
        nodes=tree_map(lambda x: x[:nodes], padded_graph.nodes),
        edges=tree_map(lambda x: x[:edges], padded_graph.edges),
        receivers=None if padded_graph.receivers is None else padded_graph.receivers[:edges],
        senders=None if padded_graph.senders is None else padded_graph.senders[:edges],
        globals=tree_map(lambda x: x[:keep], padded_graph.globals),
        n_node=padded_graph.n_node[:keep],
        n_edge=padded_graph.n_edge[:keep],
    )


def _mask(xp: Any, padding: int, total: int) -> Any:
    return xp.arange(total) < total - padding


def get_node_padding_mask(padded_graph: GraphsTuple) -> Any:
    """Bool [total nodes]: True for real nodes, False for padding nodes. (jraph needs node
    features to know the total; here ``n_node`` gives it when there are none.)

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, None, None, None, np.array([2, 1]), np.array([0, 0]))
    >>> get_node_padding_mask(g).tolist()
    [True, True, False]
    """
    leaves = tree_leaves(padded_graph.nodes)
    xp = get_namespace(padded_graph.n_node)
    total = int(leaves[0].shape[0]) if leaves else int(padded_graph.n_node.sum())
    return _mask(xp, get_number_of_padding_with_graphs_nodes(padded_graph), total)


def get_edge_padding_mask(padded_graph: GraphsTuple) -> Any:
    """Bool [total edges]: True for real edges, False for padding edges.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.zeros(3, int), np.zeros(3, int), None,
    ...                 np.array([2, 1]), np.array([2, 1]))
    >>> get_edge_padding_mask(g).tolist()
    [True, True, False]
    """
    xp = get_namespace(padded_graph.n_node)
    total = (
        int(padded_graph.senders.shape[0])
        if padded_graph.senders is not None
        else int(padded_graph.n_edge.sum())
    )
    return _mask(xp, get_number_of_padding_with_graphs_edges(padded_graph), total)


def get_graph_padding_mask(padded_graph: GraphsTuple) -> Any:
    """Bool [graphs]: True for real graphs, False for padding graphs.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, None, None, None, np.array([2, 1, 0]), np.array([0, 0, 0]))
    >>> get_graph_padding_mask(g).tolist()
    [True, False, False]
    """
    xp = get_namespace(padded_graph.n_node)
    total = int(padded_graph.n_node.shape[0])
    return _mask(xp, get_number_of_padding_with_graphs_graphs(padded_graph), total)


def zero_out_padding(graph: GraphsTuple) -> GraphsTuple:
    """``graph`` with every padding row of its features set to 0 (see the RULE lines).

    >>> import numpy as np
    >>> g = GraphsTuple(np.array([1.0, np.nan]), None, None, None, None,
    ...                 np.array([1, 1]), np.array([0, 0]))
    >>> zero_out_padding(g).nodes.tolist()
    [1.0, 0.0]
    """
    xp = check_graphs_tuple(graph, "zero_out_padding", ids=False).xp

    def zeroed(mask: Any) -> Callable[[Any], Any]:
        def apply(x: Any) -> Any:
            keep = mask.reshape(mask.shape + (1,) * (x.ndim - 1))
            return xp.where(keep, x, xp.zeros((), dtype=x.dtype))

        return apply

    edges = graph.edges
    if tree_leaves(edges):
        edges = tree_map(zeroed(get_edge_padding_mask(graph)), edges)
    return graph._replace(
        nodes=tree_map(zeroed(get_node_padding_mask(graph)), graph.nodes),
        edges=edges,
        globals=tree_map(zeroed(get_graph_padding_mask(graph)), graph.globals),
    )


def with_zero_out_padding_outputs(
    graph_net: Callable[[GraphsTuple], GraphsTuple],
) -> Callable[[GraphsTuple], GraphsTuple]:
    """``graph_net`` followed by :func:`zero_out_padding` on its output.

    >>> import numpy as np
    >>> g = GraphsTuple(np.array([1.0, 5.0]), None, None, None, None,
    ...                 np.array([1, 1]), np.array([0, 0]))
    >>> with_zero_out_padding_outputs(lambda x: x)(g).nodes.tolist()
    [1.0, 0.0]
    """

    @functools.wraps(graph_net)
    def wrapper(graph: GraphsTuple) -> GraphsTuple:
        return zero_out_padding(graph_net(graph))

    return wrapper


def get_fully_connected_graph(
    n_node_per_graph: int,
    n_graph: int,
    node_features: Any = None,
    global_features: Any = None,
    add_self_edges: bool = True,
) -> GraphsTuple:
    """``n_graph`` complete graphs of ``n_node_per_graph`` nodes each (jraph's edge order:
    by receiver, then sender; without self edges receiver ``i`` hears ``i+1, ..., i-1``).

    >>> g = get_fully_connected_graph(3, 1, add_self_edges=False)
    >>> g.senders.tolist(), g.receivers.tolist()
    ([1, 2, 2, 0, 0, 1], [0, 0, 1, 1, 2, 2])
    """
    n, g = (
        _size("get_fully_connected_graph", name, value)
        for name, value in (("n_node_per_graph", n_node_per_graph), ("n_graph", n_graph))
    )
    for name, value in (("n_node_per_graph", n), ("n_graph", g)):
        if value < 0:
            raise ValueError(f"get_fully_connected_graph: {name} must be >= 0, got {value}")
    leaves = tree_leaves((node_features, global_features))
    xp = get_namespace(*leaves) if leaves else np
    node_leaves = tree_leaves(node_features)
    if node_leaves and int(node_leaves[0].shape[0]) != n * g:
        raise ValueError(
            f"get_fully_connected_graph: node_features have {node_leaves[0].shape[0]} rows, "
            f"not n_node_per_graph * n_graph = {n * g}"
        )
    global_leaves = tree_leaves(global_features)
    if global_leaves and int(global_leaves[0].shape[0]) != g:
        raise ValueError(
            f"get_fully_connected_graph: global_features have {global_leaves[0].shape[0]} "
            f"rows, not n_graph = {g}"
        )
    receivers = np.repeat(np.arange(n), n)
    senders = np.tile(np.arange(n), n)
    if not add_self_edges:
        # receiver i hears i+1, ..., n-1, 0, ..., i-1 (jraph rolls each row by -i)
        step = np.tile(np.arange(1, n), n)
        receivers = np.repeat(np.arange(n), max(n - 1, 0))
        senders = (receivers + step) % max(n, 1)
    per_graph = int(senders.shape[0])
    offsets = np.repeat(np.arange(g) * n, per_graph)
    return GraphsTuple(
        nodes=node_features,
        edges=None,
        receivers=xp.asarray(np.tile(receivers, g) + offsets),
        senders=xp.asarray(np.tile(senders, g) + offsets),
        globals=global_features,
        n_node=xp.full(g, n, dtype=np.int64),
        n_edge=xp.full(g, per_graph, dtype=np.int64),
    )


def _graph_size(graph: GraphsTuple) -> tuple[int, int, int]:
    """(nodes, edges, graphs) of a stream element, as jraph counts them (its ids are
    checked when its batch is made)."""
    graph = check_fields(graph, "dynamically_batch: element")
    num_graphs = int(graph.n_node.shape[0])
    nodes = int(graph.n_node.sum()) if num_graphs else 0
    edges = int(graph.n_edge.sum()) if num_graphs else 0
    return nodes, edges, num_graphs


def _flush(pending: list, sizes: tuple) -> GraphsTuple:
    return _batch(pending, sizes)


def dynamically_batch(
    graphs_tuple_iterator: Iterable[GraphsTuple], n_node: int, n_edge: int, n_graph: int
) -> Iterator[GraphsTuple]:
    """Greedily batch consecutive graphs while the batch fits ``n_node - 1`` nodes,
    ``n_edge`` edges and ``n_graph - 1`` graphs, and yield it padded to exactly those sizes
    (jraph's ``dynamically_batch``: a graph too large for any batch raises
    ``RuntimeError`` after the batch before it is yielded).

    >>> import numpy as np
    >>> g = GraphsTuple(np.ones(2), None, np.array([1]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> [b.n_node.tolist() for b in dynamically_batch([g] * 3, 5, 4, 3)]
    [[2, 2, 1], [2, 3, 0]]
    """
    # checked at the call, not when the first batch is asked for
    n_node, n_edge, n_graph = (
        _size("dynamically_batch", name, value)
        for name, value in (("n_node", n_node), ("n_edge", n_edge), ("n_graph", n_graph))
    )
    if n_graph < 2:
        raise ValueError(
            "dynamically_batch: the number of graphs in a batch must be at least 2 (one for "
            f"the padding), got {n_graph}"
        )
    return _dynamically_batch(graphs_tuple_iterator, n_node, n_edge, n_graph)


def _dynamically_batch(
    graphs_tuple_iterator: Iterable[GraphsTuple], n_node: int, n_edge: int, n_graph: int
) -> Iterator[GraphsTuple]:
    """:func:`dynamically_batch` after its sizes are checked (the generator)."""
    limit = (n_node - 1, n_edge, n_graph - 1)
    pending: list[GraphsTuple] = []
    used = (0, 0, 0)
    for element in graphs_tuple_iterator:
        size = _graph_size(element)
        if any(s > m for s, m in zip(size, limit)):
            if pending:
                yield _flush(pending, (n_node, n_edge, n_graph))
            raise RuntimeError(
                "dynamically_batch: found a graph bigger than the batch: valid batch size "
                f"(n_node, n_edge, n_graph) = {limit}, graph size = {size}"
            )
        grown = tuple(u + s for u, s in zip(used, size))
        if pending and any(g > m for g, m in zip(grown, limit)):
            yield _flush(pending, (n_node, n_edge, n_graph))
            pending, grown = [], size
        pending.append(element)
        used = grown
    if pending:
        yield _flush(pending, (n_node, n_edge, n_graph))
