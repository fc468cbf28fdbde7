"""Gaps between the jraph face and jraph 0.0.6 found by review (session 9): integer input
to the float-valued segment operations, integral-float padding sizes, JAX arrays."""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.graphs_tuple as gt
from arraygnn.graphs_tuple import GraphsTuple

FLOAT_OPS = ["segment_mean", "segment_variance", "segment_normalize", "segment_softmax"]
INT_DTYPES = [np.int8, np.int32, np.int64, np.uint8]


def _graph(n: int = 3, e: int = 2) -> GraphsTuple:
    return GraphsTuple(
        nodes=np.arange(n * 2, dtype=np.float32).reshape(n, 2),
        edges=np.ones((e, 1), np.float32),
        receivers=(np.arange(e) + 1).astype(np.int32) % n,
        senders=(np.arange(e) % n).astype(np.int32),
        globals=np.ones((1, 1), np.float32),
        n_node=np.array([n], np.int32),
        n_edge=np.array([e], np.int32),
    )


def _assert_graphs_equal(a, b) -> None:
    for name, x, y in zip(GraphsTuple._fields, a, b):
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)


# --- 1. integer / bool input to the float-valued segment operations -----------------


@pytest.mark.parametrize("op", FLOAT_OPS)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_input_gives_float32_as_jraph(op, dtype):
    jraph = pytest.importorskip("jraph")
    data = np.array([1, 2, 6, 3], dtype)
    ids = np.array([0, 0, 1, 2])
    got = getattr(gt, op)(data, ids, 4)
    want_dtype = np.asarray(getattr(jraph, op)(data, ids, 4)).dtype
    assert got.dtype == want_dtype == np.float32
    # values: jraph's on the same numbers as floats (jraph's uint8 softmax wraps around
    # when it subtracts the maximum and gives NaN; this one does not)
    want = np.asarray(getattr(jraph, op)(data.astype(np.float32), ids, 4))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_segment_softmax_of_ints_as_the_review_found():
    jraph = pytest.importorskip("jraph")
    logits, ids = np.ones(3, np.int32), np.array([0, 0, 1])
    got = gt.segment_softmax(logits, ids, 2)
    want = np.asarray(jraph.segment_softmax(logits, ids, 2))
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_integer_input_float32_without_jraph(op):
    data = np.array([[1, 4], [3, 8], [5, 0]], np.int64)
    ids = np.array([0, 0, 1])
    got = getattr(gt, op)(data, ids, 3)
    want = getattr(gt, op)(data.astype(np.float64), ids, 3)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_integer_mean_does_not_overflow_the_input_dtype():
    # 100 + 100 overflows int8 (jraph's segment_sum-then-divide gives -28); computed in
    # floating point here
    data = np.array([100, 100, -128, -128], np.int8)
    got = gt.segment_mean(data, np.array([0, 0, 1, 1]), 2)
    assert got.dtype == np.float32 and got.tolist() == [100.0, -128.0]


def test_integer_input_is_not_modified():
    data = np.array([5, 1, 2], np.int32)
    before = data.copy()
    for op in FLOAT_OPS:
        getattr(gt, op)(data, np.array([0, 0, 1]), 2)
    np.testing.assert_array_equal(data, before)


def test_float_input_keeps_its_dtype():
    ids = np.array([0, 0, 1, 1])
    for dtype in (np.float16, np.float32, np.float64):
        data = np.array([1.0, 2.0, 4.0, 3.0], dtype)
        for op in FLOAT_OPS:
            assert getattr(gt, op)(data, ids, 2).dtype == dtype, (op, dtype)


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_bool_input_is_a_type_error_naming_the_function(op):
    # jraph (jax.ops) raises TypeError for bool data in all four; so does segment_sum here
    flags, ids = np.array([True, False, True]), np.array([0, 0, 1])
    with pytest.raises(TypeError, match=f"{op}: .*bool"):
        getattr(gt, op)(flags, ids, 2)


@pytest.mark.parametrize("op", FLOAT_OPS)
def test_bool_input_raises_in_jraph_too(op):
    jraph = pytest.importorskip("jraph")
    with pytest.raises(TypeError):
        getattr(jraph, op)(np.array([True, False]), np.array([0, 0]), 1)


# --- 2. integral floats as padding sizes / budgets / counts --------------------------


def test_pad_with_graphs_accepts_integral_floats_as_jraph():
    jraph = pytest.importorskip("jraph")
    g = _graph()
    got = gt.pad_with_graphs(g, 20.0, 20, 6)
    _assert_graphs_equal(got, gt.pad_with_graphs(g, 20, 20, 6))
    want = jraph.pad_with_graphs(jraph.GraphsTuple(*g), 20.0, 20, 6)
    assert got.n_node.tolist() == np.asarray(want.n_node).tolist()
    assert got.n_edge.tolist() == np.asarray(want.n_edge).tolist()
    np.testing.assert_array_equal(got.nodes, want.nodes)
    np.testing.assert_array_equal(got.senders, want.senders)


@pytest.mark.parametrize(
    "sizes", [(20.0, 20.0, 6.0), (np.float32(20), np.float64(20), 6), (20, 20, np.float16(6))]
)
def test_pad_with_graphs_float_kinds(sizes):
    g = _graph()
    got = gt.pad_with_graphs(g, *sizes)
    _assert_graphs_equal(got, gt.pad_with_graphs(g, 20, 20, 6))
    assert type(gt.get_number_of_padding_with_graphs_nodes(got)) is int


@pytest.mark.parametrize(
    ("sizes", "name"),
    [((20.5, 20, 6), "n_node"), ((20, 19.9, 6), "n_edge"), ((20, 20, 6.25), "n_graph")],
)
def test_pad_with_graphs_refuses_fractional_sizes(sizes, name):
    with pytest.raises(ValueError, match=f"pad_with_graphs: {name} must be a whole number"):
        gt.pad_with_graphs(_graph(), *sizes)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_pad_with_graphs_refuses_nan_and_inf(bad):
    with pytest.raises(ValueError, match="pad_with_graphs: n_node must be a whole number"):
        gt.pad_with_graphs(_graph(), bad, 20, 6)


@pytest.mark.parametrize("bad", ["20", None, True, np.bool_(True), 20j])
def test_pad_with_graphs_other_types_stay_type_errors(bad):
    with pytest.raises(TypeError, match="pad_with_graphs: n_node must be an int"):
        gt.pad_with_graphs(_graph(), bad, 20, 6)


def test_dynamically_batch_accepts_integral_float_budgets():
    jraph = pytest.importorskip("jraph")
    graphs = [_graph(3, 2), _graph(2, 1), _graph(4, 3)]
    got = list(gt.dynamically_batch(iter(graphs), 8.0, 6.0, 3.0))
    ints = list(gt.dynamically_batch(iter(graphs), 8, 6, 3))
    assert len(got) == len(ints)
    for a, b in zip(got, ints):
        _assert_graphs_equal(a, b)
    want = list(jraph.dynamically_batch(iter([jraph.GraphsTuple(*g) for g in graphs]), 8.0, 6, 3))
    assert [b.n_node.tolist() for b in got] == [np.asarray(b.n_node).tolist() for b in want]


@pytest.mark.parametrize(
    ("sizes", "name"), [((8.5, 6, 3), "n_node"), ((8, 6.5, 3), "n_edge"), ((8, 6, 3.5), "n_graph")]
)
def test_dynamically_batch_refuses_fractional_budgets_at_the_call(sizes, name):
    with pytest.raises(ValueError, match=f"dynamically_batch: {name} must be a whole number"):
        gt.dynamically_batch(iter([_graph()]), *sizes)  # before the first batch is asked for


def test_dynamically_batch_type_errors_name_the_budget():
    with pytest.raises(TypeError, match="dynamically_batch: n_edge must be an int"):
        gt.dynamically_batch([_graph()], 8, "6", 3)
    with pytest.raises(ValueError, match="at least 2"):
        gt.dynamically_batch([_graph()], 8, 6, 1.0)


def test_get_fully_connected_graph_integral_float_counts():
    got = gt.get_fully_connected_graph(3.0, np.float32(2), add_self_edges=False)
    _assert_graphs_equal(got, gt.get_fully_connected_graph(3, 2, add_self_edges=False))
    with pytest.raises(ValueError, match="get_fully_connected_graph: n_node_per_graph must be a"):
        gt.get_fully_connected_graph(3.5, 2)
    with pytest.raises(ValueError, match="get_fully_connected_graph: n_graph must be >= 0"):
        gt.get_fully_connected_graph(3, -1.0)


# --- 3. graphs of JAX arrays --------------------------------------------------------


def _jax_graph():
    jax = pytest.importorskip("jax")
    return jax.tree_util.tree_map(jax.numpy.asarray, _graph())


@pytest.mark.parametrize(
    "call",
    [
        lambda g: gt.batch([g, g]),
        lambda g: gt.pad_with_graphs(g, 8, 4, 3),
        lambda g: gt.unbatch(g),
        lambda g: list(gt.dynamically_batch([g], 8, 4, 3)),
        lambda g: gt.zero_out_padding(g),
    ],
    ids=["batch", "pad_with_graphs", "unbatch", "dynamically_batch", "zero_out_padding"],
)
def test_jax_graphs_get_a_type_error_saying_how_to_convert(call):
    with pytest.raises(TypeError, match=r"JAX array.*arraygnn\.graphs_tuple\.from_jraph"):
        call(_jax_graph())


def test_jax_leaf_in_a_numpy_graph_names_the_field():
    jnp = pytest.importorskip("jax.numpy")
    g = _graph()
    with pytest.raises(TypeError, match=r"graph 1: nodes .*JAX array.*from_jraph"):
        gt.batch([g, g._replace(nodes=jnp.ones((3, 2)))])
    with pytest.raises(TypeError, match=r"pad_with_graphs: nodes .*JAX array.*from_jraph"):
        gt.pad_with_graphs(g._replace(nodes={"a": jnp.ones((3, 2))}), 8, 4, 3)
    with pytest.raises(TypeError, match=r"graph 0: edges .*JAX array.*from_jraph"):
        gt.batch([g._replace(edges=jnp.ones((2, 1))), g])


def test_jax_segment_data_says_how_to_convert():
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(TypeError, match=r"segment_sum: data .*arraygnn\.interop\.from_jax"):
        gt.segment_sum(jnp.ones(3), np.array([0, 0, 1]), 2)
    with pytest.raises(TypeError, match=r"segment_ids .*arraygnn\.interop\.from_jax"):
        gt.segment_softmax(np.ones(3), jnp.array([0, 0, 1]), 2)


def test_the_suggested_conversion_matches_jraph():
    jraph = pytest.importorskip("jraph")
    gj = _jax_graph()
    g = gt.from_jraph(gj)
    _assert_graphs_equal(gt.batch([g, g]), jraph.batch([gj, gj]))
    _assert_graphs_equal(gt.unbatch(g)[0], jraph.unbatch(gj)[0])
    padded, want = gt.pad_with_graphs(g, 8, 4, 3), jraph.pad_with_graphs(gj, 8, 4, 3)
    assert padded.n_node.tolist() == np.asarray(want.n_node).tolist()
    np.testing.assert_array_equal(padded.nodes, want.nodes)
