"""subgraph, edge_subgraph, to_block and neighbour sampling."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.function as fn
from arraygnn.graph import EID, NID, graph, heterograph, to_block
from arraygnn.sampling import NeighborSampler, sample_blocks, sample_neighbors


def _g(seed=0, n=12, e=60):
    rng = np.random.default_rng(seed)
    g = graph((rng.integers(0, n, e), rng.integers(0, n, e)), num_nodes=n)
    g.ndata["x"] = rng.normal(size=(n, 3))
    g.edata["w"] = rng.normal(size=(e,))
    return g


def test_node_subgraph_keeps_induced_edges_ids_and_features():
    g = _g()
    nodes = np.array([7, 1, 4, 10])
    sg = g.subgraph(nodes)
    src, dst = g.edges()
    keep = np.nonzero(np.isin(src, nodes) & np.isin(dst, nodes))[0]
    pos = np.full(12, -1)
    pos[nodes] = np.arange(4)
    keep = keep[np.argsort(pos[src[keep]], kind="stable")]  # DGL: by new source, stable
    np.testing.assert_array_equal(sg.edata[EID], keep)
    np.testing.assert_array_equal(sg.ndata[NID], nodes)
    ssrc, sdst = sg.edges()
    np.testing.assert_array_equal(nodes[ssrc], src[keep])
    np.testing.assert_array_equal(nodes[sdst], dst[keep])
    np.testing.assert_array_equal(sg.ndata["x"], g.ndata["x"][nodes])
    np.testing.assert_array_equal(sg.edata["w"], g.edata["w"][keep])
    mask = np.zeros(12, bool)
    mask[nodes] = True
    np.testing.assert_array_equal(g.subgraph(mask).ndata[NID], np.sort(nodes))
    with pytest.raises(ValueError, match="unique"):
        g.subgraph([1, 1])
    with pytest.raises(ValueError, match="contains id 12"):
        g.subgraph([12])


def test_edge_subgraph_relabels_endpoints():
    g = _g(1)
    eids = np.array([3, 0, 9])
    sg = g.edge_subgraph(eids)
    src, dst = g.edges()
    np.testing.assert_array_equal(sg.edata[EID], eids)
    both = np.concatenate([src[eids], dst[eids]])  # DGL: first appearance, sources first
    _, first = np.unique(both, return_index=True)
    ends = both[np.sort(first)]
    np.testing.assert_array_equal(sg.ndata[NID], ends)
    ssrc, sdst = sg.edges()
    np.testing.assert_array_equal(ends[ssrc], src[eids])
    np.testing.assert_array_equal(ends[sdst], dst[eids])
    full = g.edge_subgraph(eids, relabel_nodes=False)
    assert full.num_nodes() == 12
    np.testing.assert_array_equal(full.edges()[0], src[eids])


def test_edge_subgraph_matches_dgl_docstring_example():
    """DGL's ``edge_subgraph`` example: edges [0, 4] of the 5-cycle."""
    g = graph((np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 0])))
    g.ndata["x"] = np.arange(10).reshape(5, 2)
    sg = g.edge_subgraph([0, 4])
    np.testing.assert_array_equal(sg.edges()[0], [0, 1])
    np.testing.assert_array_equal(sg.edges()[1], [2, 0])
    np.testing.assert_array_equal(sg.ndata[NID], [0, 4, 1])
    np.testing.assert_array_equal(sg.edata[EID], [0, 4])
    np.testing.assert_array_equal(sg.ndata["x"], [[0, 1], [8, 9], [2, 3]])


def test_hetero_subgraph_with_dict():
    g = heterograph(
        {
            ("u", "f", "u"): (np.array([0, 1, 2]), np.array([1, 2, 0])),
            ("u", "p", "g"): (np.array([0, 2]), np.array([1, 0])),
        },
        {"u": 3, "g": 2},
    )
    sg = g.subgraph({"u": [0, 2], "g": [0]})
    assert sg.num_nodes("u") == 2 and sg.num_nodes("g") == 1
    np.testing.assert_array_equal(sg.edges(etype="f")[0], [1])  # edge 2 -> 0
    np.testing.assert_array_equal(sg.edges[("u", "p", "g")].data[EID], [1])


def test_to_block_puts_dst_nodes_first_and_matches_full_graph():
    g = _g(2)
    dst_nodes = np.array([5, 2, 9])
    frontier = g.edge_subgraph(np.nonzero(np.isin(g.edges()[1], dst_nodes))[0], relabel_nodes=False)
    block = to_block(frontier, dst_nodes)
    assert block.is_block and block.number_of_dst_nodes() == 3
    np.testing.assert_array_equal(block.dstdata[NID], dst_nodes)
    np.testing.assert_array_equal(block.srcdata[NID][:3], dst_nodes)
    block.srcdata["x"] = g.ndata["x"][block.srcdata[NID]]
    block.update_all(fn.copy_u("x", "m"), fn.sum("m", "h"))
    g.update_all(fn.copy_u("x", "m"), fn.sum("m", "h"))
    np.testing.assert_allclose(block.dstdata["h"], g.ndata["h"][dst_nodes])
    with pytest.raises(AttributeError, match="ambiguous on a block"):
        _ = block.ndata
    with pytest.raises(ValueError, match="not among dst_nodes"):
        to_block(g, np.array([0]))
    auto = to_block(frontier)
    np.testing.assert_array_equal(auto.dstdata[NID], np.unique(frontier.edges()[1]))


def test_sample_neighbors_uniform_seeded_without_replacement():
    g = _g(3, n=30, e=400)
    seeds = np.array([0, 3, 17])
    f1 = sample_neighbors(g, seeds, 4, seed=11)
    f2 = sample_neighbors(g, seeds, 4, seed=11)
    np.testing.assert_array_equal(f1.edata[EID], f2.edata[EID])
    eid = f1.edata[EID]
    src, dst = g.edges()
    assert f1.num_nodes() == 30
    np.testing.assert_array_equal(f1.edges()[0], src[eid])
    np.testing.assert_array_equal(f1.edata["w"], g.edata["w"][eid])
    assert len(np.unique(eid)) == len(eid)
    deg = g.in_degrees()
    for s in seeds:
        assert (dst[eid] == s).sum() == min(4, deg[s])
    assert np.isin(dst[eid], seeds).all()
    everything = sample_neighbors(g, seeds, -1)
    assert everything.num_edges() == deg[seeds].sum()
    rep = sample_neighbors(g, seeds, 50, replace=True, seed=1)
    assert rep.num_edges() == 50 * (deg[seeds] > 0).sum()


def test_sampling_is_roughly_uniform():
    g = graph((np.arange(10), np.zeros(10, int)), num_nodes=10)
    counts = np.zeros(10)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        counts[sample_neighbors(g, [0], 3, seed=rng).edata[EID]] += 1
    np.testing.assert_allclose(counts / 2000, 0.3, atol=0.05)


def test_sample_blocks_mini_batch_path_matches_full_graph_with_full_fanout():
    g = _g(4, n=25, e=120)
    seeds = np.array([3, 8])
    input_nodes, output_nodes, blocks = sample_blocks(g, seeds, [-1, -1], seed=0)
    np.testing.assert_array_equal(output_nodes, seeds)
    np.testing.assert_array_equal(blocks[-1].dstdata[NID], seeds)
    for inner, outer in zip(blocks[:-1], blocks[1:]):
        np.testing.assert_array_equal(inner.dstdata[NID], outer.srcdata[NID])
    h = g.ndata["x"][input_nodes]
    for block in blocks:
        block.srcdata["h"] = h
        block.update_all(fn.copy_u("h", "m"), fn.mean("m", "h"))
        h = block.dstdata["h"]
    full = g.ndata["x"]
    for _ in range(2):
        g.ndata["h"] = full
        g.update_all(fn.copy_u("h", "m"), fn.mean("m", "h"))
        full = g.ndata["h"]
    np.testing.assert_allclose(h, full[seeds])
    sampler = NeighborSampler([2, 2], seed=3)
    a = sampler.sample_blocks(g, seeds)[2][0].edata[EID]
    b = NeighborSampler([2, 2], seed=3).sample_blocks(g, seeds)[2][0].edata[EID]
    np.testing.assert_array_equal(a, b)


def test_hetero_sampling_and_blocks():
    rng = np.random.default_rng(5)
    g = heterograph(
        {
            ("user", "follows", "user"): (rng.integers(0, 20, 80), rng.integers(0, 20, 80)),
            ("user", "plays", "game"): (rng.integers(0, 20, 60), rng.integers(0, 6, 60)),
        },
        {"user": 20, "game": 6},
    )
    seeds = {"game": np.array([1, 4]), "user": np.array([0])}
    frontier = sample_neighbors(g, seeds, {"plays": 3, "follows": 2}, seed=0)
    assert frontier.num_edges("plays") <= 6 and frontier.num_edges("follows") <= 2
    block = to_block(frontier, seeds)
    assert block.is_block
    assert block.number_of_dst_nodes("game") == 2 and block.number_of_dst_nodes("user") == 1
    np.testing.assert_array_equal(block.srcnodes["user"].data[NID][:1], [0])
    for ntype in ("user", "game"):
        block.srcnodes[ntype].data["x"] = np.ones((block.num_src_nodes(ntype), 2))
    block.multi_update_all(
        {
            "plays": (fn.copy_u("x", "m"), fn.sum("m", "h")),
            "follows": (fn.copy_u("x", "m"), fn.sum("m", "h")),
        },
        "sum",
    )
    deg_game = block.in_degrees(etype="plays")
    np.testing.assert_allclose(block.dstnodes["game"].data["h"][:, 0], deg_game)
    _, _, blocks = sample_blocks(g, seeds, [2, 2], seed=1)
    assert len(blocks) == 2 and set(blocks[0].dstnodes["user"].data[NID]) >= {0}
