"""knn_interpolate, gini / bro, segment_logsumexp, FastRGCNConv and DeepGraphInfomax
against torch_geometric 2.8.

PyG's ``knn`` calls pyg-lib's ``torch.ops.pyg.knn``, which is not installed: the
``pyg_knn`` fixture puts a brute-force torch kernel in its place (every distance, nearest
first, a tie to the lower index), independent of arraygnn's k-d tree search.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.nn._nn_cases import TOL, random_graph, rel_err

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import torch_geometric.nn as pyg_nn  # noqa: E402
from torch_geometric.utils import segment_logsumexp as pyg_segment_logsumexp  # noqa: E402

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.nn import DeepGraphInfomax, FastRGCNConv, RGCNConv, from_pyg  # noqa: E402
from arraygnn.utils import segment_logsumexp  # noqa: E402

DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]
TORCH_DTYPES = {np.float32: torch.float32, np.float64: torch.float64}


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ---------------------------------------------------------------- knn_interpolate
def _brute_knn(x, y, ptr_x, ptr_y, k, cosine, num_workers):
    """pyg-lib's ``knn``: row 0 the point of ``y``, row 1 its neighbour in ``x``."""
    assert not cosine
    if ptr_x is None:
        ptr_x = torch.tensor([0, len(x)])
    if ptr_y is None:
        ptr_y = torch.tensor([0, len(y)])
    rows, cols = [], []
    for b in range(min(len(ptr_x), len(ptr_y)) - 1):
        x0, x1, y0, y1 = (int(ptr_x[b]), int(ptr_x[b + 1]), int(ptr_y[b]), int(ptr_y[b + 1]))
        for i in range(y0, y1):
            d = (x[x0:x1].double() - y[i].double()).pow(2).sum(1).numpy()
            order = np.argsort(d, kind="stable")[:k]
            rows += [i] * len(order)
            cols += [x0 + int(j) for j in order]
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


@pytest.fixture
def pyg_knn(monkeypatch):
    import torch_geometric.typing as typing

    monkeypatch.setattr(typing, "WITH_KNN", True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "knn", _brute_knn, raising=False)


def _pyg_interpolate(x, pos_x, pos_y, batch_x, batch_y, k):
    with torch.no_grad():
        out = pyg_nn.knn_interpolate(
            _t(x),
            _t(pos_x),
            _t(pos_y),
            None if batch_x is None else _t(batch_x.astype(np.int64)),
            None if batch_y is None else _t(batch_y.astype(np.int64)),
            k=k,
        )
    return out.numpy()


# (x sizes per example, y sizes per example, k); None: no batch vectors
KNN_CASES = [
    (None, None, 3),
    ([5, 1, 7], [4, 3, 6], 3),  # one example with fewer points than k
    ([4, 6], [3, 2], 10),  # k larger than every example
    ([3, 0, 5], [2, 3, 4], 2),  # an example without points of x: NaN there, as PyG
    ([6], [0], 2),  # no points to interpolate at
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("case", range(len(KNN_CASES)))
def test_knn_interpolate_matches_pyg(pyg_knn, dtype, index_dtype, case):
    sizes_x, sizes_y, k = KNN_CASES[case]
    rng = np.random.default_rng(case)
    if sizes_x is None:
        n, m, batch_x, batch_y = 12, 9, None, None
    else:
        n, m = sum(sizes_x), sum(sizes_y)
        batch_x = np.repeat(np.arange(len(sizes_x)), sizes_x).astype(index_dtype)
        batch_y = np.repeat(np.arange(len(sizes_y)), sizes_y).astype(index_dtype)
    x = rng.standard_normal((n, 4)).astype(dtype)
    pos_x = rng.standard_normal((n, 3)).astype(dtype)
    pos_y = rng.standard_normal((m, 3)).astype(dtype)
    pos_y[:1] = pos_x[:1] if m and n else pos_y[:1]  # a point on top of a point of x
    before = [a.copy() for a in (x, pos_x, pos_y)]
    expected = _pyg_interpolate(x, pos_x, pos_y, batch_x, batch_y, k)
    out = agnn.knn_interpolate(x, pos_x, pos_y, batch_x, batch_y, k=k)
    assert out.dtype == dtype and out.shape == expected.shape == (m, 4)
    assert np.array_equal(np.isnan(out), np.isnan(expected))
    ok = ~np.isnan(expected)
    assert rel_err(out[ok], expected[ok]) <= 10 * TOL[dtype]
    for a, b in zip(before, (x, pos_x, pos_y)):
        assert np.array_equal(a, b)


def test_knn_interpolate_dtypes_follow_torch(pyg_knn):
    rng = np.random.default_rng(3)
    pos_x, pos_y = rng.standard_normal((8, 2)), rng.standard_normal((5, 2))
    for x, px in (
        (rng.standard_normal((8, 3)), pos_x.astype(np.float32)),  # float64 x, float32 pos
        (rng.standard_normal((8, 3)).astype(np.float32), pos_x),  # float32 x, float64 pos
        (rng.integers(-5, 5, (8, 3)), pos_x.astype(np.float32)),  # int x: the weights' float
    ):
        py = pos_y.astype(px.dtype)
        expected = _pyg_interpolate(x, px, py, None, None, 3)
        out = agnn.knn_interpolate(x, px, py)
        assert str(out.dtype) == str(expected.dtype).replace("torch.", "")
        assert rel_err(out, expected) <= 1e-5


def test_knn_interpolate_no_points_of_x_gives_nan(pyg_knn):
    pos_y = np.zeros((3, 2))
    out = agnn.knn_interpolate(np.zeros((0, 4)), np.zeros((0, 2)), pos_y)
    expected = _pyg_interpolate(np.zeros((0, 4)), np.zeros((0, 2)), pos_y, None, None, 3)
    assert out.shape == expected.shape == (3, 4) and np.isnan(out).all()
    assert np.isnan(expected).all()


def test_knn_interpolate_errors():
    x, pos = np.ones((4, 2)), np.zeros((4, 3))
    with pytest.raises(ValueError, match="knn_interpolate: x must be \\[N, F\\]"):
        agnn.knn_interpolate(np.ones(4), pos, pos)
    with pytest.raises(ValueError, match="knn_interpolate: x has 3 rows but pos_x has 4"):
        agnn.knn_interpolate(np.ones((3, 2)), pos, pos)
    with pytest.raises(TypeError, match="knn_interpolate: pos_y must hold floating-point"):
        agnn.knn_interpolate(x, pos, np.zeros((2, 3), np.int64))
    with pytest.raises(TypeError, match="knn_interpolate: x must be a NumPy or CuPy array"):
        agnn.knn_interpolate(x.tolist(), pos, pos)
    with pytest.raises(TypeError, match="knn_interpolate: x must hold numbers"):
        agnn.knn_interpolate(np.ones((4, 2), complex), pos, pos)
    with pytest.raises(ValueError, match="knn: k must be >= 1"):
        agnn.knn_interpolate(x, pos, pos, k=0)
    with pytest.raises(ValueError, match="knn: batch_x must be sorted"):
        agnn.knn_interpolate(x, pos, pos, np.array([1, 0, 0, 0]), np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="knn: x and y must have one number of columns"):
        agnn.knn_interpolate(x, pos, np.zeros((2, 2)))


# ---------------------------------------------------------------- gini / bro
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 7), (1, 1), (3, 2), (4, 0)])
def test_gini_matches_pyg(dtype, shape):
    from torch_geometric.nn.functional import gini as pyg_gini

    rng = np.random.default_rng(sum(shape))
    w = rng.standard_normal(shape).astype(dtype)
    if shape == (5, 7):
        w[1] = 0.0  # a zero row: 0 / eps
        w[2, :3] = 2.5  # ties
    out = agnn.gini(w)
    expected = pyg_gini(_t(w)).numpy()
    assert out.dtype == dtype and out.shape == ()
    if shape[1] == 0:
        assert np.isnan(out) and np.isnan(expected)
    else:
        assert rel_err(out, expected) <= 10 * TOL[dtype]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3, 1.5, 0, -1, float("inf"), "fro", "nuc"])
def test_bro_matches_pyg(dtype, index_dtype, p):
    from torch_geometric.nn.functional import bro as pyg_bro

    rng = np.random.default_rng(7)
    x = rng.standard_normal((11, 4)).astype(dtype)
    x[3] = 0.0
    batch = np.array([0, 0, 0, 2, 2, 3, 5, 5, 5, 5, 5], index_dtype)  # ids skip 1 and 4
    out = agnn.bro(x, batch, p=p)
    expected = pyg_bro(_t(x), _t(batch.astype(np.int64)), p=p).numpy()
    assert out.dtype == dtype and np.ndim(out) == 0
    assert rel_err(out, expected) <= 100 * TOL[dtype]


def test_bro_one_graph_and_functional_module():
    from torch_geometric.nn.functional import bro as pyg_bro

    import arraygnn.nn.functional as F

    assert F.bro is agnn.bro and F.gini is agnn.gini and agnn.functional is F
    x = np.random.default_rng(1).standard_normal((6, 3))
    batch = np.zeros(6, np.int64)
    assert rel_err(F.bro(x, batch), pyg_bro(_t(x), _t(batch)).numpy()) <= 1e-12
    assert float(F.bro(np.eye(3), np.arange(3))) == 0.0  # one node of norm 1 per graph


def test_gini_bro_errors():
    with pytest.raises(ValueError, match="gini: w must be two-dimensional"):
        agnn.gini(np.ones(3))
    with pytest.raises(TypeError, match="gini: w must hold floating-point"):
        agnn.gini(np.ones((2, 2), np.int64))
    with pytest.raises(ValueError, match="gini: w has no rows"):
        agnn.gini(np.ones((0, 3)))
    x = np.ones((4, 2))
    with pytest.raises(ValueError, match="bro: batch must be sorted"):
        agnn.bro(x, np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="bro: batch must have shape \\(4,\\)"):
        agnn.bro(x, np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="bro: batch must be an integer array"):
        agnn.bro(x, np.zeros(4))
    with pytest.raises(ValueError, match="bro: batch has a negative graph id"):
        agnn.bro(x, np.array([-1, 0, 0, 0]))
    with pytest.raises(ValueError, match="bro: x has no rows"):
        agnn.bro(np.ones((0, 2)), np.zeros(0, np.int64))
    with pytest.raises(ValueError, match="bro: p must be a number, 'fro' or 'nuc'"):
        agnn.bro(x, np.zeros(4, np.int64), p="max")
    with pytest.raises(TypeError, match="bro: p must be a number"):
        agnn.bro(x, np.zeros(4, np.int64), p=None)


# ---------------------------------------------------------------- segment_logsumexp
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
def test_segment_logsumexp_matches_pyg(dtype, index_dtype, dim):
    rng = np.random.default_rng(dim + 5)
    shape = [4, 9, 3]
    shape[dim] = 9
    src = (5 * rng.standard_normal(shape)).astype(dtype)
    moved = np.moveaxis(src, dim, 0)  # a view: edits reach src
    moved[0] = 800.0  # exp would overflow without the shift
    moved[2:4] = -np.inf  # a run of -inf
    moved[5].flat[0] = np.inf
    ptr = np.array([0, 2, 4, 4, 6, 6, 9], index_dtype)  # empty runs
    before = src.copy()
    out = segment_logsumexp(src, ptr, dim)
    expected = pyg_segment_logsumexp(_t(src), _t(ptr.astype(np.int64)), dim).numpy()
    assert out.dtype == dtype and out.shape == expected.shape
    assert np.array_equal(np.isnan(out), np.isnan(expected))
    assert np.array_equal(np.isinf(out) & (out > 0), np.isinf(expected) & (expected > 0))
    assert np.array_equal(np.isneginf(out), np.isneginf(expected))
    finite = np.isfinite(expected)
    assert rel_err(out[finite], expected[finite]) <= 10 * TOL[dtype]
    assert np.array_equal(src, before)


def test_segment_logsumexp_empty_and_nan():
    src = np.zeros((0, 2), np.float32)
    out = segment_logsumexp(src, np.array([0, 0, 0]), 0)
    expected = pyg_segment_logsumexp(_t(src), torch.tensor([0, 0, 0]), 0).numpy()
    assert out.tolist() == expected.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    src = np.array([1.0, np.nan, 2.0, 3.0])
    ptr = np.array([0, 2, 4])
    out = segment_logsumexp(src, ptr, 0)
    expected = pyg_segment_logsumexp(_t(src), _t(ptr), 0).numpy()
    assert np.isnan(out[0]) and np.isnan(expected[0])
    assert abs(out[1] - expected[1]) <= 1e-12


def test_segment_logsumexp_errors():
    src = np.zeros((4, 2))
    with pytest.raises(ValueError, match="segment_logsumexp: ptr must run from 0 to"):
        segment_logsumexp(src, np.array([0, 3]), 0)
    with pytest.raises(ValueError, match="segment_logsumexp: ptr must run from 0 to"):
        segment_logsumexp(src, np.array([1, 4]), 0)
    with pytest.raises(ValueError, match="segment_logsumexp: ptr must be non-decreasing"):
        segment_logsumexp(src, np.array([0, 3, 1, 4]), 0)
    with pytest.raises(ValueError, match="segment_logsumexp: dim=2 is out of range"):
        segment_logsumexp(src, np.array([0, 2]), 2)
    with pytest.raises(TypeError, match="segment_logsumexp: dim must be an int"):
        segment_logsumexp(src, np.array([0, 4]), 0.0)
    with pytest.raises(TypeError, match="segment_logsumexp: src must hold floating-point"):
        segment_logsumexp(np.zeros(4, np.int64), np.array([0, 4]), 0)
    with pytest.raises(TypeError, match="segment_logsumexp: ptr must be an integer array"):
        segment_logsumexp(src, np.array([0.0, 4.0]), 0)
    with pytest.raises(ValueError, match="segment_logsumexp: ptr must be one-dimensional"):
        segment_logsumexp(src, np.array([[0, 4]]), 0)


# ---------------------------------------------------------------- FastRGCNConv
def test_fast_rgcn_conv_is_rgcn_conv():
    assert FastRGCNConv is RGCNConv


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("aggr", ["mean", "add"])
def test_fast_rgcn_conv_from_pyg(dtype, index_dtype, aggr):
    torch.manual_seed(2)
    ref = pyg_nn.FastRGCNConv(5, 4, num_relations=3, num_bases=2, aggr=aggr)
    ref = ref.to(TORCH_DTYPES[dtype])
    torch.nn.init.uniform_(ref.bias, -1, 1)
    layer = from_pyg(ref)
    assert isinstance(layer, FastRGCNConv)
    rng = np.random.default_rng(2)
    n = 9
    for ei in (random_graph(rng, n, num_edges=30, index_dtype=index_dtype),
               np.zeros((2, 0), index_dtype)):  # fmt: skip
        x = rng.standard_normal((n, 5)).astype(dtype)
        et = rng.integers(0, 3, ei.shape[1]).astype(index_dtype)
        with torch.no_grad():
            expected = ref(_t(x), _t(ei.astype(np.int64)), _t(et.astype(np.int64))).numpy()
        out = layer(x, ei, et)
        assert out.dtype == dtype
        assert rel_err(out, expected) <= 10 * TOL[dtype]


# ---------------------------------------------------------------- DeepGraphInfomax
def _sigmoid_mean(z, *args, **kwargs):
    return 1 / (1 + np.exp(-z.mean(0)))


def _flip(x, edge_index):
    return x[::-1].copy(), edge_index


def _pyg_dgi(dtype, hidden=6):
    torch.manual_seed(4)
    ref = pyg_nn.DeepGraphInfomax(
        hidden,
        encoder=pyg_nn.GCNConv(5, hidden),
        summary=lambda z, *a, **k: torch.sigmoid(z.mean(0)),
        corruption=lambda x, edge_index: (x.flip(0), edge_index),
    )
    return ref.to(TORCH_DTYPES[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_deep_graph_infomax_matches_pyg(dtype, index_dtype):
    ref = _pyg_dgi(dtype)
    model = from_pyg(ref)
    assert isinstance(model, DeepGraphInfomax) and repr(model) == repr(ref)
    assert model.weight.dtype == dtype
    model.summary, model.corruption = _sigmoid_mean, _flip
    rng = np.random.default_rng(5)
    n = 10
    for ei in (random_graph(rng, n, index_dtype=index_dtype), np.zeros((2, 0), index_dtype)):
        x = rng.standard_normal((n, 5)).astype(dtype)
        with torch.no_grad():
            pos, neg, s = ref(_t(x), _t(ei.astype(np.int64)))
            loss = ref.loss(pos, neg, s).item()
            two = torch.stack([s, 1 - s])
            logits = ref.discriminate(pos, two, sigmoid=False).numpy()
            scores = ref.discriminate(pos, s).numpy()
        pos_z, neg_z, summary = model(x, ei)
        tol = 10 * TOL[dtype]
        assert rel_err(pos_z, pos.numpy()) <= tol and rel_err(neg_z, neg.numpy()) <= tol
        assert rel_err(summary, s.numpy()) <= tol
        assert rel_err(model.discriminate(pos_z, summary), scores) <= tol
        out = model.discriminate(pos_z, np.stack([summary, 1 - summary]), sigmoid=False)
        assert out.shape == (n, 2) and rel_err(out, logits) <= tol
        value = model.loss(pos_z, neg_z, summary)
        assert np.ndim(value) == 0 and abs(float(value) - loss) <= 10 * tol * abs(loss)


def test_deep_graph_infomax_arguments_and_state_dict():
    ref = _pyg_dgi(np.float64)
    conv = from_pyg(ref.encoder)
    model = DeepGraphInfomax(6, conv, _sigmoid_mean, _flip, dtype=np.float64, rng=1)
    model.load_state_dict(ref.state_dict())
    assert np.array_equal(model.weight, ref.weight.detach().numpy())
    assert sorted(model.state_dict()) == sorted(ref.state_dict())

    def encoder(x, edge_index):  # called with edge_index as a keyword
        return conv(x, edge_index)

    seen = {}

    def corruption(x, edge_index):
        seen["corrupted"] = True
        return x[::-1].copy(), edge_index  # replaces x, then the keyword edge_index

    model = DeepGraphInfomax(6, encoder, _sigmoid_mean, corruption, rng=0)
    rng = np.random.default_rng(6)
    x, ei = rng.standard_normal((7, 5)), random_graph(rng, 7)
    pos_z, neg_z, _ = model(x, edge_index=ei)
    assert seen["corrupted"]
    assert np.allclose(neg_z, conv(x[::-1].copy(), ei))
    assert np.allclose(pos_z, conv(x, ei))
    # a corruption may return one value (as PyG: it stands for the arguments' tuple)
    single = DeepGraphInfomax(5, lambda v: 2 * v, _sigmoid_mean, lambda v: -v, rng=0)
    assert np.array_equal(single(x)[1], -2 * x)


def test_deep_graph_infomax_torch_functions_are_placeholders():
    model = from_pyg(_pyg_dgi(np.float32))
    x, ei = np.ones((3, 5), np.float32), np.zeros((2, 0), np.int64)
    with pytest.raises(ValueError, match="set model.corruption to a function on arrays"):
        model(x, ei)
    model.corruption = _flip
    with pytest.raises(ValueError, match="set model.summary to a function on arrays"):
        model(x, ei)


def test_deep_graph_infomax_test_uses_sklearn():
    model = DeepGraphInfomax(2, lambda x: x, _sigmoid_mean, lambda x: x, rng=0)
    rng = np.random.default_rng(0)
    z = rng.standard_normal((40, 2))
    y = (z[:, 0] > 0).astype(np.int64)
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        with pytest.raises(ImportError, match="DeepGraphInfomax.test needs scikit-learn"):
            model.test(z[:30], y[:30], z[30:], y[30:])
        return
    clf = LogisticRegression(solver="lbfgs", max_iter=50).fit(z[:30], y[:30])
    assert model.test(z[:30], y[:30], z[30:], y[30:], max_iter=50) == clf.score(z[30:], y[30:])


def test_deep_graph_infomax_errors():
    with pytest.raises(TypeError, match="DeepGraphInfomax: hidden_channels must be an int"):
        DeepGraphInfomax(2.0, len, len, len)
    with pytest.raises(TypeError, match="DeepGraphInfomax: corruption must be callable"):
        DeepGraphInfomax(2, len, len, None)
    model = DeepGraphInfomax(3, lambda x: x, _sigmoid_mean, lambda x: x, rng=0)
    with pytest.raises(ValueError, match="discriminate: z: expected last dimension 3"):
        model.discriminate(np.ones((4, 2)), np.ones(3))
    with pytest.raises(ValueError, match="discriminate: summary must be \\(H,\\) or \\(B, H\\)"):
        model.discriminate(np.ones((4, 3)), np.ones((1, 2, 3)))
    with pytest.raises(TypeError, match="discriminate: summary must be a NumPy or CuPy array"):
        model.discriminate(np.ones((4, 3)), [1.0, 2.0, 3.0])
