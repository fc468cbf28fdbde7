"""Review of the dataset classes against PyG 2.8.1: collate / get / copy for every kind of
attribute, views, the arrays file format (dtype round trips, corrupted files, no module
imported by a file), OnDiskDataset's table names, views read by a loader and pickling, and
archives that try to write outside their folder."""

from __future__ import annotations

import copy
import io
import json
import os
import pickle
import sqlite3
import sys
import tarfile
import time
import warnings
import zipfile

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.datasets import InMemoryDataset, OnDiskDataset, extract_tar, extract_zip
from arraygnn.datasets._codec import MAGIC, dumps, loads

# ---------------------------------------------------------------------- helpers


class Faces(Data):
    """A module-level class with PyG-style hooks: ``face`` along dim -1 increased by
    ``num_nodes``, ``grid`` stacked on a new batch dimension (``__cat_dim__`` None)."""

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key == "grid":
            return None
        if key == "face":
            return -1
        return super().__cat_dim__(key, value, *args, **kwargs)


def as_numpy(v):
    if hasattr(v, "detach"):
        return v.detach().numpy()
    if isinstance(v, dict):
        return {k: as_numpy(x) for k, x in v.items()}
    return v


def assert_close_to_pyg(ours, theirs):
    """A graph of ours against PyG's: same keys and values (PyG gives numbers back as [1]
    tensors and dicts of tensors as dicts of cut tensors)."""
    assert set(ours.keys()) == set(theirs.keys())
    for key in theirs.keys():
        a, b = ours[key], as_numpy(theirs[key])
        if isinstance(b, dict):
            assert set(a) == set(b), key
            for k in b:
                np.testing.assert_array_equal(np.reshape(a[k], -1), np.reshape(b[k], -1))
        elif isinstance(b, np.ndarray):
            a = np.asarray(a)
            np.testing.assert_array_equal(a.reshape(b.shape) if a.size == b.size else a, b)
        else:
            assert a == b, key


def cases(np_or_torch):
    """Lists of graphs (as ``make(xp, i)``) covering each kind of attribute PyG collates."""
    return {
        "node-edge-graph": lambda t, i: dict(
            x=t(np.full((i + 1, 2), float(i), np.float32)),
            edge_index=t(np.array([[0, i], [i, 0]])),
            edge_attr=t(np.arange(2.0 * (i + 1)).reshape(2, i + 1).T[:2].copy()),
            y=t(np.array([i % 2])),
            u=t(np.full((1, 3), i, np.float64)),
        ),
        "numbers-strings-lists": lambda t, i: dict(
            x=t(np.ones((2, 1))), y=i, w=0.5 * i, name=f"g{i}", tags=["a", str(i)]
        ),
        "zero-d": lambda t, i: dict(x=t(np.ones((2, 1))), t=t(np.array(1.5 * i))),
        "nested-dict": lambda t, i: dict(
            x=t(np.ones((i + 1, 1))), d={"a": t(np.arange(i + 1.0)), "b": t(np.ones((2, 2)) * i)}
        ),
        "empty-graph": lambda t, i: dict(
            x=t(np.ones((0 if i == 1 else 3, 2), np.float32)),
            edge_index=t(np.zeros((2, 0 if i == 1 else 2), np.int64)),
        ),
        "num-nodes-and-edges": lambda t, i: dict(
            num_nodes=i + 2, edge_index=t(np.array([[0] * i, [1] * i], np.int64).reshape(2, i))
        ),
    }


@pytest.mark.parametrize("case", sorted(cases(None)))
def test_collate_and_get_like_pyg(case):
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    make = cases(None)[case]
    ours = [Data(**make(lambda a: a, i)) for i in range(3)]
    theirs = [pyg.Data(**make(torch.from_numpy, i)) for i in range(3)]
    data, slices = InMemoryDataset.collate(ours)
    pdata, pslices = pyg.InMemoryDataset.collate(theirs)
    for key, sl in pslices.items():
        if isinstance(sl, dict):
            continue  # a dict of slices for a dict attribute; ours keeps the dicts whole
        np.testing.assert_array_equal(slices[key], sl.numpy(), err_msg=key)
    for key in pdata.keys():  # the same storage: local ids stay local (no increments)
        if isinstance(pdata[key], torch.Tensor):
            np.testing.assert_array_equal(
                np.reshape(data[key], -1), pdata[key].numpy().reshape(-1), err_msg=key
            )
    ds, pds = InMemoryDataset(), pyg.InMemoryDataset()
    ds.data, ds.slices = data, slices
    pds.data, pds.slices = pdata, pslices
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in (0, 1, 2, -1):
            assert_close_to_pyg(ds[i], pds[i])
        for idx in ([2, 0], slice(None, None, -2), np.array([True, False, True])):
            sub = ds.copy(idx)
            psub = pds.copy(idx if not isinstance(idx, np.ndarray) else torch.from_numpy(idx))
            assert len(sub) == len(psub)
            for i in range(len(sub)):
                assert_close_to_pyg(sub[i], psub[i])
    # ours also gives graph i back exactly as it was collated
    for i, g in enumerate(ours):
        got = ds[i]
        assert list(got.keys()) == list(g.keys())
        for key in g.keys():
            a, b = got[key], g[key]
            assert type(a) is type(b), key
            if isinstance(b, np.ndarray):
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a, b)


def test_custom_cat_dim_none_and_face_like_pyg(tmp_path):
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")

    class PygFaces(pyg.Data):
        def __cat_dim__(self, key, value, *args, **kwargs):
            if key == "grid":
                return None
            return super().__cat_dim__(key, value, *args, **kwargs)

    def make(cls, t, i):
        return cls(
            x=t(np.ones((i + 3, 2))),
            face=t(np.arange(3 * (i + 1)).reshape(3, i + 1) % (i + 3)),
            grid=t(np.full((2, 2), float(i))),
        )

    ours = [make(Faces, lambda a: a, i) for i in range(3)]
    theirs = [make(PygFaces, torch.from_numpy, i) for i in range(3)]
    data, slices = InMemoryDataset.collate(ours)
    pdata, pslices = pyg.InMemoryDataset.collate(theirs)
    assert data.grid.shape == tuple(pdata.grid.shape) == (3, 2, 2)
    np.testing.assert_array_equal(data.face, pdata.face.numpy())  # no increments, as PyG
    for key in pslices:
        np.testing.assert_array_equal(slices[key], pslices[key].numpy())
    ds = InMemoryDataset()
    ds.data, ds.slices = data, slices
    for i in range(3):
        for key in ("x", "face", "grid"):
            np.testing.assert_array_equal(ds[i][key], ours[i][key])
    # a copy of a subset, and a save / load round trip, keep every graph as it was
    sub = ds.copy([2, 0])
    for got, want in zip(sub, (ours[2], ours[0])):
        assert type(got) is Faces
        for key in ("x", "face", "grid"):
            np.testing.assert_array_equal(got[key], want[key])
    path = tmp_path / "faces.agnn"
    InMemoryDataset.save(ours, path)
    back = InMemoryDataset()
    back.load(path)
    assert [type(g) for g in back] == [Faces] * 3
    for got, want in zip(back, ours):
        for key in ("x", "face", "grid"):
            np.testing.assert_array_equal(got[key], want[key])


def test_views_with_steps_negative_ints_and_masks_like_pyg():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    ours = [Data(x=np.full((i % 3 + 1, 1), float(i))) for i in range(7)]
    theirs = [pyg.Data(x=torch.full((i % 3 + 1, 1), float(i))) for i in range(7)]
    ds, pds = InMemoryDataset(), pyg.InMemoryDataset()
    ds.data, ds.slices = InMemoryDataset.collate(ours)
    pds.data, pds.slices = pyg.InMemoryDataset.collate(theirs)
    for idx in (
        slice(None, None, 3),
        slice(5, 1, -2),
        slice(-2, None),
        slice(0.2, 0.8),
        slice(10, 20),
        [-1, 0, -7],
        (3, 3),
        np.array([6, -2], np.int64),
    ):
        a, b = ds[idx], pds[idx]
        assert list(a.indices()) == list(b.indices()), idx
        # views of views
        assert list(a[::-1].indices()) == list(b[::-1].indices()), idx
        assert [float(g.x[0, 0]) for g in a] == [float(g.x[0, 0]) for g in b]
    mask = np.array([True, False, True, True, False, False, True])
    assert ds[mask].indices().tolist() == list(pds[torch.from_numpy(mask)].indices())
    with pytest.raises(IndexError, match="boolean mask has 6 entries"):
        ds[mask[:-1]]
    with pytest.raises(IndexError, match="index 7 out of range for 7 graphs"):
        ds[[0, 7]]
    with pytest.raises(IndexError, match="index -8 out of range for 7 graphs"):
        ds[-8]


# ---------------------------------------------------------------------- arrays file


ROUND_TRIP = {
    "bool": np.array([[True, False], [False, True]]),
    "float16": np.linspace(-2, 2, 6, dtype=np.float16).reshape(3, 2),
    "int8": np.arange(-4, 4, dtype=np.int8).reshape(4, 2),
    "uint64": np.array([[2**64 - 1, 0]], np.uint64),
    "big_endian": np.arange(6, dtype=">i4").reshape(3, 2),
    "big_endian_f": np.arange(6, dtype=">f8").reshape(3, 2),
    "non_contiguous": np.arange(24.0).reshape(4, 6)[::2, ::3],
    "fortran": np.asfortranarray(np.arange(6.0).reshape(3, 2)),
    "zero_rows": np.zeros((0, 3), np.float32),
    "zero_cols": np.zeros((3, 0), np.int32),
    "zero_d": np.array(7, np.int16),
    "complex": np.array([[1 + 2j, -1j]], np.complex64),
    "datetime": np.array([["2020-01-01", "2021-02-03"]], "datetime64[D]"),
    "timedelta": np.array([[1, 2]], "timedelta64[s]"),
    "unicode_strings": np.array([["a", "bé"]]),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIP))
def test_dtypes_round_trip_through_files_and_rows(name, tmp_path):
    a = ROUND_TRIP[name]
    before = a.copy()
    value = {"ключ": a, "é": 1, "n": np.float16(1.5), "b": b"\x00\xff"}
    out = loads(dumps(value))
    assert list(out) == list(value)
    assert out["ключ"].dtype == a.dtype and out["ключ"].shape == a.shape
    np.testing.assert_array_equal(out["ключ"], a)
    assert type(out["n"]) is np.float16 and out["b"] == b"\x00\xff"
    np.testing.assert_array_equal(a, before)
    # through InMemoryDataset.save / load (both reads) and an OnDiskDataset row
    graphs = [Data(x=np.ones((2, 1)), v=a), Data(x=np.ones((1, 1)), v=a)]
    path = tmp_path / "d.agnn"
    InMemoryDataset.save(graphs, path)
    for mmap in (False, True):
        ds = InMemoryDataset()
        ds.load(path, mmap=mmap)
        for i in range(2):
            got = ds[i].v
            assert got.dtype == a.dtype and got.shape == a.shape
            np.testing.assert_array_equal(got, a)
    od = OnDiskDataset(tmp_path / "od")
    od.extend(graphs)
    assert od[1].v.dtype == a.dtype
    np.testing.assert_array_equal(od[1].v, a)
    od.close()


class _Blob:
    """A valid arrays buffer taken apart, to be corrupted piece by piece."""

    def __init__(self):
        self.good = dumps(Data(x=np.arange(6.0).reshape(3, 2), y=1, name="g", b=b"ab"))
        n = int.from_bytes(self.good[8:16], "little")
        self.header = json.loads(self.good[16 : 16 + n])
        start = 16 + n
        self.body = self.good[start + (-start % 64) :]

    def build(self, header, body=None):
        raw = header if isinstance(header, bytes) else json.dumps(header).encode()
        pad = b"\0" * (-(16 + len(raw)) % 64)
        body = self.body if body is None else body
        return MAGIC + len(raw).to_bytes(8, "little") + raw + pad + body

    def edit(self, fn):
        h = copy.deepcopy(self.header)
        fn(h)
        return self.build(h)


def _set_array(i, value):
    return lambda h: h["arrays"][0].__setitem__(i, value)


def _set_ref(value):
    return lambda h: h["root"]["items"][0].__setitem__(1, value)


CORRUPTIONS = {
    "truncated_arrays": lambda b: b.good[: len(b.good) - 100],
    "truncated_header": lambda b: b.good[:30],
    "header_longer_than_file": lambda b: MAGIC + (10**12).to_bytes(8, "little") + b.good[16:],
    "negative_offset": lambda b: b.edit(_set_array(2, -64)),
    "offset_past_end": lambda b: b.edit(_set_array(2, 10**6)),
    "unaligned_offset": lambda b: b.edit(_set_array(2, 3)),
    "negative_shape": lambda b: b.edit(_set_array(1, [-3, -2])),
    "huge_shape": lambda b: b.edit(_set_array(1, [2**40, 2**40])),
    "overflowing_shape": lambda b: b.edit(_set_array(1, [2**62, 2**62, 4])),
    "shape_not_a_list": lambda b: b.edit(_set_array(1, "ab")),
    "object_dtype": lambda b: b.edit(_set_array(0, "|O")),
    "void_dtype": lambda b: b.edit(_set_array(0, "|V8")),
    "structured_dtype": lambda b: b.edit(_set_array(0, [["a", "<f8"]])),
    "unknown_dtype": lambda b: b.edit(_set_array(0, "zzz")),
    "array_index_past_end": lambda b: b.edit(_set_ref({"nd": 7})),
    "negative_array_index": lambda b: b.edit(_set_ref({"nd": -1})),
    "array_index_not_int": lambda b: b.edit(_set_ref({"nd": "0"})),
    "unknown_entry": lambda b: b.edit(_set_ref({"evil": 1})),
    "entry_not_a_dict": lambda b: b.edit(_set_ref([1])),
    "root_not_a_dict": lambda b: b.edit(lambda h: h.__setitem__("root", [1])),
    "no_array_table": lambda b: b.edit(lambda h: h.pop("arrays")),
    "no_root": lambda b: b.edit(lambda h: h.pop("root")),
    "newer_version": lambda b: b.edit(lambda h: h.__setitem__("v", 99)),
    "bad_json": lambda b: b.build(b"{{{{"),
    "not_utf8": lambda b: b.build(b'\xff\xfe{"v": 1}'),
    "json_not_an_object": lambda b: b.build(b"[1, 2]"),
    "deeply_nested": lambda b: b.build(
        b'{"v": 1, "arrays": [], "root": ' + b'{"list": [' * 100_000 + b"]}" * 100_000 + b"}",
        b"",
    ),
    "non_string_key": lambda b: b.edit(lambda h: h["root"]["items"][0].__setitem__(0, 5)),
    "bad_items": lambda b: b.edit(lambda h: h["root"].__setitem__("items", [[1, 2, 3]])),
    "bad_complex": lambda b: b.edit(_set_ref({"complex": "x"})),
    "class_not_a_string": lambda b: b.edit(lambda h: h["root"].__setitem__("data", 5)),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupted_buffers_raise_a_clear_error(name, tmp_path):
    blob = CORRUPTIONS[name](_Blob())
    with pytest.raises(ValueError, match="row 3: .*(corrupted|not an arraygnn arrays file)"):
        loads(blob, "row 3")
    # the same through the file readers (read and mapped)
    path = tmp_path / "bad.agnn"
    path.write_bytes(blob)
    for mmap in (False, True):
        with pytest.raises(ValueError, match="bad.agnn.*(corrupted|not an arraygnn arrays)"):
            InMemoryDataset().load(path, mmap=mmap)


def test_empty_and_short_files_raise_a_clear_error(tmp_path):
    for content in (b"", b"AGNN", MAGIC):
        path = tmp_path / "short.agnn"
        path.write_bytes(content)
        for mmap in (False, True):
            with pytest.raises(ValueError, match="short.agnn.*(not an arraygnn|truncated)"):
                InMemoryDataset().load(path, mmap=mmap)


def test_a_file_holding_something_else_is_named(tmp_path):
    from arraygnn.datasets import _codec

    for value in (
        {"format": "arraygnn.InMemoryDataset", "data": [1], "slices": None},
        {"format": "arraygnn.InMemoryDataset", "data": Data(x=np.ones(2)), "slices": [1]},
        {
            "format": "arraygnn.InMemoryDataset",
            "data": Data(x=np.ones(4)),
            "slices": {"x": np.array([0, 3, 1, 4])},
            "layout": None,
        },
        {
            "format": "arraygnn.InMemoryDataset",
            "data": Data(x=np.ones(4)),
            "slices": {"x": np.array([0, 2, 4])},
            "layout": {"x": ["evil", 0]},
        },
    ):
        path = tmp_path / "other.agnn"
        with open(path, "wb") as f:
            _codec.dump(value, f)
        ds = InMemoryDataset()
        with pytest.raises(ValueError, match="other.agnn"):
            ds.load(path)
            ds[0]


def test_slices_that_decrease_are_refused():
    ds = InMemoryDataset()
    ds.data, ds.slices = Data(x=np.arange(4.0)), {"x": np.array([0, 3, 1, 4])}
    with pytest.raises(ValueError, match=r"slices\['x'\] decreases"):
        ds[1]
    ds.data, ds.slices = Data(x=np.arange(4.0)), {"x": np.array([-2, 1, 4])}
    with pytest.raises(ValueError, match=r"slices\['x'\] starts at -2"):
        ds[0]


EVIL_MODULE = "agnn_review_side_effect_module"


def test_reading_never_imports_a_module_the_file_names(tmp_path, monkeypatch):
    """A file names its Data class by path; reading it must not import (run) a module."""
    marker = tmp_path / "ran"
    (tmp_path / f"{EVIL_MODULE}.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "from arraygnn.data import Data\n"
        "class Evil(Data):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, EVIL_MODULE, raising=False)
    had_this = "this" in sys.modules
    b = _Blob()
    blob = b.edit(lambda h: h["root"].__setitem__("data", f"{EVIL_MODULE}:Evil"))
    with pytest.raises(ValueError, match=f"{EVIL_MODULE}:Evil.*not defined in this process"):
        loads(blob)
    for path in ("os:system", "subprocess:Popen", "builtins:eval", "this:x"):
        with pytest.raises(ValueError, match="not defined in this process"):
            loads(b.edit(lambda h, p=path: h["root"].__setitem__("data", p)))
    assert not marker.exists() and EVIL_MODULE not in sys.modules
    assert ("this" in sys.modules) == had_this
    # a class given by the reader stands in (InMemoryDataset.load(data_cls=...))
    assert type(loads(blob, fallback=Faces)) is Faces
    # once its module is imported by the program, the class is found
    import importlib

    mod = importlib.import_module(EVIL_MODULE)
    assert type(loads(blob)) is mod.Evil
    monkeypatch.delitem(sys.modules, EVIL_MODULE)


def test_classes_of_imported_modules_and_nested_classes_are_found(tmp_path):
    graphs = [Faces(x=np.ones((2, 1)), grid=np.ones((2, 2))) for _ in range(2)]
    InMemoryDataset.save(graphs, tmp_path / "f.agnn")
    ds = InMemoryDataset()
    ds.load(tmp_path / "f.agnn")
    assert type(ds[1]) is Faces and ds[1].grid.shape == (2, 2)
    g = _Outer.Inner(x=np.ones(1))
    assert type(loads(dumps(g))) is _Outer.Inner


class _Outer:
    class Inner(Data):
        pass


# ---------------------------------------------------------------------- OnDiskDataset


class Order(OnDiskDataset):
    """A subclass named like an SQL keyword (the table is named after the class)."""


class Select(OnDiskDataset):
    pass


@pytest.mark.parametrize("cls", [Order, Select])
def test_table_named_like_an_sql_keyword(cls, tmp_path):
    ds = cls(tmp_path)
    ds.extend([Data(x=np.full((2, 1), float(i))) for i in range(3)])
    ds.append(Data(x=np.zeros((1, 1))))
    assert len(ds) == 4 and ds[1].x[0, 0] == 1.0
    assert [g.x.shape[0] for g in ds.multi_get([3, 0])] == [1, 2]
    ds.close()
    assert len(cls(tmp_path)) == 4


def on_disk(tmp_path, n=8):
    ds = OnDiskDataset(tmp_path)
    ds.extend([Data(x=np.full((i % 3 + 1, 2), float(i)), y=i) for i in range(n)])
    return ds


def test_getitems_of_a_view_reads_the_views_graphs(tmp_path):
    """``__getitems__`` (what torch's DataLoader calls) takes positions in the dataset, as
    ``__getitem__`` does, also for a view (PyG reads storage rows there: a PyG bug)."""
    ds = on_disk(tmp_path)
    view = ds[1::3]
    assert [g.y for g in view.__getitems__([0, 2, 1])] == [view[0].y, view[2].y, view[1].y]
    assert [g.y for g in view.__getitems__([0, 2, 1])] == [1, 7, 4]
    assert [g.y for g in ds[::-1].__getitems__([0, 1])] == [7, 6]
    with pytest.raises(IndexError, match="out of range for 3 graphs"):
        view.__getitems__([3])
    torch = pytest.importorskip("torch")
    loader = torch.utils.data.DataLoader(view, batch_size=2, collate_fn=list)
    assert [g.y for batch in loader for g in batch] == [1, 4, 7]
    ds.close()


def test_on_disk_dataset_pickles_and_reopens(tmp_path):
    """A dataset that has read rows can be pickled (spawned loader workers) and reopens its
    own connection; a forked child does not reuse the parent's connection."""
    ds = on_disk(tmp_path)
    assert ds[2].y == 2
    other = pickle.loads(pickle.dumps(ds))
    assert len(other) == 8 and other[5].y == 5 and other.db is not ds.db
    assert ds[3].y == 3
    other.close()
    ds.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_opens_its_own_connection(tmp_path):
    ds = on_disk(tmp_path)
    parent_db = ds.db
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            ok = ds.db is not parent_db and ds[6].y == 6 and len(ds.multi_get([1, 2])) == 2
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    for _ in range(600):  # at most 30 s, then the child is ended
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        time.sleep(0.05)
    else:  # pragma: no cover
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1"
    os.close(r)
    assert ds.db is parent_db and ds[1].y == 1
    ds.close()


def test_missing_rows_and_corrupted_rows(tmp_path):
    ds = on_disk(tmp_path, n=3)
    for bad in (3, -1):
        with pytest.raises(IndexError, match=f"graph {bad} out of range for 3 graphs"):
            ds.get(bad)
    with pytest.raises(IndexError, match="graph 5 out of range"):
        ds.multi_get([0, 5])
    path = ds.processed_paths[0]
    ds.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE OnDiskDataset SET data = ? WHERE id = 1", (b"AGNNPACK\xff\xff",))
    con.commit()
    con.close()
    ds = OnDiskDataset(tmp_path)
    with pytest.raises(ValueError, match="OnDiskDataset row 1: corrupted"):
        ds[1]
    with pytest.raises(ValueError, match="OnDiskDataset row 1: corrupted"):
        ds.multi_get([0, 1])
    assert ds[2].y == 2
    ds.close()


# ---------------------------------------------------------------------- archives


def _outside(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir() if p.name != "out")


def test_extract_zip_stays_inside_the_folder(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("../escaped.txt", "x")
        z.writestr("/abs_escaped.txt", "x")
        z.writestr("ok/../../escaped2.txt", "x")
        z.writestr("fine/a.txt", "a")
    (tmp_path / "a.zip").write_bytes(buf.getvalue())
    out = tmp_path / "out"
    out.mkdir()
    before = _outside(tmp_path)
    extract_zip(str(tmp_path / "a.zip"), str(out), log=False)
    assert _outside(tmp_path) == before
    assert (out / "fine" / "a.txt").read_text() == "a"
    assert not os.path.exists("/abs_escaped.txt")


def test_extract_tar_refuses_links_out_of_the_folder(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        link = tarfile.TarInfo("link")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path)
        t.addfile(link)
        data = b"x"
        info = tarfile.TarInfo("link/escaped.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    (tmp_path / "a.tar.gz").write_bytes(buf.getvalue())
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(tarfile.TarError):
        extract_tar(str(tmp_path / "a.tar.gz"), str(out), log=False)
    assert not (tmp_path / "escaped.txt").exists()


def test_copy_of_one_graph_gives_the_graph_like_pyg():
    """``copy([i])`` holds one graph: PyG collates it to the graph itself (no slices)."""
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    ours = [Data(x=np.full((i + 1, 2), float(i)), y=i, name=f"g{i}", t=np.array(1.0 * i))
            for i in range(3)]  # fmt: skip
    theirs = [pyg.Data(x=torch.full((i + 1, 2), float(i)), y=i, name=f"g{i}") for i in range(3)]
    ds, pds = InMemoryDataset(), pyg.InMemoryDataset()
    ds.data, ds.slices = InMemoryDataset.collate(ours)
    pds.data, pds.slices = pyg.InMemoryDataset.collate(theirs)
    for idx in ([1], slice(2, 3), np.array([False, True, False])):
        sub = ds.copy(idx)
        psub = pds.copy(idx if not isinstance(idx, np.ndarray) else torch.from_numpy(idx))
        assert len(sub) == len(psub) == 1 and sub.slices is None and psub.slices is None
        g, want = sub[0], ours[ds.index_select(idx).indices()[0]]
        assert g.y == want.y and g.name == want.name and type(g.t) is np.ndarray
        assert g.t.shape == () and g.x.shape == want.x.shape
        assert not np.shares_memory(g.x, ds._data.x)  # its own arrays
    # a one-graph dataset copied with repeats holds the repeats, as PyG
    one, pone = InMemoryDataset(), pyg.InMemoryDataset()
    one.data, one.slices = InMemoryDataset.collate(ours[:1])
    pone.data, pone.slices = pyg.InMemoryDataset.collate(theirs[:1])
    assert len(one.copy([0, 0])) == len(pone.copy([0, 0])) == 2
    assert [g.x.shape[0] for g in one.copy([0, 0, 0])] == [1, 1, 1]


def test_negative_num_nodes_are_refused_by_collate():
    with pytest.raises(ValueError, match="collate: key 'num_nodes' in graph 1 is -1"):
        InMemoryDataset.collate([Data(num_nodes=2), Data(num_nodes=-1)])


def test_numpy_scalars_keep_their_type(tmp_path):
    """np.float64 / np.complex128 subclass float / complex: they come back as NumPy scalars."""
    value = [np.float64(1.5), np.complex128(1 - 2j), np.int64(3), np.bool_(True), 1.5, 3, True]
    out = loads(dumps(value))
    assert [type(v) for v in out] == [type(v) for v in value] and out == value
    od = OnDiskDataset(tmp_path)
    od.append(Data(x=np.ones((1, 1)), s=np.float64(2.5)))
    assert type(od[0].s) is np.float64
    od.close()


def test_extract_gz_without_an_extension_keeps_the_archive(tmp_path):
    import gzip

    from arraygnn.datasets import extract_bz2, extract_gz

    path = tmp_path / "data"
    path.write_bytes(gzip.compress(b"payload"))
    before = path.read_bytes()
    with pytest.raises(ValueError, match="extract_gz: .*'data' has no extension"):
        extract_gz(str(path), str(tmp_path), log=False)
    assert path.read_bytes() == before  # the archive is not overwritten by its output
    with pytest.raises(ValueError, match="extract_bz2: .*no extension"):
        extract_bz2(str(path), str(tmp_path), log=False)
