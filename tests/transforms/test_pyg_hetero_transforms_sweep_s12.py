"""Parity sweep: PyG 2.8's transforms on ``HeteroData`` for option combinations the other
transform tests leave out (reduce / fill_value variants, 2-D weights, empty and zero-node
types, graph-level keys, ``edge_label`` beside ``edge_label_index``, an existing reverse
type, split modes), live against PyG."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _structure_helpers import assert_unchanged, hetero_to_pyg, snapshot

import arraygnn.transforms as T
from arraygnn.hetero_data import HeteroData

torch = pytest.importorskip("torch")
PT = pytest.importorskip("torch_geometric.transforms")

F32 = np.float32
AA, AB = ("a", "to", "a"), ("a", "w", "b")


def graph(seed: int = 0, edge_attr: bool = False, weight_dims: int = 1) -> HeteroData:
    """Three node types (``c`` has no edges), a same-type edge type with a self-loop and a
    parallel edge, a bipartite one, a graph-level key."""
    rng = np.random.default_rng(seed)
    h = HeteroData()
    h["a"].x = rng.random((5, 3)).astype(F32)
    h["b"].x = rng.random((4, 2)).astype(F32)
    h["c"].num_nodes = 3
    h["c"].y = np.arange(3)
    ei = np.stack([rng.integers(0, 5, 8), rng.integers(0, 5, 8)])
    ei[:, 0] = [2, 2]  # a self-loop
    ei[:, 1] = ei[:, 2]  # a parallel edge
    h[AA].edge_index = ei
    shape = (8,) if weight_dims == 1 else (8, weight_dims)
    h[AA].edge_weight = rng.random(shape).astype(F32)
    if edge_attr:
        h[AA].edge_attr = rng.random((8, 2)).astype(F32)
    h[AB].edge_index = np.stack([rng.integers(0, 5, 6), rng.integers(0, 4, 6)])
    h[AB].edge_attr = rng.random((6, 2)).astype(F32)
    h.gattr = np.array([1.0, 2.0])
    return h


def with_labels(h: HeteroData, key=AB) -> HeteroData:
    """``edge_label_index`` / ``edge_label`` (3 pairs) on edge type ``key``."""
    h[key].edge_label_index = np.array([[0, 1, 2], [1, 2, 3]])
    h[key].edge_label = np.array([1.0, 0.0, 1.0], F32)
    return h


def compare(out, ref) -> None:
    assert sorted(out.node_types) == sorted(ref.node_types)
    assert sorted(out.edge_types) == sorted(ref.edge_types)
    np.testing.assert_array_equal(out.gattr, ref.gattr.numpy())  # graph-level key kept
    for mine, theirs in [(out[k], ref[k]) for k in out.node_types + out.edge_types]:
        assert sorted(mine.keys()) == sorted(theirs.keys())
        for k in theirs.keys():
            want = theirs[k]
            if not torch.is_tensor(want):
                assert mine[k] == want, k
                continue
            got, want = np.asarray(mine[k]), want.numpy()
            assert got.shape == want.shape, k
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=k)
            if want.dtype.kind == "f":
                assert got.dtype == want.dtype, k


def run_both(ours, theirs, h):
    snap = snapshot(h)
    out = ours(h)
    assert_unchanged(h, snap)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        given = hetero_to_pyg(h)
        if hasattr(h, "gattr"):  # the graph-level key (not copied above)
            given.gattr = torch.from_numpy(h.gattr)
        return out, theirs(given)


CASES = {
    "undirected-max": (lambda m: m.ToUndirected(reduce="max"), {}),
    "undirected-min-nomerge": (lambda m: m.ToUndirected(reduce="min", merge=False), {}),
    "undirected-mul-edge-attr": (lambda m: m.ToUndirected(reduce="mul"), {"edge_attr": True}),
    "add-loops-fill-2": (lambda m: m.AddSelfLoops(fill_value=2.0), {}),
    "add-loops-add": (lambda m: m.AddSelfLoops(fill_value="add"), {}),
    "add-loops-max-2d": (lambda m: m.AddSelfLoops(fill_value="max"), {"weight_dims": 3}),
    "add-loops-vector-2d": (
        lambda m: m.AddSelfLoops(fill_value=(np if m is T else torch).ones(3) * 0.5),
        {"weight_dims": 3},
    ),
    "remaining-loops-min": (lambda m: m.AddRemainingSelfLoops(fill_value="min"), {}),
    "remaining-loops-attr": (
        lambda m: m.AddRemainingSelfLoops(attr="w2", fill_value=3.0),
        {},
    ),
    "remove-loops": (lambda m: m.RemoveSelfLoops(), {}),
    "normalize-edge-attr": (lambda m: m.NormalizeFeatures(["x", "edge_attr"]), {}),
    "constant-list": (lambda m: m.Constant(2.0, node_types=["b", "c"]), {}),
    "constant-nocat": (lambda m: m.Constant(0.5, cat=False, node_types="a"), {}),
    "isolated": (lambda m: m.RemoveIsolatedNodes(), {"edge_attr": True}),
    "duplicates-max": (lambda m: m.RemoveDuplicatedEdges(["edge_weight", "edge_attr"], "max"), {}),
    "compose": (lambda m: m.Compose([m.ToUndirected(), m.AddSelfLoops(), m.Constant()]), {}),
    "to-device-attrs": (lambda m: m.ToDevice("cpu", attrs=["x", "edge_weight"]), {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hetero_options_match_pyg(name):
    make, kw = CASES[name]
    for seed in range(2):
        h = graph(seed, **kw)
        if name == "remaining-loops-attr":
            h[AA].w2 = h[AA].edge_weight
            del h[AA].edge_weight
        compare(*run_both(make(T), make(PT), h))


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.ToUndirected(),
        lambda m: m.AddSelfLoops(),
        lambda m: m.RemoveIsolatedNodes(),
        lambda m: m.NormalizeFeatures(),
        lambda m: m.Constant(),
    ],
)
def test_empty_edge_types_and_zero_node_types_match_pyg(make):
    h = graph()
    h[AA].edge_index = np.zeros((2, 0), np.int64)
    h[AA].edge_weight = np.zeros(0, F32)
    h["z"].x = np.zeros((0, 2), F32)
    h["z", "r", "a"].edge_index = np.zeros((2, 0), np.int64)
    h["z", "r", "a"].edge_attr = np.zeros((0, 2), F32)
    compare(*run_both(make(T), make(PT), h))


@pytest.mark.parametrize("key", [AA, AB])
@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.ToUndirected(),
        lambda m: m.ToUndirected(merge=False),
        lambda m: m.AddSelfLoops(),
        lambda m: m.AddRemainingSelfLoops(fill_value="mean"),
        lambda m: m.RemoveSelfLoops(),
        lambda m: m.RemoveDuplicatedEdges(),
    ],
)
def test_edge_label_beside_edge_label_index_is_left_alone_as_pyg(make, key):
    # the edge_label of the label pairs is not per edge: PyG leaves both as they are
    # (these transforms keep node ids); before, they were refused as short per-edge arrays
    h = with_labels(graph(1), key)
    out, ref = run_both(make(T), make(PT), h)
    compare(out, ref)
    np.testing.assert_array_equal(out[key].edge_label_index, h[key].edge_label_index)


def test_to_undirected_existing_reverse_type():
    # applied twice: the reverse type is overwritten and itself reversed, as PyG
    h = graph(edge_attr=True)
    twice = (T.Compose([T.ToUndirected()] * 2), PT.Compose([PT.ToUndirected()] * 2))
    compare(*run_both(*twice, h))
    # a reverse type holding arrays the flipped edges would leave out of step: refused
    # (PyG keeps them, 2 rows beside 6 edges)
    h["b", "rev_w", "a"].edge_index = np.array([[0, 1], [1, 2]])
    h["b", "rev_w", "a"].extra = np.array([5.0, 6.0])
    with pytest.raises(ValueError, match=r"reverse type \('b', 'rev_w', 'a'\) .*\['extra'\]"):
        T.ToUndirected()(h)
    # one holding only what is written (and label pairs) is overwritten, as PyG
    del h["b", "rev_w", "a"].extra
    with_labels(h, ("b", "rev_w", "a"))
    compare(*run_both(T.ToUndirected(merge=False), PT.ToUndirected(merge=False), h))


def test_remove_isolated_nodes_renumbers_edge_label_index():
    h = graph(2)
    h[AA].edge_index = np.array([[0, 3, 4], [3, 4, 0]])  # node 1, 2 of 'a' isolated
    h[AA].edge_weight = np.ones(3, F32)
    h[AB].edge_index = np.array([[0, 4], [1, 3]])  # node 0, 2 of 'b' isolated
    h[AB].edge_attr = np.ones((2, 2), F32)
    h[AB].edge_label_index = np.array([[3, 4, 0], [1, 3, 3]], np.int32)
    h[AB].edge_label = np.array([1.0, 0.0, 1.0], F32)
    out, ref = run_both(T.RemoveIsolatedNodes(), PT.RemoveIsolatedNodes(), h)
    # everything as PyG but the label pairs, which PyG leaves in the old numbering
    ours_pairs = out[AB].edge_label_index
    del out[AB].edge_label_index
    del ref[AB].edge_label_index
    compare(out, ref)
    assert ours_pairs.dtype == np.int32
    np.testing.assert_array_equal(ours_pairs, [[1, 2, 0], [0, 1, 1]])
    # a pair naming a removed node cannot be renumbered
    h[AB].edge_label_index = np.array([[1], [1]])
    with pytest.raises(ValueError, match=r"edge_label_index row 0 names a node no edge"):
        T.RemoveIsolatedNodes()(h)
    h[AB].edge_label_index = np.array([[0], [9]])
    with pytest.raises(ValueError, match=r"edge_label_index row 1 holds node id 9"):
        T.RemoveIsolatedNodes()(h)


def test_remove_self_loops_moves_every_edge_array():
    # documented difference: every per-edge array follows (PyG filters only `attr`)
    h = graph(edge_attr=True)
    out, ref = run_both(T.RemoveSelfLoops(attr="edge_attr"), PT.RemoveSelfLoops("edge_attr"), h)
    keep = h[AA].edge_index[0] != h[AA].edge_index[1]
    np.testing.assert_array_equal(out[AA].edge_index, ref[AA].edge_index.numpy())
    np.testing.assert_array_equal(out[AA].edge_attr, ref[AA].edge_attr.numpy())
    np.testing.assert_array_equal(out[AA].edge_weight, h[AA].edge_weight[keep])
    assert ref[AA].edge_weight.shape[0] == 8  # PyG's is left a row count behind


@pytest.mark.parametrize(
    "kw",
    [
        {"split": "test_rest", "num_train_per_class": 1, "num_val": 1},
        {"split": "random", "num_train_per_class": 1, "num_val": 1, "num_test": 1},
        {"num_splits": 2, "num_val": 1, "num_test": 1},
        {"num_val": 0.2, "num_test": 0.4},
        {"key": None, "num_val": 1, "num_test": 1},
    ],
)
def test_random_node_split_hetero_modes_match_pyg_counts(kw):
    h = graph()
    h["a"].y = np.array([0, 1, 2, 0, 1])
    h["b"].y = np.array([0, 1, 0, 1])
    torch.manual_seed(0)
    out, ref = run_both(T.RandomNodeSplit(**kw, seed=0), PT.RandomNodeSplit(**kw), h)
    for t in h.node_types:
        assert sorted(out[t].keys()) == sorted(ref[t].keys())
        if "train_mask" not in ref[t]:
            continue
        masks = []
        for m in ("train_mask", "val_mask", "test_mask"):
            assert out[t][m].shape == tuple(ref[t][m].shape) and out[t][m].dtype == bool
            assert out[t][m].sum(0).tolist() == ref[t][m].sum(0).tolist(), (t, m)
            masks.append(out[t][m].astype(int))
        assert sum(masks).max() <= 1  # disjoint


def link_graph() -> HeteroData:
    rng = np.random.default_rng(3)
    h = HeteroData()
    h["u"].x = rng.random((10, 2)).astype(F32)
    h["i"].x = rng.random((12, 2)).astype(F32)
    ei = np.unique(np.stack([rng.integers(0, 10, 40), rng.integers(0, 12, 40)]), axis=1)
    h["u", "b", "i"].edge_index = ei
    h["u", "b", "i"].edge_attr = rng.random((ei.shape[1], 2)).astype(F32)
    h["u", "b", "i"].lab = rng.integers(0, 3, ei.shape[1])
    h["i", "rev_b", "u"].edge_index = ei[::-1].copy()
    h["i", "rev_b", "u"].edge_attr = h["u", "b", "i"].edge_attr
    uu = np.unique(np.stack([rng.integers(0, 10, 30), rng.integers(0, 10, 30)]), axis=1)
    uu = uu[:, uu[0] != uu[1]]
    h["u", "k", "u"].edge_index = np.unique(np.concatenate([uu, uu[::-1]], 1), axis=1)
    return h


ET, RV, KK = ("u", "b", "i"), ("i", "rev_b", "u"), ("u", "k", "u")


@pytest.mark.parametrize(
    "kw",
    [
        {"edge_types": ET},
        {
            "edge_types": [ET, KK],
            "rev_edge_types": [RV, None],
            "is_undirected": True,
            "neg_sampling_ratio": 2.0,
        },
        {"edge_types": [ET], "rev_edge_types": [RV], "disjoint_train_ratio": 0.3},
        {"edge_types": KK, "is_undirected": True, "disjoint_train_ratio": 2, "split_labels": True},
        {"edge_types": ET, "rev_edge_types": RV, "key": "lab", "neg_sampling_ratio": 0.0},
        {"edge_types": ET, "num_val": 0, "num_test": 0.5, "split_labels": True, "key": "lab"},
    ],
)
def test_random_link_split_hetero_options_match_pyg_shapes(kw):
    h = link_graph()
    torch.manual_seed(0)
    outs, refs = run_both(T.RandomLinkSplit(**kw, seed=0), PT.RandomLinkSplit(**kw), h)
    for out, ref in zip(outs, refs):
        for t in h.node_types + h.edge_types:
            assert sorted(out[t].keys()) == sorted(ref[t].keys()), t
            for k in ref[t].keys():
                got, want = out[t][k], ref[t][k]
                assert tuple(np.shape(got)) == tuple(want.shape), (t, k)
                if "label" in k and "index" not in k:
                    assert set(np.unique(got).tolist()) <= set(torch.unique(want).tolist())


def test_random_link_split_hetero_argument_errors():
    h = link_graph()
    with pytest.raises(ValueError, match="RandomLinkSplit: edge_types must be given"):
        T.RandomLinkSplit(rev_edge_types=RV)(h)
    with pytest.raises(ValueError, match="RandomLinkSplit: rev_edge_types must be a list as long"):
        T.RandomLinkSplit(edge_types=[ET, KK], rev_edge_types=RV)(h)
    with pytest.raises(ValueError, match=r"RandomLinkSplit: edge type \('u', 'zz', 'i'\)"):
        T.RandomLinkSplit(edge_types=("u", "zz", "i"))(h)
