"""TF-GNN top-level names added to the TF-GNN face: homogeneous, random_graph_tensor, the
small checks / tag utilities / constants, graph_tensor_to_values and the schema helpers.

Cases transcribed from TF-GNN's graph_tensor_test.py (HomogeneousTest),
graph_tensor_random_test.py, tag_utils_test.py, graph_tensor_pprint_test.py,
schema_utils_test.py and schema_validation_test.py (TF-GNN is not installed here)."""

from __future__ import annotations

import copy
import json
import pprint

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    DEFAULT_STATE_NAME,
    EDGES,
    HIDDEN_STATE,
    NODES,
    SIZE_NAME,
    SOURCE,
    SOURCE_NAME,
    TARGET,
    TARGET_NAME,
    Adjacency,
    Context,
    ContextSpec,
    EdgeSet,
    EdgeSetSpec,
    FeatureSpec,
    GraphTensor,
    GraphTensorSpec,
    HyperAdjacency,
    HyperEdgeSetSpec,
    NodeSet,
    NodeSetSpec,
    Ragged,
    ValidationError,
    assert_satisfies_size_constraints,
    assert_satisfies_total_sizes,
    batch_graph_tensors,
    check_homogeneous_graph_tensor,
    check_required_features,
    check_scalar_graph_tensor,
    get_homogeneous_node_and_edge_set_name,
    graph_tensor_to_values,
    homogeneous,
    iter_features,
    iter_sets,
    random_graph_tensor,
    reverse_tag,
    satisfies_size_constraints,
    validate_schema,
)
from arraygnn.graph_tensor.random import (
    _random_edge_indices,
    random_ragged_tensor,
    typed_random_values,
)
from arraygnn.io.schema import create_graph_spec_from_schema, parse_schema
from arraygnn.padding import SizeConstraints, satisfies_total_sizes
from tests.graph_tensor._gt_cases import assert_graphs_equal

IDX = [np.int32, np.int64]

FEATURE_REPR = """
context { features { key: "rankings" value { description: "Scores for each quartile"
  dtype: DT_FLOAT shape { dim { size: 4 } } } } }
node_sets { key: "items" value {
  features { key: "category" value { description: "Purchase category" dtype: DT_STRING } }
  features { key: "amounts" value { description: "Purchase price" dtype: DT_FLOAT
    shape { dim { size: -1 } } } } } }
node_sets { key: "persons" value {
  features { key: "name" value { description: "First name" dtype: DT_STRING } }
  features { key: "age" value { description: "Age" dtype: DT_INT64 } }
  features { key: "country" value { description: "Country of origin" dtype: DT_STRING } } } }
edge_sets { key: "purchased" value { source: "items" target: "persons" } }
edge_sets { key: "is-friend" value { source: "persons" target: "persons" } }
"""

CITRUS = """
node_sets { key: "fruits" value { metadata { filename: "fruits.csv" }
  features { key: "name" value: { description: "Fruit name" dtype: DT_STRING } } } }
edge_sets { key: "tastelike" value { source: "fruits" target: "fruits"
  description: "Similar taste" metadata { filename: "tastelike.csv" }
  features { key: "weight" value: { dtype: DT_FLOAT } } } }
"""


def _expected(src, tgt, node_sizes, edge_sizes, nodes=None, edges=None, context=None):
    return GraphTensor.from_pieces(
        context=Context.from_fields(features=context or {}, sizes=np.ones_like(node_sizes)),
        node_sets={NODES: NodeSet.from_fields(features=nodes or {}, sizes=node_sizes)},
        edge_sets={
            EDGES: EdgeSet.from_fields(
                features=edges or {},
                sizes=edge_sizes,
                adjacency=Adjacency.from_indices(source=(NODES, src), target=(NODES, tgt)),
            )
        },
    )


# ---------------------------------------------------------------------------------------------
# homogeneous (graph_tensor_test.py HomogeneousTest)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", IDX)
def test_homogeneous_cases(dtype):
    a = lambda *v: np.array(v, dtype)  # noqa: E731
    eye4, eye7 = np.eye(4, dtype=np.float32), np.eye(7, dtype=np.float32)
    s2, t2 = a(0, 3), a(1, 2)
    s4, t4 = a(0, 3, 4, 5), a(1, 2, 6, 4)
    cases = [
        (homogeneous(s2, t2, node_set_sizes=np.array([4])), _expected(s2, t2, [4], [2])),
        (
            homogeneous(s2, t2, node_features=eye4),
            _expected(s2, t2, [4], [2], nodes={HIDDEN_STATE: eye4}),
        ),
        (
            homogeneous(
                s4,
                t4,
                node_features=eye7,
                node_set_sizes=np.array([4, 3]),
                edge_set_sizes=np.array([2, 2]),
            ),
            _expected(s4, t4, [4, 3], [2, 2], nodes={HIDDEN_STATE: eye7}),
        ),
        (
            homogeneous(
                s4,
                t4,
                node_features=eye7,
                edge_features=np.ones((4, 3), np.float32),
                context_features=np.zeros((1, 5), np.float32),
            ),
            _expected(
                s4,
                t4,
                [7],
                [4],
                nodes={HIDDEN_STATE: eye7},
                edges={HIDDEN_STATE: np.ones((4, 3), np.float32)},
                context={HIDDEN_STATE: np.zeros((1, 5), np.float32)},
            ),
        ),
        (
            homogeneous(
                s4,
                t4,
                node_features={"onehots": eye7},
                edge_features={"floats": np.ones((4, 3), np.float32)},
                context_features={"labels": np.zeros((1, 5), np.float32)},
            ),
            _expected(
                s4,
                t4,
                [7],
                [4],
                nodes={"onehots": eye7},
                edges={"floats": np.ones((4, 3), np.float32)},
                context={"labels": np.zeros((1, 5), np.float32)},
            ),
        ),
    ]
    for got, want in cases:
        assert_graphs_equal(got, want)
        assert got.edge_sets[EDGES].adjacency.source.dtype == dtype
        assert got.rank == 0


def test_homogeneous_names_empty_and_errors():
    g = homogeneous(
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        node_set_sizes=np.array([0]),
        node_set_name="atoms",
        edge_set_name="bonds",
    )
    assert sorted(g.node_sets) == ["atoms"] and g.edge_sets["bonds"].sizes.tolist() == [0]
    assert g.edge_sets["bonds"].adjacency.source_name == "atoms"
    assert g.num_components == 1
    src = np.array([0, 1])
    with pytest.raises(ValueError, match="node_set_sizes must be provided"):
        homogeneous(source=np.array([0, 3]), target=np.array([1, 2]))
    with pytest.raises(ValueError, match="source and target must be rank-1 dense tensors"):
        homogeneous(src[None], src, node_set_sizes=np.array([2]))
    with pytest.raises(ValueError, match=r"edge set 'edges': target index 2 >= 2 nodes"):
        homogeneous(src, np.array([1, 2]), node_features=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="components"):
        homogeneous(src, src, node_features=np.zeros((2, 1)), node_set_sizes=np.array([1, 1]))
    with pytest.raises(ValueError, match=r"context.*1 items.*expected 2"):
        homogeneous(
            src,
            src,
            node_features=np.zeros((2, 1)),
            node_set_sizes=np.array([1, 1]),
            edge_set_sizes=np.array([1, 1]),
            context_features=np.zeros((1, 3)),
        )
    feats = {"x": np.zeros((2, 1))}
    homogeneous(src, src, node_features=feats)
    assert list(feats) == ["x"]  # the user's dict is not changed


# ---------------------------------------------------------------------------------------------
# random values and ragged tensors (graph_tensor_random_test.py)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.str_,
    ],
)
def test_typed_random_values(dtype):
    value = typed_random_values(1_000, dtype, rng=np.random.default_rng(0))
    assert value.dtype.kind == np.dtype(dtype).kind and value.shape == (1_000,)
    if np.dtype(dtype).kind != "U":
        assert value.dtype == dtype
    if np.dtype(dtype).kind == "f":
        assert value.min() >= 0.0 and value.max() < 1.0
    elif np.dtype(dtype).kind in "iu":
        lo, hi = (100, 999) if np.dtype(dtype).itemsize == 8 else (10, 100)
        assert value.min() >= lo and value.max() < hi
    elif np.dtype(dtype).kind == "U":
        assert set(value.tolist()) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_typed_random_values_errors():
    with pytest.raises(TypeError, match="Unsupported type for random values: complex64"):
        typed_random_values(3, np.complex64)
    with pytest.raises(TypeError, match="rng must be"):
        typed_random_values(3, np.float32, rng="seed")


@pytest.mark.parametrize("shape", [[4], [3, None], [None, 3], [4, None, 3], [3, None, None, 2]])
def test_random_ragged_tensor_shapes(shape):
    t = random_ragged_tensor(shape, np.float32, rng=np.random.default_rng(1))
    v, outer = t, []
    while isinstance(v, Ragged):
        outer.append(None)
        v = v.values
    if shape[0] is not None:
        assert (t.nrows if isinstance(t, Ragged) else t.shape[0]) == shape[0]
    ragged = sum(d is None for d in shape[1:])
    assert len(outer) == ragged
    assert v.shape[1:] == tuple(shape[1 + ragged :])


def test_random_ragged_tensor_sample_values_ranges_and_dtypes():
    primo = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
    t = random_ragged_tensor([4, None, 3], np.int32, sample_values=primo, rng=1)
    assert set(t.values.ravel().tolist()) <= set(primo) and t.values.dtype == np.int32
    t = random_ragged_tensor([100, None], np.int32, row_lengths_range=(10, 15), rng=2)
    lengths = t.row_lengths()
    assert lengths.min() >= 10 and lengths.max() < 15
    for dtype in IDX:
        t = random_ragged_tensor([4, None, 3], np.float32, row_splits_dtype=dtype, rng=3)
        assert t.row_splits.dtype == dtype
    with pytest.raises(ValueError, match="cannot be represented"):
        random_ragged_tensor([5, None, 4, None, 3], np.float32)
    with pytest.raises(ValueError, match="Invalid dimension"):
        random_ragged_tensor([5, -1], np.float32)
    assert random_ragged_tensor([], np.float64, rng=0).shape == ()


@pytest.mark.parametrize("dtype", IDX)
def test_random_edge_indices(dtype):
    rng = np.random.default_rng(0)
    d = lambda *v: np.array(v, dtype)  # noqa: E731
    assert _random_edge_indices(rng, d(), d()).tolist() == []
    for n in ([0], [0, 0], [0, 0, 0]):
        assert _random_edge_indices(rng, d(*n), np.ones(len(n), dtype)).tolist() == []
    assert _random_edge_indices(rng, d(1), d(1)).tolist() == [0]
    assert _random_edge_indices(rng, d(1, 1), d(1, 1)).tolist() == [0, 1]
    assert _random_edge_indices(rng, d(2), d(1)).tolist() == [0, 0]
    assert _random_edge_indices(rng, d(3, 2, 1), d(1, 1, 1)).tolist() == [0, 0, 0, 1, 1, 2]
    got = _random_edge_indices(rng, d(1, 0, 0, 1, 0, 1), d(1, 1, 1, 1, 1, 1))
    assert got.tolist() == [0, 3, 5] and got.dtype == dtype
    many = np.stack([_random_edge_indices(rng, d(1, 2), d(2, 3)) for _ in range(400)])
    c1, c2 = many[:, 0], many[:, 1:]
    assert set(c1.tolist()) == {0, 1} and set(c2.ravel().tolist()) == {2, 3, 4}
    assert 0.4 < (c1 == 0).mean() < 0.6 and 0.25 < (c2 == 2).mean() < 0.42


# ---------------------------------------------------------------------------------------------
# random_graph_tensor
# ---------------------------------------------------------------------------------------------


def test_random_graph_tensor_from_schema():
    spec = create_graph_spec_from_schema(parse_schema(FEATURE_REPR))
    g = random_graph_tensor(spec, row_lengths_range=(4, 32), rng=np.random.default_rng(0))
    assert g.shape == () and g.spec == spec
    assert set(g.context.features) == {"rankings"} and g.context["rankings"].shape == (1, 4)
    items, persons = g.node_sets["items"], g.node_sets["persons"]
    assert items["category"].shape == (items.total_size,)
    assert isinstance(items["amounts"], Ragged) and items["amounts"].nrows == items.total_size
    for f in ("name", "age", "country"):
        assert persons[f].shape == (persons.total_size,)
    assert persons["age"].dtype == np.int64 and persons["name"].dtype.kind == "U"
    for name in ("purchased", "is-friend"):
        es = g.edge_sets[name]
        assert es.adjacency.source.shape == (es.total_size,)
        assert es.adjacency.target.shape == (es.total_size,)
    text = pprint.pformat(graph_tensor_to_values(g))  # graph_tensor_pprint_test.py
    assert isinstance(text, str) and "rankings" in text


def _ab_spec():
    """graph_tensor_random_test.py TestSpecConstraints.example's spec."""
    return GraphTensorSpec(
        context=ContextSpec({"label": FeatureSpec(np.str_, ())}),
        node_sets={
            "a": NodeSetSpec({"f": FeatureSpec(np.int32, (None,))}),
            "b": NodeSetSpec({"f": FeatureSpec(np.int32, (2,))}),
        },
        edge_sets={"a->b": EdgeSetSpec("a", "b")},
    )


def test_random_graph_tensor_components_fixed():
    spec = _ab_spec()
    rng = np.random.default_rng(0)
    a_sizes, b_sizes, ab_sizes = [], [], []
    for _ in range(100):
        g = random_graph_tensor(
            spec, row_lengths_range=(0, 4), num_components_range=(2, 3), rng=rng
        )
        assert g.spec == spec and g.num_components == 2
        a, b, ab = g.node_sets["a"], g.node_sets["b"], g.edge_sets["a->b"]
        assert a["f"].nrows == a.total_size and b["f"].shape == (b.total_size, 2)
        for ns, index in ((a, ab.adjacency.source), (b, ab.adjacency.target)):
            first, n0 = int(ab.sizes[0]), int(ns.sizes[0])
            assert (index[:first] < n0).all()
            assert (index[first:] >= n0).all() and (index[first:] < ns.total_size).all()
        # TF-GNN's edge count rule, per component
        s = np.where((a.sizes > 0) & (b.sizes > 0), a.sizes + b.sizes, 0).astype(np.float32)
        lo, hi = (s / np.float32(1.5)).astype(np.int64), (s * np.float32(2.25)).astype(np.int64)
        assert ((ab.sizes >= lo) & ((ab.sizes < hi) | (ab.sizes == lo))).all()
        a_sizes += a.sizes.tolist()
        b_sizes += b.sizes.tolist()
        ab_sizes += ab.sizes.tolist()
    assert set(a_sizes) == {0, 1, 2, 3} and set(b_sizes) == {0, 1, 2, 3}
    assert {0, 1, 2, 3, 4} <= set(ab_sizes)


def test_random_graph_tensor_components_relaxed_and_seeded():
    spec = _ab_spec()
    rng = np.random.default_rng(1)
    counts = {
        random_graph_tensor(spec, num_components_range=(0, 3), rng=rng).num_components
        for _ in range(100)
    }
    assert counts == {0, 1, 2}
    g1 = random_graph_tensor(spec, rng=np.random.default_rng(7))
    g2 = random_graph_tensor(spec, rng=7)
    assert_graphs_equal(g1, g2)
    assert g1.num_components == 1  # the default num_components_range=(1, 2)


@pytest.mark.parametrize("dtype", IDX)
def test_random_graph_tensor_hyper_spec_dtypes_and_samples(dtype):
    spec = GraphTensorSpec(
        node_sets={"a": NodeSetSpec(), "c": NodeSetSpec({"w": FeatureSpec(np.str_, ())})},
        edge_sets={
            "h": HyperEdgeSetSpec({0: "a", 1: "a", 2: "c"}, {"x": FeatureSpec(np.float64, (3,))})
        },
    )
    g = random_graph_tensor(
        spec,
        sample_dict={(NODES, "c", "w"): ["kiwi", "lime"]},
        num_components_range=(1, 4),
        rng=3,
        indices_dtype=dtype,
    )
    assert g.spec == spec
    adj = g.edge_sets["h"].adjacency
    assert isinstance(adj, HyperAdjacency) and adj[2].dtype == dtype
    assert g.node_sets["a"].sizes.dtype == dtype
    assert set(g.node_sets["c"]["w"].tolist()) <= {"kiwi", "lime"}
    assert g.edge_sets["h"]["x"].shape == (g.edge_sets["h"].total_size, 3)


def test_random_graph_tensor_errors():
    spec = _ab_spec()
    with pytest.raises(ValueError, match=r"row_lengths_range\[0\] < row_lengths_range\[1\]"):
        random_graph_tensor(spec, row_lengths_range=(3, 3))
    with pytest.raises(ValueError, match=r"num_components_range\[0\] < num_components_range\[1\]"):
        random_graph_tensor(spec, num_components_range=(2, 1))
    with pytest.raises(ValueError, match=r"requires a scalar GraphTensorSpec.*rank=1"):
        random_graph_tensor(GraphTensorSpec(rank=1))
    with pytest.raises(TypeError, match="spec must be a GraphTensorSpec"):
        random_graph_tensor({"a": 1})
    bad = GraphTensorSpec(node_sets={"a": NodeSetSpec()}, edge_sets={"e": EdgeSetSpec("a", "z")})
    with pytest.raises(ValueError, match=r"edge set 'e': node set 'z' at tag 1 is not in the spec"):
        random_graph_tensor(bad)
    cplx = GraphTensorSpec(node_sets={"a": NodeSetSpec({"z": FeatureSpec(np.complex64, ())})})
    with pytest.raises(TypeError, match="Unsupported type for random values"):
        random_graph_tensor(cplx, rng=0)


# ---------------------------------------------------------------------------------------------
# checks, tags, constants, size-constraint aliases
# ---------------------------------------------------------------------------------------------


def test_reverse_tag():
    assert reverse_tag(SOURCE) == TARGET and reverse_tag(TARGET) == SOURCE
    for bad in (3, CONTEXT, True):
        with pytest.raises(ValueError, match=r"Expected tag .*got: "):
            reverse_tag(bad)


def test_constants_and_aliases():
    assert DEFAULT_STATE_NAME == HIDDEN_STATE == "hidden_state"
    assert (SIZE_NAME, SOURCE_NAME, TARGET_NAME) == ("#size", "#source", "#target")
    assert satisfies_size_constraints is satisfies_total_sizes
    g = homogeneous(np.array([0]), np.array([1]), node_features=np.zeros((2, 1)))
    ok = SizeConstraints(
        total_num_components=2, total_num_nodes={NODES: 3}, total_num_edges={EDGES: 2}
    )
    small = SizeConstraints(
        total_num_components=2, total_num_nodes={NODES: 1}, total_num_edges={EDGES: 2}
    )
    assert satisfies_size_constraints(g, ok) and not satisfies_size_constraints(g, small)
    assert_satisfies_size_constraints(g, ok)
    for fn in (assert_satisfies_size_constraints, assert_satisfies_total_sizes):
        with pytest.raises(ValueError, match=r"node set 'nodes': 2 nodes"):
            fn(g, small)


def test_scalar_and_homogeneous_checks():
    g = homogeneous(np.array([0]), np.array([1]), node_features=np.zeros((2, 1)))
    check_scalar_graph_tensor(g)
    check_scalar_graph_tensor(g.spec)
    batched = batch_graph_tensors([g, g])
    for x in (batched, batched.spec):
        with pytest.raises(
            ValueError,
            match=r"^MyOp requires a scalar GraphTensor, that is, with `GraphTensor.rank=0`, "
            r"but got `rank=1`. Use GraphTensor.merge_batch_to_components\(\)",
        ):
            check_scalar_graph_tensor(x, name="MyOp")
    assert get_homogeneous_node_and_edge_set_name(g) == (NODES, EDGES)
    assert get_homogeneous_node_and_edge_set_name(g.spec) == (NODES, EDGES)
    check_homogeneous_graph_tensor(g)
    # auxiliary sets are ignored
    aux = GraphTensorSpec(
        node_sets={"v": NodeSetSpec(), "_readout": NodeSetSpec()},
        edge_sets={"e": EdgeSetSpec("v", "v"), "_readout/x": EdgeSetSpec("v", "_readout")},
    )
    assert get_homogeneous_node_and_edge_set_name(aux) == ("v", "e")
    two = GraphTensorSpec(
        node_sets={"v": NodeSetSpec(), "w": NodeSetSpec()}, edge_sets={"e": EdgeSetSpec("v", "w")}
    )
    with pytest.raises(
        ValueError,
        match=r"^Pool requires a graph with 1 node set and 1 edge set but got 2 node sets and "
        r"1 edge sets.$",
    ):
        check_homogeneous_graph_tensor(two, name="Pool")
    with pytest.raises(ValueError, match="Unsupported value type dict"):
        get_homogeneous_node_and_edge_set_name({})
    with pytest.raises(ValueError, match="Unsupported value type"):
        check_scalar_graph_tensor(None)


def test_graph_tensor_to_values():
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"label": np.array([b"X", b"\xff"])}),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([1, 2]),
                features={
                    "f": Ragged.from_list([[1, 2], [], [3]]),
                    "s": np.array(["x", "y", "z"]),
                    "b": np.array([True, False, True]),
                },
            )
        },
        edge_sets={
            "aa": EdgeSet.from_fields(
                sizes=np.array([1, 0]),
                adjacency=Adjacency.from_indices(("a", np.array([0])), ("a", np.array([0]))),
                features={"w": np.array([[0.5, 1.5]], np.float32)},
            )
        },
    )
    values = graph_tensor_to_values(g)
    assert values == {
        "context": {"label": ["X", b"\xff"]},
        "node_sets": {
            "a": {"f": [[1, 2], [], [3]], "s": ["x", "y", "z"], "b": [True, False, True]}
        },
        "edge_sets": {"aa": {"w": [[0.5, 1.5]]}},
    }
    json.dumps(graph_tensor_to_values(g.remove_features(context=["label"])))
    with pytest.raises(TypeError, match="Unsupported type"):
        graph_tensor_to_values(
            GraphTensor.from_pieces(
                node_sets={
                    "a": NodeSet.from_fields(sizes=np.array([1]), features={"c": np.array([1j])})
                }
            )
        )
    with pytest.raises(TypeError, match="expected a GraphTensor"):
        graph_tensor_to_values({})


# ---------------------------------------------------------------------------------------------
# schema helpers (schema_utils_test.py, schema_validation_test.py)
# ---------------------------------------------------------------------------------------------


def test_iter_sets_and_features():
    schema = parse_schema(CITRUS)
    assert {(t, n) for t, n, _ in iter_sets(schema)} == {(NODES, "fruits"), (EDGES, "tastelike")}
    assert [(t, s, f) for t, s, f, _ in iter_features(schema)] == [
        (NODES, "fruits", "name"),
        (EDGES, "tastelike", "weight"),
    ]
    with_context = parse_schema(
        CITRUS + 'context { features { key: "c" value { dtype: DT_FLOAT } } }'
    )
    assert {(t, n) for t, n, _ in iter_sets(with_context)} == {
        (CONTEXT, ""),
        (NODES, "fruits"),
        (EDGES, "tastelike"),
    }
    assert (CONTEXT, "", "c") in [(t, s, f) for t, s, f, _ in iter_features(with_context)]
    g = homogeneous(np.array([0]), np.array([1]), node_features=np.zeros((2, 1)))
    assert [(t, n) for t, n, _ in iter_sets(g)] == [(CONTEXT, ""), (NODES, NODES), (EDGES, EDGES)]
    assert [(t, s, f) for t, s, f, _ in iter_features(g)] == [(NODES, NODES, HIDDEN_STATE)]
    with pytest.raises(TypeError, match="expected a GraphSchema"):
        list(iter_sets("node_sets {}"))


def _queries(value: str) -> str:
    feature = f'features {{ key: "num_words" value {{ {value} }} }}'
    return f'node_sets {{ key: "queries" value {{ {feature} }} }}'


@pytest.mark.parametrize(
    "dtype",
    [
        "DT_BOOL",
        "DT_INT8",
        "DT_UINT8",
        "DT_INT16",
        "DT_UINT16",
        "DT_INT32",
        "DT_UINT32",
        "DT_INT64",
        "DT_UINT64",
        "DT_BFLOAT16",
        "DT_HALF",
        "DT_FLOAT",
        "DT_DOUBLE",
        "DT_STRING",
    ],
)
def test_validate_schema_supported_dtypes(dtype):
    assert validate_schema(parse_schema(_queries(f'description: "n" dtype: {dtype}'))) == []


@pytest.mark.parametrize("dtype", ["DT_COMPLEX64", "DT_VARIANT", "DT_QINT32", "DT_FLOAT_REF", "77"])
def test_validate_schema_unsupported_dtypes(dtype):
    with pytest.raises(ValidationError, match=r"Invalid 'dtype' field .* on nodes set 'queries'"):
        validate_schema(parse_schema(_queries(f"dtype: {dtype}")))


def test_validate_schema_checks():
    with pytest.raises(ValidationError, match="Missing 'dtype' field on nodes set 'queries'"):
        validate_schema(parse_schema(_queries('description: "Number of words"')))
    schema = parse_schema(_queries('description: "n" dtype: DT_INT64 shape { dim { size: 2 } }'))
    assert validate_schema(schema) == []
    schema.node_sets["queries"].features["num_words"].shape.unknown_rank = True
    with pytest.raises(ValidationError, match="Shapes must have a known rank"):
        validate_schema(schema)
    # warnings: shape [1]
    warnings = validate_schema(
        parse_schema(_queries('description: "n" dtype: DT_INT64 shape { dim { size: 1 } }'))
    )
    assert len(warnings) == 1 and isinstance(warnings[0], ValidationError)
    assert "Unnecessary shape of [1]" in str(warnings[0])
    # descriptions on dim names are fine only with a description
    named = _queries('description: "n" dtype: DT_INT64 shape { dim { size: 3 name: "Type" } }')
    validate_schema(parse_schema(named))
    schema = parse_schema(named)
    schema.node_sets["queries"].features["num_words"].description = None
    with pytest.raises(ValidationError, match="incorrectly locating the description"):
        validate_schema(schema)


@pytest.mark.parametrize(
    "text, msg",
    [
        (
            'node_sets { key: "q" value { features { key: "#size" value { dtype: DT_INT64 } } } }',
            "Feature '#size' from nodes set 'q' is reserved",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "d" value { source: "q" target: "q" '
            'features { key: "#source" value { dtype: DT_INT64 } } } }',
            "Feature '#source' from edges set 'd' is reserved",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "d" value { source: "q" target: "q" '
            'features { key: "#target" value { dtype: DT_INT64 } } } }',
            "Feature '#target' from edges set 'd' is reserved",
        ),
        (
            'node_sets { key: "q" value { context: "devnull" } }',
            "Context feature 'devnull' does not exist \\(from node set 'q'\\)",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "c" value { source: "q" target: "q" '
            'context: "devnull" } }',
            "Context feature 'devnull' does not exist \\(from edge set 'c'\\)",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "c" value { source: "devnull" target: "q" } }',
            "Edge set 'c' referencing unknown node set 'devnull'",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "c" value { source: "q" target: "devnull" } }',
            "Edge set 'c' referencing unknown node set 'devnull'",
        ),
        (
            'edge_sets { key: "clicks" value { target: "documents" } }',
            "Edge set clicks must specify a `source`",
        ),
        (
            'edge_sets { key: "clicks" value { source: "queries" } }',
            "Edge set clicks must specify a `target`",
        ),
        (
            'node_sets { key: "q" } edge_sets { key: "" value { source: "q" target: "q" } }',
            "Edge set name cannot be empty",
        ),
    ],
)
def test_validate_schema_errors(text, msg):
    with pytest.raises(ValidationError, match=msg):
        validate_schema(parse_schema(text))


def test_validate_schema_reserved_pattern_is_not_an_error():
    text = (
        'node_sets { key: "q" } edge_sets { key: "d" value { source: "q" target: "q" '
        'features { key: "#weight" value { dtype: DT_FLOAT } } } }'
    )
    assert validate_schema(parse_schema(text)) == []


def test_validate_schema_readout():
    text = """
      node_sets { key: "queries" } node_sets { key: "documents" } node_sets { key: "_readout" }
      edge_sets { key: "_readout/foo" value { source: "queries" target: "_readout" } }"""
    context = 'context { features { key: "embedding" value { dtype: DT_FLOAT } } }'
    schema = parse_schema(text + context)
    validate_schema(schema, readout_node_sets=["_readout"])
    validate_schema(schema)
    without = copy.deepcopy(schema)
    del without.edge_sets["_readout/foo"], without.node_sets["_readout"]
    validate_schema(without)
    with pytest.raises(ValidationError, match=r"lacks auxiliary node set.*_readout:train"):
        validate_schema(schema, readout_node_sets=["_readout", "_readout:train"])
    bad = copy.deepcopy(schema)
    bad.edge_sets["_readout/foo"].target = "documents"
    with pytest.raises(ValidationError, match=r"validate_graph_tensor_spec_for_readout"):
        validate_schema(bad)
    shadow = parse_schema(
        text.replace('source: "queries"', 'source: "_shadow/nope"')
        + 'node_sets { key: "_shadow/nope" }'
    )
    with pytest.raises(ValidationError, match=r"lacks edge set 'nope'"):
        validate_schema(shadow)
    with pytest.raises(ValidationError, match=r"Malformed name of readout_node_set"):
        validate_schema(schema, readout_node_sets=["readout"])
    lonely = parse_schema('node_sets { key: "_readout" }')
    with pytest.raises(ValidationError, match=r"no edge sets for readout"):
        validate_schema(lonely)
    with pytest.raises(TypeError, match="expected a GraphSchema"):
        validate_schema(text)


def test_check_required_features():
    required = parse_schema('node_sets { key: "queries" value { features { key: "musthave" } } }')
    given = copy.deepcopy(required)
    check_required_features(required, given)
    given.node_sets["queries"].features["extras"] = copy.deepcopy(
        given.node_sets["queries"].features["musthave"]
    )
    check_required_features(required, given)
    del given.node_sets["queries"].features["musthave"]
    with pytest.raises(
        ValidationError, match="Nodes feature 'musthave' from set 'queries' is missing"
    ):
        check_required_features(required, given)

    required = parse_schema(
        'node_sets { key: "queries" value { features { key: "musthave" '
        "value { dtype: DT_STRING } } } }"
    )
    given = copy.deepcopy(required)
    check_required_features(required, given)
    given.node_sets["queries"].features["musthave"].dtype = "DT_FLOAT"
    with pytest.raises(ValidationError, match="has invalid type: DT_FLOAT"):
        check_required_features(required, given)
    required.node_sets["queries"].features["musthave"].dtype = None
    check_required_features(required, given)

    required = parse_schema(
        'node_sets { key: "queries" value { features { key: "musthave" '
        "value { shape { dim { size: 10 } dim { size: 20 } } } } } }"
    )
    given = copy.deepcopy(required)
    check_required_features(required, given)
    req = required.node_sets["queries"].features["musthave"]
    req.shape.dim[0].size += 1
    with pytest.raises(ValidationError, match="has invalid shape"):
        check_required_features(required, given)
    req.shape.dim[0].size = None  # cleared: protobuf's default 0 accepts any size
    check_required_features(required, given)
    del req.shape.dim[1]
    with pytest.raises(ValidationError, match="has invalid shape"):
        check_required_features(required, given)
    req.shape.dim.clear()
    with pytest.raises(ValidationError, match="has invalid shape"):
        check_required_features(required, given)
    with pytest.raises(TypeError, match="actual must be a GraphSchema"):
        check_required_features(required, None)
