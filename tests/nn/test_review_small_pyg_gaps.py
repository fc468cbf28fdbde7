"""Review cases for knn_interpolate, gini / bro, segment_logsumexp, ToSparseTensor, ToDevice
and DeepGraphInfomax against torch_geometric 2.8 (cases the first tests missed).

PyG's ``knn`` needs pyg-lib: the ``pyg_knn`` fixture of ``test_small_pyg_gaps`` puts a
brute-force torch kernel in its place.
"""

from __future__ import annotations

import warnings
from collections import namedtuple

import numpy as np
import pytest

from tests.nn._nn_cases import rel_err

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

import torch_geometric.nn as pyg_nn  # noqa: E402
import torch_geometric.transforms as T  # noqa: E402
from torch_geometric.data import Data as PygData  # noqa: E402
from torch_geometric.nn.functional import bro as pyg_bro  # noqa: E402

import arraygnn.nn as agnn  # noqa: E402
from arraygnn.data import Data  # noqa: E402
from arraygnn.hetero_data import HeteroData  # noqa: E402
from arraygnn.nn import from_pyg  # noqa: E402
from arraygnn.transforms import ToDevice, ToSparseTensor  # noqa: E402
from arraygnn.utils import segment_logsumexp  # noqa: E402
from tests.nn.test_small_pyg_gaps import _pyg_interpolate, pyg_knn  # noqa: E402, F401


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# ---------------------------------------------------------------- knn_interpolate
def test_knn_interpolate_bool_features_as_pyg(pyg_knn):  # noqa: F811
    """PyG multiplies a bool ``x`` by the float weights: a float result."""
    rng = np.random.default_rng(0)
    x = rng.random((7, 3)) > 0.5
    pos_x, pos_y = rng.standard_normal((7, 2)), rng.standard_normal((4, 2))
    expected = _pyg_interpolate(x, pos_x, pos_y, None, None, 3)
    out = agnn.knn_interpolate(x, pos_x, pos_y)
    assert out.dtype == expected.dtype == np.float64
    assert rel_err(out, expected) <= 1e-12


def test_knn_interpolate_float16_coincident_point_no_warning(pyg_knn):  # noqa: F811
    """float16 coordinates: 1e-16 rounds to 0, a coincident point has weight inf (NaN
    row, as PyG) and no RuntimeWarning escapes."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 2)).astype(np.float16)
    pos_x = rng.standard_normal((6, 2)).astype(np.float16)
    pos_y = rng.standard_normal((3, 2)).astype(np.float16)
    pos_y[0] = pos_x[2]
    expected = _pyg_interpolate(x, pos_x, pos_y, None, None, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = agnn.knn_interpolate(x, pos_x, pos_y)
    assert out.dtype == expected.dtype == np.float16
    assert np.array_equal(np.isnan(out), np.isnan(expected)) and np.isnan(out[0]).all()
    assert rel_err(out[1:], expected[1:]) <= 5e-3


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64, np.uint8])
def test_knn_interpolate_examples_with_skipped_ids(pyg_knn, index_dtype):  # noqa: F811
    """batch_x / batch_y with ids that skip values and a y-example beyond the last
    x-example (NaN rows), k above every example's size."""
    rng = np.random.default_rng(2)
    batch_x = np.array([0, 0, 2, 2, 2, 5], index_dtype)
    batch_y = np.array([0, 2, 2, 5, 6, 6], index_dtype)
    x = rng.standard_normal((6, 3))
    pos_x, pos_y = rng.standard_normal((6, 2)), rng.standard_normal((6, 2))
    expected = _pyg_interpolate(x, pos_x, pos_y, batch_x, batch_y, 4)
    out = agnn.knn_interpolate(x, pos_x, pos_y, batch_x, batch_y, k=4)
    assert np.array_equal(np.isnan(out), np.isnan(expected)) and np.isnan(out[4:]).all()
    assert rel_err(out[:4], expected[:4]) <= 1e-12


# ---------------------------------------------------------------- bro
def test_bro_large_graph_ids_match_pyg():
    """PyG averages over the ids present (``unique``): a huge id costs nothing there, and
    must not size a dense [max_id + 1, N_max, F] array here."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 3))
    batch = np.array([0, 0, 7, 7, 7, 10**12], np.int64)
    for p in (2, "fro", "nuc", 1):
        expected = pyg_bro(_t(x), _t(batch), p=p).item()
        assert abs(float(agnn.bro(x, batch, p=p)) - expected) <= 1e-12 * abs(expected)


# ---------------------------------------------------------------- segment_logsumexp
@pytest.mark.parametrize("ptr_dtype", [np.uint32, np.uint64])
def test_segment_logsumexp_unsigned_decreasing_ptr_names_the_function(ptr_dtype):
    """An unsigned ptr that steps down wraps in ``ptr[1:] - ptr[:-1]``; the check must
    still catch it (not a message from deep inside ops)."""
    with pytest.raises(ValueError, match="segment_logsumexp: ptr must be non-decreasing"):
        segment_logsumexp(np.zeros(4), np.array([0, 3, 1, 4], ptr_dtype), 0)
    out = segment_logsumexp(np.zeros(4), np.array([0, 1, 4], ptr_dtype), 0)
    assert np.allclose(out, [0.0, np.log(3.0)])


# ---------------------------------------------------------------- ToSparseTensor
def test_to_sparse_tensor_bool_weight_as_pyg():
    """PyG keeps a bool ``edge_weight`` as the values (parallel edges: True)."""
    ei = np.array([[0, 1, 1, 2, 1], [1, 0, 2, 1, 2]])
    w = np.array([True, False, True, False, False])
    out = ToSparseTensor()(Data(edge_index=ei, edge_weight=w, num_nodes=3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = T.ToSparseTensor()(PygData(edge_index=_t(ei), edge_weight=_t(w), num_nodes=3))
    assert out.adj_t.dtype == np.bool_
    assert np.array_equal(out.adj_t.indptr, ref.adj_t.crow_indices().numpy())
    assert np.array_equal(out.adj_t.indices, ref.adj_t.col_indices().numpy())
    assert np.array_equal(out.adj_t.data, ref.adj_t.values().numpy())


def test_to_sparse_tensor_batch_as_documented_matches_pyg():
    """docs/transforms.md: a Batch is transformed with its node arrays (x and its own
    batch vector) and ptr named; the result is PyG's block-diagonal adj_t."""
    from torch_geometric.data import Batch as PygBatch

    from arraygnn.batch import Batch

    ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
    graphs = [(ei, np.arange(4.0)), (ei[:, ::-1].copy(), np.arange(4.0) + 10)]
    mine = Batch.from_data_list(
        [Data(x=np.ones((3, 2)), edge_index=e, edge_weight=w) for e, w in graphs]
    )
    theirs = PygBatch.from_data_list(
        [PygData(x=torch.ones(3, 2), edge_index=_t(e), edge_weight=_t(w)) for e, w in graphs]
    )
    out = ToSparseTensor(node_attrs=["x", "batch"], graph_attrs=["ptr"])(mine)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = T.ToSparseTensor()(theirs)
    assert sorted(out.keys()) == sorted(ref.keys()) == ["adj_t", "batch", "ptr", "x"]
    assert np.array_equal(out.adj_t.toarray(), ref.adj_t.to_dense().numpy())


def test_to_sparse_tensor_hetero_attr_none_keeps_the_weight_sorted():
    ei = np.array([[0, 1, 1, 2], [1, 0, 2, 1]])
    h = HeteroData(a={"num_nodes": 3}, b={"num_nodes": 3})
    store = h["a", "to", "b"]
    store.edge_index, store.edge_weight, store.e_id = ei, np.arange(4.0), np.arange(4)
    out = ToSparseTensor(attr=None)(h)["a", "to", "b"]
    assert sorted(out.keys()) == ["adj_t", "e_id", "edge_weight"]
    assert out.edge_weight.tolist() == [1.0, 0.0, 3.0, 2.0] and out.e_id.tolist() == [1, 0, 3, 2]
    assert out.adj_t.dtype == np.float32 and out.adj_t.nnz == 4
    mine = h["a", "to", "b"]  # the caller's graph is unchanged
    assert mine.edge_index is ei and "adj_t" not in mine
    assert mine.edge_weight.tolist() == [0.0, 1.0, 2.0, 3.0]


# ---------------------------------------------------------------- ToDevice
def test_to_device_moves_arrays_inside_lists_and_dicts(monkeypatch):
    """PyG's ``data.to`` recurses into lists, tuples and dicts of tensors."""
    import arraygnn.transforms.to_device as module

    moved = []

    def fake_to_device(value, device):
        moved.append(value)
        return value.copy()

    monkeypatch.setattr(module, "to_device", fake_to_device)
    pair = namedtuple("Pair", "a b")
    inner = [np.ones(2), (np.zeros(1), "s")]
    table = {"a": np.ones(3)}
    d = Data(
        x=np.ones((2, 1)), extra=inner, table=table, nt=pair(np.ones(1), 3), name="g",
        num_nodes=2,
    )  # fmt: skip
    out = ToDevice("cpu")(d)
    ref = T.ToDevice("cpu")(
        PygData(
            x=torch.ones(2, 1),
            extra=[torch.ones(2), (torch.zeros(1), "s")],
            table={"a": torch.ones(3)},
            nt=pair(torch.ones(1), 3),
            name="g",
            num_nodes=2,
        )
    )
    assert len(moved) == 5
    assert out.extra[0] is not inner[0] and out.extra[1][0] is not inner[1][0]
    for key in ("extra", "table", "nt"):  # the containers PyG's recursive_apply builds
        assert type(out[key]) is type(ref[key])
    assert isinstance(out.extra[1], tuple) and out.extra[1][1] == "s"  # PyG: a list
    assert isinstance(ref.extra[1], list)
    assert out.table["a"] is not table["a"] and out.nt.b == 3 and out.name == "g"
    assert d.extra is inner and isinstance(inner[1], tuple) and table["a"] is d.table["a"]
    moved.clear()
    ToDevice("cpu", attrs=["table"])(d)
    assert len(moved) == 1


def test_to_device_takes_a_torch_device():
    """PyG documents ``device`` as a ``torch.device``."""
    x = np.ones((2, 1))
    transform = ToDevice(torch.device("cpu"))
    assert transform(Data(x=x, num_nodes=2)).x is x
    assert repr(transform) == repr(T.ToDevice(torch.device("cpu"))) == "ToDevice(cpu)"
    assert ToDevice(torch.device("cuda", 1)).device == "cuda:1"


def test_cupy_sparse_dtypes_are_named():
    """cupyx sparse matrices hold bool / float32 / float64 / complex only: int weights
    are refused by name, not deep inside cupyx."""
    cupy = pytest.importorskip("cupy")
    ei = cupy.asarray(np.array([[0, 1], [1, 0]]))
    d = Data(edge_index=ei, edge_weight=cupy.asarray(np.array([1, 2])), num_nodes=2)
    with pytest.raises(TypeError, match="ToSparseTensor: 'edge_weight' has dtype int64"):
        ToSparseTensor()(d)
    d = Data(edge_index=ei, edge_weight=cupy.asarray(np.array([True, False])), num_nodes=2)
    assert ToSparseTensor()(d).adj_t.dtype == np.bool_
    host = ToSparseTensor()(Data(edge_index=np.array([[0], [1]]), edge_weight=np.array([3]),
                                 num_nodes=2))  # fmt: skip
    with pytest.raises(TypeError, match="ToDevice: a sparse matrix of dtype int64"):
        ToDevice("cuda")(host)


# ---------------------------------------------------------------- DeepGraphInfomax
def test_deep_graph_infomax_converts_with_a_stateless_corruption_module():
    """A corruption written as a torch module without weights is a placeholder, as a
    torch function is (it has nothing to convert)."""

    class Corrupt(torch.nn.Module):
        def forward(self, x, edge_index):
            return x.flip(0), edge_index

    torch.manual_seed(0)
    ref = pyg_nn.DeepGraphInfomax(
        4, pyg_nn.GCNConv(3, 4), lambda z, *a, **k: torch.sigmoid(z.mean(0)), Corrupt()
    )
    model = from_pyg(ref)
    assert np.array_equal(model.weight, ref.weight.detach().numpy())
    with pytest.raises(ValueError, match="set model.corruption to a function on arrays"):
        model(np.ones((3, 3), np.float32), np.zeros((2, 0), np.int64))
