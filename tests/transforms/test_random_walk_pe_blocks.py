"""AddRandomWalkPE: sparse powers while they stay sparse, then the return probabilities of
blocks of nodes advanced by SpMM; equal to PyG's dense (parallel edges set one entry) and
sparse (they add up) results, including several blocks and weighted edges."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.transforms.positional_encoding as pe_module
from arraygnn.data import Data
from arraygnn.transforms import AddRandomWalkPE


def _reference(ei, n, steps, weight=None, one_entry=False):
    w = np.ones(ei.shape[1]) if weight is None else weight.astype(np.float64)
    deg = np.bincount(ei[0], weights=w, minlength=n)
    p = np.zeros((n, n))
    val = 1.0 / np.maximum(deg, 1)
    if one_entry:
        p[ei[0], ei[1]] = val[ei[0]]
    else:
        np.add.at(p, (ei[0], ei[1]), val[ei[0]])
    out, cols = p, []
    for _ in range(steps):
        cols.append(np.diagonal(out).copy())
        out = out @ p
    return np.stack(cols, -1)


def _graph(n, e, seed):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e))
    return np.concatenate([ei, ei[:, :20], np.stack([np.arange(5), np.arange(5)])], 1)


@pytest.mark.parametrize("switch", [0, 16, 10**9])  # sparse powers only / default / SpMM from P
@pytest.mark.parametrize("n", [20, 300, 2001])
def test_matches_the_dense_and_sparse_rules(n, switch, monkeypatch):
    monkeypatch.setattr(pe_module, "_BLOCK_BYTES", 97 * 4 * n)  # 97 nodes per block
    monkeypatch.setattr(pe_module, "_SWITCH_DENSITY", switch)
    ei = _graph(n, 3 * n, n)
    steps = 5 if n < 2000 else 3
    out = AddRandomWalkPE(steps)(Data(edge_index=ei, num_nodes=n)).random_walk_pe
    ref = _reference(ei, n, steps, one_entry=n <= 2000)
    assert out.dtype == np.float32 and out.shape == (n, steps)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)


def test_weighted_float64_and_isolated_nodes():
    n = 400
    ei = _graph(n - 10, 1200, 1)  # the last 10 nodes are isolated
    w = np.random.default_rng(2).random(ei.shape[1])
    d = Data(edge_index=ei, edge_weight=w, num_nodes=n)
    out = AddRandomWalkPE(4)(d).random_walk_pe
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, _reference(ei, n, 4, w, one_entry=True), rtol=1e-10)
    assert (out[-10:] == 0).all()


@pytest.mark.parametrize("n", [300, 2100])
def test_matches_pyg(n):
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    ei = _graph(n, 3 * n, 7)
    ref = tg.transforms.AddRandomWalkPE(4)(
        tg.data.Data(edge_index=torch.from_numpy(ei), num_nodes=n)
    ).random_walk_pe.numpy()
    out = AddRandomWalkPE(4)(Data(edge_index=ei, num_nodes=n)).random_walk_pe
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)
