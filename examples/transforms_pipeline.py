"""PyG's transforms on arrays: compose structure transforms on a ``Data`` and a
``HeteroData`` (``arraygnn.transforms``), print shapes, check a few facts.

Run: python examples/transforms_pipeline.py
"""

import numpy as np

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData

rng = np.random.default_rng(0)

# A directed graph of 12 nodes with a self-loop, a parallel edge and two isolated nodes.
ei = rng.integers(0, 10, (2, 30))
ei[:, 0] = [3, 3]
ei[:, 1] = ei[:, 2]
data = Data(x=rng.random((12, 4)).astype(np.float32), edge_index=ei, y=np.int64(1))

pipeline = T.Compose(
    [
        T.RemoveSelfLoops(),
        T.ToUndirected(),  # also merges the parallel edge
        T.RemoveIsolatedNodes(),
        T.LargestConnectedComponents(),
        T.LocalDegreeProfile(),  # 5 more feature columns
        T.AddRandomWalkPE(walk_length=4),
        # adds edges: every array must be said to be per node / edge / graph (never guessed)
        T.GCNNorm(node_attrs=["x", "random_walk_pe"]),
    ]
)
out = pipeline(data)
print("Data in: ", data)
print("Data out:", out)
assert data.x.shape == (12, 4) and data.edge_index.shape == (2, 30)  # input untouched
assert out.x.shape == (out.num_nodes, 4 + 5)
assert out.random_walk_pe.shape == (out.num_nodes, 4)
assert out.edge_weight.shape == (out.num_edges,)

# A heterogeneous graph: bipartite edge types get a reverse type, features normalised.
h = HeteroData()
h["paper"].x = rng.random((5, 3)).astype(np.float32)
h["author"].num_nodes = 4
h["author", "writes", "paper"].edge_index = np.array([[0, 1, 1, 2], [0, 0, 3, 4]])
h["paper", "cites", "paper"].edge_index = np.array([[0, 1, 2, 2], [1, 2, 2, 0]])
hout = T.Compose([T.ToUndirected(), T.AddSelfLoops(), T.NormalizeFeatures()])(h)
print(hout)
assert ("paper", "rev_writes", "author") in hout.edge_types
assert ("paper", "rev_writes", "author") not in h.edge_types
np.testing.assert_allclose(hout["paper"].x.sum(axis=1), 1.0, rtol=1e-5)
print("ok")
