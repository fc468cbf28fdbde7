"""GraphTensor construction, specs, validation and immutable updates."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    HIDDEN_STATE,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    FeatureSpec,
    GraphTensor,
    NodeSet,
    Ragged,
    merge_graphs_to_components,
)
from tests.graph_tensor._gt_cases import random_graph, seed_graph


def test_seed_graph_structure():
    g = seed_graph()
    assert g.rank == 0 and g.shape == ()
    assert g.num_components == 1
    assert g.context.sizes.tolist() == [1]
    paper, author = g.node_sets["paper"], g.node_sets["author"]
    assert paper.sizes.tolist() == [3] and paper.total_size == 3
    assert author.total_size == 4
    assert paper["tokenized_title"].to_list() == [
        ["Anisotropic", "approximation"],
        ["Better", "bipartite", "bijection", "bounds"],
        ["Convolutional", "convergence", "criteria"],
    ]
    assert paper["year"].tolist() == [2018, 2019, 2020]
    writes = g.edge_sets["writes"]
    assert writes.adjacency.source_name == "author"
    assert writes.adjacency.node_set_name(TARGET) == "paper"
    assert writes.adjacency[SOURCE].tolist() == [0, 0, 1, 1, 2, 2, 3]
    assert g.edge_sets["cites"].features == {}
    assert (SOURCE, TARGET, CONTEXT, HIDDEN_STATE) == (0, 1, "context", "hidden_state")


def test_seed_graph_spec():
    spec = seed_graph().spec
    paper = spec.node_sets["paper"].features
    assert paper["tokenized_title"] == FeatureSpec(np.str_, (None,))
    assert paper["embedding"] == FeatureSpec(np.float32, (3,))
    assert paper["year"] == FeatureSpec(np.int32, ())
    assert spec.node_sets["author"].features["name"] == FeatureSpec(np.str_, ())
    assert (spec.edge_sets["writes"].source_name, spec.edge_sets["writes"].target_name) == (
        "author",
        "paper",
    )
    assert spec == seed_graph().spec
    other = seed_graph().remove_features(node_sets={"paper": ["year"]}).spec
    assert spec != other
    assert any("year" in d for d in spec.differences(other))


def test_spec_ignores_string_length_and_index_dtype():
    def g(names, idx_dtype):
        return GraphTensor.from_pieces(
            node_sets={"n": NodeSet.from_fields(sizes=np.array([2]), features={"s": names})},
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=np.array([1]),
                    adjacency=Adjacency.from_indices(
                        source=("n", np.array([0], idx_dtype)),
                        target=("n", np.array([1], idx_dtype)),
                    ),
                )
            },
        )

    assert g(np.array(["a", "b"]), np.int32).spec == g(np.array(["long", "longer"]), np.int64).spec


def test_several_edge_sets_between_same_node_sets():
    g = random_graph(np.random.default_rng(0), num_components=2, empty_prob=0.0)
    assert g.edge_sets["ab"].adjacency.source_name == g.edge_sets["ab2"].adjacency.source_name
    assert g.edge_sets["ab"].adjacency.target_name == g.edge_sets["ab2"].adjacency.target_name


def test_components_and_context():
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"label": np.array([3, 4])}),
        node_sets={"n": NodeSet.from_fields(sizes=np.array([2, 0]), features={"x": np.ones(2)})},
    )
    assert g.num_components == 2
    assert g.context.sizes.tolist() == [1, 1]
    assert g.context.total_size == 2
    assert g.node_sets["n"].row_splits.tolist() == [0, 2, 2]
    assert g.node_sets["n"].component_ids().tolist() == [0, 0]
    # context sizes derived from the sets when the context has no features
    g2 = GraphTensor.from_pieces(node_sets={"n": NodeSet.from_fields(sizes=np.array([1, 2, 3]))})
    assert g2.context.sizes.tolist() == [1, 1, 1]
    assert GraphTensor.from_pieces().num_components == 0


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.int8, np.uint16, np.int64, np.bool_]
)
def test_dense_feature_dtypes(dtype):
    x = np.zeros((2, 3), dtype=dtype)
    ns = NodeSet.from_fields(sizes=np.array([2]), features={"x": x})
    assert ns["x"] is x
    assert ns.spec.features["x"] == FeatureSpec(dtype, (3,))


def test_ragged_feature_nested_and_bytes():
    inner = Ragged.from_row_lengths(np.arange(6), np.array([1, 2, 3]))
    outer = Ragged(inner, np.array([0, 1, 3]))  # 2 items, each a list of lists
    ns = NodeSet.from_fields(
        sizes=np.array([2]), features={"r": outer, "b": np.array([b"x", b"yz"])}
    )
    assert ns.spec.features["r"] == FeatureSpec(np.int64, (None, None))
    assert ns.spec.features["b"] == FeatureSpec(np.bytes_, ())
    assert outer.to_list() == [[[0]], [[1, 2], [3, 4, 5]]]


# --- validation: errors name the piece ----------------------------------------------------


def _edge(src, tgt, s="paper", t="paper", sizes=None):
    src, tgt = np.asarray(src), np.asarray(tgt)
    return EdgeSet.from_fields(
        sizes=np.array([len(src)] if sizes is None else sizes),
        adjacency=Adjacency.from_indices(source=(s, src), target=(t, tgt)),
    )


def test_index_out_of_range_names_edge_set_and_node_set():
    nodes = {"paper": NodeSet.from_fields(sizes=np.array([4]))}
    with pytest.raises(
        ValueError,
        match=r"edge set 'writes': target index 7 >= 4 nodes in "
        r"node set 'paper'",
    ):
        GraphTensor.from_pieces(node_sets=nodes, edge_sets={"writes": _edge([0], [7])})
    with pytest.raises(ValueError, match=r"edge set 'writes': source index -1 < 0"):
        GraphTensor.from_pieces(node_sets=nodes, edge_sets={"writes": _edge([-1], [0])})


def test_unknown_node_set_named():
    nodes = {"paper": NodeSet.from_fields(sizes=np.array([4]))}
    with pytest.raises(ValueError, match=r"edge set 'writes': source node set 'author' does not"):
        GraphTensor.from_pieces(node_sets=nodes, edge_sets={"writes": _edge([0], [0], s="author")})


def test_size_mismatches():
    with pytest.raises(ValueError, match=r"feature 'x' has 3 items.*expected 2"):
        NodeSet.from_fields(sizes=np.array([2]), features={"x": np.zeros((3, 1))})
    with pytest.raises(ValueError, match=r"feature 'r' has 1 \(ragged\) rows, expected 2"):
        NodeSet.from_fields(sizes=np.array([2]), features={"r": Ragged.from_list([[1]])})
    with pytest.raises(ValueError, match=r"adjacency has 2 edges but sizes sum to 3"):
        _edge([0, 1], [1, 0], sizes=[3])
    with pytest.raises(ValueError, match=r"2 source indices but 1 target"):
        Adjacency.from_indices(source=("a", np.array([0, 1])), target=("a", np.array([0])))
    with pytest.raises(
        ValueError,
        match=r"edge set 'e' has 2 components but node set 'paper' "
        r"has 1",
    ):
        GraphTensor.from_pieces(
            node_sets={"paper": NodeSet.from_fields(sizes=np.array([4]))},
            edge_sets={"e": _edge([0], [1], sizes=[1, 0])},
        )
    with pytest.raises(ValueError, match=r"sizes must be >= 0"):
        NodeSet.from_fields(sizes=np.array([-1]))
    with pytest.raises(TypeError, match=r"sizes must have an integer dtype"):
        NodeSet.from_fields(sizes=np.array([1.0]))
    with pytest.raises(TypeError, match=r"feature 'x'.*got dict"):  # lists convert (s9)
        NodeSet.from_fields(sizes=np.array([1]), features={"x": {"a": 1}})
    with pytest.raises(ValueError, match=r"1-D integer array"):
        Adjacency.from_indices(source=("a", np.array([0.0])), target=("a", np.array([0.0])))
    with pytest.raises(ValueError, match=r"context: sizes must all be 1"):
        Context.from_fields(sizes=np.array([1, 2]))
    with pytest.raises(TypeError, match=r"node_sets\['n'\] must be a NodeSet"):
        GraphTensor.from_pieces(node_sets={"n": Context.from_fields()})


def test_ragged_validation():
    with pytest.raises(ValueError, match="start at 0"):
        Ragged(np.arange(3), np.array([1, 3]))
    with pytest.raises(ValueError, match="end at 2 but values have 3"):
        Ragged(np.arange(3), np.array([0, 2]))
    with pytest.raises(ValueError, match="non-decreasing"):
        Ragged(np.arange(3), np.array([0, 2, 1, 3]))


# --- immutability -------------------------------------------------------------------------


def test_replace_features_shares_unchanged_arrays_and_leaves_input_alone():
    g = seed_graph()
    emb = g.node_sets["paper"]["embedding"]
    new = np.zeros((4, 3), np.float32)
    h = g.replace_features(node_sets={"author": {"mean_paper_embedding": new}})
    assert h.node_sets["paper"]["embedding"] is emb
    assert h.node_sets["author"]["mean_paper_embedding"] is new
    assert "name" not in h.node_sets["author"]  # the given map replaces the piece's map
    assert "mean_paper_embedding" not in g.node_sets["author"]  # input unchanged
    assert h.edge_sets["writes"].adjacency is g.edge_sets["writes"].adjacency
    with pytest.raises(ValueError, match="no node set 'venue'"):
        g.replace_features(node_sets={"venue": {}})
    with pytest.raises(ValueError, match=r"node set 'author', feature 'bad' has 2 items"):
        g.replace_features(node_sets={"author": {"bad": np.zeros(2)}})


def test_remove_features():
    g = seed_graph()
    h = g.remove_features(node_sets={"paper": ["year", "embedding"]})
    assert sorted(h.node_sets["paper"].features) == ["tokenized_title"]
    assert h.node_sets["paper"]["tokenized_title"] is g.node_sets["paper"]["tokenized_title"]
    with pytest.raises(ValueError, match=r"node set 'paper' has no feature\(s\) \['nope'\]"):
        g.remove_features(node_sets={"paper": ["nope"]})


def test_feature_maps_are_read_only():
    g = seed_graph()
    with pytest.raises(TypeError):
        g.node_sets["paper"].features["x"] = np.zeros(3)
    with pytest.raises(TypeError):
        g.node_sets["venue"] = g.node_sets["paper"]
    d = g.node_sets["author"].get_features_dict()
    d["extra"] = np.zeros(4)
    assert "extra" not in g.node_sets["author"]


def test_graphs_and_specs_pickle_and_deep_copy():
    """Their read-only maps (MappingProxyType) made pickle / deepcopy raise TypeError."""
    import copy
    import pickle

    from tests.graph_tensor._gt_cases import assert_graphs_equal

    rng = np.random.default_rng(7)
    for g in [seed_graph(), *(random_graph(rng, index_dtype=np.int32) for _ in range(5))]:
        for back in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
            assert_graphs_equal(back, g)
            assert back.spec == g.spec
            with pytest.raises(TypeError):  # still read-only
                back.node_sets["a" if "a" in back.node_sets else "paper"] = None
        assert pickle.loads(pickle.dumps(g.spec)) == g.spec
        deep = copy.deepcopy(g)
        name = next(iter(g.node_sets))
        for key, value in deep.node_sets[name].features.items():
            if isinstance(value, np.ndarray):
                assert not np.shares_memory(value, g.node_sets[name].features[key])


def test_to_device_cpu_roundtrip():
    g = seed_graph()
    h = g.to("cpu")
    assert h.spec == g.spec


def test_ragged_from_list_with_empty_rows_keeps_the_rows_dtype():
    # an empty row read as float64 used to upcast int / bool / str rows
    assert Ragged.from_list([[1, 2], []]).values.dtype == np.int64
    assert Ragged.from_list([[True], []]).values.dtype == np.bool_
    assert Ragged.from_list([["a", "b"], []]).values.dtype == np.dtype("<U1")
    nested = Ragged.from_list([[[1, 2]], []])
    assert nested.values.shape == (1, 2) and nested.row_splits.tolist() == [0, 1, 1]


def test_ragged_from_list_names_what_is_not_a_list_of_rows():
    # these failed with Python's own "'int' object is not iterable" / "len() of unsized object"
    with pytest.raises(TypeError, match="rows must be a sequence of rows, got int"):
        Ragged.from_list(3)
    with pytest.raises(TypeError, match="got str"):
        Ragged.from_list("abc")
    with pytest.raises(ValueError, match="row 1 is a scalar"):
        Ragged.from_list([[1, 2], 3])
    with pytest.raises(ValueError, match="different inner shapes"):
        Ragged.from_list([[[1, 2]], [[1, 2, 3]]])
    assert Ragged.from_list(iter([[1], [2, 3]])).row_splits.tolist() == [0, 1, 3]


def test_context_without_features_or_sizes_is_usable_before_its_graph():
    c = Context.from_fields()
    assert dict(c.features) == {} and "a" not in c and c.rank == 0
    assert "Context" in repr(c)
    with pytest.raises(ValueError, match="known once it is put into a GraphTensor"):
        _ = c.num_components
    g = GraphTensor.from_pieces(
        context=c, node_sets={"a": NodeSet.from_fields(sizes=np.array([2, 1]))}
    )
    assert g.context.num_components == 2


def test_adjacency_ragged_ends_with_different_graph_counts_is_a_clear_error():
    s = Ragged(np.array([0, 1, 0]), np.array([0, 2, 3]))
    t = Ragged(np.array([0, 1, 0]), np.array([0, 1, 2, 3]))
    with pytest.raises(ValueError, match="source has 2 graphs, target 3"):
        Adjacency.from_indices(source=("a", s), target=("a", t))


def test_merging_graphs_with_int32_and_uint64_indices():
    # equal specs (index dtype aside); NumPy would promote the concatenation to float64
    def graph(dtype):
        return GraphTensor.from_pieces(
            node_sets={"a": NodeSet.from_fields(sizes=np.array([2]))},
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=np.array([1]),
                    adjacency=Adjacency.from_indices(
                        source=("a", np.array([0], dtype)), target=("a", np.array([1], dtype))
                    ),
                )
            },
        )

    merged = merge_graphs_to_components([graph(np.int32), graph(np.uint64)])
    assert merged.edge_sets["e"].adjacency.source.tolist() == [0, 2]
    assert merged.edge_sets["e"].adjacency.target.tolist() == [1, 3]
