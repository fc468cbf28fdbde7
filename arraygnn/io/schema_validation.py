"""TF-GNN's schema helpers on arraygnn's ``GraphSchema`` dataclasses: ``iter_sets``,
``iter_features``, ``validate_schema`` and ``check_required_features``.

RULE: ``validate_schema`` runs TF-GNN's checks in TF-GNN's order and raises
      :class:`ValidationError` (a ``ValueError``) at the first failure: every feature has a
      supported ``dtype`` (bool, integer and floating types and ``DT_STRING``; not
      ``DT_*_REF``, quantized, complex or resource types); no shape has ``unknown_rank``;
      no shape ``dim`` carries a ``name`` unless the feature has a ``description``;
      ``#size`` is no node / edge set feature and ``#source`` / ``#target`` no edge set
      feature; context references exist; every edge set has a non-empty name and names
      existing ``source`` / ``target`` node sets; the readout node sets (``"_readout"`` if
      present, else those given) are well formed for ``structured_readout``. It returns
      the warnings (shapes ``[1]`` that should be scalar) as a list of ``ValidationError``.
RULE: ``check_required_features(requirements, actual)`` needs every feature of
      ``requirements`` in ``actual`` with the same ``dtype`` (if the requirement sets one)
      and the same shape (if set; a required ``size: 0`` accepts any size).
RULE: ``iter_sets`` yields the context only when the schema has one (a GraphTensor always
      has one); ``iter_features`` also accepts a GraphTensor and yields its arrays.

>>> from arraygnn.io.schema import parse_schema
>>> s = parse_schema('''
... node_sets { key: "v" value { features { key: "x" value { dtype: DT_FLOAT } } } }
... edge_sets { key: "e" value { source: "v" target: "w" } }''')
>>> [t for t in iter_features(s)]
[('nodes', 'v', 'x', FeatureSchema(description=None, dtype='DT_FLOAT', shape=None, source=None))]
>>> try:
...     validate_schema(s)
... except ValidationError as e:
...     print(e)
Edge set 'e' referencing unknown node set 'w'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from arraygnn.io.schema import GraphSchema

__all__ = [
    "ValidationError",
    "iter_sets",
    "iter_features",
    "validate_schema",
    "check_required_features",
    "is_supported_dtype",
]

CONTEXT, NODES, EDGES = "context", "nodes", "edges"
_SIZE, _SOURCE, _TARGET = "#size", "#source", "#target"
_SHADOW_PREFIX = "_shadow/"

# TF's dtype.is_bool / is_integer / is_floating, or DT_STRING (graph_tensor_io.get_io_dtype)
_SUPPORTED = frozenset(
    {
        "DT_BOOL",
        "DT_INT8",
        "DT_INT16",
        "DT_INT32",
        "DT_INT64",
        "DT_UINT8",
        "DT_UINT16",
        "DT_UINT32",
        "DT_UINT64",
        "DT_HALF",
        "DT_BFLOAT16",
        "DT_FLOAT",
        "DT_DOUBLE",
        "DT_STRING",
    }
)


class ValidationError(ValueError):
    """A schema validation error (TF-GNN's ``tfgnn.ValidationError``)."""


def is_supported_dtype(dtype: Any) -> bool:
    """True for a ``DT_*`` name that ``tf.Example`` I/O supports (see the module RULE)."""
    return isinstance(dtype, str) and dtype in _SUPPORTED


def _printable_supported_dtypes() -> str:
    return (
        "Supported types are boolean, (non-quantized) integer types, "
        "(non-quantized, non-complex) floating-point types and `string`."
    )


def _is_graph_tensor(obj: Any) -> bool:
    from arraygnn.graph_tensor.pieces import GraphTensor

    return isinstance(obj, GraphTensor)


def _check_schema(schema: Any, op: str) -> None:
    if not isinstance(schema, GraphSchema) and not _is_graph_tensor(schema):
        raise TypeError(f"{op}: expected a GraphSchema, got {type(schema).__name__}")


def iter_sets(schema: Any) -> Iterator[tuple[str, str, Any]]:
    """``(set_type, set_name, set)`` for the context (name ``""``), each node set, then each
    edge set of a ``GraphSchema`` or a ``GraphTensor``."""
    _check_schema(schema, "iter_sets()")
    if not isinstance(schema, GraphSchema) or schema.context is not None:
        yield (CONTEXT, "", schema.context)
    for name, s in schema.node_sets.items():
        yield (NODES, name, s)
    for name, s in schema.edge_sets.items():
        yield (EDGES, name, s)


def iter_features(schema: Any) -> Iterator[tuple[str, str, str, Any]]:
    """``(set_type, set_name, feature_name, feature)`` over the context, node sets and edge
    sets; ``feature`` is a ``FeatureSchema`` (an array / Ragged for a GraphTensor)."""
    _check_schema(schema, "iter_features()")
    for set_type, set_name, s in iter_sets(schema):
        for fname, feature in s.features.items():
            yield (set_type, set_name, fname, feature)


def _dims(feature: Any) -> list[Any]:
    return list(feature.shape.dim) if feature.shape is not None else []


def validate_schema(
    schema: GraphSchema, readout_node_sets: Sequence[str] | None = None
) -> list[Exception]:
    """Check ``schema`` (see the module RULE); returns the list of warnings."""
    if not isinstance(schema, GraphSchema):
        raise TypeError(f"validate_schema(): expected a GraphSchema, got {type(schema).__name__}")
    feats = list(iter_features(schema))
    for set_type, set_name, fname, f in feats:
        if f.dtype is None:
            raise ValidationError(
                f"Missing 'dtype' field on {set_type} set '{set_name}' feature '{fname}'"
            )
        if not is_supported_dtype(f.dtype):
            raise ValidationError(
                f"Invalid 'dtype' field {f.dtype} on {set_type} set '{set_name}' feature "
                f"'{fname}': {f.dtype}; valid types include: {_printable_supported_dtypes()}"
            )
    for set_type, set_name, fname, f in feats:
        if f.shape is not None and f.shape.unknown_rank:
            raise ValidationError(
                f"Shapes must have a known rank; on {set_type} set '{set_name}' feature '{fname}'"
            )
    named = [
        (t, s, n) for t, s, n, f in feats if f.description is None and any(d.name for d in _dims(f))
    ]
    if named:
        raise ValidationError(
            "The following features are incorrectly locating the description on the shape "
            f"dimensions 'name' field: {','.join(str(x) for x in named)}; use the "
            "'description' field of the feature instead"
        )
    _check_reserved(schema)
    for kind, sets in (("node set", schema.node_sets), ("edge set", schema.edge_sets)):
        context = schema.context.features if schema.context is not None else {}
        for name, s in sets.items():
            for feature in s.context:
                if feature not in context:
                    raise ValidationError(
                        f"Context feature '{feature}' does not exist (from {kind} '{name}')"
                    )
    for name, es in schema.edge_sets.items():
        if not name:
            raise ValidationError("Edge set name cannot be empty.")
        if not es.source:
            raise ValidationError(f"Edge set {name} must specify a `source`.")
        if not es.target:
            raise ValidationError(f"Edge set {name} must specify a `target`.")
        for ref in (es.source, es.target):
            if ref not in schema.node_sets:
                raise ValidationError(f"Edge set '{name}' referencing unknown node set '{ref}'")
    _check_readout(schema, readout_node_sets)
    warnings: list[Exception] = []
    for set_type, set_name, fname, f in feats:
        dims = _dims(f)
        if len(dims) == 1 and dims[0].size == 1:
            warnings.append(
                ValidationError(
                    f"Unnecessary shape of [1] in {set_type} set '{set_name}' / '{fname}'; use "
                    "scalar feature instead (i.e., specify an empty shape proto)."
                )
            )
    return warnings


def _check_reserved(schema: GraphSchema) -> None:
    node = [("nodes", n, s.features) for n, s in schema.node_sets.items()]
    edge = [("edges", n, s.features) for n, s in schema.edge_sets.items()]
    for set_type, set_name, features in node + edge:
        if _SIZE in features:
            raise ValidationError(f"Feature '{_SIZE}' from {set_type} set '{set_name}' is reserved")
    for set_type, set_name, features in edge:
        for reserved in (_SOURCE, _TARGET):
            if reserved in features:
                raise ValidationError(
                    f"Feature '{reserved}' from {set_type} set '{set_name}' is reserved"
                )
    # other names matching TF-GNN's RESERVED_FEATURE_NAME_PATTERN ("#.*") are only logged


def _check_readout(schema: GraphSchema, readout_node_sets: Sequence[str] | None) -> None:
    """TF-GNN's ``validate_graph_tensor_spec_for_readout`` on the schema's set names."""
    if readout_node_sets is None:
        if "_readout" not in schema.node_sets:
            return
        readout_node_sets = ["_readout"]
    for readout in readout_node_sets:
        try:
            _readout_edge_sets(schema, readout)
        except (ValueError, KeyError) as e:
            raise ValidationError(
                "tfgnn.validate_graph_tensor_spec_for_readout(..., "
                f"readout_node_set='{readout}') failed: {e}"
            ) from e


def _readout_edge_sets(schema: GraphSchema, readout: str) -> None:
    from arraygnn.pipeline.readout_features import readout_edge_set_map

    prefix = f"{readout}/"
    ends = {
        name: (es.source, es.target)
        for name, es in schema.edge_sets.items()
        if name.startswith(prefix)
    }
    readout_edge_set_map(readout, list(schema.node_sets), list(schema.edge_sets), ends)


def check_required_features(requirements: GraphSchema, actual: GraphSchema) -> None:
    """``ValidationError`` unless ``actual`` has every feature of ``requirements`` with a
    matching dtype and shape (see the module RULE)."""
    for what, s in (("requirements", requirements), ("actual", actual)):
        if not isinstance(s, GraphSchema):
            raise TypeError(
                f"check_required_features(): {what} must be a GraphSchema, got {type(s).__name__}"
            )
    given = {(t, s, n): f for t, s, n, f in iter_features(actual)}
    for (set_type, set_name, fname), req in (
        ((t, s, n), f) for t, s, n, f in iter_features(requirements)
    ):
        have = given.get((set_type, set_name, fname))
        where = f"{set_type.capitalize()} feature '{fname}' from set '{set_name}'"
        if have is None:
            raise ValidationError(f"{where} is missing from given schema")
        if req.dtype is not None and req.dtype != have.dtype:
            raise ValidationError(f"{where} has invalid type: {have.dtype}")
        if req.shape is not None:
            want, got = _dims(req), _dims(have)
            # an unset size is protobuf's default 0; a required 0 accepts any size
            if len(got) != len(want) or any(
                (w.size or 0) != 0 and (w.size or 0) != (g.size or 0) for w, g in zip(want, got)
            ):
                raise ValidationError(f"{where} has invalid shape: {have.shape}")
