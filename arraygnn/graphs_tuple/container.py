"""``GraphsTuple``: jraph's container of a batch of graphs, holding NumPy or CuPy arrays.

RULE: fields, order and meaning are jraph's: ``nodes``, ``edges``, ``receivers``,
      ``senders``, ``globals``, ``n_node``, ``n_edge``.
RULE: ``n_node`` / ``n_edge`` are integer vectors [G]; ``senders`` / ``receivers`` are
      integer vectors [sum(n_edge)] of absolute node ids in [0, sum(n_node)) (the edges of
      graph ``i`` come after those of graphs ``0 .. i-1``).
RULE: ``nodes`` / ``edges`` / ``globals`` are ``None`` or trees (dict / list / tuple) of
      arrays whose leading dimension is sum(n_node) / sum(n_edge) / G.
RULE: the functions of this package validate a graph before any kernel runs (shapes,
      dtypes, ids in range) and raise ``ValueError`` / ``TypeError`` naming the field.

As a namedtuple it is a JAX pytree as it stands, and ``jraph.GraphsTuple(*g)`` is the
same graph for jraph (:func:`arraygnn.graphs_tuple.to_jraph` also hands the arrays to JAX
without copying).

>>> import numpy as np
>>> g = GraphsTuple(nodes=np.zeros((3, 2)), edges=None, senders=np.array([0, 1]),
...                 receivers=np.array([1, 2]), globals=None, n_node=np.array([3]),
...                 n_edge=np.array([2]))
>>> g.n_node.tolist(), g.senders.tolist()
([3], [0, 1])
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from arraygnn._namespace import get_namespace, is_array, torch_hint
from arraygnn.graphs_tuple._tree import tree_leaves

__all__ = [
    "GraphShape",
    "GraphsTuple",
    "check_counts",
    "check_fields",
    "check_graphs_tuple",
    "check_leaves",
    "check_sizes",
]


def _array_hint(x: Any, convert: str = "arraygnn.graphs_tuple.from_jraph(graph)") -> str:
    """The tail of an error message for a JAX array (or torch tensor) where a NumPy / CuPy
    array was expected: how to convert it. Arrays are never converted behind the caller's
    back (DESIGN.md, "Arrays stay where they are"). Never imports JAX."""
    if type(x).__module__.split(".")[0] in ("jax", "jaxlib"):
        return f" (a JAX array: convert first with {convert}, which shares memory with JAX)"
    return torch_hint(x)


class GraphsTuple(NamedTuple):
    """A batch of graphs in jraph's layout (see the module's RULE lines).

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.array([0]), np.array([1]), None,
    ...                 np.array([2]), np.array([1]))
    >>> g.receivers.tolist()
    [0]
    """

    nodes: Any
    edges: Any
    receivers: Any
    senders: Any
    globals: Any
    n_node: Any
    n_edge: Any


class GraphShape(NamedTuple):
    """What :func:`check_graphs_tuple` learnt: the namespace and the totals."""

    xp: Any
    num_nodes: int
    num_edges: int
    num_graphs: int


def check_counts(where: str, name: str, value: Any) -> None:
    """An integer 1-D NumPy / CuPy array (``n_node``, ``n_edge``, ``senders``, ...)."""
    if not is_array(value):
        raise TypeError(
            f"{where}: {name} must be a NumPy or CuPy integer array, got "
            f"{type(value).__name__}{_array_hint(value)}"
        )
    if value.dtype.kind not in "iu" or value.dtype == np.bool_:
        raise TypeError(f"{where}: {name} must be an integer array, got dtype {value.dtype}")
    if value.ndim != 1:
        length = "num_graphs" if name in ("n_node", "n_edge") else "num_edges"
        raise ValueError(f"{where}: {name} must be 1-D [{length}], got shape {value.shape}")


def check_leaves(where: str, name: str, tree: Any, rows: int, what: str) -> None:
    """Every leaf of ``tree`` an array with ``rows`` rows (``what`` names the total)."""
    for i, leaf in enumerate(tree_leaves(tree)):
        label = name if not isinstance(tree, (dict, list, tuple)) else f"{name} (leaf {i})"
        if not is_array(leaf):
            raise TypeError(
                f"{where}: {label} must be a NumPy or CuPy array, got "
                f"{type(leaf).__name__}{_array_hint(leaf)}"
            )
        if leaf.ndim == 0 or leaf.shape[0] != rows:
            raise ValueError(
                f"{where}: {label} has shape {tuple(leaf.shape)}; its first dimension must be "
                f"{what} = {rows}"
            )


def check_fields(graph: Any, where: str = "graph") -> GraphsTuple:
    """The checks that need no totals: a 7-field namedtuple (jraph's own ``GraphsTuple``
    is taken too), integer 1-D ``n_node`` / ``n_edge`` of one length, ``senders`` /
    ``receivers`` both integer 1-D arrays or both ``None``. Returns it as a
    :class:`GraphsTuple`."""
    if not isinstance(graph, tuple) or len(graph) != 7 or not hasattr(graph, "_fields"):
        raise TypeError(f"{where}: expected a GraphsTuple, got {type(graph).__name__}")
    if not isinstance(graph, GraphsTuple):
        graph = GraphsTuple(*graph)
    check_counts(where, "n_node", graph.n_node)
    check_counts(where, "n_edge", graph.n_edge)
    if graph.n_node.shape[0] != graph.n_edge.shape[0]:
        raise ValueError(
            f"{where}: n_node has {graph.n_node.shape[0]} graphs but n_edge has "
            f"{graph.n_edge.shape[0]}; they must match"
        )
    if (graph.senders is None) != (graph.receivers is None):
        raise ValueError(f"{where}: senders and receivers must both be arrays or both None")
    if graph.senders is not None:
        check_counts(where, "senders", graph.senders)
        check_counts(where, "receivers", graph.receivers)
    return graph


def check_sizes(graph: GraphsTuple, where: str, num_nodes: int, num_edges: int) -> None:
    """Lengths of ``senders`` / ``receivers`` and of every feature leaf against the totals
    (``num_nodes`` = sum(n_node), ``num_edges`` = sum(n_edge))."""
    if graph.senders is None:
        if num_edges:
            raise ValueError(f"{where}: senders / receivers are None but sum(n_edge) = {num_edges}")
    else:
        for name in ("senders", "receivers"):
            length = getattr(graph, name).shape[0]
            if length != num_edges:
                raise ValueError(
                    f"{where}: {name} has {length} entries but sum(n_edge) = {num_edges}"
                )
    check_leaves(where, "nodes", graph.nodes, num_nodes, "sum(n_node)")
    check_leaves(where, "edges", graph.edges, num_edges, "sum(n_edge)")
    check_leaves(
        where, "globals", graph.globals, int(graph.n_node.shape[0]), "the number of graphs"
    )


def check_graphs_tuple(graph: Any, where: str = "graph", *, ids: bool = True) -> GraphShape:
    """Validate ``graph`` against the RULE lines and return its namespace and totals.

    ``ids=False`` skips the range check of ``senders`` / ``receivers`` (a min / max pass)
    for callers that check the ids themselves.

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.array([3]), np.array([0]), None,
    ...                 np.array([2]), np.array([1]))
    >>> check_graphs_tuple(g)
    Traceback (most recent call last):
    ...
    ValueError: graph: receivers has entry 3, out of range for sum(n_node) = 2
    """
    graph = check_fields(graph, where)
    ids_arrays = [] if graph.senders is None else [graph.senders, graph.receivers]
    xp = get_namespace(
        graph.n_node,
        graph.n_edge,
        *ids_arrays,
        *tree_leaves((graph.nodes, graph.edges, graph.globals)),
    )
    num_graphs = int(graph.n_node.shape[0])
    num_nodes = num_edges = 0
    if num_graphs:
        parts = xp.stack(
            [graph.n_node.sum(), graph.n_edge.sum(), graph.n_node.min(), graph.n_edge.min()]
        )
        num_nodes, num_edges, low_nodes, low_edges = (int(v) for v in parts.tolist())
        if low_nodes < 0 or low_edges < 0:
            raise ValueError(f"{where}: n_node and n_edge must be non-negative")
    check_sizes(graph, where, num_nodes, num_edges)
    if ids and num_edges:
        for name in ("senders", "receivers"):
            value = getattr(graph, name)
            lo, hi = (int(v) for v in xp.stack([value.min(), value.max()]).tolist())
            if lo < 0:
                raise ValueError(f"{where}: {name} has a negative entry ({lo})")
            if hi >= num_nodes:
                raise ValueError(
                    f"{where}: {name} has entry {hi}, out of range for sum(n_node) = {num_nodes}"
                )
    return GraphShape(xp, num_nodes, num_edges, num_graphs)
