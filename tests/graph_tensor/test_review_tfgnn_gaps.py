"""Review of the TF-GNN gap ports (HyperAdjacency, homogeneous, random_graph_tensor,
padding / merging over every node tag): cases found while re-reading them against
TF-GNN's adjacency.py, graph_tensor.py, graph_tensor_random.py and graph_tensor_ops.py."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    HyperAdjacency,
    HyperEdgeSetSpec,
    NodeSet,
    Ragged,
    batch_graph_tensors,
    broadcast,
    broadcast_node_to_edges,
    merge_batch_to_components,
    node_degree,
    pool,
    pool_edges_to_node,
    pool_neighbors_to_node,
    random_graph_tensor,
)
from arraygnn.graph_tensor.random import typed_random_values
from arraygnn.padding import SizeConstraints, pad_to_total_sizes, remove_padding

IDX = [np.int32, np.int64]


def _plain_graph(dtype=np.int64):
    return GraphTensor.from_pieces(
        node_sets={"v": NodeSet.from_fields(sizes=np.array([3]), features={"x": np.ones((3, 2))})},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([2]),
                adjacency=Adjacency.from_indices(
                    source=("v", np.array([0, 1], dtype)), target=("v", np.array([1, 2], dtype))
                ),
                features={"w": np.ones((2, 2))},
            )
        },
    )


def _hyper_graph(dtype=np.int64, tags=(0, 1, 3)):
    """Three components; tag ``tags[2]`` points at node set "c" (its own offsets)."""
    names = ("a", "b", "c")  # sizes a [3, 0, 2], b [2, 1, 1], c [4, 2, 5]; edges [2, 0, 2]
    return GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([3, 0, 2]), features={"x": np.arange(5.0)}),
            "b": NodeSet.from_fields(sizes=np.array([2, 1, 1])),
            "c": NodeSet.from_fields(sizes=np.array([4, 2, 5]), features={"x": np.arange(11.0)}),
        },
        edge_sets={
            "h": EdgeSet.from_fields(
                sizes=np.array([2, 0, 2]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        t: (n, np.array(offset_local, dtype))
                        for t, n, offset_local in zip(
                            tags,
                            names,
                            (
                                [0, 2, 3 + 0, 3 + 1],
                                [1, 0, 3 + 0, 3 + 0],
                                [3, 3, 6 + 0, 6 + 1],
                            ),
                        )
                    }
                ),
                features={"w": np.arange(4.0)},
            )
        },
    )


# ---------------------------------------------------------------------------------------------
# a node tag the edge set does not have: the error names the operation, edge set and tag
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hyper", [False, True])
def test_absent_tag_errors_name_op_edge_set_and_tag(hyper):
    g = _hyper_graph() if hyper else _plain_graph()
    e, x, w = ("h", "x", "w") if hyper else ("e", "x", "w")
    tag = 2  # neither graph has it
    cases = [
        ("broadcast_node_to_edges()", lambda: broadcast_node_to_edges(g, e, tag, feature_name=x)),
        ("pool_edges_to_node()", lambda: pool_edges_to_node(g, e, tag, feature_name=w)),
        ("broadcast_node_to_edges()", lambda: broadcast(g, tag, edge_set_name=e, feature_name=x)),
        ("pool_edges_to_node()", lambda: pool(g, tag, edge_set_name=e, feature_name=w)),
        ("pool()", lambda: pool(g, tag, edge_set_name=[e, e], feature_name=w)),
        ("node_degree()", lambda: node_degree(g, e, tag)),
        (
            "pool_neighbors_to_node()",
            lambda: pool_neighbors_to_node(
                g, e, 0, reduce_type="sum", from_tag=tag, feature_name=x
            ),
        ),
    ]
    for op, call in cases:
        with pytest.raises(
            ValueError,
            match=rf"{op.replace('(', '[(]').replace(')', '[)]')}"
            rf".*edge set '{e}'.*node tag 2",
        ):
            call()


def test_pool_neighbors_default_from_tag_needs_source_or_target():
    """TF-GNN: from_tag defaults to reverse_tag(to_tag), an error for tags other than
    SOURCE / TARGET (not the tag 1 - to_tag)."""
    g = _hyper_graph(tags=(0, 1, 2))
    with pytest.raises(ValueError, match=r"pool_neighbors_to_node\(\).*from_tag"):
        pool_neighbors_to_node(g, "h", 2, reduce_type="sum", feature_name="x")
    # with an explicit from_tag, tag 2 works (pool at c of the features at a)
    got = pool_neighbors_to_node(g, "h", 2, reduce_type="sum", from_tag=0, feature_name="x")
    adj = g.edge_sets["h"].adjacency
    want = np.zeros(11)
    np.add.at(want, adj[2], np.arange(5.0)[adj[0]])
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------------
# padding round trip and batching with tags >= 2
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", IDX)
def test_pad_and_remove_padding_hyper(dtype):
    g = _hyper_graph(dtype)
    padded, mask = pad_to_total_sizes(
        g,
        SizeConstraints(
            total_num_components=5,
            total_num_nodes={"a": 8, "b": 6, "c": 14},
            total_num_edges={"h": 7},
        ),
    )
    adj = padded.edge_sets["h"].adjacency
    assert isinstance(adj, HyperAdjacency) and list(adj.get_indices_dict()) == [0, 1, 3]
    # every tag's padding edges point at padding nodes of its own node set
    for tag, first in ((0, 5), (1, 4), (3, 11)):
        assert adj[tag].dtype == dtype
        assert (adj[tag][4:] >= first).all(), tag
    back = remove_padding(padded, mask)
    b = back.edge_sets["h"].adjacency
    assert isinstance(b, HyperAdjacency) and back.spec == g.spec
    for tag in (0, 1, 3):
        np.testing.assert_array_equal(b[tag], g.edge_sets["h"].adjacency[tag])
    assert back.node_sets["c"].sizes.tolist() == [4, 2, 5]


@pytest.mark.parametrize("dtype", IDX)
def test_batch_and_merge_keep_hyper_adjacency(dtype):
    """TF-GNN batches a HyperAdjacency as a HyperAdjacency: the spec keeps its type and every
    tag (here tags 0, 1 and a third one pointing at its own node set)."""
    g1 = _hyper_graph(dtype)
    g2 = _hyper_graph(dtype)
    b = batch_graph_tensors([g1, g2])
    assert b.rank == 1 and b.spec.edge_sets["h"] == g1.spec.edge_sets["h"]
    m = merge_batch_to_components(b)
    adj = m.edge_sets["h"].adjacency
    assert isinstance(adj, HyperAdjacency)
    for tag, name in ((0, "a"), (1, "b"), (3, "c")):
        n = g1.node_sets[name].total_size
        one = g1.edge_sets["h"].adjacency[tag]
        np.testing.assert_array_equal(adj[tag], np.concatenate([one, one + n]))


def test_batch_hyper_pair_keeps_spec_type():
    adj = HyperAdjacency.from_indices({0: ("v", np.array([0, 1])), 1: ("v", np.array([1, 2]))})
    g = GraphTensor.from_pieces(
        node_sets={"v": NodeSet.from_fields(sizes=np.array([3]))},
        edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=adj)},
    )
    b = batch_graph_tensors([g, g])
    assert isinstance(b.spec.edge_sets["e"], HyperEdgeSetSpec)
    assert isinstance(merge_batch_to_components(b).edge_sets["e"].adjacency, HyperAdjacency)


# ---------------------------------------------------------------------------------------------
# random values: floats uniform in [0, 1) as TF's tf.random.uniform
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_typed_random_floats_below_one(dtype):
    v = typed_random_values(300_000, dtype, rng=0)
    assert v.dtype == dtype
    assert v.min() >= 0 and v.max() < 1


def test_random_graph_tensor_hyper_index_ranges_every_tag():
    spec = _hyper_graph().spec
    for seed in range(5):
        g = random_graph_tensor(spec, rng=seed, num_components_range=(1, 5), indices_dtype=np.int32)
        assert g.spec == spec
        es = g.edge_sets["h"]
        comp = np.repeat(np.arange(g.num_components), es.sizes)
        for tag, (name, idx) in es.adjacency.get_indices_dict().items():
            assert idx.dtype == np.int32
            sizes = g.node_sets[name].sizes
            lo = (np.cumsum(sizes) - sizes)[comp]
            assert ((idx >= lo) & (idx < lo + sizes[comp])).all(), tag


def test_ragged_hyper_validation_every_tag_batched():
    r = lambda rows, dt=np.int32: Ragged.from_list(rows, dtype=dt)  # noqa: E731
    nodes = {
        "a": NodeSet.from_fields(sizes=r([[2], [1]], np.int64)),
        "c": NodeSet.from_fields(sizes=r([[1], [3]], np.int64)),
    }

    def make(c_rows):
        return GraphTensor.from_pieces(
            node_sets=nodes,
            edge_sets={
                "h": EdgeSet.from_fields(
                    sizes=r([[1], [2]], np.int64),
                    adjacency=HyperAdjacency.from_indices(
                        {1: ("a", r([[1], [0, 0]])), 4: ("c", r(c_rows))}
                    ),
                )
            },
        )

    make([[0], [2, 1]])
    with pytest.raises(ValueError, match=r"edge set 'h': graph 0: tag 4 index 1 out of range"):
        make([[1], [2, 1]])
    with pytest.raises(ValueError, match=r"edge set 'h': graph 1: tag 4 index -1 out of range"):
        make([[0], [2, -1]])
    assert SOURCE == 0 and TARGET == 1


@pytest.mark.parametrize("dtype", IDX)
def test_unbatch_and_split_hyper_round_trip(dtype):
    from arraygnn.graph_tensor import (
        merge_graphs_to_components,
        split_components,
        unbatch_graph_tensor,
    )

    g = _hyper_graph(dtype)
    parts = split_components(g)
    assert [p.num_components for p in parts] == [1, 1, 1]
    assert all(isinstance(p.edge_sets["h"].adjacency, HyperAdjacency) for p in parts)
    assert parts[2].edge_sets["h"].adjacency[3].tolist() == [0, 1]
    again = merge_graphs_to_components(parts)
    for tag in (0, 1, 3):
        np.testing.assert_array_equal(
            again.edge_sets["h"].adjacency[tag], g.edge_sets["h"].adjacency[tag]
        )
    back = unbatch_graph_tensor(batch_graph_tensors([g, g]))
    assert len(back) == 2 and back[1].spec == g.spec
    np.testing.assert_array_equal(
        back[1].edge_sets["h"].adjacency[3], g.edge_sets["h"].adjacency[3]
    )


def test_merge_graphs_refuses_hyper_pair_mixed_with_adjacency():
    def make(adj):
        return GraphTensor.from_pieces(
            node_sets={"v": NodeSet.from_fields(sizes=np.array([3]))},
            edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=adj)},
        )

    plain = make(Adjacency.from_indices(source=("v", np.array([0, 1])), target=("v", [1, 2])))
    hyper = make(HyperAdjacency.from_indices({0: ("v", np.array([0, 1])), 1: ("v", [1, 2])}))
    with pytest.raises(ValueError, match=r"graph 1 does not match graph 0.*edge set 'e'"):
        batch_graph_tensors([plain, hyper])


@pytest.mark.parametrize("dtype", IDX)
def test_homogeneous_context_sizes_take_the_node_sizes_dtype(dtype):
    """TF-GNN: ``Context.from_fields(sizes=tf.ones_like(node_sizes))``."""
    from arraygnn.graph_tensor import homogeneous

    g = homogeneous(
        np.array([0, 2], dtype),
        np.array([1, 2], dtype),
        node_set_sizes=np.array([2, 1], dtype),
        edge_set_sizes=np.array([1, 1], dtype),
        context_features=np.ones((2, 4)),
    )
    assert g.num_components == 2
    assert g.context.sizes.tolist() == [1, 1] and g.context.sizes.dtype == dtype


def test_line_graph_tags_error_names_the_op():
    from arraygnn.graph_tensor import convert_to_line_graph

    g = _plain_graph()
    for kw in ({"connect_from": 2}, {"connect_to": 3}):
        with pytest.raises(ValueError, match=r"convert_to_line_graph.*SOURCE \(0\) or TARGET"):
            convert_to_line_graph(g, **kw)
