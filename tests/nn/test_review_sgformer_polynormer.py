"""Review tests for SGFormer / Polynormer / QFormer and their private helpers: PyG options
the first test file does not reach (no attention or no GCN layers, a global stage without
attention layers, several heads, beta at its ends, changed norm ``eps`` values, QFormer's
activation spellings and ``norm_first``), batches of narrow or unsigned id types and
equal-size unsorted graphs, and the shared graph's promise that ``propagate(conv, x)`` is
``conv(x, edge_index)`` for every ``GCNConv`` setting."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn
from arraygnn.nn._dense_graphs import DenseGraphs
from arraygnn.nn._shared_graph import SharedGraph

torch = pytest.importorskip("torch")
pyg_attention = pytest.importorskip("torch_geometric.nn.attention")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

N = 24


def _randomised(ref, float64=True, eps=None):
    """``ref`` in eval mode with every parameter from U(-1, 1), random batch-norm statistics
    and (optionally) every norm's ``eps`` changed."""
    torch.manual_seed(0)
    ref = ref.double() if float64 else ref.float()
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
        for m in ref.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.uniform_(-1.0, 1.0)
                m.running_var.uniform_(0.5, 2.0)
                if eps is not None:
                    m.eps = eps[0]
            if isinstance(m, torch.nn.LayerNorm) and eps is not None:
                m.eps = eps[1]
    return ref.eval()


def _pyg(ref, *args):
    default = torch.get_default_dtype()
    float64 = any(p.dtype == torch.float64 for p in ref.parameters())
    torch.set_default_dtype(torch.float64 if float64 else torch.float32)
    try:
        with torch.no_grad():
            tensors = [
                torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iu" else a) for a in args
            ]
            return ref(*tensors).numpy()
    finally:
        torch.set_default_dtype(default)


def _stages(ref):
    return [False, True] if hasattr(ref, "_global") else [None]


def _compare(ref, model, x, edge_index, batch, dtype=np.float64):
    for stage in _stages(ref):
        if stage is not None:
            ref._global = stage
            model.use_global = stage
        expected = _pyg(ref, x, edge_index, batch)
        out = model(x, edge_index, batch)
        assert out.dtype == dtype
        assert rel_err(out, expected) < TOL[dtype], stage


def _inputs(seed=0, index_dtype=np.int64, batch_dtype=np.int64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, 5))
    edge_index = random_graph(rng, N, N, 70, index_dtype, isolated=3)
    batch = rng.integers(0, 4, N).astype(batch_dtype)
    return x, edge_index, batch


# ---- SGFormer: every layer count PyG takes ---------------------------------------------------
def test_sgformer_without_attention_layers_takes_any_heads():
    """PyG checks ``hidden % heads`` only inside ``SGFormerAttention``: with
    ``trans_num_layers=0`` no attention is built and any ``trans_num_heads`` is accepted."""
    ref = _randomised(pyg_models.SGFormer(5, 9, 3, trans_num_layers=0, trans_num_heads=2))
    model = agnn.SGFormer(5, 9, 3, trans_num_layers=0, trans_num_heads=2, dtype=np.float64)
    model.load_state_dict(ref.state_dict())
    _compare(ref, model, *_inputs())
    _compare(ref, agnn.from_pyg(ref), *_inputs())
    with pytest.raises(ValueError, match="divisible by trans_num_heads"):
        agnn.SGFormer(5, 9, 3, trans_num_layers=1, trans_num_heads=2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: pyg_models.SGFormer(5, 8, 3, gnn_num_layers=0, aggregate="cat"),
        lambda: pyg_models.SGFormer(5, 8, 3, 0, 1, gnn_num_layers=0, graph_weight=0.8),
        lambda: pyg_models.SGFormer(5, 8, 3, 3, 4, graph_weight=1.0),
        lambda: pyg_models.SGFormer(5, 8, 3, 1, 2, graph_weight=0.0, aggregate="add"),
    ],
    ids=["no-gnn-cat", "no-layers", "3x4-heads-gw1", "gw0"],
)
def test_sgformer_layer_counts_and_weights(make):
    ref = _randomised(make())
    _compare(ref, agnn.from_pyg(ref), *_inputs(1, np.int32, np.uint8))


# ---- Polynormer: options -----------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: pyg_models.Polynormer(5, 4, 3, 3, 0, heads=2),  # global stage, no attention
        lambda: pyg_models.Polynormer(5, 4, 3, 1, 0, heads=3, local_attn=True, pre_ln=True),
        lambda: pyg_models.Polynormer(5, 6, 3, 2, 3, qk_shared=True, beta=0.0, post_bn=False),
        lambda: pyg_models.Polynormer(5, 6, 3, 1, 1, beta=1.0, pre_ln=True),
        lambda: pyg_models.Polynormer(5, 4, 3, 2, 2, heads=2, local_attn=True),  # local only
    ],
    ids=["gcn-2heads-no-global", "gat-3heads-ln", "shared-beta0", "beta1-ln", "gat-2heads"],
)
def test_polynormer_options(make):
    ref = _randomised(make())
    model = agnn.from_pyg(ref)
    x, edge_index, batch = _inputs(2, np.int32, np.int16)
    heads = ref.global_attn[0].heads if len(ref.global_attn) else 1
    if heads == 1:
        _compare(ref, model, x, edge_index, batch)
    else:  # PyG's global stage fails on the width mismatch; the local one runs
        ref._global = model.use_global = False
        assert rel_err(model(x, edge_index, batch), _pyg(ref, x, edge_index, batch)) < 1e-12


def test_norm_eps_values_are_read():
    """Every LayerNorm / BatchNorm ``eps`` comes from the PyG module, not the default."""
    x, edge_index, batch = _inputs(3)
    for make in (
        lambda: pyg_models.SGFormer(5, 8, 3, trans_num_heads=2),
        lambda: pyg_models.Polynormer(5, 8, 3, 2, 1, pre_ln=True),
        lambda: pyg_models.Polynormer(5, 8, 3, 2, 1, local_attn=True),
    ):
        ref = _randomised(make(), eps=(0.3, 0.7))
        _compare(ref, agnn.from_pyg(ref), x, edge_index, batch)


# ---- batches ------------------------------------------------------------------------------
@pytest.mark.parametrize("batch_dtype", [np.uint8, np.int16, np.uint32])
def test_equal_size_graphs_unsorted(batch_dtype):
    """Graphs of one size (no padding, no mask) given in a shuffled order."""
    rng = np.random.default_rng(4)
    batch = rng.permutation(np.repeat(np.arange(4), N // 4)).astype(batch_dtype)
    x, edge_index, _ = _inputs(4)
    for make in (
        lambda: pyg_models.SGFormer(5, 8, 3, trans_num_heads=2),
        lambda: pyg_models.Polynormer(5, 8, 3, 2, 2),
    ):
        ref = _randomised(make())
        _compare(ref, agnn.from_pyg(ref), x, edge_index, batch)


def test_dense_graphs_leaves_batch_alone_and_round_trips():
    batch = np.array([2, 0, 2, 2, 0], np.int32)
    kept = batch.copy()
    x = np.arange(10.0).reshape(5, 2)
    layout = DenseGraphs("M", batch, x)
    dense, mask = layout.pack(x)
    assert dense.shape == (3, 3, 2) and mask.tolist() == [
        [True, True, False],
        [False, False, False],
        [True, True, True],
    ]
    np.testing.assert_array_equal(layout.unpack(dense), x)
    np.testing.assert_array_equal(batch, kept)


def test_attention_float_mask_equals_bool_mask():
    ref = _randomised(pyg_attention.SGFormerAttention(6, 2, 5, True))
    layer = agnn.from_pyg(ref)
    rng = np.random.default_rng(5)
    x, mask = rng.standard_normal((3, 7, 6)), rng.random((3, 7)) < 0.6
    expected = _pyg(ref, x, mask)
    assert rel_err(layer(x, mask), expected) < 1e-12
    assert rel_err(layer(x, mask.astype(np.float64)), expected) < 1e-12


# ---- QFormer ------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize(
    "activation",
    ["gelu", "relu", torch.nn.functional.gelu, torch.nn.LeakyReLU(0.3), torch.nn.Tanh()],
    ids=["str-gelu", "str-relu", "F.gelu", "leaky", "tanh"],
)
def test_qformer_activations(activation):
    ref = _randomised(pyg_attention.QFormer(8, 16, 4, 2, 2, activation=activation))
    x = np.random.default_rng(6).standard_normal((2, 5, 8))
    assert rel_err(agnn.from_pyg(ref)(x), _pyg(ref, x)) < 1e-12


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_qformer_norm_first_and_eps():
    ref = _randomised(pyg_attention.QFormer(8, 16, 4, 2, 2))
    ref.layer_norm.eps = 0.5
    for layer in ref.encoder.layers:
        layer.norm1.eps, layer.norm2.eps, layer.norm_first = 0.3, 0.2, True
    x = np.random.default_rng(7).standard_normal((5, 8))
    assert rel_err(agnn.from_pyg(ref)(x), _pyg(ref, x)) < 1e-12


# ---- the shared graph ----------------------------------------------------------------------
def _loops_graph():
    """Repeated self-loops, a repeated edge, a node without in-edges, an isolated node."""
    return np.array([[0, 0, 0, 1, 1, 2, 3, 3, 5], [0, 0, 0, 2, 2, 2, 4, 3, 5]])


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"improved": True},
        {"add_self_loops": False, "allow_zero_in_degree": True},
        {"normalize": False, "allow_zero_in_degree": True},
        {"cached": True},
    ],
    ids=["default", "improved", "no-loops", "no-norm", "cached"],
)
def test_shared_graph_propagate_is_the_layer_call(options):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((7, 4))
    edge_index = _loops_graph()
    conv = agnn.GCNConv(4, 3, dtype=np.float64, rng=0, **options)
    graph = SharedGraph("M", x, edge_index)
    expected = agnn.GCNConv(4, 3, dtype=np.float64, rng=0, **options)(x, edge_index)
    np.testing.assert_allclose(graph.propagate(conv, x), expected, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(graph.propagate(conv, x), expected, rtol=1e-13, atol=1e-13)


def test_shared_graph_keeps_the_layers_zero_in_degree_check():
    """``conv(x, edge_index)`` refuses a node without in-edges when the layer adds no
    self-loops and does not allow it; the shared graph must not answer instead."""
    x = np.ones((7, 4))
    conv = agnn.GCNConv(4, 3, add_self_loops=False, dtype=np.float64, rng=0)
    with pytest.raises(ValueError, match="GCNConv"):
        conv(x, _loops_graph())
    with pytest.raises(ValueError, match="GCNConv"):
        SharedGraph("M", x, _loops_graph()).propagate(conv, x)


def test_shared_graph_normalises_in_the_projection_dtype():
    """A float32 ``x`` into a float64 layer: the layer's own call normalises in float64 (its
    projection's dtype); the shared graph gives the same numbers."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((40, 4)).astype(np.float32)
    edge_index = rng.integers(0, 40, (2, 200))
    conv = agnn.GCNConv(4, 3, dtype=np.float64, rng=0)
    out = SharedGraph("M", x, edge_index).propagate(conv, x)
    expected = conv(x, edge_index)
    assert out.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)


def test_batch_on_another_device_is_named(monkeypatch):
    """A CuPy ``batch`` next to NumPy ``x`` (a stand-in CuPy module, as in
    tests/ops/test_ops_errors.py): a ``TypeError`` naming the model and both arguments
    before any work, sorted or not."""
    import sys
    import types

    class FakeCupyArray:
        def __init__(self, a):
            self.dtype, self.shape, self.ndim = a.dtype, a.shape, a.ndim

    fake = types.ModuleType("cupy")
    fake.ndarray = FakeCupyArray
    monkeypatch.setitem(sys.modules, "cupy", fake)
    x, edge_index = np.ones((4, 5), np.float32), np.array([[0], [1]])
    models = (
        agnn.SGFormer(5, 8, 3, rng=0),
        agnn.Polynormer(5, 8, 3, 2, 1, use_global=True, rng=0),
    )
    for model in models:
        name = type(model).__name__
        for ids in ([0, 0, 1, 1], [1, 0, 0, 1]):
            with pytest.raises(TypeError, match=f"{name}: .*batch.* mix NumPy and CuPy"):
                model(x, edge_index, FakeCupyArray(np.array(ids)))


def test_sgformer_branch_activation_is_read():
    """PyG's ``SGModule`` / ``GraphModule`` call their ``activation`` attribute (``F.relu``);
    a PyG model whose branch activation was swapped is not converted as if it were ReLU."""
    x, edge_index, batch = _inputs(10)
    for branch in ("trans_conv", "graph_conv"):
        ref = _randomised(pyg_models.SGFormer(5, 8, 3, trans_num_heads=2))
        getattr(ref, branch).activation = torch.nn.functional.gelu
        with pytest.raises(ValueError, match=f"SGFormer.*{branch}.activation"):
            agnn.from_pyg(ref)
        getattr(ref, branch).activation = torch.relu  # another spelling of ReLU converts
        _compare(ref, agnn.from_pyg(ref), x, edge_index, batch)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_qformer_without_layers_is_a_clear_error():
    """PyG builds ``QFormer(..., num_layers=0)`` but its forward fails (torch's encoder reads
    ``layers[0]``); ``from_pyg`` says so instead of an ``IndexError``."""
    with pytest.raises(ValueError, match="QFormer.*num_layers"):
        agnn.from_pyg(pyg_attention.QFormer(8, 16, 4, 2, 0).eval())
    with pytest.raises(ValueError, match="QFormer: num_layers"):
        agnn.QFormer(8, 16, 4, 2, 0)
