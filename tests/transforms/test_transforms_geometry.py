"""Point-position transforms and edge pseudo-coordinates against PyG 2.8.

Deterministic transforms must match PyG's outputs to float tolerance (float32 and float64,
int32 / int64 ids). Random ones are checked on their properties and, with the random draw
handed to PyG (Python's ``random`` patched, or the drawn matrix passed to PyG's
``LinearTransformation``), on PyG's formula.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from _geometry_helpers import FLOATS, INDEX_DTYPES, to_pyg, tol, torch_or_skip

from arraygnn.data import Data
from arraygnn.hetero_data import HeteroData
from arraygnn.transforms import (
    Cartesian,
    Center,
    Distance,
    LinearTransformation,
    LocalCartesian,
    NormalizeRotation,
    NormalizeScale,
    PointPairFeatures,
    Polar,
    RandomFlip,
    RandomJitter,
    RandomRotate,
    RandomScale,
    RandomShear,
    Spherical,
)


def _run_both(ours, theirs, d, torch):
    snap = {k: copy.deepcopy(v) for k, v in d.items()}
    out = ours(d)
    for k, v in snap.items():  # the input is never modified
        np.testing.assert_array_equal(np.asarray(d[k]), np.asarray(v))
    assert d.keys() == list(snap)
    ref = theirs(to_pyg(d, torch))
    return out, ref


def _cloud(n=12, dim=3, e=30, dtype=np.float64, idx=np.int64, seed=0, edge_attr=None):
    rng = np.random.default_rng(seed)
    pos = (rng.standard_normal((n, dim)) * 3 + 1).astype(dtype)
    ei = rng.integers(0, n, (2, e)).astype(idx) if n else np.zeros((2, 0), idx)
    d = Data(pos=pos, edge_index=ei, num_nodes=n)
    if edge_attr is not None:
        d.edge_attr = rng.random((e,) if edge_attr == 1 else (e, edge_attr)).astype(dtype)
    return d


# ----------------------------------------------------------------------------- positions


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 7])
def test_center_and_normalize_scale(dtype, n):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = _cloud(n, dtype=dtype)
    out, ref = _run_both(Center(), T.Center(), d, torch)
    assert out.pos.dtype == dtype
    np.testing.assert_allclose(out.pos, ref.pos.numpy(), **tol(dtype))
    if n:
        out, ref = _run_both(NormalizeScale(), T.NormalizeScale(), d, torch)
        assert out.pos.dtype == dtype
        np.testing.assert_allclose(out.pos, ref.pos.numpy(), **tol(dtype))


def test_center_and_linear_transformation_hetero():
    torch = torch_or_skip()
    import torch_geometric.transforms as T
    from torch_geometric.data import HeteroData as PygHetero

    rng = np.random.default_rng(1)
    d = HeteroData()
    d["a"].pos = rng.random((4, 2))
    d["b"].pos = rng.random((3, 2)).astype(np.float32)
    d["c"].x = np.zeros((2, 2))
    ref_in = PygHetero()
    for t in ("a", "b"):
        ref_in[t].pos = torch.from_numpy(d[t].pos)
    m = [[1.0, 2.0], [-0.5, 0.25]]
    for ours, theirs in ((Center(), T.Center()), (LinearTransformation(m), None)):
        theirs = theirs or T.LinearTransformation(torch.tensor(m))
        out, ref = ours(d), theirs(copy.copy(ref_in))
        for t in ("a", "b"):
            assert out[t].pos.dtype == d[t].pos.dtype
            np.testing.assert_allclose(out[t].pos, ref[t].pos.numpy(), **tol(d[t].pos.dtype))
        assert "pos" not in out["c"]
    assert not np.shares_memory(out["a"].pos, d["a"].pos)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("one_dim", [False, True])
def test_linear_transformation(dtype, one_dim):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    rng = np.random.default_rng(2)
    if one_dim:
        d, m = Data(pos=rng.random(5).astype(dtype)), [[2.0]]
    else:
        d, m = Data(pos=rng.random((5, 3)).astype(dtype)), rng.random((3, 3))
    out, ref = _run_both(LinearTransformation(m), T.LinearTransformation(torch.tensor(m)), d, torch)
    assert out.pos.dtype == dtype
    np.testing.assert_allclose(out.pos, ref.pos.numpy(), **tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [2, 3])
def test_normalize_rotation(dtype, dim):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    rng = np.random.default_rng(3)
    scale = np.array([5.0, 2.0, 0.5][:dim])
    pos = (rng.standard_normal((40, dim)) * scale) @ np.linalg.qr(rng.random((dim, dim)))[0]
    d = Data(pos=pos.astype(dtype), normal=rng.standard_normal((40, dim)).astype(dtype))
    for sort in (True, False):
        out, ref = _run_both(NormalizeRotation(sort=sort), T.NormalizeRotation(sort=sort), d, torch)
        assert out.pos.dtype == dtype and out.normal.dtype == dtype
        # LAPACK's eigenvectors are unique up to sign: compare with each column's sign aligned
        for key in ("pos", "normal"):
            got, want = out[key], ref[key].numpy()
            sign = np.sign((got * want).sum(0))
            np.testing.assert_allclose(got * sign, want, rtol=1e-4, atol=1e-4)
        if sort:
            spread = out.pos.var(0)
            assert (np.diff(spread) <= 1e-6 * spread[0]).all()
    # max_points at least the point count: no subsample, the same result
    a = NormalizeRotation(max_points=40, sort=True, seed=0)(d).pos
    np.testing.assert_allclose(a, NormalizeRotation(sort=True)(d).pos)
    sub = NormalizeRotation(max_points=10, sort=True, seed=0)(d)
    assert sub.pos.shape == d.pos.shape


# ----------------------------------------------------------------------------- random


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_jitter(dtype):
    d = _cloud(50, dtype=dtype)
    out = RandomJitter([0.1, -0.2, 0.0], seed=4)(d)
    assert out.pos.dtype == dtype
    delta = out.pos - d.pos
    assert (np.abs(delta) <= np.array([0.1, 0.2, 0.0]) + 1e-6).all()
    assert (delta[:, 2] == 0).all() and np.abs(delta[:, 0]).max() > 0.05
    # the formula with the draw fixed: pos + uniform(-|t|, |t|)
    want = d.pos + np.random.default_rng(4).uniform(-0.1, 0.1, (50, 3)).astype(dtype)
    np.testing.assert_allclose(RandomJitter(0.1, seed=4)(d).pos, want, rtol=1e-6)
    with pytest.raises(ValueError, match="RandomJitter: translate has 2 entries"):
        RandomJitter([0.1, 0.1])(d)


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_flip_scale_rotate_match_pyg_with_the_draw_fixed(monkeypatch, dtype):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = _cloud(9, dtype=dtype)
    d2 = Data(pos=d.pos[:, :2].copy())
    for seed in range(4):
        u = np.random.default_rng(seed).random()
        monkeypatch.setattr(random, "random", lambda u=u: u)
        monkeypatch.setattr(random, "uniform", lambda a, b, u=u: a + (b - a) * u)
        cases = [
            (RandomFlip(1, p=0.5, seed=seed), T.RandomFlip(1, p=0.5), d),
            (RandomScale((0.5, 2.0), seed=seed), T.RandomScale((0.5, 2.0)), d),
            (RandomRotate(45, axis=2, seed=seed), T.RandomRotate(45, axis=2), d),
            (RandomRotate((10, 80), axis=0, seed=seed), T.RandomRotate((10, 80), axis=0), d),
            (RandomRotate(180, axis=1, seed=seed), T.RandomRotate(180, axis=1), d),
            (RandomRotate(30, seed=seed), T.RandomRotate(30), d2),
        ]
        for ours, theirs, data in cases:
            out, ref = _run_both(ours, theirs, data, torch)
            assert out.pos.dtype == dtype
            np.testing.assert_allclose(out.pos, ref.pos.numpy(), **tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_random_shear_is_pygs_formula(dtype):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d = _cloud(8, dtype=dtype)
    out = RandomShear(0.3, seed=5)(d)
    m = np.random.default_rng(5).uniform(-0.3, 0.3, (3, 3)).astype(dtype)
    np.fill_diagonal(m, 1)
    ref = T.LinearTransformation(torch.from_numpy(m))(to_pyg(d, torch))
    np.testing.assert_allclose(out.pos, ref.pos.numpy(), **tol(dtype))


def test_random_transforms_seeded_and_not_mutating():
    d = _cloud(6)
    snap = d.pos.copy()
    for make in (
        lambda: RandomJitter(0.5, seed=1),
        lambda: RandomFlip(0, seed=1),
        lambda: RandomScale((0.1, 3.0), seed=1),
        lambda: RandomRotate(90, seed=1),
        lambda: RandomShear(0.5, seed=1),
    ):
        t1, t2 = make(), make()
        for _ in range(3):
            np.testing.assert_array_equal(t1(d).pos, t2(d).pos)
        np.testing.assert_array_equal(d.pos, snap)
    flips = [bool((RandomFlip(0, p=0.5, seed=s)(d).pos != d.pos).any()) for s in range(40)]
    assert 5 < sum(flips) < 35
    assert (RandomFlip(0, p=0.0)(d).pos == d.pos).all()


# ----------------------------------------------------------------------------- pseudo-coordinates


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("edge_attr", [None, 1, 2])
def test_pseudo_coordinates_match_pyg(dtype, idx, edge_attr):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    d3 = _cloud(10, 3, dtype=dtype, idx=idx, edge_attr=edge_attr)
    d2 = _cloud(10, 2, dtype=dtype, idx=idx, edge_attr=edge_attr, seed=1)
    d1 = Data(pos=d2.pos[:, 0].copy(), edge_index=d2.edge_index)
    # no zero-length edges for Spherical's acos (nan in both, compared below separately)
    cases = [
        (Cartesian(), T.Cartesian(), d3),
        (Cartesian(norm=False, cat=False), T.Cartesian(norm=False, cat=False), d3),
        (Cartesian(max_value=4.0, interval=(-1.0, 1.0)),
         T.Cartesian(max_value=4.0, interval=(-1.0, 1.0)), d2),
        (Cartesian(), T.Cartesian(), d1),
        (LocalCartesian(), T.LocalCartesian(), d3),
        (LocalCartesian(interval=(-2.0, 3.0), cat=False),
         T.LocalCartesian(interval=(-2.0, 3.0), cat=False), d2),
        (Distance(), T.Distance(), d3),
        (Distance(norm=False, cat=False), T.Distance(norm=False, cat=False), d2),
        (Distance(max_value=10.0, interval=(1.0, 2.0)),
         T.Distance(max_value=10.0, interval=(1.0, 2.0)), d3),
        (Polar(), T.Polar(), d2),
        (Polar(norm=False, max_value=3.0), T.Polar(norm=False, max_value=3.0), d2),
        (Spherical(), T.Spherical(), d3),
        (Spherical(max_value=2.0, cat=False), T.Spherical(max_value=2.0, cat=False), d3),
    ]  # fmt: skip
    for ours, theirs, d in cases:
        with np.errstate(invalid="ignore", divide="ignore"):
            out, ref = _run_both(ours, theirs, d, torch)
        want = ref.edge_attr.numpy()
        assert out.edge_attr.dtype == want.dtype, type(ours).__name__
        np.testing.assert_allclose(
            out.edge_attr, want, equal_nan=True, err_msg=type(ours).__name__, **tol(dtype)
        )
        assert out.edge_index is d.edge_index


@pytest.mark.parametrize("dtype", FLOATS)
def test_point_pair_features_match_pyg(dtype):
    torch = torch_or_skip()
    import torch_geometric.transforms as T

    for edge_attr in (None, 3):
        d = _cloud(10, 3, dtype=dtype, edge_attr=edge_attr)
        d.norm = np.random.default_rng(7).standard_normal((10, 3)).astype(dtype)
        for cat in (True, False):
            out, ref = _run_both(PointPairFeatures(cat=cat), T.PointPairFeatures(cat=cat), d, torch)
            assert out.edge_attr.dtype == dtype
            np.testing.assert_allclose(out.edge_attr, ref.edge_attr.numpy(), **tol(dtype))


def test_pseudo_coordinates_empty_graph():
    d = Data(pos=np.zeros((3, 3), np.float32), edge_index=np.zeros((2, 0), np.int32))
    for t, width in ((Cartesian(), 3), (LocalCartesian(), 3), (Distance(), 1), (Spherical(), 3)):
        out = t(d)
        assert out.edge_attr.shape == (0, width) and out.edge_attr.dtype == np.float32
    d2 = Data(pos=np.zeros((0, 2)), edge_index=np.zeros((2, 0), np.int64))
    assert Polar()(d2).edge_attr.shape == (0, 2)


def test_geometry_errors_name_the_transform():
    d = Data(pos=np.zeros((3, 3)), edge_index=np.array([[0], [5]]))
    with pytest.raises(ValueError, match="Distance: edge_index holds node id 5"):
        Distance()(d)
    assert "pos" not in Center()(Data(x=np.zeros((2, 2))))  # skipped, as PyG
    with pytest.raises(ValueError, match="NormalizeScale: data has no 'pos'"):
        NormalizeScale()(Data(x=np.zeros((2, 2))))
    with pytest.raises(TypeError, match="Cartesian: data.pos must hold floats"):
        Cartesian()(Data(pos=np.zeros((2, 2), np.int64), edge_index=np.array([[0], [1]])))
    with pytest.raises(ValueError, match="Polar: pos must be \\[N, 2\\]"):
        Polar()(Data(pos=np.zeros((2, 3)), edge_index=np.array([[0], [1]])))
    with pytest.raises(ValueError, match="PointPairFeatures: data has no 'norm'"):
        PointPairFeatures()(Data(pos=np.zeros((2, 3)), edge_index=np.array([[0], [1]])))
    with pytest.raises(ValueError, match="LinearTransformation: matrix must be square"):
        LinearTransformation(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="LinearTransformation: pos has 3 columns"):
        LinearTransformation(np.eye(2))(Data(pos=np.zeros((2, 3))))
    with pytest.raises(ValueError, match="RandomRotate: axis"):
        RandomRotate(10, axis=3)
    with pytest.raises(ValueError, match="RandomScale: scales"):
        RandomScale(2.0)
    with pytest.raises(ValueError, match="RandomFlip: axis 4 is out of range"):
        RandomFlip(4)(Data(pos=np.zeros((2, 3))))
    with pytest.raises(TypeError, match="Cartesian: norm must be True or False"):
        Cartesian(norm=1)
    with pytest.raises(TypeError, match="Distance takes a Data, not a HeteroData"):
        Distance()(HeteroData(a={"pos": np.zeros((2, 3))}))
    with pytest.raises(TypeError, match="RandomJitter: seed"):
        RandomJitter(0.1, seed=1.5)
