"""arraygnn.nn.models (PyG's BasicGNN family) against torch_geometric.nn.models, weights
converted with from_pyg or loaded by name into a natively built model."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from arraygnn.nn import GAT, GCN, GIN, PNA, EdgeCNN, GraphSAGE, JumpingKnowledge, from_pyg
from tests.nn._nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

IN, HID, EDGE_DIM = 5, 8, 3
OURS = {"GCN": GCN, "GraphSAGE": GraphSAGE, "GIN": GIN, "GAT": GAT, "PNA": PNA, "EdgeCNN": EdgeCNN}
DEG = torch.tensor([1, 3, 4, 2, 1])


def _conv_kwargs(name, variant):
    """PyG conv kwargs per model; ``variant`` picks a second setting."""
    if name == "GCN":
        return {"improved": True} if variant else {}
    if name == "GraphSAGE":
        return {"aggr": "max", "project": True} if variant else {"aggr": "sum"}
    if name == "GIN":
        return {"train_eps": True, "eps": 0.3} if variant else {}
    if name == "GAT":
        return {"v2": True, "heads": 2, "edge_dim": EDGE_DIM} if variant else {"heads": 2}
    if name == "PNA":
        kw = {"aggregators": ["mean", "max", "std"], "scalers": ["identity", "amplification"]}
        kw.update(deg=DEG, edge_dim=EDGE_DIM if variant else None, towers=2 if variant else 1)
        return kw
    return {"aggr": "mean"} if variant else {}


def _randomise(model, gen):
    """Random weights and running statistics (eval mode), so norms and eps matter."""
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.as_tensor(gen.normal(0, 0.5, tuple(p.shape))))
        for name, b in model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(torch.as_tensor(gen.normal(0, 0.5, tuple(b.shape))))
            elif name.endswith("running_var"):
                b.copy_(torch.as_tensor(gen.uniform(0.5, 2.0, tuple(b.shape))))
    return model.eval()


def _pyg(name, num_layers, out, jk, norm, act, variant, dtype, gen, act_first=False):
    cls = getattr(pyg_models, name)
    act_kwargs = {"negative_slope": 0.3} if act == "leaky_relu" else None
    model = cls(
        IN, HID, num_layers, out, dropout=0.5, act=act, act_first=act_first,
        act_kwargs=act_kwargs, norm=norm, jk=jk, **_conv_kwargs(name, variant),
    )  # fmt: skip
    return _randomise(model.to(torch.float64 if dtype == np.float64 else torch.float32), gen)


def _inputs(gen, dtype, index_dtype, num_nodes=9, num_edges=None):
    x = gen.normal(size=(num_nodes, IN)).astype(dtype)
    ei = random_graph(gen, num_nodes, num_edges=num_edges, index_dtype=index_dtype)
    ew = gen.uniform(0.2, 1.5, ei.shape[1]).astype(dtype)
    ea = gen.normal(size=(ei.shape[1], EDGE_DIM)).astype(dtype)
    return x, ei, ew, ea


def _ref(model, x, ei, ew, ea, batch=None, batch_size=None):
    t = torch.as_tensor
    kw = {"edge_weight": t(ew), "edge_attr": None if ea is None else t(ea)}
    if batch is not None:
        kw.update(batch=t(batch), batch_size=batch_size)
    with torch.no_grad():
        return model(t(x), t(ei.astype(np.int64)), **kw).numpy()


@pytest.mark.parametrize("name", list(OURS))
@pytest.mark.parametrize(
    "num_layers,out,jk,norm,act,variant",
    [
        (1, None, None, None, "relu", False),
        (2, 4, None, "batch_norm", "elu", True),
        (3, None, "last", None, "leaky_relu", False),
        (2, 4, "cat", "batch_norm", "relu", True),
        (3, 4, "max", "batch_norm", "leaky_relu", False),
        (2, 3, "lstm", None, "elu", True),
    ],
)
def test_from_pyg_matches(name, num_layers, out, jk, norm, act, variant):
    # a seed per case that does not change with PYTHONHASHSEED (hash() of a str does)
    gen = np.random.default_rng(zlib.crc32(f"{name}-{num_layers}-{jk}".encode()))
    for dtype, index_dtype in ((np.float32, np.int64), (np.float64, np.int32)):
        model = _pyg(name, num_layers, out, jk, norm, act, variant, dtype, gen)
        ours = from_pyg(model)
        assert type(ours).__name__ == name
        x, ei, ew, ea = _inputs(gen, dtype, index_dtype)
        if name == "PNA" and not variant:
            ea = None  # PyG's PNAConv without edge_dim fails on edge features
        before = [a.copy() for a in (x, ei, ew, ea) if a is not None]
        got = ours(x, ei, edge_weight=ew, edge_attr=ea)
        expected = _ref(model, x, ei, ew, ea)
        assert got.dtype == dtype
        # PNA's std (sqrt(E[x^2] - E[x]^2 + 1e-5)) cancels in float32 on both sides
        tol = 1e-4 if name == "PNA" and dtype == np.float32 else TOL[dtype]
        assert rel_err(got, expected) < tol
        for a, b in zip((x, ei, ew, ea), before):  # ea last: zip stops before a None
            np.testing.assert_array_equal(a, b)
        # PyG's state-dict names, every one (num_batches_tracked carries nothing)
        names = {k for k in model.state_dict() if not k.endswith("num_batches_tracked")}
        assert set(ours.state_dict()) == names


@pytest.mark.parametrize("name", list(OURS))
def test_native_model_loads_pyg_state_dict(name):
    """The model built from PyG's constructor arguments has PyG's names and shapes; with
    PyG's weights loaded by name it computes PyG's numbers (act_first too)."""
    gen = np.random.default_rng(7)
    model = _pyg(name, 3, 4, "cat", "batch_norm", "relu", True, np.float32, gen, act_first=True)
    kw = _conv_kwargs(name, True)
    if name == "PNA":
        kw["deg"] = DEG.numpy()
    ours = OURS[name](IN, HID, 3, 4, act="relu", act_first=True, norm="batch_norm", jk="cat", **kw)
    theirs = {k: v for k, v in model.state_dict().items() if "num_batches" not in k}
    assert {k: v.shape for k, v in ours.state_dict().items()} == {
        k: tuple(v.shape) for k, v in theirs.items()
    }
    ours.load_state_dict(model.state_dict())
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    assert rel_err(ours(x, ei, ew, ea), _ref(model, x, ei, ew, ea)) < 1e-5


@pytest.mark.parametrize("name", ["GCN", "GAT", "GraphSAGE", "EdgeCNN"])
def test_empty_graph_and_batch_arguments(name):
    gen = np.random.default_rng(3)
    model = _pyg(name, 2, 3, "max", "batch_norm", "relu", False, np.float32, gen)
    ours = from_pyg(model)
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64, num_nodes=6, num_edges=0)
    assert rel_err(ours(x, ei, ew, ea), _ref(model, x, ei, ew, ea)) < 1e-5
    # batch / batch_size reach only norms that take them (PyG's supports_norm_batch)
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    batch = np.repeat(np.arange(3), 3)
    got = ours(x, ei, ew, ea, batch=batch, batch_size=3)
    assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5


def test_gat_last_layer_averages_heads_and_weights_only_reach_their_models():
    gen = np.random.default_rng(5)
    model = _pyg("GAT", 2, 3, None, None, "relu", False, np.float32, gen)  # heads=2, out=3
    assert model.convs[-1].concat is False
    ours = from_pyg(model)
    assert (
        ours.convs[1].concat is False
        and ours(*_inputs(gen, np.float32, np.int64)[:2]).shape[1] == 3
    )
    # GraphSAGE ignores edge_weight / edge_attr (as PyG); GCN uses edge_weight
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    sage = from_pyg(_pyg("GraphSAGE", 2, 3, None, None, "relu", False, np.float32, gen))
    np.testing.assert_array_equal(sage(x, ei, ew, ea), sage(x, ei))
    gcn_pyg = _pyg("GCN", 2, 3, None, None, "relu", False, np.float32, gen)
    gcn = from_pyg(gcn_pyg)
    assert rel_err(gcn(x, ei, ew), _ref(gcn_pyg, x, ei, ew, ea)) < 1e-5
    assert rel_err(gcn(x, ei), gcn(x, ei, ew)) > 1e-3


@pytest.mark.parametrize("mode", ["cat", "max", "lstm"])
def test_jumping_knowledge(mode):
    jk_cls = pytest.importorskip("torch_geometric.nn").JumpingKnowledge
    gen = np.random.default_rng(11)
    theirs = _randomise(jk_cls(mode, 4, 3).double(), gen)
    ours = JumpingKnowledge(mode, 4, 3, dtype=np.float64)
    ours.load_state_dict(theirs.state_dict())
    xs = [gen.normal(size=(6, 4)) for _ in range(3)]
    with torch.no_grad():
        expected = theirs([torch.as_tensor(x) for x in xs]).numpy()
    assert rel_err(ours(xs), expected) < 1e-12
    assert set(ours.state_dict()) == set(theirs.state_dict())
    converted = from_pyg(theirs)  # PyG's JumpingKnowledge on its own converts too
    assert isinstance(converted, JumpingKnowledge) and converted.mode == mode
    assert rel_err(converted(xs), expected) < 1e-12


def test_norms_other_than_batch_norm_convert_or_refuse():
    """PyG norms: converted (and then equal to PyG's) where arraygnn has them, GIN /
    EdgeCNN's MLP norms too."""
    gen = np.random.default_rng(13)
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    batch = np.repeat(np.arange(3), 3)
    for norm in ("layer_norm", "graph_norm", "instance_norm", "pair_norm"):
        model = _pyg("GraphSAGE", 2, 3, "cat", norm, "relu", False, np.float32, gen)
        got = from_pyg(model)(x, ei, batch=batch, batch_size=3)
        assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5, norm
        # GIN / EdgeCNN put the norm inside their MLPs too (run there without batch)
        for name in ("GIN", "EdgeCNN"):
            model = _pyg(name, 2, 3, "cat", norm, "relu", False, np.float32, gen)
            got = from_pyg(model)(x, ei, batch=batch, batch_size=3)
            assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5, (name, norm)


@pytest.mark.parametrize(
    "name,norm",
    [
        ("GCN", "BatchNorm"),
        ("GIN", "BatchNorm"),
        ("EdgeCNN", "batch-norm"),
        ("GraphSAGE", "batchnorm"),
        ("GCN", "LayerNorm"),
        ("GAT", "graph"),
        ("GraphSAGE", "Instance_Norm"),
    ],
)
def test_norm_names_spelled_as_pyg_resolver_takes_them(name, norm):
    """PyG's normalization_resolver takes 'batch_norm', 'BatchNorm', 'batchnorm', 'batch'
    (and so on): the models built here take the same names (GIN / EdgeCNN's MLPs too)."""
    gen = np.random.default_rng(19)
    model = _pyg(name, 2, 4, "cat", norm, "relu", False, np.float32, gen)
    ours = OURS[name](IN, HID, 2, 4, norm=norm, jk="cat", **_conv_kwargs(name, False))
    ours.load_state_dict(model.state_dict())
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    batch = np.repeat(np.arange(3), 3)
    got = ours(x, ei, ew, ea, batch=batch, batch_size=3)
    assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5


@pytest.mark.parametrize("norm", ["layer_norm", "graph_norm", "instance_norm"])
def test_native_model_with_graph_norms(norm):
    """A model built with another PyG norm name has PyG's state-dict names and numbers."""
    gen = np.random.default_rng(17)
    model = _pyg("GCN", 3, 4, "max", norm, "relu", False, np.float32, gen)
    ours = GCN(IN, HID, 3, 4, norm=norm, jk="max")
    theirs = {k for k in model.state_dict() if "num_batches" not in k}
    assert set(ours.state_dict()) == theirs
    ours.load_state_dict(model.state_dict())
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    batch = np.repeat(np.arange(3), 3)
    got = ours(x, ei, ew, batch=batch, batch_size=3)
    assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5


@pytest.mark.parametrize(
    "norm,norm_kwargs", [("pair_norm", None), ("DiffGroupNorm", {"groups": 3, "lamda": 0.5})]
)
def test_native_model_with_pair_and_diff_group_norm(norm, norm_kwargs):
    """The other norms PyG's resolver builds and runs in a model: PairNorm (whose ``scale``
    PyG fills with hidden_channels, its first argument) and DiffGroupNorm (``groups``)."""
    gen = np.random.default_rng(23)
    model = pyg_models.GCN(IN, HID, 3, 4, norm=norm, norm_kwargs=norm_kwargs, jk="cat")
    model = _randomise(model, gen)
    ours = GCN(IN, HID, 3, 4, norm=norm, norm_kwargs=norm_kwargs, jk="cat")
    assert set(ours.state_dict()) == {k for k in model.state_dict() if "num_batches" not in k}
    ours.load_state_dict(model.state_dict())
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    batch = np.array([2, 0, 1, 0, 2, 1, 0, 2, 1])  # unsorted
    got = ours(x, ei, ew, batch=batch, batch_size=3)
    assert rel_err(got, _ref(model, x, ei, ew, ea, batch, 3)) < 1e-5


@pytest.mark.parametrize("name", ["GIN", "EdgeCNN"])
@pytest.mark.parametrize(
    "norm,norm_kwargs",
    [
        ("layer_norm", None),
        ("LayerNorm", {"mode": "node"}),
        ("graph_norm", None),
        ("instance_norm", {"affine": True}),
        ("pair_norm", None),
        ("batch_norm", {"eps": 0.1}),
    ],
)
def test_gin_edgecnn_built_with_norms_in_their_mlps(name, norm, norm_kwargs):
    """GIN / EdgeCNN built with a PyG norm (the model's and its MLPs') have PyG's names and,
    PyG's weights loaded, PyG's numbers with and without ``batch`` (float32 and float64)."""
    gen = np.random.default_rng(zlib.crc32(f"{name}-{norm}".encode()))
    for dtype, tdtype in ((np.float32, torch.float32), (np.float64, torch.float64)):
        cls = getattr(pyg_models, name)
        model = cls(IN, HID, 3, 4, norm=norm, norm_kwargs=norm_kwargs, jk="cat", act_first=True)
        model = _randomise(model.to(tdtype), gen)
        ours = OURS[name](
            IN, HID, 3, 4, norm=norm, norm_kwargs=norm_kwargs, jk="cat", act_first=True, dtype=dtype
        )
        theirs = {k for k in model.state_dict() if "num_batches" not in k}
        assert set(ours.state_dict()) == theirs
        ours.load_state_dict(model.state_dict())
        converted = from_pyg(model)
        x, ei, ew, ea = _inputs(gen, dtype, np.int64)
        batch = np.array([2, 0, 1, 0, 2, 1, 0, 2, 1])
        for b, size in ((None, None), (batch, 3)):
            expected = _ref(model, x, ei, ew, ea, b, size)
            for layer in (ours, converted):
                got = layer(x, ei, batch=b, batch_size=size)
                assert got.dtype == dtype
                assert rel_err(got, expected) < 10 * TOL[dtype], (name, norm, dtype)


def test_norm_given_as_a_torch_module_keeps_its_pyg_names():
    """A norm passed as a module (torch's BatchNorm1d) is not PyG's BatchNorm wrapper: the
    converted model's names stay ``norms.0.weight``, as in the PyG model's state dict."""
    gen = np.random.default_rng(29)
    model = _randomise(pyg_models.GCN(IN, HID, 3, 4, norm=torch.nn.BatchNorm1d(HID)), gen)
    ours = from_pyg(model)
    assert set(ours.state_dict()) == {k for k in model.state_dict() if "num_batches" not in k}
    x, ei, ew, ea = _inputs(gen, np.float32, np.int64)
    assert rel_err(ours(x, ei, ew), _ref(model, x, ei, ew, ea)) < 1e-5


def test_errors_name_model_and_argument():
    with pytest.raises(ValueError, match="GAT.*divisible by heads"):
        GAT(IN, 7, 2, heads=2)
    with pytest.raises(ValueError, match="GraphSAGE: jk"):
        GraphSAGE(IN, HID, 2, jk="sum")
    with pytest.raises(ValueError, match="GIN: norm"):
        GIN(IN, HID, 2, norm="MessageNorm")
    with pytest.raises(ValueError, match="EdgeCNN: .*norm_kwargs"):
        EdgeCNN(IN, HID, 2, norm="layer_norm", norm_kwargs={"bad": 1})
    with pytest.raises(ValueError, match="GCN: act"):
        GCN(IN, HID, 2, act="prelu")
    with pytest.raises(ValueError, match="GCN: num_layers"):
        GCN(IN, HID, 0)
    model = GraphSAGE(IN, HID, 2, rng=0)
    with pytest.raises(ValueError, match="GraphSAGE: x has 4 features.*in_channels=5"):
        model(np.ones((3, 4), np.float32), np.zeros((2, 0), np.int64))
    with pytest.raises(TypeError, match="GraphSAGE: x must be"):
        model(np.ones(3, np.float32), np.zeros((2, 0), np.int64))
    pyg = pyg_models.GCN(IN, HID, 2, act=torch.nn.PReLU())
    with pytest.raises(ValueError, match="from_pyg: GCN act"):
        from_pyg(pyg)
    with pytest.raises(ValueError, match="JumpingKnowledge: mode"):
        JumpingKnowledge("mean")
