"""Review of the DGL-only layers (EGATConv, GatedGCNConv, EGNNConv, DGLCFConv,
EdgeWeightNorm, APPNPConv, DGLPNAConv / DGNConv, DenseChebConv, AtomicConv, WeightAndSum,
TWIRLSConv): the behaviour differences against DGL's source the review found. DGL does not
install here; the references are the plain-torch transcriptions of DGL's forwards in
``test_dgl_layers_more.py`` (checked line by line against dmlc/dgl's
``python/dgl/nn/pytorch/conv/*.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import random_graph

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")

import test_dgl_layers_more as dgl_ref  # noqa: E402  (the DGL transcriptions)

N = 10


# ---- DenseChebConv -------------------------------------------------------------------------
def test_dense_cheb_conv_float16_lambda_max_none():
    """``lambda_max=None`` on float16 features: NumPy's ``eigvals`` has no float16, and the
    layer failed inside NumPy ("array type float16 is unsupported in linalg")."""
    rng = np.random.default_rng(0)
    conv = agnn.DenseChebConv(4, 3, k=3, rng=0)
    adj = (rng.random((6, 6)) < 0.4).astype(np.float32)
    adj = np.maximum(adj, adj.T)
    x = rng.standard_normal((6, 4)).astype(np.float16)
    out = conv(adj, x)
    d = 1 / np.sqrt(np.maximum(adj.sum(1), 1))
    lam = np.linalg.eigvals(np.eye(6) - d[:, None] * adj * d[None]).real.max()
    expected = conv(adj, x, float(lam))  # the same float16 path, lambda_max given
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-3)


def test_dense_cheb_conv_lambda_max_must_be_a_number():
    """DGL computes ``2 * L / lambda_max``: a string is a TypeError there; it was parsed."""
    conv = agnn.DenseChebConv(4, 3, k=2, rng=0)
    with pytest.raises(TypeError, match="DenseChebConv: lambda_max must be one number"):
        conv(np.ones((3, 3), np.float32), np.ones((3, 4), np.float32), "2")


# ---- TWIRLSConv ----------------------------------------------------------------------------
def test_twirls_conv_eta_size_mismatch_names_the_layer():
    """``use_eta`` weights ``hidden_d`` columns, but without an MLP before the unfolding runs
    on ``input_d`` columns: DGL fails in ``Y * etas``; ours failed inside NumPy
    ("operands could not be broadcast") instead of naming the layer."""
    conv = agnn.TWIRLSConv(4, 2, 3, 2, num_mlp_before=0, attention=True, use_eta=True, rng=0)
    x = np.ones((3, 4), np.float32)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(ValueError, match="TWIRLSConv: use_eta"):
        conv(x, ei)


def test_twirls_conv_cache_follows_reloaded_etas():
    """A cacheable layer (no MLP before, no attention) with ``attn_bef`` and ``use_eta``:
    its unfolding reads ``unfolding.etas``. Loading other weights by name and calling again
    with the same objects returned the unfolding of the old ``etas``."""
    rng = np.random.default_rng(1)
    kwargs = {"num_mlp_before": 0, "attn_bef": True, "use_eta": True, "prop_step": 3}
    ref = dgl_ref.randomize(dgl_ref.TWIRLSConv(5, 3, 5, **kwargs), 2).eval()
    with torch.no_grad():
        ref.unfolding.etas.copy_(torch.rand(5) + 0.5)
    conv = agnn.from_dgl(ref)
    assert conv.cacheable
    ei = random_graph(rng, N, num_edges=25)
    x = rng.standard_normal((N, 5)).astype(np.float32)
    conv(x, ei)
    with torch.no_grad():
        ref.unfolding.etas.copy_(torch.rand(5) + 2.0)
        ref.cached_unfolding = None
        expected = ref(dgl_ref.G(ei, N), torch.from_numpy(x))
    conv.load_state_dict(ref.state_dict(), format="dgl")
    dgl_ref.close(conv(x, ei), expected, np.float32)


# ---- APPNPConv -----------------------------------------------------------------------------
def test_appnp_conv_errors_name_the_layer_and_argument():
    """``APPNPConv(k=-1)`` said "APPNP: K must be ..." (another layer, another name)."""
    with pytest.raises(ValueError, match="APPNPConv: k must be"):
        agnn.APPNPConv(-1, 0.1)
    with pytest.raises(ValueError, match="APPNPConv: alpha must be"):
        agnn.APPNPConv(2, 1.5)
    assert agnn.APPNPConv(0, 0.1)(np.eye(3), np.array([[0, 1], [1, 2]])).shape == (3, 3)


# ---- EdgeWeightNorm ------------------------------------------------------------------------
def test_edge_weight_norm_needs_edge_weight_and_two_sizes():
    """``edge_weight=None`` failed with ``AttributeError: 'NoneType' object has no attribute
    'dtype'``; ``num_nodes=(3, 3, 3)`` was read as its first and last entries."""
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    norm = agnn.EdgeWeightNorm()
    with pytest.raises(TypeError, match="EdgeWeightNorm: edge_weight is required"):
        norm(ei, None, num_nodes=3)
    with pytest.raises(ValueError, match="EdgeWeightNorm: num_nodes must be"):
        norm(ei, np.ones(3), num_nodes=(3, 3, 3))


# ---- EGATConv / DGLCFConv: integer features ------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda x, ei: agnn.EGATConv(4, 3, 2, 2, 2, rng=0)(x, ei, np.ones((3, 3), np.float32)),
        lambda x, ei: agnn.EGATConv((4, 4), 3, 2, 2, 2, rng=0)(
            (x.astype(np.float32), x), ei, np.ones((3, 3), np.float32)
        ),
        lambda x, ei: agnn.DGLCFConv(4, 3, 5, 2, rng=0)(x, ei, np.ones((3, 3), np.float32)),
    ],
)
def test_integer_node_features_are_refused(call):
    """DGL's ``nn.Linear`` refuses integer features; EGATConv and DGLCFConv returned float64
    from float32 layers (their siblings here, GatedGCNConv, EGNNConv, ..., refuse them)."""
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(TypeError, match="(EGATConv|DGLCFConv): node features must be floating"):
        call(np.ones((3, 4), np.int64), ei)


def test_appnp_conv_non_positive_edge_weight_names_the_layer():
    """DGL normalises ``edge_weight`` by ``EdgeWeightNorm('both')``, which refuses a
    non-positive weight; the error said "edge_weight: non-positive ..." without the layer."""
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    with pytest.raises(ValueError, match="APPNPConv: non-positive edge weight"):
        agnn.APPNPConv(2, 0.1)(np.ones((3, 2)), ei, np.array([1.0, 0.0, 1.0]))


def test_appnp_conv_refuses_bipartite_inputs_of_equal_sizes():
    """DGL's APPNPConv reads ``graph.ndata`` (one node set) and multiplies ``feat`` itself: a
    pair or a bipartite graph fails there. Ours refused them only when the two node counts
    differed; with equal counts it ignored the destination features, or propagated over a
    bipartite graph as if its two node sets were one."""
    from arraygnn.graph import heterograph

    ei = np.array([[0, 1, 2], [1, 2, 0]])
    x = np.ones((3, 2))
    conv = agnn.APPNPConv(2, 0.1)
    with pytest.raises(ValueError, match="APPNPConv needs a homogeneous graph"):
        conv((x, 2 * x), ei)
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": 3, "B": 3})
    with pytest.raises(ValueError, match="APPNPConv needs a homogeneous graph"):
        conv(g, x)


@pytest.mark.parametrize(
    "call",
    [
        lambda g, x: agnn.GatedGCNConv(2, 3, 2, rng=0)(g, x, np.ones((3, 3))),
        lambda g, x: agnn.EGNNConv(2, 4, 2, rng=0)(g, x, np.ones((3, 3))),
        lambda g, x: agnn.DGLPNAConv(2, 2, ["mean"], ["identity"], 1.0, rng=0)(g, x),
        lambda g, x: agnn.TWIRLSConv(2, 2, 3, 2, rng=0)(g, x),
        lambda g, x: agnn.AtomicConv(np.ones(2), np.ones(2), np.ones(2))(g, x, np.ones(3)),
    ],
)
def test_ndata_layers_refuse_a_bipartite_graph_of_equal_sizes(call):
    """The layers DGL writes with ``graph.ndata`` fail on a graph of two node types (DGL's
    ``ndata`` needs one); with equal node counts ours ran as if both sets were one."""
    from arraygnn.graph import heterograph

    ei = np.array([[0, 1, 2], [1, 2, 0]])
    g = heterograph({("A", "r", "B"): (ei[0], ei[1])}, num_nodes_dict={"A": 3, "B": 3})
    with pytest.raises(ValueError, match="works on one node set"):
        call(g, np.ones((3, 2)))


def test_egat_conv_get_attention_positional_as_dgl():
    """DGL's ``forward(graph, nfeats, efeats, edge_weight=None, get_attention=False)`` takes
    ``get_attention`` by position too; ours made it keyword-only (a TypeError)."""
    conv = agnn.EGATConv(4, 3, 2, 2, 2, rng=0)
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    out = conv(np.ones((3, 4), np.float32), ei, np.ones((3, 3), np.float32), None, True)
    assert len(out) == 3 and out[2].shape == (3, 2, 1)


def test_pna_graph_norm_float16_large_graph():
    """DGL's ``1 / sqrt(N)`` factor divides a half-precision ``ones`` by the Python int ``N``
    (computed wider, about 0.0038 for N = 70,000); ours cast ``N`` to float16 first, where
    70,000 is inf, and the factor became 0."""
    n = 70_000
    conv = agnn.DGLPNAConv(2, 2, ["sum"], ["identity"], 1.0, residual=False, rng=0)
    conv.towers[0].batchnorm.running_var[:] = 1e-4  # magnifies the factor's effect
    x = np.ones((n, 2), np.float32)
    ei = np.zeros((2, 0), np.int64)
    wide = conv(x, ei)
    half = conv.astype(np.float16)(x.astype(np.float16), ei)
    np.testing.assert_allclose(half.astype(np.float32), wide, rtol=2e-2, atol=2e-2)


def test_constructor_number_errors_name_the_layer():
    """A non-number ``delta`` or radial-filter value failed with Python's bare "could not
    convert string to float"."""
    with pytest.raises(TypeError, match="DGLPNAConv: delta must be a number"):
        agnn.DGLPNAConv(4, 4, ["mean"], ["identity"], "a")
    with pytest.raises(TypeError, match="AtomicConv: interaction_cutoffs must hold numbers"):
        agnn.AtomicConv("ab", np.ones(2), np.ones(2))
