"""DGL's further sampling: ``sample_neighbors(edge_dir='out', prob=, exclude_edges=)``,
``select_topk`` and ``global_uniform_negative_sampling`` against NumPy transcriptions of
DGL's rules (``src/array/cpu/rowwise_*.cc``, ``negative_sampling.cc``); frequencies
against exact probabilities with fixed seeds and 6-standard-deviation bounds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from arraygnn.graph import EID, graph, heterograph
from arraygnn.sampling import (
    _calc_redundancy,
    global_uniform_negative_sampling,
    sample_neighbors,
    select_topk,
)

IDTYPES = [np.int32, np.int64]


def _g(src, dst, n, dtype=np.int64):
    return graph((np.asarray(src, dtype=dtype), np.asarray(dst, dtype=dtype)), num_nodes=n)


def _random_graph(seed, n=15, m=60, dtype=np.int64):
    rng = np.random.default_rng(seed)
    src = np.concatenate([rng.integers(0, n, m), [0, 0, 2]])  # multi-edge, self-loop
    dst = np.concatenate([rng.integers(0, n, m), [1, 1, 2]])
    return _g(src, dst, n + 2, dtype), src, dst  # nodes n, n+1 isolated


def _bound(p, n):
    return 6 * np.sqrt(p * (1 - p) / n) + 1e-9


# ------------------------------------------------------------------ edge_dir='out'


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("replace", [False, True])
def test_out_edges_sampled_per_seed(dtype, replace):
    g, src, dst = _random_graph(0, dtype=dtype)
    seeds = np.array([0, 2, 5, 15, 16], dtype=dtype)
    f = sample_neighbors(g, seeds, 2, edge_dir="out", replace=replace, seed=1)
    eid = f.edata[EID]
    fs, fd = (np.asarray(a) for a in f.edges())
    np.testing.assert_array_equal(fs, src[eid])
    np.testing.assert_array_equal(fd, dst[eid])
    assert f.num_nodes() == g.num_nodes()
    outdeg = np.bincount(src, minlength=g.num_nodes())
    counts = np.bincount(fs, minlength=g.num_nodes())
    expected = np.zeros(g.num_nodes(), dtype=np.int64)
    expected[seeds] = np.where(outdeg[seeds] > 0, 2, 0) if replace else np.minimum(outdeg[seeds], 2)
    np.testing.assert_array_equal(counts, expected)
    if not replace:
        assert np.unique(eid).shape == eid.shape


def test_out_fanout_minus_one_keeps_every_out_edge():
    g, src, _ = _random_graph(1)
    seeds = np.array([3, 0, 7])
    f = sample_neighbors(g, seeds, -1, edge_dir="out")
    np.testing.assert_array_equal(f.edata[EID], np.nonzero(np.isin(src, seeds))[0])


def test_out_sampling_is_uniform():
    g = _g([0] * 5 + [1], [1, 2, 3, 4, 4, 0], 5)
    runs = 4000
    counts = np.zeros(6)
    rng = np.random.default_rng(0)
    for _ in range(runs // 400):
        for _ in range(400):
            counts[sample_neighbors(g, [0], 2, edge_dir="out", seed=rng).edata[EID]] += 1
    freq = counts[:5] / runs
    assert (np.abs(freq - 0.4) <= _bound(0.4, runs)).all()
    assert counts[5] == 0


def test_out_sampling_on_a_heterograph():
    g = heterograph(
        {
            ("user", "buys", "item"): ([0, 0, 1, 2], [0, 1, 1, 2]),
            ("item", "bought-by", "user"): ([0, 1, 1, 2], [0, 0, 1, 2]),
            ("user", "knows", "user"): ([0, 1], [1, 2]),
        }
    )
    f = sample_neighbors(g, {"user": [0, 1]}, -1, edge_dir="out")
    assert f.edges["buys"].data[EID].tolist() == [0, 1, 2]
    assert f.edges["knows"].data[EID].tolist() == [0, 1]
    assert f.num_edges("bought-by") == 0  # its sources are items: not seeded
    f = sample_neighbors(g, {"user": [0, 1]}, -1)  # in-edges: users as destinations
    assert f.edges["bought-by"].data[EID].tolist() == [0, 1, 2]
    assert f.edges["knows"].data[EID].tolist() == [0]
    with pytest.raises(ValueError, match="edge_dir must be 'in' or 'out'"):
        sample_neighbors(g, {"user": [0]}, 1, edge_dir="both")


# ------------------------------------------------------------------------- prob=


def _successive_inclusion(w, k):
    """Exact inclusion probability of each item when ``k`` are drawn one after another in
    proportion to the remaining weights (DGL's TreeSampler without replacement)."""
    idx = np.nonzero(w > 0)[0]
    incl = np.zeros(w.shape[0])
    for order in itertools.permutations(idx, k):
        p, left = 1.0, w.sum()
        for i in order:
            p *= w[i] / left
            left -= w[i]
        incl[list(order)] += p
    return incl


@pytest.mark.parametrize("edge_dir", ["in", "out"])
def test_prob_without_replacement_matches_successive_sampling(edge_dir):
    w = np.array([1.0, 0.0, 2.0, 3.0, 0.5])
    if edge_dir == "in":
        g = _g([1, 2, 3, 4, 0], [0, 0, 0, 0, 0], 5)
    else:
        g = _g([0, 0, 0, 0, 0], [1, 2, 3, 4, 0], 5)
    g.edata["p"] = w
    runs = 6000
    counts = np.zeros(5)
    rng = np.random.default_rng(3)
    for _ in range(runs):
        e = sample_neighbors(g, [0], 2, edge_dir=edge_dir, prob="p", seed=rng).edata[EID]
        assert e.shape == (2,)
        counts[e] += 1
    exact = _successive_inclusion(w, 2)
    assert counts[1] == 0
    assert (np.abs(counts / runs - exact) <= _bound(np.minimum(exact, 1 - 1e-9), runs)).all()


def test_prob_with_replacement_and_few_positive_edges():
    w = np.array([1.0, 0.0, 3.0, 0.0])
    g = _g([1, 2, 3, 0], [0, 0, 0, 0], 4)
    g.edata["p"] = w.astype(np.float32)
    # two positive edges, fanout 3, no replacement: both, never a zero-weight edge
    e = sample_neighbors(g, [0], 3, prob="p", seed=0).edata[EID]
    assert e.tolist() == [0, 2]
    e = sample_neighbors(g, [0], -1, prob="p", seed=0).edata[EID]
    assert e.tolist() == [0, 2]
    # with replacement: `fanout` draws, each in proportion to the weight
    e = sample_neighbors(g, [0], 20000, prob="p", replace=True, seed=1).edata[EID]
    assert e.shape == (20000,) and set(e.tolist()) <= {0, 2}
    assert abs((e == 2).mean() - 0.75) <= _bound(0.75, 20000)
    # a row whose weights are all zero gives nothing, even with replacement
    g.edata["p"] = np.zeros(4)
    assert sample_neighbors(g, [0], 2, prob="p", replace=True, seed=1).num_edges() == 0


def test_prob_with_replacement_rows_of_very_different_weight_scales():
    # each row's draws stay in that row, whatever the other rows' weights (a prefix sum
    # over all rows lost row 1's weights under row 0's 1e20 and drew row 0's edge for it)
    g = _g([0, 1, 2], [0, 1, 1], 3)
    g.edata["p"] = np.array([1e20, 1.0, 3.0])
    f = sample_neighbors(g, [0, 1], 4000, prob="p", replace=True, seed=0)
    e, dst = f.edata[EID], f.edges()[1]
    assert (e == 0).sum() == 4000 and (dst == 1).sum() == 4000
    assert abs((e == 2).sum() / 4000 - 0.75) <= _bound(0.75, 4000)


def test_prob_validation():
    g = _g([0, 1], [1, 0], 2)
    with pytest.raises(KeyError, match="no edge type has the feature"):
        sample_neighbors(g, [0], 1, prob="p")
    g.edata["p"] = np.ones((2, 3))
    with pytest.raises(ValueError, match="one value per edge"):
        sample_neighbors(g, [0], 1, prob="p")
    g.edata["p"] = np.array([1.0, -0.5])
    with pytest.raises(ValueError, match="must be finite and non-negative"):
        sample_neighbors(g, [0], 1, prob="p")
    g.edata["p"] = np.array([1.0, np.inf])
    with pytest.raises(ValueError, match="must be finite and non-negative"):
        sample_neighbors(g, [0], 1, prob="p", replace=True)
    g.edata["p"] = np.ones((2, 1))  # [E, 1] is read as [E]
    assert sample_neighbors(g, [0], 1, prob="p", seed=0).num_edges() == 1


# ------------------------------------------------------------------- exclude_edges


@pytest.mark.parametrize("edge_dir", ["in", "out"])
def test_exclude_edges_are_removed_after_sampling(edge_dir):
    g, src, dst = _random_graph(2)
    excl = np.arange(0, src.shape[0], 3)
    seeds = np.arange(10)
    f = sample_neighbors(g, seeds, -1, edge_dir=edge_dir, exclude_edges=excl)
    ends = dst if edge_dir == "in" else src
    expected = np.setdiff1d(np.nonzero(np.isin(ends, seeds))[0], excl)
    np.testing.assert_array_equal(f.edata[EID], expected)
    f = sample_neighbors(g, seeds, 2, edge_dir=edge_dir, exclude_edges=list(excl), seed=0)
    assert not np.isin(f.edata[EID], excl).any()
    with pytest.raises(ValueError, match=r"contains id 63, outside \[0, 63\)"):
        sample_neighbors(g, seeds, 2, exclude_edges=[src.shape[0]])


def test_exclude_edges_dict_on_a_heterograph():
    g = heterograph({("a", "r", "b"): ([0, 0, 1], [0, 1, 1]), ("b", "s", "a"): ([0, 1], [0, 0])})
    f = sample_neighbors(g, {"b": [0, 1], "a": [0]}, -1, exclude_edges={"r": [1]})
    assert f.edges["r"].data[EID].tolist() == [0, 2]
    assert f.edges["s"].data[EID].tolist() == [0, 1]
    with pytest.raises(ValueError, match="several edge types"):
        sample_neighbors(g, {"b": [0]}, -1, exclude_edges=[0])


# ------------------------------------------------------------------------ select_topk


def _topk_reference(ends, w, nodes, k, ascending):
    keep = []
    for v in nodes:
        e = np.nonzero(ends == v)[0]
        key = w[e] if ascending else -w[e].astype(np.float64)
        order = np.lexsort((e, key))
        keep.extend(e[order][: len(e) if k < 0 else k])
    return np.sort(np.array(keep, dtype=np.int64))


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("edge_dir", ["in", "out"])
@pytest.mark.parametrize("ascending", [False, True])
@pytest.mark.parametrize("k", [-1, 0, 1, 3])
def test_select_topk_matches_reference(dtype, edge_dir, ascending, k):
    g, src, dst = _random_graph(4, dtype=dtype)
    rng = np.random.default_rng(5)
    w = rng.integers(0, 4, src.shape[0]).astype(np.float32)  # ties on purpose
    g.edata["w"] = w
    nodes = np.array([0, 2, 3, 9, 16])
    f = select_topk(g, k, "w", nodes=nodes, edge_dir=edge_dir, ascending=ascending)
    ends = dst if edge_dir == "in" else src
    np.testing.assert_array_equal(f.edata[EID], _topk_reference(ends, w, nodes, k, ascending))
    np.testing.assert_array_equal(f.edata["w"], w[f.edata[EID]])
    # every node when nodes is None
    f = select_topk(g, k, "w", edge_dir=edge_dir, ascending=ascending)
    ref = _topk_reference(ends, w, np.arange(g.num_nodes()), k, ascending)
    np.testing.assert_array_equal(f.edata[EID], ref)


def test_select_topk_integer_weights_heterograph_and_errors():
    g = heterograph({("a", "r", "b"): ([0, 1, 2], [0, 0, 0]), ("b", "s", "a"): ([0, 0], [1, 2])})
    g.edges["r"].data["w"] = np.array([5, 9, 7], dtype=np.uint8)
    g.edges["s"].data["w"] = np.array([1, 2], dtype=np.int64)
    f = select_topk(g, {"r": 2, "s": 1}, "w")
    assert f.edges["r"].data[EID].tolist() == [1, 2]
    assert f.edges["s"].data[EID].tolist() == [0, 1]  # one in-edge each
    f = select_topk(g, 1, "w", nodes={"a": [0]}, edge_dir="out")
    assert f.edges["r"].data[EID].tolist() == [0] and f.num_edges("s") == 0
    with pytest.raises(ValueError, match="must be specified for each edge type"):
        select_topk(g, {"r": 1}, "w")
    del g.edges["s"].data["w"]
    with pytest.raises(KeyError, match="do not exist for edge types"):
        select_topk(g, 1, "w")
    with pytest.raises(ValueError, match="several types"):
        select_topk(g, 1, "w", nodes=[0])


# --------------------------------------------------- global_uniform_negative_sampling


def test_calc_redundancy_solves_dgls_quadratic():
    k_hat, m, pairs, r = 100, 50, 400, 3
    red = _calc_redundancy(k_hat, m, pairs)
    n_draws = k_hat * (1 + red)
    p_k = 1 - m / pairs
    # N p_k - r sqrt(N p_k (1 - p_k)) = k_hat (the larger root)
    assert abs(n_draws * p_k - r * np.sqrt(n_draws * p_k * (1 - p_k)) - k_hat) < 1e-6


@pytest.mark.parametrize("dtype", IDTYPES)
def test_negative_pairs_are_non_edges_sorted_and_unique(dtype):
    g, src, dst = _random_graph(6, n=40, m=200, dtype=dtype)
    s, d = global_uniform_negative_sampling(g, 300, seed=0)
    assert s.dtype == d.dtype == np.dtype(dtype)
    assert s.shape == d.shape == (300,)
    edges = set(zip(src.tolist(), dst.tolist()))
    pairs = list(zip(s.tolist(), d.tolist()))
    assert not edges & set(pairs)
    assert all(a != b for a, b in pairs)
    assert pairs == sorted(set(pairs))  # DGL sorts and removes duplicates
    s2, d2 = global_uniform_negative_sampling(g, 300, seed=0)
    np.testing.assert_array_equal(s, s2)
    np.testing.assert_array_equal(d, d2)


def test_negative_sampling_with_replacement_and_self_loops():
    g = _g([0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2], 3)  # complete, no self-loops
    s, d = global_uniform_negative_sampling(g, 10, seed=0)
    assert s.shape == (0,)  # every non-self-loop pair is an edge
    s, d = global_uniform_negative_sampling(g, 10, exclude_self_loops=False, seed=0)
    assert (s == d).all() and 1 <= s.shape[0] <= 3
    s, d = global_uniform_negative_sampling(
        g, 50, exclude_self_loops=False, replace=True, redundancy=1.0, seed=0
    )
    assert (s == d).all() and s.shape[0] <= 50
    assert s.shape[0] > 3  # with replacement the same pair comes back


def test_negative_sampling_bipartite_etype_and_errors():
    g = heterograph(
        {("u", "r", "v"): ([0, 1], [2, 0]), ("v", "s", "u"): ([0], [0])},
        num_nodes_dict={"u": 3, "v": 4},
    )
    s, d = global_uniform_negative_sampling(g, 5, etype="r", seed=1)
    nu, nv = g.num_nodes("u"), g.num_nodes("v")
    assert (s < nu).all() and (d < nv).all()
    assert not ({(0, 2), (1, 0)} & set(zip(s.tolist(), d.tolist())))
    assert global_uniform_negative_sampling(g, 0, etype="r")[0].shape == (0,)
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        global_uniform_negative_sampling(g, -1, etype="r")
    with pytest.raises(KeyError, match="global_uniform_negative_sampling: etype: edge type 'x'"):
        global_uniform_negative_sampling(g, 1, etype="x")
    with pytest.raises(KeyError, match=r"sample_neighbors: exclude_edges: edge type 'x'"):
        sample_neighbors(g, {"u": [0]}, 1, exclude_edges={"x": [0]})
    # etype=None: the first edge type, as DGL
    a = global_uniform_negative_sampling(g, 5, seed=2)
    b = global_uniform_negative_sampling(g, 5, etype=g.canonical_etypes[0], seed=2)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="redundancy must be >= 0"):
        global_uniform_negative_sampling(g, 2, etype="r", redundancy=-1.0)


def test_graph_without_edges():
    g = _g([], [], 3)
    g.edata["w"] = np.zeros(0)
    assert sample_neighbors(g, [0, 1], 2, edge_dir="out", prob="w", seed=0).num_edges() == 0
    assert sample_neighbors(g, [0], 2, replace=True, prob="w", seed=0).num_edges() == 0
    assert select_topk(g, 2, "w").num_edges() == 0
    s, d = global_uniform_negative_sampling(g, 20, seed=0)
    pairs = list(zip(s.tolist(), d.tolist()))
    assert pairs == sorted(set(pairs)) and all(a != b for a, b in pairs) and len(pairs) <= 6


def test_neighbor_sampler_prob_and_mask_reach_every_block():
    """DGL's NeighborSampler(prob=...) / (mask=...): zero-weight / masked-out edges never
    appear in any block; both together is an error."""
    from arraygnn.graph import EID, graph
    from arraygnn.sampling import NeighborSampler, sample_blocks

    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 40, 600), rng.integers(0, 40, 600)
    g = graph((src, dst), num_nodes=40)
    allowed = rng.random(600) < 0.5
    g.edata["w"] = np.where(allowed, rng.random(600) + 0.1, 0.0)
    g.edata["m"] = allowed
    seeds = np.arange(0, 40, 3)
    for sampler in (
        NeighborSampler([3, 3], prob="w", seed=1),
        NeighborSampler([3, 3], mask="m", seed=1),
    ):
        _, _, blocks = sampler.sample_blocks(g, seeds)
        for block in blocks:
            assert allowed[block.edata[EID]].all()
    _, _, blocks = sample_blocks(g, seeds, [-1], prob="m")  # every allowed in-edge
    want = np.flatnonzero(allowed & np.isin(dst, seeds))
    np.testing.assert_array_equal(np.sort(blocks[0].edata[EID]), want)
    with pytest.raises(ValueError, match="prob or mask, not both"):
        NeighborSampler([2], prob="w", mask="m")
    with pytest.raises(TypeError, match="NeighborSampler: mask must name an edge feature"):
        NeighborSampler([2], mask=allowed)
