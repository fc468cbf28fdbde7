"""Parity sweep (session 13): PyG's knowledge-graph embeddings over NON-default options
(``p_norm``, ``margin``, ``sparse``, ``test``'s ``k`` / ``batch_size`` / ``log``) and the
geometric / point-cloud convolutions that PyG 2.8.1 runs without torch-cluster over option
combinations the earlier sweeps leave out (aggregations, ``local_nn`` / ``global_nn``
absent, bipartite ``(x_src, x_dst)`` and position / normal pairs with PyG's self-loops,
``kernel_size`` / ``separate_gaussians``, ``root_weight`` / ``bias``). Every layer is built
in PyG, converted with ``arraygnn.nn.from_pyg`` (eval mode, random biases) and run live on
small seeded inputs. Not run: ``GravNetConv`` (PyG needs torch-cluster) and ``SplineConv``
(torch-spline-conv; see test_pyg_spline_mesh.py).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.nn")

from torch_geometric.nn import kge as pyg_kge  # noqa: E402

import arraygnn.nn as agnn  # noqa: E402

N, NS, ND, F, O, EA = 9, 8, 5, 6, 4, 3  # nodes, bipartite sources / targets, widths
RTOL, ATOL = 1e-5, 1e-6


def _graph(num_edges: int) -> dict:
    rng = np.random.default_rng(3)
    src = rng.integers(0, N, num_edges)
    dst = rng.integers(0, N - 2, num_edges)  # the last two nodes receive nothing
    if num_edges:
        src[:2] = dst[:2]  # self-loops
        src[2], dst[2] = src[3], dst[3]  # a repeated edge
    bsrc, bdst = rng.integers(0, NS, num_edges), rng.integers(0, ND - 1, num_edges)
    if num_edges:
        bsrc[0] = bdst[0]  # a bipartite "self-loop" (same id on both sides)
    f32 = np.float32
    return {
        "x": rng.standard_normal((N, F)).astype(f32),
        "pos": rng.standard_normal((N, 3)).astype(f32),
        "normal": rng.standard_normal((N, 3)).astype(f32),
        "ei": np.stack([src, dst]).astype(np.int64),
        "ea": rng.standard_normal((num_edges, EA)).astype(f32),
        "xs": rng.standard_normal((NS, F)).astype(f32),
        "xd": rng.standard_normal((ND, F)).astype(f32),
        "xd1": rng.standard_normal((ND, F + 1)).astype(f32),
        "ps": rng.standard_normal((NS, 3)).astype(f32),
        "pd": rng.standard_normal((ND, 3)).astype(f32),
        "ns": rng.standard_normal((NS, 3)).astype(f32),
        "nd": rng.standard_normal((ND, 3)).astype(f32),
        "eib": np.stack([bsrc, bdst]).astype(np.int64),
    }


GRAPHS = {"graph": _graph(22), "no_edges": _graph(0)}


def _mlp(*sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


# (id, builder of the PyG module, arguments of the call from the graph's arrays)
X = lambda g: (g["x"], g["ei"])  # noqa: E731
XA = lambda g: (g["x"], g["ei"], g["ea"])  # noqa: E731
XP = lambda g: (g["x"], g["pos"], g["ei"])  # noqa: E731
PAIR = lambda g: ((g["xs"], g["xd"]), g["eib"])  # noqa: E731
PAIR1_A = lambda g: ((g["xs"], g["xd1"]), g["eib"], g["ea"])  # noqa: E731
# x_dst None: PyG sizes the output by N_src without size=; arraygnn needs size= (layers.md)
SRC_A = lambda g: ((g["xs"], None), g["eib"], g["ea"], {"size": (NS, ND)})  # noqa: E731
PAIR_P = lambda g: ((g["xs"], g["xd"]), (g["ps"], g["pd"]), g["eib"])  # noqa: E731
PAIR1_P = lambda g: ((g["xs"], g["xd1"]), (g["ps"], g["pd"]), g["eib"])  # noqa: E731
PAIR_PN = lambda g: ((g["xs"], g["xd"]), (g["ps"], g["pd"]), (g["ns"], g["nd"]), g["eib"])  # noqa: E731

CASES = [
    # PointNetConv: aggregations, nets absent, bipartite pairs with PyG's loops
    (
        "PointNetConv-mean-global-pair-loops",
        lambda: pyg.PointNetConv(_mlp(F + 3, 8, 8), _mlp(8, O), aggr="mean"),
        PAIR_P,
    ),
    (
        "PointNetConv-add-linear-pair-loops",
        lambda: pyg.PointNetConv(torch.nn.Linear(F + 3, O), aggr="add"),
        PAIR_P,
    ),
    (
        "PointNetConv-min-no_loops",
        lambda: pyg.PointNetConv(_mlp(F + 3, 8, O), add_self_loops=False, aggr="min"),
        XP,
    ),
    (  # more targets than sources: PyG's loops join only the first min(N_src, N_dst)
        "PointNetConv-pair-more_dst-loops",
        lambda: pyg.PointNetConv(_mlp(F + 3, 8, O)),
        lambda g: ((g["xd"], g["xs"]), (g["pd"], g["ps"]), g["eib"][::-1].copy()),
    ),
    ("PointNetConv-no_local-global", lambda: pyg.PointNetConv(None, _mlp(F + 3, O)), XP),
    ("PointNetConv-no_nets-sum", lambda: pyg.PointNetConv(None, None, aggr="sum"), XP),
    (
        "PointNetConv-no_x-pair-mean",
        lambda: pyg.PointNetConv(_mlp(3, O), aggr="mean"),
        lambda g: ((None, None), (g["ps"], g["pd"]), g["eib"]),
    ),
    # PPFConv
    (
        "PPFConv-pair-global-mean",
        lambda: pyg.PPFConv(_mlp(F + 4, 8), _mlp(8, O), aggr="mean"),
        PAIR_PN,
    ),
    (
        "PPFConv-no_nets-add",
        lambda: pyg.PPFConv(None, None, aggr="add"),
        lambda g: (g["x"], g["pos"], g["normal"], g["ei"]),
    ),
    (
        "PPFConv-no_x-min-no_loops",
        lambda: pyg.PPFConv(_mlp(4, O), add_self_loops=False, aggr="min"),
        lambda g: (None, g["pos"], g["normal"], g["ei"]),
    ),
    # PointTransformerConv: bipartite (x_src, x_dst) of different widths, pos pairs
    ("PointTransformerConv-pair-loops", lambda: pyg.PointTransformerConv((F, F + 1), O), PAIR1_P),
    (
        "PointTransformerConv-pair-more_dst-loops",
        lambda: pyg.PointTransformerConv(F, O),
        lambda g: ((g["xd"], g["xs"]), (g["pd"], g["ps"]), g["eib"][::-1].copy()),
    ),
    (
        "PointTransformerConv-pair-nns-no_loops",
        lambda: pyg.PointTransformerConv(
            (F, F + 1), O, _mlp(3, 8, O), _mlp(O, O), add_self_loops=False
        ),
        PAIR1_P,
    ),
    # GMMConv
    (
        "GMMConv-pair-max",
        lambda: pyg.GMMConv((F, F + 1), O, EA, 2, aggr="max"),
        PAIR1_A,
    ),
    (
        "GMMConv-k1-dim1-separate",
        lambda: pyg.GMMConv(F, O, 1, 1, separate_gaussians=True),
        lambda g: (g["x"], g["ei"], g["ea"][:, :1]),
    ),
    (
        "GMMConv-src_only-separate-no_bias",
        lambda: pyg.GMMConv((F, F + 1), O, EA, 3, True, aggr="add", bias=False),
        SRC_A,
    ),
    # NNConv
    (
        "NNConv-add-no_root-no_bias",
        lambda: pyg.NNConv(F, O, _mlp(EA, F * O), "add", root_weight=False, bias=False),
        XA,
    ),
    ("NNConv-src_only-mean", lambda: pyg.NNConv((F, F + 1), O, _mlp(EA, F * O), "mean"), SRC_A),
    ("NNConv-pair-root-max", lambda: pyg.NNConv((F, F + 1), O, _mlp(EA, F * O), "max"), PAIR1_A),
    # CGConv
    ("CGConv-no_edge_dim-max", lambda: pyg.CGConv(F, aggr="max"), X),
    (
        "CGConv-pair_channels-bn",
        lambda: pyg.CGConv((F, F + 1), EA, batch_norm=True),
        PAIR1_A,
    ),
    # EdgeConv
    ("EdgeConv-add", lambda: pyg.EdgeConv(_mlp(2 * F, 8, O), aggr="add"), X),
    ("EdgeConv-min-pair", lambda: pyg.EdgeConv(torch.nn.Linear(2 * F, O), aggr="min"), PAIR),
    # FeaStConv: bipartite, with and without PyG's loops
    ("FeaStConv-pair-loops-heads", lambda: pyg.FeaStConv(F, O, heads=2), PAIR),
    ("FeaStConv-pair-no_loops", lambda: pyg.FeaStConv(F, O, 3, add_self_loops=False), PAIR),
    # PointGNNConv with deeper nets
    (
        "PointGNNConv-deep",
        lambda: pyg.PointGNNConv(_mlp(F, 8, 3), _mlp(F + 3, 8, F), _mlp(F, 8, F)),
        XP,
    ),
]

# PyG itself fails on these without edges (FeaStConv: a reshape of 0 elements)
NO_EMPTY = {"FeaStConv-pair-no_loops"}


def _to_torch(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(a))
    if isinstance(a, tuple):
        return tuple(_to_torch(v) for v in a)
    return a


def _build(make):
    torch.manual_seed(0)
    module = make()
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):  # PyG zero-initialises most biases
                p.uniform_(-0.5, 0.5)
        for m in module.modules():  # fresh running statistics, used in eval mode
            if getattr(m, "running_mean", None) is not None:
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return module.eval()


def _compare(ours, theirs, name):
    theirs = theirs.detach().numpy()
    ours = np.asarray(ours)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    scale = max(float(np.abs(theirs).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL * scale, err_msg=name)


def _snapshot(args):
    if isinstance(args, np.ndarray):
        return [args.copy()]
    if isinstance(args, tuple):
        return [a for v in args for a in _snapshot(v)]
    return []


@pytest.mark.parametrize("name,make,call", CASES, ids=[c[0] for c in CASES])
def test_geometric_conv_option_matches_pyg(name, make, call):
    module = _build(make)
    ours = agnn.from_pyg(module)
    theirs = {k: v for k, v in module.state_dict().items() if "num_batches_tracked" not in k}
    assert sorted(ours.state_dict()) == sorted(theirs), name
    for graph, g in GRAPHS.items():
        if graph == "no_edges" and name in NO_EMPTY:
            continue
        args, kwargs = call(g), {}
        if isinstance(args[-1], dict):
            args, kwargs = args[:-1], args[-1]
        with torch.no_grad():
            expected = module(*_to_torch(args), **kwargs)
        before = _snapshot(args)
        _compare(ours(*args, **kwargs), expected, f"{name} on {graph}")
        assert all(np.array_equal(a, b) for a, b in zip(_snapshot(args), before)), name


@pytest.mark.parametrize("name", ["NNConv", "GMMConv"])
def test_missing_x_dst_without_size_names_size(name):
    g = GRAPHS["graph"]
    if name == "NNConv":
        conv = agnn.NNConv((F, F + 1), O, agnn.Linear(EA, F * O, rng=0))
    else:
        conv = agnn.GMMConv((F, F + 1), O, EA, 2, rng=0)
    with pytest.raises(ValueError, match=r"x\[1\] is None.*size=\(num_src, num_dst\)"):
        conv((g["xs"], None), g["eib"], g["ea"])


# ------------------------------------------------------------------------------- KGE
KGE_OPTIONS = [
    (pyg_kge.TransE, {"p_norm": float("inf"), "margin": 3.0, "sparse": True}),
    (pyg_kge.TransE, {"p_norm": 0.5}),
    (pyg_kge.TransE, {"p_norm": 4.0, "margin": 0.25}),
    (pyg_kge.DistMult, {"margin": 0.3, "sparse": True}),
    (pyg_kge.ComplEx, {"sparse": True}),
    (pyg_kge.RotatE, {"margin": 0.0}),
    (pyg_kge.RotatE, {"margin": -2.0, "sparse": True}),
]


def _t(*arrays):
    return [torch.from_numpy(a.astype(np.int64)) for a in arrays]


@pytest.mark.parametrize(
    "cls,kw",
    KGE_OPTIONS,
    ids=[f"{c.__name__}-{'-'.join(map(str, k.values()))}" for c, k in KGE_OPTIONS],
)
def test_kge_options_match_pyg(cls, kw):
    torch.manual_seed(0)
    module = cls(30, 4, 5, **kw).double()
    model = agnn.from_pyg(module)
    assert model.sparse == kw.get("sparse", False)
    for key in ("margin", "p_norm"):
        if hasattr(module, key):
            assert getattr(model, key) == getattr(module, key), key
    gen = np.random.default_rng(2)
    h, r, t = gen.integers(0, 30, 20), gen.integers(0, 4, 20), gen.integers(0, 30, 20)
    with torch.no_grad():
        ref = module(*_t(h, r, t)).numpy()
        # the loss of given negatives: PyG's formula on PyG's scores
        neg = model.random_sample(h, r, t, seed=1)
        pos_s, neg_s = module(*_t(h, r, t)), module(*_t(*neg))
        if cls in (pyg_kge.TransE, pyg_kge.DistMult):
            ones = torch.ones_like(pos_s)
            want_loss = torch.nn.functional.margin_ranking_loss(pos_s, neg_s, ones, module.margin)
        else:
            scores = torch.cat([pos_s, neg_s])
            labels = torch.cat([torch.ones_like(pos_s), torch.zeros_like(neg_s)])
            want_loss = torch.nn.functional.binary_cross_entropy_with_logits(scores, labels)
    np.testing.assert_allclose(model(h, r, t), ref, rtol=1e-12, atol=1e-12)
    assert float(model.loss(h, r, t, neg=neg)) == pytest.approx(float(want_loss), rel=1e-12)
    # ranking: torch's argsort orders exact ties arbitrarily, so keep untied true tails
    keep = []
    for i in range(20):
        with torch.no_grad():
            row = module(*_t(np.full(30, h[i]), np.full(30, r[i]), np.arange(30)))
        keep.append(int((row == row[int(t[i])]).sum()) == 1)
    h, r, t = h[keep], r[keep], t[keep]
    assert len(h) > 10
    for k in (0, 1, 3, 100):  # k beyond num_nodes: every triple a hit
        want = module.test(*_t(h, r, t), batch_size=7, k=k, log=False)
        got = model.test(h, r, t, batch_size=7, k=k, log=False)
        assert got[:2] == pytest.approx(want[:2], rel=1e-6)
        assert got[2] == want[2], k


@pytest.mark.parametrize("cls", [agnn.TransE, agnn.DistMult, agnn.RotatE])
def test_kge_non_number_margin_names_it(cls):
    with pytest.raises(TypeError, match=f"{cls.__name__}: margin must be a real number"):
        cls(5, 2, 3, margin="x")
    assert cls(5, 2, 3, margin=np.float32(0.5)).margin == 0.5


def test_transe_non_number_p_norm_names_it():
    with pytest.raises(TypeError, match="TransE: p_norm must be a real number"):
        agnn.TransE(5, 2, 3, p_norm="l2")
    with pytest.raises(ValueError, match="TransE: p_norm must be >= 0"):
        agnn.TransE(5, 2, 3, p_norm=-1.0)


@pytest.mark.parametrize(
    "name,make",
    [
        ("PointNetConv", lambda ag: pyg.PointNetConv(_mlp(F + 3, O), aggr=ag)),
        ("PPFConv", lambda ag: pyg.PPFConv(_mlp(F + 4, O), aggr=ag)),
        ("CGConv", lambda ag: pyg.CGConv(F, EA, aggr=ag)),
        ("GMMConv", lambda ag: pyg.GMMConv(F, O, EA, 2, aggr=ag)),
    ],
)
@pytest.mark.parametrize("aggr", ["mul", "std", ["mean", "max"]], ids=str)
def test_unsupported_aggr_is_refused_naming_it(name, make, aggr):
    # PyG runs 'mul' / 'std' (and lists, where the output width allows); these layers
    # aggregate with sum / mean / max / min only (docs/layers.md)
    with pytest.raises(ValueError, match=f"{name}\\(aggr="):
        agnn.from_pyg(make(aggr))
