"""TF-GNN public names that had no arraygnn counterpart (session 9), and two small fixes:
Python lists as features (TF-GNN converts them) and ``SimpleConv`` errors that name the
convolution and the edge set. Small cases from TF-GNN's own docstrings and unit tests."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    HIDDEN_STATE,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
)

# ---------------------------------------------------------------------------------------------
# Python lists as features (TF-GNN: tf.convert_to_tensor)
# ---------------------------------------------------------------------------------------------


def test_node_set_list_of_strings_feature():
    ns = NodeSet.from_fields(sizes=[2], features={"id": ["a1", "a3"]})
    ids = ns["id"]
    assert isinstance(ids, np.ndarray) and ids.dtype.kind == "U"
    assert ids.tolist() == ["a1", "a3"]


def test_list_features_follow_tf_dtypes():
    ns = NodeSet.from_fields(
        sizes=[3],
        features={
            "f": [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]],
            "i": [2018, 2019, 2020],
            "big": [2**40, 1, 2],
            "b": [True, False, True],
            "s": [b"x", b"y", b"z"],
            "t": (1.5, 2.5, 3.5),
        },
    )
    assert ns["f"].dtype == np.float32 and ns["f"].shape == (3, 2)
    assert ns["i"].dtype == np.int32  # tf.constant([2018, ...]) is int32
    assert ns["big"].dtype == np.int64  # does not fit int32: int64, as TF
    assert ns["b"].dtype == np.bool_
    assert ns["s"].dtype.kind == "S" and ns["s"].tolist() == [b"x", b"y", b"z"]
    assert ns["t"].dtype == np.float32


def test_list_features_on_context_and_edge_set_and_replace_features():
    feats = {"label": [0, 1]}
    ctx = Context.from_fields(features=feats)
    assert ctx.num_components == 2 and ctx["label"].tolist() == [0, 1]
    assert feats == {"label": [0, 1]}  # caller's dict and list untouched
    es = EdgeSet.from_fields(
        sizes=[1, 1],
        adjacency=Adjacency.from_indices(
            source=("a", np.array([0, 1])), target=("a", np.array([1, 0]))
        ),
        features={"w": [0.5, 0.25], "name": ["x", "y"]},
    )
    assert es["w"].dtype == np.float32 and es["name"].tolist() == ["x", "y"]
    g = GraphTensor.from_pieces(
        context=ctx,
        node_sets={"a": NodeSet.from_fields(sizes=[1, 1], features={"x": [[1.0], [2.0]]})},
        edge_sets={"e": es},
    )
    g2 = g.replace_features(node_sets={"a": {"y": ["p", "q"]}}, context={"c": [[1, 2], [3, 4]]})
    assert g2.node_sets["a"]["y"].tolist() == ["p", "q"]
    assert g2.context["c"].dtype == np.int32 and g2.context["c"].shape == (2, 2)


def test_ragged_nested_list_feature_raises_naming_it():
    with pytest.raises(ValueError, match=r"'words'.*Ragged.from_list"):
        NodeSet.from_fields(sizes=[2], features={"words": [["a", "b"], ["c"]]})
    ns = NodeSet.from_fields(sizes=[2], features={"words": Ragged.from_list([["a", "b"], ["c"]])})
    assert ns.total_size == 2


def test_empty_list_feature_is_float32_as_tf():
    ns = NodeSet.from_fields(sizes=[0], features={"x": []})
    assert ns["x"].dtype == np.float32 and ns["x"].shape == (0,)


# ---------------------------------------------------------------------------------------------
# SimpleConv: a message_fn of the wrong width names the convolution and the edge set
# ---------------------------------------------------------------------------------------------


def _conv_graph():
    rng = np.random.default_rng(0)
    return GraphTensor.from_pieces(
        node_sets={"paper": NodeSet.from_fields(
            sizes=np.array([3]),
            features={HIDDEN_STATE: rng.standard_normal((3, 7)).astype(np.float32)},
        )},
        edge_sets={"cites": EdgeSet.from_fields(
            sizes=np.array([3]),
            adjacency=Adjacency.from_indices(
                source=("paper", np.array([1, 2, 0])), target=("paper", np.array([0, 0, 1]))
            ),
        )},
    )  # fmt: skip


def test_simple_conv_wrong_message_width_names_conv_and_edge_set():
    from arraygnn.graph_tensor.layers import SimpleConv, dense

    conv = SimpleConv(dense(3, 4), "sum", receiver_tag=TARGET)
    with pytest.raises(ValueError, match=r"SimpleConv.*'cites'.*message_fn") as err:
        conv(_conv_graph(), edge_set_name="cites")
    assert "expected last dimension 3" in str(err.value)  # the Linear's own words kept


def test_simple_conv_wrong_width_after_first_linear_names_conv_and_edge_set():
    from arraygnn.graph_tensor.layers import SimpleConv, dense
    from arraygnn.nn import Sequential

    # the first Linear fits (14 = 7 + 7) and is applied per node; the second does not
    conv = SimpleConv(Sequential(dense(14, 5), dense(4, 2)), "sum", receiver_tag=TARGET)
    with pytest.raises(ValueError, match=r"SimpleConv.*'cites'.*message_fn"):
        conv(_conv_graph(), edge_set_name="cites")


# ---------------------------------------------------------------------------------------------
# total_num_components; is_graph_tensor / is_dense_tensor / is_ragged_tensor
# ---------------------------------------------------------------------------------------------


def _two_component_graph():
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"y": np.array([1, 2])}),
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2, 1]))},
        edge_sets={"e": EdgeSet.from_fields(
            sizes=np.array([1, 0]),
            adjacency=Adjacency.from_indices(
                source=("a", np.array([0])), target=("a", np.array([1]))
            ),
        )},
    )  # fmt: skip


def test_total_num_components_scalar_and_batched():
    g = _two_component_graph()
    assert g.total_num_components == 2
    assert g.node_sets["a"].total_num_components == 2
    assert g.edge_sets["e"].total_num_components == 2
    assert g.context.total_num_components == 2
    b = batch_graph_tensors([g, g, g])
    assert b.num_components.tolist() == [2, 2, 2]
    assert b.total_num_components == 6
    assert b.node_sets["a"].total_num_components == 6
    assert isinstance(b.total_num_components, int)


def test_is_graph_tensor_dense_ragged():
    from arraygnn.graph_tensor import is_dense_tensor, is_graph_tensor, is_ragged_tensor

    g = _two_component_graph()
    r = Ragged.from_list([[1], [2, 3]])
    assert is_graph_tensor(g) and not is_graph_tensor(g.spec) and not is_graph_tensor(r)
    assert is_dense_tensor(np.zeros(2)) and not is_dense_tensor(r) and not is_dense_tensor([1])
    assert is_ragged_tensor(r) and not is_ragged_tensor(np.zeros(2))


# ---------------------------------------------------------------------------------------------
# readout: validate_graph_tensor(_spec)_for_readout, readout_named, context_readout_into_feature
# ---------------------------------------------------------------------------------------------


def _hom_node_classification():
    """TF-GNN readout_test.testHomNodeClassification."""
    return GraphTensor.from_pieces(
        node_sets={
            "objects": NodeSet.from_fields(
                sizes=np.array([3, 2]),
                features={HIDDEN_STATE: np.array(
                    [[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [2.0, 4.0], [2.0, 5.0]], np.float32
                )},
            ),
            "_readout": NodeSet.from_fields(
                sizes=np.array([1, 1]), features={"labels": np.array([[101], [201]])}
            ),
        },
        edge_sets={
            "relations": EdgeSet.from_fields(
                sizes=np.array([2, 1]),
                adjacency=Adjacency.from_indices(
                    ("objects", np.array([1, 2, 4])), ("objects", np.array([0, 0, 3]))
                ),
            ),
            "_readout/seed": EdgeSet.from_fields(
                sizes=np.array([1, 1]),
                adjacency=Adjacency.from_indices(
                    ("objects", np.array([0, 3])), ("_readout", np.array([0, 1]))
                ),
            ),
        },
    )  # fmt: skip


def test_validate_for_readout_accepts_tfgnn_example():
    from arraygnn.pipeline import (
        readout_named,
        structured_readout,
        validate_graph_tensor_for_readout,
        validate_graph_tensor_spec_for_readout,
    )

    g = _hom_node_classification()
    assert validate_graph_tensor_spec_for_readout(g.spec) is None
    assert validate_graph_tensor_spec_for_readout(g.spec, ["seed"]) is None
    assert validate_graph_tensor_for_readout(g, ["seed"]) is g
    assert validate_graph_tensor_for_readout(g) is g
    assert readout_named is structured_readout
    out = readout_named(g, "seed", feature_name=HIDDEN_STATE)
    np.testing.assert_array_equal(out, [[1.0, 1.0], [2.0, 4.0]])


def test_validate_spec_for_readout_errors():
    from arraygnn.pipeline import validate_graph_tensor_spec_for_readout as check

    g = _hom_node_classification()
    with pytest.raises(KeyError, match=r"Unknown readout keys \['target'\]"):
        check(g.spec, ["seed", "target"])
    with pytest.raises(ValueError, match="Malformed name of readout_node_set"):
        check(g.spec, readout_node_set="readout")
    with pytest.raises(ValueError, match="lacks auxiliary node set '_readout:x'"):
        check(g.spec, readout_node_set="_readout:x")
    no_edges = GraphTensor.from_pieces(
        node_sets=dict(g.node_sets), edge_sets={"relations": g.edge_sets["relations"]}
    )
    with pytest.raises(ValueError, match="no edge sets for readout"):
        check(no_edges.spec)
    bad_target = GraphTensor.from_pieces(
        node_sets=dict(g.node_sets),
        edge_sets={"_readout/seed": g.edge_sets["relations"]},
    )
    with pytest.raises(ValueError, match="Expected target node set '_readout'"):
        check(bad_target)  # a graph is accepted for its spec
    with pytest.raises(ValueError, match="scalar"):
        check(batch_graph_tensors([g]).spec)


def _three_readout_indices(idx):
    """TF-GNN readout_test._make_test_graph_from_three_readout_indices."""
    return GraphTensor.from_pieces(
        node_sets={
            "objects": NodeSet.from_fields(
                sizes=np.array([1, 1, 1]),
                features={HIDDEN_STATE: np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])},
            ),
            "_readout": NodeSet.from_fields(sizes=np.array([1, 1, 1])),
        },
        edge_sets={"_readout/seed": EdgeSet.from_fields(
            sizes=np.array([1, 1, 1]),
            adjacency=Adjacency.from_indices(
                ("objects", np.array([0, 1, 2])), ("_readout", np.array(idx))
            ),
        )},
    )  # fmt: skip


def test_validate_for_readout_value_errors():
    from arraygnn.pipeline import validate_graph_tensor_for_readout as check

    check(_three_readout_indices([0, 1, 2]))
    with pytest.raises(ValueError, match="Not strictly sorted by target: '_readout/seed'"):
        check(_three_readout_indices([1, 0, 2]))
    # testBadReadoutIndicesNotRange: two edge sets reach _readout node 2 twice, node 1 never
    g = GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2]), features={"h": np.ones((2, 2))}),
            "b": NodeSet.from_fields(sizes=np.array([2]), features={"h": np.ones((2, 2))}),
            "_readout": NodeSet.from_fields(sizes=np.array([3])),
        },
        edge_sets={
            "_readout/seed/1": EdgeSet.from_fields(
                sizes=np.array([2]),
                adjacency=Adjacency.from_indices(
                    ("a", np.array([0, 1])), ("_readout", np.array([0, 2]))
                ),
            ),
            "_readout/seed/2": EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=Adjacency.from_indices(("b", np.array([0])), ("_readout", np.array([2]))),
            ),
        },
    )
    with pytest.raises(ValueError, match="Target indices not equal to range"):
        check(g, ["seed"])
    # testBadShadowNodeSetSize
    g = GraphTensor.from_pieces(
        node_sets={
            "items": NodeSet.from_fields(sizes=np.array([3, 2])),
            "_readout": NodeSet.from_fields(sizes=np.array([1, 1])),
            "_shadow/links": NodeSet.from_fields(sizes=np.array([2, 3])),
        },
        edge_sets={
            "links": EdgeSet.from_fields(
                sizes=np.array([2, 2]),
                adjacency=Adjacency.from_indices(
                    ("items", np.array([0, 1, 3, 4])), ("items", np.array([1, 2, 4, 3]))
                ),
            ),
            "_readout/seed_edge": EdgeSet.from_fields(
                sizes=np.array([1, 1]),
                adjacency=Adjacency.from_indices(
                    ("_shadow/links", np.array([1, 2])), ("_readout", np.array([0, 1]))
                ),
            ),
        },
    )
    with pytest.raises(ValueError, match="does not have the same sizes as shadowed edge set"):
        check(g)


def test_validate_for_readout_duplicate_and_missing_shadowed_edge_set():
    from arraygnn.pipeline import validate_graph_tensor_spec_for_readout as check

    g = _hom_node_classification()
    es = g.edge_sets["_readout/seed"]
    dup = GraphTensor.from_pieces(
        node_sets=dict(g.node_sets), edge_sets={"_readout/seed/1": es, "_readout/seed/2": es}
    )
    with pytest.raises(ValueError, match="Duplicate readout edge set"):
        check(dup)


def test_validate_for_readout_alt_readout_node_set():
    """TF-GNN readout_test.testReadoutNodeSetName."""
    from arraygnn.pipeline import (
        structured_readout,
        validate_graph_tensor_for_readout,
        validate_graph_tensor_spec_for_readout,
    )

    g = GraphTensor.from_pieces(
        node_sets={
            "objects": NodeSet.from_fields(
                sizes=np.array([3]), features={HIDDEN_STATE: np.array([1.0, 2.0, 3.0])}
            ),
            "_readout": NodeSet.from_fields(sizes=np.array([1])),
            "_readout:alt": NodeSet.from_fields(sizes=np.array([2])),
        },
        edge_sets={
            "_readout/seed": EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=Adjacency.from_indices(
                    ("objects", np.array([0])), ("_readout", np.array([0]))
                ),
            ),
            "_readout:alt/feed": EdgeSet.from_fields(
                sizes=np.array([2]),
                adjacency=Adjacency.from_indices(
                    ("objects", np.array([1, 2])), ("_readout:alt", np.array([0, 1]))
                ),
            ),
        },
    )
    validate_graph_tensor_spec_for_readout(g.spec, readout_node_set="_readout")
    validate_graph_tensor_for_readout(g, ["seed"], readout_node_set="_readout")
    validate_graph_tensor_spec_for_readout(g.spec, readout_node_set="_readout:alt")
    validate_graph_tensor_for_readout(g, ["feed"], readout_node_set="_readout:alt")
    out = structured_readout(g, "feed", feature_name=HIDDEN_STATE, readout_node_set="_readout:alt")
    assert out.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("remove_input_feature", [False, True])
def test_context_readout_into_feature(remove_input_feature):
    """TF-GNN readout_test.ContextReadoutIntoFeatureTest.test."""
    from arraygnn.pipeline import context_readout_into_feature

    g = GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"labels": np.array([1, 2]), "zeros": np.zeros(2, np.float32)}
        ),
        node_sets={"unrelated": NodeSet.from_fields(
            sizes=np.array([1, 1]),
            features={"labels": np.array([9, 9]), "stuff": np.array([[3.14], [2.71]])},
        )},
    )  # fmt: skip
    out = context_readout_into_feature(
        g,
        feature_name="labels",
        new_feature_name="target",
        remove_input_feature=remove_input_feature,
    )
    assert out.node_sets["_readout"]["target"].tolist() == [1, 2]
    assert out.node_sets["_readout"].sizes.tolist() == [1, 1]
    want = ["zeros"] + ["labels"] * (not remove_input_feature)
    assert sorted(out.context.features) == sorted(want)
    assert sorted(out.node_sets["unrelated"].features) == ["labels", "stuff"]
    assert sorted(g.context.features) == ["labels", "zeros"]  # input unchanged


def test_context_readout_into_existing_readout_and_overwrite():
    """TF-GNN readout_test testExistingReadout and testOverwrite."""
    from arraygnn.pipeline import (
        add_readout_from_first_node,
        context_readout_into_feature,
        structured_readout_into_feature,
    )

    g = GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"labels": np.array([1, 2]), "zeros": np.zeros(2, np.float32)}
        ),
        node_sets={"objects": NodeSet.from_fields(
            sizes=np.array([2, 3]), features={"labels": np.array([11, 22, 33, 44, 55])}
        )},
    )  # fmt: skip
    g = add_readout_from_first_node(g, "seed", node_set_name="objects")
    g = structured_readout_into_feature(
        g, "seed", feature_name="labels", new_feature_name="seed_labels"
    )
    out = context_readout_into_feature(g, feature_name="labels", new_feature_name="graph_labels")
    assert out.node_sets["_readout"]["graph_labels"].tolist() == [1, 2]
    assert out.node_sets["_readout"]["seed_labels"].tolist() == [11, 33]
    assert "_readout/seed" in out.edge_sets

    with pytest.raises(ValueError, match="already exists"):
        context_readout_into_feature(out, feature_name="labels", new_feature_name="seed_labels")
    over = context_readout_into_feature(
        out, feature_name="labels", new_feature_name="seed_labels", overwrite=True
    )
    assert over.node_sets["_readout"]["seed_labels"].tolist() == [1, 2]


def test_context_readout_into_feature_errors():
    from arraygnn.pipeline import context_readout_into_feature

    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"labels": np.array([1, 2])}),
        node_sets={"_readout": NodeSet.from_fields(sizes=np.array([2, 0]))},
    )
    with pytest.raises(ValueError, match="one node per component"):
        context_readout_into_feature(g, feature_name="labels")
    with pytest.raises(ValueError, match="no feature 'nope'"):
        context_readout_into_feature(g, feature_name="nope")


# ---------------------------------------------------------------------------------------------
# schema: TF-GNN's *_schema_pb names
# ---------------------------------------------------------------------------------------------


def test_schema_pb_names():
    from arraygnn.io.schema import (
        check_compatible_with_schema_pb,
        create_graph_spec_from_schema,
        create_graph_spec_from_schema_pb,
        create_schema_from_graph_spec,
        create_schema_pb_from_graph_spec,
    )

    g = GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2]), features={"x": np.ones((2, 3))})}
    )
    schema = create_schema_pb_from_graph_spec(g)
    assert schema == create_schema_from_graph_spec(g.spec)
    assert create_graph_spec_from_schema_pb(schema) == create_graph_spec_from_schema(schema)
    assert create_graph_spec_from_schema_pb(schema, indices_dtype=np.int64) == g.spec
    check_compatible_with_schema_pb(g, schema)
    check_compatible_with_schema_pb(g.spec, schema)
    two = GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([1, 1]), features={"x": np.ones((2, 3))})
        }
    )
    with pytest.raises(ValueError, match="single graph component"):
        check_compatible_with_schema_pb(two, schema)  # TF-GNN: scalar singleton graphs only
    other = g.replace_features(node_sets={"a": {"x": np.ones((2, 4))}})
    with pytest.raises(ValueError, match="not compatible with the graph schema"):
        check_compatible_with_schema_pb(other, schema)


# ---------------------------------------------------------------------------------------------
# padding: FeatureDefaultValues
# ---------------------------------------------------------------------------------------------


def test_pad_to_total_sizes_with_feature_default_values():
    from arraygnn.padding import FeatureDefaultValues, SizeConstraints, pad_to_total_sizes

    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"c": np.array([5.0], np.float32)}),
        node_sets={"a": NodeSet.from_fields(
            sizes=np.array([2]), features={"x": np.array([1, 2]), "y": np.array([3.0, 4.0])}
        )},
        edge_sets={"e": EdgeSet.from_fields(
            sizes=np.array([1]),
            adjacency=Adjacency.from_indices(("a", np.array([0])), ("a", np.array([1]))),
            features={"w": np.array([0.5], np.float32)},
        )},
    )  # fmt: skip
    sc = SizeConstraints(total_num_components=2, total_num_nodes={"a": 3}, total_num_edges={"e": 2})
    values = FeatureDefaultValues(
        context={"c": -1.0}, node_sets={"a": {"x": -7}}, edge_sets={"e": {"w": 9.0}}
    )
    padded, mask = pad_to_total_sizes(g, sc, padding_values=values)
    assert mask.tolist() == [True, False]
    assert padded.context["c"].tolist() == [5.0, -1.0]
    assert padded.node_sets["a"]["x"].tolist() == [1, 2, -7]
    assert padded.node_sets["a"]["y"].tolist() == [3.0, 4.0, 0.0]  # default stays 0
    assert padded.edge_sets["e"]["w"].tolist() == [0.5, 9.0]
    # the same as arraygnn's flat dict
    flat, _ = pad_to_total_sizes(
        g, sc, padding_values={"context": {"c": -1.0}, "nodes/a": {"x": -7}, "edges/e": {"w": 9.0}}
    )
    assert flat.node_sets["a"]["x"].tolist() == [1, 2, -7]
    assert FeatureDefaultValues() == FeatureDefaultValues(None, None, None)
    with pytest.raises(TypeError, match="node_sets"):
        pad_to_total_sizes(g, sc, padding_values=FeatureDefaultValues(node_sets=[1]))


# ---------------------------------------------------------------------------------------------
# spec: TF-GNN's *_spec property names
# ---------------------------------------------------------------------------------------------


def test_spec_tfgnn_property_names():
    g = _two_component_graph()
    spec = g.spec
    assert spec.node_sets_spec is spec.node_sets
    assert spec.edge_sets_spec is spec.edge_sets
    assert spec.context_spec is spec.context
    assert spec.context_spec.features_spec["y"] == spec.context.features["y"]
    assert spec.node_sets_spec["a"].features_spec is spec.node_sets["a"].features
    es = spec.edge_sets_spec["e"]
    assert es.features_spec is es.features
    assert es.adjacency_spec.source_name == "a" and es.adjacency_spec.target_name == "a"
    assert es.adjacency_spec.node_set_name(SOURCE) == "a"
    assert es.adjacency_spec.node_set_name(TARGET) == "a"


def test_adjacency_spec():
    import pickle

    from arraygnn.graph_tensor import AdjacencySpec, HyperAdjacency, HyperAdjacencySpec

    adj = Adjacency.from_indices(("a", np.array([0])), ("b", np.array([0])))
    spec = adj.spec
    assert isinstance(spec, AdjacencySpec)
    assert (spec.source_name, spec.target_name) == ("a", "b")
    assert spec == AdjacencySpec.from_incident_node_sets("a", "b")
    assert spec != AdjacencySpec("b", "a")
    assert spec != HyperAdjacencySpec({0: "a", 1: "b"})  # types differ, as TF-GNN's
    assert pickle.loads(pickle.dumps(spec)) == spec
    hyper = HyperAdjacency.from_indices({0: ("a", np.array([0])), 1: ("b", np.array([0]))})
    assert isinstance(hyper.spec, HyperAdjacencySpec) and not isinstance(hyper.spec, AdjacencySpec)


def test_pad_to_total_sizes_layer_return_mask_and_mask_feature():
    """TF-GNN's PadToTotalSizes(return_mask=, mask_output_feature_name=)."""
    from arraygnn.padding import SizeConstraints
    from arraygnn.pipeline import PadToTotalSizes

    g = _two_component_graph()
    sc = SizeConstraints(total_num_components=3, total_num_nodes={"a": 4}, total_num_edges={"e": 1})
    padded, mask = PadToTotalSizes(sc)(g)
    assert mask.tolist() == [True, True, False] and "m" not in padded.context
    only = PadToTotalSizes(sc, return_mask=False, mask_output_feature_name="m")(g)
    assert isinstance(only, GraphTensor)
    assert only.context["m"].tolist() == [True, True, False]
    assert only.context["y"].tolist() == [1, 2, 0]
    assert "m" not in g.context  # input unchanged


def test_indices_dtype_and_with_indices_dtype():
    g = GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2], np.int32))},
        edge_sets={"e": EdgeSet.from_fields(
            sizes=np.array([1], np.int32),
            adjacency=Adjacency.from_indices(
                ("a", np.array([0], np.int32)), ("a", np.array([1], np.int32))
            ),
            features={"w": np.array([0.5])},
        )},
    )  # fmt: skip
    # context sizes not given take the sets' dtype (TF-GNN: ones_like(sizes))
    assert g.context.sizes.dtype == np.int32
    assert g.indices_dtype == np.int32  # the dtype that holds them all
    g32 = g.with_indices_dtype(np.int32)
    assert g32.indices_dtype == np.int32
    assert g32.edge_sets["e"].adjacency.target.dtype == np.int32
    assert g32.edge_sets["e"]["w"] is g.edge_sets["e"]["w"]  # features shared
    g64 = g32.with_indices_dtype("int64")
    assert g64.node_sets["a"].sizes.dtype == np.int64
    assert g64.edge_sets["e"].adjacency.source.tolist() == [0]
    b = batch_graph_tensors([g, g]).with_indices_dtype(np.int32)
    assert b.indices_dtype == np.int32 and b.total_num_components == 2
    with pytest.raises(ValueError, match="int32 or int64"):
        g.with_indices_dtype(np.float32)


def test_list_of_numpy_values_keeps_their_dtype():
    ns = NodeSet.from_fields(
        sizes=[2],
        features={
            "rows": [np.zeros(3), np.ones(3)],
            "i64": [np.int64(1), np.int64(2)],
            "f64": [np.float64(1.0), np.float64(2.0)],  # a subclass of float, still NumPy
        },
    )
    assert ns["f64"].dtype == np.float64
    assert ns["rows"].dtype == np.float64 and ns["rows"].shape == (2, 3)
    assert ns["i64"].dtype == np.int64
