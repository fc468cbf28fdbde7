"""Random walks against DGL's semantics (``src/graph/sampling/randomwalks/``): exact checks
where a walk is determined, transition frequencies against the exact probabilities
(fixed seeds; bounds of 6 standard deviations) where it is not."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph import graph, heterograph
from arraygnn.random_walks import node2vec_random_walk, pack_traces, random_walk

IDTYPES = [np.int32, np.int64]


def _g(src, dst, n, dtype=np.int64):
    return graph((np.asarray(src, dtype=dtype), np.asarray(dst, dtype=dtype)), num_nodes=n)


def _check_consistent(g, traces, eids, etype=None):
    """Every taken step is the edge its id names; -1 only as a suffix, in both arrays."""
    src, dst = (np.asarray(a) for a in g.edges(etype=etype))
    taken = eids >= 0
    assert ((traces[:, 1:] >= 0) == taken).all()
    assert (taken[:, 1:] <= taken[:, :-1]).all()  # once stopped, stopped
    assert (src[eids[taken]] == traces[:, :-1][taken]).all()
    assert (dst[eids[taken]] == traces[:, 1:][taken]).all()


def _bound(p, n):
    """6 standard deviations of a frequency of probability ``p`` over ``n`` draws."""
    return 6 * np.sqrt(p * (1 - p) / n) + 1e-9


def _random_multigraph(rng, n, m):
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    src = np.concatenate([src, [0, 0, 1]])  # a multi-edge and a self-loop
    dst = np.concatenate([dst, [1, 1, 1]])
    return src, dst


# ----------------------------------------------------------------------------- exact


@pytest.mark.parametrize("dtype", IDTYPES)
def test_cycle_walks_are_determined(dtype):
    g = _g([0, 1, 2, 3], [1, 2, 3, 0], 4, dtype)
    traces, eids, types = random_walk(
        g, np.array([0, 2, 2], dtype=dtype), length=6, return_eids=True, seed=3
    )
    expected = (np.array([0, 2, 2])[:, None] + np.arange(7)) % 4
    np.testing.assert_array_equal(traces, expected)
    np.testing.assert_array_equal(eids, expected[:, :-1])  # edge i leaves node i
    assert traces.dtype == eids.dtype == types.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(types, np.zeros(7))


def test_path_dead_end_pads_minus_one():
    g = _g([0, 1, 2], [1, 2, 3], 5)  # node 4 isolated, node 3 a sink
    traces, eids, _ = random_walk(g, [0, 2, 3, 4], length=4, return_eids=True, seed=0)
    np.testing.assert_array_equal(
        traces,
        [[0, 1, 2, 3, -1], [2, 3, -1, -1, -1], [3, -1, -1, -1, -1], [4, -1, -1, -1, -1]],
    )
    np.testing.assert_array_equal(
        eids, [[0, 1, 2, -1], [2, -1, -1, -1], [-1, -1, -1, -1], [-1, -1, -1, -1]]
    )


def test_zero_probability_edges_are_dead_ends():
    g = _g([0, 0, 1], [1, 2, 2], 3)
    g.edata["p"] = np.array([0.0, 0.0, 1.0])
    traces, _ = random_walk(g, [0, 1], length=2, prob="p", seed=0)
    np.testing.assert_array_equal(traces, [[0, -1, -1], [1, 2, -1]])


def test_out_degree_one_chain_with_weights_and_eids():
    # edges listed out of order: each node has one out-edge, so the walk is fixed
    src, dst = np.array([3, 0, 2, 1]), np.array([4, 1, 3, 2])
    g = _g(src, dst, 5)
    g.edata["w"] = np.array([0.5, 2.0, 1.0, 3.0], dtype=np.float32)
    for prob in (None, "w"):
        traces, eids, _ = random_walk(g, [0], length=5, prob=prob, return_eids=True, seed=1)
        np.testing.assert_array_equal(traces, [[0, 1, 2, 3, 4, -1]])
        np.testing.assert_array_equal(eids, [[1, 3, 2, 0, -1]])


def test_restart_probability_one_stops_before_the_first_step():
    g = _g([0, 1, 2], [1, 2, 0], 3)
    # DGL draws the edge, then stops before taking it: the trace keeps only the seed
    traces, eids, _ = random_walk(
        g, [0, 1, 2], length=3, restart_prob=np.ones(3), return_eids=True, seed=0
    )
    np.testing.assert_array_equal(traces[:, 0], [0, 1, 2])
    assert (traces[:, 1:] == -1).all() and (eids == -1).all()
    # stop exactly before step 2
    traces, _ = random_walk(g, [0, 1], length=4, restart_prob=np.array([0, 0, 1.0, 0]), seed=0)
    np.testing.assert_array_equal(traces, [[0, 1, 2, -1, -1], [1, 2, 0, -1, -1]])
    # a scalar must be in [0, 1), as DGL checks
    with pytest.raises(ValueError, match=r"restart_prob must be in \[0, 1\)"):
        random_walk(g, [0], length=2, restart_prob=1.0)
    with pytest.raises(ValueError, match="one value per step"):
        random_walk(g, [0], length=2, restart_prob=np.array([0.5]))


def test_length_zero_and_empty_seeds():
    g = _g([0, 1], [1, 0], 2)
    traces, eids, types = random_walk(g, [1, 0], length=0, return_eids=True)
    np.testing.assert_array_equal(traces, [[1], [0]])
    assert eids.shape == (2, 0) and types.tolist() == [0]
    traces, types = random_walk(g, np.zeros(0, dtype=np.int64), length=3)
    assert traces.shape == (0, 4)


def test_same_seed_same_walks_and_generator_seeds():
    rng = np.random.default_rng(0)
    src, dst = _random_multigraph(rng, 30, 120)
    g = _g(src, dst, 30)
    nodes = rng.integers(0, 30, 200)
    kept = nodes.copy()
    a = random_walk(g, nodes, length=10, seed=7, restart_prob=0.1)[0]
    b = random_walk(g, nodes, length=10, seed=7, restart_prob=0.1)[0]
    c = random_walk(g, nodes, length=10, seed=8, restart_prob=0.1)[0]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    d = random_walk(g, nodes, length=10, seed=np.random.default_rng(5))[0]
    e = random_walk(g, nodes, length=10, seed=np.random.default_rng(5))[0]
    np.testing.assert_array_equal(d, e)
    np.testing.assert_array_equal(nodes, kept)  # not mutated
    np.testing.assert_array_equal(a[:, 0], nodes)


def test_metapath_walks_on_a_heterograph():
    g = heterograph(
        {
            ("user", "follow", "user"): ([0, 1, 1, 2, 3], [1, 2, 3, 0, 0]),
            ("user", "view", "item"): ([0, 0, 1, 2, 3, 3], [0, 1, 1, 2, 2, 1]),
            ("item", "viewed-by", "user"): ([0, 1, 1, 2, 2, 1], [0, 0, 1, 2, 3, 3]),
        }
    )
    metapath = ["follow", "view", "viewed-by"] * 2
    traces, eids, types = random_walk(
        g, np.repeat(np.arange(4), 50), metapath=metapath, return_eids=True, seed=0
    )
    user, item = g.ntypes.index("user"), g.ntypes.index("item")
    assert types.tolist() == [user, user, item, user, user, item, user]
    for i, et in enumerate(metapath):
        src, dst = (np.asarray(a) for a in g.edges(etype=et))
        taken = eids[:, i] >= 0
        assert (src[eids[taken, i]] == traces[taken, i]).all()
        assert (dst[eids[taken, i]] == traces[taken, i + 1]).all()
    assert (eids >= 0).all()  # every node here has out-edges of every relation
    # canonical triples work too, and a restart per step
    tr2, _ = random_walk(
        g,
        [0],
        metapath=[("user", "view", "item")],
        restart_prob=np.array([1.0]),
        seed=0,
    )
    np.testing.assert_array_equal(tr2, [[0, -1]])
    with pytest.raises(ValueError, match="does not match"):
        random_walk(g, [0], metapath=["follow", "viewed-by"])
    with pytest.raises(ValueError, match="not homogeneous"):
        random_walk(g, [0], length=2)


def test_prob_missing_on_some_relations_is_uniform_there():
    g = heterograph(
        {
            ("a", "x", "b"): ([0, 0], [0, 1]),
            ("b", "y", "a"): ([0, 1, 1], [0, 0, 1]),
        }
    )
    g.edges["x"].data["w"] = np.array([0.0, 1.0])
    traces, _ = random_walk(g, np.zeros(400, dtype=np.int64), metapath=["x", "y"], prob="w", seed=2)
    assert (traces[:, 1] == 1).all()  # x: weight 0 never taken
    freq = (traces[:, 2] == 0).mean()  # y from b1: uniform over its two edges
    assert abs(freq - 0.5) < _bound(0.5, 400)
    with pytest.raises(KeyError, match="no edge type"):
        random_walk(g, [0], metapath=["x", "y"], prob="nope")


# ----------------------------------------------------------------------- frequencies


def _first_step_frequencies(g, n, walks_per_node, **kw):
    nodes = np.repeat(np.arange(n), walks_per_node)
    traces, eids, _ = random_walk(g, nodes, length=1, return_eids=True, **kw)
    return nodes, eids[:, 0]


@pytest.mark.parametrize("weighted", [False, True])
def test_transition_frequencies_match_exact_probabilities(weighted):
    rng = np.random.default_rng(1)
    n = 12
    src, dst = _random_multigraph(rng, n, 40)
    g = _g(src, dst, n)
    w = rng.random(src.shape[0]) * 3
    w[::5] = 0.0
    if weighted:
        g.edata["w"] = w
    weight = w if weighted else np.ones(src.shape[0])
    out_total = np.bincount(src, weights=weight, minlength=n)
    exact = np.where(out_total[src] > 0, weight / np.where(out_total > 0, out_total, 1)[src], 0)
    per_node = 4000
    nodes, eids = _first_step_frequencies(g, n, per_node, prob="w" if weighted else None, seed=4)
    counts = np.bincount(eids[eids >= 0], minlength=src.shape[0])
    freq = counts / per_node
    assert (np.abs(freq - exact) <= _bound(exact, per_node)).all()
    if weighted:
        assert counts[w == 0].sum() == 0
    # nodes without usable out-edges stop at once
    dead = out_total[nodes] == 0
    assert (eids[dead] == -1).all() and (eids[~dead] >= 0).all()


def test_restart_lengths_follow_the_geometric_law():
    g = _g([0, 1, 2], [1, 2, 0], 3)
    r, length, walks = 0.3, 5, 20000
    traces, _ = random_walk(
        g, np.zeros(walks, dtype=np.int64), length=length, restart_prob=r, seed=9
    )
    steps = (traces[:, 1:] >= 0).sum(axis=1)
    for s in range(length + 1):
        p = (1 - r) ** s * (r if s < length else 1.0)
        assert abs((steps == s).mean() - p) <= _bound(p, walks)


def _node2vec_exact(src, dst, w, n, prev, curr, p, q):
    """The exact probability of each edge out of ``curr`` after arriving from ``prev``."""
    out = np.nonzero(src == curr)[0]
    alpha = np.where(
        dst[out] == prev,
        1 / p,
        np.where([((src == x) & (dst == prev)).any() for x in dst[out]], 1.0, 1 / q),
    )
    weight = w[out] * alpha
    return out, weight / weight.sum()


@pytest.mark.parametrize("p,q,weighted", [(0.25, 4.0, False), (4.0, 0.25, False), (0.5, 2.0, True)])
def test_node2vec_second_step_frequencies(p, q, weighted):
    # a small undirected graph with a triangle, a tail and a multi-edge
    und = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 3), (1, 3)]
    src = np.array([a for a, b in und] + [b for a, b in und])
    dst = np.array([b for a, b in und] + [a for a, b in und])
    n = 5
    g = _g(src, dst, n)
    w = np.linspace(0.5, 2.0, src.shape[0]) if weighted else np.ones(src.shape[0])
    if weighted:
        g.edata["w"] = w
    walks = 60000
    traces, eids = node2vec_random_walk(
        g,
        np.full(walks, 1),
        p,
        q,
        2,
        prob="w" if weighted else None,
        return_eids=True,
        seed=11,
    )
    _check_consistent(g, traces, eids)
    # the first step is a plain (weighted) draw
    first, exact_first = _node2vec_exact(src, dst, w, n, -1, 1, np.inf, 1.0)
    exact_first = w[first] / w[first].sum()
    for e, pe in zip(first, exact_first):
        assert abs((eids[:, 0] == e).mean() - pe) <= _bound(pe, walks)
    # the second step, given the first
    for e in first:
        rows = eids[:, 0] == e
        m = int(rows.sum())
        out, exact = _node2vec_exact(src, dst, w, n, 1, dst[e], p, q)
        for f, pf in zip(out, exact):
            assert abs((eids[rows, 1] == f).mean() - pf) <= _bound(pf, m)


def test_node2vec_deterministic_cases_and_errors():
    g = _g([0, 1, 2, 3], [1, 2, 3, 0], 5)  # a cycle plus isolated node 4
    traces, eids = node2vec_random_walk(g, [0, 4], 2.0, 0.5, 5, return_eids=True, seed=0)
    np.testing.assert_array_equal(traces, [[0, 1, 2, 3, 0, 1], [4, -1, -1, -1, -1, -1]])
    np.testing.assert_array_equal(eids, [[0, 1, 2, 3, 0], [-1] * 5])
    a = node2vec_random_walk(g, [0, 1], 0.5, 2.0, 4, seed=3)
    np.testing.assert_array_equal(a, node2vec_random_walk(g, [0, 1], 0.5, 2.0, 4, seed=3))
    with pytest.raises(ValueError, match="p must be positive"):
        node2vec_random_walk(g, [0], 0.0, 1.0, 3)
    with pytest.raises(ValueError, match="q must be positive"):
        node2vec_random_walk(g, [0], 1.0, np.inf, 3)
    with pytest.raises(TypeError, match="walk_length must be an int"):
        node2vec_random_walk(g, [0], 1.0, 1.0, 3.0)
    with pytest.raises(ValueError, match=r"contains id 5, outside \[0, 5\)"):
        node2vec_random_walk(g, [5], 1.0, 1.0, 3)
    h = heterograph({("a", "r", "b"): ([0], [0])})
    with pytest.raises(ValueError, match="homogeneous"):
        node2vec_random_walk(h, [0], 1.0, 1.0, 3)
    with pytest.raises(KeyError, match="no edge feature"):
        node2vec_random_walk(g, [0], 1.0, 1.0, 3, prob="w")


# -------------------------------------------------------------------------- errors


def test_random_walk_validates_its_input():
    g = _g([0, 1], [1, 0], 2)
    with pytest.raises(ValueError, match=r"contains id 2, outside \[0, 2\)"):
        random_walk(g, [0, 2], length=2)
    with pytest.raises(ValueError, match="contains id -1"):
        random_walk(g, [-1], length=2)
    with pytest.raises(TypeError, match="booleans"):
        random_walk(g, np.array([True, False]), length=2)
    with pytest.raises(TypeError, match="must hold integers"):
        random_walk(g, np.array([0.0]), length=2)
    with pytest.raises(ValueError, match="either the metapath or"):
        random_walk(g, [0])
    with pytest.raises(ValueError, match="mutually exclusive"):
        random_walk(g, [0], metapath=["_E"], length=1)
    with pytest.raises(ValueError, match="length must be >= 0"):
        random_walk(g, [0], length=-1)
    with pytest.raises(TypeError, match="seed must be"):
        random_walk(g, [0], length=1, seed="x")
    with pytest.raises(KeyError, match=r"random_walk: metapath\[1\]: edge type 'x' does not exist"):
        random_walk(g, [0], metapath=["_E", "x"])
    for bad, exc, msg in [
        (np.array([1.0, -1.0]), ValueError, "non-negative"),
        (np.array([1.0, np.nan]), ValueError, "finite"),
        (np.array([1, 2]), TypeError, "floating point"),
        (np.ones((2, 2)), ValueError, "1-D"),
    ]:
        g.edata["w"] = bad
        with pytest.raises(exc, match=msg):
            random_walk(g, [0], length=1, prob="w")
    with pytest.raises(TypeError, match="expects an arraygnn Graph"):
        random_walk(object(), [0], length=1)


def test_prob_is_not_mutated_and_float32_works():
    g = _g([0, 0, 1], [1, 1, 0], 2)
    w = np.array([1.0, 3.0, 2.0], dtype=np.float32)
    g.edata["w"] = w
    before = w.copy()
    traces, eids, _ = random_walk(
        g, np.zeros(4000, dtype=np.int64), length=1, prob="w", return_eids=True, seed=0
    )
    np.testing.assert_array_equal(w, before)
    assert abs((eids[:, 0] == 1).mean() - 0.75) <= _bound(0.75, 4000)


# ---------------------------------------------------------------------- pack_traces


def test_pack_traces_matches_a_reference():
    rng = np.random.default_rng(0)
    src, dst = _random_multigraph(rng, 20, 30)
    g = _g(src, dst, 20, np.int32)
    traces, types = random_walk(
        g, np.arange(20, dtype=np.int32), length=6, restart_prob=0.2, seed=1
    )
    vids, vtypes, lengths, offsets = pack_traces(traces, types)
    ref = [t[t != -1] for t in traces]
    np.testing.assert_array_equal(lengths, [len(r) for r in ref])
    np.testing.assert_array_equal(offsets, np.cumsum([0] + [len(r) for r in ref])[:-1])
    np.testing.assert_array_equal(vids, np.concatenate(ref))
    np.testing.assert_array_equal(vtypes, np.concatenate([types[: len(r)] for r in ref]))
    # DGL's Pack: vids in the traces' dtype, types in theirs, lengths / offsets int64
    assert vids.dtype == np.int32 and vtypes.dtype == types.dtype
    assert lengths.dtype == offsets.dtype == np.int64
    for i, r in enumerate(ref):
        np.testing.assert_array_equal(vids[offsets[i] : offsets[i] + lengths[i]], r)


def test_pack_traces_keeps_each_trace_up_to_its_first_padding():
    # DGL's Pack: a trace ends at its first -1; nothing after it is kept
    traces = np.array([[0, -1, 2, 3], [1, 1, -1, 4], [5, 6, 7, 8]], dtype=np.int32)
    types = np.array([0, 1, 0, 1], dtype=np.int64)
    vids, vtypes, lengths, offsets = pack_traces(traces, types)
    assert vids.tolist() == [0, 1, 1, 5, 6, 7, 8] and vids.dtype == np.int32
    assert vtypes.tolist() == [0, 0, 1, 0, 1, 0, 1] and vtypes.dtype == np.int64
    assert lengths.tolist() == [1, 2, 4] and offsets.tolist() == [0, 1, 3]
    assert lengths.dtype == offsets.dtype == np.int64


def test_pack_traces_errors():
    with pytest.raises(TypeError, match="int32 or int64"):
        pack_traces(np.zeros((2, 3)), np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="2-D"):
        pack_traces(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="types has 2 entries"):
        pack_traces(np.zeros((2, 3), dtype=np.int64), np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="NumPy"):
        pack_traces([[0, 1]], np.zeros(2, dtype=np.int64))


def test_sampling_module_re_exports_the_walks():
    import arraygnn
    import arraygnn.sampling as sampling

    assert sampling.random_walk is random_walk is arraygnn.random_walk
    assert sampling.node2vec_random_walk is node2vec_random_walk
    assert sampling.pack_traces is pack_traces


def test_graph_without_edges():
    g = _g([], [], 3)
    g.edata["w"] = np.zeros(0)
    traces, eids, _ = random_walk(g, [0, 2], length=3, prob="w", return_eids=True, seed=0)
    np.testing.assert_array_equal(traces, [[0, -1, -1, -1], [2, -1, -1, -1]])
    assert (eids == -1).all()
    np.testing.assert_array_equal(node2vec_random_walk(g, [1], 1.0, 1.0, 2, seed=0), [[1, -1, -1]])
