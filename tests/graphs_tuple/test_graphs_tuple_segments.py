"""jraph's segment operations: NumPy references on random segments, jax / jraph parity,
dropped out-of-range ids, empty segments, errors."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import (
    partition_softmax,
    segment_max,
    segment_mean,
    segment_min,
    segment_normalize,
    segment_softmax,
    segment_sum,
)

OPS = [
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "segment_variance",
    "segment_max_or_constant",
    "segment_min_or_constant",
]


def _reference(op, data, ids, n):
    """Plain NumPy, one segment at a time (out-of-range ids dropped)."""
    out = []
    for s in range(n):
        rows = data[ids == s]
        if op == "segment_sum":
            out.append(rows.sum(0) if len(rows) else np.zeros(data.shape[1:], data.dtype))
        elif op == "segment_mean":
            out.append(rows.mean(0) if len(rows) else np.zeros(data.shape[1:]))
        elif op == "segment_variance":
            out.append(rows.var(0) if len(rows) else np.zeros(data.shape[1:]))
        elif op.startswith("segment_max"):
            empty = -np.inf if op == "segment_max" else 0.0
            out.append(rows.max(0) if len(rows) else np.full(data.shape[1:], empty))
        else:
            empty = np.inf if op == "segment_min" else 0.0
            out.append(rows.min(0) if len(rows) else np.full(data.shape[1:], empty))
    return np.array(out).reshape((n,) + data.shape[1:])


def _case(rng, e, n, dtype, index_dtype, sorted_ids=False, out_of_range=False):
    ids = rng.integers(0, n, size=e) if n else np.zeros(e, int)
    if out_of_range and e:
        ids[rng.random(e) < 0.2] = n + 3
        ids[rng.random(e) < 0.1] = -1
    if sorted_ids:
        ids = np.sort(ids)
    data = rng.normal(size=(e, 3)).astype(dtype)
    return data, ids.astype(index_dtype)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("variant", ["random", "sorted", "out_of_range", "empty", "hub"])
def test_segment_ops_against_numpy(op, index_dtype, dtype, variant):
    rng = np.random.default_rng(zlib.crc32(f"{op}/{variant}".encode()))
    n = 0 if variant == "empty" else 9
    e = 0 if variant == "empty" else 60
    data, ids = _case(
        rng,
        e,
        n,
        dtype,
        index_dtype,
        sorted_ids=variant == "sorted",
        out_of_range=variant == "out_of_range",
    )
    if variant == "hub":
        ids[:] = 4
    before = (data.copy(), ids.copy())
    got = getattr(gt, op)(data, ids, n)
    want = _reference(op, data, ids, n)
    assert got.shape == want.shape
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_array_equal(data, before[0])
    np.testing.assert_array_equal(ids, before[1])


def test_num_segments_defaults_to_max_plus_one():
    assert segment_sum(np.array([1.0, 2.0]), np.array([0, 3])).tolist() == [1.0, 0.0, 0.0, 2.0]
    assert segment_sum(np.zeros((0, 2)), np.zeros(0, int)).shape == (0, 2)


def test_integer_and_bool_data():
    ids = np.array([0, 0, 2])
    assert segment_sum(np.array([1, 2, 3]), ids, 3).tolist() == [3, 0, 3]
    assert segment_mean(np.array([1, 2, 3]), ids, 3).tolist() == [1.5, 0.0, 3.0]
    info = np.iinfo(np.int32)
    got = segment_max(np.array([1, 2, 3], np.int32), ids, 3)
    assert got.dtype == np.int32 and got.tolist() == [2, info.min, 3]
    assert segment_min(np.array([1, 2, 3], np.int32), ids, 3).tolist() == [1, info.max, 3]
    flags = np.array([True, False, False])
    assert segment_max(flags, ids, 3).tolist() == [True, False, False]
    assert segment_min(flags, ids, 3).tolist() == [False, True, False]


def test_nan_propagates_through_max():
    got = segment_max(np.array([1.0, np.nan, 2.0]), np.array([0, 0, 1]), 2)
    assert np.isnan(got[0]) and got[1] == 2.0


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(40,), (40, 3), (40, 2, 2)])
def test_softmax_and_normalize_against_numpy(shape, index_dtype):
    rng = np.random.default_rng(sum(shape))
    logits = rng.normal(size=shape) * 4
    ids = rng.integers(0, 7, size=shape[0]).astype(index_dtype)
    got = segment_softmax(logits, ids, 9)
    norm = segment_normalize(logits, ids, 9)
    want = np.empty_like(logits)
    want_norm = np.empty_like(logits)
    for s in range(9):
        rows = logits[ids == s]
        if len(rows):
            z = np.exp(rows - rows.max(0))
            want[ids == s] = z / z.sum(0)
            want_norm[ids == s] = (rows - rows.mean(0)) / np.sqrt(np.maximum(rows.var(0), 1e-8))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(norm, want_norm, rtol=1e-10, atol=1e-12)


def test_partition_softmax():
    logits = np.log(np.array([1.0, 3.0, 2.0, 5.0]))
    got = partition_softmax(logits, np.array([2, 0, 2]), 4)
    np.testing.assert_allclose(got, [0.25, 0.75, 2 / 7, 5 / 7])
    with pytest.raises(ValueError, match="sum_partitions=5 but partitions sum to 4"):
        partition_softmax(logits, np.array([2, 0, 2]), 5)
    with pytest.raises(TypeError, match="1-D integer array"):
        partition_softmax(logits, np.array([2.0, 2.0]))


def test_errors_name_the_argument():
    data = np.ones(3)
    with pytest.raises(TypeError, match="segment_sum: segment_ids must be an integer array"):
        segment_sum(data, np.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="segment_sum: data has shape \\(3,\\) but segment_ids"):
        segment_sum(data, np.array([0, 1]))
    with pytest.raises(ValueError, match="segment_ids must be 1-D"):
        segment_max(data, np.zeros((3, 1), int))
    with pytest.raises(TypeError, match="num_segments must be an int"):
        segment_min(data, np.array([0, 1, 1]), 2.0)
    with pytest.raises(ValueError, match="num_segments must be >= 0"):
        segment_mean(data, np.array([0, 1, 1]), -1)
    with pytest.raises(ValueError, match="segment_softmax: segment_ids has entry 5, out of range"):
        segment_softmax(data, np.array([0, 1, 5]), 3)
    with pytest.raises(ValueError, match="segment_normalize: segment_ids has entry -1"):
        segment_normalize(data, np.array([0, -1, 1]), 3)
    with pytest.raises(TypeError, match="segment_softmax: logits is bool"):
        segment_softmax(np.array([True, False]), np.array([0, 0]))
    with pytest.raises(TypeError, match="data must be a NumPy or CuPy array"):
        segment_sum([1.0, 2.0], np.array([0, 0]))


@pytest.mark.parametrize(
    "op",
    [
        "segment_sum",
        "segment_mean",
        "segment_max",
        "segment_min",
        "segment_variance",
        "segment_normalize",
        "segment_softmax",
        "segment_max_or_constant",
        "segment_min_or_constant",
    ],
)
def test_matches_jraph(op):
    jraph = pytest.importorskip("jraph")
    rng = np.random.default_rng(7)
    data = rng.normal(size=(50, 4)).astype(np.float32)
    ids = rng.integers(0, 12, size=50).astype(np.int32)
    ours = getattr(gt, op)(data, ids, 14)
    theirs = np.asarray(getattr(jraph, op)(data, ids, 14))
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)
    if op in ("segment_sum", "segment_max", "segment_min", "segment_mean"):
        bad = ids.copy()
        bad[::7] = 20  # dropped by both
        np.testing.assert_allclose(
            getattr(gt, op)(data, bad, 14),
            np.asarray(getattr(jraph, op)(data, bad, 14)),
            rtol=2e-5,
            atol=2e-6,
        )
