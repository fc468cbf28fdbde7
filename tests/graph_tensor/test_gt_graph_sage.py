"""TF-GNN's ``graph_sage`` (``GraphSAGEAggregatorConv``, ``GraphSAGEPoolingConv``,
``GraphSAGENextState``, ``GraphSAGEGraphUpdate``, ``GCNGraphSAGENodeSetUpdate``) against
plain NumPy transcriptions of TF-GNN's formulas (per-edge loops, weights read in Keras'
``get_weights()`` order) on random heterogeneous GraphTensors; weights; errors naming the
layer and argument. No TensorFlow needed (the cross-check against the real TF-GNN is
``test_gt_layers_tfgnn_graph_sage.py``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    HIDDEN_STATE,
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor import layers as ag
from tests.graph_tensor import _tfgnn_oracle as oracle

TOL = {np.float64: dict(rtol=1e-9, atol=1e-10), np.float32: dict(rtol=2e-5, atol=2e-5)}
WIDTHS = {"a": 3, "b": 4, "iso": 2}


def random_graph(seed: int, dtype=np.float64, index_dtype=np.int64) -> GraphTensor:
    """Three components of random sizes; node sets ``a`` (none in component 1), ``b``,
    ``iso`` (no edge set touches it); edge sets ``ab`` (a -> b), ``bb`` (b -> b, with loops
    and multi-edges), ``ba`` (b -> a) and ``empty`` (a -> b, no edges). ``b`` receives from
    ``ab``, ``bb`` and ``empty``; some nodes of every set receive nothing."""
    rng = np.random.default_rng(seed)
    sizes = {
        "a": np.array([rng.integers(1, 4), 0, rng.integers(1, 4)]),
        "b": rng.integers(1, 5, 3),
        "iso": rng.integers(0, 3, 3),
    }
    offsets = {k: np.concatenate([[0], np.cumsum(v)[:-1]]) for k, v in sizes.items()}

    def edges(src: str, dst: str, most: int):
        s, t, per = [], [], []
        for c in range(3):
            ns, nt = sizes[src][c], sizes[dst][c]
            k = int(rng.integers(0, most + 1)) if ns and nt else 0
            s.append(offsets[src][c] + rng.integers(0, max(ns, 1), k))
            t.append(offsets[dst][c] + rng.integers(0, max(nt, 1), k))
            per.append(k)
        s, t = np.concatenate(s).astype(index_dtype), np.concatenate(t).astype(index_dtype)
        adjacency = Adjacency.from_indices((src, s), (dst, t))
        return EdgeSet.from_fields(sizes=np.array(per), adjacency=adjacency)

    def f(*shape):
        return rng.standard_normal(shape).astype(dtype)

    node_sets = {
        k: NodeSet.from_fields(
            sizes=v, features={HIDDEN_STATE: f(v.sum(), WIDTHS[k]), "h2": f(v.sum(), 2)}
        )
        for k, v in sizes.items()
    }
    edge_sets = {
        "ab": edges("a", "b", 5),
        "bb": edges("b", "b", 8),
        "ba": edges("b", "a", 4),
        "empty": edges("a", "b", 0),
    }
    return GraphTensor.from_pieces(node_sets=node_sets, edge_sets=edge_sets)


def _ends(graph, edge_set_name, receiver_tag):
    adj = graph.edge_sets[edge_set_name].adjacency
    sender_tag = SOURCE if receiver_tag == TARGET else TARGET
    return (
        adj.node_set_name(sender_tag),
        adj.node_set_name(receiver_tag),
        np.asarray(adj[sender_tag]),
        np.asarray(adj[receiver_tag]),
    )


def _random_weights(layer, seed):
    rng = np.random.default_rng(seed)
    return [0.5 * rng.standard_normal(w.shape) for w in layer.get_weights()]


def _close(got, want, dtype=np.float64):
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, **TOL[dtype])


# ---- the oracle: TF-GNN's formulas, edge by edge -----------------------------------------------


def _pool(values, receivers, n, reduce_type):
    return oracle.pool_loop(values, receivers, n, reduce_type)


def ref_aggregator(weights, x_snd, snd_idx, rcv_idx, n, reduce_type):
    (kernel,) = weights
    on_edges = np.stack([x_snd[i] for i in snd_idx]) if len(snd_idx) else x_snd[:0]
    return oracle.keras_dense(_pool(on_edges, rcv_idx, n, reduce_type), kernel)


def ref_pooling(weights, x_snd, snd_idx, rcv_idx, n, reduce_type, use_bias=True, act=oracle.relu):
    w = list(weights)
    k1 = w.pop(0)
    b1 = w.pop(0) if use_bias else None
    (k2,) = w
    hidden = [oracle.keras_dense(x_snd[i], k1, b1, act) for i in snd_idx]  # per edge
    hidden = np.stack(hidden) if hidden else np.zeros((0, k1.shape[1]), x_snd.dtype)
    return oracle.keras_dense(_pool(hidden, rcv_idx, n, reduce_type), k2)


def _l2(x):
    return x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-12))


def ref_next_state(weights, state, edge_inputs, combine="sum", use_bias=True, act=oracle.relu,
                   l2=True):  # fmt: skip
    w = list(weights)
    bias = w.pop(0) if use_bias else None
    (kernel,) = w
    parts = [state @ kernel] + [edge_inputs[k] for k in sorted(edge_inputs)]
    out = np.concatenate(parts, axis=1) if combine == "concat" else sum(parts)
    if bias is not None:
        out = out + bias
    out = act(out) if act is not None else out
    return _l2(out) if l2 else out


def ref_gcn_sage(weights, graph, node_set_name, edge_set_names, tag, *, reduce_type="mean",
                 use_bias=False, share=False, self_loop=True, act=oracle.relu):  # fmt: skip
    w = list(weights)
    bias = w.pop(0) if use_bias else None
    kernels = {} if share else {k: w.pop(0) for k in sorted(edge_set_names)}
    node_kernel = w.pop(0) if (self_loop or share) else None
    assert not w
    x = graph.node_sets[node_set_name][HIDDEN_STATE]
    n = x.shape[0]
    total = np.zeros((n, (node_kernel if share else next(iter(kernels.values()))).shape[1]))
    count = np.zeros(n)
    for name in edge_set_names:
        snd, _, s_idx, r_idx = _ends(graph, name, tag)
        kernel = node_kernel if share else kernels[name]
        xs = graph.node_sets[snd][HIDDEN_STATE]
        for s, r in zip(s_idx, r_idx):
            total[r] += xs[s] @ kernel
            count[r] += 1
    if self_loop:
        total += x @ node_kernel
        count += 1
    if reduce_type == "mean":
        total = np.where(count[:, None] > 0, total / np.maximum(count, 1)[:, None], 0)
    if bias is not None:
        total = total + bias
    return act(total) if act is not None else total


# ---- the convolutions --------------------------------------------------------------------------

SEEDS = [0, 1, 2]
REDUCE_TYPES = ["mean", "sum", "max_no_inf", "min_no_inf", "sum|mean", "mean|max_no_inf"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("reduce_type", REDUCE_TYPES)
@pytest.mark.parametrize("units", [2, 6])  # below the width: the Dense runs before pooling
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_aggregator_conv(seed, reduce_type, units, receiver_tag):
    g = random_graph(seed)
    for es_name in g.edge_sets:
        snd, rcv, s_idx, r_idx = _ends(g, es_name, receiver_tag)
        conv = ag.GraphSAGEAggregatorConv(
            receiver_tag=receiver_tag,
            reduce_type=reduce_type,
            units=units,
            sender_node_dim=WIDTHS[snd],
            dtype=np.float64,
        )
        weights = _random_weights(conv, seed)
        conv.set_weights(weights)
        want = ref_aggregator(
            weights, g.node_sets[snd][HIDDEN_STATE], s_idx, r_idx, g.node_sets[rcv].total_size,
            reduce_type,
        )  # fmt: skip
        _close(conv(g, edge_set_name=es_name), want)


POOLING_CONFIGS = [
    dict(),
    dict(reduce_type="mean", use_bias=False),
    dict(reduce_type="sum|max_no_inf", activation="tanh"),
    dict(reduce_type="min_no_inf", activation=None),
    dict(reduce_type="sum", hidden_units=1, units=1),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kwargs", POOLING_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_pooling_conv(seed, kwargs, receiver_tag):
    g = random_graph(seed)
    kwargs = dict(dict(units=3, hidden_units=5), **kwargs)
    act = {"tanh": np.tanh, None: None}.get(kwargs.get("activation", "relu"), oracle.relu)
    for es_name in g.edge_sets:
        snd, rcv, s_idx, r_idx = _ends(g, es_name, receiver_tag)
        conv = ag.GraphSAGEPoolingConv(
            receiver_tag=receiver_tag, sender_node_dim=WIDTHS[snd], dtype=np.float64, **kwargs
        )
        weights = _random_weights(conv, seed + 10)
        conv.set_weights(weights)
        want = ref_pooling(
            weights, g.node_sets[snd][HIDDEN_STATE], s_idx, r_idx, g.node_sets[rcv].total_size,
            kwargs.get("reduce_type", "max_no_inf"), kwargs.get("use_bias", True), act,
        )  # fmt: skip
        _close(conv(g, edge_set_name=es_name), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_convs_dtypes_and_index_dtypes(dtype, index_dtype):
    g = random_graph(5, dtype, index_dtype)
    snd, rcv, s_idx, r_idx = _ends(g, "bb", TARGET)
    x = g.node_sets[snd][HIDDEN_STATE]
    n = g.node_sets[rcv].total_size
    agg = ag.GraphSAGEAggregatorConv(
        receiver_tag=TARGET, units=3, sender_node_dim=4, dtype=dtype, rng=0
    )
    pool = ag.GraphSAGEPoolingConv(
        receiver_tag=TARGET, units=3, hidden_units=2, sender_node_dim=4, dtype=dtype, rng=1
    )
    for conv, ref in ((agg, ref_aggregator), (pool, ref_pooling)):
        out = conv(g, edge_set_name="bb")
        assert out.dtype == dtype
        want = ref([w.astype(np.float64) for w in conv.get_weights()], x.astype(np.float64),
                   s_idx, r_idx, n, conv.reduce_type)  # fmt: skip
        _close(out, want, dtype)


def test_convs_half_precision_compute_in_float32():
    g = random_graph(6, np.float16)
    conv = ag.GraphSAGEPoolingConv(
        receiver_tag=TARGET, units=3, hidden_units=2, sender_node_dim=4, rng=0
    )
    out = conv(g, edge_set_name="bb")
    assert out.dtype == np.float32
    g32 = random_graph(6, np.float16)
    g32 = g32.replace_features(
        node_sets={k: {HIDDEN_STATE: v[HIDDEN_STATE].astype(np.float32)}
                   for k, v in g32.node_sets.items()}
    )  # fmt: skip
    _close(out, conv(g32, edge_set_name="bb"), np.float32)


@pytest.mark.parametrize("seed", SEEDS)
def test_convs_to_context(seed):
    """receiver_tag=CONTEXT pools each component's nodes (component 1 has no ``a`` nodes)."""
    g = random_graph(seed)
    for ns_name, dim in WIDTHS.items():
        ns = g.node_sets[ns_name]
        comp = np.repeat(np.arange(3), np.asarray(ns.sizes))
        x = ns[HIDDEN_STATE]
        items = np.arange(ns.total_size)
        agg = ag.GraphSAGEAggregatorConv(
            receiver_tag=CONTEXT, units=2, reduce_type="sum|max_no_inf", sender_node_dim=dim,
            dtype=np.float64, rng=seed,
        )  # fmt: skip
        want = ref_aggregator(agg.get_weights(), x, items, comp, 3, "sum|max_no_inf")
        _close(agg(g, node_set_name=ns_name), want)
        pool = ag.GraphSAGEPoolingConv(
            receiver_tag=CONTEXT, units=2, hidden_units=3, reduce_type="mean",
            sender_node_dim=dim, dtype=np.float64, rng=seed,
        )  # fmt: skip
        want = ref_pooling(pool.get_weights(), x, items, comp, 3, "mean")
        _close(pool(g, node_set_name=ns_name), want)


def test_receiver_tag_at_call():
    g = random_graph(3)
    conv = ag.GraphSAGEAggregatorConv(
        receiver_tag=None, units=2, reduce_type="sum", sender_node_dim=4, dtype=np.float64, rng=0
    )
    for tag in (SOURCE, TARGET):
        _, rcv, s_idx, r_idx = _ends(g, "bb", tag)
        want = ref_aggregator(conv.get_weights(), g.node_sets["b"][HIDDEN_STATE], s_idx, r_idx,
                              g.node_sets[rcv].total_size, "sum")  # fmt: skip
        _close(conv(g, edge_set_name="bb", receiver_tag=tag), want)
    with pytest.raises(ValueError, match="receiver_tag"):
        conv(g, edge_set_name="bb")
    fixed = ag.GraphSAGEAggregatorConv(receiver_tag=TARGET, units=2, sender_node_dim=4)
    with pytest.raises(ValueError, match="contradictory receiver_tag"):
        fixed(g, edge_set_name="bb", receiver_tag=SOURCE)


# ---- the next state ----------------------------------------------------------------------------

NEXT_STATE_CONFIGS = [
    dict(),
    dict(combine_type="concat"),
    dict(combine_type="concat", use_bias=False, l2_normalize=False),
    dict(use_bias=False, activation="tanh"),
    dict(l2_normalize=False, activation=None),
    dict(feature_name="h"),
]


@pytest.mark.parametrize("kwargs", NEXT_STATE_CONFIGS)
@pytest.mark.parametrize("num_inputs", [0, 1, 3])
def test_next_state(kwargs, num_inputs):
    rng = np.random.default_rng(num_inputs)
    x = lambda w: rng.standard_normal((6, w))  # noqa: E731
    state = x(5)
    state[2] = 0  # with no input either, the row stays 0 through l2_normalize
    edges = {name: x(3) for name in ["c", "a", "b"][:num_inputs]}
    for v in edges.values():
        v[2] = 0
    nxt = ag.GraphSAGENextState(
        units=3, **kwargs, in_features=5, edge_input_dims=[3] * num_inputs, dtype=np.float64
    )
    weights = _random_weights(nxt, 1)
    if kwargs.get("use_bias", True):
        weights[0][:] = -np.abs(weights[0]) - 10  # relu of row 2 is 0 everywhere
    nxt.set_weights(weights)
    act = {"tanh": np.tanh, None: None}.get(kwargs.get("activation", "relu"), oracle.relu)
    want = ref_next_state(
        weights, state, edges, kwargs.get("combine_type", "sum"), kwargs.get("use_bias", True),
        act, kwargs.get("l2_normalize", True),
    )  # fmt: skip
    got = nxt((state, edges, {}))
    name = kwargs.get("feature_name", HIDDEN_STATE)
    assert list(got) == [name]
    _close(got[name], want)
    assert np.all(np.isfinite(got[name]))
    if kwargs.get("l2_normalize", True):
        norms = np.linalg.norm(got[name], axis=1)
        assert np.allclose(norms[norms > 0], 1)


# ---- GraphSAGEGraphUpdate ----------------------------------------------------------------------


def ref_update(update, graph, receiver_tag, cfg):
    """The updated node sets from the update's get_weights() list, read in Keras' order:
    per node set (sorted) its convolutions (sorted by edge set), then the next state."""
    weights = list(update.get_weights())
    feature_name = cfg.get("feature_name", HIDDEN_STATE)
    pooling = cfg.get("hidden_units") is not None
    use_bias = cfg.get("use_bias", True)
    act = {"tanh": np.tanh, None: None}.get(cfg.get("activation", "relu"), oracle.relu)
    wanted = cfg.get("node_set_names")
    receivers = {}
    for es_name in graph.edge_sets:
        snd, rcv, s_idx, r_idx = _ends(graph, es_name, receiver_tag)
        if wanted is None or rcv in wanted:
            receivers.setdefault(rcv, []).append(es_name)
    out = {}
    for rcv in sorted(receivers):
        n = graph.node_sets[rcv].total_size
        inputs = {}
        for es_name in sorted(receivers[rcv]):
            snd, _, s_idx, r_idx = _ends(graph, es_name, receiver_tag)
            x = graph.node_sets[snd][feature_name]
            reduce_type = cfg.get("reduce_type", "mean")
            if pooling:
                k = 3 if use_bias else 2
                w, weights = weights[:k], weights[k:]
                inputs[es_name] = ref_pooling(w, x, s_idx, r_idx, n, reduce_type, use_bias)
            else:
                w, weights = weights[:1], weights[1:]
                inputs[es_name] = ref_aggregator(w, x, s_idx, r_idx, n, reduce_type)
        k = 2 if use_bias else 1
        w, weights = weights[:k], weights[k:]
        out[rcv] = ref_next_state(
            w, graph.node_sets[rcv][feature_name], inputs, cfg.get("combine_type", "sum"),
            use_bias, act, cfg.get("l2_normalize", True),
        )  # fmt: skip
    assert not weights
    return out


UPDATE_CONFIGS = [
    dict(hidden_units=6),
    dict(use_pooling=False),
    dict(use_pooling=False, reduce_type="sum|max_no_inf", combine_type="concat"),
    dict(hidden_units=2, reduce_type="max_no_inf", combine_type="concat", use_bias=False),
    dict(hidden_units=5, l2_normalize=False, activation="tanh"),
    dict(use_pooling=False, node_set_names=["b"], units=1),
    dict(hidden_units=3, feature_name="h2"),
]


@pytest.mark.parametrize("seed", [0, 4])
@pytest.mark.parametrize("cfg", UPDATE_CONFIGS)
@pytest.mark.parametrize("receiver_tag", [SOURCE, TARGET])
def test_graph_sage_graph_update(seed, cfg, receiver_tag):
    g = random_graph(seed)
    cfg = dict(dict(units=3), **cfg)
    if cfg.get("node_set_names") and receiver_tag == SOURCE:
        cfg["node_set_names"] = ["a", "b"]
    update = ag.GraphSAGEGraphUpdate(receiver_tag=receiver_tag, dtype=np.float64, **cfg)
    with pytest.raises(ValueError, match="no weights before its first call"):
        update.get_weights()
    update(g)  # sized on the first call, as Keras
    update.set_weights(_random_weights(update, seed))
    got = update(g)
    want = ref_update(update, g, receiver_tag, cfg)
    name = cfg.get("feature_name", HIDDEN_STATE)
    for ns_name in g.node_sets:
        if ns_name in want:
            _close(got.node_sets[ns_name][name], want[ns_name])
        else:  # not updated: the same arrays
            assert got.node_sets[ns_name][name] is g.node_sets[ns_name][name]
    # from the spec at once: the same weight shapes and results
    from_spec = ag.GraphSAGEGraphUpdate(
        receiver_tag=receiver_tag, graph_spec=g.spec, dtype=np.float64, **cfg
    )
    from_spec.set_weights(update.get_weights())
    for ns_name in want:
        _close(from_spec(g).node_sets[ns_name][name], want[ns_name])


def test_graph_sage_graph_update_weight_shapes():
    """Keras' list: per node set (sorted) its convolutions (sorted), then bias, kernel."""
    g = random_graph(0)
    update = ag.GraphSAGEGraphUpdate(
        units=3, hidden_units=5, receiver_tag=TARGET, combine_type="concat", graph_spec=g.spec
    )
    pool = lambda d: [(d, 5), (5,), (5, 3)]  # noqa: E731
    assert [w.shape for w in update.get_weights()] == [
        *pool(4), (6,), (3, 3),  # node set a <- ba; next state bias [3 + 3], kernel
        *pool(3), *pool(4), *pool(3), (12,), (4, 3),  # b <- ab, bb, empty
    ]  # fmt: skip
    update = ag.GraphSAGEGraphUpdate(
        units=2, use_pooling=False, reduce_type="sum|mean", receiver_tag=SOURCE,
        use_bias=False, graph_spec=g.spec,
    )  # fmt: skip
    assert [w.shape for w in update.get_weights()] == [
        (8, 2), (8, 2), (3, 2),  # a <- ab, empty (senders b); kernel
        (6, 2), (8, 2), (4, 2),  # b <- ba (senders a), bb; kernel
    ]  # fmt: skip


def test_graph_sage_graph_update_skips_aux_sets_and_pickles():
    g = random_graph(1)
    aux = GraphTensor.from_pieces(
        node_sets={**g.node_sets, "_readout": NodeSet.from_fields(sizes=np.array([1, 1, 1]))},
        edge_sets={
            **g.edge_sets,
            "_readout/b": EdgeSet.from_fields(
                sizes=np.array([1, 1, 1]),
                adjacency=Adjacency.from_indices(
                    ("b", np.cumsum(np.asarray(g.node_sets["b"].sizes)) - 1),
                    ("_readout", np.arange(3)),
                ),
            ),
        },
    )
    update = ag.GraphSAGEGraphUpdate(units=2, hidden_units=3, receiver_tag=TARGET, rng=0)
    twin = pickle.loads(pickle.dumps(update))  # deferred, before its first call
    out = update(aux)
    assert sorted(update.node_sets) == ["a", "b"]
    _close(twin(aux).node_sets["b"][HIDDEN_STATE], out.node_sets["b"][HIDDEN_STATE], np.float32)
    again = pickle.loads(pickle.dumps(update))
    _close(again(aux).node_sets["a"][HIDDEN_STATE], out.node_sets["a"][HIDDEN_STATE], np.float32)


# ---- GCNGraphSAGENodeSetUpdate -----------------------------------------------------------------

GCN_CONFIGS = [
    dict(),
    dict(reduce_type="sum", use_bias=True, activation="tanh"),
    dict(add_self_loop=False),
    dict(share_weights=True, use_bias=True),
    dict(share_weights=True, add_self_loop=False, reduce_type="sum"),
    dict(edge_set_names=["empty"], activation=None),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cfg", GCN_CONFIGS)
def test_gcn_graph_sage_node_set_update(seed, cfg):
    g = random_graph(seed)
    if cfg.get("share_weights"):  # the senders must be as wide as the updated node state
        names = ["bb"]
        dims = None
    else:
        names = cfg.get("edge_set_names", ["ab", "bb", "empty"])
        dims = {"ab": 3, "bb": 4, "empty": 3}
        dims = {k: dims[k] for k in names}
    cfg = {k: v for k, v in cfg.items() if k != "edge_set_names"}
    layer = ag.GCNGraphSAGENodeSetUpdate(
        edge_set_names=set(names), receiver_tag=TARGET, units=3, in_features=4,
        sender_node_dims=dims, dtype=np.float64, **cfg,
    )  # fmt: skip
    weights = _random_weights(layer, seed)
    layer.set_weights(weights)
    act = {"tanh": np.tanh, None: None}.get(cfg.get("activation", "relu"), oracle.relu)
    want = ref_gcn_sage(
        weights, g, "b", names, TARGET, reduce_type=cfg.get("reduce_type", "mean"),
        use_bias=cfg.get("use_bias", False), share=cfg.get("share_weights", False),
        self_loop=cfg.get("add_self_loop", True), act=act,
    )  # fmt: skip
    out = ag.GraphUpdate(node_sets={"b": layer})(g)
    _close(out.node_sets["b"][HIDDEN_STATE], want)
    assert out.node_sets["b"]["h2"] is g.node_sets["b"]["h2"]


def test_gcn_graph_sage_weight_order():
    layer = ag.GCNGraphSAGENodeSetUpdate(
        edge_set_names={"bb", "ab"}, receiver_tag=TARGET, units=2, use_bias=True,
        in_features=4, sender_node_dims={"ab": 3, "bb": 4},
    )  # fmt: skip
    # own bias first, then the edge sets' kernels sorted by name, then the node transform
    assert [w.shape for w in layer.get_weights()] == [(2,), (3, 2), (4, 2), (4, 2)]
    assert sorted(layer.state_dict()) == [
        "bias", "node_transform.weight", "transform_edge.ab.weight", "transform_edge.bb.weight",
    ]  # fmt: skip


# ---- weights, inputs untouched -----------------------------------------------------------------


def test_weights_round_trip_and_state_dict():
    conv = ag.GraphSAGEPoolingConv(
        receiver_tag=TARGET, units=3, hidden_units=5, sender_node_dim=4, rng=0
    )
    assert [w.shape for w in conv.get_weights()] == [(4, 5), (5,), (5, 3)]
    new = _random_weights(conv, 3)
    assert conv.set_weights(new) is conv
    for got, want in zip(conv.get_weights(), new):
        np.testing.assert_array_equal(got, want.astype(np.float32))
    assert sorted(conv.state_dict()) == [
        "pooling_transform.bias", "pooling_transform.weight", "transform_neighbor.weight",
    ]  # fmt: skip
    nxt = ag.GraphSAGENextState(units=3, in_features=4)
    assert [w.shape for w in nxt.get_weights()] == [(3,), (4, 3)]  # own bias first
    with pytest.raises(ValueError, match=r"weight 0 \(bias\) has shape \(4,\), expected \(3,\)"):
        nxt.set_weights([np.zeros(4), np.zeros((4, 3))])
    nxt.trainable = False  # frozen: the same order, all non-trainable
    assert [w.shape for w in nxt.get_weights()] == [(3,), (4, 3)]
    # by Keras variable name (in Keras' order), its auto-named Dense layer included
    names = {"graph_sage_next_state/bias:0": np.full(3, 2.0),
             "graph_sage_next_state/dense_4/kernel:0": np.ones((4, 3))}  # fmt: skip
    nxt.set_weights(names)
    np.testing.assert_array_equal(nxt.bias, np.full(3, 2.0, np.float32))


def test_inputs_are_not_modified():
    g = random_graph(2)
    before = {k: v[HIDDEN_STATE].copy() for k, v in g.node_sets.items()}
    update = ag.GraphSAGEGraphUpdate(units=2, hidden_units=3, receiver_tag=TARGET, rng=0)
    update(g)
    for k, v in before.items():
        np.testing.assert_array_equal(g.node_sets[k][HIDDEN_STATE], v)
    state = np.ones((3, 2))
    edges = {"e": np.ones((3, 2))}
    ag.GraphSAGENextState(units=2, in_features=2)((state, edges, {}))
    np.testing.assert_array_equal(state, 1)
    np.testing.assert_array_equal(edges["e"], 1)


# ---- errors ------------------------------------------------------------------------------------


def test_constructor_errors():
    with pytest.raises(ValueError, match="use_pooling or hidden_units"):
        ag.GraphSAGEGraphUpdate(units=3, receiver_tag=TARGET)  # use_pooling=True by default
    with pytest.raises(ValueError, match="use_pooling or hidden_units"):
        ag.GraphSAGEGraphUpdate(units=3, hidden_units=2, use_pooling=False, receiver_tag=TARGET)
    with pytest.raises(ValueError, match=r"GraphSAGEGraphUpdate: hidden_units must be in \[1,"):
        ag.GraphSAGEGraphUpdate(units=3, hidden_units=0, receiver_tag=TARGET)
    with pytest.raises(ValueError, match="combine_type 'mean' isn't supported"):
        ag.GraphSAGEGraphUpdate(units=3, hidden_units=2, combine_type="mean", receiver_tag=TARGET)
    with pytest.raises(ValueError, match="aux node set '_readout'"):
        ag.GraphSAGEGraphUpdate(
            units=3, hidden_units=2, receiver_tag=TARGET, node_set_names=["_readout"]
        )
    with pytest.raises(ValueError, match="receiver_tag must be SOURCE"):
        ag.GraphSAGEGraphUpdate(units=3, hidden_units=2, receiver_tag=CONTEXT)
    with pytest.raises(ValueError, match="unknown reduce_type 'avg'"):
        ag.GraphSAGEAggregatorConv(
            receiver_tag=TARGET, reduce_type="avg", units=2, sender_node_dim=3
        )
    with pytest.raises(ValueError, match="receiver_feature has to be None"):
        ag.GraphSAGEAggregatorConv(
            receiver_tag=TARGET, units=2, sender_node_dim=3, receiver_feature=HIDDEN_STATE
        )
    with pytest.raises(ValueError, match="sender_edge_feature has to be None"):
        ag.GraphSAGEPoolingConv(
            receiver_tag=TARGET, units=2, hidden_units=2, sender_node_dim=3,
            sender_edge_feature="w",
        )  # fmt: skip
    with pytest.raises(ValueError, match="sender_node_feature should be specified"):
        ag.GraphSAGEPoolingConv(
            receiver_tag=TARGET, units=2, hidden_units=2, sender_node_dim=3,
            sender_node_feature=None,
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"GraphSAGEPoolingConv: units must be in \[1,"):
        ag.GraphSAGEPoolingConv(receiver_tag=TARGET, units=0, hidden_units=2, sender_node_dim=3)
    with pytest.raises(TypeError, match="GraphSAGEAggregatorConv: sender_node_dim must be an int"):
        ag.GraphSAGEAggregatorConv(receiver_tag=TARGET, units=2, sender_node_dim=2.5)
    with pytest.raises(ValueError, match=r"dropout_rate must be in \[0, 1\]"):
        ag.GraphSAGEAggregatorConv(
            receiver_tag=TARGET, units=2, sender_node_dim=3, dropout_rate=1.5
        )
    with pytest.raises(ValueError, match="GraphSAGEPoolingConv: activation must be"):
        ag.GraphSAGEPoolingConv(
            receiver_tag=TARGET, units=2, hidden_units=2, sender_node_dim=3, activation="nope"
        )
    with pytest.raises(ValueError, match="needs edge_input_dims"):
        ag.GraphSAGENextState(units=2, in_features=3, combine_type="concat")
    with pytest.raises(ValueError, match="combine_type 'max' isn't supported"):
        ag.GraphSAGENextState(units=2, in_features=3, combine_type="max")
    with pytest.raises(ValueError, match=r"'sum', 'mean'"):
        ag.GCNGraphSAGENodeSetUpdate(
            edge_set_names=["e"], receiver_tag=TARGET, reduce_type="max", units=2, in_features=2
        )
    with pytest.raises(ValueError, match="share_weights=True.*as wide as the node state"):
        ag.GCNGraphSAGENodeSetUpdate(
            edge_set_names=["e"], receiver_tag=TARGET, units=2, in_features=2,
            sender_node_dims=3, share_weights=True,
        )  # fmt: skip
    with pytest.raises(ValueError, match=r"one size per edge set \['e'\]; extra \['f'\]"):
        ag.GCNGraphSAGENodeSetUpdate(
            edge_set_names=["e"], receiver_tag=TARGET, units=2, in_features=2,
            sender_node_dims={"e": 2, "f": 2},
        )  # fmt: skip
    with pytest.raises(ValueError, match="no inputs"):
        ag.GCNGraphSAGENodeSetUpdate(
            edge_set_names=[], receiver_tag=TARGET, units=2, in_features=2, add_self_loop=False
        )
    with pytest.raises(TypeError, match="edge_set_names must be a collection"):
        ag.GCNGraphSAGENodeSetUpdate(edge_set_names="e", receiver_tag=TARGET, units=2,
                                     in_features=2)  # fmt: skip


def test_call_errors():
    g = random_graph(0)
    conv = ag.GraphSAGEAggregatorConv(receiver_tag=TARGET, units=2, sender_node_dim=3)
    with pytest.raises(ValueError, match="GraphSAGEAggregatorConv on edge set 'bb'.*'b'.* has 4 "
                                         "features, the layer takes 3"):  # fmt: skip
        conv(g, edge_set_name="bb")
    with pytest.raises(ValueError, match="no edge set 'nope'"):
        conv(g, edge_set_name="nope")
    int_graph = g.replace_features(
        node_sets={"a": {HIDDEN_STATE: np.ones((g.node_sets["a"].total_size, 3), np.int64)}}
    )
    with pytest.raises(TypeError, match="feature 'hidden_state' of node set 'a' must be a float"):
        conv(int_graph, edge_set_name="ab")
    missing = ag.GraphSAGEAggregatorConv(
        receiver_tag=TARGET, units=2, sender_node_dim=3, sender_node_feature="nope"
    )
    with pytest.raises(ValueError, match="node set 'a' has no feature 'nope'"):
        missing(g, edge_set_name="ab")
    to_context = ag.GraphSAGEAggregatorConv(receiver_tag=CONTEXT, units=2, sender_node_dim=3)
    with pytest.raises(ValueError, match="no sender node input.*node_set_name="):
        to_context(g, edge_set_name="ab")
    nxt = ag.GraphSAGENextState(units=2, in_features=3)
    state = np.ones((4, 3))
    with pytest.raises(ValueError, match="Input from context is not supported"):
        nxt((state, {}, np.ones((4, 1))))
    with pytest.raises(ValueError, match="the node state has 2 features, the layer takes 3"):
        nxt((np.ones((4, 2)), {}, {}))
    with pytest.raises(TypeError, match="the node state must be one array"):
        nxt(({"h": state}, {}, {}))
    with pytest.raises(ValueError, match="edge set 'e' has 3 features, units is 2"):
        nxt((state, {"e": np.ones((4, 3))}, {}))
    with pytest.raises(ValueError, match=r"edge set 'e' has shape \(5, 2\), expected \[4, width\]"):
        nxt((state, {"e": np.ones((5, 2))}, {}))
    with pytest.raises(TypeError, match="tuple of 3 inputs"):
        nxt([state, {}, {}])
    cat = ag.GraphSAGENextState(units=2, in_features=3, combine_type="concat", edge_input_dims=4)
    with pytest.raises(ValueError, match="combined inputs have 5 features, the bias 6"):
        cat((state, {"e": np.ones((4, 3))}, {}))
    update = ag.GraphSAGEGraphUpdate(
        units=2, hidden_units=2, receiver_tag=TARGET, node_set_names=["iso"]
    )
    with pytest.raises(ValueError, match=r"node sets \['iso'\] receive from no edge set"):
        update(g)
    update = ag.GraphSAGEGraphUpdate(units=2, hidden_units=2, receiver_tag=TARGET,
                                     feature_name="nope")  # fmt: skip
    with pytest.raises(ValueError, match="node set '.*' has no feature 'nope'"):
        update(g)
    gcn = ag.GCNGraphSAGENodeSetUpdate(
        edge_set_names=["ba"], receiver_tag=TARGET, units=2, in_features=4
    )
    with pytest.raises(
        ValueError, match="edge set 'ba' has node set 'a' at receiver_tag 1, not 'b'"
    ):
        ag.GraphUpdate(node_sets={"b": gcn})(g)
