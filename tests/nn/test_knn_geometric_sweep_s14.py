"""Parity sweep (s14): k-NN indices, DGL's k-NN graph builders, EGNNConv and AtomicConv, on
options the other tests leave out.

- ``L2KNNIndex``: ``reset`` then a new dtype, NumPy-int arguments (PyG parity with faiss,
  ``exclude_links``, ties and padding are in tests/nn/test_knn_index.py).
- ``knn_graph`` / ``segmented_knn_graph``: a NumPy transcription of DGL's default
  ``'bruteforce-blas'`` path (dmlc/dgl python/dgl/transforms/functional.py:
  ``_knn_graph_blas``, ``_segmented_knn_graph_blas``, the ``k + 1`` / ``remove_self_loop``
  handling of ``exclude_self`` and the ``k`` clamp to the smallest set).
- ``EGNNConv`` / ``AtomicConv``: NumPy transcriptions of DGL's forwards
  (python/dgl/nn/pytorch/conv/egnnconv.py, atomicconv.py) with the layers' own weights.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph import knn_graph, segmented_knn_graph
from arraygnn.nn import L2KNNIndex


# ----------------------------------------------------------------- exact indices
def test_index_reset_then_new_dtype_and_integer_like_arguments():
    rng = np.random.default_rng(0)
    index = L2KNNIndex(rng.standard_normal((5, 2)).astype(np.float32), backend="array")
    assert index.search(np.zeros((1, 2)), np.int64(2)).score.dtype == np.float32
    index.reset()
    e64 = rng.standard_normal((6, 4))
    index.add(e64)  # a new index: float64 and four channels now
    out = index.search(e64[:2], 2)
    assert out.score.dtype == np.float64 and out.index[:, 0].tolist() == [0, 1]
    assert index.search(e64[:1], 1, np.zeros((2, 0), np.int32)).index.tolist() == [[0]]
    assert L2KNNIndex(reserve=np.int64(3)).reserve == 3


# ------------------------------------------------------------------ DGL's knn_graph
def dgl_blas(x, k, segs, dist="euclidean", exclude_self=False):
    """DGL's bruteforce-blas k-NN graph as (src, dst, batch_num_edges): per set the ``k``
    nearest by squared distance (cosine: rows / (norm + 1e-5)), dst-major, nearest first;
    ``exclude_self``: ``k + 1`` and the self loops removed; ``k`` clamped to the smallest
    set."""
    x = np.asarray(x, np.float64)
    if dist == "cosine":
        x = x / (np.sqrt((x * x).sum(1, keepdims=True)) + 1e-5)
    k = min(k + exclude_self, min(segs))
    src, dst, per = [], [], []
    start = 0
    for size in segs:
        h = x[start : start + size]
        sq = (h * h).sum(1)
        d = sq[:, None] + sq[None, :] - 2 * h @ h.T
        count = 0
        for i in range(size):
            for j in np.argsort(d[i], kind="stable")[:k]:
                if exclude_self and j == i:
                    continue
                src.append(start + j)
                dst.append(start + i)
                count += 1
        per.append(count)
        start += size
    return np.array(src), np.array(dst), per


@pytest.mark.parametrize("exclude_self", [False, True])
@pytest.mark.parametrize("dist", ["euclidean", "cosine"])
@pytest.mark.parametrize("form", ["3d", "segments"])
def test_knn_graph_matches_dgl_blas(form, dist, exclude_self):
    rng = np.random.default_rng(11)
    if form == "3d":
        x = rng.standard_normal((3, 6, 4))
        segs, points, k = [6, 6, 6], x.reshape(18, 4), 3
        g = knn_graph(x, k, "kd-tree", dist, exclude_self)
    else:  # a set smaller than k + 1: k lowered for every set, with DGL's warning
        segs, k = [5, 2, 7], 3
        points = rng.standard_normal((14, 2)) + 0.5
        with pytest.warns(UserWarning, match="smallest point set"):
            g = segmented_knn_graph(points, k, np.array(segs, np.int32), dist=dist,
                                    exclude_self=exclude_self)  # fmt: skip
    src, dst, per = dgl_blas(points, k, segs, dist, exclude_self)
    got_src, got_dst = g.edges()
    np.testing.assert_array_equal(got_dst, dst)
    np.testing.assert_array_equal(got_src, src)
    assert g.batch_num_nodes().tolist() == segs and g.batch_num_edges().tolist() == per


def test_points_without_coordinates_are_all_equally_near():
    # DGL's distance matrix of [N, 0] points is all zeros: every point is a nearest one;
    # here ties go to the lower id (this crashed inside the k-d tree set-up before)
    g = knn_graph(np.zeros((4, 0)), 2)
    assert [a.tolist() for a in g.edges()] == [[0, 1, 0, 1, 0, 1, 0, 1], [0, 0, 1, 1, 2, 2, 3, 3]]
    g = segmented_knn_graph(np.zeros((4, 0), np.float32), 1, [2, 2], exclude_self=True)
    assert [a.tolist() for a in g.edges()] == [[1, 0, 3, 2], [0, 1, 2, 3]]


def test_cosine_is_exact_unit_length_not_dgls_epsilon():
    """Documented difference: DGL divides by ``norm + 1e-5``, which shortens rows of norm
    near 1e-5 and so ranks them by length, not angle; here rows are exactly unit length."""
    x = np.array([[1.0, 0.0], [2e-6, 2e-7], [0.9, 0.5]])
    src, _ = knn_graph(x, 2, dist="cosine").edges()
    assert src[:2].tolist() == [0, 1]  # point 1 is 0.1 rad from point 0, point 2 0.5 rad
    assert dgl_blas(x, 2, [3], "cosine")[0][:2].tolist() == [0, 2]  # DGL: by length
    with pytest.raises(ValueError, match="k must be >= 1"):  # DGL: k=0 passes exclude_self
        knn_graph(x, 0, exclude_self=True)


# ------------------------------------------------------------------------- EGNNConv
def _silu(v):
    return v / (1.0 + np.exp(-v))


def _lin(layer, v):
    out = v @ np.asarray(layer.weight, np.float64).T
    return out if layer.bias is None else out + layer.bias


def egnn_reference(conv, ei, h, x, a=None):
    """DGL's EGNNConv.forward (u_sub_v, radial, 1e-30 guard, mean of msg_x, sum of msg_h)."""
    src, dst = ei
    diff = x[src] - x[dst]
    radial = (diff**2).sum(1, keepdims=True)
    diff = diff / (np.sqrt(radial) + 1e-30)
    parts = [h[src], h[dst], radial] + ([a] if a is not None else [])
    m = _silu(_lin(conv.edge_mlp[0], np.concatenate(parts, 1)))
    m = _silu(_lin(conv.edge_mlp[2], m))
    msg_x = _lin(conv.coord_mlp[2], _silu(_lin(conv.coord_mlp[0], m))) * diff
    n = len(h)
    deg = np.maximum(np.bincount(dst, minlength=n), 1)[:, None]
    x_neigh = np.zeros((n, x.shape[1]))
    np.add.at(x_neigh, dst, msg_x)
    h_neigh = np.zeros((n, m.shape[1]))
    np.add.at(h_neigh, dst, m)
    out = _lin(conv.node_mlp[2], _silu(_lin(conv.node_mlp[0], np.concatenate([h, h_neigh], 1))))
    return out, x + x_neigh / deg


@pytest.mark.parametrize("coord_dim", [1, 2])
@pytest.mark.parametrize("edge_feat_size", [0, 2])
def test_egnn_low_dimensional_coordinates_and_coincident_points(coord_dim, edge_feat_size):
    rng = np.random.default_rng(coord_dim)
    conv = agnn.EGNNConv(3, 5, 2, edge_feat_size, dtype=np.float64, rng=1)
    ei = np.array([[0, 1, 2, 2, 3, 0, 4], [1, 0, 1, 2, 1, 3, 3]])  # loop, node 4 no in-edges
    h = rng.standard_normal((5, 3))
    x = rng.standard_normal((5, coord_dim))
    x[3] = x[0]  # coincident: the 0 -> 3 edge has d = 0
    a = rng.standard_normal((7, edge_feat_size)) if edge_feat_size else None
    got_h, got_x = conv(h, ei, x, a)
    ref_h, ref_x = egnn_reference(conv, ei, h, x, a)
    np.testing.assert_allclose(got_h, ref_h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_x, ref_x, rtol=1e-10, atol=1e-12)
    assert got_x.shape == (5, coord_dim) and np.array_equal(got_x[4], x[4])


# ----------------------------------------------------------------------- AtomicConv
def atomic_reference(conv, ei, feat, dist):
    """DGL's AtomicConv.forward: (feat == features_to_use).float(), radial filters
    (cutoff inclusive), messages feat_src[c] * he[k] summed, flattened c-major."""
    rp = conv.radial_pooling
    c, mu, s = (np.asarray(p, np.float64).reshape(-1) for p in
                (rp.interaction_cutoffs, rp.rbf_kernel_means, rp.rbf_kernel_scaling))  # fmt: skip
    d = np.asarray(dist, np.float64).reshape(-1, 1)
    he = np.exp(-s * (d - mu) ** 2) * np.where(d <= c, 0.5 * (np.cos(np.pi * d / c) + 1), 0)
    if conv.features_to_use is not None:
        feat = (feat == np.asarray(conv.features_to_use)).astype(np.float64)
    m = np.einsum("ij,ik->ijk", feat[ei[0]], he).reshape(len(d), -1)
    out = np.zeros((len(feat), m.shape[1]))
    np.add.at(out, ei[1], m)
    return out


@pytest.mark.parametrize("types_dtype", [np.int64, np.float32])
def test_atomic_conv_integer_atom_types_and_cutoff_edge(types_dtype):
    conv = agnn.AtomicConv(np.array([2.0, 1.0]), np.array([0.5, 1.0]), np.array([1.0, 3.0]),
                           np.array([1, 6, 8]))  # fmt: skip
    ei = np.array([[0, 1, 2, 3, 2], [1, 2, 0, 0, 3]])
    z = np.array([[6], [1], [8], [7]], types_dtype)  # DGL: (feat == types).float()
    dist = np.array([2.0, 1.0, 0.3, 1.5, 2.5])  # exactly at both cutoffs, and beyond
    got = conv(ei, z, dist)
    assert got.shape == (4, 6) and got.dtype == np.float32
    np.testing.assert_allclose(got, atomic_reference(conv, ei, z, dist), rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = agnn.AtomicConv(np.array([2.0]), np.array([0.5]), np.array([1.0]))
        with pytest.raises(TypeError, match="AtomicConv: node features must be floating"):
            plain(ei, z.astype(np.int64), dist)  # without features_to_use: numbers needed
