"""Review of the set / sequence aggregations, ``MultiheadAttention``, ``PerformerAttention``,
``GPSConv``, ``DNAConv`` and ``linear.matmul``'s stacked path: each test failed before its
fix, against torch / PyG where the reference has the case."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.nn.linear import matmul

torch = pytest.importorskip("torch")


def _mha(**kwargs):
    from arraygnn.nn import from_torch

    torch.manual_seed(0)
    module = torch.nn.MultiheadAttention(8, 2, **kwargs).eval()
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
    return module, from_torch(module)


# ---- linear.matmul ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "a_shape, b_shape",
    [((2, 4, 0), (0, 3)), ((0, 2, 0), (0, 3)), ((2, 3, 4, 0), (0, 2))],
)
def test_matmul_stacked_zero_width(a_shape, b_shape):
    a, b = np.ones(a_shape), np.ones(b_shape)
    out = matmul(a, b)
    assert out.shape == (a @ b).shape
    np.testing.assert_array_equal(out, a @ b)


# ---- MultiheadAttention -----------------------------------------------------------------
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_no_keys(need_weights):
    """``S = 0``: torch's output is ``out_proj.bias`` (no attention), not a NumPy error."""
    module, ours = _mha(batch_first=True)
    q, k = torch.randn(2, 3, 8), torch.randn(2, 0, 8)
    ref, _ = module(q, k, k, need_weights=need_weights)
    out, _ = ours(q.numpy(), k.numpy(), k.numpy(), need_weights=need_weights)
    np.testing.assert_allclose(out, ref.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_mha_mask_not_array():
    _, ours = _mha(batch_first=True)
    x = np.ones((2, 3, 8), np.float32)
    with pytest.raises(TypeError, match="MultiheadAttention: attn_mask"):
        ours(x, x, x, attn_mask=[[True] * 3] * 3)


def test_mha_is_causal_needs_mask():
    """torch refuses ``is_causal=True`` without ``attn_mask`` (no silent non-causal)."""
    module, ours = _mha(batch_first=True)
    x = torch.randn(2, 3, 8)
    with pytest.raises(RuntimeError):
        module(x, x, x, is_causal=True)
    with pytest.raises(ValueError, match="MultiheadAttention: is_causal"):
        ours(x.numpy(), x.numpy(), x.numpy(), is_causal=True)


# ---- GPSConv ------------------------------------------------------------------------------
def test_gps_act_name_spelt_as_pyg_takes_it():
    """PyG's resolver takes ``'LeakyReLU'`` (any case / separators) with ``act_kwargs``."""
    gnn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import GPSConv

    torch.manual_seed(0)
    ref = gnn.GPSConv(4, None, heads=2, act="LeakyReLU", act_kwargs={"negative_slope": 0.2})
    ref = ref.eval()
    ours = GPSConv(4, None, heads=2, act="LeakyReLU", act_kwargs={"negative_slope": 0.2})
    ours.load_state_dict(ref.state_dict(), format="pyg")
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    batch = np.array([0, 0, 1, 1, 1])
    want = ref(torch.from_numpy(x), torch.zeros(2, 0, dtype=torch.long), torch.from_numpy(batch))
    out = ours(x, np.zeros((2, 0), np.int64), batch)
    np.testing.assert_allclose(out, want.detach().numpy(), rtol=1e-5, atol=1e-5)


# ---- DNAConv ------------------------------------------------------------------------------
def test_dna_edge_weight_not_array_is_named():
    from arraygnn.nn import DNAConv

    conv = DNAConv(4, normalize=False, rng=0)
    x = np.ones((3, 2, 4), np.float32)
    with pytest.raises(TypeError, match="DNAConv: edge_weight"):
        conv(x, np.array([[0, 1], [1, 2]]), [1.0, 1.0])


@pytest.mark.parametrize(
    "batch, error",
    [
        (np.array([0, 0, 1]), ValueError),
        (np.array([0, -1, 1, 1]), ValueError),
        (np.array([1, 0, 0, 1]), ValueError),
        (np.array([0.0, 0.0, 1.0, 1.0]), TypeError),
        ([0, 0, 1, 1], TypeError),
    ],
)
@pytest.mark.parametrize("norm", ["graph_norm", "batch_norm"])
def test_gps_bad_batch_names_layer_and_argument(batch, error, norm):
    from arraygnn.nn import GCNConv, GPSConv

    layer = GPSConv(4, GCNConv(4, 4, rng=0), heads=2, norm=norm, rng=0)
    x = np.ones((4, 4), np.float32)
    with pytest.raises(error, match="GPSConv: .*batch"):
        layer(x, np.array([[0, 1], [1, 2]]), batch)


# ---- PerformerAttention -------------------------------------------------------------------
def test_performer_mask_not_array_is_named():
    from arraygnn.nn import PerformerAttention

    attn = PerformerAttention(4, heads=2, head_channels=2, rng=0)
    with pytest.raises(TypeError, match="PerformerAttention: mask"):
        attn(np.ones((2, 3, 4), np.float32), mask=[[True] * 3] * 2)


def test_performer_head_channels_one_is_refused_as_pyg():
    """``int(1 * ln 1) = 0`` random features: PyG cannot build it (empty projection), and
    the attention would be 0 / 0."""
    gnn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn import PerformerAttention

    with pytest.raises((RuntimeError, ValueError)):
        gnn.PerformerAttention(4, heads=2, head_channels=1)
    with pytest.raises(ValueError, match="PerformerAttention: head_channels"):
        PerformerAttention(4, heads=2, head_channels=1)


# ---- dense (sequence) aggregations ------------------------------------------------------------
@pytest.mark.parametrize("bad, error", [(-1, ValueError), (2.5, TypeError), (True, TypeError)])
@pytest.mark.parametrize("kind", ["LSTMAggregation", "GRUAggregation", "LCMAggregation"])
def test_dense_bad_max_num_elements_names_layer_and_argument(kind, bad, error):
    from arraygnn.nn import aggr

    layer = getattr(aggr, kind)(4, 4, rng=0)
    x = np.ones((4, 4), np.float32)
    with pytest.raises(error, match=f"{kind}: max_num_elements"):
        layer(x, np.array([0, 0, 1, 1]), max_num_elements=bad)


def test_dna_no_layers_is_named():
    """``x`` ``[N, 0, C]``: no layer to attend over (PyG fails inside ``max``)."""
    from arraygnn.nn import DNAConv

    with pytest.raises(ValueError, match="DNAConv: x"):
        DNAConv(4, rng=0)(np.ones((3, 0, 4), np.float32), np.array([[0, 1], [1, 2]]))


def test_mlp_aggregation_call_max_num_elements_not_silently_ignored():
    """PyG's ``MLPAggregation`` fixes ``max_num_elements`` at construction (its call takes
    none): another value at call time is refused, not ignored."""
    P = pytest.importorskip("torch_geometric.nn.aggr")
    from arraygnn.nn import aggr

    ref = P.MLPAggregation(4, 3, 2, num_layers=1)
    x, index = torch.ones(4, 4), torch.tensor([0, 0, 1, 1])
    with pytest.raises(TypeError):
        ref(x, index, max_num_elements=3)
    layer = aggr.MLPAggregation(4, 3, 2, norm=None, rng=0)
    with pytest.raises(TypeError, match="MLPAggregation: max_num_elements"):
        layer(x.numpy(), index.numpy(), max_num_elements=3)
    assert layer(x.numpy(), index.numpy(), max_num_elements=2).shape == (2, 3)


def test_dna_cached_graph_of_another_size_is_named():
    """``cached=True`` keeps the first graph; ``x`` of another node count is a clear error
    naming the layer (was an ``ops`` shape error)."""
    from arraygnn.nn import DNAConv

    conv = DNAConv(4, cached=True, rng=0)
    conv(np.ones((5, 2, 4), np.float32), np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]]))
    for n in (3, 7):
        with pytest.raises(ValueError, match="DNAConv: .*cached"):
            conv(np.ones((n, 2, 4), np.float32), np.array([[0], [1]]))


DENSE_KINDS = {
    "LSTMAggregation": lambda m: m.LSTMAggregation(4, 3),
    "GRUAggregation": lambda m: m.GRUAggregation(4, 3),
    "LCMAggregation": lambda m: m.LCMAggregation(4, 4, project=False),
    "MLPAggregation": lambda m: m.MLPAggregation(4, 3, 3, num_layers=1),
    "SetTransformerAggregation": lambda m: m.SetTransformerAggregation(4),
    "GraphMultisetTransformer": lambda m: m.GraphMultisetTransformer(4, 2),
    "PatchTransformerAggregation": lambda m: m.PatchTransformerAggregation(4, 3, 2, 4),
}


@pytest.mark.parametrize("kind", list(DENSE_KINDS))
def test_dense_integer_x_is_refused_as_pyg(kind):
    """PyG's learnt aggregations fail on integer ``x`` (weights are float); ours named the
    aggregation (was a silent float64 result, or an error naming MultiheadAttention)."""
    P = pytest.importorskip("torch_geometric.nn.aggr")
    from arraygnn.nn import aggr, from_pyg

    ref = DENSE_KINDS[kind](P).eval()
    x, index = np.arange(20).reshape(5, 4), np.array([0, 0, 1, 1, 1])
    with pytest.raises((RuntimeError, ValueError)):
        ref(torch.from_numpy(x), torch.from_numpy(index))
    for layer in (from_pyg(ref), DENSE_KINDS[kind](aggr)):
        with pytest.raises(TypeError, match=f"{kind}: x must be floating point"):
            layer(x, index)
