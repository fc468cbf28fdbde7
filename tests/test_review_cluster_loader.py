"""Review tests for Cluster-GCN (``ClusterData`` / ``ClusterLoader`` / ``ClusterGCNSampler``
/ ``metis_partition``): METIS' input validated before it reaches C (pymetis checks nothing),
stale or corrupt caches detected, errors that name the class."""

import numpy as np
import pytest

from arraygnn.cluster_data import ClusterData, metis_partition
from arraygnn.cluster_loader import ClusterLoader
from arraygnn.data import Data


def ring(n, dtype=np.int64):
    src = np.arange(n)
    ei = np.stack([np.r_[src, (src + 1) % n], np.r_[(src + 1) % n, src]])
    return ei.astype(dtype)


# ----------------------------------------------------------------- metis_partition
@pytest.mark.parametrize(
    "indptr, index, match",
    [
        ([0, 1, 2], [2, 0], r"index has entry 2, out of range for 2 nodes"),
        ([0, 1, 2], [100000000, 0], r"index has entry 100000000"),
        ([0, 1, 2], [-5, 0], r"index has a negative entry"),
        ([0, 5, 2], [1, 0], r"indptr must be non-decreasing"),
        ([1, 1, 2], [1, 0], r"indptr must start at 0"),
        ([0, 1, 3], [1, 0], r"indptr must end at len\(index\) = 2"),
    ],
)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
def test_metis_partition_validates_csr_before_metis(indptr, index, match, dtype):
    # unchecked, these segfault inside METIS (pymetis passes the buffers on as they are)
    pytest.importorskip("pymetis")
    if min(indptr + index) < 0:
        dtype = np.int64  # negative ids need a signed dtype
    with pytest.raises(ValueError, match=r"metis_partition: " + match):
        metis_partition(np.array(indptr, dtype), np.array(index, dtype), 2)


def test_metis_partition_validates_arguments():
    pytest.importorskip("pymetis")
    ptr, idx = np.array([0, 1, 2, 3, 4]), np.array([1, 0, 3, 2])
    # a short vweights is read past its end by METIS
    with pytest.raises(ValueError, match=r"metis_partition: vweights must have shape \(4,\)"):
        metis_partition(ptr, idx, 2, vweights=np.array([1]))
    with pytest.raises(ValueError, match="metis_partition: vweights has a negative entry"):
        metis_partition(ptr, idx, 2, vweights=np.array([1, -1, 1, 1]))
    with pytest.raises(TypeError, match="metis_partition: vweights must be an integer array"):
        metis_partition(ptr, idx, 2, vweights=np.ones(4))
    with pytest.raises(ValueError, match="metis_partition: num_parts must be >= 1"):
        metis_partition(ptr, idx, 0)
    with pytest.raises(TypeError, match="metis_partition: num_parts must be an int"):
        metis_partition(ptr, idx, 2.5)
    with pytest.raises(TypeError, match="metis_partition: index must be an integer array"):
        metis_partition(ptr, idx.astype(float), 2)
    with pytest.raises(ValueError, match=r"metis_partition: indptr must have shape \[N \+ 1\]"):
        metis_partition(np.zeros(0, np.int64), idx, 2)
    # valid input still partitions: two disconnected pairs
    part = metis_partition(ptr, idx, 2, vweights=np.ones(4, np.int32))
    assert part.dtype == np.int64 and part[0] == part[1] and part[2] == part[3]
    np.testing.assert_array_equal(ptr, [0, 1, 2, 3, 4])  # nothing mutated


# ----------------------------------------------------------------- ClusterData cache
def test_stale_cache_with_the_same_shapes_is_detected(tmp_path):
    """A stored partition of another graph with as many nodes and edges (edges rewired, or
    merely listed in another order) would silently attach edge arrays to wrong edges."""
    n = 12
    ei = ring(n)
    w = np.arange(ei.shape[1], dtype=np.float64)
    part = np.arange(n) % 3
    ClusterData(Data(num_nodes=n, edge_index=ei, edge_weight=w), 3, save_dir=str(tmp_path),
                partition=part, log=False)  # fmt: skip
    reordered = Data(num_nodes=n, edge_index=ei[:, ::-1].copy(), edge_weight=w)
    with pytest.raises(ValueError, match="ClusterData: the stored partition .* does not fit"):
        ClusterData(reordered, 3, save_dir=str(tmp_path), log=False)
    rewired = ei.copy()
    rewired[1] = (rewired[1] + 1) % n
    with pytest.raises(ValueError, match="ClusterData: the stored partition .* does not fit"):
        ClusterData(Data(num_nodes=n, edge_index=rewired, edge_weight=w), 3,
                    save_dir=str(tmp_path), log=False)  # fmt: skip
    # the graph it was made from reads it back
    back = ClusterData(Data(num_nodes=n, edge_index=ei, edge_weight=w), 3,
                       save_dir=str(tmp_path), log=False)  # fmt: skip
    fresh = ClusterData(Data(num_nodes=n, edge_index=ei, edge_weight=w), 3, partition=part,
                        log=False)  # fmt: skip
    for a, b in zip(ClusterLoader(back, batch_size=2), ClusterLoader(fresh, batch_size=2)):
        np.testing.assert_array_equal(a.edge_index, b.edge_index)
        np.testing.assert_array_equal(a.edge_weight, b.edge_weight)


def test_corrupt_cache_is_a_clear_error(tmp_path):
    n = 8
    data = Data(num_nodes=n, edge_index=ring(n))
    ClusterData(data, 2, save_dir=str(tmp_path), partition=np.arange(n) % 2, log=False)
    path = tmp_path / "part_2" / "metis.npz"
    with np.load(path) as f:
        stored = {k: f[k] for k in f.files}
    for key, bad in (
        ("node_perm", np.zeros(n, np.int64)),  # not a permutation
        ("partptr", np.array([0, 9, 8])),  # not non-decreasing, past N
        ("edge_perm", np.full(2 * n, 3, np.int64)),
        ("index", stored["index"].astype(np.float64)),
    ):
        np.savez(path, **{**stored, key: bad})
        with pytest.raises(ValueError, match="ClusterData: the stored partition .* does not fit"):
            ClusterData(data, 2, save_dir=str(tmp_path), log=False)


def test_cache_keeps_the_graph_index_dtype(tmp_path):
    n = 10
    part = np.arange(n) % 2
    ClusterData(Data(num_nodes=n, edge_index=ring(n)), 2, save_dir=str(tmp_path),
                partition=part, log=False)  # fmt: skip
    cd = ClusterData(Data(num_nodes=n, edge_index=ring(n, np.int32)), 2,
                     save_dir=str(tmp_path), log=False)  # fmt: skip
    fresh = ClusterData(Data(num_nodes=n, edge_index=ring(n, np.int32)), 2, partition=part,
                        log=False)  # fmt: skip
    assert cd.partition.index.dtype == fresh.partition.index.dtype == np.int32
    assert cd[0].edge_index.dtype == np.int32
    assert next(iter(ClusterLoader(cd, batch_size=2))).edge_index.dtype == np.int32


def test_negative_part_index_out_of_range_is_index_error():
    cd = ClusterData(Data(num_nodes=4, edge_index=ring(4)), 2, partition=np.array([0, 1, 0, 1]),
                     log=False)  # fmt: skip
    assert cd[-2].num_nodes == 2
    with pytest.raises(IndexError, match="ClusterData: part -3 out of range for 2 parts"):
        cd[-3]
    with pytest.raises(IndexError, match="ClusterData: part 2 out of range for 2 parts"):
        cd[2]


# ----------------------------------------------------------------- ClusterGCNSampler
def _graph(n):
    from arraygnn.graph import graph

    src, dst = ring(n)
    return graph((src, dst), num_nodes=n)


@pytest.mark.parametrize(
    "offset, node_ids",
    [
        ([0, 3, 5], [0, 0, 9, 1, 2]),  # ids out of range / repeated
        ([0, 30, 5], [0, 1, 2, 3, 4]),  # offsets past N
        ([0, 3, 4], [0, 1, 2, 3, 4]),  # offsets not ending at N
        ([0.0, 3, 5], [0, 1, 2, 3, 4.0]),  # floats
        (5, [0, 1, 2, 3, 4]),  # not 1-D
    ],
)
def test_sampler_corrupt_cache_is_a_clear_error(tmp_path, offset, node_ids):
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler

    g = _graph(5)
    path = tmp_path / "c.pkl"
    with open(path, "wb") as f:
        np.savez(f, partition_offset=np.array(offset), partition_node_ids=np.array(node_ids))
    with pytest.raises(ValueError, match="ClusterGCNSampler: the contents in the cache file"):
        ClusterGCNSampler(g, 2, cache_path=str(path))


def test_sampler_repeated_part_names_the_sampler():
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler

    g = _graph(5)
    s = ClusterGCNSampler(g, 2, cache_path=None, partition=np.array([0, 1, 0, 1, 1]))
    with pytest.raises(ValueError, match="ClusterGCNSampler: partition_ids holds a part twice"):
        s.sample(g, np.array([1, 1]))
    np.testing.assert_array_equal(s.sample(g, [1, 0]).ndata["_ID"], [1, 3, 4, 0, 2])


@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
@pytest.mark.parametrize("recursive", [False, True])
@pytest.mark.parametrize("n, e, k", [(30, 200, 4), (9, 0, 3), (0, 0, 2), (1, 3, 1), (20, 60, 7)])
def test_cache_round_trip_still_reads(tmp_path, sparse_format, recursive, n, e, k):
    """The check refuses no partition of the graph itself: multi-edges, self-loops,
    isolated nodes, empty parts, no edges, no nodes, both formats."""
    rng = np.random.default_rng(n + e)
    ei = rng.integers(0, max(n, 1), (2, e)) if n else np.zeros((2, 0), np.int64)
    if e:
        ei[:, : e // 3] = ei[:, e // 3 : 2 * (e // 3)]  # repeated edges
    data = Data(num_nodes=n, edge_index=ei.astype(np.int32), edge_weight=np.arange(e) * 1.0)
    part = rng.integers(0, k, n)
    kw = {"sparse_format": sparse_format, "recursive": recursive, "log": False}
    a = ClusterData(data, k, save_dir=str(tmp_path), partition=part, **kw)
    b = ClusterData(data, k, save_dir=str(tmp_path), **kw)
    for field in ("indptr", "index", "partptr", "node_perm", "edge_perm"):
        np.testing.assert_array_equal(getattr(a.partition, field), getattr(b.partition, field))
        assert getattr(a.partition, field).dtype == getattr(b.partition, field).dtype
    for x, y in zip(ClusterLoader(a, batch_size=2), ClusterLoader(b, batch_size=2)):
        np.testing.assert_array_equal(x.edge_index, y.edge_index)
        np.testing.assert_array_equal(x.edge_weight, y.edge_weight)


@pytest.mark.parametrize("sparse_format", ["csr", "csc"])
def test_non_native_byte_order_ids(sparse_format):
    """Big-endian ids (from a file) reach the Numba kernel in native order, never as a
    typing error from inside Numba."""
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 20, (2, 80))
    part = rng.integers(0, 3, 20)
    kw = {"sparse_format": sparse_format, "log": False}
    want = ClusterData(Data(num_nodes=20, edge_index=ei), 3, partition=part, **kw)
    got = ClusterData(Data(num_nodes=20, edge_index=ei.astype(">i8")), 3,
                      partition=part.astype(">i4"), **kw)  # fmt: skip
    for field in ("indptr", "index", "partptr", "node_perm", "edge_perm"):
        np.testing.assert_array_equal(getattr(got.partition, field), getattr(want.partition, field))
    for a, b in zip(ClusterLoader(got, batch_size=2), ClusterLoader(want, batch_size=2)):
        np.testing.assert_array_equal(a.edge_index, b.edge_index)


def test_metis_output_checked_before_the_sort(monkeypatch):
    """pymetis' part ids go to a Numba counting sort (no bounds checks): a bad answer is
    an error there, not a write out of bounds."""
    import sys
    import types

    fake = types.SimpleNamespace(
        CSRAdjacency=lambda xadj, adjncy: None,
        part_graph=lambda nparts, adjacency, **kw: (0, np.array([0, 5, 1, 0])),
    )
    monkeypatch.setitem(sys.modules, "pymetis", fake)
    with pytest.raises(
        RuntimeError, match=r"ClusterData: METIS returned part ids outside \[0, 2\)"
    ):
        ClusterData(Data(num_nodes=4, edge_index=ring(4)), 2, log=False)


def test_truncated_cache_files(tmp_path):
    """A cache file cut short (a run killed while writing it) is the classes' own error,
    not zipfile's."""
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler

    n = 6
    data = Data(num_nodes=n, edge_index=ring(n))
    ClusterData(data, 2, save_dir=str(tmp_path), partition=np.arange(n) % 2, log=False)
    path = tmp_path / "part_2" / "metis.npz"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="ClusterData: the stored partition .* does not fit"):
        ClusterData(data, 2, save_dir=str(tmp_path), log=False)
    g = _graph(n)
    cache = tmp_path / "c.pkl"
    ClusterGCNSampler(g, 2, cache_path=str(cache), partition=np.arange(n) % 2)
    cache.write_bytes(cache.read_bytes()[:100])
    with pytest.raises(ValueError, match="ClusterGCNSampler: the contents in the cache file"):
        ClusterGCNSampler(g, 2, cache_path=str(cache))
