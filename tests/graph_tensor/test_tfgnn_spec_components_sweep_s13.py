"""Parity sweep (session 13): TF-GNN's specs, schema <-> spec conversion and the component
utilities (merge / split / unbatch, scalar / homogeneous checks, ``reverse_tag``,
``iter_sets`` / ``iter_features``) on argument combinations the other tests leave out.

TF-GNN is not installed; the expected values are NumPy / plain-Python references written
from its sources (tensorflow/gnn at 5d7251e):
- tensorflow_gnn/graph/schema_utils.py: ``create_graph_spec_from_schema_pb`` (``-1`` ->
  ``None``, ``size < -1`` -> ``ValueError``), ``create_schema_pb_from_graph_spec`` (checks
  ``check_scalar_singleton_graph_tensor`` and ``is_supported_dtype``; writes ``shape`` only
  when ``feature_shape.rank > 0``; touches ``result.context`` only for a context feature),
  ``iter_sets`` / ``iter_features`` (the context only when ``schema.HasField('context')``).
- tensorflow_gnn/graph/graph_piece.py: ``check_scalar_graph_piece`` (any piece, its type
  name in the message).
- tensorflow_gnn/graph/graph_tensor.py: ``check_scalar_singleton_graph_tensor``,
  ``get_homogeneous_node_and_edge_set_name`` (aux prefix ``[_#!%.^~][a-zA-Z0-9_]*``).
- tensorflow_gnn/graph/tag_utils.py: ``reverse_tag`` (``tag == TARGET`` / ``== SOURCE``).
- tensorflow_gnn/graph/graph_tensor_io.py: ``get_io_dtype`` (bool, ints, floats, string).
"""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.graph_tensor import (
    CONTEXT,
    EDGES,
    NODES,
    SOURCE,
    TARGET,
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    batch_graph_tensors,
    check_scalar_graph_tensor,
    get_homogeneous_node_and_edge_set_name,
    iter_features,
    iter_sets,
    merge_graphs_to_components,
    reverse_tag,
    split_components,
    unbatch_graph_tensor,
)
from arraygnn.graph_tensor.spec import (
    ContextSpec,
    EdgeSetSpec,
    FeatureSpec,
    GraphTensorSpec,
    NodeSetSpec,
)
from arraygnn.io.schema import (
    create_graph_spec_from_schema,
    create_graph_spec_from_schema_pb,
    create_schema_from_graph_spec,
    create_schema_pb_from_graph_spec,
    parse_schema,
    schema_to_text,
)

# ---------------------------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------------------------


def _ragged(rng, n, dtype, inner=()):
    lengths = rng.integers(0, 3, size=n)
    values = rng.normal(size=(int(lengths.sum()), *inner)).astype(dtype)
    return Ragged(values, np.concatenate([[0], np.cumsum(lengths)]))


def _graph(rng, comps, idx=np.int64, ragged=False, empty_nodes=False):
    """A scalar graph with node sets 'a', 'b', edge sets 'ab', 'bb', context features."""
    na = np.zeros(comps, idx) if empty_nodes else rng.integers(1, 4, size=comps).astype(idx)
    nb = rng.integers(1, 4, size=comps).astype(idx)
    ne = rng.integers(0, 4, size=comps).astype(idx)
    nf = rng.integers(0, 3, size=comps).astype(idx)
    a0 = np.concatenate([[0], np.cumsum(na)])
    b0 = np.concatenate([[0], np.cumsum(nb)])

    def ends(counts, lo, sizes):
        return np.concatenate(
            [
                lo[c] + rng.integers(0, max(int(sizes[c]), 1), size=int(counts[c]))
                for c in range(comps)
            ]
        ).astype(idx)

    # edges 'ab' only where the component has 'a' nodes
    ne_ab = np.where(na > 0, ne, 0).astype(idx)
    src_ab, dst_ab = ends(ne_ab, a0, na), ends(ne_ab, b0, nb)
    src_bb, dst_bb = ends(nf, b0, nb), ends(nf, b0, nb)
    ta, tb, tab, tbb = int(na.sum()), int(nb.sum()), int(ne_ab.sum()), int(nf.sum())
    feats_a = {"x": rng.normal(size=(ta, 2)).astype(np.float32)}
    feats_b = {"id": rng.integers(0, 9, size=tb).astype(np.int32)}
    ctx = {"y": rng.normal(size=(comps, 3))}
    if ragged:
        feats_a["r"] = _ragged(rng, ta, np.float32, (2,))
        ctx["t"] = _ragged(rng, comps, np.int64)
    return GraphTensor.from_pieces(
        context=Context.from_fields(features=ctx, sizes=np.ones(comps, idx)),
        node_sets={
            "a": NodeSet.from_fields(sizes=na, features=feats_a),
            "b": NodeSet.from_fields(sizes=nb, features=feats_b),
        },
        edge_sets={
            "ab": EdgeSet.from_fields(
                sizes=ne_ab,
                adjacency=Adjacency.from_indices(source=("a", src_ab), target=("b", dst_ab)),
                features={"w": rng.normal(size=tab).astype(np.float16)},
            ),
            "bb": EdgeSet.from_fields(
                sizes=nf,
                adjacency=Adjacency.from_indices(source=("b", src_bb), target=("b", dst_bb)),
                features={"s": _ragged(rng, tbb, np.float64)} if ragged else {},
            ),
        },
    )


def _expected_spec(ragged):
    """The spec TF-GNN's piece specs describe (per-item shapes, ``None`` = ragged)."""
    ctx = {"y": FeatureSpec(np.float64, (3,))}
    a = {"x": FeatureSpec(np.float32, (2,))}
    bb = {}
    if ragged:
        ctx["t"] = FeatureSpec(np.int64, (None,))
        a["r"] = FeatureSpec(np.float32, (None, 2))
        bb["s"] = FeatureSpec(np.float64, (None,))
    return GraphTensorSpec(
        context=ContextSpec(ctx),
        node_sets={"a": NodeSetSpec(a), "b": NodeSetSpec({"id": FeatureSpec(np.int32, ())})},
        edge_sets={
            "ab": EdgeSetSpec("a", "b", {"w": FeatureSpec(np.float16, ())}),
            "bb": EdgeSetSpec("b", "b", bb),
        },
    )


def _to_py(v):
    if isinstance(v, Ragged):
        return [_to_py(v[i]) for i in range(v.nrows)]
    return np.asarray(v).tolist()


def _fields(g):
    """Every field of a scalar graph as plain lists (sizes, features, adjacency)."""
    out = {"ctx/sizes": _to_py(g.context.sizes)}
    out.update({f"ctx/{k}": _to_py(v) for k, v in g.context.features.items()})
    for n, ns in g.node_sets.items():
        out[f"n/{n}/sizes"] = _to_py(ns.sizes)
        out.update({f"n/{n}/{k}": _to_py(v) for k, v in ns.features.items()})
    for n, es in g.edge_sets.items():
        out[f"e/{n}/sizes"] = _to_py(es.sizes)
        out[f"e/{n}/src"] = _to_py(es.adjacency.source)
        out[f"e/{n}/dst"] = _to_py(es.adjacency.target)
        out.update({f"e/{n}/{k}": _to_py(v) for k, v in es.features.items()})
    return out


def _reference_merge(graphs):
    """NumPy reference of TF-GNN's merge of components: fields concatenated, adjacency
    shifted by the node set's items in earlier graphs."""
    fields = [_fields(g) for g in graphs]
    out = {}
    for key in fields[0]:
        if key.endswith("/src") or key.endswith("/dst"):
            es = key.split("/")[1]
            adj = graphs[0].edge_sets[es].adjacency
            ns = adj.source_name if key.endswith("/src") else adj.target_name
            offset, parts = 0, []
            for g, f in zip(graphs, fields):
                parts += [i + offset for i in f[key]]
                offset += g.node_sets[ns].total_size
            out[key] = parts
        else:
            out[key] = [x for f in fields for x in f[key]]
    return out


# ---------------------------------------------------------------------------------------------
# graph.spec of ragged, merged, batched, padded graphs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_spec_of_merged_batched_and_padded_graphs(ragged, idx):
    from arraygnn.padding import SizeConstraints, pad_to_total_sizes, remove_padding

    rng = np.random.default_rng(7)
    graphs = [_graph(rng, c, idx, ragged) for c in (1, 2, 1)]
    want = _expected_spec(ragged)
    assert all(g.spec == want for g in graphs)
    merged = merge_graphs_to_components(graphs)
    assert merged.spec == want and merged.rank == 0
    batched = batch_graph_tensors(graphs)
    assert batched.rank == 1 and batched.spec.differences(want) == ["rank 1 vs 0"]
    assert batched.merge_batch_to_components().spec == want
    nodes = {n: ns.total_size + 2 for n, ns in merged.node_sets.items()}
    edges = {n: es.total_size + 1 for n, es in merged.edge_sets.items()}
    padded, mask = pad_to_total_sizes(merged, SizeConstraints(5, nodes, edges))
    assert padded.spec == want and padded.total_num_components == 5
    assert mask.tolist() == [True] * 4 + [False]
    assert _fields(remove_padding(padded, mask)) == _fields(merged)
    # index dtypes are not part of a spec: an int32 graph merges with an int64 one
    other = _graph(np.random.default_rng(8), 1, np.int64 if idx is np.int32 else np.int32, ragged)
    mixed = merge_graphs_to_components([graphs[0], other])
    assert mixed.spec == want and mixed.indices_dtype == np.int64


# ---------------------------------------------------------------------------------------------
# merge_graphs_to_components / split_components / unbatch_graph_tensor
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "comps, ragged, empty_nodes",
    [
        ((1, 1, 1), True, False),
        ((2, 3), True, True),  # components without 'a' nodes (and so without 'ab' edges)
        ((1, 2, 1, 2), False, False),
    ],
)
def test_merge_split_unbatch_match_reference(comps, ragged, empty_nodes):
    rng = np.random.default_rng(sum(comps))
    graphs = [_graph(rng, c, np.int32, ragged, empty_nodes) for c in comps]
    merged = merge_graphs_to_components(graphs)
    assert _fields(merged) == _reference_merge(graphs)
    assert merged.total_num_components == sum(comps)
    # split back: exact, group by group (zero-component groups give empty graphs)
    parts = split_components(merged, list(comps))
    assert [_fields(p) for p in parts] == [_fields(g) for g in graphs]
    with_empty = split_components(merged, [0, *comps, 0])
    assert [p.total_num_components for p in with_empty] == [0, *comps, 0]
    assert with_empty[0].spec == merged.spec and with_empty[0].node_sets["a"].total_size == 0
    # one group per component by default: each part a singleton
    singles = split_components(merged)
    assert len(singles) == sum(comps) and all(p.total_num_components == 1 for p in singles)
    assert _fields(merge_graphs_to_components(singles)) == _fields(merged)
    # unbatch of the batched graph gives the inputs
    assert [_fields(p) for p in unbatch_graph_tensor(batch_graph_tensors(graphs))] == [
        _fields(g) for g in graphs
    ]


def test_split_refuses_a_group_boundary_inside_an_edge():
    # one component whose edge joins node 0 of 'b' to node 2 of 'b', split as [1] + [1]
    g = _graph(np.random.default_rng(0), 2)
    b = g.node_sets["b"]
    crossing = GraphTensor.from_pieces(
        context=g.context,
        node_sets=dict(g.node_sets),
        edge_sets={
            "bb": EdgeSet.from_fields(
                sizes=np.array([1, 0]),
                adjacency=Adjacency.from_indices(
                    source=("b", np.array([0])), target=("b", np.array([b.total_size - 1]))
                ),
            )
        },
    )
    with pytest.raises(ValueError, match=r"edge set 'bb': edge 0 joins node .* outside its own"):
        split_components(crossing)
    assert split_components(crossing, [2])[0].total_num_components == 2


@pytest.mark.parametrize(
    "bad, error, match",
    [
        ("graph", TypeError, r"merge_graphs_to_components\(\): graphs must be a list"),
        (3, TypeError, r"merge_graphs_to_components\(\): graphs must be a list"),
        ([], ValueError, "needs at least one graph"),
        ("batched", ValueError, r"graphs\[0\] has rank 1; only scalar graphs"),
        ("other_spec", ValueError, r"graph 1 does not match graph 0 .*feature 'x'"),
    ],
)
def test_merge_refuses_bad_input(bad, error, match):
    rng = np.random.default_rng(1)
    g = _graph(rng, 1)
    if bad == "graph":
        bad = g  # a single graph, not a list (was: "'GraphTensor' object is not iterable")
    elif bad == "batched":
        bad = [batch_graph_tensors([g])]
    elif bad == "other_spec":
        bad = [g, g.remove_features(node_sets={"a": ["x"]})]
    with pytest.raises(error, match=match):
        merge_graphs_to_components(bad)


# ---------------------------------------------------------------------------------------------
# check_scalar_graph_tensor / homogeneous names / reverse_tag
# ---------------------------------------------------------------------------------------------


def _piece(graph, which):
    return {
        "graph": graph,
        "spec": graph.spec,
        "context": graph.context,
        "nodes": graph.node_sets["a"],
        "edges": graph.edge_sets["ab"],
    }[which]


@pytest.mark.parametrize("which", ["graph", "spec", "context", "nodes", "edges"])
def test_check_scalar_on_every_piece_kind(which):
    # TF-GNN's check_scalar_graph_piece: any piece or spec, named by its value type
    g = _graph(np.random.default_rng(2), 1)
    check_scalar_graph_tensor(_piece(g, which))
    batched = batch_graph_tensors([g, g])
    kind = {"context": "Context", "nodes": "NodeSet", "edges": "EdgeSet"}.get(which, "GraphTensor")
    want = (
        f"my_op requires a scalar {kind}, that is, with `{kind}.rank=0`, but got `rank=1`. "
        "Use GraphTensor.merge_batch_to_components() to merge all contained graphs into one "
        "contiguously indexed graph of the scalar GraphTensor."
    )
    with pytest.raises(ValueError) as err:
        check_scalar_graph_tensor(_piece(batched, which), "my_op")
    assert str(err.value) == want


def _names_spec(node_sets, edge_sets):
    ns = {n: NodeSetSpec() for n in node_sets}
    first = node_sets[0] if node_sets else "v"
    return GraphTensorSpec(
        node_sets=ns, edge_sets={e: EdgeSetSpec(first, first) for e in edge_sets}
    )


@pytest.mark.parametrize(
    "node_sets, edge_sets, want",
    [
        (["v", "#aux", "!x", "%y"], ["e", "~z", ".w"], ("v", "e")),
        (["_readout", "v"], ["^q", "e"], ("v", "e")),
        (["v", "a_"], ["e"], (2, 1)),  # a trailing underscore is no aux prefix
        (["_only"], ["e"], (0, 1)),
        (["v"], [], (1, 0)),
        (["v"], ["e", "f"], (1, 2)),
    ],
)
def test_homogeneous_names_with_aux_prefixes(node_sets, edge_sets, want):
    spec = _names_spec(node_sets, edge_sets)
    if isinstance(want[0], str):
        assert get_homogeneous_node_and_edge_set_name(spec) == want
        return
    with pytest.raises(ValueError) as err:
        get_homogeneous_node_and_edge_set_name(spec, name="Foo")
    assert str(err.value) == (
        f"Foo requires a graph with 1 node set and 1 edge set but got {want[0]} node sets and "
        f"{want[1]} edge sets."
    )


@pytest.mark.parametrize(
    "tag, want",
    [(np.int32(0), TARGET), (np.int64(1), SOURCE), (np.uint8(0), TARGET), (SOURCE, TARGET)],
)
def test_reverse_tag_numpy_ints(tag, want):
    assert reverse_tag(tag) == want and type(reverse_tag(tag)) is int


@pytest.mark.parametrize("tag", [1.0, 0.0, True, "1", None, 2, -1])
def test_reverse_tag_refuses_non_int_tags(tag):
    # documented difference: TF-GNN's `tag == TARGET` also takes True and 1.0
    with pytest.raises(ValueError, match=r"^Expected tag tfgnn.SOURCE \(0\) or tfgnn.TARGET"):
        reverse_tag(tag)


# ---------------------------------------------------------------------------------------------
# schema -> spec -> schema
# ---------------------------------------------------------------------------------------------

_DT = {
    "DT_BOOL": np.bool_,
    "DT_INT8": np.int8,
    "DT_UINT16": np.uint16,
    "DT_INT32": np.int32,
    "DT_UINT64": np.uint64,
    "DT_HALF": np.float16,
    "DT_FLOAT": np.float32,
    "DT_DOUBLE": np.float64,
    "DT_STRING": np.str_,
}


def _shape_text(dims):
    if dims is None:
        return ""
    return "shape { " + " ".join(f"dim {{ size: {d} }}" for d in dims) + " }"


def _schema_text(dtype, dims, context):
    feat = f'features {{ key: "f" value {{ dtype: {dtype} {_shape_text(dims)} }} }}'
    ctx = f"context {{ {feat} }}" if context else ""
    return (
        f'{ctx} node_sets {{ key: "n" value {{ {feat} }} }} '
        f'edge_sets {{ key: "e" value {{ source: "n" target: "n" {feat} }} }}'
    )


@pytest.mark.parametrize("dtype", sorted(_DT))
@pytest.mark.parametrize(
    "dims, context",
    [(None, True), ([3], False), ([-1], True), ([2, 3], False), ([-1, -1], True), ([4, -1], False)],
)
def test_schema_spec_schema_round_trip(dtype, dims, context):
    schema = parse_schema(_schema_text(dtype, dims, context))
    spec = create_graph_spec_from_schema_pb(schema, indices_dtype=np.int32)
    # TF-GNN's _create_fields_spec_from_schema: -1 -> None (ragged), sizes as written
    fspec = FeatureSpec(_DT[dtype], tuple(None if d == -1 else d for d in (dims or [])))
    features = {"f": fspec}
    assert spec == GraphTensorSpec(
        context=ContextSpec(features if context else {}),
        node_sets={"n": NodeSetSpec(features)},
        edge_sets={"e": EdgeSetSpec("n", "n", features)},
    )
    back = create_schema_pb_from_graph_spec(spec)
    # TF-GNN writes the shape only for rank > 0 and the context only for a feature
    assert back == schema
    assert (back.context is None) == (not context)
    assert (back.node_sets["n"].features["f"].shape is None) == (dims is None)
    assert parse_schema(schema_to_text(back)) == schema
    sets = [(t, n) for t, n, _ in iter_sets(back)]
    assert sets == ([(CONTEXT, "")] if context else []) + [(NODES, "n"), (EDGES, "e")]
    feats = [(t, s, f, x.dtype) for t, s, f, x in iter_features(back)]
    assert feats == ([(CONTEXT, "", "f", dtype)] if context else []) + [
        (NODES, "n", "f", dtype),
        (EDGES, "e", "f", dtype),
    ]


def test_schema_of_a_graph_without_context_features_has_no_context():
    g = _graph(np.random.default_rng(3), 1).replace_features(context={})
    schema = create_schema_pb_from_graph_spec(g)
    assert schema.context is None and "context" not in schema_to_text(schema)
    assert [t for t, _, _ in iter_sets(schema)] == [NODES, NODES, EDGES, EDGES]
    assert create_graph_spec_from_schema(schema) == g.spec
    # the scalar feature 'id' and 'w' have no shape, as TF-GNN writes them
    assert schema.node_sets["b"].features["id"].shape is None
    assert schema.edge_sets["ab"].features["w"].dtype == "DT_HALF"


@pytest.mark.parametrize(
    "make, match",
    [
        (
            "two_components",
            "requires scalar GraphTensor with a single graph component, got a "
            "scalar GraphTensor with 2 components",
        ),
        ("batched", r"requires a scalar GraphTensor, that is, with `GraphTensor.rank=0`"),
        ("batched_spec", r"requires a scalar GraphTensor, that is, with `GraphTensor.rank=0`"),
        ("complex_node", r"^Node set a feature c has dtype=DT_COMPLEX64 which is not supported"),
        ("complex_context", r"^Graph context feature c has dtype=DT_COMPLEX128 which is not"),
        ("complex_edge", r"^Edge set ab feature c has dtype=DT_COMPLEX64 which is not"),
    ],
)
def test_create_schema_pb_checks_as_tfgnn(make, match):
    rng = np.random.default_rng(4)
    g = _graph(rng, 1)
    c64 = np.zeros(1, np.complex64)
    value = {
        "two_components": lambda: _graph(rng, 2),
        "batched": lambda: batch_graph_tensors([g]),
        "batched_spec": lambda: batch_graph_tensors([g]).spec,
        "complex_node": lambda: g.replace_features(
            node_sets={"a": {"c": np.zeros(g.node_sets["a"].total_size, np.complex64)}}
        ),
        "complex_context": lambda: g.replace_features(context={"c": c64.astype(np.complex128)}),
        "complex_edge": lambda: g.replace_features(
            edge_sets={"ab": {"c": np.zeros(g.edge_sets["ab"].total_size, np.complex64)}}
        ),
    }[make]()
    with pytest.raises(ValueError, match=match):
        create_schema_pb_from_graph_spec(value)
    # arraygnn's own name accepts them (documented): the per-item specs are the same
    own = create_schema_from_graph_spec(value)
    assert create_graph_spec_from_schema(own).node_sets["b"] == g.spec.node_sets["b"]


@pytest.mark.parametrize(
    "text, match",
    [
        ('features { key: "f" value { dtype: DT_FLOAT shape { dim { size: -2 } } } }', "-2"),
        (
            'features { key: "f" value { dtype: DT_FLOAT shape { dim { size: 2 } '
            "dim { size: -3 } } } }",
            "-3",
        ),
        ('features { key: "f" value { dtype: DT_QINT8 } }', "DT_QINT8 has no NumPy"),
        ('features { key: "f" value { dtype: DT_BFLOAT16 } }', "DT_BFLOAT16 has no NumPy"),
        ('features { key: "f" value { shape { } } }', "feature has no dtype"),
    ],
)
def test_schema_to_spec_refuses_bad_features(text, match):
    schema = parse_schema(f'node_sets {{ key: "n" value {{ {text} }} }}')
    with pytest.raises(ValueError, match=rf"node set 'n', feature 'f': .*{match}"):
        create_graph_spec_from_schema_pb(schema)
