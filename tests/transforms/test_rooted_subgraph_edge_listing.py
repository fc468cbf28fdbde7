"""The host path of ``rooted_layout`` lists each subgraph's edges per node (each edge filed
under its endpoint of lower degree) instead of the [N, E] column products of the
membership, which held ~10^10 entries on a 50k-node power-law graph; ``RootedEgoNets``
finds its membership by a breadth-first search per root instead of sparse matrix powers.
Pinned here: the same layout as PyG and as the column-product formula on hub-heavy graphs
with loops and parallel edges (where the filing by degree matters)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.data import Data
from arraygnn.transforms import RootedEgoNets
from arraygnn.transforms.rooted_subgraph import rooted_layout

KEYS = ("sub_edge_index", "n_id", "e_id", "n_sub_batch", "e_sub_batch")


def _hub_graph(seed: int, n: int = 24, e: int = 90) -> np.ndarray:
    rng = np.random.default_rng(seed)
    hub = rng.random(e) < 0.5  # half the edges touch node 3, in or out
    src = np.where(hub & (rng.random(e) < 0.5), 3, rng.integers(0, n, e))
    dst = np.where(hub & (src != 3), 3, rng.integers(0, n, e))
    ei = np.stack([src, dst])
    return np.concatenate([ei, ei[:, :7], np.array([[5, 3], [5, 3]])], axis=1)  # repeats, loops


def _column_products(edge_index, n, member):
    """The layout by PyG's formula on a sparse membership (the CuPy path's maths)."""
    member = sp.csr_matrix(member, dtype=np.float32)
    member.sum_duplicates()
    member.eliminate_zeros()
    member.sort_indices()
    coo = member.tocoo()
    n_sub_batch, n_id = coo.row.astype(np.int64), coo.col.astype(np.int64)
    src, dst = edge_index[0], edge_index[1]
    both = member[:, src].multiply(member[:, dst]).tocsr()
    both.eliminate_zeros()
    both.sort_indices()
    ecoo = both.tocoo()
    e_sub, e_id = ecoo.row.astype(np.int64), ecoo.col.astype(np.int64)
    keys = n_sub_batch * n + n_id
    sub = np.searchsorted(keys, np.stack([e_sub * n + src[e_id], e_sub * n + dst[e_id]]))
    return sub, n_id, e_id, n_sub_batch, e_sub


@pytest.mark.parametrize("hops", [0, 1, 3])
def test_rooted_ego_nets_on_hub_graphs_match_pyg(hops):
    torch = pytest.importorskip("torch")
    pyg_t = pytest.importorskip("torch_geometric.transforms")
    from torch_geometric.data import Data as PygData

    for seed in range(3):
        ei = _hub_graph(seed)
        ours = RootedEgoNets(hops)(Data(edge_index=ei, num_nodes=24))
        theirs = pyg_t.RootedEgoNets(hops)(PygData(edge_index=torch.from_numpy(ei), num_nodes=24))
        for key in KEYS:
            np.testing.assert_array_equal(ours[key], theirs[key].numpy(), err_msg=key)


def test_rooted_layout_matches_column_products_for_any_membership():
    rng = np.random.default_rng(0)
    ei = _hub_graph(4, n=15, e=50)
    rows, cols = rng.integers(0, 15, 120), rng.integers(0, 15, 120)
    vals = rng.integers(0, 3, 120).astype(np.float32)  # zeros and repeated entries
    member = sp.coo_matrix((vals, (rows, cols)), shape=(15, 15))
    got = rooted_layout(ei.astype(np.int32), 15, member)
    want = _column_products(ei, 15, member)
    assert got[0].dtype == np.int32
    for key, a, b in zip(KEYS, got, want):
        np.testing.assert_array_equal(a, b, err_msg=key)
    empty = rooted_layout(np.zeros((2, 0), np.int64), 0, sp.csr_matrix((0, 0)))
    assert [a.shape for a in empty] == [(2, 0), (0,), (0,), (0,), (0,)]


def test_rooted_ego_nets_search_matches_sparse_powers():
    ei = _hub_graph(5, n=20, e=60)
    for hops in (0, 1, 2, 4):
        t = RootedEgoNets(hops)
        got = t.extract(Data(edge_index=ei, num_nodes=20))
        want = rooted_layout(ei, 20, t._membership(ei, 20))  # (I + A^T)^hops by SciPy
        for key, a, b in zip(KEYS, got, want):
            np.testing.assert_array_equal(a, b, err_msg=f"{key}, hops={hops}")
