"""DGL-face k-NN graphs (``knn_graph``, ``segmented_knn_graph``, ``nn.KNNGraph``,
``nn.SegmentedKNNGraph``): DGL's documented examples (DGL itself is not installed), a
brute-force NumPy reference, DGL's k clamping, batch records and errors."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph import knn_graph, segmented_knn_graph, unbatch


def pairs(g):
    """The edges as a sorted list of (src, dst): DGL's examples print another order."""
    src, dst = g.edges()
    return sorted(zip(src.tolist(), dst.tolist()))


def brute(x, k, segs, exclude_self=False, cosine=False):
    """(src, dst): for each point, its k nearest of its set (by float64 distance, then
    index), itself included unless ``exclude_self``; sorted by dst, distance, src."""
    x = np.asarray(x, np.float64)
    if cosine:
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        x = x / np.where(norms > 0, norms, 1.0)
    set_of = np.repeat(np.arange(len(segs)), segs)
    src, dst = [], []
    for i in range(len(x)):
        cand = np.flatnonzero(set_of == set_of[i])
        if exclude_self:
            cand = cand[cand != i]
        d = np.sqrt(((x[cand] - x[i]) ** 2).sum(axis=1))
        best = cand[np.argsort(d, kind="stable")][:k]
        src += best.tolist()
        dst += [i] * len(best)
    return np.array(src, np.int64), np.array(dst, np.int64)


def test_dgl_documented_examples():
    x1 = np.array([[0.0, 0.0, 1.0], [1.0, 0.5, 0.5], [0.5, 0.2, 0.2], [0.3, 0.2, 0.4]])
    g = knn_graph(x1, 2)
    expected = ([0, 1, 2, 2, 2, 3, 3, 3], [0, 1, 1, 2, 3, 0, 2, 3])
    assert pairs(g) == sorted(zip(*expected))
    x2 = np.array([[0.0, 1.0, 1.0], [0.3, 0.3, 0.3], [0.4, 0.4, 1.0], [0.3, 0.8, 0.2]])
    g = knn_graph(np.stack([x1, x2]), 2)
    expected = (
        [0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 5, 5, 6, 6, 7, 7],
        [0, 1, 1, 2, 3, 0, 2, 3, 4, 5, 6, 7, 4, 6, 5, 7],
    )
    assert pairs(g) == sorted(zip(*expected))
    assert g.batch_num_nodes().tolist() == [4, 4] and g.batch_num_edges().tolist() == [8, 8]
    s1 = np.array([[0.0, 0.5, 0.2], [0.1, 0.3, 0.2], [0.4, 0.2, 0.2]])
    s2 = np.array([[0.3, 0.2, 0.1], [0.5, 0.2, 0.3], [0.1, 0.1, 0.2], [0.6, 0.3, 0.3]])
    g = segmented_knn_graph(np.concatenate([s1, s2]), 2, [3, 4])
    expected = (
        [0, 0, 1, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6],
        [0, 1, 0, 1, 2, 2, 3, 5, 4, 6, 3, 5, 4, 6],
    )
    assert pairs(g) == sorted(zip(*expected))
    assert g.batch_num_nodes().tolist() == [3, 4] and g.batch_num_edges().tolist() == [6, 8]


def test_dgl_documented_layer_examples():
    x = np.array([[0, 1], [1, 2], [1, 3], [100, 101], [101, 102], [50, 50]])
    g = agnn.KNNGraph(2)(x)
    expected = ([0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5], [0, 0, 1, 2, 1, 2, 5, 3, 4, 3, 4, 5])
    assert pairs(g) == sorted(zip(*expected))
    x = np.concatenate([x, [[24, 25], [25, 24]]])
    g = agnn.SegmentedKNNGraph(2)(x, [3, 3, 2])
    expected = (
        [0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 6, 7, 7],
        [0, 0, 1, 2, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 6, 7],
    )
    assert pairs(g) == sorted(zip(*expected))
    assert repr(agnn.KNNGraph(3)).startswith("KNNGraph") and "k=3" in repr(agnn.KNNGraph(3))
    assert agnn.SegmentedKNNGraph(2).state_dict() == {}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exclude_self", [False, True])
@pytest.mark.parametrize("dist", ["euclidean", "cosine"])
@pytest.mark.parametrize("k", [1, 4])
def test_segmented_matches_brute_force(dtype, exclude_self, dist, k):
    rng = np.random.default_rng(k)
    segs = [7, 5, 12, 6]
    x = rng.standard_normal((sum(segs), 3)).astype(dtype)
    x[2] = x[1]  # a tie
    x[3] = x[1]
    before = x.copy()
    g = segmented_knn_graph(x, k, segs, dist=dist, exclude_self=exclude_self)
    src, dst = g.edges()
    ref = brute(x, k, segs, exclude_self, dist == "cosine")
    np.testing.assert_array_equal(src, ref[0])
    np.testing.assert_array_equal(dst, ref[1])
    assert src.dtype == np.int64 and g.num_nodes() == sum(segs)
    assert g.batch_num_nodes().tolist() == segs
    assert g.batch_num_edges().tolist() == [s * k for s in segs]
    assert [p.num_nodes() for p in unbatch(g)] == segs
    assert np.array_equal(x, before)
    # every algorithm name gives the same exact graph; the layer is the function
    for algorithm in ("bruteforce", "bruteforce-sharemem", "kd-tree", "nn-descent"):
        other = segmented_knn_graph(x, k, segs, algorithm, dist, exclude_self)
        assert pairs(other) == pairs(g)
    layer = agnn.SegmentedKNNGraph(k)(x, np.array(segs), dist=dist, exclude_self=exclude_self)
    assert pairs(layer) == pairs(g)


@pytest.mark.parametrize("exclude_self", [False, True])
def test_three_d_input_is_a_batch_of_equal_sets(exclude_self):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8, 2))
    g = knn_graph(x, 3, exclude_self=exclude_self)
    ref = brute(x.reshape(24, 2), 3, [8, 8, 8], exclude_self)
    np.testing.assert_array_equal(g.edges()[0], ref[0])
    np.testing.assert_array_equal(g.edges()[1], ref[1])
    assert g.batch_size == 3
    assert pairs(agnn.KNNGraph(3)(x, exclude_self=exclude_self)) == pairs(g)
    single = knn_graph(x[0], 3, exclude_self=exclude_self)
    assert single.batch_size == 1 and single.num_edges() == 24


def test_exclude_self_never_gives_a_loop_even_with_coincident_points():
    x = np.zeros((6, 2))
    g = knn_graph(x, 2, exclude_self=True)
    src, dst = g.edges()
    assert not np.any(src == dst)
    assert np.bincount(dst).tolist() == [2] * 6
    g = knn_graph(x, 2)  # with itself: a node is not always its own nearest (ties by id)
    assert np.bincount(g.edges()[1]).tolist() == [2] * 6


def test_k_above_the_smallest_set_is_lowered_for_every_set_with_a_warning():
    x = np.random.default_rng(1).random((9, 2))
    with pytest.warns(UserWarning, match=r"k=4 is more than the smallest point set \(2"):
        g = segmented_knn_graph(x, 4, [2, 7])
    assert g.batch_num_edges().tolist() == [4, 14]  # k = 2 everywhere (DGL's rule)
    with pytest.warns(UserWarning, match=r"\(\+1 for the point itself\)"):
        g = segmented_knn_graph(x, 2, [2, 7], exclude_self=True)
    assert g.batch_num_edges().tolist() == [2, 7]  # 1 other point each
    with pytest.warns(UserWarning):
        g = knn_graph(x[:1], 1, exclude_self=True)  # one point, no other: no edge
    assert g.num_edges() == 0 and g.num_nodes() == 1


BAD = [
    (lambda: knn_graph(np.zeros((0, 3)), 2), ValueError, "knn_graph: x is an empty point set"),
    (lambda: knn_graph(np.zeros((4, 2)), 0), ValueError, "knn_graph: k must be >= 1"),
    (lambda: knn_graph(np.zeros((4, 2)), 1.0), TypeError, "k must be an int"),
    (lambda: knn_graph([[0.0, 1.0]], 1), TypeError, "x must be a NumPy or CuPy array"),
    (lambda: knn_graph(np.zeros((4, 2)), 1, "ball-tree"), ValueError, "algorithm must be"),
    (lambda: knn_graph(np.zeros((4, 2)), 1, dist="l1"), ValueError, "dist must be one of"),
    (lambda: knn_graph(np.zeros((4, 2)), 1, exclude_self=None), TypeError, "exclude_self"),
    (lambda: knn_graph(np.full((2, 2), np.nan), 1), ValueError, "x has NaN coordinates"),
    (lambda: knn_graph(np.zeros((2, 2, 2, 2)), 1), ValueError, r"x must be \[N, D\]"),
    (lambda: segmented_knn_graph(np.zeros((4, 2)), 1, [2, 1]), ValueError, "add up to 3"),
    (lambda: segmented_knn_graph(np.zeros((4, 2)), 1, [4, 0]), ValueError, r"segs\[1\] is 0"),
    (lambda: segmented_knn_graph(np.zeros((4, 2)), 1, [2.0, 2.0]), TypeError, "segs must be"),
    (lambda: segmented_knn_graph(np.zeros((4, 2)), 1, []), TypeError, "segs must be"),
    (lambda: segmented_knn_graph(np.zeros((4, 2)), 1, 4), TypeError, "segs must be"),
    (lambda: segmented_knn_graph(np.zeros((2, 2, 2)), 1, [4]), ValueError, r"x must be \[N, D\]"),
    (lambda: segmented_knn_graph(np.zeros((0, 2)), 1, [1]), ValueError, "empty point set"),
    (lambda: agnn.KNNGraph(0), ValueError, "KNNGraph: k must be in"),
    (lambda: agnn.SegmentedKNNGraph("2"), TypeError, "SegmentedKNNGraph: k must be an int"),
]


@pytest.mark.parametrize("call, exc, match", BAD)
def test_bad_input_is_named(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
