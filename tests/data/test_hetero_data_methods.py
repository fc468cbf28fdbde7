"""HeteroData.subgraph / node_type_subgraph / edge_type_subgraph / rename and the
is_undirected / has_isolated_nodes / has_self_loops checks, against PyG's on the same
random heterogeneous graphs, plus inputs left unchanged and the error messages."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from arraygnn import HeteroData

WRITES = ("author", "writes", "paper")
CITES = ("paper", "cites", "paper")
REV = ("paper", "rev_writes", "author")
EMPLOYS = ("inst", "employs", "author")


def random_graph(seed: int = 0, ei_dtype=np.int64) -> HeteroData:
    """paper (x, year), author (x), inst (num_nodes only); an edge type with 0 edges."""
    rng = np.random.default_rng(seed)
    n_p, n_a, n_i = 9, 6, 4
    d = HeteroData()
    d["paper"].x = rng.standard_normal((n_p, 3)).astype(np.float32)
    d["paper"].year = rng.integers(1990, 2020, n_p)
    d["author"].x = rng.standard_normal((n_a, 2)).astype(np.float32)
    d["inst"].num_nodes = n_i

    def edges(n_src, n_dst, e):
        return np.stack([rng.integers(0, n_src, e), rng.integers(0, n_dst, e)]).astype(ei_dtype)

    d[WRITES].edge_index = edges(n_a, n_p, 14)
    d[WRITES].edge_attr = rng.standard_normal((14, 2))
    d[CITES].edge_index = edges(n_p, n_p, 20)
    d[CITES].edge_weight = rng.random(20)
    d[REV].edge_index = d[WRITES].edge_index[::-1].copy()
    d[EMPLOYS].edge_index = np.zeros((2, 0), ei_dtype)
    d[EMPLOYS].edge_attr = np.zeros((0, 5))
    d.y = np.array([1.0])
    return d


def snapshot(d: HeteroData) -> dict:
    out = {"_global": {k: np.array(v, copy=True) for k, v in d._global.items()}}
    for t, s in list(d._nodes.items()) + list(d._edges.items()):
        out[t] = {k: np.array(v, copy=True) for k, v in s._mapping.items()}
    return out


def assert_same_snapshot(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for t in a:
        assert list(a[t]) == list(b[t]), t
        for k in a[t]:
            assert a[t][k].dtype == b[t][k].dtype
            np.testing.assert_array_equal(a[t][k], b[t][k])


# ------------------------------------------------------------------ against PyG


def _pyg():
    pytest.importorskip("torch")
    return pytest.importorskip("torch_geometric.data")


def to_pyg(d: HeteroData):
    import torch

    pyg = _pyg()
    out = pyg.HeteroData()
    for k, v in d._global.items():
        out[k] = torch.from_numpy(np.array(v))
    for t, s in d.node_items():
        for k, v in s.items():
            out[t][k] = torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v
    for et, s in d.edge_items():
        for k, v in s.items():
            out[et][k] = torch.from_numpy(np.array(v))
    return out


def assert_matches_pyg(ours: HeteroData, theirs) -> None:
    assert ours.node_types == list(theirs.node_types)
    assert ours.edge_types == list(theirs.edge_types)
    for t in ours.node_types:
        assert ours[t].num_nodes == theirs[t].num_nodes, t
        assert sorted(ours[t].keys()) == sorted(theirs[t].keys()), t
        for k, v in ours[t].items():
            if isinstance(v, np.ndarray):
                np.testing.assert_array_equal(v, theirs[t][k].numpy(), err_msg=f"{t} {k}")
    for et in ours.edge_types:
        assert sorted(ours[et].keys()) == sorted(theirs[et].keys()), et
        for k, v in ours[et].items():
            theirs_v = theirs[et][k].numpy()
            np.testing.assert_array_equal(v, theirs_v, err_msg=f"{et} {k}")
            assert v.shape == theirs_v.shape
    for k, v in ours._global.items():
        np.testing.assert_array_equal(v, theirs[k].numpy())


def subsets(seed: int, kind: str, id_dtype) -> dict:
    rng = np.random.default_rng(100 + seed)
    out = {}
    for t, n in (("paper", 9), ("inst", 4)):
        if kind == "mask":
            out[t] = rng.random(n) < 0.6
        else:  # an index array in a random order (PyG keeps the order)
            out[t] = rng.permutation(n)[: max(1, n // 2 + 1)].astype(id_dtype)
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ei_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "kind,id_dtype", [("mask", None), ("index", np.int64), ("index", np.int32)]
)
def test_subgraph_matches_pyg(seed, ei_dtype, kind, id_dtype):
    import torch

    d = random_graph(seed, ei_dtype)
    sub = subsets(seed, kind, id_dtype)
    before, sub_before = snapshot(d), {k: v.copy() for k, v in sub.items()}
    ours = d.subgraph(sub)
    theirs = to_pyg(d).subgraph(
        {k: torch.from_numpy(v.astype(np.int64) if v.dtype != bool else v) for k, v in sub.items()}
    )
    assert_matches_pyg(ours, theirs)
    for et in ours.edge_types:  # ids keep their dtype
        assert ours[et].edge_index.dtype == ei_dtype
    assert_same_snapshot(snapshot(d), before)
    for k in sub:
        np.testing.assert_array_equal(sub[k], sub_before[k])


def test_subgraph_keeps_index_order_and_shares_untouched_arrays():
    d = random_graph(1)
    ours = d.subgraph({"paper": np.array([8, 0, 3])})
    np.testing.assert_array_equal(ours["paper"].x, d["paper"].x[[8, 0, 3]])
    assert ours["author"].x is d["author"].x  # type not in subset_dict: shared
    assert ours[WRITES] is not d[WRITES]  # new stores
    assert ours["inst"].num_nodes == 4 and ours.y is d.y
    assert ours[EMPLOYS].edge_index is d[EMPLOYS].edge_index  # no end in subset_dict
    assert type(ours) is HeteroData


def test_subgraph_of_num_nodes_only_type_and_empty_subsets():
    d = random_graph(2)
    out = d.subgraph({"inst": np.array([], np.int64), "paper": np.zeros(9, bool)})
    assert out["inst"].num_nodes == 0 and out["paper"].num_nodes == 0
    assert out["paper"].x.shape == (0, 3) and out[CITES].edge_index.shape == (2, 0)
    assert out[CITES].edge_weight.shape == (0,) and out[WRITES].edge_attr.shape == (0, 2)
    assert d.subgraph({"inst": [3, 1]})["inst"].num_nodes == 2  # a list is accepted


@pytest.mark.parametrize("seed", range(3))
def test_type_subgraphs_match_pyg(seed):
    d = random_graph(seed)
    before = snapshot(d)
    p = to_pyg(d)
    for types in (["paper"], ["author", "paper"], ["inst", "author"], []):
        assert_matches_pyg(d.node_type_subgraph(types), p.node_type_subgraph(types))
    for types in ([WRITES], [CITES, EMPLOYS], [REV, WRITES], []):
        assert_matches_pyg(d.edge_type_subgraph(types), p.edge_type_subgraph(types))
    # shorthands, as PyG's
    assert d.edge_type_subgraph(["cites"]).edge_types == [CITES]
    assert d.edge_type_subgraph([("inst", "author")]).node_types == ["author", "inst"]
    assert d.node_type_subgraph("paper").metadata() == (["paper"], [CITES])
    assert d.edge_type_subgraph(WRITES).metadata() == (["paper", "author"], [WRITES])
    out = d.node_type_subgraph(["paper"])
    assert out["paper"].x is d["paper"].x and out.y is d.y
    assert_same_snapshot(snapshot(d), before)
    assert d.metadata() == (["paper", "author", "inst"], [WRITES, CITES, REV, EMPLOYS])


def test_rename_matches_pyg():
    d = random_graph(0)
    p = to_pyg(d)
    x = d["author"].x
    assert d.rename("author", "person") is d
    p.rename("author", "person")
    assert_matches_pyg(d, p)
    assert d["person"].x is x and d["person"]._key == "person"
    assert d["person", "writes", "paper"].size() == (6, 9)
    assert ("person", "writes", "paper") in d.edge_types and WRITES not in d.edge_types
    assert d.rename("paper", "paper") is d
    assert_matches_pyg(d.rename("paper", "article"), p.rename("paper", "article"))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ei_dtype", [np.int32, np.int64])
def test_checks_match_pyg(seed, ei_dtype):
    d = random_graph(seed, ei_dtype)
    variants = [d, d.subgraph({"inst": np.array([], np.int64)})]
    und = HeteroData(a={"num_nodes": 3}, b={"num_nodes": 2})  # undirected across two types
    und["a", "r", "b"].edge_index = np.array([[0, 2, 2], [1, 0, 0]], ei_dtype)
    und["b", "q", "a"].edge_index = np.array([[0, 1, 0], [2, 0, 2]], ei_dtype)
    und["a", "s", "a"].edge_index = np.array([[1, 1, 0], [1, 0, 1]], ei_dtype)
    variants += [und, und.node_type_subgraph(["a"]), und.edge_type_subgraph([("a", "r", "b")])]
    loop_only = HeteroData(a={"num_nodes": 3})  # node 2 has only a self-loop: isolated
    loop_only["a", "r", "a"].edge_index = np.array([[0, 1, 2], [1, 0, 2]], ei_dtype)
    loop_only["a", "s", "a"].edge_index = np.array([[0], [1]], ei_dtype)
    variants.append(loop_only)
    dup = HeteroData(a={"num_nodes": 2})  # (0, 1) twice, (1, 0) once: directed, as PyG
    dup["a", "r", "a"].edge_index = np.array([[0, 0, 1], [1, 1, 0]], ei_dtype)
    variants.append(dup)
    for g in variants:
        before = snapshot(g)
        p = to_pyg(g)
        assert g.is_undirected() == p.is_undirected()
        assert g.has_isolated_nodes() == p.has_isolated_nodes()
        assert g.has_self_loops() == p.has_self_loops()
        assert_same_snapshot(snapshot(g), before)
    assert und.is_undirected() and not und.has_isolated_nodes() and und.has_self_loops()
    assert loop_only.has_isolated_nodes() and not dup.is_undirected()


def test_checks_without_any_edges():
    d = HeteroData(a={"num_nodes": 2})
    assert d.is_undirected() and d.has_isolated_nodes() and not d.has_self_loops()
    assert not HeteroData(a={"num_nodes": 0}).has_isolated_nodes()


# ------------------------------------------------------------------ errors
def test_subgraph_errors_name_the_type():
    d = random_graph(0)
    with pytest.raises(KeyError, match="'venue' is not a node type of the graph"):
        d.subgraph({"venue": np.array([0])})
    with pytest.raises(
        ValueError, match="mask of node type 'paper' has length 3 but num_nodes is 9"
    ):
        d.subgraph({"paper": np.ones(3, bool)})
    with pytest.raises(ValueError, match="subset of node type 'inst' holds node id 4, outside"):
        d.subgraph({"inst": np.array([0, 4])})
    with pytest.raises(ValueError, match="subset of node type 'inst' holds node id -1, outside"):
        d.subgraph({"inst": np.array([-1])})
    with pytest.raises(TypeError, match="subset of node type 'paper' must hold integer ids"):
        d.subgraph({"paper": np.array([0.0, 1.0])})
    with pytest.raises(ValueError, match="subset of node type 'paper' repeats node ids"):
        d.subgraph({"paper": np.array([1, 1])})
    with pytest.raises(ValueError, match="subset of node type 'paper' must be 1-D"):
        d.subgraph({"paper": np.zeros((2, 2), np.int64)})
    with pytest.raises(TypeError, match="subset_dict must map node types"):
        d.subgraph(np.array([0]))
    bad = random_graph(0)
    bad[CITES].edge_index = np.array([[0], [9]])
    with pytest.raises(
        ValueError,
        match=r"edge type \('paper', 'cites', 'paper'\): edge_index "
        r"row 1 \(destination 'paper'\) holds node id 9",
    ):
        bad.subgraph({"paper": np.array([0])})
    unknown = HeteroData()
    unknown["a"].edge_attr_like = 1
    with pytest.raises(ValueError, match="num_nodes of node type 'a' is unknown"):
        unknown.subgraph({"a": np.array([0])})


def test_type_subgraph_and_rename_errors():
    d = random_graph(0)
    with pytest.raises(KeyError, match="'venue' is not a node type"):
        d.node_type_subgraph(["paper", "venue"])
    with pytest.raises(KeyError, match=r"\('paper', 'likes', 'paper'\) is not an edge type"):
        d.edge_type_subgraph([("paper", "likes", "paper")])
    with pytest.raises(KeyError, match="'likes' is not an edge type"):
        d.edge_type_subgraph(["likes"])
    with pytest.raises(TypeError, match="give a list of node types"):
        d.node_type_subgraph(3)
    meta = copy.deepcopy(d.metadata())
    with pytest.raises(KeyError, match="rename: 'venue' is not a node type"):
        d.rename("venue", "v")
    with pytest.raises(ValueError, match="rename: 'paper' is already a node type"):
        d.rename("author", "paper")
    with pytest.raises(ValueError, match="rename: 'y' is already a graph-level attribute"):
        d.rename("author", "y")
    with pytest.raises(TypeError, match="rename: node types are strings"):
        d.rename("author", ("a", "b"))
    assert d.metadata() == meta
    bad = HeteroData(a={"num_nodes": 1})
    bad["a", "r", "b"].edge_index = np.zeros((2, 0), np.int64)
    with pytest.raises(
        ValueError,
        match=r"is_undirected: edge type \('a', 'r', 'b'\) uses node "
        "type 'b'",
    ):
        bad.is_undirected()
    with pytest.raises(
        ValueError, match="has_isolated_nodes: num_nodes of node type 'c' is unknown"
    ):
        HeteroData(c={"edge_attr_like": 1}).has_isolated_nodes()
