"""Parity sweep of the TF-GNN input pipeline (padding, constraints, schema, tf.Example,
random graphs) against NumPy re-derivations of TF-GNN's sources.

TF-GNN is not installed: each ``_tf_*`` helper below re-derives, in NumPy, what the named
TF-GNN function computes (``tensorflow_gnn/graph/padding_ops.py``, ``batching_utils.py``,
``schema_utils.py``, ``schema_validation.py``, ``graph_tensor_io.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

gt = pytest.importorskip("arraygnn.graph_tensor")

from arraygnn.graph_tensor import (  # noqa: E402
    Adjacency,
    Context,
    EdgeSet,
    GraphTensor,
    HyperAdjacency,
    NodeSet,
    Ragged,
)
from arraygnn.padding import (  # noqa: E402
    FeatureDefaultValues,
    SizeConstraints,
    assert_satisfies_size_constraints,
    assert_satisfies_total_sizes,
    find_tight_size_constraints,
    learn_fit_or_skip_size_constraints,
    pad_to_total_sizes,
    satisfies_size_constraints,
    satisfies_total_sizes,
    total_sizes,
)
from arraygnn.pipeline.batching import dynamic_batch  # noqa: E402

# ---------------------------------------------------------------------------------------------
# NumPy re-derivations of TF-GNN
# ---------------------------------------------------------------------------------------------


def _tf_linspace_index(num_real: int, total: int, num_fake: int) -> np.ndarray:
    """padding_ops._pad_adjacency_index_with_linspace: ``tf.linspace(float32(min),
    float32(max + 1), num)`` (math_ops.linspace_nd: start, start + delta * k, stop), cast to
    int, clipped to [min, max]; min = real nodes, max = total - 1 (ALL padding nodes)."""
    start, stop = np.float32(num_real), np.float32(total)
    steps = max(num_fake - 1, 1)
    delta = (stop - start) / np.float32(steps)
    mid = start + delta * np.arange(1, steps, dtype=np.int64).astype(np.float32)
    vals = np.concatenate([[start], mid, [stop]]).astype(np.float32)[:num_fake]
    return np.clip(vals.astype(np.int64), num_real, total - 1)


def _tf_pad_sizes(sizes, target_c: int, min_n: int, target: int) -> np.ndarray:
    """padding_ops._pad_sizes."""
    sizes = np.asarray(sizes, dtype=np.int64)
    fake0 = target - int(sizes.sum())
    if min_n > 0:
        fake0 -= (target_c - 1 - len(sizes)) * min_n
    rest = np.full(target_c - len(sizes), min_n, dtype=np.int64)
    return np.concatenate([sizes, [fake0], rest])[:target_c]


def _zero_like(x):
    return "" if x.dtype.kind == "U" else (b"" if x.dtype.kind in "SO" else 0)


def _tf_pad_feature(x, target_rows: int, value):
    """tensor_utils.pad_to_nrows: scalar fill (a zero if no value), empty ragged rows."""
    if isinstance(x, Ragged):
        splits = np.asarray(x.row_splits)
        tail = np.full(target_rows - (len(splits) - 1), splits[-1])
        return ("ragged", np.asarray(x.values).tolist(), np.concatenate([splits, tail]).tolist())
    x = np.asarray(x)
    fill = _zero_like(x) if value is None else value
    pad = np.full((target_rows - len(x), *x.shape[1:]), fill, dtype=object)
    return np.concatenate([x.astype(object), pad]).tolist()


def _tf_pad(graph, sc: SizeConstraints, values: FeatureDefaultValues | None = None):
    """padding_ops.pad_to_total_sizes, as plain lists."""
    values = values or FeatureDefaultValues()
    num_c = int(graph.num_components)
    out = {"mask": [i < num_c for i in range(sc.total_num_components)]}
    ctx_values = values.context or {}
    out["context"] = {
        "sizes": [1] * sc.total_num_components,
        **{
            k: _tf_pad_feature(v, sc.total_num_components, ctx_values.get(k))
            for k, v in graph.context.features.items()
        },
    }
    real = {}
    for name, ns in graph.node_sets.items():
        real[name] = int(np.asarray(ns.sizes).sum())
        target = sc.total_num_nodes[name]
        m = dict(sc.min_nodes_per_component).get(name, 0)
        fv = (values.node_sets or {}).get(name, {})
        out[f"nodes/{name}"] = {
            "sizes": _tf_pad_sizes(ns.sizes, sc.total_num_components, m, target).tolist(),
            **{k: _tf_pad_feature(v, target, fv.get(k)) for k, v in ns.features.items()},
        }
    for name, es in graph.edge_sets.items():
        target = sc.total_num_edges[name]
        num_fake = target - int(np.asarray(es.sizes).sum())
        fv = (values.edge_sets or {}).get(name, {})
        piece = {
            "sizes": _tf_pad_sizes(es.sizes, sc.total_num_components, 0, target).tolist(),
            **{k: _tf_pad_feature(v, target, fv.get(k)) for k, v in es.features.items()},
        }
        for tag, (ns_name, idx) in es.adjacency.get_indices_dict().items():
            fake = _tf_linspace_index(real[ns_name], sc.total_num_nodes[ns_name], num_fake)
            piece[f"#{tag}"] = np.concatenate([np.asarray(idx), fake]).tolist()
        out[f"edges/{name}"] = piece
    return out


def _as_lists(padded, mask):
    """The same layout as ``_tf_pad`` from arraygnn's result."""

    def feat(x):
        if isinstance(x, Ragged):
            return ("ragged", np.asarray(x.values).tolist(), np.asarray(x.row_splits).tolist())
        return np.asarray(x).tolist()

    out = {"mask": np.asarray(mask).tolist()}
    out["context"] = {
        "sizes": np.asarray(padded.context.sizes).tolist(),
        **{k: feat(v) for k, v in padded.context.features.items()},
    }
    for name, ns in padded.node_sets.items():
        out[f"nodes/{name}"] = {
            "sizes": np.asarray(ns.sizes).tolist(),
            **{k: feat(v) for k, v in ns.features.items()},
        }
    for name, es in padded.edge_sets.items():
        piece = {
            "sizes": np.asarray(es.sizes).tolist(),
            **{k: feat(v) for k, v in es.features.items()},
        }
        for tag, (_, idx) in es.adjacency.get_indices_dict().items():
            piece[f"#{tag}"] = np.asarray(idx).tolist()
        out[f"edges/{name}"] = piece
    return out


def _tf_satisfies(graph, sc: SizeConstraints) -> bool:
    """padding_ops._satisfies_size_constraints_internal (every condition it checks)."""
    c = int(graph.num_components)
    could_add = c < sc.total_num_components
    num_fake = sc.total_num_components - c
    ok = [c <= sc.total_num_components]
    real_nodes = {}

    def check(sizes, total, target, m):
        if m > 0:
            ok.append(bool((np.asarray(sizes) >= m).all()))
        padded = total + (num_fake * m if m > 0 else 0)
        ok.extend([total <= target, padded <= target, could_add or padded == target])

    min_nodes = dict(sc.min_nodes_per_component)
    for name, ns in graph.node_sets.items():
        real_nodes[name] = int(np.asarray(ns.sizes).sum())
        check(ns.sizes, real_nodes[name], sc.total_num_nodes[name], min_nodes.get(name, 0))
    for name, es in graph.edge_sets.items():
        total = int(np.asarray(es.sizes).sum())
        check(es.sizes, total, sc.total_num_edges[name], 0)
        has_all = total == sc.total_num_edges[name]
        for _, (ns_name, _) in es.adjacency.get_indices_dict().items():
            ok.append(has_all or real_nodes[ns_name] < sc.total_num_nodes[ns_name])
    return all(ok)


def _tf_make_room(c, nodes, edges, incident, min_nodes):
    """batching_utils._make_room_for_padding (+1 component; min nodes; a node per incident
    node set of an edge set)."""
    extra = {k: (min_nodes or {}).get(k, 0) for k in nodes}
    for ends in incident.values():
        for k in ends:
            extra[k] = max(extra[k], 1)
    return SizeConstraints(
        c + 1,
        {k: v + extra[k] for k, v in nodes.items()},
        dict(edges),
        dict(min_nodes) if min_nodes else {},
    )


def _tf_find_tight(graphs, target_batch_size=None, min_nodes=None):
    """batching_utils.find_tight_size_constraints: max of every size, x batch size."""
    sizes = [total_sizes(g) for g in graphs]
    b = 1 if target_batch_size is None else target_batch_size
    c = b * max(s[0] for s in sizes)
    nodes = {k: b * max(s[1][k] for s in sizes) for k in sizes[0][1]}
    edges = {k: b * max(s[2][k] for s in sizes) for k in sizes[0][2]}
    g0 = graphs[0]
    incident = {
        k: [n for n, _ in es.adjacency.get_indices_dict().values()]
        for k, es in g0.edge_sets.items()
    }
    return _tf_make_room(c, nodes, edges, incident, min_nodes)


def _tf_thresholds(totals: np.ndarray, ratios, num_thresholds: int) -> list[np.ndarray]:
    """batching_utils.learn_fit_or_skip_size_constraints on sampled batch totals [N, G]:
    importance = std / max std (divide_no_nan); the constraint of threshold t is the
    int(float32(linspace(0, N, T)[t]) * importance)-th largest total; the largest t whose
    success ratio is >= r (t = 0 if none)."""
    n = totals.shape[0]
    std = totals.astype(np.float64).std(axis=0).astype(np.float32)
    imp = std / std.max() if std.max() > 0 else np.zeros_like(std)
    desc = -np.sort(-totals, axis=0)
    idx_t = np.linspace(0, n, num_thresholds, endpoint=False).astype(np.float32)
    pos = (idx_t[:, None] * imp[None, :]).astype(np.int32)  # [T, G]
    cons = np.take_along_axis(desc, pos.astype(np.int64), axis=0)  # [T, G]
    success = (totals[None, :, :] <= cons[:, None, :]).all(axis=2).mean(axis=1)  # [T]
    out = []
    for r in ratios:
        t = np.flatnonzero(success >= r)
        out.append(cons[int(t.max()) if t.size else 0])
    return out


def _tf_dynamic_batch(graphs, sc: SizeConstraints) -> list[int]:
    """batching_utils.dynamic_batch: a graph joins the batch while it satisfies the budget
    left (the constraints minus the batch so far); graphs per batch."""
    out, count, left = [], 0, None
    full = (sc.total_num_components, dict(sc.total_num_nodes), dict(sc.total_num_edges))
    for g in graphs:
        c, n, e = total_sizes(g)
        if count and _tf_satisfies(g, SizeConstraints(*left, sc.min_nodes_per_component)):
            count += 1
        else:
            if count:
                out.append(count)
            if not _tf_satisfies(g, sc):
                raise ValueError("a graph does not fit on its own")
            count, left = 1, full
        left = (left[0] - c, {k: left[1][k] - n[k] for k in n}, {k: left[2][k] - e[k] for k in e})
    if count:
        out.append(count)
    return out


# ---------------------------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------------------------


def _graph(a_sizes, b_sizes, ab_sizes, *, seed=0, strings=True, ragged=True, aa_sizes=None):
    """Node sets "a" (x float32, ids int64, name str, toks ragged) and "b" (y int32);
    edge sets "a->b" (w float32) and "a->a"; context "c" float32 [2] and "label" str."""
    rng = np.random.default_rng(seed)
    a_sizes, b_sizes = np.asarray(a_sizes, np.int64), np.asarray(b_sizes, np.int64)
    na, nb = int(a_sizes.sum()), int(b_sizes.sum())
    nc = len(a_sizes)

    def idx(sizes, n_sizes):
        off = np.concatenate([[0], np.cumsum(n_sizes)[:-1]]).astype(np.int64)
        parts = [off[i] + rng.integers(0, max(n_sizes[i], 1), s) for i, s in enumerate(sizes)]
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    ab_sizes = np.asarray(ab_sizes, np.int64)
    aa_sizes = np.zeros(nc, np.int64) if aa_sizes is None else np.asarray(aa_sizes, np.int64)
    a_feats = {"x": rng.random(na).astype(np.float32), "ids": rng.integers(0, 99, na)}
    if strings:
        a_feats["name"] = np.array([f"n{i}" for i in range(na)], dtype=str)
    if ragged:
        lens = rng.integers(0, 3, na)
        a_feats["toks"] = Ragged.from_row_lengths(np.arange(int(lens.sum())), lens)
    ctx = {"c": rng.random((nc, 2)).astype(np.float32)}
    if strings:
        ctx["label"] = np.array([f"L{i}" for i in range(nc)], dtype=str)
    return GraphTensor.from_pieces(
        context=Context.from_fields(features=ctx, sizes=np.ones(nc, np.int64)),
        node_sets={
            "a": NodeSet.from_fields(sizes=a_sizes, features=a_feats),
            "b": NodeSet.from_fields(
                sizes=b_sizes, features={"y": rng.integers(0, 9, nb).astype(np.int32)}
            ),
        },
        edge_sets={
            "a->b": EdgeSet.from_fields(
                sizes=ab_sizes,
                adjacency=Adjacency.from_indices(
                    ("a", idx(ab_sizes, a_sizes)), ("b", idx(ab_sizes, b_sizes))
                ),
                features={"w": rng.random(int(ab_sizes.sum())).astype(np.float32)},
            ),
            "a->a": EdgeSet.from_fields(
                sizes=aa_sizes,
                adjacency=Adjacency.from_indices(
                    ("a", idx(aa_sizes, a_sizes)), ("a", idx(aa_sizes, a_sizes))
                ),
            ),
        },
    )


def _hyper_graph():
    """TF-GNN's testHyperAdjacencyPaddingWithLinspace graph."""
    return GraphTensor.from_pieces(
        node_sets={
            "a": NodeSet.from_fields(sizes=np.array([1])),
            "b": NodeSet.from_fields(sizes=np.array([2])),
            "c": NodeSet.from_fields(sizes=np.array([3])),
        },
        edge_sets={
            "a.b.c": EdgeSet.from_fields(
                sizes=np.array([3]),
                adjacency=HyperAdjacency.from_indices(
                    {
                        0: ("a", np.array([0, 0, 0])),
                        1: ("b", np.array([0, 1, 1])),
                        2: ("c", np.array([0, 1, 2])),
                    }
                ),
            )
        },
    )


def _sc(c, a, b, ab, aa=0, min_nodes=None):
    return SizeConstraints(c, {"a": a, "b": b}, {"a->b": ab, "a->a": aa}, min_nodes or {})


# ---------------------------------------------------------------------------------------------
# pad_to_total_sizes
# ---------------------------------------------------------------------------------------------

_PAD_CASES = {
    # TF-GNN's testGraphTensorPadding shape: 2 components padded to 4
    "two_to_four": (lambda: _graph([1, 1], [2, 2], [2, 1]), _sc(4, 5, 6, 6)),
    # min_nodes_per_component: the later padding components hold nodes too, and the
    # padding edges spread over ALL padding nodes (TF-GNN's linspace), not just the first
    "min_nodes": (
        lambda: _graph([1, 1], [2, 2], [2, 1], aa_sizes=[1, 0]),
        _sc(4, 8, 13, 9, 7, {"a": 1, "b": 2}),
    ),
    # float32 linspace: 83 padding edges over 2 padding nodes (TF rounds 41 * (2/82) down)
    "float32_linspace": (lambda: _graph([2], [1], [1]), _sc(2, 4, 3, 84)),
    "zero_components": (lambda: _graph([], [], []), _sc(2, 3, 2, 4, 1, {"b": 1})),
    "zero_to_zero": (lambda: _graph([], [], []), _sc(0, 0, 0, 0)),
    "no_padding_needed": (lambda: _graph([2, 1], [1, 1], [1, 1]), _sc(2, 3, 2, 2)),
    "empty_sets": (lambda: _graph([0, 2], [0, 0], [0, 0], aa_sizes=[0, 3]), _sc(3, 5, 1, 0, 9)),
}


@pytest.mark.parametrize("case", sorted(_PAD_CASES))
def test_pad_to_total_sizes_matches_tfgnn_layout(case):
    make, sc = _PAD_CASES[case]
    g = make()
    assert satisfies_total_sizes(g, sc) == _tf_satisfies(g, sc) is True
    padded, mask = pad_to_total_sizes(g, sc)
    assert _as_lists(padded, mask) == _tf_pad(g, sc)
    # the padding edges belong to the first padding component (TF-GNN: min 0 edges each)
    c = int(g.num_components)
    for es in padded.edge_sets.items():
        assert np.asarray(es[1].sizes)[c + 1 :].sum() == 0


def test_padding_values_and_hyper_adjacency_match_tfgnn():
    g = _graph([1, 1], [2, 2], [2, 1])
    sc = _sc(4, 5, 6, 6)
    values = FeatureDefaultValues(
        context={"label": "?"},
        node_sets={"a": {"x": -1.0, "name": "pad"}, "zzz": {"q": 1}},
        edge_sets={"a->b": {"w": -1.0}},
    )
    padded, mask = pad_to_total_sizes(g, sc, padding_values=values)
    assert _as_lists(padded, mask) == _tf_pad(g, sc, values)
    h = _hyper_graph()  # TF-GNN's testHyperAdjacencyPaddingWithLinspace
    hs = SizeConstraints(4, {"a": 100, "b": 200, "c": 300}, {"a.b.c": 1000})
    padded, mask = pad_to_total_sizes(h, hs)
    assert _as_lists(padded, mask) == _tf_pad(h, hs)
    ends = padded.edge_sets["a.b.c"].adjacency.get_indices_dict()
    for tag, lo, hi in ((0, 1, 100), (1, 2, 200), (2, 3, 300)):  # every padding node used
        assert np.unique(np.asarray(ends[tag][1])[3:]).tolist() == list(range(lo, hi))


def test_satisfies_matches_tfgnn_on_random_constraints():
    rng = np.random.default_rng(11)
    graphs = [
        _graph([1, 2], [0, 3], [1, 2], strings=False, ragged=False),
        _graph([], [], [], strings=False, ragged=False),
        _graph([0], [2], [0], aa_sizes=[0], strings=False, ragged=False),
        _graph([3, 1, 1], [1, 1, 0], [2, 1, 0], aa_sizes=[1, 1, 0], strings=False, ragged=False),
    ]
    seen = {True: 0, False: 0}
    for _ in range(150):
        g = graphs[int(rng.integers(len(graphs)))]
        c, n, e = total_sizes(g)
        min_nodes = {k: int(rng.integers(0, 3)) for k in ("a", "b") if rng.random() < 0.4}
        tn = {k: v + int(rng.integers(-1, 5)) for k, v in n.items()}
        te = {k: v + int(rng.integers(-1, 4)) for k, v in e.items()}
        if min(tn.values()) < 0 or min(te.values()) < 0:
            continue
        sc = SizeConstraints(c + int(rng.integers(-1, 3)) if c else 2, tn, te, min_nodes)
        want = _tf_satisfies(g, sc)
        seen[want] += 1
        assert satisfies_total_sizes(g, sc) is want, sc
        assert satisfies_size_constraints(g, sc) is want
        if want:
            assert_satisfies_total_sizes(g, sc)
            padded, mask = pad_to_total_sizes(g, sc)
            assert _as_lists(padded, mask) == _tf_pad(g, sc)
        else:
            with pytest.raises(ValueError, match="cannot pad"):
                assert_satisfies_size_constraints(g, sc)
            with pytest.raises(ValueError):
                pad_to_total_sizes(g, sc)
    assert seen[True] > 15 and seen[False] > 15, seen


def test_tfgnn_argument_names():
    g = _graph([1], [1], [1])
    sc = _sc(2, 2, 2, 2)
    # TF-GNN's own recipe: functools.partial(tfgnn.pad_to_total_sizes,
    # size_constraints=..., validate=False) and partial(satisfies_..., total_sizes=...)
    padded, mask = pad_to_total_sizes(graph_tensor=g, size_constraints=sc, validate=False)
    assert mask.tolist() == [True, False]
    assert satisfies_total_sizes(graph_tensor=g, total_sizes=sc)
    assert satisfies_size_constraints(graph_tensor=g, total_sizes=sc)
    assert_satisfies_total_sizes(graph_tensor=g, size_constraints=sc)
    assert_satisfies_size_constraints(graph_tensor=g, size_constraints=sc)
    with pytest.raises(ValueError, match="total_num_nodes"):  # TF: ValueError, set not named
        satisfies_total_sizes(g, SizeConstraints(2, {"a": 2}, {"a->b": 2, "a->a": 0}))


# ---------------------------------------------------------------------------------------------
# find_tight_size_constraints / learn_fit_or_skip_size_constraints / dynamic_batch
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "batch_size, min_nodes",
    [(None, None), (3, None), (2, {"a": 1}), (4, {"a": 1, "b": 0})],
)
def test_find_tight_matches_tfgnn_for_one_component_graphs(batch_size, min_nodes):
    graphs = [
        _graph([2], [1], [1], seed=1),
        _graph([5], [0], [0], aa_sizes=[4], seed=2),
        _graph([1], [3], [2], seed=3),
    ]
    got = find_tight_size_constraints(
        graphs, target_batch_size=batch_size, min_nodes_per_component=min_nodes
    )
    assert got == _tf_find_tight(graphs, batch_size, min_nodes)


def test_find_tight_with_several_components_always_fits_where_tfgnn_does_not():
    # TF-GNN takes max(nodes) and max(components) independently; with a minimum per
    # component, a graph with fewer components then needs more padding nodes than reserved
    graphs = [_graph([2, 2], [1, 1], [0, 0], seed=4), _graph([4], [1], [0], seed=5)]
    tf_sc = _tf_find_tight(graphs, 1, {"a": 1})
    assert not _tf_satisfies(graphs[1], tf_sc)
    sc = find_tight_size_constraints(graphs, min_nodes_per_component={"a": 1})
    assert all(satisfies_total_sizes(g, sc) for g in graphs)
    assert sc.total_num_nodes["a"] == tf_sc.total_num_nodes["a"] + 1


@pytest.mark.parametrize("num_thresholds", [7, 100])
def test_fit_or_skip_thresholds_match_tfgnn(num_thresholds):
    from arraygnn.padding import _fit_or_skip_totals

    rng = np.random.default_rng(3)
    totals = np.stack(
        [
            np.full(400, 8),  # components: no spread, importance 0 -> the maximum
            rng.poisson(30, 400),
            rng.poisson(5, 400) * 3,
            rng.integers(0, 2, 400),
        ],
        axis=1,
    ).astype(np.int64)
    ratios = [0.0, 0.5, 0.9, 0.99, 1.0]
    got = _fit_or_skip_totals(totals, ratios, num_thresholds)
    want = _tf_thresholds(totals, ratios, num_thresholds)
    assert [r.tolist() for r in got] == [r.tolist() for r in want]
    zero = _fit_or_skip_totals(np.zeros((5, 2), np.int64), [0.5], 10)  # divide_no_nan
    assert zero[0].tolist() == [0, 0]


def test_fit_or_skip_output_layout_and_arguments():
    graphs = [_graph([n], [1], [1], seed=n, strings=False, ragged=False) for n in (1, 2, 3, 6)]
    kw = dict(sample_size=300, num_thresholds=50)
    one = learn_fit_or_skip_size_constraints(graphs, 2, success_ratio=0.9, **kw)
    assert isinstance(one, SizeConstraints) and one.total_num_components == 3
    nested = learn_fit_or_skip_size_constraints(graphs, [1, 2], success_ratio=[0.5, 1.0], **kw)
    assert [len(r) for r in nested] == [2, 2]
    per_b = learn_fit_or_skip_size_constraints(graphs, [1, 2], success_ratio=1.0, **kw)
    assert per_b == [nested[0][1], nested[1][1]]  # a scalar ratio squeezes its dimension
    per_r = learn_fit_or_skip_size_constraints(graphs, 2, success_ratio=[0.9, 1.0], **kw)
    assert (
        per_r[0] == one
        and per_r
        == learn_fit_or_skip_size_constraints(graphs, [2], success_ratio=[0.9, 1.0], **kw)[0]
    )
    # as TF-GNN: success_ratio 1 reserves every sampled batch; the minimum is kept as given
    full = learn_fit_or_skip_size_constraints(
        graphs, 1, min_nodes_per_component={"a": 1, "b": 0}, **kw
    )
    assert full.total_num_nodes["a"] == 6 + 1 and dict(full.min_nodes_per_component) == {
        "a": 1,
        "b": 0,
    }
    for bad in (dict(batch_size=0), dict(success_ratio=1.5), dict(sample_size=0)):
        args = {"batch_size": 2, **bad}
        with pytest.raises(ValueError):
            learn_fit_or_skip_size_constraints(graphs, args.pop("batch_size"), **args)


def test_dynamic_batch_matches_tfgnn_greedy_rule():
    rng = np.random.default_rng(5)
    graphs = []
    for i in range(14):
        c = int(rng.integers(1, 3))
        a, b = rng.integers(1, 4, c), rng.integers(0, 3, c)
        ab = np.where(b > 0, np.minimum(a, 2), 0)
        graphs.append(_graph(a, b, ab, seed=i, strings=False, ragged=False))
    for sc in (_sc(5, 12, 8, 8, 0, {"a": 1}), _sc(4, 9, 9, 6), _sc(3, 8, 6, 4)):
        want = _tf_dynamic_batch(graphs, sc)
        got = [int(b.num_components) for b in dynamic_batch(graphs, sc)]
        counts = [int(g.num_components) for g in graphs]
        sizes = np.cumsum([0] + want)
        assert got == [sum(counts[s:e]) for s, e in zip(sizes[:-1], sizes[1:])]
        for b in dynamic_batch(graphs, sc):
            assert satisfies_total_sizes(b, sc)
    # a hypergraph edge set: incident node sets come from every tag
    h = _hyper_graph()
    hs = SizeConstraints(3, {"a": 3, "b": 5, "c": 7}, {"a.b.c": 7})
    batches = list(dynamic_batch([h, h, h], hs))
    assert [int(b.num_components) for b in batches] == [2, 1]


# ---------------------------------------------------------------------------------------------
# schema, tf.Example, random graphs
# ---------------------------------------------------------------------------------------------

_SCHEMA = """
context { features { key: "label" value { dtype: DT_STRING } } }
node_sets { key: "a" value {
  features { key: "x" value { dtype: DT_FLOAT shape { dim { size: 2 } } } }
  features { key: "toks" value { dtype: DT_INT64 shape { dim { size: -1 } } } } } }
node_sets { key: "b" value { } }
edge_sets { key: "a->b" value { source: "a" target: "b"
  features { key: "w" value { dtype: DT_DOUBLE } } } }
"""


def test_schema_functions_take_tfgnn_arguments(tmp_path):
    from arraygnn.io.schema import (
        create_graph_spec_from_schema_pb,
        parse_schema,
        read_schema,
        write_schema,
    )

    s = parse_schema(schema_text=_SCHEMA)
    assert parse_schema(_SCHEMA.encode("utf-8")) == s  # text_format.Parse takes bytes too
    path = str(tmp_path / "s.pbtxt")
    write_schema(schema=s, filename=path)
    assert read_schema(filename=path) == s
    spec = create_graph_spec_from_schema_pb(s, indices_dtype=np.int32)
    assert spec.node_sets["a"].features["toks"].shape == (None,)
    assert spec.edge_sets["a->b"].features["w"].dtype == np.float64
    assert spec.context.features["label"].shape == ()


@pytest.mark.parametrize(
    "edit, expect",
    [
        ("drop nodes/b.#size", {"b_sizes": [0]}),  # FixedLenFeature default 0 for #size
        (
            "drop nodes/b.#size edges/a->b.#size edges/a->b.#source edges/a->b.#target "
            "edges/a->b.w",
            {"b_sizes": [0], "edges": 0},
        ),
        ("drop context/label", "missing key 'context/label'"),  # FixedLenFeature, no default
        ("drop nodes/a.toks.d1", "row lengths"),
        ("drop nodes/a.x", "missing key 'nodes/a.x'"),
        ("float nodes/a.toks", "holds a float list"),  # tf.io: data types don't match
        ("int edges/a->b.w", "holds an int64 list"),
    ],
)
def test_parse_single_example_missing_and_wrong_features_as_tfgnn(edit, expect):
    from arraygnn.io._example_wire import encode_example
    from arraygnn.io.example import example_features, parse_single_example
    from arraygnn.io.schema import create_graph_spec_from_schema_pb, parse_schema

    spec = create_graph_spec_from_schema_pb(parse_schema(_SCHEMA))
    g = GraphTensor.from_pieces(
        context=Context.from_fields(features={"label": np.array(["yes"])}),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([2]),
                features={
                    "x": np.ones((2, 2), np.float32),
                    "toks": Ragged.from_row_lengths(np.array([7, 8, 9]), np.array([0, 3])),
                },
            ),
            "b": NodeSet.from_fields(sizes=np.array([0])),
        },
        edge_sets={
            "a->b": EdgeSet.from_fields(
                sizes=np.array([0]),
                adjacency=Adjacency.from_indices(
                    ("a", np.zeros(0, np.int64)), ("b", np.zeros(0, np.int64))
                ),
                features={"w": np.zeros(0)},
            )
        },
    )
    flat = example_features(g)
    op, *keys = edit.split()
    for k in keys:
        if op == "drop":
            del flat[k]
        elif op == "float":
            flat[k] = np.asarray(flat[k], np.float32)
        else:
            flat[k] = np.array([1], np.int64)
    if isinstance(expect, str):
        with pytest.raises(ValueError, match=expect):
            parse_single_example(spec, encode_example(flat))
        return
    h = parse_single_example(spec, encode_example(flat))
    assert h.node_sets["b"].sizes.tolist() == expect["b_sizes"]
    assert h.node_sets["a"]["toks"].row_splits.tolist() == [0, 0, 3]
    assert h.edge_sets["a->b"].total_size == expect.get("edges", 0)
    assert h.edge_sets["a->b"]["w"].dtype == np.float64


def test_write_example_keys_follow_tfgnn_io_spec():
    from arraygnn.io.example import example_features, get_io_keys

    g = _graph([2, 1], [1, 0], [1, 0])
    flat = example_features(g)
    # graph_tensor_encode / get_io_spec: #size per set, #source / #target per edge set,
    # .d1 row lengths for each ragged dimension (a tf.Example's features are a map: no order)
    assert sorted(flat) == sorted(
        [
            "context/c",
            "context/label",
            "nodes/a.#size",
            "nodes/a.ids",
            "nodes/a.name",
            "nodes/a.toks.d1",
            "nodes/a.toks",
            "nodes/a.x",
            "nodes/b.#size",
            "nodes/b.y",
            "edges/a->a.#size",
            "edges/a->a.#source",
            "edges/a->a.#target",
            "edges/a->b.#size",
            "edges/a->b.w",
            "edges/a->b.#source",
            "edges/a->b.#target",
        ]
    )
    assert sorted(get_io_keys(g.spec)) == sorted(flat)
    assert flat["nodes/a.#size"].tolist() == [2, 1] and flat["nodes/a.ids"].dtype == np.int64


def test_random_graph_tensor_follows_tfgnn_rules():
    from arraygnn.graph_tensor import random_graph_tensor

    g0 = _graph([1], [1], [1])
    rng = np.random.default_rng(0)
    seen_components = set()
    for _ in range(12):
        g = random_graph_tensor(g0.spec, num_components_range=(0, 3), rng=rng)
        assert g.spec == g0.spec
        c = int(g.num_components)
        seen_components.add(c)
        a, b = (np.asarray(g.node_sets[k].sizes) for k in ("a", "b"))
        assert ((a >= 2) & (a < 8)).all() and ((b >= 2) & (b < 8)).all()
        s = (a + b).astype(np.float32)  # edges within [int(s / 1.5), int(s * 2.25))
        e = np.asarray(g.edge_sets["a->b"].sizes)
        assert ((e >= (s / np.float32(1.5)).astype(int)) & (e <= (s * 2.25).astype(int))).all()
        assert all(len(v) == c for v in g.context.features.values())
    assert seen_components == {0, 1, 2}
    with pytest.raises(ValueError, match="row_lengths_range"):
        random_graph_tensor(g0.spec, row_lengths_range=(3, 3))


@pytest.mark.parametrize(
    "required, ok",
    [
        ('node_sets { key: "a" value { features { key: "x" value { } } } }', True),
        ('node_sets { key: "a" value { features { key: "x" value { dtype: DT_FLOAT } } } }', True),
        (
            'node_sets { key: "a" value { features { key: "x" value { dtype: DT_DOUBLE } } } }',
            False,
        ),
        (
            'node_sets { key: "a" value { features { key: "x" value { shape { dim { size: 0 } } } '
            "} } }",
            True,
        ),  # size 0: any size
        (
            'node_sets { key: "a" value { features { key: "x" value { shape { dim { size: 3 } } } '
            "} } }",
            False,
        ),
        ('node_sets { key: "a" value { features { key: "x" value { shape { } } } } }', False),
        ('node_sets { key: "b" value { features { key: "x" value { } } } }', False),
        ('context { features { key: "label" value { dtype: DT_STRING } } }', True),
    ],
)
def test_check_required_features_as_tfgnn(required, ok):
    from arraygnn.io.schema import parse_schema
    from arraygnn.io.schema_validation import ValidationError, check_required_features

    if ok:
        check_required_features(parse_schema(required), parse_schema(_SCHEMA))
    else:
        with pytest.raises(ValidationError):
            check_required_features(parse_schema(required), parse_schema(_SCHEMA))


def _tf_filter_summary(keep, steps, decay):
    """preprocessing_common.dataset_filter_with_summary's scan_fn: the reported
    (step, removed-fraction EMA) pairs."""
    decay = np.exp(-1.0 / steps) if decay is None else decay
    seen = kept = 0
    ema, out = 0.0, []
    for k in keep:
        seen += 1
        kept += int(k)
        alpha = max(1.0 - decay, 1.0 / seen)
        ema = ema + alpha * (float(not k) - ema)
        if seen % steps == 0:
            out.append((max(kept - 1, 0), ema))
    return out


@pytest.mark.parametrize("steps, decay", [(1, None), (4, None), (3, 0.5)])
def test_dataset_filter_with_summary_reports_tfgnn_ema(steps, decay):
    from arraygnn.pipeline import dataset_filter_with_summary

    keep = np.random.default_rng(steps).random(25) < 0.7
    reports = []
    f = dataset_filter_with_summary(
        list(range(25)),
        lambda i: bool(keep[i]),
        summary_steps=steps,
        summary_decay=decay,
        report=lambda name, value, step: reports.append((name, step, value)),
    )
    assert list(f) == [i for i in range(25) if keep[i]]
    want = _tf_filter_summary(keep, steps, decay)
    assert [r[0] for r in reports] == ["dataset_removed_fraction"] * len(want)
    assert [r[1] for r in reports] == [s for s, _ in want]
    np.testing.assert_allclose([r[2] for r in reports], [v for _, v in want], rtol=1e-12)
    assert f.num_skipped == int((~keep).sum()) and f.removed_fraction_ema == pytest.approx(
        _tf_filter_summary(keep, 1, decay if decay else np.exp(-1.0 / steps))[-1][1]
    )
    for bad in (dict(summary_steps=0), dict(summary_decay=1.0), dict(summary_decay=0.0)):
        with pytest.raises(ValueError, match="Expected"):
            dataset_filter_with_summary([], bool, **bad)


def test_graph_tensor_to_values_as_tfgnn():
    from arraygnn.graph_tensor import graph_tensor_to_values

    # graph_tensor_pprint: features only; bytes decoded as UTF-8 where they are; ragged
    # features as nested lists
    g = GraphTensor.from_pieces(
        context=Context.from_fields(
            features={"s": np.array([b"ab", b"\xff"], dtype=object), "b": np.array([1, 0]) > 0}
        ),
        node_sets={
            "a": NodeSet.from_fields(
                sizes=np.array([1, 1]),
                features={"r": Ragged.from_row_lengths(np.array([1.5, 2.5, 3.5]), [2, 1])},
            )
        },
    )
    assert graph_tensor_to_values(g) == {
        "context": {"s": ["ab", b"\xff"], "b": [True, False]},
        "node_sets": {"a": {"r": [[1.5, 2.5], [3.5]]}},
        "edge_sets": {},
    }
