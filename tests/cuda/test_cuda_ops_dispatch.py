"""``arraygnn.ops`` driving the CUDA launchers under the simulator.

``arraygnn.ops`` sends NumPy arrays to ``arraygnn.kernels.cpu.<module>``; here those module
names are pointed at ``arraygnn.kernels.cuda.<module>`` (which mirror them name for name),
so the public ops (validation, CSR, reshapes, dtype rules) run end to end through the CUDA
kernels on the simulator, compared with the naive oracles. On a real GPU,
``test_cuda_ops.py`` does the same with CuPy arrays.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest
from _cuda_support import CUDA_TEST_MARKS, REAL_GPU, TOLERANCE, small_launch  # noqa: F401

from arraygnn import ops
from arraygnn.kernels import reference
from arraygnn.testing.cases import get_case

pytestmark = [
    *CUDA_TEST_MARKS,
    pytest.mark.skipif(REAL_GPU, reason="the simulator's NumPy route; see test_cuda_ops.py"),
]

MODULES = ("gather", "segment", "spmm", "sddmm", "edge_softmax")


@pytest.fixture(autouse=True)
def cuda_kernels_for_numpy(monkeypatch):
    for name in MODULES:
        cuda_module = importlib.import_module(f"arraygnn.kernels.cuda.{name}")
        monkeypatch.setitem(sys.modules, f"arraygnn.kernels.cpu.{name}", cuda_module)


def _close(got, expected, dtype):
    assert got.dtype == np.dtype(dtype)
    tol = TOLERANCE[np.dtype(dtype)]
    np.testing.assert_allclose(
        got.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol
    )


@pytest.mark.parametrize("name", ["empty", "zero-in-degree", "bipartite", "hub", "unsorted"])
def test_public_ops_through_cuda_kernels(name):
    case = get_case(name, np.int32)
    ei, n_src, n_dst, e = case.edge_index, case.num_src_nodes, case.num_dst_nodes, case.num_edges
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n_src, 3)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, e).astype(np.float32)
    csr = ops.to_csr(ei, n_src, n_dst)
    for reduce in ("sum", "mean", "max"):
        _close(
            ops.spmm(csr, x, edge_weight=w, reduce=reduce, num_dst_nodes=n_dst),
            reference.naive_spmm(ei, x, w, reduce, n_dst),
            np.float32,
        )
    msgs = x[case.src].astype(np.float64)
    for reduce in ("sum", "min", "prod"):
        _close(
            ops.scatter(msgs, case.dst, n_dst, reduce=reduce),
            reference.naive_scatter(msgs, case.dst, n_dst, reduce),
            np.float64,
        )
    _close(ops.gather(x, case.src), x[case.src], np.float32)
    y = rng.standard_normal((n_dst, 3)).astype(np.float16)
    _close(
        ops.sddmm(csr, x.astype(np.float16), y, op="dot"),
        reference.naive_sddmm(ei, x.astype(np.float16), y, "dot", "u", "v"),
        np.float16,
    )
    logits = rng.standard_normal((e, 2)).astype(np.float32)
    got = ops.edge_softmax(csr, logits)
    if e:
        _close(got, reference.naive_edge_softmax(ei, logits, n_dst), np.float32)
    assert got.shape == logits.shape
