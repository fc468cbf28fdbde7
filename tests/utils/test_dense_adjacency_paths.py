"""``to_dense_adj`` on mostly empty outputs sums the edges of each occupied cell and places
them in zeros (a scatter over all N_max^2 cells cost 15x PyG's time on a 3,000-node graph);
``dense_to_sparse`` finds the entries in one flat pass. Pinned: the same bits as the
all-cells scatter and PyG's values, with parallel edges, feature dimensions, dropped edges
and a batch; ``dense_to_sparse`` as PyG on strided, batched and masked inputs."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.utils.dense as dense
from arraygnn.utils import dense_to_sparse, to_dense_adj


def _cases():
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 40, (2, 30))
    ei = np.concatenate([ei, ei[:, :6]], axis=1)  # parallel edges add up
    attr = rng.standard_normal((36, 2, 3)).astype(np.float32)
    batch = np.repeat(np.arange(4), 10)
    local = ei[:, (ei[0] // 10) == (ei[1] // 10)]
    yield (ei,), {}
    yield (ei,), {"edge_attr": attr, "max_num_nodes": 25}  # edges beyond 25 dropped
    yield (local, batch), {"edge_attr": rng.standard_normal(local.shape[1])}
    yield (local, batch), {"max_num_nodes": 6, "batch_size": 5}


def test_to_dense_adj_sparse_cells_same_bits_as_full_scatter(monkeypatch):
    for args, kwargs in _cases():
        sparse = to_dense_adj(*args, **kwargs)
        monkeypatch.setattr(dense, "_SPARSE_CELLS", 10**9)  # the all-cells scatter
        full = to_dense_adj(*args, **kwargs)
        monkeypatch.undo()
        assert sparse.dtype == full.dtype and sparse.shape == full.shape
        np.testing.assert_array_equal(sparse, full)


def test_to_dense_adj_sparse_cells_match_pyg():
    torch = pytest.importorskip("torch")
    pyg_utils = pytest.importorskip("torch_geometric.utils")
    for args, kwargs in _cases():
        ours = to_dense_adj(*args, **kwargs)
        targs = [torch.from_numpy(a) for a in args]
        tkw = {
            k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()
        }
        theirs = pyg_utils.to_dense_adj(*targs, **tkw).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_dense_to_sparse_flat_pass_matches_pyg():
    torch = pytest.importorskip("torch")
    pyg_utils = pytest.importorskip("torch_geometric.utils")
    rng = np.random.default_rng(1)
    adj = rng.integers(-1, 2, (3, 5, 5)).astype(np.float32)
    mask = np.arange(5)[None, :] < np.array([[5], [2], [4]])
    for args in ((adj[0],), (adj[0][:, ::2],), (adj,), (adj, mask)):
        ei, attr = dense_to_sparse(*args)
        want_ei, want_attr = pyg_utils.dense_to_sparse(*[torch.from_numpy(a.copy()) for a in args])
        np.testing.assert_array_equal(ei, want_ei.numpy())
        np.testing.assert_array_equal(attr, want_attr.numpy())
        assert ei.dtype == np.int64 and attr.dtype == np.float32
