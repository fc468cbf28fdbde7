"""PyG's ``conv(x, adj_t)`` with ``ToSparseTensor``'s SciPy ``adj_t`` ([N_dst, N_src], row =
target): every layer reads it as the edges it holds; weighted entries and a wrong shape are
refused by name."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import arraygnn.nn as nn
import arraygnn.transforms as T
from arraygnn.data import Data


def _data():
    rng = np.random.default_rng(0)
    ei = np.array([[0, 1, 2, 3, 0, 4, 2], [1, 2, 3, 4, 4, 0, 2]])
    return Data(x=rng.random((5, 4)).astype(np.float32), edge_index=ei)


@pytest.mark.parametrize(
    "make",
    [
        lambda: nn.GCNConv(4, 3),
        lambda: nn.SAGEConv(4, 3),
        lambda: nn.GATConv(4, 3, heads=2),
        lambda: nn.GINConv(nn.MLP([4, 3])),
        lambda: nn.TransformerConv(4, 3),
    ],
)
def test_adj_t_equals_edge_index(make):
    d = _data()
    conv = make()
    adj_t = T.ToSparseTensor()(d).adj_t
    assert sp.issparse(adj_t) and adj_t.shape == (5, 5)
    np.testing.assert_allclose(conv(d.x, adj_t), conv(d.x, d.edge_index), rtol=1e-6, atol=1e-7)


def test_bipartite_adj_t_and_refusals():
    rng = np.random.default_rng(1)
    xs, xd = rng.random((4, 3)).astype(np.float32), rng.random((2, 3)).astype(np.float32)
    ei = np.array([[0, 1, 3], [0, 1, 1]])
    adj_t = sp.csr_matrix((np.ones(3), (ei[1], ei[0])), shape=(2, 4))
    conv = nn.SAGEConv((3, 3), 5)
    np.testing.assert_allclose(conv((xs, xd), adj_t), conv((xs, xd), ei), rtol=1e-6)
    with pytest.raises(ValueError, match=r"SAGEConv: adj_t has shape \(4, 2\)"):
        conv((xs, xd), adj_t.T.tocsr())
    weighted = sp.csr_matrix((np.array([1.0, 2.0, 1.0]), (ei[1], ei[0])), shape=(2, 4))
    with pytest.raises(ValueError, match="SAGEConv: adj_t holds values other than 1"):
        conv((xs, xd), weighted)


def test_matches_pyg_with_torch_sparse_adj_t():
    """Without self-loops in the graph: PyG's torch.sparse path adds a loop on top of an
    existing one (its edge_index and SparseTensor paths, and ours, replace it)."""
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    d = _data()
    d.edge_index = d.edge_index[:, d.edge_index[0] != d.edge_index[1]]
    ref = tg.nn.GCNConv(4, 3)
    ours = nn.from_pyg(ref)
    adj_t = torch.sparse_coo_tensor(
        torch.from_numpy(d.edge_index[::-1].copy()), torch.ones(d.edge_index.shape[1]), (5, 5)
    ).to_sparse_csr()
    with torch.no_grad():
        want = ref(torch.from_numpy(d.x), adj_t).numpy()
    got = ours(d.x, T.ToSparseTensor()(d).adj_t)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
