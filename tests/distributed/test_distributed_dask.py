"""Distributed SpMM / propagation on a 2-worker LocalCluster equals single-machine ops."""

import os
import signal
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from arraygnn import ops  # noqa: E402
from arraygnn.datasets import powerlaw_graph  # noqa: E402
from arraygnn.distributed import (  # noqa: E402
    PartitionLostError,
    distributed_spmm,
    local_cluster,
    partition_graph,
    propagate,
    scatter_features,
)


@pytest.fixture(scope="module")
def client():
    with local_cluster(n_workers=2, threads_per_worker=1) as c:
        yield c


def _graph(num_nodes=400, num_edges=3000, seed=0, isolated=20):
    src, dst = powerlaw_graph(num_nodes - isolated, num_edges, seed=seed)
    return np.stack([src, dst]), num_nodes  # the last `isolated` nodes have no edges


def _sym_norm(ei, n):
    deg = np.bincount(ei[1], minlength=n).astype(np.float64)
    dinv = np.where(deg > 0, 1.0 / np.sqrt(np.maximum(deg, 1)), 0.0)
    return (dinv[ei[0]] * dinv[ei[1]]).astype(np.float32)


@pytest.mark.parametrize("num_parts", [1, 3, 5])
@pytest.mark.parametrize("reduce", ["sum", "max"])
def test_spmm_bit_identical(client, num_parts, reduce):
    ei, n = _graph()
    w = _sym_norm(ei, n)
    x = np.random.default_rng(1).standard_normal((n, 8)).astype(np.float32)
    pg = partition_graph(ei, n, num_parts, edge_weight=w)
    got = distributed_spmm(client, pg, x, reduce=reduce).gather()
    want = ops.spmm(ei, x, edge_weight=w, reduce=reduce)
    np.testing.assert_array_equal(got, want)


def test_three_hop_propagation_and_exchange_volume(client, tmp_path):
    ei, n = _graph(seed=3)
    w = _sym_norm(ei, n)
    x = np.random.default_rng(2).standard_normal((n, 4))
    pg = partition_graph(ei, n, 4, edge_weight=w)
    hops = propagate(client, pg, x, hops=3)
    assert len(hops) == 4
    want = x
    for h in range(1, 4):
        want = ops.spmm(ei, want, edge_weight=w)
        np.testing.assert_array_equal(hops[h].gather(), want)
        # Exactly the halo rows move, no more.
        assert hops[h].stats.halo_rows == pg.halo_rows()
        assert hops[h].stats.halo_bytes == pg.halo_rows() * 4 * 8
        assert hops[h].stats.cross_worker_bytes <= hops[h].stats.halo_bytes
    paths = hops[3].write(tmp_path, prefix="hop3")
    back = np.concatenate([np.load(p) for p in paths])
    np.testing.assert_array_equal(back, want)


def test_partition_with_no_edges(client):
    # Two edges among the first nodes, three blocks: the last block has none.
    ei = np.array([[0, 1], [1, 2]])
    n = 50
    pg = partition_graph(ei, n, 3)
    assert any(b.num_edges == 0 for b in pg.blocks)
    x = np.arange(n * 2, dtype=np.float64).reshape(n, 2)
    got = distributed_spmm(client, pg, x).gather()
    np.testing.assert_array_equal(got, ops.spmm(ei, x))


def test_rows_mismatch_is_an_error(client):
    ei, n = _graph()
    pg = partition_graph(ei, n, 2)
    with pytest.raises(ValueError, match="rows"):
        scatter_features(client, pg, np.zeros((n + 1, 2)))


def test_killed_worker_never_returns_partial_results(client):
    # Last test of the module: it kills one of the shared cluster's workers.
    ei, n = _graph()
    x = np.ones((n, 4))
    pg = partition_graph(ei, n, 4)
    xd = scatter_features(client, pg, x)
    pids = client.run(os.getpid)
    os.kill(pids[xd.workers[0]], signal.SIGKILL)
    time.sleep(0.5)
    try:
        hops = propagate(client, pg, xd, hops=2)
        result = hops[-1].gather()
    except PartitionLostError as err:
        assert "no partial result" in str(err)
    else:  # Dask recovered: then the numbers must be right.
        np.testing.assert_array_equal(result, ops.spmm(ei, ops.spmm(ei, x)))
