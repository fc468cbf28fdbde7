"""Every ``arraygnn.utils`` function against ``torch_geometric.utils`` on the same inputs:
the labelled graph cases (empty, no edges, isolated trailing nodes, self-loops, multi-edges,
...) and random graphs, int32 and int64 ids, float32 / float64 / int attributes."""

from __future__ import annotations

import numpy as np
import pytest
from _utils_cases import (
    INDEX_DTYPES,
    assert_same,
    attr_variants,
    homogeneous_cases,
    t,
)

import arraygnn.utils as U

pytest.importorskip("torch_geometric")
import torch  # noqa: E402
import torch_geometric.utils as P  # noqa: E402

CASES = homogeneous_cases()


def _cases_with_dtypes():
    return [
        pytest.param(dt, label, ei.astype(dt), n, id=f"{label}-{np.dtype(dt).name}")
        for dt in INDEX_DTYPES
        for label, ei, n in CASES
    ]


GRAPHS = _cases_with_dtypes()


def _pyg_num_nodes(ei, n, given):
    """The num_nodes argument to pass: ``n`` when ``given``, else None (PyG's max + 1)."""
    return n if given else None


# --------------------------------------------------------------------------- degree


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("dtype", [None, np.int64, np.float64])
@pytest.mark.parametrize("given", [True, False])
def test_degree(dt, label, ei, n, dtype, given):
    torch_dtype = {None: None, np.int64: torch.long, np.float64: torch.float64}[dtype]
    for row in (0, 1):
        nn = _pyg_num_nodes(ei, n, given)
        ours = U.degree(ei[row], nn, dtype)
        ref = P.degree(t(ei[row]), nn, torch_dtype)
        assert_same(ours, ref, exact=True)
        assert ours.dtype == (np.float32 if dtype is None else dtype)


# --------------------------------------------------------------------------- loops


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_contains_self_loops_and_isolated_nodes(dt, label, ei, n):
    assert U.contains_self_loops(ei) == P.contains_self_loops(t(ei))
    for nn in (None, n, n + 3):
        ours = U.contains_isolated_nodes(ei, nn)
        assert ours == P.contains_isolated_nodes(t(ei), nn)
        assert isinstance(ours, bool)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_remove_self_loops(dt, label, ei, n):
    out, none = U.remove_self_loops(ei)
    ref, _ = P.remove_self_loops(t(ei))
    assert none is None and out.dtype == dt
    assert_same(out, ref)
    for _, attr in attr_variants(ei.shape[1]):
        out, a = U.remove_self_loops(ei, attr)
        ref, ra = P.remove_self_loops(t(ei), t(attr) if attr.dtype.kind == "f" else t(attr))
        assert_same(out, ref)
        assert_same(a, ra, exact=True)


FILLS = [None, 2.5, "add", "sum", "mean", "min", "max", "mul"]


def _fill_pair(fill, attr):
    """(ours, PyG's) fill_value; 'array' becomes a per-feature vector."""
    if fill == "array":
        vec = np.arange(1, 1 + int(np.prod(attr.shape[1:], dtype=int))).astype(attr.dtype)
        vec = vec.reshape(attr.shape[1:])
        return vec, torch.from_numpy(vec.copy())
    return fill, fill


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("fill", [*FILLS, "array"])
@pytest.mark.parametrize("given", [True, False])
def test_add_self_loops(dt, label, ei, n, fill, given):
    nn = _pyg_num_nodes(ei, n, given)
    ours_fill, ref_fill = _fill_pair(fill, np.zeros(1))
    out, none = U.add_self_loops(ei, fill_value=ours_fill, num_nodes=nn)
    ref, _ = P.add_self_loops(t(ei), fill_value=ref_fill, num_nodes=nn)
    assert none is None and out.dtype == dt  # PyG gives int64 for int32 (documented)
    assert_same(out, ref)
    for _, attr in attr_variants(ei.shape[1]):
        ours_fill, ref_fill = _fill_pair(fill, attr)
        out, a = U.add_self_loops(ei, attr, ours_fill, nn)
        ref, ra = P.add_self_loops(t(ei), t(attr), ref_fill, nn)
        assert_same(out, ref)
        assert_same(a, ra)
        assert a.dtype == np.dtype(str(ra.dtype).replace("torch.", ""))


@pytest.mark.parametrize("fill", [None, 3.0, "add", "mean", "max", "mul"])
def test_add_self_loops_bipartite_pair(fill):
    from arraygnn.testing.cases import get_case

    case = get_case("bipartite")
    ei = case.edge_index
    size = (case.num_src_nodes, case.num_dst_nodes)
    attr = np.random.default_rng(1).standard_normal((ei.shape[1], 2))
    out, a = U.add_self_loops(ei, attr, fill, size)
    ref, ra = P.add_self_loops(t(ei), t(attr), fill, size)
    assert_same(out, ref)
    assert_same(a, ra)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("fill", [*FILLS, "array"])
@pytest.mark.parametrize("given", [True, False])
def test_add_remaining_self_loops(dt, label, ei, n, fill, given):
    nn = _pyg_num_nodes(ei, n, given)
    ours_fill, ref_fill = _fill_pair(fill, np.zeros(1))
    out, none = U.add_remaining_self_loops(ei, fill_value=ours_fill, num_nodes=nn)
    ref, _ = P.add_remaining_self_loops(t(ei), fill_value=ref_fill, num_nodes=nn)
    assert none is None and out.dtype == dt
    assert_same(out, ref)
    for _, attr in attr_variants(ei.shape[1], seed=2):
        if fill == "mean" and attr.dtype.kind == "i":
            continue  # PyG raises (float loop features into an integer tensor); ours: float32
        ours_fill, ref_fill = _fill_pair(fill, attr)
        out, a = U.add_remaining_self_loops(ei, attr, ours_fill, nn)
        ref, ra = P.add_remaining_self_loops(t(ei), t(attr), ref_fill, nn)
        assert_same(out, ref)
        assert_same(a, ra)
        assert a.dtype == np.dtype(str(ra.dtype).replace("torch.", ""))


# --------------------------------------------------------------------------- coalesce


REDUCES = ["sum", "add", "mean", "min", "max", "mul"]


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("sort_by_row", [True, False])
@pytest.mark.parametrize("given", [True, False])
def test_coalesce_edge_index_only(dt, label, ei, n, sort_by_row, given):
    nn = _pyg_num_nodes(ei, n, given)
    ours = U.coalesce(ei, num_nodes=nn, sort_by_row=sort_by_row)
    ref = P.coalesce(t(ei), num_nodes=nn, sort_by_row=sort_by_row)
    assert isinstance(ours, np.ndarray) and ours.dtype == dt
    assert_same(ours, ref)
    out, none = U.coalesce(ei, None, nn, sort_by_row=sort_by_row)
    assert none is None
    assert_same(out, ref)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("sort_by_row", [True, False])
def test_coalesce_attributes(dt, label, ei, n, reduce, sort_by_row):
    attrs = [a for _, a in attr_variants(ei.shape[1], seed=3)]
    for attr in attrs:
        out, a = U.coalesce(ei, attr, n, reduce, sort_by_row=sort_by_row)
        ref, ra = P.coalesce(t(ei), t(attr), n, reduce, sort_by_row=sort_by_row)
        assert_same(out, ref)
        assert_same(a, ra)
        assert a.dtype == np.dtype(str(ra.dtype).replace("torch.", ""))
    out, listed = U.coalesce(ei, attrs, n, reduce, sort_by_row=sort_by_row)
    ref, rlisted = P.coalesce(t(ei), [t(a) for a in attrs], n, reduce, sort_by_row=sort_by_row)
    assert isinstance(listed, list) and len(listed) == 3
    assert_same(out, ref)
    for a, ra in zip(listed, rlisted):
        assert_same(a, ra)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_coalesce_is_sorted(dt, label, ei, n):
    sorted_ei = U.coalesce(ei, num_nodes=n)
    twice = np.repeat(sorted_ei, 2, axis=1)  # sorted, every edge duplicated
    w = np.arange(twice.shape[1], dtype=np.float64)
    out, a = U.coalesce(twice, w, n, is_sorted=True)
    ref, ra = P.coalesce(t(twice), t(w), n, is_sorted=True)
    assert_same(out, ref)
    assert_same(a, ra)


# --------------------------------------------------------------------------- undirected


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("reduce", ["add", "mean", "max"])
def test_to_undirected(dt, label, ei, n, reduce):
    ours = U.to_undirected(ei, reduce=reduce)
    ref = P.to_undirected(t(ei), reduce=reduce)
    assert ours.dtype == dt
    assert_same(ours, ref)
    assert_same(U.to_undirected(ei, n), P.to_undirected(t(ei), n))  # PyG's old num_nodes slot
    for _, attr in attr_variants(ei.shape[1], seed=4):
        out, a = U.to_undirected(ei, attr, n, reduce)
        ref, ra = P.to_undirected(t(ei), t(attr), n, reduce)
        assert_same(out, ref)
        assert_same(a, ra)
    attrs = [a for _, a in attr_variants(ei.shape[1], seed=5)]
    out, listed = U.to_undirected(ei, attrs, n, reduce)
    ref, rlisted = P.to_undirected(t(ei), [t(a) for a in attrs], n, reduce)
    assert_same(out, ref)
    for a, ra in zip(listed, rlisted):
        assert_same(a, ra)


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_is_undirected(dt, label, ei, n):
    assert U.is_undirected(ei) == P.is_undirected(t(ei))
    und, w = U.to_undirected(ei, np.ones(ei.shape[1]), n)
    assert U.is_undirected(und, num_nodes=n) and P.is_undirected(t(und), num_nodes=n)
    assert U.is_undirected(und, w) == P.is_undirected(t(und), t(w))
    if und.shape[1]:
        w2 = w.copy()
        w2[0] += 1.0  # breaks the symmetry unless the edge is a self-loop
        assert U.is_undirected(und, w2) == P.is_undirected(t(und), t(w2))
        assert U.is_undirected(und, [w, w2]) == P.is_undirected(t(und), [t(w), t(w2)])


def test_is_undirected_random_symmetric_weights():
    rng = np.random.default_rng(0)
    for _ in range(5):
        n = 15
        dense = rng.integers(0, 3, (n, n)) * (rng.random((n, n)) < 0.3)
        dense = dense + dense.T
        ei, w = U.dense_to_sparse(dense)
        perm = rng.permutation(ei.shape[1])
        ei, w = ei[:, perm], w[perm]
        assert U.is_undirected(ei, w) == P.is_undirected(t(ei), t(w)) is True
        w = w.astype(np.float64)
        if w.size:
            w[0] += 0.5
            assert U.is_undirected(ei, w) == P.is_undirected(t(ei), t(w))


# --------------------------------------------------------------------------- subgraph


def _subsets(n, seed):
    rng = np.random.default_rng(seed)
    picked = rng.permutation(n)[: max(n // 2, 0)]
    mask = np.zeros(n, dtype=bool)
    mask[picked] = True
    return [("index", picked), ("list", picked.tolist()), ("mask", mask), ("all", np.arange(n))]


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
@pytest.mark.parametrize("relabel", [False, True])
def test_subgraph(dt, label, ei, n, relabel):
    attr = np.random.default_rng(0).standard_normal((ei.shape[1], 2))
    for kind, subset in _subsets(n, 1):
        ref_subset = torch.tensor(subset, dtype=torch.long) if kind == "list" else t(subset)
        if kind == "mask":
            ref_subset = torch.from_numpy(subset.copy())
        out, a, mask = U.subgraph(subset, ei, attr, relabel, n, return_edge_mask=True)
        ref, ra, rmask = P.subgraph(ref_subset, t(ei), t(attr), relabel, n, return_edge_mask=True)
        assert out.dtype == dt
        assert_same(out, ref)
        assert_same(a, ra, exact=True)
        assert_same(mask, rmask)
        out, none = U.subgraph(subset, ei, None, relabel, n)
        assert none is None
        assert_same(out, ref)


@pytest.mark.parametrize("dt,label,ei,n", [g for g in GRAPHS if g.values[3] > 0])
@pytest.mark.parametrize("relabel", [False, True])
@pytest.mark.parametrize("flow", ["source_to_target", "target_to_source"])
@pytest.mark.parametrize("directed", [False, True])
def test_k_hop_subgraph(dt, label, ei, n, relabel, flow, directed):
    # (the empty graph has no node to start from)
    starts = [0, [n - 1], np.array([0, n // 2], dtype=dt)]
    for node_idx in starts:
        ref_idx = (
            torch.from_numpy(node_idx.astype(np.int64))
            if isinstance(node_idx, np.ndarray)
            else node_idx
        )
        for hops in (0, 1, 2, 3):
            ours = U.k_hop_subgraph(node_idx, hops, ei, relabel, n, flow, directed)
            ref = P.k_hop_subgraph(ref_idx, hops, t(ei), relabel, n, flow, directed)
            for o, r in zip(ours, ref):
                assert_same(o, r)
            assert ours[1].dtype == dt and ours[2].dtype == np.int64
            assert ours[3].dtype == np.bool_


# --------------------------------------------------------------------------- dense


def _batch(sizes, dtype=np.int64):
    return np.repeat(np.arange(len(sizes)), sizes).astype(dtype)


BATCHES = {
    "three": [3, 1, 4],
    "empty-graph-inside": [2, 0, 3],
    "one": [5],
    "singletons": [1, 1, 1, 1],
}


@pytest.mark.parametrize("sizes", list(BATCHES.values()), ids=list(BATCHES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("max_num_nodes", [None, 2, 6])
@pytest.mark.parametrize("batch_size", [None, 6])
def test_to_dense_batch(sizes, dtype, max_num_nodes, batch_size):
    n = sum(sizes)
    x = (np.random.default_rng(0).standard_normal((n, 2, 3)) * 10).astype(dtype)
    batch = _batch(sizes, np.int32)
    for fill in (0.0, -1):
        out, mask = U.to_dense_batch(x, batch, fill, max_num_nodes, batch_size)
        ref, rmask = P.to_dense_batch(t(x), t(batch), fill, max_num_nodes, batch_size)
        assert_same(out, ref, exact=True)
        assert_same(mask, rmask)
        assert out.dtype == dtype
    out, mask = U.to_dense_batch(x, None, 0.0, max_num_nodes)
    ref, rmask = P.to_dense_batch(t(x), None, 0.0, max_num_nodes)
    assert_same(out, ref, exact=True)
    assert_same(mask, rmask)


@pytest.mark.parametrize("sizes", list(BATCHES.values()), ids=list(BATCHES))
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("max_num_nodes", [None, 2, 6])
@pytest.mark.parametrize("batch_size", [None, 6])
def test_to_dense_adj(sizes, index_dtype, max_num_nodes, batch_size):
    rng = np.random.default_rng(len(sizes))
    starts = np.cumsum(sizes) - sizes
    edges = []
    for s, k in zip(starts, sizes):
        if k:
            m = 3 * k
            edges.append(s + rng.integers(0, k, (2, m)))  # loops and multi-edges
    ei = np.concatenate(edges, axis=1).astype(index_dtype)
    batch = _batch(sizes, index_dtype)
    attrs = [None, *(a for _, a in attr_variants(ei.shape[1], seed=6))]
    for attr in attrs:
        ours = U.to_dense_adj(ei, batch, attr, max_num_nodes, batch_size)
        ref = P.to_dense_adj(
            t(ei), t(batch), None if attr is None else t(attr), max_num_nodes, batch_size
        )
        assert_same(ours, ref)
        assert ours.dtype == np.dtype(str(ref.dtype).replace("torch.", ""))
    assert_same(U.to_dense_adj(ei), P.to_dense_adj(t(ei)))


@pytest.mark.parametrize("dt,label,ei,n", GRAPHS)
def test_to_dense_adj_labelled_cases(dt, label, ei, n):
    assert_same(U.to_dense_adj(ei), P.to_dense_adj(t(ei)))
    batch = np.zeros(n, dtype=dt)
    w = np.random.default_rng(0).standard_normal(ei.shape[1])
    assert_same(U.to_dense_adj(ei, batch, w), P.to_dense_adj(t(ei), t(batch), t(w)))


def test_to_dense_adj_pyg_docstring_example():
    # PyG's own example has an edge from graph 1 to graph 0 (3 -> 0)
    ei = np.array([[0, 0, 1, 2, 3], [0, 1, 0, 3, 0]])
    batch = np.array([0, 0, 1, 1])
    assert_same(U.to_dense_adj(ei, batch), P.to_dense_adj(t(ei), t(batch)))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_dense_to_sparse(dtype):
    rng = np.random.default_rng(0)
    for shape in [(4, 4), (3, 5), (0, 0), (2, 4, 4), (3, 2, 5), (0, 3, 3)]:  # PyG: (1, 0, 0) fails
        adj = (rng.integers(0, 3, shape) * (rng.random(shape) < 0.5)).astype(dtype)
        ei, w = U.dense_to_sparse(adj)
        rei, rw = P.dense_to_sparse(t(adj) if dtype == np.int64 else torch.from_numpy(adj))
        assert ei.dtype == np.int64 and w.dtype == dtype
        assert_same(ei, rei)
        assert_same(w, rw)
    adj = (rng.integers(0, 3, (3, 4, 4))).astype(dtype)
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]], dtype=bool)
    adj[~mask] = 0
    adj = adj * (mask[:, :, None] & mask[:, None, :])
    ei, w = U.dense_to_sparse(adj, mask)
    rei, rw = P.dense_to_sparse(torch.from_numpy(adj.copy()), torch.from_numpy(mask.copy()))
    assert_same(ei, rei)
    assert_same(w, rw)


def test_dense_round_trip():
    sizes = [3, 1, 4]
    x = np.arange(8.0)
    batch = _batch(sizes)
    ei = np.array([[0, 1, 3, 4, 5, 7], [1, 2, 3, 5, 6, 4]])
    adj = U.to_dense_adj(ei, batch)
    _, mask = U.to_dense_batch(x, batch)
    back, w = U.dense_to_sparse(adj, mask)
    ref, rw = P.dense_to_sparse(P.to_dense_adj(t(ei), t(batch)), torch.from_numpy(mask))
    assert_same(back, ref)
    assert_same(w, rw)
    assert_same(back, U.coalesce(ei))


# --------------------------------------------------------------------------- masks


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_index_to_mask_and_back(index_dtype):
    rng = np.random.default_rng(0)
    for n in (0, 1, 10):
        index = rng.integers(0, max(n, 1), 2 * n).astype(index_dtype)[: 2 * n if n else 0]
        for size in [None] if n == 0 else [None, n + 2]:
            if n == 0 and size is None:
                assert U.index_to_mask(index).shape == (0,)  # PyG raises (max of empty)
                continue
            mask = U.index_to_mask(index, size)
            assert_same(mask, P.index_to_mask(t(index), size))
            idx = U.mask_to_index(mask)
            assert_same(idx, P.mask_to_index(torch.from_numpy(mask)))
            assert idx.dtype == np.int64


# --------------------------------------------------------------------------- scatter, softmax


@pytest.mark.parametrize("reduce", ["sum", "add", "mean", "min", "max", "amin", "amax", "mul"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dim_size", [None, 9])
def test_scatter(reduce, dtype, dim, dim_size):
    rng = np.random.default_rng(1)
    src = (rng.standard_normal((6, 7, 2)) * 4).astype(dtype)
    length = src.shape[dim]
    index = rng.integers(0, 5, length)
    index[index == 2] = 3  # group 2 stays empty
    ours = U.scatter(src, index, dim, dim_size, reduce)
    ref = P.scatter(t(src), t(index), dim, dim_size, reduce)
    assert_same(ours, ref)
    assert ours.dtype == np.dtype(str(ref.dtype).replace("torch.", ""))


def test_scatter_empty():
    src = np.zeros((0, 3), np.float32)
    index = np.zeros(0, np.int64)
    for reduce in ("sum", "mean", "max", "mul"):
        assert_same(
            U.scatter(src, index, reduce=reduce), P.scatter(t(src), t(index), reduce=reduce)
        )
        assert_same(U.scatter(src, index, 0, 4, reduce), P.scatter(t(src), t(index), 0, 4, reduce))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax(dtype, dim):
    rng = np.random.default_rng(2)
    src = (rng.standard_normal((8, 5, 3)) * 3).astype(dtype)
    length = src.shape[dim]
    index = np.sort(rng.integers(0, 4, length))
    ours = U.softmax(src, index, dim=dim)
    ref = P.softmax(t(src), t(index), dim=dim)
    assert_same(ours, ref)
    assert ours.dtype == dtype
    assert_same(U.softmax(src, index, num_nodes=7, dim=dim), ref)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(index, minlength=4))])
    # PyG's ptr path needs torch-scatter for dim > 0; the index path gives the same numbers
    ref_ptr = P.softmax(t(src), ptr=t(ptr), dim=dim) if dim == 0 else ref
    assert_same(U.softmax(src, ptr=ptr, dim=dim), ref_ptr)
    unsorted = rng.integers(0, 4, length)
    assert_same(U.softmax(src, unsorted, dim=dim), P.softmax(t(src), t(unsorted), dim=dim))


def test_softmax_infinities_match_pyg():
    src = np.array([-np.inf, -np.inf, 1.0, -np.inf, np.inf, 0.0, np.nan, 2.0])
    index = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    ours = U.softmax(src, index)
    ref = P.softmax(t(src), t(index))
    np.testing.assert_array_equal(np.isnan(ours), torch.isnan(ref).numpy())
    np.testing.assert_allclose(ours[~np.isnan(ours)], ref.numpy()[~np.isnan(ours)])
