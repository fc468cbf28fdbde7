"""Review of the loaders of commit 40624a2 against PyG 2.8.1 / torch_sparse: the GraphSAINT
edge sampler's draws (with replacement, PyG's code run on a stand-in adjacency),
DynamicBatchSampler on graphs of size 0, HGTLoader's error names, attribute slicing of
every array in sampled batches, prefetch order and thread clean-up."""

import threading
import time

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.loader import (
    DataLoader,
    DynamicBatchSampler,
    GraphSAINTEdgeSampler,
    HGTLoader,
    RandomNodeLoader,
    ShaDowKHopSampler,
)


# ------------------------------------------------------------------ GraphSAINT edge sampler
class _Storage:
    def __init__(self, torch, row, col, n):
        self._in = torch.bincount(col, minlength=n)
        self._out = torch.bincount(row, minlength=n)

    def colcount(self):
        return self._in

    def rowcount(self):
        return self._out


class _Adj:
    """What PyG's ``GraphSAINTEdgeSampler._sample_nodes`` reads of its SparseTensor."""

    def __init__(self, torch, edge_index, n):
        row, col = (torch.as_tensor(r) for r in edge_index)
        perm = torch.as_tensor(np.lexsort((edge_index[1], edge_index[0])))
        self._coo = (row[perm], col[perm], perm)
        self.storage = _Storage(torch, row, col, n)

    def coo(self):
        return self._coo


def _pyg_edge_draws(edge_index, n, batch_size, steps, seed):
    """PyG 2.8.1's own ``GraphSAINTEdgeSampler._sample_nodes`` (its DataLoader's
    ``batch_size`` is 1), on a stand-in for the torch_sparse adjacency; node sets."""
    torch = pytest.importorskip("torch")
    from torch_geometric.loader import GraphSAINTEdgeSampler as Pyg

    fake = type("Fake", (), {})()
    fake.adj, fake.E, fake.batch_size = _Adj(torch, edge_index, n), edge_index.shape[1], 1
    torch.manual_seed(seed)
    return [sorted(Pyg._sample_nodes(fake, batch_size).unique().tolist()) for _ in range(steps)]


def test_saint_edge_sampler_draws_edges_with_replacement_as_pyg():
    # three disjoint edges, all weights 0 (+1e-10): three uniform draws with replacement
    ei = np.array([[0, 2, 4], [1, 3, 5]])
    data = Data(x=np.arange(6.0)[:, None], edge_index=ei)
    ours = [
        b.x[:, 0].astype(int).tolist()
        for b in GraphSAINTEdgeSampler(data, batch_size=3, num_steps=1500, seed=0)
    ]
    theirs = _pyg_edge_draws(ei, 6, 3, 1500, seed=0)
    # P(three distinct edges) = 3! / 3^3 = 2 / 9 for both (without replacement: always)
    for draws in (ours, theirs):
        share = np.mean([len(nodes) == 6 for nodes in draws])
        assert abs(share - 2 / 9) < 0.05, share
    # batch_size above the number of edges: PyG draws it; so do we
    one = Data(x=np.arange(3.0)[:, None], edge_index=np.array([[0], [1]]))
    got = [b.x[:, 0].tolist() for b in GraphSAINTEdgeSampler(one, batch_size=4, num_steps=3)]
    assert (
        got
        == [[0.0, 1.0]] * 3
        == [[float(v) for v in d] for d in _pyg_edge_draws(np.array([[0], [1]]), 3, 4, 3, seed=1)]
    )
    with pytest.raises(ValueError, match="GraphSAINTEdgeSampler: the graph has no edges"):
        GraphSAINTEdgeSampler(Data(num_nodes=2, edge_index=np.zeros((2, 0), np.int64)), 1)


def test_saint_edge_sampler_weights_edges_as_pyg():
    # distinct node pairs, so one drawn edge is known by its ends; weights
    # in_degree(source) + out_degree(target) = [0 + 1, 1 + 1, 0 + 0 (+1e-10), 1 + 0]
    ei = np.array([[0, 1, 3, 5], [1, 2, 4, 1]])
    want = np.array([1.0, 2.0, 1e-10, 1.0])
    want /= want.sum()
    pairs = [[0, 1], [1, 2], [3, 4], [1, 5]]
    data = Data(x=np.arange(6.0)[:, None], edge_index=ei)
    ours = [
        b.x[:, 0].astype(int).tolist()
        for b in GraphSAINTEdgeSampler(data, batch_size=1, num_steps=4000, seed=3)
    ]
    theirs = _pyg_edge_draws(ei, 6, 1, 4000, seed=3)
    for draws in (ours, theirs):
        freq = np.array([sum(d == p for d in draws) for p in pairs]) / len(draws)
        np.testing.assert_allclose(freq, want, atol=0.03)


# ------------------------------------------------------------------- DynamicBatchSampler
def _graphs(nodes, edges):
    out = []
    for n, m in zip(nodes, edges):
        ei = np.stack([np.arange(m) % max(n, 1), (np.arange(m) + 1) % max(n, 1)])
        out.append(Data(x=np.ones((n, 1)), edge_index=ei.astype(np.int64)))
    return out


@pytest.mark.parametrize("mode", ["node", "edge"])
def test_dynamic_batch_sampler_size_zero_graph_joins_a_too_big_one(mode):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import DynamicBatchSampler as Pyg

    # a graph of size 0 opens a batch; the too-big graph after it joins that batch (PyG's
    # test is "running total == 0", not "batch empty"): edge mode's one-node graphs
    nodes = edges = [0, 9, 1, 0, 0, 8, 2]
    gs = _graphs(nodes, edges)
    pyg = [PygData(x=torch.as_tensor(g.x), edge_index=torch.as_tensor(g.edge_index)) for g in gs]
    theirs = [b for b in Pyg(pyg, max_num=4, mode=mode)]
    ours = [b for b in DynamicBatchSampler(gs, max_num=4, mode=mode)]
    assert ours == theirs == [[0, 1], [2, 3, 4], [5], [6]]
    # skip_too_big: a too-big graph is skipped, the size-0 graph before it stays
    skip = [b for b in DynamicBatchSampler(gs, max_num=4, mode=mode, skip_too_big=True)]
    assert skip == [[0, 2, 3, 4], [6]]


# ------------------------------------------------------------------------------ HGTLoader
def _hetero():
    rng = np.random.default_rng(0)
    h = HeteroData()
    h["p"].x = rng.random((6, 2))
    h["p"].y = np.arange(6)
    h["p"].train_mask = np.arange(6) % 2 == 0
    h["a"].num_nodes = 4
    h["a", "w", "p"].edge_index = np.array([[0, 1, 2, 3, 3], [0, 0, 1, 2, 5]], np.int32)
    h["a", "w", "p"].edge_attr = np.arange(5.0) * 10
    h["p", "c", "p"].edge_index = np.array([[1, 2, 3], [0, 0, 1]])
    return h


def test_hgt_loader_errors_name_hgt_loader():
    h = _hetero()
    h["p"].bad = np.zeros(3)  # a node store's arrays are per node: 3 rows for 6 nodes
    with pytest.raises(ValueError, match="^HGTLoader: node type 'p': attribute 'bad'"):
        HGTLoader(h, num_samples=[2], input_nodes="p")
    del h["p"].bad
    kw = {"node_attrs": ["x", "y", "train_mask"], "edge_attrs": ["edge_attr"]}
    with pytest.raises(ValueError, match="^HGTLoader: "):
        HGTLoader(h, num_samples=[2], input_nodes=("p", np.array([0, 6])), **kw)
    with pytest.raises(ValueError, match="^HGTLoader: batch_size"):
        HGTLoader(h, num_samples=[2], input_nodes="p", batch_size=0, **kw)


def test_hgt_loader_slices_every_attribute():
    h = _hetero()
    loader = HGTLoader(
        h,
        num_samples=[3, 3],
        input_nodes=("p", np.array([0, 2], np.int32)),
        batch_size=2,
        seed=0,
        node_attrs=["x", "y", "train_mask"],
        edge_attrs=["edge_attr"],
    )
    for b in loader:
        n_id = b["p"].n_id
        np.testing.assert_array_equal(b["p"].y, h["p"].y[n_id])
        np.testing.assert_array_equal(b["p"].train_mask, h["p"].train_mask[n_id])
        np.testing.assert_array_equal(b["p"].x, h["p"].x[n_id])
        store = b["a", "w", "p"]
        np.testing.assert_array_equal(store.edge_attr, h["a", "w", "p"].edge_attr[store.e_id])
        src = b["a"].n_id[store.edge_index[0]]
        dst = n_id[store.edge_index[1]]
        np.testing.assert_array_equal(
            np.stack([src, dst]), h["a", "w", "p"].edge_index[:, store.e_id]
        )


# ------------------------------------------------------------- RandomNodeLoader / ShaDow
def test_random_node_loader_hetero_slices_masks_labels_and_edge_attrs():
    h = _hetero()
    seen = {"p": [], "a": []}
    for b in RandomNodeLoader(h, num_parts=3, shuffle=True, seed=1):
        # node ids through x (unique rows) and y; masks and edge_attr follow them
        ids = b["p"].y
        np.testing.assert_array_equal(b["p"].x, h["p"].x[ids])
        np.testing.assert_array_equal(b["p"].train_mask, h["p"].train_mask[ids])
        seen["p"] += ids.tolist()
        seen["a"].append(b["a"].num_nodes)
        for ea in b["a", "w", "p"].edge_attr:
            e = int(ea // 10)
            assert h["a", "w", "p"].edge_index[1, e] in ids.tolist()
    assert sorted(seen["p"]) == list(range(6)) and sum(seen["a"]) == 4


def test_shadow_slices_every_attribute_and_keeps_root_labels():
    ei = np.array([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]], np.int32)
    data = Data(
        x=np.arange(6.0)[:, None],
        y=np.arange(6) * 10,
        m=np.arange(6) % 2 == 0,
        edge_index=ei,
        edge_attr=np.arange(5.0) + 0.5,
        e_id=np.arange(5),
    )
    loader = ShaDowKHopSampler(
        data,
        depth=2,
        num_neighbors=3,
        node_idx=np.array([5, 1], np.int32),
        batch_size=2,
        node_attrs=["x", "y", "m"],
        edge_attrs=["edge_attr", "e_id"],
    )
    (b,) = list(loader)
    np.testing.assert_array_equal(b.x[:, 0], [3, 4, 5, 0, 1])
    np.testing.assert_array_equal(b.y, [50, 10])  # the roots' labels only
    np.testing.assert_array_equal(b.m, data.m[[3, 4, 5, 0, 1]])
    np.testing.assert_array_equal(b.edge_index, [[0, 1, 3], [1, 2, 4]])
    assert b.edge_index.dtype == np.int32
    np.testing.assert_array_equal(b.e_id, [3, 4, 0])
    np.testing.assert_array_equal(b.edge_attr, [3.5, 4.5, 0.5])
    np.testing.assert_array_equal(b.root_n_id, [2, 4])


# ---------------------------------------------------------------------------- prefetch
def _prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "arraygnn-prefetch"]


def _wait_no_prefetch_thread():
    for _ in range(100):
        if not _prefetch_threads():
            return True
        time.sleep(0.02)
    return False


def test_prefetch_keeps_order_seeds_and_cleans_up_threads():
    rng = np.random.default_rng(2)
    data = Data(x=np.arange(40.0)[:, None], edge_index=rng.integers(0, 40, (2, 160)))
    kw = {"depth": 2, "num_neighbors": 2, "batch_size": 3, "shuffle": True, "seed": 5}
    with_thread = ShaDowKHopSampler(data, prefetch=2, **kw)
    without = ShaDowKHopSampler(data, **kw)
    for _ in range(2):  # same batches, same order, epoch after epoch
        a = [(b.x[:, 0].tolist(), b.edge_index.tolist()) for b in with_thread]
        assert a == [(b.x[:, 0].tolist(), b.edge_index.tolist()) for b in without]
    assert _wait_no_prefetch_thread()
    for _ in DataLoader([Data(x=np.ones((1, 1)))] * 20, batch_size=2, prefetch=1):
        break  # an abandoned epoch stops its thread
    assert _wait_no_prefetch_thread()

    class Broken(list):
        def __getitem__(self, i):
            if i == 3:
                raise KeyError("graph 3")
            return list.__getitem__(self, i)

    with pytest.raises(KeyError, match="graph 3"):
        for _ in DataLoader(Broken([Data(x=np.ones((1, 1)))] * 6), prefetch=2):
            pass
    assert _wait_no_prefetch_thread()


# ------------------------------------------------------------------- narrow id dtypes
def test_narrow_id_dtypes_widen_when_the_new_ids_do_not_fit():
    # uint8 / int8 edge ids, but more nodes in a batch than the dtype holds: the batch's
    # ids widen to int64 (arraygnn._ids' rule, as Data.subgraph), never wrap around
    n = 300
    path = np.stack([np.arange(255), np.arange(1, 256)]).astype(np.uint8)
    data = Data(x=np.arange(n, dtype=np.float64)[:, None], edge_index=path)
    (b,) = list(RandomNodeLoader(data, num_parts=1, shuffle=True, seed=0))
    want = data.subgraph(np.asarray(b.x[:, 0], np.int64)).edge_index
    np.testing.assert_array_equal(b.edge_index, want)
    assert b.edge_index.dtype == np.int64
    np.testing.assert_array_equal(b.x[b.edge_index, 0], path)
    # the ids fit: the dtype is kept
    (small,) = list(RandomNodeLoader(Data(num_nodes=256, edge_index=path), 1, shuffle=True))
    assert small.edge_index.dtype == np.uint8

    ei = np.array([[0, 1], [1, 0]], np.int8)
    shadow = ShaDowKHopSampler(
        Data(x=np.arange(130.0)[:, None], edge_index=ei), depth=1, num_neighbors=2,
        node_idx=np.arange(130)[::-1], batch_size=130,
    )  # fmt: skip
    (b,) = list(shadow)
    assert int(b.ptr[-1]) == 132  # roots 1 and 0 last, each with both nodes (ids 128-131)
    np.testing.assert_array_equal(b.x[b.edge_index[0], 0], [0, 1, 0, 1])
    np.testing.assert_array_equal(b.x[b.edge_index[1], 0], [1, 0, 1, 0])
    assert b.edge_index.dtype == np.int64

    # a HeteroData goes through HeteroData.subgraph: the same rule
    h = HeteroData()
    h["a"].x = np.arange(n, dtype=np.float64)[:, None]
    h["a", "r", "a"].edge_index = path
    (b,) = list(RandomNodeLoader(h, num_parts=1, shuffle=True, seed=0))
    ei = b["a", "r", "a"].edge_index
    assert ei.dtype == np.int64
    np.testing.assert_array_equal(b["a"].x[ei, 0], path)


def test_shadow_epochs_do_not_depend_on_what_a_prefetch_thread_made_ahead():
    # an abandoned epoch: the thread had made batches ahead; the next epoch's draws must be
    # those of the same loader without a thread (per-batch seeds drawn when the epoch starts)
    rng = np.random.default_rng(7)
    data = Data(x=np.arange(60.0)[:, None], edge_index=rng.integers(0, 60, (2, 400)))
    kw = {"depth": 2, "num_neighbors": 2, "batch_size": 4, "shuffle": True, "seed": 11}
    runs = []
    for prefetch in (0, 4):
        loader = ShaDowKHopSampler(data, prefetch=prefetch, **kw)
        for _ in loader:
            time.sleep(0.3)  # the thread fills its queue meanwhile
            break
        assert _wait_no_prefetch_thread()
        runs.append([(b.x[:, 0].tolist(), b.edge_index.tolist()) for b in loader])
    assert runs[0] == runs[1]
