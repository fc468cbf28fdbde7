"""A TF-GNN user's journey through ``tfgnn.keras.layers`` on arraygnn's GraphTensor face.

Each layer is checked against a NumPy transcription of TF-GNN's code (keras/layers/
convolutions.py, graph_update.py, next_state.py, graph_ops.py, item_dropout.py) with the
same weights, on a tiny heterogeneous graph: node sets ``a`` and ``b`` (``b`` empty in
component 1), edge sets ``aa`` (a -> a) and ``ab`` (a -> b, no edges in component 1), a
context state and two components. TensorFlow is not needed.
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
)
from arraygnn.graph_tensor.layers import (
    AddSelfLoops,
    Broadcast,
    ContextUpdate,
    EdgeSetUpdate,
    GraphUpdate,
    ItemDropout,
    MakeEmptyFeature,
    NextStateFromConcat,
    NodeSetUpdate,
    Pool,
    ResidualNextState,
    SimpleConv,
    SingleInputNextState,
    dense,
)

TOL = {"rtol": 1e-5, "atol": 1e-5}


def _graph() -> GraphTensor:
    rng = np.random.default_rng(0)

    def f(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return GraphTensor.from_pieces(
        context=Context.from_fields(features={HIDDEN_STATE: f(2, 2)}),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([2, 2]), features={HIDDEN_STATE: f(4, 3), "x": f(4, 2)}
            ),
            "b": NodeSet.from_fields(sizes=np.array([3, 0]), features={HIDDEN_STATE: f(3, 2)}),
        },
        edge_sets={
            "aa": EdgeSet.from_fields(
                sizes=np.array([3, 1]),
                adjacency=Adjacency.from_indices(
                    source=("a", np.array([0, 1, 1, 2])), target=("a", np.array([1, 0, 1, 3]))
                ),
                features={HIDDEN_STATE: f(4, 2)},
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


# -- NumPy transcriptions of TF-GNN's maths -------------------------------------------


def _pool(values, index, n, reduce_type):
    """tfgnn.pool: each part of "a|b" per receiver, concatenated; 0 for no items."""
    outs = []
    for part in reduce_type.split("|"):
        out = np.zeros((n,) + values.shape[1:])
        for i in range(n):
            rows = values[index == i].astype(np.float64)
            if len(rows):
                out[i] = {
                    "sum": rows.sum,
                    "mean": rows.mean,
                    "max_no_inf": rows.max,
                    "min_no_inf": rows.min,
                }[part](0)
        outs.append(out)
    return np.concatenate(outs, -1)


def _dense(x, kernel, bias=None, activation=None):
    y = x.astype(np.float64) @ kernel + (0 if bias is None else bias)
    if activation == "relu":
        return np.maximum(y, 0)
    if activation == "tanh":
        return np.tanh(y)
    return y


def _random_weights(layer, seed=1):
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(w.shape) for w in layer.get_weights()]
    layer.set_weights(weights)
    return weights


# -- SimpleConv ----------------------------------------------------------------------


def test_simple_conv_all_inputs_and_multi_reduce_like_tfgnn():
    g = _graph()
    a, b = g.node_sets["a"][HIDDEN_STATE], g.node_sets["b"][HIDDEN_STATE]
    ab = g.edge_sets["ab"]
    src, tgt = ab.adjacency.source, ab.adjacency.target
    rt = "sum|mean|max_no_inf"
    for tag in (TARGET, SOURCE):
        conv = SimpleConv(
            dense(7, 4, "relu"), rt, receiver_tag=tag, sender_edge_feature=HIDDEN_STATE
        )
        k, bias = _random_weights(conv)
        # TF-GNN's order: edge input, sender node, receiver
        if tag == TARGET:
            x, index, n = np.concatenate([ab[HIDDEN_STATE], a[src], b[tgt]], -1), tgt, 3
        else:
            x, index, n = np.concatenate([ab[HIDDEN_STATE], b[tgt], a[src]], -1), src, 4
        out = conv(g, edge_set_name="ab")
        assert out.shape == (n, 12) and out.dtype == np.float32
        np.testing.assert_allclose(out, _pool(_dense(x, k, bias, "relu"), index, n, rt), **TOL)


def test_simple_conv_sum_combine_and_context_receiver_like_tfgnn():
    g = _graph()
    x = g.node_sets["a"]["x"]
    aa = g.edge_sets["aa"]
    src, tgt = aa.adjacency.source, aa.adjacency.target
    conv = SimpleConv(
        dense(2, 3),
        "mean",
        combine_type="sum",
        receiver_tag=SOURCE,
        receiver_feature="x",
        sender_node_feature="x",
        sender_edge_feature=HIDDEN_STATE,
    )
    k, bias = _random_weights(conv)
    ref = _pool(_dense(aa[HIDDEN_STATE] + x[tgt] + x[src], k, bias), src, 4, "mean")
    np.testing.assert_allclose(conv(g, edge_set_name="aa"), ref, **TOL)
    # receiver CONTEXT: node set b (empty in component 1) pooled with the context state
    ctx, b = g.context[HIDDEN_STATE], g.node_sets["b"][HIDDEN_STATE]
    conv = SimpleConv(dense(4, 3), "mean", receiver_tag=CONTEXT)
    k, bias = _random_weights(conv)
    comp = np.array([0, 0, 0])
    ref = _pool(_dense(np.concatenate([b, ctx[comp]], -1), k, bias), comp, 2, "mean")
    np.testing.assert_allclose(conv(g, node_set_name="b"), ref, **TOL)
    assert not conv(g, node_set_name="b")[1].any()


# -- GraphUpdate with the three next states -------------------------------------------


def test_graph_update_edge_node_context_updates_like_tfgnn():
    g = _graph()
    a, b, ctx = (
        g.node_sets["a"][HIDDEN_STATE],
        g.node_sets["b"][HIDDEN_STATE],
        g.context[HIDDEN_STATE],
    )
    x = g.node_sets["a"]["x"]
    aa, ab = g.edge_sets["aa"], g.edge_sets["ab"]
    s_aa, t_aa = aa.adjacency.source, aa.adjacency.target
    s_ab, t_ab = ab.adjacency.source, ab.adjacency.target
    update = GraphUpdate(
        edge_sets={
            "ab": EdgeSetUpdate(
                NextStateFromConcat(dense(9, 2, "tanh")), context_input_feature=HIDDEN_STATE
            )
        },
        node_sets={  # unsorted on purpose: TF-GNN updates (and lists weights) sorted
            "b": NodeSetUpdate(
                {
                    "ab": SimpleConv(
                        dense(5, 2), "mean", sender_edge_feature=HIDDEN_STATE, receiver_feature=None
                    )
                },
                ResidualNextState(dense(4, 2), activation="relu"),
            ),
            "a": NodeSetUpdate(
                {
                    "ab": SimpleConv(dense(5, 3), "sum", receiver_tag=SOURCE),
                    "aa": SimpleConv(dense(6, 4, "relu"), "max_no_inf"),
                },
                NextStateFromConcat(dense(12, 3)),
                context_input_feature=HIDDEN_STATE,
            ),
        },
        context=ContextUpdate(
            {"b": Pool(CONTEXT, "mean"), "a": Pool(CONTEXT, "sum", feature_name="x")},
            NextStateFromConcat(dense(8, 2)),
            edge_set_inputs={"aa": Pool(CONTEXT, "max_no_inf")},
        ),
    )
    w = iter(_random_weights(update))
    out = update(g)
    # edge set ab first: (edge state, {SOURCE: a, TARGET: b}, context)
    ab2 = _dense(
        np.concatenate([ab[HIDDEN_STATE], a[s_ab], b[t_ab], ctx[[0, 0, 0]]], -1),
        next(w),
        next(w),
        "tanh",
    )
    np.testing.assert_allclose(out.edge_sets["ab"][HIDDEN_STATE], ab2, **TOL)
    # node sets on the graph with the new edge states, "a" first
    m_aa = _pool(
        _dense(np.concatenate([a[s_aa], a[t_aa]], -1), next(w), next(w), "relu"),
        t_aa,
        4,
        "max_no_inf",
    )
    m_ab = _pool(_dense(np.concatenate([b[t_ab], a[s_ab]], -1), next(w), next(w)), s_ab, 4, "sum")
    a2 = _dense(np.concatenate([a, m_aa, m_ab, ctx[[0, 0, 1, 1]]], -1), next(w), next(w))
    np.testing.assert_allclose(out.node_sets["a"][HIDDEN_STATE], a2, **TOL)
    m = _pool(_dense(np.concatenate([ab2, a[s_ab]], -1), next(w), next(w)), t_ab, 3, "mean")
    b2 = np.maximum(_dense(np.concatenate([b, m], -1), next(w), next(w)) + b, 0)
    np.testing.assert_allclose(out.node_sets["b"][HIDDEN_STATE], b2, **TOL)
    # context last, on the new node states: (own, {a, b} sorted, {aa})
    parts = [
        ctx,
        _pool(x, np.array([0, 0, 1, 1]), 2, "sum"),
        _pool(b2, np.zeros(3, int), 2, "mean"),
    ]
    parts.append(_pool(aa[HIDDEN_STATE], np.array([0, 0, 0, 1]), 2, "max_no_inf"))
    ctx2 = _dense(np.concatenate(parts, -1), next(w), next(w))
    np.testing.assert_allclose(out.context[HIDDEN_STATE], ctx2, **TOL)
    assert out.node_sets["a"]["x"] is x  # other features kept


def test_single_input_next_state_and_residual_skip_feature_like_tfgnn():
    g = _graph()
    a, x = g.node_sets["a"][HIDDEN_STATE], g.node_sets["a"]["x"]
    ab = g.edge_sets["ab"]
    update = GraphUpdate(
        edge_sets={
            "ab": EdgeSetUpdate(
                SingleInputNextState(), edge_input_feature=None, node_input_tags=[SOURCE]
            )
        }
    )
    np.testing.assert_array_equal(update(g).edge_sets["ab"][HIDDEN_STATE], a[ab.adjacency.source])
    two = GraphUpdate(edge_sets={"ab": EdgeSetUpdate(SingleInputNextState())})
    with pytest.raises(ValueError, match="exactly one input"):
        two(g)
    residual = ResidualNextState(
        lambda v: v[:, :2], activation="relu", skip_connection_feature_name="x"
    )
    out = NodeSetUpdate({}, residual, node_input_feature=["x", HIDDEN_STATE])(g, node_set_name="a")
    np.testing.assert_allclose(out, np.maximum(a[:, :2] + x, 0), **TOL)  # flatten: sorted keys
    bad = ResidualNextState(lambda v: v[:, :3], skip_connection_feature_name="x")
    with pytest.raises(ValueError, match="must match"):
        NodeSetUpdate({}, bad, node_input_feature=["x", HIDDEN_STATE])(g, node_set_name="a")


# -- Pool / Broadcast / readout / small layers ------------------------------------------


def test_pool_and_broadcast_over_sets_like_tfgnn():
    g = _graph()
    aa, ab = g.edge_sets["aa"], g.edge_sets["ab"]
    # a list of edge sets with a common SOURCE end: pooled as one set
    values = np.concatenate([aa[HIDDEN_STATE], ab[HIDDEN_STATE]])
    index = np.concatenate([aa.adjacency.source, ab.adjacency.source])
    out = Pool(SOURCE, "sum", edge_set_name=["aa", "ab"])(g)
    np.testing.assert_allclose(out, _pool(values, index, 4, "sum"), **TOL)
    out = Pool(CONTEXT, "mean|max_no_inf", node_set_name="b")(g)
    np.testing.assert_allclose(
        out, _pool(g.node_sets["b"][HIDDEN_STATE], np.zeros(3, int), 2, "mean|max_no_inf"), **TOL
    )
    # Broadcast of a list: one result per set
    ctx = g.context[HIDDEN_STATE]
    to_a, to_b = Broadcast(CONTEXT, node_set_name=["a", "b"])(g)
    np.testing.assert_array_equal(to_a, ctx[[0, 0, 1, 1]])
    np.testing.assert_array_equal(to_b, ctx[[0, 0, 0]])
    x = g.node_sets["a"]["x"]
    on_aa, on_ab = Broadcast(SOURCE, feature_name="x")(g, edge_set_name=["aa", "ab"])
    np.testing.assert_array_equal(on_ab, x[ab.adjacency.source])
    pool = Pool(CONTEXT, "sum", node_set_name=["a"], feature_name="x")
    assert (pool.tag, pool.location, pool.feature_name) == (CONTEXT, {"node_set_name": ("a",)}, "x")
    with pytest.raises(ValueError, match="initialized with reduce_type='sum'"):
        pool(g, reduce_type="mean")
    with pytest.raises(ValueError, match="needs edge_set_name"):
        Pool(SOURCE, "sum", node_set_name="a")


def test_pool_and_broadcast_bad_tag_error_names_tag_argument():
    """Pool / Broadcast take ``tag=`` (not ``receiver_tag=``): the error says so."""
    for layer in (Pool, Broadcast):
        with pytest.raises(
            ValueError, match=r"^\w+: tag must be SOURCE \(0\), TARGET \(1\) or CONTEXT"
        ):
            layer(5)
    g = _graph()
    with pytest.raises(ValueError, match=r"Pool: tag must be"):
        Pool(reduce_type="sum", node_set_name="a")(g, tag="nodes")
    with pytest.raises(ValueError, match="receiver_tag must be"):
        SimpleConv(dense(5, 2), receiver_tag=5)


def test_readout_self_loops_empty_feature_and_dropout_like_tfgnn():
    from arraygnn.pipeline import AddReadoutFromFirstNode
    from arraygnn.pipeline.readout import Readout, ReadoutFirstNode, StructuredReadout

    g = _graph()
    a = g.node_sets["a"][HIDDEN_STATE]
    np.testing.assert_array_equal(Readout(node_set_name="a")(g), a)
    np.testing.assert_array_equal(Readout(from_context=True)(g), g.context[HIDDEN_STATE])
    np.testing.assert_array_equal(
        ReadoutFirstNode(node_set_name="a", feature_name="x")(g), g.node_sets["a"]["x"][[0, 2]]
    )
    with pytest.raises(ValueError, match=r"components \[1\] have no node in node set 'b'"):
        ReadoutFirstNode(node_set_name="b")(g)
    g2 = AddReadoutFromFirstNode("seed", node_set_name="a")(g)
    np.testing.assert_array_equal(StructuredReadout("seed")(g2), a[[0, 2]])
    # AddSelfLoops: a loop per node after each component's edges, as tfgnn.add_self_loops
    looped = AddSelfLoops("aa")(g).edge_sets["aa"]
    np.testing.assert_array_equal(looped.adjacency.source, [0, 1, 1, 0, 1, 2, 2, 3])
    np.testing.assert_array_equal(looped.adjacency.target, [1, 0, 1, 0, 1, 3, 2, 3])
    np.testing.assert_array_equal(looped.sizes, [5, 3])
    np.testing.assert_array_equal(looped[HIDDEN_STATE][[3, 4, 6, 7]], 0)
    with pytest.raises(ValueError, match="must connect a node set to itself"):
        AddSelfLoops("ab")(g)
    empty = MakeEmptyFeature()(g.node_sets["b"])
    assert empty.shape == (3, 0) and empty.dtype == np.float32
    assert MakeEmptyFeature()(g.context).shape == (2, 0)
    assert ItemDropout(0.5)(a) is a  # inference: the identity
    dropped = ItemDropout(0.5, seed=3)(a, training=True)
    kept = dropped.any(axis=1)
    np.testing.assert_allclose(dropped[kept], 2 * a[kept], **TOL)  # survivors scaled 1/(1-rate)
