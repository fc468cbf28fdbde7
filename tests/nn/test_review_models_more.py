"""Review of the PyG / DGL ready-made models (auto-encoders, label propagation, LightGCN,
LINKX, DeepGCNLayer / MetaLayer, HeteroJumpingKnowledge, SignedGCN, GraphUNet,
AttentiveFP, PMLP, RECT_L, MaskLabel, NeuralFingerprint): each test failed before its
fix, against PyG 2.8.1 (or a transcription of DGL's forward) where the reference runs."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

N = 12


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _graph(ei):
    return arraygnn.graph((ei[0], ei[1]), num_nodes=N)


def _randomise(module, seed=0):
    torch.manual_seed(seed)
    module = module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
    return module


# ---------------------------------------------------------------- SignedGCN
def test_signed_gcn_bias_flag_is_ignored_as_pyg():
    """PyG builds every ``SignedConv`` with its default ``bias=True`` whatever ``bias``
    says: a model built here with ``bias=False`` must take a
    PyG ``SignedGCN(bias=False)`` state dict and give its output."""
    rng = np.random.default_rng(0)
    ref = _randomise(pyg_nn.models.SignedGCN(5, 8, 2, bias=False))
    model = agnn.SignedGCN(5, 8, 2, bias=False, rng=0)
    model.load_state_dict(ref.state_dict(), format="pyg")
    x = rng.standard_normal((N, 5)).astype(np.float32)
    pos = random_graph(rng, N, None, 30, np.int32)
    neg = random_graph(rng, N, None, 20, np.int64)
    with torch.no_grad():
        expected = ref(_t(x), _t(pos), _t(neg)).numpy()
    assert rel_err(model(x, pos, neg), expected) <= TOL[np.float32]
    assert sorted(model.state_dict()) == sorted(ref.state_dict())


def test_signed_gcn_discriminate_odd_width_names_the_model():
    """An odd ``hidden_channels`` (PyG builds it: ``z`` is ``2 * (hidden // 2)`` wide and
    ``lin`` takes ``2 * hidden``) fails in ``discriminate`` with an error naming it."""
    model = agnn.SignedGCN(5, 7, 1, rng=0)
    x = np.ones((3, 5), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    z = model(x, ei, ei)
    assert z.shape == (3, 6)
    with pytest.raises(ValueError, match=r"SignedGCN.discriminate: z must be \(N, 7\)"):
        model.discriminate(z, ei)
    ref = pyg_nn.models.SignedGCN(5, 7, 1).eval()
    with pytest.raises(RuntimeError), torch.no_grad():
        ref.discriminate(ref(_t(x), _t(ei), _t(ei)), _t(ei))


def test_signed_gcn_spectral_features_check_ids():
    """Ids at or above ``num_nodes`` (or negative) failed inside SciPy."""
    model = agnn.SignedGCN(2, 4, 1, rng=0)
    pos, neg = np.array([[0, 1], [1, 4]]), np.array([[2], [0]])
    where = "SignedGCN.create_spectral_features"
    with pytest.raises(ValueError, match=f"{where}: edge ids has entry 4, out of range for size 3"):
        model.create_spectral_features(pos, neg, 3)
    with pytest.raises(ValueError, match=f"{where}: edge ids has a negative entry"):
        model.create_spectral_features(np.array([[0, 1], [1, -4]]), neg, 6)
    assert model.create_spectral_features(pos, neg).shape == (5, 2)


# ---------------------------------------------------------------- NeuralFingerprint
def test_neural_fingerprint_mfconv_kwargs():
    """PyG passes its ``**kwargs`` (``max_degree``, ``bias``) to every ``MFConv``."""
    rng = np.random.default_rng(1)
    ref = _randomise(pyg_nn.models.NeuralFingerprint(5, 8, 4, 2, max_degree=3, bias=False))
    model = agnn.NeuralFingerprint(5, 8, 4, 2, max_degree=3, bias=False, rng=0)
    model.load_state_dict(ref.state_dict(), format="pyg")
    x = rng.standard_normal((N, 5)).astype(np.float32)
    ei = random_graph(rng, N, None, 40, np.int32)
    with torch.no_grad():
        expected = ref(_t(x), _t(ei)).numpy()
    assert rel_err(model(x, ei), expected) <= TOL[np.float32]


def test_neural_fingerprint_batch_errors_name_the_model():
    """The errors came from ``global_add_pool`` (asking for ``size=``) or named only
    ``index``."""
    model = agnn.NeuralFingerprint(3, 4, 2, 1, rng=0)
    x, ei = np.ones((3, 3), np.float32), np.array([[0, 1], [1, 2]])
    # batch_size left out is batch.max() + 1, as PyG
    np.testing.assert_array_equal(
        model(x, ei, np.array([0, 0, 1])), model(x, ei, np.array([0, 0, 1]), 2)
    )
    with pytest.raises(ValueError, match="NeuralFingerprint: batch has a negative entry"):
        model(x, ei, np.array([0, -1, 1]))
    with pytest.raises(ValueError, match="NeuralFingerprint: batch has entry 5, out of range"):
        model(x, ei, np.array([0, 0, 5]), 2)
    with pytest.raises(ValueError, match=r"NeuralFingerprint: batch must have shape \(3,\)"):
        model(x, ei, np.array([0, 0]), 2)
    assert model(x, ei, np.array([0, 0, 1]), 2).shape == (2, 2)


def test_neural_fingerprint_zero_layers_refused():
    """``num_layers=0`` returned ``None`` from the call (PyG: the integer ``0``);
    refused when built, as ``from_pyg`` refuses it."""
    with pytest.raises(ValueError, match="NeuralFingerprint: num_layers must be in \\[1"):
        agnn.NeuralFingerprint(3, 8, 4, 0)


# ---------------------------------------------------------------- DeepGCNLayer
@pytest.mark.parametrize("block", ["res+", "res"])
@pytest.mark.parametrize("with_norm", [False, True])
def test_deep_gcn_layer_in_place_act_without_norm(with_norm, block):
    """PyG's ``'res+'`` with no norm and an in-place activation (``ReLU(inplace=True)``,
    as in PyG's DeeperGCN example) rewrites ``x`` before the skip: the output is
    ``act(x) + conv(act(x))``. Ours must give that output and leave the caller's ``x``."""
    rng = np.random.default_rng(4)
    norm = torch.nn.LayerNorm(4) if with_norm else None
    ref = pyg_nn.DeepGCNLayer(pyg_nn.GCNConv(4, 4), norm, torch.nn.ReLU(inplace=True), block)
    ref = _randomise(ref)
    layer = agnn.from_pyg(ref)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    ei = random_graph(rng, 6, None, 12, np.int32)
    copy = x.copy()
    with torch.no_grad():
        expected = ref(_t(x).clone(), _t(ei)).numpy()
    assert rel_err(layer(x, ei), expected) <= TOL[np.float32]
    np.testing.assert_array_equal(x, copy)


# ---------------------------------------------------------------- LightGCN
def test_lightgcn_from_pyg_dtype_is_the_embedding_table_s():
    """A float64 ``alpha`` tensor beside a float32 table (PyG: the table's dtype wins,
    ``x * alpha[0]`` with a 0-d alpha) made ``from_pyg`` read float64 off the first
    floating buffer and build a float64 table."""
    ref = pyg_nn.models.LightGCN(6, 3, 2, alpha=torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64))
    model = agnn.from_pyg(ref)
    ei = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    with torch.no_grad():
        expected = ref.get_embedding(_t(ei)).numpy()
    out = model.get_embedding(ei)
    assert out.dtype == expected.dtype == np.float32
    assert model.embedding.weight.dtype == np.float32
    assert rel_err(out, expected) <= TOL[np.float32]


# ---------------------------------------------------------------- LightGCN top-k
def test_top_k_indices_refuses_k_above_the_columns():
    """``k > cols`` reached the Numba kernel, which read and wrote past each row (ids 3
    and 4 of a 3-column matrix came back); ``torch.topk`` refuses it."""
    from arraygnn.nn.lightgcn import top_k_indices

    scores = np.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError):
        torch.from_numpy(scores).topk(5, dim=-1)
    with pytest.raises(ValueError, match="top_k_indices: k=5 is more than the 3 columns"):
        top_k_indices(scores, 5)
    with pytest.raises(ValueError, match="top_k_indices: k must be in"):
        top_k_indices(scores, -1)
    np.testing.assert_array_equal(top_k_indices(scores, 3), [[2, 1, 0], [2, 1, 0]])


# ---------------------------------------------------------------- PMLP
def test_pmlp_batch_norm_on_zero_and_one_node():
    """PyG's norm uses the batch's statistics: no nodes is an empty result (NumPy warned
    "Mean of empty slice" here), one node is PyG's ``ValueError`` (silently zero here)."""
    import warnings

    ref = _randomise(pyg_nn.models.PMLP(3, 4, 2, 2))
    model = agnn.from_pyg(ref)
    ei = np.zeros((2, 0), np.int64)
    x0 = np.ones((0, 3), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = model(x0, ei)
    assert out.shape == tuple(ref(_t(x0), _t(ei)).shape) == (0, 2)
    x1 = np.ones((1, 3), np.float32)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        ref(_t(x1), _t(ei))
    with pytest.raises(ValueError, match="PMLP: batch normalisation .* more than one node"):
        model(x1, ei)
    assert agnn.PMLP(3, 4, 2, 2, norm=False, rng=0)(x1, ei).shape == (1, 2)


# ---------------------------------------------------------------- AttentiveFP
def test_attentive_fp_input_errors_name_the_model():
    model = agnn.AttentiveFP(4, 8, 2, edge_dim=3, num_layers=2, num_timesteps=1, rng=0)
    x = np.ones((5, 4), np.float32)
    ei = np.array([[0, 1], [1, 2]])
    ea = np.ones((2, 3), np.float32)
    with pytest.raises(
        ValueError, match=r"AttentiveFP: batch has entry 5, out of range for size 2"
    ):
        model(x, ei, ea, np.array([0, 0, 1, 1, 5]), 2)
    with pytest.raises(ValueError, match=r"AttentiveFP: batch must have shape \(5,\)"):
        model(x, ei, ea, np.array([0, 0, 1]), 2)
    assert model(x, ei, ea, np.zeros(5, np.int64)).shape[0] == 1  # batch.max() + 1, as PyG
    with pytest.raises(ValueError, match="AttentiveFP node features: expected last dimension 4"):
        model(x[:, :3], ei, ea, None)
    with pytest.raises(TypeError, match="AttentiveFP: node features must be floating point"):
        model(np.ones((5, 4), np.int64), ei, ea, None)


# ---------------------------------------------------------------- MaskLabel
def test_mask_label_add_integer_x_refused():
    """PyG's ``x[mask] += emb(y[mask])`` fails on integer ``x`` (torch: float can't be cast
    to long); the error came from deep inside NumPy."""
    ref = pyg_nn.MaskLabel(3, 2)
    x, y, mask = np.ones((3, 2), np.int64), np.array([0, 1, 2]), np.array([0])
    with pytest.raises(RuntimeError):
        ref(_t(x), _t(y), _t(mask))
    with pytest.raises(TypeError, match="MaskLabel: x must be floating point for method='add'"):
        agnn.MaskLabel(3, 2, rng=0)(x, y, mask)


def test_mask_label_ratio_mask_needs_a_boolean_mask():
    """Integer ids failed inside NumPy (an ``IndexError``), a list with an
    ``AttributeError``; PyG's ``ratio_mask`` takes a boolean mask."""
    for bad in (np.array([0, 2]), [True, False]):
        with pytest.raises(TypeError, match="MaskLabel.ratio_mask: mask must be a 1-D boolean"):
            agnn.MaskLabel.ratio_mask(bad, 0.5, 0)
    kept = agnn.MaskLabel.ratio_mask(np.array([True, False, True]), 1.0, 0)
    np.testing.assert_array_equal(kept, [True, False, True])


# ---------------------------------------------------------------- LabelPropagation
def test_label_propagation_from_pyg_keeps_pyg_normalisation_on_a_graph():
    """``from_pyg`` left ``norm_type=None``, so the converted PyG module called on a graph
    object switched to DGL's ``'sym'`` normalisation; it is PyG's ``'gcn'`` in every form."""
    rng = np.random.default_rng(3)
    ei = random_graph(rng, N, None, 40, np.int64)
    y = rng.integers(0, 3, N)
    ref = pyg_nn.models.LabelPropagation(3, 0.6)
    lp = agnn.from_pyg(ref)
    expected = ref(_t(y), _t(ei)).numpy()
    assert rel_err(lp(y, ei), expected) <= TOL[np.float32]
    assert rel_err(lp(_graph(ei), y), expected) <= TOL[np.float32]


def test_label_propagation_graph_form_checks_edge_weight():
    """``lp(graph, labels, edge_weight=...)`` with ``norm_type='gcn'`` used ``edge_weight``
    unchecked: too long was silently cut, too short failed naming ``index``, integers
    passed."""
    rng = np.random.default_rng(9)
    ei = random_graph(rng, N, None, 30, np.int64)
    y = rng.integers(0, 3, N)
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(np.float32)
    lp = agnn.LabelPropagation(2, 0.5, "gcn")
    g = _graph(ei)
    np.testing.assert_allclose(lp(g, y, edge_weight=w), lp(y, ei, edge_weight=w), rtol=1e-6)
    for bad in (np.ones(ei.shape[1] + 5, np.float32), np.ones(3, np.float32)):
        with pytest.raises(ValueError, match="LabelPropagation: edge_weight"):
            lp(g, y, edge_weight=bad)
    with pytest.raises(TypeError, match="LabelPropagation: edge_weight"):
        lp(g, y, edge_weight=np.ones(ei.shape[1], np.int64))


# ---------------------------------------------------------------- DGL LabelPropagation
def _dgl_module(**settings):
    class LabelPropagation(torch.nn.Module):  # DGL's class name and attributes
        def __init__(self):
            super().__init__()
            for key, value in settings.items():
                setattr(self, key, value)

    return LabelPropagation()


@pytest.mark.parametrize("norm_type", ["sym", "row"])
def test_label_propagation_from_dgl(norm_type):
    """``from_dgl`` on DGL's ``LabelPropagation`` (no converter was registered) keeps its
    ``k``, ``alpha``, ``norm_type``, ``clamp``, ``normalize`` and ``reset``."""
    from test_pyg_models_more import _dgl_label_propagation

    rng = np.random.default_rng(2)
    ei = random_graph(rng, N, None, 40, np.int64)
    y = rng.integers(0, 4, N)
    mask = rng.random(N) < 0.5
    ref = _dgl_module(k=3, alpha=0.7, norm_type=norm_type, clamp=False, normalize=True,
                      reset=True)  # fmt: skip
    lp = agnn.from_dgl(ref)
    assert isinstance(lp, agnn.LabelPropagation)
    assert (lp.k, lp.alpha, lp.norm_type) == (3, 0.7, norm_type)
    expected = _dgl_label_propagation(ei, N, y, mask, 3, 0.7, norm_type, False, True, True)
    out = lp(_graph(ei), y, mask)
    assert rel_err(out, expected) <= TOL[np.float32]


def test_label_propagation_from_dgl_refuses_unknown_norm_type():
    """DGL raises on any other ``norm_type`` when it runs; ``from_dgl`` says so at once."""
    ref = _dgl_module(k=2, alpha=0.5, norm_type="gcn", clamp=True, normalize=False, reset=False)
    with pytest.raises(ValueError, match="from_dgl: LabelPropagation norm_type must be 'sym'"):
        agnn.from_dgl(ref)
