"""knn, knn_graph, radius, radius_graph against a brute-force NumPy reference (the full
distance matrix, a stable sort): random point clouds in several batch examples, one with
fewer than k points, an empty one in the middle (a skipped id), duplicated points (ties),
float32 / float64 points, int32 / int64 batches, both flows, loops on and off, cosine;
every search path (one tree per example, several examples folded into one tree); errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import arraygnn.utils as U

# the module (``arraygnn.utils.knn`` as an attribute is the function, as ``degree``)
knn_module = importlib.import_module("arraygnn.utils.knn")


def brute(x, y, k, bx=None, by=None, r=np.inf, exclude_self=False, cosine=False):
    """[2, E]: row 0 indexes y, row 1 x; for every y its k nearest x (all closer than r for
    k None) of the same example, by float64 distance then index."""
    x = np.asarray(x, np.float64).reshape(len(x), -1)
    y = np.asarray(y, np.float64).reshape(len(y), -1)
    bx = np.zeros(len(x), int) if bx is None else np.asarray(bx)
    by = np.zeros(len(y), int) if by is None else np.asarray(by)
    rows, cols = [], []
    for i in range(len(y)):
        if cosine:  # 1 - cos, written out (a zero vector: distance 1 to everything)
            norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y[i])
            dots = x @ y[i]
            d = 1.0 - np.divide(dots, norms, out=np.zeros(len(x)), where=norms > 0)
        else:
            d = np.sqrt(((x - y[i]) ** 2).sum(axis=1))
        cand = np.flatnonzero((bx == by[i]) & (d < r))
        if exclude_self:
            cand = cand[cand != i]
        best = cand[np.argsort(d[cand], kind="stable")]
        if k is not None:
            best = best[:k]
        rows += [i] * len(best)
        cols += best.tolist()
    return np.array([rows, cols], np.int64).reshape(2, -1)


def cloud(rng, dtype=np.float64, batch_dtype=np.int64, lattice=False):
    """41 points in examples 0, 2, 3, 4 (id 1 empty, in the middle): sizes 12, 2, 15, 12;
    duplicated points in example 0; a lattice gives many equal distances."""
    sizes = {0: 12, 2: 2, 3: 15, 4: 12}
    batch = np.repeat(list(sizes), list(sizes.values())).astype(batch_dtype)
    if lattice:
        x = rng.integers(0, 3, (len(batch), 3)).astype(dtype)
    else:
        x = rng.standard_normal((len(batch), 3)).astype(dtype)
        x[3] = x[1]
        x[7] = x[1]
    return x, batch


@pytest.fixture(params=[1, 5, 1024, 10**9], ids=["tree each", "chunks of 5", "default", "one"])
def chunk(request, monkeypatch):
    """Every search layout: one tree per example, small chunks of folded examples, the
    default, everything in one folded tree."""
    monkeypatch.setattr(knn_module, "CHUNK_POINTS", request.param)
    return request.param


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("k", [1, 3, 13])
@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("lattice", [False, True])
def test_knn_graph_matches_brute_force(chunk, dtype, batch_dtype, k, loop, lattice):
    rng = np.random.default_rng(k)
    x, batch = cloud(rng, dtype, batch_dtype, lattice)
    x_before, b_before = x.copy(), batch.copy()
    ref = brute(x, x, k, batch, batch, exclude_self=not loop)
    out = U.knn_graph(x, k, batch, loop=loop)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, ref[::-1])  # [neighbour, centre]
    np.testing.assert_array_equal(U.knn_graph(x, k, batch, loop, "target_to_source"), ref)
    assert np.array_equal(x, x_before) and np.array_equal(batch, b_before)
    # every centre of an example with n points has min(k, n - (not loop)) neighbours
    counts = np.bincount(out[1], minlength=len(x))
    sizes = np.bincount(batch)[batch]
    np.testing.assert_array_equal(counts, np.minimum(k, sizes - (not loop)))
    assert np.array_equal(batch[out[0]], batch[out[1]])


@pytest.mark.parametrize("k", [1, 4])
def test_knn_between_two_sets_matches_brute_force(chunk, k):
    rng = np.random.default_rng(11)
    x, bx = cloud(rng)
    y = rng.standard_normal((20, 3))
    y[0] = x[1]  # a query on top of three equal points
    by = np.repeat([0, 1, 2, 4, 6], [5, 3, 2, 6, 4])  # 1 and 6: no x points
    out = U.knn(x, y, k, bx, by)
    np.testing.assert_array_equal(out, brute(x, y, k, bx, by))
    assert out.dtype == np.int64
    assert not np.isin(by[out[0]], [1, 6]).any()  # examples without x points: no match
    # one side without a batch vector: everything is example 0 there
    np.testing.assert_array_equal(U.knn(x, y, k, None, by), brute(x, y, k, None, by))
    np.testing.assert_array_equal(U.knn(x, y, k), brute(x, y, k))


def test_ties_go_to_the_lower_index():
    x = np.array([[0.0], [1.0], [-1.0], [1.0], [-1.0], [0.0]])
    # from 0: itself (0), its duplicate 5, then 1, 2, 3, 4 all at distance 1
    assert U.knn(x, x[:1], 4).tolist() == [[0, 0, 0, 0], [0, 5, 1, 2]]
    assert U.knn_graph(x, 3)[:, :3].tolist() == [[5, 1, 2], [0, 0, 0]]
    # more than k points coincide with a point: it still gets k others, never itself
    same = np.zeros((5, 2))
    out = U.knn_graph(same, 2, loop=False)
    assert out.tolist() == [[1, 2, 0, 2, 0, 1, 0, 1, 0, 1], [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cosine_matches_one_minus_cos(chunk, dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((30, 4)).astype(dtype)
    batch = np.repeat([0, 2, 3], [12, 3, 15])
    ref = brute(x, x, 3, batch, batch, exclude_self=True, cosine=True)
    np.testing.assert_array_equal(U.knn_graph(x, 3, batch, cosine=True), ref[::-1])
    y = rng.standard_normal((7, 4)).astype(dtype)
    np.testing.assert_array_equal(U.knn(x, y, 5, cosine=True), brute(x, y, 5, cosine=True))
    # cosine only sees directions: scaling the points changes nothing
    scaled = x * rng.uniform(0.1, 10.0, (30, 1)).astype(dtype)
    np.testing.assert_array_equal(
        U.knn_graph(scaled, 3, batch, cosine=True), U.knn_graph(x, 3, batch, cosine=True)
    )


def test_cosine_zero_vector_is_equally_far_from_all():
    x = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [-3.0, 0.0]])
    # from the zero vector every other point is at distance 1 (cos = 0): lowest indices
    assert U.knn(x, x[:1], 2, cosine=True).tolist() == [[0, 0], [0, 1]]


@pytest.mark.parametrize("max_num", [None, 1, 3, 32])
@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("lattice", [False, True])
def test_radius_graph_matches_brute_force(chunk, max_num, loop, lattice):
    rng = np.random.default_rng(2)
    x, batch = cloud(rng, lattice=lattice)
    for r in (0.5, 1.0, 1.5, 100.0):
        ref = brute(x, x, max_num, batch, batch, r=r, exclude_self=not loop)
        out = U.radius_graph(x, r, batch, loop=loop, max_num_neighbors=max_num)
        assert out.dtype == np.int64
        np.testing.assert_array_equal(out, ref[::-1])
        flipped = U.radius_graph(x, r, batch, loop, max_num, flow="target_to_source")
        np.testing.assert_array_equal(flipped, ref)


@pytest.mark.parametrize("max_num", [None, 2, 32])
def test_radius_matches_brute_force(chunk, max_num):
    rng = np.random.default_rng(4)
    x, bx = cloud(rng, np.float32)
    y = rng.standard_normal((15, 3)).astype(np.float32)
    by = np.repeat([0, 1, 3, 4], [4, 2, 5, 4])
    ref = brute(x, y, max_num, bx, by, r=1.2)
    np.testing.assert_array_equal(U.radius(x, y, 1.2, bx, by, max_num), ref)


def test_radius_is_strict_and_ties_go_to_the_lower_index():
    x = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.0], [0.0, -0.5]])
    assert U.radius(x, x[:1], 1.0).tolist() == [[0, 0, 0], [0, 3, 4]]  # |x1| = 1 is out
    assert U.radius(x, x[:1], 1.01).tolist() == [[0] * 5, [0, 3, 4, 1, 2]]
    assert U.radius(x, x[:1], 1.01, max_num_neighbors=4).tolist() == [[0] * 4, [0, 3, 4, 1]]
    out = U.radius_graph(x, 1.01, max_num_neighbors=2)
    assert out[:, out[1] == 0].tolist() == [[3, 4], [0, 0]]  # 2 others, itself not counted


@pytest.mark.parametrize("r", [np.inf, 1e300, 1e150])
def test_radius_larger_than_everything_takes_every_point(chunk, r):
    rng = np.random.default_rng(8)
    x, batch = cloud(rng)
    ref = brute(x, x, None, batch, batch, exclude_self=True)
    np.testing.assert_array_equal(U.radius_graph(x, r, batch, max_num_neighbors=None), ref[::-1])
    ref = brute(x, x, 5, batch, batch, exclude_self=True)
    np.testing.assert_array_equal(U.radius_graph(x, r, batch, max_num_neighbors=5), ref[::-1])


def test_one_dimensional_points_and_integer_coordinates():
    x = np.array([0, 10, 1, 11, 3])
    assert U.knn_graph(x, 1).tolist() == U.knn_graph(x.reshape(-1, 1).astype(float), 1).tolist()
    assert U.knn_graph(x, 1).tolist() == [[2, 3, 0, 1, 2], [0, 1, 2, 3, 4]]
    assert U.radius_graph(x.astype(np.float32), 1.5).tolist() == [[2, 3, 0, 1], [0, 1, 2, 3]]


def test_huge_coordinates_fall_back_to_a_tree_per_example(monkeypatch):
    monkeypatch.setattr(knn_module, "CHUNK_POINTS", 10**9)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 2)) * 1e307  # folding example ids in would overflow
    batch = np.repeat([0, 1, 2, 3], 5)
    with np.errstate(over="ignore"):  # the distances are infinite: every one ties
        ref = brute(x, x, 3, batch, batch, exclude_self=True)
    np.testing.assert_array_equal(U.knn_graph(x, 3, batch), ref[::-1])
    small = x * 1e-300  # the same layout, finite distances, folded
    ref = brute(small, small, 3, batch, batch, exclude_self=True)
    np.testing.assert_array_equal(U.knn_graph(small, 3, batch), ref[::-1])


def test_batch_size_and_empty_inputs():
    x = np.random.default_rng(0).random((6, 2))
    batch = np.array([0, 0, 0, 2, 2, 2])
    assert np.array_equal(U.knn_graph(x, 2, batch, batch_size=5), U.knn_graph(x, 2, batch))
    empty = np.zeros((0, 3))
    for out in (
        U.knn(empty, empty, 3),
        U.knn(x, np.zeros((0, 2)), 3),
        U.knn(np.zeros((0, 2)), x, 3),
        U.knn_graph(empty, 2),
        U.knn_graph(empty, 2, np.zeros(0, np.int64)),
        U.radius(empty, empty, 1.0),
        U.radius_graph(empty, 1.0),
        U.radius_graph(x[:1], 1.0),  # one point, no loop
        U.knn_graph(x[:1], 3),
    ):
        assert out.shape == (2, 0) and out.dtype == np.int64
    assert U.knn_graph(x[:1], 3, loop=True).tolist() == [[0], [0]]


def test_num_workers_gives_the_same_graph():
    x = np.random.default_rng(1).random((300, 3))
    batch = np.repeat(np.arange(3), 100)
    assert np.array_equal(U.knn_graph(x, 5, batch, num_workers=2), U.knn_graph(x, 5, batch))


X = np.zeros((4, 2))
B = np.array([0, 0, 1, 1])
NAN = np.array([[0.0, 1.0], [np.nan, 0.0]])
INF = np.array([[0.0, 1.0], [1.0, np.inf]])

BAD = [
    (lambda: U.knn_graph([[0.0, 1.0]], 1), TypeError, "knn_graph: x must be a NumPy or CuPy"),
    (lambda: U.knn_graph(X.astype(bool), 1), TypeError, "x must hold real numbers"),
    (lambda: U.knn_graph(np.zeros((2, 2, 2)), 1), ValueError, r"x must be \[N, D\]"),
    (lambda: U.knn_graph(NAN, 1), ValueError, "knn_graph: x has NaN coordinates.*row 1"),
    (lambda: U.knn_graph(INF, 1), ValueError, "x has infinite coordinates"),
    (lambda: U.knn(X, NAN, 1), ValueError, "knn: y has NaN coordinates"),
    (lambda: U.radius(NAN, X, 1.0), ValueError, "radius: x has NaN coordinates"),
    (lambda: U.knn(X, np.zeros((2, 3)), 1), ValueError, "one number of columns"),
    (lambda: U.radius(X, np.zeros((2, 3)), 1.0), ValueError, "one number of columns"),
    (lambda: U.knn_graph(X, 0), ValueError, "knn_graph: k must be >= 1"),
    (lambda: U.knn_graph(X, 2.0), TypeError, "knn_graph: k must be an int"),
    (lambda: U.knn_graph(X, True), TypeError, "k must be an int"),
    (lambda: U.knn(X, X, -1), ValueError, "knn: k must be >= 1"),
    (lambda: U.radius_graph(X, 0.0), ValueError, "radius_graph: r must be > 0"),
    (lambda: U.radius_graph(X, -1.0), ValueError, "r must be > 0"),
    (lambda: U.radius_graph(X, float("nan")), ValueError, "r must be > 0"),
    (lambda: U.radius(X, X, "1"), TypeError, "radius: r must be a real number"),
    (lambda: U.radius_graph(X, 1.0, max_num_neighbors=0), ValueError, "max_num_neighbors"),
    (lambda: U.radius(X, X, 1.0, max_num_neighbors=2.5), TypeError, "max_num_neighbors"),
    (lambda: U.knn_graph(X, 1, np.array([0, 1, 0, 1])), ValueError, "batch must be sorted"),
    (lambda: U.knn_graph(X, 1, B[:3]), ValueError, r"batch must have shape \(4,\)"),
    (lambda: U.knn_graph(X, 1, B.astype(float)), TypeError, "batch must be an integer array"),
    (lambda: U.knn_graph(X, 1, [0, 0, 1, 1]), TypeError, "batch must be a NumPy or CuPy"),
    (lambda: U.knn_graph(X, 1, B - 1), ValueError, "batch has a negative example id"),
    (lambda: U.knn(X, X, 1, B, B[::-1].copy()), ValueError, "batch_y must be sorted"),
    (lambda: U.knn(X, X, 1, B[::-1].copy(), B), ValueError, "batch_x must be sorted"),
    (lambda: U.radius(X, X, 1.0, B, B[:2]), ValueError, r"batch_y must have shape \(4,\)"),
    (lambda: U.knn_graph(X, 1, B, batch_size=1), ValueError, "batch_size=1"),
    (lambda: U.knn_graph(X, 1, B, batch_size=0), ValueError, "batch_size must be >= 1"),
    (lambda: U.knn_graph(X, 1, flow="up"), ValueError, "knn_graph: flow must be one of"),
    (lambda: U.radius_graph(X, 1.0, flow="up"), ValueError, "radius_graph: flow must be"),
    (lambda: U.knn_graph(X, 1, loop=1), TypeError, "loop must be True or False"),
    (lambda: U.knn(X, X, 1, cosine="yes"), TypeError, "cosine must be True or False"),
    (lambda: U.knn_graph(X, 1, num_workers=0), ValueError, "num_workers must be >= 1"),
]


@pytest.mark.parametrize("call, exc, match", BAD)
def test_bad_input_is_named(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_cupy_round_trip():
    cp = pytest.importorskip("cupy")
    try:
        cp.zeros(1)
    except Exception:  # pragma: no cover - no usable GPU
        pytest.skip("CuPy is installed but no GPU is usable")
    rng = np.random.default_rng(0)
    x, batch = cloud(rng)
    out = U.knn_graph(cp.asarray(x), 3, cp.asarray(batch))
    assert isinstance(out, cp.ndarray)
    np.testing.assert_array_equal(out.get(), U.knn_graph(x, 3, batch))
    out = U.radius(cp.asarray(x), cp.asarray(x), 1.0)
    np.testing.assert_array_equal(out.get(), U.radius(x, x, 1.0))
    with pytest.raises(TypeError, match="mix NumPy and CuPy"):
        U.knn_graph(cp.asarray(x), 3, batch)
