"""Parity sweep (session 14) of DGL's data I/O, dataset base classes and PinSAGE sampling on
the DGL face, over the options the session-11 / 13 tests leave out.

DGL is not installed; the expected behaviour is transcribed from dmlc/dgl (commit 3d16000b):
- python/dgl/data/graph_serialize.py / heterograph_serialize.py: ``save_graphs`` takes a
  graph or a list, ``labels`` a dict of arrays (``{}`` when none); ``load_graphs`` /
  ``load_labels`` check that the file exists; every feature comes back with its dtype
  and shape (the file format itself is arraygnn's: a documented difference);
- python/dgl/data/utils.py ``save_info`` / ``load_info`` (a pickle: exact types back);
- python/dgl/data/dgl_dataset.py ``DGLDataset._load`` (has_cache -> load, a failing load
  falls back to download -> process -> save; ``force_reload`` skips ``has_cache``) and
  ``_download`` under ``retry_method_with_fix(download)``: the fix is the class-body
  ``download``, i.e. the base class's no-op, so a failing ``download()`` runs twice;
- python/dgl/sampling/pinsage.py (``restart_prob[hops::hops] = termination_prob``,
  ``src = paths[:, hops::hops]``, ``dst = repeat(paths[:, 0], num_traversals)``) and
  src/graph/sampling/randomwalks/randomwalk_cpu.cc ``SelectPinSageNeighbors`` (per chunk
  of ``num_samples_per_node``: sort, count runs, drop ``-1``, ``std::greater`` on
  ``(count, id)``, keep ``k``), randomwalks.cc (asserts 1-D, equal lengths, a multiple);
- python/dgl/utils/checks.py ``prepare_tensor`` (seed nodes: a scalar is one seed, 2-D
  and non-integer ids are errors).
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib

import numpy as np
import pytest

from arraygnn.graph import (
    DGLBuiltinDataset,
    DGLDataset,
    PinSAGESampler,
    RandomWalkNeighborSampler,
    graph,
    heterograph,
    load_graphs,
    load_info,
    load_labels,
    save_graphs,
    save_info,
    select_pinsage_neighbors,
)

IDTYPES = [np.int32, np.int64]


# ---------------------------------------------------------------------- save / load graphs
def _feature(kind, n):
    a = np.arange(n * 4).reshape(n, 4)
    return {
        "bool": (a[:, 0] % 2).astype(bool),
        "int8": a.astype(np.int8),
        "uint8": a[:, :2].astype(np.uint8),
        "float16": a.astype(np.float16).reshape(n, 2, 2),
        "complex64": (a[:, 0] + 1j).astype(np.complex64),
        "bigendian": a[:, 0].astype(">i4"),
        "unicode": np.array([f"n{i}" for i in range(n)]),
        "datetime": np.arange(n).astype("datetime64[D]"),
        "zero_width": np.zeros((n, 0), np.float32),
        "fortran": np.asfortranarray(a.astype(np.float64)),
        "strided": a.astype(np.float32)[:, ::-2],
    }[kind]


KINDS = ["bool", "int8", "uint8", "float16", "complex64", "bigendian", "unicode",
         "datetime", "zero_width", "fortran", "strided"]  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
def test_feature_dtypes_and_layouts_round_trip_exactly(tmp_path, kind):
    g = graph((np.array([0, 1, 2, 2]), np.array([1, 2, 0, 0])), num_nodes=4)
    g.ndata["x"] = _feature(kind, 4)
    g.edata["x"] = _feature(kind, 4)
    before = g.ndata["x"].copy()
    save_graphs(tmp_path / "g.bin", [g, g], {"y": _feature(kind, 2)})
    np.testing.assert_array_equal(g.ndata["x"], before)  # the input is not changed
    for idx in (None, [1]):
        graphs, labels = load_graphs(tmp_path / "g.bin", idx)
        for h in graphs:
            for got, want in ((h.ndata["x"], g.ndata["x"]), (h.edata["x"], g.edata["x"])):
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
        assert labels["y"].dtype == _feature(kind, 2).dtype
        np.testing.assert_array_equal(labels["y"], _feature(kind, 2))


@pytest.mark.parametrize("idtype", IDTYPES)
def test_graphs_without_features_heterographs_and_label_shapes(tmp_path, idtype):
    plain = graph((np.array([0, 3], idtype), np.array([1, 1], idtype)), num_nodes=5)
    hetero = heterograph(
        {
            ("u", "r", "v"): (np.array([0, 1], idtype), np.array([2, 2], idtype)),
            ("v", "s", "u"): (np.array([], idtype), np.array([], idtype)),
        },
        {"u": 2, "v": 3},
    )
    hetero.nodes["v"].data["h"] = np.ones((3, 2), np.float32)  # features on one type only
    labels = {
        "scalar": np.array(7, np.int32),  # a 0-d array stays 0-d
        "matrix": np.arange(6, dtype=np.float32).reshape(3, 2),
        "flags": np.array([True, False, True]),
        "empty": np.zeros((0, 4), np.int64),
    }
    path = str(tmp_path / "deep" / "er" / "data.bin")
    save_graphs(path, (plain, hetero, plain), labels)  # a tuple of graphs is accepted too
    graphs, back = load_graphs(path)
    assert [g.idtype for g in graphs] == [idtype] * 3
    assert graphs[0].ndata.keys() == set() == graphs[0].edata.keys()
    assert graphs[1].ntypes == ["u", "v"] and graphs[1].num_edges(("v", "s", "u")) == 0
    assert set(graphs[1].nodes["u"].data) == set()
    assert graphs[1].nodes["v"].data["h"].shape == (3, 2)
    for a, b in zip(graphs[0].edges(), plain.edges()):
        assert a.dtype == idtype and a.tolist() == b.tolist()
    assert list(back) == list(labels) == list(load_labels(path))
    for k, v in labels.items():
        assert back[k].dtype == v.dtype and back[k].shape == v.shape
        np.testing.assert_array_equal(back[k], v)
        np.testing.assert_array_equal(load_labels(path)[k], v)
    # the same file read with each idx_list form gives the same graphs
    for idx in ([2, 0], (2, 0), np.array([2, 0], np.int32), [np.int64(2), np.int8(0)]):
        picked, lab = load_graphs(path, idx)
        assert [g.num_nodes() for g in picked] == [5, 5] and set(lab) == set(labels)
    # saving again to the same name replaces the file
    save_graphs(path, hetero)
    (only,), none = load_graphs(path)
    assert none == {} == load_labels(path) and only.ntypes == ["u", "v"]


def test_missing_directory_and_foreign_files_raise_clear_errors(tmp_path):
    g = graph((np.array([0]), np.array([1])))
    save_graphs(tmp_path / "ok.bin", g)
    save_info(tmp_path / "info.pkl", {"a": 1})
    for fn_ in (load_graphs, load_labels, load_info):
        name = fn_.__name__
        with pytest.raises(FileNotFoundError, match=f"{name}.*nope"):
            fn_(tmp_path / "nope")
        with pytest.raises(ValueError, match=f"{name}: .* is a directory"):
            fn_(tmp_path)  # DGL: an error from the reader; here one naming the path
    with pytest.raises(ValueError, match="load_labels: .*not an arraygnn graph file"):
        load_labels(tmp_path / "info.pkl")
    with pytest.raises(ValueError, match="load_info"):
        load_info(tmp_path / "ok.bin")
    with pytest.raises(TypeError, match="labels\\['s'\\]"):
        save_graphs(tmp_path / "x.bin", g, {"s": np.float32(1.5)})  # a scalar, not an array
    with pytest.raises(TypeError, match="g_list"):
        save_graphs(tmp_path / "x.bin", (h for h in [g]))


# ---------------------------------------------------------------------- save_info / load_info
INFO = {
    "np_int32": np.int32(-3),
    "np_float16": np.float16(0.5),
    "np_bool": np.bool_(True),
    "py_bool": False,
    "big_int": 2**70,
    "nan_inf": [float("nan"), float("inf"), -0.0],
    "bytes_str": (b"\x00\xff", "é"),
    "empties": ([], (), {}, ""),
    "zero_d": np.array(2.5, np.float32),
    "bigendian": np.arange(3, dtype=">f8"),
    "nested": {"a": {"b": [np.arange(2, dtype=np.uint16), None]}},
}


@pytest.mark.parametrize("key", list(INFO))
def test_info_values_round_trip_with_their_types(tmp_path, key):
    save_info(pathlib.Path(tmp_path) / "info.pkl", {key: INFO[key]})
    back = load_info(str(tmp_path / "info.pkl"))[key]

    def same(a, b):
        assert type(a) is type(b), (a, b)
        if isinstance(b, np.ndarray) or isinstance(b, np.generic):
            assert a.dtype == b.dtype and np.shape(a) == np.shape(b)
            np.testing.assert_array_equal(a, b)
        elif isinstance(b, (list, tuple)):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        elif isinstance(b, dict):
            assert list(a) == list(b)
            for k in b:
                same(a[k], b[k])
        elif isinstance(b, float) and b != b:
            assert a != a
        else:
            assert a == b and str(a) == str(b)  # -0.0 stays -0.0

    same(back, INFO[key])


# ---------------------------------------------------------------------- DGLDataset
class _Hooks(DGLDataset):
    def __init__(self, root, cache=False, load_fails=False, download_fails=0, raw=False, **kw):
        self.calls = []
        self._cache, self._load_fails, self._download_fails = cache, load_fails, download_fails
        if raw:
            os.makedirs(os.path.join(root, "hooks"), exist_ok=True)
        super().__init__("hooks", raw_dir=root, **kw)

    def has_cache(self):
        self.calls.append("has_cache")
        return self._cache

    def load(self):
        self.calls.append("load")
        if self._load_fails:
            raise RuntimeError("broken cache")

    def download(self):  # fetches into raw_dir, never creates raw_path
        self.calls.append("download")
        if self._download_fails:
            self._download_fails -= 1
            raise OSError("network down")

    def process(self):
        self.calls.append("process")

    def save(self):
        self.calls.append("save")

    def __getitem__(self, i):
        return i

    def __len__(self):
        return 0


def _dgl_load_order(cache, force_reload, load_fails, raw):
    """DGL's ``DGLDataset._load`` + ``_download`` (dgl_dataset.py), the calls it makes."""
    calls = []
    flag = False
    if not force_reload:
        calls.append("has_cache")
        flag = cache
    if flag:
        calls.append("load")
        flag = not load_fails
    if not flag:
        if not raw:
            calls.append("download")
        calls += ["process", "save"]
    return calls


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("force_reload", [False, True])
@pytest.mark.parametrize("load_fails,raw", [(False, False), (True, False), (True, True)])
def test_dataset_hook_order_matches_dgl(tmp_path, cache, force_reload, load_fails, raw):
    ds = _Hooks(str(tmp_path), cache=cache, load_fails=load_fails, raw=raw,
                force_reload=force_reload)  # fmt: skip
    assert ds.calls == _dgl_load_order(cache, force_reload, load_fails, raw)


@pytest.mark.parametrize("fails,calls", [(1, 2), (2, 2)])
def test_a_failing_download_is_tried_once_more(tmp_path, fails, calls):
    # DGL's retry_method_with_fix(download) fixes with the base class's no-op download()
    if fails > 1:
        with pytest.raises(OSError, match="network down"):
            _Hooks(str(tmp_path), download_fails=fails)
        return
    ds = _Hooks(str(tmp_path), download_fails=fails)
    assert ds.calls == ["has_cache"] + ["download"] * calls + ["process", "save"]


def test_verbose_messages_defaults_and_builtin_dataset(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        quiet = _Hooks(str(tmp_path), cache=True, load_fails=True)
        loud = _Hooks(str(tmp_path), cache=True, load_fails=True, verbose=True)
        cached = _Hooks(str(tmp_path), cache=True, verbose=True)
    assert not quiet.verbose and loud.verbose and out.getvalue() == ""  # documented: stderr
    text = err.getvalue()
    assert "RuntimeError: broken cache" in text and "Loading from cache failed" in text
    assert "Done saving data into cached files." in text
    assert text.rstrip().endswith("Done loading data from cached files.")
    assert cached.calls == ["has_cache", "load"]
    # save_dir defaults to raw_dir; paths given as PathLike come back as str
    ds = _Hooks(pathlib.Path(tmp_path), save_dir=pathlib.Path(tmp_path) / "out")
    assert ds.raw_dir == str(tmp_path) and ds.save_dir == str(tmp_path / "out")
    assert ds.save_path == os.path.join(str(tmp_path / "out"), "hooks")
    assert ds.raw_path == os.path.join(str(tmp_path), "hooks")
    assert _Hooks(str(tmp_path)).save_dir == str(tmp_path)
    assert ds[3] == 3 and len(ds) == 0

    class NoUrl(DGLBuiltinDataset):  # url=None: download() does nothing, as DGL
        def __init__(self, raw_dir):
            self.processed = 0
            super().__init__("nourl", url=None, raw_dir=raw_dir, hash_key=(1, "a"))

        def process(self):
            self.processed += 1

        def __len__(self):
            return self.processed

    b = NoUrl(str(tmp_path))
    assert len(b) == 1 and b.save_dir == b.raw_dir == str(tmp_path)
    assert b.save_path == os.path.join(str(tmp_path), "nourl") and not os.path.exists(b.raw_path)
    assert b.hash == __import__("hashlib").sha1(b"(1, 'a')").hexdigest()[:8]


# ---------------------------------------------------------------------- PinSAGE
def _dgl_select(src, dst, m, k):
    """randomwalk_cpu.cc SelectPinSageNeighbors, on copies (DGL sorts src in place)."""
    src = np.array(src)
    out = ([], [], [])
    for i in range(len(src) // m):
        chunk = np.sort(src[i * m : (i + 1) * m])
        runs, cnt = [], 0
        for j in range(m):
            if j and chunk[j] != chunk[j - 1]:
                if chunk[j - 1] != -1:
                    runs.append((cnt, int(chunk[j - 1])))
                cnt = 0
            cnt += 1
        if chunk[m - 1] != -1:
            runs.append((cnt, int(chunk[m - 1])))
        runs.sort(reverse=True)
        for c, v in runs[:k]:
            out[0].append(v)
            out[1].append(int(dst[i * m]))
            out[2].append(c)
    return out


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("m,k", [(1, 1), (4, 0), (5, 2), (6, 10)])
def test_select_pinsage_neighbors_matches_dgls_kernel(idtype, m, k):
    rng = np.random.default_rng(m * 10 + k)
    src = rng.integers(-1, 4, 6 * m).astype(idtype)
    src[:m] = -1  # a seed whose walks all stopped: no neighbour
    dst = np.repeat(rng.integers(0, 50, 6), m).astype(idtype)
    keep = src.copy()
    got = select_pinsage_neighbors(src, dst, m, k)
    want = _dgl_select(src, dst, m, k)
    np.testing.assert_array_equal(src, keep)  # not sorted in place, unlike DGL
    for a, b in zip(got, want):
        assert a.dtype == idtype and a.tolist() == b


def test_select_pinsage_neighbors_large_ids_and_bad_input():
    big = np.array([2**40, 5, 2**40, -1, 2**40 + 1, 2**40 + 1], np.int64)
    got = select_pinsage_neighbors(big, np.array([0, 0, 0, 1, 1, 1]), 3, 2)
    assert [a.tolist() for a in got] == list(_dgl_select(big, [0, 0, 0, 1, 1, 1], 3, 2))
    s = select_pinsage_neighbors([], [], 3, 2)
    assert all(a.shape == (0,) for a in s)
    bad = [
        (
            ([0, 1, 2], [0, 0, 0], 2, 1),
            ValueError,
            "3 ids in src are not a multiple of num_samples_per_node=2",
        ),
        (([0, 1], [0, 0, 0], 2, 1), ValueError, "src has 2 ids, dst 3"),
        (([0, 1], [0, 0], 0, 1), ValueError, "num_samples_per_node must be >= 1"),
        (([0, 1], [0, 0], 2, -1), ValueError, "k must be >= 0"),
        (([-2, 0], [0, 0], 2, 1), ValueError, "src holds id -2"),
        (([0.0, 1.0], [0, 0], 2, 1), TypeError, "src must hold integer"),
        (([0, 1], [0, 0], 2.0, 1), TypeError, "num_samples_per_node must be an int"),
        (([[0, 1]], [[0, 0]], 2, 1), ValueError, "src must be 1-D"),
    ]
    for args, err, msg in bad:
        with pytest.raises(err, match="select_pinsage_neighbors: " + msg):
            select_pinsage_neighbors(*args)


def _triangle(idtype):
    """Three node types in a cycle a -> b -> c -> a (a 3-hop metapath)."""
    rng = np.random.default_rng(3)
    rel = {}
    for s, r, d, ns, nd in (("a", "ab", "b", 5, 4), ("b", "bc", "c", 4, 3), ("c", "ca", "a", 3, 5)):
        rel[(s, r, d)] = (rng.integers(0, ns, 10).astype(idtype),
                          rng.integers(0, nd, 10).astype(idtype))  # fmt: skip
    return heterograph(rel, {"a": 5, "b": 4, "c": 3})


@pytest.mark.parametrize("idtype", IDTYPES)
@pytest.mark.parametrize("num_traversals,termination_prob", [(1, 0.0), (3, 0.4)])
def test_multi_hop_metapath_sampler_matches_dgls_pipeline(idtype, num_traversals, termination_prob):
    from arraygnn.random_walks import random_walk

    g = _triangle(idtype)
    metapath = ["ab", ("b", "bc", "c"), "ca"]  # names and canonical triples mixed
    walks, k = 4, 3
    seeds = np.array([4, 0, 0], idtype)
    s = RandomWalkNeighborSampler(g, num_traversals, termination_prob, walks, k,
                                  metapath=metapath, weight_column="w", seed=7)  # fmt: skip
    restart = np.zeros(3 * num_traversals)
    restart[3::3] = termination_prob  # pinsage.py: only between traversals
    np.testing.assert_array_equal(s.restart_prob, restart)
    ng = s(seeds)
    full = [("a", "ab", "b"), ("b", "bc", "c"), ("c", "ca", "a")] * num_traversals
    paths, _ = random_walk(g, np.repeat(seeds, walks), metapath=full, restart_prob=restart,
                           seed=np.random.default_rng(7))  # fmt: skip
    src = paths[:, 3::3].reshape(-1)
    dst = np.repeat(paths[:, 0], num_traversals)
    ws, wd, wc = _dgl_select(src, dst, walks * num_traversals, k)
    assert ng.canonical_etypes == [("a", "_E", "a")] and ng.num_nodes("a") == 5
    assert ng.idtype == idtype and set(ng.edata) == {"w"} and ng.edata["w"].dtype == idtype
    assert ng.edges()[0].tolist() == ws and ng.edges()[1].tolist() == wd
    assert ng.edata["w"].tolist() == wc


@pytest.mark.parametrize("idtype", IDTYPES)
def test_sampler_seed_nodes_forms_and_errors(idtype):
    g = graph((np.array([0, 1, 2, 3], idtype), np.array([1, 2, 3, 0], idtype)))
    s = lambda **kw: RandomWalkNeighborSampler(g, 2, 0.0, 2, 4, seed=1, **kw)  # noqa: E731
    # prepare_tensor: a scalar is one seed; a list or another int dtype is converted
    one = s()(np.int64(0))
    assert one.edges()[1].tolist() == [0, 0] and one.idtype == idtype
    assert one.edges()[0].tolist() == [2, 1] and one.edata["weights"].tolist() == [2, 2]
    many = s()([0, 3])
    assert many.edges()[1].tolist() == [0, 0, 3, 3]
    empty = s()(np.array([], np.int64))
    assert empty.num_edges() == 0 and empty.edata["weights"].dtype == idtype
    none = RandomWalkNeighborSampler(g, 2, 0.0, 2, 0, seed=1)(np.array([1, 2]))
    assert none.num_edges() == 0 and none.num_nodes() == 4
    bad = [
        (np.array([[0], [1]]), ValueError, "seed_nodes must be 1-D"),
        (np.array([0.5]), TypeError, "seed_nodes must hold integer ids"),
        ([True], TypeError, "seed_nodes must hold integer ids"),
        (np.array([4]), ValueError, "seed_nodes holds id 4, outside \\[0, 4\\)"),
        (np.array([-1, 0]), ValueError, "seed_nodes holds id -1"),
    ]
    for seeds, err, msg in bad:
        with pytest.raises(err, match="RandomWalkNeighborSampler: " + msg):
            s()(seeds)
    with pytest.raises(TypeError, match="RandomWalkNeighborSampler: metapath must be a list"):
        s(metapath="_E")
    with pytest.raises(TypeError, match="RandomWalkNeighborSampler: seed must be"):
        RandomWalkNeighborSampler(g, 2, 0.0, 2, 4, seed="x")
    with pytest.raises(TypeError, match="PinSAGESampler: num_neighbors must be an int"):
        PinSAGESampler(heterograph({("i", "by", "u"): ([0], [0]), ("u", "buys", "i"): ([0], [0])}),
                       "i", "u", 1, 0.5, 2, 2.0)  # fmt: skip
