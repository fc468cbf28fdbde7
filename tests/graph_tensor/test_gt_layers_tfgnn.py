"""The GraphTensor layers against the real TF-GNN (``tensorflow_gnn`` with ``tf_keras``).

Each test builds a TF-GNN Keras layer, calls it once so Keras creates its weights, replaces
them by random values (biases and LayerNormalization included, so a misplaced weight shows),
loads Keras' ``get_weights()`` list into the arraygnn layer with ``set_weights``, and requires
the same outputs on the same heterogeneous graph, and ``get_weights()`` to give Keras' list
back. Skipped when ``tensorflow_gnn`` cannot be imported (CI has no TensorFlow). To run it::

    PYTHONPATH=/path/to/tf/site-packages TF_USE_LEGACY_KERAS=1 \\
        python -m pytest -q -p no:cacheprovider tests/graph_tensor/test_gt_layers_tfgnn.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # TF-GNN needs Keras 2 (tf_keras)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

tfgnn = pytest.importorskip("tensorflow_gnn")

import tensorflow as tf  # noqa: E402
from tensorflow_gnn.models import gat_v2, gcn, vanilla_mpnn  # noqa: E402

from arraygnn.graph_tensor import (  # noqa: E402
    CONTEXT,
    HIDDEN_STATE,
    SOURCE,
    TARGET,
)
from arraygnn.graph_tensor import layers as ag  # noqa: E402
from arraygnn.nn import BatchNorm, LayerNorm, Sequential  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import close as _close  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import close_graphs as _close_graphs  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import ends as _ends  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import (  # noqa: E402
    graph_arrays,
)
from tests.graph_tensor._tfgnn_pairs import ours as _ours  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import randomize as _randomize  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import theirs as _theirs  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import transfer as _transfer  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import width as _width  # noqa: E402

keras = tf.keras
tfl = tfgnn.keras.layers

# ---- the graph, as arrays, then as both GraphTensors -----------------------------------------

#: node set: (sizes per component, {feature: width})
NODE_SETS = {
    "paper": ([3, 2, 1], {"hidden_state": 4, "year": 1}),
    "author": ([2, 0, 2], {"hidden_state": 3}),
    "venue": ([1, 1, 1], {"hidden_state": 2}),  # no edge set touches it
}
#: edge set: (sizes, (source set, indices), (target set, indices), {feature: width})
EDGE_SETS = {
    # paper 5 (component 2) and papers 2, 4 receive no citation; component 2 has none
    "cites": (
        [4, 1, 0],
        ("paper", [1, 2, 2, 0, 4]),
        ("paper", [0, 0, 1, 0, 3]),
        {"hidden_state": 4, "h2": 2, "weight": None},
    ),
    # component 1 has no authors and no edges
    "writes": (
        [3, 0, 2],
        ("author", [0, 0, 1, 2, 3]),
        ("paper", [0, 1, 1, 5, 5]),
        {"hidden_state": 2, "h2": 2},
    ),
    "reviews": ([0, 0, 0], ("paper", []), ("author", []), {"hidden_state": 2, "h2": 2}),
}
CONTEXT_FEATURES = {"hidden_state": 2, "label": 3}


def _arrays(seed: int = 0) -> dict:
    return graph_arrays(NODE_SETS, EDGE_SETS, CONTEXT_FEATURES, seed)


@pytest.fixture(scope="module")
def graphs():
    a = _arrays(0)
    return _ours(a), _theirs(a)


# ---- helpers -----------------------------------------------------------------------------------


def _receives(graph, edge_set_name, receiver_tag) -> np.ndarray:
    """Which receivers have at least one edge."""
    _, rcv = _ends(graph, edge_set_name, receiver_tag)
    idx = np.asarray(graph.edge_sets[edge_set_name].adjacency[receiver_tag])
    return np.bincount(idx, minlength=rcv.total_size) > 0


# ---- SimpleConv --------------------------------------------------------------------------------

REDUCE_TYPES = ["sum", "mean", "max_no_inf", "min_no_inf", "prod", "sum|mean", "max_no_inf|sum"]


def _simple_conv_pair(graph, edge_set_name, receiver_tag, reduce_type, edge_feature, units=5):
    snd, rcv = _ends(graph, edge_set_name, receiver_tag)
    width = _width(snd, HIDDEN_STATE) + _width(rcv, HIDDEN_STATE)
    if edge_feature is not None:
        width += _width(graph.edge_sets[edge_set_name], edge_feature)
    theirs = tfl.SimpleConv(
        keras.layers.Dense(units, "relu"),
        reduce_type,
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
    )
    ours = ag.SimpleConv(
        ag.dense(width, units, "relu"),
        reduce_type,
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
    )
    return theirs, ours


@pytest.mark.parametrize("reduce_type", REDUCE_TYPES)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
@pytest.mark.parametrize("edge_feature", [None, "hidden_state"])
def test_simple_conv(graphs, reduce_type, receiver_tag, edge_set_name, edge_feature):
    g, tg = graphs
    theirs, ours = _simple_conv_pair(g, edge_set_name, receiver_tag, reduce_type, edge_feature)
    theirs(tg, edge_set_name=edge_set_name)
    _transfer(theirs, ours, seed=1)
    want = theirs(tg, edge_set_name=edge_set_name)
    _close(ours(g, edge_set_name=edge_set_name), want)
    # message_fn as an opaque function: no factoring of the first Dense
    plain = ag.SimpleConv(
        lambda z: ours.message_fn(z),
        reduce_type,
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
    )
    _close(plain(g, edge_set_name=edge_set_name), want)


@pytest.mark.parametrize("reduce_type", ["max", "min", "max|min"])
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_simple_conv_plain_max_min(graphs, reduce_type, receiver_tag):
    """Plain max / min: equal where a receiver has edges; without edges TF-GNN gives the
    dtype's lowest / highest value, arraygnn 0 (documented in docs/coming_from_tfgnn.md)."""
    g, tg = graphs
    theirs, ours = _simple_conv_pair(g, "cites", receiver_tag, reduce_type, None)
    theirs(tg, edge_set_name="cites")
    _transfer(theirs, ours, seed=2)
    want = theirs(tg, edge_set_name="cites").numpy()
    got = ours(g, edge_set_name="cites")
    has = _receives(g, "cites", receiver_tag)
    assert not has.all()
    _close(got[has], want[has])
    assert (got[~has] == 0).all()
    assert (np.abs(want[~has]) == np.finfo(np.float32).max).all()


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_feature", [None, "hidden_state"])
@pytest.mark.parametrize("reduce_type", ["sum", "mean|max_no_inf"])
def test_simple_conv_combine_sum(graphs, receiver_tag, edge_feature, reduce_type):
    g, tg = graphs  # cites: paper -> paper, edge state of the same width as the nodes
    theirs = tfl.SimpleConv(
        keras.layers.Dense(3, "tanh"),
        reduce_type,
        combine_type="sum",
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
    )
    ours = ag.SimpleConv(
        ag.dense(4, 3, "tanh"),
        reduce_type,
        combine_type="sum",
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
    )
    theirs(tg, edge_set_name="cites")
    _transfer(theirs, ours, seed=3)
    _close(ours(g, edge_set_name="cites"), theirs(tg, edge_set_name="cites"))


@pytest.mark.parametrize(
    "kwargs, width",
    [
        (dict(sender_node_feature=None), 4),  # receiver only
        (dict(receiver_feature=None), 3),  # sender only (author -> paper)
        (dict(receiver_feature=None, sender_edge_feature="h2"), 5),
        (dict(sender_node_feature=None, sender_edge_feature="h2"), 6),
        (dict(receiver_feature="year", sender_edge_feature="h2"), 6),
        (dict(receiver_feature=None, sender_node_feature=None, sender_edge_feature="h2"), 2),
    ],
)
def test_simple_conv_input_choices(graphs, kwargs, width):
    g, tg = graphs
    theirs = tfl.SimpleConv(keras.layers.Dense(4), "sum|mean", receiver_tag=TARGET, **kwargs)
    ours = ag.SimpleConv(ag.dense(width, 4), "sum|mean", receiver_tag=TARGET, **kwargs)
    theirs(tg, edge_set_name="writes")
    _transfer(theirs, ours, seed=4)
    _close(ours(g, edge_set_name="writes"), theirs(tg, edge_set_name="writes"))


def test_simple_conv_sequential_message_fn(graphs):
    """A two-layer Keras Sequential as message_fn (ours factors its first Dense)."""
    g, tg = graphs
    theirs = tfl.SimpleConv(
        keras.Sequential([keras.layers.Dense(6, "relu"), keras.layers.Dense(3)]),
        "mean",
        receiver_tag=SOURCE,
        sender_edge_feature="hidden_state",
    )
    ours = ag.SimpleConv(
        Sequential(ag.dense(2 + 4 + 3, 6, "relu"), ag.dense(6, 3)),
        "mean",
        receiver_tag=SOURCE,
        sender_edge_feature="hidden_state",
    )
    theirs(tg, edge_set_name="writes")
    _transfer(theirs, ours, seed=5)
    _close(ours(g, edge_set_name="writes"), theirs(tg, edge_set_name="writes"))


@pytest.mark.parametrize("reduce_type", ["sum", "mean", "max_no_inf|mean"])
def test_simple_conv_to_context(graphs, reduce_type):
    g, tg = graphs
    for node_set_name, width in [("paper", 4 + 2), ("author", 3 + 2), ("venue", 2 + 2)]:
        theirs = tfl.SimpleConv(keras.layers.Dense(3, "relu"), reduce_type, receiver_tag=CONTEXT)
        ours = ag.SimpleConv(ag.dense(width, 3, "relu"), reduce_type, receiver_tag=CONTEXT)
        theirs(tg, node_set_name=node_set_name)
        _transfer(theirs, ours, seed=6)
        _close(
            ours(g, node_set_name=node_set_name),
            theirs(tg, node_set_name=node_set_name),
            node_set_name,
        )
    for edge_set_name in ["cites", "writes", "reviews"]:
        kwargs = dict(
            receiver_tag=CONTEXT,
            sender_node_feature=None,
            sender_edge_feature="h2",
        )
        theirs = tfl.SimpleConv(keras.layers.Dense(3, "relu"), reduce_type, **kwargs)
        ours = ag.SimpleConv(ag.dense(2 + 2, 3, "relu"), reduce_type, **kwargs)
        theirs(tg, edge_set_name=edge_set_name)
        _transfer(theirs, ours, seed=7)
        _close(
            ours(g, edge_set_name=edge_set_name),
            theirs(tg, edge_set_name=edge_set_name),
            edge_set_name,
        )


def test_simple_conv_receiver_tag_at_call(graphs):
    g, tg = graphs
    theirs = tfl.SimpleConv(keras.layers.Dense(3), "sum", receiver_tag=None)
    ours = ag.SimpleConv(ag.dense(7, 3), "sum", receiver_tag=None)
    theirs(tg, edge_set_name="writes", receiver_tag=SOURCE)
    _transfer(theirs, ours, seed=8)
    for tag in (SOURCE, TARGET):
        _close(
            ours(g, edge_set_name="writes", receiver_tag=tag),
            theirs(tg, edge_set_name="writes", receiver_tag=tag),
        )


# ---- Pool / Broadcast layers -------------------------------------------------------------------


POOL_CASES = [
    (TARGET, "sum", dict(edge_set_name="cites")),
    (SOURCE, "mean", dict(edge_set_name="writes")),
    (TARGET, "max_no_inf|min_no_inf", dict(edge_set_name="writes", feature_name="h2")),
    (SOURCE, "prod", dict(edge_set_name="reviews")),
    (TARGET, "mean", dict(edge_set_name=["cites", "writes"], feature_name="h2")),
    (CONTEXT, "mean", dict(node_set_name="paper")),
    (CONTEXT, "sum|max_no_inf", dict(node_set_name="author")),
    (CONTEXT, "mean", dict(node_set_name="paper", feature_name="year")),
    (CONTEXT, "sum", dict(edge_set_name="writes")),
    (CONTEXT, "mean", dict(edge_set_name=["cites", "writes", "reviews"], feature_name="h2")),
]


@pytest.mark.parametrize("tag, reduce_type, kwargs", POOL_CASES)
def test_pool_layer(graphs, tag, reduce_type, kwargs):
    g, tg = graphs
    want = tfl.Pool(tag, reduce_type, **kwargs)(tg)
    ours = ag.Pool(tag, reduce_type, **kwargs)
    assert ours.get_weights() == []
    _close(ours(g), want)
    # the set and the feature given at call time instead
    kwargs = dict(kwargs)
    feature_name = kwargs.pop("feature_name", None)
    got = ag.Pool(tag, reduce_type, feature_name=feature_name)(g, **kwargs)
    _close(got, want)


def test_pool_layer_args_at_call(graphs):
    g, tg = graphs
    want = tfl.Pool()(tg, tag=TARGET, reduce_type="mean", edge_set_name="cites")
    _close(ag.Pool()(g, tag=TARGET, reduce_type="mean", edge_set_name="cites"), want)
    want = tfl.Pool(CONTEXT)(tg, reduce_type="sum", node_set_name="paper", feature_name="year")
    got = ag.Pool(CONTEXT)(g, reduce_type="sum", node_set_name="paper", feature_name="year")
    _close(got, want)
    with pytest.raises(ValueError, match="reduce_type"):
        ag.Pool(TARGET, "sum")(g, reduce_type="mean", edge_set_name="cites")
    with pytest.raises(ValueError, match="reduce_type"):
        ag.Pool(TARGET)(g, edge_set_name="cites")
    with pytest.raises(ValueError, match="tag"):
        ag.Pool(reduce_type="sum")(g, edge_set_name="cites")


BROADCAST_CASES = [
    (SOURCE, dict(edge_set_name="cites")),
    (TARGET, dict(edge_set_name="writes")),
    (SOURCE, dict(edge_set_name="reviews")),
    (CONTEXT, dict(node_set_name="author")),
    (CONTEXT, dict(edge_set_name="writes", feature_name="label")),
    (CONTEXT, dict(node_set_name=["paper", "venue"])),
]


@pytest.mark.parametrize("tag, kwargs", BROADCAST_CASES)
def test_broadcast_layer(graphs, tag, kwargs):
    g, tg = graphs
    want = tfl.Broadcast(tag, **kwargs)(tg)
    got = ag.Broadcast(tag, **kwargs)(g)
    if isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want)
        for a, b in zip(got, want):
            _close(a, b)
    else:
        _close(got, want)
    want2 = tfl.Broadcast()(tg, tag=tag, **kwargs)
    got2 = ag.Broadcast()(g, tag=tag, **kwargs)
    for a, b in zip(got2 if isinstance(got2, list) else [got2], tf.nest.flatten(want2)):
        _close(a, b)


# ---- GraphUpdate and the piece updates ---------------------------------------------------------


def _big_update(g):
    """A GraphUpdate touching every kind of update, with dicts given out of sorted order,
    and the arraygnn twin (input sizes worked out by hand)."""
    # edge sets: new states from concat(edge, source, target[, context]) -------------------
    theirs_edges = {
        "writes": tfl.EdgeSetUpdate(
            tfl.NextStateFromConcat(keras.layers.Dense(3, "relu")),
            context_input_feature="hidden_state",
        ),
        "cites": tfl.EdgeSetUpdate(
            tfl.ResidualNextState(keras.layers.Dense(4), activation="tanh"),
            edge_input_feature=["hidden_state", "h2"],
            node_input_tags=[TARGET, SOURCE],
        ),
    }
    ours_edges = {
        "writes": ag.EdgeSetUpdate(
            ag.NextStateFromConcat(ag.dense(2 + 3 + 4 + 2, 3, "relu")),
            context_input_feature="hidden_state",
        ),
        "cites": ag.EdgeSetUpdate(
            ag.ResidualNextState(ag.dense(2 + 4 + 4 + 4, 4), activation="tanh"),
            edge_input_feature=["hidden_state", "h2"],
            node_input_tags=[TARGET, SOURCE],
        ),
    }
    # node sets (they see the new edge states: writes is now 3 wide) -------------------------
    theirs_nodes = {
        "paper": tfl.NodeSetUpdate(
            {
                "writes": tfl.SimpleConv(
                    keras.layers.Dense(5, "relu"), "mean", sender_edge_feature="hidden_state"
                ),
                "cites": tfl.SimpleConv(keras.layers.Dense(4, "relu"), "sum|max_no_inf"),
            },
            tfl.NextStateFromConcat(
                keras.Sequential([keras.layers.Dense(6, "relu"), keras.layers.LayerNormalization()])
            ),
            node_input_feature=["year", "hidden_state"],
            context_input_feature="label",
        ),
        "author": tfl.NodeSetUpdate(
            {
                "writes": tfl.SimpleConv(keras.layers.Dense(3), "sum", receiver_tag=SOURCE),
                "reviews": tfl.Pool(TARGET, "sum", feature_name="h2"),
            },
            tfl.ResidualNextState(keras.layers.Dense(3), activation="relu"),
        ),
    }
    ours_nodes = {
        "paper": ag.NodeSetUpdate(
            {
                "writes": ag.SimpleConv(
                    ag.dense(3 + 3 + 4, 5, "relu"), "mean", sender_edge_feature="hidden_state"
                ),
                "cites": ag.SimpleConv(ag.dense(4 + 4, 4, "relu"), "sum|max_no_inf"),
            },
            ag.NextStateFromConcat(
                Sequential(ag.dense(1 + 4 + 2 * 4 + 5 + 3, 6, "relu"), LayerNorm(6, eps=1e-3))
            ),
            node_input_feature=["year", "hidden_state"],
            context_input_feature="label",
        ),
        "author": ag.NodeSetUpdate(
            {
                "writes": ag.SimpleConv(ag.dense(3 + 4, 3), "sum", receiver_tag=SOURCE),
                "reviews": ag.Pool(TARGET, "sum", feature_name="h2"),
            },
            ag.ResidualNextState(ag.dense(3 + 2 + 3, 3), activation="relu"),
        ),
    }
    # the context (sees new node and edge states: paper 6 wide, author 3, writes 3) ----------
    theirs_context = tfl.ContextUpdate(
        {
            "paper": tfl.SimpleConv(keras.layers.Dense(2, "relu"), "mean", receiver_tag=CONTEXT),
            "author": tfl.Pool(CONTEXT, "max_no_inf"),
        },
        tfl.NextStateFromConcat(keras.layers.Dense(3)),
        edge_set_inputs={
            "writes": tfl.SimpleConv(
                keras.layers.Dense(2),
                "sum",
                receiver_tag=CONTEXT,
                sender_node_feature=None,
                sender_edge_feature="hidden_state",
            ),
            "cites": tfl.Pool(CONTEXT, "mean"),
        },
        context_input_feature=["label", "hidden_state"],
    )
    ours_context = ag.ContextUpdate(
        {
            "paper": ag.SimpleConv(ag.dense(6 + 2, 2, "relu"), "mean", receiver_tag=CONTEXT),
            "author": ag.Pool(CONTEXT, "max_no_inf"),
        },
        ag.NextStateFromConcat(ag.dense(2 + 3 + 3 + 2 + 4 + 2, 3)),
        edge_set_inputs={
            "writes": ag.SimpleConv(
                ag.dense(3 + 2, 2),
                "sum",
                receiver_tag=CONTEXT,
                sender_node_feature=None,
                sender_edge_feature="hidden_state",
            ),
            "cites": ag.Pool(CONTEXT, "mean"),
        },
        context_input_feature=["label", "hidden_state"],
    )
    theirs = tfl.GraphUpdate(edge_sets=theirs_edges, node_sets=theirs_nodes, context=theirs_context)
    ours = ag.GraphUpdate(edge_sets=ours_edges, node_sets=ours_nodes, context=ours_context)
    return theirs, ours


def test_graph_update_all_pieces(graphs):
    g, tg = graphs
    theirs, ours = _big_update(g)
    theirs(tg)
    _transfer(theirs, ours, seed=10)
    _close_graphs(ours(g), theirs(tg))


def test_graph_update_parts_weight_order(graphs):
    """Each update on its own: the same Keras list as inside the GraphUpdate."""
    g, tg = graphs
    theirs, ours = _big_update(g)
    theirs(tg)
    _transfer(theirs, ours, seed=11)
    for name in ["cites", "writes"]:
        for a, b in zip(
            ours.edge_sets[name].get_weights(), theirs._edge_set_updates[name].get_weights()
        ):
            np.testing.assert_array_equal(a, b)
    for name in ["author", "paper"]:
        want = theirs._node_set_updates[name].get_weights()
        got = ours.node_sets[name].get_weights()
        assert len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    want = theirs._context_update.get_weights()
    got = ours.context.get_weights()
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_graph_update_one_node_set_several_convs(graphs, receiver_tag):
    """Weights of three convolutions into one node set, sorted by edge set name."""
    g, tg = graphs
    receiver = "paper"  # out of sorted order; each edge set ends in paper at receiver_tag
    names = ["writes", "cites"] if receiver_tag == TARGET else ["reviews", "cites"]
    theirs_in, ours_in = {}, {}
    for i, name in enumerate(names):
        t, o = _simple_conv_pair(g, name, receiver_tag, "sum", "h2", units=2 + i)
        theirs_in[name], ours_in[name] = t, o
    width = _width(g.node_sets[receiver], HIDDEN_STATE) + sum(2 + i for i in range(len(names)))
    theirs = tfl.GraphUpdate(
        node_sets={
            receiver: tfl.NodeSetUpdate(theirs_in, tfl.NextStateFromConcat(keras.layers.Dense(3)))
        }
    )
    ours = ag.GraphUpdate(
        node_sets={receiver: ag.NodeSetUpdate(ours_in, ag.NextStateFromConcat(ag.dense(width, 3)))}
    )
    theirs(tg)
    _transfer(theirs, ours, seed=12)
    _close_graphs(ours(g), theirs(tg))


def test_shared_sub_layers_are_listed_once(graphs):
    """A convolution used for two edge sets, a Dense used by two convolutions: Keras lists
    their weights once, where they first appear."""
    g, tg = graphs
    t_conv = tfl.SimpleConv(keras.layers.Dense(2), "sum", sender_node_feature=None)
    t_dense = keras.layers.Dense(3, "relu")
    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"writes": t_conv, "cites": t_conv}, tfl.NextStateFromConcat(keras.layers.Dense(4))
            ),
            "author": tfl.NodeSetUpdate(
                {
                    "writes": tfl.SimpleConv(
                        t_dense, "mean", receiver_tag=SOURCE, sender_node_feature=None
                    ),
                    "reviews": tfl.SimpleConv(t_dense, "sum", sender_node_feature=None),
                },
                tfl.NextStateFromConcat(keras.layers.Dense(3)),
            ),
        }
    )
    o_conv = ag.SimpleConv(ag.dense(4, 2), "sum", sender_node_feature=None)
    o_dense = ag.dense(3, 3, "relu")
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"writes": o_conv, "cites": o_conv}, ag.NextStateFromConcat(ag.dense(8, 4))
            ),
            "author": ag.NodeSetUpdate(
                {
                    "writes": ag.SimpleConv(
                        o_dense, "mean", receiver_tag=SOURCE, sender_node_feature=None
                    ),
                    "reviews": ag.SimpleConv(o_dense, "sum", sender_node_feature=None),
                },
                ag.NextStateFromConcat(ag.dense(9, 3)),
            ),
        }
    )
    theirs(tg)
    assert len(theirs.get_weights()) == 8  # 4 Dense layers, not 6
    _transfer(theirs, ours, seed=19)
    _close_graphs(ours(g), theirs(tg))


def test_frozen_sub_layers_come_last(graphs):
    """``trainable = False`` in Keras moves a layer's weights to the non-trainable end of the
    list, sub-layer by sub-layer (BatchNormalization statistics included); the arraygnn twin
    follows when its layer is marked ``trainable = False`` too."""
    g, tg = graphs

    def t_seq():
        return keras.Sequential(
            [
                keras.layers.Dense(3, "relu"),
                keras.layers.BatchNormalization(),
                keras.layers.Dense(3),
            ]
        )

    def o_seq(width):
        return Sequential(ag.dense(width, 3, "relu"), BatchNorm(3, eps=1e-3), ag.dense(3, 3))

    t_frozen_dense = keras.layers.Dense(2)
    t_author = tfl.NodeSetUpdate(
        {"writes": tfl.SimpleConv(t_seq(), "sum", receiver_tag=SOURCE)},
        tfl.NextStateFromConcat(t_seq()),
    )
    t_gat = gat_v2.GATv2Conv(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"cites": tfl.SimpleConv(t_frozen_dense, "mean"), "writes": t_gat},
                tfl.NextStateFromConcat(t_seq()),
            ),
            "author": t_author,
        }
    )
    o_frozen_dense = ag.dense(8, 2)
    o_author = ag.NodeSetUpdate(
        {"writes": ag.SimpleConv(o_seq(7), "sum", receiver_tag=SOURCE)},
        ag.NextStateFromConcat(o_seq(6)),
    )
    o_gat = ag.GATv2Conv(
        num_heads=2, per_head_channels=2, receiver_tag=TARGET, receiver_dim=4, sender_node_dim=3
    )
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": ag.SimpleConv(o_frozen_dense, "mean"), "writes": o_gat},
                ag.NextStateFromConcat(o_seq(4 + 2 + 4)),
            ),
            "author": o_author,
        }
    )
    for layer in (t_frozen_dense, t_author, t_gat, o_frozen_dense, o_author, o_gat):
        layer.trainable = False
    theirs(tg)
    assert len(theirs.trainable_weights) == 6  # paper's next state: 2 Dense, gamma, beta
    _transfer(theirs, ours, seed=24)
    _close_graphs(ours(g), theirs(tg))


@pytest.mark.parametrize("skip", [None, "hidden_state", "year"])
def test_residual_next_state_skip_feature(graphs, skip):
    g, tg = graphs
    out = 1 if skip == "year" else 4
    feats = ["hidden_state", "year"]
    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"cites": tfl.SimpleConv(keras.layers.Dense(2), "mean")},
                tfl.ResidualNextState(keras.layers.Dense(out), skip_connection_feature_name=skip),
                node_input_feature=feats,
            )
        }
    )
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": ag.SimpleConv(ag.dense(8, 2), "mean")},
                ag.ResidualNextState(ag.dense(4 + 1 + 2, out), skip_connection_feature_name=skip),
                node_input_feature=feats,
            )
        }
    )
    theirs(tg)
    _transfer(theirs, ours, seed=13)
    _close_graphs(ours(g), theirs(tg))


def test_single_input_next_state(graphs):
    g, tg = graphs
    theirs = tfl.GraphUpdate(
        edge_sets={
            "writes": tfl.EdgeSetUpdate(
                tfl.SingleInputNextState(), node_input_tags=[SOURCE], edge_input_feature=None
            )
        },
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"cites": tfl.SimpleConv(keras.layers.Dense(4), "sum")},
                tfl.SingleInputNextState(),
            )
        },
        context=tfl.ContextUpdate(
            {"author": tfl.Pool(CONTEXT, "mean")}, tfl.SingleInputNextState()
        ),
    )
    ours = ag.GraphUpdate(
        edge_sets={
            "writes": ag.EdgeSetUpdate(
                ag.SingleInputNextState(), node_input_tags=[SOURCE], edge_input_feature=None
            )
        },
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": ag.SimpleConv(ag.dense(8, 4), "sum")}, ag.SingleInputNextState()
            )
        },
        context=ag.ContextUpdate({"author": ag.Pool(CONTEXT, "mean")}, ag.SingleInputNextState()),
    )
    theirs(tg)
    _transfer(theirs, ours, seed=14)
    _close_graphs(ours(g), theirs(tg))


def test_next_state_from_concat_alone():
    """The next-state layers called on a tuple of nests, as TF-GNN's."""
    rng = np.random.default_rng(15)
    x = lambda w: rng.standard_normal((5, w)).astype(np.float32)  # noqa: E731
    inputs = (
        {"b": x(2), "a": x(1)},
        {"writes": x(3), "cites": {"z": x(2), "y": x(1)}},
        x(2),
    )
    tf_inputs = tf.nest.map_structure(tf.constant, inputs)
    theirs = tfl.NextStateFromConcat(keras.layers.Dense(4, "elu"))
    ours = ag.NextStateFromConcat(ag.dense(11, 4, "elu"))
    theirs(tf_inputs)
    _transfer(theirs, ours, seed=16)
    _close(ours(inputs), theirs(tf_inputs))
    theirs = tfl.ResidualNextState(
        keras.layers.Dense(2), activation="swish", skip_connection_feature_name="b"
    )
    ours = ag.ResidualNextState(
        ag.dense(11, 2), activation="swish", skip_connection_feature_name="b"
    )
    theirs(tf_inputs)
    _transfer(theirs, ours, seed=17)
    _close(ours(inputs), theirs(tf_inputs))


def test_batch_norm_weights_come_last(graphs):
    """Keras lists all trainable weights of a layer tree first, then all non-trainable ones
    (BatchNormalization's moving mean / variance), even across sub-layers."""
    g, tg = graphs

    def keras_next(units):
        return tfl.NextStateFromConcat(
            keras.Sequential(
                [
                    keras.layers.Dense(units, "relu"),
                    keras.layers.BatchNormalization(),
                    keras.layers.Dense(units),
                ]
            )
        )

    def our_next(width, units):
        return ag.NextStateFromConcat(
            Sequential(
                ag.dense(width, units, "relu"), BatchNorm(units, eps=1e-3), ag.dense(units, units)
            )
        )

    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {
                    "cites": tfl.SimpleConv(
                        keras.Sequential(
                            [keras.layers.Dense(3), keras.layers.BatchNormalization()]
                        ),
                        "sum",
                    )
                },
                keras_next(4),
            ),
            "author": tfl.NodeSetUpdate(
                {"writes": tfl.SimpleConv(keras.layers.Dense(2), "mean", receiver_tag=SOURCE)},
                keras_next(3),
            ),
        }
    )
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": ag.SimpleConv(Sequential(ag.dense(8, 3), BatchNorm(3, eps=1e-3)), "sum")},
                our_next(4 + 3, 4),
            ),
            "author": ag.NodeSetUpdate(
                {"writes": ag.SimpleConv(ag.dense(7, 2), "mean", receiver_tag=SOURCE)},
                our_next(3 + 2, 3),
            ),
        }
    )
    theirs(tg)
    names = [v.name for v in theirs.weights]
    assert all("moving" in n for n in names[-6:]) and not any("moving" in n for n in names[:-6])
    _transfer(theirs, ours, seed=18)
    _close_graphs(ours(g), theirs(tg))


def test_keras_sequential_on_its_own():
    """A Keras Sequential model called on its own lists its weights layer by layer."""
    x = np.random.default_rng(19).standard_normal((6, 5)).astype(np.float32)
    theirs = keras.Sequential(
        [
            keras.layers.Dense(4, "relu"),
            keras.layers.BatchNormalization(),
            keras.layers.LayerNormalization(),
            keras.layers.Dense(2, use_bias=False),
        ]
    )
    theirs(x)
    ours = Sequential(
        ag.dense(5, 4, "relu"),
        BatchNorm(4, eps=1e-3),
        LayerNorm(4, eps=1e-3),
        ag.dense(4, 2, use_bias=False),
    )
    weights = _randomize(theirs, 20)
    ag.load_keras_weights(ours, weights)
    back = ag.get_keras_weights(ours)
    assert [w.shape for w in back] == [w.shape for w in weights]
    for a, b in zip(back, weights):
        np.testing.assert_array_equal(a, b)
    _close(ours(x), theirs(x))


@pytest.mark.parametrize(
    "activation",
    ["linear", "relu", "leaky_relu", "elu", "sigmoid", "tanh", "swish", "silu", "softplus", "gelu"],
)
def test_dense_activations(activation):
    x = (3 * np.random.default_rng(21).standard_normal((20, 5))).astype(np.float32)
    theirs = keras.layers.Dense(4, activation)
    theirs(x)
    ours = ag.load_keras_weights(ag.dense(5, 4, activation), _randomize(theirs, 22))
    _close(ours(x), theirs(x))
    theirs = tfl.ResidualNextState(keras.layers.Dense(5), activation=activation)
    inputs = (x, {}, {})
    theirs(tuple(tf.constant(v) if isinstance(v, np.ndarray) else v for v in inputs))
    ours = ag.ResidualNextState(ag.dense(5, 5), activation=activation)
    _transfer(theirs, ours, seed=23)
    _close(ours(inputs), theirs((tf.constant(x), {}, {})))


# ---- GATv2 -------------------------------------------------------------------------------------


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
@pytest.mark.parametrize("edge_feature", [None, "h2"])
@pytest.mark.parametrize("heads, merge", [(1, "concat"), (3, "concat"), (3, "mean")])
@pytest.mark.parametrize("attention", ["leaky_relu", "tanh"])
def test_gatv2_conv(graphs, receiver_tag, edge_set_name, edge_feature, heads, merge, attention):
    g, tg = graphs
    snd, rcv = _ends(g, edge_set_name, receiver_tag)
    use_bias = edge_feature is None or heads == 1
    kwargs = dict(
        num_heads=heads,
        per_head_channels=2,
        receiver_tag=receiver_tag,
        sender_edge_feature=edge_feature,
        use_bias=use_bias,
        heads_merge_type=merge,
        attention_activation=attention,
        activation="elu",
    )
    theirs = gat_v2.GATv2Conv(**kwargs)
    ours = ag.GATv2Conv(
        **kwargs,
        receiver_dim=_width(rcv, HIDDEN_STATE),
        sender_node_dim=_width(snd, HIDDEN_STATE),
        sender_edge_dim=2 if edge_feature else None,
    )
    theirs(tg, edge_set_name=edge_set_name)
    _transfer(theirs, ours, seed=20)
    _close(ours(g, edge_set_name=edge_set_name), theirs(tg, edge_set_name=edge_set_name))


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("use_bias", [False, True])
def test_gatv2_edge_pool(graphs, receiver_tag, use_bias):
    g, tg = graphs
    _, rcv = _ends(g, "writes", receiver_tag)
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=receiver_tag, use_bias=use_bias)
    theirs = gat_v2.GATv2EdgePool(**kwargs, sender_feature="h2")
    ours = ag.GATv2EdgePool(
        **kwargs, sender_feature="h2", receiver_dim=_width(rcv, HIDDEN_STATE), sender_edge_dim=2
    )
    theirs(tg, edge_set_name="writes")
    _transfer(theirs, ours, seed=21)
    _close(ours(g, edge_set_name="writes"), theirs(tg, edge_set_name="writes"))


@pytest.mark.parametrize("merge", ["concat", "mean"])
def test_gatv2_to_context(graphs, merge):
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=CONTEXT, heads_merge_type=merge)
    for name, dim in [("paper", 4), ("author", 3), ("venue", 2)]:
        theirs = gat_v2.GATv2Conv(**kwargs)
        ours = ag.GATv2Conv(**kwargs, receiver_dim=2, sender_node_dim=dim)
        theirs(tg, node_set_name=name)
        _transfer(theirs, ours, seed=22)
        _close(ours(g, node_set_name=name), theirs(tg, node_set_name=name), name)
    for name in ["cites", "writes", "reviews"]:
        theirs = gat_v2.GATv2EdgePool(**kwargs, sender_feature="h2")
        ours = ag.GATv2EdgePool(**kwargs, sender_feature="h2", receiver_dim=2, sender_edge_dim=2)
        theirs(tg, edge_set_name=name)
        _transfer(theirs, ours, seed=23)
        _close(ours(g, edge_set_name=name), theirs(tg, edge_set_name=name), name)


def test_gatv2_in_graph_update(graphs):
    g, tg = graphs
    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {
                    "writes": gat_v2.GATv2Conv(
                        num_heads=2, per_head_channels=2, receiver_tag=TARGET,
                        sender_edge_feature="h2",
                    ),
                    "cites": gat_v2.GATv2Conv(
                        num_heads=1, per_head_channels=3, receiver_tag=TARGET
                    ),
                },
                tfl.NextStateFromConcat(keras.layers.Dense(4)),
            )
        }
    )  # fmt: skip
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {
                    "writes": ag.GATv2Conv(
                        num_heads=2, per_head_channels=2, receiver_tag=TARGET,
                        sender_edge_feature="h2", receiver_dim=4, sender_node_dim=3,
                        sender_edge_dim=2,
                    ),
                    "cites": ag.GATv2Conv(
                        num_heads=1, per_head_channels=3, receiver_tag=TARGET, receiver_dim=4
                    ),
                },
                ag.NextStateFromConcat(ag.dense(4 + 3 + 4, 4)),
            )
        }
    )  # fmt: skip
    theirs(tg)
    _transfer(theirs, ours, seed=24)
    _close_graphs(ours(g), theirs(tg))


# ---- GCN ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("degree_normalization", ["none", "in", "out", "in_out", "in_in"])
@pytest.mark.parametrize("add_self_loops", [False, True])
@pytest.mark.parametrize("edge_weight", [None, "weight"])
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_gcn_conv(graphs, degree_normalization, add_self_loops, edge_weight, receiver_tag):
    g, tg = graphs
    kwargs = dict(
        receiver_tag=receiver_tag,
        add_self_loops=add_self_loops,
        edge_weight_feature_name=edge_weight,
        degree_normalization=degree_normalization,
    )
    theirs = gcn.GCNConv(3, **kwargs)
    ours = ag.GCNConv(3, **kwargs, in_features=4)
    theirs(tg, edge_set_name="cites")
    _transfer(theirs, ours, seed=30)
    _close(ours(g, edge_set_name="cites"), theirs(tg, edge_set_name="cites"))


@pytest.mark.parametrize("use_bias, activation", [(False, None), (True, "tanh")])
def test_gcn_conv_bias_activation_feature(graphs, use_bias, activation):
    g, tg = graphs
    kwargs = dict(use_bias=use_bias, activation=activation, node_feature="year")
    theirs = gcn.GCNConv(2, **kwargs)
    ours = ag.GCNConv(2, **kwargs, in_features=1)
    theirs(tg, edge_set_name="cites")
    _transfer(theirs, ours, seed=31)
    _close(ours(g, edge_set_name="cites"), theirs(tg, edge_set_name="cites"))


# ---- VanillaMPNN -------------------------------------------------------------------------------


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("reduce_type", ["sum", "mean|max_no_inf"])
@pytest.mark.parametrize("use_layer_normalization", [False, True])
@pytest.mark.parametrize("edge_feature", [None, "h2"])
@pytest.mark.parametrize("node_set_names", [None, ["paper"]])
def test_vanilla_mpnn(
    graphs, receiver_tag, reduce_type, use_layer_normalization, edge_feature, node_set_names
):
    g, tg = graphs
    if node_set_names is not None and receiver_tag == SOURCE:
        node_set_names = ["author", "paper"]
    kwargs = dict(
        units=4,
        message_dim=3,
        receiver_tag=receiver_tag,
        node_set_names=node_set_names,
        edge_feature=edge_feature,
        reduce_type=reduce_type,
        use_layer_normalization=use_layer_normalization,
    )
    theirs = vanilla_mpnn.VanillaMPNNGraphUpdate(**kwargs)
    theirs(tg)
    ours_deferred = ag.VanillaMPNNGraphUpdate(**kwargs)
    ours_deferred(g)  # sized on the first call, as Keras
    ours_spec = ag.VanillaMPNNGraphUpdate(**kwargs, graph_spec=g.spec)
    for ours in (ours_deferred, ours_spec):
        _transfer(theirs, ours, seed=40)
        _close_graphs(ours(g), theirs(tg))


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_vanilla_mpnn_skips_aux_sets(receiver_tag):
    """Auxiliary sets (names starting with ``_``) as TF-GNN's readout: not convolved."""
    a = _arrays(41)
    a["nodes"]["_readout"] = (np.array([1, 1, 1]), {})
    a["edges"]["_readout/paper"] = (
        np.array([1, 1, 1]),
        ("paper", np.array([0, 3, 5])),
        ("_readout", np.array([0, 1, 2])),
        {},
    )
    g, tg = _ours(a), _theirs(a)
    kwargs = dict(units=3, message_dim=2, receiver_tag=receiver_tag)
    theirs = vanilla_mpnn.VanillaMPNNGraphUpdate(**kwargs)
    theirs(tg)
    ours = ag.VanillaMPNNGraphUpdate(**kwargs)
    ours(g)
    _transfer(theirs, ours, seed=42)
    _close_graphs(ours(g), theirs(tg))
