"""The same GraphTensor operations on CuPy arrays (skipped without CuPy and a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
try:
    cupy.cuda.runtime.getDeviceCount()
except Exception:  # pragma: no cover - depends on the machine
    pytest.skip("no CUDA device", allow_module_level=True)

from arraygnn.graph_tensor import (  # noqa: E402
    SOURCE,
    TARGET,
    batch_graph_tensors,
    broadcast_context_to_nodes,
    broadcast_node_to_edges,
    merge_graphs_to_components,
    pool_edges_to_node,
    pool_nodes_to_context,
    split_components,
)
from tests.graph_tensor._gt_cases import assert_graphs_equal, random_graph  # noqa: E402


def _cpu_graphs(seed, n=3):
    rng = np.random.default_rng(seed)
    return [
        random_graph(rng).remove_features(node_sets={"a": ["label"], "b": ["label"]})
        for _ in range(n)
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_merge_split_batch_on_cupy(seed):
    cpu = _cpu_graphs(seed)
    gpu = [g.to("cuda") for g in cpu]
    assert isinstance(gpu[0].node_sets["a"]["h"], cupy.ndarray)
    merged = merge_graphs_to_components(gpu)
    assert isinstance(merged.edge_sets["ab"].adjacency.source, cupy.ndarray)
    assert_graphs_equal(merged, merge_graphs_to_components(cpu))
    assert_graphs_equal(batch_graph_tensors(gpu).merge_batch_to_components(), merged)
    for a, b in zip(cpu, split_components(merged, [g.num_components for g in gpu])):
        assert_graphs_equal(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_broadcast_pool_on_cupy_match_numpy(seed):
    pytest.importorskip("arraygnn.ops")
    cpu = merge_graphs_to_components(_cpu_graphs(seed))
    gpu = cpu.to("cuda")
    for name in cpu.edge_sets:
        for tag in (SOURCE, TARGET):
            out = broadcast_node_to_edges(gpu, name, tag, feature_name="h")
            assert isinstance(out, cupy.ndarray)
            np.testing.assert_array_equal(
                out.get(), broadcast_node_to_edges(cpu, name, tag, feature_name="h")
            )
            for r in ("sum", "mean", "max_no_inf", "min|prod"):
                np.testing.assert_allclose(
                    pool_edges_to_node(gpu, name, tag, r, feature_name="w").get(),
                    pool_edges_to_node(cpu, name, tag, r, feature_name="w"),
                    rtol=1e-5,
                    atol=1e-6,
                )
    np.testing.assert_allclose(
        pool_nodes_to_context(gpu, "a", "mean", feature_name="h").get(),
        pool_nodes_to_context(cpu, "a", "mean", feature_name="h"),
        rtol=1e-12,
    )
    np.testing.assert_array_equal(
        broadcast_context_to_nodes(gpu, "b", feature_name="g").get(),
        broadcast_context_to_nodes(cpu, "b", feature_name="g"),
    )
