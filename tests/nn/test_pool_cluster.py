"""graclus (torch_cluster's matching: properties) and PyG's max_pool / avg_pool /
*_pool_x / *_pool_neighbor_x against PyG 2.8.1 with a given cluster vector."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data
from arraygnn.nn import (
    avg_pool,
    avg_pool_neighbor_x,
    avg_pool_x,
    graclus,
    max_pool,
    max_pool_neighbor_x,
    max_pool_x,
)


def _undirected(rng, n, m, idx=np.int64):
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    return np.stack([np.r_[s, d], np.r_[d, s]]).astype(idx)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_graclus_is_a_greedy_matching(seed, idx):
    rng = np.random.default_rng(seed)
    n = 40
    ei = _undirected(rng, n - 5, 60, idx)  # the last five nodes are isolated
    cluster = graclus(ei, num_nodes=n, seed=seed)
    assert cluster.shape == (n,) and cluster.dtype == np.int64
    ids, counts = np.unique(cluster, return_counts=True)
    assert counts.max() <= 2
    edges = set(map(tuple, ei.T.tolist()))
    for c, k in zip(ids, counts):
        members = np.flatnonzero(cluster == c)
        assert c == members.min()  # the smaller id of the pair, or the node itself
        if k == 2:
            assert tuple(members) in edges
    alone = set(np.flatnonzero(counts[np.searchsorted(ids, cluster)] == 1))
    for u, v in ei.T:  # maximal: no edge joins two unmatched nodes
        assert u == v or not (u in alone and v in alone)
    assert set(range(n - 5, n)) <= alone
    np.testing.assert_array_equal(graclus(ei, num_nodes=n, seed=seed), cluster)


def test_graclus_weights_pick_the_heaviest_neighbour():
    # heavy pairs (0,1), (2,3), (4,5); light edges across; node 6 only on negative weights
    pairs = [(0, 1, 10.0), (2, 3, 9.0), (4, 5, 8.0), (1, 2, 1.0), (3, 4, 1.0), (5, 0, 1.0)]
    pairs += [(6, 0, -1.0)]
    src = [a for a, b, w in pairs] + [b for a, b, w in pairs]
    dst = [b for a, b, w in pairs] + [a for a, b, w in pairs]
    w = np.array([w for *_, w in pairs] * 2)
    for seed in range(10):
        cluster = graclus(np.array([src, dst]), w.astype(np.float32), seed=seed)
        assert cluster.tolist() == [0, 0, 2, 2, 4, 4, 6]


def test_graclus_errors():
    with pytest.raises(ValueError, match="graclus.*weight"):
        graclus(np.array([[0], [1]]), np.ones(3))
    with pytest.raises(ValueError, match="graclus.*edge_index"):
        graclus(np.array([[0], [5]]), num_nodes=3)


torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric")
from torch_geometric.nn import pool as pyg_pool  # noqa: E402


def _batch(seed, idx, dtype):
    rng = np.random.default_rng(seed)
    graphs = []
    for n in (5, 0, 8, 1, 6):
        m = 2 * n
        ei = rng.integers(0, max(n, 1), (2, m)).astype(idx) if n else np.zeros((2, 0), idx)
        if n:
            ei = np.concatenate([ei, [[0, ei[0, 0]], [0, ei[1, 0]]]], axis=1).astype(idx)
        graphs.append(
            Data(
                x=rng.standard_normal((n, 3)).astype(dtype),
                pos=rng.standard_normal((n, 2)).astype(dtype),
                edge_index=ei,
                edge_attr=rng.random((ei.shape[1], 2)).astype(dtype),
                num_nodes=n,
            )
        )
    batch = Batch.from_data_list(graphs)
    cluster = (np.arange(batch.num_nodes) // 2 * 3).astype(idx)  # gaps in the ids
    return batch, cluster


def _pyg_data(b):
    t = lambda a: torch.from_numpy(a.astype(np.int64) if a.dtype.kind in "iu" else a)  # noqa: E731
    return pyg.data.Batch(
        x=t(b.x),
        pos=t(b.pos),
        edge_index=t(b.edge_index),
        edge_attr=t(b.edge_attr),
        batch=t(b.batch),
    )


@pytest.mark.parametrize("fn", ["max_pool", "avg_pool"])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pool_matches_pyg(fn, idx, dtype):
    batch, cluster = _batch(0, idx, dtype)
    before = batch.x.copy()
    ours = {"max_pool": max_pool, "avg_pool": avg_pool}[fn](cluster, batch)
    exp = getattr(pyg_pool, fn)(torch.from_numpy(cluster.astype(np.int64)), _pyg_data(batch))
    for key in ("x", "pos", "edge_attr"):
        np.testing.assert_allclose(ours[key], exp[key].numpy(), rtol=1e-6)
    np.testing.assert_array_equal(ours.edge_index, exp.edge_index.numpy())
    np.testing.assert_array_equal(ours.batch, exp.batch.numpy())
    np.testing.assert_array_equal(batch.x, before)


@pytest.mark.parametrize("fn", ["max_pool_x", "avg_pool_x"])
@pytest.mark.parametrize("size", [None, 9])
def test_pool_x_matches_pyg(fn, size):
    batch, cluster = _batch(1, np.int64, np.float32)
    if size is not None:  # clusters local to each graph, as the size variant expects
        local = np.arange(batch.num_nodes) - batch.ptr[batch.batch]
        cluster = batch.batch * size + local // 2
    ours = {"max_pool_x": max_pool_x, "avg_pool_x": avg_pool_x}[fn](
        cluster, batch.x, batch.batch, size=size
    )
    t = torch.from_numpy
    exp = getattr(pyg_pool, fn)(t(cluster), t(batch.x), t(batch.batch), size=size)
    np.testing.assert_allclose(ours[0], exp[0].numpy(), rtol=1e-6)
    if size is None:
        np.testing.assert_array_equal(ours[1], exp[1].numpy())
    else:
        assert ours[1] is None and exp[1] is None


@pytest.mark.parametrize("fn", ["max_pool_neighbor_x", "avg_pool_neighbor_x"])
@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
def test_pool_neighbor_x_matches_pyg(fn, flow):
    batch, _ = _batch(2, np.int32, np.float64)
    before = batch.x.copy()
    ours = {"max_pool_neighbor_x": max_pool_neighbor_x, "avg_pool_neighbor_x": avg_pool_neighbor_x}[
        fn
    ](batch, flow=flow)
    exp = getattr(pyg_pool, fn)(_pyg_data(batch), flow=flow)
    np.testing.assert_allclose(ours.x, exp.x.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(batch.x, before)  # a copy, unlike PyG


def test_pool_errors():
    batch, cluster = _batch(3, np.int64, np.float32)
    with pytest.raises(ValueError, match="max_pool: cluster"):
        max_pool(cluster[:-1], batch)
    with pytest.raises(ValueError, match="avg_pool_x: cluster"):
        avg_pool_x(-np.ones(batch.num_nodes, np.int64), batch.x, batch.batch)
    with pytest.raises(TypeError, match="max_pool_x: cluster"):
        max_pool_x(np.zeros(batch.num_nodes), batch.x, batch.batch)
    with pytest.raises(ValueError, match="flow"):
        max_pool_neighbor_x(batch, flow="both")
