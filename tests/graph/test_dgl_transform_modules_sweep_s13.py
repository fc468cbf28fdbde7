"""Parity sweep of DGL's module-style transforms (``dgl.transforms.*``) on options and
heterographs that tests/graph/test_dgl_transform_modules.py does not reach.

DGL is not installed: the expected values are NumPy transcriptions of
dmlc/dgl python/dgl/transforms/module.py (AddReverse, AddSelfLoop, RemoveSelfLoop,
AddMetaPaths, DropNode / DropEdge / AddEdge, FeatMask, RowFeatNormalizer, ToLevi, SVDPE,
PPR / HeatKernel / GDC, SIGNDiffusion; ``update_graph_structure`` rebuilds through
``dgl.heterograph``, whose node and canonical edge types are sorted,
heterograph_index.create_metagraph_index) and python/dgl/transforms/functional.py
(``svd_pe``, ``khop_graph``). The random transforms are checked on their invariants.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph
from arraygnn.graph.diffusion_transforms import GDC, PPR, HeatKernel, SIGNDiffusion
from arraygnn.graph.transform_modules import (
    SVDPE,
    AddEdge,
    AddMetaPaths,
    AddReverse,
    AddSelfLoop,
    Compose,
    DropEdge,
    DropNode,
    FeatMask,
    KHopGraph,
    RemoveSelfLoop,
    RowFeatNormalizer,
    ToLevi,
    ToSimple,
)

IDTYPES = [np.int32, np.int64]


def _np(x):
    return np.asarray(x)


def _hetero(idtype=np.int64):
    """Three node types; same-type relations with loops / parallel edges, a bipartite one."""
    a = lambda *v: np.array(v, dtype=idtype)  # noqa: E731
    g = heterograph(
        {
            ("user", "follows", "user"): (a(0, 1, 1, 2, 2), a(1, 1, 2, 2, 0)),
            ("user", "plays", "game"): (a(0, 1, 2, 2), a(0, 0, 1, 2)),
            ("game", "sim", "game"): (a(0, 2), a(2, 2)),
            ("game", "by", "dev"): (a(0, 1), a(0, 0)),
        },
        num_nodes_dict={"user": 4, "game": 3, "dev": 2},
    )
    rng = np.random.default_rng(0)
    g.nodes["user"].data["x"] = rng.random((4, 3)).astype(np.float32)
    g.nodes["game"].data["x"] = rng.random((3, 3))
    g.nodes["game"].data["lab"] = np.array([2, 0, 1])
    g.edges["follows"].data["e"] = rng.random((5, 2)).astype(np.float32)
    g.edges["follows"].data["flag"] = np.array([True, False, True, True, False])
    g.edges["plays"].data["e"] = rng.random((4, 2)).astype(np.float32)
    g.edges["sim"].data["e"] = rng.random((2, 2)).astype(np.float32)
    return g


def _snapshot(g):
    snap = {}
    for c in g.canonical_etypes:
        snap[c] = [_np(a).copy() for a in g.edges(etype=c)]
        snap[c] += [(k, _np(v).copy()) for k, v in sorted(g.edges[c].data.items())]
    for t in g.ntypes:
        snap[t] = [(k, _np(v).copy()) for k, v in sorted(g.nodes[t].data.items())]
    return snap


def _assert_same_snapshot(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert len(a[k]) == len(b[k]), k
        for x, y in zip(a[k], b[k]):
            if isinstance(x, tuple):
                assert x[0] == y[0]
                np.testing.assert_array_equal(x[1], y[1])
            else:
                np.testing.assert_array_equal(x, y)


def _rels(g):
    return {c: tuple(_np(a) for a in g.edges(etype=c)) for c in g.canonical_etypes}


def _efeats(g):
    return {c: {k: _np(v) for k, v in g.edges[c].data.items()} for c in g.canonical_etypes}


def _assert_graph(h, rels, efeats, g, idtype):
    """``h`` has exactly the relations / edge features given, ``g``'s node types, counts and
    node features, and ``idtype``; the edge types in DGL's sorted order."""
    assert h.canonical_etypes == sorted(rels), (h.canonical_etypes, sorted(rels))
    assert h.ntypes == g.ntypes and h.idtype == idtype
    for t in g.ntypes:
        assert h.num_nodes(t) == g.num_nodes(t)
        assert sorted(h.nodes[t].data.keys()) == sorted(g.nodes[t].data.keys())
        for k, v in g.nodes[t].data.items():
            np.testing.assert_array_equal(h.nodes[t].data[k], v)
    for c, (s, d) in rels.items():
        got = h.edges(etype=c)
        np.testing.assert_array_equal(_np(got[0]), s, err_msg=str(c))
        np.testing.assert_array_equal(_np(got[1]), d, err_msg=str(c))
        assert _np(got[0]).dtype == idtype
        want = efeats.get(c, {})
        assert sorted(h.edges[c].data.keys()) == sorted(want), c
        for k, v in want.items():
            x = _np(h.edges[c].data[k])
            assert x.dtype == v.dtype, (c, k)
            np.testing.assert_array_equal(x, v, err_msg=f"{c} {k}")


# ---------------------------------------------------------------- AddReverse


def _ref_add_reverse(g, copy_edata, sym_new_etype):
    rels, feats = {}, {}
    for c, (s, d) in _rels(g).items():
        u, e, v = c
        f = _efeats(g)[c]
        if u == v and not sym_new_etype:
            rels[c] = (np.concatenate([s, d]), np.concatenate([d, s]))
            feats[c] = {
                k: np.concatenate([x, x if copy_edata else np.zeros_like(x)]) for k, x in f.items()
            }
        else:
            rels[c] = (s, d)
            rels[(v, f"rev_{e}", u)] = (d, s)
            feats[c] = f
            feats[(v, f"rev_{e}", u)] = dict(f) if copy_edata else {}
    return rels, feats


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("copy_edata", [False, True])
@pytest.mark.parametrize("sym_new_etype", [False, True])
def test_add_reverse_hetero_options_as_dgl(idtype, copy_edata, sym_new_etype):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddReverse(copy_edata=copy_edata, sym_new_etype=sym_new_etype)(g)
    rels, feats = _ref_add_reverse(g, copy_edata, sym_new_etype)
    _assert_graph(h, rels, feats, g, idtype)
    _assert_same_snapshot(snap, _snapshot(g))


# ---------------------------------------------------------------- AddSelfLoop / RemoveSelfLoop


def _ref_self_loop(g, allow_duplicate, new_etypes, names, fill):
    rels, feats = _rels(g), _efeats(g)
    for c in list(rels):
        u, _, v = c
        if u != v:
            continue
        s, d = rels[c]
        f = feats[c]
        if not allow_duplicate:
            keep = s != d
            s, d, f = s[keep], d[keep], {k: x[keep] for k, x in f.items()}
        n = g.num_nodes(u)
        loops = np.arange(n, dtype=s.dtype)
        rels[c] = (np.concatenate([s, loops]), np.concatenate([d, loops]))
        out = {}
        for k, x in f.items():
            if names is None or k in names:
                new = np.full((n, *x.shape[1:]), fill, dtype=x.dtype)
            else:
                new = np.zeros((n, *x.shape[1:]), dtype=x.dtype)
            out[k] = np.concatenate([x, new])
        feats[c] = out
    if new_etypes:
        for t in g.ntypes:
            c = (t, "self", t)
            if c not in rels:  # DGL: the original edges overwrite the new 'self' type
                ids = np.arange(g.num_nodes(t), dtype=g.idtype)
                rels[c], feats[c] = (ids, ids), {}
    return rels, feats


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("allow_duplicate", [False, True])
@pytest.mark.parametrize("new_etypes", [False, True])
@pytest.mark.parametrize("names,fill", [(None, 1.0), (["e"], 2.5)])
def test_add_self_loop_hetero_options_as_dgl(idtype, allow_duplicate, new_etypes, names, fill):
    g = _hetero(idtype)
    del g.edges["follows"].data["flag"]
    snap = _snapshot(g)
    t = AddSelfLoop(allow_duplicate, new_etypes, edge_feat_names=names, fill_data=fill)
    h = t(g)
    rels, feats = _ref_self_loop(g, allow_duplicate, new_etypes, names, fill)
    _assert_graph(h, rels, feats, g, idtype)
    _assert_same_snapshot(snap, _snapshot(g))


@pytest.mark.parametrize("allow_duplicate", [False, True])
def test_add_self_loop_new_etypes_keeps_an_existing_self_type_as_dgl(allow_duplicate):
    # DGL builds the 'self' types first, then copies every existing edge type over them:
    # an edge type already named 'self' keeps its (self-looped) edges and features.
    a = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    g = heterograph(
        {("n", "self", "n"): (a(0, 1, 2), a(1, 2, 2)), ("n", "to", "m"): (a(0), a(1))},
        num_nodes_dict={"n": 3, "m": 2},
    )
    g.edges["self"].data["x"] = np.arange(6.0).reshape(3, 2)
    h = AddSelfLoop(allow_duplicate=allow_duplicate, new_etypes=True)(g)
    rels, feats = _ref_self_loop(g, allow_duplicate, True, None, 1.0)
    _assert_graph(h, rels, feats, g, np.int64)
    c = ("n", "self", "n")
    assert h.num_edges(c) == h.edges[c].data["x"].shape[0] == 3 + (3 if allow_duplicate else 2)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_self_loop_hetero_as_dgl(idtype):
    g = _hetero(idtype)
    h = RemoveSelfLoop()(g)
    rels, feats = _rels(g), _efeats(g)
    for c, (s, d) in list(rels.items()):
        if c[0] == c[2]:
            keep = s != d
            rels[c] = (s[keep], d[keep])
            feats[c] = {k: v[keep] for k, v in feats[c].items()}
    _assert_graph(h, rels, feats, g, idtype)


# ---------------------------------------------------------------- AddMetaPaths / ToSimple / KHop


@pytest.mark.parametrize("keep", [False, True])
def test_add_metapaths_hetero_features_as_dgl(keep):
    g = _hetero()
    path = [("user", "follows", "user"), ("user", "plays", "game"), ("game", "by", "dev")]
    h = AddMetaPaths({"udev": path, "ug": path[1:2]}, keep_orig_edges=keep)(g)
    # metapath_reachable_graph: the boolean product of the adjacencies, edges by (src, dst)
    adj = {}
    for c, (s, d) in _rels(g).items():
        m = np.zeros((g.num_nodes(c[0]), g.num_nodes(c[2])), dtype=np.int64)
        m[s, d] = 1
        adj[c] = m
    reach = (adj[path[0]] @ adj[path[1]] @ adj[path[2]]) > 0
    rels = {
        ("user", "udev", "dev"): np.nonzero(reach),
        ("user", "ug", "game"): np.nonzero(adj[path[1]]),
    }
    feats = {}
    if keep:
        rels.update(_rels(g))
        feats = _efeats(g)
    _assert_graph(h, rels, feats, g, np.int64)


@pytest.mark.parametrize("return_counts", [None, "cnt"])
def test_to_simple_return_counts_hetero(return_counts):
    g = _hetero()
    del g.edges["follows"].data["flag"]
    h = ToSimple(return_counts=return_counts)(g)
    for c, (s, d) in _rels(g).items():
        pairs, counts = np.unique(np.stack([s, d], 1), axis=0, return_counts=True)
        np.testing.assert_array_equal(np.stack([_np(x) for x in h.edges(etype=c)], 1), pairs)
        keys = set(h.edges[c].data.keys())
        want = set(g.edges[c].data.keys()) | ({return_counts} if return_counts else set())
        assert keys == want, c
        if return_counts:
            np.testing.assert_array_equal(h.edges[c].data[return_counts], counts)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_khop_graph_multiplicity_and_ndata_as_dgl(k):
    src = np.array([0, 0, 1, 2, 2, 3, 3])
    dst = np.array([1, 1, 2, 3, 0, 3, 4])
    g = graph((src, dst), num_nodes=6)
    g.ndata["x"] = np.arange(12.0).reshape(6, 2)
    g.edata["e"] = np.ones(7)
    h = KHopGraph(k)(g)
    a = np.zeros((6, 6), dtype=np.int64)
    np.add.at(a, (src, dst), 1)
    ak = np.linalg.matrix_power(a, k)
    r, c = np.nonzero(ak)
    want = sorted(zip(np.repeat(r, ak[r, c]).tolist(), np.repeat(c, ak[r, c]).tolist()))
    got = sorted(zip(_np(h.edges()[0]).tolist(), _np(h.edges()[1]).tolist()))
    assert got == want
    assert h.num_nodes() == 6 and list(h.edata.keys()) == []
    np.testing.assert_array_equal(h.ndata["x"], g.ndata["x"])


# ---------------------------------------------------------------- random structure transforms


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("cls", [DropNode, DropEdge])
def test_drop_p0_identity_p1_empty_hetero(idtype, cls):
    g = _hetero(idtype)
    snap = _snapshot(g)
    same = cls(p=0.0, seed=0)(g)
    _assert_graph(same, _rels(g), _efeats(g), g, idtype)
    empty = cls(p=1.0, seed=0)(g)
    assert empty.canonical_etypes == g.canonical_etypes and empty.idtype == idtype
    for c in g.canonical_etypes:
        assert empty.num_edges(c) == 0
        for k, v in g.edges[c].data.items():
            assert empty.edges[c].data[k].shape == (0, *v.shape[1:])
    for t in g.ntypes:
        want = 0 if cls is DropNode else g.num_nodes(t)
        assert empty.num_nodes(t) == want
        for k, v in g.nodes[t].data.items():
            assert empty.nodes[t].data[k].shape == (want, *v.shape[1:])
    _assert_same_snapshot(snap, _snapshot(g))


@pytest.mark.parametrize("idtype", IDTYPES)
def test_drop_node_seeded_invariants(idtype):
    g = _hetero(idtype)
    for t in g.ntypes:
        g.nodes[t].data["nid"] = np.arange(g.num_nodes(t))
    for c in g.canonical_etypes:
        g.edges[c].data["eid"] = np.arange(g.num_edges(c))
    t1, t2 = DropNode(p=0.5, seed=3), DropNode(p=0.5, seed=3)
    for _ in range(3):
        h, h2 = t1(g), t2(g)
        _assert_same_snapshot(_snapshot(h), _snapshot(h2))  # same seed, same sequence
        for ty in g.ntypes:
            nid = _np(h.nodes[ty].data["nid"])
            assert np.all(np.diff(nid) > 0)  # kept nodes relabelled in id order
        for c in g.canonical_etypes:
            s0, d0 = (_np(x) for x in g.edges(etype=c))
            s, d = (_np(x) for x in h.edges(etype=c))
            eid = _np(h.edges[c].data["eid"])
            assert np.all(np.diff(eid) > 0)
            nu, nv = _np(h.nodes[c[0]].data["nid"]), _np(h.nodes[c[2]].data["nid"])
            np.testing.assert_array_equal(nu[s], s0[eid])
            np.testing.assert_array_equal(nv[d], d0[eid])
            # every edge whose two ends survive is kept
            alive = np.isin(s0, nu) & np.isin(d0, nv)
            np.testing.assert_array_equal(np.nonzero(alive)[0], eid)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_drop_edge_seeded_invariants(idtype):
    g = _hetero(idtype)
    for c in g.canonical_etypes:
        g.edges[c].data["eid"] = np.arange(g.num_edges(c))
    h, h2 = DropEdge(p=0.5, seed=7)(g), DropEdge(p=0.5, seed=7)(g)
    _assert_same_snapshot(_snapshot(h), _snapshot(h2))
    for c in g.canonical_etypes:
        eid = _np(h.edges[c].data["eid"])
        assert np.all(np.diff(eid) > 0)
        s0, d0 = (_np(x) for x in g.edges(etype=c))
        np.testing.assert_array_equal(_np(h.edges(etype=c)[0]), s0[eid])
        np.testing.assert_array_equal(_np(h.edges(etype=c)[1]), d0[eid])
        for k, v in g.edges[c].data.items():
            np.testing.assert_array_equal(h.edges[c].data[k], _np(v)[eid])
    for t in g.ntypes:
        assert h.num_nodes(t) == g.num_nodes(t)


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("ratio", [0.0, 0.5, 1.5])
def test_add_edge_ratio_hetero(idtype, ratio):
    g = _hetero(idtype)
    snap = _snapshot(g)
    h = AddEdge(ratio=ratio, seed=1)(g)
    _assert_same_snapshot(_snapshot(AddEdge(ratio=ratio, seed=1)(g)), _snapshot(h))
    for c in g.canonical_etypes:
        e = g.num_edges(c)
        add = int(e * ratio)  # DGL: int(num_edges * ratio) new edges per edge type
        assert h.num_edges(c) == e + add
        s, d = (_np(x) for x in h.edges(etype=c))
        assert s.dtype == idtype
        np.testing.assert_array_equal(s[:e], _np(g.edges(etype=c)[0]))
        np.testing.assert_array_equal(d[:e], _np(g.edges(etype=c)[1]))
        assert np.all((s[e:] >= 0) & (s[e:] < g.num_nodes(c[0])))
        assert np.all((d[e:] >= 0) & (d[e:] < g.num_nodes(c[2])))
        for k, v in g.edges[c].data.items():
            x = _np(h.edges[c].data[k])
            assert x.dtype == _np(v).dtype
            np.testing.assert_array_equal(x[:e], v)
            assert not np.any(x[e:])  # new edges get zero features
    _assert_same_snapshot(snap, _snapshot(g))


# ---------------------------------------------------------------- feature transforms


@pytest.mark.parametrize("p", [0.0, 1.0, 0.5])
@pytest.mark.parametrize("which", ["node", "edge", "both"])
def test_feat_mask_options_hetero(p, which):
    g = _hetero()
    g.nodes["user"].data["ix"] = np.arange(1, 13).reshape(4, 3)  # integer columns too
    snap = _snapshot(g)
    nn = ["x", "ix"] if which in ("node", "both") else None
    en = ["e"] if which in ("edge", "both") else None
    h = FeatMask(p=p, node_feat_names=nn, edge_feat_names=en, seed=0)(g)
    _assert_same_snapshot(snap, _snapshot(g))
    named = []
    for t in g.ntypes:
        for k, v in g.nodes[t].data.items():
            named.append((h.nodes[t].data[k], _np(v), nn is not None and k in nn))
    for c in g.canonical_etypes:
        for k, v in g.edges[c].data.items():
            named.append((h.edges[c].data[k], _np(v), en is not None and k in en))
    for got, x, masked in named:
        got = _np(got)
        assert got.dtype == x.dtype and got.shape == x.shape
        if not masked or p == 0.0:
            np.testing.assert_array_equal(got, x)
        elif p == 1.0:
            assert not np.any(got)
        else:  # whole columns: each column is either zero or the original
            for j in range(x.shape[1]):
                assert not np.any(got[:, j]) or np.array_equal(got[:, j], x[:, j])


def _ref_row_norm(x, subtract_min):
    if subtract_min:
        x = x - x.min()
    return x / np.maximum(x.sum(-1, keepdims=True), 1.0)


@pytest.mark.parametrize("subtract_min", [False, True])
@pytest.mark.parametrize("which", ["node", "edge"])
def test_row_feat_normalizer_hetero_as_dgl(subtract_min, which):
    g = _hetero()
    g.nodes["user"].data["x"] = g.nodes["user"].data["x"] * 4 - 3  # negatives, row sums < 1
    snap = _snapshot(g)
    nn = ["x"] if which == "node" else None
    en = ["e"] if which == "edge" else None
    h = RowFeatNormalizer(subtract_min=subtract_min, node_feat_names=nn, edge_feat_names=en)(g)
    _assert_same_snapshot(snap, _snapshot(g))
    for t in g.ntypes:
        for k, v in g.nodes[t].data.items():
            want = _ref_row_norm(_np(v), subtract_min) if nn and k in nn else _np(v)
            got = _np(h.nodes[t].data[k])
            assert got.dtype == _np(v).dtype
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"{t} {k}")
    for c in g.canonical_etypes:
        for k, v in g.edges[c].data.items():
            want = _ref_row_norm(_np(v), subtract_min) if en and k in en else _np(v)
            np.testing.assert_allclose(_np(h.edges[c].data[k]), want, rtol=1e-6)


def test_feature_transform_errors():
    g = _hetero()
    with pytest.raises(KeyError, match="FeatMask"):
        FeatMask(p=0.5, node_feat_names=["nope"])(g)
    with pytest.raises(KeyError, match="RowFeatNormalizer"):
        RowFeatNormalizer(edge_feat_names=["nope"])(g)
    with pytest.raises(TypeError, match="RowFeatNormalizer"):
        RowFeatNormalizer(node_feat_names=["lab"])(g)
    with pytest.raises(TypeError, match="node_feat_names"):
        FeatMask(node_feat_names="x")
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="p"):
            DropEdge(p=bad)
    with pytest.raises(TypeError, match="p"):
        DropNode(p="0.5")
    with pytest.raises(ValueError, match="ratio"):
        AddEdge(ratio=-1)


# ---------------------------------------------------------------- ToLevi / SVDPE


@pytest.mark.parametrize("idtype", IDTYPES)
def test_to_levi_types_and_features_as_dgl(idtype):
    src = np.array([2, 0, 1, 1], dtype=idtype)
    dst = np.array([0, 1, 1, 2], dtype=idtype)
    g = graph((src, dst), num_nodes=3)
    g.ndata["h"] = np.arange(6.0).reshape(3, 2)
    g.edata["w"] = np.array([0.5, 1.5, 2.5, 3.5])
    h = ToLevi()(g)
    assert h.ntypes == ["edge", "node"]  # DGL: sorted node types
    assert h.canonical_etypes == [("edge", "e2n", "node"), ("node", "n2e", "edge")]
    np.testing.assert_array_equal(_np(h.edges(etype="n2e")[0]), src)
    np.testing.assert_array_equal(_np(h.edges(etype="n2e")[1]), np.arange(4))
    np.testing.assert_array_equal(_np(h.edges(etype="e2n")[1]), dst)
    np.testing.assert_array_equal(h.nodes["node"].data["h"], g.ndata["h"])
    np.testing.assert_array_equal(h.nodes["edge"].data["w"], g.edata["w"])
    assert h.idtype == idtype


def _ref_svd_pe(src, dst, n, k):
    import scipy.linalg

    a = np.zeros((n, n))
    np.add.at(a, (src, dst), 1)
    u, d, vh = scipy.linalg.svd(a)
    m = min(n, k)
    enc = np.concatenate([u[:, :m] * np.sqrt(d[:m]), vh.T[:, :m] * np.sqrt(d[:m])], 1)
    enc = enc.astype(np.float32)
    if n < k:  # DGL pads after [U, V], not after each half
        enc = np.concatenate([enc, np.zeros((n, 2 * (k - n)), np.float32)], 1)
    return enc


@pytest.mark.parametrize("k,padding", [(1, False), (4, False), (6, True), (9, True)])
def test_svdpe_no_flip_exact_as_dgl(k, padding):
    pytest.importorskip("scipy")
    src = np.array([0, 1, 2, 3, 3, 4, 0])
    dst = np.array([1, 2, 3, 0, 4, 4, 1])
    g = graph((src, dst), num_nodes=5)
    h = SVDPE(k, feat_name="pe", padding=padding, random_flip=False)(g)
    got = _np(h.ndata["pe"])
    want = _ref_svd_pe(src, dst, 5, k)
    assert got.shape == (5, 2 * k) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert "svd_pe" not in h.ndata


# ---------------------------------------------------------------- diffusion options


def _dense(src, dst, n, w):
    a = np.zeros((n, n), np.float32)
    a[dst, src] = w
    return a


def _ref_sparsify(diff, eps, avg_degree):
    n = diff.shape[0]
    if eps is None:
        eps = -np.inf if avg_degree > n else np.sort(diff.ravel())[::-1][avg_degree * n - 1]
    dst, src = np.nonzero(diff >= eps)
    return src, dst, diff[dst, src]


@pytest.mark.parametrize("kind", ["ppr", "heat", "gdc"])
@pytest.mark.parametrize("eps,avg_degree", [(None, 2), (0.05, 5), (None, 9)])
def test_diffusions_custom_weight_name_as_dgl(kind, eps, avg_degree):
    pytest.importorskip("scipy")
    src = np.array([0, 1, 2, 3, 4, 1, 4])
    dst = np.array([1, 2, 3, 4, 0, 3, 1])
    n = 6  # node 5 isolated
    g = graph((src, dst), num_nodes=n)
    w = np.array([0.5, 1.0, 0.25, 0.75, 0.4, 0.6, 0.9], np.float32)
    g.edata["ew"] = w
    g.ndata["x"] = np.arange(n, dtype=np.float32)
    if kind == "ppr":
        t = PPR(alpha=0.3, eweight_name="ew", eps=eps, avg_degree=avg_degree)
        m = np.eye(n, dtype=np.float32) + _dense(src, dst, n, np.float32(0.3 - 1) * w)
        diff = np.float32(0.3) * np.linalg.inv(m)
    elif kind == "heat":
        from scipy.linalg import expm

        t = HeatKernel(t=1.5, eweight_name="ew", eps=eps, avg_degree=avg_degree)
        m = _dense(src, dst, n, np.float32(1.5) * w) - np.float32(1.5) * np.eye(n)
        diff = expm(m.astype(np.float32)).astype(np.float32)
    else:
        t = GDC([0.2, 0.5, 0.3], eweight_name="ew", eps=eps, avg_degree=avg_degree)
        a = _dense(src, dst, n, w)
        diff = 0.2 * np.eye(n) + 0.5 * a + 0.3 * a @ a
    h = t(g)
    s, d, val = _ref_sparsify(diff.astype(np.float32), eps, avg_degree)
    np.testing.assert_array_equal(_np(h.edges()[0]), s)
    np.testing.assert_array_equal(_np(h.edges()[1]), d)
    np.testing.assert_allclose(h.edata["ew"], val, rtol=1e-4, atol=1e-6)
    assert list(h.edata.keys()) == ["ew"] and "w" not in h.edata
    np.testing.assert_array_equal(h.ndata["x"], g.ndata["x"])


def _ref_sign(src, dst, n, x, k, op, w, alpha):
    """DGL's SIGNDiffusion as edge-wise message passing (so a nan row of a node without
    in-edges only reaches its out-neighbours, as in DGL's update_all)."""
    ew = np.ones(len(src)) if w is None else w
    deg = np.zeros(n)
    np.add.at(deg, dst, ew)
    if op in ("gcn", "ppr"):
        with np.errstate(divide="ignore"):
            inv = np.where(deg > 0, deg**-0.5, 0.0)
        ew = inv[src] * ew * inv[dst]

    def step(h):
        out = np.zeros_like(h)
        np.add.at(out, dst, ew[:, None] * h[src])
        if op == "rw":
            if w is None:
                return out / np.maximum(deg, 1)[:, None]  # fn.mean: 0 without in-edges
            with np.errstate(divide="ignore", invalid="ignore"):
                return out / deg[:, None]
        return out

    out, h = [], x
    for _ in range(k):
        h = step(h)
        if op == "ppr":
            h = (1 - alpha) * h + alpha * x
        out.append(h)
    return out


@pytest.mark.parametrize("op", ["raw", "rw", "gcn", "ppr"])
@pytest.mark.parametrize("wshape", ["none", "1d", "2d"])
def test_sign_diffusion_column_weights_and_names(op, wshape):
    src = np.array([0, 1, 2, 3, 1, 2])
    dst = np.array([1, 2, 3, 0, 3, 2])
    n = 5
    g = graph((src, dst), num_nodes=n)
    x = np.random.default_rng(4).random((n, 3))
    g.ndata["inp"] = x
    w = np.array([0.5, 1.0, 2.0, 1.5, 0.3, 0.7])
    if wshape != "none":
        g.edata["ew"] = w if wshape == "1d" else w[:, None]
    h = SIGNDiffusion(
        2, in_feat_name="inp", out_feat_name="o", eweight_name="ew", diffuse_op=op, alpha=0.5
    )(g)
    want = _ref_sign(src, dst, n, x, 2, op, None if wshape == "none" else w, 0.5)
    for i, ref in enumerate(want, 1):
        got = _np(h.ndata[f"o_{i}"])
        assert got.shape == x.shape and got.dtype == x.dtype
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-12, equal_nan=True)
    assert set(h.ndata.keys()) == {"inp", "o_1", "o_2"}


def test_compose_of_module_transforms_matches_sequence():
    g = _hetero()
    t = Compose([RemoveSelfLoop(), AddReverse(copy_edata=True), ToSimple(return_counts="n")])
    want = ToSimple(return_counts="n")(AddReverse(copy_edata=True)(RemoveSelfLoop()(g)))
    _assert_same_snapshot(_snapshot(t(g)), _snapshot(want))
    assert Compose([])(g) is g


def test_feat_mask_three_axis_feature_masks_the_last_axis():
    # documented difference: DGL's feat[:, mask] indexes axis 1 with a mask sized for
    # axis -1 (an error unless they match); here whole last-axis columns are zeroed
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    x = np.arange(1.0, 1 + 3 * 2 * 4).reshape(3, 2, 4)
    g.ndata["x"] = x
    got = _np(FeatMask(p=0.5, node_feat_names=["x"], seed=5)(g).ndata["x"])
    zero = ~np.any(got, axis=(0, 1))
    np.testing.assert_array_equal(got[..., ~zero], x[..., ~zero])
    with pytest.raises(ValueError, match="FeatMask"):
        g.ndata["v"] = np.ones(3)
        FeatMask(p=0.5, node_feat_names=["v"])(g)
