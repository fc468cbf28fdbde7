"""to_pyg / from_pyg: shared tensors, PyG can split our batches and we can split PyG's."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tgd = pytest.importorskip("torch_geometric.data")

from arraygnn.batch import Batch  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.interop import HandoffCopyError, from_pyg, to_pyg  # noqa: E402


def random_graphs(seed=0, sizes=(3, 0, 5, 1)):
    rng = np.random.default_rng(seed)
    graphs = []
    for i, n in enumerate(sizes):
        e = 2 * n
        graphs.append(
            Data(
                x=rng.random((n, 4)).astype(np.float32),
                edge_index=rng.integers(0, max(n, 1), (2, e if n else 0)).astype(np.int64),
                edge_attr=rng.random((e if n else 0, 2)).astype(np.float32),
                y=float(i),
            )
        )
    return graphs


def test_data_round_trip_shares_memory():
    g = random_graphs()[0]
    p, rep = to_pyg(g, report=True)
    assert isinstance(p, tgd.Data) and not isinstance(p, tgd.Batch)
    assert rep.zero_copy
    assert p.x.data_ptr() == g.x.ctypes.data
    assert p.edge_index.data_ptr() == g.edge_index.ctypes.data
    assert p.num_nodes == 3 and p.num_edges == 6
    back, rep = from_pyg(p, report=True)
    assert type(back) is Data and rep.zero_copy
    assert back.x.ctypes.data == g.x.ctypes.data
    assert back.y == 0.0


def test_data_without_x_gets_explicit_num_nodes():
    g = Data(edge_index=np.array([[0], [1]]), num_nodes=7)
    p = to_pyg(g)
    assert p.num_nodes == 7
    assert from_pyg(p).num_nodes == 7


def test_our_batch_splits_in_pyg_like_pyg_collation():
    graphs = random_graphs()
    ours = to_pyg(Batch.from_data_list(graphs))
    ref = tgd.Batch.from_data_list([to_pyg(g) for g in graphs])
    assert isinstance(ours, tgd.Batch) and ours.num_graphs == ref.num_graphs == 4
    for key in ("x", "edge_index", "edge_attr", "batch", "ptr"):
        assert torch.equal(ours[key], ref[key]), key
    for i in range(4):
        a, b = ours.get_example(i), ref.get_example(i)
        for key in ("x", "edge_index", "edge_attr", "y"):
            assert torch.equal(a[key], b[key]), (i, key)


def test_pyg_batch_splits_here():
    graphs = random_graphs(seed=1)
    ref = tgd.Batch.from_data_list([to_pyg(g) for g in graphs])
    ours, rep = from_pyg(ref, report=True)
    assert type(ours) is Batch and ours.num_graphs == 4 and rep.zero_copy
    assert ours.x.ctypes.data == ref.x.data_ptr()
    for i, g in enumerate(ours.to_data_list()):
        np.testing.assert_array_equal(g.x, graphs[i].x)
        np.testing.assert_array_equal(g.edge_index, graphs[i].edge_index)


def test_batch_with_explicit_num_nodes_both_ways():
    graphs = [
        Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=4),
        Data(edge_index=np.array([[0], [1]]), num_nodes=2),
    ]
    p = to_pyg(Batch.from_data_list(graphs))
    assert [d.num_nodes for d in p.to_data_list()] == [4, 2]
    ref = tgd.Batch.from_data_list([to_pyg(g) for g in graphs])
    back = from_pyg(ref).to_data_list()
    assert [d.num_nodes for d in back] == [4, 2]
    np.testing.assert_array_equal(back[1].edge_index, [[0], [1]])


def test_strict_and_bad_input():
    g = Data(x=np.arange(6.0).reshape(3, 2)[::-1])
    with pytest.raises(HandoffCopyError, match="negative strides"):
        to_pyg(g, strict=True)
    with pytest.raises(TypeError, match="arraygnn Data"):
        to_pyg({"x": np.ones(2)})
    from arraygnn.hetero_data import HeteroData

    assert isinstance(from_pyg(tgd.HeteroData()), HeteroData)  # converted, no longer refused
    with pytest.raises(TypeError, match="torch_geometric"):
        from_pyg(Data(x=np.ones(2)))
