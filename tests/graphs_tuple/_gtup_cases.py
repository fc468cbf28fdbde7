"""Random GraphsTuples for the jraph-face tests: zero-node and zero-edge graphs, self loops,
multi-edges, nested features."""

from __future__ import annotations

import numpy as np

from arraygnn.graphs_tuple import GraphsTuple


def random_graph(rng, *, num_graphs=None, index_dtype=np.int64, nested=False, dtype=np.float32):
    """One GraphsTuple of 0-3 graphs with features on nodes, edges and globals."""
    g = int(rng.integers(0, 4)) if num_graphs is None else num_graphs
    n_node = rng.integers(0, 6, size=g)
    n_edge = np.where(n_node > 0, rng.integers(0, 8, size=g), 0)
    senders, receivers, start = [], [], 0
    for nodes, edges in zip(n_node, n_edge):
        senders.append(rng.integers(0, max(nodes, 1), size=edges) + start)
        receivers.append(rng.integers(0, max(nodes, 1), size=edges) + start)
        start += nodes
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0)  # noqa: E731
    senders = cat(senders).astype(index_dtype)
    receivers = cat(receivers).astype(index_dtype)
    total_n, total_e = int(n_node.sum()), int(n_edge.sum())
    nodes = rng.normal(size=(total_n, 3)).astype(dtype)
    edges = rng.normal(size=(total_e, 2)).astype(dtype)
    globals_ = rng.normal(size=(g, 4)).astype(dtype)
    if nested:
        nodes = {"h": nodes, "pos": [rng.normal(size=(total_n,)).astype(dtype)]}
    return GraphsTuple(
        nodes=nodes,
        edges=edges,
        receivers=receivers,
        senders=senders,
        globals=globals_,
        n_node=n_node.astype(index_dtype),
        n_edge=n_edge.astype(index_dtype),
    )


def single_graphs(rng, count, **kwargs):
    return [random_graph(rng, num_graphs=1, **kwargs) for _ in range(count)]


def assert_tree_equal(a, b, where="tree"):
    if a is None or b is None:
        assert a is None and b is None, f"{where}: {a!r} vs {b!r}"
        return
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            assert_tree_equal(a[k], b[k], f"{where}[{k!r}]")
        return
    if isinstance(a, (list, tuple)) and not hasattr(a, "dtype"):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_tree_equal(x, y, f"{where}[{i}]")
        return
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)


def assert_graphs_equal(a, b):
    for name in GraphsTuple._fields:
        assert_tree_equal(getattr(a, name), getattr(b, name), name)
