"""Review of PyG's graph Sequential, to_hetero / to_hetero_with_bases and the fx
interpreter behind ``from_pyg`` of a GraphModule: edge cases checked against PyG 2.8 and
torch themselves (same weights)."""

from __future__ import annotations

import pickle
import types
import warnings
from collections import OrderedDict

import numpy as np
import pytest

from arraygnn.nn import Linear, SAGEConv, Sequential, to_hetero, to_hetero_with_bases

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.nn.graph_sequential import GraphSequential  # noqa: E402

F = torch.nn.functional


def _close(ours, ref, atol=1e-5, rtol=1e-5):
    if ref is None:
        assert ours is None
        return
    ref = ref.detach().numpy()
    assert np.asarray(ours).dtype == ref.dtype
    np.testing.assert_allclose(np.asarray(ours), ref, atol=atol, rtol=rtol)


def _dicts_close(ours, ref, atol=1e-5):
    assert list(ours) == list(ref)
    for key in ref:
        _close(ours[key], ref[key], atol)


def _torch(d):
    return {k: None if v is None else torch.from_numpy(np.asarray(v)) for k, v in d.items()}


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _gm(fn):
    """A GraphModule tracing ``fn(x)`` (a torch function of one tensor)."""

    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    return torch.fx.symbolic_trace(M())


# ---- Sequential -------------------------------------------------------------------------
def test_sequential_keyword_form_like_pyg():
    modules = [(Linear(2, 3, rng=0), "x -> x"), "relu"]
    seq = Sequential(input_args="x", modules=modules)
    assert isinstance(seq, GraphSequential)
    seq2 = Sequential("x", modules=modules)
    assert isinstance(seq2, GraphSequential)
    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(seq(x), seq2(x))


def test_torch_style_sequential_with_activation_name_first_stays_torch():
    seq = Sequential("relu", Linear(2, 3, rng=0), "tanh")
    assert type(seq) is Sequential
    seq = Sequential("relu", Linear(2, 3, rng=0))
    assert type(seq) is Sequential
    x = -np.ones((2, 2), np.float32)
    np.testing.assert_allclose(seq(x), seq[1](np.zeros_like(x)))


def test_sequential_signature_edge_cases_match_pyg():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    model = pyg_nn.Sequential(
        " x :Tensor ,  edge_index  ->  Tensor",
        OrderedDict(
            conv=(pyg_nn.GraphConv(3, 4), "  x,edge_index->h "),
            split=(lambda h: (h.relu(), h.tanh()), "h -> a ,b"),
            # no signature after a two-output step: reads and returns (a, b)
            swap=lambda a, b: (b, a),
            both=(lambda a, b: a + 2 * b, "a,b->x"),
        ),
    ).eval()
    ours = from_pyg(model)
    with torch.no_grad():
        ref = model(torch.from_numpy(x), torch.from_numpy(ei))
    _close(ours(x, ei), ref)
    assert [s.name for s in ours.graph_steps] == ["conv", "split", "swap", "both"]
    assert ours.graph_steps[2].param_names == ("a", "b")


# ---- to_hetero: merge order ----------------------------------------------------------------
@pytest.mark.parametrize("aggr", ["sum", "mean", "max", "min", "mul"])
def test_to_hetero_merges_four_edge_types_in_pyg_order(aggr):
    """Four edge types into 'a' (PyG: (t0+t1), (t2+t3), then the two sums) and three into
    'd' ((t0+t1)+t2); values chosen so that any other order of the float sums differs."""
    meta = (
        ["a", "b", "c", "d"],
        [
            ("b", "r1", "a"),
            ("c", "r2", "a"),
            ("d", "r3", "a"),
            ("a", "r4", "a"),
            ("b", "r5", "d"),
            ("c", "r6", "d"),
            ("a", "r7", "d"),
        ],
    )
    x = {
        "a": np.full((2, 1), 1.0, np.float32),
        "b": np.full((2, 1), 1e8, np.float32),
        "c": np.full((2, 1), -1e8, np.float32),
        "d": np.full((2, 1), 3.0, np.float32),
    }
    ei = {et: np.array([[0, 1], [1, 0]]) for et in meta[1]}

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = pyg_nn.SimpleConv("sum")

        def forward(self, x, edge_index):
            return self.conv(x, edge_index)

    model = _quiet(pyg_nn.to_hetero, Net(), meta, aggr=aggr)
    with torch.no_grad():
        ref = model(_torch(x), _torch(ei))
    seq = Sequential("x, edge_index", {"conv": (from_pyg(Net().conv), "x, edge_index -> x")})
    native = _quiet(to_hetero, seq, meta, aggr=aggr)
    out = native(x, ei)
    converted = from_pyg(model)(x, ei)
    for key in ("a", "d"):
        np.testing.assert_array_equal(out[key], ref[key].numpy())
        np.testing.assert_array_equal(converted[key], ref[key].numpy())


# ---- to_hetero: global pooling by every PyG Aggregation ------------------------------------
class _Pooled(torch.nn.Module):
    def __init__(self, pool, width):
        super().__init__()
        self.conv = pyg_nn.SAGEConv(3, 4)
        self.pool = pool
        self.lin = torch.nn.Linear(width, 2)  # PyG fails on a pooled value as the output

    def forward(self, x, edge_index, batch):
        return self.lin(self.pool(self.conv(x, edge_index), batch, dim_size=2))


def _pool_case(seed=0):
    rng = np.random.default_rng(seed)
    meta = (["a", "b"], [("a", "to", "b"), ("b", "to", "a")])
    x = {"a": rng.normal(size=(7, 3)).astype(np.float32)}
    x["b"] = rng.normal(size=(6, 3)).astype(np.float32)
    ei = {
        meta[1][0]: np.stack([rng.integers(0, 7, 12), rng.integers(0, 6, 12)]),
        meta[1][1]: np.stack([rng.integers(0, 6, 12), rng.integers(0, 7, 12)]),
    }
    batch = {"a": np.array([0, 0, 0, 1, 1, 1, 1]), "b": np.array([0, 1, 1, 1, 1, 1])}
    return meta, x, ei, batch


@pytest.mark.parametrize("kind", ["attentional", "set2set", "sort"])
@pytest.mark.parametrize("aggr", ["sum", "mean"])
def test_to_hetero_readout_aggregations_are_global_pools(kind, aggr):
    """PyG's AttentionalAggregation, Set2Set and SortAggregation are Aggregations: to_hetero
    runs them per node type and merges across node types (a graph-level output). arraygnn's
    readouts want the number of graphs: a subclass passes it, as PyG's model does."""
    from arraygnn.nn import aggr as readouts

    def sized(cls):
        class Sized(cls):
            def __call__(self, x, batch):
                return super().__call__(x, batch, dim_size=2)

        return Sized

    AttentionalAggregation = sized(readouts.AttentionalAggregation)
    Set2Set = sized(readouts.Set2Set)
    SortAggregation = sized(readouts.SortAggregation)

    torch.manual_seed(1)
    pools = {
        "attentional": (
            lambda: pyg_nn.aggr.AttentionalAggregation(torch.nn.Linear(4, 1)),
            lambda: AttentionalAggregation(Linear(4, 1)),
            4,
        ),
        "set2set": (lambda: pyg_nn.aggr.Set2Set(4, 2), lambda: Set2Set(4, 2), 8),
        "sort": (lambda: pyg_nn.aggr.SortAggregation(3), lambda: SortAggregation(3), 12),
    }
    theirs, mine, width = pools[kind]
    meta, x, ei, batch = _pool_case()
    model = _quiet(pyg_nn.to_hetero, _Pooled(theirs(), width), meta, aggr=aggr)
    with torch.no_grad():
        ref = model(_torch(x), _torch(ei), _torch(batch))
    assert isinstance(ref, torch.Tensor)
    _close(from_pyg(model)(x, ei, batch), ref)
    seq = Sequential(
        "x, edge_index, batch",
        {
            "conv": (SAGEConv(3, 4, "mean"), "x, edge_index -> x"),
            "pool": (mine(), "x, batch -> x"),
            "lin": Linear(width, 2),
        },
    )
    native = to_hetero(seq, meta, aggr=aggr)
    assert native.kinds == ["mp", "pool", "graph"]
    native.load_state_dict(model.state_dict())
    _close(native(x, ei, batch), ref)


# ---- the fx interpreter's whitelist against torch ------------------------------------------
_FX_CASES = {
    "flatten_empty": lambda x: x[:0].flatten(1),
    "torch_flatten_empty": lambda x: torch.flatten(x[:0], 1, 2),
    "softmax_no_dim_3d": lambda x: F.softmax(x),
    "log_softmax_no_dim_3d": lambda x: F.log_softmax(x),
    "softmax_no_dim_4d": lambda x: F.softmax(x.unsqueeze(0)),
    "softmax_dtype": lambda x: F.softmax(x, dim=-1, dtype=torch.float64),
    "log_softmax_dtype": lambda x: F.log_softmax(x, 1, dtype=torch.float64),
    "method_softmax_dtype": lambda x: x.softmax(-1, dtype=torch.float64),
    "positional_softmax_dtype": lambda x: (
        torch.softmax(x, 1, torch.float64) + x.softmax(-1, torch.float64)
    ),
    "log_softmax_positional_dtype": lambda x: torch.log_softmax(x, 0, torch.float64),
    "sum_mean_dtype": lambda x: (
        x.sum(-1, dtype=torch.float64) + torch.mean(x, 1, dtype=torch.float64)
    ),
    "normalize_default": lambda x: F.normalize(x),
    "normalize_inf": lambda x: F.normalize(x, float("inf"), -1),
    "normalize_p1_eps": lambda x: F.normalize(x, p=1, dim=0, eps=0.5),
    "normalize_zero_rows": lambda x: F.normalize(x * 0),
    "dropout_eval": lambda x: F.dropout(x, 0.5, training=False) + torch.dropout(x, 0.3, False),
    "cat_dims": lambda x: torch.cat([x, x * 2], dim=1) + torch.cat((x, x), -2).sum(),
    "view_reshape_minus_one": lambda x: x.view(-1, 4).reshape(2, -1).view(x.size(0), -1),
    "getitem_slices": lambda x: x[:, 1:3, ::2] + x[None, 0, 1:3, 1::2] + x[..., None, 0][0, :2],
    "getitem_tuple_dict": lambda x: {"a": (x, x * 3)}["a"][1][-1],
    "method_kwargs": lambda x: x.sum(dim=-1, keepdim=True) + x.mean(dim=(0, 1)),
    "max_dim_tuple": lambda x: x.max(dim=1)[0] + x.min(1, keepdim=True).values.squeeze(1),
    "transpose_t": lambda x: x.transpose(0, 2).permute(2, 1, 0) + x,
    "keyword_shapes": lambda x: x.view(size=(4, 12)).reshape(shape=(12, 4)).permute(dims=(1, 0)),
    "keyword_other": lambda x: x.add(other=x, alpha=2) + torch.mul(x, other=3) - x.pow(exponent=2),
    "squeeze_tuple": lambda x: x[:1, :, :1].squeeze(dim=(0, 2)) + x[0].squeeze((0, 1)),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh") + F.gelu(x),
}


@pytest.mark.parametrize("case", sorted(_FX_CASES))
def test_fx_whitelist_matches_torch(case):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 4, 4)).astype(np.float32)
    gm = _gm(_FX_CASES[case])
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's implicit-dim softmax warning
        ref = gm(torch.from_numpy(x))
    ours = from_pyg(gm)(x)
    assert tuple(np.shape(ours)) == tuple(ref.shape)
    _close(ours, ref, atol=1e-6)


def test_fx_unsupported_attribute_named_when_built():
    gm = _gm(lambda x: x * x.device.index)
    with pytest.raises(ValueError, match="fx node 'getattr_1'.*'device'"):
        from_pyg(gm)


def _torch_objects(obj, seen=None, path="model"):
    """Paths of every torch object reachable from ``obj`` (attributes, containers)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, type(None))):
        return []
    seen.add(id(obj))
    if type(obj).__module__.split(".")[0] == "torch":
        return [f"{path}: {type(obj).__module__}.{type(obj).__name__}"]
    found = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            found += _torch_objects(k, seen, f"{path}[{k!r}].key")
            found += _torch_objects(v, seen, f"{path}[{k!r}]")
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for i, v in enumerate(obj):
            found += _torch_objects(v, seen, f"{path}[{i}]")
    elif isinstance(obj, slice):
        for v in (obj.start, obj.stop, obj.step):
            found += _torch_objects(v, seen, f"{path}.slice")
    elif isinstance(obj, types.FunctionType):  # closures and defaults too
        for i, cell in enumerate(obj.__closure__ or ()):
            found += _torch_objects(cell.cell_contents, seen, f"{path}.<cell {i}>")
        found += _torch_objects(obj.__defaults__, seen, f"{path}.__defaults__")
    elif isinstance(obj, types.MethodType):
        found += _torch_objects(obj.__self__, seen, f"{path}.__self__")
    elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
        found += _torch_objects(vars(obj), seen, f"{path}.__dict__")
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("arraygnn"):
        found += _torch_objects(vars(obj), seen, f"{path}.__dict__")
    return found


def test_converted_graph_module_holds_no_torch_objects():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 4)
            self.conv = pyg_nn.SAGEConv(4, 4)

        def forward(self, x, edge_index):
            h = torch.cat([self.lin(x), x[:, :1]], dim=-1)[:, :4]
            return self.conv(h, edge_index).view(-1, 4)

    class Plain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("shift", torch.ones(3))

        def forward(self, x):
            return torch.stack([x + self.shift, x * torch.tensor(2.0)], dim=0)[1:]

    plain = torch.fx.symbolic_trace(Plain())
    converted = from_pyg(plain)
    assert _torch_objects(converted) == []
    x0 = np.arange(6, dtype=np.float32).reshape(2, 3)
    with torch.no_grad():
        _close(pickle.loads(pickle.dumps(converted))(x0), plain(torch.from_numpy(x0)))

    meta = (["a", "b"], [("a", "to", "b"), ("b", "to", "a")])
    model = _quiet(pyg_nn.to_hetero, Net(), meta, aggr="mean")
    program = from_pyg(model)
    assert _torch_objects(program) == []
    restored = pickle.loads(pickle.dumps(program))
    rng = np.random.default_rng(0)
    x = {"a": rng.normal(size=(4, 3)).astype(np.float32)}
    x["b"] = rng.normal(size=(3, 3)).astype(np.float32)
    ei = {meta[1][0]: np.array([[0, 1, 3], [2, 2, 0]]), meta[1][1]: np.array([[0, 2], [1, 3]])}
    with torch.no_grad():
        ref = model(_torch(x), _torch(ei))
    _dicts_close(restored(x, ei), ref)


# ---- to_hetero: skip connections, JumpingKnowledge, edge features ---------------------------
META = (
    ["a", "b", "c"],
    [("a", "to", "b"), ("b", "to", "a"), ("b", "self", "b"), ("c", "to", "a"), ("a", "rev", "c")],
)
SIZES = {"a": 7, "b": 6, "c": 5}


def _hetero_graph(seed, channels=3, edge_dim=None, index_dtype=np.int64, empty=None):
    rng = np.random.default_rng(seed)
    x = {t: rng.normal(size=(n, channels)).astype(np.float32) for t, n in SIZES.items()}
    ei, ea = {}, {}
    for src, rel, dst in META[1]:
        e = 0 if (src, rel, dst) == empty else 10
        s = rng.integers(0, SIZES[src] - 1, e)  # the last node of each type: no edge
        d = rng.integers(0, SIZES[dst] - 1, e)
        if e:
            s[1], d[1] = s[0], d[0]  # a repeated edge
        ei[(src, rel, dst)] = np.stack([s, d]).astype(index_dtype)
        if edge_dim:
            ea[(src, rel, dst)] = rng.normal(size=(e, edge_dim)).astype(np.float32)
    return x, ei, ea


class _Skip(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = pyg_nn.SAGEConv((3, 3), 8)
        self.conv2 = pyg_nn.SAGEConv((8, 8), 8, aggr="max")
        self.jk = pyg_nn.JumpingKnowledge("cat")
        self.lin = torch.nn.Linear(16, 4)

    def forward(self, x, edge_index):
        x1 = self.conv1(x, edge_index).relu()
        x2 = (self.conv2(x1, edge_index) + x1).relu()
        return self.lin(self.jk([x1, x2]))


@pytest.mark.parametrize("aggr", ["sum", "mean", "max"])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_to_hetero_skip_and_jumping_knowledge(aggr, index_dtype):
    from arraygnn.nn import JumpingKnowledge

    torch.manual_seed(4)
    x, ei, _ = _hetero_graph(4, index_dtype=index_dtype, empty=("b", "self", "b"))
    model = _quiet(pyg_nn.to_hetero, _Skip(), META, aggr=aggr).eval()
    with torch.no_grad():
        ref = model(_torch(x), {k: torch.from_numpy(v.astype(np.int64)) for k, v in ei.items()})
    _dicts_close(from_pyg(model)(x, ei), ref)
    seq = Sequential(
        "x, edge_index",
        OrderedDict(
            conv1=(SAGEConv(3, 8, "mean"), "x, edge_index -> x1"),
            act1=("relu", "x1 -> x1"),
            conv2=(SAGEConv(8, 8, "max"), "x1, edge_index -> x2"),
            skip=(lambda a, b: np.maximum(a + b, 0), "x2, x1 -> x2"),
            pack=(lambda a, b: [a, b], "x1, x2 -> xs"),
            jk=(JumpingKnowledge("cat"), "xs -> x"),
            lin=(Linear(16, 4), "x -> x"),
        ),
    )
    native = to_hetero(seq, META, aggr=aggr)
    native.load_state_dict(model.state_dict())
    _dicts_close(native(x, ei), ref)


class _EdgeAttr(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.edge_lin = torch.nn.Linear(2, 3)
        self.conv = pyg_nn.GATConv((3, 3), 4, heads=2, edge_dim=3, add_self_loops=False)

    def forward(self, x, edge_index, edge_attr):
        return self.conv(x, edge_index, self.edge_lin(edge_attr).relu())


@pytest.mark.parametrize("aggr", ["sum", "mul"])
def test_to_hetero_edge_attr_dicts(aggr):
    from arraygnn.nn import GATConv

    torch.manual_seed(5)
    x, ei, ea = _hetero_graph(5, edge_dim=2)
    model = _quiet(pyg_nn.to_hetero, _EdgeAttr(), META, aggr=aggr).eval()
    with torch.no_grad():
        ref = model(_torch(x), _torch(ei), _torch(ea))
    _dicts_close(from_pyg(model)(x, ei, ea), ref)
    seq = Sequential(
        "x, edge_index, edge_attr",
        OrderedDict(
            edge_lin=(Linear(2, 3), "edge_attr -> e"),
            act=("relu", "e -> e"),
            conv=(
                GATConv((3, 3), 4, 2, add_self_loops=False, edge_dim=3, allow_zero_in_degree=True),
                "x, edge_index, e -> x",
            ),
        ),
    )
    native = to_hetero(seq, META, aggr=aggr)
    assert native.kinds == ["edge", "edge", "mp"]
    native.load_state_dict(model.state_dict())
    _dicts_close(native(x, ei, ea), ref)


# ---- to_hetero_with_bases ------------------------------------------------------------------
class _Bases(torch.nn.Module):
    def __init__(self, conv1, conv2):
        super().__init__()
        self.conv1, self.conv2 = conv1, conv2

    def forward(self, x, edge_index, edge_weight):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index, edge_weight)


@pytest.mark.parametrize("aggr", ["mean", "max", "sum"])
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_to_hetero_with_bases_aggregations_and_edge_weights(aggr, index_dtype):
    from arraygnn.nn.to_hetero_with_bases import HeteroBasisConv

    torch.manual_seed(6)
    x, ei, _ = _hetero_graph(6, index_dtype=index_dtype, empty=("c", "to", "a"))
    x["c"] = np.random.default_rng(6).normal(size=(SIZES["c"], 5)).astype(np.float32)
    # PyG groups an edge-level input along dim -2: edge weights as (E, 1)
    gen = np.random.default_rng(7)
    ew = {k: gen.uniform(0.5, 2, (v.shape[1], 1)).astype(np.float32) for k, v in ei.items()}
    model = _quiet(
        pyg_nn.to_hetero_with_bases,
        _Bases(pyg_nn.SAGEConv(8, 8, aggr=aggr), pyg_nn.GraphConv(8, 4, aggr=aggr)),
        META,
        num_bases=3,
        in_channels={"x": 8},
    )
    with torch.no_grad():
        ref = model(
            _torch(x), {k: torch.from_numpy(v.astype(np.int64)) for k, v in ei.items()}, _torch(ew)
        )
    _dicts_close(from_pyg(model)(x, ei, ew), ref)
    seq = Sequential(
        "x, edge_index, edge_weight",
        {
            "conv1": (SAGEConv(8, 8, aggr), "x, edge_index -> x"),
            "act": "relu",
            "conv2": (
                from_pyg(pyg_nn.GraphConv(8, 4, aggr=aggr)),
                "x, edge_index, edge_weight -> x",
            ),
        },
    )
    native = _quiet(to_hetero_with_bases, seq, META, num_bases=3, in_channels={"x": 8})
    assert isinstance(native.conv1, HeteroBasisConv)
    native.load_state_dict(model.state_dict())
    assert sorted(native.state_dict()) == sorted(model.state_dict())
    _dicts_close(native(x, ei, ew), ref)


def test_to_hetero_with_bases_refuses_extra_or_unknown_inputs_like_pyg():
    torch.manual_seed(8)
    x, ei, _ = _hetero_graph(8)
    seq = Sequential("x, edge_index", [(SAGEConv(3, 4, "mean"), "x, edge_index -> x")])
    native = _quiet(to_hetero_with_bases, seq, META, num_bases=2)

    class One(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = pyg_nn.SAGEConv(3, 4)

        def forward(self, x, edge_index):
            return self.conv(x, edge_index)

    model = _quiet(pyg_nn.to_hetero_with_bases, One(), META, num_bases=2)
    for args, kwargs in [((x, ei, ei), {}), ((x, ei), {"edge_attr": ei}), ((x,), {"x": x})]:
        with pytest.raises(TypeError):
            model(*[_torch(a) for a in args], **{k: _torch(v) for k, v in kwargs.items()})
        with pytest.raises(TypeError, match="to_hetero_with_bases model"):
            native(*args, **kwargs)
    assert native(x, ei)["a"].shape == (SIZES["a"], 4)


def test_sequential_dict_names_that_are_not_identifiers_like_pyg():
    torch.manual_seed(9)
    model = pyg_nn.Sequential(
        "x, edge_index",
        OrderedDict(
            [
                ("conv-1", (pyg_nn.GraphConv(3, 4), "x, edge_index -> x")),
                ("1", torch.nn.Linear(4, 2)),
            ]
        ),
    )
    x = np.random.default_rng(9).normal(size=(4, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    with torch.no_grad():  # PyG's compiled forward is shared by the class: run the steps
        ref = model[1](model[0](torch.from_numpy(x), torch.from_numpy(ei)))
    ours = from_pyg(model)
    assert sorted(ours.state_dict()) == sorted(model.state_dict())
    _close(ours(x, ei), ref)
    with pytest.raises(ValueError, match="step name 'a.b'"):
        Sequential("x", {"a.b": (Linear(2, 2), "x -> x")})
    with pytest.raises(ValueError, match="step name 'state_dict'"):
        Sequential("x", {"state_dict": (Linear(2, 2), "x -> x")})


def test_sequential_unpacks_an_array_output_like_pyg():
    """PyG's compiled forward unpacks ``src, dst = step(...)`` as Python does: a (2, E)
    tensor gives its two rows."""
    model = pyg_nn.Sequential(
        "x, edge_index",
        [
            (lambda edge_index: edge_index, "edge_index -> src, dst"),
            (lambda x, src, dst: x[src] * 2 + x[dst], "x, src, dst -> e"),
        ],
    )
    x = np.random.default_rng(10).normal(size=(4, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 3], [1, 2, 3, 3]])
    with torch.no_grad():
        ref = model(torch.from_numpy(x), torch.from_numpy(ei))
    _close(from_pyg(model)(x, ei), ref)
    native = Sequential(
        "x, edge_index",
        [
            (lambda edge_index: edge_index, "edge_index -> src, dst"),
            (lambda x, src, dst: x[src] * 2 + x[dst], "x, src, dst -> e"),
        ],
    )
    _close(native(x, ei), ref)


def test_converted_sequential_and_bases_models_hold_no_torch_objects():
    seq = pyg_nn.Sequential(
        "x, edge_index, batch",
        [
            (torch.nn.Dropout(0.5), "x -> x"),
            (pyg_nn.GCNConv(3, 4), "x, edge_index -> x1"),
            torch.nn.ReLU(),
            (lambda x1: [x1, x1 * torch.tensor(2.0)], "x1 -> xs"),
            (pyg_nn.JumpingKnowledge("cat"), "xs -> x"),
            (pyg_nn.global_mean_pool, "x, batch -> x"),
        ],
    )
    assert _torch_objects(from_pyg(seq)) == []
    bases = _quiet(
        pyg_nn.to_hetero_with_bases,
        _Bases(pyg_nn.SAGEConv(8, 8), pyg_nn.GraphConv(8, 4)),
        META,
        num_bases=2,
        in_channels={"x": 8},
    )
    x, ei, _ = _hetero_graph(11)
    ew = {k: np.ones((v.shape[1], 1), np.float32) for k, v in ei.items()}
    with torch.no_grad():
        ref = bases(_torch(x), _torch(ei), _torch(ew))  # initialises the lazy linears
    converted = from_pyg(bases)
    assert _torch_objects(converted) == []
    _dicts_close(converted(x, ei, ew), ref)


def test_to_hetero_with_bases_aligns_edge_inputs_and_splits_edge_outputs():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = pyg_nn.GraphConv(3, 4)
            self.lin = torch.nn.Linear(6, 2)

        def forward(self, x, edge_index, edge_attr):
            return self.conv(x, edge_index), self.lin(edge_attr)

    torch.manual_seed(12)
    x, ei, ea = _hetero_graph(12, edge_dim=2)
    ea[("b", "self", "b")] = np.ones((ei[("b", "self", "b")].shape[1], 5), np.float32)
    model = _quiet(
        pyg_nn.to_hetero_with_bases, Net(), META, num_bases=2, in_channels={"edge_attr": 6}
    )
    with torch.no_grad():
        ref_x, ref_e = model(_torch(x), _torch(ei), _torch(ea))
    out_x, out_e = from_pyg(model)(x, ei, ea)
    _dicts_close(out_x, ref_x)
    _dicts_close(out_e, ref_e)
    # a Sequential returns its last step's values, all at that step's level: the edge
    # output here (a step returning a node- and an edge-level value runs per edge type)
    seq = Sequential(
        "x, edge_index, edge_attr",
        {
            "conv": (from_pyg(pyg_nn.GraphConv(3, 4)), "x, edge_index -> h"),
            "lin": (Linear(6, 2), "edge_attr -> e"),
        },
    )
    native = _quiet(to_hetero_with_bases, seq, META, num_bases=2, in_channels={"edge_attr": 6})
    native.load_state_dict(model.state_dict())
    assert sorted(native.state_dict()) == sorted(model.state_dict())
    _dicts_close(native(x, ei, ea), ref_e)


def test_graph_module_parameter_read_directly_and_by_its_module_loads_once():
    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x) @ self.lin.weight + self.lin.bias

    torch.manual_seed(13)
    first, second = torch.fx.symbolic_trace(Tied()), torch.fx.symbolic_trace(Tied())
    program = from_pyg(first)
    program.load_state_dict(second.state_dict())
    x = np.random.default_rng(13).normal(size=(4, 3)).astype(np.float32)
    with torch.no_grad():
        ref = second(torch.from_numpy(x))
    _close(program(x), ref)
    assert sorted(program.state_dict()) == sorted(second.state_dict())


def test_graph_module_container_method_on_an_array_is_named():
    program = from_pyg(_gm(lambda x: x.values()))
    with pytest.raises(TypeError, match="fx node 'values'.*on a ndarray"):
        program(np.ones((2, 2), np.float32))


@pytest.mark.parametrize("aggr", ["mean", "max"])
def test_to_hetero_float64(aggr):
    torch.manual_seed(14)
    x, ei, _ = _hetero_graph(14)
    x = {k: v.astype(np.float64) for k, v in x.items()}
    model = _quiet(pyg_nn.to_hetero, _Skip().double(), META, aggr=aggr).eval()
    with torch.no_grad():
        ref = model(_torch(x), _torch(ei))
    out = from_pyg(model)(x, ei)
    _dicts_close(out, ref, atol=1e-12)
    assert all(v.dtype == np.float64 for v in out.values())


@pytest.mark.parametrize(
    "module",
    [
        torch.nn.Softmax(dim=-1),
        torch.nn.LogSoftmax(dim=1),
        torch.nn.Softmax(),
        torch.nn.Flatten(),
        torch.nn.GELU(approximate="tanh"),
    ],
    ids=lambda m: repr(m),
)
def test_sequential_torch_modules_without_arraygnn_layer_run_traced(module):
    model = pyg_nn.Sequential(
        "x, edge_index", [(pyg_nn.GraphConv(3, 4), "x, edge_index -> x"), module]
    )
    x = np.random.default_rng(15).normal(size=(5, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = model[1](model[0](torch.from_numpy(x), torch.from_numpy(ei)))
    _close(from_pyg(model)(x, ei), ref, atol=1e-6)


def test_sequential_unconvertible_torch_module_names_the_step():
    model = pyg_nn.Sequential("x", [(torch.nn.Linear(3, 3), "x -> x"), torch.nn.RReLU()])
    with pytest.raises(TypeError, match="Sequential step 'module_1'.*RReLU"):
        from_pyg(model)


def test_captured_tensors_are_constants_not_state():
    """A lambda's captured tensor is no parameter: PyG's state dict loads strictly."""
    torch.manual_seed(16)
    w = torch.tensor([1.0, 2.0, 3.0])
    model = pyg_nn.Sequential(
        "x", [(torch.nn.Linear(3, 3), "x -> x"), (lambda x: x * w + torch.ones(3), "x -> x")]
    )
    ours = from_pyg(model)
    assert sorted(ours.state_dict()) == sorted(model.state_dict())
    other = pyg_nn.Sequential("x", [(torch.nn.Linear(3, 3), "x -> x"), (lambda x: x * w, "x -> x")])
    ours.load_state_dict(other.state_dict())
    x = np.random.default_rng(16).normal(size=(2, 3)).astype(np.float32)
    with torch.no_grad():
        ref = other[0](torch.from_numpy(x)) * w + 1
    _close(ours(x), ref)
    assert ours.to("cpu")(x).shape == (2, 3)
