"""Shared (tied) modules through ``from_pyg`` / ``from_torch``, and the readouts that were
no arraygnn ``Module`` (``SortAggregation``, ``SortPooling``, DGL's sum / avg / max pooling).

A torch module object reached twice in a model (weight tying) becomes one arraygnn layer
reached twice: torch's ``state_dict()`` lists its weights under every name (only
``named_parameters()`` / ``parameters()`` list them once), a strict ``load_state_dict``
wants every name, the last one loaded wins, and PyG's ``summary`` counts the weights once.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.nn import summary
from arraygnn.nn._module import Module


def _torch():
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    return torch, pyg_nn


def _graph(rng, n=5, e=9, f=4):
    x = rng.standard_normal((n, f)).astype(np.float32)
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)]).astype(np.int64)
    return x, ei


def _perturbed(state, scale=0.5):
    """A new state dict with the same names, each value changed."""
    return {k: v.detach().clone() + scale * (i + 1) for i, (k, v) in enumerate(state.items())}


# ---- A: shared modules ----------------------------------------------------------------------
def test_torch_sequential_shared_linear_stays_shared():
    torch, _ = _torch()
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 4)
    ref = torch.nn.Sequential(lin, torch.nn.ReLU(), lin)
    for convert in (agnn.from_torch, agnn.from_pyg):
        ours = convert(ref)
        assert ours[0] is ours[2]
        # torch's state_dict keeps the shared weights under each name
        assert list(ours.state_dict()) == list(ref.state_dict())
        state = ours.state_dict()
        assert state["0.weight"] is state["2.weight"]
        x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
        with torch.no_grad():
            np.testing.assert_allclose(ours(x), ref(torch.from_numpy(x)).numpy(), atol=1e-6)


def test_shared_load_state_dict_behaves_as_torch():
    torch, _ = _torch()
    torch.manual_seed(1)
    lin = torch.nn.Linear(3, 3)
    ref = torch.nn.Sequential(lin, torch.nn.ReLU(), lin)
    ours = agnn.from_pyg(ref)
    new = _perturbed(ref.state_dict())
    ref.load_state_dict(new)  # both names in; the last one loaded wins
    ours.load_state_dict(new)
    np.testing.assert_array_equal(ours[0].weight, ref[0].weight.detach().numpy())
    np.testing.assert_array_equal(ours[2].weight, new["2.weight"].numpy())
    assert ours[0].weight is ours[2].weight
    # strict: every name of the shared module is wanted, as torch wants
    half = {k: v for k, v in new.items() if k.startswith("0.")}
    with pytest.raises(RuntimeError, match="Missing key"):
        ref.load_state_dict(half)
    with pytest.raises(KeyError, match="missing keys"):
        ours.load_state_dict(half)
    ours.load_state_dict(half, strict=False)  # loads into the one shared layer
    np.testing.assert_array_equal(ours[2].weight, half["0.weight"].numpy())
    ours.astype(np.float64).to("cpu")  # in place, each name: still one layer
    assert ours[0] is ours[2] and ours[2].weight.dtype == np.float64


def test_pyg_sequential_shared_conv():
    torch, pyg_nn = _torch()
    torch.manual_seed(2)
    conv = pyg_nn.GCNConv(4, 4)
    ref = pyg_nn.Sequential(
        "x, edge_index",
        [(conv, "x, edge_index -> x"), torch.nn.ReLU(), (conv, "x, edge_index -> x")],
    )
    ours = agnn.from_pyg(ref)
    assert ours.module_0 is ours.module_2
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    x, ei = _graph(np.random.default_rng(2))
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(ei)).numpy()
    np.testing.assert_allclose(ours(x, ei), want, atol=1e-5)
    new = _perturbed(ref.state_dict())
    ref.load_state_dict(new)
    ours.load_state_dict(new)
    assert ours.module_0.lin.weight is ours.module_2.lin.weight
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(ei)).numpy()
    np.testing.assert_allclose(ours(x, ei), want, atol=1e-5)


def test_shared_across_containers_and_levels():
    """One Linear used as a step of a PyG Sequential and inside a torch Sequential step."""
    torch, pyg_nn = _torch()
    torch.manual_seed(3)
    lin = torch.nn.Linear(4, 4)
    inner = torch.nn.Sequential(lin, torch.nn.Tanh())
    ref = pyg_nn.Sequential("x", [(lin, "x -> x"), (inner, "x -> x"), (inner, "x -> y")])
    ours = agnn.from_pyg(ref)
    assert ours.module_1 is ours.module_2
    assert ours.module_1[0] is ours.module_0
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    with torch.no_grad():
        np.testing.assert_allclose(ours(x), ref(torch.from_numpy(x)).numpy(), atol=1e-6)


def test_basic_gnn_tied_convs_and_summary():
    torch, pyg_nn = _torch()
    torch.manual_seed(4)
    ref = pyg_nn.GCN(4, 4, num_layers=3).eval()
    ref.convs[2] = ref.convs[1]
    ours = agnn.from_pyg(ref)
    assert ours.convs[1] is ours.convs[2] and ours.convs[0] is not ours.convs[1]
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    x, ei = _graph(np.random.default_rng(4))
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(ei)).numpy()
    np.testing.assert_allclose(ours(x, ei), want, atol=1e-5)
    # PyG's summary counts parameters() (each shared weight once: 40, not 60) and lists
    # both rows; arraygnn keeps activations, dropout and Identity as functions (no row)
    ref_table = pyg_nn.summary(ref, torch.from_numpy(x), torch.from_numpy(ei))
    torch_only = ("Dropout", "ReLU", "Identity")
    ref_rows = [r for r in ref_table.splitlines() if not any(t in r for t in torch_only)]
    assert summary(ours, x, ei).splitlines() == ref_rows
    assert ref_rows[3].split("|")[-2].strip() == "40"


def test_graph_module_two_targets_one_module():
    torch, pyg_nn = _torch()
    fx = torch.fx
    torch.manual_seed(5)
    root = torch.nn.Module()
    root.a = root.b = pyg_nn.SAGEConv(4, 4)
    graph = fx.Graph()
    x, ei = graph.placeholder("x"), graph.placeholder("edge_index")
    h = graph.call_module("a", (x, ei))
    graph.output(graph.call_module("b", (h, ei)))
    gm = fx.GraphModule(root, graph)
    assert gm.a is gm.b
    ours = agnn.from_pyg(gm)
    assert ours.modules["a"] is ours.modules["b"]
    assert sorted(ours.state_dict()) == sorted(gm.state_dict())
    xa, eia = _graph(np.random.default_rng(5))
    with torch.no_grad():
        want = gm(torch.from_numpy(xa), torch.from_numpy(eia)).numpy()
    np.testing.assert_allclose(ours(xa, eia), want, atol=1e-5)


def test_hetero_conv_one_conv_for_two_edge_types():
    torch, pyg_nn = _torch()
    torch.manual_seed(6)
    conv = pyg_nn.SAGEConv((4, 4), 4)
    ets = [("a", "to", "b"), ("b", "to", "a"), ("a", "self", "a")]
    ref = pyg_nn.HeteroConv({ets[0]: conv, ets[1]: conv, ets[2]: pyg_nn.GCNConv(4, 4)})
    rng = np.random.default_rng(6)
    x = {"a": rng.standard_normal((5, 4)), "b": rng.standard_normal((3, 4))}
    x = {k: v.astype(np.float32) for k, v in x.items()}
    sizes = {"a": 5, "b": 3}
    ei = {
        et: np.stack([rng.integers(0, sizes[et[0]], 6), rng.integers(0, sizes[et[2]], 6)])
        for et in ets
    }
    ours = agnn.from_pyg(ref)
    convs = list(ours.convs._items.values())
    assert convs[0] is convs[1] and convs[0] is not convs[2]
    assert sorted(ours.state_dict()) == sorted(ref.state_dict())
    tx = {k: torch.from_numpy(v) for k, v in x.items()}
    tei = {k: torch.from_numpy(v) for k, v in ei.items()}
    with torch.no_grad():
        want = ref(tx, tei)
    got = ours(x, ei)
    for key in want:
        np.testing.assert_allclose(got[key], want[key].numpy(), atol=1e-5)
    assert summary(ours, x, ei) == pyg_nn.summary(ref, tx, tei)  # 56 weights, not 92


def _to_hetero(model, meta):
    import warnings

    _, pyg_nn = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pyg_nn.to_hetero(model, meta)


def test_to_hetero_tied_graph_level_module():
    """to_hetero keeps a tied module under both names (one object) while the graph calls
    one of them: the converted program holds one layer under both names."""
    torch, pyg_nn = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = pyg_nn.SAGEConv(4, 4)
            self.pool = pyg_nn.aggr.SumAggregation()
            self.h1 = torch.nn.Linear(4, 4)
            self.h2 = self.h1

        def forward(self, x, edge_index, batch):
            x = self.pool(self.conv(x, edge_index), batch, dim_size=2)
            return self.h2(self.h1(x).relu())

    torch.manual_seed(7)
    meta = (["a", "b"], [("a", "to", "b"), ("b", "to", "a")])
    gm = _to_hetero(Net(), meta)
    assert gm.h1 is gm.h2
    ours = agnn.from_pyg(gm)
    assert ours.modules["h1"] is ours.modules["h2"]
    assert sorted(ours.state_dict()) == sorted(gm.state_dict())
    rng = np.random.default_rng(7)
    x = {"a": rng.standard_normal((5, 4)), "b": rng.standard_normal((3, 4))}
    x = {k: v.astype(np.float32) for k, v in x.items()}
    ei = {
        ("a", "to", "b"): np.stack([rng.integers(0, 5, 6), rng.integers(0, 3, 6)]),
        ("b", "to", "a"): np.stack([rng.integers(0, 3, 6), rng.integers(0, 5, 6)]),
    }
    batch = {"a": np.array([0, 0, 1, 1, 1]), "b": np.array([0, 1, 1])}
    new = _perturbed(gm.state_dict())
    gm.load_state_dict(new)
    ours.load_state_dict(new)
    with torch.no_grad():
        want = gm(*({k: torch.from_numpy(v) for k, v in d.items()} for d in (x, ei, batch)))
    np.testing.assert_allclose(ours(x, ei, batch), want.numpy(), atol=1e-5)


def test_to_hetero_leftover_modules_keep_their_names():
    """to_hetero makes per-type copies of a module called twice under two names and leaves
    the originals behind, uncalled but in the state dict: they stay in ours (read by
    nothing), so the GraphModule's state dict loads strictly."""
    torch, pyg_nn = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = pyg_nn.SAGEConv(4, 4)
            self.conv2 = self.conv1

        def forward(self, x, edge_index):
            return self.conv2(self.conv1(x, edge_index).relu(), edge_index)

    torch.manual_seed(8)
    gm = _to_hetero(Net(), (["a", "b"], [("a", "to", "b"), ("b", "to", "a")]))
    ours = agnn.from_pyg(gm)
    assert sorted(ours.state_dict()) == sorted(gm.state_dict())
    ours.load_state_dict(_perturbed(gm.state_dict()))


def test_each_top_level_call_converts_afresh():
    """Sharing is within one conversion: converting again gives new layers, and a failed
    conversion leaves nothing behind."""
    torch, pyg_nn = _torch()
    lin = torch.nn.Linear(2, 2)
    first, second = agnn.from_pyg(lin), agnn.from_torch(lin)
    assert first is not second
    bad = torch.nn.Sequential(lin, torch.nn.Softmax2d(), lin)
    with pytest.raises((TypeError, ValueError)):
        agnn.from_torch(bad)
    seq = torch.nn.Sequential(lin, lin)
    a, b = agnn.from_pyg(seq), agnn.from_pyg(seq)
    assert a[0] is a[1] and b[0] is b[1] and a[0] is not b[0]


def test_distinct_modules_stay_distinct():
    torch, pyg_nn = _torch()
    ref = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    ours = agnn.from_pyg(ref)
    assert ours[0] is not ours[1]
    ref2 = pyg_nn.GCN(3, 3, num_layers=2)
    ours2 = agnn.from_pyg(ref2)
    assert ours2.convs[0] is not ours2.convs[1]


# ---- B: readouts as Modules -----------------------------------------------------------------
def _pooling_classes():
    return [
        agnn.SortAggregation(2),
        agnn.SortPooling(2),
        agnn.SumPooling(),
        agnn.AvgPooling(),
        agnn.MaxPooling(),
    ]


@pytest.mark.parametrize("i", range(5))
def test_readouts_are_weightless_modules(i):
    layer = _pooling_classes()[i]
    assert isinstance(layer, Module)
    assert layer.state_dict() == {}
    assert layer.load_state_dict({}) is layer
    assert layer.to("cpu") is layer
    assert layer.device == "cpu" and layer.dtype is None
    with pytest.raises(KeyError, match="unexpected keys"):
        layer.load_state_dict({"weight": np.ones(1)})


def test_readout_reprs():
    assert repr(agnn.SortAggregation(3)) == "SortAggregation(k=3)"
    assert repr(agnn.SortPooling(3)) == "SortPooling(k=3)"
    assert repr(agnn.SumPooling()) == "SumPooling()"
    assert repr(agnn.aggr.MultiAggregation([agnn.SortAggregation(2), "sum"])) == (
        "MultiAggregation([SortAggregation(k=2), SumAggregation()], mode=cat)"
    )


def test_sort_aggregation_in_multi_aggregation_and_summary():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    idx = np.array([0, 0, 0, 1, 1, 2])
    multi = agnn.aggr.MultiAggregation([agnn.SortAggregation(2), "sum"])
    assert multi.state_dict() == {}
    out = multi(x, idx, dim_size=3)
    assert out.shape == (3, 6)
    np.testing.assert_array_equal(out[:, :4], agnn.SortAggregation(2)(x, idx, dim_size=3))
    table = summary(multi, x, idx, dim_size=3)
    assert "(0)SortAggregation" in table and "[6, 2]" in table and "[3, 4]" in table
    table = summary(agnn.SortAggregation(2), x, idx, dim_size=3)
    assert "SortAggregation" in table and "[3, 4]" in table
    assert agnn.aggr.aggregation_resolver("sort", 2).state_dict() == {}


def test_sort_aggregation_dim_argument():
    """PyG's ``dim=-2`` keyword is taken (0 and -2 on the two-dimensional input); other
    dims and inputs are PyG's ValueError."""
    x = np.arange(6, dtype=np.float64).reshape(3, 2)
    idx = np.array([0, 1, 1])
    sort = agnn.SortAggregation(1)
    want = sort(x, idx, dim_size=2)
    np.testing.assert_array_equal(sort(x, idx, dim_size=2, dim=0), want)
    np.testing.assert_array_equal(sort(x, idx, None, 2, -2), want)
    with pytest.raises(ValueError, match="dim"):
        sort(x, idx, dim_size=2, dim=1)


def test_sort_aggregation_from_pyg_matches_pyg_inside_multi():
    torch, pyg_nn = _torch()
    aggr = pyg_nn.aggr
    rng = np.random.default_rng(8)
    x = rng.standard_normal((7, 3)).astype(np.float32)
    idx = np.array([0, 0, 0, 1, 1, 3, 3])  # group 2 empty
    ref = aggr.MultiAggregation([aggr.SortAggregation(2), aggr.MaxAggregation()])
    ours = agnn.from_pyg(ref)
    assert repr(ours.aggrs[0]) == repr(ref.aggrs[0])
    assert ours.state_dict() == {} and len(ref.state_dict()) == 0
    with torch.no_grad():
        want = ref(torch.from_numpy(x), torch.from_numpy(idx), dim_size=4).numpy()
    np.testing.assert_allclose(ours(x, idx, dim_size=4), want, atol=1e-6)
    sort = agnn.from_pyg(aggr.SortAggregation(3))
    assert isinstance(sort, Module) and repr(sort) == "SortAggregation(k=3)"
    ref_table = pyg_nn.summary(
        aggr.SortAggregation(3), torch.from_numpy(x), torch.from_numpy(idx), dim_size=4
    )
    assert summary(sort, x, idx, dim_size=4) == ref_table
