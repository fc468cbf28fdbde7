"""``arraygnn.utils`` without torch: small hand-computed results, dtypes, and plain-NumPy
references on random graphs (these run where PyG is not installed)."""

from __future__ import annotations

import numpy as np
import pytest
from _utils_cases import INDEX_DTYPES, attr_variants, case_ids, homogeneous_cases

import arraygnn.utils as U

CASES = homogeneous_cases()


def test_nn_helpers_still_work():
    from arraygnn.nn import add_remaining_self_loops
    from arraygnn.nn.graph_conv import remaining_self_loops_pairs

    ei = np.array([[0, 1, 1], [1, 1, 0]])
    ei2, w2 = add_remaining_self_loops(ei, np.array([1.0, 5.0, 1.0]), 3, 2.0)
    assert ei2.tolist() == [[0, 1, 0, 1, 2], [1, 0, 0, 1, 2]]
    assert w2.tolist() == [1.0, 1.0, 2.0, 5.0, 2.0]
    ours, w = U.add_remaining_self_loops(ei, np.array([1.0, 5.0, 1.0]), 2.0, 3)
    assert ours.tolist() == ei2.tolist() and w.tolist() == w2.tolist()
    assert remaining_self_loops_pairs is U.loops.remaining_self_loops_pairs


# --------------------------------------------------------------------------- degree, loops


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_degree_by_hand(dt):
    index = np.array([0, 1, 0, 2, 0], dtype=dt)
    assert U.degree(index).tolist() == [3.0, 1.0, 1.0]
    assert U.degree(index).dtype == np.float32
    assert U.degree(index, 5, np.int32).tolist() == [3, 1, 1, 0, 0]
    assert U.degree(np.zeros(0, dt)).shape == (0,)
    assert U.degree(np.zeros(0, dt), 3).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_self_loops_by_hand(dt):
    ei = np.array([[0, 1, 0], [1, 0, 0]], dtype=dt)
    w = np.array([0.5, 0.5, 0.5])
    assert U.contains_self_loops(ei) is True
    assert U.contains_self_loops(ei[:, :2]) is False
    out, a = U.remove_self_loops(ei, w)
    assert out.tolist() == [[0, 1], [1, 0]] and out.dtype == dt and a.tolist() == [0.5, 0.5]
    out, a = U.add_self_loops(ei, w)
    assert out.tolist() == [[0, 1, 0, 0, 1], [1, 0, 0, 0, 1]] and out.dtype == dt
    assert a.tolist() == [0.5, 0.5, 0.5, 1.0, 1.0]
    assert U.add_self_loops(ei, w, fill_value="add")[1].tolist() == [0.5, 0.5, 0.5, 1.0, 0.5]
    assert U.add_self_loops(ei, w, 2.0, 3)[1].tolist() == [0.5, 0.5, 0.5, 2.0, 2.0, 2.0]
    out, a = U.add_remaining_self_loops(ei, w, "mul")
    assert out.tolist() == [[0, 1, 0, 1], [1, 0, 0, 1]]
    assert a.tolist() == [0.5, 0.5, 0.5, 0.5]  # node 0 keeps its loop; node 1: product 0.5
    out, a = U.add_remaining_self_loops(ei, w, "mul", num_nodes=3)
    assert a.tolist() == [0.5, 0.5, 0.5, 0.5, 1.0]  # node 2 has no in-edges: 1, as PyG


def test_loop_features_multi_dim_and_arrays():
    ei = np.array([[0, 1], [1, 0]])
    attr = np.arange(8.0, dtype=np.float32).reshape(2, 2, 2)
    _, a = U.add_self_loops(ei, attr, np.array([7.0, 8.0]))
    assert a.shape == (4, 2, 2) and a.dtype == np.float32
    assert a[2:].tolist() == [[[7.0, 8.0], [7.0, 8.0]]] * 2
    _, a = U.add_self_loops(ei, attr, "max")
    assert a[2:].tolist() == [attr[1].tolist(), attr[0].tolist()]
    _, a = U.add_remaining_self_loops(ei, np.array([1, 2]), "mean")
    assert a.dtype == np.float32 and a.tolist() == [1.0, 2.0, 2.0, 1.0]  # torch.cat's dtype


def test_bipartite_self_loops():
    ei = np.array([[0, 4], [1, 0]])
    out, a = U.add_self_loops(ei, np.array([1.0, 2.0]), "add", (5, 2))
    assert out.tolist() == [[0, 4, 0, 1], [1, 0, 0, 1]]
    assert a.tolist() == [1.0, 2.0, 2.0, 1.0]


def test_isolated_nodes():
    ei = np.array([[0, 1, 2], [1, 0, 2]])
    assert U.contains_isolated_nodes(ei) is True  # node 2 has only a loop
    assert U.contains_isolated_nodes(ei[:, :2]) is False
    assert U.contains_isolated_nodes(ei[:, :2], num_nodes=3) is True
    assert U.contains_isolated_nodes(np.zeros((2, 0), np.int64)) is False
    assert U.contains_isolated_nodes(np.zeros((2, 0), np.int64), 1) is True


def test_small_id_dtypes_widen_only_when_needed():
    ei = np.array([[0, 1], [1, 0]], dtype=np.uint8)
    assert U.add_self_loops(ei, num_nodes=256)[0].dtype == np.uint8
    out = U.add_self_loops(ei, num_nodes=300)[0]
    assert out.dtype == np.int64 and out[:, -1].tolist() == [299, 299]
    assert U.coalesce(ei).dtype == np.uint8


# --------------------------------------------------------------------------- coalesce


def _reference_coalesce(ei, w, n, reduce, by_row=True):
    """Plain NumPy: sort unique pairs, reduce by a loop over groups."""
    a, b = (ei[0], ei[1]) if by_row else (ei[1], ei[0])
    keys = a.astype(np.int64) * max(n, 1) + b
    uniq = np.unique(keys)
    pick = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "mul": np.prod}[reduce]
    vals = np.array([pick(w[keys == k], axis=0) for k in uniq]).reshape((-1,) + w.shape[1:])
    first, second = uniq // max(n, 1), uniq % max(n, 1)
    out = np.stack([first, second]) if by_row else np.stack([second, first])
    return out, vals


@pytest.mark.parametrize("label,ei,n", CASES, ids=case_ids(CASES))
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "mul"])
@pytest.mark.parametrize("by_row", [True, False])
def test_coalesce_against_numpy(label, ei, n, reduce, by_row):
    w = np.random.default_rng(0).standard_normal((ei.shape[1], 2))
    out, a = U.coalesce(ei, w, n, reduce, sort_by_row=by_row)
    ref, ra = _reference_coalesce(ei, w, n, reduce, by_row)
    assert out.tolist() == ref.tolist()
    np.testing.assert_allclose(a, ra, rtol=1e-12, atol=1e-12)


def test_coalesce_by_hand():
    ei = np.array([[1, 0, 1, 0, 2], [0, 1, 0, 1, 1]], dtype=np.int32)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out = U.coalesce(ei)
    assert out.tolist() == [[0, 1, 2], [1, 0, 1]] and out.dtype == np.int32
    out, a = U.coalesce(ei, w, reduce="mean")
    assert a.tolist() == [3.0, 2.0, 5.0]
    out, a = U.coalesce(ei, w, sort_by_row=False)
    assert out.tolist() == [[1, 0, 2], [0, 1, 1]] and a.tolist() == [4.0, 6.0, 5.0]
    out, a = U.coalesce(ei, np.array([1, 2, 3, 4, 6]), reduce="mean")
    assert a.dtype == np.float32 and a.tolist() == [3.0, 2.0, 6.0]  # PyG's scatter mean
    out, a = U.coalesce(ei[:, [0, 1, 4]], np.array([1, 2, 3]), reduce="mean")
    assert a.dtype == np.int64  # no duplicates: nothing reduced, dtype kept (as PyG)
    out, lst = U.coalesce(ei, (w, w * 2))
    assert isinstance(lst, list) and lst[1].tolist() == [12.0, 8.0, 10.0]
    out, empty = U.coalesce(ei, [])
    assert empty == []


def test_coalesce_sparse_ids_take_the_comparison_sort():
    # num_nodes far above the edge count: the counting sort would allocate per node
    ei = np.array([[10**9, 5, 10**9, 7], [3, 10**9 - 1, 3, 2]], dtype=np.int64)
    out, w = U.coalesce(ei, np.ones(4))
    assert out.tolist() == [[5, 7, 10**9], [10**9 - 1, 2, 3]] and w.tolist() == [1, 1, 2]
    huge = np.array([[2**40, 0], [0, 2**40]], dtype=np.int64)
    assert U.coalesce(huge).tolist() == [[0, 2**40], [2**40, 0]]  # n*n overflows int64


def test_coalesce_is_sorted_is_checked():
    with pytest.raises(ValueError, match="is_sorted=True"):
        U.coalesce(np.array([[1, 0], [0, 1]]), is_sorted=True)
    assert U.coalesce(np.array([[0, 0, 1], [1, 1, 0]]), is_sorted=True).tolist() == [
        [0, 1],
        [1, 0],
    ]


@pytest.mark.parametrize("label,ei,n", CASES, ids=case_ids(CASES))
def test_undirected_properties(label, ei, n):
    und = U.to_undirected(ei, num_nodes=n)
    assert U.is_undirected(und, num_nodes=n)
    pairs = set(map(tuple, ei.T.tolist())) | set(map(tuple, ei[::-1].T.tolist()))
    assert sorted(pairs) == list(map(tuple, und.T.tolist()))
    assert U.is_undirected(ei) == (
        sorted(map(tuple, ei.T.tolist())) == sorted(map(tuple, ei[::-1].T.tolist()))
    )


def test_undirected_by_hand():
    ei = np.array([[0, 1, 1], [1, 0, 2]])
    assert U.to_undirected(ei).tolist() == [[0, 1, 1, 2], [1, 0, 2, 1]]
    out, w = U.to_undirected(ei, np.array([1.0, 2.0, 3.0]))
    assert w.tolist() == [3.0, 3.0, 3.0, 3.0]
    out, w = U.to_undirected(ei, np.array([1.0, 2.0, 3.0]), reduce="max")
    assert w.tolist() == [2.0, 2.0, 3.0, 3.0]
    assert U.to_undirected(ei, 4).tolist() == [[0, 1, 1, 2], [1, 0, 2, 1]]
    assert U.is_undirected(ei) is False
    assert U.is_undirected(np.array([[0, 1, 1], [1, 0, 0]])) is False  # 1->0 twice
    assert U.is_undirected(np.zeros((2, 0), np.int32)) is True


# --------------------------------------------------------------------------- subgraph


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_subgraph_by_hand(dt):
    ei = np.array([[0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3]], dtype=dt)
    attr = np.arange(8.0)
    out, a = U.subgraph([1, 2, 4], ei, attr)
    assert out.tolist() == [[1, 2], [2, 1]] and out.dtype == dt and a.tolist() == [2.0, 3.0]
    out, a, mask = U.subgraph(np.array([4, 2, 1]), ei, attr, True, return_edge_mask=True)
    assert out.tolist() == [[2, 1], [1, 2]] and out.dtype == dt  # position in subset
    assert mask.tolist() == [False, False, True, True, False, False, False, False]
    bool_mask = np.array([False, True, True, False, True])
    out, _ = U.subgraph(bool_mask, ei, relabel_nodes=True)
    assert out.tolist() == [[0, 1], [1, 0]]
    out, a = U.subgraph(np.zeros(0, np.int64), ei, attr)
    assert out.shape == (2, 0) and a.shape == (0,)


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_k_hop_by_hand(dt):
    # a path 0 -> 1 -> 2 -> 3 -> 4 plus 5 -> 3
    ei = np.array([[0, 1, 2, 3, 5], [1, 2, 3, 4, 3]], dtype=dt)
    subset, out, mapping, mask = U.k_hop_subgraph(3, 1, ei)
    assert subset.tolist() == [2, 3, 5] and mapping.tolist() == [1]
    assert out.tolist() == [[2, 5], [3, 3]] and out.dtype == dt
    assert mask.tolist() == [False, False, True, False, True]
    subset, out, mapping, _ = U.k_hop_subgraph([3], 2, ei, relabel_nodes=True)
    assert subset.tolist() == [1, 2, 3, 5] and out.tolist() == [[0, 1, 3], [1, 2, 2]]
    subset, out, mapping, _ = U.k_hop_subgraph(np.array([1], dt), 1, ei, flow="target_to_source")
    assert subset.tolist() == [1, 2] and out.tolist() == [[1], [2]]
    assert subset.dtype == dt  # node_idx and edge_index of one dtype keep it
    subset, *_ = U.k_hop_subgraph(1, 1, ei)
    assert subset.dtype == np.int64  # a Python int counts as int64, as torch.tensor(1)
    subset, out, mapping, mask = U.k_hop_subgraph([4, 0], 0, ei)
    assert subset.tolist() == [0, 4] and mapping.tolist() == [1, 0] and out.shape == (2, 0)
    _, out, _, mask = U.k_hop_subgraph([3], 1, np.array([[2, 5, 2], [3, 3, 5]]), directed=True)
    assert mask.tolist() == [True, True, False]  # 2 -> 5 joins collected nodes, not walked


# --------------------------------------------------------------------------- dense


def test_to_dense_batch_by_hand():
    x = np.arange(10.0).reshape(5, 2)
    batch = np.array([0, 0, 2, 2, 2], dtype=np.int32)
    out, mask = U.to_dense_batch(x, batch)
    assert out.shape == (3, 3, 2) and out.dtype == np.float64
    assert mask.tolist() == [[True, True, False], [False] * 3, [True] * 3]
    assert out[2].tolist() == x[2:].tolist() and out[1].tolist() == [[0.0, 0.0]] * 3
    out, mask = U.to_dense_batch(x, batch, fill_value=-1.0, max_num_nodes=2, batch_size=4)
    assert out.shape == (4, 2, 2) and out[2].tolist() == x[2:4].tolist()  # node 4 dropped
    assert out[3].tolist() == [[-1.0, -1.0]] * 2 and not mask[3].any()
    out, mask = U.to_dense_batch(x)
    assert out.shape == (1, 5, 2) and mask.all()
    out, mask = U.to_dense_batch(np.zeros((0, 3)), np.zeros(0, np.int64))
    assert out.shape == (1, 0, 3) and mask.shape == (1, 0)  # PyG raises on the empty batch


def test_to_dense_adj_by_hand():
    ei = np.array([[0, 0, 1, 2, 3, 3], [0, 1, 0, 3, 2, 2]])
    batch = np.array([0, 0, 1, 1])
    adj = U.to_dense_adj(ei, batch)
    assert adj.dtype == np.float32 and adj.shape == (2, 2, 2)
    assert adj.tolist() == [[[1, 1], [1, 0]], [[0, 1], [2, 0]]]
    w = np.array([[1.0, 2.0]] * 6)
    adj = U.to_dense_adj(ei, batch, w, max_num_nodes=1, batch_size=3)
    assert adj.shape == (3, 1, 1, 2) and adj[:, 0, 0].tolist() == [[1, 2], [0, 0], [0, 0]]
    assert U.to_dense_adj(np.zeros((2, 0), np.int64)).shape == (1, 0, 0)


def test_dense_to_sparse_by_hand():
    adj = np.array([[3, 1], [2, 0]])
    ei, w = U.dense_to_sparse(adj)
    assert ei.tolist() == [[0, 0, 1], [0, 1, 0]] and w.tolist() == [3, 1, 2]
    adj = np.array([[[3, 1, 0], [2, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 2, 3], [0, 5, 0]]])
    mask = np.array([[True, True, False], [True, True, True]])
    ei, w = U.dense_to_sparse(adj, mask)
    assert ei.tolist() == [[0, 0, 1, 2, 3, 3, 4], [0, 1, 0, 3, 3, 4, 3]]
    assert w.tolist() == [3, 1, 2, 1, 2, 3, 5] and ei.dtype == np.int64
    ei, w = U.dense_to_sparse(np.zeros((1, 0, 0)))
    assert ei.shape == (2, 0) and w.shape == (0,)  # PyG cannot reshape this one
    with pytest.warns(UserWarning, match="mask is ignored"):
        U.dense_to_sparse(adj[0], mask)


@pytest.mark.parametrize("seed", range(3))
def test_dense_round_trip_random(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 5, 4)
    batch = np.repeat(np.arange(4), sizes)
    starts = np.cumsum(sizes) - sizes
    edges = [s + rng.integers(0, k, (2, 2 * k)) for s, k in zip(starts, sizes) if k]
    ei = np.concatenate(edges, axis=1) if edges else np.zeros((2, 0), np.int64)
    w = rng.random(ei.shape[1]) + 0.5
    x = rng.standard_normal((len(batch), 3))
    dense_x, mask = U.to_dense_batch(x, batch, batch_size=4)
    assert np.array_equal(dense_x[mask], x)
    adj = U.to_dense_adj(ei, batch, w, batch_size=4)
    back, bw = U.dense_to_sparse(adj, mask)
    ref, rw = U.coalesce(ei, w, len(batch))
    assert back.tolist() == ref.tolist()
    np.testing.assert_allclose(bw, rw)


# --------------------------------------------------------------------------- masks, scatter


def test_masks_by_hand():
    assert U.index_to_mask(np.array([1, 3], np.int32), 5).tolist() == [0, 1, 0, 1, 0]
    assert U.index_to_mask(np.array([2, 0])).tolist() == [True, False, True]
    assert U.index_to_mask(np.zeros(0, np.int64)).shape == (0,)
    idx = U.mask_to_index(np.array([False, True, True]))
    assert idx.tolist() == [1, 2] and idx.dtype == np.int64


def test_scatter_by_hand():
    src = np.array([1.0, 2.0, 4.0])
    index = np.array([0, 0, 2])
    assert U.scatter(src, index).tolist() == [3.0, 0.0, 4.0]
    assert U.scatter(src, index, reduce="mean").tolist() == [1.5, 0.0, 4.0]
    assert U.scatter(src, index, reduce="mul").tolist() == [2.0, 1.0, 4.0]
    assert U.scatter(src, index, reduce="max", dim_size=4).tolist() == [2.0, 0.0, 4.0, 0.0]
    assert U.scatter(src, index, reduce="amin").tolist() == [1.0, 0.0, 4.0]
    mean = U.scatter(np.array([1, 2, 4]), index, reduce="mean")
    assert mean.dtype == np.float32 and mean.tolist() == [1.5, 0.0, 4.0]
    out = U.scatter(np.arange(6).reshape(2, 3), np.array([1, 0, 1]), dim=-1)
    assert out.tolist() == [[1, 2], [4, 8]]


def test_softmax_by_hand():
    src = np.log(np.array([1.0, 3.0, 2.0], dtype=np.float32))
    out = U.softmax(src, np.array([0, 0, 1]))
    np.testing.assert_allclose(out, [0.25, 0.75, 1.0], rtol=1e-6)
    assert out.dtype == np.float32
    np.testing.assert_allclose(U.softmax(src, ptr=np.array([0, 2, 3])), out)
    two = np.stack([src, src], axis=0)  # groups along dim 1
    np.testing.assert_allclose(U.softmax(two, np.array([0, 0, 1]), dim=1), [out, out], rtol=1e-6)


@pytest.mark.parametrize("dt", INDEX_DTYPES)
@pytest.mark.parametrize("label,ei,n", CASES[:6], ids=case_ids(CASES[:6]))
def test_int32_and_int64_give_the_same(dt, label, ei, n):
    e = ei.astype(dt)
    for _, attr in attr_variants(ei.shape[1]):
        a = U.coalesce(e, attr, n)
        b = U.coalesce(ei, attr, n)
        assert a[0].dtype == dt and a[0].tolist() == b[0].tolist()
        np.testing.assert_array_equal(a[1], b[1])
        a = U.add_remaining_self_loops(e, attr, "mean", n)
        b = U.add_remaining_self_loops(ei, attr, "mean", n)
        assert a[0].dtype == dt and a[0].tolist() == b[0].tolist()
        np.testing.assert_array_equal(a[1], b[1])
