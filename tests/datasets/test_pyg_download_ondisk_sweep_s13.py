"""Parity sweep (session 13) of download_url / extract_* / OnDiskDataset / the synthetic
datasets' options against PyG 2.8.1, live, on files built in tmp_path (file:// URLs only).

The defaults are covered by test_dataset_download.py, test_dataset_on_disk.py,
test_offline_pyg_datasets.py and test_pyg_dataset_api_sweep_s12.py: this file spends its
cases on options (tar modes, nested folders, existing files, subfolder file names, schemas,
dtypes, None / scalar attributes, index kinds, hetero options) and on bad input."""

from __future__ import annotations

import bz2
import gzip
import io
import os
import tarfile
import warnings
import zipfile

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.datasets import (
    FakeHeteroDataset,
    OnDiskDataset,
    RandomPartitionGraphDataset,
    StochasticBlockModelDataset,
    download_google_url,
    download_url,
    extract_bz2,
    extract_gz,
    extract_tar,
    extract_zip,
)

FILES = {"top.txt": b"top", "d1/mid.txt": b"mid", "d1/d2/deep.txt": b"deep" * 20}


def pyg_data():
    return pytest.importorskip("torch_geometric.data")


def tree(folder):
    out = {}
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = fh.read()
    return out


def outcome(fn, *args, **kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return "err", type(e)


def make_tar(path, mode):
    with tarfile.open(path, mode) as t:
        for name, blob in FILES.items():
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))


# ---------------------------------------------------------------- download_url


@pytest.mark.parametrize(
    "url_tail, kwargs",
    [
        ("a.csv", dict(filename="sub/dir/b.csv")),  # PyG (fsspec) makes the subfolders
        ("a.csv", dict(filename="?x")),  # a name that starts with '?' is kept
        ("a.csv", dict(filename="c.bin", log=True)),
        ("missing.csv", {}),  # URLError in both, nothing left behind
        ("a.csv?dl=1", {}),  # file:// keeps the query in the path: not found in both
    ],
)
def test_download_url_options_like_pyg(tmp_path, url_tail, kwargs):
    pyg = pyg_data()
    (tmp_path / "a.csv").write_bytes(b"0,1\n")
    url = (tmp_path / "a.csv").as_uri().rpartition("/")[0] + "/" + url_tail
    ours = outcome(download_url, url, str(tmp_path / "ours"), **kwargs)
    theirs = outcome(pyg.download_url, url, str(tmp_path / "pyg"), **kwargs)
    assert ours[0] == theirs[0] and (ours[0] == "ok" or ours[1] is theirs[1])
    if ours[0] == "ok":
        rel = os.path.relpath(ours[1], tmp_path / "ours")
        assert rel == os.path.relpath(theirs[1], tmp_path / "pyg")
    for side in ("ours", "pyg"):
        if (tmp_path / side).exists():
            assert tree(tmp_path / side) == tree(tmp_path / "ours")  # no temporary left


def test_download_url_pathlike_existing_and_bad_names(tmp_path):
    pyg = pyg_data()
    (tmp_path / "a.csv").write_bytes(b"new")
    for side, fn in (("ours", download_url), ("pyg", pyg.download_url)):
        folder = tmp_path / side
        folder.mkdir()
        (folder / "a.csv").write_bytes(b"old")
        path = fn((tmp_path / "a.csv").as_uri(), folder, log=False)  # a Path folder
        assert isinstance(path, str) and open(path, "rb").read() == b"old"
    # no file name: a clear error (PyG: IndexError / IsADirectoryError)
    with pytest.raises(ValueError, match="no file name"):
        download_url(tmp_path.as_uri() + "/", str(tmp_path / "x"), log=False)
    with pytest.raises(ValueError, match="no file name"):
        download_url((tmp_path / "a.csv").as_uri(), str(tmp_path / "x"), filename="")


def test_download_google_url_arguments(tmp_path, monkeypatch):
    pyg = pyg_data()
    seen = []

    def fake_urlopen(url, *args, **kwargs):
        seen.append(url)
        return io.BytesIO(b"drive")

    import urllib.request

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    for side, fn in (("ours", download_google_url), ("pyg", pyg.download_google_url)):
        path = fn("FILE_ID", str(tmp_path / side), "named.bin", log=False)
        assert os.path.relpath(path, tmp_path / side) == "named.bin"
        assert open(path, "rb").read() == b"drive"
    assert (
        seen[0] == seen[1] == "https://drive.usercontent.google.com/download?id=FILE_ID&confirm=t"
    )
    # present: not fetched again (positional log as PyG's signature)
    assert download_google_url("FILE_ID", str(tmp_path / "ours"), "named.bin", False)
    assert len(seen) == 2


# ---------------------------------------------------------------- extract_*


@pytest.mark.parametrize(
    "write_mode, ext, read_mode",
    [
        ("w:xz", "txz", "r:xz"),
        ("w:bz2", "tbz", "r:*"),
        ("w:gz", "tgz", "r"),
        ("w", "tar", "r:"),
        ("w:gz", "tgz", "r|gz"),  # a stream
        ("w:gz", "tgz", "r:bz2"),  # the wrong compression: ReadError in both
    ],
)
def test_extract_tar_modes_nested_and_overwrite_like_pyg(tmp_path, write_mode, ext, read_mode):
    pyg = pyg_data()
    make_tar(tmp_path / f"x.{ext}", write_mode)
    results = []
    for side, fn in (("ours", extract_tar), ("pyg", pyg.extract_tar)):
        folder = tmp_path / side
        (folder / "d1").mkdir(parents=True)
        (folder / "top.txt").write_bytes(b"OLD")  # overwritten by the archive's
        (folder / "keep.txt").write_bytes(b"kept")
        results.append((outcome(fn, str(tmp_path / f"x.{ext}"), str(folder), read_mode, False),
                        tree(folder)))  # fmt: skip
    (ours, ours_tree), (theirs, theirs_tree) = results
    assert ours[0] == theirs[0] and ours_tree == theirs_tree
    if ours[0] == "ok":
        assert ours[1] is None and ours_tree == {**FILES, "keep.txt": b"kept"}
    else:
        assert ours[1] is theirs[1] is tarfile.ReadError


@pytest.mark.parametrize("mode", ["w", "w:gz", "a", "x", "rb", 3])
def test_extract_tar_refuses_a_mode_that_writes(tmp_path, mode):
    # PyG passes any mode to tarfile.open: "w" truncates the archive to an empty tar
    make_tar(tmp_path / "x.tgz", "w:gz")
    before = (tmp_path / "x.tgz").read_bytes()
    with pytest.raises((ValueError, TypeError), match="extract_tar: mode"):
        extract_tar(str(tmp_path / "x.tgz"), str(tmp_path / "out"), mode, log=False)
    assert (tmp_path / "x.tgz").read_bytes() == before


def test_extract_zip_nested_new_folder_and_overwrite_like_pyg(tmp_path):
    pyg = pyg_data()
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as z:
        for name, blob in FILES.items():
            z.writestr(name, blob)
        z.writestr("empty/", b"")
    for side, fn in (("ours", extract_zip), ("pyg", pyg.extract_zip)):
        folder = tmp_path / side / "new" / "deeper"  # missing: made by zipfile
        assert fn(tmp_path / "x.zip", folder, log=False) is None
        (folder / "top.txt").write_bytes(b"OLD")
        fn(str(tmp_path / "x.zip"), str(folder), False)
        assert (folder / "empty").is_dir()
    assert tree(tmp_path / "ours") == tree(tmp_path / "pyg")
    assert tree(tmp_path / "ours" / "new" / "deeper") == FILES


@pytest.mark.parametrize("kind", ["gz", "bz2"])
def test_extract_stream_options(tmp_path, kind):
    pyg = pyg_data()
    ours_fn = {"gz": extract_gz, "bz2": extract_bz2}[kind]
    compress = {"gz": gzip.compress, "bz2": bz2.compress}[kind]
    name = f"graph.tar.{kind}"  # only the last extension is cut: graph.tar
    for side, fn in (("ours", ours_fn), ("pyg", getattr(pyg, f"extract_{kind}"))):
        folder = tmp_path / side
        folder.mkdir()
        (folder / name).write_bytes(compress(b"payload" * 10))
        (folder / "graph.tar").write_bytes(b"OLD")  # overwritten
        assert fn(folder / name, folder, log=False) is None  # Path arguments
    assert tree(tmp_path / "ours") == tree(tmp_path / "pyg")
    # a folder that does not exist yet is made (as extract_zip / extract_tar; PyG writes
    # beside the archive whatever folder is)
    ours_fn(str(tmp_path / "ours" / name), str(tmp_path / "fresh" / "sub"), log=False)
    assert tree(tmp_path / "fresh") == {os.path.join("sub", "graph.tar"): b"payload" * 10}


@pytest.mark.parametrize("kind", ["gz", "bz2"])
def test_extract_stream_of_a_corrupt_archive_leaves_no_output(tmp_path, kind):
    pyg = pyg_data()
    ours_fn = {"gz": extract_gz, "bz2": extract_bz2}[kind]
    results = []
    for side, fn in (("ours", ours_fn), ("pyg", getattr(pyg, f"extract_{kind}"))):
        folder = tmp_path / side
        folder.mkdir()
        (folder / f"bad.csv.{kind}").write_bytes(b"not compressed at all")
        results.append(outcome(fn, str(folder / f"bad.csv.{kind}"), str(folder), log=False))
    assert results[0][0] == results[1][0] == "err" and results[0][1] is results[1][1]
    # PyG leaves an empty bad.csv, which a later run would take for the extracted file
    assert sorted(os.listdir(tmp_path / "ours")) == [f"bad.csv.{kind}"]
    assert "bad.csv" in os.listdir(tmp_path / "pyg")


# ---------------------------------------------------------------- OnDiskDataset


def raw_graphs(n=5):
    rng = np.random.default_rng(0)
    return [
        dict(
            x=rng.normal(size=(i + 1, 2)).astype(np.float16),
            edge_index=np.array([[0, i], [i, 0]], np.int32),
            w=rng.random(i + 1),
            y=i / 2,
            flag=bool(i % 2),
            name=f"g{i}",
            n=np.int64(i),
            t=np.float32(1.5),
            z=None,  # dropped by both Data classes
        )
        for i in range(n)
    ]


def to_torch(value):
    import torch

    return torch.from_numpy(value) if isinstance(value, np.ndarray) else value


def assert_same_record(a, b):
    """An arraygnn record equals a PyG record: arrays vs tensors (dtype, values), the rest
    by type and value; Data by keys."""
    if hasattr(b, "keys") and callable(b.keys) and not isinstance(b, dict):
        assert sorted(a.keys()) == sorted(b.keys())
        a, b = {k: a[k] for k in a.keys()}, {k: b[k] for k in b.keys()}
    if isinstance(b, dict):
        assert sorted(a) == sorted(b)
        for k in b:
            assert_same_record(a[k], b[k])
    elif isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for va, vb in zip(a, b):
            assert_same_record(va, vb)
    elif hasattr(b, "numpy"):
        assert isinstance(a, np.ndarray) and str(b.dtype) == f"torch.{a.dtype}"
        np.testing.assert_array_equal(a, b.numpy())
    else:
        assert type(a) is type(b) and a == b


@pytest.fixture
def pair(tmp_path):
    pyg = pyg_data()
    ours = OnDiskDataset(tmp_path / "ours", log=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = pyg.OnDiskDataset(str(tmp_path / "pyg"), log=False)
    raws = raw_graphs()
    ours.extend([Data(**r) for r in raws[:3]], batch_size=2)
    ours.append(Data(**raws[3]))
    ours.extend([Data(**raws[4])])
    theirs.extend([pyg.Data(**{k: to_torch(v) for k, v in r.items()}) for r in raws[:3]], 2)
    theirs.append(pyg.Data(**{k: to_torch(v) for k, v in raws[3].items()}))
    theirs.extend([pyg.Data(**{k: to_torch(v) for k, v in raws[4].items()})])
    yield ours, theirs
    ours.close()
    theirs.close()


def test_on_disk_dtypes_none_and_scalars_like_pyg(pair):
    ours, theirs = pair
    assert len(ours) == len(theirs) == 5 and repr(ours) == repr(theirs)
    for i in range(5):
        assert "z" not in ours[i].keys()
        assert_same_record(ours[i], theirs[i])
        assert_same_record(ours.get(i), theirs.get(i))
    # (key order of the repr differs: PyG's Data puts its named arguments x, edge_index,
    # edge_attr, y, pos, time first; arraygnn keeps the order given)


def index_kinds():
    return {
        "list": [3, 1],
        "range": range(1, 4),
        "one": [2],
        "numpy": "numpy",
        "tuple": (0, 4, 4),
        "torch": "torch",
    }


@pytest.mark.parametrize("kind", sorted(index_kinds()))
def test_on_disk_multi_get_index_kinds_like_pyg(pair, kind):
    ours, theirs = pair
    idx = theirs_idx = index_kinds()[kind]
    if idx == "torch":
        import torch

        idx = theirs_idx = torch.tensor([4, 0])
    elif idx == "numpy":  # PyG binds NumPy ints to no row and gives [] (so: a list there)
        idx, theirs_idx = np.array([4, 0, 4], np.int32), [4, 0, 4]
    got_ours, got_theirs = ours.multi_get(idx), theirs.multi_get(theirs_idx)
    assert [d.name for d in got_ours] == [d.name for d in got_theirs]
    for a, b in zip(got_ours, got_theirs):
        assert_same_record(a, b)


@pytest.mark.parametrize(
    "idx",
    [slice(1, 4), slice(None, None, -2), [4, 0], "mask", "torch", slice(-2, None)],
    ids=["slice", "step", "list", "mask", "torch", "negative"],
)
def test_on_disk_views_like_pyg(pair, idx):
    ours, theirs = pair
    if idx == "mask":
        idx = np.array([True, False, True, False, True])
    elif idx == "torch":
        import torch

        idx = torch.tensor([3, 1])
    vo, vt = ours[idx], theirs[idx]
    assert type(vo) is OnDiskDataset and len(vo) == len(vt)
    assert list(vo.indices()) == list(vt.indices())
    assert [d.name for d in vo] == [d.name for d in vt]
    assert [d.name for d in vo[1:]] == [d.name for d in vt[1:]]  # a view of a view
    assert vo[-1].name == vt[-1].name
    assert [d.name for d in vo.multi_get([0])] == [d.name for d in vt.multi_get([0])]


def test_on_disk_bad_input_is_named(pair, tmp_path):
    ours, _ = pair
    for idx in (-1, 5):  # PyG: TypeError 'NoneType' object is not subscriptable
        with pytest.raises(IndexError, match=f"graph {idx} out of range for 5 graphs"):
            ours.get(idx)
    with pytest.raises(IndexError, match="index -6 out of range"):
        ours[-6]
    # PyG: range() arg 3 must not be zero (0) / nothing stored but counted (-1)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="extend: batch_size must be"):
            ours.extend([Data(x=np.ones(1))], batch_size=bad)
    with pytest.raises(TypeError, match="extend: batch_size must be"):
        ours.extend([Data(x=np.ones(1))], batch_size=1.5)
    assert len(ours) == 5
    ours.extend([])  # PyG: range() arg 3 must not be zero
    assert len(ours) == 5
    assert [d.name for d in ours.multi_get([1, 1])] == ["g1", "g1"]  # PyG: []
    ours.close()
    assert len(OnDiskDataset(tmp_path / "ours")) == 5  # persisted


SCHEMAS = {
    "dict": (
        lambda torch: {
            "x": dict(dtype=torch.float16, size=(-1, 2)),
            "ei": dict(dtype=torch.int64, size=(2, -1)),
            "y": int,
            "w": float,
            "s": str,
            "o": object,
        },
        lambda d: {k: d[k] for k in ("x", "ei", "y", "w", "s", "o")},
    ),
    "int": (lambda torch: int, lambda d: d["y"]),
    "str": (lambda torch: str, lambda d: d["s"]),
    "tuple": (lambda torch: (int, float, str), lambda d: (d["y"], d["w"], d["s"])),
    "tensor": (lambda torch: dict(dtype=torch.int32, size=(-1,)), lambda d: d["v"]),
}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_on_disk_schemas_give_pygs_records(tmp_path, name):
    pyg = pyg_data()
    import torch

    make_schema, ser = SCHEMAS[name]

    class Ours(OnDiskDataset):
        def serialize(self, data):
            return ser(data)

        def deserialize(self, row):
            return row

    class Theirs(pyg.OnDiskDataset):
        def serialize(self, data):
            return ser(data)

        def deserialize(self, row):
            return row

    rng = np.random.default_rng(1)
    raws = [
        dict(
            x=rng.normal(size=(i + 1, 2)).astype(np.float16),
            ei=np.array([[0, i], [i, 0]]),
            y=i,
            w=i / 3,
            s=f"s{i}",
            o={"k": [i]},
            v=np.arange(i, dtype=np.int32),
        )
        for i in range(4)
    ]
    ours = Ours(tmp_path / "ours", schema=make_schema(torch), log=False)
    theirs = Theirs(str(tmp_path / "pyg"), schema=make_schema(torch), log=False)
    ours.extend(raws)
    theirs.extend([{k: to_torch(v) for k, v in r.items()} for r in raws])
    for idx in ([0, 3], [2]):
        for a, b in zip(ours.multi_get(idx), theirs.multi_get(idx)):
            assert_same_record(a, b)
    assert_same_record(ours[1], theirs[1])
    ours.close()
    theirs.close()


class Filtered(OnDiskDataset):
    """process() with pre_filter, as a PyG subclass writes it."""

    def process(self):
        graphs = [Data(x=np.full((i + 1, 1), float(i), np.float32), y=i) for i in range(6)]
        self.extend([g for g in graphs if self.pre_filter is None or self.pre_filter(g)])


def test_on_disk_process_with_pre_filter_like_pyg(tmp_path):
    pyg = pyg_data()
    import torch

    class PygFiltered(pyg.OnDiskDataset):
        def process(self):
            graphs = [pyg.Data(x=torch.full((i + 1, 1), float(i)), y=i) for i in range(6)]
            self.extend([g for g in graphs if self.pre_filter is None or self.pre_filter(g)])

    keep = lambda g: g.y % 2 == 0  # noqa: E731
    ours = Filtered(tmp_path / "ours", pre_filter=keep, log=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygFiltered(str(tmp_path / "pyg"), pre_filter=keep, log=False)
    assert len(ours) == len(theirs) == 3
    for i in range(3):
        assert_same_record(ours[i], theirs[i])
    assert os.listdir(tmp_path / "ours" / "processed") == ["sqlite.db"] or "sqlite.db" in (
        os.listdir(tmp_path / "ours" / "processed")
    )
    ours.close()
    theirs.close()


# ---------------------------------------------------------------- synthetic datasets


def hetero_layout(g):
    """Keys, dtypes and ranks by node type; edge stores by (src, dst) multiset."""

    def described(store, keys):
        return {k: (str(store[k].dtype).replace("torch.", ""), store[k].ndim)
                for k in keys if k in store and hasattr(store[k], "dtype")}  # fmt: skip

    node_keys, edge_keys = ("x", "y", "num_nodes"), ("edge_index", "edge_attr", "edge_weight")
    nodes = {t: described(g[t], node_keys) for t in g.node_types}
    edges = sorted(str(described(g[et], edge_keys)) for et in g.edge_types)
    top = {k: (str(getattr(g, k).dtype).replace("torch.", ""), tuple(getattr(g, k).shape))
           for k in ("y", "extra", "glob") if hasattr(g, k)}  # fmt: skip
    return nodes, edges, top


@pytest.mark.parametrize(
    "kw",
    [
        dict(num_graphs=1, num_node_types=1, num_edge_types=3, avg_num_nodes=8,
             avg_degree=2, avg_num_channels=0, edge_dim=1, num_classes=3, task="node"),
        dict(num_graphs=3, num_node_types=2, num_edge_types=2, avg_num_nodes=6,
             avg_degree=1.5, avg_num_channels=4, edge_dim=0, num_classes=0, task="graph"),
        dict(num_graphs=2, num_node_types=2, num_edge_types=4, avg_num_nodes=6,
             avg_degree=2, avg_num_channels=4, edge_dim=3, num_classes=5, task="node",
             extra=(2, 3), glob=4),
        dict(num_graphs=1, num_node_types=0, num_edge_types=0, avg_num_nodes=3,
             avg_degree=5, avg_num_channels=2, task="graph"),
    ],
    ids=["one-type-weights", "graph-task-no-classes", "kwargs-node-task", "zero-types"],
)  # fmt: skip
def test_fake_hetero_options_like_pyg(kw):
    tg = pytest.importorskip("torch_geometric.datasets")
    import random

    import torch

    torch.manual_seed(0)
    random.seed(0)
    theirs, ours = tg.FakeHeteroDataset(**kw), FakeHeteroDataset(**kw, seed=0)
    assert len(ours) == len(theirs)
    for i in range(len(ours)):
        o, t = ours[i], theirs[i]
        assert o.node_types == t.node_types
        assert len(o.edge_types) == len(t.edge_types) == max(kw["num_edge_types"], 1)
        assert hetero_layout(o) == hetero_layout(t)
        avg_nodes = max(kw["avg_num_nodes"], int(kw["avg_degree"]))
        low = max(3 * avg_nodes // 4, int(kw["avg_degree"]))
        for nt in o.node_types:
            assert low <= o[nt].num_nodes <= 5 * avg_nodes // 4
            if "y" in o[nt]:
                assert o[nt].y.shape == (o[nt].num_nodes,)
                assert o[nt].y.max() < kw["num_classes"]
        for s, r, d in o.edge_types:
            ei = o[s, r, d].edge_index
            assert ei.shape[1] <= int(o[s].num_nodes * max(kw["avg_degree"], 1))
            assert (ei[0] < o[s].num_nodes).all() and (ei[1] < o[d].num_nodes).all()
            key = ei[0] * o[d].num_nodes + ei[1]
            assert (np.diff(key) > 0).all()  # coalesced: sorted, no duplicates
    again = FakeHeteroDataset(**kw, seed=0)
    assert again[0].edge_types == ours[0].edge_types


@pytest.mark.parametrize("is_undirected", [True, False])
def test_stochastic_block_model_options(tmp_path, is_undirected):
    probs = [[0.0, 1.0], [1.0 if is_undirected else 0.0, 0.0]]
    ds = StochasticBlockModelDataset(tmp_path, [3, 2], probs, num_graphs=3,
                                     is_undirected=is_undirected, seed=0)  # fmt: skip
    assert len(ds) == 3 and repr(ds) == "StochasticBlockModelDataset(3)"
    g = ds[0]
    expected = [[0, 0, 1, 1, 2, 2], [3, 4, 3, 4, 3, 4]]
    if is_undirected:  # both directions, sorted by (row, col) as PyG's coalesce
        expected = [[0, 0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4], [3, 4, 3, 4, 3, 4, 0, 1, 2, 0, 1, 2]]
    assert g.edge_index.tolist() == expected and g.edge_index.dtype == np.int64
    assert g.y.tolist() == [0, 0, 0, 1, 1] and g.y.dtype == np.int64 and g.num_nodes == 5
    for i in (1, 2):  # one edge_index shared by every graph, as PyG
        np.testing.assert_array_equal(ds[i].edge_index, g.edge_index)
    # PyG's stochastic_blockmodel_graph asserts symmetric probabilities when undirected
    with pytest.raises(ValueError, match="edge_probs must be symmetric"):
        StochasticBlockModelDataset(tmp_path / "x", [3, 2], [[0, 1.0], [0.0, 0]], seed=0)
    with pytest.raises(ValueError, match="edge_probs must lie between 0 and 1"):
        StochasticBlockModelDataset(tmp_path / "y", [3, 2], [[1.5, 0], [0, 1]], seed=0)


def test_random_partition_options(tmp_path):
    ds = RandomPartitionGraphDataset(tmp_path, 3, 4, 0.5, 2.0, num_graphs=2,
                                     is_undirected=False, seed=3)  # fmt: skip
    # PyG's formula: p_in = ratio * d / n, p_out = (d / n - p_in) / (C - 1)
    p_in, p_out = 0.5 * 2.0 / 4, (2.0 / 4 - 0.5 * 2.0 / 4) / 2
    np.testing.assert_allclose(ds.edge_probs, np.where(np.eye(3, dtype=bool), p_in, p_out))
    assert len(ds) == 2 and ds[0].y.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    ei = ds[0].edge_index
    assert (ei[0] != ei[1]).all() and ei.max() < 12
    # another seed is another processed file (PyG names files by '.1f' and would reuse it)
    other = RandomPartitionGraphDataset(tmp_path, 3, 4, 0.54, 2.0, seed=3)
    assert other.processed_paths[0] != ds.processed_paths[0]
    with pytest.raises(ValueError, match="edge_probs must lie between 0 and 1"):
        RandomPartitionGraphDataset(tmp_path, 3, 4, 1.5, 2.0, seed=0)  # p_out < 0
    with pytest.raises(ValueError, match="num_classes >= 2"):
        RandomPartitionGraphDataset(tmp_path, 1, 4, 0.5, 2.0, seed=0)  # PyG: ZeroDivision


# ---------------------------------------------------------------- PackedDataset


def test_packed_dataset_indexes_like_pygs_in_memory_dataset():
    """PackedDataset is the packed form of PyG's InMemoryDataset (one concatenated storage
    plus offsets): graphs, views and the feature / class counts are PyG's."""
    pyg = pyg_data()
    import torch

    from arraygnn.dataset import PackedDataset

    rng = np.random.default_rng(2)
    raws = []
    for i in range(5):
        n, e = int(rng.integers(1, 5)), int(rng.integers(0, 6))
        raws.append(
            dict(
                x=rng.normal(size=(n, 3)).astype(np.float32),
                edge_index=rng.integers(0, n, (2, e)),
                edge_attr=rng.random((e, 2)).astype(np.float32),
                y=np.array([i % 3]),
            )
        )

    class Mem(pyg.InMemoryDataset):
        def __init__(self):
            super().__init__(None)
            graphs = [pyg.Data(**{k: torch.from_numpy(v) for k, v in r.items()}) for r in raws]
            self.data, self.slices = self.collate(graphs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = Mem()
    ours = PackedDataset.from_data_list([Data(**r) for r in raws])
    for name in ("num_node_features", "num_features", "num_edge_features", "num_classes"):
        assert getattr(ours, name) == getattr(theirs, name), name
    mask = np.array([True, False, True, False, True])
    for idx in (slice(1, 4), [4, 0], mask, slice(None, None, -2), slice(0.2, 0.8), [-1]):
        vo, vt = ours[idx], theirs[idx]
        assert len(vo) == len(vt)
        for i in range(len(vo)):
            for key in ("x", "edge_index", "edge_attr", "y"):
                np.testing.assert_array_equal(vo[i][key], vt[i][key].numpy())
    assert repr(ours[-1]) == repr(theirs[-1])
    with pytest.raises(IndexError, match="graph index 5 out of range"):
        ours[5]
