"""A parity sweep of ``arraygnn.nn.aggr`` and the pooling layers against PyG 2.8.1.

Every class of ``torch_geometric.nn.aggr.__all__`` (with non-default options) runs through
the same call forms: an unsorted ``index``, ``dim_size`` above the largest id (inner and
trailing empty groups), a ``ptr``, a 3-D ``x`` with ``dim=-2``, group 0 empty, float64 and
an int32 index (PyG gets it as int64). Then the pools of ``torch_geometric.nn.pool``:
``global_*_pool`` (1-D / 2-D / 3-D ``x``, an empty graph), TopK / SAG pooling (ratio as a
float or an int, ``min_score``, ``multiplier``, nonlinearity, ``attn``, every returned
piece), ASAP, edge, memory and cluster pooling, the cluster pools, and the PyG wrappers
``knn`` / ``knn_graph`` / ``radius`` / ``radius_graph`` over a brute-force kernel (pyg-lib is
not installed). Weights come through ``from_pyg``; torch is seeded.

Where PyG refuses a call form that arraygnn documents (``ptr`` for the aggregations that need
an ``index``, ``ptr`` with a 3-D ``x`` without torch-scatter, median / quantile with group 0
empty) ours is compared with PyG on the equivalent ``index`` call; otherwise a refusal by
PyG must be a ``ValueError`` / ``TypeError`` here. Int32 ids may come back as int32 (arrays
keep their index dtype; PyG only takes int64).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
P = pytest.importorskip("torch_geometric.nn.aggr")
TData = pytest.importorskip("torch_geometric.data").Data

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.nn import from_pyg  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)

F = 4
TOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-11}


def _t(a):
    """A NumPy array (or None) as torch; integer ids as int64, as PyG takes them."""
    if a is None:
        return None
    a = np.ascontiguousarray(a)
    return torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iu" else a)


def _close(got, want, what="out"):
    """Same shape, dtype (int32 ids may stay int32) and values (NaN where PyG has NaN)."""
    if want is None or got is None:
        assert got is None and want is None, what
        return
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind in "iu":
        assert got.dtype in (want.dtype, np.int32), (what, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    assert rel_err(np.nan_to_num(got), np.nan_to_num(want)) <= TOL[want.dtype], what


def _randomised(module, dtype, seed=0):
    """``module`` in ``dtype`` with parameters away from their initial values (learnt
    ``t`` / ``p`` positive)."""
    torch.manual_seed(seed)
    module = module.to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name in ("t", "p") or name.endswith(".t") or name.endswith(".p"):
                p.copy_(0.5 + torch.rand(p.shape, dtype=p.dtype))
            else:
                p.uniform_(-1.0, 1.0)
    return module.eval()


# ------------------------------------------------------------------------ aggregations
AGGRS = {
    "sum": lambda: P.SumAggregation(),
    "mean": lambda: P.MeanAggregation(),
    "max": lambda: P.MaxAggregation(),
    "min": lambda: P.MinAggregation(),
    "mul": lambda: P.MulAggregation(),
    "var": lambda: P.VarAggregation(semi_grad=True),
    "std": lambda: P.StdAggregation(),
    "softmax_t": lambda: P.SoftmaxAggregation(t=0.7),
    "softmax_learn_channels": lambda: P.SoftmaxAggregation(learn=True, channels=F),
    "powermean_learn": lambda: P.PowerMeanAggregation(p=2.0, learn=True),
    "median": lambda: P.MedianAggregation(fill_value=-1.0),
    "quantile": lambda: P.QuantileAggregation([0.25, 0.75], "midpoint", fill_value=2.0),
    "lstm": lambda: P.LSTMAggregation(F, 3),
    "gru": lambda: P.GRUAggregation(F, 3, num_layers=2),
    "set2set": lambda: P.Set2Set(F, 2),
    "sort": lambda: P.SortAggregation(3),
    "degree_scaler": lambda: P.DegreeScalerAggregation(
        ["mean", "max"], ["identity", "amplification", "linear"], torch.tensor([1, 2, 3, 1])
    ),
    "gmt": lambda: P.GraphMultisetTransformer(F, k=2, heads=2, layer_norm=True),
    "attentional": lambda: P.AttentionalAggregation(torch.nn.Linear(F, 1), torch.nn.Linear(F, 3)),
    "attentional_gate_per_feature": lambda: P.AttentionalAggregation(torch.nn.Linear(F, F)),
    "attentional_mlp_graph_norm": lambda: P.AttentionalAggregation(
        pyg_nn.MLP([F, 5, 1], norm="graph_norm"),
        pyg_nn.MLP([F, 3], norm="layer_norm", norm_kwargs={"mode": "graph"}),
    ),
    "equilibrium": lambda: P.EquilibriumAggregation(F, 3, [5], grad_iter=2),
    "mlp": lambda: P.MLPAggregation(F, 3, 4, num_layers=1),
    "deepsets": lambda: P.DeepSetsAggregation(torch.nn.Linear(F, 3), torch.nn.Linear(3, 2)),
    "set_transformer": lambda: P.SetTransformerAggregation(F, 2, heads=2),
    "lcm": lambda: P.LCMAggregation(F, 4),
    "variance_preserving": lambda: P.VariancePreservingAggregation(),
    "patch_transformer": lambda: P.PatchTransformerAggregation(
        F, 3, patch_size=2, hidden_channels=4
    ),
    "multi_cat": lambda: P.MultiAggregation(["mean", "max", "std"]),
    "multi_proj": lambda: P.MultiAggregation(
        ["mean", "max"], mode="proj", mode_kwargs={"in_channels": F, "out_channels": 3}
    ),
    "multi_logsumexp": lambda: P.MultiAggregation(["sum", "min"], mode="logsumexp"),
    "multi_std": lambda: P.MultiAggregation(["sum", "max", "mean"], mode="std"),
    "multi_attn": lambda: P.MultiAggregation(
        ["mean", "max", "sum"],
        mode="attn",
        mode_kwargs={"in_channels": F, "out_channels": 6, "num_heads": 2},
    ),
    "multi_attn_options": lambda: P.MultiAggregation(
        ["mean", P.SoftmaxAggregation(learn=True)],
        mode="attn",
        mode_kwargs={
            "in_channels": [F, F],
            "out_channels": 4,
            "add_bias_kv": True,
            "batch_first": True,
        },
    ),
}

# sorted groups 0..6 with 1 and 4 empty (8 and 9 empty too with dim_size=10)
INDEX = np.array([0, 0, 0, 2, 2, 3, 3, 3, 3, 5, 5, 6])
#: the aggregations PyG refuses an unsorted index for that take one here
ORDER_FREE = ("sort",)
FORMS = ["unsorted", "dim_size", "ptr", "dim3", "group0_empty", "float64", "int32"]


def _aggr_call(form):
    """``(x, kwargs for ours, kwargs for PyG's equivalent index call)`` of a call form."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((len(INDEX), F)).astype(np.float32)
    x[4, 1] = x[3, 1]  # a tie inside a group
    ours = {"index": INDEX, "dim_size": 10, "dim": 0}  # dim: PyG's, given explicitly
    if form == "unsorted":
        ours = {"index": rng.permutation(INDEX)}
    elif form == "ptr":
        ours = {"ptr": np.concatenate([[0], np.cumsum(np.bincount(INDEX, minlength=10))])}
    elif form == "dim3":
        x = np.stack([x, 1.0 - 2.0 * x])
        ours = {"index": INDEX, "dim_size": 10, "dim": -2}
    elif form == "group0_empty":
        ours = {"index": INDEX + 1, "dim_size": 8}
    elif form == "float64":
        x = x.astype(np.float64)
        ours = {"index": INDEX, "dim_size": 10}
    elif form == "int32":
        ours = {"index": INDEX.astype(np.int32), "dim_size": 10}
    theirs = dict(ours)
    if "ptr" in ours:
        theirs = {"index": INDEX, "dim_size": 10}
    return x, ours, theirs


def _pyg_call(module, x, kw):
    out = module(
        _t(x), _t(kw.get("index")), _t(kw.get("ptr")), kw.get("dim_size"), kw.get("dim", -2)
    )
    return out.detach().numpy()


#: slow on PyG's side (autograd loops, attention): fewer call forms
FEWER_FORMS = {"equilibrium": ("unsorted", "ptr", "dim3"), "gmt": ("dim_size", "dim3", "int32")}


@pytest.mark.parametrize(
    "name, form",
    [(n, f) for n in AGGRS for f in FORMS if f in FEWER_FORMS.get(n, FORMS)],
)
def test_aggregation_matches_pyg(name, form):
    x, kw, equivalent = _aggr_call(form)
    module = _randomised(AGGRS[name](), x.dtype, seed=len(name))
    ours = from_pyg(module)
    assert sorted(ours.state_dict()) == sorted(
        k for k in module.state_dict() if not k.endswith("num_batches_tracked")
    )
    before = x.copy()
    try:
        want = _pyg_call(module, x, kw)
    except (ImportError, NotImplementedError):  # PyG needs index (or torch-scatter) here
        want = _pyg_call(module, x, equivalent)
    except IndexError:  # PyG's median / quantile index group 0 (empty here)
        assert form == "group0_empty" and name in ("median", "quantile")
        got = ours(x, **kw)
        fill = module.fill_value
        assert np.all(got[0] == fill) and got.shape == (8, F * len(np.ravel(module.q)))
        shifted = _pyg_call(module, x, {"index": INDEX, "dim_size": 7})
        _close(got[1:], shifted)
        return
    except (ValueError, AssertionError, RuntimeError) as exc:
        assert form in ("unsorted", "dim3"), f"PyG refuses {form}: {exc}"
        if form == "unsorted" and "not sorted" in str(exc) and name in ORDER_FREE:
            # PyG needs a sorted index here, we do not: the same as PyG on sorted rows
            order = np.argsort(kw["index"], kind="stable")
            want = _pyg_call(module, x[order], {"index": kw["index"][order]})
            _close(ours(x, **kw), want)
            return
        with pytest.raises((ValueError, TypeError)):  # refused: so are we
            ours(x, **kw)
        return
    _close(ours(x, **kw), want)
    np.testing.assert_array_equal(x, before)


# ------------------------------------------------------------------------ global pools
def _graph(form="plain", seed=1):
    """14 nodes in graphs 0, 2, 3 (graph 1 empty), edges inside graphs, edge features."""
    rng = np.random.default_rng(seed)
    batch = np.array([0] * 5 + [2] * 6 + [3] * 3)
    n = batch.shape[0]
    ei = np.stack([rng.integers(0, n, 48), rng.integers(0, n, 48)])
    ei = ei[:, batch[ei[0]] == batch[ei[1]]]
    x = rng.standard_normal((n, F)).astype(np.float32)
    ea = rng.standard_normal((ei.shape[1], 3)).astype(np.float32)
    if form == "float64":
        x, ea = x.astype(np.float64), ea.astype(np.float64)
    elif form == "int32":
        batch, ei = batch.astype(np.int32), ei.astype(np.int32)
    elif form == "group0_empty":
        batch = batch + 1
    elif form == "no_batch":
        batch = None
    return x, ei, ea, batch


GLOBAL_FORMS = {
    "batch": lambda x, b: (x, b, None),
    "size": lambda x, b: (x, b, 6),
    "no_batch": lambda x, b: (x, None, None),
    "int32": lambda x, b: (x, b.astype(np.int32), 5),
    "float64": lambda x, b: (x.astype(np.float64), b, 4),
    "group0_empty": lambda x, b: (x, b + 1, None),
    "x1d": lambda x, b: (x[:, 0].copy(), b, 4),
    "x1d_no_batch": lambda x, b: (x[:, 0].copy(), None, None),
    "x3d": lambda x, b: (np.stack([x, 2.0 * x - 1.0]), b, 4),
    "x3d_no_batch": lambda x, b: (np.stack([x, 2.0 * x - 1.0]), None, None),
}


@pytest.mark.parametrize("form", list(GLOBAL_FORMS))
@pytest.mark.parametrize("reduce", ["add", "mean", "max"])
def test_global_pool_matches_pyg(reduce, form):
    x, _, _, batch = _graph()
    x, batch, size = GLOBAL_FORMS[form](x, batch)
    name = f"global_{reduce}_pool"
    want = getattr(pyg_nn, name)(_t(x), _t(batch), size)
    _close(getattr(agnn, name)(x, batch, size), want)


def test_global_pool_3d_with_ptr_and_batch_object():
    """A 3-D ``x`` pools along its node dimension -2 also with ``ptr`` and a ``Batch``."""
    from arraygnn.batch import Batch

    x, _, _, batch = _graph()
    x3 = np.stack([x, x + 1.0, -x])
    ptr = np.array([0, 5, 5, 11, 14])
    want = pyg_nn.global_mean_pool(_t(x3), _t(batch)).numpy()
    _close(agnn.global_mean_pool(x3, ptr=ptr), want)
    data = Batch.from_data_list(
        [Data(num_nodes=5), Data(num_nodes=0), Data(num_nodes=6), Data(num_nodes=3)]
    )
    _close(agnn.global_max_pool(x3, data), pyg_nn.global_max_pool(_t(x3), _t(batch)).numpy())


# ---------------------------------------------------------------------- TopK / SAG pooling
TOPK = {
    "topk": lambda: pyg_nn.TopKPooling(F, 0.5),
    "topk_ratio_int": lambda: pyg_nn.TopKPooling(F, 2),
    "topk_ratio_int_large": lambda: pyg_nn.TopKPooling(F, 10),
    "topk_min_score": lambda: pyg_nn.TopKPooling(F, min_score=0.2, multiplier=1.5),
    "topk_sigmoid": lambda: pyg_nn.TopKPooling(F, 0.3, nonlinearity="sigmoid", multiplier=2.0),
    "topk_relu_callable": lambda: pyg_nn.TopKPooling(F, 0.7, nonlinearity=torch.relu),
    "sag": lambda: pyg_nn.SAGPooling(F, 0.5),
    "sag_ratio_int": lambda: pyg_nn.SAGPooling(F, 3, nonlinearity="sigmoid"),
    "sag_min_score": lambda: pyg_nn.SAGPooling(F, min_score=0.1, multiplier=0.5),
    "sag_gcn": lambda: pyg_nn.SAGPooling(F, 0.6, GNN=pyg_nn.GCNConv),
    "sag_graph_conv_mean": lambda: pyg_nn.SAGPooling(F, 0.6, aggr="mean"),
}
TOPK_FORMS = ["no_batch", "int32", "float64", "group0_empty", "attn", "no_edge_attr"]
TOPK_OUT = ["x", "edge_index", "edge_attr", "batch", "perm", "score"]


@pytest.mark.parametrize(
    "name, form",  # each layer plainly and in two other forms, every form several times
    [
        (name, form)
        for i, name in enumerate(TOPK)
        for form in ("plain", TOPK_FORMS[i % 6], TOPK_FORMS[(i + 3) % 6])
    ],
)
def test_topk_sag_pooling_matches_pyg(name, form):
    x, ei, ea, batch = _graph(
        form if form in ("no_batch", "int32", "float64", "group0_empty") else "plain"
    )
    torch.manual_seed(0)
    module = TOPK[name]().to(torch.float64 if x.dtype == np.float64 else torch.float32).eval()
    attn = x[:, ::-1].copy() if form == "attn" else None
    if form == "no_edge_attr":
        ea = None
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(ea), _t(batch), _t(attn))
    got = ours(x, ei, ea, batch, attn)
    for g, w, what in zip(got, want, TOPK_OUT):
        _close(g, w, what)


# ------------------------------------------------------------------------- ASAP pooling
ASAP = {
    "asap": lambda: pyg_nn.ASAPooling(F, 0.5),
    "asap_ratio_int": lambda: pyg_nn.ASAPooling(F, 2),
    "asap_loops_slope": lambda: pyg_nn.ASAPooling(F, 0.3, add_self_loops=True, negative_slope=0.1),
}


@pytest.mark.parametrize(
    "name, form",  # PyG's ASAP takes 0.1 s a call: five calls
    [
        ("asap", "plain"),
        ("asap", "no_batch"),
        ("asap_ratio_int", "weighted"),
        ("asap_ratio_int", "int32"),
        ("asap_loops_slope", "group0_empty"),
    ],
)
def test_asap_pooling_matches_pyg(name, form):
    x, ei, ea, batch = _graph(form if form != "weighted" else "plain")
    weight = np.abs(ea[:, 0]).copy() if form == "weighted" else None
    torch.manual_seed(1)
    module = ASAP[name]().eval()
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(weight), _t(batch))
    got = ours(x, ei, weight, batch)
    for g, w, what in zip(got, want, ["x", "edge_index", "edge_weight", "batch", "perm"]):
        _close(g, w, what)


# ------------------------------------------------------------- edge / memory / cluster
@pytest.mark.parametrize("form", ["plain", "group0_empty", "float64", "int32"])
@pytest.mark.parametrize("method", ["softmax", "sigmoid_no_add"])
def test_edge_pooling_and_unpool_match_pyg(method, form):
    x, ei, _, batch = _graph(form)
    torch.manual_seed(2)
    if method == "softmax":
        module = pyg_nn.EdgePooling(F)
    else:
        module = pyg_nn.EdgePooling(
            F, pyg_nn.EdgePooling.compute_edge_score_sigmoid, add_to_edge_score=0.0
        )
    module = module.to(torch.float64 if x.dtype == np.float64 else torch.float32).eval()
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(batch))
        want_up = module.unpool(want[0] * 2, want[3])
    got = ours(x, ei, batch)
    got_up = ours.unpool(got[0] * 2, got[3])
    for g, w, what in zip(got[:3], want[:3], ["x", "edge_index", "batch"]):
        _close(g, w, what)
    _close(got[3].cluster, want[3].cluster, "cluster")
    _close(got[3].new_edge_score, want[3].new_edge_score, "new_edge_score")
    for g, w, what in zip(got_up, want_up, ["unpooled x", "edge_index", "batch"]):
        _close(g, w, what)


@pytest.mark.parametrize(
    "form", ["plain", "no_batch", "group0_empty", "float64", "max_nodes", "batch_size"]
)
def test_mem_pooling_matches_pyg(form):
    x, _, _, batch = _graph(form if form in ("no_batch", "group0_empty", "float64") else "plain")
    kwargs = {"max_num_nodes": 8} if form == "max_nodes" else {}
    kwargs = {"batch_size": 6} if form == "batch_size" else kwargs
    torch.manual_seed(3)
    module = pyg_nn.MemPooling(F, 3, heads=2, num_clusters=3, tau=1.5)
    module = module.to(torch.float64 if x.dtype == np.float64 else torch.float32).eval()
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(batch), **kwargs)
    for g, w, what in zip(ours(x, batch, **kwargs), want, ["x", "S"]):
        _close(g, w, what)


@pytest.mark.parametrize("method", ["tanh", "log_softmax"])
def test_cluster_pooling_matches_pyg(method):
    x, ei, _, batch = _graph("group0_empty")
    torch.manual_seed(4)
    threshold = -3.0 if method == "log_softmax" else None
    module = pyg_nn.ClusterPooling(F, method, threshold=threshold).eval()
    ours = from_pyg(module)
    with torch.no_grad():
        want = module(_t(x), _t(ei), _t(batch))
    got = ours(x, ei, batch)
    for g, w, what in zip(got[:3], want[:3], ["x", "edge_index", "batch"]):
        _close(g, w, what)
    _close(got[3].cluster, want[3].cluster, "cluster")


# --------------------------------------------------------------------- the cluster pools
CLUSTER = np.array([0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 5, 5, 5])  # inside graphs; 4 unused


@pytest.mark.parametrize("form", ["plain", "size", "int32", "float64"])
@pytest.mark.parametrize("fn", ["max_pool_x", "avg_pool_x"])
def test_pool_x_matches_pyg(fn, form):
    x, _, _, batch = _graph(form if form != "size" else "plain")
    cluster = CLUSTER.astype(np.int32) if form == "int32" else CLUSTER
    kwargs = {"size": 3} if form == "size" else {}
    want = getattr(pyg_nn, fn)(_t(cluster), _t(x), _t(batch), **kwargs)
    got = getattr(agnn, fn)(cluster, x, batch, **kwargs)
    for g, w, what in zip(got, want, ["x", "batch"]):
        _close(g, w, what)


@pytest.mark.parametrize("form", ["plain", "no_batch", "no_edge_attr", "float64"])
@pytest.mark.parametrize("fn", ["max_pool", "avg_pool"])
def test_cluster_pool_of_data_matches_pyg(fn, form):
    x, ei, ea, batch = _graph(form if form in ("no_batch", "float64") else "plain")
    pos = np.random.default_rng(5).standard_normal((x.shape[0], 2)).astype(x.dtype)
    fields = {"x": x, "edge_index": ei, "pos": pos, "edge_attr": ea, "batch": batch}
    if form == "no_edge_attr":
        del fields["edge_attr"]
    fields = {k: v for k, v in fields.items() if v is not None}
    want = getattr(pyg_nn, fn)(_t(CLUSTER), TData(**{k: _t(v) for k, v in fields.items()}))
    got = getattr(agnn, fn)(CLUSTER, Data(**fields))
    for key in ("x", "edge_index", "edge_attr", "batch", "pos"):
        _close(getattr(got, key, None), getattr(want, key, None), key)


@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize("fn", ["max_pool_neighbor_x", "avg_pool_neighbor_x"])
def test_pool_neighbor_x_matches_pyg(fn, flow):
    x, ei, _, batch = _graph()
    want = getattr(pyg_nn, fn)(TData(x=_t(x), edge_index=_t(ei), batch=_t(batch)), flow=flow)
    got = getattr(agnn, fn)(Data(x=x, edge_index=ei, batch=batch), flow=flow)
    _close(got.x, want.x)


# ---------------------------------------------------------- knn / radius (PyG's wrappers)
def _ptr_batch(ptr, n):
    return (
        torch.repeat_interleave(torch.arange(len(ptr) - 1), ptr.diff())
        if ptr is not None
        else torch.zeros(n, dtype=torch.long)
    )


def _brute_knn(x, y, ptr_x, ptr_y, k, cosine, num_workers):
    """pyg-lib's knn by brute force: per centre, its k nearest points of the same example,
    by distance, then index."""
    bx, by = _ptr_batch(ptr_x, x.shape[0]), _ptr_batch(ptr_y, y.shape[0])
    if cosine:
        dist = (
            1
            - torch.nn.functional.normalize(y, dim=-1) @ torch.nn.functional.normalize(x, dim=-1).T
        )
    else:
        dist = torch.cdist(y.double(), x.double()) ** 2
    dist = torch.where(by[:, None] == bx[None, :], dist.double(), torch.inf)
    rows, cols = [], []
    for i in range(y.shape[0]):
        order = sorted(range(x.shape[0]), key=lambda j: (float(dist[i, j]), j))
        picked = [j for j in order if dist[i, j] < torch.inf][:k]
        rows += [i] * len(picked)
        cols += picked
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


def _brute_radius(x, y, ptr_x, ptr_y, r, max_num_neighbors, num_workers, ignore_same_index):
    """pyg-lib's radius by brute force (index order within a centre)."""
    bx, by = _ptr_batch(ptr_x, x.shape[0]), _ptr_batch(ptr_y, y.shape[0])
    dist = torch.cdist(y.double(), x.double())
    rows, cols = [], []
    for i in range(y.shape[0]):
        picked = [
            j
            for j in range(x.shape[0])
            if bx[j] == by[i] and dist[i, j] <= r and not (ignore_same_index and i == j)
        ][:max_num_neighbors]
        rows += [i] * len(picked)
        cols += picked
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


@pytest.fixture
def brute_kernels(monkeypatch):
    import torch_geometric.typing as typing

    for flag in ("WITH_KNN", "WITH_RADIUS"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "knn", _brute_knn, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "radius", _brute_radius, raising=False)


def _edge_set(ei):
    ei = ei.numpy() if hasattr(ei, "numpy") else np.asarray(ei)
    return sorted(map(tuple, ei.T.tolist()))


@pytest.mark.parametrize(
    "call",
    [
        "knn",
        "knn_cosine",
        "knn_graph",
        "knn_graph_loop_t2s",
        "radius",
        "radius_graph",
        "radius_graph_loop_t2s",
        "radius_graph_batch_size",
    ],
)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_knn_radius_wrappers_match_pyg(brute_kernels, call, index_dtype):
    """The PyG wrappers' layout (rows: centres of ``y``; ``flow``; ``loop``; ``batch_size``)
    over a brute-force kernel; points in general position (no distance ties)."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((13, 3))
    y = rng.standard_normal((6, 3))
    bx = np.array([0] * 6 + [2] * 7, index_dtype)
    by = np.array([0, 0, 1, 2, 2, 2], index_dtype)
    graph = {"loop": True, "flow": "target_to_source"} if "loop" in call else {}
    if call.startswith("knn_graph"):
        want = pyg_nn.knn_graph(_t(x), 3, _t(bx), **graph)
        got = agnn.knn_graph(x, 3, bx, **graph)
    elif call.startswith("knn"):
        cosine = call == "knn_cosine"
        want = pyg_nn.knn(_t(x), _t(y), 4, _t(bx), _t(by), cosine=cosine)
        got = agnn.knn(x, y, 4, bx, by, cosine=cosine)
    elif call.startswith("radius_graph"):
        size = {"batch_size": 4} if call.endswith("batch_size") else {}
        want = pyg_nn.radius_graph(_t(x), 1.6, _t(bx), max_num_neighbors=32, **graph, **size)
        got = agnn.radius_graph(x, 1.6, bx, max_num_neighbors=32, **graph, **size)
    else:
        want = pyg_nn.radius(_t(x), _t(y), 1.8, _t(bx), _t(by))
        got = agnn.radius(x, y, 1.8, bx, by)
    assert got.shape == tuple(want.shape)
    if call.startswith("knn"):  # same centre order and distance order
        _close(got, want)
    else:  # a radius search's order within a centre is open
        assert _edge_set(got) == _edge_set(want)


@pytest.mark.parametrize("batched", [False, True])
def test_knn_interpolate_matches_pyg(brute_kernels, batched):
    rng = np.random.default_rng(8)
    x, pos_x, pos_y = rng.standard_normal((13, 2)), rng.standard_normal((13, 3)), rng.random((6, 3))
    bx = np.array([0] * 6 + [2] * 7) if batched else None
    by = np.array([0, 0, 1, 2, 2, 2]) if batched else None
    want = pyg_nn.knn_interpolate(_t(x), _t(pos_x), _t(pos_y), _t(bx), _t(by), k=3)
    _close(agnn.knn_interpolate(x, pos_x, pos_y, bx, by, k=3), want)


# ------------------------------------------------------------------------- dense pools
@pytest.mark.parametrize("form", ["mask", "no_mask", "two_dim", "float64"])
@pytest.mark.parametrize("fn", ["dense_diff_pool", "dense_mincut_pool", "DMoNPooling"])
def test_dense_pools_match_pyg(fn, form):
    """PyG's dense pools (``torch_geometric.nn.dense``): padded graphs with a node mask."""
    rng = np.random.default_rng(9)
    dtype = np.float64 if form == "float64" else np.float32
    x = rng.standard_normal((3, 5, F)).astype(dtype)
    adj = (rng.random((3, 5, 5)) < 0.5).astype(dtype)
    adj = np.maximum(adj, adj.transpose(0, 2, 1))
    s = rng.standard_normal((3, 5, 3)).astype(dtype)
    mask = np.ones((3, 5), bool)
    mask[0, 3:] = mask[2, 1:] = False  # a graph of three nodes, one of one
    if form == "two_dim":
        x, adj, s, mask = x[0], adj[0], s[0], None
    elif form == "no_mask":
        mask = None
    if fn == "DMoNPooling":
        torch.manual_seed(5)
        module = _randomised(pyg_nn.DMoNPooling([F, 6], 3), dtype)
        with torch.no_grad():
            want = module(_t(x), _t(adj), _t(mask))
        got = from_pyg(module)(x, adj, mask)
    else:
        want = getattr(pyg_nn, fn)(_t(x), _t(adj), _t(s), _t(mask))
        got = getattr(agnn, fn)(x, adj, s, mask)
    for i, (g, w) in enumerate(zip(got, want)):
        if w.dim() == 0:  # a loss: a scalar, compared at the loss's own scale
            assert abs(float(g) - float(w)) <= 1e-4 * max(1.0, abs(float(w))), (i, g, w)
        else:
            _close(g, w, f"output {i}")
