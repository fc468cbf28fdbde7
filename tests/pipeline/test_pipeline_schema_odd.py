"""GraphSchema text format corner cases: every graph_schema.proto field, protobuf's literal
rules, map keys given twice, byte-order-blind dtypes, DT_STRING and raw bytes."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

gt = pytest.importorskip("arraygnn.graph_tensor")

from arraygnn.graph_tensor.spec import (  # noqa: E402
    ContextSpec,
    EdgeSetSpec,
    FeatureSpec,
    GraphTensorSpec,
    NodeSetSpec,
)
from arraygnn.io import schema as schema_mod  # noqa: E402
from arraygnn.io.example import parse_example, parse_single_example, write_example  # noqa: E402
from arraygnn.io.schema import (  # noqa: E402
    BigQuerySchema,
    GraphSchema,
    MetadataSchema,
    NodeSetSchema,
    TableSpecSchema,
    check_graph_conforms,
    create_graph_spec_from_schema,
    create_schema_from_graph_spec,
    parse_schema,
    schema_to_text,
)


def _dim_size(text: str) -> int:
    s = parse_schema(
        f'context {{ features {{ key: "x" value {{ shape {{ dim {{ size: {text} }} }} }} }} }}'
    )
    return s.context.features["x"].shape.dim[0].size


def _root_set(literal: str) -> str:
    return parse_schema(f"info {{ root_set: {literal} }}").info.root_set[0]


# ---------------------------------------------------------------------------------------------
# 1. every field of tensorflow_gnn/proto/graph_schema.proto (and the TF protos it uses)
# ---------------------------------------------------------------------------------------------

# message -> {field: type} as in graph_schema.proto, tensor_shape.proto (types.proto: DataType)
PROTO_FIELDS = {
    "GraphSchema": {
        "context": "Context",
        "node_sets": "map<string, NodeSet>",
        "edge_sets": "map<string, EdgeSet>",
        "info": "OriginInfo",
    },
    "Feature": {
        "description": "string",
        "dtype": "enum DataType",
        "shape": "TensorShapeProto",
        "source": "string",
    },
    "TensorShapeProto": {"dim": "repeated TensorShapeProto.Dim", "unknown_rank": "bool"},
    "TensorShapeProto.Dim": {"size": "int64", "name": "string"},
    "BigQuery": {
        "table_spec": "BigQuery.TableSpec",
        "sql": "string",
        "read_method": "enum ReadMethod",
        "reshuffle": "bool",
    },
    "BigQuery.TableSpec": {"project": "string", "dataset": "string", "table": "string"},
    "Metadata": {
        "extra": "repeated Metadata.KeyValue",
        "filename": "string",
        "cardinality": "int64",
        "bigquery": "BigQuery",
    },
    "Metadata.KeyValue": {"key": "string", "value": "string"},
    "Context": {"features": "map<string, Feature>", "metadata": "Metadata"},
    "NodeSet": {
        "description": "string",
        "features": "map<string, Feature>",
        "context": "repeated string",
        "metadata": "Metadata",
    },
    "EdgeSet": {
        "description": "string",
        "features": "map<string, Feature>",
        "source": "string",
        "target": "string",
        "context": "repeated string",
        "metadata": "Metadata",
    },
    "OriginInfo": {"graph_type": "enum GraphType", "root_set": "repeated string"},
}


def _describe(kind, label) -> str:
    if isinstance(kind, type):
        name = schema_mod._PROTO_NAMES[kind]
        return {"map": f"map<string, {name}>", "repeated": f"repeated {name}"}.get(label, name)
    if isinstance(kind, tuple):
        enum = {id(schema_mod._DATA_TYPES): "DataType", id(schema_mod._GRAPH_TYPES): "GraphType"}
        return "enum " + enum.get(id(kind[1]), "ReadMethod")
    base = {"str": "string", "int": "int64", "bool": "bool"}[kind]
    return f"repeated {base}" if label == "repeated" else base


def test_descriptor_table_matches_graph_schema_proto():
    got = {
        schema_mod._PROTO_NAMES[cls]: {f: _describe(*v) for f, v in desc.items()}
        for cls, desc in schema_mod._DESCRIPTORS.items()
    }
    assert got == PROTO_FIELDS
    assert schema_mod._READ_METHODS == {"UNSPECIFIED": 0, "EXPORT": 1, "DIRECT_READ": 2}
    assert schema_mod._ONEOFS[BigQuerySchema] == {"table_spec": "source", "sql": "source"}


def test_bigquery_metadata_parses_and_writes_back():
    s = parse_schema(
        'node_sets { key: "p" value { metadata { cardinality: 5 bigquery { table_spec '
        '{ table: "t" } } } } }'
    )
    md = s.node_sets["p"].metadata
    assert md.cardinality == 5 and md.bigquery == BigQuerySchema(TableSpecSchema(table="t"))
    assert parse_schema(schema_to_text(s)) == s
    s = parse_schema(
        'edge_sets { key: "e" value { source: "a" target: "a" metadata { bigquery { sql: '
        '"SELECT 1" read_method: DIRECT_READ reshuffle: true } } } }'
    )
    bq = s.edge_sets["e"].metadata.bigquery
    assert (bq.sql, bq.read_method, bq.reshuffle, bq.table_spec) == (
        "SELECT 1",
        "DIRECT_READ",
        True,
        None,
    )
    assert parse_schema(schema_to_text(s)) == s


def test_bigquery_oneof_and_enum_errors():
    with pytest.raises(ValueError, match=r"line 2: field 'sql' of BigQuery given along with "):
        parse_schema('context { metadata { bigquery { table_spec { }\n sql: "x" } } }')
    with pytest.raises(ValueError, match=r"field 'read_method' of BigQuery: unknown enum value"):
        parse_schema("context { metadata { bigquery { read_method: IMPORT } } }")
    both = GraphSchema(
        node_sets={
            "n": NodeSetSchema(
                metadata=MetadataSchema(bigquery=BigQuerySchema(TableSpecSchema(), sql="x"))
            )
        }
    )
    with pytest.raises(ValueError, match=r"BigQuery: 'table_spec' and 'sql' are both set"):
        schema_to_text(both)


@pytest.mark.parametrize(
    "name", ["DT_QINT8", "DT_RESOURCE", "DT_VARIANT", "DT_INT4", "DT_FLOAT_REF"]
)
def test_all_tensorflow_dtypes_parse(name):
    s = parse_schema(f'context {{ features {{ key: "x" value {{ dtype: {name} }} }} }}')
    assert s.context.features["x"].dtype == name
    assert parse_schema(schema_to_text(s)) == s
    with pytest.raises(ValueError, match=rf"feature 'x': dtype {name} has no NumPy equivalent"):
        create_graph_spec_from_schema(s)


def test_open_datatype_enum_keeps_unknown_numbers():
    s = parse_schema('context { features { key: "x" value { dtype: 999 } } }')
    assert s.context.features["x"].dtype == 999
    assert "dtype: 999" in schema_to_text(s)
    assert parse_schema(schema_to_text(s)) == s
    with pytest.raises(ValueError, match=r"unknown enum number 9$"):
        parse_schema("info { graph_type: 9 }")  # GraphType is a closed (proto2) enum


def test_proto3_fields_may_repeat_over_a_default():
    s = parse_schema(
        'context { features { key: "x" value { shape { unknown_rank: false unknown_rank: true '
        "dim { size: 0 size: 4 } } } } }"
    )
    shape = s.context.features["x"].shape
    assert shape.unknown_rank is True and shape.dim[0].size == 4
    with pytest.raises(ValueError, match=r"field 'size' of TensorShapeProto.Dim given twice"):
        _dim_size("4 size: 0")


def test_extensions_are_refused_clearly():
    with pytest.raises(ValueError, match=r"line 1: extension fields \(\[\.\.\.\]\) in Feature"):
        parse_schema('context { features { key: "x" value { [my.ext] { } } } }')


# ---------------------------------------------------------------------------------------------
# 2. integer literals
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("010", 8),
        ("-010", -8),
        ("0777", 511),
        ("00", 0),
        ("0", 0),
        ("10", 10),
        ("+5", 5),
        ("0x1F", 31),
        ("0X1f", 31),
        ("-0x10", -16),
        ("- 5", -5),
        ("-\n # comment\n 010", -8),
        ("-9223372036854775808", -(2**63)),
        ("0x7FFFFFFFFFFFFFFF", 2**63 - 1),
    ],
)
def test_integer_literals_follow_protobuf(text, value):
    assert _dim_size(text) == value


@pytest.mark.parametrize(
    "text", ["08", "019", "+010", "1e3", "1.5f", "1.0", "inf", "nan", "5name", "0x", "0o17", "1_0"]
)
def test_bad_integer_literals_are_refused(text):
    with pytest.raises(
        ValueError, match=r"field 'size' of TensorShapeProto.Dim expects an integer"
    ):
        _dim_size(text)


def test_integer_range_and_enum_bool_numbers():
    with pytest.raises(ValueError, match=r"9223372036854775808 does not fit in int64"):
        _dim_size("0x8000000000000000")
    s = parse_schema('context { features { key: "x" value { dtype: 0x9 } } }')
    assert s.context.features["x"].dtype == "DT_INT64"
    assert parse_schema("info { graph_type: 02 }").info.graph_type == "SUBGRAPH"
    with pytest.raises(ValueError, match=r"does not fit in int32"):
        parse_schema('context { features { key: "x" value { dtype: 0x80000000 } } }')
    assert parse_schema("context { features { key: 'x' value { shape { unknown_rank: 1 } } } }")


# ---------------------------------------------------------------------------------------------
# 3. string escapes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "literal, value",
    [
        (r'"\u00e9"', "é"),
        (r'"\U0001F600"', "\U0001f600"),
        (r'"\U0010FFFF"', "\U0010ffff"),
        (r'"\a\b\f\n\r\t\v"', "\a\b\f\n\r\t\v"),
        (r'"\\ \' \" \?"', "\\ ' \" ?"),
        (r"'\"'", '"'),
        (r'"\101\0\08\1234"', "A\x00\x008S4"),
        (r'"\x41\x4\x414"', "A\x04A4"),
        (r'"\303\251"', "é"),
        (r'"\xc3" "\xa9"', "é"),  # UTF-8 split across adjacent strings
        (r'"\\u00e9"', "\\u00e9"),
        ('"é😀"', "é😀"),
    ],
)
def test_string_escapes_follow_protobuf(literal, value):
    assert _root_set(literal) == value
    s = parse_schema(f"info {{ root_set: {literal} }}")
    assert parse_schema(schema_to_text(s)) == s


@pytest.mark.parametrize(
    "literal, message",
    [
        (r'"\400"', r"octal escape \\400 is above \\377"),
        (r'"\X41"', r"unknown escape \\X"),
        (r'"\q"', r"unknown escape \\q"),
        (r'"\x"', r"\\x needs a hex digit"),
        (r'"\u12"', r"\\u needs exactly 4 hex digits"),
        (r'"\U0001F60"', r"\\U needs exactly 8 hex digits"),
        (r'"\ud800"', r"\\ud800 is not a Unicode scalar value"),
        (r'"\U00110000"', r"\\U00110000 is not a Unicode scalar value"),
        (r'"\351"', r"field 'root_set' of OriginInfo: string .* is not valid UTF-8"),
        ('"abc', r"string misses its closing quote"),
    ],
)
def test_bad_string_escapes_are_refused(literal, message):
    with pytest.raises(ValueError, match=r"^line 1: .*" + message):
        _root_set(literal)


# ---------------------------------------------------------------------------------------------
# 4. a map key given twice keeps the last value
# ---------------------------------------------------------------------------------------------


def test_repeated_map_key_keeps_the_last_value():
    s = parse_schema(
        'node_sets { key: "a" value { description: "first" } }\n'
        'node_sets { key: "b" }\n'
        'node_sets [{ key: "a" value { description: "last" } }]\n'
        'context { features { key: "f" value { dtype: DT_INT32 } }'
        ' features { key: "f" value { } } }'
    )
    assert list(s.node_sets) == ["a", "b"]
    assert s.node_sets["a"].description == "last"
    assert s.context.features["f"].dtype is None


# ---------------------------------------------------------------------------------------------
# 5. byte order does not matter to the schema helpers
# ---------------------------------------------------------------------------------------------


def _big_endian_graph():
    return gt.GraphTensor.from_pieces(
        context=gt.Context.from_fields(features={"c": np.array([1.5], dtype=">f8")}),
        node_sets={
            "n": gt.NodeSet.from_fields(
                sizes=np.array([2]),
                features={
                    "x": np.array([1, 2], dtype=">f4"),
                    "i": np.array([[1, 2], [3, 4]], dtype=">i8"),
                },
            )
        },
        edge_sets={
            "e": gt.EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=gt.Adjacency.from_indices(
                    source=("n", np.array([0])), target=("n", np.array([1]))
                ),
                features={"w": np.array([3], dtype=">u2")},
            )
        },
    )


def test_big_endian_features_have_dt_names_and_conform():
    g = _big_endian_graph()
    s = create_schema_from_graph_spec(g)
    assert s.context.features["c"].dtype == "DT_DOUBLE"
    assert s.node_sets["n"].features["x"].dtype == "DT_FLOAT"
    assert s.node_sets["n"].features["i"].dtype == "DT_INT64"
    assert s.edge_sets["e"].features["w"].dtype == "DT_UINT16"
    check_graph_conforms(g, s)
    check_graph_conforms(g, create_graph_spec_from_schema(s))
    s.node_sets["n"].features["x"].dtype = "DT_DOUBLE"
    with pytest.raises(ValueError, match=r"node set 'n', feature 'x': dtype >f4, schema says "):
        check_graph_conforms(g, s)


def test_dtype_error_names_the_feature():
    spec = GraphTensorSpec(
        context=ContextSpec({"t": FeatureSpec(np.dtype("M8[D]"), ())}),
        node_sets={"n": NodeSetSpec({"t": FeatureSpec(np.dtype("M8[D]"), ())})},
        edge_sets={"e": EdgeSetSpec("n", "n", {"t": FeatureSpec(np.dtype("m8[s]"), ())})},
    )
    with pytest.raises(ValueError, match=r"^context feature 't': dtype datetime64\[D\] has no"):
        create_schema_from_graph_spec(spec)
    spec = dataclasses.replace(spec, context=ContextSpec())
    with pytest.raises(ValueError, match=r"^node set 'n', feature 't': dtype datetime64\[D\]"):
        create_schema_from_graph_spec(spec)
    spec = dataclasses.replace(spec, node_sets={"n": NodeSetSpec()})
    with pytest.raises(ValueError, match=r"^edge set 'e', feature 't': dtype timedelta64\[s\]"):
        create_schema_from_graph_spec(spec)


# ---------------------------------------------------------------------------------------------
# 6. DT_STRING reads as str; an object spec feature keeps raw bytes exactly
# ---------------------------------------------------------------------------------------------

RAW = [b"ab\x00\x00", b"\xff\xfe\x00", b"", b"\x00"]


def test_dt_string_rule_is_documented():
    doc = " ".join(schema_mod.__doc__.split())
    assert "``DT_STRING`` features read as NumPy ``str``" in doc
    assert "trailing NUL" in doc and "``object``-dtype ``FeatureSpec``" in doc


def test_object_spec_feature_round_trips_raw_bytes():
    s = parse_schema(
        'node_sets { key: "n" value { features { key: "b" value { dtype: DT_STRING } } } }'
    )
    spec = create_graph_spec_from_schema(s)
    assert spec.node_sets["n"].features["b"].dtype == np.dtype(np.str_)
    raw = np.empty(len(RAW), dtype=object)
    raw[:] = RAW
    g = gt.GraphTensor.from_pieces(
        node_sets={"n": gt.NodeSet.from_fields(sizes=np.array([4]), features={"b": raw})}
    )
    check_graph_conforms(g, s)  # object strings conform to DT_STRING
    blob = write_example(g)
    with pytest.raises(ValueError, match=r"key 'nodes/n.b' holds bytes that are not UTF-8"):
        parse_single_example(spec, blob)
    obj_spec = dataclasses.replace(
        spec, node_sets={"n": NodeSetSpec({"b": FeatureSpec(object, ())})}
    )
    got = parse_single_example(obj_spec, blob).node_sets["n"].features["b"]
    assert got.dtype == object and got.tolist() == RAW
    many = parse_example(obj_spec, [blob] * 12).node_sets["n"].features["b"]  # batch path
    assert many.tolist() == RAW * 12
    # the documented loss: NumPy's str dtype drops trailing NULs
    text = gt.GraphTensor.from_pieces(
        node_sets={
            "n": gt.NodeSet.from_fields(
                sizes=np.array([1]), features={"b": np.array([b"ab\x00"], dtype=object)}
            )
        }
    )
    assert parse_single_example(spec, write_example(text)).node_sets["n"].features["b"][0] == "ab"


# ---------------------------------------------------------------------------------------------
# protobuf's own text parser as the reference (skipped without protobuf)
# ---------------------------------------------------------------------------------------------


def _reference_parser():
    """GraphSchema message class built from graph_schema.proto's fields via descriptor_pool."""
    pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    pool_mod = importlib.import_module("google.protobuf.descriptor_pool")
    factory = importlib.import_module("google.protobuf.message_factory")
    F = pb2.FieldDescriptorProto
    kinds = {"string": F.TYPE_STRING, "int64": F.TYPE_INT64, "bool": F.TYPE_BOOL}
    pool = pool_mod.DescriptorPool()

    def add_enum(parent, name, table):
        e = parent.enum_type.add(name=name)
        for k, v in table.items():
            e.value.add(name=k, number=v)

    types = pb2.FileDescriptorProto(name="types.proto", package="tensorflow", syntax="proto3")
    add_enum(types, "DataType", schema_mod._DATA_TYPES)  # proto3: an open enum
    pool.Add(types)
    files = {
        "tensorflow": pb2.FileDescriptorProto(
            name="tensor_shape.proto", package="tensorflow", syntax="proto3"
        ),
        "tensorflow_gnn": pb2.FileDescriptorProto(
            name="graph_schema.proto",
            package="tensorflow_gnn",
            syntax="proto2",
            dependency=["types.proto", "tensor_shape.proto"],
        ),
    }
    gnn = files["tensorflow_gnn"]
    add_enum(gnn, "GraphType", schema_mod._GRAPH_TYPES)

    def full(name):
        return (
            ".tensorflow." if name.startswith("TensorShapeProto") else ".tensorflow_gnn."
        ) + name

    protos = {}
    for proto_name in PROTO_FIELDS:
        outer, _, inner = proto_name.partition(".")
        f = files["tensorflow" if outer == "TensorShapeProto" else "tensorflow_gnn"]
        protos[proto_name] = (
            protos[outer].nested_type.add(name=inner) if inner else f.message_type.add(name=outer)
        )
    add_enum(protos["BigQuery"], "ReadMethod", schema_mod._READ_METHODS)
    protos["BigQuery"].oneof_decl.add(name="source")
    protos["Feature"].extension_range.add(start=65536, end=536870912)
    for proto_name, flds in PROTO_FIELDS.items():
        m = protos[proto_name]
        for number, (fname, ftype) in enumerate(flds.items(), 1):
            if proto_name == "TensorShapeProto":
                number += 1  # dim = 2, unknown_rank = 3
            f = m.field.add(name=fname, number=number, label=F.LABEL_OPTIONAL)
            if ftype.startswith("repeated "):
                f.label, ftype = F.LABEL_REPEATED, ftype[9:]
            if ftype.startswith("map<"):
                value = ftype[len("map<string, ") : -1]
                entry = m.nested_type.add(name=fname.title().replace("_", "") + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_STRING)
                entry.field.add(
                    name="value", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE
                ).type_name = full(value)
                f.label, f.type = F.LABEL_REPEATED, F.TYPE_MESSAGE
                f.type_name = f"{full(proto_name)}.{entry.name}"
            elif ftype.startswith("enum "):
                f.type = F.TYPE_ENUM
                f.type_name = {
                    "DataType": ".tensorflow.DataType",
                    "GraphType": ".tensorflow_gnn.GraphType",
                    "ReadMethod": ".tensorflow_gnn.BigQuery.ReadMethod",
                }[ftype[5:]]
            elif ftype in kinds:
                f.type = kinds[ftype]
            else:
                f.type, f.type_name = F.TYPE_MESSAGE, full(ftype)
            if proto_name == "BigQuery" and fname in ("table_spec", "sql"):
                f.oneof_index = 0
    pool.Add(files["tensorflow"])
    pool.Add(gnn)
    cls = factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow_gnn.GraphSchema"))
    text_format = importlib.import_module("google.protobuf.text_format")

    def parse(text):
        m = cls()
        text_format.Parse(text, m)
        return m

    return parse, text_format


VALID = [
    'node_sets { key: "p" value { metadata { cardinality: 5 bigquery { table_spec '
    '{ table: "t" } } } } }',
    'context { metadata { bigquery { sql: "q" read_method: EXPORT reshuffle: f } } }',
    'context { features { key: "x" value { dtype: 999 shape { dim { size: 010 name: "n" } '
    "dim { size: -0x1 } } } } }",
    'context < features: [{ key: "x" value: < dtype: DT_QINT8 > }, { key: "y" }] >',
    'info { root_set: "\\u00e9\\U0001F600\\x41\\101\\a\\b\\f\\n\\r\\t\\v\\\\\\\'\\"" '
    "graph_type: RANDOM_WALKS }",
    'node_sets { key: "a" value { description: "1" } } node_sets { key: "b" } '
    'node_sets { key: "a" value { context: ["x", "y"] } }',
    'edge_sets { key: "e" value { source: "a" target: "b" context: "c"; metadata { extra '
    '{ key: "k" value: "v" }, filename: "f" } } }',
    'context { features { key: "x" value { shape { dim { size: 0 size: 3 } unknown_rank: '
    "false unknown_rank: true } } } }",
    'context { features { key: "x" value { dtype: 0x3 } } }',
]
INVALID = [
    'context { features { key: "x" value { shape { dim { size: 08 } } } } }',
    'context { features { key: "x" value { shape { dim { size: 1e3 } } } } }',
    'context { features { key: "x" value { shape { dim { size: 5 size: 0 } } } } }',
    'context { metadata { bigquery { table_spec { } sql: "s" } } }',
    'context { metadata { bigquery { sql: "s" sql: "t" } } }',
    "context { metadata { cardinality: 9223372036854775808 } }",
    'info { root_set: "\\400" }',
    'info { root_set: "\\351" }',
    'info { root_set: "\\ud800" }',
    'info { root_set: "\\u12" }',
    "info { graph_type: 7 }",
    'context { features { key: "x" value { [a.b] { } } } }',
    'node_sets { key: "a" value { colour: "red" } }',
]


@pytest.mark.parametrize("text", VALID)
def test_valid_texts_match_protobuf(text):
    pb_parse, text_format = _reference_parser()
    want = pb_parse(text)
    ours = parse_schema(text)
    assert pb_parse(schema_to_text(ours)) == want  # our reading and writing lose nothing
    assert parse_schema(text_format.MessageToString(want)) == parse_schema(schema_to_text(ours))
    assert parse_schema(text_format.MessageToString(want, as_utf8=True)) == parse_schema(
        schema_to_text(ours)
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # protobuf warns on its \400
@pytest.mark.parametrize("text", INVALID)
def test_invalid_texts_are_refused_like_protobuf(text):
    pb_parse, text_format = _reference_parser()
    with pytest.raises(text_format.ParseError):
        pb_parse(text)
    with pytest.raises(ValueError, match=r"^line 1: "):
        parse_schema(text)
