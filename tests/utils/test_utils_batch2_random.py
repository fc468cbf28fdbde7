"""Random graph generators, ``grid`` and the augmentations: ``grid`` equals PyG's exactly;
the random ones (PyG draws from torch's generator, so values cannot match) are checked for
the structure PyG guarantees and for PyG's distribution (edge counts against PyG's own
graphs and the binomial law); ``training=False`` is an exact identity; bad input names the
function and the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _utils_cases import GRAPHS, pyg_utils, t

import arraygnn.utils as U


def _assert_simple(ei, n, *, undirected):
    """int64, sorted by (row, col), no duplicates, no self-loops, ids in range."""
    assert ei.dtype == np.int64 and ei.shape[0] == 2
    if ei.shape[1] == 0:
        return
    assert int(ei.min()) >= 0 and int(ei.max()) < n
    assert (ei[0] != ei[1]).all()
    key = ei[0] * n + ei[1]
    assert (np.diff(key) > 0).all()  # sorted and coalesced
    if undirected:
        rev = np.sort(ei[1] * n + ei[0])
        np.testing.assert_array_equal(rev, key)


# ------------------------------------------------------------------------------- grid


@pytest.mark.parametrize(("h", "w"), [(1, 1), (1, 4), (4, 1), (2, 2), (3, 5), (6, 4), (9, 9)])
@pytest.mark.parametrize("dtype", [None, np.float64, np.float32])
def test_grid_equals_pyg(h, w, dtype):
    P = pyg_utils()
    import torch

    tdt = None if dtype is None else getattr(torch, np.dtype(dtype).name)
    ei, pos = U.grid(h, w, dtype=dtype)
    ref_ei, ref_pos = P.grid(h, w, dtype=tdt)
    np.testing.assert_array_equal(ei, ref_ei.numpy())
    np.testing.assert_array_equal(pos, ref_pos.numpy())
    assert ei.dtype == np.int64 and pos.dtype == ref_pos.numpy().dtype


def test_grid_empty_and_errors():
    ei, pos = U.grid(0, 3)
    assert ei.shape == (2, 0) and pos.shape == (0, 2)
    with pytest.raises(ValueError, match="grid: height"):
        U.grid(-1, 3)
    with pytest.raises(TypeError, match="grid: width"):
        U.grid(2, 2.5)
    with pytest.raises(TypeError, match="grid: dtype must be a NumPy dtype"):
        U.grid(2, 2, dtype="not-a-dtype")
    with pytest.raises(ValueError, match="grid: device must be"):
        U.grid(2, 2, device="tpu")


# ------------------------------------------------------------------------ Erdos-Renyi


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize(
    ("n", "p"), [(0, 0.5), (1, 0.5), (2, 1.0), (12, 0.0), (12, 1.0), (40, 0.3)]
)
def test_erdos_renyi_structure(directed, n, p):
    ei = U.erdos_renyi_graph(n, p, directed, seed=0)
    _assert_simple(ei, max(n, 1), undirected=not directed)
    if p == 1.0:
        assert ei.shape[1] == n * (n - 1)
    if p == 0.0:
        assert ei.shape[1] == 0
    if p == 1.0 and n >= 2:
        P = pyg_utils()
        np.testing.assert_array_equal(ei, P.erdos_renyi_graph(n, p, directed).numpy())
    np.testing.assert_array_equal(ei, U.erdos_renyi_graph(n, p, directed, seed=0))


@pytest.mark.parametrize("directed", [False, True])
def test_erdos_renyi_distribution_matches_pyg(directed):
    """Mean edge count over many draws: ours, PyG's and the binomial mean agree."""
    P = pyg_utils()
    import torch

    n, p, draws = 30, 0.2, 60
    rng = np.random.default_rng(1)
    ours = [U.erdos_renyi_graph(n, p, directed, seed=rng).shape[1] for _ in range(draws)]
    torch.manual_seed(0)
    ref = [P.erdos_renyi_graph(n, p, directed).shape[1] for _ in range(draws)]
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    factor = 1 if directed else 2
    mean, sd = factor * pairs * p, factor * np.sqrt(pairs * p * (1 - p))
    for counts in (ours, ref):
        assert abs(np.mean(counts) - mean) < 5 * sd / np.sqrt(draws)
    # every pair equally likely: each node's degree averages (n - 1) p
    deg = np.zeros(n)
    for _ in range(draws):
        deg += np.bincount(U.erdos_renyi_graph(n, p, directed, seed=rng)[0], minlength=n)
    assert np.abs(deg / draws - (n - 1) * p).max() < 6 * np.sqrt((n - 1) * p / draws)


def test_erdos_renyi_errors():
    with pytest.raises(ValueError, match="erdos_renyi_graph: edge_prob must be between 0 and 1"):
        U.erdos_renyi_graph(5, 1.5)
    with pytest.raises(TypeError, match="erdos_renyi_graph: edge_prob must be a number"):
        U.erdos_renyi_graph(5, "x")
    with pytest.raises(ValueError, match="erdos_renyi_graph: num_nodes"):
        U.erdos_renyi_graph(-2, 0.5)
    with pytest.raises(TypeError, match="erdos_renyi_graph: directed must be True or False"):
        U.erdos_renyi_graph(5, 0.5, directed="yes")
    with pytest.raises(TypeError, match="erdos_renyi_graph: seed must be"):
        U.erdos_renyi_graph(5, 0.5, seed="abc")


# ------------------------------------------------------------------- stochastic blocks


@pytest.mark.parametrize("directed", [False, True])
def test_sbm_block_structure(directed):
    sizes = [3, 0, 5, 4]
    probs = np.array(
        [[1.0, 0.3, 0.0, 0.0], [0.3, 0.2, 0.1, 0.1], [0.0, 0.1, 0.0, 1.0], [0.0, 0.1, 1.0, 0.5]]
    )
    n = sum(sizes)
    block = np.repeat(np.arange(4), sizes)
    ei = U.stochastic_blockmodel_graph(sizes, probs, directed, seed=3)
    _assert_simple(ei, n, undirected=not directed)
    pairs = {(a, b) for a, b in zip(block[ei[0]].tolist(), block[ei[1]].tolist())}
    assert all(probs[a, b] > 0 for a, b in pairs)  # no edge where the probability is 0
    # probability 1: every pair of the block (pair) is an edge
    in_0 = set(zip(*ei[:, (block[ei[0]] == 0) & (block[ei[1]] == 0)].tolist()))
    assert in_0 == {(i, j) for i in range(3) for j in range(3) if i != j}
    cross = ei[:, (block[ei[0]] == 2) & (block[ei[1]] == 3)]
    assert cross.shape[1] == 5 * 4


def test_sbm_distribution_matchespyg_utils():
    P = pyg_utils()
    import torch

    sizes, probs, draws = [6, 9], [[0.5, 0.1], [0.1, 0.3]], 80
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    for directed in (False, True):
        block = np.repeat([0, 1], sizes)
        ours = np.zeros((2, 2))
        ref = np.zeros((2, 2))
        for _ in range(draws):
            for acc, ei in (
                (ours, U.stochastic_blockmodel_graph(sizes, probs, directed, seed=rng)),
                (ref, P.stochastic_blockmodel_graph(sizes, probs, directed).numpy()),
            ):
                np.add.at(acc, (block[ei[0]], block[ei[1]]), 1)
        cand = np.array([[6 * 5, 6 * 9], [9 * 6, 9 * 8]])
        expected = cand * np.array(probs) * draws
        for acc in (ours, ref):
            assert (np.abs(acc - expected) < 5 * np.sqrt(expected * 2) + 1).all(), acc


def test_sbm_errors():
    f = U.stochastic_blockmodel_graph
    with pytest.raises(
        ValueError, match="stochastic_blockmodel_graph: edge_probs must be symmetric"
    ):
        f([2, 2], [[0.1, 0.2], [0.3, 0.1]])
    with pytest.raises(
        ValueError, match=r"stochastic_blockmodel_graph: edge_probs must have shape \(2, 2\)"
    ):
        f([2, 2], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="stochastic_blockmodel_graph: edge_probs must lie"):
        f([2], [[1.5]])
    with pytest.raises(TypeError, match="stochastic_blockmodel_graph: block_sizes must be"):
        f([2.5], [[0.5]])
    with pytest.raises(
        ValueError, match="stochastic_blockmodel_graph: block_sizes must be non-neg"
    ):
        f([-1], [[0.5]])
    # a non-symmetric matrix is fine for directed graphs
    assert f([2, 2], [[0.0, 1.0], [0.0, 0.0]], directed=True).shape == (2, 4)


# ------------------------------------------------------------------- Barabasi-Albert


@pytest.mark.parametrize(("n", "m"), [(2, 1), (4, 3), (30, 1), (50, 4), (200, 7)])
def test_barabasi_albert_structure(n, m):
    ei = U.barabasi_albert_graph(n, m, seed=n)
    _assert_simple(ei, n, undirected=True)
    assert ei.shape[1] <= 2 * m * (n - m + 1)
    np.testing.assert_array_equal(ei, U.barabasi_albert_graph(n, m, seed=n))


def test_barabasi_albert_distribution_matchespyg_utils():
    """PyG's process: the same mean edge count and degree profile over many graphs (the
    earliest nodes collect the most edges)."""
    P = pyg_utils()
    import torch

    n, m, draws = 120, 3, 40
    rng = np.random.default_rng(5)
    torch.manual_seed(0)
    np.random.seed(0)  # PyG draws its targets from NumPy's global generator
    ours = [U.barabasi_albert_graph(n, m, seed=rng) for _ in range(draws)]
    ref = [P.barabasi_albert_graph(n, m).numpy() for _ in range(draws)]
    count = [np.mean([g.shape[1] for g in gs]) for gs in (ours, ref)]
    spread = np.std([g.shape[1] for g in ref]) / np.sqrt(draws)
    assert abs(count[0] - count[1]) < 6 * spread + 2
    deg = [np.mean([np.bincount(g[0], minlength=n) for g in gs], axis=0) for gs in (ours, ref)]
    for d in deg:
        assert d[: m + 2].mean() > 2 * d[-20:].mean()  # preferential attachment
    np.testing.assert_allclose(deg[0][:10].mean(), deg[1][:10].mean(), rtol=0.25)


def test_barabasi_albert_errors():
    with pytest.raises(ValueError, match="barabasi_albert_graph: num_edges must satisfy"):
        U.barabasi_albert_graph(3, 3)
    with pytest.raises(ValueError, match="barabasi_albert_graph: num_edges must satisfy"):
        U.barabasi_albert_graph(3, 0)
    with pytest.raises(TypeError, match="barabasi_albert_graph: num_nodes"):
        U.barabasi_albert_graph(3.0, 1)


# ------------------------------------------------------------------------ augmentations


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_training_false_is_identity(dt, ei, n):
    P = pyg_utils()
    before = ei.copy()
    out, mask = U.dropout_edge(ei, p=0.7, training=False)
    ref_out, ref_mask = P.dropout_edge(t(ei), p=0.7, training=False)
    np.testing.assert_array_equal(out, ei)
    np.testing.assert_array_equal(mask, ref_mask.numpy())
    assert out.dtype == ei.dtype and out is not ei
    out, emask, nmask = U.dropout_node(ei, p=0.7, num_nodes=n, training=False)
    ref = P.dropout_node(t(ei), p=0.7, num_nodes=n, training=False)
    np.testing.assert_array_equal(out, ei)
    np.testing.assert_array_equal(emask, ref[1].numpy())
    np.testing.assert_array_equal(nmask, ref[2].numpy())
    out, added = U.add_random_edge(ei, p=0.5, training=False)
    np.testing.assert_array_equal(out, ei)
    assert added.shape == (2, 0) and added.dtype == ei.dtype
    x = np.random.default_rng(0).standard_normal((n, 3)).astype(np.float32)
    for mode in ("row", "col", "all"):
        xo, m = U.mask_feature(x, p=0.9, mode=mode, training=False)
        np.testing.assert_array_equal(xo, x)
        assert m.shape == x.shape and m.all()
    xo, perm = U.shuffle_node(x, training=False)
    np.testing.assert_array_equal(xo, x)
    np.testing.assert_array_equal(perm, np.arange(n))
    np.testing.assert_array_equal(ei, before)


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_dropout_edge_properties(dt, ei, n):
    before = ei.copy()
    out, mask = U.dropout_edge(ei, p=0.4, seed=1)
    assert mask.dtype == np.bool_ and mask.shape == (ei.shape[1],)
    np.testing.assert_array_equal(out, ei[:, mask])
    assert out.dtype == ei.dtype
    out, pos = U.dropout_edge(ei, p=0.4, force_undirected=True, seed=1)
    k = pos.shape[0] // 2
    assert pos.dtype == np.int64 and (pos[:k] == pos[k:]).all()
    np.testing.assert_array_equal(out[:, :k], ei[:, pos[:k]])
    np.testing.assert_array_equal(out[:, k:], ei[::-1, pos[:k]])
    assert (ei[0, pos] <= ei[1, pos]).all()
    everything, _ = U.dropout_edge(ei, p=1.0, seed=0)
    assert everything.shape == (2, 0)
    np.testing.assert_array_equal(ei, before)


def test_dropout_edge_rate_and_pyg_shapes():
    P = pyg_utils()
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 100, (2, 20000))
    _, mask = U.dropout_edge(ei, p=0.3, seed=rng)
    assert abs(mask.mean() - 0.7) < 0.02
    out, pos = U.dropout_edge(ei, p=0.3, force_undirected=True, seed=rng)
    ref_out, ref_pos = P.dropout_edge(t(ei), p=0.3, force_undirected=True)
    assert pos.dtype == ref_pos.numpy().dtype and out.shape[0] == ref_out.shape[0]
    upper = (ei[0] <= ei[1]).mean()
    assert abs(pos.shape[0] / 2 / ei.shape[1] - 0.7 * upper) < 0.02


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_dropout_node_properties(dt, ei, n):
    P = pyg_utils()
    for relabel in (False, True):
        out, emask, nmask = U.dropout_node(ei, p=0.5, num_nodes=n, relabel_nodes=relabel, seed=2)
        assert nmask.shape == (n,) and emask.shape == (ei.shape[1],)
        np.testing.assert_array_equal(emask, nmask[ei[0]] & nmask[ei[1]] if n else emask)
        # the same node mask through PyG's subgraph gives the same edges
        ref, _ = P.subgraph(t(nmask), t(ei), relabel_nodes=relabel, num_nodes=n)
        np.testing.assert_array_equal(out, ref.numpy())
        assert out.dtype == ei.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_mask_feature_modes(dtype):
    x = (np.arange(200 * 30).reshape(200, 30) % 7 + 1).astype(dtype)
    before = x.copy()
    out, mask = U.mask_feature(x, p=0.5, mode="col", fill_value=-1, seed=0)
    assert mask.shape == (1, 30) and out.dtype == x.dtype
    np.testing.assert_array_equal(out, np.where(mask, x, -1))
    out, mask = U.mask_feature(x, p=0.5, mode="row", seed=0)
    assert mask.shape == (200, 1)
    np.testing.assert_array_equal(out, np.where(mask, x, 0))
    out, mask = U.mask_feature(x, p=0.25, mode="all", seed=0)
    assert mask.shape == x.shape and abs(mask.mean() - 0.75) < 0.03
    np.testing.assert_array_equal(out, np.where(mask, x, 0))
    np.testing.assert_array_equal(x, before)


def test_shuffle_node_batch_stays_in_graph():
    batch = np.array([0, 0, 0, 1, 2, 2, 2, 2, 4, 4], dtype=np.int32)
    x = np.arange(10.0)[:, None] * np.ones((1, 2))
    seen = set()
    for seed in range(30):
        out, perm = U.shuffle_node(x, batch, seed=seed)
        np.testing.assert_array_equal(out, x[perm])
        np.testing.assert_array_equal(batch[perm], batch)  # rows stay in their graph
        assert sorted(perm.tolist()) == list(range(10)) and perm.dtype == np.int64
        seen.add(tuple(perm[5:8].tolist()))
    assert len(seen) > 3  # actually shuffled
    out, perm = U.shuffle_node(np.zeros((0, 3)), seed=0)
    assert perm.shape == (0,)


@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_add_random_edge_properties(dt, ei, n):
    if n < 2:
        pytest.skip("no pair of distinct nodes")
    existing = set(zip(*ei.tolist()))
    free_directed = n * (n - 1) - len({(a, b) for a, b in existing if a != b})
    linked = {(min(a, b), max(a, b)) for a, b in existing if a != b}
    free_undirected = n * (n - 1) // 2 - len(linked)
    want = round(ei.shape[1] * 0.5)
    for undirected in (False, True):
        out, added = U.add_random_edge(ei, p=0.5, force_undirected=undirected, num_nodes=n, seed=0)
        assert out.dtype == ei.dtype == added.dtype
        np.testing.assert_array_equal(out[:, : ei.shape[1]], ei)
        np.testing.assert_array_equal(out[:, ei.shape[1] :], added)
        # exactly round(p * E) new pairs where that many exist (PyG may return fewer)
        if undirected:
            assert added.shape[1] == 2 * min(want // 2, free_undirected)
        else:
            assert added.shape[1] == min(want, free_directed)
        pairs = list(zip(*added.tolist()))
        assert not existing & set(pairs) and all(a != b for a, b in pairs)
        assert len(set(pairs)) == len(pairs)
        if undirected:
            k = len(pairs) // 2
            assert pairs[k:] == [(b, a) for a, b in pairs[:k]]


def test_add_random_edge_likepyg_utils():
    """Same count and kind of pairs as PyG's on a sparse graph (where PyG's rejection
    sampling does not fall short)."""
    P = pyg_utils()
    rng = np.random.default_rng(0)
    ei = np.unique(rng.integers(0, 500, (2, 1000)), axis=1)
    for undirected in (False, True):
        out, added = U.add_random_edge(ei, p=0.3, force_undirected=undirected, seed=rng)
        ref_out, ref_added = P.add_random_edge(t(ei), p=0.3, force_undirected=undirected)
        assert out.shape == tuple(ref_out.shape) and added.shape == tuple(ref_added.shape)


def test_augment_errors():
    ei = np.array([[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="dropout_edge: p must be between 0 and 1"):
        U.dropout_edge(ei, p=1.5)
    with pytest.raises(TypeError, match="dropout_edge: training must be True or False"):
        U.dropout_edge(ei, training=None)
    with pytest.raises(ValueError, match="dropout_node: edge_index has entry 2, out of range"):
        U.dropout_node(ei, num_nodes=2)
    with pytest.raises(ValueError, match="dropout_node: p must be between"):
        U.dropout_node(ei, p=-0.1)
    with pytest.raises(ValueError, match="mask_feature: mode must be one of"):
        U.mask_feature(np.ones((2, 2)), mode="cols")
    with pytest.raises(ValueError, match=r"mask_feature: x must have shape \[N, F\]"):
        U.mask_feature(np.ones(3), mode="col")
    with pytest.raises(TypeError, match="mask_feature: x must be a NumPy or CuPy array"):
        U.mask_feature([[1.0]])
    with pytest.raises(ValueError, match="shuffle_node: batch must be sorted"):
        U.shuffle_node(np.ones((3, 1)), np.array([1, 0, 0]))
    with pytest.raises(ValueError, match=r"shuffle_node: batch must have shape \(3,\)"):
        U.shuffle_node(np.ones((3, 1)), np.array([0, 0]))
    with pytest.raises(ValueError, match="add_random_edge: force_undirected is not supported"):
        U.add_random_edge(ei, force_undirected=True, num_nodes=(3, 3))
    with pytest.raises(ValueError, match="add_random_edge: p must be between"):
        U.add_random_edge(ei, p=2)
    with pytest.raises(ValueError, match="add_random_edge: edge_index has entry 2"):
        U.add_random_edge(ei, num_nodes=2)
