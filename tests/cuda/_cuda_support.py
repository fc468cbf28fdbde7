"""Shared pieces of the CUDA kernel tests: device moves, small launch sizes, graph cases.

Under the simulator (``NUMBA_ENABLE_CUDASIM=1``) the launchers get NumPy arrays; on a real
GPU (``ARRAYGNN_REAL_GPU=1`` and CuPy importable) they get CuPy arrays.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

REAL_GPU = os.environ.get("ARRAYGNN_REAL_GPU") == "1"
SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

# small launch sizes: 4 threads x 2 blocks, and rows longer than 3 edges split into pieces,
# so the grid-stride loops and the heavy-row path run even on tiny graphs
SMALL_THREADS = 4
SMALL_BLOCKS = 2
SMALL_HEAVY = 3


def cupy_or_skip():
    if not REAL_GPU:
        pytest.skip("needs ARRAYGNN_REAL_GPU=1 and CuPy")
    return pytest.importorskip("cupy")


def to_dev(a):
    """A device copy of NumPy array ``a`` (CuPy on a GPU, a NumPy copy under the simulator)."""
    if a is None:
        return None
    if REAL_GPU:
        import cupy

        return cupy.asarray(a)
    return np.array(a, copy=True)


def to_host(a):
    if a is None:
        return None
    if REAL_GPU and not isinstance(a, np.ndarray):
        return a.get()
    return np.asarray(a)


def empty_dev(shape, dtype, fill=np.nan):
    """An output array poisoned with ``fill`` so unwritten elements show."""
    return to_dev(np.full(shape, fill, dtype=dtype))


@pytest.fixture
def small_launch(monkeypatch):
    """Patch launch sizes (read at call time) small."""
    from arraygnn._config import settings
    from arraygnn.kernels.cuda import _launch

    monkeypatch.setattr(settings, "cuda_threads_per_block", SMALL_THREADS)
    monkeypatch.setattr(settings, "cuda_max_blocks", SMALL_BLOCKS)
    monkeypatch.setattr(_launch, "HEAVY_ROW_EDGES", SMALL_HEAVY)
    yield


def _graph(name, src, dst, num_src, num_dst):
    return pytest.param(
        (np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), num_src, num_dst),
        id=name,
    )


def _hub():
    rng = np.random.default_rng(3)
    dst = np.concatenate([np.full(11, 4), rng.integers(0, 6, 5)])
    src = rng.integers(0, 6, dst.shape[0])
    return src, dst


#: labelled graph cases (src, dst, num_src, num_dst)
GRAPH_CASES = [
    _graph("empty", [], [], 0, 0),
    _graph("no-edges", [], [], 3, 3),
    _graph("zero-in-degree", [0, 1, 1, 2], [1, 2, 2, 1], 4, 4),
    _graph("isolated-last", [0, 1, 2, 0], [1, 0, 0, 2], 4, 4),
    _graph("self-loops", [0, 1, 1, 2, 2], [0, 1, 0, 2, 1], 3, 3),
    _graph("multi-edges", [0, 0, 0, 1, 1], [1, 1, 1, 0, 0], 2, 2),
    _graph("bipartite", [0, 1, 2, 3, 4, 0], [1, 0, 1, 1, 0, 0], 5, 2),
    _graph("hub", *_hub(), 6, 6),
]


def to_csr(src, dst, num_dst, index_dtype):
    """Destination-sorted CSR (indptr, indices = sorted sources, perm = edge ids)."""
    perm = np.argsort(dst, kind="stable").astype(index_dtype)
    counts = np.bincount(dst, minlength=num_dst)
    indptr = np.zeros(num_dst + 1, dtype=index_dtype)
    np.cumsum(counts, out=indptr[1:])
    return indptr, src[perm].astype(index_dtype), perm


def tolerance(dtype):
    return {"float16": 2e-2, "float32": 1e-5, "float64": 1e-12}[np.dtype(dtype).name]
