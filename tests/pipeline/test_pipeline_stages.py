"""MapFeatures, readout / labels, batching, fit-or-skip loader, per-replica sharding."""

import numpy as np
import pytest

gt = pytest.importorskip("arraygnn.graph_tensor")

from _pipeline_graphs import assert_graphs_equal, random_graph  # noqa: E402

from arraygnn.io.example import write_example  # noqa: E402
from arraygnn.io.tfrecord import write_tfrecord  # noqa: E402
from arraygnn.padding import (  # noqa: E402
    SizeConstraints,
    find_tight_size_constraints,
    learn_fit_or_skip_size_constraints,
    satisfies_total_sizes,
    total_sizes,
)
from arraygnn.pipeline.batching import (  # noqa: E402
    GraphBatchLoader,
    batch_graphs,
    dynamic_batch,
    fit_or_skip,
    merge_graphs,
    per_replica_batch_size,
    shard,
)
from arraygnn.pipeline.map_features import MapFeatures, map_features  # noqa: E402
from arraygnn.pipeline.readout import (  # noqa: E402
    ReadoutFirstNode,
    StructuredReadout,
    readout,
    readout_first_node,
    split_labels,
    structured_readout,
)


def _graphs(n, seed=0, **kw):
    rng = np.random.default_rng(seed)
    return [random_graph(rng, **kw) for _ in range(n)]


# -- MapFeatures ------------------------------------------------------------------------------


def test_map_features_callbacks_get_set_names_and_skip_aux_sets():
    g = random_graph(np.random.default_rng(0), num_components=2, empty_ok=False)
    seen = []

    def node_sets_fn(node_set, *, node_set_name):
        seen.append(node_set_name)
        features = dict(node_set.features)
        if node_set_name == "a":
            features["hashed"] = features.pop("ids") % (100 if node_set_name == "a" else 7)
        return features

    def edge_sets_fn(edge_set, *, edge_set_name):
        seen.append(edge_set_name)
        return {}

    def context_fn(context):
        return context.features["g"] * 2  # one array -> "hidden_state"

    h = map_features(g, node_sets_fn=node_sets_fn, edge_sets_fn=edge_sets_fn, context_fn=context_fn)
    assert sorted(seen) == ["a", "aa", "ab", "b"]
    assert "ids" not in h.node_sets["a"].features
    np.testing.assert_array_equal(
        h.node_sets["a"].features["hashed"], g.node_sets["a"].features["ids"] % 100
    )
    assert h.edge_sets["ab"].features == {} or len(h.edge_sets["ab"].features) == 0
    np.testing.assert_array_equal(h.context.features["hidden_state"], g.context.features["g"] * 2)
    # aux sets untouched (same arrays), input graph unchanged
    assert h.node_sets["_readout"].features["label"] is g.node_sets["_readout"].features["label"]
    assert "ids" in g.node_sets["a"].features
    assert "weight" in g.edge_sets["ab"].features


def test_map_features_allowed_aux_pattern_and_one_fn_for_all():
    g = random_graph(np.random.default_rng(1), empty_ok=False)
    calls = []

    def fn(piece, **kwargs):
        calls.append(tuple(kwargs.values()))
        return dict(piece.features)

    mapper = MapFeatures(
        fn,
        fn,
        fn,
        allowed_aux_node_sets_pattern=r"_readout",
        allowed_aux_edge_sets_pattern=r"_readout/.*",
    )
    h = mapper(g)
    assert sorted(calls) == sorted(
        [(), ("a",), ("b",), ("_readout",), ("ab",), ("aa",), ("_readout/seed",)]
    )
    assert_graphs_equal(g, h)
    with pytest.raises(TypeError, match="node set 'a'"):
        map_features(g, node_sets_fn=lambda ns, node_set_name: 5)
    # TF-GNN's aux prefixes: "_" and the reserved "# ! % . ^ ~"
    aux = gt.GraphTensor.from_pieces(
        node_sets={
            name: gt.NodeSet.from_fields(sizes=np.array([1]), features={"x": np.ones(1)})
            for name in ("a", "!aux", "~aux", ".aux", "%aux", "^aux", "#aux", "_aux")
        }
    )
    seen = []
    map_features(aux, node_sets_fn=lambda ns, node_set_name: seen.append(node_set_name) or {})
    assert seen == ["a"]
    with pytest.raises(TypeError, match="node_sets_fn must be callable"):
        MapFeatures(node_sets_fn=3)


def test_map_features_callback_returning_none_leaves_the_piece_alone():
    # TF-GNN's MapFeatures: "Returning None ... indicates to leave this graph piece alone"
    g = random_graph(np.random.default_rng(3), empty_ok=False)

    def node_sets_fn(node_set, *, node_set_name):
        return None if node_set_name == "a" else {"h": np.zeros(node_set.total_size)}

    h = map_features(g, node_sets_fn=node_sets_fn, context_fn=lambda c: None)
    assert h.node_sets["a"].features["ids"] is g.node_sets["a"].features["ids"]
    assert list(h.node_sets["b"].features) == ["h"]
    assert h.context.features["g"] is g.context.features["g"]
    assert map_features(g, edge_sets_fn=lambda es, edge_set_name: None) is g


# -- readout and labels -----------------------------------------------------------------------


def test_readout_first_node_and_structured_readout_agree():
    graphs = _graphs(5, seed=2, empty_ok=False)
    g = merge_graphs(graphs)
    ids = g.node_sets["a"].features["ids"]
    first = readout_first_node(g, "a", feature_name="ids")
    expected = np.array([x.node_sets["a"].features["ids"][0] for x in graphs])
    np.testing.assert_array_equal(first, expected)
    # the _readout/seed edges of random_graph point at the first "a" node of each component
    np.testing.assert_array_equal(structured_readout(g, "seed", feature_name="ids"), expected)
    np.testing.assert_array_equal(StructuredReadout("seed", feature_name="ids")(g), expected)
    np.testing.assert_array_equal(
        ReadoutFirstNode(node_set_name="a", feature_name="ids")(g), expected
    )
    assert ids is g.node_sets["a"].features["ids"]


def test_structured_readout_order_follows_readout_nodes_and_is_checked():
    a = gt.NodeSet.from_fields(sizes=np.array([4]), features={"y": np.array([10, 11, 12, 13])})
    r = gt.NodeSet.from_fields(sizes=np.array([3]), features={})

    def graph(src, tgt):
        return gt.GraphTensor.from_pieces(
            node_sets={"a": a, "_readout": r},
            edge_sets={
                "_readout/seed": gt.EdgeSet.from_fields(
                    sizes=np.array([len(src)]),
                    adjacency=gt.Adjacency.from_indices(
                        source=("a", np.array(src)), target=("_readout", np.array(tgt))
                    ),
                )
            },
        )

    np.testing.assert_array_equal(
        structured_readout(graph([3, 0, 2], [1, 2, 0]), "seed", feature_name="y"), [12, 13, 10]
    )
    with pytest.raises(ValueError, match=r"nodes \[2\] receive \[0\] edges"):
        structured_readout(graph([3, 0], [1, 0]), "seed", feature_name="y")
    with pytest.raises(ValueError, match="no edge set '_readout/other'"):
        structured_readout(graph([3, 0, 2], [1, 2, 0]), "other", feature_name="y")


def test_structured_readout_with_a_tagged_readout_set_and_from_an_edge_set():
    # TF-GNN: readout_node_set="_readout:train" reads "_readout:train/<key>" edge sets, and a
    # source node set "_shadow/<edge set>" reads that edge set's feature
    a = gt.NodeSet.from_fields(sizes=np.array([3]), features={"y": np.array([10, 11, 12])})
    links = gt.EdgeSet.from_fields(
        sizes=np.array([2]),
        adjacency=gt.Adjacency.from_indices(
            source=("a", np.array([0, 1])), target=("a", np.array([1, 2]))
        ),
        features={"w": np.array([8.0, 9.0])},
    )

    def seed(src_set, src, n_out):
        return gt.EdgeSet.from_fields(
            sizes=np.array([len(src)]),
            adjacency=gt.Adjacency.from_indices(
                source=(src_set, np.array(src)), target=("_readout:train", np.arange(n_out))
            ),
        )

    g = gt.GraphTensor.from_pieces(
        node_sets={
            "a": a,
            "_readout:train": gt.NodeSet.from_fields(sizes=np.array([2])),
            "_shadow/links": gt.NodeSet.from_fields(sizes=np.array([2])),
        },
        edge_sets={
            "links": links,
            "_readout:train/seed": seed("a", [2, 0], 2),
            "_readout:train/edge": seed("_shadow/links", [1, 0], 2),
        },
    )
    got = structured_readout(g, "seed", feature_name="y", readout_node_set="_readout:train")
    assert got.tolist() == [12, 10]
    got = structured_readout(g, "edge", feature_name="w", readout_node_set="_readout:train")
    assert got.tolist() == [9.0, 8.0]
    with pytest.raises(ValueError, match="must be '_readout' or '_readout:'"):
        structured_readout(g, "seed", feature_name="y", readout_node_set="a")
    with pytest.raises(ValueError, match="edge set 'links' has no feature 'y'"):
        structured_readout(g, "edge", feature_name="y", readout_node_set="_readout:train")


def test_split_labels_variants_and_serving_time():
    g = merge_graphs(_graphs(4, seed=3, empty_ok=False))
    graph, labels = split_labels(g, "label")
    np.testing.assert_array_equal(labels, g.node_sets["_readout"].features["label"])
    assert "label" not in graph.node_sets["_readout"].features
    graph, labels = split_labels(g, "ids", node_set_name="a", first_node=True)
    np.testing.assert_array_equal(labels, readout_first_node(g, "a", feature_name="ids"))
    assert "ids" not in graph.node_sets["a"].features
    graph, labels = split_labels(g, "ids", node_set_name="a", structured_key="seed")
    np.testing.assert_array_equal(labels, readout_first_node(g, "a", feature_name="ids"))
    assert "ids" not in graph.node_sets["a"].features
    graph, labels = split_labels(g, "g", from_context=True)
    assert labels.shape == (4, 3) and "g" not in graph.context.features
    # serving time: no label feature
    serving = g.remove_features(node_sets={"_readout": ["label"]})
    same, none = split_labels(serving, "label", required=False)
    assert none is None and same is serving
    with pytest.raises(ValueError, match="node set '_readout' has no feature 'label'"):
        split_labels(serving, "label")
    assert readout(g, feature_name="g", from_context=True).shape == (4, 3)


def test_readout_first_node_needs_a_node_per_component():
    g = merge_graphs([random_graph(np.random.default_rng(0), empty_ok=False), _empty_a_graph()])
    with pytest.raises(ValueError, match=r"components \[1\] have no node in node set 'a'"):
        readout_first_node(g, "a", feature_name="ids")


def _empty_a_graph():
    rng = np.random.default_rng(123)
    while True:
        g = random_graph(rng)
        if int(g.node_sets["a"].sizes.sum()) == 0:
            return g


# -- batching ---------------------------------------------------------------------------------


def test_shard_and_per_replica_batch_size():
    assert shard(list(range(7)), num_replicas=3, replica_id=2) == [2, 5]
    assert per_replica_batch_size(96, 3) == 32
    with pytest.raises(ValueError, match="not divisible"):
        per_replica_batch_size(10, 3)
    with pytest.raises(ValueError, match="num_replicas"):
        shard([1], num_replicas=0)


def test_batch_graphs_and_dynamic_batch():
    graphs = _graphs(17, seed=4)
    batches = list(batch_graphs(graphs, 5))
    assert [b.num_components for b in batches] == [5, 5, 5, 2]
    assert len(list(batch_graphs(graphs, 5, drop_remainder=True))) == 3
    sc = find_tight_size_constraints(graphs, target_batch_size=3)
    dyn = list(dynamic_batch(graphs, sc))
    assert sum(b.num_components for b in dyn) == 17
    for i, b in enumerate(dyn):
        assert satisfies_total_sizes(b, sc)
        if i + 1 < len(dyn):  # greedy: the next graph would not have fit
            nxt = graphs[sum(x.num_components for x in dyn[: i + 1])]
            assert not satisfies_total_sizes(merge_graphs([b, nxt]), sc)
    assert_graphs_equal(merge_graphs(dyn), merge_graphs(graphs))
    tiny = SizeConstraints(
        2, {"a": 1, "b": 1, "_readout": 1}, {"ab": 0, "aa": 0, "_readout/seed": 0}
    )
    with pytest.raises(ValueError, match="graph 0 does not fit"):
        list(dynamic_batch([g for g in graphs if int(g.node_sets["a"].sizes.sum()) > 2], tiny))


def test_fit_or_skip_filter_counts():
    graphs = _graphs(40, seed=5)
    sc = learn_fit_or_skip_size_constraints(graphs, 4, success_ratio=0.6, sample_size=2000)
    kept = fit_or_skip(batch_graphs(graphs, 4), sc)
    out = list(kept)
    assert kept.num_seen == 10 and kept.num_skipped == 10 - len(out)
    assert all(satisfies_total_sizes(b, sc) for b in out)


def test_loader_files_pad_fit_or_skip_and_replicas(tmp_path):
    graphs = _graphs(24, seed=6)
    spec = graphs[0].spec
    paths = []
    for k in range(4):
        p = tmp_path / f"part-{k}.tfrecord"
        write_tfrecord(p, [write_example(g) for g in graphs[k * 6 : (k + 1) * 6]])
        paths.append(str(p))
    # plain: merged batches in file order
    loader = GraphBatchLoader(paths, 4, spec=spec)
    batches = list(loader)
    assert [b.num_components for b in batches] == [4] * 6
    assert_graphs_equal(merge_graphs(batches), merge_graphs(graphs))
    # padded: one shape for every batch
    sc = find_tight_size_constraints(graphs, target_batch_size=4)
    shapes = set()
    for g, mask in GraphBatchLoader(paths, 4, spec=spec, constraints=sc):
        shapes.add(tuple(total_sizes(g)[1].items()) + (g.num_components,))
        assert mask.sum() == 4
    assert len(shapes) == 1
    # fit-or-skip reports the fraction skipped
    tight = learn_fit_or_skip_size_constraints(graphs, 4, success_ratio=0.5, sample_size=2000)
    lo = GraphBatchLoader(paths, 4, spec=spec, constraints=tight, fit_or_skip=True)
    kept = list(lo)
    assert lo.num_batches_seen == 6 and lo.num_batches_skipped == 6 - len(kept)
    assert 0.0 <= lo.skipped_fraction <= 1.0
    # replicas read disjoint files that together cover everything
    seen = []
    for r in range(2):
        per = list(GraphBatchLoader(paths, 3, spec=spec, num_replicas=2, replica_id=r))
        seen += [int(x) for b in per for x in np.asarray(b.node_sets["a"].features["ids"])]
    assert sorted(seen) == sorted(
        int(x) for g in graphs for x in np.asarray(g.node_sets["a"].features["ids"])
    )
    # in-memory source, shuffled, per replica
    mem = list(GraphBatchLoader(graphs, 5, shuffle=True, seed=0, num_replicas=3, replica_id=1))
    assert sum(b.num_components for b in mem) == 8
    with pytest.raises(ValueError, match="needs spec="):
        GraphBatchLoader(paths, 4)
    with pytest.raises(ValueError, match="need constraints="):
        GraphBatchLoader(graphs, 4, fit_or_skip=True)


def test_loader_shuffled_files_keep_every_record(tmp_path):
    graphs = _graphs(20, seed=8)
    p = tmp_path / "all.tfrecord"
    write_tfrecord(p, [write_example(g) for g in graphs])
    lo = GraphBatchLoader(str(p), 4, spec=graphs[0].spec, shuffle=True, seed=1, shuffle_buffer=5)
    got = sorted(int(x) for b in lo for x in np.asarray(b.node_sets["a"].features["ids"]))
    assert got == sorted(
        int(x) for g in graphs for x in np.asarray(g.node_sets["a"].features["ids"])
    )


def test_loader_dynamic_batches_are_padded_to_one_shape():
    graphs = _graphs(30, seed=9)
    sc = find_tight_size_constraints(graphs, target_batch_size=4)
    out = list(GraphBatchLoader(graphs, 1, constraints=sc, dynamic=True))
    assert sum(int(mask.sum()) for _, mask in out) == 30
    assert {g.num_components for g, _ in out} == {sc.total_num_components}
    for g, _ in out:
        _, n, e = total_sizes(g)
        assert n == dict(sc.total_num_nodes) and e == dict(sc.total_num_edges)
    # dynamic packing uses fewer batches than fixed batches of the worst case
    assert len(out) <= len(list(batch_graphs(graphs, 4)))


# -- PyG-style datasets: sizes, padding stream, per-replica shards ----------------------------


def _data_list(n, seed):
    from arraygnn.data import Data

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.choice([2, 3, 4, 20]))
        e = int(rng.integers(0, 2 * k))
        out.append(
            Data(
                x=rng.standard_normal((k, 2)),
                edge_index=rng.integers(0, k, (2, e)),
                y=np.array([k]),
            )
        )
    return out


def test_pad_batches_from_dataloader_tight_and_fit_or_skip():
    pytest.importorskip("arraygnn.loader")
    from arraygnn.dataset import PackedDataset
    from arraygnn.loader import DataLoader
    from arraygnn.padding import batch_padding_sizes
    from arraygnn.pipeline.batching import PadBatches, shard_dataset

    data = _data_list(200, 0)
    tight = batch_padding_sizes(data, 8)
    stream = PadBatches(
        DataLoader(data, batch_size=8, shuffle=True, seed=0), **tight, graph_keys=("y",)
    )
    shapes = {(b.x.shape, b.edge_index.shape, b.y.shape) for b in stream}
    assert len(shapes) == 1 and stream.num_skipped == 0
    loose = batch_padding_sizes(data, 8, success_ratio=0.8, sample_size=5000)
    assert loose["num_nodes"] < tight["num_nodes"]
    skipping = PadBatches(
        DataLoader(data, batch_size=8, shuffle=True, seed=1),
        **loose,
        graph_keys=("y",),
        fit_or_skip=True,
    )
    kept = list(skipping)
    assert skipping.num_seen == 25 and len(kept) == 25 - skipping.num_skipped
    assert skipping.skipped_fraction < 0.5
    with pytest.raises(ValueError, match=r"pad_batch: cannot pad: \d+ (nodes|edges) >"):
        list(PadBatches(DataLoader(data, batch_size=8), **loose, graph_keys=("y",)))
    # replicas: disjoint shards covering the dataset, for lists and PackedDataset
    packed = PackedDataset.from_data_list(data)
    assert batch_padding_sizes(packed, 8) == tight
    parts = [shard_dataset(packed, num_replicas=3, replica_id=r) for r in range(3)]
    assert [len(p) for p in parts] == [67, 67, 66]
    ys = sorted(int(p[i].y[0]) for p in parts for i in range(len(p)))
    assert ys == sorted(int(d.y[0]) for d in data)
    lst = shard_dataset(data, num_replicas=2, replica_id=1)
    assert lst[0] is data[1] and len(lst) == 100


def test_dynamic_fit_or_skip_skips_a_graph_too_big_alone_and_arguments_are_checked():
    def g(n):
        return gt.GraphTensor.from_pieces(
            node_sets={"a": gt.NodeSet.from_fields(sizes=np.array([n]))},
        )

    graphs = [g(2), g(2), g(9), g(2)]
    cons = SizeConstraints(total_num_components=3, total_num_nodes={"a": 6})
    loader = GraphBatchLoader(graphs, 2, constraints=cons, fit_or_skip=True, dynamic=True)
    batches = list(loader)  # used to raise on graph 2 and lose graphs 0 and 1
    assert [int(m.sum()) for _, m in batches] == [3]  # graphs 0, 1 and 3 fit exactly
    assert loader.skipped_fraction == 0.5  # one batch kept, one graph skipped
    with pytest.raises(ValueError, match="drop_remainder has no meaning"):
        GraphBatchLoader(graphs, 2, constraints=cons, dynamic=True, drop_remainder=True)
    with pytest.raises(ValueError, match="shuffle_buffer must be positive"):
        GraphBatchLoader(graphs, 2, shuffle_buffer=0)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        GraphBatchLoader(graphs, 2.5)


def test_loader_arguments_are_checked_before_use():
    graphs = _graphs(3, seed=4)
    for bad in (None, "4", 0.5, False):
        with pytest.raises((TypeError, ValueError), match="batch_size"):
            GraphBatchLoader(graphs, bad)
    for bad in (2.7, "5", True, None):
        with pytest.raises(TypeError, match="shuffle_buffer must be an int"):
            GraphBatchLoader(graphs, 2, shuffle_buffer=bad)
