"""Exact small examples of every public op, and the API shape rules."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from arraygnn import ops


def test_import_does_not_import_numba():
    code = "import sys, arraygnn.ops; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_gather_rows():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([3, 0, 3], dtype=np.int32)
    np.testing.assert_array_equal(ops.gather(x, idx), x[idx])
    assert ops.gather(x, idx[:0]).shape == (0, 3)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.complex64, np.float16])
def test_gather_any_dtype(dtype):
    x = (np.arange(10).reshape(5, 2) % 3).astype(dtype)
    idx = np.array([4, 4, 1, 0])
    np.testing.assert_array_equal(ops.gather(x, idx), x[idx])


def test_gather_odd_row_bytes_and_nd():
    x = np.arange(5 * 3 * 1, dtype=np.uint8).reshape(5, 3, 1)
    idx = np.array([2, 1])
    np.testing.assert_array_equal(ops.gather(x, idx), x[idx])


def test_scatter_reductions_exact():
    src = np.array([1.0, 2.0, 4.0, -1.0])
    idx = np.array([0, 0, 2, 2])
    assert ops.scatter(src, idx, 4, "sum").tolist() == [3.0, 0.0, 3.0, 0.0]
    assert ops.scatter(src, idx, 4, "mean").tolist() == [1.5, 0.0, 1.5, 0.0]
    assert ops.scatter(src, idx, 4, "max").tolist() == [2.0, 0.0, 4.0, 0.0]
    assert ops.scatter(src, idx, 4, "min").tolist() == [1.0, 0.0, -1.0, 0.0]
    assert ops.scatter(src, idx, 4, "prod").tolist() == [2.0, 0.0, -4.0, 0.0]


def test_pyg_reduce_names_add_and_mul():
    """PyG's ``add`` / ``mul`` are ``sum`` / ``prod`` in every op that reduces."""
    src = np.array([[1.0, 3.0], [2.0, -1.0], [4.0, 0.5]])
    idx = np.array([1, 1, 0])
    ptr = np.array([0, 2, 3])
    ei = np.array([[0, 1, 2], [1, 1, 0]])
    for alias, name in (("add", "sum"), ("mul", "prod")):
        assert ops.scatter(src, idx, 3, alias).tolist() == ops.scatter(src, idx, 3, name).tolist()
        assert ops.segment(src, ptr, alias).tolist() == ops.segment(src, ptr, name).tolist()
        assert ops.spmm(ei, src, reduce=alias).tolist() == ops.spmm(ei, src, reduce=name).tolist()
    with pytest.raises(ValueError, match="also PyG's 'add' = 'sum', 'mul' = 'prod'"):
        ops.scatter(src, idx, 3, "amax")


def test_scatter_integer_values():
    src = np.array([1, 2, 4], dtype=np.int64)
    out = ops.scatter(src, np.array([1, 1, 0]), 3, "sum")
    assert out.dtype == np.int64 and out.tolist() == [4, 3, 0]
    assert ops.scatter(src, np.array([1, 1, 0]), 3, "mean").tolist() == [4, 1, 0]


def test_segment_exact():
    src = np.array([[1.0, 0.0], [2.0, 1.0], [5.0, 5.0]])
    ptr = np.array([0, 2, 2, 3])
    assert ops.segment(src, ptr, "sum").tolist() == [[3.0, 1.0], [0.0, 0.0], [5.0, 5.0]]
    assert ops.segment(src, ptr, "max").tolist() == [[2.0, 1.0], [0.0, 0.0], [5.0, 5.0]]
    assert ops.segment(src, np.array([0]), "sum").shape == (0, 2)


def test_spmm_shapes_and_bipartite():
    ei = np.array([[0, 1, 2, 2], [0, 0, 1, 1]])
    x = np.arange(3.0)
    assert ops.spmm(ei, x, num_dst_nodes=2).tolist() == [1.0, 4.0]
    x3 = np.ones((3, 2, 4))
    w = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 0.0], [1.0, 1.0]])
    out = ops.spmm(ei, x3, edge_weight=w, num_dst_nodes=2)
    assert out.shape == (2, 2, 4)
    np.testing.assert_array_equal(out[:, :, 0], [[2.0, 4.0], [4.0, 1.0]])
    # size-1 head of x broadcasts against the weight's heads
    out_b = ops.spmm(ei, np.ones((3, 1, 4)), edge_weight=w, num_dst_nodes=2)
    np.testing.assert_array_equal(out_b, out)
    # [N, H] with [E, H] weights: per-head scalars
    out_h = ops.spmm(ei, np.ones((3, 2)), edge_weight=w, num_dst_nodes=2)
    np.testing.assert_array_equal(out_h, out[:, :, 0])


def test_spmm_accepts_csr_and_keeps_default_sizes():
    ei = np.array([[0, 1, 2], [2, 2, 0]], dtype=np.int32)
    csr = ops.to_csr(ei, 3, 3)
    x = np.random.default_rng(0).random((3, 5))
    np.testing.assert_array_equal(ops.spmm(csr, x), ops.spmm(ei, x))
    assert ops.spmm(csr, x, reduce="mean").shape == (3, 5)


def test_sddmm_ops_exact():
    ei = np.array([[0, 1], [1, 1]])
    u = np.array([[1.0, 2.0], [3.0, 4.0]])
    v = np.array([[10.0, 20.0], [30.0, 40.0]])
    assert ops.sddmm(ei, u, v, "add").tolist() == [[31.0, 42.0], [33.0, 44.0]]
    assert ops.sddmm(ei, u, v, "sub").tolist() == [[-29.0, -38.0], [-27.0, -36.0]]
    assert ops.sddmm(ei, u, v, "dot").tolist() == [[110.0], [250.0]]
    assert ops.sddmm(ei, u, v, "copy_lhs").tolist() == u[[0, 1]].tolist()
    assert ops.sddmm(ei, u, v, "copy_rhs").tolist() == v[[1, 1]].tolist()
    e = np.array([2.0, 3.0])
    assert ops.sddmm(ei, u, e, "mul", "u", "e").tolist() == [[2.0, 4.0], [9.0, 12.0]]
    # GAT broadcasting: [N, H, 1] + [N, H, F]
    out = ops.sddmm(ei, np.ones((2, 3, 1)), np.ones((2, 3, 4)), "add")
    assert out.shape == (2, 3, 4)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((0,), (0,)), ((0,), (1,)), ((1,), (0,)), ((3, 0), (1, 0))])
def test_sddmm_dot_of_no_features_is_zero(dtype, shapes):
    """An empty sum: the kernels read the first product unconditionally (uninitialised
    memory came back: 4.97e13, inf, ...)."""
    ei = np.array([[0, 1, 1, 0], [1, 0, 1, 0]])
    lhs = np.full((2,) + shapes[0], 7, dtype)
    rhs = np.full((2,) + shapes[1], 7, dtype)
    want_tail = np.broadcast_shapes(shapes[0][:-1], shapes[1][:-1]) + (1,)
    for index in (ei, ops.to_csr(ei, 2, 2)):
        got = ops.sddmm(index, lhs, rhs, "dot")
        assert got.shape == (4,) + want_tail and got.dtype == dtype
        assert not got.any()


def test_edge_softmax_rows_sum_to_one():
    ei = np.array([[0, 1, 2, 0], [1, 1, 1, 0]])
    logits = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 1000.0], [5.0, -5.0]])
    out = ops.edge_softmax(ei, logits, num_dst_nodes=2)
    np.testing.assert_allclose(out[:3].sum(axis=0), [1.0, 1.0])
    np.testing.assert_allclose(out[3], [1.0, 1.0])
    assert np.isfinite(out).all()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_edge_softmax_non_finite_logit_stays_in_its_target(bad):
    """A NaN / inf logit touches only its own target's edges. The CPU kernel once started
    every row's sum at ``logits[0, 0] * 0``, so a NaN / inf on edge 0 made every output
    NaN."""
    ei = np.array([[0, 1, 2, 3], [0, 0, 1, 1]])
    logits = np.array([bad, 0.0, 1.0, 2.0])
    got = ops.edge_softmax(ei, logits, num_dst_nodes=2)
    np.testing.assert_allclose(got[2:], [1 / (1 + np.e), np.e / (1 + np.e)])
    with np.errstate(invalid="ignore"):
        row0 = np.exp(logits[:2] - logits[:2].max()) if bad == -np.inf else [np.nan] * 2
    np.testing.assert_allclose(got[:2], row0 / np.sum(row0) if bad == -np.inf else row0)
    np.testing.assert_array_equal(ops.edge_softmax(ops.to_csr(ei, 4, 2), logits), got)


def test_edge_softmax_of_sparse_target_ids_needs_no_count():
    """Without num_dst_nodes the row pointer was sized by the largest target id: 2**36
    asked for 512 GiB, 2**64 - 1 failed inside NumPy."""
    logits = np.array([0.0, np.log(3.0), 1.0])
    for big in (2**36, 2**64 - 1):
        dst = np.array([big, big, 5], dtype=np.uint64)
        ei = np.stack([np.zeros(3, np.uint64), dst])
        np.testing.assert_allclose(ops.edge_softmax(ei, logits), [0.25, 0.75, 1.0])
        small = ops.edge_softmax(np.array([[0, 0, 0], [1, 1, 0]]), logits)
        np.testing.assert_array_equal(ops.edge_softmax(ei, logits), small)  # same bits
    with pytest.raises(ValueError, match="negative"):
        ops.edge_softmax(np.array([[0, 0], [-1, 2**40]]), logits[:2])


def test_to_csr_fields():
    ei = np.array([[3, 0, 1, 2], [1, 0, 1, 0]], dtype=np.int32)
    csr = ops.to_csr(ei, 4, 3)
    assert csr.indptr.tolist() == [0, 2, 4, 4]
    assert csr.perm.tolist() == [1, 3, 0, 2]  # stable within each target
    assert csr.indices.tolist() == [0, 2, 3, 1]
    assert csr.indices.dtype == np.int32 and csr.indptr.dtype == np.int32
    assert csr.in_degrees().tolist() == [2, 2, 0]
    np.testing.assert_array_equal(csr.edge_index, ei)
    assert not csr.indptr.flags.writeable


def test_max_min_propagate_nan_and_empty_rows_are_zero():
    ei = np.array([[0, 1, 2], [1, 1, 1]])
    x = np.array([[1.0, np.nan], [np.nan, 2.0], [3.0, 0.5]])
    for reduce in ("max", "min"):
        out = ops.spmm(ei, x, reduce=reduce)
        assert np.isnan(out[1]).all()
        assert out[0].tolist() == [0.0, 0.0] and out[2].tolist() == [0.0, 0.0]
        assert np.isnan(ops.scatter(x, ei[1], 3, reduce)[1]).all()


def test_rows_of_slots_repeat_and_search_agree():
    """The slot -> row helper shared by the reference, the CUDA slot walk and the CSR
    check: NumPy's repeat and the search used for CuPy (no array repeat there) agree."""
    import types

    from arraygnn.kernels.reference import rows_of_slots

    not_numpy = types.SimpleNamespace(arange=np.arange, searchsorted=np.searchsorted)
    for indptr in ([0], [0, 0, 0], [0, 3, 3, 4, 9], [0, 0, 5]):
        ptr = np.array(indptr, dtype=np.int32)
        want = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        np.testing.assert_array_equal(rows_of_slots(np, ptr), want)
        np.testing.assert_array_equal(rows_of_slots(not_numpy, ptr), want)
