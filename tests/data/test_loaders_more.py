"""More of PyG's loaders: RandomNodeLoader, DenseDataLoader, DataListLoader, ZipLoader,
ImbalancedSampler, DynamicBatchSampler, DataLoader(sampler= / batch_sampler=), CachedLoader
and PrefetchLoader. Deterministic parts against PyG 2.8.1, random parts against PyG's
guarantees."""

import math

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.dataset import PackedDataset
from arraygnn.hetero_data import HeteroData
from arraygnn.loader import (
    CachedLoader,
    DataListLoader,
    DataLoader,
    DenseDataLoader,
    DynamicBatchSampler,
    ImbalancedSampler,
    NeighborLoader,
    PrefetchLoader,
    RandomNodeLoader,
    ZipLoader,
)


def random_graph(n, e, seed=0, dtype=np.int64, loops=True):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, max(n, 1), (2, e)).astype(dtype) if n else np.zeros((2, 0), dtype)
    if n and not loops:
        ei = ei[:, ei[0] != ei[1]]
    return Data(
        x=np.arange(n, dtype=np.float64)[:, None] * np.ones((1, 3)),  # column 0: node id
        edge_index=ei,
        edge_attr=rng.standard_normal((ei.shape[1], 2)),
    )


def to_torch_data(data):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData

    return PygData(**{k: torch.as_tensor(v) for k, v in data.items()})


def node_ids(batch):
    return batch.x[:, 0].astype(np.int64)


# --------------------------------------------------------------------- RandomNodeLoader
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_random_node_loader_equals_pyg_without_shuffle(dtype):
    torch = pytest.importorskip("torch")
    from torch_geometric.loader import RandomNodeLoader as PygLoader

    data = random_graph(23, 80, seed=1, dtype=dtype)
    ours = list(RandomNodeLoader(data, num_parts=4))
    pyg_data = to_torch_data(data)
    pyg_data.edge_index = pyg_data.edge_index.long()
    theirs = list(PygLoader(pyg_data, num_parts=4))
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs):
        assert a.edge_index.dtype == dtype
        np.testing.assert_array_equal(a.edge_index, b.edge_index.numpy())
        np.testing.assert_array_equal(a.x, b.x.numpy())
        np.testing.assert_array_equal(a.edge_attr, b.edge_attr.numpy())
        assert a.num_nodes == b.num_nodes
    assert torch is not None


@pytest.mark.parametrize("n,e,parts", [(17, 50, 3), (5, 0, 2), (6, 20, 10), (1, 1, 1)])
def test_random_node_loader_partition_and_induced_subgraphs(n, e, parts):
    torch = pytest.importorskip("torch")
    from torch_geometric.utils import subgraph as pyg_subgraph

    data = random_graph(n, e, seed=n)
    loader = RandomNodeLoader(data, num_parts=parts, shuffle=True, seed=3)
    assert len(loader) == math.ceil(n / math.ceil(n / parts))
    epochs = [list(loader), list(loader)]
    for batches in epochs:
        ids = np.concatenate([node_ids(b) for b in batches])
        assert sorted(ids.tolist()) == list(range(n))  # every node exactly once
        kept_edges = 0
        for b in batches:
            sub = torch.as_tensor(node_ids(b))
            want, want_attr = pyg_subgraph(
                sub,
                torch.as_tensor(data.edge_index),
                torch.as_tensor(data.edge_attr),
                relabel_nodes=True,
                num_nodes=n,
            )
            np.testing.assert_array_equal(b.edge_index, want.numpy())
            np.testing.assert_array_equal(b.edge_attr, want_attr.numpy())
            kept_edges += b.edge_index.shape[1]
        both = {tuple(np.sort(node_ids(b))) for b in batches}
        assert len(both) == len(batches)
        assert kept_edges <= e
    ids0 = np.concatenate([node_ids(b) for b in epochs[0]])
    ids1 = np.concatenate([node_ids(b) for b in epochs[1]])
    if n > 3:
        assert ids0.tolist() != ids1.tolist()  # a new partition every epoch
    again = RandomNodeLoader(data, num_parts=parts, shuffle=True, seed=3)
    assert [node_ids(b).tolist() for b in again] == [node_ids(b).tolist() for b in epochs[0]]


def hetero_graph(dtype=np.int64):
    rng = np.random.default_rng(5)
    d = HeteroData()
    d["paper"].x = np.arange(7.0)[:, None]
    d["author"].x = 100 + np.arange(4.0)[:, None]
    d["author", "writes", "paper"].edge_index = np.stack(
        [rng.integers(0, 4, 12), rng.integers(0, 7, 12)]
    ).astype(dtype)
    d["author", "writes", "paper"].edge_attr = rng.standard_normal((12, 2))
    d["paper", "cites", "paper"].edge_index = rng.integers(0, 7, (2, 15)).astype(dtype)
    return d


def to_torch_hetero(d):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import HeteroData as PygHetero

    out = PygHetero()
    for t in d.node_types:
        for k, v in d[t].items():
            out[t][k] = torch.as_tensor(v)
    for et in d.edge_types:
        for k, v in d[et].items():
            out[et][k] = torch.as_tensor(v).long() if k == "edge_index" else torch.as_tensor(v)
    return out


def test_random_node_loader_hetero_equals_pyg_and_partitions():
    pytest.importorskip("torch")
    from torch_geometric.loader import RandomNodeLoader as PygLoader

    d = hetero_graph()
    ours = list(RandomNodeLoader(d, num_parts=3))
    theirs = list(PygLoader(to_torch_hetero(d), num_parts=3))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        for t in d.node_types:
            np.testing.assert_array_equal(a[t].x, b[t].x.numpy())
        for et in d.edge_types:
            np.testing.assert_array_equal(a[et].edge_index, b[et].edge_index.numpy())
        np.testing.assert_array_equal(
            a["writes"].edge_attr, b["author", "writes", "paper"].edge_attr.numpy()
        )
    shuffled = list(RandomNodeLoader(d, num_parts=3, shuffle=True, seed=1))
    papers = np.concatenate([b["paper"].x[:, 0] for b in shuffled])
    authors = np.concatenate([b["author"].x[:, 0] for b in shuffled])
    assert sorted(papers.tolist()) == list(range(7))
    assert sorted(authors.tolist()) == [100.0, 101.0, 102.0, 103.0]
    for b in shuffled:  # induced: the edges whose both ends are in the batch
        p = b["paper"].x[:, 0].astype(int)
        a = (b["author"].x[:, 0] - 100).astype(int)
        ei = d["author", "writes", "paper"].edge_index
        want = [(i, j) for i, j in ei.T.tolist() if i in a and j in p]
        got = [(a[i], p[j]) for i, j in b["writes"].edge_index.T.tolist()]
        assert got == want


def test_random_node_loader_empty_graph_and_errors():
    empty = Data(x=np.zeros((0, 3)), edge_index=np.zeros((2, 0), np.int64))
    assert list(RandomNodeLoader(empty, num_parts=3)) == []
    data = random_graph(5, 4)
    with pytest.raises(ValueError, match="num_parts"):
        RandomNodeLoader(data, num_parts=0)
    with pytest.raises(TypeError, match="num_parts"):
        RandomNodeLoader(data, num_parts=2.0)
    with pytest.raises(TypeError, match="data"):
        RandomNodeLoader([data], num_parts=2)
    data.y = np.zeros(5)
    with pytest.raises(ValueError, match="'y'"):
        RandomNodeLoader(data, num_parts=2)
    b = next(iter(RandomNodeLoader(data, num_parts=1, node_attrs=["x", "y"])))
    assert b.y.shape == (5,)
    with pytest.raises(ValueError, match="num_nodes"):
        RandomNodeLoader(Data(edge_index=np.zeros((2, 1), np.int64)), num_parts=2)


# ---------------------------------------------------------------------- DenseDataLoader
def dense_graphs(n=7):
    rng = np.random.default_rng(0)
    return [
        Data(
            x=rng.standard_normal((5, 3)),
            adj=(rng.random((5, 5)) < 0.3).astype(np.float32),
            mask=rng.random(5) < 0.8,
            y=np.array([i % 3]),
            label=i,
        )
        for i in range(n)
    ]


def test_dense_data_loader_equals_pyg():
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import DenseDataLoader as PygDense

    gs = dense_graphs()
    pyg = [
        PygData(
            **{k: (torch.as_tensor(v) if isinstance(v, np.ndarray) else v) for k, v in g.items()}
        )
        for g in gs
    ]
    ours = list(DenseDataLoader(gs, batch_size=3))
    theirs = list(PygDense(pyg, batch_size=3))
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs):
        assert sorted(a.keys()) == sorted(b.keys())
        for k in a.keys():
            np.testing.assert_array_equal(np.asarray(a[k]), b[k].numpy())
            assert np.asarray(a[k]).dtype == b[k].numpy().dtype
    xs = PackedDataset.from_data_list([Data(x=g.x) for g in gs])
    packed = list(DenseDataLoader(xs, batch_size=4))
    assert packed[0].x.shape == (4, 5, 3)
    np.testing.assert_array_equal(packed[1].x, np.stack([g.x for g in gs[4:]]))


def test_dense_data_loader_shuffle_and_errors():
    gs = dense_graphs()
    labels = [b.label.tolist() for b in DenseDataLoader(gs, batch_size=2, shuffle=True, seed=0)]
    assert sorted(sum(labels, [])) == list(range(7))
    bad = dense_graphs(2)
    bad[1].x = np.zeros((4, 3))
    with pytest.raises(ValueError, match="'x'"):
        list(DenseDataLoader(bad, batch_size=2))
    bad = dense_graphs(2)
    del bad[1].mask
    with pytest.raises(ValueError, match="keys"):
        list(DenseDataLoader(bad, batch_size=2))


# ----------------------------------------------------------------------- DataListLoader
def test_data_list_loader_returns_the_graphs():
    gs = dense_graphs()
    batches = list(DataListLoader(gs, batch_size=3))
    assert [len(b) for b in batches] == [3, 3, 1]
    assert all(a is b for a, b in zip(sum(batches, []), gs))
    shuffled = sum(DataListLoader(gs, batch_size=2, shuffle=True, seed=1), [])
    assert sorted(id(g) for g in shuffled) == sorted(id(g) for g in gs)
    hetero = [hetero_graph(), hetero_graph()]
    assert next(iter(DataListLoader(hetero, batch_size=2)))[1] is hetero[1]


def test_data_list_loader_matches_pyg_order():
    pytest.importorskip("torch")
    from torch_geometric.loader import DataListLoader as PygList

    gs = dense_graphs(5)
    theirs = [[id(g) for g in b] for b in PygList(gs, batch_size=2, drop_last=True)]
    ours = [[id(g) for g in b] for b in DataListLoader(gs, batch_size=2, drop_last=True)]
    assert ours == theirs


# ---------------------------------------------------------------------------- ZipLoader
def test_zip_loader_batches_at_the_same_positions():
    data = random_graph(12, 30, seed=2, loops=False)
    one = NeighborLoader(
        data, num_neighbors=[-1], input_nodes=np.arange(0, 12, 2), edge_attrs=["edge_attr"]
    )
    two = NeighborLoader(
        data,
        num_neighbors=[-1, -1],
        input_nodes=np.arange(11, 2, -1),
        edge_attrs=["edge_attr"],
        transform=lambda b: ("t", b),
    )
    zipped = ZipLoader([one, two], batch_size=4)
    assert len(zipped) == 2  # six positions (the smaller loader)
    out = list(zipped)
    assert [len(t) for t in out] == [2, 2]
    for i, (a, (tag, b)) in enumerate(out):
        pos = np.arange(4 * i, min(4 * i + 4, 6))
        assert tag == "t"
        np.testing.assert_array_equal(a.n_id, one._batch(pos).n_id)
        np.testing.assert_array_equal(b.n_id, two._batch(pos).n_id)
        np.testing.assert_array_equal(a.input_id, pos)
    shuffled = list(ZipLoader([one, two], batch_size=3, shuffle=True, seed=0))
    firsts = np.concatenate([a.input_id for a, _ in shuffled])
    seconds = np.concatenate([b.input_id for _, (_, b) in shuffled])
    assert sorted(firsts.tolist()) == list(range(6))
    np.testing.assert_array_equal(firsts, seconds)
    with pytest.raises(TypeError, match="loaders"):
        ZipLoader([])
    with pytest.raises(TypeError, match=r"loaders\[1\]"):
        ZipLoader([one, [1, 2]])


# ------------------------------------------------------------------- ImbalancedSampler
def test_imbalanced_sampler_weights_equal_pyg():
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import ImbalancedSampler as PygSampler

    rng = np.random.default_rng(0)
    y = rng.choice(4, size=40, p=[0.7, 0.2, 0.05, 0.05])
    mask = rng.random(40) < 0.6
    data = Data(x=np.zeros((40, 1)), y=y)
    pyg = PygData(x=torch.zeros(40, 1), y=torch.as_tensor(y))
    cases = [
        (ImbalancedSampler(data), PygSampler(pyg)),
        (
            ImbalancedSampler(data, input_nodes=mask),
            PygSampler(pyg, input_nodes=torch.as_tensor(mask)),
        ),
        (
            ImbalancedSampler(y.astype(np.int32), num_samples=7),
            PygSampler(torch.as_tensor(y), num_samples=7),
        ),
    ]
    graphs = [Data(x=np.zeros((2, 1)), y=np.array([c])) for c in y[:15]]
    pyg_graphs = [PygData(x=torch.zeros(2, 1), y=torch.tensor([int(c)])) for c in y[:15]]
    cases.append((ImbalancedSampler(graphs), PygSampler(pyg_graphs)))
    cases.append((ImbalancedSampler(PackedDataset.from_data_list(graphs)), PygSampler(pyg_graphs)))
    for ours, theirs in cases:
        np.testing.assert_allclose(ours.weights, theirs.weights.numpy())
        assert len(ours) == len(theirs)


def test_imbalanced_sampler_balances_classes_and_feeds_data_loader():
    y = np.array([0] * 90 + [1] * 8 + [2] * 2)
    sampler = ImbalancedSampler(y, num_samples=30000, seed=1)
    drawn = np.fromiter(sampler, dtype=np.int64)
    assert drawn.shape == (30000,) and drawn.min() >= 0 and drawn.max() < 100
    freq = np.bincount(y[drawn], minlength=3) / drawn.shape[0]
    np.testing.assert_allclose(freq, [1 / 3] * 3, atol=0.02)
    again = np.fromiter(ImbalancedSampler(y, num_samples=30000, seed=1), dtype=np.int64)
    np.testing.assert_array_equal(drawn, again)
    assert not np.array_equal(drawn, np.fromiter(sampler, dtype=np.int64))  # new epoch draw

    graphs = [Data(x=np.zeros((1, 1)), y=np.array([c])) for c in y]
    loader = DataLoader(graphs, batch_size=16, sampler=ImbalancedSampler(graphs, seed=0))
    batches = list(loader)
    assert len(loader) == len(batches) == 7
    counts = np.bincount(np.concatenate([b.y for b in batches]), minlength=3)
    assert counts.sum() == 100 and counts[2] > 10  # the rare class is over-sampled


def test_imbalanced_sampler_errors():
    with pytest.raises(TypeError, match="integers"):
        ImbalancedSampler(np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="num_samples"):
        ImbalancedSampler(np.array([0, 1]), num_samples=-1)
    with pytest.raises(ValueError, match=">= 0"):
        ImbalancedSampler(np.array([0, -1]))
    with pytest.raises(ValueError, match="input_nodes"):
        ImbalancedSampler(np.array([0, 1, 1]), input_nodes=np.array([0, 3]))
    with pytest.raises(ValueError, match="one label per node"):
        ImbalancedSampler(Data(x=np.zeros((3, 1)), y=np.array([0, 1])))
    with pytest.raises(TypeError, match="dataset"):
        ImbalancedSampler(3)
    assert list(ImbalancedSampler(np.zeros(0, np.int64))) == []


# ------------------------------------------------------------------ DynamicBatchSampler
def sized_graphs(sizes, edges=None):
    edges = edges or [0] * len(sizes)
    return [
        Data(x=np.full((n, 1), float(i)), edge_index=np.zeros((2, m), np.int64))
        for i, (n, m) in enumerate(zip(sizes, edges))
    ]


@pytest.mark.parametrize("mode", ["node", "edge"])
@pytest.mark.parametrize("num_steps", [None, 2, 20])
def test_dynamic_batch_sampler_equals_pyg(mode, num_steps):
    torch = pytest.importorskip("torch")
    from torch_geometric.data import Data as PygData
    from torch_geometric.loader import DynamicBatchSampler as PygSampler

    rng = np.random.default_rng(4)
    sizes, edges = rng.integers(0, 9, 25).tolist(), rng.integers(0, 12, 25).tolist()
    sizes[3] = edges[3] = 30  # too big alone
    edges = [m if n else 0 for n, m in zip(sizes, edges)]  # empty graphs: no edges
    gs = sized_graphs(sizes, edges)
    pyg = [PygData(x=torch.as_tensor(g.x), edge_index=torch.as_tensor(g.edge_index)) for g in gs]
    theirs = [b for b in PygSampler(pyg, max_num=10, mode=mode, num_steps=num_steps)]
    for ds in (gs, PackedDataset.from_data_list(gs)):
        ours = [b for b in DynamicBatchSampler(ds, max_num=10, mode=mode, num_steps=num_steps)]
        assert ours == theirs


def test_dynamic_batch_sampler_skip_shuffle_and_data_loader():
    sizes = [3, 12, 4, 2, 9, 15, 1, 5]
    gs = sized_graphs(sizes)
    skip = [b for b in DynamicBatchSampler(gs, max_num=8, skip_too_big=True)]
    assert skip == [[0], [2, 3], [6, 7]]  # a too-big graph ends the batch, then is skipped
    keep = [b for b in DynamicBatchSampler(gs, max_num=8)]
    assert sorted(sum(keep, [])) == list(range(8))
    sampler = DynamicBatchSampler(gs, max_num=10, shuffle=True, skip_too_big=True, seed=3)
    e1, e2 = [b for b in sampler], [b for b in sampler]
    assert e1 != e2
    for epoch in (e1, e2):
        assert sorted(sum(epoch, [])) == [0, 2, 3, 4, 6, 7]
        assert all(sum(sizes[i] for i in b) <= 10 and b for b in epoch)
    loader = DataLoader(gs, batch_sampler=DynamicBatchSampler(gs, max_num=8, num_steps=2))
    assert len(loader) == 2
    got = [b.x[:, 0].astype(int).tolist() for b in loader]
    assert got == [[0, 0, 0], [1] * 12]
    with pytest.raises(ValueError, match="length"):
        len(DynamicBatchSampler(gs, max_num=8))
    with pytest.raises(ValueError, match="max_num"):
        DynamicBatchSampler(gs, max_num=0)
    with pytest.raises(ValueError, match="mode"):
        DynamicBatchSampler(gs, max_num=3, mode="graph")
    with pytest.raises(TypeError, match="dataset"):
        DynamicBatchSampler(5, max_num=3)
    assert [b for b in DynamicBatchSampler([], max_num=3)] == []


def test_samplers_with_a_packed_dataset():
    gs = [
        Data(
            x=np.full((i % 3 + 1, 1), float(i)),
            edge_index=np.zeros((2, 0), np.int64),
            y=np.array([int(i == 0)]),
        )
        for i in range(10)
    ]
    ds = PackedDataset.from_data_list(gs)
    drawn = DataLoader(ds, batch_size=400, sampler=ImbalancedSampler(ds, num_samples=400, seed=0))
    (batch,) = list(drawn)
    assert batch.num_graphs == 400 and 150 < int(batch.y.sum()) < 250  # graph 0: half
    sizes = [g.num_nodes for g in gs]
    batches = [b for b in DataLoader(ds, batch_sampler=DynamicBatchSampler(ds, max_num=5))]
    assert sum(b.num_graphs for b in batches) == 10
    assert all(b.num_nodes <= 5 for b in batches) and sum(sizes) == sum(
        b.num_nodes for b in batches
    )


def test_data_loader_sampler_argument_errors():
    gs = sized_graphs([1, 2, 3])
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(gs, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(gs, batch_size=2, batch_sampler=[[0, 1]])
    with pytest.raises(TypeError, match="sampler"):
        DataLoader(gs, sampler=3)
    loader = DataLoader(gs, batch_size=2, sampler=[2, 2, 0])
    assert [b.x[:, 0].tolist() for b in loader] == [[2.0] * 6, [0.0]]


# -------------------------------------------------------------- Cached / PrefetchLoader
def test_cached_loader_replays_the_first_epoch():
    gs = sized_graphs([1, 2, 3, 4, 5])
    calls = []

    def transform(b):
        calls.append(1)
        return b

    cached = CachedLoader(DataLoader(gs, batch_size=2, shuffle=True, seed=0), transform=transform)
    first = [b.x[:, 0].tolist() for b in cached]
    second = [b.x[:, 0].tolist() for b in cached]
    assert first == second and len(calls) == 3 and len(cached) == 3
    cached.clear()
    third = [b.x[:, 0].tolist() for b in cached]
    assert third != first and len(calls) == 6
    moved = list(CachedLoader(DataLoader(gs, batch_size=5), device="cpu"))
    assert isinstance(moved[0].x, np.ndarray)
    with pytest.raises(ValueError, match="device"):
        CachedLoader(gs, device="tpu")
    with pytest.raises(TypeError, match="loader"):
        CachedLoader(3)


def test_prefetch_loader_passes_through_on_the_cpu():
    gs = sized_graphs([1, 2, 3])
    loader = DataListLoader(gs, batch_size=2)
    out = list(PrefetchLoader(loader))
    assert [[id(g) for g in b] for b in out] == [[id(gs[0]), id(gs[1])], [id(gs[2])]]
    assert list(PrefetchLoader([], device="cpu")) == []
    assert len(PrefetchLoader(loader)) == 2
    with pytest.raises(ValueError, match="device"):
        PrefetchLoader(loader, device="gpu")


def _cupy():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:  # pragma: no cover - depends on the machine
        pytest.skip("CuPy is installed but no GPU is visible")
    return cp


def test_cupy_prefetch_cached_and_random_node_loader():  # pragma: no cover - needs a GPU
    cp = _cupy()
    gs = sized_graphs([1, 2, 3])
    moved = list(PrefetchLoader(DataLoader(gs, batch_size=2), device="cuda"))
    assert [type(b.x) for b in moved] == [cp.ndarray, cp.ndarray]
    np.testing.assert_array_equal(moved[1].x.get(), np.full((3, 1), 2.0))
    cached = CachedLoader(DataLoader(gs, batch_size=3), device="cuda")
    assert isinstance(next(iter(cached)).x, cp.ndarray)
    data = random_graph(30, 90, seed=4)
    on_gpu = data.to("cuda")
    for a, b in zip(
        RandomNodeLoader(data, 4, shuffle=True, seed=1),
        RandomNodeLoader(on_gpu, 4, shuffle=True, seed=1),
    ):
        assert isinstance(b.edge_index, cp.ndarray)
        np.testing.assert_array_equal(a.edge_index, b.edge_index.get())
        np.testing.assert_array_equal(a.edge_attr, b.edge_attr.get())
