"""A DGL user's daily calls on arraygnn's DGL face (session 9): the gaps found.

Each expected value comes from DGL's code or docstring (dmlc/dgl, python/dgl/heterograph.py
``all_edges``, transforms/functional.py ``line_graph`` and the ``DGLGraph.<name> =
utils.alias_func(<name>)`` method forms, nn/pytorch/conv/ginconv.py's argument order).
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as nn
from arraygnn.graph import (
    EID,
    NID,
    add_self_loop,
    graph,
    heterograph,
    in_subgraph,
    khop_in_subgraph,
    khop_out_subgraph,
    out_subgraph,
    remove_self_loop,
    reverse,
    to_simple,
)
from arraygnn.sampling import sample_neighbors, select_topk


# ---------------------------------------------------------------- g.edges(order='srcdst')
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_edges_order_srcdst_dgl_docstring(idtype):
    # DGL's all_edges docstring: edges sorted by source, then destination
    g = graph((np.array([0, 0, 1, 1], idtype), np.array([1, 0, 2, 3], idtype)))
    u, v, e = g.edges(form="all", order="srcdst")
    assert u.tolist() == [0, 0, 1, 1]
    assert v.tolist() == [0, 1, 2, 3]
    assert e.tolist() == [1, 0, 2, 3]
    assert u.dtype == v.dtype == e.dtype == idtype
    assert [a.tolist() for a in g.edges(order="srcdst")] == [[0, 0, 1, 1], [0, 1, 2, 3]]
    assert g.edges(form="eid", order="srcdst").tolist() == [1, 0, 2, 3]
    # the default stays edge-id order, and the input is not reordered
    assert g.edges(form="eid").tolist() == [0, 1, 2, 3]
    assert g.edges()[1].tolist() == [1, 0, 2, 3]


def test_all_edges_method_and_bad_order():
    g = graph((np.array([2, 0, 2, 0]), np.array([1, 1, 0, 1])), num_nodes=3)
    u, v, e = g.all_edges(form="all", order="srcdst")
    assert list(zip(u.tolist(), v.tolist(), e.tolist())) == [
        (0, 1, 1),
        (0, 1, 3),  # parallel edges keep edge-id order
        (2, 0, 2),
        (2, 1, 0),
    ]
    assert [a.tolist() for a in g.all_edges()] == [[2, 0, 2, 0], [1, 1, 0, 1]]
    with pytest.raises(ValueError, match="order"):
        g.edges(order="dst")
    hg = heterograph(
        {
            ("user", "follows", "user"): (np.array([1, 0]), np.array([2, 1])),
            ("user", "plays", "game"): (np.array([3, 3, 0]), np.array([1, 0, 2])),
        }
    )
    u, v, e = hg.all_edges(form="all", order="srcdst", etype="plays")
    assert (u.tolist(), v.tolist(), e.tolist()) == ([0, 3, 3], [2, 0, 1], [2, 1, 0])


# ---------------------------------------------------------------- DGL's method forms
def _same_graph(a, b):
    assert a.canonical_etypes == b.canonical_etypes
    for t in a.ntypes:
        assert a.num_nodes(t) == b.num_nodes(t)
    for c in a.canonical_etypes:
        for x, y in zip(a.edges(form="all", etype=c), b.edges(form="all", etype=c)):
            np.testing.assert_array_equal(x, y)
        for k in a.edges[c].data.keys():
            np.testing.assert_array_equal(a.edges[c].data[k], b.edges[c].data[k])


def _g():
    g = graph((np.array([0, 0, 1, 2, 2, 3]), np.array([1, 1, 2, 2, 0, 0])), num_nodes=5)
    g.ndata["h"] = np.arange(5.0)
    g.edata["w"] = np.arange(6.0)
    return g


def test_method_forms_match_functions():
    g = _g()
    _same_graph(g.add_self_loop(), add_self_loop(g))
    _same_graph(g.remove_self_loop(), remove_self_loop(g))
    _same_graph(g.reverse(copy_edata=True), reverse(g, copy_edata=True))
    _same_graph(g.to_simple(), to_simple(g))
    # DGL's chain idiom
    _same_graph(g.remove_self_loop().add_self_loop(), add_self_loop(remove_self_loop(g)))
    _same_graph(g.in_subgraph([1, 0]), in_subgraph(g, [1, 0]))
    _same_graph(g.out_subgraph([0]), out_subgraph(g, [0]))
    sg, inv = g.khop_in_subgraph(1, 2)
    sg2, inv2 = khop_in_subgraph(g, 1, 2)
    _same_graph(sg, sg2)
    np.testing.assert_array_equal(inv, inv2)
    _same_graph(g.khop_out_subgraph(0, 1)[0], khop_out_subgraph(g, 0, 1)[0])
    fr = g.sample_neighbors(np.array([0, 1]), 1, seed=3)
    _same_graph(fr, sample_neighbors(g, np.array([0, 1]), 1, seed=3))
    assert EID in fr.edata
    _same_graph(g.select_topk(1, "w"), select_topk(g, 1, "w"))
    # the input is not changed by any of them
    _same_graph(g, _g())
    assert NID not in g.ndata


def test_line_graph_method_dgl_docstring():
    g = graph((np.array([0, 1, 1, 2, 2]), np.array([2, 0, 2, 0, 1])))
    lg = g.line_graph()
    assert [a.tolist() for a in lg.edges()] == [[0, 0, 1, 2, 2, 3, 4, 4], [3, 4, 0, 3, 4, 0, 1, 2]]
    lg = g.line_graph(backtracking=False)
    assert [a.tolist() for a in lg.edges()] == [[0, 1, 2, 4], [4, 0, 3, 1]]


def test_global_uniform_negative_sampling_method():
    from arraygnn.sampling import global_uniform_negative_sampling

    g = _g()
    a = g.global_uniform_negative_sampling(4, seed=0)
    b = global_uniform_negative_sampling(g, 4, seed=0)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------- GINConv argument order
def test_gin_dgl_positional_aggregator_is_named_error():
    # DGL: GINConv(apply_func, aggregator_type, init_eps=0, ...); arraygnn: GINConv(nn, eps,
    # aggregator_type): a DGL-ordered call must say which argument is wrong
    lin = nn.Linear(4, 3)
    with pytest.raises(TypeError, match=r"eps.*aggregator_type='max'"):
        nn.GINConv(lin, "max")
    with pytest.raises(TypeError, match="eps"):
        nn.GINConv(lin, eps=None)
    conv = nn.GINConv(lin, 0.5, "max")
    assert conv.eps.tolist() == [0.5] and conv.aggregator_type == "max"
    assert nn.GINConv(lin, np.float32(0.25)).eps.tolist() == [0.25]


# ---------------------------------------------------------------- NeighborSampler prefetch
def _feat_graph():
    rng = np.random.default_rng(0)
    g = graph((rng.integers(0, 12, 40), rng.integers(0, 12, 40)), num_nodes=12)
    g.ndata["feat"] = rng.standard_normal((12, 3)).astype(np.float32)
    g.ndata["label"] = np.arange(12)
    g.edata["w"] = np.arange(40.0)
    return g


def test_neighbor_sampler_prefetch_dgl_example():
    # DGL's examples/pytorch/graphsage/node_classification.py:
    # NeighborSampler([10, 10, 10], prefetch_node_feats=["feat"], prefetch_labels=["label"])
    from arraygnn.sampling import NeighborSampler, NodeDataLoader

    g = _feat_graph()
    for copy_ndata in (True, False):
        sampler = NeighborSampler(
            [3, 2],
            prefetch_node_feats=["feat"],
            prefetch_labels=["label"],
            prefetch_edge_feats=["w"],
            seed=0,
            copy_ndata=copy_ndata,
        )
        loader = NodeDataLoader(g, np.arange(12), sampler, batch_size=5)
        for input_nodes, output_nodes, blocks in loader:
            np.testing.assert_array_equal(blocks[0].srcdata["feat"], g.ndata["feat"][input_nodes])
            np.testing.assert_array_equal(blocks[-1].dstdata["label"], output_nodes)
            for b in blocks:
                np.testing.assert_array_equal(b.edata["w"], g.edata["w"][b.edata[EID]])
            if not copy_ndata:  # only what was asked for
                assert "label" not in blocks[0].srcdata and "feat" not in blocks[-1].dstdata


def test_neighbor_sampler_prefetch_hetero_and_errors():
    from arraygnn.sampling import NeighborSampler

    hg = heterograph(
        {
            ("user", "plays", "game"): (np.array([0, 1, 2, 2]), np.array([0, 0, 1, 2])),
            ("game", "rev", "user"): (np.array([0, 1, 2]), np.array([1, 2, 0])),
        }
    )
    hg.nodes["user"].data["x"] = np.arange(3.0)[:, None]
    hg.nodes["game"].data["y"] = np.arange(3.0)[:, None] + 10
    s = NeighborSampler([-1], prefetch_node_feats={"user": ["x"]}, copy_ndata=False)
    inp, _, (b,) = s.sample_blocks(hg, {"game": np.array([0])})
    np.testing.assert_array_equal(b.srcnodes["user"].data["x"][:, 0], inp["user"])
    # a list applies to every node type that has the feature
    s = NeighborSampler([-1], prefetch_labels=["y"], copy_ndata=False)
    _, out, (b,) = s.sample_blocks(hg, {"game": np.array([2, 0])})
    np.testing.assert_array_equal(b.dstnodes["game"].data["y"][:, 0], out["game"] + 10)
    with pytest.raises(KeyError, match="nope"):
        NeighborSampler([2], prefetch_node_feats=["nope"]).sample_blocks(
            hg, {"game": np.array([0])}
        )
    with pytest.raises(TypeError, match="prefetch_labels"):
        NeighborSampler([2], prefetch_labels="label")


def test_full_neighbor_sampler_prefetch_dgl_inference():
    # DGL's layer-wise inference: MultiLayerFullNeighborSampler(1, prefetch_node_feats=["feat"])
    from arraygnn.sampling import MultiLayerFullNeighborSampler

    g = _feat_graph()
    s = MultiLayerFullNeighborSampler(
        1, prefetch_node_feats=["feat"], prefetch_edge_feats={"_E": ["w"]}, copy_ndata=False
    )
    inp, _, (b,) = s.sample_blocks(g, np.array([3, 1]))
    np.testing.assert_array_equal(b.srcdata["feat"], g.ndata["feat"][inp])
    assert b.num_edges() == int(g.in_degrees(3) + g.in_degrees(1))
    with pytest.raises(KeyError, match="'v'"):
        MultiLayerFullNeighborSampler(1, prefetch_edge_feats=["v"]).sample_blocks(g, [0])


def test_nodes_without_type_on_a_uni_bipartite_graph_is_refused_as_dgl():
    """DGL's ``get_ntype_id(None)`` raises for a uni-bipartite graph (and for several node
    types); ``srcnodes()`` / ``dstnodes()`` still pick their side's one type."""
    from arraygnn.graph import heterograph

    hg = heterograph({("user", "plays", "game"): (np.array([0, 1]), np.array([1, 2]))})
    with pytest.raises(ValueError, match="pass ntype="):
        hg.nodes()
    with pytest.raises(ValueError, match="pass ntype="):
        hg.batch_num_nodes()
    assert hg.srcnodes().tolist() == [0, 1] and hg.dstnodes().tolist() == [0, 1, 2]
    assert hg.nodes("game").tolist() == [0, 1, 2] and hg.batch_num_nodes("user").tolist() == [2]
