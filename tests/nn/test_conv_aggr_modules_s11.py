"""PyG's ``aggr=`` beyond sum / mean / max in the "aggregate, then combine" convs: a list of
names (a ``MultiAggregation``), a name such as ``'std'`` and an aggregation object, in
``GINConv``, ``GINEConv``, PyG's ``GraphConv``, ``SimpleConv``, ``EdgeConv``, ``NNConv`` and
``GatedGraphConv``,
against PyG 2.8.1 through ``from_pyg`` (isolated nodes, a node without in-edges, a repeated
edge, and a graph without edges)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.nn")
pyg_aggr = pytest.importorskip("torch_geometric.nn.aggr")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn import ops  # noqa: E402
from arraygnn.nn import aggr as our_aggr  # noqa: E402
from arraygnn.nn import nn_conv  # noqa: E402
from arraygnn.nn.sage_conv import PyGGraphConv  # noqa: E402

N, F, O, D = 6, 3, 4, 2  # nodes, features, outputs, edge features
# node 4 sends but receives nothing, node 5 is isolated; 0 -> 1 twice (edges 0 and 4)
EI = np.array([[0, 2, 1, 3, 0, 4, 2, 1], [1, 1, 2, 2, 1, 0, 3, 0]], np.int64)
_RNG = np.random.default_rng(0)
X = _RNG.standard_normal((N, F)).astype(np.float32)
W = _RNG.uniform(0.5, 2.0, EI.shape[1]).astype(np.float32)
EA = _RNG.standard_normal((EI.shape[1], D)).astype(np.float32)
EF = _RNG.standard_normal((EI.shape[1], F)).astype(np.float32)  # GINE without edge_dim
NO_EDGES = np.zeros((2, 0), np.int64)


def _mlp(*sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def _proj():
    return pyg_aggr.MultiAggregation(
        ["sum", "max"], mode="proj", mode_kwargs={"in_channels": F, "out_channels": F}
    )


def _softmax():
    return pyg_aggr.SoftmaxAggregation(learn=True)


def _calls(ei):
    """The calls of each input form on the graph ``ei`` (edge arrays cut to its edges)."""
    e = ei.shape[1]
    return {
        "x": ((X, ei), {}),
        "xw": ((X, ei, W[:e]), {}),
        "xe": ((X, ei, EA[:e]), {}),
        "pair_none": (((X, None), ei), {"size": (N, N)}),
        "pair_none_e": (((X, None), ei, EF[:e]), {"size": (N, N)}),
    }


# (id, PyG module builder, input form)
CASES = [
    ("GINConv-std", lambda: pyg.GINConv(_mlp(F, O), aggr="std"), "x"),
    ("GINConv-softmax", lambda: pyg.GINConv(_mlp(F, O), aggr=_softmax()), "x"),
    ("GINConv-multi_proj", lambda: pyg.GINConv(_mlp(F, O), aggr=_proj()), "x"),
    ("GINConv-list", lambda: pyg.GINConv(_mlp(2 * F, O), aggr=["sum", "max"]), "pair_none"),
    ("GINEConv-softmax", lambda: pyg.GINEConv(_mlp(F, O), edge_dim=D, aggr=_softmax()), "xe"),
    ("GINEConv-list", lambda: pyg.GINEConv(_mlp(2 * F, O), aggr=["sum", "max"]), "pair_none_e"),
    ("GraphConv-list_lazy", lambda: pyg.GraphConv(-1, O, aggr=["sum", "max"]), "xw"),
    ("GraphConv-std", lambda: pyg.GraphConv(F, O, aggr="std"), "xw"),
    ("GraphConv-softmax", lambda: pyg.GraphConv(F, O, aggr=_softmax()), "x"),
    ("SimpleConv-list_cat", lambda: pyg.SimpleConv(["sum", "max"], "cat"), "xw"),
    ("SimpleConv-std_self_loop", lambda: pyg.SimpleConv("std", "self_loop"), "xw"),
    ("SimpleConv-softmax_sum", lambda: pyg.SimpleConv(_softmax(), "sum"), "xw"),
    ("EdgeConv-list", lambda: pyg.EdgeConv(_mlp(2 * F, 5, O), aggr=["sum", "max"]), "x"),
    ("EdgeConv-std", lambda: pyg.EdgeConv(torch.nn.Linear(2 * F, O), aggr="std"), "x"),
    (
        "EdgeConv-multi_sum",
        lambda: pyg.EdgeConv(
            _mlp(2 * F, O), aggr=pyg_aggr.MultiAggregation(["mean", "std"], mode="sum")
        ),
        "x",
    ),
    ("EdgeConv-softmax", lambda: pyg.EdgeConv(_mlp(2 * F, O), aggr=_softmax()), "x"),
    ("NNConv-std", lambda: pyg.NNConv(F, O, _mlp(D, 5, F * O), aggr="std"), "xe"),
    ("NNConv-softmax", lambda: pyg.NNConv(F, O, _mlp(D, 5, F * O), aggr=_softmax()), "xe"),
    (
        "NNConv-list_no_root",
        lambda: pyg.NNConv(
            F, O, torch.nn.Linear(D, F * O), ["sum", "max"], root_weight=False, bias=False
        ),
        "xe",
    ),
    ("GatedGraphConv-std", lambda: pyg.GatedGraphConv(O, 2, aggr="std"), "xw"),
    ("GatedGraphConv-softmax", lambda: pyg.GatedGraphConv(O, 2, aggr=_softmax()), "x"),
]


def _build(make, form):
    torch.manual_seed(0)
    module = make()
    if any(isinstance(p, torch.nn.parameter.UninitializedParameter) for p in module.parameters()):
        args, kwargs = _calls(EI)[form]
        with torch.no_grad():
            module(*_to_torch(args), **kwargs)  # PyG's lazy Linear takes its size here
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias"):  # PyG zero-initialises most biases
                p.uniform_(-0.5, 0.5)
            if name.endswith("aggr_module.t"):  # learnt softmax temperature, starts at 1
                p.fill_(0.6)
    return module.eval()


def _to_torch(a):
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a)
    if isinstance(a, tuple):
        return tuple(_to_torch(v) for v in a)
    return a


def _check(ours, theirs, name):
    theirs = theirs.detach().numpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, name
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name,make,form", CASES, ids=[c[0] for c in CASES])
def test_aggregation_matches_pyg(name, make, form):
    module = _build(make, form)
    ours = agnn.from_pyg(module)
    assert ours.aggr_module is not None, name  # PyG's aggregation, not a fused name
    theirs = {k: v.numpy() for k, v in module.state_dict().items()}
    mine = ours.state_dict()
    assert sorted(mine) == sorted(theirs), name
    for key, value in theirs.items():
        np.testing.assert_array_equal(np.asarray(mine[key]), value, err_msg=key)
    for ei in (EI, NO_EDGES):
        args, kwargs = _calls(ei)[form]
        with torch.no_grad():
            expected = module(*_to_torch(args), **kwargs)
        _check(ours(*args, **kwargs), expected, f"{name}, {ei.shape[1]} edges")


def test_nn_conv_factored_path_aggregates_in_edge_order(monkeypatch):
    """The factored NNConv path makes its messages in source order: they reach the
    aggregation in each target's edge-id order all the same."""
    module = _build(CASES[[c[0] for c in CASES].index("NNConv-softmax")][1], "xe")
    module.nn = torch.nn.Linear(D, F * O)  # ends in a Linear: the factored path applies
    ours = agnn.from_pyg(module)
    with torch.no_grad():
        expected = module(*_to_torch((X, EI, EA)))
    monkeypatch.setattr(nn_conv, "FACTORED_MAX_SHARE", 100.0)
    _check(ours(X, EI, EA), expected, "factored")
    monkeypatch.setattr(nn_conv, "FACTORED", False)
    _check(ours(X, EI, EA), expected, "direct")


def test_sequence_aggregation_sees_edge_id_order():
    """PyG's LSTM aggregation needs edges sorted by target; each target's messages reach
    it in edge-id order, here too (a caller's CSR is sorted again)."""
    order = np.argsort(EI[1], kind="stable")
    ei = EI[:, order]
    torch.manual_seed(0)
    module = pyg.SimpleConv(pyg_aggr.LSTMAggregation(F, F), "cat").eval()
    ours = agnn.from_pyg(module)
    with torch.no_grad():
        expected = module(torch.from_numpy(X), torch.from_numpy(ei), torch.from_numpy(W))
    _check(ours(X, ei, W), expected, "edge_index")
    _check(ours(X, ops.to_csr(ei, N, N), W), expected, "CSR")


def test_fast_paths_keep_no_module_and_names_resolve():
    lin = agnn.Linear(F, O, rng=0)
    for conv in (
        agnn.GINConv(lin, 0.0, "sum"),
        agnn.GINEConv(lin, aggregator_type="max"),
        agnn.SimpleConv("mean"),
        agnn.EdgeConv(agnn.Linear(2 * F, O, rng=0), "max"),
        agnn.NNConv(F, O, agnn.Linear(D, F * O, rng=0), "add"),
        agnn.GatedGraphConv(O, 2, "min"),
        PyGGraphConv(F, O, "sum"),
    ):
        assert conv.aggr_module is None  # the fused SpMM / segment, no [E, F] messages
    # a name PyG's aggregation_resolver knows, a list, an object
    assert isinstance(agnn.SimpleConv("std").aggr_module, our_aggr.StdAggregation)
    assert isinstance(
        agnn.GINConv(None, 0.0, ["sum", "max"]).aggr_module, our_aggr.MultiAggregation
    )
    softmax = our_aggr.SoftmaxAggregation(learn=True)
    assert agnn.EdgeConv(lin, aggr=softmax).aggr_module is softmax
    # same numbers as the aggregation run on the messages by hand
    out = agnn.SimpleConv(["min", "std"])(X, EI)
    ref = our_aggr.MultiAggregation(["min", "std"])(X[EI[0]], EI[1], dim_size=N)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert "aggr_module.t" in agnn.GINConv(None, 0.0, softmax).state_dict()


def test_aggregation_errors_name_the_argument():
    lin = agnn.Linear(F, F, rng=0)
    with pytest.raises(ValueError, match="GINConv aggregator_type must be one of"):
        agnn.GINConv(lin, 0.0, "bogus")
    with pytest.raises(ValueError, match="GINEConv aggregator_type=.'sum', 'bogus'."):
        agnn.GINEConv(lin, aggregator_type=["sum", "bogus"])
    with pytest.raises(ValueError, match="SimpleConv: aggr must be one of"):
        agnn.SimpleConv(None)
    with pytest.raises(ValueError, match="EdgeConv: aggr must be one of"):
        agnn.EdgeConv(lin, aggr="bogus")
    with pytest.raises(ValueError, match="NNConv: aggr must be one of"):
        agnn.NNConv(F, O, agnn.Linear(D, F * O, rng=0), aggr=3)
    # PyG fails on these too: the 'cat' aggregation widens the messages, the root does not
    with pytest.raises(ValueError, match=r"GINConv: the aggregation gives 6 features.*x_dst"):
        agnn.GINConv(None, 0.0, ["sum", "max"])(X, EI)
    with pytest.raises(ValueError, match=r"SimpleConv: the aggregation gives 6 features"):
        agnn.SimpleConv(["sum", "max"], "sum")(X, EI)
    conv = agnn.NNConv(F, O, agnn.Linear(D, F * O, rng=0), ["sum", "max"], rng=0)
    with pytest.raises(ValueError, match=r"NNConv: the aggregation gives 8 features"):
        conv(X, EI, EA)
    with pytest.raises(ValueError, match=r"GatedGraphConv: the aggregation gives 8 features"):
        agnn.GatedGraphConv(O, 1, ["sum", "max"])(X, EI)
