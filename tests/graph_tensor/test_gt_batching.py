"""Merging lists of graphs into components, batched (rank-1) graphs, splitting back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraygnn.graph_tensor import (
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
    merge_batch_to_components,
    merge_graphs_to_components,
    split_components,
    unbatch_graph_tensor,
)
from tests.graph_tensor._gt_cases import assert_graphs_equal, random_graph, seed_graph


def _chain(n: int) -> GraphTensor:
    """n nodes with node ids as features, edges i -> i+1."""
    return GraphTensor.from_pieces(
        node_sets={"v": NodeSet.from_fields(sizes=np.array([n]), features={"id": np.arange(n)})},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([n - 1]),
                adjacency=Adjacency.from_indices(
                    source=("v", np.arange(n - 1)), target=("v", np.arange(1, n))
                ),
            )
        },
    )


def test_seed_sizes_4_5_6_merge_to_indices_0_to_14():
    merged = merge_graphs_to_components([_chain(4), _chain(5), _chain(6)])
    v, e = merged.node_sets["v"], merged.edge_sets["e"]
    assert merged.num_components == 3
    assert v.sizes.tolist() == [4, 5, 6]  # concatenated, not added
    assert v.total_size == 15
    assert e.sizes.tolist() == [3, 4, 5]
    src, tgt = e.adjacency.source.tolist(), e.adjacency.target.tolist()
    assert src == [0, 1, 2, 4, 5, 6, 7, 9, 10, 11, 12, 13]
    assert tgt == [1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 14]
    assert sorted(set(src) | set(tgt)) == list(range(15))
    assert merged.context.sizes.tolist() == [1, 1, 1]


def test_batch_then_merge_equals_direct_merge_seed():
    graphs = [seed_graph(), seed_graph(), seed_graph()]
    batched = batch_graph_tensors(graphs)
    assert batched.rank == 1 and batched.shape == (3,)
    assert batched.num_components.tolist() == [1, 1, 1]
    emb = batched.node_sets["paper"]["embedding"]
    assert isinstance(emb, Ragged) and emb.row_splits.tolist() == [0, 3, 6, 9]
    # adjacency of a batched graph stays local to each graph, like TF-GNN's
    assert batched.edge_sets["writes"].adjacency.target[2].tolist() == [0, 1, 0, 1, 1, 2, 2]
    # a ragged feature becomes doubly ragged
    assert batched.node_sets["paper"]["tokenized_title"][1].to_list()[1] == [
        "Better",
        "bipartite",
        "bijection",
        "bounds",
    ]
    merged = batched.merge_batch_to_components()
    assert merged.rank == 0
    assert_graphs_equal(merged, merge_graphs_to_components(graphs))
    assert merged.edge_sets["writes"].adjacency.target.tolist()[7:14] == [3, 4, 3, 4, 4, 5, 5]
    assert merge_batch_to_components(merged) is merged


def test_missing_set_is_an_error_naming_it():
    g = seed_graph()
    h = g.remove_features(node_sets={"paper": ["year"]})
    with pytest.raises(ValueError, match=r"graph 1 does not match graph 0.*'year'"):
        merge_graphs_to_components([g, h])
    no_author = GraphTensor.from_pieces(
        node_sets={"paper": g.node_sets["paper"]}, edge_sets={"cites": g.edge_sets["cites"]}
    )
    with pytest.raises(ValueError, match=r"graph 1 .*node set 'author' missing"):
        merge_graphs_to_components([g, no_author])
    with pytest.raises(ValueError, match=r"graph 1 .*edge set 'writes' missing"):
        batch_graph_tensors([g, no_author])
    with pytest.raises(ValueError, match="at least one graph"):
        merge_graphs_to_components([])


def test_split_rejects_cross_component_edges():
    g = GraphTensor.from_pieces(
        node_sets={"v": NodeSet.from_fields(sizes=np.array([2, 2]))},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([1, 0]),
                adjacency=Adjacency.from_indices(
                    source=("v", np.array([0])), target=("v", np.array([3]))
                ),
            )
        },
    )
    with pytest.raises(ValueError, match=r"edge set 'e': edge 0 joins node 3.*graph 0"):
        split_components(g)


def test_batched_graph_validates_local_indices():
    g = batch_graph_tensors([_chain(2), _chain(3)])
    adj = g.edge_sets["e"].adjacency
    bad_target = Ragged(adj.target.values + 1, adj.target.row_splits)  # 2 in graph 0: invalid
    with pytest.raises(
        ValueError,
        match=r"edge set 'e': graph 0: target index 2 out of range "
        r"for 2 nodes in node set 'v'",
    ):
        GraphTensor.from_pieces(
            node_sets=dict(g.node_sets),
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=g.edge_sets["e"].sizes,
                    adjacency=Adjacency.from_indices(
                        source=("v", adj.source), target=("v", bad_target)
                    ),
                )
            },
        )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), idx32=st.booleans())
def test_random_merge_split_roundtrip(seed, n, idx32):
    rng = np.random.default_rng(seed)
    dtype = np.int32 if idx32 else np.int64
    graphs = [random_graph(rng, index_dtype=dtype) for _ in range(n)]
    merged = merge_graphs_to_components(graphs)
    assert merged.num_components == sum(g.num_components for g in graphs)
    for name in merged.node_sets:
        assert merged.node_sets[name].total_size == sum(
            g.node_sets[name].total_size for g in graphs
        )
    back = split_components(merged, [g.num_components for g in graphs])
    assert len(back) == n
    for a, b in zip(graphs, back):
        assert_graphs_equal(a, b)
    # batched route: same merged graph, and unbatch is exact too
    batched = batch_graph_tensors(graphs)
    assert_graphs_equal(batched.merge_batch_to_components(), merged)
    for a, b in zip(graphs, unbatch_graph_tensor(batched)):
        assert_graphs_equal(a, b)
    # one graph per component
    singles = split_components(merged)
    assert len(singles) == merged.num_components
    assert_graphs_equal(merge_graphs_to_components(singles), merged)


def test_split_components_names_counts_that_are_not_integers():
    rng = np.random.default_rng(3)
    merged = merge_graphs_to_components([random_graph(rng) for _ in range(3)])
    c = merged.num_components
    # 'ab' failed inside NumPy, [1.5, 1.5] was truncated, nested lists / bools were flattened
    for bad in ("ab", [c / 2, c / 2], [[1, c - 1]], c, [True] * c):
        with pytest.raises(TypeError, match="num_components must be a 1-D sequence of integers"):
            split_components(merged, bad)
    assert len(split_components(merged, np.array([c], np.uint8))) == 1


def test_merge_of_all_empty_sets():
    rng = np.random.default_rng(1)
    graphs = [random_graph(rng, empty_prob=1.0) for _ in range(3)]
    merged = merge_graphs_to_components(graphs)
    assert all(ns.total_size == 0 for ns in merged.node_sets.values())
    assert all(es.total_size == 0 for es in merged.edge_sets.values())
    back = split_components(merged, [g.num_components for g in graphs])
    for a, b in zip(graphs, back):
        assert_graphs_equal(a, b)


def test_batched_graph_built_directly_from_fields():
    """A rank-1 graph from [batch, num_components] sizes and [batch, n, ...] dense features
    (every graph the same size) or Ragged features, as TF-GNN's batched fields."""
    from arraygnn.graph_tensor import Context

    g = GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"label": np.array([[1], [2]])}, sizes=np.ones((2, 1), np.int64)
        ),
        node_sets={
            "v": NodeSet.from_fields(
                sizes=np.array([[2], [2]]), features={"x": np.arange(8.0).reshape(2, 2, 2)}
            )
        },
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=Ragged(np.array([1, 2]), np.array([0, 1, 2])),
                adjacency=Adjacency.from_indices(
                    source=("v", Ragged(np.array([0, 1, 0]), np.array([0, 1, 3]))),
                    target=("v", Ragged(np.array([1, 0, 1]), np.array([0, 1, 3]))),
                ),
            )
        },
    )
    assert g.rank == 1 and g.shape == (2,)
    assert g.spec.node_sets["v"].features["x"].shape == (2,)
    m = g.merge_batch_to_components()
    assert m.node_sets["v"].sizes.tolist() == [2, 2]
    assert m.node_sets["v"]["x"].tolist() == np.arange(8.0).reshape(4, 2).tolist()
    assert m.edge_sets["e"].adjacency.source.tolist() == [0, 3, 2]
    assert m.edge_sets["e"].adjacency.target.tolist() == [1, 2, 3]
    assert m.context["label"].tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"items per graph \[2, 2\] disagree with sizes \[2, 3\]"):
        NodeSet.from_fields(sizes=np.array([[2], [3]]), features={"x": np.zeros((2, 2, 1))})
    with pytest.raises(ValueError, match="mixes batched"):
        GraphTensor.from_pieces(
            node_sets={
                "a": NodeSet.from_fields(sizes=np.array([[1]])),
                "b": NodeSet.from_fields(sizes=np.array([1])),
            }
        )


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_merge_batch_widens_narrow_indices_like_merge_graphs(dtype):
    # ids 99 + 100 used to wrap (int8: -57, uint8 past 255) without an error
    def graph(src, tgt):
        return GraphTensor.from_pieces(
            node_sets={"n": NodeSet.from_fields(sizes=np.array([200]))},
            edge_sets={
                "e": EdgeSet.from_fields(
                    sizes=np.array([1]),
                    adjacency=Adjacency.from_indices(
                        source=("n", np.array([src], dtype)), target=("n", np.array([tgt], dtype))
                    ),
                )
            },
        )

    graphs = [graph(0, 99), graph(99, 99)]
    direct = merge_graphs_to_components(graphs)
    via_batch = batch_graph_tensors(graphs).merge_batch_to_components()
    for m in (direct, via_batch):
        assert m.edge_sets["e"].adjacency.source.tolist() == [0, 299]
        assert m.edge_sets["e"].adjacency.source.dtype == np.int64
