"""``num_nodes`` from PyG's node-count keys (``x``, ``feat``, ``pos``, ``batch``,
``node_type``, ``n_id``): a point cloud of ``pos`` alone knows its size and collates, as in
PyG; never ``edge_index.max() + 1``."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data, HeteroData


@pytest.mark.parametrize("key", ["x", "feat", "pos", "batch", "node_type", "n_id"])
def test_each_node_count_key_gives_num_nodes(key):
    d = Data(**{key: np.zeros((4, 3)) if key in ("x", "feat", "pos") else np.arange(4)})
    assert d.num_nodes == 4
    d.edge_index = np.array([[0, 9], [1, 2]])  # out of range: never read for the count
    assert d.num_nodes == 4


def test_other_keys_and_edge_index_give_no_count():
    d = Data(h=np.zeros((4, 3)), y=np.zeros(4), edge_index=np.array([[0, 1], [1, 2]]))
    assert d.num_nodes is None
    assert Data(pos=np.float32(1.0)).num_nodes is None  # a 0-d value has no rows
    assert Data(pos=np.zeros((4, 3)), num_nodes=7).num_nodes == 7  # explicit wins


def test_first_node_count_key_in_insertion_order_wins_as_pyg():
    d = Data(pos=np.zeros((5, 3)), x=np.zeros((4, 2)))
    assert d.num_nodes == 5
    with pytest.raises(ValueError, match=r"x has shape \[4, 2\] but num_nodes is 5"):
        d.validate()
    assert Data(pos=np.zeros((4, 3)), x=np.zeros((4, 2))).validate()


def test_pos_only_point_clouds_collate_like_pyg():
    rng = np.random.default_rng(0)
    graphs = []
    for n in (3, 5, 1):
        ei = rng.integers(0, n, (2, 2 * n))
        graphs.append(Data(pos=rng.random((n, 3)), edge_index=ei))
    b = Batch.from_data_list(graphs)
    assert b.num_nodes == 9 and b.num_graphs == 3
    assert b.batch.tolist() == [0, 0, 0, 1, 1, 1, 1, 1, 2]
    assert b.ptr.tolist() == [0, 3, 8, 9]
    back = b.to_data_list()
    for g, h in zip(graphs, back):
        np.testing.assert_array_equal(g.edge_index, h.edge_index)

    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    ref = tg.data.Batch.from_data_list(
        [
            tg.data.Data(pos=torch.from_numpy(g.pos), edge_index=torch.from_numpy(g.edge_index))
            for g in graphs
        ]
    )
    np.testing.assert_array_equal(b.edge_index, ref.edge_index.numpy())
    np.testing.assert_array_equal(b.batch, ref.batch.numpy())
    assert Data(pos=np.zeros((4, 3))).size() == tuple(tg.data.Data(pos=torch.zeros(4, 3)).size())


def test_hetero_node_store_counts_from_pos():
    d = HeteroData(a={"pos": np.zeros((3, 2))}, b={"x": np.zeros((2, 1))})
    d["a", "to", "b"].edge_index = np.array([[0, 2], [1, 1]])
    assert d["a"].num_nodes == 3 and d.num_nodes == 5
    assert d.validate()
    d["a"].x = np.zeros((4, 1))  # pos came first: num_nodes 3, x disagrees
    with pytest.raises(ValueError, match=r"node type 'a': x has shape \[4, 1\]"):
        d.validate()
