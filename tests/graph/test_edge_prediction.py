"""DGL's edge-prediction mini-batches: ``as_edge_prediction_sampler``, the negative samplers
``Uniform`` / ``PerSourceUniform`` / ``GlobalUniform``, ``EdgeDataLoader`` and the
``exclude_eids`` / ``edge_dir='out'`` paths of ``NeighborSampler``.

Each structure is checked against a plain-NumPy transcription of DGL's algorithm
(``python/dgl/dataloading/base.py``: ``EdgePredictionSampler.sample``,
``find_exclude_eids``; ``src/graph/transform/compact.cc``: ``CompactGraphsCPU``'s
first-appearance numbering; ``negative_sampler.py``; ``dataloader.py``'s batching).
Blocks come from ``MultiLayerFullNeighborSampler`` where their content must be exact (every
in-edge that is not excluded), and from a sampled ``NeighborSampler`` for the exclusion
and fan-out rules.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.edge_data_loader import EdgeDataLoader
from arraygnn.edge_prediction import as_edge_prediction_sampler, find_exclude_eids
from arraygnn.graph import EID, NID, graph, heterograph
from arraygnn.negative_sampler import GlobalUniform, PerSourceUniform, Uniform
from arraygnn.sampling import MultiLayerFullNeighborSampler, NeighborSampler, sample_blocks

IDTYPES = [np.int32, np.int64]
CLICK = ("user", "click", "item")
CLICKED = ("item", "clicked-by", "user")
FOLLOWS = ("user", "follows", "user")


# ------------------------------------------------------------------ transcriptions of DGL


def dgl_compact(ntypes, graphs):
    """``CompactGraphsCPU``: per node type, first appearance over the graphs in turn, each
    relation (canonical order) its sources, then its destinations; edges relabelled."""
    seen = {t: [] for t in ntypes}
    for rels in graphs:
        for c in sorted(rels):
            s, d = rels[c]
            for t, ids in ((c[0], s), (c[2], d)):
                for v in np.asarray(ids).tolist():
                    if v not in seen[t]:
                        seen[t].append(v)
    pos = {t: {v: i for i, v in enumerate(ids)} for t, ids in seen.items()}
    relabelled = [
        {
            c: (
                np.array([pos[c[0]][v] for v in np.asarray(s).tolist()], dtype=np.int64),
                np.array([pos[c[2]][v] for v in np.asarray(d).tolist()], dtype=np.int64),
            )
            for c, (s, d) in rels.items()
        }
        for rels in graphs
    ]
    return {t: np.array(ids, dtype=np.int64) for t, ids in seen.items()}, relabelled


def dgl_exclude_reverse_types(seeds, reverse_etypes):
    """``_find_exclude_eids_with_reverse_types``: in place over the map, unique on merge."""
    out = {c: np.asarray(v) for c, v in seeds.items()}
    for k, v in reverse_etypes.items():
        if k in out:
            out[v] = np.unique(np.concatenate([out[k], out[v]])) if v in out else out[k]
    return out


def block_triples(block, c):
    """``{(src id in g, dst id in g, edge id in g)}`` of relation ``c`` of a block."""
    s, d = (np.asarray(a) for a in block.edges(etype=c))
    sn = np.asarray(block.srcnodes[c[0]].data[NID])
    dn = np.asarray(block.dstnodes[c[2]].data[NID])
    e = np.asarray(block.edges[c].data[EID])
    return set(zip(sn[s].tolist(), dn[d].tolist(), e.tolist()))


def full_in_edges(rels, dst_nodes, excluded):
    """Every in-edge of ``dst_nodes`` that is not excluded, as block triples per relation."""
    out = {}
    for c, (s, d) in rels.items():
        keep = np.isin(d, dst_nodes.get(c[2], [])) & ~np.isin(
            np.arange(len(s)), excluded.get(c, [])
        )
        e = np.nonzero(keep)[0]
        out[c] = set(zip(s[e].tolist(), d[e].tolist(), e.tolist()))
    return out


def check_blocks_exact(g, rels, seed_nodes, blocks, excluded):
    """The blocks of a full sampler: last block's dst = seeds; each block holds exactly the
    in-edges of its dst nodes minus ``excluded``; src nodes start with the dst nodes."""
    dst = seed_nodes
    for block in reversed(blocks):
        for t in g.ntypes:
            dn = np.asarray(block.dstnodes[t].data[NID])
            np.testing.assert_array_equal(dn, np.asarray(dst.get(t, [])))
            sn = np.asarray(block.srcnodes[t].data[NID])
            np.testing.assert_array_equal(sn[: dn.shape[0]], dn)
        want = full_in_edges(rels, dst, excluded)
        for c in g.canonical_etypes:
            assert block_triples(block, c) == want[c], c
        dst = {t: np.asarray(block.srcnodes[t].data[NID]) for t in g.ntypes}
    return dst


def _homo(seed, n=30, m=120, dtype=np.int64):
    rng = np.random.default_rng(seed)
    src = np.concatenate([rng.integers(0, n - 2, m), [0, 0, 3]]).astype(dtype)  # multi, loop
    dst = np.concatenate([rng.integers(0, n - 2, m), [1, 1, 3]]).astype(dtype)
    g = graph((src, dst), num_nodes=n)  # nodes n-2, n-1 isolated
    g.ndata["x"] = rng.standard_normal((n, 3)).astype(np.float32)
    g.edata["w"] = rng.standard_normal(len(src))
    return g, src.astype(np.int64), dst.astype(np.int64)


def _hetero(seed, dtype=np.int64):
    rng = np.random.default_rng(seed)
    nu, ni = 12, 9
    u = rng.integers(0, nu, 40).astype(dtype)
    i = rng.integers(0, ni, 40).astype(dtype)
    a = rng.integers(0, nu, 25).astype(dtype)
    b = rng.integers(0, nu, 25).astype(dtype)
    g = heterograph(
        {CLICK: (u, i), CLICKED: (i, u), FOLLOWS: (a, b)}, num_nodes_dict={"user": nu, "item": ni}
    )
    g.edges[CLICK].data["label"] = np.arange(40) % 3
    g.nodes["user"].data["x"] = rng.standard_normal((nu, 2))
    rels = {
        CLICK: (u.astype(np.int64), i.astype(np.int64)),
        CLICKED: (i.astype(np.int64), u.astype(np.int64)),
        FOLLOWS: (a.astype(np.int64), b.astype(np.int64)),
    }
    return g, rels


# ------------------------------------------------------------------ homogeneous


@pytest.mark.parametrize("dtype", IDTYPES)
def test_pair_graphs_and_blocks_match_dgl_homogeneous(dtype):
    g, src, dst = _homo(0, dtype=dtype)
    seeds = np.array([7, 2, 50, 121, 0], dtype=dtype)
    neg = Uniform(3, seed=5)
    neg_src, neg_dst = Uniform(3, seed=5)(g, seeds)  # the same draws the sampler will make
    sampler = as_edge_prediction_sampler(
        MultiLayerFullNeighborSampler(2), exclude="self", negative_sampler=neg
    )
    input_nodes, pair, neg_pair, blocks = sampler.sample(g, seeds)
    nodes, (pos_rel, neg_rel) = dgl_compact(
        ["_N"],
        [
            {g.canonical_etypes[0]: (src[seeds], dst[seeds])},
            {g.canonical_etypes[0]: (np.asarray(neg_src), np.asarray(neg_dst))},
        ],
    )
    c = g.canonical_etypes[0]
    np.testing.assert_array_equal(pair.ndata[NID], nodes["_N"])
    np.testing.assert_array_equal(neg_pair.ndata[NID], nodes["_N"])
    for graph_, rel in ((pair, pos_rel), (neg_pair, neg_rel)):
        s, d = graph_.edges()
        np.testing.assert_array_equal(s, rel[c][0])
        np.testing.assert_array_equal(d, rel[c][1])
        assert s.dtype == g.idtype and graph_.idtype == g.idtype
    np.testing.assert_array_equal(pair.edata[EID], seeds)
    np.testing.assert_array_equal(pair.edata["w"], g.edata["w"][seeds])
    np.testing.assert_array_equal(pair.ndata["x"], g.ndata["x"][nodes["_N"]])
    assert set(neg_pair.ndata) == {NID} and set(neg_pair.edata) == set()
    assert pair.num_nodes() == neg_pair.num_nodes() == len(nodes["_N"])
    rels = {c: (src, dst)}
    first = check_blocks_exact(g, rels, {"_N": nodes["_N"]}, blocks, {c: seeds})
    np.testing.assert_array_equal(input_nodes, first["_N"])


@pytest.mark.parametrize("dtype", IDTYPES)
def test_reverse_id_exclusion_on_a_bidirected_graph(dtype):
    rng = np.random.default_rng(1)
    n, e = 25, 80
    u, v = rng.integers(0, n, e), rng.integers(0, n, e)
    src = np.concatenate([u, v]).astype(dtype)
    dst = np.concatenate([v, u]).astype(dtype)
    g = graph((src, dst), num_nodes=n)
    reverse_eids = np.concatenate([np.arange(e, 2 * e), np.arange(0, e)]).astype(dtype)
    kept = reverse_eids.copy()
    seeds = np.array([3, 90, 41, 150], dtype=dtype)
    sampler = as_edge_prediction_sampler(
        MultiLayerFullNeighborSampler(2), exclude="reverse_id", reverse_eids=reverse_eids
    )
    input_nodes, pair, blocks = sampler.sample(g, seeds)
    excluded = np.concatenate([seeds, reverse_eids[seeds]])  # DGL: cat([eids, rev[eids]])
    nodes, _ = dgl_compact(["_N"], [{g.canonical_etypes[0]: (src[seeds], dst[seeds])}])
    c = g.canonical_etypes[0]
    check_blocks_exact(
        g, {c: (src.astype(np.int64), dst.astype(np.int64))}, nodes, blocks, {c: excluded}
    )
    np.testing.assert_array_equal(reverse_eids, kept)  # not mutated
    # a sampled NeighborSampler never picks an excluded edge either
    sampled = as_edge_prediction_sampler(
        NeighborSampler([3, 3], seed=0), exclude="reverse_id", reverse_eids=reverse_eids
    )
    for _ in range(5):
        _, _, blocks = sampled.sample(g, seeds)
        for b in blocks:
            assert not np.isin(b.edata[EID], excluded).any()


def test_no_exclusion_keeps_the_seed_edges_and_modes_callable_and_fixed():
    g, src, dst = _homo(2)
    seeds = np.array([4, 9])
    c = g.canonical_etypes[0]
    rels = {c: (src, dst)}
    full = MultiLayerFullNeighborSampler(1)
    for exclude, excluded in (
        (None, []),
        (lambda e: np.concatenate([e, e + 1]), [4, 9, 5, 10]),  # DGL calls exclude(seed_edges)
        (np.array([0, 1, 2]), [0, 1, 2]),  # fixed ids
    ):
        _, pair, blocks = as_edge_prediction_sampler(full, exclude=exclude).sample(g, seeds)
        check_blocks_exact(g, rels, {"_N": np.asarray(pair.ndata[NID])}, blocks, {c: excluded})
    assert find_exclude_eids(g, seeds, None) is None
    np.testing.assert_array_equal(find_exclude_eids(g, seeds, "self"), seeds)


# ------------------------------------------------------------------ heterogeneous


@pytest.mark.parametrize("dtype", IDTYPES)
def test_hetero_pair_graphs_reverse_types_and_blocks(dtype):
    g, rels = _hetero(3, dtype)
    seeds = {"click": np.array([5, 0, 17], dtype=dtype), FOLLOWS: np.array([2, 2 + 1])}
    canon = {CLICK: seeds["click"].astype(np.int64), FOLLOWS: np.array([2, 3])}
    neg_draw = GlobalUniform(2, seed=9)(g, canon)
    sampler = as_edge_prediction_sampler(
        MultiLayerFullNeighborSampler(2),
        exclude="reverse_types",
        reverse_etypes={"click": "clicked-by", "clicked-by": "click"},
        negative_sampler=GlobalUniform(2, seed=9),
    )
    input_nodes, pair, neg_pair, blocks = sampler.sample(g, seeds)
    pos = {c: (rels[c][0][canon[c]], rels[c][1][canon[c]]) for c in canon}
    neg = {c: tuple(np.asarray(a) for a in p) for c, p in neg_draw.items()}
    nodes, (pos_rel, neg_rel) = dgl_compact(g.ntypes, [pos, neg])
    for t in g.ntypes:
        np.testing.assert_array_equal(pair.nodes[t].data[NID], nodes[t])
        np.testing.assert_array_equal(neg_pair.nodes[t].data[NID], nodes[t])
    np.testing.assert_array_equal(
        pair.nodes["user"].data["x"], g.nodes["user"].data["x"][nodes["user"]]
    )
    for c in g.canonical_etypes:
        want_pos = pos_rel.get(c, (np.zeros(0), np.zeros(0)))
        want_neg = neg_rel.get(c, (np.zeros(0), np.zeros(0)))
        for graph_, want in ((pair, want_pos), (neg_pair, want_neg)):
            s, d = graph_.edges(etype=c)
            np.testing.assert_array_equal(s, want[0])
            np.testing.assert_array_equal(d, want[1])
        np.testing.assert_array_equal(pair.edges[c].data[EID], canon.get(c, np.zeros(0)))
    np.testing.assert_array_equal(pair.edges[CLICK].data["label"], np.arange(40)[canon[CLICK]] % 3)
    excluded = dgl_exclude_reverse_types(canon, {CLICK: CLICKED, CLICKED: CLICK})
    assert set(excluded) == {CLICK, CLICKED, FOLLOWS}
    first = check_blocks_exact(g, rels, nodes, blocks, excluded)
    for t in g.ntypes:
        np.testing.assert_array_equal(input_nodes[t], first[t])


def test_hetero_reverse_id_and_sampled_blocks_exclude_everywhere():
    g, rels = _hetero(4)
    rev = {c: np.arange(g.num_edges(c))[::-1].copy() for c in g.canonical_etypes}
    seeds = {CLICK: np.array([1, 30]), CLICKED: np.array([7])}
    sampler = as_edge_prediction_sampler(
        NeighborSampler([2, 2], seed=1), exclude="reverse_id", reverse_eids=rev,
        negative_sampler=Uniform(1, seed=0),
    )  # fmt: skip
    for _ in range(4):
        _, _, _, blocks = sampler.sample(g, seeds)
        for b in blocks:
            for c, e in seeds.items():
                hidden = np.concatenate([e, rev[c][e]])
                assert not np.isin(b.edges[c].data[EID], hidden).any()
            for c in g.canonical_etypes:  # fan-out 2 per dst node and relation
                _, d = b.edges(etype=c)
                assert np.bincount(np.asarray(d), minlength=1).max(initial=0) <= 2


# ------------------------------------------------------------------ negative samplers


@pytest.mark.parametrize("dtype", IDTYPES)
def test_uniform_is_per_source_with_k_per_edge(dtype):
    g, src, dst = _homo(5, dtype=dtype)
    eids = np.array([3, 3, 10, 0], dtype=dtype)  # repeats allowed, as DGL
    assert Uniform is PerSourceUniform
    s, d = Uniform(4, seed=0)(g, eids)
    np.testing.assert_array_equal(s, np.repeat(src[eids.astype(np.int64)], 4))
    assert s.dtype == d.dtype == g.idtype
    assert d.shape == (16,) and d.min() >= 0 and d.max() < g.num_nodes()
    s2, d2 = Uniform(4, seed=0)(g, eids)
    np.testing.assert_array_equal(d, d2)  # the same seed, the same negatives
    s0, d0 = Uniform(0)(g, eids)
    assert s0.shape == d0.shape == (0,)
    hg, rels = _hetero(0)
    out = Uniform(2, seed=1)(hg, {"click": np.array([0, 5])})
    assert set(out) == {CLICK}
    s, d = out[CLICK]
    np.testing.assert_array_equal(s, np.repeat(rels[CLICK][0][[0, 5]], 2))
    assert d.max() < hg.num_nodes("item")


@pytest.mark.parametrize("dtype", IDTYPES)
@pytest.mark.parametrize("replace", [False, True])
def test_global_uniform_never_an_edge(dtype, replace):
    g, src, dst = _homo(6, dtype=dtype)
    edges = set(zip(src.tolist(), dst.tolist()))
    for seed in range(5):
        s, d = GlobalUniform(3, replace=replace, seed=seed)(g, np.arange(10, dtype=dtype))
        assert s.shape[0] <= 30 and s.dtype == g.idtype
        pairs = list(zip(np.asarray(s).tolist(), np.asarray(d).tolist()))
        assert not edges.intersection(pairs)
        assert all(a != b for a, b in pairs)  # exclude_self_loops
        if not replace:
            assert len(set(pairs)) == len(pairs) and pairs == sorted(pairs)
    s, d = GlobalUniform(3, exclude_self_loops=False, redundancy=2.0, seed=0)(g, np.arange(5))
    assert not edges.intersection(zip(s.tolist(), d.tolist()))
    hg, rels = _hetero(1)
    out = GlobalUniform(2, seed=0)(hg, {CLICK: np.arange(4)})
    s, d = out[CLICK]
    edges = set(zip(rels[CLICK][0].tolist(), rels[CLICK][1].tolist()))
    assert not edges.intersection(zip(s.tolist(), d.tolist()))


# ------------------------------------------------------------------ empty batches, loader


@pytest.mark.parametrize("dtype", IDTYPES)
def test_empty_batch(dtype):
    g, _, _ = _homo(7, dtype=dtype)
    sampler = as_edge_prediction_sampler(
        NeighborSampler([2, 2], seed=0), exclude="self", negative_sampler=Uniform(2, seed=0)
    )
    input_nodes, pair, neg, blocks = sampler.sample(g, np.zeros(0, dtype=dtype))
    assert pair.num_nodes() == neg.num_nodes() == pair.num_edges() == neg.num_edges() == 0
    assert input_nodes.shape == (0,) and [b.num_dst_nodes() for b in blocks] == [0, 0]
    hg, _ = _hetero(2, dtype)
    hs = as_edge_prediction_sampler(NeighborSampler([1], seed=0), negative_sampler=Uniform(1))
    input_nodes, pair, neg, blocks = hs.sample(hg, {"click": np.zeros(0, dtype=dtype)})
    assert pair.num_edges() == 0 and all(len(v) == 0 for v in input_nodes.values())


def dgl_batches(counts, batch_size, drop_last, order):
    """DGL's ``_TensorizedDatasetIter`` over positions ``order`` of the concatenated ids."""
    out, i = [], 0
    while i < len(order):
        end = i + batch_size
        if end > len(order):
            if drop_last:
                break
            end = len(order)
        out.append(order[i:end])
        i += batch_size
    return out


@pytest.mark.parametrize("drop_last", [False, True])
def test_edge_data_loader_batches_like_dgl(drop_last):
    g, rels = _hetero(8)
    indices = {"follows": np.arange(0, 25, 2), CLICK: np.array([3, 1, 4, 0, 9])}
    sampler = as_edge_prediction_sampler(NeighborSampler([1], seed=0), exclude="self")
    loader = EdgeDataLoader(g, indices, sampler, batch_size=4, drop_last=drop_last)
    flat = [(FOLLOWS, int(v)) for v in indices["follows"]]
    flat += [(CLICK, int(v)) for v in indices[CLICK]]
    want = dgl_batches([13, 5], 4, drop_last, flat)
    got = list(loader)
    assert len(loader) == len(want) == len(got)
    for (_, pair, _), chunk in zip(got, want):
        for c in g.canonical_etypes:  # per type, in the drawn order (DGL's stable grouping)
            ids = [v for t, v in chunk if t == c]
            np.testing.assert_array_equal(pair.edges[c].data[EID], np.array(ids, dtype=np.int64))
    # shuffled: every id once per epoch, the same seed the same epochs
    homo, _, _ = _homo(9)
    eids = np.arange(homo.num_edges())

    def epoch(seed):
        ld = EdgeDataLoader(homo, eids, sampler, batch_size=16, shuffle=True, seed=seed)
        return [np.asarray(p.edata[EID]) for _, p, _ in ld]

    a, b = epoch(3), epoch(3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    np.testing.assert_array_equal(np.sort(np.concatenate(a)), eids)
    assert not np.array_equal(np.concatenate(a), eids)


# ------------------------------------------------------------------ NeighborSampler changes


@pytest.mark.parametrize("dtype", IDTYPES)
def test_sample_blocks_exclude_eids_and_edge_dir_out(dtype):
    g, src, dst = _homo(10, dtype=dtype)
    c = g.canonical_etypes[0]
    seeds = np.array([0, 3, 5], dtype=dtype)
    excluded = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    _, _, blocks = sample_blocks(g, seeds, [-1, -1], exclude_eids=excluded)
    check_blocks_exact(g, {c: (src, dst)}, {"_N": seeds}, blocks, {c: excluded})
    # edge_dir='out': each seed's out-edges, turned around: messages come from the nodes the
    # seeds point to; EID keeps the id in g
    ns = NeighborSampler([2, 2], edge_dir="out", seed=0)
    _, out_nodes, blocks = ns.sample_blocks(g, seeds, exclude_eids=excluded)
    np.testing.assert_array_equal(out_nodes, seeds)
    for b in blocks:
        s, d = (np.asarray(a) for a in b.edges())
        e = np.asarray(b.edata[EID])
        sn, dn = np.asarray(b.srcdata[NID]), np.asarray(b.dstdata[NID])
        np.testing.assert_array_equal(src[e], dn[d])  # the original source is the block's dst
        np.testing.assert_array_equal(dst[e], sn[s])
        assert not np.isin(e, excluded).any()
        outdeg = np.bincount(src[~np.isin(np.arange(len(src)), excluded)], minlength=g.num_nodes())
        per_dst = np.bincount(d, minlength=b.num_dst_nodes())
        assert (per_dst <= np.minimum(outdeg[dn], 2)).all()
    full_out = MultiLayerFullNeighborSampler(1, edge_dir="out")
    _, _, (b,) = full_out.sample(g, seeds)
    want = {(int(v), int(u), int(i)) for i, (u, v) in enumerate(zip(src, dst)) if u in seeds}
    assert block_triples(b, c) == want


# ------------------------------------------------------------------ errors


def test_bad_inputs_name_the_argument():
    g, _, _ = _homo(11)
    hg, _ = _hetero(11)
    ns = NeighborSampler([1])

    class NoExclude:
        def sample_blocks(self, g, seed_nodes):
            return None

    with pytest.raises(TypeError, match="exclude_eids"):
        as_edge_prediction_sampler(NoExclude())
    with pytest.raises(TypeError, match="sampler"):
        as_edge_prediction_sampler(object())
    with pytest.raises(ValueError, match="exclude"):
        as_edge_prediction_sampler(ns, exclude="reverse")
    with pytest.raises(ValueError, match="reverse_eids"):
        as_edge_prediction_sampler(ns, exclude="reverse_id")
    with pytest.raises(ValueError, match="reverse_etypes"):
        as_edge_prediction_sampler(ns, exclude="reverse_types")
    with pytest.raises(TypeError, match="negative_sampler"):
        as_edge_prediction_sampler(ns, negative_sampler=3)
    with pytest.raises(TypeError, match="exclude"):
        as_edge_prediction_sampler(ns, exclude=3.5)
    s = as_edge_prediction_sampler(ns)
    with pytest.raises(ValueError, match=r"seed_edges.*outside"):
        s.sample(g, np.array([0, g.num_edges()]))
    with pytest.raises(TypeError, match="seed_edges"):
        s.sample(g, np.array([0.5]))
    with pytest.raises(ValueError, match="seed_edges"):
        s.sample(hg, np.array([0]))
    with pytest.raises(KeyError, match="seed_edges"):
        s.sample(hg, {"likes": np.array([0])})
    with pytest.raises(ValueError, match="reverse_eids"):
        as_edge_prediction_sampler(ns, exclude="reverse_id", reverse_eids=np.arange(3)).sample(
            g, np.array([0])
        )
    with pytest.raises(KeyError, match="prefetch_labels"):
        as_edge_prediction_sampler(ns, prefetch_labels=["label"]).sample(g, np.array([0]))
    as_edge_prediction_sampler(ns, prefetch_labels=["w"]).sample(g, np.array([0]))

    def bad_neg(g, eids):
        return np.array([0, 1]), np.array([0])

    with pytest.raises(ValueError, match="negative_sampler"):
        as_edge_prediction_sampler(ns, negative_sampler=bad_neg).sample(g, np.array([0]))
    with pytest.raises(ValueError, match="negative_sampler"):
        as_edge_prediction_sampler(
            ns, negative_sampler=lambda g, e: (np.array([0]), np.array([g.num_nodes()]))
        ).sample(g, np.array([0]))
    with pytest.raises(TypeError, match="k must be an int"):
        Uniform(1.5)
    with pytest.raises(ValueError, match="k must be >= 0"):
        GlobalUniform(-1)
    with pytest.raises(ValueError, match="eids"):
        Uniform(1)(g, np.array([g.num_edges()]))
    with pytest.raises(ValueError, match=r"\{etype: ids\}"):
        Uniform(1)(hg, np.array([0]))
    with pytest.raises(ValueError, match="edge_dir"):
        NeighborSampler([1], edge_dir="both")
    with pytest.raises(ValueError, match="batch_size"):
        EdgeDataLoader(g, np.arange(3), s, batch_size=0)
    with pytest.raises(ValueError, match="indices"):
        EdgeDataLoader(g, np.array([g.num_edges()]), s)
    with pytest.raises(ValueError, match="indices"):
        EdgeDataLoader(hg, np.array([0]), s)
    with pytest.raises(TypeError, match="graph_sampler"):
        EdgeDataLoader(g, np.arange(3), object())
    with pytest.raises(ValueError, match="node-wise"):
        EdgeDataLoader(g, np.arange(3), s, exclude="self")
    seeds = np.array([2, 1])
    before = seeds.copy()
    as_edge_prediction_sampler(ns, exclude="self", negative_sampler=Uniform(1)).sample(g, seeds)
    np.testing.assert_array_equal(seeds, before)


def test_edge_data_loader_wraps_a_node_wise_sampler_as_dgl_0_8():
    g, src, dst = _homo(12)
    c = g.canonical_etypes[0]
    full = MultiLayerFullNeighborSampler(1)
    loader = EdgeDataLoader(
        g, np.arange(10), full, batch_size=4, exclude="self", negative_sampler=Uniform(2, seed=0)
    )
    batches = list(loader)
    assert len(batches) == 3
    for _, pair, neg, blocks in batches:
        seeds = np.asarray(pair.edata[EID])
        assert neg.num_edges() == 2 * len(seeds)
        check_blocks_exact(
            g, {c: (src, dst)}, {"_N": np.asarray(pair.ndata[NID])}, blocks, {c: seeds}
        )


def test_edge_dir_out_on_a_heterograph_turns_the_relations_around():
    g, rels = _hetero(13)
    seeds = {"user": np.array([0, 4, 7]), "item": np.array([2])}
    _, _, (b,) = MultiLayerFullNeighborSampler(1, edge_dir="out").sample(g, seeds)
    assert set(b.canonical_etypes) == {(d, e, s) for s, e, d in g.canonical_etypes}
    for s, e, d in g.canonical_etypes:
        u, v = rels[(s, e, d)]
        want = {(int(v[i]), int(u[i]), i) for i in range(len(u)) if u[i] in seeds[s]}
        assert block_triples(b, (d, e, s)) == want
