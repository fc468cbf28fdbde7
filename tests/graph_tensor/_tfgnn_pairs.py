"""Shared by the cross-checks against the real TF-GNN (``test_gt_layers_tfgnn*.py``): the
same graph as an arraygnn and a TF-GNN GraphTensor, Keras weights randomised and moved into
the arraygnn twin, and the comparisons. Imported only after ``pytest.importorskip`` found
``tensorflow_gnn``."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
import tensorflow_gnn as tfgnn

from arraygnn.graph_tensor import (
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
)
from arraygnn.graph_tensor import layers as ag

RTOL = ATOL = 2e-5


def graph_arrays(node_sets: dict, edge_sets: dict, context: dict, seed: int = 0) -> dict:
    """Random float32 features for ``node set: (sizes, {feature: width})``, ``edge set:
    (sizes, (source set, ids), (target set, ids), {feature: width})`` and ``{feature:
    width}`` context features of three components; a width of ``None`` is a rank-1 positive
    weight."""
    rng = np.random.default_rng(seed)

    def f(n, width):
        if width is None:
            return (np.abs(rng.standard_normal(n)) + 0.1).astype(np.float32)
        return rng.standard_normal((n, width)).astype(np.float32)

    nodes = {
        name: (np.array(sizes), {k: f(sum(sizes), w) for k, w in feats.items()})
        for name, (sizes, feats) in node_sets.items()
    }
    edges = {}
    for name, (sizes, (sn, si), (tn, ti), feats) in edge_sets.items():
        edges[name] = (
            np.array(sizes),
            (sn, np.array(si, np.int64)),
            (tn, np.array(ti, np.int64)),
            {k: f(sum(sizes), w) for k, w in feats.items()},
        )
    ctx = {k: f(3, w) for k, w in context.items()}
    return {"nodes": nodes, "edges": edges, "context": ctx}


def ours(a: dict) -> GraphTensor:
    """The arraygnn GraphTensor of :func:`graph_arrays`' arrays."""
    return GraphTensor.from_pieces(
        context=Context.from_fields(features=a["context"]) if a["context"] else None,
        node_sets={n: NodeSet.from_fields(sizes=s, features=f) for n, (s, f) in a["nodes"].items()},
        edge_sets={
            n: EdgeSet.from_fields(sizes=s, adjacency=Adjacency.from_indices(src, tgt), features=f)
            for n, (s, src, tgt, f) in a["edges"].items()
        },
    )


def theirs(a: dict):
    """The TF-GNN GraphTensor of the same arrays."""
    i32 = lambda x: tf.constant(np.asarray(x, np.int32))  # noqa: E731
    return tfgnn.GraphTensor.from_pieces(
        context=tfgnn.Context.from_fields(
            sizes=i32([1, 1, 1]), features={k: tf.constant(v) for k, v in a["context"].items()}
        ),
        node_sets={
            n: tfgnn.NodeSet.from_fields(
                sizes=i32(s), features={k: tf.constant(v) for k, v in f.items()}
            )
            for n, (s, f) in a["nodes"].items()
        },
        edge_sets={
            n: tfgnn.EdgeSet.from_fields(
                sizes=i32(s),
                adjacency=tfgnn.Adjacency.from_indices(
                    source=(src[0], i32(src[1])), target=(tgt[0], i32(tgt[1]))
                ),
                features={k: tf.constant(v) for k, v in f.items()},
            )
            for n, (s, src, tgt, f) in a["edges"].items()
        },
    )


def randomize(keras_layer, seed: int = 0) -> list:
    """Random values for every Keras weight (non-zero biases, gamma, beta); returns Keras'
    ``get_weights()`` list afterwards."""
    rng = np.random.default_rng(seed)
    new = []
    for var in keras_layer.weights:
        value = 0.5 * rng.standard_normal(var.shape)
        if "moving_variance" in var.name:
            value = np.abs(value) + 0.5
        new.append(value.astype(var.dtype.as_numpy_dtype))
    keras_layer.set_weights(new)
    return keras_layer.get_weights()


def transfer(keras_layer, twin, seed: int = 0):
    """Keras' weights into ``twin``; ``twin.get_weights()`` / ``get_keras_weights`` must
    give them back."""
    weights = randomize(keras_layer, seed)
    assert twin.set_weights(weights) is twin
    back = twin.get_weights()
    assert len(back) == len(weights)
    for i, (got, want) in enumerate(zip(back, weights)):
        assert got.shape == want.shape, (i, got.shape, want.shape)
        np.testing.assert_array_equal(got, want, err_msg=f"weight {i}")
    assert [w.shape for w in ag.get_keras_weights(twin)] == [w.shape for w in weights]
    return twin


def close(got, want, what: str = "") -> None:
    want = want.numpy() if hasattr(want, "numpy") else np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def close_graphs(
    got: GraphTensor, want, *, context: bool = True, same_edge_features: bool = True
) -> None:
    """Every feature of ``want``'s pieces equal in ``got`` (the same feature names; on edge
    sets only with ``same_edge_features``)."""
    if context:
        for k, v in want.context.features.items():
            close(got.context[k], v, f"context {k}")
    for name, ns in want.node_sets.items():
        assert sorted(got.node_sets[name].features) == sorted(ns.features), name
        for k, v in ns.features.items():
            close(got.node_sets[name][k], v, f"node set {name} {k}")
    for name, es in want.edge_sets.items():
        if same_edge_features:
            assert sorted(got.edge_sets[name].features) == sorted(es.features), name
        for k, v in es.features.items():
            close(got.edge_sets[name][k], v, f"edge set {name} {k}")


def width(piece, name) -> int:
    return int(piece[name].shape[-1])


def ends(graph, edge_set_name, receiver_tag):
    """(sender node set, receiver node set) of an edge set for ``receiver_tag``."""
    adj = graph.edge_sets[edge_set_name].adjacency
    sender_tag = SOURCE if receiver_tag == TARGET else TARGET
    return (
        graph.node_sets[adj.node_set_name(sender_tag)],
        graph.node_sets[adj.node_set_name(receiver_tag)],
    )
