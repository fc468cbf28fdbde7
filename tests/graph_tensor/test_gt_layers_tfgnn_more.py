"""The remaining TF-GNN models against the real TF-GNN (``tensorflow_gnn`` with ``tf_keras``):
``multi_head_attention``, ``hgt``, ``mt_albis`` and the ``*HomGraphUpdate`` /
``*MPNNGraphUpdate`` builders of ``gat_v2``, ``gcn`` and ``multi_head_attention``.

As ``test_gt_layers_tfgnn.py``: build the TF-GNN layer, call it, give every Keras weight a
random value, load ``get_weights()`` into the arraygnn twin, require the same outputs
(float32, ``rtol=atol=2e-5``) and ``get_weights()`` to give Keras' list back. Skipped
without ``tensorflow_gnn``. To run it::

    PYTHONPATH=/path/to/tf/site-packages TF_USE_LEGACY_KERAS=1 \\
        python -m pytest -q -p no:cacheprovider tests/graph_tensor/test_gt_layers_tfgnn_more.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # TF-GNN needs Keras 2 (tf_keras)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

tfgnn = pytest.importorskip("tensorflow_gnn")

import tensorflow as tf  # noqa: E402
from tensorflow_gnn.models import gat_v2, gcn, hgt, mt_albis  # noqa: E402
from tensorflow_gnn.models import multi_head_attention as mha  # noqa: E402
from tensorflow_gnn.models.mt_albis import layers as mt_albis_layers  # noqa: E402

from arraygnn.graph_tensor import (  # noqa: E402
    CONTEXT,
    HIDDEN_STATE,
    SOURCE,
    TARGET,
    GraphTensor,
)
from arraygnn.graph_tensor import layers as ag  # noqa: E402
from arraygnn.graph_tensor.layers._keras import _keras_order  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import close as _close  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import (  # noqa: E402
    close_graphs,
    graph_arrays,
)
from tests.graph_tensor._tfgnn_pairs import ends as _ends  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import ours as _ours  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import randomize as _randomize  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import theirs as _theirs  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import transfer as _transfer  # noqa: E402
from tests.graph_tensor._tfgnn_pairs import width as _width  # noqa: E402

keras = tf.keras
tfl = tfgnn.keras.layers

# ---- graphs ------------------------------------------------------------------------------------


def _node_sets(author_width: int = 3) -> dict:
    """node set: (sizes per component, {feature: width})"""
    return {
        "paper": ([3, 2, 1], {"hidden_state": 4, "year": 1}),
        "author": ([2, 0, 2], {"hidden_state": author_width, "year": 1}),
        "venue": ([1, 1, 1], {"hidden_state": 2}),  # no edge set touches it
    }


#: edge set: (sizes, (source set, indices), (target set, indices), {feature: width})
EDGE_SETS = {
    # paper 5 (component 2) and papers 2, 4 receive no citation; component 2 has none
    "cites": ([4, 1, 0], ("paper", [1, 2, 2, 0, 4]), ("paper", [0, 0, 1, 0, 3]), {"h2": 2}),
    # component 1 has no authors and no edges
    "writes": ([3, 0, 2], ("author", [0, 0, 1, 2, 3]), ("paper", [0, 1, 1, 5, 5]), {"h2": 2}),
    "reviews": ([0, 0, 0], ("paper", []), ("author", []), {"h2": 2}),
}
CONTEXT_FEATURES = {"hidden_state": 2}


def _arrays(node_sets: dict, edge_sets: dict, seed: int = 0) -> dict:
    return graph_arrays(node_sets, edge_sets, CONTEXT_FEATURES, seed)


def _close_graphs(got: GraphTensor, want) -> None:
    close_graphs(got, want, context=False, same_edge_features=False)


def _pair(node_sets: dict, edge_sets: dict = EDGE_SETS, seed: int = 0):
    a = _arrays(node_sets, edge_sets, seed)
    return _ours(a), _theirs(a)


@pytest.fixture(scope="module")
def graphs():
    return _pair(_node_sets())


@pytest.fixture(scope="module")
def hgt_graphs():
    """Every receiver state as wide as the HGT output (2 heads x 2 channels)."""
    return _pair(_node_sets(author_width=4))


def _hom(with_aux: bool = False):
    """One node set, one edge set (loops, nodes without edges, a component without edges)."""
    nodes = {"n": ([4, 1, 1], {"hidden_state": 3})}
    edges = {"e": ([5, 1, 0], ("n", [0, 1, 2, 2, 3, 4]), ("n", [1, 1, 0, 2, 1, 4]), {"h2": 2})}
    if with_aux:
        nodes["_readout"] = ([1, 1, 1], {})
        edges["_readout/n"] = ([1, 1, 1], ("n", [0, 4, 5]), ("_readout", [0, 1, 2]), {})
    return _pair(nodes, edges, seed=3)


# ---- helpers -----------------------------------------------------------------------------------


def _same_names(keras_layer, ours) -> None:
    """Our Keras slot names are Keras' variable names (less the layer's own scope)."""
    want = [w.name.split("/", 1)[1].rsplit(":", 1)[0] for w in keras_layer.weights]
    assert [s.name for s in _keras_order(ours)] == want


def _transfer_by_name(keras_layer, ours, seed: int, shuffle: bool = False) -> None:
    """Random Keras weights into ``ours`` as ``{variable name: array}`` (shuffled, or with
    the layer's own weights of each scope reversed, as HGT's ``skip_*`` may be in another
    process): they must land where the list would put them."""
    _randomize(keras_layer, seed)
    by_name = {v.name: v.numpy() for v in keras_layer.weights}
    keys = list(by_name)
    if shuffle:
        np.random.default_rng(seed).shuffle(keys)
    else:  # reverse each run of weights of one scope with no "/" after it (skip_*, priors_*)
        own = [i for i, k in enumerate(keys) if "/" not in k.split("/", 1)[-1]]
        for i, j in zip(own, reversed(own)):
            if i < j:
                keys[i], keys[j] = keys[j], keys[i]
    assert ours.set_weights({k: by_name[k] for k in keys}) is ours
    for got, want in zip(ours.get_weights(), keras_layer.get_weights()):
        np.testing.assert_array_equal(got, want)


def _check_update(theirs, ours, g, tg, seed: int = 1, by_name: bool = False) -> None:
    theirs(tg)
    ours(g)  # sized on the first call, as Keras
    _transfer(theirs, ours, seed=seed)
    _close_graphs(ours(g), theirs(tg))
    if by_name:  # HGT: its skip_* order may differ between processes; names do not
        _transfer_by_name(theirs, ours, seed=seed + 100)
        _close_graphs(ours(g), theirs(tg))


# ---- MultiHeadAttentionConv --------------------------------------------------------------------

MHA_CONFIGS = [
    dict(),
    dict(sender_edge_feature="h2"),
    dict(use_bias=False, activation="tanh"),
    dict(transform_keys=False),
    dict(transform_keys=False, sender_edge_feature="h2", score_scaling="none"),
    dict(attention_activation="tanh", sender_edge_feature="h2"),  # [E, H, C] keys
    dict(attention_activation="relu", score_scaling="none"),
    dict(score_scaling="trainable_elup1", sender_edge_feature="h2"),
    dict(transform_values_after_pooling=True, sender_edge_feature="h2"),
    dict(transform_values_after_pooling=True, use_bias=False, transform_keys=False),
    dict(sender_node_feature=None, sender_edge_feature="h2"),
    dict(sender_node_feature=None, sender_edge_feature="h2", attention_activation="elu"),
    dict(sender_node_feature=None, sender_edge_feature="h2", transform_values_after_pooling=True),
    dict(receiver_feature="year", sender_edge_feature="h2", activation=None),
]


def _mha_pair(g, edge_set_name, receiver_tag, kwargs, heads=2, channels=3):
    snd, rcv = _ends(g, edge_set_name, receiver_tag)
    kwargs = dict(num_heads=heads, per_head_channels=channels, receiver_tag=receiver_tag, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TF-GNN warns on activation + scaling
        theirs = mha.MultiHeadAttentionConv(**kwargs)
    node = kwargs.get("sender_node_feature", HIDDEN_STATE)
    ours = ag.MultiHeadAttentionConv(
        **kwargs,
        receiver_dim=_width(rcv, kwargs.get("receiver_feature", HIDDEN_STATE)),
        sender_node_dim=None if node is None else _width(snd, node),
        sender_edge_dim=2 if kwargs.get("sender_edge_feature") else None,
    )
    return theirs, ours


@pytest.mark.parametrize("kwargs", MHA_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
def test_mha_conv(graphs, kwargs, receiver_tag, edge_set_name):
    g, tg = graphs
    theirs, ours = _mha_pair(g, edge_set_name, receiver_tag, kwargs)
    theirs(tg, edge_set_name=edge_set_name)
    _same_names(theirs, ours)
    _transfer(theirs, ours, seed=3)
    _close(ours(g, edge_set_name=edge_set_name), theirs(tg, edge_set_name=edge_set_name))
    _transfer_by_name(theirs, ours, seed=30, shuffle=True)
    _close(ours(g, edge_set_name=edge_set_name), theirs(tg, edge_set_name=edge_set_name))


@pytest.mark.parametrize("heads, channels", [(1, 1), (1, 5), (4, 2)])
def test_mha_conv_heads(graphs, heads, channels):
    g, tg = graphs
    for kwargs in (dict(), dict(sender_edge_feature="h2", transform_keys=False)):
        theirs, ours = _mha_pair(g, "writes", TARGET, kwargs, heads, channels)
        theirs(tg, edge_set_name="writes")
        _transfer(theirs, ours, seed=4)
        _close(ours(g, edge_set_name="writes"), theirs(tg, edge_set_name="writes"))


def test_mha_receiver_tag_at_call(graphs):
    g, tg = graphs
    theirs = mha.MultiHeadAttentionConv(num_heads=2, per_head_channels=2)
    ours = ag.MultiHeadAttentionConv(num_heads=2, per_head_channels=2, receiver_dim=4)
    theirs(tg, edge_set_name="cites", receiver_tag=SOURCE)
    _transfer(theirs, ours, seed=5)
    for tag in (SOURCE, TARGET):
        _close(
            ours(g, edge_set_name="cites", receiver_tag=tag),
            theirs(tg, edge_set_name="cites", receiver_tag=tag),
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(transform_keys=False, score_scaling="trainable_elup1"),
        dict(transform_values_after_pooling=True, attention_activation="tanh"),
    ],
)
def test_mha_to_context(graphs, kwargs):
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=CONTEXT, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, dim in [("paper", 4), ("author", 3), ("venue", 2)]:
            theirs = mha.MultiHeadAttentionConv(**kwargs)
            ours = ag.MultiHeadAttentionConv(**kwargs, receiver_dim=2, sender_node_dim=dim)
            theirs(tg, node_set_name=name)
            _transfer(theirs, ours, seed=6)
            _close(ours(g, node_set_name=name), theirs(tg, node_set_name=name), name)
        for name in ["cites", "writes", "reviews"]:
            theirs = mha.MultiHeadAttentionEdgePool(**kwargs, sender_feature="h2")
            ours = ag.MultiHeadAttentionEdgePool(
                **kwargs, sender_feature="h2", receiver_dim=2, sender_edge_dim=2
            )
            theirs(tg, edge_set_name=name)
            _transfer(theirs, ours, seed=7)
            _close(ours(g, edge_set_name=name), theirs(tg, edge_set_name=name), name)


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_mha_edge_pool(graphs, receiver_tag):
    g, tg = graphs
    _, rcv = _ends(g, "writes", receiver_tag)
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=receiver_tag)
    theirs = mha.MultiHeadAttentionEdgePool(**kwargs, sender_feature="h2")
    ours = ag.MultiHeadAttentionEdgePool(
        **kwargs, sender_feature="h2", receiver_dim=_width(rcv, HIDDEN_STATE), sender_edge_dim=2
    )
    theirs(tg, edge_set_name="writes")
    _transfer(theirs, ours, seed=8)
    _close(ours(g, edge_set_name="writes"), theirs(tg, edge_set_name="writes"))


def test_mha_in_graph_update_frozen(graphs):
    """MultiHeadAttentionConv with its own weight (score_scaling, listed first) next to
    frozen sub-layers: Keras' trainable / non-trainable order."""
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    t_frozen = mha.MultiHeadAttentionConv(**kwargs, score_scaling="trainable_elup1")
    t_live = mha.MultiHeadAttentionConv(
        **kwargs, sender_edge_feature="h2", score_scaling="trainable_elup1"
    )
    theirs = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"cites": t_frozen, "writes": t_live},
                tfl.NextStateFromConcat(keras.layers.Dense(3)),
            )
        }
    )
    o_frozen = ag.MultiHeadAttentionConv(
        **kwargs, score_scaling="trainable_elup1", receiver_dim=4, sender_node_dim=4
    )
    o_live = ag.MultiHeadAttentionConv(
        **kwargs,
        sender_edge_feature="h2",
        score_scaling="trainable_elup1",
        receiver_dim=4,
        sender_node_dim=3,
        sender_edge_dim=2,
    )
    ours = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": o_frozen, "writes": o_live},
                ag.NextStateFromConcat(ag.dense(4 + 4 + 4, 3)),
            )
        }
    )
    theirs(tg)
    for layer in (t_frozen, o_frozen):
        layer.trainable = False
    assert len(theirs.non_trainable_weights) == 7  # score_scaling, key, value, query
    _transfer(theirs, ours, seed=9)
    _close_graphs(ours(g), theirs(tg))


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(units=5, message_dim=4, num_heads=2),
        dict(units=3, message_dim=6, num_heads=3, edge_feature="h2", attention_activation="tanh"),
        dict(units=4, message_dim=2, num_heads=1, node_set_names=["paper"], activation="elu"),
    ],
)
def test_mha_mpnn_graph_update(graphs, receiver_tag, kwargs):
    g, tg = graphs
    if kwargs.get("node_set_names") and receiver_tag == SOURCE:
        kwargs = dict(kwargs, node_set_names=["author", "paper"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = mha.MultiHeadAttentionMPNNGraphUpdate(receiver_tag=receiver_tag, **kwargs)
        ours = ag.MultiHeadAttentionMPNNGraphUpdate(receiver_tag=receiver_tag, **kwargs)
        _check_update(theirs, ours, g, tg, seed=10)


# ---- HGT ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(use_weighted_skip=False),
        dict(use_layer_norm=False, activation="relu", use_bias=False),
        dict(num_heads=1, per_head_channels=4, activation="tanh"),
    ],
)
def test_hgt(hgt_graphs, receiver_tag, kwargs):
    g, tg = hgt_graphs
    kwargs = dict(dict(num_heads=2, per_head_channels=2), **kwargs)
    theirs = hgt.HGTGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    ours = ag.HGTGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    _check_update(theirs, ours, g, tg, seed=11, by_name=True)
    _same_names(theirs, ours)  # skip_* in TF-GNN's set order, priors_* in edge-set order
    # built at once from the spec: the same weights, the same results
    from_spec = ag.HGTGraphUpdate(receiver_tag=receiver_tag, graph_spec=g.spec, **kwargs)
    _transfer(theirs, from_spec, seed=12)
    _close_graphs(from_spec(g), theirs(tg))


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_hgt_latent_receiver(receiver_tag):
    """An empty [N, 0] receiver state: no skip weight, no residual, a [0, units] query."""
    g, tg = _pair(_node_sets(author_width=0))
    theirs = hgt.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=receiver_tag)
    ours = ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=receiver_tag)
    _check_update(theirs, ours, g, tg, seed=13, by_name=True)
    assert len(ours.skip) == 1  # paper only


def test_hgt_skips_aux_sets():
    g, tg = _hom(with_aux=True)
    theirs = hgt.HGTGraphUpdate(num_heads=1, per_head_channels=3, receiver_tag=TARGET)
    ours = ag.HGTGraphUpdate(num_heads=1, per_head_channels=3, receiver_tag=TARGET)
    _check_update(theirs, ours, g, tg, seed=14, by_name=True)


def test_hgt_in_a_model_with_other_updates(hgt_graphs):
    """HGT followed by a GraphUpdate in one Keras model: weights layer by layer."""
    g, tg = hgt_graphs
    inputs = keras.layers.Input(type_spec=tg.spec)
    t_hgt = hgt.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    t_next = tfl.GraphUpdate(
        node_sets={
            "paper": tfl.NodeSetUpdate(
                {"cites": tfl.SimpleConv(keras.layers.Dense(2), "sum")},
                tfl.NextStateFromConcat(keras.layers.Dense(3)),
            )
        }
    )
    model = keras.Model(inputs, t_next(t_hgt(inputs)))
    model(tg)
    o_hgt = ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    o_next = ag.GraphUpdate(
        node_sets={
            "paper": ag.NodeSetUpdate(
                {"cites": ag.SimpleConv(ag.dense(8, 2), "sum")},
                ag.NextStateFromConcat(ag.dense(6, 3)),
            )
        }
    )
    o_hgt(g)
    weights = _randomize(model, 15)
    n = len(t_hgt.get_weights())
    o_hgt.set_weights(weights[:n])
    o_next.set_weights(weights[n:])
    _close_graphs(o_next(o_hgt(g)), model(tg))
    # by name, as recommended for HGT: its names are unique (a composite's are not)
    _randomize(model, 16)
    o_hgt.set_weights({v.name: v.numpy() for v in reversed(t_hgt.weights)})
    # a composite whose Keras names happen to be unique: matched in the dict's order
    # (Keras' own: dense/bias:0 may come before dense/kernel:0), each name checked
    o_next.set_weights({v.name: v.numpy() for v in t_next.weights})
    _close_graphs(o_next(o_hgt(g)), model(tg))


def test_names_of_a_composite_layer_are_not_unique(graphs):
    """Keras names the convolutions of two NodeSetUpdates alike: a dict of a GraphUpdate's
    weights loses some, and says so."""
    g, tg = graphs
    theirs = gat_v2.GATv2MPNNGraphUpdate(units=3, message_dim=4, num_heads=2, receiver_tag=TARGET)
    ours = ag.GATv2MPNNGraphUpdate(units=3, message_dim=4, num_heads=2, receiver_tag=TARGET)
    theirs(tg)
    ours(g)
    with pytest.raises(ValueError, match="not unique"):
        ours.set_weights({v.name: v.numpy() for v in theirs.weights})


# ---- MtAlbis -----------------------------------------------------------------------------------

ALBIS_CONFIGS = [
    dict(),
    dict(attention_type="multi_head", attention_num_heads=2, edge_feature_name="h2"),
    dict(
        attention_type="gat_v2",
        attention_edge_set_names=["cites"],
        simple_conv_reduce_type="mean|sum",
        normalization_type="batch",
    ),
    dict(
        simple_conv_use_receiver_state=False,
        normalization_type="none",
        edge_set_combine_type="sum",
    ),
    dict(units=4, next_state_type="residual", node_set_names=["paper"]),
    dict(attention_type="gat_v2", attention_num_heads=4, simple_conv_reduce_type="max_no_inf"),
]


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("kwargs", ALBIS_CONFIGS)
def test_mt_albis(graphs, receiver_tag, kwargs):
    g, tg = graphs
    kwargs = dict(dict(units=5, message_dim=4), **kwargs)
    theirs = mt_albis.MtAlbisGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    ours = ag.MtAlbisGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    _check_update(theirs, ours, g, tg, seed=16)


def test_mt_albis_next_state_with_context():
    """MtAlbisNextNodeState on its own, with a context input and summed edge inputs."""
    rng = np.random.default_rng(17)
    x = lambda w: rng.standard_normal((5, w)).astype(np.float32)  # noqa: E731
    inputs = (x(4), {"b": x(3), "a": x(3)}, x(2))
    tf_inputs = tf.nest.map_structure(tf.constant, inputs)
    for kwargs in (
        dict(edge_set_combine_type="sum", next_state_type="residual"),
        dict(normalization_type="batch"),
    ):
        width = 4 + (3 if kwargs.get("edge_set_combine_type") == "sum" else 6) + 2
        theirs = mt_albis_layers.MtAlbisNextNodeState(4, **kwargs)
        ours = ag.MtAlbisNextNodeState(4, **kwargs, in_features=width)
        theirs(tf_inputs)
        _transfer(theirs, ours, seed=18)
        _close(ours(inputs), theirs(tf_inputs))


# ---- builders of gat_v2 and gcn, the Hom updates -----------------------------------------------


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(units=5, message_dim=4, num_heads=2),
        dict(units=3, message_dim=6, num_heads=3, heads_merge_type="mean", edge_feature="h2"),
        dict(units=4, message_dim=2, num_heads=2, attention_activation="tanh", activation=None),
    ],
)
def test_gatv2_mpnn_graph_update(graphs, receiver_tag, kwargs):
    g, tg = graphs
    theirs = gat_v2.GATv2MPNNGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    ours = ag.GATv2MPNNGraphUpdate(receiver_tag=receiver_tag, **kwargs)
    _check_update(theirs, ours, g, tg, seed=19)


@pytest.mark.parametrize("with_aux", [False, True])
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_hom_graph_updates(with_aux, receiver_tag):
    g, tg = _hom(with_aux)
    pairs = [
        (
            gat_v2.GATv2HomGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=receiver_tag),
            ag.GATv2HomGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=receiver_tag),
        ),
        (
            gat_v2.GATv2HomGraphUpdate(
                num_heads=3, per_head_channels=2, receiver_tag=receiver_tag,
                heads_merge_type="mean", sender_edge_feature="h2",
            ),
            ag.GATv2HomGraphUpdate(
                num_heads=3, per_head_channels=2, receiver_tag=receiver_tag,
                heads_merge_type="mean", sender_edge_feature="h2", sender_edge_dim=2,
            ),
        ),
        (
            gcn.GCNHomGraphUpdate(units=3, receiver_tag=receiver_tag, add_self_loops=True),
            ag.GCNHomGraphUpdate(units=3, receiver_tag=receiver_tag, add_self_loops=True),
        ),
        (
            gcn.GCNHomGraphUpdate(
                units=2, receiver_tag=receiver_tag, degree_normalization="in", activation="tanh"
            ),
            ag.GCNHomGraphUpdate(
                units=2, receiver_tag=receiver_tag, degree_normalization="in", activation="tanh"
            ),
        ),
        (
            mha.MultiHeadAttentionHomGraphUpdate(
                num_heads=2, per_head_channels=2, receiver_tag=receiver_tag
            ),
            ag.MultiHeadAttentionHomGraphUpdate(
                num_heads=2, per_head_channels=2, receiver_tag=receiver_tag
            ),
        ),
        (
            mha.MultiHeadAttentionHomGraphUpdate(
                num_heads=1, per_head_channels=3, receiver_tag=receiver_tag,
                transform_keys=False, sender_edge_feature="h2",
            ),
            ag.MultiHeadAttentionHomGraphUpdate(
                num_heads=1, per_head_channels=3, receiver_tag=receiver_tag,
                transform_keys=False, sender_edge_feature="h2", sender_edge_dim=2,
            ),
        ),
    ]  # fmt: skip
    for i, (theirs, ours) in enumerate(pairs):
        _check_update(theirs, ours, g, tg, seed=20 + i)


# ---- inputs a context call does not have (ignored, as TF-GNN) ----------------------------------


def _check_context_use(theirs, ours, g, tg, calls, seed=11):
    """Call both on ``calls`` (``dict(edge_set_name=...)`` / ``dict(node_set_name=...)``),
    compare the weight names, transfer by list and by name, and compare the outputs."""
    for kw in calls:
        theirs(tg, **kw)
        ours(g, **kw)  # Keras builds what the calls use; so do we
    _same_names(theirs, ours)
    _transfer(theirs, ours, seed=seed)
    for kw in calls:
        _close(ours(g, **kw), theirs(tg, **kw), str(kw))
    _transfer_by_name(theirs, ours, seed=seed + 1, shuffle=True)
    for kw in calls:
        _close(ours(g, **kw), theirs(tg, **kw), str(kw))


@pytest.mark.parametrize("name", ["cites", "writes", "reviews"])
def test_simple_conv_context_edge_set_ignores_sender_node(graphs, name):
    g, tg = graphs
    theirs = tfl.SimpleConv(keras.layers.Dense(3), "sum", receiver_tag=CONTEXT,
                            sender_edge_feature="h2")  # fmt: skip
    ours = ag.SimpleConv(ag.dense(4, 3), "sum", receiver_tag=CONTEXT, sender_edge_feature="h2")
    theirs(tg, edge_set_name=name)
    _transfer(theirs, ours, seed=12)
    _close(ours(g, edge_set_name=name), theirs(tg, edge_set_name=name))
    # and in a ContextUpdate, as the reviewer's port
    theirs = tfl.ContextUpdate(
        {}, tfl.NextStateFromConcat(keras.layers.Dense(2)),
        edge_set_inputs={name: tfl.SimpleConv(keras.layers.Dense(3), "sum", receiver_tag=CONTEXT,
                                              sender_edge_feature="h2")},
    )  # fmt: skip
    ours = ag.ContextUpdate(
        {},
        ag.NextStateFromConcat(ag.dense(5, 2)),
        edge_set_inputs={name: ag.SimpleConv(ag.dense(4, 3), "sum", receiver_tag=CONTEXT,
                                             sender_edge_feature="h2")},
    )  # fmt: skip
    theirs(tg)
    _transfer(theirs, ours, seed=13)
    _close(ours(g), theirs(tg))


MHA_CONTEXT_CONFIGS = [
    dict(),
    dict(transform_keys=False),
    dict(transform_values_after_pooling=True),
    dict(transform_keys=False, transform_values_after_pooling=True, use_bias=False),
    dict(attention_activation="tanh", score_scaling="trainable_elup1"),
]


@pytest.mark.parametrize("kwargs", MHA_CONTEXT_CONFIGS)
@pytest.mark.parametrize(
    "calls",
    [
        [dict(edge_set_name="cites")],
        [dict(edge_set_name="writes")],
        [dict(node_set_name="paper")],
        [dict(node_set_name="author")],
    ],
)
def test_mha_context_ignores_missing_input(graphs, kwargs, calls):
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=CONTEXT,
                  sender_edge_feature="h2", **kwargs)  # fmt: skip
    dim = {"paper": 4, "author": 3}.get(calls[0].get("node_set_name"), 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = mha.MultiHeadAttentionConv(**kwargs)
    ours = ag.MultiHeadAttentionConv(**kwargs, receiver_dim=2, sender_node_dim=dim,
                                     sender_edge_dim=2)  # fmt: skip
    _check_context_use(theirs, ours, g, tg, calls)


def test_mha_context_node_then_edge_set(graphs):
    """Two calls: Keras builds the node projections on the first, the edge ones on the
    second, and lists them in __init__ order."""
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=CONTEXT, sender_edge_feature="h2")
    theirs = mha.MultiHeadAttentionConv(**kwargs)
    ours = ag.MultiHeadAttentionConv(**kwargs, receiver_dim=2, sender_node_dim=4,
                                     sender_edge_dim=2)  # fmt: skip
    calls = [dict(node_set_name="paper"), dict(edge_set_name="cites")]
    _check_context_use(theirs, ours, g, tg, calls)


@pytest.mark.parametrize(
    "calls",
    [
        [dict(edge_set_name="cites")],
        [dict(edge_set_name="reviews")],
        [dict(node_set_name="paper")],
        [dict(edge_set_name="writes"), dict(node_set_name="paper")],
    ],
)
@pytest.mark.parametrize("kwargs", [dict(), dict(attention_activation="tanh", use_bias=False)])
def test_gatv2_context_ignores_missing_input(graphs, kwargs, calls):
    g, tg = graphs
    kwargs = dict(num_heads=2, per_head_channels=3, receiver_tag=CONTEXT,
                  sender_edge_feature="h2", **kwargs)  # fmt: skip
    theirs = gat_v2.GATv2Conv(**kwargs)
    ours = ag.GATv2Conv(**kwargs, receiver_dim=2, sender_node_dim=4, sender_edge_dim=2)
    _check_context_use(theirs, ours, g, tg, calls)
