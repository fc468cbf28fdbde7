"""DGL's graph files on the DGL face: ``save_graphs`` / ``load_graphs`` / ``load_labels``
and ``save_info`` / ``load_info`` (session 11).

Expected behaviour from DGL's code (dmlc/dgl, python/dgl/data/graph_serialize.py,
heterograph_serialize.py, src/graph/serialize/heterograph_serialize.cc): one graph or a
list of graphs; ``labels`` a dict of arrays; ``load_graphs(path, idx_list)`` returns
``(graphs, labels)`` with the graphs of ``idx_list`` in its order (repeats allowed) and the
labels of every graph; node types, canonical edge types, per-type features and the idtype
come back; a block is refused; a missing file raises. The file is arraygnn's own (an
``.npz`` without pickle, checked on load), not DGL's binary format.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from arraygnn.graph import (
    graph,
    heterograph,
    load_graphs,
    load_info,
    load_labels,
    save_graphs,
    save_info,
    to_block,
)

PLAYS = ("user", "plays", "game")
FOLLOWS = ("user", "follows", "user")
DEVELOPS = ("developer", "develops", "game")


def _assert_same(a, b):
    assert b.ntypes == a.ntypes and b.canonical_etypes == a.canonical_etypes
    assert b.idtype == a.idtype and not b.is_block
    for t in a.ntypes:
        assert b.num_nodes(t) == a.num_nodes(t)
        fa, fb = a.nodes[t].data, b.nodes[t].data
        assert list(fb) == list(fa)
        for k in fa:
            assert isinstance(fb[k], np.ndarray) and fb[k].dtype == fa[k].dtype
            np.testing.assert_array_equal(fb[k], fa[k])
    for c in a.canonical_etypes:
        for x, y in zip(a.edges(etype=c), b.edges(etype=c)):
            assert y.dtype == a.idtype
            np.testing.assert_array_equal(y, x)
        fa, fb = a.edges[c].data, b.edges[c].data
        assert list(fb) == list(fa)
        for k in fa:
            assert fb[k].dtype == fa[k].dtype
            np.testing.assert_array_equal(fb[k], fa[k])


def _homo():
    g1 = graph((np.array([0, 1, 2]), np.array([1, 2, 3])))
    g1.ndata["h"] = np.arange(8, dtype=np.float32).reshape(4, 2)
    g1.ndata["mask"] = np.array([True, False, True, True])
    g2 = graph((np.array([0, 2, 2]), np.array([2, 3, 3])), num_nodes=5)
    g2.ndata["h"] = np.ones((5, 2), np.float32)
    g2.ndata["mask"] = np.zeros(5, bool)
    g2.edata["e"] = np.arange(12, dtype=np.float16).reshape(3, 2, 2)
    return g1, g2


def _hetero():
    g = heterograph(
        {
            PLAYS: (np.array([0, 1, 1]), np.array([1, 0, 1])),
            FOLLOWS: (np.array([2]), np.array([0])),
            DEVELOPS: (np.array([], np.int64), np.array([], np.int64)),  # zero edges
        },
        num_nodes_dict={"user": 3, "game": 2, "developer": 0},
    )
    g.nodes["user"].data["x"] = np.arange(6.0).reshape(3, 2)
    g.nodes["game"].data["y"] = np.array([7, 8], np.int8)
    g.nodes["developer"].data["x"] = np.zeros((0, 2))
    g.edges["plays"].data["w"] = np.array([0.5, 1.5, 2.5])
    g.edges["develops"].data["w"] = np.zeros(0)
    return g


def test_homogeneous_round_trip_with_labels(tmp_path):
    g1, g2 = _homo()
    path = tmp_path / "sub" / "data.bin"  # DGL creates the folder and keeps the name
    labels = {"glabel": np.array([0, 1]), "score": np.array([[0.5], [1.5]], np.float32)}
    save_graphs(str(path), [g1, g2], labels)
    assert path.exists() and not (tmp_path / "sub" / "data.bin.npz").exists()
    graphs, got = load_graphs(str(path))
    assert len(graphs) == 2
    _assert_same(g1, graphs[0])
    _assert_same(g2, graphs[1])
    assert list(got) == ["glabel", "score"]
    np.testing.assert_array_equal(got["score"], labels["score"])
    assert got["score"].dtype == np.float32
    assert graphs[1].edges()[0].tolist() == [0, 2, 2]  # edge order and parallel edges kept
    # the loaded graphs work: message passing on the loaded ids / features
    import arraygnn.function as fn

    graphs[0].update_all(fn.copy_u("h", "m"), fn.sum("m", "s"))
    assert graphs[0].ndata["s"][:, 0].tolist() == [0.0, 0.0, 2.0, 4.0]


def test_heterograph_round_trip_zero_edge_types_and_empty_types(tmp_path):
    g = _hetero()
    save_graphs(tmp_path / "h.bin", g)  # one graph, a PathLike path
    (h,), labels = load_graphs(tmp_path / "h.bin")
    assert labels == {}
    _assert_same(g, h)
    assert h.num_nodes("developer") == 0 and h.num_edges(DEVELOPS) == 0
    assert h.edges["develops"].data["w"].shape == (0,)


def test_idtype_int32_and_int64_kept_and_mixed_schemas_keep_order(tmp_path):
    g1, g2 = _homo()
    h = _hetero()
    empty = graph((np.array([], np.int32), np.array([], np.int32)))  # 0 nodes, 0 edges
    lonely = graph((np.array([], np.int64), np.array([], np.int64)), num_nodes=3)
    lonely.ndata["h"] = np.ones((3, 2), np.float32)
    gs = [g1.int(), h, empty, g2, lonely, h.int(), g1]
    save_graphs(str(tmp_path / "mix.bin"), gs)
    back, _ = load_graphs(str(tmp_path / "mix.bin"))
    assert [b.idtype for b in back] == [np.int32, np.int64, np.int32, np.int64, np.int64,
                                        np.int32, np.int64]  # fmt: skip
    for a, b in zip(gs, back):
        _assert_same(a, b)
    assert back[2].num_nodes() == 0 and back[2].num_edges() == 0


def test_idx_list_loads_a_subset_in_order_and_all_labels(tmp_path):
    g1, g2 = _homo()
    g3 = graph((np.array([1]), np.array([0])))
    path = str(tmp_path / "g.bin")
    save_graphs(path, [g1, g2, g3], {"y": np.array([10, 20, 30])})
    graphs, labels = load_graphs(path, [2, 0, 2])
    assert [g.num_nodes() for g in graphs] == [2, 4, 2]
    _assert_same(g1, graphs[1])
    _assert_same(g3, graphs[2])
    assert labels["y"].tolist() == [10, 20, 30]  # DGL: labels of every graph
    assert graphs[0].edges()[0] is not graphs[2].edges()[0]  # a repeated index: own graph
    assert load_graphs(path, [])[0] == []  # DGL reads every graph here (documented)
    assert load_graphs(path, np.array([1]))[0][0].num_nodes() == 5
    with pytest.raises(ValueError, match="idx_list.*3.*3 graphs"):
        load_graphs(path, [0, 3])
    with pytest.raises(ValueError, match="idx_list.*-1"):
        load_graphs(path, [-1])
    with pytest.raises(TypeError, match="idx_list"):
        load_graphs(path, [0.5])
    with pytest.raises(TypeError, match="idx_list"):
        load_graphs(path, 1)
    assert load_labels(path)["y"].tolist() == [10, 20, 30]


def test_save_refuses_what_it_cannot_store(tmp_path):
    g1, _ = _homo()
    path = str(tmp_path / "x.bin")
    with pytest.raises(TypeError, match="g_list"):
        save_graphs(path, [g1, "not a graph"])
    with pytest.raises(ValueError, match="g_list is empty"):
        save_graphs(path, [])
    block = to_block(g1, np.array([1, 2, 3]))
    with pytest.raises(TypeError, match="block"):
        save_graphs(path, [block])
    with pytest.raises(TypeError, match="labels"):
        save_graphs(path, [g1], [np.array([1])])
    with pytest.raises(TypeError, match="labels\\['y'\\]"):
        save_graphs(path, [g1], {"y": [1, 2]})
    g1.ndata["obj"] = np.array([None, 1, 2, 3], dtype=object)
    with pytest.raises(TypeError, match="'obj'.*object"):
        save_graphs(path, [g1])
    del g1.ndata["obj"]
    with pytest.raises(ValueError, match="formats"):
        save_graphs(path, [g1], formats=["coo", "dense"])
    save_graphs(path, [g1], formats="csc")  # DGL's format names are accepted
    with pytest.raises(ValueError, match="directory"):
        save_graphs(str(tmp_path), [g1])
    assert not list(tmp_path.glob("*.tmp*"))  # no half-written files left behind


def _rewrite(path, change):
    """Rewrite the .npz at ``path`` with ``change(members)`` applied (dict name -> array)."""
    with np.load(path, allow_pickle=False) as z:
        members = {k: z[k] for k in z.files}
    change(members)
    with open(path, "wb") as f:
        np.savez(f, **members)


def _header(members):
    return json.loads(members["header"].tobytes().decode())


def _set_header(members, header):
    members["header"] = np.frombuffer(json.dumps(header).encode(), np.uint8)


def test_corrupt_truncated_and_foreign_files_raise_named_errors(tmp_path):
    g1, g2 = _homo()
    path = tmp_path / "g.bin"
    save_graphs(str(path), [g1, g2], {"y": np.array([1, 2])})
    blob = path.read_bytes()
    (tmp_path / "cut.bin").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(ValueError, match="cut.bin.*corrupted or truncated"):
        load_graphs(str(tmp_path / "cut.bin"))
    (tmp_path / "dgl.bin").write_bytes(b"\x3f\xa1\xb4\x46\xf0\x4f\x2e\xdd" + bytes(64))
    with pytest.raises(ValueError, match="not an arraygnn graph file"):
        load_graphs(str(tmp_path / "dgl.bin"))
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ValueError, match="not an arraygnn graph file"):
        load_graphs(str(other))
    with pytest.raises(FileNotFoundError, match="nope.bin"):
        load_graphs(str(tmp_path / "nope.bin"))
    (tmp_path / "empty.bin").write_bytes(b"")
    with pytest.raises(ValueError, match="corrupted or truncated.*0 bytes"):
        load_graphs(str(tmp_path / "empty.bin"))

    def huge_count(m):  # checked against what is stored before anything is allocated
        header = _header(m)
        header["num_graphs"] = 10**15
        _set_header(m, header)

    _rewrite(path, huge_count)
    with pytest.raises(ValueError, match="2 graphs stored.*1000000000000000"):
        load_graphs(str(path))

    def bad_json(m):
        m["header"] = np.frombuffer(b"{not json", np.uint8)

    _rewrite(path, bad_json)
    with pytest.raises(ValueError, match="corrupted.*header"):
        load_graphs(str(path))


def test_out_of_range_ids_and_wrong_lengths_in_the_file_raise(tmp_path):
    g1 = graph((np.array([0, 1, 2]), np.array([1, 2, 3])))  # one schema: stored together
    g1.ndata["h"] = np.zeros((4, 2))
    g2 = graph((np.array([0, 2, 2]), np.array([2, 3, 3])), num_nodes=5)
    g2.ndata["h"] = np.ones((5, 2))
    path = tmp_path / "g.bin"

    def fresh():
        save_graphs(str(path), [g1, g2])
        with np.load(path, allow_pickle=False) as z:
            return _header({"header": z["header"]})

    header = fresh()
    rel = header["groups"][0]["etypes"][0]
    src_key = rel["src"]

    def out_of_range(m):  # graph 0 has 4 nodes: id 4 is outside it (though < 9 in all)
        a = m[src_key].copy()
        a[1] = 4
        m[src_key] = a

    _rewrite(path, out_of_range)
    with pytest.raises(ValueError, match="source ids of edge type.*graph 0.*id 4.*4 nodes"):
        load_graphs(str(path))
    # graph 1's ids are fine, but its arrays are checked with the others stored with it
    with pytest.raises(ValueError, match="source ids"):
        load_graphs(str(path), [1])

    fresh()

    def negative(m):
        a = m[src_key].copy()
        a[-1] = -2
        m[src_key] = a

    _rewrite(path, negative)
    with pytest.raises(ValueError, match="source ids.*graph 1.*id -2"):
        load_graphs(str(path))

    header = fresh()
    feat_key = dict(header["groups"][0]["ndata"][0]["features"])["h"]
    _rewrite(path, lambda m: m.__setitem__(feat_key, m[feat_key][:-1]))
    with pytest.raises(ValueError, match="'h'.*8 rows.*9 nodes"):
        load_graphs(str(path))

    header = fresh()
    _rewrite(path, lambda m: m.__setitem__(src_key, m[src_key][:-1]))
    with pytest.raises(ValueError, match="5 source ids.*6 edges"):
        load_graphs(str(path))

    header = fresh()
    _rewrite(path, lambda m: m.__setitem__(src_key, m[src_key].astype(np.float64)))
    with pytest.raises(ValueError, match="float64"):
        load_graphs(str(path))

    header = fresh()

    def counts_negative(m):
        key = header["groups"][0]["num_nodes"]
        a = m[key].copy()
        a[0, 0] = -1
        m[key] = a

    _rewrite(path, counts_negative)
    with pytest.raises(ValueError, match="negative"):
        load_graphs(str(path))

    header = fresh()

    def missing_member(m):
        del m[feat_key]

    _rewrite(path, missing_member)
    with pytest.raises(ValueError, match="corrupted.*" + feat_key):
        load_graphs(str(path))

    header = fresh()

    def positions_twice(m):
        header["groups"][0]["positions"] = header["groups"][0]["num_nodes"]
        _set_header(m, header)

    _rewrite(path, positions_twice)
    with pytest.raises(ValueError, match="corrupted"):
        load_graphs(str(path))


def test_object_arrays_in_the_file_are_refused_not_unpickled(tmp_path):
    g1, _ = _homo()
    path = tmp_path / "g.bin"
    save_graphs(str(path), [g1])
    with np.load(path, allow_pickle=False) as z:
        header = _header({"header": z["header"]})
    key = dict(header["groups"][0]["ndata"][0]["features"])["h"]
    buf = io.BytesIO()
    np.save(buf, np.array([object()] * 4, dtype=object), allow_pickle=True)
    with zipfile.ZipFile(path, "a") as z:  # a second member of that name: the later wins
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z.writestr(key + ".npy", buf.getvalue())
    with pytest.raises(ValueError, match="corrupted.*" + key):
        load_graphs(str(path))


def test_save_info_load_info_round_trip_without_pickle(tmp_path):
    info = {
        "num_classes": 3,
        "name": "qm7b",
        "ratio": 0.5,
        "flags": [True, None],
        "pair": (1, 2),
        "mean": np.array([0.5, 1.5], np.float32),
        "nested": {"idx": np.arange(3)},
    }
    path = tmp_path / "info.pkl"  # the name DGL's tutorial uses: the file is still safe
    save_info(str(path), info)
    assert path.exists() and not path.read_bytes().startswith(b"\x80")  # not a pickle
    back = load_info(str(path))
    assert back["num_classes"] == 3 and back["name"] == "qm7b" and back["pair"] == (1, 2)
    assert back["flags"] == [True, None] and back["ratio"] == 0.5
    assert back["mean"].dtype == np.float32 and back["mean"].tolist() == [0.5, 1.5]
    assert back["nested"]["idx"].tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="info"):
        save_info(str(path), [1, 2])
    with pytest.raises(TypeError, match="function"):
        save_info(str(path), {"f": lambda x: x})
    path.write_bytes(b"\x80\x04garbage")
    with pytest.raises(ValueError, match="info.pkl"):
        load_info(str(path))


def test_cupy_graphs_are_saved_from_host_copies(tmp_path):
    cp = pytest.importorskip("cupy")
    g1, _ = _homo()
    gg = g1.to("cuda")
    save_graphs(str(tmp_path / "c.bin"), [gg], {"y": cp.arange(2)})
    (back,), labels = load_graphs(str(tmp_path / "c.bin"))
    assert back.device == "cpu" and isinstance(labels["y"], np.ndarray)
    _assert_same(g1, back)
