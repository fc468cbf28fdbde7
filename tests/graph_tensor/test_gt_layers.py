"""TF-GNN's modeling layers on GraphTensor against NumPy transcriptions of TF-GNN's
formulas (tests/graph_tensor/_tfgnn_oracle.py), weights given in Keras' get_weights() order."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import CONTEXT, HIDDEN_STATE, SOURCE, TARGET
from arraygnn.graph_tensor.layers import (
    Broadcast,
    ContextUpdate,
    EdgeSetUpdate,
    GATv2Conv,
    GATv2EdgePool,
    GCNConv,
    GraphUpdate,
    NextStateFromConcat,
    NodeSetUpdate,
    Pool,
    ResidualNextState,
    SimpleConv,
    SingleInputNextState,
    VanillaMPNNGraphUpdate,
    dense,
    get_keras_weights,
    load_keras_weights,
)
from arraygnn.nn import MLP, LayerNorm, Linear, Sequential
from tests.graph_tensor import _tfgnn_oracle as oracle

RTOL, ATOL = 1e-9, 1e-10


def _w(rng, *shape):
    return rng.standard_normal(shape)


def _ends(graph, edge_set_name, receiver_tag):
    adj = graph.edge_sets[edge_set_name].adjacency
    sender_tag = SOURCE if receiver_tag == TARGET else TARGET
    snd_name, rcv_name = adj.node_set_name(sender_tag), adj.node_set_name(receiver_tag)
    return (
        graph.node_sets[snd_name],
        graph.node_sets[rcv_name],
        np.asarray(adj[sender_tag]),
        np.asarray(adj[receiver_tag]),
    )


def _snapshot(graph):
    out = {("context", k): v.copy() for k, v in graph.context.features.items()}
    for name, ns in graph.node_sets.items():
        out.update({("node", name, k): v.copy() for k, v in ns.features.items()})
    for name, es in graph.edge_sets.items():
        out.update({("edge", name, k): v.copy() for k, v in es.features.items()})
    return out


def _assert_unchanged(graph, snap):
    now = _snapshot(graph)
    assert now.keys() == snap.keys()
    for k in snap:
        np.testing.assert_array_equal(now[k], snap[k], err_msg=str(k))


# ---- SimpleConv ------------------------------------------------------------------------------


@pytest.mark.parametrize("reduce_type", ["sum", "mean", "max_no_inf", "sum|mean", "max_no_inf|sum"])
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
@pytest.mark.parametrize("with_edge", [False, True])
def test_simple_conv_matches_tfgnn(reduce_type, receiver_tag, edge_set_name, with_edge):
    graph = oracle.hetero_graph(1)
    snap = _snapshot(graph)
    snd, rcv, s_idx, r_idx = _ends(graph, edge_set_name, receiver_tag)
    x_s, x_r = snd["hidden_state"], rcv["hidden_state"]
    edge = graph.edge_sets[edge_set_name]["hidden_state"] if with_edge else None
    width = x_s.shape[1] + x_r.shape[1] + (edge.shape[1] if with_edge else 0)
    rng = np.random.default_rng(3)
    kernel, bias = _w(rng, width, 5), _w(rng, 5)
    want = oracle.simple_conv(
        x_s, x_r, edge, s_idx, r_idx, rcv.total_size,
        lambda z: oracle.keras_dense(z, kernel, bias, oracle.relu), reduce_type,
    )  # fmt: skip
    msg = load_keras_weights(dense(width, 5, "relu", dtype=np.float64), [kernel, bias])
    feature = "hidden_state" if with_edge else None
    factored = SimpleConv(msg, reduce_type, receiver_tag=receiver_tag, sender_edge_feature=feature)
    plain = SimpleConv(
        lambda z: msg(z), reduce_type, receiver_tag=receiver_tag, sender_edge_feature=feature
    )
    for conv in (factored, plain):
        got = conv(graph, edge_set_name=edge_set_name)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    _assert_unchanged(graph, snap)


def test_simple_conv_max_no_inf_gives_zero_on_empty_neighbourhoods():
    graph = oracle.hetero_graph(2)
    conv = SimpleConv(lambda z: z - 100.0, "max_no_inf", receiver_feature=None)
    got = conv(graph, edge_set_name="cites")  # papers 2, 4, 5 receive no citation
    assert (got[[2, 4, 5]] == 0).all()
    assert (got[[0, 1, 3]] < -90).all()


def test_simple_conv_receiver_only_and_combine_sum():
    graph = oracle.hetero_graph(3)
    snd, rcv, s_idx, r_idx = _ends(graph, "cites", TARGET)
    lin = Linear(4, 3, dtype=np.float64, rng=0)
    conv = SimpleConv(lin, "sum", sender_node_feature=None)
    want = oracle.simple_conv(None, rcv["hidden_state"], None, s_idx, r_idx, 6, lin, "sum")
    np.testing.assert_allclose(conv(graph, edge_set_name="cites"), want, rtol=RTOL, atol=ATOL)
    conv = SimpleConv(lin, "mean", combine_type="sum")
    x = rcv["hidden_state"]
    summed = x[s_idx] + x[r_idx]
    want = oracle.pool_loop(lin(summed), r_idx, 6, "mean")
    np.testing.assert_allclose(conv(graph, edge_set_name="cites"), want, rtol=RTOL, atol=ATOL)


def test_simple_conv_mlp_message_fn_is_factored_exactly():
    graph = oracle.hetero_graph(4)
    mlp = MLP([7, 6, 2], dtype=np.float64, rng=1)
    got = SimpleConv(mlp, "sum|max_no_inf", receiver_tag=SOURCE)(graph, edge_set_name="writes")
    snd, rcv, s_idx, r_idx = _ends(graph, "writes", SOURCE)
    want = oracle.simple_conv(
        snd["hidden_state"], rcv["hidden_state"], None, s_idx, r_idx, 4, mlp, "sum|max_no_inf"
    )
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


def test_simple_conv_to_context():
    graph = oracle.hetero_graph(5)
    lin = Linear(6, 3, dtype=np.float64, rng=2)
    got = SimpleConv(lin, "mean", receiver_tag=CONTEXT)(graph, node_set_name="paper")
    ns = graph.node_sets["paper"]
    comp = np.repeat(np.arange(3), ns.sizes)
    z = np.concatenate([ns["hidden_state"], graph.context["hidden_state"][comp]], axis=1)
    np.testing.assert_allclose(got, oracle.pool_loop(lin(z), comp, 3, "mean"), rtol=RTOL)
    # edges to context: no sender node, the edge state instead
    conv = SimpleConv(
        Linear(2, 3, dtype=np.float64, rng=3), "sum", receiver_tag=CONTEXT,
        receiver_feature=None, sender_node_feature=None, sender_edge_feature="hidden_state",
    )  # fmt: skip
    es = graph.edge_sets["writes"]
    comp = np.repeat(np.arange(3), es.sizes)
    want = oracle.pool_loop(conv.message_fn(es["hidden_state"]), comp, 3, "sum")
    np.testing.assert_allclose(conv(graph, edge_set_name="writes"), want, rtol=RTOL)


# ---- GATv2Conv ---------------------------------------------------------------------------------


def _gat_weights(rng, rdim, sdim, edim, heads, chans, use_bias):
    hc = heads * chans
    w = [_w(rng, rdim, hc)] + ([_w(rng, hc)] if use_bias else [])
    if sdim is not None:
        w += [_w(rng, sdim, hc)] + ([_w(rng, hc)] if use_bias else [])
    if edim is not None:
        w += [_w(rng, edim, hc)] + ([_w(rng, hc)] if use_bias and sdim is None else [])
    return w + [_w(rng, chans, heads)]


@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
@pytest.mark.parametrize("edge_set_name", ["cites", "writes", "reviews"])
@pytest.mark.parametrize("with_edge", [False, True])
@pytest.mark.parametrize("merge", ["concat", "mean"])
@pytest.mark.parametrize("attention", ["leaky_relu", "tanh"])
def test_gatv2_matches_tfgnn(receiver_tag, edge_set_name, with_edge, merge, attention):
    graph = oracle.hetero_graph(6)
    snap = _snapshot(graph)
    snd, rcv, s_idx, r_idx = _ends(graph, edge_set_name, receiver_tag)
    x_s, x_r = snd["hidden_state"], rcv["hidden_state"]
    edge = graph.edge_sets[edge_set_name]["hidden_state"] if with_edge else None
    heads, chans = 3, 2
    use_bias = not with_edge or merge == "concat"
    weights = _gat_weights(
        np.random.default_rng(7), x_r.shape[1], x_s.shape[1], 2 if with_edge else None,
        heads, chans, use_bias,
    )  # fmt: skip
    conv = GATv2Conv(
        num_heads=heads, per_head_channels=chans, receiver_tag=receiver_tag,
        sender_edge_feature="hidden_state" if with_edge else None, use_bias=use_bias,
        heads_merge_type=merge, attention_activation=attention, receiver_dim=x_r.shape[1],
        sender_node_dim=x_s.shape[1], sender_edge_dim=2 if with_edge else None,
        dtype=np.float64,
    )  # fmt: skip
    conv.set_weights(weights)
    got = conv(graph, edge_set_name=edge_set_name)
    att_act = oracle.leaky_relu if attention == "leaky_relu" else np.tanh
    want = oracle.gatv2(
        weights, x_r, x_s, edge, s_idx, r_idx, rcv.total_size, heads, chans,
        use_bias=use_bias, merge=merge, att_act=att_act,
    )  # fmt: skip
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    _assert_unchanged(graph, snap)


def test_gatv2_fused_and_general_paths_agree():
    graph = oracle.hetero_graph(8)
    kw = dict(
        num_heads=2, per_head_channels=3, receiver_tag=TARGET, sender_edge_feature="hidden_state",
        receiver_dim=4, sender_node_dim=4, sender_edge_dim=2, activation=None, dtype=np.float64,
    )  # fmt: skip
    fused = GATv2Conv(**kw, rng=0)
    general = GATv2Conv(**kw, attention_activation=lambda x: np.where(x > 0, x, 0.2 * x))
    general.set_weights(fused.get_weights())
    np.testing.assert_allclose(
        fused(graph, edge_set_name="cites"), general(graph, edge_set_name="cites"), rtol=1e-10
    )


def test_gatv2_to_context_and_edge_pool():
    graph = oracle.hetero_graph(9)
    rng = np.random.default_rng(10)
    ns = graph.node_sets["paper"]
    comp = np.repeat(np.arange(3), ns.sizes)
    weights = _gat_weights(rng, 2, 4, None, 2, 3, True)
    conv = GATv2Conv(
        num_heads=2, per_head_channels=3, receiver_tag=CONTEXT, receiver_dim=2,
        sender_node_dim=4, dtype=np.float64,
    ).set_weights(weights)  # fmt: skip
    want = oracle.gatv2(
        weights, graph.context["hidden_state"], ns["hidden_state"], None, np.arange(6), comp,
        3, 2, 3,
    )  # fmt: skip
    np.testing.assert_allclose(conv(graph, node_set_name="paper"), want, rtol=1e-7, atol=1e-9)
    # attention pooling of edge states at the target (value_edge keeps its bias)
    weights = _gat_weights(rng, 4, None, 2, 2, 3, True)
    pool = GATv2EdgePool(
        num_heads=2, per_head_channels=3, receiver_tag=TARGET, receiver_dim=4,
        sender_edge_dim=2, dtype=np.float64,
    ).set_weights(weights)  # fmt: skip
    es = graph.edge_sets["writes"]
    want = oracle.gatv2(
        weights, ns["hidden_state"], None, es["hidden_state"], None,
        np.asarray(es.adjacency.target), 6, 2, 3,
    )  # fmt: skip
    np.testing.assert_allclose(pool(graph, edge_set_name="writes"), want, rtol=1e-7, atol=1e-9)


def test_gatv2_weight_order_and_float32():
    conv = GATv2Conv(
        num_heads=2, per_head_channels=3, receiver_tag=TARGET, sender_edge_feature="w",
        receiver_dim=4, sender_node_dim=5, sender_edge_dim=2,
    )  # fmt: skip
    assert [w.shape for w in conv.get_weights()] == [(4, 6), (6,), (5, 6), (6,), (2, 6), (3, 2)]
    graph = oracle.hetero_graph(11, dtype=np.float32)
    conv = GATv2Conv(num_heads=2, per_head_channels=3, receiver_tag=SOURCE, receiver_dim=4)
    out = conv(graph, edge_set_name="cites")
    assert out.dtype == np.float32 and out.shape == (6, 6)


# ---- GCNConv -----------------------------------------------------------------------------------


@pytest.mark.parametrize("norm", ["none", "in", "out", "in_out", "in_in"])
@pytest.mark.parametrize("self_loops", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_gcn_matches_tfgnn(norm, self_loops, weighted, receiver_tag):
    graph = oracle.hetero_graph(12)
    snd, rcv, s_idx, r_idx = _ends(graph, "cites", receiver_tag)
    rng = np.random.default_rng(13)
    kernel, bias = _w(rng, 4, 3), _w(rng, 3)
    conv = GCNConv(
        3, receiver_tag=receiver_tag, add_self_loops=self_loops, degree_normalization=norm,
        edge_weight_feature_name="weight" if weighted else None, in_features=4,
        dtype=np.float64,
    ).set_weights([kernel, bias])  # fmt: skip
    w = graph.edge_sets["cites"]["weight"] if weighted else None
    want = oracle.gcn(kernel, bias, snd["hidden_state"], s_idx, r_idx, w, norm, self_loops)
    np.testing.assert_allclose(conv(graph, edge_set_name="cites"), want, rtol=1e-10, atol=1e-12)


def test_gcn_legacy_normalize_flag():
    assert GCNConv(2, in_features=3, normalize=True).degree_normalization == "in_in"
    assert GCNConv(2, in_features=3, normalize=False).degree_normalization == "none"
    with pytest.raises(ValueError, match="normalize=True contradicts"):
        GCNConv(2, in_features=3, normalize=True, degree_normalization="in")


# ---- next states -----------------------------------------------------------------------------


def test_next_state_layers():
    rng = np.random.default_rng(14)
    own, a, b = _w(rng, 5, 3), _w(rng, 5, 2), _w(rng, 5, 1)
    lin = Linear(6, 3, dtype=np.float64, rng=0)
    cat = np.concatenate([own, a, b], axis=1)  # tf.nest order: dict keys sorted
    np.testing.assert_allclose(NextStateFromConcat(lin)((own, {"z": b, "a": a}, {})), lin(cat))
    res = ResidualNextState(lin, activation="relu")
    np.testing.assert_allclose(res((own, {"a": a}, b)), oracle.relu(lin(cat) + own))
    got = ResidualNextState(lin, skip_connection_feature_name="s")(({"s": own}, {"a": a}, b))
    np.testing.assert_allclose(got, lin(cat) + own)
    latent = np.zeros((5, 0))
    lin3 = Linear(3, 3, dtype=np.float64, rng=1)
    np.testing.assert_allclose(ResidualNextState(lin3)((latent, {"a": a, "b": b}, {})), lin3(
        np.concatenate([a, b], 1)))  # fmt: skip
    assert SingleInputNextState()((own, {"e": a}, {})) is a


def test_next_state_errors():
    lin = Linear(3, 4, dtype=np.float64)
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match="residual block's output has shape"):
        ResidualNextState(lin)((x, {}, {}))
    with pytest.raises(ValueError, match="no skip connection feature 'hidden_state'"):
        ResidualNextState(Linear(3, 3))(({"h": x}, {}, {}))
    with pytest.raises(ValueError, match="skip connection feature 'h' was set"):
        ResidualNextState(Linear(3, 3), skip_connection_feature_name="h")((x, {}, {}))
    with pytest.raises(ValueError, match="exactly one input"):
        SingleInputNextState()((x, {"a": x, "b": x}, {}))
    with pytest.raises(ValueError, match="third input must be empty"):
        SingleInputNextState()((x, {"a": x}, x))
    with pytest.raises(TypeError, match="tuple of 3 inputs"):
        NextStateFromConcat(lin)([x, {}, {}])


# ---- GraphUpdate ------------------------------------------------------------------------------


def _model():
    """Edge update of cites, node updates of paper and author, context update."""
    rng = np.random.default_rng(15)
    edge_update = EdgeSetUpdate(NextStateFromConcat(Linear(2 + 4 + 4, 3, dtype=np.float64)))
    paper_update = NodeSetUpdate(
        {
            "cites": Pool(TARGET, "sum"),  # the NEW cites state (3 wide)
            "writes": SimpleConv(dense(3 + 4, 2, "relu", dtype=np.float64), "mean"),
        },
        NextStateFromConcat(dense(4 + 3 + 2, 5, "tanh", dtype=np.float64)),
    )
    author_update = NodeSetUpdate(
        {"writes": SimpleConv(Linear(4 + 3, 2, dtype=np.float64), "sum", receiver_tag=SOURCE)},
        ResidualNextState(Linear(3 + 2 + 2, 3, dtype=np.float64)),
        context_input_feature=HIDDEN_STATE,
    )
    context_update = ContextUpdate(
        {"paper": Pool(CONTEXT, "mean")},
        NextStateFromConcat(Linear(2 + 5, 4, dtype=np.float64)),
    )
    model = GraphUpdate(
        edge_sets={"cites": edge_update},
        node_sets={"paper": paper_update, "author": author_update},
        context=context_update,
    )
    shapes = [w.shape for w in model.get_weights()]
    model.set_weights([_w(rng, *s) for s in shapes])
    return model, shapes


def test_graph_update_order_and_weights():
    graph = oracle.hetero_graph(16)
    snap = _snapshot(graph)
    model, shapes = _model()
    # Keras order: edge set updates, node set updates sorted (author, paper; inside paper
    # the inputs sorted: cites (no weights), writes), next state; then the context update
    assert shapes == [(10, 3), (3,), (7, 2), (2,), (7, 3), (3,), (7, 2), (2,), (9, 5), (5,),
                      (7, 4), (4,)]  # fmt: skip
    w = model.get_weights()
    out = model(graph)
    _assert_unchanged(graph, snap)

    paper, author = graph.node_sets["paper"], graph.node_sets["author"]
    cites, writes = graph.edge_sets["cites"], graph.edge_sets["writes"]
    cs, ct = np.asarray(cites.adjacency.source), np.asarray(cites.adjacency.target)
    ws, wt = np.asarray(writes.adjacency.source), np.asarray(writes.adjacency.target)
    xp, xa = paper["hidden_state"], author["hidden_state"]
    # edge sets first, from the old graph; inputs (edge, {SOURCE, TARGET}, context={})
    new_cites = np.concatenate([cites["hidden_state"], xp[cs], xp[ct]], 1) @ w[0] + w[1]
    # author: from writes at SOURCE (sender paper: the OLD paper state), residual
    conv_a = oracle.simple_conv(
        xp, xa, None, wt, ws, 4, lambda z: oracle.keras_dense(z, w[2], w[3]), "sum"
    )
    ctx_a = graph.context["hidden_state"][np.repeat(np.arange(3), author.sizes)]
    new_author = np.concatenate([xa, conv_a, ctx_a], 1) @ w[4] + w[5] + xa
    # paper: the new cites state pooled, writes conv from the old author state
    pooled = oracle.pool_loop(new_cites, ct, 6, "sum")
    conv_p = oracle.simple_conv(
        xa, xp, None, ws, wt, 6, lambda z: oracle.keras_dense(z, w[6], w[7], oracle.relu), "mean"
    )
    new_paper = np.tanh(np.concatenate([xp, pooled, conv_p], 1) @ w[8] + w[9])
    # context last, from the new paper state
    comp = np.repeat(np.arange(3), paper.sizes)
    mean_p = oracle.pool_loop(new_paper, comp, 3, "mean")
    new_ctx = np.concatenate([graph.context["hidden_state"], mean_p], 1) @ w[10] + w[11]

    np.testing.assert_allclose(out.edge_sets["cites"]["hidden_state"], new_cites, rtol=RTOL)
    np.testing.assert_allclose(out.node_sets["author"]["hidden_state"], new_author, rtol=RTOL)
    np.testing.assert_allclose(out.node_sets["paper"]["hidden_state"], new_paper, rtol=RTOL)
    np.testing.assert_allclose(out.context["hidden_state"], new_ctx, rtol=RTOL)
    # other features are kept and shared, untouched pieces are the same arrays
    assert out.node_sets["paper"]["year"] is paper["year"]
    assert out.edge_sets["writes"]["hidden_state"] is writes["hidden_state"]
    assert out.node_sets["venue"]["hidden_state"] is graph.node_sets["venue"]["hidden_state"]


def test_set_weights_copies_and_checks():
    model, shapes = _model()
    new = [np.full(s, float(i)) for i, s in enumerate(shapes)]
    model.set_weights(new)
    new[0][...] = -1.0  # the layer keeps its own copy
    assert (model.get_weights()[0] == 0.0).all()
    got = model.get_weights()
    got[1][...] = 7.0  # get_weights hands back copies
    assert (model.get_weights()[1] == 1.0).all()
    with pytest.raises(ValueError, match="expected 12 arrays"):
        model.set_weights(new[:-1])
    bad = list(new)
    bad[2] = np.zeros((8, 2))
    with pytest.raises(ValueError, match=r"weight 2 \(node_sets/author/edge_set_inputs/writes"):
        model.set_weights(bad)
    assert (model.get_weights()[0] == 0.0).all()  # nothing set after a failure
    assert load_keras_weights(Sequential(Linear(2, 3), "relu", LayerNorm(3)), [
        np.ones((2, 3)), np.ones(3), np.ones(3), np.zeros(3)]) is not None  # fmt: skip
    assert len(get_keras_weights(SingleInputNextState())) == 0


def test_deferred_init_and_vanilla_mpnn():
    graph = oracle.hetero_graph(17)
    model = VanillaMPNNGraphUpdate(
        units=4, message_dim=3, receiver_tag=TARGET, reduce_type="sum|mean",
        use_layer_normalization=True, dtype=np.float64,
    )  # fmt: skip
    with pytest.raises(ValueError, match="no weights before its first call"):
        model.get_weights()
    model(graph)
    shapes = [w.shape for w in model.get_weights()]
    # author <- reviews (no edges); paper <- cites, writes; each message Dense, then the
    # next-state Dense + LayerNormalization
    author = [(4 + 3, 3), (3,), (3 + 6, 4), (4,), (4,), (4,)]
    paper = [(4 + 4, 3), (3,), (3 + 4, 3), (3,), (4 + 12, 4), (4,), (4,), (4,)]
    assert shapes == author + paper
    rng = np.random.default_rng(18)
    w = [_w(rng, *s) for s in shapes]
    model.set_weights(w)
    out = model(graph)

    def layer_norm(x, g, b):
        mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-3) * g + b

    def msg(k, b):
        return lambda z: oracle.keras_dense(z, k, b, oracle.relu)

    xp, xa = graph.node_sets["paper"]["hidden_state"], graph.node_sets["author"]["hidden_state"]
    m = oracle.simple_conv(xp, xa, None, np.zeros(0, int), np.zeros(0, int), 4, msg(w[0], w[1]),
                           "sum|mean")  # fmt: skip
    want_a = layer_norm(oracle.keras_dense(np.concatenate([xa, m], 1), w[2], w[3], oracle.relu),
                        w[4], w[5])  # fmt: skip
    _, _, cs, ct = _ends(graph, "cites", TARGET)
    _, _, ws, wt = _ends(graph, "writes", TARGET)
    m1 = oracle.simple_conv(xp, xp, None, cs, ct, 6, msg(w[6], w[7]), "sum|mean")
    m2 = oracle.simple_conv(xa, xp, None, ws, wt, 6, msg(w[8], w[9]), "sum|mean")
    want_p = layer_norm(
        oracle.keras_dense(np.concatenate([xp, m1, m2], 1), w[10], w[11], oracle.relu),
        w[12], w[13],
    )  # fmt: skip
    np.testing.assert_allclose(out.node_sets["author"]["hidden_state"], want_a, rtol=1e-9)
    np.testing.assert_allclose(out.node_sets["paper"]["hidden_state"], want_p, rtol=1e-9)
    assert "venue" not in {k for k in model.node_sets}
    eager = VanillaMPNNGraphUpdate(units=4, message_dim=3, receiver_tag=TARGET,
                                   node_set_names=["paper"], graph_spec=graph.spec)  # fmt: skip
    assert sorted(eager.node_sets) == ["paper"] and len(eager.get_weights()) == 6
    with pytest.raises(ValueError, match=r"node sets \['venue'\] receive from no edge set"):
        VanillaMPNNGraphUpdate(units=4, message_dim=3, receiver_tag=TARGET,
                               node_set_names=["venue"], graph_spec=graph.spec)  # fmt: skip


def test_state_dict_and_astype():
    model, _ = _model()
    sd = model.state_dict()
    assert "node_sets.paper.edge_set_inputs.writes.message_fn.0.weight" in sd
    model.astype(np.float32)
    out = model(oracle.hetero_graph(19, dtype=np.float32))
    assert out.node_sets["paper"]["hidden_state"].dtype == np.float32


# ---- errors -----------------------------------------------------------------------------------


def test_errors_name_the_piece():
    graph = oracle.hetero_graph(20)
    conv = SimpleConv(Linear(8, 2), "sum", receiver_feature="missing")
    with pytest.raises(ValueError, match="node set 'paper' has no feature 'missing'"):
        conv(graph, edge_set_name="cites")
    with pytest.raises(ValueError, match="no edge set 'nope'"):
        SimpleConv(Linear(8, 2))(graph, edge_set_name="nope")
    with pytest.raises(ValueError, match="edge set 'cites' has no feature 'e'"):
        SimpleConv(Linear(8, 2), sender_edge_feature="e")(graph, edge_set_name="cites")
    with pytest.raises(ValueError, match="unknown reduce_type 'median'"):
        SimpleConv(Linear(8, 2), "sum|median")
    with pytest.raises(ValueError, match="contradictory receiver_tag"):
        SimpleConv(Linear(8, 2), receiver_tag=TARGET)(
            graph, edge_set_name="cites", receiver_tag=SOURCE
        )
    with pytest.raises(ValueError, match="requires receiver_tag to be set"):
        GATv2Conv(num_heads=1, per_head_channels=2, receiver_dim=4)(graph, edge_set_name="cites")
    with pytest.raises(ValueError, match="edge set 'writes'.*source and target node sets"):
        GCNConv(2, in_features=4)(graph, edge_set_name="writes")
    with pytest.raises(ValueError, match="edge weight feature 'hidden_state' must be rank 1"):
        GCNConv(2, in_features=4, edge_weight_feature_name="hidden_state")(
            graph, edge_set_name="cites"
        )
    with pytest.raises(ValueError, match="sender_edge_dim"):
        GATv2Conv(num_heads=1, per_head_channels=2, receiver_dim=4, sender_edge_feature="x")
    with pytest.raises(ValueError, match="no inputs"):  # the sender node input is ignored
        SimpleConv(Linear(2, 2), receiver_tag=CONTEXT, receiver_feature=None)(
            graph, edge_set_name="writes"
        )
    with pytest.raises(ValueError, match="'hidden_state' of node set 'paper' has 4 features"):
        GATv2Conv(num_heads=1, per_head_channels=2, receiver_dim=3, sender_node_dim=4,
                  receiver_tag=TARGET)(graph, edge_set_name="cites")  # fmt: skip
    update = NodeSetUpdate({"writes": Pool(SOURCE, "sum")}, SingleInputNextState())
    with pytest.raises(ValueError, match="edge set 'writes' joins .* not node set 'venue'"):
        update(graph, node_set_name="venue")
    with pytest.raises(ValueError, match="no node set 'nope'"):
        GraphUpdate(node_sets={"nope": update})(graph)
    with pytest.raises(ValueError, match="EdgeSetUpdate on edge set 'writes': node set 'author' "
                       "has no feature 'year'"):  # fmt: skip
        EdgeSetUpdate(SingleInputNextState(), node_input_feature="year")(
            graph, edge_set_name="writes"
        )
    with pytest.raises(TypeError, match="must be a layer"):
        GraphUpdate(node_sets={"paper": 3})
    with pytest.raises(ValueError, match="receiver_tag must be SOURCE"):
        GCNConv(2, in_features=3, receiver_tag=CONTEXT)


def test_edge_set_update_inputs_and_broadcast_layer():
    graph = oracle.hetero_graph(21)
    lin = Linear(2 + 3 + 4 + 2, 3, dtype=np.float64, rng=0)
    update = EdgeSetUpdate(
        NextStateFromConcat(lin),
        node_input_tags=(TARGET, SOURCE),
        context_input_feature="hidden_state",
    )
    es = graph.edge_sets["writes"]
    src, tgt = np.asarray(es.adjacency.source), np.asarray(es.adjacency.target)
    comp = np.repeat(np.arange(3), es.sizes)
    # tf.nest order: the edge state, {SOURCE: author, TARGET: paper} by sorted tag, context
    z = np.concatenate(
        [
            es["hidden_state"],
            graph.node_sets["author"]["hidden_state"][src],
            graph.node_sets["paper"]["hidden_state"][tgt],
            graph.context["hidden_state"][comp],
        ],
        axis=1,
    )
    np.testing.assert_allclose(update(graph, edge_set_name="writes"), lin(z), rtol=RTOL)
    out = GraphUpdate(edge_sets={"writes": update})(graph)
    assert out.edge_sets["writes"]["hidden_state"].shape == (5, 3)
    on_edges = Broadcast(SOURCE, edge_set_name="writes")(graph)
    np.testing.assert_array_equal(on_edges, graph.node_sets["author"]["hidden_state"][src])


def test_pool_and_broadcast_layers_take_arguments_at_init_or_call():
    """TF-GNN's BroadcastPoolBase: tag, set name(s), feature_name (and Pool's reduce_type)
    at init, at call, or both when they agree."""
    from arraygnn.graph_tensor import broadcast, pool

    graph = oracle.hetero_graph(23)
    want = pool(graph, TARGET, edge_set_name="cites", reduce_type="mean", feature_name=HIDDEN_STATE)
    for layer, kwargs in [
        (Pool(TARGET, "mean", edge_set_name="cites"), {}),
        (Pool(), dict(tag=TARGET, reduce_type="mean", edge_set_name="cites")),
        (Pool(TARGET), dict(reduce_type="mean", edge_set_name="cites", tag=TARGET)),
        (
            Pool(reduce_type="mean", feature_name=HIDDEN_STATE),
            dict(tag=TARGET, edge_set_name="cites"),
        ),
    ]:
        np.testing.assert_array_equal(layer(graph, **kwargs), want)
    got = Pool(CONTEXT, "sum", node_set_name="paper")(graph, feature_name="year")
    np.testing.assert_array_equal(
        got, pool(graph, CONTEXT, node_set_name="paper", feature_name="year")
    )
    both = Pool(CONTEXT, "sum", edge_set_name=["cites", "writes"])(graph)
    np.testing.assert_array_equal(
        both, pool(graph, CONTEXT, edge_set_name=["cites", "writes"], feature_name=HIDDEN_STATE)
    )
    with pytest.raises(ValueError, match="initialized with reduce_type='sum' but called"):
        Pool(TARGET, "sum")(graph, reduce_type="mean", edge_set_name="cites")
    with pytest.raises(ValueError, match="initialized with .*'cites'.* but called with"):
        Pool(TARGET, "sum", edge_set_name="cites")(graph, edge_set_name="writes")
    with pytest.raises(ValueError, match="needs reduce_type"):
        Pool(TARGET)(graph, edge_set_name="cites")
    with pytest.raises(ValueError, match="needs tag"):
        Pool(reduce_type="sum")(graph, edge_set_name="cites")
    with pytest.raises(ValueError, match="SOURCE or TARGET needs edge_set_name"):
        Pool(TARGET, "sum", node_set_name="paper")
    with pytest.raises(ValueError, match="at most one"):
        Broadcast(CONTEXT, node_set_name="paper", edge_set_name="cites")
    got = Broadcast()(graph, tag=CONTEXT, node_set_name=["paper", "author"])
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(
        got[1], broadcast(graph, CONTEXT, node_set_name="author", feature_name=HIDDEN_STATE)
    )
    with pytest.raises(ValueError, match="initialized with tag=0 but called with tag=1"):
        Broadcast(SOURCE)(graph, tag=TARGET, edge_set_name="cites")
    assert Pool(TARGET, "sum").get_weights() == [] and Broadcast(SOURCE).get_weights() == []


def test_batched_graph_is_refused():
    from arraygnn.graph_tensor import batch_graph_tensors

    graph = oracle.hetero_graph(22)
    batched = batch_graph_tensors([graph, graph])
    with pytest.raises(ValueError, match="scalar GraphTensor.*merge_batch_to_components"):
        GraphUpdate(node_sets={})(batched)
    with pytest.raises(ValueError, match="scalar GraphTensor"):
        SimpleConv(Linear(8, 2))(batched, edge_set_name="cites")


def test_keras_order_with_batch_norm():
    from arraygnn.nn import BatchNorm

    seq = Sequential(Linear(2, 3), "relu", BatchNorm(3), Linear(3, 1))
    names = ["k", "b", "gamma", "beta", "mean", "var", "k2", "b2"]
    shapes = [(2, 3), (3,), (3,), (3,), (3,), (3,), (3, 1), (1,)]
    # a Keras Sequential on its own: layer by layer
    assert [w.shape for w in get_keras_weights(seq)] == shapes
    values = [np.full(s, float(i)) for i, s in enumerate(shapes)]
    load_keras_weights(seq, values)
    assert (seq.steps[2].running_var == 5.0).all() and (seq.steps[3].bias == 7.0).all()
    # nested in a layer: all trainable weights first, then the moving statistics
    nested = NextStateFromConcat(seq)
    order = [names.index(n) for n in ["k", "b", "gamma", "beta", "k2", "b2", "mean", "var"]]
    got = nested.get_weights()
    for w, i in zip(got, order):
        np.testing.assert_array_equal(w, values[i])


def test_keras_order_shared_and_frozen_sub_layers():
    """Keras lists a shared sub-layer once (where it first appears) and a frozen one
    (``trainable = False``) after every trainable weight, sub-layer by sub-layer."""
    from arraygnn.nn import BatchNorm

    shared = Linear(4, 2, dtype=np.float64, rng=0)
    conv = SimpleConv(shared, "sum", sender_node_feature=None)
    update = NodeSetUpdate({"cites": conv, "writes": conv}, NextStateFromConcat(Linear(8, 3)))
    assert [w.shape for w in update.get_weights()] == [(4, 2), (2,), (8, 3), (3,)]
    load_keras_weights(
        update, [np.full(w.shape, 1.0 + i) for i, w in enumerate(update.get_weights())]
    )
    assert (shared.weight == 1.0).all() and (shared.bias == 2.0).all()

    from arraygnn.graph_tensor.layers._keras import _keras_order

    frozen = Sequential(Linear(2, 3), BatchNorm(3), Linear(3, 1))
    frozen.trainable = False
    nested = NextStateFromConcat(Sequential(Linear(5, 2), frozen, BatchNorm(1)))
    names = [s.name.replace("transformation/", "") for s in _keras_order(nested)]
    # trainable: Linear(5, 2), the last BatchNorm's gamma / beta; then the non-trainable ones
    # sub-layer by sub-layer: every weight of the frozen Sequential, the moving statistics
    assert names == [
        "0/kernel", "0/bias", "2/gamma", "2/beta",
        "1/0/kernel", "1/0/bias", "1/1/gamma", "1/1/beta", "1/1/moving_mean",
        "1/1/moving_variance", "1/2/kernel", "1/2/bias",
        "2/moving_mean", "2/moving_variance",
    ]  # fmt: skip
    assert len(nested.get_weights()) == 14
    frozen.trainable = True
    names = [s.name.replace("transformation/", "") for s in _keras_order(nested)]
    assert names == [
        "0/kernel", "0/bias", "1/0/kernel", "1/0/bias", "1/1/gamma", "1/1/beta", "1/2/kernel",
        "1/2/bias", "2/gamma", "2/beta", "1/1/moving_mean", "1/1/moving_variance",
        "2/moving_mean", "2/moving_variance",
    ]  # fmt: skip
