"""PyG-face gaps (session 9): torch ``DataLoader`` keywords on arraygnn's loaders, and small
``Data`` / ``Batch`` / ``HeteroData`` methods, checked against PyG 2.8 / torch where they run."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.link_loader import LinkLoader
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.loader import DataLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.node_loader import NodeLoader

HOW = dict(
    num_workers=2,
    pin_memory=True,
    persistent_workers=True,
    prefetch_factor=2,
    worker_init_fn=lambda worker_id: None,
    timeout=0,
    multiprocessing_context=None,
    pin_memory_device="",
    in_order=True,
)


def _graphs(n: int = 7) -> list[Data]:
    return [
        Data(x=np.full((i % 3 + 1, 2), float(i)), edge_index=np.zeros((2, 0), np.int64),
             y=np.array([i]))
        for i in range(n)
    ]  # fmt: skip


def _ring(n: int = 9) -> Data:
    src = np.arange(n)
    ei = np.stack([np.concatenate([src, (src + 1) % n]), np.concatenate([(src + 1) % n, src])])
    return Data(x=np.arange(float(n))[:, None], edge_index=ei)


def _ys(loader) -> list[list[int]]:
    return [b.y.reshape(-1).tolist() for b in loader]


# ------------------------------------------------------------------ DataLoader keywords
def test_dataloader_accepts_torch_how_keywords_same_batches():
    plain = DataLoader(_graphs(), batch_size=2, shuffle=True, seed=0)
    full = DataLoader(_graphs(), batch_size=2, shuffle=True, seed=0, **HOW)
    assert _ys(plain) == _ys(DataLoader(_graphs(), batch_size=2, shuffle=True, seed=0, **HOW))
    # num_workers > 0: the batches are prepared in the background thread
    # (num_workers * prefetch_factor ahead), the same batches
    assert full.prefetch == 4 and full.num_workers == 2
    assert _ys(DataLoader(_graphs(), batch_size=3, num_workers=1)) == [[0, 1, 2], [3, 4, 5], [6]]


def test_dataloader_explicit_prefetch_wins_over_num_workers():
    loader = DataLoader(_graphs(), batch_size=2, prefetch=1, num_workers=4)
    assert loader.prefetch == 1


@pytest.mark.parametrize(
    "kwargs, err",
    [
        (dict(num_workers=-1), ValueError),
        (dict(prefetch_factor=2), ValueError),
        (dict(multiprocessing_context="spawn"), ValueError),  # needs num_workers > 0 (torch's rule)
        (dict(persistent_workers=True), ValueError),  # idem
        (dict(timeout=-1), ValueError),
    ],
)
def test_dataloader_how_keyword_checks_follow_torch(kwargs, err):
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, TypeError)):
        torch.utils.data.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(err):
        DataLoader(_graphs(), **kwargs)


def test_dataloader_bad_keywords():
    with pytest.raises(TypeError, match="num_workers"):  # torch fails later, in iter()
        DataLoader(_graphs(), num_workers=1.5)
    with pytest.raises(TypeError, match="worker_init_fn"):
        DataLoader(_graphs(), worker_init_fn=3)
    with pytest.raises(TypeError, match="colour"):
        DataLoader(_graphs(), colour=3)
    with pytest.raises(TypeError, match="generator"):
        DataLoader(_graphs(), shuffle=True, generator=3)
    with pytest.raises(ValueError, match="seed.*generator|generator.*seed"):
        DataLoader(_graphs(), shuffle=True, seed=1, generator=np.random.default_rng(1))


def test_dataloader_collate_fn_dropped_as_pyg():
    # PyG's DataLoader drops collate_fn (PyTorch Lightning passes it)
    assert _ys(DataLoader(_graphs(3), batch_size=2, collate_fn=print)) == [[0, 1], [2]]


def test_dataloader_torch_generator_gives_pyg_order():
    torch = pytest.importorskip("torch")
    pyg_loader = pytest.importorskip("torch_geometric.loader")
    from torch_geometric.data import Data as PygData

    pyg_graphs = [PygData(x=torch.ones(1, 1), y=torch.tensor([i])) for i in range(7)]
    ref = pyg_loader.DataLoader(
        pyg_graphs, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(11)
    )
    ours = DataLoader(
        _graphs(), batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(11)
    )
    for _ in range(2):  # two epochs: the generator advances as torch's does
        assert _ys(ours) == [b.y.tolist() for b in ref]


def test_dataloader_numpy_generator_is_the_shuffling_stream():
    ours = DataLoader(_graphs(), batch_size=2, shuffle=True, generator=np.random.default_rng(4))
    seeded = DataLoader(_graphs(), batch_size=2, shuffle=True, seed=4)
    assert [_ys(ours), _ys(ours)] == [_ys(seeded), _ys(seeded)]


# ------------------------------------------------------------------ neighbour loaders
def _input_ids(loader) -> list[list[int]]:
    return [b.input_id.tolist() for b in loader]


def test_neighbor_loader_accepts_torch_keywords_same_batches():
    data = _ring()
    plain = NeighborLoader(data, [2, 1], batch_size=4, shuffle=True, seed=3)
    more = NeighborLoader(
        data, [2, 1], batch_size=4, shuffle=True, seed=3, filter_per_worker=True,
        directed=True, **HOW,
    )  # fmt: skip
    for a, b in zip(plain, more):
        assert a.n_id.tolist() == b.n_id.tolist()
        assert a.edge_index.tolist() == b.edge_index.tolist()


def test_link_neighbor_loader_accepts_torch_keywords_same_batches():
    data = _ring()
    plain = LinkNeighborLoader(data, [2], batch_size=4, shuffle=True, seed=3)
    more = LinkNeighborLoader(
        data, [2], batch_size=4, shuffle=True, seed=3, filter_per_worker=False, directed=True,
        **HOW,
    )  # fmt: skip
    assert [b.n_id.tolist() for b in plain] == [b.n_id.tolist() for b in more]


@pytest.mark.parametrize("cls", [NeighborLoader, LinkNeighborLoader])
def test_neighbor_loaders_read_directed_false_as_induced(cls):
    with pytest.warns(UserWarning, match="subgraph_type='induced'"):
        loader = cls(_ring(), [2], batch_size=2, directed=False)
    assert loader.subgraph_type == "induced"
    with pytest.raises(TypeError, match="directed must be a bool"):
        cls(_ring(), [2], batch_size=2, directed="no")
    with pytest.raises(TypeError, match="colour"):
        cls(_ring(), [2], batch_size=2, colour=1)


def test_hetero_neighbor_loaders_accept_torch_keywords():
    h = HeteroData()
    h["a"].x = np.arange(4.0)[:, None]
    h["a", "r", "a"].edge_index = np.array([[0, 1, 2, 3], [1, 2, 3, 0]])
    batches = list(
        NeighborLoader(h, [1], input_nodes="a", batch_size=2, num_workers=3, pin_memory=True)
    )
    assert len(batches) == 2
    links = list(LinkNeighborLoader(h, [1], edge_label_index=("a", "r", "a"), batch_size=2,
                                    num_workers=2, persistent_workers=True))  # fmt: skip
    assert len(links) == 2
    with pytest.warns(UserWarning, match="subgraph_type='induced'"):
        assert NeighborLoader(h, [1], input_nodes="a", directed=False).subgraph_type == "induced"


def test_neighbor_loader_torch_generator_gives_pyg_seed_order():
    torch = pytest.importorskip("torch")
    # PyG's NodeLoader / LinkLoader are a torch DataLoader over range(num inputs)
    ref = torch.utils.data.DataLoader(
        range(9), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5)
    )
    nodes = NeighborLoader(
        _ring(), [1], batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5)
    )
    links = LinkNeighborLoader(
        _ring(), [1], edge_label_index=np.array([np.arange(9), (np.arange(9) + 1) % 9]),
        batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5),
    )  # fmt: skip
    for _ in range(2):
        expected = [b.tolist() for b in ref]
        assert _input_ids(nodes) == expected
    ref2 = torch.utils.data.DataLoader(
        range(9), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(5)
    )
    assert _input_ids(links) == [b.tolist() for b in ref2]


def test_neighbor_loader_generator_seeds_the_sampling_too():
    def run(gen_seed):
        loader = NeighborLoader(_ring(12), [2, 2], batch_size=3, shuffle=True,
                                generator=np.random.default_rng(gen_seed))  # fmt: skip
        return [b.n_id.tolist() for b in loader]

    assert run(1) == run(1)


def test_neighbor_loaders_sampler_and_batch_sampler():
    from arraygnn.imbalanced_sampler import ImbalancedSampler

    data = _ring()
    loader = NeighborLoader(data, [1], batch_size=4, sampler=[8, 0, 8, 3, 1])
    assert _input_ids(loader) == [[8, 0, 8, 3], [1]] and len(loader) == 2
    loader = NeighborLoader(data, [1], batch_sampler=[[2, 1], [0]])
    assert _input_ids(loader) == [[2, 1], [0]] and len(loader) == 2
    assert [b.batch_size for b in loader] == [2, 1]
    data.y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    loader = NeighborLoader(data, [1], batch_size=3, sampler=ImbalancedSampler(data, seed=0),
                            node_attrs=["x", "y"])  # fmt: skip
    assert sum(len(b) for b in _input_ids(loader)) == 9
    links = LinkNeighborLoader(_ring(), [1], batch_size=2, sampler=[3, 3, 0])
    assert _input_ids(links) == [[3, 3], [0]]
    with pytest.raises(ValueError, match="shuffle"):
        NeighborLoader(_ring(), [1], batch_size=2, shuffle=True, sampler=[0, 1])
    with pytest.raises(ValueError, match="batch_sampler"):
        NeighborLoader(_ring(), [1], batch_size=2, batch_sampler=[[0, 1]])
    with pytest.raises(ValueError, match="outside"):
        list(NeighborLoader(_ring(), [1], batch_size=2, sampler=[0, 9]))


def test_node_and_link_loaders_share_the_keyword_handling():
    torch = pytest.importorskip("torch")
    from arraygnn.sampler import NeighborSampler

    data = _ring()
    sampler = NeighborSampler(data, [1])
    ref = torch.utils.data.DataLoader(
        range(9), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(2)
    )
    loader = NodeLoader(data, sampler, batch_size=4, shuffle=True, num_workers=2,
                        generator=torch.Generator().manual_seed(2))  # fmt: skip
    assert _input_ids(loader) == [b.tolist() for b in ref]
    loader = NodeLoader(data, sampler, batch_sampler=[[1, 0], [5]])
    assert _input_ids(loader) == [[1, 0], [5]]
    links = LinkLoader(data, sampler, batch_size=5, sampler=[17, 2], pin_memory=True)
    assert _input_ids(links) == [[17, 2]]
    with pytest.raises(TypeError, match="colour"):
        NodeLoader(data, sampler, colour=2)
    with pytest.raises(ValueError, match="prefetch_factor"):
        NodeLoader(data, sampler, prefetch_factor=2)


# ------------------------------------------------------------------ Data / Batch / HeteroData
def _pair():
    pyg = pytest.importorskip("torch_geometric.data")
    torch = pytest.importorskip("torch")
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ei = np.array([[0, 1], [1, 2]])
    ours = Data(x=x, edge_index=ei, y=np.array([1]))
    ref = pyg.Data(x=torch.tensor(x), edge_index=torch.tensor(ei), y=torch.tensor([1]))
    return ours, ref, pyg, torch


def test_batch_batch_size_is_num_graphs_as_pyg():
    ours, ref, pyg, _ = _pair()
    b = Batch.from_data_list([ours, ours, ours])
    assert b.batch_size == b.num_graphs == pyg.Batch.from_data_list([ref] * 3).batch_size == 3


def test_data_from_dict_and_to_dict_as_pyg():
    ours, ref, pyg, torch = _pair()
    back = Data.from_dict(ours.to_dict())
    assert type(back) is Data and back.keys() == ours.keys() == list(ref.to_dict())
    assert back.x is ours.x
    assert (
        Data.from_dict({"num_nodes": 4}).num_nodes == pyg.Data.from_dict({"num_nodes": 4}).num_nodes
    )
    with pytest.raises(TypeError, match="mapping"):
        Data.from_dict([("x", 1)])


def test_data_concat_as_pyg():
    ours, ref, _, _ = _pair()
    other = Data(x=ours.x * 10, edge_index=ours.edge_index[:, :1], y=np.array([7]))
    ref_other = type(ref)(**{k: v for k, v in ref.to_dict().items()})
    ref_other.x, ref_other.edge_index, ref_other.y = (
        ref.x * 10,
        ref.edge_index[:, :1],
        ref.y * 0 + 7,
    )
    got, want = ours.concat(other), ref.concat(ref_other)
    for key in ("x", "edge_index", "y"):
        np.testing.assert_array_equal(got[key], want[key].numpy())
    assert ours.x.shape == (3, 2) and ours.edge_index.shape == (2, 2)  # nothing modified
    counted = Data(num_nodes=2, edge_index=np.array([[0], [1]])).concat(
        Data(num_nodes=3, edge_index=np.array([[2], [0]]))
    )
    assert counted.num_nodes == 5 and counted.edge_index.tolist() == [[0, 2], [1, 0]]
    with pytest.raises(ValueError, match="keys"):
        ours.concat(Data(x=ours.x))
    with pytest.raises(TypeError, match="'name'"):
        Data(name="a").concat(Data(name="b"))


def test_data_contiguous_is_cuda_stores():
    ours, ref, _, _ = _pair()
    d = Data(x=np.ones((4, 6))[:, ::2], edge_attr=np.ones((6, 4))[::2], s="keep")
    assert not d.x.flags.c_contiguous
    c = d.contiguous()
    assert c.x.flags.c_contiguous and c.edge_attr.flags.c_contiguous and c.s == "keep"
    assert not d.x.flags.c_contiguous  # a new object, the input untouched
    only_x = d.contiguous("x")
    assert only_x.x.flags.c_contiguous and not only_x.edge_attr.flags.c_contiguous
    assert ours.is_cuda is False and ref.is_cuda is False
    assert len(ours.stores) == len(ref.stores) == 1
    assert ours.stores[0]["x"] is ours.x and sorted(ours.stores[0].keys()) == sorted(
        ref.stores[0].keys()
    )


def _hetero_pair():
    pyg = pytest.importorskip("torch_geometric.data")
    torch = pytest.importorskip("torch")
    out = []
    for H, arr in ((HeteroData, np.asarray), (pyg.HeteroData, torch.tensor)):
        h = H()
        h.y = arr([1.0])
        h["a"].x = arr([[1.0, 2.0]])
        h["b"].x = arr([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
        h["c"].num_nodes = 3
        h["a", "r", "b"].edge_index = arr([[0], [1]])
        h["b", "s", "a"].edge_index = arr([[1], [0]])
        h["b", "s", "a"].edge_attr = arr([[1.0, 2.0, 3.0, 4.0]])
        out.append(h)
    return out


def test_hetero_num_features_as_pyg():
    ours, ref = _hetero_pair()
    assert (
        ours.num_features == ours.num_node_features == ref.num_features == {"a": 2, "b": 3, "c": 0}
    )
    assert ours.num_edge_features == ref.num_edge_features


def test_hetero_to_dict_from_dict_stores_as_pyg():
    ours, ref = _hetero_pair()
    d, r = ours.to_dict(), ref.to_dict()
    assert list(d) == list(r)
    for key in d:
        assert list(d[key]) == list(r[key])
    back = HeteroData.from_dict(d)
    assert back.node_types == ours.node_types and back.edge_types == ours.edge_types
    assert back["a"].x is ours["a"].x and back.y is ours.y and back["c"].num_nodes == 3
    assert type(ref).from_dict(r).metadata() == back.metadata()
    assert len(ours.stores) == len(ref.stores) == 6
    assert ours.stores[0]["y"] is ours.y and ours.stores[1]["x"] is ours["a"].x
    assert ours.is_cuda is False and ref.is_cuda is False
    c = ours.contiguous()
    assert c["b"].x.flags.c_contiguous and c is not ours


def test_hetero_unknown_attribute_errors_are_clear():
    ours, _ = _hetero_pair()
    with pytest.raises(AttributeError, match="no attribute 'foo_dict'"):
        ours.foo_dict  # noqa: B018
    with pytest.raises(KeyError):  # PyG's error kind for an absent <key>_dict
        ours.foo_dict  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        ours.frobnicate()
    assert sorted(ours.x_dict) == ["a", "b"]


def test_dataloader_subclasses_take_torch_keywords():
    """ClusterLoader, RandomNodeLoader, ShaDowKHopSampler and ZipLoader pass torch's
    DataLoader keywords up: same batches with num_workers / pin_memory as without."""
    from arraygnn.data import Data
    from arraygnn.loader import NeighborLoader, RandomNodeLoader, ShaDowKHopSampler, ZipLoader

    rng = np.random.default_rng(0)
    ei = rng.integers(0, 20, size=(2, 60))
    data = Data(x=rng.standard_normal((20, 3)).astype(np.float32), edge_index=ei)
    extra = dict(num_workers=2, pin_memory=True, persistent_workers=True)
    makers = [
        lambda **kw: RandomNodeLoader(data, num_parts=4, shuffle=True, seed=1, **kw),
        lambda **kw: ShaDowKHopSampler(data, 2, 3, batch_size=5, seed=1, **kw),
        lambda **kw: ZipLoader(
            [NeighborLoader(data, [2], batch_size=4, seed=1)], batch_size=4, seed=1, **kw
        ),
    ]
    for make in makers:
        plain, loader = list(make()), list(make(**extra))
        assert len(plain) == len(loader) > 0
        first = loader[0][0] if isinstance(loader[0], tuple) else loader[0]
        want = plain[0][0] if isinstance(plain[0], tuple) else plain[0]
        assert np.array_equal(first.x, want.x)
    with pytest.raises(TypeError, match="no_such"):
        RandomNodeLoader(data, num_parts=2, no_such=1)
