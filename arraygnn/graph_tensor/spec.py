"""Specs: what a GraphTensor holds (set names, feature dtypes and per-item shapes, adjacency
names), without the values. Two graphs of the same kind have equal specs.

RULE: a feature's shape in a spec is its per-item shape (after the item dimension; after the
      batch and item dimensions of a batched graph); ``None`` marks a ragged dimension.
RULE: string dtypes are normalised: any ``<U..`` is ``np.dtype(str)``, any ``|S..`` is
      ``np.dtype(bytes)``, so graphs with strings of different lengths have equal specs.
RULE: index and size dtypes are not part of a spec (int32 and int64 graphs compare equal).

>>> import numpy as np
>>> FeatureSpec.of(np.zeros((5, 3), np.float32))
FeatureSpec(dtype=dtype('float32'), shape=(3,))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = [
    "FeatureSpec",
    "ContextSpec",
    "NodeSetSpec",
    "EdgeSetSpec",
    "GraphTensorSpec",
    "normalize_dtype",
]


def normalize_dtype(dtype: Any) -> np.dtype:
    """The dtype a spec records: strings lose their length, everything else is kept."""
    dtype = np.dtype(dtype)
    if dtype.kind == "U":
        return np.dtype(np.str_)
    if dtype.kind == "S":
        return np.dtype(np.bytes_)
    return dtype


@dataclass(frozen=True)
class FeatureSpec:
    """dtype and per-item shape of one feature (``None`` in ``shape``: a ragged dimension)."""

    dtype: np.dtype
    shape: tuple[int | None, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", normalize_dtype(self.dtype))
        if not isinstance(self.shape, (tuple, list)):
            raise TypeError(f"FeatureSpec shape must be a tuple of dims, got {self.shape!r}")
        for d in self.shape:
            if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer))):
                raise TypeError(f"FeatureSpec shape dims must be ints or None, got {self.shape!r}")
        shape = tuple(None if d is None else int(d) for d in self.shape)
        if any(d is not None and d < 0 for d in shape):
            raise ValueError(f"FeatureSpec shape dims must be >= 0 or None, got {self.shape}")
        object.__setattr__(self, "shape", shape)

    @classmethod
    def of(cls, value: Any) -> FeatureSpec:
        """Spec of a feature value of a scalar graph: an array ``[n, ...]`` or a Ragged."""
        from arraygnn.graph_tensor.ragged import Ragged

        shape: list[int | None] = []
        v = value
        while isinstance(v, Ragged):
            shape.append(None)
            v = v.values
        return cls(v.dtype, (*shape, *v.shape[1:]))

    @property
    def is_ragged(self) -> bool:
        return any(d is None for d in self.shape)


def check_feature_name(name: str, where: str) -> None:
    """``ValueError`` for a reserved name: TF-GNN's ``RESERVED_FEATURE_NAME_PATTERN`` (a
    leading ``#``: ``#size``, ``#source``, ... are the structure's own tf.Example keys)."""
    if name.startswith("#"):
        raise ValueError(f"{where}: feature name {name!r} is reserved (names starting with '#')")


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


def _frozen_features(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only ``{feature name: FeatureSpec}`` (anything else is a ``TypeError``)."""
    out = _frozen(mapping)
    for name, spec in out.items():
        if not isinstance(name, str) or not isinstance(spec, FeatureSpec):
            raise TypeError(
                f"feature specs map str names to FeatureSpec, got {name!r}: {type(spec).__name__}"
            )
        check_feature_name(name, "feature spec")
    return out


class _ThawedPickle:
    """Pickling / deep copies of a frozen spec: its read-only maps (``MappingProxyType``,
    which pickle refuses) travel as dicts and the constructor freezes them again."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        values = (getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]
        return type(self), tuple(dict(v) if isinstance(v, MappingProxyType) else v for v in values)


class _FeaturesByName:
    """``piece_spec[feature_name]``: the feature's spec, as TF-GNN's piece specs."""

    features: Mapping[str, FeatureSpec]

    def __getitem__(self, feature_name: str) -> FeatureSpec:
        if feature_name not in self.features:
            raise KeyError(f"no feature {feature_name!r} (features: {sorted(self.features)})")
        return self.features[feature_name]


def _eq_maps(a: Mapping, b: Mapping) -> bool:
    return dict(a) == dict(b)


@dataclass(frozen=True, eq=False)
class ContextSpec(_FeaturesByName, _ThawedPickle):
    """Feature specs of the context (items = components)."""

    features: Mapping[str, FeatureSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", _frozen_features(self.features))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ContextSpec) and _eq_maps(self.features, other.features)

    @property
    def features_spec(self) -> Mapping[str, FeatureSpec]:
        """TF-GNN's name of :attr:`features`."""
        return self.features

    def __repr__(self) -> str:
        return f"ContextSpec(features={dict(self.features)})"


@dataclass(frozen=True, eq=False)
class NodeSetSpec(_FeaturesByName, _ThawedPickle):
    """Feature specs of a node set."""

    features: Mapping[str, FeatureSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", _frozen_features(self.features))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeSetSpec) and _eq_maps(self.features, other.features)

    @property
    def features_spec(self) -> Mapping[str, FeatureSpec]:
        """TF-GNN's name of :attr:`features`."""
        return self.features

    def __repr__(self) -> str:
        return f"NodeSetSpec(features={dict(self.features)})"


@dataclass(frozen=True, eq=False)
class EdgeSetSpec(_FeaturesByName, _ThawedPickle):
    """Feature specs of an edge set plus the names of its source and target node sets."""

    source_name: str
    target_name: str
    features: Mapping[str, FeatureSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", _frozen_features(self.features))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, EdgeSetSpec)
            and (self.source_name, self.target_name) == (other.source_name, other.target_name)
            and _eq_maps(self.features, other.features)
        )

    def _ends(self) -> str:
        """The incident node sets, for messages (HyperEdgeSetSpec: every tag's)."""
        return f"{self.source_name!r} -> {self.target_name!r}"

    @property
    def features_spec(self) -> Mapping[str, FeatureSpec]:
        """TF-GNN's name of :attr:`features`."""
        return self.features

    @property
    def adjacency_spec(self) -> Any:
        """TF-GNN's ``adjacency_spec``: an ``AdjacencySpec`` with ``source_name``,
        ``target_name`` and ``node_set_name(tag)``."""
        from arraygnn.graph_tensor.hyper_adjacency import AdjacencySpec

        return AdjacencySpec(self.source_name, self.target_name)

    def __repr__(self) -> str:
        return (
            f"EdgeSetSpec(source_name={self.source_name!r}, target_name={self.target_name!r}, "
            f"features={dict(self.features)})"
        )


@dataclass(frozen=True, eq=False)
class GraphTensorSpec(_ThawedPickle):
    """Spec of a whole GraphTensor; ``rank`` is 0 for a scalar graph, 1 for a batch."""

    context: ContextSpec = field(default_factory=ContextSpec)
    node_sets: Mapping[str, NodeSetSpec] = field(default_factory=dict)
    edge_sets: Mapping[str, EdgeSetSpec] = field(default_factory=dict)
    rank: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "node_sets", _frozen(self.node_sets))
        object.__setattr__(self, "edge_sets", _frozen(self.edge_sets))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GraphTensorSpec)
            and self.rank == other.rank
            and self.context == other.context
            and _eq_maps(self.node_sets, other.node_sets)
            and _eq_maps(self.edge_sets, other.edge_sets)
        )

    __hash__ = None  # type: ignore[assignment]

    @property
    def context_spec(self) -> ContextSpec:
        """TF-GNN's name of :attr:`context`."""
        return self.context

    @property
    def node_sets_spec(self) -> Mapping[str, NodeSetSpec]:
        """TF-GNN's name of :attr:`node_sets`."""
        return self.node_sets

    @property
    def edge_sets_spec(self) -> Mapping[str, EdgeSetSpec]:
        """TF-GNN's name of :attr:`edge_sets`."""
        return self.edge_sets

    def differences(self, other: GraphTensorSpec) -> list[str]:
        """Human-readable list of what differs from ``other`` (empty when equal)."""
        out: list[str] = []
        if self.rank != other.rank:
            out.append(f"rank {self.rank} vs {other.rank}")
        out += _feature_diffs("context", self.context.features, other.context.features)
        for kind, mine, theirs in (
            ("node set", self.node_sets, other.node_sets),
            ("edge set", self.edge_sets, other.edge_sets),
        ):
            for name in sorted(set(mine) - set(theirs)):
                out.append(f"{kind} {name!r} missing in the other spec")
            for name in sorted(set(theirs) - set(mine)):
                out.append(f"{kind} {name!r} missing in this spec")
            for name in sorted(set(mine) & set(theirs)):
                a, b = mine[name], theirs[name]
                if kind == "edge set" and a._ends() != b._ends():
                    out.append(f"edge set {name!r}: joins {a._ends()} vs {b._ends()}")
                out += _feature_diffs(f"{kind} {name!r}", a.features, b.features)
        return out

    def __repr__(self) -> str:
        return (
            f"GraphTensorSpec(rank={self.rank}, context={self.context!r}, "
            f"node_sets={dict(self.node_sets)}, edge_sets={dict(self.edge_sets)})"
        )


def _feature_diffs(where: str, a: Mapping, b: Mapping) -> list[str]:
    out = []
    for k in sorted(set(a) - set(b)):
        out.append(f"{where}: feature {k!r} missing in the other spec")
    for k in sorted(set(b) - set(a)):
        out.append(f"{where}: feature {k!r} missing in this spec")
    for k in sorted(set(a) & set(b)):
        if a[k] != b[k]:
            out.append(f"{where}: feature {k!r}: {a[k]} vs {b[k]}")
    return out
