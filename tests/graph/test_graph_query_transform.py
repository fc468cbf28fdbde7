"""Edge lookups (``g.in_edges`` ... ``g.edge_ids``) and DGL's transforms (add / remove
self-loops, reverse, add_reverse_edges, to_simple, to_bidirected) against plain-Python
references over the labelled graph cases, plus DGL's documented examples."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    add_reverse_edges,
    add_self_loop,
    graph,
    heterograph,
    remove_self_loop,
    reverse,
    to_bidirected,
    to_block,
    to_simple,
)
from tests.graph._graph_cases import local_cases

CASES = local_cases()
IDS = [label for label, _ in CASES]


def _edges(g, etype=None):
    u, v = g.edges(etype=etype)
    return [(int(a), int(b)) for a, b in zip(u.tolist(), v.tolist())]


def _queries(rng, n, size=6):
    return rng.integers(0, n, size) if n else np.zeros(0, np.int64)


# ---------------------------------------------------------------------- lookups
@pytest.mark.parametrize("sorted_search", [False, True], ids=["search", "sorted-search"])
@pytest.mark.parametrize("label, g", CASES, ids=IDS)
def test_lookups_match_a_python_reference(label, g, sorted_search, monkeypatch):
    from arraygnn.graph import query

    # many NumPy queries are sorted before the binary search: force it on the small ones
    monkeypatch.setattr(query, "SORTED_SEARCH_MIN", 0 if sorted_search else 1 << 62)
    rng = np.random.default_rng(len(label))
    etype = g.canonical_etypes[0]
    s, _, d = etype
    pairs = _edges(g, etype)
    n_src, n_dst = g.num_nodes(s), g.num_nodes(d)
    v = _queries(rng, n_dst)
    u = _queries(rng, n_src)
    want_in = [(a, b, e) for q in v.tolist() for e, (a, b) in enumerate(pairs) if b == q]
    got = g.in_edges(v, form="all", etype=etype)
    assert list(zip(*[x.tolist() for x in got])) == want_in
    assert all(x.dtype == g.idtype for x in got)
    want_out = [(a, b, e) for q in u.tolist() for e, (a, b) in enumerate(pairs) if a == q]
    got = g.out_edges(u, form="all", etype=etype)
    assert list(zip(*[x.tolist() for x in got])) == want_out
    assert g.in_edges(v, form="eid", etype=etype).tolist() == [e for _, _, e in want_in]
    assert len(g.out_edges(u, etype=etype)) == 2
    for q in v[:2].tolist():
        assert g.predecessors(q, etype=etype).tolist() == [a for a, b in pairs if b == q]
    for q in u[:2].tolist():
        assert g.successors(q, etype=etype).tolist() == [b for a, b in pairs if a == q]
    if pairs:
        eid = rng.integers(0, len(pairs), 5)
        fu, fv = g.find_edges(eid, etype=etype)
        assert list(zip(fu.tolist(), fv.tolist())) == [pairs[e] for e in eid.tolist()]
    # pairs: half real edges, half random
    real = [pairs[i] for i in rng.integers(0, len(pairs), 4)] if pairs else []
    rand = list(zip(_queries(rng, n_src, 4).tolist(), _queries(rng, n_dst, 4).tolist()))
    qu = np.array([a for a, _ in real + rand], np.int64)
    qv = np.array([b for _, b in real + rand], np.int64)
    has = g.has_edges_between(qu, qv, etype=etype)
    assert has.dtype == bool and has.tolist() == [p in pairs for p in zip(qu.tolist(), qv.tolist())]
    inside = has
    eids = g.edge_ids(qu[inside], qv[inside], etype=etype)
    assert eids.tolist() == [pairs.index(p) for p in zip(qu[inside].tolist(), qv[inside].tolist())]
    au, av, ae = g.edge_ids(qu, qv, return_uv=True, etype=etype)
    qs = list(zip(qu.tolist(), qv.tolist()))
    want = [(a, b, e) for a, b in qs for e, p in enumerate(pairs) if p == (a, b)]
    assert list(zip(au.tolist(), av.tolist(), ae.tolist())) == want


def test_many_pair_queries_take_the_sorted_search():
    """Above SORTED_SEARCH_MIN NumPy queries are searched in sorted order: the same answers
    as one-by-one Python look-ups (duplicates, misses, parallel edges)."""
    rng = np.random.default_rng(3)
    n, e = 300, 5000
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    g = graph((src, dst), num_nodes=n)
    qu, qv = rng.integers(0, n, 9000), rng.integers(0, n, 9000)
    qu[::3], qv[::3] = src[:3000], dst[:3000]
    first: dict = {}
    for i, p in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        first.setdefault(p, i)
    pairs = list(zip(qu.tolist(), qv.tolist(), strict=True))
    assert g.has_edges_between(qu, qv).tolist() == [p in first for p in pairs]
    assert g.edge_ids(qu[::3], qv[::3]).tolist() == [first[p] for p in pairs[::3]]


def test_lookups_follow_dgls_examples():
    # the examples of DGLGraph.in_edges / edge_ids / has_edges_between / find_edges
    g = graph((np.array([0, 0, 1, 1]), np.array([1, 0, 2, 3])))
    assert [a.tolist() for a in g.in_edges(np.array([1, 0]))] == [[0, 0], [1, 0]]
    assert [a.tolist() for a in g.in_edges(np.array([1, 0]), form="all")] == [
        [0, 0],
        [1, 0],
        [0, 1],
    ]
    assert [a.tolist() for a in g.find_edges(np.array([0, 2]))] == [[0, 1], [1, 2]]
    assert g.has_edges_between(1, 2) is True
    assert g.has_edges_between(np.array([1, 2]), np.array([2, 3])).tolist() == [True, False]
    g = graph((np.array([0, 0, 1, 1, 1]), np.array([1, 0, 2, 3, 2])))
    assert g.edge_ids(0, 0) == 1 and isinstance(g.edge_ids(0, 0), int)
    assert g.edge_ids(np.array([1, 0]), np.array([3, 1])).tolist() == [3, 0]
    assert [a.tolist() for a in g.edge_ids([1, 0], [3, 1], return_uv=True)] == [
        [1, 0],
        [3, 1],
        [3, 0],
    ]
    g = graph((np.array([0, 0, 1, 1]), np.array([1, 1, 2, 3])))
    assert g.predecessors(1).tolist() == [0, 0] and g.successors(1).tolist() == [2, 3]
    hg = heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
            ("user", "plays", "game"): (np.array([3, 4]), np.array([5, 6])),
        }
    )
    assert hg.predecessors(1, etype="follows").tolist() == [0]
    assert [a.tolist() for a in hg.find_edges(np.array([1, 0]), "plays")] == [[4, 3], [6, 5]]
    assert [a.tolist() for a in hg.in_edges(np.array([1, 0]), etype="follows")] == [[0], [1]]


def test_lookups_name_bad_input():
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=4)
    with pytest.raises(ValueError, match=r"edge_ids: \(2, 0\) is not an edge"):
        g.edge_ids([0, 2], [1, 0])
    with pytest.raises(ValueError, match=r"contains id 7, outside \[0, 4\) \(4 nodes\)"):
        g.in_edges([7])
    with pytest.raises(ValueError, match=r"contains id -1"):
        g.has_edges_between([-1], [0])
    with pytest.raises(ValueError, match=r"contains id 2, outside \[0, 2\) \(2 edges\)"):
        g.find_edges([2])
    with pytest.raises(ValueError, match="u has 2 ids but v has 3"):
        g.has_edges_between([0, 1], [1, 2, 3])  # one id against many is DGL's broadcast
    with pytest.raises(ValueError, match="form must be 'uv', 'eid' or 'all'"):
        g.out_edges([0], form="csr")
    with pytest.raises(TypeError, match="v must be one node id"):
        g.successors([0])
    with pytest.raises(TypeError, match="must hold integers"):
        g.in_edges(np.array([0.5]))
    with pytest.raises(TypeError, match="edge ids must be integers"):
        g.find_edges(True)
    hg = heterograph({("a", "r", "b"): ([0], [0]), ("a", "s", "a"): ([0], [0])})
    with pytest.raises(ValueError, match="pass etype="):
        hg.in_edges([0])
    assert g.in_edges(np.zeros(0, np.int64))[0].shape == (0,)
    assert g.edge_ids(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0,)


def test_lookups_with_a_single_id_and_int32_graphs():
    g = graph((np.array([0, 1, 1], np.int32), np.array([1, 2, 2], np.int32)))
    u, v, e = g.in_edges(2, form="all")
    assert u.tolist() == [1, 1] and v.tolist() == [2, 2] and e.tolist() == [1, 2]
    assert u.dtype == v.dtype == e.dtype == np.int32
    assert g.edge_ids(1, 2) == 1  # the smallest of the parallel edges
    assert g.find_edges(0)[1].tolist() == [1]


# ---------------------------------------------------------------------- transforms
def _homogeneous_cases():
    return [(label, g) for label, g in CASES if g.is_homogeneous]


HOMO = _homogeneous_cases()


@pytest.mark.parametrize("label, g", HOMO, ids=[label for label, _ in HOMO])
def test_transforms_match_a_python_reference(label, g):
    rng = np.random.default_rng(len(label))
    n, pairs = g.num_nodes(), _edges(g)
    g.ndata["x"] = rng.random((n, 2))
    w = rng.random(len(pairs)).astype(np.float32)
    g.edata["w"] = w.copy()
    before = (g.edges()[0].copy(), g.edges()[1].copy(), g.edata["w"].copy())

    h = add_self_loop(g)
    assert _edges(h) == pairs + [(i, i) for i in range(n)]
    assert h.edata["w"].tolist() == w.tolist() + [1.0] * n and h.edata["w"].dtype == np.float32
    assert h.ndata["x"] is g.ndata["x"] and h.idtype == g.idtype
    h = add_self_loop(g, fill_data="mean")
    mean = [np.mean([w[e] for e, p in enumerate(pairs) if p[1] == i] or [0.0]) for i in range(n)]
    np.testing.assert_allclose(h.edata["w"][len(pairs) :], mean, rtol=1e-6)

    h = remove_self_loop(g)
    keep = [e for e, (a, b) in enumerate(pairs) if a != b]
    assert _edges(h) == [pairs[e] for e in keep]
    assert h.edata["w"].tolist() == w[keep].tolist() and EID not in h.edata

    h = reverse(g, copy_edata=True)
    assert _edges(h) == [(b, a) for a, b in pairs] and h.edata["w"] is g.edata["w"]
    assert "w" not in reverse(g).edata and "x" not in reverse(g, copy_ndata=False).ndata

    h = add_reverse_edges(g, copy_edata=True)
    back = [e for e, (a, b) in enumerate(pairs) if a != b]
    assert _edges(h) == pairs + [(pairs[e][1], pairs[e][0]) for e in back]
    assert h.edata["w"].tolist() == w.tolist() + w[back].tolist()
    assert len(_edges(add_reverse_edges(g, exclude_self=False))) == 2 * len(pairs)

    first: dict = {}
    for e in sorted(range(len(pairs)), key=lambda e: pairs[e]):
        first.setdefault(pairs[e], []).append(e)  # DGL's COOToSimple: pairs sorted
    h, wb = to_simple(g, writeback_mapping=True, copy_edata=True)
    assert _edges(h) == list(first)
    assert h.edata["count"].tolist() == [len(es) for es in first.values()]
    assert wb.tolist() == [list(first).index(p) for p in pairs]
    assert h.edata["w"].tolist() == [w[es[0]] for es in first.values()]
    h = to_simple(g, copy_edata=True, aggregator="sum", return_counts=None)
    np.testing.assert_allclose(h.edata["w"], [w[es].sum() for es in first.values()], rtol=1e-6)
    assert "count" not in h.edata

    both = pairs + [(b, a) for a, b in pairs if a != b]
    assert _edges(to_bidirected(g)) == sorted(set(both))
    assert "x" not in to_bidirected(g).ndata and "w" not in to_bidirected(g).edata
    # the input is untouched
    assert [a.tolist() for a in before] == [
        g.edges()[0].tolist(),
        g.edges()[1].tolist(),
        g.edata["w"].tolist(),
    ]


def test_transforms_follow_dgls_examples():
    # dgl.to_simple's example: pairs (sorted, as its C++), counts, write-back mapping
    g = graph((np.array([0, 1, 2, 1]), np.array([1, 2, 0, 2])))
    g.ndata["h"] = np.array([[0.0], [1.0], [2.0]])
    g.edata["h"] = np.array([[3.0], [4.0], [5.0], [6.0]])
    sg, wm = to_simple(g, return_counts="cnt", writeback_mapping=True)
    assert _edges(sg) == [(0, 1), (1, 2), (2, 0)] and sg.edata["cnt"].tolist() == [1, 2, 1]
    assert wm.tolist() == [0, 1, 2, 1] and "h" not in sg.edata and "h" in sg.ndata
    hg = heterograph(
        {
            ("user", "wins", "user"): (np.array([0, 2, 0, 2, 2]), np.array([1, 1, 2, 1, 0])),
            ("user", "plays", "game"): (np.array([1, 2, 1]), np.array([2, 1, 1])),
        }
    )
    sg, wm = to_simple(hg, copy_ndata=False, writeback_mapping=True)
    # the docstring shows first-appearance order [(0, 1), (2, 1), (0, 2), (2, 0)] (an older
    # DGL); its C++ COOToSimple (COOSort, then COOCoalesce) sorts the pairs
    assert _edges(sg, "wins") == [(0, 1), (0, 2), (2, 0), (2, 1)]
    assert wm[("user", "wins", "user")].tolist() == [0, 3, 1, 3, 2]
    assert sg.edges["plays"].data["count"].tolist() == [1, 1, 1]
    # dgl.to_bidirected's first examples (their order is an older DGL's; sorted now)
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])))
    assert _edges(to_bidirected(g)) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    g = graph((np.array([0, 1, 2, 0]), np.array([1, 2, 0, 2])))
    assert sorted(_edges(to_bidirected(g))) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    # dgl.add_self_loop on one relation of a heterograph keeps the others
    hg = heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
            ("user", "plays", "game"): (np.array([0, 1]), np.array([0, 1])),
        }
    )
    hg.edges["plays"].data["t"] = np.array([5, 6])
    h = add_self_loop(hg, etype="follows")
    assert h.num_edges("follows") == 5 and h.num_edges("plays") == 2
    assert h.edges["plays"].data["t"] is hg.edges["plays"].data["t"]


def test_reverse_turns_heterograph_relations_around():
    hg = heterograph(
        {
            ("user", "plays", "game"): (np.array([0, 1]), np.array([1, 0])),
            ("user", "follows", "user"): (np.array([0]), np.array([1])),
        },
        num_nodes_dict={"user": 3, "game": 2},
    )
    hg.nodes["game"].data["g"] = np.ones(2)
    r = reverse(hg)
    assert set(r.canonical_etypes) == {("game", "plays", "user"), ("user", "follows", "user")}
    assert _edges(r, "plays") == [(1, 0), (0, 1)] and r.num_nodes("user") == 3
    assert r.nodes["game"].data["g"] is hg.nodes["game"].data["g"]


def test_self_loop_features_by_name_and_dtype():
    g = graph((np.array([0, 1]), np.array([1, 1])), num_nodes=3)
    g.edata["a"] = np.array([[1, 2], [3, 4]], np.int32)
    g.edata["b"] = np.array([1.5, 2.5])
    h = add_self_loop(g, edge_feat_names=["b"], fill_data=7)
    assert h.edata["a"].tolist() == [[1, 2], [3, 4], [0, 0], [0, 0], [0, 0]]
    assert h.edata["a"].dtype == np.int32 and h.edata["b"].tolist() == [1.5, 2.5, 7, 7, 7]
    h = add_self_loop(g, edge_feat_names=["b"], fill_data="max")
    assert h.edata["b"].tolist() == [1.5, 2.5, 0.0, 2.5, 0.0]  # 0 for no incoming edge


def test_transforms_name_bad_input():
    g = graph((np.array([0, 1]), np.array([1, 1])), num_nodes=3)
    g.edata["w"] = np.ones(2)
    bip = heterograph({("a", "r", "b"): ([0], [0])})
    for fn in (add_self_loop, remove_self_loop, to_bidirected):
        with pytest.raises(ValueError, match=r"edge type \('a', 'r', 'b'\) joins node type"):
            fn(bip)
    with pytest.raises(ValueError, match="ignore_bipartite=True"):
        add_reverse_edges(bip)
    assert _edges(add_reverse_edges(bip, ignore_bipartite=True), ("a", "r", "b")) == [(0, 0)]
    with pytest.raises(ValueError, match="fill_data must be a number or one of"):
        add_self_loop(g, fill_data="median")
    with pytest.raises(TypeError, match="fill_data must be a number"):
        add_self_loop(g, fill_data=None)
    g.edata["flag"] = np.array([True, False])
    with pytest.raises(TypeError, match="reduces edge feature 'flag', which is bool"):
        add_self_loop(g, fill_data="max")
    del g.edata["flag"]
    with pytest.raises(KeyError, match="edge feature 'v' not found"):
        add_self_loop(g, edge_feat_names=["v"])
    with pytest.raises(ValueError, match="aggregator must be one of"):
        to_simple(g, aggregator="max")
    with pytest.raises(TypeError, match="copy_ndata must be True or False"):
        reverse(g, copy_ndata="yes")
    with pytest.raises(TypeError, match="expects an arraygnn Graph"):
        add_self_loop(np.zeros((2, 3)))
    block = to_block(g, np.array([1]))
    for fn in (add_self_loop, remove_self_loop, reverse, add_reverse_edges, to_simple):
        with pytest.raises(ValueError, match="blocks are not supported"):
            fn(block)


def test_cupy_graph_lookups_and_transforms_stay_on_device():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - cupy without a device
        pytest.skip("no CUDA device")
    g = graph((cp.array([0, 1, 1, 2]), cp.array([1, 2, 2, 2])), num_nodes=3)
    g.edata["w"] = cp.array([1.0, 2.0, 3.0, 4.0])
    u, v, e = g.in_edges(cp.array([2]), form="all")
    assert isinstance(e, cp.ndarray) and e.get().tolist() == [1, 2, 3]
    assert g.edge_ids(cp.array([1]), cp.array([2])).get().tolist() == [1]
    assert g.has_edges_between(cp.array([2, 0]), cp.array([2, 2])).get().tolist() == [True, False]
    h, wb = to_simple(add_self_loop(remove_self_loop(g)), writeback_mapping=True, copy_edata=True)
    assert isinstance(h.edges()[0], cp.ndarray) and wb.get().tolist() == [0, 1, 1, 2, 3, 4]
    assert h.edata["w"].get().tolist() == [1.0, 2.0, 1.0, 1.0, 1.0]
    assert isinstance(to_bidirected(g).edges()[1], cp.ndarray)
    import arraygnn.function as fn

    g.ndata["x"] = cp.arange(3.0)
    g.send_and_recv(cp.array([0, 3]), fn.copy_u("x", "m"), fn.sum("m", "h"))
    assert isinstance(g.ndata["h"], cp.ndarray) and g.ndata["h"].get().tolist() == [0, 0, 2]
    g.pull(cp.array([1]), fn.copy_u("x", "m"), fn.sum("m", "h"))
    assert g.ndata["h"].get().tolist() == [0, 0, 2]


# ---------------------------------------------------------------------- send_and_recv / pull / push
def _reference_receive(pairs, x, w, eids, receivers, old):
    out = old.copy()
    for r in receivers:
        out[r] = sum(
            (x[pairs[e][0]] * w[e] for e in eids if pairs[e][1] == r), np.zeros(x.shape[1])
        )
    return out


@pytest.mark.parametrize("label, g", HOMO, ids=[label for label, _ in HOMO])
def test_send_and_recv_pull_push_match_a_python_reference(label, g):
    import arraygnn.function as fn

    rng = np.random.default_rng(len(label) + 7)
    n, pairs = g.num_nodes(), _edges(g)
    x = rng.random((n, 3))
    w = rng.random(len(pairs))
    old = rng.random((n, 3))
    old_copy = old.copy()
    g.ndata["x"], g.edata["w"], g.ndata["h"] = x, w, old
    eids = rng.choice(len(pairs), min(len(pairs), 5), replace=False) if pairs else []
    eids = np.asarray(eids, np.int64)
    g.send_and_recv(eids, fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    receivers = sorted({pairs[e][1] for e in eids.tolist()})
    want = _reference_receive(pairs, x, w, eids.tolist(), receivers, old)
    np.testing.assert_allclose(g.ndata["h"], want, rtol=1e-12)
    assert g.ndata["x"] is x and g.edata["w"] is w  # inputs untouched

    g.ndata["h"] = old
    v = rng.integers(0, n, 3) if n else np.zeros(0, np.int64)
    g.pull(v, fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    into = [e for e, p in enumerate(pairs) if p[1] in set(v.tolist())]
    want = _reference_receive(pairs, x, w, into, sorted(set(v.tolist())), old)
    np.testing.assert_allclose(g.ndata["h"], want, rtol=1e-12)

    g.ndata["h"] = old
    u = rng.integers(0, n, 2) if n else np.zeros(0, np.int64)
    g.push(u, fn.u_mul_e("x", "w", "m"), fn.sum("m", "h"))
    out_of = [e for e, p in enumerate(pairs) if p[0] in set(u.tolist())]
    want = _reference_receive(pairs, x, w, out_of, sorted({pairs[e][1] for e in out_of}), old)
    np.testing.assert_allclose(g.ndata["h"], want, rtol=1e-12)
    assert np.array_equal(old, old_copy)  # rows are written into new arrays


def test_send_and_recv_pull_push_follow_dgls_examples():
    import arraygnn.function as fn

    g = graph(([0, 1, 2, 3], [1, 2, 3, 4]))
    g.ndata["x"] = np.ones((5, 2))
    g.send_and_recv(([1, 2], [2, 3]), fn.copy_u("x", "m"), fn.sum("m", "h"))
    assert g.ndata["h"][:, 0].tolist() == [0, 0, 1, 1, 0]
    g.send_and_recv([0, 2, 3], fn.copy_u("x", "m"), fn.sum("m", "h"))
    # DGL's docstring prints node 2 as 0 here, but its _set_n_repr updates only the
    # receiving rows (frame.update_row), so node 2 keeps the 1 of the first call
    assert g.ndata["h"][:, 0].tolist() == [0, 1, 1, 1, 1]
    hg = heterograph(
        {
            ("user", "follows", "user"): ([0, 1], [1, 2]),
            ("user", "plays", "game"): ([0, 1, 1, 2], [0, 0, 1, 1]),
        }
    )
    hg.nodes["user"].data["h"] = np.array([[0.0], [1.0], [2.0]])
    hg.send_and_recv(
        hg.edges(etype="follows"), fn.copy_u("h", "m"), fn.sum("m", "h"), etype="follows"
    )
    assert hg.nodes["user"].data["h"].ravel().tolist() == [0, 0, 1]
    g = graph(([0, 1], [1, 2]))
    g.ndata["x"] = np.array([[1.0], [2.0], [3.0]])
    g.send_and_recv(
        g.edges(),
        lambda edges: {"m": edges.src["x"]},
        lambda nodes: {"x": nodes.mailbox["m"].sum(1)},
    )
    assert g.ndata["x"].ravel().tolist() == [1, 1, 2]  # node 0 keeps its feature
    g = graph(([0, 1, 2, 3], [1, 2, 3, 4]))
    g.ndata["x"] = np.ones((5, 2))
    g.pull([0, 3, 4], fn.copy_u("x", "m"), fn.sum("m", "h"))
    assert g.ndata["h"][:, 0].tolist() == [0, 0, 0, 1, 1]
    g = graph(([0, 1, 2, 3], [1, 2, 3, 4]))
    g.ndata["x"] = np.ones((5, 2))
    g.push([0, 1], fn.copy_u("x", "m"), fn.sum("m", "h"))
    assert g.ndata["h"][:, 0].tolist() == [0, 1, 1, 0, 0]
    hg = heterograph({("user", "follows", "user"): ([0, 0], [1, 2])})
    hg.nodes["user"].data["h"] = np.array([[0.0], [1.0], [2.0]])
    hg.push(0, fn.copy_u("h", "m"), fn.sum("m", "h"), etype="follows")
    assert hg.nodes["user"].data["h"].ravel().tolist() == [0, 0, 0]


def test_receiving_with_an_apply_function_and_on_blocks():
    import arraygnn.function as fn

    g = graph(([0, 1, 2], [1, 2, 2]), num_nodes=4)
    g.ndata["x"] = np.array([1.0, 2.0, 3.0, 4.0])
    seen = []

    def apply(nodes):
        seen.append(nodes.nodes().tolist())
        return {"h": nodes.data["h"] * 10, "deg": np.full(len(nodes), 1, np.int32)}

    g.send_and_recv([1, 2], fn.copy_u("x", "m"), fn.max("m", "h"), apply)
    assert seen == [[2]] and g.ndata["h"].tolist() == [0, 0, 30, 0]
    assert g.ndata["deg"].tolist() == [0, 0, 1, 0] and g.ndata["deg"].dtype == np.int32

    def broken(nodes):
        raise RuntimeError("stop")

    before = dict(g.ndata)
    with pytest.raises(RuntimeError, match="stop"):
        g.pull([1], fn.copy_u("x", "m"), fn.sum("m", "h"), broken)
    assert {k: v is before[k] for k, v in g.ndata.items()} == {k: True for k in before}
    block = to_block(g, np.array([2, 1]))
    block.srcdata["x"] = np.array([10.0, 20.0, 30.0])  # sources: nodes 2, 1, 0 of g
    block.pull([0], fn.copy_u("x", "m"), fn.sum("m", "y"))  # node 2 of g, from 1 and 2
    assert block.dstdata["y"].tolist() == [20.0 + 10.0, 0.0]


def test_receiving_names_bad_input():
    import arraygnn.function as fn

    g = graph(([0, 1], [1, 2]), num_nodes=3)
    g.ndata["x"] = np.ones(3)
    msg, red = fn.copy_u("x", "m"), fn.sum("m", "h")
    with pytest.raises(ValueError, match=r"contains id 5, outside \[0, 2\) \(2 edges\)"):
        g.send_and_recv([5], msg, red)
    with pytest.raises(ValueError, match="ids must be unique"):
        g.send_and_recv([0, 0], msg, red)
    with pytest.raises(ValueError, match=r"edge_ids: \(2, 0\) is not an edge"):
        g.send_and_recv(([2], [0]), msg, red)
    with pytest.raises(TypeError, match=r"a \(u, v\) pair"):
        g.send_and_recv((0, 1, 2), msg, red)
    with pytest.raises(ValueError, match="contains id 9"):
        g.pull([9], msg, red)
    with pytest.raises(ValueError, match="contains id -1"):
        g.push([-1], msg, red)
    with pytest.raises(TypeError, match="apply_node_func must be a function"):
        g.pull([1], msg, red, apply_node_func="no")
    with pytest.raises(KeyError, match="'y' not found"):
        g.send_and_recv([0], fn.copy_u("y", "m"), red)
    g.send_and_recv([], msg, red)  # no edges: nothing computed, nothing written
    assert "h" not in g.ndata


def test_apply_nodes_on_a_subset():
    g = graph(([0, 1], [1, 2]), num_nodes=4)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    g.ndata["x"] = x
    seen = []

    def double(nodes):
        seen.append(nodes.nodes().tolist())
        return {"x": nodes.data["x"] * 2, "flag": np.ones(len(nodes), np.int8)}

    g.apply_nodes(double, v=[3, 1])
    assert seen == [[3, 1]] and g.ndata["x"].tolist() == [1, 4, 3, 8]
    assert g.ndata["flag"].tolist() == [0, 1, 0, 1] and x.tolist() == [1, 2, 3, 4]
    g.apply_nodes(double, v=np.array([True, False, False, False]))
    assert g.ndata["x"].tolist() == [2, 4, 3, 8]
    g.apply_nodes(double, v=2)
    assert g.ndata["x"].tolist() == [2, 4, 6, 8]
    with pytest.raises(ValueError, match="contains id 4"):
        g.apply_nodes(double, v=[4])
    with pytest.raises(ValueError, match="boolean mask must have shape"):
        g.apply_nodes(double, v=[True])
    with pytest.raises(ValueError, match="apply-node UDF"):
        g.apply_nodes(lambda nodes: {"x": np.ones(5)}, v=[0, 1])


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_pair_runs_kernel_matches_the_reference(index_dtype):
    """to_simple's CPU kernel (one pass over the edges sorted by (src, dst)) and the
    reference (array code) number the pairs alike: random multigraphs with many parallel
    edges and self-loops, bipartite sizes, a hub, no edges, isolated nodes; also through
    ``config(validate=True)``, which compares the two on every call."""
    import arraygnn
    from arraygnn.graph.query import pair_order
    from arraygnn.kernels import reference
    from arraygnn.kernels.cpu.pairs import pair_runs

    rng = np.random.default_rng(5)
    shapes = [(1, 1, 0), (3, 4, 1), (5, 5, 40), (7, 2, 60), (2, 9, 30), (50, 50, 400)]
    for n_src, n_dst, e in shapes:
        for _ in range(5):
            src = rng.integers(0, n_src, e).astype(index_dtype)
            dst = (rng.integers(0, n_dst, e) ** 2 % n_dst).astype(index_dtype)  # a hub
            order = pair_order(src, dst, n_src, n_dst)
            got = [np.full(e, -1, order.dtype) for _ in range(3)]
            want = [np.full(e, -1, order.dtype) for _ in range(3)]
            k = pair_runs(order, src, dst, *got)
            assert reference.pair_runs(order, src, dst, *want) == k
            assert got[0].tolist() == want[0].tolist()
            assert got[1][:k].tolist() == want[1][:k].tolist()
            assert got[2][:k].tolist() == want[2][:k].tolist()
            pairs = list(zip(src.tolist(), dst.tolist(), strict=True))
            ranked = sorted(set(pairs))  # sorted, as DGL's COOToSimple
            assert k == len(ranked)
            assert got[0].tolist() == [ranked.index(p) for p in pairs]
            assert got[1][:k].tolist() == [pairs.index(p) for p in ranked]
            assert got[2][:k].tolist() == [pairs.count(p) for p in ranked]
            g = graph((src, dst), num_nodes=max(n_src, n_dst))
            with arraygnn.config(validate=True):
                h, wb = to_simple(g, writeback_mapping=True)
            assert wb.tolist() == [ranked.index(p) for p in pairs] and h.num_edges() == k


def test_to_homogeneous_follows_dgl():
    """DGL's layout: node types in g.ntypes order (sorted), edge types in canonical order,
    per-type ids in NID / EID, type ids (int64) in NTYPE / ETYPE, named features combined."""
    from arraygnn.graph import ETYPE, NID, NTYPE, to_homogeneous

    hg = heterograph(
        {
            ("user", "plays", "game"): (
                np.array([0, 1, 2], np.int32),
                np.array([1, 0, 1], np.int32),
            ),
            ("user", "follows", "user"): (np.array([2], np.int32), np.array([0], np.int32)),
            ("game", "sold_by", "store"): (np.zeros(0, np.int32), np.zeros(0, np.int32)),
        },
        {"user": 3, "game": 2, "store": 1},
    )
    for t, n in (("user", 3), ("game", 2), ("store", 1)):
        hg.nodes[t].data["h"] = np.full((n, 2), ord(t[0]), np.float32)
    for c in hg.canonical_etypes:
        hg.edges[c].data["w"] = np.arange(hg.num_edges(c), dtype=np.float64)
    h, ncount, ecount = to_homogeneous(hg, ndata=["h"], edata=["w"], return_count=True)
    assert hg.ntypes == ["game", "store", "user"] and ncount == [2, 1, 3]
    assert hg.canonical_etypes[0] == ("game", "sold_by", "store") and ecount == [0, 1, 3]
    assert h.idtype == np.int32 and h.num_nodes() == 6
    src, dst = h.edges()
    assert src.tolist() == [3 + 2, 3 + 0, 3 + 1, 3 + 2]  # users start at 3
    assert dst.tolist() == [3 + 0, 1, 0, 1]
    assert h.edata[ETYPE].tolist() == [1, 2, 2, 2] and h.edata[ETYPE].dtype == np.int64
    assert h.edata[EID].tolist() == [0, 0, 1, 2] and h.edata["w"].tolist() == [0, 0, 1, 2]
    assert h.ndata[NTYPE].tolist() == [0, 0, 1, 2, 2, 2]
    assert h.ndata[NID].tolist() == [0, 1, 0, 0, 1, 2]
    assert h.ndata["h"][:, 0].tolist() == [ord("g")] * 2 + [ord("s")] + [ord("u")] * 3
    plain = to_homogeneous(hg, store_type=False)
    assert NTYPE not in plain.ndata and "h" not in plain.ndata
    del hg.nodes["store"].data["h"]
    with pytest.raises(KeyError, match="node feature 'h' is missing on 'store'"):
        to_homogeneous(hg, ndata=["h"])
    hg.nodes["store"].data["h"] = np.ones((1, 3), np.float32)
    with pytest.raises(ValueError, match="differs in shape or dtype"):
        to_homogeneous(hg, ndata=["h"])
    with pytest.raises(TypeError, match="list of feature names"):
        to_homogeneous(hg, ndata="h")
