"""PyG's negative sampling utilities: ``negative_sampling``, ``batched_negative_sampling``,
``structured_negative_sampling`` and ``structured_negative_sampling_feasible``.

The pairs are random, so the checks are properties: never an edge, never a self-loop
(unless bipartite), distinct, as many as asked or as exist, symmetric under
``force_undirected``, inside their example when batched, the same for the same seed,
roughly uniform; and the same properties hold for PyG's pairs on the same graphs.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.utils import (
    batched_negative_sampling,
    negative_sampling,
    structured_negative_sampling,
    structured_negative_sampling_feasible,
)

INDEX_DTYPES = [np.int32, np.int64]


def _graph(n=40, e=300, seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, (2, e)).astype(dtype)
    ei[:, :3] = [[5, 5, 7], [5, 6, 6]]  # a self-loop and a parallel edge
    return ei


def _pairs(ei):
    return set(zip(ei[0].tolist(), ei[1].tolist()))


def _free_directed(ei, n):
    return n * (n - 1) - len({(a, b) for a, b in _pairs(ei) if a != b})


def _check_negatives(neg, ei, num_nodes, bipartite=False):
    assert neg.dtype == np.int64 and neg.ndim == 2 and neg.shape[0] == 2
    pairs = list(zip(neg[0].tolist(), neg[1].tolist()))
    assert not set(pairs) & _pairs(ei), "a negative is an edge"
    if bipartite:
        assert neg.shape[1] == 0 or (neg[0].max() < num_nodes[0] and neg[1].max() < num_nodes[1])
    else:
        assert all(a != b for a, b in pairs), "a negative is a self-loop"
        assert neg.shape[1] == 0 or neg.max() < num_nodes
    assert neg.shape[1] == 0 or neg.min() >= 0
    return pairs


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
@pytest.mark.parametrize("method", ["sparse", "dense"])
def test_negatives_are_distinct_non_edges(dtype, method):
    ei = _graph(dtype=dtype)
    before = ei.copy()
    for asked in [None, 0, 1, 50, 700]:
        neg = negative_sampling(ei, 40, asked, method=method, seed=1)
        pairs = _check_negatives(neg, ei, 40)
        assert len(set(pairs)) == len(pairs)
        assert neg.shape[1] == (ei.shape[1] if asked is None else asked)
    np.testing.assert_array_equal(ei, before)  # nothing passed in is modified


def test_ratio_and_inferred_num_nodes():
    ei = _graph()
    neg = negative_sampling(ei, num_neg_samples=0.5, seed=0)  # num_nodes = max + 1 = 40
    assert neg.shape == (2, 150)
    _check_negatives(neg, ei, int(ei.max()) + 1)
    small = np.array([[0, 1], [1, 2]])
    # PyG's rule: num_nodes = 3, so node 3 never appears
    assert negative_sampling(small, num_neg_samples=10, seed=0).max() <= 2


def test_dense_graph_returns_every_non_edge():
    n = 6
    full = np.array([(a, b) for a in range(n) for b in range(n) if a != b]).T
    keep = np.ones(full.shape[1], dtype=bool)
    keep[[0, 7, 11]] = False  # three missing edges
    ei = full[:, keep]
    for method in ["sparse", "dense"]:
        neg = negative_sampling(ei, n, 100, method=method, seed=0)
        assert _pairs(neg) == _pairs(full[:, ~keep])  # fewer than asked: all there are
    complete = negative_sampling(full, n, 5, seed=0)
    assert complete.shape == (2, 0) and complete.dtype == np.int64


def test_counts_are_min_of_asked_and_free_on_random_graphs():
    rng = np.random.default_rng(3)
    for trial in range(60):
        n = int(rng.integers(1, 15))
        ei = rng.integers(0, n, (2, int(rng.integers(0, n * n + 1))))
        asked = int(rng.integers(0, n * n + 2))
        neg = negative_sampling(ei, n, asked, seed=trial)
        _check_negatives(neg, ei, n)
        assert neg.shape[1] == min(asked, _free_directed(ei, n))
        assert len(_pairs(neg)) == neg.shape[1]


def test_bipartite():
    rng = np.random.default_rng(0)
    ei = np.stack([rng.integers(0, 5, 12), rng.integers(0, 9, 12)])
    neg = negative_sampling(ei, (5, 9), 20, seed=0)
    pairs = _check_negatives(neg, ei, (5, 9), bipartite=True)
    assert len(set(pairs)) == 20
    # self-loops are allowed in the bipartite case (ids of different node sets)
    many = negative_sampling(ei, (5, 9), 1000, seed=0)
    assert many.shape[1] == 45 - len(_pairs(ei))
    assert (many[0] == many[1]).any()
    # force_undirected is ignored for a bipartite graph (PyG)
    assert negative_sampling(ei, (5, 9), 7, force_undirected=True, seed=0).shape == (2, 7)


def test_force_undirected_is_symmetric_and_avoids_both_directions():
    ei = _graph(n=12, e=40)
    neg = negative_sampling(ei, 12, 21, force_undirected=True, seed=0)
    assert neg.shape == (2, 20)  # 21 // 2 pairs, both ways
    half = neg.shape[1] // 2
    np.testing.assert_array_equal(neg[:, half:], neg[::-1, :half])
    assert (neg[0, :half] < neg[1, :half]).all()
    pairs = _check_negatives(neg, ei, 12)
    reversed_edges = {(b, a) for a, b in _pairs(ei)}
    assert not set(pairs) & reversed_edges
    # every undirected non-edge when asked for more than there are
    all_neg = negative_sampling(ei, 12, 10_000, force_undirected=True, seed=0)
    undirected = {(min(a, b), max(a, b)) for a, b in _pairs(ei) if a != b}
    assert all_neg.shape[1] == 2 * (66 - len(undirected))


def test_empty_edge_index():
    empty = np.zeros((2, 0), dtype=np.int32)
    assert negative_sampling(empty, 5, seed=0).shape == (2, 0)  # None: as many as edges
    neg = negative_sampling(empty, 5, 4, seed=0)
    assert neg.shape == (2, 4) and (neg[0] != neg[1]).all()
    assert negative_sampling(empty, num_neg_samples=4).shape == (2, 0)  # 0 nodes
    assert negative_sampling(empty, 1, 4).shape == (2, 0)  # no pair without a loop
    assert negative_sampling(empty, (0, 3), 4).shape == (2, 0)


def test_seeded_reproducibility():
    ei = _graph()
    a = negative_sampling(ei, 40, 200, seed=7)
    np.testing.assert_array_equal(a, negative_sampling(ei, 40, 200, seed=7))
    assert not np.array_equal(a, negative_sampling(ei, 40, 200, seed=8))
    np.testing.assert_array_equal(a, negative_sampling(ei, 40, 200, method="dense", seed=7))
    gen = np.random.default_rng(7)
    first, second = negative_sampling(ei, 40, 5, seed=gen), negative_sampling(ei, 40, 5, seed=gen)
    assert not np.array_equal(first, second)  # the generator advances
    np.testing.assert_array_equal(
        negative_sampling(ei.astype(np.int32), 40, 200, seed=7), a
    )  # the id dtype does not change the draw


def test_roughly_uniform():
    ei = np.array([[0, 1, 2, 3, 0], [1, 2, 3, 0, 2]])  # 7 non-edges among 12 pairs
    gen = np.random.default_rng(0)
    counts: dict[tuple[int, int], int] = {}
    for _ in range(3500):
        pair = tuple(negative_sampling(ei, 4, 1, seed=gen)[:, 0].tolist())
        counts[pair] = counts.get(pair, 0) + 1
    assert len(counts) == 7
    assert max(counts.values()) < 600 and min(counts.values()) > 400  # 500 expected


# ----------------------------------------------------------------------------- batched


def test_batched_pairs_stay_in_their_example():
    rng = np.random.default_rng(0)
    sizes = [5, 1, 8, 0, 6]
    batch = np.repeat(np.arange(len(sizes)), sizes)
    starts = np.cumsum(sizes) - sizes
    parts = []
    for s, n in zip(starts, sizes):
        if n:
            parts.append(rng.integers(0, n, (2, 3 * n)) + s)
    ei = np.concatenate(parts, axis=1)
    neg = batched_negative_sampling(ei, batch, seed=0)
    _check_negatives(neg, ei, len(batch))
    assert (batch[neg[0]] == batch[neg[1]]).all()
    assert np.all(np.diff(batch[neg[0]]) >= 0)  # examples in order
    per_graph = np.bincount(batch[neg[0]], minlength=len(sizes))
    edges = np.bincount(batch[ei[0]], minlength=len(sizes))
    for g, n in enumerate(sizes):
        sub = ei[:, batch[ei[0]] == g] - starts[g]
        assert per_graph[g] == min(edges[g], _free_directed(sub, n))
    fixed = batched_negative_sampling(ei, batch, num_neg_samples=4, seed=0)
    assert np.bincount(batch[fixed[0]], minlength=5).tolist() == [4, 0, 4, 0, 4]


def test_batched_matches_single_graph_properties_and_undirected():
    ei = np.array([[0, 1, 2, 4, 5], [1, 2, 0, 5, 6]])
    batch = np.array([0, 0, 0, 0, 1, 1, 1])
    neg = batched_negative_sampling(ei, batch, 4, force_undirected=True, seed=0)
    first = neg[:, batch[neg[0]] == 0]
    np.testing.assert_array_equal(first[:, 2:], first[::-1, :2])  # pairs, then reversed
    _check_negatives(neg, ei, 7)
    assert not {(b, a) for a, b in _pairs(neg)} & _pairs(ei)
    assert neg.shape[1] == 4 + 2  # example 1 (3 nodes, 2 edges) has one free pair


def test_batched_bipartite():
    ei = np.array([[0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 2, 3, 4, 5, 6, 7]])
    src_batch = np.array([0, 0, 1, 1])
    dst_batch = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    neg = batched_negative_sampling(ei, (src_batch, dst_batch), seed=0)
    _check_negatives(neg, ei, (4, 8), bipartite=True)
    assert (src_batch[neg[0]] == dst_batch[neg[1]]).all()
    assert neg.shape == (2, 8)


def test_batched_reproducible_and_empty():
    ei = np.array([[0, 1, 3], [1, 2, 4]])
    batch = np.array([0, 0, 0, 1, 1])
    np.testing.assert_array_equal(
        batched_negative_sampling(ei, batch, 3, seed=2),
        batched_negative_sampling(ei, batch, 3, seed=2),
    )
    out = batched_negative_sampling(np.zeros((2, 0), np.int64), np.zeros(0, np.int64))
    assert out.shape == (2, 0)


# ----------------------------------------------------------------------------- structured


@pytest.mark.parametrize("dtype", INDEX_DTYPES)
def test_structured_negatives(dtype):
    ei = _graph(n=20, e=120, dtype=dtype)
    before = ei.copy()
    i, j, k = structured_negative_sampling(ei, 20, seed=0)
    np.testing.assert_array_equal(i, ei[0])
    np.testing.assert_array_equal(j, ei[1])
    assert i.dtype == dtype and k.dtype == np.int64 and k.shape == (120,)
    assert not set(zip(i.tolist(), k.tolist())) & _pairs(ei)
    assert ((k >= 0) & (k < 20)).all()
    i, _, k = structured_negative_sampling(ei, 20, contains_neg_self_loops=False, seed=0)
    assert (k != i).all() and not set(zip(i.tolist(), k.tolist())) & _pairs(ei)
    np.testing.assert_array_equal(ei, before)
    _, _, k2 = structured_negative_sampling(ei, 20, contains_neg_self_loops=False, seed=0)
    np.testing.assert_array_equal(k, k2)


def test_structured_uniform_over_non_neighbours():
    ei = np.array([[0] * 4000, [1] * 4000])
    _, _, k = structured_negative_sampling(ei, 5, seed=0)
    counts = np.bincount(k, minlength=5)
    assert counts[1] == 0 and counts[[0, 2, 3, 4]].min() > 850  # 1000 expected each
    _, _, k = structured_negative_sampling(ei, 5, False, seed=0)
    assert np.bincount(k, minlength=5)[[0, 1]].tolist() == [0, 0]


def test_structured_empty_and_infeasible():
    i, j, k = structured_negative_sampling(np.zeros((2, 0), np.int64), 3, seed=0)
    assert i.shape == j.shape == k.shape == (0,)
    star = np.array([[0, 0, 0], [1, 2, 0]])  # node 0 reaches every node
    with pytest.raises(ValueError, match="node 0 is adjacent to every node"):
        structured_negative_sampling(star, 3)
    i, _, k = structured_negative_sampling(star[:, :2], 3, seed=0)  # only 0 left
    assert k.tolist() == [0, 0]
    with pytest.raises(ValueError, match="adjacent to every node but itself"):
        structured_negative_sampling(star[:, :2], 3, contains_neg_self_loops=False)


def test_feasible():
    ei = np.array([[0, 0, 1, 1, 2, 2, 2], [1, 2, 0, 2, 0, 1, 1]])  # PyG's example
    assert structured_negative_sampling_feasible(ei, 3, False) is False
    assert structured_negative_sampling_feasible(ei, 3, True) is True
    assert structured_negative_sampling_feasible(ei, 4, False) is True
    loops = np.array([[0, 0, 0, 1], [0, 1, 2, 2]])
    assert structured_negative_sampling_feasible(loops, 3) is False
    assert structured_negative_sampling_feasible(loops, 3, False) is False
    assert structured_negative_sampling_feasible(loops[:, 1:], 3) is True
    assert structured_negative_sampling_feasible(np.zeros((2, 0), np.int64)) is True


# ----------------------------------------------------------------------------- errors


def test_errors():
    ei = _graph()
    with pytest.raises(ValueError, match="method must be 'sparse' or 'dense'"):
        negative_sampling(ei, 40, method="fast")
    with pytest.raises(ValueError, match=r"edge_index must have shape \[2, E\]"):
        negative_sampling(ei[:1], 40)
    with pytest.raises(TypeError, match="edge_index must be an integer array"):
        negative_sampling(ei.astype(float), 40)
    with pytest.raises(TypeError, match="edge_index must be a NumPy or CuPy array"):
        negative_sampling(ei.tolist(), 40)
    with pytest.raises(ValueError, match="out of range for 10 nodes"):
        negative_sampling(ei, 10)
    with pytest.raises(ValueError, match="negative entry"):
        negative_sampling(ei - 1, 40)
    with pytest.raises(ValueError, match=r"edge_index\[1\] has entry 39, out of range"):
        negative_sampling(ei, (40, 5))
    with pytest.raises(ValueError, match="num_nodes as a tuple must be"):
        negative_sampling(ei, (40, 40, 40))
    with pytest.raises(TypeError, match="num_nodes must be a non-negative int"):
        negative_sampling(ei, 40.0)
    with pytest.raises(ValueError, match="num_neg_samples must be >= 0"):
        negative_sampling(ei, 40, -1)
    with pytest.raises(ValueError, match="num_neg_samples must be a finite ratio"):
        negative_sampling(ei, 40, float("nan"))
    with pytest.raises(TypeError, match="num_neg_samples must be an int, a float or None"):
        negative_sampling(ei, 40, "10")
    with pytest.raises(TypeError, match="force_undirected must be True or False"):
        negative_sampling(ei, 40, force_undirected=1)
    with pytest.raises(TypeError, match="seed must be an int"):
        negative_sampling(ei, 40, seed="x")
    with pytest.raises(ValueError, match="negative_sampling: too many node pairs"):
        negative_sampling(ei, 2**40)


def test_batch_errors():
    ei = np.array([[0, 1, 3], [1, 2, 4]])
    batch = np.array([0, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="batch must be sorted"):
        batched_negative_sampling(ei, np.array([0, 1, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"edge 0 \(0 -> 3\) joins two examples"):
        batched_negative_sampling(np.array([[0], [3]]), batch)
    with pytest.raises(TypeError, match="batch must be an integer array"):
        batched_negative_sampling(ei, batch.astype(float))
    with pytest.raises(ValueError, match="batch must be one-dimensional"):
        batched_negative_sampling(ei, batch[None])
    with pytest.raises(ValueError, match="out of range for 3 nodes"):
        batched_negative_sampling(ei, batch[:3])
    with pytest.raises(ValueError, match="batch has a negative entry"):
        batched_negative_sampling(ei, batch - 1)
    with pytest.raises(ValueError, match="batch as a tuple must be"):
        batched_negative_sampling(ei, (batch,))
    with pytest.raises(ValueError, match="method must be"):
        batched_negative_sampling(ei, batch, method="x")
    with pytest.raises(ValueError, match="edge_index must have shape"):
        structured_negative_sampling(ei[0])
    with pytest.raises(TypeError, match="contains_neg_self_loops must be True or False"):
        structured_negative_sampling_feasible(ei, 5, contains_neg_self_loops="no")
    with pytest.raises(ValueError, match="out of range for 3 nodes"):
        structured_negative_sampling(ei, 3)


# ----------------------------------------------------------------------------- PyG


def test_same_properties_as_pyg():
    pytest.importorskip("torch_geometric")
    import torch
    from torch_geometric import utils as P

    torch.manual_seed(0)
    for dtype in INDEX_DTYPES:
        ei = _graph(n=30, e=200, dtype=dtype)
        t = torch.from_numpy(ei.astype(np.int64))
        for kwargs in [{}, {"num_neg_samples": 100}, {"force_undirected": True}]:
            ours = negative_sampling(ei, 30, seed=0, **kwargs)
            theirs = P.negative_sampling(t, 30, **kwargs).numpy()
            for neg in (ours, theirs):
                pairs = list(zip(neg[0].tolist(), neg[1].tolist()))
                assert all(a != b for a, b in pairs)
                if kwargs.get("force_undirected"):
                    assert set(pairs) == {(b, a) for a, b in pairs}
                else:
                    assert not set(pairs) & _pairs(ei)
            assert ours.shape[1] >= theirs.shape[1]  # PyG may come up short
        bip_ours = negative_sampling(ei, (30, 30), seed=0)
        bip_theirs = P.negative_sampling(t, (30, 30)).numpy()
        for neg in (bip_ours, bip_theirs):
            assert not _pairs(neg) & _pairs(ei)
        i, j, k = structured_negative_sampling(ei, 30, seed=0)
        pi, pj, pk = (a.numpy() for a in P.structured_negative_sampling(t, 30))
        np.testing.assert_array_equal(i, pi)
        np.testing.assert_array_equal(j, pj)
        for kk in (k, pk):
            assert not set(zip(i.tolist(), kk.tolist())) & _pairs(ei)
        for with_loops in (True, False):
            assert structured_negative_sampling_feasible(
                ei, 30, with_loops
            ) == P.structured_negative_sampling_feasible(t, 30, with_loops)
        dense = np.array([[0, 0, 1, 1, 2, 2, 2], [1, 2, 0, 2, 0, 1, 1]], dtype=dtype)
        for n, with_loops in [(3, False), (3, True), (4, False)]:
            assert structured_negative_sampling_feasible(
                dense, n, with_loops
            ) == P.structured_negative_sampling_feasible(
                torch.from_numpy(dense.astype(np.int64)), n, with_loops
            )
    # batched: both keep pairs inside examples
    ei = np.array([[0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7]])
    batch = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    theirs = P.batched_negative_sampling(torch.from_numpy(ei), torch.from_numpy(batch)).numpy()
    ours = batched_negative_sampling(ei, batch, seed=0)
    for neg in (ours, theirs):
        assert (batch[neg[0]] == batch[neg[1]]).all()
        assert not _pairs(neg) & _pairs(ei)
    assert ours.shape == theirs.shape


def test_undirected_pair_ids_decode_exactly_near_two_billion_nodes():
    from arraygnn.utils.negative_sampling import _undirected_ids, _undirected_pairs

    n = np.int64(2_000_000_000)
    rng = np.random.default_rng(0)
    a = np.concatenate([np.arange(n - 300, n - 1), rng.integers(0, n - 1, 20_000)])
    b = np.maximum(a + 1, np.minimum(n - 1, a + 1 + rng.integers(0, 10**9, a.shape[0])))
    ra, rb = _undirected_pairs(_undirected_ids(a, b, n), n)
    np.testing.assert_array_equal(ra, a)
    np.testing.assert_array_equal(rb, b)


def test_device_draws_reach_values_past_two_to_the_53():
    import types

    from arraygnn.utils.negative_sampling import uniform_below

    not_numpy = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if k[0] != "_"})
    high = np.full(50_000, 2**60, dtype=np.int64)
    draws = uniform_below(not_numpy, np.random.default_rng(0), high)
    assert draws.min() >= 0 and draws.max() < 2**60
    assert np.gcd.reduce(draws) == 1  # a float product alone leaves multiples of 128
