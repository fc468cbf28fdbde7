"""A TF-GNN user's daily calls on arraygnn's TF-GNN face (session 9 journey).

Expected values are hand-computed from TF-GNN 1.0's code (tensorflow_gnn/graph/*.py,
tensorflow_gnn/keras/layers/*.py); TensorFlow is not needed.
"""

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
    GraphTensor,
    NodeSet,
    broadcast,
)
from arraygnn.pipeline import (
    Readout,
    ReadoutFirstNode,
    ReadoutNamed,
    StructuredReadout,
    add_readout_from_first_node,
)


def _graph():
    h = np.arange(10, dtype=np.float32).reshape(5, 2)
    return GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([3, 2]), features={HIDDEN_STATE: h, "y": np.arange(5)}
            )
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=np.array([1, 1]),
                adjacency=Adjacency.from_indices(
                    source=("paper", np.array([1, 4])), target=("paper", np.array([0, 3]))
                ),
                features={HIDDEN_STATE: np.array([[7.0], [8.0]], np.float32)},
            )
        },
    )


# -- readout layers: TF-GNN's feature_name defaults to HIDDEN_STATE; location / key may come at
#    init or call time (keras/layers/graph_ops.py: Readout, ReadoutFirstNode, StructuredReadout)


def test_readout_layers_default_to_hidden_state_like_tfgnn():
    g = _graph()
    h = g.node_sets["paper"][HIDDEN_STATE]
    first = h[[0, 3]]
    np.testing.assert_array_equal(ReadoutFirstNode(node_set_name="paper")(g), first)
    np.testing.assert_array_equal(Readout(node_set_name="paper")(g), h)
    np.testing.assert_array_equal(Readout(edge_set_name="cites")(g), [[7.0], [8.0]])
    gr = add_readout_from_first_node(g, "seed", node_set_name="paper")
    np.testing.assert_array_equal(StructuredReadout("seed")(gr), first)
    np.testing.assert_array_equal(ReadoutNamed("seed")(gr), first)
    # explicit feature names still work
    np.testing.assert_array_equal(
        ReadoutFirstNode(node_set_name="paper", feature_name="y")(g), [0, 3]
    )
    np.testing.assert_array_equal(StructuredReadout("seed", feature_name="y")(gr), [0, 3])


def test_readout_layers_take_location_and_key_at_call_time():
    g = _graph()
    h = g.node_sets["paper"][HIDDEN_STATE]
    np.testing.assert_array_equal(ReadoutFirstNode()(g, node_set_name="paper"), h[[0, 3]])
    np.testing.assert_array_equal(
        ReadoutFirstNode(node_set_name="paper")(g, node_set_name="paper", feature_name="y"),
        [0, 3],
    )
    np.testing.assert_array_equal(
        Readout()(g, node_set_name="paper", feature_name="y"), np.arange(5)
    )
    np.testing.assert_array_equal(Readout(feature_name="y")(g, node_set_name="paper"), np.arange(5))
    gr = add_readout_from_first_node(g, "seed", node_set_name="paper")
    np.testing.assert_array_equal(StructuredReadout()(gr, key="seed"), h[[0, 3]])
    np.testing.assert_array_equal(StructuredReadout("seed")(gr, key="seed"), h[[0, 3]])


def test_readout_layers_reject_conflicting_or_missing_arguments():
    g = _graph()
    with pytest.raises(ValueError, match="node_set_name"):
        ReadoutFirstNode()(g)
    with pytest.raises(ValueError, match="node_set_name"):
        ReadoutFirstNode(node_set_name="paper")(g, node_set_name="other")
    with pytest.raises(ValueError, match="feature_name"):
        ReadoutFirstNode(node_set_name="paper", feature_name="y")(g, feature_name="z")
    with pytest.raises(ValueError, match="node_set_name"):
        Readout(node_set_name="paper")(g, edge_set_name="cites")
    with pytest.raises(ValueError, match="at most one|exactly one"):
        Readout(node_set_name="paper", edge_set_name="cites")
    with pytest.raises(ValueError, match="exactly one|at init or call"):
        Readout()(g)
    gr = add_readout_from_first_node(g, "seed", node_set_name="paper")
    with pytest.raises(ValueError, match="key"):
        StructuredReadout()(gr)
    with pytest.raises(ValueError, match="key"):
        StructuredReadout("seed")(gr, key="other")


# -- tfgnn.broadcast() with a list of set names takes ONE feature_value, from the side the
#    sets share (broadcast_ops.broadcast_v2), and returns one result per set


def _two_sets():
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"c": np.array([7.0, 8.0])}),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([2, 1]), features={"h": np.array([1.0, 2.0, 3.0])}
            ),
            "b": NodeSet.from_fields(sizes=np.array([0, 2]), features={"h": np.array([4.0, 5.0])}),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=np.array([0, 2]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([2, 2])), target=("b", np.array([0, 1]))
                ),
            ),
            "aa": EdgeSet.from_fields(
                sizes=np.array([1, 0]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([0])), target=("a", np.array([1]))
                ),
            ),
        },
    )


def test_broadcast_list_of_sets_takes_one_value_like_tfgnn():
    g = _two_sets()
    got = broadcast(g, CONTEXT, node_set_name=["a", "b"], feature_value=np.array([7.0, 8.0]))
    assert isinstance(got, list) and [v.tolist() for v in got] == [[7.0, 7.0, 8.0], [8.0, 8.0]]
    got = broadcast(g, CONTEXT, edge_set_name=("ab", "aa"), feature_value=np.array([7.0, 8.0]))
    assert [v.tolist() for v in got] == [[8.0, 8.0], [7.0]]
    h = g.node_sets["a"]["h"]
    got = broadcast(g, SOURCE, edge_set_name=["ab", "aa"], feature_value=h)
    assert [v.tolist() for v in got] == [[3.0, 3.0], [1.0]]
    # a single name stays a single result; the list form with feature_name is unchanged
    assert broadcast(g, SOURCE, edge_set_name="ab", feature_value=h).tolist() == [3.0, 3.0]
    got = broadcast(g, CONTEXT, node_set_name=["a", "b"], feature_name="c")
    assert [v.tolist() for v in got] == [[7.0, 7.0, 8.0], [8.0, 8.0]]


def test_broadcast_list_of_edge_sets_needs_a_common_endpoint():
    g = _two_sets()
    with pytest.raises(ValueError, match="same endpoint|share"):
        broadcast(g, TARGET, edge_set_name=["ab", "aa"], feature_name="h")
    with pytest.raises(ValueError, match="empty"):
        broadcast(g, SOURCE, edge_set_name=[], feature_name="h")


# -- SizeConstraints: TF-GNN's NamedTuple defaults min_nodes_per_component to () (and its repr
#    shows `min_nodes_per_component=()`), so code written for it passes ()


def test_size_constraints_accepts_tfgnn_empty_tuple_default():
    from arraygnn.padding import SizeConstraints

    c = SizeConstraints(
        total_num_components=2,
        total_num_nodes={"a": 3},
        total_num_edges={"e": 2},
        min_nodes_per_component=(),
    )
    assert dict(c.min_nodes_per_component) == {}
    assert c == SizeConstraints(2, {"a": 3}, {"e": 2})
    with pytest.raises(TypeError, match="min_nodes_per_component must be a mapping"):
        SizeConstraints(2, {"a": 3}, {"e": 2}, ("a", 1))
