"""OnDiskDataset on SQLite: append / extend / get / multi_get / len, persistence, a
process()-filled subclass compared with PyG's, custom serializers, loaders, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.datasets import InMemoryDataset, OnDiskDataset
from arraygnn.loader import DataLoader


class EdgeTyped(Data):
    """A module-level Data subclass with its own hook (stored and read back by name)."""

    def __cat_dim__(self, key, value, *args, **kwargs):
        return None if key == "grid" else super().__cat_dim__(key, value, *args, **kwargs)


def graphs(seed=0, n=9, index_dtype=np.int64):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        nn = int(rng.integers(0, 6))
        e = int(rng.integers(0, 8)) if nn else 0
        out.append(
            Data(
                x=rng.normal(size=(nn, 3)).astype(np.float32),
                edge_index=rng.integers(0, max(nn, 1), (2, e)).astype(index_dtype),
                y=int(rng.integers(0, 3)),
                name=f"g{i}",
            )
        )
    return out


def assert_same(a, b):
    assert type(a) is type(b) and a.keys() == b.keys()
    for key in a.keys():
        va, vb = a[key], b[key]
        if isinstance(vb, np.ndarray):
            assert va.dtype == vb.dtype and va.shape == vb.shape, key
            np.testing.assert_array_equal(va, vb)
        else:
            assert type(va) is type(vb) and va == vb, key


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_append_extend_get_multi_get(tmp_path, index_dtype):
    gs = graphs(index_dtype=index_dtype)
    ds = OnDiskDataset(tmp_path)
    assert len(ds) == 0 and repr(ds) == "OnDiskDataset(0)"
    ds.extend(gs[:5])
    ds.append(gs[5])
    ds.extend(gs[6:], batch_size=2)
    assert len(ds) == 9
    for i, g in enumerate(gs):
        assert_same(ds[i], g)
        assert_same(ds.get(i), g)
    got = ds.multi_get([7, 0, 7, 3])
    for a, i in zip(got, [7, 0, 7, 3]):
        assert_same(a, gs[i])
    assert [d.name for d in ds.multi_get(slice(1, 8, 3))] == ["g1", "g4", "g7"]
    assert [d.name for d in ds.multi_get(np.array([2], np.int32))] == ["g2"]
    assert ds.multi_get([]) == []
    assert [d.name for d in ds.__getitems__([4, 1])] == ["g4", "g1"]
    # arrays come back writable and 64-byte aligned
    x = ds[3].x
    assert x.flags.writeable and (x.ctypes.data % 64 == 0 or x.size == 0)
    ds.close()
    again = OnDiskDataset(tmp_path)  # persisted
    assert len(again) == 9 and [d.name for d in again] == [g.name for g in gs]
    again.close()


def test_transform_views_and_loader(tmp_path):
    gs = graphs(1, n=10)
    ds = OnDiskDataset(tmp_path, transform=lambda d: Data(x=d.x * 2, edge_index=d.edge_index,
                                                          y=d.y))  # fmt: skip
    ds.extend(gs)
    np.testing.assert_array_equal(ds[4].x, 2 * gs[4].x)
    np.testing.assert_array_equal(ds.multi_get([4])[0].x, 2 * gs[4].x)  # as PyG
    np.testing.assert_array_equal(ds.get(4).x, gs[4].x)
    view = ds[::3]
    assert isinstance(view, OnDiskDataset) and view.indices().tolist() == [0, 3, 6, 9]
    np.testing.assert_array_equal(view[1].x, 2 * gs[3].x)
    # a prefetching loader reads from its background thread (one locked connection)
    plain = OnDiskDataset(tmp_path)
    for a, b in zip(
        DataLoader(plain, batch_size=4, prefetch=2),
        DataLoader(gs, batch_size=4),
    ):
        for key in ("x", "y", "batch", "ptr"):
            np.testing.assert_array_equal(a[key], b[key])
    plain.close()
    ds.close()


class FromRaw(OnDiskDataset):
    """PyG docs style: process() fills the database once."""

    def __init__(self, root, calls, transform=None):
        self.calls = calls
        super().__init__(root, transform)

    def process(self):
        self.calls.append("process")
        self.extend(graphs(2, n=7))


def pyg_from_raw_class():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")

    class PygFromRaw(pyg.OnDiskDataset):
        def __init__(self, root, calls):
            self.calls = calls
            super().__init__(root)

        def process(self):
            self.calls.append("process")
            t = torch.from_numpy
            self.extend(
                [
                    pyg.Data(x=t(g.x), edge_index=t(g.edge_index), y=g.y, name=g.name)
                    for g in graphs(2, n=7)
                ]
            )

    return PygFromRaw


def test_process_once_same_as_pyg(tmp_path):
    PygFromRaw = pyg_from_raw_class()
    calls, pcalls = [], []
    ours = FromRaw(tmp_path / "ours", calls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = PygFromRaw(str(tmp_path / "pyg"), pcalls)
    assert len(ours) == len(theirs) == 7
    for i in range(7):
        a, b = ours[i], theirs[i]
        for key in ("x", "edge_index"):
            np.testing.assert_array_equal(a[key], b[key].numpy())
        assert a.y == b.y and a.name == b.name
    for a, b in zip(ours.multi_get([6, 1, 1]), theirs.multi_get([6, 1, 1])):
        np.testing.assert_array_equal(a.x, b.x.numpy())
    assert repr(ours) == "FromRaw(7)" and repr(theirs) == "PygFromRaw(7)"
    ours.close()
    theirs.close()
    again = FromRaw(tmp_path / "ours", calls)
    assert calls == ["process"] and len(again) == 7
    again.close()


class Schema(OnDiskDataset):
    """PyG's schema pattern: rows are dicts, serialize / deserialize convert."""

    def __init__(self, root):
        schema = {"x": {"dtype": "float32", "size": (-1, 3)}, "y": int}
        super().__init__(root, schema=schema)

    def serialize(self, data):
        return {"x": data.x, "y": data.y}

    def deserialize(self, row):
        return EdgeTyped(x=row["x"], y=row["y"], grid=np.zeros((2, 2)))


def test_custom_serializer_and_data_class(tmp_path):
    ds = Schema(tmp_path)
    gs = graphs(3, n=4)
    ds.extend(gs)
    got = ds[2]
    assert type(got) is EdgeTyped and got.y == gs[2].y
    np.testing.assert_array_equal(got.x, gs[2].x)
    ds.close()
    # a Data subclass stored as such comes back as that class
    plain = OnDiskDataset(tmp_path / "typed")
    plain.append(EdgeTyped(x=np.ones((2, 1)), grid=np.eye(2)))
    assert type(plain[0]) is EdgeTyped
    plain.close()


def test_to_on_disk_dataset(tmp_path):
    gs = graphs(4, n=6)

    class Mem(InMemoryDataset):
        def __init__(self, root):
            super().__init__(root)
            self.data, self.slices = self.collate(gs)

    (tmp_path / "mem").mkdir()  # PyG's rule too: the root must exist
    mem = Mem(str(tmp_path / "mem"))
    disk = mem.to_on_disk_dataset()
    assert len(disk) == 6 and disk.processed_paths[0].startswith(str(tmp_path / "mem"))
    for i in range(6):
        assert_same(disk[i], mem[i])
    disk.close()
    again = mem[[1, 2]].to_on_disk_dataset()  # the database exists: read, not rewritten
    assert len(again) == 6
    again.close()
    sub = mem[[4, 0]].to_on_disk_dataset(root=tmp_path / "sub")
    assert [d.name for d in sub] == ["g4", "g0"]
    b = Batch.from_data_list(list(sub))
    assert b.num_graphs == 2
    sub.close()
    with pytest.raises(ValueError, match="root directory of 'InMemoryDataset' is not specified"):
        InMemoryDataset().to_on_disk_dataset()


def test_on_disk_errors(tmp_path):
    with pytest.raises(ValueError, match="Database backend must be one of \\{'sqlite'\\}"):
        OnDiskDataset(tmp_path, backend="rocksdb")
    ds = OnDiskDataset(tmp_path / "a", schema={"x": int})
    with pytest.raises(NotImplementedError, match="serialize\\(\\)` needs to be overridden"):
        ds.append(Data(x=np.ones(1)))
    ds.close()
    ds = OnDiskDataset(tmp_path / "b")
    ds.append(Data(x=np.ones(1)))
    with pytest.raises(IndexError, match="graph 1 out of range for 1 graphs"):
        ds.get(1)
    with pytest.raises(IndexError, match="graph 5 out of range"):
        ds.multi_get([0, 5])
    with pytest.raises(TypeError, match="indices must be integers"):
        ds.multi_get(np.array([0.0]))
    with pytest.raises(TypeError, match="the value.x is a builtins.set"):
        ds.append(Data(x={1}))
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="torch.Tensor.*from_torch"):
        ds.append(Data(x=torch.zeros(2)))
    assert len(ds) == 1  # failed appends add nothing
    ds.close()


def test_hetero_graphs(tmp_path):
    from arraygnn.hetero_data import HeteroData

    def hetero(i):
        d = HeteroData(paper={"x": np.full((i + 1, 2), float(i))}, y=np.array([i]))
        d["author"].num_nodes = 3
        d["author", "writes", "paper"].edge_index = np.array([[0, 2], [i, 0]])
        return d

    ds = OnDiskDataset(tmp_path)
    ds.extend([hetero(i) for i in range(3)])
    got = ds[2]
    assert isinstance(got, HeteroData) and got.metadata() == hetero(2).metadata()
    np.testing.assert_array_equal(got["paper"].x, hetero(2)["paper"].x)
    np.testing.assert_array_equal(got["writes"].edge_index, [[0, 2], [2, 0]])
    assert got["author"].num_nodes == 3 and got.y.tolist() == [2]
    ds.close()
    # one HeteroData is kept as is by InMemoryDataset (PyG's rule); several are refused
    InMemoryDataset.save([hetero(1)], tmp_path / "one.agnn")
    mem = InMemoryDataset()
    mem.load(tmp_path / "one.agnn")
    assert len(mem) == 1 and mem[0]["paper"].x.shape == (2, 2)
    with pytest.raises(TypeError, match="several HeteroData graphs are not collated"):
        InMemoryDataset.collate([hetero(0), hetero(1)])
