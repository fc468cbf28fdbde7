"""A TF-GNN user's input pipeline, end to end, on a tiny heterogeneous schema.

graph_schema.pbtxt -> GraphTensors written to a TFRecord file -> parse_example /
parse_single_example -> batch + merge -> MapFeatures -> readout -> labels -> tight and
fit-or-skip size constraints -> padding -> per-replica files -> static shapes for JAX.

Expected values are written from reading TF-GNN's code (tensorflow_gnn/graph/
graph_tensor_io.py, schema_utils.py, batching_utils.py, padding_ops.py, readout.py,
runner/utils/label_fns.py, runner/input/datasets.py), not from arraygnn's output.
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
)
from arraygnn.io._example_wire import encode_example
from arraygnn.io.example import example_features, parse_example, parse_single_example, write_example
from arraygnn.io.schema import create_graph_spec_from_schema, read_schema
from arraygnn.io.tfrecord import TFRecordError, read_tfrecord, write_tfrecord
from arraygnn.padding import (
    SizeConstraints,
    find_tight_size_constraints,
    learn_fit_or_skip_size_constraints,
    pad_to_total_sizes,
    satisfies_total_sizes,
)
from arraygnn.pipeline import (
    GraphBatchLoader,
    MapFeatures,
    ReadoutFirstNode,
    StructuredReadout,
    add_readout_from_first_node,
    context_readout_into_feature,
    fit_or_skip,
    merge_graphs,
    per_replica_batch_size,
    readout_first_node,
    split_labels,
    structured_readout,
)

SCHEMA = """
# a tiny citation graph, as TF-GNN's graph_schema.pbtxt files look
context {
  features { key: "label" value { description: "class" dtype: DT_INT64 } }
  features { key: "weight" value { dtype: DT_FLOAT } }
}
node_sets {
  key: "paper"
  value {
    description: "papers"
    features { key: "feat" value { dtype: DT_FLOAT shape { dim { size: 2 } } } }
    features { key: "words" value { dtype: DT_INT64 shape { dim { size: -1 } } } }
    features { key: "title" value { dtype: DT_STRING } }
    metadata { cardinality: 100 }
  }
}
node_sets {
  key: "author"
  value { features { key: "emb" value { dtype: DT_FLOAT shape { dim { size: 3 } } } } }
}
edge_sets {
  key: "cites"
  value {
    source: "paper"
    target: "paper"
    features { key: "w" value { dtype: DT_FLOAT } }
  }
}
edge_sets { key: "writes" value { source: "author" target: "paper" } }
"""

# (papers, authors, cites, writes, label) per graph
SIZES = [(3, 2, 2, 3, 1), (2, 1, 1, 1, 0), (4, 3, 5, 2, 1)]


def make_graph(n_paper, n_author, n_cites, n_writes, label, seed=0):
    rng = np.random.default_rng(seed)
    cites_src = np.arange(n_cites) % n_paper
    cites_tgt = (np.arange(n_cites) + 1) % n_paper
    return GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"label": np.array([label]), "weight": np.array([0.5], np.float32)}
        ),
        node_sets={
            "paper": NodeSet.from_fields(
                sizes=np.array([n_paper]),
                features={
                    "feat": rng.standard_normal((n_paper, 2)).astype(np.float32),
                    "words": Ragged.from_list(
                        [list(range(10 * i, 10 * i + i)) for i in range(n_paper)]
                    ),
                    "title": np.array([f"paper {i}" for i in range(n_paper)]),
                },
            ),
            "author": NodeSet.from_fields(
                sizes=np.array([n_author]),
                features={"emb": np.full((n_author, 3), float(label), np.float32)},
            ),
        },
        edge_sets={
            "cites": EdgeSet.from_fields(
                sizes=np.array([n_cites]),
                adjacency=Adjacency.from_indices(
                    source=("paper", cites_src), target=("paper", cites_tgt)
                ),
                features={"w": np.arange(n_cites, dtype=np.float32)},
            ),
            "writes": EdgeSet.from_fields(
                sizes=np.array([n_writes]),
                adjacency=Adjacency.from_indices(
                    source=("author", np.arange(n_writes) % n_author),
                    target=("paper", np.arange(n_writes) % n_paper),
                ),
            ),
        },
    )


@pytest.fixture
def dataset(tmp_path):
    """(spec, graphs, path of a TFRecord file holding them, schema path)."""
    schema_path = tmp_path / "graph_schema.pbtxt"
    schema_path.write_text(SCHEMA)
    spec = create_graph_spec_from_schema(read_schema(schema_path))
    graphs = [make_graph(*s, seed=i) for i, s in enumerate(SIZES)]
    path = tmp_path / "data.tfrecord"
    write_tfrecord(path, [write_example(g) for g in graphs])
    return spec, graphs, path, schema_path


# -- reading ---------------------------------------------------------------------------------


def test_schema_gives_tfgnn_feature_shapes_and_dtypes(dataset):
    spec, _, _, _ = dataset
    # schema_utils._create_fields_spec_from_schema: dtype from DT_*, -1 is a ragged dim
    assert spec.context.features["label"].dtype == np.int64
    assert spec.context.features["label"].shape == ()
    assert spec.node_sets["paper"].features["feat"].shape == (2,)
    assert spec.node_sets["paper"].features["words"].shape == (None,)
    assert spec.node_sets["paper"].features["title"].dtype.kind == "U"
    assert spec.edge_sets["writes"].source_name == "author"
    assert spec.edge_sets["writes"].target_name == "paper"


def test_parse_single_example_and_parse_example_like_tfgnn(dataset):
    spec, graphs, path, _ = dataset
    records = list(read_tfrecord([path]))
    assert len(records) == 3
    g = parse_single_example(spec, records[0])
    # context features: shape [num_components] + item shape, as TF-GNN's [1] spec
    assert g.context["label"].dtype == np.int64 and g.context["label"].tolist() == [1]
    assert g.context["weight"].dtype == np.float32
    assert g.node_sets["paper"]["feat"].shape == (3, 2)
    np.testing.assert_array_equal(
        g.node_sets["paper"]["feat"], graphs[0].node_sets["paper"]["feat"]
    )
    words = g.node_sets["paper"]["words"]
    assert words.row_splits.tolist() == [0, 0, 1, 3]
    assert words.values.tolist() == [10, 20, 21]
    assert g.node_sets["paper"]["title"].tolist() == ["paper 0", "paper 1", "paper 2"]
    assert g.edge_sets["writes"].adjacency.source.tolist() == [0, 1, 0]

    # parse_example + merge_batch_to_components: sizes concatenate, indices shift per set
    m = parse_example(spec, records)
    assert m.rank == 0 and m.num_components == 3
    assert m.node_sets["paper"].sizes.tolist() == [3, 2, 4]
    assert m.context["label"].tolist() == [1, 0, 1]
    # cites of graph 1 (2 papers, 1 edge 0->1) start at paper 3; graph 2 at paper 5
    assert m.edge_sets["cites"].adjacency.source.tolist() == [0, 1, 3, 5, 6, 7, 8, 5]
    assert m.edge_sets["cites"].adjacency.target.tolist() == [1, 2, 4, 6, 7, 8, 5, 6]
    assert m.edge_sets["writes"].adjacency.source.tolist() == [0, 1, 0, 2, 3, 4]
    assert m.node_sets["paper"]["words"].row_splits.tolist() == [0, 0, 1, 3, 3, 4, 4, 5, 7, 10]

    # batch (shape [3]) then merge gives the same graph
    batched = batch_graph_tensors([parse_single_example(spec, r) for r in records])
    assert batched.rank == 1
    merged = batched.merge_batch_to_components()
    assert merged.node_sets["paper"].sizes.tolist() == [3, 2, 4]
    assert merged.edge_sets["cites"].adjacency.source.tolist() == [0, 1, 3, 5, 6, 7, 8, 5]


def test_records_of_the_tfrecord_package_parse(tmp_path, dataset):
    tfrecord = pytest.importorskip("tfrecord")
    from tfrecord.reader import tfrecord_loader

    spec, _, path, _ = dataset
    # our file, read by the tfrecord package: TF-GNN's keys
    first = next(iter(tfrecord_loader(str(path), None)))
    assert first["nodes/paper.#size"].tolist() == [3]
    assert first["nodes/paper.words.d1"].tolist() == [0, 1, 2]
    # a record written by the tfrecord package: no author, no writes (their keys hold only
    # #size = 0, as TF-GNN writes empty sets; #source / #target absent parse as empty)
    other = tmp_path / "pkg.tfrecord"
    w = tfrecord.TFRecordWriter(str(other))
    w.write(
        {
            "context/label": ([7], "int"),
            "context/weight": ([0.25], "float"),
            "nodes/paper.#size": ([1], "int"),
            "nodes/paper.feat": ([1.0, 2.0], "float"),
            "nodes/paper.words": ([5, 6], "int"),
            "nodes/paper.words.d1": ([2], "int"),
            "nodes/paper.title": ([b"hello"], "byte"),
            "nodes/author.#size": ([0], "int"),
            "edges/cites.#size": ([1], "int"),
            "edges/cites.#source": ([0], "int"),
            "edges/cites.#target": ([0], "int"),
            "edges/cites.w": ([3.0], "float"),
            "edges/writes.#size": ([0], "int"),
        }
    )
    w.close()
    g = parse_single_example(spec, next(iter(read_tfrecord(other))))
    assert g.context["label"].tolist() == [7]
    assert g.node_sets["paper"]["title"].tolist() == ["hello"]
    assert g.node_sets["author"]["emb"].shape == (0, 3)
    assert g.edge_sets["writes"].adjacency.source.shape == (0,)


def test_missing_optional_and_required_features(dataset):
    spec, graphs, _, _ = dataset
    flat = example_features(graphs[1])
    # a node set of size 0 may leave out its features and its #size (TF-GNN parses
    # #size with default 0 and ragged-parsed features as empty)
    empty_author = {
        k: v for k, v in flat.items() if not k.startswith(("nodes/author", "edges/writes"))
    }
    g = parse_single_example(spec, encode_example(empty_author))
    assert g.node_sets["author"].sizes.tolist() == [0]
    assert g.node_sets["author"]["emb"].shape == (0, 3)
    assert g.edge_sets["writes"].sizes.tolist() == [0]
    # a context feature is a FixedLenFeature without default in TF-GNN: required
    no_label = {k: v for k, v in flat.items() if k != "context/label"}
    with pytest.raises(ValueError, match="context/label"):
        parse_single_example(spec, encode_example(no_label))
    no_words = {k: v for k, v in flat.items() if k != "nodes/paper.words.d1"}
    with pytest.raises(ValueError, match=r"nodes/paper\.words\.d1"):
        parse_single_example(spec, encode_example(no_words))


def test_corrupt_and_truncated_inputs_raise_clear_errors(tmp_path, dataset):
    spec, graphs, path, _ = dataset
    raw = path.read_bytes()
    truncated = tmp_path / "truncated.tfrecord"
    truncated.write_bytes(raw[:-5])
    with pytest.raises(TFRecordError, match=r"truncated\.tfrecord: record 2: truncated"):
        list(read_tfrecord(truncated))
    corrupt = tmp_path / "corrupt.tfrecord"
    flipped = bytearray(raw)
    flipped[20] ^= 0xFF
    corrupt.write_bytes(bytes(flipped))
    with pytest.raises(TFRecordError, match="record 0: data CRC mismatch"):
        list(read_tfrecord(corrupt))
    # a broken example inside a batch: the error names which one (TF-GNN: "Could not
    # parse example input"), for short and long batches (two decoders)
    good = [write_example(g) for g in graphs]
    for batch in (good[:1] + [good[1][:-3]], good * 3 + [good[1][:-3]]):
        with pytest.raises(ValueError, match=rf"example {len(batch) - 1}\b"):
            parse_example(spec, batch)
    with pytest.raises(ValueError, match="example 0"):
        parse_single_example(spec, good[0][:-3])


def test_a_schema_given_as_spec_is_a_clear_error(dataset):
    spec, graphs, _, schema_path = dataset
    schema = read_schema(schema_path)
    with pytest.raises(TypeError, match="create_graph_spec_from_schema"):
        parse_example(schema, [write_example(graphs[0])])
    with pytest.raises(TypeError, match="create_graph_spec_from_schema"):
        parse_single_example(schema, write_example(graphs[0]))


# -- preprocessing, readout, labels ---------------------------------------------------------


def test_map_features_readout_and_labels_like_tfgnn(dataset):
    spec, _, path, _ = dataset
    graph = parse_example(spec, list(read_tfrecord(path)))

    def node_sets_fn(node_set, *, node_set_name):
        features = dict(node_set.features)
        if node_set_name == "paper":
            features["title_len"] = np.char.str_len(features.pop("title"))
            del features["words"]
        return features

    graph = MapFeatures(node_sets_fn=node_sets_fn)(graph)
    assert sorted(graph.node_sets["paper"].features) == ["feat", "title_len"]
    assert graph.node_sets["paper"]["title_len"].tolist() == [7] * 9
    assert sorted(graph.node_sets["author"].features) == ["emb"]

    # tfgnn.add_readout_from_first_node: "_readout" with one node per component,
    # "_readout/seed" from cumsum(sizes, exclusive=True) to range(num_components)
    graph = add_readout_from_first_node(graph, "seed", node_set_name="paper")
    assert graph.node_sets["_readout"].sizes.tolist() == [1, 1, 1]
    seed = graph.edge_sets["_readout/seed"]
    assert seed.adjacency.source.tolist() == [0, 3, 5]
    assert seed.adjacency.target.tolist() == [0, 1, 2]
    feat = graph.node_sets["paper"]["feat"]
    np.testing.assert_array_equal(
        structured_readout(graph, "seed", feature_name="feat"), feat[[0, 3, 5]]
    )
    np.testing.assert_array_equal(
        StructuredReadout("seed", feature_name="feat")(graph), feat[[0, 3, 5]]
    )
    np.testing.assert_array_equal(
        ReadoutFirstNode(node_set_name="paper", feature_name="feat")(graph), feat[[0, 3, 5]]
    )

    # the runner's ContextLabelFn: labels = context[label], feature removed
    g, labels = split_labels(graph, "label", from_context=True)
    assert labels.tolist() == [1, 0, 1] and "label" not in g.context.features
    # context_readout_into_feature moves it onto "_readout" (existing: sizes must be 1)
    moved = context_readout_into_feature(graph, feature_name="label", remove_input_feature=True)
    assert "label" not in moved.context.features
    g, labels = split_labels(moved, "label")
    assert labels.tolist() == [1, 0, 1] and "label" not in g.node_sets["_readout"].features


def test_serving_parses_with_a_schema_without_the_label(dataset):
    spec, _, path, schema_path = dataset
    # TF-GNN: a context feature has no default, so serving inputs without the label need a
    # spec without it (the schema minus the label); extra keys in a record are ignored
    schema = read_schema(schema_path)
    del schema.context.features["label"]
    served = parse_example(create_graph_spec_from_schema(schema), list(read_tfrecord(path)))
    assert sorted(served.context.features) == ["weight"]
    graph, labels = split_labels(served, "label", from_context=True, required=False)
    assert labels is None and graph is served


def test_readouts_on_a_batched_graph_ask_for_merging(dataset):
    spec, _, path, _ = dataset
    batched = batch_graph_tensors([parse_single_example(spec, r) for r in read_tfrecord(path)])
    # TF-GNN: check_scalar_graph_tensor -> "requires a scalar GraphTensor ...
    # merge_batch_to_components()"
    with pytest.raises(ValueError, match="merge_batch_to_components"):
        readout_first_node(batched, "paper", feature_name="feat")
    with pytest.raises(ValueError, match="merge_batch_to_components"):
        split_labels(batched, "label", from_context=True)
    with pytest.raises(ValueError, match="merge_batch_to_components"):
        split_labels(batched, "feat", node_set_name="paper", first_node=True)


# -- size constraints and padding -------------------------------------------------------------


def test_tight_size_constraints_like_tfgnn(dataset):
    spec, graphs, _, _ = dataset
    c = find_tight_size_constraints(
        graphs, target_batch_size=2, min_nodes_per_component={"paper": 1}
    )
    # batching_utils: max total * batch size, + 1 component, + min nodes (at least 1 for
    # node sets incident to an edge set)
    assert c.total_num_components == 2 * 1 + 1
    assert dict(c.total_num_nodes) == {"paper": 2 * 4 + 1, "author": 2 * 3 + 1}
    assert dict(c.total_num_edges) == {"cites": 2 * 5, "writes": 2 * 3}
    assert dict(c.min_nodes_per_component) == {"paper": 1}
    for pair in ([0, 1], [1, 2], [2, 2], [0]):
        assert satisfies_total_sizes(merge_graphs([graphs[i] for i in pair]), c)


def test_padding_matches_tfgnn_pad_sizes(dataset):
    spec, graphs, path, _ = dataset
    constraints = SizeConstraints(
        total_num_components=4,
        total_num_nodes={"paper": 9, "author": 6},
        total_num_edges={"cites": 6, "writes": 6},
        min_nodes_per_component={"paper": 1},
    )
    real = parse_example(spec, list(read_tfrecord(path))[:2])  # papers 3 + 2, authors 2 + 1
    padded, mask = pad_to_total_sizes(real, constraints)
    assert mask.tolist() == [True, True, False, False]
    # padding_ops._pad_sizes: the first padding component takes the rest, later ones the
    # minimum; edges all go to the first padding component
    assert padded.node_sets["paper"].sizes.tolist() == [3, 2, 9 - 5 - 1, 1]
    assert padded.node_sets["author"].sizes.tolist() == [2, 1, 3, 0]
    assert padded.edge_sets["cites"].sizes.tolist() == [2, 1, 3, 0]
    assert padded.context.sizes.tolist() == [1, 1, 1, 1]
    # padded features: zeros, "" and empty ragged rows
    assert padded.context["label"].tolist() == [1, 0, 0, 0]
    assert padded.node_sets["paper"]["title"].tolist()[5:] == ["", "", "", ""]
    assert padded.node_sets["paper"]["words"].row_splits.tolist()[5:] == [4, 4, 4, 4, 4]
    assert padded.edge_sets["cites"]["w"].tolist() == [0, 1, 0, 0, 0, 0]
    # padding edges stay among padding nodes: TF-GNN's linspace over ALL padding papers
    # (5..8: the first padding component's 5..7 and the last one's 8)
    src = padded.edge_sets["cites"].adjacency.source.tolist()
    assert src[:3] == [0, 1, 3] and src[3:] == [5, 7, 8]  # linspace(5.0, 9.0, 3), clipped
    # min_nodes_per_component makes readout from the first node work on padding too
    with_readout = add_readout_from_first_node(padded, "seed", node_set_name="paper")
    assert with_readout.edge_sets["_readout/seed"].adjacency.source.tolist() == [0, 3, 5, 8]
    # a component with fewer nodes than the minimum cannot be padded (TF-GNN raises)
    no_author = SizeConstraints(
        total_num_components=4,
        total_num_nodes={"paper": 9, "author": 6},
        total_num_edges={"cites": 6, "writes": 6},
        min_nodes_per_component={"author": 2},
    )
    assert not satisfies_total_sizes(real, no_author)
    with pytest.raises(ValueError, match="min_nodes_per_component"):
        pad_to_total_sizes(real, no_author)


def test_fit_or_skip_learns_from_the_data_and_skips_what_does_not_fit():
    small = [make_graph(2, 1, 1, 1, 0, seed=i) for i in range(9)]
    big = make_graph(20, 5, 30, 8, 1, seed=9)
    sample = small + [big]
    kw = dict(min_nodes_per_component={"paper": 1}, sample_size=1000)
    # success_ratio 0.8 and a 10% chance of the big graph per batch of one: the learned
    # constraints fit the small graphs only (TF-GNN's quantile scheme picks the smallest
    # threshold still fitting >= 80% of the sampled batches)
    c = learn_fit_or_skip_size_constraints(sample, 1, success_ratio=0.8, **kw)
    assert c.total_num_components == 2
    assert dict(c.total_num_nodes) == {"paper": 2 + 1, "author": 1 + 1}
    assert dict(c.total_num_edges) == {"cites": 1, "writes": 1}
    assert dict(c.min_nodes_per_component) == {"paper": 1}
    # success_ratio 1.0: the largest sampled batch fits
    full = learn_fit_or_skip_size_constraints(sample, 1, success_ratio=1.0, **kw)
    assert dict(full.total_num_nodes) == {"paper": 21, "author": 6}
    assert dict(full.total_num_edges) == {"cites": 30, "writes": 8}
    # batches: the big graph is skipped and counted; the rest pad to one shape
    stream = fit_or_skip([merge_graphs([g]) for g in sample], c)
    kept = [pad_to_total_sizes(g, c)[0] for g in stream]
    assert (stream.num_seen, stream.num_skipped) == (10, 1)
    assert {g.node_sets["paper"]["feat"].shape for g in kept} == {(3, 2)}
    # a component without the minimum number of nodes does not fit either
    lonely = make_graph(1, 1, 0, 0, 0)
    at_least_two = SizeConstraints(
        total_num_components=2,
        total_num_nodes={"paper": 3, "author": 2},
        total_num_edges={"cites": 1, "writes": 1},
        min_nodes_per_component={"paper": 2},
    )
    assert not satisfies_total_sizes(lonely, at_least_two)


# -- replicas and the hand-off ----------------------------------------------------------------


def test_per_replica_files_and_batches(tmp_path, dataset):
    spec, graphs, _, _ = dataset
    paths = []
    for k in range(4):
        p = tmp_path / f"part-{k}.tfrecord"
        write_tfrecord(p, [write_example(graphs[k % 3])])
        paths.append(p)
    batch_size = per_replica_batch_size(4, 2)
    # runner/input/datasets.py: Dataset.from_tensor_slices(filenames).shard(n, index)
    seen = []
    for replica in range(2):
        loader = GraphBatchLoader(paths, batch_size, spec=spec, num_replicas=2, replica_id=replica)
        (batch,) = list(loader)
        seen.append(batch.node_sets["paper"].sizes.tolist())
    assert seen == [[3, 4], [2, 3]]  # files 0, 2 and files 1, 3
    # a replica without any file would train on nothing: say so when the loader is made
    with pytest.raises(ValueError, match="no files"):
        GraphBatchLoader(paths[:1], 1, spec=spec, num_replicas=2, replica_id=1)


def test_padded_batches_reach_jax_with_static_shapes(dataset):
    jax = pytest.importorskip("jax")
    from arraygnn.interop import to_jax

    spec, graphs, path, _ = dataset
    constraints = find_tight_size_constraints(
        graphs, target_batch_size=2, min_nodes_per_component={"paper": 1}
    )

    def dense_only(node_set, *, node_set_name):  # strings / ragged stay on the host
        return {k: v for k, v in node_set.features.items() if k not in ("title", "words")}

    loader = GraphBatchLoader(
        path, 2, spec=spec, map_fn=MapFeatures(node_sets_fn=dense_only), constraints=constraints
    )
    traces = []

    @jax.jit
    def step(x, src, tgt, labels, mask):
        traces.append(1)
        msg = jax.ops.segment_sum(x[src], tgt, num_segments=x.shape[0])
        return (msg.sum() * 0 + labels * mask).sum()

    totals = []
    for graph, mask in loader:
        graph, labels = split_labels(graph, "label", from_context=True)
        cites = graph.edge_sets["cites"].adjacency
        args = to_jax((graph.node_sets["paper"]["feat"], cites.source, cites.target, labels, mask))
        assert args[0].shape == (9, 2) and args[1].shape == (10,) and args[3].shape == (3,)
        totals.append(int(step(*args)))
    assert totals == [1, 1]  # labels [1, 0] + [1]; padding masked out
    assert len(traces) == 1  # one shape for every batch: one trace
