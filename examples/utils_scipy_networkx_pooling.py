"""From NetworkX and SciPy to a graph-level prediction, with PyG's utilities on arrays.

1. Zachary's karate club from NetworkX (``from_networkx``), its adjacency as a SciPy
   matrix (``to_scipy_sparse_matrix``) and the normalised Laplacian's smallest eigenvectors
   (``get_laplacian`` + ``scipy.sparse.linalg.eigsh``) as positional features;
2. PyG's utilities: ``to_undirected``, ``degree``, ``k_hop_subgraph``, ``to_dense_adj``;
3. a GCN layer, PyG's ``TopKPooling`` and a mean readout per graph over a batch of the club
   and its 2-hop neighbourhood of the instructor;
4. DGL's view: ``arraygnn.graph.from_scipy`` and ``g.adj_external``.

NetworkX is optional (``pip install 'arraygnn[networkx]'``): without it a ring graph stands in.

    python examples/utils_scipy_networkx_pooling.py
"""

from __future__ import annotations

import numpy as np
import scipy.sparse.linalg

import arraygnn.nn as nn
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.graph import from_scipy
from arraygnn.interop import from_networkx, to_scipy_sparse_matrix
from arraygnn.utils import degree, get_laplacian, k_hop_subgraph, to_dense_adj, to_undirected

# ---- 1. a graph from NetworkX (or a ring without it), positional features from SciPy
try:
    import networkx

    data = from_networkx(networkx.karate_club_graph())
    print(f"karate club: {data.num_nodes} nodes, {data.edge_index.shape[1]} directed edges")
except ImportError:
    ring = np.arange(34)
    data = Data(edge_index=np.stack([ring, (ring + 1) % 34]), num_nodes=34)
    print("networkx missing: a 34-node ring stands in")
n = data.num_nodes
edge_index = to_undirected(data.edge_index, num_nodes=n)
adjacency = to_scipy_sparse_matrix(edge_index, num_nodes=n).tocsr()
assert (adjacency != adjacency.T).nnz == 0  # symmetric
lap_index, lap_weight = get_laplacian(edge_index, normalization="sym", num_nodes=n)
laplacian = to_scipy_sparse_matrix(lap_index, lap_weight, num_nodes=n).tocsr()
values, vectors = scipy.sparse.linalg.eigsh(laplacian.astype(np.float64), k=4, which="SM")
print(f"smallest Laplacian eigenvalues: {np.round(values, 4).tolist()}")
deg = degree(edge_index[1], n)
x = np.concatenate([vectors, deg[:, None] / deg.max()], axis=1).astype(np.float32)

# ---- 2. a 2-hop neighbourhood as a second graph
subset, sub_edges, mapping, _ = k_hop_subgraph(0, 2, edge_index, relabel_nodes=True, num_nodes=n)
print(f"2-hop neighbourhood of node 0: {subset.shape[0]} nodes, {sub_edges.shape[1]} edges")
graphs = [
    Data(x=x, edge_index=edge_index),
    Data(x=x[subset], edge_index=sub_edges),
]
batch = Batch.from_data_list(graphs)
dense = to_dense_adj(batch.edge_index, batch.batch)
assert dense.shape == (2, n, n) and dense[1].sum() == sub_edges.shape[1]

# ---- 3. GCN, top-k pooling, a readout per graph
conv = nn.GCNConv(x.shape[1], 16, rng=0)
pool = nn.TopKPooling(16, ratio=0.5, rng=1)
h = np.maximum(conv(batch.x, batch.edge_index), 0)
h, pooled_edges, _, pooled_batch, perm, score = pool(h, batch.edge_index, batch=batch.batch)
readout = nn.global_mean_pool(h, pooled_batch, size=batch.num_graphs)
kept = np.bincount(pooled_batch, minlength=2)
print(f"top-k pooling kept {kept.tolist()} nodes of {np.bincount(batch.batch).tolist()}")
print(f"graph embeddings: {readout.shape}")
assert kept.tolist() == [int(np.ceil(0.5 * n)), int(np.ceil(0.5 * subset.shape[0]))]

# ---- 4. DGL's view of the same matrix
g = from_scipy(adjacency, eweight_name="w")
assert g.num_edges() == edge_index.shape[1]
assert (g.adj_external(scipy_fmt="csr") != adjacency.astype(g.idtype)).nnz == 0
print(f"DGL-face graph from SciPy: {g.num_nodes()} nodes, {g.num_edges()} edges")
