"""The array helpers (``one_hot``, ``cumsum``, sorts, selections, ``segment``),
``to_edge_index``, ``normalized_cut`` and ``get_mesh_laplacian``: parity with
``torch_geometric.utils`` (float32 / float64, int32 / int64, empty inputs, ties), inputs not
modified, errors naming the function and the argument."""

from __future__ import annotations

import numpy as np
import pytest
from _utils_cases import INDEX_DTYPES, assert_same, homogeneous_cases, t

import arraygnn.utils as U

CASES = homogeneous_cases()
GRAPHS = [
    pytest.param(dt, ei.astype(dt), n, id=f"{label}-{np.dtype(dt).name}")
    for dt in INDEX_DTYPES
    for label, ei, n in CASES
]
FLOATS = (np.float32, np.float64)


def _pyg():
    pytest.importorskip("torch_geometric")
    import torch_geometric.utils as P

    return P


def _torch():
    return pytest.importorskip("torch")


def _raw(a):
    """A torch tensor of ``a`` keeping its dtype."""
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(a).copy())


# --------------------------------------------------------------------- one_hot, cumsum


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_one_hot_matches_pyg(dt):
    P = _pyg()
    torch = _torch()
    index = np.array([2, 0, 0, 4, 1], dtype=dt)
    assert_same(U.one_hot(index), P.one_hot(t(index)), exact=True)
    assert_same(U.one_hot(index, 7, np.int64), P.one_hot(t(index), 7, torch.int64), exact=True)
    empty = np.zeros(0, dtype=dt)
    assert U.one_hot(empty).shape == (0, 0) and U.one_hot(empty, 3).shape == (0, 3)
    with pytest.raises(ValueError, match="one_hot: index has entry 4, out of range"):
        U.one_hot(index, 4)
    with pytest.raises(ValueError, match="one_hot: index must be one-dimensional"):
        U.one_hot(index[None])
    with pytest.raises(TypeError, match="one_hot: index must be an integer array"):
        U.one_hot(index.astype(float))
    with pytest.raises(TypeError, match="one_hot: dtype must be a NumPy dtype"):
        U.one_hot(index, dtype="nope")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_cumsum_matches_pyg(dtype):
    P = _pyg()
    x = np.arange(24).reshape(2, 3, 4).astype(dtype) - 5
    before = x.copy()
    for dim in (0, 1, 2):
        ours = U.cumsum(x, dim)
        ref = P.cumsum(_raw(x), dim)
        assert_same(ours, ref)
        assert ours.dtype == ref.numpy().dtype
    # PyG's size arithmetic breaks on a negative dim; ours counts it from the end
    np.testing.assert_array_equal(U.cumsum(x, -1), U.cumsum(x, 2))
    assert U.cumsum(np.zeros(0, dtype=dtype)).tolist() == [0]
    np.testing.assert_array_equal(x, before)
    with pytest.raises(ValueError, match="cumsum: dim must lie between -3 and 2"):
        U.cumsum(x, 3)
    with pytest.raises(TypeError, match="cumsum: x must be a numeric"):
        U.cumsum(np.array([True, False]))


# ------------------------------------------------------------------------------ sorting


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_index_sort(dt):
    P = _pyg()
    rng = np.random.default_rng(0)
    x = rng.integers(0, 20, 300).astype(dt)
    for max_value in (None, 19, 10_000):
        values, perm = U.index_sort(x, max_value)
        ref_values, ref_perm = P.index_sort(_raw(x), max_value, stable=True)
        assert_same(values, ref_values)
        assert_same(perm, ref_perm)  # ours is always stable: PyG's stable result
        assert perm.dtype == np.int64 and values.dtype == x.dtype
    values, perm = U.index_sort(np.zeros(0, dtype=dt), 5)
    assert values.shape == perm.shape == (0,)
    with pytest.raises(ValueError, match="index_sort: inputs has entry 19, out of range"):
        U.index_sort(x, max_value=18)
    with pytest.raises(ValueError, match="index_sort: inputs has a negative entry"):
        U.index_sort(np.array([1, -1]))
    with pytest.raises(ValueError, match="index_sort: inputs must be one-dimensional"):
        U.index_sort(x.reshape(3, -1))


@pytest.mark.parametrize("descending", [False, True])
def test_lexsort_matches_pyg(descending):
    P = _pyg()
    rng = np.random.default_rng(1)
    keys = [
        rng.integers(0, 3, (4, 50)),
        rng.standard_normal((4, 50)).round(0),
        rng.integers(0, 2, (4, 50)),
    ]
    keys[1] = keys[1].astype(np.float32)
    for dim in (-1, 0, 1):
        ours = U.lexsort(keys, dim=dim, descending=descending)
        ref = P.lexsort([_raw(k) for k in keys], dim=dim, descending=descending)
        assert_same(ours, ref)
    one = rng.integers(0, 5, 40)
    np.testing.assert_array_equal(U.lexsort([one, one[::-1].copy()]), np.lexsort([one, one[::-1]]))
    with pytest.raises(TypeError, match="lexsort: keys must be a non-empty list"):
        U.lexsort([])
    with pytest.raises(ValueError, match="lexsort: keys\\[1\\] has shape"):
        U.lexsort([one, one[:3]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("descending", [False, True])
def test_group_argsort_matches_pyg(dtype, descending):
    P = _pyg()
    rng = np.random.default_rng(2)
    src = rng.permutation(60).astype(dtype)  # distinct values: PyG's float key is exact
    index = rng.integers(0, 6, 60)
    for consecutive in (False, True):
        ours = U.group_argsort(src, index, descending=descending, return_consecutive=consecutive)
        ref = P.group_argsort(
            _raw(src), t(index), descending=descending, return_consecutive=consecutive
        )
        assert_same(ours, ref)
    # ties: ours is PyG's stable order
    tied = rng.integers(0, 3, 60).astype(dtype)
    ours = U.group_argsort(tied, index, num_groups=8, descending=descending)
    ref = P.group_argsort(_raw(tied), t(index), num_groups=8, descending=descending, stable=True)
    assert_same(ours, ref)


def test_group_argsort_exact_where_pygs_float_key_rounds():
    """PyG folds groups into a float key; with many groups the values of a group round
    together. Ours ranks them exactly."""
    index = np.repeat(np.arange(3000), 2)[::-1].copy()
    src = np.tile(np.array([1.0, 1.0 + 1e-4]), 3000).astype(np.float32)
    ranks = U.group_argsort(src, index)
    np.testing.assert_array_equal(ranks, np.tile([0, 1], 3000))
    assert U.group_argsort(np.zeros(0), np.zeros(0, dtype=np.int32)).dtype == np.int32
    with pytest.raises(ValueError, match="group_argsort: src has 2 entries but index has 3"):
        U.group_argsort(np.ones(2), np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="group_argsort: index has entry 3, out of range"):
        U.group_argsort(np.ones(2), np.array([0, 3]), num_groups=3)
    with pytest.raises(ValueError, match="group_argsort: dim must be 0 or -1"):
        U.group_argsort(np.ones(2), np.array([0, 1]), dim=1)


@pytest.mark.parametrize("dtype", FLOATS)
def test_group_cat_matches_pyg(dtype):
    P = _pyg()
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal((2, 3)).astype(dtype)]
    idx = [np.array([0, 0, 1, 2]), np.array([0, 2])]
    out, index = U.group_cat(xs, idx, return_index=True)
    ref_out, ref_index = P.group_cat([_raw(x) for x in xs], [t(i) for i in idx], return_index=True)
    assert_same(out, ref_out, exact=True)
    assert_same(index, ref_index)
    xt = [x.T.copy() for x in xs]
    assert_same(
        U.group_cat(xt, idx, dim=1),
        P.group_cat([_raw(x) for x in xt], [t(i) for i in idx], dim=1),
        exact=True,
    )
    with pytest.raises(
        ValueError, match="group_cat: indices\\[1\\] must be 1-D with one id per slice"
    ):
        U.group_cat(xs, [idx[0], idx[0]])
    with pytest.raises(ValueError, match="group_cat: tensors and indices must be non-empty"):
        U.group_cat(xs, idx[:1])


# ------------------------------------------------------------------------- selections


@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_select_narrow_mask_select_match_pyg(dt):
    P = _pyg()
    x = np.arange(24.0).reshape(4, 6)
    before = x.copy()
    index = np.array([3, 0, 3], dtype=dt)
    mask = np.array([True, False, True, True, False, True])
    assert_same(U.select(x, index, 0), P.select(_raw(x), t(index), 0), exact=True)
    assert_same(U.select(x, mask, 1), P.select(_raw(x), _raw(mask), 1), exact=True)
    assert_same(U.mask_select(x, -1, mask), P.mask_select(_raw(x), -1, _raw(mask)), exact=True)
    items = list("abcdef")
    assert U.select(items, mask, 0) == P.select(items, _raw(mask), 0)
    assert U.select(items, index, 0) == P.select(items, t(index), 0)
    assert_same(U.narrow(x, 1, 2, 3), P.narrow(_raw(x), 1, 2, 3), exact=True)
    assert U.narrow(items, 0, 1, 2) == P.narrow(items, 0, 1, 2)
    out = U.narrow(x, 0, 0, 2)
    out[:] = -1  # a fresh array, never a view of the input
    np.testing.assert_array_equal(x, before)
    with pytest.raises(ValueError, match="select: index_or_mask has entry 3, out of range"):
        U.select(x[:3], index, 0)
    with pytest.raises(ValueError, match="select: a list src can only be selected along dim 0"):
        U.select(items, mask, 1)
    with pytest.raises(ValueError, match="mask_select: mask has 6 entries but src has 4"):
        U.mask_select(x, 0, mask)
    with pytest.raises(TypeError, match="mask_select: mask must be a boolean array"):
        U.mask_select(x, 0, np.ones(4))
    with pytest.raises(ValueError, match="narrow: start 5 and length 2 run past"):
        U.narrow(x, 1, 5, 2)
    with pytest.raises(TypeError, match="narrow: src must be a NumPy / CuPy array or a list"):
        U.narrow((1, 2), 0, 0, 1)


# ---------------------------------------------------------------------------- segment


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduce", ["sum", "mean", "min", "max"])
@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_segment_matches_pyg(dtype, reduce, dt):
    P = _pyg()
    rng = np.random.default_rng(4)
    src = rng.standard_normal((12, 3)).astype(dtype)
    ptr = np.array([0, 0, 3, 3, 7, 12], dtype=dt)  # empty segments, first and middle
    before = src.copy()
    ours = U.segment(src, ptr, reduce)
    ref = P.segment(_raw(src), t(ptr), reduce)
    assert_same(ours, ref)
    assert ours.dtype == dtype
    # a pointer inside the rows (PyG accepts it too)
    assert_same(U.segment(src, ptr[1:-1], reduce), P.segment(_raw(src), t(ptr[1:-1]), reduce))
    np.testing.assert_array_equal(src, before)


def test_segment_integers_and_errors():
    out = U.segment(np.array([1, 2, 3, 4]), np.array([0, 2, 4]), "add")
    assert out.tolist() == [3, 7]
    assert U.segment(np.ones(3), np.array([0])).shape == (0,)
    with pytest.raises(ValueError, match="segment: ptr must be non-decreasing"):
        U.segment(np.ones(3), np.array([0, 2, 1]))
    with pytest.raises(ValueError, match=r"segment: ptr must run within \[0, 3\]"):
        U.segment(np.ones(3), np.array([0, 4]))
    with pytest.raises(ValueError, match="segment: reduce must be"):
        U.segment(np.ones(3), np.array([0, 3]), "mul")
    with pytest.raises(ValueError, match="segment: reduce must be one of"):
        U.segment(np.ones(3), np.array([0, 3]), "median")
    with pytest.raises(TypeError, match="segment: ptr must be an integer array"):
        U.segment(np.ones(3), np.array([0.0, 3.0]))


# ----------------------------------------------------------------------- to_edge_index


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_to_edge_index_matches_pyg(fmt, dtype):
    P = _pyg()
    torch = _torch()
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    dense = (rng.random((6, 7)) < 0.3) * rng.standard_normal((6, 7))
    dense = dense.astype(dtype)
    A = getattr(sp, f"{fmt}_matrix")(dense)
    ei, w = U.to_edge_index(A)
    layout = {"coo": torch.sparse_coo, "csr": torch.sparse_csr, "csc": torch.sparse_csc}[fmt]
    T = _raw(dense).to_sparse(layout=layout)
    ref_ei, ref_w = P.to_edge_index(T)
    assert_same(ei, ref_ei)
    assert_same(w, ref_w, exact=True)
    assert ei.dtype == np.int64 and w.dtype == dtype
    empty_ei, empty_w = U.to_edge_index(sp.csr_matrix((3, 3), dtype=dtype))
    assert empty_ei.shape == (2, 0) and empty_w.shape == (0,)
    with pytest.raises(TypeError, match="to_edge_index: adj must be a scipy.sparse"):
        U.to_edge_index(dense)


# ----------------------------------------------------------------------- normalized_cut


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("dt", "ei", "n"), GRAPHS)
def test_normalized_cut_matches_pyg(dtype, dt, ei, n):
    P = _pyg()
    w = np.random.default_rng(n).random(ei.shape[1]).astype(dtype)
    before = w.copy()
    with np.errstate(divide="ignore"):
        ours = U.normalized_cut(ei, w, num_nodes=n)
    ref = P.normalized_cut(t(ei), _raw(w), num_nodes=n)
    assert_same(ours, ref)
    assert ours.dtype == dtype
    np.testing.assert_array_equal(w, before)


def test_normalized_cut_errors():
    ei = np.array([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="normalized_cut: edge_attr must be a float array"):
        U.normalized_cut(ei, np.array([1, 2]))
    with pytest.raises(ValueError, match="normalized_cut: edge_attr must have one row per edge"):
        U.normalized_cut(ei, np.ones(3))
    with pytest.raises(ValueError, match="normalized_cut: edge_attr must be one-dimensional"):
        U.normalized_cut(ei, np.ones((2, 2)))
    with pytest.raises(ValueError, match="normalized_cut: edge_index has entry 1, out of range"):
        U.normalized_cut(ei, np.ones(2), num_nodes=1)


# ------------------------------------------------------------------- mesh Laplacian


def _mesh(dt, dtype, seed=0):
    rng = np.random.default_rng(seed)
    pos = rng.standard_normal((25, 3)).astype(dtype)
    face = np.stack([rng.choice(24, 3, replace=False) for _ in range(30)], axis=1)  # node 24 unused
    return pos, face.astype(dt)


@pytest.mark.parametrize("normalization", [None, "sym", "rw"])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dt", INDEX_DTYPES)
def test_mesh_laplacian_matches_pyg(normalization, dtype, dt):
    P = _pyg()
    pos, face = _mesh(dt, dtype)
    before = (pos.copy(), face.copy())
    ei, w = U.get_mesh_laplacian(pos, face, normalization)
    ref_ei, ref_w = P.get_mesh_laplacian(_raw(pos), t(face), normalization)
    assert_same(ei, ref_ei)
    assert w.dtype == dtype
    tol = 2e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(w, ref_w.numpy(), rtol=tol, atol=tol)
    assert ei.dtype == face.dtype  # ids keep their dtype
    np.testing.assert_array_equal(pos, before[0])
    np.testing.assert_array_equal(face, before[1])


def test_mesh_laplacian_errors():
    pos, face = _mesh(np.int64, np.float64)
    with pytest.raises(ValueError, match=r"get_mesh_laplacian: pos must have shape \[N, 3\]"):
        U.get_mesh_laplacian(pos[:, :2], face)
    with pytest.raises(ValueError, match=r"get_mesh_laplacian: face must have shape \[3, F\]"):
        U.get_mesh_laplacian(pos, face.T)
    with pytest.raises(ValueError, match="get_mesh_laplacian: normalization must be None"):
        U.get_mesh_laplacian(pos, face, "both")
    with pytest.raises(ValueError, match="get_mesh_laplacian: face has entry 24, out of range"):
        U.get_mesh_laplacian(pos[:24], np.full((3, 1), 24))
    with pytest.raises(TypeError, match="get_mesh_laplacian: pos must be a float array"):
        U.get_mesh_laplacian(pos.astype(np.int64), face)
