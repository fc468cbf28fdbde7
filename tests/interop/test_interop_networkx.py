"""NetworkX interop: PyG's to/from_networkx (checked against PyG itself) and DGL's
to/from_networkx as graph_to_networkx / graph_from_networkx (checked against DGL's documented
behaviour by hand)."""

from __future__ import annotations

import copy
import sys

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

from arraygnn.data import Data  # noqa: E402
from arraygnn.graph import graph, heterograph  # noqa: E402
from arraygnn.interop.networkx import (  # noqa: E402
    from_networkx,
    graph_from_networkx,
    graph_to_networkx,
    to_networkx,
)

SIZES = [(0, 0), (1, 0), (4, 0), (1, 3), (5, 12), (20, 60)]


def random_data(seed, n, e, idx=np.int64, trailing=0):
    """A graph with x, edge_attr, edge_weight, a graph-level y, self-loops and parallel edges
    (when there is room) and ``trailing`` isolated nodes at the end."""
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, max(n, 1), (2, e)) if n else np.zeros((2, 0), np.int64)
    if e >= 3:
        ei[:, 1] = ei[0, 1]
        ei[:, 2] = ei[:, 0]
    return Data(
        x=rng.random((n + trailing, 3)).astype(np.float32),
        edge_index=ei.astype(idx),
        edge_attr=rng.random((e, 2)),
        edge_weight=rng.random(e).astype(np.float32),
        y=np.array([seed], np.int64),
    )


def pyg():
    torch = pytest.importorskip("torch")
    tg = pytest.importorskip("torch_geometric")
    import torch_geometric.utils  # noqa: F401

    return torch, tg


def to_pyg_data(torch, tg, d):
    return tg.data.Data(
        x=torch.from_numpy(d.x),
        edge_index=torch.from_numpy(d.edge_index.astype(np.int64)),
        edge_attr=torch.from_numpy(d.edge_attr),
        edge_weight=torch.from_numpy(d.edge_weight),
        y=torch.from_numpy(d.y),
    )


def same_nx(a, b):
    assert type(a) is type(b)
    assert list(a.nodes(data=True)) == list(b.nodes(data=True))
    if a.is_multigraph():
        assert list(a.edges(keys=True, data=True)) == list(b.edges(keys=True, data=True))
    else:
        assert list(a.edges(data=True)) == list(b.edges(data=True))
    assert a.graph == b.graph


# ---------------------------------------------------------------------- PyG: to_networkx
@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("to_undirected", [False, True, "upper", "lower"])
@pytest.mark.parametrize("to_multi", [False, True])
@pytest.mark.parametrize("remove_self_loops", [False, True])
def test_to_networkx_matches_pyg(n, e, to_undirected, to_multi, remove_self_loops):
    torch, tg = pyg()
    d = random_data(n + e, n, e)
    kwargs = dict(
        node_attrs=["x"],
        edge_attrs=["edge_attr", "edge_weight"],
        graph_attrs=["y"],
        to_undirected=to_undirected,
        to_multi=to_multi,
        remove_self_loops=remove_self_loops,
    )
    ours = to_networkx(d, **kwargs)
    ref = tg.utils.to_networkx(to_pyg_data(torch, tg, d), **kwargs)
    same_nx(ours, ref)


@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_to_networkx_keeps_trailing_isolated_nodes(idx):
    torch, tg = pyg()
    d = random_data(1, 4, 6, idx, trailing=3)
    G = to_networkx(d)
    assert G.number_of_nodes() == 7 and list(G.nodes) == list(range(7))
    ref = tg.utils.to_networkx(to_pyg_data(torch, tg, d))
    same_nx(G, ref)
    bare = Data(edge_index=np.array([[0], [1]], idx), num_nodes=5)
    assert sorted(to_networkx(bare).nodes) == [0, 1, 2, 3, 4]


def test_to_networkx_values_are_python():
    d = Data(
        x=np.array([[1, 2], [3, 4]], np.int32),
        score=np.array([0.5, 1.5]),
        names=["a", "b"],
        edge_index=np.array([[0], [1]]),
        label="mol",
        n_atoms=np.int64(2),
    )
    G = to_networkx(d, node_attrs=["x", "score", "names"], graph_attrs=["label", "n_atoms"])
    assert G.nodes[1] == {"x": [3, 4], "score": 1.5, "names": "b"}
    assert type(G.nodes[1]["score"]) is float and type(G.graph["n_atoms"]) is int
    assert G.graph == {"label": "mol", "n_atoms": 2}


def test_to_networkx_without_edge_index_has_no_edges():
    G = to_networkx(Data(x=np.zeros((3, 1))))
    assert G.number_of_nodes() == 3 and G.number_of_edges() == 0


def test_to_networkx_bad_inputs_name_the_argument():
    d = random_data(0, 4, 5)
    with pytest.raises(ValueError, match="num_nodes"):
        to_networkx(Data(edge_index=np.array([[0], [1]])))
    with pytest.raises(ValueError, match="to_undirected"):
        to_networkx(d, to_undirected="both")
    with pytest.raises(TypeError, match="to_undirected"):
        to_networkx(d, to_undirected=1)
    with pytest.raises(ValueError, match="node_attrs"):
        to_networkx(d, node_attrs=["missing"])
    with pytest.raises(ValueError, match="node_attrs"):
        to_networkx(d, node_attrs=["edge_attr"])  # one row per edge, not per node
    with pytest.raises(ValueError, match="edge_attrs"):
        to_networkx(d, edge_attrs=["x"])
    with pytest.raises(ValueError, match="graph_attrs"):
        to_networkx(d, graph_attrs=["missing"])
    with pytest.raises(TypeError, match="node_attrs"):
        to_networkx(d, node_attrs="x")
    with pytest.raises(TypeError, match="Data"):
        to_networkx({"edge_index": d.edge_index})
    with pytest.raises(ValueError, match="edge_index"):
        to_networkx(Data(edge_index=np.array([[0], [9]]), num_nodes=3))
    with pytest.raises(ValueError, match="edge_index"):
        to_networkx(Data(edge_index=np.array([[0], [-1]]), num_nodes=3))
    with pytest.raises(TypeError, match="edge_index"):
        to_networkx(Data(edge_index=np.array([[0.0], [1.0]]), num_nodes=3))
    with pytest.raises(ValueError, match="edge_index"):
        to_networkx(Data(edge_index=np.zeros((3, 2), np.int64), num_nodes=3))


def test_to_networkx_does_not_mutate_data():
    d = random_data(3, 6, 10)
    before = {k: copy.deepcopy(v) for k, v in d.items()}
    G = to_networkx(d, node_attrs=["x"], edge_attrs=["edge_attr"], to_undirected=True)
    G.nodes[0]["x"][0] = 99.0
    assert d.keys() == list(before)
    for k, v in before.items():
        np.testing.assert_array_equal(d[k], v)


# ---------------------------------------------------------------------- PyG: from_networkx
def nx_graphs():
    """NetworkX graphs of every class, with node / edge / graph attributes."""
    rng = np.random.default_rng(0)
    out = []
    for cls in (nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph):
        G = cls(name="g", value=3)
        labels = ["n3", "n0", "n9", "n1", "n4", "n2"]  # not sorted: G.nodes order counts
        for i, v in enumerate(labels):
            G.add_node(v, feat=[float(i), 1.0], cls=i, emb=rng.random(2))
        pairs = [(0, 1), (2, 1), (1, 2), (3, 3), (0, 1), (4, 0), (1, 0)]
        for a, b in pairs:
            G.add_edge(labels[a], labels[b], weight=float(a + b), cls=a)
        out.append(G)
    return out


def compare_with_pyg(torch, ours, ref):
    assert sorted(ours.keys()) == sorted(ref.keys())
    assert ours.num_nodes == ref.num_nodes
    for key in ref.keys():
        want = ref[key]
        got = ours[key]
        if isinstance(want, torch.Tensor):
            assert isinstance(got, np.ndarray), key
            assert str(want.dtype).removeprefix("torch.") == str(got.dtype), key
            np.testing.assert_array_equal(got, want.numpy(), err_msg=key)
        else:
            assert got == want, key


@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")
@pytest.mark.parametrize("which", range(4))
@pytest.mark.parametrize(
    "group",
    [
        (None, None),
        (["feat", "cls"], ["weight"]),
        ("all", "all"),
        (["emb"], ["cls", "weight"]),
    ],
)
def test_from_networkx_matches_pyg(which, group):
    torch, tg = pyg()
    G = nx_graphs()[which]
    ours = from_networkx(G, *group)
    ref = tg.utils.from_networkx(G, *group)
    compare_with_pyg(torch, ours, ref)
    assert ours.edge_index.dtype == np.int64


@pytest.mark.parametrize(
    "build",
    [
        lambda: nx.Graph(),
        lambda: nx.DiGraph(nx.path_graph(0)),
        lambda: nx.empty_graph(4),
        lambda: nx.empty_graph(3, create_using=nx.DiGraph),
        lambda: nx.path_graph(5),
        lambda: nx.karate_club_graph(),
        lambda: nx.MultiDiGraph([(0, 1), (0, 1), (1, 1)]),
        lambda: nx.les_miserables_graph(),
        lambda: nx.relabel_nodes(nx.path_graph(4), {0: 3, 1: 0, 2: 2, 3: 1}),
        lambda: nx.DiGraph([(5, 1), (1, 7)]),
    ],
)
def test_from_networkx_structure_matches_pyg(build):
    torch, tg = pyg()
    G = build()
    ours, ref = from_networkx(G), tg.utils.from_networkx(G)
    compare_with_pyg(torch, ours, ref)
    assert ours.num_nodes == G.number_of_nodes()


def test_from_networkx_x_attribute_gives_num_nodes_like_pyg():
    torch, tg = pyg()
    G = nx.path_graph(3)
    nx.set_node_attributes(G, {0: [1.0], 1: [2.0], 2: [3.0]}, "x")
    ours, ref = from_networkx(G), tg.utils.from_networkx(G)
    compare_with_pyg(torch, ours, ref)
    assert "num_nodes" not in ours and ours.num_nodes == 3 and ours.x.dtype == np.float32


def test_from_networkx_dtypes_follow_torch():
    G = nx.DiGraph()
    G.add_node(0, f=1.0, i=1, b=True, n=np.float64(1.0), a=np.array([1, 2], np.int16), s="x")
    G.add_node(1, f=2.0, i=2, b=False, n=np.float64(2.0), a=np.array([3, 4], np.int16), s="y")
    d = from_networkx(G)
    assert d.f.dtype == np.float32 and d.i.dtype == np.int64 and d.b.dtype == np.bool_
    assert d.n.dtype == np.float64 and d.a.dtype == np.int16 and d.a.shape == (2, 2)
    assert d.s == ["x", "y"]  # not numeric: a list, as PyG
    x = from_networkx(G, group_node_attrs=["i", "f"]).x
    assert x.dtype == np.float32 and x.tolist() == [[1.0, 1.0], [2.0, 2.0]]  # torch.cat's rule


def test_from_networkx_name_clashes_follow_pyg():
    torch, tg = pyg()
    G = nx.Graph(weight=7)
    G.add_node(0, weight=1.0)
    G.add_node(1, weight=2.0)
    G.add_edge(0, 1, weight=5.0)
    ours, ref = from_networkx(G), tg.utils.from_networkx(G)
    compare_with_pyg(torch, ours, ref)
    assert ours.edge_weight.tolist() == [5.0, 5.0] and ours.graph_weight.tolist() == 7
    ours = from_networkx(G, group_edge_attrs=["weight"])  # edge_weight, as PyG renames it
    assert ours.edge_attr.tolist() == [[5.0], [5.0]] and "edge_weight" not in ours


def test_from_networkx_bad_inputs_name_the_argument():
    with pytest.raises(TypeError, match="G must be a NetworkX graph"):
        from_networkx({0: [1]})
    G = nx.Graph()
    G.add_node(0, a=1)
    G.add_node(1, b=1)
    with pytest.raises(ValueError, match="nodes"):
        from_networkx(G)
    G = nx.Graph()
    G.add_edge(0, 1, a=1)
    G.add_edge(1, 2, b=1)
    with pytest.raises(ValueError, match="edges"):
        from_networkx(G)
    G = nx.path_graph(3)
    nx.set_node_attributes(G, {0: "a", 1: "b", 2: "c"}, "name")
    with pytest.raises(ValueError, match="group_node_attrs"):
        from_networkx(G, group_node_attrs=["name"])
    with pytest.raises(ValueError, match="group_node_attrs"):
        from_networkx(G, group_node_attrs=["missing"])
    with pytest.raises(TypeError, match="group_node_attrs"):
        from_networkx(G, group_node_attrs="name")
    G = nx.Graph(w=1)
    G.add_edge(0, 1, w=2.0)
    with pytest.raises(ValueError, match="graph attribute"):
        from_networkx(G)


def _snapshot(G):
    def plain(attrs):
        return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in attrs.items()}

    edges = G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)
    return (
        [(v, plain(a)) for v, a in G.nodes(data=True)],
        [(*e[:-1], plain(e[-1])) for e in edges],
        plain(G.graph),
    )


def test_from_networkx_does_not_mutate_the_graph():
    for G in nx_graphs():
        before = _snapshot(G)
        d = from_networkx(G, group_node_attrs=["emb"], group_edge_attrs=["weight"])
        d.x[:] = -1
        d.cls[:] = -1
        assert _snapshot(G) == before
        assert not any(np.shares_memory(d.x, a) for _, a in G.nodes(data="emb"))


def multidigraph_order(edge_index):
    """The order a MultiDiGraph lists edges added in ``edge_index`` order: sources in node
    order, then targets in order of first appearance, then parallel edges in order."""
    by_src = {}
    for i, (u, v) in enumerate(edge_index.T.tolist()):
        by_src.setdefault(u, {}).setdefault(v, []).append(i)
    return [i for u in sorted(by_src) for ids in by_src[u].values() for i in ids]


@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_round_trip_through_networkx(n, e, idx):
    d = random_data(7 * e + n, n, e, idx, trailing=2)
    G = to_networkx(d, node_attrs=["x"], edge_attrs=["edge_attr"], to_multi=True)
    back = from_networkx(G)
    assert back.num_nodes == n + 2
    order = multidigraph_order(d.edge_index)
    np.testing.assert_array_equal(back.edge_index, d.edge_index[:, order])
    assert back.edge_index.dtype == np.int64
    if n + 2:
        np.testing.assert_allclose(back.x, d.x)
    if e:
        np.testing.assert_allclose(back.edge_attr, d.edge_attr[order])


# ---------------------------------------------------------------------- DGL: graph_to_networkx
def test_graph_to_networkx_follows_dgl_homogeneous():
    g = graph((np.array([1, 2, 1]), np.array([1, 3, 1])), num_nodes=6)
    g.ndata["h"] = np.zeros((6, 1))
    g.ndata["s"] = np.arange(6.0)
    g.edata["h1"] = np.ones((3, 1))
    g.edata["h2"] = np.zeros((3, 2))
    G = graph_to_networkx(g, node_attrs=["h", "s"], edge_attrs=["h1", "h2"])
    assert isinstance(G, nx.MultiDiGraph) and list(G.nodes) == list(range(6))
    assert G.number_of_edges() == 3  # the parallel edge stays
    edges = list(G.edges(data=True))
    assert [(u, v, a["id"]) for u, v, a in edges] == [(1, 1, 0), (1, 1, 2), (2, 3, 1)]
    assert all(isinstance(a["h1"], np.ndarray) and a["h1"].tolist() == [1.0] for *_, a in edges)
    assert G.nodes[5]["h"].tolist() == [0.0] and G.nodes[5]["s"] == 5.0
    G.nodes[0]["h"][0] = 7.0  # NetworkX holds copies
    assert g.ndata["h"][0, 0] == 0.0
    plain = graph_to_networkx(g)
    assert list(plain.edges(data=True))[0][2] == {"id": 0} and plain.nodes[0] == {}


def test_graph_to_networkx_follows_dgl_heterogeneous():
    # DGL's docstring example of dgl.to_networkx, output written out by DGL there
    g = heterograph(
        {
            ("user", "follows", "user"): (np.array([0, 1]), np.array([1, 2])),
            ("user", "follows", "topic"): (np.array([1, 1]), np.array([1, 2])),
            ("user", "plays", "game"): (np.array([0, 3]), np.array([3, 4])),
        }
    )
    g.nodes["game"].data["n"] = np.zeros((5, 1))
    g.nodes["user"].data["n"] = np.ones((4, 1))
    g.edges[("user", "follows", "user")].data["e"] = np.zeros((2, 1))
    g.edges["plays"].data["e"] = np.ones((2, 1))
    G = graph_to_networkx(g, node_attrs=["n"], edge_attrs=["e"])
    nodes = {
        v: {k: (a.tolist() if k == "n" else a) for k, a in d.items()} for v, d in G.nodes(data=True)
    }
    assert nodes == {
        **{i: {"ntype": "game", "n": [0.0]} for i in range(5)},
        **{i: {"ntype": "topic"} for i in range(5, 8)},
        **{i: {"ntype": "user", "n": [1.0]} for i in range(8, 12)},
    }
    edges = [
        (u, v, {k: (a.tolist() if k == "e" else a) for k, a in d.items()})
        for u, v, d in G.edges(data=True)
    ]
    assert edges == [
        (8, 9, {"id": 2, "etype": ("user", "follows", "user"), "e": [0.0]}),
        (8, 3, {"id": 4, "etype": ("user", "plays", "game"), "e": [1.0]}),
        (9, 6, {"id": 0, "etype": ("user", "follows", "topic")}),
        (9, 7, {"id": 1, "etype": ("user", "follows", "topic")}),
        (9, 10, {"id": 3, "etype": ("user", "follows", "user"), "e": [0.0]}),
        (11, 4, {"id": 5, "etype": ("user", "plays", "game"), "e": [1.0]}),
    ]
    G = graph_to_networkx(g, ntype_attr="t", etype_attr="r", eid_attr="eid")
    assert G.nodes[0] == {"t": "game"} and G.edges[8, 9, 0] == {
        "eid": 2,
        "r": g.canonical_etypes[1],
    }
    with pytest.raises(ValueError, match="ntype_attr"):
        graph_to_networkx(g, node_attrs=["ntype"])
    with pytest.raises(ValueError, match="etype_attr"):
        graph_to_networkx(g, edge_attrs=["etype"])


def test_graph_to_networkx_empty_and_errors():
    g = graph((np.zeros(0, np.int64), np.zeros(0, np.int64)), num_nodes=0)
    G = graph_to_networkx(g)
    assert G.number_of_nodes() == 0 and G.number_of_edges() == 0
    g = graph((np.array([0]), np.array([1])))
    with pytest.raises(ValueError, match="node_attrs"):
        graph_to_networkx(g, node_attrs=["missing"])
    with pytest.raises(ValueError, match="eid_attr"):
        g.edata["id"] = np.zeros(1)
        graph_to_networkx(g, edge_attrs=["id"])
    with pytest.raises(TypeError, match="Graph"):
        graph_to_networkx(Data(edge_index=np.array([[0], [1]]), num_nodes=2))


# ---------------------------------------------------------------------- DGL: graph_from_networkx
def test_graph_from_networkx_follows_dgl():
    # DGL's docstring example of dgl.from_networkx
    G = nx.DiGraph()
    G.add_nodes_from([0, 1, 2], feat1=np.zeros((3, 1)), feat2=np.ones((3, 1)))
    G.add_edge(1, 2, weight=np.ones((1, 1)), eid=np.array([1]))
    G.add_edge(2, 1, weight=np.ones((1, 1)), eid=np.array([0]))
    g = graph_from_networkx(G)
    assert g.num_nodes() == 3 and [a.tolist() for a in g.edges()] == [[1, 2], [2, 1]]
    assert g.idtype == np.int64
    g = graph_from_networkx(G, node_attrs=["feat1", "feat2"], edge_attrs=["weight"])
    assert g.ndata["feat1"].shape == (3, 3, 1) and g.ndata["feat2"].dtype == np.float64
    assert g.edata["weight"].shape == (2, 1, 1)
    g = graph_from_networkx(G, edge_id_attr_name="eid")
    assert [a.tolist() for a in g.edges()] == [[2, 1], [1, 2]]


def test_graph_from_networkx_sorted_relabelling_and_undirected():
    G = nx.Graph()
    G.add_node("c", v=3.0)
    G.add_node("a", v=1.0)
    G.add_node("b", v=2.0)
    G.add_edge("c", "a", w=5)
    G.add_edge("a", "b", w=6)
    g = graph_from_networkx(G, node_attrs=["v"], edge_attrs=["w"], idtype="int32")
    assert g.ndata["v"].tolist() == [1.0, 2.0, 3.0] and g.ndata["v"].dtype == np.float32
    assert g.idtype == np.int32 and g.num_edges() == 4
    H = nx.convert_node_labels_to_integers(G, ordering="sorted").to_directed()
    assert [a.tolist() for a in g.edges()] == [list(x) for x in zip(*H.edges())]
    pairs = {(u, v): w for u, v, w in zip(*[a.tolist() for a in g.edges()], g.edata["w"])}
    assert pairs == {(2, 0): 5, (0, 2): 5, (0, 1): 6, (1, 0): 6}  # both directions
    with pytest.raises(ValueError, match="edge_id_attr_name"):
        graph_from_networkx(G, edge_id_attr_name="w")
    mixed = nx.Graph([(1, "a")])
    with pytest.raises(TypeError, match="sortable"):
        graph_from_networkx(mixed)


@pytest.mark.parametrize("n,e", SIZES)
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_graph_round_trip_through_networkx(n, e, idtype):
    d = random_data(5 * e + n, n, e, idtype)
    g = graph((d.edge_index[0], d.edge_index[1]), num_nodes=n)
    g.ndata["x"] = d.x
    g.edata["w"] = d.edge_weight
    g.edata["a"] = d.edge_attr
    G = graph_to_networkx(g, node_attrs=["x"], edge_attrs=["w", "a"])
    h = graph_from_networkx(G, ["x"], ["w", "a"], edge_id_attr_name="id", idtype=idtype)
    assert h.num_nodes() == n and h.idtype == idtype
    assert [a.tolist() for a in h.edges()] == d.edge_index.tolist()
    if n:  # without rows NetworkX keeps no trace of a feature's trailing shape or dtype
        np.testing.assert_array_equal(h.ndata["x"], d.x)
        assert h.ndata["x"].dtype == np.float32
    if e:
        np.testing.assert_array_equal(h.edata["w"], d.edge_weight)
        np.testing.assert_array_equal(h.edata["a"], d.edge_attr)
        assert h.edata["a"].dtype == np.float64
    assert h.ndata["x"].shape[0] == n and h.edata["a"].shape[0] == e


def test_graph_from_networkx_errors():
    G = nx.DiGraph([(0, 1), (1, 2)])
    nx.set_edge_attributes(G, {(0, 1): 0, (1, 2): 0}, "eid")
    with pytest.raises(ValueError, match="edge_id_attr_name"):
        graph_from_networkx(G, edge_id_attr_name="eid")  # not a permutation
    with pytest.raises(ValueError, match="edge_id_attr_name"):
        graph_from_networkx(G, edge_id_attr_name="missing")
    with pytest.raises(ValueError, match="node_attrs"):
        graph_from_networkx(G, node_attrs=["missing"])
    with pytest.raises(ValueError, match="edge_attrs"):
        graph_from_networkx(G, edge_attrs=["missing"])
    nx.set_node_attributes(G, "txt", "name")
    with pytest.raises(ValueError, match="node_attrs"):
        graph_from_networkx(G, node_attrs=["name"])
    with pytest.raises(TypeError, match="nx_graph"):
        graph_from_networkx([(0, 1)])
    with pytest.raises(ValueError, match="idtype"):
        graph_from_networkx(G, idtype=np.uint8)
    empty = graph_from_networkx(nx.DiGraph(), node_attrs=[], edge_id_attr_name="id")
    assert empty.num_nodes() == 0 and empty.num_edges() == 0


# ---------------------------------------------------------------------- optional import
def test_missing_networkx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(ImportError, match=r"arraygnn\[networkx\]"):
        to_networkx(Data(num_nodes=1))
    with pytest.raises(ImportError, match=r"arraygnn\[networkx\]"):
        graph_from_networkx(object())


# ---------------------------------------------------------------------- CuPy
def test_cupy_data_goes_to_host():  # pragma: no cover - needs a GPU
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("no CUDA device")
    d = random_data(0, 5, 9)
    G = to_networkx(d.to("cuda"), node_attrs=["x"], edge_attrs=["edge_weight"])
    same_nx(G, to_networkx(d, node_attrs=["x"], edge_attrs=["edge_weight"]))
    g = graph((d.edge_index[0], d.edge_index[1]), num_nodes=5)
    g.ndata["x"] = d.x
    same_nx(graph_to_networkx(g.to("cuda"), ["x"]), graph_to_networkx(g, ["x"]))


def test_review_fixes_num_nodes_attribute_huge_ints_and_repeated_group_names():
    """An attribute named ``num_nodes`` is overwritten by the node count (PyG); a Python
    int beyond int64 keeps the list (PyG: torch.as_tensor overflows) instead of becoming
    float32; a name given twice in a group is a ValueError, not a KeyError."""
    nx = pytest.importorskip("networkx")
    from arraygnn.interop.networkx import from_networkx

    G = nx.path_graph(3)
    for i in range(3):
        G.nodes[i]["num_nodes"] = i
    assert from_networkx(G).num_nodes == 3
    H = nx.Graph()
    H.add_node(0, a=2**63)
    H.add_node(1, a=1)
    assert from_networkx(H).a == [2**63, 1]
    for i in range(3):
        G.nodes[i]["b"] = float(i)
    with pytest.raises(ValueError, match="more than once"):
        from_networkx(G, group_node_attrs=["b", "b"])
