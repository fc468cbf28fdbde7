"""Mesh and point-cloud transforms against PyG 2.8: ``FaceToEdge``, ``GenerateMeshNormals``,
``SamplePoints``, ``Delaunay``, ``KNNGraph``, ``RadiusGraph``, ``FixedPoints``,
``GridSampling``.

PyG's ``KNNGraph`` / ``RadiusGraph`` need torch_cluster and its ``GridSampling`` pyg-lib
(neither installable here): those are checked against :mod:`arraygnn.utils` (itself tested
against PyG's kernels' rules) and a brute-force voxel grouping. The random ones are checked
on their properties and on PyG's formula with our draw handed to PyG.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from _geometry_helpers import FLOATS, INDEX_DTYPES, to_pyg, tol, torch_or_skip

from arraygnn.data import Data
from arraygnn.transforms import (
    Delaunay,
    FaceToEdge,
    FixedPoints,
    GenerateMeshNormals,
    GridSampling,
    KNNGraph,
    RadiusGraph,
    SamplePoints,
)
from arraygnn.utils import knn_graph, radius_graph, to_undirected


def _unchanged(d):
    snap = {k: copy.deepcopy(v) for k, v in d.items()}

    def check():
        assert d.keys() == list(snap)
        for k, v in snap.items():
            np.testing.assert_array_equal(np.asarray(d[k]), np.asarray(v))

    return check


def _mesh(dtype=np.float64, idx=np.int64):
    """An octahedron, plus a degenerate (zero-area) face."""
    pos = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 2, 0], [0, -2, 0], [0, 0, 3], [0, 0, -3], [0.5, 0.5, 0]]
    ).astype(dtype)
    face = np.array(
        [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5],
         [0, 3, 5], [0, 0, 6]]
    ).T.astype(idx)  # fmt: skip
    return Data(pos=pos, face=face)


# ----------------------------------------------------------------------------- meshes


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("remove", [True, False])
def test_face_to_edge_matches_pyg(idx, remove):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    tri = _mesh(idx=idx)
    tet = Data(num_nodes=6, face=np.array([[0, 1], [1, 2], [2, 3], [3, 5]]).astype(idx))
    empty = Data(num_nodes=3, face=np.zeros((3, 0), idx))
    for d in (tri, tet, empty):
        check = _unchanged(d)
        out = FaceToEdge(remove_faces=remove)(d)
        check()
        ref = T.FaceToEdge(remove_faces=remove)(to_pyg(d, torch))
        assert out.edge_index.dtype == idx
        np.testing.assert_array_equal(out.edge_index, ref.edge_index.numpy())
        assert ("face" in out) == (not remove)
    plain = Data(x=np.zeros((2, 1)))
    assert FaceToEdge()(plain).keys() == ["x"]
    with pytest.raises(ValueError, match="FaceToEdge: expected face with shape \\[3 or 4"):
        FaceToEdge()(Data(face=np.zeros((2, 3), np.int64), num_nodes=3))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("idx", INDEX_DTYPES)
def test_generate_mesh_normals_matches_pyg(dtype, idx):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = _mesh(dtype, idx)
    rng = np.random.default_rng(0)
    d.pos = d.pos + rng.random(d.pos.shape).astype(dtype) * 0.1
    check = _unchanged(d)
    out = GenerateMeshNormals()(d)
    check()
    ref = T.GenerateMeshNormals()(to_pyg(d, torch))
    assert out.norm.dtype == dtype
    np.testing.assert_allclose(out.norm, ref.norm.numpy(), **tol(dtype))
    # a vertex on no face gets a zero normal, as PyG
    d.pos = np.concatenate([d.pos, np.ones((1, 3), dtype)])
    assert (GenerateMeshNormals()(d).norm[-1] == 0).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("normals", [False, True])
def test_sample_points_is_pygs_formula_with_our_draws(monkeypatch, dtype, normals):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = _mesh(dtype)
    num = 200
    check = _unchanged(d)
    out = SamplePoints(num, include_normals=normals, seed=3)(d)
    check()
    assert out.pos.shape == (num, 3) and out.pos.dtype == dtype and "face" not in out
    # replay our draws: faces by inverse CDF of the areas, then the barycentric fractions
    draw = np.random.default_rng(3)
    pos = d.pos / np.abs(d.pos).max()
    f = d.face
    area = np.linalg.norm(np.cross(pos[f[1]] - pos[f[0]], pos[f[2]] - pos[f[0]]), axis=1) / 2
    cdf = np.cumsum(area.astype(np.float64))
    sample = np.searchsorted(cdf, draw.random(num) * cdf[-1], side="right")
    frac = draw.random((num, 2))
    assert not (sample == 8).any()  # the zero-area face is never drawn
    monkeypatch.setattr(torch, "multinomial", lambda *a, **k: torch.from_numpy(sample))
    monkeypatch.setattr(torch, "rand", lambda *a, **k: torch.from_numpy(frac.astype(np.float32)))
    ref = T.SamplePoints(num, include_normals=normals)(to_pyg(d, torch))
    np.testing.assert_allclose(out.pos, ref.pos.numpy(), rtol=1e-5, atol=1e-5)
    if normals:
        np.testing.assert_allclose(out.normal, ref.normal.numpy(), rtol=1e-5, atol=1e-5)
    # on the surface: |x| / 1 + |y| / 2 + |z| / 3 = 1 on the octahedron
    level = np.abs(out.pos) @ np.array([1.0, 0.5, 1 / 3])
    np.testing.assert_allclose(level, 1.0, rtol=1e-4)


def test_sample_points_by_area_and_errors():
    d = Data(
        pos=np.array([[0.0, 0, 0], [3, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]]),
        face=np.array([[0, 1, 2], [0, 2, 4]]).T,
    )  # areas 1.5 and 0.5
    out = SamplePoints(20000, remove_faces=False, seed=0)(d)
    assert "face" in out
    share = float((out.pos[:, 0] > 1e-12).mean())  # points of the first face have x > 0
    assert abs(share - 0.75) < 0.02
    with pytest.raises(ValueError, match="SamplePoints: data holds \\['x'\\]"):
        SamplePoints(3)(Data(pos=d.pos, face=d.face, x=np.zeros((5, 1))))
    with pytest.raises(ValueError, match="SamplePoints: expected face with shape \\[3"):
        SamplePoints(3)(Data(pos=d.pos, face=np.zeros((4, 1), np.int64)))
    with pytest.raises(ValueError, match="SamplePoints: face holds node id 9"):
        SamplePoints(3)(Data(pos=d.pos, face=np.array([[0], [1], [9]])))
    assert SamplePoints(0)(d).pos.shape == (0, 3)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 25])
def test_delaunay_matches_pyg(dtype, n):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = Data(pos=np.random.default_rng(n).random((n, 2)).astype(dtype))
    check = _unchanged(d)
    out = Delaunay()(d)
    check()
    ref = T.Delaunay()(to_pyg(d, torch))
    assert sorted(out.keys()) == sorted(ref.keys())
    for k in out.keys():
        if k != "pos":
            assert out[k].dtype == np.int64
            np.testing.assert_array_equal(out[k], ref[k].numpy())


# ----------------------------------------------------------------------------- point clouds


@pytest.mark.parametrize("dtype", FLOATS)
def test_knn_and_radius_graph(dtype):
    rng = np.random.default_rng(1)
    pos = rng.random((20, 3)).astype(dtype)
    batch = np.repeat([0, 1], 10)
    d = Data(pos=pos, batch=batch, edge_index=np.zeros((2, 1), np.int64),
             edge_attr=np.ones((1, 2)), edge_weight=np.ones(1))  # fmt: skip
    check = _unchanged(d)
    out = KNNGraph(k=3, force_undirected=True)(d)
    check()
    want = to_undirected(knn_graph(pos, 3, batch), num_nodes=20)
    np.testing.assert_array_equal(out.edge_index, want)
    assert "edge_attr" not in out and "edge_weight" not in out
    out = KNNGraph(k=2, loop=True, flow="target_to_source", cosine=True)(d)
    np.testing.assert_array_equal(
        out.edge_index, knn_graph(pos, 2, batch, loop=True, flow="target_to_source", cosine=True)
    )
    out = RadiusGraph(0.4, max_num_neighbors=4, edge_attrs=["edge_attr"])(d)
    np.testing.assert_array_equal(
        out.edge_index, radius_graph(pos, 0.4, batch, max_num_neighbors=4)
    )
    assert "edge_attr" not in out and "edge_weight" in out
    assert KNNGraph()(Data(pos=np.zeros((0, 3)))).edge_index.shape == (2, 0)
    with pytest.raises(ValueError, match="KNNGraph: k must be an int >= 1"):
        KNNGraph(k=0)
    with pytest.raises(ValueError, match="RadiusGraph: r must be a number"):
        RadiusGraph("1")
    with pytest.raises(ValueError, match="KNNGraph: data has no 'pos'"):
        KNNGraph()(Data(x=np.zeros((2, 2))))


@pytest.mark.parametrize("replace,dup", [(True, False), (False, False), (False, True)])
def test_fixed_points_matches_pyg_with_our_draw(monkeypatch, replace, dup):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    n, num = 7, 16
    rng = np.random.default_rng(0)
    d = Data(pos=rng.random((n, 3)), x=np.arange(n * 2.0).reshape(n, 2), y=np.array([3]),
             num_nodes=n)  # fmt: skip
    check = _unchanged(d)
    out = FixedPoints(num, replace=replace, allow_duplicates=dup, graph_attrs=["y"], seed=2)(d)
    check()
    draw = np.random.default_rng(2)
    if replace:
        choice = (draw.random(num) * n).astype(np.int64)
        monkeypatch.setattr(np.random, "choice", lambda *a, **k: choice)
    else:
        perms = [draw.permutation(n) for _ in range(-(-num // n) if dup else 1)]
        queue = list(perms)
        monkeypatch.setattr(torch, "randperm", lambda m, *a, **k: torch.from_numpy(queue.pop(0)))
    ref = T.FixedPoints(num, replace=replace, allow_duplicates=dup)(to_pyg(d, torch))
    for k in ("pos", "x", "y"):
        np.testing.assert_array_equal(out[k], ref[k].numpy())
    assert out.num_nodes == ref.num_nodes == (num if replace or dup else n)
    # rows stay together: x row i still belongs to pos row i
    src = {tuple(p): tuple(x) for p, x in zip(d.pos.tolist(), d.x.tolist())}
    assert all(src[tuple(p)] == tuple(x) for p, x in zip(out.pos.tolist(), out.x.tolist()))


def test_fixed_points_levels_and_errors():
    d = Data(pos=np.zeros((4, 3)), y=np.zeros(4))
    with pytest.raises(ValueError, match="FixedPoints: data attribute\\(s\\) \\['y'\\]"):
        FixedPoints(2)(d)
    out = FixedPoints(2, node_attrs=["pos", "y"], seed=0)(d)
    assert out.y.shape == (2,) and "num_nodes" not in out
    with pytest.raises(ValueError, match="FixedPoints: the graph has no nodes"):
        FixedPoints(2)(Data(pos=np.zeros((0, 3))))
    assert FixedPoints(0)(Data(pos=np.zeros((0, 3)))).pos.shape == (0, 3)
    with pytest.raises(TypeError, match="FixedPoints: num must be an int"):
        FixedPoints(2.5)
    with pytest.raises(TypeError, match="FixedPoints: replace must be True or False"):
        FixedPoints(2, replace="no")  # was bool("no") = True: a draw with replacement


def _grid_reference(pos, size, batch):
    """Brute force: the points of one (batch, voxel) averaged, voxels in the order of the
    linear id (the first coordinate fastest, the batch slowest)."""
    lo = pos.min(0)
    cells = np.trunc((pos - lo) / size).astype(np.int64)
    keys = [(int(b), *reversed(c.tolist())) for b, c in zip(batch, cells)]
    groups = sorted(set(keys))
    members = [[i for i, k in enumerate(keys) if k == g] for g in groups]
    return members


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("with_batch", [False, True])
def test_grid_sampling_against_brute_force(dtype, with_batch):
    rng = np.random.default_rng(4)
    n = 60
    pos = (rng.random((n, 3)) * [3.0, 2.0, 1.0]).astype(dtype)
    y = rng.integers(0, 3, n)
    x = rng.random((n, 2)).astype(dtype)
    batch = np.repeat([0, 2], n // 2) if with_batch else np.zeros(n, np.int64)
    d = Data(pos=pos, x=x, y=y)
    names = ["pos", "x", "y"]
    if with_batch:
        d.batch = batch
        names.append("batch")
    check = _unchanged(d)
    out = GridSampling([0.7, 0.5], node_attrs=names)(d)
    check()
    members = _grid_reference(pos, np.array([0.7, 0.5, 0.5], dtype), batch)
    assert out.pos.shape == (len(members), 3) and out.pos.dtype == dtype
    for j, m in enumerate(members):
        np.testing.assert_allclose(out.pos[j], pos[m].mean(0), **tol(dtype))
        np.testing.assert_allclose(out.x[j], x[m].mean(0), **tol(dtype))
        counts = np.bincount(y[m], minlength=3)
        assert out.y[j] == int(np.argmax(counts))
        if with_batch:
            assert out.batch[j] == batch[m[0]]


def test_grid_sampling_start_end_and_errors():
    pos = np.array([[0.1], [0.4], [1.2], [2.9]])
    out = GridSampling(1.0, start=0.0, end=3.0)(Data(pos=pos))
    np.testing.assert_allclose(out.pos.ravel(), [0.25, 1.2, 2.9])
    with pytest.raises(ValueError, match="GridSampling: coarsening of edges is not supported"):
        GridSampling(1.0)(Data(pos=pos, edge_index=np.array([[0], [1]])))
    with pytest.raises(ValueError, match="GridSampling: data attribute\\(s\\) \\['y'\\]"):
        GridSampling(1.0)(Data(pos=pos, y=np.zeros(4)))
    with pytest.raises(ValueError, match="GridSampling: size must be"):
        GridSampling([1.0, 1.0])(Data(pos=pos))
    assert GridSampling(1.0)(Data(pos=np.zeros((0, 2)))).pos.shape == (0, 2)
