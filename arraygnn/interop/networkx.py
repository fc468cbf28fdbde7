"""NetworkX graphs <-> ``Data`` (PyG's functions) and <-> :class:`~arraygnn.graph.Graph` (DGL's).

- PyG: :func:`to_networkx` (``Data`` -> ``nx.DiGraph`` / ``nx.Graph`` / multigraphs) and
  :func:`from_networkx` (any NetworkX graph -> ``Data``), with PyG 2.8's arguments and
  meanings.
- DGL: :func:`graph_to_networkx` and :func:`graph_from_networkx`, DGL's ``dgl.to_networkx`` /
  ``dgl.from_networkx`` (named apart here because PyG's names come first; the DGL face
  exports them under DGL's names).

NetworkX lives on the host: arrays on a GPU (CuPy) are copied to host memory for it, and
graphs read from NetworkX are NumPy. NetworkX is optional: it is imported inside these
functions (``pip install 'arraygnn[networkx]'``).

RULE: node ``i`` of a ``Data`` / ``Graph`` is NetworkX node ``i``. Reading NetworkX, PyG's
      functions number nodes in ``G.nodes`` order and DGL's in sorted label order.
RULE: an undirected NetworkX graph is read as both directions of every edge
      (``G.to_directed()``), in both faces.
RULE: attribute values read from NetworkX become NumPy arrays when they are numeric, as
      ``torch.as_tensor`` makes tensors: Python floats become float32 (torch's default
      dtype), NumPy values keep their dtype, ints are int64, bools bool.

>>> import numpy as np
>>> from arraygnn.data import Data
>>> from arraygnn.interop.networkx import from_networkx, to_networkx
>>> data = Data(edge_index=np.array([[0, 1, 1], [1, 0, 2]]), num_nodes=4)
>>> G = to_networkx(data)
>>> type(G).__name__, G.number_of_nodes(), list(G.edges())
('DiGraph', 4, [(0, 1), (1, 0), (1, 2)])
>>> back = from_networkx(G)
>>> back.edge_index.tolist(), back.num_nodes
([[0, 1, 1], [1, 0, 2]], 4)
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import Any

import numpy as np

from arraygnn._namespace import is_array, is_cupy_array, to_numpy

__all__ = ["to_networkx", "from_networkx", "graph_to_networkx", "graph_from_networkx"]


def import_networkx() -> ModuleType:
    """Import NetworkX or raise an ImportError naming the extra to install."""
    try:
        import networkx
    except ImportError as err:
        raise ImportError(
            "NetworkX is required for this conversion: pip install 'arraygnn[networkx]'"
        ) from err
    return networkx


# ---------------------------------------------------------------------- values
def _host_list(value: Any) -> list[Any]:
    """Python values per row: ``tolist()`` of an array (host copy of CuPy), else the list."""
    if is_array(value):
        return to_numpy(value).tolist()
    return list(value)


def _plain(value: Any) -> Any:
    """A graph-level value as PyG hands it to NetworkX: arrays via ``tolist()``."""
    if is_array(value) or isinstance(value, np.generic):
        return to_numpy(value).tolist()
    return value


def _names(arg: Any, where: str) -> list[str]:
    """A list of attribute names from ``None`` / an iterable of str."""
    if arg is None:
        return []
    if isinstance(arg, str) or not isinstance(arg, Iterable):
        raise TypeError(f"{where} must be a list of attribute names, got {arg!r}")
    names = list(arg)
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"{where} must hold str names, got {n!r}")
    return names


def _numpy_wide(value: Any) -> bool:
    """Whether ``value`` holds a NumPy float64 / complex128 anywhere (then torch keeps 64 bits)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype in (np.float64, np.complex128) or value.dtype == object
    if is_cupy_array(value):
        return value.dtype in (np.float64, np.complex128)
    if isinstance(value, (list, tuple)):
        return any(_numpy_wide(v) for v in value)
    return False


def _as_array(value: Any) -> Any:
    """``value`` (a list of per-item values, or one graph-level value) as a NumPy array when
    it is numeric or bool, the way ``torch.as_tensor`` would read it; ``None`` otherwise."""
    if is_cupy_array(value):
        value = value.get()
    elif isinstance(value, (list, tuple)) and any(is_cupy_array(v) for v in value):
        value = [to_numpy(v) for v in value]
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        return None  # ragged or not numbers
    if arr.dtype.kind not in "biufc":
        return None
    if arr.dtype.kind == "f" and _has_huge_int(value):
        return None  # an int beyond int64 (torch.as_tensor overflows: PyG keeps the list)
    if arr.dtype in (np.float64, np.complex128) and not _numpy_wide(value):
        # Python floats: torch's default dtype (what PyG and DGL give)
        arr = arr.astype(np.float32 if arr.dtype == np.float64 else np.complex64)
    elif arr is value:
        arr = arr.copy()  # never share a NumPy attribute of the NetworkX graph
    return arr


def _has_huge_int(value: Any) -> bool:
    """Whether ``value`` holds a Python int outside int64 (NumPy would read it as a float)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -(2**63) <= value < 2**63
    if isinstance(value, (list, tuple)):
        return any(_has_huge_int(v) for v in value)
    return False


def _concat_like_torch(arrays: list[np.ndarray]) -> np.ndarray:
    """``torch.cat`` of 2-D arrays along the last dim, with torch's type promotion: the
    highest category present (bool < integer < float < complex) wins, so an int64 and a
    float32 column give float32 (NumPy alone would give float64)."""
    category = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
    top = max(category[a.dtype.kind] for a in arrays)
    dtype = np.result_type(*[a.dtype for a in arrays if category[a.dtype.kind] == top])
    return np.concatenate([a.astype(dtype, copy=False) for a in arrays], axis=-1)


def _directed_edges(G: Any) -> Iterable[tuple[Any, Any, dict[str, Any]]]:
    """``G.to_directed().edges(data=True)`` without copying the graph: an undirected edge
    comes once from each end, in adjacency order (what ``to_directed`` builds)."""
    if G.is_directed():
        yield from G.edges(data=True)
    elif G.is_multigraph():
        for u, nbrs in G.adj.items():
            for v, keyed in nbrs.items():
                for attrs in keyed.values():
                    yield u, v, attrs
    else:
        for u, nbrs in G.adj.items():
            for v, attrs in nbrs.items():
                yield u, v, attrs


# ---------------------------------------------------------------------- PyG face
def to_networkx(
    data: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    graph_attrs: Iterable[str] | None = None,
    to_undirected: bool | str | None = False,
    to_multi: bool = False,
    remove_self_loops: bool = False,
) -> Any:
    """A NetworkX graph of a ``Data`` (PyG's ``torch_geometric.utils.to_networkx``).

    Nodes are ``0 .. data.num_nodes - 1`` (isolated ones included), added in order; edges
    are added in ``edge_index`` order. ``node_attrs`` / ``edge_attrs`` name arrays with one
    row per node / edge, stored per node / edge as Python values (``row.tolist()``);
    ``graph_attrs`` go to ``G.graph`` (arrays as lists).

    - ``to_undirected=False``: an ``nx.DiGraph``. ``True``: an ``nx.Graph`` holding every
      edge (the attributes of a later ``(v, u)`` overwrite those of ``(u, v)``, as in
      NetworkX); ``"upper"`` / ``"lower"``: only the edges with ``u <= v`` / ``u >= v``.
    - ``to_multi=True``: ``nx.MultiDiGraph`` / ``nx.MultiGraph``, keeping parallel edges
      (otherwise NetworkX merges them, the last one's attributes winning).
    - ``remove_self_loops=True``: edges ``u -> u`` are left out.

    ``data.num_nodes`` must be known (``num_nodes``, ``x`` or ``pos``; never guessed from
    ``edge_index``). A ``Data`` without ``edge_index`` has no edges. CuPy arrays are copied to
    the host (NetworkX is host-only).

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> d = Data(x=np.array([[1.0], [2.0], [3.0]]), edge_index=np.array([[0, 2], [2, 0]]))
    >>> G = to_networkx(d, node_attrs=["x"], to_undirected=True)
    >>> type(G).__name__, list(G.edges()), G.nodes[2]
    ('Graph', [(0, 2)], {'x': [3.0]})
    """
    nx = import_networkx()
    from arraygnn.data import Data, check_index_range

    where = "to_networkx"
    if not isinstance(data, Data):
        raise TypeError(f"{where} expects an arraygnn Data, got {type(data).__name__}")
    if isinstance(to_undirected, str):
        if to_undirected not in ("upper", "lower"):
            raise ValueError(
                f"{where}: to_undirected must be a bool, 'upper' or 'lower', got {to_undirected!r}"
            )
    elif to_undirected is not None and not isinstance(to_undirected, (bool, np.bool_)):
        raise TypeError(
            f"{where}: to_undirected must be a bool, 'upper' or 'lower', got {to_undirected!r}"
        )
    upper, lower = to_undirected == "upper", to_undirected == "lower"
    undirected = upper or lower or to_undirected is True or to_undirected is np.True_
    node_keys = _names(node_attrs, f"{where}: node_attrs")
    edge_keys = _names(edge_attrs, f"{where}: edge_attrs")
    graph_keys = _names(graph_attrs, f"{where}: graph_attrs")

    n = data.num_nodes
    if n is None:
        raise ValueError(
            f"{where}: data.num_nodes is unknown; set data.num_nodes or data.x (it is never "
            "guessed from edge_index.max() + 1)"
        )
    ei = data["edge_index"] if "edge_index" in data else None
    if ei is None:
        src, dst = [], []
    else:
        if not is_array(ei) or ei.ndim != 2 or ei.shape[0] != 2:
            raise ValueError(f"{where}: data.edge_index must be an integer array of shape [2, E]")
        check_index_range(ei, n, f"{where}: data.edge_index")
        src, dst = to_numpy(ei).tolist()
    num_edges = len(src)

    def column(key: str, rows: int, kind: str) -> list[Any]:
        if key not in data:
            raise ValueError(
                f"{where}: {kind}_attrs names {key!r}, which data does not have "
                f"(keys: {data.keys()})"
            )
        value = data[key]
        if is_array(value):
            size = value.shape[0] if value.ndim else None
        else:
            size = len(value) if isinstance(value, (list, tuple)) else None
        if size != rows:
            raise ValueError(
                f"{where}: {kind}_attrs {key!r} must have one entry per {kind} ({rows}), "
                f"got {_shape(value)}"
            )
        return _host_list(value)

    if undirected:
        G = nx.MultiGraph() if to_multi else nx.Graph()
    else:
        G = nx.MultiDiGraph() if to_multi else nx.DiGraph()
    for key in graph_keys:
        if key not in data:
            raise ValueError(f"{where}: graph_attrs names {key!r}, which data does not have")
        G.graph[key] = _plain(data[key])

    node_cols = {key: column(key, n, "node") for key in node_keys}
    G.add_nodes_from((i, {k: col[i] for k, col in node_cols.items()}) for i in range(n))
    edge_cols = {key: column(key, num_edges, "edge") for key in edge_keys}

    def edges() -> Iterable[tuple[int, int, dict[str, Any]]]:
        for i, (v, w) in enumerate(zip(src, dst)):
            if (upper and v > w) or (lower and v < w) or (remove_self_loops and v == w):
                continue
            yield v, w, {k: col[i] for k, col in edge_cols.items()}

    G.add_edges_from(edges())
    return G


def _shape(value: Any) -> str:
    if is_array(value):
        return f"shape {list(value.shape)}"
    if isinstance(value, (list, tuple)):
        return f"length {len(value)}"
    return f"a {type(value).__name__}"


def from_networkx(
    G: Any,
    group_node_attrs: list[str] | str | None = None,
    group_edge_attrs: list[str] | str | None = None,
) -> Any:
    """A ``Data`` from a NetworkX graph (PyG's ``torch_geometric.utils.from_networkx``).

    Nodes are numbered ``0 .. N-1`` in ``G.nodes`` order; ``edge_index`` (int64) lists
    ``G.edges()`` in order, an undirected graph giving both directions of each edge
    (``G.to_directed()``), a multigraph one column per parallel edge. Every node must have
    the same attribute names (else ``ValueError``), every edge too; each becomes a key of the
    result (an edge attribute named like a node attribute is stored as ``edge_<name>``, a
    graph attribute as ``graph_<name>``), graph attributes of ``G.graph`` too
    (``node_default`` / ``edge_default`` skipped). Numeric values become NumPy arrays (see
    the module's rule on dtypes); others (strings, objects, ragged lists) stay lists.

    ``group_node_attrs`` / ``group_edge_attrs`` (a list of names, or ``"all"``) concatenate
    those attributes, each as ``[N, d]`` (a scalar per node as one column), into ``x`` /
    ``edge_attr`` and drop them as separate keys; dtypes promote as ``torch.cat`` does.
    ``num_nodes`` is set unless ``x`` or ``pos`` gives it (as PyG).

    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_node("a", feat=[1.0, 0.0])
    >>> G.add_node("b", feat=[0.0, 1.0])
    >>> G.add_edge("a", "b", weight=2.0)
    >>> d = from_networkx(G, group_node_attrs=["feat"])
    >>> d.edge_index.tolist(), d.x.dtype, d.weight.tolist()
    ([[0, 1], [1, 0]], dtype('float32'), [2.0, 2.0])
    """
    nx = import_networkx()
    from arraygnn.data import Data

    where = "from_networkx"
    if not isinstance(G, nx.Graph):
        raise TypeError(f"{where}: G must be a NetworkX graph, got {type(G).__name__}")
    groups: dict[str, Any] = {}
    for name, arg in (
        ("group_node_attrs", group_node_attrs),
        ("group_edge_attrs", group_edge_attrs),
    ):
        if arg is None or (isinstance(arg, str) and arg == "all"):
            groups[name] = arg
        elif isinstance(arg, str) or not isinstance(arg, Iterable):
            raise TypeError(f"{where}: {name} must be a list of names, 'all' or None, got {arg!r}")
        else:
            groups[name] = _names(arg, f"{where}: {name}")

    mapping = {v: i for i, v in enumerate(G.nodes())}
    num_nodes = len(mapping)
    triples = list(_directed_edges(G))
    pairs = [(mapping[u], mapping[v]) for u, v, _ in triples]
    edge_index = np.array(pairs, dtype=np.int64).reshape(-1, 2).T.copy()

    node_attrs: list[Any] = []
    if num_nodes:
        node_attrs = list(next(iter(G.nodes(data=True)))[-1].keys())
    edge_attrs: list[Any] = list(triples[0][2].keys()) if triples else []

    values: dict[str, Any] = {"edge_index": edge_index}
    lists: dict[str, list[Any]] = {}
    node_set = set(node_attrs)
    for _, feat in G.nodes(data=True):
        if set(feat) != node_set:
            raise ValueError(f"{where}: not all nodes of G have the same attributes")
        for key, value in feat.items():
            lists.setdefault(str(key), []).append(value)
    edge_set = set(edge_attrs)
    edge_names: dict[Any, str] = {k: f"edge_{k}" if k in node_set else str(k) for k in edge_attrs}
    for _, _, feat in triples:
        if set(feat) != edge_set:
            raise ValueError(f"{where}: not all edges of G have the same attributes")
        for key, value in feat.items():
            lists.setdefault(edge_names[key], []).append(value)
    for key, items in lists.items():
        if key == "edge_index":
            raise ValueError(f"{where}: a node or edge attribute of G is named 'edge_index'")
        arr = _as_array(items)
        values[key] = items if arr is None else arr
    edge_keys = set(edge_names.values())
    for key, value in G.graph.items():
        if key in ("node_default", "edge_default"):
            continue  # NetworkX's defaults, not data (PyG skips them too)
        name = f"graph_{key}" if key in node_set else str(key)
        if name in edge_keys or name == "edge_index":
            raise ValueError(
                f"{where}: graph attribute {key!r} of G has the name of an edge attribute "
                f"({name!r}); rename one of them"
            )
        arr = _as_array(value)
        values[name] = value if arr is None else arr

    for arg, attrs, target, rename in (
        ("group_node_attrs", node_attrs, "x", {}),
        ("group_edge_attrs", edge_attrs, "edge_attr", edge_names),
    ):
        group = groups[arg]
        if group is None:
            continue
        keys = (
            [rename.get(k, str(k)) for k in attrs]
            if group == "all"
            else [rename.get(k, k) for k in group]
        )
        if not keys:
            continue  # nothing to concatenate ("all" of a graph without attributes)
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise ValueError(f"{where}: {arg} names {twice} more than once")
        columns = []
        for key in keys:
            value = values.get(key)
            if value is None or not isinstance(value, np.ndarray):
                problem = "is not an attribute of G" if key not in values else "is not numeric"
                raise ValueError(f"{where}: {arg} names {key!r}, which {problem}")
            columns.append(value.reshape(-1, 1) if value.ndim <= 1 else value)
        try:
            joined = _concat_like_torch(columns)
        except ValueError as err:
            raise ValueError(f"{where}: cannot concatenate {arg} {keys}: {err}") from None
        for key in keys:  # as PyG: the grouped keys go, the result comes last
            del values[key]
        values[target] = joined

    values.pop("num_nodes", None)  # an attribute of that name: PyG sets the count over it
    data = Data(**values)
    if "x" not in values and "pos" not in values:  # as PyG: set unless x or pos gives it
        data.num_nodes = num_nodes
    return data


# ---------------------------------------------------------------------- DGL face
def graph_to_networkx(
    g: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    ntype_attr: str = "ntype",
    etype_attr: str = "etype",
    eid_attr: str = "id",
) -> Any:
    """An ``nx.MultiDiGraph`` of a :class:`~arraygnn.graph.Graph` (DGL's ``dgl.to_networkx``).

    Every edge keeps its id as the edge attribute ``eid_attr`` (``"id"``); parallel edges
    stay. ``node_attrs`` / ``edge_attrs`` name features of ``g.ndata`` / ``g.edata``, stored
    per node / edge as that node's row (a NumPy array; a NumPy scalar for 1-D features),
    rows of a private host copy: NetworkX never shares memory with ``g``.

    A heterogeneous graph is numbered as ``to_homogeneous`` numbers it (node types in
    ``g.ntypes`` order, edge types in ``g.canonical_etypes`` order); each node gets its type
    as ``ntype_attr``, each edge its canonical type as ``etype_attr``, and features are taken
    from the types that have them. Blocks are not supported. A CuPy graph is copied to the
    host (DGL asks for ``g.cpu()`` first).

    >>> import numpy as np
    >>> from arraygnn.graph import graph
    >>> g = graph((np.array([1, 2]), np.array([1, 3])))
    >>> g.edata["h"] = np.array([10.0, 20.0])
    >>> G = graph_to_networkx(g, edge_attrs=["h"])
    >>> type(G).__name__, G.number_of_nodes(), list(G.edges(data="id"))
    ('MultiDiGraph', 4, [(1, 1, 0), (2, 3, 1)])
    >>> G.edges[2, 3, 0]["h"]
    np.float64(20.0)
    """
    nx = import_networkx()
    from arraygnn.graph.core import check_graph

    where = "graph_to_networkx"
    check_graph(where, g)
    if g.is_block:
        raise ValueError(f"{where}: blocks are not supported; convert a graph")
    node_keys = _names(node_attrs, f"{where}: node_attrs")
    edge_keys = _names(edge_attrs, f"{where}: edge_attrs")
    for name, value in (("ntype_attr", ntype_attr), ("etype_attr", etype_attr),
                        ("eid_attr", eid_attr)):  # fmt: skip
        if not isinstance(value, str):
            raise TypeError(f"{where}: {name} must be a str, got {value!r}")
    hetero = not g.is_homogeneous
    reserved = {eid_attr: "eid_attr"}
    if hetero:
        reserved.update({etype_attr: "etype_attr"})
        if ntype_attr in node_keys:
            raise ValueError(f"{where}: node_attrs names {ntype_attr!r}, used by ntype_attr")
    for key in edge_keys:
        if key in reserved:
            raise ValueError(f"{where}: edge_attrs names {key!r}, used by {reserved[key]}")

    def rows(frame: Any, keys: list[str], kind: str) -> dict[str, list[Any]]:
        out = {}
        for key in keys:
            if key not in frame:
                if hetero:
                    continue  # DGL: features are taken from the types that have them
                raise ValueError(f"{where}: {kind}_attrs names {key!r}, which g.{kind[0]}data "
                                 f"does not have (features: {sorted(frame)})")  # fmt: skip
            host = np.array(to_numpy(frame[key]), copy=True)
            out[key] = list(host)
        return out

    G = nx.MultiDiGraph()
    offsets = {}
    start = 0
    for t in g.ntypes:
        offsets[t] = start
        cols = rows(g._src_frames[t], node_keys, "node")
        n = g._num_src[t]
        if hetero:
            G.add_nodes_from(
                (start + i, {ntype_attr: t, **{k: c[i] for k, c in cols.items()}}) for i in range(n)
            )
        else:
            G.add_nodes_from((start + i, {k: c[i] for k, c in cols.items()}) for i in range(n))
        start += n
    eid = 0
    for c, rel in g._rels.items():
        s, _, d = c
        src = (to_numpy(rel.src) + offsets[s]).tolist() if hetero else to_numpy(rel.src).tolist()
        dst = (to_numpy(rel.dst) + offsets[d]).tolist() if hetero else to_numpy(rel.dst).tolist()
        cols = rows(rel.frame, edge_keys, "edge")
        extra = {etype_attr: c} if hetero else {}
        G.add_edges_from(
            (u, v, {eid_attr: eid + i, **extra, **{k: col[i] for k, col in cols.items()}})
            for i, (u, v) in enumerate(zip(src, dst))
        )
        eid += rel.num_edges
    return G


def graph_from_networkx(
    nx_graph: Any,
    node_attrs: Iterable[str] | None = None,
    edge_attrs: Iterable[str] | None = None,
    edge_id_attr_name: str | None = None,
    idtype: Any = None,
) -> Any:
    """A homogeneous :class:`~arraygnn.graph.Graph` from a NetworkX graph (DGL's
    ``dgl.from_networkx``).

    Nodes are relabelled ``0 .. N-1`` in **sorted** label order (DGL's
    ``convert_node_labels_to_integers(ordering="sorted")``; labels must be sortable); an
    undirected graph gives both directions of every edge. Edge ids follow the edges of the
    relabelled graph, or the integer edge attribute ``edge_id_attr_name`` (a permutation of
    ``0 .. E-1``; directed graphs only). ``node_attrs`` / ``edge_attrs`` name attributes
    every node / edge has, stored in ``g.ndata`` / ``g.edata`` as NumPy arrays (see the
    module's rule on dtypes; non-numeric values are a ``ValueError``). Unlike DGL,
    ``edge_attrs`` of an undirected graph are allowed: both directions get the edge's value.
    ``idtype``: int32 / int64 (default int64), as :func:`arraygnn.interop.scipy.from_scipy`.

    >>> import networkx as nx
    >>> G = nx.DiGraph()
    >>> G.add_nodes_from([0, 1, 2])
    >>> G.add_edge(1, 2, w=1.0, eid=1)
    >>> G.add_edge(2, 1, w=2.0, eid=0)
    >>> g = graph_from_networkx(G, edge_attrs=["w"], edge_id_attr_name="eid")
    >>> [a.tolist() for a in g.edges()], g.edata["w"].tolist()
    ([[2, 1], [1, 2]], [2.0, 1.0])
    """
    nx = import_networkx()
    from arraygnn.graph.core import DEFAULT_ETYPE, DEFAULT_NTYPE, Graph
    from arraygnn.interop.scipy import _check_fits, _check_idtype

    where = "graph_from_networkx"
    if not isinstance(nx_graph, nx.Graph):
        raise TypeError(
            f"{where}: nx_graph must be a NetworkX graph, got {type(nx_graph).__name__}"
        )
    node_keys = _names(node_attrs, f"{where}: node_attrs")
    edge_keys = _names(edge_attrs, f"{where}: edge_attrs")
    dt = _check_idtype(idtype, where)
    if edge_id_attr_name is not None:
        if not isinstance(edge_id_attr_name, str):
            raise TypeError(f"{where}: edge_id_attr_name must be a str, got {edge_id_attr_name!r}")
        if not nx_graph.is_directed():
            raise ValueError(
                f"{where}: edge_id_attr_name needs a directed graph (an undirected edge is two "
                "directed edges with one id)"
            )
    try:
        H = nx.convert_node_labels_to_integers(nx_graph, ordering="sorted")
    except TypeError as err:
        raise TypeError(
            f"{where}: the node labels of nx_graph must be sortable (DGL numbers nodes in "
            f"sorted label order): {err}"
        ) from None
    if not H.is_directed():
        H = H.to_directed()
    n = H.number_of_nodes()
    triples = list(H.edges(data=True))
    num_edges = len(triples)
    _check_fits(dt, (n, num_edges), where)
    order = list(range(num_edges))
    if edge_id_attr_name is not None and num_edges:
        ids = []
        for _, _, attrs in triples:
            if edge_id_attr_name not in attrs:
                raise ValueError(
                    f"{where}: an edge of nx_graph has no attribute edge_id_attr_name="
                    f"{edge_id_attr_name!r}"
                )
            ids.append(np.asarray(to_numpy(attrs[edge_id_attr_name])).reshape(-1))
        # one integer per edge (DGL takes int(value): 3, np.int64(3), np.array([3]))
        ok = all(a.shape == (1,) and a.dtype.kind in "iu" for a in ids)
        ids_arr = np.concatenate(ids) if ok else np.zeros(0, np.int64)
        if not ok or not np.array_equal(np.sort(ids_arr), np.arange(num_edges)):
            raise ValueError(
                f"{where}: the edge attribute edge_id_attr_name={edge_id_attr_name!r} must "
                f"hold each integer id 0 .. {num_edges - 1} once"
            )
        order = np.argsort(ids_arr, kind="stable").tolist()
    pairs = np.array([(triples[i][0], triples[i][1]) for i in order], dtype=dt).reshape(-1, 2)
    canonical = (DEFAULT_NTYPE, DEFAULT_ETYPE, DEFAULT_NTYPE)
    g = Graph({canonical: (pairs[:, 0].copy(), pairs[:, 1].copy())}, {DEFAULT_NTYPE: n})

    for key in node_keys:
        try:
            items = [H.nodes[i][key] for i in range(n)]
        except KeyError:
            raise ValueError(
                f"{where}: node_attrs names {key!r}, which not every node has"
            ) from None
        g.ndata[key] = _feature(items, key, "node_attrs", where)
    for key in edge_keys:
        try:
            items = [triples[i][2][key] for i in order]
        except KeyError:
            raise ValueError(
                f"{where}: edge_attrs names {key!r}, which not every edge has"
            ) from None
        g.edata[key] = _feature(items, key, "edge_attrs", where)
    return g


def _feature(items: list[Any], key: str, arg: str, where: str) -> np.ndarray:
    arr = _as_array(items)
    if arr is None:
        raise ValueError(f"{where}: {arg} {key!r} is not numeric (or not one shape for every item)")
    return arr
