"""``HyperAdjacency``: edges that join one node from each of any number of node sets.

TF-GNN's ``tfgnn.HyperAdjacency``: the incident node sets of an edge set are keyed by integer
*node tags* (``SOURCE`` = 0, ``TARGET`` = 1, and any further int >= 0); each tag holds the
name of a node set and one index per edge into it. ``Adjacency`` is the two-tag special case.
A ``HyperAdjacency`` goes into ``EdgeSet.from_fields(adjacency=...)`` like an ``Adjacency``;
``GraphTensor.from_pieces`` checks every tag's indices against its node set, and
``broadcast_node_to_edges`` / ``pool_edges_to_node`` / ``broadcast`` / ``pool`` /
``node_degree`` take any of its tags (one ``ops.gather`` / ``ops.scatter`` per call).

RULE: tags are ints >= 0 and are kept sorted; every tag's indices are 1-D integer arrays of
      one dtype (int32 or int64, as TF-GNN's) and one length (Ragged over the batch with
      equal row splits for a batched graph); a list becomes int64 (arraygnn's Adjacency rule).
RULE: a HyperAdjacency whose tags are exactly ``{SOURCE, TARGET}`` also answers ``source`` /
      ``target`` / ``source_name`` / ``target_name`` and works everywhere an ``Adjacency``
      does. With other tags those four raise ``ValueError``, and so does every operation
      that rebuilds a source / target pair: ``add_self_loops``, line graphs, conversion to
      PyG / DGL and ``create_schema_from_graph_spec``. Supported with any tags (each tag's
      indices offset by its own node set): construction, range validation, specs, pickling,
      ``GraphTensor.to``, ``batch_graph_tensors`` / ``unbatch_graph_tensor`` /
      ``merge_graphs_to_components`` / ``split_components``, ``merge_batch_to_components``
      (as TF-GNN), ``pad_to_total_sizes`` / ``remove_padding``, ``mask_edges`` /
      ``reorder_nodes`` / ``shuffle_nodes`` (every tag, as TF-GNN) and broadcast / pool /
      ``node_degree`` (a tag the edge set lacks is a ``ValueError`` naming both).
RULE: the spec of such an edge set is a :class:`HyperEdgeSetSpec` (its
      ``adjacency_spec`` is a :class:`HyperAdjacencySpec`); it never equals an
      ``EdgeSetSpec`` of a plain ``Adjacency`` (TF-GNN's specs differ in type too).

>>> import numpy as np
>>> from arraygnn.graph_tensor import GraphTensor, NodeSet, EdgeSet, pool_edges_to_node
>>> adj = HyperAdjacency.from_indices({0: ("a", np.array([0, 1])), 1: ("b", np.array([1, 1])),
...                                    2: ("c", np.array([0, 0]))})
>>> adj.node_set_name(2), adj[2].tolist(), sorted(adj.get_indices_dict())
('c', [0, 0], [0, 1, 2])
>>> g = GraphTensor.from_pieces(
...     node_sets={n: NodeSet.from_fields(sizes=np.array([k])) for n, k in
...                (("a", 2), ("b", 2), ("c", 1))},
...     edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=adj)})
>>> pool_edges_to_node(g, "e", 2, feature_value=np.array([1.0, 2.0])).tolist()
[3.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array
from arraygnn.graph_tensor.pieces import SOURCE, TARGET, Adjacency, _namespace_of
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.graph_tensor.spec import EdgeSetSpec, FeatureSpec, _frozen_features

__all__ = ["HyperAdjacency", "HyperAdjacencySpec", "HyperEdgeSetSpec", "AdjacencySpec"]

_PAIR = (SOURCE, TARGET)


def _check_tag_key(tag: Any, where: str) -> int:
    if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)):
        raise TypeError(f"{where}: node tags must be ints (SOURCE=0, TARGET=1, ...), got {tag!r}")
    if tag < 0:
        raise ValueError(f"{where}: node tags must be >= 0, got {tag}")
    return int(tag)


def _checked_incident(incident: Any, where: str) -> dict[int, str]:
    if not isinstance(incident, Mapping):
        raise TypeError(
            f"{where}: incident node sets must be a dict {{tag: node_set_name}}, got "
            f"{type(incident).__name__}"
        )
    if not incident:
        raise ValueError(f"{where}: `indices` must contain at least one entry")
    out = {}
    for tag in sorted(incident, key=lambda t: _check_tag_key(t, where)):
        name = incident[tag]
        if not isinstance(name, str):
            raise TypeError(f"{where}: node set name of tag {tag} must be a str, got {name!r}")
        out[int(tag)] = name
    return out


def _no_pair(tags: list[int], what: str) -> ValueError:
    return ValueError(
        f"HyperAdjacency with node tags {tags} has no {what}: only an edge set with exactly "
        "the tags SOURCE (0) and TARGET (1) has a source / target pair. Index it by tag "
        "(adjacency[tag], adjacency.node_set_name(tag)); operations that rebuild a source / "
        "target pair (add_self_loops, line graphs, PyG / DGL "
        "conversion, schemas, tf.Example) do not support other tags"
    )


class HyperAdjacency(Adjacency):
    """Indices of the incident nodes of each (hyper-)edge, keyed by node tag.

    A subclass of arraygnn's ``Adjacency`` so that ``EdgeSet`` takes it (in TF-GNN the
    inheritance runs the other way: ``Adjacency`` is the two-tag ``HyperAdjacency``).
    """

    __slots__ = ("_indices",)

    @classmethod
    def from_indices(  # type: ignore[override]
        cls, indices: Mapping[int, tuple[str, Any]], *_: Any, validate: bool | None = None
    ) -> HyperAdjacency:
        """``{tag: (node_set_name, indices), ...}`` -> HyperAdjacency.

        ``validate`` is accepted for TF-GNN compatibility; shapes and dtypes are always
        checked (they are known without running anything). Index ranges are checked
        against the node sets by ``GraphTensor.from_pieces``.
        """
        if _:
            raise TypeError(f"Positional arguments are not supported: {_}")
        where = "HyperAdjacency.from_indices"
        if not isinstance(indices, Mapping):
            raise TypeError(
                f"{where}: indices must be a dict {{tag: (node_set_name, indices)}}, got "
                f"{type(indices).__name__}"
            )
        pairs = {}
        for tag, pair in indices.items():
            if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
                raise TypeError(
                    f"{where}: tag {tag!r} must map to a tuple (node_set_name, indices)"
                )
            pairs[tag] = pair[0]
        incident = _checked_incident(pairs, where)
        checked: dict[int, tuple[str, Any]] = {}
        for tag, name in incident.items():
            idx = indices[tag][1]
            if isinstance(idx, (list, range)):
                idx = np.asarray(idx, dtype=np.int64)
            vals = idx.values if isinstance(idx, Ragged) else idx
            if not is_array(vals):
                raise TypeError(
                    f"Adjacency indices ({tag}, {name}) must be an integer array, got "
                    f"{type(idx).__name__}"
                )
            if vals.dtype not in (np.int32, np.int64):
                raise ValueError(
                    f"Adjacency indices ({tag}, {name}) must have int32 or int64 dtype, got "
                    f"{vals.dtype}"
                )
            if vals.ndim != 1:
                raise ValueError(
                    f"Adjacency indices ({tag}, {name}) must be 1-D, got shape {tuple(vals.shape)}"
                )
            checked[tag] = (name, idx)
        (tag0, (name0, idx0)), *rest = checked.items()
        for tag, (name, idx) in rest:
            if not _compatible(idx0, idx):
                raise ValueError(
                    f"Adjacency indices are not compatible: ({tag0}, {name0}) and ({tag}, "
                    f"{name}): they must agree in dtype, length and edges per graph"
                )
        _namespace_of(where, [i for _, i in checked.values()])
        return cls._build(checked)

    @classmethod
    def _build(cls, checked: dict[int, tuple[str, Any]]) -> HyperAdjacency:
        """Internal: from ``{tag: (name, indices)}`` sorted by tag, already checked."""
        self = cls.__new__(cls)
        self._indices = MappingProxyType(dict(checked))
        if tuple(checked) == _PAIR:
            (self._source_name, self._source), (self._target_name, self._target) = (
                checked[SOURCE],
                checked[TARGET],
            )
        else:  # the first tag's indices stand for the edge count / rank / device
            self._source = next(iter(checked.values()))[1]
            self._target = None
            self._source_name = tuple((t, n) for t, (n, _) in checked.items())  # a cheap key
            self._target_name = None
        return self

    # TF-GNN's HyperAdjacency interface ----------------------------------------------------
    def __getitem__(self, tag: int) -> Any:
        """The indices at node tag ``tag``."""
        return self._entry(tag)[1]

    def node_set_name(self, tag: int) -> str:
        """Name of the node set at node tag ``tag``."""
        return self._entry(tag)[0]

    def get_indices_dict(self) -> dict[int, tuple[str, Any]]:
        """``{tag: (node_set_name, indices)}``, a new dict sorted by tag."""
        return dict(self._indices)

    @property
    def spec(self) -> HyperAdjacencySpec:
        return HyperAdjacencySpec.from_incident_node_sets(
            {t: n for t, (n, _) in self._indices.items()}
        )

    def _entry(self, tag: Any) -> tuple[str, Any]:
        try:
            return self._indices[tag]
        except (KeyError, TypeError):
            raise ValueError(
                f"HyperAdjacency: no node tag {tag!r} (tags: {list(self._indices)})"
            ) from None

    def _is_pair(self) -> bool:
        return tuple(self._indices) == _PAIR

    # source / target only for the two-tag case ----------------------------------------------
    @property
    def source(self) -> Any:
        if not self._is_pair():
            raise _no_pair(list(self._indices), "source")
        return self._source

    @property
    def target(self) -> Any:
        if not self._is_pair():
            raise _no_pair(list(self._indices), "target")
        return self._target

    @property
    def source_name(self) -> str:
        if not self._is_pair():
            raise _no_pair(list(self._indices), "source_name")
        return self._source_name

    @property
    def target_name(self) -> str:
        if not self._is_pair():
            raise _no_pair(list(self._indices), "target_name")
        return self._target_name

    # hooks used by EdgeSet / GraphTensor -----------------------------------------------------
    def _roles(self) -> tuple[tuple[int, str], ...]:
        names = {SOURCE: "source", TARGET: "target"}
        return tuple((t, names.get(t, f"tag {t}")) for t in self._indices)

    def _edge_set_spec(self, features: dict[str, FeatureSpec]) -> HyperEdgeSetSpec:
        return HyperEdgeSetSpec({t: n for t, (n, _) in self._indices.items()}, features)

    def _with_indices(self, indices: dict[int, tuple[str, Any]]) -> HyperAdjacency:
        """From ``{tag: (name, indices)}``, cast to their widest index dtype (TF-GNN's
        auto-casting; e.g. after merging a batch some tags may need int64)."""
        dtypes = [(i.values if isinstance(i, Ragged) else i).dtype for _, i in indices.values()]
        wide = np.result_type(*dtypes)
        return HyperAdjacency.from_indices(
            {t: (n, _astype(i, wide)) for t, (n, i) in indices.items()}
        )

    def _trusted_with(self, indices: dict[int, tuple[str, Any]]) -> HyperAdjacency:
        """As ``_with_indices`` without checks (slices of a validated adjacency)."""
        return HyperAdjacency._build(indices)

    def _ends(self) -> str:
        return ", ".join(f"{t}: {n}" for t, (n, _) in self._indices.items())

    def __repr__(self) -> str:
        ends = ", ".join(f"{t}: ({n!r}, ...)" for t, (n, _) in self._indices.items())
        return f"HyperAdjacency({{{ends}}}, num_edges={len(self)})"


def _astype(idx: Any, dtype: Any) -> Any:
    if isinstance(idx, Ragged):
        return Ragged(idx.values.astype(dtype, copy=False), idx.row_splits, validate=False)
    return idx.astype(dtype, copy=False)


def _compatible(a: Any, b: Any) -> bool:
    if isinstance(a, Ragged) != isinstance(b, Ragged):
        return False
    if isinstance(a, Ragged):
        if a.row_splits.shape != b.row_splits.shape:
            return False
        if not bool(get_namespace(a.row_splits).all(a.row_splits == b.row_splits)):
            return False
        a, b = a.values, b.values
    return a.dtype == b.dtype and a.shape == b.shape


# ---------------------------------------------------------------------------------------------
# specs
# ---------------------------------------------------------------------------------------------


class HyperAdjacencySpec:
    """The incident node sets of a hyper-adjacency, ``{tag: node_set_name}`` (no values).

    >>> HyperAdjacencySpec.from_incident_node_sets({0: "a", 2: "c"}).node_set_name(2)
    'c'
    """

    __slots__ = ("_incident",)

    def __init__(self, incident_node_sets: Mapping[int, str]) -> None:
        self._incident = MappingProxyType(
            _checked_incident(incident_node_sets, "HyperAdjacencySpec")
        )

    @classmethod
    def from_incident_node_sets(
        cls, incident_node_sets: Mapping[int, str], index_spec: Any = None
    ) -> HyperAdjacencySpec:
        """TF-GNN's constructor; ``index_spec`` is accepted and ignored (index dtypes are
        not part of arraygnn specs)."""
        return cls(incident_node_sets)

    @property
    def incident_node_sets(self) -> Mapping[int, str]:
        """Read-only ``{tag: node_set_name}``, sorted by tag."""
        return self._incident

    def node_set_name(self, tag: int) -> str:
        try:
            return self._incident[tag]
        except (KeyError, TypeError):
            raise ValueError(
                f"HyperAdjacencySpec: no node tag {tag!r} (tags: {list(self._incident)})"
            ) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HyperAdjacencySpec) and dict(self._incident) == dict(
            other._incident
        )

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return HyperAdjacencySpec, (dict(self._incident),)

    def __repr__(self) -> str:
        return f"HyperAdjacencySpec({dict(self._incident)})"


class AdjacencySpec(HyperAdjacencySpec):
    """TF-GNN's ``AdjacencySpec``: the source and target node set names of an ``Adjacency``
    (``adjacency.spec``, ``edge_set_spec.adjacency_spec``). Equal only to another
    ``AdjacencySpec`` (as TF-GNN, whose specs differ in type from hyper-adjacency ones).

    >>> AdjacencySpec.from_incident_node_sets("a", "b").target_name
    'b'
    """

    __slots__ = ()

    def __init__(self, source_name: str, target_name: str) -> None:
        super().__init__({SOURCE: source_name, TARGET: target_name})

    @classmethod
    def from_incident_node_sets(  # type: ignore[override]
        cls, source_node_set: str, target_node_set: str, index_spec: Any = None
    ) -> AdjacencySpec:
        """TF-GNN's constructor; ``index_spec`` is accepted and ignored (index dtypes are
        not part of arraygnn specs)."""
        return cls(source_node_set, target_node_set)

    @property
    def source_name(self) -> str:
        return self._incident[SOURCE]

    @property
    def target_name(self) -> str:
        return self._incident[TARGET]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AdjacencySpec) and dict(self._incident) == dict(other._incident)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return AdjacencySpec, (self.source_name, self.target_name)

    def __repr__(self) -> str:
        return f"AdjacencySpec(source_name={self.source_name!r}, target_name={self.target_name!r})"


class HyperEdgeSetSpec(EdgeSetSpec):
    """Spec of an edge set whose adjacency is a ``HyperAdjacency``: feature specs plus
    ``{tag: node_set_name}``. ``source_name`` / ``target_name`` answer only for the tags
    ``{SOURCE, TARGET}`` and raise ``ValueError`` otherwise (so that code which writes a
    source / target pair, like ``create_schema_from_graph_spec``, cannot drop a tag).

    >>> HyperEdgeSetSpec({0: "a", 1: "b", 2: "c"}).adjacency_spec.node_set_name(1)
    'b'
    """

    def __init__(
        self,
        incident_node_sets: Mapping[int, str],
        features: Mapping[str, FeatureSpec] | None = None,
    ) -> None:
        object.__setattr__(self, "_adjacency_spec", HyperAdjacencySpec(incident_node_sets))
        object.__setattr__(self, "features", _frozen_features(features))

    def _pair_name(self, tag: int, what: str) -> str:
        incident = self.incident_node_sets
        if tuple(incident) != _PAIR:
            raise _no_pair(list(incident), what)
        return incident[tag]

    @property  # type: ignore[override]
    def source_name(self) -> str:
        return self._pair_name(SOURCE, "source_name")

    @property  # type: ignore[override]
    def target_name(self) -> str:
        return self._pair_name(TARGET, "target_name")

    def _ends(self) -> str:
        return f"tags {dict(self.incident_node_sets)}"

    @property
    def adjacency_spec(self) -> HyperAdjacencySpec:
        return self._adjacency_spec  # type: ignore[attr-defined]

    @property
    def incident_node_sets(self) -> Mapping[int, str]:
        return self.adjacency_spec.incident_node_sets

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, HyperEdgeSetSpec)
            and self.adjacency_spec == other.adjacency_spec
            and dict(self.features) == dict(other.features)
        )

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return HyperEdgeSetSpec, (dict(self.incident_node_sets), dict(self.features))

    def __repr__(self) -> str:
        return (
            f"HyperEdgeSetSpec(incident_node_sets={dict(self.incident_node_sets)}, "
            f"features={dict(self.features)})"
        )
