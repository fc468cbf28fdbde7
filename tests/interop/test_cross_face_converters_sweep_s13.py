"""Consistency sweep of the converters between arraygnn's faces (PyG-style Data / Batch,
DGL-style Graph, TF-GNN-style GraphTensor, jraph-style GraphsTuple, HeteroData) and the
PyG hand-off (live against PyG 2.8.1): bit-exact round trips over id / feature dtypes and
shapes, isolated nodes, empty graphs, batches with an empty graph, heterogeneous graphs,
sharing, and clear errors for what a face cannot hold."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.graph import (
    data_to_graph,
    graph_tensor_to_graph,
    graph_to_data,
    graph_to_graph_tensor,
)
from arraygnn.graph_tensor import (
    Adjacency,
    EdgeSet,
    GraphTensor,
    NodeSet,
    Ragged,
    data_to_graph_tensor,
    graph_tensor_to_batch,
    graph_tensor_to_data,
)
from arraygnn.graph_tensor.hyper_adjacency import HyperAdjacency
from arraygnn.graphs_tuple import from_data, to_data_list
from arraygnn.hetero_convert import (
    graph_tensor_to_hetero_data,
    graph_to_hetero_data,
    hetero_data_to_graph,
    hetero_data_to_graph_tensor,
)
from arraygnn.hetero_data import HeteroData


def _graph(n, e, idt=np.int64, fdt=np.float32, fshape=(3,), seed=0):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, max(n, 1), (2, e)).astype(idt) if n else np.zeros((2, 0), idt)
    if e >= 3:  # a self-loop and a multi-edge
        ei[:, 0] = ei[0, 0]
        ei[:, 2] = ei[:, 1]
    return Data(
        x=rng.standard_normal((n, *fshape)).astype(fdt),
        edge_index=ei,
        edge_attr=rng.standard_normal((e, 2)).astype(fdt),
        y=np.array([float(n)], np.float32),
        num_nodes=n,
    )


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


CASES = [
    (np.int32, np.float16, ()),
    (np.int64, np.float64, (3,)),
    (np.int32, np.float32, (2, 3)),
]


@pytest.mark.parametrize("idt,fdt,fshape", CASES)
@pytest.mark.parametrize("n,e", [(5, 4), (6, 0), (0, 0)])  # isolated nodes, empty graph
def test_homogeneous_round_trips_keep_every_bit(idt, fdt, fshape, n, e):
    d = _graph(n, e, idt, fdt, fshape)
    ei = d.edge_index.copy()
    # Data -> Graph -> Data: features shared, edge_index a new [2, E] of the same dtype
    g = data_to_graph(d, exclude_keys=["y"])
    assert g.num_nodes() == n and g.num_edges() == e and g.ndata["x"] is d.x
    src, dst = g.edges()
    assert np.shares_memory(src, d.edge_index) or e == 0
    d2 = graph_to_data(g)
    _same(d2.edge_index, d.edge_index)
    assert d2.num_nodes == n and d2.x is d.x and d2.edge_attr is d.edge_attr
    # Graph -> GraphTensor -> Graph
    g2 = graph_tensor_to_graph(graph_to_graph_tensor(g))
    assert g2.num_nodes() == n and g2.ndata["x"] is d.x and g2.edata["edge_attr"] is d.edge_attr
    for a, b in zip(g2.edges(), g.edges()):
        _same(a, b)
    # Data -> GraphTensor -> Data (y as context)
    gt = data_to_graph_tensor(d, context_features=["y"])
    assert gt.node_sets["nodes"].total_size == n
    d3 = graph_tensor_to_data(gt)
    _same(d3.edge_index, d.edge_index)
    assert d3.num_nodes == n and d3.x is d.x and d3.y is d.y
    # Data -> GraphsTuple -> Data
    (d4,) = to_data_list(from_data(d, globals="y"), globals="y")
    _same(d4.edge_index, d.edge_index)
    assert d4.num_nodes == n and np.shares_memory(d4.x, d.x) or n == 0
    _same(d4.x, d.x)
    _same(d4.edge_attr, d.edge_attr)
    _same(d.edge_index, ei)  # inputs untouched


@pytest.mark.parametrize("idt", [np.int32, np.int64])
@pytest.mark.parametrize("sizes", [[(3, 3), (0, 0), (4, 3)], [(0, 0)], [(2, 0), (3, 1), (0, 0)]])
def test_batches_with_an_empty_graph_round_trip_through_every_face(idt, sizes):
    dl = [_graph(n, e, idt, seed=i) for i, (n, e) in enumerate(sizes)]
    b = Batch.from_data_list(dl)
    nn = [n for n, _ in sizes]
    ne = [e for _, e in sizes]
    # Batch -> GraphTensor (components) -> Batch
    gt = data_to_graph_tensor(b, context_features=["y"])
    assert gt.node_sets["nodes"].sizes.tolist() == nn
    assert gt.edge_sets["edges"].sizes.tolist() == ne
    b2 = graph_tensor_to_batch(gt)
    for k in ("edge_index", "batch", "ptr", "x", "edge_attr", "y"):
        _same(getattr(b2, k), getattr(b, k))
    for a, c in zip(b2.to_data_list(), dl, strict=True):
        assert a.num_nodes == c.num_nodes
        for k in ("edge_index", "x", "edge_attr", "y"):
            _same(getattr(a, k), getattr(c, k))
    # Batch -> batched Graph (DGL's batch_num_nodes / edges) -> GraphTensor -> Batch
    g = data_to_graph(b, exclude_keys=["y"])
    assert g.batch_size == len(sizes)
    assert g.batch_num_nodes().tolist() == nn and g.batch_num_edges().tolist() == ne
    gt2 = graph_to_graph_tensor(g)
    assert gt2.node_sets["nodes"].sizes.tolist() == nn
    assert gt2.edge_sets["edges"].sizes.tolist() == ne
    g3 = graph_tensor_to_graph(gt2)
    assert g3.batch_num_nodes().tolist() == nn and g3.batch_num_edges().tolist() == ne
    b3 = graph_tensor_to_batch(gt2)
    _same(b3.ptr, b.ptr)
    _same(b3.edge_index, b.edge_index)
    # Batch -> GraphsTuple -> graphs
    gtup = from_data(b, globals="y")
    assert gtup.n_node.tolist() == nn and gtup.n_edge.tolist() == ne
    assert gtup.n_node.dtype == (np.int32 if idt == np.int32 else np.int64)
    for a, c in zip(to_data_list(gtup, globals="y"), dl, strict=True):
        assert a.num_nodes == c.num_nodes
        for k in ("edge_index", "x", "edge_attr", "y"):
            _same(getattr(a, k), getattr(c, k))


def test_follow_batch_vectors_are_not_attributes_to_place():
    dl = [_graph(n, 1, seed=n) for n in (2, 0, 3)]
    dl[1].edge_index = np.zeros((2, 0), np.int64)
    dl[1].edge_attr = np.zeros((0, 2), np.float32)
    b = Batch.from_data_list(dl, follow_batch=["x"])
    gt = data_to_graph_tensor(b, exclude_keys=["y"])  # x_batch / x_ptr were refused
    assert gt.node_sets["nodes"].sizes.tolist() == [2, 0, 3]
    assert set(gt.node_sets["nodes"].features) == {"x"}
    g = data_to_graph(b, exclude_keys=["y"])  # batch / ptr / x_batch / x_ptr were refused
    assert set(g.ndata) == {"x"} and g.batch_num_nodes().tolist() == [2, 0, 3]
    with pytest.raises(ValueError, match="'y'"):  # collated keys still need a place
        data_to_graph_tensor(b)


def _hetero(idt, na=3, nb=2, e=3, seed=0):
    rng = np.random.default_rng(seed)
    h = HeteroData()
    h["a"].x = rng.standard_normal((na, 2)).astype(np.float16)
    h["b"].x = rng.standard_normal((nb, 2, 3))
    h["c"].num_nodes = 4  # a node type without edges
    ei = np.stack([rng.integers(0, max(na, 1), e), rng.integers(0, max(nb, 1), e)])
    h["a", "to", "b"].edge_index = ei.astype(idt) if na and nb else np.zeros((2, 0), idt)
    h["a", "to", "b"].w = rng.standard_normal(h["a", "to", "b"].edge_index.shape[1])
    h["a", "self", "a"].edge_index = np.array([[1, 1], [1, 1]], idt)[:, : 2 if na > 1 else 0]
    h["b", "none", "a"].edge_index = np.zeros((2, 0), idt)  # an edge type without edges
    h["b", "none", "a"].w = np.zeros(0, np.float32)
    h.y = np.array([float(na)])
    return h


@pytest.mark.parametrize("idt", [np.int32, np.int64])
def test_hetero_round_trips_keep_types_counts_and_ids(idt):
    h = _hetero(idt)
    for back in (
        graph_to_hetero_data(hetero_data_to_graph(h)),
        graph_tensor_to_hetero_data(hetero_data_to_graph_tensor(h, exclude_keys=["y"])),
        graph_to_hetero_data(graph_tensor_to_graph(graph_to_graph_tensor(hetero_data_to_graph(h)))),
    ):
        assert sorted(back.node_types) == ["a", "b", "c"]
        assert sorted(back.edge_types) == sorted(h.edge_types)
        for t in h.node_types:
            assert back[t].num_nodes == h[t].num_nodes
        for et in h.edge_types:
            _same(back[et].edge_index, h[et].edge_index)
            assert back[et].w is h[et].w if "w" in h[et] else True
        assert back["a"].x is h["a"].x and back["b"].x is h["b"].x


def test_hetero_batch_gives_a_batched_graph_and_components():
    hs = [
        _hetero(np.int64, na, nb, e, seed=i)
        for i, (na, nb, e) in enumerate([(3, 2, 3), (0, 0, 0), (2, 4, 2)])
    ]
    b = Batch.from_data_list(hs)
    g = hetero_data_to_graph(b)
    assert g.batch_size == 3
    assert g.batch_num_nodes("a").tolist() == [3, 0, 2]
    assert g.batch_num_nodes("c").tolist() == [4, 4, 4]
    assert g.batch_num_edges(("a", "to", "b")).tolist() == [3, 0, 2]
    gt = graph_to_graph_tensor(g)
    assert gt.node_sets["b"].sizes.tolist() == [2, 0, 4]
    assert gt.edge_sets["self"].sizes.tolist() == [2, 0, 2]
    gt2 = hetero_data_to_graph_tensor(b, context_features=["y"])
    for n in gt.edge_sets:
        assert gt2.edge_sets[n].sizes.tolist() == gt.edge_sets[n].sizes.tolist()


def _hyper():
    adj = HyperAdjacency.from_indices(
        {0: ("a", np.array([0, 1])), 1: ("a", np.array([1, 1])), 2: ("a", np.array([0, 0]))}
    )
    return GraphTensor.from_pieces(
        node_sets={"a": NodeSet.from_fields(sizes=np.array([2]))},
        edge_sets={"e": EdgeSet.from_fields(sizes=np.array([2]), adjacency=adj)},
    )


def _ragged():
    r = Ragged.from_row_lengths(np.arange(3.0), np.array([1, 2]))
    return GraphTensor.from_pieces(
        node_sets={"nodes": NodeSet.from_fields(sizes=np.array([2]), features={"r": r})},
        edge_sets={
            "edges": EdgeSet.from_fields(
                sizes=np.array([1]),
                adjacency=Adjacency.from_indices(
                    ("nodes", np.array([0])), ("nodes", np.array([1]))
                ),
            )
        },
    )


@pytest.mark.parametrize(
    "convert",
    [
        graph_tensor_to_data,
        graph_tensor_to_batch,
        graph_tensor_to_graph,
        graph_tensor_to_hetero_data,
    ],
)
def test_what_a_face_cannot_hold_is_a_clear_error(convert):
    with pytest.raises(ValueError, match="HyperAdjacency with node tags"):
        convert(_hyper())
    with pytest.raises(ValueError, match="feature 'r' is ragged"):
        convert(_ragged())


# ---------------------------------------------------------------- PyG hand-off, live


def _pyg_data(d, torch, PD):
    return PD(
        **{k: torch.from_numpy(d[k]) for k in ("x", "edge_index", "edge_attr", "y")},
        num_nodes=d.num_nodes,
    )


@pytest.mark.parametrize("idt,fdt,fshape", CASES)
def test_to_pyg_from_pyg_match_pyg_collation(idt, fdt, fshape):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import Batch as PB
    from torch_geometric.data import Data as PD

    from arraygnn.interop import from_pyg, to_pyg

    dl = [
        _graph(n, e, idt, fdt, fshape, seed=i) for i, (n, e) in enumerate([(3, 3), (0, 0), (4, 3)])
    ]
    p = to_pyg(dl[0])
    assert np.shares_memory(p.x.numpy(), dl[0].x) and p.num_nodes == 3
    back = from_pyg(p)
    for k in ("x", "edge_index", "edge_attr", "y"):
        _same(back[k], dl[0][k])
    ref = PB.from_data_list([_pyg_data(d, torch, PD) for d in dl])
    pb = to_pyg(Batch.from_data_list(dl))
    assert pb.num_graphs == ref.num_graphs == 3
    for k in ("x", "edge_index", "edge_attr", "y", "batch", "ptr"):
        a, r = pb[k], ref[k]
        assert a.dtype == r.dtype and a.shape == r.shape and torch.equal(a, r), k
    for i in range(3):
        e1, e2 = pb.get_example(i), ref.get_example(i)
        assert e1.num_nodes == e2.num_nodes
        for k in ("x", "edge_index", "edge_attr", "y"):
            assert e1[k].dtype == e2[k].dtype and torch.equal(e1[k], e2[k])
    ob = from_pyg(ref)
    for a, c in zip(ob.to_data_list(), dl, strict=True):
        assert a.num_nodes == c.num_nodes
        for k in ("x", "edge_index", "edge_attr", "y"):
            _same(a[k], c[k])


@pytest.mark.parametrize("idt", [np.int32, np.int64])
def test_hetero_batch_to_pyg_matches_pyg(idt):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import Batch as PB
    from torch_geometric.data import HeteroData as PH

    from arraygnn.interop import from_pyg, to_pyg

    hs = [
        _hetero(idt, na, nb, e, seed=i)
        for i, (na, nb, e) in enumerate([(3, 2, 3), (0, 0, 0), (2, 4, 2)])
    ]

    def pyg(h):
        p = PH()
        for store in h.node_types + h.edge_types:
            for k, v in h[store].items():
                p[store][k] = torch.from_numpy(v) if isinstance(v, np.ndarray) else v
        p.y = torch.from_numpy(h.y)
        return p

    ref = PB.from_data_list([pyg(h) for h in hs])
    pb = to_pyg(Batch.from_data_list(hs))
    for store in ["a", "b", *ref.edge_types]:
        for k in ref[store].keys():
            a, r = pb[store][k], ref[store][k]
            assert torch.equal(a.long() if k == "edge_index" else a, r), (store, k)
            # documented (docs/collation.md): int32 ids stay int32; PyG's [2, 1]
            # increment of a bipartite edge type promotes them to int64
            want = torch.int32 if k == "edge_index" and idt == np.int32 else r.dtype
            assert a.dtype == want, (store, k)
    assert pb["c"].num_nodes == ref["c"].num_nodes == 12
    for i, h in enumerate(to_pyg(Batch.from_data_list(hs)).to_data_list()):
        for et in hs[i].edge_types:
            assert torch.equal(h[et].edge_index, torch.from_numpy(hs[i][et].edge_index))
        assert h["c"].num_nodes == 4
    for i, h in enumerate(from_pyg(ref).to_data_list()):
        for t in hs[i].node_types:
            assert h[t].num_nodes == hs[i][t].num_nodes
        for et in hs[i].edge_types:
            assert np.array_equal(h[et].edge_index, hs[i][et].edge_index)
