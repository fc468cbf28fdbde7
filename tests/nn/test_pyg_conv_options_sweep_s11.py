"""Parity sweep: arraygnn.nn's message-passing layers against PyG over NON-default options.

Every class of ``torch_geometric.nn.conv.__all__`` that ``arraygnn.nn`` also provides is built
with a few option combinations users really use, converted with ``arraygnn.nn.from_pyg`` and
run on one small random multigraph (self-loops, a repeated edge, isolated nodes), on the same
graph without edges, and, where PyG takes it, in the bipartite ``(x_src, x_dst)`` form and with
an ``edge_weight`` / ``edge_attr``. Biases are drawn at random (PyG starts most at zero, which
would hide a mis-ordered bias). Options arraygnn refuses must raise an error naming them.
Not run here: ``MessagePassing`` (the base class), ``GravNetConv`` / ``DynamicEdgeConv`` /
``XConv`` (PyG needs torch-cluster), ``SplineConv`` (torch-spline-conv; see
test_pyg_spline_mesh.py), ``PANConv`` (torch-sparse).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.nn")

import arraygnn.nn as agnn  # noqa: E402

N, NS, ND, F, O, EA = 9, 8, 5, 6, 4, 3  # nodes, bipartite sources / targets, widths
RTOL, ATOL = 1e-5, 1e-6

# PyG's GENConv(norm='instance') runs InstanceNorm1d(affine=False) over [N, C]: torch warns
pytestmark = pytest.mark.filterwarnings("ignore:input's size at dim=0:UserWarning")


def _graph(num_edges: int) -> dict:
    rng = np.random.default_rng(0)
    src = rng.integers(0, N, num_edges)
    dst = rng.integers(0, N - 2, num_edges)  # the last two nodes receive nothing
    if num_edges:
        src[:2] = dst[:2]  # self-loops
        src[2], dst[2] = src[3], dst[3]  # a repeated edge
    bsrc, bdst = rng.integers(0, NS, num_edges), rng.integers(0, ND - 1, num_edges)
    f32 = np.float32
    return {
        "x": rng.standard_normal((N, F)).astype(f32),
        "x0": rng.standard_normal((N, F)).astype(f32),
        "pos": rng.standard_normal((N, 3)).astype(f32),
        "normal": rng.standard_normal((N, 3)).astype(f32),
        "ei": np.stack([src, dst]).astype(np.int64),
        "ew": rng.uniform(0.5, 2.0, num_edges).astype(f32),
        "ea": rng.standard_normal((num_edges, EA)).astype(f32),
        "et": rng.integers(0, 3, num_edges).astype(np.int64),
        "xs": rng.standard_normal((NS, F)).astype(f32),
        "xd": rng.standard_normal((ND, F)).astype(f32),
        "eib": np.stack([bsrc, bdst]).astype(np.int64),
    }


GRAPHS = {"graph": _graph(24), "no_edges": _graph(0)}


def _mlp(*sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


class Kw(dict):
    """Keyword arguments of a call, as the last item of a case's arguments."""


# (id, builder of the PyG module, arguments of the call from the graph's arrays)
X = lambda g: (g["x"], g["ei"])  # noqa: E731
XW = lambda g: (g["x"], g["ei"], g["ew"])  # noqa: E731
XA = lambda g: (g["x"], g["ei"], g["ea"])  # noqa: E731
PAIR = lambda g: ((g["xs"], g["xd"]), g["eib"])  # noqa: E731
PAIR_A = lambda g: ((g["xs"], g["xd"]), g["eib"], g["ea"])  # noqa: E731
PAIR_W = lambda g: ((g["xs"], g["xd"]), g["eib"], g["ew"])  # noqa: E731
XT = lambda g: (g["x"], g["ei"], g["et"])  # noqa: E731
SORTED = lambda g: (g["x"], g["ei"][:, np.argsort(g["ei"][1], kind="stable")])  # noqa: E731

CASES = [
    # SimpleConv
    ("SimpleConv-mean-self_loop", lambda: pyg.SimpleConv("mean", "self_loop"), X),
    ("SimpleConv-max-cat", lambda: pyg.SimpleConv("max", "cat"), X),
    ("SimpleConv-sum-sum-weight", lambda: pyg.SimpleConv("sum", "sum"), XW),
    ("SimpleConv-mean-pair", lambda: pyg.SimpleConv("mean", "sum"), PAIR),
    ("SimpleConv-mul-weight", lambda: pyg.SimpleConv("mul"), XW),
    # GCNConv
    ("GCNConv-improved-weight", lambda: pyg.GCNConv(F, O, improved=True), XW),
    ("GCNConv-cached", lambda: pyg.GCNConv(F, O, cached=True), X),
    (
        "GCNConv-no_norm-no_loops-weight",
        lambda: pyg.GCNConv(F, O, normalize=False, add_self_loops=False),
        XW,
    ),
    ("GCNConv-no_loops-no_bias", lambda: pyg.GCNConv(F, O, add_self_loops=False, bias=False), X),
    # ChebConv
    (
        "ChebConv-rw",
        lambda: pyg.ChebConv(F, O, K=3, normalization="rw"),
        lambda g: (g["x"], g["ei"], None, None, torch.tensor(2.0)),
    ),
    (
        "ChebConv-none-weight",
        lambda: pyg.ChebConv(F, O, K=2, normalization=None),
        lambda g: (g["x"], g["ei"], g["ew"], None, torch.tensor(3.0)),
    ),
    ("ChebConv-K1-no_bias", lambda: pyg.ChebConv(F, O, K=1, bias=False), X),
    ("ChebConv-sym-weight", lambda: pyg.ChebConv(F, O, K=3), XW),
    (
        "ChebConv-batch-lambda_max",
        lambda: pyg.ChebConv(F, O, K=3, normalization="rw"),
        lambda g: (
            g["x"],
            g["ei"],
            g["ew"],
            (np.arange(N) >= 4).astype(np.int64),
            np.array([1.5, 2.5], np.float32),
        ),
    ),
    # SAGEConv
    ("SAGEConv-max-normalize", lambda: pyg.SAGEConv(F, O, aggr="max", normalize=True), X),
    ("SAGEConv-sum-no_root", lambda: pyg.SAGEConv(F, O, aggr="sum", root_weight=False), X),
    ("SAGEConv-project-pair", lambda: pyg.SAGEConv(F, O, project=True), PAIR),
    (
        "SAGEConv-max-project-no_bias",
        lambda: pyg.SAGEConv(F, O, "max", project=True, bias=False),
        X,
    ),
    # PyG's aggregation objects: several at once (concatenated), learnable, recurrent
    ("SAGEConv-multi_aggr", lambda: pyg.SAGEConv(F, O, aggr=["mean", "max", "std"]), X),
    (
        "SAGEConv-multi_aggr-project-pair",
        lambda: pyg.SAGEConv(F, O, ["sum", "min"], project=True, normalize=True),
        PAIR,
    ),
    (
        "SAGEConv-softmax_aggr",
        lambda: pyg.SAGEConv(F, O, aggr=pyg.aggr.SoftmaxAggregation(learn=True)),
        X,
    ),
    ("SAGEConv-lstm-sorted", lambda: pyg.SAGEConv(F, O, aggr="lstm"), SORTED),
    # GraphConv
    ("GraphConv-mean-weight", lambda: pyg.GraphConv(F, O, aggr="mean"), XW),
    ("GraphConv-max-pair", lambda: pyg.GraphConv(F, O, aggr="max"), PAIR),
    ("GraphConv-no_bias", lambda: pyg.GraphConv(F, O, bias=False), XW),
    # GatedGraphConv
    ("GatedGraphConv-mean-weight", lambda: pyg.GatedGraphConv(8, 3, aggr="mean"), XW),
    ("GatedGraphConv-max-no_bias", lambda: pyg.GatedGraphConv(8, 2, aggr="max", bias=False), X),
    # ResGatedGraphConv
    ("ResGatedGraphConv-edge_dim", lambda: pyg.ResGatedGraphConv(F, O, edge_dim=EA), XA),
    (
        "ResGatedGraphConv-no_root-tanh",
        lambda: pyg.ResGatedGraphConv(F, O, act=torch.nn.Tanh(), root_weight=False),
        X,
    ),
    ("ResGatedGraphConv-pair-no_bias", lambda: pyg.ResGatedGraphConv(F, O, bias=False), PAIR),
    # GATConv
    (
        "GATConv-concat_false-edge_dim-add",
        lambda: pyg.GATConv(F, O, heads=2, concat=False, edge_dim=EA, fill_value="add"),
        XA,
    ),
    (
        "GATConv-no_loops-no_bias-slope",
        lambda: pyg.GATConv(F, O, heads=3, add_self_loops=False, bias=False, negative_slope=0.1),
        X,
    ),
    ("GATConv-residual-pair", lambda: pyg.GATConv(F, O, heads=2, residual=True), PAIR),
    ("GATConv-mean_heads-residual", lambda: pyg.GATConv(F, O, 3, False, residual=True), X),
    (
        "GATConv-pair-edge_dim-concat_false-residual",
        lambda: pyg.GATConv((F, 3), O, 3, False, edge_dim=EA, fill_value="min", residual=True),
        lambda g: ((g["xs"], g["xd"][:, :3].copy()), g["eib"], g["ea"]),
    ),
    (
        "GATConv-dropout-attention_weights",
        lambda: pyg.GATConv(F, O, heads=2, dropout=0.5, edge_dim=EA),
        lambda g: (g["x"], g["ei"], g["ea"], Kw(return_attention_weights=True)),
    ),
    (
        "GATConv-fill_scalar-residual",
        lambda: pyg.GATConv(F, O, heads=2, edge_dim=EA, fill_value=0.5, residual=True),
        XA,
    ),
    # GATv2Conv
    ("GATv2Conv-share_weights", lambda: pyg.GATv2Conv(F, O, heads=2, share_weights=True), X),
    (
        "GATv2Conv-edge_dim-concat_false",
        lambda: pyg.GATv2Conv(F, O, heads=2, concat=False, edge_dim=EA, fill_value="max"),
        XA,
    ),
    ("GATv2Conv-residual-pair", lambda: pyg.GATv2Conv(F, O, heads=2, residual=True), PAIR),
    (
        "GATv2Conv-share-pair-edge_dim",
        lambda: pyg.GATv2Conv(F, O, 2, share_weights=True, edge_dim=EA, add_self_loops=False),
        PAIR_A,
    ),
    (
        "GATv2Conv-attention_weights",
        lambda: pyg.GATv2Conv(F, O, heads=2, fill_value=0.0, edge_dim=EA),
        lambda g: (g["x"], g["ei"], g["ea"], Kw(return_attention_weights=True)),
    ),
    (
        "GATv2Conv-no_loops-no_bias",
        lambda: pyg.GATv2Conv(F, O, add_self_loops=False, bias=False, negative_slope=0.3),
        X,
    ),
    # TransformerConv
    ("TransformerConv-beta-heads", lambda: pyg.TransformerConv(F, O, heads=2, beta=True), X),
    (
        "TransformerConv-edge_dim-concat_false",
        lambda: pyg.TransformerConv(F, O, heads=2, concat=False, edge_dim=EA, beta=True),
        XA,
    ),
    ("TransformerConv-no_root", lambda: pyg.TransformerConv(F, O, root_weight=False), X),
    (
        "TransformerConv-attention_weights",
        lambda: pyg.TransformerConv(F, O, heads=3, edge_dim=EA),
        lambda g: (g["x"], g["ei"], g["ea"], Kw(return_attention_weights=True)),
    ),
    ("TransformerConv-pair-no_bias", lambda: pyg.TransformerConv(F, O, bias=False), PAIR),
    (
        "TransformerConv-pair-edge_dim-beta",
        lambda: pyg.TransformerConv((F, 3), O, 2, edge_dim=EA, beta=True),
        lambda g: ((g["xs"], g["xd"][:, :3].copy()), g["eib"], g["ea"]),
    ),
    # AGNNConv
    ("AGNNConv-fixed_beta", lambda: pyg.AGNNConv(requires_grad=False), X),
    ("AGNNConv-no_loops", lambda: pyg.AGNNConv(add_self_loops=False), X),
    # TAGConv
    ("TAGConv-K1", lambda: pyg.TAGConv(F, O, K=1), XW),
    ("TAGConv-no_norm-weight", lambda: pyg.TAGConv(F, O, K=2, normalize=False), XW),
    ("TAGConv-no_bias", lambda: pyg.TAGConv(F, O, K=2, bias=False), X),
    # GINConv / GINEConv
    ("GINConv-eps-train", lambda: pyg.GINConv(_mlp(F, 8, O), eps=0.5, train_eps=True), X),
    ("GINConv-pair", lambda: pyg.GINConv(_mlp(F, O)), PAIR),
    ("GINConv-mean", lambda: pyg.GINConv(_mlp(F, O), aggr="mean"), X),
    ("GINEConv-edge_dim", lambda: pyg.GINEConv(_mlp(F, O), eps=0.1, edge_dim=EA), XA),
    ("GINEConv-pair-edge_dim", lambda: pyg.GINEConv(_mlp(F, O), edge_dim=EA), PAIR_A),
    (
        "GINEConv-same_width",
        lambda: pyg.GINEConv(_mlp(EA, O), train_eps=True),
        lambda g: (g["x"][:, :EA].copy(), g["ei"], g["ea"]),
    ),
    # ARMAConv
    (
        "ARMAConv-stacks-layers-shared",
        lambda: pyg.ARMAConv(F, O, num_stacks=2, num_layers=2, shared_weights=True),
        XW,
    ),
    ("ARMAConv-no_act-no_bias", lambda: pyg.ARMAConv(F, O, num_layers=2, act=None, bias=False), X),
    # SGConv / SSGConv / APPNP
    ("SGConv-K2-cached", lambda: pyg.SGConv(F, O, K=2, cached=True), X),
    ("SGConv-no_loops-weight", lambda: pyg.SGConv(F, O, K=2, add_self_loops=False), XW),
    ("SSGConv-alpha-K", lambda: pyg.SSGConv(F, O, alpha=0.1, K=3), XW),
    ("SSGConv-cached", lambda: pyg.SSGConv(F, O, alpha=0.5, cached=True), X),
    (
        "SSGConv-no_loops-no_bias",
        lambda: pyg.SSGConv(F, O, 0.3, add_self_loops=False, bias=False),
        X,
    ),
    ("APPNP-no_norm", lambda: pyg.APPNP(K=3, alpha=0.2, normalize=False), XW),
    ("APPNP-no_loops-weight", lambda: pyg.APPNP(K=2, alpha=0.1, add_self_loops=False), XW),
    # MFConv
    ("MFConv-max_degree", lambda: pyg.MFConv(F, O, max_degree=2), X),
    ("MFConv-pair-no_bias", lambda: pyg.MFConv(F, O, max_degree=3, bias=False), PAIR),
    # RGCNConv / FastRGCNConv / RGATConv
    ("RGCNConv-bases-sum", lambda: pyg.RGCNConv(F, O, 3, num_bases=2, aggr="add"), XT),
    ("RGCNConv-blocks-no_root", lambda: pyg.RGCNConv(F, 4, 3, num_blocks=2, root_weight=False), XT),
    ("RGCNConv-featureless", lambda: pyg.RGCNConv(N, O, 3), lambda g: (None, g["ei"], g["et"])),
    (
        "RGCNConv-pair-max",
        lambda: pyg.RGCNConv((F, 3), O, 3, aggr="max"),
        lambda g: ((g["xs"], g["xd"][:, :3].copy()), g["eib"], g["et"]),
    ),
    ("FastRGCNConv-bases-sum", lambda: pyg.FastRGCNConv(F, O, 3, num_bases=2, aggr="add"), XT),
    (
        "RGATConv-within-additive",
        lambda: pyg.RGATConv(
            F, O, 3, mod="additive", attention_mechanism="within-relation", heads=2
        ),
        XT,
    ),
    (
        "RGATConv-multiplicative-concat_false",
        lambda: pyg.RGATConv(
            F, O, 3, attention_mode="multiplicative-self-attention", heads=2, dim=2, concat=False
        ),
        XT,
    ),
    (
        "RGATConv-f_additive-within",
        lambda: pyg.RGATConv(
            F, O, 3, mod="f-additive", attention_mechanism="within-relation", heads=2
        ),
        XT,
    ),
    (
        "RGATConv-bases-edge_dim",
        lambda: pyg.RGATConv(F, O, 3, num_bases=2, edge_dim=EA, mod="scaled"),
        lambda g: (g["x"], g["ei"], g["et"], g["ea"]),
    ),
    # SignedConv
    (
        "SignedConv-first",
        lambda: pyg.SignedConv(F, O, first_aggr=True),
        lambda g: (g["x"], g["ei"], g["ei"][::-1].copy()),
    ),
    (
        "SignedConv-deep-no_bias",
        lambda: pyg.SignedConv(F // 2, O, first_aggr=False, bias=False),
        lambda g: (g["x"], g["ei"], g["ei"][::-1].copy()),
    ),
    # DNAConv
    (
        "DNAConv-heads-groups",
        lambda: pyg.DNAConv(F, heads=2, groups=2),
        lambda g: (np.stack([g["x"], g["x0"]], 1), g["ei"], g["ew"]),
    ),
    (
        "DNAConv-no_norm-no_loops",
        lambda: pyg.DNAConv(F, heads=3, normalize=False, add_self_loops=False, bias=False),
        lambda g: (np.stack([g["x"], g["x0"], g["x"]], 1), g["ei"], g["ew"]),
    ),
    # PointNetConv / PPFConv / PointTransformerConv / PointGNNConv
    (
        "PointNetConv-global-no_loops",
        lambda: pyg.PointNetConv(_mlp(F + 3, 8), _mlp(8, O), add_self_loops=False),
        lambda g: (g["x"], g["pos"], g["ei"]),
    ),
    (
        "PointNetConv-pair",
        lambda: pyg.PointNetConv(_mlp(F + 3, O), aggr="max"),
        lambda g: ((g["xs"], None), (g["pos"][:NS], g["normal"][:ND]), g["eib"]),
    ),
    (
        "PointNetConv-no_x",
        lambda: pyg.PointNetConv(_mlp(3, O)),
        lambda g: (None, g["pos"], g["ei"]),
    ),
    (
        "PPFConv-no_loops",
        lambda: pyg.PPFConv(_mlp(F + 4, O), None, add_self_loops=False),
        lambda g: (g["x"], g["pos"], g["normal"], g["ei"]),
    ),
    (
        "PointTransformerConv-nns",
        lambda: pyg.PointTransformerConv(F, O, _mlp(3, O), _mlp(O, O)),
        lambda g: (g["x"], g["pos"], g["ei"]),
    ),
    (
        "PointTransformerConv-no_loops",
        lambda: pyg.PointTransformerConv(F, O, add_self_loops=False),
        lambda g: (g["x"], g["pos"], g["ei"]),
    ),
    (
        "PointGNNConv",
        lambda: pyg.PointGNNConv(_mlp(F, 3), _mlp(F + 3, F), _mlp(F, F)),
        lambda g: (g["x"], g["pos"], g["ei"]),
    ),
    # GMMConv / NNConv / CGConv / EdgeConv
    ("GMMConv-separate", lambda: pyg.GMMConv(F, O, EA, 2, separate_gaussians=True), XA),
    # (PyG's root_weight=False fails: self.root is never set)
    ("GMMConv-sum-no_bias", lambda: pyg.GMMConv(F, O, EA, 3, aggr="add", bias=False), XA),
    ("NNConv-mean-no_root", lambda: pyg.NNConv(F, O, _mlp(EA, F * O), "mean", False), XA),
    ("NNConv-pair", lambda: pyg.NNConv(F, O, _mlp(EA, F * O), aggr="max"), PAIR_A),
    ("CGConv-batch_norm", lambda: pyg.CGConv(F, EA, batch_norm=True), XA),
    ("CGConv-mean-pair", lambda: pyg.CGConv(F, EA, aggr="mean", bias=False), PAIR_A),
    ("EdgeConv-mean", lambda: pyg.EdgeConv(_mlp(2 * F, O), aggr="mean"), X),
    ("EdgeConv-pair", lambda: pyg.EdgeConv(_mlp(2 * F, O)), PAIR),
    # FeaStConv
    ("FeaStConv-heads", lambda: pyg.FeaStConv(F, O, heads=2), X),
    ("FeaStConv-no_loops-no_bias", lambda: pyg.FeaStConv(F, O, 3, False, False), X),
    # HypergraphConv
    (
        "HypergraphConv-weight",
        lambda: pyg.HypergraphConv(F, O),
        lambda g: (g["x"], g["ei"], np.linspace(0.5, 2, N).astype(np.float32), None, N),
    ),
    (
        "HypergraphConv-attention",
        lambda: pyg.HypergraphConv(F, O, use_attention=True, heads=2, concat=False),
        lambda g: (g["x"], g["ei"], None, g["x0"]),
    ),
    (
        "HypergraphConv-attention-edge",
        lambda: pyg.HypergraphConv(F, O, True, "edge", heads=2, bias=False),
        lambda g: (g["x"], g["ei"], None, g["x0"]),
    ),
    # LEConv / ClusterGCNConv / LGConv
    ("LEConv-weight-no_bias", lambda: pyg.LEConv(F, O, bias=False), XW),
    ("LEConv-pair", lambda: pyg.LEConv(F, O), PAIR),
    ("ClusterGCNConv-diag", lambda: pyg.ClusterGCNConv(F, O, diag_lambda=0.5), X),
    # (PyG's add_self_loops=False fails unless every node has exactly one loop)
    ("ClusterGCNConv-no_bias", lambda: pyg.ClusterGCNConv(F, O, 0.2, bias=False), X),
    ("LGConv-no_norm-weight", lambda: pyg.LGConv(normalize=False), XW),
    ("LGConv-weight", lambda: pyg.LGConv(), XW),
    # PNAConv
    (
        "PNAConv-towers-edge_dim",
        lambda: pyg.PNAConv(
            F,
            4,
            ["mean", "max", "std"],
            ["identity", "amplification", "attenuation"],
            torch.tensor([1, 3, 2, 1]),
            edge_dim=EA,
            towers=2,
            divide_input=True,
        ),
        XA,
    ),
    (
        "PNAConv-train_norm-post",
        lambda: pyg.PNAConv(
            F,
            O,
            ["mean", "max"],
            ["identity", "amplification"],
            torch.tensor([1, 3, 2, 1]),
            edge_dim=EA,
            post_layers=2,
            train_norm=True,
        ),
        XA,
    ),
    (
        "PNAConv-linear-layers",
        lambda: pyg.PNAConv(
            F,
            O,
            ["sum", "min", "var"],
            ["linear", "inverse_linear"],
            torch.tensor([2, 2, 3]),
            pre_layers=2,
            post_layers=2,
        ),
        X,
    ),
    # GENConv
    (
        "GENConv-powermean-msg_norm",
        lambda: pyg.GENConv(
            F, O, aggr="powermean", learn_p=True, p=1.5, msg_norm=True, learn_msg_scale=True
        ),
        X,
    ),
    (
        "GENConv-edge_dim-layer",
        lambda: pyg.GENConv(F, O, edge_dim=EA, norm="layer", num_layers=3, bias=True),
        XA,
    ),
    ("GENConv-mean-pair", lambda: pyg.GENConv(F, O, aggr="mean", num_layers=1), PAIR),
    ("GENConv-softmax-t", lambda: pyg.GENConv(F, F, t=0.5, learn_t=True, norm="instance"), X),
    (
        "GENConv-max-pair-sizes-edge_dim",
        lambda: pyg.GENConv((F, 3), O, aggr="max", edge_dim=EA, bias=True),
        lambda g: ((g["xs"], g["xd"][:, :3].copy()), g["eib"], g["ea"]),
    ),
    (
        "GENConv-add-edge_same_width",
        lambda: pyg.GENConv(F, F, aggr="add", edge_dim=F),
        lambda g: (g["x"], g["ei"], np.repeat(g["ea"], 2, axis=1)),
    ),
    # GCN2Conv
    (
        "GCN2Conv-theta-separate",
        lambda: pyg.GCN2Conv(F, 0.2, theta=0.5, layer=2, shared_weights=False),
        lambda g: (g["x"], g["x0"], g["ei"], g["ew"]),
    ),
    (
        "GCN2Conv-cached",
        lambda: pyg.GCN2Conv(F, 0.3, theta=1.0, layer=3, cached=True),
        lambda g: (g["x"], g["x0"], g["ei"]),
    ),
    (
        "GCN2Conv-no_norm",
        lambda: pyg.GCN2Conv(F, 0.1, normalize=False, add_self_loops=False),
        lambda g: (g["x"], g["x0"], g["ei"], g["ew"]),
    ),
    # PANConv / WLConv / WLConvContinuous
    (
        "WLConv",
        lambda: pyg.WLConv(),
        lambda g: (np.array([0, 1, 1, 2, 0, 1, 2, 2, 0]), g["ei"]),
    ),
    ("WLConvContinuous-weight", lambda: pyg.WLConvContinuous(), XW),
    ("WLConvContinuous-pair", lambda: pyg.WLConvContinuous(), PAIR_W),
    # FiLMConv
    ("FiLMConv-relations-sum", lambda: pyg.FiLMConv(F, O, 3, aggr="add"), XT),
    ("FiLMConv-no_act-pair", lambda: pyg.FiLMConv(F, O, act=None), PAIR),
    ("FiLMConv-nn-max", lambda: pyg.FiLMConv(F, O, 3, nn=_mlp(F, 8, 2 * O), aggr="max"), XT),
    # SuperGATConv
    (
        "SuperGATConv-SD-concat_false",
        lambda: pyg.SuperGATConv(F, O, heads=2, concat=False, attention_type="SD"),
        X,
    ),
    (
        "SuperGATConv-MX-no_loops",
        lambda: pyg.SuperGATConv(F, O, heads=2, add_self_loops=False, bias=False),
        X,
    ),
    # FAConv
    (
        "FAConv-eps-no_loops",
        lambda: pyg.FAConv(F, eps=0.3, add_self_loops=False),
        lambda g: (g["x"], g["x0"], g["ei"]),
    ),
    (
        "FAConv-attention_weights",
        lambda: pyg.FAConv(F, eps=0.2),
        lambda g: (g["x"], g["x0"], g["ei"], None, Kw(return_attention_weights=True)),
    ),
    (
        "FAConv-no_norm-weight",
        lambda: pyg.FAConv(F, normalize=False),
        lambda g: (g["x"], g["x0"], g["ei"], g["ew"]),
    ),
    # EGConv
    (
        "EGConv-aggregators",
        lambda: pyg.EGConv(F, 8, ["sum", "max", "symnorm"], num_heads=2, num_bases=2),
        X,
    ),
    ("EGConv-no_loops-no_bias", lambda: pyg.EGConv(F, 8, None, 4, 3, False, False, False), X),
    # PDNConv
    ("PDNConv-no_norm-no_loops", lambda: pyg.PDNConv(F, O, EA, 5, False, False, False), XA),
    ("PDNConv", lambda: pyg.PDNConv(F, O, EA, 5), XA),
    # GeneralConv
    (
        "GeneralConv-attention-dot",
        lambda: pyg.GeneralConv(F, 8, heads=2, attention=True, attention_type="dot_product"),
        X,
    ),
    (
        "GeneralConv-edge-undirected-l2",
        lambda: pyg.GeneralConv(
            F, O, EA, aggr="mean", skip_linear=True, directed_msg=False, l2_normalize=True
        ),
        XA,
    ),
    (
        "GeneralConv-additive-pair",
        lambda: pyg.GeneralConv(F, O, heads=2, attention=True, aggr="max"),
        PAIR,
    ),
    # HEATConv
    (
        "HEATConv-heads-concat_false",
        lambda: pyg.HEATConv(F, O, 2, 3, 2, EA, 4, heads=2, concat=False, root_weight=False),
        lambda g: (g["x"], g["ei"], np.arange(N) % 2, g["et"], g["ea"]),
    ),
    # MixHopConv
    ("MixHopConv-powers-no_loops", lambda: pyg.MixHopConv(F, O, [0, 2], False), XW),
    ("MixHopConv-no_bias", lambda: pyg.MixHopConv(F, O, [1, 2, 3], bias=False), X),
    # DirGNNConv / AntiSymmetricConv
    ("DirGNNConv-alpha-no_root", lambda: pyg.DirGNNConv(pyg.GCNConv(F, O), 0.3, False), X),
    # PyG switches the copies' root_weight off but keeps lin_r / lin_skip in the state dict
    ("DirGNNConv-sage", lambda: pyg.DirGNNConv(pyg.SAGEConv(F, O, "max"), alpha=0.7), X),
    ("DirGNNConv-gat", lambda: pyg.DirGNNConv(pyg.GATConv(F, O), 0.4), X),
    ("DirGNNConv-resgated", lambda: pyg.DirGNNConv(pyg.ResGatedGraphConv(F, O)), X),
    ("DirGNNConv-transformer", lambda: pyg.DirGNNConv(pyg.TransformerConv(F, O, beta=True)), X),
    ("DirGNNConv-graphconv", lambda: pyg.DirGNNConv(pyg.GraphConv(F, O), root_weight=False), X),
    (
        "AntiSymmetricConv-gcn-iters",
        lambda: pyg.AntiSymmetricConv(F, pyg.GCNConv(F, F, bias=False), 2, 0.2, 0.3, "relu"),
        X,
    ),
    ("AntiSymmetricConv-no_bias", lambda: pyg.AntiSymmetricConv(F, None, bias=False), X),
    # GPSConv
    (
        "GPSConv-gin-layer_norm",
        lambda: pyg.GPSConv(F, pyg.GINConv(_mlp(F, F)), heads=2, norm="layer_norm"),
        X,
    ),
    (
        "GPSConv-gcn-batch_norm-gelu",
        lambda: pyg.GPSConv(F, pyg.GCNConv(F, F), heads=2, act="gelu"),
        lambda g: (g["x"], g["ei"], (np.arange(N) >= 5).astype(np.int64)),
    ),
    ("GPSConv-no_conv-no_norm", lambda: pyg.GPSConv(F, None, heads=3, norm=None), X),
    # MeshCNNConv: four neighbours per mesh edge, its own kernels
    (
        "MeshCNNConv-kernels",
        lambda: pyg.MeshCNNConv(
            F, O, torch.nn.ModuleList([torch.nn.Linear(F, O) for _ in range(5)])
        ),
        lambda g: (
            g["x"],
            np.stack([np.repeat(np.arange(N), 4), np.arange(4 * N) * 5 % N])
            if g["ei"].size
            else g["ei"],
        ),
    ),
]

# Hetero layers: dicts in, dicts out
META = (["a", "b"], [("a", "to", "b"), ("b", "to", "a"), ("a", "self", "a")])


def _hetero_inputs(g):
    ei = g["ei"]
    x = {"a": g["x"], "b": g["x0"]}
    return x, {et: ei for et in META[1]}


HETERO_CASES = [
    ("HGTConv-heads", lambda: pyg.HGTConv(F, 4, META, heads=2)),
    ("HANConv-heads-slope", lambda: pyg.HANConv(F, 4, META, heads=2, negative_slope=0.1)),
    (
        "HeteroConv-mean",
        lambda: pyg.HeteroConv(
            {
                ("a", "to", "b"): pyg.GATConv(F, O, 2, False, add_self_loops=False),
                ("b", "to", "a"): pyg.SAGEConv(F, O, "max"),
                ("a", "self", "a"): pyg.GCNConv(F, O, improved=True),
            },
            aggr="mean",
        ),
    ),
    (
        "HeteroConv-cat",
        lambda: pyg.HeteroConv(
            {
                ("a", "to", "b"): pyg.GraphConv(F, O),
                ("b", "to", "a"): pyg.GraphConv(F, O, aggr="max"),
                ("a", "self", "a"): pyg.GINConv(_mlp(F, O)),
            },
            aggr="cat",
        ),
    ),
]

# options arraygnn refuses: the error must name the option
REFUSED = [
    ("GATConv-multi", lambda: pyg.GATConv(F, O, aggr=["sum", "max"]), "aggr="),
    ("GCN2Conv-flow", lambda: pyg.GCN2Conv(F, 0.1, flow="target_to_source"), "flow="),
    ("GCN2Conv-mean", lambda: pyg.GCN2Conv(F, 0.1, aggr="mean"), "aggr='mean'"),
    ("GATConv-flow", lambda: pyg.GATConv(F, O, flow="target_to_source"), "flow="),
    ("SAGEConv-lstm-flow", lambda: pyg.SAGEConv(F, O, "lstm", flow="target_to_source"), "flow="),
    ("AGNNConv-max", lambda: pyg.AGNNConv(aggr="max"), "aggr='max'"),
]

# PyG itself fails on these without edges (FeaStConv: a reshape of 0 elements; LSTM: a
# sequence of length 0)
NO_EMPTY = {"FeaStConv-no_loops-no_bias", "SAGEConv-lstm-sorted"}


def _to_torch(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(a))
    if isinstance(a, tuple):
        return tuple(_to_torch(v) for v in a)
    if isinstance(a, dict):
        return {k: _to_torch(v) for k, v in a.items()}
    return a


def _build(make):
    torch.manual_seed(0)
    module = make()
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):  # PyG zero-initialises most biases
                p.uniform_(-0.5, 0.5)
        if isinstance(getattr(module, "beta", None), torch.Tensor):  # AGNNConv's, at 1
            module.beta.fill_(1.7)
        if type(module).__name__ == "RGATConv":  # PyG 2.8.1's reset_parameters leaves l2
            module.l2.fill_(1.0 / module.out_channels)  # as torch.empty memory (mod='scaled')
        for m in module.modules():  # fresh running statistics, used in eval mode
            if getattr(m, "running_mean", None) is not None:
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return module.eval()


def _compare(ours, theirs, name):
    if isinstance(theirs, tuple):  # (out, (edge_index, attention))
        assert isinstance(ours, tuple) and len(ours) == len(theirs), name
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _compare(a, b, f"{name}[{i}]")
        return
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(k for k, v in theirs.items() if v is not None), name
        for key in ours:
            _compare(ours[key], theirs[key], f"{name}[{key}]")
        return
    if isinstance(theirs, torch.Tensor):
        theirs = theirs.detach().numpy()
    ours = np.asarray(ours)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    assert ours.dtype.kind == theirs.dtype.kind and (
        ours.dtype == theirs.dtype or theirs.dtype.kind != "f"
    ), (name, ours.dtype, theirs.dtype)
    scale = max(float(np.abs(theirs).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL * scale, err_msg=name)


def _snapshot(args):
    """Copies of every array in the arguments (the layer must not change them)."""
    if isinstance(args, np.ndarray):
        return [args.copy()]
    if isinstance(args, tuple):
        return [a for v in args for a in _snapshot(v)]
    return []


def _split(args):
    if args and isinstance(args[-1], Kw):
        return args[:-1], dict(args[-1])
    return args, {}


def _check_state_dict(ours, module, name):
    """The converted layer lists PyG's weights under PyG's names, with PyG's values."""
    theirs = {k: v for k, v in module.state_dict().items() if "num_batches_tracked" not in k}
    mine = ours.state_dict()
    assert sorted(mine) == sorted(theirs), name
    for key, value in theirs.items():
        np.testing.assert_array_equal(np.asarray(mine[key]), value.numpy(), err_msg=key)


@pytest.mark.parametrize("name,make,call", CASES, ids=[c[0] for c in CASES])
def test_conv_option_matches_pyg(name, make, call):
    module = _build(make)
    ours = agnn.from_pyg(module)
    _check_state_dict(ours, module, name)
    cached = getattr(module, "cached", False)
    for graph, g in GRAPHS.items():
        if graph == "no_edges" and name in NO_EMPTY:
            continue
        if cached and graph != "graph":  # a new graph: fresh layers, no cache
            module = _build(make)
            ours = agnn.from_pyg(module)
        args, kwargs = _split(call(g))
        with torch.no_grad():
            expected = module(*_to_torch(args), **kwargs)
        before = _snapshot(args)
        _compare(ours(*args, **kwargs), expected, f"{name} on {graph}")
        assert all(np.array_equal(a, b) for a, b in zip(_snapshot(args), before)), name
        if cached:  # the second call reads the cache
            _compare(ours(*args, **kwargs), expected, f"{name} on {graph} (cached)")


@pytest.mark.parametrize("name,make", HETERO_CASES, ids=[c[0] for c in HETERO_CASES])
def test_hetero_conv_option_matches_pyg(name, make):
    module = _build(make)
    ours = agnn.from_pyg(module)
    _check_state_dict(ours, module, name)
    for graph, g in GRAPHS.items():
        x, eis = _hetero_inputs(g)
        with torch.no_grad():
            expected = module(_to_torch(x), _to_torch(eis))
        _compare(ours(x, eis), expected, f"{name} on {graph}")


@pytest.mark.parametrize("name,make,option", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_option_names_it(name, make, option):
    with pytest.raises((ValueError, TypeError), match=option):
        agnn.from_pyg(_build(make))


def test_sage_conv_aggregation_list_errors_name_it():
    with pytest.raises(ValueError, match="aggregator_type=.'mean', 'bogus'."):
        agnn.SAGEConv(F, O, ["mean", "bogus"])
    with pytest.raises(ValueError, match="a list of names or an arraygnn.nn.aggr"):
        agnn.SAGEConv(F, O, "median")
