"""PyG's remote-backend interface: ``FeatureStore`` / ``TensorAttr``, ``GraphStore`` /
``EdgeAttr``, ``to_stores`` / ``from_stores``, and the neighbour loaders over a
``(feature_store, graph_store)`` pair.

The ABC contract is checked against PyG's own in-memory reference stores
(``torch_geometric.testing``'s ``MyFeatureStore`` / ``MyGraphStore``): the same calls give
the same results and the same kinds of errors. Loader batches over a pair must equal the
batches over the equivalent in-memory graph (same seed), while the features are read per
batch, sampled rows only.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.feature_store import AttrView, FeatureStore, InMemoryFeatureStore, TensorAttr
from arraygnn.graph_store import EdgeAttr, EdgeLayout, GraphStore, InMemoryGraphStore
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.remote_backend import HOMOGENEOUS_EDGES, from_stores, num_nodes, to_stores


# --------------------------------------------------------------------------- helpers
class NumpyKVFeatureStore(FeatureStore):
    """A user's store, written as a user would (and as PyG's ``MyFeatureStore``): a dict
    of (ids, array) per key, rows looked up by id; it counts its reads."""

    def __init__(self) -> None:
        super().__init__()
        self.kv: dict = {}
        self.reads: list = []

    def _put_tensor(self, tensor, attr):
        index = np.arange(tensor.shape[0]) if attr.index is None else np.asarray(attr.index)
        self.kv[(attr.group_name, attr.attr_name)] = (index, tensor)
        return True

    def _get_tensor(self, attr):
        ids, tensor = self.kv.get((attr.group_name, attr.attr_name), (None, None))
        if tensor is None or attr.index is None:
            return tensor
        pos = np.argsort(ids)
        return tensor[pos[np.searchsorted(ids[pos], attr.index)]]

    def _multi_get_tensor(self, attrs):
        self.reads.append([(a.group_name, a.attr_name, a.index) for a in attrs])
        return [self._get_tensor(a) for a in attrs]

    def _remove_tensor(self, attr):
        return self.kv.pop((attr.group_name, attr.attr_name), None) is not None

    def _get_tensor_size(self, attr):
        tensor = self._get_tensor(attr)
        return None if tensor is None else tensor.shape

    def get_all_tensor_attrs(self):
        return [TensorAttr(g, a) for g, a in self.kv]


class NumpyGraphStore(GraphStore):
    """A user's graph store (PyG's ``MyGraphStore``, on NumPy arrays)."""

    def __init__(self) -> None:
        super().__init__()
        self.kv: dict = {}

    @staticmethod
    def key(attr):
        return (attr.edge_type, attr.layout.value, attr.is_sorted, attr.size)

    def _put_edge_index(self, edge_index, edge_attr):
        self.kv[self.key(edge_attr)] = edge_index
        return True

    def _get_edge_index(self, edge_attr):
        return self.kv.get(self.key(edge_attr))

    def _remove_edge_index(self, edge_attr):
        return self.kv.pop(self.key(edge_attr), None) is not None

    def get_all_edge_attrs(self):
        return [EdgeAttr(*key) for key in self.kv]


def _graph(rng, n=40, e=120, dtype=np.int64, isolated=5):
    """A random graph with ``isolated`` nodes touching no edge, self-loops, multi-edges."""
    ei = rng.integers(0, n - isolated, size=(2, e)).astype(dtype)
    ei[:, :3] = [[1, 2, 2], [1, 3, 3]]  # a self-loop and a multi-edge
    return Data(
        x=rng.normal(size=(n, 4)),
        pos=rng.normal(size=(n, 2)).astype(np.float32),
        edge_index=ei,
        edge_attr=rng.normal(size=(e, 3)),
        num_nodes=n,
    )


def _hetero(rng, dtype=np.int64):
    data = HeteroData(
        paper={"x": rng.normal(size=(12, 3))},
        author={"x": rng.normal(size=(8, 2)).astype(np.float32)},
        venue={"num_nodes": 3},  # no features: sized from the graph store
    )
    data["author", "writes", "paper"].edge_index = np.stack(
        [rng.integers(0, 7, 25), rng.integers(0, 11, 25)]
    ).astype(dtype)  # author 7 and paper 11 isolated
    data["paper", "cites", "paper"].edge_index = rng.integers(0, 11, (2, 20)).astype(dtype)
    data["paper", "cites", "paper"].edge_attr = rng.normal(size=(20, 2))
    data["paper", "in", "venue"].edge_index = np.stack(
        [np.arange(11), rng.integers(0, 3, 11)]
    ).astype(dtype)
    return data


def _same(a, b, where=""):
    assert sorted(a.keys()) == sorted(b.keys()), where
    for key in a.keys():
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype, (where, key)
            np.testing.assert_array_equal(x, y, err_msg=f"{where} {key}")
        else:
            assert x == y, (where, key)


def _same_batches(first, second):
    first, second = list(first), list(second)
    assert len(first) == len(second) > 0
    for i, (a, b) in enumerate(zip(first, second)):
        if isinstance(a, HeteroData):
            assert isinstance(b, HeteroData)
            assert sorted(a.node_types) == sorted(b.node_types)
            assert a.edge_types == b.edge_types
            for t in a.node_types:
                _same(a[t], b[t], f"batch {i} {t}")
            for et in a.edge_types:
                _same(a[et], b[et], f"batch {i} {et}")
        else:
            _same(a, b, f"batch {i}")


# --------------------------------------------------------------------------- TensorAttr
def test_tensor_attr_fields_as_pyg():
    pytest.importorskip("torch")
    from torch_geometric.data import TensorAttr as PygTensorAttr

    for args in [(), ("paper",), ("paper", "x"), ("paper", "x", None), (None, "x", None)]:
        ours, theirs = TensorAttr(*args), PygTensorAttr(*args)
        for key in ("group_name", "attr_name", "index"):
            assert ours.is_set(key) == theirs.is_set(key), (args, key)
        assert ours.is_fully_specified() == theirs.is_fully_specified()
    attr = TensorAttr("paper")
    assert attr.fully_specify() is attr and attr == TensorAttr("paper", None, None)
    attr = TensorAttr("paper").update(TensorAttr(attr_name="x"))
    assert (attr.group_name, attr.attr_name, attr.is_set("index")) == ("paper", "x", False)
    assert TensorAttr.cast(("a", "b")) == TensorAttr("a", "b")
    assert TensorAttr.cast({"attr_name": "b"}) == TensorAttr(attr_name="b")
    assert TensorAttr.cast(attr) is attr and TensorAttr.cast(None) is None
    with pytest.raises(ValueError, match="no field 'name'"):
        TensorAttr().is_set("name")
    # an array index is "set" (PyG's != comparison fails on arrays; ours is by identity)
    assert TensorAttr("p", "x", np.array([1, 2])).is_fully_specified()


# --------------------------------------------------------------------------- FeatureStore
def _both_feature_stores():
    torch = pytest.importorskip("torch")
    from torch_geometric.testing.feature_store import MyFeatureStore

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(4, 2))
    ours, theirs = InMemoryFeatureStore(), MyFeatureStore()
    for store, conv in ((ours, lambda a: a), (theirs, torch.from_numpy)):
        assert store.put_tensor(conv(x), group_name="paper", attr_name="x", index=None)
        store["author", "x", None] = conv(y)
    return torch, ours, theirs, x, y


def test_feature_store_reads_as_pyg():
    torch, ours, theirs, x, y = _both_feature_stores()
    idx = np.array([4, 0, 4])
    t_idx = torch.from_numpy(idx)

    def same(a, b):
        np.testing.assert_array_equal(a, b.numpy())

    same(ours.get_tensor("paper", "x", idx), theirs.get_tensor("paper", "x", t_idx))
    same(ours.get_tensor(group_name="paper", attr_name="x", index=None), theirs["paper", "x", None])
    same(ours["paper", "x", idx], theirs["paper", "x", t_idx])
    same(ours["paper"].x[idx], theirs["paper"].x[t_idx])  # views, attribute style
    same(ours["paper"]["x"][idx], theirs["paper"]["x"][t_idx])
    same(ours["paper", "x"][idx], theirs["paper", "x"][t_idx])
    same(ours.view("author").x(), theirs.view("author").x())
    same(
        ours.view(attr_name="x", group_name="author")(),
        theirs.view(attr_name="x", group_name="author")(),
    )
    view = ours.view("paper")
    view.attr_name = "x"  # setting a field of a view
    view["index"] = idx
    same(view(), theirs["paper", "x", t_idx])
    for a, b in zip(
        ours.multi_get_tensor([TensorAttr("paper", "x", idx), ("author", "x", None)]),
        theirs.multi_get_tensor([("paper", "x", t_idx), ("author", "x", None)]),
    ):
        same(a, b)
    assert ours.get_tensor_size("paper", "x") == tuple(theirs.get_tensor_size("paper", "x"))
    assert ours.get_tensor_size(TensorAttr("author", "x")) == (4, 2)
    keys = lambda store: [(a.group_name, a.attr_name) for a in store.get_all_tensor_attrs()]  # noqa: E731
    assert keys(ours) == keys(theirs) == [("paper", "x"), ("author", "x")]
    assert isinstance(ours["paper"], AttrView) and ours["paper"] == ours.view("paper")
    assert ours["paper"] != theirs["paper"] and ours == ours and ours != theirs
    # convert_type: the output follows the index's kind (PyG's _to_type)
    out = ours.get_tensor("paper", "x", t_idx[:0].clone(), convert_type=True)
    assert isinstance(out, torch.Tensor) and tuple(out.shape) == (0, 3)
    out = theirs.get_tensor("paper", "x", None)
    assert isinstance(out, torch.Tensor)


def test_feature_store_writes_as_pyg():
    torch, ours, theirs, x, y = _both_feature_stores()
    z = np.full((6, 3), 7.0)
    assert ours.update_tensor(z, "paper", "x", None)
    assert theirs.update_tensor(torch.from_numpy(z), "paper", "x", None)
    np.testing.assert_array_equal(ours["paper", "x", None], theirs["paper", "x", None].numpy())
    assert ours.remove_tensor("paper", "x", None) and theirs.remove_tensor("paper", "x", None)
    assert not ours.remove_tensor("paper", "x", None)
    assert not theirs.remove_tensor("paper", "x", None)
    del ours["author", "x"]
    del theirs["author", "x"]
    assert ours.get_all_tensor_attrs() == [] and theirs.get_all_tensor_attrs() == []
    assert len(ours) == 0 and ("author", "x") not in ours


def test_feature_store_errors_as_pyg():
    torch, ours, theirs, x, y = _both_feature_stores()
    for store in (ours, theirs):
        with pytest.raises(KeyError, match="venue"):  # the missing attribute is named
            store.get_tensor("venue", "x", None)
        with pytest.raises(KeyError, match="venue"):
            store.multi_get_tensor([("paper", "x", None), ("venue", "x", None)])
        with pytest.raises(ValueError, match="not fully specified"):
            store.get_tensor("paper", "x")
        with pytest.raises(ValueError, match="not fully specified"):
            store.put_tensor(x, "paper")
        with pytest.raises(ValueError, match="not fully specified"):
            store.multi_get_tensor([("paper", "x")])
        with pytest.raises(ValueError, match="nonexistent attribute 'name'"):
            store.view("paper").name = 1
        with pytest.raises(AttributeError, match="already been set"):
            getattr(store.view("paper", "x", None), "y")  # noqa: B009
    with pytest.raises(KeyError, match="venue"):
        ours["venue"].x()  # a view reads through get_tensor
    with pytest.raises(TypeError, match="NumPy or CuPy"):
        ours.put_tensor([1, 2], "venue", "x", None)
    with pytest.raises(TypeError, match="abstract"):
        FeatureStore()


def test_feature_store_contains_len_and_row_writes():
    store = InMemoryFeatureStore()
    x = np.zeros((4, 2))
    store.put_tensor(x, None, "x", None)
    assert ("x" not in store) and TensorAttr(None, "x") in store and len(store) == 1
    store.put_tensor(np.ones((2, 2)), None, "x", np.array([1, 3]))  # rows of the stored array
    np.testing.assert_array_equal(store[None, "x", None][:, 0], [0, 1, 0, 1])
    assert store[None, "x", None] is x  # kept, not copied
    with pytest.raises(KeyError, match="'y'"):
        store.put_tensor(np.ones((1, 2)), None, "y", np.array([0]))
    for ids in (np.array([0, 4]), np.array([-1], dtype=np.int32)):  # ids outside [0, 4)
        with pytest.raises(
            ValueError, match=r"\(None, 'x'\): index has .*(out of range|must be in)"
        ):
            store.get_tensor(None, "x", ids)
    np.testing.assert_array_equal(store[None, "x", slice(1, 3)], x[1:3])
    assert store.get_tensor(None, "x", np.array([], dtype=np.int32)).shape == (0, 2)


# --------------------------------------------------------------------------- GraphStore
def test_edge_attr_as_pyg():
    pytest.importorskip("torch")
    from torch_geometric.data import EdgeAttr as PygEdgeAttr

    for args in [(None, "coo"), (("a", "r", "b"), "csc", False, (3, 4)), (None, "csr")]:
        ours, theirs = EdgeAttr(*args), PygEdgeAttr(*args)
        assert ours.layout.value == theirs.layout.value
        assert (ours.edge_type, ours.is_sorted, ours.size) == (
            theirs.edge_type,
            theirs.is_sorted,
            theirs.size,
        )
    assert EdgeAttr(None, EdgeLayout.CSC).is_sorted  # CSC is sorted by definition
    for cls in (EdgeAttr, PygEdgeAttr):
        with pytest.raises(ValueError, match="'CSR' edge attribute with option 'is_sorted"):
            cls(None, "csr", True)
        with pytest.raises(ValueError, match="is not a valid EdgeLayout"):
            cls(None, "dense")


def _check_layouts(ours, theirs, src, dst, torch):
    """``coo``/``csr``/``csc`` of our store equal PyG's (PyG's sort is not stable: within
    one pointer segment the order may differ, so compare each segment as a set and check
    each side's ``perm`` against its own output)."""
    for method in ("coo", "csr", "csc"):
        a0, a1, ap = getattr(ours, method)()
        b0, b1, bp = getattr(theirs, method)()
        b0, b1 = b0.numpy(), b1.numpy()
        if method == "coo":
            np.testing.assert_array_equal(a0, b0)
            np.testing.assert_array_equal(a1, b1)
            assert ap is None and bp is None
            continue
        ptr_a, idx_a, ptr_b, idx_b = (a0, a1, b0, b1) if method == "csr" else (a1, a0, b1, b0)
        np.testing.assert_array_equal(ptr_a, ptr_b)
        for lo, hi in zip(ptr_a[:-1], ptr_a[1:]):
            assert sorted(idx_a[lo:hi]) == sorted(idx_b[lo:hi])
        other = dst if method == "csr" else src
        np.testing.assert_array_equal(idx_a, other[ap])
        np.testing.assert_array_equal(idx_b, other[bp.numpy()])
        # ours is the stable order
        key = src if method == "csr" else dst
        np.testing.assert_array_equal(ap, np.argsort(key, kind="stable"))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_graph_store_layouts_as_pyg(dtype):
    torch = pytest.importorskip("torch")
    from torch_geometric.testing.graph_store import MyGraphStore

    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 9, 30).astype(dtype), rng.integers(0, 7, 30).astype(dtype)
    src[:2], dst[:2] = [3, 3], [3, 3]  # a multi-edge self-loop; node 9 has no edge
    ours, theirs = InMemoryGraphStore(), MyGraphStore()
    ours.put_edge_index((src, dst), None, "coo", size=(10, 8))
    theirs.put_edge_index(
        (torch.from_numpy(src.astype(np.int64)), torch.from_numpy(dst.astype(np.int64))),
        None, "coo", size=(10, 8),
    )  # fmt: skip
    _check_layouts(ours, theirs, src, dst, torch)
    row, colptr, perm = ours.csc()
    assert colptr.dtype == dtype and colptr.shape == (9,)
    # a stored CSC is returned as it is; COO from it (ptr -> index)
    csc = InMemoryGraphStore()
    csc.put_edge_index((row, colptr), edge_type=None, layout=EdgeLayout.CSC, size=(10, 8))
    r2, c2, p2 = csc.csc()
    assert r2 is row and c2 is colptr and p2 is None
    r3, c3, _ = csc.coo()
    np.testing.assert_array_equal(c3, dst[perm])
    np.testing.assert_array_equal(r3, src[perm])
    # CSR from the stored CSC goes through COO
    rowptr, col, perm_r = csc.csr()
    np.testing.assert_array_equal(col, dst[perm][perm_r])


def test_hetero_graph_store_as_pyg():
    torch = pytest.importorskip("torch")
    from torch_geometric.testing.graph_store import MyGraphStore

    rng = np.random.default_rng(2)
    ours, theirs = InMemoryGraphStore(), MyGraphStore()
    ets = [("a", "to", "b"), ("b", "to", "a"), ("a", "self", "a")]
    sizes = {"a": 5, "b": 4}
    edges = {}
    for et in ets:
        n_src, n_dst = sizes[et[0]], sizes[et[2]]
        edges[et] = (rng.integers(0, n_src, 9), rng.integers(0, n_dst, 9))
        ours.put_edge_index(edges[et], edge_type=et, layout="coo", size=(n_src, n_dst))
        theirs.put_edge_index(
            tuple(torch.from_numpy(a) for a in edges[et]), edge_type=et, layout="coo",
            size=(n_src, n_dst),
        )  # fmt: skip
    for method in ("coo", "csr", "csc"):
        a = getattr(ours, method)()
        b = getattr(theirs, method)()
        assert [list(d) for d in a] == [list(d) for d in b] == [ets] * 3
    rows, colptrs, perms = ours.csc(edge_types=[ets[1]])
    assert list(rows) == [ets[1]]
    np.testing.assert_array_equal(rows[ets[1]], edges[ets[1]][0][perms[ets[1]]])
    for store in (ours, theirs):
        with pytest.raises(ValueError, match="of type .* was not found in the graph store"):
            store.csc(edge_types=[("x", "y", "z")])
        with pytest.raises(KeyError, match="not found"):
            store.get_edge_index(edge_type=ets[0], layout="csr")
    # store=True keeps what was converted (and says perm applied: is_sorted False)
    ours.csc(store=True)
    kinds = sorted((str(a.edge_type), a.layout.value) for a in ours.get_all_edge_attrs())
    assert kinds == sorted((str(et), lay) for et in ets for lay in ("coo", "csc"))
    assert ours.remove_edge_index(edge_type=ets[0], layout="csc")
    assert not ours.remove_edge_index(edge_type=ets[0], layout="csc")
    del ours[EdgeAttr(ets[0], "coo")]
    with pytest.raises(KeyError):
        ours[EdgeAttr(ets[0], "coo")]


def test_graph_store_needs_size_to_sort():
    store = InMemoryGraphStore()
    store[EdgeAttr(None, "coo")] = (np.array([0, 1]), np.array([1, 0]))
    row, col, perm = store.coo()
    assert row.tolist() == [0, 1] and perm is None
    with pytest.raises(ValueError, match="needs its size"):
        store.csc()
    with pytest.raises(TypeError, match="integers"):
        store.put_edge_index((np.array([0.0]), np.array([1.0])), None, "coo")
    with pytest.raises(TypeError, match="two 1-D"):
        store.put_edge_index(np.zeros((2, 3), dtype=np.int64), None, "coo")
    with pytest.raises(KeyError, match="holds no edge index"):
        InMemoryGraphStore().csc()


# --------------------------------------------------------------------------- conversions
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_data_round_trip(dtype):
    data = _graph(np.random.default_rng(3), dtype=dtype)
    fs, gs = to_stores(data)
    assert [(a.group_name, a.attr_name) for a in fs.get_all_tensor_attrs()] == [
        (None, "x"),
        (None, "pos"),
        (HOMOGENEOUS_EDGES, "edge_attr"),
    ]
    assert fs[None, "x", None] is data.x  # no copy
    back = from_stores(fs, gs)
    _same(back, data)
    assert num_nodes(fs, gs, None) == 40
    # in CSC the edges, and their attributes, are in destination order
    fs2, gs2 = to_stores(data, layout="csc")
    perm = np.argsort(data.edge_index[1], kind="stable")
    back = from_stores(fs2, gs2)
    np.testing.assert_array_equal(back.edge_index, data.edge_index[:, perm])
    np.testing.assert_array_equal(back.edge_attr, data.edge_attr[perm])
    back = from_stores(*to_stores(data, layout="csr"))
    perm = np.argsort(data.edge_index[0], kind="stable")
    np.testing.assert_array_equal(back.edge_index, data.edge_index[:, perm])


def test_data_round_trip_edgeless_and_errors():
    data = Data(x=np.ones((3, 1)), edge_index=np.zeros((2, 0), dtype=np.int64), num_nodes=3)
    back = from_stores(*to_stores(data))
    _same(back, data)
    with pytest.raises(ValueError, match=r"\['y'\] are neither node nor edge attributes"):
        to_stores(Data(x=np.ones((3, 1)), y=np.ones(3), edge_index=data.edge_index))
    fs, _ = to_stores(
        Data(x=np.ones((3, 1)), y=np.ones(3), edge_index=data.edge_index), node_attrs=["x", "y"]
    )
    assert {a.attr_name for a in fs.get_all_tensor_attrs()} == {"x", "y"}
    with pytest.raises(ValueError, match="layout must be one of"):
        to_stores(data, layout="dense")
    with pytest.raises(ValueError, match="Unable to infer the number of nodes"):
        gs = InMemoryGraphStore()
        gs.put_edge_index((np.array([0]), np.array([1])), None, "coo")
        num_nodes(InMemoryFeatureStore(), gs, None)


def test_hetero_round_trip():
    data = _hetero(np.random.default_rng(4))
    fs, gs = to_stores(data)
    back = from_stores(fs, gs)
    assert sorted(back.node_types) == sorted(data.node_types) and back.edge_types == data.edge_types
    for t in data.node_types:
        assert back[t].num_nodes == data[t].num_nodes
        if "x" in data[t]:
            np.testing.assert_array_equal(back[t].x, data[t].x)
    for et in data.edge_types:
        _same(back[et], data[et])
    data.y = np.ones(2)
    with pytest.raises(ValueError, match="graph-level array"):
        to_stores(data)
    to_stores(data, exclude_keys=["y"])


def test_pyg_data_is_the_same_store():
    """PyG's ``Data`` is itself a feature / graph store: it answers as our stores do."""
    pytest.importorskip("torch")
    from arraygnn.interop import to_pyg

    data = _graph(np.random.default_rng(5))
    fs, gs = to_stores(data)
    pyg = to_pyg(data)
    idx = np.array([3, 1, 3])
    import torch

    np.testing.assert_array_equal(
        fs.get_tensor(None, "x", idx), pyg.get_tensor(attr_name="x", index=torch.from_numpy(idx))
    )
    row, colptr, _ = gs.csc()
    theirs = pyg.csc()  # PyG's Data: (row, colptr, perm)
    np.testing.assert_array_equal(colptr, theirs[1].numpy())


# --------------------------------------------------------------------------- loaders
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_neighbor_loader_over_stores_equals_in_memory(dtype):
    data = _graph(np.random.default_rng(6), dtype=dtype)
    pair = to_stores(data)
    kwargs = dict(batch_size=7, shuffle=True, seed=3)
    _same_batches(NeighborLoader(data, [3, 2], **kwargs), NeighborLoader(pair, [3, 2], **kwargs))
    mask = np.zeros(40, dtype=bool)
    mask[[0, 5, 36, 39]] = True  # isolated seeds too
    _same_batches(
        NeighborLoader(data, [-1, -1], input_nodes=mask, batch_size=2),
        NeighborLoader(pair, [-1, -1], input_nodes=mask, batch_size=2),
    )
    _same_batches(
        NeighborLoader(
            data,
            [2],
            node_attrs=["x"],
            edge_attrs=[],
            exclude_keys=["pos", "edge_attr"],
            batch_size=16,
            seed=1,
        ),  # fmt: skip
        NeighborLoader(pair, [2], node_attrs=["x"], edge_attrs=[], batch_size=16, seed=1),
    )
    _same_batches(
        NeighborLoader(data, [2, 2], batch_size=5, disjoint=True, seed=2),
        NeighborLoader(pair, [2, 2], batch_size=5, disjoint=True, seed=2),
    )


def test_neighbor_loader_temporal_over_stores():
    rng = np.random.default_rng(7)
    data = _graph(rng)
    data.time = rng.integers(0, 5, 40)
    pair = to_stores(data, node_attrs=["x", "pos", "time"])
    kwargs = dict(batch_size=6, seed=4, time_attr="time")
    _same_batches(
        NeighborLoader(data, [2, 2], node_attrs=["x", "pos", "time"], **kwargs),
        NeighborLoader(pair, [2, 2], **kwargs),
    )
    with pytest.raises(ValueError, match="time_attr='t'.*no temporal data"):
        NeighborLoader(pair, [2], time_attr="t")


def test_neighbor_loader_reads_sampled_rows_only():
    """A user's subclass works, and each batch is one ``multi_get_tensor`` call whose
    indices are the batch's ``n_id`` / ``e_id`` (the matrices are never read whole)."""
    data = _graph(np.random.default_rng(8))
    fs, gs = NumpyKVFeatureStore(), NumpyGraphStore()
    fs.put_tensor(data.x, group_name=None, attr_name="x", index=None)
    fs.put_tensor(data.edge_attr, group_name=HOMOGENEOUS_EDGES, attr_name="edge_attr", index=None)
    gs.put_edge_index((data.edge_index[0], data.edge_index[1]), None, "coo", size=(40, 40))
    loader = NeighborLoader((fs, gs), [3, 3], batch_size=8, seed=0)
    expected = NeighborLoader(
        data, [3, 3], batch_size=8, seed=0, node_attrs=["x"], exclude_keys=["pos"]
    )
    batches = list(loader)
    _same_batches(expected, batches)
    assert len(fs.reads) == len(batches) == 5
    for reads, batch in zip(fs.reads, batches):
        (g1, a1, i1), (g2, a2, i2) = reads
        assert (g1, a1, g2, a2) == (None, "x", HOMOGENEOUS_EDGES, "edge_attr")
        np.testing.assert_array_equal(i1, batch.n_id)
        np.testing.assert_array_equal(i2, batch.e_id)


def test_neighbor_loader_over_pyg_stores():
    """PyG's own reference stores (torch tensors) feed our loader as well."""
    torch = pytest.importorskip("torch")
    from torch_geometric.testing.feature_store import MyFeatureStore
    from torch_geometric.testing.graph_store import MyGraphStore

    data = _graph(np.random.default_rng(9))
    fs, gs = MyFeatureStore(), MyGraphStore()
    fs.put_tensor(torch.from_numpy(data.x), group_name=None, attr_name="x", index=None)
    ei = torch.from_numpy(data.edge_index)
    gs.put_edge_index((ei[0], ei[1]), edge_type=None, layout="coo", size=(40, 40))
    _same_batches(
        NeighborLoader(
            data,
            [2, 2],
            batch_size=9,
            seed=0,
            node_attrs=["x"],
            edge_attrs=[],
            exclude_keys=["pos", "edge_attr"],
        ),  # fmt: skip
        NeighborLoader((fs, gs), [2, 2], batch_size=9, seed=0),
    )


def test_neighbor_loader_csc_store_equals_its_graph():
    """A store holding CSC only: edge ids are CSC positions (PyG: ``perm`` is None), and
    the batches are those of the graph with its edges in that order."""
    data = _graph(np.random.default_rng(10))
    fs, gs = to_stores(data, layout="csc")
    assert [a.layout for a in gs.get_all_edge_attrs()] == [EdgeLayout.CSC]
    _same_batches(
        NeighborLoader(from_stores(fs, gs), [3, 2], batch_size=6, seed=5),
        NeighborLoader((fs, gs), [3, 2], batch_size=6, seed=5),
    )


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_hetero_neighbor_loader_over_stores_equals_in_memory(dtype):
    data = _hetero(np.random.default_rng(11), dtype=dtype)
    pair = to_stores(data)
    for input_nodes in [("paper", None), ("author", np.array([7, 0, 3])), "venue"]:
        kwargs = dict(input_nodes=input_nodes, batch_size=2, shuffle=True, seed=6)
        _same_batches(
            NeighborLoader(data, [2, 2], **kwargs), NeighborLoader(pair, [2, 2], **kwargs)
        )
    per_type = {et: [2, 1] for et in data.edge_types}
    _same_batches(
        NeighborLoader(data, per_type, input_nodes="paper", batch_size=4, disjoint=True, seed=1),
        NeighborLoader(pair, per_type, input_nodes="paper", batch_size=4, disjoint=True, seed=1),
    )
    _same_batches(
        NeighborLoader(data, [-1], input_nodes="paper", batch_size=5, exclude_keys=["edge_attr"]),
        NeighborLoader(pair, [-1], input_nodes="paper", batch_size=5, edge_attrs=[]),
    )


def test_hetero_neighbor_loader_temporal_over_stores():
    rng = np.random.default_rng(15)
    data = _hetero(rng)
    data["paper"].time = rng.integers(0, 5, 12)
    data["author"].time = rng.integers(0, 5, 8)
    pair = to_stores(data, node_attrs=["x", "time"])
    kwargs = dict(input_nodes="paper", batch_size=4, seed=1, time_attr="time")
    _same_batches(NeighborLoader(data, [2, 2], **kwargs), NeighborLoader(pair, [2, 2], **kwargs))


def test_hetero_loader_user_stores_and_errors():
    data = _hetero(np.random.default_rng(12))
    fs, gs = NumpyKVFeatureStore(), NumpyGraphStore()
    for t in ("paper", "author"):
        fs.put_tensor(data[t].x, group_name=t, attr_name="x", index=None)
    for et in data.edge_types:
        n_src, n_dst = data[et[0]].num_nodes, data[et[2]].num_nodes
        ei = data[et].edge_index
        gs.put_edge_index((ei[0], ei[1]), edge_type=et, layout="coo", size=(n_src, n_dst))
    batches = list(NeighborLoader((fs, gs), [2], input_nodes="author", batch_size=3, seed=0))
    expected = NeighborLoader(
        data, [2], input_nodes="author", batch_size=3, seed=0, exclude_keys=["edge_attr"]
    )
    _same_batches(expected, batches)
    assert len(fs.reads) == len(batches)
    for reads, batch in zip(fs.reads, batches):
        for group, _, index in reads:
            np.testing.assert_array_equal(index, batch[group].n_id)
    with pytest.raises(ValueError, match=r"no node attribute\(s\) \['h'\]"):
        NeighborLoader((fs, gs), [2], input_nodes="author", node_attrs=["h"])
    with pytest.raises(ValueError, match="not an edge type of the graph"):
        LinkNeighborLoader((fs, gs), [2], edge_label_index=("a", "b", "c"))
    sizeless = NumpyGraphStore()
    sizeless.put_edge_index((np.array([0]), np.array([1])), None, "coo")
    with pytest.raises(ValueError, match="NeighborLoader: Unable to infer the number of nodes"):
        NeighborLoader((NumpyKVFeatureStore(), sizeless), [2])


def test_link_neighbor_loader_over_stores_equals_in_memory():
    data = _graph(np.random.default_rng(13))
    pair = to_stores(data)
    kwargs = dict(batch_size=16, shuffle=True, neg_sampling_ratio=1.0, seed=7)
    _same_batches(
        LinkNeighborLoader(data, [2, 2], **kwargs), LinkNeighborLoader(pair, [2, 2], **kwargs)
    )


def test_hetero_link_neighbor_loader_over_stores_equals_in_memory():
    data = _hetero(np.random.default_rng(16))
    pair = to_stores(data)
    et = ("author", "writes", "paper")
    for kwargs in [
        dict(edge_label_index=et, batch_size=4, shuffle=True, neg_sampling_ratio=1.0, seed=1),
        dict(
            edge_label_index=(et, np.array([[0, 1, 6], [2, 3, 10]])), batch_size=2, seed=2,
            neg_sampling=dict(mode="triplet", amount=2),
        ),
    ]:  # fmt: skip
        _same_batches(
            LinkNeighborLoader(data, [2, 2], **kwargs), LinkNeighborLoader(pair, [2, 2], **kwargs)
        )


def test_stores_are_not_mutated():
    data = _graph(np.random.default_rng(14))
    fs, gs = to_stores(data)
    before = copy.deepcopy((fs.store, gs.get_all_edge_attrs()))
    for _ in NeighborLoader((fs, gs), [2], batch_size=10):
        pass
    for key, value in before[0].items():
        np.testing.assert_array_equal(fs.store[key], value)
    assert gs.get_all_edge_attrs() == before[1]
