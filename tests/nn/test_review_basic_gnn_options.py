"""Review of the BasicGNN options / lazy sizes / ChebConv DGL-call work (session 10):
lazily sized PyG modules not run yet give the "run it once" error for every negative
size, a BasicGNN built with any negative in_channels (PyG: lazy) converts, a user's own
torch module given as act is refused when the model is built, and ChebConv on a graph
keeps edge_weight= as edge weights (only the third positional argument is lambda_max)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph
from arraygnn.nn import GCN, MLP, ChebConv, from_pyg
from tests.nn._nn_cases import rel_err

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")


def _graph():
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    ei = np.array([[0, 1, 2, 1, 2, 3], [1, 2, 3, 0, 1, 2]], dtype=np.int64)
    return x, ei


def test_unrun_lazy_edgecnn_asks_to_run_it_once():
    """EdgeCNN(-1)'s MLP is declared [-2, ...]: not run yet, the error says to run it."""
    with pytest.raises(ValueError, match="run the module once"):
        from_pyg(pyg_models.EdgeCNN(-1, 8, 2).eval())


def test_basic_gnn_with_other_negative_in_channels_converts():
    """PyG's Linear is lazy for any in_channels <= 0: GCN(-2, ...) runs on 3 features."""
    x, ei = _graph()
    model = pyg_models.GCN(-2, 8, 2, 4).eval()
    with torch.no_grad():
        expected = model(torch.as_tensor(x), torch.as_tensor(ei)).numpy()
    ours = from_pyg(model)
    assert ours.in_channels is None
    assert rel_err(ours(x, ei), expected) < 1e-5


def test_users_own_torch_module_as_act_is_refused_when_built():
    """A torch.nn.Module subclass of the user's (not torch's) cannot run on arrays: a
    ValueError naming the model when it is built, not an AttributeError when it runs."""

    class MyAct(torch.nn.Module):
        def forward(self, x):
            return x.relu()

    with pytest.raises(ValueError, match="GCN: act.*MyAct"):
        GCN(3, 8, 2, act=MyAct())
    with pytest.raises(ValueError, match="MLP: act.*MyAct"):
        MLP([3, 4, 2], act=MyAct())


def test_cheb_conv_on_a_graph_keeps_edge_weight_keyword():
    """conv(g, feat, lam) is DGL's lambda_max, but conv(g, feat, edge_weight=w) stays the
    edge weights (as before, and as conv(x, edge_index, w))."""
    x, ei = _graph()
    g = graph((ei[0], ei[1]), num_nodes=4)
    src, dst = g.edges()
    w = np.linspace(0.5, 1.5, ei.shape[1]).astype(np.float32)
    conv = ChebConv(3, 2, K=3, rng=0)
    expected = conv(x, np.stack([np.asarray(src), np.asarray(dst)]), w)
    np.testing.assert_allclose(conv(g, x, edge_weight=w), expected, rtol=1e-6)
    lam = np.array([1.5], np.float32)
    np.testing.assert_array_equal(conv(g, x, lam), conv(g, x, lambda_max=lam))
    np.testing.assert_allclose(
        conv(g, x, lam, edge_weight=w), conv(g, x, edge_weight=w, lambda_max=lam), rtol=1e-6
    )
    with pytest.raises(TypeError, match="ChebConv"):
        conv(g, x, lam, None)
