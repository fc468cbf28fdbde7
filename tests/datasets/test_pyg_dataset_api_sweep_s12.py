"""Parity sweep (s12) of PyG's dataset API: one in-memory dataset built in PyG 2.8.1 and in
arraygnn from the same list of graphs, compared on the combinations the other dataset tests
leave out: int / range / list / bool-mask / array / tensor indices, empty selections and
out-of-range ones, views of views, ``copy``, statistics for int / float / multi-dim / node /
missing labels, differing keys in ``collate``, ``get_summary`` / ``print_summary``,
``to_on_disk_dataset`` and the shipped ``KarateClub`` / ``FakeDataset`` through these APIs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.datasets import FakeDataset, InMemoryDataset, KarateClub

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric.data")


def raw_graphs(y_kind="int", n=6, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        nn, ne = int(rng.integers(1, 5)), int(rng.integers(0, 6))
        g = {
            "x": rng.normal(size=(nn, 3)).astype(np.float32),
            "edge_index": rng.integers(0, nn, (2, ne)),
            "edge_attr": rng.normal(size=(ne, 2)).astype(np.float32),
        }
        if y_kind == "int":
            g["y"] = np.array([i % 3])
        elif y_kind == "float":
            g["y"] = np.array([float(i % 2)])
        elif y_kind == "multi":
            g["y"] = np.eye(4, dtype=np.float32)[[i % 4]]
        elif y_kind == "node":
            g["y"] = rng.integers(0, 5, nn)
        out.append(g)
    return out


class Ours(InMemoryDataset):
    def __init__(self, graphs, root=None, transform=None):
        super().__init__(root, transform=transform)
        self.data, self.slices = self.collate([Data(**g) for g in graphs])


class Theirs(pyg.InMemoryDataset):
    def __init__(self, graphs, root=None, transform=None):
        super().__init__(root, transform=transform)
        t = torch.from_numpy
        self.data, self.slices = self.collate(
            [pyg.Data(**{k: t(v) for k, v in g.items()}) for g in graphs]
        )


@pytest.fixture(scope="module")
def pair():
    graphs = raw_graphs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Ours(graphs), Theirs(graphs)


def np_of(v):
    return v.numpy() if hasattr(v, "numpy") else np.asarray(v)


def same_graph(a, b):
    assert sorted(a.keys()) == sorted(b.keys())
    for key in a.keys():
        x, y = np_of(a[key]), np_of(b[key])
        assert x.shape == y.shape and x.dtype == y.dtype, key
        np.testing.assert_array_equal(x, y, err_msg=key)


def outcome(ds, idx):
    try:
        out = ds[idx]
    except Exception as err:  # noqa: BLE001 - the error type is compared
        return type(err)
    if hasattr(out, "indices"):
        return ("view", [int(i) for i in out.indices()], repr(out).split("(")[1])
    return ("graph", out)


SAME = {
    "int": 2,
    "neg": -1,
    "np.int64": np.int64(3),
    "0-d tensor": torch.tensor(4),
    "out of range": 6,
    "out of range neg": -7,
    "slice": slice(1, 4),
    "slice step": slice(None, None, 2),
    "slice reversed": slice(None, None, -1),
    "slice empty": slice(3, 3),
    "slice past the end": slice(10, None),
    "float slice": slice(0.2, 0.7),
    "float slice step": slice(0.1, 0.9, 2),
    "range": range(1, 4),
    "range empty": range(0),
    "list": [0, 2, -1],
    "list repeated": [3, 3, 0],
    "list empty": [],
    "list out of range": [0, 7],
    "tuple": (1, 2),
    "int64 array": np.array([1, 3]),
    "int64 2-d array": np.array([[0, 1]]),
    "bool array": np.array([True, False] * 3),
    "bool array none": np.zeros(6, bool),
    "long tensor": torch.tensor([1, 2]),
    "bool tensor": torch.tensor([True, False] * 3),
    "float": 1.5,
    "None": None,
    "str": "a",
    "float array": np.array([0.5]),
}


@pytest.mark.parametrize("idx", list(SAME.values()), ids=list(SAME))
def test_indexing_like_pyg(pair, idx):
    ours, theirs = pair
    a, b = outcome(ours, idx), outcome(theirs, idx)
    if isinstance(b, type):
        assert a is b  # IndexError, both
    elif b[0] == "graph":
        assert a[0] == "graph"
        same_graph(a[1], b[1])
    else:
        assert a == b
        for i in range(len(b[1])):
            same_graph(ours[idx][i], theirs[idx][i])
        # views of views
        assert [int(i) for i in ours[idx][::-1].indices()] == list(theirs[idx][::-1].indices())


# documented differences (Dataset's docstring, docs/input_pipelines.md)
def test_documented_index_differences(pair):
    ours, theirs = pair
    mask = [True, False, True, False, False, True]
    assert list(theirs[mask].indices()) == [1, 0, 1, 0, 0, 1]  # PyG: bools read as ints
    assert ours[mask].indices().tolist() == [0, 2, 5]  # here: a mask
    assert ours[np.array([1, 3], np.int32)].indices().tolist() == [1, 3]  # PyG: IndexError
    with pytest.raises(IndexError, match="boolean mask has 2 entries"):
        ours[np.array([True, False])]  # PyG: a view of [0]
    assert theirs[True].x.shape[0] == theirs[1].x.shape[0]  # PyG: graph 1
    with pytest.raises(IndexError, match="got 'bool'"):
        ours[True]
    assert list(theirs[np.array(2)].indices()) == [2]  # PyG: a view
    same_graph(ours[np.array(2)], theirs[2])  # here: the graph, as a 0-d tensor


def test_empty_view_attributes_are_empty(pair):
    ours, theirs = pair
    empty = ours[[]]
    assert len(empty) == len(theirs[[]]) == 0 and list(empty) == []
    with pytest.raises(IndexError):
        theirs[[]].x  # noqa: B018 - PyG's error
    assert empty.x.shape == (0, 3) and empty.x.dtype == np.float32
    assert empty.edge_index.shape == (2, 0) and empty.edge_index.dtype == np.int64
    assert empty.y.shape == (0,)
    np.testing.assert_array_equal(ours[[4, 1]].edge_index, theirs[[4, 1]].edge_index.numpy())
    with pytest.raises(ValueError, match="no graphs selected"):
        ours.copy([])
    with pytest.raises(ValueError, match="no graphs to summarise"):
        empty.get_summary()
    one = Ours(raw_graphs(n=1))
    assert one[[]].x.shape == (0, 3) and one[[0, 0]].x.shape[0] == 2 * one[0].x.shape[0]


@pytest.mark.parametrize("y_kind", ["int", "float", "multi", "node", "none"])
@pytest.mark.parametrize("transform", [False, True])
def test_statistics_like_pyg(y_kind, transform):
    graphs = raw_graphs(y_kind)
    tf = (lambda d: d) if transform else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = Ours(graphs, transform=tf), Theirs(graphs, transform=tf)
        for a, b in ((ours, theirs), (ours[[4, 0]], theirs[[4, 0]])):
            assert a.num_classes == b.num_classes
            assert a.num_node_features == b.num_node_features == a.num_features
            assert a.num_edge_features == b.num_edge_features
            assert repr(a).replace("Ours", "") == repr(b).replace("Theirs", "")
            assert str(a.get_summary()).replace("Ours", "") == str(b.get_summary()).replace(
                "Theirs", ""
            )


@pytest.mark.parametrize("idx", [None, [5, 0, 2], [3], slice(None, None, -2)])
def test_copy_like_pyg(pair, idx):
    ours, theirs = pair
    a, b = ours.copy(idx), theirs.copy(idx)
    assert a._indices is None and len(a) == len(b)
    assert (a.slices is None) == (b.slices is None)
    for i in range(len(b)):
        same_graph(a[i], b[i])
    c, d = ours[[4, 1, 3]].copy(idx and [2, 0]), theirs[[4, 1, 3]].copy(idx and [2, 0])
    assert [g.x.shape[0] for g in c] == [g.x.shape[0] for g in d]


def test_shuffle_and_print_summary(pair, capsys):
    ours, theirs = pair
    sh, perm = ours.shuffle(return_perm=True, seed=0)
    assert perm.dtype == np.int64 and sorted(perm.tolist()) == list(range(6))
    assert type(ours.shuffle(return_perm=1)) is Ours  # PyG: ``return_perm is True``
    view, vperm = ours[[5, 3, 1]].shuffle(return_perm=True, seed=0)
    assert view.indices().tolist() == [[5, 3, 1][i] for i in vperm]
    ours.print_summary()
    a = capsys.readouterr().out
    theirs.print_summary()
    b = capsys.readouterr().out
    assert a == b.replace("Theirs", "Ours")


def test_collate_with_differing_keys_is_refused():
    """PyG collates graph 0's keys (drops a later graph's extra key, KeyError for a
    missing one); arraygnn names the graph and key (documented)."""
    graphs = [Data(**g) for g in raw_graphs(n=3)]
    graphs[1].z = np.ones((2, 1))
    with pytest.raises(ValueError, match="graph 1: key 'z' is not in graph 0"):
        InMemoryDataset.collate(graphs)
    del graphs[1].z
    del graphs[2].y
    with pytest.raises(ValueError, match="graph 2: key 'y' is missing"):
        InMemoryDataset.collate(graphs)


def test_to_on_disk_dataset_like_pyg(tmp_path):
    graphs = raw_graphs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = Ours(graphs), Theirs(graphs)
        a = ours[[4, 1, 2]].to_on_disk_dataset(str(tmp_path / "a"), "sqlite", False)
        b = theirs[[4, 1, 2]].to_on_disk_dataset(str(tmp_path / "b"), "sqlite", False)
    assert len(a) == len(b) == 3 and repr(a) == "OnDiskOurs(3)" and repr(b) == "OnDiskTheirs(3)"
    for i in range(3):
        same_graph(a[i], b[i])
    assert repr(ours[[0]].to_on_disk_dataset(str(tmp_path / "c"), log=False)) == "OnDiskOurs()"
    with pytest.raises(ValueError, match="backend must be one of"):
        ours.to_on_disk_dataset(str(tmp_path / "d"), "rocks", False)
    with pytest.raises(ValueError, match="root directory of 'Ours' is not specified"):
        ours.to_on_disk_dataset()


def test_karate_club_through_the_api_like_pyg():
    from torch_geometric.datasets import KarateClub as PygKarate

    ours, theirs = KarateClub(), PygKarate()
    same_graph(ours[0], theirs[0])
    same_graph(ours[-1], theirs[-1])
    for a, b in ((ours, theirs), (ours[[0, 0]], theirs[[0, 0]])):
        assert repr(a) == repr(b) and len(a) == len(b)
        assert a.num_classes == b.num_classes and a.num_features == b.num_features
        assert a.num_edge_features == b.num_edge_features
        assert str(a.get_summary()) == str(b.get_summary())
        np.testing.assert_array_equal(a.edge_index, b.edge_index.numpy())
    assert ours.copy().slices is None and theirs.copy().slices is None
    c, d = ours.copy([0, 0]), theirs.copy([0, 0])
    assert sorted(c.slices) == sorted(d.slices)
    for key in d.slices:
        np.testing.assert_array_equal(c.slices[key], d.slices[key].numpy(), err_msg=key)
    with pytest.raises(IndexError):
        ours[1]


@pytest.mark.parametrize(
    "kw",
    [{"num_graphs": 4, "edge_dim": 2}, {"num_graphs": 3, "task": "node"}, {"num_channels": 0}],
    ids=["graph-edge_attr", "node-task", "no-x"],
)
def test_fake_dataset_through_the_api_like_pyg(kw):
    """Same keys, shapes, dtypes and statistics' structure (values are NumPy's draws)."""
    from torch_geometric.datasets import FakeDataset as PygFake

    torch.manual_seed(0)
    a = FakeDataset(avg_num_nodes=8, seed=0, **kw)
    b = PygFake(avg_num_nodes=8, **kw)
    assert repr(a) == repr(b) and len(a) == len(b)
    assert a.num_node_features == b.num_node_features
    assert a.num_edge_features == b.num_edge_features
    for ga, gb in ((a[0], b[0]), (a[-1], b[-1])):
        assert sorted(ga.keys()) == sorted(gb.keys())
        for key in ga.keys():
            va, vb = np_of(ga[key]), np_of(gb[key])
            assert va.ndim == vb.ndim and va.dtype == vb.dtype, key
    view = a[::-1]
    assert view.indices().tolist() == list(b[::-1].indices())
    assert a.get_summary().num_graphs == b.get_summary().num_graphs
