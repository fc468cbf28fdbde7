"""``NumNeighbors``, ``HGTSampler`` and ``BidirectionalNeighborSampler`` (arraygnn.sampler)
against torch_geometric 2.8.

``NumNeighbors`` is compared with PyG's class itself. PyG's ``HGTSampler`` needs
torch-sparse and its ``NeighborSampler`` pyg-lib or torch-sparse (neither installable
here): ``HGTSampler`` is compared with the Python transcription of torch_sparse's
``hgt_sample`` used for ``HGTLoader`` (tests/data/test_loaders_sampled.py), and PyG's real
``BidirectionalNeighborSampler`` runs with its two one-hop samplers replaced by a
transcription of pyg-lib's full-fan-out neighbour sampling (returning graph edge ids), so
PyG's own merge and collate code makes the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.hetero_link_neighbor_loader import HeteroLinkNeighborLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.node_loader import NodeLoader
from arraygnn.sampler import (
    BidirectionalNeighborSampler,
    EdgeSamplerInput,
    HGTSampler,
    NeighborSampler,
    NodeSamplerInput,
    NumNeighbors,
)
from tests.data.test_loaders_sampled import hgt_graph, hgt_reference


def _graph(n=14, e=40, seed=0, dtype=np.int64):
    """Random edges plus a self-loop, a multi-edge, an isolated node (n - 1) and a node
    without in-edges (n - 2)."""
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n - 2, (2, e))
    ei[:, :3] = [[1, 2, 2], [1, 3, 3]]
    ei = np.concatenate([ei, [[n - 2, n - 2], [0, 4]]], axis=1).astype(dtype)
    return Data(x=rng.normal(size=(n, 2)), edge_index=ei, num_nodes=n)


def _hetero(seed=0, dtype=np.int64):
    rng = np.random.default_rng(seed)
    d = HeteroData()
    d["paper"].x = np.arange(12.0)[:, None]
    d["author"].x = np.arange(8.0)[:, None]
    writes = np.stack([rng.integers(0, 8, 30), rng.integers(0, 12, 30)]).astype(dtype)
    d["author", "writes", "paper"].edge_index = writes
    d["paper", "cites", "paper"].edge_index = rng.integers(0, 12, (2, 25)).astype(dtype)
    d["paper", "rev_writes", "author"].edge_index = writes[::-1].copy()
    return d


def _same_batches(a, b, keys):
    for x, y in zip(a, b, strict=True):
        for key in keys:
            va, vb = x[key], y[key]
            if isinstance(va, np.ndarray):
                np.testing.assert_array_equal(va, vb, err_msg=key)
            else:
                assert va == vb, key


# --------------------------------------------------------------------------- NumNeighbors
_ET = [("a", "r", "b"), ("b", "s", "a"), ("a", "t", "a")]
_CASES = [
    ([2, 3], None),
    ((4,), None),
    ([], None),
    ({("a", "r", "b"): [1, 2]}, [3, 4]),
    ({"a__r__b": [1, 2], ("b", "s", "a"): [5, 6], ("a", "t", "a"): [-1, 0]}, None),
    ({("a", "b"): [1]}, None),
    ({}, [2]),
    ({("a", "r", "b"): [1, 2]}, [3]),  # hops differ once default fills a type
    ({("a", "r", "b"): [1]}, None),  # missing types without default
    ({("x", "r", "y"): [1]}, [1]),  # not an edge type
]


def _outcome(fn, *args):
    try:
        return fn(*args)
    except ValueError as err:
        return ("ValueError", str(err))


@pytest.mark.parametrize("values,default", _CASES)
def test_num_neighbors_equals_pyg(values, default):
    pyg = pytest.importorskip("torch_geometric.sampler.base")
    ours, ref = NumNeighbors(values, default), pyg.NumNeighbors(values, default)
    assert ours.values == ref.values and ours.default == ref.default
    assert repr(ours) == repr(ref).replace("torch_geometric.sampler.base.", "")
    assert ours.num_hops == ref.num_hops and len(ours) == len(ref)
    for types in [None, _ET, _ET[:1]]:
        for name in ["get_values", "get_mapped_values"]:
            fresh_ours, fresh_ref = NumNeighbors(values, default), pyg.NumNeighbors(values, default)
            got = _outcome(getattr(fresh_ours, name), types)
            want = _outcome(getattr(fresh_ref, name), types)
            assert got == want, (name, types)
            if isinstance(got, dict):  # tuple keys, or 'src__rel__dst' strings when mapped
                assert [type(k) is tuple for k in got] == [type(k) is tuple for k in want]


def test_num_neighbors_equality_frozen_and_errors():
    pyg = pytest.importorskip("torch_geometric.sampler.base")
    a = NumNeighbors({("a", "r", "b"): [1]}, default=[2])
    assert a == NumNeighbors({"a__r__b": [1]}, default=[2])
    assert a != NumNeighbors({"a__r__b": [1]}) and a != NumNeighbors([1])
    with pytest.raises(AttributeError):
        a.values = [1]  # frozen, as PyG's
    for args in [([1], [2]), ({"ab": [1]},)]:
        with pytest.raises(ValueError) as ours:
            NumNeighbors(*args)
        with pytest.raises(ValueError) as ref:
            pyg.NumNeighbors(*args)
        assert str(ours.value) == str(ref.value)
    with pytest.raises(TypeError, match="NumNeighbors: values must be a list"):
        NumNeighbors(5)  # PyG fails later, on use
    with pytest.raises(TypeError, match="default must be a list"):
        NumNeighbors({}, default=3)
    # remembered per argument (PyG returns its first answer whatever the argument)
    b = NumNeighbors({}, default=[1])
    assert b.get_values(_ET[:1]) == {_ET[0]: [1]}
    assert b.get_values(_ET) == {et: [1] for et in _ET}


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_neighbor_loaders_take_num_neighbors(dtype):
    data = _graph(dtype=dtype)
    keys = ["n_id", "e_id", "edge_index", "x", "num_sampled_nodes", "num_sampled_edges"]
    for cls, kw in [
        (NeighborLoader, dict(batch_size=4)),
        (NeighborLoader, dict(batch_size=3, disjoint=True)),
        (LinkNeighborLoader, dict(batch_size=5, neg_sampling="binary")),
    ]:
        a = cls(data, [2, -1], seed=7, **kw)
        b = cls(data, NumNeighbors([2, -1]), seed=7, **kw)
        assert b.num_neighbors == [2, -1]
        _same_batches(a, b, keys + (["edge_label_index"] if cls is LinkNeighborLoader else []))
    ref = NeighborSampler(data, [3, 1], seed=1)
    got = NeighborSampler(data, NumNeighbors([3, 1]), seed=1)
    idx = NodeSamplerInput(None, np.array([0, 5, 9]))
    x, y = ref.sample_from_nodes(idx), got.sample_from_nodes(idx)
    for f in ["node", "row", "col", "edge"]:
        np.testing.assert_array_equal(getattr(x, f), getattr(y, f))
    with pytest.raises(ValueError, match="NeighborLoader: num_neighbors is a NumNeighbors per"):
        NeighborLoader(data, NumNeighbors({("a", "r", "b"): [1]}))


def test_hetero_loaders_take_num_neighbors_with_default():
    d = _hetero()
    writes, cites, rev = d.edge_types
    full = {writes: [2, 1], cites: [3, 3], rev: [3, 3]}
    nn = NumNeighbors({writes: [2, 1]}, default=[3, 3])
    keys = ["n_id", "e_id", "edge_index", "x", "num_sampled_nodes", "num_sampled_edges"]

    def stores(loader):
        for batch in loader:
            yield {k: batch[t][k] for t in batch.node_types + batch.edge_types for k in keys
                   if k in batch[t]}  # fmt: skip

    a = NeighborLoader(d, full, input_nodes=("paper", None), batch_size=4, seed=3)
    b = NeighborLoader(d, nn, input_nodes=("paper", None), batch_size=4, seed=3)
    assert b.num_neighbors == full
    for x, y in zip(stores(a), stores(b), strict=True):
        assert x.keys() == y.keys()
        for k in x:
            np.testing.assert_array_equal(x[k], y[k])
    la = HeteroLinkNeighborLoader(d, full, edge_label_index=writes, batch_size=6, seed=2)
    lb = HeteroLinkNeighborLoader(d, nn, edge_label_index=writes, batch_size=6, seed=2)
    for x, y in zip(la, lb, strict=True):
        for t in d.node_types:
            np.testing.assert_array_equal(x[t].n_id, y[t].n_id)
        np.testing.assert_array_equal(x[writes].edge_label_index, y[writes].edge_label_index)
    s = NeighborSampler(d, nn, seed=0)
    out = s.sample_from_nodes(NodeSamplerInput(None, np.array([1, 2]), None, "paper"))
    ref = NeighborSampler(d, full, seed=0).sample_from_nodes(
        NodeSamplerInput(None, np.array([1, 2]), None, "paper")
    )
    for t in d.node_types:
        np.testing.assert_array_equal(out.node[t], ref.node[t])
    with pytest.raises(ValueError, match="Missing number of neighbors for edge type"):
        NeighborLoader(d, NumNeighbors({writes: [1]}), input_nodes="paper")
    with pytest.raises(ValueError, match="Not all edge types specified"):
        NeighborLoader(d, NumNeighbors({("a", "r", "b"): [1]}, [1]), input_nodes="paper")
    with pytest.raises(ValueError, match="Number of hops must be the same"):
        NeighborLoader(d, NumNeighbors({writes: [1]}, [1, 1]), input_nodes="paper")


# --------------------------------------------------------------------------- HGTSampler
@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_hgt_sampler_taking_whole_budgets_equals_the_reference(hops, dtype):
    d = hgt_graph(hops)
    for et in d.edge_types:
        d[et].edge_index = d[et].edge_index.astype(dtype)
    sampler = HGTSampler(d, [1000] * hops)
    assert sampler.num_hops == hops and sampler.edge_permutation is None
    for seeds in [np.array([0, 3, 6]), np.array([29]), np.array([5, 5, 7])[:2]]:
        nodes, edges = hgt_reference(d, seeds, hops)
        out = sampler.sample_from_nodes(
            NodeSamplerInput(np.arange(len(seeds)), seeds.astype(dtype), None, "paper")
        )
        assert out.batch is None and out.num_sampled_nodes is None
        for t in d.node_types:
            assert out.node[t].tolist() == nodes[t]
        for et in d.edge_types:
            got = list(zip(out.row[et].tolist(), out.col[et].tolist(), out.edge[et].tolist()))
            assert got == edges[et]
            src, dst = d[et].edge_index
            np.testing.assert_array_equal(src[out.edge[et]], out.global_row[et])
            np.testing.assert_array_equal(dst[out.edge[et]], out.global_col[et])
        np.testing.assert_array_equal(out.metadata[0], np.arange(len(seeds)))


def test_hgt_sampler_draws_what_hgt_loader_draws():
    from arraygnn.hgt_loader import HGTLoader

    d = hgt_graph(1, big=True)
    samples = {"paper": [3, 2], "author": [2, 4]}
    seeds = np.arange(0, 30, 2)
    loader = HGTLoader(d, samples, input_nodes=("paper", seeds), batch_size=5, seed=11)
    sampler = HGTSampler(d, samples, seed=11)
    via = NodeLoader(d, sampler, input_nodes=("paper", seeds), batch_size=5)
    for batch, other in zip(loader, via, strict=True):
        for t in d.node_types:
            np.testing.assert_array_equal(batch[t].n_id, other[t].n_id)
        for et in d.edge_types:
            np.testing.assert_array_equal(batch[et].edge_index, other[et].edge_index)
            np.testing.assert_array_equal(batch[et].e_id, other[et].e_id)
            if "edge_attr" in d[et]:
                np.testing.assert_array_equal(other[et].edge_attr[:, 0], other[et].e_id)
    # the draws: at most num_samples a hop, each once, each an in-neighbour of a drawn node
    s = HGTSampler(d, samples, seed=0)
    for _ in range(20):
        out = s.sample_from_nodes(NodeSamplerInput(None, np.array([0, 1]), None, "paper"))
        assert len(out.node["paper"]) <= 2 + 3 + 2 and len(out.node["author"]) <= 6
        for t in d.node_types:
            drawn = out.node[t][2:] if t == "paper" else out.node[t]
            assert len(set(out.node[t].tolist())) == len(out.node[t])
            feeds = np.zeros(len(drawn), bool)
            for src_t, rel, dst_t in d.edge_types:
                if src_t == t:
                    src, dst = d[src_t, rel, dst_t].edge_index
                    into = np.isin(dst, out.node[dst_t])
                    feeds |= np.isin(drawn, src[into])
            assert feeds.all()


def test_hgt_sampler_errors():
    d = hgt_graph(0)
    with pytest.raises(NotImplementedError, match="HGTSampler does not support a data object"):
        HGTSampler(Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=2), [1])
    with pytest.raises(ValueError, match="HGTSampler: num_samples names"):
        HGTSampler(d, {"venue": [1]})
    with pytest.raises(TypeError, match="HGTSampler: num_samples must be a list"):
        HGTSampler(d, 3)
    s = HGTSampler(d, [2])
    with pytest.raises(ValueError, match="HGTSampler: input_type 'venue' is not a node type"):
        s.sample_from_nodes(NodeSamplerInput(None, np.array([0]), None, "venue"))
    with pytest.raises(ValueError, match="HGTSampler: index.node"):
        s.sample_from_nodes(NodeSamplerInput(None, np.array([30]), None, "paper"))
    with pytest.raises(NotImplementedError, match="HGTSampler samples around nodes only"):
        s.sample_from_edges(EdgeSamplerInput(None, np.array([0]), np.array([0])))
    seeds = np.array([4, 2])
    s.sample_from_nodes(NodeSamplerInput(None, seeds, None, "paper"))
    assert seeds.tolist() == [4, 2]


# ----------------------------------------------------------- BidirectionalNeighborSampler
def _pyg_one_hop(edge_index, backward):
    """pyg-lib's directional one-hop sampling when every neighbour is taken (fan-out -1 or
    at least the degree): per seed in order, its edges in CSC order (by target, stable),
    new nodes numbered on first sight; edges as graph edge ids."""
    import torch
    from torch_geometric.sampler import SamplerOutput

    src, dst = np.asarray(edge_index, dtype=np.int64)
    if backward:
        src, dst = dst, src
    order = np.argsort(dst, kind="stable")

    def sample(self, seed, seed_time=None, **kwargs):
        (k,) = self.num_neighbors.values
        seed = [int(s) for s in seed]
        local = {v: i for i, v in enumerate(seed)}
        nodes, rows, cols, eids = list(seed), [], [], []
        for i, s in enumerate(seed):
            nbrs = order[dst[order] == s]
            assert k < 0 or k >= len(nbrs), "not a full fan-out"
            for e in nbrs:
                u = int(src[e])
                if u not in local:
                    local[u] = len(nodes)
                    nodes.append(u)
                rows.append(local[u])
                cols.append(i)
                eids.append(int(e))
        if backward:
            rows, cols = cols, rows
        t = lambda v: torch.tensor(v, dtype=torch.long)  # noqa: E731
        return SamplerOutput(
            t(nodes), t(rows), t(cols), t(eids), None, [len(seed), len(nodes) - len(seed)],
            [len(eids)],
        )  # fmt: skip

    return sample


def _pyg_bidirectional(data, num_neighbors):
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric")
    from torch_geometric.sampler import BidirectionalNeighborSampler as Ref

    ei = np.asarray(data.edge_index, dtype=np.int64)
    ref_data = pyg.data.Data(edge_index=torch.from_numpy(ei), num_nodes=data.num_nodes)
    with pytest.warns(UserWarning):  # "without a 'pyg-lib' installation is deprecated"
        ref = Ref(ref_data, num_neighbors)
    ref.forward_sampler._sample = _pyg_one_hop(ei, False).__get__(ref.forward_sampler)
    ref.backward_sampler._sample = _pyg_one_hop(ei, True).__get__(ref.backward_sampler)
    return ref


def _assert_same_output(out, ref):
    assert out.node.tolist() == ref.node.tolist()
    assert out.row.tolist() == ref.row.tolist()
    assert out.col.tolist() == ref.col.tolist()
    assert out.edge.tolist() == ref.edge.tolist()
    assert out.num_sampled_nodes == [int(v) for v in ref.num_sampled_nodes]
    assert out.num_sampled_edges == [int(v) for v in ref.num_sampled_edges]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fanouts", [[-1], [-1, -1], [50, -1, 50]])
def test_bidirectional_full_fanouts_equal_pyg(dtype, fanouts):
    import contextlib
    import io

    torch = pytest.importorskip("torch")
    from torch_geometric.sampler import NodeSamplerInput as RefInput

    data = _graph(dtype=dtype)
    ref = _pyg_bidirectional(data, fanouts)
    ours = BidirectionalNeighborSampler(data, fanouts)
    for seeds in [[0], [5, 2, 11], [13], [12, 13, 3]]:  # 13: isolated, 12: no in-edges
        with contextlib.redirect_stdout(io.StringIO()):
            want = ref.sample_from_nodes(RefInput(None, torch.tensor(seeds)))
        got = ours.sample_from_nodes(NodeSamplerInput(None, np.array(seeds, dtype=dtype)))
        _assert_same_output(got, want)
        assert got.batch is None and got.metadata[1] is None
        # both directions: every edge at a seed, in or out, is there (full fan-outs)
        ei = data.edge_index
        at_seed = np.flatnonzero(np.isin(ei[0], seeds) | np.isin(ei[1], seeds))
        assert set(at_seed.tolist()) <= set(got.edge.tolist())


def test_bidirectional_repeated_seeds():
    import contextlib
    import io

    torch = pytest.importorskip("torch")
    from torch_geometric.sampler import NodeSamplerInput as RefInput

    data = _graph()
    ref = _pyg_bidirectional(data, [-1, -1])
    ours = BidirectionalNeighborSampler(data, [-1, -1])
    for seeds in [[5, 2, 5], [3, 3]]:
        with contextlib.redirect_stdout(io.StringIO()):
            want = ref.sample_from_nodes(RefInput(None, torch.tensor(seeds)))
        got = ours.sample_from_nodes(NodeSamplerInput(None, np.array(seeds)))
        for field in ["node", "row", "col", "edge"]:  # PyG's counts go wrong (-1) here
            assert getattr(got, field).tolist() == getattr(want, field).tolist(), field
        assert got.num_sampled_nodes[0] == len(seeds)
        assert sum(got.num_sampled_nodes[1:]) == len(got.node) - len(set(seeds))
        assert sum(got.num_sampled_edges) == len(got.edge)


def test_bidirectional_sample_from_edges_equals_pyg():
    import contextlib
    import io

    torch = pytest.importorskip("torch")
    from torch_geometric.sampler import EdgeSamplerInput as RefInput

    data = _graph(seed=3)
    ref = _pyg_bidirectional(data, [-1, -1])
    ours = BidirectionalNeighborSampler(data, NumNeighbors([-1, -1]))
    # PyG 2.8's sample_from_edges reads two attributes its __init__ never sets
    # (AttributeError: 'num_nodes'): set them as NeighborSampler would
    ref.num_nodes, ref.node_time = data.num_nodes, None
    row, col = np.array([4, 0, 4]), np.array([1, 6, 9])
    with contextlib.redirect_stdout(io.StringIO()):
        want = ref.sample_from_edges(RefInput(None, torch.tensor(row), torch.tensor(col)))
    got = ours.sample_from_edges(EdgeSamplerInput(None, row, col))
    _assert_same_output(got, want)
    assert got.metadata[1].tolist() == want.metadata[1].tolist()


def _undirected_ball(data, seeds, hops):
    """Full fan-outs: the nodes within ``hops`` undirected steps of the seeds and the edges
    at the nodes within ``hops - 1`` steps."""
    src, dst = data.edge_index
    reach, inner = set(seeds), set()
    for _ in range(hops):
        inner = set(reach)
        at = np.isin(src, list(inner)) | np.isin(dst, list(inner))
        reach |= set(src[at].tolist()) | set(dst[at].tolist())
    at = np.isin(src, list(inner)) | np.isin(dst, list(inner))
    return reach, set(np.flatnonzero(at).tolist())


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_bidirectional_full_fanouts_reach_the_undirected_ball(hops):
    data = _graph(n=30, e=45, seed=hops)
    s = BidirectionalNeighborSampler(data, [-1] * hops)
    for seeds in [[0, 1], [28], [29], [7]]:
        out = s.sample_from_nodes(NodeSamplerInput(None, np.array(seeds)))
        nodes, edges = _undirected_ball(data, seeds, hops)
        assert set(out.node.tolist()) == nodes and len(out.node) == len(nodes)
        assert set(out.edge.tolist()) == edges and len(out.edge) == len(edges)
        assert sum(out.num_sampled_nodes) == len(nodes)
        assert sum(out.num_sampled_edges) == len(edges)
        assert len(out.num_sampled_nodes) == 4 * hops and len(out.num_sampled_edges) == 2 * hops


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_bidirectional_random_fanouts_structure(dtype):
    data = _graph(n=40, e=160, seed=5, dtype=dtype)
    src, dst = data.edge_index.astype(np.int64)
    k = 2
    s = BidirectionalNeighborSampler(data, [k, k], seed=3)
    for trial in range(10):
        seeds = np.random.default_rng(trial).choice(38, 4, replace=False)
        out = s.sample_from_nodes(NodeSamplerInput(None, seeds.astype(dtype)))
        node = out.node
        assert len(set(node.tolist())) == len(node) and node[:4].tolist() == seeds.tolist()
        assert len(set(out.edge.tolist())) == len(out.edge)
        np.testing.assert_array_equal(src[out.edge], out.global_row)  # the graph's edges,
        np.testing.assert_array_equal(dst[out.edge], out.global_col)  # graph direction
        # per hop: forward edges end, backward edges start, at the frontier; <= k per node
        nsn, nse = out.num_sampled_nodes, out.num_sampled_edges
        frontier = node[:4]
        start_n, start_e = 4, 0  # nsn[0]: the seeds
        for hop in range(2):
            for part, end in ((0, out.global_col), (1, out.global_row)):
                size = nse[2 * hop + part]
                ends = end[start_e : start_e + size]
                assert np.isin(ends, frontier).all()
                assert np.bincount(ends).max(initial=0) <= k
                start_e += size
            fresh = sum(nsn[4 * hop + 1 : 4 * hop + 4])  # the nodes first seen in this hop
            frontier = node[start_n : start_n + fresh]
            start_n += fresh + (nsn[4 * hop + 4] if hop < 1 else 0)
        assert start_n == len(node) and start_e == len(out.edge)


def test_bidirectional_draws_are_uniform():
    # node 0: in-edges from 1..4, out-edges to 5..8; one of each drawn per call
    ei = np.array([[1, 2, 3, 4, 0, 0, 0, 0], [0, 0, 0, 0, 5, 6, 7, 8]])
    s = BidirectionalNeighborSampler(Data(edge_index=ei, num_nodes=9), [1], seed=0)
    seen = np.zeros(8, int)
    for _ in range(800):
        out = s.sample_from_nodes(NodeSamplerInput(None, np.array([0])))
        assert len(out.edge) == 2 and out.edge[0] < 4 <= out.edge[1]
        seen[out.edge] += 1
    assert seen.min() > 140 and seen.max() < 260  # 200 each expected


def test_bidirectional_disjoint_is_one_subgraph_per_seed():
    data = _graph(n=25, e=40, seed=9)
    seeds = np.array([3, 7, 3, 20])
    both = BidirectionalNeighborSampler(data, [-1, -1], disjoint=True)
    one = BidirectionalNeighborSampler(data, [-1, -1])
    out = both.sample_from_nodes(NodeSamplerInput(None, seeds))
    assert out.batch[:4].tolist() == [0, 1, 2, 3]
    edge_tree = out.batch[out.col]
    assert (out.batch[out.row] == edge_tree).all()
    for i, s in enumerate(seeds):
        ref = one.sample_from_nodes(NodeSamplerInput(None, np.array([s])))
        assert out.node[out.batch == i].tolist() == ref.node.tolist()
        assert out.edge[edge_tree == i].tolist() == ref.edge.tolist()
        assert out.seed_node[out.batch == i].tolist() == [s] * len(ref.node)


def test_bidirectional_errors():
    data = _graph()
    with pytest.raises(RuntimeError, match="does not yet support edge delimited sampling"):
        BidirectionalNeighborSampler(data, {("a", "r", "b"): [1]})
    with pytest.raises(RuntimeError, match="does not yet support edge delimited sampling"):
        BidirectionalNeighborSampler(data, NumNeighbors({}, default=[1]))
    with pytest.raises(NotImplementedError, match="heterogeneous"):
        BidirectionalNeighborSampler(_hetero(), [1])
    with pytest.raises(NotImplementedError, match="Temporal"):
        BidirectionalNeighborSampler(data, [1], time_attr="x")
    with pytest.raises(ValueError, match="BidirectionalNeighborSampler: num_neighbors needs"):
        BidirectionalNeighborSampler(data, [])
    with pytest.raises(TypeError, match=r"BidirectionalNeighborSampler: num_neighbors\[1\]"):
        BidirectionalNeighborSampler(data, [1, "2"])
    with pytest.raises(ValueError, match="BidirectionalNeighborSampler: num_neighbors\\[0\\]"):
        BidirectionalNeighborSampler(data, [-2])
    with pytest.raises(ValueError, match="BidirectionalNeighborSampler: weight_attr"):
        BidirectionalNeighborSampler(data, [1], weight_attr="w")
    s = BidirectionalNeighborSampler(data, [1])
    with pytest.raises(ValueError, match="BidirectionalNeighborSampler: index.node"):
        s.sample_from_nodes(NodeSamplerInput(None, np.array([14])))
    with pytest.raises(NotImplementedError, match="temporal"):
        s.sample_from_nodes(NodeSamplerInput(None, np.array([1]), np.array([0])))
    with pytest.raises(RuntimeError, match="negative sampling"):
        s.sample_from_edges(EdgeSamplerInput(None, np.array([1]), np.array([2])), "binary")
    with pytest.raises(ValueError, match="BidirectionalNeighborSampler: index.col"):
        s.sample_from_edges(EdgeSamplerInput(None, np.array([1, 2]), np.array([2])))
    seeds = np.array([3, 1])
    s.sample_from_nodes(NodeSamplerInput(None, seeds))
    assert seeds.tolist() == [3, 1]  # not mutated


def test_bidirectional_through_node_and_link_loaders():
    from arraygnn.link_loader import LinkLoader

    data = _graph(seed=2)
    ei = data.edge_index
    for disjoint in [False, True]:
        s = BidirectionalNeighborSampler(data, [2, 1], seed=0, disjoint=disjoint)
        for b in NodeLoader(data, s, input_nodes=np.array([0, 3, 5, 9]), batch_size=3):
            np.testing.assert_array_equal(b.x, data.x[b.n_id])
            np.testing.assert_array_equal(b.n_id[b.edge_index], ei[:, b.e_id])
        for b in LinkLoader(data, s, batch_size=7):
            np.testing.assert_array_equal(b.n_id[b.edge_index], ei[:, b.e_id])
            np.testing.assert_array_equal(b.n_id[b.edge_label_index], ei[:, b.input_id])
