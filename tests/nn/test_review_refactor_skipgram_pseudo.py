"""Review of the shared ``SkipGramMethods`` base (Node2Vec / MetaPath2Vec, and DeepWalk's
use of its seed helper) and the shared ``_pseudo_input`` module (GMMConv / DGLGMMConv /
SplineConv): every message names the model or layer that was called, and ``from_pyg``
refuses a lazy root weight with its own message rather than torch's."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from arraygnn.graph import graph
from arraygnn.nn import DGLGMMConv, GMMConv, MetaPath2Vec, Node2Vec, SplineConv
from arraygnn.nn.deepwalk import DeepWalk

EDGES = np.array([[0, 1, 1, 2, 3, 3, 4], [1, 0, 2, 1, 4, 0, 3]])
MP_EDGES = {
    ("author", "writes", "paper"): np.array([[0, 1, 1, 2], [0, 0, 2, 1]]),
    ("paper", "written_by", "author"): np.array([[0, 0, 1, 2], [0, 1, 2, 1]]),
}
METAPATH = [("author", "writes", "paper"), ("paper", "written_by", "author")]
SIZES = {"author": 4, "paper": 3}


def _models():
    yield "Node2Vec", Node2Vec(EDGES, 4, 3, 2, num_nodes=6, rng=0), 6
    yield "MetaPath2Vec", MetaPath2Vec(MP_EDGES, 4, METAPATH, 3, 2, num_nodes_dict=SIZES, rng=0), 4


@pytest.mark.parametrize("which", ["Node2Vec", "MetaPath2Vec"])
def test_shared_methods_name_the_model(which):
    name, model, starts = next((n, m, s) for n, m, s in _models() if n == which)
    assert len(model.loader(batch_size=3)) == -(-starts // 3)  # the model's own start nodes
    windows = model.pos_sample(np.array([0])).shape[0]  # one start node, one walk
    firsts = [p[: p.shape[0] // windows, 0] for p, _ in model.loader(2, shuffle=True, seed=0)]
    offset = getattr(model, "start", {}).get("author", 0)
    assert sorted(np.concatenate(firsts).tolist()) == list(range(offset, offset + starts))
    with pytest.raises(ValueError, match=rf"^{name}\.loader: batch_size"):
        model.loader(batch_size=0)
    with pytest.raises(TypeError, match=rf"^{name}\.loader: batch_size"):
        model.loader(batch_size=True)
    pos, neg = model.sample(np.arange(2), seed=0)
    with pytest.raises(ValueError, match=rf"^{name}\.loss: pos_rw"):
        model.loss(pos + 100, neg)
    with pytest.raises(ValueError, match=rf"^{name}\.loss: neg_rw"):
        model.loss(pos, neg[:, 0])
    with pytest.raises(ValueError, match=rf"^{name}\.pos_sample: batch"):
        model.sample(np.array([starts]))
    for method in ("sample", "pos_sample", "neg_sample"):
        with pytest.raises(TypeError, match=rf"^{name}\.{method}: seed must be"):
            getattr(model, method)(np.array([0]), seed=1.5)
    with pytest.raises(ValueError, match=rf"^{name}\.sample: seed must be non-negative"):
        model.sample(np.array([0]), seed=-1)
    with pytest.raises(TypeError, match=rf"^{name}\.loader: seed must be"):
        model.loader(seed=1.5)
    with pytest.raises(ValueError, match=rf"^{name}\.loader: seed must be"):
        model.loader(seed=-1)
    try:
        import sklearn  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=rf"^{name}\.test needs scikit-learn"):
            model.test(pos, pos[:, 0], pos, pos[:, 0])


@pytest.mark.parametrize("which", ["Node2Vec", "MetaPath2Vec"])
def test_list_batches_are_not_truncated(which):
    """A Python list of start nodes is taken as ids only when it holds integers (PyG's
    ``torch.tensor(batch)`` of floats cannot index either); no silent ``int`` cast."""
    name, model, _ = next((n, m, s) for n, m, s in _models() if n == which)
    for method in ("sample", "pos_sample", "neg_sample"):
        for bad in ([0.7, 1.2], [True, False], (1.0,)):
            with pytest.raises(TypeError, match=rf"^{name}\.(pos|neg)_sample: batch must be"):
                getattr(model, method)(bad, seed=0)
        np.testing.assert_array_equal(
            getattr(model, method)([0, 1], seed=0),
            getattr(model, method)(np.array([0, 1]), seed=0),
        )
        out = getattr(model, method)([], seed=0)
        assert all(o.shape[0] == 0 for o in (out if isinstance(out, tuple) else (out,)))


def test_deepwalk_seed_errors_name_deepwalk():
    g = graph((np.array([0, 1, 2]), np.array([1, 2, 0])), num_nodes=3)
    model = DeepWalk(g, emb_dim=4, walk_length=3, window_size=1, rng=0)
    with pytest.raises(TypeError, match=r"^DeepWalk\.sample: seed must be"):
        model.sample(np.array([0]), seed=1.5)
    walks = model.sample(np.array([0, 1]), seed=0)
    with pytest.raises(TypeError, match=r"^DeepWalk: seed must be"):
        model(walks, seed="x")


def test_pseudo_input_errors_name_the_layer():
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    x = np.ones((3, 2), np.float32)
    pa = np.full((3, 2), 0.5, np.float32)
    layers = (
        ("GMMConv", "edge_attr", GMMConv(2, 3, 2, 2, rng=0)),
        ("DGLGMMConv", "pseudo", DGLGMMConv(2, 3, 2, 2, rng=0)),
        ("SplineConv", "edge_attr", SplineConv(2, 3, 2, 3, rng=0)),
    )
    for name, what, layer in layers:
        with pytest.raises(ValueError, match=rf"^{name}: {what} \(the pseudo-coordinates\)"):
            layer(x, ei, None)
        with pytest.raises(ValueError, match=rf"^{name}: {what} must have shape \(3, 2\)"):
            layer(x, ei, pa[:, :1])
        with pytest.raises(TypeError, match=rf"^{name}: {what} must hold floating"):
            layer(x, ei, pa.astype(np.int64))
        with pytest.raises(ValueError, match=rf"^{name} source features: expected last"):
            layer(x[:, :1], ei, pa)
        with pytest.raises(ValueError, match=rf"^{name}: source features must be"):
            layer(x[:, :, None], ei, pa)
        with pytest.raises(ValueError, match=rf"^{name}: edge_index\[0\]"):
            layer(x, ei + 3, pa)


# ---- from_pyg: a lazy root weight (in_channels=(n, -1)) before the first call ----------
torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")


@pytest.fixture
def pyg_spline(monkeypatch):
    """PyG's SplineConv refuses to build without pyg-lib; its sizes need no kernels."""
    module = importlib.import_module("torch_geometric.nn.conv.spline_conv")
    monkeypatch.setattr(module, "spline_basis", lambda *a: None)
    monkeypatch.setattr(module, "spline_weighting", lambda *a: None)
    return module.SplineConv


def test_from_pyg_lazy_root_weight_is_refused_clearly(pyg_spline):
    from torch_geometric.nn import GMMConv as PygGMMConv

    from arraygnn.nn import from_pyg

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refs = (
            ("GMMConv", PygGMMConv((3, -1), 4, 2, 3)),
            ("SplineConv", pyg_spline((3, -1), 4, 2, 3)),
        )
    for kind, ref in refs:
        with pytest.raises(ValueError, match=rf"^from_pyg: {kind} was built with lazy sizes"):
            from_pyg(ref)


def test_from_pyg_lazy_root_sized_after_first_call():
    from torch_geometric.nn import GMMConv as PygGMMConv

    from arraygnn.nn import from_pyg

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = PygGMMConv((3, -1), 4, 2, 3).double()
    ei = torch.tensor([[0, 1, 2, 2], [1, 0, 1, 0]])
    xs, xd = torch.randn(3, 3, dtype=torch.float64), torch.randn(2, 5, dtype=torch.float64)
    ea = torch.rand(4, 2, dtype=torch.float64)
    with torch.no_grad():
        expected = ref((xs, xd), ei, ea).numpy()
    layer = from_pyg(ref)
    assert (layer.in_src, layer.in_dst) == (3, 5)
    got = layer((xs.numpy(), xd.numpy()), ei.numpy(), ea.numpy())
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    # a root-less layer keeps PyG's -1 destination size unused: no lazy weight to refuse
    plain = from_pyg(PygGMMConv((3, -1), 4, 2, 3, root_weight=False))
    assert (plain.in_src, plain.root) == (3, None)
