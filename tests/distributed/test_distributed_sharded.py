"""Sharded batching on a 2-worker LocalCluster equals the single-process loaders."""

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from arraygnn.datasets import load_molecules  # noqa: E402
from arraygnn.distributed import (  # noqa: E402
    batch_index_plan,
    distributed_batches,
    distributed_tfrecord_batches,
    local_cluster,
)
from arraygnn.loader import DataLoader  # noqa: E402
from arraygnn.testing.asserts import assert_batch_equal  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent.parent / "pipeline"))


@pytest.fixture(scope="module")
def client():
    with local_cluster(n_workers=2, threads_per_worker=1) as c:
        yield c


@pytest.fixture(scope="module")
def molecules():
    return load_molecules()[np.arange(300)]


@pytest.mark.parametrize("shuffle", [False, True])
def test_batches_equal_the_data_loader(client, molecules, shuffle):
    loader = DataLoader(molecules, batch_size=32, shuffle=shuffle, seed=7, follow_batch=["x"])
    want = list(loader)
    got = list(
        distributed_batches(
            client, molecules, 32, shuffle=shuffle, seed=7, follow_batch=["x"], max_in_flight=3
        )
    )
    assert len(got) == len(want) == 10
    for a, b in zip(got, want):
        assert_batch_equal(a, b)
    # The loader's second epoch is the plan's epoch 1.
    second = [b.batch for b in loader]
    plan = batch_index_plan(len(molecules), 32, shuffle, 7, epoch=1)
    got2 = list(distributed_batches(client, molecules, 32, shuffle=shuffle, seed=7, epoch=1))
    assert [g.num_graphs for g in got2] == [len(p) for p in plan]
    for a, b in zip(got2, second):
        np.testing.assert_array_equal(a.batch, b)


def test_replicas_split_the_indices(client, molecules):
    seen = []
    for r in range(3):
        plan = batch_index_plan(len(molecules), 16, True, 1, num_replicas=3, replica_id=r)
        got = list(
            distributed_batches(
                client,
                molecules,
                16,
                shuffle=True,
                seed=1,
                num_replicas=3,
                replica_id=r,
                transform=_num_graphs,
            )
        )
        assert got == [len(p) for p in plan]
        seen.append(np.concatenate(plan))
    allidx = np.sort(np.concatenate(seen))
    np.testing.assert_array_equal(allidx, np.arange(len(molecules)))


def _num_graphs(batch):  # runs on the worker
    return batch.num_graphs


def test_needs_a_packed_dataset(client):
    with pytest.raises(TypeError, match="PackedDataset"):
        list(distributed_batches(client, [1, 2, 3], 2))


def test_tfrecord_shards_equal_per_file_loaders(client, tmp_path):
    from _pipeline_graphs import random_graph

    from arraygnn.io.example import write_example
    from arraygnn.io.tfrecord import write_tfrecord
    from arraygnn.pipeline.batching import GraphBatchLoader, shard

    rng = np.random.default_rng(0)
    graphs = [random_graph(rng) for _ in range(40)]
    spec = graphs[0].spec
    paths = []
    for f in range(4):
        p = tmp_path / f"part-{f}.tfrecord"
        write_tfrecord(p, [write_example(g) for g in graphs[f::4]])
        paths.append(str(p))
    for r in range(2):
        got = list(
            distributed_tfrecord_batches(client, paths, 3, spec=spec, num_replicas=2, replica_id=r)
        )
        want = [
            b
            for p in shard(paths, num_replicas=2, replica_id=r)
            for b in GraphBatchLoader(p, 3, spec=spec)
        ]
        assert len(got) == len(want) == 8
        for a, b in zip(got, want):
            assert a.spec == b.spec
            for name in a.node_sets:
                np.testing.assert_array_equal(a.node_sets[name].sizes, b.node_sets[name].sizes)
            for name in a.edge_sets:
                np.testing.assert_array_equal(
                    a.edge_sets[name].adjacency.source, b.edge_sets[name].adjacency.source
                )
    with pytest.raises(ValueError, match="shuffle"):
        list(distributed_tfrecord_batches(client, paths, 3, spec=spec, shuffle=True))
