"""DGL's ``dgl.transforms`` classes (arraygnn.graph.transform_modules / diffusion_transforms)
against plain-NumPy transcriptions of DGL's code (DGL cannot be installed here); the
random ones on their guarantees."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph
from arraygnn.graph.diffusion_transforms import GDC, PPR, GCNNorm, HeatKernel, SIGNDiffusion
from arraygnn.graph.positional_encoding import laplacian_pe, random_walk_pe
from arraygnn.graph.transform_modules import (
    SVDPE,
    AddEdge,
    AddMetaPaths,
    AddReverse,
    AddSelfLoop,
    BaseTransform,
    Compose,
    DropEdge,
    DropNode,
    FeatMask,
    KHopGraph,
    LapPE,
    LineGraph,
    NodeShuffle,
    RandomWalkPE,
    RemoveSelfLoop,
    RowFeatNormalizer,
    ToLevi,
    ToSimple,
)

IDTYPES = [np.int32, np.int64]


def _edges(g, etype=None):
    s, d = g.edges(etype=etype)
    return np.asarray(s).tolist(), np.asarray(d).tolist()


def _homo_cases(idtype):
    """(label, src, dst, num_nodes): empty, isolated nodes, self-loops, multi-edges."""
    rng = np.random.default_rng(0)
    src = rng.integers(0, 7, 20)
    dst = rng.integers(0, 7, 20)
    src[:3], dst[:3] = [1, 1, 4], [1, 1, 4]  # self-loops, one parallel pair of them
    src[3:5], dst[3:5] = [2, 2], [5, 5]  # multi-edge
    cases = [
        ("random", src, dst, 9),  # nodes 7, 8 isolated
        ("no-edges", np.zeros(0, int), np.zeros(0, int), 4),
        ("no-nodes", np.zeros(0, int), np.zeros(0, int), 0),
        ("line", np.array([0, 1, 2]), np.array([1, 2, 3]), 5),
    ]
    return [(lab, s.astype(idtype), d.astype(idtype), n) for lab, s, d, n in cases]


def _homo(idtype, label=None, feats=True):
    out = []
    for lab, s, d, n in _homo_cases(idtype):
        g = graph((s, d), num_nodes=n)
        if feats:
            rng = np.random.default_rng(1)
            g.ndata["x"] = rng.random((n, 3))
            g.edata["e"] = rng.random((len(s), 2)).astype(np.float32)
        out.append((lab, g))
    return out


def _hetero(idtype):
    ids = lambda *a: np.array(a, dtype=idtype)  # noqa: E731
    g = heterograph(
        {
            ("user", "follows", "user"): (ids(0, 1, 1, 2), ids(1, 1, 2, 2)),
            ("user", "plays", "game"): (ids(0, 1, 2, 2), ids(0, 0, 1, 1)),
            ("game", "by", "dev"): (ids(0, 1), ids(0, 0)),
        },
        num_nodes_dict={"user": 4, "game": 3, "dev": 2},
    )
    g.nodes["user"].data["x"] = np.arange(8.0).reshape(4, 2)
    g.edges["follows"].data["e"] = np.array([1.0, 2.0, 3.0, 4.0])
    g.edges["plays"].data["e"] = np.array([5.0, 6.0, 7.0, 8.0])
    return g


def _snapshot(g):
    """Copies of every id array and feature, to check the input is not changed."""
    snap = {}
    for c in g.canonical_etypes:
        snap[("edges", c)] = [np.array(a) for a in g.edges(etype=c)]
        snap[("edata", c)] = {k: np.array(v) for k, v in g.edges[c].data.items()}
    for t in g.ntypes:
        snap[("ndata", t)] = {k: np.array(v) for k, v in g.nodes[t].data.items()}
    return snap


def _assert_unchanged(g, snap):
    again = _snapshot(g)
    assert again.keys() == snap.keys()
    for k, v in snap.items():
        if isinstance(v, dict):
            assert v.keys() == again[k].keys(), k
            for name in v:
                np.testing.assert_array_equal(again[k][name], v[name])
        else:
            for a, b in zip(v, again[k]):
                np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- structural


def _ref_add_self_loop(src, dst, n, e, allow_duplicate, fill=1.0):
    if not allow_duplicate:
        keep = src != dst
        src, dst, e = src[keep], dst[keep], e[keep]
    loops = np.arange(n)
    return (
        np.concatenate([src, loops]),
        np.concatenate([dst, loops]),
        np.concatenate([e, np.full((n, *e.shape[1:]), fill, e.dtype)]),
    )


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("allow_duplicate", [False, True])
def test_add_self_loop_homogeneous(idtype, allow_duplicate):
    for lab, g in _homo(idtype):
        snap = _snapshot(g)
        h = AddSelfLoop(allow_duplicate=allow_duplicate, fill_data=2.5)(g)
        s, d = (np.asarray(a) for a in g.edges())
        rs, rd, re = _ref_add_self_loop(
            s, d, g.num_nodes(), np.asarray(g.edata["e"]), allow_duplicate, 2.5
        )
        assert _edges(h) == (rs.tolist(), rd.tolist()), lab
        np.testing.assert_array_equal(h.edata["e"], re)
        assert h.edata["e"].dtype == np.float32
        assert h.idtype == idtype
        assert h.ndata["x"] is g.ndata["x"]
        _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_add_self_loop_hetero_new_etypes(idtype):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddSelfLoop(new_etypes=True, edge_feat_names=["e"], fill_data="sum")(g)
    assert ("game", "plays", "user") not in h.canonical_etypes
    # follows: loops (1,1), (2,2) removed, then one loop per user with the summed in-edge e
    assert _edges(h, "follows") == ([0, 1, 0, 1, 2, 3], [1, 2, 0, 1, 2, 3])
    np.testing.assert_array_equal(h.edges["follows"].data["e"], [1.0, 3.0, 0.0, 1.0, 3.0, 0.0])
    assert _edges(h, "plays") == _edges(g, "plays")  # two node types: untouched
    for t in ("user", "game", "dev"):
        n = g.num_nodes(t)
        assert _edges(h, (t, "self", t)) == (list(range(n)), list(range(n)))
    np.testing.assert_array_equal(h.nodes["user"].data["x"], g.nodes["user"].data["x"])
    _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_self_loop(idtype):
    for lab, g in _homo(idtype):
        snap = _snapshot(g)
        h = RemoveSelfLoop()(g)
        s, d = (np.asarray(a) for a in g.edges())
        keep = s != d
        assert _edges(h) == (s[keep].tolist(), d[keep].tolist()), lab
        np.testing.assert_array_equal(h.edata["e"], np.asarray(g.edata["e"])[keep])
        _assert_unchanged(g, snap)
    hg = _hetero(idtype)
    h = RemoveSelfLoop()(hg)
    assert _edges(h, "follows") == ([0, 1], [1, 2])
    assert _edges(h, "plays") == _edges(hg, "plays")


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("copy_edata", [False, True])
def test_add_reverse_homogeneous(idtype, copy_edata):
    for lab, g in _homo(idtype):
        snap = _snapshot(g)
        h = AddReverse(copy_edata=copy_edata)(g)
        s, d = (np.asarray(a) for a in g.edges())
        e = np.asarray(g.edata["e"])
        assert _edges(h) == (np.r_[s, d].tolist(), np.r_[d, s].tolist()), lab
        np.testing.assert_array_equal(h.edata["e"], np.r_[e, e if copy_edata else 0 * e])
        assert h.edata["e"].dtype == e.dtype
        _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("sym_new_etype", [False, True])
def test_add_reverse_hetero(idtype, sym_new_etype):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddReverse(copy_edata=True, sym_new_etype=sym_new_etype)(g)
    assert _edges(h, ("game", "rev_plays", "user")) == ([0, 0, 1, 1], [0, 1, 2, 2])
    assert _edges(h, ("dev", "rev_by", "game")) == ([0, 0], [0, 1])
    np.testing.assert_array_equal(h.edges["rev_plays"].data["e"], g.edges["plays"].data["e"])
    if sym_new_etype:
        assert _edges(h, ("user", "rev_follows", "user")) == ([1, 1, 2, 2], [0, 1, 1, 2])
        assert _edges(h, "follows") == _edges(g, "follows")
    else:
        assert ("user", "rev_follows", "user") not in h.canonical_etypes
        assert _edges(h, "follows") == ([0, 1, 1, 2, 1, 1, 2, 2], [1, 1, 2, 2, 0, 1, 1, 2])
    no_copy = AddReverse()(g)
    assert "e" not in no_copy.edges["rev_plays"].data
    np.testing.assert_array_equal(no_copy.edges["follows"].data["e"], [1, 2, 3, 4, 0, 0, 0, 0])
    _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("aggregator", ["arbitrary", "sum", "mean"])
def test_to_simple(idtype, aggregator):
    for lab, g in _homo(idtype):
        snap = _snapshot(g)
        h = ToSimple(aggregator=aggregator)(g)
        s, d = (np.asarray(a) for a in g.edges())
        e = np.asarray(g.edata["e"])
        groups = {}
        for i, pair in enumerate(zip(s.tolist(), d.tolist())):
            groups.setdefault(pair, []).append(i)
        hs, hd = _edges(h)
        assert sorted(zip(hs, hd)) == sorted(groups), lab
        for j, pair in enumerate(zip(hs, hd)):
            rows = groups[pair]
            assert h.edata["count"][j] == len(rows)
            want = {"arbitrary": e[rows[0]], "sum": e[rows].sum(0), "mean": e[rows].mean(0)}
            np.testing.assert_allclose(h.edata["e"][j], want[aggregator], rtol=1e-6)
        _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("backtracking", [True, False])
def test_line_graph(idtype, backtracking):
    for lab, g in _homo(idtype):
        h = LineGraph(backtracking=backtracking)(g)
        s, d = (np.asarray(a) for a in g.edges())
        want = [
            (i, j)
            for i in range(len(s))
            for j in range(len(s))
            if i != j and d[i] == s[j] and (backtracking or s[i] != d[j])
        ]
        assert list(zip(*_edges(h))) == want, lab
        assert h.num_nodes() == g.num_edges()
        assert h.ndata["e"] is g.edata["e"]


@pytest.mark.parametrize("idtype", IDTYPES)
def test_khop_graph(idtype):
    for lab, g in _homo(idtype):
        h = KHopGraph(2)(g)
        n = g.num_nodes()
        a = np.zeros((n, n), int)
        s, d = (np.asarray(x) for x in g.edges())
        np.add.at(a, (s, d), 1)
        a2 = a @ a
        hs, hd = _edges(h)
        b = np.zeros((n, n), int)
        np.add.at(b, (np.array(hs, int), np.array(hd, int)), 1)
        np.testing.assert_array_equal(b, a2, err_msg=lab)
        assert h.ndata["x"] is g.ndata["x"]


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("keep", [True, False])
def test_add_metapaths(idtype, keep):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddMetaPaths({"made": ["plays", "by"], "ff": ["follows", "follows"]}, keep_orig_edges=keep)(
        g
    )
    a_plays = np.zeros((4, 3), int)
    np.add.at(a_plays, tuple(np.asarray(x) for x in g.edges(etype="plays")), 1)
    a_by = np.zeros((3, 2), int)
    np.add.at(a_by, tuple(np.asarray(x) for x in g.edges(etype="by")), 1)
    want = np.nonzero(a_plays @ a_by)
    assert _edges(h, ("user", "made", "dev")) == (want[0].tolist(), want[1].tolist())
    a_f = np.zeros((4, 4), int)
    np.add.at(a_f, tuple(np.asarray(x) for x in g.edges(etype="follows")), 1)
    want = np.nonzero(a_f @ a_f)
    assert _edges(h, ("user", "ff", "user")) == (want[0].tolist(), want[1].tolist())
    assert h.num_nodes("game") == 3 and h.num_nodes("dev") == 2
    if keep:
        assert _edges(h, "plays") == _edges(g, "plays")
        np.testing.assert_array_equal(h.edges["plays"].data["e"], g.edges["plays"].data["e"])
    else:
        assert len(h.canonical_etypes) == 2
    _assert_unchanged(g, snap)


def test_compose_and_repr():
    g = graph((np.array([0, 0]), np.array([0, 1])), num_nodes=3)
    t = Compose([RemoveSelfLoop(), AddReverse(), ToSimple(return_counts=None)])
    h = t(g)
    assert sorted(zip(*_edges(h))) == [(0, 1), (1, 0)]
    assert repr(t) == ("Compose([\n  RemoveSelfLoop(),\n  AddReverse(),\n  ToSimple()\n])")
    with pytest.raises(NotImplementedError):
        BaseTransform()(g)
    with pytest.raises(TypeError, match="Compose: transforms"):
        Compose([1])


# ---------------------------------------------------------------- diffusion


def _dense(g, w, scale=1.0):
    """DGL's ``mat[dst, src] = eweight`` (float32, the last of parallel edges wins)."""
    n = g.num_nodes()
    a = np.zeros((n, n), np.float32)
    s, d = (np.asarray(x, dtype=np.int64) for x in g.edges())
    for i in range(len(s)):  # write in edge order: the last wins
        a[d[i], s[i]] = np.float32(scale * (1.0 if w is None else w[i]))
    return a


def _ref_sparsify(diff, eps, avg_degree):
    n = diff.shape[0]
    if eps is None:
        eps = -np.inf if avg_degree > n else np.sort(diff.ravel())[::-1][avg_degree * n - 1]
    dst, src = np.nonzero(diff >= eps)
    return src, dst, diff[dst, src]


def _check_diffusion(h, g, diff, eps, avg_degree):
    rs, rd, rw = _ref_sparsify(diff, eps, avg_degree)
    hs, hd = _edges(h)
    assert (hs, hd) == (rs.tolist(), rd.tolist())
    np.testing.assert_allclose(h.edata["w"], rw, rtol=2e-4, atol=2e-5)
    assert h.edata["w"].dtype == np.float32
    assert set(h.edata) == {"w"}
    assert h.ndata["x"] is g.ndata["x"]


def _weighted(idtype, seed=3):
    """Random weighted graphs without ties in the diffusion values, plus no-edge ones."""
    rng = np.random.default_rng(seed)
    s, d = rng.integers(0, 8, 24), rng.integers(0, 8, 24)
    g = graph((s.astype(idtype), d.astype(idtype)), num_nodes=9)
    g.edata["w"] = rng.random(24) * 0.2
    g.ndata["x"] = rng.random((9, 2))
    e = graph((np.zeros(0, idtype), np.zeros(0, idtype)), num_nodes=3)
    e.ndata["x"] = np.ones((3, 2))
    return [g, e]


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("eps,avg_degree", [(None, 2), (None, 20), (0.01, 5)])
def test_ppr(idtype, eps, avg_degree):
    for g in _weighted(idtype):
        snap = _snapshot(g)
        h = PPR(alpha=0.2, eps=eps, avg_degree=avg_degree)(g)
        w = np.asarray(g.edata["w"]) if "w" in g.edata else None
        mat = _dense(g, w, -0.8)
        mat[np.arange(len(mat)), np.arange(len(mat))] += 1
        diff = (np.float32(0.2) * np.linalg.inv(mat.astype(np.float64))).astype(np.float32)
        _check_diffusion(h, g, diff, eps, avg_degree)
        _assert_unchanged(g, snap)


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("bidirected", [False, True])
def test_heat_kernel(idtype, bidirected):
    from scipy.linalg import expm

    for g in _weighted(idtype):
        if bidirected and g.num_edges():
            s, d = (np.asarray(x) for x in g.edges())
            keep = s < d
            s, d = s[keep], d[keep]
            w = np.asarray(g.edata["w"])[keep]
            x = g.ndata["x"]
            g = graph((np.r_[s, d], np.r_[d, s]), num_nodes=9)
            g.edata["w"] = np.r_[w, w]
            g.ndata["x"] = x
        h = HeatKernel(t=1.5, avg_degree=3)(g)
        w = np.asarray(g.edata["w"]) if "w" in g.edata else None
        mat = _dense(g, w, 1.5)
        mat[np.arange(len(mat)), np.arange(len(mat))] -= np.float32(1.5)
        diff = expm(mat.astype(np.float64)).astype(np.float32)
        _check_diffusion(h, g, diff, None, 3)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_gdc(idtype):
    for g in _weighted(idtype):
        h = GDC([0.3, 0.2, 0.1], avg_degree=2)(g)
        adj = _dense(g, np.asarray(g.edata["w"]) if "w" in g.edata else None).astype(np.float64)
        diff = (0.3 * np.eye(len(adj)) + 0.2 * adj + 0.1 * adj @ adj).astype(np.float32)
        _check_diffusion(h, g, diff, None, 2)


def _ref_gcn_norm(g, w=None, etype=None, ntype=None):
    s, d = (np.asarray(x, dtype=np.int64) for x in g.edges(etype=etype))
    n = g.num_nodes(ntype)
    ww = np.ones(len(s), np.float32) if w is None else w
    deg = np.zeros(n, ww.dtype)
    np.add.at(deg, d, ww)
    with np.errstate(divide="ignore"):
        inv = 1.0 / np.sqrt(deg)
    inv[np.isinf(inv)] = 0
    return inv[s] * ww * inv[d]


@pytest.mark.parametrize("idtype", IDTYPES)
def test_gcn_norm(idtype):
    for lab, g in _homo(idtype):
        snap = _snapshot(g)
        h = GCNNorm()(g)
        np.testing.assert_allclose(h.edata["w"], _ref_gcn_norm(g), rtol=1e-6, err_msg=lab)
        assert h.edata["w"].dtype == np.float32
        _assert_unchanged(g, snap)
    for g in _weighted(idtype)[:1]:
        h = GCNNorm()(g)
        np.testing.assert_allclose(
            h.edata["w"], _ref_gcn_norm(g, np.asarray(g.edata["w"])), rtol=1e-12
        )
    hg = _hetero(idtype)
    h = GCNNorm(eweight_name="e")(hg)
    np.testing.assert_allclose(
        h.edges["follows"].data["e"],
        _ref_gcn_norm(
            hg, np.asarray(hg.edges["follows"].data["e"]), ("user", "follows", "user"), "user"
        ),
    )
    np.testing.assert_array_equal(h.edges["plays"].data["e"], hg.edges["plays"].data["e"])


def _ref_sign(g, x, k, op, w, alpha):
    """Edge by edge (a dense product would spread the nans of 'rw' everywhere)."""
    n = g.num_nodes()
    s, d = (np.asarray(v, dtype=np.int64) for v in g.edges())
    if op in ("gcn", "ppr"):
        ew = _ref_gcn_norm(g, w).astype(np.float64)
    else:
        ew = np.ones(len(s)) if w is None else w
    z = np.zeros(n)
    np.add.at(z, d, ew)
    out, h = [], x
    for _ in range(k):
        agg = np.zeros_like(x)
        np.add.at(agg, d, ew[:, None] * h[s])
        if op == "rw":
            with np.errstate(invalid="ignore", divide="ignore"):
                h = agg / (np.maximum(z, 1) if w is None else z)[:, None]
        else:
            h = agg
        if op == "ppr":
            h = (1 - alpha) * h + alpha * x
        out.append(h)
    return out


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("op", ["raw", "rw", "gcn", "ppr"])
@pytest.mark.parametrize("weighted", [False, True])
def test_sign_diffusion(idtype, op, weighted):
    for lab, g in _homo(idtype):
        g.edata["ew"] = np.random.default_rng(2).random(g.num_edges()) + 0.5
        snap = _snapshot(g)
        h = SIGNDiffusion(
            3,
            in_feat_name="x",
            out_feat_name="y",
            eweight_name="ew" if weighted else None,
            diffuse_op=op,
            alpha=0.3,
        )(g)
        w = np.asarray(g.edata["ew"]) if weighted else None
        want = _ref_sign(g, np.asarray(g.ndata["x"]), 3, op, w, 0.3)
        for i, ref in enumerate(want, 1):
            if op == "rw" and weighted:  # 0 / 0 is nan on nodes without in-edges, as DGL
                got = h.ndata[f"y_{i}"]
                np.testing.assert_allclose(
                    got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-5, err_msg=lab
                )
                assert np.array_equal(np.isnan(got), np.isnan(ref))
            else:
                np.testing.assert_allclose(
                    h.ndata[f"y_{i}"], ref, rtol=1e-5, atol=1e-12, err_msg=lab
                )
        assert "w" not in h.edata
        _assert_unchanged(g, snap)


# ---------------------------------------------------------------- Levi / encodings / features


@pytest.mark.parametrize("idtype", IDTYPES)
def test_to_levi(idtype):
    for lab, g in _homo(idtype):
        h = ToLevi()(g)
        s, d = _edges(g)
        e = g.num_edges()
        assert _edges(h, ("node", "n2e", "edge")) == (s, list(range(e))), lab
        assert _edges(h, ("edge", "e2n", "node")) == (list(range(e)), d)
        assert h.num_nodes("node") == g.num_nodes() and h.num_nodes("edge") == e
        assert h.nodes["node"].data["x"] is g.ndata["x"]
        assert h.nodes["edge"].data["e"] is g.edata["e"]
        assert h.idtype == idtype


@pytest.mark.parametrize("idtype", IDTYPES)
def test_svd_pe(idtype):
    for lab, g in _homo(idtype, feats=False):
        if g.num_nodes() < 2:
            continue
        k = 3
        h = SVDPE(k, random_flip=False)(g)
        n = g.num_nodes()
        a = np.zeros((n, n))
        np.add.at(a, tuple(np.asarray(x) for x in g.edges()), 1)
        u, dd, vh = np.linalg.svd(a)
        want = np.concatenate([u[:, :k] * np.sqrt(dd[:k]), vh.T[:, :k] * np.sqrt(dd[:k])], 1)
        got = h.ndata["svd_pe"]
        assert got.shape == (n, 2 * k) and got.dtype == np.float32
        # singular vectors are unique up to sign per pair: compare U S^1/2 V^T products
        np.testing.assert_allclose(
            got[:, :k] @ got[:, k:].T, want[:, :k] @ want[:, k:].T, atol=1e-5
        )
        flipped = SVDPE(k, seed=0)(g).ndata["svd_pe"]
        np.testing.assert_allclose(np.abs(flipped), np.abs(got), atol=1e-6, err_msg=lab)
    g = graph((np.array([0]), np.array([1])))
    assert SVDPE(4, padding=True)(g).ndata["svd_pe"].shape == (2, 8)
    with pytest.raises(ValueError, match="SVDPE: k"):
        SVDPE(4)(g)


def test_positional_encodings():
    g = graph((np.array([0, 1, 2, 3, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 0, 1, 2, 3])))
    g.edata["w"] = np.arange(1.0, 9.0)
    h = RandomWalkPE(3, feat_name="rw", eweight_name="w")(g)
    np.testing.assert_array_equal(h.ndata["rw"], random_walk_pe(g, 3, eweight_name="w"))
    h = LapPE(2, feat_name="pe", eigval_name="ev", seed=0)(g)
    pe, val = laplacian_pe(g, 2, return_eigval=True, seed=np.random.default_rng(0))
    np.testing.assert_array_equal(h.ndata["pe"], pe)
    np.testing.assert_array_equal(h.ndata["ev"], np.repeat(val[None], 4, 0))
    assert "pe" not in g.ndata and "rw" not in g.ndata
    h = LapPE(6, padding=True)(g)
    assert h.ndata["PE"].shape == (4, 6) and "ev" not in h.ndata


def test_row_feat_normalizer():
    g = _hetero(np.int64)
    g.nodes["game"].data["x"] = np.array([[0.2, 0.3], [2.0, 6.0], [-1.0, 0.0]])
    snap = _snapshot(g)
    h = RowFeatNormalizer(subtract_min=True, node_feat_names=["x"], edge_feat_names=["e"])(g)
    for t in ("user", "game"):
        x = np.asarray(g.nodes[t].data["x"])
        x = x - x.min()
        np.testing.assert_allclose(
            h.nodes[t].data["x"], x / np.maximum(x.sum(-1, keepdims=True), 1)
        )
    e = np.asarray(g.edges["plays"].data["e"])
    e = e - e.min()
    # a 1-D feature is one row: divided by its total, as DGL's feat.sum(-1)
    np.testing.assert_allclose(h.edges["plays"].data["e"], e / max(e.sum(), 1))
    h = RowFeatNormalizer(node_feat_names=["x"])(g)
    x = np.asarray(g.nodes["game"].data["x"])
    np.testing.assert_allclose(
        h.nodes["game"].data["x"], x / np.maximum(x.sum(-1, keepdims=True), 1)
    )
    _assert_unchanged(g, snap)
    with pytest.raises(KeyError, match="RowFeatNormalizer: no node feature 'nope'"):
        RowFeatNormalizer(node_feat_names=["nope"])(g)


def test_feat_mask_masks_whole_columns():
    g = _hetero(np.int64)
    g.nodes["user"].data["x"] = np.random.default_rng(0).random((4, 400)) + 1
    snap = _snapshot(g)
    h = FeatMask(p=0.3, node_feat_names=["x"], seed=1)(g)
    x = h.nodes["user"].data["x"]
    masked = (x == 0).all(0)
    assert np.array_equal((x == 0).any(0), masked)  # whole columns only
    np.testing.assert_array_equal(x[:, ~masked], g.nodes["user"].data["x"][:, ~masked])
    assert abs(masked.mean() - 0.3) < 0.08
    assert (
        FeatMask(p=0.0, node_feat_names=["x"])(g).nodes["user"].data["x"]
        is g.nodes["user"].data["x"]
    )
    _assert_unchanged(g, snap)
    with pytest.raises(ValueError, match="FeatMask: p"):
        FeatMask(p=1.5)


# ---------------------------------------------------------------- random structure


@pytest.mark.parametrize("idtype", IDTYPES)
def test_node_shuffle_permutes_rows(idtype):
    g = _hetero(idtype)
    g.nodes["game"].data["y"] = np.arange(3)
    snap = _snapshot(g)
    h = NodeShuffle(seed=0)(g)
    x, hx = np.asarray(g.nodes["user"].data["x"]), np.asarray(h.nodes["user"].data["x"])
    assert sorted(map(tuple, hx)) == sorted(map(tuple, x))
    assert sorted(h.nodes["game"].data["y"]) == [0, 1, 2]
    assert _edges(h, "plays") == _edges(g, "plays")
    _assert_unchanged(g, snap)
    t = NodeShuffle(seed=0)
    draws = {tuple(np.asarray(t(g).nodes["user"].data["x"])[:, 0]) for _ in range(20)}
    assert len(draws) > 1


@pytest.mark.parametrize("idtype", IDTYPES)
def test_drop_node(idtype):
    rng = np.random.default_rng(0)
    n = 4000
    s, d = rng.integers(0, n, 12000), rng.integers(0, n, 12000)
    g = graph((s.astype(idtype), d.astype(idtype)), num_nodes=n)
    g.ndata["id"] = np.arange(n)
    g.edata["eid"] = np.arange(12000)
    snap = _snapshot(g)
    h = DropNode(p=0.3, seed=0)(g)
    kept = np.asarray(h.ndata["id"])
    assert abs(len(kept) / n - 0.7) < 0.03
    assert np.all(np.diff(kept) > 0)
    keep = np.zeros(n, bool)
    keep[kept] = True
    want = np.nonzero(keep[s] & keep[d])[0]
    want = want[np.argsort(s[want], kind="stable")]  # DGL's remove_nodes: by source
    np.testing.assert_array_equal(h.edata["eid"], want)
    hs, hd = (np.asarray(x) for x in h.edges())
    np.testing.assert_array_equal(kept[hs], s[want])
    np.testing.assert_array_equal(kept[hd], d[want])
    assert h.idtype == idtype
    _assert_unchanged(g, snap)
    assert DropNode(p=0.0)(g).num_nodes() == n
    assert DropNode(p=1.0, seed=0)(g).num_nodes() == 0
    hh = DropNode(p=0.5, seed=0)(_hetero(idtype))
    assert all(hh.num_nodes(t) <= 4 for t in hh.ntypes)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_drop_edge(idtype):
    rng = np.random.default_rng(0)
    g = graph(
        (rng.integers(0, 50, 10000).astype(idtype), rng.integers(0, 50, 10000).astype(idtype))
    )
    g.edata["eid"] = np.arange(10000)
    snap = _snapshot(g)
    h = DropEdge(p=0.25, seed=3)(g)
    kept = np.asarray(h.edata["eid"])
    assert abs(len(kept) / 10000 - 0.75) < 0.03
    assert np.all(np.diff(kept) > 0)
    s, d = (np.asarray(x) for x in g.edges())
    assert _edges(h) == (s[kept].tolist(), d[kept].tolist())
    assert h.num_nodes() == g.num_nodes()
    _assert_unchanged(g, snap)
    hh = DropEdge(p=1.0, seed=0)(_hetero(idtype))
    assert all(hh.num_edges(c) == 0 for c in hh.canonical_etypes)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_add_edge(idtype):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddEdge(ratio=0.5, seed=0)(g)
    for c in g.canonical_etypes:
        m = g.num_edges(c)
        assert h.num_edges(c) == m + int(m * 0.5)
        hs, hd = (np.asarray(x) for x in h.edges(etype=c))
        s, d = (np.asarray(x) for x in g.edges(etype=c))
        np.testing.assert_array_equal(hs[:m], s)
        np.testing.assert_array_equal(hd[:m], d)
        assert hs.max() < g.num_nodes(c[0]) and hd.max() < g.num_nodes(c[2])
        for k in g.edges[c].data:
            np.testing.assert_array_equal(h.edges[c].data[k][m:], 0)
    assert {t: h.num_nodes(t) for t in h.ntypes} == {t: g.num_nodes(t) for t in g.ntypes}
    assert h.idtype == idtype
    _assert_unchanged(g, snap)
    e = graph((np.zeros(0, idtype), np.zeros(0, idtype)), num_nodes=3)
    assert AddEdge(0.5, seed=0)(e).num_edges() == 0


# ---------------------------------------------------------------- errors


def test_bad_input_errors():
    g = graph((np.array([0]), np.array([1])))
    hg = _hetero(np.int64)
    with pytest.raises(ValueError, match="DropNode: p"):
        DropNode(p=-0.1)
    with pytest.raises(TypeError, match="DropEdge: p"):
        DropEdge(p="a")
    with pytest.raises(ValueError, match="AddEdge: ratio"):
        AddEdge(ratio=-1)
    with pytest.raises(ValueError, match="KHopGraph: k"):
        KHopGraph(-1)  # k=0 is A ** 0 (self-loops), as DGL
    with pytest.raises(TypeError, match="SVDPE: k"):
        SVDPE(2.5)
    with pytest.raises(ValueError, match="SIGNDiffusion: diffuse_op"):
        SIGNDiffusion(2, diffuse_op="abc")
    with pytest.raises(KeyError, match="SIGNDiffusion: .*in_feat_name"):
        SIGNDiffusion(2)(g)
    with pytest.raises(ValueError, match="ToSimple: aggregator"):
        ToSimple(aggregator="max")
    with pytest.raises(TypeError, match="AddReverse: copy_edata"):
        AddReverse(copy_edata="yes")
    with pytest.raises(TypeError, match="AddSelfLoop: allow_duplicate"):
        AddSelfLoop(allow_duplicate=None)
    with pytest.raises(ValueError, match="AddSelfLoop: fill_data"):
        AddSelfLoop(fill_data="median")
    with pytest.raises(TypeError, match="AddSelfLoop: edge_feat_names"):
        AddSelfLoop(edge_feat_names="e")
    with pytest.raises(ValueError, match="PPR: avg_degree"):
        PPR(avg_degree=0)
    with pytest.raises(TypeError, match="HeatKernel: t"):
        HeatKernel(t="x")
    with pytest.raises(ValueError, match="GDC: coefs"):
        GDC([])
    with pytest.raises(TypeError, match="AddMetaPaths: metapaths"):
        AddMetaPaths([("a", "b")])
    with pytest.raises(TypeError, match="FeatMask: node_feat_names"):
        FeatMask(node_feat_names="x")
    for t in (
        PPR(),
        HeatKernel(),
        GDC([1.0]),
        ToLevi(),
        SIGNDiffusion(1),
        SVDPE(1),
        LapPE(1),
        RandomWalkPE(1),
        LineGraph(),
        KHopGraph(1),
    ):
        with pytest.raises(ValueError, match=type(t).__name__ + ": the graph must be homogeneous"):
            t(hg)
    with pytest.raises(TypeError, match="PPR: edge feature 'w'"):
        bad = graph((np.array([0]), np.array([1])))
        bad.edata["w"] = np.array([True])  # integers are taken as float32, as DGL
        PPR()(bad)
