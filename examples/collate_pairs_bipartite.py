"""PyG-style collation on NumPy arrays: pairs of graphs, bipartite graphs, a new batch
dimension, and a packed dataset feeding a shuffled DataLoader.

    python examples/collate_pairs_bipartite.py
"""

import numpy as np

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.dataset import PackedDataset
from arraygnn.loader import DataLoader

rng = np.random.default_rng(0)


class PairData(Data):
    """Two graphs in one object: each edge_index is increased by its own graph's size."""

    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index_s":
            return self.x_s.shape[0]
        if key == "edge_index_t":
            return self.x_t.shape[0]
        return super().__inc__(key, value, *args, **kwargs)


class BipartiteData(Data):
    """Sources are increased by the number of x_s rows, targets by the number of x_t rows."""

    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index":
            return np.array([[self.x_s.shape[0]], [self.x_t.shape[0]]])
        return super().__inc__(key, value, *args, **kwargs)


class MyData(Data):
    """``foo`` gets a new batch dimension instead of being concatenated."""

    def __cat_dim__(self, key, value, *args, **kwargs):
        if key == "foo":
            return None
        return super().__cat_dim__(key, value, *args, **kwargs)


pair = PairData(
    x_s=rng.standard_normal((5, 16)),
    edge_index_s=np.array([[0, 0, 0, 0], [1, 2, 3, 4]]),
    x_t=rng.standard_normal((4, 16)),
    edge_index_t=np.array([[0, 0, 0], [1, 2, 3]]),
)
batch = Batch.from_data_list([pair, pair], follow_batch=["x_s", "x_t"])
print(batch)
print("edge_index_s:", batch.edge_index_s.tolist())
print("edge_index_t:", batch.edge_index_t.tolist())
print("x_s_batch:", batch.x_s_batch.tolist(), " x_t_batch:", batch.x_t_batch.tolist())
assert batch.edge_index_s.tolist() == [[0, 0, 0, 0, 5, 5, 5, 5], [1, 2, 3, 4, 6, 7, 8, 9]]
assert batch.edge_index_t.tolist() == [[0, 0, 0, 4, 4, 4], [1, 2, 3, 5, 6, 7]]
np.testing.assert_array_equal(batch.get_example(1).edge_index_t, pair.edge_index_t)

bip = BipartiteData(
    x_s=rng.standard_normal((2, 16)),
    x_t=rng.standard_normal((3, 16)),
    edge_index=np.array([[0, 0, 1, 1], [0, 1, 1, 2]]),
)
batch = Batch.from_data_list([bip, bip])
print(batch, batch.edge_index.tolist())
assert batch.edge_index.tolist() == [[0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 1, 2, 3, 4, 4, 5]]

my = MyData(
    num_nodes=3, edge_index=np.array([[0, 1, 1, 2], [1, 0, 2, 1]]), foo=rng.standard_normal(16)
)
batch = Batch.from_data_list([my, my])
print(batch)
assert batch.foo.shape == (2, 16)

# A packed dataset: every graph stored once, batches gathered by index arithmetic.
graphs = [
    Data(
        x=rng.standard_normal((n, 4)).astype(np.float32),
        edge_index=rng.integers(0, n, (2, 2 * n)),
        y=np.array([float(n)]),
    )
    for n in rng.integers(1, 30, 500)
]
dataset = PackedDataset.from_data_list(graphs)
loader = DataLoader(dataset, batch_size=64, shuffle=True, seed=0)
seen = 0
for b in loader:
    # node counts per graph from ptr agree with the targets (y = number of nodes)
    np.testing.assert_array_equal(np.diff(b.ptr), b.y.astype(np.int64))
    seen += b.num_graphs
print(f"{dataset}: {len(loader)} batches, {seen} graphs in one shuffled epoch")
assert seen == len(graphs)
