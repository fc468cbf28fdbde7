"""Review of the remote-backend interface (``FeatureStore`` / ``GraphStore`` and the
neighbour loaders over a ``(feature_store, graph_store)`` pair): PyG's rules that the first
version missed, and edge cases (edge types with no edges, node types with neither edges
nor seeds, user stores returning torch tensors), each checked against PyG's own classes or
against the same loader over the in-memory graph."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.data import Data
from arraygnn.feature_store import FeatureStore, InMemoryFeatureStore, TensorAttr
from arraygnn.graph_store import GraphStore, InMemoryGraphStore
from arraygnn.hetero_data import HeteroData
from arraygnn.link_neighbor_loader import LinkNeighborLoader
from arraygnn.neighbor_loader import NeighborLoader
from arraygnn.remote_backend import HOMOGENEOUS_EDGES, num_nodes, to_stores


def _same_batches(first, second):
    first, second = list(first), list(second)
    assert len(first) == len(second) > 0
    for a, b in zip(first, second):
        pairs = (
            [(a[t], b[t]) for t in a.node_types] + [(a[et], b[et]) for et in a.edge_types]
            if isinstance(a, HeteroData)
            else [(a, b)]
        )
        for x, y in pairs:
            assert sorted(x.keys()) == sorted(y.keys())
            for key in x.keys():
                if isinstance(x[key], np.ndarray):
                    assert x[key].dtype == y[key].dtype, key
                    np.testing.assert_array_equal(x[key], y[key], err_msg=key)
                else:
                    assert x[key] == y[key], key


def _pyg_stores():
    pytest.importorskip("torch")
    from torch_geometric.testing.feature_store import MyFeatureStore
    from torch_geometric.testing.graph_store import MyGraphStore

    return MyFeatureStore(), MyGraphStore()


# ------------------------------------------------------------------ homogeneous sizes
def test_homogeneous_num_nodes_is_the_larger_side_as_pyg():
    """PyG sizes a homogeneous remote graph as ``max(edge_attrs[0].size)``: a store whose
    size is ``(num_src, num_dst)`` with more destinations samples all of them."""
    torch = pytest.importorskip("torch")
    from torch_geometric.sampler import NeighborSampler

    row, col = np.array([0, 1, 2]), np.array([6, 5, 6])
    pf, pg = _pyg_stores()
    pg.put_edge_index(
        (torch.from_numpy(row), torch.from_numpy(col)), edge_type=None, layout="coo", size=(3, 7)
    )
    expected = NeighborSampler((pf, pg), [2]).num_nodes
    fs, gs = InMemoryFeatureStore(), InMemoryGraphStore()
    gs.put_edge_index((row, col), None, "coo", size=(3, 7))
    assert num_nodes(fs, gs, None) == expected == 7
    batches = list(NeighborLoader((fs, gs), [-1], batch_size=7))
    assert batches[0].num_nodes >= 7
    np.testing.assert_array_equal(batches[0].n_id[:7], np.arange(7))
    assert batches[0].edge_index.shape[1] == 3


# ------------------------------------------------------------------ time attribute
def test_homogeneous_time_attr_held_twice_is_refused_as_pyg():
    """PyG refuses a homogeneous pair whose feature store holds ``time_attr`` more than
    once (a node and an edge time): ``ValueError``, never a silent choice."""
    torch = pytest.importorskip("torch")
    from torch_geometric.sampler import NeighborSampler

    pf, pg = _pyg_stores()
    row, col = torch.tensor([0, 1, 2]), torch.tensor([1, 2, 2])
    pg.put_edge_index((row, col), edge_type=None, layout="coo", size=(3, 3), is_sorted=True)
    pf.put_tensor(torch.arange(3), group_name=None, attr_name="t", index=None)
    pf.put_tensor(torch.arange(3), group_name=HOMOGENEOUS_EDGES, attr_name="t", index=None)
    with pytest.raises(ValueError, match="did not find any temporal data"):
        NeighborSampler((pf, pg), [2], time_attr="t")

    fs, gs = InMemoryFeatureStore(), InMemoryGraphStore()
    gs.put_edge_index((row.numpy(), col.numpy()), None, "coo", size=(3, 3))
    fs.put_tensor(np.arange(3), None, "t", None)
    fs.put_tensor(np.arange(3), HOMOGENEOUS_EDGES, "t", None)
    with pytest.raises(ValueError, match=r"NeighborLoader: time_attr='t'.*both"):
        NeighborLoader((fs, gs), [2], time_attr="t")


# ------------------------------------------------------------------ edge attributes
def test_homogeneous_pair_ignores_edge_groups_of_other_types():
    """A homogeneous graph's edge attributes live under ``HOMOGENEOUS_EDGES``; an array
    under another edge type in the same feature store is not one of its edges (it was
    read by ``e_id`` and failed with a bare ``KeyError`` at the first batch)."""
    rng = np.random.default_rng(0)
    data = Data(
        x=rng.normal(size=(6, 2)),
        edge_attr=rng.normal(size=(15, 2)),
        edge_index=rng.integers(0, 6, (2, 15)),
        num_nodes=6,
    )
    fs, gs = to_stores(data)
    fs.put_tensor(rng.normal(size=(4, 1)), ("a", "r", "b"), "w", None)
    _same_batches(
        NeighborLoader(data, [2], batch_size=3, seed=0),
        NeighborLoader((fs, gs), [2], batch_size=3, seed=0),
    )
    with pytest.raises(ValueError, match=r"no edge attribute\(s\) \['w'\]"):
        NeighborLoader((fs, gs), [2], edge_attrs=["w"])


# ------------------------------------------------------------------ index dtypes
@pytest.mark.parametrize("layout", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_pointer_layouts_keep_the_index_dtype_as_pyg(layout, dtype):
    """PyG's ``ptr2index`` keeps the pointer's dtype: an int32 CSR / CSC store converts
    to int32 COO (arraygnn gave int64 for the expanded half)."""
    torch = pytest.importorskip("torch")
    first, second = (
        (np.array([0, 2, 3, 3]), np.array([1, 0, 2]))
        if layout == "csr"
        else (np.array([1, 0, 2]), np.array([0, 2, 3, 3]))
    )
    first, second = first.astype(dtype), second.astype(dtype)
    _, pg = _pyg_stores()
    pg.put_edge_index(
        (torch.from_numpy(first), torch.from_numpy(second)),
        edge_type=None,
        layout=layout,
        size=(3, 3),
    )
    gs = InMemoryGraphStore()
    gs.put_edge_index((first, second), None, layout, size=(3, 3))
    for ours, theirs in zip(
        gs.coo()[:2] + gs.csr()[:2] + gs.csc()[:2], pg.coo()[:2] + pg.csr()[:2] + pg.csc()[:2]
    ):
        assert ours.dtype == theirs.numpy().dtype
        np.testing.assert_array_equal(ours, theirs.numpy())


# ------------------------------------------------------------------ edge cases that hold
def _hetero(rng):
    data = HeteroData(
        a={"x": rng.normal(size=(5, 2))},
        b={"x": rng.normal(size=(4, 3)).astype(np.float32)},
        c={"x": rng.normal(size=(3, 1))},  # features, no edges
    )
    data["a", "r", "b"].edge_index = np.array([[0, 1, 4, 1], [1, 2, 3, 1]])
    data["a", "r", "b"].edge_attr = rng.normal(size=(4, 2))
    data["b", "s", "a"].edge_index = np.zeros((2, 0), dtype=np.int64)  # no edges
    return data


def test_hetero_pair_with_edgeless_types_equals_in_memory():
    data = _hetero(np.random.default_rng(1))
    pair = to_stores(data)
    for input_nodes in ["b", "c", ("a", np.array([4, 0]))]:
        kwargs = dict(input_nodes=input_nodes, batch_size=2, seed=3)
        _same_batches(
            NeighborLoader(data, [2, 2], **kwargs), NeighborLoader(pair, [2, 2], **kwargs)
        )


class _TorchStore(FeatureStore):
    """A user's arraygnn store that keeps torch tensors (as PyG users' stores do)."""

    def __init__(self) -> None:
        super().__init__()
        self.kv: dict = {}

    def _put_tensor(self, tensor, attr):
        self.kv[(attr.group_name, attr.attr_name)] = tensor
        return True

    def _get_tensor(self, attr):
        tensor = self.kv.get((attr.group_name, attr.attr_name))
        if tensor is None or attr.index is None:
            return tensor
        import torch

        return tensor[torch.as_tensor(np.asarray(attr.index, dtype=np.int64))]

    def _remove_tensor(self, attr):
        return self.kv.pop((attr.group_name, attr.attr_name), None) is not None

    def _get_tensor_size(self, attr):
        tensor = self._get_tensor(attr)
        return None if tensor is None else tuple(tensor.shape)

    def get_all_tensor_attrs(self):
        return [TensorAttr(g, a) for g, a in self.kv]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_link_loader_over_torch_store_with_negatives_equals_in_memory(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    data = Data(
        x=rng.normal(size=(20, 3)).astype(np.float32),
        edge_attr=rng.normal(size=(50, 2)),
        edge_index=rng.integers(0, 18, (2, 50)).astype(dtype),
        num_nodes=20,
    )
    fs, gs = _TorchStore(), InMemoryGraphStore()
    fs.put_tensor(torch.from_numpy(data.x), None, "x", None)
    fs.put_tensor(torch.from_numpy(data.edge_attr), HOMOGENEOUS_EDGES, "edge_attr", None)
    gs.put_edge_index((data.edge_index[0], data.edge_index[1]), None, "coo", size=(20, 20))
    kwargs = dict(batch_size=8, neg_sampling_ratio=1.0, shuffle=True, seed=5, disjoint=True)
    _same_batches(
        LinkNeighborLoader(data, [2, 2], **kwargs), LinkNeighborLoader((fs, gs), [2, 2], **kwargs)
    )


# ------------------------------------------------------------------ inputs not mutated
def test_get_tensor_size_leaves_the_callers_attr_unset():
    """``get_tensor_size`` reads all rows when ``index`` is unset, without writing
    ``index=None`` into the caller's ``TensorAttr`` (PyG's does; arraygnn mutates no
    input)."""
    fs = InMemoryFeatureStore()
    fs.put_tensor(np.zeros((4, 2)), "paper", "x", None)
    attr = TensorAttr("paper", "x")
    assert fs.get_tensor_size(attr) == (4, 2)
    assert not attr.is_set("index")
    assert fs.get_tensor_size(attr) == (4, 2)


# ------------------------------------------------------------------ bad pointers
@pytest.mark.parametrize(
    "layout, first, second",
    [
        ("csc", np.array([0, 1, 2]), np.array([0, 1, 2])),  # colptr ends short of E
        ("csc", np.array([0, 1, 2]), np.array([0, 2, 1, 3])),  # colptr decreases
        ("csc", np.array([0, 1, 2]), np.array([1, 2, 3, 3])),  # colptr does not start at 0
        ("csr", np.array([0, 1, 4]), np.array([0, 1, 2])),  # rowptr past E
    ],
)
def test_bad_pointer_is_refused_by_name(layout, first, second):
    """A CSR / CSC store whose pointer does not run from 0 to E, non-decreasing, is
    refused naming the store, layout and edge type (it failed deep inside NumPy: 'all
    input arrays must have the same shape', 'repeats may not contain negative values')."""
    gs = InMemoryGraphStore()
    gs.put_edge_index((first, second), ("a", "r", "b"), layout, size=(3, 3))
    match = rf"GraphStore: the {layout.upper()} edge index of \('a', 'r', 'b'\).*ptr must"
    with pytest.raises(ValueError, match=match):
        gs.coo()
    with pytest.raises(ValueError, match="NeighborLoader: " + match):
        NeighborLoader((InMemoryFeatureStore(), gs), [2], input_nodes="b")


class _TorchGraphStore(GraphStore):
    """A user's arraygnn graph store that keeps torch tensors (a PyG user's port)."""

    def __init__(self) -> None:
        super().__init__()
        self.kv: dict = {}

    def _put_edge_index(self, edge_index, edge_attr):
        self.kv[(edge_attr.edge_type, edge_attr.layout)] = (edge_attr, edge_index)
        return True

    def _get_edge_index(self, edge_attr):
        entry = self.kv.get((edge_attr.edge_type, edge_attr.layout))
        return None if entry is None else entry[1]

    def _remove_edge_index(self, edge_attr):
        return self.kv.pop((edge_attr.edge_type, edge_attr.layout), None) is not None

    def get_all_edge_attrs(self):
        return [attr for attr, _ in self.kv.values()]


@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
def test_torch_graph_store_converts_as_pyg(layout):
    """A user's ``GraphStore`` subclass holding torch tensors converts between layouts as
    PyG's ``MyGraphStore`` does (COO to CSC failed with an ``IndexError``; the pointer
    layouts now convert on NumPy), and the loader samples it."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    data = Data(edge_index=rng.integers(0, 6, (2, 14)), num_nodes=7)
    _, ours = to_stores(data, layout=layout)
    first, second = (torch.from_numpy(a) for a in ours.get_edge_index(None, layout))
    mine = _TorchGraphStore()
    _, pg = _pyg_stores()
    for store in (mine, pg):
        store.put_edge_index((first, second), edge_type=None, layout=layout, size=(7, 7))
    for convert in ("coo", "csr", "csc"):
        got, want = getattr(mine, convert)(), getattr(pg, convert)()
        for a, b in zip(got[:2], want[:2]):
            np.testing.assert_array_equal(np.asarray(a), b.numpy(), err_msg=convert)
    batches = list(NeighborLoader((InMemoryFeatureStore(), mine), [-1], batch_size=7))
    assert batches[0].edge_index.shape[1] == 14


def test_homogeneous_pair_reads_node_attrs_of_any_group_as_pyg():
    """PyG's ``filter_custom_store`` reads *every* feature-store attribute by ``n_id`` for
    a homogeneous graph, whatever its group name; a feature kept under a string group
    (``'node'``) was silently left out of the batches."""
    torch = pytest.importorskip("torch")
    from torch_geometric.loader.utils import filter_custom_store

    rng = np.random.default_rng(6)
    x = rng.normal(size=(9, 3)).astype(np.float32)
    row, col = rng.integers(0, 9, 20), rng.integers(0, 9, 20)
    pf, pg = _pyg_stores()
    pf.put_tensor(torch.from_numpy(x), group_name="node", attr_name="x", index=None)
    pg.put_edge_index(
        (torch.from_numpy(row), torch.from_numpy(col)), edge_type=None, layout="coo", size=(9, 9)
    )
    batches = list(NeighborLoader((pf, pg), [2], batch_size=4, seed=0))
    for batch in batches:
        node = torch.from_numpy(batch.n_id)
        theirs = filter_custom_store(pf, pg, node, node, node, None)
        np.testing.assert_array_equal(batch.x, theirs.x.numpy())
