"""Regressions from the s14 differential fuzz of PyG's BasicGNN models, ``MLP`` and norm
layers converted by ``from_pyg`` (eval mode).

PyG's ``BatchNorm(track_running_stats=False)`` normalises with the input's own batch
statistics in eval mode; inside a model or an ``MLP`` ``from_pyg`` used to refuse it (and
``norm_kwargs={'track_running_stats': False}`` could not be built), although
``arraygnn.nn.norm.BatchNorm`` runs it.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pyg_models = pytest.importorskip("torch_geometric.nn.models")

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn import models  # noqa: E402

EI = np.array([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]], dtype=np.int64)
X = np.random.default_rng(0).standard_normal((5, 3))
NO_STATS = {"track_running_stats": False}


def _check(pyg_model, *args):
    torch.manual_seed(0)
    pyg_model = pyg_model.double().eval()
    with torch.no_grad():
        ref = pyg_model(*(torch.from_numpy(a) for a in args)).numpy()
    model = agnn.from_pyg(pyg_model)
    np.testing.assert_allclose(model(*args), ref, rtol=1e-10, atol=1e-10)
    return model


@pytest.mark.parametrize("kind", ["GraphSAGE", "GIN"])
def test_model_batch_norm_without_running_stats(kind):
    torch.manual_seed(0)
    pyg_model = getattr(pyg_models, kind)(3, 4, 2, 2, norm="batch", norm_kwargs=NO_STATS)
    model = _check(pyg_model, X, EI)
    # the weights keep PyG's names (norms.0.module.weight), both ways
    assert set(model.state_dict(format="pyg")) == set(pyg_model.state_dict())


def test_mlp_batch_norm_without_running_stats():
    torch.manual_seed(0)
    mlp = pyg_models.MLP([3, 4, 4, 2], norm="batch_norm", norm_kwargs=NO_STATS)
    model = _check(mlp, X)
    assert set(model.state_dict(format="pyg")) == set(mlp.state_dict())


def test_build_batch_norm_without_running_stats():
    model = models.GIN(3, 4, 2, norm="batch_norm", norm_kwargs=NO_STATS, rng=0)
    out = model(X, EI)
    # batch statistics: each channel of the (pre-activation) hidden rows is centred
    assert out.shape == (5, 4)
    mlp = agnn.MLP([3, 4, 2], norm="batch", norm_kwargs=NO_STATS, rng=0)
    hidden = mlp.norms[0](mlp.lins[0](X))
    np.testing.assert_allclose(hidden.mean(0), 0, atol=1e-6)
