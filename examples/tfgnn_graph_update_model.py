"""A three-round TF-GNN-style model (GraphUpdate / NodeSetUpdate with SimpleConv and
GATv2Conv, then TF-GNN's GraphSAGE) over the guide's papers / authors graph, at inference on
NumPy arrays.

The weights are set from lists in the order Keras' ``layer.get_weights()`` returns them (here
random; in practice saved from the trained TF-GNN model). The script checks two properties:
the merged graph of three papers/authors graphs gives each component the output the single
graph gives, and padding with ``pad_to_total_sizes`` leaves the real components' outputs
unchanged.

    python examples/tfgnn_graph_update_model.py
"""

from __future__ import annotations

import numpy as np

from arraygnn.graph_tensor import (
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
    merge_graphs_to_components,
)
from arraygnn.graph_tensor.layers import (
    GATv2Conv,
    GraphSAGEGraphUpdate,
    GraphUpdate,
    NextStateFromConcat,
    NodeSetUpdate,
    ResidualNextState,
    SimpleConv,
    dense,
    load_keras_weights,
)
from arraygnn.padding import SizeConstraints, pad_to_total_sizes
from arraygnn.pipeline.readout import readout

rng = np.random.default_rng(0)


def papers_authors(scale: float) -> GraphTensor:
    """The guide's graph: 3 papers (one-hot embedding), 4 authors (one-hot id)."""
    return GraphTensor.from_pieces(
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([3]), features={"hidden_state": scale * np.eye(3, dtype=np.float32)}
            ),
            "author": NodeSet.from_fields(
                sizes=np.array([4]), features={"hidden_state": np.eye(4, dtype=np.float32)}
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=np.array([3]),
                adjacency=Adjacency.from_indices(
                    source=("paper", np.array([1, 2, 2])), target=("paper", np.array([0, 0, 1]))
                ),
            ),
            "writes": EdgeSet.from_fields(
                sizes=np.array([7]),
                adjacency=Adjacency.from_indices(
                    source=("author", np.array([0, 0, 1, 1, 2, 2, 3])),
                    target=("paper", np.array([0, 1, 0, 1, 1, 2, 2])),
                ),
            ),
        },
    )


def graph_update(paper_dim: int, author_dim: int, state: int, residual: bool) -> GraphUpdate:
    """One round: papers hear their citing papers (SimpleConv) and their authors (GATv2);
    authors hear their papers (SimpleConv, mean)."""

    def next_state(in_dim: int) -> object:
        if residual:
            return ResidualNextState(dense(in_dim, state), activation="relu")
        return NextStateFromConcat(dense(in_dim, state, "relu"))

    paper = NodeSetUpdate(
        {
            "cites": SimpleConv(dense(2 * paper_dim, 8, "relu"), "sum", receiver_tag=TARGET),
            "writes": GATv2Conv(
                num_heads=2,
                per_head_channels=4,
                receiver_tag=TARGET,
                receiver_dim=paper_dim,
                sender_node_dim=author_dim,
            ),
        },
        next_state(paper_dim + 8 + 8),
    )
    author = NodeSetUpdate(
        {
            "writes": SimpleConv(
                dense(paper_dim + author_dim, 8, "relu"), "mean", receiver_tag=SOURCE
            )
        },
        next_state(author_dim + 8),
    )
    layer = GraphUpdate(node_sets={"paper": paper, "author": author})
    # weights in Keras' get_weights() order (random stand-ins for a trained model's)
    layer.set_weights([0.5 * rng.standard_normal(w.shape) for w in layer.get_weights()])
    return layer


rounds = [graph_update(3, 4, 16, residual=False), graph_update(16, 16, 16, residual=True)]
# graph_sage: pooling convolutions into papers; sized on its first call, as Keras
rounds.append(GraphSAGEGraphUpdate(units=16, hidden_units=8, receiver_tag=TARGET, rng=1))
head = load_keras_weights(dense(16, 2), [rng.standard_normal((16, 2)), np.zeros(2)])


def model(graph: GraphTensor) -> np.ndarray:
    for layer in rounds:
        graph = layer(graph)
    return head(readout(graph, node_set_name="paper", feature_name="hidden_state"))


graphs = [papers_authors(s) for s in (1.0, 2.0, 0.5)]
single = [model(g) for g in graphs]
merged = merge_graphs_to_components(graphs)
together = model(merged)
print("paper logits, first graph:\n", np.round(single[0], 4))
np.testing.assert_allclose(together, np.concatenate(single), rtol=1e-5, atol=1e-6)

constraints = SizeConstraints(
    total_num_components=5,
    total_num_nodes={"paper": 16, "author": 16},
    total_num_edges={"cites": 16, "writes": 32},
)
padded, mask = pad_to_total_sizes(merged, constraints)
out = model(padded)
print("padded paper logits:", out.shape, "real components:", mask.tolist())
np.testing.assert_allclose(out[: together.shape[0]], together, rtol=1e-5, atol=1e-6)
print("ok")
