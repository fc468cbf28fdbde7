"""Parity sweep (s14) of TF-GNN names no earlier sweep reached, against NumPy references of
TF-GNN's sources (TF-GNN is not installed; read at tensorflow/gnn 5d7251e):

- graph/graph_tensor_ops.py: ``pool_neighbors_to_node(_feature)`` = broadcast from
  ``from_tag`` (default ``reverse_tag(to_tag)``) then pool to ``to_tag``;
  ``to_feature_name`` defaults to ``feature_name`` only when ``None``.
- graph/normalization_ops.py: ``softmax`` = pool "max", exp(v - max), / pool "sum" of it.
- graph/graph_tensor.py: ``check_homogeneous_graph_tensor`` ignores auxiliary sets.
- graph/readout.py: ``new_feature_name`` defaults to ``feature_name`` only when ``None``.
- graph/preprocessing_common.py: ``dataset_filter_with_summary``'s EMA
  (alpha = max(1 - decay, 1 / seen)) and report step max(kept - 1, 0).
- keras/layers/parse_example.py: ``ParseExample`` / ``ParseSingleExample`` take a spec.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygnn.graph_tensor as agt
from arraygnn.graph_tensor import (
    CONTEXT,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    HyperAdjacency,
    NodeSet,
)
from arraygnn.pipeline import (
    FilterWithSummary,
    ParseExample,
    ParseSingleExample,
    context_readout_into_feature,
    structured_readout_into_feature,
)
from arraygnn.pipeline.batching import PadBatches


def _graph(seed: int, dtype=np.float64) -> GraphTensor:
    """Two components; "a" -> "b" edges (some b nodes without edges), a hyper edge set
    "h" with tags 0 (a), 1 (b), 2 (c), context feature "g"."""
    rng = np.random.default_rng(seed)
    na, nb, nc = np.array([3, 2]), np.array([2, 3]), np.array([1, 1])
    # edges stay in their component: comp 0 a 0..2 / b 0..1; comp 1 a 3..4 / b 2..4
    src = np.array([0, 2, 2, 1, 3, 4, 4])
    dst = np.array([1, 1, 0, 1, 4, 4, 2])
    f = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    return GraphTensor.from_pieces(
        context=Context.from_fields(features={"g": f(2, 2)}),
        node_sets={
            "a": NodeSet.from_fields(sizes=na, features={"x": f(5, 2), "i": np.arange(5)}),
            "b": NodeSet.from_fields(sizes=nb, features={"x": f(5, 2)}),
            "c": NodeSet.from_fields(sizes=nc, features={"x": f(2, 2)}),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=np.array([4, 3]),
                adjacency=Adjacency.from_indices(("a", src), ("b", dst)),
                features={"w": f(7), "w2": f(7, 3)},
            ),
            "h": EdgeSet.from_fields(
                sizes=np.array([2, 1]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        0: ("a", np.array([0, 2, 4])),
                        1: ("b", np.array([1, 1, 3])),
                        2: ("c", np.array([0, 0, 1])),
                    }
                ),
            ),
        },
    )


def _np_pool(values, receivers, n, reduce_type):
    """TF-GNN pool_v2 per receiver, with arraygnn's documented 0 for empty max / min."""
    outs = []
    for r in reduce_type.split("|"):
        out = np.zeros((n, *values.shape[1:]), np.result_type(values.dtype, np.float64))
        for i in range(n):
            rows = values[receivers == i]
            if r == "prod":
                out[i] = rows.prod(axis=0)
            elif len(rows) == 0:
                continue
            elif r == "sum":
                out[i] = rows.sum(axis=0)
            elif r == "mean":
                out[i] = rows.mean(axis=0)
            elif r.startswith("max"):
                out[i] = rows.max(axis=0)
            else:
                out[i] = rows.min(axis=0)
        outs.append(out)
    return np.concatenate(outs, axis=-1) if len(outs) > 1 else outs[0]


_SETS = {SOURCE: "a", TARGET: "b", 2: "c"}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "edge_set, to_tag, from_tag, reduce_type",
    [
        ("ab", SOURCE, None, "sum"),  # pooled back to the sources
        ("ab", SOURCE, None, "max|min"),
        ("ab", TARGET, TARGET, "mean"),  # from_tag == to_tag: each node's own value per edge
        ("ab", TARGET, None, "min_no_inf|prod"),
        ("h", 2, SOURCE, "sum"),  # hyper-adjacency: from_tag given
        ("h", SOURCE, 2, "mean|max"),
    ],
)
def test_pool_neighbors_to_node_matches_broadcast_then_pool(
    seed, edge_set, to_tag, from_tag, reduce_type
):
    g = _graph(seed)
    adj = g.edge_sets[edge_set].adjacency
    sender_tag = 1 - to_tag if from_tag is None else from_tag
    x = g.node_sets[_SETS[sender_tag]]["x"]
    want = _np_pool(
        x[adj[sender_tag]], adj[to_tag], g.node_sets[_SETS[to_tag]].total_size, reduce_type
    )
    got = agt.pool_neighbors_to_node(
        g, edge_set, to_tag, reduce_type=reduce_type, from_tag=from_tag, feature_name="x"
    )
    assert got.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_pool_neighbors_to_node_integer_and_float32_values():
    g = _graph(2, np.float32)
    adj = g.edge_sets["ab"].adjacency
    ints = agt.pool_neighbors_to_node(g, "ab", TARGET, reduce_type="max", feature_name="i")
    want = _np_pool(g.node_sets["a"]["i"][adj.source], adj.target, 5, "max")
    assert ints.dtype == np.int64
    np.testing.assert_array_equal(ints, want)
    f32 = agt.pool_neighbors_to_node(g, "ab", TARGET, reduce_type="mean", feature_name="x")
    assert f32.dtype == np.float32
    want = _np_pool(g.node_sets["a"]["x"][adj.source].astype(np.float64), adj.target, 5, "mean")
    np.testing.assert_allclose(f32, want, rtol=1e-6, atol=1e-6)


def test_pool_neighbors_to_node_errors():
    g = _graph(0)
    # TF-GNN: reverse_tag() only knows SOURCE / TARGET (hypergraphs need from_tag)
    with pytest.raises(ValueError, match=r"pool_neighbors_to_node\(\).*from_tag"):
        agt.pool_neighbors_to_node(g, "h", 2, reduce_type="sum", feature_name="x")
    with pytest.raises(ValueError, match=r"pool_neighbors_to_node\(\).*tag"):
        agt.pool_neighbors_to_node(g, "ab", CONTEXT, reduce_type="sum", feature_name="x")
    with pytest.raises(ValueError, match="exactly one of feature_value= or feature_name="):
        agt.pool_neighbors_to_node(g, "ab", TARGET, reduce_type="sum")


def test_pool_neighbors_to_node_feature_names():
    g = _graph(0)
    want = agt.pool_neighbors_to_node(g, "ab", SOURCE, reduce_type="sum", feature_name="x")
    same = agt.pool_neighbors_to_node_feature(g, "ab", SOURCE, reduce_type="sum", feature_name="x")
    np.testing.assert_array_equal(same.node_sets["a"]["x"], want)  # None: feature_name
    assert same.node_sets["b"]["x"] is g.node_sets["b"]["x"]
    # TF-GNN: `if to_feature_name is None`; "" is a name, not "use the default"
    empty = agt.pool_neighbors_to_node_feature(
        g, "ab", SOURCE, reduce_type="sum", feature_name="x", to_feature_name=""
    )
    assert empty.node_sets["a"]["x"] is g.node_sets["a"]["x"]
    np.testing.assert_array_equal(empty.node_sets["a"][""], want)


# ---- softmax_edges_per_node ------------------------------------------------------------------


def _np_softmax(values, groups, n):
    """TF-GNN's formula: exp(v - max) / sum(exp(v - max)) per group."""
    peak = np.full((n, *values.shape[1:]), -np.inf)
    for i in range(n):
        if (groups == i).any():
            peak[i] = values[groups == i].max(axis=0)
    e = np.exp(values - peak[groups])
    total = np.zeros_like(peak)
    np.add.at(total, groups, e)
    return e / total[groups]


@pytest.mark.parametrize("tag", [SOURCE, TARGET, CONTEXT])
@pytest.mark.parametrize("name", ["w", "w2"])
def test_softmax_edges_per_node_matches_tfgnn_formula(tag, name):
    g = _graph(3)
    es = g.edge_sets["ab"]
    groups = (
        np.repeat(np.arange(2), es.sizes) if tag == CONTEXT else es.adjacency[tag]
    )  # CONTEXT: per component, as tfgnn.softmax(graph, CONTEXT, ...)
    n = 2 if tag == CONTEXT else 5
    got = agt.softmax_edges_per_node(g, "ab", tag, feature_name=name)
    np.testing.assert_allclose(got, _np_softmax(es[name], groups, n), rtol=1e-12, atol=1e-14)


def test_softmax_edges_per_node_dtypes_and_infinities():
    g = _graph(0)
    value = np.array([np.inf, 1.0, -np.inf, -np.inf, 0.0, 2.0, 1.0])
    # receivers: 1, 1, 0, 1, 4, 4, 2 -> b1 has +inf (nan, as inf - inf in TF-GNN), b0 all -inf
    got = agt.softmax_edges_per_node(g, "ab", TARGET, feature_value=value)
    with np.errstate(invalid="ignore"):
        want = _np_softmax(value, g.edge_sets["ab"].adjacency.target, 5)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    assert np.isnan(got[[0, 1, 2, 3]]).all()
    for dtype in (np.float16, np.float32):
        out = agt.softmax_edges_per_node(g, "ab", SOURCE, feature_value=np.ones(7, dtype))
        assert out.dtype == dtype
    with pytest.raises(TypeError, match="softmax needs floats"):
        agt.softmax_edges_per_node(g, "ab", SOURCE, feature_value=np.ones(7, np.int64))


# ---- checks ------------------------------------------------------------------------------------


def test_check_homogeneous_graph_tensor_ignores_aux_sets_and_takes_specs():
    ones = np.array([1])
    homog = GraphTensor.from_pieces(
        node_sets={
            "n": NodeSet.from_fields(sizes=np.array([2])),
            "_readout": NodeSet.from_fields(sizes=ones),
        },
        edge_sets={
            "e": EdgeSet.from_fields(
                sizes=ones, adjacency=Adjacency.from_indices(("n", [0]), ("n", [1]))
            ),
            "_readout/seed": EdgeSet.from_fields(
                sizes=ones, adjacency=Adjacency.from_indices(("n", [0]), ("_readout", [0]))
            ),
        },
    )
    for value in (homog, homog.spec):
        agt.check_homogeneous_graph_tensor(value)
        assert agt.get_homogeneous_node_and_edge_set_name(value) == ("n", "e")
    with pytest.raises(ValueError, match=r"^MyLayer requires .* got 3 node sets and 2 edge sets"):
        agt.check_homogeneous_graph_tensor(_graph(0).spec, name="MyLayer")
    with pytest.raises(ValueError, match="Unsupported value type int"):
        agt.check_homogeneous_graph_tensor(3)


# ---- readout: new_feature_name ------------------------------------------------------------------


def test_readout_into_feature_empty_new_feature_name_is_a_name():
    g = _graph(1)
    out = context_readout_into_feature(g, feature_name="g", new_feature_name="")
    np.testing.assert_array_equal(out.node_sets["_readout"][""], g.context["g"])
    assert "g" not in out.node_sets["_readout"].features
    seeded = agt.GraphTensor.from_pieces(
        context=g.context,
        node_sets={**g.node_sets, "_readout": NodeSet.from_fields(sizes=np.array([1, 1]))},
        edge_sets={
            **g.edge_sets,
            "_readout/seed": EdgeSet.from_fields(
                sizes=np.array([1, 1]),
                adjacency=Adjacency.from_indices(("a", [0, 3]), ("_readout", [0, 1])),
            ),
        },
    )
    got = structured_readout_into_feature(seeded, "seed", feature_name="x", new_feature_name="")
    np.testing.assert_array_equal(got.node_sets["_readout"][""], g.node_sets["a"]["x"][[0, 3]])
    assert "x" not in got.node_sets["_readout"].features


# ---- pipeline: FilterWithSummary, PadBatches, ParseExample ---------------------------------


@pytest.mark.parametrize("steps, decay", [(3, None), (2, 0.5), (5, 0.9)])
def test_filter_with_summary_ema_and_report_steps(steps, decay):
    keep = [True, False, False, True, True, False, True, True, False, True, True, True]
    reports = []
    f = FilterWithSummary(
        range(len(keep)),
        lambda i: keep[i],
        summary_name="rm",
        summary_steps=steps,
        summary_decay=decay,
        report=lambda *a: reports.append(a),
    )
    kept = list(f)
    # preprocessing_common.py scan_fn, transcribed
    d = math.exp(-1.0 / steps) if decay is None else decay
    ema, out, want = 0.0, 0, []
    for i, k in enumerate(keep, start=1):
        out += k
        ema += max(1.0 - d, 1.0 / i) * (float(not k) - ema)
        if i % steps == 0:
            want.append(("rm", ema, max(out - 1, 0)))
    assert kept == [i for i, k in enumerate(keep) if k]
    assert [(n, s) for n, _, s in reports] == [(n, s) for n, _, s in want]
    np.testing.assert_allclose([e for _, e, _ in reports], [e for _, e, _ in want], rtol=1e-12)
    np.testing.assert_allclose(f.removed_fraction_ema, ema, rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{"summary_steps": 0}, {"summary_decay": 1.0}])
def test_filter_with_summary_bad_arguments(kwargs):
    with pytest.raises(ValueError, match="Expected"):
        FilterWithSummary([], bool, **kwargs)


@pytest.mark.parametrize("fit_or_skip", [False, True])
@pytest.mark.parametrize(
    "bad, error",
    [
        ({"num_nodes": -1}, ValueError),
        ({"num_edges": -3}, ValueError),
        ({"num_graphs": 2.5}, TypeError),
    ],
)
def test_pad_batches_checks_sizes_up_front(fit_or_skip, bad, error):
    # fit_or_skip=True used to skip every batch silently for a negative size
    sizes = {"num_nodes": 8, "num_edges": 8, "num_graphs": 3, **bad}
    name = next(iter(bad))
    with pytest.raises(error, match=rf"PadBatches: {name}"):
        PadBatches([], fit_or_skip=fit_or_skip, **sizes)


def test_parse_example_layers_take_a_spec():
    from arraygnn.io.example import write_example

    g = _graph(0, np.float32)  # tf.Example floats are float32
    g = GraphTensor.from_pieces(node_sets={"a": g.node_sets["a"]})
    blob = write_example(
        GraphTensor.from_pieces(
            node_sets={
                "a": NodeSet.from_fields(
                    sizes=np.array([5]), features=dict(g.node_sets["a"].features)
                )
            }
        )
    )
    one = ParseSingleExample(g.spec)(blob)
    np.testing.assert_array_equal(one.node_sets["a"]["x"], g.node_sets["a"]["x"])
    none = ParseExample(g.spec)([])
    assert none.num_components == 0 and none.node_sets["a"]["x"].shape == (0, 2)
    # a graph where the spec belongs (a slip TF-GNN rejects) used to parse garbage shapes
    for layer in (ParseExample, ParseSingleExample):
        with pytest.raises(TypeError, match=rf"{layer.__name__}: graph_tensor_spec .*\.spec"):
            layer(g)
