"""Parity sweep (s14) of DGL's graph functions on arraygnn's DGL face, over options the
other tests leave out. DGL is not installed: the NumPy references below transcribe
python/dgl/transforms/functional.py (line_graph, adj_product_graph, adj_sum_graph,
random_walk_pe, laplacian_lambda_max, double_radius_node_labeling, to_half / to_float /
to_double), src/array/cpu/coo_linegraph.cc, python/dgl/frame.py (``_astype_float``),
python/dgl/homophily.py, python/dgl/transforms/module.py (NodeShuffle, RandomWalkPE),
python/dgl/convert.py + python/dgl/utils/data.py (``from_scipy``, ``scipy2tensor``) and
python/dgl/base.py (NID / EID / NTYPE / ETYPE), dmlc/dgl at 3d16000b. Homophily is also
compared live with PyG's ``torch_geometric.utils.homophily`` where the definitions match.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.graph import (
    EID,
    ETYPE,
    NID,
    NTYPE,
    NodeShuffle,
    RandomWalkPE,
    adj_product_graph,
    adj_sum_graph,
    batch,
    bipartite_from_scipy,
    double_radius_node_labeling,
    edge_homophily,
    from_scipy,
    graph,
    heterograph,
    laplacian_lambda_max,
    line_graph,
    linkx_homophily,
    node_homophily,
    random_walk_pe,
    to_double,
    to_float,
    to_half,
)


def _rand(seed, n, e, loops=True):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    if not loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    return src.astype(np.int64), dst.astype(np.int64)


# ------------------------------------------------------------------------ line_graph
def _ref_line_graph(src, dst, backtracking):
    """coo_linegraph.cc: for i, for j (edge order): i != j, dst[i] == src[j]
    (and src[i] != dst[j] unless backtracking)."""
    rows, cols = [], []
    for i in range(len(src)):
        for j in range(len(src)):
            if i != j and dst[i] == src[j] and (backtracking or src[i] != dst[j]):
                rows.append(i)
                cols.append(j)
    return np.array(rows, np.int64), np.array(cols, np.int64)


@pytest.mark.parametrize("backtracking", [True, False])
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_line_graph_typed_multigraph_shared(backtracking, idtype):
    # a multigraph with self-loops and typed names; DGL builds the line graph with
    # DGLGraph(gidx): node type '_N', edge type '_E' whatever g's types are
    src = np.array([0, 0, 1, 1, 2, 2, 2, 3], idtype)
    dst = np.array([1, 1, 0, 2, 2, 0, 3, 3], idtype)
    g = heterograph({("user", "follows", "user"): (src, dst)}, {"user": 5}, idtype=idtype)
    g.edata["w"] = np.arange(8, dtype=np.float32)
    g.edata["lab"] = np.arange(16, dtype=np.int64).reshape(8, 2)
    g.ndata["x"] = np.ones(5)
    lg = line_graph(g, backtracking=backtracking, shared=True)
    r, c = _ref_line_graph(src, dst, backtracking)
    assert lg.idtype == idtype and lg.num_nodes() == 8
    np.testing.assert_array_equal(lg.edges()[0], r)
    np.testing.assert_array_equal(lg.edges()[1], c)
    assert lg.ntypes == ["_N"] and lg.canonical_etypes == [("_N", "_E", "_N")]
    assert set(lg.ndata) == {"w", "lab"} and len(lg.edata) == 0  # no EID / NID stored
    assert lg.ndata["w"] is g.edata["w"] and lg.ndata["lab"] is g.edata["lab"]
    # the method form, unshared: no node features
    assert len(g.line_graph(backtracking=backtracking).ndata) == 0


def test_line_graph_of_batch_drops_batch_info():
    g1, g2 = graph(([0, 1], [1, 0]), num_nodes=2), graph(([0], [1]), num_nodes=3)
    lg = line_graph(batch([g1, g2]))
    assert lg.batch_size == 1 and lg.num_nodes() == 3  # DGL: "discards the batch information"
    np.testing.assert_array_equal(np.stack(lg.edges()), [[0, 1], [1, 0]])


# ------------------------------------------------------------------- adj products / sums
def _dense(g, w, shape):
    m = np.zeros(shape)
    s, d = (np.asarray(a) for a in g.edges())
    np.add.at(m, (s, d), w)
    s_mask = np.zeros(shape, bool)
    s_mask[s, d] = True
    return m, s_mask


def _entries(g, wname):
    s, d = (np.asarray(a, np.int64) for a in g.edges())
    w = np.asarray(g.edata[wname])
    order = np.lexsort((d, s))
    return s[order], d[order], w[order]


@pytest.mark.parametrize(
    ("types", "ntypes"),
    [
        ((("A", "AB", "B"), ("B", "BC", "C")), ["A", "C"]),
        ((("A", "AB", "B"), ("B", "BA", "A")), ["A"]),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_adj_product_graph_bipartite_shapes(types, ntypes, seed):
    rng = np.random.default_rng(seed)
    counts = {"A": 4, "B": 5, "C": 3 if "C" in ntypes else 4}
    ta, tb = types
    ea, eb = 9, 8
    sa, da = rng.integers(0, counts[ta[0]], ea), rng.integers(0, counts[ta[2]], ea)
    sb, db = rng.integers(0, counts[tb[0]], eb), rng.integers(0, counts[tb[2]], eb)
    A = heterograph({ta: (sa, da)}, {t: counts[t] for t in (ta[0], ta[2])})
    B = heterograph({tb: (sb, db)}, {t: counts[t] for t in (tb[0], tb[2])})
    A.edata["w"] = rng.standard_normal(ea)
    B.edata["w"] = rng.standard_normal(eb)
    A.ndata["x"] = {ta[0]: np.ones(counts[ta[0]])} if len(A.ntypes) > 1 else np.ones(4)
    C = adj_product_graph(A, B, "w", etype="walk")
    assert C.ntypes == ntypes and C.canonical_etypes == [(ta[0], "walk", tb[2])]
    assert C.num_nodes(ta[0]) == counts[ta[0]] and C.num_nodes(tb[2]) == counts[tb[2]]
    wa, ma = _dense(A, A.edata["w"], (counts[ta[0]], counts[ta[2]]))
    wb, mb = _dense(B, B.edata["w"], (counts[tb[0]], counts[tb[2]]))
    want = wa @ wb
    struct = (ma.astype(int) @ mb.astype(int)) > 0  # every path, even if weights cancel
    s, d, w = _entries(C, "w")
    rs, rd = np.nonzero(struct)
    np.testing.assert_array_equal(s, rs)
    np.testing.assert_array_equal(d, rd)
    np.testing.assert_allclose(w, want[rs, rd], rtol=1e-12, atol=1e-12)
    assert set(C.edata) == {"w"} and all(len(C.nodes[t].data) == 0 for t in C.ntypes)


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adj_sum_graph_bipartite_several(k, dtype):
    rng = np.random.default_rng(k)
    graphs, total, struct = [], np.zeros((3, 4)), np.zeros((3, 4), bool)
    for i in range(k):
        s, d = rng.integers(0, 3, 6), rng.integers(0, 4, 6)  # duplicates likely
        g = heterograph({("A", f"AB{i}", "B"): (s, d)}, {"A": 3, "B": 4})
        g.edata["w"] = rng.standard_normal(6).astype(dtype)
        g.edata["other"] = np.ones(6)
        m, mask = _dense(g, g.edata["w"].astype(np.float64), (3, 4))
        total, struct = total + m, struct | mask
        graphs.append(g)
    S = adj_sum_graph(graphs, "w")
    # DGL: DGLGraph(C_gidx, graphs[0].ntypes, graphs[0].etypes)
    assert S.canonical_etypes == [("A", "AB0", "B")]
    assert set(S.edata) == {"w"} and S.edata["w"].dtype == dtype
    s, d, w = _entries(S, "w")
    rs, rd = np.nonzero(struct)
    np.testing.assert_array_equal(s, rs)
    np.testing.assert_array_equal(d, rd)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(w, total[rs, rd], rtol=tol, atol=tol)


def test_adj_graphs_without_weights_raise():
    g = graph(([0, 1], [1, 2]), num_nodes=3)
    with pytest.raises(KeyError, match="'w'"):
        adj_sum_graph([g], "w")
    with pytest.raises(KeyError, match="'w'"):
        adj_product_graph(g, g, "w")


# --------------------------------------------------------------------- precision casts
@pytest.mark.parametrize(
    ("fn", "target"), [(to_half, np.float16), (to_float, np.float32), (to_double, np.float64)]
)
def test_precision_casts_every_feature_kind(fn, target):
    # frame.py _astype_float: float16 / float32 / float64 columns are cast, others kept
    g = heterograph(
        {("u", "r", "v"): ([0, 1], [1, 0]), ("v", "s", "u"): ([0], [0])}, {"u": 2, "v": 2}
    )
    feats = {
        "f16": np.ones(2, np.float16),
        "f32": np.ones((2, 3), np.float32),
        "f64": np.ones(2),
        "i32": np.arange(2, dtype=np.int32),
        "b": np.array([True, False]),
        "c64": np.ones(2, np.complex64),
    }
    for k, v in feats.items():
        g.nodes["u"].data[k] = v
        g.edges["r"].data[k] = v
    out = fn(g)
    for data in (out.nodes["u"].data, out.edges["r"].data):
        for k, v in feats.items():
            want = target if v.dtype.kind == "f" else v.dtype
            assert data[k].dtype == want, k
            if v.dtype == want:
                assert data[k] is v  # DGL keeps the column itself
    assert g.nodes["u"].data["f64"].dtype == np.float64  # input untouched
    assert out.canonical_etypes == g.canonical_etypes


# ----------------------------------------------------------------------------- DRNL
def _ref_drnl(src, dst, n, u, v):
    """functional.py double_radius_node_labeling (dense BFS in place of csgraph)."""
    adj = np.zeros((n, n), bool)
    adj[src, dst] = True
    adj |= adj.T
    u, v = (v, u) if u > v else (u, v)

    def bfs(start, removed):
        d = np.full(n, np.inf)
        d[start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for a in frontier:
                for b in np.nonzero(adj[a])[0]:
                    if b != removed and np.isinf(d[b]):
                        d[b] = d[a] + 1
                        nxt.append(b)
            frontier = nxt
        d[removed] = 0
        return d

    ds, dt = bfs(u, v), bfs(v, u)
    d = ds + dt
    with np.errstate(invalid="ignore"):
        z = 1 + np.minimum(ds, dt) + d // 2 * (d // 2 + d % 2 - 1)
    z[u] = z[v] = 1
    z[np.isnan(z)] = 0
    return z.astype(np.int64)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_drnl_random_multigraphs(seed):
    n = 9
    src, dst = _rand(seed, n, 12)  # self-loops, parallel edges, isolated nodes
    g = graph((src, dst), num_nodes=n)
    for u, v in [(0, 1), (5, 2), (8, 0)]:
        got = double_radius_node_labeling(g, u, v)
        assert got.dtype == np.int64 and got.shape == (n,)
        np.testing.assert_array_equal(got, _ref_drnl(src, dst, n, u, v))
    got = double_radius_node_labeling(g, np.int64(3), np.int32(4))  # NumPy ints accepted
    np.testing.assert_array_equal(got, _ref_drnl(src, dst, n, 3, 4))


# ------------------------------------------------------------------- random walk PE
def _ref_rw_pe(src, dst, n, k, w=None):
    """functional.py random_walk_pe: A (counts) .multiply(W (summed weights))."""
    a = np.zeros((n, n))
    np.add.at(a, (src, dst), 1.0)
    if w is not None:
        wm = np.zeros((n, n))
        np.add.at(wm, (src, dst), np.asarray(w, np.float64).reshape(-1))
        a = a * wm
    rw = a / (a.sum(1, keepdims=True) + 1e-30)
    out, power = [np.diag(rw)], rw
    for _ in range(k - 1):
        power = power @ rw
        out.append(np.diag(power))
    return np.stack(out, axis=-1).astype(np.float32)


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_random_walk_pe_and_module(k, weighted):
    n = 7
    src, dst = _rand(k, n, 14)
    g = graph((src, dst), num_nodes=n, idtype=np.int32)
    w = None
    if weighted:
        w = np.random.default_rng(k).random(src.shape[0]).astype(np.float32) + 0.1
        g.edata["w"] = w
    name = "w" if weighted else None
    pe = random_walk_pe(g, k, eweight_name=name)
    assert pe.dtype == np.float32 and pe.shape == (n, k)
    np.testing.assert_allclose(pe, _ref_rw_pe(src, dst, n, k, w), rtol=1e-5, atol=1e-7)
    h = RandomWalkPE(k, feat_name="rw", eweight_name=name)(g)
    np.testing.assert_array_equal(h.ndata["rw"], pe)
    assert "rw" not in g.ndata  # documented: a new graph, g untouched
    assert "PE" in RandomWalkPE(k)(g).ndata  # DGL's default feat_name


def test_random_walk_pe_bad_weights():
    g = graph(([0, 1], [1, 0]), num_nodes=2)
    g.edata["w2"] = np.ones((2, 2))
    with pytest.raises(ValueError, match="random_walk_pe: 'w2'"):
        random_walk_pe(g, 2, eweight_name="w2")
    with pytest.raises(ValueError, match="RandomWalkPE: k must be a positive int"):
        RandomWalkPE(0)


# --------------------------------------------------------------- laplacian_lambda_max
def _ref_lambda_max(src, dst, n):
    """functional.py: L = I - D^-1/2 A^T D^-1/2 (in-degrees, clipped to 1), eigs 'LM'."""
    a = np.zeros((n, n))
    np.add.at(a, (dst, src), 1.0)
    deg = np.clip(np.bincount(dst, minlength=n), 1, None) ** -0.5
    val = np.linalg.eigvals(np.eye(n) - deg[:, None] * a * deg[None, :])
    return val[np.argmax(np.abs(val))].real


def test_laplacian_lambda_max_batched_mixed():
    parts = [
        (_rand(3, 6, 10), 6),
        (_rand(4, 8, 16, loops=False), 8),
        ((np.array([0]), np.array([1])), 4),
    ]
    gs = [graph((s, d), num_nodes=n) for (s, d), n in parts]
    out = laplacian_lambda_max(batch(gs))
    assert isinstance(out, list) and len(out) == 3
    np.testing.assert_allclose(out, [_ref_lambda_max(s, d, n) for (s, d), n in parts], atol=1e-9)


# --------------------------------------------------------------------------- homophily
def _homophily_graphs():
    # self-loops, nodes without in-edges, and a class (2) with no node at all
    src, dst = _rand(5, 10, 18)
    y = np.array([0, 1, 3, 0, 1, 3, 0, 0, 1, 3])
    dst[0], y[dst[0]] = 2, 3  # the top class has an in-edge (PyG needs it)
    return src, dst, y


@pytest.mark.parametrize(
    ("ours", "method"),
    [(node_homophily, "node"), (edge_homophily, "edge"), (linkx_homophily, "edge_insensitive")],
)
def test_homophily_vs_pyg_live(ours, method):
    torch = pytest.importorskip("torch")
    utils = pytest.importorskip("torch_geometric.utils")
    src, dst, y = _homophily_graphs()
    g = graph((src, dst), num_nodes=y.shape[0])
    want = utils.homophily(
        torch.from_numpy(np.stack([src, dst])), torch.from_numpy(y), method=method
    )
    assert abs(ours(g, y) - want) < 1e-6


@pytest.mark.parametrize("fn", [node_homophily, edge_homophily, linkx_homophily])
def test_homophily_column_labels(fn):
    # DGL's node / edge homophily compute on [N, 1] labels as well; PyG squeezes them
    src, dst, y = _homophily_graphs()
    g = graph((src, dst), num_nodes=y.shape[0])
    assert fn(g, y[:, None]) == fn(g, y)
    with pytest.raises(ValueError, match=r"y must have shape \(10,\) or \(10, 1\)"):
        fn(g, np.stack([y, y], axis=1))


def test_linkx_homophily_dgl_loop_with_empty_class():
    # homophily.py linkx: classes 0..max(y); a class without in-edges gives max(0, nan) = 0
    src, dst, y = _homophily_graphs()
    n, c = y.shape[0], int(y.max()) + 1
    same = (y[src] == y[dst]).astype(np.float64)
    hits, deg = np.bincount(dst, same, n), np.bincount(dst, minlength=n).astype(float)
    value = 0.0
    for k in range(c):
        m = y == k
        with np.errstate(invalid="ignore"):
            x = hits[m].sum() / deg[m].sum() - m.sum() / n
        value += max(0, x)
    g = graph((src, dst), num_nodes=n, idtype=np.int32)
    assert abs(linkx_homophily(g, y) - value / (c - 1)) < 1e-12
    assert abs(linkx_homophily(g, y.astype(np.int32)) - value / (c - 1)) < 1e-12


# ------------------------------------------------------------------------- NodeShuffle
def test_node_shuffle_heterograph_one_perm_per_type():
    g = heterograph(
        {("u", "r", "v"): ([0, 1, 2], [1, 0, 1]), ("v", "s", "u"): ([0], [2])}, {"u": 3, "v": 2}
    )
    g.nodes["u"].data["a"] = np.arange(3.0)
    g.nodes["u"].data["b"] = np.arange(6).reshape(3, 2)
    g.nodes["v"].data["a"] = np.arange(2.0) + 10
    g.edges["r"].data["e"] = np.arange(3.0)
    out = NodeShuffle(seed=3)(g)
    pu = out.nodes["u"].data["a"].astype(np.int64)
    assert sorted(pu) == [0, 1, 2]
    np.testing.assert_array_equal(out.nodes["u"].data["b"], g.nodes["u"].data["b"][pu])
    assert sorted(out.nodes["v"].data["a"]) == [10.0, 11.0]
    np.testing.assert_array_equal(out.edges["r"].data["e"], g.edges["r"].data["e"])
    for c in g.canonical_etypes:
        for a, b in zip(out.edges(etype=c), g.edges(etype=c)):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(g.nodes["u"].data["a"], np.arange(3.0))  # untouched


# ---------------------------------------------------------------------- from_scipy
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_from_scipy_formats_duplicates(fmt, idtype):
    # utils/data.py scipy2tensor: CSR / CSC kept as (indptr, indices), edge ids in
    # storage order; anything else through tocoo(); edata = sp_mat.data (storage order)
    row, col = np.array([2, 0, 2, 1, 0]), np.array([1, 2, 1, 0, 0])
    val = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    m = sp.coo_matrix((val, (row, col)), shape=(3, 3)).asformat(fmt)
    g = from_scipy(m, eweight_name="w", idtype=idtype)
    coo = m.tocoo()
    assert g.idtype == idtype and g.num_nodes() == 3 and g.num_edges() == coo.nnz
    np.testing.assert_array_equal(g.edges()[0], coo.row)
    np.testing.assert_array_equal(g.edges()[1], coo.col)
    assert g.edata["w"].dtype == np.float32
    np.testing.assert_array_equal(g.edata["w"], coo.data)
    half = m.tocsc()[:, :2].asformat(fmt)
    b = bipartite_from_scipy(half, "u", "e", "v", eweight_name="w", idtype=idtype)
    cb = half.tocoo()
    assert b.canonical_etypes == [("u", "e", "v")] and b.idtype == idtype
    assert (b.num_nodes("u"), b.num_nodes("v")) == (3, 2)
    np.testing.assert_array_equal(b.edges()[0], cb.row)
    np.testing.assert_array_equal(b.edata["w"], cb.data)


def test_id_and_type_constants():
    # python/dgl/base.py
    assert (NID, EID, NTYPE, ETYPE) == ("_ID", "_ID", "_TYPE", "_TYPE")
