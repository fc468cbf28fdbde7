"""Review of the neighbour samplers' output order against pyg-lib's kernel.

pyg-lib's ``neighbor_kernel.cpp`` (what PyG's ``NeighborLoader`` runs) samples hop by hop,
frontier node by frontier node in frontier order; each node's in-edges come out in CSC
column order (PyG's ``to_csc``: a sort by target, stable in pyg-lib's radix
``index_sort``, so edge-id order within a column; an ``is_sorted`` input keeps its own
order, again edge-id order) and a node is numbered when it is first seen in that stream.
Sampling is deterministic where every in-edge is taken (fan-out ``-1``, or a fan-out at
least the degree without replacement): there the batches must equal the transcription
below exactly (``n_id``, ``edge_index``, ``e_id``, per-hop counts).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.sampler import NeighborSampler, NodeSamplerInput


def _pyg_lib_sample(src, dst, seeds, fanouts):
    """pyg-lib's homogeneous, non-disjoint ``sample`` with every in-edge taken: ``(n_id,
    row, col, e_id, num_sampled_nodes, num_sampled_edges)`` (``row`` the neighbour's
    position, ``col`` the frontier node's), edges as graph edge ids."""
    csc = np.argsort(dst, kind="stable")  # to_csc: by target, edge-id order within
    nodes = [int(s) for s in seeds]
    local = {v: i for i, v in enumerate(nodes)}
    rows, cols, eids = [], [], []
    num_nodes, num_edges = [len(nodes)], []
    begin, end = 0, len(nodes)
    for _ in fanouts:
        hop = 0
        for i in range(begin, end):
            for e in csc[dst[csc] == nodes[i]]:
                u = int(src[e])
                if u not in local:
                    local[u] = len(nodes)
                    nodes.append(u)
                rows.append(local[u])
                cols.append(i)
                eids.append(int(e))
                hop += 1
        begin, end = end, len(nodes)
        num_nodes.append(end - begin)
        num_edges.append(hop)
    return nodes, rows, cols, eids, num_nodes, num_edges


def _graph(n=16, e=48, seed=0, dtype=np.int64):
    """Random edges plus self-loops, multi-edges, an isolated node (n - 1) and a node
    without in-edges (n - 2)."""
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n - 2, (2, e))
    ei[:, :5] = [[1, 2, 2, 7, 7], [1, 3, 3, 7, 4]]
    ei = np.concatenate([ei, [[n - 2, n - 2], [0, 4]]], axis=1).astype(dtype)
    return Data(x=rng.normal(size=(n, 2)), edge_index=ei, num_nodes=n)


def _max_in_degree(data):
    return int(np.bincount(data.edge_index[1], minlength=data.num_nodes).max())


def _check_batch(batch, data, seeds, fanouts):
    src, dst = np.asarray(data.edge_index, dtype=np.int64)
    n_id, row, col, e_id, nsn, nse = _pyg_lib_sample(src, dst, seeds, fanouts)
    assert batch.n_id.tolist() == n_id
    assert batch.edge_index[0].tolist() == row
    assert batch.edge_index[1].tolist() == col
    assert batch.e_id.tolist() == e_id
    assert list(batch.num_sampled_nodes) == nsn
    assert list(batch.num_sampled_edges) == nse


def test_author_example_seeds_5_2_11():
    """The reported case: seeds [5, 2, 11], full fan-outs."""
    from tests.test_sampler_more import _graph as authors_graph

    data = authors_graph()
    loader = NeighborLoader(data, [-1, -1], input_nodes=np.array([5, 2, 11]), batch_size=3)
    batch = next(iter(loader))
    assert batch.n_id.tolist()[:9] == [5, 2, 11, 6, 1, 10, 7, 8, 3]
    _check_batch(batch, data, [5, 2, 11], [-1, -1])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("full", ["minus_one", "degree"])
@pytest.mark.parametrize("hops", [1, 2, 3])
def test_neighbor_loader_full_fanouts_in_pyg_lib_order(dtype, full, hops):
    data = _graph(dtype=dtype, seed=hops)
    k = -1 if full == "minus_one" else _max_in_degree(data) + (hops - 1)
    fanouts = [k] * hops
    for replace in [False, True] if k == -1 else [False]:
        loader = NeighborLoader(data, fanouts, batch_size=4, replace=replace, seed=1)
        for batch in loader:
            _check_batch(batch, data, batch.n_id[: batch.batch_size].tolist(), fanouts)
    # seeds: isolated (15), no in-edges (14), self-loop / multi-edge owners, in any order
    for seeds in [[15], [14, 15], [7, 3, 1, 0], [11, 4, 2]]:
        loader = NeighborLoader(data, fanouts, input_nodes=np.array(seeds), batch_size=8)
        _check_batch(next(iter(loader)), data, seeds, fanouts)


def test_neighbor_loader_mixed_fanouts_full_hops_grouped():
    """A sampled hop then a full hop: the full hop's edges are grouped by frontier node in
    frontier order, each node's in edge-id order, and numbered on first sight."""
    data = _graph(n=40, e=200, seed=5)
    src, dst = data.edge_index
    loader = NeighborLoader(data, [2, -1], batch_size=5, seed=3)
    for batch in loader:
        first, second = batch.num_sampled_edges
        n0, n1 = batch.num_sampled_nodes[:2]
        col = batch.edge_index[1]
        # hop 1: grouped by seed position (pyg-lib samples seed by seed)
        assert np.all(np.diff(col[:first]) >= 0)
        frontier = batch.n_id[n0 : n0 + n1]
        got = batch.e_id[first : first + second].tolist()
        csc = np.argsort(dst, kind="stable")
        want = [int(e) for v in frontier for e in csc[dst[csc] == v]]
        assert got == want
        # new nodes are numbered in order of first sight in the edge stream
        rows = batch.edge_index[0]
        seen = []
        for r in rows:
            if r >= batch.batch_size and r not in seen:
                seen.append(int(r))
        assert seen == list(range(batch.batch_size, batch.num_nodes))


def test_sampled_hops_grouped_by_frontier_node():
    """A fan-out below the degree: the edges still come grouped by frontier node (the
    frontier order), ``min(k, deg)`` each, and the sampled sets are uniform draws."""
    data = _graph(n=60, e=600, seed=2)
    loader = NeighborLoader(data, [3, 2], batch_size=7, seed=0)
    deg = np.bincount(data.edge_index[1], minlength=60)
    for batch in loader:
        start, n_start = 0, 0
        for hop, count in enumerate(batch.num_sampled_edges):
            col = batch.edge_index[1][start : start + count]
            assert np.all(np.diff(col) >= 0)
            size = batch.num_sampled_nodes[hop]
            front = np.arange(n_start, n_start + size)
            k = [3, 2][hop]
            want = np.minimum(deg[batch.n_id[front]], k)
            assert np.bincount(col - n_start, minlength=size).tolist() == want.tolist()
            start += count
            n_start += size


def test_link_neighbor_loader_full_fanouts_in_pyg_lib_order():
    """LinkNeighborLoader (the same core): seeds are the label edges' endpoints, sorted
    and each once (PyG's ``unique``), then pyg-lib's node sampling."""
    data = _graph(seed=4)
    label = np.array([[5, 0, 9, 5], [3, 12, 1, 8]])
    loader = LinkNeighborLoader(data, [-1, -1], edge_label_index=label, batch_size=4)
    batch = next(iter(loader))
    seeds = np.unique(label).tolist()
    _check_batch(batch, data, seeds, [-1, -1])


def test_neighbor_sampler_full_fanouts_in_pyg_lib_order():
    data = _graph(seed=6)
    sampler = NeighborSampler(data, [-1, -1])
    seeds = [9, 3, 14, 0]
    out = sampler.sample_from_nodes(NodeSamplerInput(None, np.array(seeds)))
    src, dst = data.edge_index
    n_id, row, col, e_id, nsn, nse = _pyg_lib_sample(src, dst, seeds, [-1, -1])
    assert out.node.tolist() == n_id
    assert out.row.tolist() == row and out.col.tolist() == col
    assert out.edge.tolist() == e_id
    assert list(out.num_sampled_nodes) == nsn and list(out.num_sampled_edges) == nse


def test_repeated_seeds_edges_grouped_by_position():
    """A seed listed twice: every copy gets its edges (arraygnn's rule; pyg-lib's own
    numbering breaks on repeated seeds), grouped by seed position like the others."""
    data = _graph(seed=7)
    seeds = [5, 2, 5, 11]
    batch = next(iter(NeighborLoader(data, [-1], input_nodes=np.array(seeds), batch_size=4)))
    first = batch.num_sampled_edges[0]
    col = batch.edge_index[1][:first]
    assert np.all(np.diff(col) >= 0)
    src, dst = data.edge_index
    csc = np.argsort(dst, kind="stable")
    want = [int(e) for v in seeds for e in csc[dst[csc] == v]]
    assert batch.e_id.tolist() == want
    assert batch.n_id[:4].tolist() == seeds


# ----------------------------------------------------------------- heterogeneous loader
def _hetero(seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["paper"].x = np.arange(12.0)[:, None]
    d["author"].x = np.arange(8.0)[:, None]
    writes = np.stack([rng.integers(0, 8, 30), rng.integers(0, 12, 30)]).astype(dtype)
    writes[:, :2] = [[3, 3], [4, 4]]  # a multi-edge
    d["author", "writes", "paper"].edge_index = writes
    cites = rng.integers(0, 12, (2, 25)).astype(dtype)
    cites[:, 0] = [6, 6]  # a self-loop
    d["paper", "cites", "paper"].edge_index = cites
    d["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
    return d


def _pyg_lib_hetero(data, edge_types, seed_dict, hops):
    """pyg-lib's heterogeneous, non-disjoint ``sample`` (one thread) with every in-edge
    taken: per hop, per edge type in order, per frontier node of its target type in
    frontier order, the node's in-edges in CSC order; nodes numbered on first sight."""
    nodes = {t: [] for t in data.node_types}
    local = {t: {} for t in data.node_types}
    for t, seeds in seed_dict.items():
        nodes[t] = [int(s) for s in seeds]
        local[t] = {v: i for i, v in enumerate(nodes[t])}
    sl = {t: (0, len(nodes[t])) for t in data.node_types}
    edges = {et: ([], [], []) for et in edge_types}
    for _ in range(hops):
        before = {t: len(nodes[t]) for t in data.node_types}
        for et in edge_types:
            s, _, d = et
            src, dst = np.asarray(data[et].edge_index, dtype=np.int64)
            csc = np.argsort(dst, kind="stable")
            for i in range(*sl[d]):
                for e in csc[dst[csc] == nodes[d][i]]:
                    u = int(src[e])
                    if u not in local[s]:
                        local[s][u] = len(nodes[s])
                        nodes[s].append(u)
                    edges[et][0].append(local[s][u])
                    edges[et][1].append(i)
                    edges[et][2].append(int(e))
        sl = {t: (before[t], len(nodes[t])) for t in data.node_types}
    return nodes, edges


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("hops", [1, 2])
def test_hetero_neighbor_loader_full_fanouts_in_pyg_lib_order(dtype, hops):
    data = _hetero(dtype=dtype)
    for seeds in [[4, 0, 6], [11, 2], [6]]:
        loader = NeighborLoader(
            data, [-1] * hops, input_nodes=("paper", np.array(seeds)), batch_size=8
        )
        batch = next(iter(loader))
        _check_hetero(batch, data, loader.edge_types, {"paper": seeds}, hops)


def _check_hetero(batch, data, edge_types, seed_dict, hops):
    nodes, edges = _pyg_lib_hetero(data, edge_types, seed_dict, hops)
    for t in data.node_types:
        assert batch[t].n_id.tolist() == nodes[t], t
    for et in edge_types:
        row, col, eid = edges[et]
        assert batch[et].edge_index[0].tolist() == row, et
        assert batch[et].edge_index[1].tolist() == col, et
        assert batch[et].e_id.tolist() == eid, et


def test_hetero_link_neighbor_loader_full_fanouts_in_pyg_lib_order():
    """The hetero link loader: seeds per node type sorted and each once (PyG's
    ``unique``), then pyg-lib's sampling from every seed type at once."""
    data = _hetero(seed=2)
    et = ("author", "writes", "paper")
    label = np.array([[5, 1, 5], [9, 0, 3]])
    loader = LinkNeighborLoader(data, [-1, -1], edge_label_index=(et, label), batch_size=3)
    batch = next(iter(loader))
    seeds = {"author": np.unique(label[0]).tolist(), "paper": np.unique(label[1]).tolist()}
    _check_hetero(batch, data, loader.edge_types, seeds, 2)


def test_hetero_repeated_seeds_edges_grouped_by_position():
    data = _hetero(seed=3)
    seeds = [2, 7, 2, 5]
    loader = NeighborLoader(data, [-1], input_nodes=("paper", np.array(seeds)), batch_size=4)
    batch = next(iter(loader))
    for et in loader.edge_types:
        if et[2] != "paper":
            continue
        src, dst = data[et].edge_index
        csc = np.argsort(dst, kind="stable")
        want = [int(e) for v in seeds for e in csc[dst[csc] == v]]
        assert batch[et].e_id.tolist() == want, et
        assert np.all(np.diff(batch[et].edge_index[1]) >= 0)
