"""Files of tf.Example graphs -> parse -> preprocess -> pad -> one jitted JAX function.

The TF-GNN input-pipeline recipe without TensorFlow:

1. write 300 small heterogeneous graphs (papers citing papers, one label per graph on a
   ``_readout`` node set) to two GZIP TFRecord files, as TF-GNN's ``write_example`` would;
2. learn fit-or-skip size constraints from a sample (success ratio 0.95, batch size 16);
3. stream batches: parse, ``MapFeatures`` preprocessing, pad to the constraints, split the
   labels off the padded graph;
4. hand every batch to a ``jax.jit`` function: because every batch has the same shapes,
   JAX traces it once.

Runs without JAX too (the last step then uses NumPy):
``python examples/pipeline_tfrecord_pad_jax.py``
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from arraygnn.graph_tensor import Adjacency, Context, EdgeSet, GraphTensor, NodeSet
from arraygnn.io.example import write_example
from arraygnn.io.tfrecord import write_tfrecord
from arraygnn.padding import learn_fit_or_skip_size_constraints
from arraygnn.pipeline.batching import GraphBatchLoader
from arraygnn.pipeline.map_features import MapFeatures
from arraygnn.pipeline.readout import split_labels


def make_graph(rng: np.random.Generator) -> GraphTensor:
    n = int(rng.integers(3, 30))  # papers
    m = int(rng.integers(0, 3 * n))  # citations
    year = rng.integers(1990, 2024, n)
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"venue": np.array([int(rng.integers(0, 5))])}),
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([n]),
                features={"year": year, "embedding": rng.standard_normal((n, 8))},
            ),
            # label: "recent" if the first paper is newer than 2010
            "_readout": NodeSet.from_fields(
                sizes=np.array([1]), features={"label": np.array([int(year[0] > 2010)])}
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=np.array([m]),
                adjacency=Adjacency.from_indices(
                    source=("paper", rng.integers(0, n, m)), target=("paper", rng.integers(0, n, m))
                ),
            )
        },
    )


def preprocess_nodes(node_set, *, node_set_name):
    features = dict(node_set.features)
    if node_set_name == "paper":
        features["year"] = ((features["year"] - 2005) / 20.0).astype(np.float32)
        features["embedding"] = features["embedding"].astype(np.float32)  # float64 came as f32
    return features


def main() -> None:
    rng = np.random.default_rng(0)
    graphs = [make_graph(rng) for _ in range(300)]
    spec = graphs[0].spec
    tmp = tempfile.mkdtemp()
    paths = []
    for part in range(2):
        path = os.path.join(tmp, f"papers-{part}.tfrecord.gz")
        write_tfrecord(path, (write_example(g) for g in graphs[part::2]), compression="GZIP")
        paths.append(path)

    batch_size = 16
    constraints = learn_fit_or_skip_size_constraints(
        graphs[:200],
        batch_size,
        success_ratio=0.95,
        sample_size=5000,
        # every component, padding ones too, gets its one _readout node: one label per component
        min_nodes_per_component={"_readout": 1},
    )
    print("learned", constraints)
    loader = GraphBatchLoader(
        paths,
        batch_size,
        spec=spec,
        shuffle=True,
        seed=0,
        drop_remainder=True,
        map_fn=MapFeatures(node_sets_fn=preprocess_nodes),
        constraints=constraints,
        fit_or_skip=True,
    )

    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    traces = []

    def model(x, src, tgt, comp, labels, mask):
        """Mean of cited-paper features per paper, pooled per component, a fixed readout."""
        xp = jnp if jax is not None else np
        traces.append(1)
        n = x.shape[0]
        deg = xp.zeros(n).at[tgt].add(1.0) if jax is not None else np.bincount(tgt, minlength=n)
        if jax is not None:
            agg = xp.zeros_like(x).at[tgt].add(x[src])
            pooled = jax.ops.segment_sum(agg, comp, num_segments=mask.shape[0])
        else:
            agg = np.zeros_like(x)
            np.add.at(agg, tgt, x[src])
            pooled = np.zeros((mask.shape[0], x.shape[1]), x.dtype)
            np.add.at(pooled, comp, agg)
        logits = pooled[:, 0] / xp.maximum(1.0, deg.sum())
        loss = ((logits - labels) ** 2 * mask).sum() / mask.sum()
        return loss

    step = jax.jit(model) if jax is not None else model
    shapes = set()
    n_batches = 0
    for graph, mask in loader:
        graph, labels = split_labels(graph, "label")  # off the *padded* graph
        papers = graph.node_sets["paper"]
        x = np.concatenate([papers.features["embedding"], papers.features["year"][:, None]], 1)
        cites = graph.edge_sets["cites"].adjacency
        comp = papers.component_ids()
        labels = labels.astype(np.float32)  # [total_num_components]; 0 on padding
        shapes.add((x.shape, cites.source.shape, labels.shape))
        loss = step(x, cites.source, cites.target, comp, labels, mask.astype(np.float32))
        n_batches += 1
    print(
        f"{n_batches} batches, skipped {loader.skipped_fraction:.1%}, last loss {float(loss):.4f}"
    )
    print(f"distinct batch shapes: {len(shapes)}; traces of the model: {len(traces)}")
    assert len(shapes) == 1
    if jax is not None:
        assert len(traces) == 1, "every padded batch must reuse one compiled function"


if __name__ == "__main__":
    main()
