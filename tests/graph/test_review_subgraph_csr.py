"""Review of ``node_subgraph``'s route through the cached in-edge CSR (few kept nodes):
the same subgraph as the scan over every edge for every input form, the route chosen as
documented, a rebuilt graph never reusing a stale CSR, and the samplers that warm the
CSR (DGL's SAINTSampler / ShaDowKHopSampler) giving the scan's subgraphs."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import add_edges, graph, heterograph, remove_edges, to_block
from arraygnn.graph import subgraph as subgraph_mod
from arraygnn.graph.subgraph import node_subgraph


def _random_graph(n: int, e: int, idtype: type, seed: int):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    if e >= 6:
        src[:3] = dst[:3]  # self-loops
        src[3:6], dst[3:6] = src[0], dst[0]  # multi-edges
    g = graph((src.astype(idtype), dst.astype(idtype)), num_nodes=n)
    g.ndata["x"] = rng.random((n, 3))
    g.edata["w"] = rng.random((e, 2)).astype(np.float32)
    return g


def _fresh(g):
    """The same graph with no CSR cached (so node_subgraph scans)."""
    rels = {c: (r.src.copy(), r.dst.copy()) for c, r in g._rels.items()}
    new = type(g)(rels, g._num_src, validate=False)
    g._copy_frames_to(new, lambda a: a)
    return new


def _assert_same(a, b):
    assert a.ntypes == b.ntypes and a.canonical_etypes == b.canonical_etypes
    for t in a.ntypes:
        assert a.num_nodes(t) == b.num_nodes(t)
        fa, fb = a._src_frames[t], b._src_frames[t]
        assert sorted(fa._data) == sorted(fb._data)
        for k in fa._data:
            assert fa._data[k].dtype == fb._data[k].dtype
            assert np.array_equal(fa._data[k], fb._data[k])
    for c in a.canonical_etypes:
        for x, y in zip(a.edges(etype=c), b.edges(etype=c)):
            assert x.dtype == y.dtype and np.array_equal(x, y)
        fa, fb = a._rels[c].frame, b._rels[c].frame
        assert sorted(fa._data) == sorted(fb._data)
        for k in fa._data:
            assert fa._data[k].dtype == fb._data[k].dtype
            assert np.array_equal(fa._data[k], fb._data[k])


def _both_routes(g, nodes, **kw):
    scanned = node_subgraph(_fresh(g), nodes, **kw)
    for c in g.canonical_etypes:
        g.csr(c)
    return scanned, node_subgraph(g, nodes, **kw)


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize("store_ids", [True, False])
@pytest.mark.parametrize(
    "form", ["array", "unsorted", "list", "mask", "uint16", "empty", "one_node"]
)
def test_csr_route_equals_scan_for_every_input_form(idtype, store_ids, form):
    n = 400
    g = _random_graph(n, 3000, idtype, seed=7)
    rng = np.random.default_rng(1)
    ids = np.sort(rng.choice(n, 30, replace=False))
    src, dst = g.edges()
    ids[:2] = [int(src[0]), int(dst[3])]  # a self-loop node and multi-edge ends kept
    ids = np.unique(ids)
    nodes = {
        "array": ids.astype(idtype),
        "unsorted": ids[::-1].copy(),
        "list": ids.tolist(),
        "mask": np.isin(np.arange(n), ids),
        "uint16": ids.astype(np.uint16),
        "empty": np.zeros(0, dtype=idtype),
        "one_node": ids[:1],
    }[form]
    g.csr()
    kept = subgraph_mod._ids_for(g, nodes, n, "t")
    assert (
        subgraph_mod._kept_edges_by_index(
            np, g._rels[g.canonical_etypes[0]], kept, subgraph_mod._relabel_map(np, kept, n)
        )
        is not None
    )
    scanned, indexed = _both_routes(g, nodes, store_ids=store_ids)
    _assert_same(scanned, indexed)
    if form != "empty" and store_ids:
        assert indexed.num_edges() > 0 or form == "one_node"


def test_csr_route_on_a_heterograph_with_a_bipartite_relation_and_a_missing_type():
    rng = np.random.default_rng(5)
    rels = {
        ("a", "r", "b"): (rng.integers(0, 30, 500), rng.integers(0, 200, 500)),
        ("b", "s", "b"): (rng.integers(0, 200, 800), rng.integers(0, 200, 800)),
        ("b", "t", "a"): (rng.integers(0, 200, 300), rng.integers(0, 30, 300)),
        ("c", "u", "b"): (np.zeros(0, np.int64), np.zeros(0, np.int64)),
    }
    hg = heterograph(rels, num_nodes_dict={"a": 30, "b": 200, "c": 4})
    hg.nodes["b"].data["h"] = rng.random((200, 2))
    hg.edges[("b", "s", "b")].data["w"] = rng.random(800)
    keep = {"a": np.array([1, 5, 7, 29]), "b": np.array([0, 3, 9, 150, 199])}  # no "c"
    # only some relations have a CSR: mixed routes in one call
    scanned = node_subgraph(_fresh(hg), keep)
    hg.csr(("a", "r", "b"))
    hg.csr(("b", "s", "b"))
    _assert_same(scanned, node_subgraph(hg, keep))
    for c in hg.canonical_etypes:
        hg.csr(c)
    _assert_same(scanned, node_subgraph(hg, keep))


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_csr_route_on_a_graph_without_edges_or_nodes(idtype):
    g = graph((np.zeros(0, idtype), np.zeros(0, idtype)), num_nodes=50)
    g.ndata["x"] = np.arange(50.0)
    scanned, indexed = _both_routes(g, np.array([3, 1]))
    _assert_same(scanned, indexed)
    assert indexed.num_edges() == 0 and indexed.edata["_ID"].dtype == idtype
    empty = graph((np.zeros(0, idtype), np.zeros(0, idtype)), num_nodes=0)
    _assert_same(*_both_routes(empty, np.zeros(0, idtype)))


def test_route_threshold_is_under_one_eighth_of_the_destinations():
    g = _random_graph(80, 600, np.int64, seed=2)
    g.csr()
    rel = g._rels[g.canonical_etypes[0]]
    m = subgraph_mod._relabel_map(np, np.arange(10), 80)
    assert subgraph_mod._kept_edges_by_index(np, rel, np.arange(9), m) is not None
    assert subgraph_mod._kept_edges_by_index(np, rel, np.arange(10), m) is None  # 10 * 8 = 80
    for k in (9, 10, 11):  # both sides of the threshold give the scan's subgraph
        nodes = np.arange(0, 80, 80 // k)[:k]
        _assert_same(node_subgraph(_fresh(g), nodes), node_subgraph(g, nodes))


def test_bad_ids_are_refused_before_either_route():
    g = _random_graph(100, 500, np.int32, seed=3)
    g.csr()
    with pytest.raises(ValueError, match="unique"):
        node_subgraph(g, np.array([1, 2, 1]))
    for bad in (np.array([1, 100]), np.array([-1, 2]), [3, 2**40]):
        with pytest.raises(ValueError, match="outside"):
            node_subgraph(g, bad)
    with pytest.raises(ValueError, match="mask"):
        node_subgraph(g, np.ones(99, dtype=bool))
    with pytest.raises(TypeError):
        node_subgraph(g, np.array([1.0, 2.0]))


def test_block_is_refused_with_a_csr_cached():
    g = _random_graph(40, 200, np.int64, seed=4)
    b = to_block(g)
    b.csr()
    with pytest.raises(ValueError, match="block"):
        node_subgraph(b, np.array([0]))


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_rebuilt_graphs_do_not_reuse_a_stale_csr(idtype):
    g = _random_graph(200, 1000, idtype, seed=6)
    g.csr()
    nodes = np.array([2, 17, 40, 41, 99, 150])
    grown = add_edges(g, np.array([2, 40, 99, 99]), np.array([17, 2, 150, 99]))
    assert grown._rels[grown.canonical_etypes[0]]._csr is None
    grown.csr()
    _assert_same(node_subgraph(_fresh(grown), nodes), node_subgraph(grown, nodes))
    assert node_subgraph(grown, nodes).num_edges() >= node_subgraph(g, nodes).num_edges() + 4
    sub = node_subgraph(grown, nodes)
    shrunk = remove_edges(grown, sub.edata["_ID"][:2])
    shrunk.csr()
    _assert_same(node_subgraph(_fresh(shrunk), nodes), node_subgraph(shrunk, nodes))
    assert node_subgraph(shrunk, nodes).num_edges() == sub.num_edges() - 2
    # the original graphs' own caches are untouched
    _assert_same(sub, node_subgraph(_fresh(grown), nodes))
    _assert_same(node_subgraph(g, nodes), node_subgraph(_fresh(g), nodes))


@pytest.mark.parametrize("mode, budget", [("node", 20), ("edge", 10), ("walk", (3, 4))])
def test_saint_sampler_subgraph_equals_the_scan(mode, budget):
    from arraygnn.saint_sampler import SAINTSampler

    g = _random_graph(1000, 6000, np.int64, seed=8)
    plain = _fresh(g)
    sg = SAINTSampler(mode, budget, seed=0).sample(g)
    assert g._rels[g.canonical_etypes[0]]._csr is not None  # warmed
    _assert_same(sg, node_subgraph(plain, sg.ndata["_ID"]))


def test_dgl_shadow_sampler_subgraph_equals_the_scan():
    from arraygnn.shadow_sampler import ShaDowKHopSampler

    g = _random_graph(2000, 8000, np.int32, seed=9)
    plain = _fresh(g)
    inputs, outputs, sg = ShaDowKHopSampler([3, 2], seed=0).sample(g, np.array([5, 77]))
    assert g._rels[g.canonical_etypes[0]]._csr is not None
    assert 8 * inputs.shape[0] < 2000  # the CSR route ran
    _assert_same(sg, node_subgraph(plain, inputs))


def test_dgl_shadow_sampler_heterograph_and_excluded_edges_equal_the_scan():
    from arraygnn.shadow_sampler import ShaDowKHopSampler

    rng = np.random.default_rng(10)
    rels = {
        ("u", "f", "u"): (rng.integers(0, 600, 3000), rng.integers(0, 600, 3000)),
        ("u", "b", "i"): (rng.integers(0, 600, 2000), rng.integers(0, 900, 2000)),
        ("i", "rb", "u"): (rng.integers(0, 900, 2000), rng.integers(0, 600, 2000)),
    }
    hg = heterograph(rels, num_nodes_dict={"u": 600, "i": 900})
    hg.edges[("u", "f", "u")].data["w"] = rng.random(3000)
    plain = _fresh(hg)
    fan = {("u", "f", "u"): 2, ("u", "b", "i"): 0, ("i", "rb", "u"): 2}  # one relation unsampled
    excl = {("u", "f", "u"): np.arange(0, 3000, 3)}
    inputs, _, sg = ShaDowKHopSampler([fan, fan], seed=1).sample(
        hg, {"u": np.array([4, 8])}, exclude_eids=excl
    )
    expect = node_subgraph(plain, inputs)
    kept = expect.edges[("u", "f", "u")].data["_ID"]
    drop = np.nonzero(np.isin(kept, excl[("u", "f", "u")]))[0]
    expect = remove_edges(expect, drop, etype=("u", "f", "u")) if drop.shape[0] else expect
    _assert_same(sg, expect)
    assert not np.isin(sg.edges[("u", "f", "u")].data["_ID"], excl[("u", "f", "u")]).any()


def test_saint_sampler_builds_no_csr_on_a_cupy_graph():
    """node_subgraph reads the CSR only on NumPy graphs: on CuPy the warm-up would spend
    device memory (three id arrays of E) for nothing."""
    cp = pytest.importorskip("cupy")
    from arraygnn.saint_sampler import SAINTSampler

    g = _random_graph(1000, 6000, np.int64, seed=11)
    gc = g.to("cuda")
    sg = SAINTSampler("node", 30, seed=0).sample(gc)
    assert gc._rels[gc.canonical_etypes[0]]._csr is None
    ref = node_subgraph(g, cp.asnumpy(sg.ndata["_ID"]))
    for a, b in zip(sg.edges(), ref.edges()):
        assert np.array_equal(cp.asnumpy(a), b)
    assert np.array_equal(cp.asnumpy(sg.edata["_ID"]), ref.edata["_ID"])
