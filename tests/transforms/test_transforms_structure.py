"""Structure transforms (self-loops, undirected, duplicates, isolated nodes, components,
GCN norm, virtual node, two-hop, line graph, dense) against PyG 2.8's on the same arrays."""

from __future__ import annotations

import numpy as np
import pytest
from _structure_helpers import (
    FLOATS,
    IDS,
    empty_graph,
    graphs,
    random_graph,
    run,
    to_pyg,
)

import arraygnn.transforms as T
from arraygnn.data import Data
from arraygnn.utils import coalesce

pyg_T = pytest.importorskip("torch_geometric.transforms")
torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- self-loops
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("fill", [1.0, 2.5, "mean", "max", "add"])
@pytest.mark.parametrize("name", ["AddSelfLoops", "AddRemainingSelfLoops"])
def test_add_loops_match_pyg(name, fill, fdtype, idtype):
    for d in graphs(idtype, fdtype):
        d.edge_weight = np.random.default_rng(3).random(d.num_edges).astype(fdtype)
        run(getattr(T, name)(fill_value=fill), getattr(pyg_T, name)(fill_value=fill), d)
        del d.edge_weight
        run(getattr(T, name)(), getattr(pyg_T, name)(), d)


@pytest.mark.parametrize("idtype", IDS)
def test_add_loops_multi_dim_attr(idtype):
    d = random_graph(4, idtype=idtype)
    d.edge_attr = np.random.default_rng(0).random((d.num_edges, 2))
    for name in ("AddSelfLoops", "AddRemainingSelfLoops"):
        run(getattr(T, name)("edge_attr", "min"), getattr(pyg_T, name)("edge_attr", "min"), d)


@pytest.mark.parametrize("idtype", IDS)
def test_remove_self_loops(idtype):
    for d in graphs(idtype, np.float32):
        d.edge_weight = np.arange(d.num_edges, dtype=np.float32)
        run(T.RemoveSelfLoops(), pyg_T.RemoveSelfLoops(), d)
    # every edge attribute follows (PyG filters only attr)
    d = random_graph(0, idtype=idtype)
    d.edge_attr = np.arange(2 * d.num_edges).reshape(-1, 2)
    out = T.RemoveSelfLoops()(d)
    keep = d.edge_index[0] != d.edge_index[1]
    np.testing.assert_array_equal(out.edge_attr, d.edge_attr[keep])


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("name", ["AddSelfLoops", "AddRemainingSelfLoops", "RemoveSelfLoops"])
def test_loops_attr_is_an_edge_attribute(name, idtype):
    # attr= names the per-edge array PyG moves with the edges: no need to repeat it in
    # edge_attrs= (it was refused as an array of unknown level)
    for d in graphs(idtype, np.float32):
        d.w = np.random.default_rng(4).random(d.num_edges).astype(np.float32)
        run(getattr(T, name)(attr="w"), getattr(pyg_T, name)(attr="w"), d)
        run(getattr(T, name)(attr="w", edge_attrs=["w"]), getattr(pyg_T, name)(attr="w"), d)


def test_add_loops_refuse_other_edge_attrs():
    d = random_graph(0)
    d.edge_attr = np.ones((d.num_edges, 2))
    with pytest.raises(ValueError, match=r"AddSelfLoops: edge attribute\(s\) \['edge_attr'\]"):
        T.AddSelfLoops()(d)
    with pytest.raises(TypeError, match="AddRemainingSelfLoops: attr"):
        T.AddRemainingSelfLoops(attr=3)


# ---------------------------------------------------------------- undirected / duplicates
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", FLOATS)
@pytest.mark.parametrize("reduce", ["add", "mean", "max", "min", "mul"])
def test_to_undirected(reduce, fdtype, idtype):
    for d in graphs(idtype, fdtype):
        rng = np.random.default_rng(1)
        d.edge_attr = rng.random((d.num_edges, 2)).astype(fdtype)
        d.edge_weight = rng.random(d.num_edges).astype(fdtype)
        run(T.ToUndirected(reduce), pyg_T.ToUndirected(reduce), d)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("reduce", ["add", "mean", "max"])
def test_remove_duplicated_edges(reduce, idtype):
    for d in graphs(idtype, np.float64):
        d.edge_attr = np.random.default_rng(2).random((d.num_edges, 3))
        run(T.RemoveDuplicatedEdges(reduce=reduce), pyg_T.RemoveDuplicatedEdges(reduce=reduce), d)
        d.edge_weight = np.ones(d.num_edges)
        with pytest.raises(ValueError, match=r"RemoveDuplicatedEdges: .*\['edge_weight'\]"):
            T.RemoveDuplicatedEdges(key="edge_attr")(d)


@pytest.mark.parametrize("idtype", IDS)
def test_remove_duplicated_edges_key_is_an_edge_attribute(idtype):
    # key= names per-edge arrays (PyG merges them): no need to repeat them in edge_attrs=
    for d in graphs(idtype, np.float64):
        d.w = np.random.default_rng(2).random((d.num_edges, 2))
        run(T.RemoveDuplicatedEdges("w", "max"), pyg_T.RemoveDuplicatedEdges("w", "max"), d)


# ---------------------------------------------------------------- isolated / components
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("explicit", [False, True])
def test_remove_isolated_nodes(explicit, idtype):
    for d in graphs(idtype, np.float32):
        d.edge_weight = np.arange(d.num_edges, dtype=np.float32)
        if explicit:
            d.num_nodes = d.num_nodes
        out = run(T.RemoveIsolatedNodes(), pyg_T.RemoveIsolatedNodes(), d)
        assert out.num_nodes == out.x.shape[0]


def test_remove_isolated_nodes_keeps_self_loop_nodes():
    d = Data(x=np.arange(4.0)[:, None], edge_index=np.array([[2, 0], [2, 1]]))
    out = T.RemoveIsolatedNodes()(d)
    assert out.x.ravel().tolist() == [0.0, 1.0, 2.0]
    assert out.edge_index.tolist() == [[2, 0], [2, 1]]


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("connection", ["weak", "strong"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_largest_connected_components(k, connection, idtype):
    rng = np.random.default_rng(7)
    for _ in range(4):
        # several components of distinct sizes (ties are ranked arbitrarily by PyG's argsort)
        parts, start = [], 0
        for size in (6, 4, 3, 1):
            ids = np.arange(start, start + size)
            src = rng.choice(ids, 2 * size)
            parts.append(np.stack([src, rng.choice(ids, 2 * size)]))
            parts.append(np.stack([ids[:-1], ids[1:]]))  # a path: weakly connected
            start += size
        ei = np.concatenate(parts, axis=1)
        ei = ei[:, rng.permutation(ei.shape[1])].astype(idtype)
        d = Data(x=rng.random((start, 2)), edge_index=ei, edge_attr=rng.random(ei.shape[1]))
        if connection == "strong":  # ties among strongly connected parts: compare sizes only
            out = T.LargestConnectedComponents(k, connection)(d)
            ref = pyg_T.LargestConnectedComponents(k, connection)(to_pyg(d))
            assert out.num_nodes == ref.num_nodes and out.num_edges == ref.num_edges
            continue
        run(
            T.LargestConnectedComponents(k, connection),
            pyg_T.LargestConnectedComponents(k, connection),
            d,
        )


def test_largest_connected_components_few_components_unchanged():
    d = Data(edge_index=np.array([[0, 1], [1, 2]]), num_nodes=3)
    out = T.LargestConnectedComponents()(d)
    assert out.edge_index is d.edge_index and out.num_nodes == 3


def test_largest_connected_components_args():
    with pytest.raises(ValueError, match="LargestConnectedComponents: connection"):
        T.LargestConnectedComponents(connection="medium")
    with pytest.raises(ValueError, match="LargestConnectedComponents: num_components"):
        T.LargestConnectedComponents(0)


# ---------------------------------------------------------------- GCN norm
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("loops", [True, False])
@pytest.mark.parametrize("weighted", [np.float32, np.float64, None])
def test_gcn_norm(weighted, loops, idtype):
    for d in graphs(idtype, np.float32):
        if weighted is not None:
            d.edge_weight = np.random.default_rng(0).random(d.num_edges).astype(weighted)
        run(T.GCNNorm(loops), pyg_T.GCNNorm(loops), d)


# ---------------------------------------------------------------- virtual node / two hop
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("explicit", [False, True])
def test_virtual_node(explicit, idtype):
    for d in graphs(idtype, np.float64):
        rng = np.random.default_rng(4)
        d.edge_attr = rng.random((d.num_edges, 2))
        d.edge_weight = rng.random(d.num_edges)
        d.edge_type = rng.integers(0, 3, d.num_edges).astype(idtype)
        if explicit:
            d.num_nodes = d.num_nodes
        run(T.VirtualNode(), pyg_T.VirtualNode(), d)
        del d.edge_type
        run(T.VirtualNode(), pyg_T.VirtualNode(), d)


@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("fdtype", FLOATS)
def test_two_hop(fdtype, idtype):
    for d in graphs(idtype, fdtype):
        # PyG sorts edge_index by row (not stably) without moving edge_attr: give it input
        # sorted by row and features that are equal within a row, so that does not matter
        d.edge_index = coalesce(d.edge_index, num_nodes=d.num_nodes)
        per_row = np.random.default_rng(5).random((d.num_nodes, 2)).astype(fdtype)
        d.edge_attr = per_row[d.edge_index[0]]
        run(T.TwoHop(), pyg_T.TwoHop(), d)
        del d.edge_attr
        run(T.TwoHop(), pyg_T.TwoHop(), d)


# ---------------------------------------------------------------- line graph
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("force", [False, True])
def test_line_graph_directed(force, idtype):
    for d in graphs(idtype, np.float32):
        del d.x
        d.num_nodes = 9 if d.num_edges else 6
        if not d.num_edges:  # PyG's torch.cat fails on no edges
            out = T.LineGraph(force)(d)
            assert out.num_nodes == 0 and out.edge_index.shape == (2, 0)
            continue
        # PyG's x is the input's edge_attr, not the coalesced one: equal on coalesced input
        raw = d.copy()
        d.edge_index = coalesce(d.edge_index, num_nodes=d.num_nodes)
        d.edge_attr = np.random.default_rng(6).random((d.num_edges, 2)).astype(np.float32)
        run(T.LineGraph(force), pyg_T.LineGraph(force), d)
        raw.edge_attr = np.random.default_rng(6).random((raw.num_edges, 2)).astype(np.float32)
        run(T.LineGraph(force), pyg_T.LineGraph(force), raw, keys=["edge_index", "num_nodes"])
        out = T.LineGraph(force)(raw)
        _, want = coalesce(raw.edge_index, raw.edge_attr, raw.num_nodes)
        np.testing.assert_array_equal(out.x, want)


@pytest.mark.parametrize("idtype", IDS)
def test_line_graph_undirected(idtype):
    from arraygnn.utils import to_undirected

    for seed in range(3):
        d = random_graph(seed, loops=False, idtype=idtype)
        ei = to_undirected(d.edge_index, num_nodes=9)
        attr = np.random.default_rng(seed).random((ei.shape[1] // 2, 3))
        # the same value on both directions: undirected with features too
        pairs = ei[:, ei[0] < ei[1]]
        full = np.concatenate([pairs, pairs[::-1]], axis=1)
        order = np.lexsort((full[1], full[0]))
        d = Data(
            edge_index=full[:, order], edge_attr=np.concatenate([attr, attr])[order], num_nodes=9
        )
        out = run(T.LineGraph(), pyg_T.LineGraph(), d)
        assert out.num_nodes == pairs.shape[1]
        del d.edge_attr
        d.x = np.zeros((9, 1))
        out = T.LineGraph()(d)
        ref = pyg_T.LineGraph()(to_pyg(d))
        np.testing.assert_array_equal(out.edge_index, ref.edge_index.numpy())
        assert "x" not in out  # PyG keeps the old x (9 rows) on a graph of fewer nodes


def test_line_graph_refuses_node_attrs():
    d = random_graph(0, pos=np.zeros((9, 2)))
    with pytest.raises(ValueError, match=r"LineGraph: attribute\(s\) \['pos'\]"):
        T.LineGraph()(d)


# ---------------------------------------------------------------- dense
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize("size", [None, 12])
def test_to_dense(size, idtype):
    for d in graphs(idtype, np.float32):
        d.y = np.arange(d.num_nodes)
        d.pos = np.ones((d.num_nodes, 2), np.float32)
        out = run(T.ToDense(size, node_attrs=["x", "pos", "y"]), pyg_T.ToDense(size), d)
        assert out.adj.shape == (size or d.num_nodes,) * 2
        d.edge_attr = np.random.default_rng(0).random((d.num_edges, 2))
        run(T.ToDense(size, node_attrs=["x", "pos", "y"]), pyg_T.ToDense(size), d)
        # integer and boolean edge_attr (PyG's sparse sum: a logical or for bool)
        for dtype in (np.int32, bool):
            d.edge_attr = np.random.default_rng(1).integers(0, 2, d.num_edges).astype(dtype)
            run(T.ToDense(size, node_attrs=["x", "pos", "y"]), pyg_T.ToDense(size), d)


def test_to_dense_errors():
    d = random_graph(0)
    with pytest.raises(ValueError, match="ToDense: num_nodes=3 is smaller"):
        T.ToDense(3)(d)
    d.edge_weight = np.ones(d.num_edges)
    with pytest.raises(ValueError, match=r"ToDense: edge attribute\(s\) \['edge_weight'\]"):
        T.ToDense()(d)


# ---------------------------------------------------------------- empty graphs / bad input
@pytest.mark.parametrize("idtype", IDS)
@pytest.mark.parametrize(
    "name",
    [
        "AddSelfLoops",
        "AddRemainingSelfLoops",
        "RemoveSelfLoops",
        "ToUndirected",
        "RemoveDuplicatedEdges",
        "RemoveIsolatedNodes",
        "GCNNorm",
        "VirtualNode",
        "TwoHop",
        "ToDense",
    ],
)
def test_empty_graphs(name, idtype):
    for n in (0, 3):
        d = empty_graph(idtype, n=n)
        run(getattr(T, name)(), getattr(pyg_T, name)(), d)


@pytest.mark.parametrize(
    "make",
    [
        T.AddSelfLoops,
        T.AddRemainingSelfLoops,
        T.RemoveSelfLoops,
        T.ToUndirected,
        T.RemoveDuplicatedEdges,
        T.RemoveIsolatedNodes,
        T.LargestConnectedComponents,
        T.GCNNorm,
        T.VirtualNode,
        T.TwoHop,
        T.LineGraph,
        T.ToDense,
    ],
)
def test_out_of_range_and_unsaid_attrs(make):
    name = make.__name__
    d = Data(x=np.zeros((3, 1)), edge_index=np.array([[0, 3], [1, 1]], np.int32))
    with pytest.raises(ValueError, match=f"{name}: .*edge_index row 0 holds node id 3"):
        make()(d)
    d = Data(x=np.zeros((3, 1)), edge_index=np.array([[0, 1], [1, -1]]))
    with pytest.raises(ValueError, match=f"{name}: .*node id -1"):
        make()(d)
    d = Data(x=np.zeros((3, 1)), edge_index=np.array([[0.0], [1.0]]))
    with pytest.raises(TypeError, match=f"{name}: edge_index"):
        make()(d)
    if make in (T.RemoveSelfLoops,):
        return
    d = Data(x=np.zeros((3, 1)), edge_index=np.array([[0], [1]]), label=np.zeros(3))
    with pytest.raises(ValueError, match=f"{name}: .*\\['label'\\] are neither node"):
        make()(d)
    d = Data(edge_index=np.array([[0], [1]]))
    with pytest.raises(ValueError, match=f"{name}: .*num_nodes .*unknown"):
        make()(d)
