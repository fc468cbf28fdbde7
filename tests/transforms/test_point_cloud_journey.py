"""A PyG point-cloud / mesh workflow ported to arraygnn, side by side with PyG 2.8.

Position-only ``Data`` (``num_nodes`` from ``pos``), batching, the point-cloud and mesh
transforms on a ``Data`` and on a ``Batch`` of clouds, compared with PyG's transforms where
they are deterministic and by invariants where random. PyG's ``KNNGraph`` /
``RadiusGraph`` / ``GridSampling`` call pyg-lib / torch_cluster kernels, which are not
installed: the ``pyg_point_ops`` fixture gives ``torch.ops.pyg`` brute-force versions of
them (independent of arraygnn's k-d tree search).
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygnn.transforms as A
from arraygnn.batch import Batch
from arraygnn.data import Data
from arraygnn.loader import DataLoader

torch = pytest.importorskip("torch")
pyg_data = pytest.importorskip("torch_geometric.data")
T = pytest.importorskip("torch_geometric.transforms")


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def _clouds(seed: int = 0, sizes=(5, 6, 7), dtype=np.float32) -> list:
    rng = np.random.default_rng(seed)
    return [rng.random((n, 3)).astype(dtype) for n in sizes]


def _batch(clouds, **per_graph) -> Batch:
    return Batch.from_data_list(
        [
            Data(pos=c.copy(), **{k: v[i] for k, v in per_graph.items()})
            for i, c in enumerate(clouds)
        ]
    )


def _pyg_batch(clouds, **per_graph):
    return pyg_data.Batch.from_data_list(
        [
            pyg_data.Data(pos=_t(c), **{k: _t(v[i]) for k, v in per_graph.items()})
            for i, c in enumerate(clouds)
        ]
    )


# ------------------------------------------------ brute-force torch.ops.pyg for PyG's side
def _graph_of(ptr, n):
    return (
        np.zeros(n, np.int64)
        if ptr is None
        else np.repeat(np.arange(len(ptr) - 1), np.diff(ptr.numpy()))
    )


def _search(x, y, ptr_x, ptr_y, limit, r, skip_self):
    """For each y point, the points of x of its example (distance < r), nearest first."""
    xn, yn = x.double().numpy().reshape(len(x), -1), y.double().numpy().reshape(len(y), -1)
    bx, by = _graph_of(ptr_x, len(x)), _graph_of(ptr_y, len(y))
    rows, cols = [], []
    for i in range(len(yn)):
        d = ((xn - yn[i]) ** 2).sum(1)
        ok = (bx == by[i]) & (d < r * r)
        if skip_self:
            ok[i] = False
        nb = np.flatnonzero(ok)
        nb = nb[np.lexsort((nb, d[nb]))][:limit]
        rows += [i] * len(nb)
        cols += nb.tolist()
    return torch.tensor([rows, cols], dtype=torch.long).reshape(2, -1)


def _grid(pos, size, start, end):
    """torch_cluster's grid_cluster."""
    pos = pos.view(pos.size(0), -1)
    start = pos.min(0).values if start is None else start
    end = pos.max(0).values if end is None else end
    pos = pos - start.unsqueeze(0)
    nv = (end - start).true_divide(size).long() + 1
    nv = torch.cat([torch.ones(1, dtype=torch.long), nv.cumprod(0)])[: len(size)]
    return (pos.true_divide(size.view(1, -1)).long() * nv.view(1, -1)).sum(1)


@pytest.fixture
def pyg_point_ops(monkeypatch):
    import torch_geometric.typing as typing

    def knn(x, y, ptr_x, ptr_y, k, cosine, num_workers):
        assert not cosine
        return _search(x, y, ptr_x, ptr_y, k, np.inf, False)

    def radius(x, y, ptr_x, ptr_y, r, max_num_neighbors, num_workers, ignore_same_index):
        return _search(x, y, ptr_x, ptr_y, max_num_neighbors, r, ignore_same_index)

    for flag in ("WITH_KNN", "WITH_RADIUS", "WITH_GRID_CLUSTER"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    for name, op in (("knn", knn), ("radius", radius), ("grid_cluster", _grid)):
        monkeypatch.setattr(torch.ops.pyg, name, op, raising=False)


# ------------------------------------------------------------------ containers
def test_pos_only_clouds_batch_split_and_load_like_pyg():
    clouds = _clouds()
    ys = [np.array([i]) for i in range(3)]
    data = [Data(pos=c, y=y) for c, y in zip(clouds, ys)]
    assert [d.num_nodes for d in data] == [5, 6, 7]
    b = Batch.from_data_list(data)
    tb = _pyg_batch(clouds, y=ys)
    for key in ("pos", "y", "batch", "ptr"):
        np.testing.assert_array_equal(b[key], tb[key].numpy())
    assert b.num_graphs == 3 and b.num_nodes == 18
    for mine, theirs in zip(b.to_data_list(), tb.to_data_list()):
        assert mine.num_nodes == theirs.num_nodes
        np.testing.assert_array_equal(mine.pos, theirs.pos.numpy())
    sizes = [(bb.num_graphs, bb.batch.tolist()) for bb in DataLoader(data, batch_size=2)]
    assert sizes == [(2, [0] * 5 + [1] * 6), (1, [0] * 7)]
    # meshes: face ids increased by the nodes before them, as PyG
    face = np.array([[0, 1, 2], [1, 2, 3]]).T
    mb = Batch.from_data_list([Data(pos=c, face=face) for c in clouds])
    tmb = pyg_data.Batch.from_data_list([pyg_data.Data(pos=_t(c), face=_t(face)) for c in clouds])
    np.testing.assert_array_equal(mb.face, tmb.face.numpy())
    np.testing.assert_array_equal(mb.get_example(2).face, face)
    # an empty cloud batches too
    e = Batch.from_data_list([Data(pos=np.zeros((0, 3), np.float32)), Data(pos=clouds[0])])
    assert e.ptr.tolist() == [0, 0, 5] and e.to_data_list()[0].num_nodes == 0


# ------------------------------------------------------------------ transforms on a Data
def test_deterministic_transforms_match_pyg_on_a_cloud_and_a_mesh():
    rng = np.random.default_rng(3)
    pos = rng.random((8, 3)).astype(np.float32)
    normal = rng.random((8, 3)).astype(np.float32)
    face = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4], [4, 5, 6], [5, 6, 7]]).T
    ei = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 1], [1, 2, 3, 4, 5, 6, 7, 0, 3]])
    matrix = rng.random((3, 3)).astype(np.float32)
    cases = [
        (A.Center(), T.Center(), dict(pos=pos), ["pos"]),
        (A.NormalizeScale(), T.NormalizeScale(), dict(pos=pos), ["pos"]),
        (
            A.LinearTransformation(matrix),
            T.LinearTransformation(_t(matrix)),
            dict(pos=pos, normal=normal),
            ["pos", "normal"],
        ),
        (
            A.RandomRotate((30, 30), axis=1),
            T.RandomRotate((30, 30), axis=1),
            dict(pos=pos),
            ["pos"],
        ),
        (A.RandomScale((2.0, 2.0)), T.RandomScale((2.0, 2.0)), dict(pos=pos), ["pos"]),
        (A.RandomFlip(2, p=1.0), T.RandomFlip(2, p=1.0), dict(pos=pos), ["pos"]),
        (A.FaceToEdge(), T.FaceToEdge(), dict(pos=pos, face=face), ["edge_index"]),
        (A.GenerateMeshNormals(), T.GenerateMeshNormals(), dict(pos=pos, face=face), ["norm"]),
        (A.Delaunay(), T.Delaunay(), dict(pos=pos[:, :2]), ["face"]),
        (A.Distance(), T.Distance(), dict(pos=pos, edge_index=ei), ["edge_attr"]),
        (A.Cartesian(), T.Cartesian(), dict(pos=pos, edge_index=ei), ["edge_attr"]),
        (A.LocalCartesian(), T.LocalCartesian(), dict(pos=pos, edge_index=ei), ["edge_attr"]),
        (A.Polar(), T.Polar(), dict(pos=pos[:, :2], edge_index=ei), ["edge_attr"]),
        (A.Spherical(), T.Spherical(), dict(pos=pos, edge_index=ei), ["edge_attr"]),
        (
            A.PointPairFeatures(),
            T.PointPairFeatures(),
            dict(pos=pos, norm=normal, edge_index=ei),
            ["edge_attr"],
        ),
        (
            A.Compose([A.GenerateMeshNormals(), A.FaceToEdge(), A.Cartesian(), A.Distance()]),
            T.Compose([T.GenerateMeshNormals(), T.FaceToEdge(), T.Cartesian(), T.Distance()]),
            dict(pos=pos, face=face),
            ["norm", "edge_index", "edge_attr"],
        ),
    ]
    for mine, theirs, inputs, keys in cases:
        out = mine(Data(**inputs))
        ref = theirs(pyg_data.Data(**{k: _t(v) for k, v in inputs.items()}))
        assert sorted(out.keys()) == sorted(ref.keys()), mine
        for key in keys:
            assert out[key].dtype == ref[key].numpy().dtype, (mine, key)
            np.testing.assert_allclose(out[key], ref[key].numpy(), atol=1e-6, err_msg=repr(mine))
        np.testing.assert_array_equal(inputs["pos"], inputs["pos"])  # the caller's, untouched


def test_normalize_rotation_matches_pyg_up_to_eigenvector_signs():
    rng = np.random.default_rng(5)
    pos = (rng.random((9, 3)) * [3.0, 1.0, 0.2]).astype(np.float32)
    normal = rng.random((9, 3)).astype(np.float32)
    out = A.NormalizeRotation(sort=True)(Data(pos=pos, normal=normal))
    ref = T.NormalizeRotation(sort=True)(pyg_data.Data(pos=_t(pos), normal=_t(normal)))
    sign = np.sign((out.pos * ref.pos.numpy()).sum(0))  # LAPACK's signs may differ
    np.testing.assert_allclose(out.pos * sign, ref.pos.numpy(), atol=1e-5)
    np.testing.assert_allclose(out.normal * sign, ref.normal.numpy(), atol=1e-5)


def test_random_augmentations_are_seeded_and_keep_their_invariants():
    pos = _clouds(2, sizes=(10,))[0]
    centred = A.Center()(Data(pos=pos)).pos
    d = Data(pos=centred)
    for make in (
        lambda s: A.RandomJitter(0.05, seed=s),
        lambda s: A.RandomFlip(0, seed=s),
        lambda s: A.RandomScale((0.8, 1.2), seed=s),
        lambda s: A.RandomRotate(180, axis=2, seed=s),
        lambda s: A.RandomShear(0.2, seed=s),
        lambda s: A.FixedPoints(4, seed=s),
    ):
        a, b = make(3)(d).pos, make(3)(d).pos
        np.testing.assert_array_equal(a, b)  # the same seed, the same draw
        assert a.dtype == np.float32 and a.shape[1] == 3
    assert np.abs(A.RandomJitter(0.05, seed=1)(d).pos - centred).max() <= 0.05
    rot = A.RandomRotate(180, axis=2, seed=4)(d).pos
    np.testing.assert_allclose(
        np.linalg.norm(rot, axis=1), np.linalg.norm(centred, axis=1), rtol=1e-5
    )
    np.testing.assert_array_equal(rot[:, 2], centred[:, 2])
    picked = A.FixedPoints(4, replace=False, seed=0)(d).pos
    assert len({tuple(p) for p in picked.tolist()}) == 4
    assert {tuple(p) for p in picked.tolist()} <= {tuple(p) for p in centred.tolist()}
    # SamplePoints: points on the mesh's faces, normals of unit length
    mesh = Data(
        pos=np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32), face=np.array([[0], [1], [2]])
    )
    out = A.SamplePoints(20, include_normals=True, seed=0)(mesh)
    ref = T.SamplePoints(20, include_normals=True)(
        pyg_data.Data(pos=_t(mesh.pos), face=_t(mesh.face))
    )
    assert sorted(out.keys()) == sorted(ref.keys()) and out.pos.shape == (20, 3)
    assert np.all(out.pos[:, 2] == 0) and np.all(out.pos[:, :2].sum(1) <= 1 + 1e-6)
    np.testing.assert_allclose(np.abs(out.normal), [[0, 0, 1]] * 20)


# ------------------------------------------------------------------ transforms on a Batch
def test_graph_builders_on_a_batch_of_clouds_match_pyg(pyg_point_ops):
    clouds = _clouds(1, sizes=(6, 7, 9))
    for mine, theirs in (
        (A.KNNGraph(3), T.KNNGraph(3)),
        (A.KNNGraph(2, force_undirected=True), T.KNNGraph(2, force_undirected=True)),
        (A.RadiusGraph(0.6, max_num_neighbors=4), T.RadiusGraph(0.6, max_num_neighbors=4)),
        (A.GridSampling(0.4), T.GridSampling(0.4)),
        (
            A.Compose([A.Center(), A.KNNGraph(3), A.Distance(norm=False)]),
            T.Compose([T.Center(), T.KNNGraph(3), T.Distance(norm=False)]),
        ),
    ):
        out, ref = mine(_batch(clouds)), theirs(_pyg_batch(clouds))
        for key in ("pos", "batch", "edge_index", "edge_attr"):
            if key in ref:
                np.testing.assert_allclose(
                    out[key], ref[key].numpy(), atol=1e-6, err_msg=repr(mine)
                )
        # unlike PyG's, the result splits back into the graphs (ptr and records rebuilt)
        parts = out.to_data_list()
        assert [p.num_nodes for p in parts] == np.diff(out.ptr).tolist()
        if "edge_index" in out:
            for i, p in enumerate(parts):
                alone = mine(Data(pos=clouds[i].copy()))
                np.testing.assert_array_equal(p.edge_index, alone.edge_index)


def test_grid_sampling_a_batch_votes_node_labels_like_pyg(pyg_point_ops):
    clouds = _clouds(4, sizes=(9, 11), dtype=np.float64)
    rng = np.random.default_rng(4)
    ys = [rng.integers(0, 4, len(c)) for c in clouds]
    out = A.GridSampling(0.5, node_attrs=["pos", "y"])(_batch(clouds, y=ys))
    ref = T.GridSampling(0.5)(_pyg_batch(clouds, y=ys))
    for key in ("pos", "y", "batch"):
        np.testing.assert_allclose(out[key], ref[key].numpy())
    assert [p.num_nodes for p in out.to_data_list()] == np.diff(out.ptr).tolist()


def test_new_edges_on_a_batch_keep_an_unchanged_graph_label_or_normal_splittable():
    """KNNGraph on a batch of labelled clouds, FaceToEdge after GenerateMeshNormals on a
    batch of meshes: ``y`` / ``norm`` are left as they were, so the batch still splits."""
    clouds = _clouds(6)
    ys = [np.array([i]) for i in range(3)]
    out = A.KNNGraph(2)(_batch(clouds, y=ys))
    for i, part in enumerate(out.to_data_list()):
        assert part.y.tolist() == [i]
        np.testing.assert_array_equal(
            part.edge_index, A.KNNGraph(2)(Data(pos=clouds[i])).edge_index
        )
    face = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4]]).T
    meshes = Batch.from_data_list([Data(pos=c, face=face) for c in clouds])
    out = A.Compose([A.GenerateMeshNormals(), A.FaceToEdge()])(meshes)
    for i, part in enumerate(out.to_data_list()):
        alone = A.Compose([A.GenerateMeshNormals(), A.FaceToEdge()])(Data(pos=clouds[i], face=face))
        np.testing.assert_array_equal(part.edge_index, alone.edge_index)
        np.testing.assert_allclose(part.norm, alone.norm, atol=1e-6)


def test_new_edges_on_a_batch_still_refuse_to_split_a_stale_per_edge_array():
    g = Data(pos=_clouds(7, sizes=(4,))[0], edge_index=np.array([[0, 1], [1, 2]]))
    g.edge_w = np.ones(2, np.float32)  # per edge, not named: left stale by KNNGraph
    out = A.KNNGraph(2)(Batch.from_data_list([g, g]))
    with pytest.raises(ValueError, match="no slice records"):
        out.to_data_list()


def test_unnamed_array_error_says_what_to_pass():
    pos = _clouds(8, sizes=(6,))[0]
    d = Data(pos=pos, y=np.arange(6) % 2)
    with pytest.raises(ValueError, match=r"\['y'\] are neither.*node_attrs=\['pos', 'y'\]"):
        A.FixedPoints(3, seed=0)(d)
    out = A.FixedPoints(3, seed=0, node_attrs=["pos", "y"])(d)
    assert out.y.shape == (3,)
    b = _batch(_clouds(8), y=[np.array([i]) for i in range(3)])
    with pytest.raises(ValueError, match=r"graph_attrs=\['y'\]"):
        A.GridSampling(0.5)(b)
    out = A.GridSampling(0.5, graph_attrs=["y"])(b)
    assert [p.y.tolist() for p in out.to_data_list()] == [[0], [1], [2]]
