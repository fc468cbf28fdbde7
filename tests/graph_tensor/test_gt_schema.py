"""GraphSchema text files: the seed's schema, round trips, errors with line numbers, specs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn.graph_tensor import FeatureSpec, merge_graphs_to_components
from arraygnn.io.schema import (
    DimSchema,
    FeatureSchema,
    GraphSchema,
    ShapeSchema,
    check_graph_conforms,
    create_graph_spec_from_schema,
    create_schema_from_graph_spec,
    parse_schema,
    read_schema,
    schema_to_text,
    write_schema,
)
from tests.graph_tensor._gt_cases import random_graph, seed_graph

SEED_SCHEMA = Path(__file__).with_name("seed_schema.pbtxt")


def test_seed_schema_parses():
    s = read_schema(SEED_SCHEMA)
    assert list(s.node_sets) == ["paper", "author"]
    assert list(s.edge_sets) == ["cites", "writes"]
    paper = s.node_sets["paper"]
    assert paper.description == "The research papers in this dataset."
    tt = paper.features["tokenized_title"]
    assert tt.dtype == "DT_STRING" and tt.shape.dim == [DimSchema(size=-1)]
    assert paper.features["embedding"].dtype == "DT_FLOAT"
    assert paper.features["embedding"].shape.dim == [DimSchema(size=3)]
    assert paper.features["year"].dtype == "DT_INT32"
    assert paper.features["year"].shape == ShapeSchema(dim=[])
    assert s.node_sets["author"].features["name"].shape.dim == [DimSchema(size=None)]
    writes = s.edge_sets["writes"]
    assert (writes.source, writes.target) == ("author", "paper")
    assert writes.description == "Connects authors to all their papers."
    assert s.edge_sets["cites"].description == (
        "Connects citing papers (source) to cited papers (target)."
    )


def test_seed_schema_written_back_unchanged_in_meaning(tmp_path):
    s = read_schema(SEED_SCHEMA)
    path = tmp_path / "graph_schema.pbtxt"
    write_schema(s, path)
    again = read_schema(path)
    assert again == s
    assert schema_to_text(again) == path.read_text()


def test_seed_schema_to_spec():
    spec = create_graph_spec_from_schema(read_schema(SEED_SCHEMA))
    paper = spec.node_sets["paper"].features
    assert paper["tokenized_title"] == FeatureSpec(np.str_, (None,))  # -1 means ragged
    assert paper["embedding"] == FeatureSpec(np.float32, (3,))
    assert paper["year"] == FeatureSpec(np.int32, ())
    # `dim: { }` has protobuf's default size 0 (see the module docstring)
    assert spec.node_sets["author"].features["name"] == FeatureSpec(np.str_, (0,))
    assert spec.edge_sets["writes"].source_name == "author"
    # the seed's graph matches the seed's schema except for that `name` dimension
    with pytest.raises(
        ValueError,
        match=r"^graph does not conform: node set 'author', feature "
        r"'name': per-item shape \(\), schema says \(0,\)$",
    ):
        check_graph_conforms(seed_graph(), read_schema(SEED_SCHEMA))
    fixed = read_schema(SEED_SCHEMA)
    fixed.node_sets["author"].features["name"].shape = ShapeSchema()
    check_graph_conforms(seed_graph(), fixed)


def test_conformance_errors_list_every_problem():
    s = read_schema(SEED_SCHEMA)
    s.node_sets["author"].features["name"].shape = ShapeSchema()
    s.node_sets["paper"].features["year"].dtype = "DT_INT64"
    s.edge_sets["writes"].source = "paper"
    s.node_sets["venue"] = type(s.node_sets["paper"])()
    with pytest.raises(ValueError) as err:
        check_graph_conforms(seed_graph(), s)
    msg = str(err.value)
    assert "feature 'year': dtype int32, schema says int64" in msg
    assert "edge set 'writes' joins 'author' -> 'paper', schema says 'paper' -> 'paper'" in msg
    assert "missing node set 'venue'" in msg


@pytest.mark.parametrize(
    "text, message",
    [
        (
            'node_sets {\n  key: "a"\n  value { colour: "red" }\n}',
            r"line 3: unknown field 'colour' "
            r"in NodeSet",
        ),
        (
            'node_sets {\n key: "a"\n value {\n features {\n key: "x"\n value { dtype: DT_FOO }'
            " }\n }\n}",
            r"line 6: field 'dtype' of Feature: unknown enum value 'DT_FOO'",
        ),
        (
            'edge_sets { key: "e" value {\n source: 3 } }',
            r"line 2: field 'source' of EdgeSet "
            r"expects a string, got '3'",
        ),
        (
            'node_sets { key: "a" value {\n features { key: "x" value { shape { '
            'dim { size: "3" } } } } } }',
            r"line 2: field 'size' of TensorShapeProto.Dim expects an integer",
        ),
        (
            'edge_sets { key: "e" value { source: "a"\n source: "b" } }',
            r"line 2: field 'source' "
            r"of EdgeSet given twice \(first on line 1\)",
        ),
        ('node_sets { key: "a" value { }', r"missing '\}' in map field 'node_sets'"),
        ("context { features { value { } } }", r"line 1: 'features' entry has no key"),
        ('node_sets { key: "a" value { description: "x" @ } }', r"line 1: unexpected character"),
    ],
)
def test_parse_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_schema(text)


def test_read_schema_error_names_file(tmp_path):
    p = tmp_path / "bad.pbtxt"
    p.write_text("node_sets {\n  key: 1\n}\n")
    with pytest.raises(
        ValueError,
        match=r"bad.pbtxt: line 2: field 'key' of node_sets entry "
        r"expects a string",
    ):
        read_schema(p)


def test_text_format_variants():
    s = parse_schema(
        """
        # comment
        context < features { key: 'c' value: { dtype: 1 shape { dim [{size: 2}, {size: -1}] } } } >
        node_sets { key: "n\\"q" value { metadata {
          cardinality: 0x10 extra { key: "k" value: "v" } } } }
        info { graph_type: SUBGRAPH root_set: ["n\\"q"] }
        """
    )
    assert s.context.features["c"].dtype == "DT_FLOAT"
    assert [d.size for d in s.context.features["c"].shape.dim] == [2, -1]
    assert s.node_sets['n"q'].metadata.cardinality == 16
    assert s.info.graph_type == "SUBGRAPH" and s.info.root_set == ['n"q']
    assert parse_schema(schema_to_text(s)) == s


def test_spec_errors():
    s = GraphSchema()
    s.edge_sets["e"] = type(parse_schema('edge_sets { key: "e" value { } }').edge_sets["e"])(
        source="a", target="a"
    )
    with pytest.raises(ValueError, match=r"edge set 'e': source node set 'a' is not in the schema"):
        create_graph_spec_from_schema(s)
    bad = parse_schema('node_sets { key: "n" value { features { key: "x" value { } } } }')
    with pytest.raises(ValueError, match=r"node set 'n', feature 'x': feature has no dtype"):
        create_graph_spec_from_schema(bad)
    assert FeatureSchema().dtype is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_schema_spec_schema_roundtrip(seed):
    rng = np.random.default_rng(seed)
    graphs = [random_graph(rng) for _ in range(2)]
    spec = graphs[0].spec
    schema = create_schema_from_graph_spec(spec)
    text = schema_to_text(schema)
    parsed = parse_schema(text)
    assert parsed == schema
    assert create_graph_spec_from_schema(parsed) == spec
    check_graph_conforms(merge_graphs_to_components(graphs), parsed)


def test_spec_and_schema_helpers_refuse_wrong_argument_types():
    import numpy as np

    from arraygnn.graph_tensor import GraphTensor, NodeSet
    from arraygnn.graph_tensor.spec import FeatureSpec, NodeSetSpec
    from arraygnn.io.schema import check_graph_conforms, create_schema_from_graph_spec

    for shape in ((2.7,), (True,), ("3",), 3):
        with pytest.raises(TypeError, match="FeatureSpec shape"):
            FeatureSpec("f4", shape)
    with pytest.raises(TypeError, match="FeatureSpec"):
        NodeSetSpec({"x": "not a spec"})
    g = GraphTensor.from_pieces(node_sets={"a": NodeSet.from_fields(sizes=np.array([1]))})
    for bad in ("text", None):
        with pytest.raises(TypeError, match="GraphSchema or GraphTensorSpec"):
            check_graph_conforms(g, bad)
    with pytest.raises(TypeError, match="GraphTensor or GraphTensorSpec"):
        create_schema_from_graph_spec({})


def test_reserved_feature_names_are_refused_in_specs_too():
    from arraygnn.graph_tensor.spec import FeatureSpec, NodeSetSpec

    with pytest.raises(ValueError, match="'#id' is reserved"):
        NodeSetSpec({"#id": FeatureSpec("i8", ())})
