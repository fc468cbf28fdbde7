"""Parity sweep of DGL's functional graph transforms (``dgl.transforms.functional``) on the
DGL face, for options the earlier tests leave out.

DGL is not installed: the references below are NumPy transcriptions of DGL's code, read
from ``python/dgl/transforms/functional.py`` (dmlc/dgl at 3d16000b, Aug 2025):
``to_simple`` / ``_coalesce_edge_frame`` (sorted distinct pairs, ``np.unique``'s first
index for ``'arbitrary'``, ``scatter_add`` then ``/= counts`` for ``'mean'``),
``add_self_loop`` (a number is ``F.astype(F.tensor([fill_data]), dtype)``, a string is
``update_all(copy_e, reducer)`` over in-edges), ``khop_adj`` (``adj_external() ** k``,
dense float32), ``norm_by_dst`` (``1 / count`` of each edge's destination, float32),
``to_bidirected`` / ``khop_graph`` / ``reorder_graph`` (``store_ids``); DGL's SpMM
kernels (``src/array/kernel.cc``: ``ATEN_FLOAT_TYPE_SWITCH_16BITS``) take floating-point
features only.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.csgraph import reverse_cuthill_mckee

from arraygnn.graph import (
    EID,
    NID,
    AddSelfLoop,
    add_self_loop,
    graph,
    heterograph,
    khop_adj,
    khop_graph,
    knn_graph,
    norm_by_dst,
    reorder_graph,
    to_bidirected,
    to_double,
    to_half,
    to_simple,
)

IDTYPES = [np.int32, np.int64]


def _multigraph(seed: int, idtype=np.int64, n: int = 5, e: int = 14):
    """A random graph with parallel edges, self-loops and (usually) isolated nodes."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 1, e)
    dst = rng.integers(0, n - 1, e)
    src[:3], dst[:3] = src[3], dst[3]  # at least three parallel copies of one pair
    return graph((src.astype(idtype), dst.astype(idtype)), num_nodes=n)


# ------------------------------------------------------------------ to_simple
def _ref_to_simple(src, dst, n_dst, feats, aggregator):
    """DGL's COOToSimple + _coalesce_edge_frame."""
    key = src.astype(np.int64) * n_dst + dst
    uniq, first, inverse, counts = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    out = {}
    for k, v in feats.items():
        if aggregator == "arbitrary":
            out[k] = v[first]
        else:
            acc = np.zeros((len(uniq), *v.shape[1:]), dtype=v.dtype)
            np.add.at(acc, inverse, v)
            if aggregator == "mean":
                acc = acc / counts.astype(v.dtype).reshape(-1, *([1] * (v.ndim - 1)))
            out[k] = acc.astype(v.dtype)
    return uniq // n_dst, uniq % n_dst, inverse, counts, out


@pytest.mark.parametrize("hetero", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("aggregator", ["arbitrary", "sum", "mean"])
def test_to_simple_coalesces_features_as_dgl(aggregator, dtype, hetero):
    rng = np.random.default_rng(3)
    if hetero:
        g0, g1 = _multigraph(1), _multigraph(2)
        (s0, d0), (s1, d1) = g0.edges(), g1.edges()
        g = heterograph(
            {("u", "a", "u"): (s0, d0), ("u", "b", "v"): (s1, d1)},
            num_nodes_dict={"u": 5, "v": 5},
        )
    else:
        g = _multigraph(1)
    g.nodes["u" if hetero else "_N"].data["x"] = rng.normal(size=(5, 2))
    for c in g.canonical_etypes:
        e = g.num_edges(c)
        g.edges[c].data["w"] = rng.normal(size=e).astype(dtype)
        g.edges[c].data["h"] = rng.normal(size=(e, 2, 3)).astype(dtype)
        g.edges[c].data["cnt"] = np.full(e, -1.0, dtype)  # replaced by the counts, as DGL
    h, wb = to_simple(
        g,
        return_counts="cnt",
        writeback_mapping=True,
        copy_ndata=not hetero,
        copy_edata=True,
        aggregator=aggregator,
    )
    if not hetero:
        wb = {g.canonical_etypes[0]: wb}
        assert h.ndata["x"] is g.ndata["x"]
    else:
        assert set(wb) == set(g.canonical_etypes)
        assert all(len(h.nodes[t].data) == 0 for t in h.ntypes)  # copy_ndata=False
    for c in g.canonical_etypes:
        s, d = g.edges(etype=c)
        feats = {k: g.edges[c].data[k] for k in ("w", "h")}
        rs, rd, inv, counts, want = _ref_to_simple(s, d, g.num_nodes(c[2]), feats, aggregator)
        hs, hd = h.edges(etype=c)
        np.testing.assert_array_equal(hs, rs)
        np.testing.assert_array_equal(hd, rd)
        assert hs.dtype == g.idtype
        np.testing.assert_array_equal(wb[c], inv)
        np.testing.assert_array_equal(h.edges[c].data["cnt"], counts)
        assert h.edges[c].data["cnt"].dtype == g.idtype
        for k, v in want.items():
            got = h.edges[c].data[k]
            assert got.dtype == dtype and got.shape == v.shape
            tol = 1e-6 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, v, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_])
def test_to_simple_mean_refuses_non_float_features_as_dgl(dtype):
    # DGL: ``new_data /= norm`` on an integer tensor raises (torch's in-place true division)
    g = _multigraph(4)
    g.edata["k"] = np.ones(g.num_edges(), dtype)
    with pytest.raises(TypeError, match="to_simple: aggregator='mean' needs floating-point.*'k'"):
        to_simple(g, copy_edata=True, aggregator="mean")
    if dtype != np.bool_:  # 'sum' adds integers exactly (torch's scatter_add)
        s, d = g.edges()
        _, _, _, counts, _ = _ref_to_simple(s, d, 5, {}, "sum")
        np.testing.assert_array_equal(
            to_simple(g, copy_edata=True, aggregator="sum").edata["k"], counts
        )
    assert "k" not in to_simple(g, aggregator="mean").edata  # copy_edata=False: nothing merged


# ------------------------------------------------------------------ add_self_loop
def _ref_loop_values(g, c, v, fill):
    n = g.num_nodes(c[0])
    if isinstance(fill, str):
        _, d = g.edges(etype=c)
        out = np.zeros((n, *v.shape[1:]), dtype=np.float64)  # 0 without in-edges
        for i in range(n):
            rows = v[d == i].astype(np.float64)
            if len(rows):
                out[i] = {
                    "sum": rows.sum(0),
                    "mean": rows.mean(0),
                    "max": rows.max(0),
                    "min": rows.min(0),
                }[fill]
        return out.astype(v.dtype)
    value = np.asarray([fill]).astype(v.dtype)[0]  # DGL: F.astype(F.tensor([fill]), dtype)
    return np.zeros((n, *v.shape[1:]), v.dtype) + value


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("fill", ["sum", "mean", "max", "min", 2.7, -3, True])
def test_add_self_loop_fill_data_as_dgl(fill, dtype, idtype):
    rng = np.random.default_rng(7)
    base = _multigraph(5, idtype)  # node 4 has no in-edge: reductions give 0 there
    s, d = base.edges()
    g = heterograph(
        {("n", "r", "n"): (s, d), ("n", "to", "m"): (s[:3], d[:3])},
        num_nodes_dict={"n": 5, "m": 4},
    )
    c = ("n", "r", "n")
    e = g.num_edges(c)
    g.edges[c].data["a"] = (rng.normal(size=(e, 3)) * 4).astype(dtype)
    g.edges[c].data["b"] = rng.normal(size=e).astype(np.float32)
    g.edges["to"].data["z"] = np.ones(3)
    if fill == "mean" and dtype == np.int64:
        with pytest.raises(TypeError, match="add_self_loop: fill_data='mean' reduces edge "):
            add_self_loop(g, edge_feat_names=["a"], fill_data=fill, etype="r")
        return
    h = add_self_loop(g, edge_feat_names=["a"], fill_data=fill, etype="r")
    hs, hd = h.edges(etype=c)
    np.testing.assert_array_equal(hs, np.concatenate([s, np.arange(5)]))
    np.testing.assert_array_equal(hd, np.concatenate([d, np.arange(5)]))
    assert hs.dtype == g.idtype
    a = g.edges[c].data["a"]
    got = h.edges[c].data["a"]
    assert got.dtype == dtype and got.shape == (e + 5, 3)
    np.testing.assert_array_equal(got[:e], a)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got[e:], _ref_loop_values(g, c, a, fill), rtol=tol, atol=tol)
    np.testing.assert_array_equal(h.edges[c].data["b"][e:], 0)  # not named: zeros, as DGL
    assert h.num_edges("to") == 3 and h.edges["to"].data["z"].tolist() == [1.0] * 3
    # every feature (the default) takes the number / reduction
    if not isinstance(fill, str) or dtype != np.int64 or fill != "mean":
        every = add_self_loop(g, fill_data=fill, etype=c).edges[c].data["b"]
        ref = _ref_loop_values(g, c, g.edges[c].data["b"], fill)
        np.testing.assert_allclose(every[e:], ref, rtol=1e-6, atol=1e-6)


def test_add_self_loop_bool_fill_and_features():
    g = graph(([0, 1], [1, 2]))
    g.edata["m"] = np.array([False, True])
    g.edata["w"] = np.array([0.5, 2.0])
    h = add_self_loop(g, fill_data=True)  # DGL: a bool is an int
    assert h.edata["m"].tolist() == [False, True, True, True, True]
    assert h.edata["w"].tolist() == [0.5, 2.0, 1.0, 1.0, 1.0]
    t = AddSelfLoop(fill_data=True)(g)  # DGL's class passes fill_data on unchecked
    assert t.edata["m"].tolist() == h.edata["m"].tolist()
    with pytest.raises(TypeError, match="fill_data='sum' reduces edge feature 'm'"):
        add_self_loop(g, fill_data="sum")
    with pytest.raises(TypeError, match="fill_data must be a number"):
        add_self_loop(g, fill_data=[1.0])


# ------------------------------------------------------------------ khop_adj / khop_graph
@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_khop_adj_matches_dgl(k, idtype):
    for seed in range(3):
        g = _multigraph(seed, idtype)
        s, d = g.edges()
        n = g.num_nodes()
        a = sparse.csr_matrix((np.ones(len(s), idtype), (s, d)), shape=(n, n))
        want = (a**k).todense().astype(np.float32) if k else np.eye(n, dtype=np.float32)
        got = khop_adj(g, k)
        assert got.dtype == np.float32 and got.shape == (n, n)
        np.testing.assert_array_equal(got, np.asarray(want))
        kg = khop_graph(g, k)  # khop_graph's edges are khop_adj's entries, repeated
        dense = np.zeros((n, n))
        np.add.at(dense, kg.edges(), 1)
        np.testing.assert_array_equal(dense, got)


def test_khop_adj_docstring_example_and_errors():
    g = graph(([0, 1, 2, 3, 4, 0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 1, 2, 3, 4, 0]))
    assert khop_adj(g, 3)[0].tolist() == [1, 3, 3, 1, 0]  # DGL's docstring
    assert khop_adj(graph(([], []), num_nodes=2), 2).tolist() == [[0, 0], [0, 0]]
    with pytest.raises(ValueError, match="khop_adj: k must be >= 0"):
        khop_adj(g, -1)
    with pytest.raises(TypeError, match="khop_adj: k must be an int"):
        khop_adj(g, 1.0)
    hg = heterograph({("a", "r", "b"): ([0], [1])})
    with pytest.raises(ValueError, match="khop_adj: only homogeneous graphs"):
        khop_adj(hg, 1)
    g.ndata["x"] = np.ones(5)
    assert "x" in khop_graph(g, 2).ndata and len(khop_graph(g, 2, copy_ndata=False).ndata) == 0


# ------------------------------------------------------------------ norm_by_dst
@pytest.mark.parametrize("idtype", IDTYPES)
def test_norm_by_dst_matches_dgl(idtype):
    assert norm_by_dst(graph(([0, 1, 1], [1, 1, 2]))).tolist() == [0.5, 0.5, 1.0]  # docstring
    for seed in range(3):
        g = _multigraph(seed, idtype)
        _, d = g.edges()
        _, inv, cnt = np.unique(d, return_inverse=True, return_counts=True)
        got = norm_by_dst(g)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, (1.0 / cnt[inv].astype(np.float32)))
    hg = heterograph(
        {("u", "a", "v"): ([0, 1, 2], [1, 1, 0]), ("w", "b", "v"): ([0], [1])},
        idtype=idtype,
    )
    assert norm_by_dst(hg, "a").tolist() == [0.5, 0.5, 1.0]  # in-edges of that type only
    assert norm_by_dst(hg, ("w", "b", "v")).tolist() == [1.0]
    assert norm_by_dst(graph(([], []), num_nodes=3)).shape == (0,)
    with pytest.raises(ValueError, match="norm_by_dst: the graph has edge types"):
        norm_by_dst(hg)


# ------------------------------------------------------------------ to_bidirected
@pytest.mark.parametrize("copy_ndata", [False, True])
def test_to_bidirected_copy_ndata_and_readonly(copy_ndata):
    g = _multigraph(6)
    g.ndata["x"] = np.arange(5.0)
    g.edata["w"] = np.ones(g.num_edges())
    h = to_bidirected(g, copy_ndata=copy_ndata)
    s, d = g.edges()
    key = np.unique(np.concatenate([s * 5 + d, d * 5 + s]))
    np.testing.assert_array_equal(h.edges()[0], key // 5)
    np.testing.assert_array_equal(h.edges()[1], key % 5)
    assert len(h.edata) == 0  # no counts, no edge features (DGL)
    assert ("x" in h.ndata) == copy_ndata
    with pytest.warns(DeprecationWarning, match="to_bidirected: readonly is deprecated"):
        r = to_bidirected(g, readonly=True)
    np.testing.assert_array_equal(r.edges()[0], h.edges()[0])
    assert len(r.ndata) == 0  # DGL's default copy_ndata=False


# ------------------------------------------------------------------ reorder_graph store_ids
@pytest.mark.parametrize("edge_algo", ["src", "dst"])
def test_reorder_graph_store_ids_false_adds_no_id_fields(edge_algo):
    g = _multigraph(8)
    g.ndata["x"] = np.arange(5.0)
    g.edata["w"] = np.arange(float(g.num_edges()))
    with_ids = reorder_graph(g, "rcmk", edge_algo)
    bare = reorder_graph(g, "rcmk", edge_algo, store_ids=False)
    perm = reverse_cuthill_mckee(g.adj_external(scipy_fmt="csr").tocsr())
    np.testing.assert_array_equal(with_ids.ndata[NID], perm)  # DGL's rcmk_perm
    for a, b in zip(bare.edges(), with_ids.edges()):
        np.testing.assert_array_equal(a, b)
    assert set(bare.ndata) == {"x"} and set(bare.edata) == {"w"}  # no NID / EID / __orig__
    np.testing.assert_array_equal(bare.ndata["x"], g.ndata["x"][perm])
    np.testing.assert_array_equal(bare.edata["w"], g.edata["w"][with_ids.edata[EID]])


# ------------------------------------------------------------------ precision on a heterograph
def test_precision_casts_on_heterograph_every_type():
    hg = heterograph({("a", "r", "b"): ([0, 1], [1, 0]), ("b", "s", "b"): ([0], [0])})
    hg.nodes["a"].data["x"] = np.ones((2, 2), np.float32)
    hg.nodes["b"].data["lab"] = np.array([1, 2])
    hg.edges["s"].data["w"] = np.ones(1, np.float16)
    half, double = to_half(hg), to_double(hg)
    assert half.nodes["a"].data["x"].dtype == np.float16
    assert double.edges["s"].data["w"].dtype == np.float64
    assert half.nodes["b"].data["lab"].dtype == double.nodes["b"].data["lab"].dtype == np.int64
    assert hg.nodes["a"].data["x"].dtype == np.float32  # input untouched


# ------------------------------------------------------------------ knn_graph algorithms
@pytest.mark.parametrize("exclude_self", [False, True])
@pytest.mark.parametrize("dist", ["euclidean", "cosine"])
def test_knn_graph_every_algorithm_gives_the_exact_neighbours(dist, exclude_self):
    # DGL's algorithms are all exact but 'nn-descent'; here every one is the exact search
    rng = np.random.default_rng(11)
    x = rng.normal(size=(9, 3))
    k = 3
    if dist == "cosine":
        xn = x / np.linalg.norm(x, axis=1, keepdims=True)
        dmat = 1 - xn @ xn.T
    else:
        dmat = ((x[:, None] - x[None]) ** 2).sum(-1)
    if exclude_self:
        np.fill_diagonal(dmat, np.inf)
    want = np.sort(np.argsort(dmat, axis=1, kind="stable")[:, :k], axis=1)
    for algo in ("bruteforce-blas", "bruteforce", "bruteforce-sharemem", "kd-tree", "nn-descent"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = knn_graph(x, k, algorithm=algo, dist=dist, exclude_self=exclude_self)
        s, d = g.edges()
        nbrs = np.zeros((9, k), np.int64)
        for v in range(9):
            nbrs[v] = np.sort(s[d == v])  # the k nearest are each point's predecessors
        np.testing.assert_array_equal(nbrs, want, err_msg=algo)
