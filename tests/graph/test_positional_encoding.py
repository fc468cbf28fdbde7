"""Positional encodings, ``laplacian_lambda_max`` and homophily against NumPy
transcriptions of DGL's formulas (``python/dgl/transforms/functional.py``,
``python/dgl/homophily.py``); eigenvectors compared up to each vector's sign."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import (
    batch,
    edge_homophily,
    graph,
    heterograph,
    lap_pe,
    laplacian_lambda_max,
    laplacian_pe,
    linkx_homophily,
    node_homophily,
    random_walk_pe,
)
from arraygnn.graph import positional_encoding as pe_mod

IDTYPES = [np.int32, np.int64]


def _g(src, dst, n, dtype=np.int64):
    return graph((np.asarray(src, dtype=dtype), np.asarray(dst, dtype=dtype)), num_nodes=n)


def _bidirected(seed, n, m, dtype=np.int64):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = a != b
    a, b = a[keep], b[keep]
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])
    return _g(src, dst, n, dtype), src, dst


# -------------------------------------------------- NumPy transcriptions of DGL's code


def _dgl_laplacian(src, dst, n, transpose=False):
    a = np.zeros((n, n))
    np.add.at(a, (dst, src) if transpose else (src, dst), 1.0)
    norm = np.diag(np.clip(np.bincount(dst, minlength=n), 1, None) ** -0.5)
    return np.eye(n) - norm @ a @ norm


def _dgl_lap_pe(src, dst, n, k):
    """DGL's dense branch, without the random signs; returns (vectors, eigenvalues)."""
    val, vec = np.linalg.eig(_dgl_laplacian(src, dst, n))
    freqs = min(n - 1, k)
    part = np.argpartition(val, freqs)[: freqs + 1]
    top = part[val[part].argsort()][1:]
    return vec[:, top].real, val[top].real


def _dgl_random_walk_pe(src, dst, n, k, w=None):
    a = np.zeros((n, n))
    np.add.at(a, (src, dst), 1.0)
    if w is not None:
        wm = np.zeros((n, n))
        np.add.at(wm, (src, dst), w)
        a = a * wm
    rw = a / (a.sum(1, keepdims=True) + 1e-30)
    out, power = [np.diag(rw)], rw
    for _ in range(k - 1):
        power = power @ rw
        out.append(np.diag(power))
    return np.stack(out, axis=-1).astype(np.float32)


def _dgl_lambda_max(src, dst, n):
    val = np.linalg.eigvals(_dgl_laplacian(src, dst, n, transpose=True))
    return val[np.argmax(np.abs(val))].real


def _same_up_to_sign(a, b, atol):
    for j in range(a.shape[1]):
        s = 1.0 if np.abs(a[:, j] - b[:, j]).max() <= np.abs(a[:, j] + b[:, j]).max() else -1.0
        np.testing.assert_allclose(a[:, j], s * b[:, j], atol=atol)


# ---------------------------------------------------------------------- laplacian_pe


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_laplacian_pe_matches_dgl_up_to_sign(dtype, seed):
    n, k = 12, 4
    g, src, dst = _bidirected(seed, n, 30, dtype)
    ref_vec, ref_val = _dgl_lap_pe(src, dst, n, k)
    full = np.sort(np.linalg.eigvalsh(_dgl_laplacian(src, dst, n)))
    assert np.diff(full[: k + 2]).min() > 1e-4  # distinct: vectors defined up to sign
    pe, val = laplacian_pe(g, k, return_eigval=True, seed=0)
    assert pe.dtype == val.dtype == np.float32 and pe.shape == (n, k)
    np.testing.assert_allclose(val, ref_val, atol=1e-5)
    _same_up_to_sign(pe, ref_vec, atol=1e-5)
    # the signs are random, reproducibly
    np.testing.assert_array_equal(pe, laplacian_pe(g, k, seed=0))
    assert lap_pe is laplacian_pe


def test_laplacian_pe_sparse_solver_path(monkeypatch):
    n, k = 60, 3
    g, src, dst = _bidirected(3, n, 150)
    ref_vec, ref_val = _dgl_lap_pe(src, dst, n, k)
    full = np.sort(np.linalg.eigvalsh(_dgl_laplacian(src, dst, n)))
    assert np.diff(full[: k + 2]).min() > 1e-4
    monkeypatch.setattr(pe_mod, "DENSE_MAX", 10)
    pe, val = laplacian_pe(g, k, return_eigval=True, seed=1)
    np.testing.assert_allclose(val, ref_val, atol=1e-5)
    _same_up_to_sign(pe, ref_vec, atol=1e-4)


def test_laplacian_pe_padding_rule():
    # DGL's docstring example: a bidirected 4-cycle, eigenvalues 0, 1, 1, 2
    g = _g([0, 1, 2, 3, 1, 2, 3, 0], [1, 2, 3, 0, 0, 1, 2, 3], 4)
    pe, val = laplacian_pe(g, 5, padding=True, return_eigval=True, seed=0)
    assert pe.shape == (4, 5) and val.shape == (5,)
    np.testing.assert_allclose(val[:3], [1, 1, 2], atol=1e-6)
    assert np.isnan(val[3:]).all() and (pe[:, 3:] == 0).all()
    lap = _dgl_laplacian(*g.edges(), 4)
    for j in range(3):  # each column is a unit eigenvector of its eigenvalue
        np.testing.assert_allclose(lap @ pe[:, j], val[j] * pe[:, j], atol=1e-5)
        assert abs(np.linalg.norm(pe[:, j]) - 1) < 1e-5
    with pytest.raises(ValueError, match="k must be smaller than the number of nodes"):
        laplacian_pe(g, 4)
    one = _g([], [], 1)
    pe, val = laplacian_pe(one, 2, padding=True, return_eigval=True)
    assert (pe == 0).all() and pe.shape == (1, 2) and np.isnan(val).all()
    empty = _g([], [], 0)  # no nodes: k zero columns, k nan eigenvalues
    pe, val = laplacian_pe(empty, 2, padding=True, return_eigval=True)
    assert pe.shape == (0, 2) and pe.dtype == np.float32 and val.shape == (2,)
    assert np.isnan(val).all()
    assert random_walk_pe(empty, 3).shape == (0, 3)


def test_laplacian_pe_multi_edges_and_isolated_nodes():
    # a bidirected path 0-1-2-3 with a doubled edge and node 4 isolated
    src = np.array([0, 1, 1, 2, 2, 3, 0, 1])
    dst = np.array([1, 0, 2, 1, 3, 2, 1, 0])
    g = _g(src, dst, 5)
    ref_vec, ref_val = _dgl_lap_pe(src, dst, 5, 3)
    pe, val = laplacian_pe(g, 3, return_eigval=True, seed=0)
    np.testing.assert_allclose(val, ref_val, atol=1e-5)
    full = np.sort(np.linalg.eigvalsh(_dgl_laplacian(src, dst, 5)))
    if np.diff(full).min() > 1e-4:
        _same_up_to_sign(pe, ref_vec, atol=1e-5)


def test_laplacian_pe_errors():
    g = _g([0, 1], [1, 0], 3)
    with pytest.raises(TypeError, match="k must be an int"):
        laplacian_pe(g, 1.5)
    with pytest.raises(ValueError, match="k must be >= 1"):
        laplacian_pe(g, 0)
    h = heterograph({("a", "r", "b"): ([0], [0])})
    with pytest.raises(ValueError, match="homogeneous"):
        laplacian_pe(h, 1)
    with pytest.raises(TypeError, match="expects an arraygnn Graph"):
        random_walk_pe(np.zeros((2, 2)), 2)


# --------------------------------------------------------------------- random_walk_pe


@pytest.mark.parametrize("dtype", IDTYPES)
def test_random_walk_pe_matches_dgl(dtype):
    rng = np.random.default_rng(0)
    n = 30
    src = np.concatenate([rng.integers(0, n - 2, 80), [0, 0, 3]])  # multi-edge, self-loop
    dst = np.concatenate([rng.integers(0, n - 2, 80), [1, 1, 3]])
    g = _g(src, dst, n, dtype)  # nodes n-2, n-1 isolated
    np.testing.assert_allclose(
        random_walk_pe(g, 5), _dgl_random_walk_pe(src, dst, n, 5), rtol=1e-5, atol=1e-7
    )
    # DGL's docstring example
    ex = random_walk_pe(_g([0, 1, 1], [1, 1, 0], 2), 2)
    np.testing.assert_allclose(ex, [[0.0, 0.5], [0.5, 0.75]])


def test_random_walk_pe_weighted_and_blocked():
    rng = np.random.default_rng(1)
    n = 300  # more than one block of start nodes
    pairs = np.unique(rng.integers(0, n, (1500, 2)), axis=0)
    src, dst = pairs[:, 0], pairs[:, 1]
    w = rng.random(src.shape[0]).astype(np.float32) + 0.1
    g = _g(src, dst, n)
    g.edata["w"] = w[:, None]  # [E, 1], squeezed as DGL
    np.testing.assert_allclose(
        random_walk_pe(g, 3, eweight_name="w"),
        _dgl_random_walk_pe(src, dst, n, 3, w),
        rtol=1e-4,
        atol=1e-7,
    )
    # with parallel edges DGL's A.multiply(W) multiplies the count by the summed weight
    g2 = _g([0, 0, 1], [1, 1, 0], 2)
    g2.edata["w"] = np.array([1.0, 2.0, 1.0])
    np.testing.assert_allclose(
        random_walk_pe(g2, 2, "w"),
        _dgl_random_walk_pe(
            np.array([0, 0, 1]), np.array([1, 1, 0]), 2, 2, np.array([1.0, 2.0, 1.0])
        ),
    )
    with pytest.raises(KeyError, match="no edge feature"):
        random_walk_pe(g, 2, eweight_name="nope")


# ----------------------------------------------------------------- laplacian_lambda_max


def test_laplacian_lambda_max_matches_dgl_and_batches(monkeypatch):
    ex = _g([0, 1, 2, 3, 4, 0, 1, 2, 3, 4], [1, 2, 3, 4, 0, 4, 0, 1, 2, 3], 5)
    assert abs(laplacian_lambda_max(ex)[0] - 1.809016994374948) < 1e-9
    g1, s1, d1 = _bidirected(0, 9, 20)
    g2, s2, d2 = _bidirected(1, 14, 30, np.int64)
    out = laplacian_lambda_max(batch([g1, g2]))
    np.testing.assert_allclose(
        out, [_dgl_lambda_max(s1, d1, 9), _dgl_lambda_max(s2, d2, 14)], atol=1e-9
    )
    # a directed graph (non-symmetric Laplacian)
    src, dst = np.array([0, 1, 2, 2, 3]), np.array([1, 2, 0, 3, 0])
    assert abs(laplacian_lambda_max(_g(src, dst, 4))[0] - _dgl_lambda_max(src, dst, 4)) < 1e-9
    # the sparse solver
    g3, s3, d3 = _bidirected(2, 50, 120)
    monkeypatch.setattr(pe_mod, "DENSE_MAX", 10)
    assert abs(laplacian_lambda_max(g3)[0] - _dgl_lambda_max(s3, d3, 50)) < 1e-8
    with pytest.raises(ValueError, match="no nodes"):
        laplacian_lambda_max(_g([], [], 0))


# ------------------------------------------------------------------------- homophily


def _dgl_node_homophily(src, dst, y, n):
    vals = []
    for v in range(n):
        into = dst == v
        vals.append((y[src[into]] == y[v]).mean() if into.any() else 0.0)
    return float(np.mean(vals))


def _dgl_linkx(src, dst, y, n):
    same_deg = np.zeros(n)
    np.add.at(same_deg, dst, (y[src] == y[dst]).astype(float))
    deg = np.bincount(dst, minlength=n).astype(float)
    c = int(y.max()) + 1
    value = 0.0
    for k in range(c):
        mask = y == k
        with np.errstate(invalid="ignore", divide="ignore"):
            x = same_deg[mask].sum() / deg[mask].sum() - mask.sum() / n
        value += max(0, x)  # Python's max(0, nan) is 0, as in DGL
    return value / (c - 1)


def test_homophily_dgl_examples():
    g = _g([1, 2, 0, 4], [0, 1, 2, 3], 5)
    y = np.array([0, 0, 0, 0, 1])
    assert abs(node_homophily(g, y) - 0.6) < 1e-12
    assert edge_homophily(g, y) == 0.75
    assert abs(linkx_homophily(_g([0, 1, 2, 3], [1, 2, 0, 4], 5), y) - 0.2) < 1e-12


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_homophily_matches_transcriptions(dtype, seed):
    rng = np.random.default_rng(seed)
    n = 25
    src = np.concatenate([rng.integers(0, n - 3, 60), [0, 0, 5]])  # multi-edge, self-loop
    dst = np.concatenate([rng.integers(0, n - 3, 60), [1, 1, 5]])
    g = _g(src, dst, n, dtype)
    y = rng.integers(0, 5, n)
    y[y == 3] = 4  # class 3 has no nodes
    ylab = y.astype(dtype)
    assert abs(node_homophily(g, ylab) - _dgl_node_homophily(src, dst, y, n)) < 1e-12
    assert abs(edge_homophily(g, ylab) - (y[src] == y[dst]).mean()) < 1e-12
    assert abs(linkx_homophily(g, ylab) - _dgl_linkx(src, dst, y, n)) < 1e-12
    assert (ylab == y).all()  # not mutated


def test_homophily_edge_cases_and_errors():
    empty = _g([], [], 3)
    y = np.array([0, 1, 1])
    assert np.isnan(edge_homophily(empty, y))
    assert node_homophily(empty, y) == 0.0  # every node without in-edges scores 0
    assert linkx_homophily(empty, y) == 0.0
    g = _g([0, 1], [1, 2], 3)
    with pytest.raises(ValueError, match=r"y must have shape \(3,\)"):
        node_homophily(g, np.array([0, 1]))
    with pytest.raises(TypeError, match="integer class labels"):
        linkx_homophily(g, np.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="at least 2 classes"):
        linkx_homophily(g, np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="labels must be >= 0"):
        linkx_homophily(g, np.array([0, -1, 1]))
    h = heterograph({("a", "r", "b"): ([0], [0])})
    with pytest.raises(ValueError, match="homogeneous"):
        edge_homophily(h, np.zeros(2))
