"""Padding to total sizes, tight and fit-or-skip size constraints."""

import numpy as np
import pytest

gt = pytest.importorskip("arraygnn.graph_tensor")

from _pipeline_graphs import assert_graphs_equal, random_graph  # noqa: E402

from arraygnn.padding import (  # noqa: E402
    SizeConstraints,
    assert_satisfies_total_sizes,
    find_tight_size_constraints,
    learn_fit_or_skip_size_constraints,
    pad_to_total_sizes,
    remove_padding,
    satisfies_total_sizes,
    total_sizes,
)
from arraygnn.pipeline.batching import merge_graphs  # noqa: E402


def _constraints_with_slack(g, rng, min_nodes=None):
    c, nodes, edges = total_sizes(g)
    min_nodes = min_nodes or {}
    extra_c = int(rng.integers(1, 4))
    tn = {}
    for k, v in nodes.items():
        m = min_nodes.get(k, 0)
        tn[k] = v + m * extra_c + int(rng.integers(1, 5))
    te = {k: v + int(rng.integers(0, 7)) for k, v in edges.items()}
    return SizeConstraints(c + extra_c, tn, te, min_nodes)


def _check_padded(g, padded, mask, sc):
    c, nodes, edges = total_sizes(g)
    # sizes met exactly
    assert padded.num_components == sc.total_num_components
    for k, ns in padded.node_sets.items():
        assert int(ns.sizes.sum()) == sc.total_num_nodes[k]
        assert len(ns.sizes) == sc.total_num_components
        for f, v in ns.features.items():
            assert len(v) == sc.total_num_nodes[k], (k, f)
        # every padding component has its minimum
        m = sc.min_nodes_per_component.get(k, 0)
        assert (np.asarray(ns.sizes[c:]) >= m).all()
    for k, es in padded.edge_sets.items():
        assert int(es.sizes.sum()) == sc.total_num_edges[k]
        for f, v in es.features.items():
            assert len(v) == sc.total_num_edges[k], (k, f)
    for f, v in padded.context.features.items():
        assert len(v) == sc.total_num_components, f
    # mask
    assert mask.dtype == bool and mask.shape == (sc.total_num_components,)
    assert mask[:c].all() and not mask[c:].any()
    # padding edges belong to the first padding component and join padding nodes only,
    # spread over ALL padding nodes by TF-GNN's linspace (first and last padding node)
    for k, es in padded.edge_sets.items():
        e = edges[k]
        if es.sizes[c:].sum() == 0:
            continue
        assert int(es.sizes[c]) == int(es.sizes[c:].sum())
        for idx, ns_name in (
            (es.adjacency.source, es.adjacency.source_name),
            (es.adjacency.target, es.adjacency.target_name),
        ):
            lo, hi = nodes[ns_name], sc.total_num_nodes[ns_name]
            fake = np.asarray(idx[e:])
            assert (fake >= lo).all() and (fake < hi).all()
            assert (np.diff(fake) >= 0).all() and fake[0] == lo
            if len(fake) > 1:
                assert fake[-1] == hi - 1
            # spread evenly: no node takes more than ceil(#fake edges / #fake nodes) + 1
            counts = np.bincount(fake - lo, minlength=hi - lo)
            assert counts.max() <= -(-len(fake) // (hi - lo)) + 1
    # features of padding rows are zeros / empty strings / empty ragged rows
    a = padded.node_sets["a"].features
    na = nodes["a"]
    assert not np.asarray(a["x"][na:]).any()
    if "name" in a:
        assert all(s == "" for s in np.asarray(a["name"][na:]).tolist())
    if "tokens" in a:
        lens = np.diff(np.asarray(a["tokens"].row_splits))
        assert not lens[na:].any()


@pytest.mark.parametrize("seed", range(12))
def test_pad_invariants_and_round_trip_random(seed):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, num_components=int(rng.integers(1, 4)))
    # real components must already hold the minimum (TF-GNN's rule): at most the smallest
    smallest = int(np.asarray(g.node_sets["a"].sizes).min(initial=2))
    min_nodes = {"a": min(int(rng.integers(0, 3)), smallest)} if seed % 2 else None
    sc = _constraints_with_slack(g, rng, min_nodes)
    assert satisfies_total_sizes(g, sc)
    padded, mask = pad_to_total_sizes(g, sc)
    _check_padded(g, padded, mask, sc)
    assert_graphs_equal(g, remove_padding(padded, mask))
    # padding an already padded graph to the same sizes is the identity
    again, mask2 = pad_to_total_sizes(padded, sc)
    assert mask2.all()
    assert_graphs_equal(padded, again)


def test_pad_exact_fit_needs_no_padding_component():
    g = random_graph(np.random.default_rng(1), num_components=2)
    c, nodes, edges = total_sizes(g)
    sc = SizeConstraints(c, nodes, edges)
    padded, mask = pad_to_total_sizes(g, sc)
    assert mask.all()
    assert_graphs_equal(g, padded)


def test_int32_indices_kept():
    g = random_graph(np.random.default_rng(4), index_dtype=np.int32, empty_ok=False)
    sc = _constraints_with_slack(g, np.random.default_rng(0))
    padded, _ = pad_to_total_sizes(g, sc)
    assert padded.edge_sets["ab"].adjacency.source.dtype == g.edge_sets["ab"].adjacency.source.dtype


def test_padding_values():
    g = random_graph(np.random.default_rng(2), empty_ok=False)
    sc = _constraints_with_slack(g, np.random.default_rng(0))
    padded, _ = pad_to_total_sizes(
        g, sc, padding_values={"nodes/b": {"y": -1}, "context": {"g": 7.0}}
    )
    nb = total_sizes(g)[1]["b"]
    assert (np.asarray(padded.node_sets["b"].features["y"][nb:]) == -1).all()
    assert (np.asarray(padded.context.features["g"][1:]) == 7.0).all()


def test_violations_are_named():
    g = random_graph(np.random.default_rng(0), num_components=2, empty_ok=False)
    c, nodes, edges = total_sizes(g)
    ok = SizeConstraints(c + 1, {k: v + 1 for k, v in nodes.items()}, edges)
    assert satisfies_total_sizes(g, ok)
    too_small = SizeConstraints(c + 1, {**ok.total_num_nodes, "a": nodes["a"] - 1}, edges)
    assert not satisfies_total_sizes(g, too_small)
    with pytest.raises(ValueError, match=r"node set 'a': \d+ nodes > total_num_nodes\['a'\]"):
        pad_to_total_sizes(g, too_small)
    few_components = SizeConstraints(c - 1, ok.total_num_nodes, edges)
    with pytest.raises(ValueError, match="components > total_num_components"):
        assert_satisfies_total_sizes(g, few_components)
    no_room = SizeConstraints(c, ok.total_num_nodes, edges)
    with pytest.raises(ValueError, match="no room for a padding component"):
        pad_to_total_sizes(g, no_room)
    # padding edges need a padding node in both incident node sets
    no_node = SizeConstraints(
        c + 1, {**ok.total_num_nodes, "b": nodes["b"]}, {**edges, "ab": edges["ab"] + 1}
    )
    with pytest.raises(ValueError, match="edge set 'ab': padding edges need a padding node"):
        pad_to_total_sizes(g, no_node)
    missing = SizeConstraints(c + 1, {"a": 100}, edges)
    with pytest.raises(ValueError, match=r"no total_num_nodes\['b'\]"):
        satisfies_total_sizes(g, missing)
    mins = SizeConstraints(c + 3, ok.total_num_nodes, edges, {"a": 1})
    with pytest.raises(ValueError, match="padding components x 1 nodes"):
        pad_to_total_sizes(g, mins)


def test_size_constraints_validation():
    with pytest.raises(ValueError, match="total_num_components must be >= 0"):
        SizeConstraints(-1)
    with pytest.raises(TypeError, match=r"total_num_nodes\['a'\] must be an int"):
        SizeConstraints(1, {"a": 1.5})
    sc = SizeConstraints(2, {"a": 3})
    with pytest.raises(TypeError):
        sc.total_num_nodes["a"] = 4  # read-only
    assert sc == SizeConstraints(2, {"a": 3}) and hash(sc) == hash(SizeConstraints(2, {"a": 3}))


@pytest.mark.parametrize("min_a", [0, 1])
def test_tight_constraints_fit_every_batch(min_a):
    rng = np.random.default_rng(3)
    graphs = [
        random_graph(rng, num_components=int(rng.integers(1, 3)), empty_ok=False) for _ in range(30)
    ]
    sc = find_tight_size_constraints(
        graphs, target_batch_size=4, min_nodes_per_component={"a": min_a}
    )
    for _ in range(40):
        k = int(rng.integers(1, 5))
        batch = merge_graphs([graphs[i] for i in rng.integers(0, len(graphs), k)])
        assert satisfies_total_sizes(batch, sc), sc
        padded, mask = pad_to_total_sizes(batch, sc)
        _check_padded(batch, padded, mask, sc)
    # tight: the worst batch (4 copies of the largest graph per piece) uses the budget fully
    largest_a = max(graphs, key=lambda g: total_sizes(g)[1]["a"] - min_a * g.num_components)
    worst = merge_graphs([largest_a] * 4)
    c, n, _ = total_sizes(worst)
    assert (
        n["a"] + min_a * (sc.total_num_components - c) + (1 if min_a == 0 else 0)
        == (sc.total_num_nodes["a"])
    )


def test_fit_or_skip_success_ratio_on_fresh_batches():
    rng = np.random.default_rng(0)

    def sample_graph():
        # long-tailed sizes: mostly small, sometimes large
        g = random_graph(
            rng,
            max_nodes=int(rng.choice([3, 3, 3, 12])),
            max_edges=8,
            with_ragged=False,
            with_strings=False,
        )
        return g

    pool = [sample_graph() for _ in range(400)]
    batch_size = 8
    result = learn_fit_or_skip_size_constraints(
        pool, [batch_size, 16], success_ratio=[0.5, 0.9], sample_size=3000, seed=1
    )
    assert len(result) == 2 and all(len(r) == 2 for r in result)
    sc_50, sc_90 = result[0]
    assert sc_50.total_num_nodes["a"] <= sc_90.total_num_nodes["a"]
    tight = find_tight_size_constraints(pool, target_batch_size=batch_size)
    assert sc_90.total_num_nodes["a"] < tight.total_num_nodes["a"]
    # fresh batches from new graphs of the same distribution
    fresh = [sample_graph() for _ in range(800)]
    n_trials = 300
    for ratio, sc in ((0.5, sc_50), (0.9, sc_90)):
        fits = 0
        for _ in range(n_trials):
            idx = rng.integers(0, len(fresh), batch_size)
            batch = merge_graphs([fresh[i] for i in idx])
            fits += satisfies_total_sizes(batch, sc)
        observed = fits / n_trials
        # 4 standard errors of a binomial proportion (plus the learning sample's own error)
        err = 4 * np.sqrt(ratio * (1 - ratio) / n_trials) + 0.03
        assert observed >= ratio - err, (ratio, observed)
        print(f"success ratio {ratio}: observed {observed:.3f} on fresh batches")
    single = learn_fit_or_skip_size_constraints(
        pool, batch_size, success_ratio=1.0, sample_size=500
    )
    assert isinstance(single, SizeConstraints)
    with pytest.raises(ValueError, match="success_ratio"):
        learn_fit_or_skip_size_constraints(pool, 4, success_ratio=1.5)


# -- PyG-style Batch ------------------------------------------------------------------------


def _random_data_list(rng, n_graphs):
    from arraygnn.data import Data

    out = []
    for _ in range(n_graphs):
        n = int(rng.integers(0, 6))
        e = int(rng.integers(0, 8)) if n else 0
        out.append(
            Data(
                x=rng.standard_normal((n, 3)).astype(np.float32),
                edge_index=rng.integers(0, max(n, 1), (2, e)),
                edge_attr=rng.random((e, 2)),
                y=np.array([int(rng.integers(0, 3))]),
                num_nodes=n,
            )
        )
    return out


@pytest.mark.parametrize("seed", range(6))
def test_pad_batch_invariants_and_round_trip(seed):
    pytest.importorskip("arraygnn.batch")
    from arraygnn.batch import Batch
    from arraygnn.padding import pad_batch

    rng = np.random.default_rng(seed)
    data = _random_data_list(rng, int(rng.integers(1, 6)))
    b = Batch.from_data_list(data)
    n, e, g = int(b.ptr[-1]), b.edge_index.shape[1], len(data)
    tn, te, tg = (
        n + int(rng.integers(1, 6)),
        e + int(rng.integers(0, 9)),
        g + int(rng.integers(1, 4)),
    )
    p = pad_batch(b, num_nodes=tn, num_edges=te, num_graphs=tg, graph_keys=("y",))
    assert p.x.shape == (tn, 3) and p.edge_attr.shape == (te, 2) and p.y.shape == (tg,)
    assert p.edge_index.shape == (2, te) and p.batch.shape == (tn,) and p.ptr.shape == (tg + 1,)
    assert p.node_mask.sum() == n and p.node_mask[:n].all()
    assert p.edge_mask.sum() == e and p.edge_mask[:e].all()
    assert p.graph_mask.tolist() == [True] * g + [False] * (tg - g)
    # padding edges stay among padding nodes, spread evenly
    fake = p.edge_index[:, e:]
    assert ((fake >= n) & (fake < tn)).all()
    if fake.shape[1]:
        counts = np.bincount(fake[0] - n, minlength=tn - n)
        assert counts.max() <= -(-fake.shape[1] // (tn - n))
    assert (p.batch[n:] == g).all()
    assert not p.x[n:].any() and not p.edge_attr[e:].any()
    # the real graphs come back exactly
    for i, d in enumerate(data):
        back = p.get_example(i)
        np.testing.assert_array_equal(back.x, d.x)
        np.testing.assert_array_equal(back.edge_index, d.edge_index)
        np.testing.assert_array_equal(back.edge_attr, d.edge_attr)
        assert back.node_mask.all() and back.edge_mask.all()
    pad_graph = p.get_example(g)
    assert pad_graph.x.shape[0] == tn - n and not pad_graph.node_mask.any()
    assert pad_graph.edge_index.shape[1] == te - e
    if te - e:
        assert pad_graph.edge_index.min() >= 0 and pad_graph.edge_index.max() < tn - n


def test_pad_batch_errors_and_one_jax_trace():
    pytest.importorskip("arraygnn.batch")
    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.padding import pad_batch

    data = _random_data_list(np.random.default_rng(1), 3)
    b = Batch.from_data_list(data)
    n, e = int(b.ptr[-1]), b.edge_index.shape[1]
    with pytest.raises(ValueError, match="say whether key 'y'"):
        pad_batch(b, num_nodes=n + 1, num_edges=e, num_graphs=4)
    with pytest.raises(ValueError, match="nodes > num_nodes"):
        pad_batch(b, num_nodes=n - 1, num_edges=e, num_graphs=4, graph_keys=("y",))
    with pytest.raises(ValueError, match="no room for a padding graph"):
        pad_batch(b, num_nodes=n + 1, num_edges=e, num_graphs=3, graph_keys=("y",))
    with pytest.raises(ValueError, match="padding edges need at least one padding node"):
        pad_batch(b, num_nodes=n, num_edges=e + 1, num_graphs=4, graph_keys=("y",))
    exact = pad_batch(b, num_nodes=n, num_edges=e, num_graphs=3, graph_keys=("y",))
    assert exact.node_mask.all() and exact.graph_mask.all()
    with pytest.raises(ValueError, match="already has 'node_mask'"):
        pad_batch(exact, num_nodes=n, num_edges=e, num_graphs=3, graph_keys=("y",))
    jax = pytest.importorskip("jax")
    traces = []

    @jax.jit
    def f(x, ei, mask):
        traces.append(1)
        return (x[ei[0]].sum() * 0 + mask.sum()).astype(float)

    rng = np.random.default_rng(2)
    for _ in range(4):
        bb = Batch.from_data_list(
            _random_data_list(rng, 4)
            + [
                Data(
                    x=np.zeros((0, 3), np.float32),
                    edge_index=np.zeros((2, 0), np.int64),
                    edge_attr=np.zeros((0, 2)),
                    y=np.array([0]),
                    num_nodes=0,
                )
            ]
        )
        p = pad_batch(bb, num_nodes=40, num_edges=60, num_graphs=6, graph_keys=("y",))
        assert float(f(p.x, p.edge_index, p.node_mask)) == float(p.ptr[5])
    assert len(traces) == 1


# -- unusual inputs: narrow dtypes, minimum nodes, masks, padding values -----------------------


def _one_edge_graph(n, index_dtype=np.int64, sizes_dtype=np.int64, features=None):
    return gt.GraphTensor.from_pieces(
        node_sets={
            "n": gt.NodeSet.from_fields(sizes=np.array([n], sizes_dtype), features=features or {})
        },
        edge_sets={
            "e": gt.EdgeSet.from_fields(
                sizes=np.array([1], sizes_dtype),
                adjacency=gt.Adjacency.from_indices(
                    source=("n", np.array([0], index_dtype)),
                    target=("n", np.array([n - 1], index_dtype)),
                ),
            )
        },
    )


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_padding_widens_index_and_size_dtypes_that_cannot_hold_the_padding(dtype):
    # padding ids / sizes past the dtype's range used to wrap silently (int8: -106)
    sc = SizeConstraints(2, {"n": 70_000}, {"e": 5})
    padded, _ = pad_to_total_sizes(_one_edge_graph(100, dtype, dtype), sc)
    adj = padded.edge_sets["e"].adjacency
    assert adj.source.tolist() == [0, 100, 23400, 46700, 69999]  # TF-GNN's linspace
    assert adj.source.dtype == np.int64 and adj.target.dtype == np.int64
    assert padded.node_sets["n"].sizes.tolist() == [100, 69_900]
    # a fresh, validating construction accepts the padded graph
    gt.GraphTensor.from_pieces(node_sets=dict(padded.node_sets), edge_sets=dict(padded.edge_sets))
    assert satisfies_total_sizes(padded, sc)
    # where the dtype holds every id it is kept
    small, _ = pad_to_total_sizes(
        _one_edge_graph(3, dtype, dtype), SizeConstraints(2, {"n": 9}, {"e": 3})
    )
    assert small.edge_sets["e"].adjacency.source.dtype == dtype
    assert small.node_sets["n"].sizes.dtype == dtype


def test_real_components_below_min_nodes_do_not_satisfy_the_constraints():
    # TF-GNN: "Components in the input graph tensor must satisfy that constraint already"
    g = gt.GraphTensor.from_pieces(
        node_sets={"n": gt.NodeSet.from_fields(sizes=np.array([2, 0]), features={"x": np.ones(2)})}
    )
    sc = SizeConstraints(3, {"n": 4}, {}, min_nodes_per_component={"n": 1})
    assert not satisfies_total_sizes(g, sc)
    with pytest.raises(ValueError, match=r"component\(s\) 1 hold fewer than min_nodes"):
        pad_to_total_sizes(g, sc)
    from arraygnn.pipeline.batching import dynamic_batch

    with pytest.raises(ValueError, match="graph 0 does not fit.*component"):
        list(dynamic_batch([g], sc))


def test_remove_padding_rejects_a_mask_of_the_wrong_length():
    padded, mask = pad_to_total_sizes(_one_edge_graph(3), SizeConstraints(3, {"n": 5}, {"e": 2}))
    for bad in (mask[:0], np.ones(5, bool)):
        with pytest.raises(ValueError, match="one entry per component"):
            remove_padding(padded, bad)


def test_padding_values_are_checked_and_strings_widen():
    g = _one_edge_graph(2, features={"s": np.array(["ab", "c"]), "i": np.array([1, 2])})
    sc = SizeConstraints(2, {"n": 4}, {"e": 1})
    padded, _ = pad_to_total_sizes(g, sc, padding_values={"nodes/n": {"s": "<pad>", "i": -1}})
    assert padded.node_sets["n"].features["s"].tolist() == ["ab", "c", "<pad>", "<pad>"]
    assert padded.node_sets["n"].features["i"].tolist() == [1, 2, -1, -1]
    assert g.node_sets["n"].features["s"].dtype == np.dtype("<U2")  # input untouched
    with pytest.raises(ValueError, match="1.7 for feature 'i' of node set 'n'.*int64"):
        pad_to_total_sizes(g, sc, padding_values={"nodes/n": {"i": 1.7}})
    # values for sets or features the graph lacks are ignored, as in TF-GNN
    same = pad_to_total_sizes(g, sc, padding_values={"nodes/zz": {"i": 9}, "nodes/n": {"j": 0}})
    assert same[0].node_sets["n"].features["i"].tolist() == [1, 2, 0, 0]
    with pytest.raises(ValueError, match="key 'n': use 'context'"):  # a typo, not a set
        pad_to_total_sizes(g, sc, padding_values={"n": {"i": 0}})
    with pytest.raises(TypeError, match="must map feature names"):
        pad_to_total_sizes(g, sc, padding_values={"nodes/n": -1.0})


def test_learn_fit_or_skip_takes_any_iterable_of_batch_sizes():
    graphs = [random_graph(np.random.default_rng(s), empty_ok=False) for s in range(10)]
    one = learn_fit_or_skip_size_constraints(graphs, 3, sample_size=200)
    assert learn_fit_or_skip_size_constraints(graphs, np.array(3), sample_size=200) == one
    many = learn_fit_or_skip_size_constraints(graphs, (b for b in [3, 2]), sample_size=200)
    assert isinstance(many, list) and len(many) == 2 and many[0] == one


def test_pad_batch_keeps_list_keys_and_refuses_narrow_edge_index():
    from arraygnn.batch import Batch
    from arraygnn.data import Data
    from arraygnn.padding import pad_batch

    b = Batch.from_data_list(
        [
            Data(x=np.ones((2, 1)), edge_index=np.array([[0], [1]]), name="a"),
            Data(x=np.ones((1, 1)), edge_index=np.zeros((2, 0), np.int64), name="b"),
        ]
    )
    p = pad_batch(b, num_nodes=5, num_edges=2, num_graphs=3)
    assert [d.name for d in p.to_data_list()] == ["a", "b", None]
    assert p.get_example(0).name == "a" and p.name == ["a", "b", None]
    narrow = Batch.from_data_list(
        [Data(x=np.ones((100, 1)), edge_index=np.array([[0], [99]], np.int8))]
    )
    with pytest.raises(OverflowError, match="edge_index has dtype int8.*up to 299"):
        pad_batch(narrow, num_nodes=300, num_edges=4, num_graphs=2)


def test_padding_values_floats_take_any_real_and_strings_keep_their_kind():
    g = _one_edge_graph(
        2,
        features={
            "f": np.array([1.0, 2.0], np.float32),
            "b": np.array([b"ab", b"c"]),
            "s": np.array(["ab", "c"]),
        },
    )
    sc = SizeConstraints(2, {"n": 3}, {"e": 1})
    values = {"nodes/n": {"f": np.nan, "b": "xyz", "s": "wxyz"}}
    padded, _ = pad_to_total_sizes(g, sc, padding_values=values)
    f = padded.node_sets["n"].features
    assert np.isnan(f["f"][2]) and f["f"].dtype == np.float32
    assert f["b"].tolist() == [b"ab", b"c", b"xyz"] and f["b"].dtype.kind == "S"
    assert f["s"].tolist() == ["ab", "c", "wxyz"] and f["s"].dtype.kind == "U"
    assert pad_to_total_sizes(g, sc, padding_values={"nodes/n": {"f": 0.1}})[0] is not None
    with pytest.raises(ValueError, match="must be a string"):
        pad_to_total_sizes(g, sc, padding_values={"nodes/n": {"s": 7}})


def test_padded_dtypes_depend_on_the_constraints_only():
    # one dtype per constraints, whatever each graph's own sizes (one trace downstream)
    sc = SizeConstraints(2, {"n": 40_000}, {"e": 5})
    dtypes = set()
    for n in (5_000, 20_000):
        padded, _ = pad_to_total_sizes(_one_edge_graph(n, np.int16, np.int16), sc)
        adj = padded.edge_sets["e"].adjacency
        dtypes.add((padded.node_sets["n"].sizes.dtype, adj.source.dtype, adj.target.dtype))
    assert dtypes == {(np.dtype(np.int64), np.dtype(np.int64), np.dtype(np.int64))}


def test_padding_values_are_checked_even_when_no_row_is_added():
    r = gt.Ragged.from_row_lengths(np.zeros(3, np.float32), np.array([1, 2]))
    g = _one_edge_graph(2, features={"f": np.ones(2, np.float32), "r": r})
    exact = SizeConstraints(1, {"n": 2}, {"e": 1})  # nothing to pad
    with pytest.raises(ValueError, match="'oops' for feature 'f'"):
        pad_to_total_sizes(g, exact, padding_values={"nodes/n": {"f": "oops"}})
    ragged = pad_to_total_sizes(g, exact, padding_values={"nodes/n": {"r": 0.0}})[0]
    assert ragged.node_sets["n"].features["r"].values.shape == (3,)  # empty rows, value unused
