"""ToSparseTensor and ToDevice against torch_geometric 2.8's transforms.

PyG without torch_sparse gives ``adj_t`` as a ``torch.sparse_csr`` (or ``sparse_coo``)
tensor; arraygnn's is a SciPy matrix: their ``crow_indices`` / ``col_indices`` / ``values``
(``indices`` / ``values`` for COO) are compared entry by entry, and the data side (the
sorted ``edge_index``, the per-edge arrays that moved with it, what was deleted) key by key.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms import ToDevice, ToSparseTensor
from arraygnn.utils import spmm

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import torch_geometric.transforms as T  # noqa: E402
from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.data import HeteroData as PygHeteroData  # noqa: E402

DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _run_pyg(transform, data):
    with warnings.catch_warnings():  # torch's "sparse CSR support is in beta"
        warnings.simplefilter("ignore")
        return transform(data)


def _csr_parts(adj):
    """``(indptr, indices, values)`` of a torch CSR tensor."""
    return adj.crow_indices().numpy(), adj.col_indices().numpy(), adj.values().numpy()


def _rows(a):
    return sorted(map(tuple, a.tolist()))


def _graph(rng, n, e, index_dtype, dtype, multigraph):
    """A graph with self-loops, isolated nodes and (``multigraph``) parallel edges."""
    if multigraph:
        src, dst = rng.integers(0, n - 2, e), rng.integers(0, n - 2, e)
        src[:3], dst[:3] = [0, 1, 1], [0, 2, 2]  # a self-loop, a parallel pair
    else:
        pairs = rng.choice((n - 2) * (n - 2), e, replace=False)
        src, dst = pairs // (n - 2), pairs % (n - 2)
    ei = np.stack([src, dst]).astype(index_dtype)
    return ei, rng.random(e).astype(dtype), rng.standard_normal((e, 3)).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
@pytest.mark.parametrize("multigraph", [False, True])
@pytest.mark.parametrize("attr", ["edge_weight", None, "edge_attr1"])
def test_to_sparse_tensor_matches_pyg(dtype, index_dtype, multigraph, attr):
    rng = np.random.default_rng(int(multigraph))
    n = 9
    ei, w, ea = _graph(rng, n, 20, index_dtype, dtype, multigraph)
    x = rng.standard_normal((n, 2)).astype(dtype)
    mine = Data(x=x, edge_index=ei, edge_weight=w, edge_attr=ea, num_nodes=n)
    theirs = PygData(
        x=_t(x), edge_index=_t(ei.astype(np.int64)), edge_weight=_t(w), edge_attr=_t(ea),
        num_nodes=n,
    )  # fmt: skip
    if attr == "edge_attr1":  # a custom name: a per-edge array by the transform's attr
        attr = "w"
        mine.w, theirs.w = w * 2, _t(w * 2)
    before = {k: v.copy() for k, v in mine.items() if isinstance(v, np.ndarray)}
    for remove in (True, False):
        out = ToSparseTensor(attr=attr, remove_edge_index=remove)(mine)
        ref = _run_pyg(T.ToSparseTensor(attr=attr, remove_edge_index=remove), theirs.clone())
        assert sorted(out.keys()) == sorted(ref.keys())
        indptr, indices, values = _csr_parts(ref.adj_t)
        adj = out.adj_t
        assert sp.isspmatrix_csr(adj) and adj.shape == tuple(ref.adj_t.shape) == (n, n)
        assert np.array_equal(adj.indptr, indptr) and np.array_equal(adj.indices, indices)
        assert adj.data.dtype == values.dtype
        assert np.allclose(adj.data, values, rtol=1e-6)
        if multigraph:  # parallel edges: PyG's sort is not stable, compare as multisets
            assert _rows(out.edge_attr) == _rows(ref.edge_attr.numpy())
        else:
            assert np.array_equal(out.edge_attr, ref.edge_attr.numpy())
        if not remove:
            assert out.edge_index.dtype == index_dtype
            assert np.array_equal(out.edge_index, ref.edge_index.numpy())
            if attr is not None:
                assert np.array_equal(np.sort(out[attr]), np.sort(ref[attr].numpy()))
    for k, v in before.items():  # nothing the caller passed changed
        assert np.array_equal(mine[k], v)
    assert "adj_t" not in mine


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES)
def test_to_sparse_tensor_coo_layout_matches_pyg(index_dtype):
    rng = np.random.default_rng(3)
    ei, w, _ = _graph(rng, 8, 15, index_dtype, np.float32, True)
    out = ToSparseTensor(layout="coo")(Data(edge_index=ei, edge_weight=w, num_nodes=8))
    ref = _run_pyg(
        T.ToSparseTensor(layout=torch.sparse_coo),
        PygData(edge_index=_t(ei.astype(np.int64)), edge_weight=_t(w), num_nodes=8),
    )
    assert sp.isspmatrix_coo(out.adj_t)
    idx = ref.adj_t.indices().numpy()
    assert np.array_equal(out.adj_t.row, idx[0]) and np.array_equal(out.adj_t.col, idx[1])
    assert np.allclose(out.adj_t.data, ref.adj_t.values().numpy())
    torch_layout = ToSparseTensor(layout=torch.sparse_csr)  # torch's layouts, read by name
    assert sp.isspmatrix_csr(torch_layout(Data(edge_index=ei, num_nodes=8)).adj_t)
    assert repr(torch_layout) == "ToSparseTensor(attr=edge_weight, layout=torch.sparse_csr)"


def test_to_sparse_tensor_empty_graph_and_isolated_nodes():
    out = ToSparseTensor()(Data(edge_index=np.zeros((2, 0), np.int64), num_nodes=4))
    ref = _run_pyg(
        T.ToSparseTensor(), PygData(edge_index=torch.zeros(2, 0, dtype=torch.long), num_nodes=4)
    )
    assert out.adj_t.shape == (4, 4) and out.adj_t.nnz == 0
    assert np.array_equal(out.adj_t.indptr, ref.adj_t.crow_indices().numpy())
    assert out.adj_t.dtype == np.float32


def test_to_sparse_tensor_hetero_matches_pyg():
    rng = np.random.default_rng(5)
    ei = np.stack([rng.integers(0, 4, 10), rng.integers(0, 6, 10)])
    w, ea = rng.random(10).astype(np.float32), rng.standard_normal((10, 2)).astype(np.float32)
    label_index, label = np.array([[0, 1], [2, 3]]), np.array([1.0, 0.0], np.float32)
    mine = HeteroData(a={"num_nodes": 4}, b={"num_nodes": 6})
    store = mine["a", "to", "b"]
    store.edge_index, store.edge_weight, store.edge_attr = ei, w, ea
    store.edge_label_index, store.edge_label = label_index, label  # not per edge: left alone
    theirs = PygHeteroData()
    theirs["a"].num_nodes, theirs["b"].num_nodes = 4, 6
    pstore = theirs["a", "to", "b"]
    pstore.edge_index, pstore.edge_weight, pstore.edge_attr = _t(ei), _t(w), _t(ea)
    pstore.edge_label_index, pstore.edge_label = _t(label_index), _t(label)
    out = ToSparseTensor()(mine)["a", "to", "b"]
    ref = _run_pyg(T.ToSparseTensor(), theirs)["a", "to", "b"]
    assert sorted(out.keys()) == sorted(ref.keys())
    assert out.adj_t.shape == (6, 4) == tuple(ref.adj_t.shape)  # targets x sources
    indptr, indices, values = _csr_parts(ref.adj_t)
    assert np.array_equal(out.adj_t.indptr, indptr)
    assert np.array_equal(out.adj_t.indices, indices)
    assert np.allclose(out.adj_t.data, values)
    assert np.array_equal(out.edge_label, label)
    assert np.array_equal(out.edge_label_index, label_index)
    assert np.array_equal(np.sort(out.edge_attr, 0), np.sort(ref.edge_attr.numpy(), 0))


def test_adj_t_works_with_spmm():
    """``spmm(adj_t, x)`` is the aggregation into the targets, as PyG's ``adj_t @ x``."""
    from torch_geometric.utils import spmm as pyg_spmm

    rng = np.random.default_rng(2)
    ei, w, _ = _graph(rng, 7, 16, np.int64, np.float64, True)
    x = rng.standard_normal((7, 3))
    out = ToSparseTensor()(Data(edge_index=ei, edge_weight=w, num_nodes=7))
    ref = _run_pyg(T.ToSparseTensor(), PygData(edge_index=_t(ei), edge_weight=_t(w), num_nodes=7))
    for reduce in ("sum", "mean", "max"):
        expected = pyg_spmm(ref.adj_t, _t(x), reduce=reduce).numpy()
        assert np.allclose(spmm(out.adj_t, x, reduce=reduce), expected)


def test_to_sparse_tensor_errors_leave_the_data_alone():
    ei = np.array([[0, 1], [1, 0]])
    d = Data(edge_index=ei, edge_weight=np.ones((2, 2)), num_nodes=2)
    with pytest.raises(ValueError, match="ToSparseTensor: 'edge_weight' has shape \\(2, 2\\)"):
        ToSparseTensor()(d)
    assert d.edge_index is ei and d.edge_weight.shape == (2, 2) and "adj_t" not in d
    with pytest.raises(ValueError, match="ToSparseTensor: data attribute\\(s\\) \\['y'\\]"):
        ToSparseTensor()(Data(edge_index=ei, y=np.zeros(2), num_nodes=2))
    assert "adj_t" in ToSparseTensor(node_attrs=["y"])(
        Data(edge_index=ei, y=np.zeros(2), num_nodes=2)
    )
    with pytest.raises(ValueError, match="ToSparseTensor: num_nodes of data is unknown"):
        ToSparseTensor()(Data(edge_index=ei))
    with pytest.raises(ValueError, match="ToSparseTensor: edge_index row 1"):
        ToSparseTensor()(Data(edge_index=np.array([[0], [5]]), num_nodes=2))
    with pytest.raises(ValueError, match="ToSparseTensor: unexpected sparse tensor layout"):
        ToSparseTensor(layout="csc")
    with pytest.raises(TypeError, match="ToSparseTensor: attr must be an attribute name"):
        ToSparseTensor(attr=3)
    with pytest.raises(TypeError, match="ToSparseTensor: remove_edge_index"):
        ToSparseTensor(remove_edge_index="yes")
    with pytest.raises(TypeError, match="ToSparseTensor: data must be a Data or HeteroData"):
        ToSparseTensor()({"edge_index": ei})
    h = HeteroData(a={"num_nodes": 2}, b={})
    h["a", "to", "b"].edge_index = ei
    with pytest.raises(ValueError, match="num_nodes of 'b' is unknown"):
        ToSparseTensor()(h)


# ---------------------------------------------------------------- ToDevice
def test_to_device_cpu_shares_arrays_and_moves_the_named_ones():
    x, ei = np.ones((3, 2)), np.array([[0, 1], [1, 2]])
    d = Data(x=x, edge_index=ei, num_nodes=3, name="g")
    out = ToDevice("cpu")(d)
    assert out is not d and out.x is x and out.edge_index is ei and out.name == "g"
    assert ToDevice("cpu", attrs=["x", "missing"])(d).x is x  # a missing name is skipped
    sparse = ToSparseTensor()(d)
    assert ToDevice("cpu")(sparse).adj_t is sparse.adj_t  # SciPy matrices stay on the host
    h = HeteroData(a={"x": x}, b={"num_nodes": 2})
    h["a", "to", "b"].edge_index = ei[:, :1]
    moved = ToDevice("cpu:0", attrs="x")(h)
    assert moved["a"].x is x and moved is not h
    ref = T.ToDevice("cpu")
    assert repr(ToDevice("cpu")) == repr(ref) == "ToDevice(cpu)"
    assert repr(ToDevice(1)) == "ToDevice(cuda:1)" and ToDevice("cuda").device == "cuda"


def test_to_device_errors():
    with pytest.raises(ValueError, match="ToDevice: device must be 'cpu' or 'cuda'"):
        ToDevice("tpu")
    with pytest.raises(ValueError, match="ToDevice: device must be a GPU number >= 0"):
        ToDevice(-1)
    with pytest.raises(TypeError, match="ToDevice: device must be 'cpu' or 'cuda'"):
        ToDevice(1.5)
    with pytest.raises(TypeError, match="ToDevice: attrs must hold attribute names"):
        ToDevice("cpu", attrs=[1])
    with pytest.raises(TypeError, match="ToDevice: non_blocking"):
        ToDevice("cpu", non_blocking=None)
    with pytest.raises(TypeError, match="ToDevice: data must be a Data or HeteroData"):
        ToDevice("cpu")([np.ones(2)])
