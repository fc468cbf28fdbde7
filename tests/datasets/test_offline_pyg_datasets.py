"""PyG's everyday datasets without torch: TUDataset and Planetoid over tiny raw files
written here (read by PyG 2.8.1 and by arraygnn from the same root, every array
compared), KarateClub against PyG's, and the synthetic datasets (FakeDataset,
FakeHeteroDataset, StochasticBlockModelDataset) against PyG's keys, shapes and dtypes.
No network: downloads are pointed at local ``file://`` folders."""

from __future__ import annotations

import os
import pickle
import warnings
import zipfile
from collections import defaultdict

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.datasets import (
    FakeDataset,
    FakeHeteroDataset,
    KarateClub,
    Planetoid,
    RandomPartitionGraphDataset,
    StochasticBlockModelDataset,
    TUDataset,
)
from arraygnn.datasets.planetoid import read_planetoid_data
from arraygnn.datasets.tu import read_tu_data

# ---------------------------------------------------------------------- helpers


def assert_same_graph(ref, ours, extra=()):
    """Every key of PyG's graph ``ref`` in ``ours`` with the same dtype, shape and values
    (``ours`` may hold the ``extra`` keys besides)."""
    ref_keys = sorted(ref.keys())
    assert sorted(k for k in ours.keys() if k not in extra or k in ref_keys) == ref_keys
    for key in ref_keys:
        a, b = ref[key], ours[key]
        if hasattr(a, "numpy"):
            a = a.numpy()
            assert b.dtype == a.dtype, key
            assert b.shape == a.shape, key
            np.testing.assert_array_equal(b, a, err_msg=key)
        else:
            assert int(b) == int(a), key
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PyG inferring num_nodes
        assert ours.num_nodes == ref.num_nodes


def assert_same_dataset(ref, ours, extra=()):
    assert len(ours) == len(ref)
    assert repr(ours) == repr(ref)
    for i in range(len(ref)):
        assert_same_graph(ref[i], ours[i], extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # float labels: PyG's warning, twice
        assert ours.num_classes == ref.num_classes
    if ref[0].x is not None:
        assert ours.num_features == ref.num_features


# ---------------------------------------------------------------------- TU files


def write_tu(raw, name, *, node_attr=True, node_labels=1, edge=True, graph="labels"):
    """Three graphs (3, 2 and 4 nodes) with a self-loop and a duplicate edge."""
    os.makedirs(raw, exist_ok=True)
    pairs = [(1, 2), (2, 1), (2, 3), (3, 2), (1, 1), (4, 5), (5, 4),
             (6, 7), (7, 6), (7, 8), (8, 7), (8, 9), (6, 9), (6, 9)]  # fmt: skip
    files = {
        "A": "".join(f"{a}, {b}\n" for a, b in pairs),
        "graph_indicator": "1\n1\n1\n2\n2\n3\n3\n3\n3\n",
    }
    rng = np.random.default_rng(0)
    n, e = 9, len(pairs)
    if node_attr:
        files["node_attributes"] = "".join(
            f"{a:.4f}, {b:.4f}\n" for a, b in rng.normal(size=(n, 2))
        )
    if node_labels:
        labels = rng.integers(1, 4, (n, node_labels))
        files["node_labels"] = "".join(", ".join(map(str, r)) + "\n" for r in labels)
    if edge:
        files["edge_attributes"] = "".join(f"{v:.3f}\n" for v in rng.random(e))
        files["edge_labels"] = "".join(f"{v}\n" for v in rng.integers(0, 3, e))
    if graph == "labels":
        files["graph_labels"] = "1\n-1\n1\n"
    elif graph == "attributes":
        files["graph_attributes"] = "0.5\n-1.25\n3.0\n"
    for key, text in files.items():
        with open(os.path.join(raw, f"{name}_{key}.txt"), "w") as f:
            f.write(text)


@pytest.mark.parametrize("use_attr", [False, True])
def test_tu_dataset_matches_pyg(tmp_path, use_attr):
    tg = pytest.importorskip("torch_geometric.datasets")
    write_tu(tmp_path / "TOY" / "raw", "TOY")
    kwargs = {"use_node_attr": use_attr, "use_edge_attr": use_attr}
    ref = tg.TUDataset(str(tmp_path), "TOY", **kwargs)
    ours = TUDataset(tmp_path, "TOY", **kwargs)
    assert_same_dataset(ref, ours)
    for prop in ("num_node_labels", "num_node_attributes", "num_edge_labels",
                 "num_edge_attributes"):  # fmt: skip
        assert getattr(ours, prop) == getattr(ref, prop), prop
    assert ours.num_edge_features == ref.num_edge_features
    # slicing and a second instance reading the processed file
    sub = TUDataset(tmp_path, "TOY", **kwargs)[[2, 0]]
    assert_same_graph(ref[[2, 0]][0], sub[0])
    assert os.path.exists(tmp_path / "TOY" / "processed" / "data.agnn")


def test_tu_dataset_without_node_features_multi_labels_and_regression(tmp_path):
    tg = pytest.importorskip("torch_geometric.datasets")
    write_tu(tmp_path / "NOX" / "raw", "NOX", node_attr=False, node_labels=0, edge=False,
             graph="attributes")  # fmt: skip
    assert_same_dataset(tg.TUDataset(str(tmp_path), "NOX"), TUDataset(tmp_path, "NOX"))
    assert [g.num_nodes for g in TUDataset(tmp_path, "NOX")] == [3, 2, 4]
    write_tu(tmp_path / "MULTI" / "raw", "MULTI", node_labels=2, edge=False)
    ref = tg.TUDataset(str(tmp_path), "MULTI", use_node_attr=True)
    ours = TUDataset(tmp_path, "MULTI", use_node_attr=True)
    assert_same_dataset(ref, ours)
    assert ours.num_node_labels == ref.num_node_labels


def test_tu_dataset_pre_filter_and_pre_transform_match_pyg(tmp_path):
    tg = pytest.importorskip("torch_geometric.datasets")
    write_tu(tmp_path / "PRE" / "raw", "PRE")

    def keep(d):
        return d.num_nodes > 2

    def add_one(d):
        d.z = d.x[:, :1] + 1
        return d

    ref = tg.TUDataset(str(tmp_path), "PRE", pre_filter=keep, pre_transform=add_one)
    ours = TUDataset(tmp_path, "PRE", pre_filter=keep, pre_transform=add_one)
    assert len(ours) == 2
    assert_same_dataset(ref, ours)


def test_tu_read_errors_and_local_download(tmp_path, monkeypatch):
    root = tmp_path / "root"
    source = tmp_path / "source"
    source.mkdir()
    monkeypatch.setattr(TUDataset, "url", source.as_uri())  # a local folder: no network
    with pytest.raises(FileNotFoundError, match=r"Place ZIP_A.txt and ZIP_graph_indicator.txt"):
        TUDataset(root, "ZIP")
    # the archive PyG downloads (a folder <name>/ of TU files), served from disk
    write_tu(tmp_path / "files" / "ZIP", "ZIP", edge=False)
    with zipfile.ZipFile(source / "ZIP.zip", "w") as z:
        for f in sorted(os.listdir(tmp_path / "files" / "ZIP")):
            z.write(tmp_path / "files" / "ZIP" / f, f"ZIP/{f}")
    ds = TUDataset(root, "ZIP", use_node_attr=True)
    assert len(ds) == 3 and ds.num_node_attributes == 2
    assert sorted(os.listdir(root / "ZIP" / "raw"))[0] == "ZIP_A.txt"
    # inconsistent files are named
    bad = tmp_path / "bad"
    write_tu(bad, "BAD", edge=False)
    with open(bad / "BAD_A.txt", "a") as f:
        f.write("3, 4\n")  # an edge between graphs 1 and 2
    with pytest.raises(ValueError, match="different graphs"):
        read_tu_data(bad, "BAD")
    with open(bad / "BAD_graph_indicator.txt", "w") as f:
        f.write("2\n1\n1\n2\n2\n3\n3\n3\n3\n")
    with pytest.raises(ValueError, match="non-decreasing"):
        read_tu_data(bad, "BAD")
    with pytest.raises(ValueError, match="name"):
        TUDataset(root, "../x")


# ---------------------------------------------------------------------- Planetoid files


def write_planetoid(raw, prefix, *, isolated=()):
    """PyG's eight Planetoid files: 4 labelled nodes, 506 other nodes of allx (the 500
    public validation nodes among them), then test nodes with shuffled ids (``isolated``
    ids left out of test.index, as CiteSeer's)."""
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(1)
    num_train, num_allx, num_span, f, c = 4, 510, 10, 5, 3
    test_ids = [i for i in range(num_allx, num_allx + num_span) if i - num_allx not in isolated]
    n = num_allx + num_span

    def feats(rows):
        return sp.csr_matrix((rng.random((rows, f)) < 0.4).astype(np.float32))

    def onehot(rows):
        return np.eye(c, dtype=np.int32)[rng.integers(0, c, rows)]

    allx, ally = feats(num_allx), onehot(num_allx)
    objects = {
        "x": allx[:num_train], "y": ally[:num_train], "allx": allx, "ally": ally,
        "tx": feats(len(test_ids)), "ty": onehot(len(test_ids)),
    }  # fmt: skip
    graph = defaultdict(list)
    for node in range(n):
        graph[node] = [int(v) for v in rng.integers(0, n, 3)]
    graph[0].extend([0, 1, 1])  # a self-loop and duplicates
    objects["graph"] = graph
    os.makedirs(raw, exist_ok=True)
    for key, value in objects.items():
        with open(os.path.join(raw, f"ind.{prefix}.{key}"), "wb") as fh:
            pickle.dump(value, fh, protocol=2)
    order = rng.permutation(test_ids)
    with open(os.path.join(raw, f"ind.{prefix}.test.index"), "w") as fh:
        fh.write("".join(f"{i}\n" for i in order))


@pytest.mark.parametrize("name, isolated", [("Cora", ()), ("CiteSeer", (3, 7))])
def test_planetoid_matches_pyg(tmp_path, name, isolated):
    tg = pytest.importorskip("torch_geometric.datasets")
    write_planetoid(tmp_path / name / "raw", name.lower(), isolated=isolated)
    for split in ("public", "full"):
        ref = tg.Planetoid(str(tmp_path), name, split=split)
        ours = Planetoid(tmp_path, name, split=split)
        assert_same_dataset(ref, ours)
    assert ours[0].num_nodes == 520 and ours[0].val_mask.sum() == 500
    if isolated:  # zero rows for the ids missing from test.index
        assert not ours[0].x[510 + np.array(isolated)].any()
        assert not ours[0].test_mask[510 + np.array(isolated)].any()


def test_planetoid_random_split_and_errors(tmp_path, monkeypatch):
    write_planetoid(tmp_path / "Cora" / "raw", "cora")
    a = Planetoid(tmp_path, "Cora", split="random", num_train_per_class=2, num_val=30,
                  num_test=40, seed=0)[0]  # fmt: skip
    b = Planetoid(tmp_path, "Cora", split="random", num_train_per_class=2, num_val=30,
                  num_test=40, seed=0)[0]  # fmt: skip
    for key in ("train_mask", "val_mask", "test_mask"):
        np.testing.assert_array_equal(a[key], b[key])
    assert np.bincount(a.y[a.train_mask]).tolist() == [2, 2, 2]
    assert (a.val_mask.sum(), a.test_mask.sum()) == (30, 40)
    assert not (a.train_mask & a.val_mask).any() and not (a.val_mask & a.test_mask).any()
    # a pickle naming anything but arrays / containers is refused
    with open(tmp_path / "Cora" / "raw" / "ind.cora.graph", "wb") as fh:
        pickle.dump(os.getcwd, fh, protocol=2)
    with pytest.raises(ValueError, match="refusing to load"):
        read_planetoid_data(tmp_path / "Cora" / "raw", "Cora")
    # missing raw files: a local download source without them
    monkeypatch.setattr(Planetoid, "url", (tmp_path / "nothing").as_uri())
    with pytest.raises(FileNotFoundError, match=r"ind.pubmed.x.*network"):
        Planetoid(tmp_path, "PubMed")
    with pytest.raises(ValueError, match="split"):
        Planetoid(tmp_path, "Cora", split="half")


# ---------------------------------------------------------------------- shipped / synthetic


def test_karate_club_matches_pyg():
    tg = pytest.importorskip("torch_geometric.datasets")
    assert_same_dataset(tg.KarateClub(), KarateClub())


def _layout(graph):
    """(key, dtype, shape without the sizes that vary) of every stored array."""
    out = []
    for key in sorted(graph.keys()):
        value = graph[key]
        value = value.numpy() if hasattr(value, "numpy") else value
        if isinstance(value, np.ndarray):
            shape = value.shape[1:] if key not in ("edge_index",) else value.shape[:1]
            out.append((key, str(value.dtype), shape))
        else:
            out.append((key, type(value).__name__, ()))
    return out


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_graphs=3, avg_num_nodes=12, avg_degree=3, num_channels=4, edge_dim=2,
             global_features=5),
        dict(num_graphs=1, avg_num_nodes=12, avg_degree=2, num_channels=0, edge_dim=1,
             num_classes=3, is_undirected=False),
    ],
)  # fmt: skip
def test_fake_dataset_has_pygs_keys_shapes_and_dtypes(kwargs):
    tg = pytest.importorskip("torch_geometric.datasets")
    ref, ours = tg.FakeDataset(**kwargs), FakeDataset(**kwargs, seed=0)
    assert len(ours) == len(ref)
    for i in range(len(ref)):
        assert _layout(ours[i]) == _layout(ref[i])
        g = ours[i]
        assert 9 <= g.num_nodes <= 15
        assert (g.edge_index[0] != g.edge_index[1]).all()
        assert g.edge_index.max() < g.num_nodes
    if kwargs.get("is_undirected", True):
        ei = ours[0].edge_index
        pairs = set(zip(*ei.tolist()))
        assert pairs == {(b, a) for a, b in pairs}
    again = FakeDataset(**kwargs, seed=0)
    np.testing.assert_array_equal(again[0].edge_index, ours[0].edge_index)


def test_fake_hetero_dataset_has_pygs_layout():
    tg = pytest.importorskip("torch_geometric.datasets")
    kwargs = dict(num_graphs=2, num_node_types=2, num_edge_types=5, avg_num_nodes=10,
                  avg_degree=2, avg_num_channels=4, edge_dim=2)  # fmt: skip
    ref, ours = tg.FakeHeteroDataset(**kwargs), FakeHeteroDataset(**kwargs, seed=0)
    assert len(ours) == len(ref) == 2
    r, o = ref[0], ours[1]
    assert o.node_types == r.node_types
    assert len(o.edge_types) == len(r.edge_types) == 5
    for types in (o.edge_types, r.edge_types):  # relations of one pair: e0, e1, ...
        rels = defaultdict(list)
        for src, rel, dst in types:
            rels[src, dst].append(rel)
        assert all(sorted(v) == [f"e{k}" for k in range(len(v))] for v in rels.values())
    assert o.y.dtype == np.int64 and o.y.shape == (1,)
    for t in o.node_types:
        assert o[t].x.dtype == np.float32 and 3 <= o[t].x.shape[1] <= 5
    for et in o.edge_types:
        src, _, dst = et
        assert o[et].edge_attr.shape == (o[et].edge_index.shape[1], 2)
        assert o[et].edge_index[0].max() < o[src].num_nodes
        assert o[et].edge_index[1].max() < o[dst].num_nodes
    assert ours.num_classes == int(max(g.y[0] for g in ours)) + 1
    node = FakeHeteroDataset(avg_num_nodes=10, avg_degree=2, num_classes=4, seed=1)
    assert node[0]["v0"].y.shape == (node[0]["v0"].num_nodes,)
    assert node.num_classes == int(node[0]["v0"].y.max()) + 1  # PyG: AttributeError
    assert len(ours[1:]) == 1 and len(ours.copy([0])) == 1


def test_stochastic_block_model_dataset_matches_pyg(tmp_path):
    tg = pytest.importorskip("torch_geometric.datasets")
    pytest.importorskip("sklearn")  # PyG's process() imports it even without features
    sizes, probs = [3, 2, 2], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    ref = tg.StochasticBlockModelDataset(str(tmp_path), sizes, probs, num_graphs=2)
    ours = StochasticBlockModelDataset(tmp_path, sizes, probs, num_graphs=2, seed=0)
    assert_same_dataset(ref, ours, extra=("num_nodes",))  # probabilities 0 / 1: PyG's edges
    # (PyG 2.8.1 passes make_classification a tensor of weights, which scikit-learn 1.9
    # refuses: the features are checked here without it)
    ours = StochasticBlockModelDataset(tmp_path, sizes, probs, num_channels=3, seed=0)
    x = ours[0].x
    assert x.dtype == np.float32 and x.shape == (7, 3) and "num_nodes" not in ours[0]
    again = StochasticBlockModelDataset(tmp_path, sizes, probs, num_channels=3, seed=0)
    np.testing.assert_array_equal(again[0].x, x)
    rp = RandomPartitionGraphDataset(tmp_path, 3, 4, 0.8, 2.0, seed=1)
    assert rp[0].num_nodes == 12 and rp[0].y.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    with pytest.raises(ValueError, match="edge_probs"):
        StochasticBlockModelDataset(tmp_path, [2, 2], [[1.0]])


def test_datasets_hold_arraygnn_data():
    assert isinstance(KarateClub()[0], Data)
