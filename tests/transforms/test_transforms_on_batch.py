"""Transforms on a ``Batch`` (arraygnn.transforms._on_batch): each family applied to a batch
of three random graphs (one empty, one with isolated nodes, self-loops and parallel edges)
and compared with (a) the transform applied graph by graph, where that is the same
mathematics, and (b) PyG's transform on PyG's batch; ``ptr`` recomputed from ``batch``;
records either rebuilt (``to_data_list`` gives the right graphs, re-collating gives the
batch back) or dropped (``to_data_list`` raises)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _structure_helpers import (
    assert_matches,
    assert_unchanged,
    empty_graph,
    random_graph,
    snapshot,
    to_pyg,
)

import arraygnn.transforms as T
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.transforms._on_batch import pointer


def _graphs(idtype: Any = np.int64, fdtype: Any = np.float32, weights: bool = False) -> list:
    """Graph 0: loops, parallel edges, 2 isolated nodes; graph 1: empty; graph 2: the same
    kinds, other sizes."""
    gs = [
        random_graph(1, n=7, e=12, idtype=idtype, fdtype=fdtype),
        empty_graph(idtype, fdtype),
        random_graph(2, n=6, e=9, idtype=idtype, fdtype=fdtype),
    ]
    rng = np.random.default_rng(7)
    for g in gs:
        g.pos = rng.standard_normal((g.num_nodes, 3)).astype(fdtype)
        if weights:
            g.edge_weight = rng.random(g.edge_index.shape[1]).astype(fdtype)
    return gs


def _pyg_batch(gs: list) -> Any:
    from torch_geometric.data import Batch as PygBatch

    return PygBatch.from_data_list([to_pyg(g) for g in gs])


def _apply(transform: Any, gs: list) -> tuple[Any, Batch]:
    """``transform`` on the batch of ``gs``: the result, after checking the batch it was
    given is untouched and ``ptr`` is the pointer of the new ``batch``."""
    batch = Batch.from_data_list(gs)
    snap = snapshot(batch)
    records = {k: v.copy() for k, v in batch._slice_dict.items()}
    out = transform(batch)
    assert_unchanged(batch, snap)
    assert {k: v.tolist() for k, v in batch._slice_dict.items()} == {
        k: v.tolist() for k, v in records.items()
    }
    assert isinstance(out, Batch) and out.num_graphs == len(gs)
    np.testing.assert_array_equal(out.ptr, pointer(out.batch, len(gs)))
    return out, batch


def _same_graph(a: Data, b: Data) -> None:
    assert sorted(a.keys()) == sorted(b.keys()), (a, b)
    for k in a.keys():
        va, vb = a[k], b[k]
        if isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype, k
            np.testing.assert_allclose(va, vb, rtol=1e-5, atol=1e-6, err_msg=k)
        else:
            assert va == vb, k


def _graph_by_graph(out: Batch, transform: Any, gs: list) -> None:
    """(a) exactly: the batch's records give the graphs the transform makes one by one,
    and collating those gives the batch's arrays back."""
    mine = out.to_data_list()
    theirs = [transform(g) for g in gs]
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        _same_graph(a, b)
    again = Batch.from_data_list(mine)
    for k, v in again.items():
        np.testing.assert_array_equal(out[k], v, err_msg=k)


def _edge_rows(ei: Any, *attrs: Any) -> list:
    cols = [np.asarray(ei).T.astype(np.float64)]
    cols += [np.asarray(a, np.float64).reshape(ei.shape[1], -1) for a in attrs]
    return sorted(map(tuple, np.round(np.concatenate(cols, axis=1), 5).tolist()))


def _same_edges_as_graph_by_graph(out: Batch, transform: Any, gs: list, attr: str) -> None:
    """(a) up to edge order: the batch's edges (with ``attr``) are those of the graphs the
    transform makes one by one, collated; the records are dropped (to_data_list raises)."""
    ref = Batch.from_data_list([transform(g) for g in gs])
    np.testing.assert_array_equal(out.batch, ref.batch)
    attrs = [out[attr]] if attr in out else []
    ref_attrs = [ref[attr]] if attr in ref else []
    assert _edge_rows(out.edge_index, *attrs) == _edge_rows(ref.edge_index, *ref_attrs)
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()


# ------------------------------------------------------------------ self-loops
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    "make", [lambda: T.AddSelfLoops(fill_value=0.5), lambda: T.AddRemainingSelfLoops()]
)
def test_adding_self_loops(make: Any, idtype: Any) -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(idtype, weights=True)
    t = make()
    out, batch = _apply(t, gs)
    _same_edges_as_graph_by_graph(out, t, gs, "edge_weight")
    ref_t = (
        PT.AddSelfLoops(fill_value=0.5)
        if isinstance(t, T.AddSelfLoops)
        else PT.AddRemainingSelfLoops()
    )
    ref = ref_t(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "edge_weight", "batch", "ptr"])
    assert out.edge_index.dtype == idtype


def test_remove_self_loops() -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(weights=True)
    t = T.RemoveSelfLoops()
    out, _ = _apply(t, gs)
    _graph_by_graph(out, t, gs)  # edges stay grouped by graph: records rebuilt
    ref = PT.RemoveSelfLoops()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "edge_index", "edge_weight", "batch", "ptr"])


# ------------------------------------------------------------------ undirected
@pytest.mark.parametrize("make", [T.ToUndirected, T.RemoveDuplicatedEdges])
def test_undirected(make: Any) -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(weights=True)
    t = make()
    out, _ = _apply(t, gs)
    _graph_by_graph(out, t, gs)  # coalesced: sorted by source, so grouped by graph
    ref = getattr(PT, make.__name__)()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "edge_weight", "batch", "ptr"])


def test_two_hop() -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs()
    t = T.TwoHop()
    out, _ = _apply(t, gs)
    _graph_by_graph(out, t, gs)
    # PyG gets the edges merged (the same two-hop pairs): its torch CSR x CSR product is
    # undefined on parallel edges (pairs lost or repeated, at times a segfault)
    merged = [T.RemoveDuplicatedEdges()(g) for g in gs]
    assert_matches(out, PT.TwoHop()(_pyg_batch(merged)), ["x", "edge_index", "batch", "ptr"])


# ------------------------------------------------------------------ node removal
@pytest.mark.parametrize("idtype", [np.int32, np.int64])
def test_remove_isolated_nodes(idtype: Any) -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(idtype, weights=True)
    t = T.RemoveIsolatedNodes()
    out, batch = _apply(t, gs)
    _graph_by_graph(out, t, gs)
    assert out.ptr.tolist() == [0, 5, 5, 9]
    assert out.num_graphs == 3 and out.get_example(1).num_nodes == 0
    ref = PT.RemoveIsolatedNodes()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "edge_weight", "batch"])
    # PyG leaves ptr (and _slice_dict) as they were: ours is recomputed
    assert ref.ptr.tolist() == batch.ptr.tolist() != out.ptr.tolist()


def test_largest_connected_components() -> None:
    pytest.importorskip("torch_geometric")
    pytest.importorskip("scipy")
    import torch_geometric.transforms as PT

    gs = _graphs()
    out, _ = _apply(T.LargestConnectedComponents(), gs)
    ref = PT.LargestConnectedComponents()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "batch"])
    # one component of the whole batch: it lies in one graph, the others are left empty
    assert len(set(out.batch.tolist())) == 1
    counts = np.diff(out.ptr)
    assert sorted(counts.tolist())[:2] == [0, 0]
    graphs = out.to_data_list()  # nodes and edges stay grouped: records rebuilt
    assert [g.num_nodes for g in graphs] == counts.tolist()


@pytest.mark.parametrize("follow", [["x"], ["x", "edge_index"]])
def test_follow_batch_vectors_move(follow: list) -> None:
    """``x_batch`` moves with the nodes, ``edge_index_batch`` with the edges."""
    gs = _graphs()
    batch = Batch.from_data_list(gs, follow_batch=follow)
    out = T.RemoveIsolatedNodes()(batch)
    np.testing.assert_array_equal(out.x_batch, out.batch)
    out = T.RemoveSelfLoops()(batch)
    if "edge_index" in follow:
        np.testing.assert_array_equal(out.edge_index_batch, out.batch[out.edge_index[0]])
    plain = T.RemoveSelfLoops()(Batch.from_data_list(gs))
    for a, b in zip(out.to_data_list(), plain.to_data_list()):
        _same_graph(a, b)


def test_pyg_batch_with_follow_batch() -> None:
    """A PyG batch brought over by ``from_pyg`` (``x_batch`` / ``x_ptr`` without records of
    their own): both pointers recomputed, the graphs split right."""
    pytest.importorskip("torch_geometric")
    from torch_geometric.data import Batch as PygBatch

    from arraygnn.interop.pyg import from_pyg

    gs = _graphs()
    batch = from_pyg(PygBatch.from_data_list([to_pyg(g) for g in gs], follow_batch=["x"]))
    t = T.RemoveIsolatedNodes()
    out = t(batch)
    np.testing.assert_array_equal(out.x_batch, out.batch)
    np.testing.assert_array_equal(out.x_ptr, out.ptr)
    assert out.ptr.tolist() == [0, 5, 5, 9]
    for a, b in zip(out.to_data_list(), [t(g) for g in gs]):
        np.testing.assert_array_equal(a.x, b.x)
        np.testing.assert_array_equal(a.edge_index, b.edge_index)


def test_outside_a_transform_the_vectors_are_named_as_before() -> None:
    """``Data.subgraph`` of a Batch recomputes no ``ptr``: the vectors stay unplaced."""
    batch = Batch.from_data_list(_graphs())
    with pytest.raises(ValueError, match=r"\['batch', 'ptr'\] are neither"):
        batch.subgraph(np.array([0, 1]))
    with pytest.raises(ValueError, match=r"\['batch', 'ptr'\] are neither"):
        T.RemoveIsolatedNodes().forward(batch.copy())  # forward alone: not on_batch


def test_pointer_is_not_a_name_to_give() -> None:
    batch = Batch.from_data_list(_graphs())
    with pytest.raises(ValueError, match="'ptr' is the Batch's pointer"):
        T.RemoveIsolatedNodes(node_attrs=["x", "pos", "ptr"])(batch)
    # named a graph attribute (as before Batch support): still recomputed
    out = T.RemoveIsolatedNodes(node_attrs=["x", "pos", "batch"], graph_attrs=["ptr"])(batch)
    assert out.ptr.tolist() == [0, 5, 5, 9]
    with pytest.raises(ValueError, match=r"\['y'\] are neither node"):
        gs = _graphs()
        for g in gs:
            g.y = np.zeros(g.num_nodes)
        T.RemoveIsolatedNodes()(Batch.from_data_list(gs))


# ------------------------------------------------------------------ new nodes
def test_virtual_node_follows_pyg() -> None:
    """PyG gives the virtual node the graph id of node 0: one node joined to every graph;
    ptr counts it in graph 0, and the records are dropped (it is not in graph 0's range)."""
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(weights=True)
    out, batch = _apply(T.VirtualNode(), gs)
    ref = PT.VirtualNode()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "edge_weight", "edge_type", "batch"])
    assert out.batch[-1] == 0 and out.ptr.tolist() == [0, 8, 8, 14]
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()
    # no node at all (PyG's batch[0] fails): graph 0
    out = T.VirtualNode()(Batch.from_data_list([empty_graph(), empty_graph()]))
    assert out.batch.tolist() == [0] and out.ptr.tolist() == [0, 1, 1]


@pytest.mark.parametrize(
    "t, why",
    [
        (T.HalfHop(), "slow nodes have no graph id"),
        (T.LineGraph(), "nodes are the edges"),
        (T.SamplePoints(8), "sampled points have no graph id"),
    ],
)
def test_new_nodes_without_graph_id_are_refused(t: Any, why: str) -> None:
    batch = Batch.from_data_list(_meshes() if isinstance(t, T.SamplePoints) else _graphs())
    with pytest.raises(TypeError, match=f"{type(t).__name__}: takes no Batch .*{why}"):
        t(batch)


def _meshes() -> list:
    """Triangle meshes (the middle one empty; the last with a node in no face)."""
    rng = np.random.default_rng(3)
    out = []
    for n, f in ((6, 4), (0, 0), (5, 2)):
        face = [rng.permutation(n - 1)[:3] for _ in range(f)]
        faces = np.stack(face, 1) if f else np.zeros((3, 0), np.int64)
        out.append(Data(pos=rng.random((n, 3)).astype(np.float32), face=faces, num_nodes=n))
    return out


@pytest.mark.parametrize("name", ["GenerateMeshNormals", "FaceToEdge"])
def test_meshes(name: str) -> None:
    """Per-face work is block-diagonal: graph by graph and PyG's equal; the new
    ``edge_index`` (grouped by graph) and ``norm`` get records."""
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _meshes()
    t = getattr(T, name)()
    out, _ = _apply(t, gs)
    _graph_by_graph(out, t, gs)
    key = "norm" if name == "GenerateMeshNormals" else "edge_index"
    assert_matches(out, getattr(PT, name)()(_pyg_batch(gs)), ["pos", key, "batch", "ptr"])


def test_pad_follows_pyg() -> None:
    """Pad's padding nodes get ``node_pad_value`` as graph id, as in PyG."""
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs()
    out, _ = _apply(T.Pad(20, 40), gs)
    ref = PT.Pad(20, 40)(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "pos", "edge_index", "batch"])
    assert out.ptr.tolist() == [0, 14, 14, 20]  # 7 padding nodes in graph 0
    with pytest.raises(ValueError, match="slice records"):
        out.to_data_list()


# ------------------------------------------------------------------ features
FEATURES = [
    ("Constant", {}),
    ("NormalizeFeatures", None),
    ("OneHotDegree", {"max_degree": 12}),
    ("LocalDegreeProfile", {}),
    ("TargetIndegree", {"norm": False}),
    ("Cartesian", {"norm": False}),
    ("LocalCartesian", {"norm": False}),
    ("Distance", {"norm": False}),
    ("Spherical", {"norm": False}),
    ("Center", None),
    ("NormalizeScale", None),
]


@pytest.mark.parametrize("name, kwargs", FEATURES)
def test_feature_transforms(name: str, kwargs: Any) -> None:
    """Per node / per edge: the same graph by graph (records kept or extended to the new
    ``edge_attr``); batch-wide ones (``None``: NormalizeFeatures subtracts the smallest
    feature of the whole batch, Center, NormalizeScale use the whole batch's positions, as
    PyG's) compared with PyG only."""
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs()
    for g in gs:
        g.x = np.abs(g.x)
    t = getattr(T, name)(**(kwargs or {}))
    out, _ = _apply(t, gs)
    if kwargs is not None:
        _graph_by_graph(out, t, gs)
    ref = getattr(PT, name)(**(kwargs or {}))(_pyg_batch(gs))
    keys = [k for k in ("x", "pos", "edge_index", "edge_attr", "batch", "ptr") if k in ref]
    assert_matches(out, ref, keys, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "name, kwargs, key",
    [("AddRandomWalkPE", {"walk_length": 3}, "random_walk_pe"), ("SIGN", {"K": 2}, "x2")],
)
def test_new_node_arrays(name: str, kwargs: dict, key: str) -> None:
    """Per-node outputs the transform states (``node_outputs``) get records: random-walk
    return probabilities and SIGN's propagated features are block-diagonal, so equal
    graph by graph."""
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs()
    t = getattr(T, name)(**kwargs)
    out, _ = _apply(t, gs)
    _graph_by_graph(out, t, gs)
    ref = getattr(PT, name)(**kwargs)(_pyg_batch(gs))
    assert_matches(out, ref, ["x", key, "batch", "ptr"], rtol=1e-4, atol=1e-5)


def test_gcn_norm() -> None:
    pytest.importorskip("torch_geometric")
    import torch_geometric.transforms as PT

    gs = _graphs(np.int64, np.float32, weights=True)
    t = T.GCNNorm()
    out, _ = _apply(t, gs)
    _same_edges_as_graph_by_graph(out, t, gs, "edge_weight")
    ref = PT.GCNNorm()(_pyg_batch(gs))
    assert_matches(out, ref, ["x", "edge_index", "edge_weight", "batch", "ptr"])


def test_point_cloud_graphs_per_example() -> None:
    """KNNGraph / RadiusGraph link points of one example only (``batch``), as PyG's."""
    gs = _graphs()
    for g in gs:
        del g.edge_index
    for t in (T.KNNGraph(k=2), T.RadiusGraph(r=1.5)):
        out, _ = _apply(t, gs)
        ref = Batch.from_data_list([t(g) for g in gs])
        assert _edge_rows(out.edge_index) == _edge_rows(ref.edge_index)
        assert (out.batch[out.edge_index[0]] == out.batch[out.edge_index[1]]).all()


# ------------------------------------------------------------------ all the rest
def _everything() -> list:
    mask = np.zeros((13, 3), bool)
    mask[::3, 1] = True
    return [
        T.AddLaplacianEigenvectorPE(k=2),
        T.AddRandomWalkPE(walk_length=3),
        T.SIGN(K=2),
        T.SVDFeatureReduction(out_channels=2),
        T.ToDense(),
        T.ToSparseTensor(),
        T.IndexToMask(),
        T.MaskToIndex(),
        T.RandomNodeSplit(),
        T.RandomLinkSplit(),
        T.GDC(),
        T.LaplacianLambdaMax(),
        T.FeaturePropagation(missing_mask=mask),
        T.FixedPoints(5),
        T.GridSampling(0.5),
        T.RandomJitter(0.1),
        T.RandomFlip(0),
        T.RandomScale((0.5, 2.0)),
        T.RandomRotate(30),
        T.RandomShear(0.1),
        T.LinearTransformation(np.eye(3, dtype=np.float32)),
        T.NormalizeRotation(),
        T.RootedEgoNets(1),
        T.RootedRWSubgraph(2),
        T.Delaunay(),
        T.RemoveTrainingClasses([0]),
        T.NodePropertySplit("popularity", [0.3, 0.2, 0.2, 0.15, 0.15], seed=0),
        T.Polar(norm=False),
        T.PointPairFeatures(),
        T.ToDevice("cpu"),
        T.Compose([T.RemoveIsolatedNodes(), T.ToUndirected(), T.AddSelfLoops()]),
    ]


@pytest.mark.parametrize("t", _everything(), ids=lambda t: type(t).__name__)
def test_every_transform_runs_on_a_batch(t: Any) -> None:
    """Any transform of a Data runs on a Batch (or refuses it by name); the result's
    ``ptr`` matches its ``batch``, and its records are either right (re-collating the
    graphs gives the batch's arrays back) or gone (``to_data_list`` raises)."""
    gs = _graphs(weights=not isinstance(t, (T.ToDense, T.GDC, T.FixedPoints, T.GridSampling)))
    if isinstance(t, (T.FixedPoints, T.GridSampling, T.Delaunay)):
        for g in gs:
            del g.edge_index
    if isinstance(t, (T.RemoveTrainingClasses, T.NodePropertySplit)):
        for g in gs:
            g.y = np.arange(g.num_nodes) % 3
            g.train_mask = np.ones(g.num_nodes, bool)
    if isinstance(t, T.Polar):
        for g in gs:
            g.pos = g.pos[:, :2].copy()
    if isinstance(t, T.PointPairFeatures):
        for g in gs:
            g.norm = g.pos[:, ::-1].copy()
    if isinstance(t, T.MaskToIndex):
        for g in gs:
            g.train_mask = np.arange(g.num_nodes) % 2 == 0
    if isinstance(t, T.LaplacianLambdaMax):
        gs = [g for g in gs if g.num_nodes]  # scipy's eigsh needs a node
    batch = Batch.from_data_list(gs)
    snap = snapshot(batch)
    out = t(batch)
    assert_unchanged(batch, snap)
    for o in out if isinstance(out, tuple) else (out,):
        if not isinstance(o, Batch):
            continue  # e.g. RootedSubgraphData: a Data of its own
        if "batch" in o and "ptr" in o:
            np.testing.assert_array_equal(o.ptr, pointer(o.batch, len(gs)))
        try:
            graphs = o.to_data_list()
        except ValueError as err:
            assert "slice records" in str(err)
            continue
        again = Batch.from_data_list(graphs)
        for k, v in again.items():
            np.testing.assert_array_equal(o[k], v, err_msg=k)
        assert sorted(k for k in o.keys() if k not in ("batch", "ptr")) == sorted(
            k for k in again.keys() if k not in ("batch", "ptr")
        )
