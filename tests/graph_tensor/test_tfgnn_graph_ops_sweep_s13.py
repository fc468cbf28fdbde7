"""Parity sweep (session 13) of TF-GNN's graph ops beyond pool / broadcast, on option
combinations the earlier sweeps leave out: heterogeneous line graphs with every option at
once, softmax over several sets / wide values / infinities, pooling neighbours over several
edge sets with explicit ``from_tag``, self-loops with every feature kind, reordering several
node sets, the shuffles' contracts (auxiliary sets, generators), ``combine_values`` dtype
rules, and these ops on padded and on merged batches.

TF-GNN is not installed: the NumPy references below re-derive its code paths from
tensorflow_gnn/graph/graph_tensor_ops.py (add_self_loops, mask_edges, reorder_nodes,
_get_line_graph_edges, _connect_line_graph_with_original, _check_line_graph_args,
_convert_to_non_backtracking_line_graph, pool_neighbors_to_node, combine_values: tf.math.add_n
takes numbers only) and tensorflow_gnn/graph/normalization_ops.py (softmax: pool max,
broadcast, exp, pool sum, broadcast, divide), commit 5d7251e of tensorflow/gnn.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    HyperAdjacency,
    NodeSet,
    Ragged,
    add_self_loops,
    batch_graph_tensors,
    combine_values,
    convert_to_line_graph,
    gather_first_node,
    mask_edges,
    node_degree,
    pool_neighbors_to_node,
    reorder_nodes,
    shuffle_features_globally,
    shuffle_nodes,
    softmax,
)
from arraygnn.padding import SizeConstraints, pad_to_total_sizes
from tests.graph_tensor._gt_cases import np_pool, random_graph

SEEDS = (0, 1, 7)  # rich graphs: empty components in one node set or the other


def _graph(seed: int, index_dtype=np.int64) -> GraphTensor:
    rng = np.random.default_rng(200 + seed)
    return random_graph(rng, num_components=3, index_dtype=index_dtype, empty_prob=0.1)


def _comp(sizes) -> np.ndarray:
    sizes = np.asarray(sizes)
    return np.repeat(np.arange(len(sizes)), sizes)


def _close(got, want, tol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# NumPy references (TF-GNN's algorithms)
# ---------------------------------------------------------------------------------------------


def ref_softmax(values, groups, n):
    """normalization_ops.softmax: unsorted_segment_max, exp(v - max), segment sum, divide."""
    v = np.concatenate(values)
    gr = np.concatenate(groups)
    peak = np.full((n, *v.shape[1:]), -np.inf, v.dtype)
    np.maximum.at(peak, gr, v)
    with np.errstate(invalid="ignore"):
        e = np.exp(v - peak[gr])
    total = np.zeros_like(peak)
    np.add.at(total, gr, e)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = e / total[gr]
    return np.split(out, np.cumsum([len(x) for x in values])[:-1])


def ref_line_graph(g, connect_from, connect_to, original, non_backtracking, node_features):
    """_get_line_graph_edges / _connect_line_graph_with_original / non-backtracking mask:
    name -> (source set, target set, source, target, sizes, features)."""
    out = {}
    if original:
        for name, es in g.edge_sets.items():
            a = es.adjacency
            own = np.arange(es.total_size)
            out[f"original/from/{name}"] = (
                name,
                f"original/{a.target_name}",
                own,
                a.target,
                es.sizes,
                {},
            )
            out[f"original/to/{name}"] = (
                f"original/{a.source_name}",
                name,
                a.source,
                own,
                es.sizes,
                {},
            )
    for ns_name, es in g.edge_sets.items():
        via = es.adjacency.node_set_name(connect_from)
        ns = g.node_sets[via]
        n = ns.total_size
        for nt_name, et in g.edge_sets.items():
            if et.adjacency.node_set_name(connect_to) != via:
                continue
            fs, ft = es.adjacency[connect_from], et.adjacency[connect_to]
            deg_s, deg_t = np.bincount(fs, minlength=n), np.bincount(ft, minlength=n)
            sort_s, sort_t = np.argsort(fs, kind="stable"), np.argsort(ft, kind="stable")
            src = np.repeat(sort_s, np.repeat(deg_t, deg_s))
            groups = np.split(sort_t, np.cumsum(deg_t)[:-1]) if n else []
            tgt = np.concatenate(
                [groups[v] for v in range(n) for _ in range(deg_s[v])] + [np.zeros(0, int)]
            )
            pairs = deg_s * deg_t
            at = np.repeat(np.arange(n), pairs)
            comp = _comp(ns.sizes)[at]
            feats = {k: v[at] for k, v in ns.features.items()} if node_features else {}
            keep = np.ones(len(src), bool)
            outer_s, outer_t = 1 - connect_from, 1 - connect_to
            if non_backtracking and (
                es.adjacency.node_set_name(outer_s) == et.adjacency.node_set_name(outer_t)
            ):
                keep = es.adjacency[outer_s][src] != et.adjacency[outer_t][tgt]
            sizes = np.bincount(comp[keep], minlength=g.num_components)
            feats = {k: v[keep] for k, v in feats.items()}
            out[f"{ns_name}=>{nt_name}"] = (ns_name, nt_name, src[keep], tgt[keep], sizes, feats)
    return out


def ref_pool_neighbors(g, names, to_tag, from_tag, value, reduce_type):
    """broadcast_v2 from the from_tag ends, pool_v2 to the to_tag ends (arraygnn's documented
    0 for empty "max" / "min" rows); several reductions concatenated on the last axis."""
    sender = [g.edge_sets[n].adjacency[from_tag] for n in names]
    recv = [g.edge_sets[n].adjacency[to_tag] for n in names]
    n = g.node_sets[g.edge_sets[names[0]].adjacency.node_set_name(to_tag)].total_size
    rows = np.concatenate([value[s] for s in sender])
    idx = np.concatenate(recv)
    parts = [np_pool(rows, idx, n, r) for r in reduce_type.split("|")]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, -1)


def ref_add_self_loops(g, name):
    """add_self_loops: the alternating [|E1|, |N1|, |E2|, |N2|, ...] indicator, features
    tf.zeros (0, False, b"") for the loops."""
    es = g.edge_sets[name]
    ns = g.node_sets[es.adjacency.source_name]
    alt = np.stack([es.sizes, ns.sizes], 1).reshape(-1)
    seg = np.repeat(np.arange(len(alt)), alt)
    node_ind = seg % 2
    edge_pos = np.clip(np.cumsum(1 - node_ind) - 1, 0, es.total_size)
    node_pos = np.clip(np.cumsum(node_ind) - 1, 0, ns.total_size)
    is_edge = node_ind == 0
    loops = np.arange(ns.total_size)

    def pick(old, new):
        both = np.concatenate([old, new])
        return both[np.where(is_edge, edge_pos, node_pos + es.total_size)]

    feats = {
        k: pick(v, np.zeros((ns.total_size, *v.shape[1:]), v.dtype)) for k, v in es.features.items()
    }
    a = es.adjacency
    return pick(a.source, loops), pick(a.target, loops), feats, es.sizes + ns.sizes


# ---------------------------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "per_tag,names,kind",
    [
        (SOURCE, ["ab", "ab2", "aa"], "edge"),  # all start in "a"
        (TARGET, ["ab", "ab2"], "edge"),
        (CONTEXT, ["ab", "ba", "aa"], "edge"),  # different node sets: fine per component
        (CONTEXT, ["a", "b"], "node"),
    ],
)
@pytest.mark.parametrize("width", [(), (1,), (2, 3)])
def test_softmax_over_several_sets_matches_tfgnn(seed, per_tag, names, kind, width):
    g = _graph(seed)
    rng = np.random.default_rng(seed)
    sets = g.edge_sets if kind == "edge" else g.node_sets
    values = [rng.standard_normal((sets[n].total_size, *width)).astype(np.float32) for n in names]
    if per_tag == CONTEXT:
        groups, n = [_comp(sets[x].sizes) for x in names], g.num_components
    else:
        groups = [sets[x].adjacency[per_tag] for x in names]
        n = g.node_sets[sets[names[0]].adjacency.node_set_name(per_tag)].total_size
    want = ref_softmax(values, groups, n)
    key = "edge_set_name" if kind == "edge" else "node_set_name"
    got = softmax(g, per_tag, **{key: names}, feature_value=values)
    assert isinstance(got, list) and len(got) == len(names)
    for x, y in zip(got, want):
        _close(x, y)


@pytest.mark.parametrize("width", [(), (2,)])
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_softmax_infinities_and_dtypes_as_tfgnn(width, dtype):
    # TF-GNN: a group whose max is +-inf gets exp(inf - inf) = nan; dtype kept
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([3, 0, 2]))},
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=np.array([4, 0, 2]),
                adjacency=Adjacency.from_indices(
                    source=("n", np.array([0, 1, 2, 0, 3, 4])),
                    target=("n", np.array([2, 2, 0, 1, 4, 4])),
                ),
            )
        },
    )
    w = np.array([-np.inf, -np.inf, 1.0, np.inf, 0.5, -1.0], dtype)
    w = np.broadcast_to(w.reshape(-1, *([1] * len(width))), (6, *width)).copy()
    want = ref_softmax([w], [g.edge_sets["e"].adjacency.target], 5)[0]
    with np.errstate(invalid="ignore"):
        got = softmax(g, TARGET, edge_set_name="e", feature_value=w)
    _close(got, want, tol=1e-3 if dtype == np.float16 else 1e-12)
    assert np.isnan(np.asarray(got)[:2]).all() and np.isnan(np.asarray(got)[3]).all()


# ---------------------------------------------------------------------------------------------
# pool_neighbors_to_node
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "names,to_tag,from_tag",
    [
        (["ab", "ab2"], TARGET, None),  # pool a -> b over two edge sets
        (["ab", "ab2"], SOURCE, SOURCE),  # each a node pools itself once per edge
        ("ba", SOURCE, None),
        ("aa", TARGET, TARGET),
    ],
)
@pytest.mark.parametrize("reduce_type", ["sum|mean", "max_no_inf|min", "prod"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_pool_neighbors_matches_tfgnn(seed, names, to_tag, from_tag, reduce_type, dtype):
    g = _graph(seed)
    lst = names if isinstance(names, list) else [names]
    ft = 1 - to_tag if from_tag is None else from_tag
    sender = g.node_sets[g.edge_sets[lst[0]].adjacency.node_set_name(ft)]
    value = (np.random.default_rng(seed).standard_normal((sender.total_size, 2)) * 3).astype(dtype)
    want = ref_pool_neighbors(g, lst, to_tag, ft, value, reduce_type)
    got = pool_neighbors_to_node(
        g, names, to_tag, reduce_type=reduce_type, from_tag=from_tag, feature_value=value
    )
    _close(got, want, tol=1e-5)


def test_pool_neighbors_refuses_mixed_node_sets_as_tfgnn():
    g = _graph(0)
    with pytest.raises(ValueError, match="to_tag=1"):
        pool_neighbors_to_node(g, ["ab", "aa"], TARGET, reduce_type="sum", feature_name="h")
    with pytest.raises(ValueError, match="from_tag=0"):
        pool_neighbors_to_node(g, ["ba", "aa"], TARGET, reduce_type="sum", feature_name="h")
    with pytest.raises(ValueError, match="SOURCE"):
        pool_neighbors_to_node(g, "ab", CONTEXT, reduce_type="sum", feature_name="h")


# ---------------------------------------------------------------------------------------------
# edits: add_self_loops, mask_edges, reorder_nodes, node_degree
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_add_self_loops_every_feature_kind_matches_tfgnn(seed, index_dtype):
    g = _graph(seed, index_dtype)
    es = g.edge_sets["aa"]
    n = es.total_size
    rng = np.random.default_rng(seed)
    feats = {
        "w": es["w"],
        "i": rng.integers(-9, 9, (n, 2)).astype(np.int32),
        "b": rng.random(n) < 0.5,
        "s": np.array([f"s{i}" for i in range(n)], dtype="U4"),
    }
    g = g.replace_features(edge_sets={"aa": feats})
    out = add_self_loops(g, "aa").edge_sets["aa"]
    src, tgt, wf, sizes = ref_add_self_loops(g, "aa")
    assert out.adjacency.source.dtype == index_dtype
    np.testing.assert_array_equal(out.adjacency.source, src)
    np.testing.assert_array_equal(out.adjacency.target, tgt)
    np.testing.assert_array_equal(out.sizes, sizes)
    for k, v in wf.items():
        assert out[k].dtype == v.dtype, k
        np.testing.assert_array_equal(out[k], v, err_msg=k)


@pytest.mark.parametrize("seed", SEEDS)
def test_mask_edges_then_ops_on_the_rest(seed):
    # mask_edges keeps node sets; degrees / softmax on the result see only the kept edges
    g = _graph(seed, np.int32)
    es = g.edge_sets["ab"]
    mask = np.random.default_rng(seed).random(es.total_size) < 0.5
    out = mask_edges(g, "ab", mask, masked_info_edge_set_name="ab_rest")
    nb = g.node_sets["b"].total_size
    kept, rest = out.edge_sets["ab"], out.edge_sets["ab_rest"]
    assert kept.sizes.dtype == es.sizes.dtype == rest.sizes.dtype
    deg = node_degree(out, "ab", TARGET) + node_degree(out, "ab_rest", TARGET)
    np.testing.assert_array_equal(deg, np.bincount(es.adjacency.target, minlength=nb))
    assert deg.dtype == np.int32
    both = softmax(out, TARGET, edge_set_name=["ab", "ab_rest"], feature_name="w")
    whole = softmax(g, TARGET, edge_set_name="ab", feature_name="w")
    _close(both[0], whole[mask])
    _close(both[1], whole[~mask])
    assert out.node_sets is not g.node_sets and out.node_sets["a"] is g.node_sets["a"]


@pytest.mark.parametrize("seed", SEEDS)
def test_reorder_several_node_sets_matches_tfgnn(seed):
    g = _graph(seed)
    rng = np.random.default_rng(seed)
    perms = {n: rng.permutation(g.node_sets[n].total_size) for n in ("a", "b")}
    out = reorder_nodes(g, perms)
    new_pos = {n: np.argsort(p) for n, p in perms.items()}  # unsorted_segment_sum(range, p)
    for n, p in perms.items():
        np.testing.assert_array_equal(out.node_sets[n]["label"], g.node_sets[n]["label"][p])
        assert out.node_sets[n]["tokens"].to_list() == [
            g.node_sets[n]["tokens"].to_list()[i] for i in p
        ]
    for name, es in g.edge_sets.items():
        a, b = es.adjacency, out.edge_sets[name].adjacency
        np.testing.assert_array_equal(b.source, new_pos[a.source_name][a.source])
        np.testing.assert_array_equal(b.target, new_pos[a.target_name][a.target])
        np.testing.assert_array_equal(out.edge_sets[name]["w"], es["w"])
    # degrees follow the nodes
    np.testing.assert_array_equal(
        node_degree(out, "ab", TARGET), node_degree(g, "ab", TARGET)[perms["b"]]
    )


# ---------------------------------------------------------------------------------------------
# shuffles: TF-GNN's contracts
# ---------------------------------------------------------------------------------------------


def _with_aux(g: GraphTensor) -> GraphTensor:
    nodes = dict(g.node_sets)
    c = g.num_components
    nodes["_readout"] = NodeSet.from_fields(
        sizes=np.ones(c, np.int64), features={"y": np.arange(c, dtype=np.float64)}
    )
    return GraphTensor.from_pieces(g.context, nodes, dict(g.edge_sets))


@pytest.mark.parametrize("node_sets", [None, ["a", "_readout"]])
def test_shuffle_nodes_aux_sets_and_generators(node_sets):
    g = _with_aux(_graph(1))
    a, b = (shuffle_nodes(g, node_sets=node_sets, seed=s) for s in (7, 7))
    np.testing.assert_array_equal(a.node_sets["a"]["label"], b.node_sets["a"]["label"])
    c = shuffle_nodes(g, node_sets=node_sets, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(a.node_sets["a"]["label"], c.node_sets["a"]["label"])
    shuffled = {"a", "b"} if node_sets is None else set(node_sets)
    for name, ns in g.node_sets.items():
        got = a.node_sets[name]["label" if name != "_readout" else "y"]
        old = ns["label" if name != "_readout" else "y"]
        if name not in shuffled:  # TF-GNN: auxiliary / unnamed sets stay as they are
            assert got is old
        comp = _comp(ns.sizes)
        for i in range(g.num_components):  # a permutation within each component
            assert sorted(got[comp == i].tolist()) == sorted(old[comp == i].tolist())
    for name, es in g.edge_sets.items():  # every edge still joins the same labels
        s, t = es.adjacency.source_name, es.adjacency.target_name
        new = a.edge_sets[name].adjacency
        np.testing.assert_array_equal(
            a.node_sets[s]["label"][new.source], g.node_sets[s]["label"][es.adjacency.source]
        )
        np.testing.assert_array_equal(
            a.node_sets[t]["label"][new.target], g.node_sets[t]["label"][es.adjacency.target]
        )


def test_shuffle_features_globally_every_piece_and_ragged_rows():
    g = _with_aux(_graph(2))
    out = shuffle_features_globally(g, seed=3)
    assert out.edge_sets["ab"].adjacency is g.edge_sets["ab"].adjacency
    pieces = [(out.context, g.context)]
    pieces += [(out.node_sets[n], g.node_sets[n]) for n in g.node_sets]
    pieces += [(out.edge_sets[n], g.edge_sets[n]) for n in g.edge_sets]
    for new, old in pieces:
        assert sorted(new.features) == sorted(old.features)
        for k, v in old.features.items():
            w = new[k]
            if isinstance(v, Ragged):  # TF-GNN: row lengths kept, values permuted
                np.testing.assert_array_equal(w.row_lengths(), v.row_lengths())
                assert sorted(w.values.tolist()) == sorted(v.values.tolist())
            else:
                assert w.shape == v.shape and w.dtype == v.dtype
                assert sorted(map(repr, w.tolist())) == sorted(map(repr, v.tolist()))


# ---------------------------------------------------------------------------------------------
# line graphs: heterogeneous, every option
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ends", [(TARGET, SOURCE), (SOURCE, TARGET), (TARGET, TARGET)])
@pytest.mark.parametrize("options", [(True, True, True), (False, True, False)])
def test_heterogeneous_line_graph_matches_tfgnn(seed, ends, options):
    original, non_backtracking, node_features = options
    g = _graph(seed).remove_features(node_sets={"a": ["tokens"], "b": ["tokens"]})
    out = convert_to_line_graph(
        g,
        connect_from=ends[0],
        connect_to=ends[1],
        connect_with_original_nodes=original,
        non_backtracking=non_backtracking,
        use_node_features_as_line_graph_edge_features=node_features,
    )
    want = ref_line_graph(g, *ends, original, non_backtracking, node_features)
    assert sorted(out.edge_sets) == sorted(want)
    want_nodes = set(g.edge_sets) | ({f"original/{n}" for n in g.node_sets} if original else set())
    assert set(out.node_sets) == want_nodes
    for name in g.edge_sets:
        np.testing.assert_array_equal(out.node_sets[name].sizes, g.edge_sets[name].sizes)
        np.testing.assert_array_equal(out.node_sets[name]["w"], g.edge_sets[name]["w"])
    for name, (s, t, src, tgt, sizes, feats) in want.items():
        es = out.edge_sets[name]
        assert (es.adjacency.source_name, es.adjacency.target_name) == (s, t), name
        np.testing.assert_array_equal(es.adjacency.source, src, err_msg=name)
        np.testing.assert_array_equal(es.adjacency.target, tgt, err_msg=name)
        np.testing.assert_array_equal(es.sizes, sizes, err_msg=name)
        assert sorted(es.features) == sorted(feats), name
        for k, v in feats.items():
            np.testing.assert_array_equal(es[k], v, err_msg=f"{name} {k}")


def test_line_graph_refuses_hyper_adjacency_as_tfgnn():
    # _check_line_graph_args: an adjacency needs exactly the tags SOURCE and TARGET
    def graph(tags):
        idx = {t: ("n", np.array([0, 1])) for t in tags}
        return GraphTensor.from_pieces(
            node_sets={"n": NodeSet.from_fields(sizes=np.array([2]))},
            edge_sets={
                "h": EdgeSet.from_fields(
                    sizes=np.array([2]), adjacency=HyperAdjacency.from_indices(idx)
                )
            },
        )

    for original in (False, True):
        with pytest.raises(ValueError, match="exactly.*SOURCE.*TARGET"):
            convert_to_line_graph(graph([0, 1, 2]), connect_with_original_nodes=original)
    line = convert_to_line_graph(graph([0, 1]))  # two tags: an ordinary edge set
    assert line.edge_sets["h=>h"].adjacency.source.tolist() == [0, 1]


# ---------------------------------------------------------------------------------------------
# combine_values
# ---------------------------------------------------------------------------------------------


def test_combine_values_sum_takes_numbers_only_as_add_n():
    ints = [np.arange(3, dtype=np.int32), np.ones(3, np.int32)]
    got = combine_values(ints, "sum")
    assert got.dtype == np.int32 and got.tolist() == [1, 2, 3]
    assert got is not ints[0] and ints[0].tolist() == [0, 1, 2]  # inputs untouched
    for bad in ([np.array([True]), np.array([False])], [np.array(["a"]), np.array(["b"])]):
        with pytest.raises(TypeError, match=r"combine_values\(\).*adds numbers; the inputs are"):
            combine_values(bad, "sum")
    # concat joins anything of one dtype (tf.concat), strings and bools too
    assert combine_values([np.array([["a"]]), np.array([["b"]])], "concat").tolist() == [["a", "b"]]
    with pytest.raises(TypeError, match="Ragged"):  # documented: dense arrays only
        combine_values([Ragged.from_list([[1], []])] * 2, "concat")


# ---------------------------------------------------------------------------------------------
# padded and merged graphs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_ops_on_a_padded_graph_agree_on_the_real_items(seed):
    g = _graph(seed)
    g = g.replace_features(node_sets={"a": {"x": g.node_sets["a"]["h"]}, "b": {}})
    c = g.num_components
    na, nb = g.node_sets["a"].total_size, g.node_sets["b"].total_size
    ne = {n: es.total_size for n, es in g.edge_sets.items()}
    sc = SizeConstraints(
        total_num_components=c + 2,
        total_num_nodes={"a": na + 3, "b": nb + 3},
        total_num_edges={n: m + 2 for n, m in ne.items()},
        # every padding component gets a first "a" node (real ones must have one already)
        min_nodes_per_component={"a": int(np.all(g.node_sets["a"].sizes > 0))},
    )
    p, mask = pad_to_total_sizes(g, sc)
    assert mask.tolist() == [True] * c + [False, False]
    for name, es in g.edge_sets.items():
        m = es.total_size
        for tag in (SOURCE, TARGET):
            k = g.node_sets[es.adjacency.node_set_name(tag)].total_size
            np.testing.assert_array_equal(node_degree(p, name, tag)[:k], node_degree(g, name, tag))
        _close(
            softmax(p, TARGET, edge_set_name=name, feature_name="w")[:m],
            softmax(g, TARGET, edge_set_name=name, feature_name="w"),
        )
        _close(
            softmax(p, CONTEXT, edge_set_name=name, feature_name="w")[:m],
            softmax(g, CONTEXT, edge_set_name=name, feature_name="w"),
        )
    _close(
        pool_neighbors_to_node(p, ["ab", "ab2"], TARGET, reduce_type="mean|max", feature_name="x")[
            :nb
        ],
        pool_neighbors_to_node(g, ["ab", "ab2"], TARGET, reduce_type="mean|max", feature_name="x"),
    )
    loops_p, loops_g = add_self_loops(p, "aa"), add_self_loops(g, "aa")
    k = loops_g.edge_sets["aa"].total_size
    np.testing.assert_array_equal(
        loops_p.edge_sets["aa"].adjacency.source[:k], loops_g.edge_sets["aa"].adjacency.source
    )
    np.testing.assert_array_equal(loops_p.edge_sets["aa"].sizes[:c], loops_g.edge_sets["aa"].sizes)
    lp, lg = convert_to_line_graph(p), convert_to_line_graph(g)
    for name, es in lg.edge_sets.items():
        m = es.total_size
        np.testing.assert_array_equal(lp.edge_sets[name].sizes[:c], es.sizes)
        np.testing.assert_array_equal(lp.edge_sets[name].adjacency.source[:m], es.adjacency.source)
        np.testing.assert_array_equal(lp.edge_sets[name].adjacency.target[:m], es.adjacency.target)
    # padding components hold min_nodes_per_component nodes: gather_first_node works when
    # every real component has a node (TF-GNN asserts positive sizes)
    if np.all(g.node_sets["a"].sizes > 0):
        assert np.all(p.node_sets["a"].sizes[c:] >= 1)
        first = gather_first_node(p, "a", feature_name="x")
        _close(first[:c], gather_first_node(g, "a", feature_name="x"))
        assert first.shape == (c + 2, 3)
    else:
        with pytest.raises(ValueError, match="have no node"):
            gather_first_node(p, "a", feature_name="x")


def test_ops_on_a_merged_batch_are_the_ops_per_graph():
    graphs = [_graph(s) for s in (2, 6, 8)]
    merged = batch_graph_tensors(graphs).merge_batch_to_components()
    assert merged.num_components == sum(x.num_components for x in graphs)
    cat = np.concatenate
    np.testing.assert_array_equal(
        node_degree(merged, "ba", SOURCE), cat([node_degree(x, "ba", SOURCE) for x in graphs])
    )
    _close(
        softmax(merged, SOURCE, edge_set_name=["ab", "aa"], feature_name="w")[1],
        cat([softmax(x, SOURCE, edge_set_name=["ab", "aa"], feature_name="w")[1] for x in graphs]),
    )
    loops = add_self_loops(merged, "aa").edge_sets["aa"]
    np.testing.assert_array_equal(
        loops.sizes, cat([add_self_loops(x, "aa").edge_sets["aa"].sizes for x in graphs])
    )
    line = convert_to_line_graph(merged, non_backtracking=True).edge_sets["ab=>ba"]
    per = [convert_to_line_graph(x, non_backtracking=True).edge_sets["ab=>ba"] for x in graphs]
    np.testing.assert_array_equal(line.sizes, cat([p.sizes for p in per]))
    offsets = np.cumsum([0] + [x.edge_sets["ab"].total_size for x in graphs[:-1]])
    np.testing.assert_array_equal(
        line.adjacency.source, cat([p.adjacency.source + o for p, o in zip(per, offsets)])
    )
