"""Session-13 parity sweep of TF-GNN's Keras layers (``arraygnn.graph_tensor.layers``) on
option combinations the earlier tests leave out, against NumPy transcriptions of TF-GNN's
sources (tensorflow/gnn, read, not run):

- ``tensorflow_gnn/models/mt_albis/layers.py`` (``MtAlbisGraphUpdate``: ``MtAlbisSimpleConv``
  = ``SimpleConv(Dense(message_dim, "relu"))``, ``GATv2Conv`` / ``MultiHeadAttentionConv``
  on ``attention_edge_set_names``, ``MtAlbisNextNodeState`` = ``norm(Dense(units, relu)(
  concat([state, combine_values(sorted edge inputs)])) [+ state])``), built through
  ``tensorflow_gnn/keras/builders.py`` (``ConvGNNBuilder.Convolve``);
- ``tensorflow_gnn/keras/layers/graph_update.py`` (``EdgeSetUpdate``: ``(edge input,
  {tag: node input}, context input)``, flattened by ``tf.nest``, dict keys sorted) and
  ``next_state.py`` (``NextStateFromConcat``);
- ``tensorflow_gnn/models/gat_v2/layers.py`` (``GATv2Conv``: ``use_bias``, the attention
  and output activations, edge inputs, receiver tag given at call time).

Per-edge formulas are those of ``tests/graph_tensor/_tfgnn_oracle.py``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import CONTEXT, HIDDEN_STATE, SOURCE, TARGET
from arraygnn.graph_tensor import layers as ag
from tests.graph_tensor import _tfgnn_oracle as oracle

RTOL, ATOL = 1e-9, 1e-10
F64 = np.float64


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _layer_norm(x, gamma, beta, eps=1e-3):  # Keras LayerNormalization, epsilon 1e-3
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def _ends(graph, edge_set_name, receiver_tag):
    adj = graph.edge_sets[edge_set_name].adjacency
    sender_tag = SOURCE if receiver_tag == TARGET else TARGET
    return (
        adj.node_set_name(sender_tag),
        adj.node_set_name(receiver_tag),
        np.asarray(adj[sender_tag]),
        np.asarray(adj[receiver_tag]),
    )


def _set_random(layer, seed):
    rng = np.random.default_rng(seed)
    weights = [0.5 * rng.standard_normal(w.shape) for w in layer.get_weights()]
    layer.set_weights(weights)
    return weights


# ---- MtAlbisGraphUpdate end to end -------------------------------------------------------


def _mt_albis_oracle(graph, weights, cfg):
    """MtAlbisGraphUpdate from TF-GNN's formulas; ``weights`` in Keras' order: per updated
    node set (sorted), its convolutions (sorted by edge set), then the next state."""
    tag, md, heads = cfg["receiver_tag"], cfg["message_dim"], cfg.get("attention_num_heads", 4)
    att_type = cfg.get("attention_type", "none")
    att_sets = cfg.get("attention_edge_set_names")
    reduce_type = cfg.get("simple_conv_reduce_type", "mean")
    use_rcv = cfg.get("simple_conv_use_receiver_state", True)
    edge_name = cfg.get("edge_feature_name")
    combine = cfg.get("edge_set_combine_type", "concat")
    norm = cfg.get("normalization_type", "layer")
    residual = cfg.get("next_state_type", "dense") == "residual"
    w = list(weights)
    take = lambda: w.pop(0)  # noqa: E731
    receivers = {}
    for es in graph.edge_sets:
        receivers.setdefault(_ends(graph, es, tag)[1], []).append(es)
    wanted = cfg.get("node_set_names")
    out = {}
    for ns in sorted(receivers):
        if wanted is not None and ns not in wanted:
            continue
        x = graph.node_sets[ns][HIDDEN_STATE]
        n = x.shape[0]
        pooled = []
        for es in sorted(receivers[ns]):
            snd_name, _, si, ri = _ends(graph, es, tag)
            xs = graph.node_sets[snd_name][HIDDEN_STATE]
            edge = graph.edge_sets[es][edge_name] if edge_name else None
            if att_type != "none" and (att_sets is None or es in att_sets):
                assert att_type == "gat_v2"
                count = 2 + 2 + (1 if edge is not None else 0) + 1  # q, value_node, edge, attn
                conv_w = [take() for _ in range(count)]
                pooled.append(oracle.gatv2(conv_w, x, xs, edge, si, ri, n, heads, md // heads))
            else:
                k, b = take(), take()
                msg = lambda v, k=k, b=b: oracle.relu(v @ k + b)  # noqa: E731
                xr = x if use_rcv else None
                pooled.append(oracle.simple_conv(xs, xr, edge, si, ri, n, msg, reduce_type))
        if combine == "concat":
            edge_in = np.concatenate(pooled, axis=-1)
        else:
            edge_in = sum(pooled[1:], pooled[0])
        k, b = take(), take()
        net = oracle.relu(np.concatenate([x, edge_in], axis=-1) @ k + b)
        if residual and x.shape[1]:
            net = net + x
        if norm == "layer":
            net = _layer_norm(net, take(), take())
        out[ns] = net
    assert not w
    return out


MT_ALBIS_CONFIGS = [
    # attention on one edge set only, a concatenated reduction, edge features, no norm
    dict(
        receiver_tag=TARGET,
        units=3,
        message_dim=4,
        attention_type="gat_v2",
        attention_num_heads=2,
        attention_edge_set_names=["writes"],
        simple_conv_reduce_type="mean|max_no_inf",
        edge_feature_name="hidden_state",
        normalization_type="none",
    ),
    # no receiver state, "sum" combine across edge sets, residual, one node set
    dict(
        receiver_tag=TARGET,
        units=4,
        message_dim=5,
        simple_conv_reduce_type="sum",
        simple_conv_use_receiver_state=False,
        edge_set_combine_type="sum",
        next_state_type="residual",
        node_set_names=["paper"],
    ),
    # receiver SOURCE, attention everywhere, "sum" combine, layer norm
    dict(
        receiver_tag=SOURCE,
        units=2,
        message_dim=6,
        attention_type="gat_v2",
        attention_num_heads=3,
        edge_set_combine_type="sum",
    ),
]


@pytest.mark.parametrize("cfg", MT_ALBIS_CONFIGS, ids=["attn_subset", "residual_sum", "source"])
def test_mt_albis_graph_update_matches_tfgnn_formula(cfg):
    graph = oracle.hetero_graph(3, dtype=F64)
    update = ag.MtAlbisGraphUpdate(**cfg, dtype=F64, rng=0)
    update(graph)  # sized on the first call, as Keras
    weights = _set_random(update, 1)
    got = update(graph)
    want = _mt_albis_oracle(graph, weights, cfg)
    for ns, value in want.items():
        np.testing.assert_allclose(got.node_sets[ns][HIDDEN_STATE], value, RTOL, ATOL)
        assert got.node_sets[ns][HIDDEN_STATE].dtype == F64
    for ns in set(graph.node_sets) - set(want):  # not updated: the very same arrays
        assert got.node_sets[ns][HIDDEN_STATE] is graph.node_sets[ns][HIDDEN_STATE]


# ---- EdgeSetUpdate inputs and GraphUpdate merging -----------------------------------------


def test_edge_set_update_flattens_tags_sorted_and_merges_dict_results():
    graph = oracle.hetero_graph(5, dtype=F64)
    es = graph.edge_sets["writes"]
    src = graph.node_sets["author"][HIDDEN_STATE][np.asarray(es.adjacency.source)]
    tgt = graph.node_sets["paper"][HIDDEN_STATE][np.asarray(es.adjacency.target)]
    ctx = graph.context[HIDDEN_STATE][np.repeat(np.arange(3), np.asarray(es.sizes))]
    lin = ag.dense(3 + 4 + 2, 2, "tanh", dtype=F64, rng=0)

    class TwoFeatures(ag.NextStateFromConcat):  # a next state returning a dict
        def __call__(self, inputs):
            h = super().__call__(inputs)
            return {HIDDEN_STATE: h, "twice": 2 * h}

    # tags listed TARGET first: tf.nest still flattens {SOURCE: .., TARGET: ..} SOURCE first;
    # a list of context features is a dict; no edge input
    update = ag.GraphUpdate(
        edge_sets={
            "writes": ag.EdgeSetUpdate(
                TwoFeatures(lin),
                edge_input_feature=None,
                node_input_tags=(TARGET, SOURCE),
                context_input_feature=[HIDDEN_STATE],
            )
        }
    )
    weights = _set_random(update, 2)
    out = update(graph).edge_sets["writes"]
    want = np.tanh(np.concatenate([src, tgt, ctx], axis=-1) @ weights[0] + weights[1])
    np.testing.assert_allclose(out[HIDDEN_STATE], want, RTOL, ATOL)
    np.testing.assert_allclose(out["twice"], 2 * want, RTOL, ATOL)
    assert set(out.features) == {HIDDEN_STATE, "twice"}  # merged over the old features
    assert graph.edge_sets["writes"][HIDDEN_STATE].shape == (5, 2)  # input left alone


@pytest.mark.parametrize("node_input_feature", [None, []])
def test_node_set_update_without_node_input(node_input_feature):
    """TF-GNN: ``node_input_feature=None`` or an empty list passes ``{}``."""
    graph = oracle.hetero_graph(6, dtype=F64)
    pool = ag.Pool(TARGET, "sum")
    update = ag.NodeSetUpdate(
        {"writes": pool},
        ag.NextStateFromConcat(lambda v: v),
        node_input_feature=node_input_feature,
        context_input_feature=HIDDEN_STATE,
    )
    got = update(graph, node_set_name="paper")
    ctx = graph.context[HIDDEN_STATE][np.repeat(np.arange(3), [3, 2, 1])]
    want = np.concatenate([pool(graph, edge_set_name="writes"), ctx], axis=-1)
    np.testing.assert_allclose(got, want, RTOL, ATOL)


# ---- GATv2Conv options ---------------------------------------------------------------------

GAT_CONFIGS = [
    # (use_bias, attention_activation, activation, node input, edge input, merge)
    (False, "relu", None, True, True, "concat"),
    (False, "leaky_relu", "elu", True, True, "mean"),  # the fused path, no biases
    (False, "tanh", "relu", False, True, "concat"),  # an edge pool without biases
    (True, "leaky_relu", None, True, False, "mean"),
]
_ACTS = {None: lambda v: v, "relu": oracle.relu, "elu": _elu, "tanh": np.tanh}
_ATT = {"relu": oracle.relu, "leaky_relu": oracle.leaky_relu, "tanh": np.tanh}


@pytest.mark.parametrize("cfg", GAT_CONFIGS)
@pytest.mark.parametrize("edge_set_name, receiver_tag", [("writes", TARGET), ("cites", SOURCE)])
def test_gatv2_conv_options_match_tfgnn_formula(cfg, edge_set_name, receiver_tag):
    use_bias, att, act, node, edge, merge = cfg
    graph = oracle.hetero_graph(7, dtype=F64)
    snd_name, rcv_name, si, ri = _ends(graph, edge_set_name, receiver_tag)
    x_snd = graph.node_sets[snd_name][HIDDEN_STATE]
    x_rcv = graph.node_sets[rcv_name][HIDDEN_STATE]
    e = graph.edge_sets[edge_set_name][HIDDEN_STATE]
    conv = ag.GATv2Conv(
        num_heads=2,
        per_head_channels=3,
        use_bias=use_bias,
        attention_activation=att,
        activation=act,
        heads_merge_type=merge,
        sender_node_feature=HIDDEN_STATE if node else None,
        sender_edge_feature=HIDDEN_STATE if edge else None,
        receiver_dim=x_rcv.shape[1],
        sender_node_dim=x_snd.shape[1],
        sender_edge_dim=e.shape[1],
        dtype=F64,
    )  # receiver_tag at call time only (TF-GNN's default is None)
    weights = _set_random(conv, 4)
    got = conv(graph, edge_set_name=edge_set_name, receiver_tag=receiver_tag)
    want = oracle.gatv2(
        weights, x_rcv, x_snd if node else None, e if edge else None, si, ri, x_rcv.shape[0],
        2, 3, use_bias=use_bias, merge=merge, act=_ACTS[act], att_act=_ATT[att],
    )  # fmt: skip
    assert got.shape == (x_rcv.shape[0], 6 if merge == "concat" else 3)
    np.testing.assert_allclose(got, want, RTOL, ATOL)


# ---- bad input ----------------------------------------------------------------------------


def _str_names_builders():
    common = dict(units=4, receiver_tag=TARGET)
    return [
        lambda: ag.MtAlbisGraphUpdate(**common, message_dim=4, node_set_names="paper"),
        lambda: ag.VanillaMPNNGraphUpdate(**common, message_dim=4, node_set_names="paper"),
        lambda: ag.GATv2MPNNGraphUpdate(
            **common, message_dim=4, num_heads=2, node_set_names="paper"
        ),
        lambda: ag.GraphSAGEGraphUpdate(**common, use_pooling=False, node_set_names="paper"),
    ]


@pytest.mark.parametrize("i", range(4), ids=["mt_albis", "vanilla", "gat_v2", "graph_sage"])
def test_builders_refuse_a_str_for_node_set_names(i):
    # TF-GNN takes set("paper") = {"p", "a", ...} and fails later on a missing node set "p"
    with pytest.raises(TypeError, match="node_set_names must be a collection of set names"):
        _str_names_builders()[i]()


def test_mt_albis_refuses_a_str_for_attention_edge_set_names():
    # TF-GNN tests `name in "cites"`: a substring match, silently wrong for "cite"
    with pytest.raises(TypeError, match="attention_edge_set_names must be a collection"):
        ag.MtAlbisGraphUpdate(
            units=4,
            message_dim=4,
            receiver_tag=TARGET,
            attention_type="gat_v2",
            attention_num_heads=2,
            attention_edge_set_names="cites",
        )


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda: ag.SimpleConv(lambda v: v, "sum|"), ValueError, "reduce_type"),
        (lambda: ag.SimpleConv(lambda v: v, combine_type="mean"), ValueError, "combine_type"),
        (lambda: ag.SimpleConv(lambda v: v, receiver_tag=2), ValueError, "receiver_tag"),
        (
            lambda: ag.GATv2Conv(
                num_heads=2, per_head_channels=2, receiver_feature=None, receiver_dim=3
            ),
            ValueError,
            "receiver_feature",
        ),
        (
            lambda: ag.MultiHeadAttentionConv(
                num_heads=1, per_head_channels=2, score_scaling="rsqrt", receiver_dim=3
            ),
            ValueError,
            "score_scaling",
        ),
        (
            lambda: ag.EdgeSetUpdate(lambda v: v, node_input_tags=[CONTEXT]),
            ValueError,
            "node_input_tags",
        ),
        (
            lambda: ag.MtAlbisGraphUpdate(
                units=4, message_dim=4, receiver_tag=TARGET, normalization_type="group"
            ),
            ValueError,
            "normalization_type",
        ),
    ],
)
def test_bad_options_raise_naming_the_argument(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
