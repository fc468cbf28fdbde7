"""``DGLDataset`` on the DGL face and the ``dgl.data.utils`` helpers its subclasses use
(session 11).

Expected behaviour from DGL's code (dmlc/dgl, python/dgl/data/dgl_dataset.py, utils.py):
``has_cache()`` -> ``load()``, else ``download()`` (when ``raw_path`` is missing) ->
``process()`` -> ``save()``; ``force_reload`` skips the cache; a ``load()`` that raises
falls back to processing; ``raw_path`` / ``save_path`` are ``dir/name`` plus ``_<sha1(url)[:8]>``
when a url is given; ``hash`` is ``sha1(str(hash_key))[:8]`` (``'f9065fa7'`` for ``()``, as
DGL's docstring); ``split_dataset`` draws ``np.random.RandomState(seed).permutation``.
"""

from __future__ import annotations

import hashlib
import os
import zipfile

import numpy as np
import pytest

from arraygnn.graph import (
    DGLBuiltinDataset,
    DGLDataset,
    GraphDataLoader,
    graph,
    load_graphs,
    load_info,
    save_graphs,
    save_info,
    split_dataset,
)
from arraygnn.graph.dgl_dataset import (
    check_sha1,
    download,
    extract_archive,
    get_download_dir,
    makedirs,
)


class Rings(DGLDataset):
    """DGL's "make your own dataset" pattern: graphs + labels + an info dict."""

    calls: list[str]

    def __init__(self, raw_dir, **kwargs):
        self.calls = []
        super().__init__(name="rings", raw_dir=raw_dir, **kwargs)

    def download(self):
        self.calls.append("download")
        os.makedirs(self.raw_path, exist_ok=True)

    def process(self):
        self.calls.append("process")
        self.graphs, labels = [], []
        for n in (3, 4, 5):
            src = np.arange(n)
            g = graph((src, (src + 1) % n), num_nodes=n)
            g.ndata["x"] = np.ones((n, 2), np.float32)
            self.graphs.append(g)
            labels.append(n % 2)
        self.label = np.array(labels)
        self.num_classes = 2

    def _paths(self):
        return (
            os.path.join(self.save_path, "dgl_graph.bin"),
            os.path.join(self.save_path, "info.pkl"),
        )

    def save(self):
        self.calls.append("save")
        graph_path, info_path = self._paths()
        save_graphs(graph_path, self.graphs, {"labels": self.label})
        save_info(info_path, {"num_classes": self.num_classes})

    def load(self):
        self.calls.append("load")
        graph_path, info_path = self._paths()
        self.graphs, label_dict = load_graphs(graph_path)
        self.label = label_dict["labels"]
        self.num_classes = load_info(info_path)["num_classes"]

    def has_cache(self):
        return all(os.path.exists(p) for p in self._paths())

    def __getitem__(self, idx):
        g = self.graphs[idx]
        if self._transform is not None:
            g = self._transform(g)
        return g, self.label[idx]

    def __len__(self):
        return len(self.graphs)


def test_process_save_then_load_from_cache(tmp_path):
    ds = Rings(str(tmp_path))
    assert ds.calls == ["download", "process", "save"]
    assert len(ds) == 3 and ds[1][0].num_nodes() == 4 and ds[1][1] == 0
    assert ds.raw_dir == ds.save_dir == str(tmp_path)
    assert ds.raw_path == ds.save_path == os.path.join(str(tmp_path), "rings")
    assert ds.hash == "f9065fa7" and ds.url is None and ds.name == "rings"
    assert repr(ds) == f'Dataset("rings", num_graphs=3, save_path={ds.save_path})'

    again = Rings(str(tmp_path), verbose=False)
    assert again.calls == ["load"]  # raw_path exists: no download either
    assert again.num_classes == 2 and again.label.tolist() == [1, 0, 1]
    assert again[2][0].ndata["x"].shape == (5, 2)

    forced = Rings(str(tmp_path), force_reload=True)
    assert forced.calls == ["process", "save"]

    # a cache that fails to load is processed again (DGL's fallback)
    with open(os.path.join(ds.save_path, "dgl_graph.bin"), "wb") as f:
        f.write(b"garbage")
    broken = Rings(str(tmp_path))
    assert broken.calls == ["load", "process", "save"]
    assert len(Rings(str(tmp_path))) == 3


def test_transform_hash_key_url_and_save_dir(tmp_path):
    url = "https://example.org/rings.zip"
    ds = Rings(
        str(tmp_path / "raw"),
        save_dir=str(tmp_path / "out"),
        hash_key=(10, False, True),
        transform=lambda g: g.add_self_loop(),
    )
    assert ds.hash == "a770b222"  # DGL's docstring value
    assert ds.save_path == os.path.join(str(tmp_path / "out"), "rings")
    assert ds[0][0].num_edges() == 3 + 3  # the transform runs on access
    assert ds.graphs[0].num_edges() == 3
    suffix = "_" + hashlib.sha1(url.encode()).hexdigest()[:8]

    class WithUrl(Rings):
        def __init__(self, raw_dir):
            self.calls = []
            DGLDataset.__init__(self, "rings", url=url, raw_dir=raw_dir)

    w = WithUrl(str(tmp_path / "raw"))
    assert w.raw_path == os.path.join(str(tmp_path / "raw"), "rings" + suffix)
    assert w.save_path == w.raw_path


def test_arguments_are_checked_and_abstract_methods_raise(tmp_path):
    class OnlyProcess(DGLDataset):
        def process(self):
            pass

    with pytest.raises(TypeError, match="name"):
        OnlyProcess(3, raw_dir=str(tmp_path))
    with pytest.raises(TypeError, match="raw_dir"):
        OnlyProcess("only", raw_dir=3)
    with pytest.raises(TypeError, match="transform"):
        Rings(str(tmp_path), transform=3)

    class Bare(DGLDataset):
        pass

    with pytest.raises(NotImplementedError, match="Bare.process"):
        Bare("bare", raw_dir=str(tmp_path))

    ds = OnlyProcess("only", raw_dir=str(tmp_path))
    with pytest.raises(NotImplementedError, match="__len__"):
        len(ds)
    with pytest.raises(NotImplementedError, match="__getitem__"):
        ds[0]


def test_default_download_dir_comes_from_the_environment(tmp_path, monkeypatch):
    target = tmp_path / "cache"
    monkeypatch.setenv("ARRAYGNN_DOWNLOAD_DIR", str(target))
    assert get_download_dir() == str(target) and target.is_dir()
    ds = Rings(None)
    assert ds.raw_dir == str(target) and os.path.isdir(ds.save_path)


def test_download_extract_and_builtin_dataset(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    with zipfile.ZipFile(src / "toy.zip", "w") as z:
        z.writestr("edges.csv", "0,1\n1,2\n")
    sha1 = hashlib.sha1((src / "toy.zip").read_bytes()).hexdigest()
    url = (src / "toy.zip").as_uri()
    path = download(url, path=str(tmp_path / "dl"), sha1_hash=sha1, log=False)
    assert path == str(tmp_path / "dl") and check_sha1(path, sha1)
    os.remove(path)
    makedirs(str(tmp_path / "dl"))
    assert download(url, path=str(tmp_path / "dl"), log=False) == str(tmp_path / "dl" / "toy.zip")
    with pytest.raises(ValueError, match="hash"):
        download(url, path=str(tmp_path / "x.zip"), sha1_hash="0" * 40, retries=0, log=False)
    extract_archive(str(tmp_path / "dl" / "toy.zip"), str(tmp_path / "ex"))
    assert (tmp_path / "ex" / "edges.csv").read_text() == "0,1\n1,2\n"
    with pytest.raises(ValueError, match="archive"):
        extract_archive(str(tmp_path / "dl"), str(tmp_path / "ex2"))

    class Toy(DGLBuiltinDataset):
        def __init__(self, raw_dir):
            super().__init__("toy", url=url, raw_dir=raw_dir)

        def process(self):
            with open(os.path.join(self.raw_path, "edges.csv")) as f:
                rows = [line.split(",") for line in f.read().split()]
            uv = np.array(rows, dtype=np.int64)
            self.g = graph((uv[:, 0], uv[:, 1]))

        def __getitem__(self, idx):
            return self.g

        def __len__(self):
            return 1

    toy = Toy(str(tmp_path / "builtin"))
    assert toy[0].num_edges() == 2 and os.path.isdir(toy.raw_path)


def test_split_dataset_matches_dgls_draws_and_feeds_the_loader(tmp_path):
    ds = Rings(str(tmp_path))
    train, val, test = split_dataset(ds, [0.34, 0.33, 0.33], shuffle=True, random_state=0)
    perm = np.random.RandomState(seed=0).permutation(3)
    lengths = (3 * np.array([0.34, 0.33, 0.33])).astype(int)  # DGL: [1, 0, 2]
    assert [len(train), len(val), len(test)] == [1, 0, 2] == [1, 0, 3 - lengths[:2].sum()]
    assert (
        train.indices.tolist() == perm[:1].tolist() and test.indices.tolist() == perm[1:].tolist()
    )
    assert train[0][0].num_nodes() == ds[int(perm[0])][0].num_nodes()
    with pytest.raises(ValueError, match="frac_list"):
        split_dataset(ds, [0.5, 0.2, 0.2])
    whole, _, _ = split_dataset(ds, [1.0, 0.0, 0.0])
    (bg, labels), = list(GraphDataLoader(whole, batch_size=3))  # fmt: skip
    assert bg.batch_size == 3 and labels.tolist() == [1, 0, 1]
