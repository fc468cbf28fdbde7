"""TF-GNN's ``graph_sage`` against the real TF-GNN (``tensorflow_gnn`` with ``tf_keras``):
``GraphSAGEAggregatorConv``, ``GraphSAGEPoolingConv``, ``GraphSAGENextState``,
``GraphSAGEGraphUpdate`` and ``GCNGraphSAGENodeSetUpdate``.

As ``test_gt_layers_tfgnn_more.py``: build the TF-GNN layer, call it, give every Keras
weight a random value, load ``get_weights()`` into the arraygnn twin, require the same
outputs (float32, ``rtol=atol=2e-5``) and ``get_weights()`` to give Keras' list back.
Skipped without ``tensorflow_gnn``. To run it::

    PYTHONPATH=/path/to/tf/site-packages TF_USE_LEGACY_KERAS=1 python -m pytest -q \\
        -p no:cacheprovider tests/graph_tensor/test_gt_layers_tfgnn_graph_sage.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # TF-GNN needs Keras 2 (tf_keras)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

tfgnn = pytest.importorskip("tensorflow_gnn")

import tensorflow as tf  # noqa: E402
from tensorflow_gnn.models import graph_sage  # noqa: E402

from arraygnn.graph_tensor import CONTEXT, HIDDEN_STATE, SOURCE, TARGET  # noqa: E402
from arraygnn.graph_tensor import layers as ag  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import (  # noqa: E402
    close,
    close_graphs,
    ends,
    graph_arrays,
    ours,
    randomize,
    theirs,
    transfer,
    width,
)

tfl = tfgnn.keras.layers


def _node_sets(author_width: int = 3) -> dict:
    return {
        "paper": ([3, 2, 1], {"hidden_state": 4, "year": 2}),
        "author": ([2, 0, 2], {"hidden_state": author_width, "year": 2}),
        "venue": ([1, 1, 1], {"hidden_state": 2}),  # no edge set touches it
    }


#: paper 5 and papers 2, 4 receive no citation; component 1 has no authors; reviews is empty
EDGE_SETS = {
    "cites": ([4, 1, 0], ("paper", [1, 2, 2, 0, 4]), ("paper", [0, 0, 1, 0, 3]), {}),
    "writes": ([3, 0, 2], ("author", [0, 0, 1, 2, 3]), ("paper", [0, 1, 1, 5, 5]), {}),
    "reviews": ([0, 0, 0], ("paper", []), ("author", []), {}),
}


def _pair(node_sets: dict, edge_sets: dict = EDGE_SETS, seed: int = 0):
    a = graph_arrays(node_sets, edge_sets, {"hidden_state": 2}, seed)
    return ours(a), theirs(a)


@pytest.fixture(scope="module")
def graphs():
    return _pair(_node_sets())


def _close_graphs(got, want) -> None:
    close_graphs(got, want, context=False, same_edge_features=False)


def _by_name(keras_layer, twin, seed: int) -> None:
    """Random Keras weights into ``twin`` as a shuffled ``{variable name: array}``."""
    randomize(keras_layer, seed)
    named = [(v.name, v.numpy()) for v in keras_layer.weights]
    twin.set_weights(dict(named))
    for got, want in zip(twin.get_weights(), keras_layer.get_weights()):
        np.testing.assert_array_equal(got, want)


# ---- the convolutions --------------------------------------------------------------------------

REDUCE_TYPES = ["mean", "sum", "max_no_inf", "min_no_inf", "sum|mean", "mean|max_no_inf", "prod"]


@pytest.mark.parametrize("reduce_type", REDUCE_TYPES)
@pytest.mark.parametrize("units", [2, 7])  # below / above the input width
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
def test_aggregator_conv(graphs, reduce_type, units, receiver_tag, edge_set_name):
    g, tg = graphs
    snd, _ = ends(g, edge_set_name, receiver_tag)
    kwargs = dict(receiver_tag=receiver_tag, reduce_type=reduce_type, units=units)
    t = graph_sage.GraphSAGEAggregatorConv(**kwargs, dropout_rate=0.3)
    o = ag.GraphSAGEAggregatorConv(**kwargs, sender_node_dim=width(snd, HIDDEN_STATE))
    t(tg, edge_set_name=edge_set_name)
    transfer(t, o, seed=1)
    close(o(g, edge_set_name=edge_set_name), t(tg, edge_set_name=edge_set_name))
    _by_name(t, o, seed=2)
    close(o(g, edge_set_name=edge_set_name), t(tg, edge_set_name=edge_set_name))


POOLING_CONFIGS = [
    dict(),
    dict(reduce_type="mean", use_bias=False),
    dict(reduce_type="sum|max_no_inf", activation="tanh"),
    dict(reduce_type="min_no_inf", activation=None, hidden_units=1),
    dict(reduce_type="mean", activation="elu", units=1),
    dict(sender_node_feature="year"),
]


@pytest.mark.parametrize("kwargs", POOLING_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
def test_pooling_conv(graphs, kwargs, receiver_tag, edge_set_name):
    g, tg = graphs
    snd, _ = ends(g, edge_set_name, receiver_tag)
    kwargs = dict(dict(units=3, hidden_units=5, receiver_tag=receiver_tag), **kwargs)
    t = graph_sage.GraphSAGEPoolingConv(**kwargs, dropout_rate=0.5)
    feat = kwargs.get("sender_node_feature", HIDDEN_STATE)
    o = ag.GraphSAGEPoolingConv(**kwargs, sender_node_dim=width(snd, feat))
    t(tg, edge_set_name=edge_set_name)
    transfer(t, o, seed=3)
    close(o(g, edge_set_name=edge_set_name), t(tg, edge_set_name=edge_set_name))
    _by_name(t, o, seed=4)
    close(o(g, edge_set_name=edge_set_name), t(tg, edge_set_name=edge_set_name))


@pytest.mark.parametrize("node_set_name, dim", [("paper", 4), ("author", 3), ("venue", 2)])
def test_convs_to_context(graphs, node_set_name, dim):
    """receiver_tag=CONTEXT pools a node set per component (component 1 has no authors)."""
    g, tg = graphs
    pairs = [
        (
            graph_sage.GraphSAGEAggregatorConv(receiver_tag=CONTEXT, units=3),
            ag.GraphSAGEAggregatorConv(receiver_tag=CONTEXT, units=3, sender_node_dim=dim),
        ),
        (
            graph_sage.GraphSAGEPoolingConv(
                receiver_tag=CONTEXT, units=3, hidden_units=4, reduce_type="sum|max_no_inf"
            ),
            ag.GraphSAGEPoolingConv(
                receiver_tag=CONTEXT, units=3, hidden_units=4, reduce_type="sum|max_no_inf",
                sender_node_dim=dim,
            ),
        ),
    ]  # fmt: skip
    for i, (t, o) in enumerate(pairs):
        t(tg, node_set_name=node_set_name)
        transfer(t, o, seed=5 + i)
        close(o(g, node_set_name=node_set_name), t(tg, node_set_name=node_set_name))


def test_receiver_tag_at_call(graphs):
    g, tg = graphs
    t = graph_sage.GraphSAGEAggregatorConv(receiver_tag=None, units=3, reduce_type="sum")
    o = ag.GraphSAGEAggregatorConv(receiver_tag=None, units=3, reduce_type="sum", sender_node_dim=4)
    t(tg, edge_set_name="cites", receiver_tag=SOURCE)
    transfer(t, o, seed=7)
    for tag in (SOURCE, TARGET):
        close(
            o(g, edge_set_name="cites", receiver_tag=tag),
            t(tg, edge_set_name="cites", receiver_tag=tag),
        )


# ---- the next state, alone and in a NodeSetUpdate ----------------------------------------------

NEXT_STATE_CONFIGS = [
    dict(),
    dict(combine_type="concat"),
    dict(combine_type="concat", use_bias=False, l2_normalize=False),
    dict(use_bias=False, activation="tanh"),
    dict(l2_normalize=False, activation=None),
    dict(activation="elu", feature_name="h"),
]


@pytest.mark.parametrize("kwargs", NEXT_STATE_CONFIGS)
def test_next_state(kwargs):
    rng = np.random.default_rng(8)
    x = lambda w: rng.standard_normal((6, w)).astype(np.float32)  # noqa: E731
    state = x(5)
    state[2] = 0  # a zero row: l2_normalize keeps it 0 (TF's floor on the norm)
    edges = {"b": x(3), "a": x(3)}
    edges["a"][2] = edges["b"][2] = 0
    inputs = (state, edges, {})
    t = graph_sage.GraphSAGENextState(units=3, dropout_rate=0.2, **kwargs)
    o = ag.GraphSAGENextState(units=3, **kwargs, in_features=5, edge_input_dims=[3, 3])
    want = t(tf.nest.map_structure(tf.constant, inputs))
    transfer(t, o, seed=9)
    want = t(tf.nest.map_structure(tf.constant, inputs))
    got = o(inputs)
    name = kwargs.get("feature_name", HIDDEN_STATE)
    assert list(got) == list(want) == [name]
    close(got[name], want[name])
    _by_name(t, o, seed=19)
    close(o(inputs)[name], t(tf.nest.map_structure(tf.constant, inputs))[name])


@pytest.mark.parametrize("combine_type", ["sum", "concat"])
def test_mixed_convs_in_node_set_update(graphs, combine_type):
    """TF-GNN's usage example: an aggregator and a pooling convolution into one node set."""
    g, tg = graphs
    t = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {
                    "writes": graph_sage.GraphSAGEPoolingConv(
                        units=4, hidden_units=3, receiver_tag=TARGET
                    ),
                    "cites": graph_sage.GraphSAGEAggregatorConv(units=4, receiver_tag=TARGET),
                },
                graph_sage.GraphSAGENextState(units=4, combine_type=combine_type),
            )
        }
    )
    o = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {
                    "writes": ag.GraphSAGEPoolingConv(
                        units=4, hidden_units=3, receiver_tag=TARGET, sender_node_dim=3
                    ),
                    "cites": ag.GraphSAGEAggregatorConv(
                        units=4, receiver_tag=TARGET, sender_node_dim=4
                    ),
                },
                ag.GraphSAGENextState(
                    units=4, combine_type=combine_type, in_features=4, edge_input_dims=[4, 4]
                ),
            )
        }
    )
    t(tg)
    transfer(t, o, seed=10)
    _close_graphs(o(g), t(tg))


# ---- GraphSAGEGraphUpdate ----------------------------------------------------------------------

UPDATE_CONFIGS = [
    dict(hidden_units=6),
    dict(use_pooling=False),
    dict(use_pooling=False, reduce_type="sum|max_no_inf", combine_type="concat"),
    dict(hidden_units=2, reduce_type="max_no_inf", combine_type="concat", use_bias=False),
    dict(hidden_units=5, l2_normalize=False, activation="tanh"),
    dict(use_pooling=False, node_set_names=["paper"], units=1),
    dict(hidden_units=3, feature_name="year"),
]


@pytest.mark.parametrize("kwargs", UPDATE_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_graph_sage_graph_update(graphs, kwargs, receiver_tag):
    g, tg = graphs
    kwargs = dict(dict(units=3), **kwargs)
    if kwargs.get("node_set_names") and receiver_tag == SOURCE:
        kwargs["node_set_names"] = ["author", "paper"]
    t = graph_sage.GraphSAGEGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    o = ag.GraphSAGEGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    t(tg)
    o(g)  # sized on the first call, as Keras
    transfer(t, o, seed=11)
    _close_graphs(o(g), t(tg))
    from_spec = ag.GraphSAGEGraphUpdate(receiver_tag=receiver_tag, graph_spec=g.spec, **kwargs)
    transfer(t, from_spec, seed=12)
    _close_graphs(from_spec(g), t(tg))


def test_graph_sage_graph_update_skips_aux_sets():
    nodes = {"n": ([4, 1, 1], {"hidden_state": 3}), "_readout": ([1, 1, 1], {})}
    edges = {
        "e": ([5, 1, 0], ("n", [0, 1, 2, 2, 3, 4]), ("n", [1, 1, 0, 2, 1, 4]), {}),
        "_readout/n": ([1, 1, 1], ("n", [0, 4, 5]), ("_readout", [0, 1, 2]), {}),
    }
    g, tg = _pair(nodes, edges, seed=3)
    for receiver_tag in (SOURCE, TARGET):
        t = graph_sage.GraphSAGEGraphUpdate(units=2, hidden_units=3, receiver_tag=receiver_tag)
        o = ag.GraphSAGEGraphUpdate(units=2, hidden_units=3, receiver_tag=receiver_tag)
        t(tg)
        o(g)
        transfer(t, o, seed=13)
        _close_graphs(o(g), t(tg))


# ---- GCNGraphSAGENodeSetUpdate -----------------------------------------------------------------

GCN_CONFIGS = [
    dict(),
    dict(reduce_type="sum", use_bias=True, activation="tanh"),
    dict(add_self_loop=False),
    dict(share_weights=True, use_bias=True),
    dict(share_weights=True, add_self_loop=False, reduce_type="sum"),
    dict(edge_set_names=["writes"], activation=None),
]


@pytest.mark.parametrize("kwargs", GCN_CONFIGS)
def test_gcn_graph_sage_node_set_update(kwargs):
    g, tg = _pair(_node_sets(author_width=4))  # share_weights: senders as wide as papers
    kwargs = dict(dict(edge_set_names={"cites", "writes"}, units=3), **kwargs)
    t = graph_sage.GCNGraphSAGENodeSetUpdate(receiver_tag=TARGET, **kwargs)
    o = ag.GCNGraphSAGENodeSetUpdate(receiver_tag=TARGET, **kwargs, in_features=4)
    t_update = tfl.GraphUpdate(node_sets={"paper": t})
    o_update = ag.GraphUpdate(node_sets={"paper": o})
    t_update(tg)
    transfer(t_update, o_update, seed=14)
    _close_graphs(o_update(g), t_update(tg))


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_gcn_graph_sage_other_widths_and_empty_edge_set(receiver_tag):
    """Senders of another width ({edge set: size}); an edge set without edges."""
    g, tg = _pair(_node_sets())
    name = "author" if receiver_tag == TARGET else "paper"
    kwargs = dict(edge_set_names=["reviews"], units=2, receiver_tag=receiver_tag, use_bias=True)
    if receiver_tag == SOURCE:
        kwargs["edge_set_names"] = ["reviews", "cites"]
    dims = {"reviews": 4 if receiver_tag == TARGET else 3, "cites": 4}
    dims = {k: v for k, v in dims.items() if k in kwargs["edge_set_names"]}
    t = tfl.GraphUpdate(node_sets={name: graph_sage.GCNGraphSAGENodeSetUpdate(**kwargs)})
    o = ag.GraphUpdate(
        node_sets={
            name: ag.GCNGraphSAGENodeSetUpdate(
                **kwargs, in_features=3 if name == "author" else 4, sender_node_dims=dims
            )
        }
    )
    t(tg)
    transfer(t, o, seed=15)
    _close_graphs(o(g), t(tg))
