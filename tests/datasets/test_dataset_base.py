"""PyG's Dataset / InMemoryDataset protocol: one custom dataset written twice (PyG and
arraygnn) over the same raw file, compared item by item, slice by slice and batch by batch;
download / process once, force_reload, pre_transform warnings, views, clear errors."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.datasets import Dataset, InMemoryDataset, download_url
from arraygnn.loader import DataLoader

# ---------------------------------------------------------------------- raw data


def write_raw(path, num_graphs=12, index_dtype=np.int64, float_dtype=np.float32, seed=0):
    """Packed random graphs: an empty graph, isolated nodes, self-loops, multi-edges."""
    rng = np.random.default_rng(seed)
    num_nodes = rng.integers(1, 8, num_graphs)
    num_nodes[0] = 0  # an empty graph
    num_nodes[1] = 5
    num_edges = np.where(num_nodes > 0, rng.integers(0, 12, num_graphs), 0)
    num_edges[1] = 0  # a graph of isolated nodes
    local = [rng.integers(0, max(n, 1), (2, e)) for n, e in zip(num_nodes, num_edges)]
    edge_index = np.concatenate(local, axis=1).astype(index_dtype)
    if num_nodes[2] > 0 and num_edges[2] > 1:
        edge_index[:, int(num_edges[:2].sum())] = 0  # a self-loop
    np.savez(
        path,
        num_nodes=num_nodes,
        num_edges=num_edges,
        x=rng.normal(size=(int(num_nodes.sum()), 3)).astype(float_dtype),
        edge_index=edge_index,
        edge_attr=rng.normal(size=(int(num_edges.sum()), 2)).astype(float_dtype),
        y=rng.integers(0, 4, num_graphs),
    )


def split_raw(path):
    """Per-graph numpy arrays of a raw file."""
    raw = np.load(path)
    nodes = np.cumsum(raw["num_nodes"])[:-1]
    edges = np.cumsum(raw["num_edges"])[:-1]
    xs = np.split(raw["x"], nodes)
    eis = np.split(raw["edge_index"], edges, axis=1)
    eas = np.split(raw["edge_attr"], edges)
    return list(zip(xs, eis, eas, raw["y"].tolist()))


class Scale:
    def __init__(self, f):
        self.f = f

    def __call__(self, data):
        data.x = data.x * self.f
        return data

    def __repr__(self):
        return f"Scale({self.f})"


class MinNodes:
    def __init__(self, k):
        self.k = k

    def __call__(self, data):
        return data.x.shape[0] >= self.k

    def __repr__(self):
        return f"MinNodes({self.k})"


class OurGraphs(InMemoryDataset):
    """A PyG docs-style dataset: raw .npz downloaded from a URL, processed into one file."""

    def __init__(self, root, url, calls, transform=None, pre_transform=None, pre_filter=None,
                 force_reload=False, y_as_array=False):  # fmt: skip
        self.url, self.calls, self.y_as_array = url, calls, y_as_array
        super().__init__(root, transform, pre_transform, pre_filter, force_reload=force_reload)
        self.load(self.processed_paths[0])

    @property
    def raw_file_names(self):
        return ["graphs.npz"]

    @property
    def processed_file_names(self):
        return ["data.agnn"]

    def download(self):
        self.calls.append("download")
        download_url(self.url, self.raw_dir)

    def process(self):
        self.calls.append("process")
        data_list = [
            Data(x=x, edge_index=ei, edge_attr=ea, y=np.array([y]) if self.y_as_array else y)
            for x, ei, ea, y in split_raw(self.raw_paths[0])
        ]
        if self.pre_filter is not None:
            data_list = [d for d in data_list if self.pre_filter(d)]
        if self.pre_transform is not None:
            data_list = [self.pre_transform(d) for d in data_list]
        self.save(data_list, self.processed_paths[0])


def pyg_graphs_class():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")

    class PygGraphs(pyg.InMemoryDataset):
        def __init__(self, root, url, calls, transform=None, pre_transform=None,
                     pre_filter=None, force_reload=False):  # fmt: skip
            self.url, self.calls = url, calls
            super().__init__(root, transform, pre_transform, pre_filter,
                             force_reload=force_reload)  # fmt: skip
            self.load(self.processed_paths[0])

        @property
        def raw_file_names(self):
            return ["graphs.npz"]

        @property
        def processed_file_names(self):
            return ["data.pt"]

        def download(self):
            self.calls.append("download")
            pyg.download_url(self.url, self.raw_dir, log=False)

        def process(self):
            self.calls.append("process")
            t = torch.from_numpy
            data_list = [
                pyg.Data(x=t(x), edge_index=t(ei), edge_attr=t(ea), y=y)
                for x, ei, ea, y in split_raw(self.raw_paths[0])
            ]
            if self.pre_filter is not None:
                data_list = [d for d in data_list if self.pre_filter(d)]
            if self.pre_transform is not None:
                data_list = [self.pre_transform(d) for d in data_list]
            self.save(data_list, self.processed_paths[0])

    return PygGraphs


@pytest.fixture
def source(tmp_path):
    folder = tmp_path / "server"
    folder.mkdir()
    write_raw(folder / "graphs.npz")
    return (folder / "graphs.npz").as_uri()


def np_of(v):
    return v.numpy() if hasattr(v, "numpy") else np.asarray(v)


def assert_same_graph(ours, theirs):
    """Our graph equals PyG's (PyG gives numbers back as [1] tensors)."""
    assert sorted(ours.keys()) == sorted(theirs.keys())
    for key in ours.keys():
        a, b = np.atleast_1d(np_of(ours[key])), np.atleast_1d(np_of(theirs[key]))
        assert a.shape == b.shape and a.dtype == b.dtype, key
        np.testing.assert_array_equal(a, b, err_msg=key)


# ---------------------------------------------------------------------- vs PyG


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("float_dtype", [np.float32, np.float64])
def test_same_items_slices_and_statistics_as_pyg(tmp_path, index_dtype, float_dtype):
    folder = tmp_path / "server"
    folder.mkdir()
    write_raw(folder / "graphs.npz", index_dtype=index_dtype, float_dtype=float_dtype)
    url = (folder / "graphs.npz").as_uri()
    PygGraphs = pyg_graphs_class()
    ours = OurGraphs(tmp_path / "ours", url, [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygGraphs(str(tmp_path / "pyg"), url, [])
    assert len(ours) == len(theirs) == 12
    assert repr(ours) == "OurGraphs(12)" and repr(theirs) == "PygGraphs(12)"
    for i in range(len(ours)):
        assert_same_graph(ours[i], theirs[i])
        assert isinstance(ours[i].y, int)  # given back as stored
    assert set(ours.slices) == set(theirs.slices)
    for key, sl in theirs.slices.items():
        np.testing.assert_array_equal(ours.slices[key], sl.numpy(), err_msg=key)
    assert ours.num_classes == theirs.num_classes
    assert ours.num_node_features == theirs.num_node_features == 3
    assert ours.num_features == theirs.num_features
    assert ours.num_edge_features == theirs.num_edge_features == 2
    # stacked attributes, as PyG's dataset.{attr}
    np.testing.assert_array_equal(ours.y, theirs.y.numpy())
    np.testing.assert_array_equal(ours.x, theirs.x.numpy())
    np.testing.assert_array_equal(ours.edge_index, theirs.edge_index.numpy())  # batched
    np.testing.assert_array_equal(ours[3:].edge_index, theirs[3:].edge_index.numpy())


def test_dataloader_batches_equal_pygs(tmp_path, source):
    from torch_geometric.loader import DataLoader as PygLoader

    PygGraphs = pyg_graphs_class()
    ours = OurGraphs(tmp_path / "ours", source, [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygGraphs(str(tmp_path / "pyg"), source, [])
    ob = list(DataLoader(ours, batch_size=5))
    tb = list(PygLoader(theirs, batch_size=5))
    assert len(ob) == len(tb) == 3
    for a, b in zip(ob, tb):
        for key in ("x", "edge_index", "edge_attr", "y", "batch", "ptr"):
            np.testing.assert_array_equal(a[key], b[key].numpy(), err_msg=key)
    # and over a view, shuffled by a seeded loader: every graph once
    seen = np.concatenate([b.y for b in DataLoader(ours[::2], batch_size=4, shuffle=True, seed=1)])
    assert sorted(seen.tolist()) == sorted(ours.y[::2].tolist())


@pytest.mark.parametrize(
    "idx",
    [
        slice(2, 9),
        slice(None, None, -2),
        slice(None, 0.5),
        slice(0.25, None),
        [3, 0, -1, 3],
        (1, 2),
        np.array([4, 1, 1], np.int64),
        np.array([True, False] * 6),
        [],
    ],
    ids=lambda v: repr(v),
)
def test_index_select_same_indices_as_pyg(tmp_path, source, idx):
    PygGraphs = pyg_graphs_class()
    ours = OurGraphs(tmp_path / "ours", source, [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygGraphs(str(tmp_path / "pyg"), source, [])
    a, b = ours[idx], theirs[idx]
    assert type(a) is OurGraphs
    assert list(a.indices()) == list(b.indices())
    assert len(a) == len(b) and repr(a) == repr(b).replace("Pyg", "Our")
    for i in range(len(a)):
        assert_same_graph(a[i], b[i])
    # a view of a view
    if len(a) > 1:
        assert list(a[1:][[0]].indices()) == list(b[1:][[0]].indices())
    # a view shares the storage; copy() makes new arrays holding the same graphs
    assert a._data is ours._data
    if len(a):
        c = ours.copy(idx)
        assert c._indices is None and len(c) == len(a)
        for i in range(len(a)):
            assert_same_graph(c[i], b[i])
        assert not np.shares_memory(c._data.x, ours._data.x)
        assert list(c.slices) == list(ours.slices)


def test_torch_index_tensors_like_pyg(tmp_path, source):
    torch = pytest.importorskip("torch")
    PygGraphs = pyg_graphs_class()
    ours = OurGraphs(tmp_path / "ours", source, [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygGraphs(str(tmp_path / "pyg"), source, [])
    perm = torch.randperm(12, generator=torch.Generator().manual_seed(0))
    mask = torch.arange(12) % 3 == 0
    for idx in (perm, mask, torch.tensor(4)):
        a, b = ours[idx], theirs[idx]
        if hasattr(b, "indices"):  # a view (a 0-d tensor gives one graph)
            assert list(a.indices()) == list(b.indices())
        else:
            assert_same_graph(a, b)


def test_shuffle(tmp_path, source):
    ours = OurGraphs(tmp_path / "ours", source, [])
    sh, perm = ours.shuffle(return_perm=True, seed=3)
    assert sorted(perm.tolist()) == list(range(12)) and perm.dtype == np.int64
    for i in range(12):
        np.testing.assert_array_equal(sh[i].x, ours[int(perm[i])].x)
    assert list(ours.shuffle(seed=3).indices()) == perm.tolist()  # seeded: repeatable
    assert isinstance(ours.shuffle(), OurGraphs)
    # shuffling a view permutes the view
    sub = ours[[5, 6, 7]]
    assert sorted(sub.shuffle(seed=0).indices().tolist()) == [5, 6, 7]


def test_transform_applies_on_access_not_to_storage(tmp_path, source):
    ours = OurGraphs(tmp_path / "ours", source, [], transform=Scale(2.0))
    plain = OurGraphs(tmp_path / "ours", source, [])
    np.testing.assert_array_equal(ours[4].x, 2 * plain[4].x)
    np.testing.assert_array_equal(ours.get(4).x, plain[4].x)  # get: no transform
    # views keep the transform; num_classes goes through the transformed graphs
    np.testing.assert_array_equal(ours[2:][2].x, 2 * plain[4].x)
    assert ours.num_classes == plain.num_classes


def test_y_arrays_collate_like_pyg(tmp_path, source):
    ours = OurGraphs(tmp_path / "ours", source, [], y_as_array=True)
    assert ours[3].y.shape == (1,) and ours.y.shape == (12,)
    assert ours.num_classes == int(ours.y.max()) + 1


# ---------------------------------------------------------------------- protocol


def test_download_and_process_run_once(tmp_path, source):
    calls = []
    first = OurGraphs(tmp_path / "ds", source, calls)
    assert calls == ["download", "process"]
    assert sorted(os.listdir(tmp_path / "ds" / "processed")) == [
        "data.agnn",
        "pre_filter.txt",
        "pre_transform.txt",
    ]
    second = OurGraphs(tmp_path / "ds", source, calls)
    assert calls == ["download", "process"]  # the second instance read the file
    for i in range(len(first)):
        assert_same_graph(second[i], first[i])
    OurGraphs(tmp_path / "ds", source, calls, force_reload=True)
    assert calls == ["download", "process", "process"]  # processed again, not downloaded
    os.remove(tmp_path / "ds" / "processed" / "data.agnn")
    OurGraphs(tmp_path / "ds", source, calls)
    assert calls[-1] == "process"


def test_same_protocol_calls_as_pyg(tmp_path, source):
    PygGraphs = pyg_graphs_class()
    runs = {}
    for name, cls in (("ours", OurGraphs), ("pyg", PygGraphs)):
        calls = []
        root = str(tmp_path / name)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            cls(root, source, calls, pre_transform=Scale(1.0))
            cls(root, source, calls, pre_transform=Scale(1.0))
            cls(root, source, calls, pre_transform=Scale(3.0))
            cls(root, source, calls, pre_transform=Scale(3.0), force_reload=True)
            cls(root, source, calls, pre_transform=Scale(3.0), pre_filter=MinNodes(2))
        texts = [str(m.message) for m in w if "differs" in str(m.message)]
        runs[name] = (calls, texts)
    assert runs["ours"] == runs["pyg"]
    calls, texts = runs["ours"]
    assert calls == ["download", "process", "process"]
    assert len(texts) == 2 and "`pre_transform` argument differs" in texts[0]
    assert "`pre_filter` argument differs" in texts[1]


def test_pre_transform_and_pre_filter_are_applied_by_process(tmp_path, source):
    plain = OurGraphs(tmp_path / "a", source, [])
    ds = OurGraphs(tmp_path / "b", source, [], pre_transform=Scale(10.0), pre_filter=MinNodes(3))
    kept = [i for i in range(len(plain)) if plain[i].x.shape[0] >= 3]
    assert len(ds) == len(kept)
    for j, i in enumerate(kept):
        np.testing.assert_allclose(ds[j].x, 10 * plain[i].x)
    text = open(tmp_path / "b" / "processed" / "pre_transform.txt").read()
    assert text == "Scale(10.0)"


def test_logging_to_stderr(tmp_path, source, monkeypatch, capsys):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    OurGraphs(tmp_path / "a", source, [])
    err = capsys.readouterr().err
    assert "Downloading file://" in err and "Processing..." in err and "Done!" in err


def test_repr_of_functions_ignores_addresses(tmp_path, source):
    ds = OurGraphs(tmp_path / "a", source, [], pre_transform=lambda d: d)
    assert open(tmp_path / "a" / "processed" / "pre_transform.txt").read() == "<function>"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OurGraphs(tmp_path / "a", source, [], pre_transform=lambda d: d)
    assert len(ds) == 12


class Counting(Dataset):
    """A Dataset with get() / len() and raw files only (no process)."""

    def __init__(self, root, calls):
        self.calls = calls
        super().__init__(root)

    @property
    def raw_file_names(self):
        return ["a.txt", "b.txt"]

    def download(self):
        self.calls.append("download")
        for name in self.raw_file_names:
            with open(os.path.join(self.raw_dir, name), "w") as f:
                f.write(name)

    def len(self):
        return 3

    def get(self, idx):
        return Data(x=np.full((idx + 1, 2), idx, np.float32), y=np.array([idx], np.int64))


def test_download_only_when_a_raw_file_is_missing(tmp_path):
    calls = []
    ds = Counting(tmp_path / "c", calls)
    Counting(tmp_path / "c", calls)
    assert calls == ["download"]
    assert ds.raw_paths == [str(tmp_path / "c" / "raw" / n) for n in ("a.txt", "b.txt")]
    os.remove(ds.raw_paths[1])
    Counting(tmp_path / "c", calls)
    assert calls == ["download", "download"]
    assert not ds.has_process and ds.has_download
    assert [d.x.shape[0] for d in ds] == [1, 2, 3]
    assert ds.num_classes == 3 and ds.num_node_features == 2 and ds.num_edge_features == 0


def test_dataset_paths_and_repr(tmp_path):
    class One(Dataset):
        def len(self):
            return 1

        def get(self, idx):
            return Data(num_nodes=2)

    ds = One(root=os.path.join("~", "x", "..", "y"))
    assert ds.root == os.path.expanduser(os.path.join("~", "y"))
    assert ds.raw_dir.endswith(os.path.join("y", "raw"))
    assert repr(ds) == "One()" and repr(One()) == "One()" and One().root == "???"
    assert not ds.has_download and not ds.has_process


@pytest.mark.parametrize(
    "y",
    [
        np.array([0, 3, 1]),
        np.array([0.0, 1.0, 0.0]),
        np.array([0.5, 1.5, 2.5, 0.5]),
        np.eye(3, 5, dtype=np.float32),
        np.array([True, False]),
    ],
    ids=["int", "float-2", "float-3", "one-hot", "bool"],
)
def test_num_classes_rules_like_pyg(y):
    pyg = pytest.importorskip("torch_geometric.data")
    torch = pytest.importorskip("torch")

    class Ours(Dataset):
        def len(self):
            return len(y)

        def get(self, idx):
            return Data(y=y[idx : idx + 1])

    class Theirs(pyg.Dataset):
        def len(self):
            return len(y)

        def get(self, idx):
            return pyg.Data(y=torch.from_numpy(y[idx : idx + 1]))

    with warnings.catch_warnings(record=True) as w1:
        warnings.simplefilter("always")
        a = Ours().num_classes
    with warnings.catch_warnings(record=True) as w2:
        warnings.simplefilter("always")
        b = Theirs().num_classes
    assert a == b
    assert [str(m.message) for m in w1] == [str(m.message) for m in w2]


# ---------------------------------------------------------------------- collate / save / load


class PairData(Data):
    """Two graphs in one object (PyG's docs example), with its own hooks."""

    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index_s":
            return self.x_s.shape[0]
        if key == "edge_index_t":
            return self.x_t.shape[0]
        return super().__inc__(key, value, *args, **kwargs)

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key == "stacked":
            return None
        return super().__cat_dim__(key, value, *args, **kwargs)


def pair_graphs(rng, n=4):
    out = []
    for i in range(n):
        ns, nt = int(rng.integers(0, 4)), int(rng.integers(1, 4))
        out.append(
            PairData(
                x_s=rng.normal(size=(ns, 2)),
                edge_index_s=rng.integers(0, max(ns, 1), (2, 3 if ns else 0)),
                x_t=rng.normal(size=(nt, 2)),
                edge_index_t=rng.integers(0, nt, (2, 2)),
                stacked=np.full((2, 2), i),
                zero_d=np.array(i * 1.5),
                count=np.int32(i),
                flag=bool(i % 2),
                name=f"g{i}",
                num_nodes=ns + nt,
            )
        )
    return out


def test_collate_save_load_round_trip_of_a_custom_class(tmp_path):
    graphs = pair_graphs(np.random.default_rng(0))
    before = [{k: (v.copy() if hasattr(v, "copy") else v) for k, v in g.items()} for g in graphs]
    data, slices = InMemoryDataset.collate(graphs)
    assert type(data) is PairData
    assert slices["stacked"].tolist() == [0, 1, 2, 3, 4] and data.stacked.shape == (4, 2, 2)
    assert slices["name"].tolist() == [0, 1, 2, 3, 4] and data.name == ["g0", "g1", "g2", "g3"]
    assert data.num_nodes == sum(g.num_nodes for g in graphs)
    path = tmp_path / "pairs.agnn"
    InMemoryDataset.save(graphs, path)

    class Pairs(InMemoryDataset):
        pass

    ds = Pairs()
    ds.load(path)
    assert len(ds) == 4
    for g, got in zip(graphs, ds):
        assert type(got) is PairData and got.keys() == g.keys()
        for key in g.keys():
            a, b = got[key], g[key]
            assert type(a) is type(b), key
            if isinstance(b, np.ndarray):
                assert a.dtype == b.dtype and a.shape == b.shape, key
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b, key
    # nothing the user passed was changed
    for g, old in zip(graphs, before):
        assert list(g.keys()) == list(old)
        for k, v in old.items():
            np.testing.assert_array_equal(g[k], v)
    # batches of the loaded graphs equal batches of the originals
    ours = Batch.from_data_list(list(ds))
    ref = Batch.from_data_list(graphs)
    for key in ref.keys():
        if isinstance(ref[key], np.ndarray):
            np.testing.assert_array_equal(ours[key], ref[key], err_msg=key)
    assert isinstance(next(iter(DataLoader(ds, batch_size=4))), Batch)


def test_load_with_mmap(tmp_path, source):
    ds = OurGraphs(tmp_path / "a", source, [])
    mapped = InMemoryDataset()
    mapped.load(ds.processed_paths[0], mmap=True)
    assert len(mapped) == len(ds)
    for i in range(len(ds)):
        assert_same_graph(mapped[i], ds[i])
    before = open(ds.processed_paths[0], "rb").read()
    assert mapped._data.x.ctypes.data % 64 == 0  # the stored arrays are aligned
    x = mapped[3].x
    assert x.flags.writeable
    x[...] = 7  # copy-on-write: this process only, the file is unchanged
    assert (mapped[3].x == 7).all()
    assert open(ds.processed_paths[0], "rb").read() == before
    assert not (OurGraphs(tmp_path / "a", source, [])[3].x == 7).all()


def test_one_graph_is_kept_as_is(tmp_path):
    g = Data(x=np.ones((3, 2)), y=2, name="only")
    data, slices = InMemoryDataset.collate([g])
    assert data is g and slices is None
    InMemoryDataset.save([g], tmp_path / "one.agnn")
    ds = InMemoryDataset()
    ds.load(tmp_path / "one.agnn")
    assert len(ds) == 1 and ds[0].y == 2 and ds[0].name == "only" and ds[0] is not ds[0]


def test_collate_set_by_hand_like_pyg():
    """data / slices made by hand (PyG's older pattern): PyG's separation rule."""
    pyg = pytest.importorskip("torch_geometric.data")
    torch = pytest.importorskip("torch")
    x = np.arange(10.0).reshape(5, 2)
    ei = np.array([[0, 1, 0, 0], [1, 0, 2, 1]])
    slices = {"x": np.array([0, 2, 5]), "edge_index": np.array([0, 2, 4]), "y": np.array([0, 1, 2])}

    class Hand(InMemoryDataset):
        def __init__(self):
            super().__init__()
            self.data, self.slices = Data(x=x, edge_index=ei, y=np.array([7, 8])), slices

    class PygHand(pyg.InMemoryDataset):
        def __init__(self):
            super().__init__()
            t = torch.from_numpy
            self.data = pyg.Data(x=t(x), edge_index=t(ei), y=t(np.array([7, 8])))
            self.slices = {k: t(v) for k, v in slices.items()}

    ours, theirs = Hand(), PygHand()
    assert len(ours) == len(theirs) == 2
    for i in range(2):
        assert_same_graph(ours[i], theirs[i])
    assert ours[1].y.tolist() == [8]  # [1], as PyG
    with pytest.warns(UserWarning, match="internal storage format"):
        ours.data  # noqa: B018 - reading warns, as in PyG
    bad = Hand()
    bad.slices = {"x": np.array([0, 2, 6])}
    with pytest.raises(ValueError, match=r"slices\['x'\] ends at 6 but data.x has 5"):
        bad[0]


# ---------------------------------------------------------------------- errors


def test_clear_errors(tmp_path, source):
    ds = OurGraphs(tmp_path / "a", source, [])
    with pytest.raises(IndexError, match="index 12 out of range for 12 graphs"):
        ds[12]
    with pytest.raises(IndexError, match="index -13 out of range"):
        ds[[0, -13]]
    with pytest.raises(IndexError, match="boolean mask has 3 entries, the dataset 12"):
        ds[np.array([True, False, True])]
    with pytest.raises(IndexError, match="valid indices \\(got 'str'\\)"):
        ds["x"]
    with pytest.raises(IndexError, match="integers or bools, got dtype float64"):
        ds[np.array([0.5])]
    with pytest.raises(ValueError, match="data_list is empty"):
        InMemoryDataset.collate([])
    with pytest.raises(TypeError, match="graph 1 is a dict"):
        InMemoryDataset.collate([Data(x=np.ones(2)), {"x": 1}])
    with pytest.raises(ValueError, match="InMemoryDataset.collate: graph 1: key 'y' is missing"):
        InMemoryDataset.collate([Data(x=np.ones((1, 2)), y=1), Data(x=np.ones((1, 2)))])
    with pytest.raises(TypeError, match="InMemoryDataset.collate: key 'x' in graph 1.*float32"):
        InMemoryDataset.collate([Data(x=np.ones((1, 2))), Data(x=np.ones((1, 2), np.float32))])
    with pytest.raises(ValueError, match="key 'x' in graph 1: has shape \\[1, 3\\]"):
        InMemoryDataset.collate([Data(x=np.ones((1, 2))), Data(x=np.ones((1, 3)))])
    with pytest.raises(TypeError, match="not stored \\(no pickle\\)"):
        InMemoryDataset.save(
            [Data(a=np.array([{}], dtype=object)), Data(a=np.array([1], dtype=object))],
            tmp_path / "o.agnn",
        )
    with pytest.raises(TypeError, match="only arrays, numbers, strings"):
        InMemoryDataset.save([Data(s={1, 2}), Data(s={3})], tmp_path / "o.agnn")
    assert not os.path.exists(tmp_path / "o.agnn")  # no half-written file left behind
    with pytest.raises(RuntimeError, match="no data loaded"):
        InMemoryDataset().get(0)
    assert len(InMemoryDataset()) == 0


def test_errors_for_missing_root_and_foreign_files(tmp_path):
    class NeedsRoot(InMemoryDataset):
        @property
        def processed_file_names(self):
            return ["d.agnn"]

        def process(self):
            raise AssertionError("not reached")

    with pytest.raises(ValueError, match="defines process\\(\\) but has no root"):
        NeedsRoot()
    torch = pytest.importorskip("torch")
    torch.save({"a": torch.zeros(2)}, tmp_path / "t.pt")
    with pytest.raises(ValueError, match="not an arraygnn arrays file.*torch.save"):
        InMemoryDataset().load(tmp_path / "t.pt")
    with pytest.raises(TypeError, match="transform must be callable"):
        InMemoryDataset(transform=3)

    class NoGet(Dataset):
        pass

    with pytest.raises(NotImplementedError, match="NoGet.len\\(\\) is not defined"):
        len(NoGet())


def test_local_data_class_is_refused_when_saving(tmp_path):
    class Local(Data):
        pass

    with pytest.raises(TypeError, match="defined inside a function"):
        InMemoryDataset.save([Local(x=np.ones(1)), Local(x=np.ones(1))], tmp_path / "l.agnn")
