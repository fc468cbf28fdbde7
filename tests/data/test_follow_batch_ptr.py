"""``follow_batch`` gives ``<key>_batch`` and ``<key>_ptr`` (PyG 2.5+), for Data, HeteroData
and PackedDataset collation, arrays, scalars and lists alike; checked against PyG."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data, HeteroData
from arraygnn.dataset import PackedDataset


def _graphs(xp=np.asarray):
    out = []
    for n, e, name in ((3, 2, "a"), (0, 0, "b"), (2, 1, "c")):
        rng = np.random.default_rng(n)
        ei = rng.integers(0, max(n, 1), (2, e)).astype(np.int32)
        out.append(
            Data(x=np.ones((n, 2)), edge_index=ei, t=np.ones((2, 3)), s=n, name=name, num_nodes=n)
        )
    return out


FOLLOW = ["x", "edge_index", "t", "s", "name"]


def test_ptr_beside_batch_for_every_followed_key():
    b = Batch.from_data_list(_graphs(), follow_batch=FOLLOW)
    keys = b.keys()
    for k in FOLLOW:
        assert keys.index(k + "_ptr") == keys.index(k + "_batch") + 1
        assert b[k + "_ptr"].dtype == np.int64
        ids = b[k + "_batch"]
        assert b[k + "_ptr"].tolist() == [0, *np.cumsum(np.bincount(ids, minlength=3)).tolist()]
    assert b.x_ptr.tolist() == [0, 3, 3, 5] and b.edge_index_ptr.tolist() == [0, 2, 2, 3]
    assert b.name_batch.tolist() == [0, 1, 2] and b.name_ptr.tolist() == [0, 1, 2, 3]
    # the follow vectors are not graph keys: a graph comes back without them
    assert b.get_example(0).keys() == _graphs()[0].keys()
    # the ptr is the batch's own array, not its slice record
    b.x_ptr[0] = 7
    assert b.get_example(1).x.shape == (0, 2)


def test_same_as_pyg():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    theirs = pyg.Batch.from_data_list(
        [
            pyg.Data(**{k: torch.as_tensor(v) if isinstance(v, np.ndarray) else v for k, v in d})
            for d in _graphs()
        ],
        follow_batch=FOLLOW,
    )
    ours = Batch.from_data_list(_graphs(), follow_batch=FOLLOW)
    for k in FOLLOW:
        for suffix in ("_batch", "_ptr"):
            assert ours[k + suffix].tolist() == theirs[k + suffix].tolist(), k + suffix


def test_packed_dataset_collate_matches_from_data_list():
    graphs = _graphs()
    for g in graphs:
        del g["name"], g["s"]
        g.t = np.ones((1, 3))  # a graph feature: one row per graph
    ds = PackedDataset.from_data_list(graphs)
    got = ds.collate([2, 0, 1], follow_batch=["x", "t"])
    want = Batch.from_data_list([graphs[2], graphs[0], graphs[1]], follow_batch=["x", "t"])
    for k in ("x_batch", "x_ptr", "t_batch", "t_ptr"):
        assert got[k].tolist() == want[k].tolist(), k


def test_hetero_same_as_pyg():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")

    def make(cls, conv, n):
        d = cls()
        d["a"].x = conv(np.ones((n, 2)))
        d["a"].name = "q"
        d["a"].s = n
        d["a", "r", "a"].edge_index = conv(np.array([[0] * (n > 0), [n - 1] * (n > 0)], np.int64))
        return d

    follow = ["x", "edge_index", "name", "s"]
    ours = Batch.from_data_list(
        [make(HeteroData, np.asarray, n) for n in (3, 0, 2)], follow_batch=follow
    )
    theirs = pyg.Batch.from_data_list(
        [make(pyg.HeteroData, torch.as_tensor, n) for n in (3, 0, 2)], follow_batch=follow
    )
    for store, k in [("a", "x"), ("a", "name"), ("a", "s"), (("a", "r", "a"), "edge_index")]:
        for suffix in ("_batch", "_ptr"):
            assert ours[store][k + suffix].tolist() == theirs[store][k + suffix].tolist()
