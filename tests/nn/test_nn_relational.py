"""Multi-relational layers: RGCNConv (PyG), RelGraphConv (DGL), HeteroConv (PyG),
HeteroGraphConv (DGL), the relation grouping under them and ``g[etype]`` slices.

PyG parity runs where torch_geometric is installed (float32 within 1e-5 relative, float64
within 1e-12); RelGraphConv and HeteroGraphConv are checked against edge-by-edge NumPy
references (DGL does not install here), and their ``from_dgl`` on stand-in modules with
DGL's attribute names.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _nn_cases import TOL, dgl_typed_linear, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn
from arraygnn.nn.rgcn_conv import relation_rows

DTYPES = [np.float32, np.float64]


def _typed_graph(rng, n, num_rel, index_dtype=np.int64, num_edges=None):
    ei = random_graph(rng, n, num_edges=num_edges, index_dtype=index_dtype)
    etype = rng.integers(0, num_rel, ei.shape[1]).astype(index_dtype)
    if ei.shape[1] >= 4:
        etype[2] = etype[3]  # the repeated edge is a multi-edge of one relation
    return ei, etype


# ---------------------------------------------------------------- relation grouping
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_relation_rows_group_every_edge_once(index_dtype):
    rng = np.random.default_rng(0)
    ei, etype = _typed_graph(rng, 25, 4, index_dtype)
    rows = relation_rows(ei, etype, 4, 25, 25)
    csr = rows.csr
    keys = rows.row_rel.astype(np.int64) * 25 + rows.row_dst
    assert (np.diff(keys) > 0).all()  # relation-major, targets ascending, no duplicate row
    assert rows.rel_ptr.tolist() == np.searchsorted(rows.row_rel, np.arange(5)).tolist()
    assert sorted(csr.perm.tolist()) == list(range(ei.shape[1]))
    for k in range(csr.num_dst_nodes):
        edges = csr.perm[csr.indptr[k] : csr.indptr[k + 1]]
        assert (np.diff(edges) > 0).all()  # edge-id order within a row
        assert (etype[edges] == rows.row_rel[k]).all() and (ei[1, edges] == rows.row_dst[k]).all()
        assert (csr.indices[csr.indptr[k] : csr.indptr[k + 1]] == ei[0, edges]).all()
    assert csr.indptr.dtype == np.int32  # internal: int32 whenever every size fits


def test_relation_rows_empty_and_errors():
    rows = relation_rows(np.zeros((2, 0), np.int64), np.zeros(0, np.int64), 3, 4, 5)
    assert rows.csr.num_dst_nodes == 0 and rows.rel_ptr.tolist() == [0, 0, 0, 0]
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="relation 3, out of range"):
        relation_rows(ei, np.array([0, 3]), 3, 3, 3)
    with pytest.raises(ValueError, match="relation -1"):
        relation_rows(ei, np.array([-1, 0]), 3, 3, 3)
    with pytest.raises(TypeError, match="integers"):
        relation_rows(ei, np.array([0.0, 1.0]), 3, 3, 3)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        relation_rows(ei, np.array([0]), 3, 3, 3)
    with pytest.raises(ValueError, match="targets"):
        relation_rows(ei, np.array([0, 1]), 3, 3, 2)


# ---------------------------------------------------------------- RGCNConv vs PyG
def _pyg():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    return torch, pyg_nn


def _pyg_out(module, *args):
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        return module(*args).numpy()


def _t(a):
    torch = pytest.importorskip("torch")
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a))


RGCN_SETTINGS = [
    {},
    {"aggr": "add"},
    {"aggr": "max"},
    {"aggr": "min"},
    {"num_bases": 3},
    {"num_blocks": 2},
    {"num_blocks": 4, "aggr": "max"},
    {"root_weight": False, "bias": False},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("settings", RGCN_SETTINGS, ids=lambda s: str(s) or "default")
def test_rgcn_conv_matches_pyg(dtype, index_dtype, settings, path):
    torch, pyg_nn = _pyg()
    rng = np.random.default_rng(1)
    torch.manual_seed(1)
    ei, etype = _typed_graph(rng, 30, 5, index_dtype)
    x = rng.standard_normal((30, 8)).astype(dtype)
    module = pyg_nn.RGCNConv(8, 12, 5, **settings).to(getattr(torch, np.dtype(dtype).name))
    if module.bias is not None:
        torch.nn.init.normal_(module.bias)
    ref = _pyg_out(module, _t(x), _t(ei.astype(np.int64)), _t(etype.astype(np.int64)))
    conv = agnn.from_pyg(module)
    out = conv(x, ei, etype)
    assert out.dtype == np.dtype(dtype)
    assert rel_err(out, ref) <= TOL[dtype]
    # the same through a cached CSR and through the DGL-face graph
    csr = arraygnn.ops.to_csr(ei, 30, 30)
    assert rel_err(conv(x, csr, etype), ref) <= TOL[dtype]
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=30)
    assert rel_err(conv(g, x, etype), ref) <= TOL[dtype]


def test_rgcn_chunked_aggregation_is_bit_identical(monkeypatch):  # the grouped rows path
    """A small chunk budget splits the [K, F] aggregate (inside relations too): the same
    aggregate bits (the featureless layer has no product after it); BLAS may round a product
    of fewer rows differently, so the others agree to rounding."""
    import arraygnn.nn.rgcn_conv as rgcn

    monkeypatch.setattr(rgcn, "FUSED", False)
    rng = np.random.default_rng(16)
    ei, etype = _typed_graph(rng, 40, 3, num_edges=300)
    x = rng.standard_normal((40, 8))
    norm = rng.random(300)
    layers = [
        (agnn.RGCNConv(8, 5, 3, dtype=np.float64, rng=0), (x, ei, etype)),
        (agnn.RGCNConv(8, 4, 3, num_blocks=2, aggr="max", dtype=np.float64, rng=1), (x, ei, etype)),
        (agnn.RGCNConv(40, 5, 3, dtype=np.float64, rng=2), (None, ei, etype)),
        (agnn.RelGraphConv(8, 5, 3, dtype=np.float64, rng=3), (x, ei, etype, norm)),
    ]
    whole = [layer(*args) for layer, args in layers]
    monkeypatch.setattr(rgcn, "CHUNK_BYTES", 7 * 8 * 8)  # 7 rows of 8 float64 per chunk
    for (layer, args), expected in zip(layers, whole):
        np.testing.assert_allclose(layer(*args), expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(layers[2][0](*layers[2][1]), whole[2])


@pytest.mark.parametrize("settings", [{}, {"aggr": "max"}, {"num_bases": 2}])
def test_rgcn_conv_featureless_matches_pyg(settings, path):
    """``x=None`` (node i is id i) and integer node ids select rows of the weights."""
    torch, pyg_nn = _pyg()
    rng = np.random.default_rng(2)
    torch.manual_seed(2)
    ei, etype = _typed_graph(rng, 20, 4)
    module = pyg_nn.RGCNConv(20, 6, 4, **settings)
    conv = agnn.from_pyg(module)
    ref = _pyg_out(module, None, _t(ei), _t(etype))
    assert rel_err(conv(None, ei, etype), ref) <= 1e-5
    ids = rng.permutation(20)
    ref = _pyg_out(module, _t(ids), _t(ei), _t(etype))
    assert rel_err(conv(ids.astype(np.int32), ei, etype), ref) <= 1e-5


def test_rgcn_conv_bipartite_empty_and_fast_variant(path):
    torch, pyg_nn = _pyg()
    rng = np.random.default_rng(3)
    torch.manual_seed(3)
    x_src = rng.standard_normal((15, 8)).astype(np.float32)
    x_dst = rng.standard_normal((6, 5)).astype(np.float32)
    ei = np.stack([rng.integers(0, 15, 40), rng.integers(0, 4, 40)])  # targets 4, 5 get none
    etype = rng.integers(0, 3, 40)
    module = pyg_nn.RGCNConv((8, 5), 7, 3)
    ref = _pyg_out(module, (_t(x_src), _t(x_dst)), _t(ei), _t(etype))
    conv = agnn.from_pyg(module)
    assert rel_err(conv((x_src, x_dst), ei, etype), ref) <= 1e-5
    empty = np.zeros((2, 0), np.int64)
    ref = _pyg_out(module, (_t(x_src), _t(x_dst)), _t(empty), _t(np.zeros(0, np.int64)))
    assert rel_err(conv((x_src, x_dst), empty, np.zeros(0, np.int64)), ref) <= 1e-6
    fast = pyg_nn.FastRGCNConv(8, 7, 3, num_bases=2)
    x = rng.standard_normal((15, 8)).astype(np.float32)
    ei = np.stack([rng.integers(0, 15, 40), rng.integers(0, 15, 40)])
    ref = _pyg_out(fast, _t(x), _t(ei), _t(etype))
    assert rel_err(agnn.from_pyg(fast)(x, ei, etype), ref) <= 1e-5
    with pytest.raises(ValueError, match="aggr='max'"):
        agnn.from_pyg(pyg_nn.FastRGCNConv(8, 7, 3, aggr="max"))


def test_rgcn_conv_bad_input_is_named():
    conv = agnn.RGCNConv(4, 3, num_relations=2, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    before = (x.copy(), ei.copy())
    with pytest.raises(TypeError, match="edge_type is required"):
        conv(x, ei)
    with pytest.raises(ValueError, match="relation 2, out of range for num_relations=2"):
        conv(x, ei, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"edge_type must have shape \(3,\)"):
        conv(x, ei, np.array([0, 1]))
    with pytest.raises(ValueError, match="expected last dimension 4"):
        conv(np.ones((5, 3), np.float32), ei, np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="node id 7 in x is out of range"):
        conv(np.array([0, 1, 2, 3, 7]), ei, np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="block-diagonal"):
        agnn.RGCNConv(4, 4, 2, num_blocks=2)(None, ei, np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="not both"):
        agnn.RGCNConv(4, 4, 2, num_bases=1, num_blocks=2)
    with pytest.raises(ValueError, match="divisible"):
        agnn.RGCNConv(4, 3, 2, num_blocks=2)
    with pytest.raises(ValueError, match="aggr"):
        agnn.RGCNConv(4, 3, 2, aggr="std")
    assert (x == before[0]).all() and (ei == before[1]).all()


# ---------------------------------------------------------------- RelGraphConv (DGL)
def _rel_graph_conv_reference(conv, src, dst, etype, x, norm):
    """DGL's message ``W_r x_src * norm`` summed on targets, edge by edge, then layer norm,
    bias, self-loop, activation."""
    weight, blocks = conv.linear_r.weights()
    h = np.zeros((x.shape[0], conv.out_feats))
    for e in range(src.shape[0]):
        xe = x[src[e]].astype(np.float64)
        if weight is not None:
            m = xe @ weight[etype[e]]
        else:
            nb, si, _ = blocks.shape[1:]
            m = np.concatenate([xe[b * si : (b + 1) * si] @ blocks[etype[e], b] for b in range(nb)])
        h[dst[e]] += m if norm is None else m * norm[e]
    if conv.layer_norm_weight is not None:
        ln = conv.layer_norm_weight
        mu = h.mean(1, keepdims=True)
        var = ((h - mu) ** 2).mean(1, keepdims=True)
        h = (h - mu) / np.sqrt(var + ln.eps) * ln.weight + ln.bias
    if conv.h_bias is not None:
        h = h + conv.h_bias
    if conv.loop_weight is not None:
        h = h + x @ conv.loop_weight
    return np.maximum(h, 0) if conv.activation is not None else h


REL_SETTINGS = [
    {},
    {"regularizer": "basis", "num_bases": 2},
    {"regularizer": "bdd", "num_bases": 2},
    {"regularizer": "basis"},  # num_bases defaults to num_rels
    {"layer_norm": True, "activation": "relu"},
    {"self_loop": False, "bias": False},
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("settings", REL_SETTINGS, ids=lambda s: str(s) or "default")
def test_rel_graph_conv_matches_dgl_message_passing(dtype, settings, path):
    rng = np.random.default_rng(4)
    ei, etype = _typed_graph(rng, 20, 4, num_edges=90)
    x = rng.standard_normal((20, 8)).astype(dtype)
    conv = agnn.RelGraphConv(8, 6, 4, dtype=dtype, rng=5, **settings)
    if conv.h_bias is not None:
        conv.h_bias = rng.standard_normal(6).astype(dtype)
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=20)
    for norm in (None, rng.random((90, 1)).astype(dtype)):
        ref = _rel_graph_conv_reference(conv, ei[0], ei[1], etype, x, norm)
        out = conv(g, x, etype, norm)
        assert out.dtype == np.dtype(dtype)
        assert rel_err(out, ref) <= TOL[dtype] * 10
        assert rel_err(conv(x, ei, etype, norm), ref) <= TOL[dtype] * 10  # PyG form too
    assert sorted(conv.state_dict(format="dgl")) == sorted(conv.state_dict())


def test_rel_graph_conv_block_and_errors(path):
    rng = np.random.default_rng(6)
    conv = agnn.RelGraphConv(5, 4, 3, rng=0)
    ei = np.stack([rng.integers(0, 10, 30), rng.integers(0, 4, 30)])
    etype = rng.integers(0, 3, 30)
    x = rng.standard_normal((10, 5)).astype(np.float32)
    block = arraygnn.to_block(arraygnn.graph((ei[0], ei[1]), num_nodes=10), np.arange(4))
    src, dst = block.edges()
    eid = block.edata[arraygnn.EID] if arraygnn.EID in block.edata else np.arange(30)
    out = conv(block, x[block.srcdata[arraygnn.NID]], etype[eid])
    ref = conv(
        (x[block.srcdata[arraygnn.NID]], x[block.srcdata[arraygnn.NID]][:4]),
        np.stack([src, dst]),
        etype[eid],
    )
    assert out.shape == (4, 4) and rel_err(out, ref) <= 1e-6
    with pytest.raises(ValueError, match=r"norm must have shape \(30,\)"):
        conv(x, ei, etype, np.ones(29, np.float32))
    with pytest.raises(TypeError, match="norm must hold floating-point"):
        conv(x, ei, etype, np.ones(30, np.int64))
    with pytest.raises(TypeError, match="features must be a float array"):
        conv(arraygnn.graph((ei[0], ei[1]), num_nodes=10), None, etype)
    with pytest.raises(ValueError, match="regularizer"):
        agnn.RelGraphConv(4, 4, 2, regularizer="blocks")
    with pytest.raises(ValueError, match="divisible"):
        agnn.RelGraphConv(4, 3, 2, regularizer="bdd", num_bases=2)


def test_rel_graph_conv_from_dgl_stand_in(path):
    """``from_dgl`` on a torch module with DGL RelGraphConv's attributes and names."""
    torch = pytest.importorskip("torch")

    class RelGraphConv(torch.nn.Module):
        def __init__(self, fin, fout, num_rels, regularizer=None, num_bases=None, ln=False):
            super().__init__()
            self.linear_r = dgl_typed_linear(torch, fin, fout, num_rels, regularizer, num_bases)
            self.bias, self.self_loop, self.layer_norm = True, True, ln
            self.activation = torch.relu
            self.h_bias = torch.nn.Parameter(torch.randn(fout))
            if ln:
                self.layer_norm_weight = torch.nn.LayerNorm(fout, eps=1e-3)
                torch.nn.init.normal_(self.layer_norm_weight.weight)
            self.loop_weight = torch.nn.Parameter(torch.randn(fin, fout))

    rng = np.random.default_rng(7)
    ei, etype = _typed_graph(rng, 12, 3, num_edges=40)
    x = rng.standard_normal((12, 4)).astype(np.float32)
    for args in [(None, None, False), ("basis", 2, True), ("bdd", 2, False)]:
        module = RelGraphConv(4, 6, 3, *args)
        conv = agnn.from_dgl(module)
        ref = _rel_graph_conv_reference(conv, ei[0], ei[1], etype, x, None)
        np.testing.assert_allclose(conv(x, ei, etype), ref, rtol=1e-5, atol=1e-5)
        w = module.linear_r.W.detach().numpy()
        np.testing.assert_array_equal(conv.linear_r.W, w)
        if args[2]:
            assert conv.layer_norm_weight.eps == 1e-3


def test_layer_norm_matches_torch():
    torch = pytest.importorskip("torch")
    ln = torch.nn.LayerNorm(6, eps=1e-4)
    torch.nn.init.normal_(ln.weight)
    torch.nn.init.normal_(ln.bias)
    x = np.random.default_rng(8).standard_normal((5, 6)).astype(np.float32)
    with torch.no_grad():
        ref = ln(torch.from_numpy(x)).numpy()
    assert rel_err(agnn.from_torch(ln)(x), ref) <= 1e-5
    seq = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.LayerNorm(6, bias=False))
    with torch.no_grad():
        ref = seq(torch.from_numpy(x)).numpy()
    assert rel_err(agnn.from_torch(seq)(x), ref) <= 1e-5
    with pytest.raises(ValueError, match="last dimension"):
        agnn.from_torch(torch.nn.LayerNorm([2, 3]))


# ---------------------------------------------------------------- HeteroConv vs PyG
def _hetero_inputs(rng):
    x = {
        "paper": rng.standard_normal((12, 4)).astype(np.float32),
        "author": rng.standard_normal((7, 3)).astype(np.float32),
    }
    ei = {
        ("paper", "cites", "paper"): random_graph(rng, 12, num_edges=30),
        ("author", "writes", "paper"): np.stack([rng.integers(0, 7, 20), rng.integers(0, 10, 20)]),
        ("paper", "rev_writes", "author"): np.stack(
            [rng.integers(0, 12, 20), rng.integers(0, 5, 20)]
        ),
    }
    return x, ei


@pytest.mark.parametrize("aggr", ["sum", "mean", "max", "min", "cat", None])
def test_hetero_conv_matches_pyg(aggr):
    torch, pyg_nn = _pyg()
    torch.manual_seed(9)
    x, ei = _hetero_inputs(np.random.default_rng(9))
    module = pyg_nn.HeteroConv(
        {
            ("paper", "cites", "paper"): pyg_nn.GCNConv(4, 8),
            ("author", "writes", "paper"): pyg_nn.SAGEConv((3, 4), 8),
            ("paper", "rev_writes", "author"): pyg_nn.GATConv((4, 3), 8, add_self_loops=False),
        },
        aggr=aggr,
    )
    with torch.no_grad():
        ref = module({k: _t(v) for k, v in x.items()}, {k: _t(v) for k, v in ei.items()})
    conv = agnn.from_pyg(module)
    out = conv(x, ei)
    assert list(out) == list(ref)
    for t in ref:
        assert rel_err(out[t], ref[t].numpy()) <= 1e-5, t
    # a fresh wrapper loads PyG's state dict by name (PyG's ModuleDict keys)
    fresh = agnn.HeteroConv(
        {
            ("paper", "cites", "paper"): agnn.GCNConv(4, 8),
            ("author", "writes", "paper"): agnn.SAGEConv((3, 4), 8),
            ("paper", "rev_writes", "author"): agnn.GATConv((4, 3), 8, add_self_loops=False),
        },
        aggr=aggr,
    ).load_state_dict(module.state_dict())
    assert sorted(fresh.state_dict()) == sorted(module.state_dict())
    for t in ref:
        np.testing.assert_array_equal(fresh(x, ei)[t], out[t])


def test_hetero_conv_passes_edge_dicts_and_skips_types_without_entries():
    torch, pyg_nn = _pyg()
    torch.manual_seed(10)
    rng = np.random.default_rng(10)
    x, ei = _hetero_inputs(rng)
    module = pyg_nn.HeteroConv(
        {
            ("paper", "cites", "paper"): pyg_nn.GATConv(4, 8, edge_dim=2),
            ("author", "writes", "paper"): pyg_nn.GATConv(
                (3, 4), 8, edge_dim=2, add_self_loops=False
            ),
            ("paper", "rev_writes", "author"): pyg_nn.SAGEConv((4, 3), 8),
        }
    )
    some = {k: v for k, v in ei.items() if k[1] != "rev_writes"}  # author gets nothing
    attr = {k: rng.standard_normal((v.shape[1], 2)).astype(np.float32) for k, v in some.items()}
    with torch.no_grad():
        ref = module(
            {k: _t(v) for k, v in x.items()},
            {k: _t(v) for k, v in some.items()},
            edge_attr_dict={k: _t(v) for k, v in attr.items()},
        )
    out = agnn.from_pyg(module)(x, some, edge_attr_dict=attr)
    assert list(out) == list(ref) == ["paper"]
    assert rel_err(out["paper"], ref["paper"].numpy()) <= 1e-5


def test_hetero_conv_errors():
    with pytest.raises(ValueError, match="adds self-loops"):
        agnn.HeteroConv({("a", "r", "b"): agnn.GCNConv(4, 8)})
    with pytest.raises(ValueError, match="aggr"):
        agnn.HeteroConv({("a", "r", "a"): agnn.GCNConv(4, 8)}, aggr="std")
    with pytest.raises(TypeError, match="triples"):
        agnn.HeteroConv({"r": agnn.GCNConv(4, 8)})
    with pytest.warns(UserWarning, match="never a destination"):
        conv = agnn.HeteroConv({("a", "r", "b"): agnn.SAGEConv((4, 4), 2)})
    with pytest.raises(ValueError, match="_dict"):
        conv({"a": np.ones((2, 4))}, {("a", "r", "b"): np.zeros((2, 0), np.int64)}, edge_attr={})
    with pytest.raises(KeyError, match="unexpected"):
        conv.load_state_dict({"lin.weight": np.ones((2, 4))})


# ---------------------------------------------------------------- HeteroGraphConv (DGL)
def _hetero_graph(rng):
    rels = {
        ("user", "follows", "user"): (rng.integers(0, 6, 10), rng.integers(0, 5, 10)),
        ("user", "plays", "game"): (rng.integers(0, 6, 8), rng.integers(0, 3, 8)),
        ("game", "played_by", "user"): (rng.integers(0, 4, 8), rng.integers(0, 6, 8)),
    }
    g = arraygnn.heterograph(rels, {"user": 6, "game": 4})
    x = {
        "user": rng.standard_normal((6, 5)).astype(np.float32),
        "game": rng.standard_normal((4, 5)).astype(np.float32),
    }
    return g, rels, x


def _mods():
    return {
        "follows": agnn.GraphConv(5, 3, rng=0),
        "plays": agnn.SAGEConv(5, 3, rng=1),
        ("game", "played_by", "user"): agnn.GATConv(5, 3, heads=1, add_self_loops=False, rng=2),
    }


@pytest.mark.parametrize("aggregate", ["sum", "max", "min", "mean", "stack", "callable"])
def test_hetero_graph_conv_matches_per_relation_calls(aggregate):
    g, rels, x = _hetero_graph(np.random.default_rng(11))
    mods = _mods()
    agg = (lambda xs, t: 2 * sum(xs)) if aggregate == "callable" else aggregate
    out = agnn.HeteroGraphConv(mods, agg)(g, x)
    per = {}
    for c in sorted(rels):  # DGL's relation order: canonical types sorted
        mod = mods.get(c, mods.get(c[1]))
        src, dst = rels[c]
        per.setdefault(c[2], []).append(mod((x[c[0]], x[c[2]]), np.stack([src, dst])))
    funcs = {
        "sum": lambda xs: np.sum(xs, 0),
        "max": lambda xs: np.max(xs, 0),
        "min": lambda xs: np.min(xs, 0),
        "mean": lambda xs: np.mean(xs, 0),
        "stack": lambda xs: np.stack(xs, 1),
        "callable": lambda xs: 2 * sum(xs),
    }
    assert sorted(out) == ["game", "user"]
    for t, xs in per.items():
        np.testing.assert_allclose(out[t], funcs[aggregate](xs), rtol=1e-6, atol=1e-6)
    assert all(getattr(m, "allow_zero_in_degree", True) for m in mods.values())  # DGL's rule


def test_hetero_graph_conv_block_pair_inputs_and_args():
    rng = np.random.default_rng(12)
    g, rels, x = _hetero_graph(rng)
    block = arraygnn.to_block(g, {"user": np.arange(6), "game": np.arange(4)})
    mods = _mods()
    conv = agnn.HeteroGraphConv(mods)
    xb = {t: x[t][block.srcdata[arraygnn.NID][t]] for t in block.srctypes}
    out_block = conv(block, xb)
    dst_in = {t: xb[t][: block.num_dst_nodes(t)] for t in block.dsttypes}
    assert {k: v.shape for k, v in out_block.items()} == {"game": (4, 3), "user": (6, 3)}
    np.testing.assert_array_equal(conv(block, (xb, dst_in))["user"], out_block["user"])
    # mod_kwargs reach the layer of that edge type name
    w = rng.random(10).astype(np.float32)
    weighted = conv(g, x, mod_kwargs={"follows": {"edge_weight": w}})
    src, dst = rels[("user", "follows", "user")]
    follows = mods["follows"]((x["user"], x["user"]), np.stack([src, dst]), edge_weight=w)
    others = conv(g, x)["user"] - mods["follows"]((x["user"], x["user"]), np.stack([src, dst]))
    np.testing.assert_allclose(weighted["user"], others + follows, rtol=1e-5, atol=1e-5)
    # a source type without input is skipped; a missing destination input is named
    only_users = conv(g, ({"user": x["user"]}, x))  # played_by (from games) is skipped
    src, dst = rels[("user", "follows", "user")]
    np.testing.assert_array_equal(
        only_users["user"], mods["follows"]((x["user"], x["user"]), np.stack([src, dst]))
    )
    with pytest.raises(KeyError, match="no input features for node type 'game'"):
        conv(g, {"user": x["user"]})
    with pytest.raises(ValueError, match="aggregate"):
        agnn.HeteroGraphConv(mods, "cat")
    with pytest.raises(KeyError, match="no layer for edge type"):
        agnn.HeteroGraphConv({"follows": mods["follows"]})(g, x)


def test_hetero_graph_conv_state_dict_and_from_dgl_stand_in():
    torch = pytest.importorskip("torch")
    from functools import partial

    class GraphConv(torch.nn.Module):  # DGL GraphConv's attributes
        def __init__(self, fin, fout):
            super().__init__()
            self._in_feats, self._out_feats, self._norm = fin, fout, "both"
            self._allow_zero_in_degree = False
            self._activation = None
            self.weight = torch.nn.Parameter(torch.randn(fin, fout))
            self.bias = torch.nn.Parameter(torch.randn(fout))

    def _sum_reduce_func(inputs, dim):
        return torch.sum(inputs, dim=dim)

    class HeteroGraphConv(torch.nn.Module):  # DGL's attributes and state-dict names
        def __init__(self, mods):
            super().__init__()
            self.mod_dict = mods
            self.mods = torch.nn.ModuleDict({str(k): v for k, v in mods.items()})
            self.agg_fn = partial(
                lambda inputs, dsttype, fn: fn(torch.stack(inputs), 0), fn=_sum_reduce_func
            )

    rng = np.random.default_rng(13)
    g, rels, x = _hetero_graph(rng)
    module = HeteroGraphConv(
        {"follows": GraphConv(5, 3), "plays": GraphConv(5, 3), "played_by": GraphConv(5, 3)}
    )
    conv = agnn.from_dgl(module)
    assert conv.aggregate == "sum"
    assert sorted(conv.state_dict(format="dgl")) == sorted(module.state_dict())
    fresh = agnn.HeteroGraphConv({k: agnn.GraphConv(5, 3) for k in module.mod_dict})
    fresh.load_state_dict(module.state_dict())
    for t, v in conv(g, x).items():
        np.testing.assert_array_equal(fresh(g, x)[t], v)
    module.agg_fn = lambda xs, t: xs[0]
    with pytest.raises(ValueError, match="custom aggregate"):
        agnn.from_dgl(module)


# ---------------------------------------------------------------- g[etype]
def test_relation_slice_shares_ids_frames_and_csr():
    g, rels, x = _hetero_graph(np.random.default_rng(14))
    plays = g["plays"]
    assert plays.canonical_etypes == [("user", "plays", "game")]
    assert (plays.num_src_nodes(), plays.num_dst_nodes()) == (6, 4)
    assert g["user", "follows", "user"].is_homogeneous
    csr = plays.csr()
    assert g.csr("plays") is csr  # one cache
    g.nodes["user"].data["h"] = x["user"]
    assert plays.srcdata["h"] is x["user"]
    plays.edata["w"] = np.ones(8)
    assert "w" in g.edges["plays"].data
    with pytest.raises(KeyError, match="does not exist"):
        g["likes"]
    # ':' is DGL's wildcard: one matching edge type gives its relation slice
    assert g["user", :, "game"].canonical_etypes == g["plays"].canonical_etypes
    with pytest.raises(TypeError, match="wildcard"):
        g["user", 0:1, "game"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        block = arraygnn.to_block(g, {"user": np.arange(6), "game": np.arange(4)})
        assert block["plays"].is_block


def test_cupy_matches_numpy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no GPU")
    rng = np.random.default_rng(15)
    ei, etype = _typed_graph(rng, 40, 4)
    x = rng.standard_normal((40, 8)).astype(np.float32)
    norm = rng.random(ei.shape[1]).astype(np.float32)
    layers = {
        "rgcn": (agnn.RGCNConv(8, 6, 4, rng=0), (x, ei, etype)),
        "rgcn-bases-max": (agnn.RGCNConv(8, 6, 4, num_bases=2, aggr="max", rng=1), (x, ei, etype)),
        "rgcn-blocks": (agnn.RGCNConv(8, 6, 4, num_blocks=2, rng=2), (x, ei, etype)),
        "rgcn-featureless": (agnn.RGCNConv(40, 6, 4, rng=3), (None, ei, etype)),
        "relgraphconv": (
            agnn.RelGraphConv(8, 6, 4, "bdd", 2, layer_norm=True, rng=4),
            (x, ei, etype, norm),
        ),
    }
    for name, (layer, args) in layers.items():
        expected = layer(*args)
        layer.to("cuda")
        got = layer(*[None if a is None else cp.asarray(a) for a in args])
        assert isinstance(got, cp.ndarray), name
        np.testing.assert_allclose(cp.asnumpy(got), expected, rtol=1e-4, atol=1e-5, err_msg=name)
        if name.startswith("rgcn"):  # edges grouped once on the card (group_relations)
            groups = agnn.group_relations(cp.asarray(ei), cp.asarray(etype), 4, 40)
            x_arg = None if args[0] is None else cp.asarray(args[0])
            np.testing.assert_array_equal(cp.asnumpy(layer(x_arg, groups)), cp.asnumpy(got))


def test_fixes_from_the_audit_of_the_new_layers():
    """astype / to on the hetero wrappers (AttributeError before); HeteroGraphConv refuses
    a layer adding self-loops across node types (it invented edges); RGCNConv's
    featureless DGL form; RelGraphConv names integer features; TAGConv checks DGL's width."""
    rng = np.random.default_rng(60)
    g, rels, x = _hetero_graph(rng)
    dgl_style = agnn.HeteroGraphConv(_mods())
    before = dgl_style(g, x)
    assert dgl_style.astype(np.float64) is dgl_style and dgl_style.to("cpu") is dgl_style
    assert dgl_style.dtype == np.float64
    after = dgl_style(g, {k: v.astype(np.float64) for k, v in x.items()})
    for t in before:
        np.testing.assert_allclose(after[t], before[t], rtol=1e-5, atol=1e-6)
    pyg_style = agnn.HeteroConv({("a", "r", "a"): agnn.GCNConv(4, 2)}).astype(np.float64)
    assert pyg_style.dtype == np.float64
    looped = agnn.HeteroGraphConv({"plays": agnn.GATConv(5, 3), "follows": agnn.GraphConv(5, 3),
                                   "played_by": agnn.GraphConv(5, 3)})  # fmt: skip
    with pytest.raises(ValueError, match="adds self-loops"):
        looped(g, x)
    ei, etype = _typed_graph(rng, 12, 3)
    conv = agnn.RGCNConv(12, 4, 3, rng=0)
    graph = arraygnn.graph((ei[0], ei[1]), num_nodes=12)
    np.testing.assert_array_equal(conv(graph, None, etype), conv(None, ei, etype))
    ids = rng.permutation(12)
    np.testing.assert_array_equal(conv(graph, ids, etype), conv(ids, ei, etype))
    with pytest.raises(TypeError, match="features must be a float array"):
        agnn.RelGraphConv(8, 4, 3)(graph, np.arange(12), etype)
    tag = agnn.TAGConv(4, 3, K=2)
    with pytest.raises(ValueError, match=r"'lin.weight' has shape \(3, 16\), expected \(3, 12\)"):
        tag.load_state_dict({"lin.weight": np.ones((3, 16)), "lin.bias": np.ones(3)}, format="dgl")
