"""A node store holds per-node values: the heterogeneous loaders slice every array of a
node store by default (``data['paper'].y``, ``train_mask``, as PyG's OGB-MAG tutorial),
while edge stores keep the named-attribute rule."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.hetero_data import HeteroData
from arraygnn.loader import HGTLoader, LinkNeighborLoader, NeighborLoader


def _mag():
    rng = np.random.default_rng(0)
    d = HeteroData()
    d["paper"].x = rng.random((8, 3)).astype(np.float32)
    d["paper"].y = np.arange(8) % 3
    d["paper"].train_mask = np.arange(8) < 5
    d["paper"].year = np.arange(2000, 2008)
    d["author"].num_nodes = 5
    d["author"].deg = np.arange(5.0)
    src, dst = rng.integers(0, 5, 16), rng.integers(0, 8, 16)
    d["author", "writes", "paper"].edge_index = np.stack([src, dst])
    d["paper", "rev_writes", "author"].edge_index = np.stack([dst, src])
    return d


def _check_node_rows(d, batch):
    for t, keys in (("paper", ("x", "y", "train_mask", "year")), ("author", ("deg",))):
        n_id = batch[t].n_id
        for k in keys:
            np.testing.assert_array_equal(batch[t][k], d[t][k][n_id])


def test_neighbor_and_hgt_loaders_slice_every_node_store_array():
    d = _mag()
    loader = NeighborLoader(
        d, [2, 2], input_nodes=("paper", d["paper"].train_mask), batch_size=2, seed=0
    )
    for batch in loader:
        _check_node_rows(d, batch)
    for batch in HGTLoader(d, num_samples=[3], input_nodes="paper", batch_size=3, seed=0):
        _check_node_rows(d, batch)


def test_link_loader_slices_node_store_arrays_but_names_edge_ones():
    d = _mag()
    batch = next(iter(LinkNeighborLoader(d, [2], edge_label_index="writes", batch_size=4, seed=0)))
    _check_node_rows(d, batch)
    d["author", "writes", "paper"].score = np.ones(16)  # edge stores: still named
    with pytest.raises(ValueError, match=r"edge type .*'writes'.*\['score'\]"):
        LinkNeighborLoader(d, [2], edge_label_index="writes")


def test_narrowing_and_bad_rows():
    d = _mag()
    batch = next(
        iter(
            NeighborLoader(
                d,
                [1],
                input_nodes="paper",
                node_attrs=["x", "y"],
                exclude_keys=["train_mask", "year", "deg"],
            )
        )
    )
    assert "train_mask" not in batch["paper"] and "y" in batch["paper"]
    with pytest.raises(ValueError, match=r"node type 'paper': \['train_mask', 'year'\]"):
        NeighborLoader(d, [1], input_nodes="paper", node_attrs=["x", "y", "deg"])
    d["paper"].odd = np.zeros(7)
    with pytest.raises(ValueError, match="attribute 'odd' must have 8 rows.*exclude_keys="):
        NeighborLoader(d, [1], input_nodes="paper")
    assert NeighborLoader(d, [1], input_nodes="paper", exclude_keys=["odd"]) is not None


def test_zero_d_arrays_in_stores_are_kept_as_pyg():
    d = _mag()
    d["paper"].scale = np.float32(2.0) * np.ones((), np.float32)  # a 0-d array
    d["author", "writes", "paper"].tag = np.array(3)
    batch = next(iter(NeighborLoader(d, [1], input_nodes="paper", batch_size=2, seed=0)))
    assert batch["paper"].scale == 2.0 and batch["author", "writes", "paper"].tag == 3
