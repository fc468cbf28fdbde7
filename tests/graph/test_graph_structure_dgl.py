"""``arraygnn.graph.structure`` against NumPy transcriptions of DGL's source
(python/dgl/subgraph.py, transforms/functional.py, heterograph.py add_* / remove_*, and the
C++ it calls: InEdgeGraph / EdgeSubgraph's Relabel_, COOLineGraph, CompactGraphsCPU)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    NID,
    add_edges,
    add_nodes,
    batch,
    compact_graphs,
    graph,
    heterograph,
    in_subgraph,
    khop_graph,
    khop_in_subgraph,
    khop_out_subgraph,
    line_graph,
    metapath_reachable_graph,
    out_subgraph,
    remove_edges,
    remove_nodes,
    to_block,
)
from tests.graph._graph_cases import local_cases

CASES = local_cases()


def _np(x):
    return np.asarray(x)


def _hetero(seed=0, idtype=np.int64):
    rng = np.random.default_rng(seed)
    n = {"user": 6, "game": 4, "dev": 3}
    rels = {
        ("user", "follows", "user"): (rng.integers(0, 6, 10), rng.integers(0, 6, 10)),
        ("user", "plays", "game"): (rng.integers(0, 6, 8), rng.integers(0, 4, 8)),
        ("dev", "makes", "game"): (rng.integers(0, 3, 5), rng.integers(0, 4, 5)),
    }
    rels = {c: (s.astype(idtype), d.astype(idtype)) for c, (s, d) in rels.items()}
    g = heterograph(rels, n)
    for t, k in n.items():
        g.nodes[t].data["x"] = rng.normal(size=(k, 2))
    for c in g.canonical_etypes:
        g.edges[c].data["w"] = rng.normal(size=(g.num_edges(c),))
    return g


def _with_features(g, seed=0):
    rng = np.random.default_rng(seed)
    for t in g.ntypes:
        g.nodes[t].data["x"] = rng.normal(size=(g.num_nodes(t), 3))
    for c in g.canonical_etypes:
        g.edges[c].data["w"] = rng.normal(size=(g.num_edges(c), 2))
    return g


def _snapshot(g):
    ids = {c: tuple(_np(a).copy() for a in g.edges(etype=c)) for c in g.canonical_etypes}
    nfeat = {t: {k: v.copy() for k, v in g.nodes[t].data.items()} for t in g.ntypes}
    efeat = {c: {k: v.copy() for k, v in g.edges[c].data.items()} for c in g.canonical_etypes}
    return ids, nfeat, efeat, dict(g._num_src)


def _assert_unchanged(g, snap):
    ids, nfeat, efeat, counts = snap
    assert dict(g._num_src) == counts
    for c, (s, d) in ids.items():
        np.testing.assert_array_equal(g.edges(etype=c)[0], s)
        np.testing.assert_array_equal(g.edges(etype=c)[1], d)
    for t, f in nfeat.items():
        assert sorted(g.nodes[t].data) == sorted(f)
        for k, v in f.items():
            np.testing.assert_array_equal(g.nodes[t].data[k], v)
    for c, f in efeat.items():
        assert sorted(g.edges[c].data) == sorted(f)
        for k, v in f.items():
            np.testing.assert_array_equal(g.edges[c].data[k], v)


# ---------------------------------------------------------------------- references
def _first_appearance(arrays):
    seen = {}
    for a in arrays:
        for x in np.asarray(a).tolist():
            seen.setdefault(x, len(seen))
    return np.array(list(seen), dtype=np.int64)


def ref_side_subgraph(g, nodes, side, relabel):
    """DGL: per edge type, InEdges / OutEdges of the nodes (grouped by node in the order
    given, edge-id order within a node), then EdgeSubgraph (Relabel_ when relabelling)."""
    chosen = {}
    for c in g.canonical_etypes:
        s, d = (_np(a).astype(np.int64) for a in g.edges(etype=c))
        ends = d if side == "in" else s
        t = c[2] if side == "in" else c[0]
        chosen[c] = np.array(
            [e for n in nodes.get(t, []) for e in np.nonzero(ends == n)[0]], dtype=np.int64
        )
    if not relabel:
        return chosen, None
    induced = {}
    for t in g.ntypes:
        arrays = []
        for c in g.canonical_etypes:
            s, d = (_np(a).astype(np.int64) for a in g.edges(etype=c))
            if c[0] == t:
                arrays.append(s[chosen[c]])
            if c[2] == t:
                arrays.append(d[chosen[c]])
        induced[t] = _first_appearance(arrays)
    return chosen, induced


def ref_khop(g, seeds, k, inward):
    """DGL's khop_in_subgraph loop: k rounds of in-neighbours of the previous round."""
    hops = [{t: np.asarray(v, np.int64) for t, v in seeds.items()}]
    last = hops[0]
    for _ in range(k):
        cur = {t: [] for t in g.ntypes}
        for c in g.canonical_etypes:
            s, d = (_np(a).astype(np.int64) for a in g.edges(etype=c))
            near, far, tn, tf = (d, s, c[2], c[0]) if inward else (s, d, c[0], c[2])
            cur[tf].append(far[np.isin(near, last.get(tn, []))])
        cur = {
            t: np.unique(np.concatenate(v)) if v else np.zeros(0, np.int64) for t, v in cur.items()
        }
        hops.append(cur)
        last = cur
    nodes, inverse = {}, {}
    for t in g.ntypes:
        nodes[t], inverse[t] = np.unique(
            np.concatenate([h.get(t, np.zeros(0, np.int64)) for h in hops]), return_inverse=True
        )
    return nodes, {t: inverse[t][: len(seeds[t])] for t in seeds}


def ref_line_graph(src, dst, backtracking):
    """COOLineGraph: for i, for j (edge order), i != j, dst[i] == src[j] [, src[i] != dst[j]]."""
    rows, cols = [], []
    for i in range(len(src)):
        for j in range(len(src)):
            if i != j and dst[i] == src[j] and (backtracking or src[i] != dst[j]):
                rows.append(i)
                cols.append(j)
    return np.array(rows, np.int64), np.array(cols, np.int64)


def _sorted_pairs(u, v):
    u, v = np.asarray(u, np.int64), np.asarray(v, np.int64)
    order = np.lexsort((v, u))
    return u[order], v[order]


# ---------------------------------------------------------------------- in / out subgraphs
def test_dgl_docstring_examples():
    g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])))
    g.edata["w"] = np.arange(10).reshape(5, 2)
    sg = in_subgraph(g, [2, 0])
    np.testing.assert_array_equal(np.stack(sg.edges()), [[1, 4], [2, 0]])
    np.testing.assert_array_equal(sg.edata[EID], [1, 4])
    np.testing.assert_array_equal(sg.edata["w"], [[2, 3], [8, 9]])
    assert sg.num_nodes() == 5 and NID not in sg.ndata
    sg = out_subgraph(g, [2, 0])
    np.testing.assert_array_equal(np.stack(sg.edges()), [[2, 0], [3, 1]])
    np.testing.assert_array_equal(sg.edata[EID], [2, 0])
    np.testing.assert_array_equal(sg.edata["w"], [[4, 5], [0, 1]])
    hg = heterograph(
        {
            ("user", "plays", "game"): ([0, 1, 1, 2], [0, 0, 2, 1]),
            ("user", "follows", "user"): ([0, 1, 1], [1, 2, 2]),
        }
    )
    s = in_subgraph(hg, {"user": [2], "game": [2]})
    assert s.num_edges("plays") == 1 and s.num_edges("follows") == 2
    assert s.num_nodes("user") == 3 and s.num_nodes("game") == 3
    s = out_subgraph(hg, {"user": [1]})
    assert s.num_edges("plays") == 2 and s.num_edges("follows") == 2
    # khop_in_subgraph's examples
    g = graph((np.array([1, 1, 2, 3, 4]), np.array([0, 2, 0, 4, 2])))
    g.edata["w"] = np.arange(10).reshape(5, 2)
    sg, inv = khop_in_subgraph(g, 0, k=2)
    np.testing.assert_array_equal(np.stack(sg.edges()), [[1, 1, 2, 3], [0, 2, 0, 2]])
    np.testing.assert_array_equal(sg.edata[EID], [0, 1, 2, 4])
    np.testing.assert_array_equal(sg.edata["w"], [[0, 1], [2, 3], [4, 5], [8, 9]])
    np.testing.assert_array_equal(inv, [0])
    sg, inv = khop_in_subgraph(hg, {"game": 0}, k=2)
    assert sg.num_nodes("game") == 1 and sg.num_nodes("user") == 2
    assert sg.num_edges("follows") == 1 and sg.num_edges("plays") == 2
    assert list(inv) == ["game"] and inv["game"].tolist() == [0]
    # line_graph / khop_graph / compact_graphs examples
    lg = line_graph(graph(([0, 1, 1, 2, 2], [2, 0, 2, 0, 1])))
    u, v = lg.edges()
    np.testing.assert_array_equal(
        np.stack([u, v]), [[0, 0, 1, 2, 2, 3, 4, 4], [3, 4, 0, 3, 4, 0, 1, 2]]
    )
    lg = line_graph(graph(([0, 1, 1, 2, 2], [2, 0, 2, 0, 1])), backtracking=False)
    np.testing.assert_array_equal(np.stack(lg.edges()), [[0, 1, 2, 4], [4, 0, 3, 1]])
    np.testing.assert_array_equal(
        np.stack(khop_graph(graph(([0, 1], [1, 2])), 2).edges()), [[0], [2]]
    )
    assert (
        khop_graph(
            graph((np.arange(5).tolist() * 2, [0, 1, 2, 3, 4, 1, 2, 3, 4, 0])), 3
        ).num_edges()
        == 40
    )
    g = heterograph({("user", "plays", "game"): ([1, 3], [3, 5])}, {"user": 20, "game": 10})
    g2 = heterograph({("user", "plays", "game"): ([1, 6], [6, 8])}, {"user": 20, "game": 10})
    new_g = compact_graphs(g)
    assert new_g.ndata[NID]["user"].tolist() == [1, 3] and new_g.ndata[NID]["game"].tolist() == [
        3,
        5,
    ]
    new_g, new_g2 = compact_graphs([g, g2])
    assert new_g.ndata[NID]["user"].tolist() == [1, 3, 6]
    assert new_g.ndata[NID]["game"].tolist() == [3, 5, 6, 8]
    np.testing.assert_array_equal(np.stack(new_g2.edges()), [[0, 2], [2, 3]])


@pytest.mark.parametrize("relabel", [False, True])
@pytest.mark.parametrize("side", ["in", "out"])
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_in_out_subgraph_match_dgl_reference(label, g, side, relabel):
    g = _with_features(g, len(label))
    snap = _snapshot(g)
    rng = np.random.default_rng(len(label))
    nodes = {t: rng.permutation(g.num_nodes(t))[: max(g.num_nodes(t) // 2, 1)] for t in g.ntypes}
    nodes = {t: v[: g.num_nodes(t)] for t, v in nodes.items()}
    arg = nodes if len(g.ntypes) > 1 else nodes[g.ntypes[0]]
    func = in_subgraph if side == "in" else out_subgraph
    sg = func(g, arg, relabel_nodes=relabel)
    chosen, induced = ref_side_subgraph(g, nodes, side, relabel)
    assert sg.idtype == g.idtype
    for c in g.canonical_etypes:
        s, d = (_np(a) for a in g.edges(etype=c))
        e = chosen[c]
        np.testing.assert_array_equal(sg.edges[c].data[EID], e)
        assert sg.edges[c].data[EID].dtype == g.idtype
        np.testing.assert_array_equal(sg.edges[c].data["w"], g.edges[c].data["w"][e])
        ss, sd = (_np(a) for a in sg.edges(etype=c))
        if relabel:
            np.testing.assert_array_equal(induced[c[0]][ss], s[e])
            np.testing.assert_array_equal(induced[c[2]][sd], d[e])
        else:
            np.testing.assert_array_equal(ss, s[e])
            np.testing.assert_array_equal(sd, d[e])
    for t in g.ntypes:
        if relabel:
            np.testing.assert_array_equal(sg.nodes[t].data[NID], induced[t])
            np.testing.assert_array_equal(sg.nodes[t].data["x"], g.nodes[t].data["x"][induced[t]])
        else:
            assert sg.num_nodes(t) == g.num_nodes(t) and NID not in sg.nodes[t].data
            assert sg.nodes[t].data["x"] is g.nodes[t].data["x"]
    no_ids = func(g, arg, relabel_nodes=relabel, store_ids=False)
    assert all(EID not in no_ids.edges[c].data for c in g.canonical_etypes)
    _assert_unchanged(g, snap)


# ---------------------------------------------------------------------- k-hop subgraphs
@pytest.mark.parametrize("k", [0, 1, 2, 3])
@pytest.mark.parametrize("inward", [True, False])
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_khop_subgraphs_match_dgl_reference(label, g, inward, k):
    g = _with_features(g, 1)
    snap = _snapshot(g)
    rng = np.random.default_rng(k)
    t0 = g.ntypes[-1]
    if g.num_nodes(t0) == 0:
        seeds = {t0: np.zeros(0, np.int64)}
    else:
        seeds = {t0: rng.integers(0, g.num_nodes(t0), 2)}  # a repeated seed is fine (DGL)
    func = khop_in_subgraph if inward else khop_out_subgraph
    arg = seeds if len(g.ntypes) > 1 else seeds[t0]
    sg, inv = func(g, arg, k)
    nodes, want_inv = ref_khop(g, seeds, k, inward)
    if len(g.ntypes) > 1:
        assert list(inv) == [t0]
        inv = inv[t0]
    np.testing.assert_array_equal(inv, want_inv[t0])
    for t in g.ntypes:
        np.testing.assert_array_equal(sg.nodes[t].data[NID], nodes[t])
        np.testing.assert_array_equal(sg.nodes[t].data["x"], g.nodes[t].data["x"][nodes[t]])
    for c in g.canonical_etypes:
        s, d = (_np(a) for a in g.edges(etype=c))
        keep = np.nonzero(np.isin(s, nodes[c[0]]) & np.isin(d, nodes[c[2]]))[0]
        keep = keep[np.argsort(s[keep], kind="stable")]  # DGL's node subgraph: by source
        np.testing.assert_array_equal(sg.edges[c].data[EID], keep)
        ss, sd = (_np(a) for a in sg.edges(etype=c))
        np.testing.assert_array_equal(nodes[c[0]][ss], s[keep])
        np.testing.assert_array_equal(nodes[c[2]][sd], d[keep])
    full = func(g, arg, k, relabel_nodes=False)
    for c in g.canonical_etypes:
        s, d = (_np(a) for a in g.edges(etype=c))
        keep = np.nonzero(np.isin(s, nodes[c[0]]) & np.isin(d, nodes[c[2]]))[0]
        keep = keep[np.argsort(s[keep], kind="stable")]
        np.testing.assert_array_equal(full.edges[c].data[EID], keep)
        np.testing.assert_array_equal(full.edges(etype=c)[0], s[keep])
    assert all(NID not in full.nodes[t].data for t in g.ntypes)
    _assert_unchanged(g, snap)


def test_khop_heterograph_dict_seeds():
    g = _hetero(3)
    seeds = {"game": np.array([1, 3]), "user": np.array([0])}
    sg, inv = khop_in_subgraph(g, seeds, 2)
    nodes, want = ref_khop(g, seeds, 2, True)
    for t in g.ntypes:
        np.testing.assert_array_equal(sg.nodes[t].data[NID], nodes[t])
    assert sorted(inv) == ["game", "user"]
    for t in inv:
        np.testing.assert_array_equal(inv[t], want[t])
        assert inv[t].dtype == np.int64


# ---------------------------------------------------------------------- derived graphs
@pytest.mark.parametrize(("label", "g"), [c for c in CASES if len(c[1].ntypes) == 1])
def test_line_graph_matches_cpp_loop(label, g):
    if g.num_edges() > 220:
        g = g.edge_subgraph(np.arange(220), relabel_nodes=False)
    g = _with_features(g, 2)
    snap = _snapshot(g)
    s, d = (_np(a) for a in g.edges())
    for backtracking in (True, False):
        lg = line_graph(g, backtracking=backtracking)
        r, c = ref_line_graph(s, d, backtracking)
        assert lg.num_nodes() == g.num_edges() and lg.idtype == g.idtype
        np.testing.assert_array_equal(lg.edges()[0], r)
        np.testing.assert_array_equal(lg.edges()[1], c)
        assert len(lg.ndata) == 0
    shared = line_graph(g, shared=True)
    assert shared.ndata["w"] is g.edata["w"]
    _assert_unchanged(g, snap)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
@pytest.mark.parametrize(("label", "g"), [c for c in CASES if len(c[1].ntypes) == 1])
def test_khop_graph_counts_walks(label, g, k):
    n = g.num_nodes()
    if n > 60:
        return
    g = _with_features(g, 3)
    s, d = (_np(a) for a in g.edges())
    a = np.zeros((n, n), np.int64)
    np.add.at(a, (s, d), 1)
    ak = np.linalg.matrix_power(a, k)
    r, c = np.nonzero(ak)
    want = _sorted_pairs(np.repeat(r, ak[r, c]), np.repeat(c, ak[r, c]))
    kg = khop_graph(g, k)
    assert kg.num_nodes() == n and kg.idtype == g.idtype
    got = _sorted_pairs(*kg.edges())
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert kg.ndata["x"] is g.ndata["x"]
    assert "x" not in khop_graph(g, k, copy_ndata=False).ndata
    if k == 1:  # A ** 1 is a copy of the COO: the edges themselves, in order
        np.testing.assert_array_equal(np.stack(kg.edges()), np.stack([s, d]))


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_metapath_reachable_graph(idtype):
    g = _hetero(4, idtype)
    metapath = ["plays", ("dev", "makes", "game")]
    with pytest.raises(
        ValueError, match=r"metapath_reachable_graph: edge type .*'plays'.* ends at"
    ):
        metapath_reachable_graph(g, metapath)
    g2 = heterograph(
        {
            ("user", "plays", "game"): (
                np.array([0, 1, 1, 2], idtype),
                np.array([0, 0, 2, 1], idtype),
            ),
            ("game", "made-by", "dev"): (
                np.array([0, 2, 1, 1], idtype),
                np.array([1, 0, 0, 2], idtype),
            ),
        },
        {"user": 4, "game": 3, "dev": 3},
    )
    g2.nodes["user"].data["x"] = np.arange(4.0)
    for path in (["plays", "made-by"], ["plays"]):
        mats = []
        for p in path:
            c = g2._rel(p).canonical
            m = np.zeros((g2.num_nodes(c[0]), g2.num_nodes(c[2])), np.int64)
            s, d = (_np(a) for a in g2.edges(etype=c))
            np.add.at(m, (s, d), 1)
            mats.append(m)
        reach = mats[0]
        for m in mats[1:]:
            reach = reach @ m
        r, c = np.nonzero(reach)
        new = metapath_reachable_graph(g2, path)
        last = g2._rel(path[-1]).canonical[2]
        assert new.canonical_etypes == [("user", "_E", last)]
        assert new.idtype == np.dtype(idtype)
        got = new.edges()
        assert np.all(np.diff(_np(got[0])) >= 0)  # row-major
        np.testing.assert_array_equal(np.stack(_sorted_pairs(*got)), np.stack(_sorted_pairs(r, c)))
        assert new.nodes["user"].data["x"] is g2.nodes["user"].data["x"]


def test_compact_graphs_first_appearance_order():
    rng = np.random.default_rng(5)
    g1, g2 = _hetero(5), _hetero(6)
    for g in (g1, g2):
        for c in g.canonical_etypes:
            g.edges[c].data["w"] = rng.normal(size=(g.num_edges(c),))
    snaps = [_snapshot(g1), _snapshot(g2)]
    keep = {"game": np.array([3, 0]), "dev": np.array([2])}
    out = compact_graphs([g1, g2], always_preserve=keep)
    for t in g1.ntypes:
        arrays = [keep.get(t, [])]
        for g in (g1, g2):
            for c in g.canonical_etypes:
                s, d = (_np(a) for a in g.edges(etype=c))
                if c[0] == t:
                    arrays.append(s)
                if c[2] == t:
                    arrays.append(d)
        want = _first_appearance(arrays)
        for g, new in zip((g1, g2), out):
            np.testing.assert_array_equal(new.nodes[t].data[NID], want)
            np.testing.assert_array_equal(new.nodes[t].data["x"], g.nodes[t].data["x"][want])
    for g, new in zip((g1, g2), out):
        for c in g.canonical_etypes:
            s, d = (_np(a) for a in g.edges(etype=c))
            ns, nd = (_np(a) for a in new.edges(etype=c))
            np.testing.assert_array_equal(new.nodes[c[0]].data[NID][ns], s)
            np.testing.assert_array_equal(new.nodes[c[2]].data[NID][nd], d)
            assert new.edges[c].data["w"] is g.edges[c].data["w"]
            assert EID not in new.edges[c].data
    bare = compact_graphs([g1], copy_ndata=False, copy_edata=False)[0]
    assert all(len(bare.nodes[t].data) == 0 for t in bare.ntypes)
    assert compact_graphs([]) == []
    for g, snap in zip((g1, g2), snaps):
        _assert_unchanged(g, snap)
    with pytest.raises(ValueError, match="compact_graphs: graphs\\[1\\] has nodes"):
        compact_graphs([g1, graph(([0], [1]))])


# ---------------------------------------------------------------------- add / remove
@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_add_nodes_and_edges(label, g):
    g = _with_features(g, 6)
    snap = _snapshot(g)
    t = g.ntypes[0]
    n = g.num_nodes(t)
    new = add_nodes(g, 3, ntype=t)
    assert new.num_nodes(t) == n + 3 and new.idtype == g.idtype
    np.testing.assert_array_equal(new.nodes[t].data["x"][:n], g.nodes[t].data["x"])
    np.testing.assert_array_equal(new.nodes[t].data["x"][n:], 0)
    data = {"x": np.ones((2, 3)), "y": np.full((2,), 7, np.int32)}
    new = add_nodes(g, 2, data=data, ntype=t)
    np.testing.assert_array_equal(new.nodes[t].data["x"][n:], 1)
    np.testing.assert_array_equal(new.nodes[t].data["y"], [0] * n + [7, 7])
    assert new.nodes[t].data["y"].dtype == np.int32
    c = g.canonical_etypes[0]
    e = g.num_edges(c)
    ns, nd = g.num_nodes(c[0]), g.num_nodes(c[2])
    new = add_edges(g, [0, ns + 1], nd + 2, etype=c)  # grows both ends (zero features)
    s, d = (_np(a) for a in g.edges(etype=c))
    np.testing.assert_array_equal(new.edges(etype=c)[0], np.concatenate([s, [0, ns + 1]]))
    np.testing.assert_array_equal(new.edges(etype=c)[1], np.concatenate([d, [nd + 2] * 2]))
    assert new.edges(etype=c)[0].dtype == g.idtype
    np.testing.assert_array_equal(new.edges[c].data["w"][e:], 0)
    np.testing.assert_array_equal(new.edges[c].data["w"][:e], g.edges[c].data["w"])
    if c[0] == c[2]:
        assert new.num_nodes(c[0]) == max(ns, nd) + 3
    else:
        assert new.num_nodes(c[0]) == ns + 2 and new.num_nodes(c[2]) == nd + 3
    np.testing.assert_array_equal(new.nodes[c[2]].data["x"][nd:], 0)
    new = add_edges(g, [1], [0], data={"w": np.full((1, 2), 5.0), "z": np.ones(1)}, etype=c)
    np.testing.assert_array_equal(new.edges[c].data["w"][e:], 5.0)
    np.testing.assert_array_equal(new.edges[c].data["z"], [0.0] * e + [1.0])
    assert add_edges(g, [], [], etype=c).num_edges(c) == e
    if ns and nd:  # no node added: every node feature is shared, as DGL's clone
        new = add_edges(g, [0], [0], etype=c)
        for u in g.ntypes:
            for k, v in g.nodes[u].data.items():
                assert new.nodes[u].data[k] is v
    _assert_unchanged(g, snap)


@pytest.mark.parametrize(("label", "g"), CASES, ids=[c[0] for c in CASES])
def test_remove_nodes_and_edges(label, g):
    g = _with_features(g, 7)
    snap = _snapshot(g)
    c = g.canonical_etypes[0]
    e = g.num_edges(c)
    rng = np.random.default_rng(e)
    eids = rng.integers(0, e, 3) if e else np.zeros(0, np.int64)  # repeats allowed
    new = remove_edges(g, eids, etype=c, store_ids=True)
    keep = np.setdiff1d(np.arange(e), eids)
    if e:  # no ids to remove: DGL returns a plain clone (no EID)
        np.testing.assert_array_equal(new.edges[c].data[EID], keep)
    np.testing.assert_array_equal(new.edges[c].data["w"], g.edges[c].data["w"][keep])
    s, d = (_np(a) for a in g.edges(etype=c))
    np.testing.assert_array_equal(new.edges(etype=c)[0], s[keep])
    assert all(new.num_nodes(t) == g.num_nodes(t) for t in g.ntypes)
    if e:
        assert all(NID not in new.nodes[t].data for t in g.ntypes)
        assert EID not in remove_edges(g, eids, etype=c).edges[c].data
    t = c[0]
    n = g.num_nodes(t)
    nids = rng.integers(0, n, 2) if n else np.zeros(0, np.int64)
    new = remove_nodes(g, nids, ntype=t, store_ids=True)
    kept = np.setdiff1d(np.arange(n), nids)
    if n:
        np.testing.assert_array_equal(new.nodes[t].data[NID], kept)
        np.testing.assert_array_equal(new.nodes[t].data["x"], g.nodes[t].data["x"][kept])
        for cc in g.canonical_etypes:
            cs, cd = (_np(a) for a in g.edges(etype=cc))
            ok = np.ones(len(cs), bool)
            if cc[0] == t:
                ok &= np.isin(cs, kept)
            if cc[2] == t:
                ok &= np.isin(cd, kept)
            want = np.nonzero(ok)[0]  # DGL's node subgraph: grouped by source, stable
            want = want[np.argsort(cs[want], kind="stable")]
            np.testing.assert_array_equal(new.edges[cc].data[EID], want)
        bare = remove_nodes(g, nids, ntype=t)
        assert NID not in bare.nodes[t].data and EID not in bare.edges[c].data
    _assert_unchanged(g, snap)


def test_remove_keeps_batch_counts_as_dgl():
    rng = np.random.default_rng(9)
    gs = []
    for n, e in [(4, 5), (3, 0), (5, 6)]:
        g = graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n)
        g.ndata["x"] = rng.normal(size=(n, 2))
        gs.append(g)
    bg = batch(gs)
    out = remove_edges(bg, [0, 0, 6, 10])
    np.testing.assert_array_equal(out.batch_num_edges(), [4, 0, 4])
    np.testing.assert_array_equal(out.batch_num_nodes(), [4, 3, 5])
    out = remove_nodes(bg, [1, 4, 11])
    src, dst = (_np(a) for a in bg.edges())
    kept = np.setdiff1d(np.arange(12), [1, 4, 11])
    ok = np.isin(src, kept) & np.isin(dst, kept)
    owner = np.searchsorted(np.cumsum([5, 0, 6]), np.nonzero(ok)[0], side="right")
    np.testing.assert_array_equal(out.batch_num_nodes(), [3, 2, 4])
    np.testing.assert_array_equal(out.batch_num_edges(), np.bincount(owner, minlength=3))
    assert NID not in out.ndata and EID not in out.edata
    assert add_nodes(bg, 1).batch_size == 1  # DGL drops the batch information


def test_int32_ids_stay_int32():
    g = graph((np.array([0, 1, 2], np.int32), np.array([1, 2, 0], np.int32)))
    for out in (
        in_subgraph(g, [1]),
        in_subgraph(g, [1], relabel_nodes=True),
        khop_out_subgraph(g, [0], 2)[0],
        line_graph(g),
        khop_graph(g, 2),
        compact_graphs(g),
        add_nodes(g, 2),
        add_edges(g, [4], [0]),
        remove_edges(g, [1], store_ids=True),
        remove_nodes(g, [1], store_ids=True),
    ):
        assert out.idtype == np.int32
        for v in list(out.ndata.values()) + list(out.edata.values()):
            assert v.dtype == np.int32


# ---------------------------------------------------------------------- errors
def test_errors_name_the_function_and_argument():
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    hg = _hetero(1)
    with pytest.raises(ValueError, match="in_subgraph: nodes contains id 5, outside"):
        in_subgraph(g, [5])
    with pytest.raises(ValueError, match="out_subgraph: nodes of type '_N' must be unique"):
        out_subgraph(g, [1, 1])
    with pytest.raises(ValueError, match=r"in_subgraph: the graph has node types .*pass nodes as"):
        in_subgraph(hg, [0])
    with pytest.raises(KeyError, match="in_subgraph: node type 'toy' does not exist"):
        in_subgraph(hg, {"toy": [0]})
    with pytest.raises(TypeError, match="in_subgraph: relabel_nodes must be True or False"):
        in_subgraph(g, [0], relabel_nodes=1)
    with pytest.raises(ValueError, match="khop_in_subgraph: k must be >= 0"):
        khop_in_subgraph(g, [0], -1)
    with pytest.raises(TypeError, match="khop_out_subgraph: k must be an int"):
        khop_out_subgraph(g, [0], 1.5)
    with pytest.raises(ValueError, match=r"line_graph: only homogeneous graphs .*'follows'"):
        line_graph(hg)
    with pytest.raises(ValueError, match="khop_graph: only homogeneous graphs"):
        khop_graph(hg, 2)
    with pytest.raises(ValueError, match="in_subgraph: blocks are not supported"):
        in_subgraph(to_block(g), [0])
    with pytest.raises(
        TypeError, match="metapath_reachable_graph: metapath must be a non-empty list"
    ):
        metapath_reachable_graph(hg, "plays")
    with pytest.raises(ValueError, match="add_nodes: num must be >= 0"):
        add_nodes(g, -1)
    with pytest.raises(ValueError, match=r"add_nodes: the graph has node types .*pass ntype="):
        add_nodes(hg, 1)
    with pytest.raises(ValueError, match="add_nodes: data\\['x'\\] has 1 rows; 2 are added"):
        add_nodes(g, 2, data={"x": np.ones(1)})
    g.ndata["x"] = np.ones((3, 2))
    with pytest.raises(TypeError, match="add_nodes: data\\['x'\\] is float32"):
        add_nodes(g, 1, data={"x": np.ones((1, 2), np.float32)})
    with pytest.raises(ValueError, match=r"add_edges: the graph has edge types .*pass etype="):
        add_edges(hg, [0], [0])
    with pytest.raises(ValueError, match="add_edges: u has 2 ids and v 3"):
        add_edges(g, [0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="add_edges: v contains id -1"):
        add_edges(g, [0], [-1])
    with pytest.raises(ValueError, match="remove_edges: eids contains id 3, outside \\[0, 3\\)"):
        remove_edges(g, [3])
    with pytest.raises(ValueError, match="remove_nodes: nids contains id 9"):
        remove_nodes(g, 9)
    with pytest.raises(ValueError, match=r"remove_nodes: the graph has node types .*pass ntype="):
        remove_nodes(hg, [0])
    with pytest.raises(TypeError, match="compact_graphs expects an arraygnn Graph"):
        compact_graphs([g, "g"])
    # an unknown type name names the function and the argument
    with pytest.raises(KeyError, match=r"metapath_reachable_graph: metapath\[1\]: edge type 'toy'"):
        metapath_reachable_graph(hg, ["plays", "toy"])
    with pytest.raises(KeyError, match="add_edges: etype: edge type 'toy' does not exist"):
        add_edges(hg, [0], [0], etype="toy")
    with pytest.raises(KeyError, match="remove_edges: etype: edge type 'toy' does not exist"):
        remove_edges(hg, [0], etype="toy")
    with pytest.raises(KeyError, match="add_nodes: ntype: node type 'toy' does not exist"):
        add_nodes(hg, 1, ntype="toy")
    with pytest.raises(KeyError, match="remove_nodes: ntype: node type 'toy' does not exist"):
        remove_nodes(hg, [0], ntype="toy")
