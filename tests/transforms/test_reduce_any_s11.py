"""``reduce='any'`` (one value of each merged group: the last in edge order) in
``ToUndirected``, ``RemoveDuplicatedEdges`` and ``Data.coalesce``, against PyG 2.8.1.

PyG's pick is the last of each group after ``torch.sort(stable=False)`` (its ``coalesce``
without pyg_lib): the last in edge order while torch sorts at most 16 keys (an insertion
sort), any of the group beyond. So PyG's values are compared exactly on graphs of at most
16 edge entries, and larger ones only need each value to be one of its group's."""

from __future__ import annotations

import numpy as np
import pytest
from _structure_helpers import hetero_to_pyg, random_graph, run, snapshot, to_pyg

import arraygnn.transforms as T
from arraygnn.hetero_data import HeteroData

pyg_T = pytest.importorskip("torch_geometric.transforms")
pyg_utils = pytest.importorskip("torch_geometric.utils")
torch = pytest.importorskip("torch")


def _graph(seed: int = 0, e: int = 8):
    rng = np.random.default_rng(seed)
    d = random_graph(seed, n=6, e=e)  # a self-loop, parallel edges, two isolated nodes
    e = d.edge_index.shape[1]
    d.edge_attr = rng.standard_normal((e, 2)).astype(np.float32)
    d.edge_weight = rng.standard_normal(e).astype(np.float32)
    return d


def test_to_undirected_and_remove_duplicated_edges_any():
    d = _graph()
    run(T.ToUndirected(reduce="any"), pyg_T.ToUndirected(reduce="any"), d)
    out = run(T.RemoveDuplicatedEdges(reduce="any"), pyg_T.RemoveDuplicatedEdges(reduce="any"), d)
    assert out.edge_index.shape[1] < d.edge_index.shape[1]  # something was merged
    assert "any" in repr(T.ToUndirected(reduce="any"))


def test_to_undirected_any_on_more_edges_picks_one_of_each_group():
    d = _graph(3, e=30)
    ours = T.ToUndirected(reduce="any")(d)
    theirs = pyg_T.ToUndirected(reduce="any")(to_pyg(d))
    np.testing.assert_array_equal(ours.edge_index, theirs.edge_index.numpy())
    both = np.concatenate([d.edge_index, d.edge_index[::-1]], axis=1)
    weights = np.concatenate([d.edge_weight, d.edge_weight])
    for (u, v), mine, pyg_value in zip(
        ours.edge_index.T, ours.edge_weight, theirs.edge_weight.numpy()
    ):
        group = weights[(both[0] == u) & (both[1] == v)]
        assert mine == group[-1] and pyg_value in group  # ours: the last in edge order


def test_to_undirected_any_hetero():
    d = _graph(1)
    h = HeteroData()
    h["a"].x = d.x
    h["a", "to", "a"].edge_index = d.edge_index
    h["a", "to", "a"].edge_attr = d.edge_attr
    ours = T.ToUndirected(reduce="any")(h.copy())
    theirs = pyg_T.ToUndirected(reduce="any")(hetero_to_pyg(h))
    for key in ("edge_index", "edge_attr"):
        np.testing.assert_array_equal(ours["a", "to", "a"][key], theirs["a", "to", "a"][key])


def test_data_coalesce_any():
    """PyG's ``Data.coalesce()`` takes no ``reduce`` (it sums ``edge_attr``); arraygnn's
    reduces every edge attribute with it, as ``torch_geometric.utils.coalesce`` does."""
    d = _graph(2)
    snap = snapshot(d)
    out = d.coalesce(reduce="any")
    assert all(v is d[k[1]] for k, (v, _) in snap.items())
    ei, (attr, weight) = pyg_utils.coalesce(
        torch.from_numpy(d.edge_index),
        [torch.from_numpy(d.edge_attr), torch.from_numpy(d.edge_weight)],
        d.num_nodes,
        reduce="any",
    )
    np.testing.assert_array_equal(out.edge_index, ei.numpy())
    np.testing.assert_array_equal(out.edge_attr, attr.numpy())
    np.testing.assert_array_equal(out.edge_weight, weight.numpy())
    with pytest.raises(ValueError, match="coalesce: reduce must be one of .*'any'"):
        d.coalesce(reduce="first")
