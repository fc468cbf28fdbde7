"""Data's PyG methods (subgraph, edge_subgraph, coalesce, is_coalesced, is_undirected,
is_directed, has_isolated_nodes, has_self_loops, num_*_features, update, size,
to_heterogeneous) against PyG's Data built from the same arrays, plus dtypes kept, inputs
left unchanged, the attribute-level rule (no guessing by length) and the error messages."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn import Data, HeteroData

INT = [np.int32, np.int64]
FLOAT = [np.float32, np.float64]


def random_data(
    seed: int = 0,
    ei_dtype=np.int64,
    f_dtype=np.float32,
    n: int = 9,
    e: int = 23,
    loops: bool = True,
    multi: bool = True,
) -> Data:
    """x, pos (node), edge_attr, edge_weight (edge), y (graph, one row); node 0 isolated;
    self-loops and parallel edges when asked. n != e and neither is 1, so PyG's length
    rule classifies the arrays as named here."""
    rng = np.random.default_rng(seed)
    src = rng.integers(1, n, e)
    dst = rng.integers(1, n, e)
    if not loops:
        dst = np.where(src == dst, (dst % (n - 1)) + 1, dst)
        dst = np.where(src == dst, (dst % (n - 1)) + 1, dst)
    if loops:
        src[0] = dst[0] = 3
    if multi:
        src[1], dst[1] = src[2], dst[2]
    return Data(
        x=rng.standard_normal((n, 3)).astype(f_dtype),
        pos=rng.standard_normal((n, 2)).astype(f_dtype),
        edge_index=np.stack([src, dst]).astype(ei_dtype),
        edge_attr=rng.standard_normal((e, 2)).astype(f_dtype),
        edge_weight=rng.random(e).astype(f_dtype),
        y=np.array([1.5], f_dtype),
    )


def snapshot(d: Data) -> dict:
    return {k: (np.array(v, copy=True) if isinstance(v, np.ndarray) else v) for k, v in d.items()}


def assert_unchanged(d: Data, snap: dict) -> None:
    assert list(d.keys()) == list(snap)
    for k, v in snap.items():
        if isinstance(v, np.ndarray):
            assert d[k].dtype == v.dtype
            np.testing.assert_array_equal(d[k], v)
        else:
            assert d[k] == v


def _torch():
    return pytest.importorskip("torch")


def to_pyg(d: Data):
    torch = _torch()
    pyg = pytest.importorskip("torch_geometric.data")
    return pyg.Data(
        **{k: torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v for k, v in d}
    )


def assert_matches_pyg(ours: Data, theirs, keys=None) -> None:
    """Same keys and values; arrays with the same dtype as PyG's."""
    keys = list(ours.keys()) if keys is None else keys
    assert sorted(keys) == sorted(theirs.keys()), (keys, theirs.keys())
    for k in keys:
        a, b = ours[k], theirs[k]
        if isinstance(a, np.ndarray):
            b = b.numpy()
            assert a.dtype == b.dtype, (k, a.dtype, b.dtype)
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=k)
        else:
            assert a == b, k


# ------------------------------------------------------------------ subgraph


@pytest.mark.parametrize("ei_dtype", INT)
@pytest.mark.parametrize("f_dtype", FLOAT)
@pytest.mark.parametrize("form", ["ids", "ids32", "mask", "list"])
def test_subgraph_matches_pyg(ei_dtype, f_dtype, form):
    torch = _torch()
    d = random_data(1, ei_dtype, f_dtype)
    snap = snapshot(d)
    rng = np.random.default_rng(5)
    ids = rng.permutation(d.num_nodes)[:6]  # unsorted: order is kept
    mask = np.zeros(d.num_nodes, bool)
    mask[ids] = True
    subset = {"ids": ids, "ids32": ids.astype(np.int32), "mask": mask, "list": ids.tolist()}[form]
    given = np.array(subset, copy=True)
    out = d.subgraph(subset, graph_attrs=["y"])
    np.testing.assert_array_equal(np.asarray(subset), given)
    ref = to_pyg(d).subgraph(torch.from_numpy(ids if form != "mask" else mask))
    assert_matches_pyg(out, ref)
    assert out.edge_index.dtype == ei_dtype
    assert out.num_nodes == 6 and out.y is d.y
    assert type(out) is Data and out is not d
    assert_unchanged(d, snap)


def test_subgraph_explicit_num_nodes_and_isolated_nodes():
    torch = _torch()
    d = Data(edge_index=np.array([[0, 1, 1, 4], [1, 0, 4, 4]]), num_nodes=6)
    subset = np.array([4, 1, 5])
    out = d.subgraph(subset)
    ref = to_pyg(d).subgraph(torch.from_numpy(subset))
    assert_matches_pyg(out, ref)
    assert out.num_nodes == 3 and out.edge_index.tolist() == [[1, 0], [0, 0]]


def test_subgraph_num_nodes_follows_when_x_is_not_sliced():
    d = Data(x=np.zeros((4, 2)), edge_index=np.array([[0, 3], [3, 1]]))
    out = d.subgraph(np.array([3, 0]), node_attrs=[], graph_attrs=["x"])
    assert out.x is d.x and out.num_nodes == 2 and out.edge_index.tolist() == [[1], [0]]


@pytest.mark.parametrize("ei_dtype", INT)
def test_subgraph_empty(ei_dtype):
    torch = _torch()
    d = Data(x=np.zeros((0, 3), np.float32), edge_index=np.zeros((2, 0), ei_dtype))
    out = d.subgraph(np.zeros(0, np.int64))
    assert_matches_pyg(out, to_pyg(d).subgraph(torch.zeros(0, dtype=torch.long)))
    assert out.edge_index.dtype == ei_dtype and out.num_nodes == 0
    d = random_data(2, ei_dtype)
    out = d.subgraph([], graph_attrs=["y"])
    assert out.x.shape == (0, 3) and out.edge_index.shape == (2, 0)
    assert out.edge_attr.shape == (0, 2) and out.edge_index.dtype == ei_dtype


def test_subgraph_without_edge_index_keeps_edge_attrs():
    d = Data(x=np.arange(3.0), edge_attr=np.arange(5.0))
    out = d.subgraph(np.array([True, False, True]))
    assert out.x.tolist() == [0.0, 2.0] and out.edge_attr is d.edge_attr


def test_subgraph_named_levels():
    d = Data(
        x=np.arange(4.0),
        label=np.array([10, 11, 12, 13]),
        score=np.array([1.0, 2.0, 3.0]),
        edge_index=np.array([[0, 1, 2], [1, 2, 3]]),
        name="g",
    )
    with pytest.raises(ValueError, match=r"Data\.subgraph: .*\['label', 'score'\]"):
        d.subgraph(np.array([1, 2]))
    out = d.subgraph(np.array([1, 2]), node_attrs=["x", "label"], edge_attrs=["score"])
    assert out.label.tolist() == [11, 12] and out.score.tolist() == [2.0]
    assert out.name == "g" and out.edge_index.tolist() == [[0], [1]]


def test_subgraph_errors():
    d = random_data(3)
    kw = {"graph_attrs": ["y"]}
    with pytest.raises(TypeError, match=r"Data\.subgraph: subset must be an integer array"):
        d.subgraph(np.array([0.0, 1.0]), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: subset has entry 9, out of range"):
        d.subgraph(np.array([0, 9]), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: subset has a negative entry"):
        d.subgraph(np.array([-1]), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: subset is a mask of 8 nodes .* 9"):
        d.subgraph(np.ones(8, bool), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: subset must be one-dimensional"):
        d.subgraph(np.zeros((2, 2), np.int64), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: subset repeats node ids"):
        d.subgraph(np.array([1, 2, 1]), **kw)
    with pytest.raises(ValueError, match=r"Data\.subgraph: data attribute\(s\) \['y'\]"):
        d.subgraph(np.array([1]))
    with pytest.raises(ValueError, match=r"Data\.subgraph: num_nodes is unknown"):
        Data(edge_index=np.array([[0], [1]])).subgraph(np.array([0]))
    with pytest.raises(ValueError, match=r"Data\.subgraph: edge_index has entry 5"):
        Data(edge_index=np.array([[0], [5]]), num_nodes=3).subgraph(np.array([0]))
    with pytest.raises(ValueError, match=r"Data\.subgraph: node attribute 'x' must have 9 rows"):
        Data(x=np.zeros((3, 1)), num_nodes=9).subgraph(np.array([0]))


# ------------------------------------------------------------------ edge_subgraph


@pytest.mark.parametrize("ei_dtype", INT)
@pytest.mark.parametrize("f_dtype", FLOAT)
@pytest.mark.parametrize("form", ["ids", "mask"])
def test_edge_subgraph_matches_pyg(ei_dtype, f_dtype, form):
    torch = _torch()
    d = random_data(4, ei_dtype, f_dtype)
    snap = snapshot(d)
    rng = np.random.default_rng(6)
    if form == "ids":
        subset = rng.integers(0, d.num_edges, 10)  # unsorted, repeats (PyG's index_select)
    else:
        subset = rng.random(d.num_edges) < 0.5
    out = d.edge_subgraph(subset, graph_attrs=["y"])
    ref = to_pyg(d).edge_subgraph(torch.from_numpy(subset))
    assert_matches_pyg(out, ref)
    assert out.edge_index.dtype == ei_dtype and out.num_nodes == d.num_nodes
    assert out.x is d.x
    assert_unchanged(d, snap)


def test_edge_subgraph_empty_and_errors():
    d = Data(edge_index=np.zeros((2, 0), np.int32), num_nodes=2)
    out = d.edge_subgraph(np.zeros(0, bool))
    assert out.edge_index.shape == (2, 0) and out.edge_index.dtype == np.int32
    assert out.num_nodes == 2
    d = random_data(5)
    kw = {"graph_attrs": ["y"]}
    with pytest.raises(ValueError, match=r"Data\.edge_subgraph: subset is a mask of 3 edges .* 23"):
        d.edge_subgraph(np.ones(3, bool), **kw)
    with pytest.raises(ValueError, match=r"Data\.edge_subgraph: subset has entry 23"):
        d.edge_subgraph(np.array([23]), **kw)
    with pytest.raises(TypeError, match=r"Data\.edge_subgraph: subset must be an integer"):
        d.edge_subgraph(np.array([1.0]), **kw)
    with pytest.raises(ValueError, match=r"Data\.edge_subgraph: data attribute\(s\) \['y'\]"):
        d.edge_subgraph(np.array([1]))


# ------------------------------------------------------------------ structure tests


def _undirected(seed, ei_dtype, with_attr):
    rng = np.random.default_rng(seed)
    n = 7
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, (12, 2)) if a < b}
    ei = np.array(sorted(pairs)).T
    attr = rng.standard_normal((ei.shape[1], 2))
    ei = np.concatenate([ei, ei[::-1], [[4], [4]]], 1).astype(ei_dtype)
    kw = {"edge_attr": np.concatenate([attr, attr, [[0.0, 1.0]]])} if with_attr else {}
    return Data(edge_index=ei, num_nodes=n + 1, **kw)


@pytest.mark.parametrize("ei_dtype", INT)
@pytest.mark.parametrize("seed", range(4))
def test_structure_tests_match_pyg(ei_dtype, seed):
    cases = [
        random_data(seed, ei_dtype),
        random_data(seed, ei_dtype, loops=False, multi=False),
        _undirected(seed, ei_dtype, True),
        _undirected(seed, ei_dtype, False),
        Data(edge_index=np.zeros((2, 0), ei_dtype), num_nodes=0),
        Data(edge_index=np.zeros((2, 0), ei_dtype), num_nodes=3),
        Data(edge_index=np.array([[0, 1, 1, 0], [1, 0, 0, 1]], ei_dtype), num_nodes=2),
    ]
    flipped = _undirected(seed, ei_dtype, True)
    flipped.edge_attr = flipped.edge_attr.copy()
    flipped.edge_attr[0, 0] += 1.0  # the reverse edge's features differ
    cases.append(flipped)
    for d in cases:
        snap = snapshot(d)
        ref = to_pyg(d)
        for name in ("is_undirected", "is_directed", "has_isolated_nodes", "has_self_loops"):
            assert getattr(d, name)() == getattr(ref, name)(), name
        assert d.is_coalesced() == ref.is_coalesced()
        assert_unchanged(d, snap)
    assert cases[2].is_undirected() and not flipped.is_undirected()


def test_structure_tests_edge_weight_is_not_compared():
    d = Data(edge_index=np.array([[0, 1], [1, 0]]), edge_weight=np.array([1.0, 2.0]), num_nodes=2)
    assert d.is_undirected() == to_pyg(d).is_undirected() is True


def test_structure_tests_errors():
    d = Data(x=np.zeros((3, 1)))
    for name in ("is_undirected", "is_directed", "has_isolated_nodes", "has_self_loops"):
        where = "is_undirected" if name == "is_directed" else name
        with pytest.raises(ValueError, match=rf"Data\.{where}: the graph has no edge_index"):
            getattr(d, name)()
    assert d.is_coalesced()  # PyG's: no edge_index
    no_n = Data(edge_index=np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match=r"Data\.has_isolated_nodes: num_nodes is unknown"):
        no_n.has_isolated_nodes()
    assert no_n.is_undirected() and not no_n.has_self_loops()  # need no node count
    bad = Data(edge_index=np.array([[0, 4], [1, 0]]), num_nodes=3)
    with pytest.raises(ValueError, match=r"Data\.has_self_loops: edge_index has entry 4"):
        bad.has_self_loops()
    with pytest.raises(TypeError, match=r"Data\.is_undirected: edge_index must be an integer"):
        Data(edge_index=np.zeros((2, 1)), num_nodes=1).is_undirected()
    with pytest.raises(ValueError, match=r"Data\.is_coalesced: edge_index must have shape"):
        Data(edge_index=np.zeros((3, 1), np.int64), num_nodes=1).is_coalesced()
    with pytest.raises(ValueError, match=r"Data\.is_undirected: edge_attr must have one row"):
        Data(edge_index=np.array([[0], [0]]), edge_attr=np.zeros(2), num_nodes=1).is_undirected()


# ------------------------------------------------------------------ coalesce


@pytest.mark.parametrize("ei_dtype", INT)
@pytest.mark.parametrize("f_dtype", FLOAT)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max"])
def test_coalesce_matches_pyg(ei_dtype, f_dtype, reduce):
    torch = _torch()
    from torch_geometric.utils import coalesce as pyg_coalesce

    d = random_data(7, ei_dtype, f_dtype)
    d.edge_index = np.concatenate([d.edge_index, d.edge_index[:, :5]], 1)
    d.edge_attr = np.concatenate([d.edge_attr, d.edge_attr[:5] * 2])
    d.edge_weight = np.concatenate([d.edge_weight, d.edge_weight[:5] + 1])
    snap = snapshot(d)
    out = d.coalesce(graph_attrs=["y"], reduce=reduce)
    assert out.is_coalesced() and not d.is_coalesced()
    assert out.edge_index.dtype == ei_dtype and out.edge_attr.dtype == f_dtype
    ref_ei, (ref_attr, ref_w) = pyg_coalesce(
        torch.from_numpy(d.edge_index),
        [torch.from_numpy(d.edge_attr), torch.from_numpy(d.edge_weight)],
        d.num_nodes,
        reduce=reduce,
    )
    np.testing.assert_array_equal(out.edge_index, ref_ei.numpy())
    np.testing.assert_allclose(out.edge_attr, ref_attr.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out.edge_weight, ref_w.numpy(), rtol=1e-6)
    if reduce == "sum":  # PyG's Data.coalesce: edge_index, edge_attr (edge_weight not moved)
        ref = to_pyg(d).coalesce()
        np.testing.assert_array_equal(out.edge_index, ref.edge_index.numpy())
        np.testing.assert_allclose(out.edge_attr, ref.edge_attr.numpy(), rtol=1e-6)
    assert out.x is d.x and out.y is d.y
    assert_unchanged(d, snap)


def test_coalesce_edge_cases():
    d = Data(x=np.zeros((2, 1)))
    out = d.coalesce()
    assert out is not d and out.x is d.x
    d = Data(edge_index=np.zeros((2, 0), np.int32), num_nodes=0)
    out = d.coalesce()
    assert out.edge_index.shape == (2, 0) and out.edge_index.dtype == np.int32
    d = Data(edge_index=np.array([[2, 0, 2], [1, 1, 1]]))  # num_nodes unknown: stays unknown
    out = d.coalesce()
    assert out.edge_index.tolist() == [[0, 2], [1, 1]] and out.num_nodes is None
    assert d.is_coalesced() is False and out.is_coalesced() is True


def test_coalesce_errors():
    d = Data(edge_index=np.array([[0, 0], [1, 1]]), mask=np.array([True, False]), num_nodes=2)
    with pytest.raises(ValueError, match=r"Data\.coalesce: data attribute\(s\) \['mask'\]"):
        d.coalesce()
    with pytest.raises(TypeError, match=r"Data\.coalesce: edge attribute 'mask' must be a numeric"):
        d.coalesce(edge_attrs=["mask"])
    with pytest.raises(ValueError, match=r"Data\.coalesce: reduce must be one of"):
        d.coalesce(edge_attrs=[], graph_attrs=["mask"], reduce="median")
    with pytest.raises(ValueError, match=r"Data\.coalesce: edge_index has entry 1, out of range"):
        Data(edge_index=np.array([[0], [1]]), num_nodes=1).coalesce()


# ------------------------------------------------------------------ small helpers


@pytest.mark.parametrize(
    "kwargs",
    [
        {"x": np.zeros((4, 3)), "edge_attr": np.zeros((5, 2)), "edge_index": np.zeros((2, 5), int)},
        {"x": np.zeros(4), "edge_attr": np.zeros(5)},
        {"edge_index": np.zeros((2, 5), int), "num_nodes": 4},
        {},
    ],
)
def test_feature_counts_and_size_match_pyg(kwargs):
    d = Data(**kwargs)
    ref = to_pyg(d)
    assert d.num_node_features == ref.num_node_features
    assert d.num_features == ref.num_features
    assert d.num_edge_features == ref.num_edge_features
    if d.num_nodes is not None:
        assert d.size() == ref.size() and d.size(0) == ref.size(0) and d.size(-1) == ref.size(-1)


def test_feature_counts_read_only_x_and_edge_attr():
    d = Data(pos=np.zeros((4, 3)), edge_weight=np.zeros((5, 2)))
    assert (d.num_node_features, d.num_edge_features) == (0, 0)
    assert d.size() == (4, 4)  # num_nodes from pos, as PyG


def test_update_matches_pyg():
    d = Data(x=np.zeros((2, 1)), a=1, b=2)
    ref = to_pyg(d)
    other = Data(b=3, c=np.ones(2))
    snap = snapshot(other)
    assert d.update(other) is d
    ref.update(to_pyg(other))
    assert_matches_pyg(d, ref)
    assert d.c is other.c
    assert_unchanged(other, snap)
    assert d.update({"a": None, "z": 0}) is d
    assert "a" not in d and d.z == 0
    with pytest.raises(TypeError, match="keys are strings"):
        d.update({1: 2})


# ------------------------------------------------------------------ to_heterogeneous


def _hetero(ei_dtype=np.int64) -> HeteroData:
    rng = np.random.default_rng(0)
    h = HeteroData()
    h["paper"].x = rng.standard_normal((5, 3)).astype(np.float32)
    h["author"].x = rng.standard_normal((4, 3)).astype(np.float32)
    h["paper", "cites", "paper"].edge_index = rng.integers(0, 5, (2, 7)).astype(ei_dtype)
    h["paper", "cites", "paper"].edge_attr = rng.standard_normal((7, 2))
    h["author", "writes", "paper"].edge_index = np.stack(
        [rng.integers(0, 4, 6), rng.integers(0, 5, 6)]
    ).astype(ei_dtype)
    h["author", "writes", "paper"].edge_attr = rng.standard_normal((6, 2))
    h.y = np.array([3.0])
    return h


def assert_same_hetero(ours: HeteroData, theirs, graph_keys=("y",)) -> None:
    assert ours.node_types == theirs.node_types
    assert ours.edge_types == theirs.edge_types
    for t in ours.node_types + ours.edge_types:
        assert sorted(ours[t].keys()) == sorted(theirs[t].keys()), t
        for k in ours[t].keys():
            a, b = ours[t][k], theirs[t][k]
            if isinstance(a, np.ndarray):
                b = b.numpy()
                assert a.dtype == b.dtype, (t, k)
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b
    for k in graph_keys:
        np.testing.assert_array_equal(ours[k], theirs[k].numpy())


@pytest.mark.parametrize("ei_dtype", INT)
def test_to_heterogeneous_round_trip_matches_pyg(ei_dtype):
    torch = _torch()
    h = _hetero(ei_dtype)
    d = h.to_homogeneous()
    snap = snapshot(d)
    out = d.to_heterogeneous(graph_attrs=["y"])  # names left by to_homogeneous
    assert out.metadata() == h.metadata()
    for t in h.node_types + h.edge_types:
        for k in h[t].keys():
            assert out[t][k].dtype == h[t][k].dtype
            np.testing.assert_array_equal(out[t][k], h[t][k])
    ref = to_pyg(d).to_heterogeneous(
        torch.from_numpy(d.node_type),
        torch.from_numpy(d.edge_type),
        d.node_type_names,
        d.edge_type_names,
    )
    assert_same_hetero(out, ref)
    assert_unchanged(d, snap)


def test_to_heterogeneous_default_names_match_pyg():
    d = Data(
        x=np.arange(5.0)[:, None],
        edge_index=np.array([[0, 1, 3, 4, 2], [1, 0, 4, 4, 3]]),
        edge_attr=np.arange(5.0),
        node_type=np.array([0, 0, 1, 1, 1]),
        edge_type=np.array([0, 0, 1, 1, 2]),
        y=np.array([3.0]),
    )
    out = d.to_heterogeneous(graph_attrs=["y"])
    assert out.metadata() == (["0", "1"], [("0", "0", "0"), ("1", "1", "1"), ("1", "2", "1")])
    assert_same_hetero(out, to_pyg(d).to_heterogeneous())
    one = Data(x=np.zeros((3, 2)), edge_index=np.array([[0, 2], [1, 1]], np.int32))
    out = one.to_heterogeneous()  # no types: one node type, one edge type
    assert out.metadata() == (["0"], [("0", "0", "0")])
    assert_same_hetero(out, to_pyg(one).to_heterogeneous(), graph_keys=())


def test_to_heterogeneous_num_nodes_and_errors():
    d = Data(
        pos=np.zeros((3, 2)),
        edge_index=np.array([[0, 2], [2, 1]]),
        node_type=np.array([1, 0, 1]),
        edge_type=np.array([0, 1]),
        num_nodes=3,
    )
    out = d.to_heterogeneous(node_type_names=["a", "b"])
    assert out["a"].num_nodes == 1 and out["b"].num_nodes == 2  # no x: counts given
    assert out["b"].pos.shape == (2, 2) and "pos" in out["b"]
    assert out.edge_types == [("b", "0", "b"), ("b", "1", "a")]
    assert out["b", "1", "a"].edge_index.tolist() == [[1], [0]]
    with pytest.raises(ValueError, match=r"Data\.to_heterogeneous: the destination nodes"):
        d.to_heterogeneous(edge_type=np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"node_type holds 1 but node_type_names lists 1"):
        d.to_heterogeneous(node_type_names=["a"])
    with pytest.raises(ValueError, match=r"Data\.to_heterogeneous: node_type must have shape"):
        d.to_heterogeneous(node_type=np.zeros(2, np.int64))
    with pytest.raises(TypeError, match=r"Data\.to_heterogeneous: node_type must be an integer"):
        d.to_heterogeneous(node_type=np.zeros(3))
    with pytest.raises(ValueError, match=r"join nodes of other node types"):
        d.to_heterogeneous(
            node_type_names=["a", "b"], edge_type_names=[("b", "r", "b"), ("a", "r", "b")]
        )
    with pytest.raises(ValueError, match=r"Data\.to_heterogeneous: data attribute\(s\) \['z'\]"):
        Data(x=np.zeros((2, 1)), z=np.zeros(4)).to_heterogeneous()
    with pytest.raises(ValueError, match=r"Data\.to_heterogeneous: num_nodes is unknown"):
        Data(edge_index=np.array([[0], [1]])).to_heterogeneous()
