"""CuPy workers: the same partitioned propagation with features on the GPU (skips without one)."""

import numpy as np
import pytest

pytest.importorskip("distributed")
cp = pytest.importorskip("cupy")
try:
    cp.cuda.runtime.getDeviceCount()
except Exception:  # pragma: no cover - CuPy without a usable GPU
    pytest.skip("CuPy sees no GPU", allow_module_level=True)

from arraygnn import ops  # noqa: E402
from arraygnn.datasets import powerlaw_graph  # noqa: E402
from arraygnn.distributed import local_cluster, partition_graph, propagate  # noqa: E402


def test_cupy_features_stay_on_the_gpu_and_match_single_gpu_ops():
    n = 3000
    src, dst = powerlaw_graph(n - 10, 30_000, seed=1)
    ei = np.stack([src, dst])
    w = np.random.default_rng(0).random(ei.shape[1]).astype(np.float32)
    x = cp.asarray(np.random.default_rng(1).standard_normal((n, 32)).astype(np.float32))
    pg = partition_graph(ei, n, 3, edge_weight=w)
    with local_cluster(n_workers=1) as client:
        hops = propagate(client, pg, x, hops=2)
        assert hops[2].on_gpu
        kinds = client.gather([client.submit(type, f, pure=False) for f in hops[2].futures])
        assert all(k.__module__.startswith("cupy") for k in kinds)
        got = hops[2].gather()
    assert isinstance(got, cp.ndarray)
    ei_d, w_d = cp.asarray(ei), cp.asarray(w)
    want = ops.spmm(ei_d, ops.spmm(ei_d, x, edge_weight=w_d), edge_weight=w_d)
    cp.testing.assert_array_equal(got, want)
