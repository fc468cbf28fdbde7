"""DGL functional graph ops: to_heterogeneous, merge, adj_product_graph, adj_sum_graph,
sort_csr_by_tag / sort_csc_by_tag, reorder_graph, to_half / to_float / to_double,
rand_graph, rand_bipartite, radius_graph, svd_pe, double_radius_node_labeling,
sample_etype_neighbors, PinSAGESampler / RandomWalkNeighborSampler.

Deterministic ops are compared with plain-NumPy transcriptions of DGL's Python / C++ code
(python/dgl/convert.py, merge.py, transforms/functional.py, src/array/cpu/csr_mm.cc,
csr_sum.cc, csr_sort.cc); random ones on their guarantees.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    ETYPE,
    NID,
    NTYPE,
    Graph,
    PinSAGESampler,
    RandomWalkNeighborSampler,
    adj_product_graph,
    adj_sum_graph,
    double_radius_node_labeling,
    graph,
    heterograph,
    merge,
    radius_graph,
    rand_bipartite,
    rand_graph,
    reorder_graph,
    sample_etype_neighbors,
    select_pinsage_neighbors,
    sort_csc_by_tag,
    sort_csr_by_tag,
    svd_pe,
    to_double,
    to_float,
    to_half,
    to_heterogeneous,
    to_homogeneous,
)

IDTYPES = [np.int32, np.int64]


def _rand_graph(rng, n, m, idtype, loops=True):
    src = rng.integers(0, max(n, 1), m).astype(idtype) if n else np.zeros(0, idtype)
    dst = rng.integers(0, max(n, 1), m).astype(idtype) if n else np.zeros(0, idtype)
    if not loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    return graph((src, dst), num_nodes=n)


def _hetero(rng, idtype):
    nu, ng = 5, 4
    return heterograph(
        {
            ("user", "plays", "game"): (
                rng.integers(0, nu, 7).astype(idtype),
                rng.integers(0, ng, 7).astype(idtype),
            ),
            ("user", "follows", "user"): (
                rng.integers(0, nu, 6).astype(idtype),
                rng.integers(0, nu, 6).astype(idtype),
            ),
            ("game", "likes", "user"): (np.zeros(0, idtype), np.zeros(0, idtype)),
        },
        {"user": nu, "game": ng, "tag": 2},
    )


# ---------------------------------------------------------------- to_heterogeneous
def _dgl_to_heterogeneous(ntype_ids, etype_ids, src, dst, ntypes, etypes):
    """DGL convert.py to_heterogeneous (metagraph=None), in NumPy."""
    count = np.bincount(ntype_ids, minlength=len(ntypes))
    offset = np.insert(np.cumsum(count), 0, 0)
    sortidx = np.argsort(ntype_ids, kind="stable")
    local = np.zeros_like(ntype_ids)
    groups = []
    for i in range(len(ntypes)):
        grp = sortidx[offset[i] : offset[i + 1]]
        groups.append(grp)
        local[grp] = np.arange(count[i])
    ctids = np.stack([ntype_ids[src], etype_ids, ntype_ids[dst]], 1)
    uniq = list(set(tuple(x) for x in ctids.tolist()))
    out = {}
    for s, e, d in uniq:
        grp = np.nonzero((ctids == (s, e, d)).all(1))[0]
        out[(ntypes[s], etypes[e], ntypes[d])] = (local[src[grp]], local[dst[grp]], grp)
    return dict(zip(ntypes, count)), groups, out


@pytest.mark.parametrize("idtype", IDTYPES)
def test_to_heterogeneous_round_trips_to_homogeneous(idtype):
    rng = np.random.default_rng(0)
    hg = _hetero(rng, idtype)
    hg.nodes["user"].data["x"] = rng.normal(size=(5, 3))
    hg.nodes["game"].data["x"] = rng.normal(size=(4, 3))
    hg.nodes["tag"].data["x"] = rng.normal(size=(2, 3))
    for c in hg.canonical_etypes:
        hg.edges[c].data["w"] = rng.normal(size=hg.num_edges(c))
    h = to_homogeneous(hg, ndata=["x"], edata=["w"])
    back = to_heterogeneous(h, hg.ntypes, hg.etypes)
    assert back.idtype == hg.idtype
    assert back.ntypes == hg.ntypes
    for t in hg.ntypes:
        assert back.num_nodes(t) == hg.num_nodes(t)
        np.testing.assert_array_equal(back.nodes[t].data["x"], hg.nodes[t].data["x"])
    # the empty edge type does not occur in the data, so DGL drops it
    occurring = [c for c in hg.canonical_etypes if hg.num_edges(c)]
    assert back.canonical_etypes == occurring
    for c in occurring:
        for a, b in zip(back.edges(etype=c), hg.edges(etype=c)):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(back.edges[c].data["w"], hg.edges[c].data["w"])


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_to_heterogeneous_matches_dgl(idtype, seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(0, 12)), int(rng.integers(0, 30))
    g = _rand_graph(rng, n, m if n else 0, idtype)
    nt = rng.integers(0, 3, n)
    et = rng.integers(0, 2, g.num_edges())
    g.ndata[NTYPE], g.edata[ETYPE] = nt, et
    g.ndata["h"] = rng.normal(size=(n, 2))
    g.edata["e"] = rng.normal(size=(g.num_edges(), 2))
    g.ndata[NID] = np.arange(n)[::-1].copy()
    ntypes, etypes = ["a", "b", "c"], ["r", "s"]
    counts, groups, rels = _dgl_to_heterogeneous(nt, et, *g.edges(), ntypes, etypes)
    hg = to_heterogeneous(g, ntypes, etypes)
    for i, t in enumerate(ntypes):
        assert hg.num_nodes(t) == counts[t]
        np.testing.assert_array_equal(hg.nodes[t].data[NID], groups[i])
        np.testing.assert_array_equal(hg.nodes[t].data["h"], g.ndata["h"][groups[i]])
        assert NTYPE not in hg.nodes[t].data or NTYPE == NID
    assert sorted(hg.canonical_etypes) == sorted(rels)
    for c, (s, d, e) in rels.items():
        np.testing.assert_array_equal(hg.edges(etype=c)[0], s)
        np.testing.assert_array_equal(hg.edges(etype=c)[1], d)
        np.testing.assert_array_equal(hg.edges[c].data[EID], e)
        np.testing.assert_array_equal(hg.edges[c].data["e"], g.edata["e"][e])
        assert hg.edges(etype=c)[0].dtype == idtype


def test_to_heterogeneous_metagraph_and_errors():
    nx = pytest.importorskip("networkx")
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    g.ndata[NTYPE] = np.array([0, 1, 1])
    g.edata[ETYPE] = np.array([0, 0, 0])
    mg = nx.MultiDiGraph()
    mg.add_edge("a", "b", key="r")
    hg = to_heterogeneous(g, ["a", "b"], ["r"], metagraph=mg)
    assert hg.canonical_etypes == [("a", "r", "b")]
    assert hg.num_edges() == 1  # edges of unlisted triples are dropped, as DGL
    with pytest.raises(ValueError, match="to_heterogeneous: G must be homogeneous"):
        to_heterogeneous(hg, ["a"], ["r"])
    with pytest.raises(ValueError, match="ntype_field.*outside"):
        to_heterogeneous(g, ["a"], ["r"])
    with pytest.raises(KeyError, match="etype_field 'zz'"):
        to_heterogeneous(g, ["a", "b"], ["r"], etype_field="zz")
    with pytest.raises(TypeError, match="to_heterogeneous: ntypes"):
        to_heterogeneous(g, "ab", ["r"])


# ---------------------------------------------------------------- merge
def test_merge_matches_dgl():
    g1 = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g1.ndata["x"] = np.array([1.0, 2.0, 3.0])
    g1.edata["w"] = np.array([10.0, 20.0])
    g2 = graph((np.array([4, 0]), np.array([0, 0])), num_nodes=6)
    g2.ndata["x"] = np.arange(6.0) + 100
    g2.ndata["y"] = np.ones((6, 2), dtype=np.float32)
    g2.edata["w"] = np.array([30.0, 40.0])
    g3 = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=2)
    g3.ndata["x"] = np.array([-1.0, -2.0])
    g3.edata["w"] = np.zeros(0)
    m = merge([g1, g2, g3])
    assert m.num_nodes() == 6
    np.testing.assert_array_equal(m.edges()[0], [0, 1, 4, 0])
    np.testing.assert_array_equal(m.edges()[1], [1, 2, 0, 0])
    np.testing.assert_array_equal(m.edata["w"], [10.0, 20.0, 30.0, 40.0])
    # rows written graph by graph: g3 overwrites rows 0-1, g2 rows 0-5
    np.testing.assert_array_equal(m.ndata["x"], [-1.0, -2.0, 102.0, 103.0, 104.0, 105.0])
    assert m.ndata["y"].dtype == np.float32
    assert g1.ndata["x"].tolist() == [1.0, 2.0, 3.0]  # inputs untouched


@pytest.mark.parametrize("idtype", IDTYPES)
def test_merge_heterogeneous(idtype):
    rng = np.random.default_rng(1)
    a, b = _hetero(rng, idtype), _hetero(rng, idtype)
    m = merge([a, b])
    assert m.canonical_etypes == a.canonical_etypes and m.idtype == a.idtype
    for c in a.canonical_etypes:
        for k in range(2):
            np.testing.assert_array_equal(
                m.edges(etype=c)[k], np.concatenate([a.edges(etype=c)[k], b.edges(etype=c)[k]])
            )


def test_merge_errors():
    g = graph((np.array([0]), np.array([1])))
    h = graph((np.array([0]), np.array([1])))
    g.edata["w"] = np.ones(1)
    with pytest.raises(ValueError, match="merge: graphs must not be empty"):
        merge([])
    with pytest.raises(KeyError, match="merge: graphs\\[1\\] lacks edge feature 'w'"):
        merge([g, h])
    with pytest.raises(TypeError, match="merge: graphs must be a list"):
        merge(g)
    hg = heterograph({("a", "r", "b"): (np.array([0]), np.array([0]))})
    with pytest.raises(ValueError, match="merge: graphs\\[1\\] lacks type"):
        merge([h, hg])


# ---------------------------------------------------------------- adjacency products / sums
def _dgl_csr(src, n_rows):
    """DGL's CSR from COO: rows by source, each row's edges in edge-id order."""
    order = np.argsort(src, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n_rows))])
    return indptr, order


def _dgl_csrmm(a_src, a_dst, wa, na, b_src, b_dst, wb, nb):
    ap, ae = _dgl_csr(a_src, na)
    bp, be = _dgl_csr(b_src, nb)
    out = {}
    for i in range(na):
        row = {}
        for u in ae[ap[i] : ap[i + 1]]:
            w = a_dst[u]
            for v in be[bp[w] : bp[w + 1]]:
                t = b_dst[v]
                row[t] = row.get(t, wa.dtype.type(0)) + wa[u] * wb[v]
        for t, val in row.items():
            out[(i, int(t))] = val
    return out


def _as_dict(g, name):
    s, d = g.edges()
    return {(int(a), int(b)): v for a, b, v in zip(s, d, g.edata[name])}


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(3))
def test_adj_product_graph_matches_dgl(idtype, dtype, seed):
    rng = np.random.default_rng(seed)
    A = heterograph(
        {
            ("u", "r", "v"): (
                rng.integers(0, 5, 12).astype(idtype),
                rng.integers(0, 4, 12).astype(idtype),
            )
        },
        {"u": 5, "v": 4},
    )
    B = heterograph(
        {
            ("v", "s", "w"): (
                rng.integers(0, 4, 9).astype(idtype),
                rng.integers(0, 6, 9).astype(idtype),
            )
        },
        {"v": 4, "w": 6},
    )
    A.edata["w"] = rng.normal(size=12).astype(dtype)
    B.edata["w"] = rng.normal(size=9).astype(dtype)
    C = adj_product_graph(A, B, "w", etype="rs")
    assert C.canonical_etypes == [("u", "rs", "w")]
    assert C.num_nodes("u") == 5 and C.num_nodes("w") == 6 and C.idtype == idtype
    want = _dgl_csrmm(*A.edges(), A.edata["w"], 5, *B.edges(), B.edata["w"], 4)
    got = _as_dict(C, "w")
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == want[k]  # same summation order: bit-identical
    assert C.edata["w"].dtype == dtype
    s, d = C.edges()
    assert np.all(np.diff(s) >= 0)  # rows in order, each (row, column) once
    assert len(set(zip(s.tolist(), d.tolist()))) == len(s)


def test_adj_product_graph_homogeneous_keeps_zero_sums_and_empty():
    A = graph((np.array([0, 0]), np.array([1, 2])), num_nodes=4)
    A.edata["w"] = np.array([1.0, -1.0])
    B = graph((np.array([1, 2]), np.array([3, 3])), num_nodes=4)
    B.edata["w"] = np.array([2.0, 2.0])
    C = adj_product_graph(A, B, "w")
    assert C.canonical_etypes == [("_N", "_E", "_N")]
    assert _as_dict(C, "w") == {(0, 3): 0.0}  # structural entry kept, as DGL
    E = graph((np.zeros(0, np.int32), np.zeros(0, np.int32)), num_nodes=4)
    E.edata["w"] = np.zeros(0)
    C = adj_product_graph(E, B, "w")
    assert C.num_edges() == 0 and C.num_nodes() == 4


def test_adj_product_graph_errors():
    A = graph((np.array([0]), np.array([1])), num_nodes=2)
    A.edata["w"] = np.ones(1)
    B = graph((np.array([0]), np.array([1])), num_nodes=3)
    B.edata["w"] = np.ones(1)
    with pytest.raises(ValueError, match="adj_product_graph: A has 2 destination"):
        adj_product_graph(A, B, "w")
    with pytest.raises(KeyError, match="adj_product_graph: A has no edge feature 'x'"):
        adj_product_graph(A, A, "x")
    A.edata["i"] = np.ones(1, dtype=np.int64)
    with pytest.raises(TypeError, match="1-D float"):
        adj_product_graph(A, A, "i")


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("seed", range(3))
def test_adj_sum_graph_matches_dgl(idtype, seed):
    rng = np.random.default_rng(seed)
    graphs = []
    for m in (10, 0, 7):
        g = heterograph(
            {
                ("u", "r", "v"): (
                    rng.integers(0, 4, m).astype(idtype),
                    rng.integers(0, 3, m).astype(idtype),
                )
            },
            {"u": 4, "v": 3},
        )
        g.edata["w"] = rng.normal(size=m).astype(np.float32)
        graphs.append(g)
    want = {}
    for g in graphs:  # DGL csr_sum: per row, graph by graph, CSR order
        ip, order = _dgl_csr(g.edges()[0], 4)
        for e in order:
            k = (int(g.edges()[0][e]), int(g.edges()[1][e]))
            want[k] = want.get(k, np.float32(0)) + g.edata["w"][e]
    S = adj_sum_graph(graphs, "w")
    assert S.canonical_etypes == [("u", "r", "v")] and S.idtype == idtype
    got = _as_dict(S, "w")
    assert got.keys() == want.keys()
    assert all(got[k] == want[k] for k in want)


def test_adj_sum_graph_errors():
    g = graph((np.array([0]), np.array([1])), num_nodes=2)
    g.edata["w"] = np.ones(1)
    h = graph((np.array([0]), np.array([1])), num_nodes=3)
    h.edata["w"] = np.ones(1)
    with pytest.raises(ValueError, match="adj_sum_graph: graphs must not be empty"):
        adj_sum_graph([], "w")
    with pytest.raises(ValueError, match="adj_sum_graph: graphs\\[1\\] has other node"):
        adj_sum_graph([g, h], "w")


# ---------------------------------------------------------------- sort by tag
def _dgl_sort_by_tag(rows, other, n_rows, tag, tag_type):
    """DGL csr_sort.cc CSRSortByTag over a CSR (rows, edge-id order within a row)."""
    etag = tag[other] if tag_type == "node" else tag
    num_tags = int(etag.max()) + 1  # DGL: tag = tag[dst] (csr) first, then the max
    indptr, eids = _dgl_csr(rows, n_rows)
    pos = np.zeros((n_rows, num_tags + 1), dtype=np.int64)
    out = np.empty_like(eids)
    for r in range(n_rows):
        row = eids[indptr[r] : indptr[r + 1]]
        for e in row:
            pos[r, etag[e] + 1] += 1
        pos[r] = np.cumsum(pos[r])
        ptr = np.zeros(num_tags, dtype=np.int64)
        for e in row:
            t = etag[e]
            out[indptr[r] + pos[r, t] + ptr[t]] = e
            ptr[t] += 1
    return out, pos


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("tag_type", ["node", "edge"])
@pytest.mark.parametrize("seed", range(3))
def test_sort_by_tag_matches_dgl(idtype, tag_type, seed):
    rng = np.random.default_rng(seed)
    g = heterograph(
        {
            ("u", "r", "v"): (
                rng.integers(0, 5, 20).astype(idtype),
                rng.integers(0, 6, 20).astype(idtype),
            )
        },
        {"u": 5, "v": 6},
    )
    g.edata["f"] = rng.normal(size=(20, 2))
    s, d = g.edges()
    for fn, rows, other, n_rows, n_other, side in (
        (sort_csr_by_tag, s, d, 5, 6, "u"),
        (sort_csc_by_tag, d, s, 6, 5, "v"),
    ):
        tag = rng.integers(0, 3, n_other if tag_type == "node" else 20)
        want_e, want_pos = _dgl_sort_by_tag(rows, other, n_rows, tag, tag_type)
        out = fn(g, tag, tag_type=tag_type)
        np.testing.assert_array_equal(out.edata[EID], want_e)
        np.testing.assert_array_equal(out.nodes[side].data["_TAG_OFFSET"], want_pos)
        assert out.nodes[side].data["_TAG_OFFSET"].dtype == idtype
        np.testing.assert_array_equal(out.edges()[0], s[want_e])
        np.testing.assert_array_equal(out.edata["f"], g.edata["f"][want_e])


def test_sort_by_tag_errors_and_empty():
    g = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=3)
    out = sort_csr_by_tag(g, np.array([0, 2, 1]))
    assert out.ndata["_TAG_OFFSET"].shape == (3, 1) and not out.ndata["_TAG_OFFSET"].any()
    with pytest.raises(ValueError, match="sort_csr_by_tag: tag has 2 entries"):
        sort_csr_by_tag(g, np.array([0, 1]))
    with pytest.raises(ValueError, match="sort_csc_by_tag: tag_type"):
        sort_csc_by_tag(g, np.array([0, 1, 2]), tag_type="x")
    with pytest.raises(TypeError, match="sort_csr_by_tag: tag must be a 1-D integer"):
        sort_csr_by_tag(g, np.zeros(3))
    with pytest.raises(ValueError, match="sort_csr_by_tag: g must have one edge type"):
        sort_csr_by_tag(_hetero(np.random.default_rng(0), np.int64), np.zeros(5, np.int64))


# ---------------------------------------------------------------- reorder_graph
def _dgl_reorder(src, dst, n, nodes_perm, edge_algo, edges_perm=None):
    inv = np.empty(n, dtype=np.int64)
    inv[np.arange(n) if nodes_perm is None else nodes_perm] = np.arange(n)
    s, d = inv[src], inv[dst]
    # DGL's node_subgraph (any node permutation) groups the edges by new source (stable);
    # without one DGL clones g (edge-id order); then a stable sort stands for np.argsort
    base = np.arange(len(s)) if nodes_perm is None else np.argsort(s, kind="stable")
    if edge_algo == "src":
        ep = base[np.argsort(s[base], kind="stable")]
    elif edge_algo == "dst":
        ep = base[np.argsort(d[base], kind="stable")]
    else:
        ep = np.asarray(edges_perm)
    return s[ep], d[ep], ep


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("node_algo", [None, "rcmk", "custom"])
@pytest.mark.parametrize("edge_algo", ["src", "dst", "custom"])
def test_reorder_graph_matches_dgl(idtype, node_algo, edge_algo):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    rng = np.random.default_rng(3)
    n, m = 9, 25
    g = _rand_graph(rng, n, m, idtype)
    g.ndata["x"] = rng.normal(size=n)
    g.edata["w"] = rng.normal(size=m)
    s, d = (a.astype(np.int64) for a in g.edges())
    if node_algo == "rcmk":
        adj = csr_matrix((np.ones(m), (s, d)), shape=(n, n))
        nodes_perm = reverse_cuthill_mckee(adj)
    elif node_algo == "custom":
        nodes_perm = rng.permutation(n)
    else:
        nodes_perm = np.arange(n)
    edges_perm = rng.permutation(m)
    config = {"nodes_perm": nodes_perm, "edges_perm": edges_perm}
    given = None if node_algo is None else nodes_perm
    ws, wd, ep = _dgl_reorder(s, d, n, given, edge_algo, edges_perm)
    r = reorder_graph(g, node_algo, edge_algo, permute_config=config)
    np.testing.assert_array_equal(r.edges()[0], ws)
    np.testing.assert_array_equal(r.edges()[1], wd)
    np.testing.assert_array_equal(r.ndata[NID], nodes_perm)
    np.testing.assert_array_equal(r.edata[EID], ep)
    np.testing.assert_array_equal(r.ndata["x"], g.ndata["x"][nodes_perm])
    np.testing.assert_array_equal(r.edata["w"], g.edata["w"][ep])
    assert r.idtype == idtype
    r2 = reorder_graph(g, node_algo, edge_algo, store_ids=False, permute_config=config)
    assert NID not in r2.ndata and EID not in r2.edata


def test_reorder_graph_errors_and_empty():
    g = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=0)
    assert reorder_graph(g, "rcmk").num_nodes() == 0
    g = graph((np.array([0, 1]), np.array([1, 2])))
    with pytest.raises(ValueError, match="reorder_graph: node_permute_algo='metis' needs METIS"):
        reorder_graph(g, "metis", permute_config={"k": 2})
    with pytest.raises(ValueError, match="reorder_graph: node_permute_algo must be"):
        reorder_graph(g, "bfs")
    with pytest.raises(ValueError, match="reorder_graph: edge_permute_algo must be"):
        reorder_graph(g, None, "eid")
    with pytest.raises(ValueError, match="needs permute_config\\['nodes_perm'\\]"):
        reorder_graph(g, "custom")
    with pytest.raises(ValueError, match="permute_config\\['nodes_perm'\\] has 2 entries"):
        reorder_graph(g, "custom", permute_config={"nodes_perm": [0, 1]})
    with pytest.raises(ValueError, match="is not a permutation"):
        reorder_graph(g, "custom", permute_config={"nodes_perm": [0, 0, 1]})
    with pytest.raises(ValueError, match="reorder_graph: only homogeneous"):
        reorder_graph(_hetero(np.random.default_rng(0), np.int64))


# ---------------------------------------------------------------- precision
@pytest.mark.parametrize(
    ("fn", "dtype"), [(to_half, np.float16), (to_float, np.float32), (to_double, np.float64)]
)
def test_precision_casts_only_floats(fn, dtype):
    hg = _hetero(np.random.default_rng(0), np.int32)
    hg.nodes["user"].data["x"] = np.ones((5, 2), dtype=np.float32)
    hg.nodes["user"].data["label"] = np.arange(5)
    hg.nodes["game"].data["mask"] = np.ones(4, dtype=bool)
    hg.edges["plays"].data["w"] = np.ones(7, dtype=np.float64)
    out = fn(hg)
    assert out.nodes["user"].data["x"].dtype == dtype
    assert out.edges["plays"].data["w"].dtype == dtype
    assert out.nodes["user"].data["label"].dtype == np.int64
    assert out.nodes["game"].data["mask"].dtype == bool
    assert hg.nodes["user"].data["x"].dtype == np.float32  # input untouched
    assert out.canonical_etypes == hg.canonical_etypes and out.idtype == np.int32
    with pytest.raises(TypeError, match=fn.__name__):
        fn("not a graph")


# ---------------------------------------------------------------- random generators
@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize(("n", "m"), [(0, 0), (1, 1), (6, 36), (50, 200)])
def test_rand_graph_guarantees(idtype, n, m):
    g = rand_graph(n, m, idtype=idtype, seed=1)
    s, d = g.edges()
    assert g.num_nodes() == n and g.num_edges() == m and s.dtype == idtype
    assert len(set(zip(s.tolist(), d.tolist()))) == m
    assert (s.size == 0) or (s.min() >= 0 and s.max() < n and d.max() < n)
    again = rand_graph(n, m, idtype=idtype, seed=1)
    np.testing.assert_array_equal(again.edges()[0], s)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_rand_bipartite_guarantees_and_errors(idtype):
    g = rand_bipartite("u", "r", "v", 3, 7, 21, idtype=idtype, seed=2)
    s, d = g.edges()
    assert g.canonical_etypes == [("u", "r", "v")] and s.dtype == idtype
    assert len(set(zip(s.tolist(), d.tolist()))) == 21  # the full grid
    assert s.max() < 3 and d.max() < 7
    assert rand_bipartite("u", "r", "v", 0, 4, 0).num_edges() == 0
    with pytest.raises(ValueError, match="rand_bipartite: num_edges=22 is more"):
        rand_bipartite("u", "r", "v", 3, 7, 22)
    with pytest.raises(ValueError, match="rand_graph: num_nodes must be >= 0"):
        rand_graph(-1, 0)
    with pytest.raises(TypeError, match="rand_graph: idtype"):
        rand_graph(3, 2, idtype=np.float32)
    with pytest.raises(TypeError, match="rand_bipartite: utype"):
        rand_bipartite(1, "r", "v", 3, 3, 1)


def test_modules_have_doctests():
    for name in (
        "to_heterogeneous",
        "merge",
        "adj_graphs",
        "sort_by_tag",
        "reorder",
        "precision",
        "generators",
        "svd_pe",
        "drnl",
        "radius_graph",
        "etype_neighbors",
        "pinsage",
    ):
        mod = importlib.import_module(f"arraygnn.graph.{name}")
        assert ">>>" in mod.__doc__
        assert isinstance(mod.__all__, list)
    assert isinstance(rand_graph(2, 1, seed=0), Graph)


# ---------------------------------------------------------------- svd_pe
def _dgl_svd_pe(src, dst, n, k):
    """DGL transforms/functional.py svd_pe without the random flip."""
    import scipy.linalg
    from scipy import sparse

    a = sparse.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).toarray()
    u, d, vh = scipy.linalg.svd(a)
    m = min(n, k)
    sq = sparse.diags(np.sqrt(d[0:m]))
    enc = np.concatenate(((u[:, 0:m] @ sq), (vh.transpose()[:, 0:m] @ sq)), axis=1)
    enc = enc.astype(np.float32)
    if n < k:
        enc = np.concatenate([enc, np.zeros((n, 2 * (k - n)), np.float32)], axis=1)
    return enc


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize(("n", "k"), [(6, 3), (4, 4), (3, 5), (1, 1)])
def test_svd_pe_matches_dgl(idtype, n, k):
    rng = np.random.default_rng(n + k)
    g = _rand_graph(rng, n, 2 * n, idtype)  # multi-edges and self-loops included
    want = _dgl_svd_pe(*g.edges(), n, k)
    got = svd_pe(g, k, padding=True, random_flip=False)
    assert got.dtype == np.float32 and got.shape == (n, 2 * k)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    flipped = svd_pe(g, k, padding=True, seed=0)
    signs = np.where(np.abs(flipped).sum(1) > 0, np.sign((flipped * want).sum(1)), 1)
    np.testing.assert_allclose(flipped, signs[:, None] * want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(flipped, svd_pe(g, k, padding=True, seed=0))


def test_svd_pe_errors_and_empty():
    g = graph((np.array([0]), np.array([1])))
    with pytest.raises(ValueError, match="svd_pe: k must be no greater"):
        svd_pe(g, 3)
    with pytest.raises(ValueError, match="svd_pe: k must be >= 1"):
        svd_pe(g, 0)
    with pytest.raises(TypeError, match="svd_pe: padding"):
        svd_pe(g, 1, padding=1)
    with pytest.raises(ValueError, match="svd_pe: the graph must be homogeneous"):
        svd_pe(_hetero(np.random.default_rng(0), np.int64), 1)
    empty = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=0)
    assert svd_pe(empty, 2, padding=True).shape == (0, 4)


# ---------------------------------------------------------------- double radius node labeling
def _dgl_drnl(src_ids, dst_ids, n, src, dst):
    """DGL transforms/functional.py double_radius_node_labeling, in NumPy / SciPy."""
    from scipy import sparse
    from scipy.sparse import csgraph

    adj = sparse.csr_matrix((np.ones(len(src_ids)), (src_ids, dst_ids)), shape=(n, n))
    src, dst = (dst, src) if src > dst else (src, dst)
    idx = list(range(src)) + list(range(src + 1, adj.shape[0]))
    adj_wo_src = adj[idx, :][:, idx]
    idx = list(range(dst)) + list(range(dst + 1, adj.shape[0]))
    adj_wo_dst = adj[idx, :][:, idx]
    ds = csgraph.shortest_path(adj_wo_dst, directed=False, unweighted=True, indices=src)
    ds = np.insert(ds, dst, 0, axis=0)
    dt = csgraph.shortest_path(adj_wo_src, directed=False, unweighted=True, indices=dst - 1)
    dt = np.insert(dt, src, 0, axis=0)
    d = ds + dt
    with np.errstate(invalid="ignore"):
        z = 1 + np.stack([ds, dt]).min(axis=0) + d // 2 * (d // 2 + d % 2 - 1)
    z[src] = 1
    z[dst] = 1
    z[np.isnan(z)] = 0
    return z.astype(np.int64)


def test_drnl_dgl_example():
    g = graph((np.array([0, 0, 0, 0, 1, 1, 2, 4]), np.array([1, 2, 3, 6, 3, 4, 4, 5])))
    assert double_radius_node_labeling(g, 0, 1).tolist() == [1, 1, 3, 2, 3, 7, 0]


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("seed", range(5))
def test_drnl_matches_dgl(idtype, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 15))
    g = _rand_graph(rng, n, int(rng.integers(0, 2 * n)), idtype)
    u, v = (int(a) for a in rng.choice(n, 2, replace=False))
    got = double_radius_node_labeling(g, u, v)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _dgl_drnl(*g.edges(), n, u, v))
    np.testing.assert_array_equal(got, double_radius_node_labeling(g, v, u))


def test_drnl_errors():
    g = graph((np.array([0]), np.array([1])))
    with pytest.raises(ValueError, match="double_radius_node_labeling: dst=2 is outside"):
        double_radius_node_labeling(g, 0, 2)
    with pytest.raises(ValueError, match="double_radius_node_labeling: src and dst must differ"):
        double_radius_node_labeling(g, 1, 1)
    with pytest.raises(TypeError, match="double_radius_node_labeling: src"):
        double_radius_node_labeling(g, 0.5, 1)


# ---------------------------------------------------------------- radius graph
@pytest.mark.parametrize("p", [1, 2, 3.5])
@pytest.mark.parametrize("self_loop", [False, True])
def test_radius_graph_matches_dgl(p, self_loop):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    x = rng.normal(size=(40, 3))
    x[5] = x[9]  # coincident points
    r = 1.1
    dist = torch.cdist(
        torch.from_numpy(x), torch.from_numpy(x), p=p, compute_mode="donot_use_mm_for_euclid_dist"
    )
    if not self_loop:
        dist.fill_diagonal_(r + 1)
    s, d = torch.nonzero(dist <= r, as_tuple=True)
    g, got = radius_graph(x, r, p=p, self_loop=self_loop, get_distances=True)
    np.testing.assert_array_equal(g.edges()[0], s.numpy())
    np.testing.assert_array_equal(g.edges()[1], d.numpy())
    np.testing.assert_allclose(got[:, 0], dist[s, d].numpy(), rtol=1e-12, atol=1e-12)
    assert g.num_nodes() == 40 and got.shape == (len(s), 1) and got.dtype == np.float64
    _, d32 = radius_graph(x.astype(np.float32), r, p=p, self_loop=self_loop, get_distances=True)
    assert d32.dtype == np.float32


def test_radius_graph_errors():
    x = np.zeros((3, 2))
    with pytest.raises(ValueError, match="radius_graph: r must be > 0"):
        radius_graph(x, 0.0)
    with pytest.raises(ValueError, match="radius_graph: x is an empty point set"):
        radius_graph(np.zeros((0, 2)), 1.0)
    with pytest.raises(ValueError, match="radius_graph: p must be >= 1"):
        radius_graph(x, 1.0, p=0.5)
    with pytest.raises(ValueError, match="radius_graph: compute_mode"):
        radius_graph(x, 1.0, compute_mode="fast")
    g = radius_graph(x, 1.0)  # three coincident points: every ordered pair
    assert g.num_edges() == 6


# ---------------------------------------------------------------- sample_etype_neighbors
def _typed_graph(idtype, seed=0):
    rng = np.random.default_rng(seed)
    hg = heterograph(
        {
            ("n", "a", "n"): (
                rng.integers(0, 8, 30).astype(idtype),
                rng.integers(0, 8, 30).astype(idtype),
            ),
            ("n", "b", "n"): (
                rng.integers(0, 8, 20).astype(idtype),
                rng.integers(0, 8, 20).astype(idtype),
            ),
            ("n", "c", "n"): (np.zeros(0, idtype), np.zeros(0, idtype)),
        },
        {"n": 8},
    )
    g, _, ecounts = to_homogeneous(hg, return_count=True)
    return g, [0, *np.cumsum(ecounts).tolist()]


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("edge_dir", ["in", "out"])
@pytest.mark.parametrize("replace", [False, True])
def test_sample_etype_neighbors_guarantees(idtype, edge_dir, replace):
    g, offsets = _typed_graph(idtype)
    g.edata["f"] = np.arange(g.num_edges(), dtype=np.float64)
    fanout = [2, -1, 3]
    seeds = np.array([0, 3, 5, 7])
    fr = sample_etype_neighbors(
        g, seeds, offsets, fanout, edge_dir=edge_dir, replace=replace, seed=4
    )
    eid = fr.edata[EID]
    assert fr.num_nodes() == g.num_nodes() and eid.dtype == idtype
    np.testing.assert_array_equal(fr.edata["f"], g.edata["f"][eid])
    src, dst = g.edges()
    side = dst if edge_dir == "in" else src
    etype = np.searchsorted(offsets, eid, side="right") - 1
    for s in seeds:
        for t, f in enumerate(fanout):
            pool = np.nonzero(
                (side == s)
                & (np.searchsorted(offsets, np.arange(len(side)), side="right") - 1 == t)
            )[0]
            got = eid[(side[eid] == s) & (etype == t)]
            assert set(got.tolist()) <= set(pool.tolist())
            if f == -1:
                assert sorted(got.tolist()) == pool.tolist()
            elif replace:
                assert len(got) == (f if len(pool) else 0)
            else:
                assert len(got) == min(f, len(pool)) and len(set(got.tolist())) == len(got)
    assert np.all(np.isin(side[eid], seeds))
    again = sample_etype_neighbors(
        g, seeds, offsets, fanout, edge_dir=edge_dir, replace=replace, seed=4
    )
    np.testing.assert_array_equal(again.edata[EID], eid)


def test_sample_etype_neighbors_prob_and_empty():
    g, offsets = _typed_graph(np.int64, seed=1)
    w = np.ones(g.num_edges())
    w[::2] = 0.0
    g.edata["p"] = w
    fr = sample_etype_neighbors(g, np.arange(8), offsets, [1, 1, 1], prob="p", seed=0)
    assert np.all(w[fr.edata[EID]] > 0)
    empty = sample_etype_neighbors(g, np.zeros(0, np.int64), offsets, [2, 2, 2])
    assert empty.num_edges() == 0 and empty.num_nodes() == 8


def test_sample_etype_neighbors_errors():
    g, offsets = _typed_graph(np.int64)
    with pytest.raises(ValueError, match="sample_etype_neighbors: fanout has 2 entries"):
        sample_etype_neighbors(g, [0], offsets, [1, 1])
    with pytest.raises(ValueError, match="sample_etype_neighbors: etype_offset must run"):
        sample_etype_neighbors(g, [0], [0, 3], [1])
    with pytest.raises(ValueError, match="sample_etype_neighbors: exclude_edges"):
        sample_etype_neighbors(g, [0], offsets, [1, 1, 1], exclude_edges=[0])
    with pytest.raises(ValueError, match="sample_etype_neighbors: edge_dir"):
        sample_etype_neighbors(g, [0], offsets, [1, 1, 1], edge_dir="both")
    with pytest.raises(ValueError, match="sample_etype_neighbors: g must be homogeneous"):
        sample_etype_neighbors(_hetero(np.random.default_rng(0), np.int64), [0], [0, 7], [1])
    with pytest.raises(ValueError, match="sample_etype_neighbors.*outside"):
        sample_etype_neighbors(g, [99], offsets, [1, 1, 1])


# ---------------------------------------------------------------- PinSAGE
def _dgl_select_pinsage(src, dst, m, k):
    """DGL randomwalk_cpu.cc SelectPinSageNeighbors."""
    src = np.array(src)
    out_s, out_d, out_c = [], [], []
    for i in range(len(src) // m):
        chunk = np.sort(src[i * m : (i + 1) * m])
        vals, counts = np.unique(chunk, return_counts=True)
        pairs = sorted(((int(c), int(v)) for v, c in zip(vals, counts) if v != -1), reverse=True)
        for c, v in pairs[:k]:
            out_s.append(v)
            out_d.append(int(dst[i * m]))
            out_c.append(c)
    return out_s, out_d, out_c


def _bipartite(idtype, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 6, 25).astype(idtype)
    v = rng.integers(0, 9, 25).astype(idtype)
    return heterograph(
        {("item", "by", "user"): (u, v), ("user", "buys", "item"): (v, u)},
        {"item": 6, "user": 9},
    )


def test_select_pinsage_neighbors_matches_dgl():
    rng = np.random.default_rng(0)
    m, k = 7, 3
    src = rng.integers(-1, 5, 5 * m)
    dst = np.repeat(rng.integers(0, 9, 5), m)
    got = select_pinsage_neighbors(src, dst, m, k)
    want = _dgl_select_pinsage(src, dst, m, k)
    for a, b in zip(got, want):
        assert a.tolist() == b


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("num_traversals", [1, 3])
def test_pinsage_matches_dgl_pipeline(idtype, num_traversals):
    from arraygnn.random_walks import random_walk

    g = _bipartite(idtype)
    seeds = np.array([0, 2, 5, 2])
    walks, k = 8, 4
    s = PinSAGESampler(g, "item", "user", num_traversals, 0.3, walks, k, seed=11)
    ng = s(seeds)
    assert ng.canonical_etypes == [("item", "_E", "item")] and ng.num_nodes() == 6
    assert ng.idtype == idtype and ng.edata["weights"].dtype == idtype
    # DGL's __call__ over the same walks
    path = [("item", "by", "user"), ("user", "buys", "item")] * num_traversals
    restart = np.zeros(2 * num_traversals)
    restart[2::2] = 0.3
    paths, _ = random_walk(
        g,
        np.repeat(seeds, walks),
        metapath=path,
        restart_prob=restart,
        seed=np.random.default_rng(11),
    )
    src = paths[:, 2::2].reshape(-1)
    dst = np.repeat(paths[:, 0], num_traversals)
    ws, wd, wc = _dgl_select_pinsage(src, dst, walks * num_traversals, k)
    assert ng.edges()[0].tolist() == ws and ng.edges()[1].tolist() == wd
    assert ng.edata["weights"].tolist() == wc
    # guarantees: neighbours reachable by 2 * num_traversals hops, counts within the walks
    item_user = np.zeros((6, 9), bool)
    item_user[g.edges(etype="by")[0], g.edges(etype="by")[1]] = True
    step = (item_user.astype(int) @ item_user.T.astype(int)) > 0
    reach = np.linalg.matrix_power(step.astype(int), num_traversals) > 0
    if num_traversals == 3:
        reach |= step | (np.linalg.matrix_power(step.astype(int), 2) > 0)
    for u, v in zip(*ng.edges()):
        assert reach[v, u]
    for sd in set(seeds.tolist()):
        total = ng.edata["weights"][ng.edges()[1] == sd].sum()
        assert total <= walks * num_traversals * (seeds == sd).sum()


def test_pinsage_errors():
    g = _bipartite(np.int64)
    with pytest.raises(ValueError, match="PinSAGESampler: G needs edge types 'item' -> 'shop'"):
        PinSAGESampler(g, "item", "shop", 1, 0.5, 2, 2)
    with pytest.raises(ValueError, match="PinSAGESampler: termination_prob"):
        PinSAGESampler(g, "item", "user", 1, 1.5, 2, 2)
    with pytest.raises(ValueError, match="PinSAGESampler: num_traversals must be >= 1"):
        PinSAGESampler(g, "item", "user", 0, 0.5, 2, 2)
    with pytest.raises(ValueError, match="RandomWalkNeighborSampler: metapath must be given"):
        RandomWalkNeighborSampler(g, 1, 0.5, 2, 2)
    with pytest.raises(ValueError, match="RandomWalkNeighborSampler: the metapath must start"):
        RandomWalkNeighborSampler(g, 1, 0.5, 2, 2, metapath=["by"])
    hom = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    ng = RandomWalkNeighborSampler(hom, 2, 0.0, 3, 5, seed=0)(np.array([0]))
    # the walk 0 -> 1 -> 2 visits 1 and 2 three times each: ties go to the larger id
    assert ng.edges()[0].tolist() == [2, 1] and ng.edata["weights"].tolist() == [3, 3]


class _ArrayModule:
    """NumPy under another name: drives the array-API (CuPy) path of adj_graphs on the CPU."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("seed", range(3))
def test_adj_graphs_vectorised_path_matches_kernel(seed):
    from arraygnn.graph.adj_graphs import _csr, _spgemm

    rng = np.random.default_rng(seed)
    n, m = 7, 30
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.normal(size=m).astype(np.float32)
    a = _csr(np, src, dst, w, n)
    got = {}
    for xp in (np, _ArrayModule()):
        r, c, v = _spgemm(xp, a, a, n, np.dtype(np.int64))
        got[xp is np] = {(int(i), int(j)): x for i, j, x in zip(r, c, v)}
    assert got[True].keys() == got[False].keys()
    assert all(got[True][k] == got[False][k] for k in got[True])
    want = _dgl_csrmm(src, dst, w, n, src, dst, w, n)
    assert got[False].keys() == want.keys()
