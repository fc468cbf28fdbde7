"""Broadcast and pool: the seed's mean paper embedding, every reduction against NumPy on
random graphs (empty sets, zero-edge nodes, multi-edges, self-loops), context ops, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_ops = pytest.importorskip("arraygnn.ops", reason="arraygnn.ops (ENGINE) not available yet")
if not all(hasattr(_ops, n) for n in ("gather", "scatter", "segment")):
    pytest.skip("arraygnn.ops has no gather/scatter/segment yet", allow_module_level=True)

from arraygnn.graph_tensor import (  # noqa: E402
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    broadcast,
    broadcast_context_to_edges,
    broadcast_context_to_nodes,
    broadcast_node_to_edges,
    pool,
    pool_edges_to_context,
    pool_edges_to_node,
    pool_nodes_to_context,
)
from tests.graph_tensor._gt_cases import np_pool, random_graph, seed_graph  # noqa: E402

REDUCES = ("sum", "mean", "max", "min", "prod", "max_no_inf", "min_no_inf")


def test_seed_mean_paper_embedding_per_author():
    graph = seed_graph()
    # Compute the mean paper embedding.
    embedding_on_edge = broadcast_node_to_edges(graph, "writes", TARGET, feature_name="embedding")
    mean_paper_embedding = pool_edges_to_node(
        graph, "writes", SOURCE, reduce_type="mean", feature_value=embedding_on_edge
    )
    # Insert it into the GraphTensor.
    author_features = graph.node_sets["author"].get_features_dict()
    author_features["mean_paper_embedding"] = mean_paper_embedding
    graph = graph.replace_features(node_sets={"author": author_features})
    got = graph.node_sets["author"]["mean_paper_embedding"]
    np.testing.assert_allclose(
        got, [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]], rtol=0, atol=0
    )
    assert got.dtype == np.float32
    assert graph.node_sets["author"]["name"][0] == "Kevin Kernel"


def test_seed_citations():
    g = seed_graph()
    years = broadcast_node_to_edges(g, "cites", SOURCE, feature_name="year")
    assert years.tolist() == [2019, 2020, 2020]
    # papers cited by later papers: newest citing year per cited paper; paper 2 is never cited
    newest = pool_edges_to_node(g, "cites", TARGET, "max", feature_value=years)
    assert newest.tolist() == [2020, 2020, 0]
    count = pool(g, TARGET, edge_set_name="cites", feature_value=np.ones(3, np.float32))
    assert count.tolist() == [2.0, 1.0, 0.0]
    names = broadcast(g, SOURCE, edge_set_name="writes", feature_name="name")
    assert names.tolist()[:3] == ["Kevin Kernel", "Kevin Kernel", "Leila Limit"]


def test_multi_reduce_concatenates_last_axis():
    g = seed_graph()
    emb = broadcast_node_to_edges(g, "writes", TARGET, feature_name="embedding")
    out = pool_edges_to_node(g, "writes", SOURCE, "sum|max", feature_value=emb)
    assert out.shape == (4, 6)
    np.testing.assert_array_equal(
        out[:, :3], pool_edges_to_node(g, "writes", SOURCE, "sum", feature_value=emb)
    )
    np.testing.assert_array_equal(
        out[:, 3:], pool_edges_to_node(g, "writes", SOURCE, "max", feature_value=emb)
    )


def test_empty_edge_set_and_inf_rules():
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([3]))},
        edge_sets={
            "none": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=Adjacency.from_indices(
                    source=("n", np.zeros(0, np.int64)), target=("n", np.zeros(0, np.int64))
                ),
            ),
            "one": EdgeSet.from_fields(
                sizes=np.array([2]),
                adjacency=Adjacency.from_indices(
                    source=("n", np.array([0, 1])), target=("n", np.array([2, 2]))
                ),
            ),
        },
    )
    for r in REDUCES:
        out = pool_edges_to_node(g, "none", TARGET, r, feature_value=np.zeros((0, 2)))
        assert out.shape == (3, 2) and (out == (1 if r == "prod" else 0)).all(), r
    # TF-GNN: the empty product is 1; *_no_inf drop only the empty-set sentinel, so a real
    # +inf maximum (-inf minimum) stays; a max that is -inf (only -inf values) becomes 0
    inf = np.array([[np.inf], [1.0]])
    assert pool_edges_to_node(g, "one", TARGET, "max", feature_value=inf)[:, 0].tolist() == [
        0.0,
        0.0,
        np.inf,
    ]
    for r, value, want in (
        ("max_no_inf", inf, np.inf),
        ("min_no_inf", -inf, -np.inf),
        ("max_no_inf", np.array([[-np.inf], [-np.inf]]), 0.0),
        ("min_no_inf", np.array([[np.inf], [np.inf]]), 0.0),
        ("max_no_inf", np.array([[-np.inf], [2.0]]), 2.0),
    ):
        got = pool_edges_to_node(g, "one", TARGET, r, feature_value=value)
        assert got[:, 0].tolist() == [0.0, 0.0, want], (r, value.ravel())
    ints = np.array([3, 4], np.int32)
    got = pool_edges_to_node(g, "one", TARGET, "mean", feature_value=ints)
    assert got.dtype == np.float64 and got.tolist() == [0.0, 0.0, 3.5]  # TF-GNN: exact mean
    lowest = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).min], np.int32)
    assert pool_edges_to_node(g, "one", TARGET, "max_no_inf", feature_value=lowest).tolist() == [
        0,
        0,
        0,
    ]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), idx32=st.booleans())
def test_random_pool_and_broadcast_against_numpy(seed, idx32):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, index_dtype=np.int32 if idx32 else np.int64)
    for name, es in g.edge_sets.items():
        a = es.adjacency
        for tag in (SOURCE, TARGET):
            ns = g.node_sets[a.node_set_name(tag)]
            idx = np.asarray(a[tag])
            on_edges = broadcast_node_to_edges(g, name, tag, feature_name="h")
            np.testing.assert_array_equal(on_edges, ns["h"][idx])
            ints = broadcast_node_to_edges(g, name, tag, feature_name="k")
            np.testing.assert_array_equal(ints, ns["k"][idx])
            # every reduction at one end per edge set (chosen at random), "sum" at the other
            reduces = REDUCES if tag == rng.integers(0, 2) else ("sum",)
            for r in reduces:
                got = pool_edges_to_node(g, name, tag, r, feature_name="w")
                want = np_pool(es["w"], idx, ns.total_size, r)
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{name} {r}")
    for name, ns in g.node_sets.items():
        comp = np.repeat(np.arange(g.num_components), ns.sizes)
        np.testing.assert_array_equal(
            broadcast_context_to_nodes(g, name, feature_name="g"), g.context["g"][comp]
        )
        for r in ("sum", "mean", "max", "min"):
            np.testing.assert_allclose(
                pool_nodes_to_context(g, name, r, feature_name="h"),
                np_pool(ns["h"], comp, g.num_components, r),
                rtol=1e-12,
                atol=1e-12,
            )
    for name, es in g.edge_sets.items():
        comp = np.repeat(np.arange(g.num_components), es.sizes)
        np.testing.assert_array_equal(
            broadcast_context_to_edges(g, name, feature_name="id"), g.context["id"][comp]
        )
        np.testing.assert_allclose(
            pool_edges_to_context(g, name, "sum|min", feature_name="w"),
            np.concatenate(
                [np_pool(es["w"], comp, g.num_components, r) for r in ("sum", "min")], axis=-1
            ),
            rtol=1e-5,
            atol=1e-6,
        )


def test_generic_context_forms():
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"c": np.array([[1.0], [2.0]])}),
        node_sets={"n": NodeSet.from_fields(sizes=np.array([2, 1]), features={"x": np.ones(3)})},
    )
    assert broadcast(g, CONTEXT, node_set_name="n", feature_name="c").tolist() == [
        [1.0],
        [1.0],
        [2.0],
    ]
    assert pool(g, CONTEXT, node_set_name="n", feature_name="x").tolist() == [2.0, 1.0]
    assert pool(g, CONTEXT, node_set_name="n", reduce_type="mean", feature_name="x").tolist() == [
        1.0,
        1.0,
    ]


def test_errors_name_what_is_wrong():
    g = seed_graph()
    with pytest.raises(ValueError, match="exactly one of feature_value= or feature_name="):
        broadcast_node_to_edges(g, "writes", SOURCE)
    with pytest.raises(ValueError, match=r"no edge set 'reads'"):
        broadcast_node_to_edges(g, "reads", SOURCE, feature_name="name")
    with pytest.raises(ValueError, match=r"node set 'paper' has no feature 'nope'"):
        broadcast_node_to_edges(g, "writes", TARGET, feature_name="nope")
    with pytest.raises(ValueError, match=r"unknown reduce_type 'median'"):
        pool_edges_to_node(g, "writes", SOURCE, "median", feature_value=np.ones((7, 1)))
    with pytest.raises(ValueError, match=r"has shape \(6, 1\), expected 7 items"):
        pool_edges_to_node(g, "writes", SOURCE, feature_value=np.ones((6, 1)))
    with pytest.raises(TypeError, match=r"feature 'tokenized_title' of node set 'paper' is ragged"):
        pool(g, CONTEXT, node_set_name=["paper"], reduce_type="sum", feature_name="tokenized_title")
    with pytest.raises(ValueError, match="node tag must be SOURCE"):
        broadcast_node_to_edges(g, "writes", 2, feature_name="name")
    with pytest.raises(ValueError, match="concatenated along the last axis"):
        pool_edges_to_node(g, "writes", SOURCE, "sum|max", feature_value=np.ones(7))
    with pytest.raises(TypeError, match="cannot pool values of dtype"):
        pool_edges_to_node(g, "writes", SOURCE, feature_value=np.array(["a"] * 7))
    from arraygnn.graph_tensor import batch_graph_tensors

    with pytest.raises(ValueError, match="merge_batch_to_components"):
        pool_nodes_to_context(batch_graph_tensors([g]), "paper", feature_name="year")


def test_pool_from_several_sets_is_pooling_their_concatenation():
    # TF-GNN's pool(): "as if all named edge sets were concatenated into a single edge set"
    rng = np.random.default_rng(5)
    n = 5
    src_a, dst_a = rng.integers(0, n, 4), rng.integers(0, n, 4)
    src_b, dst_b = rng.integers(0, n, 3), rng.integers(0, n, 3)
    wa, wb = rng.standard_normal((4, 2)), rng.standard_normal((3, 2))

    def es(src, dst, w):
        return EdgeSet.from_fields(
            sizes=np.array([len(src)]),
            adjacency=Adjacency.from_indices(source=("n", src), target=("n", dst)),
            features={"w": w},
        )

    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([n]), features={"h": np.ones(n)})},
        edge_sets={
            "a": es(src_a, dst_a, wa),
            "b": es(src_b, dst_b, wb),
            "ab": es(np.r_[src_a, src_b], np.r_[dst_a, dst_b], np.r_[wa, wb]),
        },
    )
    for r in REDUCES + ("sum|max",):
        want = pool(g, TARGET, edge_set_name="ab", reduce_type=r, feature_name="w")
        got = pool(g, TARGET, edge_set_name=["a", "b"], reduce_type=r, feature_name="w")
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=r)
        got = pool(g, TARGET, edge_set_name=("a", "b"), reduce_type=r, feature_value=[wa, wb])
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=r)
        want = pool(g, CONTEXT, edge_set_name="ab", reduce_type=r, feature_name="w")
        got = pool(g, CONTEXT, edge_set_name=["a", "b"], reduce_type=r, feature_name="w")
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=r)
    twice = pool(g, CONTEXT, node_set_name=["n", "n"], feature_name="h")
    assert twice.tolist() == [2.0 * n]
    one = pool(g, SOURCE, edge_set_name=["a"], reduce_type="max", feature_name="w")
    np.testing.assert_array_equal(
        one, pool(g, SOURCE, edge_set_name="a", reduce_type="max", feature_name="w")
    )
    per_set = broadcast(g, SOURCE, edge_set_name=["a", "b"], feature_name="h")
    assert [v.shape for v in per_set] == [(4,), (3,)]
    with pytest.raises(ValueError, match="2 set names but 1 feature values"):
        pool(g, TARGET, edge_set_name=["a", "b"], feature_value=[wa])
    with pytest.raises(ValueError, match="feature_value must be a list of the same length"):
        pool(g, TARGET, edge_set_name=["a", "b"], feature_value=wa)
    with pytest.raises(ValueError, match="a list of feature values needs a list of set names"):
        pool(g, TARGET, edge_set_name="a", feature_value=[wa])
    with pytest.raises(ValueError, match="the list of set names is empty"):
        pool(g, TARGET, edge_set_name=[], feature_name="w")
    with pytest.raises(ValueError, match="per item, for 'a' float64 \\(2,\\)"):
        pool(g, TARGET, edge_set_name=["a", "b"], feature_value=[wa, wb[:, :1]])
