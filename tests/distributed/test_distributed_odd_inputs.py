"""The prepared-block cache must never serve a freed graph's blocks to a new graph that
CPython placed at the same address, and must let go of a graph's futures with the graph."""

import gc
import sys

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from arraygnn import ops  # noqa: E402
from arraygnn.distributed import PartitionedGraph, distributed_spmm, partition_graph  # noqa: E402
from arraygnn.distributed.propagate import _blocks  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_new_graph_at_a_freed_graphs_address_gets_its_own_blocks(client):
    x = np.arange(8.0)[:, None]
    ring = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]])
    rev = ring[::-1].copy()  # the reversed ring: same block sizes, other edges
    template = partition_graph(rev, 8, 2)
    want = ops.spmm(ops.to_csr(rev, 8, 8), x, num_dst_nodes=8)
    reused = 0
    for _ in range(20):
        pg = partition_graph(ring, 8, 2)
        old = id(pg)
        distributed_spmm(client, pg, x).gather()
        del pg  # its address is free for the next object of its size: usually pg2
        pg2 = PartitionedGraph(
            template.num_nodes, template.num_edges, template.boundaries, template.blocks
        )
        reused += id(pg2) == old
        np.testing.assert_array_equal(distributed_spmm(client, pg2, x).gather(), want)
        del pg2
    print(f"addresses reused: {reused} of 20")


def test_same_id_different_graph_forced(client, monkeypatch):
    # every object gets the same id(): the cache must still tell the graphs apart
    # (arraygnn.distributed.propagate is also the name of a function: take the module)
    propagate_module = sys.modules["arraygnn.distributed.propagate"]
    monkeypatch.setattr(propagate_module, "id", lambda obj: 12345, raising=False)
    x = np.arange(8.0)[:, None]
    ring = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]])
    for edges in (ring, ring[::-1].copy(), ring):
        pg = partition_graph(edges, 8, 2)
        want = ops.spmm(ops.to_csr(edges, 8, 8), x, num_dst_nodes=8)
        np.testing.assert_array_equal(distributed_spmm(client, pg, x).gather(), want)


def test_cache_entries_die_with_their_graph(client):
    gc.collect()
    before = len(_blocks)
    ring = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    pg = partition_graph(ring, 4, 2)
    x = np.ones((4, 2))
    distributed_spmm(client, pg, x).gather()
    distributed_spmm(client, pg, x).gather()  # a second call reuses the prepared blocks
    assert len(_blocks) == before + 1
    del pg
    gc.collect()
    assert len(_blocks) == before  # the futures were released with the graph


def test_save_and_load_use_exactly_the_given_path(tmp_path):
    pg = partition_graph(np.array([[0, 1, 2], [1, 2, 0]]), 3, 2)
    path = tmp_path / "graph.parts"  # no .npz: savez used to append it, load then failed
    pg.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["graph.parts"]
    back = PartitionedGraph.load(path)
    assert back.num_nodes == 3 and back.blocks[0].halo_from(1).tolist() == [2]


def test_scatter_features_names_bad_arguments(client):
    from arraygnn.distributed.propagate import scatter_features

    pg = partition_graph(np.array([[0, 1], [1, 2]]), 4, 2)
    with pytest.raises(TypeError, match="x must be a NumPy or CuPy array, got list"):
        distributed_spmm(client, pg, [[1.0]] * 4)  # used to raise AttributeError: shape
    with pytest.raises(ValueError, match="one of its rows per node"):
        scatter_features(client, pg, np.ones((3, 2)))
    from arraygnn.distributed.cluster import worker_addresses

    worker = worker_addresses(client)[0]  # asked of the scheduler (the cached info can be empty)
    with pytest.raises(ValueError, match="one worker per block"):
        scatter_features(client, pg, np.ones((4, 2)), workers=[worker])  # was IndexError
    out = scatter_features(client, pg, np.ones((4, 2)), workers=[worker, worker]).gather()
    assert out.shape == (4, 2)


def test_distributed_spmm_checks_reduce_and_values_before_sending_work(client):
    pg = partition_graph(np.array([[0, 1], [1, 2]]), 4, 2)
    with pytest.raises(ValueError, match="reduce must be one of"):
        distributed_spmm(client, pg, np.ones((4, 2)), reduce="median")  # failed on a worker
    with pytest.raises(TypeError, match="x must be a numeric"):
        distributed_spmm(client, pg, np.ones((4, 2), dtype=bool))
    got = distributed_spmm(client, pg, np.ones((4, 2)), reduce="add").gather()
    np.testing.assert_array_equal(got, ops.spmm(np.array([[0, 1], [1, 2]]), np.ones((4, 2))))
    x = np.arange(8.0).reshape(4, 2)
    got = distributed_spmm(client, pg, x, reduce="prod").gather()  # every ops reduction
    np.testing.assert_array_equal(got, ops.spmm(np.array([[0, 1], [1, 2]]), x, reduce="prod"))


def test_workers_are_asked_of_the_scheduler_not_the_cached_identity(client, monkeypatch):
    """client.scheduler_info() may answer with a stale cached identity listing no workers (a
    CI run once failed 'the Dask cluster has no workers' so); the plan asks the scheduler."""
    from arraygnn.distributed.cluster import worker_addresses

    stale = {"workers": {}}
    monkeypatch.setattr(client, "scheduler_info", lambda *a, **k: stale)
    assert worker_addresses(client) == sorted(client.nthreads())
    x = np.arange(8.0)[:, None]
    ring = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]])
    want = ops.spmm(ops.to_csr(ring, 8, 8), x, num_dst_nodes=8)
    got = distributed_spmm(client, partition_graph(ring, 8, 2), x).gather()
    np.testing.assert_array_equal(got, want)
