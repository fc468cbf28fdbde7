"""PyG's ``NeighborLoader`` and DGL's ``NodeDataLoader`` / ``MultiLayerFullNeighborSampler``.

The batches are checked structurally against the original graph (every sampled edge is an
edge of it, relabelled consistently, at most ``k`` per node and hop, only new nodes
sampled on the next hop, attributes sliced by ``n_id`` / ``e_id``), and by the property
that makes them useful: with all neighbours (``-1``), a 2-layer model's rows for the seeds
equal its full-graph rows.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn
import arraygnn.nn as agnn
from arraygnn.data import Data
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.sampling import MultiLayerFullNeighborSampler, NeighborSampler, NodeDataLoader


def _data(n=60, e=400, seed=0, index_dtype=np.int64):
    rng = np.random.default_rng(seed)
    ei = np.stack([rng.integers(0, n, e), rng.integers(0, n, e)]).astype(index_dtype)
    ei[:, :3] = [[5, 5, 7], [5, 6, 6]]  # a self-loop and a multi-edge
    return Data(
        x=rng.standard_normal((n, 4)).astype(np.float32),
        edge_index=ei,
        edge_attr=rng.standard_normal((e, 2)).astype(np.float32),
        y=rng.integers(0, 3, n),
        num_nodes=n,
    )


def _check_batch(data, batch, fanouts, seeds):
    ei = data.edge_index
    n_id, e_id = batch.n_id, batch.e_id
    bs = batch.batch_size
    assert bs == len(seeds) and n_id[:bs].tolist() == list(seeds)
    assert batch.num_nodes == len(n_id) == sum(batch.num_sampled_nodes)
    assert batch.num_sampled_nodes[0] == bs
    assert len(batch.num_sampled_edges) == len(fanouts)
    assert sum(batch.num_sampled_edges) == batch.edge_index.shape[1] == len(e_id)
    assert len(set(n_id[bs:].tolist())) == len(n_id) - bs  # each non-seed node once
    assert not set(n_id[bs:].tolist()) & set(seeds)
    # each sampled edge is the original edge e_id[k], relabelled by n_id
    np.testing.assert_array_equal(n_id[batch.edge_index[0]], ei[0, e_id])
    np.testing.assert_array_equal(n_id[batch.edge_index[1]], ei[1, e_id])
    np.testing.assert_array_equal(batch.x, data.x[n_id])
    np.testing.assert_array_equal(batch.y, data.y[n_id])
    np.testing.assert_array_equal(batch.edge_attr, data.edge_attr[e_id])
    # hop by hop: the targets of hop h are the nodes new in hop h - 1, <= k edges each
    node_start = np.cumsum([0] + batch.num_sampled_nodes)
    edge_start = np.cumsum([0] + batch.num_sampled_edges)
    for h, k in enumerate(fanouts):
        cols = batch.edge_index[1, edge_start[h] : edge_start[h + 1]]
        first_new = node_start[h] if h else 0
        assert ((cols >= first_new) & (cols < node_start[h + 1])).all()
        counts = np.bincount(cols, minlength=len(n_id))
        in_deg = np.bincount(ei[1], minlength=data.num_nodes)[n_id]
        expected = in_deg if k < 0 else np.minimum(in_deg, k)
        hop_nodes = np.arange(first_new, node_start[h + 1])  # every copy of a repeated seed
        np.testing.assert_array_equal(counts[hop_nodes], expected[hop_nodes])
        # new nodes of this hop are exactly the sources not seen before
        srcs = batch.edge_index[0, edge_start[h] : edge_start[h + 1]]
        new = np.arange(node_start[h + 1], node_start[h + 2])
        assert set(new.tolist()) <= set(srcs.tolist())


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fanouts", [[3, 2], [-1], [2, 0, 1]])
def test_neighbor_loader_batches_are_sampled_subgraphs(fanouts, index_dtype):
    data = _data(index_dtype=index_dtype)
    ei_before, x_before = data.edge_index.copy(), data.x.copy()
    loader = NeighborLoader(
        data, fanouts, batch_size=16, shuffle=True, seed=3, node_attrs=["x", "y"]
    )
    assert len(loader) == 4
    seen = []
    for batch in loader:
        seeds = loader.input_nodes[batch.input_id]
        _check_batch(data, batch, fanouts, seeds.tolist())
        seen.extend(seeds.tolist())
    assert sorted(seen) == list(range(60))  # every seed once per epoch
    np.testing.assert_array_equal(data.edge_index, ei_before)
    np.testing.assert_array_equal(data.x, x_before)


def test_neighbor_loader_full_neighbourhoods_give_full_graph_outputs():
    """With every in-edge on every hop, a 2-layer SAGE (mean) computes each seed from its
    complete 2-hop in-neighbourhood: the seeds' rows equal the full-graph rows."""
    data = _data(n=80, e=500, seed=1)
    l1, l2 = agnn.SAGEConv(4, 8, rng=0), agnn.SAGEConv(8, 3, rng=1)
    full = l2(np.maximum(l1(data.x, data.edge_index), 0), data.edge_index)
    mask = np.zeros(80, bool)
    mask[::3] = True
    loader = NeighborLoader(data, [-1, -1], input_nodes=mask, batch_size=7, node_attrs=["x", "y"])
    rows = []
    for batch in loader:
        out = l2(np.maximum(l1(batch.x, batch.edge_index), 0), batch.edge_index)
        rows.append(out[: batch.batch_size])
        np.testing.assert_array_equal(  # a mask: its node ids are the input_id (PyG)
            batch.input_id, np.flatnonzero(mask)[len(rows) * 7 - 7 : len(rows) * 7]
        )
    np.testing.assert_allclose(np.concatenate(rows), full[mask], rtol=1e-5, atol=1e-6)


def test_neighbor_loader_seeds_reproducibility_and_edge_cases():
    data = _data()
    a = [b.e_id for b in NeighborLoader(data, [2, 2], batch_size=20, seed=5, node_attrs=["x", "y"])]
    b = [b.e_id for b in NeighborLoader(data, [2, 2], batch_size=20, seed=5, node_attrs=["x", "y"])]
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    # repeated seeds keep their places; every copy gets the (once sampled) in-edges
    loader = NeighborLoader(data, [2, 2], input_nodes=np.array([5, 5, 6, 5]), batch_size=4,
                            node_attrs=["x", "y"])  # fmt: skip
    batch = next(iter(loader))
    assert batch.n_id[:4].tolist() == [5, 5, 6, 5]
    _check_batch(data, batch, [2, 2], [5, 5, 6, 5])
    first_hop = batch.edge_index[:, : batch.num_sampled_edges[0]]
    into = [sorted(batch.e_id[: batch.num_sampled_edges[0]][first_hop[1] == p]) for p in range(4)]
    assert into[0] == into[1] == into[3] and len(into[0]) == 2
    conv = agnn.SAGEConv(4, 3, rng=0)
    full = conv(data.x, data.edge_index)
    rows = conv(batch.x, batch.edge_index)[:4]
    whole = NeighborLoader(data, [-1], input_nodes=np.array([5, 5, 6, 5]), batch_size=4,
                           node_attrs=["x", "y"])  # fmt: skip
    b = next(iter(whole))
    np.testing.assert_allclose(conv(b.x, b.edge_index)[:4], full[[5, 5, 6, 5]], rtol=1e-5)
    assert rows.shape == (4, 3)
    # an empty list of seeds
    assert len(NeighborLoader(data, [2], input_nodes=[], node_attrs=["x", "y"])) == 0
    # drop_last, no hops, a graph without edges, an isolated seed
    assert len(NeighborLoader(data, [1], batch_size=25, drop_last=True, node_attrs=["x", "y"])) == 2
    batch = next(iter(NeighborLoader(data, [], batch_size=4, node_attrs=["x", "y"])))
    assert batch.edge_index.shape == (2, 0) and batch.num_nodes == 4
    empty = Data(x=np.ones((5, 2)), edge_index=np.zeros((2, 0), np.int64))
    batch = next(iter(NeighborLoader(empty, [3, 3], batch_size=5)))
    assert batch.num_sampled_nodes == [5, 0, 0] and batch.num_sampled_edges == [0, 0]
    # non-array attributes pass through; excluded ones go
    data.name = "toy"
    batch = next(iter(NeighborLoader(data, [1], node_attrs=["x"], exclude_keys=["y"])))
    assert batch.name == "toy" and "y" not in batch.keys()


def test_neighbor_loader_bad_input_is_named():
    data = _data()
    with pytest.raises(ValueError, match=r"\['y'\] are neither node nor edge attributes"):
        NeighborLoader(data, [2])
    with pytest.raises(ValueError, match="has no attribute 'z'"):
        NeighborLoader(data, [2], node_attrs=["x", "z"])
    with pytest.raises(ValueError, match="node attribute 'edge_attr' must have 60 rows"):
        NeighborLoader(data, [2], node_attrs=["x", "edge_attr", "y"], edge_attrs=[])
    with pytest.raises(ValueError, match="named as node and as edge"):
        NeighborLoader(data, [2], node_attrs=["x", "y", "edge_attr"])
    with pytest.raises(ValueError, match="num_neighbors\\[1\\] must be >= -1"):
        NeighborLoader(data, [2, -3], node_attrs=["x", "y"])
    with pytest.raises(TypeError, match="num_neighbors must be a list"):
        NeighborLoader(data, 2, node_attrs=["x", "y"])
    with pytest.raises(ValueError, match="input_nodes has node 60"):
        NeighborLoader(data, [2], input_nodes=np.array([60]), node_attrs=["x", "y"])
    with pytest.raises(ValueError, match="boolean input_nodes mask must have 60"):
        NeighborLoader(data, [2], input_nodes=np.ones(5, bool), node_attrs=["x", "y"])
    with pytest.raises(ValueError, match="subgraph_type must be 'directional', 'bidi"):
        NeighborLoader(data, [2], subgraph_type="inducted", node_attrs=["x", "y"])
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        NeighborLoader(data, [2], batch_size=0, node_attrs=["x", "y"])
    with pytest.raises(TypeError, match="must be a Data"):
        NeighborLoader({"x": 1}, [2])


def test_node_data_loader_and_full_neighbor_sampler():
    data = _data(n=50, e=300, seed=2)
    g = arraygnn.graph((data.edge_index[0], data.edge_index[1]), num_nodes=50)
    g.ndata["x"] = data.x
    sampler = MultiLayerFullNeighborSampler(2)
    loader = NodeDataLoader(g, np.arange(50), sampler, batch_size=8, shuffle=True, seed=0)
    assert len(loader) == 7
    conv1, conv2 = agnn.SAGEConv(4, 6, rng=0), agnn.SAGEConv(6, 2, rng=1)
    full = conv2(g, np.maximum(conv1(g, data.x), 0))
    seen = []
    for input_nodes, output_nodes, blocks in loader:
        h = np.maximum(conv1(blocks[0], data.x[input_nodes]), 0)
        out = conv2(blocks[1], h)
        np.testing.assert_allclose(out, full[output_nodes], rtol=1e-5, atol=1e-6)
        seen.extend(output_nodes.tolist())
    assert sorted(seen) == list(range(50))
    mask = np.zeros(50, bool)
    mask[:10] = True
    loader = NodeDataLoader(g, mask, NeighborSampler([2], seed=0), batch_size=4, drop_last=True)
    assert [out.tolist() for _, out, _ in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    hetero = arraygnn.heterograph(
        {("a", "r", "b"): (np.array([0, 1]), np.array([0, 1])),
         ("b", "s", "a"): (np.array([1, 0]), np.array([0, 1]))}
    )  # fmt: skip
    loader = NodeDataLoader(hetero, {"a": np.array([0, 1]), "b": np.array([1])},
                            NeighborSampler([-1]), batch_size=2)  # fmt: skip
    outs = [out for _, out, _ in loader]
    assert [sorted(o) for o in outs] == [["a"], ["b"]]
    assert outs[0]["a"].tolist() == [0, 1] and outs[1]["b"].tolist() == [1]
    with pytest.raises(TypeError, match="sample_blocks"):
        NodeDataLoader(g, np.arange(5), object())
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        NodeDataLoader(g, np.arange(5), sampler, batch_size=0)
    with pytest.raises(ValueError, match="num_layers must be >= 1"):
        MultiLayerFullNeighborSampler(0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("size", [0, 1, 50, 2000])
def test_number_new_matches_the_sort_based_numbering(dtype, size):
    """The one-pass Numba numbering of a hop's new nodes equals unique-by-first-sight."""
    from arraygnn.neighbor_loader import _first_occurrences, number_new

    rng = np.random.default_rng(size)
    ids = rng.integers(0, 300, size).astype(dtype)  # repeats, and some already numbered
    local = np.full(300, -1, dtype=np.int64)
    local[rng.choice(300, 40, replace=False)] = np.arange(40)
    expected_local = local.copy()
    new = ids[expected_local[ids] < 0]
    fresh_expected = new[_first_occurrences(np, new)]
    expected_local[fresh_expected] = np.arange(40, 40 + fresh_expected.shape[0])
    ids_before = ids.copy()
    fresh = number_new(np, local, ids, 40)
    assert fresh.dtype == ids.dtype
    np.testing.assert_array_equal(fresh, fresh_expected)
    np.testing.assert_array_equal(local, expected_local)
    np.testing.assert_array_equal(ids, ids_before)


def test_loaders_apply_transform_to_every_batch():
    """PyG's loader ``transform``: every yielded batch goes through it (all four loaders);
    a non-callable is a TypeError."""
    from arraygnn.hetero_data import HeteroData
    from arraygnn.link_neighbor_loader import LinkNeighborLoader

    def mark(batch):
        out = batch.copy()
        out.marked = True
        return out

    rng = np.random.default_rng(0)
    ei = rng.integers(0, 30, (2, 120))
    d = Data(x=rng.random((30, 4)), edge_index=ei)
    loaders = [
        NeighborLoader(d, [3, 2], batch_size=8, seed=0, transform=mark),
        LinkNeighborLoader(d, [3], batch_size=16, seed=0, transform=mark),
    ]
    h = HeteroData(a={"x": rng.random((30, 4))})
    h["a", "to", "a"].edge_index = ei
    loaders.append(NeighborLoader(h, [3], input_nodes="a", batch_size=8, seed=0, transform=mark))
    loaders.append(
        LinkNeighborLoader(
            h, [3], edge_label_index=("to", None), batch_size=16, seed=0, transform=mark
        )  # fmt: skip
    )
    for loader in loaders:
        batches = list(loader)
        assert batches and all(getattr(b, "marked", False) for b in batches), type(loader)
    with pytest.raises(TypeError, match="transform must be callable"):
        NeighborLoader(d, [3], batch_size=8, transform="mark")
