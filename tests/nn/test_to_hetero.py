"""PyG-style Sequential, to_hetero / to_hetero_with_bases and fx GraphModules via from_pyg,
checked against PyG 2.8's own modules with the same weights."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

from arraygnn.nn import GCNConv, Linear, SAGEConv, Sequential, to_hetero, to_hetero_with_bases

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.nn.graph_sequential import GraphSequential  # noqa: E402

AGGRS = ["sum", "mean", "max", "min", "mul"]
NODES = {"a": 7, "b": 6, "c": 5}
# 'c' has no incoming edge type; the last node of 'a' and 'b' never gets an edge
META_NO_IN = (
    ["a", "b", "c"],
    [("a", "to", "b"), ("b", "to", "a"), ("b", "self", "b"), ("c", "to", "a")],
)
META = (META_NO_IN[0], META_NO_IN[1] + [("a", "rev", "c")])


def _close(ours, ref, atol=1e-5):
    if ref is None:
        assert ours is None
        return
    np.testing.assert_allclose(np.asarray(ours), ref.detach().numpy(), atol=atol, rtol=1e-5)


def _dicts_close(ours, ref, atol=1e-5):
    assert list(ours) == list(ref)
    for key in ref:
        _close(ours[key], ref[key], atol)


def _hetero_data(meta, seed=0, index_dtype=np.int64, channels=3, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = {t: rng.normal(size=(n, channels)).astype(dtype) for t, n in NODES.items()}
    ei = {}
    for src, rel, dst in meta[1]:
        e = 9
        s = rng.integers(0, NODES[src] - 1, e)
        d = rng.integers(0, NODES[dst] - 1, e)
        s[0] = d[0] = 0  # a repeated edge
        s[1] = d[1] = 0
        ei[(src, rel, dst)] = np.stack([s, d]).astype(index_dtype)
    return x, ei


def _torch(d):
    return {k: torch.from_numpy(np.asarray(v)) for k, v in d.items()}


def _torch_index(d):
    return {k: torch.from_numpy(v.astype(np.int64)) for k, v in d.items()}


class OneHop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 8)
        self.conv1 = pyg_nn.SAGEConv((8, 8), 4)

    def forward(self, x, edge_index):
        x = self.lin(x).relu()
        return self.conv1(x, edge_index)


class TwoHop(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 8)
        self.conv1 = pyg_nn.SAGEConv((8, 8), 8)
        self.conv2 = pyg_nn.SAGEConv((8, 8), 4, aggr="max")

    def forward(self, x, edge_index):
        x = self.lin(x).relu()
        x = torch.nn.functional.dropout(self.conv1(x, edge_index).relu(), p=0.5, training=False)
        return self.conv2(x, edge_index)


def _native_two_hop():
    return Sequential(
        "x, edge_index",
        OrderedDict(
            lin=(Linear(3, 8), "x -> x"),
            act=("relu", "x -> x"),
            conv1=(SAGEConv(8, 8, "mean"), "x, edge_index -> x"),
            act2="relu",
            conv2=(SAGEConv(8, 4, "max"), "x, edge_index -> x"),
        ),
    )


def _pyg_to_hetero(model, meta, **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pyg_nn.to_hetero(model, meta, **kw).eval()


# ---- PyG's Sequential ----------------------------------------------------------------
def test_sequential_stacks_match_pyg():
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    n, f = 9, 5
    x = rng.normal(size=(n, f)).astype(np.float32)
    ei = rng.integers(0, n - 2, (2, 20))  # the last two nodes are isolated
    batch = np.array([0] * 5 + [1] * 4)
    model = pyg_nn.Sequential(
        "x, edge_index, batch",
        [
            (torch.nn.Dropout(p=0.5), "x -> x"),
            (pyg_nn.GCNConv(f, 8), "x, edge_index -> x1"),
            torch.nn.ReLU(inplace=True),
            (pyg_nn.GATConv(8, 4, heads=2), "x1, edge_index -> x2"),
            torch.nn.ELU(),
            (pyg_nn.SAGEConv(8, 8), "x2, edge_index -> x3"),
            (lambda x1, x2, x3: [x1, x2, x3], "x1, x2, x3 -> xs"),
            (pyg_nn.JumpingKnowledge("cat"), "xs -> x"),
            (lambda x: (x, x * 2), "x -> xa, xb"),
            (lambda xa, xb: torch.cat([xa, xb], dim=-1), "xa, xb -> x"),
            (pyg_nn.global_mean_pool, "x, batch -> x"),
            torch.nn.Linear(48, 3),
        ],
    ).eval()
    ours = from_pyg(model)
    assert isinstance(ours, GraphSequential)
    assert sorted(ours.state_dict()) == sorted(model.state_dict())
    with torch.no_grad():
        ref = model(torch.from_numpy(x), torch.from_numpy(ei), torch.from_numpy(batch))
    for index_dtype in (np.int64, np.int32):
        out = ours(x, ei.astype(index_dtype), batch.astype(index_dtype))
        _close(out, ref)


def test_sequential_dict_names_and_multiple_outputs():
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 4))
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    model = pyg_nn.Sequential(
        "x, edge_index",
        OrderedDict(
            conv=(pyg_nn.GraphConv(4, 4), "x, edge_index -> x"),
            split=(lambda x: (x.relu(), x.sigmoid()), "x -> p, q"),
        ),
    ).double()
    ours = from_pyg(model)
    assert sorted(ours.state_dict()) == sorted(model.state_dict())  # PyG's names
    with torch.no_grad():
        ref = model(torch.from_numpy(x), torch.from_numpy(ei))
    out = ours(x, ei)
    assert isinstance(out, tuple) and len(out) == 2
    for a, b in zip(out, ref):
        assert a.dtype == np.float64
        _close(a, b, atol=1e-12)


def test_sequential_native_matches_pyg_with_loaded_state():
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3, 0], [1, 2, 3, 0, 0]])
    pyg = pyg_nn.Sequential(
        "x, edge_index",
        [(pyg_nn.SAGEConv(3, 8), "x, edge_index -> x"), torch.nn.ReLU(), torch.nn.Linear(8, 2)],
    )
    ours = Sequential(
        "x, edge_index", [(SAGEConv(3, 8, "mean"), "x, edge_index -> x"), "relu", Linear(8, 2)]
    )
    ours.load_state_dict(pyg.state_dict())
    with torch.no_grad():
        ref = pyg(torch.from_numpy(x), torch.from_numpy(ei))
    _close(ours(x, ei), ref)
    _close(ours(x=x, edge_index=ei), ref)


def test_torch_style_sequential_unchanged():
    seq = Sequential(Linear(4, 8, rng=0), "relu", Linear(8, 2, rng=1))
    assert type(seq) is Sequential
    assert sorted(seq.state_dict()) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    assert seq(np.ones((3, 4), np.float32)).shape == (3, 2)


@pytest.mark.parametrize(
    "modules, match",
    [
        ([Linear(2, 2)], "signature for first module"),
        ([(Linear(2, 2), "x -> y"), (Linear(2, 2), "z -> y")], "reads \\['z'\\]"),
        ([(Linear(2, 2), "x -> y", 3)], "tuple of length 2"),
        ([(Linear(2, 2), "x, y")], "failed to parse"),
        ([(3, "x -> x")], "callable"),
    ],
)
def test_sequential_errors(modules, match):
    with pytest.raises(ValueError, match=match):
        Sequential("x", modules)


def test_sequential_wrong_number_of_outputs():
    seq = Sequential("x", [(lambda x: (x, x, x), "x -> a, b")])
    with pytest.raises(ValueError, match="returns 3 values.*names 2"):
        seq(np.ones(2))


def test_untranslatable_lambda_names_the_step():
    model = pyg_nn.Sequential(
        "x",
        [(torch.nn.Linear(2, 2), "x -> x"), (lambda x: torch.sort(x)[0], "x -> x")],
    )
    with pytest.raises(ValueError, match="step 'module_1'.*sort"):
        from_pyg(model)


# ---- to_hetero -------------------------------------------------------------------------
@pytest.mark.parametrize("aggr", AGGRS)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_to_hetero_from_pyg_and_native(aggr, index_dtype):
    x, ei = _hetero_data(META, seed=4, index_dtype=index_dtype)
    model = _pyg_to_hetero(TwoHop(), META, aggr=aggr)
    with torch.no_grad():
        ref = model(_torch(x), _torch_index(ei))
    converted = from_pyg(model)
    _dicts_close(converted(x, ei), ref)
    native = to_hetero(_native_two_hop(), META, aggr=aggr)
    assert sorted(native.state_dict()) == sorted(model.state_dict())
    native.load_state_dict(model.state_dict())
    _dicts_close(native(x, ei), ref)
    assert sorted(converted.state_dict()) == sorted(model.state_dict())


@pytest.mark.parametrize("aggr", AGGRS)
def test_to_hetero_node_type_without_incoming_edges(aggr):
    x, ei = _hetero_data(META_NO_IN, seed=5)
    model = _pyg_to_hetero(OneHop(), META_NO_IN, aggr=aggr)
    with torch.no_grad():
        ref = model(_torch(x), _torch_index(ei))
    assert ref["c"] is None
    _dicts_close(from_pyg(model)(x, ei), ref)
    seq = Sequential(
        "x, edge_index",
        {
            "lin": (Linear(3, 8), "x -> x"),
            "act": "relu",
            "conv1": (SAGEConv(8, 4, "mean"), "x, edge_index -> x"),
        },
    )
    with pytest.warns(UserWarning, match="do not get updated"):
        native = to_hetero(seq, META_NO_IN, aggr=aggr)
    native.load_state_dict(model.state_dict())
    _dicts_close(native(x, ei), ref)


def test_to_hetero_unreached_type_raises_like_pyg():
    with pytest.raises(ValueError, match="Cannot generate a graph node") as theirs:
        _pyg_to_hetero(TwoHop(), META_NO_IN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="Cannot generate a graph node") as ours:
            to_hetero(_native_two_hop(), META_NO_IN)
    assert "for type 'c'" in str(theirs.value) and "for type 'c'" in str(ours.value)


def test_to_hetero_torch_style_sequential_runs_per_node_type():
    seq = Sequential(Linear(3, 4, rng=0), "relu")
    with pytest.warns(UserWarning, match=r"\(\['a'\]\)"):
        hetero = to_hetero(seq, (["a", "b"], [("a", "to", "b")]))
    assert sorted(hetero.state_dict()) == ["0.a.bias", "0.a.weight", "0.b.bias", "0.b.weight"]
    x = {"a": np.ones((2, 3), np.float32), "b": -np.ones((1, 3), np.float32)}
    out = hetero(x)
    np.testing.assert_allclose(out["a"], np.maximum(seq(x["a"]), 0))
    np.testing.assert_allclose(out["b"], np.maximum(seq(x["b"]), 0))


def test_to_hetero_errors():
    with pytest.raises(ValueError, match="aggr must be one of"):
        to_hetero(_native_two_hop(), META, aggr="cat")
    with pytest.raises(TypeError, match="arraygnn Sequential"):
        to_hetero(Linear(2, 2), META)
    gcn = Sequential("x, edge_index", [(GCNConv(3, 3), "x, edge_index -> x")])
    with pytest.raises(ValueError, match="add_self_loops"):
        to_hetero(gcn, META)
    with pytest.raises(TypeError, match="must be a dict"):
        to_hetero(_native_two_hop(), META)(np.ones((2, 3)), {})


# ---- to_hetero_with_bases --------------------------------------------------------------
class BasesModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = pyg_nn.SAGEConv(8, 8)
        self.conv2 = pyg_nn.GraphConv(8, 4)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_to_hetero_with_bases_from_pyg_and_native(index_dtype):
    x, ei = _hetero_data(META_NO_IN, seed=6, index_dtype=index_dtype)
    x["c"] = np.random.default_rng(6).normal(size=(NODES["c"], 5)).astype(np.float32)
    torch.manual_seed(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = pyg_nn.to_hetero_with_bases(
            BasesModel(), META_NO_IN, num_bases=3, in_channels={"x": 8}
        )
    with torch.no_grad():
        ref = model(_torch(x), _torch_index(ei))
    _dicts_close(from_pyg(model)(x, ei), ref)
    seq = Sequential(
        "x, edge_index",
        {
            "conv1": (SAGEConv(8, 8, "mean"), "x, edge_index -> x"),
            "act": "relu",
            "conv2": (from_pyg(pyg_nn.GraphConv(8, 4)), "x, edge_index -> x"),
        },
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = to_hetero_with_bases(seq, META_NO_IN, num_bases=3, in_channels={"x": 8})
    native.load_state_dict(model.state_dict())
    assert sorted(native.state_dict()) == sorted(model.state_dict())
    _dicts_close(native(x, ei), ref)


def test_to_hetero_with_bases_unsupported_layer():
    gcn = Sequential("x, edge_index", [(GCNConv(3, 3), "x, edge_index -> x")])
    with pytest.raises(ValueError, match="GCNConv cannot weight its messages"):
        to_hetero_with_bases(gcn, META, num_bases=2)


# ---- fx GraphModules ---------------------------------------------------------------------
class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 6)
        self.scale = torch.nn.Parameter(torch.rand(6))

    def forward(self, x):
        h = torch.nn.functional.leaky_relu(self.lin(x), 0.1) * self.scale
        h = torch.cat([h, h.sum(dim=-1, keepdim=True)], dim=-1).view(-1, 7)
        return torch.nn.functional.log_softmax(h, dim=-1) + h.size(0) - h.t().t()


def test_graph_module_whitelisted_ops():
    torch.manual_seed(7)
    gm = torch.fx.symbolic_trace(Plain())
    x = np.random.default_rng(7).normal(size=(5, 4)).astype(np.float32)
    with torch.no_grad():
        ref = gm(torch.from_numpy(x))
    ours = from_pyg(gm)
    assert sorted(ours.state_dict()) == ["lin.bias", "lin.weight", "scale"]
    _close(ours(x), ref)


class Unsupported(torch.nn.Module):
    def forward(self, x):
        return x.cumsum(0)


class UnsupportedFn(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x)


@pytest.mark.parametrize(
    "module, match",
    [(Unsupported(), "fx node 'cumsum'.*cumsum"), (UnsupportedFn(), "fx node 'sort'.*sort")],
)
def test_graph_module_unsupported_op_named(module, match):
    with pytest.raises(ValueError, match=match):
        from_pyg(torch.fx.symbolic_trace(module))


class Pooled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = pyg_nn.SAGEConv(3, 4)
        self.pool = pyg_nn.aggr.MeanAggregation()
        self.lin = torch.nn.Linear(4, 2)

    def forward(self, x, edge_index, batch):
        return self.lin(self.pool(self.conv(x, edge_index), batch))


@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
def test_to_hetero_global_pooling(aggr):
    from arraygnn.nn.aggr import MeanAggregation

    meta = (["a", "b"], [("a", "to", "b"), ("b", "to", "a")])
    x, ei = _hetero_data((["a", "b"], meta[1]), seed=8)
    x = {k: x[k] for k in ("a", "b")}
    batch = {"a": np.array([0, 0, 0, 1, 1, 1, 1]), "b": np.array([0, 1, 1, 1, 1, 1])}
    model = _pyg_to_hetero(Pooled(), meta, aggr=aggr)
    with torch.no_grad():
        ref = model(_torch(x), _torch_index(ei), _torch(batch))
    _close(from_pyg(model)(x, ei, batch), ref)
    seq = Sequential(
        "x, edge_index, batch",
        {
            "conv": (SAGEConv(3, 4, "mean"), "x, edge_index -> x"),
            "pool": (MeanAggregation(), "x, batch -> x"),  # 'x' rebound at graph level
            "lin": Linear(4, 2),
        },
    )
    native = to_hetero(seq, meta, aggr=aggr).load_state_dict(model.state_dict())
    _close(native(x, ei, batch), ref)
