"""More of PyG's ready-made models against PyG 2.8.1 (weights through ``from_pyg`` or
``load_state_dict``; float32 within 1e-5 relative, float64 within 1e-12, ten times that for
the deeper models): the auto-encoders (``InnerProductDecoder``, ``GAE``, ``VGAE``, ``ARGA``,
``ARGVA``), ``LabelPropagation`` (PyG's and, against a transcription of DGL's forward,
DGL's), ``CorrectAndSmooth``, ``LightGCN``, ``LINKX``, ``DeepGCNLayer``, ``MetaLayer``,
``HeteroJumpingKnowledge``, ``MaskLabel``, ``PMLP``, ``RECT_L``, ``NeuralFingerprint``,
``SignedGCN``, ``GraphUNet`` and ``AttentiveFP``, on random multigraphs with self-loops,
repeated edges and nodes without in-edges, graphs with isolated nodes and empty edge sets,
int32 / int64 ids; plus errors naming the model."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from _nn_cases import TOL, random_graph, rel_err

import arraygnn
import arraygnn.nn as agnn
from arraygnn.nn._module import Module

torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")
F = torch.nn.functional

DTYPES = [np.float32, np.float64]
KINDS = ["multi", "isolated", "empty"]
N = 20


def _t(a):
    if a is None or isinstance(a, (int, float)):
        return a
    if a.dtype.kind in "iu":
        a = a.astype(np.int64)  # PyG's ids
    return torch.from_numpy(np.ascontiguousarray(a))


def _np(t):
    return t.detach().numpy()


def _tdt(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _graph(rng, kind, index_dtype, n=N):
    if kind == "empty":
        return np.zeros((2, 0), index_dtype)
    if kind == "isolated":  # the last 5 nodes touch no edge
        return random_graph(rng, n - 5, None, 60, index_dtype, isolated=1)
    return random_graph(rng, n, None, 70, index_dtype, isolated=3)


def _randomise(module, dtype, seed=0):
    """``module`` in ``dtype``, eval mode, every parameter and float buffer (batch-norm
    running statistics too) drawn at random."""
    torch.manual_seed(seed)
    module = module.to(_tdt(dtype)).eval()
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(-1.0, 1.0)
        for name, b in module.named_buffers():
            if b.is_floating_point():
                b.uniform_(0.5, 1.5) if "var" in name else b.uniform_(-0.5, 0.5)
    return module


def _same_names(ours, ref):
    """PyG's state-dict names (batch norms' ``num_batches_tracked`` carry nothing)."""
    theirs = [k for k in ref.state_dict() if not k.endswith("num_batches_tracked")]
    assert sorted(ours.state_dict()) == sorted(theirs)


# ---------------------------------------------------------------- auto-encoders
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
def test_inner_product_decoder(kind, index_dtype, dtype):
    rng = np.random.default_rng(1)
    z = rng.standard_normal((N, 9)).astype(dtype)
    ei = _graph(rng, kind, index_dtype)
    ref = pyg_nn.models.InnerProductDecoder()
    dec = agnn.from_pyg(ref)
    assert isinstance(dec, agnn.InnerProductDecoder)
    z_copy = z.copy()
    for sigmoid in (True, False):
        out = dec(z, ei, sigmoid=sigmoid)
        assert out.dtype == dtype and out.shape == (ei.shape[1],)
        assert rel_err(out, _np(ref(_t(z), _t(ei), sigmoid=sigmoid))) <= TOL[dtype]
        dense = dec.forward_all(z, sigmoid=sigmoid)
        assert rel_err(dense, _np(ref.forward_all(_t(z), sigmoid=sigmoid))) <= TOL[dtype]
    np.testing.assert_array_equal(z, z_copy)


def test_inner_product_decoder_errors():
    dec = agnn.InnerProductDecoder()
    z = np.ones((3, 2), np.float32)
    with pytest.raises(ValueError, match=r"InnerProductDecoder: edge_index\[1\].*out of range"):
        dec(z, np.array([[0, 1], [1, 3]]))
    with pytest.raises(ValueError, match="InnerProductDecoder: edge_index must have shape"):
        dec(z, np.array([0, 1]))
    with pytest.raises(TypeError, match="InnerProductDecoder: z must hold floating"):
        dec(np.ones((3, 2), np.int64), np.array([[0], [1]]))
    with pytest.raises(TypeError, match="InnerProductDecoder.forward_all: z must be a 2-D"):
        dec.forward_all(np.ones(3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_gae_from_pyg(kind, dtype):
    rng = np.random.default_rng(2)
    ref = _randomise(pyg_nn.models.GAE(pyg_nn.models.GCN(5, 8, num_layers=2)), dtype)
    model = agnn.from_pyg(ref)
    assert isinstance(model, agnn.GAE) and isinstance(model.decoder, agnn.InnerProductDecoder)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int32)
    neg = _graph(rng, "multi", np.int64)
    z = model.encode(x, ei)
    with torch.no_grad():
        zr = ref.encode(_t(x), _t(ei))
        assert rel_err(z, _np(zr)) <= TOL[dtype]
        assert rel_err(model(x, ei), _np(zr)) <= TOL[dtype]  # calling = encode
        assert rel_err(model.decode(z, neg), _np(ref.decode(zr, _t(neg)))) <= TOL[dtype]
        if ei.shape[1]:
            loss = model.recon_loss(z, ei, neg)
            assert rel_err(loss, _np(ref.recon_loss(zr, _t(ei), _t(neg)))) <= TOL[dtype]


class _VEncoder(torch.nn.Module):
    """A user-written VGAE encoder (two GCNConvs: mu and logstd)."""

    def __init__(self):
        super().__init__()
        self.conv_mu = pyg_nn.GCNConv(5, 4)
        self.conv_logstd = pyg_nn.GCNConv(5, 4)

    def forward(self, x, edge_index):
        return self.conv_mu(x, edge_index), self.conv_logstd(x, edge_index) * 8.0


class _AgVEncoder(Module):
    """The same encoder on arraygnn layers, PyG's parameter names."""

    _child_names = ("conv_mu", "conv_logstd")

    def __init__(self, dtype):
        self.conv_mu = agnn.GCNConv(5, 4, dtype=dtype)
        self.conv_logstd = agnn.GCNConv(5, 4, dtype=dtype)

    def __call__(self, x, edge_index):
        return self.conv_mu(x, edge_index), self.conv_logstd(x, edge_index) * 8.0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["multi", "isolated"])
def test_vgae_and_argva(kind, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int64)
    disc = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 1))
    refs = {
        "VGAE": pyg_nn.models.VGAE(_VEncoder()),
        "ARGVA": pyg_nn.models.ARGVA(_VEncoder(), disc),
    }
    for name, ref in refs.items():
        ref = _randomise(ref, dtype)
        with pytest.raises(
            ValueError, match=rf"from_pyg: {name}.encoder \(_VEncoder\).*load_state"
        ):
            agnn.from_pyg(ref)
        if name == "VGAE":
            model = agnn.VGAE(_AgVEncoder(dtype))
        else:
            model = agnn.ARGVA(_AgVEncoder(dtype), agnn.from_pyg(ref.discriminator))
        model.load_state_dict(ref.state_dict())
        _same_names(model, ref)  # ARGVA repeats the encoder under VGAE., as PyG's
        with torch.no_grad():
            zr = ref.encode(_t(x), _t(ei))
            z = model.encode(x, ei)
            assert rel_err(z, _np(zr)) <= TOL[dtype]  # eval: mu
            assert rel_err(model.__logstd__, _np(ref.__logstd__)) <= TOL[dtype]  # clamped
            assert float(np.max(model.__logstd__)) <= 10.0
            assert rel_err(model.kl_loss(), _np(ref.kl_loss())) <= TOL[dtype]
            mu, ls = z * 0.5, z * 3.0
            assert rel_err(model.kl_loss(mu, ls), _np(ref.kl_loss(_t(mu), _t(ls)))) <= TOL[dtype]
            if name == "ARGVA":
                assert rel_err(model.reg_loss(z), _np(ref.reg_loss(zr))) <= TOL[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
def test_arga_from_pyg(dtype):
    rng = np.random.default_rng(4)
    disc = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 1))
    ref = _randomise(pyg_nn.models.ARGA(pyg_nn.models.GCN(5, 8, 2), disc), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, "multi", np.int32)
    with torch.no_grad():
        zr = ref.encode(_t(x), _t(ei))
        z = model.encode(x, ei)
        assert rel_err(z, _np(zr)) <= TOL[dtype]
        assert rel_err(model.reg_loss(z), _np(ref.reg_loss(zr))) <= TOL[dtype]


def test_autoencoder_errors_and_test_metrics():
    z = np.random.default_rng(0).standard_normal((6, 3))
    pos, neg = np.array([[0, 1], [1, 2]]), np.array([[3, 4], [5, 0]])
    model = agnn.GAE(lambda x, ei: x)  # any callable encoder: no weights
    assert model.state_dict() == {}
    # negatives drawn as PyG's (negative_sampling over z's nodes), reproducible from seed
    from arraygnn.utils import negative_sampling

    drawn = negative_sampling(pos, 6, seed=3)
    assert model.recon_loss(z, pos, seed=3) == model.recon_loss(z, pos, drawn)
    assert np.isfinite(model.recon_loss(z, pos))
    with pytest.raises(ValueError, match="GAE.recon_loss: give neg_edge_index or seed"):
        model.recon_loss(z, pos, neg, seed=1)
    with pytest.raises(TypeError, match="GAE: encoder must be callable"):
        agnn.GAE(3)
    with pytest.raises(ValueError, match="VGAE: the encoder must return \\(mu, logstd\\)"):
        agnn.VGAE(lambda x: x).encode(z)
    with pytest.raises(ValueError, match="VGAE.kl_loss: call encode first"):
        agnn.VGAE(lambda x: x).kl_loss()
    with pytest.raises(TypeError, match="ARGA: discriminator must be callable"):
        agnn.ARGA(lambda x: x, None)
    if importlib.util.find_spec("sklearn") is None:
        with pytest.raises(ImportError, match="GAE.test needs scikit-learn"):
            model.test(z, pos, neg)
    else:
        ref = pyg_nn.models.GAE(torch.nn.Identity())
        auc, ap = model.test(z, pos, neg)
        ref_auc, ref_ap = ref.test(_t(z), _t(pos), _t(neg))
        assert (auc, ap) == pytest.approx((ref_auc, ref_ap))


# ---------------------------------------------------------------- label propagation
def _dgl_label_propagation(ei, n, labels, mask, k, alpha, norm_type, clamp, normalize, reset):
    """DGL's ``dgl.nn.LabelPropagation.forward`` (python/dgl/nn/pytorch/utils.py)
    transcribed onto torch with the message passing written out (DGL does not install
    here): ``copy_u`` + ``sum`` is an ``index_add`` over the edges."""
    src, dst = torch.from_numpy(ei[0].astype(np.int64)), torch.from_numpy(ei[1].astype(np.int64))
    labels = torch.from_numpy(labels)
    mask = None if mask is None else torch.from_numpy(mask)
    if len(labels.size()) > 1 and labels.size(1) > 1:
        labels = labels.to(torch.float32)
    else:
        labels = F.one_hot(labels.view(-1)).to(torch.float32)
    y = labels
    if mask is not None:
        y = torch.zeros_like(labels)
        y[mask] = labels[mask]
    init = (1 - alpha) * y
    in_degs = torch.bincount(dst, minlength=n).float().clamp(min=1)
    out_degs = torch.bincount(src, minlength=n).float().clamp(min=1)
    if norm_type == "sym":
        norm_i = torch.pow(in_degs, -0.5).unsqueeze(1)
        norm_j = torch.pow(out_degs, -0.5).unsqueeze(1)
    else:
        norm_i = torch.pow(in_degs, -1.0).unsqueeze(1)
    for _ in range(k):
        h = y * norm_j if norm_type == "sym" else y
        h = torch.zeros_like(h).index_add_(0, dst, h[src])
        y = init + alpha * h * norm_i
        if clamp:
            y = y.clamp_(0.0, 1.0)
        if normalize:
            y = F.normalize(y, p=1)
        if reset:
            y[mask] = labels[mask]
    return y.numpy()


def _labels(rng, form, dtype, n=N):
    if form == "ids":
        return rng.integers(0, 4, n)
    if form == "ids-column":
        return rng.integers(0, 4, (n, 1))
    return rng.random((n, 4)).astype(dtype)


def _mask(rng, form, n=N):
    if form is None:
        return None
    chosen = rng.random(n) < 0.4
    chosen[:2] = True
    return chosen if form == "bool" else np.flatnonzero(chosen).astype(np.int32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("mask_form", [None, "bool", "ids"])
@pytest.mark.parametrize("label_form", ["ids", "ids-column", "matrix"])
def test_label_propagation_pyg(label_form, mask_form, weighted, kind, index_dtype, dtype):
    rng = np.random.default_rng(5)
    ei = _graph(rng, kind, index_dtype)
    y = _labels(rng, label_form, dtype)
    mask = _mask(rng, mask_form)
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(dtype) if weighted else None
    ref = pyg_nn.models.LabelPropagation(num_layers=3, alpha=0.8)
    lp = agnn.from_pyg(ref)
    copies = [a.copy() for a in (y, ei) + ((mask,) if mask is not None else ())]
    out = lp(y, ei, mask, w)
    expected = _np(ref(_t(y), _t(ei), _t(mask), _t(w)))
    assert out.dtype == expected.dtype
    tol = TOL[np.float32 if label_form != "matrix" else dtype]
    assert rel_err(out, expected) <= tol
    for a, b in zip((y, ei, mask), copies):
        np.testing.assert_array_equal(a, b)  # nothing the caller passed is changed


@pytest.mark.parametrize("dtype", DTYPES)
def test_label_propagation_post_step_and_graph_form(dtype):
    rng = np.random.default_rng(6)
    ei = _graph(rng, "multi", np.int64)
    y = rng.standard_normal((N, 3)).astype(dtype)
    mask = _mask(rng, "bool")
    ref = pyg_nn.models.LabelPropagation(4, 0.6)
    lp = agnn.LabelPropagation(4, 0.6)

    def ours(x):
        x[mask] = y[mask]
        return x

    def theirs(x):
        x[_t(mask)] = _t(y)[_t(mask)]
        return x

    expected = _np(ref(_t(y), _t(ei), post_step=theirs))
    assert rel_err(lp(y, ei, post_step=ours), expected) <= TOL[dtype]
    # PyG's normalisation over a DGL-face graph: norm_type='gcn'
    g = arraygnn.graph((ei[0], ei[1]), num_nodes=N)
    lp_gcn = agnn.LabelPropagation(4, 0.6, "gcn")
    expected = _np(ref(_t(y), _t(ei), _t(mask)))
    assert rel_err(lp_gcn(g, y, mask), expected) <= TOL[dtype]


@pytest.mark.parametrize("form", ["graph", "edge_index"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("norm_type", ["sym", "row"])
@pytest.mark.parametrize("flags", [(True, False, False), (False, True, False), (True, True, True)])
@pytest.mark.parametrize("mask_form", [None, "bool"])
@pytest.mark.parametrize("label_form", ["ids", "ids-column", "matrix"])
def test_label_propagation_dgl(label_form, mask_form, flags, norm_type, kind, form):
    rng = np.random.default_rng(7)
    ei = _graph(rng, kind, np.int32)
    y = _labels(rng, label_form, np.float64)  # DGL: float32 out whatever comes in
    if label_form == "ids":
        y[0] = 3  # DGL's one_hot width is max + 1
    mask = _mask(rng, mask_form)
    clamp, normalize, reset = flags
    if reset and mask is None:
        mask = _mask(rng, "bool")
    expected = _dgl_label_propagation(ei, N, y, mask, 3, 0.7, norm_type, clamp, normalize, reset)
    if form == "graph":
        lp = agnn.LabelPropagation(k=3, alpha=0.7, norm_type=norm_type, clamp=clamp,
                                   normalize=normalize, reset=reset)  # fmt: skip
        out = lp(arraygnn.graph((ei[0], ei[1]), num_nodes=N), y, mask)
    else:
        lp = agnn.LabelPropagation(3, 0.7, norm_type, clamp, normalize, reset)
        out = lp(y, ei, mask)
    assert out.dtype == np.float32
    assert rel_err(out, expected) <= TOL[np.float32]


def test_label_propagation_dgl_default_sym():
    """``(graph, labels)`` with ``norm_type=None`` is DGL's ``'sym'``."""
    rng = np.random.default_rng(8)
    ei = _graph(rng, "multi", np.int64)
    y = rng.integers(0, 3, N)
    expected = _dgl_label_propagation(ei, N, y, None, 2, 0.5, "sym", True, False, False)
    out = agnn.LabelPropagation(k=2, alpha=0.5)(arraygnn.graph((ei[0], ei[1]), num_nodes=N), y)
    assert rel_err(out, expected) <= TOL[np.float32]
    assert agnn.LabelPropagation(k=2, alpha=0.5).k == 2


def test_label_propagation_errors():
    ei = np.array([[0, 1], [1, 2]])
    y = np.array([0, 1, 1])
    lp = agnn.LabelPropagation(2, 0.5)
    with pytest.raises(ValueError, match="LabelPropagation: a boolean mask must have one entry"):
        lp(y, ei, np.array([True, False]))
    with pytest.raises(ValueError, match=r"LabelPropagation: mask holds node ids outside \[0, 3\)"):
        lp(y, ei, np.array([0, 3]))
    with pytest.raises(TypeError, match="LabelPropagation: mask must be boolean or integer"):
        lp(y, ei, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="LabelPropagation: float labels must be a matrix"):
        lp(np.array([0.0, 1.0, 1.0]), ei)
    with pytest.raises(ValueError, match=r"LabelPropagation: edge_index\[1\].*out of range"):
        lp(y, np.array([[0, 1], [1, 5]]))
    with pytest.raises(ValueError, match="LabelPropagation: labels as class ids"):
        lp(np.array([0, -1, 1]), ei)
    with pytest.raises(ValueError, match="LabelPropagation: edge_weight is PyG's"):
        agnn.LabelPropagation(2, 0.5, "sym")(y, ei, None, np.ones(2, np.float32))
    with pytest.raises(TypeError, match="LabelPropagation: edge_weight must hold floating"):
        lp(y, ei, None, np.ones(2, np.int64))
    with pytest.raises(ValueError, match="LabelPropagation: give num_layers \\(PyG\\) or k"):
        agnn.LabelPropagation(2, 0.5, k=3)
    with pytest.raises(ValueError, match="LabelPropagation: norm_type must be"):
        agnn.LabelPropagation(2, 0.5, "both")
    with pytest.raises(TypeError, match="LabelPropagation: labels must be a NumPy"):
        lp([0, 1, 1], ei)
    with pytest.raises(TypeError, match="LabelPropagation: class ids must be integers"):
        agnn.LabelPropagation(2, 0.5, "row")(np.array([0.0, 1.0, 1.0]), ei)
    # an explicit num_classes fixes the one-hot width (an empty graph too)
    out = lp(np.zeros(0, np.int64), np.zeros((2, 0), np.int64), num_classes=3)
    assert out.shape == (0, 3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("autoscale", [True, False])
@pytest.mark.parametrize("mask_form", ["bool", "ids"])
@pytest.mark.parametrize("true_form", ["ids", "one-hot"])
@pytest.mark.parametrize("weighted", [False, True])
def test_correct_and_smooth(weighted, true_form, mask_form, autoscale, kind, dtype):
    rng = np.random.default_rng(9)
    ei = _graph(rng, kind, np.int64)
    y_soft = rng.random((N, 4)).astype(dtype)
    y_soft /= y_soft.sum(1, keepdims=True)
    mask = _mask(rng, mask_form)
    labels = rng.integers(0, 4, N)[mask]
    y_true = labels if true_form == "ids" else np.eye(4, dtype=dtype)[labels]
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(dtype) if weighted else None
    ref = pyg_nn.models.CorrectAndSmooth(3, 0.8, 2, 0.6, autoscale=autoscale, scale=0.7)
    cs = agnn.from_pyg(ref)
    args = (y_true, mask, ei, w)
    targs = tuple(_t(a) for a in args)
    y_copy = y_soft.copy()
    for ours, theirs in ((cs.correct, ref.correct), (cs.smooth, ref.smooth)):
        out = ours(y_soft, *args)
        expected = _np(theirs(_t(y_soft), *targs))
        assert out.dtype == dtype
        np.testing.assert_allclose(out, expected, rtol=TOL[dtype] * 10, atol=TOL[dtype])
    expected = _np(ref.smooth(ref.correct(_t(y_soft), *targs), *targs))
    np.testing.assert_allclose(cs(y_soft, *args), expected, rtol=TOL[dtype] * 10, atol=TOL[dtype])
    np.testing.assert_array_equal(y_soft, y_copy)


def test_correct_and_smooth_errors():
    cs = agnn.CorrectAndSmooth(2, 0.5, 2, 0.5)
    y_soft = np.full((3, 2), 0.5)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"CorrectAndSmooth.correct: y_true must have one row"):
        cs.correct(y_soft, np.array([0, 1]), np.array([True, False, False]), ei)
    with pytest.raises(TypeError, match="CorrectAndSmooth.smooth: y_soft must be a 2-D float"):
        cs.smooth(np.ones(3), np.array([0]), np.array([0]), ei)
    with pytest.raises(ValueError, match="CorrectAndSmooth.correct: mask is required"):
        cs.correct(y_soft, np.array([0]), None, ei)


# ---------------------------------------------------------------- LightGCN
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("variant", ["default", "alpha-float", "alpha-tensor", "no-normalize"])
def test_lightgcn(variant, weighted, kind, index_dtype, dtype):
    rng = np.random.default_rng(10)
    kwargs = {
        "default": {},
        "alpha-float": {"alpha": 0.3},
        "alpha-tensor": {"alpha": torch.tensor([0.5, 0.2, 0.2, 0.1])},
        "no-normalize": {"normalize": False},
    }[variant]
    ref = _randomise(pyg_nn.models.LightGCN(N, 6, 3, **kwargs), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    ei = _graph(rng, kind, index_dtype)
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(dtype) if weighted else None
    label = _graph(rng, "multi", index_dtype)
    with torch.no_grad():
        emb = model.get_embedding(ei, w)
        assert emb.dtype == dtype
        assert rel_err(emb, _np(ref.get_embedding(_t(ei), _t(w)))) <= TOL[dtype]
        assert rel_err(model(ei, label, w), _np(ref(_t(ei), _t(label), _t(w)))) <= TOL[dtype]
        assert rel_err(model(ei, None, w), _np(ref(_t(ei), None, _t(w)))) <= TOL[dtype]
        prob = model.predict_link(ei, label, w, prob=True)
        assert rel_err(prob, _np(ref.predict_link(_t(ei), _t(label), _t(w), True))) <= TOL[dtype]
        hard = model.predict_link(ei, label, w)
        expected = _np(ref.predict_link(_t(ei), _t(label), _t(w)))
        clear = np.abs(prob - 0.5) > 1e-6  # a probability at 0.5 may round either way
        np.testing.assert_array_equal(hard[clear], expected[clear])
        src, dst = np.array([0, 4, 7, 19], index_dtype), np.array([1, 3, 5, 8, 9, 11], index_dtype)
        for s, d, k in ((None, None, 3), (src, dst, 2), (src, None, 1), (None, dst, 6)):
            top = model.recommend(ei, w, s, d, k)
            expected = ref.recommend(_t(ei), _t(w), _t(s), _t(d), k).numpy()
            np.testing.assert_array_equal(top, expected)


@pytest.mark.parametrize("shape_k", [((5, 7), 3), ((5, 7), 7), ((3, 1), 1), ((40, 300), 17)])
def test_top_k_indices(shape_k):
    """``recommend``'s ranking against ``torch.topk``: the same ids for distinct scores
    (NaN ranks first, as torch's), the same values on ties (smaller id first here)."""
    from arraygnn.nn.lightgcn import top_k_indices

    (rows, cols), k = shape_k
    rng = np.random.default_rng(23)
    scores = rng.standard_normal((rows, cols)).astype(np.float32)
    scores[0, -1] = np.nan
    expected = torch.from_numpy(scores).topk(k, dim=-1).indices.numpy()
    np.testing.assert_array_equal(top_k_indices(scores, k), expected)
    ties = rng.integers(0, 3, (rows, cols)).astype(np.float64)
    got = top_k_indices(ties, k)
    expected = torch.from_numpy(ties).topk(k, dim=-1).indices.numpy()
    np.testing.assert_array_equal(
        np.take_along_axis(ties, got, 1), np.take_along_axis(ties, expected, 1)
    )
    for row, ids in zip(ties, got):  # among equal scores, ascending ids
        for a, b in zip(ids[:-1], ids[1:]):
            assert row[a] > row[b] or (row[a] == row[b] and a < b)
    assert top_k_indices(scores, 0).shape == (rows, 0)


def test_lightgcn_errors():
    model = agnn.LightGCN(5, 4, 2, rng=0)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"LightGCN: edge_index\[0\].*out of range for 5"):
        model.get_embedding(np.array([[7], [1]]))
    with pytest.raises(ValueError, match=r"LightGCN: edge_label_index: edge_index\[1\]"):
        model(ei, np.array([[0], [9]]))
    with pytest.raises(ValueError, match="LightGCN.recommend: k=6 is more than the 5"):
        model.recommend(ei, k=6)
    with pytest.raises(ValueError, match="LightGCN.recommend: dst_index has entry 5"):
        model.recommend(ei, dst_index=np.array([5]))
    with pytest.raises(ValueError, match="LightGCN: alpha must hold num_layers \\+ 1 = 3"):
        agnn.LightGCN(5, 4, 2, alpha=[0.5, 0.5])
    assert sorted(model.state_dict()) == ["alpha", "embedding.weight"]


# ---------------------------------------------------------------- LINKX
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layers", [(1, 1, 1), (2, 2, 3), (3, 1, 2)])
@pytest.mark.parametrize("with_x", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_linkx(weighted, with_x, layers, kind, dtype):
    num_layers, num_edge_layers, num_node_layers = layers
    rng = np.random.default_rng(11)
    ref = pyg_nn.models.LINKX(N, 5, 8, 3, num_layers, num_edge_layers, num_node_layers)
    ref = _randomise(ref, dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    ei = _graph(rng, kind, np.int32)
    x = rng.standard_normal((N, 5)).astype(dtype) if with_x else None
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(dtype) if weighted else None
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(w)))
    out = model(x, ei, w)
    assert out.dtype == dtype
    assert rel_err(out, expected) <= TOL[dtype] * 10  # four MLPs deep


def test_linkx_built_and_errors():
    model = agnn.LINKX(6, 3, 4, 2, num_layers=2, num_edge_layers=2, rng=0)
    ref = pyg_nn.models.LINKX(6, 3, 4, 2, num_layers=2, num_edge_layers=2)
    _same_names(model, ref)
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="LINKX: x must be an array \\(6, 3\\)"):
        model(np.ones((5, 3), np.float32), ei)
    with pytest.raises(ValueError, match=r"LINKX: edge_index\[0\].*out of range for 6"):
        model(None, np.array([[6], [0]]))


# ---------------------------------------------------------------- DeepGCNLayer / MetaLayer
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("block", ["res+", "res", "dense", "plain"])
@pytest.mark.parametrize("parts", ["gcn-layernorm-relu", "gen-batchnorm", "sage-none"])
@pytest.mark.parametrize("kind", KINDS)
def test_deep_gcn_layer(kind, parts, block, dtype):
    rng = np.random.default_rng(12)
    if parts == "gcn-layernorm-relu":
        conv, norm, act = pyg_nn.GCNConv(6, 6), torch.nn.LayerNorm(6), torch.nn.ReLU()
    elif parts == "gen-batchnorm":
        conv = pyg_nn.GENConv(6, 6, aggr="softmax", t=1.0, num_layers=2, norm="layer")
        norm, act = torch.nn.BatchNorm1d(6), torch.nn.LeakyReLU(0.1)
    else:
        conv, norm, act = pyg_nn.SAGEConv(6, 6), None, None
    ref = _randomise(pyg_nn.DeepGCNLayer(conv, norm, act, block=block, dropout=0.3), dtype)
    layer = agnn.from_pyg(ref)
    _same_names(layer, ref)
    x = rng.standard_normal((N, 6)).astype(dtype)
    ei = _graph(rng, kind, np.int64)
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei)))
    assert rel_err(layer(x, ei), expected) <= TOL[dtype] * 10


def test_deep_gcn_layer_errors():
    with pytest.raises(ValueError, match="DeepGCNLayer: block must be one of"):
        agnn.DeepGCNLayer(agnn.GCNConv(2, 2), block="skip")
    with pytest.raises(TypeError, match="DeepGCNLayer: conv must be a layer"):
        agnn.DeepGCNLayer(None)
    ref = pyg_nn.DeepGCNLayer(pyg_nn.GCNConv(2, 2), act=torch.nn.RReLU())
    with pytest.raises(ValueError, match="DeepGCNLayer act: cannot convert"):
        agnn.from_pyg(ref)


class _EdgeModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.edge_mlp = torch.nn.Sequential(
            torch.nn.Linear(2 * 4 + 3 + 2, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3)
        )

    def forward(self, src, dst, edge_attr, u, batch):
        return self.edge_mlp(torch.cat([src, dst, edge_attr, u[batch]], 1))


class _NodeModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.node_mlp = torch.nn.Sequential(torch.nn.Linear(4 + 3, 4), torch.nn.Tanh())

    def forward(self, x, edge_index, edge_attr, u, batch):
        agg = torch.zeros(x.size(0), edge_attr.size(1), dtype=x.dtype)
        agg = agg.index_add_(0, edge_index[1], edge_attr)
        return self.node_mlp(torch.cat([x, agg], 1))


class _GlobalModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.global_mlp = torch.nn.Sequential(torch.nn.Linear(2 + 4, 2))

    def forward(self, x, edge_index, edge_attr, u, batch):
        pooled = torch.zeros(u.size(0), x.size(1), dtype=x.dtype).index_add_(0, batch, x)
        return self.global_mlp(torch.cat([u, pooled], 1))


class _Part(Module):
    """An arraygnn part: one converted MLP under the PyG part's name, and a forward."""

    def __init__(self, name, mlp, forward):
        setattr(self, name, mlp)
        self._child_names = (name,)
        self._forward = forward

    def __call__(self, *args):
        return self._forward(*args)


def _ag_parts(ref):
    from arraygnn import ops

    emlp = agnn.from_torch(ref.edge_model.edge_mlp)
    nmlp = agnn.from_torch(ref.node_model.node_mlp)
    gmlp = agnn.from_torch(ref.global_model.global_mlp)

    def edge(src, dst, edge_attr, u, batch):
        return emlp(np.concatenate([src, dst, edge_attr, u[batch]], 1))

    def node(x, edge_index, edge_attr, u, batch):
        agg = ops.scatter(edge_attr, edge_index[1], x.shape[0])
        return nmlp(np.concatenate([x, agg], 1))

    def glob(x, edge_index, edge_attr, u, batch):
        return gmlp(np.concatenate([u, ops.scatter(x, batch, u.shape[0])], 1))

    return (
        _Part("edge_mlp", emlp, edge),
        _Part("node_mlp", nmlp, node),
        _Part("global_mlp", gmlp, glob),
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("which", ["all", "edge-node", "node-global"])
def test_meta_layer(which, kind, dtype):
    rng = np.random.default_rng(13)
    parts = [_EdgeModel(), _NodeModel(), _GlobalModel()]
    if which == "edge-node":
        parts[2] = None
    elif which == "node-global":
        parts[0] = None
    ref = _randomise(pyg_nn.MetaLayer(*parts), dtype)
    with pytest.raises(ValueError, match=r"from_pyg: MetaLayer\.\w+_model \(_\w+Model\)"):
        agnn.from_pyg(ref)
    full = _randomise(pyg_nn.MetaLayer(_EdgeModel(), _NodeModel(), _GlobalModel()), dtype)
    if which != "all":  # same weights for the parts present
        full.load_state_dict(ref.state_dict(), strict=False)
    ag = _ag_parts(full)
    layer = agnn.MetaLayer(*(a if p is not None else None for a, p in zip(ag, parts)))
    layer.load_state_dict(ref.state_dict())
    _same_names(layer, ref)
    ei = _graph(rng, kind, np.int64)
    x = rng.standard_normal((N, 4)).astype(dtype)
    edge_attr = rng.standard_normal((ei.shape[1], 3)).astype(dtype)
    batch = np.repeat(np.arange(2), N // 2)
    u = rng.standard_normal((2, 2)).astype(dtype)
    with torch.no_grad():
        expected = ref(_t(x), _t(ei), _t(edge_attr), _t(u), _t(batch))
    out = layer(x, ei, edge_attr, u, batch)
    for a, b in zip(out, expected):
        assert rel_err(a, _np(b)) <= TOL[dtype] * 10


def test_meta_layer_errors():
    layer = agnn.MetaLayer(node_model=lambda x, *rest: x)
    x = np.ones((3, 2))
    with pytest.raises(ValueError, match=r"MetaLayer: edge_index\[0\] has entry 3"):
        layer(x, np.array([[3], [0]]))
    with pytest.raises(TypeError, match="MetaLayer: edge_model must be callable"):
        agnn.MetaLayer(edge_model=3)
    with pytest.raises(ValueError, match="MetaLayer: batch must have one entry per node"):
        layer(x, np.array([[0], [1]]), batch=np.array([0, 0]))


# ---------------------------------------------------------------- HeteroJumpingKnowledge
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["cat", "max", "lstm"])
def test_hetero_jumping_knowledge(mode, dtype):
    rng = np.random.default_rng(14)
    types = ["paper", "author"]
    ref = _randomise(pyg_nn.HeteroJumpingKnowledge(types, mode, channels=4, num_layers=3), dtype)
    jk = agnn.from_pyg(ref)
    _same_names(jk, ref)
    xs = {t: [rng.standard_normal((n, 4)).astype(dtype) for _ in range(3)]
          for t, n in (("paper", 5), ("author", 0))}  # fmt: skip
    out = jk(xs)
    with torch.no_grad():
        expected = ref({t: [_t(a) for a in v] for t, v in xs.items()})
    assert set(out) == set(types)
    for t in types:
        assert rel_err(out[t], _np(expected[t])) <= TOL[dtype] * 10
    built = agnn.HeteroJumpingKnowledge(types, mode, 4, 3, dtype=dtype)
    _same_names(built, ref)
    built.load_state_dict(ref.state_dict())
    for t in types:
        assert rel_err(built(xs)[t], _np(expected[t])) <= TOL[dtype] * 10
    with pytest.raises(KeyError, match="HeteroJumpingKnowledge: xs_dict has no entry"):
        jk({"paper": xs["paper"]})
    with pytest.raises(TypeError, match="HeteroJumpingKnowledge: types must be a list"):
        agnn.HeteroJumpingKnowledge("paper", mode, 4, 3)


# ---------------------------------------------------------------- MaskLabel, PMLP, RECT_L, ...
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["add", "concat"])
@pytest.mark.parametrize("mask_form", ["bool", "ids"])
def test_mask_label(mask_form, method, dtype):
    rng = np.random.default_rng(15)
    ref = _randomise(pyg_nn.MaskLabel(5, 6, method=method), dtype)
    ml = agnn.from_pyg(ref)
    _same_names(ml, ref)
    x = rng.standard_normal((N, 6)).astype(dtype)
    y = rng.integers(0, 5, N).astype(np.int32)
    mask = _mask(rng, mask_form)
    x_copy = x.copy()
    out = ml(x, y, mask)
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(y), _t(mask)))
    assert out.dtype == dtype
    assert rel_err(out, expected) <= TOL[dtype]
    np.testing.assert_array_equal(x, x_copy)
    kept = agnn.MaskLabel.ratio_mask(mask if mask.dtype == bool else np.ones(N, bool), 0.5, 0)
    assert kept.dtype == bool and kept.sum() <= N


def test_mask_label_errors():
    ml = agnn.MaskLabel(3, 2, rng=0)
    x, mask = np.zeros((4, 2), np.float32), np.array([True, True, False, False])
    with pytest.raises(ValueError, match=r"MaskLabel: y\[mask\] has entry 3"):
        ml(x, np.array([3, 0, 0, 0]), mask)
    with pytest.raises(ValueError, match="MaskLabel: y must hold one label per node"):
        ml(x, np.array([0, 1]), mask)
    with pytest.raises(ValueError, match="MaskLabel: method='add' needs x with out_channels=2"):
        ml(np.zeros((4, 3), np.float32), np.zeros(4, np.int64), mask)
    with pytest.raises(ValueError, match="MaskLabel: method must be"):
        agnn.MaskLabel(3, 2, method="mul")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["multi", "isolated"])
@pytest.mark.parametrize("variant", [(2, True, True), (3, True, False), (4, False, True)])
def test_pmlp(variant, kind, dtype):
    num_layers, norm, bias = variant
    rng = np.random.default_rng(16)
    ref = _randomise(pyg_nn.models.PMLP(5, 8, 3, num_layers, norm=norm, bias=bias), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int32)
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei)))
    assert rel_err(model(x, ei), expected) <= TOL[dtype] * 10
    with pytest.raises(ValueError, match="PMLP: edge_index is required at inference"):
        model(x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_rect_l(weighted, normalize, kind, dtype):
    rng = np.random.default_rng(17)
    ref = _randomise(pyg_nn.models.RECT_L(5, 8, normalize=normalize), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int64)
    w = rng.uniform(0.1, 1.0, ei.shape[1]).astype(dtype) if weighted else None
    with torch.no_grad():
        assert rel_err(model(x, ei, w), _np(ref(_t(x), _t(ei), _t(w)))) <= TOL[dtype]
        assert rel_err(model.embed(x, ei, w), _np(ref.embed(_t(x), _t(ei), _t(w)))) <= TOL[dtype]
    y = rng.integers(0, 4, N)
    for mask in (_mask(rng, "bool"), _mask(rng, "ids")):
        expected = _np(ref.get_semantic_labels(_t(x), _t(y), _t(mask)))
        assert rel_err(model.get_semantic_labels(x, y, mask), expected) <= TOL[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("batched", [False, True])
def test_neural_fingerprint(batched, kind, dtype):
    rng = np.random.default_rng(18)
    ref = _randomise(pyg_nn.models.NeuralFingerprint(5, 8, 4, num_layers=3, max_degree=3), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int32)
    batch = np.repeat(np.arange(3), [7, 7, 6]) if batched else None
    size = 4 if batched else None  # a graph without nodes gets zeros
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(batch), size))
    assert rel_err(model(x, ei, batch, size), expected) <= TOL[dtype] * 10


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("num_layers", [1, 3])
def test_signed_gcn(num_layers, kind, dtype):
    rng = np.random.default_rng(19)
    ref = _randomise(pyg_nn.models.SignedGCN(5, 8, num_layers), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    pos, neg = _graph(rng, kind, np.int64), _graph(rng, "multi", np.int32)
    with torch.no_grad():
        zr = ref(_t(x), _t(pos), _t(neg))
        z = model(x, pos, neg)
        assert rel_err(z, _np(zr)) <= TOL[dtype] * 10
        expected = _np(ref.discriminate(zr, _t(neg)))
        assert rel_err(model.discriminate(z, neg), expected) <= TOL[dtype] * 10
    with pytest.raises(ValueError, match=r"SignedGCN.discriminate: edge_index\[0\] has entry"):
        model.discriminate(z, np.array([[N], [0]]))


def test_signed_gcn_spectral_features():
    """PyG's signed adjacency, its top right singular vectors (the subspace: SVD signs and
    scikit-learn's randomised solver are free to differ)."""
    rng = np.random.default_rng(20)
    pos, neg = _graph(rng, "multi", np.int64), _graph(rng, "multi", np.int64)
    model = agnn.SignedGCN(4, 8, 1, rng=0)
    feats = model.create_spectral_features(pos, neg, num_nodes=N)
    assert feats.shape == (N, 4) and feats.dtype == np.float32
    dense = np.zeros((N, N))
    for (a, b), v in zip(np.concatenate([pos, neg], 1).T, [2.0] * 70 + [0.0] * 70):
        dense[a, b] += v
        dense[b, a] += v
    dense[np.nonzero(dense)] -= 1.0
    present = np.zeros((N, N), bool)
    ei = np.concatenate([pos, neg], 1)
    present[ei[0], ei[1]] = present[ei[1], ei[0]] = True
    dense[present & (dense == 0)] = -1.0  # a stored neg pair (0 - 1)
    dense[~present] = 0.0
    _, s, vt = np.linalg.svd(dense)
    top = vt[:4].T
    projector = top @ top.T
    np.testing.assert_allclose(projector @ feats, feats, atol=1e-4)  # same subspace
    with pytest.raises(ValueError, match="SignedGCN.create_spectral_features: in_channels=4"):
        model.create_spectral_features(pos[:, :1] * 0, neg[:, :1] * 0 + 1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("variant", ["depth1", "depth3-cat", "ratios"])
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_graph_unet(weighted, batched, variant, kind, dtype):
    rng = np.random.default_rng(21)
    kwargs = {
        "depth1": {"depth": 1},
        "depth3-cat": {"depth": 3, "sum_res": False},
        "ratios": {"depth": 2, "pool_ratios": [0.7, 0.4]},
    }[variant]
    ref = _randomise(pyg_nn.models.GraphUNet(5, 8, 3, **kwargs), dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int64)
    batch = np.repeat(np.arange(2), N // 2) if batched else None
    w = rng.uniform(0.5, 1.5, ei.shape[1]).astype(dtype) if weighted else None
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(batch), _t(w)))
    assert rel_err(model(x, ei, batch, w), expected) <= TOL[dtype] * 10


def test_graph_unet_errors():
    model = agnn.GraphUNet(3, 4, 2, depth=1, rng=0)
    x = np.ones((4, 3), np.float32)
    with pytest.raises(ValueError, match=r"GraphUNet: edge_index has entry 4"):
        model(x, np.array([[0, 4], [1, 2]]))
    with pytest.raises(ValueError, match=r"GraphUNet: edge_weight must have shape \(2,\)"):
        model(x, np.array([[0, 1], [1, 2]]), edge_weight=np.ones(3, np.float32))
    built = pyg_nn.models.GraphUNet(3, 4, 2, depth=2)
    _same_names(agnn.GraphUNet(3, 4, 2, depth=2), built)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["multi", "isolated", "empty"])
@pytest.mark.parametrize("layers", [(1, 0), (2, 2), (3, 1)])
def test_attentive_fp(layers, kind, dtype):
    num_layers, num_timesteps = layers
    rng = np.random.default_rng(22)
    ref = pyg_nn.models.AttentiveFP(5, 8, 3, 4, num_layers, num_timesteps)
    ref = _randomise(ref, dtype)
    model = agnn.from_pyg(ref)
    _same_names(model, ref)
    x = rng.standard_normal((N, 5)).astype(dtype)
    ei = _graph(rng, kind, np.int32)
    edge_attr = rng.standard_normal((ei.shape[1], 4)).astype(dtype)
    batch = np.repeat(np.arange(3), [6, 8, 6])
    with torch.no_grad():
        expected = _np(ref(_t(x), _t(ei), _t(edge_attr), _t(batch)))
    out = model(x, ei, edge_attr, batch, batch_size=3)
    assert out.shape == (3, 3)
    assert rel_err(out, expected) <= TOL[dtype] * 10  # GRU and attention steps
    built = agnn.AttentiveFP(5, 8, 3, 4, num_layers, num_timesteps, dtype=dtype)
    built.load_state_dict(ref.state_dict())
    assert rel_err(built(x, ei, edge_attr, batch, 3), expected) <= TOL[dtype] * 10


def test_attentive_fp_errors():
    model = agnn.AttentiveFP(2, 4, 1, edge_dim=3, num_layers=1, num_timesteps=1, rng=0)
    x, ei = np.ones((3, 2), np.float32), np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match=r"AttentiveFP: edge_attr must have shape \(2, 3\)"):
        model(x, ei, np.ones((2, 2), np.float32), None)
    with pytest.raises(TypeError, match="AttentiveFP: batch must be an integer array"):
        model(x, ei, np.ones((2, 3), np.float32), np.zeros(3))
