"""GraphsTuple <-> jraph (JAX arrays) and <-> the PyG face."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.graphs_tuple import (
    GraphConvolution,
    GraphsTuple,
    batch,
    from_data,
    from_jraph,
    pad_with_graphs,
    to_data_list,
    to_jraph,
)
from tests.graphs_tuple._gtup_cases import assert_graphs_equal, single_graphs


def _data_list(rng, count):
    out = []
    for _ in range(count):
        n = int(rng.integers(1, 6))
        e = int(rng.integers(0, 7))
        out.append(
            Data(
                x=rng.normal(size=(n, 3)),
                edge_index=rng.integers(0, n, size=(2, e)),
                edge_attr=rng.normal(size=(e, 2)),
                u=rng.normal(size=(1, 4)),
            )
        )
    return out


def test_from_batch_matches_batching_the_graphs():
    rng = np.random.default_rng(0)
    data = _data_list(rng, 5)
    b = Batch.from_data_list(data)
    g = from_data(b, globals="u")
    assert g.n_node.tolist() == [d.num_nodes for d in data]
    assert g.n_edge.tolist() == [d.edge_index.shape[1] for d in data]
    assert_graphs_equal(g, batch([from_data(d, globals="u") for d in data]))
    back = to_data_list(g)
    for d, e in zip(data, back):
        for key in ("x", "edge_index", "edge_attr", "u"):
            np.testing.assert_array_equal(getattr(d, key), getattr(e, key))
        assert e.num_nodes == d.num_nodes
    again = Batch.from_data_list(back)
    np.testing.assert_array_equal(again.edge_index, b.edge_index)


def test_from_data_feature_selection_and_errors():
    d = Data(edge_index=np.array([[0], [1]]), num_nodes=2, pos=np.ones((2, 3)))
    g = from_data(d, nodes="pos")
    assert g.nodes.shape == (2, 3) and g.edges is None and g.globals is None
    assert from_data(d).nodes is None
    with pytest.raises(ValueError, match="has no 'feat'"):
        from_data(d, nodes="feat")
    with pytest.raises(ValueError, match="edge_index array of shape"):
        from_data(Data(x=np.ones((2, 1))))
    with pytest.raises(ValueError, match="out of range"):
        from_data(Data(x=np.ones((2, 1)), edge_index=np.array([[0], [4]])))
    with pytest.raises(TypeError, match="flatten the tree"):
        to_data_list(
            GraphsTuple({"a": np.ones(2)}, None, None, None, None, np.array([2]), np.array([0]))
        )


def test_to_jraph_and_back_shares_memory_and_runs_jraph_models():
    jraph = pytest.importorskip("jraph")
    rng = np.random.default_rng(1)
    g = batch(single_graphs(rng, 4, index_dtype=np.int32))
    jg = to_jraph(g)
    assert isinstance(jg, jraph.GraphsTuple)
    # batch / pad allocate 64-byte-aligned outputs: JAX adopts every array (no copy)
    from arraygnn.interop import to_jax

    for graph in (g, pad_with_graphs(g, int(g.n_node.sum()) + 3, int(g.n_edge.sum()) + 2, 7)):
        _, report = to_jax(tuple(graph), report=True)
        assert not report.copied, report
    assert jg.nodes.unsafe_buffer_pointer() == g.nodes.ctypes.data
    for name in ("nodes", "senders", "n_node"):
        np.testing.assert_array_equal(np.asarray(getattr(jg, name)), getattr(g, name))
    theirs = jraph.GraphConvolution(lambda x: x, add_self_edges=True)(jg)
    ours = GraphConvolution(lambda x: x, add_self_edges=True)(g)
    np.testing.assert_allclose(np.asarray(theirs.nodes), ours.nodes, rtol=2e-5, atol=2e-6)
    back = from_jraph(jg)
    assert isinstance(back, GraphsTuple) and isinstance(back.nodes, np.ndarray)
    assert_graphs_equal(back, g)
    with pytest.raises(TypeError, match="expected a jraph.GraphsTuple"):
        from_jraph(np.ones(3))
