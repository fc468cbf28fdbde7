"""jraph's recipe on NumPy: molecules -> GraphsTuples -> fixed-size padded batches -> a
Graph Network, then the same batches handed to jraph under ``jax.jit`` (one trace).

1. every shipped molecule becomes a one-graph ``GraphsTuple`` (``from_data``);
2. ``dynamically_batch`` packs consecutive molecules into batches padded to exactly 256
   nodes, 512 edges and 17 graphs (jraph's rule: one padding graph holds the spare nodes
   and edges, the masks tell real from padding);
3. a small Graph Network (edge, node and global updates, plain NumPy functions with fixed
   random weights) predicts one number per molecule; padding does not change the real
   graphs' outputs (checked against running each batch unpadded);
4. with JAX and jraph installed, the same padded batches go to ``jraph.GraphConvolution``
   under ``jax.jit`` through ``to_jraph`` (no copy: the batches are 64-byte aligned) and
   match ``arraygnn.graphs_tuple.GraphConvolution``; JAX traces once for all batches.

``python examples/jraph_padded_batches.py``
"""

from __future__ import annotations

import itertools

import numpy as np

import arraygnn.graphs_tuple as gt
from arraygnn.datasets import load_molecules

SIZES = {"n_node": 256, "n_edge": 512, "n_graph": 17}
rng = np.random.default_rng(0)
W_EDGE = rng.normal(size=(3 + 9 + 9 + 1, 8)) * 0.3
W_NODE = rng.normal(size=(9 + 8 + 8 + 1, 8)) * 0.3
W_GLOBAL = rng.normal(size=(8 + 8 + 1, 1)) * 0.3


def as_float(graph: gt.GraphsTuple) -> gt.GraphsTuple:
    """int8 atom / bond codes as float features, one zero global per graph."""
    return graph._replace(
        nodes=graph.nodes.astype(np.float32),
        edges=graph.edges.astype(np.float32),
        globals=np.zeros((graph.n_node.shape[0], 1), np.float32),
    )


def graph_network() -> gt.GraphNetwork:
    def edge_fn(edges, sent, received, glob):
        return np.tanh(np.concatenate([edges, sent, received, glob], -1) @ W_EDGE)

    def node_fn(nodes, sent, received, glob):
        return np.tanh(np.concatenate([nodes, sent, received, glob], -1) @ W_NODE)

    @gt.concatenated_args
    def global_fn(features):
        return features @ W_GLOBAL

    return gt.GraphNetwork(
        edge_fn, node_fn, global_fn, aggregate_nodes_for_globals_fn=gt.segment_mean
    )


def main() -> None:
    dataset = load_molecules(index_dtype=np.int32)
    molecules = (as_float(gt.from_data(dataset[i])) for i in range(400))
    batches = list(gt.dynamically_batch(molecules, **SIZES))
    net = graph_network()
    predictions = []
    for padded in batches:
        assert padded.n_node.shape[0] == SIZES["n_graph"]
        assert padded.nodes.shape[0] == SIZES["n_node"]
        out = gt.zero_out_padding(net(padded))
        real = gt.get_graph_padding_mask(padded)
        unpadded = net(gt.unpad_with_graphs(padded))
        np.testing.assert_allclose(out.globals[real], unpadded.globals, rtol=1e-5, atol=1e-6)
        predictions.append(out.globals[real, 0])
    predictions = np.concatenate(predictions)
    assert predictions.shape == (400,) and np.isfinite(predictions).all()
    print(
        f"{len(batches)} padded batches of {SIZES}; 400 molecules predicted, "
        f"mean {predictions.mean():.4f}"
    )

    try:
        import jax
        import jax.numpy as jnp
        import jraph
    except ImportError:
        print("JAX / jraph not installed: the hand-off step is skipped")
        return
    weight = rng.normal(size=(9, 4)).astype(np.float32)
    traces = itertools.count()

    @jax.jit
    def gcn(graph):
        next(traces)  # runs once per trace, not per call
        return jraph.GraphConvolution(lambda x: x @ jnp.asarray(weight), add_self_edges=True)(
            graph
        ).nodes

    ours = gt.GraphConvolution(lambda x: x @ weight, add_self_edges=True)
    # JAX reads these NumPy buffers in place and runs asynchronously: keep every handed-over
    # batch referenced until its results are read, so that the buffers are released on this
    # thread and never on a JAX worker while Python shuts down (docs/interop.md)
    handed = []
    for padded in batches:
        handed.append(gt.to_jraph(padded))
        theirs = np.asarray(gcn(handed[-1]))
        np.testing.assert_allclose(theirs, ours(padded).nodes, rtol=1e-4, atol=1e-5)
    print(
        f"jraph.GraphConvolution under jax.jit: {len(batches)} batches, "
        f"{next(traces)} trace(s), same outputs as arraygnn's"
    )


if __name__ == "__main__":
    main()
