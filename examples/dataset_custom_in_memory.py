"""A custom dataset ported from PyG: ``InMemoryDataset`` with download / process / save /
load, written as PyG's tutorial writes it, on NumPy arrays (``arraygnn.datasets``).

The raw file (packed random graphs in a .npz) is "downloaded" from a ``file://`` URL, so the
example needs no network. The first instance processes it; a second one reads the
processed file. Then views, shuffling, a ``DataLoader`` and an ``OnDiskDataset`` copy.

Run: python examples/dataset_custom_in_memory.py
"""

import os
import tempfile
import time

import numpy as np

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.datasets import InMemoryDataset, download_url
from arraygnn.loader import DataLoader

work = tempfile.mkdtemp()
server = os.path.join(work, "server")
os.makedirs(server)

# --- the raw data somewhere "online": 2,000 graphs, packed ---------------------------------
rng = np.random.default_rng(0)
num_nodes = rng.integers(4, 30, 2000)
num_edges = num_nodes * 2
np.savez(
    os.path.join(server, "graphs.npz"),
    num_nodes=num_nodes,
    num_edges=num_edges,
    x=rng.normal(size=(int(num_nodes.sum()), 8)).astype(np.float32),
    # local node ids of every graph, concatenated
    edge_index=np.concatenate([rng.integers(0, n, (2, 2 * n)) for n in num_nodes], axis=1),
    y=rng.integers(0, 3, 2000),
)
URL = "file://" + os.path.join(server, "graphs.npz")


class MyOwnDataset(InMemoryDataset):
    """PyG's tutorial dataset; only the arrays are NumPy."""

    def __init__(self, root, transform=None, pre_transform=None, pre_filter=None):
        super().__init__(root, transform, pre_transform, pre_filter)
        self.load(self.processed_paths[0])

    @property
    def raw_file_names(self):
        return ["graphs.npz"]

    @property
    def processed_file_names(self):
        return ["data.agnn"]  # any name; the file is an arraygnn arrays file

    def download(self):
        download_url(URL, self.raw_dir)

    def process(self):
        raw = np.load(self.raw_paths[0])
        xs = np.split(raw["x"], np.cumsum(raw["num_nodes"])[:-1])
        eis = np.split(raw["edge_index"], np.cumsum(raw["num_edges"])[:-1], axis=1)
        data_list = [Data(x=x, edge_index=ei, y=int(y)) for x, ei, y in zip(xs, eis, raw["y"])]
        if self.pre_filter is not None:
            data_list = [d for d in data_list if self.pre_filter(d)]
        if self.pre_transform is not None:
            data_list = [self.pre_transform(d) for d in data_list]
        self.save(data_list, self.processed_paths[0])


root = os.path.join(work, "MyOwnDataset")
t0 = time.perf_counter()
dataset = MyOwnDataset(root, pre_filter=lambda d: d.num_nodes >= 5)
t1 = time.perf_counter()
again = MyOwnDataset(root, pre_filter=lambda d: d.num_nodes >= 5)  # reads the file
t2 = time.perf_counter()
print(f"{dataset}: processed in {t1 - t0:.2f} s, loaded again in {t2 - t1:.3f} s")
print("files:", sorted(os.listdir(os.path.join(root, "processed"))))
print("graph 0:", dataset[0], "| classes:", dataset.num_classes,
      "| node features:", dataset.num_node_features)  # fmt: skip
assert len(dataset) == len(again) == int((num_nodes >= 5).sum())
assert np.array_equal(dataset[7].edge_index, again[7].edge_index)
assert dataset.num_classes == 3 and dataset.num_node_features == 8

# --- views: slices, fractions, index arrays, masks, shuffles share the storage ------------
train, test = dataset[:0.8], dataset[0.8:]
print("train / test:", train, test)
assert len(train) + len(test) == len(dataset)
perm_ds, perm = dataset.shuffle(return_perm=True, seed=0)
assert np.array_equal(perm_ds[0].x, dataset[int(perm[0])].x)
big = dataset[np.array([d.num_nodes > 20 for d in dataset])]
print("graphs with more than 20 nodes:", len(big))

# --- a transform on access, and the loader -------------------------------------------------
train.transform = T.NormalizeFeatures()
loader = DataLoader(train, batch_size=64, shuffle=True, seed=0)
n_graphs = 0
for batch in loader:
    assert np.allclose(np.abs(batch.x).sum(-1), 1, atol=1e-5)  # rows sum to 1 (in |.|)
    n_graphs += batch.num_graphs
print(f"one epoch: {len(loader)} batches, {n_graphs} graphs")
assert n_graphs == len(train)

# --- the same graphs on disk (SQLite), for data larger than memory -------------------------
disk = dataset[:100].to_on_disk_dataset(os.path.join(work, "on_disk"))
print("on disk:", disk, disk[3])
assert np.array_equal(disk[3].x, dataset[3].x)
disk.close()
