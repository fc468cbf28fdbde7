"""DGL's ShaDowKHopSampler, SAINTSampler and LaborSampler / sample_labors.

The random draws cannot be DGL's, so the tests check the guarantees: reproducibility with a
seed, induced subgraphs, sampled edges that exist, fan-out / budget bounds, and sampling
laws against exact probabilities over many draws (6-standard-deviation bounds)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import EID, NID, graph, heterograph
from arraygnn.labor_sampler import LaborSampler, sample_labors
from arraygnn.saint_sampler import SAINTSampler
from arraygnn.sampling import NeighborSampler, NodeDataLoader
from arraygnn.shadow_sampler import ShaDowKHopSampler

IDTYPES = [np.int32, np.int64]


def _random_graph(seed, n=30, m=150, dtype=np.int64):
    rng = np.random.default_rng(seed)
    src = np.concatenate([rng.integers(0, n, m), [0, 0, 2]]).astype(dtype)  # multi-edge,
    dst = np.concatenate([rng.integers(0, n, m), [1, 1, 2]]).astype(dtype)  # self-loop
    g = graph((src, dst), num_nodes=n + 2)  # nodes n, n + 1 isolated
    g.ndata["x"] = rng.random((n + 2, 3))
    g.edata["w"] = rng.random(m + 3)
    return g, src.astype(np.int64), dst.astype(np.int64)


def _hetero(dtype=np.int64):
    rng = np.random.default_rng(3)
    return heterograph(
        {
            ("user", "follows", "user"): tuple(rng.integers(0, 8, (2, 30)).astype(dtype)),
            ("game", "played-by", "user"): (
                rng.integers(0, 5, 20).astype(dtype),
                rng.integers(0, 8, 20).astype(dtype),
            ),
            ("user", "plays", "game"): (
                rng.integers(0, 8, 20).astype(dtype),
                rng.integers(0, 5, 20).astype(dtype),
            ),
        },
        {"user": 8, "game": 5},
    )


def _edge_multiset(src, dst):
    return sorted(zip(np.asarray(src).tolist(), np.asarray(dst).tolist()))


def _assert_induced(g, sg, etype=None):
    """``sg`` holds exactly the edges of ``g`` among its nodes, with their ids."""
    kw = {} if etype is None else {"etype": etype}
    c = etype if etype is not None else g.canonical_etypes[0]
    nid_u = np.asarray(sg.nodes[c[0]].data[NID])
    nid_v = np.asarray(sg.nodes[c[2]].data[NID])
    s, d = (np.asarray(a) for a in sg.edges(**kw))
    gs, gd = (np.asarray(a).astype(np.int64) for a in g.edges(**kw))
    eid = np.asarray(sg.edges[c].data[EID])
    np.testing.assert_array_equal(gs[eid], nid_u[s])
    np.testing.assert_array_equal(gd[eid], nid_v[d])
    inside = np.isin(gs, nid_u) & np.isin(gd, nid_v)
    np.testing.assert_array_equal(np.sort(eid), np.nonzero(inside)[0])


# ------------------------------------------------------------------ ShaDowKHopSampler


@pytest.mark.parametrize("dtype", IDTYPES)
def test_shadow_induced_subgraph_seeds_first(dtype):
    g, src, dst = _random_graph(0, dtype=dtype)
    seeds = np.array([5, 0, 31], dtype=dtype)
    inp, out, sg = ShaDowKHopSampler([2, 3], seed=0).sample(g, seeds)
    np.testing.assert_array_equal(out, seeds)
    np.testing.assert_array_equal(inp[:3], seeds)
    np.testing.assert_array_equal(inp, sg.ndata[NID])
    assert np.unique(inp).shape[0] == inp.shape[0] and sg.idtype == dtype
    _assert_induced(g, sg)
    np.testing.assert_array_equal(sg.ndata["x"], g.ndata["x"][inp])
    np.testing.assert_array_equal(sg.edata["w"], g.edata["w"][sg.edata[EID]])
    # every node is within 2 in-hops of a seed, and hop sizes respect the fan-outs
    hop1 = set(src[np.isin(dst, seeds)].tolist()) | set(seeds.tolist())
    hop2 = set(src[np.isin(dst, list(hop1))].tolist()) | hop1
    assert set(inp.tolist()) <= hop2
    assert len(inp) <= 3 + 3 * 3 + (3 + 3 * 3) * 2


def test_shadow_full_fanout_is_the_k_hop_neighbourhood():
    g, src, dst = _random_graph(1)
    seeds = np.array([4, 7])
    inp, _, sg = ShaDowKHopSampler([-1, -1]).sample(g, seeds)
    hop1 = set(src[np.isin(dst, seeds)].tolist()) | set(seeds.tolist())
    hop2 = set(src[np.isin(dst, list(hop1))].tolist()) | hop1
    assert set(inp.tolist()) == hop2
    _assert_induced(g, sg)


def test_shadow_reproducible_and_loader():
    g, _, _ = _random_graph(2)

    def run(seed):
        loader = NodeDataLoader(
            g, np.arange(20), ShaDowKHopSampler([3, 3], seed=seed), batch_size=6
        )
        return [(i.tolist(), o.tolist(), sg.num_edges()) for i, o, sg in loader]

    a, b = run(5), run(5)
    assert a == b and len(a) == 4
    assert [o for _, o, _ in a] == [list(range(k, min(k + 6, 20))) for k in range(0, 20, 6)]
    assert run(5) != run(6)


def test_shadow_exclude_prob_and_hetero():
    g, src, dst = _random_graph(3)
    excl = np.arange(0, 153, 2)
    _, _, sg = ShaDowKHopSampler([-1, -1], seed=0).sample(g, np.arange(10), exclude_eids=excl)
    assert not np.isin(sg.edata[EID], excl).any()
    g.edata["p"] = (np.arange(153) % 2).astype(float)  # odd edges only
    inp, _, _ = ShaDowKHopSampler([-1], prob="p").sample(g, np.array([1]))
    odd_src = src[(dst == 1) & (np.arange(153) % 2 == 1)]
    assert set(inp.tolist()) == {1} | set(odd_src.tolist())
    h = _hetero()
    fan = {"follows": 2, "played-by": 2, "plays": 1}
    inp, out, sg = ShaDowKHopSampler([fan, fan], seed=1).sample(h, {"user": np.array([0, 3])})
    np.testing.assert_array_equal(out["user"], [0, 3])
    np.testing.assert_array_equal(inp["user"][:2], [0, 3])
    for c in h.canonical_etypes:
        _assert_induced(h, sg, c)


def test_shadow_empty_seeds_and_errors():
    g, _, _ = _random_graph(4)
    inp, out, sg = ShaDowKHopSampler([2]).sample(g, np.zeros(0, dtype=np.int64))
    assert inp.shape == (0,) and out.shape == (0,) and sg.num_nodes() == 0
    with pytest.raises(TypeError, match="fanouts"):
        ShaDowKHopSampler(3)
    with pytest.raises(TypeError, match="prob"):
        ShaDowKHopSampler([3], prob=1.0)
    with pytest.raises(ValueError, match="seed nodes"):
        ShaDowKHopSampler([3]).sample(g, np.array([99]))
    with pytest.raises(KeyError, match="prefetch_node_feats"):
        ShaDowKHopSampler([3], prefetch_node_feats=["nope"]).sample(g, np.array([0]))
    with pytest.raises(ValueError, match="output_device"):
        ShaDowKHopSampler([3], output_device="cuda:0").sample(g, np.array([0]))
    with pytest.raises(ValueError, match="fanout"):
        ShaDowKHopSampler([-3]).sample(g, np.array([0]))


# ------------------------------------------------------------------ SAINTSampler


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("mode,budget", [("node", 12), ("edge", 8), ("walk", (3, 4))])
def test_saint_induced_and_within_budget(mode, budget, dtype):
    g, _, _ = _random_graph(5, dtype=dtype)
    sampler = SAINTSampler(mode, budget, seed=0)
    limit = {"node": 12, "edge": 16, "walk": 3 * 5}[mode]
    for _ in range(5):
        sg = sampler.sample(g, None)
        nid = np.asarray(sg.ndata[NID])
        assert 0 < nid.shape[0] <= limit and sg.idtype == dtype
        assert (np.diff(nid) > 0).all()
        _assert_induced(g, sg)
        np.testing.assert_array_equal(sg.ndata["x"], g.ndata["x"][nid])
    again = SAINTSampler(mode, budget, seed=0)
    first = SAINTSampler(mode, budget, seed=0).sample(g, None)
    np.testing.assert_array_equal(again.sample(g, None).ndata[NID], first.ndata[NID])


def test_saint_node_law_is_out_degree():
    g, src, _ = _random_graph(6, n=6, m=20)
    p = np.maximum(np.bincount(src, minlength=8), 1).astype(float)
    p /= p.sum()
    sampler = SAINTSampler("node", 1, seed=1)
    T = 4000
    counts = np.bincount(
        [int(sampler.sample(g, None).ndata[NID][0]) for _ in range(T)], minlength=8
    )
    assert (np.abs(counts / T - p) <= 6 * np.sqrt(p * (1 - p) / T) + 1e-9).all()


def test_saint_edge_law_and_cache():
    src, dst = np.array([0, 0, 0, 1, 2]), np.array([1, 2, 3, 2, 3])
    g = graph((src, dst), num_nodes=4)
    indeg, outdeg = np.array([1, 1, 2, 2]), np.array([3, 1, 1, 1])
    p = 1 / indeg[dst] + 1 / outdeg[src]
    p /= p.sum()
    sampler = SAINTSampler("edge", 1, seed=2)
    T = 4000
    seen = [tuple(sampler.sample(g, None).ndata[NID].tolist()) for _ in range(T)]
    for e in range(5):
        freq = seen.count((src[e], dst[e])) / T
        assert abs(freq - p[e]) <= 6 * np.sqrt(p[e] * (1 - p[e]) / T)
    cached = sampler.prob
    sampler.sample(g, None)
    assert sampler.prob is cached  # DGL's cache: computed once
    fresh = SAINTSampler("edge", 1, cache=False)
    fresh.sample(g, None)
    assert fresh.prob is None


def test_saint_walk_follows_out_edges():
    g = graph((np.arange(9), np.arange(1, 10)), num_nodes=10)  # a directed path
    sampler = SAINTSampler("walk", (1, 3), seed=3)
    for _ in range(20):
        nid = sampler.sample(g, None).ndata[NID]
        start = int(nid[0])
        np.testing.assert_array_equal(nid, np.arange(start, min(start + 4, 10)))


def test_saint_loader_empty_and_errors():
    g, _, _ = _random_graph(7)
    subs = list(NodeDataLoader(g, np.arange(3), SAINTSampler("node", 5, seed=0), batch_size=1))
    assert len(subs) == 3 and all(sg.num_nodes() <= 5 for sg in subs)
    empty = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=0)
    for mode, b in [("node", 3), ("edge", 3), ("walk", (2, 2))]:
        assert SAINTSampler(mode, b).sample(empty, None).num_nodes() == 0
    no_edges = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=4)
    assert SAINTSampler("edge", 3).sample(no_edges, None).num_nodes() == 0
    assert SAINTSampler("node", 0).sample(g, None).num_nodes() == 0
    with pytest.raises(ValueError, match="mode"):
        SAINTSampler("nodes", 3)
    with pytest.raises(TypeError, match="budget"):
        SAINTSampler("walk", 3)
    with pytest.raises(TypeError, match="budget"):
        SAINTSampler("node", 2.5)
    with pytest.raises(ValueError, match=r"budget\[1\]"):
        SAINTSampler("walk", (2, -1))
    with pytest.raises(ValueError, match="one node type"):
        SAINTSampler("node", 3).sample(_hetero(), None)
    with pytest.raises(KeyError, match="prefetch_edata"):
        SAINTSampler("node", 3, prefetch_edata=["nope"]).sample(g, None)


# ------------------------------------------------------------------ LABOR


def _kept_per_seed(frontier, seeds):
    d = np.asarray(frontier.edges()[1]).astype(np.int64)
    return np.array([(d == s).sum() for s in seeds])


@pytest.mark.parametrize("dtype", IDTYPES)
def test_labor_edges_exist_and_reproducible(dtype):
    g, src, dst = _random_graph(8, dtype=dtype)
    seeds = np.array([0, 1, 2, 9, 31], dtype=dtype)
    f, imp = sample_labors(g, seeds, 2, random_seed=7)
    eid = np.asarray(f.edata[EID])
    s, d = (np.asarray(a).astype(np.int64) for a in f.edges())
    np.testing.assert_array_equal(src[eid], s)
    np.testing.assert_array_equal(dst[eid], d)
    assert np.isin(d, seeds).all() and (np.diff(eid) > 0).all() and imp == [None]
    assert f.idtype == dtype and f.num_nodes() == g.num_nodes()
    f2, _ = sample_labors(g, seeds, 2, random_seed=7)
    np.testing.assert_array_equal(f2.edata[EID], eid)
    b1 = LaborSampler([2, 2], seed=4).sample_blocks(g, seeds)
    b2 = LaborSampler([2, 2], seed=4).sample_blocks(g, seeds)
    np.testing.assert_array_equal(b1[0], b2[0])
    for x, y in zip(b1[2], b2[2]):
        np.testing.assert_array_equal(x.edata[EID], y.edata[EID])
    np.testing.assert_array_equal(b1[1], seeds)
    np.testing.assert_array_equal(b1[2][-1].dstdata[NID], seeds)


def test_labor_full_fanouts_keep_everything():
    g, _, dst = _random_graph(9)
    seeds = np.arange(32)
    deg = np.bincount(dst, minlength=32)
    for fan in (-1, int(deg.max())):
        for imp_rounds in (0, 2, -1):
            f, _ = sample_labors(g, seeds, fan, random_seed=1, importance_sampling=imp_rounds)
            assert f.num_edges() == g.num_edges()
    f, _ = sample_labors(g, seeds, 0, random_seed=1)
    assert f.num_edges() == 0


@pytest.mark.parametrize("rounds", [0, 1])
def test_labor_expected_count_is_the_fanout(rounds):
    g, _, dst = _random_graph(10, n=40, m=600)
    seeds = np.arange(42)
    deg = np.bincount(dst, minlength=42)
    k, T = 5, 400
    total = np.zeros(42)
    for t in range(T):
        f, _ = sample_labors(g, seeds, k, random_seed=t, importance_sampling=rounds)
        total += _kept_per_seed(f, seeds)
    mean = total / T
    expected = np.minimum(k, deg)
    if rounds == 0:  # sum of min(1, k/d) over d edges; variance at most k per draw
        assert (np.abs(mean - expected) <= 6 * np.sqrt(np.maximum(expected, 1) / T)).all()
    else:  # importance sampling keeps at least the fan-out in expectation (the paper)
        assert (mean >= expected - 6 * np.sqrt(np.maximum(expected, 1) / T)).all()
        assert (mean <= 2 * expected + 1e-9).all()


def test_labor_edge_marginals_and_weights():
    # node 0 has 4 in-edges of weights 1, 1, 2, 0; fanout 2: P(keep) = min(1, c w) with
    # DGL's weighted c (Eq. 22 fixed point, importance_sampling bumped to 1): c = 0.4 (the
    # 0-weight edge adds its limit 0; DGL's 0 / 0 there makes c NaN: documented departure)
    g = graph((np.array([1, 2, 3, 4, 1, 2]), np.array([0, 0, 0, 0, 5, 5])), num_nodes=6)
    g.edata["w"] = np.array([1.0, 1.0, 2.0, 0.0, 1.0, 1.0])
    T = 3000
    hits = np.zeros(6)
    hits_u = np.zeros(6)
    for t in range(T):
        f, _ = sample_labors(g, np.array([0, 5]), 2, prob="w", random_seed=t)
        hits[f.edata[EID]] += 1
        f, _ = sample_labors(g, np.array([0]), 2, random_seed=t)
        hits_u[f.edata[EID]] += 1
    p = np.array([0.4, 0.4, 0.8, 0.0, 1.0, 1.0])
    assert (np.abs(hits / T - p) <= 6 * np.sqrt(p * (1 - p) / T) + 1e-9).all()
    pu = np.array([0.5, 0.5, 0.5, 0.5, 0, 0])
    assert (np.abs(hits_u / T - pu) <= 6 * np.sqrt(pu * (1 - pu) / T) + 1e-9).all()


def test_labor_shared_random_number_per_neighbour():
    # seeds 0..3 all have in-neighbours 10..19; seed s keeps t iff r_t <= c_s, so the kept
    # sets are nested by c_s = k_s / 10 (one r_t per neighbour, shared by every seed)
    src = np.tile(np.arange(10, 20), 4)
    dst = np.repeat(np.arange(4), 10)
    g = graph((src, dst), num_nodes=20)
    nested = 0
    for t in range(50):
        kept = []
        for fan in (2, 4, 6, 8):  # one call per fan-out, same random seed: the same r_t
            f, _ = sample_labors(g, np.array([0]), fan, random_seed=t)
            kept.append(set(np.asarray(f.edges()[0]).tolist()))
        nested += all(a <= b for a, b in zip(kept, kept[1:]))
        f, _ = sample_labors(g, np.arange(4), 3, random_seed=t)
        s, d = (np.asarray(a) for a in f.edges())
        sets = [set(s[d == i].tolist()) for i in range(4)]
        assert sets[0] == sets[1] == sets[2] == sets[3]  # same c_s: the same neighbours
    assert nested == 50
    # fewer distinct sampled nodes than independent per-seed sampling
    ns = NeighborSampler([3], seed=0)
    labor = LaborSampler([3], seed=0)
    n_ns = np.mean([ns.sample_blocks(g, np.arange(4))[0].shape[0] for _ in range(50)])
    n_lb = np.mean([labor.sample_blocks(g, np.arange(4))[0].shape[0] for _ in range(50)])
    assert n_lb < n_ns - 1


def test_labor_importance_weights():
    g, _, _ = _random_graph(11, n=40, m=600)
    seeds = np.arange(10)
    for rounds in (1, 3, -1):
        f, imp = sample_labors(g, seeds, 3, random_seed=0, importance_sampling=rounds)
        w = imp[0]
        assert w.shape == (f.num_edges(),) and (w > 0).all()
        d = np.asarray(f.edges()[1])
        for s in seeds:  # scaled to mean 1 per seed
            if (d == s).any():
                assert abs(w[d == s].mean() - 1) < 1e-9
    _, _, blocks = LaborSampler([3, 3], importance_sampling=2, seed=0).sample_blocks(g, seeds)
    for b in blocks:
        assert b.edata["edge_weights"].shape == (b.num_edges(),)
    g.edata["p"] = g.edata["w"] + 0.1
    f, imp = sample_labors(g, seeds, 3, prob="p", random_seed=0, importance_sampling=2)
    assert imp[0].shape == (f.num_edges(),) and np.isfinite(imp[0]).all()


def test_labor_batch_and_layer_dependency():
    g, _, _ = _random_graph(12, n=40, m=600)
    seeds = np.arange(10)

    def eids(sampler, times=3):
        return [sampler.sample_blocks(g, seeds)[2][-1].edata[EID].tolist() for _ in range(times)]

    frozen = eids(LaborSampler([3], batch_dependency=0, seed=1))
    assert frozen[0] == frozen[1] == frozen[2]  # one seed for every batch
    fresh = eids(LaborSampler([3], seed=1))
    assert fresh[0] != fresh[1]
    corr = eids(LaborSampler([3], batch_dependency=4, seed=1), 5)
    assert corr == eids(LaborSampler([3], batch_dependency=4, seed=1), 5)
    # layer_dependency: the same r_t on both layers, so the same seeds keep the same edges
    sampler = LaborSampler([3, 3], layer_dependency=True, batch_dependency=0, seed=2)
    _, _, (b0, b1) = sampler.sample_blocks(g, seeds)
    e0 = np.asarray(b0.edata[EID])
    inner = np.asarray(b1.edata[EID])
    dst0 = np.asarray(b0.dstdata[NID])[np.asarray(b0.edges()[1])]
    assert set(inner.tolist()) == set(e0[np.isin(dst0, seeds)].tolist())
    a, b = LaborSampler([3], seed=0), LaborSampler([3], seed=99)
    a.set_seed(5)
    b.set_seed(5)
    assert eids(a, 2) == eids(b, 2)


def test_labor_hetero_and_loader():
    h = _hetero(np.int32)
    fan = {"follows": 2, "played-by": 2, "plays": 1}
    inp, out, blocks = LaborSampler([fan, fan], seed=0).sample_blocks(h, {"user": np.array([0, 3])})
    np.testing.assert_array_equal(out["user"], [0, 3])
    for b in blocks:
        for c in h.canonical_etypes:
            s, d = (np.asarray(a).astype(np.int64) for a in b.edges(etype=c))
            gs, gd = (np.asarray(a).astype(np.int64) for a in h.edges(etype=c))
            eid = np.asarray(b.edges[c].data[EID])
            np.testing.assert_array_equal(gs[eid], np.asarray(b.srcnodes[c[0]].data[NID])[s])
            np.testing.assert_array_equal(gd[eid], np.asarray(b.dstnodes[c[2]].data[NID])[d])
    f, imp = sample_labors(h, {"user": np.array([1])}, 2, random_seed=0, importance_sampling=1)
    assert len(imp) == 3 and f.num_edges(etype="plays") == 0
    g, _, _ = _random_graph(13)
    batches = list(NodeDataLoader(g, np.arange(32), LaborSampler([2, 2], seed=0), batch_size=10))
    assert [o.tolist() for _, o, _ in batches][-1] == [30, 31] and len(batches) == 4


def test_labor_empty_and_errors():
    g, _, _ = _random_graph(14)
    inp, out, blocks = LaborSampler([2, 2], seed=0).sample_blocks(g, np.zeros(0, np.int64))
    assert inp.shape == (0,) and all(b.num_edges() == 0 for b in blocks)
    f, imp = sample_labors(g, np.zeros(0, np.int32), 2, random_seed=0, importance_sampling=1)
    assert f.num_edges() == 0 and imp[0].shape == (0,)
    with pytest.raises(TypeError, match="fanouts"):
        LaborSampler(3)
    with pytest.raises(ValueError, match="edge_dir"):
        LaborSampler([3], edge_dir="up")
    with pytest.raises(ValueError, match="importance_sampling"):
        LaborSampler([3], importance_sampling=-2)
    with pytest.raises(TypeError, match="prob"):
        LaborSampler([3], prob=3)
    with pytest.raises(TypeError, match="batch_dependency"):
        LaborSampler([3], batch_dependency=1.5)
    with pytest.raises(ValueError, match="seed2_contribution"):
        sample_labors(g, np.array([0]), 2, random_seed=0, seed2_contribution=2.0)
    with pytest.raises(TypeError, match="random_seed"):
        sample_labors(g, np.array([0]), 2, random_seed="a")
    with pytest.raises(KeyError, match="prob"):
        sample_labors(g, np.array([0]), 2, prob="nope")
    g.edata["neg"] = -np.ones(g.num_edges())
    with pytest.raises(ValueError, match="non-negative"):
        sample_labors(g, np.array([0]), 2, prob="neg")
    with pytest.raises(ValueError, match="seed nodes"):
        sample_labors(g, np.array([40]), 2)
    with pytest.raises(ValueError, match="fanout"):
        sample_labors(g, np.array([0]), -5)
    with pytest.raises(ValueError, match="several types"):
        sample_labors(_hetero(), np.array([0]), 2)
