"""Parity sweep (session 13) of DGL's sampling functions the session-11 sweep did not reach,
against DGL's sources (read, not run; DGL is not installed):
``python/dgl/sampling/{randomwalks,node2vec_randomwalk,negative,neighbor}.py``,
``src/graph/sampling/randomwalks/{randomwalks_cpu.h,metapath_randomwalk.h,
randomwalk_with_restart_cpu.cc,node2vec_randomwalk.h}`` and DGL's own
``tests/python/common/sampling/test_sampling.py`` (``check_random_walk``).
Random parts are checked by seeded invariants: every step is an edge of its type whose id
is the returned eid, zero-probability edges are never taken, a stopped walk is ``-1`` to
the end, a per-step restart of 1 stops every walk there (DGL's ``GenericRandomWalk``
overwrites the stopped step with ``-1``)."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import EID, heterograph
from arraygnn.random_walks import node2vec_random_walk, pack_traces, random_walk
from arraygnn.sampling import global_uniform_negative_sampling, sample_neighbors

IDTYPES = [np.int32, np.int64]


def _g4(dtype=np.int64):
    # DGL's test graph g4 (test_non_uniform_random_walk), plus an isolated user 4 / item 3
    d = {
        ("user", "follow", "user"): ([0, 1, 1, 2, 3], [1, 2, 3, 0, 0]),
        ("user", "view", "item"): ([0, 0, 1, 2, 3, 3], [0, 1, 1, 2, 2, 1]),
        ("item", "viewed-by", "user"): ([0, 1, 1, 2, 2, 1], [0, 0, 1, 2, 3, 3]),
    }
    d = {k: (np.array(s, dtype), np.array(t, dtype)) for k, (s, t) in d.items()}
    g = heterograph(d, num_nodes_dict={"user": 5, "item": 4})
    g.edges["follow"].data["p"] = np.array([3, 0, 3, 3, 3], np.float32)  # 1 -> 2 never
    g.edges["viewed-by"].data["p"] = np.ones(6, np.float64)
    return g


def _check_walks(g, metapath, traces, eids, types, prob=None):
    """DGL's ``check_random_walk`` plus the padding rule (stopped: -1 to the end)."""
    for j, et in enumerate(metapath):
        c = g.to_canonical_etype(et)
        assert types[j] == g.ntypes.index(c[0]) and types[j + 1] == g.ntypes.index(c[2])
        src, dst = (np.asarray(a) for a in g.edges(etype=c))
        taken = eids[:, j] >= 0
        assert ((traces[:, j + 1] >= 0) == taken).all()
        e = eids[taken, j]
        assert (src[e] == traces[taken, j]).all() and (dst[e] == traces[taken, j + 1]).all()
        if prob is not None and prob in g.edges[c].data:
            assert (g.edges[c].data[prob][e] != 0).all()
    stopped = traces == -1
    assert (stopped[:, 1:] >= stopped[:, :-1]).all()


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("restart", [None, 0.0, 0.3, "steps"])
def test_metapath_walk_prob_restart_and_eids(dtype, restart):
    g = _g4(dtype)
    metapath = ["follow", ("user", "view", "item"), "viewed-by"] * 2
    seeds = np.array([0, 1, 2, 3, 4] * 40, dtype=dtype)
    if restart == "steps":  # DGL's example: restarts only after a 'view' step (float32)
        restart = np.array([0, 0.5, 0, 0, 0.5, 0], np.float32)
    traces, eids, types = random_walk(
        g, seeds, metapath=metapath, prob="p", restart_prob=restart, return_eids=True, seed=1
    )
    assert traces.shape == (200, 7) and eids.shape == (200, 6) and types.shape == (7,)
    assert traces.dtype == eids.dtype == types.dtype == dtype  # DGL: ids and types in idtype
    # node types sorted, as DGL's heterograph: ['item', 'user'] (DGL's docstring shows an
    # older numbering)
    np.testing.assert_array_equal(types, [1, 1, 0, 1, 1, 0, 1])
    _check_walks(g, metapath, traces, eids, types, prob="p")
    np.testing.assert_array_equal(traces[:, 0], seeds)
    assert (traces[seeds == 4, 1:] == -1).all()  # isolated user: stops at its seed
    if restart is None or (
        isinstance(restart, float) and restart == 0.0
    ):  # without restarts only dead ends stop a walk
        assert (traces[seeds != 4] != -1).all()
    else:
        assert (traces[seeds != 4] == -1).any()
    if isinstance(restart, np.ndarray):  # no restart coin before a 'follow' / 'viewed-by' step
        assert (traces[seeds != 4, 1] != -1).all()


@pytest.mark.parametrize("dtype", IDTYPES)
def test_stepwise_restart_one_stops_at_that_step(dtype):
    # DGL's test: metapath + ['follow'], restart [0]*6 + [1]: column 7 is -1, the rest a walk
    g = _g4(dtype)
    metapath = ["follow", "view", "viewed-by"] * 2 + ["follow"]
    seeds = np.array([0, 1, 2, 3, 0, 1, 2, 3], dtype=dtype)
    traces, eids, types = random_walk(
        g,
        seeds,
        metapath=metapath,
        prob="p",
        restart_prob=np.array([0, 0, 0, 0, 0, 0, 1], np.float32),
        return_eids=True,
        seed=0,
    )
    _check_walks(g, metapath, traces, eids, types, prob="p")
    assert (traces[:, :7] != -1).all() and (traces[:, 7] == -1).all() and (eids[:, 6] == -1).all()


def test_random_walk_documented_departures():
    g = _g4()
    # DGL ignores `length` when a metapath is given; arraygnn refuses the pair (documented)
    with pytest.raises(ValueError, match="mutually exclusive"):
        random_walk(g, [0], metapath=["follow"], length=3)
    # DGL walks uniformly when no relation has `prob`; arraygnn raises (documented)
    with pytest.raises(KeyError, match="no edge type on the metapath has the feature 'q'"):
        random_walk(g, [0], metapath=["follow"], prob="q")
    # also when another relation of the graph has it ('viewed-by'; DGL: uniform walks)
    with pytest.raises(KeyError, match="no edge type on the metapath has the feature 'p'"):
        random_walk(g, [0], metapath=["view"], prob="p")
    # a relation of the metapath without `prob` is walked uniformly, as DGL
    traces, eids, _ = random_walk(
        g, np.full(300, 2), metapath=["follow", "view"], prob="p", return_eids=True, seed=0
    )
    assert (eids[:, 0] == 3).all() and set(eids[:, 1].tolist()) == {0, 1}
    with pytest.raises(ValueError, match="does not match the destination"):
        random_walk(g, [0], metapath=["follow", "viewed-by"])
    with pytest.raises(ValueError, match=r"restart_prob must be in \[0, 1\)"):
        random_walk(g, [0], metapath=["follow"], restart_prob=1.0)  # DGL's CHECK
    with pytest.raises(ValueError, match="one value per step"):
        random_walk(g, [0], metapath=["follow"] * 2, restart_prob=np.zeros(3))
    with pytest.raises(ValueError, match="not homogeneous"):
        random_walk(g, [0], length=2)
    with pytest.raises(ValueError, match=r"outside \[0, 4\)"):  # seeds of the type 'item'
        random_walk(g, [4], metapath=["viewed-by"])


@pytest.mark.parametrize("dtype", IDTYPES)
def test_pack_traces_of_metapath_walks(dtype):
    g = _g4(dtype)
    metapath = ["follow", "view", "viewed-by"] * 2
    traces, types = random_walk(
        g, np.array([0, 4, 1, 2, 3] * 4, dtype), metapath=metapath, restart_prob=0.4, seed=3
    )
    vids, vtypes, lengths, offsets = pack_traces(traces, types)
    ref = [t[: (list(t).index(-1) if -1 in t else len(t))] for t in traces]
    np.testing.assert_array_equal(vids, np.concatenate(ref))
    np.testing.assert_array_equal(vtypes, np.concatenate([types[: len(r)] for r in ref]))
    np.testing.assert_array_equal(lengths, [len(r) for r in ref])
    np.testing.assert_array_equal(offsets, np.cumsum([0] + [len(r) for r in ref])[:-1])
    assert vids.dtype == vtypes.dtype == dtype and lengths.dtype == offsets.dtype == np.int64


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("p,q", [(1.0, 1.0), (0.25, 4.0), (4.0, 0.25)])
def test_node2vec_prob_with_zeros_and_eids(dtype, p, q):
    # DGL's test_node2vec: g2 with p = [3, 0, 3, 3, 3]; plus an isolated node 4
    s = np.array([0, 1, 1, 2, 3], dtype)
    d = np.array([1, 2, 3, 0, 0], dtype)
    g = heterograph({("user", "follow", "user"): (s, d)}, num_nodes_dict={"user": 5})
    g.edata["p"] = np.array([3, 0, 3, 3, 3], np.float32)
    seeds = np.array([0, 1, 2, 3, 4] * 20, dtype)
    traces, eids = node2vec_random_walk(g, seeds, p, q, 6, prob="p", return_eids=True, seed=2)
    assert traces.shape == (100, 7) and eids.shape == (100, 6)
    assert traces.dtype == eids.dtype == dtype
    _check_walks(g, ["follow"] * 6, traces, eids, np.zeros(7, np.int64), prob="p")
    assert (traces[seeds == 4, 1:] == -1).all() and (traces[seeds != 4] != -1).all()
    assert not (eids == 1).any()  # the 0-probability edge 1 -> 2
    # positional prob / return_eids (DGL's order), walk_length 0
    t0 = node2vec_random_walk(g, seeds[:3], p, q, 0, "p", False, seed=0)
    np.testing.assert_array_equal(t0, seeds[:3, None])


def test_node2vec_errors():
    g = _g4()
    with pytest.raises(ValueError, match="homogeneous"):
        node2vec_random_walk(g, [0], 1.0, 1.0, 2)
    h = heterograph({("a", "r", "a"): (np.array([0]), np.array([1]))})
    h.edata["w"] = np.array([-1.0])
    with pytest.raises(ValueError, match="non-negative"):
        node2vec_random_walk(h, [0], 1.0, 1.0, 2, prob="w")
    with pytest.raises(ValueError, match="walk_length must be >= 0"):
        node2vec_random_walk(h, [0], 1.0, 1.0, -1)


# ------------------------------------------------- global_uniform_negative_sampling


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.parametrize("exclude_self_loops", [False, True])
def test_negative_sampling_options_on_a_heterograph(dtype, replace, exclude_self_loops):
    g = _g4(dtype)
    first = g.canonical_etypes[0]
    cases = [(None, (first[0], first[2])), ("view", ("user", "item")), ("follow", ("user", "user"))]
    for etype, (ut, vt) in cases:
        # etype=None: DGL's g.etypes[0] (the first canonical edge type)
        src, dst = global_uniform_negative_sampling(
            g, 12, exclude_self_loops, replace, etype, redundancy=2.0, seed=4
        )
        c = g.to_canonical_etype(etype if etype is not None else g.canonical_etypes[0])
        assert (c[0], c[2]) == (ut, vt) and src.dtype == dst.dtype == dtype
        assert 0 < src.shape[0] <= 12 and src.shape == dst.shape
        assert (src < g.num_nodes(ut)).all() and (dst < g.num_nodes(vt)).all()
        assert not g.has_edges_between(src, dst, etype=c).any()
        if exclude_self_loops and ut == vt:
            assert (src != dst).all()
        if not replace:  # sorted unique pairs (DGL: sort + unique)
            keys = src.astype(np.int64) * g.num_nodes(vt) + dst
            assert (np.diff(keys) > 0).all()


def test_negative_sampling_bad_arguments():
    g = _g4()
    with pytest.raises(KeyError):
        global_uniform_negative_sampling(g, 3, etype="nope")
    with pytest.raises(ValueError, match="redundancy must be >= 0"):
        global_uniform_negative_sampling(g, 3, redundancy=-1.0)
    with pytest.raises(TypeError, match="num_samples must be an int"):
        global_uniform_negative_sampling(g, 3.0)


# ------------------------------------------------------------------- sample_neighbors


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("edge_dir", ["in", "out"])
@pytest.mark.parametrize("replace", [False, True])
def test_sample_neighbors_hetero_fanout_dict_exclude_mask(dtype, edge_dir, replace):
    g = _g4(dtype)
    g.edges["view"].data["m"] = np.array([True, False, True, True, False, True])
    g.ndata["h"] = {"user": np.arange(5.0), "item": np.arange(4.0)}
    fanout = {"follow": -1, "view": 1, "viewed-by": 0}
    seeds = {"user": [0, 1, 3], "item": [1, 2]}
    excl = {"follow": np.array([0, 4], dtype), ("user", "view", "item"): [2]}
    f = sample_neighbors(
        g, seeds, fanout, edge_dir, "m", replace, False, False, exclude_edges=excl, seed=5
    )
    side = 1 if edge_dir == "in" else 0
    for c in g.canonical_etypes:
        e = f.edges[c].data[EID]
        assert e.dtype == dtype and f.edges[c].data.keys() == {EID}
        u, v = (np.asarray(a) for a in g.find_edges(e, etype=c))
        fu, fv = (np.asarray(a) for a in f.edges(etype=c))
        np.testing.assert_array_equal(fu, u)  # every picked edge is that edge of g
        np.testing.assert_array_equal(fv, v)
        seed_nodes = np.asarray(seeds[c[2] if edge_dir == "in" else c[0]])
        ends = (u, v)[side]
        assert np.isin(ends, seed_nodes).all()
        if c[1] == "viewed-by":
            assert e.size == 0  # fanout 0
        if c[1] == "follow":  # -1: every non-excluded edge of the seeds, once, even with replace
            all_e = np.nonzero(np.isin(np.asarray(g.edges(etype=c))[side], seed_nodes))[0]
            np.testing.assert_array_equal(np.sort(e), np.setdiff1d(all_e, [0, 4]))
        if c[1] == "view":  # mask: only marked edges; at most one per seed; not edge 2
            assert g.edges[c].data["m"][e].all() and not (e == 2).any()
            assert np.bincount(ends, minlength=5).max() <= 1
            if not replace:
                assert len(set(e.tolist())) == e.size
    assert "h" not in f.nodes["user"].data  # copy_ndata=False
    assert f.num_nodes("user") == 5 and f.num_nodes("item") == 4


def test_sample_neighbors_hetero_bad_arguments():
    g = _g4()
    with pytest.raises(ValueError, match="fan-out must be specified for each edge type"):
        sample_neighbors(g, {"user": [0]}, {"follow": 1})
    with pytest.raises(ValueError, match="several edge types"):
        sample_neighbors(g, {"user": [0]}, 1, exclude_edges=[0])
    with pytest.raises(ValueError, match="must be -1"):
        sample_neighbors(g, {"user": [0]}, {"follow": -2, "view": 1, "viewed-by": 1})
    with pytest.raises(ValueError, match="edge_dir"):
        sample_neighbors(g, {"user": [0]}, 1, edge_dir="both")


# ---------------------------------------------------------- ClusterGCN / SAINT / LABOR


@pytest.mark.parametrize("dtype", IDTYPES)
def test_cluster_gcn_sample_keeps_the_partitions_order(dtype):
    # DGL's ClusterGCNSampler.sample: g.subgraph(cat(partition nodes in the order given))
    from arraygnn.cluster_gcn_sampler import ClusterGCNSampler
    from arraygnn.graph import NID, graph

    rng = np.random.default_rng(0)
    s, d = rng.integers(0, 8, 20).astype(dtype), rng.integers(0, 8, 20).astype(dtype)
    g = graph((s, d), num_nodes=8)
    part = np.array([1, 0, 1, 2, 0, 2, 1, 0])
    sampler = ClusterGCNSampler(g, 3, cache_path=None, partition=part)
    sg = sampler.sample(g, np.array([2, 0]))
    nodes = np.concatenate([np.nonzero(part == 2)[0], np.nonzero(part == 0)[0]])
    assert sorted(sg.ndata[NID].tolist()) == sorted(nodes.tolist())
    inside = np.isin(s, nodes) & np.isin(d, nodes)
    assert sorted(sg.edata["_ID"].tolist()) == np.nonzero(inside)[0].tolist()
    u, v = (np.asarray(a) for a in sg.edges())
    np.testing.assert_array_equal(sg.ndata[NID][u], s[sg.edata["_ID"]])
    np.testing.assert_array_equal(sg.ndata[NID][v], d[sg.edata["_ID"]])


@pytest.mark.parametrize("importance_sampling", [0, -1, 2])
@pytest.mark.parametrize("layer_dependency", [False, True])
def test_labor_sampler_blocks_are_edges_of_g(importance_sampling, layer_dependency):
    from arraygnn.graph import NID, graph
    from arraygnn.labor_sampler import LaborSampler

    rng = np.random.default_rng(1)
    s, d = rng.integers(0, 30, 150), rng.integers(0, 30, 150)
    g = graph((s, d), num_nodes=30)
    g.edata["w"] = rng.random(150) * (rng.random(150) > 0.3)  # zeros included
    sampler = LaborSampler(
        [3, 2],
        prob="w",
        importance_sampling=importance_sampling,
        layer_dependency=layer_dependency,
        seed=0,
    )
    _, _, blocks = sampler.sample(g, np.arange(5))
    for b in blocks:
        e = b.edata[EID]
        zero = g.edata["w"][e] == 0
        # DGL's labor_pick.h: ps = min(1, c * w) without importance sampling (a 0-weight
        # edge never), min(1, c * pi[v]) with it (per neighbour: a 0-weight edge may come,
        # with edge weight w / ps = 0)
        if importance_sampling == 0:
            assert not zero.any()
        else:
            # NaN where a seed kept only 0-weight edges: DGL's norm_factor k / 0 too
            assert (np.nan_to_num(b.edata["edge_weights"][zero], nan=0.0) == 0).all()
        bu, bv = (np.asarray(a) for a in b.edges())
        np.testing.assert_array_equal(b.srcdata[NID][bu], s[e])
        np.testing.assert_array_equal(b.dstdata[NID][bv], d[e])
        assert len(set(e.tolist())) == e.size  # no edge twice
        if importance_sampling != 0:  # (and with prob=, as DGL: see the s13 LABOR sweep)
            assert "edge_weights" in b.edata
