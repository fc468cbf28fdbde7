"""HyperAdjacency: construction, specs, validation in GraphTensor.from_pieces, broadcast /
pool / node_degree with any tag, merge_batch_to_components and padding.

Cases transcribed from TF-GNN's adjacency_test.py, pool_ops_test.py (testPoolHyperedges),
broadcast_ops_test.py (testEdgeFieldFromNode WithHyperAdjacency), graph_tensor_test.py
(EdgeSet / replace_features with HyperAdjacency) and padding_ops_test.py
(testHyperAdjacencyPaddingWithLinspace)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    EdgeSetSpec,
    GraphTensor,
    HyperAdjacency,
    HyperAdjacencySpec,
    HyperEdgeSetSpec,
    NodeSet,
    Ragged,
    broadcast,
    broadcast_node_to_edges,
    merge_batch_to_components,
    node_degree,
    pool,
    pool_edges_to_node,
)
from arraygnn.padding import SizeConstraints, pad_to_total_sizes

IDX = [np.int32, np.int64]


def _nodes(**sizes):
    return {n: NodeSet.from_fields(sizes=np.asarray(s, np.int64)) for n, s in sizes.items()}


def _abc_graph(dtype=np.int64):
    """TF-GNN testHyperAdjacencyPaddingWithLinspace: 'a.b.c' joins a, b and c."""
    return GraphTensor.from_pieces(
        node_sets=_nodes(a=[1], b=[2], c=[3]),
        edge_sets={
            "a.b.c": EdgeSet.from_fields(
                sizes=np.array([3]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        0: ("a", np.array([0, 0, 0], dtype)),
                        1: ("b", np.array([0, 1, 1], dtype)),
                        2: ("c", np.array([0, 1, 2], dtype)),
                    }
                ),
            )
        },
    )


# ---------------------------------------------------------------------------------------------
# construction (adjacency_test.py)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", IDX)
def test_indices_node_set_names_and_get_indices_dict(dtype):
    indices = {
        SOURCE: ("node.a", np.array([0, 1, 2], dtype)),
        TARGET: ("node.b", np.array([2, 1, 0], dtype)),
    }
    adj = HyperAdjacency.from_indices(indices)
    assert adj[SOURCE].tolist() == [0, 1, 2] and adj[TARGET].tolist() == [2, 1, 0]
    assert adj.node_set_name(SOURCE) == "node.a" and adj.node_set_name(TARGET) == "node.b"
    assert adj.spec.node_set_name(SOURCE) == "node.a"
    assert adj.spec.node_set_name(TARGET) == "node.b"
    got = adj.get_indices_dict()
    for tag in (SOURCE, TARGET):
        assert got[tag][0] == indices[tag][0]
        np.testing.assert_array_equal(got[tag][1], indices[tag][1])
    assert adj[SOURCE].dtype == dtype
    got[5] = ("x", None)  # a new dict: the adjacency is not changed
    assert 5 not in adj.get_indices_dict()
    assert len(adj) == 3 and isinstance(adj, Adjacency)
    # the two-tag case answers the Adjacency properties
    assert adj.source_name == "node.a" and adj.target.tolist() == [2, 1, 0]


@pytest.mark.parametrize("validate", [True, False, None])
def test_validate_arg_support(validate):
    adj = HyperAdjacency.from_indices(
        {SOURCE: ("node.a", np.array([0, 1, 2])), TARGET: ("node.b", np.array([2, 1, 0]))},
        validate=validate,
    )
    assert adj[SOURCE].tolist() == [0, 1, 2] and adj[TARGET].tolist() == [2, 1, 0]


def test_single_tag_and_sorted_tags():
    adj = HyperAdjacency.from_indices({0: ("node", np.array([0, 1, 2]))})
    assert list(adj.get_indices_dict()) == [0] and len(adj) == 3
    adj = HyperAdjacency.from_indices(
        {9: ("v", np.array([1])), 6: ("v", np.array([0])), 8: ("w", np.array([0]))}
    )
    assert list(adj.get_indices_dict()) == [6, 8, 9]
    assert "6: ('v', ...), 8: ('w', ...), 9: ('v', ...)" in repr(adj)


@pytest.mark.parametrize(
    "indices",
    [
        {SOURCE: ("a", np.array([0, 1])), TARGET: ("b", np.array([1]))},
        {0: ("a", np.array([0, 1])), 2: ("c", np.array([0, 1])), 1: ("b", np.array([1]))},
        {
            SOURCE: ("a", Ragged.from_list([[0, 1], [0]], dtype=np.int64)),
            TARGET: ("b", Ragged.from_list([[1, 2], []], dtype=np.int64)),
        },
        {
            SOURCE: ("a", Ragged.from_list([[0, 1], [0, 1]], dtype=np.int64)),
            TARGET: ("b", Ragged.from_list([[1, 2], [0], [1]], dtype=np.int64)),
        },
        {SOURCE: ("a", np.array([0, 1], np.int32)), TARGET: ("b", np.array([0, 1], np.int64))},
        {
            SOURCE: ("a", Ragged.from_list([[0, 1]], dtype=np.int64)),
            TARGET: ("b", np.array([0, 1])),
        },
    ],
)
def test_raises_on_incompatible_indices(indices):
    with pytest.raises(
        ValueError, match=r"Adjacency indices are not compatible: \(0, a\) and \(1, b\)"
    ):
        HyperAdjacency.from_indices(indices)


def test_construction_errors():
    with pytest.raises(TypeError, match="Positional arguments are not supported"):
        HyperAdjacency.from_indices({0: ("a", [])}, False)
    with pytest.raises(ValueError, match="at least one entry"):
        HyperAdjacency.from_indices({})
    with pytest.raises(TypeError, match=r"node tags must be ints"):
        HyperAdjacency.from_indices({"x": ("a", np.array([0]))})
    with pytest.raises(TypeError, match=r"node tags must be ints"):
        HyperAdjacency.from_indices({True: ("a", np.array([0]))})
    with pytest.raises(ValueError, match=r"node tags must be >= 0, got -1"):
        HyperAdjacency.from_indices({-1: ("a", np.array([0]))})
    with pytest.raises(TypeError, match=r"tag 2 must map to a tuple \(node_set_name, indices\)"):
        HyperAdjacency.from_indices({2: np.array([0])})
    with pytest.raises(ValueError, match=r"Adjacency indices \(2, c\) must have int32 or int64"):
        HyperAdjacency.from_indices({0: ("a", np.array([0])), 2: ("c", np.array([0.0]))})
    with pytest.raises(ValueError, match=r"Adjacency indices \(0, a\) must be 1-D"):
        HyperAdjacency.from_indices({0: ("a", np.zeros((2, 2), np.int64))})
    with pytest.raises(TypeError, match=r"must be a dict"):
        HyperAdjacency.from_indices([(0, ("a", np.array([0])))])
    adj = HyperAdjacency.from_indices({0: ("a", [0]), 2: ("c", [1])})  # lists become int64
    assert adj[2].dtype == np.int64
    with pytest.raises(ValueError, match=r"no node tag 1 \(tags: \[0, 2\]\)"):
        adj[1]
    with pytest.raises(ValueError, match=r"no node tag 1"):
        adj.node_set_name(1)
    with pytest.raises(ValueError, match=r"node tags \[0, 2\] has no source_name"):
        _ = adj.source_name
    with pytest.raises(ValueError, match=r"has no target"):
        _ = adj.target


def test_inputs_not_mutated_and_shared():
    idx = np.array([0, 1])
    adj = HyperAdjacency.from_indices({0: ("a", idx), 3: ("b", idx)})
    assert adj[3] is idx and idx.tolist() == [0, 1]


# ---------------------------------------------------------------------------------------------
# edge sets, graphs, specs, validation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", IDX)
def test_graph_with_three_tags_validates_every_tag(dtype):
    g = _abc_graph(dtype)
    es = g.edge_sets["a.b.c"]
    assert isinstance(es.adjacency, HyperAdjacency) and es.total_size == 3
    spec = g.spec.edge_sets["a.b.c"]
    assert isinstance(spec, HyperEdgeSetSpec)
    assert dict(spec.incident_node_sets) == {0: "a", 1: "b", 2: "c"}
    assert spec.adjacency_spec == HyperAdjacencySpec.from_incident_node_sets(
        {0: "a", 1: "b", 2: "c"}
    )
    assert "(0: a, 1: b, 2: c)" in repr(g)
    bad = {0: ("a", np.array([0, 0, 0], dtype)), 1: ("b", np.array([0, 1, 1], dtype))}
    for tag, idx, msg in [
        (2, [0, 1, 3], r"edge set 'a.b.c': tag 2 index 3 >= 3 nodes in node set 'c'"),
        (2, [0, -1, 2], r"edge set 'a.b.c': tag 2 index -1 < 0"),
    ]:
        with pytest.raises(ValueError, match=msg):
            GraphTensor.from_pieces(
                node_sets=_nodes(a=[1], b=[2], c=[3]),
                edge_sets={
                    "a.b.c": EdgeSet.from_fields(
                        sizes=np.array([3]),
                        adjacency=HyperAdjacency.from_indices(
                            {**bad, tag: ("c", np.array(idx, dtype))}
                        ),
                    )
                },
            )
    with pytest.raises(ValueError, match=r"edge set 'e': tag 7 node set 'zz' does not exist"):
        GraphTensor.from_pieces(
            node_sets=_nodes(a=[1]),
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=np.array([1]),
                    adjacency=HyperAdjacency.from_indices(
                        {0: ("a", np.array([0])), 7: ("zz", np.array([0]))}
                    ),
                )
            },
        )
    # validate=False skips the range check, as for Adjacency
    GraphTensor.from_pieces(
        node_sets=_nodes(a=[1]),
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=HyperAdjacency.from_indices({4: ("a", np.array([5]))}),
            )
        },
        validate=False,
    )


def test_edge_set_sizes_must_match_indices():
    adj = HyperAdjacency.from_indices({0: ("a", np.array([0, 1])), 2: ("b", np.array([0, 0]))})
    with pytest.raises(ValueError, match="adjacency has 2 edges but sizes sum to 3"):
        EdgeSet.from_fields(sizes=np.array([3]), adjacency=adj)


def test_spec_equality_and_pickle():
    g = _abc_graph()
    assert g.spec == _abc_graph(np.int32).spec  # index dtypes are not part of a spec
    two = HyperEdgeSetSpec({0: "a", 1: "b"})
    plain = EdgeSetSpec("a", "b")
    assert two != plain and plain != two  # Adjacency and HyperAdjacency specs differ
    assert two == HyperEdgeSetSpec({1: "b", 0: "a"})
    assert HyperEdgeSetSpec({0: "a", 1: "b", 2: "c"}) != HyperEdgeSetSpec({0: "a", 1: "b", 2: "b"})
    back = pickle.loads(pickle.dumps(g))
    assert back.spec == g.spec
    assert back.edge_sets["a.b.c"].adjacency[2].tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match=r"HyperAdjacencySpec: no node tag 3"):
        two.adjacency_spec.node_set_name(3)
    assert (two.source_name, two.target_name) == ("a", "b")
    three = g.spec.edge_sets["a.b.c"]
    with pytest.raises(ValueError, match=r"node tags \[0, 1, 2\] has no source_name"):
        _ = three.source_name
    other = _abc_graph().spec
    plain = GraphTensor.from_pieces(
        node_sets=_nodes(a=[1], b=[2], c=[3]),
        edge_sets={
            "a.b.c": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=Adjacency.from_indices(("a", np.zeros(0, int)), ("b", np.zeros(0, int))),
            )
        },
    ).spec
    assert other.differences(plain) == [
        "edge set 'a.b.c': joins tags {0: 'a', 1: 'b', 2: 'c'} vs 'a' -> 'b'"
    ]
    from arraygnn.io.schema import create_schema_from_graph_spec

    with pytest.raises(ValueError, match=r"has no source_name"):
        create_schema_from_graph_spec(g)  # TF-GNN's schema has only source / target


def test_replace_features_keeps_hyper_adjacency():
    """graph_tensor_test.py ReplaceFeaturesTest.testEdgeSet with a one-tag HyperAdjacency."""
    es = EdgeSet.from_fields(
        features={"a": np.array([1.0, 2.0])},
        sizes=np.array([2]),
        adjacency=HyperAdjacency.from_indices({0: ("a", np.array([0, 1]))}),
    )
    res = es.replace_features({"a": np.array([2.0, 1.0]), "b": Ragged.from_list([[1, 2], []])})
    assert res.adjacency[0].tolist() == [0, 1] and res.sizes.tolist() == [2]
    assert res["a"].tolist() == [2.0, 1.0]
    g = _abc_graph()
    g2 = g.replace_features(edge_sets={"a.b.c": {"w": np.ones((3, 2))}})
    assert isinstance(g2.edge_sets["a.b.c"].adjacency, HyperAdjacency)
    assert g2.to("cpu").edge_sets["a.b.c"].adjacency[2].tolist() == [0, 1, 2]


# ---------------------------------------------------------------------------------------------
# broadcast / pool / node_degree with any tag
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", IDX)
def test_pool_hyperedges(dtype):
    """pool_ops_test.py testPoolHyperedges (tags 6, 8, 9)."""
    g = GraphTensor.from_pieces(
        node_sets=_nodes(v=[2], w=[1]),
        edge_sets={
            "hyper": EdgeSet.from_fields(
                sizes=np.array([1]),
                features={"feat": np.array([[1.0]])},
                adjacency=HyperAdjacency.from_indices(
                    {
                        6: ("v", np.array([0], dtype)),
                        8: ("w", np.array([0], dtype)),
                        9: ("v", np.array([1], dtype)),
                    }
                ),
            )
        },
    )
    kw = dict(reduce_type="sum", edge_set_name="hyper", feature_name="feat")
    assert pool(g, 6, **kw).tolist() == [[1.0], [0.0]]
    assert pool(g, 8, **kw).tolist() == [[1.0]]
    assert pool(g, 9, **kw).tolist() == [[0.0], [1.0]]
    assert pool(g, CONTEXT, **kw).tolist() == [[1.0]]
    assert pool_edges_to_node(g, "hyper", 9, "max", feature_name="feat").tolist() == [[0.0], [1.0]]
    assert node_degree(g, "hyper", 9).tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"no node tag 7 \(tags: \[6, 8, 9\]\)"):
        pool(g, 7, **kw)
    with pytest.raises(ValueError, match=r"node tag must be SOURCE \(0\) or TARGET \(1\)"):
        pool(g, -1, **kw)


@pytest.mark.parametrize("hyper", [False, True])
def test_edge_field_from_node(hyper):
    """broadcast_ops_test.py testEdgeFieldFromNode (dense features)."""
    node_set = NodeSet.from_fields(
        sizes=np.array([3]),
        features={
            "scalar": np.array([1.0, 2.0, 3.0]),
            "vector": np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]]),
            "matrix": np.array([[[1.0]], [[2.0]], [[3.0]]]),
        },
    )
    src, tgt = ("node", np.array([0, 0, 0, 2, 2])), ("node", np.array([2, 1, 0, 0, 0]))
    adj = (
        HyperAdjacency.from_indices({SOURCE: src, TARGET: tgt})
        if hyper
        else Adjacency.from_indices(src, tgt)
    )
    g = GraphTensor.from_pieces(
        node_sets={"node": node_set},
        # TF-GNN's case has edge sizes [2, 3] against one node component, which arraygnn's
        # from_pieces rejects (components must agree); one component of 5 edges here
        edge_sets={"edge": EdgeSet.from_fields(sizes=np.array([5]), adjacency=adj)},
    )
    want_src = {
        "scalar": [1.0, 1.0, 1.0, 3.0, 3.0],
        "vector": [[1.0, 3.0], [1.0, 3.0], [1.0, 3.0], [3.0, 1.0], [3.0, 1.0]],
        "matrix": [[[1.0]], [[1.0]], [[1.0]], [[3.0]], [[3.0]]],
    }
    want_tgt = {
        "scalar": [3.0, 2.0, 1.0, 1.0, 1.0],
        "vector": [[3.0, 1.0], [2.0, 2.0], [1.0, 3.0], [1.0, 3.0], [1.0, 3.0]],
        "matrix": [[[3.0]], [[2.0]], [[1.0]], [[1.0]], [[1.0]]],
    }
    for name in want_src:
        assert (
            broadcast_node_to_edges(g, "edge", SOURCE, feature_name=name).tolist() == want_src[name]
        )
        assert (
            broadcast(g, TARGET, edge_set_name="edge", feature_name=name).tolist() == want_tgt[name]
        )


def test_broadcast_pool_third_tag_matches_plain_indexing():
    rng = np.random.default_rng(0)
    g = GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([3, 0, 2]), features={"x": rng.random((5, 2))}),
            "c": NodeSet.from_fields(sizes=np.array([1, 2, 4]), features={"x": rng.random((7, 2))}),
        },
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([2, 0, 3]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        0: ("a", np.array([0, 2, 3, 4, 4], np.int32)),
                        1: ("a", np.array([1, 1, 3, 3, 4], np.int32)),
                        2: ("c", np.array([0, 0, 3, 6, 6], np.int32)),
                    }
                ),
                features={"w": rng.random((5, 2))},
            )
        },
    )
    x_c = g.node_sets["c"]["x"]
    np.testing.assert_array_equal(
        broadcast(g, 2, edge_set_name="e", feature_name="x"), x_c[[0, 0, 3, 6, 6]]
    )
    w = g.edge_sets["e"]["w"]
    want = np.zeros((7, 2))
    np.add.at(want, [0, 0, 3, 6, 6], w)
    np.testing.assert_allclose(pool(g, 2, edge_set_name="e", feature_name="w"), want)
    mean = pool(g, 2, edge_set_name="e", reduce_type="mean", feature_name="w")
    np.testing.assert_allclose(mean[6], w[3:].mean(0))
    assert mean[1].tolist() == [0.0, 0.0]  # isolated node of tag 2
    np.testing.assert_array_equal(node_degree(g, "e", 2), [2, 0, 0, 1, 0, 0, 2])


def test_empty_hyper_edge_set():
    g = GraphTensor.from_pieces(
        node_sets=_nodes(a=[2], b=[0]),
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=HyperAdjacency.from_indices(
                    {0: ("a", np.zeros(0, np.int64)), 5: ("b", np.zeros(0, np.int64))}
                ),
                features={"f": np.zeros((0, 3))},
            )
        },
    )
    assert pool(g, 0, edge_set_name="e", feature_name="f").tolist() == [[0.0] * 3] * 2
    assert pool(g, 5, edge_set_name="e", feature_name="f").shape == (0, 3)
    assert broadcast(g, 5, edge_set_name="e", feature_value=np.zeros((0, 1))).shape == (0, 1)


# ---------------------------------------------------------------------------------------------
# batching and padding
# ---------------------------------------------------------------------------------------------


def test_merge_rank1_batch_to_components():
    """adjacency_test.py testMergeRank1BatchToComponents, plus a third tag."""
    r = lambda rows: Ragged.from_list(rows, dtype=np.int64)  # noqa: E731
    sizes = lambda rows: Ragged.from_list(rows, dtype=np.int64)  # noqa: E731
    g = GraphTensor.from_pieces(
        node_sets={
            "node.a": NodeSet.from_fields(sizes=sizes([[3], [2], [4]])),
            "node.b": NodeSet.from_fields(sizes=sizes([[4], [3], [2]])),
        },
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=sizes([[2], [1], [1]]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        SOURCE: ("node.a", r([[0, 1], [1], [0]])),
                        TARGET: ("node.b", r([[1, 2], [1], [1]])),
                        2: ("node.a", r([[2, 2], [0], [3]])),
                    }
                ),
            )
        },
    )
    assert g.rank == 1 and isinstance(g.spec.edge_sets["e"], HyperEdgeSetSpec)
    m = merge_batch_to_components(g)
    adj = m.edge_sets["e"].adjacency
    assert isinstance(adj, HyperAdjacency)
    assert adj[SOURCE].tolist() == [0, 1, 1 + 3, 0 + 3 + 2]
    assert adj[TARGET].tolist() == [1, 2, 1 + 4, 1 + 4 + 3]
    assert adj[2].tolist() == [2, 2, 0 + 3, 3 + 3 + 2]
    with pytest.raises(ValueError, match=r"edge set 'e': graph 1: tag 2 index 5 out of range"):
        GraphTensor.from_pieces(
            node_sets={"node.a": NodeSet.from_fields(sizes=sizes([[3], [2]]))},
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=sizes([[1], [1]]),
                    adjacency=HyperAdjacency.from_indices(
                        {0: ("node.a", r([[0], [1]])), 2: ("node.a", r([[2], [5]]))}
                    ),
                )
            },
        )


@pytest.mark.parametrize("dtype", IDX)
def test_hyper_adjacency_padding_with_linspace(dtype):
    """padding_ops_test.py testHyperAdjacencyPaddingWithLinspace."""
    padded = pad_to_total_sizes(
        _abc_graph(dtype),
        SizeConstraints(
            total_num_components=4,
            total_num_nodes={"a": 100, "b": 200, "c": 300},
            total_num_edges={"a.b.c": 1000},
        ),
    )
    if isinstance(padded, tuple):
        padded = padded[0]
    adj = padded.edge_sets["a.b.c"].adjacency
    assert isinstance(adj, HyperAdjacency)
    for tag, begin, end in [(0, 1, 100), (1, 2, 200), (2, 3, 300)]:
        idx = adj[tag][3:]
        assert idx.size == 1000 - 3
        np.testing.assert_array_equal(np.unique(idx[3:]), np.arange(begin, end))


def test_unsupported_operations_raise_instead_of_dropping_tags():
    from arraygnn.graph_tensor import add_self_loops

    g = _abc_graph()  # batching keeps every tag (test_review_tfgnn_gaps.py)
    with pytest.raises(ValueError, match=r"node tags \[0, 1, 2\] has no source"):
        add_self_loops(g, "a.b.c")  # TF-GNN's needs source_name too (mask_edges: every tag)
