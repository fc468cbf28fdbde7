"""Parity sweep (session 13): DGL's LABOR sampling with edge weights, SAINTSampler and
to_block, on options the earlier sampler tests do not reach.

DGL is not installable here; the references below are NumPy re-derivations of its sources
(dmlc/dgl at 3d16000b):
- ``src/array/cpu/labor_pick.h`` (``CSRLaborPick``, ``compute_importance_sampling_
  probabilities``), ``src/array/cuda/labor_sampling.cu`` (the same rules on the GPU),
  ``src/graph/sampling/neighbor/neighbor.cc`` (``SampleLabors``),
  ``python/dgl/sampling/labor.py``, ``python/dgl/dataloading/labor_sampler.py``;
- ``python/dgl/dataloading/graphsaint.py``;
- ``python/dgl/transforms/to_block.py``.
LABOR's random numbers ``r_t`` cannot be DGL's (PCG32), so the reference takes arraygnn's
``r_t`` and re-derives DGL's deterministic rest exactly: which edges ``r_t <= min(1, c_s pi)``
keeps and the ``edge_weights`` formula. The other random parts are checked by invariants.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import EID, NID, graph, heterograph, to_block
from arraygnn.labor_sampler import LaborSampler, _rolled, sample_labors
from arraygnn.saint_sampler import SAINTSampler

EPS = 1e-4  # labor_pick.h's eps


def _dgl_labor(src, dst, n, seeds, fanout, w, rounds, r, edge_dir="in"):
    """DGL's ``CSRLaborPick`` for one relation: ``{edge id: edge weight or None}``.

    ``r[v]`` is the rolled number of node ``v``; rows (seeds) list their edges in edge-id
    order, as DGL's CSC / CSR."""
    row_of, nbr_of = (dst, src) if edge_dir == "in" else (src, dst)
    rows = [np.nonzero(row_of == s)[0] for s in seeds]
    weighted = w is not None
    if fanout < 0:  # neighbor.cc: max(#dst, #src) nodes
        fanout = n
    if rounds >= 0:  # "one more iteration is needed" when weighted
        rounds += weighted

    def a(e):
        return float(w[e]) if weighted else 1.0

    ds = [sum(a(e) for e in row) if weighted else float(len(row)) for row in rows]
    cs = [fanout / d if d else np.inf for d in ds]
    hop: dict[int, float] = {}
    if rounds:
        prev = max([1] + [len(row) for row in rows]) * len(rows)
        it = 0
        while it < rounds or rounds < 0:
            if not weighted or it:
                hop2: dict[int, float] = {}
                for i, row in enumerate(rows):
                    for e in row:
                        ct = cs[i] * (a(e) if weighted and it == 1 else 1.0)
                        v = int(nbr_of[e])
                        hop2[v] = max(ct, hop2.get(v, ct))
                if not hop:
                    hop = hop2
                else:  # Eq. 18
                    for v, x in hop2.items():
                        hop[v] *= x
            for i, row in enumerate(rows):
                d = len(row)
                if d == 0:
                    continue
                k = min(fanout, d)
                ps = [a(e) if not hop else hop[int(nbr_of[e])] for e in row]
                target = ds[i] ** 2 / k
                if weighted:
                    target += -(ds[i] ** 2) / d + sum(a(e) ** 2 for e in row)
                c = cs[i]
                while True:  # Eq. 22 by fixed point (a do-while in DGL)
                    if weighted:  # a 0 weight adds its limit 0 (DGL's 0 / 0 is NaN)
                        var1 = sum(
                            a(e) ** 2 / min(1.0, c * p) if a(e) > 0 else 0.0
                            for e, p in zip(row, ps)
                        )
                    else:
                        var1 = sum(1.0 / min(1.0, c * p) for p in ps)
                    c *= var1 / target
                    if min(var1, target) / max(var1, target) >= 1 - EPS:
                        break
                cs[i] = c
            if not weighted or it:
                cur = sum(min(1.0, x) for x in hop.values())
                if cur / prev >= 1 - EPS:
                    break
                prev = cur
            it += 1
    out: dict[int, float | None] = {}
    for i, row in enumerate(rows):
        kept = []
        for e in row:
            v = int(nbr_of[e])
            ps = min(1.0, cs[i] * (hop[v] if rounds - weighted else a(e)))
            if r[v] <= ps:
                kept.append((int(e), a(e) / ps))
        total = sum(x for _, x in kept)
        for e, x in kept:
            out[e] = x * len(kept) / total if rounds else None
    return out


def _weighted_graph(seed, n=12, m=60, zeros=True):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m) + 0.05
    if zeros:
        w[rng.random(m) < 0.2] = 0.0
    g = graph((src, dst), num_nodes=n)
    g.edata["w"] = w
    return g, src, dst, w


def _seeds_with_weight(src, dst, w, n, edge_dir):
    """Seeds with at least one edge of positive weight (DGL's c is NaN for the others)."""
    row_of = dst if edge_dir == "in" else src
    return np.array([s for s in range(n) if (w[row_of == s] > 0).any()][:6])


# ------------------------------------------------------------------------- LABOR


@pytest.mark.parametrize("edge_dir", ["in", "out"])
@pytest.mark.parametrize("rounds", [0, 1, 3, -1])
@pytest.mark.parametrize("weighted", [False, True])
def test_sample_labors_picks_and_weights_match_dgl(weighted, rounds, edge_dir):
    g, src, dst, w = _weighted_graph(int(weighted) * 10 + rounds + 2 + (edge_dir == "out"))
    seeds = _seeds_with_weight(src, dst, w, 12, edge_dir)
    rseed = 17 + rounds
    f, imp = sample_labors(
        g,
        seeds,
        3,
        edge_dir=edge_dir,
        prob="w" if weighted else None,
        importance_sampling=rounds,
        random_seed=rseed,
    )
    r = _rolled(np, (rseed, rseed), 0.0, np.arange(12))
    ref = _dgl_labor(src, dst, 12, seeds, 3, w if weighted else None, rounds, r, edge_dir)
    eid = np.asarray(f.edata[EID])
    np.testing.assert_array_equal(eid, sorted(ref))
    if rounds == 0 and not weighted:
        assert imp == [None]
    else:  # DGL: importances whenever importance_sampling != 0 or prob is given
        np.testing.assert_allclose(imp[0], [ref[e] for e in eid], rtol=1e-6)


def test_sample_labors_batch_dependency_seed_pair_matches_dgl():
    g, src, dst, w = _weighted_graph(30)
    seeds = _seeds_with_weight(src, dst, w, 12, "in")
    f, imp = sample_labors(g, seeds, 2, prob="w", random_seed=[5, 9], seed2_contribution=0.25)
    r = _rolled(np, (5, 9), 0.25, np.arange(12))
    ref = _dgl_labor(src, dst, 12, seeds, 2, w, 0, r)
    np.testing.assert_array_equal(f.edata[EID], sorted(ref))
    np.testing.assert_allclose(imp[0], [ref[e] for e in sorted(ref)], rtol=1e-6)


def test_weighted_labor0_uses_dgl_fixed_point_c():
    # node 0: in-edge weights 1, 1, 2, 0, fanout 2. DGL bumps importance_sampling to 1
    # when weighted: c solves sum w^2 / min(1, c w) = 16/2 - 16/4 + 6, so c = 0.4 and
    # P(keep) = 0.4, 0.4, 0.8, 0 (not min(1, 2 w / 4) = 0.5, 0.5, 1, 0); the 0-weight
    # edge adds its limit 0 to the sum (DGL's 0 / 0 there makes c NaN: documented)
    g = graph((np.array([1, 2, 3, 4]), np.zeros(4, np.int64)), num_nodes=5)
    g.edata["w"] = np.array([1.0, 1.0, 2.0, 0.0])
    hits = np.zeros(4)
    T = 1500
    for t in range(T):
        f, imp = sample_labors(g, np.array([0]), 2, prob="w", random_seed=t)
        hits[f.edata[EID]] += 1
        if f.num_edges():
            assert abs(imp[0].mean() - 1) < 1e-12  # mean 1 per seed, as DGL
    p = np.array([0.4, 0.4, 0.8, 0.0])
    assert (np.abs(hits / T - p) <= 6 * np.sqrt(p * (1 - p) / T) + 1e-9).all()


def test_all_zero_weight_seed_keeps_nothing():
    # documented departure: DGL's c_s is 0 / 0 = NaN there (its CUDA kernel keeps none,
    # its CPU kernel's count and picks disagree); arraygnn keeps none
    g = graph((np.array([1, 2, 3, 1]), np.array([0, 0, 0, 4])), num_nodes=5)
    g.edata["w"] = np.array([0.0, 0.0, 0.0, 1.0])
    for rounds in (0, 2, -1):
        f, imp = sample_labors(
            g, np.array([0, 4]), 2, prob="w", importance_sampling=rounds, random_seed=1
        )
        assert np.asarray(f.edata[EID]).tolist() == [3]
        np.testing.assert_allclose(imp[0], [1.0])


@pytest.mark.parametrize("rounds", [0, 2])
def test_labor_sampler_with_prob_sets_edge_weights(rounds):
    g, src, dst, w = _weighted_graph(40, n=20, m=120)
    seeds = np.arange(6)
    sampler = LaborSampler([3, 2], prob="w", importance_sampling=rounds, seed=3)
    rseed = sampler._seeds[0]  # the batch seed, layer 0 from the output uses it as is
    _, _, blocks = sampler.sample_blocks(g, seeds)
    for b in blocks:
        ew = np.asarray(b.edata["edge_weights"])
        assert ew.shape == (b.num_edges(),) and ew.dtype == np.float64
    last = blocks[-1]
    r = _rolled(np, (rseed, rseed), 0.0, np.arange(20))
    ref = _dgl_labor(src, dst, 20, seeds, 2, w, rounds, r)
    eid = np.asarray(last.edata[EID])
    np.testing.assert_array_equal(np.sort(eid), sorted(ref))
    np.testing.assert_allclose(last.edata["edge_weights"], [ref[e] for e in eid], rtol=1e-6)
    # unweighted LABOR-0 sets none (DGL: importances are a null array, not used)
    _, _, blocks = LaborSampler([3], seed=3).sample_blocks(g, seeds)
    assert "edge_weights" not in blocks[0].edata


def test_labor_hetero_prob_on_one_edge_type_and_exclude():
    rng = np.random.default_rng(5)
    h = heterograph(
        {
            ("u", "a", "u"): (rng.integers(0, 6, 30), rng.integers(0, 6, 30)),
            ("v", "b", "u"): (rng.integers(0, 4, 20), rng.integers(0, 6, 20)),
        },
        {"u": 6, "v": 4},
    )
    h.edges["a"].data["w"] = rng.random(30) + 0.1
    f, imp = sample_labors(h, {"u": np.arange(6)}, 2, prob="w", random_seed=2)
    # DGL (labor.py): a type without the feature is unweighted; neighbor.cc: one entry per
    # edge type, importances only where weighted (or importance_sampling != 0)
    ca, cb = ("u", "a", "u"), ("v", "b", "u")
    assert imp[h.canonical_etypes.index(cb)] is None
    ia = imp[h.canonical_etypes.index(ca)]
    assert ia.shape == (f.num_edges(etype=ca),)
    _, _, (b,) = LaborSampler([2], prob="w", seed=0).sample_blocks(h, {"u": np.arange(6)})
    assert "edge_weights" in b.edges[ca].data and "edge_weights" not in b.edges[cb].data
    # exclude_edges after the weights (neighbor.cc ExcludeCertainEdges): not re-normalised
    e_all = np.asarray(f.edges[ca].data[EID])
    f2, imp2 = sample_labors(
        h, {"u": np.arange(6)}, 2, prob="w", random_seed=2, exclude_edges={ca: e_all[:2]}
    )
    np.testing.assert_array_equal(f2.edges[ca].data[EID], e_all[2:])
    np.testing.assert_allclose(imp2[h.canonical_etypes.index(ca)], ia[2:])


# ------------------------------------------------------------------------- SAINT


def _induced(g, sg):
    s, d = (np.asarray(x).astype(np.int64) for x in g.edges())
    nid = np.asarray(sg.ndata[NID]).astype(np.int64)
    eid = np.asarray(sg.edata[EID]).astype(np.int64)
    u, v = (np.asarray(x) for x in sg.edges())
    np.testing.assert_array_equal(nid[u], s[eid])
    np.testing.assert_array_equal(nid[v], d[eid])
    inside = np.isin(s, nid) & np.isin(d, nid)
    np.testing.assert_array_equal(np.sort(eid), np.nonzero(inside)[0])
    np.testing.assert_array_equal(sg.edata["w"], g.edata["w"][eid])
    return nid, u, v


@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_saint_edge_mode_every_node_has_an_edge(idtype):
    # graphsaint.py edge_sampler: the nodes are the ends of the sampled edges, so each
    # one has an edge in the induced subgraph
    g, _, _, _ = _weighted_graph(50, n=30, m=40, zeros=False)
    g = graph(tuple(np.asarray(x).astype(idtype) for x in g.edges()), num_nodes=30)
    g.edata["w"] = np.arange(40.0)
    sampler = SAINTSampler("edge", np.int64(6), seed=0)
    for _ in range(5):
        sg = sampler.sample(g, None)
        nid, u, v = _induced(g, sg)
        assert sg.idtype == idtype and sg.edata[EID].dtype == idtype
        assert len(nid) <= 12
        assert np.isin(np.arange(len(nid)), np.concatenate([u, v])).all()


def test_saint_walk_dead_ends_and_zero_length():
    # a path 0 -> 1 -> 2 (2 a dead end) and node 3 alone; walks stop at a dead end and
    # pack_traces drops DGL's -1 padding
    g = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=4)
    g.edata["w"] = np.array([1.0, 2.0])
    sampler = SAINTSampler("walk", [3, 5], seed=1)
    for _ in range(10):
        nid, _, _ = _induced(g, sampler.sample(g, None))
        assert nid.max() <= 3 and (nid != -1).all()
        if 0 in nid:
            assert {1, 2} <= set(nid.tolist())
    roots_only = SAINTSampler("walk", (2, 0), seed=2)
    for _ in range(5):
        sg = roots_only.sample(g, None)
        assert 1 <= sg.num_nodes() <= 2
    assert SAINTSampler("walk", (0, 4), seed=0).sample(g, None).num_nodes() == 0
    assert SAINTSampler("edge", 0, seed=0).sample(g, None).num_nodes() == 0


def test_saint_cache_on_another_graph_is_a_clear_error():
    # DGL reuses the cached probabilities whatever graph comes next (node ids / edge ids
    # of the first graph): a graph of another size fails inside torch / subgraph there
    g1 = graph((np.arange(9), np.arange(1, 10)), num_nodes=10)
    g2 = graph((np.array([0, 1]), np.array([1, 2])), num_nodes=3)
    g3 = graph((np.arange(9)[::-1], np.arange(1, 10)), num_nodes=10)  # same sizes
    for mode in ("node", "edge"):
        sampler = SAINTSampler(mode, 5, seed=0)
        sampler.sample(g1, None)
        with pytest.raises(ValueError, match="cache"):
            sampler.sample(g2, None)
        sampler.sample(g3, None)  # same sizes: reused, as DGL
        assert SAINTSampler(mode, 5, cache=False, seed=0).sample(g2, None).num_nodes() <= 5 * (
            1 + (mode == "edge")
        )
    with pytest.raises(KeyError, match="prefetch_ndata"):
        SAINTSampler("node", 3, prefetch_ndata=["nope"]).sample(g1, None)
    with pytest.raises(TypeError, match="budget"):
        SAINTSampler("edge", (3, 2))
    with pytest.raises(TypeError, match="budget"):
        SAINTSampler("walk", (3, 2, 1))


# ------------------------------------------------------------------------- to_block


def _dgl_to_block_ids(src_by_type, dst_ids, include_dst_in_src):
    """DGL's ToBlock numbering: dst nodes first (if included), then each edge type's
    sources in edge order, first appearance."""
    out = list(dst_ids) if include_dst_in_src else []
    for s in src_by_type:
        for x in np.asarray(s).tolist():
            if x not in out:
                out.append(x)
    return out


@pytest.mark.parametrize("include_dst_in_src", [True, False])
def test_to_block_hetero_dst_none_and_isolated_dst(include_dst_in_src):
    ab = (np.array([3, 1, 3, 0]), np.array([2, 0, 2, 1]))
    bb = (np.array([1, 2]), np.array([0, 0]))
    h = heterograph({("A", "r", "B"): ab, ("B", "s", "B"): bb}, {"A": 5, "B": 4})
    h.edges["r"].data["x"] = np.arange(4.0)
    # dst_nodes=None: each type's nodes with an in-edge, sorted (F.unique); A has none
    b = to_block(h, include_dst_in_src=include_dst_in_src)
    assert b.dstnodes["B"].data[NID].tolist() == [0, 1, 2]
    assert b.dstnodes["A"].data[NID].tolist() == []
    assert b.srcnodes["A"].data[NID].tolist() == _dgl_to_block_ids([ab[0]], [], True)
    assert b.srcnodes["B"].data[NID].tolist() == _dgl_to_block_ids(
        [bb[0]], [0, 1, 2], include_dst_in_src
    )
    # an isolated dst node (B 3) stays a dst node; a type missing from the dict has none
    b = to_block(h, {"B": np.array([3, 2, 1, 0])}, include_dst_in_src=include_dst_in_src)
    assert b.dstnodes["B"].data[NID].tolist() == [3, 2, 1, 0]
    assert b.num_dst_nodes("A") == 0
    expect_b = _dgl_to_block_ids([bb[0]], [3, 2, 1, 0], include_dst_in_src)
    assert b.srcnodes["B"].data[NID].tolist() == expect_b
    for c, (s, d) in ((("A", "r", "B"), ab), (("B", "s", "B"), bb)):
        u, v = (np.asarray(x) for x in b.edges(etype=c))
        np.testing.assert_array_equal(b.srcnodes[c[0]].data[NID][u], s)  # edge order kept
        np.testing.assert_array_equal(b.dstnodes[c[2]].data[NID][v], d)
        np.testing.assert_array_equal(b.edges[c].data[EID], np.arange(len(s)))
    np.testing.assert_array_equal(b.edges["r"].data["x"], np.arange(4.0))
    with pytest.raises(ValueError, match="dst_nodes"):
        to_block(h, {"B": np.array([0, 1])})  # edges into B 2


def test_to_block_of_a_frontier_keeps_the_graph_edge_ids():
    # documented: edata[EID] is the frontier's EID (DGL's to_block overwrites it with the
    # frontier's own edge ids; DGL's samplers then put the frontier's back)
    g, src, dst, _ = _weighted_graph(60, zeros=False)
    f, _ = sample_labors(g, np.array([0, 1, 2]), 2, random_seed=0)
    b = to_block(f, np.array([2, 0, 1]), include_dst_in_src=False)
    eid = np.asarray(b.edata[EID])
    np.testing.assert_array_equal(eid, f.edata[EID])
    u, v = (np.asarray(x) for x in b.edges())
    np.testing.assert_array_equal(b.srcdata[NID][u], src[eid])
    np.testing.assert_array_equal(b.dstdata[NID][v], dst[eid])
    assert b.srcdata[NID].tolist() == _dgl_to_block_ids([src[eid]], [], False)
