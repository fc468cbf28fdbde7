"""Review tests for the DGL graph ops of tests/graph/test_dgl_graph_ops_more.py: behaviour
read off DGL's python/dgl/convert.py (to_heterogeneous), transforms/functional.py
(adj_product_graph, sort_csr_by_tag / sort_csc_by_tag) and src/graph/unit_graph.cc.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    EID,
    ETYPE,
    NID,
    NTYPE,
    adj_product_graph,
    graph,
    heterograph,
    sort_csc_by_tag,
    sort_csr_by_tag,
    to_heterogeneous,
)


# ---------------------------------------------------------------- to_heterogeneous
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_to_heterogeneous_ids_are_int64_as_dgl(idtype):
    # DGL stores F.tensor(<np.argsort / np.nonzero output>): int64 whatever the idtype
    g = graph((np.array([0, 1, 2], idtype), np.array([1, 2, 0], idtype)), num_nodes=3)
    g.ndata[NTYPE] = np.array([0, 1, 0])
    g.edata[ETYPE] = np.array([0, 0, 1])
    hg = to_heterogeneous(g, ["a", "b"], ["r", "s"])
    assert hg.idtype == idtype
    for t in hg.ntypes:
        assert hg.nodes[t].data[NID].dtype == np.int64
    for c in hg.canonical_etypes:
        assert hg.edges[c].data[EID].dtype == np.int64
        assert hg.edges(etype=c)[0].dtype == idtype


# ---------------------------------------------------------------- adj_product_graph
def test_adj_product_graph_same_end_type_needs_equal_counts():
    # A: u -> i with 5 u's; B: i -> u with 3 u's. C is u -> u, one node type (DGL's
    # num_vtypes == 1), and DGL's CreateFromCSR checks rows == cols: it refuses this.
    A = heterograph({("u", "b", "i"): (np.array([4]), np.array([0]))}, {"u": 5, "i": 2})
    B = heterograph({("i", "r", "u"): (np.array([0]), np.array([1]))}, {"u": 3, "i": 2})
    A.edata["w"], B.edata["w"] = np.ones(1), np.ones(1)
    with pytest.raises(ValueError, match="adj_product_graph: .*'u'.*5.*3"):
        adj_product_graph(A, B, "w")


# ---------------------------------------------------------------- sort by tag
def _dgl_num_tags(tag, other, tag_type):
    """DGL: tag = tag[dst] (csr) / tag[src] (csc) for node tags; num_tags = max + 1."""
    etag = tag[other] if tag_type == "node" else tag
    return int(etag.max()) + 1


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_sort_by_tag_num_tags_from_the_edge_tags_as_dgl(idtype):
    # node 3 carries the largest tag but is no edge's destination (csr) / source (csc)
    g = graph((np.array([0, 1], idtype), np.array([1, 2], idtype)), num_nodes=4)
    tag = np.array([0, 1, 0, 5])  # edge tags: [1, 0] by destination, [0, 1] by source
    s, d = g.edges()
    out = sort_csr_by_tag(g, tag)
    assert out.ndata["_TAG_OFFSET"].shape == (4, _dgl_num_tags(tag, d, "node") + 1)
    np.testing.assert_array_equal(
        out.ndata["_TAG_OFFSET"], [[0, 0, 1], [0, 1, 1], [0, 0, 0], [0, 0, 0]]
    )
    out = sort_csc_by_tag(g, tag)
    assert out.ndata["_TAG_OFFSET"].shape == (4, _dgl_num_tags(tag, s, "node") + 1)
    np.testing.assert_array_equal(
        out.ndata["_TAG_OFFSET"], [[0, 0, 0], [0, 1, 1], [0, 0, 1], [0, 0, 0]]
    )


def test_sort_by_tag_no_edges_has_no_tags():
    # no edge tags: no tag runs (DGL's max over an empty tensor raises; we give 0 tags)
    g = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=3)
    out = sort_csr_by_tag(g, np.array([0, 2, 1]))
    assert out.ndata["_TAG_OFFSET"].shape == (3, 1) and not out.ndata["_TAG_OFFSET"].any()


# ---------------------------------------------------------------- radius_graph
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("self_loop", [False, True])
def test_radius_graph_float32_compares_in_float32_as_dgl(p, self_loop):
    # DGL: torch.cdist in x's dtype, then ``distances <= r`` with r cast to float32; a
    # float32 lattice with spacing r has every neighbour at exactly float32(r)
    torch = pytest.importorskip("torch")
    from arraygnn.graph import radius_graph

    step = np.float32(0.1)
    xs, ys = np.meshgrid(np.arange(4), np.arange(3))
    x = (np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32) * step).astype(np.float32)
    r = 0.1
    dist = torch.cdist(torch.from_numpy(x), torch.from_numpy(x), p=p)
    if not self_loop:
        dist.fill_diagonal_(r + 1)
    s, d = torch.nonzero(dist <= r, as_tuple=True)
    g, got = radius_graph(x, r, p=p, self_loop=self_loop, get_distances=True)
    assert g.num_edges() == len(s) > 0
    np.testing.assert_array_equal(g.edges()[0], s.numpy())
    np.testing.assert_array_equal(g.edges()[1], d.numpy())
    np.testing.assert_allclose(got[:, 0], dist[s, d].numpy(), rtol=1e-6)
    assert got.dtype == np.float32


# ---------------------------------------------------------------- sample_etype_neighbors
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_sample_etype_neighbors_fanout_minus_one_keeps_positive_edges_once(replace, seed):
    # DGL CSRRowWisePerEtypePick: num_picks == -1 selects every edge of the type (with a
    # probability array: every positive one), whatever ``replace`` says
    from arraygnn.graph import sample_etype_neighbors

    g = graph((np.array([1, 2, 3, 4, 5, 1, 2]), np.array([0, 0, 0, 0, 0, 0, 0])))
    g.edata["p"] = np.array([1.0, 2.0, 0.0, 1.0, 3.0, 1.0, 1.0])
    fr = sample_etype_neighbors(g, [0], [0, 5, 7], [-1, 1], prob="p", replace=replace, seed=seed)
    eid = fr.edata[EID].tolist()
    assert [e for e in eid if e < 5] == [0, 1, 3, 4]
    assert len([e for e in eid if e >= 5]) == 1
    fr = sample_etype_neighbors(g, [0], [0, 5, 7], [-1, -1], replace=replace, seed=seed)
    assert fr.edata[EID].tolist() == list(range(7))


def test_adj_graphs_half_weights_on_the_host_name_the_argument():
    # DGL's CPU CSRMM / CSRSum exist for float32 and float64 only; the Numba kernel has
    # no float16 either, so the host path must refuse it up front, naming the weights
    from arraygnn.graph import adj_sum_graph

    A = graph((np.array([0, 0, 1]), np.array([1, 2, 2])), num_nodes=3)
    A.edata["w"] = np.array([1, 2, 3], np.float16)
    with pytest.raises(TypeError, match=r"adj_product_graph: A.edata\['w'\].*float16"):
        adj_product_graph(A, A, "w")
    with pytest.raises(TypeError, match=r"adj_sum_graph: graphs\[0\].edata\['w'\].*float16"):
        adj_sum_graph([A, A], "w")
