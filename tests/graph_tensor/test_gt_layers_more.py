"""MultiHeadAttentionConv, HGTGraphUpdate, MtAlbis and the graph-update builders against
NumPy transcriptions of TF-GNN's formulas (per-edge loops), weights in Keras'
``get_weights()`` order; shapes; errors naming the piece. No TensorFlow needed (the
cross-check against the real TF-GNN is ``test_gt_layers_tfgnn_more.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import CONTEXT, HIDDEN_STATE, SOURCE, TARGET
from arraygnn.graph_tensor import layers as ag
from tests.graph_tensor import _tfgnn_oracle as oracle

RTOL, ATOL = 1e-9, 1e-10
F64 = np.float64


def _ends(graph, edge_set_name, receiver_tag):
    adj = graph.edge_sets[edge_set_name].adjacency
    sender_tag = SOURCE if receiver_tag == TARGET else TARGET
    return (
        graph.node_sets[adj.node_set_name(sender_tag)],
        graph.node_sets[adj.node_set_name(receiver_tag)],
        np.asarray(adj[sender_tag]),
        np.asarray(adj[receiver_tag]),
    )


def _random_weights(layer, seed):
    rng = np.random.default_rng(seed)
    return [0.5 * rng.standard_normal(w.shape) for w in layer.get_weights()]


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _gelu(x):
    from math import erf, sqrt

    return x * 0.5 * (1 + np.vectorize(erf)(x / sqrt(2)))


# ---- MultiHeadAttentionConv: the oracle ---------------------------------------------------------


def _mha_oracle(weights, cfg, x_rcv, x_snd, edge, snd_idx, rcv_idx, n_rcv):
    """TF-GNN's MultiHeadAttentionConv, one receiver and one edge at a time."""
    H, C = cfg["heads"], cfg["channels"]
    bias = cfg.get("use_bias", True)
    tk = cfg.get("transform_keys", True)
    after = cfg.get("transform_values_after_pooling", False)
    scaling = cfg.get("score_scaling", "rsqrt_dim")
    att = cfg.get("attention_activation") or (lambda v: v)
    act = cfg.get("activation", oracle.relu)
    w = list(weights)
    take = lambda: w.pop(0)  # noqa: E731
    scale_w = take() if scaling == "trainable_elup1" else None
    kn = bkn = ke = bke = vn = bvn = ve = bve = vp = bvp = None
    has_node, has_edge = x_snd is not None, edge is not None
    if tk:
        if has_node:
            kn = take()
            bkn = take() if bias else None
        if has_edge:
            ke = take()
            bke = take() if bias and not has_node else None
    if not after:
        if has_node:
            vn = take()
            bvn = take() if bias else None
        if has_edge:
            ve = take()
            bve = take() if bias and not has_node else None
    else:
        vp = take()
        bvp = take() if bias else None
    kq = take()
    bq = take() if bias else None
    assert not w
    n_items = len(rcv_idx)
    out = np.zeros((n_rcv, H, C))
    for v in range(n_rcv):
        q = att(oracle.keras_dense(x_rcv[v : v + 1], kq, bq))[0]
        items = [i for i in range(n_items) if rcv_idx[i] == v]
        if not items:
            if after and bvp is not None:
                out[v] = bvp
            continue
        scores = np.zeros((len(items), H))
        raw, values = [], []
        for j, i in enumerate(items):
            parts = []
            if has_node:
                parts.append(x_snd[snd_idx[i]])
            if has_edge:
                parts.append(edge[i])
            r = np.concatenate(parts)
            raw.append(r)
            if tk:
                k = np.zeros(H * C)
                if has_node:
                    k = k + x_snd[snd_idx[i]] @ kn + (bkn if bkn is not None else 0)
                if has_edge:
                    k = k + edge[i] @ ke + (bke if bke is not None else 0)
                k = att(k).reshape(H, C)
                qh = q.reshape(H, C)
                dim = C
            else:
                k = np.broadcast_to(r, (H, r.shape[0]))
                qh = q.reshape(H, r.shape[0])
                dim = r.shape[0]
            s = (qh * k).sum(-1)
            if scaling == "rsqrt_dim":
                s = s / np.sqrt(dim)
            elif scaling == "trainable_elup1":
                s = s * (1 + _elu(scale_w[:, 0]))
            scores[j] = s
            if not after:
                val = np.zeros(H * C)
                if has_node:
                    val = val + x_snd[snd_idx[i]] @ vn + (bvn if bvn is not None else 0)
                if has_edge:
                    val = val + edge[i] @ ve + (bve if bve is not None else 0)
                values.append(val.reshape(H, C))
        alpha = np.exp(scores - scores.max(0))
        alpha = alpha / alpha.sum(0)
        for h in range(H):
            if not after:
                out[v, h] = sum(alpha[j, h] * values[j][h] for j in range(len(items)))
            else:
                pooled = sum(alpha[j, h] * raw[j] for j in range(len(items)))
                out[v, h] = pooled @ vp[h] + (bvp[h] if bvp is not None else 0)
    return act(out).reshape(n_rcv, H * C)


MHA_CONFIGS = [
    dict(),
    dict(edge=True),
    dict(use_bias=False),
    dict(transform_keys=False),
    dict(transform_keys=False, edge=True, score_scaling="none"),
    dict(edge=True, attention_activation="tanh"),
    dict(attention_activation="relu", score_scaling="none"),
    dict(edge=True, score_scaling="trainable_elup1"),
    dict(edge=True, transform_values_after_pooling=True),
    dict(transform_values_after_pooling=True, use_bias=False, transform_keys=False),
    dict(edge=True, node=False),
    dict(edge=True, node=False, attention_activation="elu"),
    dict(edge=True, node=False, transform_values_after_pooling=True),
]
_ACTS = {"tanh": np.tanh, "relu": oracle.relu, "elu": _elu, None: None}


def _mha_layer(cfg, rcv_dim, snd_dim, edge_dim, receiver_tag):
    kwargs = {
        k: v
        for k, v in cfg.items()
        if k in ("use_bias", "transform_keys", "transform_values_after_pooling", "score_scaling")
    }
    return ag.MultiHeadAttentionConv(
        num_heads=cfg["heads"],
        per_head_channels=cfg["channels"],
        receiver_tag=receiver_tag,
        sender_node_feature=HIDDEN_STATE if cfg.get("node", True) else None,
        sender_edge_feature="hidden_state" if cfg.get("edge") else None,
        attention_activation=cfg.get("attention_activation"),
        receiver_dim=rcv_dim,
        sender_node_dim=snd_dim if cfg.get("node", True) else None,
        sender_edge_dim=edge_dim if cfg.get("edge") else None,
        dtype=F64,
        **kwargs,
    )


@pytest.mark.parametrize("cfg", MHA_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
def test_mha_conv_matches_tfgnn(cfg, receiver_tag, edge_set_name):
    graph = oracle.hetero_graph(2)
    cfg = dict(cfg, heads=2, channels=3)
    snd, rcv, s_idx, r_idx = _ends(graph, edge_set_name, receiver_tag)
    x_s, x_r = snd["hidden_state"], rcv["hidden_state"]
    edge = graph.edge_sets[edge_set_name]["hidden_state"]
    conv = _mha_layer(cfg, x_r.shape[1], x_s.shape[1], 2, receiver_tag)
    weights = _random_weights(conv, 3)
    conv.set_weights(weights)
    got = conv(graph, edge_set_name=edge_set_name)
    ocfg = dict(cfg, attention_activation=_ACTS[cfg.get("attention_activation")])
    want = _mha_oracle(
        weights,
        ocfg,
        x_r,
        x_s if cfg.get("node", True) else None,
        edge if cfg.get("edge") else None,
        s_idx,
        r_idx,
        rcv.total_size,
    )
    assert got.shape == (rcv.total_size, 6)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("cfg", [dict(), dict(transform_keys=False), dict(edge=True, node=False)])
def test_mha_conv_to_context(cfg):
    graph = oracle.hetero_graph(4)
    cfg = dict(cfg, heads=2, channels=2)
    ctx = graph.context["hidden_state"]
    if cfg.get("node", True):
        items = graph.node_sets["paper"]
        conv = _mha_layer(cfg, 2, 4, None, CONTEXT)
        weights = _random_weights(conv, 5)
        got = conv.set_weights(weights)(graph, node_set_name="paper")
        x_s, edge = items["hidden_state"], None
        s_idx = np.arange(items.total_size)
    else:
        items = graph.edge_sets["writes"]
        conv = _mha_layer(cfg, 2, None, 2, CONTEXT)
        weights = _random_weights(conv, 5)
        got = conv.set_weights(weights)(graph, edge_set_name="writes")
        x_s, edge, s_idx = None, items["hidden_state"], None
    r_idx = np.asarray(items.component_ids())
    want = _mha_oracle(weights, cfg, ctx, x_s, edge, s_idx, r_idx, 3)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_mha_weight_order_and_shapes():
    conv = ag.MultiHeadAttentionConv(
        num_heads=2,
        per_head_channels=3,
        receiver_tag=TARGET,
        sender_edge_feature="e",
        score_scaling="trainable_elup1",
        transform_values_after_pooling=True,
        receiver_dim=4,
        sender_node_dim=5,
        sender_edge_dim=2,
    )
    # score_scaling first (own weight), key_node, key_edge (no bias), value_pooled, query
    assert [w.shape for w in conv.get_weights()] == [
        (2, 1), (5, 6), (6,), (2, 6), (2, 7, 3), (2, 3), (4, 6), (6,),
    ]  # fmt: skip
    conv = ag.MultiHeadAttentionConv(
        num_heads=2, per_head_channels=3, transform_keys=False, receiver_dim=4, sender_node_dim=5
    )
    assert [w.shape for w in conv.get_weights()] == [(5, 6), (6,), (4, 10), (10,)]
    edge_pool = ag.MultiHeadAttentionEdgePool(
        num_heads=1, per_head_channels=2, receiver_dim=3, sender_edge_dim=4
    )
    assert [w.shape for w in edge_pool.get_weights()] == [(4, 2), (2,), (4, 2), (2,), (3, 2), (2,)]
    frozen = ag.MultiHeadAttentionConv(
        num_heads=1, per_head_channels=2, score_scaling="trainable_elup1", receiver_dim=3
    )
    frozen.key_node.trainable = False  # its weights move to the end, as Keras
    assert [w.shape for w in frozen.get_weights()] == [(1, 1), (3, 2), (2,), (3, 2), (2,)] + [
        (3, 2),
        (2,),
    ]
    np.testing.assert_array_equal(frozen.get_weights()[-2], frozen.key_node.weight.T)


def test_mha_errors():
    g = oracle.hetero_graph(0)
    kw = dict(num_heads=2, per_head_channels=2, receiver_tag=TARGET, receiver_dim=4)
    with pytest.raises(ValueError, match="no inputs"):
        ag.MultiHeadAttentionConv(**kw, sender_node_feature=None)
    with pytest.raises(ValueError, match="receiver_feature cannot be None"):
        ag.MultiHeadAttentionConv(**kw, receiver_feature=None)
    with pytest.raises(ValueError, match="score_scaling"):
        ag.MultiHeadAttentionConv(**kw, score_scaling="sqrt")
    with pytest.raises(ValueError, match="sender_edge_dim"):
        ag.MultiHeadAttentionConv(**kw, sender_edge_feature="hidden_state")
    with pytest.raises(ValueError, match="edge_dropout"):
        ag.MultiHeadAttentionConv(**kw, edge_dropout=1.0)
    with pytest.raises(ValueError, match="activation"):
        ag.MultiHeadAttentionConv(**kw, attention_activation="nope")
    with pytest.raises(ValueError, match="num_heads"):
        ag.MultiHeadAttentionConv(**dict(kw, num_heads=0))
    conv = ag.MultiHeadAttentionConv(**kw)  # sender node dim 4: writes sends from author (3)
    match = "feature 'hidden_state' of node set 'author' has 3 features, the layer takes 4"
    with pytest.raises(ValueError, match=match):
        conv(g, edge_set_name="writes")
    with pytest.raises(ValueError, match="node set 'paper' has no feature 'h'"):
        ag.MultiHeadAttentionConv(**kw, sender_node_feature="h")(g, edge_set_name="cites")
    with pytest.raises(TypeError, match="sender_node_feature"):
        ag.MultiHeadAttentionEdgePool(**kw, sender_node_feature="x", sender_edge_dim=2)
    with pytest.raises(ValueError, match="expected 6 arrays"):
        conv.set_weights([np.zeros((4, 4))])
    with pytest.raises(ValueError, match="query/kernel"):
        conv.set_weights(conv.get_weights()[:4] + [np.zeros((3, 4)), np.zeros(4)])


# ---- HGT ---------------------------------------------------------------------------------------


def _hgt_graph(seed=6, author_width=4):
    g = oracle.hetero_graph(seed)
    rng = np.random.default_rng(seed + 100)
    return g.replace_features(
        node_sets={"author": {"hidden_state": rng.standard_normal((4, author_width))}}
    )


def _hgt_oracle(layer, weights, graph, activation, use_bias=True, layer_norm=True):
    """TF-GNN's HGTGraphUpdate, receiver by receiver and edge by edge, reading the weights
    from Keras' list by the names of ``layer``'s slots."""
    from arraygnn.graph_tensor.layers._keras import _keras_order

    named = {s.name: w for s, w in zip(_keras_order(layer), weights)}
    H, C = layer.num_heads, layer.per_head_channels
    rtag, stag = layer.receiver_tag, layer.sender_tag

    def proj(kind, name, x):
        y = x @ named[f"{kind}_node_{name}/kernel"]
        return y + named[f"{kind}_node_{name}/bias"] if use_bias else y

    out = {}
    receivers = {graph.edge_sets[e].adjacency.node_set_name(rtag) for e in graph.edge_sets}
    for r in sorted(receivers):
        x_r = graph.node_sets[r]["hidden_state"]
        q_r = proj("query", r, x_r).reshape(-1, H, C)
        incoming = []
        for es_name, es in graph.edge_sets.items():
            if es.adjacency.node_set_name(rtag) != r:
                continue
            s = es.adjacency.node_set_name(stag)
            x_s = graph.node_sets[s]["hidden_state"]
            k = proj("key", s, x_s).reshape(-1, H, C)
            m = proj("message", s, x_s).reshape(-1, H, C)
            a_e, m_e = (
                named[f"attention_edge_{es_name}/kernel"],
                named[f"message_edge_{es_name}/kernel"],
            )
            prior = named[f"priors_{es_name}"]
            for e in range(es.total_size):
                u, v = int(es.adjacency[stag][e]), int(es.adjacency[rtag][e])
                score = np.array(
                    [(q_r[v, h] @ a_e[h]) @ k[u, h] * prior[h] / np.sqrt(C) for h in range(H)]
                )
                msg = np.stack([m[u, h] @ m_e[h] for h in range(H)])
                incoming.append((v, score, msg))
        res = np.zeros((x_r.shape[0], H, C))
        for v in range(x_r.shape[0]):
            mine = [(s, m) for (w, s, m) in incoming if w == v]
            if not mine:
                continue
            scores = np.stack([s for s, _ in mine])
            alpha = np.exp(scores - scores.max(0))
            alpha /= alpha.sum(0)
            res[v] = sum(alpha[j][:, None] * mine[j][1] for j in range(len(mine)))
        res = proj("aggr", r, activation(res.reshape(-1, H * C)))
        if x_r.shape[1] == H * C:
            if f"skip_{r}" in named:
                a = 1 / (1 + np.exp(-named[f"skip_{r}"]))
                res = res * a + x_r * (1 - a)
            else:
                res = res + x_r
        if layer_norm:
            mu, var = res.mean(-1, keepdims=True), res.var(-1, keepdims=True)
            res = (res - mu) / np.sqrt(var + 1e-3)
            res = res * named[f"normalization_{r}/gamma"] + named[f"normalization_{r}/beta"]
        out[r] = res
    return out


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(use_weighted_skip=False, activation="relu"),
        dict(use_layer_norm=False, use_bias=False, activation="tanh"),
    ],
)
def test_hgt_matches_tfgnn(receiver_tag, kwargs):
    graph = _hgt_graph()
    layer = ag.HGTGraphUpdate(
        num_heads=2, per_head_channels=2, receiver_tag=receiver_tag, dtype=F64, **kwargs
    )
    layer(graph)
    weights = _random_weights(layer, 7)
    layer.set_weights(weights)
    got = layer(graph)
    act = {"relu": oracle.relu, "tanh": np.tanh}.get(kwargs.get("activation"), _gelu)
    want = _hgt_oracle(
        layer,
        weights,
        graph,
        act,
        use_bias=kwargs.get("use_bias", True),
        layer_norm=kwargs.get("use_layer_norm", True),
    )
    assert sorted(want) == ["author", "paper"]
    for name, value in want.items():
        np.testing.assert_allclose(
            got.node_sets[name]["hidden_state"], value, rtol=1e-7, atol=1e-9, err_msg=name
        )
    np.testing.assert_array_equal(  # not a receiver: unchanged
        got.node_sets["venue"]["hidden_state"], graph.node_sets["venue"]["hidden_state"]
    )
    assert sorted(got.node_sets["paper"].features) == ["hidden_state", "year"]


def test_hgt_weights_and_spec():
    graph = _hgt_graph()
    layer = ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    with pytest.raises(ValueError, match="no weights before its first call"):
        layer.get_weights()
    layer(graph)
    shapes = [w.shape for w in layer.get_weights()]
    # 2 skips (), 3 priors (2,), key/message/query/aggr x 2 node sets, 2 norms, 3 + 3 einsums
    assert shapes[:5] == [(), (), (2,), (2,), (2,)]
    assert shapes[5:7] == [(4, 4), (4,)] and shapes[-1] == (2, 2, 2) and len(shapes) == 31
    weights = _random_weights(layer, 8)
    layer.set_weights(weights)
    back = layer.get_weights()
    assert [w.shape for w in back] == shapes  # scalars stay scalars
    for a, b in zip(back, weights):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    twin = ag.HGTGraphUpdate(
        num_heads=2, per_head_channels=2, receiver_tag=TARGET, graph_spec=graph.spec
    )
    twin.set_weights(weights)
    np.testing.assert_array_equal(
        twin(graph).node_sets["paper"]["hidden_state"],
        layer(graph).node_sets["paper"]["hidden_state"],
    )
    state = layer.state_dict()
    assert "skip.paper.value" in state and "key_projections.author.weight" in state


def test_hgt_latent_receiver_has_no_skip():
    graph = _hgt_graph(author_width=0)
    layer = ag.HGTGraphUpdate(num_heads=1, per_head_channels=4, receiver_tag=TARGET, rng=1)
    out = layer(graph)
    assert list(layer.skip) == ["paper"]
    assert out.node_sets["author"]["hidden_state"].shape == (4, 4)


def test_hgt_errors():
    graph = oracle.hetero_graph(0)  # author states are 3 wide
    with pytest.raises(ValueError, match="node set 'author' has feature 'hidden_state' of size 3"):
        ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET)(graph)
    with pytest.raises(ValueError, match="receiver_tag"):
        ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=CONTEXT)
    layer = ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET)
    layer(_hgt_graph())
    with pytest.raises(ValueError, match="feature 'hidden_state' of node set 'author' has 3"):
        layer(graph)


# ---- MtAlbis -----------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", ["layer", "batch", "none"])
@pytest.mark.parametrize("combine, nxt", [("concat", "dense"), ("sum", "residual")])
def test_mt_albis_next_state_matches_tfgnn(norm, combine, nxt):
    rng = np.random.default_rng(9)
    x = lambda w: rng.standard_normal((5, w))  # noqa: E731
    state, a, b, ctx = x(4), x(3), x(3), x(2)
    width = 4 + (3 if combine == "sum" else 6) + 2
    layer = ag.MtAlbisNextNodeState(
        4,
        next_state_type=nxt,
        normalization_type=norm,
        edge_set_combine_type=combine,
        in_features=width,
        dtype=F64,
    )
    weights = _random_weights(layer, 10)
    if norm == "batch":
        weights[-1] = np.abs(weights[-1]) + 0.5
    layer.set_weights(weights)
    got = layer((state, {"b": b, "a": a}, ctx))
    edges = a + b if combine == "sum" else np.concatenate([a, b], -1)
    net = oracle.relu(np.concatenate([state, edges, ctx], -1) @ weights[0] + weights[1])
    if nxt == "residual":
        net = net + state
    if norm == "layer":
        net = (net - net.mean(-1, keepdims=True)) / np.sqrt(net.var(-1, keepdims=True) + 1e-3)
        net = net * weights[2] + weights[3]
    elif norm == "batch":
        net = (net - weights[4]) / np.sqrt(weights[5] + 1e-3) * weights[2] + weights[3]
    np.testing.assert_allclose(got, net, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_mt_albis_graph_update_matches_parts(receiver_tag):
    """MtAlbisGraphUpdate is the GraphUpdate of its parts (TF-GNN's ConvGNNBuilder)."""
    graph = oracle.hetero_graph(11)
    kwargs = dict(units=3, message_dim=4, simple_conv_reduce_type="mean|sum")
    built = ag.MtAlbisGraphUpdate(receiver_tag=receiver_tag, dtype=F64, **kwargs)
    built(graph)
    weights = _random_weights(built, 12)
    built.set_weights(weights)
    if receiver_tag == TARGET:  # paper <- cites (4 + 4), writes (3 + 4); author <- reviews
        convs = {"paper": {"cites": 8, "writes": 7}, "author": {"reviews": 4 + 3}}
    else:  # paper <- cites, reviews (from author); author <- writes (from paper)
        convs = {"paper": {"cites": 8, "reviews": 7}, "author": {"writes": 7}}
    widths = {"paper": 4, "author": 3}
    manual = ag.GraphUpdate(
        node_sets={
            ns: ag.NodeSetUpdate(
                {
                    es: ag.MtAlbisSimpleConv(
                        4,
                        receiver_tag=receiver_tag,
                        reduce_type="mean|sum",
                        in_features=w,
                        dtype=F64,
                    )
                    for es, w in ins.items()
                },
                ag.MtAlbisNextNodeState(3, in_features=widths[ns] + 8 * len(ins), dtype=F64),
            )
            for ns, ins in convs.items()
        }
    )
    manual.set_weights(weights)
    a, b = built(graph), manual(graph)
    for ns in convs:
        np.testing.assert_allclose(
            a.node_sets[ns]["hidden_state"], b.node_sets[ns]["hidden_state"], rtol=RTOL
        )


def test_mt_albis_errors():
    graph = oracle.hetero_graph(0)
    with pytest.raises(ValueError, match="attention_type"):
        ag.MtAlbisGraphUpdate(units=2, message_dim=2, receiver_tag=TARGET, attention_type="x")
    with pytest.raises(ValueError, match="divisible by attention_num_heads"):
        ag.MtAlbisGraphUpdate(units=2, message_dim=3, receiver_tag=TARGET, attention_type="gat_v2")(
            graph
        )
    with pytest.raises(ValueError, match="requires an input that matches"):
        ag.MtAlbisGraphUpdate(
            units=2, message_dim=2, receiver_tag=TARGET, next_state_type="residual"
        )(graph)
    with pytest.raises(ValueError, match="node sets \\['venue'\\] receive from no edge set"):
        ag.MtAlbisGraphUpdate(
            units=2, message_dim=2, receiver_tag=TARGET, node_set_names=["venue"]
        )(graph)
    with pytest.raises(ValueError, match="aux node set"):
        ag.MtAlbisGraphUpdate(
            units=2, message_dim=2, receiver_tag=TARGET, node_set_names=["_readout"]
        )
    nxt = ag.MtAlbisNextNodeState(2, in_features=3)
    with pytest.raises(ValueError, match="single array as input state"):
        nxt(({"a": np.ones((2, 3))}, {}, {}))


# ---- builders ----------------------------------------------------------------------------------


def _hom_graph():
    from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet

    rng = np.random.default_rng(13)
    return GraphTensor.from_pieces(
        node_sets={
            "n": NodeSet.from_fields(
                sizes=np.array([4, 2]), features={"hidden_state": rng.standard_normal((6, 3))}
            )
        },
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([4, 1]),
                adjacency=Adjacency.from_indices(
                    ("n", np.array([0, 1, 2, 3, 4])), ("n", np.array([1, 1, 0, 2, 4]))
                ),
            )
        },
    )


def test_hom_graph_updates_are_their_convolution():
    graph = _hom_graph()
    cases = [
        (
            ag.GATv2HomGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET),
            ag.GATv2Conv(num_heads=2, per_head_channels=2, receiver_tag=TARGET, receiver_dim=3),
        ),
        (
            ag.GCNHomGraphUpdate(units=2, add_self_loops=True),
            ag.GCNConv(2, add_self_loops=True, in_features=3),
        ),
        (
            ag.MultiHeadAttentionHomGraphUpdate(
                num_heads=1, per_head_channels=2, receiver_tag=SOURCE
            ),
            ag.MultiHeadAttentionConv(
                num_heads=1, per_head_channels=2, receiver_tag=SOURCE, receiver_dim=3
            ),
        ),
    ]
    for update, conv in cases:
        update(graph)
        weights = _random_weights(conv, 14)
        update.set_weights(weights)
        conv.set_weights(weights)
        np.testing.assert_allclose(
            update(graph).node_sets["n"]["hidden_state"], conv(graph, edge_set_name="e")
        )
    with pytest.raises(ValueError, match="requires a graph with 1 node set and 1 edge set"):
        ag.GCNHomGraphUpdate(units=2)(oracle.hetero_graph(0))


@pytest.mark.parametrize(
    "builder",
    [ag.GATv2MPNNGraphUpdate, ag.MultiHeadAttentionMPNNGraphUpdate],
)
def test_mpnn_builders(builder):
    graph = oracle.hetero_graph(15)
    kwargs = dict(
        units=3, message_dim=4, num_heads=2, receiver_tag=TARGET, edge_feature="hidden_state"
    )
    deferred = builder(**kwargs, dtype=F64)
    deferred(graph)
    now = builder(**kwargs, graph_spec=graph.spec, dtype=F64)
    weights = _random_weights(now, 16)
    assert [w.shape for w in deferred.get_weights()] == [w.shape for w in weights]
    deferred.set_weights(weights)
    now.set_weights(weights)
    np.testing.assert_array_equal(
        deferred(graph).node_sets["paper"]["hidden_state"],
        now(graph).node_sets["paper"]["hidden_state"],
    )
    assert sorted(now.node_sets) == ["author", "paper"]
    with pytest.raises(ValueError, match="message_dim must be divisible by num_heads"):
        builder(units=3, message_dim=3, num_heads=2, receiver_tag=TARGET)


# ---- context calls without the input, names, float16 ---------------------------------------------


def test_context_call_ignores_missing_sender_input():
    """TF-GNN ignores a sender node input when pooling an edge set to the context and an
    edge input for a node set; the unused projections have no Keras weights."""
    g = oracle.hetero_graph(1, dtype=np.float32)
    kw = dict(
        num_heads=2, per_head_channels=3, receiver_tag=CONTEXT, sender_edge_feature="hidden_state"
    )
    simple = ag.SimpleConv(ag.dense(4, 3, rng=0), "sum", receiver_tag=CONTEXT,
                           sender_edge_feature="hidden_state")  # fmt: skip
    assert simple(g, edge_set_name="cites").shape == (3, 3)
    gat = ag.GATv2Conv(**kw, receiver_dim=2, sender_node_dim=4, sender_edge_dim=2, rng=0)
    assert len(gat.get_weights()) == 6  # before a call: every configured projection
    assert gat(g, edge_set_name="cites").shape == (3, 6)
    names = [s.name for s in ag._keras._keras_order(gat)]
    assert names == ["query/kernel", "query/bias", "value_edge/kernel", "attn_logits/kernel"]
    gat(g, node_set_name="paper")  # now the node projection is built too
    assert len(gat.get_weights()) == 6
    mha = ag.MultiHeadAttentionConv(**kw, receiver_dim=2, sender_node_dim=4, sender_edge_dim=2)
    assert mha(g, node_set_name="paper").shape == (3, 6)
    names = [s.name for s in ag._keras._keras_order(mha)]
    assert names == ["key_node/kernel", "key_node/bias", "value_node/kernel",
                     "value_node/bias", "query/kernel", "query/bias"]  # fmt: skip
    flat = ag.MultiHeadAttentionConv(**kw, transform_keys=False, receiver_dim=2,
                                     sender_node_dim=4, sender_edge_dim=2)  # fmt: skip
    assert flat(g, edge_set_name="writes").shape == (3, 6)
    assert [w.shape for w in flat.get_weights()] == [(2, 6), (2, 4), (4,)]  # query: 2 x 2 wide
    with pytest.raises(ValueError, match="key width 2, this call has 4"):
        flat(g, node_set_name="paper")


def test_set_weights_by_name():
    g = oracle.hetero_graph(1, dtype=np.float32)
    conv = ag.GATv2Conv(num_heads=2, per_head_channels=3, receiver_tag=TARGET, receiver_dim=4,
                        rng=0)  # fmt: skip
    want = conv(g, edge_set_name="cites")
    weights = {f"gat_v2_conv/{s.name}:0": w for s, w in
               zip(ag._keras._keras_order(conv), conv.get_weights())}  # fmt: skip
    twin = ag.GATv2Conv(num_heads=2, per_head_channels=3, receiver_tag=TARGET, receiver_dim=4,
                        rng=1)  # fmt: skip
    twin.set_weights(dict(reversed(weights.items())))
    np.testing.assert_array_equal(twin(g, edge_set_name="cites"), want)
    with pytest.raises(ValueError, match="expected 5 weights"):
        twin.set_weights({"x/query/kernel:0": np.zeros((4, 6))})
    bad = dict(weights)
    bad["gat_v2_conv/nope/kernel:0"] = bad.pop("gat_v2_conv/query/kernel:0")
    with pytest.raises(ValueError, match="named like 'query/kernel'"):
        twin.set_weights(bad)
    # a composite with unique (Keras-numbered) names: in the dict's order, names checked
    conv = ag.SimpleConv(ag.dense(8, 2), "sum")
    nsu = ag.NodeSetUpdate({"cites": conv}, ag.NextStateFromConcat(ag.dense(6, 3)))
    update = ag.GraphUpdate(node_sets={"paper": nsu})
    k1, b1, k2, b2 = [np.full(w.shape, i, np.float32) for i, w in enumerate(update.get_weights())]
    update.set_weights({"dense/bias:0": b1, "dense/kernel:0": k1, "dense_1/kernel:0": k2,
                        "dense_1/bias:0": b2})  # fmt: skip
    for got, want in zip(update.get_weights(), [k1, b1, k2, b2]):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="does not match"):
        update.set_weights({"dense/bias:0": b1, "dense/kernel:0": k1, "dense_1/gamma:0": k2,
                            "dense_1/bias:0": b2})  # fmt: skip
    # HGT: skip_* by name, whatever the dict's order
    hgt = ag.HGTGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET, rng=0)
    graph = _hgt_graph()
    hgt(graph)
    names = [s.name for s in ag._keras._keras_order(hgt)]
    values = [np.full(w.shape, i, np.float32) for i, w in enumerate(hgt.get_weights())]
    by_name = dict(reversed(list(zip([f"hgt_graph_update/{n}:0" for n in names], values))))
    hgt.set_weights(by_name)
    for got, want in zip(hgt.get_weights(), values):
        np.testing.assert_array_equal(got, want)


def test_width_and_dtype_errors_name_the_feature():
    g = oracle.hetero_graph(1, dtype=np.float32)
    conv = ag.GATv2Conv(num_heads=1, per_head_channels=2, receiver_tag=TARGET, receiver_dim=4,
                        sender_edge_feature="hidden_state", sender_edge_dim=3)  # fmt: skip
    with pytest.raises(ValueError, match="feature 'hidden_state' of edge set 'cites' has 2"):
        conv(g, edge_set_name="cites")
    ints = g.replace_features(
        node_sets={"paper": {"hidden_state": np.ones((6, 4), np.int32), "year": np.ones((6, 1))}}
    )
    with pytest.raises(TypeError, match="feature 'hidden_state' of node set 'paper' must be a fl"):
        ag.MultiHeadAttentionConv(num_heads=1, per_head_channels=2, receiver_tag=TARGET,
                                  receiver_dim=4)(ints, edge_set_name="cites")  # fmt: skip
    with pytest.raises(TypeError, match="feature 'hidden_state' of node set 'paper'"):
        ag.GCNConv(2, in_features=4)(ints, edge_set_name="cites")


def test_float16_inputs_give_float32():
    """Half precision accumulates in float32: every layer returns float32."""
    g = oracle.hetero_graph(1, dtype=np.float16)
    hg = _hgt_graph().replace_features(
        node_sets={
            n: {"hidden_state": ns["hidden_state"].astype(np.float16)}
            for n, ns in _hgt_graph().node_sets.items()
        }
    )
    outs = {
        "simple": ag.SimpleConv(ag.dense(8, 3, "relu"), "sum")(g, edge_set_name="cites"),
        "simple_fn": ag.SimpleConv(lambda x: x, "sum")(g, edge_set_name="cites"),
        "gat": ag.GATv2Conv(num_heads=2, per_head_channels=2, receiver_tag=TARGET,
                            receiver_dim=4)(g, edge_set_name="cites"),
        "gat_tanh": ag.GATv2Conv(num_heads=2, per_head_channels=2, receiver_tag=CONTEXT,
                                 attention_activation="tanh",
                                 receiver_dim=2, sender_node_dim=4)(g, node_set_name="paper"),
        "mha": ag.MultiHeadAttentionConv(num_heads=2, per_head_channels=2, receiver_tag=TARGET,
                                         receiver_dim=4)(g, edge_set_name="cites"),
        "gcn": ag.GCNConv(3, in_features=4)(g, edge_set_name="cites"),
        "hgt": ag.HGTGraphUpdate(num_heads=2, per_head_channels=2,
                                 receiver_tag=TARGET)(hg).node_sets["paper"]["hidden_state"],
        "mpnn": ag.VanillaMPNNGraphUpdate(units=3, message_dim=2, receiver_tag=TARGET)(
            g
        ).node_sets["paper"]["hidden_state"],
        "albis": ag.MtAlbisGraphUpdate(units=3, message_dim=2, receiver_tag=TARGET)(
            g
        ).node_sets["paper"]["hidden_state"],
    }  # fmt: skip
    for name, out in outs.items():
        assert out.dtype == np.float32, name
        assert np.isfinite(out).all(), name


def test_deferred_builders_pickle_before_their_first_call():
    import pickle

    from arraygnn.graph_tensor import Adjacency, EdgeSet, GraphTensor, NodeSet

    g = oracle.hetero_graph(1, dtype=np.float32)
    h = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(
            sizes=np.array([3]), features={"hidden_state": np.eye(3, dtype=np.float32)})},
        edge_sets={"e": EdgeSet.from_fields(sizes=np.array([3]), adjacency=Adjacency.from_indices(
            source=("n", np.array([0, 1, 2])), target=("n", np.array([2, 2, 0]))))},
    )  # fmt: skip
    cases = [
        (ag.GATv2HomGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET, rng=0), h),
        (ag.GCNHomGraphUpdate(units=3, rng=0), h),
        (ag.MultiHeadAttentionHomGraphUpdate(num_heads=2, per_head_channels=2,
                                             receiver_tag=TARGET, rng=0), h),
        (ag.GATv2MPNNGraphUpdate(units=3, message_dim=4, num_heads=2, receiver_tag=TARGET,
                                 rng=0), g),
        (ag.MultiHeadAttentionMPNNGraphUpdate(units=3, message_dim=4, num_heads=2,
                                              receiver_tag=SOURCE, rng=0), g),
        (ag.VanillaMPNNGraphUpdate(units=3, message_dim=2, receiver_tag=TARGET, rng=0), g),
        (ag.MtAlbisGraphUpdate(units=3, message_dim=4, receiver_tag=TARGET,
                               attention_type="gat_v2", attention_num_heads=2, rng=0), g),
    ]  # fmt: skip
    for update, graph in cases:
        assert not update.is_initialized
        twin = pickle.loads(pickle.dumps(update))
        want, got = update(graph), twin(graph)
        for name in want.node_sets:
            np.testing.assert_array_equal(
                got.node_sets[name]["hidden_state"], want.node_sets[name]["hidden_state"]
            )
        for a, b in zip(twin.get_weights(), update.get_weights()):
            np.testing.assert_array_equal(a, b)
