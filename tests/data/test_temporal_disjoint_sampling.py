"""PyG's disjoint and temporal neighbour sampling (``disjoint=True``, ``time_attr=``,
``temporal_strategy=``, ``input_time=``, ``edge_label_time=``) in the PyG-style loaders.

PyG's samplers need pyg-lib, which does not install here, so the semantics are checked
exactly against a plain-Python tree expansion per seed written below from pyg-lib's
``neighbor_kernel.cpp`` (each seed its own tree, nodes numbered seeds first then hop by
hop, a neighbour eligible only if its node / edge time is ``<=`` its tree's seed time,
neighbourhoods in CSC order: by time, then edge id). With finite fan-outs the invariants
are checked instead: every edge exists, time constraints, fan-out per node, ``'last'``
takes the most recent eligible neighbours, trees never share a ``(subgraph, node)`` pair.
PyG's Python side does run here: its ``NodeLoader`` / ``LinkLoader`` with that reference as
the sampling function (through PyG's own ``node_sample`` / ``edge_sample`` and
``filter_fn``) must give the same batches, attribute for attribute.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.disjoint_sampling import csc
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader

# ----------------------------------------------------------------------------- references


def _in_edges(src, dst, v, time_of_edge):
    """The in-edges of ``v`` in pyg-lib's CSC order: by time (if any), then edge id."""
    es = [e for e in range(len(dst)) if dst[e] == v]
    if time_of_edge is not None:
        es.sort(key=lambda e: (time_of_edge[e], e))
    return es


def ref_homo(src, dst, seeds, hops, node_time=None, edge_time=None, seed_time=None):
    """Full fan-out disjoint trees: (n_id, batch, row, col, e_id, nodes/hop, edges/hop)."""
    src, dst = list(map(int, src)), list(map(int, dst))
    time_of_edge = None
    if node_time is not None:
        time_of_edge = [node_time[s] for s in src]
    elif edge_time is not None:
        time_of_edge = list(edge_time)
    if seed_time is None and node_time is not None:
        seed_time = [node_time[s] for s in seeds]
    nodes = [(b, int(s)) for b, s in enumerate(seeds)]
    index = {key: i for i, key in enumerate(nodes)}
    rows, cols, eids = [], [], []
    num_nodes, num_edges = [len(seeds)], []
    begin, end = 0, len(nodes)
    for _ in range(hops):
        count = 0
        for i in range(begin, end):
            b, v = nodes[i]
            for e in _in_edges(src, dst, v, time_of_edge):
                if time_of_edge is not None and time_of_edge[e] > seed_time[b]:
                    continue
                key = (b, src[e])
                if key not in index:
                    index[key] = len(nodes)
                    nodes.append(key)
                rows.append(index[key])
                cols.append(i)
                eids.append(e)
                count += 1
        num_edges.append(count)
        begin, end = end, len(nodes)
        num_nodes.append(end - begin)
    return (
        [v for _, v in nodes],
        [b for b, _ in nodes],
        rows,
        cols,
        eids,
        num_nodes,
        num_edges,
    )


def ref_hetero(data, seeds, hops, node_time=None, edge_time=None, seed_time=None):
    """Full fan-out disjoint trees over a HeteroData: ``seeds`` = {type: ids} (subgraphs
    numbered over the types in order); per type (n_id, batch), per edge type (row, col,
    e_id). Relations whose neighbour type / edge type has no time are unconstrained."""
    node_time, edge_time = node_time or {}, edge_time or {}
    nodes = {t: [] for t in data.node_types}
    index = {t: {} for t in data.node_types}
    b = 0
    for t, ids in seeds.items():
        for s in ids:
            index[t][(b, int(s))] = len(nodes[t])
            nodes[t].append((b, int(s)))
            b += 1
    if seed_time is not None:
        times = list(seed_time)
    elif node_time:
        times = [node_time[t][s] for t, ids in seeds.items() for s in ids]
    edges = {et: ([], [], []) for et in data.edge_types}
    slices = {t: (0, len(nodes[t])) for t in data.node_types}
    for _ in range(hops):
        for et in data.edge_types:
            s_t, _, d_t = et
            ei = data[et].edge_index
            src, dst = list(map(int, ei[0])), list(map(int, ei[1]))
            toe = None
            if s_t in node_time:
                toe = [node_time[s_t][s] for s in src]
            elif et in edge_time:
                toe = list(edge_time[et])
            for i in range(*slices[d_t]):
                b, v = nodes[d_t][i]
                for e in _in_edges(src, dst, v, toe):
                    if toe is not None and toe[e] > times[b]:
                        continue
                    key = (b, src[e])
                    if key not in index[s_t]:
                        index[s_t][key] = len(nodes[s_t])
                        nodes[s_t].append(key)
                    edges[et][0].append(index[s_t][key])
                    edges[et][1].append(i)
                    edges[et][2].append(e)
        slices = {t: (slices[t][1], len(nodes[t])) for t in data.node_types}
    return nodes, edges


# ----------------------------------------------------------------------------- data


def _graph(n=30, e=160, seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)]).astype(dtype)
    ei[:, :4] = [[3, 3, 3, 4], [3, 5, 5, 5]]  # a self-loop and a multi-edge
    ei[1][ei[1] == n - 1] = 0  # node n - 1 has no in-edges (an isolated seed if nothing else)
    ei[0][ei[0] == n - 1] = 1
    return Data(
        x=rng.standard_normal((n, 3)).astype(np.float32),
        edge_index=ei,
        time=rng.integers(0, 20, n),
        edge_time=rng.integers(0, 20, e),
        edge_attr=rng.standard_normal((e, 2)).astype(np.float32),
        num_nodes=n,
    )


NODE_KW = dict(node_attrs=["x", "time"], edge_attrs=["edge_attr", "edge_time"])


def _check_exact(batch, ref):
    n_id, b, row, col, e_id, nn_, ne_ = ref
    assert batch.n_id.tolist() == n_id
    assert batch.batch.tolist() == b
    assert batch.edge_index[0].tolist() == row and batch.edge_index[1].tolist() == col
    assert batch.e_id.tolist() == e_id
    assert batch.num_sampled_nodes == nn_ and batch.num_sampled_edges == ne_
    assert batch.num_nodes == len(n_id)


# ----------------------------------------------------------------------------- homogeneous


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("mode", ["disjoint", "node", "edge", "node+input_time"])
def test_full_fanout_equals_reference_trees(dtype, mode):
    data = _graph(dtype=dtype)
    seeds = np.array([0, 3, 5, 29, 3, 12, 7])  # a repeated seed, an isolated seed (29)
    kw = dict(NODE_KW, input_nodes=seeds, batch_size=4)
    rng = np.random.default_rng(1)
    input_time = rng.integers(0, 20, len(seeds))
    ref_kw = {}
    if mode == "disjoint":
        kw["disjoint"] = True
    elif mode == "node":
        kw["time_attr"] = "time"
        ref_kw = dict(node_time=data.time)
    elif mode == "edge":
        kw.update(time_attr="edge_time", input_time=input_time)
        ref_kw = dict(edge_time=data.edge_time)
    else:
        kw.update(time_attr="time", input_time=input_time)
        ref_kw = dict(node_time=data.time)
    loader = NeighborLoader(data, [-1, -1, -1], **kw)
    batches = list(loader)
    assert len(batches) == 2
    for k, batch in enumerate(batches):
        pos = np.arange(4 * k, min(4 * k + 4, len(seeds)))
        st = input_time[pos] if "input_time" in kw else None
        ei = data.edge_index
        _check_exact(batch, ref_homo(ei[0], ei[1], seeds[pos], 3, seed_time=st, **ref_kw))
        assert batch.input_id.tolist() == pos.tolist() and batch.batch_size == len(pos)
        np.testing.assert_array_equal(batch.x, data.x[batch.n_id])
        np.testing.assert_array_equal(batch.edge_attr, data.edge_attr[batch.e_id])
        if st is None:
            assert "seed_time" not in batch.keys()
        else:
            np.testing.assert_array_equal(batch.seed_time, st)
        assert batch.e_id.dtype == np.int64 and batch.n_id.dtype == np.int64


def _invariants(data, batch, fanouts, strategy, replace, seed_time, node_time, edge_time):
    ei = data.edge_index
    n_id, b, e_id = batch.n_id, batch.batch, batch.e_id
    row, col = batch.edge_index
    bs = batch.batch_size
    assert b[:bs].tolist() == list(range(bs))
    np.testing.assert_array_equal(n_id[row], ei[0, e_id])  # every sampled edge exists
    np.testing.assert_array_equal(n_id[col], ei[1, e_id])
    np.testing.assert_array_equal(b[row], b[col])  # edges stay inside their tree
    pairs = set(zip(b.tolist(), n_id.tolist()))
    assert len(pairs) == len(n_id)  # no (subgraph, node) pair twice
    limit = seed_time[b[col]]
    toe = None
    if node_time is not None:
        toe = node_time[ei[0]]
    elif edge_time is not None:
        toe = edge_time
    if toe is not None:
        assert (toe[e_id] <= limit).all()
    node_start = np.cumsum([0] + batch.num_sampled_nodes)
    edge_start = np.cumsum([0] + batch.num_sampled_edges)
    for h, k in enumerate(fanouts):
        sl = slice(edge_start[h], edge_start[h + 1])
        cols = col[sl]
        assert ((cols >= node_start[h]) & (cols < node_start[h + 1])).all()
        assert (row[sl] < node_start[h + 2]).all()
        for c in range(node_start[h], node_start[h + 1]):
            mine = e_id[sl][cols == c]
            ins = np.flatnonzero(ei[1] == n_id[c])
            if toe is not None:
                ins = ins[toe[ins] <= seed_time[b[c]]]
            if replace:
                assert len(mine) == (k if len(ins) else 0)
                assert set(mine.tolist()) <= set(ins.tolist())
                continue
            assert len(mine) == min(k, len(ins)) and len(set(mine.tolist())) == len(mine)
            assert set(mine.tolist()) <= set(ins.tolist())
            if strategy == "last" and toe is not None:  # exactly the most recent ones
                top = np.sort(toe[ins])[::-1][: len(mine)]
                np.testing.assert_array_equal(np.sort(toe[mine])[::-1], top)


@pytest.mark.parametrize("strategy", ["uniform", "last"])
@pytest.mark.parametrize("time", [None, "time", "edge_time"])
@pytest.mark.parametrize("replace", [False, True])
def test_finite_fanout_invariants(strategy, time, replace):
    data = _graph(n=40, e=400, seed=3)
    seeds = np.array([0, 3, 5, 39, 3, 12, 7, 20, 21, 22])
    input_time = np.random.default_rng(2).integers(5, 20, len(seeds))
    kw = dict(NODE_KW, input_nodes=seeds, batch_size=5, temporal_strategy=strategy)
    kw.update(replace=replace, seed=4, disjoint=True)
    if time is not None:
        kw["time_attr"] = time
    if time == "edge_time":
        kw["input_time"] = input_time
    fanouts = [3, 2, 2]
    for batch in NeighborLoader(data, fanouts, **kw):
        pos = batch.input_id
        if time == "edge_time":
            st = input_time[pos]
        elif time == "time":
            st = data.time[seeds[pos]]
        else:
            st = np.zeros(len(pos))
        nt = data.time if time == "time" else None
        et = data.edge_time if time == "edge_time" else None
        _invariants(data, batch, fanouts, strategy, replace, st, nt, et)


def test_last_takes_the_most_recent_and_ties_by_edge_id():
    # node 0 has in-edges from 1..5 with node times 1..5; seed time 4 -> eligible 1..4
    ei = np.array([[5, 1, 4, 2, 3, 6], [0, 0, 0, 0, 0, 0]])
    time = np.array([4, 1, 2, 3, 4, 5, 4])
    data = Data(edge_index=ei, time=time, num_nodes=7)
    loader = NeighborLoader(
        data, [2], input_nodes=np.array([0]), time_attr="time", temporal_strategy="last",
        node_attrs=["time"],
    )  # fmt: skip
    batch = next(iter(loader))
    # eligible by (time, edge id): 1 (t1), 2 (t2), 3 (t3), 4 (t4, e2), 6 (t4, e5): last two
    assert batch.n_id.tolist() == [0, 4, 6] and batch.e_id.tolist() == [2, 5]
    assert batch.time.tolist() == [4, 4, 4]


def test_deterministic_under_a_seed_and_int32_ids_match_int64():
    def run(dtype, seed):
        data = _graph(n=40, e=300, seed=5, dtype=dtype)
        loader = NeighborLoader(
            data, [4, 3], batch_size=6, shuffle=True, seed=seed, time_attr="time", **NODE_KW
        )
        return [(b.n_id.tolist(), b.batch.tolist(), b.e_id.tolist()) for b in loader]

    first = run(np.int64, 7)
    assert first == run(np.int64, 7)
    assert first == run(np.int32, 7)


def test_repeated_seed_gets_its_own_tree_and_nodes_repeat_across_trees():
    ei = np.array([[1, 2], [0, 1]])
    data = Data(edge_index=ei, num_nodes=3)
    batch = next(iter(NeighborLoader(data, [-1, -1], input_nodes=np.array([0, 0]),
                                     batch_size=2, disjoint=True)))  # fmt: skip
    assert batch.n_id.tolist() == [0, 0, 1, 1, 2, 2]
    assert batch.batch.tolist() == [0, 1, 0, 1, 0, 1]
    assert batch.edge_index.tolist() == [[2, 3, 4, 5], [0, 1, 2, 3]]
    plain = next(iter(NeighborLoader(data, [-1, -1], input_nodes=np.array([0, 0]),
                                     batch_size=2)))  # fmt: skip
    assert "batch" not in plain.keys()  # non-disjoint output unchanged


def test_empty_graph_isolated_seeds_and_no_eligible_neighbours():
    data = Data(edge_index=np.zeros((2, 0), dtype=np.int64), time=np.arange(4), num_nodes=4)
    batch = next(iter(NeighborLoader(data, [2, -1], batch_size=4, time_attr="time",
                                     node_attrs=["time"])))  # fmt: skip
    assert batch.n_id.tolist() == [0, 1, 2, 3] and batch.batch.tolist() == [0, 1, 2, 3]
    assert batch.edge_index.shape == (2, 0) and batch.e_id.shape == (0,)
    assert batch.num_sampled_nodes == [4, 0, 0] and batch.num_sampled_edges == [0, 0]
    # every neighbour later than the seed: nothing eligible
    data = Data(edge_index=np.array([[1, 2], [0, 0]]), time=np.array([0, 5, 6]), num_nodes=3)
    for strategy in ("uniform", "last"):
        batch = next(iter(NeighborLoader(
            data, [-1], input_nodes=np.array([0]), time_attr="time", node_attrs=["time"],
            temporal_strategy=strategy,
        )))  # fmt: skip
        assert batch.n_id.tolist() == [0] and batch.num_sampled_edges == [0]
    # a self-loop at the seed's own time is eligible (<=) and adds no node
    data = Data(edge_index=np.array([[0], [0]]), time=np.array([3]), num_nodes=1)
    batch = next(iter(NeighborLoader(data, [-1, -1], time_attr="time", node_attrs=["time"])))
    assert batch.n_id.tolist() == [0] and batch.edge_index.tolist() == [[0], [0]]
    assert batch.num_sampled_edges == [1, 0]


def test_input_time_overrides_the_node_times():
    ei = np.array([[1, 2], [0, 0]])
    data = Data(edge_index=ei, time=np.array([0, 5, 9]), num_nodes=3)
    kw = dict(input_nodes=np.array([0, 0]), batch_size=2, time_attr="time", node_attrs=["time"])
    batch = next(iter(NeighborLoader(data, [-1], input_time=np.array([5.5, 100]), **kw)))
    assert batch.n_id.tolist() == [0, 0, 1, 1, 2] and batch.batch.tolist() == [0, 1, 0, 1, 1]
    assert batch.seed_time.tolist() == [5.5, 100]
    batch = next(iter(NeighborLoader(data, [-1], **kw)))  # the seed's own time: 0
    assert batch.n_id.tolist() == [0, 0] and "seed_time" not in batch.keys()


def test_errors():
    data = _graph()
    with pytest.raises(ValueError, match="temporal_strategy must be 'uniform' or 'last'"):
        NeighborLoader(data, [2], temporal_strategy="first", **NODE_KW)
    with pytest.raises(TypeError, match="disjoint must be a bool"):
        NeighborLoader(data, [2], disjoint="yes", **NODE_KW)
    with pytest.raises(ValueError, match="must be named in node_attrs="):
        NeighborLoader(data, [2], time_attr="time", node_attrs=["x"], exclude_keys=["time",
                       "edge_time", "edge_attr"])  # fmt: skip
    with pytest.raises(ValueError, match="'input_time' is set while 'time_attr' is not set"):
        NeighborLoader(data, [2], input_time=np.zeros(30), **NODE_KW)
    with pytest.raises(ValueError, match=r"input_time \(one time per input node\) must have 3"):
        NeighborLoader(data, [2], input_nodes=np.arange(3), input_time=np.zeros(4),
                       time_attr="time", **NODE_KW)  # fmt: skip
    with pytest.raises(ValueError, match="needs input_time="):
        NeighborLoader(data, [2], time_attr="edge_time", **NODE_KW)
    bad = _graph()
    bad.time = np.zeros((30, 2))
    with pytest.raises(ValueError, match="node time 'time' must be 1-D"):
        NeighborLoader(bad, [2], time_attr="time", **NODE_KW)
    bad.time = np.zeros(30, dtype=bool)
    with pytest.raises(TypeError, match="must hold integer or float times"):
        NeighborLoader(bad, [2], time_attr="time", **NODE_KW)
    with pytest.raises(TypeError, match="must hold integer or float times"):
        NeighborLoader(data, [2], input_time=np.array(["a"] * 30), time_attr="time", **NODE_KW)
    with pytest.raises(ValueError, match="'edge_label_time' is set while 'time_attr' is not"):
        LinkNeighborLoader(data, [2], edge_label_time=np.zeros(160), **NODE_KW)
    with pytest.raises(ValueError, match="'edge_label_time' is not set while 'time_attr' is"):
        LinkNeighborLoader(data, [2], time_attr="time", **NODE_KW)
    with pytest.raises(ValueError, match="edge_label_time .* must have 160 entries"):
        LinkNeighborLoader(data, [2], time_attr="time", edge_label_time=np.zeros(5), **NODE_KW)


def test_disjoint_false_with_time_is_still_disjoint():
    data = _graph()
    loader = NeighborLoader(data, [2], disjoint=False, time_attr="time", **NODE_KW)
    assert loader.disjoint and "batch" in next(iter(loader)).keys()


# ----------------------------------------------------------------------------- heterogeneous


def _hetero(seed=0):
    rng = np.random.default_rng(seed)
    n = {"paper": 12, "author": 7, "venue": 3}
    data = HeteroData(
        paper={"x": rng.standard_normal((12, 2)), "t": rng.integers(0, 10, 12)},
        author={"num_nodes": 7, "t": rng.integers(0, 10, 7)},
        venue={"num_nodes": 3},  # no time: its relations are not constrained (as pyg-lib)
    )
    for et, e in [
        (("author", "writes", "paper"), 20),
        (("paper", "cites", "paper"), 25),
        (("venue", "hosts", "paper"), 12),
        (("paper", "rev_writes", "author"), 20),
    ]:
        ei = np.stack([rng.integers(0, n[et[0]], e), rng.integers(0, n[et[2]], e)])
        data[et].edge_index = ei
    data["paper", "cites", "paper"].edge_index[:, :2] = [[4, 4], [4, 4]]  # self-loop twice
    return data


def _check_hetero(batch, data, nodes, edges):
    for t in data.node_types:
        assert batch[t].n_id.tolist() == [v for _, v in nodes[t]], t
        assert batch[t].batch.tolist() == [b for b, _ in nodes[t]], t
    for et in data.edge_types:
        row, col, e_id = edges[et]
        assert batch[et].edge_index[0].tolist() == row, et
        assert batch[et].edge_index[1].tolist() == col, et
        assert batch[et].e_id.tolist() == e_id, et


@pytest.mark.parametrize("mode", ["disjoint", "node", "node+input_time"])
def test_hetero_full_fanout_equals_reference(mode):
    data = _hetero()
    seeds = np.array([0, 4, 4, 11, 2])
    input_time = np.array([3, 9, 1, 5, 0])
    kw = dict(input_nodes=("paper", seeds), batch_size=5)
    ref_kw = {}
    if mode == "disjoint":
        kw.update(disjoint=True, node_attrs=["x", "t"])
    else:
        kw["time_attr"] = "t"
        ref_kw["node_time"] = {"paper": data["paper"].t, "author": data["author"].t}
    if mode == "node+input_time":
        kw["input_time"] = input_time
        ref_kw["seed_time"] = input_time
    batch = next(iter(NeighborLoader(data, [-1, -1], **kw)))
    nodes, edges = ref_hetero(data, {"paper": seeds}, 2, **ref_kw)
    _check_hetero(batch, data, nodes, edges)
    assert batch["paper"].batch_size == 5 and batch["paper"].input_id.tolist() == list(range(5))
    np.testing.assert_array_equal(batch["paper"].t, data["paper"].t[batch["paper"].n_id])
    if mode == "node+input_time":
        assert batch["paper"].seed_time.tolist() == input_time.tolist()
    else:
        assert "seed_time" not in batch["paper"].keys()


def test_hetero_edge_time_and_invariants():
    data = _hetero(1)
    etimes = {}
    for et in data.edge_types[:3]:  # the last edge type has no time: unconstrained
        e = data[et].edge_index.shape[1]
        etimes[et] = np.random.default_rng(len(et[1])).integers(0, 10, e)
        data[et].et = etimes[et]
    seeds = np.arange(12)
    input_time = np.random.default_rng(3).integers(0, 10, 12)
    kw = dict(input_nodes=("paper", seeds), batch_size=12, node_attrs=["x", "t"])
    batch = next(iter(NeighborLoader(data, [-1, -1], time_attr="et", input_time=input_time,
                                     **kw)))  # fmt: skip
    nodes, edges = ref_hetero(data, {"paper": seeds}, 2, edge_time=etimes, seed_time=input_time)
    _check_hetero(batch, data, nodes, edges)
    np.testing.assert_array_equal(batch["cites"].et, etimes[("paper", "cites", "paper")][
        batch["cites"].e_id])  # fmt: skip
    for strategy in ("uniform", "last"):
        loader = NeighborLoader(data, [2, 2], time_attr="et", input_time=input_time, seed=0,
                                temporal_strategy=strategy, **kw)  # fmt: skip
        b = next(iter(loader))
        for et in data.edge_types:
            s_t, _, d_t = et
            row, col = b[et].edge_index
            e_id = b[et].e_id
            ei = data[et].edge_index
            np.testing.assert_array_equal(b[s_t].n_id[row], ei[0, e_id])
            np.testing.assert_array_equal(b[d_t].n_id[col], ei[1, e_id])
            np.testing.assert_array_equal(b[s_t].batch[row], b[d_t].batch[col])
            if et in etimes:
                assert (etimes[et][e_id] <= input_time[b[d_t].batch[col]]).all()
            assert (np.bincount(col, minlength=b[d_t].num_nodes) <= 2).all()
        for t in data.node_types:
            pairs = set(zip(b[t].batch.tolist(), b[t].n_id.tolist()))
            assert len(pairs) == b[t].num_nodes


def test_hetero_errors():
    data = _hetero()
    with pytest.raises(ValueError, match="neither a node-level nor an edge-level"):
        NeighborLoader(data, [2], input_nodes="paper", time_attr="nope")
    data["writes"].t = np.zeros(20)
    with pytest.raises(ValueError, match="holds both node-level and edge-level"):
        NeighborLoader(data, [2], input_nodes="paper", time_attr="t")
    data = _hetero()
    with pytest.raises(ValueError, match="input node type 'venue' has no 't'"):
        NeighborLoader(data, [2], input_nodes="venue", time_attr="t")
    NeighborLoader(data, [2], input_nodes="venue", time_attr="t", input_time=np.zeros(3))
    data["author"].t = np.zeros((7, 1))
    with pytest.raises(ValueError, match="node type 'author': time 't' must be 1-D"):
        NeighborLoader(data, [2], input_nodes="paper", time_attr="t")
    data = _hetero()
    data["writes"].et = np.zeros(20)
    with pytest.raises(ValueError, match="needs input_time="):
        NeighborLoader(data, [2], input_nodes="paper", time_attr="et", node_attrs=["x", "t"])


# ----------------------------------------------------------------------------- link loaders


@pytest.mark.parametrize("neg", [None, "binary", ("triplet", 2)])
def test_link_disjoint_full_fanout_equals_reference(neg):
    data = _graph(n=20, e=60, seed=8)
    label = np.array([[0, 3, 5, 7], [1, 3, 6, 19]])
    label_time = np.array([4, 10, 19, 0])
    loader = LinkNeighborLoader(
        data, [-1, -1], edge_label_index=label, edge_label_time=label_time, time_attr="time",
        batch_size=3, neg_sampling=neg, seed=1, **NODE_KW,
    )  # fmt: skip
    for batch in loader:
        pos = batch.input_id
        p = len(pos)
        n_seeds = batch.num_sampled_nodes[0]
        seeds = batch.n_id[:n_seeds]
        reps = n_seeds // p - 1  # triplet: 1 + amount destinations per label edge
        if neg == "binary":  # PyG: label edge j % P's time for entry j, sources and dests
            st = np.tile(label_time[pos], 4)[: n_seeds // 2]
            st = np.concatenate([st, st])
        elif neg is None:
            st = np.tile(label_time[pos], 2)
        else:
            st = np.concatenate([label_time[pos], np.tile(label_time[pos], reps)])
        assert np.array_equal(seeds[:p], label[0, pos])
        ei = data.edge_index
        ref = list(ref_homo(ei[0], ei[1], seeds, 2, node_time=data.time, seed_time=st))
        ref[1] = [b % p for b in ref[1]]
        _check_exact(batch, ref)
        if neg == ("triplet", 2):
            assert batch.src_index.tolist() == list(range(p))
            assert batch.dst_pos_index.tolist() == list(range(p, 2 * p))
            assert batch.dst_neg_index.tolist() == [[2 * p + i, 3 * p + i] for i in range(p)]
            assert seeds[p : 2 * p].tolist() == label[1, pos].tolist()
            assert batch.seed_time.tolist() == label_time[pos].tolist()
            negs = seeds[batch.dst_neg_index]
            assert (data.time[negs] <= label_time[pos][:, None]).all()  # temporal negatives
        else:
            k = n_seeds // 2
            assert batch.edge_label_index.tolist() == [list(range(k)), list(range(k, 2 * k))]
            assert batch.edge_label_time.tolist() == st[:k].tolist()
            if neg == "binary":
                assert batch.edge_label.tolist() == [1.0] * p + [0.0] * (k - p)
                negs = seeds[batch.edge_label_index[:, p:]]
                assert (data.time[negs] <= st[p:k]).all()


def test_link_disjoint_without_time():
    data = _graph(n=20, e=60, seed=9)
    loader = LinkNeighborLoader(data, [-1], batch_size=4, disjoint=True, **NODE_KW)
    batch = next(iter(loader))
    seeds = np.concatenate([data.edge_index[0, :4], data.edge_index[1, :4]])
    ei = data.edge_index
    ref = list(ref_homo(ei[0], ei[1], seeds, 1))
    ref[1] = [b % 4 for b in ref[1]]
    _check_exact(batch, ref)
    assert batch.edge_label_index.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert "edge_label_time" not in batch.keys()


@pytest.mark.parametrize("neg", [None, "binary", "triplet"])
def test_hetero_link_temporal(neg):
    data = _hetero(2)
    label = np.array([[0, 1, 2], [3, 5, 11]])  # (author, paper) pairs
    label_time = np.array([6, 2, 9])
    loader = LinkNeighborLoader(
        data, [-1, -1], edge_label_index=(("author", "writes", "paper"), label),
        edge_label_time=label_time, time_attr="t", batch_size=3, neg_sampling=neg, seed=0,
    )  # fmt: skip
    batch = next(iter(loader))
    a, p = batch["author"], batch["paper"]
    na, np_ = a.num_sampled_nodes[0], p.num_sampled_nodes[0]
    reps = 1 + (na - 3) // 3 if neg == "binary" else 1
    st_a = np.tile(label_time, reps)[:na]
    st_p = np.tile(label_time, np_ // 3 + 1)[:np_]
    nodes, edges = ref_hetero(
        data, {"author": a.n_id[:na], "paper": p.n_id[:np_]}, 2,
        node_time={"paper": data["paper"].t, "author": data["author"].t},
        seed_time=np.concatenate([st_a, st_p]),
    )  # fmt: skip
    for t in nodes:
        nodes[t] = [(b % 3, v) for b, v in nodes[t]]
    _check_hetero(batch, data, nodes, edges)
    store = batch["author", "writes", "paper"]
    assert store.input_id.tolist() == [0, 1, 2]
    if neg == "triplet":
        assert a.src_index.tolist() == [0, 1, 2] and p.dst_pos_index.tolist() == [0, 1, 2]
        assert p.dst_neg_index.tolist() == [3, 4, 5]
        assert a.seed_time.tolist() == p.seed_time.tolist() == label_time.tolist()
        assert (data["paper"].t[p.n_id[p.dst_neg_index]] <= label_time).all()
    else:
        k = na
        assert store.edge_label_index.tolist() == [list(range(k))] * 2
        assert store.edge_label_time.tolist() == st_a.tolist()
        assert a.n_id[:3].tolist() == label[0].tolist()


def test_hetero_link_same_type_disjoint():
    data = _hetero(3)
    loader = LinkNeighborLoader(data, [-1], edge_label_index="cites", batch_size=4,
                                disjoint=True, node_attrs=["x", "t"])  # fmt: skip
    batch = next(iter(loader))
    ei = data["cites"].edge_index
    seeds = np.concatenate([ei[0, :4], ei[1, :4]])
    nodes, edges = ref_hetero(data, {"paper": seeds}, 1, node_time=None, seed_time=[0] * 8)
    for t in nodes:
        nodes[t] = [(b % 4, v) for b, v in nodes[t]]
    _check_hetero(batch, data, nodes, edges)
    assert batch["cites"].edge_label_index.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_gpu_draw_by_random_keys_runs_on_numpy_too():
    # the CuPy path's without-replacement draw, run with NumPy: k distinct slots per range
    from arraygnn.disjoint_sampling import _draw_by_keys

    start, deg = np.array([0, 10, 10, 3]), np.array([10, 0, 3, 2])
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        owner, pos = _draw_by_keys(np, start, deg, 2, rng)
        assert np.bincount(owner, minlength=4).tolist() == [2, 0, 2, 2]
        for o in range(4):
            mine = pos[owner == o]
            assert len(set(mine.tolist())) == len(mine)
            assert ((mine >= start[o]) & (mine < start[o] + deg[o])).all()
        seen.update(pos[owner == 0].tolist())
    assert seen == set(range(10))  # every slot of the long range gets drawn


def test_gpu_draw_keeps_fully_kept_ranges_in_csc_order():
    # RULE: a centre with deg <= k keeps all its in-edges in CSC order (pyg-lib's case 1),
    # also when another centre of the frontier has more than k (the CuPy path's keys)
    from arraygnn.disjoint_sampling import _draw_by_keys

    start, deg = np.array([0, 10, 13, 20]), np.array([10, 3, 2, 1])
    for s in range(20):
        owner, pos = _draw_by_keys(np, start, deg, 3, np.random.default_rng(s))
        assert pos[owner == 1].tolist() == [10, 11, 12]
        assert pos[owner == 2].tolist() == [13, 14]
        assert pos[owner == 3].tolist() == [20]


class _NotNumPy:
    """NumPy under another name: the code paths taken for CuPy (``xp is not np``)."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("xp", [np, _NotNumPy()], ids=["numpy", "cupy-path"])
def test_csc_sorts_int64_times_exactly(xp):
    # nanosecond timestamps (> 2**53) must not be rounded through float64 when sorted:
    # the cut-off's binary search compares the exact times and needs them sorted
    t = np.array([2**60 + 1, 2**60, 2**60 + 2, 2**60], np.int64)
    rel = csc(xp, np.array([1, 2, 3, 4]), np.array([0, 0, 0, 0]), 5, t)
    assert rel.perm.tolist() == [1, 3, 0, 2]  # by time, ties by edge id
    assert rel.time.tolist() == [2**60, 2**60, 2**60 + 1, 2**60 + 2]


def test_sample_trees_needs_one_seed_time_per_tree_when_a_relation_has_times():
    from arraygnn.disjoint_sampling import csc, sample_trees

    rel = {("n", "e", "n"): csc(np, np.array([1, 2]), np.array([0, 0]), 3, np.array([1, 2]))}
    args = (np, {"n": 3}, rel, {"n": np.array([0, 1])}, {("n", "e", "n"): [2]})
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"sample_trees: seed_time is required"):
        sample_trees(*args, rng=rng)
    with pytest.raises(ValueError, match=r"sample_trees: seed_time must have 2 entries"):
        sample_trees(*args, seed_time=np.array([1]), rng=rng)
    out = sample_trees(*args, seed_time=np.array([1, 2]), rng=rng)
    assert out.n_id["n"].tolist() == [0, 1, 1] and out.batch["n"].tolist() == [0, 1, 0]


def test_uniform_reaches_every_eligible_neighbour_and_no_other():
    # node 0: in-edges from 1..8 (node times 1..8), seed time 5: eligible 1..5
    ei = np.array([np.arange(1, 9), np.zeros(8, dtype=np.int64)])
    data = Data(edge_index=ei, time=np.arange(9), num_nodes=9)
    loader = NeighborLoader(data, [2], input_nodes=np.array([0]), time_attr="time",
                            input_time=np.array([5]), node_attrs=["time"], seed=0)  # fmt: skip
    seen = set()
    for _ in range(60):
        batch = next(iter(loader))
        assert batch.num_nodes == 3 and len(set(batch.n_id[1:].tolist())) == 2
        seen.update(batch.n_id[1:].tolist())
    assert seen == {1, 2, 3, 4, 5}


def test_hetero_link_edge_time_constrains_only_timed_edge_types():
    data = _hetero(4)
    timed = ("author", "writes", "paper")
    data[timed].et = np.random.default_rng(0).integers(0, 10, 20)
    label = np.array([[0, 1, 2, 3], [3, 5, 11, 0]])
    label_time = np.array([6, 2, 9, 0])
    loader = LinkNeighborLoader(
        data, [3, 3], edge_label_index=(timed, label), edge_label_time=label_time,
        time_attr="et", batch_size=4, seed=0, node_attrs=["x", "t"],
    )  # fmt: skip
    batch = next(iter(loader))
    for et in data.edge_types:
        s_t, _, d_t = et
        row, col = batch[et].edge_index
        ei = data[et].edge_index
        np.testing.assert_array_equal(batch[s_t].n_id[row], ei[0, batch[et].e_id])
        np.testing.assert_array_equal(batch[d_t].n_id[col], ei[1, batch[et].e_id])
        np.testing.assert_array_equal(batch[s_t].batch[row], batch[d_t].batch[col])
    e_id, col = batch[timed].e_id, batch[timed].edge_index[1]
    assert (data[timed].et[e_id] <= label_time[batch["paper"].batch[col]]).all()
    np.testing.assert_array_equal(batch[timed].et, data[timed].et[e_id])
    assert batch[timed].edge_label_time.tolist() == label_time.tolist()


# ----------------------------------------------------------------------------- PyG's Python side
# PyG's loaders run here up to the C++ sampler: NodeLoader / LinkLoader with a sampler whose
# sampling function is the reference expansion above (pyg-lib's semantics), fed through
# PyG's own node_sample / edge_sample and filter_fn. The batches must equal ours.


def _pyg_homo_sampler(torch, data, hops, node_time=None, edge_time=None):
    from torch_geometric.sampler import BaseSampler, SamplerOutput
    from torch_geometric.sampler.neighbor_sampler import edge_sample, node_sample

    ei = data.edge_index

    def sample_fn(seed, seed_time):
        st = None if seed_time is None else seed_time.tolist()
        n_id, b, row, col, e_id, nn_, ne_ = ref_homo(
            ei[0], ei[1], seed.tolist(), hops, node_time=node_time, edge_time=edge_time,
            seed_time=st,
        )  # fmt: skip
        t = lambda v: torch.tensor(v, dtype=torch.long)  # noqa: E731
        return SamplerOutput(t(n_id), t(row), t(col), t(e_id), t(b), nn_, ne_)

    class Ref(BaseSampler):
        def sample_from_nodes(self, inputs):
            return node_sample(inputs, sample_fn)

        def sample_from_edges(self, inputs, neg_sampling=None):
            nt = None if node_time is None else torch.as_tensor(node_time)
            return edge_sample(inputs, sample_fn, data.num_nodes, True, nt, neg_sampling)

        @property
        def edge_permutation(self):
            return None

    return Ref()


def _to_pyg(torch, data):
    from torch_geometric.data import Data as PygData

    return PygData(
        x=torch.as_tensor(data.x), edge_index=torch.as_tensor(data.edge_index).long(),
        time=torch.as_tensor(data.time), edge_time=torch.as_tensor(data.edge_time),
        edge_attr=torch.as_tensor(data.edge_attr), num_nodes=data.num_nodes,
    )  # fmt: skip


def _same_as_pyg(ours, theirs):
    keys = set(theirs.keys())
    assert keys <= set(ours.keys()), keys - set(ours.keys())
    for key in keys:
        mine, ref = ours[key], theirs[key]
        if hasattr(ref, "numpy"):
            np.testing.assert_array_equal(np.asarray(mine), ref.numpy(), err_msg=key)
        else:
            assert mine == ref, key


@pytest.mark.parametrize("time", ["time", "input_time", "edge_time"])
def test_neighbor_loader_equals_pygs_pipeline(time):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import NodeLoader

    data = _graph(n=25, e=90, seed=11)
    seeds = np.array([0, 3, 24, 3, 9, 17])
    input_time = np.random.default_rng(4).integers(0, 20, len(seeds))
    kw = dict(NODE_KW, input_nodes=seeds, batch_size=4, time_attr=time)
    pyg_kw = dict(input_nodes=torch.as_tensor(seeds), batch_size=4)
    ref_kw = dict(node_time=data.time)
    if time != "time":
        kw.update(input_time=input_time)
        pyg_kw.update(input_time=torch.as_tensor(input_time))
    if time == "input_time":
        kw["time_attr"] = "time"
    if time == "edge_time":
        ref_kw = dict(edge_time=data.edge_time)
    sampler = _pyg_homo_sampler(torch, data, 2, **ref_kw)
    theirs = list(NodeLoader(_to_pyg(torch, data), sampler, **pyg_kw))
    ours = list(NeighborLoader(data, [-1, -1], **kw))
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert {"batch", "n_id", "e_id", "input_id", "x", "time"} <= set(b.keys())
        assert ("seed_time" in b.keys()) == (time != "time")
        _same_as_pyg(a, b)


def test_link_neighbor_loader_equals_pygs_pipeline():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import LinkLoader

    data = _graph(n=25, e=90, seed=12)
    label = np.array([[0, 3, 5, 7, 24], [1, 3, 6, 20, 2]])
    label_time = np.array([4, 10, 19, 0, 7])
    sampler = _pyg_homo_sampler(torch, data, 2, node_time=data.time)
    theirs = list(LinkLoader(
        _to_pyg(torch, data), sampler, edge_label_index=torch.as_tensor(label),
        edge_label_time=torch.as_tensor(label_time), batch_size=3,
    ))  # fmt: skip
    ours = list(LinkNeighborLoader(
        data, [-1, -1], edge_label_index=label, edge_label_time=label_time,
        time_attr="time", batch_size=3, **NODE_KW,
    ))  # fmt: skip
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert {"batch", "edge_label_index", "edge_label_time", "input_id"} <= set(b.keys())
        _same_as_pyg(a, b)


def _pyg_hetero(torch, data):
    from torch_geometric.data import HeteroData as PygHetero

    out = PygHetero()
    for t, store in data.node_items():
        for key, value in store.items():
            out[t][key] = value if key == "num_nodes" else torch.as_tensor(value)
    for et, store in data.edge_items():
        for key, value in store.items():
            out[et][key] = torch.as_tensor(value)
    return out


def _pyg_hetero_sampler(torch, data, hops, node_time):
    from torch_geometric.sampler import BaseSampler, HeteroSamplerOutput
    from torch_geometric.sampler.neighbor_sampler import edge_sample, node_sample

    def sample_fn(seed_dict, seed_time_dict):
        seeds = {t: v.tolist() for t, v in seed_dict.items()}
        st = None
        if seed_time_dict is not None:
            st = [x for t in seed_dict for x in seed_time_dict[t].tolist()]
        nodes, edges = ref_hetero(data, seeds, hops, node_time=node_time, seed_time=st)
        t = lambda v: torch.tensor(v, dtype=torch.long)  # noqa: E731
        return HeteroSamplerOutput(
            node={k: t([v for _, v in n]) for k, n in nodes.items()},
            row={k: t(e[0]) for k, e in edges.items()},
            col={k: t(e[1]) for k, e in edges.items()},
            edge={k: t(e[2]) for k, e in edges.items()},
            batch={k: t([b for b, _ in n]) for k, n in nodes.items()},
        )

    class Ref(BaseSampler):
        def sample_from_nodes(self, inputs):
            return node_sample(inputs, sample_fn)

        def sample_from_edges(self, inputs, neg_sampling=None):
            nt = {k: torch.as_tensor(v) for k, v in node_time.items()}
            counts = {k: s.num_nodes for k, s in data.node_items()}
            return edge_sample(inputs, sample_fn, counts, True, nt, neg_sampling)

        @property
        def edge_permutation(self):
            return None

    return Ref()


def _same_hetero(ours, theirs):
    for t in theirs.node_types:
        _same_as_pyg(ours[t], theirs[t])
    for et in theirs.edge_types:
        _same_as_pyg(ours[et], theirs[et])


def test_hetero_loaders_equal_pygs_pipeline():
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.loader import LinkLoader, NodeLoader

    data = _hetero(5)
    node_time = {"paper": data["paper"].t, "author": data["author"].t}
    sampler = _pyg_hetero_sampler(torch, data, 2, node_time)
    seeds = np.array([0, 4, 4, 11, 2])
    input_time = np.array([3, 9, 1, 5, 0])
    for given in (None, input_time):
        pyg_kw = {} if given is None else {"input_time": torch.as_tensor(given)}
        theirs = NodeLoader(
            _pyg_hetero(torch, data), sampler, input_nodes=("paper", torch.as_tensor(seeds)),
            batch_size=5, **pyg_kw,
        )  # fmt: skip
        ours = NeighborLoader(
            data, [-1, -1], input_nodes=("paper", seeds), batch_size=5, time_attr="t",
            input_time=given,
        )  # fmt: skip
        ours, theirs = next(iter(ours)), next(iter(theirs))
        assert "batch" in theirs["author"].keys() and "input_id" in theirs["paper"].keys()
        _same_hetero(ours, theirs)
    et = ("author", "writes", "paper")
    label = np.array([[0, 1, 2, 3], [3, 5, 11, 0]])
    label_time = np.array([6, 2, 9, 0])
    theirs = list(LinkLoader(
        _pyg_hetero(torch, data), sampler, edge_label_index=(et, torch.as_tensor(label)),
        edge_label_time=torch.as_tensor(label_time), batch_size=3,
    ))  # fmt: skip
    ours = list(LinkNeighborLoader(
        data, [-1, -1], edge_label_index=(et, label), edge_label_time=label_time,
        time_attr="t", batch_size=3,
    ))  # fmt: skip
    assert len(ours) == len(theirs) == 2
    for a, b in zip(ours, theirs):
        assert "edge_label_time" in b[et].keys() and "batch" in b["paper"].keys()
        _same_hetero(a, b)
