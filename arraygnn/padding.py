"""Padding graphs to fixed total sizes, and learning the sizes to pad to.

Compiled consumers (JAX ``jit``, CUDA graphs, XLA) want one shape per batch. A merged graph is
padded by appending **padding components** until every node set, edge set and the number of
components meet a :class:`SizeConstraints` exactly; a boolean mask tells real components from
padding ones.

RULE: padding components come after all real components. The first padding component takes
      all padding edges and the nodes left over; later ones get ``min_nodes_per_component``
      nodes and no edges (TF-GNN's ``_pad_sizes``).
RULE: padding edges join padding nodes only (never a real node), spread evenly over ALL
      padding nodes of each incident node set by TF-GNN's ``linspace`` exactly: index ``k``
      of ``E`` padding edges is ``int(float32(n) + float32((N - n) / (E - 1)) * k)`` (the
      last one ``N - 1``, float32 arithmetic as ``tf.linspace``), ``n`` real nodes, ``N``
      the total. With ``min_nodes_per_component``, an edge of the first padding component
      may so reach a node of a later padding component, as in TF-GNN.
RULE: each padding component holds at least ``min_nodes_per_component[set]`` nodes of each set,
      so readouts that need a first node per component (``ReadoutFirstNode``) work on padding
      components too.
RULE: the real components must already hold ``min_nodes_per_component[set]`` nodes (padding
      never adds nodes to them): otherwise the graph does not satisfy the constraints (TF-GNN).
RULE: padded features are zeros (``""`` / ``b""`` for strings, empty rows for ragged features)
      unless ``padding_values`` says otherwise; a padding value must fit its feature (an int
      or bool feature holds it exactly, a float feature takes any real number, a string
      feature a string, widening its fixed width if needed); values for pieces or features
      the graph does not have, or for ragged features (padded with empty rows), are ignored,
      as in TF-GNN.
RULE: an index or ``sizes`` dtype too narrow for the constraint's totals widens to int64
      (as merging does); the choice depends on the constraints only, so every graph padded
      to the same constraints gets the same dtypes. (``pad_batch`` on the PyG face raises
      ``OverflowError`` instead, as ``Batch.from_data_list`` does.)

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, Adjacency
>>> g = GraphTensor.from_pieces(
...     node_sets={"n": NodeSet.from_fields(sizes=np.array([3]),
...                                         features={"x": np.arange(3.0)})},
...     edge_sets={"e": EdgeSet.from_fields(
...         sizes=np.array([2]),
...         adjacency=Adjacency.from_indices(source=("n", np.array([0, 1])),
...                                          target=("n", np.array([1, 2]))))})
>>> c = SizeConstraints(total_num_components=2, total_num_nodes={"n": 5},
...                     total_num_edges={"e": 4})
>>> padded, mask = pad_to_total_sizes(g, c)
>>> padded.node_sets["n"].sizes.tolist(), mask.tolist()
([3, 2], [True, False])
>>> padded.edge_sets["e"].adjacency.source.tolist()
[0, 1, 3, 4]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from arraygnn._ids import ids_dtype_holding
from arraygnn._namespace import get_namespace, is_array, to_numpy
from arraygnn._renamed_args import renamed_keywords

__all__ = [
    "FeatureDefaultValues",
    "SizeConstraints",
    "pad_to_total_sizes",
    "remove_padding",
    "satisfies_total_sizes",
    "assert_satisfies_total_sizes",
    "satisfies_size_constraints",
    "assert_satisfies_size_constraints",
    "find_tight_size_constraints",
    "learn_fit_or_skip_size_constraints",
    "total_sizes",
    "pad_batch",
    "batch_padding_sizes",
]


# ---------------------------------------------------------------------------------------------
# constraints
# ---------------------------------------------------------------------------------------------


def _check_count(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"SizeConstraints: {what} must be an int, got {value!r}")
    if value < 0:
        raise ValueError(f"SizeConstraints: {what} must be >= 0, got {value}")
    return int(value)


def _frozen_counts(mapping: Mapping[str, int] | None, what: str) -> Mapping[str, int]:
    if mapping is None or (isinstance(mapping, (tuple, list)) and not mapping):
        return MappingProxyType({})  # () is TF-GNN's default for min_nodes_per_component
    if not isinstance(mapping, Mapping):
        raise TypeError(f"SizeConstraints: {what} must be a mapping {{set name: int}}")
    return MappingProxyType({str(k): _check_count(v, f"{what}[{k!r}]") for k, v in mapping.items()})


@dataclass(frozen=True)
class SizeConstraints:
    """Target total sizes of a merged graph (TF-GNN's ``SizeConstraints``).

    - ``total_num_components``: components after padding (real + padding).
    - ``total_num_nodes`` / ``total_num_edges``: ``{set name: total items}`` after padding.
    - ``min_nodes_per_component``: ``{node set: n}`` nodes every component holds: padding
      components get them, real components must have them already.

    >>> SizeConstraints(3, {"a": 10}, {"ab": 20}).total_num_nodes["a"]
    10
    """

    total_num_components: int
    total_num_nodes: Mapping[str, int] = field(default_factory=dict)
    total_num_edges: Mapping[str, int] = field(default_factory=dict)
    min_nodes_per_component: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "total_num_components",
            _check_count(self.total_num_components, "total_num_components"),
        )
        for name in ("total_num_nodes", "total_num_edges", "min_nodes_per_component"):
            object.__setattr__(self, name, _frozen_counts(getattr(self, name), name))

    def __repr__(self) -> str:
        return (
            f"SizeConstraints(total_num_components={self.total_num_components}, "
            f"total_num_nodes={dict(self.total_num_nodes)}, "
            f"total_num_edges={dict(self.total_num_edges)}, "
            f"min_nodes_per_component={dict(self.min_nodes_per_component)})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SizeConstraints):
            return NotImplemented
        return (
            self.total_num_components == other.total_num_components
            and dict(self.total_num_nodes) == dict(other.total_num_nodes)
            and dict(self.total_num_edges) == dict(other.total_num_edges)
            and dict(self.min_nodes_per_component) == dict(other.min_nodes_per_component)
        )

    def __hash__(self) -> int:
        return hash(
            (
                self.total_num_components,
                tuple(sorted(self.total_num_nodes.items())),
                tuple(sorted(self.total_num_edges.items())),
                tuple(sorted(self.min_nodes_per_component.items())),
            )
        )


# ---------------------------------------------------------------------------------------------
# reading sizes off a GraphTensor
# ---------------------------------------------------------------------------------------------


def _int(x: Any) -> int:
    return int(x.sum()) if is_array(x) else int(sum(x))


def _total(piece: Any) -> int:
    total = getattr(piece, "total_size", None)
    return int(total) if total is not None else _int(piece.sizes)


def _num_components(graph: Any) -> int:
    return int(graph.num_components)


def _check_graph_tensor(where: str, graph: Any) -> None:
    from arraygnn.graph_tensor import GraphTensor

    if not isinstance(graph, GraphTensor):
        raise TypeError(f"{where} expects a GraphTensor, got {type(graph).__name__}")


def total_sizes(graph: Any) -> tuple[int, dict[str, int], dict[str, int]]:
    """``(num_components, {node set: total nodes}, {edge set: total edges})`` of a graph."""
    _check_graph_tensor("total_sizes", graph)
    if getattr(graph, "rank", 0) != 0:
        raise ValueError(
            "size constraints apply to scalar (merged) GraphTensors; call "
            "merge_batch_to_components() first"
        )
    nodes = {name: _total(ns) for name, ns in graph.node_sets.items()}
    edges = {name: _total(es) for name, es in graph.edge_sets.items()}
    return _num_components(graph), nodes, edges


def _incident_node_sets(graph: Any, edge_set_name: str) -> tuple[str, ...]:
    """``(source, target)`` node set names; every tag's name, in tag order, for a
    HyperAdjacency."""
    adj = graph.edge_sets[edge_set_name].adjacency
    return tuple(name for name, _ in adj.get_indices_dict().values())


def _check_constraints_cover(graph: Any, constraints: SizeConstraints) -> None:
    if not isinstance(constraints, SizeConstraints):
        raise TypeError(f"constraints must be a SizeConstraints, got {type(constraints).__name__}")
    for name in graph.node_sets:
        if name not in constraints.total_num_nodes:
            raise ValueError(
                f"SizeConstraints has no total_num_nodes[{name!r}] for node set {name!r}"
            )
    for name in graph.edge_sets:
        if name not in constraints.total_num_edges:
            raise ValueError(
                f"SizeConstraints has no total_num_edges[{name!r}] for edge set {name!r}"
            )


def small_components(graph: Any, constraints: SizeConstraints) -> list[str]:
    """Node sets where a component of ``graph`` holds fewer nodes than
    ``min_nodes_per_component`` asks (padding cannot add nodes to an existing component;
    TF-GNN rejects such inputs too)."""
    out = []
    for name, min_n in constraints.min_nodes_per_component.items():
        ns = graph.node_sets.get(name)
        if ns is None or min_n == 0:
            continue
        sizes = np.asarray(to_numpy(ns.sizes)).reshape(-1)
        small = np.flatnonzero(sizes < min_n)
        if small.size:
            shown = ", ".join(str(int(i)) for i in small[:5]) + (", ..." if small.size > 5 else "")
            out.append(
                f"node set {name!r}: component(s) {shown} hold fewer than "
                f"min_nodes_per_component[{name!r}]={min_n} nodes"
            )
    return out


def _violations(graph: Any, constraints: SizeConstraints) -> list[str]:
    """Every reason why ``graph`` cannot be padded to ``constraints`` (empty: it can)."""
    _check_constraints_cover(graph, constraints)
    c, nodes, edges = total_sizes(graph)
    incident = {name: _incident_node_sets(graph, name) for name in graph.edge_sets}
    return size_violations(c, nodes, edges, incident, constraints) + small_components(
        graph, constraints
    )


def size_violations(
    num_components: int,
    nodes: Mapping[str, int],
    edges: Mapping[str, int],
    incident: Mapping[str, tuple[str, ...]],
    constraints: SizeConstraints,
) -> list[str]:
    """:func:`satisfies_total_sizes` on plain totals (``incident[edge set] = (src, tgt)``)."""
    target_c = constraints.total_num_components
    num_pad = target_c - num_components
    out = []
    if num_pad < 0:
        out.append(f"graph has {num_components} components > total_num_components={target_c}")
        return out
    pad_nodes = {}  # padding nodes per node set (padding edges may use any of them)
    for name, n in nodes.items():
        target = constraints.total_num_nodes[name]
        min_n = constraints.min_nodes_per_component.get(name, 0)
        need = n + min_n * num_pad
        if need > target:
            extra = f" + {num_pad} padding components x {min_n} nodes" if min_n else ""
            out.append(f"node set {name!r}: {n} nodes{extra} > total_num_nodes[{name!r}]={target}")
        elif num_pad == 0 and n != target:
            out.append(
                f"node set {name!r}: {n} nodes < total_num_nodes[{name!r}]={target} and no "
                "room for a padding component (graph already has total_num_components)"
            )
        pad_nodes[name] = target - n
    for name, e in edges.items():
        target = constraints.total_num_edges[name]
        if e > target:
            out.append(f"edge set {name!r}: {e} edges > total_num_edges[{name!r}]={target}")
        elif e < target:
            if num_pad == 0:
                out.append(
                    f"edge set {name!r}: {e} edges < total_num_edges[{name!r}]={target} and "
                    "no room for a padding component"
                )
                continue
            ends = incident[name]
            roles = ("source", "target") if len(ends) == 2 else ("incident",) * len(ends)
            for role, ns in zip(roles, ends):
                if pad_nodes.get(ns, 0) < 1:
                    out.append(
                        f"edge set {name!r}: padding edges need a padding node in {role} "
                        f"node set {ns!r}, but total_num_nodes[{ns!r}] leaves none"
                    )
    return out


@renamed_keywords("TF-GNN's name", graph="graph_tensor", constraints="total_sizes")
def satisfies_total_sizes(graph_tensor: Any, total_sizes: SizeConstraints) -> bool:
    """True when ``graph_tensor`` can be padded to exactly ``total_sizes`` (its totals leave
    room for the padding components, and each of its components already holds the
    ``min_nodes_per_component``). TF-GNN's ``satisfies_size_constraints`` (also this name),
    with TF-GNN's argument names.

    Raises ``ValueError`` when ``total_sizes`` lacks a node or edge set of the graph.
    """
    return not _violations(graph_tensor, total_sizes)


@renamed_keywords("TF-GNN's name", graph="graph_tensor", constraints="size_constraints")
def assert_satisfies_total_sizes(graph_tensor: Any, size_constraints: SizeConstraints) -> None:
    """Raise ``ValueError`` listing every violated constraint (no-op when satisfied).
    TF-GNN's ``assert_satisfies_size_constraints`` (also this name)."""
    problems = _violations(graph_tensor, size_constraints)
    if problems:
        raise ValueError("cannot pad graph to size constraints: " + "; ".join(problems))


satisfies_size_constraints = satisfies_total_sizes
"""TF-GNN's current name of :func:`satisfies_total_sizes`."""
assert_satisfies_size_constraints = assert_satisfies_total_sizes
"""TF-GNN's current name of :func:`assert_satisfies_total_sizes`."""


# ---------------------------------------------------------------------------------------------
# padding, one function per piece type
# ---------------------------------------------------------------------------------------------


def _is_ragged(x: Any) -> bool:
    return hasattr(x, "row_splits") and hasattr(x, "values") and not is_array(x)


def _pad_value_for(x: Any, value: Any, where: str) -> Any:
    """The padding scalar for feature ``x``: ``value`` checked against its dtype, else the
    dtype's zero / empty string."""
    kind = x.dtype.kind
    if value is None:
        if kind == "O":
            return x.flat[0][:0] if x.size and isinstance(x.flat[0], (bytes, str)) else b""
        return x.dtype.type() if kind in "US" else 0
    if is_array(value):
        value = to_numpy(value)
    given = np.asarray(value)
    if given.shape != ():
        raise ValueError(f"padding value for {where} must be a scalar, got shape {given.shape}")
    if kind in "US":
        if not isinstance(value, (str, bytes, np.str_, np.bytes_)):
            raise ValueError(f"padding value {value!r} for string {where} must be a string")
        if kind == "S" and isinstance(value, str):
            return value.encode("utf-8")
        if kind == "U" and isinstance(value, bytes):
            raise ValueError(f"padding value {value!r} for str {where} must be a str")
        return value
    if kind in "fc":  # any real (complex: any) number; float rounding is the dtype's own
        if given.dtype.kind not in ("biufc" if kind == "c" else "biuf"):
            raise ValueError(f"padding value {value!r} for {where} ({x.dtype}) is not a number")
        return value
    if kind in "biu":  # integers and bools must be held exactly
        try:
            exact = given.dtype.kind in "biuf" and bool(given.astype(x.dtype) == given)
        except (TypeError, ValueError, OverflowError):
            exact = False
        if not exact:
            raise ValueError(
                f"padding value {value!r} for {where} cannot be stored exactly in its "
                f"dtype {x.dtype}"
            )
    return value


def _pad_rows(x: Any, num_rows: int, value: Any = None, where: str = "a feature") -> Any:
    """Append ``num_rows`` rows (items) to one feature (``where`` names it in errors).

    A fixed-width string feature keeps its kind (``S`` / ``U``) and widens to hold a longer
    padding value."""
    if _is_ragged(x):
        return _pad_ragged(x, num_rows)  # empty rows: a padding value has nothing to fill
    fill = _pad_value_for(x, value, where)  # checked also when no row is added
    if num_rows == 0:
        return x
    xp = get_namespace(x)
    dtype = x.dtype
    if dtype.kind in "US":
        chars = dtype.itemsize // (4 if dtype.kind == "U" else 1)
        dtype = np.dtype(
            f"{dtype.byteorder if dtype.kind == 'U' else ''}{dtype.kind}{max(chars, len(fill), 1)}"
        )
    pad = xp.full((num_rows, *x.shape[1:]), fill, dtype=dtype)
    return xp.concatenate([x.astype(dtype, copy=False), pad], axis=0)


def _pad_ragged(x: Any, num_rows: int) -> Any:
    """Append ``num_rows`` empty rows to a ragged feature (values unchanged)."""
    if num_rows == 0:
        return x
    splits = x.row_splits
    xp = get_namespace(splits)
    tail = xp.full((num_rows,), splits[-1], dtype=splits.dtype)
    return type(x).from_row_splits(x.values, xp.concatenate([splits, tail]))


def _pad_features(
    features: Mapping[str, Any],
    num_rows: int,
    padding_values: Mapping[str, Any] | None,
    piece: str,
) -> dict[str, Any]:
    padding_values = padding_values or {}  # values for absent features are ignored (TF-GNN)
    return {
        k: _pad_rows(v, num_rows, padding_values.get(k), f"feature {k!r} of {piece}")
        for k, v in features.items()
    }


def _pad_sizes(sizes: Any, pad_sizes: Sequence[int], top: int) -> Any:
    """``sizes`` with the padding components' sizes appended. A small integer dtype widens
    to int64 when it cannot hold ``top`` (the constraint's total, so every graph padded to
    the same constraints gets the same dtype)."""
    xp = get_namespace(sizes)
    dtype = ids_dtype_holding(sizes.dtype, top)
    pad = xp.asarray(np.asarray(pad_sizes), dtype=dtype)
    return xp.concatenate([sizes.astype(dtype, copy=False), pad])


def _pad_context(context: Any, num_pad: int, padding_values: Mapping[str, Any] | None) -> Any:
    from arraygnn.graph_tensor import Context

    sizes = context.sizes
    return Context.from_fields(
        features=_pad_features(context.features, num_pad, padding_values, "context"),
        sizes=_pad_sizes(sizes, [1] * num_pad, 1),
    )


def _node_padding_sizes(num_pad: int, pad_nodes: int, min_nodes: int) -> list[int]:
    """Nodes per padding component: the first takes the rest, later ones ``min_nodes``."""
    if num_pad == 0:
        return []
    return [pad_nodes - min_nodes * (num_pad - 1)] + [min_nodes] * (num_pad - 1)


def _pad_node_set(
    node_set: Any,
    pad_sizes: list[int],
    total: int,
    padding_values: Mapping[str, Any] | None,
    where: str,
) -> Any:
    from arraygnn.graph_tensor import NodeSet

    return NodeSet.from_fields(
        sizes=_pad_sizes(node_set.sizes, pad_sizes, total),
        features=_pad_features(node_set.features, sum(pad_sizes), padding_values, where),
    )


def _spread_indices(xp: Any, dtype: Any, num_edges: int, first: int, count: int) -> Any:
    """``num_edges`` non-decreasing indices spread evenly over ``first .. first+count-1``
    (``pad_batch``'s scheme)."""
    if num_edges == 0:
        return xp.zeros(0, dtype=dtype)
    k = xp.arange(num_edges, dtype=np.int64)
    return (first + (k * count) // num_edges).astype(dtype)


def _linspace_indices(xp: Any, dtype: Any, num_edges: int, first: int, stop: int) -> Any:
    """TF-GNN's ``_pad_adjacency_index_with_linspace``: ``tf.linspace(float32(first),
    float32(stop), num_edges)`` (``start + delta * k``, the last value ``stop``, in float32
    as ``math_ops.linspace_nd``) cast to int and clipped to ``first .. stop - 1``."""
    if num_edges == 0:
        return xp.zeros(0, dtype=dtype)
    start, end = np.float32(first), np.float32(stop)
    delta = (end - start) / np.float32(max(num_edges - 1, 1))
    vals = start + delta * xp.arange(num_edges, dtype=np.int64).astype(np.float32)
    if num_edges > 1:
        vals[-1] = end
    return xp.clip(vals.astype(np.int64), first, stop - 1).astype(dtype)


def _pad_adjacency(
    adjacency: Any,
    num_pad_edges: int,
    real_nodes: Mapping[str, int],
    total_nodes: Mapping[str, int],
) -> Any:
    ends = adjacency.get_indices_dict()  # {SOURCE: .., TARGET: ..}; any tags if hyper
    xp = get_namespace(*[idx for _, idx in ends.values()])
    new = {}
    for tag, (name, idx) in ends.items():
        # a small index dtype widens (as merging does) rather than wrap past its range;
        # decided by the constraint's total, so equal constraints give equal dtypes
        dtype = ids_dtype_holding(idx.dtype, total_nodes[name] - 1)
        fake = _linspace_indices(xp, dtype, num_pad_edges, real_nodes[name], total_nodes[name])
        new[tag] = (name, xp.concatenate([idx.astype(dtype, copy=False), fake]))
    return adjacency._with_indices(new)


def _pad_edge_set(
    edge_set: Any,
    num_pad: int,
    num_pad_edges: int,
    real_nodes: Mapping[str, int],
    constraints: SizeConstraints,
    padding_values: Mapping[str, Any] | None,
    where: str,
    name: str,
) -> Any:
    from arraygnn.graph_tensor import EdgeSet

    pad_sizes = [num_pad_edges] + [0] * (num_pad - 1) if num_pad else []
    return EdgeSet.from_fields(
        sizes=_pad_sizes(edge_set.sizes, pad_sizes, constraints.total_num_edges[name]),
        adjacency=_pad_adjacency(
            edge_set.adjacency, num_pad_edges, real_nodes, constraints.total_num_nodes
        ),
        features=_pad_features(edge_set.features, num_pad_edges, padding_values, where),
    )


class FeatureDefaultValues(NamedTuple):
    """TF-GNN's ``FeatureDefaultValues``: padding values by piece, for
    ``pad_to_total_sizes(..., padding_values=)``; the same as the dict
    ``{"context": context, "nodes/<set>": node_sets[set], "edges/<set>": edge_sets[set]}``.

    >>> FeatureDefaultValues(node_sets={"paper": {"year": -1}}).node_sets
    {'paper': {'year': -1}}
    """

    context: Mapping[str, Any] | None = None
    node_sets: Mapping[str, Mapping[str, Any]] | None = None
    edge_sets: Mapping[str, Mapping[str, Any]] | None = None


def _flat_padding_values(values: FeatureDefaultValues) -> dict[str, Any]:
    """``FeatureDefaultValues`` as the dict ``pad_to_total_sizes`` takes."""
    out: dict[str, Any] = {}
    if values.context is not None:
        out["context"] = values.context
    for field_name, prefix in (("node_sets", "nodes/"), ("edge_sets", "edges/")):
        by_set = getattr(values, field_name)
        if by_set is None:
            continue
        if not isinstance(by_set, Mapping):
            raise TypeError(
                f"pad_to_total_sizes: FeatureDefaultValues.{field_name} must map set names to "
                f"{{feature: value}}, got {type(by_set).__name__}"
            )
        for name, feats in by_set.items():
            out[f"{prefix}{name}"] = feats
    return out


@renamed_keywords("TF-GNN's name", graph="graph_tensor", constraints="size_constraints")
def pad_to_total_sizes(
    graph_tensor: Any,
    size_constraints: SizeConstraints,
    *,
    padding_values: Mapping[str, Mapping[str, Any]] | FeatureDefaultValues | None = None,
    validate: bool = True,
) -> tuple[Any, Any]:
    """Pad a merged GraphTensor with padding components to exactly ``size_constraints``
    (TF-GNN's ``pad_to_total_sizes``, same arguments; the layout is in the module RULEs).

    Args:
      graph_tensor: a GraphTensor (scalar, merged: several components allowed).
      size_constraints: the target sizes; must name every node set and edge set of the
        graph.
      padding_values: optional ``{"context": {feature: v}, "nodes/<set>": {...},
        "edges/<set>": {...}}`` scalars to pad features with instead of zeros, or the
        same as TF-GNN's :class:`FeatureDefaultValues` ``(context=, node_sets=,
        edge_sets=)``.
      validate: check :func:`satisfies_total_sizes` first (a clear ``ValueError`` listing
        every violated constraint); with ``False`` the caller guarantees it.

    Returns:
      ``(padded_graph, mask)`` with ``mask`` a bool array [total_num_components], True for
      the real components (a context-level value: broadcast it to nodes or edges as needed).
    """
    graph, constraints = graph_tensor, size_constraints
    _check_graph_tensor("pad_to_total_sizes", graph)
    if isinstance(padding_values, FeatureDefaultValues):
        padding_values = _flat_padding_values(padding_values)
    if padding_values is not None and not isinstance(padding_values, Mapping):
        raise TypeError(
            "pad_to_total_sizes: padding_values must be a dict {'context' / 'nodes/<set>' / "
            f"'edges/<set>': {{feature: value}}}}, got {type(padding_values).__name__}"
        )
    if validate:
        assert_satisfies_total_sizes(graph, constraints)
    else:
        _check_constraints_cover(graph, constraints)
    from arraygnn.graph_tensor import GraphTensor

    padding_values = padding_values or {}
    for key, values in padding_values.items():
        # sets the graph lacks are ignored (TF-GNN); a key of another form is a typo
        if not (key == "context" or str(key).startswith(("nodes/", "edges/"))):
            raise ValueError(
                f"padding_values key {key!r}: use 'context', 'nodes/<node set>' or "
                "'edges/<edge set>'"
            )
        if not isinstance(values, Mapping):
            raise TypeError(
                f"padding_values[{key!r}] must map feature names to values, got "
                f"{type(values).__name__}"
            )
    num_components, nodes, edges = total_sizes(graph)
    num_pad = constraints.total_num_components - num_components

    node_sets = {}
    for name, ns in graph.node_sets.items():
        min_n = constraints.min_nodes_per_component.get(name, 0)
        pad_sizes = _node_padding_sizes(
            num_pad, constraints.total_num_nodes[name] - nodes[name], min_n
        )
        node_sets[name] = _pad_node_set(
            ns,
            pad_sizes,
            constraints.total_num_nodes[name],
            padding_values.get(f"nodes/{name}"),
            f"node set {name!r}",
        )
    edge_sets = {
        name: _pad_edge_set(
            es,
            num_pad,
            constraints.total_num_edges[name] - edges[name],
            nodes,
            constraints,
            padding_values.get(f"edges/{name}"),
            f"edge set {name!r}",
            name,
        )
        for name, es in graph.edge_sets.items()
    }
    context = _pad_context(graph.context, num_pad, padding_values.get("context"))
    padded = GraphTensor.from_pieces(
        context=context, node_sets=node_sets, edge_sets=edge_sets, validate=False
    )
    xp = get_namespace(graph.context.sizes)
    mask = xp.arange(constraints.total_num_components) < num_components
    return padded, mask


def _slice_rows(x: Any, n: int) -> Any:
    if _is_ragged(x):
        return x.slice_rows(0, n)
    return x[:n]


def remove_padding(graph: Any, mask: Any) -> Any:
    """Undo :func:`pad_to_total_sizes`: keep the components where ``mask`` is True.

    ``mask`` must be True for a prefix of the components (as padding produces). Values and
    order come back exactly; a dtype padding widened (int8 ids past their range, a string
    feature grown for a longer padding value) stays widened.
    """
    from arraygnn.graph_tensor import Context, EdgeSet, GraphTensor, NodeSet

    m = np.asarray(mask.get() if hasattr(mask, "get") else mask, dtype=bool)
    if m.shape != (int(graph.num_components),):
        raise ValueError(
            f"remove_padding: mask has shape {list(m.shape)}, expected one entry per component "
            f"[{int(graph.num_components)}]"
        )
    k = int(m.sum())
    if not m[:k].all() or m[k:].any():
        raise ValueError("remove_padding: mask must be True for a prefix of the components")
    node_sets = {}
    for name, ns in graph.node_sets.items():
        sizes = ns.sizes[:k]
        n = _int(sizes)
        node_sets[name] = NodeSet.from_fields(
            sizes=sizes, features={f: _slice_rows(v, n) for f, v in ns.features.items()}
        )
    edge_sets = {}
    for name, es in graph.edge_sets.items():
        sizes = es.sizes[:k]
        e = _int(sizes)
        edge_sets[name] = EdgeSet.from_fields(
            sizes=sizes,
            adjacency=es.adjacency._mapped(lambda idx, e=e: idx[:e]),  # every node tag
            features={f: _slice_rows(v, e) for f, v in es.features.items()},
        )
    ctx = graph.context
    context = Context.from_fields(
        features={f: _slice_rows(v, k) for f, v in ctx.features.items()}, sizes=ctx.sizes[:k]
    )
    return GraphTensor.from_pieces(
        context=context, node_sets=node_sets, edge_sets=edge_sets, validate=False
    )


# ---------------------------------------------------------------------------------------------
# learning constraints
# ---------------------------------------------------------------------------------------------


@dataclass
class _SizeTable:
    """Per-graph sizes: ``components`` [G], ``nodes[set]`` [G], ``edges[set]`` [G]."""

    components: np.ndarray
    nodes: dict[str, np.ndarray]
    edges: dict[str, np.ndarray]
    incident: dict[str, tuple[str, str]]


def _size_table(graphs: Iterable[Any], limit: int | None = None) -> _SizeTable:
    if isinstance(graphs, _SizeTable):
        if limit is None:
            return graphs
        return _SizeTable(
            graphs.components[:limit],
            {k: v[:limit] for k, v in graphs.nodes.items()},
            {k: v[:limit] for k, v in graphs.edges.items()},
            graphs.incident,
        )
    comps: list[int] = []
    nodes: dict[str, list[int]] = {}
    edges: dict[str, list[int]] = {}
    incident: dict[str, tuple[str, str]] = {}
    node_names: tuple[str, ...] | None = None
    edge_names: tuple[str, ...] | None = None
    for i, g in enumerate(graphs):
        if limit is not None and i >= limit:
            break
        c, n, e = total_sizes(g)
        if node_names is None:
            node_names, edge_names = tuple(sorted(n)), tuple(sorted(e))
            nodes = {k: [] for k in node_names}
            edges = {k: [] for k in edge_names}
            incident = {k: _incident_node_sets(g, k) for k in edge_names}
        elif tuple(sorted(n)) != node_names or tuple(sorted(e)) != edge_names:
            raise ValueError(
                f"graph {i} has node sets {sorted(n)} and edge sets {sorted(e)}, but graph 0 "
                f"has {list(node_names)} and {list(edge_names)}"
            )
        comps.append(c)
        for k, v in n.items():
            nodes[k].append(v)
        for k, v in e.items():
            edges[k].append(v)
    if not comps:
        raise ValueError("no graphs given to learn size constraints from")
    return _SizeTable(
        np.asarray(comps, dtype=np.int64),
        {k: np.asarray(v, dtype=np.int64) for k, v in nodes.items()},
        {k: np.asarray(v, dtype=np.int64) for k, v in edges.items()},
        incident,
    )


def _check_min_nodes(table: _SizeTable, min_nodes: Mapping[str, int] | None) -> dict[str, int]:
    out = {k: 0 for k in table.nodes}
    for k, v in (min_nodes or {}).items():
        if k not in table.nodes:
            raise ValueError(f"min_nodes_per_component names unknown node set {k!r}")
        out[k] = _check_count(v, f"min_nodes_per_component[{k!r}]")
    return out


def _finish_constraints(
    table: _SizeTable,
    components: int,
    excess_nodes: Mapping[str, int],
    edges: Mapping[str, int],
    min_nodes: Mapping[str, int],
    given_min: Mapping[str, int] | None,
) -> SizeConstraints:
    """Budgets for real items -> constraints with room for padding.

    ``excess_nodes[set]`` bounds ``nodes - min_nodes * components`` of a batch; with
    ``C = components + 1`` total components the node total is ``excess + min * C`` (every
    component, real or padding, holds its minimum), plus one node when padding edges need a
    node in a set whose minimum is 0. ``given_min`` (the caller's
    ``min_nodes_per_component``, zeros included) is kept in the result as given, as TF-GNN.
    """
    total_c = components + 1
    needs_node = {name for pair in table.incident.values() for name in pair}
    total_n = {}
    for name, excess in excess_nodes.items():
        m = min_nodes[name]
        total_n[name] = int(excess) + m * total_c + (1 if m == 0 and name in needs_node else 0)
    return SizeConstraints(
        total_num_components=int(total_c),
        total_num_nodes=total_n,
        total_num_edges={k: int(v) for k, v in edges.items()},
        min_nodes_per_component={k: min_nodes[k] for k in (given_min or {})},
    )


def find_tight_size_constraints(
    graphs: Iterable[Any],
    *,
    target_batch_size: int | None = None,
    min_nodes_per_component: Mapping[str, int] | None = None,
) -> SizeConstraints:
    """Smallest constraints that every batch of up to ``target_batch_size`` graphs satisfies.

    Scans all ``graphs`` (GraphTensors; each may hold several components), takes the maximum
    of each size, multiplies by ``target_batch_size`` (``None``: the graphs are batches
    already) and makes room for one padding component.

    RULE: any batch of at most ``target_batch_size`` of the given graphs satisfies the result,
    provided their components hold ``min_nodes_per_component`` (a graph with a smaller
    component satisfies no constraints with that minimum, see :func:`satisfies_total_sizes`).

    The same as TF-GNN's when every graph has one component. With several components per
    graph and a minimum, node sets are measured above the minimum per component: TF-GNN's
    independent maxima of nodes and components can leave too few nodes for the padding
    components of a graph with few components and many nodes (which then does not fit).
    """
    table = _size_table(graphs)
    b = 1 if target_batch_size is None else int(target_batch_size)
    if b < 1:
        raise ValueError(f"target_batch_size must be positive, got {target_batch_size}")
    min_nodes = _check_min_nodes(table, min_nodes_per_component)
    excess = {
        k: b * max(int((v - min_nodes[k] * table.components).max()), 0)
        for k, v in table.nodes.items()
    }
    return _finish_constraints(
        table,
        b * int(table.components.max()),
        excess,
        {k: b * int(v.max()) for k, v in table.edges.items()},
        min_nodes,
        min_nodes_per_component,
    )


def _is_scalar(value: Any) -> bool:
    """One number (a 0-d array too) rather than a sequence or other iterable of them."""
    return np.ndim(value) == 0 and not (isinstance(value, Iterable) and not is_array(value))


def _fit_or_skip_totals(
    totals: np.ndarray, ratios: Sequence[float], num_thresholds: int
) -> list[np.ndarray]:
    """TF-GNN's fit-or-skip selection on sampled batch totals ``[N, D]``: one row ``[D]``
    of size limits per ratio.

    As ``batching_utils.learn_fit_or_skip_size_constraints``: dimension ``d`` weighs
    ``std_d / max std`` (0 when all are 0, float32); threshold ``t`` limits it to the
    ``int(float32(linspace(0, N, T)[t]) * weight_d)``-th largest total; the result is the
    largest ``t`` that at least a fraction ``r`` of the batches fit (``t = 0`` if none).
    """
    n = totals.shape[0]
    std = totals.astype(np.float64).std(axis=0).astype(np.float32)
    top = std.max()
    weight = std / top if top > 0 else np.zeros_like(std)
    desc = -np.sort(-totals, axis=0)  # [N, D] largest first
    steps = np.linspace(0, n, num_thresholds, endpoint=False).astype(np.float32)
    pos = np.minimum((steps[:, None] * weight[None, :]).astype(np.int64), n - 1)  # [T, D]
    cand = np.take_along_axis(desc, pos, axis=0)  # [T, D] limits per threshold
    # cand[:, d] is non-increasing in t, so batch i fits threshold t iff t < k_i with
    # k_i = min over d of #{t : cand[t, d] >= totals[i, d]}.
    k = np.full(n, num_thresholds, dtype=np.int64)
    for d in range(cand.shape[1]):
        k = np.minimum(k, np.searchsorted(-cand[:, d], -totals[:, d], side="right"))
    fitting = n - np.cumsum(np.bincount(k, minlength=num_thresholds + 1))[:-1]  # [T]
    out = []
    for r in ratios:
        ok = np.flatnonzero(fitting / n >= r)
        out.append(cand[int(ok.max()) if ok.size else 0])
    return out


def learn_fit_or_skip_size_constraints(
    graphs: Iterable[Any],
    batch_size: int | Sequence[int],
    *,
    min_nodes_per_component: Mapping[str, int] | None = None,
    success_ratio: float | Sequence[float] = 1.0,
    sample_size: int = 100_000,
    num_thresholds: int = 1_000,
    seed: int | None = 0,
) -> Any:
    """Size constraints that a random batch of ``batch_size`` graphs fits with
    probability at least ``success_ratio`` ("overbooking"); the rare batch that does not fit
    is skipped (see :func:`arraygnn.pipeline.batching.fit_or_skip`).

    Algorithm (TF-GNN's, on NumPy): read the sizes of the first ``sample_size`` graphs;
    draw ``sample_size`` random batches of each batch size (with replacement); for every
    size dimension ``d`` (components, each node set's nodes above the per-component minimum,
    each edge set's edges) sort the batch totals and weight ``d`` by its standard deviation
    relative to the largest one (float32, as TF-GNN); threshold ``t`` of ``num_thresholds``
    gives each dimension the ``int(float32(t * sample_size / num_thresholds) * weight_d)``-th
    largest total; pick the largest ``t`` whose constraints the sampled batches satisfy with
    at least ``success_ratio`` and add room for a padding component. The success ratio holds
    on the sample exactly and on fresh batches up to sampling error.

    Unlike TF-GNN, node sets are measured by their nodes *above* ``min_nodes_per_component``
    per component (the same as TF-GNN when every graph has one component): TF-GNN's limits
    on raw node totals can reject a batch with few components and many nodes that the
    learned constraints were meant to fit. ``min_nodes_per_component`` is kept in the result
    as given.

    Returns one :class:`SizeConstraints`, or nested lists ``result[b][r]`` when
    ``batch_size`` and/or ``success_ratio`` are sequences (a scalar argument squeezes its
    dimension), as TF-GNN does.
    """
    one_size, one_ratio = _is_scalar(batch_size), _is_scalar(success_ratio)
    batch_sizes = [int(b) for b in ([batch_size] if one_size else list(batch_size))]
    ratios = [float(r) for r in ([success_ratio] if one_ratio else list(success_ratio))]
    if not batch_sizes or any(b < 1 for b in batch_sizes):
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    if not ratios or any(not 0.0 <= r <= 1.0 for r in ratios):
        raise ValueError(f"success_ratio must be in [0, 1], got {success_ratio}")
    if sample_size < 1 or num_thresholds < 1:
        raise ValueError("sample_size and num_thresholds must be positive")
    table = _size_table(graphs, limit=sample_size)
    min_nodes = _check_min_nodes(table, min_nodes_per_component)
    node_names = sorted(table.nodes)
    edge_names = sorted(table.edges)
    # per-graph size vector [G, D]: components, excess nodes per set, edges per set
    per_graph = np.stack(
        [table.components]
        + [table.nodes[k] - min_nodes[k] * table.components for k in node_names]
        + [table.edges[k] for k in edge_names],
        axis=1,
    )
    rng = np.random.default_rng(seed)
    num_graphs = per_graph.shape[0]
    n_batches = int(sample_size)
    results = []
    for b in batch_sizes:
        # totals of n_batches random batches [N, D], drawn in chunks to bound memory
        totals = np.zeros((n_batches, per_graph.shape[1]), dtype=np.int64)
        chunk = max(1, 4_000_000 // (b * per_graph.shape[1]))  # ~32 MB of int64 at a time
        for s in range(0, n_batches, chunk):
            e = min(n_batches, s + chunk)
            idx = rng.integers(0, num_graphs, size=(e - s, b))
            totals[s:e] = per_graph[idx].sum(axis=1)
        per_ratio = []
        for c in _fit_or_skip_totals(totals, ratios, num_thresholds):
            excess = {k: max(int(c[1 + i]), 0) for i, k in enumerate(node_names)}
            edges = {k: int(c[1 + len(node_names) + i]) for i, k in enumerate(edge_names)}
            per_ratio.append(
                _finish_constraints(
                    table, int(c[0]), excess, edges, min_nodes, min_nodes_per_component
                )
            )
        results.append(per_ratio)
    if one_ratio:
        results = [r[0] for r in results]
    if one_size:
        results = results[0]
    return results


# ---------------------------------------------------------------------------------------------
# PyG-style batches
# ---------------------------------------------------------------------------------------------

_DEFAULT_NODE_KEYS = ("x", "pos")
_DEFAULT_EDGE_KEYS = ("edge_attr", "edge_weight")
_BATCH_STRUCTURE = ("edge_index", "batch", "ptr", "num_nodes")
_MASKS = ("node_mask", "edge_mask", "graph_mask")


def _present_keys(batch: Any, names: Iterable[str]) -> list[str]:
    keys = set(batch.keys())
    return [n for n in names if n in keys]


def pad_batch(
    batch: Any,
    *,
    num_nodes: int,
    num_edges: int,
    num_graphs: int,
    node_keys: Iterable[str] | None = None,
    edge_keys: Iterable[str] | None = None,
    graph_keys: Iterable[str] = (),
    padding_values: Mapping[str, Any] | None = None,
) -> Any:
    """Pad a PyG-style ``Batch`` to exactly ``num_nodes`` / ``num_edges`` / ``num_graphs``.

    One padding graph holds all padding nodes and edges (the edges spread evenly over its
    nodes, never touching a real node), followed by empty graphs up to ``num_graphs``. The
    result is a ``Batch`` of the same class with ``node_mask``, ``edge_mask`` and
    ``graph_mask`` (True for real items), ``batch`` / ``ptr`` extended, and slice records
    so ``get_example`` / ``to_data_list`` still work (padding graphs included).

    Which keys are node-, edge- or graph-level is stated, never guessed from lengths:
    ``node_keys`` (default ``x``, ``pos`` when present), ``edge_keys`` (default
    ``edge_attr``, ``edge_weight``), ``graph_keys`` (default none, e.g. ``("y",)``). Any other
    array key raises ``ValueError`` naming it. ``edge_index`` must be the ``[2, E]`` default.
    ``follow_batch``'s ``<key>_batch`` / ``<key>_ptr`` are rebuilt for the padded batch (the
    padding rows in the padding graphs), not stated.

    RULE: real graphs keep their rows; padding rows are zeros unless ``padding_values``.

    >>> import numpy as np
    >>> from arraygnn.data import Data
    >>> from arraygnn.batch import Batch
    >>> b = Batch.from_data_list([Data(x=np.ones((3, 1)), edge_index=np.array([[0], [1]]))])
    >>> p = pad_batch(b, num_nodes=5, num_edges=4, num_graphs=3)
    >>> p.edge_index.tolist(), p.ptr.tolist(), p.graph_mask.tolist()
    ([[0, 3, 3, 4], [1, 3, 3, 4]], [0, 3, 5, 5], [True, False, False])
    """
    from arraygnn.batch import Batch, _add_increments, _ptr

    if not isinstance(batch, Batch):
        raise TypeError(f"pad_batch expects an arraygnn Batch, got {type(batch).__name__}")
    from arraygnn.ops._common import check_size

    num_nodes = check_size("pad_batch: num_nodes", num_nodes)
    num_edges = check_size("pad_batch: num_edges", num_edges)
    num_graphs = check_size("pad_batch: num_graphs", num_graphs)
    keys = list(batch.keys())
    for k in _MASKS:
        if k in keys:
            raise ValueError(f"pad_batch: the batch already has {k!r} (already padded?)")
    ptr = batch["ptr"] if "ptr" in keys else None
    if ptr is None or "batch" not in keys:
        raise ValueError("pad_batch needs a Batch with 'batch' and 'ptr' (num_nodes known)")
    node_keys = _present_keys(batch, _DEFAULT_NODE_KEYS) if node_keys is None else list(node_keys)
    edge_keys = _present_keys(batch, _DEFAULT_EDGE_KEYS) if edge_keys is None else list(edge_keys)
    graph_keys = list(graph_keys)
    from arraygnn.transforms.attrs import batch_vectors

    # follow_batch's <key>_batch / <key>_ptr: rebuilt below for the padded batch
    vectors, pointers = batch_vectors(batch)
    follow = {v: k for v, k in vectors.items() if k is not None}
    follow_ptrs = {p: follow[v] for p, v in pointers.items() if v in follow}
    stated = set(node_keys) | set(edge_keys) | set(graph_keys) | set(_BATCH_STRUCTURE)
    stated |= set(follow) | set(follow_ptrs)
    for k in keys:
        if k not in stated and is_array(batch[k]):
            raise ValueError(
                f"pad_batch: say whether key {k!r} is node-, edge- or graph-level "
                "(node_keys=, edge_keys=, graph_keys=)"
            )
    for k in [*node_keys, *edge_keys, *graph_keys]:
        if k not in keys:
            raise ValueError(f"pad_batch: key {k!r} is not in the batch")

    xp = get_namespace(ptr)
    g = int(ptr.shape[0]) - 1
    n = int(ptr[-1])
    edge_index = batch["edge_index"] if "edge_index" in keys else None
    if edge_index is not None and (edge_index.ndim != 2 or edge_index.shape[0] != 2):
        raise ValueError(f"pad_batch: edge_index must be [2, E], got {tuple(edge_index.shape)}")
    e = 0 if edge_index is None else int(edge_index.shape[1])
    pad_n, pad_e, pad_g = num_nodes - n, num_edges - e, num_graphs - g
    problems = []
    if pad_n < 0:
        problems.append(f"{n} nodes > num_nodes={num_nodes}")
    if pad_e < 0:
        problems.append(f"{e} edges > num_edges={num_edges}")
    if pad_g < 0:
        problems.append(f"{g} graphs > num_graphs={num_graphs}")
    if pad_g == 0 and (pad_n > 0 or pad_e > 0):
        problems.append("no room for a padding graph (batch already has num_graphs graphs)")
    if pad_e > 0 and pad_n < 1:
        problems.append("padding edges need at least one padding node")
    if edge_index is None and num_edges:
        problems.append("the batch has no edge_index to pad")
    if problems:
        raise ValueError("pad_batch: cannot pad: " + "; ".join(problems))
    if edge_index is not None and pad_e and num_nodes - 1 > np.iinfo(edge_index.dtype).max:
        info = np.iinfo(edge_index.dtype)
        raise OverflowError(
            f"pad_batch: edge_index has dtype {edge_index.dtype}, which cannot hold the padding "
            f"node ids (up to {num_nodes - 1}; it holds {info.min} .. {info.max}): store "
            "edge_index as int32 or int64"
        )
    kinds = getattr(batch, "_kind_dict", {})
    list_keys = [k for k in keys if kinds.get(k) == "list" and isinstance(batch[k], list)]

    padding_values = padding_values or {}
    gid = batch["batch"]
    # the batch's own records (a Data subclass's hooks may slice and increase keys its own
    # way): real graphs keep them, the first padding graph gets every padding row
    rec_slices = getattr(batch, "_slice_dict", {})
    rec_incs = getattr(batch, "_inc_dict", {})

    def padded_slices(key: str, pad: int, default: Any) -> Any:
        sl = rec_slices.get(key)
        if sl is None or key == "num_nodes":
            return default
        return _pad_ptr(np.asarray(to_numpy(sl), dtype=np.int64), pad, pad_g)

    def padded_incs(key: str, pad: int) -> Any:
        inc = rec_incs.get(key)
        if inc is None or not np.any(to_numpy(inc)):
            return None
        inc = np.asarray(to_numpy(inc))
        return np.concatenate([inc, np.full((pad_g,) + inc.shape[1:], pad, inc.dtype)])

    node_counts = ptr[1:] - ptr[:-1]
    pad_node_counts = [pad_n] + [0] * (pad_g - 1) if pad_g else []
    new_node_counts = xp.concatenate([node_counts, xp.asarray(pad_node_counts, dtype=ptr.dtype)])
    new_ptr = xp.zeros(num_graphs + 1, dtype=ptr.dtype)
    xp.cumsum(new_node_counts, out=new_ptr[1:])
    # edges per graph: edge_index's slice record, or (no record) its source ids' graphs
    edge_ptr = None if edge_index is None else padded_slices("edge_index", pad_e, None)
    if edge_ptr is None:
        if edge_index is not None and e:
            edge_graph = xp.searchsorted(ptr[1:], edge_index[0], side="right")
            edge_counts = to_numpy(xp.bincount(edge_graph, minlength=g)).astype(np.int64)
        else:
            edge_counts = np.zeros(g, dtype=np.int64)
        edge_ptr = _pad_ptr(_ptr(edge_counts), pad_e, pad_g)

    values = {k: batch[k] for k in keys}
    slices: dict[str, Any] = {}
    incs: dict[str, Any] = {}
    for k in node_keys:
        values[k] = _pad_rows(batch[k], pad_n, padding_values.get(k), f"node key {k!r}")
        slices[k] = padded_slices(k, pad_n, new_ptr)
        incs[k] = padded_incs(k, 0)
    for k in edge_keys:
        values[k] = _pad_rows(batch[k], pad_e, padding_values.get(k), f"edge key {k!r}")
        slices[k] = padded_slices(k, pad_e, edge_ptr)
        incs[k] = padded_incs(k, 0)
    cat_dims = getattr(batch, "_cat_dim_dict", {})
    for k in graph_keys:
        values[k] = _pad_rows(batch[k], pad_g, padding_values.get(k), f"graph key {k!r}")
        slices[k] = xp.arange(num_graphs + 1)
        # an increased key (center_index): the real graphs keep their increments, the
        # padding graphs point into the first padding graph (its nodes start at n)
        incs[k] = inc = padded_incs(k, n)
        if inc is not None:
            ones = np.ones(pad_g, np.int64)
            _add_increments(k, values[k][g:], inc[g:], ones, None, get_namespace(values[k]))
    for k in list_keys:  # one entry per graph: padding graphs get the padding value (None)
        values[k] = list(batch[k]) + [padding_values.get(k)] * pad_g
        slices[k] = np.arange(num_graphs + 1)
    if edge_index is not None:
        fake = _spread_indices(xp, edge_index.dtype, pad_e, n, pad_n)
        values["edge_index"] = xp.concatenate([edge_index, xp.stack([fake, fake])], axis=1)
        slices["edge_index"] = edge_ptr
        rec = rec_incs.get("edge_index")
        if rec is None:
            incs["edge_index"] = new_ptr[:-1]
        else:  # padding edges point at nodes from n on
            rec = np.asarray(to_numpy(rec))
            pad_inc = np.full((pad_g,) + rec.shape[1:], n, rec.dtype)
            incs["edge_index"] = np.concatenate([rec, pad_inc])
    if "num_nodes" in keys:
        values["num_nodes"] = num_nodes
        slices["num_nodes"] = new_ptr
    # follow vectors: a padded node / edge key's padding rows belong to the first padding
    # graph (as its padding rows do), a graph key has one row per padding graph
    pads = {**{k: pad_n for k in node_keys}, **{k: pad_e for k in edge_keys}}
    if edge_index is not None:
        pads["edge_index"] = pad_e
    for name, key in follow.items():
        old_ids = batch[name]
        if key in pads:
            fill = xp.full(pads[key], g, dtype=old_ids.dtype)
        elif key in graph_keys or key in list_keys:
            fill = xp.arange(g, num_graphs, dtype=old_ids.dtype)
        else:  # a key left unpadded: its rows and graph ids stay
            fill = xp.zeros(0, dtype=old_ids.dtype)
        values[name] = xp.concatenate([old_ids, fill])
    for name, key in follow_ptrs.items():
        old_ptr = np.asarray(to_numpy(batch[name]), dtype=np.int64)
        if key in pads:
            new = _pad_ptr(old_ptr, pads[key], pad_g)
        elif key in graph_keys or key in list_keys:
            new = np.concatenate([old_ptr, old_ptr[-1] + np.arange(1, pad_g + 1)])
        else:
            new = _pad_ptr(old_ptr, 0, pad_g)
        values[name] = xp.asarray(new.astype(batch[name].dtype, copy=False))
    values["batch"] = xp.concatenate([gid, xp.full(pad_n, g, dtype=gid.dtype)])
    values["ptr"] = new_ptr
    values["node_mask"] = xp.arange(num_nodes) < n
    values["edge_mask"] = xp.arange(num_edges) < e
    values["graph_mask"] = xp.arange(num_graphs) < g
    slices["node_mask"] = new_ptr
    slices["edge_mask"] = edge_ptr
    slices["graph_mask"] = xp.arange(num_graphs + 1)
    data_cls = getattr(batch, "_data_cls", None) or type(batch)
    return Batch.from_records(
        values,
        slices,
        incs,
        num_graphs,
        data_cls=data_cls,
        cat_dims={k: cat_dims[k] for k in values if k in cat_dims},
        kinds={k: kinds[k] for k in graph_keys if k in kinds},
    )


def _pad_ptr(ptr: np.ndarray, pad: int, pad_g: int) -> np.ndarray:
    """``ptr`` [G + 1] extended by ``pad_g`` padding graphs, the first holding ``pad`` rows."""
    return np.concatenate([ptr, np.full(pad_g, ptr[-1] + pad, dtype=np.int64)])


def _graph_counts(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and edges per graph of a ``PackedDataset`` or a sequence of ``Data``."""
    nn = getattr(dataset, "num_nodes", None)
    ne = getattr(dataset, "num_edges", None)
    if is_array(nn) and is_array(ne):
        return np.asarray(nn, dtype=np.int64), np.asarray(ne, dtype=np.int64)
    nodes, edges = [], []
    for i, d in enumerate(dataset):
        n = d.num_nodes
        if n is None:
            raise ValueError(f"batch_padding_sizes: graph {i} has no num_nodes")
        ei = d["edge_index"] if "edge_index" in d.keys() else None
        nodes.append(int(n))
        edges.append(0 if ei is None else int(ei.shape[1]))
    return np.asarray(nodes, dtype=np.int64), np.asarray(edges, dtype=np.int64)


def batch_padding_sizes(
    dataset: Any,
    batch_size: int,
    *,
    success_ratio: float = 1.0,
    sample_size: int = 100_000,
    seed: int | None = 0,
) -> dict[str, int]:
    """``num_nodes`` / ``num_edges`` / ``num_graphs`` to :func:`pad_batch` PyG-style batches of
    ``batch_size`` graphs from ``dataset`` (a ``PackedDataset`` or a sequence of ``Data``).

    ``success_ratio=1.0`` gives tight sizes every batch fits (:func:`find_tight_size_constraints`);
    below 1, fit-or-skip sizes a random batch fits with that probability
    (:func:`learn_fit_or_skip_size_constraints`, sampling at most ``sample_size`` graphs).
    Always room for one padding graph with one node for padding edges.

    >>> from arraygnn.data import Data
    >>> import numpy as np
    >>> ds = [Data(x=np.ones((n, 1)), edge_index=np.zeros((2, n), np.int64)) for n in (2, 5)]
    >>> batch_padding_sizes(ds, 4)
    {'num_nodes': 21, 'num_edges': 20, 'num_graphs': 5}
    """
    nodes, edges = _graph_counts(dataset)
    if nodes.size == 0:
        raise ValueError("batch_padding_sizes: empty dataset")
    table = _SizeTable(
        np.ones(nodes.shape[0], dtype=np.int64),
        {"nodes": nodes},
        {"edges": edges},
        {"edges": ("nodes", "nodes")},
    )
    if success_ratio >= 1.0:
        sc = find_tight_size_constraints(table, target_batch_size=batch_size)
    else:
        sc = learn_fit_or_skip_size_constraints(
            table, batch_size, success_ratio=success_ratio, sample_size=sample_size, seed=seed
        )
    return {
        "num_nodes": sc.total_num_nodes["nodes"],
        "num_edges": sc.total_num_edges["edges"],
        "num_graphs": sc.total_num_components,
    }
