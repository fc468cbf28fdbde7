"""Shared pieces of the CUDA kernel tests: device moves, small launch sizes, graph cases.

Under the simulator (``NUMBA_ENABLE_CUDASIM=1``) the CUDA launchers get NumPy arrays; on a
real GPU (``ARRAYGNN_REAL_GPU=1``, CuPy importable) they get CuPy arrays. Every kernel is
compared with the same-named function of :mod:`arraygnn.kernels.reference` (the kernel
contract's oracle) on the labelled graphs of :mod:`arraygnn.testing.cases`.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from arraygnn.ops import to_csr
from arraygnn.testing.cases import CASE_NAMES, get_case

REAL_GPU = os.environ.get("ARRAYGNN_REAL_GPU") == "1"

# 4 threads x 2 blocks and rows longer than 3 edges split into pieces: the grid-stride
# loops and the heavy-row path run even on these tiny graphs
SMALL_THREADS = 4
SMALL_BLOCKS = 2
SMALL_HEAVY = 3

#: (case name, index dtype) pairs: every case with int64, a few with int32
CASES = [pytest.param((name, np.int64), id=f"{name}-i64") for name in CASE_NAMES] + [
    pytest.param((name, np.int32), id=f"{name}-i32")
    for name in ("zero-in-degree", "bipartite", "hub", "unsorted")
]

TOLERANCE = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}

#: marks for every CUDA test module: small launch sizes; Numba's low-occupancy warning
#: says nothing about these deliberately tiny grids
CUDA_TEST_MARKS = [
    pytest.mark.usefixtures("small_launch"),
    pytest.mark.filterwarnings("ignore:Grid size"),
]


def to_dev(a):
    """A device copy of NumPy array ``a`` (CuPy on a GPU, a NumPy copy under the simulator)."""
    if a is None:
        return None
    if REAL_GPU:
        import cupy

        return cupy.asarray(a)
    return np.array(a, copy=True)


def to_host(a):
    if a is None or isinstance(a, np.ndarray):
        return a
    return a.get()


def poisoned(shape, dtype):
    """A device output full of NaN, so unwritten elements show."""
    return to_dev(np.full(shape, np.nan, dtype=dtype))


def case_csr(name, index_dtype):
    """(case, csr) with the CSR's arrays as NumPy arrays (move them with :func:`to_dev`)."""
    case = get_case(name, index_dtype)
    return case, to_csr(case.edge_index, case.num_src_nodes, case.num_dst_nodes)


def assert_close(got, expected, dtype):
    got = to_host(got)
    assert got.dtype == np.dtype(dtype)
    assert not np.isnan(got.astype(np.float64)).any(), "an output element was never written"
    tol = TOLERANCE[np.dtype(dtype)]
    np.testing.assert_allclose(
        got.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol
    )


@pytest.fixture
def small_launch(monkeypatch):
    """Patch the launch sizes (read at call time) and the heavy-row split small."""
    from arraygnn._config import settings
    from arraygnn.kernels.cuda import _launch

    monkeypatch.setattr(settings, "cuda_threads_per_block", SMALL_THREADS)
    monkeypatch.setattr(settings, "cuda_max_blocks", SMALL_BLOCKS)
    monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", SMALL_HEAVY)
