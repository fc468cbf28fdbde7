"""Review tests for DGL's ``dgl.transforms`` classes (arraygnn.graph.transform_modules /
diffusion_transforms): integer edge weights (DGL casts them to float32), heterograph
handling, fill values, idtypes, and no mutation of the input."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph
from arraygnn.graph.diffusion_transforms import GDC, PPR, GCNNorm, HeatKernel, SIGNDiffusion
from arraygnn.graph.transform_modules import (
    AddMetaPaths,
    AddReverse,
    AddSelfLoop,
    Compose,
    KHopGraph,
    LineGraph,
    RemoveSelfLoop,
    ToSimple,
)

IDTYPES = [np.int32, np.int64]


def _int_weighted(idtype):
    rng = np.random.default_rng(5)
    s, d = rng.integers(0, 6, 18), rng.integers(0, 6, 18)
    g = graph((s.astype(idtype), d.astype(idtype)), num_nodes=7)  # node 6 isolated
    g.edata["c"] = rng.integers(1, 4, 18)
    g.ndata["x"] = rng.random((7, 2)).astype(np.float32)
    return g


def _ref_gcn_norm_int(g, c):
    """DGL's GCNNorm on integer weights: the degree summed in the integer type, then
    ``1 / sqrt`` in float32 (torch's sqrt of an int tensor), times the weight."""
    s, d = (np.asarray(x, dtype=np.int64) for x in g.edges())
    deg = np.zeros(g.num_nodes(), np.int64)
    np.add.at(deg, d, c)
    with np.errstate(divide="ignore"):
        inv = np.float32(1.0) / np.sqrt(deg.astype(np.float32))
    inv[np.isinf(inv)] = 0
    return inv[s] * c.astype(np.float32) * inv[d]


@pytest.mark.parametrize("idtype", IDTYPES)
def test_gcn_norm_integer_weights_as_dgl(idtype):
    g = _int_weighted(idtype)
    c = np.array(g.edata["c"])
    h = GCNNorm(eweight_name="c")(g)
    assert h.edata["c"].dtype == np.float32
    np.testing.assert_allclose(h.edata["c"], _ref_gcn_norm_int(g, c), rtol=1e-6)
    np.testing.assert_array_equal(g.edata["c"], c)  # input unchanged


def test_to_simple_then_gcn_norm_on_counts():
    g = graph((np.array([0, 0, 1, 2, 2, 2]), np.array([1, 1, 2, 0, 0, 1])))
    h = Compose([ToSimple(), GCNNorm(eweight_name="count")])(g)
    s = ToSimple()(g)
    np.testing.assert_allclose(
        h.edata["count"], _ref_gcn_norm_int(s, np.asarray(s.edata["count"])), rtol=1e-6
    )


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize(
    "make", [lambda: PPR(alpha=0.3, avg_degree=2), lambda: HeatKernel(t=0.7), lambda: GDC([1, 0.5])]
)
def test_diffusions_integer_weights_as_float32(idtype, make):
    """DGL: ``scale * int_weights`` is a float32 tensor (``mat[dst, src] = eweight``)."""
    g = _int_weighted(idtype)
    f = _int_weighted(idtype)
    f.edata["w"] = np.asarray(f.edata["c"]).astype(np.float32)
    g.edata["w"] = np.asarray(g.edata["c"])
    got, want = make()(g), make()(f)
    assert [np.asarray(a).tolist() for a in got.edges()] == [
        np.asarray(a).tolist() for a in want.edges()
    ]
    np.testing.assert_array_equal(got.edata["w"], want.edata["w"])
    assert got.edata["w"].dtype == np.float32 and got.idtype == idtype


@pytest.mark.parametrize("op", ["gcn", "ppr"])
def test_sign_gcn_integer_weights(op):
    g = _int_weighted(np.int64)
    x = np.asarray(g.ndata["x"])
    h = SIGNDiffusion(2, in_feat_name="x", eweight_name="c", diffuse_op=op, alpha=0.25)(g)
    w = _ref_gcn_norm_int(g, np.asarray(g.edata["c"]))
    s, d = (np.asarray(a, dtype=np.int64) for a in g.edges())
    hh = x
    for i in (1, 2):
        agg = np.zeros_like(x)
        np.add.at(agg, d, w[:, None] * hh[s])
        hh = agg if op == "gcn" else 0.75 * agg + 0.25 * x
        np.testing.assert_allclose(h.ndata[f"out_feat_{i}"], hh, rtol=1e-5)


def test_diffusion_weight_errors():
    g = graph((np.array([0]), np.array([1])))
    g.edata["w"] = np.array([True])
    for t in (PPR(), HeatKernel(), GDC([1.0]), GCNNorm()):
        with pytest.raises(TypeError, match=type(t).__name__ + ": edge feature 'w'"):
            t(g)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_add_self_loop_hetero_fill_and_dtypes(idtype):
    """DGL's add_self_loop per same-type edge type: a numeric fill cast to the feature's
    dtype (2.5 -> 2 in an int feature), 'max' gives 0 on nodes without in-edges, the
    features not named are zero-filled; the cross-type relation is untouched."""
    ids = lambda *a: np.array(a, dtype=idtype)  # noqa: E731
    g = heterograph(
        {
            ("a", "r", "a"): (ids(0, 1, 2), ids(1, 1, 0)),
            ("a", "x", "b"): (ids(0, 2), ids(1, 0)),
        },
        num_nodes_dict={"a": 4, "b": 2},
    )
    g.edges["r"].data["i"] = np.array([5, 6, 7], np.int32)
    g.edges["r"].data["f"] = np.array([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]], np.float32)
    g.edges["x"].data["f"] = np.array([[1.0, 1.0], [2.0, 2.0]], np.float32)
    h = AddSelfLoop(fill_data=2.5)(g)
    assert h.idtype == idtype
    np.testing.assert_array_equal(h.edges["r"].data["i"], [5, 7, 2, 2, 2, 2])
    assert h.edges["r"].data["i"].dtype == np.int32
    h = AddSelfLoop(edge_feat_names=["f"], fill_data="max")(g)
    np.testing.assert_array_equal(
        h.edges["r"].data["f"], [[1, -2], [-5, 6], [-5, 6], [1, -2], [0, 0], [0, 0]]
    )
    np.testing.assert_array_equal(h.edges["r"].data["i"], [5, 7, 0, 0, 0, 0])
    assert h.edges["r"].data["f"].dtype == np.float32
    np.testing.assert_array_equal(h.edges["x"].data["f"], g.edges["x"].data["f"])
    assert [np.asarray(a).tolist() for a in h.edges(etype="x")] == [[0, 2], [1, 0]]
    assert g.num_edges("r") == 3


@pytest.mark.parametrize("idtype", IDTYPES)
def test_remove_self_loop_keeps_batch_information(idtype):
    """DGL's remove_self_loop is remove_edges of the loops: the batch information is
    recounted (add_self_loop, add_edges and the rebuilt graphs drop it)."""
    from arraygnn.graph import batch

    a = graph((np.array([0, 1, 1], idtype), np.array([1, 0, 1], idtype)))
    b = graph((np.array([0, 0, 2], idtype), np.array([0, 1, 2], idtype)))
    a.edata["e"] = np.array([1.0, 2.0, 3.0])
    b.edata["e"] = np.array([4.0, 5.0, 6.0])
    bg = batch([a, b])
    h = RemoveSelfLoop()(bg)
    assert h.batch_size == 2
    assert np.asarray(h.batch_num_nodes()).tolist() == [2, 3]
    assert np.asarray(h.batch_num_edges()).tolist() == [2, 1]
    np.testing.assert_array_equal(h.edata["e"], [1.0, 2.0, 5.0])
    assert h.idtype == idtype
    assert bg.num_edges() == 6
    assert AddSelfLoop()(bg).batch_size == 1  # DGL's add_self_loop discards it


def test_to_simple_edges_sorted_as_dgl():
    """DGL's C++ COOToSimple sorts the edges by (src, dst) (COOSort then COOCoalesce)."""
    g = graph((np.array([2, 0, 1, 2]), np.array([0, 1, 2, 0])))
    h = ToSimple()(g)
    assert [np.asarray(a).tolist() for a in h.edges()] == [[0, 1, 2], [1, 2, 0]]
    np.testing.assert_array_equal(h.edata["count"], [1, 1, 2])


@pytest.mark.parametrize("idtype", IDTYPES)
def test_khop_graph_k0_is_identity_as_dgl(idtype):
    """DGL's KHopGraph does not check k: k=0 is A ** 0, one self-loop per node (as the
    functional khop_graph here)."""
    g = graph((np.array([0, 1, 1], idtype), np.array([1, 2, 2], idtype)), num_nodes=4)
    g.ndata["x"] = np.arange(4.0)
    h = KHopGraph(0)(g)
    assert [np.asarray(a).tolist() for a in h.edges()] == [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert h.ndata["x"] is g.ndata["x"] and h.idtype == idtype
    with pytest.raises(ValueError, match="KHopGraph: k"):
        KHopGraph(-1)


# DGL's own tests (tests/python/common/transforms/test_transform.py, test_module_*),
# transcribed with their expected values.


def _eset(g, etype=None):
    s, d = g.edges(etype=etype)
    return set(zip(np.asarray(s).tolist(), np.asarray(d).tolist()))


_CHAIN = ([0, 1, 2, 3, 4], [2, 3, 4, 5, 3])
_PPR_GDC_SET = {
    (0, 0), (0, 2), (0, 4), (1, 1), (1, 3), (1, 5), (2, 2), (2, 3),
    (2, 4), (3, 3), (3, 5), (4, 3), (4, 4), (4, 5), (5, 5),
}  # fmt: skip


@pytest.mark.parametrize("idtype", IDTYPES)
def test_dgl_module_gcnnorm(idtype):
    ids = lambda *a: np.array(a, dtype=idtype)  # noqa: E731
    g = heterograph(
        {
            ("A", "r1", "A"): (ids(0, 1, 2), ids(0, 0, 1)),
            ("A", "r2", "B"): (ids(0, 0), ids(1, 1)),
            ("B", "r3", "B"): (ids(0, 1, 2), ids(0, 0, 1)),
        }
    )
    g.edges["r3"].data["w"] = np.array([0.1, 0.2, 0.3], np.float32)
    h = GCNNorm()(g)
    assert "w" not in h.edges[("A", "r2", "B")].data
    np.testing.assert_allclose(h.edges["r1"].data["w"], [0.5, 1 / np.sqrt(2), 0.0], rtol=1e-6)
    np.testing.assert_allclose(h.edges["r3"].data["w"], [1 / 3, 2 / 3, 0.0], rtol=1e-6)


@pytest.mark.parametrize("idtype", IDTYPES)
def test_dgl_module_ppr_gdc_heat_kernel(idtype):
    g = graph(tuple(np.array(a, idtype) for a in _CHAIN))
    g.ndata["h"] = np.random.default_rng(0).random((6, 2)).astype(np.float32)
    for t in (PPR(avg_degree=2), GDC([0.1, 0.2, 0.1], avg_degree=1)):
        h = t(g)
        assert h.idtype == idtype and h.num_nodes() == 6 and "w" in h.edata
        assert _eset(h) == _PPR_GDC_SET
        assert h.ndata["h"] is g.ndata["h"]
    assert "w" in HeatKernel(avg_degree=1)(g).edata
    g.edata["w"] = np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32)
    assert _eset(PPR(avg_degree=2)(g)) == {
        (0, 0), (1, 1), (1, 3), (2, 2), (2, 3), (2, 4),
        (3, 3), (3, 5), (4, 3), (4, 4), (4, 5), (5, 5),
    }  # fmt: skip
    assert _eset(GDC([0.1, 0.2, 0.1], avg_degree=1)(g)) == {
        (0, 0), (1, 1), (2, 2), (3, 3), (4, 3), (4, 4), (5, 5)
    }  # fmt: skip
    u = graph((np.array([0, 1, 2, 3], idtype), np.array([1, 0, 3, 2], idtype)))
    u.edata["w"] = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    assert _eset(HeatKernel(avg_degree=1)(u)) == {(0, 0), (1, 1), (2, 2), (3, 3)}


@pytest.mark.parametrize("idtype", IDTYPES)
def test_dgl_module_to_simple_line_khop(idtype):
    g = graph((np.array([0, 1, 1], idtype), np.array([1, 2, 2], idtype)))
    g.edata["w"] = np.array([[0.1], [0.2], [0.3]], np.float32)
    s = ToSimple()(g)
    assert s.idtype == idtype and _eset(s) == {(0, 1), (1, 2)}
    np.testing.assert_array_equal(s.edata["count"], [1, 2])
    lg = graph((np.array([0, 1, 1], idtype), np.array([1, 0, 2], idtype)))
    assert _eset(LineGraph()(lg)) == {(0, 1), (0, 2), (1, 0)}
    assert _eset(LineGraph(backtracking=False)(lg)) == {(0, 2)}
    k = graph((np.array([0, 1], idtype), np.array([1, 2], idtype)))
    assert _eset(KHopGraph(2)(k)) == {(0, 2)} and KHopGraph(2)(k).idtype == idtype


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("keep", [True, False])
def test_dgl_module_add_metapaths_and_compose(idtype, keep):
    ids = lambda *a: np.array(a, dtype=idtype)  # noqa: E731
    g = heterograph(
        {
            ("person", "author", "paper"): (ids(0, 0, 1), ids(1, 2, 2)),
            ("paper", "accepted", "venue"): (ids(1), ids(0)),
            ("paper", "rejected", "venue"): (ids(2), ids(1)),
        }
    )
    g.nodes["venue"].data["h"] = np.ones((2, 2), np.float32)
    g.edges["author"].data["h"] = np.ones((3, 3), np.float32)
    metapaths = {
        "accepted": [("person", "author", "paper"), ("paper", "accepted", "venue")],
        "rejected": [("person", "author", "paper"), ("paper", "rejected", "venue")],
    }
    h = AddMetaPaths(metapaths, keep_orig_edges=keep)(g)
    assert h.idtype == idtype and h.ntypes == g.ntypes
    assert {t: h.num_nodes(t) for t in h.ntypes} == {t: g.num_nodes(t) for t in g.ntypes}
    assert h.nodes["venue"].data["h"] is g.nodes["venue"].data["h"]
    assert _eset(h, ("person", "accepted", "venue")) == {(0, 0)}
    assert _eset(h, ("person", "rejected", "venue")) == {(0, 1), (1, 1)}
    if keep:
        assert len(h.canonical_etypes) == 5
        assert h.edges["author"].data["h"] is g.edges["author"].data["h"]
    else:
        assert len(h.canonical_etypes) == 2
    c = graph((np.array([0, 1], idtype), np.array([1, 2], idtype)))
    out = Compose([AddReverse(), AddSelfLoop()])(c)
    assert out.idtype == idtype and out.num_edges() == 7
    assert _eset(out) == {(0, 1), (1, 2), (1, 0), (2, 1), (0, 0), (1, 1), (2, 2)}
