"""jraph's models on NumPy GraphsTuples against jraph itself (same update functions written
for jax.numpy), plus padding invariance and the fused paths' fallbacks."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graphs_tuple import (
    GAT,
    DeepSets,
    GraphConvolution,
    GraphMapFeatures,
    GraphNetGAT,
    GraphNetwork,
    GraphsTuple,
    InteractionNetwork,
    RelationNetwork,
    batch,
    concatenated_args,
    pad_with_graphs,
    segment_mean,
    unpad_with_graphs,
    zero_out_padding,
)
from tests.graphs_tuple._gtup_cases import random_graph, single_graphs

W = np.random.default_rng(42).normal(size=(32, 16)).astype(np.float32)


def _jax():
    jraph = pytest.importorskip("jraph")
    jnp = pytest.importorskip("jax.numpy")
    return jraph, jnp


def _graph(seed, num_graphs=4):
    rng = np.random.default_rng(seed)
    return batch(single_graphs(rng, num_graphs))


def _close(a, b, tol=2e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def _fns(xp):
    """Update functions over xp (numpy or jax.numpy): small dense layers with fixed weights."""
    w = xp.asarray(W)

    def dense(x, cols):
        return xp.tanh(x @ w[: x.shape[-1], :cols])

    cat = lambda *parts: xp.concatenate([p for p in parts if p is not None], axis=-1)  # noqa: E731
    return {
        "edge": lambda e, s, r, g: dense(cat(e, s, r, g), 2),
        "node": lambda n, s, r, g: dense(cat(n, s, r, g), 3),
        "glob": lambda n, e, g: dense(cat(n, e, g), 4),
        "logit": lambda e, s, r, g: dense(cat(e, s, r), 1),
        "reduce": lambda e, w_: e * w_,
    }


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("attention", [False, True])
def test_graph_network_matches_jraph(seed, attention):
    jraph, jnp = _jax()
    g = _graph(seed)
    ours_f, theirs_f = _fns(np), _fns(jnp)
    kw = lambda f: dict(  # noqa: E731
        update_edge_fn=f["edge"],
        update_node_fn=f["node"],
        update_global_fn=f["glob"],
        **(
            {"attention_logit_fn": f["logit"], "attention_reduce_fn": f["reduce"]}
            if attention
            else {}
        ),
    )
    ours = GraphNetwork(**kw(ours_f))(g)
    theirs = jraph.GraphNetwork(**kw(theirs_f))(jraph.GraphsTuple(*g))
    for field in ("nodes", "edges", "globals"):
        _close(getattr(ours, field), getattr(theirs, field))
    assert ours.senders is g.senders and ours.n_node is g.n_node


def test_graph_network_with_mean_aggregation_and_nested_nodes():
    jraph, jnp = _jax()
    rng = np.random.default_rng(5)
    g = batch(single_graphs(rng, 3, nested=True))

    def make(xp, mean):
        def node_fn(n, s, r, glob):
            return {"h": n["h"] + r[:, :1], "pos": [n["pos"][0] * 2]}

        return dict(
            update_edge_fn=lambda e, s, r, glob: e + s["h"][:, :2] - r["pos"][0][:, None],
            update_node_fn=node_fn,
            update_global_fn=None,
            aggregate_edges_for_nodes_fn=mean,
        )

    ours = GraphNetwork(**make(np, segment_mean))(g)
    theirs = jraph.GraphNetwork(**make(jnp, jraph.segment_mean))(jraph.GraphsTuple(*g))
    _close(ours.nodes["h"], theirs.nodes["h"])
    _close(ours.nodes["pos"][0], theirs.nodes["pos"][0])
    _close(ours.edges, theirs.edges)


def test_graph_network_skips_unused_gathers_and_keeps_none():
    g = GraphsTuple(
        np.ones((3, 1)), None, None, None, np.ones((1, 2)), np.array([3]), np.array([0])
    )
    out = GraphNetwork(None, lambda n, s, r, u: n + u[:, :1])(g)
    assert out.nodes.tolist() == [[2.0]] * 3 and out.senders is None and out.edges is None


def test_graph_network_requires_both_attention_functions():
    with pytest.raises(ValueError, match="must both be supplied"):
        GraphNetwork(None, None, attention_logit_fn=lambda *a: a[0])
    with pytest.raises(ValueError, match="required"):
        GraphNetGAT(None, None, None, lambda e, w: e)


@pytest.mark.parametrize("seed", range(3))
def test_interaction_relation_deepsets_map_features_match_jraph(seed):
    jraph, jnp = _jax()
    g = _graph(seed)
    f, jf = _fns(np), _fns(jnp)
    pairs = [
        (
            InteractionNetwork(
                lambda e, s, r: f["edge"](e, s, r, None), lambda n, r: f["node"](n, r, None, None)
            ),
            jraph.InteractionNetwork(
                lambda e, s, r: jf["edge"](e, s, r, None), lambda n, r: jf["node"](n, r, None, None)
            ),
        ),
        (
            InteractionNetwork(
                lambda e, s, r: f["edge"](e, s, r, None),
                lambda n, s, r: f["node"](n, s, r, None),
                segment_mean,
                True,
            ),
            jraph.InteractionNetwork(
                lambda e, s, r: jf["edge"](e, s, r, None),
                lambda n, s, r: jf["node"](n, s, r, None),
                jraph.segment_mean,
                True,
            ),
        ),
        (
            RelationNetwork(lambda s, r: f["edge"](s, r, None, None), lambda e: e * 2),
            jraph.RelationNetwork(lambda s, r: jf["edge"](s, r, None, None), lambda e: e * 2),
        ),
        (
            DeepSets(lambda n, u: f["node"](n, u, None, None), lambda n: n + 1),
            jraph.DeepSets(lambda n, u: jf["node"](n, u, None, None), lambda n: n + 1),
        ),
        (
            GraphMapFeatures(lambda e: e * 3, lambda n: n - 1, lambda u: u * 0),
            jraph.GraphMapFeatures(lambda e: e * 3, lambda n: n - 1, lambda u: u * 0),
        ),
        (
            GraphNetGAT(f["edge"], f["node"], f["logit"], f["reduce"], f["glob"]),
            jraph.GraphNetGAT(jf["edge"], jf["node"], jf["logit"], jf["reduce"], jf["glob"]),
        ),
    ]
    for ours_fn, theirs_fn in pairs:
        ours, theirs = ours_fn(g), theirs_fn(jraph.GraphsTuple(*g))
        for field in ("nodes", "edges", "globals"):
            _close(getattr(ours, field), getattr(theirs, field))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("loops", [False, True])
@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("aggregate", ["sum", "mean"])
def test_graph_convolution_matches_jraph(seed, loops, symmetric, aggregate):
    jraph, jnp = _jax()
    g = _graph(seed)
    ours_agg = {"sum": None, "mean": segment_mean}[aggregate]
    theirs_agg = {"sum": None, "mean": jraph.segment_mean}[aggregate]
    extra = lambda agg: {} if agg is None else {"aggregate_nodes_fn": agg}  # noqa: E731
    ours = GraphConvolution(
        lambda x: x @ W[:3, :5],
        add_self_edges=loops,
        symmetric_normalization=symmetric,
        **extra(ours_agg),
    )(g)
    theirs = jraph.GraphConvolution(
        lambda x: x @ jnp.asarray(W[:3, :5]),
        add_self_edges=loops,
        symmetric_normalization=symmetric,
        **extra(theirs_agg),
    )(jraph.GraphsTuple(*g))
    _close(ours.nodes, theirs.nodes)


def _heads_fns(xp, heads, weight_shape):
    w = xp.asarray(W)

    def query(n):
        return (n @ w[:3, : heads * 4]).reshape(n.shape[0], heads, 4)

    def logit(s, r, e):
        score = xp.sum(s * r, axis=-1)  # [E, H]
        if weight_shape == "EH1":
            return score[..., None]
        if weight_shape == "EH":
            return score
        return score[..., :1, None] * xp.ones((1, 1, 4), dtype=score.dtype)  # [E, 1, 4]

    return query, logit


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("heads,weight_shape", [(1, "EH1"), (3, "EH1"), (2, "E14")])
def test_gat_matches_jraph(seed, heads, weight_shape):
    jraph, jnp = _jax()
    g = _graph(seed)
    q, lg = _heads_fns(np, heads, weight_shape)
    jq, jlg = _heads_fns(jnp, heads, weight_shape)
    ours = GAT(q, lg)(g)
    theirs = jraph.GAT(jq, jlg)(jraph.GraphsTuple(*g))
    _close(ours.nodes, theirs.nodes)
    assert ours.nodes.shape == (g.nodes.shape[0], heads * 4)


def test_gat_two_dimensional_queries_and_custom_update():
    jraph, jnp = _jax()
    g = _graph(11)
    ours = GAT(lambda n: n * 2, lambda s, r, e: (s * r).sum(-1, keepdims=True), lambda x: x)(g)
    theirs = jraph.GAT(
        lambda n: n * 2, lambda s, r, e: (s * r).sum(-1, keepdims=True), lambda x: x
    )(jraph.GraphsTuple(*g))
    _close(ours.nodes, theirs.nodes)


def test_gat_needs_node_features():
    g = GraphsTuple(None, None, None, None, None, np.array([2]), np.array([0]))
    with pytest.raises(ValueError, match="GAT: the graph has no node features"):
        GAT(lambda n: n, lambda s, r, e: s)(g)


@pytest.mark.parametrize("model", ["network", "gcn", "gat"])
def test_padding_does_not_change_real_outputs(model):
    g = _graph(21, num_graphs=5)
    f = _fns(np)
    if model == "network":
        net = GraphNetwork(f["edge"], f["node"], f["glob"])
    elif model == "gcn":
        net = GraphConvolution(lambda x: x @ W[:3, :5], add_self_edges=True)
    else:
        net = GAT(lambda n: n, lambda s, r, e: (s * r).sum(-1, keepdims=True))
    plain = net(g)
    padded = zero_out_padding(
        net(pad_with_graphs(g, int(g.n_node.sum()) + 7, int(g.n_edge.sum()) + 9, 9))
    )
    back = unpad_with_graphs(padded)
    _close(back.nodes, plain.nodes, 1e-6)
    if model == "network":
        _close(back.edges, plain.edges, 1e-6)
        _close(back.globals, plain.globals, 1e-6)


def test_models_validate_the_graph():
    g = GraphsTuple(
        np.ones((2, 1)), None, np.array([7]), np.array([0]), None, np.array([2]), np.array([1])
    )
    for net in (
        GraphNetwork(None, lambda n, s, r, u: n),
        GraphConvolution(lambda x: x),
        GAT(lambda n: n, lambda s, r, e: s),
    ):
        with pytest.raises(ValueError, match="receivers has entry 7"):
            net(g)


def test_concatenated_args_matches_jraph():
    jraph, jnp = _jax()
    rng = np.random.default_rng(0)
    a, b, c = (rng.normal(size=(4, k)).astype(np.float32) for k in (1, 2, 3))
    ours = concatenated_args(lambda x: x)(a, {"z": c, "y": b}, None, k=a)
    theirs = jraph.concatenated_args(lambda x: x)(a, {"z": c, "y": b}, None, k=a)
    _close(ours, theirs)

    @concatenated_args(axis=0)
    def rows(x):
        return x.shape

    assert rows(a, a) == (8, 1)
    with pytest.raises(ValueError, match="no array arguments"):
        concatenated_args(lambda x: x)(None)


def test_random_multi_graph_tuple_through_gcn():
    rng = np.random.default_rng(1)
    g = random_graph(rng, num_graphs=3)
    out = GraphConvolution(lambda x: x)(g)
    assert out.nodes.shape == g.nodes.shape


@pytest.mark.parametrize(
    "heads,weight_shape,fused",
    [(1, "EH1", True), (3, "EH1", True), (3, "EH", False), (2, "E14", False)],
)
def test_gat_takes_the_fused_spmm_when_weights_are_per_edge_or_head(
    monkeypatch, heads, weight_shape, fused
):
    from arraygnn import ops

    calls = []
    real = ops.spmm
    monkeypatch.setattr(ops, "spmm", lambda *a, **k: calls.append(1) or real(*a, **k))
    g = _graph(2)
    q, lg = _heads_fns(np, heads, weight_shape)
    if weight_shape == "EH":  # [E, H] weights against [N, H, F] queries do not broadcast
        with pytest.raises(ValueError):
            GAT(q, lg)(g)
        return
    GAT(q, lg)(g)
    assert bool(calls) == fused
