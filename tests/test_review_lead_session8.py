"""Review of the session's collation (``__cat_dim__ = -1``, ``<key>_ptr``), LayerNorm kernels
and BatchNorm fold: cases the lead's tests did not cover, against PyG / torch where they
apply."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Batch, Data
from arraygnn.dataset import PackedDataset


# ------------------------------------------------------------ PackedDataset, 1-D index keys
def _index_graphs(dtype=np.int64):
    out = []
    for n, e in ((3, 2), (2, 1), (4, 3)):
        rng = np.random.default_rng(n)
        out.append(
            Data(
                x=rng.normal(size=(n, 2)),
                edge_index=rng.integers(0, n, (2, e)).astype(dtype),
                node_index=np.arange(n)[::-1].astype(dtype),  # a node-level id per node
                center_index=np.array([n - 1], dtype),  # a 1-D graph-level id
                y=np.array([float(n)]),
            )
        )
    return out


def _same_batch(a, b):
    assert sorted(a.keys()) == sorted(b.keys())  # (PackedDataset: node keys first)
    for k in a.keys():
        va, vb = a[k], b[k]
        if isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype and va.tolist() == vb.tolist(), k
        else:
            assert va == vb, k
    for k in a._slice_dict:
        assert np.asarray(a._slice_dict[k]).tolist() == np.asarray(b._slice_dict[k]).tolist(), k
        assert np.asarray(a._inc_dict[k]).tolist() == np.asarray(b._inc_dict[k]).tolist(), k
        assert a._cat_dim_dict[k] == b._cat_dim_dict[k], k


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_packed_from_data_list_keeps_each_graphs_own_1d_index_ids(dtype):
    # a 1-D index key is now collated along dim 0 and increased (PyG's -1); the packed
    # store must hold every graph's own ids, not the batch's increased ones
    graphs = _index_graphs(dtype)
    ds = PackedDataset.from_data_list(graphs, node_keys=("x", "node_index"))
    for i, g in enumerate(graphs):
        got = ds[i]
        for k in ("center_index", "node_index", "edge_index"):
            assert got[k].dtype == g[k].dtype and got[k].tolist() == g[k].tolist(), (i, k)
    idx = [2, 0, 1]
    want = Batch.from_data_list([graphs[i] for i in idx], follow_batch=["node_index"])
    _same_batch(ds.collate(idx, follow_batch=["node_index"]), want)


def test_packed_from_arrays_1d_index_keys_collate_as_batch():
    nn, ne = np.array([3, 2, 4]), np.array([1, 0, 2])
    ds = PackedDataset.from_arrays(
        nn,
        ne,
        {"x": np.ones((9, 2)), "node_index": np.array([0, 2, 1, 1, 0, 3, 2, 1, 0])},
        np.array([[0, 1, 3], [2, 0, 1]]),
        {"edge_index_rev": np.array([0, 0, 1])},  # an edge-level id key
        {"center_index": np.array([2, 1, 3])},
    )
    for idx in ([0, 1, 2], [2, 1], [1]):
        want = Batch.from_data_list([ds[i] for i in idx])
        _same_batch(ds.collate(idx), want)


def test_packed_from_arrays_out_of_range_1d_index_key_raises_as_batch():
    ds = PackedDataset.from_arrays(
        np.array([2, 2]), np.array([0, 0]), {"x": np.ones((4, 1))}, None, {},
        {"center_index": np.array([1, 5])},
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"center_index.*graph 1.*node id 5"):
        Batch.from_data_list([ds[0], ds[1]])
    with pytest.raises(ValueError, match=r"center_index.*graph 1.*node id 5"):
        ds.collate([0, 1])


def test_packed_wide_index_key_collates_as_batch():
    # a [1, 2] id row per graph is concatenated along its last dim by Batch (PyG's -1)
    ds = PackedDataset.from_arrays(
        np.array([2, 3]), np.array([0, 0]), {"x": np.ones((5, 1))}, None, {},
        {"pair_index": np.array([[0, 1], [2, 0]])},
    )  # fmt: skip
    want = Batch.from_data_list([ds[1], ds[0]])
    assert want.pair_index.tolist() == [[2, 0, 3, 4]]
    _same_batch(ds.collate([1, 0]), want)


# ------------------------------------------------------------------ LayerNorm kernels
@pytest.mark.parametrize("batch_dtype", [np.uint64, np.dtype(">i8"), np.dtype(">i4"), np.uint16])
def test_graph_layer_norm_takes_every_integer_batch_dtype(batch_dtype):
    # the fused kernel path took uint64 / big-endian ids into Numba (TypingError); the
    # array path it replaced took them
    torch = pytest.importorskip("torch")
    pyg_nn = pytest.importorskip("torch_geometric.nn")
    from arraygnn.nn.norm import LayerNorm

    rng = np.random.default_rng(0)
    x = rng.normal(size=(9, 3)).astype(np.float32)
    batch = np.array([2, 0, 0, 1, 2, 2, 0, 1, 4])
    theirs = pyg_nn.LayerNorm(3)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(rng.normal(size=3).astype(np.float32)))
        theirs.bias.copy_(torch.from_numpy(rng.normal(size=3).astype(np.float32)))
    ours = LayerNorm(3)
    ours.weight, ours.bias = theirs.weight.detach().numpy(), theirs.bias.detach().numpy()
    want = theirs(torch.from_numpy(x), torch.from_numpy(batch), 6).detach().numpy()
    got = ours(x, batch.astype(batch_dtype), 6)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ BatchNorm fold
def _batch_norm_params(f, dtype, mean=1e4):
    rng = np.random.default_rng(1)
    return [
        (mean + rng.normal(size=f)).astype(dtype),  # running_mean: far from 0
        rng.uniform(0.5, 2, f).astype(dtype),  # running_var
        rng.normal(size=f).astype(dtype),
        rng.normal(size=f).astype(dtype),
    ]


def test_batch_norm_float64_input_with_float32_statistics_keeps_float64_precision():
    # the fold computed scale and shift in the statistics' float32, so a float64 x near a
    # large running_mean lost all but ~3 digits to cancellation (x * scale + shift)
    from arraygnn.nn.linear import BatchNorm

    f = 8
    layer = BatchNorm(f)
    rm, rv, w, b = _batch_norm_params(f, np.float32)
    layer.running_mean, layer.running_var, layer.weight, layer.bias = rm, rv, w, b
    x = rm.astype(np.float64) + np.random.default_rng(2).normal(size=(50, f))
    want = (x - rm.astype(np.float64)) / np.sqrt(rv.astype(np.float64) + layer.eps)
    want = want * w.astype(np.float64) + b.astype(np.float64)
    got = layer(x)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "x_dtype,param_dtype,out_dtype",
    [
        (np.float16, np.float32, np.float32),
        (np.float32, np.float32, np.float32),
        (np.float64, np.float32, np.float64),
        (np.float32, np.float64, np.float64),
        (np.int64, np.float32, np.float64),
    ],
)
def test_batch_norm_result_dtype_as_unfolded(x_dtype, param_dtype, out_dtype):
    from arraygnn.nn.linear import BatchNorm

    layer = BatchNorm(4, dtype=param_dtype)
    layer.running_mean, layer.running_var, layer.weight, layer.bias = _batch_norm_params(
        4, param_dtype, mean=1.0
    )
    x = np.random.default_rng(3).integers(-3, 4, (6, 4)).astype(x_dtype)
    before = x.copy()
    got = layer(x)
    rm, rv, w, b = layer.running_mean, layer.running_var, layer.weight, layer.bias
    unfolded = (x - rm) / np.sqrt(rv + layer.eps) * w + b
    assert got.dtype == unfolded.dtype == out_dtype
    tol = 1e-2 if x_dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got, unfolded, rtol=tol, atol=tol)
    np.testing.assert_array_equal(x, before)


def test_batch_norm_float32_matches_torch_eval():
    torch = pytest.importorskip("torch")
    from arraygnn.nn.linear import BatchNorm

    f = 16
    rm, rv, w, b = _batch_norm_params(f, np.float32)
    x = (rm + np.random.default_rng(4).normal(size=(200, f))).astype(np.float32)
    for affine in (True, False):
        layer = BatchNorm(f, affine=affine)
        layer.running_mean, layer.running_var = rm, rv
        if affine:
            layer.weight, layer.bias = w, b
        t = [torch.from_numpy(a) for a in (x, rm, rv, w, b)]
        want = torch.nn.functional.batch_norm(
            t[0], t[1], t[2], t[3] if affine else None, t[4] if affine else None, False, 0.1, 1e-5
        ).numpy()
        # torch folds the statistics too: both lose the same digits to x * scale + shift
        np.testing.assert_allclose(layer(x), want, rtol=0, atol=2e-3)


@pytest.mark.parametrize("shape", [(3, 0), (2, 3, 0), (0, 0)])
def test_zero_features_keep_their_shape(shape):
    # the kernels reshaped (*, 0) inputs with -1 (a ValueError); torch and the array code
    # return the empty input's shape
    torch = pytest.importorskip("torch")
    from arraygnn.nn.linear import BatchNorm, LayerNorm

    x = np.ones(shape, np.float32)
    want = tuple(torch.nn.functional.layer_norm(torch.from_numpy(x), (0,)).shape)
    assert LayerNorm(0)(x).shape == want == shape
    assert BatchNorm(0)(x).shape == shape


def test_packed_narrow_1d_index_key_keeps_its_dtype_and_overflows_as_batch():
    graphs = [Data(x=np.ones((3, 1)), node_index=np.array([2, 0, 1], np.int8)) for _ in range(60)]
    with pytest.raises(OverflowError):
        Batch.from_data_list(graphs)
    ds = PackedDataset.from_data_list(graphs, node_keys=("x", "node_index"))
    assert ds[59].node_index.dtype == np.int8 and ds[59].node_index.tolist() == [2, 0, 1]
    _same_batch(ds.collate([5, 7]), Batch.from_data_list(graphs[:2]))
    with pytest.raises(OverflowError, match="node_index"):
        ds.collate(np.arange(60))
