"""Parity sweep (session 12) of the relational / heterogeneous layers against PyG 2.8.1 in
eval mode, weights copied by ``from_pyg``: the option combinations the other tests leave
out (RGCNConv / FastRGCNConv node ids, bipartite pairs, is_sorted, no root / bias; RGATConv
bias / heads / dim / blocks with edges / PyG's ``size``; FiLMConv pairs with relations;
HypergraphConv attention with weights, inferred and larger hyperedge counts; HeteroConv's
seven aggregations over four edge types, ``edge_weight_dict``, positional edge dicts,
unknown and empty edge types; HGTConv / HANConv with per-type widths, subsets of edge
types; HEATConv embedding sizes) and errors for bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.nn")

N, M = 10, 8  # nodes, hyperedges


def _t(a):
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(_t(v) for v in a)
    if isinstance(a, dict):
        return {k: _t(v) for k, v in a.items()}
    if isinstance(a, np.ndarray):
        if a.dtype.kind in "iu":
            a = a.astype(np.int64)
        return torch.from_numpy(np.ascontiguousarray(a))
    return a


def _build(make, dtype=np.float64):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = make()
    module = module.to(torch.float64 if dtype == np.float64 else torch.float32).eval()
    for p in module.parameters():
        torch.nn.init.uniform_(p, -1.0, 1.0)
    return module


def _compare(ours, theirs, name, dtype):
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), name
        for key, value in theirs.items():
            if value is None:
                assert ours[key] is None, (name, key)
            else:
                _compare(ours[key], value, f"{name}[{key}]", dtype)
        return
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), name
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _compare(a, b, f"{name}[{i}]", dtype)
        return
    theirs = theirs.detach().numpy()
    ours = np.asarray(ours)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    if theirs.dtype.kind == "f":
        assert ours.dtype == np.dtype(dtype), (name, ours.dtype)
        tol = 1e-12 if dtype == np.float64 else 2e-5
        scale = max(float(np.abs(theirs).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol * scale, err_msg=name)
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg=name)


def _inputs(dtype):
    rng = np.random.default_rng(12)
    f = lambda *shape: rng.standard_normal(shape).astype(dtype)  # noqa: E731

    def edges(n_src, n_dst, num):
        return np.stack([rng.integers(0, n_src, num), rng.integers(0, n_dst, num)])

    ei, et = edges(N, N, 30), rng.integers(0, 3, 30)
    order = np.argsort(et, kind="stable")
    hi = np.stack([rng.integers(0, N - 3, 25), rng.integers(0, M - 2, 25)])  # 2 empty
    xd = {"a": f(8, 4), "b": f(5, 3), "c": f(4, 2)}
    eid = {
        ("a", "to", "b"): edges(8, 5, 15),
        ("b", "to", "a"): edges(5, 8, 15),
        ("a", "self", "a"): edges(8, 8, 15),
        ("c", "to", "a"): edges(4, 8, 15),
    }
    return dict(
        x=f(N, 6), xs=f(12, 5), ei=ei, et=et, ei_b=edges(12, N, 30), ea=f(30, 3),
        ei_sorted=ei[:, order], et_sorted=et[order], ids=rng.integers(0, 20, N),
        no_ei=np.zeros((2, 0), np.int64), no_et=np.zeros(0, np.int64),
        hi=hi, w=rng.uniform(0.2, 2.0, M).astype(dtype), w9=rng.uniform(0.2, 2, 9).astype(dtype),
        attr=f(M, 6), attr9=f(9, 6), xd=xd, eid=eid,
        eid_empty={**eid, ("a", "to", "b"): np.zeros((2, 0), np.int64)},
        ewd={("b", "to", "a"): rng.uniform(0.1, 1, 15).astype(dtype),
             ("a", "self", "a"): rng.uniform(0.1, 1, 15).astype(dtype)},
        rel_ei={("a", "to", "a"): edges(8, 8, 15), ("b", "to", "a"): edges(5, 8, 15)},
        rel_et={("a", "to", "a"): rng.integers(0, 2, 15)},
        nt=rng.integers(0, 2, N), ett=rng.integers(0, 3, 30),
    )  # fmt: skip


META = (["a", "b", "c"], [("a", "to", "b"), ("b", "to", "a"), ("a", "self", "a"), ("c", "to", "a")])
WIDTHS = {"a": 4, "b": 3, "c": 2}
RGAT_MULT = "multiplicative-self-attention"


def _hetero(aggr):
    return lambda: pyg.HeteroConv(
        {
            ("a", "to", "b"): pyg.SAGEConv((4, 3), 7),
            ("b", "to", "a"): pyg.GraphConv((3, 4), 7),
            ("a", "self", "a"): pyg.GCNConv(4, 7),
            ("c", "to", "a"): pyg.SAGEConv((2, 4), 7, root_weight=False),
        },
        aggr=aggr,
    )


# (name, PyG module factory, args(g), kwargs(g))
CASES = [
    ("rgcn-ids", lambda: pyg.RGCNConv(20, 4, 3), lambda g: (g["ids"], g["ei"], g["et"]), None),
    ("rgcn-ids-bases", lambda: pyg.RGCNConv(20, 4, 3, num_bases=2),
     lambda g: (g["ids"], g["ei"], g["et"]), None),
    ("rgcn-none-no_root-no_bias", lambda: pyg.RGCNConv(N, 4, 3, root_weight=False, bias=False),
     lambda g: (None, g["ei"], g["et"]), None),
    ("rgcn-pair-none-ids", lambda: pyg.RGCNConv((12, N), 4, 3),
     lambda g: ((None, np.arange(N)), g["ei_b"], g["et"]), None),
    ("rgcn-pair-bases-min", lambda: pyg.RGCNConv((5, 6), 4, 3, num_bases=2, aggr="min"),
     lambda g: ((g["xs"], g["x"]), g["ei_b"], g["et"]), None),
    ("rgcn-is_sorted", lambda: pyg.RGCNConv(6, 4, 3, is_sorted=True),
     lambda g: (g["x"], g["ei_sorted"], g["et_sorted"]), None),
    ("rgcn-unused-relations", lambda: pyg.RGCNConv(6, 4, 5), lambda g: (g["x"], g["ei"], g["et"]),
     None),
    ("rgcn-no_edges-max", lambda: pyg.RGCNConv(6, 4, 3, aggr="max"),
     lambda g: (g["x"], g["no_ei"], g["no_et"]), None),
    ("fast-blocks", lambda: pyg.FastRGCNConv(6, 4, 3, num_blocks=2),
     lambda g: (g["x"], g["ei"], g["et"]), None),
    ("fast-none", lambda: pyg.FastRGCNConv(N, 4, 3), lambda g: (None, g["ei"], g["et"]), None),
    ("fast-arange-bases", lambda: pyg.FastRGCNConv(N, 4, 3, num_bases=2),
     lambda g: (np.arange(N), g["ei"], g["et"]), None),
    ("fast-pair-no_root-no_bias", lambda: pyg.FastRGCNConv((5, 6), 4, 3, root_weight=False,
                                                           bias=False),
     lambda g: ((g["xs"], g["x"]), g["ei_b"], g["et"]), None),
    ("rgat-no_bias", lambda: pyg.RGATConv(6, 4, 3, heads=2, bias=False),
     lambda g: (g["x"], g["ei"], g["et"]), None),
    ("rgat-one_head-mean", lambda: pyg.RGATConv(6, 4, 3, concat=False),
     lambda g: (g["x"], g["ei"], g["et"]), None),
    ("rgat-mult-dim3-mean", lambda: pyg.RGATConv(6, 4, 3, heads=2, dim=3, concat=False,
                                                 attention_mode=RGAT_MULT),
     lambda g: (g["x"], g["ei"], g["et"]), None),
    ("rgat-blocks-edge-f_additive", lambda: pyg.RGATConv(
        6, 4, 3, heads=2, num_blocks=2, edge_dim=3, mod="f-additive",
        attention_mechanism="within-relation"),
     lambda g: (g["x"], g["ei"], g["et"], g["ea"]), None),
    ("rgat-attention-mean-additive", lambda: pyg.RGATConv(6, 4, 3, heads=3, concat=False,
                                                          mod="additive"),
     lambda g: (g["x"], g["ei"], g["et"]), lambda g: {"return_attention_weights": True}),
    ("rgat-size-same", lambda: pyg.RGATConv(6, 4, 3, heads=2),
     lambda g: (g["x"], g["ei"], g["et"]), lambda g: {"size": (N, N)}),
    ("film-pair-relations", lambda: pyg.FiLMConv((5, 6), 4, 3),
     lambda g: ((g["xs"], g["x"]), g["ei_b"], g["et"]), None),
    ("film-min-no_act", lambda: pyg.FiLMConv(6, 4, 3, act=None, aggr="min"),
     lambda g: (g["x"], g["ei"], g["et"]), None),
    ("film-one_relation-no_type", lambda: pyg.FiLMConv(6, 4, 1), lambda g: (g["x"], g["ei"]),
     None),
    ("film-sum-no_edges", lambda: pyg.FiLMConv(6, 4, 3, aggr="sum"),
     lambda g: (g["x"], g["no_ei"], g["no_et"]), None),
    ("hyper-att-weight-mean", lambda: pyg.HypergraphConv(6, 4, True, heads=2, concat=False),
     lambda g: (g["x"], g["hi"], g["w"], g["attr"]), None),
    ("hyper-att-edge-weight-no_bias", lambda: pyg.HypergraphConv(
        6, 4, True, "edge", heads=2, concat=False, bias=False),
     lambda g: (g["x"], g["hi"], g["w"], g["attr"]), None),
    ("hyper-attr-without-attention", lambda: pyg.HypergraphConv(6, 4),
     lambda g: (g["x"], g["hi"], None, g["attr"]), None),
    ("hyper-more-hyperedges", lambda: pyg.HypergraphConv(6, 4),
     lambda g: (g["x"], g["hi"], g["w9"]), lambda g: {"num_edges": 9}),
    ("hyper-att-inferred-count", lambda: pyg.HypergraphConv(6, 4, True, heads=3,
                                                            negative_slope=0.5),
     lambda g: (g["x"], g["hi"], g["w"], g["attr"]), None),
    ("hyper-edge-mode-more", lambda: pyg.HypergraphConv(6, 4, True, "edge", heads=2),
     lambda g: (g["x"], g["hi"], None, g["attr9"]), lambda g: {"num_edges": 9}),
    ("hyper-att-no_incidences", lambda: pyg.HypergraphConv(6, 4, True, heads=2),
     lambda g: (g["x"], g["no_ei"], None, g["attr"][:0]), None),
    ("heat-emb1", lambda: pyg.HEATConv(6, 4, 2, 3, 1, 3, 1, heads=2),
     lambda g: (g["x"], g["ei"], g["nt"], g["ett"], g["ea"]), None),
    ("heat-no_bias", lambda: pyg.HEATConv(6, 4, 2, 3, 2, 3, 2, heads=2, bias=False),
     lambda g: (g["x"], g["ei"], g["nt"], g["ett"], g["ea"]), None),
] + [
    (f"hetero-{aggr}", _hetero(aggr), lambda g: (g["xd"], g["eid"]), None)
    for aggr in ["sum", "mean", "max", "min", "prod", "cat", None]
] + [
    ("hetero-edge_weight_dict", _hetero("sum"), lambda g: (g["xd"], g["eid"]),
     lambda g: {"edge_weight_dict": g["ewd"]}),
    ("hetero-unknown-edge-type", _hetero("mean"),
     lambda g: (g["xd"], {**g["eid"], ("b", "x", "c"): g["eid"][("a", "to", "b")][::-1]}), None),
    ("hetero-empty-edge-type", _hetero("max"), lambda g: (g["xd"], g["eid_empty"]), None),
    ("hetero-rgcn-positional-dict", lambda: pyg.HeteroConv(
        {("a", "to", "a"): pyg.RGCNConv(4, 5, 2), ("b", "to", "a"): pyg.GraphConv((3, 4), 5)}),
     lambda g: (g["xd"], g["rel_ei"], g["rel_et"]), None),
    ("hgt-widths", lambda: pyg.HGTConv(WIDTHS, 8, META, heads=2),
     lambda g: (g["xd"], g["eid"]), None),
    ("hgt-one-edge-type", lambda: pyg.HGTConv(WIDTHS, 8, META),
     lambda g: (g["xd"], {("a", "to", "b"): g["eid"][("a", "to", "b")]}), None),
    ("hgt-empty-edge-type", lambda: pyg.HGTConv(WIDTHS, 8, META, heads=4),
     lambda g: (g["xd"], g["eid_empty"]), None),
    ("han-widths", lambda: pyg.HANConv(WIDTHS, 8, META, heads=2),
     lambda g: (g["xd"], g["eid"]), None),
    ("han-one_head-slope-empty", lambda: pyg.HANConv(WIDTHS, 4, META, negative_slope=0.5),
     lambda g: (g["xd"], g["eid_empty"]), None),
    ("han-one-edge-type", lambda: pyg.HANConv(WIDTHS, 4, META, heads=2),
     lambda g: (g["xd"], {("b", "to", "a"): g["eid"][("b", "to", "a")]}), None),
    ("han-semantic-weights", lambda: pyg.HANConv(WIDTHS, 4, META, heads=2),
     lambda g: (g["xd"], g["eid"]), lambda g: {"return_semantic_attention_weights": True}),
]  # fmt: skip
F32 = {"rgcn-pair-bases-min", "rgat-blocks-edge-f_additive", "hyper-att-weight-mean",
       "hetero-cat", "hgt-widths", "han-widths", "heat-emb1"}  # fmt: skip


@pytest.mark.parametrize(
    "name,make,args,kwargs,dtype",
    [c + (np.float64,) for c in CASES] + [c + (np.float32,) for c in CASES if c[0] in F32],
    ids=[c[0] for c in CASES] + [c[0] + "-f32" for c in CASES if c[0] in F32],
)
def test_matches_pyg(name, make, args, kwargs, dtype):
    module = _build(make, dtype)
    g = _inputs(dtype)
    args, kwargs = args(g), (kwargs(g) if kwargs else {})
    with torch.no_grad():
        expected = module(*_t(args), **_t(kwargs))
    conv = agnn.from_pyg(module)
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    _compare(conv(*args, **kwargs), expected, name, dtype)
    after = [a for a in args if isinstance(a, np.ndarray)]
    assert all(np.array_equal(a, b) for a, b in zip(after, before)), name


def test_fast_rgcn_node_ids_read_x_documented_difference():
    """PyG's FastRGCNConv reads message weights at the source position (``edge_index_j``)
    with integer ``x``; arraygnn (like PyG's RGCNConv) reads ``x[j]`` (docs/layers.md)."""
    g = _inputs(np.float64)
    fast = _build(lambda: pyg.FastRGCNConv(20, 4, 3, num_bases=2))
    plain = _build(lambda: pyg.RGCNConv(20, 4, 3, num_bases=2))
    plain.load_state_dict(fast.state_dict())
    with torch.no_grad():
        as_rgcn = plain(*_t((g["ids"], g["ei"], g["et"])))
        as_fast = fast(*_t((g["ids"], g["ei"], g["et"])))
    ours = agnn.from_pyg(fast)(g["ids"], g["ei"], g["et"])
    _compare(ours, as_rgcn, "fast-ids", np.float64)
    assert not np.allclose(ours, as_fast.numpy())  # the documented difference


@pytest.mark.filterwarnings("ignore:HeteroConv. node types")
def test_bad_input_is_named():
    g = _inputs(np.float64)
    conv = agnn.from_pyg(_build(_hetero("sum")))
    with pytest.raises(TypeError, match="HeteroConv: edge_weight_dict must be a dict"):
        conv(g["xd"], g["eid"], edge_weight_dict=np.ones(15))
    with pytest.raises(TypeError, match="HeteroConv: edge_attr_dict must be a dict"):
        conv(g["xd"], g["eid"], edge_attr_dict=None)
    for aggr in ["sum", None]:
        mixed = agnn.HeteroConv(
            {("a", "self", "a"): agnn.GCNConv(4, 7), ("c", "to", "a"): agnn.SAGEConv((2, 4), 3)},
            aggr=aggr,
        )
        with pytest.raises(ValueError, match=r"node type 'a' differ in shape .*one shape"):
            mixed(g["xd"], g["eid"])
    rows = agnn.HeteroConv(  # any callable: two results for 'b' with different rows
        {
            ("a", "r", "b"): lambda x, ei: np.ones((5, 2)),
            ("a", "s", "b"): lambda x, ei: np.ones((4, 2)),
        },
        aggr="cat",
    )
    with pytest.raises(ValueError, match=r"node type 'b' differ in shape .*the same rows"):
        rows(g["xd"], {("a", "r", "b"): g["ei"], ("a", "s", "b"): g["ei"]})
    rgat = agnn.from_pyg(_build(lambda: pyg.RGATConv(6, 4, 3, heads=2)))
    x, ei, et = g["x"], g["ei"], g["et"]
    with pytest.raises(TypeError, match=r"RGATConv: size must be a pair of ints"):
        rgat(x, ei, et, size=N)
    for size in [(9, N), (N, N + 3), (N, 7)]:  # PyG: "Encountered tensor with size 10 ..."
        with pytest.raises(ValueError, match=r"RGATConv: size must be \(N, N\) = \(10, 10\)"):
            rgat(x, ei, et, size=size)
