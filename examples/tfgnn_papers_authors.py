"""The TF-GNN GraphTensor guide's papers / authors example on NumPy arrays.

Builds the heterogeneous graph (node sets "paper", "author"; edge sets "cites", "writes"),
computes the mean paper embedding of every author with broadcast + pool, writes the graph's
schema as ``graph_schema.pbtxt`` and reads it back, then merges a batch of graphs into
components and splits it again.

    python examples/tfgnn_papers_authors.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from arraygnn.graph_tensor import (
    SOURCE,
    TARGET,
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
    broadcast_node_to_edges,
    merge_graphs_to_components,
    pool_edges_to_node,
    split_components,
)
from arraygnn.io.schema import (
    check_graph_conforms,
    create_graph_spec_from_schema,
    create_schema_from_graph_spec,
    read_schema,
    write_schema,
)

# Encodes the following imaginary papers:
# [0] K. Kernel, L. Limit: "Anisotropic approximation", 2018.
# [1] K. Kernel, L. Limit, M. Minor: "Better bipartite bijection bounds", 2019.
# [2] M. Minor, N. Normal: "Convolutional convergence criteria", 2020.
# where paper [1] cites [0] and paper [2] cites [0] and [1].
graph = GraphTensor.from_pieces(
    node_sets={
        "paper": NodeSet.from_fields(
            sizes=np.array([3]),
            features={
                "tokenized_title": Ragged.from_list(
                    [
                        ["Anisotropic", "approximation"],
                        ["Better", "bipartite", "bijection", "bounds"],
                        ["Convolutional", "convergence", "criteria"],
                    ]
                ),
                "embedding": np.array(  # One-hot encodes the first letter.
                    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32
                ),
                "year": np.array([2018, 2019, 2020], dtype=np.int32),
            },
        ),
        "author": NodeSet.from_fields(
            sizes=np.array([4]),
            features={
                "name": np.array(["Kevin Kernel", "Leila Limit", "Max Minor", "Nora Normal"]),
            },
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

# Compute the mean paper embedding.
embedding_on_edge = broadcast_node_to_edges(graph, "writes", TARGET, feature_name="embedding")
mean_paper_embedding = pool_edges_to_node(
    graph, "writes", SOURCE, reduce_type="mean", feature_value=embedding_on_edge
)
# Insert it into the GraphTensor.
author_features = graph.node_sets["author"].get_features_dict()
author_features["mean_paper_embedding"] = mean_paper_embedding
graph = graph.replace_features(node_sets={"author": author_features})
print(graph.node_sets["author"]["mean_paper_embedding"])
expected = [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0]]
assert graph.node_sets["author"]["mean_paper_embedding"].tolist() == expected

# Describe the graph in a graph_schema.pbtxt and read it back.
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "graph_schema.pbtxt"
    write_schema(create_schema_from_graph_spec(graph.spec), path)
    schema = read_schema(path)
    print(path.read_text().splitlines()[:12])
check_graph_conforms(graph, schema)
assert create_graph_spec_from_schema(schema) == graph.spec

# A batch of three graphs merged into one graph of three components, and back.
merged = merge_graphs_to_components([graph, graph, graph])
print("papers per component:", merged.node_sets["paper"].sizes.tolist())
print("writes targets:", merged.edge_sets["writes"].adjacency.target.tolist())
batched = batch_graph_tensors([graph, graph, graph])  # rank 1: fields ragged over the batch
assert batched.shape == (3,)
again = batched.merge_batch_to_components()
assert again.edge_sets["writes"].adjacency.target.tolist() == (
    merged.edge_sets["writes"].adjacency.target.tolist()
)
parts = split_components(merged)
assert [p.node_sets["author"].total_size for p in parts] == [4, 4, 4]
print("ok")
