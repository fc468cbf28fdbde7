"""Parity sweep (session 14): arraygnn.distributed and arraygnn.interop corners no test reached.

Distributed: partition invariants on odd graphs (self-loops, multi-edges, isolated nodes, a
bipartite edge pattern, more parts than nodes, int32 / int64), ``distributed_spmm`` against
single-machine ``ops.spmm`` for every reduction with and without weights (bit for bit, as
docs/scaling_out.md claims), ``ExchangeStats``, the batch plan's "each example once per epoch"
with ``drop_last`` against ``DataLoader``, and bad input named before any worker sees it.
Interop: ``from_torch_sparse`` over value dtypes against PyG 2.8's ``to_edge_index``, the
sparse checks against PyG's on odd tensors, ``data_pointer`` / ``aligned_empty`` checked by
pointer equality with torch and jax.
"""

import warnings

import numpy as np
import pytest

from arraygnn import ops
from arraygnn.distributed import (
    ExchangeStats,
    PartitionLostError,
    batch_index_plan,
    partition_graph,
)

N = 8  # nodes 6 and 7 are isolated


def _odd_graph(idt=np.int64):
    """Self-loops (3 -> 3 twice: a multi-edge too), parallel edges, a bipartite part."""
    rng = np.random.default_rng(14)
    rand = rng.integers(0, 4, (2, 12))
    bip = np.array([[0, 1, 2, 0], [4, 5, 5, 4]])  # 0..2 -> 4..5 (0 -> 4 twice)
    loops = np.array([[3, 3, 5], [3, 3, 5]])
    return np.concatenate([rand, bip, loops], axis=1).astype(idt)


def _global_edges(pg):
    """(src, dst, weight or None) of every block's edges mapped back to global ids."""
    src, dst, w = [], [], []
    for b in pg.blocks:
        local = b.src
        ids = np.where(
            local < b.num_rows,
            b.row_start + local,
            b.halo_ids[np.maximum(local - b.num_rows, 0)] if b.halo_ids.size else 0,
        )
        src.append(ids)
        dst.append(b.row_start + np.repeat(np.arange(b.num_rows), np.diff(b.indptr)))
        if b.edge_weight is not None:
            w.append(b.edge_weight)
    return np.concatenate(src), np.concatenate(dst), (np.concatenate(w) if w else None)


@pytest.mark.parametrize("idt", [np.int32, np.int64])
@pytest.mark.parametrize("num_parts", [1, 2, N + 3])
def test_every_edge_in_exactly_one_block_with_its_halo(idt, num_parts):
    ei = _odd_graph(idt)
    w = np.random.default_rng(1).standard_normal(ei.shape[1])
    pg = partition_graph(ei, N, num_parts, edge_weight=w)
    b = pg.boundaries
    assert pg.num_parts == num_parts and b[0] == 0 and b[-1] == N and (np.diff(b) >= 0).all()
    assert sum(blk.num_edges for blk in pg.blocks) == pg.num_edges == ei.shape[1]
    # every edge once, in the destination-sorted stable order (the RULE of partition.py)
    order = np.argsort(ei[1], kind="stable")
    src, dst, ws = _global_edges(pg)
    np.testing.assert_array_equal(src, ei[0][order])
    np.testing.assert_array_equal(dst, ei[1][order])
    np.testing.assert_array_equal(ws, w[order])
    for blk in pg.blocks:
        assert (blk.row_start, blk.row_stop) == (b[blk.part_id], b[blk.part_id + 1])
        h = blk.halo_ids
        assert (np.diff(h) > 0).all()  # sorted, unique
        assert not ((h >= blk.row_start) & (h < blk.row_stop)).any()  # never owned ids
        np.testing.assert_array_equal(blk.halo_owner, pg.owner_of(h) if h.size else h)
        used = blk.src[blk.src >= blk.num_rows] - blk.num_rows
        assert np.array_equal(np.unique(used), np.arange(h.shape[0]))  # each halo row used
        assert blk.src.dtype == blk.indptr.dtype == np.int64


def test_bad_arguments_are_named_before_any_worker_sees_them():
    ei = _odd_graph()
    for bad in (3.5, "8", True):  # were truncated / parsed / taken as 1
        with pytest.raises(TypeError, match="num_nodes"):
            partition_graph(ei, bad, 2)
    with pytest.raises(ValueError, match="num_nodes must be >= 0"):
        partition_graph(np.zeros((2, 0), np.int64), -1, 2)  # named another function's argument
    with pytest.raises(ValueError, match="num_parts"):
        partition_graph(ei, N, True)  # was one part
    for weight in (np.ones(ei.shape[1], bool), np.array(["a"] * ei.shape[1])):
        with pytest.raises(TypeError, match="edge_weight must be a numeric"):
            partition_graph(ei, N, 2, edge_weight=weight)  # was a failure on every worker
    for kw in ({"num_graphs": 5.5}, {"num_graphs": -1}, {"num_graphs": True}, {"epoch": -1}):
        args = {"num_graphs": 5, "batch_size": 2, "shuffle": True, "seed": 0, **kw}
        with pytest.raises((TypeError, ValueError), match=next(iter(kw))):
            batch_index_plan(**args)  # 5.5 made six graphs, -1 none, epoch -1 epoch 0


@pytest.mark.parametrize(
    ("n", "bs", "replicas", "shuffle", "drop_last"),
    [
        (10, 3, 1, True, True),
        (11, 2, 3, True, False),
        (11, 2, 3, False, True),
        (2, 4, 5, True, False),
    ],
)
def test_batch_plan_covers_each_example_once_per_epoch(n, bs, replicas, shuffle, drop_last):
    for epoch in (0, 1):
        plans = [
            batch_index_plan(n, bs, shuffle, 3, drop_last, replicas, r, epoch)
            for r in range(replicas)
        ]
        for r, plan in enumerate(plans):
            mine = np.arange(n)[r::replicas]
            got = np.concatenate(plan) if plan else np.zeros(0, np.int64)
            assert all(len(p) == bs for p in plan[:-1])
            if drop_last:
                assert all(len(p) == bs for p in plan) and got.size == mine.size // bs * bs
            else:
                np.testing.assert_array_equal(np.sort(got), mine)
            if not shuffle:
                np.testing.assert_array_equal(got, mine[: got.size])
        if not drop_last:  # across replicas: every example exactly once
            allx = np.concatenate([np.concatenate(p) for p in plans if p])
            np.testing.assert_array_equal(np.sort(allx), np.arange(n))
    # seeded: the same plan twice
    a = batch_index_plan(n, bs, True, 3, drop_last, replicas, 0)
    assert all(
        np.array_equal(x, y)
        for x, y in zip(a, batch_index_plan(n, bs, True, 3, drop_last, replicas, 0))
    )


def test_plan_with_drop_last_equals_the_data_loaders_epochs():
    from arraygnn import Data, DataLoader

    graphs = [Data(x=np.zeros((1, 1), np.float32), idx=np.array([i])) for i in range(10)]
    loader = DataLoader(graphs, batch_size=3, shuffle=True, seed=5, drop_last=True)
    for epoch in (0, 1):
        want = [b.idx.tolist() for b in loader]
        got = [p.tolist() for p in batch_index_plan(10, 3, True, 5, True, epoch=epoch)]
        assert got == want and len(got) == 3


def test_partition_lost_error_and_stats_types():
    assert issubclass(PartitionLostError, RuntimeError)
    s = ExchangeStats()
    assert (s.halo_rows, s.halo_bytes, s.cross_worker_bytes) == (0, 0, 0)


# ------------------------------------------------------------------------------ on Dask


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    from arraygnn.distributed import local_cluster

    with local_cluster(n_workers=2, threads_per_worker=1) as c:
        yield c


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_distributed_spmm_is_bit_identical_for_every_reduction(client, reduce, weighted):
    from arraygnn.distributed import distributed_spmm

    rng = np.random.default_rng(2)
    ei = _odd_graph()
    w = rng.standard_normal(ei.shape[1]) if weighted else None
    x = rng.standard_normal((N, 3))  # float64: sum exact too (docs: bit-identical)
    want = ops.spmm(ei, x, edge_weight=w, reduce=reduce, num_dst_nodes=N)
    for num_parts in (2, N + 3):  # N + 3: empty blocks
        d = distributed_spmm(client, partition_graph(ei, N, num_parts, edge_weight=w), x, reduce)
        got = d.gather()
        assert got.dtype == d.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_distributed_spmm_dtypes_row_shapes_and_stats(client):
    from arraygnn.distributed import distributed_spmm, scatter_features
    from arraygnn.distributed.cluster import worker_addresses

    rng = np.random.default_rng(3)
    ei = _odd_graph(np.int32)
    w = rng.standard_normal(ei.shape[1])  # float64 weights, float32 features
    pg = partition_graph(ei, N, 3, edge_weight=w)
    for shape in [(N,), (N, 2, 3)]:
        x = rng.standard_normal(shape).astype(np.float32)
        d = distributed_spmm(client, pg, x)
        want = ops.spmm(ei, x, edge_weight=w, num_dst_nodes=N)
        got = d.gather()
        assert got.dtype == d.dtype == want.dtype == np.float64 and d.row_shape == shape[1:]
        np.testing.assert_array_equal(got, want)
        s = d.stats
        row_bytes = x[0].nbytes  # bytes of the *input* rows moved (float32), not the result's
        assert s.halo_rows == pg.halo_rows() and s.halo_bytes == s.halo_rows * row_bytes
        assert 0 <= s.cross_worker_bytes <= s.halo_bytes
    one = worker_addresses(client)[:1] * pg.num_parts  # every block on one worker
    d = distributed_spmm(client, pg, scatter_features(client, pg, np.ones((N, 2)), workers=one))
    assert d.stats.cross_worker_bytes == 0 and d.stats.halo_bytes == pg.halo_rows() * 16
    assert d.workers == one


# ------------------------------------------------------------------------------- interop


def _torch():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    return torch


@pytest.mark.parametrize("layout", ["coo-raw", "coo", "csr", "csc", "empty"])
def test_from_torch_sparse_value_dtypes_match_pyg(layout):
    torch = _torch()
    import torch_geometric.utils as P

    from arraygnn.interop import from_torch_sparse

    torch.manual_seed(0)
    ei = torch.randint(0, 4, (2, 10))  # with duplicates (kept, in storage order, for raw COO)
    if layout == "empty":
        ei = ei[:, :0]
    dtypes = [torch.float16, torch.bool, torch.int8, torch.complex64, torch.float64]
    for vd in dtypes:
        with warnings.catch_warnings():  # torch's invariant-check / beta notices
            warnings.simplefilter("ignore")
            adj = torch.sparse_coo_tensor(ei, torch.arange(ei.shape[1]).to(vd), (4, 5))
            if layout != "coo-raw":
                adj = adj.coalesce()
            if layout in ("csr", "csc"):
                adj = adj.to_sparse_csr() if layout == "csr" else adj.to_sparse_csc()
        ref_ei, ref_w = P.to_edge_index(adj.clone())
        got_ei, got_w = from_torch_sparse(adj)
        assert got_ei.dtype == np.int64 and got_w.dtype == ref_w.numpy().dtype, vd
        np.testing.assert_array_equal(got_ei, ref_ei.numpy())
        np.testing.assert_array_equal(got_w, ref_w.numpy())


def test_to_sparse_small_dtypes_match_pyg_and_complex_is_refused():
    torch = _torch()
    import torch_geometric.utils as P

    import arraygnn.interop as I

    ei = np.array([[0, 1, 1, 2, 0], [1, 0, 2, 1, 1]])  # 0 -> 1 twice
    for name in ("to_torch_coo_tensor", "to_torch_csr_tensor", "to_torch_csc_tensor"):
        for dt in (np.float16, np.int8, np.uint8):
            attr = np.arange(1, 6).astype(dt)
            ours = getattr(I, name)(ei, attr, (3, 3))
            ref = getattr(P, name)(torch.from_numpy(ei), torch.from_numpy(attr), (3, 3))
            assert ours.dtype == ref.dtype and ours.layout == ref.layout
            assert torch.equal(ours.to_dense(), ref.to_dense())
        # documented (docs/interop.md): edge_attr must be real numeric; PyG builds complex
        with pytest.raises(TypeError, match=f"{name}: edge_attr must be a numeric"):
            getattr(I, name)(ei, np.ones(5, np.complex64), (3, 3))


def test_sparse_checks_match_pyg_on_odd_tensors():
    torch = _torch()
    import torch_geometric.utils as P
    from torch_geometric import EdgeIndex

    from arraygnn.interop import is_sparse, is_torch_sparse_tensor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        objs = [
            torch.eye(2).to_sparse().to("meta"),
            torch.nested.nested_tensor([torch.ones(2)]),
            EdgeIndex(torch.tensor([[0, 1], [1, 0]]), sparse_size=(2, 2)),
            torch.eye(2).to_sparse_bsc((1, 1)),
            torch.sparse_coo_tensor(torch.zeros(2, 0, dtype=torch.long), torch.zeros(0), (0, 0)),
            torch.eye(3).to_sparse(1),
            torch.eye(2).to_sparse().requires_grad_(),
            torch.eye(2).to_sparse_csr().half(),
            "sparse",
        ]
    for obj in objs:
        assert is_torch_sparse_tensor(obj) == P.is_torch_sparse_tensor(obj), obj
        assert is_sparse(obj) == P.is_sparse(obj), obj


def test_zero_copy_claims_by_pointer_with_torch_and_jax():
    torch = pytest.importorskip("torch")
    from arraygnn.interop import JAX_ALIGNMENT, aligned_empty, data_pointer, to_torch

    assert JAX_ALIGNMENT == 64
    for shape in [(0,), (3, 0), (1000, 3), 5, (), (2, 3, 4)]:
        for dt in (np.float32, np.int64, np.bool_):
            a = aligned_empty(shape, dt)
            assert a.ctypes.data % JAX_ALIGNMENT == 0 and a.flags.c_contiguous
            assert a.shape == np.empty(shape).shape and a.dtype == dt and a.flags.writeable
    a = aligned_empty((1000, 3), np.float32)
    a[...] = 1
    t, report = to_torch(a, report=True)
    assert data_pointer(t) == data_pointer(a) == a.ctypes.data and report.shared == ["<array>"]
    assert data_pointer(torch.from_numpy(a)[1:]) == a.ctypes.data + 12  # views: their element
    # a tensor without one buffer of its own has no pointer (raised RuntimeError)
    assert data_pointer(torch.eye(2).to_sparse()) is None
    assert data_pointer([1, 2]) is None and data_pointer(3.0) is None
    jax = pytest.importorskip("jax")
    from arraygnn.interop import to_jax

    jx, report = to_jax(a, report=True)
    assert report.zero_copy and data_pointer(jx) == data_pointer(a)
    b = np.ones(100_001, np.float32)[1:]  # 4 bytes past an allocation: never 64-aligned
    jb, report = to_jax(b, report=True)
    assert not report.zero_copy and "64-byte" in report.copied["<array>"]
    assert data_pointer(jb) % JAX_ALIGNMENT == 0 and data_pointer(jb) != data_pointer(b)
    del jax
