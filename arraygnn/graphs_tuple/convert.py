"""``GraphsTuple`` to and from jraph (JAX arrays, shared where JAX can) and the PyG face.

RULE: ``to_jraph`` returns a ``jraph.GraphsTuple`` whose arrays JAX adopted without a copy
      where it can (as :func:`arraygnn.interop.to_jax`: 64-bit arrays are narrowed, a
      copy, unless ``jax_enable_x64`` is on); ``from_jraph`` the reverse, to NumPy (CPU)
      or CuPy (GPU) arrays.
RULE: ``from_data`` maps a ``Data`` / ``Batch`` as ``nodes = data[nodes]``,
      ``edges = data[edges]``, ``globals = data[globals]``, ``senders = edge_index[0]``,
      ``receivers = edge_index[1]``; a batch gives one graph per example (from ``ptr`` and
      its slice records), a ``Data`` one graph; ``n_node`` / ``n_edge`` are int32 when
      ``edge_index`` is (int64 otherwise), so padded batches of int32 graphs reach JAX
      without a copy. ``to_data_list`` is the reverse, one ``Data`` per graph (collate
      it with ``Batch.from_data_list``).

>>> import numpy as np
>>> from arraygnn.data import Data
>>> d = Data(x=np.ones((3, 1)), edge_index=np.array([[0, 1], [1, 2]]))
>>> g = from_data(d)
>>> g.n_node.tolist(), g.senders.tolist(), to_data_list(g)[0].edge_index.tolist()
([3], [0, 1], [[0, 1], [1, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygnn._alignment import aligned_empty
from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn.graphs_tuple.batching import unbatch
from arraygnn.graphs_tuple.container import GraphsTuple, check_graphs_tuple

__all__ = ["from_data", "from_jraph", "to_data_list", "to_jraph"]


def _import_jraph() -> Any:
    try:
        import jraph
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "to_jraph / from_jraph need jraph: pip install 'arraygnn[jraph]'"
        ) from err
    return jraph


def to_jraph(graph: GraphsTuple, *, strict: bool = False) -> Any:
    """``graph`` as a ``jraph.GraphsTuple`` of JAX arrays (see the RULE lines; ``strict``
    as in :func:`arraygnn.interop.to_jax`: raise instead of copying).

    >>> import numpy as np
    >>> g = GraphsTuple(np.ones((2, 1), np.float32), None, np.array([1], np.int32),
    ...                 np.array([0], np.int32), None, np.array([2], np.int32),
    ...                 np.array([1], np.int32))
    >>> type(to_jraph(g)).__module__  # doctest: +SKIP
    'jraph._src.graph'
    """
    from arraygnn.interop.jax import to_jax

    check_graphs_tuple(graph, "to_jraph")
    jraph = _import_jraph()
    # converted as a GraphsTuple (not a plain tuple) so that errors name the field
    return jraph.GraphsTuple(*to_jax(GraphsTuple(*graph), strict=strict))


def from_jraph(graph: Any, *, strict: bool = False) -> GraphsTuple:
    """A ``jraph.GraphsTuple`` (or any 7-field graphs tuple of JAX arrays) as a
    :class:`GraphsTuple` of NumPy / CuPy arrays, shared with JAX where possible.

    >>> import numpy as np
    >>> g = GraphsTuple(np.ones(2), None, None, None, None, np.array([2]), np.array([0]))
    >>> from_jraph(g).n_node.tolist()  # NumPy arrays pass through
    [2]
    """
    from arraygnn.interop.jax import from_jax

    if not isinstance(graph, tuple) or len(graph) != 7:
        raise TypeError(f"from_jraph: expected a jraph.GraphsTuple, got {type(graph).__name__}")
    out = GraphsTuple(*from_jax(GraphsTuple(*graph), strict=strict))
    check_graphs_tuple(out, "from_jraph")
    return out


def _get(where: str, data: Any, key: str | None, role: str) -> Any:
    if key is None:
        return None
    value = getattr(data, key, None)
    if value is None:
        raise ValueError(f"{where}: the {type(data).__name__} has no {key!r} (asked as {role})")
    return value


def from_data(
    data: Any,
    *,
    nodes: str | None = "x",
    edges: str | None = "edge_attr",
    globals: str | None = None,
) -> GraphsTuple:
    """A PyG-face ``Data`` or ``Batch`` as a :class:`GraphsTuple` (see the RULE lines).
    ``nodes`` / ``edges`` / ``globals`` name the attributes to carry (``None``: none);
    a missing default ``x`` / ``edge_attr`` gives ``None`` features, a missing named one
    is a ``ValueError``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> from arraygnn.batch import Batch
    >>> d = Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]))
    >>> from_data(Batch.from_data_list([d, d])).receivers.tolist()
    [1, 3]
    """
    from arraygnn.batch import Batch

    where = "from_data"
    edge_index = getattr(data, "edge_index", None)
    if not is_array(edge_index) or edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"{where}: the graph needs an edge_index array of shape [2, E]")
    xp = get_namespace(edge_index)
    features = {}
    for role, key, default in (
        ("nodes", nodes, "x"),
        ("edges", edges, "edge_attr"),
        ("globals", globals, None),
    ):
        if key is None or (key == default and getattr(data, key, None) is None):
            features[role] = None
        else:
            features[role] = _get(where, data, key, role)
    if isinstance(data, Batch):
        ptr = getattr(data, "ptr", None)
        edge_slices = getattr(data, "_slice_dict", {}).get("edge_index")
        if ptr is None or edge_slices is None:
            raise ValueError(f"{where}: the Batch has no ptr / edge_index slice records")
        bound = data.num_nodes  # no count exceeds it: known on the host
        if xp is np or bound is None:
            n_node = np.diff(np.asarray(to_numpy(ptr)))
            bound = None
        else:  # CuPy: the counts stay on the device (no read-back of ptr)
            n_node = xp.diff(ptr)
        n_edge = np.diff(np.asarray(edge_slices))
    else:
        num_nodes = bound = data.num_nodes
        if num_nodes is None:
            raise ValueError(f"{where}: the Data's num_nodes is unknown; set num_nodes or x")
        n_node = np.array([int(num_nodes)], dtype=np.int64)
        n_edge = np.array([int(edge_index.shape[1])], dtype=np.int64)
    graph = GraphsTuple(
        nodes=features["nodes"],
        edges=features["edges"],
        receivers=edge_index[1],
        senders=edge_index[0],
        globals=features["globals"],
        n_node=_counts(xp, n_node, edge_index.dtype, bound),
        n_edge=_counts(xp, n_edge, edge_index.dtype),
    )
    check_graphs_tuple(graph, where)
    return graph


def _counts(xp: Any, counts: Any, ids_dtype: np.dtype, bound: int | None = None) -> Any:
    """Counts in int32 next to int32 ids (int64 otherwise, or when they do not fit), 64-byte
    aligned on NumPy: padding keeps the counts' dtype, and JAX (x64 off) adopts aligned
    int32 counts without a copy where it would narrow int64 ones. ``counts`` are NumPy, or
    on the device with ``bound`` (a host-side upper bound, so nothing is read back)."""
    dtype = np.dtype(np.int32 if ids_dtype == np.int32 else np.int64)
    top = bound if bound is not None else (int(counts.max()) if counts.size else 0)
    if top > np.iinfo(dtype).max:
        dtype = np.dtype(np.int64)
    if xp is not np:
        return xp.asarray(counts).astype(dtype, copy=False)
    out = aligned_empty(counts.shape, dtype)
    out[...] = counts
    return out


def to_data_list(
    graph: GraphsTuple, *, nodes: str = "x", edges: str = "edge_attr", globals: str = "u"
) -> list:
    """One PyG-face ``Data`` per graph of ``graph``: ``edge_index = [senders, receivers]``,
    ``num_nodes`` set, array features under ``nodes`` / ``edges`` / ``globals`` (tree
    features: a ``TypeError``, flatten them first).

    >>> import numpy as np
    >>> g = GraphsTuple(None, None, np.array([0, 2]), np.array([1, 3]), None,
    ...                 np.array([2, 2]), np.array([1, 1]))
    >>> [d.edge_index.tolist() for d in to_data_list(g)]
    [[[1], [0]], [[1], [0]]]
    """
    from arraygnn.data import Data

    xp = check_graphs_tuple(graph, "to_data_list").xp
    for role in ("nodes", "edges", "globals"):
        value = getattr(graph, role)
        if value is not None and not is_array(value):
            raise TypeError(
                f"to_data_list: {role} is a {type(value).__name__} of arrays; Data holds one "
                "array per attribute: flatten the tree first"
            )
    out = []
    counts = graph.n_node.tolist()  # one read-back on CuPy, not one per graph
    for part, num_nodes in zip(unbatch(graph), counts):
        senders = part.senders if part.senders is not None else xp.zeros(0, np.int64)
        receivers = part.receivers if part.receivers is not None else xp.zeros(0, np.int64)
        attrs = {"edge_index": xp.stack([senders, receivers]), "num_nodes": int(num_nodes)}
        for role, key in (("nodes", nodes), ("edges", edges), ("globals", globals)):
            if getattr(part, role) is not None:
                attrs[key] = getattr(part, role)
        out.append(Data(**attrs))
    return out
