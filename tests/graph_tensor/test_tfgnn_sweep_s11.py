"""Parity sweep of the TF-GNN face against NumPy re-derivations of TF-GNN's sources
(tensorflow_gnn/graph/{pool_ops,broadcast_ops,graph_tensor_ops,normalization_ops}.py,
models/multi_head_attention/layers.py; TF-GNN is not installed here).

The oracles below follow TF-GNN's code paths: ``tf.math.unsorted_segment_*`` (empty
segments: 0 for sum, 1 for prod, the dtype's lowest / highest value for max / min, mean =
sum / max(count, 1)), TF-GNN's single-set / multi-set reducers (``max_no_inf`` turns results
``<= dtype.min`` into 0, ``"mean"`` with ``"sum"`` or over several sets is ``divide_no_nan(sum,
count)``), TF's ragged segment aggregation (output rows as long as the longest input row)
and the documented arraygnn rule that plain ``"max"`` / ``"min"`` give 0 for empty rows.
Graphs: three components with an empty component per node set, an isolated empty node set,
an edge set without edges, multi-edges and self-loops, ragged features, and a graph with
zero components.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    add_self_loops,
    broadcast,
    broadcast_context_to_edges,
    broadcast_context_to_nodes,
    broadcast_node_to_edges,
    combine_values,
    convert_to_line_graph,
    gather_first_node,
    mask_edges,
    node_degree,
    pool,
    pool_edges_to_context,
    pool_edges_to_node,
    pool_neighbors_to_node,
    pool_nodes_to_context,
    reorder_nodes,
    softmax,
)

# ---------------------------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------------------------

#: edge set -> (source set, target set, sources, targets, sizes); all within components
_EDGES = {
    "ab": ("a", "b", [0, 1, 1], [0, 0, 0], [3, 0, 0]),  # multi-edge a1 -> b0
    "bb": ("b", "b", [0, 1, 2, 2], [0, 2, 2, 1], [1, 3, 0]),  # self-loops b0, b2
    "aa": ("a", "a", [1, 2, 3, 4], [0, 4, 4, 2], [1, 0, 3]),
    "none": ("a", "b", [], [], [0, 0, 0]),
}
_NODES = {"a": [2, 0, 3], "b": [1, 2, 0], "iso": [0, 0, 0]}


def _graph(seed: int = 0, zero_components: bool = False) -> GraphTensor:
    rng = np.random.default_rng(seed)
    c = 0 if zero_components else 3

    def sizes(s):
        return np.asarray(s[:c], dtype=np.int64)

    def ragged(n):
        lengths = rng.integers(0, 3, n)
        return Ragged.from_row_lengths(rng.standard_normal(int(lengths.sum())), lengths)

    nodes = {}
    for name, s in _NODES.items():
        n = int(sum(s[:c]))
        feats = {"x": rng.standard_normal((n, 2)), "i": rng.integers(-5, 5, n).astype(np.int32)}
        if name == "a":
            feats["r"] = ragged(n)
        nodes[name] = NodeSet.from_fields(sizes=sizes(s), features=feats)
    edges = {}
    for name, (s_set, t_set, src, tgt, es) in _EDGES.items():
        k = int(sum(es[:c]))
        edges[name] = EdgeSet.from_fields(
            sizes=sizes(es),
            adjacency=Adjacency.from_indices(
                (s_set, np.asarray(src[:k], dtype=np.int64)),
                (t_set, np.asarray(tgt[:k], dtype=np.int64)),
            ),
            features={"w": rng.standard_normal((k, 2)), "r": ragged(k)},
        )
    context = Context.from_fields(
        features={"c": rng.standard_normal((c, 2)), "tok": ragged(c)}, sizes=np.ones(c, np.int64)
    )
    return GraphTensor.from_pieces(context=context, node_sets=nodes, edge_sets=edges)


GRAPHS = [_graph(0), _graph(1, zero_components=True)]

# ---------------------------------------------------------------------------------------------
# oracles (TF-GNN's code paths in NumPy)
# ---------------------------------------------------------------------------------------------


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _segment(values, seg, n, kind):
    """``tf.math.unsorted_segment_{sum,prod,max,min,mean}`` and TF-GNN's ``_count``."""
    shape = (n, *values.shape[1:])
    if kind == "_count":
        return np.bincount(seg, minlength=n).astype(values.dtype)
    if kind == "mean":  # sum / max(N, 1); int / int is float64 (TF's truediv)
        total = _segment(values, seg, n, "sum")
        count = np.maximum(np.bincount(seg, minlength=n), 1)
        count = count.reshape((-1,) + (1,) * (len(shape) - 1))
        return total / count.astype(total.dtype if total.dtype.kind == "f" else np.float64)
    init = {"sum": 0, "prod": 1, "max": _lowest(values.dtype), "min": _highest(values.dtype)}
    out = np.full(shape, init[kind], dtype=values.dtype)
    ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind]
    with np.errstate(invalid="ignore"):  # inf - inf
        ufunc.at(out, seg, values)
    return out


def tf_pool(pieces, n, reduce_type):
    """TF-GNN's ``_pool_internal`` over ``pieces`` = [(values, segment ids)], with arraygnn's
    documented rule for plain max / min of an empty row (0, not the dtype's extreme)."""
    reduce_types = reduce_type.split("|")
    single = set(reduce_types) if len(pieces) == 1 else set()
    if len(pieces) == 1:
        if "mean" in single and "sum" in single:
            single -= {"mean", "sum"}
        single -= {"max_no_inf", "min_no_inf"}
    count = sum(np.bincount(s, minlength=n) for _, s in pieces)
    out = []
    for rt in reduce_types:
        if rt in single:
            r = _segment(pieces[0][0], pieces[0][1], n, rt)
        else:
            base = {"max_no_inf": "max", "min_no_inf": "min"}.get(rt, rt)
            if base == "mean":
                total = sum(_segment(v, s, n, "sum") for v, s in pieces)
                cnt = count.reshape((-1,) + (1,) * (total.ndim - 1)).astype(total.dtype)
                r = np.divide(total, cnt, out=np.zeros_like(total), where=cnt != 0)
            else:
                parts = [_segment(v, s, n, base) for v, s in pieces]
                op = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}
                r = parts[0]
                for p in parts[1:]:
                    r = op[base](r, p)
            if rt == "max_no_inf":
                r = np.where(r <= _lowest(r.dtype), np.zeros((), r.dtype), r)
            elif rt == "min_no_inf":
                r = np.where(r >= _highest(r.dtype), np.zeros((), r.dtype), r)
        if rt in ("max", "min"):  # arraygnn's documented difference: empty rows give 0
            empty = (count == 0).reshape((-1,) + (1,) * (r.ndim - 1))
            r = np.where(empty, np.zeros((), r.dtype), r)
        out.append(r)
    return out[0] if len(out) == 1 else np.concatenate(out, axis=-1)


def _ragged_rows(r):
    s = r.row_splits
    return [r.values[s[i] : s[i + 1]] for i in range(r.nrows)]


def tf_pool_ragged(r, seg, n, reduce_type):
    """TF's ragged ``unsorted_segment_*`` as TF-GNN's pool of one set uses it: output row i
    is as long as the longest row pooled into it; position j reduces the rows having j;
    ``"mean"`` alone counts per position, with ``"sum"`` it divides by the number of rows
    (TF-GNN's MeanMultiReducer); ``*_no_inf`` drop values beyond the dtype's range;
    several reduce types are concatenated along the last axis (rank 2: the ragged one)."""
    names = reduce_type.split("|")
    rows = _ragged_rows(r)
    results = []
    for rt in names:
        base = {"max_no_inf": "max", "min_no_inf": "min"}.get(rt, rt)
        out_rows = []
        for i in range(n):
            members = [rows[e] for e in range(len(rows)) if seg[e] == i]
            length = max([len(m) for m in members], default=0)
            row = []
            for j in range(length):
                vals = np.stack([m[j] for m in members if len(m) > j])
                if base == "mean" and "sum" in names:
                    row.append(vals.sum(0) / len(members))
                else:
                    row.append(_segment(vals, np.zeros(len(vals), np.int64), 1, base)[0])
            out_rows.append(row)
        if rt.endswith("_no_inf"):
            test = (
                (lambda v: v <= _lowest(v.dtype))
                if base == "max"
                else (lambda v: v >= _highest(v.dtype))
            )
            out_rows = [[np.where(test(v), 0, v) for v in row] for row in out_rows]
        results.append(out_rows)
    if len(results) == 1:
        return [[np.asarray(v).tolist() for v in row] for row in results[0]]
    if r.values.ndim > 1:  # a feature axis: concatenated at each position
        return [
            [
                np.concatenate([np.atleast_1d(res[i][j]) for res in results]).tolist()
                for j in range(len(results[0][i]))
            ]
            for i in range(n)
        ]
    return [[float(v) for res in results for v in res[i]] for i in range(n)]


def _assert_nested(got, want):
    """Nested lists (Ragged.to_list()) equal in structure and close in value."""
    assert isinstance(got, list) == isinstance(want, list), (got, want)
    if not isinstance(got, list):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        return
    assert len(got) == len(want), (got, want)
    for x, y in zip(got, want):
        _assert_nested(x, y)


def _assert_close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _component_ids(sizes):
    return np.repeat(np.arange(len(sizes)), sizes)


# ---------------------------------------------------------------------------------------------
# pool and broadcast, dense
# ---------------------------------------------------------------------------------------------

REDUCE = [
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "max_no_inf",
    "min_no_inf",
    "sum|mean",
    "mean|max_no_inf|min",
]


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
@pytest.mark.parametrize("reduce_type", REDUCE)
def test_pool_matches_tfgnn_pool_internal(g, reduce_type):
    nodes_total = {n: g.node_sets[n].total_size for n in g.node_sets}
    # edges -> node, one set and several (they share the node set at the tag)
    for names, tag in [
        (["ab"], TARGET),
        (["ab"], SOURCE),
        (["none"], TARGET),
        (["bb"], SOURCE),
        (["ab", "bb"], TARGET),
        (["ab", "none", "aa"], SOURCE),
    ]:
        es = [g.edge_sets[n] for n in names]
        pieces = [(e["w"], e.adjacency[tag]) for e in es]
        node_set = es[0].adjacency.node_set_name(tag)
        want = tf_pool(pieces, nodes_total[node_set], reduce_type)
        if len(names) == 1:
            got = pool_edges_to_node(g, names[0], tag, reduce_type, feature_name="w")
            _assert_close(
                pool(g, tag, edge_set_name=names[0], reduce_type=reduce_type, feature_name="w"),
                want,
            )
        else:
            got = pool(g, tag, edge_set_name=names, reduce_type=reduce_type, feature_name="w")
        _assert_close(got, want)
    # nodes / edges -> context
    c = g.num_components
    for kind, names in [
        ("node", ["a"]),
        ("node", ["iso"]),
        ("node", ["a", "b", "iso"]),
        ("edge", ["none"]),
        ("edge", ["aa", "ab"]),
    ]:
        sets = g.node_sets if kind == "node" else g.edge_sets
        feat = "x" if kind == "node" else "w"
        pieces = [(sets[n][feat], _component_ids(sets[n].sizes)) for n in names]
        want = tf_pool(pieces, c, reduce_type)
        arg = {f"{kind}_set_name": names if len(names) > 1 else names[0]}
        got = pool(g, CONTEXT, reduce_type=reduce_type, feature_name=feat, **arg)
        _assert_close(got, want)
        if len(names) == 1:
            fn = pool_nodes_to_context if kind == "node" else pool_edges_to_context
            _assert_close(fn(g, names[0], reduce_type, feature_name=feat), want)


@pytest.mark.parametrize("reduce_type", ["sum", "mean", "max", "min", "prod", "max_no_inf"])
def test_pool_of_integers_float32_and_infinities_matches_tfgnn(reduce_type):
    g = GRAPHS[0]
    # integers: TF's int sentinels; mean of ints is float64 (TF's truediv)
    ints = g.node_sets["a"]["i"]
    want = tf_pool([(ints, _component_ids(g.node_sets["a"].sizes))], 3, reduce_type)
    got = pool_nodes_to_context(g, "a", reduce_type, feature_value=ints)
    assert got.dtype == want.dtype
    _assert_close(got, want)
    # -inf / +inf values: max_no_inf drops a -inf maximum, keeps a +inf one
    w = np.array([[-np.inf, 1.0], [np.inf, -np.inf], [2.0, -np.inf]])
    tgt = g.edge_sets["ab"].adjacency.target
    want = tf_pool([(w, tgt)], 3, reduce_type)
    _assert_close(pool_edges_to_node(g, "ab", TARGET, reduce_type, feature_value=w), want)
    # float32 stays float32 (TF's segment ops keep the dtype)
    x32 = g.node_sets["b"]["x"].astype(np.float32)
    got = pool(g, CONTEXT, node_set_name="b", reduce_type=reduce_type, feature_value=x32)
    want = tf_pool([(x32, _component_ids(g.node_sets["b"].sizes))], 3, reduce_type)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_pool_and_broadcast_refuse_what_tfgnn_refuses():
    g = GRAPHS[0]
    w = g.edge_sets["ab"]["w"]
    with pytest.raises(ValueError):  # a list of values needs a list of names
        pool(g, TARGET, edge_set_name="ab", reduce_type="sum", feature_value=[w])
    with pytest.raises(ValueError):  # ... and the other way round
        pool(g, TARGET, edge_set_name=["ab", "bb"], reduce_type="sum", feature_value=w)
    with pytest.raises(ValueError):  # several reduce types need a feature axis (rank >= 2)
        pool(g, TARGET, edge_set_name="ab", reduce_type="sum|max", feature_value=w[:, 0])
    with pytest.raises(ValueError):  # different node sets at the tag
        pool(g, TARGET, edge_set_name=["ab", "aa"], reduce_type="sum", feature_name="w")
    with pytest.raises(ValueError):
        broadcast(g, SOURCE, edge_set_name=["ab", "bb"], feature_name="x")
    with pytest.raises(ValueError):  # node_set_name only with CONTEXT
        pool(g, TARGET, node_set_name="a", reduce_type="sum", feature_name="x")
    with pytest.raises(ValueError):  # CONTEXT: exactly one of the names
        broadcast(g, CONTEXT, node_set_name="a", edge_set_name="ab", feature_name="c")
    with pytest.raises(ValueError):  # exactly one of feature_value / feature_name
        broadcast(g, CONTEXT, node_set_name="a")
    with pytest.raises(ValueError):  # empty reduce type
        pool(g, TARGET, edge_set_name="ab", reduce_type="", feature_name="w")
    with pytest.raises(ValueError):  # an empty list of names
        pool(g, TARGET, edge_set_name=[], reduce_type="sum", feature_name="w")


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
def test_broadcast_matches_tfgnn_gathers(g):
    for name in g.edge_sets:
        es = g.edge_sets[name]
        for tag in (SOURCE, TARGET):
            ns = g.node_sets[es.adjacency.node_set_name(tag)]
            want = ns["x"][es.adjacency[tag]]
            _assert_close(broadcast_node_to_edges(g, name, tag, feature_name="x"), want)
            _assert_close(broadcast(g, tag, edge_set_name=name, feature_name="x"), want)
        want = g.context["c"][_component_ids(es.sizes)]
        _assert_close(broadcast_context_to_edges(g, name, feature_name="c"), want)
    for name in g.node_sets:
        want = g.context["c"][_component_ids(g.node_sets[name].sizes)]
        _assert_close(broadcast_context_to_nodes(g, name, feature_name="c"), want)
    # a list of names: one result per set, from ONE value of the shared side (TF-GNN)
    got = broadcast(g, SOURCE, edge_set_name=["ab", "none", "aa"], feature_name="x")
    assert isinstance(got, list) and len(got) == 3
    for name, r in zip(["ab", "none", "aa"], got):
        _assert_close(r, g.node_sets["a"]["x"][g.edge_sets[name].adjacency.source])
    got = broadcast(g, CONTEXT, node_set_name=["a", "iso"], feature_value=g.context["c"])
    _assert_close(got[1], np.zeros((0, 2)))


# ---------------------------------------------------------------------------------------------
# ragged values: TF-GNN broadcasts them, and pools them from one set
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
def test_broadcast_of_ragged_values_gathers_rows(g):
    r = g.node_sets["a"]["r"]
    rows = _ragged_rows(r)
    for name in ("ab", "aa", "none"):
        src = g.edge_sets[name].adjacency.source
        got = broadcast_node_to_edges(g, name, SOURCE, feature_name="r")
        assert isinstance(got, Ragged)
        assert got.to_list() == [rows[i].tolist() for i in src]
    tok = _ragged_rows(g.context["tok"])
    got = broadcast_context_to_nodes(g, "a", feature_name="tok")
    assert got.to_list() == [tok[i].tolist() for i in _component_ids(g.node_sets["a"].sizes)]
    got = broadcast(g, CONTEXT, edge_set_name="bb", feature_name="tok")
    assert got.to_list() == [tok[i].tolist() for i in _component_ids(g.edge_sets["bb"].sizes)]
    got = pool_neighbors_to_node(g, "aa", TARGET, reduce_type="sum", feature_name="r")
    on_edges = Ragged.from_list([rows[i].tolist() for i in g.edge_sets["aa"].adjacency.source])
    want = tf_pool_ragged(
        on_edges, g.edge_sets["aa"].adjacency.target, g.node_sets["a"].total_size, "sum"
    )
    _assert_nested(got.to_list(), want)


@pytest.mark.parametrize("reduce_type", REDUCE + ["max_no_inf|sum"])
def test_pool_of_ragged_values_matches_tf_ragged_segment_ops(reduce_type):
    g = GRAPHS[0]
    # rows of unequal length meet at one node (TF: the output row is the longest)
    r = Ragged.from_list([[1.0, -2.0], [3.0], [-np.inf, 5.0, 6.0]])
    for tag in (TARGET, SOURCE):
        seg = g.edge_sets["ab"].adjacency[tag]
        n = g.node_sets[g.edge_sets["ab"].adjacency.node_set_name(tag)].total_size
        got = pool_edges_to_node(g, "ab", tag, reduce_type, feature_value=r)
        assert isinstance(got, Ragged) and got.nrows == n
        _assert_nested(got.to_list(), tf_pool_ragged(r, seg, n, reduce_type))
    # values with a feature axis: [rows, None, 2]; the context of each component
    r2 = Ragged(np.arange(10.0).reshape(5, 2) - 4, np.array([0, 2, 2, 3, 5]))
    got = pool_edges_to_context(g, "aa", reduce_type, feature_value=r2)
    want = tf_pool_ragged(r2, _component_ids(g.edge_sets["aa"].sizes), 3, reduce_type)
    _assert_nested(got.to_list(), want)
    # a ragged feature by name, and the zero-component graph
    r = g.node_sets["a"]["r"]
    got = pool(g, CONTEXT, node_set_name="a", reduce_type=reduce_type, feature_name="r")
    want = tf_pool_ragged(r, _component_ids(g.node_sets["a"].sizes), 3, reduce_type)
    _assert_nested(got.to_list(), want)
    got = pool_edges_to_node(GRAPHS[1], "aa", TARGET, reduce_type, feature_name="r")
    assert got.nrows == 0 and got.values.shape[0] == 0


def test_pool_of_ragged_values_from_several_sets_raises_as_tfgnn():
    g = GRAPHS[0]
    with pytest.raises(TypeError, match="ragged"):
        pool(g, TARGET, edge_set_name=["ab", "bb"], reduce_type="sum", feature_name="r")
    with pytest.raises(ValueError, match=r"has 2 \(ragged\) rows, expected 3"):
        pool_edges_to_node(g, "ab", TARGET, feature_value=Ragged.from_list([[1.0], [2.0]]))
    nested = Ragged(Ragged.from_list([[1.0], [2.0], [3.0]]), np.array([0, 1, 2, 3]))
    with pytest.raises(TypeError, match="two ragged dimensions"):
        pool_edges_to_node(g, "ab", TARGET, feature_value=nested)


# ---------------------------------------------------------------------------------------------
# graph ops
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
def test_softmax_matches_tfgnn_formula(g):
    def tf_softmax(values, segs, n):  # pool max, broadcast, exp, pool sum, broadcast
        pieces = list(zip(values, segs))
        peak = tf_pool(pieces, n, "max")
        exps = [np.exp(v - peak[s]) for v, s in pieces]
        total = tf_pool(list(zip(exps, segs)), n, "sum")
        return [e / total[s] for e, s in zip(exps, segs)]

    b = g.node_sets["b"].total_size
    for names in (["bb"], ["ab", "bb", "none"]):
        vals = [g.edge_sets[n]["w"] for n in names]
        segs = [g.edge_sets[n].adjacency.target for n in names]
        want = tf_softmax(vals, segs, b)
        got = softmax(g, TARGET, edge_set_name=names, feature_name="w")
        for x, y in zip(got, want):
            _assert_close(x, y)
        got = softmax(g, TARGET, edge_set_name=names, feature_value=[v[:, 0] for v in vals])
        for x, y in zip(got, want):
            _assert_close(x, y[:, 0])
    want = tf_softmax(
        [g.node_sets["a"]["x"]], [_component_ids(g.node_sets["a"].sizes)], g.num_components
    )[0]
    _assert_close(softmax(g, CONTEXT, node_set_name="a", feature_name="x"), want)


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
def test_node_degree_and_gather_first_node(g):
    for name, es in g.edge_sets.items():
        for tag in (SOURCE, TARGET):
            n = g.node_sets[es.adjacency.node_set_name(tag)].total_size
            got = node_degree(g, name, tag)
            assert got.dtype == es.adjacency[tag].dtype  # ones_like(adjacency[tag]), pooled
            _assert_close(got, np.bincount(es.adjacency[tag], minlength=n))
    if g.num_components:  # TF-GNN: assert_positive(sizes)
        with pytest.raises(ValueError, match=r"components \[1\] have no node"):
            gather_first_node(g, "a", feature_name="x")
    ns = g.node_sets["iso"] if not g.num_components else None
    if ns is not None:  # zero components: nothing to gather, no error
        _assert_close(gather_first_node(g, "iso", feature_name="x"), np.zeros((0, 2)))
    first = np.cumsum(g.node_sets["b"].sizes) - g.node_sets["b"].sizes
    sizes = g.node_sets["b"].sizes
    if np.all(sizes > 0):
        _assert_close(gather_first_node(g, "b", feature_name="x"), g.node_sets["b"]["x"][first])


def _tf_add_self_loops(g, name):
    """TF-GNN's interleaving: per component, its edges, then one loop per node."""
    es = g.edge_sets[name]
    ns = g.node_sets[es.adjacency.source_name]
    e_ptr = np.concatenate([[0], np.cumsum(es.sizes)])
    n_ptr = np.concatenate([[0], np.cumsum(ns.sizes)])
    src, tgt, w = [], [], []
    for c in range(len(es.sizes)):
        edges, loops = slice(e_ptr[c], e_ptr[c + 1]), list(range(n_ptr[c], n_ptr[c + 1]))
        src += es.adjacency.source[edges].tolist() + loops
        tgt += es.adjacency.target[edges].tolist() + loops
        w += es["w"][edges].tolist() + [[0.0, 0.0]] * len(loops)
    return src, tgt, np.asarray(w).reshape(-1, 2), es.sizes + ns.sizes


@pytest.mark.parametrize("g", GRAPHS, ids=["3comp", "0comp"])
def test_edits_match_tfgnn(g):
    for name in ("aa", "bb"):
        out = add_self_loops(g, name).edge_sets[name]
        src, tgt, w, sizes = _tf_add_self_loops(g, name)
        assert out.adjacency.source.tolist() == src and out.adjacency.target.tolist() == tgt
        _assert_close(out["w"], w)
        assert out.sizes.tolist() == sizes.tolist()
    # mask_edges: kept edges per component, the rest in the masked-info set
    es = g.edge_sets["bb"]
    mask = np.arange(es.total_size) % 2 == 0
    out = mask_edges(g, "bb", mask, masked_info_edge_set_name="bb_masked")
    comp = _component_ids(es.sizes)
    kept, dropped = out.edge_sets["bb"], out.edge_sets["bb_masked"]
    assert kept.sizes.tolist() == np.bincount(comp[mask], minlength=len(es.sizes)).tolist()
    assert dropped.sizes.tolist() == (es.sizes - kept.sizes).tolist()
    assert kept.adjacency.target.tolist() == es.adjacency.target[mask].tolist()
    assert dropped.adjacency.source.tolist() == es.adjacency.source[~mask].tolist()
    assert kept["r"].to_list() == [x.tolist() for x, m in zip(_ragged_rows(es["r"]), mask) if m]
    # reorder_nodes: features gathered, adjacency through the inverse permutation
    n = g.node_sets["a"].total_size
    perm = np.random.default_rng(3).permutation(n)
    out = reorder_nodes(g, {"a": perm})
    _assert_close(out.node_sets["a"]["x"], g.node_sets["a"]["x"][perm])
    assert out.node_sets["a"]["r"].to_list() == [
        _ragged_rows(g.node_sets["a"]["r"])[i].tolist() for i in perm
    ]
    new_pos = np.argsort(perm)
    for name in ("aa", "ab"):
        a0, a1 = g.edge_sets[name].adjacency, out.edge_sets[name].adjacency
        assert a1.source.tolist() == new_pos[a0.source].tolist()
    assert (
        out.edge_sets["aa"].adjacency.target.tolist()
        == new_pos[g.edge_sets["aa"].adjacency.target].tolist()
    )
    assert out.edge_sets["ab"].adjacency.target is g.edge_sets["ab"].adjacency.target


def _hyper_graph():
    from arraygnn.graph_tensor import HyperAdjacency

    idx = {0: ("a", [0, 1, 2, 2]), 1: ("b", [0, 0, 1, 1]), 2: ("a", [1, 0, 2, 3])}
    adj = HyperAdjacency.from_indices({t: (n, np.array(i)) for t, (n, i) in idx.items()})
    return GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([2, 2]), features={"x": np.arange(4.0)}),
            "b": NodeSet.from_fields(sizes=np.array([1, 1])),
        },
        edge_sets={
            "h": EdgeSet.from_fields(
                sizes=np.array([2, 2]), adjacency=adj, features={"w": np.arange(4.0)}
            )
        },
    )


def test_mask_and_reorder_keep_every_tag_of_a_hyper_adjacency():
    # TF-GNN's mask_edges / reorder_nodes loop over adjacency.get_indices_dict()
    from arraygnn.graph_tensor import shuffle_nodes

    g = _hyper_graph()
    ends = g.edge_sets["h"].adjacency.get_indices_dict()
    mask = np.array([True, False, False, True])
    out = mask_edges(g, "h", mask, masked_info_edge_set_name="rest")
    for name, keep in (("h", mask), ("rest", ~mask)):
        got = out.edge_sets[name].adjacency.get_indices_dict()
        assert sorted(got) == [0, 1, 2]
        for tag, (set_name, idx) in ends.items():
            assert got[tag][0] == set_name and got[tag][1].tolist() == idx[keep].tolist()
    assert out.edge_sets["h"].sizes.tolist() == [1, 1]
    perm = np.array([1, 0, 3, 2])
    out = reorder_nodes(g, {"a": perm})
    got = out.edge_sets["h"].adjacency.get_indices_dict()
    new_pos = np.argsort(perm)
    assert got[0][1].tolist() == new_pos[ends[0][1]].tolist()
    assert got[2][1].tolist() == new_pos[ends[2][1]].tolist()
    assert got[1][1] is ends[1][1]
    # shuffle_nodes: within components; every tag follows its node set
    out = shuffle_nodes(g, seed=4)
    x = out.node_sets["a"]["x"]
    got = out.edge_sets["h"].adjacency.get_indices_dict()
    for tag in (0, 2):
        assert x[got[tag][1]].tolist() == g.node_sets["a"]["x"][ends[tag][1]].tolist()
    assert sorted(x[:2].tolist()) == [0.0, 1.0]


def test_reorder_nodes_without_validation_renumbers_as_tfgnn():
    # TF-GNN: new_positions = unsorted_segment_sum(range(n), indices, n), also when the
    # indices are no permutation (validate=False checks nothing but their shape)
    g = _hyper_graph()
    index = np.array([1, 1, 0, 3])
    out = reorder_nodes(g, {"a": index}, validate=False)
    new_pos = np.zeros(4, np.int64)
    np.add.at(new_pos, index, np.arange(4))
    got = out.edge_sets["h"].adjacency[0]
    assert got.tolist() == new_pos[g.edge_sets["h"].adjacency[0]].tolist()
    assert out.node_sets["a"]["x"].tolist() == [1.0, 1.0, 0.0, 3.0]


def test_line_graph_matches_tfgnn_order():
    g = GRAPHS[0]
    es = g.edge_sets["aa"]
    src, tgt = es.adjacency.source, es.adjacency.target
    n = g.node_sets["a"].total_size
    for connect_from, connect_to in ((TARGET, SOURCE), (SOURCE, SOURCE)):
        # TF-GNN: sources repeat the argsort of the connect_from ends, targets the groups of
        # the argsort of the connect_to ends (tf.argsort: stable here)
        ends_f, ends_t = es.adjacency[connect_from], es.adjacency[connect_to]
        deg_f, deg_t = np.bincount(ends_f, minlength=n), np.bincount(ends_t, minlength=n)
        sort_f, sort_t = np.argsort(ends_f, kind="stable"), np.argsort(ends_t, kind="stable")
        want_src = np.repeat(sort_f, np.repeat(deg_t, deg_f))
        groups = np.split(sort_t, np.cumsum(deg_t)[:-1])
        want_tgt = np.concatenate([groups[v] for v in range(n) for _ in range(deg_f[v])])
        sizes = [
            int((deg_f * deg_t)[np.repeat(np.arange(3), g.node_sets["a"].sizes) == c].sum())
            for c in range(3)
        ]
        for non_backtracking in (False, True):
            out = convert_to_line_graph(
                g.remove_features(node_sets={"a": ["r"]}),
                connect_from=connect_from,
                connect_to=connect_to,
                non_backtracking=non_backtracking,
            ).edge_sets["aa=>aa"]
            keep = np.ones(len(want_src), bool)
            if non_backtracking:  # outer ends differ
                outer_in = es.adjacency[1 - connect_from][want_src]
                outer_out = es.adjacency[1 - connect_to][want_tgt]
                keep = outer_in != outer_out
            assert out.adjacency.source.tolist() == want_src[keep].tolist()
            assert out.adjacency.target.tolist() == want_tgt[keep].tolist()
            comp = np.repeat(np.arange(3), sizes)
            assert out.sizes.tolist() == np.bincount(comp[keep], minlength=3).tolist()
    del src, tgt


def test_combine_values_spec_items_and_validate_args():
    a, b = np.ones((2, 1)), np.full((2, 3), 2.0)
    _assert_close(combine_values([a, b], "concat"), np.concatenate([a, b], -1))
    _assert_close(combine_values([b, b, b], "sum"), 3 * b)
    with pytest.raises(ValueError, match="Unknown combine type|unknown combine_type"):
        combine_values([a], "mean")
    # piece specs are indexed by feature name, as TF-GNN's
    spec = GRAPHS[0].spec
    assert spec.node_sets_spec["a"]["x"].shape == (2,)
    assert spec.edge_sets_spec["ab"]["r"].shape == (None,)
    assert spec.context_spec["c"] == spec.context.features["c"]
    with pytest.raises(KeyError, match="no feature 'nope'"):
        spec.node_sets_spec["a"]["nope"]
    # TF-GNN's validate= on the piece constructors is accepted (arraygnn always checks)
    adj = Adjacency.from_indices(("n", np.array([0])), ("n", np.array([1])), validate=False)
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"c": np.ones((1, 1))}, validate=True),
        node_sets={"n": NodeSet.from_fields(sizes=np.array([2]), validate=False)},
        edge_sets={"e": EdgeSet.from_fields(sizes=np.array([1]), adjacency=adj, validate=None)},
    )
    assert g.edge_sets["e"].adjacency.target.tolist() == [1]


# ---------------------------------------------------------------------------------------------
# MultiHeadAttentionConv(share_key_transform=...)
# ---------------------------------------------------------------------------------------------


def _tf_mha(g, w, *, H, C, share, act, edge_input):
    """TF-GNN's MultiHeadAttentionConv.convolve (transform_keys=True, values transformed
    before pooling, rsqrt_dim), per edge, for edge set "aa" into TARGET, weights in Keras'
    get_weights() order: key_node, [key_edge], value_node, [value_edge], query."""
    es, x = g.edge_sets["aa"], g.node_sets["a"]["x"]
    src, tgt = es.adjacency.source, es.adjacency.target
    hk = 1 if share else H
    it = iter(w)
    kn_w, kn_b = next(it), next(it)
    ke_w = next(it) if edge_input else None
    vn_w, vn_b = next(it), next(it)
    ve_w = next(it) if edge_input else None
    q_w, q_b = next(it), next(it)
    f = (lambda z: np.maximum(z, 0)) if act == "relu" else (lambda z: z)
    q = f(x @ q_w + q_b).reshape(-1, H, C)[tgt]
    if edge_input:
        keys = f(((x @ kn_w + kn_b)[src] + es["w"] @ ke_w).reshape(-1, hk, C))
    else:
        keys = f((x @ kn_w + kn_b).reshape(-1, hk, C))[src]
    scores = (q * keys).sum(-1) / np.sqrt(C)  # keys broadcast over the heads when shared
    n = x.shape[0]
    peak = _segment(scores, tgt, n, "max")[tgt]
    e = np.exp(scores - peak)
    alpha = e / _segment(e, tgt, n, "sum")[tgt]
    values = (x @ vn_w + vn_b)[src]
    if edge_input:
        values = values + es["w"] @ ve_w
    values = values.reshape(-1, H, C) * alpha[..., None]
    return np.maximum(_segment(values, tgt, n, "sum"), 0).reshape(n, H * C)


@pytest.mark.parametrize("share", [False, True])
@pytest.mark.parametrize(
    "act,edge_input", [(None, False), (None, True), ("relu", True), ("relu", False)]
)
def test_multi_head_attention_share_key_transform(share, act, edge_input):
    from arraygnn.graph_tensor.layers import MultiHeadAttentionConv

    g, H, C = GRAPHS[0], 2, 3
    conv = MultiHeadAttentionConv(
        num_heads=H,
        per_head_channels=C,
        receiver_tag=TARGET,
        receiver_dim=2,
        sender_edge_feature="w" if edge_input else None,
        sender_edge_dim=2 if edge_input else None,
        share_key_transform=share,
        attention_activation=act,
        receiver_feature="x",
        sender_node_feature="x",
        dtype=np.float64,
    )
    rng = np.random.default_rng(7)
    weights = [rng.standard_normal(v.shape) for v in conv.get_weights()]
    assert weights[0].shape == (2, C if share else H * C)  # key_node/kernel
    conv.set_weights(weights)
    got = conv(g, edge_set_name="aa")
    want = _tf_mha(g, weights, H=H, C=C, share=share, act=act, edge_input=edge_input)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
