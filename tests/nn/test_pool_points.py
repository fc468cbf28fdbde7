"""fps, nearest and voxel_grid (arraygnn.nn.pool_points) against torch_cluster's semantics.

torch_cluster / pyg-lib are not installed, so PyG's own wrappers (``torch_geometric.nn.fps``
/ ``nearest`` / ``voxel_grid``) are run with their ``torch.ops.pyg`` kernels replaced by
torch ports of torch_cluster's CPU code written here (``fps_cpu.cpp``, ``nearest.py``'s CPU
path, ``grid_cpu.cpp``); fps is also checked against a plain NumPy loop and, with random
starts, by its properties. Random point clouds, batches with an empty example, one point,
duplicate points, int32 / int64 batches, float32 / float64; errors."""

from __future__ import annotations

import numpy as np
import pytest

from arraygnn.nn import fps, nearest, voxel_grid

DTYPES = [np.float32, np.float64]


# ------------------------------------------------------------------ plain references
def fps_reference(pos, batch, ratio):
    """torch_cluster's fps_cpu with the first point as start, as a NumPy loop."""
    pos = pos.reshape(len(pos), -1)
    batch = np.zeros(len(pos), np.int64) if batch is None else np.asarray(batch, np.int64)
    out = []
    for b in range(int(batch.max()) + 1 if len(batch) else 0):
        idx = np.flatnonzero(batch == b)
        take = int(np.ceil(np.float32(len(idx)) * np.float32(ratio)))
        if take == 0:
            continue
        y = pos[idx]
        picks = [0]
        dist = ((y - y[0]) ** 2).sum(1)
        for _ in range(1, take):
            nxt = int(np.argmax(dist))
            picks.append(nxt)
            dist = np.minimum(dist, ((y - y[nxt]) ** 2).sum(1))
        out += [int(idx[p]) for p in picks]
    return out


def cloud(rng, sizes, dim, dtype, duplicates=False):
    """Points of examples with ``sizes`` points (0 allowed), sorted batch vector."""
    n = int(sum(sizes))
    pos = rng.standard_normal((n, dim)).astype(dtype)
    if duplicates and n >= 4:
        pos[1] = pos[0]
        pos[3] = pos[2]
    batch = np.repeat(np.arange(len(sizes)), sizes)
    return pos, batch


# ------------------------------------------------------------------ fps
CLOUDS = {
    "one-example": [40],
    "batched-empty": [13, 0, 21, 1, 7],
    "one-point": [1],
    "small": [2, 3],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", sorted(CLOUDS))
@pytest.mark.parametrize("ratio", [0.25, 0.5, 1.0])
@pytest.mark.parametrize("dim", [1, 3])
def test_fps_matches_numpy_reference(dtype, index_dtype, name, ratio, dim):
    rng = np.random.default_rng(0)
    pos, batch = cloud(rng, CLOUDS[name], dim, dtype)
    batch = batch.astype(index_dtype)
    copies = pos.copy(), batch.copy()
    out = fps(pos, batch, ratio=ratio, random_start=False)
    assert out.dtype == np.int64
    assert out.tolist() == fps_reference(pos, batch, ratio)
    np.testing.assert_array_equal(pos, copies[0])
    np.testing.assert_array_equal(batch, copies[1])
    if len(CLOUDS[name]) == 1:  # one example: batch None is the same
        assert fps(pos, None, ratio, random_start=False).tolist() == out.tolist()


def test_fps_torch_cluster_examples():
    x = np.array(
        [[-1, -1], [-1, 1], [1, 1], [1, -1], [-2, -2], [-2, 2], [2, 2], [2, -2]], np.float32
    )
    batch = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert fps(x, batch, random_start=False).tolist() == [0, 2, 4, 6]
    assert sorted(fps(x, random_start=False).tolist()) == [0, 5, 6, 7]


def test_fps_duplicates_and_counts():
    rng = np.random.default_rng(1)
    pos, batch = cloud(rng, [9, 6], 3, np.float64, duplicates=True)
    pos = np.concatenate([pos, np.repeat(pos[:1], 3, axis=0)])  # all-equal tail example
    batch = np.concatenate([batch, [2, 2, 2]])
    assert fps(pos, batch, 1.0, random_start=False).tolist() == fps_reference(pos, batch, 1.0)
    # the count is ceil(n * ratio) in float32, as torch_cluster: 30 * 0.1 -> 3 (float64: 4)
    pos30 = rng.standard_normal((30, 2))
    assert len(fps(pos30, ratio=0.1, random_start=False)) == 3
    assert fps(np.zeros((0, 3), np.float32), ratio=0.5).shape == (0,)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_fps_random_start_properties(seed, index_dtype):
    rng = np.random.default_rng(10 + seed)
    sizes = [30, 0, 17, 1, 25]
    pos, batch = cloud(rng, sizes, 3, np.float64)
    batch = batch.astype(index_dtype)
    out = fps(pos, batch, ratio=0.5, seed=seed)
    assert out.tolist() == fps(pos, batch, ratio=0.5, seed=seed).tolist()  # repeatable
    assert out.tolist() == fps(pos, batch, 0.5, seed=np.random.default_rng(seed)).tolist()
    at = 0
    for b, n in enumerate(sizes):
        take = int(np.ceil(np.float32(n) * np.float32(0.5)))
        picks = out[at : at + take]
        at += take
        if not take:
            continue
        assert (batch[picks] == b).all()  # every pick inside its example
        assert len(set(picks.tolist())) == take  # distinct (the points are distinct)
        dist = ((pos - pos[picks[0]]) ** 2).sum(1)
        for p in picks[1:]:  # each next pick is a farthest point from the picks so far
            inside = batch == b
            assert dist[p] == dist[inside].max()
            dist = np.minimum(dist, ((pos - pos[p]) ** 2).sum(1))
    assert at == len(out)
    # the start is drawn: over ten seeds example 0 does not always start at one point
    firsts = {int(fps(pos, batch, ratio=0.5, seed=s)[0]) for s in range(10)}
    assert len(firsts) > 1


def test_fps_errors():
    pos = np.zeros((4, 2))
    with pytest.raises(ValueError, match="fps: ratio"):
        fps(pos, ratio=0.0)
    with pytest.raises(ValueError, match="fps: ratio"):
        fps(pos, ratio=1.5)
    with pytest.raises(TypeError, match="fps: ratio"):
        fps(pos, ratio=True)
    with pytest.raises(TypeError, match="fps: x"):
        fps(np.zeros((4, 2), np.int64))
    with pytest.raises(ValueError, match="non-finite"):
        fps(np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="sorted"):
        fps(pos, np.array([0, 1, 0, 1]))
    with pytest.raises(ValueError, match="batch"):
        fps(pos, np.array([0, 0, 1]))
    with pytest.raises(TypeError, match="batch"):
        fps(pos, np.zeros(4))
    with pytest.raises(TypeError, match="random_start"):
        fps(pos, random_start=1)


# ------------------------------------------------------------------ nearest
def nearest_reference(x, y, bx, by):
    bx = np.zeros(len(x), np.int64) if bx is None else bx
    by = np.zeros(len(y), np.int64) if by is None else by
    d = ((x[:, None, :].astype(np.float64) - y[None, :, :]) ** 2).sum(-1)
    d[bx[:, None] != by[None, :]] = np.inf
    return d.argmin(1)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_nearest_matches_reference(dtype, index_dtype):
    rng = np.random.default_rng(3)
    x, bx = cloud(rng, [20, 0, 15, 1], 3, dtype)
    y, by = cloud(rng, [5, 0, 4, 2], 3, dtype)
    y[1] = y[0]  # a duplicate centre: the lower index wins
    bx, by = bx.astype(index_dtype), by.astype(index_dtype)
    out = nearest(x, y, bx, by)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, nearest_reference(x, y, bx, by))
    assert not (out == 1).any()
    one = nearest(x[:20], y[:5])
    np.testing.assert_array_equal(one, nearest_reference(x[:20], y[:5], None, None))
    assert nearest(np.zeros((0, 3), dtype), y[:5]).shape == (0,)
    assert nearest(x[:1], y[:1]).tolist() == [0]


def test_nearest_errors():
    x, y = np.zeros((4, 2)), np.zeros((2, 2))
    with pytest.raises(ValueError, match="nearest: the examples"):
        nearest(x, y, np.array([0, 0, 1, 1]), np.array([0, 0]))
    with pytest.raises(ValueError, match="nearest: the examples"):
        nearest(x, y, None, np.array([0, 1]))
    with pytest.raises(ValueError, match="columns"):
        nearest(x, np.zeros((2, 3)))
    with pytest.raises(ValueError, match="no points"):
        nearest(x, np.zeros((0, 2)))
    with pytest.raises(ValueError, match="sorted"):
        nearest(x, y, np.array([1, 0, 0, 1]), np.array([0, 1]))


# ------------------------------------------------------------------ voxel_grid
def test_voxel_grid_torch_cluster_example():
    pos = np.array([[0, 0], [11, 9], [2, 8], [2, 2], [8, 3]], np.float32)
    assert voxel_grid(pos, 5.0).tolist() == [0, 5, 3, 0, 1]
    assert voxel_grid(pos, [5.0]).tolist() == [0, 5, 3, 0, 1]
    assert voxel_grid(pos, np.array([5.0, 5.0, 9.0])).tolist() == [0, 5, 3, 0, 1]  # cut
    assert voxel_grid(pos, 5.0, end=[19.0, 19.0]).tolist() == [0, 6, 4, 0, 1]
    assert voxel_grid(pos, [5.0, 3.0], start=-5.0).tolist() == [5, 19, 17, 9, 10]


def test_voxel_grid_errors_and_empty():
    pos = np.zeros((3, 2))
    with pytest.raises(ValueError, match="voxel_grid: size"):
        voxel_grid(pos, 0.0)
    with pytest.raises(ValueError, match="voxel_grid: size"):
        voxel_grid(pos, [])
    with pytest.raises(TypeError, match="voxel_grid: size"):
        voxel_grid(pos, "a")
    with pytest.raises(TypeError, match="voxel_grid: pos"):
        voxel_grid(np.zeros((3, 2), np.int32), 1.0)
    with pytest.raises(ValueError, match="sorted"):
        voxel_grid(pos, 1.0, np.array([1, 0, 0]))
    assert voxel_grid(np.zeros((0, 3)), 1.0).shape == (0,)


# ------------------------------------------------------------------ PyG's own wrappers
torch = pytest.importorskip("torch")
pyg_nn = pytest.importorskip("torch_geometric.nn")


def _ptr_to_batch(ptr):
    return torch.repeat_interleave(torch.arange(len(ptr) - 1), ptr.diff())


def _fps_cpu(src, ptr, ratio, random_start):
    """torch_cluster's csrc/cpu/fps_cpu.cpp, first point as start."""
    assert not random_start
    src = src.view(src.size(0), -1)
    deg = ptr[1:] - ptr[:-1]
    out_ptr = (deg.to(torch.float) * torch.tensor(ratio, dtype=src.dtype)).ceil().long().cumsum(0)
    out = []
    for b in range(len(deg)):
        y = src[int(ptr[b]) : int(ptr[b + 1])]
        take = int(out_ptr[b]) - (int(out_ptr[b - 1]) if b else 0)
        if take == 0:
            continue
        picks = [0]
        dist = (y - y[0]).pow(2).sum(1)
        for _ in range(1, take):
            nxt = int(dist.argmax())
            picks.append(nxt)
            dist = torch.min(dist, (y - y[nxt]).pow(2).sum(1))
        out += [int(ptr[b]) + p for p in picks]
    return torch.tensor(out, dtype=torch.long)


def _nearest_cpu(x, y, ptr_x, ptr_y):
    """torch_cluster's nearest.py CPU path (rescale to [0, 1], batch as a coordinate,
    scipy's vq)."""
    import scipy.cluster.vq

    batch_x = None if ptr_x is None else _ptr_to_batch(ptr_x)
    batch_y = None if ptr_y is None else _ptr_to_batch(ptr_y)
    if batch_x is None and batch_y is not None:
        batch_x = x.new_zeros(x.size(0), dtype=torch.long)
    if batch_y is None and batch_x is not None:
        batch_y = y.new_zeros(y.size(0), dtype=torch.long)
    if batch_x is not None:
        lo = min(x.min().item(), y.min().item())
        x, y = x - lo, y - lo
        hi = max(x.max().item(), y.max().item())
        x, y = x / hi, y / hi
        d = x.size(-1)
        x = torch.cat([x, 2 * d * batch_x.view(-1, 1).to(x.dtype)], -1)
        y = torch.cat([y, 2 * d * batch_y.view(-1, 1).to(y.dtype)], -1)
    return torch.from_numpy(scipy.cluster.vq.vq(x.numpy(), y.numpy())[0]).long()


def _grid_cpu(pos, size, start, end):
    """torch_cluster's csrc/cpu/grid_cpu.cpp."""
    pos = pos.view(pos.size(0), -1)
    start = pos.min(0).values if start is None else start
    end = pos.max(0).values if end is None else end
    pos = pos - start.unsqueeze(0)
    num_voxels = (end - start).true_divide(size).long() + 1
    num_voxels = torch.cat([torch.ones(1, dtype=torch.long), num_voxels.cumprod(0)])[: len(size)]
    return (pos.true_divide(size.view(1, -1)).long() * num_voxels.view(1, -1)).sum(1)


@pytest.fixture
def pyg_kernels(monkeypatch):
    import torch_geometric.typing as typing

    for flag in ("WITH_FPS", "WITH_NEAREST", "WITH_GRID_CLUSTER"):
        monkeypatch.setattr(typing, flag, True, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "fps", _fps_cpu, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "nearest", _nearest_cpu, raising=False)
    monkeypatch.setattr(torch.ops.pyg, "grid_cluster", _grid_cpu, raising=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_against_pyg_wrappers(pyg_kernels, dtype, index_dtype):
    rng = np.random.default_rng(4)
    pos, batch = cloud(rng, [30, 0, 12, 1, 9], 3, dtype, duplicates=True)
    batch = batch.astype(index_dtype)
    tp, tb = torch.from_numpy(pos), torch.from_numpy(batch.astype(np.int64))
    for ratio in (0.3, 0.5, 1.0):
        expected = pyg_nn.fps(tp, tb, ratio=ratio, random_start=False).tolist()
        assert fps(pos, batch, ratio=ratio, random_start=False).tolist() == expected
    assert fps(pos, None, 0.5, False).tolist() == pyg_nn.fps(tp, None, 0.5, False).tolist()
    y, by = cloud(rng, [6, 0, 3, 1, 2], 3, dtype)
    by = by.astype(index_dtype)
    ty, tby = torch.from_numpy(y), torch.from_numpy(by.astype(np.int64))
    assert nearest(pos, y, batch, by).tolist() == pyg_nn.nearest(tp, ty, tb, tby).tolist()
    assert nearest(pos, y).tolist() == pyg_nn.nearest(tp, ty).tolist()
    for size, start, end in (
        (0.5, None, None),
        ([0.4, 0.7, 1.0], None, None),
        (0.6, -3.0, None),
        ([0.5, 0.8], [-4.0, -3.0, -2.0], 5.0),
        (torch.tensor(0.3, dtype=tp.dtype), None, [4.0, 4.0, 4.0]),
    ):
        expected = pyg_nn.voxel_grid(tp, size, tb, start, end).tolist()
        mine = size.numpy() if hasattr(size, "numpy") else size
        assert voxel_grid(pos, mine, batch, start, end).tolist() == expected
    assert voxel_grid(pos, 0.5).tolist() == pyg_nn.voxel_grid(tp, 0.5).tolist()
    one = pos[:1]
    assert voxel_grid(one, 1.0).tolist() == pyg_nn.voxel_grid(torch.from_numpy(one), 1.0).tolist()
