"""``arraygnn.graph_tensor.graph_ops`` (and the readout / small layers around it) against the
real TF-GNN on the same random heterogeneous graphs: several and empty components, empty
edge sets, isolated nodes, int32 / int64 indices, string, bool and ragged features. The
random shuffles cannot match TensorFlow's random streams and are tested by their properties
in ``test_gt_graph_ops.py``. Skipped without ``tensorflow_gnn``. To run it::

    PYTHONPATH=/path/to/tf/site-packages TF_USE_LEGACY_KERAS=1 \\
        python -m pytest -q -p no:cacheprovider tests/graph_tensor/test_gt_graph_ops_tfgnn.py
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # TF-GNN needs Keras 2 (tf_keras)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

tfgnn = pytest.importorskip("tensorflow_gnn")

import tensorflow as tf  # noqa: E402

import arraygnn.graph_tensor as agt  # noqa: E402
from arraygnn.graph_tensor import (  # noqa: E402
    CONTEXT,
    SOURCE,
    TARGET,
    GraphTensor,
    NodeSet,
    Ragged,
)
from arraygnn.graph_tensor.layers import AddSelfLoops, ItemDropout, MakeEmptyFeature  # noqa: E402
from arraygnn.pipeline import (  # noqa: E402
    AddReadoutFromFirstNode,
    StructuredReadoutIntoFeature,
    structured_readout,
)
from tests.graph_tensor._gt_cases import EDGE_SETS, random_graph  # noqa: E402

SEEDS = range(5)


def _graph(seed: int, index_dtype=np.int64, **kw) -> GraphTensor:
    """A random graph with float32 features (TF's default) and a ragged edge feature."""
    g = random_graph(np.random.default_rng(seed), index_dtype=index_dtype, **kw)
    rng = np.random.default_rng(50 + seed)
    nodes = {
        n: dict(p.features, h=p["h"].astype(np.float32), label=p["label"].astype("S8"))
        for n, p in g.node_sets.items()
    }
    edges = {}
    for n, p in g.edge_sets.items():
        lengths = rng.integers(0, 3, size=p.total_size)
        edges[n] = dict(
            p.features,
            seq=Ragged.from_row_lengths(rng.integers(0, 9, size=int(lengths.sum())), lengths),
        )
    ctx = dict(g.context.features, g=g.context["g"].astype(np.float32))
    return g.replace_features(context=ctx, node_sets=nodes, edge_sets=edges)


def _tf_value(v):
    if isinstance(v, Ragged):
        return tf.RaggedTensor.from_row_splits(tf.constant(v.values), tf.constant(v.row_splits))
    return tf.constant(v)


def _tf_graph(g: GraphTensor):
    """The TF-GNN GraphTensor of the same arrays (indices and sizes in the graph's dtype)."""

    def feats(p):
        return {k: _tf_value(v) for k, v in p.features.items()}

    some = [p.adjacency.source.dtype for p in g.edge_sets.values()]
    idt = some[0] if some else np.int64

    def sizes(p):
        return tf.constant(p.sizes.astype(idt))

    return tfgnn.GraphTensor.from_pieces(
        context=tfgnn.Context.from_fields(sizes=sizes(g.context), features=feats(g.context)),
        node_sets={
            n: tfgnn.NodeSet.from_fields(sizes=sizes(p), features=feats(p))
            for n, p in g.node_sets.items()
        },
        edge_sets={
            n: tfgnn.EdgeSet.from_fields(
                sizes=sizes(p),
                adjacency=tfgnn.Adjacency.from_indices(
                    source=(p.adjacency.source_name, tf.constant(p.adjacency.source)),
                    target=(p.adjacency.target_name, tf.constant(p.adjacency.target)),
                ),
                features=feats(p),
            )
            for n, p in g.edge_sets.items()
        },
    )


def _np(v):
    if isinstance(v, tf.RaggedTensor):
        return v.to_list()
    if isinstance(v, Ragged):
        return v.to_list()
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


def _same(got, want, what: str, float_tol: float = 0.0) -> None:
    got, want = _np(got), _np(want)
    if isinstance(want, list):
        assert got == want, what
        return
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind == "f" and float_tol:
        np.testing.assert_allclose(got, want, rtol=float_tol, atol=float_tol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _same_graph(got: GraphTensor, want, float_tol: float = 0.0) -> None:
    assert sorted(got.node_sets) == sorted(want.node_sets)
    assert sorted(got.edge_sets) == sorted(want.edge_sets)
    pieces = [("context", got.context, want.context)]
    pieces += [(f"node set {n}", got.node_sets[n], want.node_sets[n]) for n in want.node_sets]
    pieces += [(f"edge set {n}", got.edge_sets[n], want.edge_sets[n]) for n in want.edge_sets]
    for where, a, b in pieces:
        _same(a.sizes, b.sizes, f"{where} sizes")
        assert sorted(a.features) == sorted(b.features), where
        for k in b.features:
            _same(a[k], b[k], f"{where} {k}", float_tol)
    for n in want.edge_sets:
        a, b = got.edge_sets[n].adjacency, want.edge_sets[n].adjacency
        assert (a.source_name, a.target_name) == (b.source_name, b.target_name), n
        _same(a.source, b.source, f"{n} source")
        _same(a.target, b.target, f"{n} target")


TOL = 2e-6


@pytest.mark.parametrize("seed", SEEDS)
def test_softmax_matches(seed):
    g = _graph(seed)
    t = _tf_graph(g)
    for e in EDGE_SETS:
        for tag in (SOURCE, TARGET, CONTEXT):
            _same(
                agt.softmax(g, tag, edge_set_name=e, feature_name="w"),
                tfgnn.softmax(t, tag, edge_set_name=e, feature_name="w"),
                f"softmax {e} {tag}",
                TOL,
            )
        _same(
            agt.softmax_edges_per_node(g, e, TARGET, feature_name="w"),
            tfgnn.softmax_edges_per_node(t, e, TARGET, feature_name="w"),
            e,
            TOL,
        )
        w0 = g.edge_sets[e]["w"][:, 0]  # one value per item: the edge_softmax path
        _same(
            agt.softmax(g, TARGET, edge_set_name=e, feature_value=w0),
            tfgnn.softmax(t, TARGET, edge_set_name=e, feature_value=tf.constant(w0)),
            f"softmax {e} rank 1",
            TOL,
        )
    for n in ("a", "b"):
        _same(
            agt.softmax(g, CONTEXT, node_set_name=n, feature_name="h"),
            tfgnn.softmax(t, CONTEXT, node_set_name=n, feature_name="h"),
            n,
            TOL,
        )
    got = agt.softmax(g, TARGET, edge_set_name=["ab", "ab2"], feature_name="w")
    want = tfgnn.softmax(t, TARGET, edge_set_name=["ab", "ab2"], feature_name="w")
    for a, b in zip(got, want, strict=True):
        _same(a, b, "softmax over two edge sets", TOL)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_node_degree_matches(seed, index_dtype):
    g = _graph(seed, index_dtype)
    t = _tf_graph(g)
    for e in EDGE_SETS:
        for tag in (SOURCE, TARGET):
            got = agt.node_degree(g, e, tag)
            want = tfgnn.node_degree(t, e, tag)
            assert got.dtype == want.dtype.as_numpy_dtype
            _same(got, want, f"node_degree {e} {tag}")


@pytest.mark.parametrize("seed", SEEDS)
def test_gather_first_node_and_readout_match(seed):
    for s in range(seed, seed + 100):  # every component needs a first node
        g = _graph(s, empty_prob=0.0, max_nodes=4)
        if (g.node_sets["a"].sizes > 0).all():
            break
    t = _tf_graph(g)
    for k in ("h", "k", "label", "tokens"):
        _same(
            agt.gather_first_node(g, "a", feature_name=k),
            tfgnn.gather_first_node(t, "a", feature_name=k),
            k,
        )
    ours = AddReadoutFromFirstNode("seed", node_set_name="a")(g)
    theirs = tfgnn.keras.layers.AddReadoutFromFirstNode("seed", node_set_name="a")(t)
    _same_graph(ours, theirs)
    _same(
        structured_readout(ours, "seed", feature_name="h"),
        tfgnn.structured_readout(theirs, "seed", feature_name="h"),
        "structured_readout",
    )
    for remove in (False, True):
        got = StructuredReadoutIntoFeature(
            "seed", feature_name="k", new_feature_name="y", remove_input_feature=remove
        )(ours)
        want = tfgnn.keras.layers.StructuredReadoutIntoFeature(
            "seed", feature_name="k", new_feature_name="y", remove_input_feature=remove
        )(theirs)
        _same_graph(got, want)


def test_combine_values_matches():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 3), np.float32), rng.standard_normal((4, 3), np.float32)
    c = rng.standard_normal((4, 2), np.float32)
    _same(agt.combine_values([a, b], "sum"), tfgnn.combine_values([a, b], "sum"), "sum", TOL)
    _same(agt.combine_values([a, c], "concat"), tfgnn.combine_values([a, c], "concat"), "cat")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_mask_edges_matches(seed, index_dtype):
    g = _graph(seed, index_dtype)
    t = _tf_graph(g)
    rng = np.random.default_rng(seed)
    for e in EDGE_SETS:
        mask = rng.random(g.edge_sets[e].total_size) < 0.5
        got = agt.mask_edges(g, e, mask, "removed")
        want = tfgnn.mask_edges(t, e, tf.constant(mask), "removed")
        _same_graph(got, want)


@pytest.mark.parametrize("seed", SEEDS)
def test_add_self_loops_matches(seed):
    # int32 indices only: TF-GNN 1.0.3's add_self_loops fails for int64 ones (it clips
    # int32 positions by an int64 count: "cannot compute Minimum")
    g = _graph(seed, np.int32)
    # TF-GNN's add_self_loops cannot extend a ragged edge feature: leave it out there
    g = g.remove_features(edge_sets={"aa": ["seq"]})
    g = g.replace_features(
        edge_sets={
            "aa": dict(
                g.edge_sets["aa"].features,
                tag=np.array([b"x%d" % i for i in range(g.edge_sets["aa"].total_size)]),
                on=np.ones(g.edge_sets["aa"].total_size, bool),
            )
        }
    )
    t = _tf_graph(g)
    _same_graph(agt.add_self_loops(g, "aa"), tfgnn.add_self_loops(t, "aa"))
    _same_graph(AddSelfLoops("aa")(g), tfgnn.keras.layers.AddSelfLoops("aa")(t))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_reorder_nodes_matches(seed, index_dtype):
    g = _graph(seed, index_dtype)
    t = _tf_graph(g)
    rng = np.random.default_rng(seed)
    perms = {n: rng.permutation(p.total_size).astype(index_dtype) for n, p in g.node_sets.items()}
    for chosen in (["a"], ["b"], ["a", "b"]):
        idx = {n: perms[n] for n in chosen}
        got = agt.reorder_nodes(g, idx)
        want = tfgnn.reorder_nodes(t, {n: tf.constant(v) for n, v in idx.items()})
        _same_graph(got, want)


REDUCES = ["sum", "mean", "prod", "max_no_inf", "min_no_inf", "sum|mean", "max_no_inf|sum"]


@pytest.mark.parametrize("seed", SEEDS)
def test_pool_neighbors_to_node_matches(seed):
    g = _graph(seed)
    t = _tf_graph(g)
    for e in EDGE_SETS:
        for tag in (SOURCE, TARGET):
            for r in REDUCES:
                for feat in ("h", "k") if "|" not in r else ("h",):
                    _same(
                        agt.pool_neighbors_to_node(g, e, tag, reduce_type=r, feature_name=feat),
                        tfgnn.pool_neighbors_to_node(t, e, tag, reduce_type=r, feature_name=feat),
                        f"{e} {tag} {r} {feat}",
                        2e-5,
                    )
    for r in REDUCES:
        _same(
            agt.pool_neighbors_to_node(g, ["ab", "ab2"], TARGET, reduce_type=r, feature_name="h"),
            tfgnn.pool_neighbors_to_node(t, ["ab", "ab2"], TARGET, reduce_type=r, feature_name="h"),
            f"two edge sets {r}",
            2e-5,
        )
    got = agt.pool_neighbors_to_node_feature(
        g, "ba", TARGET, reduce_type="mean", feature_name="h", to_feature_name="nb"
    )
    want = tfgnn.pool_neighbors_to_node_feature(
        t, "ba", TARGET, reduce_type="mean", feature_name="h", to_feature_name="nb"
    )
    _same_graph(got, want, 2e-5)


def test_make_empty_feature_matches():
    g = _graph(2)
    t = _tf_graph(g)
    layer = tfgnn.keras.layers.MakeEmptyFeature()
    for n in g.node_sets:
        got, want = MakeEmptyFeature()(g.node_sets[n]), layer(t.node_sets[n])
        assert got.dtype == want.dtype.as_numpy_dtype
        _same(got, want, n)
    _same(MakeEmptyFeature()(g.context), layer(t.context), "context")


def test_item_dropout_rates_match():
    """Keras' Dropout accepts rate 1 (the identity at inference), refuses to train with it,
    and refuses rates outside [0, 1]."""
    x = np.ones((4, 2), np.float32)
    theirs = tfgnn.keras.layers.ItemDropout(1.0)
    _same(ItemDropout(1.0)(x), theirs(tf.constant(x), training=False), "rate 1 inference")
    with pytest.raises(ValueError, match="range"):
        theirs(tf.constant(x), training=True)
    with pytest.raises(ValueError, match="ItemDropout: rate"):
        ItemDropout(1.0)(x, training=True)
    for bad in (1.5, -0.1):
        with pytest.raises(ValueError):
            tfgnn.keras.layers.ItemDropout(bad)(tf.constant(x))
        with pytest.raises(ValueError, match="ItemDropout: rate"):
            ItemDropout(bad)


def test_registered_reduce_names_match():
    assert agt.get_registered_reduce_operation_names() == (
        tfgnn.get_registered_reduce_operation_names()
    )
    names = ("_readout", "_readout/seed", "#a.b", "paper", "_shadow/x", "~", "_a\u00e4", "_\u00b2")
    for name in names:
        assert agt.get_aux_type_prefix(name) == tfgnn.get_aux_type_prefix(name), name


def test_shuffles_keep_tfgnn_structure():
    """Our shuffles give graphs TF-GNN accepts, with the same sizes as TF-GNN's shuffles."""
    g = _graph(3, empty_prob=0.0, max_nodes=8)
    t = _tf_graph(g)
    for ours, theirs in (
        (agt.shuffle_nodes(g, seed=1), tfgnn.shuffle_nodes(t, seed=1)),
        (agt.shuffle_features_globally(g, seed=1), tfgnn.shuffle_features_globally(t, seed=1)),
    ):
        _tf_graph(ours)  # TF-GNN's validation accepts it
        for n in g.node_sets:
            _same(ours.node_sets[n].sizes, theirs.node_sets[n].sizes, n)
            for k in ("h", "label"):
                assert sorted(_np(ours.node_sets[n][k]).tolist()) == sorted(
                    _np(theirs.node_sets[n][k]).tolist()
                )


def test_nodeset_without_edges():
    g = GraphTensor.from_pieces(
        node_sets={"n": NodeSet.from_fields(sizes=np.array([2, 0, 1]))},
    )
    assert agt.shuffle_nodes(g, seed=0).node_sets["n"].sizes.tolist() == [2, 0, 1]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"connect_from": SOURCE, "connect_to": SOURCE},
        {"connect_from": TARGET, "connect_to": TARGET, "non_backtracking": True},
        {"non_backtracking": True, "use_node_features_as_line_graph_edge_features": True},
        {"connect_with_original_nodes": True},
    ],
)
def test_convert_to_line_graph_matches(seed, index_dtype, options):
    g = _graph(seed, index_dtype)
    t = _tf_graph(g)
    got = agt.convert_to_line_graph(g, **options)
    _same_graph(got, tfgnn.convert_to_line_graph(t, **options))
