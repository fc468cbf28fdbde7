"""Parity sweep (s12) of PyG's other ready-made models against PyG 2.8.1, on the options
``test_pyg_models_more.py`` does not reach: ``LabelPropagation`` with zero layers, ``alpha``
at 0 / 1, an empty mask, ``post_step`` with a mask and weights, half-precision labels;
``CorrectAndSmooth`` with zero layers, ``scale``, ``(M, 1)`` ids; ``GAE.decode`` passing
``sigmoid`` on, ``VGAE.reparametrize`` at inference; ``LightGCN`` without layers,
``recommend(sorted=False)`` and ``k=0``; ``GraphUNet`` activations and ``pool_ratios``
forms (PyG's ``repeat``); ``PMLP`` with one layer; ``SignedGCN`` / ``RECT_L`` / ``LINKX``
settings; plus errors naming the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn.nn as agnn

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")

N = 20


def _t(a):
    if a is None:
        return None
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return torch.from_numpy(np.ascontiguousarray(a))


def _randomise(module, seed=0):
    torch.manual_seed(seed)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
    return module


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(12)
    ei = random_graph(rng, N, None, 70, np.int64, isolated=3)
    mask = rng.random(N) < 0.4
    return {
        "ei": ei,
        "w": rng.uniform(0.1, 1.0, ei.shape[1]).astype(np.float32),
        "x": rng.standard_normal((N, 5)).astype(np.float32),
        "y": rng.integers(0, 3, N),
        "mask": mask,
        "labels": rng.integers(0, 4, N)[mask],
        "y_soft": rng.dirichlet(np.ones(4), N).astype(np.float32),
    }


# ---------------------------------------------------------------- label propagation
@pytest.mark.parametrize(
    "layers_alpha_mask", [(0, 0.5, "some"), (2, 1.0, "some"), (2, 0.0, "some"), (3, 0.7, "none")]
)
def test_label_propagation_layers_alpha_mask(case, layers_alpha_mask):
    num_layers, alpha, which = layers_alpha_mask
    mask = case["mask"] if which == "some" else np.zeros(N, bool)
    ref = pyg_nn.models.LabelPropagation(num_layers, alpha)
    out = agnn.from_pyg(ref)(case["y"], case["ei"], mask)
    expected = ref(_t(case["y"]), _t(case["ei"]), _t(mask)).numpy()
    assert out.dtype == expected.dtype and rel_err(out, expected) <= TOL[np.float32]


def test_label_propagation_post_step_with_mask_and_weights(case):
    ref = pyg_nn.models.LabelPropagation(3, 0.7)
    out = agnn.from_pyg(ref)(
        case["y"], case["ei"], case["mask"], case["w"], post_step=lambda x: np.clip(x, 0, 0.3)
    )
    expected = ref(
        _t(case["y"]), _t(case["ei"]), _t(case["mask"]), _t(case["w"]),
        post_step=lambda x: x.clamp(0, 0.3),
    ).numpy()  # fmt: skip
    assert rel_err(out, expected) <= TOL[np.float32]


@pytest.mark.parametrize("weighted", [False, True])
def test_label_propagation_half_precision_labels(case, weighted):
    """PyG: float16 labels times gcn_norm's float32 weights step in float32; float16
    weights keep float16."""
    y = np.eye(3, dtype=np.float16)[case["y"]]
    w = case["w"].astype(np.float16) if weighted else None
    ref = pyg_nn.models.LabelPropagation(3, 0.7)
    out = agnn.from_pyg(ref)(y, case["ei"], case["mask"], w)
    expected = ref(_t(y), _t(case["ei"]), _t(case["mask"]), _t(w)).numpy()
    assert out.dtype == expected.dtype == (np.float16 if weighted else np.float32)
    tol = 2e-3 if weighted else TOL[np.float32]
    np.testing.assert_allclose(out.astype(np.float32), expected.astype(np.float32), atol=tol)


def test_label_propagation_post_step_must_return_the_array(case):
    lp = agnn.LabelPropagation(2, 0.5)
    with pytest.raises(TypeError, match=r"LabelPropagation: post_step must return the \(20, 3\)"):
        lp(case["y"], case["ei"], post_step=lambda x: None)
    with pytest.raises(TypeError, match="LabelPropagation: post_step must return"):
        lp(case["y"], case["ei"], post_step=lambda x: x[:, :2])


# ---------------------------------------------------------------- correct and smooth
@pytest.mark.parametrize(
    "settings",
    [(0, 0.8, 2, 0.6, True, 1.0), (2, 0.8, 0, 0.6, False, 0.5), (2, 1.0, 2, 0.0, True, 1.0),
     (2, 0.5, 1, 0.5, False, 2.0)],
)  # fmt: skip
@pytest.mark.parametrize("column", [False, True])
def test_correct_and_smooth_settings(case, settings, column):
    *layers, autoscale, scale = settings
    ref = pyg_nn.models.CorrectAndSmooth(*layers, autoscale=autoscale, scale=scale)
    cs = agnn.from_pyg(ref)
    y_true = case["labels"][:, None] if column else case["labels"]  # PyG: numel == size(0)
    args = (y_true, case["mask"], case["ei"])
    targs = tuple(_t(a) for a in args)
    for ours, theirs in ((cs.correct, ref.correct), (cs.smooth, ref.smooth)):
        expected = theirs(_t(case["y_soft"]), *targs).numpy()
        np.testing.assert_allclose(ours(case["y_soft"], *args), expected, rtol=1e-5, atol=1e-6)


def test_correct_and_smooth_y_true_width_is_checked(case):
    cs = agnn.CorrectAndSmooth(2, 0.5, 2, 0.5)
    mask, ei = case["mask"], case["ei"]
    wide = np.eye(5, dtype=np.float32)[case["labels"]]
    for where in ("correct", "smooth"):
        with pytest.raises(
            ValueError, match=rf"CorrectAndSmooth.{where}: y_true must be .*\(M, 4\)"
        ):
            getattr(cs, where)(case["y_soft"], wide, mask, ei)
        with pytest.raises(ValueError, match=rf"CorrectAndSmooth.{where}: y_true must be"):
            getattr(cs, where)(case["y_soft"], case["labels"].astype(np.float32), mask, ei)


# ---------------------------------------------------------------- auto-encoders
def test_gae_decode_passes_sigmoid_on_and_vgae_reparametrize(case):
    ref = _randomise(pyg_nn.models.GAE(pyg_nn.models.GCN(5, 8, 2)))
    model = agnn.from_pyg(ref)
    rng = np.random.default_rng(1)
    z = rng.standard_normal((N, 8)).astype(np.float32)
    ei = case["ei"]
    with torch.no_grad():
        for args, kwargs in (((False,), {}), ((), {"sigmoid": False}), ((True,), {})):
            expected = ref.decode(_t(z), _t(ei), *args, **kwargs).numpy()
            assert rel_err(model.decode(z, ei, *args, **kwargs), expected) <= TOL[np.float32]
        vref = pyg_nn.models.VGAE(pyg_nn.models.GCN(5, 8, 2)).eval()
        mu, logstd = z[:, :4], z[:, 4:] * 20  # logstd above PyG's clamp
        vgae = agnn.VGAE(lambda v: v)
        np.testing.assert_array_equal(vgae.reparametrize(mu, logstd), mu)  # eval: mu
        expected = vref.kl_loss(_t(mu), _t(logstd)).numpy()
        assert rel_err(vgae.kl_loss(mu, logstd), expected) <= TOL[np.float32]


# ---------------------------------------------------------------- LightGCN
def test_lightgcn_no_layers_unsorted_and_k0(case):
    ei = case["ei"]
    for num_layers in (0, 2):
        ref = _randomise(pyg_nn.models.LightGCN(N, 6, num_layers))
        model = agnn.from_pyg(ref)
        with torch.no_grad():
            emb = ref.get_embedding(_t(ei)).numpy()
            assert rel_err(model.get_embedding(ei), emb) <= TOL[np.float32]
            src = np.array([0, 3, 19])
            top = model.recommend(ei, None, src, None, 4, sorted=False)
            expected = ref.recommend(_t(ei), None, _t(src), None, 4, sorted=False).numpy()
            # torch leaves an unsorted top-k in any order: the same sets
            np.testing.assert_array_equal(np.sort(top, 1), np.sort(expected, 1))
            none = model.recommend(ei, k=0)
            assert none.shape == ref.recommend(_t(ei), k=0).shape == (N, 0)
    with pytest.raises(TypeError, match="LightGCN.recommend: src_index must be an integer"):
        model.recommend(ei, src_index=np.ones(N, bool))  # PyG's API: node indices


# ---------------------------------------------------------------- GraphUNet
@pytest.mark.parametrize(
    "kwargs",
    [{"act": "tanh"}, {"act": "elu"}, {"act": torch.nn.functional.leaky_relu},
     {"depth": 3, "pool_ratios": [0.7]}, {"pool_ratios": [0.7, 0.5, 0.3, 0.1]},
     {"pool_ratios": (0.6, 0.4), "sum_res": False}, {"pool_ratios": 3}, {"pool_ratios": 1.5}],
    ids=lambda kw: "-".join(f"{k}={getattr(v, '__name__', v)}" for k, v in kw.items()),
)  # fmt: skip
def test_graph_unet_act_and_pool_ratios(case, kwargs):
    kwargs = {"depth": 2, **kwargs}
    ref = _randomise(pyg_nn.models.GraphUNet(5, 8, 3, **kwargs))
    model = agnn.from_pyg(ref)
    with torch.no_grad():
        expected = ref(_t(case["x"]), _t(case["ei"])).numpy()
    assert rel_err(model(case["x"], case["ei"]), expected) <= TOL[np.float32] * 10
    assert list(model.pool_ratios) == list(ref.pool_ratios)


def test_graph_unet_bad_settings():
    with pytest.raises(ValueError, match="GraphUNet: depth must be in"):
        agnn.GraphUNet(5, 8, 3, depth=0, rng=0)
    with pytest.raises(ValueError, match="activation must be None, a callable or one of"):
        agnn.GraphUNet(5, 8, 3, depth=1, act="nope", rng=0)


# ---------------------------------------------------------------- PMLP, SignedGCN, RECT_L, LINKX
def test_pmlp_one_layer_as_pyg(case):
    """PyG builds two linear layers even for ``num_layers=1`` and runs the first."""
    ref = _randomise(pyg_nn.models.PMLP(5, 8, 3, 1, dropout=0.5))
    model = agnn.from_pyg(ref)
    assert sorted(model.state_dict()) == sorted(ref.state_dict())
    with torch.no_grad():
        expected = ref(_t(case["x"]), _t(case["ei"])).numpy()
    out = model(case["x"], case["ei"])
    assert out.shape == expected.shape == (N, 8)
    assert rel_err(out, expected) <= TOL[np.float32]
    with pytest.raises(ValueError, match="PMLP: num_layers must be in"):
        agnn.PMLP(5, 8, 3, 0)


def test_signed_gcn_rect_linkx_settings(case):
    x, ei = case["x"], case["ei"]
    rng = np.random.default_rng(2)
    neg = random_graph(rng, N, None, 40, np.int64)
    refs = {
        "signed": _randomise(pyg_nn.models.SignedGCN(5, 8, 2, lamb=2.0)),
        "rect": _randomise(pyg_nn.models.RECT_L(5, 8, dropout=0.5)),
        "linkx": _randomise(pyg_nn.models.LINKX(N, 5, 8, 3, 2, dropout=0.5)),
    }
    with torch.no_grad():
        signed = agnn.from_pyg(refs["signed"])
        assert signed.lamb == 2.0
        z = signed(x, ei, neg)
        zr = refs["signed"](_t(x), _t(ei), _t(neg))
        assert rel_err(z, zr.numpy()) <= TOL[np.float32] * 10
        expected = refs["signed"].discriminate(zr, _t(neg)).numpy()
        assert rel_err(signed.discriminate(z, neg), expected) <= TOL[np.float32] * 10
        for name in ("rect", "linkx"):
            expected = refs[name](_t(x), _t(ei)).numpy()
            assert rel_err(agnn.from_pyg(refs[name])(x, ei), expected) <= TOL[np.float32] * 10
