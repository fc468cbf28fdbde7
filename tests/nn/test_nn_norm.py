"""``arraygnn.nn.norm`` against PyG's ``torch_geometric.nn.norm`` in eval mode (weights,
affine parameters and running statistics set randomly, carried over by ``from_pyg``):
float32 / float64, ``batch`` given or None, int32 / int64 ``batch``, graphs of one node,
empty graphs (``batch_size`` above ``batch.max() + 1``), an empty input; inputs left
unchanged; then the argument errors."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_norm = pytest.importorskip("torch_geometric.nn.norm")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn import from_pyg, norm  # noqa: E402

TOL = {np.float32: 1e-5, np.float64: 1e-12}
F = 6


def _randomise(module, seed=0):
    """Every floating parameter and buffer away from PyG's initial values (variances and
    scales positive)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        named = list(module.named_parameters()) + list(module.named_buffers())
        for name, t in named:
            if t is None or not t.is_floating_point():
                continue
            if name.endswith(("running_var", "scale")):
                t.copy_(0.3 + torch.rand(t.shape, generator=gen, dtype=t.dtype))
            else:
                t.copy_(torch.randn(t.shape, generator=gen, dtype=t.dtype))
    return module.eval()


# (id, factory, how it is called): "graph" norm(x, batch, batch_size), "rows" norm(x),
# "sub" norm(x, batch, dim_size), "types" norm(x, type_vec)
CASES = [
    ("batch_norm", lambda: pyg_norm.BatchNorm(F), "rows"),
    ("batch_norm_plain", lambda: pyg_norm.BatchNorm(F, eps=1e-3, affine=False), "rows"),
    ("batch_norm_no_stats", lambda: pyg_norm.BatchNorm(F, track_running_stats=False), "rows"),
    ("batch_norm_single", lambda: pyg_norm.BatchNorm(F, allow_single_element=True), "rows"),
    ("instance_norm", lambda: pyg_norm.InstanceNorm(F), "graph"),
    ("instance_norm_affine", lambda: pyg_norm.InstanceNorm(F, eps=1e-3, affine=True), "graph"),
    (
        "instance_norm_stats",
        lambda: pyg_norm.InstanceNorm(F, affine=True, track_running_stats=True),
        "graph",
    ),
    ("layer_norm_graph", lambda: pyg_norm.LayerNorm(F), "graph"),
    ("layer_norm_plain", lambda: pyg_norm.LayerNorm(F, eps=1e-3, affine=False), "graph"),
    ("layer_norm_node", lambda: pyg_norm.LayerNorm(F, mode="node"), "graph"),
    ("graph_norm", lambda: pyg_norm.GraphNorm(F, eps=1e-4), "graph"),
    ("graph_size_norm", lambda: pyg_norm.GraphSizeNorm(), "graph"),
    ("pair_norm", lambda: pyg_norm.PairNorm(), "graph"),
    ("pair_norm_individual", lambda: pyg_norm.PairNorm(2.5, True, eps=1e-3), "graph"),
    ("mean_subtraction_norm", lambda: pyg_norm.MeanSubtractionNorm(), "sub"),
    ("diff_group_norm", lambda: pyg_norm.DiffGroupNorm(F, 3, lamda=0.3), "rows"),
    ("diff_group_norm_plain", lambda: pyg_norm.DiffGroupNorm(F, 4, affine=False), "rows"),
    (
        "diff_group_norm_no_stats",
        lambda: pyg_norm.DiffGroupNorm(F, 2, lamda=0.5, track_running_stats=False),
        "rows",
    ),
    ("hetero_batch_norm", lambda: pyg_norm.HeteroBatchNorm(F, 5), "types"),
    (
        "hetero_batch_norm_no_stats",
        lambda: pyg_norm.HeteroBatchNorm(F, 5, eps=1e-3, track_running_stats=False),
        "types",
    ),
    ("hetero_layer_norm", lambda: pyg_norm.HeteroLayerNorm(F, 5), "types"),
    ("hetero_layer_norm_plain", lambda: pyg_norm.HeteroLayerNorm(F, 5, affine=False), "types"),
]


def _layouts():
    """``(id, batch or None, batch_size or None)`` over 11 rows (unsorted ids, a graph of
    one node, empty graphs in the middle and at the end) and the all-singletons case."""
    rng = np.random.default_rng(3)
    ids = rng.permutation(np.array([0] * 4 + [1] + [3] * 6))
    return [
        ("none", None, None),
        ("batch", ids, None),
        ("batch_size_above_max", ids, 6),
        ("one_node_graphs", np.arange(11)[::-1].copy(), 11),
    ]


def _x(n, dtype, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, F)) * 2 + rng.normal(size=F)).astype(dtype)


def _run_pyg(module, kind, x, batch, batch_size):
    xt = torch.from_numpy(x)
    bt = None if batch is None else torch.from_numpy(batch.astype(np.int64))
    with torch.no_grad():
        if kind == "rows":
            return module(xt).numpy()
        if kind == "sub":
            return module(xt, bt, dim_size=batch_size).numpy()
        if kind == "types":
            return module(xt, bt).numpy()
        return module(xt, bt, batch_size).numpy()


def _run_ours(layer, kind, x, batch, batch_size):
    if kind == "rows":
        return layer(x)
    if kind == "sub":
        return layer(x, batch, dim_size=batch_size)
    if kind == "types":
        return layer(x, batch)
    return layer(x, batch, batch_size)


def _compare(got, want, dtype):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert np.isfinite(got).all()
    assert rel_err(got, want) <= TOL[dtype], rel_err(got, want)


def _combinations():
    """Each case with the layouts it takes: a row-wise norm (no batch) once, a type-wise
    one with type ids in ``[0, 5)`` (some unused; no ``batch_size``)."""
    out = []
    for case in CASES:
        for layout in _layouts():
            name, batch, size = layout
            if case[2] == "rows" and name != "none":
                continue
            if case[2] == "types":
                if name == "batch_size_above_max":
                    continue
                batch = np.arange(11) % 3 if batch is None else batch % 5
            out.append(pytest.param(case, (name, batch, size), id=f"{case[0]}-{name}"))
    return out


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("case", "layout"), _combinations())
def test_matches_pyg(case, layout, dtype, index_dtype):
    name, factory, kind = case
    _, batch, batch_size = layout
    module = _randomise(factory(), seed=len(name))
    if dtype == np.float64:
        module = module.double()
    layer = from_pyg(module)
    assert isinstance(layer, getattr(norm, type(module).__name__))
    assert layer.dtype is None or layer.dtype == np.dtype(dtype)
    x = _x(11, dtype)
    if batch is not None:
        batch = batch.astype(index_dtype)
    x0, b0 = x.copy(), None if batch is None else batch.copy()
    want = _run_pyg(module, kind, x, batch, batch_size)
    got = _run_ours(layer, kind, x, batch, batch_size)
    _compare(got, want, dtype)
    np.testing.assert_array_equal(x, x0)
    if batch is not None:
        np.testing.assert_array_equal(batch, b0)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_empty_input(case):
    """No rows (and, for the per-graph norms, two empty graphs): an empty result, quietly."""
    name, factory, kind = case
    module = _randomise(factory(), seed=len(name))
    layer = from_pyg(module)
    x = np.zeros((0, F), np.float32)
    batch = np.zeros(0, np.int64)
    want = _run_pyg(module, kind, x, batch, 2)
    with np.errstate(all="raise"):
        got = _run_ours(layer, kind, x, batch, 2)
        assert got.shape == want.shape == (0, F)
        if kind == "graph":
            assert _run_ours(layer, kind, x, None, None).shape == (0, F)


def test_hetero_layer_norm_type_ptr():
    module = _randomise(pyg_norm.HeteroLayerNorm(F, 3), seed=2)
    layer = from_pyg(module)
    x = _x(7, np.float32)
    ptr = [0, 3, 3, 7]
    with torch.no_grad():
        want = module(torch.from_numpy(x), type_ptr=torch.tensor(ptr)).numpy()
    _compare(layer(x, type_ptr=np.array(ptr)), want, np.float32)
    _compare(layer(x, type_ptr=ptr), want, np.float32)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_message_norm(p, dtype):
    module = _randomise(pyg_norm.MessageNorm(learn_scale=True), seed=4)
    if dtype == np.float64:
        module = module.double()
    layer = from_pyg(module)
    assert layer.learn_scale and layer.scale.shape == (1,)
    x, msg = _x(9, dtype, 5), _x(9, dtype, 6)
    msg[2] = 0  # an all-zero message: F.normalize's 1e-12 guard
    x0, m0 = x.copy(), msg.copy()
    with torch.no_grad():
        want = module(torch.from_numpy(x), torch.from_numpy(msg), p=p).numpy()
    _compare(layer(x, msg, p=p), want, dtype)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(msg, m0)


def test_state_dict_names_match_pyg():
    for _, factory, _ in CASES:
        module = factory()
        ours = from_pyg(module).state_dict()
        theirs = {k for k in module.state_dict() if not k.endswith("num_batches_tracked")}
        assert set(ours) == theirs, (type(module).__name__, sorted(ours), sorted(theirs))


def test_single_row_without_running_statistics_is_refused_as_in_torch():
    x = _x(1, np.float32)
    for module, call in [
        (pyg_norm.BatchNorm(F, track_running_stats=False), lambda m, a: m(a)),
        (pyg_norm.InstanceNorm(F), lambda m, a: m(a)),
        (pyg_norm.DiffGroupNorm(F, 2, track_running_stats=False), lambda m, a: m(a)),
    ]:
        module.eval()
        with pytest.raises(ValueError), torch.no_grad():
            call(module, torch.from_numpy(x))
        with pytest.raises(ValueError, match=type(module).__name__):
            call(from_pyg(module), x)
    # with a batch vector, one node per graph is fine (variance 0)
    module = pyg_norm.InstanceNorm(F).eval()
    with torch.no_grad():
        want = module(torch.from_numpy(x), torch.zeros(1, dtype=torch.long)).numpy()
    _compare(from_pyg(module)(x, np.zeros(1, np.int32)), want, np.float32)


def test_nn_exports_keep_torch_style_names():
    assert agnn.BatchNorm is not norm.BatchNorm
    assert agnn.LayerNorm is not norm.LayerNorm
    for name in ("GraphNorm", "PairNorm", "InstanceNorm", "GraphSizeNorm", "MessageNorm"):
        assert getattr(agnn, name) is getattr(norm, name)
    for name in ("DiffGroupNorm", "MeanSubtractionNorm"):
        assert getattr(agnn, name) is getattr(norm, name)


# ---- errors ---------------------------------------------------------------------------
def _graph_layers():
    return [
        norm.InstanceNorm(F),
        norm.LayerNorm(F),
        norm.GraphNorm(F),
        norm.GraphSizeNorm(),
        norm.PairNorm(),
    ]


def test_bad_batch_errors_name_layer_and_argument():
    x = _x(4, np.float32)
    for layer in _graph_layers():
        name = type(layer).__name__
        with pytest.raises(TypeError, match=f"{name}.*batch must be an integer"):
            layer(x, np.zeros(4, np.float32))
        with pytest.raises(ValueError, match=f"{name}.*batch must have shape"):
            layer(x, np.zeros(3, np.int64))
        with pytest.raises(ValueError, match=f"{name}.*batch has a negative entry"):
            layer(x, np.array([0, -1, 0, 0]))
        with pytest.raises(ValueError, match=f"{name}.*batch_size=2 is too small"):
            layer(x, np.array([0, 1, 2, 0]), 2)
        with pytest.raises(TypeError, match=f"{name}.*batch_size must be a non-negative int"):
            layer(x, np.array([0, 1, 2, 0]), 2.0)
        with pytest.raises(TypeError, match=f"{name}.*batch must be a NumPy or CuPy"):
            layer(x, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="MeanSubtractionNorm.*dim_size=1 is too small"):
        norm.MeanSubtractionNorm()(x, np.array([0, 1, 0, 0]), dim_size=1)
    with pytest.raises(ValueError, match="HeteroBatchNorm.*type_vec has id 3"):
        norm.HeteroBatchNorm(F, 3)(x, np.array([0, 3, 0, 0]))
    with pytest.raises(TypeError, match="HeteroBatchNorm.*type_vec .*required"):
        norm.HeteroBatchNorm(F, 3)(x, None)
    with pytest.raises(ValueError, match="HeteroLayerNorm.*type_vec or type_ptr"):
        norm.HeteroLayerNorm(F, 3)(x)
    with pytest.raises(ValueError, match="HeteroLayerNorm.*type_ptr must rise from 0"):
        norm.HeteroLayerNorm(F, 3)(x, type_ptr=np.array([0, 2, 3]))


def test_bad_x_errors_name_layer():
    layers = _graph_layers() + [
        norm.BatchNorm(F),
        norm.DiffGroupNorm(F, 2),
        norm.MeanSubtractionNorm(),
        norm.HeteroLayerNorm(F, 2),
    ]
    for layer in layers:
        name = type(layer).__name__
        args = (np.zeros(3, np.int64),) if name == "HeteroLayerNorm" else ()
        with pytest.raises(TypeError, match=name):
            layer(torch.zeros(3, F), *args)
        with pytest.raises(TypeError, match=f"{name}.*floating"):
            layer(np.zeros((3, F), np.int64), *args)
        if getattr(layer, "in_channels", None) is not None:
            with pytest.raises(ValueError, match=f"{name} input: expected last dimension {F}"):
                layer(np.zeros((3, F + 1), np.float32), *args)
    with pytest.raises(ValueError, match="MessageNorm.*same rows"):
        norm.MessageNorm()(np.ones((3, 2)), np.ones((4, 2)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="LayerNorm: mode must be 'graph' or 'node'"):
        norm.LayerNorm(F, mode="nodes")
    with pytest.raises(ValueError, match="BatchNorm: allow_single_element"):
        norm.BatchNorm(F, track_running_stats=False, allow_single_element=True)
    with pytest.raises(TypeError, match="GraphNorm: in_channels must be an int"):
        norm.GraphNorm(2.5)
    with pytest.raises(TypeError, match="PairNorm: eps must be a number"):
        norm.PairNorm(eps="1")
    with pytest.raises(ValueError, match="DiffGroupNorm: groups must be in"):
        norm.DiffGroupNorm(F, 0)
    with pytest.raises(ValueError, match="HeteroLayerNorm: mode must be 'node'"):
        norm.HeteroLayerNorm(F, 2, mode="graph")
