"""PyG's everyday datasets without network or torch: ``KarateClub`` (shipped), synthetic
``FakeDataset`` graphs, and a ``TUDataset`` read from raw TU files on disk.

1. Karate club: label propagation from the four labelled members (``train_mask``) reaches
   most of the club (the classic semi-supervised toy).
2. ``FakeDataset``: a batch of random graphs through a GIN layer and a mean readout.
3. ``TUDataset``: write a two-graph dataset in TU's text format (what PyG downloads and
   unzips into ``root/<name>/raw``), read it as PyG would, and batch it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import arraygnn.nn as nn
from arraygnn.datasets import FakeDataset, KarateClub, TUDataset
from arraygnn.loader import DataLoader


def karate_label_propagation() -> None:
    data = KarateClub()[0]
    lp = nn.LabelPropagation(num_layers=5, alpha=0.9)
    pred = lp(data.y, data.edge_index, mask=data.train_mask).argmax(-1)
    acc = float((pred == data.y)[~data.train_mask].mean())
    print(f"karate club: {data}, label propagation accuracy {acc:.2f}")
    assert acc > 0.5


def fake_graphs_readout() -> None:
    dataset = FakeDataset(num_graphs=6, avg_num_nodes=12, num_channels=8, seed=0)
    conv = nn.GINConv(nn.MLP([8, 16, 16], rng=0))
    for batch in DataLoader(dataset, batch_size=3):
        h = nn.global_mean_pool(conv(batch.x, batch.edge_index), batch.batch)
        print(f"fake batch: {batch} -> graph embeddings {h.shape}")
        assert h.shape == (3, 16)


def tu_from_raw_files() -> None:
    with tempfile.TemporaryDirectory() as root:
        raw = Path(root, "TOY", "raw")
        raw.mkdir(parents=True)
        # graph 1: nodes 1-3 (a triangle), graph 2: nodes 4-5 (one edge), 1-based ids
        (raw / "TOY_A.txt").write_text("1, 2\n2, 1\n2, 3\n3, 2\n3, 1\n1, 3\n4, 5\n5, 4\n")
        (raw / "TOY_graph_indicator.txt").write_text("1\n1\n1\n2\n2\n")
        (raw / "TOY_graph_labels.txt").write_text("1\n-1\n")
        (raw / "TOY_node_labels.txt").write_text("0\n1\n0\n2\n1\n")
        dataset = TUDataset(root, "TOY")
        print(f"TU dataset: {len(dataset)} graphs, {dataset.num_node_labels} node labels")
        batch = next(iter(DataLoader(dataset, batch_size=2)))
        print(f"TU batch: {batch}, y={batch.y.tolist()}")
        assert batch.x.shape == (5, 3) and batch.y.tolist() == [1, 0]


if __name__ == "__main__":
    karate_label_propagation()
    fake_graphs_readout()
    tu_from_raw_files()
