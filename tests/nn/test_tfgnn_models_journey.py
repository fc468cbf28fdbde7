"""A TF-GNN user's journey through ``tensorflow_gnn.models`` on arraygnn's GraphTensor
face (``arraygnn.graph_tensor.layers``).

Each model is checked against a NumPy transcription of TF-GNN's code (models/vanilla_mpnn,
gat_v2, gcn, graph_sage, multi_head_attention, mt_albis) with the same weights, set
through ``set_weights`` in Keras' ``get_weights()`` order, on a tiny heterogeneous graph:
node sets ``a`` and ``b`` (``b`` empty in component 1), edge sets ``aa`` (a -> a, with a
scalar weight ``w``) and ``ab`` (a -> b), a context and two components. Also the
arguments TF-GNN's signatures take. TensorFlow is not needed.
"""

from __future__ import annotations

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
    homogeneous,
)
from arraygnn.graph_tensor.layers import (
    GATv2Conv,
    GATv2HomGraphUpdate,
    GCNConv,
    GCNGraphSAGENodeSetUpdate,
    GCNHomGraphUpdate,
    GraphSAGEGraphUpdate,
    GraphUpdate,
    MtAlbisGraphUpdate,
    MtAlbisSimpleConv,
    MultiHeadAttentionConv,
    MultiHeadAttentionHomGraphUpdate,
    VanillaMPNNGraphUpdate,
)

TOL = {"rtol": 1e-4, "atol": 1e-5}


def _graph() -> GraphTensor:
    rng = np.random.default_rng(0)

    def f(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return GraphTensor.from_pieces(
        context=Context.from_fields(features={HIDDEN_STATE: f(2, 2)}),
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2, 2]), features={HIDDEN_STATE: f(4, 3)}),
            "b": NodeSet.from_fields(sizes=np.array([3, 0]), features={HIDDEN_STATE: f(3, 2)}),
        },
        edge_sets={
            "aa": EdgeSet.from_fields(
                sizes=np.array([3, 1]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([0, 1, 1, 2])), target=("a", np.array([1, 0, 1, 3]))
                ),
                features={HIDDEN_STATE: f(4, 2), "w": np.abs(f(4))},
            ),
            "ab": EdgeSet.from_fields(
                sizes=np.array([3, 0]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([0, 0, 1])), target=("b", np.array([0, 2, 2]))
                ),
                features={HIDDEN_STATE: f(3, 2)},
            ),
        },
    )


def _parts(g):
    a, b = g.node_sets["a"][HIDDEN_STATE], g.node_sets["b"][HIDDEN_STATE]
    aa, ab = g.edge_sets["aa"], g.edge_sets["ab"]
    return a, b, aa, ab


# -- NumPy transcriptions of TF-GNN's maths -------------------------------------------


def _pool(values, index, n, reduce_type="sum"):
    outs = []
    for part in reduce_type.split("|"):
        out = np.zeros((n,) + values.shape[1:])
        for i in range(n):
            rows = values[index == i].astype(np.float64)
            if len(rows):
                out[i] = {"sum": rows.sum, "mean": rows.mean, "max_no_inf": rows.max}[part](0)
        outs.append(out)
    return np.concatenate(outs, -1)


def _softmax(logits, index, n):
    out = np.zeros_like(logits)
    for i in range(n):
        m = index == i
        if m.any():
            e = np.exp(logits[m] - logits[m].max(0))
            out[m] = e / e.sum(0)
    return out


def _act(x, name):
    if name == "relu":
        return np.maximum(x, 0)
    if name == "leaky_relu":  # Keras' alpha 0.2
        return np.where(x > 0, x, 0.2 * x)
    if name == "elu":
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))
    return x


def _dense(x, kernel, bias=None, activation=None):
    return _act(x.astype(np.float64) @ kernel + (0 if bias is None else bias), activation)


def _layer_norm(x, gamma, beta, eps=1e-3):  # Keras' epsilon
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * gamma + beta


def _random_weights(layer, seed=1):
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(w.shape) for w in layer.get_weights()]
    layer.set_weights(weights)
    return iter(weights)


# -- vanilla_mpnn ----------------------------------------------------------------------


def test_vanilla_mpnn_graph_update_like_tfgnn():
    g = _graph()
    a, b, aa, ab = _parts(g)
    s_aa, t_aa = aa.adjacency.source, aa.adjacency.target
    s_ab, t_ab = ab.adjacency.source, ab.adjacency.target
    rt = "sum|max_no_inf"
    update = VanillaMPNNGraphUpdate(
        units=3,
        message_dim=4,
        receiver_tag=TARGET,
        edge_feature=HIDDEN_STATE,
        reduce_type=rt,
        use_layer_normalization=True,
    )
    update(g)  # sized on the first call, as Keras builds
    w = _random_weights(update)
    out = update(g)
    # SimpleConv's order: edge feature, sender, receiver; node sets sorted
    m = _pool(
        _dense(np.concatenate([aa[HIDDEN_STATE], a[s_aa], a[t_aa]], -1), next(w), next(w), "relu"),
        t_aa,
        4,
        rt,
    )
    a2 = _layer_norm(_dense(np.concatenate([a, m], -1), next(w), next(w), "relu"), next(w), next(w))
    m = _pool(
        _dense(np.concatenate([ab[HIDDEN_STATE], a[s_ab], b[t_ab]], -1), next(w), next(w), "relu"),
        t_ab,
        3,
        rt,
    )
    b2 = _layer_norm(_dense(np.concatenate([b, m], -1), next(w), next(w), "relu"), next(w), next(w))
    np.testing.assert_allclose(out.node_sets["a"][HIDDEN_STATE], a2, **TOL)
    np.testing.assert_allclose(out.node_sets["b"][HIDDEN_STATE], b2, **TOL)
    with pytest.raises(ValueError, match="receive from no edge set"):
        VanillaMPNNGraphUpdate(units=3, message_dim=4, receiver_tag=SOURCE, node_set_names=["b"])(g)
    with pytest.raises(ValueError, match="aux node set"):
        VanillaMPNNGraphUpdate(
            units=3, message_dim=4, receiver_tag=TARGET, node_set_names=["_readout"]
        )


# -- gat_v2 ----------------------------------------------------------------------------


def _gat_v2(w, heads, channels, receiver, sender, edge, index, n, attention_act, merge, use_bias):
    q = _dense(receiver, next(w), next(w) if use_bias else None).reshape(-1, heads, channels)[index]
    value = 0
    if sender is not None:
        value = value + _dense(sender, next(w), next(w) if use_bias else None)
    if edge is not None:  # value_edge has a bias only without a sender node input
        value = value + _dense(edge, next(w), next(w) if use_bias and sender is None else None)
    value = value.reshape(-1, heads, channels)
    logits = np.einsum("eik,ki->ei", _act(q + value, attention_act), next(w))[..., None]
    pooled = _pool((value * _softmax(logits, index, n)).reshape(len(index), -1), index, n)
    pooled = pooled.reshape(n, heads, channels)
    return _act(pooled.reshape(n, -1) if merge == "concat" else pooled.mean(1), "relu")


def test_gat_v2_conv_heads_edge_inputs_and_context_like_tfgnn():
    g = _graph()
    a, b, _, ab = _parts(g)
    src, tgt = ab.adjacency.source, ab.adjacency.target
    e = ab[HIDDEN_STATE]
    for tag, merge, attention_act, use_bias in (
        (TARGET, "concat", "leaky_relu", True),
        (SOURCE, "mean", "relu", False),
    ):
        rdim, sdim = (2, 3) if tag == TARGET else (3, 2)
        conv = GATv2Conv(
            num_heads=2,
            per_head_channels=3,
            receiver_tag=tag,
            sender_edge_feature=HIDDEN_STATE,
            heads_merge_type=merge,
            attention_activation=attention_act,
            use_bias=use_bias,
            receiver_dim=rdim,
            sender_node_dim=sdim,
            sender_edge_dim=2,
        )
        w = _random_weights(conv)
        if tag == TARGET:
            ref = _gat_v2(w, 2, 3, b, a[src], e, tgt, 3, attention_act, merge, use_bias)
        else:
            ref = _gat_v2(w, 2, 3, a, b[tgt], e, src, 4, attention_act, merge, use_bias)
        np.testing.assert_allclose(conv(g, edge_set_name="ab"), ref, **TOL)
    # CONTEXT receiver over node set b (empty in component 1): 0 there
    conv = GATv2Conv(
        num_heads=2, per_head_channels=2, receiver_tag=CONTEXT, receiver_dim=2, sender_node_dim=2
    )
    w = _random_weights(conv)
    ref = _gat_v2(
        w, 2, 2, g.context[HIDDEN_STATE], b, None, np.zeros(3, int), 2, "leaky_relu", "concat", True
    )
    np.testing.assert_allclose(conv(g, node_set_name="b"), ref, **TOL)
    with pytest.raises(ValueError, match="receiver_feature cannot be None"):
        GATv2Conv(num_heads=1, per_head_channels=2, receiver_feature=None, receiver_dim=2)
    with pytest.raises(ValueError, match="receiver_tag to be set at init or call time"):
        GATv2Conv(num_heads=1, per_head_channels=2, receiver_dim=2, sender_node_dim=3)(
            g, edge_set_name="ab"
        )


# -- gcn -------------------------------------------------------------------------------


def _gcn(kernel, bias, x, sender, receiver, n, norm, loops, weights):
    weights = np.ones(len(sender)) if weights is None else weights.astype(np.float64)

    def degree(index):
        d = _pool(weights[:, None], index, n)
        return d + 1 if loops else np.maximum(d, 1)

    s_scale = r_scale = None
    if norm == "in":
        r_scale = 1 / degree(receiver)
    elif norm == "out":
        s_scale = 1 / degree(sender)
    elif norm == "in_out":
        s_scale, r_scale = degree(sender) ** -0.5, degree(receiver) ** -0.5
    elif norm == "in_in":  # TF-GNN scales senders by their degree as receivers
        s_scale = r_scale = degree(receiver) ** -0.5
    values = x if s_scale is None else s_scale * x
    pooled = _pool(values[sender] * weights[:, None], receiver, n)
    if r_scale is not None:
        pooled = r_scale * pooled
    if loops:
        pooled = pooled + (values if r_scale is None else r_scale * values)
    return _dense(pooled, kernel, bias, "relu")


def test_gcn_conv_normalizations_self_loops_and_edge_weights_like_tfgnn():
    g = _graph()
    a, _, aa, _ = _parts(g)
    src, tgt = aa.adjacency.source, aa.adjacency.target
    for norm in ("none", "in", "out", "in_out", "in_in"):
        for loops, weight_name, tag in (
            (False, None, TARGET),
            (True, "w", SOURCE),
            (True, None, TARGET),
        ):
            conv = GCNConv(
                2,
                receiver_tag=tag,
                add_self_loops=loops,
                degree_normalization=norm,
                edge_weight_feature_name=weight_name,
                in_features=3,
            )
            w = _random_weights(conv)
            sender, receiver = (src, tgt) if tag == TARGET else (tgt, src)
            weights = None if weight_name is None else aa["w"]
            ref = _gcn(next(w), next(w), a, sender, receiver, 4, norm, loops, weights)
            np.testing.assert_allclose(conv(g, edge_set_name="aa"), ref, **TOL)
    assert GCNConv(2, in_features=3, normalize=True).degree_normalization == "in_in"
    with pytest.raises(ValueError, match="source and target node sets must be the same"):
        GCNConv(2, in_features=3)(g, edge_set_name="ab")
    with pytest.raises(ValueError, match="must be rank 1"):
        GCNConv(2, in_features=3, edge_weight_feature_name=HIDDEN_STATE)(g, edge_set_name="aa")


# -- graph_sage ------------------------------------------------------------------------


def _l2_normalize(x):
    return x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-12))


def test_graph_sage_graph_update_pooling_and_mean_like_tfgnn():
    g = _graph()
    a, b, aa, ab = _parts(g)
    for use_pooling, combine in ((True, "sum"), (False, "concat")):
        update = GraphSAGEGraphUpdate(
            units=3,
            hidden_units=5 if use_pooling else None,
            use_pooling=use_pooling,
            receiver_tag=TARGET,
            reduce_type="max_no_inf" if use_pooling else "mean",
            combine_type=combine,
        )
        update(g)
        w = _random_weights(update)

        def conv(edges, n, w=w, use_pooling=use_pooling):
            x = a[edges.adjacency.source]
            if use_pooling:  # hidden Dense(relu), pooled, then a kernel without bias
                hidden = _dense(x, next(w), next(w), "relu")
                return _pool(hidden, edges.adjacency.target, n, "max_no_inf") @ next(w)
            return _pool(x, edges.adjacency.target, n, "mean") @ next(w)

        def next_state(x, pooled, w=w, combine=combine):
            bias, kernel = next(w), next(w)  # the layer's own bias comes first
            parts = [x @ kernel, pooled]
            combined = sum(parts) if combine == "sum" else np.concatenate(parts, -1)
            return _l2_normalize(np.maximum(combined + bias, 0))

        a2 = next_state(a, conv(aa, 4))
        b2 = next_state(b, conv(ab, 3))
        out = update(g)
        np.testing.assert_allclose(out.node_sets["a"][HIDDEN_STATE], a2, **TOL)
        np.testing.assert_allclose(out.node_sets["b"][HIDDEN_STATE], b2, **TOL)
    with pytest.raises(ValueError, match="configure them together"):
        GraphSAGEGraphUpdate(units=3, receiver_tag=TARGET)


def test_gcn_graph_sage_node_set_update_like_tfgnn():
    g = _graph()
    a, b, aa, ab = _parts(g)
    for reduce_type, loop in (("mean", True), ("sum", False)):
        update = GraphUpdate(
            node_sets={
                "a": GCNGraphSAGENodeSetUpdate(
                    edge_set_names=["ab", "aa"],
                    receiver_tag=SOURCE,
                    units=3,
                    in_features=3,
                    sender_node_dims={"aa": 3, "ab": 2},
                    use_bias=True,
                    reduce_type=reduce_type,
                    add_self_loop=loop,
                )
            }
        )
        w = _random_weights(update)
        bias, k_aa, k_ab = next(w), next(w), next(w)  # bias, edge sets sorted, self
        values = [(a @ k_aa)[aa.adjacency.target], (b @ k_ab)[ab.adjacency.target]]
        index = [aa.adjacency.source, ab.adjacency.source]
        if loop:
            values.append(a @ next(w))
            index.append(np.arange(4))
        pooled = _pool(np.concatenate(values), np.concatenate(index), 4, reduce_type)
        np.testing.assert_allclose(
            update(g).node_sets["a"][HIDDEN_STATE], np.maximum(pooled + bias, 0), **TOL
        )


# -- multi_head_attention --------------------------------------------------------------


def test_multi_head_attention_conv_with_edge_keys_like_tfgnn():
    g = _graph()
    a, b, _, ab = _parts(g)
    src, tgt = ab.adjacency.source, ab.adjacency.target
    e = ab[HIDDEN_STATE]
    heads, channels = 2, 3
    conv = MultiHeadAttentionConv(
        num_heads=heads,
        per_head_channels=channels,
        receiver_tag=TARGET,
        sender_edge_feature=HIDDEN_STATE,
        receiver_dim=2,
        sender_node_dim=3,
        sender_edge_dim=2,
    )
    w = _random_weights(conv)
    # key_node (kernel, bias), key_edge (kernel), value_node, value_edge, then query
    keys = _dense(a, next(w), next(w))[src] + _dense(e, next(w))
    values = _dense(a, next(w), next(w))[src] + _dense(e, next(w))
    queries = _dense(b, next(w), next(w)).reshape(-1, heads, channels)[tgt]
    scores = np.einsum("ehc,ehc->eh", queries, keys.reshape(-1, heads, channels))[..., None]
    coef = _softmax(scores / np.sqrt(channels), tgt, 3)  # score_scaling="rsqrt_dim"
    pooled = _pool((values.reshape(-1, heads, channels) * coef).reshape(3, -1), tgt, 3)
    np.testing.assert_allclose(conv(g, edge_set_name="ab"), np.maximum(pooled, 0), **TOL)


# -- mt_albis --------------------------------------------------------------------------


def test_mt_albis_graph_update_defaults_like_tfgnn():
    g = _graph()
    a, b, aa, ab = _parts(g)
    update = MtAlbisGraphUpdate(units=4, message_dim=3, receiver_tag=TARGET)
    update(g)
    w = _random_weights(update)

    def node_update(x, edges, sender, n):  # SimpleConv(Dense(relu), "mean"), dense + layer norm
        s, t = edges.adjacency.source, edges.adjacency.target
        m = _pool(
            _dense(np.concatenate([sender[s], x[t]], -1), next(w), next(w), "relu"), t, n, "mean"
        )
        h = _dense(np.concatenate([x, m], -1), next(w), next(w), "relu")
        return _layer_norm(h, next(w), next(w))

    a2, b2 = node_update(a, aa, a, 4), node_update(b, ab, a, 3)
    out = update(g)
    np.testing.assert_allclose(out.node_sets["a"][HIDDEN_STATE], a2, **TOL)
    np.testing.assert_allclose(out.node_sets["b"][HIDDEN_STATE], b2, **TOL)


# -- arguments TF-GNN's signatures take ------------------------------------------------


def test_gat_v2_and_gcn_conv_take_kernel_initializer_and_regularizer():
    """TF-GNN's GATv2Conv and GCNConv take kernel_initializer= / kernel_regularizer=
    (training only: accepted and ignored, as MultiHeadAttentionConv's)."""
    gat = GATv2Conv(
        num_heads=1,
        per_head_channels=2,
        receiver_tag=TARGET,
        receiver_dim=3,
        kernel_initializer="glorot_uniform",
        kernel_regularizer=None,
    )
    assert [w.shape for w in gat.get_weights()] == [(3, 2), (2,), (3, 2), (2,), (2, 1)]
    gcn = GCNConv(2, in_features=3, kernel_initializer="glorot_uniform", kernel_regularizer=None)
    assert [w.shape for w in gcn.get_weights()] == [(3, 2), (2,)]


def test_homogeneous_builders_take_name_and_conv_kwargs_like_tfgnn():
    """TF-GNN's *HomGraphUpdate builders have ``name=`` (the GraphUpdate's Keras name)
    and pass other kwargs, e.g. ``kernel_initializer=``, to their convolution."""
    g = homogeneous(
        np.array([0, 1, 2]), np.array([1, 2, 0]), node_features=np.ones((3, 4), np.float32)
    )
    for update in (
        GATv2HomGraphUpdate(num_heads=2, per_head_channels=2, receiver_tag=TARGET, name="gat"),
        GATv2HomGraphUpdate(
            num_heads=2, per_head_channels=2, receiver_tag=TARGET, kernel_initializer="he_normal"
        ),
        GCNHomGraphUpdate(units=4, name="gcn", kernel_initializer="he_normal"),
        MultiHeadAttentionHomGraphUpdate(
            num_heads=2, per_head_channels=2, receiver_tag=TARGET, name="mha"
        ),
    ):
        assert update(g).node_sets["nodes"][HIDDEN_STATE].shape == (3, 4)
    conv = MtAlbisSimpleConv(3, receiver_tag=TARGET, in_features=8, name="conv")
    assert conv(g, edge_set_name="edges").shape == (3, 3)
