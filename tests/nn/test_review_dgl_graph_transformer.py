"""Review checks of DGL's graph-transformer pieces: ``dgl.shortest_dist`` on DGL's own
adjacency layout, and the Graphormer encoders on narrow integer ids."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.nn as agnn
from arraygnn.graph import graph as make_graph
from arraygnn.graph import shortest_dist


def dgl_adjacency(src, dst, n):
    """``g.adj_external(scipy_fmt='csr')`` of ``dgl.graph((src, dst))``: DGL's out-CSR from
    its COO (a stable counting sort by source, so each row keeps edge-id order, parallel
    edges kept as separate entries, data all ones)."""
    from scipy import sparse

    order = np.argsort(src, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    data = np.ones(src.shape[0], dtype=np.int64)
    return sparse.csr_matrix((data, dst[order], indptr), shape=(n, n))


def dgl_shortest_dist(src, dst, n, root=None, return_paths=False):
    """``dgl.shortest_dist`` (python/dgl/transforms/functional.py), written out."""
    from scipy import sparse

    adj = dgl_adjacency(src, dst, n)
    if root is None:
        dist, pred = sparse.csgraph.shortest_path(
            adj, return_predecessors=True, unweighted=True, directed=True
        )
    else:
        dist, pred = sparse.csgraph.dijkstra(
            adj, directed=True, indices=root, return_predecessors=True, unweighted=True
        )
    dist[np.isinf(dist)] = -1
    if not return_paths:
        return dist.astype(np.int64)
    first = {}  # edge_ids on DGL's out-CSR: the first match of the row, the smallest id
    for e in range(src.shape[0]):
        first.setdefault((int(src[e]), int(dst[e])), e)
    max_len = int(dist.max())
    roots = list(range(n)) if root is None else [root]
    paths = -np.ones([len(roots), n, max_len], dtype=np.int64)
    for a, i in enumerate(roots):
        p = pred[i] if root is None else pred
        for j in range(n):
            if p[j] < 0:
                continue
            nodes = [j]
            while nodes[-1] != i:
                nodes.append(p[nodes[-1]])
            nodes.reverse()
            for s in range(len(nodes) - 1):
                paths[a, j, s] = first[(nodes[s], nodes[s + 1])]
    if root is not None:
        paths = paths[0]
    return dist.astype(np.int64), paths


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_shortest_dist_ties_follow_dgl_adjacency(index_dtype):
    """Unsorted multigraphs with many equally short paths: SciPy's predecessors (and so
    the paths) depend on the CSR's column order and repeated entries, which must be DGL's."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        n = int(rng.integers(2, 12))
        m = int(rng.integers(0, 40))
        src = rng.integers(0, n, m).astype(index_dtype)
        dst = rng.integers(0, n, m).astype(index_dtype)
        g = make_graph((src, dst), num_nodes=n)
        s64, d64 = src.astype(np.int64), dst.astype(np.int64)
        dist, paths = shortest_dist(g, return_paths=True)
        rdist, rpaths = dgl_shortest_dist(s64, d64, n, return_paths=True)
        assert np.array_equal(dist, rdist)
        assert np.array_equal(paths, rpaths), (n, src.tolist(), dst.tolist())
        root = int(rng.integers(0, n))
        d1, p1 = shortest_dist(g, root=root, return_paths=True)
        r1, q1 = dgl_shortest_dist(s64, d64, n, root, return_paths=True)
        assert np.array_equal(d1, r1) and np.array_equal(p1, q1)


def test_shortest_dist_does_not_mutate_graph_edges():
    src, dst = np.array([2, 0, 1, 0]), np.array([1, 1, 2, 2])
    g = make_graph((src, dst))
    before = [np.asarray(a).copy() for a in g.edges()]
    shortest_dist(g, return_paths=True)
    assert all(np.array_equal(a, np.asarray(b)) for a, b in zip(before, g.edges()))


@pytest.mark.parametrize("index_dtype", [np.int8, np.uint8])
def test_spatial_encoder_narrow_dist(index_dtype):
    """``dist + 1`` must not wrap in a narrow dtype (int8 127 -> -128, uint8 255 -> 0)."""
    enc = agnn.SpatialEncoder(300, num_heads=2, rng=0)
    top = np.iinfo(index_dtype).max
    dist = np.array([[[0, 1], [top, -1 if index_dtype == np.int8 else 3]]], index_dtype)
    want = enc.embedding_table[np.clip(dist.astype(np.int64), -1, 300) + 1]
    assert np.array_equal(enc(dist), want)


@pytest.mark.parametrize("index_dtype", [np.int8, np.uint8])
def test_spatial_encoder3d_narrow_node_type(index_dtype):
    """``node_type + max_node_type + 3`` must not wrap in a narrow dtype."""
    enc = agnn.SpatialEncoder3d(4, num_heads=2, max_node_type=100, rng=0)
    rng = np.random.default_rng(1)
    enc.gamma = rng.standard_normal(enc.gamma.shape).astype(np.float32)
    enc.beta = rng.standard_normal(enc.beta.shape).astype(np.float32)
    coord = rng.standard_normal((1, 3, 3)).astype(np.float32)
    types = np.array([[30, 99, 5]], index_dtype)
    assert np.allclose(enc(coord, types), enc(coord, types.astype(np.int64)), rtol=1e-6)


@pytest.mark.parametrize("model_type", ["Transformer", "DeepSet"])
def test_lap_pos_encoder_k_only_binds_batch_norm(model_type):
    """DGL keeps ``k`` only in its ``BatchNorm1d``: without ``batch_norm`` a layer built
    with ``k=3`` takes pairs of any width, as DGL's does."""
    torch = pytest.importorskip("torch")
    from test_dgl_graph_transformer import LapPosEncoder as DGLLapPosEncoder
    from test_dgl_graph_transformer import randomize

    ref = randomize(DGLLapPosEncoder(model_type, 2, 3, 8, 2))
    ours = agnn.LapPosEncoder(model_type, 2, k=3, dim=8, n_head=2, dim_feedforward=2048)
    ours.load_state_dict(agnn.from_dgl(ref).state_dict())
    rng = np.random.default_rng(2)
    eigvals = rng.uniform(0, 2, (4, 5)).astype(np.float32)
    eigvecs = rng.standard_normal((4, 5)).astype(np.float32)
    with torch.no_grad():
        want = ref(torch.from_numpy(eigvals), torch.from_numpy(eigvecs)).numpy()
    assert np.allclose(ours(eigvals, eigvecs), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"LapPosEncoder: eigvals must have shape \[\*, 3\]"):
        agnn.LapPosEncoder(model_type, 2, k=3, dim=8, batch_norm=True)(eigvals, eigvecs)


@pytest.mark.parametrize("index_dtype", [np.int8, np.uint8, np.int16])
def test_degree_and_path_encoders_narrow_ids(index_dtype):
    """Degrees / distances in a narrow dtype give what their int64 copies give (clipped
    against bounds beyond the dtype's range)."""
    rng = np.random.default_rng(3)
    top = int(np.iinfo(index_dtype).max)
    deg = rng.integers(0, top + 1, (2, 2, 5)).astype(index_dtype)
    enc = agnn.DegreeEncoder(300, 4, rng=0)
    assert np.array_equal(enc(deg), enc(deg.astype(np.int64)))
    dist = rng.integers(0, top + 1, (1, 3, 3)).astype(index_dtype)
    path = rng.standard_normal((1, 3, 3, 300, 2)).astype(np.float32)
    penc = agnn.PathEncoder(300, 2, num_heads=2, rng=0)
    assert np.array_equal(penc(dist, path), penc(dist.astype(np.int64), path))
