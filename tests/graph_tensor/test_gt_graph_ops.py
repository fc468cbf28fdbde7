"""TF-GNN's remaining GraphTensor ops and small layers against plain NumPy references, on
random heterogeneous graphs (several / empty components, empty sets, isolated nodes, int32 /
int64 indices, float32 / float64, ragged features)."""

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
    batch_graph_tensors,
    broadcast,
    combine_values,
    gather_first_node,
    get_aux_type_prefix,
    get_registered_reduce_operation_names,
    mask_edges,
    node_degree,
    pool,
    pool_neighbors_to_node,
    pool_neighbors_to_node_feature,
    reorder_nodes,
    shuffle_features_globally,
    shuffle_nodes,
    softmax,
    softmax_edges_per_node,
)
from arraygnn.graph_tensor.layers import AddSelfLoops, ItemDropout, MakeEmptyFeature
from arraygnn.pipeline import (
    AddReadoutFromFirstNode,
    PadToTotalSizes,
    ParseExample,
    ParseSingleExample,
    ReadoutNamedIntoFeature,
    StructuredReadoutIntoFeature,
    add_readout_from_first_node,
    structured_readout,
    structured_readout_into_feature,
)
from tests.graph_tensor._gt_cases import EDGE_SETS, assert_graphs_equal, np_pool, random_graph

SEEDS = range(6)


def _graph(seed: int, index_dtype=np.int64, float_dtype=np.float64, **kw) -> GraphTensor:
    g = random_graph(np.random.default_rng(seed), index_dtype=index_dtype, **kw)
    nodes = {n: dict(p.features, h=p["h"].astype(float_dtype)) for n, p in g.node_sets.items()}
    edges = {}
    rng = np.random.default_rng(100 + seed)
    for n, p in g.edge_sets.items():
        lengths = rng.integers(0, 3, size=p.total_size)
        edges[n] = dict(
            p.features,
            w=p["w"].astype(float_dtype),
            tag=np.array([f"{n}{i}" for i in range(p.total_size)], dtype="U8"),
            seq=Ragged.from_row_lengths(rng.standard_normal(int(lengths.sum())), lengths),
        )
    return g.replace_features(node_sets=nodes, edge_sets=edges)


def _snapshot(g: GraphTensor) -> list:
    """Copies of every array of the graph (to check nothing was mutated)."""
    out = []

    def add(v):
        if isinstance(v, Ragged):
            out.append(v.row_splits.copy())
            add(v.values)
        else:
            out.append(np.array(v, copy=True))

    for p in [g.context, *g.node_sets.values(), *g.edge_sets.values()]:
        add(p.sizes)
        for v in p.features.values():
            add(v)
    for p in g.edge_sets.values():
        add(p.adjacency.source)
        add(p.adjacency.target)
    return out


def _unchanged(g: GraphTensor, snap: list) -> None:
    for a, b in zip(_snapshot(g), snap):
        np.testing.assert_array_equal(a, b)


def _np_softmax(values: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros_like(values)
    for i in range(n):
        sel = group == i
        if sel.any():
            v = values[sel].astype(np.float64)
            e = np.exp(v - v.max(axis=0))
            out[sel] = e / e.sum(axis=0)
    return out


# ---- softmax --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("float_dtype", [np.float32, np.float64])
def test_softmax_per_node_and_per_component(seed, index_dtype, float_dtype):
    g = _graph(seed, index_dtype, float_dtype)
    snap = _snapshot(g)
    tol = dict(rtol=1e-5, atol=1e-6) if float_dtype == np.float32 else dict(rtol=1e-12)
    for e, (s, t) in EDGE_SETS.items():
        es = g.edge_sets[e]
        for tag, end in ((SOURCE, s), (TARGET, t)):
            got = softmax(g, tag, edge_set_name=e, feature_name="w")
            want = _np_softmax(es["w"], es.adjacency[tag], g.node_sets[end].total_size)
            assert got.dtype == float_dtype and got.shape == es["w"].shape
            np.testing.assert_allclose(got, want, **tol)
            np.testing.assert_allclose(
                softmax_edges_per_node(g, e, tag, feature_value=es["w"]), want, **tol
            )
        got = softmax(g, CONTEXT, edge_set_name=e, feature_name="w")
        want = _np_softmax(es["w"], es.component_ids(), g.num_components)
        np.testing.assert_allclose(got, want, **tol)
    for n, ns in g.node_sets.items():
        got = softmax(g, CONTEXT, node_set_name=n, feature_value=ns["h"][:, 0])
        want = _np_softmax(ns["h"][:, 0], ns.component_ids(), g.num_components)
        np.testing.assert_allclose(got, want, **tol)
    _unchanged(g, snap)


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_over_several_sets(seed):
    g = _graph(seed)
    ab, ab2 = g.edge_sets["ab"], g.edge_sets["ab2"]
    got = softmax(g, TARGET, edge_set_name=["ab", "ab2"], feature_name="w")
    assert isinstance(got, list) and len(got) == 2
    both = np.concatenate([ab["w"], ab2["w"]])
    group = np.concatenate([ab.adjacency.target, ab2.adjacency.target])
    want = _np_softmax(both, group, g.node_sets["b"].total_size)
    np.testing.assert_allclose(np.concatenate(got), want, rtol=1e-12)
    assert got[0].shape == ab["w"].shape
    # per component over two node sets
    a, b = g.node_sets["a"], g.node_sets["b"]
    got = softmax(g, CONTEXT, node_set_name=["a", "b"], feature_value=[a["h"], b["h"]])
    group = np.concatenate([a.component_ids(), b.component_ids()])
    want = _np_softmax(np.concatenate([a["h"], b["h"]]), group, g.num_components)
    np.testing.assert_allclose(np.concatenate(got), want, rtol=1e-12)


def test_softmax_errors():
    g = _graph(1, empty_prob=0.0)
    with pytest.raises(ValueError, match=r"softmax\(\).*different node sets"):
        softmax(g, TARGET, edge_set_name=["ab", "ba"], feature_name="w")
    with pytest.raises(ValueError, match=r"softmax\(\).*no edge set 'zz'"):
        softmax(g, TARGET, edge_set_name="zz", feature_name="w")
    with pytest.raises(TypeError, match=r"softmax\(\).*node set 'a'.*floats"):
        softmax(g, CONTEXT, node_set_name="a", feature_name="k")
    with pytest.raises(ValueError, match=r"softmax\(\).*exactly one of edge_set_name"):
        softmax(g, CONTEXT, feature_name="w")
    with pytest.raises(ValueError, match=r"softmax\(\).*SOURCE/TARGET"):
        softmax(g, TARGET, node_set_name="a", feature_name="h")
    with pytest.raises(ValueError, match=r"softmax\(\).*edge set 'ab'.*shape"):
        softmax(g, TARGET, edge_set_name="ab", feature_value=np.zeros(10**4))


# ---- degrees, first nodes, combine ------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_node_degree(seed, index_dtype):
    g = _graph(seed, index_dtype)
    for e, (s, t) in EDGE_SETS.items():
        adj = g.edge_sets[e].adjacency
        for tag, end in ((SOURCE, s), (TARGET, t)):
            got = node_degree(g, e, tag)
            n = g.node_sets[end].total_size
            want = np.bincount(adj[tag], minlength=n)
            assert got.dtype == index_dtype and got.shape == (n,)
            np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match=r"node_degree\(\).*SOURCE \(0\) or TARGET"):
        node_degree(g, "ab", CONTEXT)
    with pytest.raises(ValueError, match=r"node_degree\(\).*no edge set 'x'"):
        node_degree(g, "x", SOURCE)


@pytest.mark.parametrize("seed", SEEDS)
def test_gather_first_node(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=int(rng.integers(1, 5)))
    total = int(sizes.sum())
    lengths = rng.integers(0, 3, size=total)
    tokens = Ragged.from_row_lengths(np.arange(int(lengths.sum())), lengths)
    h = rng.standard_normal((total, 2)).astype(np.float32)
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=sizes, features={"h": h, "tokens": tokens})}
    )
    first = np.cumsum(sizes) - sizes
    np.testing.assert_array_equal(gather_first_node(g, "n", feature_name="h"), h[first])
    np.testing.assert_array_equal(gather_first_node(g, "n", feature_value=h * 2), h[first] * 2)
    got = gather_first_node(g, "n", feature_name="tokens")
    assert isinstance(got, Ragged)
    assert got.to_list() == [tokens[int(i)].tolist() for i in first]
    bad = GraphTensor.from_pieces(node_sets={"n": NodeSet.from_fields(sizes=np.array([2, 0]))})
    with pytest.raises(ValueError, match=r"gather_first_node\(\): components \[1\].*'n'"):
        gather_first_node(bad, "n", feature_value=np.zeros(2))
    with pytest.raises(ValueError, match=r"gather_first_node\(\).*exactly one"):
        gather_first_node(g, "n")


def test_combine_values():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    c = rng.standard_normal((4, 2))
    a0 = a.copy()
    np.testing.assert_array_equal(combine_values([a, b], "sum"), a + b)
    np.testing.assert_array_equal(combine_values([a, b, a], "sum"), a + b + a)
    np.testing.assert_array_equal(combine_values([a, c], "concat"), np.concatenate([a, c], -1))
    np.testing.assert_array_equal(a, a0)
    assert combine_values([a], "sum") is not a
    with pytest.raises(ValueError, match=r"combine_values\(\) failed.*'sum'.*inputs\[1\]"):
        combine_values([a, c], "sum")
    with pytest.raises(ValueError, match=r"combine_values\(\).*inputs\[1\]"):
        combine_values([a, c.astype(np.float32)], "concat")
    with pytest.raises(ValueError, match=r"combine_values\(\): unknown combine_type 'max'"):
        combine_values([a, b], "max")
    with pytest.raises(TypeError, match=r"combine_values\(\): inputs\[0\].*Ragged"):
        combine_values([Ragged.from_row_lengths(a[:, 0], [1, 3]), a], "sum")  # as documented


def test_reduce_names_and_aux_prefix():
    assert sorted(get_registered_reduce_operation_names()) == sorted(
        ["sum", "mean", "max", "min", "prod", "max_no_inf", "min_no_inf"]
    )
    assert get_aux_type_prefix("_readout/seed") == "_readout"
    assert get_aux_type_prefix("#x1_y.z") == "#x1_y"
    assert get_aux_type_prefix("paper") is None
    # TF-GNN's rule is ASCII: [_#!%.^~][a-zA-Z0-9_]*, not every Unicode letter / digit
    assert get_aux_type_prefix("_readout\u00e4/x") == "_readout"
    assert get_aux_type_prefix("_\u00b2") == "_"
    assert get_aux_type_prefix("_a-b") == "_a"


# ---- mask_edges / add_self_loops ---------------------------------------------------------------


def _rows(v, idx):
    if isinstance(v, Ragged):
        return [v[int(i)].tolist() for i in idx]
    return np.asarray(v)[idx].tolist()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_mask_edges(seed, index_dtype):
    g = _graph(seed, index_dtype)
    snap = _snapshot(g)
    rng = np.random.default_rng(seed)
    for e in EDGE_SETS:
        es = g.edge_sets[e]
        mask = rng.random(es.total_size) < 0.5
        out = mask_edges(g, e, mask, "removed")
        assert list(out.edge_sets) == [*g.edge_sets, "removed"]
        for name, keep in ((e, mask), ("removed", ~mask)):
            new = out.edge_sets[name]
            idx = np.flatnonzero(keep)
            want_sizes = np.bincount(es.component_ids()[keep], minlength=g.num_components)
            np.testing.assert_array_equal(new.sizes, want_sizes)
            assert new.sizes.dtype == es.sizes.dtype
            np.testing.assert_array_equal(new.adjacency.source, es.adjacency.source[idx])
            np.testing.assert_array_equal(new.adjacency.target, es.adjacency.target[idx])
            assert new.adjacency.source.dtype == index_dtype
            for k in es.features:
                assert _rows(new[k], range(len(idx))) == _rows(es[k], idx), k
        assert "removed" not in mask_edges(g, e, mask).edge_sets
    _unchanged(g, snap)


def test_mask_edges_errors():
    g = _graph(2, empty_prob=0.0)
    n = g.edge_sets["ab"].total_size
    with pytest.raises(ValueError, match=r"mask_edges\(\).*shape.*'ab'"):
        mask_edges(g, "ab", np.ones(n + 1, bool))
    with pytest.raises(TypeError, match=r"mask_edges\(\).*'ab'.*bool"):
        mask_edges(g, "ab", np.ones(n, np.int32))
    with pytest.raises(ValueError, match=r"mask_edges\(\).*'ba'.*already"):
        mask_edges(g, "ab", np.ones(n, bool), "ba")
    with pytest.raises(ValueError, match=r"mask_edges\(\).*no edge set 'zz'"):
        mask_edges(g, "zz", np.ones(n, bool))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_add_self_loops(seed, index_dtype):
    g = _graph(seed, index_dtype)
    snap = _snapshot(g)
    out = add_self_loops(g, "aa")
    es, ns = g.edge_sets["aa"], g.node_sets["a"]
    new = out.edge_sets["aa"]
    # reference: per component, its edges then one loop per node
    e_off = np.concatenate([[0], np.cumsum(es.sizes)])
    n_off = np.concatenate([[0], np.cumsum(ns.sizes)])
    src, tgt, w, tag, seq = [], [], [], [], []
    for c in range(g.num_components):
        eidx = np.arange(e_off[c], e_off[c + 1])
        nidx = np.arange(n_off[c], n_off[c + 1])
        src += es.adjacency.source[eidx].tolist() + nidx.tolist()
        tgt += es.adjacency.target[eidx].tolist() + nidx.tolist()
        w += es["w"][eidx].tolist() + [[0.0, 0.0]] * len(nidx)
        tag += es["tag"][eidx].tolist() + [""] * len(nidx)
        seq += _rows(es["seq"], eidx) + [[]] * len(nidx)
    assert new.adjacency.source.tolist() == src and new.adjacency.target.tolist() == tgt
    assert new.adjacency.source.dtype == index_dtype
    np.testing.assert_array_equal(new.sizes, es.sizes + ns.sizes)
    assert new["w"].tolist() == w and new["w"].dtype == es["w"].dtype
    assert new["tag"].tolist() == tag
    assert new["seq"].to_list() == seq
    assert out.edge_sets["ab"] is g.edge_sets["ab"]
    assert_graphs_equal(AddSelfLoops("aa")(g), out)
    _unchanged(g, snap)
    with pytest.raises(ValueError, match=r"add_self_loops\(\).*'ab'.*'a' to 'b'"):
        add_self_loops(g, "ab")
    with pytest.raises(ValueError, match=r"add_self_loops\(\).*no edge set 'zz'"):
        add_self_loops(g, "zz")


# ---- reorder / shuffle --------------------------------------------------------------------------


def _endpoint_labels(g: GraphTensor) -> dict:
    """Per edge set, the (source label, target label) of every edge."""
    out = {}
    for e, es in g.edge_sets.items():
        a = es.adjacency
        out[e] = (
            g.node_sets[a.source_name]["label"][a.source].tolist(),
            g.node_sets[a.target_name]["label"][a.target].tolist(),
        )
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_reorder_nodes(seed, index_dtype):
    g = _graph(seed, index_dtype)
    snap = _snapshot(g)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(g.node_sets["a"].total_size).astype(index_dtype)
    out = reorder_nodes(g, {"a": perm})
    old, new = g.node_sets["a"], out.node_sets["a"]
    for k in old.features:
        assert _rows(new[k], range(len(perm))) == _rows(old[k], perm), k
    assert out.node_sets["b"] is g.node_sets["b"]
    assert _endpoint_labels(out) == _endpoint_labels(g)  # edges follow their nodes
    for e in EDGE_SETS:
        assert out.edge_sets[e].adjacency.source.dtype == index_dtype
    _unchanged(g, snap)


def test_reorder_nodes_errors():
    g = _graph(3, empty_prob=0.0)
    n = g.node_sets["a"].total_size
    with pytest.raises(ValueError, match=r"reorder_nodes\(\).*'a'.*not a permutation"):
        reorder_nodes(g, {"a": np.zeros(n, np.int64)})
    with pytest.raises(ValueError, match=r"reorder_nodes\(\).*'a'.*\[num_nodes\]"):
        reorder_nodes(g, {"a": np.arange(n + 1)})
    for dtype in (np.float64, np.uint8, np.int16, np.uint64):  # TF-GNN: int32 / int64 only
        with pytest.raises(ValueError, match=r"reorder_nodes\(\).*'a'.*int32/int64"):
            reorder_nodes(g, {"a": np.arange(n, dtype=dtype)}, validate=False)
    with pytest.raises(ValueError, match=r"reorder_nodes\(\).*\['zz'\]"):
        reorder_nodes(g, {"zz": np.arange(3)})


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_nodes_permutes_within_components(seed):
    g = _graph(seed, max_nodes=8)
    readout = g.node_sets["a"].sizes * 0 + 1
    g = GraphTensor.from_pieces(
        g.context,
        {**g.node_sets, "_readout": NodeSet.from_fields(sizes=readout)},
        dict(g.edge_sets),
    )
    snap = _snapshot(g)
    out = shuffle_nodes(g, seed=seed)
    assert_graphs_equal(out, shuffle_nodes(g, seed=seed))  # reproducible
    assert out.node_sets["_readout"] is g.node_sets["_readout"]  # aux sets stay
    moved = 0
    for n in ("a", "b"):
        old, new = g.node_sets[n], out.node_sets[n]
        np.testing.assert_array_equal(new.sizes, old.sizes)
        comp = old.component_ids()
        for c in range(g.num_components):
            sel = comp == c
            assert sorted(new["label"][sel].tolist()) == sorted(old["label"][sel].tolist())
        moved += int((new["label"] != old["label"]).sum())
        # features of one node move together
        pos = {lab: i for i, lab in enumerate(old["label"].tolist())}
        src = np.array([pos[lab] for lab in new["label"].tolist()], dtype=np.int64)
        np.testing.assert_array_equal(new["h"], old["h"][src])
        assert new["tokens"].to_list() == [old["tokens"][int(i)].tolist() for i in src]
    assert _endpoint_labels(out) == _endpoint_labels(g)
    only_b = shuffle_nodes(g, node_sets=["b"], seed=seed)
    assert only_b.node_sets["a"] is g.node_sets["a"]
    _unchanged(g, snap)
    with pytest.raises(ValueError, match=r"shuffle_nodes\(\).*\['zz'\]"):
        shuffle_nodes(g, node_sets=["zz"])


def test_shuffle_nodes_moves_something():
    sizes = np.array([40, 0, 30])
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=sizes, features={"i": np.arange(70)})}
    )
    out = shuffle_nodes(g, seed=0).node_sets["n"]
    assert (out["i"] != np.arange(70)).any()
    assert sorted(out["i"][:40].tolist()) == list(range(40))


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_features_globally(seed):
    g = _graph(seed, max_nodes=8)
    snap = _snapshot(g)
    out = shuffle_features_globally(g, seed=seed)
    assert out.spec == g.spec
    for old, new in [
        (g.context, out.context),
        *[(g.node_sets[n], out.node_sets[n]) for n in g.node_sets],
        *[(g.edge_sets[n], out.edge_sets[n]) for n in g.edge_sets],
    ]:
        np.testing.assert_array_equal(new.sizes, old.sizes)
        for k, v in old.features.items():
            w = new[k]
            if isinstance(v, Ragged):  # TF-GNN: row lengths kept, values permuted
                np.testing.assert_array_equal(w.row_splits, v.row_splits)
                assert sorted(w.values.tolist()) == sorted(v.values.tolist())
            else:
                key = lambda r: repr(r)  # noqa: E731
                assert sorted(map(key, w.tolist())) == sorted(map(key, v.tolist())), k
    for e in g.edge_sets:
        np.testing.assert_array_equal(
            out.edge_sets[e].adjacency.source, g.edge_sets[e].adjacency.source
        )
    big = GraphTensor.from_pieces(
        node_sets={
            "n": NodeSet.from_fields(
                sizes=np.array([50]), features={"x": np.arange(50), "y": np.arange(50)}
            )
        }
    )
    shuffled = shuffle_features_globally(big, seed=1).node_sets["n"]
    assert (shuffled["x"] != shuffled["y"]).any()  # each feature its own permutation
    _unchanged(g, snap)


# ---- pool_neighbors_to_node ---------------------------------------------------------------------

REDUCES = ["sum", "mean", "max", "min", "prod", "max_no_inf", "min_no_inf", "sum|max"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("float_dtype", [np.float32, np.float64])
def test_pool_neighbors_to_node(seed, index_dtype, float_dtype):
    g = _graph(seed, index_dtype, float_dtype)
    snap = _snapshot(g)
    tol = dict(rtol=1e-5, atol=1e-5) if float_dtype == np.float32 else dict(rtol=1e-12)
    for e, (s, t) in EDGE_SETS.items():
        adj = g.edge_sets[e].adjacency
        for to_tag, to_set, frm_set in ((TARGET, t, s), (SOURCE, s, t)):
            x = g.node_sets[frm_set]["h"]
            n = g.node_sets[to_set].total_size
            for r in REDUCES:
                got = pool_neighbors_to_node(g, e, to_tag, reduce_type=r, feature_name="h")
                msg = x[adj[1 - to_tag]]
                want = np.concatenate(
                    [np_pool(msg, adj[to_tag], n, k) for k in r.split("|")], axis=-1
                )
                assert got.dtype == float_dtype, r
                np.testing.assert_allclose(got, want, **tol, err_msg=f"{e} {r}")
            k = g.node_sets[frm_set]["k"]  # int32: the broadcast-then-pool path
            got = pool_neighbors_to_node(g, e, to_tag, reduce_type="sum", feature_name="k")
            np.testing.assert_array_equal(got, np_pool(k[adj[1 - to_tag]], adj[to_tag], n, "sum"))
            assert got.dtype == np.int32
    _unchanged(g, snap)


@pytest.mark.parametrize("seed", SEEDS)
def test_pool_neighbors_over_several_edge_sets(seed):
    g = _graph(seed)
    for r in ("sum", "mean", "max", "prod"):
        got = pool_neighbors_to_node(g, ["ab", "ab2"], TARGET, reduce_type=r, feature_name="h")
        edges = [g.edge_sets["ab"].adjacency, g.edge_sets["ab2"].adjacency]
        msgs = [broadcast(g, SOURCE, edge_set_name=e, feature_name="h") for e in ("ab", "ab2")]
        want = pool(g, TARGET, edge_set_name=["ab", "ab2"], reduce_type=r, feature_value=msgs)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        ref = np_pool(
            np.concatenate([g.node_sets["a"]["h"][a.source] for a in edges]),
            np.concatenate([a.target for a in edges]),
            g.node_sets["b"].total_size,
            r,
        )
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    out = pool_neighbors_to_node_feature(
        g, ["ab", "ab2"], TARGET, reduce_type="mean", feature_name="h", to_feature_name="nb"
    )
    np.testing.assert_allclose(
        out.node_sets["b"]["nb"],
        pool_neighbors_to_node(g, ["ab", "ab2"], TARGET, reduce_type="mean", feature_name="h"),
    )
    assert out.node_sets["b"]["h"] is g.node_sets["b"]["h"]
    assert "nb" not in g.node_sets["b"].features
    with pytest.raises(ValueError, match=r"pool_neighbors_to_node\(\).*\['ab', 'ba'\]"):
        pool_neighbors_to_node(g, ["ab", "ba"], TARGET, reduce_type="sum", feature_name="h")
    with pytest.raises(ValueError, match=r"pool_neighbors_to_node\(\).*unknown reduce_type 'avg'"):
        pool_neighbors_to_node(g, "ab", TARGET, reduce_type="avg", feature_name="k")


# ---- layers -------------------------------------------------------------------------------------


def test_make_empty_feature():
    g = _graph(4)
    for piece in [g.context, *g.node_sets.values(), *g.edge_sets.values()]:
        got = MakeEmptyFeature()(piece)
        assert got.shape == (piece.total_size, 0) and got.dtype == np.float32
    assert MakeEmptyFeature(np.float64)(g.context).dtype == np.float64
    graphs = [_graph(s) for s in range(3)]
    batched = batch_graph_tensors(graphs)
    got = MakeEmptyFeature()(batched.node_sets["a"])
    assert isinstance(got, Ragged)
    assert got.row_lengths().tolist() == [x.node_sets["a"].total_size for x in graphs]
    assert got.values.shape[1:] == (0,)
    with pytest.raises(TypeError, match="MakeEmptyFeature"):
        MakeEmptyFeature()(g)


def test_item_dropout():
    x = np.random.default_rng(0).standard_normal((200, 3, 2)).astype(np.float32)
    x0 = x.copy()
    drop = ItemDropout(0.25, seed=7)
    assert drop(x) is x and drop(x, training=False) is x
    y = drop(x, training=True)
    assert y.dtype == x.dtype and y.shape == x.shape
    zero = (y == 0).all(axis=(1, 2))
    kept = ~zero
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    assert 0 < zero.sum() < 200
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(ItemDropout(0.25, seed=7)(x, training=True), y)
    assert drop.get_weights() == []
    # Keras' Dropout takes rate 1 (the identity at inference) but refuses to train with it
    assert ItemDropout(1.0)(x) is x
    with pytest.raises(ValueError, match=r"ItemDropout: rate 1\.0.*training"):
        ItemDropout(1.0)(x, training=True)
    for bad in (1.5, -0.1):
        with pytest.raises(ValueError, match="ItemDropout: rate"):
            ItemDropout(bad)
    with pytest.raises(ValueError, match="ItemDropout: needs an array"):
        drop(np.float32(1.0), training=True)


# ---- readout into features ---------------------------------------------------------------------


def _seeded(seed: int) -> GraphTensor:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=int(rng.integers(1, 5)))
    total = int(sizes.sum())
    return GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=sizes,
                features={"y": rng.integers(0, 9, size=total), "h": rng.standard_normal(total)},
            )
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=sizes * 0,
                adjacency=Adjacency.from_indices(
                    source=("paper", np.zeros(0, np.int64)), target=("paper", np.zeros(0, np.int64))
                ),
            )
        },
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_add_readout_from_first_node(seed):
    g = _seeded(seed)
    snap = _snapshot(g)
    out = add_readout_from_first_node(g, "seed", node_set_name="paper")
    np.testing.assert_array_equal(
        structured_readout(out, "seed", feature_name="y"),
        gather_first_node(g, "paper", feature_name="y"),
    )
    assert_graphs_equal(AddReadoutFromFirstNode("seed", node_set_name="paper")(g), out)
    twice = add_readout_from_first_node(out, "other", node_set_name="paper")
    assert {"_readout/seed", "_readout/other"} <= set(twice.edge_sets)
    with pytest.raises(ValueError, match=r"add_readout_from_first_node\(\).*'seed'"):
        add_readout_from_first_node(out, "seed", node_set_name="paper")
    with pytest.raises(ValueError, match=r"add_readout_from_first_node\(\).*'zz'"):
        add_readout_from_first_node(g, "seed", node_set_name="zz")
    _unchanged(g, snap)


@pytest.mark.parametrize("layer", [StructuredReadoutIntoFeature, ReadoutNamedIntoFeature])
def test_structured_readout_into_feature(layer):
    g = add_readout_from_first_node(_seeded(3), "seed", node_set_name="paper")
    want = gather_first_node(g, "paper", feature_name="y")
    out = structured_readout_into_feature(g, "seed", feature_name="y", new_feature_name="label")
    np.testing.assert_array_equal(out.node_sets["_readout"]["label"], want)
    assert "y" in out.node_sets["paper"].features
    out = layer("seed", feature_name="y", remove_input_feature=True)(g)
    np.testing.assert_array_equal(out.node_sets["_readout"]["y"], want)
    assert "y" not in out.node_sets["paper"].features and "y" in g.node_sets["paper"].features
    with pytest.raises(ValueError, match=r"into_feature\(\).*'y' already exists.*overwrite"):
        structured_readout_into_feature(out, "seed", feature_name="h", new_feature_name="y")
    again = structured_readout_into_feature(
        out, "seed", feature_name="h", new_feature_name="y", overwrite=True
    )
    np.testing.assert_array_equal(
        again.node_sets["_readout"]["y"], gather_first_node(g, "paper", feature_name="h")
    )
    np.testing.assert_array_equal(
        layer(feature_name="y")(g, key="seed").node_sets["_readout"]["y"], want
    )
    with pytest.raises(ValueError, match="key"):
        layer(feature_name="y")(g)
    with pytest.raises(ValueError, match="key"):
        layer("seed", feature_name="y")(g, key="other")


def test_pipeline_layers_wrap_io_and_padding():
    from arraygnn.io.example import write_example
    from arraygnn.padding import SizeConstraints, pad_to_total_sizes

    g = _seeded(5)
    g = g.replace_features(
        node_sets={"paper": {"h": g.node_sets["paper"]["h"].astype(np.float32)}}
    )  # tf.Example floats are float32
    c = SizeConstraints(
        total_num_components=g.num_components + 1,
        total_num_nodes={"paper": g.node_sets["paper"].total_size + 1},
        total_num_edges={"cites": 0},
    )
    got, mask = PadToTotalSizes(c)(g)
    want, want_mask = pad_to_total_sizes(g, c)
    assert_graphs_equal(got, want)
    np.testing.assert_array_equal(mask, want_mask)
    blob = write_example(g)
    assert_graphs_equal(ParseSingleExample(g.spec)(blob), g)
    two = ParseExample(g.spec)([blob, blob])
    assert two.num_components == 2 * g.num_components
    assert_graphs_equal(ParseExample(g.spec)(np.array([blob], dtype=object)), g)
    with pytest.raises(TypeError, match="ParseExample: .*ParseSingleExample"):
        ParseExample(g.spec)(blob)  # one example, not a list of them
    with pytest.raises(TypeError, match="ParseExample: .*got int"):
        ParseExample(g.spec)(5)


def test_ops_need_a_scalar_graph():
    g = batch_graph_tensors([_graph(0), _graph(1)])
    for call in (
        lambda: node_degree(g, "ab", SOURCE),
        lambda: add_self_loops(g, "aa"),
        lambda: shuffle_nodes(g),
        lambda: softmax(g, CONTEXT, node_set_name="a", feature_name="h"),
    ):
        with pytest.raises(ValueError, match="scalar GraphTensor"):
            call()


def test_context_only_graph():
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"x": np.array([[1.0], [2.0]])})
    )
    assert_graphs_equal(shuffle_nodes(g, seed=0), g)
    out = shuffle_features_globally(g, seed=0)
    assert sorted(out.context["x"].ravel().tolist()) == [1.0, 2.0]


# ---- line graph ---------------------------------------------------------------------------------


def _np_line_edges(g, e1, e2, connect_from, connect_to):
    """Brute force: for each node, each e1 edge ending there at connect_from, each e2 edge
    starting there at connect_to (ascending ids)."""
    a1, a2 = g.edge_sets[e1].adjacency, g.edge_sets[e2].adjacency
    ns = g.node_sets[a1.node_set_name(connect_from)]
    src, tgt, node = [], [], []
    for v in range(ns.total_size):
        for i in np.flatnonzero(a1[connect_from] == v):
            for j in np.flatnonzero(a2[connect_to] == v):
                src.append(int(i))
                tgt.append(int(j))
                node.append(v)
    sizes = np.bincount(ns.component_ids()[node], minlength=g.num_components)
    return src, tgt, node, sizes


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("ends", [(TARGET, SOURCE), (SOURCE, SOURCE), (TARGET, TARGET)])
def test_convert_to_line_graph(seed, index_dtype, ends):
    from arraygnn.graph_tensor import convert_to_line_graph

    g = _graph(seed, index_dtype)
    snap = _snapshot(g)
    cf, ct = ends
    out = convert_to_line_graph(
        g, connect_from=cf, connect_to=ct, use_node_features_as_line_graph_edge_features=True
    )
    assert list(out.node_sets) == list(g.edge_sets)
    for e, es in g.edge_sets.items():
        np.testing.assert_array_equal(out.node_sets[e].sizes, es.sizes)
        assert out.node_sets[e]["w"] is es["w"]
    want_names = [
        f"{e1}=>{e2}"
        for e1, a in g.edge_sets.items()
        for e2, b in g.edge_sets.items()
        if b.adjacency.node_set_name(ct) == a.adjacency.node_set_name(cf)
    ]
    assert list(out.edge_sets) == want_names
    for name in want_names:
        e1, e2 = name.split("=>")
        src, tgt, node, sizes = _np_line_edges(g, e1, e2, cf, ct)
        le = out.edge_sets[name]
        assert le.adjacency.source.tolist() == src and le.adjacency.target.tolist() == tgt
        assert le.adjacency.source.dtype == index_dtype
        np.testing.assert_array_equal(le.sizes, sizes)
        ns = g.node_sets[g.edge_sets[e1].adjacency.node_set_name(cf)]
        np.testing.assert_array_equal(le["h"], ns["h"][node])
        assert le["tokens"].to_list() == [ns["tokens"][v].tolist() for v in node]
        # non-backtracking drops the pairs whose outer ends agree
        nb = convert_to_line_graph(g, connect_from=cf, connect_to=ct, non_backtracking=True)
        a1, a2 = g.edge_sets[e1].adjacency, g.edge_sets[e2].adjacency
        keep = [
            (i, j)
            for i, j in zip(src, tgt)
            if a1.node_set_name(1 - cf) != a2.node_set_name(1 - ct)
            or a1[1 - cf][i] != a2[1 - ct][j]
        ]
        nbe = nb.edge_sets[name].adjacency
        assert list(zip(nbe.source.tolist(), nbe.target.tolist())) == keep
    _unchanged(g, snap)


def test_convert_to_line_graph_with_original_nodes():
    from arraygnn.graph_tensor import convert_to_line_graph

    g = add_readout_from_first_node(_seeded(2), "seed", node_set_name="paper")
    with pytest.raises(ValueError, match=r"convert_to_line_graph\(\).*'_readout'.*original"):
        convert_to_line_graph(g)
    out = convert_to_line_graph(g, connect_with_original_nodes=True)
    assert sorted(out.node_sets) == ["_readout", "cites", "original/paper"]
    ro = out.edge_sets["_readout/seed"].adjacency
    assert (ro.source_name, ro.target_name) == ("original/paper", "_readout")
    np.testing.assert_array_equal(
        structured_readout(out, "seed", feature_name="y"),
        gather_first_node(g, "paper", feature_name="y"),
    )
    assert {"original/to/cites", "original/from/cites", "cites=>cites"} <= set(out.edge_sets)
    shadow = GraphTensor.from_pieces(
        node_sets={**g.node_sets, "_shadow/x": NodeSet.from_fields(sizes=g.context.sizes)},
        edge_sets=dict(g.edge_sets),
    )
    with pytest.raises(ValueError, match=r"'_shadow/x' that cannot be converted"):
        convert_to_line_graph(shadow, connect_with_original_nodes=True)
