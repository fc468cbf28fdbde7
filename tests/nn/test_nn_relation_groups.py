"""``group_relations``: edges grouped once, reused by every relational layer.

Every layer form gives the same bits with the groups as with ``edge_index`` /
``edge_type`` (same grouping, same kernels), on both computation paths; bad groups are
named; the caller's arrays are neither needed nor modified afterwards.
"""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph

import arraygnn
import arraygnn.nn as agnn
from arraygnn.nn.relation_groups import relation_csr, relation_rows


def _typed(rng, n, num_rel, index_dtype=np.int64, num_edges=None):
    ei = random_graph(rng, n, num_edges=num_edges, index_dtype=index_dtype)
    return ei, rng.integers(0, num_rel, ei.shape[1]).astype(index_dtype)


LAYERS = [
    ("rgcn mean", lambda: agnn.RGCNConv(8, 6, 4, rng=0)),
    ("rgcn add", lambda: agnn.RGCNConv(8, 6, 4, aggr="add", rng=1)),
    ("rgcn max bases", lambda: agnn.RGCNConv(8, 6, 4, num_bases=2, aggr="max", rng=2)),
    ("rgcn blocks", lambda: agnn.RGCNConv(8, 6, 4, num_blocks=2, rng=3)),
    ("relgraphconv bdd", lambda: agnn.RelGraphConv(8, 6, 4, "bdd", 2, rng=4)),
]


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name, make", LAYERS, ids=[n for n, _ in LAYERS])
def test_groups_give_the_same_bits_as_edge_lists(name, make, index_dtype, path):
    rng = np.random.default_rng(0)
    ei, etype = _typed(rng, 30, 4, index_dtype)
    x = rng.standard_normal((30, 8)).astype(np.float32)
    conv = make()
    groups = agnn.group_relations(ei, etype, 4, num_nodes=30)
    expected = conv(x, ei, etype)
    np.testing.assert_array_equal(conv(x, groups), expected)
    np.testing.assert_array_equal(conv(x, groups), expected)  # reused: rows cached
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=30)
    g_groups = agnn.group_relations(g, etype, 4)
    np.testing.assert_array_equal(conv(g, x, g_groups), conv(g, x, etype))
    csr_groups = agnn.group_relations(arraygnn.ops.to_csr(ei, 30, 30), etype, 4)
    np.testing.assert_array_equal(conv(x, csr_groups), expected)


def test_groups_serve_norm_featureless_bipartite_blocks_and_empty(path):
    rng = np.random.default_rng(1)
    ei, etype = _typed(rng, 25, 3, num_edges=120)
    norm = rng.random((120, 1)).astype(np.float32)
    x = rng.standard_normal((25, 8)).astype(np.float32)
    groups = agnn.group_relations(ei, etype, 3, 25)
    rel = agnn.RelGraphConv(8, 5, 3, layer_norm=True, activation="relu", rng=0)
    np.testing.assert_array_equal(rel(x, groups, norm=norm), rel(x, ei, etype, norm))
    # featureless: node ids select rows of the weights (keys regrouped by one gather)
    ids = agnn.RGCNConv(25, 5, 3, rng=1)
    perm = rng.permutation(25)
    for feat in (None, perm):
        np.testing.assert_array_equal(ids(feat, groups), ids(feat, ei, etype))
    # bipartite, targets without edges
    x_src = rng.standard_normal((15, 8)).astype(np.float32)
    x_dst = rng.standard_normal((6, 5)).astype(np.float32)
    bi = np.stack([rng.integers(0, 15, 40), rng.integers(0, 4, 40)])
    bi_type = rng.integers(0, 3, 40)
    conv = agnn.RGCNConv((8, 5), 7, 3, rng=2)
    bi_groups = agnn.group_relations(bi, bi_type, 3, num_nodes=(15, 6))
    np.testing.assert_array_equal(
        conv((x_src, x_dst), bi_groups), conv((x_src, x_dst), bi, bi_type)
    )
    # a block (DGL form), its sources first
    into = ei[1] < 6
    block = arraygnn.to_block(
        arraygnn.graph((ei[0][into], ei[1][into]), num_nodes=25), np.arange(6)
    )
    b_etype = etype[into][block.edata[arraygnn.EID]]
    feats = x[block.srcdata[arraygnn.NID]]
    b_groups = agnn.group_relations(block, b_etype, 3)
    assert (b_groups.num_src_nodes, b_groups.num_dst_nodes) == (block.num_src_nodes(), 6)
    assert b_groups.num_edges == int(into.sum()) > 0
    np.testing.assert_array_equal(rel(block, feats, b_groups), rel(block, feats, b_etype))
    # no edges
    empty = agnn.group_relations(np.zeros((2, 0), np.int32), np.zeros(0, np.int32), 3, 25)
    np.testing.assert_array_equal(
        rel(x, empty), rel(x, np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
    )


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])  # int32: the CSR's own dtype
def test_groups_hold_copies_and_leave_inputs_alone(index_dtype, path):
    rng = np.random.default_rng(2)
    ei, etype = _typed(rng, 20, 3, index_dtype)
    ei_before, etype_before = ei.copy(), etype.copy()
    groups = agnn.group_relations(ei, etype, 3, 20)
    np.testing.assert_array_equal(ei, ei_before)
    np.testing.assert_array_equal(etype, etype_before)
    conv = agnn.RGCNConv(8, 4, 3, rng=0)
    x = rng.standard_normal((20, 8)).astype(np.float32)
    expected = conv(x, ei, etype)
    free = agnn.RGCNConv(20, 4, 3, rng=1)
    expected_free = free(None, ei, etype)
    etype[:] = 0  # the caller reuses its arrays: the groups do not see it
    ei[0, :] = 0
    ei[1] = (ei[1] + 1) % 20
    np.testing.assert_array_equal(conv(x, groups), expected)
    np.testing.assert_array_equal(free(None, groups), expected_free)
    for a in (groups.csr.src, groups.csr.dst):
        assert not np.shares_memory(a, ei)
    for a in (groups.csr.indptr, groups.csr.indices, groups.rel, groups.edge_type):
        assert not a.flags.writeable
    with pytest.raises(ValueError):
        groups.rel[0] = 1


def test_rows_from_groups_equal_relation_rows():
    """The cached (relation, target) rows are what relation_rows builds from scratch, and
    relation_rows' order is relation-major, targets ascending, edge ids ascending."""
    rng = np.random.default_rng(3)
    ei, etype = _typed(rng, 30, 5, num_edges=200)
    groups = agnn.group_relations(ei, etype, 5, 30)
    cached = groups.rows()
    fresh = relation_rows(ei, etype, 5, 30, 30)
    for a, b in [
        (cached.csr.indptr, fresh.csr.indptr),
        (cached.csr.indices, fresh.csr.indices),
        (cached.csr.perm, fresh.csr.perm),
        (cached.row_dst, fresh.row_dst),
        (cached.row_rel, fresh.row_rel),
        (cached.rel_ptr, fresh.rel_ptr),
    ]:
        np.testing.assert_array_equal(a, b)
    order = np.lexsort((np.arange(200), ei[1], etype))  # relation, target, edge id
    np.testing.assert_array_equal(fresh.csr.perm, order)
    csr, rel = relation_csr(ei, etype, 5, 30, 30)
    np.testing.assert_array_equal(csr.perm, np.lexsort((np.arange(200), etype, ei[1])))
    np.testing.assert_array_equal(rel, etype[csr.perm])
    np.testing.assert_array_equal(cached.csr.indices, ei[0, cached.csr.perm])
    np.testing.assert_array_equal(
        cached.csr.dst[cached.csr.perm],
        np.repeat(np.arange(cached.csr.num_dst_nodes), np.diff(cached.csr.indptr)),
    )


def test_bad_groups_are_named():
    rng = np.random.default_rng(4)
    ei, etype = _typed(rng, 10, 3)
    x = rng.standard_normal((10, 8)).astype(np.float32)
    conv = agnn.RGCNConv(8, 4, 3, rng=0)
    groups = agnn.group_relations(ei, etype, 3, 10)
    with pytest.raises(TypeError, match="without edge_type"):
        conv(x, groups, etype)
    with pytest.raises(TypeError, match="in place of edge_index"):
        conv(x, ei, groups)
    with pytest.raises(ValueError, match="num_relations=3, the layer has 4"):
        agnn.RGCNConv(8, 4, 4, rng=0)(x, groups)
    with pytest.raises(ValueError, match="features have"):
        conv(x[:9], groups)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=10)
    with pytest.raises(ValueError, match="not built from this graph"):
        conv(g, x, groups)
    other = arraygnn.graph((ei[0], ei[1]), num_nodes=10)
    with pytest.raises(ValueError, match="not built from this graph"):
        conv(g, x, agnn.group_relations(other, etype, 3))
    with pytest.raises(ValueError, match="num_nodes is required"):
        agnn.group_relations(ei, etype, 3)
    with pytest.raises(ValueError, match=r"num_nodes=\(11, 11\) but the edges connect"):
        agnn.group_relations(g, etype, 3, num_nodes=11)
    with pytest.raises(ValueError, match="relation 3, out of range"):
        agnn.group_relations(ei, np.full(ei.shape[1], 3), 3, 10)
    with pytest.raises(ValueError, match="edge_type must have shape"):
        agnn.group_relations(ei, etype[:-1], 3, 10)
    with pytest.raises(ValueError, match="targets"):
        agnn.group_relations(ei, etype, 3, (10, 5))
    with pytest.raises(ValueError, match="at least 1"):
        agnn.group_relations(ei, etype, 0, 10)
    with pytest.raises(TypeError, match="num_relations must be an int"):
        agnn.group_relations(ei, etype, 2.5, 10)
    hetero = arraygnn.heterograph(
        {
            ("a", "r", "b"): (np.array([0]), np.array([0])),
            ("b", "s", "a"): (np.array([0]), np.array([0])),
        }
    )
    with pytest.raises(ValueError, match="several edge types"):
        agnn.group_relations(hetero, np.zeros(1, np.int64), 2)
    assert "num_relations=3" in repr(groups) and "graph" not in repr(groups)
