"""GraphNorm's fused kernel (sorted batch, NumPy float32 / float64) against PyG and
against the array code it replaces: empty graphs, one-row graphs, batch None, a
batch_size beyond the last id, unsorted batches (the array code), the same bits at 1 and
2 threads, inputs unchanged."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from arraygnn.kernels.cpu.graph_norm import graph_norm_sorted
from arraygnn.nn.norm import GraphNorm


def _reference(x, batch, size, scale, w, b, eps):
    x = x.astype(np.float64)
    if batch is None:
        batch, size = np.zeros(x.shape[0], np.int64), 1
    cnt = np.maximum(np.bincount(batch, minlength=size), 1)[:, None]
    mean = np.zeros((size, x.shape[1]))
    np.add.at(mean, batch, x)
    out = x - (mean / cnt)[batch] * scale
    var = np.zeros((size, x.shape[1]))
    np.add.at(var, batch, out * out)
    return w * out / np.sqrt((var / cnt)[batch] + eps) + b


def _params(rng, f, dtype):
    return (
        rng.uniform(0.2, 1.5, f).astype(dtype),
        rng.uniform(0.5, 2, f).astype(dtype),
        rng.standard_normal(f).astype(dtype),
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("counts", [[0], [1], [3, 0, 1, 5], [0, 0, 4, 0], [700, 1, 2000, 30]])
def test_sorted_batches_match_reference(dtype, counts):
    rng = np.random.default_rng(len(counts))
    f = 13
    batch = np.repeat(np.arange(len(counts)), counts)
    x = (rng.standard_normal((batch.shape[0], f)) * 3 + 2).astype(dtype)
    scale, w, b = _params(rng, f, dtype)
    norm = GraphNorm(f, dtype=dtype)
    norm.mean_scale, norm.weight, norm.bias = scale, w, b
    before = x.copy()
    size = len(counts) + 2  # two empty graphs past the last id
    got = norm(x, batch.astype(np.int32), size)
    tol = 3e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, _reference(x, batch, size, scale, w, b, 1e-5), atol=tol)
    assert got.dtype == dtype
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(norm(x), _reference(x, None, 1, scale, w, b, 1e-5), atol=tol)


def test_unsorted_batch_takes_the_array_code_and_agrees():
    rng = np.random.default_rng(1)
    batch = rng.integers(0, 6, 500)
    x = rng.standard_normal((500, 8)).astype(np.float32)
    norm = GraphNorm(8)
    norm.mean_scale, norm.weight, norm.bias = _params(rng, 8, np.float32)
    order = np.argsort(batch, kind="stable")
    unsorted = norm(x, batch)
    fused = norm(x[order], batch[order])
    np.testing.assert_allclose(unsorted[order], fused, atol=3e-6)


def test_same_bits_at_one_and_two_threads():
    rng = np.random.default_rng(2)
    batch = np.sort(rng.integers(0, 300, 60000))
    x = rng.standard_normal((60000, 24)).astype(np.float32)
    ptr = np.zeros(301, np.int64)
    np.cumsum(np.bincount(batch, minlength=300), out=ptr[1:])
    p = _params(rng, 24, np.float32)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = graph_norm_sorted(x, ptr, *p, 1e-5)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = graph_norm_sorted(x, ptr, *p, 1e-5)
    finally:
        numba.set_num_threads(old)
    assert one.tobytes() == two.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_as_pyg(dtype):
    torch = pytest.importorskip("torch")
    pnn = pytest.importorskip("torch_geometric.nn")
    rng = np.random.default_rng(3)
    batch = np.sort(rng.integers(0, 7, 400))
    x = (rng.standard_normal((400, 16)) * 2 + 1).astype(dtype)
    theirs = pnn.GraphNorm(16).double()
    with torch.no_grad():
        for p in (theirs.weight, theirs.bias, theirs.mean_scale):
            p.uniform_(0.3, 1.7)
    ours = GraphNorm(16, dtype=dtype)
    ours.weight = theirs.weight.detach().numpy().astype(dtype)
    ours.bias = theirs.bias.detach().numpy().astype(dtype)
    ours.mean_scale = theirs.mean_scale.detach().numpy().astype(dtype)
    want = theirs(torch.as_tensor(x.astype(np.float64)), torch.as_tensor(batch)).detach()
    tol = 3e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(ours(x, batch), want.numpy(), atol=tol)
