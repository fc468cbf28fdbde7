"""The heterogeneous graph container: ``GraphTensor`` and its pieces.

A ``GraphTensor`` holds one ``Context``, named ``NodeSet`` s and named ``EdgeSet`` s; each
``EdgeSet`` has an ``Adjacency`` naming its source and target node sets. Every piece stores
``sizes`` (items per graph component) and a read-only map of features.

RULE: in a scalar graph (rank 0) every piece's ``sizes`` has shape ``[num_components]``;
      features have shape ``[total_size, ...]`` (or are a ``Ragged`` with ``total_size`` rows);
      context sizes are all 1 (the context's items are the components).
RULE: in a batched graph (rank 1, shape ``[batch_size]``) every field is a ``Ragged`` over the
      batch: ``sizes`` is ``[batch_size, None]`` and a feature is ``[batch_size, None, ...]``
      with the items of graph ``b`` in row ``b``; adjacency indices are local to each graph.
RULE: adjacency indices lie in ``[0, nodes in the named node set)`` (per graph, for rank 1).
RULE: a GraphTensor and its pieces are immutable; ``replace_features`` / ``remove_features``
      return new objects that share every array they do not change.

>>> import numpy as np
>>> g = GraphTensor.from_pieces(
...     node_sets={"paper": NodeSet.from_fields(sizes=np.array([3]),
...                                             features={"year": np.array([2018, 2019, 2020])})},
...     edge_sets={"cites": EdgeSet.from_fields(
...         sizes=np.array([3]),
...         adjacency=Adjacency.from_indices(source=("paper", np.array([1, 2, 2])),
...                                          target=("paper", np.array([0, 0, 1]))))})
>>> g.num_components, g.node_sets["paper"].total_size, g.edge_sets["cites"].adjacency.source_name
(1, 3, 'paper')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from arraygnn._namespace import get_namespace, is_array, to_device, to_numpy
from arraygnn.graph_tensor.ragged import Ragged
from arraygnn.graph_tensor.spec import (
    ContextSpec,
    EdgeSetSpec,
    FeatureSpec,
    GraphTensorSpec,
    NodeSetSpec,
    check_feature_name,
)

__all__ = [
    "SOURCE",
    "TARGET",
    "CONTEXT",
    "NODES",
    "EDGES",
    "HIDDEN_STATE",
    "Context",
    "NodeSet",
    "EdgeSet",
    "Adjacency",
    "GraphTensor",
]

SOURCE = 0
"""Tag of an edge's source node (``adjacency[SOURCE]``)."""
TARGET = 1
"""Tag of an edge's target node (``adjacency[TARGET]``)."""
CONTEXT = "context"
"""Tag of the graph context in ``broadcast`` / ``pool``."""
NODES = "nodes"
EDGES = "edges"
HIDDEN_STATE = "hidden_state"
"""Conventional feature name of a GNN's hidden state."""


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def _first_array(*values: Any) -> Any:
    for v in values:
        if isinstance(v, Ragged):
            return v.row_splits
        if is_array(v):
            return v
    return None


def _namespace_of(where: str, values: Iterable[Any]) -> Any:
    arrays = []
    for v in values:
        while isinstance(v, Ragged):
            arrays.append(v.row_splits)
            v = v.values
        if is_array(v):
            arrays.append(v)
    try:
        return get_namespace(*arrays)
    except TypeError as err:
        raise TypeError(f"{where}: {err}") from None


def _row_ids(splits: Any, total: int) -> Any:
    """For items ``0..total-1`` the row (component / graph) each lies in."""
    xp = get_namespace(splits)
    return xp.searchsorted(splits[1:], xp.arange(total, dtype=splits.dtype), side="right")


def _as_sizes(sizes: Any, where: str) -> Any:
    """Validate ``sizes``: a 1-D int array (rank 0) or a Ragged / 2-D int array (rank 1)."""
    if isinstance(sizes, Ragged):
        vals = sizes.values
        if not is_array(vals) or vals.ndim != 1 or vals.dtype.kind not in "iu":
            raise ValueError(f"{where}: batched sizes must be a Ragged of 1-D integer values")
        _check_nonneg(vals, f"{where}: sizes")
        return sizes
    if isinstance(sizes, (list, tuple)):
        sizes = np.asarray(sizes, dtype=np.int64)
    if not is_array(sizes):
        raise TypeError(f"{where}: sizes must be an integer array, got {type(sizes).__name__}")
    if sizes.dtype.kind not in "iu":
        raise TypeError(f"{where}: sizes must have an integer dtype, got {sizes.dtype}")
    if sizes.ndim == 2:  # [batch_size, num_components]: uniform components per graph
        xp = get_namespace(sizes)
        b, c = sizes.shape
        splits = xp.arange(b + 1, dtype=np.int64) * c
        sizes = Ragged(sizes.reshape(-1), splits)
        _check_nonneg(sizes.values, f"{where}: sizes")
        return sizes
    if sizes.ndim != 1:
        raise ValueError(
            f"{where}: sizes must have shape [num_components] (or [batch_size, num_components]),"
            f" got shape {tuple(sizes.shape)}"
        )
    _check_nonneg(sizes, f"{where}: sizes")
    return sizes


def _check_nonneg(x: Any, where: str) -> None:
    if x.shape[0] and int(to_numpy(x.min())) < 0:
        raise ValueError(f"{where} must be >= 0, got {to_numpy(x).tolist()}")


def _totals_per_graph(sizes: Ragged) -> Any:
    """Items per graph of a batched piece: sums of each graph's component sizes."""
    ends = _splits_from_lengths(sizes.values)[sizes.row_splits]
    return ends[1:] - ends[:-1]


def _splits_from_lengths(lengths: Any) -> Any:
    xp = get_namespace(lengths)
    zero = xp.zeros(1, dtype=np.int64)
    return xp.concatenate([zero, xp.cumsum(lengths, dtype=np.int64)])


def _check_feature(value: Any, total: int, where: str) -> None:
    """A rank-0 feature: dense ``[total, ...]`` or a Ragged with ``total`` rows."""
    if isinstance(value, Ragged):
        if value.nrows != total:
            raise ValueError(f"{where} has {value.nrows} (ragged) rows, expected {total}")
        dtype = value.flat_values.dtype
    elif is_array(value):
        if value.ndim == 0:
            raise ValueError(f"{where}: feature must have an item dimension, got a scalar")
        if value.shape[0] != total:
            raise ValueError(
                f"{where} has {value.shape[0]} items (shape {tuple(value.shape)}), expected {total}"
            )
        dtype = value.dtype
    else:
        raise TypeError(
            f"{where}: feature must be a NumPy/CuPy array or a Ragged, got {type(value).__name__}"
        )
    if dtype.kind not in "biufcUSO":
        raise TypeError(f"{where}: unsupported feature dtype {dtype}")


def _batched_feature(value: Any, totals: Any, batch_size: int, where: str) -> Ragged:
    """A rank-1 feature: Ragged over the batch with ``totals[b]`` items in row ``b``.

    A dense ``[batch_size, n, ...]`` array is accepted when every graph has ``n`` items.
    """
    if is_array(value) and value.ndim >= 2:
        xp = get_namespace(value)
        b, n = value.shape[:2]
        value = Ragged(value.reshape((b * n, *value.shape[2:])), xp.arange(b + 1) * n)
    if not isinstance(value, Ragged):
        raise TypeError(
            f"{where}: a feature of a batched graph must be a Ragged over the batch "
            f"(or an array [batch_size, n, ...]), got {type(value).__name__}"
        )
    if value.nrows != batch_size:
        raise ValueError(f"{where}: feature has {value.nrows} graphs, expected {batch_size}")
    lengths = value.row_lengths()
    xp = get_namespace(lengths)
    if bool(xp.any(lengths != totals)):
        raise ValueError(
            f"{where}: items per graph {to_numpy(lengths).tolist()} disagree with sizes "
            f"{to_numpy(totals).tolist()}"
        )
    _check_feature(
        value.values,
        int(value.values.shape[0]) if is_array(value.values) else value.values.nrows,
        where,
    )
    return value


_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)


def _python_leaves(value: Any) -> Iterator[Any]:
    """The non-list items of a nested list / tuple (any order)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item


def _from_python(value: Any, where: str) -> Any:
    """A Python list / tuple feature as the NumPy array ``tf.convert_to_tensor`` would make:
    Python floats -> float32, ints -> int32 (int64 when a value does not fit), bools ->
    bool, str -> a NumPy str array, bytes -> a NumPy bytes array, an empty list float32; a
    list of NumPy scalars or arrays keeps their dtype. Anything else is returned as is.

    RULE: as TensorFlow, the first item decides the kind: after an int, floats make the
          value float32 (bools count as ints); after a float, ints and bools are floats;
          after a bool, only bools; after a str / bytes, only str / bytes. Any other mix,
          ``None`` or an int outside int64 raises ``ValueError`` (NumPy would silently make
          strings, uint64 or float64 of them).
    RULE: a nested list of unequal lengths (a ragged value) raises: TF-GNN's ``from_fields``
          does not take one either; build it with ``Ragged.from_list``.
    """
    if not isinstance(value, (list, tuple)):
        return value
    try:
        arr = np.array(value)
    except ValueError:  # NumPy >= 1.24 refuses ragged nested lists
        raise ValueError(
            f"{where}: a nested list of unequal lengths is a ragged value; pass "
            "Ragged.from_list(...) (or a NumPy array)"
        ) from None
    except (TypeError, OverflowError) as err:  # e.g. CuPy arrays in a list
        raise ValueError(f"{where}: cannot convert the list to one array: {err}") from None
    leaf = value
    while isinstance(leaf, (list, tuple)) and len(leaf):
        leaf = leaf[0]
    kind = arr.dtype.kind
    if isinstance(leaf, (list, tuple)):  # empty: tf.constant([]) is float32
        return arr.astype(np.float32) if kind == "f" else arr
    if isinstance(leaf, (np.generic, np.ndarray)):
        if kind != "O":
            return arr  # NumPy scalars / arrays in a list keep their dtype
        ok = False
    elif isinstance(leaf, bool):
        ok = kind == "b"
    elif isinstance(leaf, int):
        if kind == "u" or (kind in "fO" and _has_int_beyond_int64(value)):
            raise ValueError(
                f"{where}: an integer of the list is out of range for int64 (TensorFlow: "
                "out-of-range integer)"
            )
        if kind in "iu":
            fits = int(arr.min()) >= _INT32.min and int(arr.max()) <= _INT32.max
            return arr.astype(np.int32) if fits else arr
        ok = kind == "f"
    elif isinstance(leaf, float):
        ok = kind == "f"
    elif isinstance(leaf, (str, bytes)):
        ok = kind in "US" and all(isinstance(x, (str, bytes)) for x in _python_leaves(value))
    elif isinstance(leaf, complex):
        ok = kind == "c"
    else:
        ok = False
    if not ok:
        raise ValueError(
            f"{where}: cannot convert a list with mixed types (first item "
            f"{type(leaf).__name__}, as a whole {arr.dtype}) as tf.constant would; pass a "
            "NumPy array of the dtype you mean"
        )
    return arr.astype(np.float32) if kind == "f" else arr


def _has_int_beyond_int64(value: Any) -> bool:
    return any(
        isinstance(x, int) and not _INT64.min <= x <= _INT64.max for x in _python_leaves(value)
    )


def _frozen_features(features: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
    """A new dict of the features; Python lists / tuples become NumPy arrays as TF-GNN's
    ``from_fields`` converts them (see :func:`_from_python`)."""
    if features is None:
        return {}
    if not isinstance(features, Mapping):
        raise TypeError(f"{where}: features must be a mapping name -> array")
    out = {}
    for k, v in features.items():
        if not isinstance(k, str):
            raise TypeError(f"{where}: feature names must be str, got {k!r}")
        check_feature_name(k, where)
        out[k] = _from_python(v, f"{where}, feature {k!r}")
    return out


# ---------------------------------------------------------------------------------------------
# pieces
# ---------------------------------------------------------------------------------------------


class _SlotsPickle:
    """Pickling / deep copies of a ``__slots__`` object holding read-only maps
    (``MappingProxyType``, which pickle refuses): they travel as dicts and are frozen
    again on the way back."""

    __slots__ = ()

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(self, name):
                    state[name] = getattr(self, name)
        return {
            k: ("proxy", dict(v)) if isinstance(v, MappingProxyType) else ("value", v)
            for k, v in state.items()
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, (how, value) in state.items():
            object.__setattr__(self, name, MappingProxyType(value) if how == "proxy" else value)


class _Piece(_SlotsPickle):
    """Common part of Context, NodeSet and EdgeSet: sizes plus a read-only feature map."""

    __slots__ = ("_sizes", "_features", "_total", "_rank", "_cache")
    _kind = "piece"

    def _init(self, sizes: Any, features: dict[str, Any], where: str) -> None:
        self._sizes = sizes
        self._rank = 1 if isinstance(sizes, Ragged) else 0
        if self._rank == 0:
            self._total = int(to_numpy(sizes.sum())) if sizes.shape[0] else 0
        else:
            self._total = int(to_numpy(sizes.values.sum())) if sizes.values.shape[0] else 0
        self._cache: dict[str, Any] = {}
        self._features = MappingProxyType(self._checked_features(features, where))

    @classmethod
    def _trusted(cls, sizes: Any, features: dict[str, Any], total: int, **extra: Any) -> Any:
        """Internal: a piece from parts already known to be consistent (no checks)."""
        self = cls.__new__(cls)
        self._sizes = sizes
        self._rank = 1 if isinstance(sizes, Ragged) else 0
        self._total = total
        self._cache = {}
        self._features = MappingProxyType(features)
        for k, v in extra.items():
            setattr(self, k, v)
        return self

    def _checked_features(self, features: dict[str, Any], where: str) -> dict[str, Any]:
        out = {}
        for name, value in features.items():
            fw = f"{where}, feature {name!r}"
            if self._rank == 0:
                _check_feature(value, self._total, fw)
                out[name] = value
            else:
                out[name] = _batched_feature(value, self._totals_per_graph(), self._sizes.nrows, fw)
        _namespace_of(where, [self._sizes, *out.values()])
        return out

    def _totals_per_graph(self) -> Any:
        if "totals" not in self._cache:
            self._cache["totals"] = _totals_per_graph(self._sizes)
        return self._cache["totals"]

    # public ------------------------------------------------------------------------------
    @property
    def sizes(self) -> Any:
        """Items per component: ``[num_components]`` (a Ragged ``[batch, None]`` if batched)."""
        return self._sizes

    @property
    def features(self) -> Mapping[str, Any]:
        """Read-only ``{name: array or Ragged}``."""
        return self._features

    def get_features_dict(self) -> dict[str, Any]:
        """A new (mutable) dict of the features; the arrays are shared, not copied."""
        return dict(self._features)

    def __getitem__(self, name: str) -> Any:
        try:
            return self._features[name]
        except KeyError:
            raise KeyError(
                f"{self._kind} has no feature {name!r}; features: {sorted(self._features)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._features

    def _known_sizes(self) -> None:
        if self._sizes is None:
            raise ValueError(
                f"this {self._kind} has no features and no sizes: its number of components "
                "is known once it is put into a GraphTensor (GraphTensor.from_pieces)"
            )

    @property
    def total_size(self) -> int:
        """Items in all components (and all graphs of a batch)."""
        self._known_sizes()
        return self._total

    @property
    def num_components(self) -> Any:
        """Number of components (int); ``[batch_size]`` array for a batched piece."""
        self._known_sizes()
        if self._rank == 0:
            return int(self._sizes.shape[0])
        return self._sizes.row_lengths()

    @property
    def total_num_components(self) -> int:
        """Components in all graphs (TF-GNN's ``total_num_components``): an int, the
        number of entries of ``sizes`` (for a scalar piece, ``num_components``)."""
        self._known_sizes()
        vals = self._sizes.values if self._rank else self._sizes
        return int(vals.shape[0])

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def row_splits(self) -> Any:
        """``[num_components + 1]`` offsets of the components' items (rank 0 only)."""
        if self._rank != 0:
            raise ValueError("row_splits is defined for scalar graphs; merge the batch first")
        self._known_sizes()
        if "splits" not in self._cache:
            self._cache["splits"] = _splits_from_lengths(self._sizes)
        return self._cache["splits"]

    def component_ids(self) -> Any:
        """Component of every item ``[total_size]`` (rank 0; cached)."""
        if "ids" not in self._cache:
            self._cache["ids"] = _row_ids(self.row_splits, self._total)
        return self._cache["ids"]

    def feature_specs(self) -> dict[str, FeatureSpec]:
        out = {}
        for name, v in self._features.items():
            out[name] = FeatureSpec.of(v.values if self._rank == 1 else v)
        return out

    def __repr__(self) -> str:
        feats = ", ".join(
            f"{k!r}: {FeatureSpec.of(v.values if self._rank else v)}"
            for k, v in self._features.items()
        )
        return f"{type(self).__name__}(total_size={self._total}, features={{{feats}}})"


class Context(_Piece):
    """Features per graph component; its ``sizes`` are all 1.

    >>> import numpy as np
    >>> Context.from_fields(features={"label": np.array([0, 1])}).num_components
    2
    """

    __slots__ = ("_pending",)
    _kind = "context"

    @classmethod
    def from_fields(
        cls,
        *,
        features: Mapping[str, Any] | None = None,
        sizes: Any = None,
        shape: Any = None,
        indices_dtype: Any = None,
        validate: bool | None = None,
    ) -> Context:
        """Context from features ``[num_components, ...]``; ``sizes`` default to ones.

        Without features and sizes the number of components is taken from the node and edge
        sets when the context is put into a GraphTensor. As TF-GNN: ``indices_dtype``
        (int32 / int64) is the dtype of ``sizes`` (cast if given); ``shape`` is the graph
        shape, ``()`` (scalar) or ``(batch_size,)``, checked against ``sizes`` / features.
        ``validate`` is accepted for TF-GNN compatibility: pieces are always checked.
        """
        if indices_dtype is not None:
            indices_dtype = np.dtype(indices_dtype)
            if indices_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
                raise ValueError(
                    f"context: indices_dtype must be int32 or int64, got {indices_dtype}"
                )
        features = _frozen_features(features, "context")
        inferred = sizes is None and indices_dtype is None
        if sizes is None:
            sizes = cls._infer_sizes(features)
        if sizes is not None and indices_dtype is not None:
            sizes = _sizes_as(_as_sizes(sizes, "context"), indices_dtype)
        if shape is not None:  # (sizes as a list / tuple: their array first)
            cls._check_shape(shape, None if sizes is None else _as_sizes(sizes, "context"))
        self = cls.__new__(cls)
        if sizes is None:
            self._sizes = None  # filled in by GraphTensor.from_pieces
            self._pending = features  # type: ignore[attr-defined]
            self._features = MappingProxyType({})  # no features: that is why sizes are unknown
            self._rank, self._total, self._cache = 0, None, {}
            return self
        sizes = _as_sizes(sizes, "context")
        vals = sizes.values if isinstance(sizes, Ragged) else sizes
        xp = get_namespace(vals)
        if vals.shape[0] and bool(xp.any(vals != 1)):
            raise ValueError(f"context: sizes must all be 1, got {to_numpy(vals).tolist()}")
        self._init(sizes, features, "context")
        if inferred:  # GraphTensor.from_pieces gives them the sets' dtype (TF-GNN's ones_like)
            self._cache["inferred_sizes"] = True
        return self

    @staticmethod
    def _check_shape(shape: Any, sizes: Any) -> None:
        try:
            shape = tuple(int(d) if d is not None else None for d in shape)
        except TypeError:
            raise TypeError(f"context: shape must be a tuple, got {shape!r}") from None
        if sizes is None:  # sizes come from the sets: only a scalar graph can do that
            if shape:
                raise ValueError(
                    f"context: shape {shape} needs sizes or features (without them the "
                    "context takes its components from a scalar graph's sets)"
                )
            return
        if isinstance(sizes, Ragged):
            got: tuple[int, ...] = (sizes.nrows,)
        else:
            got = tuple(sizes.shape[:-1])
        if len(shape) != len(got) or any(d is not None and d != g for d, g in zip(shape, got)):
            raise ValueError(f"context: shape {shape} does not match sizes of graph shape {got}")

    @staticmethod
    def _infer_sizes(features: dict[str, Any]) -> Any:
        for name, v in features.items():
            arr = _first_array(v)
            if arr is None:
                raise TypeError(f"context, feature {name!r}: must be an array or a Ragged")
            xp = get_namespace(arr)
            n = v.nrows if isinstance(v, Ragged) else (v.shape[0] if v.ndim else 0)
            return xp.ones(n, dtype=np.int64)
        return None

    def _resolved(self, sizes: Any) -> Context:
        if self._sizes is not None:
            return self
        return Context.from_fields(features=self._pending, sizes=sizes)

    @property
    def spec(self) -> ContextSpec:
        return ContextSpec(self.feature_specs())

    def replace_features(self, features: Mapping[str, Any]) -> Context:
        return Context.from_fields(features=features, sizes=self._sizes)


class NodeSet(_Piece):
    """Nodes of one type: ``sizes`` per component and features ``[total_size, ...]``.

    >>> import numpy as np
    >>> NodeSet.from_fields(sizes=np.array([2, 1]), features={"x": np.zeros((3, 4))}).total_size
    3
    """

    __slots__ = ()
    _kind = "node set"

    @classmethod
    def from_fields(
        cls, *, sizes: Any, features: Mapping[str, Any] | None = None, validate: bool | None = None
    ) -> NodeSet:
        """Nodes from ``sizes`` per component and features ``[total_size, ...]``
        (``validate`` accepted for TF-GNN compatibility: always checked)."""
        return cls._make(sizes, features, "node set")

    @classmethod
    def _make(cls, sizes: Any, features: Any, where: str) -> NodeSet:
        self = cls.__new__(cls)
        self._init(_as_sizes(sizes, where), _frozen_features(features, where), where)
        return self

    @property
    def spec(self) -> NodeSetSpec:
        return NodeSetSpec(self.feature_specs())

    def replace_features(self, features: Mapping[str, Any]) -> NodeSet:
        return NodeSet.from_fields(sizes=self._sizes, features=features)


class Adjacency(_SlotsPickle):
    """Which nodes each edge joins: ``source`` / ``target`` index arrays and the names of the
    node sets they index.

    >>> import numpy as np
    >>> a = Adjacency.from_indices(source=("author", np.array([0, 1])),
    ...                            target=("paper", np.array([1, 1])))
    >>> a[TARGET].tolist(), a.node_set_name(SOURCE)
    ([1, 1], 'author')
    """

    __slots__ = ("_source", "_target", "_source_name", "_target_name")

    @classmethod
    def from_indices(
        cls, source: tuple[str, Any], target: tuple[str, Any], *, validate: bool | None = None
    ) -> Adjacency:
        """``source=(node_set_name, indices)``, ``target=(node_set_name, indices)``.

        Indices are 1-D integer arrays of equal length (Ragged over the batch for a batched
        graph); range checks against the node sets happen in ``GraphTensor.from_pieces``.
        ``validate`` is accepted for TF-GNN compatibility (shapes are always checked).
        """
        self = cls.__new__(cls)
        ends = []
        for role, pair in (("source", source), ("target", target)):
            if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
                raise TypeError(f"Adjacency: {role} must be a tuple (node_set_name, indices)")
            name, idx = pair
            if isinstance(idx, (list, range)):
                idx = np.asarray(idx, dtype=np.int64)
            vals = idx.values if isinstance(idx, Ragged) else idx
            if not is_array(vals):
                raise TypeError(
                    f"Adjacency: {role} indices must be an integer array, got {type(idx).__name__}"
                )
            if vals.ndim != 1 or vals.dtype.kind not in "iu":
                raise ValueError(
                    f"Adjacency: {role} indices must be a 1-D integer array, got shape "
                    f"{tuple(vals.shape)} dtype {vals.dtype}"
                )
            ends.append((name, idx))
        (sn, s), (tn, t) = ends
        if isinstance(s, Ragged) != isinstance(t, Ragged):
            raise ValueError("Adjacency: source and target must both be Ragged or both dense")
        ns, nt = (len(s), len(t)) if not isinstance(s, Ragged) else (len(s.values), len(t.values))
        if ns != nt:
            raise ValueError(f"Adjacency: {ns} source indices but {nt} target indices")
        if isinstance(s, Ragged) and (
            s.row_splits.shape != t.row_splits.shape
            or not bool(get_namespace(s.row_splits).all(s.row_splits == t.row_splits))
        ):
            raise ValueError(
                f"Adjacency: source and target have different edges per graph (source has "
                f"{s.nrows} graphs, target {t.nrows})"
            )
        _namespace_of("Adjacency", [s, t])
        self._source, self._target, self._source_name, self._target_name = s, t, sn, tn
        return self

    @classmethod
    def _trusted(cls, source: tuple[str, Any], target: tuple[str, Any]) -> Adjacency:
        """Internal: no checks."""
        self = cls.__new__(cls)
        (self._source_name, self._source), (self._target_name, self._target) = source, target
        return self

    @property
    def source(self) -> Any:
        return self._source

    @property
    def target(self) -> Any:
        return self._target

    @property
    def source_name(self) -> str:
        return self._source_name

    @property
    def target_name(self) -> str:
        return self._target_name

    def __getitem__(self, tag: int) -> Any:
        """Indices at the ``SOURCE`` or ``TARGET`` end."""
        if tag == SOURCE:
            return self._source
        if tag == TARGET:
            return self._target
        raise ValueError(f"Adjacency: node tag must be SOURCE (0) or TARGET (1), got {tag!r}")

    def node_set_name(self, tag: int) -> str:
        """Name of the node set at the ``SOURCE`` or ``TARGET`` end."""
        if tag == SOURCE:
            return self._source_name
        if tag == TARGET:
            return self._target_name
        raise ValueError(f"Adjacency: node tag must be SOURCE (0) or TARGET (1), got {tag!r}")

    def __len__(self) -> int:
        s = self._source
        return int(s.values.shape[0]) if isinstance(s, Ragged) else int(s.shape[0])

    def get_indices_dict(self) -> dict[int, tuple[str, Any]]:
        """``{tag: (node_set_name, indices)}`` (TF-GNN's ``get_indices_dict``), a new dict."""
        return {
            SOURCE: (self._source_name, self._source),
            TARGET: (self._target_name, self._target),
        }

    @property
    def spec(self) -> Any:
        """TF-GNN's ``adjacency.spec``: an ``AdjacencySpec`` (the node set names)."""
        from arraygnn.graph_tensor.hyper_adjacency import AdjacencySpec

        return AdjacencySpec(self._source_name, self._target_name)

    # generic hooks used by EdgeSet / GraphTensor; HyperAdjacency overrides them
    def _roles(self) -> tuple[tuple[int, str], ...]:
        """``(tag, name of that end in messages)`` for each node tag."""
        return ((SOURCE, "source"), (TARGET, "target"))

    def _edge_set_spec(self, features: dict[str, FeatureSpec]) -> EdgeSetSpec:
        return EdgeSetSpec(self._source_name, self._target_name, features)

    def _mapped(self, fn: Any) -> Adjacency:
        """The same adjacency with ``fn`` applied to every index array."""
        return self._with_indices({t: (n, fn(i)) for t, (n, i) in self.get_indices_dict().items()})

    def _with_indices(self, indices: dict[int, tuple[str, Any]]) -> Adjacency:
        """An adjacency of the same kind from ``{tag: (node_set_name, indices)}``."""
        return Adjacency.from_indices(source=indices[SOURCE], target=indices[TARGET])

    def _trusted_with(self, indices: dict[int, tuple[str, Any]]) -> Adjacency:
        """As ``_with_indices`` without checks (slices of a validated adjacency)."""
        return Adjacency._trusted(indices[SOURCE], indices[TARGET])

    def _ends(self) -> str:
        return f"{self._source_name} -> {self._target_name}"

    def __repr__(self) -> str:
        return (
            f"Adjacency(source=({self._source_name!r}, ...), target=({self._target_name!r}, ...),"
            f" num_edges={len(self)})"
        )


class EdgeSet(_Piece):
    """Edges of one type: ``sizes`` per component, an ``Adjacency`` and features.

    >>> import numpy as np
    >>> e = EdgeSet.from_fields(sizes=np.array([2]), adjacency=Adjacency.from_indices(
    ...     source=("a", np.array([0, 1])), target=("a", np.array([1, 0]))))
    >>> e.total_size, e.adjacency.target_name
    (2, 'a')
    """

    __slots__ = ("_adjacency",)
    _kind = "edge set"

    @classmethod
    def from_fields(
        cls,
        *,
        sizes: Any,
        adjacency: Adjacency,
        features: Mapping[str, Any] | None = None,
        validate: bool | None = None,
    ) -> EdgeSet:
        """Edges from ``sizes`` per component, an ``adjacency`` and features
        ``[total_size, ...]`` (``validate`` accepted for TF-GNN compatibility)."""
        return cls._make(sizes, adjacency, features, "edge set")

    @classmethod
    def _make(cls, sizes: Any, adjacency: Adjacency, features: Any, where: str) -> EdgeSet:
        if not isinstance(adjacency, Adjacency):
            raise TypeError(
                f"{where}: adjacency must be an Adjacency, got {type(adjacency).__name__}"
            )
        self = cls.__new__(cls)
        self._adjacency = adjacency
        self._init(_as_sizes(sizes, where), _frozen_features(features, where), where)
        if isinstance(adjacency._source, Ragged) != (self._rank == 1):
            raise ValueError(f"{where}: adjacency must be Ragged over the batch iff sizes are")
        if self._rank == 0:
            if len(adjacency) != self._total:
                raise ValueError(
                    f"{where}: adjacency has {len(adjacency)} edges but sizes sum to {self._total}"
                )
        else:
            lengths = adjacency._source.row_lengths()
            xp = get_namespace(lengths)
            totals = self._totals_per_graph()
            if adjacency._source.nrows != self._sizes.nrows or bool(xp.any(lengths != totals)):
                raise ValueError(
                    f"{where}: adjacency edges per graph {to_numpy(lengths).tolist()} disagree "
                    f"with sizes {to_numpy(totals).tolist()}"
                )
        _namespace_of(where, [self._sizes, adjacency._source])
        return self

    @property
    def adjacency(self) -> Adjacency:
        return self._adjacency

    @property
    def spec(self) -> EdgeSetSpec:
        return self._adjacency._edge_set_spec(self.feature_specs())

    def replace_features(self, features: Mapping[str, Any]) -> EdgeSet:
        return EdgeSet.from_fields(sizes=self._sizes, adjacency=self._adjacency, features=features)


# ---------------------------------------------------------------------------------------------
# the graph
# ---------------------------------------------------------------------------------------------


class GraphTensor(_SlotsPickle):
    """A heterogeneous graph: context, node sets, edge sets (TF-GNN's ``GraphTensor``).

    Build it with :meth:`from_pieces`; read ``graph.context``, ``graph.node_sets[name]``,
    ``graph.edge_sets[name]``; ``graph.spec`` describes it without values.
    """

    __slots__ = ("_context", "_node_sets", "_edge_sets", "_rank", "_num_components")

    @classmethod
    def from_pieces(
        cls,
        context: Context | None = None,
        node_sets: Mapping[str, NodeSet] | None = None,
        edge_sets: Mapping[str, EdgeSet] | None = None,
        *,
        validate: bool = True,
    ) -> GraphTensor:
        """Assemble and validate a GraphTensor.

        Checks: every piece has the same number of components (per graph, if batched) and
        the same rank; adjacency names exist; indices are in range of their node sets.
        ``validate=False`` skips the index range check (callers that built valid indices).
        """
        for kind, given in (("node_sets", node_sets), ("edge_sets", edge_sets)):
            if given is not None and not isinstance(given, Mapping):
                raise TypeError(
                    f"GraphTensor.from_pieces: {kind} must be a dict {{name: piece}}, got "
                    f"{type(given).__name__}"
                )
        node_sets = dict(node_sets or {})
        edge_sets = dict(edge_sets or {})
        for kind, pieces, typ in (
            ("node_sets", node_sets, NodeSet),
            ("edge_sets", edge_sets, EdgeSet),
        ):
            for name, piece in pieces.items():
                if not isinstance(name, str):
                    raise TypeError(f"{kind}: set names must be str, got {name!r}")
                if not isinstance(piece, typ):
                    raise TypeError(
                        f"{kind}[{name!r}] must be a {typ.__name__}, got {type(piece).__name__}"
                    )
        if context is None:
            context = Context.from_fields()
        elif not isinstance(context, Context):
            raise TypeError(f"context must be a Context, got {type(context).__name__}")

        # the number of components (and rank) every piece must agree on
        reference = None
        ranks = set()
        for where, piece in _named_pieces(context, node_sets, edge_sets):
            if piece._sizes is None:
                continue
            ranks.add(piece._rank)
            if len(ranks) > 1:
                raise ValueError(f"{where}: mixes batched (rank 1) and scalar (rank 0) pieces")
            ncomp = piece.num_components
            if reference is None:
                reference = (where, ncomp)
                continue
            ref_where, ref = reference
            if piece._rank == 0:
                same = ncomp == ref
            else:
                same = ncomp.shape == ref.shape and bool(get_namespace(ncomp).all(ncomp == ref))
            if not same:
                shown = ncomp if piece._rank == 0 else to_numpy(ncomp).tolist()
                shown_ref = ref if piece._rank == 0 else to_numpy(ref).tolist()
                raise ValueError(f"{where} has {shown} components but {ref_where} has {shown_ref}")
        rank = ranks.pop() if ranks else 0
        # RULE: context sizes not given take the dtype holding the sets' sizes and indices
        # (TF-GNN: ones_like(a set's sizes), cast to the graph's indices_dtype)
        dtype = _sets_index_dtype(node_sets, edge_sets)
        if context._sizes is None:
            context = context._resolved(
                _context_sizes(reference, rank, node_sets, edge_sets, dtype)
            )
        elif context._cache.get("inferred_sizes") and dtype is not None:
            context = Context.from_fields(
                features=context.features, sizes=_sizes_as(context.sizes, dtype)
            )

        self = cls.__new__(cls)
        self._context = context
        self._node_sets = MappingProxyType(node_sets)
        self._edge_sets = MappingProxyType(edge_sets)
        self._rank = rank
        self._num_components = context.num_components
        _namespace_of(
            "GraphTensor",
            [context.sizes]
            + [p.sizes for p in node_sets.values()]
            + [p.sizes for p in edge_sets.values()],
        )
        for name, es in edge_sets.items():
            self._check_adjacency(name, es, validate)
        return self

    def _check_adjacency(self, name: str, es: EdgeSet, check_range: bool) -> None:
        adj = es.adjacency
        for tag, role in adj._roles():
            set_name = adj.node_set_name(tag)
            if set_name not in self._node_sets:
                raise ValueError(
                    f"edge set {name!r}: {role} node set {set_name!r} does not exist "
                    f"(node sets: {sorted(self._node_sets)})"
                )
            if not check_range or len(adj) == 0:
                continue
            ns = self._node_sets[set_name]
            idx = adj[tag]
            if self._rank == 0:
                lo, hi = (
                    int(v) for v in to_numpy(get_namespace(idx).stack([idx.min(), idx.max()]))
                )
                if lo < 0:
                    raise ValueError(f"edge set {name!r}: {role} index {lo} < 0")
                if hi >= ns.total_size:
                    raise ValueError(
                        f"edge set {name!r}: {role} index {hi} >= {ns.total_size} nodes in "
                        f"node set {set_name!r}"
                    )
            else:
                xp = get_namespace(idx.values)
                limit = ns._totals_per_graph()[_row_ids(idx.row_splits, len(adj))]
                bad = (idx.values < 0) | (idx.values >= limit)
                if bool(xp.any(bad)):
                    e = int(to_numpy(xp.argmax(bad)))
                    g = int(to_numpy(_row_ids(idx.row_splits, len(adj))[e]))
                    raise ValueError(
                        f"edge set {name!r}: graph {g}: {role} index "
                        f"{int(to_numpy(idx.values[e]))} out of range for "
                        f"{int(to_numpy(limit[e]))} nodes in node set {set_name!r}"
                    )

    # reading -----------------------------------------------------------------------------
    @property
    def context(self) -> Context:
        return self._context

    @property
    def node_sets(self) -> Mapping[str, NodeSet]:
        """Read-only ``{name: NodeSet}``."""
        return self._node_sets

    @property
    def edge_sets(self) -> Mapping[str, EdgeSet]:
        """Read-only ``{name: EdgeSet}``."""
        return self._edge_sets

    @property
    def num_components(self) -> Any:
        """Components of a scalar graph (int); per graph ``[batch_size]`` if batched."""
        return self._num_components

    @property
    def total_num_components(self) -> int:
        """Components in all graphs of a batch (TF-GNN's ``total_num_components``): an int,
        ``num_components`` for a scalar graph, its sum for a batch."""
        return self._context.total_num_components

    @property
    def rank(self) -> int:
        """0 for a scalar graph, 1 for a batch of graphs."""
        return self._rank

    @property
    def shape(self) -> tuple[int, ...]:
        """``()`` for a scalar graph, ``(batch_size,)`` for a batch."""
        return () if self._rank == 0 else (self._context.sizes.nrows,)

    @property
    def spec(self) -> GraphTensorSpec:
        """Names, feature dtypes / per-item shapes and adjacency names (no values)."""
        return GraphTensorSpec(
            context=self._context.spec,
            node_sets={k: v.spec for k, v in self._node_sets.items()},
            edge_sets={k: v.spec for k, v in self._edge_sets.items()},
            rank=self._rank,
        )

    # immutable updates -------------------------------------------------------------------
    def replace_features(
        self,
        context: Mapping[str, Any] | None = None,
        node_sets: Mapping[str, Mapping[str, Any]] | None = None,
        edge_sets: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> GraphTensor:
        """A new graph in which the given pieces have exactly the given feature maps.

        Pieces not mentioned keep theirs; arrays are shared, never copied.
        """
        new_context = self._context
        if context is not None:
            new_context = self._context.replace_features(_frozen_features(context, "context"))
        new_nodes = dict(self._node_sets)
        for name, feats in (node_sets or {}).items():
            if name not in self._node_sets:
                raise ValueError(
                    f"replace_features: no node set {name!r} (node sets: {sorted(self._node_sets)})"
                )
            ns = self._node_sets[name]
            new_nodes[name] = NodeSet._make(ns._sizes, feats, f"node set {name!r}")
        new_edges = dict(self._edge_sets)
        for name, feats in (edge_sets or {}).items():
            if name not in self._edge_sets:
                raise ValueError(
                    f"replace_features: no edge set {name!r} (edge sets: {sorted(self._edge_sets)})"
                )
            es = self._edge_sets[name]
            new_edges[name] = EdgeSet._make(es._sizes, es._adjacency, feats, f"edge set {name!r}")
        return self._rebuilt(new_context, new_nodes, new_edges)

    def remove_features(
        self,
        context: Iterable[str] | None = None,
        node_sets: Mapping[str, Iterable[str]] | None = None,
        edge_sets: Mapping[str, Iterable[str]] | None = None,
    ) -> GraphTensor:
        """A new graph without the named features (unknown names raise ``ValueError``)."""

        def drop(piece: _Piece, names: Iterable[str], where: str) -> dict[str, Any]:
            if isinstance(names, str):
                names = [names]
            names = list(names)
            missing = [n for n in names if n not in piece.features]
            if missing:
                raise ValueError(
                    f"remove_features: {where} has no feature(s) {missing} "
                    f"(features: {sorted(piece.features)})"
                )
            return {k: v for k, v in piece.features.items() if k not in names}

        ctx = None if context is None else drop(self._context, context, "context")
        nodes = {}
        for name, names in (node_sets or {}).items():
            if name not in self._node_sets:
                raise ValueError(f"remove_features: no node set {name!r}")
            nodes[name] = drop(self._node_sets[name], names, f"node set {name!r}")
        edges = {}
        for name, names in (edge_sets or {}).items():
            if name not in self._edge_sets:
                raise ValueError(f"remove_features: no edge set {name!r}")
            edges[name] = drop(self._edge_sets[name], names, f"edge set {name!r}")
        return self.replace_features(context=ctx, node_sets=nodes, edge_sets=edges)

    def _rebuilt(self, context: Context, nodes: dict, edges: dict) -> GraphTensor:
        """Same structure (already validated), new features: skip the index checks."""
        return GraphTensor._trusted(context, nodes, edges)

    @classmethod
    def _trusted(cls, context: Context, nodes: dict, edges: dict) -> GraphTensor:
        """Internal: a graph from pieces known to be consistent (no checks)."""
        g = cls.__new__(cls)
        g._context = context
        g._node_sets = MappingProxyType(nodes)
        g._edge_sets = MappingProxyType(edges)
        g._rank = context.rank
        g._num_components = context.num_components
        return g

    def _index_arrays(self) -> list[Any]:
        """Every ``sizes`` array and adjacency index array (a Ragged's values)."""
        out = [self._context.sizes]
        out += [p.sizes for p in self._node_sets.values()]
        for p in self._edge_sets.values():
            out.append(p.sizes)
            out += [i for _, i in p.adjacency.get_indices_dict().values()]
        return [v.values if isinstance(v, Ragged) else v for v in out]

    @property
    def indices_dtype(self) -> np.dtype:
        """TF-GNN's ``indices_dtype``: the dtype of the sizes and adjacency indices (arraygnn
        lets them differ; then the one that holds them all, ``np.result_type``)."""
        return np.result_type(*(v.dtype for v in self._index_arrays()))

    def with_indices_dtype(self, dtype: Any) -> GraphTensor:
        """TF-GNN's ``with_indices_dtype``: the same graph with every ``sizes`` and adjacency
        index array cast to ``dtype`` (int32 or int64; ``ValueError`` when int32 cannot hold
        a total size). Features are shared, not copied."""
        dtype = np.dtype(dtype)
        if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise ValueError(f"with_indices_dtype: dtype must be int32 or int64, got {dtype}")
        if dtype == np.int32:
            limit = int(np.iinfo(np.int32).max)
            pieces = [("context", self._context)]
            pieces += [(f"node set {n!r}", p) for n, p in self._node_sets.items()]
            pieces += [(f"edge set {n!r}", p) for n, p in self._edge_sets.items()]
            for where, p in pieces:
                if max(p.total_size, p.total_num_components) > limit:
                    raise ValueError(f"with_indices_dtype: {where} is too large for int32")

        def cast(v: Any) -> Any:
            if isinstance(v, Ragged):
                return Ragged(cast(v.values), v.row_splits, validate=False)
            return v if v.dtype == dtype else v.astype(dtype)

        ctx = Context.from_fields(features=self._context.features, sizes=cast(self._context.sizes))
        nodes = {
            n: NodeSet.from_fields(sizes=cast(p.sizes), features=p.features)
            for n, p in self._node_sets.items()
        }
        edges = {
            n: EdgeSet.from_fields(
                sizes=cast(p.sizes), adjacency=p.adjacency._mapped(cast), features=p.features
            )
            for n, p in self._edge_sets.items()
        }
        return GraphTensor.from_pieces(ctx, nodes, edges, validate=False)

    def merge_batch_to_components(self) -> GraphTensor:
        """Merge a batched graph (rank 1) into one scalar graph whose components are the
        components of all graphs in order (node indices shifted per node set)."""
        from arraygnn.graph_tensor.batching import merge_batch_to_components

        return merge_batch_to_components(self)

    def to(self, device: str) -> GraphTensor:
        """The same graph with every array moved to ``device`` (``'cpu'`` / ``'cuda'``)."""

        def mv(v: Any) -> Any:
            return v.to(device) if isinstance(v, Ragged) else to_device(v, device)

        ctx = Context.from_fields(
            features={k: mv(v) for k, v in self._context.features.items()},
            sizes=mv(self._context.sizes),
        )
        nodes = {
            n: NodeSet.from_fields(
                sizes=mv(p.sizes), features={k: mv(v) for k, v in p.features.items()}
            )
            for n, p in self._node_sets.items()
        }
        edges = {}
        for n, p in self._edge_sets.items():
            a = p.adjacency
            edges[n] = EdgeSet.from_fields(
                sizes=mv(p.sizes),
                adjacency=a._mapped(mv),
                features={k: mv(v) for k, v in p.features.items()},
            )
        return GraphTensor.from_pieces(ctx, nodes, edges, validate=False)

    def __repr__(self) -> str:
        lines = [f"GraphTensor(rank={self._rank}, num_components={_show(self._num_components)},"]
        lines.append(f"  context={self._context!r},")
        for n, p in self._node_sets.items():
            lines.append(f"  node set {n!r}: {p!r},")
        for n, p in self._edge_sets.items():
            a = p.adjacency
            lines.append(f"  edge set {n!r} ({a._ends()}): {p!r},")
        return "\n".join(lines) + "\n)"


def _show(x: Any) -> Any:
    return x if isinstance(x, int) else to_numpy(x).tolist()


def _named_pieces(
    context: Context, node_sets: Mapping[str, NodeSet], edge_sets: Mapping[str, EdgeSet]
) -> list[tuple[str, _Piece]]:
    out: list[tuple[str, _Piece]] = [("context", context)]
    out += [(f"node set {n!r}", p) for n, p in node_sets.items()]
    out += [(f"edge set {n!r}", p) for n, p in edge_sets.items()]
    return out


def _sets_index_dtype(node_sets: Mapping, edge_sets: Mapping) -> np.dtype | None:
    """The integer dtype holding every set's sizes and adjacency indices (None: no sets)."""
    arrays = [p.sizes for p in (*node_sets.values(), *edge_sets.values())]
    arrays += [i for es in edge_sets.values() for _, i in es.adjacency.get_indices_dict().values()]
    if not arrays:
        return None
    dtype = np.result_type(*(a.values.dtype if isinstance(a, Ragged) else a.dtype for a in arrays))
    return dtype if dtype.kind in "iu" else np.dtype(np.int64)  # e.g. int64 with uint64


def _sizes_as(sizes: Any, dtype: Any) -> Any:
    if isinstance(sizes, Ragged):
        return Ragged(sizes.values.astype(dtype, copy=False), sizes.row_splits, validate=False)
    return sizes.astype(dtype, copy=False)


def _context_sizes(
    reference: tuple[str, Any] | None,
    rank: int,
    node_sets: Mapping,
    edge_sets: Mapping,
    dtype: Any = None,
) -> Any:
    """Context sizes (all ones, ``dtype`` or int64) for the number of components the sets
    agree on."""
    dtype = np.int64 if dtype is None else dtype
    if reference is None:
        return np.ones(0, dtype=dtype)
    _, ncomp = reference
    if rank == 0:
        some = next(iter([*node_sets.values(), *edge_sets.values()]))
        return get_namespace(some.sizes).ones(ncomp, dtype=dtype)
    xp = get_namespace(ncomp)
    splits = _splits_from_lengths(ncomp)
    return Ragged(xp.ones(int(to_numpy(splits[-1])), dtype=dtype), splits)
