"""Parity sweep of the jraph face against jraph itself (session 11): every public jraph
function arraygnn provides, on the same inputs, compared value by value.

Inputs cover nested dict / list / tuple features, ``None`` fields, graphs with zero nodes
or zero edges, padding graphs, int32 counts and ids, the segment arguments, and the
models' aggregate / attention functions written once for ``xp`` (NumPy or jax.numpy), as
jraph users write them. Differences arraygnn documents (docs/coming_from_jraph.md) are
stated where a test steps around them. jraph 0.0.6 calls ``jax.tree_map`` /
``jax.tree_leaves``, which current JAX removed; the fixture puts them back for the test.
jraph's models run under ``jax.jit`` (one compile per model instead of one per operation
and shape); its segment operations run eagerly (they share the compiled operations).
"""

from __future__ import annotations

import collections.abc
import functools

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import GraphsTuple

F32 = np.float32


@pytest.fixture(scope="module")
def jr():
    """(jraph, jax, jax.numpy), with the tree aliases jraph 0.0.6 still calls."""
    jraph = pytest.importorskip("jraph")
    jax = pytest.importorskip("jax")
    patched = []
    for name, fn in (
        ("tree_map", jax.tree_util.tree_map),
        ("tree_leaves", jax.tree_util.tree_leaves),
    ):
        if not hasattr(jax, name):
            setattr(jax, name, fn)
            patched.append(name)
    yield jraph, jax, jax.numpy
    for name in patched:
        delattr(jax, name)


def _same(ours, theirs, where="", dtypes=False, tol=2e-5):
    """The same tree (``None`` where ``None``) with the same values (and dtypes)."""
    if isinstance(ours, tuple) and hasattr(ours, "_fields"):  # a GraphsTuple of either kind
        assert tuple(theirs._fields) == tuple(ours._fields), where
        for name in ours._fields:
            _same(getattr(ours, name), getattr(theirs, name), f"{where}.{name}", dtypes, tol)
        return
    if ours is None or theirs is None:
        assert ours is None and theirs is None, f"{where}: {ours!r} vs {theirs!r}"
        return
    if isinstance(ours, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs), where
        for key in ours:
            _same(ours[key], theirs[key], f"{where}[{key!r}]", dtypes, tol)
        return
    if isinstance(ours, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{i}]", dtypes, tol)
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.shape == b.shape, f"{where}: shape {a.shape} vs {b.shape}"
    if dtypes:
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} vs {b.dtype}"
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=where)


def _graph(nodes, edges, senders, receivers, globals_, n_node, n_edge):
    ids = lambda v: np.array(v, np.int32)  # noqa: E731
    return GraphsTuple(
        nodes, edges, ids(receivers), ids(senders), globals_, ids(n_node), ids(n_edge)
    )


def _graphs(kind):
    """Three graphs (3 nodes / 3 edges, 0 nodes, 2 nodes / 0 edges) with features of
    ``kind``: nested trees, plain arrays or ``None``."""
    rng = np.random.default_rng(11)
    out = []
    for n, senders, receivers in ((3, [0, 1, 2], [1, 2, 1]), (0, [], []), (2, [], [])):
        e = len(senders)
        x, w = rng.normal(size=(n, 2)).astype(F32), rng.normal(size=(e, 1)).astype(F32)
        u = rng.normal(size=(1, 2)).astype(F32)
        if kind == "nested":
            nodes = {"a": x, "b": [rng.normal(size=(n,)).astype(F32)]}
            edges, globals_ = (w,), {"u": u}
        elif kind == "arrays":
            nodes, edges, globals_ = x, w, u
        else:
            nodes = edges = globals_ = None
        out.append(_graph(nodes, edges, senders, receivers, globals_, [n], [e]))
    return out


def _jraph_graph(jraph, graph):
    return jraph.GraphsTuple(*graph)


# --- the public names ---------------------------------------------------------------


def test_every_public_jraph_name_is_here(jr):
    jraph, _, _ = jr
    missing = sorted(set(jraph.__all__) - set(gt.__all__))
    assert missing == []
    for name in jraph.__all__:
        assert hasattr(gt, name), name


def test_type_aliases_annotate_like_jraphs():
    import typing

    # jraph code annotates with them; they must exist and be typing constructs
    assert typing.get_origin(gt.ArrayTree) is typing.Union
    assert gt.NodeFeatures is gt.ArrayTree
    assert typing.get_origin(gt.GNUpdateEdgeFn) is collections.abc.Callable
    assert len(typing.get_args(gt.GNUpdateEdgeFn)[0]) == 4

    def update(nodes: gt.NodeFeatures) -> gt.ArrayTree:
        return nodes

    fn: gt.EmbedNodeFn = update
    assert fn(1) == 1


# --- batching, padding, masks -------------------------------------------------------


@pytest.mark.parametrize("kind", ["nested", "none"])
def test_batching_and_padding_match_jraph(jr, kind):
    jraph, jax, _ = jr
    graphs = _graphs(kind) + _graphs(kind)[:1]
    theirs = [_jraph_graph(jraph, g) for g in graphs]
    batched = gt.batch(graphs)
    # the NumPy forms (jraph's jax.numpy batch / unbatch: test_jraph_gaps.py); ids and
    # counts keep int32 here where jraph's batch_np makes them int64 (documented)
    _same(batched, jraph.batch_np(theirs), "batch_np")
    assert gt.batch_np is gt.batch and gt.unbatch_np is gt.unbatch
    # jraph's unbatch_np shifts the ids in place: give it its own copies
    copy = batched._replace(senders=batched.senders.copy(), receivers=batched.receivers.copy())
    for ours, want in zip(gt.unbatch(batched), jraph.unbatch_np(_jraph_graph(jraph, copy))):
        _same(ours, want, "unbatch_np", dtypes=True)
    # padded to room for 4 padding nodes and 0 / 3 padding edges, 2 padding graphs
    for n_edge in (6, 9):
        padded = gt.pad_with_graphs(batched, 12, n_edge, 6)
        want = jraph.pad_with_graphs(_jraph_graph(jraph, batched), 12, n_edge, 6)
        _same(padded, want, f"pad_with_graphs({n_edge})")  # ids: int32 kept here (documented)
        want = _jraph_graph(jraph, padded)
        for name in (
            "get_number_of_padding_with_graphs_graphs",
            "get_number_of_padding_with_graphs_nodes",
            "get_number_of_padding_with_graphs_edges",
            "get_edge_padding_mask",
            "get_graph_padding_mask",
            "unpad_with_graphs",
        ):
            _same(getattr(gt, name)(padded), getattr(jraph, name)(want), name)
        if kind != "none":  # jraph needs node features for the node mask
            _same(gt.get_node_padding_mask(padded), jraph.get_node_padding_mask(want), "mask")
            _same(gt.zero_out_padding(padded), jraph.zero_out_padding(want), "zero_out")
            net = lambda g: g._replace(nodes=jax.tree_util.tree_map(lambda x: x + 1, g.nodes))  # noqa: E731
            _same(
                gt.with_zero_out_padding_outputs(net)(padded),
                jraph.with_zero_out_padding_outputs(net)(want),
                "with_zero_out_padding_outputs",
            )


@pytest.mark.parametrize("sizes", [(7, 4, 3), (10, 10, 10), (7, 4, 4)])
def test_dynamically_batch_matches_jraph(jr, sizes):
    jraph, _, _ = jr
    graphs = _graphs("nested")
    stream = graphs + [gt.batch(graphs[:2])] + graphs
    ours = list(gt.dynamically_batch(iter(stream), *sizes))
    theirs = list(jraph.dynamically_batch(iter([_jraph_graph(jraph, g) for g in stream]), *sizes))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _same(a, b, "dynamically_batch")


@pytest.mark.parametrize(("n", "k", "self_edges"), [(0, 2, True), (3, 2, False)])
def test_fully_connected_graph_matches_jraph(jr, n, k, self_edges):
    jraph, _, _ = jr
    nodes = {"x": np.arange(n * k, dtype=F32).reshape(n * k, 1)}
    globals_ = np.ones((k, 2), F32)
    ours = gt.get_fully_connected_graph(n, k, nodes, globals_, self_edges)
    theirs = jraph.get_fully_connected_graph(n, k, nodes, globals_, self_edges)
    _same(ours, theirs, "get_fully_connected_graph")  # ids int64 here (documented)


# --- segment operations ---------------------------------------------------------------

SEGMENT_OPS = [
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "segment_variance",
    "segment_normalize",
    "segment_softmax",
    "segment_max_or_constant",
    "segment_min_or_constant",
]
ROW_OPS = ("segment_normalize", "segment_softmax")  # a row per input row: ids in range

_DATA = np.array([[1.0, -2.0], [5.0, 0.5], [2.0, 2.0], [-3.0, 1.0], [0.0, 4.0]], F32)
SEGMENT_CASES = {
    # (data, ids, num_segments, keywords); one data shape and 5 segments where possible
    # (JAX compiles once per shape): ids unsorted, segment 3 empty
    "int32": (np.array([[4], [-1], [7], [2], [9]], np.int32), [2, 0, 2, 0, 4], 5, {}),
    "default_n": (_DATA, [0, 2, 2, 1, 4], None, {}),
    "flags": (_DATA, [0, 1, 2, 3, 4], 5, {"indices_are_sorted": True, "unique_indices": True}),
    "empty": (np.zeros((0, 2), F32), [], 5, {}),
    "dropped_ids": (_DATA, [0, 7, 2, -1, 2], 5, {}),
}


@pytest.mark.parametrize("case", sorted(SEGMENT_CASES))
@pytest.mark.parametrize("op", SEGMENT_OPS)
def test_segment_ops_match_jraph(jr, op, case):
    jraph, _, _ = jr
    data, ids, n, kwargs = SEGMENT_CASES[case]
    ids = np.array(ids, np.int32)
    if case == "dropped_ids" and op in ROW_OPS:
        with pytest.raises(ValueError, match=f"{op}: segment_ids has entry"):
            getattr(gt, op)(data, ids, n)  # documented: jraph gives rows for dropped ids
        return
    ours = getattr(gt, op)(data, ids, n, **kwargs)
    theirs = getattr(jraph, op)(data, ids, n, **kwargs)
    _same(ours, theirs, op, dtypes=True)


@pytest.mark.parametrize("op", ["segment_sum", "segment_max", "segment_softmax"])
def test_segment_ops_by_keyword_and_constant(jr, op):
    jraph, _, _ = jr
    data, ids = _DATA, np.array([2, 0, 2, 0, 4], np.int32)
    first = "logits" if op == "segment_softmax" else "data"
    kwargs = {first: data, "segment_ids": ids, "num_segments": 5}
    _same(getattr(gt, op)(**kwargs), getattr(jraph, op)(**kwargs), op, dtypes=True)
    const = op.replace("segment_sum", "segment_min").replace("softmax", "max") + "_or_constant"
    _same(
        getattr(gt, const)(data, ids, 5, False, False, -7.0),
        getattr(jraph, const)(data, ids, 5, False, False, -7.0),
        const,
        dtypes=True,
    )


def test_num_segments_as_a_zero_d_integer_array(jr):
    # jax.ops takes anything int() takes exactly: NumPy / JAX 0-d integer arrays too
    jraph, _, jnp = jr
    data, ids = _DATA, np.array([2, 0, 2, 0, 4], np.int32)
    for n in (np.array(5), np.int64(5), jnp.int32(5)):
        for op in ("segment_sum", "segment_max_or_constant", "segment_softmax"):
            _same(getattr(gt, op)(data, ids, n), getattr(jraph, op)(data, ids, n), op)
    for bad in (5.0, np.array(5.0), np.array([5]), True):
        with pytest.raises(TypeError, match="segment_sum: num_segments must be an int"):
            gt.segment_sum(data, ids, bad)


@pytest.mark.parametrize(("partitions", "total"), [([0, 3, 2], None), ([2, 0, 3], 5)])
def test_partition_softmax_matches_jraph(jr, partitions, total):
    jraph, _, _ = jr
    counts = np.array(partitions, np.int32)
    _same(
        gt.partition_softmax(_DATA, counts, total),
        jraph.partition_softmax(_DATA, counts, total),
        "partition_softmax",
        dtypes=True,
    )


def test_padding_sizes_as_zero_d_arrays(jr):
    jraph, _, _ = jr
    graph = gt.batch(_graphs("arrays"))
    sizes = (np.array(9), np.array(5), np.array(4))
    _same(
        gt.pad_with_graphs(graph, *sizes),
        jraph.pad_with_graphs(_jraph_graph(jraph, graph), *sizes),
        "pad_with_graphs",
    )
    got = list(gt.dynamically_batch(iter(_graphs("arrays")), *sizes))
    assert [b.n_node.tolist() for b in got] == [[3, 0, 2, 4]]
    with pytest.raises(TypeError, match="pad_with_graphs: n_node must be an int"):
        gt.pad_with_graphs(graph, np.array([9]), 5, 4)


# --- models ---------------------------------------------------------------------------

_W = np.random.default_rng(5).normal(size=(16, 8)).astype(F32)


def _fns(xp):
    """Update functions written once over ``xp`` (NumPy or jax.numpy)."""
    import jax

    w = xp.asarray(_W)

    def cat(*trees):
        leaves = [leaf for t in trees for leaf in jax.tree_util.tree_leaves(t)]
        return xp.concatenate([leaf.reshape(leaf.shape[0], -1) for leaf in leaves], axis=-1)

    def dense(x, cols):
        return xp.tanh(x @ w[: x.shape[-1], :cols])

    return {
        "edge": lambda e, s, r, g: {"m": dense(cat(e, s, r, g), 2)},
        "node": lambda n, s, r, g: {"h": dense(cat(n, s, r, g), 3)},
        "glob": lambda n, e, g: dense(cat(n, e, g), 2),
        "logit": lambda e, s, r, g: {"m": dense(cat(e, s, r), 1)},
        "reduce": lambda e, wt: {"m": e["m"] * wt["m"]},
        "dense": dense,
        "cat": cat,
    }


def _model_graphs(jraph):
    """A padded batch holding a zero-node and a zero-edge graph (one shape for all the
    model tests: JAX compiles once per shape)."""
    graph = gt.pad_with_graphs(gt.batch(_graphs("nested") + _graphs("nested")[:1]), 12, 9, 6)
    return graph, _jraph_graph(jraph, graph)


AGGREGATES = ["segment_sum", "segment_mean", "segment_max_or_constant"]


@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_graph_network_aggregates_match_jraph(jr, aggregate):
    jraph, jax, jnp = jr
    ours_g, their_g = _model_graphs(jraph)

    def net(mod, f):
        agg = getattr(mod, aggregate)
        return mod.GraphNetwork(f["edge"], f["node"], f["glob"], agg, agg, agg)

    _same(net(gt, _fns(np))(ours_g), jax.jit(net(jraph, _fns(jnp)))(their_g), "GraphNetwork")


@pytest.mark.parametrize("model", ["GraphNetwork", "GraphNetGAT"])
def test_graph_network_attention_matches_jraph(jr, model):
    jraph, jax, jnp = jr
    ours_g, their_g = _model_graphs(jraph)

    def net(mod, f):
        if model == "GraphNetGAT":  # the default softmax over tree logits
            return mod.GraphNetGAT(f["edge"], f["node"], f["logit"], f["reduce"], f["glob"])
        return mod.GraphNetwork(
            f["edge"],
            f["node"],
            f["glob"],
            aggregate_edges_for_nodes_fn=functools.partial(
                mod.segment_min_or_constant, constant=-1.0
            ),
            attention_logit_fn=f["logit"],
            attention_normalize_fn=mod.segment_normalize,
            attention_reduce_fn=f["reduce"],
        )

    _same(net(gt, _fns(np))(ours_g), jax.jit(net(jraph, _fns(jnp)))(their_g), model)


def test_graph_network_none_fields_match_jraph(jr):
    jraph, jax, jnp = jr
    ours_g, their_g = _model_graphs(jraph)
    for mod, graph, run in ((gt, ours_g, lambda f: f), (jraph, their_g, jax.jit)):
        bare = graph._replace(edges=None, globals=None)
        seen = lambda n, s, r, g: np.array([s is None, r is None, g is None])  # noqa: E731
        assert run(mod.GraphNetwork(None, seen))(bare).nodes.tolist() == [True] * 3
        pooled = run(mod.GraphNetwork(None, None, lambda n, e, g: (e, g)))(bare).globals
        assert pooled == (None, None)
    edge_only = lambda mod, f: mod.GraphNetwork(f["edge"], None)  # noqa: E731
    bare_o, bare_t = ours_g._replace(globals=None), their_g._replace(globals=None)
    _same(edge_only(gt, _fns(np))(bare_o), jax.jit(edge_only(jraph, _fns(jnp)))(bare_t), "edges")


def test_interaction_relation_deepsets_map_features_match_jraph(jr):
    jraph, jax, jnp = jr
    ours_g, their_g = _model_graphs(jraph)
    ours_f, their_f = _fns(np), _fns(jnp)

    def models(mod, f):
        yield mod.InteractionNetwork(
            lambda e, s, r: f["edge"](e, s, r, None), lambda n, r: f["node"](n, r, None, None)
        )
        yield mod.InteractionNetwork(
            lambda e, s, r: f["edge"](e, s, r, None),
            lambda n, s, r: f["node"](n, s, r, None),
            mod.segment_mean,
            include_sent_messages_in_node_update=True,
        )
        yield mod.RelationNetwork(
            lambda s, r: f["dense"](f["cat"](s, r), 2), lambda e: e, mod.segment_mean
        )
        yield mod.DeepSets(
            lambda n, g: f["dense"](f["cat"](n, g), 2), lambda n: n, mod.segment_max_or_constant
        )
        yield mod.GraphMapFeatures(lambda e: e[0] * 2, None, lambda g: g["u"])

    for i, (ours, theirs) in enumerate(zip(models(gt, ours_f), models(jraph, their_f))):
        _same(ours(ours_g), jax.jit(theirs)(their_g), f"model {i}")


@pytest.mark.parametrize(
    ("aggregate", "self_edges", "symmetric"),
    [("segment_sum", False, True), ("segment_mean", True, True), ("segment_sum", True, False)],
)
def test_graph_convolution_matches_jraph(jr, aggregate, self_edges, symmetric):
    jraph, jax, jnp = jr
    ours_g, their_g = _model_graphs(jraph)

    def net(mod, xp):
        def embed(n):  # a tree with an int32 leaf
            return {"a": n["a"] * 2, "b": [n["a"][:, :1]], "i": (n["a"] * 3).astype(xp.int32)}

        return mod.GraphConvolution(embed, getattr(mod, aggregate), self_edges, symmetric)

    # integer features normalised give float32, as jraph (JAX's default float)
    _same(net(gt, np)(ours_g), jax.jit(net(jraph, jnp))(their_g), "GCN", dtypes=True)


def test_gat_matches_jraph(jr):
    jraph, jax, jnp = jr
    heads = 2
    ours_g, their_g = _model_graphs(jraph)
    w = np.random.default_rng(3).normal(size=(2, 6)).astype(F32)

    def parts(xp):
        def query(n):
            q = n @ xp.asarray(w)
            return q.reshape(q.shape[0], heads, 6 // heads)

        def logit(s, r, e):
            return xp.tanh(xp.concatenate([s, r], -1).sum(-1, keepdims=True))

        return query, logit

    # jraph's GAT takes one node array, not a tree
    ours_g, their_g = (
        ours_g._replace(nodes=ours_g.nodes["a"]),
        their_g._replace(nodes=ours_g.nodes["a"]),
    )
    for update in (None, lambda x: x):
        _same(
            gt.GAT(*parts(np), update)(ours_g),
            jax.jit(jraph.GAT(*parts(jnp), update))(their_g),
            "GAT",
        )


# --- concatenated_args ----------------------------------------------------------------


def test_concatenated_args_matches_jraph(jr):
    jraph, _, _ = jr
    a, b, c = np.ones((2, 1), F32), np.zeros((2, 2), F32), np.full((2, 1), 3.0, F32)
    ordered = collections.OrderedDict([("z", b), ("a", c)])  # JAX keeps insertion order
    Pair = collections.namedtuple("Pair", "z y")
    for args, kwargs in (
        ((a, {"z": b, "a": c}), {}),
        ((ordered,), {}),
        ((a, None, Pair(b, c)), {"k": [c], "b": a}),
    ):
        _same(
            gt.concatenated_args(lambda x: x)(*args, **kwargs),
            jraph.concatenated_args(lambda x: x)(*args, **kwargs),
            "concatenated_args",
        )
    _same(
        gt.concatenated_args(axis=0)(lambda x: x)(a, c),
        jraph.concatenated_args(axis=0)(lambda x: x)(a, c),
        "concatenated_args(axis=0)",
    )
