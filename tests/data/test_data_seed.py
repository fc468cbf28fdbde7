"""Every behaviour of seed 000 (PyG's batching guide), expected values = its printed outputs."""

import numpy as np

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.loader import DataLoader
from arraygnn.testing.asserts import assert_batch_invariants, assert_data_equal

rng = np.random.default_rng(0)


class PairData(Data):
    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index_s":
            return self.x_s.shape[0]
        if key == "edge_index_t":
            return self.x_t.shape[0]
        return super().__inc__(key, value, *args, **kwargs)


class BipartiteData(Data):
    def __inc__(self, key, value, *args, **kwargs):
        if key == "edge_index":
            return np.array([[self.x_s.shape[0]], [self.x_t.shape[0]]])
        return super().__inc__(key, value, *args, **kwargs)


class MyData(Data):
    def __cat_dim__(self, key, value, *args, **kwargs):
        if key == "foo":
            return None
        return super().__cat_dim__(key, value, *args, **kwargs)


def pair_data():
    x_s = rng.standard_normal((5, 16))  # 5 nodes.
    edge_index_s = np.array([[0, 0, 0, 0], [1, 2, 3, 4]])
    x_t = rng.standard_normal((4, 16))  # 4 nodes.
    edge_index_t = np.array([[0, 0, 0], [1, 2, 3]])
    return PairData(x_s=x_s, edge_index_s=edge_index_s, x_t=x_t, edge_index_t=edge_index_t)


def test_default_hooks_are_the_seeds():
    d = Data(x=np.zeros((3, 2)), edge_index=np.zeros((2, 0), np.int64))
    for key in ("edge_index", "face", "edge_index_s", "my_index_key", "faces"):
        assert d.__inc__(key, None) == 3
        # the seed shows 1, PyG 2.x returns -1: the same dim for a [2, E] edge_index
        assert d.__cat_dim__(key, None) == -1
    for key in ("x", "edge_attr", "y", "pos", "edge_weight"):
        assert d.__inc__(key, None) == 0
        assert d.__cat_dim__(key, None) == 0


def test_default_edge_index_increment():
    # "increment the edge_index tensor by the cumulated number of nodes ... concatenate
    # edge_index tensors in the second dimension"; other tensors along the first.
    g1 = Data(x=np.ones((3, 2)), edge_index=np.array([[0, 1], [1, 2]]), y=np.array([1.0]))
    g2 = Data(x=np.zeros((2, 2)), edge_index=np.array([[1], [0]]), y=np.array([2.0]))
    b = Batch.from_data_list([g1, g2])
    assert repr(b) == "DataBatch(x=[5, 2], edge_index=[2, 3], y=[2], batch=[5], ptr=[3])"
    assert b.edge_index.tolist() == [[0, 1, 4], [1, 2, 3]]
    assert b.batch.tolist() == [0, 0, 0, 1, 1]
    assert b.ptr.tolist() == [0, 3, 5]
    assert b.y.tolist() == [1.0, 2.0]
    assert b.num_graphs == 2


def test_pair_data():
    data = pair_data()
    batch = Batch.from_data_list([data, data])
    assert repr(batch) == (
        "PairDataBatch(x_s=[10, 16], edge_index_s=[2, 8], x_t=[8, 16], edge_index_t=[2, 6])"
    )
    assert batch.edge_index_s.tolist() == [[0, 0, 0, 0, 5, 5, 5, 5], [1, 2, 3, 4, 6, 7, 8, 9]]
    assert batch.edge_index_t.tolist() == [[0, 0, 0, 4, 4, 4], [1, 2, 3, 5, 6, 7]]
    # the batch vector is missing: num_nodes of a PairData is unknown
    assert "batch" not in batch and "ptr" not in batch
    for part in batch.to_data_list():
        assert_data_equal(part, data)


def test_pair_data_follow_batch_through_loader():
    data = pair_data()
    loader = DataLoader([data, data], batch_size=2, follow_batch=["x_s", "x_t"])
    batch = next(iter(loader))
    # seed: PairDataBatch(x_s=[10, 16], edge_index_s=[2, 8], x_s_batch=[10],
    #                     x_t=[8, 16], edge_index_t=[2, 6], x_t_batch=[8])
    # (the seed prints the key order of PyG's storage; here <key>_batch follows <key>)
    assert type(batch).__name__ == "Batch" and repr(batch).startswith("PairDataBatch(")
    shapes = {k: list(batch[k].shape) for k in batch.keys()}
    assert shapes == {
        "x_s": [10, 16],
        "edge_index_s": [2, 8],
        "x_s_batch": [10],
        "x_s_ptr": [3],
        "x_t": [8, 16],
        "edge_index_t": [2, 6],
        "x_t_batch": [8],
        "x_t_ptr": [3],
    }
    assert batch.x_s_batch.tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert batch.x_t_batch.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert batch.x_s_ptr.tolist() == [0, 5, 10] and batch.x_t_ptr.tolist() == [0, 4, 8]
    assert batch.edge_index_s.tolist() == [[0, 0, 0, 0, 5, 5, 5, 5], [1, 2, 3, 4, 6, 7, 8, 9]]
    parts = batch.to_data_list()
    assert "x_s_batch" not in parts[0]
    assert_data_equal(parts[1], data)


def test_bipartite():
    x_s = rng.standard_normal((2, 16))  # 2 nodes.
    x_t = rng.standard_normal((3, 16))  # 3 nodes.
    edge_index = np.array([[0, 0, 1, 1], [0, 1, 1, 2]])
    data = BipartiteData(x_s=x_s, x_t=x_t, edge_index=edge_index)
    batch = next(iter(DataLoader([data, data], batch_size=2)))
    assert repr(batch) == "BipartiteDataBatch(x_s=[4, 16], x_t=[6, 16], edge_index=[2, 8])"
    assert batch.edge_index.tolist() == [[0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 1, 2, 3, 4, 4, 5]]
    assert batch._inc_dict["edge_index"].tolist() == [[[0], [0]], [[2], [3]]]
    for part in batch.to_data_list():
        assert_data_equal(part, data)


def test_new_batch_dimension():
    edge_index = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
    foo = rng.standard_normal(16)
    data = MyData(num_nodes=3, edge_index=edge_index, foo=foo)
    batch = next(iter(DataLoader([data, data], batch_size=2)))
    assert repr(batch) == (
        "MyDataBatch(num_nodes=6, edge_index=[2, 8], foo=[2, 16], batch=[6], ptr=[3])"
    )
    assert batch.foo.shape == (2, 16)
    np.testing.assert_array_equal(batch.foo, np.stack([foo, foo]))
    assert batch.edge_index.tolist() == [[0, 1, 1, 2, 3, 4, 4, 5], [1, 0, 2, 1, 4, 3, 5, 4]]
    assert_batch_invariants(batch)
    for part in batch.to_data_list():
        assert_data_equal(part, data)


def test_scalars_become_arrays_objects_lists():
    gs = [
        Data(x=np.ones((1, 1)), label=i, score=0.5 * i, name=f"g{i}", meta={"i": i})
        for i in range(3)
    ]
    b = Batch.from_data_list(gs)
    assert b.label.tolist() == [0, 1, 2] and b.label.dtype.kind == "i"
    assert b.score.tolist() == [0.0, 0.5, 1.0]
    assert b.name == ["g0", "g1", "g2"]
    assert b.meta == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert repr(b) == (
        "DataBatch(x=[3, 1], label=[3], score=[3], name=[3], meta=[3], batch=[3], ptr=[4])"
    )
    for i, part in enumerate(b.to_data_list()):
        assert_data_equal(part, gs[i])
