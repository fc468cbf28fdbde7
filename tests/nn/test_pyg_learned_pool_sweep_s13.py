"""Parity sweep (s13) of the learned / sparse pools against PyG 2.8.1, on options and
graph shapes the other pooling tests leave out: several graphs with a single-node graph
and an edgeless graph among them, a lone node, an edgeless graph, float64, self loops;
TopK / SAG / PAN ratio as a float ``>= 1``, an ``int`` ``1``, a ``min_score`` above every
score, more activations, 1-D ``attn``; SAG with other GNNs; EdgePooling's ``tanh`` score,
``add_to_edge_score``; ASAP options; MemPooling heads / clusters / ``kl_loss``;
``topk`` / ``filter_adj`` themselves; the cluster pools on a lone node / without edges.
Weights come through ``from_pyg``; torch is seeded.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
TData = pytest.importorskip("torch_geometric.data").Data

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.nn import from_pyg  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

F = 3
TOL = {np.dtype(np.float32): 3e-5, np.dtype(np.float64): 1e-11}
OUT6 = ["x", "edge_index", "edge_attr", "batch", "perm", "score"]


def _t(a):
    if a is None:
        return None
    a = np.ascontiguousarray(a)
    return torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iu" else a)


def _close(got, want, what="out"):
    if want is None or got is None:
        assert got is None and want is None, what
        return
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind in "iub":
        assert got.dtype.kind == want.dtype.kind, (what, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert rel_err(got, want) <= TOL[want.dtype], what


def _graph(form):
    """``(x, edge_index, edge_attr, batch)``: ``multi`` = graphs of 5, 1, 4 (no edges) and
    6 nodes, with a self loop; ``one_node``; ``no_edges``; ``*64`` in float64."""
    rng = np.random.default_rng(13)
    dtype = np.float64 if form.endswith("64") else np.float32
    form = form.removesuffix("64")
    if form == "one_node":
        sizes, edges = [1], np.zeros((2, 0), np.int64)
    elif form == "no_edges":
        sizes, edges = [5], np.zeros((2, 0), np.int64)
    else:
        sizes = [5, 1, 4, 6]
        g0 = [[0, 1, 1, 2, 3, 4, 2], [1, 0, 2, 3, 4, 0, 2]]
        g3 = [[10, 11, 12, 13, 14, 15, 11], [11, 12, 13, 14, 15, 10, 10]]
        edges = np.concatenate([np.array(g0), np.array(g3)], axis=1)
    n = sum(sizes)
    x = rng.standard_normal((n, F)).astype(dtype)
    ea = rng.standard_normal((edges.shape[1], 2)).astype(dtype)
    batch = np.repeat(np.arange(len(sizes)), sizes)
    return x, edges.astype(np.int64), ea, batch


FORMS = ["multi", "multi64", "one_node", "no_edges"]


def _module(make, dtype, seed=0):
    torch.manual_seed(seed)
    module = make().to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():  # away from the initial values
        for p in module.parameters():
            p.add_(0.3 * torch.randn(p.shape, dtype=p.dtype))
    return module.eval()


# ------------------------------------------------------------------------ TopK / SAG
TOPK = {
    "topk_ratio_float_2": lambda: pyg_nn.TopKPooling(F, 2.0),
    "topk_ratio_1": lambda: pyg_nn.TopKPooling(F, 1),
    "topk_ratio_float_1": lambda: pyg_nn.TopKPooling(F, 1.0, multiplier=3),
    "topk_ratio_0_99": lambda: pyg_nn.TopKPooling(F, 0.99),
    "topk_min_score_high": lambda: pyg_nn.TopKPooling(F, min_score=0.99),
    "topk_min_score_0": lambda: pyg_nn.TopKPooling(F, None, min_score=0.0),
    "topk_leaky_relu": lambda: pyg_nn.TopKPooling(F, 0.5, nonlinearity="leaky_relu"),
    "topk_elu": lambda: pyg_nn.TopKPooling(F, 0.5, nonlinearity="elu"),
    "topk_torch_sigmoid": lambda: pyg_nn.TopKPooling(F, 0.5, nonlinearity=torch.sigmoid),
    "topk_module_act": lambda: pyg_nn.TopKPooling(F, 0.5, nonlinearity=torch.nn.LeakyReLU(0.3)),
    "sag_sage": lambda: pyg_nn.SAGPooling(F, 0.5, GNN=pyg_nn.SAGEConv),
    "sag_graph_max": lambda: pyg_nn.SAGPooling(F, 0.5, aggr="max"),
    "sag_le": lambda: pyg_nn.SAGPooling(F, 0.5, GNN=pyg_nn.LEConv),
    "sag_cheb": lambda: pyg_nn.SAGPooling(F, 2, GNN=pyg_nn.ChebConv, K=2),
    "sag_gcn_min_score": lambda: pyg_nn.SAGPooling(F, GNN=pyg_nn.GCNConv, min_score=0.3),
    "sag_ratio_float_2": lambda: pyg_nn.SAGPooling(F, 2.0, multiplier=0.5),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(TOPK))
def test_topk_sag_options_match_pyg(name, form):
    x, ei, ea, batch = _graph(form)
    module = _module(TOPK[name], x.dtype)
    ours = from_pyg(module)
    b = None if form == "no_edges" else batch
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(ea), _t(b))
    got = ours(x, ei, ea, b)
    for g, w, what in zip(got, want, OUT6):
        _close(g, w, what)


def test_unconvertible_nonlinearity_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="TopKPooling nonlinearity"):
        from_pyg(pyg_nn.TopKPooling(F, nonlinearity=torch.nn.RReLU()))


@pytest.mark.parametrize("cls", ["TopKPooling", "SAGPooling"])
def test_one_dimensional_attn_matches_pyg(cls):
    x, ei, ea, batch = _graph("multi")
    attn = x[:, 1].copy()
    make = (lambda: pyg_nn.TopKPooling(1, 0.6)) if cls == "TopKPooling" else None
    make = make or (lambda: pyg_nn.SAGPooling(1, 0.6))
    module = _module(make, x.dtype)
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(ea), _t(batch), _t(attn))
    for g, w, what in zip(ours(x, ei, ea, batch, attn), want, OUT6):
        _close(g, w, what)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "ratio, min_score", [(0.3, None), (0.75, None), (2, None), (3.0, None), (None, 0.2)]
)
def test_topk_and_filter_adj_functions_match_pyg(ratio, min_score, dtype):
    from torch_geometric.nn.pool.connect.filter_edges import filter_adj as t_filter_adj
    from torch_geometric.nn.pool.select.topk import topk as t_topk

    from arraygnn.nn.pool import filter_adj, topk

    x, ei, ea, batch = _graph("multi")
    score = np.random.default_rng(1).random(x.shape[0]).astype(dtype)
    want = t_topk(_t(score), ratio, _t(batch), min_score)
    got = topk(score, ratio, batch, min_score)
    _close(got, want, "perm")
    want_e = t_filter_adj(_t(ei), _t(ea), want, num_nodes=x.shape[0])
    got_e = filter_adj(ei, ea, got, num_nodes=x.shape[0])
    for g, w, what in zip(got_e, want_e, ["edge_index", "edge_attr"]):
        _close(g, w, what)


# ---------------------------------------------------------------------------- PAN
class _MET:  # PyG's PANPooling reads ``M.coo()`` only (torch-sparse is not installed)
    def __init__(self, m):
        self.m = m

    def coo(self):
        return tuple(_t(a) for a in self.m.coo())


@pytest.mark.parametrize("form", ["multi", "multi64", "one_node"])
@pytest.mark.parametrize(
    "kwargs", [{"ratio": 2.0}, {"ratio": 1}, {"min_score": 0.1, "multiplier": 2.0}]
)
def test_pan_pooling_options_match_pyg(kwargs, form):
    x, ei, _, batch = _graph(form)
    conv = _module(lambda: pyg_nn.PANConv(F, F, filter_size=2), x.dtype, seed=1)
    pool = _module(lambda: pyg_nn.PANPooling(F, **kwargs), x.dtype, seed=2)
    h, m = from_pyg(conv)(x, ei)
    with torch.no_grad():
        want = pool(_t(h), _MET(m), _t(batch))
    got = from_pyg(pool)(h, m, batch)
    for g, w, what in zip(got, want, OUT6):
        _close(g, w, what)


# ---------------------------------------------------------------------------- edge
EDGE = {
    "tanh": lambda: pyg_nn.EdgePooling(F, pyg_nn.EdgePooling.compute_edge_score_tanh),
    "softmax_add_0_2": lambda: pyg_nn.EdgePooling(F, dropout=0.0, add_to_edge_score=0.2),
    "sigmoid_add_1": lambda: pyg_nn.EdgePooling(
        F, pyg_nn.EdgePooling.compute_edge_score_sigmoid, add_to_edge_score=1.0
    ),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(EDGE))
def test_edge_pooling_options_match_pyg(name, form):
    x, ei, _, batch = _graph(form)
    module = _module(EDGE[name], x.dtype, seed=3)
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(batch))
        want_up = module.unpool(want[0] + 1, want[3])
    got = ours(x, ei, batch)
    got_up = ours.unpool(got[0] + 1, got[3])
    for g, w, what in zip(got[:3], want[:3], ["x", "edge_index", "batch"]):
        _close(g, w, what)
    _close(got[3].cluster, want[3].cluster, "cluster")
    _close(got[3].new_edge_score, want[3].new_edge_score, "new_edge_score")
    for g, w, what in zip(got_up, want_up, ["unpooled x", "edge_index", "batch"]):
        _close(g, w, what)


# ---------------------------------------------------------------------------- ASAP
ASAP = {
    "ratio_float_2_loops": lambda: pyg_nn.ASAPooling(F, 2.0, add_self_loops=True),
    "ratio_0_9_graph_conv": lambda: pyg_nn.ASAPooling(F, 0.9, GNN=pyg_nn.GraphConv),
    "ratio_1_gcn_loops": lambda: pyg_nn.ASAPooling(F, 1, GNN=pyg_nn.GCNConv, add_self_loops=True),
}


@pytest.mark.parametrize("form", ["multi", "one_node", "no_edges"])
@pytest.mark.parametrize("name", list(ASAP))
def test_asap_options_match_pyg(name, form):
    x, ei, ea, batch = _graph(form)
    weight = np.abs(ea[:, 0]).copy() if name.startswith("ratio_0_9") else None
    module = _module(ASAP[name], x.dtype, seed=4)
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(weight), _t(batch))
    got = ours(x, ei, weight, batch)
    for g, w, what in zip(got, want, ["x", "edge_index", "edge_weight", "batch", "perm"]):
        _close(g, w, what)


# ---------------------------------------------------------------------------- memory
@pytest.mark.parametrize("form", ["multi", "multi64", "one_node"])
@pytest.mark.parametrize("heads, clusters, tau", [(1, 1, 1.0), (3, 2, 0.5), (2, 5, 3.0)])
def test_mem_pooling_options_match_pyg(heads, clusters, tau, form):
    x, _, _, batch = _graph(form)
    module = _module(
        lambda: pyg_nn.MemPooling(F, 2, heads=heads, num_clusters=clusters, tau=tau),
        x.dtype,
        seed=5,
    )
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(batch))
        want_kl = pyg_nn.MemPooling.kl_loss(want[1])
    got = ours(x, batch)
    for g, w, what in zip(got, want, ["x", "S"]):
        _close(g, w, what)
    kl = np.asarray(type(ours).kl_loss(got[1]))
    assert kl.dtype == x.dtype and abs(float(kl) - float(want_kl)) <= 1e-6, (kl, want_kl)


# ----------------------------------------------------------------- the cluster pools
@pytest.mark.parametrize("form", ["one_node", "no_edges", "multi64"])
@pytest.mark.parametrize("fn", ["max_pool", "avg_pool"])
def test_cluster_pool_shapes_match_pyg(fn, form):
    x, ei, ea, batch = _graph(form)
    cluster = (np.arange(x.shape[0]) * 7 // 3) % 5 + 2 * batch  # gaps, shared across graphs
    pos = np.random.default_rng(5).standard_normal((x.shape[0], 2)).astype(x.dtype)
    fields = {"x": x, "edge_index": ei, "pos": pos, "edge_attr": ea, "batch": batch}
    want = getattr(pyg_nn, fn)(_t(cluster), TData(**{k: _t(v) for k, v in fields.items()}))
    got = getattr(agnn, fn)(cluster, Data(**fields))
    for key in ("x", "edge_index", "edge_attr", "batch", "pos"):
        _close(getattr(got, key, None), getattr(want, key, None), key)
    want_x = getattr(pyg_nn, fn + "_x")(_t(cluster), _t(x), _t(batch))
    got_x = getattr(agnn, fn + "_x")(cluster, x, batch)
    for g, w, what in zip(got_x, want_x, ["x", "batch"]):
        _close(g, w, what)


@pytest.mark.parametrize("form", ["one_node", "no_edges", "multi64"])
@pytest.mark.parametrize("fn", ["max_pool_neighbor_x", "avg_pool_neighbor_x"])
def test_pool_neighbor_x_shapes_match_pyg(fn, form):
    x, ei, _, batch = _graph(form)
    want = getattr(pyg_nn, fn)(TData(x=_t(x), edge_index=_t(ei), batch=_t(batch)))
    got = getattr(agnn, fn)(Data(x=x, edge_index=ei, batch=batch))
    _close(got.x, want.x)


# ------------------------------------------------------------------------- bad input
def _x_ei():
    x, ei, ea, batch = _graph("multi")
    return x, ei, ea, batch


BAD_ARGS = [
    (lambda: agnn.TopKPooling(F, "0.5"), TypeError, "TopKPooling: ratio must be a real number"),
    (lambda: agnn.SAGPooling(F, min_score="a"), TypeError, "SAGPooling: min_score must be"),
    (lambda: agnn.PANPooling(F, multiplier="2"), TypeError, "PANPooling: multiplier must be"),
    (lambda: agnn.TopKPooling(F, True), TypeError, "TopKPooling: ratio must be a real number"),
    (lambda: agnn.TopKPooling(F, nonlinearity=None), ValueError, "TopKPooling: nonlinearity"),
    (lambda: agnn.SAGPooling(F, nonlinearity="foo"), ValueError, "SAGPooling: nonlinearity"),
    (lambda: agnn.EdgePooling(F, add_to_edge_score="a"), TypeError, "add_to_edge_score"),
    (lambda: agnn.EdgePooling(F, dropout="a"), TypeError, "EdgePooling: dropout"),
    (lambda: agnn.ASAPooling(F, "a"), TypeError, "ASAPooling: ratio must be a real number"),
    (lambda: agnn.ASAPooling(F, negative_slope=None), TypeError, "ASAPooling: negative_slope"),
    (lambda: agnn.MemPooling(F, 2, 1, 2, tau="a"), TypeError, "MemPooling: tau must be"),
]


@pytest.mark.parametrize("make, err, match", BAD_ARGS)
def test_bad_options_name_the_argument(make, err, match):
    with pytest.raises(err, match=match):
        make()


@pytest.mark.parametrize("cls", ["TopKPooling", "SAGPooling"])
def test_bad_attn_and_edge_attr_rows_name_the_argument(cls):
    x, ei, ea, batch = _x_ei()
    pool = getattr(agnn, cls)(F, 0.5, rng=0)
    with pytest.raises(ValueError, match=f"{cls}: attn must have 16 rows"):
        pool(x, ei, ea, batch, attn=x[:5])
    with pytest.raises(ValueError, match=f"{cls}: edge_attr must have 14 rows"):
        pool(x, ei, ea[:3], batch)


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"size": 0}, ValueError, "max_pool_x: size must be in"),
        ({"size": "2"}, TypeError, "max_pool_x: size must be an int"),
        ({"size": 2, "batch_size": -1}, ValueError, "max_pool_x: batch_size must be in"),
        ({"size": 2, "batch_size": 2.0}, TypeError, "max_pool_x: batch_size must be an int"),
    ],
)
def test_pool_x_bad_size_names_the_argument(kwargs, err, match):
    x, _, _, batch = _x_ei()
    with pytest.raises(err, match=match):
        agnn.max_pool_x(np.zeros(x.shape[0], np.int64), x, batch, **kwargs)


def test_pool_x_without_batch_is_documented():
    """docs/layers.md: ``batch=None`` gives ``(x, None)`` (PyG's indexes None and fails)."""
    x, _, _, batch = _x_ei()
    cluster = np.arange(x.shape[0]) % 3
    want = pyg_nn.avg_pool_x(_t(cluster), _t(x), _t(batch))[0]
    got = agnn.avg_pool_x(cluster, x, None)
    _close(got[0], want, "x")
    assert got[1] is None
