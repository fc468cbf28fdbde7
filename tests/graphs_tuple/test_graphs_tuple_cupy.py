"""The jraph face on CuPy arrays gives the NumPy results (skipped without CuPy and a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
try:
    cupy.cuda.runtime.getDeviceCount()
except Exception:  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA device", allow_module_level=True)

from arraygnn._namespace import to_device  # noqa: E402
from arraygnn.graphs_tuple import (  # noqa: E402
    GAT,
    GraphConvolution,
    GraphNetwork,
    GraphsTuple,
    batch,
    pad_with_graphs,
    segment_max,
    segment_softmax,
    segment_sum,
    unbatch,
    unpad_with_graphs,
)
from tests.graphs_tuple._gtup_cases import assert_graphs_equal, single_graphs  # noqa: E402


def _gpu(graph):
    return GraphsTuple(*to_device(tuple(graph), "cuda"))


def _cpu(graph):
    return GraphsTuple(*to_device(tuple(graph), "cpu"))


@pytest.mark.parametrize("seed", range(3))
def test_batching_and_padding_on_cupy(seed):
    rng = np.random.default_rng(seed)
    graphs = single_graphs(rng, 5, nested=bool(seed % 2))
    cpu = batch(graphs)
    gpu = batch([_gpu(g) for g in graphs])
    assert isinstance(gpu.n_node, cupy.ndarray)
    assert_graphs_equal(_cpu(gpu), cpu)
    sizes = (int(cpu.n_node.sum()) + 3, int(cpu.n_edge.sum()) + 2, 8)
    assert_graphs_equal(_cpu(pad_with_graphs(gpu, *sizes)), pad_with_graphs(cpu, *sizes))
    assert_graphs_equal(_cpu(unpad_with_graphs(pad_with_graphs(gpu, *sizes))), cpu)
    for a, b in zip(unbatch(gpu), unbatch(cpu)):
        assert_graphs_equal(_cpu(a), b)


def test_segments_and_models_on_cupy():
    rng = np.random.default_rng(4)
    g = batch(single_graphs(rng, 6))
    d = _gpu(g)
    ids = rng.integers(0, 9, size=40)
    data = rng.normal(size=(40, 3))
    for op in (segment_sum, segment_max, segment_softmax):
        np.testing.assert_allclose(
            op(cupy.asarray(data), cupy.asarray(ids), 9).get(), op(data, ids, 9), rtol=1e-12
        )
    nets = [
        GraphConvolution(lambda x: x, add_self_edges=True),
        GAT(lambda n: n, lambda s, r, e: (s * r).sum(-1, keepdims=True)),
        GraphNetwork(lambda e, s, r, u: e + s[:, :2], lambda n, s, r, u: n + r[:, :1]),
    ]
    for net in nets:
        np.testing.assert_allclose(net(d).nodes.get(), net(g).nodes, rtol=1e-5, atol=1e-6)
