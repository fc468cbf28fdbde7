"""SGFormerAttention, PolynormerAttention, QFormer, SGFormer and Polynormer against PyG 2.8
(weights through ``from_pyg``, eval mode; float32 within 1e-5 relative, float64 within 1e-12)
on padded batches with masks, on random multigraphs with self-loops, repeated edges and
isolated nodes, int32 / int64 ids, sorted and shuffled batches, one graph, a batch with a
missing graph id, no edges; Polynormer in both stages; state dicts; errors naming the
layer; inputs left unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_attention = pytest.importorskip("torch_geometric.nn.attention")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

DTYPES = [np.float32, np.float64]
N = 30


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _run(module, *args):
    """PyG's output; a float64 module runs with float64 as torch's default dtype (PyG's
    ``SGFormerAttention`` makes its ``torch.ones`` in the default dtype)."""
    float64 = any(p.dtype == torch.float64 for p in module.parameters())
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64 if float64 else torch.float32)
    try:
        with torch.no_grad():
            return module(*[_t(a) for a in args]).numpy()
    finally:
        torch.set_default_dtype(default)


def _converted(make, dtype):
    """``(PyG module in eval mode, arraygnn layer)``: every parameter drawn from U(-1, 1),
    batch-norm running statistics random, converted by ``from_pyg``; state-dict names must
    be PyG's."""
    torch.manual_seed(0)
    ref = make().to(torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        for p in ref.parameters():
            p.uniform_(-1.0, 1.0)
        for m in ref.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.uniform_(-1.0, 1.0)
                m.running_var.uniform_(0.5, 2.0)
    ref.eval()
    layer = agnn.from_pyg(ref)
    expected = {k for k in ref.state_dict() if not k.endswith("num_batches_tracked")}
    assert set(layer.state_dict()) == expected
    return ref, layer


def _close(actual, expected, dtype):
    assert actual.dtype == dtype
    assert rel_err(actual, expected) < TOL[dtype]


def _padded(rng, dtype, sizes=(7, 4, 1)):
    """``x`` ``[B, N_max, 8]`` and its mask (graphs of ``sizes`` nodes)."""
    x = rng.standard_normal((len(sizes), max(sizes), 8)).astype(dtype)
    mask = np.arange(max(sizes))[None, :] < np.array(sizes)[:, None]
    return x, mask


# ---- the attention pieces ---------------------------------------------------------------
ATTENTIONS = [
    ("sg-1", lambda: pyg_attention.SGFormerAttention(8, 1, 6)),
    ("sg-2-bias", lambda: pyg_attention.SGFormerAttention(8, 2, 4, qkv_bias=True)),
    ("sg-4-none", lambda: pyg_attention.SGFormerAttention(8, 4, None)),
    ("poly-shared", lambda: pyg_attention.PolynormerAttention(8, 1, 6)),
    ("poly-2-q", lambda: pyg_attention.PolynormerAttention(8, 2, 4, 0.5, True, False)),
    ("poly-3-beta", lambda: pyg_attention.PolynormerAttention(8, 3, 2, beta=0.1)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("case", ATTENTIONS, ids=[c[0] for c in ATTENTIONS])
def test_attention_matches_pyg(case, masked, dtype):
    ref, layer = _converted(case[1], dtype)
    x, mask = _padded(np.random.default_rng(1), dtype)
    before = x.copy()
    if masked:
        expected, out = _run(ref, x, mask), layer(x, mask)
    else:
        expected, out = _run(ref, x), layer(x)
    _close(out, expected, dtype)
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("case", ATTENTIONS, ids=[c[0] for c in ATTENTIONS])
def test_attention_zero_rows_and_one_node(case):
    """Rows of zeros (a zero projection without bias: PyG's epsilon rule) and N = 1."""
    ref, layer = _converted(case[1], np.float64)
    for x in (np.zeros((2, 3, 8)), np.ones((1, 1, 8))):
        _close(layer(x), _run(ref, x), np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "make",
    [
        lambda: pyg_attention.QFormer(8, 16, 4, 2, 1),
        lambda: pyg_attention.QFormer(8, 12, 5, 4, 3, activation=torch.nn.GELU()),
    ],
    ids=["relu-1", "gelu-3"],
)
def test_qformer_matches_pyg(make, dtype):
    ref, layer = _converted(make, dtype)
    rng = np.random.default_rng(2)
    for x in (rng.standard_normal((3, 5, 8)), rng.standard_normal((6, 8))):
        x = x.astype(dtype)
        _close(layer(x), _run(ref, x), dtype)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_qformer_unsupported_activation():
    ref = pyg_attention.QFormer(8, 16, 4, 2, 1, activation=torch.nn.RReLU())
    with pytest.raises(ValueError, match="QFormer activation"):
        agnn.from_pyg(ref)


# ---- the models ---------------------------------------------------------------------------
def _graph(rng, kind, index_dtype):
    """``kind``: 'multi' (self-loops, a repeated edge, nodes without in-edges), 'isolated'
    (the last 6 nodes touch no edge) or 'empty' (no edges)."""
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    if kind == "isolated":
        return random_graph(rng, N - 6, N - 6, 70, index_dtype, isolated=1)
    return random_graph(rng, N, N, 90, index_dtype, isolated=3)


def _batch(rng, kind):
    if kind == "sorted":
        return np.sort(rng.integers(0, 4, N))
    if kind == "shuffled":
        return rng.integers(0, 4, N)
    if kind == "gap":  # graph 1 has no node
        return np.sort(rng.choice([0, 2, 3], N))
    return np.zeros(N, np.int64)  # one graph


MODELS = [
    ("sg-add", lambda: pyg_models.SGFormer(5, 8, 3, trans_num_heads=2, graph_weight=0.3)),
    ("sg-cat", lambda: pyg_models.SGFormer(5, 8, 4, 1, 1, gnn_num_layers=2, aggregate="cat")),
    ("poly-gcn", lambda: pyg_models.Polynormer(5, 8, 3, local_layers=3)),
    (
        "poly-ln-shared",
        lambda: pyg_models.Polynormer(5, 6, 3, 2, 3, qk_shared=True, pre_ln=True, post_bn=False),
    ),
    ("poly-gat", lambda: pyg_models.Polynormer(5, 8, 3, 2, 1, local_attn=True, beta=0.6)),
    ("poly-gat-2", lambda: pyg_models.Polynormer(5, 4, 3, 2, 0, heads=2, local_attn=True)),
]


def _stages(ref):
    """Polynormer: both stages (the global one needs heads=1); SGFormer: one."""
    if not hasattr(ref, "_global"):
        return [None]
    heads = ref.global_attn[0].heads if len(ref.global_attn) else 1
    return [False, True] if heads == 1 else [False]


def _set_stage(ref, layer, stage):
    if stage is not None:
        ref._global = stage
        layer.use_global = stage


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("case", MODELS, ids=[c[0] for c in MODELS])
def test_model_matches_pyg(case, kind, index_dtype, dtype):
    ref, model = _converted(case[1], dtype)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N, 5)).astype(dtype)
    edge_index = _graph(rng, kind, index_dtype)
    batch = _batch(rng, "shuffled")
    copies = (x.copy(), edge_index.copy(), batch.copy())
    for stage in _stages(ref):
        _set_stage(ref, model, stage)
        _close(model(x, edge_index, batch), _run(ref, x, edge_index, batch), dtype)
    for given, kept in zip((x, edge_index, batch), copies):
        np.testing.assert_array_equal(given, kept)
        assert given.dtype == kept.dtype


@pytest.mark.parametrize(
    "batch_kind, batch_dtype",
    [("sorted", np.int64), ("shuffled", np.int32), ("gap", np.int32), ("one", np.int64)],
)
@pytest.mark.parametrize("case", MODELS, ids=[c[0] for c in MODELS])
def test_model_batches(case, batch_kind, batch_dtype):
    ref, model = _converted(case[1], np.float64)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((N, 5))
    edge_index = _graph(rng, "multi", np.int64)
    batch = _batch(rng, batch_kind).astype(batch_dtype)
    for stage in _stages(ref):
        _set_stage(ref, model, stage)
        expected = _run(ref, x, edge_index, batch)
        _close(model(x, edge_index, batch), expected, np.float64)
        if batch_kind == "one":  # batch=None: one graph (PyG needs the zeros vector)
            _close(model(x, edge_index), expected, np.float64)


@pytest.mark.parametrize("case", MODELS, ids=[c[0] for c in MODELS])
def test_model_single_node_and_no_nodes(case):
    ref, model = _converted(case[1], np.float32)
    x, one = np.ones((1, 5), np.float32), np.zeros(1, np.int64)
    loop = np.zeros((2, 1), np.int64)
    for stage in _stages(ref):
        _set_stage(ref, model, stage)
        _close(model(x, loop, one), _run(ref, x, loop, one), np.float32)
        # PyG fails on an empty batch (batch.max() of nothing); here: an empty result
        out = model(np.zeros((0, 5), np.float32), np.zeros((2, 0), np.int64), np.zeros(0, int))
        assert out.shape == (0, model.out_channels) and out.dtype == np.float32


def test_polynormer_stage_switch():
    """``use_global`` and PyG's ``_global`` are one flag; ``from_pyg`` copies it."""
    ref = pyg_models.Polynormer(5, 8, 3, local_layers=2, global_layers=1).eval()
    ref._global = True
    model = agnn.from_pyg(ref)
    assert model.use_global is True and model._global is True
    rng = np.random.default_rng(5)
    x, ei = rng.standard_normal((N, 5)).astype(np.float32), _graph(rng, "multi", np.int64)
    b = np.zeros(N, np.int64)
    _close(model(x, ei, b), _run(ref, x, ei, b), np.float32)
    model._global = False  # PyG's spelling switches too
    assert model.use_global is False
    ref._global = False
    _close(model(x, ei, b), _run(ref, x, ei, b), np.float32)
    with pytest.raises(TypeError, match="use_global"):
        model.use_global = "yes"
    built = agnn.Polynormer(5, 8, 3, 2, 1, use_global=True, rng=0)
    assert built.use_global is True


# ---- built here, state dicts ------------------------------------------------------------
def test_built_models_load_pyg_state_dicts():
    """A model built here takes PyG's state dict and then gives PyG's numbers."""
    torch.manual_seed(1)
    ref = pyg_models.SGFormer(5, 8, 3, trans_num_heads=2).eval()
    ours = agnn.SGFormer(5, 8, 3, trans_num_heads=2, rng=0)
    ours.load_state_dict(ref.state_dict())
    rng = np.random.default_rng(6)
    x, ei, b = (
        rng.standard_normal((N, 5)).astype(np.float32),
        _graph(rng, "multi", np.int64),
        _batch(rng, "sorted"),
    )
    _close(ours(x, ei, b), _run(ref, x, ei, b), np.float32)
    ref = pyg_models.Polynormer(5, 8, 3, 2, 1, local_attn=True).eval()
    ours = agnn.Polynormer(5, 8, 3, 2, 1, local_attn=True, rng=0)
    ours.load_state_dict(ref.state_dict())
    _close(ours(x, ei, b), _run(ref, x, ei, b), np.float32)
    q_ref = pyg_attention.QFormer(8, 16, 4, 2, 2).eval()
    q = agnn.QFormer(8, 16, 4, 2, 2, rng=0).load_state_dict(q_ref.state_dict())
    xs = rng.standard_normal((2, 3, 8)).astype(np.float32)
    _close(q(xs), _run(q_ref, xs), np.float32)


# ---- errors ---------------------------------------------------------------------------------
def test_errors_name_the_layer_and_argument():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 3]])
    sg = agnn.SGFormer(5, 8, 3, rng=0)
    with pytest.raises(ValueError, match="SGFormer x: expected last dimension 5"):
        sg(np.ones((6, 4), np.float32), ei)
    with pytest.raises(TypeError, match="SGFormer: x must be a floating-point array"):
        sg(np.ones((6, 5), np.int64), ei)
    with pytest.raises(ValueError, match=r"SGFormer: x must be \[N, F\]"):
        sg(np.ones((1, 6, 5), np.float32), ei)
    with pytest.raises(ValueError, match="SGFormer: edge_index\\[1\\].*out of range"):
        sg(x, np.array([[0], [6]]))
    with pytest.raises(ValueError, match="SGFormer: batch must have shape \\(6,\\)"):
        sg(x, ei, np.zeros(5, np.int64))
    with pytest.raises(TypeError, match="SGFormer.*batch"):
        sg(x, ei, np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="SGFormer.*batch"):
        sg(x, ei, np.array([0, 0, -1, 1, 1, 1]))
    with pytest.raises(ValueError, match="aggregate must be 'add' or 'cat'"):
        agnn.SGFormer(5, 8, 3, aggregate="max")
    with pytest.raises(ValueError, match="divisible by trans_num_heads"):
        agnn.SGFormer(5, 8, 3, trans_num_heads=3)
    with pytest.raises(ValueError, match="SGFormerAttention: channels=8 must be divisible"):
        agnn.SGFormerAttention(8, 3, 4)
    attn = agnn.SGFormerAttention(8, 2, 4, rng=0)
    with pytest.raises(ValueError, match=r"SGFormerAttention: x must be \[B, N, F\]"):
        attn(np.ones((3, 8), np.float32))
    with pytest.raises(ValueError, match="SGFormerAttention: mask must be"):
        attn(np.ones((2, 3, 8), np.float32), np.ones((2, 4), bool))
    poly = agnn.Polynormer(5, 4, 3, 2, 1, heads=2, rng=0)
    poly(x, ei)  # the local stage takes any heads
    poly.use_global = True
    with pytest.raises(ValueError, match="Polynormer: the global stage needs heads=1"):
        poly(x, ei)
    with pytest.raises(ValueError, match="Polynormer: local_layers"):
        agnn.Polynormer(5, 4, 3, local_layers=0)
    pa = agnn.PolynormerAttention(8, 1, 4, rng=0)
    with pytest.raises(ValueError, match="PolynormerAttention x: expected last dimension 8"):
        pa(np.ones((1, 3, 7), np.float32))
    with pytest.raises(TypeError, match="PolynormerAttention: mask must be"):
        pa(np.ones((1, 3, 8), np.float32), [[True, True, False]])
    q = agnn.QFormer(8, 16, 4, 2, 1, rng=0)
    with pytest.raises(ValueError, match="QFormer x: expected last dimension 8"):
        q(np.ones((2, 3, 7), np.float32))
    with pytest.raises(ValueError, match="QFormer: input_dim=8 must be divisible by num_heads=3"):
        agnn.QFormer(8, 16, 4, 3, 1)
