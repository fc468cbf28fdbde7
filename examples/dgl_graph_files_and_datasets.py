"""DGL's dataset recipe on NumPy arrays: process once, save the graphs to a safe file, load
the cache in the next run, split, batch with GraphDataLoader and run a GraphConv classifier.

Runs the calls of DGL's "make your own dataset" guide (``dgl.data.DGLDataset``,
``dgl.save_graphs`` / ``dgl.load_graphs``, ``dgl.data.utils.save_info`` / ``load_info``,
``split_dataset``) with ``arraygnn.graph`` in place of ``dgl``, and checks that the model
gives the same scores on the graphs it processed and on the graphs it loaded back.

    python examples/dgl_graph_files_and_datasets.py
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

import arraygnn.nn as nn
from arraygnn.graph import (
    DGLDataset,
    GraphDataLoader,
    graph,
    load_graphs,
    load_info,
    mean_nodes,
    save_graphs,
    save_info,
    split_dataset,
)


class RandomMolecules(DGLDataset):
    """200 small random graphs with node features, bond weights and a binary label."""

    def __init__(self, raw_dir: str, force_reload: bool = False) -> None:
        self.processed = False
        super().__init__(name="random_molecules", raw_dir=raw_dir, force_reload=force_reload)

    def process(self) -> None:  # runs only when there is no cache
        rng = np.random.default_rng(0)
        self.graphs, labels = [], []
        for _ in range(200):
            n = int(rng.integers(4, 12))
            loops = np.arange(n)  # a self-loop per node: GraphConv refuses 0 in-degree, as DGL
            src = np.concatenate([loops, rng.integers(0, n, 2 * n)]).astype(np.int32)
            dst = np.concatenate([loops, rng.integers(0, n, 2 * n)]).astype(np.int32)
            g = graph((src, dst), num_nodes=n).int()  # int32 ids, kept by the file
            g.ndata["feat"] = rng.standard_normal((n, 8)).astype(np.float32)
            g.edata["w"] = rng.random(3 * n).astype(np.float32)
            self.graphs.append(g)
            labels.append(int(g.ndata["feat"][:, 0].mean() > 0))
        self.labels = np.array(labels)
        self.processed = True

    def save(self) -> None:
        save_graphs(self._file("graphs.bin"), self.graphs, {"labels": self.labels})
        save_info(self._file("info.pkl"), {"num_classes": 2, "feat_dim": 8})

    def load(self) -> None:
        self.graphs, label_dict = load_graphs(self._file("graphs.bin"))
        self.labels = label_dict["labels"]
        self.info = load_info(self._file("info.pkl"))

    def has_cache(self) -> bool:
        return os.path.exists(self._file("graphs.bin")) and os.path.exists(self._file("info.pkl"))

    def _file(self, name: str) -> str:
        return os.path.join(self.save_path, name)

    def __getitem__(self, i: int):
        return self.graphs[i], self.labels[i]

    def __len__(self) -> int:
        return len(self.graphs)


class Classifier:
    """GraphConv -> ReLU -> GraphConv -> mean readout -> linear scores."""

    def __init__(self) -> None:
        self.conv1 = nn.GraphConv(8, 16, activation=lambda h: np.maximum(h, 0))
        self.conv2 = nn.GraphConv(16, 16)
        self.head = nn.Linear(16, 2)

    def __call__(self, bg):
        h = self.conv1(bg, bg.ndata["feat"], edge_weight=bg.edata["w"])
        bg.ndata["h"] = self.conv2(bg, h, edge_weight=bg.edata["w"])
        return self.head(mean_nodes(bg, "h"))


with tempfile.TemporaryDirectory() as cache:
    first = RandomMolecules(raw_dir=cache)  # no cache yet: process() then save()
    again = RandomMolecules(raw_dir=cache)  # the cache exists: load(), no processing
    assert first.processed and not again.processed
    assert again.info == {"num_classes": 2, "feat_dim": 8}
    assert len(again) == 200 and again.labels.tolist() == first.labels.tolist()
    g0, g1 = first[0][0], again[0][0]
    assert g1.idtype == np.int32 and g1.num_edges() == g0.num_edges()
    assert np.array_equal(g1.ndata["feat"], g0.ndata["feat"])

    # load a few graphs only (the labels are always those of every graph, as in DGL)
    some, labels = load_graphs(os.path.join(again.save_path, "graphs.bin"), [5, 7])
    assert [g.num_nodes() for g in some] == [first[5][0].num_nodes(), first[7][0].num_nodes()]
    assert len(labels["labels"]) == 200

    train, valid, test = split_dataset(
        again, frac_list=[0.8, 0.1, 0.1], shuffle=True, random_state=0
    )
    assert (len(train), len(valid), len(test)) == (160, 20, 20)

    model = Classifier()
    for processed, loaded in zip(
        GraphDataLoader(first, batch_size=32), GraphDataLoader(again, batch_size=32), strict=True
    ):
        scores_p, scores_l = model(processed[0]), model(loaded[0])
        assert scores_p.shape == (processed[0].batch_size, 2)
        np.testing.assert_array_equal(scores_p, scores_l)  # same graphs, same bits
    n_test = sum(bg.batch_size for bg, _ in GraphDataLoader(test, batch_size=8))
    assert n_test == 20
    print(f"{len(again)} graphs processed, saved and loaded back from {cache}; splits 160/20/20")
