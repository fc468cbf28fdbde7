"""Review: the edge order of the DGL-face functions built on DGL's node subgraph.

DGL's ``UnitGraph::VertexSubgraph`` (src/graph/unit_graph.cc) slices the out-CSR
(``SelectFormat(CSR_CODE)``), ``aten::CSRSliceMatrix`` (src/array/cpu/spmat_op_impl_csr.cc):
the kept edges come grouped by source, in the order of the given node ids (new source
``0, 1, ...``), each source's edges in out-CSR order, which for a graph built from COO is
edge-id order (the CPU ``COOToCSR`` variants are stable counting sorts). ``node_subgraph``,
``remove_nodes``, ``khop_*_subgraph`` (both ``relabel_nodes``), ``reorder_graph`` (before its
edge sort) and the ClusterGCN / SAINT / ShaDow samplers all go through it.

The expected orders are hand-computed from those rules, or taken from
:func:`_dgl_vertex_subgraph`, a loop transcription of ``CSRSliceMatrix`` over a stable
out-CSR, on graphs whose edges are not sorted by source.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    NID,
    batch,
    edge_subgraph,
    graph,
    heterograph,
    khop_in_subgraph,
    khop_out_subgraph,
    node_subgraph,
    remove_nodes,
    reorder_graph,
    to_block,
)

IDTYPES = [np.int32, np.int64]

# edges: 0: 3->0, 1: 0->2, 2: 2->2 (self-loop), 3: 0->1, 4: 3->3 (self-loop),
#        5: 1->0, 6: 2->0, 7: 2->2 (the self-loop again); node 4 is isolated
SRC = [3, 0, 2, 0, 3, 1, 2, 2]
DST = [0, 2, 2, 1, 3, 0, 0, 2]


def _g(idtype=np.int64):
    g = graph((np.array(SRC, idtype), np.array(DST, idtype)), num_nodes=5)
    g.ndata["x"] = np.arange(5, dtype=np.float32) * 10
    g.edata["w"] = np.arange(8, dtype=np.float64) + 0.5
    return g


def _hg(idtype=np.int64):
    g = heterograph(
        {
            ("user", "follows", "user"): (
                np.array([0, 2, 1, 2, 0], idtype),
                np.array([2, 2, 0, 0, 0], idtype),
            ),
            ("user", "plays", "game"): (
                np.array([1, 0, 2, 0], idtype),
                np.array([1, 0, 0, 1], idtype),
            ),
        },
        {"user": 3, "game": 2},
    )
    g.edges["follows"].data["w"] = np.arange(5, dtype=np.float32)
    g.edges["plays"].data["w"] = np.arange(4, dtype=np.float32) + 100
    return g


def _np(a):
    return np.asarray(a.get() if hasattr(a, "get") else a)


def _dgl_vertex_subgraph(src, dst, src_nodes, dst_nodes):
    """``CSRSliceMatrix`` over a stable out-CSR: rows in the order of ``src_nodes``,
    each row's edges in edge-id order, kept when the destination is in ``dst_nodes``."""
    src, dst = [int(v) for v in _np(src)], [int(v) for v in _np(dst)]
    dmap = {int(v): i for i, v in enumerate(_np(dst_nodes))}
    rows = {}
    for e, u in enumerate(src):
        rows.setdefault(u, []).append(e)
    return np.array(
        [e for u in _np(src_nodes) for e in rows.get(int(u), []) if dst[e] in dmap],
        dtype=np.int64,
    )


def _check_against_dgl(g, sg, nodes):
    """``sg`` (relabelled) is DGL's vertex subgraph of ``g`` over ``nodes`` per type."""
    for c in g.canonical_etypes:
        s, d = g.edges(etype=c)
        want = _dgl_vertex_subgraph(s, d, nodes[c[0]], nodes[c[2]])
        np.testing.assert_array_equal(_np(sg.edges[c].data[EID]), want)
        ss, sd = sg.edges(etype=c)
        np.testing.assert_array_equal(_np(nodes[c[0]])[_np(ss)], _np(s)[want])
        np.testing.assert_array_equal(_np(nodes[c[2]])[_np(sd)], _np(d)[want])
        for k, v in g.edges[c].data.items():
            np.testing.assert_array_equal(_np(sg.edges[c].data[k]), _np(v)[want])


# ------------------------------------------------------------------ node_subgraph
@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("form", ["list", "array", "method"])
def test_node_subgraph_groups_edges_by_new_source_hand_case(idtype, form):
    g = _g(idtype)
    nodes = [2, 0, 3, 4]  # unsorted; new ids 2->0, 0->1, 3->2, 4->3
    if form == "list":
        sg = node_subgraph(g, nodes)
    elif form == "array":
        sg = node_subgraph(g, np.array(nodes, idtype))
    else:
        sg = g.subgraph(nodes)
    # node 2: edges 2, 6, 7; node 0: edge 1 (edge 3 goes to the dropped node 1);
    # node 3: edges 0, 4; node 4: none
    np.testing.assert_array_equal(sg.edata[EID], [2, 6, 7, 1, 0, 4])
    np.testing.assert_array_equal(sg.edges()[0], [0, 0, 0, 1, 2, 2])
    np.testing.assert_array_equal(sg.edges()[1], [0, 1, 0, 0, 1, 2])
    np.testing.assert_array_equal(sg.edata["w"], [2.5, 6.5, 7.5, 1.5, 0.5, 4.5])
    np.testing.assert_array_equal(sg.ndata[NID], nodes)
    assert sg.edata[EID].dtype == idtype and sg.edges()[0].dtype == idtype
    np.testing.assert_array_equal(g.edges()[0], SRC)  # the input is unchanged


@pytest.mark.parametrize("idtype", IDTYPES)
def test_node_subgraph_boolean_mask_hand_case(idtype):
    g = _g(idtype)
    sg = node_subgraph(g, np.array([True, False, True, True, False]))  # nodes 0, 2, 3
    np.testing.assert_array_equal(sg.edata[EID], [1, 2, 6, 7, 0, 4])
    np.testing.assert_array_equal(sg.edges()[0], [0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(sg.edges()[1], [1, 1, 0, 1, 0, 2])
    as_list = node_subgraph(g, [True, False, True, True, False])  # a list of bools: a mask
    np.testing.assert_array_equal(as_list.edata[EID], [1, 2, 6, 7, 0, 4])


@pytest.mark.parametrize("idtype", IDTYPES)
def test_node_subgraph_heterograph_two_edge_types_hand_case(idtype):
    g = _hg(idtype)
    sg = node_subgraph(g, {"user": [2, 0], "game": np.array([1, 0], idtype)})
    # follows: user 2: edges 1, 3; user 0: edges 0, 4
    np.testing.assert_array_equal(sg.edges["follows"].data[EID], [1, 3, 0, 4])
    np.testing.assert_array_equal(sg.edges(etype="follows")[0], [0, 0, 1, 1])
    np.testing.assert_array_equal(sg.edges(etype="follows")[1], [0, 1, 0, 1])
    np.testing.assert_array_equal(sg.edges["follows"].data["w"], [1, 3, 0, 4])
    # plays: user 2: edge 2; user 0: edges 1, 3
    np.testing.assert_array_equal(sg.edges["plays"].data[EID], [2, 1, 3])
    np.testing.assert_array_equal(sg.edges(etype="plays")[0], [0, 1, 1])
    np.testing.assert_array_equal(sg.edges(etype="plays")[1], [1, 1, 0])
    assert sg.edges["plays"].data[EID].dtype == idtype
    # a node type missing from the dict keeps no nodes, so no edge of a relation into it
    sg = node_subgraph(g, {"user": [2, 0]})
    np.testing.assert_array_equal(sg.edges["follows"].data[EID], [1, 3, 0, 4])
    assert sg.num_nodes("game") == 0 and sg.num_edges("plays") == 0


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("route", ["scan", "csr", "out-csr", "out-csr-many"])
def test_node_subgraph_matches_csr_slice_on_random_graphs(idtype, seed, route):
    rng = np.random.default_rng(seed)
    n, e = 60, 1500
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    src[:4] = dst[:4]  # self-loops
    src[4:8], dst[4:8] = src[10], dst[10]  # multi-edges
    g = graph((src.astype(idtype), dst.astype(idtype)), num_nodes=n + 3)  # isolated nodes
    g.edata["w"] = rng.random((e, 2))
    if route == "csr":
        g.csr(g.canonical_etypes[0])  # the in-edge CSR route (kept nodes under 1/8)
        nodes = rng.choice(n + 3, 6, replace=False)
    else:
        nodes = rng.choice(n + 3, 6 if route == "out-csr" else 40, replace=False)
    if route.startswith("out-csr"):
        g.out_degrees()  # caches the source-sorted CSR: DGL's own route
        g.csr(g.canonical_etypes[0])
        assert g._rels[g.canonical_etypes[0]]._rev_csr is not None
    sg = node_subgraph(g, nodes)
    _check_against_dgl(g, sg, {"_N": nodes})
    assert sg.num_edges() > 3 and not np.array_equal(sg.edata[EID], np.sort(sg.edata[EID]))


@pytest.mark.parametrize("seed", range(3))
def test_node_subgraph_heterograph_random_matches_csr_slice(seed):
    rng = np.random.default_rng(seed)
    nu, ng = 30, 20
    g = heterograph(
        {
            ("user", "follows", "user"): (rng.integers(0, nu, 90), rng.integers(0, nu, 90)),
            ("user", "plays", "game"): (rng.integers(0, nu, 70), rng.integers(0, ng, 70)),
            ("game", "played-by", "user"): (rng.integers(0, ng, 50), rng.integers(0, nu, 50)),
        },
        {"user": nu, "game": ng},
    )
    nodes = {"user": rng.permutation(nu)[:18], "game": rng.permutation(ng)[:12]}
    _check_against_dgl(g, node_subgraph(g, nodes), nodes)


def test_node_subgraph_without_nodes_or_edges():
    g = _g()
    sg = node_subgraph(g, [])
    assert sg.num_nodes() == 0 and sg.num_edges() == 0 and sg.edata[EID].shape == (0,)
    sg = node_subgraph(g, [4, 1])  # an isolated node and one without a kept edge
    assert sg.num_edges() == 0
    empty = graph((np.zeros(0, np.int32), np.zeros(0, np.int32)), num_nodes=3)
    sg = node_subgraph(empty, [2, 0])
    assert sg.num_edges() == 0 and sg.edata[EID].dtype == np.int32


def test_edge_subgraph_keeps_the_given_edge_order():
    """DGL's EdgeSubgraph (COO IndexSelect): the edges in the order given, unchanged."""
    sg = edge_subgraph(_g(), [6, 0, 3])
    np.testing.assert_array_equal(sg.edata[EID], [6, 0, 3])


# ------------------------------------------------------------------ remove_nodes
@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_nodes_is_dgls_node_subgraph_hand_case(idtype):
    g = _g(idtype)
    out = remove_nodes(g, [1], store_ids=True)  # kept 0, 2, 3, 4 -> 0, 1, 2, 3
    np.testing.assert_array_equal(out.edata[EID], [1, 2, 6, 7, 0, 4])
    np.testing.assert_array_equal(out.edges()[0], [0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(out.edges()[1], [1, 1, 0, 1, 0, 2])
    np.testing.assert_array_equal(out.edata["w"], [1.5, 2.5, 6.5, 7.5, 0.5, 4.5])
    out = remove_nodes(g, [4])  # no edge removed: the edges are still regrouped
    np.testing.assert_array_equal(out.edges()[0], [0, 0, 1, 2, 2, 2, 3, 3])
    np.testing.assert_array_equal(out.edata["w"], np.array([1, 3, 5, 2, 6, 7, 0, 4]) + 0.5)
    assert EID not in out.edata


def test_remove_nodes_heterograph_regroups_every_edge_type():
    out = remove_nodes(_hg(), [1], ntype="game", store_ids=True)
    # follows keeps every user, yet comes out grouped by source: 0: 0, 4; 1: 2; 2: 1, 3
    np.testing.assert_array_equal(out.edges["follows"].data[EID], [0, 4, 2, 1, 3])
    np.testing.assert_array_equal(out.edges(etype="follows")[0], [0, 0, 1, 2, 2])
    # plays into game 0 only: user 0: edge 1; user 2: edge 2
    np.testing.assert_array_equal(out.edges["plays"].data[EID], [1, 2])


def test_remove_nodes_on_a_batch_recounts_edges_per_graph():
    a = graph((np.array([2, 0, 1, 0]), np.array([0, 1, 2, 2])), num_nodes=3)
    b = graph((np.array([1, 0, 1]), np.array([0, 1, 1])), num_nodes=2)
    bg = batch([a, b])
    out = remove_nodes(bg, [4])  # node 1 of b: its edges 0, 2 go
    np.testing.assert_array_equal(out.batch_num_nodes(), [3, 1])
    np.testing.assert_array_equal(out.batch_num_edges(), [4, 0])
    np.testing.assert_array_equal(out.edges()[0], [0, 0, 1, 2])  # grouped by source
    np.testing.assert_array_equal(out.edges()[1], [1, 2, 2, 0])
    assert EID not in out.edata and NID not in out.ndata


# ------------------------------------------------------------------ k-hop subgraphs
@pytest.mark.parametrize("idtype", IDTYPES)
def test_khop_subgraphs_match_dgls_own_unit_tests(idtype):
    """tests/python/common/test_subgraph.py: test_khop_out_subgraph / test_khop_in_subgraph."""
    g = graph((np.array([0, 2, 0, 4, 2], idtype), np.array([1, 1, 2, 3, 4], idtype)))
    g.edata["w"] = np.array([[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]])
    sg, inv = khop_out_subgraph(g, 0, k=2)
    np.testing.assert_array_equal(sg.edata[EID], [0, 2, 1, 4])
    np.testing.assert_array_equal(sg.edata["w"], [[0, 1], [4, 5], [2, 3], [8, 9]])
    assert {(int(u), int(v)) for u, v in zip(*sg.edges())} == {(0, 1), (2, 1), (0, 2), (2, 3)}
    assert inv.tolist() == [0] and sg.edata[EID].dtype == idtype
    # relabel_nodes=False: DGL's node_subgraph(relabel_nodes=False) keeps the same order
    full = khop_out_subgraph(g, 0, k=2, relabel_nodes=False)
    np.testing.assert_array_equal(full.edata[EID], [0, 2, 1, 4])
    np.testing.assert_array_equal(full.edges()[0], [0, 0, 2, 2])
    np.testing.assert_array_equal(full.edges()[1], [1, 2, 1, 4])
    g = graph((np.array([1, 1, 2, 3, 4], idtype), np.array([0, 2, 0, 4, 2], idtype)))
    sg, _ = khop_in_subgraph(g, 0, k=2)
    np.testing.assert_array_equal(sg.edata[EID], [0, 1, 2, 4])


@pytest.mark.parametrize("inward", [True, False])
@pytest.mark.parametrize("relabel", [True, False])
def test_khop_subgraphs_random_match_csr_slice(inward, relabel):
    rng = np.random.default_rng(7)
    n, e = 40, 90
    g = graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n)
    func = khop_in_subgraph if inward else khop_out_subgraph
    out = func(g, [5, 17], 2, relabel_nodes=relabel)
    sg = out[0] if relabel else out
    s, d = g.edges()
    if relabel:
        nodes = sg.ndata[NID]
    else:  # the k-hop nodes are the ends of the kept edges plus the seeds, sorted
        kept = sg.edata[EID]
        nodes = np.unique(np.concatenate([s[kept], d[kept], [5, 17]]))
    want = _dgl_vertex_subgraph(s, d, nodes, nodes)
    np.testing.assert_array_equal(sg.edata[EID], want)
    np.testing.assert_array_equal(nodes[sg.edges()[0]] if relabel else sg.edges()[0], s[want])
    assert sg.num_edges() > 3 and not np.array_equal(want, np.sort(want))


# ------------------------------------------------------------------ reorder_graph
@pytest.mark.parametrize("idtype", IDTYPES)
def test_reorder_graph_dst_ties_follow_dgls_node_subgraph_order(idtype):
    # new ids: old 2 -> 0, old 0 -> 1, old 1 -> 2; edges in new ids:
    # 0: 1->0, 1: 2->0, 2: 0->0, 3: 1->2, 4: 2->2
    g = graph((np.array([0, 1, 2, 0, 1], idtype), np.array([2, 2, 2, 1, 1], idtype)))
    g.edata["w"] = np.arange(5.0)
    cfg = {"nodes_perm": [2, 0, 1], "edges_perm": [4, 0, 3, 1, 2]}
    # DGL: node_subgraph gives [2, 0, 3, 1, 4] (by new source), then argsort of its
    # destinations [0, 0, 2, 0, 2] (np.argsort: [0, 1, 3, 2, 4])
    r = reorder_graph(g, "custom", "dst", permute_config=cfg)
    np.testing.assert_array_equal(r.edata[EID], [2, 0, 1, 3, 4])
    np.testing.assert_array_equal(r.edges()[0], [0, 1, 2, 1, 2])
    np.testing.assert_array_equal(r.edges()[1], [0, 0, 0, 2, 2])
    np.testing.assert_array_equal(r.edata["w"], [2.0, 0.0, 1.0, 3.0, 4.0])
    assert r.edata[EID].dtype == idtype
    r = reorder_graph(g, "custom", "src", permute_config=cfg)
    np.testing.assert_array_equal(r.edata[EID], [2, 0, 3, 1, 4])
    # 'custom' edges: DGL maps edges_perm back to g's ids (rev_id): the given order
    r = reorder_graph(g, "custom", "custom", permute_config=cfg)
    np.testing.assert_array_equal(r.edata[EID], [4, 0, 3, 1, 2])
    np.testing.assert_array_equal(r.edata["w"], [4.0, 0.0, 3.0, 1.0, 2.0])
    # no node permutation: DGL clones g (edge-id order), so the ties stay in edge-id order
    r = reorder_graph(g, None, "dst")
    np.testing.assert_array_equal(r.edata[EID], [3, 4, 0, 1, 2])


# ------------------------------------------------------------------ samplers
@pytest.mark.parametrize("idtype", IDTYPES)
def test_cluster_gcn_sampler_subgraph_order(idtype):
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler

    g = _g(idtype)
    sampler = ClusterGCNSampler(g, 2, cache_path=None, partition=np.array([1, 0, 1, 0, 1]))
    sg = sampler.sample(g, np.array([1, 0]))  # nodes [0, 2, 4] then [1, 3]
    np.testing.assert_array_equal(sg.ndata[NID], [0, 2, 4, 1, 3])
    np.testing.assert_array_equal(sg.edata[EID], [1, 3, 2, 6, 7, 5, 0, 4])
    np.testing.assert_array_equal(sg.edges()[0], [0, 0, 1, 1, 1, 3, 4, 4])
    np.testing.assert_array_equal(sg.edges()[1], [1, 3, 1, 0, 1, 0, 0, 4])


@pytest.mark.parametrize("mode,budget", [("node", 6), ("edge", 4), ("walk", (2, 3))])
def test_saint_sampler_subgraph_order(mode, budget):
    from arraygnn.saint_sampler import SAINTSampler

    rng = np.random.default_rng(1)
    n, e = 30, 120
    g = graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n)
    sampler = SAINTSampler(mode, budget, seed=3)
    for _ in range(3):
        sg = sampler.sample(g, None)
        nodes = sg.ndata[NID]
        assert np.all(np.diff(nodes) > 0)  # unique, increasing (DGL's unique())
        _check_against_dgl(g, sg, {"_N": nodes})


def test_saint_sampler_whole_graph_hand_case():
    from arraygnn.saint_sampler import SAINTSampler

    sg = SAINTSampler("node", 400, seed=0).sample(_g(), None)
    np.testing.assert_array_equal(sg.ndata[NID], np.arange(5))
    np.testing.assert_array_equal(sg.edata[EID], [1, 3, 5, 2, 6, 7, 0, 4])


def test_shadow_sampler_subgraph_order():
    from arraygnn.shadow_sampler import ShaDowKHopSampler

    g = _g()
    inputs, outputs, sg = ShaDowKHopSampler([-1], seed=0).sample(g, np.array([0]))
    np.testing.assert_array_equal(outputs, [0])
    assert sorted(inputs.tolist()) == [0, 1, 2, 3] and inputs[0] == 0
    s, d = g.edges()
    want = _dgl_vertex_subgraph(s, d, inputs, inputs)
    np.testing.assert_array_equal(sg.edata[EID], want)
    assert not np.array_equal(want, np.sort(want))
    # excluded edges leave the rest in that order (DGL's EidExcluder: remove_edges)
    inputs, _, sg = ShaDowKHopSampler([-1], seed=0).sample(g, np.array([0]), exclude_eids=[2, 0])
    assert sorted(inputs.tolist()) == [0, 1, 2]
    want = _dgl_vertex_subgraph(s, d, inputs, inputs)
    np.testing.assert_array_equal(sg.edata[EID], want[~np.isin(want, [2, 0])])


def test_shadow_sampler_random_matches_csr_slice():
    from arraygnn.shadow_sampler import ShaDowKHopSampler

    rng = np.random.default_rng(5)
    n, e = 50, 200
    g = graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n)
    inputs, _, sg = ShaDowKHopSampler([3, 2], seed=1).sample(g, np.array([7, 3, 40]))
    np.testing.assert_array_equal(sg.ndata[NID], inputs)
    _check_against_dgl(g, sg, {"_N": inputs})


# ------------------------------------------------------------------ CuPy
def test_cupy_graphs_give_the_same_orders():
    cp = pytest.importorskip("cupy")
    g = _g(np.int32)
    gc = g.to("cuda")
    for nodes in ([2, 0, 3, 4], np.array([True, False, True, True, False])):
        sg = node_subgraph(gc, cp.asarray(nodes))
        assert isinstance(sg.edata[EID], cp.ndarray)
        np.testing.assert_array_equal(cp.asnumpy(sg.edata[EID]), node_subgraph(g, nodes).edata[EID])
    out = remove_nodes(gc, cp.asarray([1]), store_ids=True)
    np.testing.assert_array_equal(cp.asnumpy(out.edata[EID]), [1, 2, 6, 7, 0, 4])
    full = khop_out_subgraph(gc, cp.asarray([0]), 2, relabel_nodes=False)
    want = khop_out_subgraph(g, [0], 2, relabel_nodes=False)
    np.testing.assert_array_equal(cp.asnumpy(full.edata[EID]), want.edata[EID])
    cfg = {"nodes_perm": [4, 2, 0, 1, 3]}
    for algo in ("src", "dst"):
        r = reorder_graph(gc, "custom", algo, permute_config=cfg)
        want = reorder_graph(g, "custom", algo, permute_config=cfg)
        np.testing.assert_array_equal(cp.asnumpy(r.edata[EID]), want.edata[EID])


@pytest.mark.parametrize("idtype", IDTYPES)
def test_node_subgraph_without_relabelling(idtype):
    """DGL's node_subgraph(relabel_nodes=False): the relabelled subgraph's edges, in its
    order, with their ids in ``g``; every node kept, features shared, no ``NID``."""
    g = _g(idtype)
    sg = node_subgraph(g, [2, 0, 3, 4], relabel_nodes=False)
    np.testing.assert_array_equal(sg.edata[EID], [2, 6, 7, 1, 0, 4])
    np.testing.assert_array_equal(sg.edges()[0], [2, 2, 2, 0, 3, 3])
    np.testing.assert_array_equal(sg.edges()[1], [2, 0, 2, 2, 0, 3])
    np.testing.assert_array_equal(sg.edata["w"], [2.5, 6.5, 7.5, 1.5, 0.5, 4.5])
    assert sg.num_nodes() == 5 and NID not in sg.ndata
    assert sg.ndata["x"] is g.ndata["x"]
    assert sg.edges()[0].dtype == idtype and sg.edata[EID].dtype == idtype
    assert EID not in node_subgraph(g, [2, 0], relabel_nodes=False, store_ids=False).edata
    hs = node_subgraph(_hg(idtype), {"user": [2, 0]}, relabel_nodes=False)
    np.testing.assert_array_equal(hs.edges["follows"].data[EID], [1, 3, 0, 4])
    assert hs.num_edges("plays") == 0 and hs.num_nodes("game") == 2
    with pytest.raises(TypeError, match="node_subgraph: relabel_nodes must be a bool"):
        node_subgraph(g, [0], relabel_nodes="no")


# ------------------------------------------------------------------ to_block
@pytest.mark.parametrize("idtype", IDTYPES)
def test_to_block_other_sources_in_order_of_first_appearance(idtype):
    """DGL's ToBlock (ConcurrentIdHashMap::Init on CPU, OrderedHashTable on CUDA): the dst
    nodes, then the edges' other sources in order of first appearance (not sorted)."""
    frontier = graph((np.array([1, 0, 2, 0], idtype), np.array([2, 3, 3, 2], idtype)), num_nodes=4)
    b = to_block(frontier, np.array([3, 2], idtype))
    np.testing.assert_array_equal(b.srcdata[NID], [3, 2, 1, 0])
    np.testing.assert_array_equal(b.edges()[0], [2, 3, 1, 3])
    np.testing.assert_array_equal(b.edges()[1], [1, 0, 0, 1])
    assert b.srcdata[NID].dtype == idtype
    b = to_block(frontier, np.array([3, 2], idtype), include_dst_in_src=False)
    np.testing.assert_array_equal(b.srcdata[NID], [1, 0, 2])
    np.testing.assert_array_equal(b.edges()[0], [0, 1, 2, 1])


def test_to_block_heterograph_first_appearance_over_edge_types():
    g = heterograph(
        {
            ("user", "follows", "user"): (np.array([4, 1, 4]), np.array([0, 0, 0])),
            ("user", "plays", "game"): (np.array([3, 1, 2]), np.array([0, 0, 0])),
        },
        {"user": 5, "game": 1},
    )
    b = to_block(g, {"user": np.array([0]), "game": np.array([0])})
    srcs = np.concatenate([g.edges(etype=c)[0] for c in g.canonical_etypes])  # etype order
    _, first = np.unique(srcs, return_index=True)
    want = [0] + [v for v in srcs[np.sort(first)] if v != 0]
    np.testing.assert_array_equal(b.srcnodes["user"].data[NID], want)
    assert want != sorted(want)
